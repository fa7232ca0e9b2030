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
use thin_vec::ThinVec;
use v4t_yaml::{Key, Map, Node, Span};

/// A generated constraint or one of its operands. Sixteen bytes, and the
/// most frequent shape without allocation: a template without variability
/// has a constraint or two per element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Constraint {
    /// The element's id as a term: its presence variable.
    Var(ElementId),
    /// `manual.<id>`: the conjunction of the element's manual conditions.
    Manual(ElementId),
    /// `{implies: [a, b]}` of two element variables (an element implies its
    /// container, an end or its host): [`Constraint::implies`] makes it
    /// of two [`Constraint::Var`]s.
    Requires(ElementId, ElementId),
    /// `{and: [...]}`.
    And(ThinVec<Constraint>),
    /// `{or: [...]}`.
    Or(ThinVec<Constraint>),
    /// `{exo: [...]}`.
    Exo(ThinVec<Constraint>),
    /// `{amo: [...]}`.
    Amo(ThinVec<Constraint>),
    /// `{implies: [a, b]}` of other operands.
    Implies(Box<(Constraint, Constraint)>),
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
        match (a, b) {
            (Constraint::Var(x), Constraint::Var(y)) => Constraint::Requires(x, y),
            (a, b) => Constraint::Implies(Box::new((a, b))),
        }
    }

    /// The two sides of an implication (`None` for other shapes).
    pub(crate) fn implication(&self) -> Option<(Constraint, Constraint)> {
        match self {
            Constraint::Requires(x, y) => Some((Constraint::Var(*x), Constraint::Var(*y))),
            Constraint::Implies(sides) => Some((**sides).clone()),
            _ => None,
        }
    }

    /// The variables of `ids`.
    pub(crate) fn vars(ids: &[ElementId]) -> ThinVec<Constraint> {
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
            Constraint::Requires(x, y) => list(
                "implies",
                vec![Node::string(g.id(*x)), Node::string(g.id(*y))],
            ),
            Constraint::Implies(sides) => {
                list("implies", vec![sides.0.to_node(g), sides.1.to_node(g)])
            }
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
        let left = And(thin_vec::thin_vec![
            Var(a),
            Manual(r),
            Or(thin_vec::thin_vec![Manual(b)])
        ]);
        let c = Constraint::implies(left, Exo(thin_vec::thin_vec![Var(r), Var(b)]));
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
