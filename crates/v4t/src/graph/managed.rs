//! Which nodes need a deployment technology, and which technologies manage
//! an artifact (4.5): questions about the graph and the type system.

use super::{ElementId, Graph};
use crate::error::{Error, Result};
use crate::normalize::not_a_boolean;
use crate::types::{Collection, TypeSystem};
use v4t_yaml::MapRef;

impl Graph {
    /// Whether a node requires a deployment technology (4.5): its `managed`
    /// if written, else whether it has technologies or its type is not
    /// abstract (`raw` is its definition).
    pub(crate) fn is_managed(
        &self,
        types: &TypeSystem,
        raw: Option<MapRef<'_>>,
        node: ElementId,
    ) -> Result<bool> {
        let g = self;
        if let Some(m) = raw
            .and_then(|m| m.get("managed"))
            .filter(|n| n.is_defined())
        {
            return m.as_bool().ok_or_else(|| not_a_boolean(m));
        }
        if !g.get(node).technologies().is_empty() {
            return Ok(true);
        }
        let name = g.single_type(node)?;
        match types.is_abstract_node_type(name) {
            Some(is_abstract) => Ok(!is_abstract),
            None => Err(Error::at(
                format!("Node type \"{name}\" does not exist"),
                g.get(node).span,
            )),
        }
    }

    /// The technologies of the artifact's node whose stored scenario names an
    /// artifact type the artifact's type derives from (`is_managed`).
    pub(crate) fn managing_technologies(
        &self,
        types: &TypeSystem,
        artifact: ElementId,
    ) -> Result<Vec<ElementId>> {
        let g = self;
        let Some(node) = g.get(artifact).container() else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for &t in g.get(node).technologies() {
            let scenario_artifact = g.scenario(t).and_then(|s| s.artifact.as_deref());
            if let Some(at) = scenario_artifact {
                let own = g.single_type(artifact)?;
                if types.is_a(Collection::Artifact, own, at)? {
                    out.push(t);
                }
            }
        }
        Ok(out)
    }
}
