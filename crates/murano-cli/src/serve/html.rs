//! HTML building blocks of the preview: escaping, the page frame and the
//! stylesheet. Nothing is fetched from the network and no script runs.

/// Escapes text for an HTML element or a quoted attribute (Python's
/// `html.escape`, which the UI crate also uses for the dashboard's help
/// texts).
pub(crate) fn escape(text: &str) -> String {
    murano_ui::definition::html_escape(text)
}

/// Escapes text and turns its line breaks into `<br>` (Django's
/// `linebreaksbr`).
pub(crate) fn escape_lines(text: &str) -> String {
    escape(text).replace("\r\n", "\n").replace('\n', "<br>\n")
}

/// A whole page: title, stylesheet and body.
pub(crate) fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<link rel=\"stylesheet\" href=\"/style.css\">\n</head>\n\
         <body>\n<main>\n{body}</main>\n</body>\n</html>\n",
        escape(title)
    )
}

/// A page showing why the package cannot be shown (a definition that no
/// longer loads, with its file, line and column).
pub(crate) fn error_page(title: &str, message: &str) -> String {
    page(
        title,
        &format!(
            "<h1>{}</h1>\n<div class=\"load-error\" id=\"load-error\" role=\"alert\">\n\
             <pre>{}</pre>\n</div>\n<p>Fix the file and reload this page.</p>\n",
            escape(title),
            escape(message)
        ),
    )
}

/// The preview's stylesheet, served as `/style.css`.
pub(crate) const STYLESHEET: &str = "\
body { font: 15px/1.45 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d1f23; }
main { max-width: 64rem; margin: 1.5rem auto; background: #fff; padding: 1.25rem 1.75rem;
  border: 1px solid #d5d8dd; border-radius: 6px; }
h1 { font-size: 1.35rem; margin: 0 0 .75rem; }
h2 { font-size: 1.1rem; margin: 1rem 0 .5rem; }
ol.steps { list-style: none; display: flex; flex-wrap: wrap; gap: .5rem; padding: 0; margin: 0 0 1rem; }
ol.steps li { padding: .25rem .7rem; border-radius: 999px; background: #e7e9ed; }
ol.steps li.active { background: #2a62c9; color: #fff; font-weight: 600; }
ol.steps li.done { background: #cfe0ff; }
ol.steps li a { color: inherit; }
.columns { display: flex; gap: 2rem; align-items: flex-start; }
.columns .left { flex: 3; min-width: 0; }
.columns .right { flex: 2; min-width: 0; font-size: .92rem; color: #3b3f46; }
.field { margin: 0 0 1rem; }
.field > label { display: block; font-weight: 600; margin-bottom: .2rem; }
.field.checkbox > label { display: inline; font-weight: 600; margin-left: .35rem; }
.required { color: #b3261e; margin-left: .15rem; }
.help { margin: .15rem 0 .3rem; color: #5b616b; font-size: .9rem; }
input[type=text], input[type=number], input[type=password], select, textarea {
  width: 100%; box-sizing: border-box; padding: .35rem .45rem; font: inherit;
  border: 1px solid #aeb4bd; border-radius: 4px; }
textarea { min-height: 5rem; }
input:focus, select:focus, textarea:focus, button:focus { outline: 3px solid #8ab4ff; outline-offset: 1px; }
.field.error input, .field.error select, .field.error textarea { border-color: #b3261e; }
ul.errors { list-style: none; margin: .1rem 0 .3rem; padding: 0; color: #b3261e; font-weight: 600; }
.form-errors { border: 1px solid #b3261e; background: #fdecea; padding: .5rem .75rem; border-radius: 4px; margin-bottom: 1rem; }
.load-error { border: 1px solid #b3261e; background: #fdecea; padding: .25rem .75rem; border-radius: 4px; }
.load-error pre { white-space: pre-wrap; }
.buttons { display: flex; gap: .75rem; flex-direction: row-reverse; justify-content: flex-start; margin-top: 1.25rem; }
button { font: inherit; padding: .4rem 1.1rem; border-radius: 4px; border: 1px solid #2a62c9; background: #fff; color: #2a62c9; cursor: pointer; }
button.primary { background: #2a62c9; color: #fff; }
pre.model { background: #f4f5f7; border: 1px solid #d5d8dd; padding: .75rem; overflow: auto; }
section.form-section { border-top: 1px solid #e1e4e8; }
.badge { font-size: .8rem; color: #5b616b; }
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_for_elements_and_attributes() {
        assert_eq!(
            escape(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#x27;&amp;&#x27;&lt;/a&gt;"
        );
        assert_eq!(escape_lines("a<\nb"), "a&lt;<br>\nb");
    }

    #[test]
    fn an_error_page_shows_the_message_escaped() {
        let page = error_page("x", "ui.yaml:3:7: <bad>");
        assert!(
            page.contains("<pre>ui.yaml:3:7: &lt;bad&gt;</pre>"),
            "{page}"
        );
        assert!(page.contains("href=\"/style.css\""));
        assert!(!page.contains("http"), "nothing from the network: {page}");
    }
}
