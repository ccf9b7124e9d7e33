//! The tables of Murano's database (`murano/db/models.py`), as the API
//! stores them: one SQLite table per Murano table, the same columns.

/// How a column's value is stored and rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Text.
    Text,
    /// Integer.
    Int,
    /// Floating point.
    Float,
    /// Boolean (stored 0/1).
    Bool,
    /// UTC time, stored `YYYY-MM-DDTHH:MM:SS.ffffff`.
    Time,
    /// A JSON value, stored as JSON text.
    Json,
    /// Binary.
    Bytes,
}

/// One column.
#[derive(Debug)]
pub struct Column {
    /// Its name.
    pub name: &'static str,
    /// Its kind.
    pub kind: Kind,
    /// Part of the primary key.
    pub primary_key: bool,
}

/// One table.
#[derive(Debug)]
pub struct Table {
    /// Its name.
    pub name: &'static str,
    /// Its columns, in order.
    pub columns: &'static [Column],
    /// Unique column sets.
    pub unique: &'static [&'static [&'static str]],
}

/// Every table.
pub static TABLES: &[Table] = &[
    Table {
        name: "category",
        columns: &[
            Column {
                name: "created",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "updated",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "id",
                kind: Kind::Text,
                primary_key: true,
            },
            Column {
                name: "name",
                kind: Kind::Text,
                primary_key: false,
            },
        ],
        unique: &[&["name"]],
    },
    Table {
        name: "environment",
        columns: &[
            Column {
                name: "created",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "updated",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "id",
                kind: Kind::Text,
                primary_key: true,
            },
            Column {
                name: "name",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "tenant_id",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "description_text",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "version",
                kind: Kind::Int,
                primary_key: false,
            },
            Column {
                name: "description",
                kind: Kind::Json,
                primary_key: false,
            },
        ],
        unique: &[&["name", "tenant_id"]],
    },
    Table {
        name: "environment-template",
        columns: &[
            Column {
                name: "created",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "updated",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "id",
                kind: Kind::Text,
                primary_key: true,
            },
            Column {
                name: "name",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "tenant_id",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "description_text",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "version",
                kind: Kind::Int,
                primary_key: false,
            },
            Column {
                name: "description",
                kind: Kind::Json,
                primary_key: false,
            },
            Column {
                name: "is_public",
                kind: Kind::Bool,
                primary_key: false,
            },
        ],
        unique: &[],
    },
    Table {
        name: "instance_stats",
        columns: &[
            Column {
                name: "environment_id",
                kind: Kind::Text,
                primary_key: true,
            },
            Column {
                name: "instance_id",
                kind: Kind::Text,
                primary_key: true,
            },
            Column {
                name: "instance_type",
                kind: Kind::Int,
                primary_key: false,
            },
            Column {
                name: "created",
                kind: Kind::Int,
                primary_key: false,
            },
            Column {
                name: "destroyed",
                kind: Kind::Int,
                primary_key: false,
            },
            Column {
                name: "type_name",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "type_title",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "unit_count",
                kind: Kind::Int,
                primary_key: false,
            },
            Column {
                name: "tenant_id",
                kind: Kind::Text,
                primary_key: false,
            },
        ],
        unique: &[],
    },
    Table {
        name: "package",
        columns: &[
            Column {
                name: "created",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "updated",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "id",
                kind: Kind::Text,
                primary_key: true,
            },
            Column {
                name: "archive",
                kind: Kind::Bytes,
                primary_key: false,
            },
            Column {
                name: "fully_qualified_name",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "type",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "author",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "supplier",
                kind: Kind::Json,
                primary_key: false,
            },
            Column {
                name: "name",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "enabled",
                kind: Kind::Bool,
                primary_key: false,
            },
            Column {
                name: "description",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "is_public",
                kind: Kind::Bool,
                primary_key: false,
            },
            Column {
                name: "logo",
                kind: Kind::Bytes,
                primary_key: false,
            },
            Column {
                name: "owner_id",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "ui_definition",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "supplier_logo",
                kind: Kind::Bytes,
                primary_key: false,
            },
        ],
        unique: &[&["fully_qualified_name", "owner_id"]],
    },
    Table {
        name: "tag",
        columns: &[
            Column {
                name: "created",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "updated",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "id",
                kind: Kind::Text,
                primary_key: true,
            },
            Column {
                name: "name",
                kind: Kind::Text,
                primary_key: false,
            },
        ],
        unique: &[&["name"]],
    },
    Table {
        name: "class_definition",
        columns: &[
            Column {
                name: "created",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "updated",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "id",
                kind: Kind::Text,
                primary_key: true,
            },
            Column {
                name: "name",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "package_id",
                kind: Kind::Text,
                primary_key: false,
            },
        ],
        unique: &[],
    },
    Table {
        name: "package_to_category",
        columns: &[
            Column {
                name: "package_id",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "category_id",
                kind: Kind::Text,
                primary_key: false,
            },
        ],
        unique: &[],
    },
    Table {
        name: "package_to_tag",
        columns: &[
            Column {
                name: "package_id",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "tag_id",
                kind: Kind::Text,
                primary_key: false,
            },
        ],
        unique: &[],
    },
    Table {
        name: "session",
        columns: &[
            Column {
                name: "created",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "updated",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "id",
                kind: Kind::Text,
                primary_key: true,
            },
            Column {
                name: "environment_id",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "user_id",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "state",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "description",
                kind: Kind::Json,
                primary_key: false,
            },
            Column {
                name: "version",
                kind: Kind::Int,
                primary_key: false,
            },
        ],
        unique: &[],
    },
    Table {
        name: "task",
        columns: &[
            Column {
                name: "created",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "updated",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "id",
                kind: Kind::Text,
                primary_key: true,
            },
            Column {
                name: "started",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "finished",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "description",
                kind: Kind::Json,
                primary_key: false,
            },
            Column {
                name: "environment_id",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "action",
                kind: Kind::Json,
                primary_key: false,
            },
            Column {
                name: "result",
                kind: Kind::Json,
                primary_key: false,
            },
        ],
        unique: &[],
    },
    Table {
        name: "status",
        columns: &[
            Column {
                name: "created",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "updated",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "id",
                kind: Kind::Text,
                primary_key: true,
            },
            Column {
                name: "entity_id",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "entity",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "task_id",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "text",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "level",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "details",
                kind: Kind::Text,
                primary_key: false,
            },
        ],
        unique: &[],
    },
    Table {
        name: "apistats",
        columns: &[
            Column {
                name: "created",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "updated",
                kind: Kind::Time,
                primary_key: false,
            },
            Column {
                name: "id",
                kind: Kind::Int,
                primary_key: true,
            },
            Column {
                name: "host",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "request_count",
                kind: Kind::Int,
                primary_key: false,
            },
            Column {
                name: "error_count",
                kind: Kind::Int,
                primary_key: false,
            },
            Column {
                name: "average_response_time",
                kind: Kind::Float,
                primary_key: false,
            },
            Column {
                name: "requests_per_tenant",
                kind: Kind::Text,
                primary_key: false,
            },
            Column {
                name: "requests_per_second",
                kind: Kind::Float,
                primary_key: false,
            },
            Column {
                name: "errors_per_second",
                kind: Kind::Float,
                primary_key: false,
            },
            Column {
                name: "cpu_count",
                kind: Kind::Int,
                primary_key: false,
            },
            Column {
                name: "cpu_percent",
                kind: Kind::Float,
                primary_key: false,
            },
        ],
        unique: &[],
    },
];

/// The table named `name`.
pub fn table(name: &str) -> Option<&'static Table> {
    TABLES.iter().find(|t| t.name == name)
}

/// The DDL creating every table.
pub fn ddl() -> String {
    let mut out = String::new();
    for t in TABLES {
        let cols: Vec<String> = t
            .columns
            .iter()
            .map(|c| {
                let ty = match c.kind {
                    Kind::Int | Kind::Bool => "INTEGER",
                    Kind::Float => "REAL",
                    Kind::Bytes => "BLOB",
                    _ => "TEXT",
                };
                format!("\"{}\" {}", c.name, ty)
            })
            .collect();
        let mut parts = cols;
        let pk: Vec<String> = t
            .columns
            .iter()
            .filter(|c| c.primary_key)
            .map(|c| format!("\"{}\"", c.name))
            .collect();
        if !pk.is_empty() {
            parts.push(format!("PRIMARY KEY ({})", pk.join(", ")));
        }
        for u in t.unique {
            let cs: Vec<String> = u.iter().map(|c| format!("\"{c}\"")).collect();
            parts.push(format!("UNIQUE ({})", cs.join(", ")));
        }
        out.push_str(&format!(
            "CREATE TABLE IF NOT EXISTS \"{}\" ({});\n",
            t.name,
            parts.join(", ")
        ));
    }
    // The lookups every listing makes (a package's classes, tags and
    // categories; an environment's sessions and tasks; a task's reports).
    for (table, column) in INDEXED {
        out.push_str(&format!(
            "CREATE INDEX IF NOT EXISTS \"ix_{table}_{column}\" ON \"{table}\" (\"{column}\");\n"
        ));
    }
    out
}

/// Columns with an index of their own (foreign keys looked up by value).
const INDEXED: &[(&str, &str)] = &[
    ("class_definition", "package_id"),
    ("package_to_tag", "package_id"),
    ("package_to_category", "package_id"),
    ("session", "environment_id"),
    ("task", "environment_id"),
    ("status", "task_id"),
];
