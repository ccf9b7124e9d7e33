//! Template versions: which template class Heat picks, and what each HOT
//! version can do.

use crate::error::{ErrorClass, HeatError, Result};
use crate::value::Value;

/// A template class of Heat 27.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TemplateVersion {
    /// `HeatTemplateFormatVersion: 2012-12-12` (CFN, Heat flavour).
    HeatTemplate,
    /// `AWSTemplateFormatVersion: 2010-09-09` (CFN).
    CfnTemplate,
    /// `2013-05-23`.
    Hot20130523,
    /// `2014-10-16`.
    Hot20141016,
    /// `2015-04-30`.
    Hot20150430,
    /// `2015-10-15`.
    Hot20151015,
    /// `2016-04-08`.
    Hot20160408,
    /// `2016-10-14`, `newton`.
    Hot20161014,
    /// `2017-02-24`, `ocata`.
    Hot20170224,
    /// `2017-09-01`, `pike`.
    Hot20170901,
    /// `2018-03-02`, `queens`.
    Hot20180302,
    /// `2018-08-31`, `rocky`.
    Hot20180831,
    /// `2021-04-16`, `wallaby`.
    Hot20210416,
}

/// The (key, value) pairs Heat registers, with their class.
const REGISTERED: &[(&str, &str, TemplateVersion)] = {
    use TemplateVersion::*;
    &[
        ("AWSTemplateFormatVersion", "2010-09-09", CfnTemplate),
        ("HeatTemplateFormatVersion", "2012-12-12", HeatTemplate),
        ("heat_template_version", "2013-05-23", Hot20130523),
        ("heat_template_version", "2014-10-16", Hot20141016),
        ("heat_template_version", "2015-04-30", Hot20150430),
        ("heat_template_version", "2015-10-15", Hot20151015),
        ("heat_template_version", "2016-04-08", Hot20160408),
        ("heat_template_version", "2016-10-14", Hot20161014),
        ("heat_template_version", "newton", Hot20161014),
        ("heat_template_version", "2017-02-24", Hot20170224),
        ("heat_template_version", "ocata", Hot20170224),
        ("heat_template_version", "2017-09-01", Hot20170901),
        ("heat_template_version", "pike", Hot20170901),
        ("heat_template_version", "2018-03-02", Hot20180302),
        ("heat_template_version", "queens", Hot20180302),
        ("heat_template_version", "2018-08-31", Hot20180831),
        ("heat_template_version", "rocky", Hot20180831),
        ("heat_template_version", "2021-04-16", Hot20210416),
        ("heat_template_version", "wallaby", Hot20210416),
    ]
};

/// What version detection found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detected {
    /// The version key.
    pub key: String,
    /// Its value.
    pub value: String,
    /// The template class.
    pub version: TemplateVersion,
}

/// Heat's `get_template_class`: the one version key whose value is a
/// string, and the class registered for it.
pub fn detect(template: &Value) -> Result<Detected> {
    let invalid = |explanation: String| {
        HeatError::new(
            ErrorClass::InvalidTemplateVersion,
            format!("The template version is invalid: {explanation}"),
        )
    };
    let mut present: Vec<&str> = Vec::new();
    for (k, v) in template.as_map().unwrap_or_default() {
        if let (Some(k), Value::Str(_)) = (k.as_str(), v) {
            if [
                "AWSTemplateFormatVersion",
                "HeatTemplateFormatVersion",
                "heat_template_version",
            ]
            .contains(&k)
                && !present.contains(&k)
            {
                present.push(k);
            }
        }
    }
    if present.len() > 1 {
        // Python joins a set: the order is hash-dependent.
        return Err(invalid(format!(
            "Ambiguous versions ({})",
            present.join(", ")
        )));
    }
    let Some(key) = present.first().copied() else {
        return Err(invalid("Template version was not provided".into()));
    };
    let value = template
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default();
    if let Some((_, _, v)) = REGISTERED
        .iter()
        .find(|(k, val, _)| *k == key && *val == value)
    {
        return Ok(Detected {
            key: key.into(),
            value: value.into(),
            version: *v,
        });
    }
    let mut available: Vec<&str> = REGISTERED
        .iter()
        .filter(|(k, _, _)| *k == key)
        .map(|(_, v, _)| *v)
        .collect();
    available.sort_unstable();
    let verb = if available.len() > 1 {
        "should be one of"
    } else {
        "should be"
    };
    Err(invalid(format!(
        "\"{key}: {value}\". \"{key}\" {verb}: {}",
        available.join(", ")
    )))
}

impl TemplateVersion {
    /// Heat's class name.
    pub fn class_name(self) -> &'static str {
        use TemplateVersion::*;
        match self {
            HeatTemplate => "HeatTemplate",
            CfnTemplate => "CfnTemplate",
            Hot20130523 => "HOTemplate20130523",
            Hot20141016 => "HOTemplate20141016",
            Hot20150430 => "HOTemplate20150430",
            Hot20151015 => "HOTemplate20151015",
            Hot20160408 => "HOTemplate20160408",
            Hot20161014 => "HOTemplate20161014",
            Hot20170224 => "HOTemplate20170224",
            Hot20170901 => "HOTemplate20170901",
            Hot20180302 => "HOTemplate20180302",
            Hot20180831 => "HOTemplate20180831",
            Hot20210416 => "HOTemplate20210416",
        }
    }

    /// Whether this is a HOT (not CFN) version.
    pub fn is_hot(self) -> bool {
        !matches!(
            self,
            TemplateVersion::HeatTemplate | TemplateVersion::CfnTemplate
        )
    }

    /// The top-level sections the version allows.
    pub fn sections(self) -> &'static [&'static str] {
        const BASE: &[&str] = &[
            "heat_template_version",
            "description",
            "parameter_groups",
            "parameters",
            "resources",
            "outputs",
            "__undefined__",
        ];
        const COND: &[&str] = &[
            "heat_template_version",
            "description",
            "parameter_groups",
            "parameters",
            "resources",
            "outputs",
            "__undefined__",
            "conditions",
        ];
        if self >= TemplateVersion::Hot20161014 {
            COND
        } else {
            BASE
        }
    }

    /// Whether the version has the `conditions` section and condition
    /// functions.
    pub fn has_conditions(self) -> bool {
        self >= TemplateVersion::Hot20161014
    }

    /// Whether parameter constraints may use `modulo`.
    pub fn has_modulo(self) -> bool {
        self >= TemplateVersion::Hot20170224
    }

    /// Whether parameters may carry `tags`.
    pub fn has_param_tags(self) -> bool {
        self >= TemplateVersion::Hot20180302
    }

    /// The function registered under `name` in this version, if any.
    pub fn function(self, name: &str) -> Option<Function> {
        use Function::*;
        use TemplateVersion::*;
        let v = self;
        if !v.is_hot() {
            return None;
        }
        let cfn_removed = v >= Hot20141016;
        Some(match name {
            "get_param" => GetParam,
            "get_resource" => GetResource,
            "get_attr" => GetAttr,
            "get_file" => GetFile,
            "list_join" => ListJoin,
            "str_replace" => StrReplace,
            "resource_facade" => ResourceFacade,
            "Fn::Select" if v < Hot20151015 => CfnSelect,
            "Fn::GetAZs"
            | "Fn::Join"
            | "Fn::Split"
            | "Fn::Replace"
            | "Fn::Base64"
            | "Fn::MemberListToMap"
            | "Fn::ResourceFacade"
            | "Ref"
                if cfn_removed =>
            {
                Removed
            }
            "Fn::Select" => Removed,
            "Fn::GetAZs" => CfnGetAZs,
            "Fn::Join" => CfnJoin,
            "Fn::Split" => CfnSplit,
            "Fn::Replace" => CfnReplace,
            "Fn::Base64" => CfnBase64,
            "Fn::MemberListToMap" => CfnMemberListToMap,
            "Fn::ResourceFacade" => CfnResourceFacade,
            "Ref" => CfnRef,
            "repeat" if v >= Hot20150430 => Repeat,
            "digest" if v >= Hot20150430 => Digest,
            "str_split" if v >= Hot20151015 => StrSplit,
            "map_merge" if v >= Hot20160408 => MapMerge,
            "if" if v >= Hot20161014 => If,
            "yaql" if v >= Hot20161014 => Yaql,
            "map_replace" if v >= Hot20161014 => MapReplace,
            "str_replace_strict" if v >= Hot20170224 => StrReplaceStrict,
            "filter" if v >= Hot20170224 => Filter,
            "make_url" if v >= Hot20170901 => MakeUrl,
            "list_concat" if v >= Hot20170901 => ListConcat,
            "list_concat_unique" if v >= Hot20170901 => ListConcatUnique,
            "contains" if v >= Hot20170901 => Contains,
            "str_replace_vstrict" if v >= Hot20170901 => StrReplaceVstrict,
            _ => return None,
        })
    }

    /// The functions of `conditions` (Heat's `condition_functions`:
    /// `equals`, `not`, `and`, `or` exist only there); the version's other
    /// functions are invalid there.
    pub fn condition_function(self, name: &str) -> Option<Function> {
        use Function::*;
        use TemplateVersion::*;
        if self < Hot20161014 {
            return None;
        }
        Some(match name {
            "get_param" => GetParam,
            "equals" => Equals,
            "not" => Not,
            "and" => And,
            "or" => Or,
            "contains" if self >= Hot20170901 => Contains,
            "yaql" if self >= Hot20170901 => Yaql,
            _ => return None,
        })
    }
}

/// The intrinsic functions of Heat's template classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Function {
    GetParam,
    GetResource,
    GetAttr,
    GetFile,
    ListJoin,
    StrReplace,
    StrReplaceStrict,
    StrReplaceVstrict,
    ResourceFacade,
    Repeat,
    Digest,
    StrSplit,
    MapMerge,
    MapReplace,
    Equals,
    If,
    Not,
    And,
    Or,
    Yaql,
    Filter,
    MakeUrl,
    ListConcat,
    ListConcatUnique,
    Contains,
    /// A CFN function removed from this HOT version.
    Removed,
    CfnSelect,
    CfnGetAZs,
    CfnJoin,
    CfnSplit,
    CfnReplace,
    CfnBase64,
    CfnMemberListToMap,
    CfnResourceFacade,
    CfnRef,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(k: &str, v: Value) -> Value {
        Value::Map(vec![(Value::Str(k.into()), v)])
    }

    #[test]
    fn detects_and_refuses() {
        let d = detect(&t("heat_template_version", Value::Str("newton".into()))).unwrap();
        assert_eq!(d.version, TemplateVersion::Hot20161014);
        let e = detect(&t("heat_template_version", Value::Int(1))).unwrap_err();
        assert_eq!(
            e.message(),
            "The template version is invalid: Template version was not provided"
        );
        let e = detect(&t("AWSTemplateFormatVersion", Value::Str("x".into()))).unwrap_err();
        assert!(e
            .message()
            .ends_with("\"AWSTemplateFormatVersion\" should be: 2010-09-09"));
    }

    #[test]
    fn capabilities() {
        use TemplateVersion::*;
        assert_eq!(Hot20130523.function("repeat"), None);
        assert_eq!(Hot20150430.function("repeat"), Some(Function::Repeat));
        assert_eq!(Hot20141016.function("Ref"), Some(Function::Removed));
        assert_eq!(Hot20130523.function("Ref"), Some(Function::CfnRef));
        assert_eq!(Hot20161014.function("if"), Some(Function::If));
        assert_eq!(Hot20161014.function("equals"), None);
        assert_eq!(
            Hot20161014.condition_function("equals"),
            Some(Function::Equals)
        );
        assert!(!Hot20160408.has_conditions());
    }
}
