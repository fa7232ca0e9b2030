//! Condition enrichment: every element's final condition list — manual
//! conditions, variability-group conditions, default-alternative ("bratan")
//! conditions, input-name conditions and the generated default or pruning
//! condition (part 1, section 9).

use super::single;
use crate::document;
use crate::error::{bail, Error, Result};
use crate::graph::{Cond, CondList, ElementId, Graph, IdList, Kind, Origin, Scopes};
use crate::logic::LogicOp as Op;
use crate::options::{self, ModeToken, Switches};
use crate::types::{Collection, TypeSystem};
use std::borrow::Cow;
use v4t_tosca::TypeId;
use v4t_yaml::json::to_json;
use v4t_yaml::{Map, MapRef, Node, NodeRef, Value, ValueRef};

/// A candidate default or pruning condition.
struct Wrapper {
    expr: Cond,
    consistency: bool,
    semantic: bool,
}

/// The final condition lists, indexed by [`ElementId`], and whether the
/// write-back must also edit an element's definition for the resolver: it
/// is no map (a null one becomes a map) or may hold element option keys.
/// Found while the definitions are at hand, so that the write-back for the
/// resolver looks up only those.
pub(super) struct Enriched {
    pub lists: Vec<CondList>,
    pub edit: Vec<bool>,
}

/// Computes the final condition list of every element from the manual lists
/// `manual` (indexed by [`ElementId`], taken out of the graph's elements).
///
/// The reference goes in element order ([`Graph::ordered`]: all types, then
/// all nodes, ...). An element's list depends only on the lists of elements
/// of its own kind (its alternatives), whose relative order is the same in
/// the arena, so this goes in arena order instead, which follows the
/// document and keeps memory accesses sequential. Of several errors, the one
/// of the element first in element order is returned, as the reference
/// would stop there.
pub(super) fn enrich_conditions(
    doc: NodeRef<'_>,
    graph: &Graph,
    types: &TypeSystem,
    manual: Vec<CondList>,
) -> Result<Enriched> {
    let g = graph;
    // An element's entry holds its manual list until its turn, then its final list.
    let mut current = manual;
    let variability = document::variability_of(doc);
    let inputs = variability
        .and_then(|v| v.get("inputs"))
        .and_then(NodeRef::as_map);
    let type_specific = variability
        .and_then(|v| v.get("type_specific_conditions"))
        .filter(|n| n.is_defined());
    if let Some(ts) = type_specific {
        if ts.as_map().is_none() {
            bail!(ts.span(), "Type-specific definitions not loaded");
        }
    }
    let mut rank = vec![0u32; g.elements().len()];
    for (r, id) in g.ordered().enumerate() {
        rank[id.0 as usize] = r as u32;
    }
    let mut edit = vec![false; g.elements().len()];
    let mut first_error: Option<(u32, Error)> = None;
    let definitions = g.definitions(doc);
    let kinds = Kinds::new(g)?;
    let named_by_input = match inputs.filter(|_| g.options().enrich_input_condition) {
        Some(m) => named_by_input(g, m),
        None => Vec::new(),
    };
    let context = Context {
        doc,
        g,
        types,
        named_by_input,
        type_specific,
        kinds: &kinds,
        scopes: Scopes::new(g),
    };
    for (i, &r) in rank.iter().enumerate() {
        let id = ElementId(i as u32);
        if first_error.as_ref().is_some_and(|(fr, _)| *fr < r) {
            continue;
        }
        let raw = definitions.raw_map(id);
        let own = raw.filter(|&m| super::may_hold_options(m));
        edit[i] = raw.is_none() || own.is_some();
        if let Err(e) = enrich_element(&context, id, own, &mut current) {
            first_error = Some((r, e.in_element(g.id(id))));
        }
    }
    match first_error {
        Some((_, e)) => Err(e),
        None => Ok(Enriched {
            lists: current,
            edit,
        }),
    }
}

/// By element: whether one of `inputs` is named by the element's id. An id
/// starts with its kind's word and a dot, so only elements whose word
/// starts an input name are written out and looked up (most input names
/// have no dot: then none is).
fn named_by_input(g: &Graph, inputs: MapRef<'_>) -> Vec<bool> {
    let words: Vec<&str> = inputs
        .keys()
        .filter_map(|k| k.split_once('.').map(|(word, _)| word))
        .collect();
    if words.is_empty() {
        return Vec::new();
    }
    let mut id = String::new();
    (0..g.elements().len() as u32)
        .map(ElementId)
        .map(|x| {
            if !words.contains(&g.get(x).word()) {
                return false;
            }
            id.clear();
            g.id(x).push_to(&mut id);
            inputs.contains_key(&id)
        })
        .collect()
}

/// Per kind (by `Kind as usize`), for elements without option keys of their
/// own: the switches without and with `anchor`. Computed once instead of
/// once per element.
struct Kinds {
    switches: [[Switches; 2]; 11],
}

impl Kinds {
    fn new(g: &Graph) -> Result<Kinds> {
        let mut switches = [[Switches::default(); 2]; 11];
        for kind in Kind::ALL {
            for anchor in [false, true] {
                switches[kind as usize][usize::from(anchor)] =
                    g.options().element(kind, None, anchor)?;
            }
        }
        Ok(Kinds { switches })
    }

    /// The switches of an element of `kind` whose definition holds no
    /// option keys.
    fn switches(&self, kind: Kind, anchor: bool) -> Switches {
        self.switches[kind as usize][usize::from(anchor)]
    }
}

/// What every element's enrichment reads.
struct Context<'a> {
    doc: NodeRef<'a>,
    g: &'a Graph,
    types: &'a TypeSystem<'a>,
    /// By element: whether a variability input has the element's id as
    /// its name (empty unless `enrich_input_condition` is on).
    named_by_input: Vec<bool>,
    type_specific: Option<NodeRef<'a>>,
    kinds: &'a Kinds,
    scopes: Scopes,
}

/// The final condition list of `id` into `current[id]`. `own` is its
/// definition if that may hold option keys (only those are read from it).
fn enrich_element(
    cx: &Context<'_>,
    id: ElementId,
    own: Option<MapRef<'_>>,
    current: &mut [CondList],
) -> Result<()> {
    let (g, type_specific) = (cx.g, cx.type_specific);
    {
        let e = g.get(id);
        // 4a. default / pruning condition candidates, computed first because
        // they read the manual list of `id` itself (steps 1-3 raise no errors).
        let specific = match type_specific {
            Some(ts) => type_specific_wrapper(cx.types, g, id, ts)?,
            None => None,
        };
        // Computed in any case: an invalid mode is an error for every element.
        let mut candidates = generic_wrappers(cx, own, id, current)?;
        let type_specific = specific.is_some();
        if let Some(w) = specific {
            // A type-specific default condition overrides the generic ones
            // (the reference combines both).
            candidates = vec![w];
        }
        // 1. manual conditions (+ variability-group conditions of nodes and
        // relations; groups come later in element order, so their entries
        // still hold their manual lists)
        let mut list: CondList = std::mem::take(&mut current[id.0 as usize]);
        if matches!(e.kind, Kind::Node | Kind::Relation) {
            for &gr in e.groups() {
                if g.get(gr).variability_group() {
                    list.extend(current[gr.0 as usize].iter().cloned());
                }
            }
        }
        list.retain(|c| !matches!(c, Cond::Yaml(n) if !n.is_defined()));
        // 2. default alternative
        if e.default_alternative {
            list = thin_vec::thin_vec![Cond::Bratan(cx.scopes.without(g, id))];
        }
        // 3. input-name condition
        if cx.named_by_input.get(id.0 as usize) == Some(&true) {
            list.push(Cond::yaml(single(
                "variability_input",
                Node::string(g.id(id)),
            )));
        }
        // 4b. the selected default / pruning conditions
        let switches = if e.kind == Kind::Import {
            Default::default()
        } else {
            // Without option keys, the kind's switches (no lookups).
            match own {
                Some(own) => g.options().element(e.kind, Some(own), e.anchor())?,
                None => cx.kinds.switches(e.kind, e.anchor()),
            }
        };
        // A type is part of its container: its one candidate, the
        // container's presence, always applies (the reference applies it
        // only as a default or pruning condition, so the type of an absent
        // node stays present and fails the type container check, even in
        // the spec's own examples).
        let is_type = e.kind == Kind::Type;
        let as_default = |w: &Wrapper| {
            switches.default
                && list.is_empty()
                && ((w.consistency && switches.default_consistency)
                    || (w.semantic && switches.default_semantic))
        };
        let as_pruning = |w: &Wrapper| {
            switches.pruning
                && ((w.consistency && switches.consistency_pruning)
                    || (w.semantic && switches.semantic_pruning))
        };
        let mut pruning = false;
        let mut selected = candidates
            .into_iter()
            .filter(|w| {
                let p = as_pruning(w);
                pruning |= p;
                is_type || as_default(w) || p
            })
            .map(|w| w.expr);
        // `simplify_cond` of `{and: [x]}` is that of `x`: no list for one entry.
        let combined = match (selected.next(), selected.next()) {
            (None, _) => None,
            (Some(only), None) => Some(simplify_cond(only)),
            (Some(a), Some(b)) => {
                let all = [a, b].into_iter().chain(selected).collect();
                Some(simplify_cond(Cond::And(all)))
            }
        };
        if let Some(mut combined) = combined {
            if !combined.is_map(g) {
                // A boolean (a type-specific `conditions: true`, a valid
                // condition) cannot carry the generated marker: `{and: [..]}`
                // can. The reference fails with `Element "true" is not an object`.
                combined = Cond::And(thin_vec::thin_vec![combined]);
            }
            let origin = if type_specific {
                Origin::TypeSpecific
            } else if is_type {
                Origin::Container
            } else if pruning {
                Origin::Pruning
            } else {
                Origin::Default
            };
            let generated = Cond::Generated(Box::new(combined), origin);
            let mut with = CondList::with_capacity(list.len() + 1);
            with.push(generated);
            with.append(&mut list);
            list = with;
        }
        current[id.0 as usize] = list;
    }
    Ok(())
}

/// Flattens single-entry `and`/`or` lists (9.8).
pub(crate) fn simplify(mut n: Node) -> Node {
    let Some(m) = n.as_map_mut() else { return n };
    for key in ["and", "or"] {
        let Some(list) = m.get_mut(key).and_then(Node::as_seq_mut) else {
            continue;
        };
        let items = std::mem::take(list);
        let mut items: Vec<Node> = items.into_iter().map(simplify).collect();
        if items.len() == 1 {
            return items.pop().unwrap_or_else(Node::null);
        }
        *list = items;
        return n;
    }
    n
}

/// [`simplify`] of the YAML form, on the compact form: `and`/`or` lists
/// of one entry become that entry, recursively (YAML entries by
/// [`simplify`]; bratans keep their `or`).
fn simplify_cond(c: Cond) -> Cond {
    match c {
        Cond::And(items) | Cond::Or(items) if items.len() == 1 => {
            simplify_cond(items.into_iter().next().expect("one item"))
        }
        Cond::And(mut items) => {
            simplify_each(&mut items);
            Cond::And(items)
        }
        Cond::Or(mut items) => {
            simplify_each(&mut items);
            Cond::Or(items)
        }
        Cond::Yaml(n) => Cond::yaml(simplify(*n)),
        Cond::Written(w)
            if matches!(w.op, crate::logic::LogicOp::And | crate::logic::LogicOp::Or) =>
        {
            Cond::yaml(simplify(w.into_node()))
        }
        other => other,
    }
}

/// [`simplify_cond`] of every entry, in place (a large template builds
/// hundreds of thousands of these lists: none is copied).
fn simplify_each(items: &mut CondList) {
    for item in items.iter_mut() {
        if matches!(
            item,
            Cond::And(_) | Cond::Or(_) | Cond::Yaml(_) | Cond::Written(_)
        ) {
            let taken = std::mem::replace(item, Cond::Bratan(IdList::new()));
            *item = simplify_cond(taken);
        }
    }
}

fn has_manual(list: &[Cond]) -> bool {
    list.iter().any(|c| !c.is_generated())
}

/// Whether default-alternative pruning is allowed for `id` (9.5).
fn default_pruning_allowed(cx: &Context<'_>, id: ElementId, current: &[CondList]) -> bool {
    let g = cx.g;
    let members = cx.scopes.members(g, id);
    if members.clone().nth(1).is_none() {
        return false;
    }
    let is_property = g.get(id).kind == Kind::Property;
    // The candidates are exactly `[id]`.
    let mut candidates = members
        .filter(|&x| !has_manual(&current[x.0 as usize]))
        .filter(|&x| !is_property || !g.get(x).is_fallback());
    candidates.next() == Some(id) && candidates.next().is_none()
}

/// `{and: items}`.
fn and_of(items: CondList) -> Cond {
    Cond::And(items)
}

/// The element's default condition mode and its tokens: its own
/// `default_condition_mode` (`raw` is its definition) or the option for its
/// kind.
fn mode_of<'a>(
    g: &'a Graph,
    raw: Option<MapRef<'a>>,
    kind: Kind,
) -> Result<(&'a str, Cow<'a, [ModeToken]>)> {
    let raw_mode = raw
        .and_then(|m| m.get("default_condition_mode"))
        .filter(|n| n.is_defined());
    match raw_mode {
        Some(n) => match n.as_str() {
            Some(s) => Ok((s, Cow::Owned(options::tokens(s).collect()))),
            None => bail!(n.span(), "Element \"{}\" is not a string", to_json(n)),
        },
        None => Ok(match g.options().kind_mode(kind) {
            Some(mode) => (mode.text(), Cow::Borrowed(mode.tokens())),
            None => ("", Cow::Owned(vec![ModeToken::Unknown])),
        }),
    }
}

fn unknown_mode(g: &Graph, id: ElementId, mode: &str) -> Error {
    Error::at(
        format!(
            "{} has unknown mode \"{mode}\" as default condition",
            g.Display(id)
        ),
        g.get(id).span,
    )
}

/// The element-generic default conditions (9.3); `own` as in
/// [`enrich_element`].
fn generic_wrappers(
    cx: &Context<'_>,
    own: Option<MapRef<'_>>,
    id: ElementId,
    current: &[CondList],
) -> Result<Vec<Wrapper>> {
    let g = cx.g;
    let e = g.get(id);
    let wrapper = |op: Op, consistency: bool| Wrapper {
        expr: Cond::Op(op, id),
        consistency,
        semantic: !consistency,
    };
    Ok(match e.kind {
        Kind::Node | Kind::Relation | Kind::Property => {
            let (consistency, semantic) = mode_parts(cx, own, id, current)?;
            // One wrapper, even without parts: its kind's.
            let (expr, consistency) = match e.kind {
                Kind::Node => (and_of(semantic), false),
                _ => (and_of(consistency), true),
            };
            vec![Wrapper {
                expr,
                consistency,
                semantic: !consistency,
            }]
        }
        Kind::Artifact | Kind::Technology | Kind::Output => {
            let (consistency, semantic) = mode_parts(cx, own, id, current)?;
            split_wrappers(consistency, semantic)
        }
        // Read by the substitution mappings: consumed in every variant.
        Kind::Input if g.maps_to(id) => vec![],
        Kind::Input => vec![wrapper(Op::IsConsumed, false)],
        Kind::Group => vec![wrapper(Op::HasPresentMember, false)],
        Kind::Policy => vec![wrapper(Op::HasPresentTarget, false)],
        Kind::Type => match e.container() {
            Some(c) => vec![Wrapper {
                expr: Cond::Presence(c),
                consistency: true,
                semantic: false,
            }],
            None => vec![],
        },
        Kind::Import => vec![],
    })
}

/// The consistency and the semantic parts of an element's default
/// condition, one per token of its mode (9.3).
fn mode_parts(
    cx: &Context<'_>,
    own: Option<MapRef<'_>>,
    id: ElementId,
    current: &[CondList],
) -> Result<(CondList, CondList)> {
    let g = cx.g;
    let (mode, tokens) = mode_of(g, own, g.get(id).kind)?;
    let (mut consistency, mut semantic) = (CondList::new(), CondList::new());
    for &t in tokens.iter() {
        let part = match g.get(id).kind {
            Kind::Node => node_part(g, id, t).map(|p| (p, false)),
            _ => other_part(cx, id, current, t)?,
        };
        match part {
            None => return Err(unknown_mode(g, id, mode)),
            Some((Some(c), false)) => semantic.push(c),
            Some((Some(c), true)) => consistency.push(c),
            Some((None, _)) => {}
        }
    }
    Ok((consistency, semantic))
}

/// A node's token: its operator if the node has the relations or artifacts
/// it talks about (9.3; `relation` is the spec's per-node name of
/// `incoming`; `source` looks at incoming relations, as the spec says, where
/// the reference gates it on outgoing ones); `None` for a token nodes do not
/// know.
fn node_part(g: &Graph, id: ElementId, t: ModeToken) -> Option<Option<Cond>> {
    use ModeToken as T;
    let e = g.get(id);
    let (applies, op) = match t {
        T::Host => (
            e.outgoing().iter().any(|&r| g.get(r).hosting()),
            Op::HostPresence,
        ),
        T::Source => (!e.incoming().is_empty(), Op::HasSource),
        T::Incoming | T::Relation => (!e.incoming().is_empty(), Op::HasIncomingRelation),
        T::IncomingNaive => (!e.incoming().is_empty(), Op::HasIncomingRelationNaive),
        T::Outgoing => (!e.outgoing().is_empty(), Op::HasOutgoingRelation),
        T::OutgoingNaive => (!e.outgoing().is_empty(), Op::HasOutgoingRelationNaive),
        T::Artifact => (!e.artifacts().is_empty(), Op::HasArtifact),
        T::ArtifactNaive => (!e.artifacts().is_empty(), Op::HasArtifactNaive),
        _ => return None,
    };
    Some(applies.then_some(Cond::Op(op, id)))
}

/// The part a token contributes to a relation's, property's, artifact's,
/// technology's or output's default condition, and whether it is a
/// consistency part (else semantic); `None` for a token the kind does not
/// know.
fn other_part(
    cx: &Context<'_>,
    id: ElementId,
    current: &[CondList],
    t: ModeToken,
) -> Result<Option<(Option<Cond>, bool)>> {
    use ModeToken as T;
    let g = cx.g;
    let e = g.get(id);
    let presence = |x: Option<ElementId>| x.map(Cond::Presence);
    // The `default` token: the bratan of the other alternatives, where
    // default-alternative pruning is allowed (9.5).
    let default_bratan =
        || default_pruning_allowed(cx, id, current).then(|| Cond::Bratan(cx.scopes.without(g, id)));
    let consistency = |c: Option<Cond>| Ok(Some((c, true)));
    let semantic = |c: Option<Cond>| Ok(Some((c, false)));
    match (e.kind, t) {
        (Kind::Relation, T::Source) => consistency(presence(e.source())),
        (Kind::Relation, T::Target) => consistency(presence(e.target())),
        (Kind::Property, T::Consuming) => {
            let consumed = || Cond::Or(e.consumes().iter().map(|&c| Cond::Presence(c)).collect());
            consistency((!e.consumes().is_empty()).then(consumed))
        }
        (Kind::Property, T::Default) => {
            let applies = g.get(id).is_fallback() || default_pruning_allowed(cx, id, current);
            let others = || {
                let others = cx
                    .scopes
                    .without(g, id)
                    .into_iter()
                    .filter(|&x| !g.get(x).is_fallback());
                Cond::Bratan(others.collect())
            };
            consistency(applies.then(others))
        }
        (Kind::Relation | Kind::Artifact | Kind::Technology | Kind::Output, T::Default) => {
            consistency(default_bratan())
        }
        (Kind::Property | Kind::Artifact | Kind::Technology, T::Container) => {
            consistency(presence(e.container()))
        }
        // `technology`: the spec's name of `managed`.
        (Kind::Artifact, T::Managed | T::Technology) => semantic(Some(Cond::Op(Op::IsManaged, id))),
        (Kind::Technology, T::Other) => consistency(Some(Cond::Bratan(cx.scopes.without(g, id)))),
        (Kind::Technology, T::Scenario) => semantic(super::technologies::scenario_condition(
            cx.doc, g, cx.types, id,
        )?),
        // A consistency condition, as the spec's table says (the reference
        // makes it semantic).
        (Kind::Output, T::Produced) if g.maps_to(id) => consistency(None),
        (Kind::Output, T::Produced) => consistency(Some(Cond::Op(Op::IsProduced, id))),
        _ => Ok(None),
    }
}

fn split_wrappers(c: CondList, s: CondList) -> Vec<Wrapper> {
    let mut out = Vec::new();
    if !c.is_empty() {
        out.push(Wrapper {
            expr: and_of(c),
            consistency: true,
            semantic: false,
        });
    }
    if !s.is_empty() {
        out.push(Wrapper {
            expr: and_of(s),
            consistency: false,
            semantic: true,
        });
    }
    out
}

/// The type-specific default condition of an element, if its type has one
/// (9.4): nodes, relations, groups, policies and artifacts by their single
/// type; properties by the data type their container's type declares for
/// them (`data_types`). A list of conditions is combined with `and`.
fn type_specific_wrapper(
    types: &TypeSystem<'_>,
    g: &Graph,
    id: ElementId,
    ts: NodeRef<'_>,
) -> Result<Option<Wrapper>> {
    let e = g.get(id);
    let (collection, type_name, resolved) = match e.kind {
        Kind::Node | Kind::Relation | Kind::Group | Kind::Policy | Kind::Artifact => {
            // A relation without relationship template has no type (the
            // reference crashes there).
            let [t] = e.types()[..] else {
                return Ok(None);
            };
            let Some(collection) = Collection::of(e.kind) else {
                return Ok(None);
            };
            let name = g.name(t);
            (collection, name, types.resolve(collection, name))
        }
        Kind::Property => match property_type(types, g, id) {
            Some(t) => (Collection::Data, types.name(t), Some(t)),
            None => return Ok(None),
        },
        _ => return Ok(None),
    };
    let Some(defs) = ts.get(collection.key()).filter(|n| n.is_defined()) else {
        return Ok(None);
    };
    let Some(defs) = defs.as_map() else {
        bail!(defs.span(), "Type-specific definitions not loaded");
    };
    // By type identity: a key names the type as the template writes names
    // (`s:Compute` and `simple:Compute` can be one type).
    let def = match resolved {
        Some(t) => types.entry_for(collection, t, type_name, defs),
        None => defs.get(type_name),
    };
    let Some(def) = def.filter(|n| n.is_defined()) else {
        return Ok(None);
    };
    let Some(conditions) = def.get("conditions").filter(|n| n.is_defined()) else {
        bail!(
            def.span(),
            "{} holds type-specific condition without any condition",
            g.Display(id)
        );
    };
    let expr = match conditions.as_seq() {
        Some(_) => Node::new(
            Value::Map({
                let mut m = Map::with_capacity(1);
                m.insert("and", conditions.to_node());
                m
            }),
            conditions.span(),
        ),
        None => conditions.to_node(),
    };
    let flag = |key: &str, default: bool| match def.get(key).map(NodeRef::value) {
        Some(ValueRef::Bool(b)) => b,
        _ => default,
    };
    Ok(Some(Wrapper {
        expr: Cond::yaml(expr),
        consistency: flag("consistency", false),
        semantic: flag("semantic", true),
    }))
}

/// The data type a property's container's (single) type declares for it,
/// searching the type's inheritance chain.
fn property_type(types: &TypeSystem<'_>, g: &Graph, id: ElementId) -> Option<TypeId> {
    let e = g.get(id);
    let container = g.get(e.container()?);
    let [t] = container.types()[..] else {
        return None;
    };
    let collection = Collection::of(container.kind)?;
    let section = if e.is_attribute() {
        "attributes"
    } else {
        "properties"
    };
    types.property_type(collection, g.name(t), section, g.name(id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::build;
    use crate::testing::normalize;

    #[test]
    fn kind_switches_are_those_of_elements_without_option_keys() {
        let mut d = crate::testing::doc(
            "
tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options:
      mode: strict
      node_pruning: true
      relation_default_condition: false
      property_semantic_pruning: true
  node_templates:
    a: {type: t}
",
        );
        normalize(&mut d).expect("normalizes");
        let g = build(&d).expect("builds");
        let kinds = Kinds::new(&g).expect("switches");
        for kind in [
            Kind::Type,
            Kind::Node,
            Kind::Relation,
            Kind::Property,
            Kind::Output,
        ] {
            for anchor in [false, true] {
                assert_eq!(
                    kinds.switches(kind, anchor),
                    g.options().element(kind, None, anchor).expect("switches"),
                    "{kind:?} {anchor}"
                );
            }
        }
        assert_ne!(
            kinds.switches(Kind::Node, false),
            kinds.switches(Kind::Node, true)
        );
        let mode = g.options().kind_mode(Kind::Node).expect("node mode");
        // v1's node mode.
        assert_eq!(mode.text(), "incoming-artifact");
        assert_eq!(mode.tokens(), [ModeToken::Incoming, ModeToken::Artifact]);
    }

    /// An element is named by an input exactly when its whole id is the
    /// input's name, whatever its container and kind.
    #[test]
    fn elements_named_by_inputs_are_those_whose_ids_are_input_names() {
        let mut d = crate::testing::doc(
            "
tosca_definitions_version: tosca_variability_1_0
topology_template:
  node_templates:
    a:
      type: t
      properties: [{p: 1}, {q: 2}]
      requirements: [{host: b}]
    b: {type: t, artifacts: {f: {type: x, file: f}}}
",
        );
        normalize(&mut d).expect("normalizes");
        let g = build(&d).expect("builds");
        let ids: Vec<String> = g.ordered().map(|x| g.id(x).to_string()).collect();
        assert!(ids.iter().any(|id| id.matches('.').count() >= 3), "{ids:?}");
        let mut inputs = v4t_yaml::Map::new();
        for name in ids
            .iter()
            .step_by(2)
            .chain([&"node.c".to_string(), &"nodeless".to_string()])
        {
            inputs.insert(name.as_str(), Node::null());
        }
        let named = named_by_input(&g, (&inputs).into());
        for x in g.ordered() {
            let want = inputs.contains_key(&g.id(x).to_string());
            assert_eq!(named.get(x.0 as usize) == Some(&true), want, "{}", g.id(x));
        }
        assert!(named.iter().filter(|&&n| n).count() >= 2);
        // Without a dotted input name nothing is written out.
        let mut plain = v4t_yaml::Map::new();
        plain.insert("a", Node::null());
        assert!(named_by_input(&g, (&plain).into()).is_empty());
    }
}

#[cfg(test)]
mod precedence_tests {
    use crate::testing::resolve_text;

    /// The v1 modes switch default conditions of inputs and outputs off, and
    /// a mode's key of a kind beats the user's general key (issue 21): with
    /// `default_condition: true` a topology input whose consumer is absent
    /// stays, the absent node's relation goes; `input_default_condition`
    /// reaches the input.
    #[test]
    fn default_condition_leaves_inputs_to_the_mode_in_v1() {
        let template = |extra: &str| {
            format!(
                "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options: {{default_condition: true{extra}}}
  inputs:
    port: {{type: integer, default: 80}}
  node_templates:
    app:
      type: t
      conditions: false
      properties:
        - p: {{value: {{get_input: port}}}}
"
            )
        };
        let out = resolve_text(&template(""), &[], None).expect("resolves");
        let topology = out.get("topology_template").expect("topology");
        assert!(topology
            .get("node_templates")
            .is_none_or(|n| n.get("app").is_none()));
        assert!(
            topology.get("inputs").and_then(|i| i.get("port")).is_some(),
            "{}",
            crate::to_yaml(&out)
        );
        let out = resolve_text(&template(", input_default_condition: true"), &[], None)
            .expect("resolves");
        let port = out
            .get("topology_template")
            .and_then(|t| t.get("inputs"))
            .and_then(|i| i.get("port"));
        assert!(port.is_none(), "{}", crate::to_yaml(&out));
    }
}

#[cfg(test)]
mod type_specific_tests {
    use crate::testing::resolve_text;
    use v4t_yaml::json::to_json;

    const TEMPLATE: &str = "tosca_definitions_version: tosca_variability_1_0
node_types:
  lonely: {properties: {p: {type: my.data}, q: {type: string}}}
data_types:
  my.data: {}
topology_template:
  variability:
    inputs:
      on: {type: boolean, default: false}
    options:
      node_default_condition: true
      artifact_default_condition: true
      property_default_condition: true
      expected_artifact_check: false
    type_specific_conditions:
      node_types:
        lonely: {conditions: true}
        listed: {conditions: [true, {variability_input: on}]}
      artifact_types:
        gone: {conditions: false}
      data_types:
        my.data: {conditions: false}
  node_templates:
    a:
      type: lonely
      properties: {p: 1, q: 2}
      artifacts:
        - image: {file: x, type: gone, conditions: false}
    b:
      type: listed
";

    /// Type-specific default conditions override the generic ones, apply to
    /// artifacts and (through their data type) properties, and a list of
    /// conditions is combined with `and` (issue 12).
    #[test]
    fn type_specific_conditions_override_and_reach_all_kinds() {
        let out = resolve_text(TEMPLATE, &[], None).expect("resolves");
        let nodes = out
            .get("topology_template")
            .and_then(|t| t.get("node_templates"))
            .expect("nodes");
        // `a` has no incoming relation and no present artifact: the generic
        // condition would remove it; its type's condition `true` keeps it.
        assert_eq!(
            to_json(nodes),
            r#"{"a":{"type":"lonely","properties":{"q":2}}}"#
        );
        let on = resolve_text(TEMPLATE, &[], Some("on: true")).expect("resolves");
        let b = on
            .get("topology_template")
            .and_then(|t| t.get("node_templates"))
            .and_then(|n| n.get("b"));
        assert!(b.is_some(), "the listed conditions hold");
    }
}
