//! Structural checks of hand-written templates: keys whose value has the
//! wrong shape (a list where a map belongs, a string for a boolean flag).
//!
//! Input: the loaded document, before enrichment. Output: `Ok(())` or the
//! first offending node as an [`Error`] with its span.
//!
//! The reference implementation silently ignores most of these (a JavaScript
//! property access on a string yields `undefined`), so a typo could remove
//! elements from the result without a word. Only shapes that the rest of the
//! pipeline would *accept silently* are checked here; where a later stage
//! already reports a shape with the reference's own message (requirements
//! that are not a list, node templates without a type, options, `weight`,
//! `persistent`, ...), that stage keeps doing so and this module stays quiet.
//! `null` always counts as "not given".

use crate::document;
use crate::error::{Error, Result};
use crate::version::Grammar;
use v4t_yaml::{Node, Value};

/// What a key's value may be.
#[derive(Clone, Copy)]
enum Shape {
    /// Anything (a key without a shape check).
    Any,
    Map,
    List,
    MapOrList,
    Bool,
}

impl Shape {
    fn accepts(self, value: &Value) -> bool {
        matches!(
            (self, value),
            (Shape::Any, _)
                | (_, Value::Null)
                | (Shape::Map | Shape::MapOrList, Value::Map(_))
                | (Shape::List | Shape::MapOrList, Value::Seq(_))
                | (Shape::Bool, Value::Bool(_))
        )
    }

    fn describe(self) -> &'static str {
        match self {
            Shape::Any => "anything",
            Shape::Map => "a map",
            Shape::List => "a list",
            Shape::MapOrList => "a map or a list",
            Shape::Bool => "a boolean",
        }
    }
}

/// Checks the shapes of the V4T and TOSCA keys of `doc`.
pub(crate) fn validate(doc: &Node) -> Result<()> {
    if doc.as_map().is_none() {
        return Ok(());
    }
    let Some(tt) = document::topology(doc) else {
        return Ok(());
    };
    let topology = document::topology_key(doc);
    // TOSCA 2.0 attributes are conditional like properties.
    let (attributes, element_lists): (Shape, &[&str]) = match Grammar::of(doc) {
        Grammar::Tosca13 => (
            Shape::Map,
            &[
                "properties",
                "type",
                "requirements",
                "technology",
                "artifacts",
            ],
        ),
        Grammar::Tosca20 => (
            Shape::MapOrList,
            &[
                "properties",
                "attributes",
                "type",
                "requirements",
                "technology",
                "artifacts",
            ],
        ),
    };
    expect(tt, topology, Shape::Map)?;
    if let Some(v) = tt.get("variability") {
        let path = format!("{topology}.variability");
        let path = path.as_str();
        expect(v, path, Shape::Map)?;
        for (key, shape) in [
            ("inputs", Shape::MapOrList),
            ("presets", Shape::Map),
            ("expressions", Shape::Map),
            ("constraints", Shape::List),
            ("options", Shape::Map),
        ] {
            if let Some(n) = v.get(key) {
                expect(n, &format!("{path}.{key}"), shape)?;
            }
        }
        if let Some(presets) = v.get("presets").and_then(Node::as_map) {
            for (name, preset) in presets.iter() {
                let at = format!("{path}.presets.{}", name.name);
                expect(preset, &at, Shape::Map)?;
                if let Some(inputs) = preset.get("inputs") {
                    expect(inputs, &format!("{at}.inputs"), Shape::Map)?;
                }
            }
        }
    }
    for (key, shape) in [
        ("node_templates", Shape::MapOrList),
        ("relationship_templates", Shape::Map),
        ("groups", Shape::MapOrList),
        ("inputs", Shape::MapOrList),
        ("outputs", Shape::MapOrList),
    ] {
        if let Some(n) = tt.get(key) {
            expect(n, &format!("{topology}.{key}"), shape)?;
        }
    }
    for key in ["node_templates", "groups", "policies", "inputs", "outputs"] {
        single_key_items(tt.get(key), &|| format!("{topology}.{key}"))?;
    }
    if let Some(v) = tt.get("variability") {
        single_key_items(v.get("inputs"), &|| {
            format!("{topology}.variability.inputs")
        })?;
    }
    if let Some(templates) = tt.get("relationship_templates").and_then(Node::as_map) {
        for (name, r) in templates.iter() {
            single_key_lists(r, &|| format!("relationship template \"{}\"", name.name))?;
        }
    }
    for (kind, collection) in [("group", "groups"), ("policy", "policies")] {
        for_each_template(tt.get(collection), |name, t| {
            single_key_lists(t, &|| format!("{kind} \"{name}\""))
        })?;
    }
    node_templates(tt.get("node_templates"), attributes, element_lists)?;
    for_each_template(tt.get("groups"), |name, group| {
        if let Some(n) = group.get("members") {
            expect(n, &format!("\"members\" of group \"{name}\""), Shape::List)?;
        }
        Ok(())
    })?;
    if let Some(policies) = tt.get("policies").and_then(Node::as_seq) {
        for item in policies {
            let Some((name, policy)) = item.as_map().and_then(|m| m.first()) else {
                continue;
            };
            if let Some(n) = policy.get("targets") {
                let at = format!("\"targets\" of policy \"{}\"", name.name);
                expect(n, &at, Shape::List)?;
            }
        }
    }
    Ok(())
}

/// The shapes of the node templates' keys (`attributes`: the shape of
/// `attributes`; `element_lists`: the keys whose list form is checked).
fn node_templates(nodes: Option<&Node>, attributes: Shape, element_lists: &[&str]) -> Result<()> {
    for_each_template(nodes, |name, node| {
        let Some(map) = node.as_map() else {
            return Ok(());
        };
        let what = || format!("node template \"{name}\"");
        // One pass over the node's keys: this runs for every node.
        for (key, value) in map.iter() {
            let k = key.name.as_str();
            let shape = match k {
                "properties" | "artifacts" => Shape::MapOrList,
                "attributes" => attributes,
                "capabilities" | "interfaces" => Shape::Map,
                "default_alternative" => Shape::Bool,
                _ => Shape::Any,
            };
            if !shape.accepts(&value.value) {
                expect(value, &format!("\"{k}\" of {}", what()), shape)?;
            }
            if element_lists.contains(&k) {
                single_key_items(Some(value), &|| format!("\"{k}\" of {}", what()))?;
            }
            if k == "artifacts" {
                for_each_template(Some(value), |artifact, a| {
                    single_key_lists(a, &|| format!("artifact \"{artifact}\" of {}", what()))
                })?;
            }
        }
        Ok(())
    })?;
    Ok(())
}

/// Checks the list forms of `properties` and `type` of a template.
fn single_key_lists(template: &Node, what: &dyn Fn() -> String) -> Result<()> {
    for key in ["properties", "type"] {
        single_key_items(template.get(key), &|| format!("\"{key}\" of {}", what()))?;
    }
    Ok(())
}

/// In a list of single-entry maps (the list form of a collection), an entry
/// with a second key is an error at that key: the reference reads the first
/// key only and silently drops the rest, which usually means the entry was
/// indented wrongly (`- p:` followed by `  value: 1` on the next line).
fn single_key_items(list: Option<&Node>, what: &dyn Fn() -> String) -> Result<()> {
    for item in list.and_then(Node::as_seq).into_iter().flatten() {
        let Some(map) = item.as_map().filter(|m| m.len() > 1) else {
            continue;
        };
        if let (Some((first, _)), Some((second, _))) = (map.first(), map.get_index(1)) {
            return Err(Error::at(
                format!(
                    "Entry \"{}\" of {} has a second key \"{}\", but each list entry must have exactly one key (is \"{}\" indented too little?)",
                    first.name,
                    what(),
                    second.name,
                    second.name
                ),
                second.span,
            ));
        }
    }
    Ok(())
}

/// Calls `f` for every template of a map or a list of single-entry maps.
fn for_each_template(
    collection: Option<&Node>,
    mut f: impl FnMut(&str, &Node) -> Result<()>,
) -> Result<()> {
    match collection.map(|n| &n.value) {
        Some(Value::Map(m)) => {
            for (name, t) in m.iter() {
                f(&name.name, t)?;
            }
        }
        Some(Value::Seq(items)) => {
            for item in items {
                if let Some(m) = item.as_map() {
                    for (name, t) in m.iter() {
                        f(&name.name, t)?;
                    }
                }
            }
        }
        _ => {}
    }
    Ok(())
}

fn expect(n: &Node, what: &str, shape: Shape) -> Result<()> {
    if shape.accepts(&n.value) {
        return Ok(());
    }
    Err(Error::at(
        format!(
            "Expected {what} to be {}, but it is {} {}",
            shape.describe(),
            article(n.value.kind_name()),
            n.value.kind_name()
        ),
        n.span,
    ))
}

fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use v4t_yaml::{parse, SourceId};

    fn check(text: &str) -> Result<()> {
        validate(&parse(text, SourceId(0)).unwrap())
    }

    #[test]
    fn accepts_map_and_list_forms_and_null() {
        check("topology_template:\n  node_templates:\n    - a: {type: x, properties: [p: 1]}\n  variability: ~\n").unwrap();
        check("topology_template: {node_templates: {a: {type: x, default_alternative: true}}}")
            .unwrap();
    }

    #[test]
    fn list_entries_with_several_keys_are_errors() {
        let e = check("topology_template:\n  node_templates:\n    a:\n      type: x\n      properties:\n        - p:\n          value: 1\n").unwrap_err();
        assert_eq!(
            e.message,
            "Entry \"p\" of \"properties\" of node template \"a\" has a second key \"value\", but each list entry must have exactly one key (is \"value\" indented too little?)"
        );
        assert_eq!((e.span.line, e.span.col), (7, 11));
        for (text, key) in [
            ("topology_template:\n  node_templates:\n    - a: {type: x}\n      b: {type: y}\n", "b"),
            ("topology_template:\n  node_templates:\n    a:\n      type: x\n      requirements:\n        - host: b\n          conditions: false\n", "conditions"),
            ("topology_template:\n  node_templates:\n    a:\n      type: x\n      artifacts:\n        - f: {file: x}\n          g: {file: y}\n", "g"),
            ("topology_template:\n  node_templates:\n    a:\n      type: x\n      artifacts:\n        f:\n          properties: [{p: 1, q: 2}]\n", "q"),
            ("topology_template:\n  groups:\n    g:\n      type: [{t: {}, u: {}}]\n", "u"),
            ("topology_template:\n  policies:\n    - p: {type: t, properties: [{a: 1, b: 2}]}\n", "b"),
            ("topology_template:\n  relationship_templates:\n    r: {type: t, properties: [{a: 1, b: 2}]}\n", "b"),
            ("topology_template:\n  variability:\n    inputs:\n      - a: {}\n        b: {}\n", "b"),
            ("topology_template:\n  node_templates:\n    a: {type: x, technology: [{t: {}, u: {}}]}\n", "u"),
        ] {
            let e = check(text).unwrap_err();
            assert!(
                e.message.contains(&format!("has a second key \"{key}\"")),
                "{text}: {}",
                e.message
            );
        }
    }

    #[test]
    fn reports_the_offending_node() {
        let e = check("topology_template:\n  variability: [a]\n").unwrap_err();
        assert_eq!(
            e.message,
            "Expected topology_template.variability to be a map, but it is a list"
        );
        assert_eq!((e.span.line, e.span.col), (2, 16));
        let e = check("topology_template:\n  node_templates:\n    a: {type: x, artifacts: 5}\n")
            .unwrap_err();
        assert_eq!(
            e.message,
            "Expected \"artifacts\" of node template \"a\" to be a map or a list, but it is a number"
        );
    }
}
