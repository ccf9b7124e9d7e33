//! Hover, definition, references, rename, completion and document
//! symbols over the [`Target`]s of [`crate::analysis`].

use std::collections::HashMap;

use lsp_types::{
    CompletionItem, CompletionItemKind, DocumentSymbol, Hover, HoverContents, Location,
    MarkupContent, MarkupKind, SymbolKind, TextEdit, Uri, WorkspaceEdit,
};

use crate::analysis::{find_method, find_property, library_has, target_at, Doc, FileKind, Target};
use crate::docs;
use crate::index::{resolve_name, Span};
use crate::text::{ident_at, path_to_uri};
use crate::workspace::Workspace;

type Library = murano_yaql::eval::Library;

fn markdown(value: String) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: None,
    }
}

/// The signatures of a library function, one per overload.
fn signatures(lib: &Library, name: &str) -> Vec<String> {
    let mut out: Vec<String> = lib
        .overloads_of(name)
        .map(|d| {
            let params: Vec<&str> = d.param_names().collect();
            if d.is_method() && !params.is_empty() {
                format!("{}.{name}({})", params[0], params[1..].join(", "))
            } else {
                format!("{name}({})", params.join(", "))
            }
        })
        .collect();
    out.dedup();
    out
}

/// The hover text of the thing at `offset`.
pub(crate) fn hover(ws: &Workspace, lib: &Library, doc: &Doc, offset: usize) -> Option<Hover> {
    let (target, _) = target_at(ws, lib, doc, offset)?;
    let text = match target {
        Target::Class(name) => {
            let mut s = format!("**class** `{name}`");
            if let Some((r, info)) = ws.class(&name) {
                let m = &ws.packages[r.package].manifest;
                s.push_str(&format!(
                    "\n\npackage `{}` version `{}`",
                    m.full_name.as_deref().unwrap_or("?"),
                    m.version.as_deref().unwrap_or("0.0.0")
                ));
                if !info.extends.is_empty() {
                    s.push_str(&format!("\n\nExtends: `{}`", info.extends.join("`, `")));
                }
                s.push_str(&format!(
                    "\n\n{} properties, {} methods",
                    info.properties.len(),
                    info.methods.len()
                ));
            }
            s
        }
        Target::Property { class, name } => {
            let (decl, p) = find_property(ws, &class, &name)?;
            let mut s = format!(
                "**property** `{name}` of `{}`\n\n```yaml\n{name}:\n",
                decl.name
            );
            if let Some(c) = &p.contract {
                s.push_str(&format!("  Contract: {}\n", c.replace('\n', "\n    ")));
            }
            s.push_str(&format!(
                "  Usage: {}\n",
                p.usage.as_deref().unwrap_or("In")
            ));
            if let Some(d) = &p.default {
                s.push_str(&format!("  Default: {}\n", d.replace('\n', "\n    ")));
            }
            s.push_str("```");
            s
        }
        Target::Method { class, name } => {
            let (decl, m) = find_method(ws, &class, &name)?;
            let args: Vec<&str> = m.arguments.iter().map(|(n, _)| n.as_str()).collect();
            let mut s = format!("**method** `{}::{name}({})`", decl.name, args.join(", "));
            for (arg, contract) in &m.arguments {
                s.push_str(&format!(
                    "\n- `{arg}`: `{}`",
                    contract.as_deref().unwrap_or("any")
                ));
            }
            s.push_str(&format!(
                "\n\nScope: {}, Usage: {}",
                m.scope.as_deref().unwrap_or("Session"),
                m.usage.as_deref().unwrap_or("Runtime")
            ));
            s
        }
        Target::Function(name) => {
            let sigs = signatures(lib, &name);
            format!(
                "**YAQL function** `{name}`\n\n```\n{}\n```",
                sigs.join("\n")
            )
        }
        Target::Contract(name) => {
            format!(
                "**contract** {}",
                docs::lookup(docs::CONTRACT_FUNCTIONS, &name)?
            )
        }
        Target::FieldType(name) => format!(
            "**UI field type** `{name}`: {}\n\nAttributes: {}",
            docs::lookup(docs::FIELD_TYPES, &name)?,
            docs::FIELD_ATTRIBUTES.join(", ")
        ),
        Target::UiField { form, field, .. } => {
            format!("**UI field** `{field}` of form `{form}`")
        }
        Target::Resource { file, .. } => format!("**resource** `{file}`"),
        Target::ManifestKey(name) => format!(
            "**manifest** `{name}`: {}",
            docs::lookup(docs::MANIFEST_KEYS, &name)?
        ),
    };
    Some(markdown(text))
}

/// A location in package `package`, file `rel`.
fn location(ws: &Workspace, package: usize, rel: &str, span: Span) -> Option<Location> {
    let path = ws.path_of(package, rel)?;
    let doc = Doc::new(ws, package, rel)?;
    Some(Location::new(
        path_to_uri(&path)?,
        doc.lines.range(&doc.text, span.0, span.1),
    ))
}

/// Where a target is declared.
fn declaration(ws: &Workspace, target: &Target) -> Option<(usize, String, Span)> {
    match target {
        Target::Class(name) => {
            let (r, info) = ws.class(name)?;
            Some((r.package, r.file.clone(), info.span))
        }
        Target::Property { class, name } => {
            let (decl, p) = find_property(ws, class, name)?;
            let (r, _) = ws.class(&decl.name)?;
            Some((r.package, r.file.clone(), p.span))
        }
        Target::Method { class, name } => {
            let (decl, m) = find_method(ws, class, name)?;
            let (r, _) = ws.class(&decl.name)?;
            Some((r.package, r.file.clone(), m.span))
        }
        Target::Resource { package, file } => Some((*package, file.clone(), (0, 0))),
        Target::UiField {
            package,
            file,
            form,
            field,
        } => {
            // The field is declared in the same UI file.
            let doc = Doc::new(ws, *package, file)?;
            let span = crate::analysis::ui_field_span(ws, &doc, form, field)?;
            Some((*package, file.clone(), span))
        }
        _ => None,
    }
}

/// The definition of the thing at `offset`.
pub(crate) fn definition(
    ws: &Workspace,
    lib: &Library,
    doc: &Doc,
    offset: usize,
) -> Option<Location> {
    let (target, _) = target_at(ws, lib, doc, offset)?;
    let (package, rel, span) = declaration(ws, &target)?;
    location(ws, package, &rel, span)
}

/// Every use of a target in the workspace's (checked) packages, and the
/// member uses whose receiver could not be resolved.
pub(crate) struct Uses {
    pub(crate) found: Vec<(usize, String, Span)>,
    pub(crate) unresolved: Vec<(usize, String, Span)>,
}

/// Finds the uses of `target` (its declaration included).
pub(crate) fn uses(ws: &Workspace, lib: &Library, target: &Target) -> Uses {
    let needle = match target {
        Target::Class(name) => name.rsplit('.').next().unwrap_or(name).to_owned(),
        Target::Property { name, .. } | Target::Method { name, .. } => name.clone(),
        _ => {
            return Uses {
                found: Vec::new(),
                unresolved: Vec::new(),
            }
        }
    };
    let member = !matches!(target, Target::Class(_));
    let declaring_package = declaration(ws, target).map(|(p, _, _)| p);
    let mut found = Vec::new();
    let mut unresolved = Vec::new();
    for (pi, package) in ws.packages.iter().enumerate() {
        if !package.checked && Some(pi) != declaring_package {
            continue;
        }
        for rel in package.files.paths() {
            if !(rel.ends_with(".yaml") || rel.ends_with(".yml")) {
                continue;
            }
            let bytes = match murano_packages::source::PackageSource::read(&package.files, rel) {
                Some(b) => b,
                None => continue,
            };
            let text = String::from_utf8_lossy(bytes);
            if !text.contains(needle.as_str()) {
                continue;
            }
            let Some(doc) = Doc::new(ws, pi, rel) else {
                continue;
            };
            for (at, _) in doc.text.match_indices(needle.as_str()) {
                let end = at + needle.len();
                if ident_at(&doc.text, at) != Some((at, end)) {
                    continue;
                }
                match target_at(ws, lib, &doc, at) {
                    Some((t, span)) if &t == target => {
                        if !found
                            .iter()
                            .any(|f: &(usize, String, Span)| f.0 == pi && f.1 == rel && f.2 == span)
                        {
                            found.push((pi, rel.to_owned(), span));
                        }
                    }
                    Some((
                        Target::Property { .. } | Target::Method { .. } | Target::Class(_),
                        _,
                    )) => {}
                    _ => {
                        let dotted = doc.text[..at].ends_with('.');
                        if member
                            && dotted
                            && Some(pi) == declaring_package
                            && doc.kind == FileKind::Class
                        {
                            unresolved.push((pi, rel.to_owned(), (at, end)));
                        }
                    }
                }
                if found.len() >= ws.options.max_results {
                    return Uses { found, unresolved };
                }
            }
        }
    }
    Uses { found, unresolved }
}

/// The references of the thing at `offset`.
pub(crate) fn references(
    ws: &Workspace,
    lib: &Library,
    doc: &Doc,
    offset: usize,
    include_declaration: bool,
) -> Vec<Location> {
    let Some((target, _)) = target_at(ws, lib, doc, offset) else {
        return Vec::new();
    };
    let decl = declaration(ws, &target);
    uses(ws, lib, &target)
        .found
        .into_iter()
        .filter(|u| include_declaration || Some(u) != decl.as_ref())
        .filter_map(|(p, rel, span)| location(ws, p, &rel, span))
        .collect()
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The edits renaming the thing at `offset` to `new_name`; `Err` with a
/// message when it cannot be renamed safely.
// lsp-types' Uri caches its parse inside; hashing reads only the text.
#[allow(clippy::mutable_key_type)]
pub(crate) fn rename(
    ws: &Workspace,
    lib: &Library,
    doc: &Doc,
    offset: usize,
    new_name: &str,
) -> Result<WorkspaceEdit, String> {
    let (target, _) = target_at(ws, lib, doc, offset).ok_or("nothing that can be renamed here")?;
    let decl = declaration(ws, &target).ok_or("this is not declared in the workspace")?;
    if !ws.packages[decl.0].checked || ws.packages[decl.0].root().is_none() {
        return Err("this is declared outside the workspace (in the catalog)".to_owned());
    }
    let new_full = match &target {
        Target::Class(old) => {
            let (ns, short) = match new_name.rsplit_once('.') {
                Some((ns, short)) => (ns.to_owned(), short),
                None => (
                    old.rsplit_once('.').map_or("", |(n, _)| n).to_owned(),
                    new_name,
                ),
            };
            if !is_identifier(short) || ns.split('.').any(|p| !is_identifier(p)) && !ns.is_empty() {
                return Err(format!("{new_name:?} is not a class name"));
            }
            if ns.is_empty() {
                short.to_owned()
            } else {
                format!("{ns}.{short}")
            }
        }
        Target::Property { .. } | Target::Method { .. } => {
            if !is_identifier(new_name) {
                return Err(format!("{new_name:?} is not a name"));
            }
            new_name.to_owned()
        }
        _ => return Err("only properties, methods and classes can be renamed".to_owned()),
    };
    let uses = uses(ws, lib, &target);
    if let Some((p, rel, span)) = uses.unresolved.first() {
        let at = Doc::new(ws, *p, rel)
            .map(|d| d.lines.position(&d.text, span.0))
            .unwrap_or_default();
        return Err(format!(
            "not renamed: {rel}:{}:{} uses a member of this name on a value whose class is unknown ({} such use{})",
            at.line + 1,
            at.character + 1,
            uses.unresolved.len(),
            if uses.unresolved.len() == 1 { "" } else { "s" }
        ));
    }
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for (p, rel, span) in uses.found {
        let Some(doc) = Doc::new(ws, p, &rel) else {
            continue;
        };
        let written = &doc.text[span.0..span.1];
        let replacement = match &target {
            Target::Class(_) => rewrite_class(ws, &doc, written, &new_full),
            _ => new_full.clone(),
        };
        let Some(path) = ws.path_of(p, &rel) else {
            continue;
        };
        let Some(uri) = path_to_uri(&path) else {
            continue;
        };
        changes.entry(uri).or_default().push(TextEdit::new(
            doc.lines.range(&doc.text, span.0, span.1),
            replacement,
        ));
    }
    Ok(WorkspaceEdit::new(changes))
}

/// How a class use written `written` is written once the class is named
/// `new_full`: with the same prefix when its namespace is the new one's,
/// else in full.
fn rewrite_class(ws: &Workspace, doc: &Doc, written: &str, new_full: &str) -> String {
    let (new_ns, new_short) = new_full.rsplit_once('.').unwrap_or(("", new_full));
    let namespaces = doc
        .classes(ws)
        .first()
        .map(|c| c.namespaces.clone())
        .unwrap_or_default();
    if let Some((prefix, _)) = written.split_once(':') {
        let same = namespaces.iter().any(|(p, ns)| p == prefix && ns == new_ns);
        return if same {
            format!("{prefix}:{new_short}")
        } else {
            new_full.to_owned()
        };
    }
    if written.contains('.') || doc.kind != FileKind::Class {
        return new_full.to_owned();
    }
    match resolve_name(&namespaces, new_short) {
        Some(full) if full == new_full => new_short.to_owned(),
        _ => new_full.to_owned(),
    }
}

/// Completion items at `offset`.
pub(crate) fn completion(
    ws: &Workspace,
    lib: &Library,
    doc: &Doc,
    offset: usize,
) -> Vec<CompletionItem> {
    let text = &doc.text;
    let start = ident_at(text, offset).map_or(offset, |(s, _)| s.min(offset));
    let before = &text[..start];
    let item = |label: String, kind: CompletionItemKind, detail: Option<String>| CompletionItem {
        label,
        kind: Some(kind),
        detail,
        ..Default::default()
    };
    let mut out = Vec::new();
    match doc.kind {
        FileKind::Manifest => {
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            if line_start == start {
                for (key, d) in docs::MANIFEST_KEYS {
                    out.push(item(
                        (*key).to_owned(),
                        CompletionItemKind::PROPERTY,
                        Some((*d).to_owned()),
                    ));
                }
            }
        }
        FileKind::Ui => {
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            let line = before[line_start..]
                .trim_start()
                .trim_start_matches("- ")
                .trim_end();
            if line == "type:" {
                for (t, d) in docs::FIELD_TYPES {
                    out.push(item(
                        (*t).to_owned(),
                        CompletionItemKind::ENUM_MEMBER,
                        Some((*d).to_owned()),
                    ));
                }
            } else if line.is_empty() {
                for a in docs::FIELD_ATTRIBUTES {
                    out.push(item((*a).to_owned(), CompletionItemKind::PROPERTY, None));
                }
            }
        }
        FileKind::Class => {
            let classes = doc.classes(ws);
            let own = classes.first().map(|c| c.name.clone());
            let namespaces = classes
                .first()
                .map(|c| c.namespaces.clone())
                .unwrap_or_default();
            if let Some(recv) = before.strip_suffix('.') {
                let self_receiver = recv.ends_with('$') || recv.ends_with("$this");
                let class = if self_receiver {
                    own.clone()
                } else {
                    // `$.prop.`: the property's class, when its contract says.
                    receiver_class(ws, own.as_deref(), recv)
                };
                if let Some(class) = class {
                    let mut seen = std::collections::HashSet::new();
                    for c in ws.hierarchy(&class) {
                        let Some((_, info)) = ws.class(&c) else {
                            continue;
                        };
                        for p in &info.properties {
                            if seen.insert(p.name.clone()) {
                                out.push(item(
                                    p.name.clone(),
                                    CompletionItemKind::FIELD,
                                    Some(format!(
                                        "{} · {}",
                                        info.name,
                                        p.contract.as_deref().unwrap_or("")
                                    )),
                                ));
                            }
                        }
                        for m in &info.methods {
                            if seen.insert(m.name.clone()) {
                                out.push(item(
                                    m.name.clone(),
                                    CompletionItemKind::METHOD,
                                    Some(info.name.clone()),
                                ));
                            }
                        }
                    }
                    if self_receiver {
                        for (f, d) in docs::CONTRACT_FUNCTIONS {
                            out.push(item(
                                (*f).to_owned(),
                                CompletionItemKind::FUNCTION,
                                Some((*d).to_owned()),
                            ));
                        }
                    }
                }
                for name in lib.names() {
                    if !name.starts_with('#') && library_has(lib, name, true) {
                        out.push(item(
                            name.to_owned(),
                            CompletionItemKind::METHOD,
                            signatures(lib, name).first().cloned(),
                        ));
                    }
                }
            } else if let Some(prefix) = prefix_before(before) {
                if let Some((_, ns)) = namespaces.iter().find(|(p, _)| p == prefix) {
                    let dotted = format!("{ns}.");
                    for name in ws.classes.keys() {
                        if let Some(short) = name.strip_prefix(&dotted) {
                            if !short.contains('.') {
                                out.push(item(
                                    short.to_owned(),
                                    CompletionItemKind::CLASS,
                                    Some(name.clone()),
                                ));
                            }
                        }
                    }
                }
            } else {
                for name in lib.names() {
                    if !name.starts_with('#') && library_has(lib, name, false) {
                        out.push(item(
                            name.to_owned(),
                            CompletionItemKind::FUNCTION,
                            signatures(lib, name).first().cloned(),
                        ));
                    }
                }
                for name in ws.classes.keys() {
                    let (ns, short) = name.rsplit_once('.').unwrap_or(("", name));
                    let label = match namespaces.iter().find(|(_, n)| n == ns) {
                        Some((p, _)) if p == "=" => short.to_owned(),
                        Some((p, _)) => format!("{p}:{short}"),
                        None => name.clone(),
                    };
                    out.push(item(label, CompletionItemKind::CLASS, Some(name.clone())));
                }
            }
        }
        FileKind::Other => {}
    }
    out.truncate(ws.options.max_results);
    out
}

/// The class of a receiver for completion (`$.prop` whose contract
/// names a class).
fn receiver_class(ws: &Workspace, own: Option<&str>, recv: &str) -> Option<String> {
    let start = recv
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$'))
        .map_or(0, |i| i + 1);
    let recv = &recv[start..];
    let (chain, base) = {
        let mut parts: Vec<&str> = recv.rsplit('.').collect();
        let base = parts.pop()?;
        parts.reverse();
        (parts, base)
    };
    let base = base
        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .next()?;
    if base != "$" && base != "$this" {
        return None;
    }
    let mut class = own?.to_owned();
    for name in chain {
        let (decl, p) = find_property(ws, &class, name)?;
        let contract = p.contract.as_deref()?;
        let at = contract.find("class(")? + 6;
        let rest = &contract[at..];
        let end = rest.find([')', ',']).unwrap_or(rest.len());
        class = resolve_name(&decl.namespaces, rest[..end].trim())?;
    }
    Some(class)
}

/// The namespace prefix typed just before the cursor (`res:`).
fn prefix_before(before: &str) -> Option<&str> {
    let rest = before.strip_suffix(':')?;
    let start = rest
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    let prefix = &rest[start..];
    (!prefix.is_empty()).then_some(prefix)
}

/// The outline of a file: classes with their properties and methods.
#[allow(deprecated)] // DocumentSymbol::deprecated must be set.
pub(crate) fn symbols(ws: &Workspace, doc: &Doc) -> Vec<DocumentSymbol> {
    let sym = |name: &str, kind: SymbolKind, span: Span, children: Option<Vec<DocumentSymbol>>| {
        let range = doc.lines.range(&doc.text, span.0, span.1);
        DocumentSymbol {
            name: name.to_owned(),
            detail: None,
            kind,
            tags: None,
            deprecated: None,
            range,
            selection_range: range,
            children,
        }
    };
    doc.classes(ws)
        .iter()
        .map(|c| {
            let mut children: Vec<DocumentSymbol> = c
                .properties
                .iter()
                .map(|p| sym(&p.name, SymbolKind::PROPERTY, p.span, None))
                .collect();
            children.extend(
                c.methods
                    .iter()
                    .map(|m| sym(&m.name, SymbolKind::METHOD, m.span, None)),
            );
            sym(&c.name, SymbolKind::CLASS, c.span, Some(children))
        })
        .collect()
}
