//! Validation of loaded TOSCA files against the specification.
//!
//! One `Checker` walks every document once: the file's keynames
//! (`file`), its type definitions (`types`), function definitions and
//! its service template (`template`), checking values against their data
//! types on the way (`data`), with function calls (`funcs`) and
//! validation clauses evaluated where their arguments are constants
//! (`eval`). Entity definitions seen through derivation chains (a
//! property refined in a derived node type) are merged by `defs`.
//!
//! Every diagnostic names the element path and the specification section.

mod data;
mod defs;
mod eval;
mod file;
mod funcs;
mod groups;
mod inherited;
mod literals;
mod param;
mod paths;
mod requirements;
mod substitution;
mod template;
mod types;
mod workflows;

use std::cell::RefCell;
use v4t_yaml::hash::SeededMap;

use v4t_source::{Code, Severity, Sources};
use v4t_yaml::{Form, KeyRef, MapRef, NodeRef, SeqRef, Span};

use crate::diag::{with_article, Diagnostics, ElementPath, Suggestions};
use crate::keynames::{keynames, Entity};
use crate::load::{DocId, Grammar, Loaded};
use crate::section::Section;
use crate::types::{non_normative_message, Kind, Space, TypeId, TypeSystem};
use crate::value::{self, Scalar};

pub use literals::{
    parse_scalar_literal, parse_timestamp, parse_version, TimestampValue, VersionValue,
};
pub use param::{parameter_violation, Broken};

/// Validates every document of a load; returns the load's, the type
/// system's and the checks' diagnostics together. `sources` are the texts
/// the load read (to see how values were written).
pub fn validate(ts: &TypeSystem<'_>, sources: &Sources) -> Diagnostics {
    let mut c = Checker::new(ts, sources);
    for doc in ts.loaded.doc_ids() {
        c.document(doc);
    }
    let mut all = Diagnostics::new();
    all.extend(ts.loaded.diagnostics.clone());
    all.extend(ts.diagnostics.clone());
    all.extend(c.diags);
    all
}

/// The walk over all documents, with the element path of the node in hand.
pub(crate) struct Checker<'t, 'a> {
    pub ts: &'t TypeSystem<'a>,
    pub loaded: &'a Loaded,
    pub diags: Diagnostics,
    pub path: ElementPath<'a>,
    /// The document being checked: names resolve in its scope.
    pub doc: DocId,
    pub grammar: Grammar,
    /// What `SELF`, template names and `$get_input` refer to here.
    pub fctx: funcs::FnCtx<'a>,
    /// The texts (to read back how a value or key was written).
    sources: &'t Sources,
    /// How deeply function calls are nested right now (bounded: arguments
    /// are checked recursively).
    pub call_depth: usize,
    /// Types named in the diagnostic being written whose names do not
    /// identify them in this document (see [`Checker::type_name`]).
    origins: RefCell<Vec<TypeId>>,
    /// The budget of "did you mean" notes.
    suggestions: Suggestions,
    /// The type (and function) names each document can use, by kind
    /// (computed for the first unknown name of that kind).
    names: SeededMap<(DocId, Space), Vec<String>>,
    /// Inherited property and attribute definitions by name (built for
    /// the first derived type that defines some).
    inherited: Option<inherited::Inherited<'a>>,
    /// The type being checked derives, directly or not, from a name that
    /// is no type (reported there): a definition without its mandatory
    /// keynames may refine an inherited one, so it is not reported.
    pub inherits_unknown: bool,
}

impl<'t, 'a> Checker<'t, 'a> {
    fn new(ts: &'t TypeSystem<'a>, sources: &'t Sources) -> Checker<'t, 'a> {
        Checker {
            ts,
            loaded: ts.loaded,
            diags: Diagnostics::new(),
            path: ElementPath::default(),
            doc: Loaded::ENTRY,
            grammar: Grammar::Tosca2,
            fctx: funcs::FnCtx::default(),
            sources,
            call_depth: 0,
            origins: RefCell::default(),
            suggestions: Suggestions::default(),
            names: SeededMap::default(),
            inherited: None,
            inherits_unknown: false,
        }
    }

    fn document(&mut self, doc: DocId) {
        let d = self.loaded.doc(doc);
        let Some(grammar) = d.grammar else {
            return;
        };
        self.doc = doc;
        self.grammar = grammar;
        self.path = ElementPath::default();
        let Some(root) = d.root.node().as_map() else {
            return;
        };
        self.file(root);
    }

    pub fn v13(&self) -> bool {
        self.grammar == Grammar::Tosca13
    }

    /// The file declares TOSCA 1.3 itself, not 1.0 to 1.2 (read with the
    /// 1.3 grammar): for the parts whose grammar only 1.3 settled.
    pub fn declares_13(&self) -> bool {
        self.v13()
            && self
                .loaded
                .doc(self.doc)
                .root
                .node()
                .as_map()
                .and_then(|m| m.get("tosca_definitions_version"))
                .and_then(value::as_str)
                == Some("tosca_simple_yaml_1_3")
    }

    /// An error about the element being checked, breaking the rule of
    /// TOSCA 2.0 `section` (cited as the file's grammar numbers it).
    pub fn error(&mut self, code: Code, section: Section, span: Span, message: impl Into<String>) {
        self.report(Severity::Error, code, section, span, message.into());
    }

    /// A warning about the element being checked (see [`Checker::error`]).
    pub fn warning(
        &mut self,
        code: Code,
        section: Section,
        span: Span,
        message: impl Into<String>,
    ) {
        self.report(Severity::Warning, code, section, span, message.into());
    }

    /// Reports that a name is not among the definitions in view, unless
    /// the type in view inherits from a name that is no type (reported
    /// there): the name may then be an inherited one. Whether it reported.
    pub fn undefined(&mut self, code: Code, section: Section, span: Span, message: String) -> bool {
        let unknown = self.inherits_unknown;
        self.undefined_unless(unknown, code, section, span, message)
    }

    /// As [`Checker::undefined`], for a name looked for in type `ty`
    /// rather than in the type in view.
    pub fn undefined_in(
        &mut self,
        ty: TypeId,
        code: Code,
        section: Section,
        span: Span,
        message: String,
    ) -> bool {
        let unknown = self.ts.inherits_unknown(ty);
        self.undefined_unless(unknown, code, section, span, message)
    }

    fn undefined_unless(
        &mut self,
        unknown: bool,
        code: Code,
        section: Section,
        span: Span,
        message: String,
    ) -> bool {
        if unknown {
            // Types named in the message would note the next diagnostic.
            self.origins.take();
            return false;
        }
        self.error(code, section, span, message);
        true
    }

    fn report(
        &mut self,
        severity: Severity,
        code: Code,
        section: Section,
        span: Span,
        message: String,
    ) {
        let path = self.path.render();
        let code = crate::diag::rule_code(code, section);
        let section = section.cited(self.grammar);
        self.diags
            .report(severity, code, section, span, path, message);
        let origins = self.origins.take();
        for (i, &t) in origins.iter().enumerate() {
            if !origins[..i].contains(&t) {
                self.origin_note(t);
            }
        }
    }

    /// A note on the last diagnostic: what to do, what was meant.
    pub fn note(&mut self, message: impl Into<String>) {
        self.diags.note(message, None);
    }

    /// A note on the last diagnostic about the place `span`.
    pub fn note_at(&mut self, message: impl Into<String>, span: Span) {
        self.diags.note(message, Some(span));
    }

    /// "`keyname` must be a boolean" at `v`, with the note of
    /// [`Checker::yaml11_boolean_note`].
    pub fn not_a_boolean(&mut self, v: NodeRef<'_>, keyname: &str, section: Section) {
        let message = format!("`{keyname}` must be a boolean");
        // A YAML 1.1 word has a code of its own, which `--warn` can lower
        // for a library written for PyYAML without hiding other shapes.
        let code = match yaml11_boolean(v) {
            Some(_) => Code::Yaml11Boolean,
            None => Code::InvalidShape,
        };
        self.error(code, section, v.span(), message);
        self.yaml11_boolean_note(v);
    }

    /// On the last diagnostic, where a boolean was expected: that `v`, a
    /// plain `yes`, `no`, `on`, `off`, `y` or `n`, is a string in YAML 1.2
    /// (which TOSCA uses) though YAML 1.1 readers take it for a boolean.
    pub fn yaml11_boolean_note(&mut self, v: NodeRef<'_>) {
        let Some((word, meant)) = yaml11_boolean(v) else {
            return;
        };
        self.note(format!(
            "`{word}` is a string in YAML 1.2, which TOSCA uses (YAML 1.1 readers such as \
             PyYAML read it as a boolean): write `{meant}`"
        ));
    }

    /// "did you mean ...?" on the last diagnostic, if one of `candidates`
    /// is close to `name`; whether there was one.
    pub fn did_you_mean<'c>(
        &mut self,
        name: &str,
        candidates: impl IntoIterator<Item = &'c str>,
    ) -> bool {
        let candidates: Vec<&str> = candidates.into_iter().collect();
        let Some(s) = self.suggestions.suggest_str(name, &candidates) else {
            return false;
        };
        self.note(format!("did you mean `{s}`?"));
        true
    }

    /// After "`name` is not a defined property" (or capability, input, ...):
    /// the defined name it most likely misspells, else the defined names if
    /// they are few.
    pub fn defined_names<'c>(
        &mut self,
        name: &str,
        defined: impl IntoIterator<Item = &'c str>,
        what: &str,
    ) {
        let mut defined: Vec<&str> = defined.into_iter().collect();
        if self.did_you_mean(name, defined.iter().copied()) {
            return;
        }
        defined.sort_unstable();
        defined.dedup();
        match defined.len() {
            0 => self.note(format!("no {what} is defined")),
            1..=8 => {
                let names: Vec<String> = defined.iter().map(|n| format!("`{n}`")).collect();
                self.note(format!("defined: {}", names.join(", ")));
            }
            _ => {}
        }
    }

    /// "did you mean ...?" for an unknown type or function name, among the
    /// names of that space this document can refer to; whether there was
    /// one.
    pub fn did_you_mean_name(&mut self, name: &str, space: Space) -> bool {
        let (doc, ts) = (self.doc, self.ts);
        if let Space::Type(kind) = space {
            if ts.other_kind(doc, kind, name).is_some() {
                return false; // the message says what kind of type it is
            }
        }
        let names = self
            .names
            .entry((doc, space))
            .or_insert_with(|| match space {
                Space::Type(kind) => ts.visible_names(doc, kind),
                _ => {
                    let defined = ts.functions.iter().map(|f| f.name);
                    let visible = defined.filter(|n| ts.resolve(doc, space, n).is_ok());
                    let built_in = funcs::BUILT_IN.iter().copied();
                    built_in.chain(visible).map(str::to_string).collect()
                }
            });
        let Some(s) = self.suggestions.suggest(name, names) else {
            return false;
        };
        let note = format!("did you mean `{s}`?");
        self.note(note);
        true
    }

    /// Where type `t`, named in the last diagnostic by a name that does not
    /// identify it in this file, is defined.
    fn origin_note(&mut self, t: TypeId) {
        let def = self.ts.get(t);
        let Some(doc) = def.doc else { return };
        let document = self.loaded.doc(doc);
        match &document.profile {
            Some(profile) if document.bundled => {
                self.note(format!("`{}` is defined in profile `{profile}`", def.name));
            }
            _ => self.note_at(
                format!("`{}` is defined in `{}`", def.name, document.path),
                def.span,
            ),
        }
    }

    /// Runs `f` with `key` pushed on the element path.
    pub fn at<R>(&mut self, key: &'a str, f: impl FnOnce(&mut Self) -> R) -> R {
        self.path.push(key);
        let r = f(self);
        self.path.pop();
        r
    }

    /// Runs `f` with index `i` pushed on the element path.
    pub fn at_index<R>(&mut self, i: usize, f: impl FnOnce(&mut Self) -> R) -> R {
        self.path.push_index(i);
        let r = f(self);
        self.path.pop();
        r
    }

    /// Runs `f` in the scope of document `doc` (names in definitions
    /// inherited from other files resolve where they were written).
    pub fn in_doc<R>(&mut self, doc: DocId, f: impl FnOnce(&mut Self) -> R) -> R {
        let (old_doc, old_grammar) = (self.doc, self.grammar);
        self.doc = doc;
        if let Some(g) = self.loaded.doc(doc).grammar {
            self.grammar = g;
        }
        let r = f(self);
        self.doc = old_doc;
        self.grammar = old_grammar;
        r
    }

    /// The value's kind as TOSCA sees it, integers as written.
    pub fn classify<'n>(&self, node: NodeRef<'n>) -> Scalar<'n> {
        // Only an integer's text counts: the first lookup of a text indexes
        // its lines, which a file without integers never needs.
        let written = value::reads_written(node)
            .then(|| self.written(node.span()))
            .flatten();
        value::classify_written(node, written)
    }

    /// What a value is, for "expected ..., got ..." messages: its kind and
    /// the value (numbers and booleans as written, strings quoted).
    pub fn got(&self, v: NodeRef<'_>) -> String {
        if value::out_of_range_integer(v, self.written(v.span())) {
            let written = self.written(v.span()).unwrap_or_default().trim();
            return format!("{written}, an integer beyond the 64-bit range");
        }
        let kind = value::describe(v);
        match self.classify(v) {
            Scalar::Null => kind.to_string(),
            Scalar::Int(_) | Scalar::Float(_) | Scalar::Bool(_) => {
                let written = self.written(v.span()).map(str::trim);
                let short = written.filter(|w| w.len() <= 40 && !w.contains('\n'));
                format!(
                    "{kind} {}",
                    short.map_or_else(|| value::show(v), str::to_string)
                )
            }
            _ => format!("{kind} {}", value::show(v)),
        }
    }

    /// The text a node or key was written as.
    pub fn written(&self, span: Span) -> Option<&'t str> {
        self.sources.text_of(span)
    }

    /// Whether a map key was written as a string (not `99:`, `1.0:` or a
    /// collection).
    pub fn key_is_string(&self, key: KeyRef<'_>) -> bool {
        key.tree().is_none() && value::key_written_as_string(self.written(key.span()))
    }

    /// Checks the keynames of a map against those of `entity` in the
    /// file's grammar (see [`Checker::keys_among`]).
    pub fn keys(&mut self, map: MapRef<'a>, entity: Entity, what: &str, section: Section) {
        let allowed: Vec<&str> = keynames(entity, self.grammar).collect();
        self.keys_among(map, &allowed, Some(entity), what, section);
    }

    /// Checks the keynames of a map against the allowed ones and reports
    /// unknown ones (with the TOSCA 2.0 name where a 1.3 name was used, and
    /// where a 1.3 file uses a key only an example of 1.3 shows on `entity`).
    ///
    /// `description` and `metadata` are allowed in every map-form grammar
    /// element of TOSCA 2.0 (§5.3, "except where explicitly noted"); where
    /// `allowed` does not list them, their shapes are checked here.
    pub fn keys_among(
        &mut self,
        map: MapRef<'a>,
        allowed: &[&str],
        entity: Option<Entity>,
        what: &str,
        section: Section,
    ) {
        for (k, v) in map.iter() {
            let common = !self.v13() && matches!(k.name(), "description" | "metadata");
            if common && !allowed.contains(&k.name()) {
                self.at(k.name(), |c| {
                    if k.name() == "description" {
                        c.description(v);
                    } else {
                        c.metadata(v);
                    }
                });
                continue;
            }
            if !allowed.contains(&k.name()) {
                let hint = if self.v13() {
                    hint_example_13(entity, k.name())
                } else {
                    hint_13(k.name())
                };
                self.error(
                    Code::UnknownKeyname,
                    section,
                    k.span(),
                    format!("unknown keyname `{}` in {what}{hint}", k.name()),
                );
                if hint.is_empty() {
                    let common: &[&str] = if self.v13() {
                        &[]
                    } else {
                        &["description", "metadata"]
                    };
                    let known = allowed.iter().chain(common).copied();
                    self.did_you_mean(k.name(), known);
                }
            }
        }
    }

    /// `node` as a map, or an error naming what was expected.
    pub fn expect_map(
        &mut self,
        node: NodeRef<'a>,
        what: &str,
        section: Section,
    ) -> Option<MapRef<'a>> {
        match node.as_map() {
            Some(m) => Some(m),
            None => {
                let got = value::describe(node);
                self.error(
                    Code::InvalidShape,
                    section,
                    node.span(),
                    format!("{what} must be a map, not {got}"),
                );
                None
            }
        }
    }

    /// A map or list section written with nothing (`inputs:`): an error
    /// in TOSCA 2.0 (its suite rejects it), a warning in TOSCA 1.x, whose
    /// files write it (ETSI NFV's types: `operations:` followed by
    /// comments; Tacker's `requirements:`) and which tosca-parser reads as
    /// empty.
    fn empty_section(&mut self, node: NodeRef<'a>, what: &str, section: Section) {
        let message = format!("{what} is empty");
        if self.v13() {
            self.warning(Code::InvalidShape, section, node.span(), message);
        } else {
            self.error(Code::InvalidShape, section, node.span(), message);
        }
        self.note("omit the keyname or give it entries");
    }

    /// `node` as a list, or an error naming what was expected (nothing
    /// written in TOSCA 1.x: see [`Checker::empty_section`]).
    pub fn expect_seq(
        &mut self,
        node: NodeRef<'a>,
        what: &str,
        section: Section,
    ) -> Option<SeqRef<'a>> {
        match node.as_seq() {
            Some(s) => Some(s),
            None if node.is_null() && self.v13() => {
                self.empty_section(node, what, section);
                None
            }
            None => {
                let got = value::describe(node);
                self.error(
                    Code::InvalidShape,
                    section,
                    node.span(),
                    format!("{what} must be a list, not {got}"),
                );
                None
            }
        }
    }

    /// `node` as a string, or an error naming what was expected.
    pub fn expect_str(
        &mut self,
        node: NodeRef<'a>,
        what: &str,
        section: Section,
    ) -> Option<&'a str> {
        match value::as_str(node) {
            Some(s) => Some(s),
            None => {
                let got = value::describe(node);
                self.error(
                    Code::InvalidShape,
                    section,
                    node.span(),
                    format!("{what} must be a string, not {got}"),
                );
                None
            }
        }
    }

    /// A list of strings (e.g. `valid_source_node_types`, `directives`).
    pub fn expect_str_list(
        &mut self,
        node: NodeRef<'a>,
        what: &str,
        section: Section,
    ) -> Vec<(&'a str, Span)> {
        let mut out = Vec::new();
        let Some(items) = self.expect_seq(node, what, section) else {
            return out;
        };
        for item in items {
            if let Some(s) = self.expect_str(item, &format!("an entry of {what}"), section) {
                out.push((s, item.span()));
            }
        }
        out
    }

    /// A map whose keys are names (type sections, node templates, ...):
    /// reports non-string and empty names; `null` and non-maps are errors.
    pub fn named_map(
        &mut self,
        node: NodeRef<'a>,
        what: &str,
        section: Section,
    ) -> Option<MapRef<'a>> {
        self.named_map_with(node, what, section, false)
    }

    /// Each entry of a named map (see [`Checker::named_map`]), checked by
    /// `f` with its name pushed on the element path.
    pub fn each_entry(
        &mut self,
        node: NodeRef<'a>,
        what: &str,
        section: Section,
        mut f: impl FnMut(&mut Self, &'a str, NodeRef<'a>),
    ) {
        let Some(map) = self.named_map(node, what, section) else {
            return;
        };
        for (k, v) in map.iter() {
            let name = k.name();
            self.at(name, |c| f(c, name, v));
        }
    }

    /// [`Checker::named_map`] whose keys may also be collections
    /// (`complex_keys`: the flow-sequence keys of substitution mappings,
    /// §15), which the caller checks.
    pub fn named_map_with(
        &mut self,
        node: NodeRef<'a>,
        what: &str,
        section: Section,
        complex_keys: bool,
    ) -> Option<MapRef<'a>> {
        if node.is_null() {
            self.empty_section(node, what, section);
            return None;
        }
        let map = self.expect_map(node, what, section)?;
        for (k, _) in map.iter() {
            if k.name().is_empty() {
                self.error(
                    Code::InvalidShape,
                    section,
                    k.span(),
                    format!("an entry of {what} has an empty name"),
                );
            } else if k.tree().is_some() && !complex_keys {
                let message = format!("the name `{}` in {what} must be a string", k.name());
                self.error(Code::InvalidShape, section, k.span(), message);
            } else if k.tree().is_none() && !self.key_is_string(k) {
                self.error(
                    Code::InvalidShape,
                    section,
                    k.span(),
                    format!(
                        "the name `{}` in {what} must be a string (quote it)",
                        k.name()
                    ),
                );
            }
        }
        Some(map)
    }

    /// Resolves a type name written in the current document; reports
    /// unknown names and names of another kind.
    pub fn resolve_type(
        &mut self,
        name: &str,
        kind: Kind,
        span: Span,
        section: Section,
    ) -> Option<TypeId> {
        match self.ts.resolve_type(self.doc, kind, name) {
            Ok(t) => {
                self.non_normative_use(t, span);
                Some(t)
            }
            Err(e) => {
                let message = self.ts.lookup_message(self.doc, kind, name, &e);
                self.error(Code::UnknownType, section, span, message);
                let notes = self.ts.lookup_notes(self.doc, name, &e);
                if notes.is_empty() {
                    self.did_you_mean_name(name, Space::Type(kind));
                }
                for note in notes {
                    self.note(note);
                }
                None
            }
        }
    }

    /// Warns where a file names one of TOSCA 1.x's non-normative types
    /// that no file defines (`t`, written at `span`).
    pub fn non_normative_use(&mut self, t: TypeId, span: Span) {
        if self.ts.is_non_normative(t) && !self.ts.loaded.doc(self.doc).bundled {
            let kind = self.ts.get(t).kind;
            let message = non_normative_message(kind, self.ts.get(t).name);
            self.warning(
                Code::NonNormativeType,
                Section::V13NonNormativeTypes,
                span,
                message,
            );
        }
    }

    /// Resolves a type name given as a node (which must be a string).
    pub fn type_ref(&mut self, node: NodeRef<'a>, kind: Kind, section: Section) -> Option<TypeId> {
        let name = self.expect_str(
            node,
            &format!("{} name", with_article(kind.noun())),
            section,
        )?;
        self.resolve_type(name, kind, node.span(), section)
    }

    /// The name of a type as this document writes it: its name, or the
    /// namespaced name (`k8s:Pod`) under which it is imported. A type the
    /// document cannot name (inherited from a file it does not import) is
    /// named as its own file names it, and where it is defined goes into a
    /// note of the next diagnostic.
    pub fn type_name(&self, t: TypeId) -> String {
        let def = self.ts.get(t);
        if def.doc.is_none() || self.ts.resolve_type(self.doc, def.kind, def.name) == Ok(t) {
            return def.name.to_string();
        }
        for import in self.loaded.imports_of(self.doc) {
            let Some(ns) = &import.namespace else {
                continue;
            };
            let name = format!("{ns}:{}", def.name);
            if self.ts.resolve_type(self.doc, def.kind, &name) == Ok(t) {
                return name;
            }
        }
        self.origins.borrow_mut().push(t);
        def.name.to_string()
    }
}

/// A hint for a key a TOSCA 1.3 file uses on `entity` that only a
/// non-normative example of 1.3 shows there.
fn hint_example_13(entity: Option<Entity>, name: &str) -> &'static str {
    match (entity, name) {
        (Some(Entity::NodeTemplate), "occurrences" | "instance_count") => {
            " (TOSCA 1.3 shows it on node templates only in the non-normative example \
             of §2.20; the grammar of §3.8.3 has no such keyname)"
        }
        _ => "",
    }
}

/// A hint for TOSCA 1.3 keynames used in a TOSCA 2.0 file.
fn hint_13(name: &str) -> &'static str {
    match name {
        "topology_template" => " (TOSCA 2.0 uses `service_template`)",
        "occurrences" => {
            " (TOSCA 2.0 uses `count_range` on requirements and `allocation` for capacity)"
        }
        "constraints" => " (TOSCA 2.0 uses `validation`)",
        "valid_target_types" => " (TOSCA 2.0 uses `valid_capability_types`)",
        "valid_source_types" => " (TOSCA 2.0 uses `valid_source_node_types`)",
        "namespace_prefix" => " (TOSCA 2.0 uses `namespace`)",
        "credential" => " (removed in TOSCA 2.0)",
        "deploy_path" => " (removed in TOSCA 2.0)",
        "preconditions" => " (TOSCA 2.0 uses `precondition`)",
        "schedule" | "target_filter" => " (removed in TOSCA 2.0)",
        // Spellings used in examples of the specification (§14.3.5, §10.2.1.8).
        "allocations" => " (the keyname is `allocation`)",
        "directive" => " (the keyname is `directives`)",
        "get_input" | "get_property" | "get_attribute" | "concat" | "get_artifact" => {
            " (TOSCA 2.0 functions start with `$`)"
        }
        _ => "",
    }
}

/// `v` if it is a plain YAML 1.1 boolean word (`yes`, `no`, `on`, `off`,
/// `y`, `n` in their three cases), with the boolean YAML 1.1 reads.
fn yaml11_boolean(v: NodeRef<'_>) -> Option<(&str, &'static str)> {
    let word = v.as_str().filter(|_| v.form() == Form::Plain)?;
    let meant = match word {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => "true",
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => "false",
        _ => return None,
    };
    Some((word, meant))
}

#[cfg(test)]
mod tests;
