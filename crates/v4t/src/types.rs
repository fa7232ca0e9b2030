//! Entity types: inheritance (is-a) walks over the template's type
//! collections, single-type access and the `managed` property of nodes
//! (part 1, sections 4.5 and 4.7).

use crate::error::{bail, Error, Result};
use crate::graph::{ElementId, Graph, Kind};
use crate::normalize::not_a_boolean;
use v4t_yaml::{Map, Node};

/// Read access to the type collections of one document.
pub struct TypeSystem<'d> {
    doc: &'d Node,
    graph: &'d Graph,
    /// The collections of [`COLLECTIONS`], looked up once: the technology
    /// rules walk them for every node and scenario.
    collections: [Option<&'d Map>; 5],
}

/// The type collections of the element kinds that have types.
const COLLECTIONS: [&str; 5] = [
    "node_types",
    "relationship_types",
    "artifact_types",
    "group_types",
    "policy_types",
];

/// The type collection of an element kind.
pub fn collection_of(kind: Kind) -> &'static str {
    match kind {
        Kind::Node => "node_types",
        Kind::Relation => "relationship_types",
        Kind::Artifact => "artifact_types",
        Kind::Group => "group_types",
        Kind::Policy => "policy_types",
        _ => "",
    }
}

impl<'d> TypeSystem<'d> {
    pub fn new(doc: &'d Node, graph: &'d Graph) -> TypeSystem<'d> {
        TypeSystem {
            doc,
            graph,
            collections: COLLECTIONS.map(|c| doc.get(c).and_then(Node::as_map)),
        }
    }

    fn collection(&self, name: &str) -> Option<&'d Map> {
        match COLLECTIONS.iter().position(|&c| c == name) {
            Some(i) => self.collections[i],
            None => self.doc.get(name).and_then(Node::as_map),
        }
    }

    /// The definition of type `name` in `collection`, if any.
    pub fn definition(&self, collection: &str, name: &str) -> Option<&'d Node> {
        self.collection(collection)?.get(name)
    }

    /// Whether type `start` of `collection` is `target` or derives from it.
    pub fn is_a(&self, collection: &str, start: &str, target: &str) -> Result<bool> {
        let types = self.collection(collection);
        let get = |name: &str| types.and_then(|m| m.get(name));
        let Some(mut def) = get(start) else {
            bail!(
                Default::default(),
                "starting {collection} \"{start}\" has no definition"
            );
        };
        let mut cur = start;
        let limit = types.map(Map::len).unwrap_or(0) + 1;
        for _ in 0..=limit {
            if cur == target {
                return Ok(true);
            }
            let parent = def
                .get("derived_from")
                .and_then(Node::as_str)
                .unwrap_or("tosca.entity.Root");
            if parent == "tosca.entity.Root" {
                return Ok(false);
            }
            let Some(parent_def) = get(parent) else {
                bail!(
                    Default::default(),
                    "{collection} \"{parent}\" has no definition"
                );
            };
            (cur, def) = (parent, parent_def);
        }
        Ok(false)
    }

    /// The inheritance chain of a type, starting with itself (for scenario priorities).
    pub fn chain(&self, collection: &str, start: &str) -> Vec<String> {
        chain_in(self.collection(collection), start)
    }

    /// The single type name of an element (`<Display> has more than one type`).
    pub fn single_type(&self, id: ElementId) -> Result<&'d str> {
        let g = self.graph;
        let e = g.get(id);
        if e.types.len() > 1 {
            bail!(e.span, "{} has more than one type", g.Display(id));
        }
        let Some(&t) = e.types.first() else {
            bail!(e.span, "{} has no type", g.Display(id));
        };
        Ok(g.get(t).name.as_str())
    }

    /// The type definition of a node's single type.
    pub fn node_type_def(&self, node: ElementId) -> Result<Option<&'d Node>> {
        let name = self.single_type(node)?;
        Ok(self.collection("node_types").and_then(|m| m.get(name)))
    }

    /// Whether a node requires a deployment technology (4.5).
    pub fn is_managed(&self, node: ElementId) -> Result<bool> {
        let g = self.graph;
        let raw = g.raw_map(self.doc, node);
        if let Some(m) = raw
            .and_then(|m| m.get("managed"))
            .filter(|n| n.is_defined())
        {
            return m.as_bool().ok_or_else(|| not_a_boolean(m));
        }
        if !g.get(node).technologies.is_empty() {
            return Ok(true);
        }
        let name = self.single_type(node)?;
        let Some(def) = self.collection("node_types").and_then(|m| m.get(name)) else {
            return Err(Error::at(
                format!("Node type \"{name}\" does not exist"),
                g.get(node).span,
            ));
        };
        let abstract_ = def
            .get("metadata")
            .and_then(|m| m.get("vintner_abstract"))
            .and_then(Node::as_str)
            == Some("true");
        Ok(!abstract_)
    }

    /// The technologies of the artifact's node whose stored scenario names an
    /// artifact type the artifact's type derives from (`is_managed`).
    pub fn managing_technologies(&self, doc: &Node, artifact: ElementId) -> Result<Vec<ElementId>> {
        let g = self.graph;
        let Some(node) = g.get(artifact).container else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for &t in &g.get(node).technologies {
            let scenario_artifact = g
                .raw(doc, t)
                .and_then(|r| r.get("scenario"))
                .and_then(|s| s.get("artifact"))
                .and_then(Node::as_str);
            if let Some(at) = scenario_artifact {
                let own = self.single_type(artifact)?;
                if self.is_a("artifact_types", own, at)? {
                    out.push(t);
                }
            }
        }
        Ok(out)
    }
}

/// The inheritance chain of type `start` in the type collection `types`
/// (`start` first, up to the last defined ancestor; a cycle stops it).
pub fn chain_in(types: Option<&Map>, start: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = start.to_string();
    while let Some(def) = types.and_then(|m| m.get(&cur)) {
        if out.contains(&cur) {
            break;
        }
        out.push(cur.clone());
        match def.get("derived_from").and_then(Node::as_str) {
            Some(p) if p != "tosca.entity.Root" => cur = p.to_string(),
            _ => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::doc;

    const TYPES: &str = "
tosca_definitions_version: tosca_variability_1_0
node_types:
  base: {derived_from: tosca.nodes.Root}
  mid: {derived_from: base}
  leaf: {derived_from: mid}
  orphan: {derived_from: missing}
  loop_a: {derived_from: loop_b}
  loop_b: {derived_from: loop_a}
  tosca.nodes.Root: {derived_from: tosca.entity.Root}
";

    #[test]
    fn is_a_walks_the_inheritance_chain() {
        let d = doc(TYPES);
        let g = crate::graph::build(&d).expect("builds");
        let t = TypeSystem::new(&d, &g);
        assert!(t.is_a("node_types", "leaf", "leaf").expect("walks"));
        assert!(t.is_a("node_types", "leaf", "base").expect("walks"));
        assert!(t
            .is_a("node_types", "leaf", "tosca.nodes.Root")
            .expect("walks"));
        assert!(!t.is_a("node_types", "base", "leaf").expect("walks"));
        assert!(!t.is_a("node_types", "loop_a", "base").expect("stops"));
        let missing = |start: &str| {
            t.is_a("node_types", start, "x")
                .unwrap_err()
                .message
                .clone()
        };
        assert_eq!(
            missing("nope"),
            "starting node_types \"nope\" has no definition"
        );
        assert_eq!(
            missing("orphan"),
            "node_types \"missing\" has no definition"
        );
        assert_eq!(
            t.is_a("artifact_types", "a", "b").unwrap_err().message,
            "starting artifact_types \"a\" has no definition"
        );
    }
}
