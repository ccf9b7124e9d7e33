//! The HTTP layer: axum's router over Murano's v1 routes, the token gate,
//! the body limit, and each controller run on tokio's blocking pool so the
//! store and engine never block the async runtime's threads.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::{to_bytes, Body};
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, Request};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;

use crate::app::{App, Outcome, Req};
use crate::context::RequestContext;
use crate::fault::ApiError;
use crate::handlers::request_stats;
use crate::handlers::{
    actions, categories as cat, deployments, environments as envs, package_search, packages as pkg,
    schemas, services as svc, sessions, statistics, templates as tpl,
};

/// The shared state of the routes: the app and the token every request
/// must carry (when set).
#[derive(Clone, Debug)]
pub struct Shared {
    /// The app.
    pub app: Arc<App>,
    /// The required `X-Auth-Token`, if any.
    pub token: Option<String>,
}

/// Run `f` on the blocking pool with the request read into a `Req`.
async fn run<F>(st: Shared, headers: HeaderMap, query: Option<String>, body: Body, f: F) -> Response
where
    F: FnOnce(&App, &Req) -> Outcome + Send + 'static,
{
    let limit = st.app.limits.max_body;
    let body = match to_bytes(body, limit).await {
        Ok(b) => b.to_vec(),
        Err(_) => return ApiError::plain(413).into_response(),
    };
    let hv = |h: header::HeaderName| {
        headers
            .get(h)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let req = Req {
        ctx: RequestContext::from_headers(&headers),
        query: parse_query(query.as_deref().unwrap_or("")),
        body,
        content_type: hv(header::CONTENT_TYPE),
        accept: hv(header::ACCEPT),
    };
    let app = st.app.clone();
    let accept = req.accept.clone();
    match tokio::task::spawn_blocking(move || f(&app, &req)).await {
        Ok(Ok(reply)) => reply.into_response(),
        Ok(Err(e)) => e.respond(accept.as_deref()),
        Err(_) => ApiError::plain(500).respond(accept.as_deref()),
    }
}

/// `a=1&b=x%20y` as ordered pairs, percent- and plus-decoded.
pub fn parse_query(q: &str) -> Vec<(String, String)> {
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                match std::str::from_utf8(&b[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                {
                    Some(x) => {
                        out.push(x);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Refuse requests without the configured token (401).
async fn token_gate(State(st): State<Shared>, req: Request<Body>, next: Next) -> Response {
    if let Some(t) = &st.token {
        let given = req
            .headers()
            .get("x-auth-token")
            .and_then(|v| v.to_str().ok());
        if given != Some(t.as_str()) {
            return ApiError::plain(401).into_response();
        }
    }
    next.run(req).await
}

/// Count the request in the app's request statistics (`GET /stats`):
/// an answer of 400 or more is a failure, as a raised error is in Murano.
async fn count_requests(State(st): State<Shared>, req: Request<Body>, next: Next) -> Response {
    let tenant = RequestContext::from_headers(req.headers()).tenant;
    let started = std::time::Instant::now();
    let res = next.run(req).await;
    let failed = res.status().as_u16() >= 400;
    st.app
        .stats
        .record(tenant.as_deref(), started.elapsed(), failed);
    res
}

macro_rules! h {
    ($f:expr) => {
        |State(st): State<Shared>, headers: HeaderMap, uri: axum::http::Uri, body: Body| async move {
            run(st, headers, uri.query().map(str::to_owned), body, move |a, r| $f(a, r)).await
        }
    };
    ($f:expr, $p:ty) => {
        |State(st): State<Shared>, Path(p): Path<$p>, headers: HeaderMap, uri: axum::http::Uri, body: Body| async move {
            run(st, headers, uri.query().map(str::to_owned), body, move |a, r| $f(a, r, p)).await
        }
    };
}

type P1 = String;
type P2 = (String, String);

/// The v1 routes, mounted at `/v1`.
pub fn router(shared: Shared) -> Router {
    let v1 = Router::new()
        .route("/environments", get(h!(envs::index)).post(h!(envs::create)))
        .route(
            "/environments/{env_id}",
            get(h!(|a, r, p: P1| envs::show(a, r, &p), P1))
                .put(h!(|a, r, p: P1| envs::update(a, r, &p), P1))
                .delete(h!(|a, r, p: P1| envs::delete(a, r, &p), P1)),
        )
        .route(
            "/environments/{env_id}/lastStatus",
            get(h!(|a, r, p: P1| envs::last_status(a, r, &p), P1)),
        )
        .route(
            "/environments/{env_id}/model/",
            axum::routing::patch(h!(|a, r, p: P1| envs::update_model(a, r, &p), P1))
                .get(h!(|a, r, p: P1| envs::get_model(a, r, &p, "/"), P1)),
        )
        .route(
            "/environments/{env_id}/model/{*path}",
            get(h!(|a, r, p: P2| envs::get_model(a, r, &p.0, &p.1), P2)),
        )
        .route(
            "/environments/{env_id}/configure",
            post(h!(|a, r, p: P1| sessions::configure(a, r, &p), P1)),
        )
        .route(
            "/environments/{env_id}/sessions/{sid}",
            get(h!(|a, r, p: P2| sessions::show(a, r, &p.0, &p.1), P2))
                .delete(h!(|a, r, p: P2| sessions::delete(a, r, &p.0, &p.1), P2)),
        )
        .route(
            "/environments/{env_id}/sessions/{sid}/deploy",
            post(h!(|a, r, p: P2| sessions::deploy(a, r, &p.0, &p.1), P2)),
        )
        .route(
            "/deployments",
            get(h!(|a, r| deployments::index(a, r, None))),
        )
        .route(
            "/environments/{env_id}/deployments",
            get(h!(|a, r, p: P1| deployments::index(a, r, Some(&p)), P1)),
        )
        .route(
            "/environments/{env_id}/deployments/{did}",
            get(h!(
                |a, r, p: P2| deployments::statuses(a, r, &p.0, &p.1),
                P2
            )),
        )
        .route(
            "/environments/{env_id}/actions/{aid}",
            post(h!(|a, r, p: P2| actions::execute(a, r, &p.0, &p.1), P2))
                .get(h!(|a, r, p: P2| actions::get_result(a, r, &p.0, &p.1), P2)),
        )
        .route("/actions", post(h!(actions::static_action)))
        .route(
            "/environments/{env_id}/instance-statistics/raw",
            get(h!(|a, r, p: P1| statistics::raw(a, r, &p, None), P1)),
        )
        .route(
            "/environments/{env_id}/instance-statistics/raw/{iid}",
            get(h!(
                |a, r, p: P2| statistics::raw(a, r, &p.0, Some(&p.1)),
                P2
            )),
        )
        .route(
            "/environments/{env_id}/instance-statistics/aggregated",
            get(h!(|a, r, p: P1| statistics::aggregated(a, r, &p), P1)),
        )
        .route(
            "/environments/{env_id}/services",
            get(h!(|a, r, p: P1| svc::get(a, r, &p, None), P1))
                .post(h!(|a, r, p: P1| svc::post(a, r, &p, None), P1))
                .put(h!(|a, r, p: P1| svc::put(a, r, &p, None), P1)),
        )
        .route(
            "/environments/{env_id}/services/",
            get(h!(|a, r, p: P1| svc::get(a, r, &p, None), P1))
                .post(h!(|a, r, p: P1| svc::post(a, r, &p, None), P1))
                .put(h!(|a, r, p: P1| svc::put(a, r, &p, None), P1)),
        )
        .route(
            "/environments/{env_id}/services/{*path}",
            get(h!(|a, r, p: P2| svc::get(a, r, &p.0, Some(&p.1)), P2))
                .post(h!(|a, r, p: P2| svc::post(a, r, &p.0, Some(&p.1)), P2))
                .put(h!(|a, r, p: P2| svc::put(a, r, &p.0, Some(&p.1)), P2))
                .delete(h!(|a, r, p: P2| svc::delete(a, r, &p.0, Some(&p.1)), P2)),
        )
        .route(
            "/catalog/packages",
            get(h!(package_search::search)).post(h!(pkg::upload)),
        )
        .route(
            "/catalog/packages/{pid}",
            get(h!(|a, r, p: P1| pkg::show(a, r, &p), P1))
                .patch(h!(|a, r, p: P1| pkg::update(a, r, &p), P1))
                .delete(h!(|a, r, p: P1| pkg::delete(a, r, &p), P1)),
        )
        .route(
            "/catalog/packages/{pid}/logo",
            get(h!(|a, r, p: P1| pkg::logo(a, r, &p), P1)),
        )
        .route(
            "/catalog/packages/{pid}/supplier_logo",
            get(h!(|a, r, p: P1| pkg::supplier_logo(a, r, &p), P1)),
        )
        .route(
            "/catalog/packages/{pid}/download",
            get(h!(|a, r, p: P1| pkg::download(a, r, &p), P1)),
        )
        .route(
            "/catalog/packages/{pid}/ui",
            get(h!(|a, r, p: P1| pkg::ui(a, r, &p), P1)),
        )
        .route(
            "/catalog/categories",
            get(h!(cat::index)).post(h!(cat::create)),
        )
        .route(
            "/catalog/categories/{cid}",
            get(h!(|a, r, p: P1| cat::show(a, r, &p), P1))
                .delete(h!(|a, r, p: P1| cat::delete(a, r, &p), P1)),
        )
        .route(
            "/schemas/{class_name}",
            get(h!(|a, r, p: P1| schemas::get_schema(a, r, &p, None), P1)),
        )
        .route(
            "/schemas/{class_name}/{method_names}",
            get(h!(
                |a, r, p: P2| schemas::get_schema(a, r, &p.0, Some(&p.1)),
                P2
            )),
        )
        .route("/templates", get(h!(tpl::index)).post(h!(tpl::create)))
        .route(
            "/templates/{tid}",
            get(h!(|a, r, p: P1| tpl::show(a, r, &p), P1))
                .put(h!(|a, r, p: P1| tpl::update(a, r, &p), P1))
                .delete(h!(|a, r, p: P1| tpl::delete(a, r, &p), P1)),
        )
        .route(
            "/templates/{tid}/create-environment",
            post(h!(|a, r, p: P1| tpl::create_environment(a, r, &p), P1)),
        )
        .route(
            "/templates/{tid}/clone",
            post(h!(|a, r, p: P1| tpl::clone(a, r, &p), P1)),
        )
        .route(
            "/templates/{tid}/services",
            get(h!(|a, r, p: P1| tpl::apps_show(a, r, &p, None), P1))
                .post(h!(|a, r, p: P1| tpl::apps_post(a, r, &p), P1)),
        )
        .route(
            "/templates/{tid}/services/{*path}",
            get(h!(|a, r, p: P2| tpl::apps_show(a, r, &p.0, Some(&p.1)), P2))
                .put(h!(|a, r, p: P2| tpl::apps_put(a, r, &p.0, &p.1), P2))
                .delete(h!(|a, r, p: P2| tpl::apps_delete(a, r, &p.0, &p.1), P2)),
        )
        // Murano's DELETE on the whole services list, with or without the
        // trailing slash (its `{path:.*?}` matches the empty path).
        .route(
            "/environments/{env_id}/services",
            axum::routing::delete(h!(|a, r, p: P1| svc::delete(a, r, &p, None), P1)),
        )
        .route(
            "/environments/{env_id}/services/",
            axum::routing::delete(h!(|a, r, p: P1| svc::delete(a, r, &p, None), P1)),
        )
        .route("/stats", get(h!(request_stats::get)))
        // Only requests a controller serves are counted, as in Murano.
        .route_layer(middleware::from_fn_with_state(
            shared.clone(),
            count_requests,
        ))
        .fallback(|| async { ApiError::plain(404) });
    Router::new()
        .nest("/v1", v1)
        .fallback(|| async { ApiError::plain(404) })
        .layer(middleware::from_fn_with_state(shared.clone(), token_gate))
        .layer(middleware::from_fn_with_state(
            shared.clone(),
            crate::identity::fill_in,
        ))
        .with_state(shared)
}

/// Why a server would not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Binding elsewhere than loopback without a token.
    #[error("listening on {0} (not loopback) requires a token (--token or MURANO_API_TOKEN)")]
    TokenRequired(SocketAddr),
    /// The socket could not be bound.
    #[error("cannot listen on {0}: {1}")]
    Bind(SocketAddr, std::io::Error),
}

/// Refuse a non-loopback address without a token.
pub fn check_listen(addr: SocketAddr, token: Option<&str>) -> Result<(), ServeError> {
    if !addr.ip().is_loopback() && token.is_none_or(str::is_empty) {
        return Err(ServeError::TokenRequired(addr));
    }
    Ok(())
}

/// Bind `addr` (after `check_listen`); the listener and its actual address.
pub async fn bind(
    addr: SocketAddr,
    token: Option<&str>,
) -> Result<(tokio::net::TcpListener, SocketAddr), ServeError> {
    check_listen(addr, token)?;
    let l = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| ServeError::Bind(addr, e))?;
    let local = l.local_addr().map_err(|e| ServeError::Bind(addr, e))?;
    Ok((l, local))
}

/// Serve `shared` on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, shared: Shared) -> std::io::Result<()> {
    axum::serve(listener, router(shared)).await
}

/// Most controller threads of `serve_blocking` (requests beyond wait).
pub const MAX_BLOCKING: usize = 32;

/// How `murano serve` runs.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// Where to listen.
    pub listen: SocketAddr,
    /// The token every request must carry (required off loopback).
    pub token: Option<String>,
    /// Limits.
    pub limits: crate::app::Limits,
    /// Worker threads of the async runtime (the blocking pool is tokio's).
    pub workers: usize,
}

/// Serve `app` as `cfg` says, on a runtime of its own, until the process
/// ends; `ready` is told the bound address once requests are accepted.
pub fn serve_blocking(
    app: Arc<App>,
    cfg: ServeConfig,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    check_listen(cfg.listen, cfg.token.as_deref())?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cfg.workers.max(1))
        // Controllers run on the blocking pool; bound it so a flood of
        // requests queues instead of spawning hundreds of threads.
        .max_blocking_threads(MAX_BLOCKING)
        .enable_all()
        .build()
        .map_err(|e| ServeError::Bind(cfg.listen, e))?;
    rt.block_on(async move {
        let (listener, addr) = bind(cfg.listen, cfg.token.as_deref()).await?;
        ready(addr);
        let shared = Shared {
            app,
            token: cfg.token.filter(|t| !t.is_empty()),
        };
        serve(listener, shared)
            .await
            .map_err(|e| ServeError::Bind(addr, e))
    })
}

/// [`serve_blocking`] with more routes beside the API's (`extra` gets the
/// shared state and returns routes without a fallback, merged into the
/// API's router): `murano serve` adds the dashboard's pages this way.
pub fn serve_blocking_with(
    app: Arc<App>,
    cfg: ServeConfig,
    extra: impl FnOnce(Shared) -> Router,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    check_listen(cfg.listen, cfg.token.as_deref())?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cfg.workers.max(1))
        .max_blocking_threads(MAX_BLOCKING)
        .enable_all()
        .build()
        .map_err(|e| ServeError::Bind(cfg.listen, e))?;
    let shared = Shared {
        app,
        token: cfg.token.clone().filter(|t| !t.is_empty()),
    };
    let routes = router(shared.clone()).merge(extra(shared));
    rt.block_on(async move {
        let (listener, addr) = bind(cfg.listen, cfg.token.as_deref()).await?;
        ready(addr);
        axum::serve(listener, routes)
            .await
            .map_err(|e| ServeError::Bind(addr, e))
    })
}
