//! `GET /schemas/{class_name}[/{method_names}]`: a class's JSON schema
//! from the engine (Murano's `schemas.py`).

use serde_json::json;

use crate::app::{App, Outcome, Reply, Req};
use crate::fault::ApiError;

/// `GET /schemas/{class_name}[/{method_names}]` (`classVersion`,
/// `packageName`).
pub fn get_schema(app: &App, req: &Req, class_name: &str, method_names: Option<&str>) -> Outcome {
    app.check("get_schema", &req.ctx, json!({"class_name": class_name}))?;
    let credentials = json!({"token": req.ctx.auth_token, "project_id": req.ctx.tenant});
    let methods: Vec<String> = method_names
        .filter(|m| !m.is_empty())
        .map(|m| m.split(',').map(|s| s.trim().to_owned()).collect())
        .unwrap_or_default();
    let version = req.param("classVersion").map(str::to_owned);
    let package = req.param("packageName").map(str::to_owned);
    match app
        .engine
        .generate_schema(credentials, class_name, methods, version, package)
    {
        Ok(v) => Ok(Reply::Json(v)),
        Err(e)
            if matches!(
                e.exc_type.as_str(),
                "NoClassFound" | "NoPackageForClassFound" | "NoPackageFound"
            ) =>
        {
            Err(ApiError::detail(404, e.value))
        }
        // Murano re-raises other engine errors: a 500 behind its fault wrapper.
        Err(e) => Err(ApiError::detail(500, e.value)),
    }
}
