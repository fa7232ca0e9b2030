//! The element graph: every conditional element of a normalised template as a
//! typed entry in one arena, with ids, display names, containers and the
//! structural relations the conditions talk about (part 1, sections 4 and 5).
//!
//! Input: a normalised document. Output: a [`Graph`] that refers back into the
//! document through [`Loc`]s (the graph never owns or copies YAML subtrees
//! except condition lists, which it can also move out of the document).
//! Element names are indexed once; later stages work with [`ElementId`]s.

mod build;
mod cond;
mod constraint;
mod hosting;
pub(crate) mod lookup;
mod managed;
mod scenario;
mod scopes;

pub(crate) use build::{
    add_fallback_properties, build_for_technologies, build_moving_conditions, is_fallback_value,
    rebuild, type_entry, FallbackMode, UNDEFINED,
};
pub(crate) use cond::{Cond, CondList, Origin};
pub(crate) use constraint::Constraint;
pub(crate) use scenario::{strings, PlacedScenarios, Scenario};
pub(crate) use scopes::Scopes;

use crate::document::{section, section_mut, Section, Sections};
pub(crate) use crate::kind::Kind;
use crate::logic::LogicOp;
use crate::options::Options;
use crate::texts::Texts;
use crate::version::Grammar;
use std::fmt;
use v4t_yaml::hash::SeededMap;
use v4t_yaml::{MapRef, Node, NodeRef, Span};

/// Index of an element in [`Graph::elements`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct ElementId(pub u32);

/// Whose properties or types a [`Loc`] refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    Node(u32),
    /// A relationship template, by position in `relationship_templates`.
    RelationshipTemplate(u32),
    Group(u32),
    Policy(u32),
    Artifact {
        node: u32,
        index: u32,
    },
}

/// Where an element's raw definition lives in the normalised document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Loc {
    Node(u32),
    Relation {
        node: u32,
        index: u32,
    },
    Artifact {
        node: u32,
        index: u32,
    },
    Technology {
        node: u32,
        index: u32,
    },
    Group(u32),
    Policy(u32),
    Input(u32),
    Output(u32),
    Import(u32),
    Property {
        owner: Owner,
        index: u32,
    },
    /// TOSCA 2.0: an attribute in list form (a property element of its
    /// container's attribute list).
    Attribute {
        owner: Owner,
        index: u32,
    },
    Type {
        owner: Owner,
        index: u32,
    },
}

/// A list of related elements. One pointer wide and without allocation while
/// empty: an element has twelve such lists and most stay empty, and a large
/// template has hundreds of thousands of elements.
pub(crate) type IdList = thin_vec::ThinVec<ElementId>;

/// Whether a property is a fallback property (5.3), and where its
/// definition is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Fallback {
    /// Not a fallback property.
    #[default]
    No,
    /// One the document holds ([`build::is_fallback_value`]): written by the
    /// template, or by the enricher ([`build::add_fallback_properties`]).
    Written,
    /// One this graph added (the enricher's graphs do when resolving), with
    /// the mode of its definition: it has no entry in the document, and
    /// [`Graph::raw`] gives its mode's shared definition.
    Added(FallbackMode),
}

/// One conditional element: what every kind has, and the data of its kind
/// ([`Element::data`]).
#[derive(Clone, Debug)]
pub(crate) struct Element {
    pub kind: Kind,
    /// Written `default_alternative: true` (the resolver graph clears it:
    /// the enricher has turned it into conditions).
    pub default_alternative: bool,
    /// Property: whether it is a fallback property, the hidden alternative
    /// the processor adds, and where its definition is; read once at graph
    /// build.
    pub fallback: Fallback,
    /// Where its name is in its id (after the kind's word and a dot) and how
    /// long it is ([`Graph::name`]), set when the id is written: a large
    /// template has hundreds of thousands of elements, and a name of their
    /// own cost an allocation each.
    name_offset: u8,
    name_len: u32,
    /// Its position among its container's elements of its kind (or among
    /// all policies, inputs, outputs, imports), [`NONE`] if it has none;
    /// [`Element::index`]. Not an `Option`: that would take twice the room
    /// in every element.
    index: u32,
    /// Its container by id, [`NONE`] if it has none; [`Element::container`].
    container: u32,
    pub span: Span,
    pub loc: Loc,
    /// The element's condition list as written (`[false]` for a
    /// `default_alternative` relation, property, artifact, type or
    /// technology); in the resolver graph, the enriched list, whose
    /// generated entries are compact terms ([`Cond`]).
    pub conditions: CondList,
    data: Data,
}

/// What only elements of one kind have. The large ones are boxed, so that
/// the many types and properties of a template stay small.
#[derive(Clone, Debug)]
enum Data {
    /// Types, imports.
    None,
    Node(Box<NodeData>),
    Relation(Box<RelationData>),
    Artifact(Box<Owned>),
    Technology(Box<TechnologyData>),
    /// Property: the consumed elements (inputs, nodes, groups, policies,
    /// artifacts).
    Property(IdList),
    /// Input: the consuming properties.
    Input(IdList),
    /// Output: the producing nodes.
    Output(IdList),
    Policy(Box<PolicyData>),
    Group(Box<GroupData>),
}

/// The types and properties of an element that has them (a node, relation,
/// artifact, group or policy): in its kind's data, so that the many types
/// and properties of a template do not carry two empty lists each.
#[derive(Clone, Debug, Default)]
struct Owned {
    types: IdList,
    properties: IdList,
}

/// What a node template has besides the common fields.
#[derive(Clone, Debug)]
struct NodeData {
    owned: Owned,
    /// TOSCA 2.0: its attributes in list form (property elements).
    attributes: IdList,
    /// The groups it is a member of, in group order.
    groups: IdList,
    /// Its requirements (relations).
    outgoing: IdList,
    /// Relations that target it.
    incoming: IdList,
    artifacts: IdList,
    technologies: IdList,
    /// Optimisation weight in [0, 1].
    weight: f64,
    /// `anchor` (or the deprecated `persistent`).
    anchor: bool,
}

/// What a relation (a requirement assignment) has.
#[derive(Clone, Debug, Default)]
struct RelationData {
    /// The types and properties of its relationship template.
    owned: Owned,
    /// TOSCA 2.0: the attributes of its relationship template in list form.
    attributes: IdList,
    /// The groups it is a member of, in group order.
    groups: IdList,
    source: Option<ElementId>,
    target: Option<ElementId>,
    /// The requirement marks a hosting relation (by name or by a
    /// relationship deriving from `tosca.relationships.HostedOn`).
    hosting: bool,
    /// Its relationship template, by position in
    /// [`Graph::relationship_templates`] (the names).
    relationship: Option<u32>,
}

/// What a policy has.
#[derive(Clone, Debug, Default)]
struct PolicyData {
    owned: Owned,
    /// Its targets (nodes or groups).
    targets: IdList,
}

/// What a deployment technology of a node has.
#[derive(Clone, Debug)]
struct TechnologyData {
    /// Optimisation weight in [0, 1].
    weight: f64,
    /// Scenario priority.
    prio: f64,
    /// The technology name written in `assign`, by position in
    /// [`Graph::assigns`] ([`NO_ASSIGN`] if it is not a string).
    assign: u32,
    /// Where `assign` is written (the output's node type keeps it).
    assign_span: Span,
    /// `assign` if it is not a string, as written.
    assign_other: Option<Box<Node>>,
    /// The stored scenario of a rule-derived technology, by position in
    /// [`Graph::scenarios`] ([`NO_SCENARIO`] without one).
    scenario: u32,
}

/// A technology whose `assign` is not a string.
const NO_ASSIGN: u32 = u32::MAX;

/// A technology without a stored scenario.
const NO_SCENARIO: u32 = u32::MAX;

/// What a group has.
#[derive(Clone, Debug)]
struct GroupData {
    owned: Owned,
    /// TOSCA 2.0: its attributes in list form.
    attributes: IdList,
    /// Its members (nodes or relations).
    members: IdList,
    /// Where `members` is written, if it is.
    members_span: Option<Span>,
    /// A `variability.groups.*` group.
    variability: bool,
}

const NO_IDS: &[ElementId] = &[];

/// No index or container ([`Element`]).
const NONE: u32 = u32::MAX;

impl Element {
    fn new(
        kind: Kind,
        index: Option<u32>,
        container: Option<ElementId>,
        span: Span,
        loc: Loc,
    ) -> Element {
        let data = match kind {
            Kind::Node => Data::Node(Box::new(NodeData {
                owned: Owned::default(),
                attributes: IdList::new(),
                groups: IdList::new(),
                outgoing: IdList::new(),
                incoming: IdList::new(),
                artifacts: IdList::new(),
                technologies: IdList::new(),
                weight: 1.0,
                anchor: false,
            })),
            Kind::Relation => Data::Relation(Box::default()),
            Kind::Technology => Data::Technology(Box::new(TechnologyData {
                weight: 1.0,
                prio: 0.0,
                assign: NO_ASSIGN,
                assign_span: Span::NONE,
                assign_other: None,
                scenario: NO_SCENARIO,
            })),
            Kind::Property => Data::Property(IdList::new()),
            Kind::Input => Data::Input(IdList::new()),
            Kind::Output => Data::Output(IdList::new()),
            Kind::Policy => Data::Policy(Box::default()),
            Kind::Artifact => Data::Artifact(Box::default()),
            Kind::Group => Data::Group(Box::new(GroupData {
                owned: Owned::default(),
                attributes: IdList::new(),
                members: IdList::new(),
                members_span: None,
                variability: false,
            })),
            Kind::Type | Kind::Import => Data::None,
        };
        Element {
            kind,
            default_alternative: false,
            fallback: Fallback::No,
            name_offset: 0,
            name_len: 0,
            index: index.unwrap_or(NONE),
            container: container.map_or(NONE, |c| c.0),
            span,
            loc,
            conditions: CondList::new(),
            data,
        }
    }

    /// Its position among its container's elements of its kind (or among
    /// all policies, inputs, outputs, imports).
    pub(crate) fn index(&self) -> Option<u32> {
        (self.index != NONE).then_some(self.index)
    }

    /// The element that contains it (a property's node, relation, ...).
    pub(crate) fn container(&self) -> Option<ElementId> {
        (self.container != NONE).then_some(ElementId(self.container))
    }

    /// The word of the element's kind in ids and display names
    /// (`attribute` for an attribute, a property element).
    pub(crate) fn word(&self) -> &'static str {
        match self.loc {
            Loc::Attribute { .. } => "attribute",
            _ => self.kind.word(),
        }
    }

    /// Property: whether it is a fallback property (written or added).
    pub(crate) fn is_fallback(&self) -> bool {
        self.fallback != Fallback::No
    }

    /// Property: the definition of a fallback property the graph added
    /// (its mode's shared one), which the document does not hold.
    pub(crate) fn added_definition(&self) -> Option<&'static Node> {
        match self.fallback {
            Fallback::Added(mode) => Some(mode.shared()),
            Fallback::No | Fallback::Written => None,
        }
    }

    /// Whether the element is an attribute (a property element).
    pub(crate) fn is_attribute(&self) -> bool {
        matches!(self.loc, Loc::Attribute { .. })
    }

    /// Node, relation or group: its attributes in list form (TOSCA 2.0).
    pub(crate) fn attributes(&self) -> &[ElementId] {
        match &self.data {
            Data::Node(n) => &n.attributes,
            Data::Relation(r) => &r.attributes,
            Data::Group(g) => &g.attributes,
            _ => NO_IDS,
        }
    }

    fn attributes_mut(&mut self) -> Option<&mut IdList> {
        match &mut self.data {
            Data::Node(n) => Some(&mut n.attributes),
            Data::Relation(r) => Some(&mut r.attributes),
            Data::Group(g) => Some(&mut g.attributes),
            _ => None,
        }
    }

    fn node(&self) -> Option<&NodeData> {
        match &self.data {
            Data::Node(n) => Some(n),
            _ => None,
        }
    }

    fn relation(&self) -> Option<&RelationData> {
        match &self.data {
            Data::Relation(r) => Some(r),
            _ => None,
        }
    }

    fn node_mut(&mut self) -> Option<&mut NodeData> {
        match &mut self.data {
            Data::Node(n) => Some(n),
            _ => None,
        }
    }

    fn relation_mut(&mut self) -> Option<&mut RelationData> {
        match &mut self.data {
            Data::Relation(r) => Some(r),
            _ => None,
        }
    }

    fn technology_mut(&mut self) -> Option<&mut TechnologyData> {
        match &mut self.data {
            Data::Technology(t) => Some(t),
            _ => None,
        }
    }

    /// The id list of a property, input, output or policy (`consumes`,
    /// `consumers`, `producers`, `targets`) or a group's members.
    fn links_mut(&mut self) -> Option<&mut IdList> {
        match &mut self.data {
            Data::Property(l) | Data::Input(l) | Data::Output(l) => Some(l),
            Data::Policy(p) => Some(&mut p.targets),
            Data::Group(g) => Some(&mut g.members),
            _ => None,
        }
    }

    /// Node, relation, artifact, group or policy: its types and properties.
    fn owned(&self) -> Option<&Owned> {
        match &self.data {
            Data::Node(n) => Some(&n.owned),
            Data::Relation(r) => Some(&r.owned),
            Data::Artifact(a) => Some(a),
            Data::Group(g) => Some(&g.owned),
            Data::Policy(p) => Some(&p.owned),
            _ => None,
        }
    }

    fn owned_mut(&mut self) -> Option<&mut Owned> {
        match &mut self.data {
            Data::Node(n) => Some(&mut n.owned),
            Data::Relation(r) => Some(&mut r.owned),
            Data::Artifact(a) => Some(a),
            Data::Group(g) => Some(&mut g.owned),
            Data::Policy(p) => Some(&mut p.owned),
            _ => None,
        }
    }

    /// Its types (conditional type assignments), for the kinds that have
    /// them (nodes, relations, artifacts, groups, policies).
    pub(crate) fn types(&self) -> &[ElementId] {
        self.owned().map_or(NO_IDS, |o| &o.types)
    }

    /// Its properties, for the kinds that have them (as [`Element::types`]).
    pub(crate) fn properties(&self) -> &[ElementId] {
        self.owned().map_or(NO_IDS, |o| &o.properties)
    }

    /// [`Element::types`], to add to.
    fn types_mut(&mut self) -> Option<&mut IdList> {
        self.owned_mut().map(|o| &mut o.types)
    }

    /// [`Element::properties`], to add to.
    fn properties_mut(&mut self) -> Option<&mut IdList> {
        self.owned_mut().map(|o| &mut o.properties)
    }

    /// Node: its requirements (relations).
    pub(crate) fn outgoing(&self) -> &[ElementId] {
        self.node().map_or(NO_IDS, |n| &n.outgoing)
    }

    /// Node or relation: the groups it is a member of, in group order.
    pub(crate) fn groups(&self) -> &[ElementId] {
        match &self.data {
            Data::Node(n) => &n.groups,
            Data::Relation(r) => &r.groups,
            _ => NO_IDS,
        }
    }

    /// [`Element::groups`], to add to (`None` for other kinds).
    fn groups_mut(&mut self) -> Option<&mut IdList> {
        match &mut self.data {
            Data::Node(n) => Some(&mut n.groups),
            Data::Relation(r) => Some(&mut r.groups),
            _ => None,
        }
    }

    /// Node: the relations that target it.
    pub(crate) fn incoming(&self) -> &[ElementId] {
        self.node().map_or(NO_IDS, |n| &n.incoming)
    }

    /// Node: its artifacts.
    pub(crate) fn artifacts(&self) -> &[ElementId] {
        self.node().map_or(NO_IDS, |n| &n.artifacts)
    }

    /// Node: its deployment technologies.
    pub(crate) fn technologies(&self) -> &[ElementId] {
        self.node().map_or(NO_IDS, |n| &n.technologies)
    }

    /// Node or technology: the optimisation weight (1 for other kinds).
    pub(crate) fn weight(&self) -> f64 {
        match &self.data {
            Data::Node(n) => n.weight,
            Data::Technology(t) => t.weight,
            _ => 1.0,
        }
    }

    /// Technology: the scenario priority (0 for other kinds).
    pub(crate) fn prio(&self) -> f64 {
        match &self.data {
            Data::Technology(t) => t.prio,
            _ => 0.0,
        }
    }

    /// Node: an anchor.
    pub(crate) fn anchor(&self) -> bool {
        self.node().is_some_and(|n| n.anchor)
    }

    /// Relation: its source node.
    pub(crate) fn source(&self) -> Option<ElementId> {
        self.relation().and_then(|r| r.source)
    }

    /// Relation: its target node, once resolved.
    pub(crate) fn target(&self) -> Option<ElementId> {
        self.relation().and_then(|r| r.target)
    }

    /// Relation: a hosting relation.
    pub(crate) fn hosting(&self) -> bool {
        self.relation().is_some_and(|r| r.hosting)
    }

    /// Relation: its relationship template, by position in
    /// [`Graph::relationship_templates`].
    pub(crate) fn relationship(&self) -> Option<u32> {
        self.relation().and_then(|r| r.relationship)
    }

    /// Property: the consumed elements.
    pub(crate) fn consumes(&self) -> &[ElementId] {
        match &self.data {
            Data::Property(l) => l,
            _ => NO_IDS,
        }
    }

    /// Input: the consuming properties.
    pub(crate) fn consumers(&self) -> &[ElementId] {
        match &self.data {
            Data::Input(l) => l,
            _ => NO_IDS,
        }
    }

    /// Output: the producing nodes.
    pub(crate) fn producers(&self) -> &[ElementId] {
        match &self.data {
            Data::Output(l) => l,
            _ => NO_IDS,
        }
    }

    /// Policy: its targets.
    pub(crate) fn targets(&self) -> &[ElementId] {
        match &self.data {
            Data::Policy(p) => &p.targets,
            _ => NO_IDS,
        }
    }

    /// Group: its members.
    pub(crate) fn members(&self) -> &[ElementId] {
        match &self.data {
            Data::Group(g) => &g.members,
            _ => NO_IDS,
        }
    }

    /// Group: where its `members` are written, if they are.
    pub(crate) fn members_span(&self) -> Option<Span> {
        match &self.data {
            Data::Group(g) => g.members_span,
            _ => None,
        }
    }

    /// Group: a `variability.groups.*` group.
    pub(crate) fn variability_group(&self) -> bool {
        matches!(&self.data, Data::Group(g) if g.variability)
    }
}

/// The element graph of one normalised template.
#[derive(Debug)]
pub(crate) struct Graph {
    options: Options,
    elements: Vec<Element>,
    types: Vec<ElementId>,
    nodes: Vec<ElementId>,
    relations: Vec<ElementId>,
    properties: Vec<ElementId>,
    policies: Vec<ElementId>,
    groups: Vec<ElementId>,
    inputs: Vec<ElementId>,
    artifacts: Vec<ElementId>,
    imports: Vec<ElementId>,
    technologies: Vec<ElementId>,
    outputs: Vec<ElementId>,
    node_index: SeededMap<String, ElementId>,
    group_index: SeededMap<String, ElementId>,
    /// Names of the relationship templates, in map order.
    relationship_templates: Vec<String>,
    /// The distinct technology names the technologies' `assign`s write
    /// (a few names for tens of thousands of technologies).
    assigns: Vec<Box<str>>,
    /// The distinct scenarios the technologies store (a few for tens of
    /// thousands of rule-derived technologies).
    scenarios: Vec<Scenario>,
    /// The elements' own parts of their ids (`<kind>.<name>[@<index>]`),
    /// by element: an id continues with its container's ([`Id`]), which is
    /// not stored again (family 1 seed 100,000: 48 MB of whole ids).
    ids: Texts,
    /// Where the sections of the document sit, for [`Graph::raw`].
    sections: Sections,
    /// The generated constraints when resolving (encoded after the ones in
    /// `variability.constraints`); empty otherwise, as they are in the document.
    constraints: Vec<Constraint>,
    /// The `implied` values written, by element (ascending; few elements
    /// have one: a field in every element would cost eight bytes each).
    implied_values: Vec<(ElementId, Node)>,
    /// The base grammar of the document.
    grammar: Grammar,
    /// The `implies` lists as written (5.4), moved out of the definitions
    /// by [`build_moving_conditions`], by element id (ascending). Their
    /// shape is checked where they are encoded, after every condition, as
    /// the reference reports it.
    implies: Vec<(ElementId, Node)>,
    /// TOSCA 2.0: the relations whose requirement assignment establishes
    /// another number of relationships than one (a literal `count`).
    counts: SeededMap<ElementId, u64>,
    /// TOSCA 2.0: what elements other than properties read with `$get_input`,
    /// `$get_property`, `$get_attribute` or `copy` (inputs and nodes;
    /// properties keep theirs in [`Element::consumes`]).
    reads: SeededMap<ElementId, IdList>,
}

impl Graph {
    /// The options the graph was built under.
    pub(crate) fn options(&self) -> &Options {
        &self.options
    }

    /// The base grammar of the document the graph was built from.
    pub(crate) fn grammar(&self) -> Grammar {
        self.grammar
    }

    /// What element `id` reads by name: a property's consumed elements, an
    /// output's producing nodes, and (TOSCA 2.0) the inputs and nodes other
    /// elements' definitions name.
    pub(crate) fn reads(&self, id: ElementId) -> impl Iterator<Item = ElementId> + '_ {
        let e = self.get(id);
        let others = self.reads.get(&id).map_or(NO_IDS, |l| &l[..]);
        e.consumes()
            .iter()
            .chain(e.producers())
            .chain(others)
            .copied()
    }

    /// The properties of `container` that are of the same list as property
    /// `p` (its attributes if `p` is an attribute).
    pub(crate) fn siblings(&self, container: ElementId, p: ElementId) -> &[ElementId] {
        let c = self.get(container);
        if self.get(p).is_attribute() {
            c.attributes()
        } else {
            c.properties()
        }
    }

    /// Whether a substitution mapping maps a property to input `id` or an
    /// attribute to output `id` (TOSCA 2.0 §15.2, §15.3): the template
    /// itself reads it, so it is consumed (produced) in every variant. The
    /// graph builder records this as the parameter being its own consumer
    /// (producer).
    pub(crate) fn maps_to(&self, id: ElementId) -> bool {
        let e = self.get(id);
        e.consumers().contains(&id) || e.producers().contains(&id)
    }

    /// The number of relationships relation `r` establishes (TOSCA 2.0
    /// `count`; 1 where it is not a literal).
    pub(crate) fn relationships(&self, r: ElementId) -> u64 {
        if self.counts.is_empty() {
            return 1;
        }
        self.counts.get(&r).copied().unwrap_or(1)
    }

    /// Every element, by [`ElementId`].
    pub(crate) fn elements(&self) -> &[Element] {
        &self.elements
    }

    /// The type assignments, in document order.
    pub(crate) fn types(&self) -> &[ElementId] {
        &self.types
    }

    /// The node templates, in document order.
    pub(crate) fn nodes(&self) -> &[ElementId] {
        &self.nodes
    }

    /// The relations (requirement assignments), in document order.
    pub(crate) fn relations(&self) -> &[ElementId] {
        &self.relations
    }

    /// The properties, in document order.
    pub(crate) fn properties(&self) -> &[ElementId] {
        &self.properties
    }

    /// The policies, in document order.
    pub(crate) fn policies(&self) -> &[ElementId] {
        &self.policies
    }

    /// The groups, in document order.
    pub(crate) fn groups(&self) -> &[ElementId] {
        &self.groups
    }

    /// The inputs, in document order.
    pub(crate) fn inputs(&self) -> &[ElementId] {
        &self.inputs
    }

    /// The artifacts, in document order.
    pub(crate) fn artifacts(&self) -> &[ElementId] {
        &self.artifacts
    }

    /// The imports, in document order.
    pub(crate) fn imports(&self) -> &[ElementId] {
        &self.imports
    }

    /// The deployment technologies, in document order.
    pub(crate) fn technologies(&self) -> &[ElementId] {
        &self.technologies
    }

    /// The outputs, in document order.
    pub(crate) fn outputs(&self) -> &[ElementId] {
        &self.outputs
    }

    /// The names of the relationship templates, in map order.
    pub(crate) fn relationship_templates(&self) -> &[String] {
        &self.relationship_templates
    }

    /// The technology name technology `t`'s `assign` writes (`None` for
    /// other kinds, or where it is not a string).
    pub(crate) fn assign(&self, t: ElementId) -> Option<&str> {
        match &self.get(t).data {
            Data::Technology(t) => self.assigns.get(t.assign as usize).map(|a| &**a),
            _ => None,
        }
    }

    /// Technology `t`'s `assign` as written, where it is written: the type
    /// its node has in the output when `t` is present (`None` for other
    /// kinds).
    pub(crate) fn assigned_type(&self, t: ElementId) -> Option<Node> {
        let Data::Technology(data) = &self.get(t).data else {
            return None;
        };
        match (&data.assign_other, self.assign(t)) {
            (Some(other), _) => Some((**other).clone()),
            (None, Some(name)) => Some(Node {
                span: data.assign_span,
                ..Node::string(name)
            }),
            (None, None) => None,
        }
    }

    /// Removes the nodes' technology lists from `doc`: once the resolver
    /// graph is built they are read no more (their conditions are in the
    /// graph, and so is what the output takes of them, [`Graph::assigned_type`]).
    /// The lists the enricher derives from its rules are a large part of
    /// the document while the problem is solved.
    pub(crate) fn release_technology_lists(&self, doc: &mut Node) {
        for &n in &self.nodes {
            if self.get(n).technologies().is_empty() {
                continue;
            }
            if let Some(m) = self.raw_mut(doc, n).and_then(Node::as_map_mut) {
                m.remove("technology");
            }
        }
    }

    /// The scenario technology `t` stores (`None` for other kinds, or
    /// where its `scenario` is absent or null).
    pub(crate) fn scenario(&self, t: ElementId) -> Option<&Scenario> {
        match &self.get(t).data {
            Data::Technology(t) => self.scenarios.get(t.scenario as usize),
            _ => None,
        }
    }

    /// Writes the scenarios the graph was handed ([`PlacedScenarios`])
    /// into the technologies' definitions, as `v4t enrich` has them, for a
    /// build from the document.
    pub(crate) fn write_placed_scenarios(&self, doc: &mut Node) {
        for &t in &self.technologies {
            let Some(scenario) = self.scenario(t) else {
                continue;
            };
            let Some(m) = self.raw_mut(doc, t).and_then(Node::as_map_mut) else {
                continue;
            };
            if !m.contains_key("scenario") {
                cond::insert_tight(m, "scenario", scenario.to_node());
            }
        }
    }

    /// The generated constraints when resolving.
    pub(crate) fn constraints(&self) -> &[Constraint] {
        &self.constraints
    }

    /// Moves every element's condition list out (the enricher's input).
    pub(crate) fn take_conditions(&mut self) -> Vec<CondList> {
        self.elements
            .iter_mut()
            .map(|e| std::mem::take(&mut e.conditions))
            .collect()
    }

    /// Drops what only encoding reads: the generated conditions, the
    /// generated constraints and the `implies` lists. Resolving calls it
    /// once the problem is encoded (on a large template they are a sixth of
    /// the memory while solving); what stays is what the checks quote, the
    /// manual conditions.
    pub(crate) fn release_encoded(&mut self) {
        for e in &mut self.elements {
            if e.conditions.iter().any(Cond::is_generated) {
                let mut manual = std::mem::take(&mut e.conditions);
                manual.retain(|c| !c.is_generated());
                if !manual.is_empty() {
                    manual.shrink_to_fit();
                    e.conditions = manual;
                }
            }
        }
        self.constraints = Vec::new();
        self.implies = Vec::new();
    }

    /// Gives element `id` its (enriched) condition list.
    pub(crate) fn set_conditions(&mut self, id: ElementId, list: CondList) {
        self.elements[id.0 as usize].conditions = list;
    }

    /// The `implies` value of element `id` as written, if defined.
    pub(crate) fn implies(&self, id: ElementId) -> Option<&Node> {
        by_element(&self.implies, id).filter(|n| n.is_defined())
    }

    /// Moves the `implies` values out of the graph, by element id (the
    /// enricher puts them back where `v4t enrich` prints the template).
    pub(crate) fn take_implies(&mut self) -> Vec<(ElementId, Node)> {
        std::mem::take(&mut self.implies)
    }

    /// Sets the generated constraints the resolver encodes after the
    /// written ones.
    pub(crate) fn set_constraints(&mut self, constraints: Vec<Constraint>) {
        self.constraints = constraints;
    }

    pub(crate) fn get(&self, id: ElementId) -> &Element {
        &self.elements[id.0 as usize]
    }

    /// `<kind>.<name>[@<index>][.<container id>]`, the element's SAT
    /// variable name and the id errors report.
    #[inline]
    pub(crate) fn id(&self, id: ElementId) -> Id<'_> {
        Id {
            graph: self,
            element: id,
        }
    }

    /// The name of element `id` (as written: a template's, a property's, an
    /// input's name; an import's position), read from its id.
    #[inline]
    pub(crate) fn name(&self, id: ElementId) -> &str {
        let e = self.get(id);
        let start = usize::from(e.name_offset);
        self.ids
            .get(id.0 as usize)
            .and_then(|part| part.get(start..start + e.name_len as usize))
            .unwrap_or_default()
    }

    pub(crate) fn node(&self, name: &str) -> Option<ElementId> {
        self.node_index.get(name).copied()
    }

    pub(crate) fn group(&self, name: &str) -> Option<ElementId> {
        self.group_index.get(name).copied()
    }

    /// All elements in the reference's element order: types, nodes, relations,
    /// properties, policies, groups, inputs, artifacts, imports, technologies, outputs.
    pub(crate) fn ordered(&self) -> impl Iterator<Item = ElementId> + '_ {
        self.types
            .iter()
            .chain(&self.nodes)
            .chain(&self.relations)
            .chain(&self.properties)
            .chain(&self.policies)
            .chain(&self.groups)
            .chain(&self.inputs)
            .chain(&self.artifacts)
            .chain(&self.imports)
            .chain(&self.technologies)
            .chain(&self.outputs)
            .copied()
    }

    /// `<kind> "<name>[@<index>]"[ of <container display>]`, all lower case.
    pub(crate) fn display(&self, id: ElementId) -> String {
        let mut out = String::new();
        let mut cur = Some(id);
        let mut first = true;
        while let Some(c) = cur {
            let e = self.get(c);
            if !first {
                out.push_str(" of ");
            }
            first = false;
            out.push_str(e.word());
            out.push_str(" \"");
            out.push_str(self.name(c));
            if let Some(i) = e.index() {
                out.push('@');
                out.push_str(&i.to_string());
            }
            out.push('"');
            cur = e.container();
        }
        out
    }

    /// [`Graph::display`] with the first character upper-cased.
    #[allow(non_snake_case)]
    pub(crate) fn Display(&self, id: ElementId) -> String {
        capitalize(&self.display(id))
    }

    /// The single type name of an element (`<Display> has more than one
    /// type`, `<Display> has no type`).
    pub(crate) fn single_type(&self, id: ElementId) -> crate::Result<&str> {
        let e = self.get(id);
        if e.types().len() > 1 {
            crate::error::bail!(e.span, "{} has more than one type", self.Display(id));
        }
        let Some(&t) = e.types().first() else {
            crate::error::bail!(e.span, "{} has no type", self.Display(id));
        };
        Ok(self.name(t))
    }

    /// The `implied` value of element `id` as written, if defined: its own,
    /// or that of the shared definition of a fallback property the graph
    /// added.
    pub(crate) fn implied(&self, id: ElementId) -> Option<&Node> {
        if let Some(shared) = self.get(id).added_definition() {
            return shared.get("implied");
        }
        by_element(&self.implied_values, id)
    }

    /// Whether the element is implied: its `implied` value if written, else
    /// the default (properties: true; relations: `relation_default_implied`
    /// unless hosting; other kinds: false).
    pub(crate) fn is_implied(&self, id: ElementId) -> bool {
        let e = self.get(id);
        match (self.implied(id), e.kind) {
            (Some(v), _) => v.is_truthy(),
            (None, Kind::Property) => true,
            (None, Kind::Relation) => !e.hosting() && self.options.relation_default_implied,
            (None, _) => false,
        }
    }

    /// The element's raw definition (the value of its single-entry map, or the
    /// import entry) in `doc` (a tree or a [`v4t_yaml::Doc`]).
    pub(crate) fn raw<'d>(
        &self,
        doc: impl Into<NodeRef<'d>>,
        id: ElementId,
    ) -> Option<NodeRef<'d>> {
        let doc = doc.into();
        let section = |s: Section| section(doc, s, Some(&self.sections));
        raw_at(
            self.get(id),
            self.grammar,
            &self.relationship_templates,
            &section,
        )
    }

    /// Whether the element is internal to the processor, a fallback
    /// property ([`Element::fallback`]): reports for people leave it out.
    pub(crate) fn is_internal(&self, id: ElementId) -> bool {
        self.get(id).is_fallback()
    }

    /// The `value` of property (or attribute) `p`: its definition's, or the
    /// entry itself in a property map kept as written or a list entry that
    /// is no definition (which [`Graph::raw`] does not give).
    pub(crate) fn property_value<'d>(
        &self,
        doc: impl Into<NodeRef<'d>>,
        p: ElementId,
    ) -> Option<NodeRef<'d>> {
        let doc = doc.into();
        let e = self.get(p);
        if let Some(shared) = e.added_definition() {
            return shared.get("value").map(NodeRef::from);
        }
        let (owner, index, key) = match e.loc {
            Loc::Property { owner, index } => (owner, index, "properties"),
            Loc::Attribute { owner, index } => (owner, index, "attributes"),
            _ => return None,
        };
        let section = |s: Section| section(doc, s, Some(&self.sections));
        let list = owner_at(&owner, &self.relationship_templates, &section)?.get(key)?;
        match list.as_map() {
            Some(m) => m.get_index(index as usize).map(|(_, v)| v),
            None => {
                let entry = entry_value(Some(list), index)?;
                match crate::document::is_definition(entry, self.grammar) {
                    true => entry.get("value"),
                    false => Some(entry),
                }
            }
        }
    }

    /// The raw definitions in `doc` for many lookups: [`Graph::raw`] with
    /// the document's sections found once.
    pub(crate) fn definitions<'d>(&self, doc: impl Into<NodeRef<'d>>) -> Definitions<'_, 'd> {
        let doc = doc.into();
        Definitions {
            graph: self,
            sections: Section::ALL.map(|s| section(doc, s, Some(&self.sections))),
        }
    }

    /// The raw definition as a map, if it is one.
    pub(crate) fn raw_map<'d>(
        &self,
        doc: impl Into<NodeRef<'d>>,
        id: ElementId,
    ) -> Option<MapRef<'d>> {
        self.raw(doc, id).and_then(NodeRef::as_map)
    }

    /// Mutable access to the element's raw definition.
    pub(crate) fn raw_mut<'d>(&self, doc: &'d mut Node, id: ElementId) -> Option<&'d mut Node> {
        raw_at_mut(
            doc,
            &self.get(id).loc,
            self.grammar,
            &self.relationship_templates,
            Some(&self.sections),
        )
    }

    /// The error for hosting relations that form a cycle (`relations` in
    /// cycle order, each one's target the next one's source): it names the
    /// cycle from the node listed first, `a → b → a`, and points at that
    /// node's hosting requirement.
    pub(crate) fn hosting_cycle(&self, relations: &[ElementId]) -> crate::Error {
        let start = (0..relations.len())
            .min_by_key(|&i| self.get(relations[i]).source())
            .unwrap_or(0);
        let mut names: Vec<&str> = Vec::with_capacity(relations.len() + 1);
        for i in 0..relations.len() {
            let r = relations[(start + i) % relations.len()];
            if let Some(s) = self.get(r).source() {
                names.push(self.name(s));
            }
        }
        if let Some(&first) = names.first() {
            names.push(first);
        }
        let first = relations.get(start).copied();
        let span = first.map_or(Span::NONE, |r| self.get(r).span);
        let mut error = crate::Error::at(
            format!("Hosting relations form a cycle: {}", names.join(" → ")),
            span,
        );
        // The other requirements of the cycle, in cycle order.
        for i in 1..relations.len() {
            let r = self.get(relations[(start + i) % relations.len()]);
            let (Some(s), Some(t)) = (r.source(), r.target()) else {
                continue;
            };
            error = error.with_note(
                format!(
                    "node \"{}\" is hosted on node \"{}\" here",
                    self.name(s),
                    self.name(t)
                ),
                r.span,
            );
        }
        match first {
            Some(r) => error.in_element(self.id(r)),
            None => error,
        }
    }

    /// The presence condition the enricher writes for this element (4.4).
    pub(crate) fn presence_condition(&self, id: ElementId) -> Node {
        use LogicOp as L;
        let e = self.get(id);
        let idx = |i: Option<u32>| Node::number(i.unwrap_or(0) as f64);
        let name = |id: ElementId| Node::string(self.name(id).to_string());
        // `[<container name>, <index>]` of an element in a node.
        let in_node = |x: ElementId| {
            let xe = self.get(x);
            vec![name(xe.container().unwrap_or(x)), idx(xe.index())]
        };
        if e.is_attribute() {
            // No operator names attributes: the element's id is its
            // presence variable.
            return Node::string(self.id(id));
        }
        let (op, arg) = match e.kind {
            Kind::Node => (L::NodePresence, name(id)),
            Kind::Relation => (L::RelationPresence, Node::seq(in_node(id))),
            Kind::Artifact => (L::ArtifactPresence, Node::seq(in_node(id))),
            Kind::Technology => (L::TechnologyPresence, Node::seq(in_node(id))),
            Kind::Group => (L::GroupPresence, name(id)),
            Kind::Policy => (L::PolicyPresence, idx(e.index())),
            Kind::Input => (L::InputPresence, idx(e.index())),
            Kind::Output => (L::OutputPresence, idx(e.index())),
            Kind::Import => (L::ImportPresence, idx(e.index())),
            Kind::Property | Kind::Type => {
                let Some(c) = e.container() else {
                    return Node::bool(false);
                };
                let property = e.kind == Kind::Property;
                let pick = |p: LogicOp, t: LogicOp| if property { p } else { t };
                let (op, mut args) = match self.get(c).kind {
                    Kind::Node => (
                        pick(L::NodePropertyPresence, L::NodeTypePresence),
                        vec![name(c)],
                    ),
                    Kind::Relation => (
                        pick(L::RelationPropertyPresence, L::RelationTypePresence),
                        in_node(c),
                    ),
                    Kind::Group => (
                        pick(L::GroupPropertyPresence, L::GroupTypePresence),
                        vec![name(c)],
                    ),
                    Kind::Policy => (
                        pick(L::PolicyPropertyPresence, L::PolicyTypePresence),
                        vec![idx(self.get(c).index())],
                    ),
                    Kind::Artifact => (
                        pick(L::ArtifactPropertyPresence, L::ArtifactTypePresence),
                        in_node(c),
                    ),
                    _ => return Node::bool(false),
                };
                args.push(idx(e.index()));
                (op, Node::seq(args))
            }
        };
        Node::single(op.key(), arg)
    }
}

/// The id of an element ([`Graph::id`]): its own part, then a dot and its
/// container's id. Written out by `Display` (`to_string`), compared with
/// strings part by part.
#[derive(Clone, Copy)]
pub(crate) struct Id<'g> {
    graph: &'g Graph,
    element: ElementId,
}

impl<'g> Id<'g> {
    /// The parts, the element's own first.
    fn parts(self) -> impl Iterator<Item = &'g str> {
        let g = self.graph;
        std::iter::successors(Some(self.element), move |&x| g.get(x).container())
            .map(move |x| g.ids.get(x.0 as usize).unwrap_or_default())
    }

    /// Appends the id to `out`.
    pub(crate) fn push_to(self, out: &mut String) {
        let g = self.graph;
        let mut x = self.element;
        loop {
            out.push_str(g.ids.get(x.0 as usize).unwrap_or_default());
            match g.get(x).container() {
                Some(c) => {
                    out.push('.');
                    x = c;
                }
                None => return,
            }
        }
    }
}

impl fmt::Display for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, part) in self.parts().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            f.write_str(part)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_string(), f)
    }
}

impl PartialEq<str> for Id<'_> {
    fn eq(&self, other: &str) -> bool {
        let mut rest = other;
        for (i, part) in self.parts().enumerate() {
            if i > 0 {
                let Some(r) = rest.strip_prefix('.') else {
                    return false;
                };
                rest = r;
            }
            let Some(r) = rest.strip_prefix(part) else {
                return false;
            };
            rest = r;
        }
        rest.is_empty()
    }
}

impl PartialEq for Id<'_> {
    fn eq(&self, other: &Id<'_>) -> bool {
        *self == *other.to_string()
    }
}

impl PartialEq<&str> for Id<'_> {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl PartialEq<String> for Id<'_> {
    fn eq(&self, other: &String) -> bool {
        *self == **other
    }
}

impl From<Id<'_>> for String {
    fn from(id: Id<'_>) -> String {
        id.to_string()
    }
}

/// [`Graph::definitions`]: the sections of one document, by [`Section`].
pub(crate) struct Definitions<'g, 'd> {
    graph: &'g Graph,
    sections: [Option<NodeRef<'d>>; 7],
}

impl<'d> Definitions<'_, 'd> {
    /// [`Graph::raw`].
    pub(crate) fn raw(&self, id: ElementId) -> Option<NodeRef<'d>> {
        let section = |s: Section| self.sections[s as usize];
        raw_at(
            self.graph.get(id),
            self.graph.grammar,
            &self.graph.relationship_templates,
            &section,
        )
    }

    /// [`Graph::raw_map`].
    pub(crate) fn raw_map(&self, id: ElementId) -> Option<MapRef<'d>> {
        self.raw(id).and_then(NodeRef::as_map)
    }
}

/// Upper-cases the first character.
pub(crate) fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The value of the single-entry map at `list[index]`: where a normalised
/// list keeps the definition of its `index`th element; in a map (node
/// templates as written, when resolving), the `index`th entry's value.
pub(crate) fn entry_value(list: Option<NodeRef<'_>>, index: u32) -> Option<NodeRef<'_>> {
    let list = list?;
    if let Some(m) = list.as_map() {
        return m.get_index(index as usize).map(|(_, v)| v);
    }
    list.as_seq()?
        .get(index as usize)?
        .as_map()?
        .first()
        .map(|(_, v)| v)
}

/// The value `list` (sorted by element) holds for element `id`.
fn by_element(list: &[(ElementId, Node)], id: ElementId) -> Option<&Node> {
    let i = list.binary_search_by_key(&id, |(x, _)| *x).ok()?;
    Some(&list[i].1)
}

/// The definition of the `index`th property of a property list, `None` in
/// a property map kept as written (when resolving), whose entries are
/// values ([`Graph::property_value`]), and for a list entry that is no
/// definition ([`crate::document::is_definition`]).
pub(crate) fn property_entry(
    list: Option<NodeRef<'_>>,
    index: u32,
    grammar: Grammar,
) -> Option<NodeRef<'_>> {
    entry_value(list.filter(|l| l.as_map().is_none()), index)
        .filter(|&entry| crate::document::is_definition(entry, grammar))
}

/// [`property_entry`], mutable.
fn property_entry_mut(list: Option<&mut Node>, index: u32, grammar: Grammar) -> Option<&mut Node> {
    entry_value_mut(list.filter(|l| l.as_map().is_none()), index)
        .filter(|entry| crate::document::is_definition((&**entry).into(), grammar))
}

/// [`entry_value`], mutable.
fn entry_value_mut(list: Option<&mut Node>, index: u32) -> Option<&mut Node> {
    match &mut list?.value {
        v4t_yaml::Value::Map(m) => m.get_index_mut(index as usize),
        v4t_yaml::Value::Seq(items) => items
            .get_mut(index as usize)?
            .as_map_mut()?
            .first_mut()
            .map(|(_, v)| v),
        _ => None,
    }
}

/// The definition of `owner`, with the document's sections from `section`.
fn owner_at<'d>(
    owner: &Owner,
    rts: &[String],
    section: &impl Fn(Section) -> Option<NodeRef<'d>>,
) -> Option<NodeRef<'d>> {
    match *owner {
        Owner::Node(i) => entry_value(section(Section::NodeTemplates), i),
        Owner::RelationshipTemplate(i) => {
            let m = section(Section::RelationshipTemplates)?.as_map()?;
            let name = rts.get(i as usize)?;
            // By position (the name confirms it), else by name.
            match m.get_index(i as usize) {
                Some((k, v)) if k.name() == *name => Some(v),
                _ => m.get(name),
            }
        }
        Owner::Group(i) => entry_value(section(Section::Groups), i),
        Owner::Policy(i) => entry_value(section(Section::Policies), i),
        Owner::Artifact { node, index } => entry_value(
            entry_value(section(Section::NodeTemplates), node)?.get("artifacts"),
            index,
        ),
    }
}

fn owner_at_mut<'d>(
    doc: &'d mut Node,
    owner: &Owner,
    rts: &[String],
    hint: Option<&Sections>,
) -> Option<&'d mut Node> {
    match *owner {
        Owner::Node(i) => entry_value_mut(section_mut(doc, Section::NodeTemplates, hint), i),
        Owner::RelationshipTemplate(i) => {
            let m = section_mut(doc, Section::RelationshipTemplates, hint)?.as_map_mut()?;
            let name = rts.get(i as usize)?;
            let at = match m.get_index(i as usize) {
                Some((k, _)) if k.name == *name => i as usize,
                _ => return m.get_mut(name),
            };
            m.get_index_mut(at)
        }
        Owner::Group(i) => entry_value_mut(section_mut(doc, Section::Groups, hint), i),
        Owner::Policy(i) => entry_value_mut(section_mut(doc, Section::Policies, hint), i),
        Owner::Artifact { node, index } => entry_value_mut(
            entry_value_mut(section_mut(doc, Section::NodeTemplates, hint), node)?
                .get_mut("artifacts"),
            index,
        ),
    }
}

/// The raw definition of `e`, with the document's sections from `section`:
/// at its `loc`, or the shared definition of a fallback property the graph
/// added.
fn raw_at<'d>(
    e: &Element,
    grammar: Grammar,
    rts: &[String],
    section: &impl Fn(Section) -> Option<NodeRef<'d>>,
) -> Option<NodeRef<'d>> {
    if let Some(def) = e.added_definition() {
        return Some(def.into());
    }
    let in_node = |node: u32, key: &str, index: u32| {
        entry_value(
            entry_value(section(Section::NodeTemplates), node)?.get(key),
            index,
        )
    };
    match e.loc {
        Loc::Node(i) => entry_value(section(Section::NodeTemplates), i),
        Loc::Relation { node, index } => in_node(node, "requirements", index),
        Loc::Artifact { node, index } => in_node(node, "artifacts", index),
        Loc::Technology { node, index } => in_node(node, "technology", index),
        Loc::Group(i) => entry_value(section(Section::Groups), i),
        Loc::Policy(i) => entry_value(section(Section::Policies), i),
        Loc::Input(i) => entry_value(section(Section::Inputs), i),
        Loc::Output(i) => entry_value(section(Section::Outputs), i),
        Loc::Import(i) => section(Section::Imports)?.as_seq()?.get(i as usize),
        Loc::Property { owner, index } => property_entry(
            owner_at(&owner, rts, section)?.get("properties"),
            index,
            grammar,
        ),
        Loc::Attribute { owner, index } => property_entry(
            owner_at(&owner, rts, section)?.get("attributes"),
            index,
            grammar,
        ),
        Loc::Type { owner, index } => {
            type_entry(owner_at(&owner, rts, section)?.get("type"), index)
        }
    }
}

fn raw_at_mut<'d>(
    doc: &'d mut Node,
    loc: &Loc,
    grammar: Grammar,
    rts: &[String],
    hint: Option<&Sections>,
) -> Option<&'d mut Node> {
    let in_node = |doc: &'d mut Node, node: u32, key: &str, index: u32| {
        entry_value_mut(
            entry_value_mut(section_mut(doc, Section::NodeTemplates, hint), node)?.get_mut(key),
            index,
        )
    };
    match *loc {
        Loc::Node(i) => entry_value_mut(section_mut(doc, Section::NodeTemplates, hint), i),
        Loc::Relation { node, index } => in_node(doc, node, "requirements", index),
        Loc::Artifact { node, index } => in_node(doc, node, "artifacts", index),
        Loc::Technology { node, index } => in_node(doc, node, "technology", index),
        Loc::Group(i) => entry_value_mut(section_mut(doc, Section::Groups, hint), i),
        Loc::Policy(i) => entry_value_mut(section_mut(doc, Section::Policies, hint), i),
        Loc::Input(i) => entry_value_mut(section_mut(doc, Section::Inputs, hint), i),
        Loc::Output(i) => entry_value_mut(section_mut(doc, Section::Outputs, hint), i),
        Loc::Import(i) => section_mut(doc, Section::Imports, hint)?
            .as_seq_mut()?
            .get_mut(i as usize),
        Loc::Property { owner, index } => property_entry_mut(
            owner_at_mut(doc, &owner, rts, hint)?.get_mut("properties"),
            index,
            grammar,
        ),
        Loc::Attribute { owner, index } => property_entry_mut(
            owner_at_mut(doc, &owner, rts, hint)?.get_mut("attributes"),
            index,
            grammar,
        ),
        Loc::Type { owner, index } => {
            entry_value_mut(owner_at_mut(doc, &owner, rts, hint)?.get_mut("type"), index)
        }
    }
}

/// Whether a requirement name marks a hosting relation: `^(.*_)?host(_.*)?$`,
/// that is, one of its `_`-separated parts is `host`.
pub(crate) fn is_hosting_name(name: &str) -> bool {
    name.split('_').any(|part| part == "host")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosting_names_follow_the_reference_regex() {
        for yes in ["host", "x_host", "host_y", "a_host_b", "a_b_host"] {
            assert!(is_hosting_name(yes), "{yes}");
        }
        for yes in ["_host", "host_", "a__host", "host_host", "hosting_host"] {
            assert!(is_hosting_name(yes), "{yes}");
        }
        for no in [
            "hosting", "myhost", "host2", "hostx", "ahost_b", "", "_", "ho_st", "HOST",
        ] {
            assert!(!is_hosting_name(no), "{no}");
        }
    }
}

#[cfg(test)]
mod id_tests {
    use super::*;
    use crate::testing::{build, doc, normalize};

    fn graph(yaml: &str) -> (Node, Graph) {
        let mut d = doc(yaml);
        normalize(&mut d).expect("normalizes");
        let g = build(&d).expect("builds");
        (d, g)
    }

    const TEMPLATE: &str = crate::testing::ALL_ELEMENTS;

    #[test]
    fn ids_follow_the_identifier_system() {
        let (_, g) = graph(TEMPLATE);
        let ids: Vec<String> = g.ordered().map(|i| g.id(i).to_string()).collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        for expected in [
            "type.web.a@0.node.web",
            "type.web.b@1.node.web",
            "type.rt@0.relation.db@1.node.web",
            "type.tosca.artifacts.File@0.artifact.image@0.node.web",
            "node.web",
            "relation.host@0.node.web",
            "relation.db@1.node.web",
            "property.p@0.node.web",
            "property.p@1.node.web",
            "property.q@0.relation.db@1.node.web",
            "property.size@0.artifact.image@0.node.web",
            "policy.pol@0",
            "group.g",
            "input.port@0",
            "artifact.image@0.node.web",
            "import.0@0",
            "technology.ansible@0.node.web",
            "output.url@0",
        ] {
            assert!(ids.contains(&expected), "missing {expected} in {ids:?}");
        }
        // element order: types first, outputs last
        assert!(ids[0].starts_with("type."));
        assert_eq!(ids.last(), Some(&"output.url@0"));
    }

    /// The node of the tree a definition found in a tree is.
    fn at(n: Option<NodeRef<'_>>) -> Option<*const Node> {
        n.and_then(NodeRef::as_tree).map(std::ptr::from_ref)
    }

    #[test]
    fn lookups_at_known_positions_find_the_same_definitions() {
        let (mut d, g) = graph(TEMPLATE);
        let rts = &g.relationship_templates;
        let same = |d: &Node| {
            for id in g.ordered() {
                let section = |s: Section| section(d, s, None);
                let searched = at(raw_at(g.get(id), g.grammar(), rts, &section));
                assert_eq!(at(g.raw(d, id)), searched, "{}", g.id(id));
                let defs = g.definitions(d);
                assert_eq!(at(defs.raw(id)), searched);
            }
        };
        assert!(g.ordered().all(|id| g.raw(&d, id).is_some()));
        same(&d);
        // Stale positions (keys removed in front): lookups search again.
        d.as_map_mut()
            .expect("map")
            .remove("tosca_definitions_version");
        let tt = d.get_mut("topology_template").and_then(Node::as_map_mut);
        tt.expect("topology").remove("inputs");
        same(&d);
        for id in g.ordered() {
            let section = |s: Section| section(&d, s, None);
            let searched = at(raw_at(g.get(id), g.grammar(), rts, &section));
            let got = g.raw_mut(&mut d, id).map(|n| n as *const Node);
            assert_eq!(got, searched, "{}", g.id(id));
        }
    }

    #[test]
    fn definitions_of_a_document_are_those_of_its_tree() {
        let (d, g) = graph(TEMPLATE);
        let read = v4t_yaml::Doc::from_node(&d, v4t_yaml::SourceId(0));
        let shown = |n: Option<NodeRef<'_>>| n.map(|n| (v4t_yaml::json::to_json(n), n.span()));
        let defs = (g.definitions(&d), g.definitions(read.root()));
        let mut found = 0;
        for id in g.ordered() {
            let tree = shown(g.raw(&d, id));
            assert_eq!(tree, shown(g.raw(read.root(), id)), "{}", g.id(id));
            assert_eq!(tree, shown(defs.1.raw(id)), "{}", g.id(id));
            assert_eq!(shown(defs.0.raw(id)), shown(defs.1.raw(id)));
            let value = |doc| shown(g.property_value(doc, id));
            assert_eq!(value((&d).into()), value(read.root()), "{}", g.id(id));
            found += usize::from(tree.is_some_and(|(_, span)| span.is_known()));
        }
        assert!(found > 15, "{found}");
    }

    #[test]
    fn display_names_use_lower_case_containers() {
        let (_, g) = graph(TEMPLATE);
        let find = |id: &str| g.ordered().find(|&i| g.id(i) == id).expect("element");
        let p = find("property.p@1.node.web");
        assert_eq!(g.display(p), "property \"p@1\" of node \"web\"");
        assert_eq!(g.Display(p), "Property \"p@1\" of node \"web\"");
        let q = find("property.q@0.relation.db@1.node.web");
        assert_eq!(
            g.Display(q),
            "Property \"q@0\" of relation \"db@1\" of node \"web\""
        );
        assert_eq!(g.Display(find("node.vm")), "Node \"vm\"");
    }

    #[test]
    fn structure_links_relations_groups_and_consumers() {
        let (_, g) = graph(TEMPLATE);
        let web = g.node("web").expect("web");
        let vm = g.node("vm").expect("vm");
        assert_eq!(g.get(vm).incoming().len(), 2);
        assert!(g.get(g.get(web).outgoing()[0]).hosting());
        assert!(!g.get(g.get(web).outgoing()[1]).hosting());
        let group = g.group("g").expect("group");
        assert_eq!(g.get(group).members().len(), 2);
        assert_eq!(g.get(g.outputs[0]).producers(), vec![web]);
    }

    #[test]
    fn presence_conditions_refer_by_name_and_index() {
        let (_, g) = graph(TEMPLATE);
        let find = |id: &str| g.ordered().find(|&i| g.id(i) == id).expect("element");
        let q = find("property.q@0.relation.db@1.node.web");
        assert_eq!(
            v4t_yaml::json::to_json(&g.presence_condition(q)),
            r#"{"relation_property_presence":["web",1,0]}"#
        );
        let pol = find("policy.pol@0");
        assert_eq!(
            v4t_yaml::json::to_json(&g.presence_condition(pol)),
            r#"{"policy_presence":0}"#
        );
    }
}
#[cfg(test)]
mod size_tests {
    /// A large template has hundreds of thousands of elements and condition
    /// terms: their size is the graph's memory (docs/benchmark.md).
    #[test]
    fn elements_and_condition_terms_stay_small() {
        assert!(std::mem::size_of::<super::Element>() <= 72);
        assert_eq!(std::mem::size_of::<super::Cond>(), 16);
        assert_eq!(std::mem::size_of::<super::Constraint>(), 16);
    }
}
