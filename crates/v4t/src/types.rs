//! Entity types: the template's type system, which is the TOSCA layer's
//! ([`v4t_tosca::TypeSystem`]): one type system for the whole project, so
//! that an is-a walk, a hosting test and `v4t validate` agree on what a
//! type name means.
//!
//! Input: the loaded template. [`TypeFiles::load`] builds the documents the
//! types come from: a copy of the template's type definitions (on a TOSCA
//! 1.3 base with the category roots of part 1, 3.8, and the implicit TOSCA
//! 1.3 normative types; `lib/` types are already part of the template), on a
//! TOSCA 2.0 base with the template's imports (files, profiles,
//! namespaces). [`TypeSystem`] then answers the resolver's questions by type
//! identity: names are resolved as the template writes them (`s:Compute`,
//! TOSCA 1.3 short names), rule files and type-specific conditions in the
//! template's scope, names inside a type definition in its own file's.
//!
//! The type system is read once; the enricher does not change types, so
//! the technology rules, the condition enricher, the graph and the encoder
//! share it.

use std::cell::RefCell;

use crate::error::{bail, Error, Result};
use crate::kind::Kind;
use crate::version::Grammar;
use v4t_source::{Code, Loader, Severity, Sources};
use v4t_tosca::{DocId, Loaded, TypeId};
use v4t_yaml::hash::{SeededMap, SeededSet};
use v4t_yaml::{Doc, Key, Map, MapRef, Node, NodeRef, Root, SourceId, Span, Value};

/// The type collections the resolver asks about.
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
    /// `data_types` (with the built-in types).
    Data,
}

impl Collection {
    /// Every collection, in the order of the variants.
    const ALL: [Collection; 6] = [
        Collection::Node,
        Collection::Relationship,
        Collection::Artifact,
        Collection::Group,
        Collection::Policy,
        Collection::Data,
    ];

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

    /// The collection's key in a document.
    pub(crate) fn key(self) -> &'static str {
        self.kind().section()
    }

    fn kind(self) -> v4t_tosca::Kind {
        match self {
            Collection::Node => v4t_tosca::Kind::Node,
            Collection::Relationship => v4t_tosca::Kind::Relationship,
            Collection::Artifact => v4t_tosca::Kind::Artifact,
            Collection::Group => v4t_tosca::Kind::Group,
            Collection::Policy => v4t_tosca::Kind::Policy,
            Collection::Data => v4t_tosca::Kind::Data,
        }
    }
}

/// The eight type collections of a TOSCA document, with the root each
/// TOSCA 1.3 type without `derived_from` gets (part 1, 3.8).
pub(crate) const TYPE_COLLECTIONS: [(&str, &str); 8] = [
    ("artifact_types", "tosca.artifacts.Root"),
    ("capability_types", "tosca.capabilities.Root"),
    ("data_types", "tosca.datatypes.Root"),
    ("group_types", "tosca.groups.Root"),
    ("interface_types", "tosca.interfaces.Root"),
    ("node_types", "tosca.nodes.Root"),
    ("policy_types", "tosca.policies.Root"),
    // The TOSCA 1.3 name; the reference writes `tosca.relationship.Root`,
    // which does not exist (docs/spec-deviations.md).
    ("relationship_types", "tosca.relationships.Root"),
];

/// Gives every TOSCA 1.3 entity type of `doc` without `derived_from` its
/// category root (3.8).
pub(crate) fn add_category_roots(doc: &mut Node) {
    for (collection, root) in TYPE_COLLECTIONS {
        let Some(types) = doc.get_mut(collection).and_then(Node::as_map_mut) else {
            continue;
        };
        for (name, t) in types.iter_mut() {
            if name.name == root {
                continue;
            }
            if let Some(m) = t.as_map_mut() {
                if !m.get("derived_from").is_some_and(Node::is_defined) {
                    m.insert("derived_from", Node::string(root));
                }
            } else if t.is_null() {
                let mut m = Map::new();
                m.insert("derived_from", Node::string(root));
                t.value = Value::Map(m);
            }
        }
    }
}

/// The Variability4TOSCA keys of an import definition (a conditional
/// element), which TOSCA does not know.
const IMPORT_V4T_KEYS: [&str; 5] = [
    "conditions",
    "implies",
    "implied",
    "weight",
    "default_alternative",
];

/// The normative Variability4TOSCA group types (part 1, 5).
const V4T_GROUP_TYPES: [&str; 2] = [
    "variability.groups.Root",
    "variability.groups.ConditionalMembers",
];

/// The documents the template's types come from.
pub(crate) struct TypeFiles {
    loaded: Loaded,
    grammar: Grammar,
}

impl TypeFiles {
    /// Reads the type definitions of `doc` (the loaded template `id` of
    /// base grammar `grammar`) and, on a TOSCA 2.0 base, every file and
    /// profile it imports (whatever the import's conditions: types are
    /// needed before presence is decided). An import that cannot be
    /// followed is an error. The type collections move out of `doc` into
    /// the files (see [`TypeFiles::copy_types_into`]).
    pub(crate) fn load(
        doc: &mut Node,
        grammar: Grammar,
        sources: &mut Sources,
        id: SourceId,
        loader: &mut dyn Loader,
    ) -> Result<TypeFiles> {
        let path = crate::load::template_path(sources, id);
        // Read, never changed: in one arena (a flat 50 MB template's types
        // take 56 MB as a tree), unless they were assembled from several files.
        let tree = match Doc::from_tree(types_tree(doc, grammar), id) {
            Ok(doc) => Root::Doc(doc),
            Err(tree) => Root::Tree(tree),
        };
        let loaded = match grammar {
            Grammar::Tosca13 => {
                v4t_tosca::load_tree(sources, &mut v4t_source::NoFiles, &path, tree)
            }
            Grammar::Tosca2 => v4t_tosca::load_tree(sources, loader, &path, tree),
        };
        if let Some(d) = loaded.diagnostics.iter().find(|d| {
            d.severity == Severity::Error
                && matches!(
                    d.code,
                    Code::Import
                        | Code::RemoteImport
                        | Code::BrokenImport
                        | Code::Yaml
                        | Code::DefinitionsVersion
                )
        }) {
            let mut e = Error::coded(Code::Import, d.message.clone(), d.span);
            e.notes.extend(d.notes.iter().cloned());
            return Err(e);
        }
        Ok(TypeFiles { loaded, grammar })
    }

    /// Writes the type collections [`TypeFiles::load`] moved out of the
    /// template back into `root` (the template or a resolved template made
    /// from it), as copies, where `root` has their keys.
    pub(crate) fn copy_types_into(&self, root: &mut Map) {
        let Some(tree) = self
            .loaded
            .docs
            .first()
            .and_then(|d| d.root.node().as_map())
        else {
            return;
        };
        for (collection, _) in TYPE_COLLECTIONS {
            if let (Some(types), Some(slot)) = (tree.get(collection), root.get_mut(collection)) {
                *slot = types.to_node();
            }
        }
    }

    /// The type system over these documents.
    pub(crate) fn system(&self) -> TypeSystem<'_> {
        let ts = v4t_tosca::TypeSystem::build(&self.loaded);
        let mut known: [SeededSet<&str>; 6] = Default::default();
        for t in &ts.types {
            let Some(c) = Collection::ALL.iter().position(|c| c.kind() == t.kind) else {
                continue;
            };
            known[c].insert(t.name);
            if let Some((_, last)) = t.name.rsplit_once('.') {
                known[c].insert(last);
            }
        }
        TypeSystem {
            ts,
            files: self,
            grammar: self.grammar,
            known,
            memo: Default::default(),
        }
    }
}

/// The document the type system reads for `doc`: its definitions version,
/// repositories, TOSCA 2.0 imports (without V4T keys) and type definitions.
/// The type collections move out of `doc`: each key stays there with a
/// null value, which [`TypeFiles::copy_types_into`] fills for the
/// templates v4t writes; nothing else reads them from the document, and a
/// copy would cost what they take (a flat 50 MB template: 56 MB).
fn types_tree(doc: &mut Node, grammar: Grammar) -> Node {
    let mut tree = Map::new();
    let version = match grammar {
        Grammar::Tosca13 => "tosca_simple_yaml_1_3",
        Grammar::Tosca2 => "tosca_2_0",
    };
    tree.push(
        Key::new("tosca_definitions_version", Span::NONE),
        Node::string(version),
    );
    let Some(m) = doc.as_map_mut() else {
        return Node::map(tree);
    };
    if grammar == Grammar::Tosca2 {
        for key in ["repositories", "functions"] {
            if let Some((k, v)) = m.get_entry(key) {
                tree.push(k.clone(), v.clone());
            }
        }
        if let Some((k, imports)) = m.get_entry("imports") {
            let mut imports = imports.clone();
            for item in imports.as_seq_mut().into_iter().flatten() {
                if let Some(im) = item.as_map_mut() {
                    im.retain(|k, _| !IMPORT_V4T_KEYS.contains(&k.name.as_str()));
                }
            }
            tree.push(k.clone(), imports);
        }
    }
    for (collection, _) in TYPE_COLLECTIONS {
        let Some(key) = m.get_entry(collection).map(|(k, _)| k.clone()) else {
            continue;
        };
        if let Some(v) = m.get_mut(collection) {
            tree.push(key, std::mem::take(v));
        }
    }
    let mut tree = Node::map(tree);
    if grammar == Grammar::Tosca13 {
        add_category_roots(&mut tree);
    }
    tree
}

/// A broken rule as the input check words it, with where it is written.
fn broken_rule(broken: &v4t_tosca::check::Broken<'_>) -> (String, Span) {
    use v4t_tosca::check::Broken;
    match broken {
        Broken::Type(t) => {
            let shown = t
                .as_str()
                .map_or_else(|| v4t_yaml::json::to_json(*t), str::to_string);
            (format!("type \"{shown}\""), t.span())
        }
        Broken::EntrySchema(inner) => {
            let (rule, span) = broken_rule(inner);
            (format!("entry_schema {rule}"), span)
        }
        Broken::Clause(c) => (v4t_yaml::json::to_json(*c), c.span()),
    }
}

/// The type system of one template, by type identity.
pub(crate) struct TypeSystem<'t> {
    ts: v4t_tosca::TypeSystem<'t>,
    /// What it is built from: the template's type collections are there
    /// ([`TypeSystem::files`]).
    files: &'t TypeFiles,
    grammar: Grammar,
    /// Per [`Collection`]: the local names of the defined types and their
    /// last `.` segments (TOSCA 1.3 short names), so that a name no file
    /// defines is known to resolve to nothing without a lookup through the
    /// import tree (templates name thousands of undefined types).
    known: [SeededSet<&'t str>; 6],
    /// Names resolved in the template's scope, per [`Collection`].
    memo: [RefCell<SeededMap<String, Option<TypeId>>>; 6],
}

impl<'t> TypeSystem<'t> {
    /// The files the type system is built from.
    pub(crate) fn files(&self) -> &'t TypeFiles {
        self.files
    }

    /// The type `name` of collection `c` as the template writes it.
    pub(crate) fn resolve(&self, c: Collection, name: &str) -> Option<TypeId> {
        let memo = &self.memo[c as usize];
        if let Some(&found) = memo.borrow().get(name) {
            return found;
        }
        let last = name.rsplit_once(['.', ':']).map_or(name, |(_, l)| l);
        let known = &self.known[c as usize];
        if !known.contains(name) && !known.contains(last) {
            return None;
        }
        let found = self.ts.resolve_type(Loaded::ENTRY, c.kind(), name).ok();
        memo.borrow_mut().insert(name.to_string(), found);
        found
    }

    /// The type `name` of collection `c` as the file `doc` writes it.
    fn resolve_in(&self, c: Collection, doc: Option<DocId>, name: &str) -> Option<TypeId> {
        match doc {
            Some(d) if d != Loaded::ENTRY => self.ts.resolve_type(d, c.kind(), name).ok(),
            _ => self.resolve(c, name),
        }
    }

    /// Whether collection `c` defines type `name`.
    pub(crate) fn has(&self, c: Collection, name: &str) -> bool {
        self.resolve(c, name).is_some()
    }

    /// The local name of a type.
    pub(crate) fn name(&self, t: TypeId) -> &'t str {
        self.ts.get(t).name
    }

    /// The definition of a type (`None` for built-in data types).
    pub(crate) fn definition(&self, t: TypeId) -> Option<NodeRef<'t>> {
        self.ts.get(t).def
    }

    /// `t`, its parent, its grandparent, ... (finite).
    pub(crate) fn chain_of(&self, t: TypeId) -> impl Iterator<Item = TypeId> + '_ {
        self.ts.chain(t)
    }

    /// Whether type `start` of collection `c` is `target` or derives from
    /// it. `start` must be defined, and so must every type of its chain up
    /// to `target`; a `target` that is no defined type matches by name.
    pub(crate) fn is_a(&self, c: Collection, start: &str, target: &str) -> Result<bool> {
        let Some(first) = self.resolve(c, start) else {
            bail!(
                Span::NONE,
                "starting {} \"{start}\" has no definition",
                c.key()
            );
        };
        let wanted = self.resolve(c, target);
        for t in self.ts.chain(first) {
            if wanted.map_or(self.name(t) == target, |w| w == t) {
                return Ok(true);
            }
            let def = self.ts.get(t);
            if def.parent.is_none() {
                if let Some(parent) = self.unresolved_parent(t) {
                    bail!(Span::NONE, "{} \"{parent}\" has no definition", c.key());
                }
            }
        }
        Ok(false)
    }

    /// The `derived_from` of a type that names no type (a broken chain).
    fn unresolved_parent(&self, t: TypeId) -> Option<&'t str> {
        let parent = self.definition(t)?.get("derived_from")?.as_str()?;
        let root13 = self.grammar == Grammar::Tosca13 && parent == "tosca.entity.Root";
        (!root13).then_some(parent)
    }

    /// Whether group type `name` makes a variability group: it is, or
    /// derives from, `variability.groups.Root` or
    /// `variability.groups.ConditionalMembers` (part 1, 4.10 and 5: every
    /// variability-related group derives from the root), also when the
    /// types are not defined (TOSCA 1.3) or come from a namespace of the
    /// bundled Variability4TOSCA profile (`v4t:variability.groups.Root`).
    /// Such types are V4T-only, like their groups: the output drops them.
    pub(crate) fn is_variability_group(&self, name: &str) -> bool {
        match self.resolve(Collection::Group, name) {
            Some(t) => self.is_variability_group_type(t),
            None => V4T_GROUP_TYPES.contains(&name),
        }
    }

    /// [`TypeSystem::is_variability_group`] of a defined type (`false` for
    /// types of other kinds).
    pub(crate) fn is_variability_group_type(&self, t: TypeId) -> bool {
        self.ts.get(t).kind == v4t_tosca::Kind::Group
            && self.ts.chain(t).any(|x| {
                // A parent that is no defined type counts by name.
                let parent = self
                    .unresolved_parent(x)
                    .filter(|_| self.ts.get(x).parent.is_none());
                V4T_GROUP_TYPES.contains(&self.name(x))
                    || parent.is_some_and(|p| V4T_GROUP_TYPES.contains(&p))
            })
    }

    /// Whether node type `name` is abstract (`metadata.vintner_abstract`),
    /// `None` if it is not defined.
    pub(crate) fn is_abstract_node_type(&self, name: &str) -> Option<bool> {
        let t = self.resolve(Collection::Node, name)?;
        let written = self
            .definition(t)
            .and_then(|d| d.get("metadata"))
            .and_then(|m| m.get("vintner_abstract"));
        Some(written.and_then(NodeRef::as_str) == Some("true"))
    }

    /// The inheritance chain of a type as local names, starting with
    /// itself (for scenario priorities and messages).
    pub(crate) fn chain(&self, c: Collection, start: &str) -> Vec<&'t str> {
        self.resolve(c, start)
            .map(|t| self.ts.chain(t).map(|t| self.name(t)).collect())
            .unwrap_or_default()
    }

    /// The position of type `target` (as the template writes it) in the
    /// inheritance chain of `start`, which starts at 0.
    pub(crate) fn chain_position(&self, c: Collection, start: &str, target: &str) -> Option<usize> {
        let first = self.resolve(c, start)?;
        let wanted = self.resolve(c, target);
        self.ts
            .chain(first)
            .position(|t| wanted.map_or(self.name(t) == target, |w| w == t))
    }

    /// Whether a type named in the file `from` (`None`: the template) of
    /// collection `c`, `own`, is-a type `target` as the template writes it.
    pub(crate) fn named_is_a(
        &self,
        c: Collection,
        from: Option<TypeId>,
        own: &str,
        target: &str,
    ) -> Result<bool> {
        let doc = from.and_then(|t| self.ts.get(t).doc);
        match self.resolve_in(c, doc, own) {
            Some(t) => Ok(self.resolve(c, target).is_some_and(|w| self.ts.is_a(t, w))
                || self.ts.chain(t).any(|x| self.name(x) == target)),
            None if doc.is_none() || doc == Some(Loaded::ENTRY) => self.is_a(c, own, target),
            None => Ok(own == target),
        }
    }

    /// The data type that type `start` of collection `c` (or the first of
    /// its ancestors that declares one) declares for its property (or, with
    /// `section` `attributes`, attribute) `property`, resolved where it is
    /// declared.
    pub(crate) fn property_type(
        &self,
        c: Collection,
        start: &str,
        section: &str,
        property: &str,
    ) -> Option<TypeId> {
        let first = self.resolve(c, start)?;
        self.ts.chain(first).find_map(|t| {
            let def = self.ts.get(t);
            let declared = def
                .def?
                .get(section)?
                .get(property)?
                .get("type")?
                .as_str()?;
            self.resolve_in(Collection::Data, def.doc, declared)
        })
    }

    /// The entry of a map keyed by type names as the template writes them
    /// (type-specific conditions) that names type `t`: the key `name` itself
    /// if the map has it, else the first key that resolves to `t`.
    pub(crate) fn entry_for<'m>(
        &self,
        c: Collection,
        t: TypeId,
        name: &str,
        map: MapRef<'m>,
    ) -> Option<NodeRef<'m>> {
        if let Some(v) = map.get(name) {
            return Some(v);
        }
        map.iter()
            .find(|(k, _)| self.resolve(c, k.name()) == Some(t))
            .map(|(_, v)| v)
    }

    /// The files reachable from the template through its imports, where an
    /// import of the template itself counts only if `present` holds for the
    /// span of its definition (conditional imports); the template's own
    /// definitions are not a file of this set.
    pub(crate) fn reachable(&self, present: &dyn Fn(Span) -> bool) -> Vec<bool> {
        let loaded = self.ts.loaded;
        let mut seen = vec![false; loaded.docs.len()];
        let mut queue: Vec<DocId> = loaded
            .imports_of(Loaded::ENTRY)
            .filter(|e| present(e.span))
            .map(|e| e.target)
            .collect();
        while let Some(d) = queue.pop() {
            if std::mem::replace(&mut seen[d.index()], true) {
                continue;
            }
            queue.extend(loaded.imports_of(d).map(|e| e.target));
        }
        seen
    }

    /// Where the name of type `t` is written in its definition.
    pub(crate) fn span(&self, t: TypeId) -> Span {
        self.ts.get(t).span
    }

    /// The file that defines type `t` (`None`: built-in or the template).
    pub(crate) fn imported_from(&self, t: TypeId) -> Option<DocId> {
        self.ts.get(t).doc.filter(|&d| d != Loaded::ENTRY)
    }

    /// The types the template defines itself, with their kinds.
    pub(crate) fn own(&self) -> impl Iterator<Item = TypeId> + '_ {
        (0..self.ts.types.len() as u32)
            .map(TypeId)
            .filter(|&t| self.ts.get(t).doc == Some(Loaded::ENTRY))
    }

    /// The first rule of the parameter definition `definition` (a
    /// variability input's, written in the template) that `value` breaks,
    /// as text (`type "integer"`, `entry_schema type "integer"`, a clause as
    /// JSON) with where the rule is written: the TOSCA layer's data
    /// validation (built-in and data types, schemas, TOSCA 1.3
    /// `constraints`, TOSCA 2.0 `validation`).
    pub(crate) fn input_violation(
        &self,
        sources: &Sources,
        definition: NodeRef<'_>,
        value: &Node,
    ) -> Option<(String, Span)> {
        // A value is data: on TOSCA 2.0 a string starting with `$` is no
        // function call.
        let mut data = value.clone();
        if self.grammar == Grammar::Tosca2 {
            crate::functions::escape(&mut data);
        }
        let broken = v4t_tosca::check::parameter_violation(
            &self.ts,
            sources,
            Loaded::ENTRY,
            definition,
            NodeRef::from(&data),
        )?;
        Some(broken_rule(&broken))
    }

    /// The identity of a type: the profile (or file) defining it and its
    /// local name.
    pub(crate) fn identity(&self, t: TypeId) -> (String, &'t str) {
        self.ts.identity(t)
    }

    /// Every type of the template's scope's files of collection `c`, in load
    /// order (for hosting defaults).
    pub(crate) fn all(&self, c: Collection) -> impl Iterator<Item = TypeId> + '_ {
        let kind = c.kind();
        (0..self.ts.types.len() as u32)
            .map(TypeId)
            .filter(move |&t| self.ts.get(t).kind == kind && self.ts.get(t).doc.is_some())
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
";

    /// The type files of `d`, the file `text` written in `grammar` (no
    /// files beside it).
    fn load(mut d: Node, text: &str, grammar: Grammar) -> crate::Result<TypeFiles> {
        let mut sources = Sources::new();
        let id = sources.add("t.yaml", text);
        TypeFiles::load(&mut d, grammar, &mut sources, id, &mut v4t_source::NoFiles)
    }

    fn files(text: &str) -> TypeFiles {
        load(doc(text), text, Grammar::Tosca13).expect("loads")
    }

    #[test]
    fn is_a_walks_the_inheritance_chain() {
        let f = files(TYPES);
        let t = f.system();
        assert!(t.is_a(Collection::Node, "leaf", "leaf").expect("walks"));
        assert!(t.is_a(Collection::Node, "leaf", "base").expect("walks"));
        assert!(t
            .is_a(Collection::Node, "leaf", "tosca.nodes.Root")
            .expect("walks"));
        // TOSCA 1.3 short names name the same type.
        assert!(t.is_a(Collection::Node, "leaf", "Root").expect("walks"));
        assert!(!t.is_a(Collection::Node, "base", "leaf").expect("walks"));
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
    fn chains_stop_at_the_root_an_undefined_type_or_a_cycle() {
        let f = files(TYPES);
        let t = f.system();
        assert_eq!(
            t.chain(Collection::Node, "leaf"),
            ["leaf", "mid", "base", "tosca.nodes.Root"]
        );
        assert_eq!(t.chain(Collection::Node, "orphan"), ["orphan"]);
        assert_eq!(t.chain(Collection::Node, "loop_a").len(), 2);
        assert!(t.chain(Collection::Node, "nope").is_empty());
        assert_eq!(t.chain_position(Collection::Node, "leaf", "base"), Some(2));
    }

    /// Loading moves the type collections out of the template, keeping
    /// their keys; the files write them back where a template has the keys,
    /// with the category roots a TOSCA 1.3 type gets.
    #[test]
    fn type_collections_move_out_and_are_copied_back() {
        let mut d = doc(TYPES);
        let mut sources = Sources::new();
        let id = sources.add("t.yaml", TYPES);
        let f = TypeFiles::load(
            &mut d,
            Grammar::Tosca13,
            &mut sources,
            id,
            &mut v4t_source::NoFiles,
        )
        .expect("loads");
        assert_eq!(
            v4t_yaml::json::to_json(&d),
            r#"{"tosca_definitions_version":"tosca_variability_1_0","node_types":null}"#
        );
        let mut out = Map::new();
        out.insert("node_types", Node::null());
        out.insert("data_types", Node::null());
        f.copy_types_into(&mut out);
        let types = v4t_yaml::json::to_json(&Node::map(out));
        assert!(
            types.starts_with(r#"{"node_types":{"base":{"derived_from":"tosca.nodes.Root"},"mid""#),
            "{types}"
        );
        assert!(types.ends_with(r#""data_types":null}"#), "{types}");
        assert!(f
            .system()
            .is_a(Collection::Node, "leaf", "base")
            .expect("walks"));
    }

    /// The type files of the TOSCA 2.0 file `text` (no files beside it).
    fn load_tosca_20(text: &str) -> crate::Result<TypeFiles> {
        let d = v4t_yaml::parse_with(text, SourceId(0), v4t_yaml::Schema::Core).unwrap();
        load(d, text, Grammar::Tosca2)
    }

    #[test]
    fn tosca_2_imports_resolve_namespaced_names() {
        let text = "tosca_definitions_version: tosca_2_0
imports:
  - profile: org.oasis-open.simple:2.0
    namespace: s
    conditions: true
node_types:
  Web: {derived_from: s:WebServer}
service_template:
  node_templates: {}
";
        let f = load_tosca_20(text).expect("loads");
        let t = f.system();
        assert!(t.is_a(Collection::Node, "Web", "s:Root").expect("walks"));
        assert!(t
            .is_a(Collection::Node, "s:WebServer", "s:SoftwareComponent")
            .expect("walks"));
        assert!(!t.has(Collection::Node, "WebServer"));
        assert!(!t.has(Collection::Node, "tosca.nodes.Root"));
    }

    #[test]
    fn imports_that_cannot_be_followed_are_errors() {
        let text = "tosca_definitions_version: tosca_2_0
imports: [{profile: no.such:1.0}]
service_template:
  node_templates: {}
";
        let e = load_tosca_20(text).err().expect("fails");
        assert!(
            e.message.contains("unknown profile `no.such:1.0`"),
            "{}",
            e.message
        );
        assert_eq!(e.code, Code::Import);
    }
}
