//! Package uploads: the `multipart/form-data` body Murano's
//! `POST /catalog/packages` takes (a JSON `__metadata__` part and the
//! archive), and the loader that reads a package's catalog entry from the
//! archive (`murano-packages`).

use murano_packages::archive::ArchiveLimits;
use murano_packages::source::FileMap;
use murano_packages::{PackageType, PluginRegistry};
use murano_yaml::convert::{to_json, to_yaql, ToJson, ToYaql};
use murano_yaml::Node;
use serde_json::Value;

/// One part of a multipart body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The part's `name`.
    pub name: String,
    /// The part's `filename`, for a file.
    pub filename: Option<String>,
    /// Its content.
    pub content: Vec<u8>,
}

/// The boundary of a `multipart/form-data` content type (Murano's clients
/// also send `multipart/form-data; ; boundary=…`).
pub fn boundary(content_type: &str) -> Option<String> {
    let mut it = content_type.split(';');
    if it.next()?.trim() != "multipart/form-data" {
        return None;
    }
    it.filter_map(|p| p.trim().strip_prefix("boundary="))
        .next()
        .map(|b| b.trim_matches('"').to_owned())
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if needle.is_empty() || from > hay.len() {
        return None;
    }
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}

fn disposition_param(headers: &str, key: &str) -> Option<String> {
    let line = headers
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("content-disposition:"))?;
    line.split(';')
        .filter_map(|p| p.trim().strip_prefix(&format!("{key}=")))
        .next()
        .map(|v| v.trim_matches('"').to_owned())
}

/// The parts of a multipart body; `None` when it is malformed. Lines may
/// end in CRLF or, as Python's `cgi` also accepts, LF alone.
pub fn parse_multipart(body: &[u8], boundary: &str) -> Option<Vec<Part>> {
    let delim = format!("--{boundary}").into_bytes();
    let mut pos = find(body, &delim, 0)? + delim.len();
    let mut parts = Vec::new();
    loop {
        if body.get(pos..pos + 2) == Some(b"--") {
            return Some(parts);
        }
        pos = skip_newline(body, pos)?;
        let (head_end, start) = match (find(body, b"\r\n\r\n", pos), find(body, b"\n\n", pos)) {
            (Some(a), Some(b)) if a < b => (a, a + 4),
            (_, Some(b)) => (b, b + 2),
            (Some(a), None) => (a, a + 4),
            (None, None) => return None,
        };
        let headers = String::from_utf8_lossy(&body[pos..head_end]).into_owned();
        let next = find(body, &delim, start)?;
        let mut end = next;
        if end > start && body[end - 1] == b'\n' {
            end -= 1;
            if end > start && body[end - 1] == b'\r' {
                end -= 1;
            }
        }
        parts.push(Part {
            name: disposition_param(&headers, "name")?,
            filename: disposition_param(&headers, "filename"),
            content: body[start..end].to_vec(),
        });
        pos = next + delim.len();
    }
}

fn skip_newline(body: &[u8], pos: usize) -> Option<usize> {
    if body.get(pos..pos + 2) == Some(b"\r\n") {
        Some(pos + 2)
    } else if body.get(pos) == Some(&b'\n') {
        Some(pos + 1)
    } else {
        None
    }
}

/// What the catalog keeps of a package.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadedPackage {
    /// `FullName`.
    pub full_name: String,
    /// The display name.
    pub name: String,
    /// `Application` or `Library`.
    pub package_type: String,
    /// The description.
    pub description: Value,
    /// The author.
    pub author: Value,
    /// The supplier (JSON).
    pub supplier: Value,
    /// The tags.
    pub tags: Vec<String>,
    /// The classes it defines.
    pub classes: Vec<String>,
    /// The logo.
    pub logo: Option<Vec<u8>>,
    /// The supplier's logo.
    pub supplier_logo: Option<Vec<u8>>,
    /// The UI definition.
    pub ui: Option<String>,
}

/// Reads a package's catalog entry from an uploaded archive.
pub trait PackageLoader: Send + Sync {
    /// The package in `archive`, or why it cannot be loaded.
    fn load(&self, archive: &[u8]) -> Result<LoadedPackage, String>;
}

/// The loader of zip archives through `murano-packages`.
#[derive(Debug, Default)]
pub struct ZipLoader;

fn node_json(n: &Node) -> Value {
    match to_yaql(n, &ToYaql::default()) {
        Ok(v) => to_json(&v, &ToJson::default()),
        Err(_) => Value::Null,
    }
}

fn node_text(n: &Node) -> String {
    match node_json(n) {
        Value::String(s) => s,
        Value::Null => String::new(),
        v => v.to_string(),
    }
}

impl PackageLoader for ZipLoader {
    fn load(&self, archive: &[u8]) -> Result<LoadedPackage, String> {
        let files =
            FileMap::from_zip(archive, &ArchiveLimits::default()).map_err(|e| e.to_string())?;
        let pkg = PluginRegistry::with_builtins()
            .load(files)
            .map_err(|e| e.to_string())?;
        let err = |e: murano_packages::PackageError| e.to_string();
        Ok(LoadedPackage {
            full_name: pkg.full_name().to_owned(),
            name: node_text(&pkg.display_name()),
            package_type: match pkg.package_type() {
                PackageType::Application => "Application",
                PackageType::Library => "Library",
            }
            .to_owned(),
            description: node_json(&pkg.description()),
            author: node_json(&pkg.author()),
            supplier: node_json(&pkg.supplier()),
            tags: pkg.tags().map_err(err)?.iter().map(node_text).collect(),
            classes: pkg.classes().map_err(err)?,
            logo: pkg.logo().map_err(err)?,
            supplier_logo: pkg.supplier_logo().map_err(err)?,
            ui: pkg
                .ui()
                .map_err(err)?
                .map(|u| String::from_utf8_lossy(&u).into_owned()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_murano_clients_multipart() {
        assert_eq!(
            boundary("multipart/form-data; ; boundary=B").as_deref(),
            Some("B")
        );
        assert_eq!(boundary("application/json"), None);
        let body = b"--B\r\nContent-Disposition: form-data; name=\"__metadata__\"\r\n\r\n{\"a\": 1}\r\n--B\r\nContent-Disposition: form-data; name=\"z\"; filename=\"f.zip\"\r\nContent-Type: application/octet-stream\r\n\r\nPK\r\n--B--\r\n";
        let parts = parse_multipart(body, "B").unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].content, b"{\"a\": 1}");
        assert_eq!(parts[1].filename.as_deref(), Some("f.zip"));
        assert_eq!(parts[1].content, b"PK");
        assert!(parse_multipart(b"--B\r\nnothing", "B").is_none());
        let lf = b"\n--B\nContent-Disposition: form-data; name=\"m\"\n\n{}\n--B--";
        assert_eq!(parse_multipart(lf, "B").unwrap()[0].content, b"{}");
    }
}
