//! The table of every diagnostic code, of every layer.

use crate::diagnostic::Severity;

/// The layer that emits a code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Layer {
    /// murano-pkg-check's code, assigned as it assigns it
    /// (`murano_packages::check`, `E000`–`E204`, `W010`–`W202`).
    PkgCheck,
    /// An issue of the class model (`murano_dsl::model`, `M100`–`M303`).
    Model,
    /// A check of `murano_packages::check` beyond murano-pkg-check
    /// (`M400`–`M410`, `M420`–`M423`).
    Checker,
    /// The class registry, linking classes across packages
    /// (`murano_dsl::registry`, `R1xx`).
    Registry,
    /// Object models (`murano_dsl::object_model`, `OM1xx`–`OM3xx`).
    ObjectModel,
    /// The tool that reads packages from disk or archives (the `murano`
    /// command line, `M001`–`M005`), not `murano_packages::check`: the
    /// package could not be read whole.
    Reader,
}

impl Layer {
    /// The name `docs/diagnostics.md` gives the layer in its Origin
    /// column.
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::PkgCheck => "pkg-check",
            Layer::Model => "model",
            Layer::Checker => "checker",
            Layer::Registry => "registry",
            Layer::ObjectModel => "object-model",
            Layer::Reader => "reader",
        }
    }
}

/// One code of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CodeInfo {
    /// The code.
    pub code: &'static str,
    /// Its default severity.
    pub severity: Severity,
    /// The layer that emits it.
    pub layer: Layer,
    /// What it means, in one line.
    pub summary: &'static str,
}

const fn c(
    code: &'static str,
    severity: Severity,
    layer: Layer,
    summary: &'static str,
) -> CodeInfo {
    CodeInfo {
        code,
        severity,
        layer,
        summary,
    }
}

use Layer::{Checker, Model, ObjectModel, PkgCheck, Reader, Registry};
use Severity::{Error, Warning};

/// Every code any layer emits, sorted by code.
pub const CODES: &[CodeInfo] = &[
    c(
        "E000",
        Error,
        PkgCheck,
        "one of murano-pkg-check's checks would crash on this value",
    ),
    c("E002", Error, PkgCheck, "the file is not valid YAML"),
    c(
        "E005",
        Error,
        PkgCheck,
        "several YAML documents in a manifest or UI file, or a malformed Require",
    ),
    c("E011", Error, PkgCheck, "invalid class Name"),
    c(
        "E020",
        Error,
        PkgCheck,
        "a required manifest key is missing",
    ),
    c(
        "E021",
        Error,
        PkgCheck,
        "unknown key in a property, method, argument or form",
    ),
    c(
        "E025",
        Error,
        PkgCheck,
        "invalid class name in Extends or Import",
    ),
    c("E026", Error, PkgCheck, "Properties is not a mapping"),
    c(
        "E027",
        Error,
        PkgCheck,
        "Cardinality is not One or Many, or Inherited is not a boolean",
    ),
    c("E028", Error, PkgCheck, "invalid Applies value"),
    c(
        "E030",
        Error,
        PkgCheck,
        "manifest Description is not a string",
    ),
    c("E040", Error, PkgCheck, "value should be a string"),
    c("E042", Error, PkgCheck, "invalid property Usage"),
    c(
        "E044",
        Error,
        PkgCheck,
        "Namespaces is not a mapping, or an invalid or too early Scope",
    ),
    c(
        "E045",
        Error,
        PkgCheck,
        "Body is not a list, a string or a mapping",
    ),
    c(
        "E046",
        Error,
        PkgCheck,
        "Methods, a method or its Arguments have the wrong type",
    ),
    c("E047", Error, PkgCheck, "property without Contract"),
    c(
        "E048",
        Error,
        PkgCheck,
        "Arguments written as one mapping with several keys",
    ),
    c(
        "E050",
        Error,
        PkgCheck,
        "class file listed in the manifest is missing",
    ),
    c("E052", Error, PkgCheck, "argument Usage before format 1.4"),
    c("E053", Error, PkgCheck, "invalid argument Usage"),
    c("E054", Error, PkgCheck, "invalid method or argument name"),
    c("E060", Error, PkgCheck, "invalid namespace prefix"),
    c("E070", Error, PkgCheck, "Tags is not a list"),
    c("E071", Error, PkgCheck, "invalid manifest Type or Version"),
    c("E072", Error, PkgCheck, "manifest UI is not a string"),
    c("E073", Error, PkgCheck, "invalid manifest FullName"),
    c(
        "E074",
        Error,
        PkgCheck,
        "manifest Logo is not a string, or Classes is not a mapping",
    ),
    c(
        "E081",
        Error,
        PkgCheck,
        "UI field attribute should be a boolean",
    ),
    c(
        "E083",
        Error,
        PkgCheck,
        "invalid name in a UI Application section",
    ),
    c("E084", Error, PkgCheck, "UI Application is not a mapping"),
    c("E100", Error, PkgCheck, "UI field type is not a valid name"),
    c(
        "E200",
        Error,
        PkgCheck,
        "Break, Continue or Rethrow with a value",
    ),
    c(
        "E201",
        Error,
        PkgCheck,
        "invalid assignment target, or unknown key in an instruction",
    ),
    c(
        "E203",
        Error,
        PkgCheck,
        "instruction value should be a string",
    ),
    c("E204", Error, PkgCheck, "wrong instruction structure"),
    c(
        "H100",
        Error,
        Checker,
        "Heat.HOT template: Heat cannot load it (not JSON or YAML, not a mapping, no version key, too large)",
    ),
    c(
        "H101",
        Error,
        Checker,
        "Heat.HOT template: the template version is invalid",
    ),
    c(
        "H102",
        Error,
        Checker,
        "Heat.HOT template: a parameter schema or default is invalid",
    ),
    c(
        "H103",
        Error,
        Checker,
        "Heat.HOT template: Heat's template-validate refuses it (sections, resources, outputs, references, dependency loops, functions)",
    ),
    c(
        "H104",
        Error,
        Checker,
        "Heat.HOT template: it exceeds a limit for hostile input (depth, size, function nesting)",
    ),
    c(
        "H110",
        Error,
        Checker,
        "Heat.HOT package whose manifest Murano refuses",
    ),
    c(
        "H111",
        Error,
        Checker,
        "Heat.HOT template that cannot become a MuranoPL class",
    ),
    c(
        "H112",
        Error,
        Checker,
        "class generated from a Heat.HOT template that does not load or is invalid",
    ),
    c(
        "H113",
        Error,
        Checker,
        "Heat.HOT template from which no valid UI definition can be generated",
    ),
    c(
        "M001",
        Error,
        Reader,
        "the package cannot be read (a damaged or refused archive, an I/O error)",
    ),
    c(
        "M002",
        Error,
        Reader,
        "a file or the package is larger than the size limit; it was not read",
    ),
    c(
        "M003",
        Error,
        Reader,
        "no manifest.yaml: the folder or archive is not a package",
    ),
    c(
        "M004",
        Warning,
        Reader,
        "a symbolic link in the package folder was skipped",
    ),
    c(
        "M005",
        Warning,
        Reader,
        "several entries of the archive name the same file; the last one is read",
    ),
    c("M100", Error, Model, "a class document is not a mapping"),
    c(
        "M101",
        Error,
        Model,
        "class Name is not a string or does not resolve",
    ),
    c("M102", Error, Model, "class Usage is not Class or Meta"),
    c(
        "M103",
        Error,
        Model,
        "an Extends entry is not a class name or does not resolve",
    ),
    c(
        "M104",
        Error,
        Model,
        "an Import entry is not a class name or does not resolve",
    ),
    c("M105", Error, Model, "Properties is not a mapping"),
    c("M106", Error, Model, "Methods is not a mapping"),
    c("M107", Error, Model, "invalid Namespaces"),
    c(
        "M108",
        Error,
        Model,
        "meta class Cardinality is not One or Many",
    ),
    c("M109", Error, Model, "invalid meta class Applies target"),
    c(
        "M110",
        Error,
        Model,
        "meta class Inherited is not a boolean",
    ),
    c(
        "M111",
        Warning,
        Model,
        "unknown key in a class (the engine ignores it)",
    ),
    c("M200", Error, Model, "property name is not a string"),
    c(
        "M201",
        Error,
        Model,
        "property declaration is not a mapping",
    ),
    c("M202", Error, Model, "property without Contract"),
    c("M203", Error, Model, "unknown property Usage"),
    c(
        "M204",
        Warning,
        Model,
        "unknown key in a property (the engine ignores it)",
    ),
    c("M210", Error, Model, "method name is not a string"),
    c("M211", Error, Model, "method declaration is not a mapping"),
    c("M212", Error, Model, "unknown method Usage"),
    c("M213", Error, Model, "unknown method Scope"),
    c(
        "M214",
        Error,
        Model,
        "both Usage: Action and Scope: Session",
    ),
    c(
        "M215",
        Warning,
        Model,
        "unknown key in a method (the engine ignores it)",
    ),
    c(
        "M220",
        Error,
        Model,
        "an argument is not a mapping with exactly one entry",
    ),
    c("M221", Error, Model, "unknown argument Usage"),
    c(
        "M222",
        Error,
        Model,
        "argument out of order (after VarArgs or KwArgs)",
    ),
    c(
        "M223",
        Error,
        Model,
        "argument declaration is not a mapping",
    ),
    c("M224", Error, Model, "argument without Contract"),
    c(
        "M225",
        Warning,
        Model,
        "unknown key in an argument (the engine ignores it)",
    ),
    c(
        "M300",
        Error,
        Model,
        "body item is neither a YAQL expression nor a mapping",
    ),
    c("M301", Error, Model, "assignment with more than one entry"),
    c("M302", Error, Model, "invalid assignment target"),
    c("M303", Error, Model, "no instruction has these keys"),
    c(
        "M400",
        Error,
        Checker,
        "the engine's YAML loader refuses the class file",
    ),
    c(
        "M401",
        Error,
        Checker,
        "namespace prefix used but not declared",
    ),
    c(
        "M402",
        Error,
        Checker,
        "contract calls a function that is not a contract function",
    ),
    c(
        "M403",
        Warning,
        Checker,
        "class that no package of the catalog defines",
    ),
    c(
        "M404",
        Warning,
        Checker,
        "class of a package that is not in Require",
    ),
    c(
        "M405",
        Error,
        Checker,
        "meta class with Cardinality One attached twice",
    ),
    c(
        "M406",
        Error,
        Checker,
        "class file does not declare the class the manifest maps to it",
    ),
    c(
        "M407",
        Error,
        Checker,
        "cyclic Extends: the class hierarchy comes back to a class",
    ),
    c(
        "M408",
        Warning,
        Checker,
        "a key written twice in one mapping (the last value wins)",
    ),
    c(
        "M409",
        Error,
        Checker,
        "property or argument Default that violates its own Contract",
    ),
    c(
        "M410",
        Error,
        Checker,
        "meta class attached where its Applies does not allow it",
    ),
    c(
        "M420",
        Warning,
        Checker,
        "a package in Require that no catalog path holds",
    ),
    c(
        "M421",
        Warning,
        Checker,
        "`$.name` on the object for a property neither its class nor its ancestors declare",
    ),
    c(
        "M422",
        Warning,
        Checker,
        "an optional UI text field gives a property that has a Default, which the empty string overrides",
    ),
    c(
        "M423",
        Warning,
        Checker,
        "class named in a UI definition that neither the package nor the catalog defines",
    ),
    c(
        "OM101",
        Warning,
        ObjectModel,
        "a second object with an id already used in the same section",
    ),
    c(
        "OM102",
        Warning,
        ObjectModel,
        "an object id that is not a string",
    ),
    c(
        "OM103",
        Warning,
        ObjectModel,
        "a destruction subscriber the model does not hold (Murano skips it)",
    ),
    c(
        "OM104",
        Warning,
        ObjectModel,
        "an attribute of an object the model does not hold (Murano drops it)",
    ),
    c(
        "OM201",
        Error,
        ObjectModel,
        "a property name that is not a keyword (Murano cannot load the object)",
    ),
    c(
        "OM202",
        Error,
        ObjectModel,
        "a property key that is not a string (Murano cannot load the object)",
    ),
    c(
        "OM301",
        Warning,
        ObjectModel,
        "unknown key in the system section `?` (the engine ignores and drops it)",
    ),
    c(
        "OM302",
        Warning,
        ObjectModel,
        "a top-level object without type",
    ),
    c(
        "OM303",
        Error,
        ObjectModel,
        "the system section `?` is not a mapping",
    ),
    c(
        "R100",
        Error,
        Registry,
        "an Extends entry (or the implicit io.murano.Object) does not resolve",
    ),
    c(
        "R101",
        Error,
        Registry,
        "a name resolves only outside the packages its package can see",
    ),
    c("R102", Error, Registry, "a class extends a meta class"),
    c(
        "R103",
        Error,
        Registry,
        "the class extends itself, directly or through other classes",
    ),
    c(
        "R104",
        Error,
        Registry,
        "packages of the hierarchy require one package with different specs",
    ),
    c("R110", Error, Registry, "an Import entry does not resolve"),
    c(
        "R120",
        Error,
        Registry,
        "a Meta entry is a mapping with other than one key",
    ),
    c(
        "R121",
        Error,
        Registry,
        "a Meta entry names no class that can be found",
    ),
    c(
        "R122",
        Error,
        Registry,
        "a Meta entry names a class that is not a meta class",
    ),
    c(
        "R123",
        Error,
        Registry,
        "a meta class attached where its Applies does not allow",
    ),
    c(
        "R124",
        Error,
        Registry,
        "a meta class of Cardinality One attached twice to one target",
    ),
    c(
        "R125",
        Error,
        Registry,
        "inherited meta of Cardinality One reaches a target from two classes",
    ),
    c("W010", Warning, PkgCheck, "unknown top-level key"),
    c("W011", Warning, PkgCheck, "class name not in CamelCase"),
    c(
        "W020",
        Warning,
        PkgCheck,
        "file in Classes/ not listed in the manifest",
    ),
    c("W030", Warning, PkgCheck, "unsupported Format"),
    c(
        "W045",
        Warning,
        PkgCheck,
        "method Usage unsupported or deprecated for the format",
    ),
    c(
        "W048",
        Warning,
        PkgCheck,
        "contract is not a valid YAQL contract",
    ),
    c("W060", Warning, PkgCheck, "namespace is not a dotted name"),
    c("W073", Warning, PkgCheck, "UI file missing"),
    c("W074", Warning, PkgCheck, "logo file missing"),
    c("W082", Warning, PkgCheck, "unknown UI Version"),
    c(
        "W100",
        Warning,
        PkgCheck,
        "unknown UI field type (probably a typo)",
    ),
    c(
        "W120",
        Warning,
        PkgCheck,
        "unknown file at the package root",
    ),
    c(
        "W121",
        Warning,
        PkgCheck,
        "manifest.yaml or LICENSE missing",
    ),
    c(
        "W202",
        Warning,
        PkgCheck,
        "not a valid YAQL expression in an instruction",
    ),
];

/// The table row of a code.
pub fn code_info(code: &str) -> Option<&'static CodeInfo> {
    CODES
        .binary_search_by(|info| info.code.cmp(code))
        .ok()
        .map(|i| &CODES[i])
}
