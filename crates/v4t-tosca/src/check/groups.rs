//! Groups and policies of a service template (§16; TOSCA 1.3 §3.8.5,
//! §3.8.6): their types, members and targets (which must fit the lists of
//! their types), property assignments, and policy triggers with their
//! conditions and actions.

use crate::keynames::{is_keyname, Entity};
use crate::section::Section;
use v4t_source::Code;
use v4t_yaml::hash::SeededSet;
use v4t_yaml::{MapRef, NodeRef, SeqRef, Span};

use super::defs::Role;
use super::template::{Index, Tpl};
use super::Checker;
use crate::types::{Kind, TypeId};
use crate::value;

impl<'t, 'a> Checker<'t, 'a> {
    /// The group definitions (§16.2): type, members (node templates the
    /// group type allows), properties and attributes.
    pub(super) fn groups(&mut self, node: NodeRef<'a>, idx: &Index<'a>) {
        let section = Section::GroupDefinition;
        let Some(map) = self.named_map(node, "`groups`", section) else {
            return;
        };
        for (k, v) in map.iter() {
            self.at(k.name(), |c| {
                let Some(m) = c.expect_map(v, "a group definition", section) else { return };
                c.keys(m, Entity::Group, "a group definition", section);
                let ty = match m.get("type") {
                    Some(tn) => c.at("type", |c| c.type_ref(tn, Kind::Group, section)),
                    None => {
                        c.error(Code::MissingKeyname, section, v.span(), format!("group `{}` needs a `type`", k.name()));
                        None
                    }
                };
                if let Some(ty) = ty {
                    let props = c.type_entries(ty, "properties");
                    match m.get("properties") {
                        Some(p) => c.at("properties", |c| c.assignments(p, &props, Role::Property, Section::GroupDefinition, true)),
                        None => c.required_assigned(None, &props, v.span(), Section::GroupDefinition),
                    }
                    if let Some(a) = m.get("attributes") {
                        let attrs = c.type_attributes(ty);
                        c.at("attributes", |c| c.assignments(a, &attrs, Role::Attribute, Section::GroupDefinition, false));
                    }
                }
                if let Some(mem) = m.get("members") {
                    let allowed = ty.and_then(|t| c.ts.inherited(t, "members")).map(|l| c.types_in_list(l, Kind::Node));
                    c.at("members", |c| {
                        for (name, span) in c.expect_str_list(mem, "`members`", section) {
                            if let Some((nt, _)) = idx.node(name) {
                                if let (Some(nt), Some(allowed)) = (&nt, &allowed) {
                                    if !allowed.iter().any(|&a| c.ts.is_a(*nt, a)) {
                                        let message = format!(
                                            "node template `{name}` (type `{}`) is not a valid member of this group type",
                                            c.type_name(*nt)
                                        );
                                        c.error(Code::Template, section, span, message);
                                    }
                                }
                            } else if idx.groups.contains_key(name) {
                                // Nested groups (§16.2 placeholder text).
                            } else {
                                c.error(
                                    Code::Template,
                                    section,
                                    span,
                                    format!("group member `{name}` is not a node template of this service template"),
                                );
                                c.did_you_mean(name, idx.nodes.keys().copied());
                            }
                        }
                    });
                }
            });
        }
    }

    /// The policy definitions (§16.4): a list of single-entry maps.
    pub(super) fn policies(&mut self, node: NodeRef<'a>, idx: &Index<'a>) {
        let section = Section::PolicyDefinition;
        if node.is_null() {
            self.error(
                Code::InvalidShape,
                Section::PolicyDefinitions,
                node.span(),
                "`policies` is empty",
            );
            self.note("omit it or list policy definitions");
            return;
        }
        let Some(list) = self.expect_seq(node, "`policies`", Section::PolicyDefinitions) else {
            return;
        };
        let mut names: SeededSet<&str> = SeededSet::default();
        for (i, item) in list.iter().enumerate() {
            self.at_index(i, |c| {
                let Some(m) = c.expect_map(item, "a policy definition", section) else { return };
                if m.len() != 1 {
                    c.error(Code::InvalidShape, Section::PolicyDefinitions, item.span(), "each entry of `policies` is a single-key map `<name>: <policy definition>`");
                    return;
                }
                let (k, v) = m.first().expect("one entry");
                if !names.insert(k.name()) {
                    c.error(Code::Duplicate, Section::ServiceTemplateGrammar, k.span(), format!("policy `{}` is defined twice", k.name()));
                }
                c.at(k.name(), |c| c.policy(v, idx, section));
            });
        }
    }

    /// One policy definition: type, targets (node templates and groups the
    /// policy type allows), properties and triggers.
    fn policy(&mut self, v: NodeRef<'a>, idx: &Index<'a>, section: Section) {
        let Some(m) = self.expect_map(v, "a policy definition", section) else {
            return;
        };
        self.keys(m, Entity::Policy, "a policy definition", section);
        let ty = match m.get("type") {
            Some(tn) => self.at("type", |c| c.type_ref(tn, Kind::Policy, section)),
            None => {
                self.error(
                    Code::MissingKeyname,
                    section,
                    v.span(),
                    "a policy definition needs a `type`",
                );
                None
            }
        };
        if let Some(ty) = ty {
            let props = self.type_entries(ty, "properties");
            match m.get("properties") {
                Some(p) => self.at("properties", |c| {
                    c.assignments(p, &props, Role::Property, Section::PolicyDefinition, true)
                }),
                None => self.required_assigned(None, &props, v.span(), Section::PolicyDefinition),
            }
        }
        if let Some(t) = m.get("targets") {
            let allowed = ty.and_then(|t| self.ts.inherited(t, "targets")).map(|l| {
                let mut v = self.types_in_list(l, Kind::Node);
                v.extend(self.types_in_list(l, Kind::Group));
                v
            });
            self.at("targets", |c| {
                for (name, span) in c.expect_str_list(t, "`targets`", section) {
                    let target_type = match idx.node(name) {
                        Some((t, _)) => t,
                        None => match idx.groups.get(name) {
                            Some(t) => *t,
                            None => {
                                c.error(
                                    Code::Template,
                                    section,
                                    span,
                                    format!("policy target `{name}` is neither a node template nor a group"),
                                );
                                continue;
                            }
                        },
                    };
                    if let (Some(tt), Some(allowed)) = (target_type, &allowed) {
                        if !allowed.iter().any(|&a| c.ts.is_a(tt, a)) {
                            let message = format!("`{name}` (type `{}`) is not a valid target of this policy type", c.type_name(tt));
                            c.error(Code::Template, section, span, message);
                        }
                    }
                }
            });
        }
        if let Some(tr) = m.get("triggers") {
            // A trigger's actions apply "to the target(s) of this trigger's
            // policy" (1.3 §3.6.22.3): checked against a lone node target.
            let lone = m
                .get("targets")
                .and_then(NodeRef::as_seq)
                .and_then(SeqRef::array);
            let target = lone
                .and_then(|[one]| value::as_str(one))
                .and_then(|name| idx.node(name))
                .and_then(|(t, tpl)| Some((t?, tpl)));
            self.at("triggers", |c| {
                c.each_entry(tr, "`triggers`", Section::TriggerDefinition, |c, _, def| {
                    c.trigger(def, Some(idx), target)
                });
            });
        }
    }

    /// A trigger definition (§16.5), of a policy type or of a policy of
    /// the service template `idx` (whose lone node `target` its actions
    /// apply to).
    pub(super) fn trigger(
        &mut self,
        def: NodeRef<'a>,
        idx: Option<&Index<'a>>,
        target: Option<(TypeId, Tpl<'a>)>,
    ) {
        let Some(m) = self.expect_map(def, "a trigger definition", Section::TriggerDefinition)
        else {
            return;
        };
        if self.v13() {
            if self.declares_13() {
                self.trigger_13(m, def.span(), idx, target);
            }
            return;
        }
        self.keys(
            m,
            Entity::Trigger,
            "a trigger definition",
            Section::TriggerDefinition,
        );
        match m.get("event") {
            Some(e) => {
                self.expect_str(e, "`event`", Section::TriggerDefinition);
            }
            None => self.error(
                Code::MissingKeyname,
                Section::TriggerDefinition,
                def.span(),
                "a trigger needs an `event`",
            ),
        }
        if let Some(c) = m.get("condition") {
            self.at("condition", |ch| {
                ch.condition(c, Section::TriggerDefinition)
            });
        }
        match m.get("action") {
            Some(a) => self.at("action", |c| c.activities(a, None, None)),
            None => self.error(
                Code::MissingKeyname,
                Section::TriggerDefinition,
                def.span(),
                "a trigger needs an `action`",
            ),
        }
    }

    /// A TOSCA 1.3 trigger definition (1.3 §3.6.22). Only files that
    /// declare 1.3 are checked: OpenStack's 1.0 files write triggers in
    /// forms of their own (`metric`, `event_type` as a map, `action` as a
    /// map of operations), and 1.0 to 1.2 are not at hand to tell which
    /// of them those versions allowed.
    fn trigger_13(
        &mut self,
        m: MapRef<'a>,
        span: Span,
        idx: Option<&Index<'a>>,
        target: Option<(TypeId, Tpl<'a>)>,
    ) {
        const SECTION: Section = Section::V13Trigger;
        self.keys(m, Entity::Trigger, "a trigger definition", SECTION);
        match m.get_entry("event").or_else(|| m.get_entry("event_type")) {
            Some((k, e)) => {
                self.expect_str(e, &format!("`{}`", k.name()), SECTION);
            }
            None => self.error(
                Code::MissingKeyname,
                SECTION,
                span,
                "a trigger needs an `event`",
            ),
        }
        if let Some(s) = m.get("schedule") {
            self.at("schedule", |c| {
                c.check_value_of(s, "tosca.datatypes.TimeInterval", SECTION)
            });
        }
        // The condition tests the node the filter locates, else the
        // policy's target.
        let subject = match m.get("target_filter") {
            Some(f) => self.at("target_filter", |c| c.event_filter_13(f, idx)),
            None => target.map(|(t, _)| t),
        };
        if let Some(cond) = m.get("condition") {
            self.at("condition", |c| c.trigger_condition_13(cond, subject));
        }
        match m.get("action") {
            Some(a) => self.at("action", |c| c.activities(a, target, idx)),
            None => self.error(
                Code::MissingKeyname,
                SECTION,
                span,
                "a trigger needs an `action`",
            ),
        }
    }

    /// A trigger's `target_filter` (1.3 §3.6.21): a node type or node
    /// template, and the requirement or capability of that node (checked
    /// where the node is a template, whose type is the node's; with a
    /// requirement, the capability is of "the node that is targeted by the
    /// requirement"). Returns the type of what holds the attributes to
    /// monitor, where known: the node template it locates (the filter's,
    /// or the one node template its assignments of the requirement name),
    /// or that template's capability (of its capability type, where the
    /// node type's definition of it refines none of its parameters: 1.x
    /// does not restrict what a refinement changes).
    fn event_filter_13(&mut self, f: NodeRef<'a>, idx: Option<&Index<'a>>) -> Option<TypeId> {
        const SECTION: Section = Section::V13EventFilter;
        let m = self.expect_map(f, "an event filter", SECTION)?;
        self.keys(m, Entity::EventFilter13, "an event filter", SECTION);
        let Some(node) = m.get("node") else {
            self.error(
                Code::MissingKeyname,
                SECTION,
                f.span(),
                "an event filter needs a `node`",
            );
            return None;
        };
        let name = self.expect_str(node, "`node`", SECTION)?;
        let (idx, (ty, tpl)) = match idx.map(|i| (i, i.node(name))) {
            Some((i, Some((ty, tpl)))) => (i, (ty?, tpl)),
            // A policy type's filter may name the templates of any service.
            None => return None,
            Some((_, None)) => {
                if self.ts.resolve_type(self.doc, Kind::Node, name).is_err() {
                    let message = format!("`{name}` is neither a node template nor a node type");
                    self.error(Code::UndefinedReference, SECTION, node.span(), message);
                }
                return None;
            }
        };
        let mut holder = Some((format!("node template `{name}`"), ty));
        if let Some(r) = m.get("requirement") {
            let req = self.expect_str(r, "`requirement`", SECTION)?;
            if !self.node_requirements(ty).iter().any(|(n, _)| *n == req) {
                let message = format!("node template `{name}` has no requirement `{req}`");
                self.error(Code::UndefinedReference, SECTION, r.span(), message);
                return None;
            }
            holder = self.assigned_target(tpl, req, idx).map(|(target, ty)| {
                let what = format!("node template `{target}` (the target of `{req}`)");
                (what, ty)
            });
        }
        let Some(c) = m.get("capability") else {
            return holder.map(|(_, t)| t);
        };
        let cap = self.expect_str(c, "`capability`", SECTION)?;
        let (what, ty) = holder?;
        let caps = self.node_capabilities(ty);
        let Some((_, def)) = caps.iter().find(|(n, _)| *n == cap) else {
            let message = format!("{what} has no capability `{cap}`");
            self.error(Code::UndefinedReference, SECTION, c.span(), message);
            return None;
        };
        let refined = def
            .defs
            .iter()
            .any(|d| d.node.get("attributes").is_some() || d.node.get("properties").is_some());
        (!refined).then(|| self.capability_type_of(def)).flatten()
    }

    /// A trigger's `condition` (1.3 §3.6.22): condition clauses, or the
    /// extended notation with the clauses under `constraint` and how they
    /// are evaluated (`period`, `evaluations`, `method`).
    fn trigger_condition_13(&mut self, cond: NodeRef<'a>, subject: Option<TypeId>) {
        const SECTION: Section = Section::V13Trigger;
        let extended = cond.as_map().filter(|m| {
            m.iter()
                .all(|(k, _)| is_keyname(Entity::TriggerCondition13, self.grammar, k.name()))
        });
        let Some(m) = extended else {
            self.condition_on(cond, SECTION, subject);
            return;
        };
        for (k, v) in m.iter() {
            self.at(k.name(), |c| match k.name() {
                "constraint" => c.condition_on(v, SECTION, subject),
                "period" => c.check_value_of(v, "scalar-unit.time", SECTION),
                "evaluations" => c.check_value_of(v, "integer", SECTION),
                _ => c.check_value_of(v, "string", SECTION),
            });
        }
    }
}
