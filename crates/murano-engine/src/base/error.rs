//! Errors of the engine: MuranoPL exceptions, engine errors named after
//! the Python exception Murano raises, limits, and what is not supported
//! yet.

use std::fmt;

use murano_yaql::eval::{Error as YaqlError, ErrorKind as YaqlErrorKind};

/// One frame of a MuranoPL stack trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackFrame {
    /// The class file the instruction comes from (as the package names it).
    pub file: Option<String>,
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub column: u32,
    /// The method.
    pub method: String,
    /// The class declaring the method.
    pub class: String,
    /// The instruction running: the text of the expression evaluated
    /// last, or `None` for a block construct (`If`, `Throw`, ...).
    pub instruction: Option<String>,
}

impl StackFrame {
    /// The root frame of a call chain that a native method started (a
    /// host body calling back into MuranoPL): no file, line 0, empty
    /// method and class. Murano prints it as `File <unknown> in method
    /// None`.
    pub fn unknown() -> StackFrame {
        StackFrame {
            file: None,
            line: 0,
            column: 0,
            method: String::new(),
            class: String::new(),
            instruction: None,
        }
    }

    /// Whether this is [`StackFrame::unknown`].
    pub fn is_unknown(&self) -> bool {
        self.line == 0 && self.method.is_empty() && self.class.is_empty()
    }
}

/// What kind of failure an [`EngineError`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A MuranoPL `Throw` (Murano's `MuranoPlException`): the thrown names
    /// (namespaces resolved), message and `Extra`.
    Thrown {
        /// The exception names.
        names: Vec<String>,
        /// `Extra`, when given.
        extra: Option<murano_yaql::eval::Value>,
    },
    /// An error Murano's engine raises, by its Python class name
    /// (`ContractViolationException`, `NoMethodFound`, ...) and module.
    Engine {
        /// Python class name.
        type_name: String,
        /// Python module.
        module: String,
    },
    /// An error raised inside a YAQL expression (yaql's exception classes
    /// and the Python built-ins they raise).
    Yaql(YaqlErrorKind),
    /// An error raised by a host (native) function, by its Python-like
    /// class name and module.
    Host {
        /// Class name (`LookupError`, `CustomException`).
        type_name: String,
        /// Module (`builtins` for Python's own).
        module: String,
    },
    /// A limit of [`crate::Limits`] was reached. Never caught by MuranoPL
    /// `Catch`.
    Limit(LimitKind),
    /// An instruction, function or feature this engine does not run yet.
    /// Never caught by MuranoPL `Catch`.
    NotSupported,
}

/// Which limit stopped execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitKind {
    /// [`crate::Limits::fuel`]: statements and calls.
    Fuel,
    /// [`crate::Limits::max_call_depth`].
    CallDepth,
    /// [`crate::Limits::max_objects`].
    Objects,
    /// [`crate::Limits::max_threads`], or the system refused a thread.
    Threads,
    /// Every green thread waits on another (a method lock held by a
    /// thread that waits for its `Parallel` branches): Murano hangs
    /// forever there; this engine stops.
    Deadlock,
    /// [`crate::Limits::max_memory`]: the strings and collections the run
    /// holds.
    Memory,
}

/// An engine error: its kind, message and the MuranoPL frames it unwound
/// through (innermost first).
#[derive(Debug, Clone, PartialEq)]
pub struct EngineError {
    /// The kind.
    pub kind: ErrorKind,
    /// The message (Murano's wording where known).
    pub message: String,
    /// MuranoPL frames, innermost first: the whole call chain where the
    /// error first left a MuranoPL instruction (see [`StackFrame::unknown`]
    /// for the root of a chain a native method started).
    pub frames: Vec<StackFrame>,
    /// The error this one wraps (`Throw` with `Cause`).
    pub cause: Option<Box<EngineError>>,
}

impl EngineError {
    /// A new error without frames.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> EngineError {
        EngineError {
            kind,
            message: message.into(),
            frames: Vec::new(),
            cause: None,
        }
    }

    /// An engine error named after Murano's Python class in
    /// `murano.dsl.exceptions`.
    pub fn dsl(type_name: &str, message: impl Into<String>) -> EngineError {
        EngineError::new(
            ErrorKind::Engine {
                type_name: type_name.into(),
                module: "murano.dsl.exceptions".into(),
            },
            message,
        )
    }

    /// "Not supported yet": `what` names the instruction or function.
    pub fn not_supported(what: impl fmt::Display) -> EngineError {
        EngineError::new(
            ErrorKind::NotSupported,
            format!("{what} is not supported by this engine yet"),
        )
    }

    /// A limit error.
    pub fn limit(kind: LimitKind, message: impl Into<String>) -> EngineError {
        EngineError::new(ErrorKind::Limit(kind), message)
    }

    /// An error from a YAQL evaluation.
    pub fn from_yaql(e: &YaqlError) -> EngineError {
        EngineError::new(ErrorKind::Yaql(e.kind()), e.message())
    }

    /// The Python class name Murano would report.
    pub fn python_type(&self) -> &str {
        match &self.kind {
            ErrorKind::Thrown { .. } => "MuranoPlException",
            ErrorKind::Engine { type_name, .. } | ErrorKind::Host { type_name, .. } => type_name,
            ErrorKind::Yaql(k) => k.python_name(),
            ErrorKind::Limit(_) => "LimitExceeded",
            ErrorKind::NotSupported => "NotSupported",
        }
    }

    /// The Python module of [`EngineError::python_type`].
    pub fn python_module(&self) -> &str {
        match &self.kind {
            ErrorKind::Thrown { .. } => "murano.dsl.exceptions",
            ErrorKind::Engine { module, .. } | ErrorKind::Host { module, .. } => module,
            ErrorKind::Yaql(k) => match k.python_bases().first() {
                Some(&"FunctionResolutionError") | Some(&"YaqlException") => {
                    "yaql.language.exceptions"
                }
                _ => "builtins",
            },
            ErrorKind::Limit(_) | ErrorKind::NotSupported => "murano_engine",
        }
    }

    /// Whether MuranoPL `Catch` may handle it (limits and unsupported
    /// features are never caught, so `While: true` always ends).
    pub fn catchable(&self) -> bool {
        !matches!(self.kind, ErrorKind::Limit(_) | ErrorKind::NotSupported)
    }

    /// The names a `Catch: With:` matches: the thrown names, or for other
    /// errors the Python class name qualified as Murano qualifies it
    /// (`module.Class`, or just `Class` for built-ins).
    pub fn murano_names(&self) -> Vec<String> {
        match &self.kind {
            ErrorKind::Thrown { names, .. } => names.clone(),
            _ => {
                let module = self.python_module();
                if module == "builtins" {
                    vec![self.python_type().to_owned()]
                } else {
                    vec![format!("{module}.{}", self.python_type())]
                }
            }
        }
    }
}

impl EngineError {
    /// Murano's text for the exception (`MuranoPlException.format()`):
    /// names and message, then the MuranoPL frames, outermost first, each
    /// with the instruction it was running (`block construct` for a block
    /// construct); an error raised by the engine or a host ends with one
    /// `<host frames>` line where Murano lists its Python frames; then
    /// the cause. Files are named as the package names them (Murano
    /// prints absolute paths).
    pub fn formatted(&self) -> String {
        self.format_with("")
    }

    fn format_with(&self, prefix: &str) -> String {
        let names = self.murano_names();
        let name = match names.as_slice() {
            [] => String::new(),
            [one] => one.clone(),
            many => format!(
                "[{}]",
                many.iter()
                    .map(|n| format!("'{n}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let inner = format!("{prefix}  ");
        let mut lines: Vec<String> = self
            .frames
            .iter()
            .rev()
            .map(|f| {
                if f.is_unknown() {
                    // The root of a chain a native method started.
                    return format!("{inner}File <unknown> in method None\n{inner}    None");
                }
                let instruction = f.instruction.as_deref().unwrap_or("block construct");
                match &f.file {
                    Some(file) => format!(
                        "{inner}File \"{file}\", line {}:{} in method {} of type {}\n{inner}    {instruction}",
                        f.line, f.column, f.method, f.class
                    ),
                    None => format!(
                        "{inner}File <unknown> in method {} of type {}\n{inner}    {instruction}",
                        f.method, f.class
                    ),
                }
            })
            .collect();
        if !matches!(self.kind, ErrorKind::Thrown { .. }) {
            lines.push(format!("{inner}<host frames>"));
        }
        let mut text = format!(
            "{prefix}{name}: {}\n{prefix}Traceback (most recent call last):\n{}",
            self.message,
            lines.join("\n")
        );
        if let Some(cause) = &self.cause {
            text.push_str(&format!(
                "\n\n{prefix} Caused by {}",
                cause.format_with(&format!("{prefix} ")).trim_start()
            ));
        }
        text
    }
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.python_type(), self.message)
    }
}

impl std::error::Error for EngineError {}
