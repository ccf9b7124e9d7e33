//! [`Object`] and [`Data`]: an object model's tree with its objects
//! recognized.

use super::error::{ErrorKind, ObjectModelError};
use super::path::{Path, Segment};
use super::system::{SystemData, TypeRef};
use super::value::{Map, Value};

/// A value of an object model with its objects recognized: every mapping
/// whose `?` key holds a mapping is an [`Object`], at any depth (in
/// properties, in lists, in plain mappings), as Murano's API
/// (`build_entity_map`), its policy rules and the dashboard find them. (The
/// engine itself creates an object from such a mapping when a `class()` or
/// `template()` contract receives it.) A mapping whose `?` holds anything
/// else stays a plain [`Data::Map`]; [`super::ObjectModel`] reports it.
#[derive(Debug, Clone, PartialEq)]
pub enum Data {
    /// A scalar: null, boolean, number, string or expression.
    Scalar(Value),
    /// A list.
    List(Vec<Data>),
    /// A mapping that is not an object, in order.
    Map(Vec<(Value, Data)>),
    /// An object.
    Object(Box<Object>),
}

impl Data {
    /// Recognizes the objects of a value tree (mappings whose `?` is a
    /// mapping) and checks each one's `?` section (see
    /// [`SystemData::from_map`]). Errors carry the path from
    /// `value`; nesting deeper than `max_depth` is an error.
    ///
    /// ```
    /// use murano_dsl::object_model::{Data, Value};
    ///
    /// let value = Value::from_json(r#"[{"?": {"id": "a", "type": "x.A"}}, {"k": 1}]"#)?;
    /// let data = Data::from_value(value, 64)?;
    /// let Data::List(items) = &data else { unreachable!() };
    /// assert_eq!(items[0].as_object().and_then(|o| o.id()), Some("a"));
    /// assert!(items[1].as_object().is_none());
    /// # Ok::<(), murano_dsl::object_model::ObjectModelError>(())
    /// ```
    pub fn from_value(value: Value, max_depth: usize) -> Result<Data, ObjectModelError> {
        let mut path = Path::root();
        Data::parse(value, &mut path, 0, max_depth)
    }

    fn parse(
        value: Value,
        path: &mut Path,
        depth: usize,
        max_depth: usize,
    ) -> Result<Data, ObjectModelError> {
        if depth > max_depth {
            return Err(ObjectModelError::new(
                path.clone(),
                ErrorKind::TooDeep(max_depth),
            ));
        }
        match value {
            Value::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.into_iter().enumerate() {
                    path.push(Segment::Index(i));
                    out.push(Data::parse(item, path, depth + 1, max_depth)?);
                    path.pop();
                }
                Ok(Data::List(out))
            }
            Value::Map(map) if matches!(map.get("?"), Some(Value::Map(_))) => Ok(Data::Object(
                Box::new(Object::parse(map, path, depth, max_depth)?),
            )),
            Value::Map(map) => Ok(Data::Map(Data::parse_entries(map, path, depth, max_depth)?)),
            scalar => Ok(Data::Scalar(scalar)),
        }
    }

    fn parse_entries(
        map: Map,
        path: &mut Path,
        depth: usize,
        max_depth: usize,
    ) -> Result<Vec<(Value, Data)>, ObjectModelError> {
        let mut out = Vec::with_capacity(map.len());
        for (key, item) in map {
            path.push(Segment::Key(key.path_key_text()));
            let data = Data::parse(item, path, depth + 1, max_depth)?;
            path.pop();
            out.push((key, data));
        }
        Ok(out)
    }

    /// The value tree again, exactly as it was parsed.
    pub fn to_value(&self) -> Value {
        match self {
            Data::Scalar(value) => value.clone(),
            Data::List(items) => Value::List(items.iter().map(Data::to_value).collect()),
            Data::Map(entries) => Value::Map(entries_to_map(entries)),
            Data::Object(object) => object.to_value(),
        }
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Data::Object(object) => Some(object),
            _ => None,
        }
    }

    /// The scalar, if this is one.
    pub fn as_scalar(&self) -> Option<&Value> {
        match self {
            Data::Scalar(value) => Some(value),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        self.as_scalar().and_then(Value::as_str)
    }

    /// The value under string key `key` of a mapping, or the property
    /// `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Data> {
        match self {
            Data::Map(entries) => find(entries, key),
            Data::Object(object) => object.property(key),
            _ => None,
        }
    }

    /// The element at `path` below this one (object properties are
    /// reached by name, the `?` section is not part of the tree).
    pub fn at(&self, path: &Path) -> Option<&Data> {
        let mut current = self;
        for segment in path.segments() {
            current = match (current, segment) {
                (Data::List(items), Segment::Index(i)) => items.get(*i)?,
                (Data::Map(entries), Segment::Key(key)) => find_text(entries, key)?,
                (Data::Object(object), Segment::Key(key)) => find_text(&object.properties, key)?,
                _ => return None,
            };
        }
        Some(current)
    }
}

fn find<'a>(entries: &'a [(Value, Data)], key: &str) -> Option<&'a Data> {
    entries
        .iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .map(|(_, v)| v)
}

fn find_text<'a>(entries: &'a [(Value, Data)], key: &str) -> Option<&'a Data> {
    entries
        .iter()
        .find(|(k, _)| k.path_key_text() == key)
        .map(|(_, v)| v)
}

fn entries_to_map(entries: &[(Value, Data)]) -> Map {
    entries
        .iter()
        .map(|(k, v)| (k.clone(), v.to_value()))
        .collect()
}

/// An object: its `?` section and its properties, in the order they were
/// written (the position of `?` among the keys included, so that writing
/// the object back gives the same mapping).
///
/// ```
/// use murano_dsl::object_model::{Object, Value};
///
/// let value = Value::from_json(r#"{"name": "db", "?": {"id": "d1", "type": "io.murano.apps.MySql"},
///     "instance": {"?": {"id": "i1", "type": "io.murano.resources.LinuxMuranoInstance"}, "flavor": "m1.small"}}"#)?;
/// let object = Object::from_value(value.clone())?;
/// assert_eq!(object.id(), Some("d1"));
/// assert_eq!(object.type_name(), Some("io.murano.apps.MySql"));
/// let instance = object.property("instance").and_then(|d| d.as_object()).unwrap();
/// assert_eq!(instance.property("flavor").and_then(|d| d.as_str()), Some("m1.small"));
/// assert_eq!(object.to_value(), value);
/// # Ok::<(), murano_dsl::object_model::ObjectModelError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    system: SystemData,
    system_index: usize,
    properties: Vec<(Value, Data)>,
}

impl Object {
    /// An object from its `?` section and its properties (written after
    /// `?`). A property named `?` is an error.
    pub fn new(
        system: SystemData,
        properties: Vec<(Value, Data)>,
    ) -> Result<Object, ObjectModelError> {
        if properties.iter().any(|(k, _)| k.as_str() == Some("?")) {
            return Err(ObjectModelError::new(
                Path::root(),
                ErrorKind::SystemKeyAsProperty,
            ));
        }
        Ok(Object {
            system,
            system_index: 0,
            properties,
        })
    }

    /// Reads one object (a mapping with `?`) and the objects inside it.
    pub fn from_value(value: Value) -> Result<Object, ObjectModelError> {
        match value {
            Value::Map(map) if map.contains_key("?") => {
                Object::parse(map, &mut Path::root(), 0, super::DEFAULT_MAX_DEPTH)
            }
            _ => Err(ObjectModelError::new(Path::root(), ErrorKind::NotAnObject)),
        }
    }

    fn parse(
        map: Map,
        path: &mut Path,
        depth: usize,
        max_depth: usize,
    ) -> Result<Object, ObjectModelError> {
        let mut system = None;
        let mut system_index = 0;
        let mut properties = Vec::with_capacity(map.len().saturating_sub(1));
        for (key, item) in map {
            if key.as_str() == Some("?") {
                system_index = properties.len();
                let section_path = path.key("?");
                let Value::Map(section) = item else {
                    return Err(ObjectModelError::new(
                        section_path,
                        ErrorKind::SystemNotMapping(item.type_name()),
                    ));
                };
                if depth + 1 > max_depth {
                    return Err(ObjectModelError::new(
                        section_path,
                        ErrorKind::TooDeep(max_depth),
                    ));
                }
                system = Some(SystemData::from_map(section).map_err(|e| e.under(&section_path))?);
                continue;
            }
            path.push(Segment::Key(key.path_key_text()));
            let data = Data::parse(item, path, depth + 1, max_depth)?;
            path.pop();
            properties.push((key, data));
        }
        let Some(system) = system else {
            return Err(ObjectModelError::new(path.clone(), ErrorKind::NotAnObject));
        };
        Ok(Object {
            system,
            system_index,
            properties,
        })
    }

    /// The mapping again, exactly as it was parsed.
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        let index = self.system_index.min(self.properties.len());
        for (i, (key, data)) in self.properties.iter().enumerate() {
            if i == index {
                map.insert(Value::from("?"), Value::Map(self.system.entries().clone()));
            }
            map.insert(key.clone(), data.to_value());
        }
        if index == self.properties.len() {
            map.insert(Value::from("?"), Value::Map(self.system.entries().clone()));
        }
        map.into()
    }

    /// The `?` section.
    pub fn system(&self) -> &SystemData {
        &self.system
    }

    /// The `?` section, to change (see [`SystemData::set`]).
    pub fn system_mut(&mut self) -> &mut SystemData {
        &mut self.system
    }

    /// The object id, when it is a string.
    pub fn id(&self) -> Option<&str> {
        self.system.id()
    }

    /// The parsed type string.
    pub fn type_ref(&self) -> Option<&TypeRef> {
        self.system.type_ref()
    }

    /// The class name from the type string.
    pub fn type_name(&self) -> Option<&str> {
        self.system.type_ref().map(TypeRef::name)
    }

    /// The properties (every key but `?`), in order.
    pub fn properties(&self) -> &[(Value, Data)] {
        &self.properties
    }

    /// The property named `name`.
    pub fn property(&self, name: &str) -> Option<&Data> {
        find(&self.properties, name)
    }

    /// The properties as Murano passes them to the object (`?` removed), as
    /// plain values.
    pub fn properties_value(&self) -> Map {
        entries_to_map(&self.properties)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<Data, ObjectModelError> {
        Data::from_value(Value::from_json(json).unwrap(), 64)
    }

    #[test]
    fn objects_at_any_depth() {
        let data = parse(
            r#"{"a": [{"b": {"c": {"?": {"id": "deep"}}}}], "d": {"?": {"id": "x"}, "e": [[{"?": {}}]]}}"#,
        )
        .unwrap();
        let deep = data
            .at(&Path::root().key("a").index(0).key("b").key("c"))
            .unwrap();
        assert_eq!(deep.as_object().unwrap().id(), Some("deep"));
        let inner = data
            .at(&Path::root().key("d").key("e").index(0).index(0))
            .unwrap();
        assert!(inner.as_object().is_some());
        assert!(data.at(&Path::root().key("d").key("?")).is_none());
    }

    #[test]
    fn system_position_is_kept() {
        for json in [
            r#"{"?": {"id": "a"}, "x": 1, "y": 2}"#,
            r#"{"x": 1, "?": {"id": "a"}, "y": 2}"#,
            r#"{"x": 1, "y": 2, "?": {"id": "a"}}"#,
            r#"{"?": {"id": "a"}}"#,
        ] {
            let value = Value::from_json(json).unwrap();
            let data = Data::from_value(value.clone(), 8).unwrap();
            assert_eq!(data.to_value(), value);
            assert_eq!(data.to_value().to_json().unwrap(), json);
        }
    }

    #[test]
    fn errors_have_paths() {
        let data = parse(r#"{"apps": [{"?": "x"}]}"#).unwrap();
        assert!(matches!(
            data.at(&Path::root().key("apps").index(0)),
            Some(Data::Map(_))
        ));
        let e = Object::from_value(Value::from_json(r#"{"?": [1]}"#).unwrap()).unwrap_err();
        assert_eq!(e.path().to_string(), "/?");
        assert_eq!(e.kind(), &ErrorKind::SystemNotMapping("list"));
        let e = parse(r#"{"apps": [{"?": {"type": "a", "dependencies": 3}}]}"#).unwrap_err();
        assert_eq!(e.path().to_string(), "/apps/0/?/dependencies");
        let e = parse(r#"{"a/b": {"?": {"type": 1}}}"#).unwrap_err();
        assert_eq!(e.path().to_string(), "/a~1b/?/type");
    }

    #[test]
    fn depth_limit() {
        let e = Data::from_value(Value::from_json("[[[1]]]").unwrap(), 2).unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::TooDeep(2));
        assert!(Data::from_value(Value::from_json("[[[1]]]").unwrap(), 3).is_ok());
    }

    #[test]
    fn new_object_puts_system_first() {
        let system = SystemData::from_map(
            Value::from_json(r#"{"id": "n", "type": "a.B"}"#)
                .unwrap()
                .as_map()
                .unwrap()
                .clone(),
        )
        .unwrap();
        let object =
            Object::new(system.clone(), vec![("p".into(), Data::Scalar(1.into()))]).unwrap();
        assert_eq!(
            object.to_value().to_json().unwrap(),
            r#"{"?": {"id": "n", "type": "a.B"}, "p": 1}"#
        );
        assert!(Object::new(system, vec![("?".into(), Data::Scalar(Value::Null))]).is_err());
        assert!(Object::from_value(Value::from(1)).is_err());
    }
}
