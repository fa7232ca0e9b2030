//! The service template (§6.9; TOSCA 1.3's `topology_template`): inputs
//! and outputs, node templates (§7.2) with their property, attribute,
//! capability, interface (§11.3) and artifact assignments, relationship
//! templates (§7.4) and function refinements. Requirement assignments
//! (§8.5) are in [`super::requirements`], groups and policies (§16) in
//! [`super::groups`], workflows (§13) in [`super::workflows`], substitution
//! mappings (§15) in [`super::substitution`].

use crate::keynames::Entity;
use crate::section::Section;
use std::rc::Rc;
use v4t_source::Code;
use v4t_yaml::hash::{ByName, SeededMap};

use v4t_yaml::{KeyRef, MapRef, NodeRef, SeqRef, Span, ValueRef};

use super::defs::{DefNode, Param, Place, Role};
use super::funcs::{Call, FnCtx};
use super::Checker;
use crate::types::{Builtin, Kind, TypeId};
use crate::value::{self, Scalar};

/// A template with `copy` (§7.2, §7.4): its own keynames over the source's.
#[derive(Clone, Copy)]
pub(super) struct Tpl<'a> {
    own: MapRef<'a>,
    source: Option<MapRef<'a>>,
}

impl<'a> Tpl<'a> {
    pub(super) fn get(&self, key: &str) -> Option<NodeRef<'a>> {
        self.own
            .get(key)
            .or_else(|| self.source.and_then(|s| s.get(key)))
    }
}

/// The parts of a service template other parts refer to, by name.
#[derive(Default)]
pub(super) struct Index<'a> {
    pub(super) nodes: SeededMap<&'a str, (Option<TypeId>, Tpl<'a>)>,
    pub(super) relationships: SeededMap<&'a str, Option<TypeId>>,
    pub(super) groups: SeededMap<&'a str, Option<TypeId>>,
    /// The workflow definitions, by name.
    pub(super) workflows: SeededMap<&'a str, NodeRef<'a>>,
    pub(super) inputs: Option<MapRef<'a>>,
    pub(super) outputs: Option<MapRef<'a>>,
}

impl<'a> Index<'a> {
    /// The type (if it resolves) and the template of node template `name`.
    pub(super) fn node(&self, name: &str) -> Option<(Option<TypeId>, Tpl<'a>)> {
        self.nodes.get(name).copied()
    }
}

impl<'t, 'a> Checker<'t, 'a> {
    pub(super) fn service_template(&mut self, v: NodeRef<'a>) {
        let section = Section::ServiceTemplateGrammar;
        let Some(map) = self.expect_map(v, "the service template", section) else {
            return;
        };
        self.keys(
            map,
            Entity::ServiceTemplate,
            "the service template",
            section,
        );
        if !map.contains_key("node_templates") && !self.v13() {
            self.error(
                Code::MissingKeyname,
                Section::ServiceTemplateGrammar,
                v.span(),
                "a service template needs `node_templates`",
            );
        }
        let idx = self.index(map);
        self.fctx = FnCtx {
            nodes: Some(Rc::new(
                idx.nodes.iter().map(|(n, (t, _))| (*n, *t)).collect(),
            )),
            relationships: Some(Rc::new(idx.relationships.keys().copied().collect())),
            inputs: idx.inputs.into_iter().collect(),
            in_template: true,
            ..FnCtx::default()
        };
        for (k, node) in map.iter() {
            let key = k.name();
            self.at(key, |c| match key {
                "description" => c.description(node),
                "metadata" => c.metadata(node),
                "inputs" => c.param_defs(
                    node,
                    Role::Incoming,
                    Place::Template,
                    &[],
                    (Section::InputParameters, "`inputs`"),
                    true,
                ),
                "outputs" => c.param_defs(
                    node,
                    Role::Outgoing,
                    Place::Template,
                    &[],
                    (Section::OutputParameters, "`outputs`"),
                    true,
                ),
                "node_templates" => c.node_templates(node, &idx),
                "relationship_templates" => c.relationship_templates(node, &idx),
                "groups" => c.groups(node, &idx),
                "policies" => c.policies(node, &idx),
                "workflows" => c.workflows(node, &idx),
                "substitution_mappings" => c.substitution_mappings(node, &idx),
                "functions" => c.function_refinements(node),
                _ => {}
            });
        }
        self.fctx = FnCtx::default();
    }

    /// Collects the names and types of the templates, quietly.
    fn index(&self, map: MapRef<'a>) -> Index<'a> {
        let mut idx = Index {
            inputs: map.get("inputs").and_then(NodeRef::as_map),
            outputs: map.get("outputs").and_then(NodeRef::as_map),
            ..Index::default()
        };
        let typed = |c: &Self, tpl: Tpl<'a>, kind: Kind| -> Option<TypeId> {
            let name = value::as_str(tpl.get("type")?)?;
            c.ts.resolve_type(c.doc, kind, name).ok()
        };
        let templates = |key: &str| map.get(key).and_then(NodeRef::as_map);
        if let Some(nodes) = templates("node_templates") {
            for (k, v) in nodes.iter() {
                let Some(own) = v.as_map() else {
                    idx.nodes.insert(
                        k.name(),
                        (
                            None,
                            Tpl {
                                own: MapRef::EMPTY,
                                source: None,
                            },
                        ),
                    );
                    continue;
                };
                let source = own
                    .get("copy")
                    .and_then(value::as_str)
                    .and_then(|s| nodes.get(s))
                    .and_then(NodeRef::as_map);
                let tpl = Tpl { own, source };
                idx.nodes
                    .insert(k.name(), (typed(self, tpl, Kind::Node), tpl));
            }
        }
        if let Some(rels) = templates("relationship_templates") {
            for (k, v) in rels.iter() {
                let own = v.as_map().unwrap_or(MapRef::EMPTY);
                let source = own
                    .get("copy")
                    .and_then(value::as_str)
                    .and_then(|s| rels.get(s))
                    .and_then(NodeRef::as_map);
                idx.relationships.insert(
                    k.name(),
                    typed(self, Tpl { own, source }, Kind::Relationship),
                );
            }
        }
        if let Some(groups) = templates("groups") {
            for (k, v) in groups.iter() {
                let own = v.as_map().unwrap_or(MapRef::EMPTY);
                idx.groups.insert(
                    k.name(),
                    typed(self, Tpl { own, source: None }, Kind::Group),
                );
            }
        }
        if let Some(w) = templates("workflows") {
            idx.workflows = w.iter().map(|(k, v)| (k.name(), v)).collect();
        }
        idx
    }

    fn node_templates(&mut self, node: NodeRef<'a>, idx: &Index<'a>) {
        let Some(map) = self.named_map(node, "`node_templates`", Section::NodeTemplates) else {
            return;
        };
        for (k, v) in map.iter() {
            let (ty, tpl) = idx.node(k.name()).expect("indexed");
            self.at(k.name(), |c| {
                c.node_template(k.name(), v, ty, tpl, idx, map)
            });
        }
    }

    /// Resolves `copy` (§7.2, §7.4): the source exists and does not copy.
    fn copy_source(
        &mut self,
        own: MapRef<'a>,
        all: MapRef<'a>,
        what: &str,
        section: Section,
    ) -> Option<MapRef<'a>> {
        let c = own.get("copy")?;
        let name = self.expect_str(c, "`copy`", section)?;
        match all.get(name).and_then(NodeRef::as_map) {
            None => {
                self.error(
                    Code::Template,
                    section,
                    c.span(),
                    format!("`copy` names `{name}`, which is not a {what}"),
                );
                self.did_you_mean(name, all.keys());
                None
            }
            Some(src) => {
                if src.contains_key("copy") {
                    self.error(
                        Code::Template,
                        section,
                        c.span(),
                        format!("`{name}` itself uses `copy`, so it cannot be copied"),
                    );
                }
                Some(src)
            }
        }
    }

    fn node_template(
        &mut self,
        name: &'a str,
        v: NodeRef<'a>,
        ty: Option<TypeId>,
        _tpl: Tpl<'a>,
        idx: &Index<'a>,
        all: MapRef<'a>,
    ) {
        let section = Section::NodeTemplate;
        let Some(own) = self.expect_map(v, "a node template", section) else {
            return;
        };
        self.keys(own, Entity::NodeTemplate, "a node template", section);
        let source = self.copy_source(own, all, "node template", section);
        let tpl = Tpl { own, source };
        self.common_keynames(own);
        let Some(type_node) = tpl.get("type") else {
            // With `copy`, the source's own error says why (see `copy_source`).
            if !own.contains_key("copy") {
                self.error(
                    Code::MissingKeyname,
                    section,
                    v.span(),
                    format!("node template `{name}` needs a `type`"),
                );
            }
            return;
        };
        let Some(ty) = ty else {
            self.at("type", |c| {
                c.type_ref(type_node, Kind::Node, section);
            });
            return;
        };
        self.at("type", |c| c.non_normative_use(ty, type_node.span()));
        let select = match tpl.get("directives") {
            Some(d) => self.at("directives", |c| c.directives(d)),
            None => false,
        };
        self.fctx.self_node = Some(ty);
        self.fctx.self_relationship = false;
        if let Some(f) = tpl.get("node_filter") {
            if !select && !self.v13() {
                self.warning(
                    Code::ToscaNotice,
                    Section::NodeTemplateDirectives,
                    f.span(),
                    "`node_filter` is only used with the `select` directive",
                );
            }
            self.at("node_filter", |c| c.condition(f, Section::NodeFilter));
        }
        if let Some(count) = tpl.get("count") {
            self.at("count", |c| c.count(count, Section::NodeTemplate));
        }
        if !select {
            // Only `node_filter` matters for a selected node (§7.2.1).
            self.inherits_unknown = self.ts.inherits_unknown(ty);
            self.node_template_assignments(tpl, ty, idx, v.span());
            self.inherits_unknown = false;
        }
        self.fctx.self_node = None;
    }

    /// The directives of a node template (§7.2.1); whether it is `select`ed.
    fn directives(&mut self, d: NodeRef<'a>) -> bool {
        let allowed: &[&str] = &["create", "select", "substitute"];
        let mut select = false;
        for (dname, span) in
            self.expect_str_list(d, "`directives`", Section::NodeTemplateDirectives)
        {
            if dname == "select" {
                select = true;
            }
            // TOSCA 1.3 (§3.8.3) lists directive values without limiting
            // them (`substitutable`, `selectable`, tool-specific ones).
            if !allowed.contains(&dname) && !self.v13() {
                self.error(
                    Code::InvalidShape,
                    Section::NodeTemplateDirectives,
                    span,
                    format!(
                        "unknown node template directive `{dname}` (allowed: {})",
                        allowed.join(", ")
                    ),
                );
            }
        }
        select
    }

    /// The assignments of a node template of type `ty`: properties,
    /// attributes, capabilities, requirements, interfaces and artifacts.
    fn node_template_assignments(&mut self, tpl: Tpl<'a>, ty: TypeId, idx: &Index<'a>, span: Span) {
        let props = self.type_entries(ty, "properties");
        match tpl.get("properties") {
            Some(p) => self.at("properties", |c| {
                c.assignments(p, &props, Role::Property, Section::PropertyAssignment, true)
            }),
            None => self.required_assigned(None, &props, span, Section::PropertyAssignment),
        }
        if let Some(a) = tpl.get("attributes") {
            let attrs = self.type_attributes(ty);
            self.at("attributes", |c| {
                c.assignments(
                    a,
                    &attrs,
                    Role::Attribute,
                    Section::AttributeAssignment,
                    false,
                )
            });
        }
        self.capability_assignments(tpl.get("capabilities"), ty, span);
        if let Some(r) = tpl.get("requirements") {
            self.at("requirements", |c| c.requirement_assignments(r, ty, idx));
        } else {
            let defs = self.node_requirements(ty);
            self.requirement_counts(&[], &defs, span);
        }
        if let Some(i) = tpl.get("interfaces") {
            let defs = self.type_entries(ty, "interfaces");
            self.at("interfaces", |c| {
                c.interface_assignments(i, &defs, Section::InterfaceAssignment)
            });
        }
        if let Some(a) = tpl.get("artifacts") {
            self.at("artifacts", |c| c.artifact_defs(a));
        }
    }

    /// `count` of a node template or requirement: a non-negative integer or
    /// a function (§7.2, §8.5.1).
    pub(super) fn count(&mut self, count: NodeRef<'a>, section: Section) {
        match self.call_of(count) {
            Call::Yes(n, args) => {
                self.call(n, args, count);
            }
            Call::Malformed => {}
            Call::No => {
                if !matches!(self.classify(count), Scalar::Int(i) if i >= 0) {
                    self.error(
                        Code::InvalidShape,
                        section,
                        count.span(),
                        format!(
                            "`count` must be a non-negative integer, not {}",
                            value::show(count)
                        ),
                    );
                }
            }
        }
    }

    /// A condition clause (§8.6, §13.2.1, §16.5, §15.1): a Boolean expression.
    pub(super) fn condition(&mut self, v: NodeRef<'a>, section: Section) {
        if self.v13() {
            // Node filters (§8.6) have their own grammar in TOSCA 1.3;
            // workflow and trigger conditions are condition clauses.
            match section {
                Section::NodeFilter | Section::SubstitutionMapping => self.node_filter_13(v),
                _ => self.condition_clauses_13(v, 0, None),
            }
            return;
        }
        match self.call_of(v) {
            Call::Yes(n, args) => {
                let r = self.call(n, args, v);
                if let super::funcs::Returns::Builtin(b) = r {
                    if b != crate::types::Builtin::Boolean {
                        self.error(
                            Code::Function,
                            section,
                            v.span(),
                            format!(
                                "a condition clause is a Boolean expression; `${n}` is not one"
                            ),
                        );
                    }
                }
            }
            Call::Malformed => {}
            Call::No => {
                if !matches!(self.classify(v), Scalar::Bool(_)) {
                    self.error(
                        Code::Function,
                        section,
                        v.span(),
                        "a condition clause must be a Boolean expression (a function call such as `$equal`)",
                    );
                }
            }
        }
    }

    /// A condition about the attributes of an entity of type `subject`
    /// (where known): in TOSCA 1.3, condition clauses that name them; in
    /// TOSCA 2.0, a Boolean expression (whose paths say what they read).
    pub(super) fn condition_on(
        &mut self,
        v: NodeRef<'a>,
        section: Section,
        subject: Option<TypeId>,
    ) {
        if self.v13() {
            self.condition_clauses_13(v, 0, subject);
        } else {
            self.condition(v, section);
        }
    }

    /// TOSCA 1.3 condition clauses (1.3 §3.6.25, used by workflow step
    /// filters, workflow preconditions and policy triggers): a list of
    /// single-entry maps, each `and`, `or`, `not` or `assert` with a list
    /// of clauses, or `<attribute name>: <constraint clauses>` (1.3
    /// §3.6.3), an attribute of the `subject` where its type is known
    /// (properties are attributes too, 1.3 §3.6.12), whose values the
    /// clauses compare with.
    fn condition_clauses_13(&mut self, v: NodeRef<'a>, depth: usize, subject: Option<TypeId>) {
        const SECTION: Section = Section::V13ConditionClause;
        if depth > super::defs::MAX_NESTING {
            self.error(
                Code::InvalidShape,
                SECTION,
                v.span(),
                "condition clauses nested too deeply",
            );
            return;
        }
        let items: SeqRef<'a> = match v.value() {
            ValueRef::Seq(items) => items,
            _ => SeqRef::one(v),
        };
        for (i, item) in items.iter().enumerate() {
            let Some(m) = item.as_map() else {
                let message = format!(
                    "a condition clause is a map `<attribute>: <constraint clauses>` or `and`, `or`, `not`, `assert` with a list of clauses, not {}",
                    value::describe(item)
                );
                self.error(Code::InvalidShape, SECTION, item.span(), message);
                continue;
            };
            self.at_index(i, |c| {
                for (k, clause) in m.iter() {
                    let key = k.name();
                    c.at(key, |c| match key {
                        "and" | "or" | "not" | "assert" => {
                            c.condition_clauses_13(clause, depth + 1, subject)
                        }
                        _ => c.attribute_condition_13(k, clause, subject),
                    });
                }
            });
        }
    }

    /// `<attribute name>: <constraint clauses>` in a 1.3 condition: the
    /// attribute of a `subject` of known type exists, and the clauses
    /// compare it with values of its type.
    fn attribute_condition_13(
        &mut self,
        k: KeyRef<'a>,
        clause: NodeRef<'a>,
        subject: Option<TypeId>,
    ) {
        let Some(ty) = subject else {
            self.constraint_clauses(clause, None);
            return;
        };
        let attrs = self.type_attributes(ty);
        let Some((_, attr)) = attrs.iter().find(|(n, _)| *n == k.name()) else {
            let message = format!("`{}` has no attribute `{}`", self.type_name(ty), k.name());
            let span = k.span();
            if self.undefined_in(
                ty,
                Code::UndefinedReference,
                Section::V13ConditionClause,
                span,
                message,
            ) {
                self.defined_names(k.name(), attrs.iter().map(|(n, _)| *n), "attribute");
            }
            return;
        };
        let schema = self.param_schema(attr);
        self.constraint_clauses(clause, schema.as_ref());
    }

    /// A TOSCA 1.3 node filter (1.3 §3.6.5): `properties`, a list of
    /// `<property>: <constraint clauses>`, and `capabilities`, a list of
    /// `<capability name or type>: { properties: ... }`. Property names are
    /// not resolved (the filtered type may be any).
    fn node_filter_13(&mut self, v: NodeRef<'a>) {
        const SECTION: Section = Section::V13NodeFilter;
        let Some(map) = self.expect_map(v, "a node filter", SECTION) else {
            return;
        };
        self.keys(map, Entity::NodeFilter13, "a node filter", SECTION);
        if let Some(p) = map.get("properties") {
            self.at("properties", |c| c.property_filters_13(p));
        }
        let Some(caps) = map.get("capabilities") else {
            return;
        };
        self.at("capabilities", |c| {
            c.filter_entries_13(caps, "capability filters", |c, cap| {
                let Some(m) = c.expect_map(cap, "a capability filter", SECTION) else {
                    return;
                };
                c.keys(
                    m,
                    Entity::CapabilityFilter13,
                    "a capability filter",
                    SECTION,
                );
                if let Some(p) = m.get("properties") {
                    c.at("properties", |c| c.property_filters_13(p));
                }
            });
        });
    }

    /// `- <property>: <constraint clause or clauses>` (1.3 §3.6.4).
    fn property_filters_13(&mut self, v: NodeRef<'a>) {
        self.filter_entries_13(v, "property filters", |c, clauses| {
            c.constraint_clauses(clauses, None)
        });
    }

    /// The entries of a 1.3 filter list: single-key maps (a map of several
    /// entries is accepted too, lenient), each value checked by `check`.
    fn filter_entries_13(
        &mut self,
        v: NodeRef<'a>,
        what: &str,
        mut check: impl FnMut(&mut Self, NodeRef<'a>),
    ) {
        let entries: Vec<(&'a str, NodeRef<'a>)> = match v.value() {
            ValueRef::Map(m) => m.iter().map(|(k, n)| (k.name(), n)).collect(),
            ValueRef::Seq(items) => {
                let mut out = Vec::new();
                for item in items {
                    match item
                        .as_map()
                        .filter(|m| m.len() == 1)
                        .and_then(|m| m.first())
                    {
                        Some((k, n)) => out.push((k.name(), n)),
                        None => self.error(
                            Code::InvalidShape,
                            Section::V13NodeFilter,
                            item.span(),
                            format!(
                                "the {what} of a node filter are single-entry maps `<name>: ...`"
                            ),
                        ),
                    }
                }
                out
            }
            _ => {
                let message = format!(
                    "the {what} of a node filter are a list, not {}",
                    value::describe(v)
                );
                self.error(
                    Code::InvalidShape,
                    Section::V13NodeFilter,
                    v.span(),
                    message,
                );
                return;
            }
        };
        for (name, n) in entries {
            self.at(name, |c| check(c, n));
        }
    }

    /// Property or attribute assignments against their definitions (§9.5,
    /// §9.7); with `check_required`, every required property needs a value.
    pub(super) fn assignments(
        &mut self,
        node: NodeRef<'a>,
        defs: &[(&'a str, Param<'a>)],
        role: Role,
        section: Section,
        check_required: bool,
    ) {
        let what = if role == Role::Attribute {
            "attribute"
        } else {
            "property"
        };
        let Some(map) = self.named_map(node, &format!("the {what} assignments"), section) else {
            return;
        };
        let defs_by_name = ByName::new(defs);
        for (k, v) in map.iter() {
            let Some(p) = defs_by_name.get(k.name()) else {
                let message = format!("`{}` is not a defined {what}", k.name());
                if self.undefined(Code::UndefinedReference, section, k.span(), message) {
                    self.defined_names(k.name(), defs.iter().map(|(n, _)| *n), what);
                }
                continue;
            };
            self.at(k.name(), |c| c.assignment(k.name(), v, p, what, section));
        }
        if check_required {
            self.required_assigned(Some(map), defs, node.span(), section);
        }
    }

    /// One value assigned to a defined property, attribute or parameter.
    fn assignment(
        &mut self,
        name: &str,
        v: NodeRef<'a>,
        p: &Param<'a>,
        what: &str,
        section: Section,
    ) {
        // Fixed values (`value`, short-form refinements) are TOSCA 2.0's; a
        // TOSCA 1.3 template overrides what its type gives.
        if p.fixed().is_some() && !self.v13() {
            self.error(
                Code::Definition,
                section,
                v.span(),
                format!("{what} `{name}` has a fixed value and cannot be assigned"),
            );
            return;
        }
        if p.required() && what != "attribute" {
            if let Some(input) = self.optional_input(v) {
                self.error(
                    Code::MissingValue,
                    section,
                    v.span(),
                    format!("required {what} `{name}` takes its value from the optional input `{input}`, which may have none"),
                );
            }
        }
        let schema = self.param_schema(p);
        if what == "attribute" && self.v13() && self.extended_attribute(v, schema.as_ref(), section)
        {
            return;
        }
        match schema {
            Some(s) => self.check_value(v, &s, section),
            None => self.check_functions(v),
        }
    }

    /// A TOSCA 1.3 attribute assignment in extended notation (1.3
    /// §3.6.14.2.2): `{ description: ..., value: ... }`, unless the
    /// attribute's own type takes that map as it is (TOSCA 2.0 attribute
    /// assignments have no keynames, §9.7). Whether it was one (and checked).
    fn extended_attribute(
        &mut self,
        v: NodeRef<'a>,
        schema: Option<&super::defs::Schema<'a>>,
        section: Section,
    ) -> bool {
        let Some(m) = v.as_map() else { return false };
        let keynames = m.keys().all(|k| k == "description" || k == "value");
        if m.is_empty() || !keynames || self.is_call(v) {
            return false;
        }
        if let Some(s) = schema {
            // A map the attribute's type accepts as it is stays a value.
            let before = self.diags.len();
            self.check_value(v, s, section);
            if self.diags.len() == before {
                return true;
            }
            self.diags.truncate(before);
        }
        if let Some(d) = m.get("description") {
            self.at("description", |c| c.description(d));
        }
        if let Some(value) = m.get("value") {
            self.at("value", |c| match schema {
                Some(s) => c.check_value(value, s, Section::V13AttributeAssignment),
                None => c.check_functions(value),
            });
        }
        true
    }

    /// Every required property without a default or fixed value is assigned.
    pub(super) fn required_assigned(
        &mut self,
        map: Option<MapRef<'a>>,
        defs: &[(&'a str, Param<'a>)],
        span: Span,
        section: Section,
    ) {
        for (name, p) in defs {
            let assigned = map.is_some_and(|m| m.contains_key(name));
            if !assigned && p.required() && p.default().is_none() && p.fixed().is_none() {
                self.error(
                    Code::MissingValue,
                    section,
                    span,
                    format!("required property `{name}` has no value"),
                );
                let nil = self
                    .param_schema(p)
                    .is_some_and(|s| self.ts.builtin_base(s.ty) == Some(Builtin::Nil));
                if nil {
                    self.note("a `nil` property is assigned `null`");
                }
            }
        }
    }

    /// The properties of a capability of node type `ty`: the capability
    /// type's, refined by the capability definitions.
    pub(super) fn capability_properties(
        &self,
        cap: &Param<'a>,
        key: &str,
    ) -> Vec<(&'a str, Param<'a>)> {
        let Some(ct) = self.capability_type_of(cap) else {
            return Vec::new();
        };
        let mut defs = if key == "attributes" {
            self.type_attributes(ct)
        } else {
            self.type_entries(ct, key)
        };
        for d in &cap.defs {
            let Some(m) = d.node.get(key).and_then(NodeRef::as_map) else {
                continue;
            };
            for (k, v) in m.iter() {
                if let Some((_, p)) = defs.iter_mut().find(|(n, _)| *n == k.name()) {
                    p.defs.push(DefNode {
                        node: v,
                        doc: d.doc,
                    });
                }
            }
        }
        defs
    }

    /// Capability assignments (§8.3), and the required properties of every
    /// capability of the node type.
    fn capability_assignments(&mut self, node: Option<NodeRef<'a>>, ty: TypeId, span: Span) {
        let caps = self.node_capabilities(ty);
        let map = match node {
            Some(n) => self.at("capabilities", |c| {
                c.named_map(n, "`capabilities`", Section::CapabilityAssignment)
            }),
            None => None,
        };
        if let Some(map) = map {
            self.path.push("capabilities");
            let caps_by_name = ByName::new(&caps);
            for (k, v) in map.iter() {
                let Some(cap) = caps_by_name.get(k.name()) else {
                    let message = format!(
                        "node type `{}` has no capability `{}`",
                        self.type_name(ty),
                        k.name()
                    );
                    if self.undefined(
                        Code::UndefinedReference,
                        Section::CapabilityAssignment,
                        k.span(),
                        message,
                    ) {
                        let names = caps.iter().map(|(n, _)| *n);
                        self.defined_names(k.name(), names, "capability");
                    }
                    continue;
                };
                let inherits_unknown = self.inherits_unknown;
                self.inherits_unknown |= self.def_type_unknown(cap, Kind::Capability);
                self.at(k.name(), |c| {
                    let Some(m) = c.expect_map(v, "a capability assignment", Section::CapabilityAssignment) else { return };
                    c.keys(m, Entity::CapabilityAssignment, "a capability assignment", Section::CapabilityAssignment);
                    let props = c.capability_properties(cap, "properties");
                    match m.get("properties") {
                        Some(p) => c.at("properties", |c| c.assignments(p, &props, Role::Property, Section::CapabilityAssignment, true)),
                        None => c.required_assigned(None, &props, v.span(), Section::CapabilityAssignment),
                    }
                    if let Some(a) = m.get("attributes") {
                        let attrs = c.capability_properties(cap, "attributes");
                        c.at("attributes", |c| c.assignments(a, &attrs, Role::Attribute, Section::CapabilityAssignment, false));
                    }
                    if let Some(o) = m.get("occurrences").filter(|_| c.v13()) {
                        // The definition's range, by default "at least one
                        // relationship ... with a maximum of UNBOUNDED" (1.3 §3.7.2).
                        let defined = cap.own("occurrences");
                        c.at("occurrences", |c| c.occurrences_within(o, defined, (1, u64::MAX), Section::CapabilityAssignment));
                    }
                    if let Some(d) = m.get("directives") {
                        c.at("directives", |c| {
                            for (dname, span) in c.expect_str_list(d, "`directives`", Section::CapabilityAssignment) {
                                if !["internal", "external"].contains(&dname) {
                                    c.error(
                                        Code::InvalidShape,
                                        Section::CapabilityAssignment,
                                        span,
                                        format!("unknown capability directive `{dname}` (allowed: internal, external)"),
                                    );
                                }
                            }
                        });
                    }
                });
                self.inherits_unknown = inherits_unknown;
            }
            self.path.pop();
        }
        for (name, cap) in &caps {
            if map.is_some_and(|m| m.contains_key(name)) {
                continue;
            }
            let props = self.capability_properties(cap, "properties");
            self.at("capabilities", |c| {
                c.at(name, |c| {
                    c.required_assigned(None, &props, span, Section::CapabilityAssignment)
                });
            });
        }
    }

    /// A TOSCA 1.x assignment's `occurrences` (1.3 §3.8.1, §3.8.2): a range
    /// that "must fall completely within the occurrences range specified in
    /// the corresponding ... definition" (`defined`, else `default`).
    pub(super) fn occurrences_within(
        &mut self,
        v: NodeRef<'a>,
        defined: Option<NodeRef<'a>>,
        default: (u64, u64),
        section: Section,
    ) {
        let Some((lo, hi)) = self.count_range(v, section) else {
            return;
        };
        let (dlo, dhi) = match defined {
            Some(d) => match self.range_of(d) {
                Some(r) => r,
                // Reported at the definition.
                None => return,
            },
            None => default,
        };
        if lo < dlo || hi > dhi {
            let message = format!(
                "`occurrences` {} must lie within the definition's range {}{}",
                show_range((lo, hi)),
                show_range((dlo, dhi)),
                if defined.is_none() {
                    " (its default)"
                } else {
                    ""
                }
            );
            self.error(Code::Template, section, v.span(), message);
        }
    }

    /// Interface assignments (§11.3) against the interface definitions of
    /// the node or relationship type.
    pub(super) fn interface_assignments(
        &mut self,
        node: NodeRef<'a>,
        defs: &[(&'a str, Param<'a>)],
        section: Section,
    ) {
        let Some(map) = self.named_map(node, "`interfaces`", section) else {
            return;
        };
        let defs_by_name = ByName::new(defs);
        for (k, v) in map.iter() {
            let Some(def) = defs_by_name.get(k.name()) else {
                let message = format!("`{}` is not an interface of the type", k.name());
                if self.undefined(
                    Code::UndefinedReference,
                    Section::InterfaceAssignment,
                    k.span(),
                    message,
                ) {
                    self.defined_names(k.name(), defs.iter().map(|(n, _)| *n), "interface");
                }
                continue;
            };
            self.at(k.name(), |c| c.interface_assignment(v, def));
        }
    }

    /// The view of an interface's inputs, operations or notifications:
    /// the interface type's chain, then the definitions.
    pub(super) fn interface_parts(&self, def: &Param<'a>, key: &str) -> Vec<(&'a str, Param<'a>)> {
        let mut chain = self
            .interface_type_of(def)
            .map(|t| self.chain_defs(t))
            .unwrap_or_default();
        chain.extend(def.defs.iter().copied());
        // TOSCA 1.x interface types and definitions may also list
        // operations directly (1.2's ETSI NFV types, Winery's 1.3 types).
        super::defs::collect_interface_section(&chain, key, self.v13())
    }

    fn interface_assignment(&mut self, v: NodeRef<'a>, def: &Param<'a>) {
        if v.is_null() {
            return;
        }
        let Some(m) = self.expect_map(v, "an interface assignment", Section::InterfaceAssignment)
        else {
            return;
        };
        let v13 = self.v13();
        if !v13 {
            self.keys(
                m,
                Entity::InterfaceAssignment,
                "an interface assignment",
                Section::InterfaceAssignment,
            );
        }
        let inherits_unknown = self.inherits_unknown;
        self.inherits_unknown |= self.def_type_unknown(def, Kind::Interface);
        let inputs = self.interface_parts(def, "inputs");
        if let Some(i) = m.get("inputs") {
            self.at("inputs", |c| c.input_assignments(i, &inputs, None));
        }
        for key in ["operations", "notifications"] {
            let Some(ops) = m.get(key) else { continue };
            let defs = self.interface_parts(def, key);
            self.at(key, |c| {
                let Some(om) = c.named_map(ops, &format!("`{key}`"), Section::OperationAssignment)
                else {
                    return;
                };
                let defs_by_name = ByName::new(&defs);
                for (k, ov) in om.iter() {
                    let Some(od) = defs_by_name.get(k.name()) else {
                        let what = if key == "operations" {
                            "operation"
                        } else {
                            "notification"
                        };
                        let message =
                            format!("{what} `{}` is not defined by the interface", k.name());
                        if c.undefined(
                            Code::UndefinedReference,
                            Section::OperationAssignment,
                            k.span(),
                            message,
                        ) {
                            c.defined_names(k.name(), defs.iter().map(|(n, _)| *n), what);
                        }
                        continue;
                    };
                    c.at(k.name(), |c| c.operation_assignment(k.name(), ov, od));
                }
            });
        }
        if v13 {
            let defs = self.interface_parts(def, "operations");
            let defs_by_name = ByName::new(&defs);
            for (k, ov) in m.iter() {
                if k.name() == "inputs" || k.name() == "operations" || k.name() == "notifications" {
                    continue;
                }
                match defs_by_name.get(k.name()) {
                    Some(od) => self.at(k.name(), |c| c.operation_assignment(k.name(), ov, od)),
                    None => {
                        let message =
                            format!("operation `{}` is not defined by the interface", k.name());
                        if self.undefined(
                            Code::UndefinedReference,
                            Section::V13OperationDefinition,
                            k.span(),
                            message,
                        ) {
                            let names = defs.iter().map(|(n, _)| *n);
                            self.defined_names(k.name(), names, "operation");
                        }
                    }
                }
            }
        }
        self.inherits_unknown = inherits_unknown;
    }

    /// Parameter value assignments (§9.9); fixed-value inputs cannot be
    /// assigned. Undefined inputs are allowed, unless the inputs are those
    /// of `strict`, an operation or workflow called (named for the message,
    /// with the section of its call).
    pub(super) fn input_assignments(
        &mut self,
        node: NodeRef<'a>,
        defs: &[(&'a str, Param<'a>)],
        strict: Option<(&str, Section)>,
    ) {
        let Some(map) = self.named_map(node, "`inputs`", Section::ParameterValueAssignment) else {
            return;
        };
        let defs_by_name = ByName::new(defs);
        for (k, v) in map.iter() {
            match defs_by_name.get(k.name()) {
                Some(p) => self.at(k.name(), |c| {
                    c.assignment(k.name(), v, p, "input", Section::ParameterValueAssignment)
                }),
                None => {
                    if let Some((called, section)) = strict {
                        self.error(
                            Code::UndefinedReference,
                            section,
                            k.span(),
                            format!("`{}` is not an input of {called}", k.name()),
                        );
                        self.defined_names(k.name(), defs.iter().map(|(n, _)| *n), "input");
                    }
                    self.at(k.name(), |c| c.check_functions(v));
                }
            }
        }
    }

    /// `instantiate: []`, how OpenStack Tacker's and ETSI NFV's descriptors
    /// write "no implementation": an operation is an implementation
    /// artifact name or a map (`what` says which). Reports a list; `true`
    /// if `v` is one.
    pub(super) fn operation_list(&mut self, v: NodeRef<'a>, what: &str, section: Section) -> bool {
        if v.as_seq().is_none() {
            return false;
        }
        let message = format!(
            "{what} is an implementation artifact name or a map, not {}",
            value::describe(v)
        );
        self.error(Code::InvalidShape, section, v.span(), message);
        true
    }

    /// An operation or notification assignment (§11.5, §11.7).
    fn operation_assignment(&mut self, name: &str, v: NodeRef<'a>, def: &Param<'a>) {
        if v.is_null() {
            return;
        }
        if self.operation_list(v, "an operation assignment", Section::OperationAssignment) {
            self.note(format!(
                "for no implementation, assign nothing (`{name}:`) or leave the operation out"
            ));
            return;
        }
        if super::defs::is_short_form(v) {
            self.implementation(v, None);
            return;
        }
        let Some(m) = v.as_map() else { return };
        self.keys(
            m,
            Entity::OperationAssignment,
            "an operation assignment",
            Section::OperationAssignment,
        );
        if let Some(i) = m.get("implementation") {
            self.at("implementation", |c| c.implementation(i, None));
        }
        if let Some(i) = m.get("inputs") {
            let inputs = super::defs::collect_section(&def.defs, "inputs");
            self.at("inputs", |c| c.input_assignments(i, &inputs, None));
        }
        if let Some(o) = m.get("outputs") {
            let outputs = super::defs::collect_section(&def.defs, "outputs");
            self.at("outputs", |c| {
                let Some(om) = c.named_map(o, "`outputs`", Section::ParameterMappingAssignment)
                else {
                    return;
                };
                for (k, mv) in om.iter() {
                    if outputs
                        .iter()
                        .any(|(n, p)| *n == k.name() && p.mapping().is_some())
                    {
                        c.error(
                            Code::Definition,
                            Section::OperationAssignment,
                            k.span(),
                            format!("output `{}` is already mapped in its definition", k.name()),
                        );
                    }
                    if !c.v13() {
                        c.at(k.name(), |c| c.attribute_selection(mv));
                    }
                }
            });
        }
    }

    fn relationship_templates(&mut self, node: NodeRef<'a>, idx: &Index<'a>) {
        let section = Section::RelationshipTemplate;
        let Some(map) = self.named_map(node, "`relationship_templates`", section) else {
            return;
        };
        for (k, v) in map.iter() {
            let ty = idx.relationships.get(k.name()).copied().flatten();
            self.at(k.name(), |c| {
                let Some(own) = c.expect_map(v, "a relationship template", section) else {
                    return;
                };
                c.keys(
                    own,
                    Entity::RelationshipTemplate,
                    "a relationship template",
                    section,
                );
                let source = c.copy_source(own, map, "relationship template", section);
                let tpl = Tpl { own, source };
                let Some(tn) = tpl.get("type") else {
                    if !own.contains_key("copy") {
                        c.error(
                            Code::MissingKeyname,
                            section,
                            v.span(),
                            format!("relationship template `{}` needs a `type`", k.name()),
                        );
                    }
                    return;
                };
                let Some(ty) = ty else {
                    c.at("type", |c| {
                        c.type_ref(tn, Kind::Relationship, section);
                    });
                    return;
                };
                c.at("type", |c| c.non_normative_use(ty, tn.span()));
                c.fctx.self_relationship = true;
                c.inherits_unknown = c.ts.inherits_unknown(ty);
                let props = c.type_entries(ty, "properties");
                match tpl.get("properties") {
                    Some(p) => c.at("properties", |c| {
                        c.assignments(p, &props, Role::Property, Section::PropertyAssignment, true)
                    }),
                    None => {
                        c.required_assigned(None, &props, v.span(), Section::PropertyAssignment)
                    }
                }
                if let Some(a) = tpl.get("attributes") {
                    let attrs = c.type_attributes(ty);
                    c.at("attributes", |c| {
                        c.assignments(
                            a,
                            &attrs,
                            Role::Attribute,
                            Section::AttributeAssignment,
                            false,
                        )
                    });
                }
                if let Some(i) = tpl.get("interfaces") {
                    let defs = c.type_entries(ty, "interfaces");
                    c.at("interfaces", |c| {
                        c.interface_assignments(i, &defs, Section::RelationshipTemplate)
                    });
                }
                c.common_keynames(own);
                c.fctx.self_relationship = false;
                c.inherits_unknown = false;
            });
        }
    }

    /// Function definitions inside a service template refine the outer ones:
    /// only implementations change, new signatures are appended (§10.4).
    fn function_refinements(&mut self, node: NodeRef<'a>) {
        self.function_definitions(node);
        let Some(map) = node.as_map() else { return };
        for (k, def) in map.iter() {
            let outer = self
                .loaded
                .doc(self.doc)
                .root
                .node()
                .get("functions")
                .and_then(|f| f.get(k.name()))
                .or_else(|| {
                    self.ts
                        .resolve(self.doc, crate::types::Space::Function, k.name())
                        .ok()
                        .map(|e| self.ts.functions[e as usize].def)
                });
            let Some(outer_sigs) = outer
                .and_then(|o| o.get("signatures"))
                .and_then(NodeRef::as_seq)
            else {
                continue;
            };
            let Some(sigs) = def.get("signatures").and_then(NodeRef::as_seq) else {
                continue;
            };
            for (i, sig) in sigs.iter().enumerate().take(outer_sigs.len()) {
                if let Some(sm) = sig.as_map() {
                    for (sk, _) in sm.iter() {
                        if sk.name() != "implementation" {
                            self.error(
                                Code::Definition,
                                Section::FunctionDefinitions,
                                sk.span(),
                                format!("refining signature {i} of `{}` may only change its `implementation`", k.name()),
                            );
                        }
                    }
                }
            }
        }
    }
}

/// A range `[min, max]` as written, `u64::MAX` as `UNBOUNDED`.
pub(super) fn show_range((lo, hi): (u64, u64)) -> String {
    match hi {
        u64::MAX => format!("[{lo}, UNBOUNDED]"),
        _ => format!("[{lo}, {hi}]"),
    }
}
