//! Groups and policies of a service template (§16; TOSCA 1.3 §3.8.5,
//! §3.8.6): their types, members and targets (which must fit the lists of
//! their types), property assignments, and policy triggers with their
//! conditions and actions.

use crate::keynames::Entity;
use crate::section::Section;
use v4t_source::Code;
use v4t_yaml::hash::SeededSet;
use v4t_yaml::NodeRef;

use super::defs::Role;
use super::template::Index;
use super::Checker;
use crate::types::Kind;

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
            self.at("triggers", |c| {
                c.each_entry(tr, "`triggers`", Section::TriggerDefinition, |c, _, def| {
                    c.trigger(def)
                });
            });
        }
    }

    /// A trigger definition (§16.5).
    pub(super) fn trigger(&mut self, def: NodeRef<'a>) {
        let Some(m) = self.expect_map(def, "a trigger definition", Section::TriggerDefinition)
        else {
            return;
        };
        if self.v13() {
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
}
