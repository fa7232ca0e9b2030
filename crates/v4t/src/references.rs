//! TOSCA 2.0 references of the resolved template that Variability4TOSCA
//! does not cover (notes §4.3, items 4, 7, 8 and 10), checked after solving.
//!
//! Input: the resolver document, its graph and the solution. Output: `Ok`
//! or the first element whose references break in this variant, named:
//!
//! * a present element that reads an absent input (`$get_input`) or names
//!   an absent node (`$get_property`/`$get_attribute`, `copy`), an output
//!   whose producing node is absent;
//! * substitution mappings and workflow steps naming absent node templates,
//!   inputs or outputs (V4T has no conditions for them: pruning them would
//!   silently change what the template exports or does, so they are
//!   checked, not pruned);
//! * a present group other than a variability group with a
//!   `[node, requirement]` member (only variability groups may have them).
//!
//! And, as warnings, requirements that pruning leaves below the minimum of
//! their definition's `count_range` (§8.5.4: a TOSCA 2.0 processor would add
//! an implicit assignment, a dangling requirement, at deployment).

use crate::document;
use crate::error::{Error, Result};
use crate::graph::{ElementId, Graph, Kind};
use crate::solve::Solution;
use crate::types::{Collection, TypeSystem};
use v4t_source::{Code, Diagnostic};
use v4t_yaml::{Node, Span, Value};

/// Checks the references of the present elements.
pub(crate) fn check(
    doc: &Node,
    g: &Graph,
    solution: &Solution,
    types: &TypeSystem<'_>,
) -> Result<()> {
    let present = |id: ElementId| solution.is_present(id);
    absent_imports(g, solution, types)?;
    // What the output has: present elements in present containers.
    let written = |mut x: ElementId| loop {
        if !present(x) {
            return false;
        }
        match g.get(x).container {
            Some(c) => x = c,
            None => return true,
        }
    };
    for x in g.ordered().filter(|&x| written(x)) {
        let e = g.get(x);
        let reads: Vec<ElementId> = g.reads(x).collect();
        for &c in &reads {
            if present(c) || same_named_present(g, &reads, c, &present) {
                continue;
            }
            let target = g.get(c);
            let what = match target.kind {
                Kind::Input => format!("reads input \"{}\"", target.name),
                _ => format!("refers to {}", g.display(c)),
            };
            return Err(Error::coded(
                Code::Inconsistent,
                format!("{} {what}, which is absent", g.Display(x)),
                e.span,
            )
            .in_element(g.id(x)));
        }
    }
    let Some(tt) = document::topology(doc) else {
        return Ok(());
    };
    let node_present = |name: &str| g.node(name).is_some_and(present);
    let named_present =
        |list: &[ElementId], name: &str| list.iter().any(|&i| g.get(i).name == name && present(i));
    if let Some(sm) = tt.get("substitution_mappings") {
        substitution_mappings(sm, &node_present, &|n| named_present(g.inputs(), n), &|n| {
            named_present(g.outputs(), n)
        })?;
    }
    if let Some(workflows) = tt.get("workflows").and_then(Node::as_map) {
        for (name, w) in workflows.iter() {
            workflow(&name.name, w, &node_present, &|n| {
                g.group(n).is_some_and(present)
            })?;
        }
    }
    tuple_members(doc, g, &present)
}

/// The types the result uses come from present imports (notes §4.3 item
/// 11): the template's own types derive from no type of an absent import,
/// and no present type assignment names one.
fn absent_imports(g: &Graph, solution: &Solution, types: &TypeSystem<'_>) -> Result<()> {
    let present = |id: ElementId| solution.is_present(id);
    if g.imports().iter().all(|&i| present(i)) {
        return Ok(());
    }
    let kept: Vec<Span> = g
        .imports()
        .iter()
        .filter(|&&i| present(i))
        .map(|&i| g.get(i).span)
        .collect();
    let reachable = types.reachable(&|span| kept.contains(&span));
    let from_absent = |t: v4t_tosca::TypeId| {
        types.chain_of(t).find(|&x| {
            types
                .imported_from(x)
                .is_some_and(|d| !reachable[d.index()])
        })
    };
    // Variability group types are not part of the result (the transformation
    // drops them), whatever they derive from.
    for t in types.own().filter(|&t| !types.is_variability_group_type(t)) {
        if let Some(x) = from_absent(t) {
            return Err(absent(
                types.span(t),
                format!(
                    "Type \"{}\" derives from \"{}\", which only an absent import defines",
                    types.name(t),
                    types.name(x)
                ),
            ));
        }
    }
    for &ty in g.types().iter().filter(|&&t| present(t)) {
        let Some(c) = g
            .get(ty)
            .container
            .and_then(|c| Collection::of(g.get(c).kind))
        else {
            continue;
        };
        let Some(x) = types.resolve(c, &g.get(ty).name).and_then(from_absent) else {
            continue;
        };
        return Err(absent(
            g.get(ty).span,
            format!(
                "{} is \"{}\", which only an absent import defines",
                g.Display(ty),
                types.name(x)
            ),
        )
        .in_element(g.id(ty)));
    }
    Ok(())
}

/// Whether another element of `list` with the kind and name of `c` is present
/// (list-form alternatives of one input).
fn same_named_present(
    g: &Graph,
    list: &[ElementId],
    c: ElementId,
    present: &impl Fn(ElementId) -> bool,
) -> bool {
    let (kind, name) = (g.get(c).kind, &g.get(c).name);
    list.iter()
        .any(|&o| o != c && g.get(o).kind == kind && g.get(o).name == *name && present(o))
}

/// The error for `what` at `span`, which names something absent.
fn absent(span: Span, what: String) -> Error {
    Error::coded(Code::Inconsistent, what, span)
}

/// The node template names of a mapping target: `node`, `[node, name]`,
/// `[[node, name], ...]`.
fn mapped_nodes(target: &Node) -> Vec<&Node> {
    match &target.value {
        Value::String(_) => vec![target],
        Value::Seq(items) => match items.first().map(|f| &f.value) {
            Some(Value::String(_)) => items.first().into_iter().collect(),
            Some(Value::Seq(_)) => items
                .iter()
                .filter_map(|i| i.as_seq().and_then(|p| p.first()))
                .collect(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// Substitution mappings (§15): capabilities and requirements name node
/// templates, properties inputs and attributes outputs.
fn substitution_mappings(
    sm: &Node,
    node_present: &dyn Fn(&str) -> bool,
    input_present: &dyn Fn(&str) -> bool,
    output_present: &dyn Fn(&str) -> bool,
) -> Result<()> {
    let entries = |key: &str| -> Vec<(String, &Node)> {
        match sm.get(key).map(|n| &n.value) {
            Some(Value::Map(m)) => m.iter().map(|(k, v)| (k.name.to_string(), v)).collect(),
            Some(Value::Seq(items)) => items
                .iter()
                .filter_map(|i| i.as_map().and_then(|m| m.first()))
                .map(|(k, v)| (k.name.to_string(), v))
                .collect(),
            _ => Vec::new(),
        }
    };
    for key in ["capabilities", "requirements"] {
        for (name, target) in entries(key) {
            for node in mapped_nodes(target) {
                let Some(n) = node.as_str().filter(|n| !node_present(n)) else {
                    continue;
                };
                return Err(absent(
                    node.span,
                    format!("Substitution mapping \"{key}.{name}\" maps to node \"{n}\", which is absent"),
                ));
            }
        }
    }
    for (key, what, present) in [
        ("properties", "input", input_present),
        ("attributes", "output", output_present),
    ] {
        for (name, target) in entries(key) {
            let Some(n) = target.as_str().filter(|n| !present(n)) else {
                continue;
            };
            return Err(absent(
                target.span,
                format!(
                    "Substitution mapping \"{key}.{name}\" maps to {what} \"{n}\", which is absent"
                ),
            ));
        }
    }
    Ok(())
}

/// A workflow's steps target present nodes or groups (§13).
fn workflow(
    name: &str,
    w: &Node,
    node_present: &dyn Fn(&str) -> bool,
    group_present: &dyn Fn(&str) -> bool,
) -> Result<()> {
    let Some(steps) = w.get("steps").and_then(Node::as_map) else {
        return Ok(());
    };
    for (step, def) in steps.iter() {
        let Some(target) = def.get("target") else {
            continue;
        };
        let Some(t) = target.as_str() else { continue };
        if !node_present(t) && !group_present(t) {
            return Err(absent(
                target.span,
                format!(
                    "Step \"{}\" of workflow \"{name}\" targets \"{t}\", which is absent",
                    step.name
                ),
            ));
        }
    }
    Ok(())
}

/// Present groups that are no variability groups have no `[node,
/// requirement]` members (only variability groups may: notes §4.3 item 8).
fn tuple_members(doc: &Node, g: &Graph, present: &impl Fn(ElementId) -> bool) -> Result<()> {
    for &gr in g.groups().iter().filter(|&&x| present(x)) {
        let e = g.get(gr);
        if e.variability_group() {
            continue;
        }
        let tuple = e
            .members()
            .iter()
            .find(|&&m| g.get(m).kind == Kind::Relation && present(m));
        if let Some(&m) = tuple {
            let span = g
                .raw(doc, gr)
                .and_then(|r| r.get("members"))
                .map_or(e.span, |n| n.span);
            return Err(absent(
                span,
                format!(
                    "{} has the member {}, but in TOSCA 2.0 only node templates and groups are group members",
                    g.Display(gr),
                    g.display(m)
                ),
            ));
        }
    }
    Ok(())
}

/// Warnings for present nodes that keep fewer relationships of a
/// requirement than the minimum of its `count_range` although the template
/// assigns it (pruning removed assignments).
pub(crate) fn count_range_warnings(
    doc: &Node,
    g: &Graph,
    solution: &Solution,
    types: &TypeSystem<'_>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for &n in g.nodes().iter().filter(|&&n| solution.is_present(n)) {
        let e = g.get(n);
        if e.outgoing().is_empty() {
            continue;
        }
        let Some(&t) = e.types.iter().find(|&&t| solution.is_present(t)) else {
            continue;
        };
        let Some(node_type) = types.resolve(Collection::Node, &g.get(t).name) else {
            continue;
        };
        let mut names: Vec<&str> = Vec::new();
        for &r in e.outgoing() {
            if !names.contains(&g.get(r).name.as_str()) {
                names.push(&g.get(r).name);
            }
        }
        for name in names {
            let Some(min) = minimum_count(types, node_type, name) else {
                continue;
            };
            let count = |present_only: bool| -> u64 {
                e.outgoing()
                    .iter()
                    .filter(|&&r| {
                        g.get(r).name == name && (!present_only || solution.is_present(r))
                    })
                    .map(|&r| relationships(g.raw(doc, r)))
                    .sum()
            };
            let (kept, written) = (count(true), count(false));
            // Only where pruning removed assignments.
            if kept < min && kept < written {
                let message = format!(
                    "{} keeps {kept} of the at least {min} relationships of requirement \"{name}\" (count_range of its type): a TOSCA 2.0 processor adds the missing ones at deployment (§8.5.4)",
                    g.Display(n)
                );
                let d = Diagnostic::warning(Code::CountRange, message).at(e.span);
                out.push(Diagnostic {
                    element: Some(g.id(n).to_string()),
                    ..d
                });
            }
        }
    }
    out
}

/// The number of relationships a requirement assignment establishes: its
/// `count` if it is a non-negative integer, else 1 (also for a function,
/// which is known at deployment only).
pub(crate) fn relationships(def: Option<&Node>) -> u64 {
    def.and_then(|d| d.get("count"))
        .and_then(Node::as_f64)
        .filter(|c| *c >= 0.0 && c.fract() == 0.0)
        .map_or(1, |c| c as u64)
}

/// The minimum of the `count_range` of requirement `name` in the definition
/// of node type `t` or of its nearest ancestor that defines it.
fn minimum_count(types: &TypeSystem<'_>, t: v4t_tosca::TypeId, name: &str) -> Option<u64> {
    types.chain_of(t).find_map(|x| {
        let reqs = types.definition(x)?.get("requirements")?.as_seq()?;
        let def = reqs
            .iter()
            .filter_map(|r| r.as_map().and_then(|m| m.first()))
            .find(|(k, _)| k.name == name)
            .map(|(_, d)| d)?;
        let min = def
            .get("count_range")
            .and_then(Node::as_seq)
            .and_then(|r| r.first())
            .and_then(Node::as_f64)
            .filter(|m| *m > 0.0 && m.fract() == 0.0)?;
        Some(min as u64)
    })
}
