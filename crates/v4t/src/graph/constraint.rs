//! Generated constraints ([`Constraint`]): the enricher's structural and
//! implication constraints as compact terms over [`ElementId`]s. When
//! resolving they stay in the graph and the solver's encoder turns them into
//! literals without building YAML or looking ids up by name; they become
//! YAML only for `v4t enrich` ([`Constraint::to_node`]).
//!
//! **Invariant:** [`Constraint::to_node`] is exactly the YAML the enricher
//! used to write (part 1, section 10), and encoding a term gives the same
//! clauses and variables as encoding that YAML.

use super::{ElementId, Graph};
use v4t_yaml::{Key, Map, Node, Span};

/// A generated constraint or one of its operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Constraint {
    /// The element's id as a term: its presence variable.
    Var(ElementId),
    /// `manual.<id>`: the conjunction of the element's manual conditions.
    Manual(ElementId),
    /// `{and: [...]}`.
    And(Vec<Constraint>),
    /// `{or: [...]}`.
    Or(Vec<Constraint>),
    /// `{exo: [...]}`.
    Exo(Vec<Constraint>),
    /// `{amo: [...]}`.
    Amo(Vec<Constraint>),
    /// `{implies: [a, b]}`.
    Implies(Box<Constraint>, Box<Constraint>),
}

/// `{key: items}` with room for exactly one entry.
fn list(key: &str, items: Vec<Node>) -> Node {
    let mut m = Map::with_capacity(1);
    m.push(Key::new(key, Span::NONE), Node::seq(items));
    Node::map(m)
}

impl Constraint {
    /// `{implies: [a, b]}`.
    pub(crate) fn implies(a: Constraint, b: Constraint) -> Constraint {
        Constraint::Implies(Box::new(a), Box::new(b))
    }

    /// The variables of `ids`.
    pub(crate) fn vars(ids: &[ElementId]) -> Vec<Constraint> {
        ids.iter().map(|&x| Constraint::Var(x)).collect()
    }

    /// The YAML form (what `v4t enrich` prints).
    pub(crate) fn to_node(&self, g: &Graph) -> Node {
        let seq = |items: &[Constraint]| items.iter().map(|c| c.to_node(g)).collect();
        match self {
            Constraint::Var(x) => Node::string(g.id(*x)),
            Constraint::Manual(x) => Node::string(format!("manual.{}", g.id(*x))),
            Constraint::And(items) => list("and", seq(items)),
            Constraint::Or(items) => list("or", seq(items)),
            Constraint::Exo(items) => list("exo", seq(items)),
            Constraint::Amo(items) => list("amo", seq(items)),
            Constraint::Implies(a, b) => list("implies", vec![a.to_node(g), b.to_node(g)]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::build;
    use crate::testing::doc;
    use crate::testing::normalize;
    use v4t_yaml::json::to_json;

    /// The YAML form is what the enricher wrote before the terms: ids and
    /// `manual.<id>` names as strings, one-key operator maps.
    #[test]
    fn yaml_form_names_elements_by_id() {
        let mut d = doc("
tosca_definitions_version: tosca_variability_1_0
topology_template:
  node_templates:
    a: {type: t, requirements: [{host: b}]}
    b: {type: t}
");
        normalize(&mut d).expect("normalizes");
        let g = build(&d).expect("builds");
        let [a, b] = ["a", "b"].map(|n| g.node(n).expect("node"));
        let r = g.relations[0];
        use Constraint::*;
        let left = And(vec![Var(a), Manual(r), Or(vec![Manual(b)])]);
        let c = Constraint::implies(left, Exo(vec![Var(r), Var(b)]));
        assert_eq!(
            to_json(&c.to_node(&g)),
            format!(
                r#"{{"implies":[{{"and":["node.a","manual.{r}",{{"or":["manual.node.b"]}}]}},{{"exo":["{r}","node.b"]}}]}}"#,
                r = g.id(r)
            )
        );
        assert_eq!(
            to_json(&Amo(Constraint::vars(&[a, b])).to_node(&g)),
            r#"{"amo":["node.a","node.b"]}"#
        );
    }
}
