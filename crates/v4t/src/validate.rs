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
use v4t_tosca::diag::with_article;
use v4t_yaml::{NodeRef, ValueRef};

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
    fn accepts(self, value: ValueRef<'_>) -> bool {
        matches!(
            (self, value),
            (Shape::Any, _)
                | (_, ValueRef::Null)
                | (Shape::Map | Shape::MapOrList, ValueRef::Map(_))
                | (Shape::List | Shape::MapOrList, ValueRef::Seq(_))
                | (Shape::Bool, ValueRef::Bool(_))
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

/// Checks the shapes of the V4T and TOSCA keys of `doc`: every wrong shape
/// is reported, the first as the error and the others as [`Error::more`].
pub(crate) fn validate<'a>(doc: impl Into<NodeRef<'a>>) -> Result<()> {
    let doc = doc.into();
    if doc.as_map().is_none() {
        return Ok(());
    }
    let Some(tt) = document::topology_of(doc) else {
        return Ok(());
    };
    let mut s = Shapes {
        errors: Vec::new(),
        topology: document::topology_key(doc),
        tosca20: crate::version::grammar_of(doc) == Grammar::Tosca2,
    };
    s.expect(tt, s.topology, Shape::Map);
    if let Some(v) = tt.get("variability") {
        s.variability(v);
    }
    s.collections(tt);
    s.node_templates(tt.get("node_templates"));
    s.groups_and_policies(tt);
    Error::all(s.errors)
}

/// The wrong shapes found so far.
struct Shapes {
    errors: Vec<Error>,
    /// The topology's key.
    topology: &'static str,
    /// A TOSCA 2.0 base grammar: attributes are conditional like properties.
    tosca20: bool,
}

impl Shapes {
    /// `variability` and its sections.
    fn variability(&mut self, v: NodeRef<'_>) {
        let path = format!("{}.variability", self.topology);
        let path = path.as_str();
        self.expect(v, path, Shape::Map);
        for (key, shape) in [
            ("inputs", Shape::MapOrList),
            ("presets", Shape::Map),
            ("expressions", Shape::Map),
            ("constraints", Shape::List),
            ("options", Shape::Map),
        ] {
            if let Some(n) = v.get(key) {
                self.expect(n, &format!("{path}.{key}"), shape);
            }
        }
        if let Some(presets) = v.get("presets").and_then(NodeRef::as_map) {
            for (name, preset) in presets.iter() {
                let at = format!("{path}.presets.{}", name.name());
                self.expect(preset, &at, Shape::Map);
                if let Some(inputs) = preset.get("inputs") {
                    self.expect(inputs, &format!("{at}.inputs"), Shape::Map);
                }
            }
        }
    }

    /// The collections of the topology and the list forms of their entries.
    fn collections(&mut self, tt: NodeRef<'_>) {
        for (key, shape) in [
            ("node_templates", Shape::MapOrList),
            ("relationship_templates", Shape::Map),
            ("groups", Shape::MapOrList),
            ("inputs", Shape::MapOrList),
            ("outputs", Shape::MapOrList),
        ] {
            if let Some(n) = tt.get(key) {
                self.expect(n, &format!("{}.{key}", self.topology), shape);
            }
        }
        for key in ["node_templates", "groups", "policies", "inputs", "outputs"] {
            let topology = self.topology;
            self.single_key_items(tt.get(key), &|| format!("{topology}.{key}"));
        }
        if let Some(v) = tt.get("variability") {
            let topology = self.topology;
            self.single_key_items(v.get("inputs"), &|| {
                format!("{topology}.variability.inputs")
            });
        }
        if let Some(templates) = tt.get("relationship_templates").and_then(NodeRef::as_map) {
            for (name, r) in templates.iter() {
                self.single_key_lists(r, &|| format!("relationship template \"{}\"", name.name()));
            }
        }
        for (kind, collection) in [("group", "groups"), ("policy", "policies")] {
            for_each_template(tt.get(collection), |name, t| {
                self.single_key_lists(t, &|| format!("{kind} \"{name}\""));
            });
        }
    }

    /// The keys of every node template (one pass over each node's keys:
    /// this runs for every node).
    fn node_templates(&mut self, nodes: Option<NodeRef<'_>>) {
        for_each_template(nodes, |name, node| {
            let Some(map) = node.as_map() else {
                return;
            };
            let what = || format!("node template \"{name}\"");
            for (key, value) in map.iter() {
                let k = key.name();
                let shape = match k {
                    "properties" | "artifacts" => Shape::MapOrList,
                    "attributes" if self.tosca20 => Shape::MapOrList,
                    "attributes" | "capabilities" | "interfaces" => Shape::Map,
                    "default_alternative" => Shape::Bool,
                    _ => Shape::Any,
                };
                if !shape.accepts(value.value()) {
                    self.expect(value, &format!("\"{k}\" of {}", what()), shape);
                }
                if matches!(
                    k,
                    "properties" | "type" | "requirements" | "technology" | "artifacts"
                ) || (self.tosca20 && k == "attributes")
                {
                    self.single_key_items(Some(value), &|| format!("\"{k}\" of {}", what()));
                }
                if k == "artifacts" {
                    for_each_template(Some(value), |artifact, a| {
                        self.single_key_lists(a, &|| {
                            format!("artifact \"{artifact}\" of {}", what())
                        });
                    });
                }
            }
        });
    }

    /// Group members and policy targets.
    fn groups_and_policies(&mut self, tt: NodeRef<'_>) {
        for_each_template(tt.get("groups"), |name, group| {
            if let Some(n) = group.get("members") {
                self.expect(n, &format!("\"members\" of group \"{name}\""), Shape::List);
            }
        });
        if let Some(policies) = tt.get("policies").and_then(NodeRef::as_seq) {
            for item in policies.iter() {
                let Some((name, policy)) = item.as_map().and_then(|m| m.first()) else {
                    continue;
                };
                if let Some(n) = policy.get("targets") {
                    let at = format!("\"targets\" of policy \"{}\"", name.name());
                    self.expect(n, &at, Shape::List);
                }
            }
        }
    }

    /// Checks the list forms of `properties` and `type` of a template.
    fn single_key_lists(&mut self, template: NodeRef<'_>, what: &dyn Fn() -> String) {
        for key in ["properties", "type"] {
            self.single_key_items(template.get(key), &|| format!("\"{key}\" of {}", what()));
        }
    }

    /// In a list of single-entry maps (the list form of a collection), an
    /// entry with a second key is an error at that key: the reference reads
    /// the first key only and silently drops the rest, which usually means
    /// the entry was indented wrongly (`- p:` followed by `  value: 1` on the
    /// next line).
    fn single_key_items(&mut self, list: Option<NodeRef<'_>>, what: &dyn Fn() -> String) {
        for item in list
            .and_then(NodeRef::as_seq)
            .into_iter()
            .flat_map(|l| l.iter())
        {
            let Some(map) = item.as_map().filter(|m| m.len() > 1) else {
                continue;
            };
            if let (Some((first, _)), Some((second, _))) = (map.first(), map.get_index(1)) {
                self.errors.push(Error::at(
                    format!(
                        "Entry \"{}\" of {} has a second key \"{}\", but each list entry must have exactly one key (is \"{}\" indented too little?)",
                        first.name(),
                        what(),
                        second.name(),
                        second.name()
                    ),
                    second.span(),
                ));
            }
        }
    }

    fn expect(&mut self, n: NodeRef<'_>, what: &str, shape: Shape) {
        if shape.accepts(n.value()) {
            return;
        }
        self.errors.push(Error::at(
            format!(
                "Expected {what} to be {}, but it is {}",
                shape.describe(),
                with_article(n.kind_name())
            ),
            n.span(),
        ));
    }
}

/// Calls `f` for every template of a map or a list of single-entry maps.
fn for_each_template<'a>(collection: Option<NodeRef<'a>>, mut f: impl FnMut(&str, NodeRef<'a>)) {
    match collection.map(NodeRef::value) {
        Some(ValueRef::Map(m)) => {
            for (name, t) in m.iter() {
                f(name.name(), t);
            }
        }
        Some(ValueRef::Seq(items)) => {
            for item in items.iter() {
                if let Some(m) = item.as_map() {
                    for (name, t) in m.iter() {
                        f(name.name(), t);
                    }
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use v4t_yaml::{parse, SourceId};

    /// Validates `text` read as a tree and read as a [`v4t_yaml::Doc`]:
    /// both must report the same shapes at the same places.
    fn check(text: &str) -> Result<()> {
        let tree = validate(&parse(text, SourceId(0)).unwrap());
        let doc = crate::testing::read_doc(text);
        let read = validate(doc.root());
        assert_eq!(format!("{tree:?}"), format!("{read:?}"), "{text}");
        tree
    }

    #[test]
    fn accepts_map_and_list_forms_and_null() {
        check("topology_template:\n  node_templates:\n    - a: {type: x, properties: [p: 1]}\n  variability: ~\n").unwrap();
        check("topology_template: {node_templates: {a: {type: x, default_alternative: true}}}")
            .unwrap();
    }

    #[test]
    fn list_entries_with_several_keys_are_errors() {
        let text = "topology_template:\n  node_templates:\n    a:\n      type: x\n      properties:\n        - p:\n          value: 1\n";
        let e = check(text).unwrap_err();
        assert_eq!(
            e.message,
            "Entry \"p\" of \"properties\" of node template \"a\" has a second key \"value\", but each list entry must have exactly one key (is \"value\" indented too little?)"
        );
        assert_eq!(e.span.locate(text).start(), (7, 11));
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
    fn every_wrong_shape_is_reported() {
        let text = "topology_template:\n  node_templates:\n    a: {type: x, properties: 3}\n    b: {type: x, default_alternative: maybe}\n  groups:\n    g: {type: t, members: a}\n";
        let e = check(text).unwrap_err();
        let lines: Vec<u32> = e.diagnostics().map(|d| d.span.locate(text).line).collect();
        assert_eq!(lines, vec![3, 4, 6]);
        assert!(e
            .message
            .starts_with("Expected \"properties\" of node template \"a\""));
        assert!(e.more()[1]
            .message
            .starts_with("Expected \"members\" of group \"g\""));
    }

    #[test]
    fn reports_the_offending_node() {
        let text = "topology_template:\n  variability: [a]\n";
        let e = check(text).unwrap_err();
        assert_eq!(
            e.message,
            "Expected topology_template.variability to be a map, but it is a list"
        );
        assert_eq!(e.span.locate(text).start(), (2, 16));
        let e = check("topology_template:\n  node_templates:\n    a: {type: x, artifacts: 5}\n")
            .unwrap_err();
        assert_eq!(
            e.message,
            "Expected \"artifacts\" of node template \"a\" to be a map or a list, but it is a number"
        );
    }
}
