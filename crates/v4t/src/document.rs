//! Where things live in a template document: the one module that spells the
//! paths of its sections (the topology, its `variability`, the element
//! sections), so that no stage searches the document with its own copy of
//! them. A TOSCA 2.0 base grammar ([`crate::version::Grammar`]) names the
//! topology `service_template`; this is where that goes.
//!
//! The raw document stays the source of the output; stages read and edit it
//! through these accessors.

use v4t_tosca::Grammar;
use v4t_yaml::{Key, KeyRef, Map, MapRef, Node, NodeRef, Span, Value, ValueRef};

/// The key of the topology section of TOSCA 1.3.
pub(crate) const TOPOLOGY: &str = "topology_template";

/// The key of the topology section of TOSCA 2.0.
pub(crate) const SERVICE_TEMPLATE: &str = "service_template";

/// The key of the topology section of `doc`: `service_template` if that is
/// the one it has (a TOSCA 2.0 base grammar; a document with both keys is
/// refused when it is loaded), else the TOSCA 1.3 key.
pub(crate) fn topology_key<'a>(doc: impl Into<NodeRef<'a>>) -> &'static str {
    let doc = doc.into();
    if doc.get(TOPOLOGY).is_none() && doc.get(SERVICE_TEMPLATE).is_some() {
        SERVICE_TEMPLATE
    } else {
        TOPOLOGY
    }
}

/// The topology of `doc`.
pub(crate) fn topology(doc: &Node) -> Option<&Node> {
    topology_of(doc.into()).and_then(NodeRef::as_tree)
}

/// The topology of `doc`, read through a [`NodeRef`] (of a tree or a
/// [`v4t_yaml::Doc`]).
pub(crate) fn topology_of(doc: NodeRef<'_>) -> Option<NodeRef<'_>> {
    doc.get(TOPOLOGY).or_else(|| doc.get(SERVICE_TEMPLATE))
}

/// The topology of `doc`, mutable.
pub(crate) fn topology_mut(doc: &mut Node) -> Option<&mut Node> {
    let key = topology_key(&*doc);
    doc.get_mut(key)
}

/// The topology of `doc` as a map, mutable.
pub(crate) fn topology_map_mut(doc: &mut Node) -> Option<&mut Map> {
    topology_mut(doc).and_then(Node::as_map_mut)
}

/// The topology's `variability` section.
pub(crate) fn variability(doc: &Node) -> Option<&Node> {
    variability_of(doc.into()).and_then(NodeRef::as_tree)
}

/// The topology's `variability` section, read through a [`NodeRef`].
pub(crate) fn variability_of(doc: NodeRef<'_>) -> Option<NodeRef<'_>> {
    topology_of(doc)?.get("variability")
}

/// An entry of the `variability` section (`inputs`, `presets`,
/// `expressions`, `constraints`, `options`, `qualities`,
/// `type_specific_conditions`).
pub(crate) fn variability_entry<'d>(doc: impl Into<NodeRef<'d>>, key: &str) -> Option<NodeRef<'d>> {
    variability_of(doc.into())?.get(key)
}

/// `variability.options` as written, if it is a map (of a tree or a
/// [`v4t_yaml::Doc`]).
pub(crate) fn options<'a>(doc: impl Into<NodeRef<'a>>) -> Option<MapRef<'a>> {
    variability_entry(doc, "options")?.as_map()
}

/// The entries of a collection in map form or list form (every key of every
/// list item; list items with more than one key are errors elsewhere), of an
/// owned tree.
pub fn collection_entries(collection: Option<&Node>) -> Vec<(&Key, &Node)> {
    entries_of(collection.map(NodeRef::Tree))
        .filter_map(|(k, v)| Some((k.as_tree()?, v.as_tree()?)))
        .collect()
}

/// [`collection_entries`] read through a [`NodeRef`] (of a tree or a
/// [`v4t_yaml::Doc`]).
pub(crate) fn entries_of<'a>(
    collection: Option<impl Into<NodeRef<'a>>>,
) -> impl Iterator<Item = (KeyRef<'a>, NodeRef<'a>)> {
    let value = collection.map(|c| c.into().value());
    let (map, items) = match value {
        Some(ValueRef::Map(m)) => (Some(m), None),
        Some(ValueRef::Seq(items)) => (None, Some(items)),
        _ => (None, None),
    };
    let listed = items.into_iter().flatten().filter_map(NodeRef::as_map);
    map.into_iter()
        .flat_map(MapRef::iter)
        .chain(listed.flat_map(MapRef::iter))
}

/// The entries of a normalised list of single-entry maps, or of a
/// collection kept as a map (node templates as written, when resolving),
/// with their positions: the graph reads a map's entries as it reads list
/// items (`graph::entry_value`). List items that are no map are skipped,
/// their positions kept.
pub(crate) fn indexed_entries<'a>(
    collection: impl Into<NodeRef<'a>>,
) -> impl Iterator<Item = (u32, &'a str, Span, NodeRef<'a>)> {
    let collection = collection.into();
    let listed = collection.as_seq().into_iter().flatten().enumerate();
    let listed = listed.filter_map(|(i, item)| {
        let (k, v) = item.as_map()?.first()?;
        Some((i, k, v))
    });
    let mapped = collection
        .as_map()
        .into_iter()
        .flat_map(MapRef::iter)
        .enumerate();
    listed
        .chain(mapped.map(|(i, (k, v))| (i, k, v)))
        .map(|(i, k, v)| (u32::try_from(i).unwrap_or(u32::MAX), k.name(), k.span(), v))
}

/// The entries of a normalised list of single-entry maps or of a
/// collection kept as a map, values mutable.
pub(crate) fn entries_mut(collection: &mut Node) -> impl Iterator<Item = (&Key, &mut Node)> {
    let (items, map) = match &mut collection.value {
        Value::Seq(items) => (Some(items), None),
        Value::Map(m) => (None, Some(m)),
        _ => (None, None),
    };
    let listed = items
        .into_iter()
        .flatten()
        .filter_map(|item| item.as_map_mut()?.first_mut());
    listed.chain(map.into_iter().flat_map(Map::iter_mut))
}

/// The names of the declared variability inputs (map or list form).
pub(crate) fn declared_inputs<'a>(variability: Option<impl Into<NodeRef<'a>>>) -> Vec<&'a str> {
    let inputs = variability.and_then(|v| v.into().get("inputs"));
    entries_of(inputs).map(|(k, _)| k.name()).collect()
}

/// A top-level list or map that element locations start from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Section {
    NodeTemplates,
    RelationshipTemplates,
    Groups,
    Policies,
    Inputs,
    Outputs,
    /// `imports`, beside the topology.
    Imports,
}

impl Section {
    pub(crate) const ALL: [Section; 7] = [
        Section::NodeTemplates,
        Section::RelationshipTemplates,
        Section::Groups,
        Section::Policies,
        Section::Inputs,
        Section::Outputs,
        Section::Imports,
    ];

    pub(crate) fn key(self) -> &'static str {
        match self {
            Section::NodeTemplates => "node_templates",
            Section::RelationshipTemplates => "relationship_templates",
            Section::Groups => "groups",
            Section::Policies => "policies",
            Section::Inputs => "inputs",
            Section::Outputs => "outputs",
            Section::Imports => "imports",
        }
    }
}

/// The positions of the topology and of the sections in the document
/// a graph was built from, so that [`Graph::raw`] indexes them instead of
/// searching their keys for every element. Lookups check the key at each
/// position and search again if it differs (a key added or removed since).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sections {
    /// The topology's key ([`topology_key`]).
    key: &'static str,
    topology: Option<usize>,
    /// By [`Section`], in [`Section::ALL`] order.
    positions: [Option<usize>; 7],
}

impl Default for Sections {
    fn default() -> Sections {
        Sections {
            key: TOPOLOGY,
            topology: None,
            positions: [None; 7],
        }
    }
}

impl Sections {
    pub(crate) fn of<'a>(doc: impl Into<NodeRef<'a>>) -> Sections {
        let doc = doc.into();
        let mut s = Sections {
            key: topology_key(doc),
            ..Sections::default()
        };
        let Some(m) = doc.as_map() else { return s };
        s.topology = position(m, s.key);
        s.positions[6] = position(m, Section::Imports.key());
        if let Some(tt) = s
            .topology
            .and_then(|i| m.get_index(i))
            .and_then(|(_, v)| v.as_map())
        {
            for (slot, section) in s.positions.iter_mut().zip(&Section::ALL[..6]) {
                *slot = position(tt, section.key());
            }
        }
        s
    }
}

/// The position of `key` in `m`.
fn position(m: MapRef<'_>, key: &str) -> Option<usize> {
    m.keys().position(|k| k == key)
}

/// The entry of `m` at `at` if its key is `key`, else the entry `key`.
fn entry_at<'d>(m: MapRef<'d>, at: Option<usize>, key: &str) -> Option<NodeRef<'d>> {
    match at.and_then(|i| m.get_index(i)) {
        Some((k, v)) if k.name() == key => Some(v),
        _ => m.get(key),
    }
}

fn entry_at_mut<'d>(m: &'d mut Map, at: Option<usize>, key: &str) -> Option<&'d mut Node> {
    match at {
        Some(i) if m.get_index(i).is_some_and(|(k, _)| k.name == key) => m.get_index_mut(i),
        _ => m.get_mut(key),
    }
}

/// A section of `doc` (a tree or a [`v4t_yaml::Doc`]), at its position in
/// `hint` if given.
pub(crate) fn section<'d>(
    doc: impl Into<NodeRef<'d>>,
    s: Section,
    hint: Option<&Sections>,
) -> Option<NodeRef<'d>> {
    let doc = doc.into();
    let m = doc.as_map()?;
    if s == Section::Imports {
        return entry_at(m, hint.and_then(|h| h.positions[6]), s.key());
    }
    let key = hint.map_or_else(|| topology_key(doc), |h| h.key);
    let tt = entry_at(m, hint.and_then(|h| h.topology), key)?;
    entry_at(
        tt.as_map()?,
        hint.and_then(|h| h.positions[s as usize]),
        s.key(),
    )
}

pub(crate) fn section_mut<'d>(
    doc: &'d mut Node,
    s: Section,
    hint: Option<&Sections>,
) -> Option<&'d mut Node> {
    let key = hint.map_or_else(|| topology_key(&*doc), |h| h.key);
    let m = doc.as_map_mut()?;
    if s == Section::Imports {
        return entry_at_mut(m, hint.and_then(|h| h.positions[6]), s.key());
    }
    let tt = entry_at_mut(m, hint.and_then(|h| h.topology), key)?;
    entry_at_mut(
        tt.as_map_mut()?,
        hint.and_then(|h| h.positions[s as usize]),
        s.key(),
    )
}

/// The number of relationships a requirement assignment establishes: its
/// `count` if it is a non-negative integer, else 1 (also for a function,
/// which is known at deployment only).
pub(crate) fn relationship_count(assignment: Option<NodeRef<'_>>) -> u64 {
    assignment
        .and_then(|d| d.get("count"))
        .and_then(NodeRef::as_f64)
        .filter(|c| *c >= 0.0 && c.fract() == 0.0)
        .map_or(1, |c| c as u64)
}

/// Whether an entry of a property list is the property's definition
/// rather than its value (3.2). On TOSCA 1.3 every entry is: normalisation
/// wraps each value as `{value: ..}`, and a wrapped null (`{value: null}`,
/// a definition without a value) cannot be told from a written
/// `{value: null}` (a value). On TOSCA 2.0, where null is a value, an entry
/// is a definition exactly if it is a map with `value` or `expression`, so
/// a list read as written needs no wrapping.
pub(crate) fn is_definition(entry: NodeRef<'_>, grammar: Grammar) -> bool {
    grammar == Grammar::Tosca13
        || entry
            .as_map()
            .is_some_and(|m| m.contains_key("value") || m.contains_key("expression"))
}
