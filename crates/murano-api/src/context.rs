//! The request context, read from headers as Murano's `ContextMiddleware`
//! reads them (after keystone's auth_token middleware in a deployment).

use axum::http::HeaderMap;
use serde_json::{json, Value};

/// Who is asking, and in which configuration session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestContext {
    /// `X-User-Id`.
    pub user: Option<String>,
    /// `X-Tenant-Id`, else `X-Project-Id`.
    pub tenant: Option<String>,
    /// `X-Roles`, comma separated, blanks stripped.
    pub roles: Vec<String>,
    /// The admin role (config `admin_role`, `admin`) is among the roles.
    pub is_admin: bool,
    /// `X-Auth-Token`.
    pub auth_token: Option<String>,
    /// `X-Configuration-Session`.
    pub session: Option<String>,
}

/// The role that makes a context an admin one (Murano's `admin_role`).
pub const ADMIN_ROLE: &str = "admin";

fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

impl RequestContext {
    /// The context of a request with these headers.
    pub fn from_headers(headers: &HeaderMap) -> Self {
        let roles: Vec<String> = header(headers, "x-roles")
            .map(|r| {
                r.split(',')
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let is_admin = roles.iter().any(|r| r == ADMIN_ROLE);
        RequestContext {
            user: header(headers, "x-user-id"),
            tenant: header(headers, "x-tenant-id").or_else(|| header(headers, "x-project-id")),
            roles,
            is_admin,
            auth_token: header(headers, "x-auth-token"),
            session: header(headers, "x-configuration-session").filter(|s| !s.is_empty()),
        }
    }

    /// The tenant as a JSON value (null when the request named none).
    pub fn tenant_value(&self) -> Value {
        json!(self.tenant)
    }

    /// The policy credentials (the context's dict form).
    pub fn credentials(&self) -> Value {
        json!({
            "user_id": self.user,
            "user": self.user,
            "project_id": self.tenant,
            "tenant": self.tenant,
            "is_admin": self.is_admin,
            "roles": self.roles,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_murano_headers() {
        let mut h = HeaderMap::new();
        h.insert("x-project-id", "p".parse().unwrap());
        h.insert("x-user-id", "u".parse().unwrap());
        h.insert("x-roles", " member , admin ,".parse().unwrap());
        let c = RequestContext::from_headers(&h);
        assert_eq!(c.tenant.as_deref(), Some("p"));
        assert_eq!(c.roles, vec!["member", "admin"]);
        assert!(c.is_admin);
        h.insert("x-tenant-id", "t".parse().unwrap());
        assert_eq!(
            RequestContext::from_headers(&h).tenant.as_deref(),
            Some("t")
        );
    }
}
