//! Enrichment: makes every generated condition and constraint explicit in the
//! template, so that solving only evaluates conditions (part 1, sections 7-11).
//!
//! Input: a loaded template. Output: the same template with final condition
//! lists on every element, the generated constraints appended to
//! `variability.constraints`, variability groups removed and enrichment-only
//! keys and options deleted. This is also what `v4t enrich` prints. For
//! resolving, [`enrich_for_resolving`] keeps the final lists and the
//! generated constraints in graph #2, which becomes the resolver graph ([`crate::graph::rebuild`]).

mod conditions;
mod constraints;
pub(crate) mod technologies;
#[cfg(test)]
mod tests;

use crate::config::{Config, Version};
use crate::document;
use crate::error::Result;
use crate::graph::{self, Graph};
use crate::normalize::{self, normalize, TypeShape};
use crate::options;
use crate::types::TypeSystem;
use crate::version::Grammar;
use v4t_source::Code;
use v4t_yaml::{Key, Map, MapRef, Node, NodeRef, SeqRef, Span};

/// Per-element option keys removed by the enricher (11.1).
const ELEMENT_OPTION_KEYS: [&str; 8] = [
    "default_condition",
    "default_consistency_condition",
    "default_semantic_condition",
    "default_condition_mode",
    "pruning",
    "consistency_pruning",
    "semantic_pruning",
    "default_alternative",
];

/// Whether a definition may hold per-element option keys: a cheap test
/// first (every one of [`ELEMENT_OPTION_KEYS`] starts with `default_` or ends
/// with `pruning`), as most definitions hold none.
fn may_hold_options<'a>(m: impl Into<MapRef<'a>>) -> bool {
    let m = m.into();
    m.keys()
        .any(|k| k.starts_with("default_") || k.ends_with("pruning"))
}

/// `{key: value}` with room for `capacity` entries. The enricher creates
/// millions of small condition maps; `Node::single` would reserve room for
/// four entries (`Vec`'s minimum growth), 352 bytes for one entry.
fn map_with(capacity: usize, key: &str, value: Node) -> Node {
    let mut m = Map::with_capacity(capacity);
    m.push(Key::new(key, Span::NONE), value);
    Node::map(m)
}

/// `{key: value}` with room for exactly one entry.
fn single(key: &str, value: Node) -> Node {
    map_with(1, key, value)
}

/// `{key: value}` with room for a second entry (`_generated`, `_bratan`).
fn single_flagged(key: &str, value: Node) -> Node {
    map_with(2, key, value)
}

/// Enriches `doc` (of version `version`) in place; returns the template's
/// configuration, read once the document is normalised.
pub(crate) fn enrich(doc: &mut Node, version: Version, types: &TypeSystem<'_>) -> Result<Config> {
    enrich_doc(doc, version, types, false, Constraints::Kept).map(|(config, _)| config)
}

/// What the enricher does with the generated constraints when resolving.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Constraints {
    /// Kept in the graph, for the encoder.
    Kept,
    /// Derived, so that their errors stand, but not kept: no stage after
    /// reads them (a drawing of the variable template).
    Dropped,
}

/// [`enrich`] for the resolver. If the write-back keeps every element in
/// place (it removes no variability group), the final condition lists stay
/// in the elements of graph #2 (and the generated constraints in
/// [`Graph::constraints`]) instead of going into the document, and the
/// graph is returned for [`graph::rebuild`]; otherwise this is [`enrich`]
/// and the graph is `None`.
pub(crate) fn enrich_for_resolving(
    doc: &mut Node,
    version: Version,
    types: &TypeSystem<'_>,
    constraints: Constraints,
) -> Result<(Config, Option<Graph>)> {
    enrich_doc(doc, version, types, true, constraints)
}

fn enrich_doc(
    doc: &mut Node,
    version: Version,
    types: &TypeSystem<'_>,
    keep_graph: bool,
    constraints: Constraints,
) -> Result<(Config, Option<Graph>)> {
    let automatic = options::automatic_default_alternatives(document::options(&*doc))?;
    // When resolving, single types stay as written (the graph reads them
    // as lists); `v4t enrich` prints the canonical lists.
    let types_shape = match keep_graph {
        true => TypeShape::Written,
        false => TypeShape::List,
    };
    normalize(doc, automatic, types_shape)?;
    let config = Config::read(&*doc, version, true).map_err(|e| e.or_code(Code::InvalidShape))?;
    let options = &config.options;
    // The fallback properties (5.3): in the document for the template
    // `v4t enrich` prints; when resolving, elements the graphs add (the
    // document gets them only if the resolver graph is built afresh from
    // it, below).
    if !keep_graph {
        graph::add_fallback_properties(doc, options);
    }
    // Graph #1: technologies and implementations.
    let mut placed = None;
    if technologies::may_edit((&*doc).into(), options) {
        // The edits touch only nodes' technology lists, which they
        // normalise; the property lists they leave as they are. When
        // resolving, the candidates' scenarios go to graph #2 directly.
        let g1 = graph::build_for_technologies(&*doc, options, types, keep_graph)?;
        placed = Some(technologies::enrich_technologies(
            doc, &g1, types, keep_graph,
        )?);
        drop(g1);
    }
    // Graph #2: conditions and constraints. (Without technology edits,
    // graph #2 raises graph #1's errors.)
    // The manual condition lists move from the document into the graph and
    // on into the enrichment; `write_back` replaces every one of them.
    let mut g2 = graph::build_moving_conditions(doc, options, types, keep_graph, placed.as_ref())?;
    drop(placed);
    let manual = g2.take_conditions();
    let conditions = conditions::enrich_conditions((&*doc).into(), &g2, types, manual)?;
    let constraints = constraints::enrich_constraints((&*doc).into(), &g2, types, constraints)?;
    let keep = keep_graph && keeps_elements((&*doc).into(), &g2);
    if keep_graph && !keep {
        // A fresh build reads the document the write-back leaves: every
        // type a list the type's conditions go into, and the fallback
        // properties as ordinary properties where graph #2 placed its own
        // (at the end of each list, in the same order), and the scenarios
        // of the technologies as `v4t enrich` writes them.
        normalize::canonical_shape(doc);
        graph::add_fallback_properties(doc, options);
        g2.write_placed_scenarios(doc);
    }
    let reshaped = write_back(doc, &mut g2, conditions, constraints, keep);
    if keep && reshaped {
        // A null definition became a map: normalise it as a fresh build
        // would see it (elsewhere the write-back keeps the canonical shape).
        normalize(doc, false, TypeShape::Written)?;
    }
    Ok((config, keep.then_some(g2)))
}

/// The `groups` after the write-back: without the variability groups
/// (`into_graph`: there are none, [`keeps_elements`]) and, on TOSCA 1.3,
/// without the section if no group is left.
fn write_back_groups(tt: &mut Map, g: &Graph, into_graph: bool) {
    let groups = tt.get("groups").and_then(Node::as_seq);
    if into_graph {
        // Every entry is a kept group ([`keeps_elements`]): the list or map
        // stays as it is, or goes where the other branch drops it (an empty
        // map goes with the transform).
        if groups.is_some_and(Vec::is_empty) && g.grammar() == Grammar::Tosca13 {
            tt.remove("groups");
        }
    } else if let Some(groups) = groups {
        let mut kept = Map::new();
        for (&gid, item) in g.groups().iter().zip(groups) {
            if g.get(gid).variability_group() {
                continue;
            }
            if let Some((k, v)) = item.as_map().and_then(Map::first) {
                kept.push(k.clone(), v.clone());
            }
        }
        // TOSCA 2.0 keeps the sections a template has (transform.rs).
        if kept.is_empty() && g.grammar() == Grammar::Tosca13 {
            tt.remove("groups");
        } else {
            tt.insert("groups", Node::map(kept));
        }
    }
}

/// Whether the write-back leaves every element where graph `g` found it: it
/// removes no variability group, and rebuilds `groups` from group elements
/// only, so every entry must be one.
fn keeps_elements(doc: NodeRef<'_>, g: &Graph) -> bool {
    let group_entries = document::topology_of(doc)
        .and_then(|t| t.get("groups"))
        .map_or(0, |groups| match groups.as_map() {
            Some(m) => m.len(),
            None => groups.as_seq().map_or(0, SeqRef::len),
        });
    group_entries == g.groups().len() && !g.groups().iter().any(|&x| g.get(x).variability_group())
}

/// The enricher transformer (11): final conditions into the raw elements
/// and the `implies` lists back into them (or, with `into_graph`, into the
/// graph's elements: the resolver reads them only there, and the generated
/// constraints into `g.constraints`),
/// variability groups and enrichment-only options removed. With
/// `into_graph` the document stays normalised unless a null definition
/// became a map, which the result tells.
fn write_back(
    doc: &mut Node,
    g: &mut Graph,
    conditions: conditions::Enriched,
    constraints: Vec<graph::Constraint>,
    into_graph: bool,
) -> bool {
    let mut reshaped = false;
    for (i, list) in conditions.lists.into_iter().enumerate() {
        let id = graph::ElementId(i as u32);
        if into_graph && !conditions.edit[i] {
            // A map without option keys: nothing to edit in the document.
            g.set_conditions(id, list);
            continue;
        }
        let Some(raw) = g.raw_mut(doc, id) else {
            // A fallback property the graph added: only in the graph.
            if into_graph {
                g.set_conditions(id, list);
            }
            continue;
        };
        if raw.is_null() {
            *raw = Node::map(Map::new());
            reshaped = true;
        }
        let Some(m) = raw.as_map_mut() else {
            // Written as a scalar when resolving (a requirement assignment
            // `r: x`, an import): no key to edit.
            if into_graph {
                g.set_conditions(id, list);
            }
            continue;
        };
        if may_hold_options(&*m) && m.keys().any(|k| ELEMENT_OPTION_KEYS.contains(&k)) {
            m.retain(|k, _| !ELEMENT_OPTION_KEYS.contains(&k.name.as_str()));
        }
        if into_graph {
            g.set_conditions(id, list);
        } else {
            // The YAML form of generated conditions exists only here.
            let list = list.into_iter().map(|c| c.into_node(g)).collect();
            m.insert("conditions", Node::seq(list));
        }
    }
    if !into_graph {
        // Back where they were written, for the template `v4t enrich`
        // prints (or a fresh build moves them again).
        for (id, implies) in g.take_implies() {
            if let Some(slot) = g.raw_mut(doc, id).and_then(|r| r.get_mut("implies")) {
                *slot = implies;
            }
        }
    }
    let Some(tt) = document::topology_map_mut(doc) else {
        return reshaped;
    };
    if !constraints.is_empty() {
        if let Some(v) = tt.map_entry("variability") {
            if into_graph {
                // After `variability.constraints` in the solver, as if appended.
                g.set_constraints(constraints);
            } else {
                // The YAML form of generated constraints exists only here.
                let constraints = constraints.iter().map(|c| c.to_node(g));
                match v.get_mut("constraints").and_then(Node::as_seq_mut) {
                    Some(list) => list.extend(constraints),
                    None => v.insert("constraints", Node::seq(constraints.collect())),
                }
            }
        }
    }
    write_back_groups(tt, g, into_graph);
    if let Some(v) = tt.get_mut("variability").and_then(Node::as_map_mut) {
        for k in ["qualities", "type_specific_conditions", "plugins"] {
            v.remove(k);
        }
        if v.get("inputs")
            .and_then(Node::as_map)
            .is_some_and(Map::is_empty)
        {
            v.remove("inputs");
        }
        if let Some(o) = v.get_mut("options").and_then(Node::as_map_mut) {
            o.retain(|k, _| !crate::options::is_enrichment_only(&k.name));
            if o.is_empty() {
                v.remove("options");
            }
        }
        if v.is_empty() {
            tt.remove("variability");
        }
    }
    reshaped
}
