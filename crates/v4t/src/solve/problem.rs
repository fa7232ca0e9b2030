//! The clauses of the resolver's problem: each element's presence from its
//! conditions (5.2), the constraints and element `implies` (5.4), encoded
//! by an [`Encoder`]. Resolving, the family problem of `v4t analyze` and the
//! explanation of "Could not solve" encode the same clauses; only the
//! encoder's mode differs.

use super::encode::Encoder;
use super::mode::{Mode, Part};
use crate::document;
use crate::error::{bail, Result};
use crate::graph::{entry_value, property_entry, ElementId, Graph, Loc, Owner};
use v4t_sat::Lit;
use v4t_yaml::NodeRef;

/// The clauses of the problem: every element's conditions, the constraints
/// (`variability.constraints`, then the generated ones) and `implies`.
/// Returns the elements in element order, whose presence variables come
/// first, so that numbering follows the graph.
pub(crate) fn encode_problem<M: Mode>(enc: &mut Encoder<'_, '_, M>) -> Result<Vec<ElementId>> {
    let graph = enc.graph;
    let doc = enc.doc;
    for g in graph.groups() {
        if graph.get(*g).variability_group() {
            bail!(graph.get(*g).span, "Variability groups are not allowed");
        }
    }
    let order: Vec<ElementId> = graph.ordered().collect();
    for &id in &order {
        enc.presence(id);
    }
    let mut buffers = (Vec::new(), Vec::new());
    for &id in &order {
        encode_element(enc, id, &mut buffers).map_err(|e| e.in_element(graph.id(id)))?;
    }
    if let Some(constraints) = document::variability_of(doc)
        .and_then(|v| v.get("constraints"))
        .and_then(NodeRef::as_seq)
    {
        for (i, c) in constraints.iter().enumerate() {
            enc.take_reads();
            enc.require_logic(c, None, Part::Constraint(i as u32))?;
        }
    }
    for (i, c) in graph.constraints().iter().enumerate() {
        enc.take_reads();
        enc.require_constraint(c, Part::Generated(i as u32));
    }
    for &id in &order {
        encode_implies(enc, id).map_err(|e| e.in_element(graph.id(id)))?;
    }
    Ok(order)
}

/// Manual and presence clauses of one element (5.2). `buffers` hold the
/// literals of all and of the manual conditions, reused across elements
/// (two allocations per element otherwise).
fn encode_element<M: Mode>(
    enc: &mut Encoder<'_, '_, M>,
    id: ElementId,
    buffers: &mut (Vec<Lit>, Vec<Lit>),
) -> Result<()> {
    let graph = enc.graph;
    let conditions = &graph.get(id).conditions;
    let presence = enc.presence(id);
    // Guarded: what each condition reads, from a clean start.
    let mut reads = Vec::new();
    enc.take_reads();
    if conditions.is_empty() {
        enc.define_manual(id, &[]);
        enc.require_lit(presence, Part::Presence(id));
        return Ok(());
    }
    let (all, manual_lits) = buffers;
    all.clear();
    manual_lits.clear();
    for c in conditions {
        let l = enc.cond(c, Some(id))?;
        if M::GUARDED {
            reads.push(enc.take_reads());
        }
        all.push(l);
        if !c.is_generated() {
            manual_lits.push(l);
        }
    }
    enc.define_manual(id, manual_lits);
    enc.define_presence(id, presence, all, reads);
    Ok(())
}

/// An element's `implies` list as written (5.4).
fn encode_implies<M: Mode>(enc: &mut Encoder<'_, '_, M>, id: ElementId) -> Result<()> {
    let graph = enc.graph;
    let Some(implies) = graph.implies(id) else {
        return Ok(());
    };
    let Some(pairs) = implies.as_seq() else {
        bail!(
            implies.span,
            "Element \"{}\" is not an array",
            v4t_yaml::json::to_json(implies)
        );
    };
    for (i, pair) in pairs.iter().enumerate() {
        let items = pair.as_seq().map(Vec::as_slice).unwrap_or(&[]);
        if items.len() > 2 {
            bail!(
                pair.span,
                "{} has an implies with more than 2 elements",
                graph.Display(id)
            );
        }
        let Some(target) = items.first().filter(|t| t.is_defined()) else {
            bail!(
                pair.span,
                "{} has an implies without an target",
                graph.Display(id)
            );
        };
        enc.take_reads();
        let me = enc.presence(id);
        let condition = match items.get(1) {
            Some(c) => Some(enc.logic(c, Some(id))?),
            None => None,
        };
        let right = enc.logic(target, Some(id))?;
        // `me & condition -> right`, as one clause.
        let part = Part::Implies(id, i as u32);
        match condition {
            Some(c) => enc.require_clause(&[!me, !c, right], part),
            None => enc.require_clause(&[!me, right], part),
        }
    }
    Ok(())
}

/// Raw element definitions like [`Graph::raw`], with the node templates
/// looked up once: `Graph::raw` walks from the document root for every
/// element, and most elements live in a node template.
pub(crate) struct RawDefs<'d> {
    doc: NodeRef<'d>,
    nodes: Option<NodeRef<'d>>,
}

impl<'d> RawDefs<'d> {
    pub(crate) fn new(doc: impl Into<NodeRef<'d>>) -> RawDefs<'d> {
        let doc = doc.into();
        let nodes = document::topology_of(doc).and_then(|t| t.get("node_templates"));
        RawDefs { doc, nodes }
    }

    pub(crate) fn get(&self, graph: &Graph, id: ElementId) -> Option<NodeRef<'d>> {
        let node = |i: u32| entry_value(self.nodes, i);
        let member = |i: u32, key: &str, index: u32| entry_value(node(i)?.get(key), index);
        if let Some(def) = graph.get(id).added_definition() {
            return Some(def.into());
        }
        match graph.get(id).loc {
            Loc::Node(i) => node(i),
            Loc::Relation { node, index } => member(node, "requirements", index),
            Loc::Artifact { node, index } => member(node, "artifacts", index),
            Loc::Technology { node, index } => member(node, "technology", index),
            Loc::Property {
                owner: Owner::Node(at),
                index,
            } => property_entry(node(at)?.get("properties"), index, graph.grammar()),
            Loc::Type {
                owner: Owner::Node(i),
                index,
            } => crate::graph::type_entry(node(i)?.get("type"), index),
            _ => graph.raw(self.doc, id),
        }
    }
}

#[cfg(test)]
mod raw_tests {
    use super::*;

    /// `RawDefs` finds the same definition as `Graph::raw` for every element,
    /// also for the fallback properties the graph added.
    #[test]
    fn raw_definitions_match_the_graph() {
        use crate::testing::{doc, normalize, options, type_files};
        let mut d = doc(crate::testing::ALL_ELEMENTS);
        normalize(&mut d).expect("normalizes");
        let files = type_files(&d);
        let types = files.system();
        let opts = options(&d).expect("options");
        let g = crate::graph::build_moving_conditions(&mut d.clone(), &opts, &types, true, None)
            .expect("builds");
        assert!(g
            .elements()
            .iter()
            .any(|e| matches!(e.fallback, crate::graph::Fallback::Added(_))));
        let raw = RawDefs::new(&d);
        let mut found = 0;
        for id in g.ordered() {
            let want = g
                .raw(&d, id)
                .and_then(NodeRef::as_tree)
                .map(std::ptr::from_ref);
            assert_eq!(
                raw.get(&g, id)
                    .and_then(NodeRef::as_tree)
                    .map(std::ptr::from_ref),
                want,
                "{}",
                g.id(id)
            );
            found += usize::from(want.is_some());
        }
        assert!(found > 15, "{found}");
    }
}
