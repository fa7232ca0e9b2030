//! Warnings: things in a template that are legal but probably mistakes.
//!
//! Input: the loaded document (read only, before enrichment, so that every
//! node still carries the span the user wrote). Output: a list of
//! [`Warning`]s. Warnings never change the result or the outcome of a run;
//! this module only reads.
//!
//! * **Unused variability input.** An input declared in
//!   `variability.inputs` of the topology whose name is never the argument
//!   of a `variability_input` operator anywhere in the document (conditions,
//!   named expressions, constraints, other inputs' `default_expression`,
//!   property expressions, type-specific conditions). Assigning it in a
//!   preset or an inputs file does not count as a use: such a value is read
//!   by nothing.
//! * **Unknown key.** A key of a node template, of a requirement assignment
//!   (map form) or of a wrapped property (a map with `value` or
//!   `expression`) that is neither a TOSCA Simple Profile 1.3 key nor a
//!   Variability4TOSCA key.
//! * **Self-referencing requirement.** A requirement whose target is the
//!   node that declares it (the reference accepts it, and conformance tests
//!   use it to test relation conditions, but no orchestrator can deploy it).

use crate::document;
use crate::fxhash::FxHashSet;
use v4t_source::{Code, Diagnostic};
use v4t_yaml::{Map, Node, Value};

/// A warning: a [`Diagnostic`] of severity warning, located at the node it
/// is about.
pub(crate) type Warning = Diagnostic;

/// The element-level Variability4TOSCA keys (conditions and per-element options).
const V4T_ELEMENT_KEYS: &[&str] = &[
    "conditions",
    "default_alternative",
    "default_condition",
    "default_condition_mode",
    "default_consistency_condition",
    "default_semantic_condition",
    "pruning",
    "consistency_pruning",
    "semantic_pruning",
    "implies",
    "implied",
    "weight",
];

/// TOSCA 1.3 node template keys plus the node-only V4T keys.
const NODE_KEYS: &[&str] = &[
    "type",
    "description",
    "metadata",
    "directives",
    "properties",
    "attributes",
    "requirements",
    "capabilities",
    "interfaces",
    "artifacts",
    "node_filter",
    "copy",
    "anchor",
    "persistent",
    "managed",
    "technology",
];

/// TOSCA 1.3 requirement assignment keys.
const REQUIREMENT_KEYS: &[&str] = &[
    "node",
    "capability",
    "relationship",
    "node_filter",
    "occurrences",
];

/// Wrapped property keys.
const PROPERTY_KEYS: &[&str] = &["value", "expression"];

/// Collects the warnings for `doc`.
pub(crate) fn lint(doc: &Node) -> Vec<Warning> {
    let mut out = Vec::new();
    let Some(tt) = document::topology(doc).filter(|n| n.as_map().is_some()) else {
        return out;
    };
    unused_inputs(doc, tt, &mut out);
    unknown_keys(tt, &mut out);
    out
}

fn unused_inputs(doc: &Node, tt: &Node, out: &mut Vec<Warning>) {
    let Some(inputs) = tt
        .get("variability")
        .and_then(|v| v.get("inputs"))
        .and_then(Node::as_map)
    else {
        return;
    };
    if inputs.is_empty() {
        return;
    }
    // The declared inputs referred to so far; the walk ends once all are.
    let mut used: FxHashSet<&str> = FxHashSet::default();
    // Iterative walk in document order (children pushed last to first), so
    // that the variability section, where inputs are usually used, comes
    // before the templates: documents can be deep (up to the parser's depth
    // limit).
    let mut stack = vec![doc];
    while let Some(n) = stack.pop() {
        match &n.value {
            Value::Map(m) => {
                if let Some(name) = m.get("variability_input").and_then(Node::as_str) {
                    if inputs.contains_key(name) && used.insert(name) && used.len() == inputs.len()
                    {
                        return;
                    }
                }
                stack.extend(m.iter().rev().map(|(_, v)| v));
            }
            Value::Seq(items) => stack.extend(items.iter().rev()),
            _ => {}
        }
    }
    for (name, _) in inputs.iter() {
        if !used.contains(name.name.as_str()) {
            let message = format!(
                "Variability input \"{}\" is never used by a condition or an expression",
                name.name
            );
            out.push(Diagnostic::warning(Code::UnusedInput, message).at(name.span));
        }
    }
}

fn unknown_keys(tt: &Node, out: &mut Vec<Warning>) {
    let mut nodes: Vec<(&str, &Node)> = Vec::new();
    match tt.get("node_templates").map(|n| &n.value) {
        Some(Value::Map(m)) => nodes.extend(m.iter().map(|(k, v)| (k.name.as_str(), v))),
        Some(Value::Seq(items)) => {
            for item in items {
                if let Some(m) = item.as_map() {
                    nodes.extend(m.iter().map(|(k, v)| (k.name.as_str(), v)));
                }
            }
        }
        _ => {}
    }
    for (name, node) in nodes {
        let Some(m) = node.as_map() else { continue };
        check_keys(m, || format!("node template \"{name}\""), NODE_KEYS, out);
        if let Some(reqs) = m.get("requirements").and_then(Node::as_seq) {
            for req in reqs {
                let Some((rname, assignment)) = req.as_map().and_then(Map::first) else {
                    continue;
                };
                let target = match &assignment.value {
                    Value::Map(am) => am.get("node"),
                    _ => Some(assignment),
                };
                if let Some(t) = target.filter(|t| t.as_str() == Some(name)) {
                    let message = format!(
                        "Requirement \"{}\" of node template \"{name}\" refers to the node itself",
                        rname.name
                    );
                    out.push(Diagnostic::warning(Code::SelfReference, message).at(t.span));
                }
                if let Some(am) = assignment.as_map() {
                    let what =
                        || format!("requirement \"{}\" of node template \"{name}\"", rname.name);
                    check_keys(am, what, REQUIREMENT_KEYS, out);
                }
            }
        }
        if let Some(props) = m.get("properties").and_then(Node::as_seq) {
            for prop in props {
                let Some((pname, p)) = prop.as_map().and_then(Map::first) else {
                    continue;
                };
                let Some(pm) = p.as_map() else { continue };
                let wrapped = PROPERTY_KEYS
                    .iter()
                    .any(|k| pm.get(k).is_some_and(Node::is_defined));
                if wrapped {
                    let what =
                        || format!("property \"{}\" of node template \"{name}\"", pname.name);
                    check_keys(pm, what, PROPERTY_KEYS, out);
                }
            }
        }
    }
}

/// Warns about the keys of `m` that are neither in `own` nor V4T keys;
/// `what` names the map (only formatted for a warning).
fn check_keys(m: &Map, what: impl Fn() -> String, own: &[&str], out: &mut Vec<Warning>) {
    for (key, _) in m.iter() {
        let k = key.name.as_str();
        if !own.contains(&k) && !V4T_ELEMENT_KEYS.contains(&k) {
            let message = format!("Unknown key \"{k}\" in {}", what());
            out.push(Diagnostic::warning(Code::UnknownKey, message).at(key.span));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use v4t_yaml::{parse, SourceId};

    fn warnings(text: &str) -> Vec<(String, u32, u32)> {
        lint(&parse(text, SourceId(0)).unwrap())
            .into_iter()
            .map(|w| (w.message, w.span.line, w.span.col))
            .collect()
    }

    #[test]
    fn unused_inputs_are_reported_at_their_name() {
        let w = warnings(
            "topology_template:\n  variability:\n    inputs:\n      used: {}\n      unused: {}\n    expressions:\n      e: {variability_input: used}\n",
        );
        assert_eq!(
            w,
            [(
                "Variability input \"unused\" is never used by a condition or an expression"
                    .to_string(),
                5,
                7
            )]
        );
    }

    #[test]
    fn undeclared_and_repeated_references_do_not_count_as_uses() {
        let w = warnings(
            "topology_template:\n  variability:\n    inputs:\n      a: {}\n      b: {}\n    expressions:\n      e: {and: [{variability_input: a}, {variability_input: a}, {variability_input: x}]}\n",
        );
        let messages: Vec<_> = w.iter().map(|(m, _, _)| m.as_str()).collect();
        assert_eq!(
            messages,
            ["Variability input \"b\" is never used by a condition or an expression"]
        );
        let all_used = warnings(
            "topology_template:\n  variability:\n    inputs:\n      a: {}\n      b: {}\n    expressions:\n      e: [{variability_input: b}, {variability_input: a}]\n",
        );
        assert!(all_used.is_empty(), "{all_used:?}");
    }

    #[test]
    fn unknown_keys_of_nodes_requirements_and_wrapped_properties() {
        let w = warnings(
            "topology_template:\n  node_templates:\n    a:\n      type: x\n      conditions: true\n      condition: true\n      requirements:\n        - host: {node: b, conditons: false}\n        - dep: b\n      properties:\n        - p: {value: 1, valeu: 2}\n        - q: {unwrapped: map}\n",
        );
        let messages: Vec<_> = w.iter().map(|(m, l, _)| (m.as_str(), *l)).collect();
        assert_eq!(
            messages,
            [
                ("Unknown key \"condition\" in node template \"a\"", 6),
                (
                    "Unknown key \"conditons\" in requirement \"host\" of node template \"a\"",
                    8
                ),
                (
                    "Unknown key \"valeu\" in property \"p\" of node template \"a\"",
                    11
                ),
            ]
        );
    }
}
