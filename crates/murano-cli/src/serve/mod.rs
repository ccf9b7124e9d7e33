//! The local web server behind `murano ui serve` and `murano forms
//! serve`, which give it their pages as an [`App`]: the dashboard's for
//! one package (`crate::dashboard_open`), or with `--preview` a local web
//! preview of a package's forms (`crate::ui`, `crate::forms`), which
//! reads the package again on every page load. A small HTTP server of its
//! own ([`http`]) bound to the loopback interface answers with
//! server-rendered HTML; nothing is ever written to disk.
//!
//! Only the pages of a browser on this machine may use it: a request
//! naming another host (DNS rebinding) gets `421`, a post from another
//! origin `403`, and whatever runs MuranoPL (a deploy) is a post.

pub(crate) mod html;
pub(crate) mod http;

use std::net::TcpListener;
use std::process::ExitCode;
use std::time::Duration;

/// The largest request body read (a form post); larger ones are refused.
pub(crate) const MAX_BODY: usize = 1 << 20;
/// The most fields one form post may carry.
pub(crate) const MAX_FIELDS: usize = 4096;

/// The HTTP method of a request, as far as the preview cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    Get,
    Post,
    Other,
}

/// A request: its method, its path (without the query) and the fields of
/// a posted `application/x-www-form-urlencoded` body, in order.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub(crate) method: Method,
    pub(crate) path: String,
    pub(crate) form: Vec<(String, String)>,
}

impl Request {
    /// The last posted value of `name`.
    pub(crate) fn field(&self, name: &str) -> Option<&str> {
        self.form
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// An answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reply {
    /// An HTML page with its status code.
    Html(u16, String),
    /// `303 See Other` to a path of the server (after a post).
    Redirect(String),
    /// Bytes of a content type (the dashboard's logos).
    Bytes(&'static str, Vec<u8>),
}

/// What a preview server does with a request.
pub(crate) trait App {
    /// Answers one request.
    fn handle(&mut self, request: &Request) -> Reply;

    /// Answers one request with the query string of its address (the
    /// previews have no use for it; the dashboard's pages do).
    fn handle_with_query(&mut self, request: &Request, _query: &str) -> Reply {
        self.handle(request)
    }

    /// The stylesheet served at `/style.css`.
    fn stylesheet(&self) -> &'static str {
        html::STYLESHEET
    }

    /// The path of the address printed when the server starts.
    fn home(&self) -> String {
        "/".to_owned()
    }
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Decodes one `application/x-www-form-urlencoded` component: `+` is a
/// space, `%XX` a byte; invalid escapes are kept as written and invalid
/// UTF-8 is replaced, as browsers' servers usually do.
pub(crate) fn url_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Parses a form body into its fields, at most [`MAX_FIELDS`].
pub(crate) fn parse_form(body: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for pair in body.split('&').filter(|p| !p.is_empty()) {
        if out.len() == MAX_FIELDS {
            return Err(format!("more than {MAX_FIELDS} fields posted"));
        }
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        out.push((url_decode(k), url_decode(v)));
    }
    Ok(out)
}

/// The limits of a preview server, as options of both subcommands.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct ServeOptions {
    /// Connections served at once; when all are taken, the one idle the
    /// longest is closed for a new one.
    #[arg(long, value_name = "N", default_value_t = 8,
          value_parser = clap::value_parser!(u16).range(1..=1024))]
    max_connections: u16,
    /// Seconds a request (head and body) may take to arrive once it has
    /// begun.
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = seconds)]
    read_timeout: Duration,
    /// Seconds writing an answer may wait for a client that does not
    /// read it.
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = seconds)]
    write_timeout: Duration,
    /// Seconds a connection may stay open waiting for its next request.
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = seconds)]
    idle_timeout: Duration,
}

/// A timeout option: seconds, more than 0 and at most a day.
fn seconds(text: &str) -> Result<Duration, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if !(value > 0.0 && value <= 86_400.0) {
        return Err("a timeout is more than 0 and at most 86400 seconds".into());
    }
    Ok(Duration::from_secs_f64(value))
}

/// The security headers of every answer: never cached, never sniffed,
/// never framed by another page (which could trick a click on a button).
const COMMON_HEADERS: [(&str, &str); 4] = [
    ("Cache-Control", "no-store"),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Content-Security-Policy", "frame-ancestors 'none'"),
];

fn response(status: u16, content_type: &str, body: String) -> http::Response {
    let mut headers = vec![("Content-Type".to_owned(), content_type.to_owned())];
    headers.extend(COMMON_HEADERS.map(|(n, v)| (n.to_owned(), v.to_owned())));
    http::Response {
        status,
        headers,
        body: body.into_bytes(),
        close: false,
    }
}

fn html_response(status: u16, body: String) -> http::Response {
    response(status, "text/html; charset=utf-8", body)
}

/// The names a browser on this machine uses for the server: what a
/// `Host` header and an `Origin` may say.
fn own_hosts(port: u16) -> Vec<String> {
    let mut hosts = vec![format!("127.0.0.1:{port}"), format!("localhost:{port}")];
    if port == 80 {
        hosts.extend(["127.0.0.1".to_owned(), "localhost".to_owned()]);
    }
    hosts
}

/// Refuses a request not meant for this server: a `Host` naming another
/// one is what a page that rebound its DNS name to 127.0.0.1 sends, and
/// must not read the preview's pages.
fn check_host(raw: &http::RawRequest, hosts: &[String]) -> Result<(), http::Response> {
    let Some(host) = raw.one("host") else {
        let page = html::page(
            "Bad request",
            "<h1>Bad request</h1>\n<p>A request names its server in one Host header.</p>\n",
        );
        return Err(html_response(400, page));
    };
    if hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
        return Ok(());
    }
    let page = html::page(
        "Misdirected request",
        &format!(
            "<h1>Misdirected request</h1>\n<p>The Host header names {}; this preview answers \
             only for {} (open the address it printed).</p>\n",
            html::escape(host),
            html::escape(&hosts.join(" and "))
        ),
    );
    Err(html_response(421, page))
}

/// Refuses a state change (a post) from another origin: a page elsewhere
/// may post a form here, but the browser says where it comes from, in
/// `Origin`, else `Sec-Fetch-Site`, else `Referer`. A client that sends
/// none of them is not a browser following a foreign page.
fn check_origin(raw: &http::RawRequest, hosts: &[String]) -> Result<(), http::Response> {
    let ours = |origin: &str| {
        hosts
            .iter()
            .any(|h| origin.eq_ignore_ascii_case(&format!("http://{h}")))
    };
    let same = if raw.all("origin").next().is_some() {
        raw.all("origin").all(ours)
    } else if let Some(site) = raw.all("sec-fetch-site").next() {
        site.eq_ignore_ascii_case("same-origin")
    } else if let Some(referer) = raw.all("referer").next() {
        // The origin part of the referring address.
        let origin = referer
            .strip_prefix("http://")
            .map(|rest| &referer[..7 + rest.find(['/', '?', '#']).unwrap_or(rest.len())])
            .unwrap_or(referer);
        ours(origin)
    } else {
        true
    };
    if same {
        return Ok(());
    }
    let page = html::page(
        "Forbidden",
        "<h1>Forbidden</h1>\n<p>This form was posted from another origin (another site or \
         page); the preview takes posts from its own pages only.</p>\n",
    );
    Err(html_response(403, page))
}

/// Checks, reads, routes and answers one request; `/style.css` is the
/// server's own.
fn answer(raw: http::RawRequest, app: &mut dyn App, hosts: &[String]) -> http::Response {
    if let Err(refused) = check_host(&raw, hosts) {
        return refused;
    }
    let method = match raw.method.as_str() {
        "GET" | "HEAD" => Method::Get,
        "POST" => Method::Post,
        _ => Method::Other,
    };
    if method != Method::Get {
        if let Err(refused) = check_origin(&raw, hosts) {
            return refused;
        }
    }
    let target = raw.target.split('#').next().unwrap_or("/");
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let path = path.to_owned();
    if method == Method::Get && path == "/style.css" {
        return response(200, "text/css; charset=utf-8", app.stylesheet().to_owned());
    }
    let mut form = Vec::new();
    if method == Method::Post {
        match parse_form(&String::from_utf8_lossy(&raw.body)) {
            Ok(fields) => form = fields,
            Err(e) => {
                let page = html::page("Bad request", &format!("<p>{}</p>", html::escape(&e)));
                return html_response(400, page);
            }
        }
    }
    let request = Request { method, path, form };
    match app.handle_with_query(&request, query) {
        Reply::Html(status, body) => html_response(status, body),
        Reply::Bytes(content_type, body) => {
            let mut r = response(200, content_type, String::new());
            r.body = body;
            r
        }
        Reply::Redirect(location) => {
            let mut r = response(303, "text/plain; charset=utf-8", String::new());
            r.headers.push(("Location".into(), location));
            r
        }
    }
}

/// Serves `app` on 127.0.0.1:`port` (0: a free port) until killed,
/// printing the address first.
pub(crate) fn serve(port: u16, options: &ServeOptions, what: &str, app: &mut dyn App) -> ExitCode {
    let listener = match TcpListener::bind(("127.0.0.1", port)) {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("murano: cannot listen on 127.0.0.1:{port}: {e}");
            return ExitCode::from(2);
        }
    };
    let address = match listener.local_addr() {
        Ok(address) => address,
        Err(e) => {
            eprintln!("murano: the server has no address: {e}");
            return ExitCode::from(2);
        }
    };
    let limits = http::Limits {
        max_connections: usize::from(options.max_connections),
        read_timeout: options.read_timeout,
        write_timeout: options.write_timeout,
        idle_timeout: options.idle_timeout,
    };
    let jobs = match http::start(listener, limits, MAX_BODY) {
        Ok(jobs) => jobs,
        Err(e) => {
            eprintln!("murano: cannot start the server's threads: {e}");
            return ExitCode::from(2);
        }
    };
    let hosts = own_hosts(address.port());
    outln!(
        "Serving {what} at http://{address}{} (Ctrl-C to stop)",
        app.home()
    );
    for (raw, reply) in jobs {
        // A connection that went away is not the server's problem.
        let _ = reply.send(answer(raw, app, &hosts));
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_bodies_decode_like_a_browser_sends_them() {
        assert_eq!(
            parse_form("name=my+shop&port=80%2F&x=%zz&y=%4&empty=&flag").unwrap(),
            vec![
                ("name".to_owned(), "my shop".to_owned()),
                ("port".to_owned(), "80/".to_owned()),
                ("x".to_owned(), "%zz".to_owned()),
                ("y".to_owned(), "%4".to_owned()),
                ("empty".to_owned(), String::new()),
                ("flag".to_owned(), String::new()),
            ]
        );
        assert_eq!(url_decode("%C3%A9t%C3%A9"), "été");
        assert_eq!(url_decode("%FF"), "\u{fffd}");
        assert_eq!(url_decode("%"), "%");
    }

    #[test]
    fn the_number_of_posted_fields_is_bounded() {
        let body = "a=1&".repeat(MAX_FIELDS + 1);
        assert!(parse_form(&body).is_err());
        let body = "a=1&".repeat(MAX_FIELDS);
        assert_eq!(parse_form(&body).unwrap().len(), MAX_FIELDS);
    }
}
