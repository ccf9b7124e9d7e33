//! Errors as Murano's API answers them: webob's HTTP exceptions rendered by
//! its plain-text template (the v1 router has no fault wrapper in front).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// An HTTP error answer: a status, Murano's explanation (webob's default
/// text for the status when Murano gave none) and an optional detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status code.
    pub status: u16,
    /// The first paragraph; `None` for webob's default text.
    pub explanation: Option<String>,
    /// The second paragraph (Murano's message passed as detail).
    pub detail: Option<String>,
    /// The whole body, when webob renders this error its own way.
    pub raw: Option<String>,
}

impl ApiError {
    /// An error with Murano's message as the explanation.
    pub fn new(status: u16, explanation: impl Into<String>) -> Self {
        ApiError {
            status,
            explanation: Some(explanation.into()),
            detail: None,
            raw: None,
        }
    }

    /// An error with webob's default explanation and no detail.
    pub fn plain(status: u16) -> Self {
        ApiError {
            status,
            explanation: None,
            detail: None,
            raw: None,
        }
    }

    /// An error with webob's default explanation and Murano's message as the
    /// detail (what `HTTPBadRequest(msg)` without a keyword gives).
    pub fn detail(status: u16, detail: impl Into<String>) -> Self {
        ApiError {
            status,
            explanation: None,
            detail: Some(detail.into()),
            raw: None,
        }
    }

    /// 400 with an explanation.
    pub fn bad_request(msg: impl Into<String>) -> Self {
        Self::new(400, msg)
    }

    /// 403 with an explanation.
    pub fn forbidden(msg: impl Into<String>) -> Self {
        Self::new(403, msg)
    }

    /// 404 with an explanation.
    pub fn not_found(msg: impl Into<String>) -> Self {
        Self::new(404, msg)
    }

    /// 406 for an `Accept` header the action cannot satisfy, worded as
    /// Murano's serializer has webob say it.
    pub fn not_acceptable(accept: &str) -> Self {
        let mut e = Self::plain(406);
        e.raw = Some(format!(
            "406 Not Acceptable\n\nThe resource could not be generated that was acceptable to your browser (content of type {accept}. \n\n Acceptable response can not be provided"
        ));
        e
    }

    /// The HTML body webob renders for a client accepting HTML or `*/*`.
    pub fn html_body(&self) -> String {
        if let Some(raw) = &self.raw {
            return raw.clone();
        }
        let (title, default) = titles(self.status);
        let esc = |s: &str| {
            s.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
        };
        let explanation = esc(self.explanation.as_deref().unwrap_or(default));
        let detail = esc(self.detail.as_deref().unwrap_or(""));
        let status = format!("{} {title}", self.status);
        format!(
            "<html>\n <head>\n  <title>{status}</title>\n </head>\n <body>\n  <h1>{status}</h1>\n  {explanation}<br /><br />\n{detail}\n\n\n </body>\n</html>"
        )
    }

    /// The answer for a request whose `Accept` header is `accept`: webob
    /// renders HTML when the client takes HTML or anything, else text.
    pub fn respond(self, accept: Option<&str>) -> Response {
        let html = accept.is_some_and(|a| a.contains("html") || a.contains("*/*"));
        if !html || self.raw.is_some() {
            return self.into_response();
        }
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut resp = (status, self.html_body()).into_response();
        resp.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=UTF-8"),
        );
        resp
    }

    /// The plain-text body webob renders.
    pub fn body(&self) -> String {
        if let Some(raw) = &self.raw {
            return raw.clone();
        }
        let (title, default) = titles(self.status);
        let explanation = strip_tags(self.explanation.as_deref().unwrap_or(default));
        let detail = strip_tags(self.detail.as_deref().unwrap_or(""));
        format!("{} {title}\n\n{explanation}\n\n {detail}  ", self.status)
    }
}

/// webob's plain template drops anything that looks like an HTML tag
/// (`<SessionId …>` in Murano's messages disappears).
fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        match rest[i..].find('>') {
            Some(j) => rest = &rest[i + j + 1..],
            None => {
                rest = &rest[i..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The reason phrase and webob's default explanation of a status.
fn titles(status: u16) -> (&'static str, &'static str) {
    match status {
        400 => (
            "Bad Request",
            "The server could not comply with the request since it is either malformed or otherwise incorrect.",
        ),
        401 => (
            "Unauthorized",
            "This server could not verify that you are authorized to access the document you requested.  Either you supplied the wrong credentials (e.g., bad password), or your browser does not understand how to supply the credentials required.",
        ),
        403 => ("Forbidden", "Access was denied to this resource."),
        404 => ("Not Found", "The resource could not be found."),
        405 => ("Method Not Allowed", "The method is not allowed for this resource."),
        406 => ("Not Acceptable", "The resource could not be generated that was acceptable to your browser."),
        409 => ("Conflict", "There was a conflict when trying to complete your request."),
        413 => ("Request Entity Too Large", "The body of your request was too large for this server."),
        415 => ("Unsupported Media Type", "The request media type is not supported by this server."),
        503 => ("Service Unavailable", "The server is currently unavailable. Please try again at a later time."),
        _ => ("Internal Server Error", "The server has either erred or is incapable of performing the requested operation."),
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut resp = (status, self.body()).into_response();
        resp.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=UTF-8"),
        );
        resp
    }
}

impl From<crate::store::StoreError> for ApiError {
    fn from(e: crate::store::StoreError) -> Self {
        match e {
            crate::store::StoreError::Duplicate => ApiError::plain(409),
            crate::store::StoreError::Sql(m) => ApiError::detail(500, m),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_webob_plain_template() {
        assert_eq!(
            ApiError::forbidden("No.").body(),
            "403 Forbidden\n\nNo.\n\n   "
        );
        assert_eq!(
            ApiError::not_found("Session <SessionId 1> is not found").body(),
            "404 Not Found\n\nSession  is not found\n\n   "
        );
        assert_eq!(
            ApiError::detail(400, "Bad").body(),
            "400 Bad Request\n\nThe server could not comply with the request since it is either malformed or otherwise incorrect.\n\n Bad  "
        );
    }
}
