//! Condition entries of an element's condition list ([`Cond`]): conditions as
//! written stay YAML (a map of one logic operator with its operator read,
//! [`WrittenOp`]); the ones the enricher generates are compact terms over
//! [`ElementId`]s, which the solver's encoder turns into literals without
//! re-reading operator keys or resolving names, and which become YAML only
//! for `v4t enrich` ([`Cond::to_node`]).
//!
//! **Invariant:** [`Cond::to_node`] is exactly the YAML the enricher used to
//! write (part 1, section 9), and encoding a term gives the same literal as
//! encoding that YAML in the element's own context (see
//! [`Graph::presence_resolves_to_self`] for when the encoder may skip the
//! name lookup).

use super::{ElementId, Graph, IdList, Kind};
use crate::logic::LogicOp;
use v4t_yaml::{Key, Map, Node, Span, Value};

/// A condition list: one pointer wide, and without allocation while empty
/// (most elements of a large template have no manual conditions).
pub(crate) type CondList = thin_vec::ThinVec<Cond>;

/// One entry of a condition list.
#[derive(Clone, Debug)]
pub(crate) enum Cond {
    /// A condition as written (manual conditions, group and input-name
    /// conditions, type-specific and scenario conditions), unless it is a
    /// [`Cond::Written`].
    Yaml(Box<Node>),
    /// A condition written as a map of one logic operator
    /// (`{logic_expression: x}`, `{not: ...}`, `{node_presence: y}`).
    Written(Box<WrittenOp>),
    /// [`Graph::presence_condition`] of the element.
    Presence(ElementId),
    /// `{and: [...]}`.
    And(CondList),
    /// `{or: [...]}`.
    Or(CondList),
    /// `{not: {or: [presence of each]}, _bratan: true}`: none of the
    /// alternatives is present (a *manual* entry unless generated).
    Bratan(IdList),
    /// An operator about the element itself, one the enricher generates
    /// (`host_presence: SELF`, `has_source: <node name>`, `is_managed: SELF`,
    /// `is_consumed: <input index>`, `has_present_member: <group name>`, ...).
    Op(LogicOp, ElementId),
    /// The generated default or pruning condition: the inner condition (a
    /// map) with `_generated: true`, and why it was generated.
    Generated(Box<Cond>, Origin),
}

/// A condition written as a map of one logic operator: the operator, read
/// once, and its argument as written. It holds all the YAML form holds but
/// the map ([`WrittenOp::to_node`] gives back the node written): on the
/// usual one-entry condition the map, its entry list and its key took more
/// room than the rest.
#[derive(Clone, Debug)]
pub(crate) struct WrittenOp {
    pub op: LogicOp,
    /// Where the map was written.
    pub span: Span,
    /// Where the operator's key was written.
    pub key_span: Span,
    /// The operator's argument.
    pub arg: Node,
}

impl WrittenOp {
    /// `n` read as a map of one logic operator, or `n` back if it is not
    /// one: a key that names an operator, with a defined argument.
    fn of(n: Node) -> Result<WrittenOp, Node> {
        // What `LogicOp::of_map` reads in a map of one entry.
        let op = match n.as_map().filter(|m| m.len() == 1).and_then(Map::first) {
            Some((key, arg)) if arg.is_defined() => match LogicOp::parse(&key.name) {
                Some(op) => op,
                None => return Err(n),
            },
            _ => return Err(n),
        };
        let (m, span) = match n {
            Node {
                value: Value::Map(m),
                span,
                ..
            } => (m, span),
            other => return Err(other),
        };
        let mut entries = m.into_entries();
        match entries.pop() {
            Some((key, arg)) if entries.is_empty() => Ok(WrittenOp {
                op,
                span,
                key_span: key.span,
                arg,
            }),
            last => {
                entries.extend(last);
                Err(Node::new(Value::Map(Map::from_entries(entries)), span))
            }
        }
    }

    /// The node as written.
    pub(crate) fn to_node(&self) -> Node {
        self.clone().into_node()
    }

    /// The node as written, consuming `self`.
    pub(crate) fn into_node(self) -> Node {
        let entries = vec![(Key::new(self.op.key(), self.key_span), self.arg)];
        Node::new(Value::Map(Map::from_entries(entries)), self.span)
    }
}

/// Why the enricher generated a condition (`v4t explain` names it; the
/// YAML form does not keep it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A default condition: the element has no manual conditions and
    /// default conditions are enabled for it (9.3).
    Default,
    /// A pruning condition: enabled for the element, it holds besides its
    /// manual conditions (9.4).
    Pruning,
    /// The type-specific condition of the element's type, applied as a
    /// default or pruning condition (9.6).
    TypeSpecific,
    /// A type assignment is present with its container.
    Container,
}

/// `{key: value}` with room for `capacity` entries.
fn map_with(capacity: usize, key: &str, value: Node) -> Node {
    let mut m = Map::with_capacity(capacity);
    m.push(Key::new(key, Span::NONE), value);
    Node::map(m)
}

/// Inserts `key: value` into `m`, growing it by exactly one entry if full.
pub(crate) fn insert_tight(m: &mut Map, key: &str, value: Node) {
    if !m.contains_key(key) {
        let mut entries = std::mem::take(m).into_entries();
        entries.reserve_exact(1);
        *m = Map::from_entries(entries);
    }
    m.insert(key, value);
}

impl Cond {
    /// A condition as written.
    pub(crate) fn yaml(n: Node) -> Cond {
        match WrittenOp::of(n) {
            Ok(w) => Cond::Written(Box::new(w)),
            Err(n) => Cond::Yaml(Box::new(n)),
        }
    }

    /// Where a condition as written was written, if it is one and its
    /// place is known.
    pub(crate) fn written_span(&self) -> Option<Span> {
        match self {
            Cond::Yaml(n) => Some(n.span),
            Cond::Written(w) => Some(w.span),
            _ => None,
        }
        .filter(|s| s.is_known())
    }

    /// Whether this is a generated (default or pruning) condition: a map
    /// with a truthy `_generated`.
    pub(crate) fn is_generated(&self) -> bool {
        match self {
            Cond::Generated(..) => true,
            Cond::Yaml(n) => n.get("_generated").is_some_and(Node::is_truthy),
            _ => false,
        }
    }

    /// Whether the YAML form is a map (it can take `_generated`).
    pub(crate) fn is_map(&self, g: &Graph) -> bool {
        match self {
            Cond::Yaml(n) => n.as_map().is_some(),
            Cond::Written(_) => true,
            Cond::Presence(id) => !g.presence_is_false(*id),
            _ => true,
        }
    }

    /// The YAML form (what `v4t enrich` prints).
    pub(crate) fn to_node(&self, g: &Graph) -> Node {
        match self {
            Cond::Yaml(n) => (**n).clone(),
            Cond::Written(w) => w.to_node(),
            Cond::Presence(id) => g.presence_condition(*id),
            Cond::And(items) => map_with(1, "and", Cond::seq(items, g)),
            Cond::Or(items) => map_with(1, "or", Cond::seq(items, g)),
            Cond::Bratan(set) => {
                let presences = set.iter().map(|&x| g.presence_condition(x)).collect();
                let mut m = Map::with_capacity(2);
                m.insert("not", map_with(1, "or", Node::seq(presences)));
                m.insert("_bratan", Node::bool(true));
                Node::map(m)
            }
            Cond::Op(op, id) => {
                let e = g.get(*id);
                let index = || Node::number(e.index().unwrap_or(0) as f64);
                let arg = match op {
                    LogicOp::HostPresence | LogicOp::IsManaged => Node::string("SELF"),
                    LogicOp::IsConsumed | LogicOp::IsProduced | LogicOp::HasPresentTarget => {
                        index()
                    }
                    _ => Node::string(g.name(*id)),
                };
                map_with(1, op.key(), arg)
            }
            Cond::Generated(inner, _) => {
                let mut n = inner.to_node(g);
                if let Some(m) = n.as_map_mut() {
                    insert_tight(m, "_generated", Node::bool(true));
                }
                n
            }
        }
    }

    /// The YAML form, consuming `self` (no clone of YAML entries).
    pub(crate) fn into_node(self, g: &Graph) -> Node {
        match self {
            Cond::Yaml(n) => *n,
            Cond::Written(w) => w.into_node(),
            other => other.to_node(g),
        }
    }

    fn seq(items: &[Cond], g: &Graph) -> Node {
        Node::seq(items.iter().map(|c| c.to_node(g)).collect())
    }
}

/// A name the lookup of a condition argument treats as a keyword.
fn is_keyword(name: &str) -> bool {
    matches!(name, "SELF" | "CONTAINER" | "SOURCE" | "TARGET")
}

impl Graph {
    /// Whether [`Graph::presence_condition`] of `id` is the constant `false`
    /// (a property or type without a suitable container).
    pub(crate) fn presence_is_false(&self, id: ElementId) -> bool {
        let e = self.get(id);
        match e.kind {
            Kind::Property | Kind::Type => !e.container().is_some_and(|c| {
                matches!(
                    self.get(c).kind,
                    Kind::Node | Kind::Relation | Kind::Group | Kind::Policy | Kind::Artifact
                )
            }),
            _ => false,
        }
    }

    /// Whether node `n` is found by its name (no keyword, not shadowed by a
    /// later node of the same name).
    pub(crate) fn node_by_own_name(&self, n: ElementId) -> bool {
        let name = self.name(n);
        self.get(n).kind == Kind::Node && !is_keyword(name) && self.node(name) == Some(n)
    }

    /// Whether group `gr` is found by its name.
    pub(crate) fn group_by_own_name(&self, gr: ElementId) -> bool {
        let name = self.name(gr);
        !is_keyword(name) && self.group(name) == Some(gr)
    }

    /// Whether `list[index of x]` is `x`.
    fn at_own_index(&self, list: &[ElementId], x: ElementId) -> bool {
        list.get(self.get(x).index().unwrap_or(0) as usize) == Some(&x)
    }

    /// Whether looking up [`Graph::presence_condition`] of `id` finds `id`
    /// itself, so that the encoder can use its presence variable directly
    /// (names are unique and indices are positions in the usual case; a
    /// node called `SELF` or two nodes of one name are not).
    pub(crate) fn presence_resolves_to_self(&self, id: ElementId) -> bool {
        let e = self.get(id);
        let contained = |list: fn(&super::Element) -> &[ElementId], x: ElementId| {
            let Some(c) = self.get(x).container() else {
                return false;
            };
            self.node_by_own_name(c) && self.at_own_index(list(self.get(c)), x)
        };
        match e.kind {
            Kind::Node => self.node_by_own_name(id),
            Kind::Relation => contained(|c| c.outgoing(), id),
            Kind::Artifact => contained(|c| c.artifacts(), id),
            Kind::Technology => contained(|c| c.technologies(), id),
            Kind::Group => self.group_by_own_name(id),
            Kind::Policy => self.at_own_index(&self.policies, id),
            Kind::Input => self.at_own_index(&self.inputs, id),
            Kind::Output => self.at_own_index(&self.outputs, id),
            Kind::Import => self.at_own_index(&self.imports, id),
            // An attribute's presence condition is its id.
            Kind::Property if e.is_attribute() => true,
            Kind::Property | Kind::Type => {
                let Some(c) = e.container() else { return false };
                let ce = self.get(c);
                let pool = if e.kind == Kind::Property {
                    ce.properties()
                } else {
                    ce.types()
                };
                let container_found = match ce.kind {
                    Kind::Node => self.node_by_own_name(c),
                    Kind::Relation => contained(|c| c.outgoing(), c),
                    Kind::Artifact => contained(|c| c.artifacts(), c),
                    Kind::Group => self.group_by_own_name(c),
                    // (policy members: argument checks differ; looked up)
                    _ => false,
                };
                container_found && self.at_own_index(pool, id)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(n: &Node, out: &mut Vec<Span>) {
        out.push(n.span);
        match &n.value {
            Value::Seq(items) => items.iter().for_each(|i| spans(i, out)),
            Value::Map(m) => {
                for (k, v) in m.iter() {
                    out.push(k.span);
                    spans(v, out);
                }
            }
            _ => {}
        }
    }

    /// A map of one logic operator becomes a [`WrittenOp`] that gives back
    /// the node written, spans included; every other shape stays YAML.
    #[test]
    fn written_op_gives_back_the_node_written() {
        let written = [
            "{logic_expression: e}",
            "{not: {variability_input: x}}",
            "{and: [true, {node_presence: a}]}",
            "{implies: [a, b]}",
            "{node_presence: [x, 1]}",
        ];
        let yaml = [
            "{variability_input: x}",
            "{logic_expression: e, _generated: true}",
            "{and: [a], or: [b]}",
            "{logic_expression: null}",
            "{not_an_operator: x}",
            "{}",
            "true",
            "name",
            "[a, b]",
        ];
        for text in written {
            let n = crate::testing::doc(text);
            let c = Cond::yaml(n.clone());
            let Cond::Written(w) = &c else {
                panic!("{text} is not lowered: {c:?}");
            };
            assert_eq!(w.span, n.span, "{text}");
            assert_eq!(c.written_span(), Some(n.span), "{text}");
            let back = w.to_node();
            assert!(v4t_yaml::deep_equal(&back.value, &n.value), "{text}");
            let (mut a, mut b) = (Vec::new(), Vec::new());
            spans(&back, &mut a);
            spans(&n, &mut b);
            assert_eq!(a, b, "{text}");
        }
        for text in yaml {
            let n = crate::testing::doc(text);
            assert!(matches!(Cond::yaml(n), Cond::Yaml(_)), "{text}");
        }
    }
}
