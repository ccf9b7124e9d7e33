//! The preview's own HTTP/1.1 server, on the standard library only: a
//! fixed pool of connection workers, timeouts on every read and write,
//! bounded request heads and bodies.
//!
//! Threads: one accepts connections, up to `max_connections` workers
//! (started when needed) read requests and write answers, and the caller's thread answers the
//! requests one at a time (the apps keep what was typed in memory and
//! run the engine, which wants the main thread's stack). A connection
//! waiting for its next request costs a worker: when every worker is
//! taken, the connection that has waited longest is closed for the new
//! one, so idle or slow clients cannot starve a request; when every
//! worker is busy answering, the new connection gets `503`.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The largest request head (request line and headers) read.
pub(crate) const MAX_HEAD: usize = 16 << 10;
/// The most header lines one request may have.
pub(crate) const MAX_HEADERS: usize = 100;
/// A worker's stack: it parses heads and copies bytes, nothing deep.
const WORKER_STACK: usize = 256 << 10;

/// How many connections are served at once and how long each may take.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Connections served at once (the worker threads).
    pub(crate) max_connections: usize,
    /// How long a request (head and body) may take to arrive once its
    /// first byte has.
    pub(crate) read_timeout: Duration,
    /// How long writing an answer may be blocked by a client that does
    /// not read it.
    pub(crate) write_timeout: Duration,
    /// How long a connection may wait for its next request.
    pub(crate) idle_timeout: Duration,
}

/// A request as read from the wire: the head parsed, the body whole.
#[derive(Debug, Clone)]
pub(crate) struct RawRequest {
    /// The method, as sent (`GET`, `POST`, …).
    pub(crate) method: String,
    /// The request target (origin form: a path and maybe a query).
    pub(crate) target: String,
    /// The header fields in order, names in lower case.
    pub(crate) headers: Vec<(String, String)>,
    /// The body (at most `max_body` bytes).
    pub(crate) body: Vec<u8>,
}

impl RawRequest {
    /// Every value of the header `name` (lower case).
    pub(crate) fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The value of the header `name` (lower case) when it was sent once.
    pub(crate) fn one<'a>(&'a self, name: &'a str) -> Option<&'a str> {
        let mut values = self.all(name);
        let first = values.next();
        if values.next().is_some() {
            return None;
        }
        first
    }
}

/// An answer to write.
#[derive(Debug, Clone)]
pub(crate) struct Response {
    /// The status code.
    pub(crate) status: u16,
    /// Header fields besides the framing ones.
    pub(crate) headers: Vec<(String, String)>,
    /// The body.
    pub(crate) body: Vec<u8>,
    /// Whether the connection is closed after this answer.
    pub(crate) close: bool,
}

impl Response {
    /// A plain-text answer that closes the connection (protocol errors).
    fn text(status: u16, message: &str) -> Response {
        Response {
            status,
            headers: vec![("Content-Type".into(), "text/plain; charset=utf-8".into())],
            body: format!("{message}\n").into_bytes(),
            close: true,
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        303 => "See Other",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Content Too Large",
        421 => "Misdirected Request",
        422 => "Unprocessable Content",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Unknown",
    }
}

/// The bytes of an answer; `head_only` leaves the body out (HEAD).
fn encode(response: &Response, head_only: bool) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {} {}\r\nContent-Length: {}\r\n",
        response.status,
        reason(response.status),
        response.body.len()
    );
    for (name, value) in &response.headers {
        // Values are the server's own; a line break would forge a header.
        if !value.contains(['\r', '\n']) {
            out.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    if response.close {
        out.push_str("Connection: close\r\n");
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    if !head_only {
        bytes.extend_from_slice(&response.body);
    }
    bytes
}

/// Why no request was read from a connection.
#[derive(Debug)]
enum ReadFailure {
    /// The connection ended or stayed idle: close it without a word.
    Quiet,
    /// A malformed or refused request: answer this, then close.
    Answer(Response),
}

/// Where the end of the head is in `buf`: the index after the blank line.
fn head_end(buf: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < buf.len() {
        if buf[i] == b'\n' {
            match buf.get(i + 1) {
                Some(b'\n') => return Some(i + 2),
                Some(b'\r') if buf.get(i + 2) == Some(&b'\n') => return Some(i + 3),
                _ => {}
            }
        }
        i += 1;
    }
    None
}

fn is_token(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Parses a head (up to its blank line): the request without its body,
/// and whether the connection is kept after it.
fn parse_head(head: &[u8]) -> Result<(RawRequest, bool), Response> {
    let bad = |m: &str| Response::text(400, m);
    let text = std::str::from_utf8(head).map_err(|_| bad("the request head is not UTF-8"))?;
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let request_line = lines.next().unwrap_or("");
    let parts: Vec<&str> = request_line.split(' ').collect();
    let [method, target, version] = parts.as_slice() else {
        return Err(bad("malformed request line"));
    };
    if !is_token(method) {
        return Err(bad("malformed method"));
    }
    if !target.starts_with('/') || target.bytes().any(|b| b.is_ascii_control()) {
        return Err(bad("the request target must be a path"));
    }
    let keep = match *version {
        "HTTP/1.1" => true,
        "HTTP/1.0" => false,
        _ => return Err(Response::text(505, "only HTTP/1.1 and HTTP/1.0 are spoken")),
    };
    let mut headers = Vec::new();
    for line in lines.filter(|l| !l.is_empty()) {
        if headers.len() == MAX_HEADERS {
            return Err(Response::text(
                431,
                &format!("more than {MAX_HEADERS} header fields"),
            ));
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(bad("malformed header field"));
        };
        // No folded lines, no space before the colon (RFC 9112 §5).
        if !is_token(name) {
            return Err(bad("malformed header field name"));
        }
        headers.push((
            name.to_ascii_lowercase(),
            value.trim_matches([' ', '\t']).to_owned(),
        ));
    }
    let close = headers
        .iter()
        .filter(|(n, _)| n == "connection")
        .flat_map(|(_, v)| v.split(','))
        .any(|t| t.trim().eq_ignore_ascii_case("close"));
    let request = RawRequest {
        method: (*method).to_owned(),
        target: (*target).to_owned(),
        headers,
        body: Vec::new(),
    };
    Ok((request, keep && !close))
}

/// Reads more bytes into `buf`, waiting at most `wait`. `Ok(false)`: the
/// peer closed the connection.
fn fill(stream: &mut TcpStream, buf: &mut Vec<u8>, wait: Duration) -> std::io::Result<bool> {
    stream.set_read_timeout(Some(wait.max(Duration::from_millis(1))))?;
    let mut chunk = [0u8; 8192];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) => return Ok(false),
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                return Ok(true);
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

fn timed_out(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)
}

/// Reads the next request of a connection; `buf` holds bytes already
/// read (a pipelined request) and keeps what follows this one.
fn read_request(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    limits: &Limits,
    max_body: usize,
) -> Result<(RawRequest, bool), ReadFailure> {
    let timeout = || ReadFailure::Answer(Response::text(408, "the request came too slowly"));
    // Wait for the first byte (the idle time), skipping the blank lines
    // a client may send between requests (which do not extend it).
    let idle_deadline = Instant::now() + limits.idle_timeout;
    loop {
        let blank = buf
            .iter()
            .take_while(|b| matches!(b, b'\r' | b'\n'))
            .count();
        buf.drain(..blank);
        if !buf.is_empty() {
            break;
        }
        let wait = idle_deadline.saturating_duration_since(Instant::now());
        if wait.is_zero() {
            return Err(ReadFailure::Quiet);
        }
        match fill(stream, buf, wait) {
            Ok(true) => {}
            Ok(false) | Err(_) => return Err(ReadFailure::Quiet),
        }
    }
    let deadline = Instant::now() + limits.read_timeout;
    let remaining = || deadline.saturating_duration_since(Instant::now());
    let end = loop {
        if let Some(end) = head_end(buf) {
            break end;
        }
        if buf.len() > MAX_HEAD {
            return Err(ReadFailure::Answer(Response::text(
                431,
                &format!("the request head is larger than {MAX_HEAD} bytes"),
            )));
        }
        if remaining().is_zero() {
            return Err(timeout());
        }
        match fill(stream, buf, remaining()) {
            Ok(true) => {}
            Ok(false) => return Err(ReadFailure::Quiet),
            Err(e) if timed_out(&e) => return Err(timeout()),
            Err(_) => return Err(ReadFailure::Quiet),
        }
    };
    if end > MAX_HEAD {
        return Err(ReadFailure::Answer(Response::text(
            431,
            &format!("the request head is larger than {MAX_HEAD} bytes"),
        )));
    }
    let (mut request, keep) = parse_head(&buf[..end]).map_err(ReadFailure::Answer)?;
    buf.drain(..end);
    if request.all("transfer-encoding").next().is_some() {
        return Err(ReadFailure::Answer(Response::text(
            501,
            "bodies sent in chunks are not read: send a Content-Length",
        )));
    }
    let lengths: Vec<&str> = request.all("content-length").collect();
    let length = match lengths.first() {
        None => 0,
        Some(first) => {
            let valid = |v: &&str| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
            if !lengths.iter().all(|v| valid(v) && v == first) {
                return Err(ReadFailure::Answer(Response::text(
                    400,
                    "malformed Content-Length",
                )));
            }
            // Digits only: too many of them is too large, not malformed.
            first.parse::<usize>().unwrap_or(usize::MAX)
        }
    };
    if length > max_body {
        return Err(ReadFailure::Answer(Response {
            headers: vec![("Content-Type".into(), "text/html; charset=utf-8".into())],
            body: super::html::page(
                "Request too large",
                &format!("<p>A form post is read up to {max_body} bytes.</p>"),
            )
            .into_bytes(),
            ..Response::text(413, "")
        }));
    }
    // A client that waits for leave to send its body (curl does, for a
    // post over 1 KiB) gets it now rather than after its own delay.
    if buf.len() < length
        && request
            .all("expect")
            .any(|v| v.eq_ignore_ascii_case("100-continue"))
    {
        let _ = stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
    }
    while buf.len() < length {
        if remaining().is_zero() {
            return Err(timeout());
        }
        match fill(stream, buf, remaining()) {
            Ok(true) => {}
            Ok(false) => return Err(ReadFailure::Quiet),
            Err(e) if timed_out(&e) => return Err(timeout()),
            Err(_) => return Err(ReadFailure::Quiet),
        }
    }
    request.body = buf.drain(..length).collect();
    Ok((request, keep))
}

/// A connection the server holds, for choosing one to close when full.
struct Slot {
    id: u64,
    /// A handle on the socket, to shut it down from the accepting thread.
    stream: TcpStream,
    /// Answering a request (not to be closed for another connection).
    busy: bool,
    /// Since when it waits (for a worker, or for its next request).
    since: Instant,
    /// Shut down for a newer connection; its worker is letting it go.
    closed: bool,
}

/// The connections held, shared by the accepting thread and the workers.
#[derive(Default)]
struct Slots {
    list: Vec<Slot>,
    next_id: u64,
}

fn lock<T>(shared: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking worker leaves consistent data (plain fields).
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The workers' bookkeeping.
#[derive(Default)]
struct Pool {
    /// Workers waiting for a connection.
    idle: usize,
    /// Connections sent to the workers and not yet taken.
    queued: usize,
}

impl Slots {
    /// Takes a new connection when there is room (closing the one that
    /// has waited longest when every worker is taken); `None`: no room
    /// now (every connection is being answered, or the closed ones have
    /// not left yet).
    fn admit(&mut self, stream: &TcpStream, max: usize) -> Option<u64> {
        // Closed connections leave as soon as their worker sees it; until
        // then they count here, so that the list stays bounded.
        if self.list.len() >= 2 * max {
            return None;
        }
        let open = self.list.iter().filter(|s| !s.closed).count();
        if open >= max {
            let victim = self
                .list
                .iter_mut()
                .filter(|s| !s.busy && !s.closed)
                .min_by_key(|s| s.since)?;
            let _ = victim.stream.shutdown(Shutdown::Both);
            victim.closed = true;
        }
        let handle = stream.try_clone().ok()?;
        let id = self.next_id;
        self.next_id += 1;
        self.list.push(Slot {
            id,
            stream: handle,
            busy: false,
            since: Instant::now(),
            closed: false,
        });
        Some(id)
    }

    fn set_busy(&mut self, id: u64, busy: bool) {
        if let Some(slot) = self.list.iter_mut().find(|s| s.id == id) {
            slot.busy = busy;
            slot.since = Instant::now();
        }
    }

    fn remove(&mut self, id: u64) {
        self.list.retain(|s| s.id != id);
    }
}

/// A request handed to the answering thread, with where its answer goes.
pub(crate) type Job = (RawRequest, Sender<Response>);

/// Serves one connection until it closes, idles out or fails.
fn connection(
    mut stream: TcpStream,
    id: u64,
    slots: &Mutex<Slots>,
    jobs: &Sender<Job>,
    limits: &Limits,
    max_body: usize,
) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_write_timeout(Some(limits.write_timeout));
    let mut buf = Vec::new();
    loop {
        if lock(slots).list.iter().any(|s| s.id == id && s.closed) {
            return;
        }
        let (request, keep) = match read_request(&mut stream, &mut buf, limits, max_body) {
            Ok(r) => r,
            Err(ReadFailure::Quiet) => return,
            Err(ReadFailure::Answer(response)) => {
                lock(slots).set_busy(id, true);
                let _ = stream.write_all(&encode(&response, false));
                let _ = stream.shutdown(Shutdown::Write);
                linger(&mut stream);
                return;
            }
        };
        lock(slots).set_busy(id, true);
        let head_only = request.method == "HEAD";
        let (tx, rx) = mpsc::channel();
        if jobs.send((request, tx)).is_err() {
            return;
        }
        let Ok(mut response) = rx.recv() else {
            return;
        };
        response.close |= !keep;
        if stream
            .write_all(&encode(&response, head_only))
            .and_then(|()| stream.flush())
            .is_err()
        {
            return;
        }
        if response.close {
            let _ = stream.shutdown(Shutdown::Write);
            return;
        }
        lock(slots).set_busy(id, false);
    }
}

/// Reads and drops what the client still sends (a refused body), for a
/// while and up to a few MiB, so that closing with unread data does not
/// reset the connection before the client has read the answer.
fn linger(stream: &mut TcpStream) {
    let deadline = Instant::now() + Duration::from_secs(1);
    let mut chunk = [0u8; 8192];
    let mut dropped = 0usize;
    while dropped < 4 << 20 {
        let wait = deadline.saturating_duration_since(Instant::now());
        if wait.is_zero() || stream.set_read_timeout(Some(wait)).is_err() {
            return;
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => dropped += n,
        }
    }
}

/// Answers a connection the server has no room for, and closes it.
fn refuse_busy(mut stream: TcpStream) {
    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
    let mut response = Response::text(503, "the preview is busy: try again");
    response.headers.push(("Retry-After".into(), "1".into()));
    let _ = stream.write_all(&encode(&response, false));
    let _ = stream.shutdown(Shutdown::Write);
}

/// Starts the accepting thread and the workers on `listener`; the
/// requests arrive on the returned receiver, to be answered in order.
pub(crate) fn start(
    listener: TcpListener,
    limits: Limits,
    max_body: usize,
) -> std::io::Result<Receiver<Job>> {
    let max = limits.max_connections.max(1);
    let slots = Arc::new(Mutex::new(Slots::default()));
    let (jobs_tx, jobs_rx) = mpsc::channel::<Job>();
    // Room for every admitted connection: a send never blocks.
    let (conn_tx, conn_rx): (SyncSender<(TcpStream, u64)>, _) = mpsc::sync_channel(2 * max);
    let conn_rx = Arc::new(Mutex::new(conn_rx));
    // Workers waiting for a connection, and connections waiting for a
    // worker: changed together, so that each connection has its worker.
    let pool = Arc::new(Mutex::new(Pool::default()));
    // Workers start when needed, up to `max`: each thread costs address
    // space (its stack, the allocators' per-thread arenas) that a
    // quiet preview need not hold.
    let spawn_worker = {
        let slots = Arc::clone(&slots);
        let pool = Arc::clone(&pool);
        move |n: usize| {
            let conn_rx = Arc::clone(&conn_rx);
            let slots = Arc::clone(&slots);
            let pool = Arc::clone(&pool);
            let jobs = jobs_tx.clone();
            std::thread::Builder::new()
                .name(format!("serve-{n}"))
                .stack_size(WORKER_STACK)
                .spawn(move || loop {
                    lock(&pool).idle += 1;
                    let next = conn_rx
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .recv();
                    {
                        let mut pool = lock(&pool);
                        pool.idle -= 1;
                        pool.queued = pool.queued.saturating_sub(1);
                    }
                    let Ok((stream, id)) = next else {
                        return;
                    };
                    connection(stream, id, &slots, &jobs, &limits, max_body);
                    lock(&slots).remove(id);
                })
                .map(drop)
        }
    };
    spawn_worker(0)?;
    let mut workers = 1;
    std::thread::Builder::new()
        .name("serve-accept".into())
        .stack_size(WORKER_STACK)
        .spawn(move || {
            for stream in listener.incoming() {
                let stream = match stream {
                    Ok(s) => s,
                    Err(_) => {
                        // Out of descriptors, most likely: let them close.
                        std::thread::sleep(Duration::from_millis(10));
                        continue;
                    }
                };
                // Wait a while for room (bounded: the read timeout) before
                // saying the server is busy.
                let deadline = Instant::now() + limits.read_timeout;
                let admitted = loop {
                    let admitted = lock(&slots).admit(&stream, max);
                    if admitted.is_some() || Instant::now() >= deadline {
                        break admitted;
                    }
                    std::thread::sleep(Duration::from_millis(5));
                };
                let Some(id) = admitted else {
                    refuse_busy(stream);
                    continue;
                };
                // A worker that cannot start leaves the connection to the
                // others, which are there (the first started with the
                // server).
                let unserved = {
                    let mut pool = lock(&pool);
                    pool.queued += 1;
                    pool.queued > pool.idle
                };
                if unserved && workers < max && spawn_worker(workers).is_ok() {
                    workers += 1;
                }
                if let Err(e) = conn_tx.try_send((stream, id)) {
                    lock(&pool).queued -= 1;
                    lock(&slots).remove(id);
                    let (mpsc::TrySendError::Full((s, _))
                    | mpsc::TrySendError::Disconnected((s, _))) = e;
                    refuse_busy(s);
                }
            }
        })?;
    Ok(jobs_rx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_parse_strictly() {
        let (r, keep) =
            parse_head(b"POST /step/0?x HTTP/1.1\r\nHost: a:1\r\nConnection: Close\r\n").unwrap();
        assert_eq!(
            (r.method.as_str(), r.target.as_str(), keep),
            ("POST", "/step/0?x", false)
        );
        assert_eq!(r.one("host"), Some("a:1"));
        assert!(parse_head(b"GET / HTTP/1.0\r\n").is_ok_and(|(_, keep)| !keep));
        assert!(parse_head(b"GET / HTTP/1.1\r\n").is_ok_and(|(_, keep)| keep));
        for bad in [
            &b"GET /  HTTP/1.1\r\n"[..],
            b"GET http://a/ HTTP/1.1\r\n",
            b"GET / HTTP/1.1\r\n folded: x\r\n",
            b"GET / HTTP/1.1\r\nName : x\r\n",
            b"GET / HTTP/1.1\r\nno colon\r\n",
            b"GET /\x01 HTTP/1.1\r\n",
            b"GET / HTTP/1.1\r\nA: \xff\r\n",
        ] {
            assert_eq!(parse_head(bad).unwrap_err().status, 400, "{bad:?}");
        }
        assert_eq!(parse_head(b"GET / HTTP/2\r\n").unwrap_err().status, 505);
    }

    #[test]
    fn the_head_ends_at_the_first_blank_line() {
        assert_eq!(head_end(b"GET / HTTP/1.1\r\nA: b\r\n\r\nbody"), Some(24));
        assert_eq!(head_end(b"GET / HTTP/1.1\nA: b\n\nbody"), Some(21));
        assert_eq!(head_end(b"GET / HTTP/1.1\r\nA: b\r\n"), None);
    }

    #[test]
    fn answers_carry_their_length_and_no_forged_header() {
        let response = Response {
            status: 303,
            headers: vec![
                ("Location".into(), "/step/1".into()),
                ("X".into(), "a\r\nSet-Cookie: y".into()),
            ],
            body: b"abc".to_vec(),
            close: true,
        };
        let text = String::from_utf8(encode(&response, false)).unwrap();
        assert_eq!(
            text,
            "HTTP/1.1 303 See Other\r\nContent-Length: 3\r\nLocation: /step/1\r\nConnection: close\r\n\r\nabc"
        );
        assert!(!String::from_utf8(encode(&response, true))
            .unwrap()
            .ends_with("abc"));
    }
}
