//! TOSCA 2.0 references of the resolved template that Variability4TOSCA
//! does not cover (notes §4.3, items 4, 7, 8 and 10), checked after solving.
//!
//! Input: the resolver document, its graph and a [`Logic`] of presence.
//! Like the checks of `check`, they are written once: resolving runs them
//! on its solution (`bool`: the first element whose references break in
//! this variant is the error), `v4t analyze` builds them as SAT literals
//! over every configuration (one violation per element and reason, in the
//! same order). What they find:
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

use crate::check::Logic;
use crate::document;
use crate::error::{Error, Result};
use crate::graph::{ElementId, Graph, Kind};
use crate::solve::Solution;
use crate::types::{Collection, TypeSystem};
use crate::version::Grammar;
use v4t_source::{Code, Diagnostic};
use v4t_tosca::DocId;
use v4t_yaml::hash::{SeededMap, Seen};
use v4t_yaml::{MapRef, NodeRef, Span, ValueRef};

/// Checks the references of the present elements (nothing on TOSCA 1.3),
/// in this order: types of absent imports, what present elements read,
/// substitution mappings, workflows, group members.
pub(crate) fn checks<L: Logic>(
    doc: NodeRef<'_>,
    g: &Graph,
    types: &TypeSystem<'_>,
    l: &mut L,
) -> Result<()> {
    if g.grammar() != Grammar::Tosca2 {
        return Ok(());
    }
    absent_imports(g, types, l)?;
    reads(g, l)?;
    let Some(tt) = document::topology_of(doc) else {
        return Ok(());
    };
    if let Some(sm) = tt.get("substitution_mappings") {
        substitution_mappings(sm, g, l)?;
    }
    if let Some(workflows) = tt.get("workflows").and_then(NodeRef::as_map) {
        for (name, w) in workflows.iter() {
            workflow(name.name(), w, g, l)?;
        }
    }
    tuple_members(g, l)
}

/// Whether element `x` is in the output: present, in present containers.
fn written<L: Logic>(g: &Graph, l: &mut L, mut x: ElementId) -> L::B {
    let mut chain = Vec::new();
    loop {
        let here = l.present(x);
        if l.is_false(here) {
            return here;
        }
        chain.push(here);
        match g.get(x).container() {
            Some(c) => x = c,
            None => return l.and(&chain),
        }
    }
}

/// Whether one of the elements of `list` named `name` is present.
fn named_present<L: Logic>(g: &Graph, l: &mut L, list: &[ElementId], name: &str) -> L::B {
    let lits: Vec<L::B> = list
        .iter()
        .filter(|&&i| g.name(i) == name)
        .map(|&i| l.present(i))
        .collect();
    l.or(&lits)
}

/// Whether the node template `name` is present (false if there is none).
fn node_present<L: Logic>(g: &Graph, l: &mut L, name: &str) -> L::B {
    match g.node(name) {
        Some(n) => l.present(n),
        None => l.constant(false),
    }
}

/// Present elements read present inputs and nodes: each element that
/// reads something, or another element of its reads with the kind and name
/// of it (list-form alternatives of one input).
fn reads<L: Logic>(g: &Graph, l: &mut L) -> Result<()> {
    let mut reads: Vec<ElementId> = Vec::new();
    let mut alternatives = Vec::new();
    for x in g.ordered() {
        reads.clear();
        reads.extend(g.reads(x));
        if reads.is_empty() {
            continue;
        }
        let here = written(g, l, x);
        if l.is_false(here) {
            continue;
        }
        for &c in &reads {
            let (kind, name) = (g.get(c).kind, g.name(c));
            alternatives.clear();
            alternatives.push(l.present(c));
            for &o in &reads {
                if o != c && g.get(o).kind == kind && g.name(o) == name {
                    alternatives.push(l.present(o));
                }
            }
            let some = l.or(&alternatives);
            let none = l.not(some);
            let when = l.and(&[here, none]);
            l.violation(when, || {
                let target = g.get(c);
                let what = match target.kind {
                    Kind::Input => format!("reads input \"{}\"", g.name(c)),
                    _ => format!("refers to {}", g.display(c)),
                };
                Error::coded(
                    Code::Inconsistent,
                    format!("{} {what}, which is absent", g.Display(x)),
                    g.get(x).span,
                )
                .in_element(g.id(x))
            })?;
        }
    }
    Ok(())
}

/// The types the result uses come from present imports (notes §4.3 item
/// 11): the template's own types derive from no type of an absent import,
/// and no present type assignment names one. Checked where some import is
/// absent; a type fails with the first type of its chain from a file that
/// no present import reaches.
fn absent_imports<L: Logic>(g: &Graph, types: &TypeSystem<'_>, l: &mut L) -> Result<()> {
    let imports: Vec<L::B> = g.imports().iter().map(|&i| l.present(i)).collect();
    let all = l.and(&imports);
    let some_absent = l.not(all);
    if l.is_false(some_absent) {
        return Ok(());
    }
    let mut files = Reachable {
        from: g
            .imports()
            .iter()
            .map(|&i| {
                let span = g.get(i).span;
                types.reachable(&|s| s == span)
            })
            .collect(),
        imports,
        known: Vec::new(),
    };
    // The first violation of a chain is the error: later ones need no
    // "every earlier file is reached".
    let mut from_absent = |l: &mut L,
                           t: v4t_tosca::TypeId,
                           when: L::B,
                           error: &dyn Fn(v4t_tosca::TypeId) -> Error|
     -> Result<()> {
        for x in types.chain_of(t) {
            let Some(d) = types.imported_from(x) else {
                continue;
            };
            let reached = files.of(l, d);
            let unreached = l.not(reached);
            let violated = l.and(&[when, some_absent, unreached]);
            l.violation(violated, || error(x))?;
        }
        Ok(())
    };
    // Variability group types are not part of the result (the transformation
    // drops them), whatever they derive from.
    let always = l.constant(true);
    for t in types.own().filter(|&t| !types.is_variability_group_type(t)) {
        from_absent(l, t, always, &|x| {
            absent(
                types.span(t),
                format!(
                    "Type \"{}\" derives from \"{}\", which only an absent import defines",
                    types.name(t),
                    types.name(x)
                ),
            )
        })?;
    }
    for &ty in g.types() {
        let here = l.present(ty);
        if l.is_false(here) {
            continue;
        }
        let Some(c) = g
            .get(ty)
            .container()
            .and_then(|c| Collection::of(g.get(c).kind))
        else {
            continue;
        };
        let Some(t) = types.resolve(c, g.name(ty)) else {
            continue;
        };
        from_absent(l, t, here, &|x| {
            absent(
                g.get(ty).span,
                format!(
                    "{} is \"{}\", which only an absent import defines",
                    g.Display(ty),
                    types.name(x)
                ),
            )
            .in_element(g.id(ty))
        })?;
    }
    Ok(())
}

/// Which files present imports reach, per file a truth value built once.
struct Reachable<B> {
    /// Per import of the graph, the files it reaches.
    from: Vec<Vec<bool>>,
    /// Per import of the graph, whether it is present.
    imports: Vec<B>,
    /// Per file, its truth value once built.
    known: Vec<Option<B>>,
}

impl<B: Copy> Reachable<B> {
    /// Whether a present import reaches file `d`.
    fn of<L: Logic<B = B>>(&mut self, l: &mut L, d: DocId) -> B {
        if let Some(Some(b)) = self.known.get(d.index()) {
            return *b;
        }
        let by: Vec<B> = self
            .from
            .iter()
            .zip(&self.imports)
            .filter(|(files, _)| files.get(d.index()).copied().unwrap_or(false))
            .map(|(_, &b)| b)
            .collect();
        let b = l.or(&by);
        if self.known.len() <= d.index() {
            self.known.resize(d.index() + 1, None);
        }
        self.known[d.index()] = Some(b);
        b
    }
}

/// The error for `what` at `span`, which names something absent.
fn absent(span: Span, what: String) -> Error {
    Error::coded(Code::Inconsistent, what, span)
}

/// The node template names of a mapping target: `node`, `[node, name]`,
/// `[[node, name], ...]`.
fn mapped_nodes(target: NodeRef<'_>) -> Vec<NodeRef<'_>> {
    match target.value() {
        ValueRef::String(_) => vec![target],
        ValueRef::Seq(items) => match items.first().map(NodeRef::value) {
            Some(ValueRef::String(_)) => items.first().into_iter().collect(),
            Some(ValueRef::Seq(_)) => items
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
fn substitution_mappings<L: Logic>(sm: NodeRef<'_>, g: &Graph, l: &mut L) -> Result<()> {
    let entries = |key: &str| -> Vec<(String, NodeRef<'_>)> {
        match sm.get(key).map(NodeRef::value) {
            Some(ValueRef::Map(m)) => m.iter().map(|(k, v)| (k.name().to_string(), v)).collect(),
            Some(ValueRef::Seq(items)) => items
                .iter()
                .filter_map(|i| i.as_map().and_then(MapRef::first))
                .map(|(k, v)| (k.name().to_string(), v))
                .collect(),
            _ => Vec::new(),
        }
    };
    for key in ["capabilities", "requirements"] {
        for (name, target) in entries(key) {
            for node in mapped_nodes(target) {
                let Some(n) = node.as_str() else { continue };
                let here = node_present(g, l, n);
                let gone = l.not(here);
                l.violation(gone, || {
                    absent(
                        node.span(),
                        format!("Substitution mapping \"{key}.{name}\" maps to node \"{n}\", which is absent"),
                    )
                })?;
            }
        }
    }
    for (key, what, list) in [
        ("properties", "input", g.inputs()),
        ("attributes", "output", g.outputs()),
    ] {
        for (name, target) in entries(key) {
            let Some(n) = target.as_str() else { continue };
            let here = named_present(g, l, list, n);
            let gone = l.not(here);
            l.violation(gone, || {
                absent(
                    target.span(),
                    format!(
                        "Substitution mapping \"{key}.{name}\" maps to {what} \"{n}\", which is absent"
                    ),
                )
            })?;
        }
    }
    Ok(())
}

/// A workflow's steps target present nodes or groups (§13).
fn workflow<L: Logic>(name: &str, w: NodeRef<'_>, g: &Graph, l: &mut L) -> Result<()> {
    let Some(steps) = w.get("steps").and_then(NodeRef::as_map) else {
        return Ok(());
    };
    for (step, def) in steps.iter() {
        let Some(target) = def.get("target") else {
            continue;
        };
        let Some(t) = target.as_str() else { continue };
        let node = node_present(g, l, t);
        let group = match g.group(t) {
            Some(gr) => l.present(gr),
            None => l.constant(false),
        };
        let some = l.or(&[node, group]);
        let gone = l.not(some);
        l.violation(gone, || {
            absent(
                target.span(),
                format!(
                    "Step \"{}\" of workflow \"{name}\" targets \"{t}\", which is absent",
                    step.name()
                ),
            )
        })?;
    }
    Ok(())
}

/// Present groups that are no variability groups have no `[node,
/// requirement]` members (only variability groups may: notes §4.3 item 8).
/// A group fails with its first present relation member (later violations
/// of the group come after it, so they need no "no earlier one").
fn tuple_members<L: Logic>(g: &Graph, l: &mut L) -> Result<()> {
    for &gr in g.groups() {
        let e = g.get(gr);
        if e.variability_group() {
            continue;
        }
        let here = l.present(gr);
        if l.is_false(here) {
            continue;
        }
        for &m in e.members() {
            if g.get(m).kind != Kind::Relation {
                continue;
            }
            let member = l.present(m);
            let when = l.and(&[here, member]);
            l.violation(when, || {
                let span = e.members_span().unwrap_or(e.span);
                absent(
                    span,
                    format!(
                        "{} has the member {}, but in TOSCA 2.0 only node templates and groups are group members",
                        g.Display(gr),
                        g.display(m)
                    ),
                )
            })?;
        }
    }
    Ok(())
}

/// Warnings for present nodes that keep fewer relationships of a
/// requirement than the minimum of its `count_range` although the template
/// assigns it (pruning removed assignments).
pub(crate) fn count_range_warnings(
    g: &Graph,
    solution: &Solution,
    types: &TypeSystem<'_>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // Node types are shared by many nodes: their minimums are read once.
    let mut minimums: SeededMap<v4t_tosca::TypeId, Seen<'_, u64>> = SeededMap::default();
    for &n in g.nodes().iter().filter(|&&n| solution.is_present(n)) {
        let e = g.get(n);
        if e.outgoing().is_empty() {
            continue;
        }
        let Some(&t) = e.types().iter().find(|&&t| solution.is_present(t)) else {
            continue;
        };
        let Some(node_type) = types.resolve(Collection::Node, g.name(t)) else {
            continue;
        };
        let minimums = minimums
            .entry(node_type)
            .or_insert_with(|| minimum_counts(types, node_type));
        // The relationships of each requirement name, kept and written, in
        // the order the names are first met; one pass over the relations.
        let mut counts: Seen<'_, (u64, u64)> = Seen::new();
        for &r in e.outgoing() {
            let written = g.relationships(r);
            let kept = if solution.is_present(r) { written } else { 0 };
            match counts.get_mut(g.name(r)) {
                Some((k, w)) => {
                    *k = k.saturating_add(kept);
                    *w = w.saturating_add(written);
                }
                None => counts.insert(g.name(r), (kept, written)),
            }
        }
        for (name, (kept, written)) in counts.into_entries() {
            let Some(&min) = minimums.get(name) else {
                continue;
            };
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

/// The minimum of the `count_range` of each requirement of node type `t`:
/// of the first definition of the name in `t` or in its nearest ancestor
/// whose first definition of the name gives one (a positive integer). All
/// names at once: a lookup of each name in the definitions was quadratic in
/// a type's requirements.
fn minimum_counts<'t>(types: &TypeSystem<'t>, t: v4t_tosca::TypeId) -> Seen<'t, u64> {
    let mut minimums = Seen::new();
    for x in types.chain_of(t) {
        let Some(reqs) = types
            .definition(x)
            .and_then(|d| d.get("requirements"))
            .and_then(NodeRef::as_seq)
        else {
            continue;
        };
        // Only the first definition of a name in a type counts.
        let mut met: Seen<'t, ()> = Seen::new();
        for (k, def) in reqs
            .iter()
            .filter_map(|r| r.as_map().and_then(|m| m.first()))
        {
            let name = k.name();
            if met.get(name).is_some() {
                continue;
            }
            met.insert(name, ());
            if minimums.get(name).is_some() {
                continue;
            }
            let min = def
                .get("count_range")
                .and_then(NodeRef::as_seq)
                .and_then(|r| r.first())
                .and_then(NodeRef::as_f64)
                .filter(|m| *m > 0.0 && m.fract() == 0.0);
            if let Some(min) = min {
                minimums.insert(name, min as u64);
            }
        }
    }
    minimums
}

#[cfg(test)]
mod tests {
    use v4t_source::Sources;

    /// A node whose variant keeps fewer relationships of a requirement than
    /// the `count_range` of its type asks for, where pruning removed some,
    /// is warned about once per requirement name, in the order the names are
    /// first written; the minimum is the nearest definition's that gives one.
    #[test]
    fn count_range_warnings_name_each_requirement_pruned_below_its_minimum() {
        let text = "\
tosca_definitions_version: tosca_2_0
capability_types: {C: {}}
relationship_types: {R: {valid_capability_types: [C]}}
node_types:
  Base:
    capabilities: {c: {type: C}}
    requirements:
      - r: {capability: C, relationship: R, count_range: [2, 3]}
      - s: {capability: C, relationship: R, count_range: [1, 1]}
      - u: {capability: C, relationship: R, count_range: [0, 2]}
  Child:
    derived_from: Base
    requirements:
      - s: {capability: C, relationship: R}
      - v: {capability: C, relationship: R, count_range: [1, 1]}
service_template:
  variability:
    inputs:
      on: {type: boolean}
  node_templates:
    b: {type: Base}
    a:
      type: Child
      requirements:
        - v: {node: b, conditions: {variability_input: on}}
        - r: {node: b, conditions: {variability_input: on}}
        - s: {node: b, conditions: {variability_input: on}}
        - r: b
        - u: {node: b, conditions: {variability_input: on}}
";
        let mut sources = Sources::new();
        let p = crate::testing::prepare(&mut sources, text).expect("prepares");
        let types = p.files.system();
        let warnings = |on: bool| -> Vec<String> {
            let inputs = crate::testing::doc(&format!("{{on: {on}}}"))
                .as_map()
                .cloned()
                .unwrap_or_default();
            let solution =
                crate::solve::solve(&p.doc, &p.graph, &types, inputs, 0.0).expect("solves");
            super::count_range_warnings(&p.graph, &solution, &types)
                .into_iter()
                .map(|d| d.message)
                .collect()
        };
        assert_eq!(warnings(true), Vec::<String>::new());
        let pruned = warnings(false);
        let said = |name: &str, kept: u64, min: u64| {
            format!("keeps {kept} of the at least {min} relationships of requirement \"{name}\"")
        };
        assert_eq!(pruned.len(), 3, "{pruned:#?}");
        for (w, (name, kept, min)) in pruned.iter().zip([("v", 0, 1), ("r", 1, 2), ("s", 0, 1)]) {
            assert!(w.contains(&said(name, kept, min)), "{w}");
        }
    }

    /// The reference checks read the template's substitution mappings and
    /// workflows through [`v4t_yaml::NodeRef`]: on a `Doc` of the prepared
    /// template they fail (or pass) as on the tree, with the same message
    /// at the same place, under every assignment.
    #[test]
    fn a_document_is_checked_as_its_tree() {
        let text = "\
tosca_definitions_version: tosca_2_0
node_types:
  T:
    properties:
      p: {type: string, required: false}
    capabilities: {c: {type: C}}
capability_types: {C: {}}
service_template:
  variability:
    inputs:
      db: {type: boolean}
      flow: {type: boolean}
      mapped: {type: boolean}
  substitution_mappings:
    node_type: T
    capabilities:
      c: [front, c]
  node_templates:
    app: {type: T}
    database: {type: T, conditions: {variability_input: db}}
    front: {type: T, conditions: {variability_input: mapped}}
    worker: {type: T, conditions: {not: {variability_input: flow}}}
  outputs:
    address: {type: string, value: {$get_property: [database, p]}}
  workflows:
    w:
      steps:
        s: {target: worker, activities: [{set_state: started}]}
";
        let mut sources = Sources::new();
        let p = crate::testing::prepare(&mut sources, text).expect("prepares");
        let types = p.files.system();
        let read = v4t_yaml::Doc::from_node(&p.doc, p.doc.span.source);
        let mut outcomes = Vec::new();
        for inputs in [
            "{db: true, flow: false, mapped: true}",
            "{db: false, flow: false, mapped: true}",
            "{db: true, flow: false, mapped: false}",
            "{db: true, flow: true, mapped: true}",
        ] {
            let inputs = crate::testing::doc(inputs)
                .as_map()
                .cloned()
                .unwrap_or_default();
            let solution =
                crate::solve::solve(&p.doc, &p.graph, &types, inputs, 0.0).expect("solves");
            let check = |doc| {
                crate::check_references(doc, &p.graph, &solution, &types)
                    .map_err(|e| (e.message.clone(), e.span.locate(text).start()))
            };
            let tree = check(v4t_yaml::NodeRef::from(&p.doc));
            assert_eq!(tree, check(read.root()));
            outcomes.push(tree);
        }
        let failed: Vec<_> = outcomes.iter().filter_map(|o| o.as_ref().err()).collect();
        assert_eq!(failed.len(), 3, "{outcomes:?}");
        assert!(failed
            .iter()
            .any(|(m, _)| m.starts_with("Substitution mapping")));
        assert!(failed
            .iter()
            .any(|(m, _)| m.starts_with("Step \"s\" of workflow")));
    }
}
