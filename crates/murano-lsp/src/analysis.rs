//! What is under the cursor: a class, a property, a method, a YAQL or
//! contract function, a UI field type or a manifest key, found from the
//! text around the offset and the workspace's class index. Hover,
//! navigation, rename and completion all start here.

use murano_yaml::{Node, Value};

use crate::docs;
use crate::index::{resolve_name, span_of, ClassInfo, MethodInfo, PropertyInfo, Span};
use crate::text::{ident_at, word_at, LineIndex};
use crate::workspace::Workspace;

/// What a file of a package is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileKind {
    Class,
    Ui,
    Manifest,
    /// Anything else (object models, Heat templates, resources).
    Other,
}

impl FileKind {
    /// The kind of a file by its path inside the package.
    pub(crate) fn of(rel: &str) -> FileKind {
        if rel == "manifest.yaml" {
            FileKind::Manifest
        } else if rel.starts_with("Classes/") {
            FileKind::Class
        } else if rel.starts_with("UI/") {
            FileKind::Ui
        } else {
            FileKind::Other
        }
    }
}

/// An open or indexed file with what analysing it needs.
pub(crate) struct Doc {
    pub(crate) package: usize,
    pub(crate) rel: String,
    pub(crate) text: String,
    pub(crate) lines: LineIndex,
    pub(crate) kind: FileKind,
}

impl Doc {
    /// The file `rel` of package `package`.
    pub(crate) fn new(ws: &Workspace, package: usize, rel: &str) -> Option<Doc> {
        let text = ws.packages.get(package)?.text(rel)?;
        let lines = LineIndex::new(&text);
        Some(Doc {
            package,
            rel: rel.to_owned(),
            kind: FileKind::of(rel),
            text,
            lines,
        })
    }

    /// The classes this file declares.
    pub(crate) fn classes<'w>(&self, ws: &'w Workspace) -> &'w [ClassInfo] {
        ws.packages[self.package]
            .classes
            .get(&self.rel)
            .map_or(&[], Vec::as_slice)
    }
}

/// A thing of the workspace a position can name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// A class, by full name.
    Class(String),
    /// A property, with the class that declares it.
    Property { class: String, name: String },
    /// A method, with the class that declares it.
    Method { class: String, name: String },
    /// A YAQL function or method of the library.
    Function(String),
    /// A contract function.
    Contract(String),
    /// A Dynamic UI field type.
    FieldType(String),
    /// A top-level manifest key.
    ManifestKey(String),
    /// A file under the package's `Resources/` named in a string
    /// (`$resources.string('setup.sh')`): package and relative path.
    Resource { package: usize, file: String },
    /// A field of a UI form (`$.form.field` in `Application` or
    /// `Templates`): the package and UI file, form and field names.
    UiField {
        package: usize,
        file: String,
        form: String,
        field: String,
    },
}

/// The class of a receiver, when known.
enum Receiver {
    Known(String),
    Unknown,
}

/// Finds a property declared by `class` or its ancestors.
pub(crate) fn find_property<'w>(
    ws: &'w Workspace,
    class: &str,
    name: &str,
) -> Option<(&'w ClassInfo, &'w PropertyInfo)> {
    ws.hierarchy(class).iter().find_map(|c| {
        let (_, info) = ws.class(c)?;
        Some((info, info.properties.iter().find(|p| p.name == name)?))
    })
}

/// Finds a method declared by `class` or its ancestors.
pub(crate) fn find_method<'w>(
    ws: &'w Workspace,
    class: &str,
    name: &str,
) -> Option<(&'w ClassInfo, &'w MethodInfo)> {
    ws.hierarchy(class).iter().find_map(|c| {
        let (_, info) = ws.class(c)?;
        Some((info, info.methods.iter().find(|m| m.name == name)?))
    })
}

/// The class a property's contract names (`$.class(Name)`), resolved
/// in the declaring class's file.
fn contract_class(declaring: &ClassInfo, property: &PropertyInfo) -> Option<String> {
    let contract = property.contract.as_deref()?;
    let at = contract.find("class(")? + "class(".len();
    let rest = &contract[at..];
    let end = rest.find([')', ',']).unwrap_or(rest.len());
    let written = rest[..end].trim().trim_matches(['\'', '"']);
    resolve_name(&declaring.namespaces, written)
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The receiver ending `before` (the text up to a member's dot, the dot
/// excluded): `$`, `$this`, or a chain of properties from them whose
/// contracts name classes.
fn receiver(ws: &Workspace, own: Option<&str>, before: &str) -> Receiver {
    let bytes = before.as_bytes();
    let mut end = bytes.len();
    let mut chain = Vec::new();
    loop {
        let mut start = end;
        while start > 0 && is_ident_byte(bytes[start - 1]) {
            start -= 1;
        }
        let ident = &before[start..end];
        if start > 0 && bytes[start - 1] == b'$' {
            if ident.is_empty() || ident == "this" {
                break;
            }
            return Receiver::Unknown;
        }
        if ident.is_empty() || start == 0 || bytes[start - 1] != b'.' || chain.len() > 16 {
            return Receiver::Unknown;
        }
        chain.push(ident);
        end = start - 1;
    }
    let Some(mut class) = own.map(str::to_owned) else {
        return Receiver::Unknown;
    };
    for name in chain.iter().rev() {
        let Some(next) =
            find_property(ws, &class, name).and_then(|(decl, p)| contract_class(decl, p))
        else {
            return Receiver::Unknown;
        };
        class = next;
    }
    Receiver::Known(class)
}

/// Whether the YAQL library knows `name` (as a method when `method`).
pub(crate) fn library_has(lib: &murano_yaql::eval::Library, name: &str, method: bool) -> bool {
    lib.overloads_of(name).any(|d| {
        if method {
            d.is_method()
        } else {
            d.is_function()
        }
    })
}

/// An extension method (`Usage: Extension`) of any class named `name`.
fn extension_method(ws: &Workspace, name: &str) -> Option<String> {
    ws.packages.iter().find_map(|p| {
        p.classes.values().flatten().find_map(|c| {
            c.methods
                .iter()
                .any(|m| m.name == name && m.usage.as_deref() == Some("Extension"))
                .then(|| c.name.clone())
        })
    })
}

/// What the text at `offset` of `doc` names, and its byte range.
pub(crate) fn target_at(
    ws: &Workspace,
    lib: &murano_yaql::eval::Library,
    doc: &Doc,
    offset: usize,
) -> Option<(Target, Span)> {
    let text = doc.text.as_str();
    match doc.kind {
        FileKind::Class => class_target(ws, lib, doc, offset),
        FileKind::Manifest => {
            let (s, e) = word_at(text, offset)?;
            let word = &text[s..e];
            let line_start = text[..s].rfind('\n').map_or(0, |i| i + 1);
            if s == line_start && text[e..].starts_with(':') {
                return Some((Target::ManifestKey(word.to_owned()), (s, e)));
            }
            ws.classes
                .contains_key(word)
                .then(|| (Target::Class(word.to_owned()), (s, e)))
        }
        FileKind::Ui | FileKind::Other => {
            let (s, e) = word_at(text, offset)?;
            let word = &text[s..e];
            if ws.classes.contains_key(word) {
                return Some((Target::Class(word.to_owned()), (s, e)));
            }
            let line_start = text[..s].rfind('\n').map_or(0, |i| i + 1);
            let line = text[line_start..s].trim_start().trim_start_matches("- ");
            if doc.kind == FileKind::Ui {
                if let Some(found) = ui_field_at(ws, doc, offset) {
                    return Some(found);
                }
            }
            if doc.kind == FileKind::Ui
                && line.trim_end() == "type:"
                && docs::lookup(docs::FIELD_TYPES, word).is_some()
            {
                return Some((Target::FieldType(word.to_owned()), (s, e)));
            }
            typed_key_at(ws, doc, offset)
        }
    }
}

fn class_target(
    ws: &Workspace,
    lib: &murano_yaql::eval::Library,
    doc: &Doc,
    offset: usize,
) -> Option<(Target, Span)> {
    let text = doc.text.as_str();
    let classes = doc.classes(ws);
    let own = classes.first().map(|c| c.name.as_str());
    let namespaces = classes.first().map_or(&[][..], |c| c.namespaces.as_slice());
    let inside = |span: Span| span.0 <= offset && offset <= span.1 && span.0 < span.1;
    if let Some(found) = resource_at(ws, doc, offset) {
        return Some(found);
    }
    for class in classes {
        if let Some(p) = class.properties.iter().find(|p| inside(p.span)) {
            return Some((
                Target::Property {
                    class: class.name.clone(),
                    name: p.name.clone(),
                },
                p.span,
            ));
        }
        if let Some(m) = class.methods.iter().find(|m| inside(m.span)) {
            return Some((
                Target::Method {
                    class: class.name.clone(),
                    name: m.name.clone(),
                },
                m.span,
            ));
        }
        if inside(class.span) {
            return Some((Target::Class(class.name.clone()), class.span));
        }
    }
    if let Some((s, e)) = ident_at(text, offset) {
        let ident = &text[s..e];
        let call = text[e..].trim_start().starts_with('(');
        let before = &text[..s];
        if let Some(recv) = before.strip_suffix('.') {
            // A member: of a known class, else the library's method.
            match receiver(ws, own, recv) {
                Receiver::Known(class) => {
                    let member = if call {
                        find_method(ws, &class, ident).map(|(c, m)| Target::Method {
                            class: c.name.clone(),
                            name: m.name.clone(),
                        })
                    } else {
                        find_property(ws, &class, ident).map(|(c, p)| Target::Property {
                            class: c.name.clone(),
                            name: p.name.clone(),
                        })
                    };
                    if let Some(member) = member {
                        return Some((member, (s, e)));
                    }
                    let self_receiver = recv.ends_with('$') || recv.ends_with("$this");
                    if call
                        && self_receiver
                        && docs::lookup(docs::CONTRACT_FUNCTIONS, ident).is_some()
                    {
                        return Some((Target::Contract(ident.to_owned()), (s, e)));
                    }
                }
                Receiver::Unknown => {
                    if call {
                        if let Some(class) = extension_method(ws, ident) {
                            return Some((
                                Target::Method {
                                    class,
                                    name: ident.to_owned(),
                                },
                                (s, e),
                            ));
                        }
                    }
                }
            }
            if call && docs::lookup(docs::CONTRACT_FUNCTIONS, ident).is_some() {
                return Some((Target::Contract(ident.to_owned()), (s, e)));
            }
            if call && library_has(lib, ident, true) {
                return Some((Target::Function(ident.to_owned()), (s, e)));
            }
            return None;
        }
        if call && !before.ends_with(':') && library_has(lib, ident, false) {
            return Some((Target::Function(ident.to_owned()), (s, e)));
        }
    }
    // A class name, as written (`res:Instance`, `Database`, a full name).
    let (s, e) = word_at(text, offset)?;
    let written = &text[s..e];
    if written.starts_with('$') || text[..s].ends_with('$') {
        return None;
    }
    let full = resolve_name(namespaces, written)?;
    ws.classes
        .contains_key(&full)
        .then_some((Target::Class(full), (s, e)))
}

/// A key of a mapping that says its class (`?: {type: Name}`, an object
/// model or a UI template): that class's property.
fn typed_key_at(ws: &Workspace, doc: &Doc, offset: usize) -> Option<(Target, Span)> {
    let docs =
        murano_yaml::load_all(doc.text.as_bytes(), murano_yaml::Flavor::Plain, &ws.load).ok()?;
    fn walk<'n>(
        node: &'n Node,
        text: &str,
        lines: &LineIndex,
        offset: usize,
        depth: usize,
    ) -> Option<(&'n Node, &'n [(Node, Node)])> {
        if depth > 256 {
            return None;
        }
        match &node.value {
            Value::Map(pairs) => {
                for (k, v) in pairs {
                    let span = span_of(text, lines, k);
                    if span.0 <= offset && offset <= span.1 {
                        return Some((k, pairs));
                    }
                    if let Some(found) = walk(v, text, lines, offset, depth + 1) {
                        return Some(found);
                    }
                }
                None
            }
            Value::Seq(items) => items
                .iter()
                .find_map(|n| walk(n, text, lines, offset, depth + 1)),
            _ => None,
        }
    }
    for root in &docs {
        let Some((key, pairs)) = walk(root, &doc.text, &doc.lines, offset, 0) else {
            continue;
        };
        let name = key.value.as_str()?;
        let class = pairs
            .iter()
            .find(|(k, _)| k.value.as_str() == Some("?"))
            .and_then(|(_, v)| v.value.get("type"))
            .and_then(|t| t.value.as_str())?;
        let (decl, _) = find_property(ws, class, name)?;
        return Some((
            Target::Property {
                class: decl.name.clone(),
                name: name.to_owned(),
            },
            span_of(&doc.text, &doc.lines, key),
        ));
    }
    None
}

/// `$.form.field` at `offset` of a UI file, when the form declares the
/// field.
fn ui_field_at(ws: &Workspace, doc: &Doc, offset: usize) -> Option<(Target, Span)> {
    let text = doc.text.as_str();
    let (s, e) = ident_at(text, offset)?;
    let before = text[..s].strip_suffix('.')?;
    let form_start = before
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    let form = &before[form_start..];
    if !before[..form_start].ends_with("$.") || form.is_empty() {
        return None;
    }
    let field = &text[s..e];
    ui_field_span(ws, doc, form, field)?;
    Some((
        Target::UiField {
            package: doc.package,
            file: doc.rel.clone(),
            form: form.to_owned(),
            field: field.to_owned(),
        },
        (s, e),
    ))
}

/// The span of the `name:` value declaring `field` in form `form`.
pub(crate) fn ui_field_span(ws: &Workspace, doc: &Doc, form: &str, field: &str) -> Option<Span> {
    let root = murano_yaml::load_ui_file(doc.text.as_bytes(), &ws.load).ok()??;
    let Some(Value::Seq(forms)) = root.value.get("Forms").map(|f| &f.value) else {
        return None;
    };
    forms.iter().find_map(|f| {
        let (_, body) = f
            .value
            .as_map()?
            .iter()
            .find(|(k, _)| k.value.as_str() == Some(form))?;
        let Some(Value::Seq(fields)) = body.value.get("fields").map(|f| &f.value) else {
            return None;
        };
        fields.iter().find_map(|item| {
            let name = item.value.get("name")?;
            (name.value.as_str() == Some(field)).then(|| span_of(&doc.text, &doc.lines, name))
        })
    })
}

/// A quoted string at `offset` naming a file under `Resources/`.
fn resource_at(ws: &Workspace, doc: &Doc, offset: usize) -> Option<(Target, Span)> {
    let text = doc.text.as_str();
    let line_start = text[..offset.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let line_end = text[line_start..]
        .find('\n')
        .map_or(text.len(), |i| line_start + i);
    let line = &text[line_start..line_end];
    let at = offset - line_start;
    // The quoted run around the cursor, on one line.
    let open = line[..at.min(line.len())].rfind(['\'', '"'])?;
    let quote = line.as_bytes()[open];
    let close = open + 1 + line[open + 1..].find(quote as char)?;
    if at <= open || at > close {
        return None;
    }
    let name = &line[open + 1..close];
    let file = format!("Resources/{name}");
    if name.is_empty()
        || murano_packages::source::PackageSource::read(&ws.packages[doc.package].files, &file)
            .is_none()
    {
        return None;
    }
    Some((
        Target::Resource {
            package: doc.package,
            file,
        },
        (line_start + open + 1, line_start + close),
    ))
}
