//! `murano ui serve` and `murano forms serve`: a local web preview of a
//! package's forms. A small synchronous HTTP server (tiny_http) bound to
//! the loopback interface answers with server-rendered HTML; the package
//! is read again on every page load and nothing is ever written to disk.

pub(crate) mod forms;
pub(crate) mod html;
pub(crate) mod wizard;

use std::io::Read;
use std::process::ExitCode;

/// The largest request body read (a form post); larger ones are refused.
pub(crate) const MAX_BODY: u64 = 1 << 20;
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
}

/// What a preview server does with a request.
pub(crate) trait App {
    /// Answers one request.
    fn handle(&mut self, request: &Request) -> Reply;
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

fn respond(request: tiny_http::Request, status: u16, content_type: &str, body: String) {
    let mut response = tiny_http::Response::from_string(body).with_status_code(status);
    for (name, value) in [
        ("Content-Type", content_type),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
    ] {
        if let Ok(header) = tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            response.add_header(header);
        }
    }
    // A client that went away is not the server's problem.
    let _ = request.respond(response);
}

fn redirect(request: tiny_http::Request, location: &str) {
    let mut response = tiny_http::Response::from_string(String::new()).with_status_code(303);
    if let Ok(header) = tiny_http::Header::from_bytes(&b"Location"[..], location.as_bytes()) {
        response.add_header(header);
    }
    let _ = request.respond(response);
}

/// Reads, routes and answers one request; `/style.css` is the server's own.
fn answer(mut raw: tiny_http::Request, app: &mut dyn App) {
    let method = match raw.method() {
        tiny_http::Method::Get | tiny_http::Method::Head => Method::Get,
        tiny_http::Method::Post => Method::Post,
        _ => Method::Other,
    };
    let path = raw.url().split(['?', '#']).next().unwrap_or("/").to_owned();
    if method == Method::Get && path == "/style.css" {
        return respond(
            raw,
            200,
            "text/css; charset=utf-8",
            html::STYLESHEET.to_owned(),
        );
    }
    let mut form = Vec::new();
    if method == Method::Post {
        let mut body = Vec::new();
        let read = raw.as_reader().take(MAX_BODY + 1).read_to_end(&mut body);
        if read.is_err() || body.len() as u64 > MAX_BODY {
            let page = html::page(
                "Request too large",
                &format!("<p>A form post is read up to {MAX_BODY} bytes.</p>"),
            );
            return respond(raw, 413, "text/html; charset=utf-8", page);
        }
        match parse_form(&String::from_utf8_lossy(&body)) {
            Ok(fields) => form = fields,
            Err(e) => {
                let page = html::page("Bad request", &format!("<p>{}</p>", html::escape(&e)));
                return respond(raw, 400, "text/html; charset=utf-8", page);
            }
        }
    }
    let request = Request { method, path, form };
    match app.handle(&request) {
        Reply::Html(status, body) => respond(raw, status, "text/html; charset=utf-8", body),
        Reply::Redirect(location) => redirect(raw, &location),
    }
}

/// Serves `app` on 127.0.0.1:`port` (0: a free port) until killed,
/// printing the address first.
pub(crate) fn serve(port: u16, what: &str, app: &mut dyn App) -> ExitCode {
    let server = match tiny_http::Server::http(("127.0.0.1", port)) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("murano: cannot listen on 127.0.0.1:{port}: {e}");
            return ExitCode::from(2);
        }
    };
    let Some(address) = server.server_addr().to_ip() else {
        eprintln!("murano: the server has no IP address");
        return ExitCode::from(2);
    };
    outln!("Serving {what} at http://{address}/ (Ctrl-C to stop)");
    for request in server.incoming_requests() {
        answer(request, app);
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
