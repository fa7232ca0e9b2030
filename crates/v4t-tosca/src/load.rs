//! Reading a TOSCA file and everything it imports (TOSCA 2.0 §6.8, §17).
//!
//! Input: a [`Loader`] over the repository (a directory, a CSAR, files in
//! memory) and the repository path of the entry file; every text goes into
//! the caller's [`Sources`]. Output: [`Loaded`], every document
//! parsed once (the same file imported twice is one document, so its types
//! have one identity), the import edges with their namespaces, and the
//! problems found on the way.
//!
//! Invariants: every file is one document however often it is imported,
//! so the import graph in [`Loaded::imports`] may have cycles (files that
//! import each other, as ONAP's type libraries do: TOSCA does not forbid
//! it, and loading each file once gives the cycle one meaning); every walk
//! over it keeps a visited set; nothing is fetched from the
//! network (a remote URL is read from a local folder of the import map,
//! [`Elsewhere`], or reported as not fetched); paths are resolved by
//! `locate.rs` (`..` stays inside a CSAR, and leaves a directory on
//! disk only as far as its [`Loader`] allows).

use crate::keynames::{is_keyname, Entity};
use crate::section::Section;
use std::collections::{BTreeMap, HashMap, VecDeque};

use v4t_source::{join_import, within_root, Code, Loader, Sources};
use v4t_yaml::{MapRef, NodeRef, Root, SourceId, Span, ValueRef};

use crate::diag::{Diagnostics, Suggestions};
use crate::locate::{locate, strip_url_prefix, Place};
use crate::value::as_str;

/// A folder outside the repository that imports can reach, read through
/// its own [`Loader`].
pub struct Folder<'l> {
    /// How its files are named in diagnostics (`DIR/path`).
    pub shown: String,
    /// Reads its files (paths relative to the folder).
    pub files: Box<dyn Loader + 'l>,
}

/// Where imports that leave the repository are read from (the command
/// line's `--import-map` and `--profile-path`); nothing by default.
#[derive(Default)]
pub struct Elsewhere<'l> {
    /// Remote URL prefixes (`https://example.org/tosca/`) and the folder
    /// that holds what they name: `PREFIX/a/b.yaml` is its `a/b.yaml`.
    /// The longest matching prefix wins.
    pub import_map: Vec<(String, Folder<'l>)>,
    /// Folders whose files may define the profiles `profile:` imports name
    /// (searched after the bundled profiles and the repository, in order).
    pub profile_path: Vec<Folder<'l>>,
}

/// Index of a document in [`Loaded::docs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DocId(pub u32);

impl DocId {
    /// The position in [`Loaded::docs`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

pub use crate::grammar::Grammar;

/// One parsed TOSCA file.
#[derive(Debug)]
pub struct Document {
    /// The repository path, or `<bundled>/<file>` for bundled profiles.
    pub path: String,
    /// The text's id in the [`Sources`] the load was given.
    pub source: SourceId,
    /// The parsed YAML document: a [`Root::Doc`] when read from a text,
    /// the tree given to [`load_tree`].
    pub root: Root,
    /// `None` if the version key is missing or unknown (already reported).
    pub grammar: Option<Grammar>,
    /// The profile name this document's types belong to: its own `profile`
    /// keyname, else the one of the profile that imported it (§6.7.1).
    pub profile: Option<String>,
    /// A profile that ships with v4t.
    pub bundled: bool,
    /// The text is not YAML (reported; `root` is null).
    pub yaml_error: bool,
}

/// An import edge (explicit, or the implicit TOSCA 1.3 normative types).
#[derive(Clone, Debug)]
pub struct Import {
    /// The importing document.
    pub from: DocId,
    /// The imported document.
    pub target: DocId,
    /// The namespace the target's definitions go into (`None`: the root).
    pub namespace: Option<String>,
    /// The import definition (for messages).
    pub span: Span,
}

/// The result of loading: documents, import edges, problems.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The documents, the entry file first.
    pub docs: Vec<Document>,
    /// The import edges of all documents.
    pub imports: Vec<Import>,
    /// For each document, the indices into `imports` of its edges, in order.
    pub edges: Vec<Vec<usize>>,
    /// What went wrong while loading.
    pub diagnostics: Diagnostics,
    /// The import definitions that could not be followed (the importing
    /// document and the definition), whatever the reason.
    pub failed_imports: Vec<(DocId, Span)>,
    /// The document of each source.
    by_source: HashMap<SourceId, DocId>,
}

impl Loaded {
    /// The document `id`.
    pub fn doc(&self, id: DocId) -> &Document {
        &self.docs[id.index()]
    }

    /// The document a source (the [`SourceId`] of a node's span) belongs to.
    pub fn doc_of_source(&self, source: SourceId) -> Option<DocId> {
        self.by_source.get(&source).copied()
    }

    /// The ids of all documents, in load order.
    pub fn doc_ids(&self) -> impl Iterator<Item = DocId> {
        (0..self.docs.len() as u32).map(DocId)
    }

    /// The import edges leaving `id`.
    pub fn imports_of(&self, id: DocId) -> impl Iterator<Item = &Import> {
        self.edges[id.index()].iter().map(|&i| &self.imports[i])
    }

    /// The entry document (the file that was validated).
    pub const ENTRY: DocId = DocId(0);
}

/// At most this many files per load (hostile import graphs).
pub const MAX_DOCUMENTS: usize = 20_000;

/// Profiles that ship with v4t, by profile name.
pub const BUNDLED_PROFILES: &[(&str, &str, &str)] = &[
    (
        "org.oasis-open.simple:2.0",
        "<bundled>/simple-profile-2.0.yaml",
        include_str!("../profiles/simple-profile-2.0.yaml"),
    ),
    (
        "org.oasis-open.tosca.simple:2.0",
        "<bundled>/simple-profile-2.0.yaml",
        include_str!("../profiles/simple-profile-2.0.yaml"),
    ),
    // The Variability4TOSCA group and interface types (data for templates
    // v4t resolves; this crate itself knows nothing about variability).
    (
        "variability4tosca:1.0",
        "<bundled>/variability4tosca-1.0.yaml",
        include_str!("../profiles/variability4tosca-1.0.yaml"),
    ),
];

/// An import definition as written (§6.8.1).
struct ImportDef<'n> {
    url: Option<&'n str>,
    profile: Option<&'n str>,
    repository: Option<&'n str>,
    namespace: Option<&'n str>,
    /// The definition (where its errors point).
    span: Span,
}

/// The TOSCA Simple Profile 1.3 normative types, imported implicitly by every
/// TOSCA 1.1 to 1.3 file (1.3 §3.1).
pub const NORMATIVE_13: (&str, &str) = (
    "<bundled>/tosca-simple-profile-1.3.yaml",
    include_str!("../profiles/tosca-simple-profile-1.3.yaml"),
);

/// The TOSCA Simple Profile 1.0 normative types, imported implicitly by every
/// TOSCA 1.0 file: 1.0 names and hosts some of them differently (its
/// `tosca.capabilities.Container` holds the host resources, its storage
/// nodes are `tosca.nodes.BlockStorage` and `tosca.nodes.ObjectStorage`),
/// and type libraries written for 1.0 build on that.
pub const NORMATIVE_10: (&str, &str) = (
    "<bundled>/tosca-simple-profile-1.0.yaml",
    include_str!("../profiles/tosca-simple-profile-1.0.yaml"),
);

/// Whether `path` is one of the bundled normative type files of TOSCA 1.x.
pub(crate) fn is_normative_1x(path: &str) -> bool {
    path == NORMATIVE_13.0 || path == NORMATIVE_10.0
}

/// The types of TOSCA 1.x's non-normative chapter (1.3 §9: Docker, VM
/// image and template artifacts), which processors need not support:
/// loaded with every 1.x file but imported by none, a name resolves to them
/// only where no file defines it (and is warned about, `V4T141`).
pub const NON_NORMATIVE_1X: (&str, &str) = (
    "<bundled>/tosca-simple-profile-1.x-non-normative.yaml",
    include_str!("../profiles/tosca-simple-profile-1.x-non-normative.yaml"),
);

/// Why an import was not read.
enum Unread {
    /// A remote URL that no import map covers.
    Remote(String),
    /// A file that does not exist (the message).
    Missing(String),
    /// Anything else (the message).
    Failed(String),
}

/// Loads the file `entry` (a path the `files` loader can read) and,
/// transitively, everything it imports; every text goes into `sources`.
pub fn load(sources: &mut Sources, files: &mut dyn Loader, entry: &str) -> Loaded {
    load_with(sources, files, entry, Elsewhere::default())
}

/// [`load()`], with remote imports and profiles also read from the folders
/// of `elsewhere`.
pub fn load_with<'r>(
    sources: &'r mut Sources,
    files: &'r mut dyn Loader,
    entry: &str,
    elsewhere: Elsewhere<'r>,
) -> Loaded {
    let entry = normalize(entry.trim_start_matches('/'));
    let mut out = Imports::new(sources, files);
    out.elsewhere = elsewhere;
    let text = match out.files.read(&entry) {
        Ok(Some(text)) => text,
        Ok(None) => {
            out.error_at(
                Span::NONE,
                None,
                format!("cannot read `{entry}`: no such file"),
            );
            String::new()
        }
        Err(e) => {
            out.error_at(Span::NONE, None, format!("cannot read `{entry}`: {e}"));
            String::new()
        }
    };
    let id = out.sources.add_loaded(entry.clone(), text);
    out.run(id, entry)
}

/// Loads a text the caller already added to `sources` (its
/// [`v4t_source::SourceFile::path`], if any, places it in the repository;
/// imports are read through `files`).
pub fn load_source(sources: &mut Sources, files: &mut dyn Loader, entry: SourceId) -> Loaded {
    let path = sources
        .get(entry)
        .map(|f| {
            f.path
                .clone()
                .unwrap_or_else(|| f.name.rsplit('/').next().unwrap_or_default().to_string())
        })
        .unwrap_or_default();
    Imports::new(sources, files).run(entry, normalize(&path))
}

/// Loads a document already in hand (a resolved variable service template,
/// as a tree or a [`v4t_yaml::Doc`]): `root` is validated as the file
/// `path` of the repository `files` reads its imports from. Its nodes keep
/// their spans, so diagnostics point where the values were written.
pub fn load_tree(
    sources: &mut Sources,
    files: &mut dyn Loader,
    path: &str,
    root: impl Into<Root>,
) -> Loaded {
    let path = normalize(path.trim_start_matches('/'));
    let source = sources.add(format!("{path} (in memory)"), "");
    let mut imports = Imports::new(sources, files);
    let id = DocId(0);
    imports.by_key.insert(Place::Repo(path.clone()), id);
    imports.places.push(Place::Repo(path.clone()));
    imports.out.by_source.insert(source, id);
    imports.out.docs.push(Document {
        path,
        source,
        root: root.into(),
        grammar: None,
        profile: None,
        bundled: false,
        yaml_error: false,
    });
    imports.out.edges.push(Vec::new());
    imports.drain(id)
}

/// Loads a text given in memory (no files beside it: only bundled profiles
/// can be imported).
pub fn load_text(sources: &mut Sources, name: &str, text: &str) -> Loaded {
    let id = sources.add(name, text);
    load_source(sources, &mut v4t_source::NoFiles, id)
}

struct Imports<'r> {
    sources: &'r mut Sources,
    files: &'r mut dyn Loader,
    elsewhere: Elsewhere<'r>,
    out: Loaded,
    by_key: HashMap<Place, DocId>,
    /// Where each document is (by [`DocId`]).
    places: Vec<Place>,
    queue: VecDeque<DocId>,
    /// Profiles declared by files of the repository and of the profile
    /// folders (scanned on first need; the first declaration wins).
    profiles: Option<BTreeMap<String, Place>>,
    /// Whether the document whose imports are followed is a TOSCA 1.3 file
    /// (its errors cite TOSCA 1.3).
    v13: bool,
    /// The element path of the import definition being followed
    /// (`imports[2]`), named by its errors.
    element: String,
}

impl<'r> Imports<'r> {
    fn new(sources: &'r mut Sources, files: &'r mut dyn Loader) -> Imports<'r> {
        Imports {
            sources,
            files,
            elsewhere: Elsewhere::default(),
            out: Loaded::default(),
            by_key: HashMap::new(),
            places: Vec::new(),
            queue: VecDeque::new(),
            profiles: None,
            v13: false,
            element: String::new(),
        }
    }

    fn run(mut self, entry: SourceId, path: String) -> Loaded {
        let id = self.add(Place::Repo(path.clone()), path, entry, false);
        self.drain(id)
    }

    /// Loads everything `entry` imports, each file once.
    fn drain(mut self, entry: DocId) -> Loaded {
        self.queue.push_back(entry);
        while let Some(id) = self.queue.pop_front() {
            self.process(id);
        }
        self.broken_imports();
        self.out
    }

    /// The grammar of the importing file.
    fn grammar(&self) -> Grammar {
        if self.v13 {
            Grammar::Tosca13
        } else {
            Grammar::Tosca2
        }
    }

    /// An error of an import (`section`: the TOSCA 2.0 rule, cited as the
    /// importing file's grammar numbers it).
    fn error_at(&mut self, span: Span, section: impl Into<Option<Section>>, message: String) {
        let section = section.into().and_then(|s| s.cited(self.grammar()));
        self.out
            .diagnostics
            .error(Code::Import, section, span, self.element.clone(), message);
    }

    /// An error of an import with its own code (see [`Imports::error_at`]).
    fn error_coded(&mut self, code: Code, span: Span, section: Section, message: String) {
        let section = section.cited(self.grammar());
        self.out
            .diagnostics
            .error(code, section, span, self.element.clone(), message);
    }

    /// Registers and parses a document (YAML 1.2 core schema: TOSCA 2.0
    /// rejects implicit timestamps and `!!binary`, §9.1).
    fn add(&mut self, key: Place, path: String, source: SourceId, bundled: bool) -> DocId {
        let id = DocId(self.out.docs.len() as u32);
        let text = self
            .sources
            .get(source)
            .map(|f| f.text())
            .unwrap_or_default();
        let mut yaml_error = false;
        // Every duplicated key is reported; the rest of the file is still
        // checked (with the last value of each).
        let (root, errors) =
            match v4t_yaml::parse_doc_reporting_duplicates(text, source, v4t_yaml::Schema::Core) {
                Ok((doc, errors)) => (Root::Doc(doc), errors),
                Err(e) => {
                    yaml_error = true;
                    (Root::default(), vec![e])
                }
            };
        for e in errors {
            let message = format!("invalid YAML: {}", e.message);
            self.out
                .diagnostics
                .error(Code::Yaml, None, e.span, String::new(), message);
        }
        self.by_key.insert(key.clone(), id);
        self.places.push(key);
        self.out.by_source.insert(source, id);
        self.out.docs.push(Document {
            path,
            source,
            root,
            grammar: None,
            profile: None,
            bundled,
            yaml_error,
        });
        self.out.edges.push(Vec::new());
        id
    }

    /// Reads the version and the imports of one document and queues the
    /// imported documents.
    fn process(&mut self, id: DocId) {
        let grammar = self.grammar_of(id);
        self.out.docs[id.index()].grammar = grammar;
        self.v13 = grammar == Some(Grammar::Tosca13);
        let root = self.out.docs[id.index()].root.node();
        if let Some(p) = root.get("profile").and_then(as_str) {
            let p = p.to_string();
            self.out.docs[id.index()].profile = Some(p);
        }
        if grammar == Some(Grammar::Tosca13) {
            let root = self.out.docs[id.index()].root.node();
            let version = root.get("tosca_definitions_version").and_then(as_str);
            let (path, text) = match version {
                Some("tosca_simple_yaml_1_0") => NORMATIVE_10,
                _ => NORMATIVE_13,
            };
            let target = self.bundled_doc(path, text);
            if target != id {
                self.edge(id, target, None, Span::NONE);
                // `tosca:Compute` names the normative types in TOSCA 1.x.
                self.edge(id, target, Some("tosca".to_string()), Span::NONE);
            }
            if !self.out.docs[id.index()].bundled {
                self.bundled_doc(NON_NORMATIVE_1X.0, NON_NORMATIVE_1X.1);
            }
        }
        // A file of no known grammar is reported as such; what it imports
        // says nothing more (and may be written in another grammar's form).
        let Some(grammar) = grammar else {
            return;
        };
        // A copy: the imports are followed while documents are added.
        let imports = match self.out.docs[id.index()].root.node().get("imports") {
            Some(node) => node.to_node(),
            None => return,
        };
        let Some(list) = imports.as_seq() else {
            // The shape is reported by the grammar checks.
            return;
        };
        for (i, item) in list.iter().enumerate() {
            self.element = format!("imports[{i}]");
            let edges = self.out.edges[id.index()].len();
            self.import(id, grammar, NodeRef::from(item));
            if self.out.edges[id.index()].len() == edges {
                self.out.failed_imports.push((id, item.span));
            }
        }
        self.element.clear();
    }

    fn grammar_of(&mut self, id: DocId) -> Option<Grammar> {
        if self.out.docs[id.index()].yaml_error {
            return None;
        }
        let root = self.out.docs[id.index()].root.node();
        let span = root.span();
        let Some(map) = root.as_map() else {
            let what = if root.is_null() { "empty" } else { "not a map" };
            let path = self.out.docs[id.index()].path.clone();
            self.out.diagnostics.error(
                Code::DefinitionsVersion,
                Section::FileKeynames,
                span,
                String::new(),
                format!("`{path}` is not a TOSCA file: the document is {what}"),
            );
            return None;
        };
        let Some((key, value)) = map.get_entry("tosca_definitions_version") else {
            // An imported file is cited by its importer's grammar.
            let importer = self.out.imports.iter().find(|i| i.target == id);
            let grammar = importer.and_then(|i| self.out.docs[i.from.index()].grammar);
            self.out.diagnostics.error(
                Code::DefinitionsVersion,
                Section::DefinitionsVersion.cited(grammar.unwrap_or(Grammar::Tosca2)),
                span,
                String::new(),
                "the mandatory `tosca_definitions_version` keyname is missing",
            );
            return None;
        };
        let (key_span, value) = (key.span(), value.to_node());
        let first = map.first().map(|(k, _)| k.name()) == Some("tosca_definitions_version");
        let written = as_str(NodeRef::from(&value));
        let grammar = match written {
            Some("tosca_2_0") => Some(Grammar::Tosca2),
            Some(
                "tosca_simple_yaml_1_3"
                | "tosca_simple_yaml_1_2"
                | "tosca_simple_yaml_1_1"
                | "tosca_simple_yaml_1_0",
            ) => Some(Grammar::Tosca13),
            _ => {
                self.out.diagnostics.error(
                    Code::DefinitionsVersion,
                    Section::DefinitionsVersion,
                    value.span.or(key_span),
                    "tosca_definitions_version".to_string(),
                    format!(
                        "unsupported TOSCA version {}: expected `tosca_2_0` or `tosca_simple_yaml_1_0` to `tosca_simple_yaml_1_3`",
                        crate::value::show(NodeRef::from(&value))
                    ),
                );
                let written = written.unwrap_or_default();
                // The drafts of TOSCA Simple Profile 1.0 named it so; ONAP
                // and Alien4Cloud still write it.
                if written.starts_with("tosca_simple_yaml_1_0_0") {
                    self.out.diagnostics.note(
                        format!(
                            "`{written}` names a draft of TOSCA Simple Profile 1.0; the standard's \
                             version string is `tosca_simple_yaml_1_0`"
                        ),
                        None,
                    );
                } else if let Some(minor) = (written.strip_prefix("tosca_simple_yaml_1_"))
                    .and_then(|rest| rest.strip_suffix("_0"))
                    .filter(|minor| ["1", "2", "3"].contains(minor))
                {
                    // ONAP's policy framework writes `tosca_simple_yaml_1_1_0`.
                    self.out.diagnostics.note(
                        format!(
                            "TOSCA Simple Profile 1.{minor}'s version string is \
                             `tosca_simple_yaml_1_{minor}`"
                        ),
                        None,
                    );
                } else if written.starts_with("tosca_variability_") {
                    self.out.diagnostics.note(
                        "a Variability4TOSCA template is TOSCA once resolved: \
                         `v4t resolve TEMPLATE --validate` validates a variant, \
                         `v4t analyze TEMPLATE --validate` every variant",
                        None,
                    );
                }
                None
            }
        };
        if !first {
            self.out.diagnostics.error(
                Code::DefinitionsVersion,
                // A rule of TOSCA 2.0 (§6.1) that TOSCA 1.3 does not spell out.
                (grammar != Some(Grammar::Tosca13)).then_some(Section::FileKeynames),
                key_span,
                String::new(),
                "`tosca_definitions_version` must be the first keyname of a TOSCA file",
            );
        }
        grammar
    }

    /// Follows one import definition.
    fn import(&mut self, from: DocId, grammar: Grammar, item: NodeRef<'_>) {
        let Some(def) = self.import_definition(grammar, item) else {
            return;
        };
        let span = def.span;
        let namespace = def.namespace.map(str::to_string);
        if let Some(ns) = &namespace {
            if ns.is_empty() || ns.contains(char::is_whitespace) {
                self.error_at(
                    span,
                    Section::ImportDefinitions,
                    format!("invalid namespace name `{ns}`"),
                );
                return;
            }
        }
        let Some(target) = self.import_target(from, &def) else {
            return;
        };
        // Profile names propagate to imported files without their own (§6.7.1).
        if self.out.docs[target.index()].profile.is_none() {
            let inherited = self.out.docs[from.index()].profile.clone();
            if inherited.is_some()
                && self.out.docs[target.index()]
                    .root
                    .node()
                    .get("profile")
                    .is_none()
            {
                self.out.docs[target.index()].profile = inherited;
            }
        }
        // Several imports may share a namespace, as they share the root
        // namespace: a name two of them define differently is ambiguous
        // where it is used (§6.8.4: names are unique within a namespace).
        self.edge(from, target, namespace, span);
    }

    /// The fields of an import definition (§6.8.1; TOSCA 1.3: `file`,
    /// `namespace_prefix` and named imports), `None` after an error.
    fn import_definition<'n>(
        &mut self,
        grammar: Grammar,
        item: NodeRef<'n>,
    ) -> Option<ImportDef<'n>> {
        let span = item.span();
        let v13 = grammar == Grammar::Tosca13;
        let url_only = |url| ImportDef {
            url: Some(url),
            profile: None,
            repository: None,
            namespace: None,
            span,
        };
        match item.value() {
            ValueRef::String(s) => Some(url_only(s)),
            ValueRef::Map(map) if v13 && map.len() == 1 && map.get("file").is_none() => {
                // TOSCA 1.x named import: `- name: file` or `- name: {file: ..}`.
                let (_, inner) = map.first()?;
                match inner.value() {
                    ValueRef::String(s) => Some(url_only(s)),
                    ValueRef::Map(_) => self.import_definition(grammar, inner),
                    _ => {
                        self.error_at(
                            span,
                            Section::V13ImportDefinition,
                            "invalid import definition".to_string(),
                        );
                        None
                    }
                }
            }
            ValueRef::Map(map) => {
                if !self.import_keynames(map, v13) {
                    return None;
                }
                let (url_key, ns_key) = if v13 {
                    ("file", "namespace_prefix")
                } else {
                    ("url", "namespace")
                };
                let str_of = |k: &str| map.get(k).and_then(as_str);
                Some(ImportDef {
                    url: str_of(url_key),
                    profile: str_of("profile"),
                    repository: str_of("repository"),
                    namespace: str_of(ns_key),
                    span,
                })
            }
            _ => {
                self.error_at(
                    span,
                    Section::ImportDefinitions,
                    "an import definition must be a URL string or a map".to_string(),
                );
                None
            }
        }
    }

    /// Reports unknown keynames of an import definition; whether its values
    /// are strings (where they must be).
    fn import_keynames(&mut self, map: MapRef<'_>, v13: bool) -> bool {
        for (k, v) in map.iter() {
            let grammar = if v13 {
                Grammar::Tosca13
            } else {
                Grammar::Tosca2
            };
            let known = is_keyname(Entity::Import, grammar, k.name());
            if !known {
                let hint = match k.name() {
                    "file" => " (TOSCA 2.0 uses `url`)",
                    "namespace_prefix" => " (TOSCA 2.0 uses `namespace`)",
                    _ => "",
                };
                self.error_at(
                    k.span(),
                    Section::ImportDefinitions,
                    format!(
                        "unknown keyname `{}` in an import definition{hint}",
                        k.name()
                    ),
                );
            } else if !matches!(k.name(), "metadata") && !matches!(v.value(), ValueRef::String(_)) {
                self.error_at(
                    v.span().or(k.span()),
                    Section::ImportDefinitions,
                    format!("`{}` of an import definition must be a string", k.name()),
                );
                return false;
            }
        }
        true
    }

    /// The document an import definition names: a profile (§6.8.2.1) or a
    /// file of the repository (§6.8.2.2), `None` after an error.
    fn import_target(&mut self, from: DocId, def: &ImportDef<'_>) -> Option<DocId> {
        let span = def.span;
        let (url, profile) = match (def.url, def.profile) {
            (Some(_), Some(_)) => {
                self.error_at(
                    span,
                    Section::ImportDefinitions,
                    "an import definition must have either `url` or `profile`, not both"
                        .to_string(),
                );
                return None;
            }
            (None, None) => {
                self.error_at(
                    span,
                    Section::ImportDefinitions,
                    "an import definition needs `url` or `profile`".to_string(),
                );
                return None;
            }
            pair => pair,
        };
        if let Some(profile) = profile {
            if def.repository.is_some() {
                self.error_at(
                    span,
                    Section::ImportDefinitions,
                    "`repository` can only be used with `url`".to_string(),
                );
                return None;
            }
            let target = self.profile(profile);
            if target.is_none() {
                self.error_at(
                    span,
                    Section::ImportingProfiles,
                    format!("unknown profile `{profile}`"),
                );
                self.unknown_profile_notes(profile);
            }
            return target;
        }
        let url = url?;
        let repository = match def.repository {
            Some(name) => match self.repository_url(from, name) {
                Ok(base) => Some(base),
                Err(message) => {
                    self.error_at(span, Section::ImportingToscaFile, message);
                    return None;
                }
            },
            None => None,
        };
        let from_place = &self.places[from.index()];
        let place = match locate(from_place, url, repository.as_deref(), self.files.bounded()) {
            Ok(place) => place,
            Err(message) => {
                self.error_at(span, Section::ImportingToscaFile, message);
                return None;
            }
        };
        match self.doc_at_or_inside(place) {
            Ok(t) => Some(t),
            Err(Unread::Remote(url)) => {
                let message = format!(
                    "remote import `{url}` was not fetched: v4t reads nothing from the network"
                );
                self.error_coded(
                    Code::RemoteImport,
                    span,
                    Section::ImportingToscaFile,
                    message,
                );
                self.out.diagnostics.note(
                    "what it defines is unknown, so this file is not checked; `--import-map PREFIX=DIR` reads the URLs starting with PREFIX from the folder DIR",
                    None,
                );
                None
            }
            Err(Unread::Missing(message)) => {
                self.error_at(span, Section::ImportingToscaFile, message);
                if url.starts_with('/') && repository.is_none() {
                    // An absolute path on disk is the usual intent; TOSCA
                    // reads it from the root of the file's repository.
                    self.out.diagnostics.note(
                        "a URL that starts with `/` is a path from the root of the repository (a CSAR's root; on disk, the folder of the file v4t checks), not from the root of the file system: write a path relative to the importing file",
                        None,
                    );
                }
                None
            }
            Err(Unread::Failed(message)) => {
                self.error_at(span, Section::ImportingToscaFile, message);
                None
            }
        }
    }

    fn edge(&mut self, from: DocId, target: DocId, namespace: Option<String>, span: Span) {
        let index = self.out.imports.len();
        self.out.imports.push(Import {
            from,
            target,
            namespace,
            span,
        });
        self.out.edges[from.index()].push(index);
    }

    /// The document at `place`, read and queued on first use.
    fn doc_at(&mut self, place: Place) -> Result<DocId, Unread> {
        if let Some(&id) = self.by_key.get(&place) {
            return Ok(id);
        }
        if self.out.docs.len() >= MAX_DOCUMENTS {
            return Err(Unread::Failed(format!(
                "more than {MAX_DOCUMENTS} files imported"
            )));
        }
        // What was read, the name of the file in diagnostics (`None`: its
        // repository path) and the document's path in messages.
        let (read, shown, path) = match &place {
            Place::Repo(p) => (self.files.read(p), None, p.clone()),
            Place::Url(url) => {
                let Some((rest, folder)) = self.mapped(url) else {
                    return Err(Unread::Remote(url.clone()));
                };
                let shown = format!("{}/{rest}", folder.shown.trim_end_matches('/'));
                (folder.files.read(&rest), Some(shown), url.clone())
            }
            Place::Folder(i, p) => {
                let Some(folder) = self.elsewhere.profile_path.get_mut(*i) else {
                    return Err(Unread::Failed(format!("no profile folder for `{p}`")));
                };
                let shown = format!("{}/{p}", folder.shown.trim_end_matches('/'));
                (folder.files.read(p), Some(shown.clone()), shown)
            }
            Place::Bundled(p) => return Err(Unread::Failed(format!("`{p}` is bundled"))),
        };
        let what = match &shown {
            Some(s) if *s != path => format!("`{path}` (read from `{s}`)"),
            _ => format!("`{path}`"),
        };
        match read {
            Ok(Some(text)) => {
                let source = match shown {
                    None => self.sources.add_loaded(path.clone(), text),
                    Some(name) => self.sources.add(name, text),
                };
                let id = self.add(place, path, source, false);
                self.queue.push_back(id);
                Ok(id)
            }
            Ok(None) => Err(Unread::Missing(format!(
                "imported file {what} does not exist"
            ))),
            Err(e) => Err(Unread::Failed(format!(
                "cannot read imported file {what}: {e}"
            ))),
        }
    }

    /// [`Imports::doc_at`]; a path above the entry's directory on disk
    /// that names no file is looked for inside it too, as if the directory
    /// were a CSAR (`..` at its root stays there): how the TOSCA 2.0
    /// community suite places the files its examples import.
    fn doc_at_or_inside(&mut self, place: Place) -> Result<DocId, Unread> {
        let inside = match &place {
            Place::Repo(p) if p.starts_with("../") => Some(within_root(p).to_string()),
            _ => None,
        };
        match (self.doc_at(place), inside) {
            (Err(Unread::Missing(message)), Some(inside)) => {
                let found = self.doc_at(Place::Repo(inside));
                found.map_err(|_| Unread::Missing(message))
            }
            (found, _) => found,
        }
    }

    /// The folder of the import map that holds remote `url` (the longest
    /// matching prefix) and the path there.
    fn mapped(&mut self, url: &str) -> Option<(String, &mut Folder<'r>)> {
        let (rest, _, folder) = (self.elsewhere.import_map.iter_mut())
            .filter_map(|(prefix, f)| Some((strip_url_prefix(url, prefix)?, prefix.len(), f)))
            .max_by_key(|(_, len, _)| *len)?;
        Some((rest.to_string(), folder))
    }

    fn bundled_doc(&mut self, path: &'static str, text: &'static str) -> DocId {
        if let Some(&id) = self.by_key.get(&Place::Bundled(path)) {
            return id;
        }
        let source = self.sources.add(path, text);
        let id = self.add(Place::Bundled(path), path.to_string(), source, true);
        self.queue.push_back(id);
        id
    }

    /// The document defining profile `name`: a bundled profile, else a file
    /// of the repository whose `profile` keyname is `name`.
    /// What an unknown profile name may have meant, and where profiles come
    /// from.
    fn unknown_profile_notes(&mut self, name: &str) {
        let known: Vec<&str> = (BUNDLED_PROFILES.iter().map(|(n, _, _)| *n))
            .chain(
                self.profiles
                    .iter()
                    .flat_map(|r| r.keys().map(String::as_str)),
            )
            .collect();
        let note = match Suggestions::default().suggest_str(name, &known) {
            Some(s) => format!("did you mean `{s}`?"),
            None => {
                let bundled: Vec<String> = (BUNDLED_PROFILES.iter())
                    .map(|(n, _, _)| format!("`{n}`"))
                    .collect();
                format!(
                    "v4t bundles {}; a file of this repository (or of a folder given with `--profile-path`) defines a profile with `profile: <name>`",
                    bundled.join(", ")
                )
            }
        };
        self.out.diagnostics.note(note, None);
    }

    fn profile(&mut self, name: &str) -> Option<DocId> {
        if let Some((_, path, text)) = BUNDLED_PROFILES.iter().find(|(n, _, _)| *n == name) {
            return Some(self.bundled_doc(path, text));
        }
        if self.profiles.is_none() {
            let mut found = BTreeMap::new();
            for (name, path) in scan_profiles(self.files) {
                found.entry(name).or_insert(Place::Repo(path));
            }
            for (i, folder) in self.elsewhere.profile_path.iter_mut().enumerate() {
                for (name, path) in scan_profiles(folder.files.as_mut()) {
                    found.entry(name).or_insert(Place::Folder(i, path));
                }
            }
            self.profiles = Some(found);
        }
        let place = self.profiles.as_ref()?.get(name)?.clone();
        self.doc_at(place).ok()
    }

    /// The URL of repository `name` defined in document `from`, as written.
    fn repository_url(&self, from: DocId, name: &str) -> Result<String, String> {
        let def = self.out.docs[from.index()]
            .root
            .node()
            .get("repositories")
            .and_then(|r| r.get(name))
            .ok_or_else(|| format!("repository `{name}` is not defined in this file"))?;
        let url = match def.value() {
            ValueRef::String(s) => Some(s),
            _ => def.get("url").and_then(as_str),
        };
        url.map(str::to_string)
            .ok_or_else(|| format!("repository `{name}` has no URL"))
    }

    /// Reports every import of a file that is not a TOSCA file (not YAML,
    /// no or an unknown version) at the import: what the importing file
    /// uses from it is unknown (such errors are dropped, see
    /// `consequences.rs`); its own error is reported in it.
    fn broken_imports(&mut self) {
        for i in 0..self.out.imports.len() {
            let imp = &self.out.imports[i];
            let target = &self.out.docs[imp.target.index()];
            if target.grammar.is_some() || target.bundled || !imp.span.is_known() {
                continue;
            }
            let (span, from) = (imp.span, imp.from);
            let message = format!(
                "`{}` cannot be imported: it is not a TOSCA file",
                target.path
            );
            let note = format!("its own error is reported in `{}`", target.path);
            self.v13 = self.out.docs[from.index()].grammar == Some(Grammar::Tosca13);
            self.element.clear();
            self.error_coded(
                Code::BrokenImport,
                span,
                Section::ImportingToscaFile,
                message,
            );
            self.out.diagnostics.note(note, None);
        }
    }
}

/// The files of a tree that declare a profile: (profile name, path).
fn scan_profiles(files: &mut dyn Loader) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for path in files.files().into_iter().take(MAX_DOCUMENTS) {
        let name = path.rsplit('/').next().unwrap_or(&path);
        // Any visible file: profiles may be named after themselves
        // (`io.kubernetes`) rather than `*.yaml`.
        if name.starts_with('.') {
            continue;
        }
        let Ok(Some(text)) = files.read(&path) else {
            continue;
        };
        if !text.contains("profile:") || !text.contains("tosca_definitions_version") {
            continue;
        }
        let Ok(root) = v4t_yaml::parse(&text, SourceId(u32::MAX - 1)) else {
            continue;
        };
        if let Some(p) = NodeRef::from(&root).get("profile").and_then(as_str) {
            found.push((p.to_string(), path.clone()));
        }
    }
    found
}

/// Removes `.` and `..` segments (RFC 3986 §5.2.4: `..` at the root stays
/// at the root) and empty segments; a trailing `/` is kept.
pub fn normalize(path: &str) -> String {
    let mut s = within_root(&join_import(None, path.trim_start_matches('/'))).to_string();
    if path.ends_with('/') && !s.is_empty() {
        s.push('/');
    }
    s
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The document loaded from `path` (tests name their files uniquely).
    pub(crate) fn doc_named(loaded: &Loaded, path: &str) -> DocId {
        (loaded.doc_ids())
            .find(|&d| loaded.doc(d).path == path)
            .expect("a document of that path")
    }
    use crate::MemoryFiles;

    /// Loads in-memory files, the first being the entry (shared by the
    /// unit tests of the crate).
    pub(crate) fn load_files(files: &[(&str, &str)]) -> Loaded {
        let mut r = MemoryFiles::new();
        for (p, t) in files {
            r = r.with(p, t);
        }
        load(&mut Sources::new(), &mut r, files[0].0)
    }

    #[test]
    fn imports_are_loaded_once_also_in_cycles() {
        let loaded = load_files(&[
            (
                "main.yaml",
                "tosca_definitions_version: tosca_2_0\nimports: [a.yaml, b.yaml]\n",
            ),
            (
                "a.yaml",
                "tosca_definitions_version: tosca_2_0\nimports: [c.yaml]\n",
            ),
            (
                "b.yaml",
                "tosca_definitions_version: tosca_2_0\nimports: [c.yaml]\n",
            ),
            (
                "c.yaml",
                "tosca_definitions_version: tosca_2_0\nimports: [a.yaml]\n",
            ),
        ]);
        assert_eq!(loaded.docs.len(), 4);
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        // `c.yaml` keeps its import of `a.yaml`, which imports it.
        let c = doc_named(&loaded, "c.yaml");
        let targets: Vec<_> = loaded
            .imports_of(c)
            .map(|i| loaded.doc(i.target).path.as_str())
            .collect();
        assert_eq!(targets, ["a.yaml"]);
        let own = load_files(&[(
            "main.yaml",
            "tosca_definitions_version: tosca_2_0\nimports: [main.yaml]\n",
        )]);
        assert_eq!(own.docs.len(), 1);
        assert!(own.diagnostics.is_empty(), "{:?}", own.diagnostics);
    }

    #[test]
    fn import_errors_name_the_import_definition() {
        let loaded = load_files(&[(
            "main.yaml",
            "tosca_definitions_version: tosca_2_0\nimports:\n  - url: here.yaml\n  - url: missing.yaml\n",
        ), (
            "here.yaml",
            "tosca_definitions_version: tosca_2_0\n",
        )]);
        let found: Vec<_> = loaded
            .diagnostics
            .iter()
            .map(|d| (d.message.as_str(), d.element.as_deref()))
            .collect();
        assert_eq!(
            found,
            [(
                "imported file `missing.yaml` does not exist",
                Some("imports[1]")
            )]
        );
    }

    /// A missing import written from `/` says where `/` is: the root of
    /// the repository, not of the file system (an absolute path on disk is
    /// what is usually meant); a relative one needs no such note.
    #[test]
    fn a_missing_import_from_the_root_says_where_the_root_is() {
        for (url, noted) in [("/tmp/types.yaml", true), ("types.yaml", false)] {
            let text =
                format!("tosca_definitions_version: tosca_simple_yaml_1_3\nimports: [{url}]\n");
            let loaded = load_files(&[("main.yaml", &text)]);
            let missing: Vec<_> = (loaded.diagnostics.iter())
                .filter(|d| d.message.ends_with("does not exist"))
                .collect();
            assert_eq!(missing.len(), 1, "{url}");
            let note = missing[0]
                .notes
                .iter()
                .any(|n| n.message.contains("not from the root of the file system"));
            assert_eq!(note, noted, "{url}");
        }
    }

    #[test]
    fn profiles_are_found_in_the_repository() {
        let loaded = load_files(&[
            (
                "main.yaml",
                "tosca_definitions_version: tosca_2_0\nimports:\n- profile: io.example:1.0\n  namespace: ex\n",
            ),
            ("io.example", "tosca_definitions_version: tosca_2_0\nprofile: io.example:1.0\n"),
        ]);
        assert!(!loaded.diagnostics.has_errors(), "{:?}", loaded.diagnostics);
        assert_eq!(loaded.imports[0].namespace.as_deref(), Some("ex"));
        assert_eq!(loaded.doc(loaded.imports[0].target).path, "io.example");
    }

    #[test]
    fn a_file_of_no_known_version_has_its_imports_unread() {
        // ONAP's `tosca_simple_yaml_1_0_0` with the 1.0 drafts' imports.
        let loaded = load_files(&[(
            "main.yaml",
            "tosca_definitions_version: tosca_simple_yaml_1_0_0\nimports:\n- nope.yaml\n- other: {file: gone.yaml}\n",
        )]);
        let messages: Vec<_> = loaded
            .diagnostics
            .iter()
            .map(|d| d.message.as_str())
            .collect();
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(
            messages[0].starts_with("unsupported TOSCA version"),
            "{messages:?}"
        );
        assert_eq!(loaded.docs.len(), 1);
    }

    #[test]
    fn missing_files_unknown_profiles_and_remote_urls_are_errors() {
        let loaded = load_files(&[(
            "main.yaml",
            "tosca_definitions_version: tosca_2_0\nimports:\n- nope.yaml\n- profile: no.such:1\n- url: http://x/y.yaml\n- namespace: x\n",
        )]);
        let messages: Vec<_> = loaded
            .diagnostics
            .iter()
            .map(|d| d.message.clone())
            .collect();
        assert_eq!(messages.len(), 4, "{messages:?}");
    }

    /// A directory on disk: `..` may leave it.
    struct Disk(MemoryFiles);

    impl Loader for Disk {
        fn read(&mut self, path: &str) -> Result<Option<String>, String> {
            self.0.read(path)
        }
        fn lib_files(&mut self) -> Vec<String> {
            Vec::new()
        }
        fn bounded(&self) -> bool {
            false
        }
    }

    #[test]
    fn imports_leave_a_directory_on_disk_but_not_a_closed_repository() {
        let v2 = "tosca_definitions_version: tosca_2_0\n";
        let main = "tosca_definitions_version: tosca_2_0\nimports: [../types/t.yaml]\n";
        let files = MemoryFiles::new()
            .with("main.yaml", main)
            .with("../types/t.yaml", v2)
            .with("types/t.yaml", v2);
        let on_disk = load(&mut Sources::new(), &mut Disk(files.clone()), "main.yaml");
        assert!(
            !on_disk.diagnostics.has_errors(),
            "{:?}",
            on_disk.diagnostics
        );
        assert_eq!(on_disk.docs[1].path, "../types/t.yaml");
        let in_csar = load(&mut Sources::new(), &mut files.clone(), "main.yaml");
        assert_eq!(in_csar.docs[1].path, "types/t.yaml");
    }

    #[test]
    fn remote_imports_are_read_through_the_import_map_or_fail() {
        let main = "tosca_definitions_version: tosca_2_0\nimports:\n- https://x.org/t/a.yaml\n- https://y.org/b.yaml\n";
        let mirror = MemoryFiles::new()
            .with(
                "a.yaml",
                "tosca_definitions_version: tosca_2_0\nimports: [sub/c.yaml]\n",
            )
            .with("sub/c.yaml", "tosca_definitions_version: tosca_2_0\n");
        let elsewhere = Elsewhere {
            import_map: vec![(
                "https://x.org/t".to_string(),
                Folder {
                    shown: "mirror".to_string(),
                    files: Box::new(mirror),
                },
            )],
            profile_path: Vec::new(),
        };
        let mut sources = Sources::new();
        let mut files = MemoryFiles::new().with("main.yaml", main);
        let loaded = load_with(&mut sources, &mut files, "main.yaml", elsewhere);
        let paths: Vec<&str> = loaded.docs.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "main.yaml",
                "https://x.org/t/a.yaml",
                "https://x.org/t/sub/c.yaml"
            ]
        );
        let codes: Vec<Code> = loaded.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, [Code::RemoteImport]);
        assert_eq!(loaded.failed_imports.len(), 1);
        let shown = sources.get(loaded.docs[2].source).map(|f| f.name.as_str());
        assert_eq!(shown, Some("mirror/sub/c.yaml"));
    }

    #[test]
    fn profiles_are_found_on_the_profile_path() {
        let main = "tosca_definitions_version: tosca_2_0\nimports:\n- profile: p.one:1\n";
        let folder = MemoryFiles::new()
            .with("one.yaml", "tosca_definitions_version: tosca_2_0\nprofile: p.one:1\nimports:\n- profile: p.two:1\n")
            .with("two/p.yaml", "tosca_definitions_version: tosca_2_0\nprofile: p.two:1\n");
        let elsewhere = Elsewhere {
            import_map: Vec::new(),
            profile_path: vec![Folder {
                shown: "profiles".to_string(),
                files: Box::new(folder),
            }],
        };
        let mut files = MemoryFiles::new().with("main.yaml", main);
        let loaded = load_with(&mut Sources::new(), &mut files, "main.yaml", elsewhere);
        assert!(!loaded.diagnostics.has_errors(), "{:?}", loaded.diagnostics);
        let paths: Vec<&str> = loaded.docs.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(
            paths,
            ["main.yaml", "profiles/one.yaml", "profiles/two/p.yaml"]
        );
    }

    #[test]
    fn trees_in_hand_are_loaded_with_their_imports() {
        let mut files = MemoryFiles::new().with(
            "lib/t.yaml",
            "tosca_definitions_version: tosca_2_0\nnode_types: {T: {}}\n",
        );
        let root = v4t_yaml::parse(
            "tosca_definitions_version: tosca_2_0\nimports: [lib/t.yaml]\n",
            SourceId(7),
        )
        .unwrap();
        let loaded = load_tree(&mut Sources::new(), &mut files, "main.yaml", root);
        assert!(!loaded.diagnostics.has_errors(), "{:?}", loaded.diagnostics);
        assert_eq!(loaded.docs.len(), 2);
        assert_eq!(loaded.doc(loaded.imports[0].target).path, "lib/t.yaml");
    }

    #[test]
    fn the_version_must_be_first_and_known() {
        let loaded = load_text(
            &mut Sources::new(),
            "m.yaml",
            "description: x\ntosca_definitions_version: tosca_2_0\n",
        );
        assert!(loaded
            .diagnostics
            .iter()
            .any(|d| d.message.contains("first keyname")));
        let loaded = load_text(
            &mut Sources::new(),
            "m.yaml",
            "tosca_definitions_version: not_tosca\n",
        );
        let unsupported: Vec<_> = loaded
            .diagnostics
            .iter()
            .filter(|d| d.message.contains("unsupported"))
            .collect();
        assert_eq!(unsupported.len(), 1);
        assert!(unsupported
            .iter()
            .all(|d| d.notes.iter().all(|n| !n.message.contains("draft"))));
        // A draft's version string (ONAP, Alien4Cloud) says which one is meant.
        for draft in ["tosca_simple_yaml_1_0_0", "tosca_simple_yaml_1_0_0_wd03"] {
            let text = format!("tosca_definitions_version: {draft}\n");
            let loaded = load_text(&mut Sources::new(), "m.yaml", &text);
            let note = loaded
                .diagnostics
                .iter()
                .filter(|d| d.message.contains("unsupported"))
                .flat_map(|d| d.notes.iter())
                .any(|n| {
                    n.message
                        .contains("the standard's version string is `tosca_simple_yaml_1_0`")
                });
            assert!(note, "{draft}");
        }
        let text = "tosca_definitions_version: tosca_variability_1_0_rc_3\n";
        let loaded = load_text(&mut Sources::new(), "m.yaml", text);
        let note = loaded
            .diagnostics
            .iter()
            .flat_map(|d| d.notes.iter())
            .any(|n| n.message.contains("`v4t resolve TEMPLATE --validate`"));
        assert!(note, "a variability template");
        let loaded = load_text(&mut Sources::new(), "m.yaml", "");
        assert!(loaded
            .diagnostics
            .iter()
            .any(|d| d.message.contains("empty")));
    }
}
