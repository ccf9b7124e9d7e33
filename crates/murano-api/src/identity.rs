//! The identity of requests that carry none: what keystone's auth_token
//! middleware adds in front of murano-api (the token's project, user and
//! roles as `X-Project-Id`, `X-User-Id`, `X-Roles`). A client run with
//! `--os-no-client-auth` sends only its token, so `murano serve
//! --project` stands in for keystone: requests naming no project get it.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderName, HeaderValue, Request};
use axum::middleware::Next;
use axum::response::Response;

use crate::server::Shared;

/// The identity given to requests that name no project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalIdentity {
    /// The project (tenant).
    pub project: String,
    /// The user, when the request names none.
    pub user: String,
    /// The roles (comma separated), when the request names none.
    pub roles: String,
}

impl LocalIdentity {
    /// Project `project`, user `user`, the `member` role.
    pub fn new(project: impl Into<String>, user: impl Into<String>) -> Self {
        LocalIdentity {
            project: project.into(),
            user: user.into(),
            roles: "member".to_owned(),
        }
    }
}

/// Add the local identity's headers to a request that names no project
/// (a request naming one is left as it is: it speaks for itself).
pub async fn fill_in(State(st): State<Shared>, mut req: Request<Body>, next: Next) -> Response {
    if let Some(id) = st.app.identity.get() {
        let h = req.headers_mut();
        if !h.contains_key("x-project-id") && !h.contains_key("x-tenant-id") {
            for (name, value) in [
                ("x-project-id", &id.project),
                ("x-user-id", &id.user),
                ("x-roles", &id.roles),
            ] {
                if h.contains_key(name) {
                    continue;
                }
                if let Ok(v) = HeaderValue::from_str(value) {
                    h.insert(HeaderName::from_static(name), v);
                }
            }
        }
    }
    next.run(req).await
}
