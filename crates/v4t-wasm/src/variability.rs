//! The presets and inputs a template declares, read from its text for the
//! page's pickers. A light read of the `variability` section as written
//! (map or list form), not the resolver's: the pickers must fill while the
//! template is still being typed and may not resolve.

use v4t_yaml::json::to_json;
use v4t_yaml::{Map, Node, SourceId, Value};

/// The presets and inputs of `template` as JSON (see [`crate::variability`]).
pub(crate) fn describe(template: &str) -> String {
    let doc = v4t_yaml::parse(template, SourceId(0)).ok();
    let section = doc.as_ref().and_then(|doc| {
        doc.get("topology_template")
            .or_else(|| doc.get("service_template"))?
            .get("variability")
    });
    let entries = |key: &str| {
        section
            .and_then(|s| s.get(key))
            .map(named)
            .unwrap_or_default()
    };
    let presets = entries("presets")
        .into_iter()
        .map(|(name, preset)| {
            let mut m = Map::new();
            m.insert("name", Node::string(name));
            m.insert("title", text(preset.get("name")));
            m.insert("description", text(preset.get("description")));
            Node::map(m)
        })
        .collect();
    let inputs = entries("inputs")
        .into_iter()
        .map(|(name, input)| {
            let mut m = Map::new();
            m.insert("name", Node::string(name));
            let kind = input.get("type").and_then(Node::as_str).unwrap_or("");
            m.insert("type", Node::string(kind));
            m.insert(
                "default",
                input.get("default").cloned().unwrap_or_else(Node::null),
            );
            m.insert("values", Node::seq(allowed_values(input, kind)));
            Node::map(m)
        })
        .collect();
    let mut out = Map::new();
    out.insert("presets", Node::seq(presets));
    out.insert("inputs", Node::seq(inputs));
    to_json(&Node::map(out))
}

/// The entries of a section in map form (`name: definition`) or list form
/// (`- name: definition`).
fn named(section: &Node) -> Vec<(&str, &Node)> {
    match &section.value {
        Value::Map(m) => m.iter().map(|(k, v)| (&*k.name, v)).collect(),
        Value::Seq(items) => items
            .iter()
            .filter_map(|item| item.as_map()?.first())
            .map(|(k, v)| (&*k.name, v))
            .collect(),
        _ => Vec::new(),
    }
}

/// A string value, or null.
fn text(node: Option<&Node>) -> Node {
    node.and_then(Node::as_str)
        .map_or_else(Node::null, Node::string)
}

/// The values an input may take where the template lists them: a
/// `valid_values` constraint, or both truth values of a boolean.
fn allowed_values(input: &Node, kind: &str) -> Vec<Node> {
    if kind == "boolean" {
        return vec![Node::bool(true), Node::bool(false)];
    }
    let constraints = input.get("constraints").and_then(Node::as_seq);
    constraints
        .into_iter()
        .flatten()
        .find_map(|c| c.get("valid_values")?.as_seq())
        .cloned()
        .unwrap_or_default()
}
