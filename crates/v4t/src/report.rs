//! The decision report: every element with its id, display name and presence,
//! the chosen technologies, the optimisation objectives and the variability
//! inputs used, so tools can consume the decision and not only the template.

use crate::graph::Graph;
use crate::solve::Solution;
use v4t_yaml::{Map, Node};

/// One element's decision.
#[derive(Clone, Debug)]
pub struct ElementDecision {
    /// The element's id (`node.web`, `property.p@0.node.web`).
    pub id: String,
    /// Its display name (`node "web"`).
    pub display: String,
    /// Its kind (`node`, `relation`, ...).
    pub kind: &'static str,
    /// Whether it is present in the resolved template.
    pub present: bool,
}

/// The technology chosen for a present node.
#[derive(Clone, Debug)]
pub struct TechnologyChoice {
    /// The node's name.
    pub node: String,
    /// The technology's name.
    pub technology: String,
    /// The node type the technology assigns.
    pub assign: Option<String>,
}

/// What was decided, and why it is optimal.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Every element, in element order, but the internal ones (the fallback
    /// properties that stand for "no value").
    pub elements: Vec<ElementDecision>,
    /// The technology of every present node that has one.
    pub technologies: Vec<TechnologyChoice>,
    /// Optimisation stages in order with their optimal values.
    pub objectives: Vec<(String, u64)>,
    /// The variability inputs after presets, assignments and defaults.
    pub inputs: Map,
}

impl Report {
    pub(crate) fn new(graph: &Graph, solution: &Solution) -> Report {
        let elements = graph
            .ordered()
            .filter(|&id| !graph.is_internal(id))
            .map(|id| ElementDecision {
                id: graph.id(id).to_string(),
                display: graph.display(id),
                kind: graph.get(id).word(),
                present: solution.is_present(id),
            })
            .collect();
        let technologies = graph
            .nodes()
            .iter()
            .filter(|&&n| solution.is_present(n))
            .filter_map(|&n| {
                let t = *graph
                    .get(n)
                    .technologies()
                    .iter()
                    .find(|&&t| solution.is_present(t))?;
                Some(TechnologyChoice {
                    node: graph.name(n).to_string(),
                    technology: graph.name(t).to_string(),
                    assign: graph.assign(t).map(str::to_string),
                })
            })
            .collect();
        Report {
            elements,
            technologies,
            objectives: solution.objectives.clone(),
            inputs: solution.inputs.clone(),
        }
    }

    /// The report as a document (for YAML or JSON output).
    pub fn to_node(&self) -> Node {
        let elements = self
            .elements
            .iter()
            .map(|e| {
                let mut m = Map::new();
                m.insert("id", Node::string(e.id.clone()));
                m.insert("display", Node::string(e.display.clone()));
                m.insert("kind", Node::string(e.kind));
                m.insert("present", Node::bool(e.present));
                Node::map(m)
            })
            .collect();
        let technologies = self
            .technologies
            .iter()
            .map(|t| {
                let mut m = Map::new();
                m.insert("node", Node::string(t.node.clone()));
                m.insert("technology", Node::string(t.technology.clone()));
                if let Some(a) = &t.assign {
                    m.insert("assign", Node::string(a.clone()));
                }
                Node::map(m)
            })
            .collect();
        let mut objectives = Map::new();
        for (name, value) in &self.objectives {
            objectives.insert(name.clone(), Node::number(*value as f64));
        }
        let mut root = Map::new();
        root.insert("inputs", Node::map(self.inputs.clone()));
        root.insert("objectives", Node::map(objectives));
        root.insert("technologies", Node::seq(technologies));
        root.insert("elements", Node::seq(elements));
        Node::map(root)
    }
}
