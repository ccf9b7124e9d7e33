//! Documentation generated from packages, without I/O: a page per class
//! (description, parents, properties, methods and actions, static actions
//! and model builders, the UI forms that create it) and an index page,
//! with links between classes across the packages given; rendered as
//! Markdown or HTML.
//!
//! ```
//! use murano_packages::{docs, source::FileMap, PluginRegistry};
//!
//! let mut files = FileMap::new();
//! files.insert("manifest.yaml", b"Format: MuranoPL/1.4\nFullName: a.Lib\n\
//! Type: Library\nClasses:\n  a.Lib: Lib.yaml\n".to_vec())?;
//! files.insert("Classes/Lib.yaml", b"Namespaces: {=: a}\nName: Lib\n\
//! Properties:\n  port: {Contract: $.int().notNull(), Default: 80}\n".to_vec())?;
//! let package = PluginRegistry::with_builtins().load(files)?;
//! let pages = docs::document(&[package.as_ref()]);
//! let page = pages.iter().find(|p| p.name == "a.Lib").unwrap();
//! assert!(docs::render_markdown(page).contains("| `port` | integer, required |"));
//! # Ok::<(), murano_packages::PackageError>(())
//! ```

mod contract_text;

use std::collections::BTreeSet;

use murano_dsl::model::{ClassDefinition, Method, MethodScope, MethodUsage, Namespaces};
use murano_yaml::{load_class_file, LoadOptions, Node, Value};

use crate::package::Package;

/// A piece of text in a block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inline {
    /// Plain text.
    Text(String),
    /// Code (an expression, a name).
    Code(String),
    /// A class, linked when it has a page.
    Link {
        /// What is shown.
        text: String,
        /// The class's full name.
        class: String,
    },
}

/// A block of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// A heading (level 1-4) with an anchor id.
    Heading {
        /// 1 for the page title.
        level: u8,
        /// The text.
        text: Vec<Inline>,
        /// The anchor (`method-deploy`), if any.
        anchor: Option<String>,
    },
    /// A paragraph.
    Paragraph(Vec<Inline>),
    /// A bulleted list.
    List(Vec<Vec<Inline>>),
    /// A table.
    Table {
        /// Column titles.
        head: Vec<String>,
        /// Rows of cells.
        rows: Vec<Vec<Vec<Inline>>>,
    },
}

/// One page: a class's (named by its full name) or the index (`index`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The class's full name, or `index`.
    pub name: String,
    /// The blocks, in order.
    pub blocks: Vec<Block>,
    /// The classes that have pages (for links).
    pub documented: BTreeSet<String>,
}

fn text(t: impl Into<String>) -> Inline {
    Inline::Text(t.into())
}

fn code(t: impl Into<String>) -> Inline {
    Inline::Code(t.into())
}

/// Longest text of one value on a page: a default or meta value that
/// aliases a long string many times must not become gigabytes.
const MAX_VALUE_TEXT: usize = 400;

/// A YAML value on one line, as a reader would write it, cut at
/// [`MAX_VALUE_TEXT`] characters with `…`.
fn inline_value(value: &Value) -> String {
    let mut out = String::new();
    if !write_value(value, &mut out) {
        let cut = out
            .char_indices()
            .nth(MAX_VALUE_TEXT)
            .map_or(out.len(), |(i, _)| i);
        out.truncate(cut);
        out.push('…');
    }
    out
}

/// Appends `value`; false once the text is longer than the limit (the
/// walk stops there).
fn write_value(value: &Value, out: &mut String) -> bool {
    let room = |out: &String| out.len() <= MAX_VALUE_TEXT * 4;
    let push = |out: &mut String, text: &str| {
        let left = (MAX_VALUE_TEXT * 4 + 1).saturating_sub(out.len());
        let cut = text
            .char_indices()
            .map(|(i, _)| i)
            .find(|&i| i >= left)
            .unwrap_or(text.len());
        out.push_str(&text[..cut]);
    };
    match value {
        Value::Null => push(out, "null"),
        Value::Str(s) => push(out, s),
        Value::Yaql(y) => push(out, y.text()),
        Value::Seq(items) | Value::Set(items) => {
            push(out, "[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    push(out, ", ");
                }
                if !room(out) || !write_value(&item.value, out) {
                    return false;
                }
            }
            push(out, "]");
        }
        Value::Map(pairs) | Value::Pairs(pairs) => {
            push(out, "{");
            for (i, (k, v)) in pairs.iter().enumerate() {
                if i > 0 {
                    push(out, ", ");
                }
                if !room(out) || !write_value(&k.value, out) {
                    return false;
                }
                push(out, ": ");
                if !room(out) || !write_value(&v.value, out) {
                    return false;
                }
            }
            push(out, "}");
        }
        other => push(out, &other.python_str()),
    }
    room(out) && out.chars().count() <= MAX_VALUE_TEXT
}

/// The entries of a `Meta` node (a list of one-key mappings, or a
/// mapping): the type as written and its value.
fn meta_entries(meta: Option<&Node>) -> Vec<(String, Node)> {
    let mut out = Vec::new();
    let mut add_map = |pairs: &[(Node, Node)]| {
        for (k, v) in pairs {
            out.push((k.value.python_str(), v.clone()));
        }
    };
    match meta.map(|m| &m.value) {
        Some(Value::Map(pairs)) => add_map(pairs),
        Some(Value::Seq(items)) => {
            for item in items {
                if let Value::Map(pairs) = &item.value {
                    add_map(pairs);
                }
            }
        }
        _ => {}
    }
    out
}

/// What the meta says: title, description, and the other meta classes.
struct MetaText {
    title: Option<String>,
    description: Option<String>,
    others: Vec<String>,
    model_builder: bool,
}

fn meta_text(meta: Option<&Node>, namespaces: &Namespaces) -> MetaText {
    let mut m = MetaText {
        title: None,
        description: None,
        others: Vec::new(),
        model_builder: false,
    };
    for (written, value) in meta_entries(meta) {
        let full = namespaces.resolve(&written).unwrap_or(written.clone());
        let field = |key: &str| value.value.get(key).map(|n| inline_value(&n.value));
        match full.as_str() {
            "io.murano.metadata.Title" => m.title = field("text"),
            "io.murano.metadata.Description" => m.description = field("text"),
            "io.murano.metadata.ModelBuilder" => m.model_builder = true,
            _ => {
                let args = match &value.value {
                    Value::Null => String::new(),
                    other => format!(" {}", inline_value(other)),
                };
                m.others.push(format!("{full}{args}"));
            }
        }
    }
    m
}

/// Title and description as one text ("Title: description").
fn meta_summary(m: &MetaText) -> String {
    match (&m.title, &m.description) {
        (Some(t), Some(d)) => format!("{t}: {d}"),
        (Some(t), None) => t.clone(),
        (None, Some(d)) => d.clone(),
        (None, None) => String::new(),
    }
}

/// A table cell for meta: title and description, then the other meta
/// entries as code.
fn meta_cell(m: &MetaText) -> Vec<Inline> {
    let mut out = Vec::new();
    let summary = meta_summary(m);
    if !summary.is_empty() {
        out.push(text(summary));
    }
    for other in &m.others {
        if !out.is_empty() {
            out.push(text("; "));
        }
        out.push(code(other));
    }
    out
}

/// One UI form field.
struct Field {
    name: String,
    kind: String,
    label: String,
    required: bool,
    initial: String,
    description: String,
}

/// The UI definition: the class its Application creates and its forms.
struct Ui {
    creates: Option<String>,
    forms: Vec<(String, Vec<Field>)>,
}

/// Most UI fields documented (a list of aliased forms stops there).
const MAX_FIELDS: usize = 1000;

fn read_ui(bytes: &[u8]) -> Option<Ui> {
    let file = load_class_file(bytes, &LoadOptions::default()).ok()?;
    let doc = file.documents.first()?;
    let creates = doc
        .value
        .get("Application")
        .and_then(|a| a.value.get("?"))
        .and_then(|h| h.value.get("type"))
        .map(|t| inline_value(&t.value));
    let mut forms = Vec::new();
    let mut seen = 0usize;
    if let Some(Value::Seq(items)) = doc.value.get("Forms").map(|f| &f.value) {
        for item in items {
            let Value::Map(pairs) = &item.value else {
                continue;
            };
            for (name, form) in pairs {
                let mut fields = Vec::new();
                if let Some(Value::Seq(list)) = form.value.get("fields").map(|f| &f.value) {
                    for f in list {
                        if seen >= MAX_FIELDS {
                            break;
                        }
                        seen += 1;
                        let get = |k: &str| {
                            f.value
                                .get(k)
                                .map(|n| inline_value(&n.value))
                                .unwrap_or_default()
                        };
                        fields.push(Field {
                            name: get("name"),
                            kind: get("type"),
                            label: get("label"),
                            required: f.value.get("required").is_none_or(|r| r.value.is_truthy()),
                            initial: get("initial"),
                            description: get("description"),
                        });
                    }
                }
                forms.push((name.value.python_str(), fields));
            }
        }
    }
    Some(Ui { creates, forms })
}

/// A class read from its package, or why it could not be.
struct ClassDoc<'a> {
    name: String,
    package: &'a dyn Package,
    definition: Result<ClassDefinition, String>,
}

fn read_class<'a>(package: &'a dyn Package, name: &str) -> ClassDoc<'a> {
    let definition = package
        .get_class(name)
        .map_err(|e| e.to_string())
        .and_then(|source| {
            load_class_file(&source.bytes, &LoadOptions::default()).map_err(|e| e.to_string())
        })
        .and_then(|file| {
            ClassDefinition::from_documents(&file.documents, None)
                .into_iter()
                .find(|c| c.full_name.as_deref() == Some(name))
                .ok_or_else(|| format!("no class {name} in its file"))
        });
    ClassDoc {
        name: name.to_owned(),
        package,
        definition,
    }
}

fn method_signature(method: &Method) -> String {
    let args: Vec<&str> = method.arguments.iter().map(|a| a.name.as_str()).collect();
    format!("{}({})", method.name, args.join(", "))
}

fn class_page(doc: &ClassDoc<'_>, ui: Option<&Ui>, documented: &BTreeSet<String>) -> Page {
    let package = doc.package;
    let mut blocks = vec![Block::Heading {
        level: 1,
        text: vec![code(&doc.name)],
        anchor: None,
    }];
    blocks.push(Block::Paragraph(vec![
        text("Package "),
        code(package.full_name()),
        text(format!(
            " {} ({}, {}).",
            package.version(),
            package.package_type().as_str(),
            package.format_name()
        )),
    ]));
    let class = match &doc.definition {
        Ok(c) => c,
        Err(e) => {
            blocks.push(Block::Paragraph(vec![text(format!(
                "The class cannot be read: {e}"
            ))]));
            return Page {
                name: doc.name.clone(),
                blocks,
                documented: documented.clone(),
            };
        }
    };
    let ns = &class.namespaces;
    let meta = meta_text(class.meta.as_ref(), ns);
    let summary = meta_summary(&meta);
    if !summary.is_empty() {
        blocks.push(Block::Paragraph(vec![text(summary)]));
    }
    if !meta.others.is_empty() {
        blocks.push(Block::Paragraph(
            std::iter::once(text("Meta: "))
                .chain(meta.others.iter().enumerate().flat_map(|(i, m)| {
                    let sep = if i == 0 { None } else { Some(text(", ")) };
                    sep.into_iter().chain(std::iter::once(code(m)))
                }))
                .collect(),
        ));
    }

    if !class.extends.is_empty() {
        blocks.push(heading(2, "Parents", "parents"));
        blocks.push(Block::List(
            class
                .extends
                .iter()
                .map(|t| match &t.resolved {
                    Ok(full) => vec![Inline::Link {
                        text: full.clone(),
                        class: full.clone(),
                    }],
                    Err(_) => vec![code(&t.written)],
                })
                .collect(),
        ));
    }

    if !class.import.is_empty() {
        blocks.push(heading(2, "Imports", "imports"));
        blocks.push(Block::Paragraph(vec![text(
            "Classes whose extension methods this class uses:",
        )]));
        blocks.push(Block::List(
            class
                .import
                .iter()
                .map(|t| match &t.resolved {
                    Ok(full) => vec![Inline::Link {
                        text: full.clone(),
                        class: full.clone(),
                    }],
                    Err(_) => vec![code(&t.written)],
                })
                .collect(),
        ));
    }

    if !class.properties.is_empty() {
        blocks.push(heading(2, "Properties", "properties"));
        let rows = class
            .properties
            .iter()
            .map(|p| {
                let m = meta_text(p.meta.as_ref(), ns);
                vec![
                    vec![code(&p.name)],
                    p.contract
                        .as_ref()
                        .map(|c| contract_text::describe(c, ns))
                        .unwrap_or_else(|| vec![text("-")]),
                    vec![text(p.usage.as_str())],
                    p.default
                        .as_ref()
                        .map(|d| vec![code(inline_value(&d.value))])
                        .unwrap_or_default(),
                    meta_cell(&m),
                ]
            })
            .collect();
        blocks.push(Block::Table {
            head: ["Property", "Contract", "Usage", "Default", "Description"]
                .map(String::from)
                .to_vec(),
            rows,
        });
    }

    let special: Vec<&Method> = class
        .methods
        .iter()
        .filter(|m| {
            (m.usage == MethodUsage::Static && m.scope == MethodScope::Public)
                || meta_text(m.meta.as_ref(), ns).model_builder
        })
        .collect();
    if !special.is_empty() {
        blocks.push(heading(
            2,
            "Static actions and model builders",
            "static-actions",
        ));
        blocks.push(Block::List(
            special
                .iter()
                .map(|m| {
                    let mut kinds = Vec::new();
                    if m.usage == MethodUsage::Static && m.scope == MethodScope::Public {
                        kinds.push("static action");
                    }
                    if meta_text(m.meta.as_ref(), ns).model_builder {
                        kinds.push("model builder");
                    }
                    vec![
                        code(method_signature(m)),
                        text(format!(": {}", kinds.join(", "))),
                    ]
                })
                .collect(),
        ));
    }

    if !class.methods.is_empty() {
        blocks.push(heading(2, "Methods", "methods"));
        for method in &class.methods {
            blocks.push(heading(
                3,
                &method_signature(method),
                &format!("method-{}", method.name.trim_start_matches('.')),
            ));
            let mut line = vec![text(format!(
                "Usage {}, scope {}.",
                method.usage.as_str(),
                method.scope.as_str()
            ))];
            if method.usage == MethodUsage::Action {
                line.push(text(" An action: the API and the dashboard can call it."));
            }
            blocks.push(Block::Paragraph(line));
            let m = meta_text(method.meta.as_ref(), ns);
            let cell = meta_cell(&m);
            if !cell.is_empty() {
                blocks.push(Block::Paragraph(cell));
            }
            if !method.arguments.is_empty() {
                let rows = method
                    .arguments
                    .iter()
                    .map(|a| {
                        let am = meta_text(a.meta.as_ref(), ns);
                        vec![
                            vec![code(&a.name)],
                            a.contract
                                .as_ref()
                                .map(|c| contract_text::describe(c, ns))
                                .unwrap_or_else(|| vec![text("-")]),
                            a.default
                                .as_ref()
                                .map(|d| vec![code(inline_value(&d.value))])
                                .unwrap_or_default(),
                            meta_cell(&am),
                        ]
                    })
                    .collect();
                blocks.push(Block::Table {
                    head: ["Argument", "Contract", "Default", "Description"]
                        .map(String::from)
                        .to_vec(),
                    rows,
                });
            }
        }
    }

    if let Some(ui) = ui.filter(|u| u.creates.as_deref() == Some(doc.name.as_str())) {
        blocks.push(heading(2, "UI forms", "ui-forms"));
        blocks.push(Block::Paragraph(vec![text(
            "The package's Dynamic UI creates this class from these forms, in order.",
        )]));
        for (form, fields) in &ui.forms {
            blocks.push(heading(3, form, &format!("form-{form}")));
            blocks.push(Block::Table {
                head: [
                    "Field",
                    "Type",
                    "Label",
                    "Required",
                    "Initial",
                    "Description",
                ]
                .map(String::from)
                .to_vec(),
                rows: fields
                    .iter()
                    .map(|f| {
                        vec![
                            vec![code(&f.name)],
                            vec![text(&f.kind)],
                            vec![text(&f.label)],
                            vec![text(if f.required { "yes" } else { "no" })],
                            if f.initial.is_empty() {
                                vec![]
                            } else {
                                vec![code(&f.initial)]
                            },
                            vec![text(&f.description)],
                        ]
                    })
                    .collect(),
            });
        }
    }
    Page {
        name: doc.name.clone(),
        blocks,
        documented: documented.clone(),
    }
}

fn heading(level: u8, title: &str, anchor: &str) -> Block {
    Block::Heading {
        level,
        text: vec![text(title)],
        anchor: Some(anchor.to_owned()),
    }
}

fn index_page(packages: &[&dyn Package], documented: &BTreeSet<String>) -> Page {
    let mut blocks = vec![Block::Heading {
        level: 1,
        text: vec![text("Packages")],
        anchor: None,
    }];
    for package in packages {
        blocks.push(Block::Heading {
            level: 2,
            text: vec![
                code(package.full_name()),
                text(format!(" {}", package.version())),
            ],
            anchor: Some(format!("package-{}", package.full_name())),
        });
        let description = inline_value(&package.description().value);
        let mut line = vec![text(format!(
            "{} ({}, {}).",
            inline_value(&package.display_name().value),
            package.package_type().as_str(),
            package.format_name()
        ))];
        if description != "null" && !description.is_empty() {
            line.push(text(format!(" {description}")));
        }
        blocks.push(Block::Paragraph(line));
        if let Value::Map(pairs) = &package.requirements().value {
            if !pairs.is_empty() {
                blocks.push(Block::Paragraph(
                    std::iter::once(text("Requires: "))
                        .chain(pairs.iter().enumerate().flat_map(|(i, (k, v))| {
                            let sep = if i == 0 { None } else { Some(text(", ")) };
                            sep.into_iter().chain([code(format!(
                                "{} {}",
                                k.value.python_str(),
                                inline_value(&v.value)
                            ))])
                        }))
                        .collect(),
                ));
            }
        }
        let mut classes = package.classes().unwrap_or_default();
        classes.sort();
        blocks.push(Block::List(
            classes
                .into_iter()
                .map(|c| {
                    vec![Inline::Link {
                        text: c.clone(),
                        class: c,
                    }]
                })
                .collect(),
        ));
    }
    Page {
        name: "index".into(),
        blocks,
        documented: documented.clone(),
    }
}

/// The pages of the packages: the index first, then a page per class in
/// name order. Links go to classes of any of the packages.
pub fn document(packages: &[&dyn Package]) -> Vec<Page> {
    let mut docs = Vec::new();
    let mut uis = Vec::new();
    for &package in packages {
        let ui = package.ui().ok().flatten().and_then(|b| read_ui(&b));
        for name in package.classes().unwrap_or_default() {
            docs.push((read_class(package, &name), uis.len()));
        }
        uis.push(ui);
    }
    docs.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    let documented: BTreeSet<String> = docs.iter().map(|(d, _)| d.name.clone()).collect();
    let mut pages = vec![index_page(packages, &documented)];
    for (doc, ui) in &docs {
        pages.push(class_page(doc, uis[*ui].as_ref(), &documented));
    }
    pages
}

/// Markdown text: `|` and line breaks escaped in table cells.
fn md_inline(inlines: &[Inline], documented: &BTreeSet<String>, in_table: bool) -> String {
    let mut out = String::new();
    for i in inlines {
        match i {
            Inline::Text(t) => out.push_str(t),
            Inline::Code(c) => {
                let ticks = if c.contains('`') { "``" } else { "`" };
                let pad = if c.contains('`') { " " } else { "" };
                out.push_str(&format!("{ticks}{pad}{c}{pad}{ticks}"));
            }
            Inline::Link { text, class } if documented.contains(class) => {
                out.push_str(&format!("[`{text}`]({class}.md)"))
            }
            Inline::Link { text, .. } => out.push_str(&format!("`{text}`")),
        }
    }
    if in_table {
        out = out.replace('|', "\\|").replace('\n', " ");
    }
    out
}

/// A page as Markdown.
pub fn render_markdown(page: &Page) -> String {
    let d = &page.documented;
    let mut out = String::new();
    for block in &page.blocks {
        match block {
            Block::Heading {
                level,
                text,
                anchor,
            } => {
                if let Some(a) = anchor {
                    out.push_str(&format!("<a id=\"{a}\"></a>\n\n"));
                }
                out.push_str(&format!(
                    "{} {}\n\n",
                    "#".repeat(usize::from(*level)),
                    md_inline(text, d, false)
                ));
            }
            Block::Paragraph(text) => out.push_str(&format!("{}\n\n", md_inline(text, d, false))),
            Block::List(items) => {
                for item in items {
                    out.push_str(&format!("- {}\n", md_inline(item, d, false)));
                }
                out.push('\n');
            }
            Block::Table { head, rows } => {
                out.push_str(&format!("| {} |\n", head.join(" | ")));
                out.push_str(&format!("|{}\n", "---|".repeat(head.len())));
                for row in rows {
                    let cells: Vec<String> = row.iter().map(|c| md_inline(c, d, true)).collect();
                    out.push_str(&format!("| {} |\n", cells.join(" | ")));
                }
                out.push('\n');
            }
        }
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.push('\n');
    out
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn html_inline(inlines: &[Inline], documented: &BTreeSet<String>) -> String {
    inlines
        .iter()
        .map(|i| match i {
            Inline::Text(t) => html_escape(t),
            Inline::Code(c) => format!("<code>{}</code>", html_escape(c)),
            Inline::Link { text, class } if documented.contains(class) => format!(
                "<a href=\"{}.html\"><code>{}</code></a>",
                html_escape(class),
                html_escape(text)
            ),
            Inline::Link { text, .. } => format!("<code>{}</code>", html_escape(text)),
        })
        .collect()
}

/// A page as a standalone HTML document.
pub fn render_html(page: &Page) -> String {
    let d = &page.documented;
    let mut body = String::new();
    for block in &page.blocks {
        match block {
            Block::Heading {
                level,
                text,
                anchor,
            } => {
                let id = anchor
                    .as_ref()
                    .map(|a| format!(" id=\"{}\"", html_escape(a)))
                    .unwrap_or_default();
                body.push_str(&format!(
                    "<h{level}{id}>{}</h{level}>\n",
                    html_inline(text, d)
                ));
            }
            Block::Paragraph(text) => body.push_str(&format!("<p>{}</p>\n", html_inline(text, d))),
            Block::List(items) => {
                body.push_str("<ul>\n");
                for item in items {
                    body.push_str(&format!("<li>{}</li>\n", html_inline(item, d)));
                }
                body.push_str("</ul>\n");
            }
            Block::Table { head, rows } => {
                body.push_str("<table>\n<tr>");
                for h in head {
                    body.push_str(&format!("<th>{}</th>", html_escape(h)));
                }
                body.push_str("</tr>\n");
                for row in rows {
                    body.push_str("<tr>");
                    for cell in row {
                        body.push_str(&format!("<td>{}</td>", html_inline(cell, d)));
                    }
                    body.push_str("</tr>\n");
                }
                body.push_str("</table>\n");
            }
        }
    }
    format!(
        "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n</head>\n<body>\n{body}</body>\n</html>\n",
        html_escape(&page.name)
    )
}

#[cfg(test)]
mod value_tests {
    use super::*;

    #[test]
    fn long_and_aliased_values_are_cut() {
        let text = format!(
            "a: &a {}\nb: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n",
            "x".repeat(100_000)
        );
        let doc = load_class_file(text.as_bytes(), &LoadOptions::default()).unwrap();
        let b = doc.documents[0].value.get("b").unwrap();
        let shown = inline_value(&b.value);
        assert_eq!(shown.chars().count(), MAX_VALUE_TEXT + 1, "{}", shown.len());
        assert!(shown.ends_with('…'));
        assert_eq!(inline_value(&Value::Str("short".into())), "short");
    }
}
