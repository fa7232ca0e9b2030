//! Entity types: inheritance (is-a) walks over the template's type
//! collections, single-type access and the `managed` property of nodes
//! (part 1, sections 4.5 and 4.7).
//!
//! The type system is read once from the normalised document (every type
//! then has its `derived_from`); the enricher does not change types, so the
//! technology rules, the condition enricher and the encoder share it.

use crate::error::{bail, Result};
use crate::kind::Kind;
use v4t_yaml::hash::SeededMap;
use v4t_yaml::{Map, Node};

/// The type collections of the element kinds that have types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Collection {
    /// `node_types`.
    Node,
    /// `relationship_types`.
    Relationship,
    /// `artifact_types`.
    Artifact,
    /// `group_types`.
    Group,
    /// `policy_types`.
    Policy,
}

impl Collection {
    /// The type collection of elements of `kind`, if that kind has types.
    pub(crate) fn of(kind: Kind) -> Option<Collection> {
        Some(match kind {
            Kind::Node => Collection::Node,
            Kind::Relation => Collection::Relationship,
            Kind::Artifact => Collection::Artifact,
            Kind::Group => Collection::Group,
            Kind::Policy => Collection::Policy,
            _ => return None,
        })
    }

    const ALL: [Collection; 5] = [
        Collection::Node,
        Collection::Relationship,
        Collection::Artifact,
        Collection::Group,
        Collection::Policy,
    ];

    /// The collection's key in the document.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Collection::Node => "node_types",
            Collection::Relationship => "relationship_types",
            Collection::Artifact => "artifact_types",
            Collection::Group => "group_types",
            Collection::Policy => "policy_types",
        }
    }
}

/// The root every inheritance chain ends in.
const ROOT: &str = "tosca.entity.Root";

/// What the type system keeps of a type definition.
#[derive(Clone, Debug)]
struct TypeDef {
    /// `derived_from` if it is a string, else [`ROOT`].
    parent: String,
    /// Node types: `metadata.vintner_abstract` is `"true"` (4.5).
    vintner_abstract: bool,
    /// The declared data type of each property that has one (for
    /// type-specific conditions of properties, 9.4).
    property_types: Vec<(String, String)>,
}

/// The type collections of one template.
#[derive(Clone, Debug, Default)]
pub(crate) struct TypeSystem {
    /// By [`Collection`], in [`Collection::ALL`] order.
    collections: [SeededMap<String, TypeDef>; 5],
}

impl TypeSystem {
    /// Reads the type collections of `doc`.
    pub(crate) fn new(doc: &Node) -> TypeSystem {
        let mut t = TypeSystem::default();
        for (slot, c) in t.collections.iter_mut().zip(Collection::ALL) {
            let Some(types) = doc.get(c.key()).and_then(Node::as_map) else {
                continue;
            };
            for (name, def) in types.iter() {
                let parent = def
                    .get("derived_from")
                    .and_then(Node::as_str)
                    .unwrap_or(ROOT)
                    .to_string();
                let vintner_abstract = def
                    .get("metadata")
                    .and_then(|m| m.get("vintner_abstract"))
                    .and_then(Node::as_str)
                    == Some("true");
                let property_types = def
                    .get("properties")
                    .and_then(Node::as_map)
                    .into_iter()
                    .flat_map(Map::iter)
                    .filter_map(|(p, d)| {
                        let t = d.get("type").and_then(Node::as_str)?;
                        Some((p.name.to_string(), t.to_string()))
                    })
                    .collect();
                // The first definition of a name, as `Map::get` finds it.
                slot.entry(name.name.to_string()).or_insert(TypeDef {
                    parent,
                    vintner_abstract,
                    property_types,
                });
            }
        }
        t
    }

    fn collection(&self, c: Collection) -> &SeededMap<String, TypeDef> {
        &self.collections[c as usize]
    }

    /// Whether type `start` of collection `c` is `target` or derives from it.
    pub(crate) fn is_a(&self, c: Collection, start: &str, target: &str) -> Result<bool> {
        let types = self.collection(c);
        let Some(mut def) = types.get(start) else {
            bail!(
                Default::default(),
                "starting {} \"{start}\" has no definition",
                c.key()
            );
        };
        let mut cur = start;
        for _ in 0..=types.len() + 1 {
            if cur == target {
                return Ok(true);
            }
            let parent = def.parent.as_str();
            if parent == ROOT {
                return Ok(false);
            }
            let Some(parent_def) = types.get(parent) else {
                bail!(
                    Default::default(),
                    "{} \"{parent}\" has no definition",
                    c.key()
                );
            };
            (cur, def) = (parent, parent_def);
        }
        Ok(false)
    }

    /// Whether node type `name` is abstract (`metadata.vintner_abstract`),
    /// `None` if it is not defined.
    pub(crate) fn is_abstract_node_type(&self, name: &str) -> Option<bool> {
        self.collection(Collection::Node)
            .get(name)
            .map(|def| def.vintner_abstract)
    }

    /// Whether collection `c` defines type `name`.
    pub(crate) fn has(&self, c: Collection, name: &str) -> bool {
        self.collection(c).contains_key(name)
    }

    /// Whether type `name` of collection `c` is `target` or derives from it,
    /// as far as the chain of defined types shows: `false` where it breaks
    /// off or cycles (where [`TypeSystem::is_a`] is an error).
    pub(crate) fn derives_from(&self, c: Collection, name: &str, target: &str) -> bool {
        let types = self.collection(c);
        let mut current = name;
        for _ in 0..=types.len() {
            if current == target {
                return true;
            }
            match types.get(current) {
                Some(def) if def.parent != ROOT => current = &def.parent,
                _ => return false,
            }
        }
        false
    }

    /// The inheritance chain of a type, starting with itself (for scenario
    /// priorities); it stops at the root, an undefined type or a repetition.
    pub(crate) fn chain<'t>(&'t self, c: Collection, start: &'t str) -> Vec<&'t str> {
        let types = self.collection(c);
        let mut out: Vec<&str> = Vec::new();
        let mut cur = start;
        while let Some(def) = types.get(cur) {
            if out.contains(&cur) {
                break;
            }
            out.push(cur);
            match def.parent.as_str() {
                ROOT => break,
                p => cur = p,
            }
        }
        out
    }

    /// The data type that type `start` of collection `c` (or the first of its
    /// ancestors that declares one) declares for its property `property`.
    pub(crate) fn property_type(&self, c: Collection, start: &str, property: &str) -> Option<&str> {
        let types = self.collection(c);
        self.chain(c, start).into_iter().find_map(|t| {
            let def = types.get(t)?;
            let (_, declared) = def.property_types.iter().find(|(p, _)| p == property)?;
            Some(declared.as_str())
        })
    }
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
        let t = TypeSystem::new(&doc(TYPES));
        assert!(t.is_a(Collection::Node, "leaf", "leaf").expect("walks"));
        assert!(t.is_a(Collection::Node, "leaf", "base").expect("walks"));
        assert!(t
            .is_a(Collection::Node, "leaf", "tosca.nodes.Root")
            .expect("walks"));
        assert!(!t.is_a(Collection::Node, "base", "leaf").expect("walks"));
        assert!(!t.is_a(Collection::Node, "loop_a", "base").expect("stops"));
        let missing = |start: &str| {
            t.is_a(Collection::Node, start, "x")
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
            t.is_a(Collection::Artifact, "a", "b").unwrap_err().message,
            "starting artifact_types \"a\" has no definition"
        );
    }

    #[test]
    fn chains_stop_at_the_root_an_undefined_type_or_a_repetition() {
        let t = TypeSystem::new(&doc(TYPES));
        assert_eq!(
            t.chain(Collection::Node, "leaf"),
            ["leaf", "mid", "base", "tosca.nodes.Root"]
        );
        assert_eq!(t.chain(Collection::Node, "orphan"), ["orphan"]);
        assert_eq!(t.chain(Collection::Node, "loop_a"), ["loop_a", "loop_b"]);
        assert!(t.chain(Collection::Node, "nope").is_empty());
    }
}
