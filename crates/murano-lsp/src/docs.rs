//! Short texts for hover and completion on what no index describes:
//! contract functions, UI field types and manifest keys.

/// MuranoPL's contract functions (`Contract: $.string().notNull()`).
pub(crate) const CONTRACT_FUNCTIONS: &[(&str, &str)] = &[
    ("string", "`$.string()`: the value as a string (null stays null)."),
    ("int", "`$.int()`: the value as an integer (null stays null)."),
    ("bool", "`$.bool()`: the value as a boolean (null stays null)."),
    ("notNull", "`.notNull()`: null is refused."),
    ("check", "`.check(predicate, message)`: the predicate, with `$` the value, must hold."),
    ("class", "`$.class(Name, default)`: an object of the class `Name` (or a subclass), or an object model creating one."),
    ("template", "`$.template(Name, excludeProperties)`: an object template of the class `Name`."),
    ("owned", "`.owned()`: the object must be owned by this one."),
    ("notOwned", "`.notOwned()`: the object must not be owned by this one."),
    ("not_owned", "`.not_owned()`: the object must not be owned by this one."),
    ("sequence", "`.sequence()`: a list, one value given alone becomes a list of it."),
];

/// Dynamic UI field types and the dashboard's field class for each.
pub(crate) const FIELD_TYPES: &[(&str, &str)] = &[
    ("string", "CharField: one line of text"),
    ("text", "CharField with a text area"),
    (
        "password",
        "PasswordField: a password, asked twice unless `confirmInput: false`",
    ),
    ("integer", "IntegerField: `minValue`, `maxValue`"),
    ("boolean", "BooleanField: a check box"),
    (
        "clusterip",
        "ClusterIPField: an IP address of the environment's network",
    ),
    (
        "floatingip",
        "FloatingIpBooleanField: whether to assign a floating IP",
    ),
    (
        "databaselist",
        "DatabaseListField: comma-separated database names",
    ),
    ("choice", "ChoiceField: one of `choices`"),
    (
        "flavor",
        "FlavorChoiceField: a Nova flavor, filtered by `requirements`",
    ),
    ("image", "ImageChoiceField: a Glance image of `imageType`"),
    ("keypair", "KeyPairChoiceField: a Nova key pair"),
    ("azone", "AZoneChoiceField: an availability zone"),
    ("network", "NetworkChoiceField: a Neutron network"),
    (
        "securitygroup",
        "SecurityGroupChoiceField: a security group",
    ),
    ("volume", "VolumeChoiceField: a Cinder volume or snapshot"),
    ("zone", "ZoneChoiceField: a DNS zone"),
    ("domain", "DomainChoiceField: an Active Directory domain"),
];

/// Attributes a UI field may have.
pub(crate) const FIELD_ATTRIBUTES: &[&str] = &[
    "name",
    "type",
    "label",
    "description",
    "descriptionTitle",
    "hidden",
    "required",
    "initial",
    "helpText",
    "errorMessages",
    "validators",
    "minLength",
    "maxLength",
    "minValue",
    "maxValue",
    "regexpValidator",
    "choices",
    "widgetMedia",
    "requirements",
    "imageType",
    "confirmInput",
];

/// Manifest keys.
pub(crate) const MANIFEST_KEYS: &[(&str, &str)] = &[
    (
        "Format",
        "The package format: `MuranoPL/1.0`-`1.4`, or `Heat.HOT/1.0`.",
    ),
    ("Type", "`Application` or `Library`."),
    ("FullName", "The package's unique name, a dotted name."),
    ("Name", "The name shown to users."),
    ("Version", "The package version (semantic versioning)."),
    ("Description", "What the package does."),
    ("Author", "Who wrote it."),
    (
        "Supplier",
        "Who supplies it: `Name`, `Description`, `CompanyUrl`, `Logo`...",
    ),
    ("Tags", "A list of tags for the catalog."),
    ("Classes", "Class name → file under `Classes/`."),
    (
        "Require",
        "Package name → version spec of the packages this one uses.",
    ),
    (
        "UI",
        "The UI definition file under `UI/` (default `ui.yaml`).",
    ),
    ("Logo", "The logo file (default `logo.png`)."),
    ("Tags", "Tags for the catalog."),
    ("Meta", "Meta data objects attached to the package."),
];

/// The doc of `name` in a `(name, doc)` table.
pub(crate) fn lookup(table: &[(&str, &'static str)], name: &str) -> Option<&'static str> {
    table.iter().find(|(n, _)| *n == name).map(|(_, d)| *d)
}
