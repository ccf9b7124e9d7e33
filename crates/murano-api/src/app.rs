//! The server's state and the synchronous request/reply types the
//! controllers (`handlers`) work with, off the async runtime's threads.

use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::context::RequestContext;
use crate::engine::Engine;
use crate::fault::ApiError;
use crate::policy::Policy;
use crate::store::Db;

/// Limits and settings of one server.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest request body accepted, in bytes (Murano's
    /// `package_size_limit`, 5 MiB by default).
    pub max_body: usize,
    /// Default page size of package listings (`limit_param_default`).
    pub limit_default: usize,
    /// Largest page size (`api_limit_max`).
    pub limit_max: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body: 5 * 1024 * 1024,
            limit_default: 20,
            limit_max: 100,
        }
    }
}

/// Everything a request handler needs.
pub struct App {
    db: Mutex<Db>,
    /// Read-only connections to the same file for requests that only
    /// read (none for a database in memory: they share `db`).
    readers: Vec<Mutex<Db>>,
    /// The reader the next read request waits for when all are busy.
    next_reader: std::sync::atomic::AtomicUsize,
    policy: RwLock<Policy>,
    /// The engine tasks go to.
    pub engine: Arc<dyn Engine>,
    /// Reads uploaded package archives.
    pub loader: Arc<dyn crate::upload::PackageLoader>,
    /// Limits.
    pub limits: Limits,
    /// Request statistics (`GET /stats`).
    pub stats: crate::stats::RequestStats,
    /// The identity of requests that name no project (`murano serve
    /// --project`); unset: such requests have no tenant.
    pub identity: std::sync::OnceLock<crate::identity::LocalIdentity>,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl App {
    /// A server state over `db`, with `policy` and `engine`.
    pub fn new(db: Db, policy: Policy, engine: Arc<dyn Engine>, limits: Limits) -> App {
        // One reader per core (at most 8): reads of different requests run
        // side by side. A reader that cannot be opened is left out.
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let readers = (0..cores.clamp(2, 8))
            .map_while(|_| db.reader().ok().flatten().map(Mutex::new))
            .collect();
        App {
            db: Mutex::new(db),
            readers,
            next_reader: std::sync::atomic::AtomicUsize::new(0),
            policy: RwLock::new(policy),
            engine,
            loader: Arc::new(crate::upload::ZipLoader),
            limits,
            stats: crate::stats::RequestStats::default(),
            identity: std::sync::OnceLock::new(),
        }
    }

    /// The same app reading uploads with `loader`.
    pub fn with_loader(mut self, loader: Arc<dyn crate::upload::PackageLoader>) -> App {
        self.loader = loader;
        self
    }

    /// The database (one writer at a time: SQLite serialises writes anyway).
    pub fn db(&self) -> MutexGuard<'_, Db> {
        self.db.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A connection for a request that only reads: a free read-only one
    /// of the file's if any (else the next one in turn), the database
    /// itself when it has no readers (in memory). It sees every write
    /// committed before the call.
    pub fn read_db(&self) -> MutexGuard<'_, Db> {
        if self.readers.is_empty() {
            return self.db();
        }
        for r in &self.readers {
            if let Ok(guard) = r.try_lock() {
                return guard;
            }
        }
        let i = self
            .next_reader
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            % self.readers.len();
        self.readers[i].lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Replace the policy rule set.
    pub fn set_policy(&self, policy: Policy) {
        *self.policy.write().unwrap_or_else(|e| e.into_inner()) = policy;
    }

    /// Murano's `policy.check`.
    pub fn check(&self, rule: &str, ctx: &RequestContext, target: Value) -> Result<(), ApiError> {
        self.policy
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .check(rule, ctx, &target)
    }
}

/// A request as a controller sees it.
#[derive(Debug, Clone, Default)]
pub struct Req {
    /// The context from the headers.
    pub ctx: RequestContext,
    /// The query pairs, in order.
    pub query: Vec<(String, String)>,
    /// The body (empty when none).
    pub body: Vec<u8>,
    /// The `Content-Type` header.
    pub content_type: Option<String>,
    /// The `Accept` header.
    pub accept: Option<String>,
}

impl Req {
    /// The first value of query parameter `name`.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON, required: webob's plain 400 when there is none
    /// (Murano's router cannot call an action that takes a body without one).
    pub fn required_json(&self) -> Result<Value, ApiError> {
        self.json()?.ok_or_else(|| ApiError::plain(400))
    }

    /// The body as JSON: `None` when empty, 400 when malformed (worded as
    /// Murano's resource answers a body its deserializer cannot read).
    pub fn json(&self) -> Result<Option<Value>, ApiError> {
        if self.body.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        serde_json::from_slice(&self.body)
            .map(Some)
            .map_err(|_| ApiError::bad_request("Malformed request body"))
    }
}

/// A controller's successful answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// 200 with a JSON body.
    Json(Value),
    /// 200 with an empty body (`None` returned).
    Empty,
    /// 200 with bytes of a content type.
    Bytes(&'static str, Vec<u8>),
}

impl IntoResponse for Reply {
    fn into_response(self) -> Response {
        let (ct, body) = match self {
            Reply::Json(v) => ("application/json", v.to_string().into_bytes()),
            Reply::Empty => ("application/json", Vec::new()),
            Reply::Bytes(ct, b) => (ct, b),
        };
        let mut r = (StatusCode::OK, body).into_response();
        r.headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(ct));
        r
    }
}

/// What a controller returns.
pub type Outcome = Result<Reply, ApiError>;
