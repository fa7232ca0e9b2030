//! Test support: builds expression trees from YAML text such as
//! `{add: [1, {sub: [5, 2]}]}` with `v4t-yaml`'s parser, so tests read like the
//! templates they model and nodes carry real spans (line 1, 1-based columns).

use v4t_yaml::{Map, Node, SourceId, Value};

/// Parses YAML text; panics on malformed test input.
pub(crate) fn node(text: &str) -> Node {
    v4t_yaml::parse(text, SourceId(0)).unwrap_or_else(|e| panic!("{text:?}: {e:?}"))
}

/// The map of a YAML map.
pub(crate) fn map(text: &str) -> Map {
    match node(text).value {
        Value::Map(m) => m,
        other => panic!("not a map: {other:?}"),
    }
}
