//! HTML building blocks: escaping, the page frame with its navigation,
//! and the stylesheet. Nothing is fetched from the network; package texts
//! always go through [`escape`].

/// Escapes text for an element or a quoted attribute (Python's
/// `html.escape`, as the Dynamic UI library escapes help texts).
pub fn escape(text: &str) -> String {
    murano_ui::definition::html_escape(text)
}

/// Escapes text and turns its line breaks into `<br>`.
pub fn escape_lines(text: &str) -> String {
    escape(text).replace("\r\n", "\n").replace('\n', "<br>\n")
}

/// Percent-encodes a query or path component (everything but unreserved
/// characters).
pub fn url_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Which section of the navigation a page belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// The catalog pages.
    Catalog,
    /// The environment pages (wizards included).
    Environments,
}

/// A whole page: title, navigation, stylesheet and body (`body` is HTML
/// the caller built with escaped texts).
pub fn page(title: &str, section: Section, body: &str) -> String {
    let current = |s: Section| {
        if s == section {
            " aria-current=\"page\""
        } else {
            ""
        }
    };
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{} — Murano</title>\n<link rel=\"stylesheet\" href=\"/style.css\">\n</head>\n\
         <body>\n<a class=\"skip\" href=\"#main\">Skip to content</a>\n\
         <header><nav aria-label=\"Main\"><span class=\"brand\">Murano</span>\n\
         <a href=\"/catalog\"{}>Catalog</a>\n<a href=\"/environments\"{}>Environments</a></nav></header>\n\
         <main id=\"main\">\n{body}</main>\n</body>\n</html>\n",
        escape(title),
        current(Section::Catalog),
        current(Section::Environments),
    )
}

/// A page for a failure: its status text and message.
pub fn error_page(title: &str, section: Section, message: &str) -> String {
    page(
        title,
        section,
        &format!(
            "<h1>{}</h1>\n<div class=\"alert\" role=\"alert\" id=\"error\"><p>{}</p></div>\n",
            escape(title),
            escape(message)
        ),
    )
}

/// The stylesheet, served as `/style.css`.
pub const STYLESHEET: &str = "\
body { font: 15px/1.45 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d1f23; }
header { background: #1f2a3c; padding: .5rem 1.5rem; }
header nav { display: flex; gap: 1.25rem; align-items: center; max-width: 72rem; margin: 0 auto; }
header a { color: #dfe6f3; text-decoration: none; padding: .2rem .1rem; }
header a[aria-current] { color: #fff; border-bottom: 2px solid #8ab4ff; font-weight: 600; }
.brand { color: #fff; font-weight: 700; margin-right: 1rem; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: .5rem; background: #fff; padding: .3rem; }
main { max-width: 72rem; margin: 1.25rem auto; background: #fff; padding: 1.25rem 1.75rem;
  border: 1px solid #d5d8dd; border-radius: 6px; }
h1 { font-size: 1.35rem; margin: 0 0 .75rem; } h2 { font-size: 1.1rem; margin: 1.25rem 0 .5rem; }
ul.packages { list-style: none; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(15rem, 1fr)); gap: .75rem; }
ul.packages li { border: 1px solid #d5d8dd; border-radius: 6px; padding: .6rem; display: flex; gap: .6rem; }
img.logo { width: 48px; height: 48px; object-fit: contain; flex: none; }
.logo-none { width: 48px; height: 48px; background: #e7e9ed; border-radius: 6px; flex: none; }
.tags span, .tag { background: #e7e9ed; border-radius: 999px; padding: 0 .5rem; font-size: .85rem; margin-right: .25rem; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #e1e4e8; vertical-align: top; }
form.inline { display: inline; }
.field { margin: 0 0 1rem; } .field > label { display: block; font-weight: 600; margin-bottom: .2rem; }
.field.checkbox > label { display: inline; margin-left: .35rem; }
.required { color: #b3261e; margin-left: .15rem; }
.help { margin: .15rem 0 .3rem; color: #5b616b; font-size: .9rem; }
input[type=text], input[type=search], input[type=number], input[type=password], select, textarea {
  width: 100%; box-sizing: border-box; padding: .35rem .45rem; font: inherit; border: 1px solid #aeb4bd; border-radius: 4px; }
input:focus, select:focus, textarea:focus, button:focus, a:focus { outline: 3px solid #8ab4ff; outline-offset: 1px; }
.field.error input, .field.error select, .field.error textarea { border-color: #b3261e; }
ul.errors { list-style: none; margin: .1rem 0 .3rem; padding: 0; color: #b3261e; font-weight: 600; }
.alert { border: 1px solid #b3261e; background: #fdecea; padding: .25rem .75rem; border-radius: 4px; margin-bottom: 1rem; }
.notice { border: 1px solid #2a62c9; background: #eef4ff; padding: .25rem .75rem; border-radius: 4px; margin-bottom: 1rem; }
button { font: inherit; padding: .35rem 1rem; border-radius: 4px; border: 1px solid #2a62c9; background: #fff; color: #2a62c9; cursor: pointer; }
button.primary { background: #2a62c9; color: #fff; }
button:disabled { opacity: .5; cursor: not-allowed; } button.danger { border-color: #b3261e; color: #b3261e; }
.buttons { display: flex; gap: .75rem; margin-top: 1rem; flex-wrap: wrap; }
.columns { display: flex; gap: 2rem; align-items: flex-start; } .columns > .left { flex: 3; min-width: 0; }
.columns > .right { flex: 2; min-width: 0; font-size: .92rem; color: #3b3f46; }
ol.steps { list-style: none; display: flex; flex-wrap: wrap; gap: .5rem; padding: 0; margin: 0 0 1rem; }
ol.steps li { padding: .25rem .7rem; border-radius: 999px; background: #e7e9ed; }
ol.steps li.active { background: #2a62c9; color: #fff; font-weight: 600; } ol.steps li.done { background: #cfe0ff; }
pre { background: #f4f5f7; border: 1px solid #d5d8dd; padding: .6rem; overflow: auto; white-space: pre-wrap; }
.status { font-weight: 600; } .status-running, .status-deploying { color: #8a5a00; }
.status-success, .status-ready { color: #1e6b2f; } .status-failure, .status-error, .status-deploy-failure { color: #b3261e; }
.muted { color: #5b616b; }
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_escaped_and_urls_encoded() {
        assert_eq!(
            escape("<a href=\"x\">'&'"),
            "&lt;a href=&quot;x&quot;&gt;&#x27;&amp;&#x27;"
        );
        assert_eq!(escape_lines("a<\nb"), "a&lt;<br>\nb");
        assert_eq!(url_encode("a b&c/é"), "a%20b%26c%2F%C3%A9");
    }

    #[test]
    fn a_page_has_no_remote_assets_and_marks_its_section() {
        let p = page("<T>", Section::Catalog, "<p>x</p>");
        assert!(p.contains("<title>&lt;T&gt; — Murano</title>"), "{p}");
        assert!(p.contains("href=\"/catalog\" aria-current=\"page\""), "{p}");
        assert!(!p.contains("http"), "{p}");
    }
}
