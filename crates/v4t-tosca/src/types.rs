//! The type system: every type of every loaded document in one arena,
//! addressed by [`TypeId`], with its parent, and name resolution through
//! the import tree (TOSCA 2.0 §6.4, §6.8.4).
//!
//! A type's identity is (defining document, local name): the same file
//! imported twice, under two namespaces or through two paths, defines its
//! types once. Names are resolved per document:
//!
//! 1. built-in data type names (reserved, §9.1);
//! 2. the document's own definitions;
//! 3. definitions imported into its root namespace (transitively; a
//!    document's own definition shadows what it imports), where two
//!    different definitions of one name are ambiguous;
//! 4. `ns:rest`: `rest` in the documents imported under namespace `ns`
//!    (nested namespaces `a:b:T` work the same way);
//! 5. TOSCA 1.3 only: the normative short names (`Compute`, `tosca:Compute`
//!    for `tosca.nodes.Compute`).
//!
//! Derivation cycles are reported and broken while building, so every walk
//! up a derivation chain terminates; nothing here recurses.

use crate::section::Section;
use std::cell::RefCell;
use std::collections::{HashSet, VecDeque};

use v4t_source::Code;
use v4t_yaml::hash::{SeededMap, SeededSet};

use v4t_yaml::{NodeRef, Span};

use crate::diag::{with_article, Diagnostics, Suggestions};
use crate::load::{is_normative_1x, DocId, Grammar, Loaded, NON_NORMATIVE_1X};
use crate::value::as_str;

/// The eight kinds of types (§6.4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// `artifact_types`.
    Artifact,
    /// `data_types`.
    Data,
    /// `capability_types`.
    Capability,
    /// `interface_types`.
    Interface,
    /// `relationship_types`.
    Relationship,
    /// `node_types`.
    Node,
    /// `group_types`.
    Group,
    /// `policy_types`.
    Policy,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 8] = [
        Kind::Artifact,
        Kind::Data,
        Kind::Capability,
        Kind::Interface,
        Kind::Relationship,
        Kind::Node,
        Kind::Group,
        Kind::Policy,
    ];

    /// The top-level keyname that defines types of this kind.
    pub fn section(self) -> &'static str {
        match self {
            Kind::Artifact => "artifact_types",
            Kind::Data => "data_types",
            Kind::Capability => "capability_types",
            Kind::Interface => "interface_types",
            Kind::Relationship => "relationship_types",
            Kind::Node => "node_types",
            Kind::Group => "group_types",
            Kind::Policy => "policy_types",
        }
    }

    /// `node type`, `data type`, ... for messages.
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Artifact => "artifact type",
            Kind::Data => "data type",
            Kind::Capability => "capability type",
            Kind::Interface => "interface type",
            Kind::Relationship => "relationship type",
            Kind::Node => "node type",
            Kind::Group => "group type",
            Kind::Policy => "policy type",
        }
    }

    /// The specification section of this kind of type (§6.4.3.x).
    pub fn spec_section(self) -> Section {
        match self {
            Kind::Artifact => Section::ArtifactType,
            Kind::Data => Section::DataType,
            Kind::Capability => Section::CapabilityType,
            Kind::Interface => Section::InterfaceType,
            Kind::Relationship => Section::RelationshipType,
            Kind::Node => Section::NodeType,
            Kind::Group => Section::GroupType,
            Kind::Policy => Section::PolicyType,
        }
    }

    /// The TOSCA 1.3 normative name prefix (`tosca.nodes.`).
    fn normative_prefix(self) -> &'static str {
        match self {
            Kind::Artifact => "tosca.artifacts.",
            Kind::Data => "tosca.datatypes.",
            Kind::Capability => "tosca.capabilities.",
            Kind::Interface => "tosca.interfaces.",
            Kind::Relationship => "tosca.relationships.",
            Kind::Node => "tosca.nodes.",
            Kind::Group => "tosca.groups.",
            Kind::Policy => "tosca.policies.",
        }
    }
}

/// The built-in data types (§9.1; TOSCA 1.3 §3.3 for the 1.3 ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `string`.
    String,
    /// `integer`: a YAML integer, never `1.0`.
    Integer,
    /// `float`.
    Float,
    /// `boolean`: `true` or `false` only.
    Boolean,
    /// `bytes` (2.0): base64 text.
    Bytes,
    /// `nil` (2.0).
    Nil,
    /// `timestamp`.
    Timestamp,
    /// `version`: `major.minor[.fix[.qualifier[-build]]]`.
    Version,
    /// The abstract scalar type (2.0), parent of every scalar type.
    Scalar,
    /// `list` (with `entry_schema`).
    List,
    /// `map` (with `key_schema` and `entry_schema`).
    Map,
    /// TOSCA 1.3 `range`: `[min, max]` of integers (max may be `UNBOUNDED`).
    Range,
    /// TOSCA 1.3 `scalar-unit.size`, `.time`, `.frequency`, `.bitrate`.
    ScalarUnit(ScalarUnit13),
}

/// The four built-in scalar-unit types of TOSCA 1.3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarUnit13 {
    /// `scalar-unit.size`.
    Size,
    /// `scalar-unit.time`.
    Time,
    /// `scalar-unit.frequency`.
    Frequency,
    /// `scalar-unit.bitrate`.
    Bitrate,
}

const BUILTINS_20: &[(&str, Builtin)] = &[
    ("string", Builtin::String),
    ("integer", Builtin::Integer),
    ("float", Builtin::Float),
    ("boolean", Builtin::Boolean),
    ("bytes", Builtin::Bytes),
    ("nil", Builtin::Nil),
    ("timestamp", Builtin::Timestamp),
    ("version", Builtin::Version),
    ("scalar", Builtin::Scalar),
    ("list", Builtin::List),
    ("map", Builtin::Map),
];

const BUILTINS_13: &[(&str, Builtin)] = &[
    ("string", Builtin::String),
    ("integer", Builtin::Integer),
    ("float", Builtin::Float),
    ("boolean", Builtin::Boolean),
    ("null", Builtin::Nil),
    ("timestamp", Builtin::Timestamp),
    ("version", Builtin::Version),
    ("range", Builtin::Range),
    ("list", Builtin::List),
    ("map", Builtin::Map),
    ("scalar-unit.size", Builtin::ScalarUnit(ScalarUnit13::Size)),
    ("scalar-unit.time", Builtin::ScalarUnit(ScalarUnit13::Time)),
    (
        "scalar-unit.frequency",
        Builtin::ScalarUnit(ScalarUnit13::Frequency),
    ),
    (
        "scalar-unit.bitrate",
        Builtin::ScalarUnit(ScalarUnit13::Bitrate),
    ),
];

/// Identifies a type in [`TypeSystem::types`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub u32);

impl TypeId {
    /// The position in [`TypeSystem::types`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One type.
#[derive(Clone, Debug)]
pub struct TypeDef<'a> {
    /// The kind of type.
    pub kind: Kind,
    /// The local name, as defined.
    pub name: &'a str,
    /// The defining document (`None` for built-in data types).
    pub doc: Option<DocId>,
    /// The definition (`None` for built-in data types).
    pub def: Option<NodeRef<'a>>,
    /// Where the type's name is written.
    pub span: Span,
    /// The type it derives from (`None` at a root, or where the name in
    /// `derived_from` resolves to no type).
    pub parent: Option<TypeId>,
    /// `derived_from` names no type (reported): what it inherits is
    /// unknown, so its definitions may be refinements.
    pub parent_unknown: bool,
    /// Which built-in data type it is or refines, if any.
    pub builtin: Option<Builtin>,
}

/// Where a definition may live: one of the type kinds, or functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// The types of one kind.
    Type(Kind),
    /// Function definitions (2.0 `functions`).
    Function,
    /// Repository definitions.
    Repository,
}

/// Why a name does not resolve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LookupError {
    /// No definition is visible under this name.
    NotFound,
    /// Several different definitions are visible under this name (their
    /// defining documents' paths).
    Ambiguous(Vec<String>),
}

/// An entry of a [`Space`]: a type, or the index of a function or
/// repository definition in [`TypeSystem::functions`] /
/// [`TypeSystem::repositories`].
pub type Entry = u32;

/// The result of a name lookup.
type Lookup = Result<Entry, LookupError>;

/// A named non-type definition (function or repository).
#[derive(Clone, Debug)]
pub struct NamedDef<'a> {
    /// The name, as defined.
    pub name: &'a str,
    /// The defining document.
    pub doc: DocId,
    /// The definition.
    pub def: NodeRef<'a>,
    /// Where the name is written.
    pub span: Span,
}

/// All types of a load, with name resolution.
pub struct TypeSystem<'a> {
    /// The documents the types come from.
    pub loaded: &'a Loaded,
    /// Every type, built-in data types first.
    pub types: Vec<TypeDef<'a>>,
    /// Every function definition.
    pub functions: Vec<NamedDef<'a>>,
    /// Every repository definition.
    pub repositories: Vec<NamedDef<'a>>,
    local: SeededMap<(DocId, Space, &'a str), Entry>,
    builtins_20: SeededMap<&'static str, TypeId>,
    builtins_13: SeededMap<&'static str, TypeId>,
    memo: RefCell<SeededMap<(DocId, Space, String), Lookup>>,
    /// Problems found while building (unknown parents, cycles, duplicates).
    pub diagnostics: Diagnostics,
}

impl<'a> TypeSystem<'a> {
    /// Collects the types of every document and resolves their parents.
    pub fn build(loaded: &'a Loaded) -> TypeSystem<'a> {
        let mut ts = TypeSystem {
            loaded,
            types: Vec::new(),
            functions: Vec::new(),
            repositories: Vec::new(),
            local: SeededMap::default(),
            builtins_20: SeededMap::default(),
            builtins_13: SeededMap::default(),
            memo: RefCell::new(SeededMap::default()),
            diagnostics: Diagnostics::new(),
        };
        for (tables, list) in [(0, BUILTINS_20), (1, BUILTINS_13)] {
            for &(name, b) in list {
                let id = ts.builtin_id(name, b);
                if tables == 0 {
                    ts.builtins_20.insert(name, id);
                } else {
                    ts.builtins_13.insert(name, id);
                }
            }
        }
        // Built-in subtypes: every scalar type is a scalar.
        let mut defined_13 = SeededMap::default();
        for doc in loaded.doc_ids() {
            ts.register(doc, &mut defined_13);
        }
        ts.resolve_parents();
        ts.break_cycles();
        ts
    }

    /// The built-in of that name, shared between the grammars where the
    /// built-in is the same.
    fn builtin_id(&mut self, name: &'static str, b: Builtin) -> TypeId {
        if let Some(t) = self
            .types
            .iter()
            .position(|t| t.builtin == Some(b) && t.name == name)
        {
            return TypeId(t as u32);
        }
        let id = TypeId(self.types.len() as u32);
        self.types.push(TypeDef {
            kind: Kind::Data,
            name,
            doc: None,
            def: None,
            span: Span::NONE,
            parent: None,
            parent_unknown: false,
            builtin: Some(b),
        });
        id
    }

    /// Registers the definitions of `doc`. A TOSCA 1.x type defined alike
    /// by an earlier 1.x file (`defined_13`: the types of those files by
    /// kind and name) is that type: 1.x puts types in one namespace per
    /// version, where definitions "with the same namespace URI, local name
    /// and version SHALL be equivalent" (§3.1 in 1.2), so two copies of a
    /// types file (an ETSI NFV package's own copy of the SOL001 types and
    /// the one its type files import by URL) are not two types.
    fn register(&mut self, doc: DocId, defined_13: &mut SeededMap<(Kind, &'a str), Vec<TypeId>>) {
        let document = self.loaded.doc(doc);
        let root = document.root.node();
        let v13 = document.grammar == Some(Grammar::Tosca13) && !document.bundled;
        let Some(map) = root.as_map() else { return };
        for kind in Kind::ALL {
            let Some(section) = map.get(kind.section()).and_then(NodeRef::as_map) else {
                continue;
            };
            for (key, def) in section.iter() {
                let id = TypeId(self.types.len() as u32);
                let name = key.name();
                if v13 {
                    let alike = defined_13.entry((kind, name)).or_default();
                    let same = alike.iter().copied().find(|t| {
                        let t = &self.types[t.index()];
                        t.doc != Some(doc)
                            && t.def.is_some_and(|d| d.value().deep_equal(def.value()))
                    });
                    if let Some(same) = same {
                        self.local.insert((doc, Space::Type(kind), name), same.0);
                        continue;
                    }
                    alike.push(id);
                }
                self.types.push(TypeDef {
                    kind,
                    name,
                    doc: Some(doc),
                    def: Some(def),
                    span: key.span(),
                    parent: None,
                    parent_unknown: false,
                    builtin: None,
                });
                self.local.insert((doc, Space::Type(kind), name), id.0);
            }
        }
        for (space, section) in [
            (Space::Function, "functions"),
            (Space::Repository, "repositories"),
        ] {
            let Some(defs) = map.get(section).and_then(NodeRef::as_map) else {
                continue;
            };
            for (key, def) in defs.iter() {
                let list = match space {
                    Space::Function => &mut self.functions,
                    _ => &mut self.repositories,
                };
                let entry = list.len() as u32;
                list.push(NamedDef {
                    name: key.name(),
                    doc,
                    def,
                    span: key.span(),
                });
                self.local.insert((doc, space, key.name()), entry);
            }
        }
    }

    fn resolve_parents(&mut self) {
        let mut visible: SeededMap<(DocId, Kind), Vec<String>> = SeededMap::default();
        let mut budget = Suggestions::default();
        for i in 0..self.types.len() {
            let t = &self.types[i];
            let (Some(doc), Some(def)) = (t.doc, t.def) else {
                continue;
            };
            let kind = t.kind;
            let Some(parent_node) = def.get("derived_from") else {
                continue;
            };
            let grammar = self.loaded.doc(doc).grammar;
            let Some(parent) = as_str(parent_node) else {
                // The shape is reported by the grammar checks.
                continue;
            };
            if grammar == Some(Grammar::Tosca13) && parent == "tosca.entity.Root" {
                continue;
            }
            match self.resolve_type(doc, kind, parent) {
                Ok(p) => {
                    self.types[i].parent = Some(p);
                    if self.is_non_normative(p) && !self.loaded.doc(doc).bundled {
                        self.diagnostics.warning(
                            Code::NonNormativeType,
                            Section::V13NonNormativeTypes,
                            parent_node.span(),
                            format!("{}.{}.derived_from", kind.section(), self.types[i].name),
                            non_normative_message(kind, parent),
                        );
                    }
                }
                // A file of no known grammar has its version error; which
                // types it could name is not known either.
                Err(_) if grammar.is_none() => self.types[i].parent_unknown = true,
                Err(e) => {
                    self.types[i].parent_unknown = true;
                    let message = self.lookup_message(doc, kind, parent, &e);
                    let span = parent_node.span();
                    self.diagnostics.error(
                        Code::UnknownType,
                        kind.spec_section()
                            .cited(grammar.unwrap_or(Grammar::Tosca2)),
                        span,
                        format!("{}.{}.derived_from", kind.section(), self.types[i].name),
                        message,
                    );
                    let notes = self.lookup_notes(doc, parent, &e);
                    let explained = !notes.is_empty();
                    for note in notes {
                        self.diagnostics.note(note, None);
                    }
                    if !explained && self.other_kind(doc, kind, parent).is_none() {
                        let names = visible
                            .entry((doc, kind))
                            .or_insert_with(|| self.visible_names(doc, kind));
                        if let Some(s) = budget.suggest(parent, names) {
                            self.diagnostics.note(format!("did you mean `{s}`?"), None);
                        }
                    }
                }
            }
        }
    }

    /// Reports every derivation cycle once and cuts it at the edge that
    /// closes it.
    fn break_cycles(&mut self) {
        let n = self.types.len();
        let mut state = vec![0u8; n]; // 0 new, 1 on the current chain, 2 done
        for start in 0..n {
            if state[start] != 0 {
                continue;
            }
            let mut chain = Vec::new();
            let mut cur = Some(start);
            while let Some(t) = cur {
                match state[t] {
                    0 => {
                        state[t] = 1;
                        chain.push(t);
                        cur = self.types[t].parent.map(TypeId::index);
                    }
                    1 => {
                        // `t` is on the chain: the last type derives back into it.
                        let last = *chain.last().expect("non-empty chain");
                        let def = &self.types[last];
                        let names: Vec<&str> = chain
                            [chain.iter().position(|&c| c == t).unwrap_or(0)..]
                            .iter()
                            .map(|&c| self.types[c].name)
                            .collect();
                        let span = def
                            .def
                            .and_then(|d| d.get("derived_from"))
                            .map(|n| n.span())
                            .unwrap_or(def.span);
                        let message = if names.len() == 1 {
                            format!("{} `{}` derives from itself", def.kind.noun(), def.name)
                        } else {
                            format!(
                                "{} derivation cycle: {} -> {}",
                                def.kind.noun(),
                                names.join(" -> "),
                                names[0]
                            )
                        };
                        let path = format!("{}.{}.derived_from", def.kind.section(), def.name);
                        let grammar = def.doc.and_then(|d| self.loaded.doc(d).grammar);
                        self.diagnostics.error(
                            Code::Definition,
                            Section::TypeDerivation.cited(grammar.unwrap_or(Grammar::Tosca2)),
                            span,
                            path,
                            message,
                        );
                        self.types[last].parent = None;
                        break;
                    }
                    _ => break,
                }
            }
            for t in chain {
                state[t] = 2;
            }
        }
    }

    /// The names by which document `doc` can refer to the types of `kind`
    /// (their own names, or namespaced ones), in definition order (the
    /// candidates of a "did you mean" note).
    pub fn visible_names(&self, doc: DocId, kind: Kind) -> Vec<String> {
        let namespaces: Vec<&str> = self
            .loaded
            .imports_of(doc)
            .filter_map(|i| i.namespace.as_deref())
            .collect();
        let mut out = Vec::new();
        for (i, t) in self.types.iter().enumerate() {
            if t.kind != kind {
                continue;
            }
            let id = TypeId(i as u32);
            let names = std::iter::once(t.name.to_string())
                .chain(namespaces.iter().map(|ns| format!("{ns}:{}", t.name)));
            out.extend(
                names
                    .filter(|n| self.resolve_type(doc, kind, n) == Ok(id))
                    .take(1),
            );
        }
        out
    }

    /// The type `id`.
    pub fn get(&self, id: TypeId) -> &TypeDef<'a> {
        &self.types[id.index()]
    }

    /// The built-in data type `name` of `grammar`.
    pub fn builtin(&self, grammar: Grammar, name: &str) -> Option<TypeId> {
        match grammar {
            Grammar::Tosca2 => self.builtins_20.get(name).copied(),
            Grammar::Tosca13 => self.builtins_13.get(name).copied(),
        }
    }

    /// The built-in `b` (the TOSCA 2.0 one where both grammars have it).
    pub fn builtin_type(&self, b: Builtin) -> Option<TypeId> {
        self.types
            .iter()
            .position(|t| t.builtin == Some(b))
            .map(|i| TypeId(i as u32))
    }

    /// Resolves a type name as written in document `doc`.
    pub fn resolve_type(&self, doc: DocId, kind: Kind, name: &str) -> Result<TypeId, LookupError> {
        if kind == Kind::Data {
            if let Some(g) = self.loaded.doc(doc).grammar {
                if let Some(b) = self.builtin(g, name) {
                    return Ok(b);
                }
            }
        }
        self.resolve(doc, Space::Type(kind), name).map(TypeId)
    }

    /// Resolves the name of a function or repository (or type) in `doc`.
    pub fn resolve(&self, doc: DocId, space: Space, name: &str) -> Result<Entry, LookupError> {
        let key = (doc, space, name.to_string());
        if let Some(r) = self.memo.borrow().get(&key) {
            return r.clone();
        }
        let mut result = self.resolve_uncached(doc, space, name);
        let v13 = self.loaded.doc(doc).grammar == Some(Grammar::Tosca13);
        if v13 && space == Space::Repository && result == Err(LookupError::NotFound) {
            // The one 1.x namespace has the repositories of every file of the
            // service template: a type library's artifacts name a repository
            // the templates that import it define (MiCADO's `docker_hub`).
            result = self.resolve_shared_13(space, name);
        }
        if let (Space::Type(kind), true) = (space, v13) {
            if result == Err(LookupError::NotFound) {
                result = self.resolve_normative(doc, kind, name);
                if result == Err(LookupError::NotFound) {
                    result = self.resolve_shared_13(space, name);
                }
                if result == Err(LookupError::NotFound) {
                    result = self.resolve_non_normative(kind, name);
                }
            }
            // A normative type another 1.x file of the service defines
            // explicitly: that definition replaces the implicit one in the
            // one namespace (as it does for the files that import it), so
            // the name means one type throughout (MiCADO's types redefine
            // `tosca.capabilities.Compute` in one file that another file's
            // requirements do not import). The normative types' own file
            // means its own types.
            if let Ok(e) = result {
                if !self.loaded.doc(doc).bundled && self.is_implicit_normative(space, e) {
                    if let Ok(explicit) = self.resolve_shared_13(space, self.types[e as usize].name)
                    {
                        result = Ok(explicit);
                    }
                }
            }
        }
        self.memo.borrow_mut().insert(key, result.clone());
        result
    }

    /// A TOSCA 1.x name its file's imports do not reach: 1.x puts every
    /// type (and repository) without a namespace URI in the one namespace
    /// of its version, and "imported type definitions with the same
    /// namespace URI, local name and version SHALL be equivalent" (1.x's
    /// namespace rules, §3.1 in 1.2), so the name means the definition any
    /// loaded 1.x file gives it (ETSI NFV's VNFD type files use the common
    /// types that only the descriptor imports, as tosca-parser reads them).
    fn resolve_shared_13(&self, space: Space, name: &str) -> Result<Entry, LookupError> {
        // Not the bundled types: each file has the normative types of its
        // own version, and the non-normative ones come last.
        let found: Vec<Entry> = (self.loaded.doc_ids())
            .filter(|&d| self.loaded.doc(d).grammar == Some(Grammar::Tosca13))
            .filter(|&d| !self.loaded.doc(d).bundled)
            .filter_map(|d| self.local.get(&(d, space, name)).copied())
            .collect();
        match found.as_slice() {
            [] => Err(LookupError::NotFound),
            [one] => Ok(*one),
            _ => Err(LookupError::Ambiguous(
                found.iter().map(|&e| self.entry_path(space, e)).collect(),
            )),
        }
    }

    fn resolve_uncached(&self, doc: DocId, space: Space, name: &str) -> Result<Entry, LookupError> {
        // Worklist of (document, remaining name): namespaces peel one prefix
        // per step, so the loop is bounded by the name's length.
        let mut found: Vec<Entry> = Vec::new();
        let mut work = vec![(doc, name)];
        let mut seen_work: SeededSet<(DocId, &str)> = SeededSet::default();
        while let Some((d, n)) = work.pop() {
            if !seen_work.insert((d, n)) {
                continue;
            }
            match self.in_root_namespace(d, space, n) {
                Ok(e) => {
                    if !found.contains(&e) {
                        found.push(e);
                    }
                    continue;
                }
                Err(LookupError::Ambiguous(paths)) => return Err(LookupError::Ambiguous(paths)),
                Err(LookupError::NotFound) => {}
            }
            let Some((ns, rest)) = n.split_once(':') else {
                continue;
            };
            if rest.is_empty() {
                continue;
            }
            for target in self.namespace_targets(d, ns) {
                work.push((target, rest));
            }
        }
        match found.len() {
            0 => Err(LookupError::NotFound),
            1 => Ok(found[0]),
            _ => Err(LookupError::Ambiguous(
                found.iter().map(|&e| self.entry_path(space, e)).collect(),
            )),
        }
    }

    /// `name` in the root namespace of `doc`: its own definition, else the
    /// definitions of its root imports (which shadow their own imports).
    fn in_root_namespace(
        &self,
        doc: DocId,
        space: Space,
        name: &str,
    ) -> Result<Entry, LookupError> {
        if let Some(&e) = self.local.get(&(doc, space, name)) {
            return Ok(e);
        }
        let mut found: Vec<Entry> = Vec::new();
        let mut visited = HashSet::from([doc]);
        let mut queue: VecDeque<DocId> = self.root_imports(doc).collect();
        // A 1.x file sees the normative types of its own version: those of
        // another version, which a file of that version it imports brings
        // along, are not its own (1.0 and 1.3 define the same names).
        let own = queue.iter().copied().find(|&d| self.is_normative_1x(d));
        while let Some(d) = queue.pop_front() {
            if !visited.insert(d) || own.is_some_and(|own| own != d && self.is_normative_1x(d)) {
                continue;
            }
            if let Some(&e) = self.local.get(&(d, space, name)) {
                if !found.contains(&e) {
                    found.push(e);
                }
                continue;
            }
            queue.extend(self.root_imports(d));
        }
        if found.len() > 1 {
            // TOSCA 1.3's normative types come in by no import definition:
            // a type of the same name a file imports explicitly replaces
            // them (the TC's own 1.3 type files import each other so).
            found.retain(|&e| !self.is_implicit_normative(space, e));
        }
        match found.len() {
            0 => Err(LookupError::NotFound),
            1 => Ok(found[0]),
            _ => Err(LookupError::Ambiguous(
                found.iter().map(|&e| self.entry_path(space, e)).collect(),
            )),
        }
    }

    /// A TOSCA 1.x name no file defines, among the non-normative types
    /// ([`crate::load::NON_NORMATIVE_1X`]): by full name or shorthand
    /// (`Container.Docker`, `tosca:Container.Docker`, 1.3 §9.2.1).
    fn resolve_non_normative(&self, kind: Kind, name: &str) -> Result<Entry, LookupError> {
        let doc = (self.loaded.doc_ids())
            .find(|&d| self.is_non_normative_doc(d))
            .ok_or(LookupError::NotFound)?;
        let short = name.strip_prefix("tosca:").unwrap_or(name);
        let full = format!("{}{short}", kind.normative_prefix());
        for n in [name, full.as_str()] {
            if let Some(&e) = self.local.get(&(doc, Space::Type(kind), n)) {
                return Ok(e);
            }
        }
        Err(LookupError::NotFound)
    }

    /// Whether `d` is the bundled file of TOSCA 1.x's non-normative types.
    fn is_non_normative_doc(&self, d: DocId) -> bool {
        self.loaded.doc(d).bundled && self.loaded.doc(d).path == NON_NORMATIVE_1X.0
    }

    /// Whether `t` is one of TOSCA 1.x's non-normative types, which
    /// processors need not support (a file that uses one is warned).
    pub fn is_non_normative(&self, t: TypeId) -> bool {
        (self.types[t.index()].doc).is_some_and(|d| self.is_non_normative_doc(d))
    }

    /// Whether entry `e` is a type of TOSCA 1.x's implicit normative types.
    fn is_implicit_normative(&self, space: Space, e: Entry) -> bool {
        let Space::Type(_) = space else {
            return false;
        };
        (self.types[e as usize].doc).is_some_and(|d| self.is_normative_1x(d))
    }

    /// Whether `d` is a bundled file of TOSCA 1.x normative types.
    fn is_normative_1x(&self, d: DocId) -> bool {
        self.loaded.doc(d).bundled && is_normative_1x(&self.loaded.doc(d).path)
    }

    fn root_imports(&self, doc: DocId) -> impl Iterator<Item = DocId> + '_ {
        self.loaded
            .imports_of(doc)
            .filter(|e| e.namespace.is_none())
            .map(|e| e.target)
    }

    /// The documents imported under namespace `ns` into the root namespace of
    /// `doc` (by `doc` or by the files it imports into its root namespace).
    fn namespace_targets(&self, doc: DocId, ns: &str) -> Vec<DocId> {
        let mut out = Vec::new();
        let mut visited = HashSet::new();
        let mut queue = VecDeque::from([doc]);
        while let Some(d) = queue.pop_front() {
            if !visited.insert(d) {
                continue;
            }
            for e in self.loaded.imports_of(d) {
                match &e.namespace {
                    Some(n) if n == ns => {
                        if !out.contains(&e.target) {
                            out.push(e.target);
                        }
                    }
                    Some(_) => {}
                    None => queue.push_back(e.target),
                }
            }
        }
        out
    }

    /// TOSCA 1.3 short and prefixed normative names: `Compute` and
    /// `tosca:Compute` for `tosca.nodes.Compute`, `Standard` for
    /// `tosca.interfaces.node.lifecycle.Standard`, `BlockStorage` for
    /// `tosca.nodes.Storage.BlockStorage`.
    fn resolve_normative(&self, doc: DocId, kind: Kind, name: &str) -> Result<Entry, LookupError> {
        let short = name.strip_prefix("tosca:").unwrap_or(name);
        let mut candidates = vec![format!("{}{short}", kind.normative_prefix())];
        if kind == Kind::Interface {
            candidates.push(format!("tosca.interfaces.node.lifecycle.{short}"));
            candidates.push(format!("tosca.interfaces.relationship.{short}"));
        }
        if kind == Kind::Data {
            candidates.push(format!("tosca.datatypes.network.{short}"));
        }
        if kind == Kind::Node {
            // 1.3 §5.9.10, §5.9.11: `ObjectStorage`, `BlockStorage`.
            candidates.push(format!("tosca.nodes.Storage.{short}"));
        }
        for c in candidates {
            if let Ok(e) = self.resolve_uncached(doc, Space::Type(kind), &c) {
                return Ok(e);
            }
        }
        Err(LookupError::NotFound)
    }

    fn entry_path(&self, space: Space, e: Entry) -> String {
        let doc = match space {
            Space::Type(_) => self.types[e as usize].doc,
            Space::Function => Some(self.functions[e as usize].doc),
            Space::Repository => Some(self.repositories[e as usize].doc),
        };
        doc.map(|d| self.loaded.doc(d).path.clone())
            .unwrap_or_else(|| "<built-in>".to_string())
    }

    /// A message for a failed type lookup, naming the kind the name has if
    /// it resolves as another kind of type.
    pub fn lookup_message(&self, doc: DocId, kind: Kind, name: &str, err: &LookupError) -> String {
        match err {
            LookupError::Ambiguous(_) => format!("{} `{name}` is ambiguous", kind.noun()),
            LookupError::NotFound => match self.other_kind(doc, kind, name) {
                Some(k) => format!(
                    "`{name}` is {}, not {}",
                    with_article(k.noun()),
                    with_article(kind.noun())
                ),
                None => format!("unknown {} `{name}`", kind.noun()),
            },
        }
    }

    /// The kind of type `name` names in `doc` where it does not name a type
    /// of `kind`.
    pub(crate) fn other_kind(&self, doc: DocId, kind: Kind, name: &str) -> Option<Kind> {
        Kind::ALL
            .into_iter()
            .filter(|&k| k != kind)
            .find(|&k| self.resolve_type(doc, k, name).is_ok())
    }

    /// Notes for a failed type lookup where the cause or the remedy is
    /// clear: where an ambiguous name is defined, or that a TOSCA 2.0 file
    /// naming a TOSCA 1.3 normative type has not imported a profile.
    pub fn lookup_notes(&self, doc: DocId, name: &str, err: &LookupError) -> Vec<String> {
        match err {
            LookupError::Ambiguous(paths) => {
                let paths: Vec<String> = paths.iter().map(|p| format!("`{p}`")).collect();
                vec![
                    format!("it is defined in {}", paths.join(" and ")),
                    "import one of them into a namespace".to_string(),
                ]
            }
            LookupError::NotFound if self.loaded.doc(doc).grammar == Some(Grammar::Tosca2) => {
                let profile =
                    "TOSCA 2.0 has no implicit normative types: define it, or import a profile";
                let bundled = "`org.oasis-open.simple:2.0`";
                if name.starts_with("scalar-unit.") {
                    vec![format!("{profile} ({bundled} has the scalar types `Size`, `Time`, `Frequency` and `Bitrate`)")]
                } else if let Some((group, _)) =
                    name.strip_prefix("tosca.").and_then(|n| n.split_once('.'))
                {
                    vec![format!(
                        "{profile} ({bundled} names its types without the `tosca.{group}.` prefix)"
                    )]
                } else {
                    Vec::new()
                }
            }
            LookupError::NotFound => match name {
                // TOSCA 1.0's names; 1.1 moved `ObjectStorage`, 1.2
                // `BlockStorage` (the TOSCA TC's type files of each version).
                "tosca.nodes.BlockStorage" | "tosca.nodes.ObjectStorage" => {
                    let new = name.replace("nodes.", "nodes.Storage.");
                    vec![format!("`{name}` is the name of TOSCA 1.0 (and 1.1 for `BlockStorage`); v4t checks TOSCA 1.1 to 1.3 files with the 1.3 normative types, which name it `{new}`, and 1.0 files with 1.0's")]
                }
                _ => Vec::new(),
            },
        }
    }

    /// Whether `t` is `ancestor` or derives from it.
    pub fn is_a(&self, t: TypeId, ancestor: TypeId) -> bool {
        self.chain(t).any(|c| c == ancestor)
            || (self.normative_twin(ancestor)).is_some_and(|twin| self.chain(t).any(|c| c == twin))
    }

    /// The normative type of another 1.x version with the name of normative
    /// type `t`: a TOSCA 1.0 file sees 1.0's normative types and a 1.3 file
    /// 1.3's, and where one imports the other (MiCADO's 1.0 templates
    /// import its 1.2 types), a name means one type to both: a 1.0
    /// `tosca.relationships.AttachesTo` is the one a 1.2 requirement asks
    /// for.
    fn normative_twin(&self, t: TypeId) -> Option<TypeId> {
        let def = &self.types[t.index()];
        let own = def.doc.filter(|&d| self.is_normative_1x(d))?;
        (self.loaded.doc_ids())
            .filter(|&d| d != own && self.is_normative_1x(d))
            .find_map(|d| self.local.get(&(d, Space::Type(def.kind), def.name)))
            .map(|&e| TypeId(e))
    }

    /// Whether `t` or a type it derives from names a parent that is no
    /// type: what `t` inherits is then not fully known.
    pub fn inherits_unknown(&self, t: TypeId) -> bool {
        self.chain(t).any(|c| self.types[c.index()].parent_unknown)
    }

    /// `t`, its parent, its grandparent, ... (finite: cycles are broken).
    pub fn chain(&self, t: TypeId) -> impl Iterator<Item = TypeId> + '_ {
        let mut cur = Some(t);
        let mut steps = 0usize;
        std::iter::from_fn(move || {
            let t = cur?;
            steps += 1;
            if steps > self.types.len() {
                return None;
            }
            cur = self.types[t.index()].parent;
            Some(t)
        })
    }

    /// The nearest built-in ancestor of a data type (`None`: a complex type).
    pub fn builtin_base(&self, t: TypeId) -> Option<Builtin> {
        self.chain(t).find_map(|c| self.types[c.index()].builtin)
    }

    /// The derivation depth of `t` (0 for a root type).
    pub fn depth(&self, t: TypeId) -> usize {
        self.chain(t).count() - 1
    }

    /// The identity of a type: the profile (or file) that defines it, and its
    /// local name.
    pub fn identity(&self, t: TypeId) -> (String, &'a str) {
        let def = &self.types[t.index()];
        let owner = match def.doc {
            None => "<built-in>".to_string(),
            Some(d) => {
                let doc = self.loaded.doc(d);
                doc.profile.clone().unwrap_or_else(|| doc.path.clone())
            }
        };
        (owner, def.name)
    }

    /// The first keyname `key` found walking up from `t` (inherited
    /// keynames such as `mime_type`, `data_type`, `units`).
    pub fn inherited(&self, t: TypeId, key: &str) -> Option<NodeRef<'a>> {
        self.chain(t)
            .find_map(|c| self.types[c.index()].def.and_then(|d| d.get(key)))
    }

    /// The type named `name` of kind `kind` defined locally in `doc`.
    pub fn local_type(&self, doc: DocId, kind: Kind, name: &str) -> Option<TypeId> {
        self.local
            .get(&(doc, Space::Type(kind), name))
            .map(|&e| TypeId(e))
    }
}

/// The warning for a use of one of TOSCA 1.x's non-normative types.
pub fn non_normative_message(kind: Kind, name: &str) -> String {
    format!(
        "{} `{name}` is one of TOSCA 1.x's non-normative types, which processors need not \
         support, and no file of the service template defines it: define or import it where \
         the template is to be portable",
        kind.noun()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::tests::{doc_named, load_files as system};
    use v4t_source::Sources;

    #[test]
    fn names_resolve_through_namespaces_and_local_definitions_shadow_imports() {
        let loaded = system(&[
            (
                "main.yaml",
                "tosca_definitions_version: tosca_2_0\nimports:\n- url: b.yaml\n  namespace: fileB\n- c.yaml\nnode_types:\n  MyNode: {}\n  Local: {derived_from: fileB:MyNode}\n",
            ),
            (
                "b.yaml",
                "tosca_definitions_version: tosca_2_0\nimports:\n- url: k.yaml\n  namespace: k8s\nnode_types:\n  MyNode: {}\n",
            ),
            ("c.yaml", "tosca_definitions_version: tosca_2_0\nnode_types:\n  MyNode: {}\n  FromC: {}\n"),
            ("k.yaml", "tosca_definitions_version: tosca_2_0\nnode_types:\n  Pod: {}\n"),
        ]);
        let ts = TypeSystem::build(&loaded);
        assert!(!ts.diagnostics.has_errors());
        let main = Loaded::ENTRY;
        let local = ts.resolve_type(main, Kind::Node, "MyNode").unwrap();
        assert_eq!(ts.get(local).doc, Some(main));
        let b = ts.resolve_type(main, Kind::Node, "fileB:MyNode").unwrap();
        assert_eq!(ts.loaded.doc(ts.get(b).doc.unwrap()).path, "b.yaml");
        assert!(ts.resolve_type(main, Kind::Node, "fileB:k8s:Pod").is_ok());
        assert!(ts.resolve_type(main, Kind::Node, "FromC").is_ok());
        assert!(ts.resolve_type(main, Kind::Node, "Pod").is_err());
        let l = ts.resolve_type(main, Kind::Node, "Local").unwrap();
        assert!(ts.is_a(l, b));
        assert!(!ts.is_a(l, local));
    }

    #[test]
    fn two_imports_of_one_name_are_ambiguous_but_one_file_imported_twice_is_not() {
        let loaded = system(&[
            (
                "main.yaml",
                "tosca_definitions_version: tosca_2_0\nimports: [a.yaml, b.yaml, c.yaml]\n",
            ),
            (
                "a.yaml",
                "tosca_definitions_version: tosca_2_0\nimports: [c.yaml]\nnode_types: {X: {}}\n",
            ),
            (
                "b.yaml",
                "tosca_definitions_version: tosca_2_0\nnode_types: {X: {}}\n",
            ),
            (
                "c.yaml",
                "tosca_definitions_version: tosca_2_0\nnode_types: {Y: {}}\n",
            ),
        ]);
        let ts = TypeSystem::build(&loaded);
        assert!(matches!(
            ts.resolve_type(Loaded::ENTRY, Kind::Node, "X"),
            Err(LookupError::Ambiguous(_))
        ));
        assert!(ts.resolve_type(Loaded::ENTRY, Kind::Node, "Y").is_ok());
    }

    #[test]
    fn files_importing_each_other_see_each_others_types() {
        // ONAP's type libraries: an index imports each part, each part the index.
        let loaded = system(&[
            (
                "index.yaml",
                "tosca_definitions_version: tosca_2_0\nimports: [nodes.yaml, data.yaml]\n",
            ),
            (
                "nodes.yaml",
                "tosca_definitions_version: tosca_2_0\nimports: [index.yaml]\nnode_types:\n  N:\n    properties: {d: {type: D}}\n",
            ),
            (
                "data.yaml",
                "tosca_definitions_version: tosca_2_0\nimports: [index.yaml]\ndata_types:\n  D: {derived_from: string}\n",
            ),
        ]);
        let ts = TypeSystem::build(&loaded);
        assert!(ts.diagnostics.is_empty(), "{:?}", ts.diagnostics);
        let nodes = doc_named(&loaded, "nodes.yaml");
        assert!(ts.resolve_type(nodes, Kind::Data, "D").is_ok());
        assert!(ts.resolve_type(Loaded::ENTRY, Kind::Node, "N").is_ok());
        assert_eq!(
            ts.resolve_type(nodes, Kind::Node, "Missing"),
            Err(LookupError::NotFound)
        );
    }

    #[test]
    fn derivation_cycles_and_unknown_parents_are_reported_and_broken() {
        let loaded = system(&[(
            "m.yaml",
            "tosca_definitions_version: tosca_2_0\nnode_types:\n  A: {derived_from: B}\n  B: {derived_from: A}\n  S: {derived_from: S}\n  U: {derived_from: Nope}\n  W: {derived_from: integer}\n",
        )]);
        let ts = TypeSystem::build(&loaded);
        let messages: Vec<_> = ts.diagnostics.iter().map(|d| d.message.clone()).collect();
        assert_eq!(messages.len(), 4, "{messages:?}");
        assert!(messages.iter().any(|m| m.contains("derives from itself")));
        assert!(messages.iter().any(|m| m.contains("cycle")));
        assert!(messages
            .iter()
            .any(|m| m.contains("`integer` is a data type, not a node type")));
        for t in 0..ts.types.len() {
            assert!(ts.chain(TypeId(t as u32)).count() <= ts.types.len());
        }
    }

    #[test]
    fn deep_derivation_chains_do_not_recurse() {
        let mut text =
            String::from("tosca_definitions_version: tosca_2_0\nnode_types:\n  T0: {}\n");
        for i in 1..20_000 {
            text.push_str(&format!("  T{i}: {{derived_from: T{}}}\n", i - 1));
        }
        let loaded = crate::load::load_text(&mut Sources::new(), "m.yaml", &text);
        let ts = TypeSystem::build(&loaded);
        assert!(!ts.diagnostics.has_errors());
        let last = ts
            .resolve_type(Loaded::ENTRY, Kind::Node, "T19999")
            .unwrap();
        let first = ts.resolve_type(Loaded::ENTRY, Kind::Node, "T0").unwrap();
        assert!(ts.is_a(last, first));
        assert_eq!(ts.depth(last), 19_999);
    }

    #[test]
    fn tosca_13_short_names_resolve_to_normative_types() {
        let loaded = crate::load::load_text(
            &mut Sources::new(),
            "m.yaml",
            "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  My: {derived_from: tosca:DBMS}\n  Other: {derived_from: Compute}\n",
        );
        let ts = TypeSystem::build(&loaded);
        assert!(!ts.diagnostics.has_errors(), "{:?}", ts.diagnostics);
        let my = ts.resolve_type(Loaded::ENTRY, Kind::Node, "My").unwrap();
        let dbms = ts
            .resolve_type(Loaded::ENTRY, Kind::Node, "tosca.nodes.DBMS")
            .unwrap();
        assert!(ts.is_a(my, dbms));
    }

    #[test]
    fn a_normative_type_one_13_file_redefines_is_that_type_in_every_13_file() {
        // `b.yaml` does not import `c.yaml`, whose definition of
        // `tosca.capabilities.Compute` replaces the normative one.
        let loaded = system(&[
            (
                "a.yaml",
                "tosca_definitions_version: tosca_simple_yaml_1_2\nimports: [b.yaml, c.yaml]\n",
            ),
            (
                "b.yaml",
                "tosca_definitions_version: tosca_simple_yaml_1_2\nnode_types:\n  App: {}\n",
            ),
            (
                "c.yaml",
                "tosca_definitions_version: tosca_simple_yaml_1_2\ncapability_types:\n  tosca.capabilities.Compute: {derived_from: tosca.capabilities.Container}\n",
            ),
        ]);
        let ts = TypeSystem::build(&loaded);
        let (b, c) = (doc_named(&loaded, "b.yaml"), doc_named(&loaded, "c.yaml"));
        for name in ["tosca.capabilities.Compute", "Compute", "tosca:Compute"] {
            let t = ts.resolve_type(b, Kind::Capability, name).unwrap();
            assert_eq!(ts.get(t).doc, Some(c), "{name}");
        }
        // Types it does not redefine stay normative.
        let container = ts
            .resolve_type(b, Kind::Capability, "tosca.capabilities.Container")
            .unwrap();
        assert!(ts.loaded.doc(ts.get(container).doc.unwrap()).bundled);
    }

    #[test]
    fn normative_types_of_1_0_and_a_later_1x_are_one_type_each() {
        // MiCADO: a 1.0 template imports 1.2 types whose requirements name
        // 1.3's normative types.
        let loaded = system(&[
            (
                "a.yaml",
                "tosca_definitions_version: tosca_simple_yaml_1_0\nimports: [b.yaml]\n",
            ),
            (
                "b.yaml",
                "tosca_definitions_version: tosca_simple_yaml_1_2\nrelationship_types:\n  Mount: {derived_from: tosca.relationships.AttachesTo}\n",
            ),
        ]);
        let ts = TypeSystem::build(&loaded);
        let b = doc_named(&loaded, "b.yaml");
        let attaches = "tosca.relationships.AttachesTo";
        let old = ts
            .resolve_type(Loaded::ENTRY, Kind::Relationship, attaches)
            .unwrap();
        let new = ts.resolve_type(b, Kind::Relationship, attaches).unwrap();
        assert_ne!(old, new, "each file sees its own version's types");
        assert!(ts.is_a(old, new) && ts.is_a(new, old));
        let mount = ts.resolve_type(b, Kind::Relationship, "Mount").unwrap();
        assert!(ts.is_a(mount, old));
        let connects = ts
            .resolve_type(
                Loaded::ENTRY,
                Kind::Relationship,
                "tosca.relationships.ConnectsTo",
            )
            .unwrap();
        assert!(!ts.is_a(mount, connects));
    }

    #[test]
    fn non_normative_13_types_come_after_every_file_by_name_or_shorthand() {
        let loaded = system(&[
            (
                "a.yaml",
                "tosca_definitions_version: tosca_simple_yaml_1_3\nimports: [b.yaml]\n",
            ),
            (
                "b.yaml",
                "tosca_definitions_version: tosca_simple_yaml_1_3\nartifact_types:\n  tosca.artifacts.Deployment.Image.VM.ISO: {derived_from: tosca.artifacts.Deployment.Image}\n",
            ),
        ]);
        let ts = TypeSystem::build(&loaded);
        let docker = ts
            .resolve_type(
                Loaded::ENTRY,
                Kind::Capability,
                "tosca.capabilities.Container.Docker",
            )
            .unwrap();
        assert!(ts.is_non_normative(docker));
        let container = ts
            .resolve_type(
                Loaded::ENTRY,
                Kind::Capability,
                "tosca.capabilities.Container",
            )
            .unwrap();
        assert!(ts.is_a(docker, container));
        let iso = ts
            .resolve_type(
                Loaded::ENTRY,
                Kind::Artifact,
                "tosca.artifacts.Deployment.Image.VM.ISO",
            )
            .unwrap();
        assert!(!ts.is_non_normative(iso), "the file's own definition wins");
        for short in ["Container.Docker", "tosca:Container.Docker"] {
            let t = ts.resolve_type(Loaded::ENTRY, Kind::Capability, short);
            assert_eq!(t, Ok(docker), "{short}");
        }
        // TOSCA 2.0 files do not see them.
        let v2 = system(&[("c.yaml", "tosca_definitions_version: tosca_2_0\n")]);
        let ts2 = TypeSystem::build(&v2);
        assert!(ts2
            .resolve_type(
                Loaded::ENTRY,
                Kind::Capability,
                "tosca.capabilities.Container.Docker"
            )
            .is_err());
    }

    #[test]
    fn a_13_repository_name_means_the_one_any_file_of_the_service_defines() {
        let loaded = system(&[
            (
                "a.yaml",
                "tosca_definitions_version: tosca_simple_yaml_1_0\nimports: [b.yaml]\nrepositories:\n  hub: https://hub.docker.com/\n",
            ),
            ("b.yaml", "tosca_definitions_version: tosca_simple_yaml_1_2\n"),
        ]);
        let ts = TypeSystem::build(&loaded);
        let b = doc_named(&loaded, "b.yaml");
        assert!(ts.resolve(b, Space::Repository, "hub").is_ok());
        assert!(ts.resolve(b, Space::Repository, "other").is_err());
        let two = system(&[
            ("c.yaml", "tosca_definitions_version: tosca_2_0\nimports: [d.yaml]\nrepositories:\n  hub: https://hub.docker.com/\n"),
            ("d.yaml", "tosca_definitions_version: tosca_2_0\n"),
        ]);
        let ts2 = TypeSystem::build(&two);
        let d = doc_named(&two, "d.yaml");
        assert!(
            ts2.resolve(d, Space::Repository, "hub").is_err(),
            "2.0 namespaces are per file"
        );
    }
}
