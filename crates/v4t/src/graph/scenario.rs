//! The scenario a rule-derived technology stores (part 1, section 8.3): the
//! rule group it came from, which the `scenario` default condition matches
//! again (9.4) and `is_managed` reads (its artifact type).
//!
//! For `v4t enrich` the enricher writes it into every candidate technology
//! as YAML, as the reference does. When resolving it hands the scenarios to
//! graph #2 instead ([`PlacedScenarios`]): a template with tens of
//! thousands of candidates has a few distinct scenarios. Either way the
//! graph keeps each distinct scenario once, typed ([`Graph::scenario`]).
//!
//! [`Graph::scenario`]: super::Graph::scenario

use v4t_yaml::hash::SeededMap;
use v4t_yaml::{Map, Node, NodeRef};

/// A stored scenario: the rules with the same component, artifact and
/// hosting (without their assessments).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Scenario {
    /// `component[#artifact][@hosting joined with ->]`.
    pub key: String,
    pub component: String,
    /// The operations of the group's first rule, if it names any.
    pub operations: Option<Vec<String>>,
    pub artifact: Option<String>,
    pub hosting: Vec<String>,
}

impl Scenario {
    /// The scenario as stored in a technology template.
    pub(crate) fn to_node(&self) -> Node {
        let list = |l: &[String]| Node::seq(l.iter().map(|s| Node::string(s.clone())).collect());
        // Exactly sized: every technology candidate stores a copy.
        let entries =
            4 + usize::from(self.operations.is_some()) + usize::from(self.artifact.is_some());
        let mut m = Map::with_capacity(entries);
        m.insert("key", Node::string(self.key.clone()));
        m.insert("component", Node::string(self.component.clone()));
        if let Some(ops) = &self.operations {
            m.insert("operations", list(ops));
        }
        if let Some(a) = &self.artifact {
            m.insert("artifact", Node::string(a.clone()));
        }
        m.insert("hosting", list(&self.hosting));
        // The reference stores a copy without its assessments (8.3).
        m.insert("assessments", Node::seq(Vec::new()));
        Node::map(m)
    }

    /// Reads a stored scenario (whatever its shape: missing parts are
    /// empty, as the reference reads them).
    pub(crate) fn from_node<'a>(n: impl Into<NodeRef<'a>>) -> Scenario {
        let n = n.into();
        let string = |k: &str| {
            n.get_defined(k)
                .and_then(NodeRef::as_str)
                .map(str::to_string)
        };
        Scenario {
            key: string("key").unwrap_or_default(),
            component: string("component").unwrap_or_default(),
            operations: n.get_defined("operations").map(strings),
            artifact: string("artifact"),
            hosting: n.get("hosting").map(strings).unwrap_or_default(),
        }
    }
}

/// The scenarios of the technologies the enricher adds when resolving, by
/// where they stand in the document: the node's position and the
/// technology's index in its list ([`super::Loc::Technology`]).
#[derive(Debug, Default)]
pub(crate) struct PlacedScenarios {
    /// The distinct scenarios.
    pub scenarios: Vec<Scenario>,
    /// (node position, technology index) -> position in `scenarios`.
    pub at: SeededMap<(u32, u32), u32>,
}

/// The strings of a list (other entries skipped); empty for a non-list.
pub(crate) fn strings<'a>(n: impl Into<NodeRef<'a>>) -> Vec<String> {
    n.into()
        .as_seq()
        .map(|l| {
            l.iter()
                .filter_map(NodeRef::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use v4t_yaml::SourceId;

    fn parse(text: &str) -> Node {
        v4t_yaml::parse(text, SourceId(0)).expect("parses")
    }

    #[test]
    fn a_stored_scenario_reads_back_as_written() {
        let s = Scenario {
            key: "app#zip@vm".into(),
            component: "app".into(),
            operations: Some(vec!["deploy".into()]),
            artifact: Some("zip".into()),
            hosting: vec!["vm".into()],
        };
        assert_eq!(Scenario::from_node(&s.to_node()), s);
        let bare = Scenario {
            operations: None,
            artifact: None,
            hosting: Vec::new(),
            ..s
        };
        assert_eq!(Scenario::from_node(&bare.to_node()), bare);
    }

    #[test]
    fn other_shapes_read_as_empty_parts() {
        let s = Scenario::from_node(&parse("{component: 3, hosting: [vm, 4], artifact: null}"));
        assert_eq!(s.component, "");
        assert_eq!(s.artifact, None);
        assert_eq!(s.hosting, ["vm"]);
        assert_eq!(Scenario::from_node(&parse("text")).key, "");
    }
}
