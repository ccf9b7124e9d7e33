//! MuranoPL stack traces as text, with the source lines of the frames.

use crate::api::package::PackageFiles;
use crate::error::{EngineError, StackFrame};

/// Renders frames outermost first: `<location>:line:column in method M
/// of class C`, then the source line with a caret under the column when
/// `source` gives the frame's file text. The root of a chain a native
/// method started shows as `<native call>`.
pub(crate) fn render_frames(
    frames: &[StackFrame],
    location: &dyn Fn(&StackFrame, &str) -> String,
    source: &dyn Fn(&StackFrame, &str) -> Option<String>,
) -> String {
    let mut out = String::new();
    for f in frames.iter().rev() {
        if f.is_unknown() {
            out.push_str("  at <native call>\n");
            continue;
        }
        let file = f.file.as_deref().unwrap_or("<unknown>");
        out.push_str(&format!(
            "  at {}:{}:{} in method {} of class {}\n",
            location(f, file),
            f.line,
            f.column,
            f.method,
            f.class
        ));
        if let Some(text) = source(f, file) {
            if let Some(line) = text.lines().nth(f.line.saturating_sub(1) as usize) {
                // The line as written, a caret under the column.
                let line = line.trim_end();
                let indent = line.len() - line.trim_start().len();
                let column = (f.column as usize).saturating_sub(1);
                let caret = line
                    .get(indent..column.max(indent))
                    .map_or(0, |s| s.chars().count());
                out.push_str(&format!("      {}\n", &line[indent..]));
                out.push_str(&format!("      {}^\n", " ".repeat(caret)));
            }
        }
    }
    out
}

/// Renders a MuranoPL stack trace, outermost frame first: `package/file:
/// line:column in method M of class C`, then the source line with a caret
/// under the column when `source(package, file)` gives the file's text;
/// `package_of` maps a class to its package. The root of a chain a native
/// method started shows as `<native call>`.
pub fn render_trace(
    frames: &[StackFrame],
    package_of: &dyn Fn(&str) -> Option<String>,
    source: &dyn Fn(&str, &str) -> Option<String>,
) -> String {
    render_frames(
        frames,
        &|f, file| format!("{}/{file}", package_of(&f.class).unwrap_or_default()),
        &|f, file| source(&package_of(&f.class).unwrap_or_default(), file),
    )
}

/// An error of an engine built from `packages`
/// ([`crate::EngineBuilder::from_packages`]) as text: its Murano names and
/// message (`[com.example.TooBig]: ...`, as a deployment reports it), then its MuranoPL stack trace, outermost frame first, each
/// frame with its source line (`<package root>/Classes/<file>:line:column
/// in method M of class C`).
pub fn stack_trace(error: &EngineError, packages: &[PackageFiles]) -> String {
    let source = |_: &StackFrame, file: &str| {
        packages.iter().find_map(|p| {
            let path = file.strip_prefix(&p.root)?.strip_prefix('/')?;
            let bytes = p.files.get(path)?;
            Some(String::from_utf8_lossy(bytes).into_owned())
        })
    };
    let mut out = format!("[{}]: {}\n", error.murano_names().join(", "), error.message);
    out.push_str(&render_frames(
        &error.frames,
        &|_, file| file.to_owned(),
        &source,
    ));
    out
}
