//! Population: builds the [`Graph`] of a normalised document in the
//! reference's order (part 1, section 5), raising its errors in that order.

use super::hosting::Hosting;
use super::{
    is_hosting_name, Cond, CondList, Data, Element, ElementId, Fallback, Graph, Kind, Loc, Owner,
    PlacedScenarios, Scenario,
};
use crate::document::{self, Sections};
use crate::error::{bail, Error, Result};
use crate::functions::References;
use crate::normalize::not_a_boolean;
use crate::options::{Mode, Options};
use crate::types::{Collection, TypeSystem};
use crate::version::Grammar;
use std::sync::LazyLock;
use v4t_yaml::hash::Seen;
use v4t_yaml::hash::{SeededMap, SeededSet};
use v4t_yaml::json::{to_json, to_json_pretty};
use v4t_yaml::number::format_js;
use v4t_yaml::{Key, Map, MapRef, Node, NodeRef, SeqRef, Span, Value, ValueRef};

/// The condition list of a raw definition: `conditions` as a list (a single
/// expression becomes a one-element list; missing or null is empty).
pub(crate) fn conditions_of(raw: Option<MapRef<'_>>) -> Vec<Node> {
    match raw.and_then(|m| m.get("conditions")) {
        None => Vec::new(),
        Some(n) => match n.value() {
            ValueRef::Null => Vec::new(),
            ValueRef::Seq(items) => items.iter().map(NodeRef::to_node).collect(),
            _ => vec![n.to_node()],
        },
    }
}

/// The `implied` value of a raw definition, if written.
fn implied_of(raw: Option<MapRef<'_>>) -> Option<Node> {
    defined_implied(raw.and_then(|m| m.get("implied")))
}

/// An `implied` value, if defined.
fn defined_implied(implied: Option<NodeRef<'_>>) -> Option<Node> {
    implied.filter(|n| n.is_defined()).map(NodeRef::to_node)
}

/// The definition of a single type as written (`type: T`, read as
/// `[{T: {}}]`): an empty map, made once ([`Graph::raw`] gives it too).
pub(crate) fn written_type() -> &'static Node {
    static EMPTY: LazyLock<Node> = LazyLock::new(|| Node::map(Map::new()));
    &EMPTY
}

/// The definition of the type at `index` of the `type` entry `types`: a
/// list entry, or a single type as written ([`written_type`]).
pub(crate) fn type_entry(types: Option<NodeRef<'_>>, index: u32) -> Option<NodeRef<'_>> {
    match types?.as_str() {
        Some(_) => (index == 0).then(|| written_type().into()),
        None => super::entry_value(types, index),
    }
}

/// The keys of a node template the builder reads, found in one pass over
/// its entries instead of one search each (nine per node).
#[derive(Default)]
struct NodeKeys<'d> {
    implied: Option<NodeRef<'d>>,
    anchor: Option<NodeRef<'d>>,
    persistent: Option<NodeRef<'d>>,
    weight: Option<NodeRef<'d>>,
    types: Option<NodeRef<'d>>,
    properties: Option<NodeRef<'d>>,
    attributes: Option<NodeRef<'d>>,
    requirements: Option<NodeRef<'d>>,
    artifacts: Option<NodeRef<'d>>,
    technology: Option<NodeRef<'d>>,
}

impl<'d> NodeKeys<'d> {
    fn of(def: NodeRef<'d>) -> NodeKeys<'d> {
        let mut k = NodeKeys::default();
        for (key, v) in def.as_map().into_iter().flat_map(MapRef::iter) {
            let slot = match key.name() {
                "implied" => &mut k.implied,
                "anchor" => &mut k.anchor,
                "persistent" => &mut k.persistent,
                "weight" => &mut k.weight,
                "type" => &mut k.types,
                "properties" => &mut k.properties,
                "attributes" => &mut k.attributes,
                "requirements" => &mut k.requirements,
                "artifacts" => &mut k.artifacts,
                "technology" => &mut k.technology,
                _ => continue,
            };
            // The first entry of a key, as `Map::get` finds it.
            slot.get_or_insert(v);
        }
        k
    }
}

/// Which condition lists a build copies from the document into the elements.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Copying {
    /// Only those of technologies (graph #1).
    Technologies,
    /// None: [`build_moving_conditions`] moves them in afterwards.
    None,
}

/// [`build`] for the technology enricher (graph #1), which reads no
/// condition list but those of technologies: the others stay empty
/// instead of being copied (default alternatives still get `[false]`).
/// With `add_fallbacks`, the graph adds the fallback properties the
/// document does not hold ([`add_fallback_properties`]).
pub(crate) fn build_for_technologies<'d>(
    doc: impl Into<NodeRef<'d>>,
    options: &Options,
    types: &TypeSystem,
    add_fallbacks: bool,
) -> Result<Graph> {
    let fallbacks = FallbackMode::of(options).filter(|_| add_fallbacks);
    let doc = doc.into();
    build_with(doc, options, types, Copying::Technologies, fallbacks, None).map(|(g, _)| g)
}

/// [`build`], moving the condition lists out of `doc` into the elements
/// instead of copying them (each `conditions` entry is left null), and the
/// `implies` lists into the graph ([`Graph::implies`]; each entry left
/// null). For callers that read conditions and implications only through
/// the graph afterwards: the enricher, which writes every list back, and
/// the resolver, whose output drops them. `add_fallbacks` as in
/// [`build_for_technologies`]; `placed`: the scenarios of technologies the
/// document does not hold (when resolving, the enricher's).
pub(crate) fn build_moving_conditions(
    doc: &mut Node,
    options: &Options,
    types: &TypeSystem,
    add_fallbacks: bool,
    placed: Option<&PlacedScenarios>,
) -> Result<Graph> {
    let fallbacks = FallbackMode::of(options).filter(|_| add_fallbacks);
    let (mut g, moving) = build_with(
        NodeRef::Tree(doc),
        options,
        types,
        Copying::None,
        fallbacks,
        placed,
    )?;
    move_conditions(doc, &mut g, &moving.conditions);
    move_implies(doc, &mut g, &moving.implies);
    Ok(g)
}

/// The resolver graph of `doc` from the enricher's graph #2 of the same
/// document, `previous`, whose elements already hold their final condition
/// lists ([`crate::enrich::enrich_for_resolving`]). The enricher's
/// write-back, input assignment and normalisation leave every element in
/// place; they change element options and the variability options. So
/// this keeps the elements and refreshes what those edits change, exactly
/// as [`build`] of `doc` would see it: the options (the resolver's,
/// `options`, and with them the default `implied` of relations,
/// [`Graph::is_implied`]), the default-alternative flags (the write-back
/// deletes `default_alternative`) and the anchor check.
pub(crate) fn rebuild<'d>(
    doc: impl Into<NodeRef<'d>>,
    types: &TypeSystem,
    previous: Graph,
    options: Options,
) -> Result<Graph> {
    let doc = doc.into();
    let mut g = previous;
    g.options = options;
    g.sections = Sections::of(doc);
    for e in &mut g.elements {
        e.default_alternative = false;
    }
    let b = Builder {
        doc,
        types,
        hosting: Hosting::default(),
        copy: Copying::None,
        template_positions: SeededMap::default(),
        used_templates: SeededSet::default(),
        template_uses: SeededMap::default(),
        assign_positions: SeededMap::default(),
        scenario_positions: SeededMap::default(),
        placed: None,
        placed_positions: Vec::new(),
        id_buf: String::new(),
        has_conditions: false,
        with_conditions: Vec::new(),
        has_implies: false,
        implied: None,
        with_implies: Vec::new(),
        targets: Vec::new(),
        fallbacks: None,
        g,
    };
    b.anchor_check()?;
    Ok(b.g)
}

/// Moves the `conditions` of the elements `ids` (those whose definitions
/// have the key) from `doc` into the elements.
fn move_conditions(doc: &mut Node, g: &mut Graph, ids: &[ElementId]) {
    for &id in ids {
        let Some(c) = g.raw_mut(doc, id).and_then(|raw| raw.get_mut("conditions")) else {
            continue;
        };
        let list = match std::mem::take(&mut c.value) {
            Value::Null => Vec::new(),
            Value::Seq(items) => items,
            value => vec![Node::new(value, c.span)],
        };
        g.elements[id.0 as usize].conditions = list.into_iter().map(Cond::yaml).collect();
    }
}

/// Moves the `implies` of the elements `ids` (ascending; those whose
/// definitions have the key) from `doc` into the graph.
fn move_implies(doc: &mut Node, g: &mut Graph, ids: &[ElementId]) {
    for &id in ids {
        let Some(i) = g.raw_mut(doc, id).and_then(|raw| raw.get_mut("implies")) else {
            continue;
        };
        let span = i.span;
        g.implies
            .push((id, std::mem::replace(i, Node::new(Value::Null, span))));
    }
}

/// The elements whose definitions hold lists [`build_moving_conditions`]
/// moves into the graph.
struct Moving {
    conditions: Vec<ElementId>,
    implies: Vec<ElementId>,
}

/// The graph of `doc`, and with [`Copying::None`] the elements whose lists
/// [`build_moving_conditions`] moves; `fallbacks`: the mode of the
/// fallback properties it adds, if it adds them.
fn build_with(
    doc: NodeRef<'_>,
    options: &Options,
    types: &TypeSystem,
    copy: Copying,
    fallbacks: Option<FallbackMode>,
    placed: Option<&PlacedScenarios>,
) -> Result<(Graph, Moving)> {
    let tt = document::topology_of(doc);
    let options = options.clone();
    let relationship_templates: Vec<String> = tt
        .and_then(|t| t.get("relationship_templates"))
        .and_then(NodeRef::as_map)
        .map(|m| m.keys().map(str::to_string).collect())
        .unwrap_or_default();
    let template_positions = tt
        .and_then(|t| t.get("relationship_templates"))
        .and_then(NodeRef::as_map)
        .map(|m| m.keys().enumerate().map(|(i, n)| (n, i as u32)).collect())
        .unwrap_or_default();
    let hosting = Hosting::new(&options, types, crate::version::grammar_of(doc))?;
    let mut b = Builder {
        doc,
        types,
        hosting,
        copy,
        template_positions,
        used_templates: SeededSet::default(),
        template_uses: SeededMap::default(),
        assign_positions: SeededMap::default(),
        scenario_positions: SeededMap::default(),
        placed,
        placed_positions: vec![None; placed.map_or(0, |p| p.scenarios.len())],
        id_buf: String::new(),
        has_conditions: false,
        with_conditions: Vec::new(),
        has_implies: false,
        implied: None,
        with_implies: Vec::new(),
        targets: Vec::new(),
        fallbacks,
        g: Graph {
            options,
            elements: Vec::new(),
            types: Vec::new(),
            nodes: Vec::new(),
            relations: Vec::new(),
            properties: Vec::new(),
            policies: Vec::new(),
            groups: Vec::new(),
            inputs: Vec::new(),
            artifacts: Vec::new(),
            imports: Vec::new(),
            technologies: Vec::new(),
            outputs: Vec::new(),
            node_index: SeededMap::default(),
            group_index: SeededMap::default(),
            relationship_templates,
            assigns: Vec::new(),
            scenarios: Vec::new(),
            ids: crate::texts::Texts::default(),
            sections: Sections::of(doc),
            grammar: crate::version::grammar_of(doc),
            counts: SeededMap::default(),
            implies: Vec::new(),
            reads: SeededMap::default(),
            constraints: Vec::new(),
            implied_values: Vec::new(),
        },
    };
    if b.g.grammar() == Grammar::Tosca2 {
        b.template_uses = template_uses(doc);
    }
    let count = element_count(doc, fallbacks.is_some());
    b.g.elements.reserve(count);
    b.g.ids.reserve(count);
    b.populate()?;
    b.g.ids.shrink_to_fit();
    let moving = Moving {
        conditions: b.with_conditions,
        implies: b.with_implies,
    };
    Ok((b.g, moving))
}

/// The number of elements a build of `doc` creates (entries that are no
/// single-entry maps may count too), so that the arena of large elements is
/// allocated once instead of being copied, and its pages cleared, while it
/// grows. With `fallbacks`, each property may get one (a name written
/// once, as most are).
fn element_count(doc: NodeRef<'_>, fallbacks: bool) -> usize {
    let len = |n: NodeRef<'_>| n.as_seq().map_or(0, SeqRef::len);
    // A single type as written is one.
    let types = |n: NodeRef<'_>| {
        n.as_seq()
            .map_or(usize::from(n.as_str().is_some()), SeqRef::len)
    };
    let per_property = if fallbacks { 2 } else { 1 };
    let properties = |n: NodeRef<'_>| per_property * property_count(n);
    // Types, properties and, for nodes, everything else a definition
    // holds; one pass over its keys.
    let owned = |def: NodeRef<'_>| -> usize {
        let Some(m) = def.as_map() else { return 0 };
        m.iter()
            .map(|(k, v)| match k.name() {
                "type" => types(v),
                "requirements" | "technology" => len(v),
                "properties" | "attributes" => properties(v),
                "artifacts" => document::indexed_entries(v)
                    .map(|(_, _, _, a)| 1 + owned_by_artifact(a, per_property))
                    .sum(),
                _ => 0,
            })
            .sum()
    };
    let mut n = doc.get("imports").map_or(0, len);
    let Some(tt) = document::topology_of(doc).and_then(NodeRef::as_map) else {
        return n;
    };
    for (k, v) in tt.iter() {
        n += match k.name() {
            "node_templates" | "groups" | "policies" => document::indexed_entries(v)
                .map(|(_, _, _, def)| 1 + owned(def))
                .sum(),
            "relationship_templates" => v
                .as_map()
                .map_or(0, |m| m.iter().map(|(_, rt)| owned(rt)).sum()),
            "inputs" | "outputs" => document::indexed_entries(v).count(),
            _ => 0,
        };
    }
    n
}

/// How many requirement assignments of the normalised `doc` name each
/// relationship (template) name in `relationship`.
fn template_uses(doc: NodeRef<'_>) -> SeededMap<&str, u32> {
    let mut uses = SeededMap::default();
    let Some(nodes) = document::topology_of(doc).and_then(|t| t.get("node_templates")) else {
        return uses;
    };
    for (_, _, _, def) in document::indexed_entries(nodes) {
        for (_, _, a) in def.get("requirements").map(entries).into_iter().flatten() {
            if let Some(r) = a.get("relationship").and_then(NodeRef::as_str) {
                *uses.entry(r).or_insert(0) += 1;
            }
        }
    }
    uses
}

/// Types and properties of an artifact definition (each property counted
/// `per_property` times).
fn owned_by_artifact(def: NodeRef<'_>, per_property: usize) -> usize {
    let len = |key: &str| {
        def.get(key)
            .and_then(NodeRef::as_seq)
            .map_or(0, SeqRef::len)
    };
    let single_type = def.get("type").is_some_and(|t| t.as_str().is_some());
    let properties = def.get("properties").map_or(0, property_count);
    usize::from(single_type) + len("type") + per_property * properties
}

/// The number of properties written in a property list, or in a property
/// map kept as written.
fn property_count(n: NodeRef<'_>) -> usize {
    match n.value() {
        ValueRef::Seq(items) => items.len(),
        ValueRef::Map(m) => m.len(),
        _ => 0,
    }
}

/// The definitions of the single-entry maps in the list `n`.
fn entries(n: NodeRef<'_>) -> impl Iterator<Item = (&str, Span, NodeRef<'_>)> {
    n.as_seq().into_iter().flatten().filter_map(single)
}

/// Appends `<kind>.<name>[@<index>]` (an element id without its
/// container's) to `out`.
fn write_id(out: &mut String, word: &str, name: &str, index: Option<u32>) {
    out.push_str(word);
    out.push('.');
    out.push_str(name);
    if let Some(mut i) = index {
        out.push('@');
        // The decimal digits, from the end of the buffer.
        let mut digits = [0u8; 10];
        let mut start = digits.len();
        loop {
            start -= 1;
            digits[start] = b'0' + (i % 10) as u8;
            i /= 10;
            if i == 0 {
                break;
            }
        }
        out.extend(digits[start..].iter().map(|&d| char::from(d)));
    }
}

/// "Node (or Group) ... defined multiple times" for the first entry of
/// `rest`, whose name is `known` already, and for every later entry whose
/// name is `known` or repeats one of `rest`: all names defined twice are
/// reported together.
fn defined_again(rest: SeqRef<'_>, known: impl Fn(&str) -> bool, what: &str) -> Error {
    let mut seen: SeededSet<&str> = SeededSet::default();
    let errors = rest
        .iter()
        .filter_map(single)
        .filter(|&(name, _, _)| known(name) || !seen.insert(name))
        .map(|(name, span, _)| Error::at(format!("{what} \"{name}\" defined multiple times"), span))
        .collect();
    match Error::all(errors) {
        Err(e) => e,
        Ok(()) => Error::at(format!("{what} defined multiple times"), Span::NONE),
    }
}

struct Builder<'d> {
    doc: NodeRef<'d>,
    /// The template's types (for hosting relations and variability groups).
    types: &'d TypeSystem<'d>,
    /// The hosting relationship types.
    hosting: Hosting,
    /// Which condition lists to copy into the elements.
    copy: Copying,
    g: Graph,
    /// Relationship template name -> position in `relationship_templates`.
    template_positions: SeededMap<&'d str, u32>,
    /// Relationship templates used by a requirement so far.
    used_templates: SeededSet<&'d str>,
    /// TOSCA 2.0: how many requirements name each relationship template.
    template_uses: SeededMap<&'d str, u32>,
    /// Technology name -> position in [`Graph::assigns`].
    assign_positions: SeededMap<&'d str, u32>,
    /// Stored scenario -> position in [`Graph::scenarios`].
    scenario_positions: SeededMap<Scenario, u32>,
    /// The scenarios of technologies the document does not hold.
    placed: Option<&'d PlacedScenarios>,
    /// Their positions in [`Graph::scenarios`], once added.
    placed_positions: Vec<Option<u32>>,
    /// Where [`Builder::add`] writes an id before it goes into the arena
    /// (which holds the container's id it copies).
    id_buf: String,
    /// Whether the definition of the element [`Builder::add`] adds next has
    /// a condition list that stays in the document ([`Builder::conditions`]).
    has_conditions: bool,
    /// The elements with such lists, so that moving them out visits only
    /// those definitions.
    with_conditions: Vec<ElementId>,
    /// Whether the definition of the element [`Builder::add`] adds next has
    /// an `implies` key ([`Builder::note_implies`]).
    has_implies: bool,
    /// The `implied` value of the element added next, if written
    /// ([`Graph::implied`]).
    implied: Option<Node>,
    /// The elements whose definitions have one, in id order.
    with_implies: Vec<ElementId>,
    /// The `node` entry of each relation's definition, in relation order,
    /// read while the definition is at hand.
    targets: Vec<Option<NodeRef<'d>>>,
    /// The mode of the fallback properties this graph adds to every
    /// property list ([`Fallback::Added`]), if it adds them.
    fallbacks: Option<FallbackMode>,
}

fn single(item: NodeRef<'_>) -> Option<(&str, Span, NodeRef<'_>)> {
    item.as_map()?.first().map(|(k, v)| (k.name(), k.span(), v))
}

impl<'d> Builder<'d> {
    fn tt(&self) -> Option<NodeRef<'d>> {
        document::topology_of(self.doc)
    }

    fn list(&self, key: &str) -> SeqRef<'d> {
        self.tt()
            .and_then(|t| t.get(key))
            .and_then(NodeRef::as_seq)
            .unwrap_or(SeqRef::Tree(&[]))
    }

    /// Adds `e`, named `name`: its own part of its id is written here, and
    /// holds the name.
    fn add(&mut self, mut e: Element, name: &str) -> ElementId {
        let id = ElementId(self.g.elements.len() as u32);
        // The name follows the kind's word (ten letters at most) and a dot.
        e.name_offset = u8::try_from(e.word().len() + 1).unwrap_or(u8::MAX);
        e.name_len = u32::try_from(name.len()).unwrap_or(u32::MAX);
        let buf = &mut self.id_buf;
        buf.clear();
        write_id(buf, e.word(), name, e.index());
        self.g.ids.push(buf);
        self.g.elements.push(e);
        if std::mem::take(&mut self.has_conditions) {
            self.with_conditions.push(id);
        }
        if std::mem::take(&mut self.has_implies) {
            self.with_implies.push(id);
        }
        if let Some(implied) = self.implied.take() {
            self.g.implied_values.push((id, implied));
        }
        id
    }

    /// Notes whether `raw`, the definition of the element added next, has
    /// an `implies` list (which [`build_moving_conditions`] moves into the
    /// graph).
    fn note_implies(&mut self, raw: Option<MapRef<'_>>) {
        self.has_implies = raw.is_some_and(|m| m.contains_key("implies"));
    }

    /// [`conditions_of`] of the element added next if lists of `kind` are
    /// copied, else nothing (without copying, whether it has a list).
    fn conditions(&mut self, kind: Kind, raw: Option<MapRef<'_>>) -> CondList {
        match self.copy {
            Copying::Technologies if kind == Kind::Technology => {}
            Copying::Technologies => return CondList::new(),
            Copying::None => {
                self.has_conditions = raw.is_some_and(|m| m.contains_key("conditions"));
                return CondList::new();
            }
        }
        conditions_of(raw).into_iter().map(Cond::yaml).collect()
    }

    fn el(&mut self, id: ElementId) -> &mut Element {
        &mut self.g.elements[id.0 as usize]
    }

    fn populate(&mut self) -> Result<()> {
        self.inputs()?;
        self.outputs()?;
        self.nodes()?;
        self.check_relationship_templates_used()?;
        self.resolve_targets()?;
        self.groups()?;
        self.policies()?;
        self.imports();
        match self.g.grammar() {
            Grammar::Tosca13 => {
                self.consumers()?;
                self.producers()?;
            }
            Grammar::Tosca2 => self.references_20(),
        }
        self.anchor_check()?;
        Ok(())
    }

    /// An element of a kind that can be a default alternative (type,
    /// property, relation, artifact, technology): its conditions are `[false]`
    /// if `default_alternative` is present at all, its `implied` is read raw.
    fn alternative(
        &mut self,
        kind: Kind,
        index: usize,
        container: ElementId,
        span: Span,
        loc: Loc,
        raw: Option<MapRef<'_>>,
    ) -> Element {
        let mut e = Element::new(kind, Some(index as u32), Some(container), span, loc);
        self.note_implies(raw);
        match raw
            .and_then(|m| m.get("default_alternative"))
            .filter(|n| n.is_defined())
        {
            Some(d) => {
                e.conditions = thin_vec::thin_vec![Cond::yaml(Node::bool(false))];
                e.default_alternative = d.is_truthy();
            }
            None => e.conditions = self.conditions(kind, raw),
        }
        self.implied = implied_of(raw);
        e
    }

    fn inputs(&mut self) -> Result<()> {
        self.topology_parameters("inputs", Kind::Input, Loc::Input)?;
        self.check_defaults(&self.g.inputs.clone())
    }

    fn outputs(&mut self) -> Result<()> {
        self.topology_parameters("outputs", Kind::Output, Loc::Output)?;
        self.check_defaults(&self.g.outputs.clone())
    }

    /// Topology inputs or outputs: `default_alternative` does not force
    /// `[false]` on them (4.13).
    fn topology_parameters(&mut self, key: &str, kind: Kind, loc: fn(u32) -> Loc) -> Result<()> {
        let Some(section) = self.tt().and_then(|t| t.get(key)) else {
            return Ok(());
        };
        for (i, name, span, def) in document::indexed_entries(section) {
            let raw = def.as_map();
            let mut e = Element::new(kind, Some(i), None, span, loc(i));
            e.conditions = self.conditions(e.kind, raw);
            self.note_implies(raw);
            e.default_alternative = raw
                .and_then(|m| m.get("default_alternative"))
                .is_some_and(NodeRef::is_truthy);
            let id = self.add(e, name);
            if kind == Kind::Input {
                self.g.inputs.push(id);
            } else {
                self.g.outputs.push(id);
            }
        }
        Ok(())
    }

    /// At most one of the alternatives of `container` (its `what`: types or
    /// technologies) is the default: `has_default` says whether an earlier
    /// one is; the one at `span` is the second if it is one too.
    fn at_most_one_default(
        &self,
        has_default: &mut bool,
        default: bool,
        span: Span,
        container: ElementId,
        what: &str,
    ) -> Result<()> {
        if default {
            if *has_default {
                bail!(
                    span,
                    "{} has multiple default {what}",
                    self.g.Display(container)
                );
            }
            *has_default = true;
        }
        Ok(())
    }

    /// At most one default alternative per name among `ids`.
    fn check_defaults(&self, ids: &[ElementId]) -> Result<()> {
        if ids.len() < 2 {
            // Most sections: no two elements to share a name.
            return Ok(());
        }
        // Per name: its first element and whether one is a default.
        let mut seen: Seen<'_, (ElementId, bool)> = Seen::new();
        for &id in ids {
            let (e, name) = (self.g.get(id), self.g.name(id));
            match seen.get_mut(name) {
                Some((first, has_default)) => {
                    if e.default_alternative {
                        if *has_default {
                            bail!(e.span, "{} has multiple defaults", self.g.Display(*first));
                        }
                        *has_default = true;
                    }
                }
                None => {
                    seen.insert(name, (id, e.default_alternative));
                }
            }
        }
        Ok(())
    }

    fn nodes(&mut self) -> Result<()> {
        let Some(nodes) = self.tt().and_then(|t| t.get("node_templates")) else {
            return Ok(());
        };
        // Names repeat only in a list (a map's keys are unique).
        let list = nodes.as_seq().unwrap_or(SeqRef::Tree(&[]));
        self.g
            .node_index
            .reserve(list.len().max(nodes.as_map().map_or(0, MapRef::len)));
        for (i, name, span, def) in document::indexed_entries(nodes) {
            if self.g.node_index.contains_key(name) {
                let known = |n: &str| self.g.node_index.contains_key(n);
                return Err(defined_again(list.slice(i as usize..), known, "Node"));
            }
            if name == "SELF" {
                bail!(span, "Node must not be named \"SELF\"");
            }
            if name == "CONTAINER" {
                bail!(span, "Node must not be named \"CONTAINER\"");
            }
            let raw = def.as_map();
            let keys = NodeKeys::of(def);
            let mut e = Element::new(Kind::Node, None, None, span, Loc::Node(i));
            e.conditions = self.conditions(e.kind, raw);
            self.note_implies(raw);
            self.implied = defined_implied(keys.implied);
            let anchor = match keys.anchor.filter(|n| n.is_defined()) {
                Some(a) => a.as_bool().ok_or_else(|| not_a_boolean(a))?,
                None => match keys.persistent.filter(|n| n.is_defined()) {
                    Some(p) => p.as_bool().ok_or_else(|| not_a_boolean(p))?,
                    None => false,
                },
            };
            if let Some(n) = e.node_mut() {
                n.anchor = anchor;
            }
            let id = self.add(e, name);
            self.g.nodes.push(id);
            self.g.node_index.insert(name.to_string(), id);
            let weight = self.node_weight(id, keys.weight)?;
            if let Some(n) = self.el(id).node_mut() {
                n.weight = weight;
            }

            self.types(id, def, keys.types, Owner::Node(i))?;
            self.properties(id, keys.properties, Owner::Node(i))?;
            self.attributes(id, keys.attributes, Owner::Node(i))?;
            self.relations(id, i, keys.requirements)?;
            self.artifacts(id, i, keys.artifacts)?;
            self.technologies(id, i, keys.technology)?;
        }
        Ok(())
    }

    fn node_weight(&self, id: ElementId, weight: Option<NodeRef<'_>>) -> Result<f64> {
        match weight.filter(|n| n.is_defined()) {
            Some(w) => self.weight(id, w),
            None => Ok(1.0),
        }
    }

    /// A node or technology `weight`: a boolean (1 or 0) or a non-negative
    /// number, as the spec says (the reference rejects booleans and values
    /// above 1).
    fn weight(&self, id: ElementId, w: NodeRef<'_>) -> Result<f64> {
        let shown = match w.value() {
            ValueRef::Number(n) => format_js(n),
            ValueRef::String(s) => s.to_string(),
            _ => to_json(w),
        };
        match w.value() {
            ValueRef::Bool(b) => Ok(if b { 1.0 } else { 0.0 }),
            ValueRef::Number(n) if n < 0.0 => bail!(
                w.span(),
                "Weight \"{shown}\" of {} is a negative number",
                self.g.display(id)
            ),
            ValueRef::Number(n) if n.is_finite() => Ok(n),
            ValueRef::Number(n) if n.is_infinite() => bail!(
                w.span(),
                "Weight \"{shown}\" of {} is too large",
                self.g.display(id)
            ),
            _ => bail!(
                w.span(),
                "Weight \"{shown}\" of {} is not a number or boolean",
                self.g.display(id)
            ),
        }
    }

    /// The types of `container`, whose definition `def` has `types` as its
    /// `type` entry.
    fn types(
        &mut self,
        container: ElementId,
        def: NodeRef<'_>,
        types: Option<NodeRef<'_>>,
        owner: Owner,
    ) -> Result<()> {
        let Some(t) = types else {
            bail!(def.span(), "{} has no type", self.g.Display(container));
        };
        // A single type as written (`type: T`, [`TypeShape::Written`]) is
        // the list `[{T: {}}]`.
        let written = t
            .as_str()
            .map(|name| (0, name, t.span(), NodeRef::from(written_type())));
        let list = match (written, t.as_seq()) {
            (Some(_), _) => SeqRef::Tree(&[]),
            (None, Some(list)) => list,
            (None, None) => bail!(
                t.span(),
                "Types of {} not normalized",
                self.g.display(container)
            ),
        };
        let listed = list
            .iter()
            .enumerate()
            .filter_map(|(i, item)| single(item).map(|(name, span, a)| (i, name, span, a)));
        let mut has_default = false;
        for (i, name, span, a) in written.into_iter().chain(listed) {
            let raw = a.as_map();
            let e = self.alternative(
                Kind::Type,
                i,
                container,
                span,
                Loc::Type {
                    owner,
                    index: i as u32,
                },
                raw,
            );
            self.at_most_one_default(
                &mut has_default,
                e.default_alternative,
                span,
                container,
                "types",
            )?;
            let id = self.add(e, name);
            self.g.types.push(id);
            if let Some(types) = self.el(container).types_mut() {
                types.push(id);
            }
        }
        Ok(())
    }

    /// The properties of `container`, the `properties` entry `list` of its
    /// definition.
    fn properties(
        &mut self,
        container: ElementId,
        list: Option<NodeRef<'_>>,
        owner: Owner,
    ) -> Result<()> {
        self.property_list(container, list, owner, false)
    }

    /// TOSCA 2.0: the attributes of `container` in list form, property
    /// elements of their own list (`attribute.<name>@<i>` ids).
    fn attributes(
        &mut self,
        container: ElementId,
        list: Option<NodeRef<'_>>,
        owner: Owner,
    ) -> Result<()> {
        if self.g.grammar() == Grammar::Tosca13 {
            return Ok(());
        }
        self.property_list(container, list, owner, true)
    }

    fn property_list(
        &mut self,
        container: ElementId,
        list: Option<NodeRef<'_>>,
        owner: Owner,
        attribute: bool,
    ) -> Result<()> {
        // A list of definitions, or (when resolving) a map kept as written,
        // whose entries are values (`def` is `None`).
        let written: Vec<Written<'_>> = match list.map(NodeRef::value) {
            Some(ValueRef::Seq(items)) => written_items(items, self.g.grammar()),
            Some(ValueRef::Map(m)) => m
                .iter()
                .enumerate()
                .map(|(i, (k, v))| Written {
                    i,
                    name: k.name(),
                    span: k.span(),
                    def: None,
                    value: Some(v),
                })
                .collect(),
            _ => return Ok(()),
        };
        let count = list.map_or(0, property_count);
        let loc = |i: usize| match attribute {
            false => Loc::Property {
                owner,
                index: i as u32,
            },
            true => Loc::Attribute {
                owner,
                index: i as u32,
            },
        };
        // The written properties, then the fallback properties this graph
        // adds, where the reference's enricher appends them to the list.
        let added: Vec<(Written<'_>, Fallback)> = match self.fallbacks {
            Some(mode) => fallback_names(&written, mode)
                .into_iter()
                .enumerate()
                .map(|(k, name)| {
                    let def = mode.shared();
                    let w = Written {
                        i: count + k,
                        name,
                        span: Span::NONE,
                        def: Some(def.into()),
                        value: def.get("value").map(NodeRef::from),
                    };
                    (w, Fallback::Added(mode))
                })
                .collect(),
            None => Vec::new(),
        };
        let written_fallbacks = written.iter().map(|w| {
            let fallback = match is_fallback_value(w.value) {
                true => Fallback::Written,
                false => Fallback::No,
            };
            (*w, fallback)
        });
        let mut ids = Vec::with_capacity(written.len() + added.len());
        for (w, fallback) in written_fallbacks.chain(added) {
            let Written {
                i, name, span, def, ..
            } = w;
            let raw = def.and_then(NodeRef::as_map);
            let mut e = self.alternative(Kind::Property, i, container, span, loc(i), raw);
            if let Fallback::Added(_) = fallback {
                // Read from the shared definition (`Graph::implied`).
                self.implied = None;
            }
            e.fallback = fallback;
            let id = self.add(e, name);
            self.g.properties.push(id);
            match attribute {
                false => {
                    if let Some(list) = self.el(container).properties_mut() {
                        list.push(id);
                    }
                }
                true => {
                    if let Some(list) = self.el(container).attributes_mut() {
                        list.push(id);
                    }
                }
            }
            ids.push((id, w));
        }
        let only_ids: Vec<ElementId> = ids.iter().map(|(id, _)| *id).collect();
        self.check_defaults(&only_ids)?;
        let null_is_value = self.g.grammar() == Grammar::Tosca2;
        let given = |n: NodeRef<'_>| null_is_value || n.is_defined();
        for (id, w) in ids {
            let has = match w.def {
                Some(a) => a.as_map().is_some_and(|m| {
                    m.get("value").is_some_and(given) || m.get("expression").is_some_and(given)
                }),
                // An entry of a property map: its value.
                None => w.value.is_some_and(given),
            };
            if !has {
                bail!(
                    self.g.get(id).span,
                    "{} has no value or expression defined",
                    self.g.Display(id)
                );
            }
        }
        Ok(())
    }

    fn relations(
        &mut self,
        node: ElementId,
        node_index: u32,
        requirements: Option<NodeRef<'d>>,
    ) -> Result<()> {
        let Some(reqs) = requirements.filter(|n| n.is_defined()) else {
            return Ok(());
        };
        let Some(list) = reqs.as_seq() else {
            bail!(
                reqs.span(),
                "Requirements assignments of \"{} must be an array",
                self.g.display(node)
            );
        };
        let rts = self.tt().and_then(|t| t.get("relationship_templates"));
        for (i, item) in list.iter().enumerate() {
            let Some((name, span, a)) = single(item) else {
                continue;
            };
            let raw = a.as_map();
            let mut e = self.alternative(
                Kind::Relation,
                i,
                node,
                span,
                Loc::Relation {
                    node: node_index,
                    index: i as u32,
                },
                raw,
            );
            let relationship = raw.and_then(|m| m.get("relationship"));
            let hosting = is_hosting_name(name) || self.hosted_on(rts, relationship);
            if let Some(r) = e.relation_mut() {
                r.source = Some(node);
                r.hosting = hosting;
            }
            let id = self.add(e, name);
            self.g.relations.push(id);
            if self.g.grammar() == Grammar::Tosca2 {
                let count = crate::document::relationship_count(Some(a));
                if count != 1 {
                    self.g.counts.insert(id, count);
                }
            }
            // `r: x` (kept as written when resolving) is `r: {node: x}`.
            let target = if a.as_str().is_some() {
                Some(a)
            } else {
                a.get("node")
            };
            self.targets.push(target);
            if let Some(n) = self.el(node).node_mut() {
                n.outgoing.push(id);
            }
            if let Some(rname) = relationship.and_then(NodeRef::as_str) {
                let pos = self.template_positions.get(rname).copied();
                if self.g.grammar() == Grammar::Tosca2 {
                    // §8.5.2: a relationship type first, then a template;
                    // a template several requirements share is no
                    // container of elements (its presence follows theirs).
                    if self.types.has(Collection::Relationship, rname) {
                        continue;
                    }
                    let shared = self.template_uses.get(rname).copied().unwrap_or(0) > 1;
                    let untyped = self
                        .relationship_template(rts, rname, pos)
                        .is_some_and(|rt| !rt.get("type").is_some_and(NodeRef::is_defined));
                    if pos.is_some() && (shared || untyped) {
                        if let Some(r) = self.el(id).relation_mut() {
                            r.relationship = pos;
                        }
                        continue;
                    }
                }
                let Some(rt) = self.relationship_template(rts, rname, pos) else {
                    // A relationship type (valid TOSCA 1.3): no template,
                    // so nothing the relation's presence depends on.
                    if self.types.has(Collection::Relationship, rname) {
                        continue;
                    }
                    bail!(
                        raw.and_then(|m| m.get("relationship"))
                            .map(|n| n.span())
                            .unwrap_or(span),
                        "Relationship \"{rname}\" of relation \"{name}\" of {} does not exist!",
                        self.g.display(node)
                    );
                };
                if !self.used_templates.insert(rname) {
                    bail!(span, "Relation \"{rname}\" is used multiple times");
                }
                let pos = pos.unwrap_or(0);
                if let Some(r) = self.el(id).relation_mut() {
                    r.relationship = Some(pos);
                }
                let owner = Owner::RelationshipTemplate(pos);
                self.types(id, rt, rt.get("type"), owner)?;
                self.properties(id, rt.get("properties"), owner)?;
                self.attributes(id, rt.get("attributes"), owner)?;
            }
        }
        let out = self.g.get(node).outgoing().to_vec();
        self.check_defaults(&out)
    }

    /// Whether a requirement's `relationship` (a template name, a type name
    /// or an inline `{type: ..}`) is, or derives from, a hosting type
    /// ([`Hosting`]; TOSCA 1.3: `tosca.relationships.HostedOn`): such a
    /// requirement is a hosting relation whatever its name (the reference
    /// looks at names only).
    fn hosted_on(&self, rts: Option<NodeRef<'d>>, relationship: Option<NodeRef<'d>>) -> bool {
        let Some(relationship) = relationship.filter(|r| r.is_defined()) else {
            return false;
        };
        let hosted_on = |t: &str| self.hosting.is_hosting_type(self.types, t);
        match relationship.as_str() {
            Some(name) => match rts.and_then(|t| t.get(name)).and_then(|t| t.get("type")) {
                // A template: its (possibly conditional) types.
                Some(t) => match t.as_seq() {
                    Some(list) => list
                        .iter()
                        .filter_map(|a| a.as_map().and_then(MapRef::first))
                        .any(|(k, _)| hosted_on(k.name())),
                    None => t.as_str().is_some_and(hosted_on),
                },
                None => hosted_on(name),
            },
            None => relationship
                .get("type")
                .and_then(NodeRef::as_str)
                .is_some_and(hosted_on),
        }
    }

    /// `rts[name]`, the relationship template at `pos`, its position in
    /// [`Builder::template_positions`]: by position (no hashing of the name)
    /// unless the keys repeat, where the position is the last one of the
    /// name and a lookup finds the first.
    fn relationship_template(
        &self,
        rts: Option<NodeRef<'d>>,
        name: &str,
        pos: Option<u32>,
    ) -> Option<NodeRef<'d>> {
        let m = rts?.as_map()?;
        if self.template_positions.len() != m.len() {
            return m.get(name);
        }
        m.get_index(pos? as usize).map(|(_, v)| v)
    }

    fn artifacts(
        &mut self,
        node: ElementId,
        node_index: u32,
        list: Option<NodeRef<'_>>,
    ) -> Result<()> {
        let Some(list) = list else {
            return Ok(());
        };
        for (i, name, span, a) in document::indexed_entries(list) {
            let raw = a.as_map();
            let e = self.alternative(
                Kind::Artifact,
                i as usize,
                node,
                span,
                Loc::Artifact {
                    node: node_index,
                    index: i,
                },
                raw,
            );
            let id = self.add(e, name);
            self.g.artifacts.push(id);
            if let Some(n) = self.el(node).node_mut() {
                n.artifacts.push(id);
            }
            let owner = Owner::Artifact {
                node: node_index,
                index: i,
            };
            // TOSCA 2.0: an artifact without type (the short form) has no
            // type elements; the validator reports a missing type.
            let typed = a.get("type").is_some_and(NodeRef::is_defined);
            if typed || self.g.grammar() == Grammar::Tosca13 {
                self.types(id, a, a.get("type"), owner)?;
            }
            self.properties(id, a.get("properties"), owner)?;
        }
        let arts = self.g.get(node).artifacts();
        self.check_defaults(arts)
    }

    fn technologies(
        &mut self,
        node: ElementId,
        node_index: u32,
        list: Option<NodeRef<'d>>,
    ) -> Result<()> {
        let Some(list) = list.and_then(NodeRef::as_seq) else {
            return Ok(());
        };
        let mut has_default = false;
        for (i, item) in list.iter().enumerate() {
            let Some((name, span, t)) = single(item) else {
                continue;
            };
            let raw = t.as_map();
            let e = self.alternative(
                Kind::Technology,
                i,
                node,
                span,
                Loc::Technology {
                    node: node_index,
                    index: i as u32,
                },
                raw,
            );
            let default = e.default_alternative;
            let id = self.add(e, name);
            let Some(assign) = raw.and_then(|m| m.get("assign")).filter(|n| n.is_defined()) else {
                bail!(span, "{} not normalized", self.g.Display(id));
            };
            let interned = assign.as_str().map(|name| {
                let assigns = &mut self.g.assigns;
                *self.assign_positions.entry(name).or_insert_with(|| {
                    assigns.push(name.into());
                    assigns.len() as u32 - 1
                })
            });
            if let Some(t) = self.el(id).technology_mut() {
                match interned {
                    Some(at) => t.assign = at,
                    None => t.assign_other = Some(Box::new(assign.to_node())),
                }
                t.assign_span = assign.span();
            }
            if let Some(w) = raw.and_then(|m| m.get("weight")).filter(|n| n.is_defined()) {
                let weight = self.weight(id, w)?;
                if let Some(t) = self.el(id).technology_mut() {
                    t.weight = weight;
                }
            }
            if let Some(p) = raw.and_then(|m| m.get("prio")).and_then(NodeRef::as_f64) {
                if let Some(t) = self.el(id).technology_mut() {
                    t.prio = p;
                }
            }
            // Added in document order either way, so that the graph is the
            // same whether the scenarios were written or placed.
            let placed = self.placed.and_then(|p| p.at.get(&(node_index, i as u32)));
            let written = raw
                .and_then(|m| m.get("scenario"))
                .filter(|n| n.is_defined());
            let scenario = match (placed, written) {
                (Some(&k), _) => Some(self.placed_position(k)),
                (None, Some(s)) => Some(self.scenario_position(Scenario::from_node(s))),
                (None, None) => None,
            };
            if let (Some(at), Some(t)) = (scenario, self.el(id).technology_mut()) {
                t.scenario = at;
            }
            self.at_most_one_default(&mut has_default, default, span, node, "technologies")?;
            self.g.technologies.push(id);
            if let Some(n) = self.el(node).node_mut() {
                n.technologies.push(id);
            }
        }
        Ok(())
    }

    /// The position of `scenario` in [`Graph::scenarios`], added if new.
    fn scenario_position(&mut self, scenario: Scenario) -> u32 {
        let scenarios = &mut self.g.scenarios;
        *self
            .scenario_positions
            .entry(scenario)
            .or_insert_with_key(|s| {
                scenarios.push(s.clone());
                scenarios.len() as u32 - 1
            })
    }

    /// The position in [`Graph::scenarios`] of the placed scenario `k`.
    fn placed_position(&mut self, k: u32) -> u32 {
        if let Some(Some(at)) = self.placed_positions.get(k as usize) {
            return *at;
        }
        let scenario = self
            .placed
            .and_then(|p| p.scenarios.get(k as usize))
            .cloned()
            .unwrap_or_default();
        let at = self.scenario_position(scenario);
        if let Some(slot) = self.placed_positions.get_mut(k as usize) {
            *slot = Some(at);
        }
        at
    }

    fn check_relationship_templates_used(&self) -> Result<()> {
        if self.g.grammar() == Grammar::Tosca2 {
            // TOSCA 2.0 relationship templates need no referrer (§7.4).
            return Ok(());
        }
        let rts = self
            .tt()
            .and_then(|t| t.get("relationship_templates"))
            .and_then(NodeRef::as_map);
        if let Some(rts) = rts {
            for (k, _) in rts.iter() {
                if !self.used_templates.contains(k.name()) {
                    bail!(k.span(), "Relation \"{}\" is never used", k.name());
                }
            }
        }
        Ok(())
    }

    fn resolve_targets(&mut self) -> Result<()> {
        let targets = std::mem::take(&mut self.targets);
        for (i, target_node) in targets.into_iter().enumerate() {
            let r = self.g.relations[i];
            let tosca20 = self.g.grammar() == Grammar::Tosca2;
            let name = match target_node.map(NodeRef::value) {
                // TOSCA 2.0 §8.5.1: `[template, index]`.
                Some(ValueRef::Seq(pair)) if tosca20 => pair.first().and_then(NodeRef::as_str),
                _ => target_node.and_then(NodeRef::as_str),
            };
            // TOSCA 2.0: a requirement without `node` (a capability or a
            // node filter decides at deployment) or with a node type has no
            // target template.
            let untargeted = tosca20
                && match name {
                    None => !target_node.is_some_and(NodeRef::is_defined),
                    Some(n) => self.g.node(n).is_none() && self.types.has(Collection::Node, n),
                };
            if untargeted {
                continue;
            }
            let Some(t) = name.and_then(|n| self.g.node(n)) else {
                let shown = match target_node {
                    Some(n) if n.is_defined() => {
                        n.as_str().map(str::to_string).unwrap_or_else(|| to_json(n))
                    }
                    _ => "undefined".to_string(),
                };
                bail!(
                    target_node.map(|n| n.span()).unwrap_or(self.g.get(r).span),
                    "Target \"{shown}\" of {} does not exist",
                    self.g.display(r)
                );
            };
            if let Some(rel) = self.el(r).relation_mut() {
                rel.target = Some(t);
            }
            if let Some(n) = self.el(t).node_mut() {
                n.incoming.push(r);
            }
        }
        Ok(())
    }

    fn groups(&mut self) -> Result<()> {
        let Some(groups) = self.tt().and_then(|t| t.get("groups")) else {
            return Ok(());
        };
        // Names repeat only in a list (a map's keys are unique).
        let list = groups.as_seq().unwrap_or(SeqRef::Tree(&[]));
        for (i, name, span, def) in document::indexed_entries(groups) {
            if self.g.group_index.contains_key(name) {
                let known = |n: &str| self.g.group_index.contains_key(n);
                return Err(defined_again(list.slice(i as usize..), known, "Group"));
            }
            let raw = def.as_map();
            let mut e = Element::new(Kind::Group, None, None, span, Loc::Group(i));
            e.conditions = self.conditions(e.kind, raw);
            self.note_implies(raw);
            self.implied = implied_of(raw);
            let id = self.add(e, name);
            self.g.groups.push(id);
            self.g.group_index.insert(name.to_string(), id);
            // members
            if let Some(members) = def.get("members").and_then(NodeRef::as_seq) {
                for m in members {
                    let member = self.member(m)?;
                    if let Some(list) = self.el(id).links_mut() {
                        list.push(member);
                    }
                    if let Some(groups) = self.el(member).groups_mut() {
                        groups.push(id);
                    }
                }
            }
            self.types(id, def, def.get("type"), Owner::Group(i))?;
            let types = self.g.get(id).types().to_vec();
            // Its type is, or derives from, a variability group type (the
            // reference compares the names only).
            let variability = types
                .first()
                .is_some_and(|&t| self.types.is_variability_group(self.g.name(t)));
            if variability && types.len() > 1 {
                bail!(
                    span,
                    "{} is a variability group but has conditional types",
                    self.g.Display(id)
                );
            }
            if let Data::Group(g) = &mut self.el(id).data {
                g.variability = variability;
                g.members_span = def.get("members").map(|n| n.span());
            }
            self.properties(id, def.get("properties"), Owner::Group(i))?;
            self.attributes(id, def.get("attributes"), Owner::Group(i))?;
        }
        Ok(())
    }

    /// A group member: a node name or `[node, requirement name | index]`.
    fn member(&self, m: NodeRef<'_>) -> Result<ElementId> {
        match m.value() {
            ValueRef::String(n) => self
                .g
                .node(n)
                .ok_or_else(|| Error::at(format!("Node \"{n}\" not found"), m.span())),
            ValueRef::Seq(pair) => {
                let node = pair
                    .first()
                    .and_then(NodeRef::as_str)
                    .and_then(|n| self.g.node(n));
                let found = node.and_then(|n| {
                    let out = self.g.get(n).outgoing();
                    match pair.get(1).map(NodeRef::value) {
                        Some(ValueRef::String(r)) => {
                            let named: Vec<_> =
                                out.iter().filter(|&&x| self.g.name(x) == r).collect();
                            match named.len() {
                                1 => Some(Ok(*named[0])),
                                0 => None,
                                _ => Some(Err(())),
                            }
                        }
                        Some(ValueRef::Number(k)) => out.get(k as usize).map(|&x| Ok(x)),
                        _ => None,
                    }
                });
                match found {
                    Some(Ok(r)) => Ok(r),
                    Some(Err(())) => Err(Error::at(
                        format!("Relation \"{}\" is ambiguous", to_json_pretty(m)),
                        m.span(),
                    )),
                    None => Err(Error::at(
                        format!("Relation \"{}\" not found", to_json_pretty(m)),
                        m.span(),
                    )),
                }
            }
            _ => Err(Error::at(
                format!("Member \"{}\" has bad format", to_json_pretty(m)),
                m.span(),
            )),
        }
    }

    fn policies(&mut self) -> Result<()> {
        let list = self.list("policies");
        for (i, item) in list.iter().enumerate() {
            let Some((name, span, def)) = single(item) else {
                continue;
            };
            let i = i as u32;
            let raw = def.as_map();
            let mut e = Element::new(Kind::Policy, Some(i), None, span, Loc::Policy(i));
            e.conditions = self.conditions(e.kind, raw);
            self.note_implies(raw);
            self.implied = implied_of(raw);
            let id = self.add(e, name);
            self.g.policies.push(id);
            if let Some(targets) = def.get("targets").and_then(NodeRef::as_seq) {
                for t in targets {
                    let name = t.as_str().unwrap_or_default();
                    let Some(target) = self.g.node(name).or_else(|| self.g.group(name)) else {
                        bail!(
                            t.span(),
                            "Policy target \"{}\" of {} does not exist",
                            t.as_str().map(str::to_string).unwrap_or_else(|| to_json(t)),
                            self.g.display(id)
                        );
                    };
                    if let Some(list) = self.el(id).links_mut() {
                        list.push(target);
                    }
                }
            }
            self.types(id, def, def.get("type"), Owner::Policy(i))?;
            self.properties(id, def.get("properties"), Owner::Policy(i))?;
        }
        Ok(())
    }

    fn imports(&mut self) {
        let Some(list) = self.doc.get("imports").and_then(NodeRef::as_seq) else {
            return;
        };
        for (i, item) in list.iter().enumerate() {
            let raw = item.as_map();
            let name = &i.to_string();
            let mut e = Element::new(
                Kind::Import,
                Some(i as u32),
                None,
                item.span(),
                Loc::Import(i as u32),
            );
            e.conditions = self.conditions(e.kind, raw);
            self.note_implies(raw);
            let id = self.add(e, name);
            self.g.imports.push(id);
        }
    }

    /// Which elements each property consumes (5.4).
    /// What each property consumes (5.4): the inputs, nodes, groups,
    /// policies, artifacts or relation targets its `value` refers to with
    /// `get_input`, `get_property`, `get_attribute` or `eval`, anywhere in
    /// the value (the reference looks at the whole value only, so
    /// `{concat: [.., {get_input: x}]}` kept `get_input: x` in the output
    /// while the input was pruned).
    fn consumers(&mut self) -> Result<()> {
        let inputs = self.by_name(&self.g.inputs);
        for p in self.g.properties.clone() {
            let Some(value) = self.g.property_value(self.doc, p) else {
                continue;
            };
            let mut consumed: Vec<ElementId> = Vec::new();
            walk(value, &mut |n: NodeRef<'d>| {
                let Some(m) = n.as_map() else {
                    return Ok(());
                };
                let found = if let Some(x) = m.get("get_input").filter(|n| n.is_defined()) {
                    vec![self.input_ref(x, &inputs)?]
                } else if let Some(l) = m
                    .get("get_property")
                    .filter(|n| n.is_defined())
                    .or_else(|| m.get("get_attribute").filter(|n| n.is_defined()))
                {
                    self.property_ref(p, l)?
                } else if let Some(e) = m.get("eval").and_then(NodeRef::as_str) {
                    match e.split("::").collect::<Vec<_>>()[..] {
                        [a, _] => vec![self.container_element(p, a, n.span())?],
                        _ => vec![],
                    }
                } else {
                    vec![]
                };
                for c in found {
                    if !consumed.contains(&c) {
                        consumed.push(c);
                    }
                }
                Ok(())
            })?;
            for c in consumed {
                if let Some(list) = self.el(p).links_mut() {
                    list.push(c);
                }
                if self.g.get(c).kind == Kind::Input {
                    if let Some(list) = self.el(c).links_mut() {
                        list.push(p);
                    }
                }
            }
        }
        Ok(())
    }

    /// TOSCA 2.0: what every element's definition reads with `$get_input`,
    /// `$get_property` and `$get_attribute`, anywhere in it ([`References`]):
    /// inputs are consumed by the elements that read them (every input of
    /// the name: list-form alternatives), properties consume the nodes they
    /// read, outputs are produced by them. Names that are no input or node
    /// are left to the validator.
    fn references_20(&mut self) {
        let owners: Vec<ElementId> = self
            .g
            .nodes
            .iter()
            .chain(&self.g.relations)
            .chain(&self.g.properties)
            .chain(&self.g.artifacts)
            .chain(&self.g.groups)
            .chain(&self.g.policies)
            .chain(&self.g.outputs)
            .copied()
            .collect();
        let inputs = self.by_name(&self.g.inputs);
        for id in owners {
            let kind = self.g.get(id).kind;
            if kind == Kind::Property {
                let Some(value) = self.g.property_value(self.doc, id) else {
                    continue;
                };
                self.read_references(id, kind, References::of(value, &[]), &inputs);
                continue;
            }
            let Some(raw) = self.g.raw(self.doc, id) else {
                continue;
            };
            // `copy: a` (§7.2): the copy needs its source.
            let copied = match kind {
                Kind::Node => raw
                    .get("copy")
                    .and_then(NodeRef::as_str)
                    .and_then(|n| self.g.node(n)),
                _ => None,
            };
            if let Some(source) = copied.filter(|&s| s != id) {
                self.read(id, source);
            }
            let refs = match kind {
                Kind::Node => References::of(
                    raw,
                    &[
                        "type",
                        "properties",
                        "requirements",
                        "artifacts",
                        "technology",
                    ],
                ),
                Kind::Artifact => References::of(raw, &["type", "properties"]),
                Kind::Group => References::of(raw, &["type", "properties", "members"]),
                Kind::Policy => References::of(raw, &["type", "properties", "targets"]),
                _ => References::of(raw, &[]),
            };
            self.read_references(id, kind, refs, &inputs);
        }
        self.substitution_parameters(&inputs);
    }

    /// The elements of `list` (inputs or outputs) by name, in list order
    /// (list-form alternatives share a name): built once, where a scan of
    /// the list per reference was quadratic in the section.
    fn by_name(&self, list: &[ElementId]) -> SeededMap<String, Vec<ElementId>> {
        let mut named: SeededMap<String, Vec<ElementId>> = SeededMap::default();
        for &i in list {
            match named.get_mut(self.g.name(i)) {
                Some(same) => same.push(i),
                None => {
                    named.insert(self.g.name(i).to_string(), vec![i]);
                }
            }
        }
        named
    }

    /// Links element `id` (of `kind`) with the inputs and node templates
    /// its definition reads ([`Builder::references_20`]).
    fn read_references(
        &mut self,
        id: ElementId,
        kind: Kind,
        refs: References<'_>,
        inputs: &SeededMap<String, Vec<ElementId>>,
    ) {
        for name in refs.inputs {
            for &i in inputs.get(name).into_iter().flatten() {
                self.read(id, i);
                self.link(i, id);
            }
        }
        for name in refs.templates {
            let Some(node) = self.g.node(name) else {
                continue;
            };
            if kind == Kind::Output {
                self.link(id, node);
            } else if node != self.g.get(id).container().unwrap_or(id) {
                self.read(id, node);
            }
        }
    }

    /// Inputs and outputs that the substitution mappings map properties
    /// and attributes to (§15.2, §15.3) are read by the template itself, in
    /// every variant: each is its own consumer (producer), so `is_consumed`
    /// (`is_produced`) holds whenever it is present and pruning keeps it.
    fn substitution_parameters(&mut self, inputs: &SeededMap<String, Vec<ElementId>>) {
        let Some(sm) = self.tt().and_then(|t| t.get("substitution_mappings")) else {
            return;
        };
        let outputs = self.by_name(&self.g.outputs);
        for (key, list) in [("properties", Kind::Input), ("attributes", Kind::Output)] {
            let names = sm
                .get(key)
                .and_then(NodeRef::as_map)
                .into_iter()
                .flat_map(MapRef::iter);
            for (_, target) in names {
                let Some(name) = target.as_str() else {
                    continue;
                };
                let named = if list == Kind::Input {
                    inputs
                } else {
                    &outputs
                };
                for &i in named.get(name).into_iter().flatten() {
                    self.link(i, i);
                }
            }
        }
    }

    /// Adds `x` to the id list of `id` (a property's consumed elements, an
    /// input's consumers, an output's producers).
    fn link(&mut self, id: ElementId, x: ElementId) {
        if let Some(list) = self.el(id).links_mut() {
            list.push(x);
        }
    }

    /// TOSCA 2.0: element `id` reads `x` by name (a property consumes it;
    /// other kinds keep it in [`Graph::reads`]).
    fn read(&mut self, id: ElementId, x: ElementId) {
        if self.g.get(id).kind == Kind::Property {
            self.link(id, x);
        } else {
            self.g.reads.entry(id).or_default().push(x);
        }
    }

    fn input_ref(
        &self,
        x: NodeRef<'_>,
        inputs: &SeededMap<String, Vec<ElementId>>,
    ) -> Result<ElementId> {
        match x.value() {
            ValueRef::String(name) => match inputs.get(name).map(Vec::as_slice) {
                None | Some([]) => bail!(x.span(), "Input \"{name}\" not found"),
                Some(&[i]) => Ok(i),
                Some(_) => bail!(x.span(), "Input \"{name}\" is ambiguous"),
            },
            ValueRef::Number(n) => self
                .g
                .inputs
                .get(n as usize)
                .copied()
                .filter(|_| n.fract() == 0.0 && n >= 0.0)
                .ok_or_else(|| {
                    Error::at(format!("Input \"{}\" not found", format_js(n)), x.span())
                }),
            _ => bail!(
                x.span(),
                "Element \"{}\" is neither a string nor a number",
                to_json(x)
            ),
        }
    }

    fn property_ref(&self, p: ElementId, l: NodeRef<'_>) -> Result<Vec<ElementId>> {
        let Some(items) = l.as_seq() else {
            return Ok(vec![]);
        };
        let mut names = Vec::with_capacity(items.len());
        for it in items {
            match it.as_str() {
                Some(s) => names.push(s),
                None => bail!(it.span(), "Element \"{}\" is not a string", to_json(it)),
            }
        }
        match names[..] {
            [c, _] => Ok(vec![self.container_element(p, c, l.span())?]),
            [n, r, _] => {
                let container = self.g.get(p).container();
                let node = self.node_with_context(container, n, l.span())?;
                let ne = self.g.get(node);
                let targets: Vec<ElementId> = ne
                    .outgoing()
                    .iter()
                    .filter(|&&x| self.g.name(x) == r)
                    .filter_map(|&x| self.g.get(x).target())
                    .collect();
                if !targets.is_empty() {
                    return Ok(targets);
                }
                let arts: Vec<ElementId> = ne
                    .artifacts()
                    .iter()
                    .copied()
                    .filter(|&x| self.g.name(x) == r)
                    .collect();
                if !arts.is_empty() {
                    return Ok(arts);
                }
                bail!(
                    l.span(),
                    "Reference \"[object Object]\" at property {} did not find any relation or artifact.",
                    self.g.display(p)
                )
            }
            _ => Ok(vec![]),
        }
    }

    /// Node lookup with context: SELF, CONTAINER, SOURCE, TARGET or a name.
    fn node_with_context(
        &self,
        ctx: Option<ElementId>,
        name: &str,
        span: Span,
    ) -> Result<ElementId> {
        let found = match name {
            "SELF" => ctx.filter(|&c| self.g.get(c).kind == Kind::Node),
            "CONTAINER" => ctx
                .and_then(|c| self.g.get(c).container())
                .filter(|&c| self.g.get(c).kind == Kind::Node),
            "SOURCE" => ctx
                .filter(|&c| self.g.get(c).kind == Kind::Relation)
                .and_then(|c| self.g.get(c).source()),
            "TARGET" => ctx
                .filter(|&c| self.g.get(c).kind == Kind::Relation)
                .and_then(|c| self.g.get(c).target()),
            _ => self.g.node(name),
        };
        found.ok_or_else(|| Error::at(format!("Node \"{name}\" not found"), span))
    }

    /// The container element named `name` from the property's point of view:
    /// node, then group, then policy.
    fn container_element(&self, p: ElementId, name: &str, span: Span) -> Result<ElementId> {
        let ctx = self.g.get(p).container();
        if let Ok(n) = self.node_with_context(ctx, name, span) {
            return Ok(n);
        }
        if let Some(g) = self.g.group(name) {
            return Ok(g);
        }
        if let Some(&pol) = self.g.policies.iter().find(|&&x| self.g.name(x) == name) {
            return Ok(pol);
        }
        let shown = ctx.map(|c| self.g.display(c)).unwrap_or_default();
        bail!(
            span,
            "Could not get element \"{name}\" from context element \"{shown}\" and context cached \"undefined\""
        )
    }

    /// Which nodes produce each output (5.5): the nodes its `value` refers
    /// to with `get_property`, `get_attribute` or `eval`, anywhere in the
    /// value (the reference looks at the whole value only).
    fn producers(&mut self) -> Result<()> {
        for o in self.g.outputs.clone() {
            let raw = self.g.raw(self.doc, o);
            let Some(value) = raw.and_then(|r| r.get("value")).filter(|v| v.is_defined()) else {
                bail!(self.g.get(o).span, "Unexpected error");
            };
            let mut producers: Vec<ElementId> = Vec::new();
            walk(value, &mut |n: NodeRef<'d>| {
                let Some(name) = producer(n)? else {
                    return Ok(());
                };
                let Some(node) = self.g.node(name) else {
                    bail!(n.span(), "Node \"{name}\" not found");
                };
                if !producers.contains(&node) {
                    producers.push(node);
                }
                Ok(())
            })?;
            if let Some(list) = self.el(o).links_mut() {
                list.extend(producers);
            }
        }
        Ok(())
    }

    fn anchor_check(&self) -> Result<()> {
        let mode = self.g.options.kind_mode(Kind::Node);
        if !(self.g.options.anchor_check && mode.is_some_and(Mode::names_incoming_and_host)) {
            return Ok(());
        }
        let ok = self.g.nodes.iter().any(|&n| {
            let e = self.g.get(n);
            e.anchor() || self.g.implied(n).is_some_and(Node::is_truthy)
        });
        if !ok {
            bail!(
                Span::NONE,
                "Node default condition mode \"incoming(naive)-host\" requires at least one anchor or implied node template"
            );
        }
        Ok(())
    }
}

/// Calls `f` on `value` and every node inside it, in document order.
fn walk<'v>(value: NodeRef<'v>, f: &mut dyn FnMut(NodeRef<'v>) -> Result<()>) -> Result<()> {
    if !matches!(value.value(), ValueRef::Map(_) | ValueRef::Seq(_)) {
        // Most values: no stack.
        return f(value);
    }
    let mut stack = vec![value];
    while let Some(n) = stack.pop() {
        f(n)?;
        match n.value() {
            ValueRef::Map(m) => stack.extend(m.iter().rev().map(|(_, v)| v)),
            ValueRef::Seq(items) => stack.extend(items.iter().rev()),
            _ => {}
        }
    }
    Ok(())
}

/// The producing node an output value's node names, if it is a reference
/// (5.5): `{get_property|get_attribute: [N, p]}`, `{eval: "N::p"}` or the
/// string `{{ '::N::p' | eval }}`.
fn producer(n: NodeRef<'_>) -> Result<Option<&str>> {
    if let Some(s) = n.as_str() {
        return Ok(jinja_eval_producer(s));
    }
    let Some(m) = n.as_map() else {
        return Ok(None);
    };
    if let Some(l) = m
        .get("get_property")
        .filter(|n| n.is_defined())
        .or_else(|| m.get("get_attribute").filter(|n| n.is_defined()))
    {
        let Some(items) = l.as_seq() else {
            return Ok(None);
        };
        return match items.len() {
            2 => {
                let first = items.at(0);
                let name = first.as_str().ok_or_else(|| {
                    Error::at(
                        format!("Element \"{}\" is not a string", to_json(first)),
                        first.span(),
                    )
                })?;
                if name == "SELF" {
                    bail!(first.span(), "Element not defined");
                }
                Ok(Some(name))
            }
            3 => bail!(l.span(), "Not implemented"),
            _ => Ok(None),
        };
    }
    Ok(match m.get("eval").and_then(NodeRef::as_str) {
        Some(e) => match e.split("::").collect::<Vec<_>>()[..] {
            [n, _] => Some(n),
            _ => None,
        },
        None => None,
    })
}

/// The node of `{{ '::N::p' | eval }}` (exact spacing, either quote).
fn jinja_eval_producer(s: &str) -> Option<&str> {
    let inner = s.strip_prefix("{{ ")?.strip_suffix(" | eval }}")?;
    let q = inner.chars().next()?;
    if q != '\'' && q != '"' {
        return None;
    }
    let inner = inner.strip_prefix(q)?.strip_suffix(q)?;
    let rest = inner.strip_prefix("::")?;
    let (node, prop) = rest.split_once("::")?;
    if prop.is_empty() || prop.contains("::") {
        return None;
    }
    Some(node)
}

/// Appends the fallback `VINTNER_UNDEFINED` property of every property name of
/// every container (5.3), unless `bratans_unknown` is set: what the
/// reference's enricher writes into the template, for the template
/// `v4t enrich` prints and for a resolver graph built afresh from the
/// enriched document. Otherwise the enricher's graphs add them as elements
/// of their own ([`Fallback::Added`]), and the document never holds them.
pub(crate) fn add_fallback_properties(doc: &mut Node, options: &Options) {
    let Some(mode) = FallbackMode::of(options) else {
        return;
    };
    let grammar = crate::version::grammar_of(&*doc);
    let attributes = grammar == Grammar::Tosca2;
    let Some(ttm) = document::topology_map_mut(doc) else {
        return;
    };
    let mut containers: Vec<&mut Node> = Vec::new();
    for (k, v) in ttm.iter_mut() {
        match k.name.as_str() {
            "node_templates" => {
                for (_, node) in document::entries_mut(v) {
                    containers_of_node(node, attributes, &mut containers);
                }
            }
            "relationship_templates" => {
                if let Some(m) = v.as_map_mut() {
                    for (_, rt) in m.iter_mut() {
                        containers.push(rt);
                    }
                }
            }
            "groups" | "policies" => {
                for item in v.as_seq_mut().into_iter().flatten() {
                    if let Some((_, g)) = item.as_map_mut().and_then(|m| m.first_mut()) {
                        containers.push(g);
                    }
                }
            }
            _ => {}
        }
    }
    for c in containers {
        add_fallbacks_to(c, mode, grammar);
    }
}

fn containers_of_node<'a>(node: &'a mut Node, attributes: bool, out: &mut Vec<&'a mut Node>) {
    // Split borrows: artifacts are inside the node map.
    let Some(m) = node.as_map_mut() else { return };
    let mut node_props: Option<&'a mut Node> = None;
    for (k, v) in m.iter_mut() {
        match k.name.as_str() {
            "properties" => node_props = Some(v),
            "attributes" if attributes => out.push(v),
            "artifacts" => {
                for item in v.as_seq_mut().into_iter().flatten() {
                    if let Some((_, a)) = item.as_map_mut().and_then(|m| m.first_mut()) {
                        out.push(a);
                    }
                }
            }
            _ => {}
        }
    }
    if let Some(p) = node_props {
        out.push(p);
    }
}

/// The value of a fallback property: the property has no value (5.3).
pub(crate) const UNDEFINED: &str = "VINTNER_UNDEFINED";

/// Whether a property definition is a fallback property: the hidden
/// alternative the processor gives every property name (or one written
/// with the value [`UNDEFINED`]), present exactly when no other
/// alternative of the name is. An internal element: reports for people
/// leave it out.
/// Whether a property's value marks it a fallback property.
pub(crate) fn is_fallback_value<'a>(value: Option<impl Into<NodeRef<'a>>>) -> bool {
    value.and_then(|v| v.into().as_str()) == Some(UNDEFINED)
}

/// The properties of a normalised list.
fn written_items(items: SeqRef<'_>, grammar: Grammar) -> Vec<Written<'_>> {
    items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| {
            let (name, span, a) = single(item)?;
            // An entry that is no definition is the value (TOSCA 2.0 lists
            // as written, when resolving).
            let (def, value) = match crate::document::is_definition(a, grammar) {
                true => (Some(a), a.get("value")),
                false => (None, Some(a)),
            };
            Some(Written {
                i,
                name,
                span,
                def,
                value,
            })
        })
        .collect()
}

/// A written property of a list (`def`, its definition) or of a property
/// map kept as written or a list entry that is no definition (`def` is
/// `None`), with its position and `value`.
#[derive(Clone, Copy)]
struct Written<'d> {
    i: usize,
    name: &'d str,
    span: Span,
    def: Option<NodeRef<'d>>,
    value: Option<NodeRef<'d>>,
}

/// `container` is either a container map with `properties` (and, with
/// `attributes`, TOSCA 2.0 `attributes`) or the list itself.
fn add_fallbacks_to(container: &mut Node, mode: FallbackMode, grammar: Grammar) {
    if let Some(items) = container.as_seq_mut() {
        return add_fallbacks_to_list(items, mode, grammar);
    }
    let attributes = grammar == Grammar::Tosca2;
    let Some(m) = container.as_map_mut() else {
        return;
    };
    for (k, v) in m.iter_mut() {
        if k.name == "properties" || (attributes && k.name == "attributes") {
            if let Some(items) = v.as_seq_mut() {
                add_fallbacks_to_list(items, mode, grammar);
            }
        }
    }
}

fn add_fallbacks_to_list(items: &mut Vec<Node>, mode: FallbackMode, grammar: Grammar) {
    let names: Vec<String> = fallback_names(&written_items(SeqRef::Tree(items), grammar), mode)
        .into_iter()
        .map(str::to_string)
        .collect();
    for name in names {
        items.push(Node::single(name, mode.definition()));
    }
}

/// The names of the normalised property list `items` that get a fallback
/// property, in the order they first appear: in mode A every name none of
/// whose properties is a default alternative, in mode B every name none of
/// whose properties is a fallback already.
fn fallback_names<'d>(items: &[Written<'d>], mode: FallbackMode) -> Vec<&'d str> {
    // Each name once, with whether it gets one so far; one pass (a scan of
    // the items per name was quadratic in a node's properties).
    let mut names: Seen<'d, bool> = Seen::new();
    for item in items {
        let excluded = match mode {
            FallbackMode::DefaultAlternative => item
                .def
                .and_then(|d| d.get("default_alternative"))
                .is_some_and(NodeRef::is_truthy),
            FallbackMode::Plain => is_fallback_value(item.value),
        };
        match names.get_mut(item.name) {
            Some(gets) => *gets &= !excluded,
            None => names.insert(item.name, !excluded),
        }
    }
    names
        .into_entries()
        .into_iter()
        .filter_map(|(name, gets)| gets.then_some(name))
        .collect()
}

/// How the fallback properties of a template are defined (5.3), by the
/// option `fallback_property_default_alternative`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FallbackMode {
    /// Mode A: `{value: VINTNER_UNDEFINED, default_alternative: true,
    /// implied: true, pruning: true}`.
    DefaultAlternative,
    /// Mode B: `{value: VINTNER_UNDEFINED}`.
    Plain,
}

impl FallbackMode {
    /// The mode of `options`, `None` if no fallback properties are added
    /// (`bratans_unknown`).
    pub(crate) fn of(options: &Options) -> Option<FallbackMode> {
        match (
            options.bratans_unknown,
            options.fallback_property_default_alternative,
        ) {
            (true, _) => None,
            (false, true) => Some(FallbackMode::DefaultAlternative),
            (false, false) => Some(FallbackMode::Plain),
        }
    }

    /// A new definition of a fallback property of this mode.
    fn definition(self) -> Node {
        let mode_a = self == FallbackMode::DefaultAlternative;
        // Sized for its entries (`Map::new` and `insert` reserve four).
        let mut def = Map::with_capacity(if mode_a { 4 } else { 1 });
        def.push(Key::new("value", Span::NONE), Node::string(UNDEFINED));
        if mode_a {
            for key in ["default_alternative", "implied", "pruning"] {
                def.push(Key::new(key, Span::NONE), Node::bool(true));
            }
        }
        Node::map(def)
    }

    /// The definition of every fallback property of this mode that a graph
    /// adds ([`Fallback::Added`]), made once: [`Graph::raw`] gives it for
    /// each of them.
    pub(crate) fn shared(self) -> &'static Node {
        static DEFAULT_ALTERNATIVE: LazyLock<Node> =
            LazyLock::new(|| FallbackMode::DefaultAlternative.definition());
        static PLAIN: LazyLock<Node> = LazyLock::new(|| FallbackMode::Plain.definition());
        match self {
            FallbackMode::DefaultAlternative => &DEFAULT_ALTERNATIVE,
            FallbackMode::Plain => &PLAIN,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{build, normalize, options};

    const TEMPLATE: &str = crate::testing::ALL_ELEMENTS;

    /// The names that get a fallback property are, in both modes, those a
    /// scan of the items per name finds (the definition in 5.3), in the
    /// order of their first item: on random lists of up to 40 items over
    /// 24 names (hashed beyond 16), with default alternatives, fallback
    /// values and plain values written anywhere among a name's items.
    #[test]
    fn fallback_names_are_those_a_scan_per_name_finds() {
        fn scanned<'d>(items: &[Written<'d>], mode: FallbackMode) -> Vec<&'d str> {
            let mut names: Vec<&str> = Vec::new();
            for item in items {
                if !names.contains(&item.name) {
                    names.push(item.name);
                }
            }
            names.retain(|&name| {
                let mut same = items.iter().filter(|item| item.name == name);
                match mode {
                    FallbackMode::DefaultAlternative => !same.any(|item| {
                        item.def
                            .and_then(|d| d.get("default_alternative"))
                            .is_some_and(NodeRef::is_truthy)
                    }),
                    FallbackMode::Plain => !same.any(|item| is_fallback_value(item.value)),
                }
            });
            names
        }
        let mut rng = crate::testing::Rng::new(2122);
        let (mut dropped, mut kept) = (0, 0);
        for round in 0..200 {
            let len = 1 + rng.below(40);
            let names = if round % 2 == 0 { 24 } else { 6 };
            let items: Vec<String> = (0..len)
                .map(|_| {
                    let name = format!("p{}", rng.below(names));
                    match rng.below(6) {
                        0 => format!("- {name}: {{value: 1, default_alternative: true}}"),
                        1 => format!("- {name}: {{value: {UNDEFINED}}}"),
                        2 => format!("- {name}: {{value: 1, default_alternative: false}}"),
                        3 => format!("- {name}: x"),
                        _ => format!("- {name}: {{value: 2}}"),
                    }
                })
                .collect();
            let list = crate::testing::doc(&items.join("\n"));
            let seq = list.as_seq().expect("a list");
            for grammar in [Grammar::Tosca13, Grammar::Tosca2] {
                let written = written_items(SeqRef::Tree(seq), grammar);
                for mode in [FallbackMode::DefaultAlternative, FallbackMode::Plain] {
                    let want = scanned(&written, mode);
                    let got = fallback_names(&written, mode);
                    assert_eq!(got, want, "{mode:?} {grammar:?}\n{}", items.join("\n"));
                    let mut distinct: Vec<&str> = written.iter().map(|w| w.name).collect();
                    distinct.sort_unstable();
                    distinct.dedup();
                    dropped += usize::from(got.len() < distinct.len());
                    kept += got.len();
                }
            }
        }
        assert!(
            dropped >= 100 && kept >= 1000,
            "{dropped} lists lost a name, {kept} names kept"
        );
    }

    /// The graph the builder makes of a normalised template read as a
    /// [`v4t_yaml::Doc`] is the one it makes of the tree (every element,
    /// span, condition copied, link and index), or the error is the same:
    /// on the fixtures, on random templates of both grammars and on
    /// templates the builder rejects.
    #[test]
    fn documents_build_the_graphs_their_trees_build() {
        let mut rng = crate::testing::Rng::new(0x5eed);
        let mut texts: Vec<String> = vec![TEMPLATE.to_string()];
        for k in 0..12 {
            let deployment = k % 2 == 0;
            let kinds = ['b', 's', 'u', 'f'];
            texts.push(crate::testing::random_template(
                &mut rng, 3, &kinds, 6, deployment,
            ));
            texts.push(crate::testing::random_tosca2_template(&mut rng, 2, 5));
        }
        let node = |n: &str| format!("topology_template:\n  node_templates:\n{n}");
        texts.extend([
            node("    - a: {type: t}\n    - a: {type: t}\n    - b: {type: t}\n    - b: {type: t}\n"),
            node("    a: {type: t, weight: -1}\n"),
            node("    a: {type: t, requirements: [{host: nowhere}]}\n"),
            node("    a: {type: t, technology: [{terraform: {weight: 'x'}}]}\n"),
            node("    a: {type: [{t: {default_alternative: true}}, {u: {default_alternative: true}}]}\n"),
        ]);
        let (mut built, mut failed) = (0, 0);
        for text in &texts {
            let mut tree = crate::testing::doc(text);
            if normalize(&mut tree).is_err() {
                continue;
            }
            let read = v4t_yaml::Doc::from_node(&tree, v4t_yaml::SourceId(0));
            let files = crate::testing::type_files(&tree);
            let types = files.system();
            let opts = options(&tree).expect("options");
            let shown = |g: Result<Graph>| format!("{g:?}");
            let from_tree = shown(build_for_technologies(&tree, &opts, &types, true));
            let from_doc = shown(build_for_technologies(read.root(), &opts, &types, true));
            assert_eq!(from_tree, from_doc, "{text}");
            built += usize::from(from_tree.starts_with("Ok"));
            failed += usize::from(from_tree.starts_with("Err"));
        }
        assert!(
            built > 20 && failed >= 4,
            "{built}, {failed} of {}",
            texts.len()
        );
    }

    fn normalized() -> Node {
        let mut d = crate::testing::doc(TEMPLATE);
        normalize(&mut d).expect("normalizes");
        d
    }

    #[test]
    fn every_name_defined_again_is_reported() {
        let text = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  node_templates:
    - a: {type: tosca.nodes.Root}
    - b: {type: tosca.nodes.Root}
    - a: {type: tosca.nodes.Root}
    - c: {type: tosca.nodes.Root}
    - b: {type: tosca.nodes.Root}
    - a: {type: tosca.nodes.Root}
";
        let mut d = crate::testing::doc(text);
        normalize(&mut d).expect("normalizes");
        let e = build(&d).expect_err("names repeat");
        let found: Vec<(String, u32)> = e
            .diagnostics()
            .map(|d| (d.message.clone(), d.span.locate(text).line))
            .collect();
        assert_eq!(
            found,
            vec![
                ("Node \"a\" defined multiple times".to_string(), 6),
                ("Node \"b\" defined multiple times".to_string(), 8),
                ("Node \"a\" defined multiple times".to_string(), 9),
            ]
        );
    }

    #[test]
    fn element_ids_write_their_index_in_decimal() {
        for (index, expected) in [
            (None, "node.web"),
            (Some(0), "node.web@0"),
            (Some(7), "node.web@7"),
            (Some(10), "node.web@10"),
            (Some(u32::MAX), "node.web@4294967295"),
        ] {
            let mut id = String::from("x");
            write_id(&mut id, Kind::Node.word(), "web", index);
            assert_eq!(id, format!("x{expected}"));
        }
    }

    #[test]
    fn node_keys_are_the_entries_map_lookups_find() {
        let d = crate::testing::doc(
            "{type: t, implied: true, anchor: false, persistent: true, weight: 0.5, properties: [], requirements: [], artifacts: [], technology: [], other: 1}",
        );
        let k = NodeKeys::of((&d).into());
        for (found, key) in [
            (k.types, "type"),
            (k.implied, "implied"),
            (k.anchor, "anchor"),
            (k.persistent, "persistent"),
            (k.weight, "weight"),
            (k.properties, "properties"),
            (k.requirements, "requirements"),
            (k.artifacts, "artifacts"),
            (k.technology, "technology"),
        ] {
            let expected = d.get(key).map(|n| n as *const Node);
            let found = found.and_then(NodeRef::as_tree);
            assert_eq!(found.map(|n| n as *const Node), expected, "{key}");
        }
        let list = crate::testing::doc("[1]");
        let none = NodeKeys::of((&list).into());
        assert!(none.types.is_none() && none.requirements.is_none());
    }

    #[test]
    fn the_element_count_is_exact() {
        let d = normalized();
        let g = build(&d).expect("builds");
        assert_eq!(element_count((&d).into(), false), g.elements.len());
    }

    #[test]
    fn graph_one_copies_only_technology_conditions() {
        let d = normalized();
        let files = crate::testing::type_files(&d);
        let g = build_for_technologies(&d, &options(&d).expect("options"), &files.system(), false)
            .expect("builds");
        for (i, e) in g.elements.iter().enumerate() {
            assert_eq!(
                e.conditions.is_empty(),
                e.kind != Kind::Technology,
                "{}",
                g.id(ElementId(i as u32))
            );
        }
        let all = build(&d).expect("builds");
        assert!(
            all.elements
                .iter()
                .filter(|e| !e.conditions.is_empty())
                .count()
                > 1
        );
    }

    /// A document normalised with single types and property maps as
    /// written builds the graph of the canonical lists: the same elements
    /// (ids, spans, locations), the same type definitions through `raw`,
    /// the same property values (a map entry has no definition), an exact
    /// element count.
    #[test]
    fn single_types_as_written_build_the_graph_of_their_lists() {
        let template = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  node_templates:
    a:
      type: t
      properties: {n: 1, m: {value: 2, conditions: false}, z: null}
      artifacts: {f: {type: x, file: f, properties: {ap: a}}, g: g.zip}
      requirements: [{db: {node: b, relationship: r1}}]
    b:
      type: [{u: {conditions: false}}, {v: {default_alternative: true}}]
      properties: [{l: 1}, {l: {value: 2, conditions: false}}]
  relationship_templates:
    r1: {type: rt, properties: {rp: 3}}
  groups:
    g: {type: tosca.groups.Root, members: [a], properties: {gp: 4}}
  policies:
    - p: {type: pt, targets: [a], properties: {pp: 5}}
";
        for text in [TEMPLATE, template] {
            let mut lists = crate::testing::doc(text);
            normalize(&mut lists).expect("normalizes");
            let mut written = crate::testing::doc(text);
            let automatic = false;
            crate::normalize::normalize(
                &mut written,
                automatic,
                crate::normalize::TypeShape::Written,
            )
            .expect("normalizes");
            let single = to_json(&written);
            assert!(single.contains(r#""type":"tosca.groups.Root""#), "{single}");
            let from_lists = build(&lists).expect("builds");
            let from_written = build(&written).expect("builds");
            assert_eq!(
                format!("{:?}", from_written.elements),
                format!("{:?}", from_lists.elements)
            );
            assert_eq!(
                element_count((&written).into(), false),
                from_written.elements.len()
            );
            let mut values = 0;
            for id in from_lists.ordered() {
                assert_eq!(from_written.id(id), from_lists.id(id));
                if from_lists.get(id).kind == Kind::Property {
                    let value = from_written.property_value(&written, id).map(to_json);
                    assert_eq!(
                        value,
                        from_lists.property_value(&lists, id).map(to_json),
                        "{}",
                        from_lists.id(id)
                    );
                    let in_map = from_written.raw(&written, id).is_none();
                    values += usize::from(in_map && value.is_some());
                }
                if from_lists.get(id).kind == Kind::Type {
                    assert_eq!(
                        from_written.raw(&written, id).map(to_json),
                        from_lists.raw(&lists, id).map(to_json),
                        "{}",
                        from_lists.id(id)
                    );
                }
            }
            assert!(values >= 4 || text == TEMPLATE, "{values} map entries");
            crate::normalize::canonical_shape(&mut written);
            assert_eq!(to_json(&written), to_json(&lists));
        }
    }

    /// The fallback properties a graph adds are the elements a build of
    /// the document with the fallbacks written into it has: same ids,
    /// flags and conditions, and the same definitions through `raw`; the
    /// document stays without them. Modes A and B, TOSCA 2.0 attributes,
    /// and property lists of relationship templates, groups, policies and
    /// artifacts.
    #[test]
    fn added_fallback_properties_equal_written_ones() {
        for (template, mode) in [
            (TEMPLATE, FallbackMode::DefaultAlternative),
            (
                "tosca_definitions_version: tosca_variability_1_0_rc_3
topology_template:
  node_templates:
    a:
      type: t
      properties: [{p: 1}, {p: {value: 2, default_alternative: true}}, {q: VINTNER_UNDEFINED}, {r: 3}]
      artifacts: [{f: {type: x, file: f, properties: [{s: 1}]}}]
      requirements: [{db: {node: a, relationship: r1}}]
  relationship_templates:
    r1: {type: rt, properties: [{w: 1}]}
  groups:
    g: {type: tosca.groups.Root, members: [a], properties: [{m: 1}]}
  policies:
    - pol: {type: pt, targets: [a], properties: [{n: 1}, {n: 2}]}
",
                FallbackMode::Plain,
            ),
            (
                "tosca_definitions_version: tosca_2_0
service_template:
  node_templates:
    a:
      type: t
      properties: [{p: 1}, {p: {value: 2, conditions: false}}]
      attributes: [{at: 1}]
",
                FallbackMode::DefaultAlternative,
            ),
        ] {
            let mut written = crate::testing::doc(template);
            normalize(&mut written).expect("normalizes");
            let mut added = written.clone();
            let opts = options(&written).expect("options");
            assert_eq!(FallbackMode::of(&opts), Some(mode), "{template}");
            add_fallback_properties(&mut written, &opts);
            let files = crate::testing::type_files(&written);
            let types = files.system();
            let from_doc = build_moving_conditions(&mut written, &opts, &types, false, None)
                .expect("builds");
            let from_graph =
                build_moving_conditions(&mut added, &opts, &types, true, None).expect("builds");
            assert_eq!(
                to_json(&added).matches(UNDEFINED).count(),
                usize::from(mode == FallbackMode::Plain),
                "the document holds only the written fallback"
            );
            let added_here = |e: &Element| matches!(e.fallback, Fallback::Added(m) if m == mode);
            let count = from_graph.elements.iter().filter(|e| added_here(e)).count();
            assert!(count >= 2, "{template}: {count} added");
            assert!(!from_doc.elements.iter().any(added_here));
            let normalized: Vec<Element> = from_graph
                .elements
                .iter()
                .cloned()
                .map(|mut e| {
                    if added_here(&e) {
                        e.fallback = Fallback::Written;
                    }
                    e
                })
                .collect();
            assert_eq!(format!("{normalized:?}"), format!("{:?}", from_doc.elements));
            assert_eq!(from_graph.elements.len(), from_doc.elements.len());
            for id in from_doc.ordered() {
                assert_eq!(from_graph.id(id), from_doc.id(id));
                // The shared definition's `implied` is the written copy's.
                assert_eq!(
                    from_graph.implied(id).map(to_json),
                    from_doc.implied(id).map(to_json),
                    "{}",
                    from_doc.id(id)
                );
                if from_doc.get(id).kind != Kind::Property {
                    continue;
                }
                assert_eq!(
                    from_graph.raw(&added, id).map(to_json),
                    from_doc.raw(&written, id).map(to_json),
                    "{}",
                    from_doc.id(id)
                );
            }
            assert!(
                element_count((&added).into(), true) >= from_graph.elements.len(),
                "the arena is reserved for the added fallbacks too"
            );
        }
    }

    #[test]
    fn moving_conditions_gives_the_lists_a_copy_gives() {
        let mut d = normalized();
        let copied = build(&d).expect("builds");
        let written = options(&d).expect("options");
        let type_files = crate::testing::type_files(&d);
        let types = type_files.system();
        let moved = build_moving_conditions(&mut d, &written, &types, false, None).expect("builds");
        let yaml = |g: &Graph| -> Vec<Vec<String>> {
            g.elements
                .iter()
                .map(|e| {
                    e.conditions
                        .iter()
                        .map(|c| to_json(&c.to_node(g)))
                        .collect()
                })
                .collect()
        };
        assert_eq!(yaml(&moved), yaml(&copied));
        // Only the definitions with a list were visited; theirs are null now.
        assert!(moved.ordered().all(|id| moved
            .raw_map(&d, id)
            .and_then(|m| m.get("conditions"))
            .is_none_or(NodeRef::is_null)));
    }

    #[test]
    fn moving_conditions_moves_every_implies_list_into_the_graph() {
        let mut d = normalized();
        let written_implies: Vec<(String, String)> = {
            let g = build(&d).expect("builds");
            g.ordered()
                .filter_map(|id| {
                    let i = g.raw_map(&d, id)?.get("implies")?;
                    Some((g.id(id).to_string(), to_json(i)))
                })
                .collect()
        };
        assert!(written_implies.len() >= 2, "{written_implies:?}");
        let written = options(&d).expect("options");
        let type_files = crate::testing::type_files(&d);
        let types = type_files.system();
        let moved = build_moving_conditions(&mut d, &written, &types, false, None).expect("builds");
        let in_graph: Vec<(String, String)> = moved
            .ordered()
            .filter_map(|id| Some((moved.id(id).to_string(), to_json(moved.implies(id)?))))
            .collect();
        assert_eq!(in_graph, written_implies);
        assert!(moved.ordered().all(|id| moved
            .raw_map(&d, id)
            .and_then(|m| m.get("implies"))
            .is_none_or(NodeRef::is_null)));
    }

    #[test]
    fn names_are_read_back_from_the_ids() {
        // Dots, `@` and digits in names, which ids also use as separators.
        let mut d = crate::testing::doc(
            "
tosca_definitions_version: tosca_variability_1_0
topology_template:
  inputs:
    in.put@2: {type: string}
  node_templates:
    web.1@eu:
      type: some.type@1
      properties: {p.q@3: 1, 'ü': 2}
      requirements: [{host.x: {node: vm}}]
      artifacts: {a@1.zip: {type: file, file: x}}
    vm: {type: t}
  groups:
    g.1: {type: tosca.groups.Root, members: [vm]}
",
        );
        normalize(&mut d).expect("normalizes");
        let g = build(&d).expect("builds");
        let names: Vec<(&str, &str)> = (0..g.elements.len())
            .map(|i| {
                let id = ElementId(i as u32);
                (g.get(id).word(), g.name(id))
            })
            .collect();
        for expected in [
            ("input", "in.put@2"),
            ("node", "web.1@eu"),
            ("type", "some.type@1"),
            ("property", "p.q@3"),
            ("property", "ü"),
            ("relation", "host.x"),
            ("artifact", "a@1.zip"),
            ("node", "vm"),
            ("group", "g.1"),
        ] {
            assert!(names.contains(&expected), "{expected:?} in {names:?}");
        }
    }

    #[test]
    fn repeated_relationship_template_keys_find_the_first() {
        let mut d = crate::testing::doc(
            "
tosca_definitions_version: tosca_variability_1_0
topology_template:
  node_templates:
    a: {type: t, requirements: [{db: {node: b, relationship: r}}]}
    b: {type: t}
  relationship_templates:
    r: {type: first}
",
        );
        normalize(&mut d).expect("normalizes");
        let rts = d
            .get_mut("topology_template")
            .and_then(|t| t.get_mut("relationship_templates"))
            .and_then(Node::as_map_mut)
            .expect("templates");
        let mut second = rts.get("r").expect("r").clone();
        if let Some(t) = second.get_mut("type").and_then(Node::as_seq_mut) {
            t[0] = Node::single("second", Node::null());
        }
        rts.push(v4t_yaml::Key::new("r", Span::NONE), second);
        let g = build(&d).expect("builds");
        let rel = g.relations[0];
        assert_eq!(g.name(g.get(rel).types()[0]), "first");
        let template = g.get(rel).relationship().expect("template") as usize;
        assert_eq!(g.relationship_templates[template], "r");
    }

    #[test]
    fn implied_defaults_follow_kind_and_hosting() {
        let d = normalized();
        let g = build(&d).expect("builds");
        let web = g.get(g.node("web").expect("web"));
        let (host, db) = (web.outgoing()[0], web.outgoing()[1]);
        assert!(!g.is_implied(host));
        assert_eq!(g.is_implied(db), g.options.relation_default_implied);
        assert!(g.is_implied(web.properties()[0]));
        assert!(!g.is_implied(web.properties()[1]));
        assert!(!g.is_implied(g.node("vm").expect("vm")));
    }

    #[test]
    fn jinja_producer_requires_exact_spacing() {
        assert_eq!(
            jinja_eval_producer("{{ '::web::url' | eval }}"),
            Some("web")
        );
        assert_eq!(
            jinja_eval_producer("{{ \"::db::port\" | eval }}"),
            Some("db")
        );
        assert_eq!(jinja_eval_producer("{{'::web::url' | eval }}"), None);
        assert_eq!(jinja_eval_producer("plain"), None);
    }

    const RELATIONSHIPS: &str = "tosca_definitions_version: tosca_variability_1_0
relationship_types:
  my.RunsOn: {derived_from: tosca.relationships.HostedOn}
  my.DependsOn: {derived_from: tosca.relationships.Root}
topology_template:
  node_templates:
    app:
      type: tosca.nodes.Root
      requirements:
        - db: {node: db, relationship: my.DependsOn}
        - runs_on: {node: vm, relationship: runs}
        - placed_on: {node: vm, relationship: {type: tosca.relationships.HostedOn}}
    db: {type: tosca.nodes.Root}
    vm: {type: tosca.nodes.Root}
  relationship_templates:
    runs: {type: my.RunsOn}
";

    /// A requirement may name a relationship type (valid TOSCA 1.3) instead
    /// of a template; a relationship (derived from) `HostedOn` makes a
    /// hosting relation whatever the requirement's name (issue 12).
    #[test]
    fn relationship_types_in_requirements_and_hosted_on() {
        let mut d = v4t_yaml::parse(RELATIONSHIPS, v4t_yaml::SourceId(0)).expect("parses");
        crate::testing::normalize(&mut d).expect("normalizes");
        let g = build(&d).expect("builds");
        let app = g.node("app").unwrap();
        let hosting: Vec<bool> = g
            .get(app)
            .outgoing()
            .iter()
            .map(|&r| g.get(r).hosting())
            .collect();
        assert_eq!(hosting, vec![false, true, true]);
        assert_eq!(g.get(g.get(app).outgoing()[0]).relationship(), None);
        let unknown =
            RELATIONSHIPS.replace("relationship: my.DependsOn}", "relationship: nowhere}");
        let mut d = v4t_yaml::parse(&unknown, v4t_yaml::SourceId(0)).expect("parses");
        crate::testing::normalize(&mut d).expect("normalizes");
        assert_eq!(
            build(&d).unwrap_err().message,
            "Relationship \"nowhere\" of relation \"db\" of node \"app\" does not exist!"
        );
    }

    /// A group whose type derives from `variability.groups.ConditionalMembers`
    /// is a variability group: its conditions go to its members (issue 12).
    #[test]
    fn derived_variability_groups_condition_their_members() {
        let out = crate::testing::resolve_text(
            "tosca_definitions_version: tosca_variability_1_0
group_types:
  my.members: {derived_from: variability.groups.ConditionalMembers}
topology_template:
  node_templates:
    a: {type: t}
    b: {type: t}
  groups:
    g: {type: my.members, members: [a], conditions: false}
",
            &[],
            None,
        )
        .expect("resolves");
        let tt = out.get("topology_template").expect("topology");
        assert!(
            tt.get("groups").is_none(),
            "the variability group is removed"
        );
        let nodes: Vec<&str> = tt
            .get("node_templates")
            .and_then(Node::as_map)
            .map(|m| m.keys().collect())
            .unwrap_or_default();
        assert_eq!(nodes, vec!["b"]);
    }

    /// A list entry whose value is null (`- q: null`, `- q:`) is a property
    /// without a value, reported with the reference's error for a property
    /// without value or expression; the reference itself fails on it with
    /// "Cannot read properties of null (reading 'value')" (found by
    /// comparing with the reference on random templates).
    #[test]
    fn a_null_list_entry_is_a_property_without_value() {
        for entry in ["q: null", "q:"] {
            let template = format!(
                "tosca_definitions_version: tosca_variability_1_0
topology_template:
  node_templates:
    d:
      type: tosca.nodes.Root
      properties:
        - p: 1
        - {entry}
"
            );
            let e = crate::testing::resolve_error(&template, None).expect("fails");
            assert_eq!(
                e.message, "Property \"q@1\" of node \"d\" has no value or expression defined",
                "{entry}"
            );
            let at = template.rfind("q").expect("q") as u32;
            assert_eq!(
                e.diagnostics().next().map(|d| d.span.start),
                Some(at),
                "{entry}"
            );
        }
    }
}
