//! What each engine task sent to the cloud: the Heat operations (with
//! their templates) and the agent execution plans, kept per task
//! (Murano's deployment) in `task_artifacts` (migration 2).

use rusqlite::OptionalExtension;
use serde_json::Value;

use super::{Db, StoreError};

/// The Heat operations and agent plans of one task.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskArtifacts {
    /// Heat operations in order: `{op, stack, region, template,
    /// parameters, files, environment, tags, call_index}` (a delete has
    /// no template).
    pub heat: Vec<Value>,
    /// Agent plans sent, in order: `{queue, host, wait_results, timeout,
    /// plan, call_index}`.
    pub agent_plans: Vec<Value>,
}

impl Db {
    /// Store what task `task_id` of environment `env_id` sent (replacing
    /// an earlier record of the same task).
    pub fn set_task_artifacts(
        &self,
        task_id: &str,
        env_id: &str,
        artifacts: &TaskArtifacts,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO task_artifacts (task_id, environment_id, heat, agent_plans, created) \
             VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(task_id) DO UPDATE SET \
             heat = excluded.heat, agent_plans = excluded.agent_plans, created = excluded.created",
            rusqlite::params![
                task_id,
                env_id,
                Value::Array(artifacts.heat.clone()).to_string(),
                Value::Array(artifacts.agent_plans.clone()).to_string(),
                crate::clock::now()
            ],
        )?;
        Ok(())
    }

    /// What task `task_id` sent, if it was recorded.
    pub fn task_artifacts(&self, task_id: &str) -> Result<Option<TaskArtifacts>, StoreError> {
        let texts: Option<(String, String)> = self
            .conn
            .query_row(
                "SELECT heat, agent_plans FROM task_artifacts WHERE task_id = ?1",
                [task_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let list = |t: &str| -> Result<Vec<Value>, StoreError> {
            match serde_json::from_str(t).map_err(|e| StoreError::Sql(e.to_string()))? {
                Value::Array(items) => Ok(items),
                _ => Err(StoreError::Sql("task artifacts are not a list".into())),
            }
        };
        texts
            .map(|(heat, plans)| {
                Ok(TaskArtifacts {
                    heat: list(&heat)?,
                    agent_plans: list(&plans)?,
                })
            })
            .transpose()
    }

    /// Forget what the tasks of environment `env_id` sent.
    pub fn delete_task_artifacts(&self, env_id: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "DELETE FROM task_artifacts WHERE environment_id = ?1",
            [env_id],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn artifacts_are_kept_per_task_and_go_with_their_environment() {
        let db = Db::in_memory().unwrap();
        assert_eq!(db.task_artifacts("t1").unwrap(), None);
        let first = TaskArtifacts {
            heat: vec![json!({"op": "push", "stack": "s", "template": {"resources": {}}})],
            agent_plans: vec![json!({"queue": "q", "plan": {"Body": "x"}})],
        };
        db.set_task_artifacts("t1", "e", &first).unwrap();
        db.set_task_artifacts("t2", "e", &TaskArtifacts::default())
            .unwrap();
        db.set_task_artifacts("t3", "other", &first).unwrap();
        assert_eq!(db.task_artifacts("t1").unwrap(), Some(first.clone()));
        assert_eq!(
            db.task_artifacts("t2").unwrap(),
            Some(TaskArtifacts::default())
        );
        db.delete_task_artifacts("e").unwrap();
        assert_eq!(db.task_artifacts("t1").unwrap(), None);
        assert_eq!(db.task_artifacts("t3").unwrap(), Some(first));
    }
}
