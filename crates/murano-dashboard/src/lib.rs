//! The dashboard of `murano serve`: Murano's catalog, environments,
//! application wizards, deployments and actions as server-rendered HTML
//! pages on the API's port, over the API's store.
//!
//! Every page works without JavaScript (links and form posts); the one
//! inline script polls an environment page while a deployment runs. The
//! pages call murano-api's controllers in-process under the request's
//! context (the headers Murano's context middleware reads; a browser on
//! loopback without them works as the local tenant [`LOCAL_TENANT`]), so
//! that what the pages do is exactly what the API does.
//!
//! Layers: `html` (escaping, frame, stylesheet), `calls` (the controllers
//! called in-process), `catalog`, `environments`, `wizard` (Dynamic UI
//! wizards with application-typed fields), `edit` (an application's
//! properties filled with their values), `object_form` (MuranoPL forms
//! generated from a class's schema, for packages without a UI), `actions`
//! and `action_form` (their arguments from contracts), `static_actions`
//! (a package's, from its page), and this module's
//! dispatcher and axum routes.

#![forbid(unsafe_code)]

pub mod action_form;
pub mod actions;
pub mod calls;
pub mod catalog;
pub mod cloud;
pub mod edit;
pub mod environments;
pub mod html;
pub mod object_form;
pub mod schema_form;
pub mod static_actions;
pub mod wizard;

#[cfg(test)]
mod object_form_tests;
#[cfg(test)]
mod page_tests;
#[cfg(test)]
mod static_action_tests;

use std::sync::{Arc, Mutex};

use axum::body::{to_bytes, Body};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, Method as HttpMethod, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;
use murano_api::context::RequestContext;
use murano_api::{App, Shared};

use html::Section;

/// The tenant (and user) of a browser that sends no context headers.
pub const LOCAL_TENANT: &str = "local";

/// Largest form body a page accepts, in bytes.
pub const MAX_FORM: usize = 1 << 20;

/// The content security policy of every page: everything from this
/// server only, the pages' own inline scripts, no framing.
pub const PAGE_POLICY: &str = "default-src 'self'; script-src 'self' 'unsafe-inline'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The request method, as the pages tell them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// GET (and HEAD).
    Get,
    /// POST.
    Post,
    /// Anything else.
    Other,
}

/// A page request: method, path, query and posted form pairs, context.
#[derive(Debug, Clone)]
pub struct PageRequest {
    /// The method.
    pub method: Method,
    /// The path, percent-decoded per segment by the dispatcher.
    pub path: String,
    /// The query pairs.
    pub query: Vec<(String, String)>,
    /// The posted `application/x-www-form-urlencoded` pairs.
    pub form: Vec<(String, String)>,
    /// Who asks.
    pub ctx: RequestContext,
}

impl PageRequest {
    /// A GET of `path` (with its query) by the local tenant.
    pub fn get(path_and_query: &str) -> PageRequest {
        let (path, query) = path_and_query
            .split_once('?')
            .unwrap_or((path_and_query, ""));
        PageRequest {
            method: Method::Get,
            path: path.to_owned(),
            query: murano_api::server::parse_query(query),
            form: Vec::new(),
            ctx: local_context(),
        }
    }

    /// A POST of `form` to `path` (with its query) by the local tenant.
    pub fn post(path_and_query: &str, form: &[(&str, &str)]) -> PageRequest {
        let (path, query) = path_and_query
            .split_once('?')
            .unwrap_or((path_and_query, ""));
        PageRequest {
            method: Method::Post,
            path: path.to_owned(),
            query: murano_api::server::parse_query(query),
            form: form
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            ctx: local_context(),
        }
    }

    /// The first query value named `name`.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The first posted value named `name`.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.form
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What a page answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Page {
    /// An HTML page with its status.
    Html(u16, String),
    /// 303 See Other to this address (after a post).
    Redirect(String),
    /// Bytes of a content type (logos, the stylesheet).
    Bytes(&'static str, Vec<u8>),
}

/// The context of the local tenant.
pub fn local_context() -> RequestContext {
    RequestContext {
        user: Some(LOCAL_TENANT.into()),
        tenant: Some(LOCAL_TENANT.into()),
        roles: vec!["member".into()],
        ..RequestContext::default()
    }
}

/// The context of a request: its headers', or the local tenant's when it
/// names no tenant.
pub fn context_of(headers: &HeaderMap) -> RequestContext {
    let mut ctx = RequestContext::from_headers(headers);
    if ctx.tenant.is_none() {
        let local = local_context();
        ctx.tenant = local.tenant;
        ctx.user = ctx.user.or(local.user);
        if ctx.roles.is_empty() {
            ctx.roles = local.roles;
        }
    }
    // The configuration session is the dashboard's to choose.
    ctx.session = None;
    ctx
}

/// The dashboard: the API's state and the wizards in progress.
pub struct Dashboard {
    /// The API's app (store, policy, engine).
    pub app: Arc<App>,
    /// The wizards in progress.
    pub drafts: Mutex<wizard::Drafts>,
    /// The cloud resources the forms list.
    pub cloud: cloud::CloudResources,
    /// The catalog's classes, for the choices of `muranoObject` fields.
    pub classes: Arc<dyn object_form::ClassCatalog>,
}

impl std::fmt::Debug for Dashboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dashboard").finish_non_exhaustive()
    }
}

impl Dashboard {
    /// A dashboard over `app` with the default offline cloud.
    pub fn new(app: Arc<App>) -> Dashboard {
        Dashboard {
            app,
            drafts: Mutex::new(wizard::Drafts::default()),
            cloud: cloud::CloudResources::default(),
            classes: Arc::new(object_form::StoreClasses::default()),
        }
    }

    /// Answers one page request (synchronous: the store and the wizards
    /// run here; the async layer calls it on the blocking pool).
    pub fn dispatch(&self, req: &PageRequest) -> Page {
        let segs: Vec<String> = req
            .path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(percent_decode)
            .collect();
        let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
        let get = req.method == Method::Get;
        let post = req.method == Method::Post;
        match segs.as_slice() {
            [] if get => Page::Redirect("/catalog".into()),
            ["style.css"] if get => Page::Bytes(
                "text/css; charset=utf-8",
                html::STYLESHEET.as_bytes().to_vec(),
            ),
            ["catalog"] if get => catalog::list(self, req),
            ["catalog", pid] if get => catalog::show(self, req, pid),
            ["catalog", pid, "logo"] if get => catalog::logo(self, req, pid),
            ["catalog", pid, "static", class, method] if get => {
                static_actions::show(self, req, pid, class, method)
            }
            ["catalog", pid, "static", class, method] if post => {
                static_actions::call(self, req, pid, class, method)
            }
            ["environments"] if get => environments::list(self, req, None),
            ["environments"] if post => environments::create(self, req),
            ["environments", eid] if get => environments::show(self, req, eid),
            ["environments", eid, "delete"] if post => environments::delete(self, req, eid),
            ["environments", eid, "deploy"] if post => environments::deploy(self, req, eid),
            ["environments", eid, "apps", aid, "remove"] if post => {
                environments::remove_app(self, req, eid, aid)
            }
            ["environments", eid, "apps", aid, "edit"] if get => edit::show(self, req, eid, aid),
            ["environments", eid, "apps", aid, "edit"] if post => edit::save(self, req, eid, aid),
            ["environments", eid, "apps", aid, "form"] if get => {
                object_form::show_edit(self, req, eid, aid)
            }
            ["environments", eid, "apps", aid, "form"] if post => {
                object_form::post_edit(self, req, eid, aid)
            }
            ["environments", eid, "form", pid] if get => object_form::show_add(self, req, eid, pid),
            ["environments", eid, "form", pid] if post => {
                object_form::post_add(self, req, eid, pid)
            }
            ["environments", eid, "deployments", did] if get => {
                environments::deployment(self, req, eid, did)
            }
            ["environments", eid, "add"] if get => wizard::choose(self, req, eid),
            ["environments", eid, "add", pid] if post || get => wizard::start(self, req, eid, pid),
            ["environments", eid, "actions", aid] if post => actions::call(self, req, eid, aid),
            ["environments", eid, "actions", aid] if get => {
                action_form::show_action(self, req, eid, aid)
            }
            ["environments", eid, "tasks", tid] if get => actions::result(self, req, eid, tid),
            ["drafts", did, "step", n] if get => match n.parse() {
                Ok(n) => wizard::show_step(self, req, did, n),
                Err(_) => not_found(),
            },
            ["drafts", did, "step", n] if post => match n.parse() {
                Ok(n) => wizard::submit(self, req, did, n),
                Err(_) => not_found(),
            },
            _ => not_found(),
        }
    }
}

/// The 404 page.
pub fn not_found() -> Page {
    Page::Html(
        404,
        html::error_page(
            "Not found",
            Section::Catalog,
            "There is no such page. The catalog and your environments are linked above.",
        ),
    )
}

fn percent_decode(s: &str) -> String {
    murano_api::server::parse_query(&format!("x={}", s.replace('+', "%2B")))
        .into_iter()
        .next()
        .map(|(_, v)| v)
        .unwrap_or_default()
}

impl IntoResponse for Page {
    fn into_response(self) -> Response {
        match self {
            Page::Html(status, body) => {
                let mut r =
                    (StatusCode::from_u16(status).unwrap_or(StatusCode::OK), body).into_response();
                r.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("text/html; charset=utf-8"),
                );
                r.headers_mut().insert(
                    header::CONTENT_SECURITY_POLICY,
                    HeaderValue::from_static(PAGE_POLICY),
                );
                r
            }
            Page::Redirect(to) => {
                let mut r = StatusCode::SEE_OTHER.into_response();
                if let Ok(v) = HeaderValue::from_str(&to) {
                    r.headers_mut().insert(header::LOCATION, v);
                }
                r
            }
            Page::Bytes(ct, bytes) => {
                let mut r = (StatusCode::OK, bytes).into_response();
                r.headers_mut()
                    .insert(header::CONTENT_TYPE, HeaderValue::from_static(ct));
                // A package's SVG logo opened on its own runs nothing.
                r.headers_mut().insert(
                    header::CONTENT_SECURITY_POLICY,
                    HeaderValue::from_static(
                        "default-src 'none'; style-src 'unsafe-inline'; sandbox",
                    ),
                );
                r.headers_mut().insert(
                    header::X_CONTENT_TYPE_OPTIONS,
                    HeaderValue::from_static("nosniff"),
                );
                r
            }
        }
    }
}

/// The shared state of the page routes.
#[derive(Clone)]
struct Pages {
    dashboard: Arc<Dashboard>,
    token: Option<String>,
}

/// Whether a post comes from another site (its `Origin` names another
/// host than the request's `Host`): refused, so that no page elsewhere
/// can drive the dashboard.
fn cross_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let origin_host = origin.split_once("://").map_or(origin, |(_, h)| h);
    origin != "null" && origin_host != host
}

/// The token a browser presents: the `murano_token` cookie or the
/// `X-Auth-Token` header.
fn presented_token(headers: &HeaderMap) -> Option<String> {
    if let Some(t) = headers.get("x-auth-token").and_then(|v| v.to_str().ok()) {
        return Some(t.to_owned());
    }
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().strip_prefix("murano_token="))
        .map(str::to_owned)
        .next()
}

fn login_page(status: u16) -> Page {
    Page::Html(
        status,
        html::page(
            "Sign in",
            Section::Catalog,
            "<h1>Sign in</h1>\n<p>This server requires its token.</p>\n\
             <form method=\"post\" action=\"/login\">\n<div class=\"field\">\n\
             <label for=\"id_token\">Token</label>\n\
             <input type=\"password\" name=\"token\" id=\"id_token\" autocomplete=\"current-password\">\n</div>\n\
             <div class=\"buttons\"><button type=\"submit\" class=\"primary\">Sign in</button></div>\n</form>\n",
        ),
    )
}

async fn serve_page(
    State(st): State<Pages>,
    method: HttpMethod,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let method = match method {
        HttpMethod::GET | HttpMethod::HEAD => Method::Get,
        HttpMethod::POST => Method::Post,
        _ => Method::Other,
    };
    if method == Method::Post && cross_origin(&headers) {
        return (StatusCode::FORBIDDEN, "cross-origin post refused").into_response();
    }
    let Ok(body) = to_bytes(body, MAX_FORM).await else {
        return (StatusCode::PAYLOAD_TOO_LARGE, "form too large").into_response();
    };
    let form = murano_api::server::parse_query(&String::from_utf8_lossy(&body));
    if let Some(token) = &st.token {
        if uri.path() == "/login" && method == Method::Post {
            let given = form
                .iter()
                .find(|(k, _)| k == "token")
                .map(|(_, v)| v.as_str());
            if given != Some(token.as_str()) {
                return login_page(401).into_response();
            }
            let mut r = Page::Redirect("/catalog".into()).into_response();
            let cookie = format!("murano_token={token}; HttpOnly; SameSite=Strict; Path=/");
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                r.headers_mut().insert(header::SET_COOKIE, v);
            }
            return r;
        }
        if presented_token(&headers).as_deref() != Some(token.as_str()) {
            return login_page(401).into_response();
        }
    }
    let req = PageRequest {
        method,
        path: uri.path().to_owned(),
        query: murano_api::server::parse_query(uri.query().unwrap_or("")),
        form,
        ctx: context_of(&headers),
    };
    let dashboard = st.dashboard.clone();
    match tokio::task::spawn_blocking(move || dashboard.dispatch(&req)).await {
        Ok(page) => page.into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// The page routes over `shared`'s app, to merge into the API's router
/// (they have no fallback: unknown paths stay the API's 404). With a token
/// configured, a browser signs in once at `/login` (an HttpOnly cookie).
pub fn router(shared: Shared) -> Router {
    router_for(Arc::new(Dashboard::new(shared.app.clone())), shared.token)
}

/// [`router`] over a dashboard built by the caller.
pub fn router_for(dashboard: Arc<Dashboard>, token: Option<String>) -> Router {
    let st = Pages { dashboard, token };
    Router::new()
        .route("/", any(serve_page))
        .route("/style.css", any(serve_page))
        .route("/login", any(serve_page))
        .route("/catalog", any(serve_page))
        .route("/catalog/{*rest}", any(serve_page))
        .route("/environments", any(serve_page))
        .route("/environments/{*rest}", any(serve_page))
        .route("/drafts/{*rest}", any(serve_page))
        .with_state(st)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_without_a_tenant_is_the_local_one() {
        let h = HeaderMap::new();
        let c = context_of(&h);
        assert_eq!(c.tenant.as_deref(), Some(LOCAL_TENANT));
        assert_eq!(c.user.as_deref(), Some(LOCAL_TENANT));
        let mut h = HeaderMap::new();
        h.insert("x-project-id", "p".parse().unwrap());
        h.insert("x-configuration-session", "s".parse().unwrap());
        let c = context_of(&h);
        assert_eq!(c.tenant.as_deref(), Some("p"));
        assert_eq!(c.session, None);
    }

    #[test]
    fn posts_from_other_sites_are_refused() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, "127.0.0.1:8082".parse().unwrap());
        assert!(!cross_origin(&h));
        h.insert(header::ORIGIN, "http://127.0.0.1:8082".parse().unwrap());
        assert!(!cross_origin(&h));
        h.insert(header::ORIGIN, "http://evil.example".parse().unwrap());
        assert!(cross_origin(&h));
    }

    #[test]
    fn the_token_comes_from_the_cookie_or_the_header() {
        let mut h = HeaderMap::new();
        assert_eq!(presented_token(&h), None);
        h.insert(header::COOKIE, "a=b; murano_token=T".parse().unwrap());
        assert_eq!(presented_token(&h).as_deref(), Some("T"));
        h.insert("x-auth-token", "U".parse().unwrap());
        assert_eq!(presented_token(&h).as_deref(), Some("U"));
    }
}
