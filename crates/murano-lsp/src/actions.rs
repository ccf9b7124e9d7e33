//! Code actions for the findings with a mechanical fix: a namespace
//! prefix used but not declared (M401), and an unknown key that is one
//! or two letters away from a known one.

use std::collections::HashMap;

use lsp_types::{
    CodeAction, CodeActionKind, Diagnostic, NumberOrString, TextEdit, Uri, WorkspaceEdit,
};

use crate::analysis::Doc;
use crate::docs;
use crate::workspace::Workspace;

/// Namespaces Murano's own code declares under these prefixes.
const WELL_KNOWN: &[(&str, &str)] = &[
    ("std", "io.murano"),
    ("res", "io.murano.resources"),
    ("sys", "io.murano.system"),
    ("conf", "io.murano.configuration"),
    ("apps", "io.murano.applications"),
    ("test", "io.murano.test"),
    ("m", "io.murano.metadata"),
    ("forms", "io.murano.metadata.forms"),
];

/// The keys each unknown-key code's mapping may hold.
fn known_keys(code: &str) -> &'static [&'static str] {
    match code {
        "M111" => &[
            "Name",
            "Namespaces",
            "Extends",
            "Properties",
            "Methods",
            "Meta",
            "Usage",
            "Import",
            "Cardinality",
            "Applies",
            "Inherited",
        ],
        "M204" | "M225" => &["Contract", "Usage", "Default", "Meta"],
        "M215" => &["Body", "Arguments", "Usage", "Scope", "Meta"],
        "E021" => &[
            "Contract",
            "Usage",
            "Default",
            "Meta",
            "Body",
            "Arguments",
            "Scope",
        ],
        _ => &[],
    }
}

/// Levenshtein distance, for near misses of short keys.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The known key nearest `key` (at most two edits away).
pub(crate) fn near_miss(key: &str, known: &[&str]) -> Option<String> {
    known
        .iter()
        .map(|k| (distance(&key.to_lowercase(), &k.to_lowercase()), *k))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, k)| k.to_owned())
}

fn quoted(message: &str) -> Option<&str> {
    let start = message.find('"')? + 1;
    let len = message[start..].find('"')?;
    Some(&message[start..start + len])
}

/// The fixes for `diagnostics` (as the client sends them back) in `doc`.
// lsp-types' Uri caches its parse inside; hashing reads only the text.
#[allow(clippy::mutable_key_type)]
pub(crate) fn code_actions(
    ws: &Workspace,
    uri: &Uri,
    doc: &Doc,
    diagnostics: &[Diagnostic],
) -> Vec<CodeAction> {
    let mut out = Vec::new();
    for d in diagnostics {
        let Some(NumberOrString::String(code)) = &d.code else {
            continue;
        };
        let edit = |edits: Vec<TextEdit>| {
            let mut changes = HashMap::new();
            changes.insert(uri.clone(), edits);
            Some(WorkspaceEdit::new(changes))
        };
        let action = |title: String, edits: Vec<TextEdit>| CodeAction {
            title,
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![d.clone()]),
            edit: edit(edits),
            is_preferred: Some(true),
            ..Default::default()
        };
        if code == "M401" {
            let Some(prefix) = quoted(&d.message) else {
                continue;
            };
            let Some(namespace) = namespace_for(ws, doc, prefix) else {
                continue;
            };
            let entry = format!("  {prefix}: {namespace}\n");
            let edits = match doc.text.find("Namespaces:") {
                Some(at) if doc.text[at..].find('\n').is_some() => {
                    let line_end = at + doc.text[at..].find('\n').unwrap_or(0) + 1;
                    let pos = doc.lines.position(&doc.text, line_end);
                    vec![TextEdit::new(lsp_types::Range::new(pos, pos), entry)]
                }
                _ => {
                    let pos = lsp_types::Position::new(0, 0);
                    vec![TextEdit::new(
                        lsp_types::Range::new(pos, pos),
                        format!("Namespaces:\n{entry}"),
                    )]
                }
            };
            out.push(action(
                format!("Declare the namespace prefix {prefix}: {namespace}"),
                edits,
            ));
            continue;
        }
        let known: Vec<&str> = match code.as_str() {
            "W010" if doc.rel == "manifest.yaml" => {
                docs::MANIFEST_KEYS.iter().map(|(k, _)| *k).collect()
            }
            other => known_keys(other).to_vec(),
        };
        if known.is_empty() {
            continue;
        }
        let Some(key) = quoted(&d.message) else {
            continue;
        };
        let Some(fix) = near_miss(key, &known) else {
            continue;
        };
        let start = d.range.start;
        let end = lsp_types::Position::new(
            start.line,
            start.character + key.encode_utf16().count() as u32,
        );
        let at = doc.lines.byte_of(&doc.text, start);
        if !doc.text[at..].starts_with(key) {
            continue;
        }
        out.push(action(
            format!("Change {key:?} to {fix:?}"),
            vec![TextEdit::new(lsp_types::Range::new(start, end), fix)],
        ));
    }
    out
}

/// The namespace a prefix most likely means: Murano's usual prefixes,
/// else the one namespace of the workspace whose classes the file uses
/// with this prefix.
fn namespace_for(ws: &Workspace, doc: &Doc, prefix: &str) -> Option<String> {
    if let Some((_, ns)) = WELL_KNOWN.iter().find(|(p, _)| *p == prefix) {
        return Some((*ns).to_owned());
    }
    let needle = format!("{prefix}:");
    let mut candidates = std::collections::BTreeSet::new();
    for (at, _) in doc.text.match_indices(&needle) {
        let rest = &doc.text[at + needle.len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let short = &rest[..end];
        for name in ws.classes.keys() {
            if name.rsplit_once('.').is_some_and(|(_, s)| s == short) {
                candidates.insert(
                    name.rsplit_once('.')
                        .map(|(n, _)| n.to_owned())
                        .unwrap_or_default(),
                );
            }
        }
    }
    (candidates.len() == 1).then(|| candidates.into_iter().next().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_misses_are_found_within_two_edits() {
        assert_eq!(
            near_miss("Contrat", known_keys("M204")).as_deref(),
            Some("Contract")
        );
        assert_eq!(
            near_miss("defualt", known_keys("M204")).as_deref(),
            Some("Default")
        );
        assert_eq!(near_miss("Whatever", known_keys("M204")), None);
    }
}
