//! Murano's policy (oslo.policy's check language): a rule set, the default
//! rule a missing rule falls back to, and `check` answering 403 on denial.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::context::RequestContext;
use crate::fault::ApiError;

/// How deep `rule:` references and parentheses may nest before a check is
/// refused (a cyclic rule set must not overflow the stack).
const MAX_DEPTH: usize = 32;

/// A rule set with its default rule name.
#[derive(Debug, Clone)]
pub struct Policy {
    rules: BTreeMap<String, String>,
    default_rule: String,
}

/// Murano 14.0.0's registered policy defaults (`policy_defaults.json`):
/// admin-only rules for all-tenant listings, categories and publicising
/// packages; every other rule passes.
const DEFAULTS: &[(&str, &str)] = &[
    ("context_is_admin", "role:admin"),
    ("admin_api", "is_admin:True"),
    ("default", ""),
    ("list_environments_all_tenants", "rule:admin_api"),
    ("add_category", "rule:admin_api"),
    ("delete_category", "rule:admin_api"),
    ("publicize_package", "rule:admin_api"),
];

impl Default for Policy {
    fn default() -> Self {
        Policy::new(
            DEFAULTS
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            "default",
        )
    }
}

impl Policy {
    /// A rule set: checks of unknown rules evaluate `default_rule`.
    pub fn new(rules: BTreeMap<String, String>, default_rule: &str) -> Self {
        Policy {
            rules,
            default_rule: default_rule.to_owned(),
        }
    }

    /// Whether `rule` allows `ctx` on `target`.
    pub fn allows(&self, rule: &str, ctx: &RequestContext, target: &Value) -> bool {
        let creds = ctx.credentials();
        let check = match self
            .rules
            .get(rule)
            .or_else(|| self.rules.get(&self.default_rule))
        {
            Some(c) => c,
            None => return false,
        };
        self.eval_str(check, &creds, target, 0)
    }

    /// `allows`, as Murano's `policy.check`: 403 on denial.
    pub fn check(&self, rule: &str, ctx: &RequestContext, target: &Value) -> Result<(), ApiError> {
        if self.allows(rule, ctx, target) {
            Ok(())
        } else {
            Err(ApiError::plain(403))
        }
    }

    fn eval_str(&self, check: &str, creds: &Value, target: &Value, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let tokens = tokenize(check);
        if tokens.is_empty() {
            return true;
        }
        let mut p = Parser {
            tokens: &tokens,
            pos: 0,
            policy: self,
            creds,
            target,
            depth,
        };
        let v = p.or_expr(0);
        v.unwrap_or(false) && p.pos == tokens.len()
    }

    fn atom(&self, a: &str, creds: &Value, target: &Value, depth: usize) -> bool {
        match a {
            "@" => return true,
            "!" => return false,
            _ => {}
        }
        let Some((kind, match_)) = a.split_once(':') else {
            return false;
        };
        match kind {
            "rule" => match self.rules.get(match_) {
                Some(c) => self.eval_str(c, creds, target, depth + 1),
                None => false,
            },
            "role" => creds["roles"].as_array().is_some_and(|r| {
                r.iter()
                    .any(|x| x.as_str().is_some_and(|x| x.eq_ignore_ascii_case(match_)))
            }),
            _ => {
                // Generic check: `key:value`, the value a literal or a
                // `%(name)s` reference into the target.
                let expected = if let Some(name) =
                    match_.strip_prefix("%(").and_then(|m| m.strip_suffix(")s"))
                {
                    match &target[name] {
                        Value::String(s) => s.clone(),
                        Value::Null => return false,
                        v => v.to_string(),
                    }
                } else {
                    match_.to_owned()
                };
                match &creds[kind] {
                    Value::String(s) => *s == expected,
                    Value::Bool(b) => (if *b { "True" } else { "False" }) == expected,
                    Value::Null => false,
                    v => *v == Value::String(expected),
                }
            }
        }
    }
}

fn tokenize(s: &str) -> Vec<String> {
    let spaced = s.replace('(', " ( ").replace(')', " ) ");
    // `%(name)s` was split by the line above; rejoin it.
    let spaced = spaced.replace("% ( ", "%(").replace(" ) s", ")s");
    spaced.split_whitespace().map(str::to_owned).collect()
}

struct Parser<'a> {
    tokens: &'a [String],
    pos: usize,
    policy: &'a Policy,
    creds: &'a Value,
    target: &'a Value,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.pos).map(String::as_str)
    }

    fn or_expr(&mut self, nest: usize) -> Option<bool> {
        let mut v = self.and_expr(nest)?;
        while self.peek() == Some("or") {
            self.pos += 1;
            let r = self.and_expr(nest)?;
            v = v || r;
        }
        Some(v)
    }

    fn and_expr(&mut self, nest: usize) -> Option<bool> {
        let mut v = self.not_expr(nest)?;
        while self.peek() == Some("and") {
            self.pos += 1;
            let r = self.not_expr(nest)?;
            v = v && r;
        }
        Some(v)
    }

    fn not_expr(&mut self, nest: usize) -> Option<bool> {
        if nest > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            "not" => {
                self.pos += 1;
                Some(!self.not_expr(nest + 1)?)
            }
            "(" => {
                self.pos += 1;
                let v = self.or_expr(nest + 1)?;
                if self.peek() != Some(")") {
                    return None;
                }
                self.pos += 1;
                Some(v)
            }
            t => {
                let t = t.to_owned();
                self.pos += 1;
                Some(self.policy.atom(&t, self.creds, self.target, self.depth))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ctx(roles: &[&str]) -> RequestContext {
        RequestContext {
            tenant: Some("t".into()),
            roles: roles.iter().map(|s| s.to_string()).collect(),
            is_admin: roles.contains(&"admin"),
            ..Default::default()
        }
    }

    #[test]
    fn default_policy_admin_vs_member() {
        let p = Policy::default();
        assert!(p.allows("list_environments", &ctx(&["member"]), &json!({})));
        assert!(!p.allows(
            "list_environments_all_tenants",
            &ctx(&["member"]),
            &json!({})
        ));
        assert!(p.allows(
            "list_environments_all_tenants",
            &ctx(&["admin"]),
            &json!({})
        ));
    }

    #[test]
    fn rule_language() {
        let rules: BTreeMap<String, String> = [
            ("a", "role:x and not role:y"),
            ("b", "(role:y or @) and project_id:%(tenant)s"),
            ("loop", "rule:loop"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let p = Policy::new(rules, "default");
        assert!(p.allows("a", &ctx(&["x"]), &json!({})));
        assert!(!p.allows("a", &ctx(&["x", "y"]), &json!({})));
        assert!(p.allows("b", &ctx(&[]), &json!({"tenant": "t"})));
        assert!(!p.allows("b", &ctx(&[]), &json!({"tenant": "u"})));
        assert!(!p.allows("missing", &ctx(&[]), &json!({})));
        assert!(!p.allows("loop", &ctx(&[]), &json!({})));
    }
}
