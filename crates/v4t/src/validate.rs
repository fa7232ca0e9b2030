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

use crate::document::{self, TOPOLOGY};
use crate::error::{Error, Result};
use v4t_yaml::{Node, Value};

/// What a key's value may be.
#[derive(Clone, Copy)]
enum Shape {
    Map,
    List,
    MapOrList,
    Bool,
}

impl Shape {
    fn accepts(self, value: &Value) -> bool {
        matches!(
            (self, value),
            (_, Value::Null)
                | (Shape::Map | Shape::MapOrList, Value::Map(_))
                | (Shape::List | Shape::MapOrList, Value::Seq(_))
                | (Shape::Bool, Value::Bool(_))
        )
    }

    fn describe(self) -> &'static str {
        match self {
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
    expect(tt, TOPOLOGY, Shape::Map)?;
    if let Some(v) = tt.get("variability") {
        let path = format!("{TOPOLOGY}.variability");
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
            expect(n, &format!("{TOPOLOGY}.{key}"), shape)?;
        }
    }
    for_each_template(tt.get("node_templates"), |name, node| {
        for (key, shape) in [
            ("properties", Shape::MapOrList),
            ("attributes", Shape::Map),
            ("capabilities", Shape::Map),
            ("artifacts", Shape::MapOrList),
            ("interfaces", Shape::Map),
            ("default_alternative", Shape::Bool),
        ] {
            // The message is formatted only for an error (one check per node).
            if let Some(n) = node.get(key).filter(|n| !shape.accepts(&n.value)) {
                expect(n, &format!("\"{key}\" of node template \"{name}\""), shape)?;
            }
        }
        Ok(())
    })?;
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
