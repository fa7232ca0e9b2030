//! The logic operators of conditions and constraints (part 2, 4.2-4.6): one
//! table of every operator with its key, its argument and its precedence.
//!
//! A condition map may hold several keys; the operator that applies is its
//! defined key that comes first in the table (the reference tests them in
//! that order), which [`LogicOp::of_map`] finds in one pass. Everything else
//! about conditions matches [`LogicOp`]s, never operator strings.

use v4t_expr::ValueOp;
use v4t_yaml::{MapRef, NodeRef};

/// What an operator takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arity {
    /// The name of a named logic expression.
    Name,
    /// One condition.
    One,
    /// A list of conditions.
    List,
    /// Two conditions, `[if, then]`.
    Pair,
    /// A reference to an element (a name, `SELF`/`CONTAINER`, an index, or a
    /// list of them that walks from a container to its member).
    Element,
}

/// Declares [`LogicOp`] from one table: variant, key, arity, in precedence order.
macro_rules! logic_ops {
    ($($(#[$doc:meta])* $variant:ident = $key:literal, $arity:ident;)*) => {
        /// A logic operator. The declaration order is the precedence order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub(crate) enum LogicOp {
            $($(#[$doc])* $variant,)*
        }

        impl LogicOp {
            /// Every operator, in precedence order.
            pub(crate) const ALL: &'static [LogicOp] = &[$(LogicOp::$variant,)*];

            /// The operator's key.
            pub(crate) fn key(self) -> &'static str {
                match self {
                    $(LogicOp::$variant => $key,)*
                }
            }

            /// What the operator takes.
            pub(crate) fn arity(self) -> Arity {
                match self {
                    $(LogicOp::$variant => Arity::$arity,)*
                }
            }

            /// The operator with key `key` (a `match`: a length switch and
            /// few comparisons).
            pub(crate) fn parse(key: &str) -> Option<LogicOp> {
                Some(match key {
                    $($key => LogicOp::$variant,)*
                    _ => return None,
                })
            }
        }
    };
}

/// The keys of every condition operator, in precedence order (for editors).
pub fn operator_names() -> impl Iterator<Item = &'static str> {
    LogicOp::ALL.iter().map(|op| op.key())
}

logic_ops! {
    /// `{logic_expression: NAME}`: a named logic expression.
    LogicExpression = "logic_expression", Name;
    /// Conjunction.
    And = "and", List;
    /// Disjunction.
    Or = "or", List;
    /// Negation.
    Not = "not", One;
    /// Odd parity.
    Xor = "xor", List;
    /// Exactly one.
    Exo = "exo", List;
    /// Implication.
    Implies = "implies", Pair;
    /// At most one.
    Amo = "amo", List;
    /// A node is present.
    NodePresence = "node_presence", Element;
    /// One of a node's hosts is present.
    HostPresence = "host_presence", Element;
    /// One of the sources of a node's incoming relations is present.
    HasSource = "has_source", Element;
    /// A node has a present incoming relation with a present source.
    HasIncomingRelation = "has_incoming_relation", Element;
    /// A node has a present incoming relation.
    HasIncomingRelationNaive = "has_incoming_relation_naive", Element;
    /// A node has a present outgoing relation with a present target.
    HasOutgoingRelation = "has_outgoing_relation", Element;
    /// A node has a present outgoing relation.
    HasOutgoingRelationNaive = "has_outgoing_relation_naive", Element;
    /// A node has an artifact whose manual conditions hold.
    HasArtifact = "has_artifact", Element;
    /// A node has a present artifact.
    HasArtifactNaive = "has_artifact_naive", Element;
    /// A relation is present.
    RelationPresence = "relation_presence", Element;
    /// The source of a relation is present.
    SourcePresence = "source_presence", Element;
    /// The target of a relation is present.
    TargetPresence = "target_presence", Element;
    /// The container (`SELF`) or the container's container (`CONTAINER`) is present.
    ContainerPresence = "container_presence", Element;
    /// A policy is present.
    PolicyPresence = "policy_presence", Element;
    /// One of a policy's targets is present.
    HasPresentTarget = "has_present_target", Element;
    /// A group is present.
    GroupPresence = "group_presence", Element;
    /// One of a group's members is present.
    HasPresentMember = "has_present_member", Element;
    /// An artifact is present.
    ArtifactPresence = "artifact_presence", Element;
    /// A technology that manages an artifact is present.
    IsManaged = "is_managed", Element;
    /// A property of a node is present.
    NodePropertyPresence = "node_property_presence", Element;
    /// A property of a relation is present.
    RelationPropertyPresence = "relation_property_presence", Element;
    /// A property of a group is present.
    GroupPropertyPresence = "group_property_presence", Element;
    /// A property of a policy is present.
    PolicyPropertyPresence = "policy_property_presence", Element;
    /// A property of an artifact is present.
    ArtifactPropertyPresence = "artifact_property_presence", Element;
    /// An input is present.
    InputPresence = "input_presence", Element;
    /// A property that consumes an input is present.
    IsConsumed = "is_consumed", Element;
    /// An output is present.
    OutputPresence = "output_presence", Element;
    /// A node that produces an output is present.
    IsProduced = "is_produced", Element;
    /// An import is present.
    ImportPresence = "import_presence", Element;
    /// A technology is present.
    TechnologyPresence = "technology_presence", Element;
    /// A type of a node is present.
    NodeTypePresence = "node_type_presence", Element;
    /// A type of a relation is present.
    RelationTypePresence = "relation_type_presence", Element;
    /// A type of a group is present.
    GroupTypePresence = "group_type_presence", Element;
    /// A type of a policy is present.
    PolicyTypePresence = "policy_type_presence", Element;
    /// A type of an artifact is present.
    ArtifactTypePresence = "artifact_type_presence", Element;
}

impl LogicOp {
    /// The operator of a condition map (of a tree or a [`v4t_yaml::Doc`])
    /// and its argument: the map's defined operator key that comes first in
    /// precedence order (one pass over the map's usually one or two
    /// entries). Like `Map::get`, only the first entry of a duplicated key
    /// counts.
    pub(crate) fn of_map(m: MapRef<'_>) -> Option<(LogicOp, NodeRef<'_>)> {
        let mut best: Option<(LogicOp, NodeRef<'_>)> = None;
        let mut seen = 0u64;
        for (k, v) in m.iter() {
            let Some(op) = LogicOp::parse(k.name()) else {
                continue;
            };
            let bit = 1u64 << (op as u32);
            let first = seen & bit == 0;
            seen |= bit;
            if first && v.is_defined() && best.is_none_or(|(b, _)| op < b) {
                best = Some((op, v));
            }
        }
        best
    }

    /// For the operators about a member of an element (`*_property_presence`,
    /// `*_type_presence`): whether the member is a property (else a type).
    pub(crate) fn is_property_presence(self) -> bool {
        matches!(
            self,
            LogicOp::NodePropertyPresence
                | LogicOp::RelationPropertyPresence
                | LogicOp::GroupPropertyPresence
                | LogicOp::PolicyPropertyPresence
                | LogicOp::ArtifactPropertyPresence
        )
    }
}

/// What an operator that names something in `variability` refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NameRef {
    /// `{variability_input: NAME}`.
    Input,
    /// `{logic_expression: NAME}` or `{value_expression: NAME}`.
    Expression,
}

impl NameRef {
    /// What the operator with key `key` names, if it names something.
    pub(crate) fn of_key(key: &str) -> Option<NameRef> {
        if LogicOp::parse(key) == Some(LogicOp::LogicExpression) {
            return Some(NameRef::Expression);
        }
        match ValueOp::parse(key)? {
            ValueOp::VariabilityInput => Some(NameRef::Input),
            ValueOp::ValueExpression => Some(NameRef::Expression),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::doc;

    #[test]
    fn the_table_round_trips_and_fits_the_precedence_bits() {
        assert!(LogicOp::ALL.len() <= 64);
        for (rank, &op) in LogicOp::ALL.iter().enumerate() {
            assert_eq!(op as usize, rank);
            assert_eq!(LogicOp::parse(op.key()), Some(op), "{}", op.key());
        }
        assert_eq!(LogicOp::parse("_generated"), None);
        assert_eq!(NameRef::of_key("variability_input"), Some(NameRef::Input));
        assert_eq!(
            NameRef::of_key("value_expression"),
            Some(NameRef::Expression)
        );
        assert_eq!(
            NameRef::of_key("logic_expression"),
            Some(NameRef::Expression)
        );
        assert_eq!(NameRef::of_key("equal"), None);
        assert_eq!(NameRef::of_key("and"), None);
        assert_eq!(LogicOp::parse("variability_input"), None);
        assert_eq!(LogicOp::Not.arity(), Arity::One);
        assert!(LogicOp::PolicyPropertyPresence.is_property_presence());
        assert!(!LogicOp::PolicyTypePresence.is_property_presence());
    }

    #[test]
    fn the_first_defined_operator_in_precedence_order_applies() {
        let key = |yaml: &str| {
            let d = doc(yaml);
            let m = d.as_map().unwrap_or_else(|| panic!("map"));
            LogicOp::of_map(m.into()).map(|(op, arg)| (op, v4t_yaml::json::to_json(arg)))
        };
        assert_eq!(
            key("{node_presence: a, and: [true]}"),
            Some((LogicOp::And, "[true]".into()))
        );
        assert_eq!(
            key("{and: null, node_presence: a}"),
            Some((LogicOp::NodePresence, "\"a\"".into()))
        );
        assert_eq!(key("{_generated: true, x: 1}"), None);
    }
}
