//! Requirement assignments of node templates (§8.5; TOSCA 1.3 §3.8.2):
//! the assignment grammar, the target node (a template, `[ template, index ]`
//! or a node type), the target capability (a symbolic name or a type), the
//! relationship (a type, a template or an assignment), `count`, `optional`,
//! `directives`, `allocation` (§8.5.5) and the counts of every requirement
//! against its `count_range` (§8.5.4).

use crate::keynames::Entity;
use crate::section::Section;
use v4t_source::Code;
use v4t_yaml::hash::{ByName, Seen};
use v4t_yaml::{MapRef, NodeRef, Span, ValueRef};

use super::defs::{DefNode, Param, Role};
use super::funcs::Call;
use super::template::{Index, Tpl};
use super::Checker;
use crate::types::{Builtin, Kind, TypeId};
use crate::value::{self, Scalar};

/// What a requirement definition asks of its assignments, resolved.
#[derive(Clone, Copy)]
struct Wanted<'a> {
    /// The node type of `node`.
    node_type: Option<TypeId>,
    /// `capability` where it names a capability of that node type.
    cap_symbolic: Option<&'a str>,
    /// `capability` where it names a capability type.
    cap_type: Option<TypeId>,
    /// The relationship type of `relationship`.
    rel_type: Option<TypeId>,
}

/// One requirement assignment as counted against its definition's
/// `count_range`: name, count (`None` if given by a function), whether it
/// is optional, where it was written.
type Counted<'a> = (&'a str, Option<u64>, bool, Span);

impl<'t, 'a> Checker<'t, 'a> {
    /// Requirement assignments (§8.5) and their counts (§8.5.4).
    pub(super) fn requirement_assignments(&mut self, r: NodeRef<'a>, ty: TypeId, idx: &Index<'a>) {
        let section = Section::RequirementAssignment;
        let Some(list) = self.expect_seq(r, "`requirements`", section) else {
            return;
        };
        let defs = self.node_requirements(ty);
        let defs_by_name = ByName::new(&defs);
        let mut counted: Vec<Counted<'a>> = Vec::new();
        for (i, item) in list.iter().enumerate() {
            self.at_index(i, |c| {
                let Some(m) = c.expect_map(item, "a requirement assignment", section) else {
                    return;
                };
                let Some((k, a)) = m.first().filter(|_| m.len() == 1) else {
                    c.error(
                        Code::InvalidShape,
                        section,
                        item.span(),
                        "each entry of `requirements` is a single-key map `<requirement name>: <assignment>`",
                    );
                    return;
                };
                let Some(def) = defs_by_name.get(k.name()) else {
                    let message = format!(
                        "node type `{}` has no requirement `{}`",
                        c.type_name(ty),
                        k.name()
                    );
                    if c.undefined(Code::UndefinedReference, section, k.span(), message) {
                        c.defined_names(k.name(), defs.iter().map(|(n, _)| *n), "requirement");
                    }
                    return;
                };
                let (count, optional) =
                    c.at(k.name(), |c| c.requirement_assignment(a, def, idx));
                counted.push((k.name(), count, optional, k.span()));
            });
        }
        self.requirement_counts(&counted, &defs, r.span());
    }

    /// §8.5.4: per requirement name, the sum of counts (and the sum of
    /// non-optional counts) lies within the definition's `count_range`
    /// (`defs`: the node type's requirement definitions).
    pub(super) fn requirement_counts(
        &mut self,
        counted: &[Counted<'a>],
        defs: &[(&'a str, Param<'a>)],
        span: Span,
    ) {
        // The assignments of each name, in order (a scan of all of them per
        // definition was quadratic in a node's requirements).
        let mut by_name: Seen<'a, Vec<&Counted<'a>>> = Seen::new();
        for c in counted {
            by_name.push(c.0, c);
        }
        if self.v13() {
            self.requirement_occurrences_13(&by_name, defs);
            return;
        }
        for (name, def) in defs {
            let Some(mine) = by_name.get(name) else {
                // An implicit assignment with count = min is created (§8.5.4).
                continue;
            };
            if mine.iter().any(|(_, c, ..)| c.is_none()) {
                continue; // a count given by a function
            }
            let Some((lo, hi)) = def.get("count_range").and_then(|cr| self.range_of(cr)) else {
                continue;
            };
            let total: u64 = mine
                .iter()
                .map(|(_, c, ..)| c.unwrap_or(0))
                .fold(0u64, |a, b| a.saturating_add(b));
            let mandatory: u64 = mine
                .iter()
                .filter(|(_, _, optional, _)| !optional)
                .map(|(_, c, ..)| c.unwrap_or(0))
                .fold(0u64, |a, b| a.saturating_add(b));
            let at = mine.last().map(|(.., s)| *s).unwrap_or(span);
            let range = super::template::show_range((lo, hi));
            if total > hi {
                self.error(
                    Code::Template,
                    Section::RequirementCount,
                    at,
                    format!("requirement `{name}` is assigned {total} times, more than its count_range {range} allows"),
                );
            } else if mandatory < lo {
                self.error(
                    Code::Template,
                    Section::RequirementCount,
                    at,
                    format!(
                        "requirement `{name}` has {mandatory} non-optional assignment(s), fewer than its count_range {range} requires"
                    ),
                );
            }
        }
    }

    /// TOSCA 1.x: a node template assigns a requirement at most as often
    /// as the upper bound of its definition's `occurrences` ("its
    /// cardinality"; by default "one and only one", 1.3 §3.7.3.3). Fewer
    /// are no error: the orchestrator fulfils what a 1.x template leaves
    /// out.
    fn requirement_occurrences_13(
        &mut self,
        by_name: &Seen<'a, Vec<&Counted<'a>>>,
        defs: &[(&'a str, Param<'a>)],
    ) {
        for (name, def) in defs {
            let Some(mine) = by_name.get(name).filter(|m| m.len() > 1) else {
                continue;
            };
            let defined = def.get("occurrences");
            let hi = match defined {
                Some(o) => match self.range_of(o) {
                    Some((_, hi)) => hi,
                    None => continue,
                },
                None => 1,
            };
            if mine.len() as u64 > hi {
                let at = mine.last().map(|(.., s)| *s).unwrap_or_default();
                let message = format!(
                    "requirement `{name}` is assigned {} times, more than its occurrences allow ({hi}{})",
                    mine.len(),
                    if defined.is_none() { ", the default" } else { "" }
                );
                self.error(Code::Template, Section::RequirementDefinition, at, message);
                if defined.is_none() {
                    self.note(format!(
                        "its definition declares no `occurrences`; `occurrences: [ 0, UNBOUNDED ]` there allows any number of `{name}` assignments"
                    ));
                }
            }
        }
    }

    /// What a requirement definition (seen through its refinements) asks
    /// for, with names resolved where they were written.
    fn wanted(&self, def: &Param<'a>) -> Wanted<'a> {
        let node_type = def.get("node").and_then(|n| {
            self.ts
                .resolve_type(self.doc_of(n), Kind::Node, value::as_str(n)?)
                .ok()
        });
        let cap_name = def
            .defs
            .iter()
            .rev()
            .find_map(|d| match value::as_str(d.node) {
                Some(s) => Some((s, d.doc)),
                None => Some((value::as_str(d.node.get("capability")?)?, d.doc)),
            });
        let cap_symbolic = cap_name.filter(|(n, _)| {
            node_type.is_some_and(|t| self.node_capabilities(t).iter().any(|(c, _)| c == n))
        });
        let cap_type = cap_name
            .filter(|_| cap_symbolic.is_none())
            .and_then(|(n, doc)| self.ts.resolve_type(doc, Kind::Capability, n).ok());
        let rel_type = def.get("relationship").and_then(|r| {
            let name = value::as_str(r).or_else(|| value::as_str(r.get("type")?))?;
            self.ts
                .resolve_type(self.doc_of(r), Kind::Relationship, name)
                .ok()
        });
        Wanted {
            node_type,
            cap_symbolic: cap_symbolic.map(|(n, _)| n),
            cap_type,
            rel_type,
        }
    }

    /// One requirement assignment; returns its count (`None` if given by a
    /// function) and whether it is optional.
    fn requirement_assignment(
        &mut self,
        a: NodeRef<'a>,
        def: &Param<'a>,
        idx: &Index<'a>,
    ) -> (Option<u64>, bool) {
        let section = Section::RequirementAssignment;
        let want = self.wanted(def);
        let (map, node_ref): (Option<MapRef<'a>>, Option<NodeRef<'a>>) = match a.value() {
            // `- req: node` and `- req: [ node, index ]` (§8.5.2, §14.3.4).
            ValueRef::String(_) | ValueRef::Seq(_) => (None, Some(a)),
            ValueRef::Map(m) => (Some(m), m.get("node")),
            ValueRef::Null => (None, None),
            _ => {
                self.error(
                    Code::InvalidShape,
                    section,
                    a.span(),
                    "a requirement assignment is a node template name or a map",
                );
                return (Some(1), false);
            }
        };
        if let Some(m) = map {
            self.keys(
                m,
                Entity::RequirementAssignment,
                "a requirement assignment",
                section,
            );
            if let Some(o) = m.get("occurrences").filter(|_| self.v13()) {
                // The definition's range, by default exactly one (1.3 §3.7.3).
                let defined = def.get("occurrences");
                self.at("occurrences", |c| {
                    c.occurrences_within(o, defined, (1, 1), section)
                });
            }
        }
        let target = node_ref.and_then(|n| self.requirement_target(n, &want, idx));
        let Some(m) = map else {
            self.target_capability(target, None, &want, a.span());
            self.relationship_fits(want.rel_type, target, None, want.cap_type, a.span());
            self.implicit_relationship(def, want.rel_type, a.span());
            return (Some(1), false);
        };
        let assigned_cap = m.get("capability");
        if let Some(cn) = assigned_cap {
            self.assigned_capability(cn, target, &want);
        }
        let cap_name = assigned_cap.and_then(value::as_str);
        self.target_capability(target, cap_name, &want, a.span());
        let rel_type = match m.get("relationship") {
            Some(r) => {
                let rel_type = self.at("relationship", |c| {
                    c.assigned_relationship(r, def, &want, idx)
                });
                // A relationship type's name (not a template's) creates one
                // without property values too.
                let type_name = value::as_str(r)
                    .filter(|n| (self.ts.resolve_type(self.doc, Kind::Relationship, n)).is_ok());
                if type_name.is_some() {
                    self.implicit_relationship(def, rel_type, a.span());
                }
                rel_type
            }
            None => {
                self.implicit_relationship(def, want.rel_type, a.span());
                want.rel_type
            }
        };
        self.relationship_fits(rel_type, target, cap_name, want.cap_type, a.span());
        if let Some(f) = m.get("node_filter") {
            let saved = (self.fctx.self_node, self.fctx.self_relationship);
            self.fctx.self_node = None;
            self.fctx.self_relationship = true;
            self.at("node_filter", |c| c.condition(f, Section::NodeFilter));
            (self.fctx.self_node, self.fctx.self_relationship) = saved;
        }
        let counted = self.count_and_optional(m);
        if let Some(d) = m.get("directives") {
            self.at("directives", |c| {
                for (dname, span) in c.expect_str_list(d, "`directives`", Section::RequirementKeynames) {
                    if !["internal", "external"].contains(&dname) {
                        c.error(
                            Code::InvalidShape,
                            Section::RequirementKeynames,
                            span,
                            format!("unknown requirement directive `{dname}` (allowed: internal, external)"),
                        );
                    }
                }
            });
        }
        if let Some(al) = m.get("allocation") {
            self.at("allocation", |c| {
                c.allocation(al, target, cap_name, want.cap_type)
            });
        }
        counted
    }

    /// The target `node` of an assignment: a node template (with an index
    /// as `[ <template>, <index> ]`) or, without index, a node type; its
    /// type where known.
    fn requirement_target(
        &mut self,
        n: NodeRef<'a>,
        want: &Wanted<'a>,
        idx: &Index<'a>,
    ) -> Option<TypeId> {
        let (name_node, index) = match n.as_seq() {
            Some(l) if l.len() == 2 => (l.at(0), Some(l.at(1))),
            Some(_) => {
                self.error(
                    Code::Template,
                    Section::RequirementKeynames,
                    n.span(),
                    "`node` as a list is `[ <node template>, <index> ]`",
                );
                (n, None)
            }
            None => (n, None),
        };
        if let Some(i) = index {
            self.node_index(i);
        }
        let name = self.expect_str(name_node, "the target `node`", Section::RequirementKeynames)?;
        if let Some((t, _)) = idx.node(name) {
            if let (Some(t), Some(wanted)) = (t, want.node_type) {
                if !self.ts.is_a(t, wanted) {
                    let message = format!(
                        "node template `{name}` is a `{}`, not a `{}`",
                        self.type_name(t),
                        self.type_name(wanted),
                    );
                    self.error(
                        Code::Template,
                        Section::RequirementAssignmentGrammar,
                        name_node.span(),
                        message,
                    );
                    let wanted = self.type_name(wanted);
                    self.note(format!(
                        "requirement `{}` targets `{wanted}` nodes",
                        self.path_last()
                    ));
                    // The target is wrong: what else it lacks follows from it.
                    return None;
                }
            }
            return t;
        }
        if index.is_some() {
            self.error(
                Code::Template,
                Section::RequirementAssignmentGrammar,
                name_node.span(),
                format!("`{name}` is not a node template"),
            );
            self.did_you_mean(name, idx.nodes.keys().copied());
            return None;
        }
        match self.ts.resolve_type(self.doc, Kind::Node, name) {
            Ok(t) => {
                if let Some(wanted) = want.node_type {
                    if !self.ts.is_a(t, wanted) {
                        let message =
                            format!("node type `{name}` is not a `{}`", self.type_name(wanted));
                        self.error(
                            Code::Template,
                            Section::RequirementAssignmentGrammar,
                            name_node.span(),
                            message,
                        );
                        return None;
                    }
                }
                Some(t)
            }
            Err(_) => {
                self.error(
                    Code::Template,
                    Section::RequirementAssignmentGrammar,
                    name_node.span(),
                    format!("`{name}` is neither a node template nor a node type"),
                );
                self.did_you_mean(name, idx.nodes.keys().copied());
                None
            }
        }
    }

    /// The index of a `[ <template>, <index> ]` target: a non-negative
    /// integer or a function.
    fn node_index(&mut self, i: NodeRef<'a>) {
        match self.call_of(i) {
            Call::Yes(fname, args) => {
                self.call(fname, args, i);
            }
            Call::Malformed => {}
            Call::No => {
                if !matches!(self.classify(i), Scalar::Int(x) if x >= 0) {
                    self.error(
                        Code::Template,
                        Section::RequirementKeynames,
                        i.span(),
                        "the node index must be a non-negative integer",
                    );
                }
            }
        }
    }

    /// The assignment's `capability`: the definition's symbolic name
    /// unchanged, or a capability of the target, or a capability type that
    /// fits the definition's.
    fn assigned_capability(&mut self, cn: NodeRef<'a>, target: Option<TypeId>, want: &Wanted<'a>) {
        let Some(name) = self.expect_str(cn, "`capability`", Section::RequirementAssignmentGrammar)
        else {
            return;
        };
        // Symbolic capability names in requirement definitions are TOSCA 2.0's.
        if let Some(sym) = want.cap_symbolic.filter(|_| !self.v13()) {
            if name != sym {
                self.error(
                    Code::Template,
                    Section::RequirementAssignmentGrammar,
                    cn.span(),
                    format!("the requirement's capability is the symbolic name `{sym}` and must stay unchanged"),
                );
            }
            return;
        }
        let owner = target.or(want.node_type);
        let is_symbolic =
            owner.is_some_and(|t| self.node_capabilities(t).iter().any(|(c, _)| *c == name));
        if is_symbolic {
            return;
        }
        match self.ts.resolve_type(self.doc, Kind::Capability, name) {
            Ok(ct) => {
                if let Some(wanted) = want.cap_type {
                    if !self.ts.is_a(ct, wanted) {
                        let message = format!(
                            "capability type `{name}` is not a `{}` as the requirement definition needs",
                            self.type_name(wanted)
                        );
                        self.error(
                            Code::Template,
                            Section::RequirementAssignmentGrammar,
                            cn.span(),
                            message,
                        );
                    }
                }
            }
            // Without a known target, a symbolic name is
            // matched against the candidates at deployment.
            Err(_) => {
                if let Some(t) = owner {
                    let message = format!(
                        "`{name}` is neither a capability of `{}` nor a capability type",
                        self.type_name(t)
                    );
                    self.error(
                        Code::Template,
                        Section::RequirementAssignmentGrammar,
                        cn.span(),
                        message,
                    );
                }
            }
        }
    }

    /// The type of the relationships node template `tpl` has for its
    /// requirement `name` (definition `def`): the one type its assignments
    /// of `name` give them (a relationship type or template named, or the
    /// `type` of a relationship assignment; the definition's where they
    /// name none), `None` where they give several or one is unknown.
    pub(super) fn requirement_relationship_type(
        &self,
        def: &Param<'a>,
        tpl: Tpl<'a>,
        name: &str,
        idx: &Index<'a>,
    ) -> Option<TypeId> {
        let defined = self.wanted(def).rel_type;
        let assignments = tpl.get("requirements").and_then(NodeRef::as_seq);
        let mut types = assignments
            .into_iter()
            .flat_map(|l| l.iter())
            .filter_map(|a| a.get(name))
            .map(|a| {
                let Some(r) = a.get("relationship") else {
                    return defined;
                };
                if let Some(named) = value::as_str(r) {
                    return self.named_relationship(named, idx).flatten();
                }
                match r.get("type") {
                    Some(t) => value::as_str(t)
                        .and_then(|t| self.ts.resolve_type(self.doc, Kind::Relationship, t).ok()),
                    None => defined,
                }
            });
        let first = types.next().unwrap_or(defined);
        types.all(|t| t == first).then_some(first).flatten()
    }

    /// The relationship a requirement assignment names by `name`: a
    /// relationship type first, then a relationship template (§8.5.2), with
    /// the template's type where known; `None` if it is neither.
    fn named_relationship(&self, name: &str, idx: &Index<'a>) -> Option<Option<TypeId>> {
        match self.ts.resolve_type(self.doc, Kind::Relationship, name) {
            Ok(t) => Some(Some(t)),
            Err(_) => idx.relationships.get(name).copied(),
        }
    }

    /// The node template that node template `tpl`'s assignments of its
    /// requirement `name` target, with its type: the one they all name
    /// (`- name: <template>` or `node: <template>`); `None` where they name
    /// none, several, a node type or an unknown template.
    pub(super) fn assigned_target(
        &self,
        tpl: Tpl<'a>,
        name: &str,
        idx: &Index<'a>,
    ) -> Option<(&'a str, TypeId)> {
        let assignments = tpl.get("requirements").and_then(NodeRef::as_seq)?;
        let mut targets = assignments
            .iter()
            .filter_map(|a| a.get(name))
            .map(|a| value::as_str(a).or_else(|| a.get("node").and_then(value::as_str)));
        let first = targets.next()??;
        if !targets.all(|t| t == Some(first)) {
            return None;
        }
        let (ty, _) = idx.node(first)?;
        Some((first, ty?))
    }

    /// The properties of the relationships a requirement definition `def`
    /// creates with relationship type `t`: the type's, refined by the
    /// definition's `relationship` (§8.4.1).
    fn relationship_properties(&self, def: &Param<'a>, t: TypeId) -> Vec<(&'a str, Param<'a>)> {
        let mut props = self.type_entries(t, "properties");
        for d in &def.defs {
            let Some(refined) = d.node.get("relationship").and_then(|r| r.get("properties")) else {
                continue;
            };
            for (k, node) in refined.as_map().into_iter().flat_map(|m| m.iter()) {
                if let Some((_, p)) = props.iter_mut().find(|(n, _)| *n == k.name()) {
                    p.defs.push(DefNode { node, doc: d.doc });
                }
            }
        }
        props
    }

    /// A requirement assignment that names no relationship creates one of
    /// the definition's relationship type (§8.5; TOSCA 1.3 §3.8.2), which
    /// gets no property values: each required property needs a default
    /// (the type's or the definition's).
    fn implicit_relationship(&mut self, def: &Param<'a>, rel_type: Option<TypeId>, span: Span) {
        let Some(t) = rel_type else { return };
        for (name, p) in self.relationship_properties(def, t) {
            if !p.required() || p.default().is_some() || p.fixed().is_some() {
                continue;
            }
            let message = format!(
                "the relationship this requirement creates (`{}`) has no value for its required property `{name}`",
                self.type_name(t)
            );
            self.error(
                Code::MissingValue,
                Section::RequirementKeynames,
                span,
                message,
            );
            self.note(format!(
                "assign it in the requirement: `relationship: {{ type: {}, properties: {{ {name}: ... }} }}`",
                self.type_name(t)
            ));
        }
    }

    /// The assignment's `relationship`: a relationship type or template
    /// name, or a relationship assignment; returns the relationship type
    /// (the definition's where the assignment names none).
    fn assigned_relationship(
        &mut self,
        r: NodeRef<'a>,
        def: &Param<'a>,
        want: &Wanted<'a>,
        idx: &Index<'a>,
    ) -> Option<TypeId> {
        if let Some(name) = value::as_str(r) {
            let t = match self.named_relationship(name, idx) {
                Some(t) => t,
                None => {
                    self.error(
                        Code::Template,
                        Section::RequirementAssignmentGrammar,
                        r.span(),
                        format!(
                            "`{name}` is neither a relationship type nor a relationship template"
                        ),
                    );
                    None
                }
            };
            if let (Some(t), Some(wanted)) = (t, want.rel_type) {
                if !self.ts.is_a(t, wanted) {
                    let message = format!(
                        "relationship `{name}` is not a `{}`",
                        self.type_name(wanted)
                    );
                    self.error(
                        Code::Template,
                        Section::RequirementAssignmentGrammar,
                        r.span(),
                        message,
                    );
                }
            }
            return t.or(want.rel_type);
        }
        let Some(rm) =
            self.expect_map(r, "a relationship assignment", Section::RequirementKeynames)
        else {
            return want.rel_type;
        };
        self.keys(
            rm,
            Entity::RelationshipAssignment,
            "a relationship assignment",
            Section::RequirementKeynames,
        );
        let mut rel_type = want.rel_type;
        if let Some(tn) = rm.get("type") {
            if let Some(t) = self.type_ref(tn, Kind::Relationship, Section::RequirementKeynames) {
                if let Some(wanted) = want.rel_type {
                    if !self.ts.is_a(t, wanted) {
                        let message = format!(
                            "relationship type `{}` is not a `{}`",
                            self.type_name(t),
                            self.type_name(wanted)
                        );
                        self.error(
                            Code::Template,
                            Section::RequirementAssignmentGrammar,
                            tn.span(),
                            message,
                        );
                    }
                }
                rel_type = Some(t);
            }
        }
        let saved = (self.fctx.self_node, self.fctx.self_relationship);
        self.fctx.self_node = None;
        self.fctx.self_relationship = true;
        let props = rel_type.map(|t| self.relationship_properties(def, t));
        self.relationship_assignment_parts(rm, rel_type.zip(props), r.span());
        (self.fctx.self_node, self.fctx.self_relationship) = saved;
        rel_type
    }

    /// The properties, attributes and interfaces of a relationship
    /// assignment, against its type where known.
    fn relationship_assignment_parts(
        &mut self,
        rm: MapRef<'a>,
        rel_type: Option<(TypeId, Vec<(&'a str, Param<'a>)>)>,
        span: Span,
    ) {
        let Some((t, props)) = rel_type else {
            for key in ["properties", "attributes", "interfaces"] {
                if let Some(v) = rm.get(key) {
                    self.check_functions(v);
                }
            }
            return;
        };
        match rm.get("properties") {
            Some(p) => self.at("properties", |c| {
                c.assignments(
                    p,
                    &props,
                    Role::Property,
                    Section::RequirementKeynames,
                    true,
                )
            }),
            None => self.required_assigned(None, &props, span, Section::RequirementKeynames),
        }
        if let Some(at) = rm.get("attributes") {
            let attrs = self.type_attributes(t);
            self.at("attributes", |c| {
                c.assignments(
                    at,
                    &attrs,
                    Role::Attribute,
                    Section::RequirementKeynames,
                    false,
                )
            });
        }
        if let Some(i) = rm.get("interfaces") {
            let defs = self.type_entries(t, "interfaces");
            self.at("interfaces", |c| {
                c.interface_assignments(i, &defs, Section::RequirementKeynames)
            });
        }
    }

    /// `count` (default 1; `None` if given by a function) and `optional` of
    /// an assignment (§8.5.1).
    fn count_and_optional(&mut self, m: MapRef<'a>) -> (Option<u64>, bool) {
        let mut count = Some(1);
        if let Some(cn) = m.get("count") {
            self.at("count", |c| c.count(cn, Section::RequirementKeynames));
            count = value::as_count(cn);
            if self.is_call(cn) {
                count = None;
            }
        }
        let mut optional = false;
        if let Some(o) = m.get("optional") {
            match self.classify(o) {
                Scalar::Bool(b) => optional = b,
                _ => self.not_a_boolean(o, "optional", Section::RequirementKeynames),
            }
        }
        (count, optional)
    }

    /// The last key of the element path (the requirement's name).
    fn path_last(&self) -> String {
        self.path
            .render()
            .rsplit('.')
            .next()
            .unwrap_or_default()
            .to_string()
    }

    /// The type of the capability a requirement targets on a known target
    /// node type.
    fn target_capability_type(
        &self,
        target: Option<TypeId>,
        cap_name: Option<&str>,
        def_cap_type: Option<TypeId>,
    ) -> Option<TypeId> {
        self.target_capability_def(target, cap_name, def_cap_type)
            .map(|(_, t)| t)
    }

    /// The definition and type of the capability a requirement targets on
    /// a known target node type: the one named, else the first of the
    /// requirement's capability type.
    fn target_capability_def(
        &self,
        target: Option<TypeId>,
        cap_name: Option<&str>,
        def_cap_type: Option<TypeId>,
    ) -> Option<(Param<'a>, TypeId)> {
        let caps = self.node_capabilities(target?);
        if let Some(name) = cap_name {
            if let Some((_, v)) = caps.iter().find(|(n, _)| *n == name) {
                return Some((v.clone(), self.capability_type_of(v)?));
            }
        }
        let want = def_cap_type?;
        caps.into_iter().find_map(|(_, v)| {
            let ct = self.capability_type_of(&v)?;
            self.ts.is_a(ct, want).then_some((v, ct))
        })
    }

    /// A known target node type must offer a fitting capability.
    fn target_capability(
        &mut self,
        target: Option<TypeId>,
        cap_name: Option<&str>,
        want: &Wanted<'a>,
        span: Span,
    ) {
        let Some(t) = target else { return };
        let (def_cap_type, def_symbolic) = (want.cap_type, want.cap_symbolic);
        let caps = self.node_capabilities(t);
        if let Some(sym) = def_symbolic.or(cap_name) {
            if let Some((_, v)) = caps.iter().find(|(n, _)| *n == sym) {
                let ct = def_cap_type.and_then(|want| Some((want, self.capability_type_of(v)?)));
                if let Some((want, ct)) = ct {
                    if !self.ts.is_a(ct, want) {
                        let message = format!(
                            "capability `{sym}` of `{}` is of type `{}`, not a `{}`",
                            self.type_name(t),
                            self.type_name(ct),
                            self.type_name(want)
                        );
                        self.error(
                            Code::Template,
                            Section::RequirementAssignmentGrammar,
                            span,
                            message,
                        );
                    }
                }
                return;
            }
            if def_symbolic.is_some() && !self.capabilities_unknown(t) {
                let message = format!(
                    "node type `{}` has no capability `{sym}`",
                    self.type_name(t)
                );
                self.error(
                    Code::Template,
                    Section::RequirementAssignmentGrammar,
                    span,
                    message,
                );
                return;
            }
        }
        if let Some(want) = def_cap_type {
            let fits = caps
                .iter()
                .filter_map(|(_, v)| self.capability_type_of(v))
                .any(|ct| self.ts.is_a(ct, want));
            if !fits && !self.capabilities_unknown(t) {
                let message = format!(
                    "node type `{}` has no capability of type `{}`",
                    self.type_name(t),
                    self.type_name(want)
                );
                self.error(
                    Code::Template,
                    Section::RequirementAssignmentGrammar,
                    span,
                    message,
                );
            }
        }
    }

    /// The relationship type's valid target lists against a known target,
    /// and the target capability's valid source and relationship lists
    /// (§8.1, §8.2: the capability definition's refinement, else its
    /// type's) against the source node and the relationship. TOSCA 1.x
    /// names two of the lists otherwise (`valid_source_types` of
    /// capabilities, `valid_target_types` of relationships, 1.3 §3.7.2,
    /// §3.7.3) and has no others; a capability a derived 1.x node type
    /// redefines does not keep its parent's list.
    fn relationship_fits(
        &mut self,
        rel: Option<TypeId>,
        target: Option<TypeId>,
        cap_name: Option<&str>,
        def_cap_type: Option<TypeId>,
        span: Span,
    ) {
        let source = self.fctx.self_node;
        let capability = self.target_capability_def(target, cap_name, def_cap_type);
        let v13 = self.v13();
        if let Some((def, ct)) = &capability {
            for (key, kind, subject, what) in [
                (
                    if v13 {
                        "valid_source_types"
                    } else {
                        "valid_source_node_types"
                    },
                    Kind::Node,
                    source,
                    "a source node",
                ),
                (
                    "valid_relationship_types",
                    Kind::Relationship,
                    rel,
                    "a relationship",
                ),
            ] {
                // A 1.x capability redefined in a derived node type is a
                // new definition: its parent's list goes with it.
                let own = if v13 { def.own(key) } else { def.get(key) };
                let list = own.or_else(|| self.ts.inherited(*ct, key));
                if let Some(t) = subject.filter(|&t| !self.in_type_list(t, list, kind)) {
                    let message = format!(
                        "the target capability (type `{}`) does not accept {what} of type `{}` ({key})",
                        self.type_name(*ct),
                        self.type_name(t)
                    );
                    self.error(Code::Template, Section::CapabilityDefinition, span, message);
                }
            }
        }
        let Some(rel) = rel else { return };
        let cap_type = capability.map(|(_, ct)| ct);
        for (key, kind, subject, what) in [
            (
                if v13 {
                    "valid_target_types"
                } else {
                    "valid_capability_types"
                },
                Kind::Capability,
                cap_type,
                "target a capability",
            ),
            (
                "valid_target_node_types",
                Kind::Node,
                target,
                "target a node",
            ),
            (
                "valid_source_node_types",
                Kind::Node,
                source,
                "start at a node",
            ),
        ] {
            let list = self.ts.inherited(rel, key);
            if let Some(t) = subject.filter(|&t| !self.in_type_list(t, list, kind)) {
                let message = format!(
                    "relationship type `{}` cannot {what} of type `{}` ({key})",
                    self.type_name(rel),
                    self.type_name(t)
                );
                self.error(Code::Template, Section::RelationshipType, span, message);
            }
        }
    }

    /// Whether `t` is (derived from) a type of a `valid_*` list; no list
    /// restricts nothing.
    fn in_type_list(&self, t: TypeId, list: Option<NodeRef<'a>>, kind: Kind) -> bool {
        list.is_none_or(|l| {
            self.types_in_list(l, kind)
                .iter()
                .any(|&v| self.ts.is_a(t, v))
        })
    }

    /// `allocation` (§8.5.5): properties of the target capability, of
    /// integer, float or scalar types.
    fn allocation(
        &mut self,
        al: NodeRef<'a>,
        target: Option<TypeId>,
        cap_name: Option<&str>,
        def_cap_type: Option<TypeId>,
    ) {
        let Some(m) = self.named_map(al, "`allocation`", Section::CapabilityAllocation) else {
            return;
        };
        let cap_type = self
            .target_capability_type(target, cap_name, def_cap_type)
            .or(def_cap_type);
        let props = cap_type.map(|ct| (ct, self.type_entries(ct, "properties")));
        for (k, v) in m.iter() {
            let Some((cap_type, props)) = &props else {
                self.at(k.name(), |c| c.check_functions(v));
                continue;
            };
            let Some((_, p)) = props.iter().find(|(n, _)| *n == k.name()) else {
                // Allocations filter target candidates when the requirement
                // is fulfilled (§8.5.5): one that no candidate can satisfy is
                // worth a warning, the orchestrator decides.
                let message = format!(
                    "allocation `{}` names no property of the target capability type `{}`, so no target can satisfy it",
                    k.name(),
                    self.type_name(*cap_type)
                );
                self.warning(
                    Code::ToscaNotice,
                    Section::CapabilityAllocation,
                    k.span(),
                    message,
                );
                continue;
            };
            if let Some(s) = self.param_schema(p) {
                let allocatable = matches!(
                    self.ts.builtin_base(s.ty),
                    Some(Builtin::Integer | Builtin::Float | Builtin::Scalar)
                );
                if !allocatable {
                    self.error(
                        Code::ToscaNotice,
                        Section::CapabilityAllocation,
                        k.span(),
                        format!(
                            "only integer, float or scalar properties can be allocated, not `{}`",
                            k.name()
                        ),
                    );
                    continue;
                }
                self.at(k.name(), |c| {
                    c.check_value(v, &s, Section::CapabilityAllocation)
                });
            }
        }
    }
}
