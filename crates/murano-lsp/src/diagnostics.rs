//! `murano check`'s findings as LSP diagnostics: the same code, severity
//! and message, at the same place, grouped by file.

use std::collections::BTreeMap;

use lsp_types::{DiagnosticSeverity, NumberOrString, Range};
use murano_packages::check::{Diagnostic, Severity};
use murano_packages::source::PackageSource;

use crate::text::LineIndex;
use crate::workspace::Package;

/// The file a finding without one (or naming a file the package lacks)
/// is shown on.
pub(crate) const PACKAGE_FILE: &str = "manifest.yaml";

/// The findings of a package as LSP diagnostics by relative file path.
pub(crate) fn to_lsp(
    package: &Package,
    findings: &[Diagnostic],
) -> BTreeMap<String, Vec<lsp_types::Diagnostic>> {
    let mut out: BTreeMap<String, Vec<lsp_types::Diagnostic>> = BTreeMap::new();
    let mut texts: BTreeMap<String, (String, LineIndex)> = BTreeMap::new();
    for d in findings {
        let file = match &d.file {
            Some(f) if package.files.read(f).is_some() => f.clone(),
            _ => PACKAGE_FILE.to_owned(),
        };
        let (text, lines) = texts.entry(file.clone()).or_insert_with(|| {
            let text = package.text(&file).unwrap_or_default();
            let lines = LineIndex::new(&text);
            (text, lines)
        });
        let located = d.file.as_deref() == Some(file.as_str());
        let range = if located {
            range_of(d, text, lines)
        } else {
            Range::default()
        };
        let mut message = d.message.clone();
        if !located {
            if let Some(f) = &d.file {
                message = format!("{f}: {message}");
            }
        }
        out.entry(file).or_default().push(lsp_types::Diagnostic {
            range,
            severity: Some(match d.severity {
                Severity::Error => DiagnosticSeverity::ERROR,
                Severity::Warning => DiagnosticSeverity::WARNING,
            }),
            code: Some(NumberOrString::String(d.code.to_owned())),
            source: Some("murano".to_owned()),
            message,
            ..Default::default()
        });
    }
    out
}

/// The range of a finding: its start and end when it has both; from its
/// start to the end of the word there (at least one character) when it
/// has only a start, as `murano check` underlines it.
fn range_of(d: &Diagnostic, text: &str, lines: &LineIndex) -> Range {
    let Some(start) = d.start else {
        return Range::default();
    };
    let line = start.line.saturating_sub(1) as usize;
    let begin = lines.byte_of_char(text, line, start.column.saturating_sub(1) as usize);
    let end = match d.end {
        Some(end) => lines.byte_of_char(
            text,
            end.line.saturating_sub(1) as usize,
            end.column.saturating_sub(1) as usize,
        ),
        None => {
            let rest = &text[begin..];
            let word = rest.find(|c: char| c.is_whitespace()).unwrap_or(rest.len());
            let first = rest.chars().next().map_or(0, char::len_utf8);
            begin + word.max(first)
        }
    };
    lines.range(text, begin, end.max(begin))
}
