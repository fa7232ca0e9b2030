//! Element enrichment: deployment technologies and implementations from
//! technology rules ("qualities"), and the `scenario` default condition of
//! rule-derived technologies (part 1, section 8).

use crate::error::Result;
use crate::graph::{ElementId, Graph};
use crate::types::TypeSystem;
use v4t_yaml::Node;

/// Rewrites the raw `technology` lists of managed nodes from the rules
/// (`enrich_implementations`, then `enrich_technologies`), on graph #1.
pub fn enrich_technologies(doc: &mut Node, graph: &Graph) -> Result<()> {
    let _ = (doc, graph);
    Ok(())
}

/// The `scenario` token's condition of a rule-derived technology: one
/// alternative per match of its stored scenario, or `None` without scenario.
pub fn scenario_condition(
    doc: &Node,
    graph: &Graph,
    types: &TypeSystem<'_>,
    id: ElementId,
) -> Result<Option<Node>> {
    let _ = (types, graph.raw(doc, id));
    Ok(None)
}
