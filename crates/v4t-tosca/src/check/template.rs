//! The service template (§6.9; TOSCA 1.3's `topology_template`): inputs
//! and outputs, node templates (§7.2) with their property, attribute,
//! capability, requirement (§8.5), interface (§11.3) and artifact
//! assignments, relationship templates (§7.4), groups and policies (§16)
//! and workflows (§13); substitution mappings (§15) are in
//! [`super::substitution`].

use std::collections::HashMap;
use std::rc::Rc;
use v4t_source::Code;

use v4t_yaml::{Map, Node, Span};

use super::defs::{DefNode, Param, Place, Role};
use super::funcs::{Call, FnCtx};
use super::Checker;
use crate::types::{Kind, TypeId};
use crate::value::{self, Scalar};

const TEMPLATE_KEYS_20: &[&str] = &[
    "description",
    "metadata",
    "inputs",
    "outputs",
    "node_templates",
    "relationship_templates",
    "groups",
    "policies",
    "substitution_mappings",
    "workflows",
    "functions",
];

const TEMPLATE_KEYS_13: &[&str] = &[
    "description",
    "metadata",
    "inputs",
    "outputs",
    "node_templates",
    "relationship_templates",
    "groups",
    "policies",
    "substitution_mappings",
    "workflows",
];

/// The keynames of a node template (§7.2).
const NODE_TEMPLATE_KEYS: &[&str] = &[
    "type",
    "description",
    "metadata",
    "directives",
    "properties",
    "attributes",
    "requirements",
    "capabilities",
    "interfaces",
    "artifacts",
    "count",
    "node_filter",
    "copy",
];

/// A template with `copy` (§7.2, §7.4): its own keynames over the source's.
#[derive(Clone, Copy)]
pub(super) struct Tpl<'a> {
    own: &'a Map,
    source: Option<&'a Map>,
}

impl<'a> Tpl<'a> {
    pub(super) fn get(&self, key: &str) -> Option<&'a Node> {
        self.own
            .get(key)
            .or_else(|| self.source.and_then(|s| s.get(key)))
    }
}

/// The parts of a service template other parts refer to, by name.
#[derive(Default)]
pub(super) struct Index<'a> {
    pub(super) nodes: HashMap<&'a str, (Option<TypeId>, Tpl<'a>)>,
    pub(super) relationships: HashMap<&'a str, Option<TypeId>>,
    pub(super) groups: HashMap<&'a str, Option<TypeId>>,
    pub(super) workflows: Vec<&'a str>,
    pub(super) inputs: Option<&'a Map>,
    pub(super) outputs: Option<&'a Map>,
}

impl<'a> Index<'a> {
    /// The type (if it resolves) and the template of node template `name`.
    pub(super) fn node(&self, name: &str) -> Option<(Option<TypeId>, Tpl<'a>)> {
        self.nodes.get(name).copied()
    }
}

impl<'t, 'a> Checker<'t, 'a> {
    pub(super) fn service_template(&mut self, v: &'a Node) {
        let section = self.sec("6.9.1", "1.3 3.9");
        let Some(map) = self.expect_map(v, "the service template", section) else {
            return;
        };
        let keys = if self.v13() {
            TEMPLATE_KEYS_13
        } else {
            TEMPLATE_KEYS_20
        };
        self.keys(map, keys, "the service template", section);
        if !map.contains_key("node_templates") && !self.v13() {
            self.error(
                Code::MissingKeyname,
                "6.9.1",
                v.span,
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
            let key = k.name.as_str();
            self.at(key, |c| match key {
                "description" => c.description(node),
                "metadata" => c.metadata(node),
                "inputs" => c.param_defs(
                    node,
                    Role::Incoming,
                    Place::Template,
                    &[],
                    ("6.9.2", "`inputs`"),
                    true,
                ),
                "outputs" => c.param_defs(
                    node,
                    Role::Outgoing,
                    Place::Template,
                    &[],
                    ("6.9.5", "`outputs`"),
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
    fn index(&self, map: &'a Map) -> Index<'a> {
        let mut idx = Index {
            inputs: map.get("inputs").and_then(Node::as_map),
            outputs: map.get("outputs").and_then(Node::as_map),
            ..Index::default()
        };
        let typed = |c: &Self, tpl: Tpl<'a>, kind: Kind| -> Option<TypeId> {
            let name = value::as_str(tpl.get("type")?)?;
            c.ts.resolve_type(c.doc, kind, name).ok()
        };
        let templates = |key: &str| map.get(key).and_then(Node::as_map);
        if let Some(nodes) = templates("node_templates") {
            for (k, v) in nodes.iter() {
                let Some(own) = v.as_map() else {
                    idx.nodes.insert(
                        k.name.as_str(),
                        (
                            None,
                            Tpl {
                                own: &EMPTY,
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
                    .and_then(Node::as_map);
                let tpl = Tpl { own, source };
                idx.nodes
                    .insert(k.name.as_str(), (typed(self, tpl, Kind::Node), tpl));
            }
        }
        if let Some(rels) = templates("relationship_templates") {
            for (k, v) in rels.iter() {
                let own = v.as_map().unwrap_or(&EMPTY);
                let source = own
                    .get("copy")
                    .and_then(value::as_str)
                    .and_then(|s| rels.get(s))
                    .and_then(Node::as_map);
                idx.relationships.insert(
                    k.name.as_str(),
                    typed(self, Tpl { own, source }, Kind::Relationship),
                );
            }
        }
        if let Some(groups) = templates("groups") {
            for (k, v) in groups.iter() {
                let own = v.as_map().unwrap_or(&EMPTY);
                idx.groups.insert(
                    k.name.as_str(),
                    typed(self, Tpl { own, source: None }, Kind::Group),
                );
            }
        }
        if let Some(w) = templates("workflows") {
            idx.workflows = w.keys().collect();
        }
        idx
    }

    fn node_templates(&mut self, node: &'a Node, idx: &Index<'a>) {
        let Some(map) = self.named_map(node, "`node_templates`", self.sec("6.9.3", "1.3 3.9"))
        else {
            return;
        };
        for (k, v) in map.iter() {
            let (ty, tpl) = idx.node(&k.name).expect("indexed");
            self.at(k.name.as_str(), |c| {
                c.node_template(k.name.as_str(), v, ty, tpl, idx, map)
            });
        }
    }

    /// Resolves `copy` (§7.2, §7.4): the source exists and does not copy.
    fn copy_source(
        &mut self,
        own: &'a Map,
        all: &'a Map,
        what: &str,
        section: &'static str,
    ) -> Option<&'a Map> {
        let c = own.get("copy")?;
        let name = self.expect_str(c, "`copy`", section)?;
        match all.get(name).and_then(Node::as_map) {
            None => {
                self.error(
                    Code::Template,
                    section,
                    c.span,
                    format!("`copy` names `{name}`, which is not a {what}"),
                );
                None
            }
            Some(src) => {
                if src.contains_key("copy") {
                    self.error(
                        Code::Template,
                        section,
                        c.span,
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
        v: &'a Node,
        ty: Option<TypeId>,
        _tpl: Tpl<'a>,
        idx: &Index<'a>,
        all: &'a Map,
    ) {
        let section = self.sec("7.2", "1.3 3.8.3");
        let Some(own) = self.expect_map(v, "a node template", section) else {
            return;
        };
        // `count` is new in TOSCA 2.0 (§7.2).
        let keys: Vec<&str> = NODE_TEMPLATE_KEYS
            .iter()
            .copied()
            .filter(|k| !(self.v13() && *k == "count"))
            .collect();
        self.keys(own, &keys, "a node template", section);
        let source = self.copy_source(own, all, "node template", section);
        let tpl = Tpl { own, source };
        if let Some(d) = own.get("description") {
            self.description(d);
        }
        if let Some(m) = own.get("metadata") {
            self.metadata(m);
        }
        let Some(type_node) = tpl.get("type") else {
            self.error(
                Code::MissingKeyname,
                section,
                v.span,
                format!("node template `{name}` needs a `type`"),
            );
            return;
        };
        let Some(ty) = ty else {
            self.at("type", |c| {
                c.type_ref(type_node, Kind::Node, section);
            });
            return;
        };
        let mut select = false;
        if let Some(d) = tpl.get("directives") {
            self.at("directives", |c| {
                let allowed: &[&str] = if c.v13() {
                    &[
                        "substitute",
                        "substitutable",
                        "select",
                        "selectable",
                        "create",
                    ]
                } else {
                    &["create", "select", "substitute"]
                };
                for (dname, span) in c.expect_str_list(d, "`directives`", "7.2.1") {
                    if dname == "select" {
                        select = true;
                    }
                    if !allowed.contains(&dname) {
                        c.error(
                            Code::InvalidShape,
                            "7.2.1",
                            span,
                            format!(
                                "unknown node template directive `{dname}` (allowed: {})",
                                allowed.join(", ")
                            ),
                        );
                    }
                }
            });
        }
        self.fctx.self_node = Some(ty);
        self.fctx.self_relationship = false;
        if let Some(f) = tpl.get("node_filter") {
            if !select && !self.v13() {
                self.warning(
                    Code::ToscaNotice,
                    "7.2.1",
                    f.span,
                    "`node_filter` is only used with the `select` directive",
                );
            }
            self.at("node_filter", |c| c.condition(f, "8.6"));
        }
        if let Some(count) = tpl.get("count") {
            self.at("count", |c| c.count(count, "7.2"));
        }
        if select {
            // Only `node_filter` matters for a selected node (§7.2.1).
            self.fctx.self_node = None;
            return;
        }
        let props = self.type_entries(ty, "properties");
        match tpl.get("properties") {
            Some(p) => self.at("properties", |c| {
                c.assignments(p, &props, Role::Property, "9.5", true)
            }),
            None => self.required_assigned(None, &props, v.span, "9.5"),
        }
        if let Some(a) = tpl.get("attributes") {
            let attrs = self.type_attributes(ty);
            self.at("attributes", |c| {
                c.assignments(a, &attrs, Role::Attribute, "9.7", false)
            });
        }
        self.capability_assignments(tpl.get("capabilities"), ty, v.span);
        if let Some(r) = tpl.get("requirements") {
            self.at("requirements", |c| {
                c.requirement_assignments(name, r, ty, idx)
            });
        } else {
            self.requirement_counts(name, &[], ty, v.span);
        }
        if let Some(i) = tpl.get("interfaces") {
            let defs = self.type_entries(ty, "interfaces");
            self.at("interfaces", |c| c.interface_assignments(i, &defs, "11.3"));
        }
        if let Some(a) = tpl.get("artifacts") {
            self.at("artifacts", |c| {
                let Some(m) = c.named_map(a, "`artifacts`", "12.2") else {
                    return;
                };
                for (k, def) in m.iter() {
                    c.at(k.name.as_str(), |c| c.artifact_def(def));
                }
            });
        }
        self.fctx.self_node = None;
    }

    /// `count` of a node template or requirement: a non-negative integer or
    /// a function (§7.2, §8.5.1).
    fn count(&mut self, count: &'a Node, section: &'static str) {
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
                        count.span,
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
    pub(super) fn condition(&mut self, v: &'a Node, section: &'static str) {
        if self.v13() {
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
                            v.span,
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
                        v.span,
                        "a condition clause must be a Boolean expression (a function call such as `$equal`)",
                    );
                }
            }
        }
    }

    /// Property or attribute assignments against their definitions (§9.5,
    /// §9.7); with `check_required`, every required property needs a value.
    pub(super) fn assignments(
        &mut self,
        node: &'a Node,
        defs: &[(&'a str, Param<'a>)],
        role: Role,
        section: &'static str,
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
        for (k, v) in map.iter() {
            let Some((_, p)) = defs.iter().find(|(n, _)| *n == k.name) else {
                self.error(
                    Code::UndefinedReference,
                    section,
                    k.span,
                    format!("`{}` is not a defined {what}", k.name),
                );
                continue;
            };
            self.at(k.name.as_str(), |c| {
                c.assignment(k.name.as_str(), v, p, what, section)
            });
        }
        if check_required {
            self.required_assigned(Some(map), defs, node.span, section);
        }
    }

    /// One value assigned to a defined property, attribute or parameter.
    fn assignment(
        &mut self,
        name: &str,
        v: &'a Node,
        p: &Param<'a>,
        what: &str,
        section: &'static str,
    ) {
        if p.fixed().is_some() {
            self.error(
                Code::Definition,
                section,
                v.span,
                format!("{what} `{name}` has a fixed value and cannot be assigned"),
            );
            return;
        }
        if p.required() && what != "attribute" {
            if let Some(input) = self.optional_input(v) {
                self.error(
                    Code::MissingValue,
                    section,
                    v.span,
                    format!("required {what} `{name}` takes its value from the optional input `{input}`, which may have none"),
                );
            }
        }
        match self.param_schema(p) {
            Some(s) => self.check_value(v, &s, section),
            None => self.check_functions(v),
        }
    }

    /// Every required property without a default or fixed value is assigned.
    pub(super) fn required_assigned(
        &mut self,
        map: Option<&'a Map>,
        defs: &[(&'a str, Param<'a>)],
        span: Span,
        section: &'static str,
    ) {
        for (name, p) in defs {
            let assigned = map.is_some_and(|m| m.contains_key(name));
            if !assigned && p.required() && p.default().is_none() && p.fixed().is_none() {
                self.error(
                    Code::MissingValue,
                    section,
                    span,
                    format!("required property `{name}` has no value: assign one (a `nil` property is assigned `null`)"),
                );
            }
        }
    }

    /// The properties of a capability of node type `ty`: the capability
    /// type's, refined by the capability definitions.
    fn capability_properties(&self, cap: &Param<'a>, key: &str) -> Vec<(&'a str, Param<'a>)> {
        let Some(ct) = self.capability_type_of(cap) else {
            return Vec::new();
        };
        let mut defs = if key == "attributes" {
            self.type_attributes(ct)
        } else {
            self.type_entries(ct, key)
        };
        for d in &cap.defs {
            let Some(m) = d.node.get(key).and_then(Node::as_map) else {
                continue;
            };
            for (k, v) in m.iter() {
                if let Some((_, p)) = defs.iter_mut().find(|(n, _)| *n == k.name) {
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
    fn capability_assignments(&mut self, node: Option<&'a Node>, ty: TypeId, span: Span) {
        let caps = self.node_capabilities(ty);
        let map = match node {
            Some(n) => self.at("capabilities", |c| c.named_map(n, "`capabilities`", "8.3")),
            None => None,
        };
        if let Some(map) = map {
            self.path.push("capabilities");
            for (k, v) in map.iter() {
                let Some((_, cap)) = caps.iter().find(|(n, _)| *n == k.name) else {
                    let message = format!(
                        "node type `{}` has no capability `{}`",
                        self.type_name(ty),
                        k.name
                    );
                    self.error(Code::UndefinedReference, "8.3", k.span, message);
                    continue;
                };
                self.at(k.name.as_str(), |c| {
                    let Some(m) = c.expect_map(v, "a capability assignment", "8.3") else { return };
                    let allowed: &[&str] = if c.v13() {
                        &["properties", "attributes", "occurrences"]
                    } else {
                        &["properties", "attributes", "directives"]
                    };
                    c.keys(m, allowed, "a capability assignment", "8.3");
                    let props = c.capability_properties(cap, "properties");
                    match m.get("properties") {
                        Some(p) => c.at("properties", |c| c.assignments(p, &props, Role::Property, "8.3", true)),
                        None => c.required_assigned(None, &props, v.span, "8.3"),
                    }
                    if let Some(a) = m.get("attributes") {
                        let attrs = c.capability_properties(cap, "attributes");
                        c.at("attributes", |c| c.assignments(a, &attrs, Role::Attribute, "8.3", false));
                    }
                    if let Some(d) = m.get("directives") {
                        c.at("directives", |c| {
                            for (dname, span) in c.expect_str_list(d, "`directives`", "8.3") {
                                if !["internal", "external"].contains(&dname) {
                                    c.error(
                                        Code::InvalidShape,
                                        "8.3",
                                        span,
                                        format!("unknown capability directive `{dname}` (allowed: internal, external)"),
                                    );
                                }
                            }
                        });
                    }
                });
            }
            self.path.pop();
        }
        for (name, cap) in &caps {
            if map.is_some_and(|m| m.contains_key(name)) {
                continue;
            }
            let props = self.capability_properties(cap, "properties");
            self.at("capabilities", |c| {
                c.at(name, |c| c.required_assigned(None, &props, span, "8.3"));
            });
        }
    }

    /// Requirement assignments (§8.5) and their counts (§8.5.4).
    fn requirement_assignments(
        &mut self,
        source: &'a str,
        r: &'a Node,
        ty: TypeId,
        idx: &Index<'a>,
    ) {
        let section = self.sec("8.5", "1.3 3.8.2");
        let Some(list) = self.expect_seq(r, "`requirements`", section) else {
            return;
        };
        let defs = self.node_requirements(ty);
        let mut counted: Vec<(&'a str, Option<u64>, bool, Span)> = Vec::new();
        for (i, item) in list.iter().enumerate() {
            self.at_index(i, |c| {
                let Some(m) = c.expect_map(item, "a requirement assignment", section) else { return };
                if m.len() != 1 {
                    c.error(
                        Code::InvalidShape,
                        section,
                        item.span,
                        "each entry of `requirements` is a single-key map `<requirement name>: <assignment>`",
                    );
                    return;
                }
                let (k, a) = m.first().expect("one entry");
                let Some((_, def)) = defs.iter().find(|(n, _)| *n == k.name) else {
                    let message = format!("node type `{}` has no requirement `{}`", c.type_name(ty), k.name);
                    c.error(Code::UndefinedReference, section, k.span, message);
                    return;
                };
                let entry = c.at(k.name.as_str(), |c| c.requirement_assignment(source, a, def, idx));
                counted.push((k.name.as_str(), entry.0, entry.1, k.span));
            });
        }
        self.requirement_counts(source, &counted, ty, r.span);
    }

    /// §8.5.4: per requirement name, the sum of counts (and the sum of
    /// non-optional counts) lies within the definition's `count_range`.
    fn requirement_counts(
        &mut self,
        _source: &str,
        counted: &[(&'a str, Option<u64>, bool, Span)],
        ty: TypeId,
        span: Span,
    ) {
        if self.v13() {
            return;
        }
        for (name, def) in self.node_requirements(ty) {
            let mine: Vec<_> = counted.iter().filter(|(n, ..)| *n == name).collect();
            if mine.is_empty() {
                // An implicit assignment with count = min is created (§8.5.4).
                continue;
            }
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
            let range = if hi == u64::MAX {
                format!("[{lo}, UNBOUNDED]")
            } else {
                format!("[{lo}, {hi}]")
            };
            if total > hi {
                self.error(
                    Code::Template,
                    "8.5.4",
                    at,
                    format!("requirement `{name}` is assigned {total} times, more than its count_range {range} allows"),
                );
            } else if mandatory < lo {
                self.error(
                    Code::Template,
                    "8.5.4",
                    at,
                    format!(
                        "requirement `{name}` has {mandatory} non-optional assignment(s), fewer than its count_range {range} requires"
                    ),
                );
            }
        }
    }

    /// One requirement assignment; returns its count (`None` if given by a
    /// function) and whether it is optional.
    fn requirement_assignment(
        &mut self,
        source: &'a str,
        a: &'a Node,
        def: &Param<'a>,
        idx: &Index<'a>,
    ) -> (Option<u64>, bool) {
        let section = self.sec("8.5", "1.3 3.8.2");
        // The definition's parts.
        let def_node_type = def.get("node").and_then(|n| {
            self.ts
                .resolve_type(self.doc_of(n), Kind::Node, value::as_str(n)?)
                .ok()
        });
        let def_cap_name = def
            .defs
            .iter()
            .rev()
            .find_map(|d| match value::as_str(d.node) {
                Some(s) => Some((s, d.doc)),
                None => Some((value::as_str(d.node.get("capability")?)?, d.doc)),
            });
        let def_cap_symbolic = def_cap_name.filter(|(n, _)| {
            def_node_type.is_some_and(|t| self.node_capabilities(t).iter().any(|(c, _)| c == n))
        });
        let def_cap_type = def_cap_name
            .filter(|_| def_cap_symbolic.is_none())
            .and_then(|(n, doc)| self.ts.resolve_type(doc, Kind::Capability, n).ok());
        let def_rel_type = def.get("relationship").and_then(|r| {
            let name = value::as_str(r).or_else(|| value::as_str(r.get("type")?))?;
            self.ts
                .resolve_type(self.doc_of(r), Kind::Relationship, name)
                .ok()
        });
        // Short form: a node template name.
        let (map, node_ref): (Option<&'a Map>, Option<&'a Node>) = match &a.value {
            // `- req: node` and `- req: [ node, index ]` (§8.5.2, §14.3.4).
            v4t_yaml::Value::String(_) | v4t_yaml::Value::Seq(_) => (None, Some(a)),
            v4t_yaml::Value::Map(m) => (Some(m), m.get("node")),
            v4t_yaml::Value::Null => (None, None),
            _ => {
                self.error(
                    Code::InvalidShape,
                    section,
                    a.span,
                    "a requirement assignment is a node template name or a map",
                );
                return (Some(1), false);
            }
        };
        if let Some(m) = map {
            let keys: &[&str] = if self.v13() {
                &[
                    "capability",
                    "node",
                    "relationship",
                    "node_filter",
                    "occurrences",
                ]
            } else {
                &[
                    "capability",
                    "node",
                    "relationship",
                    "node_filter",
                    "count",
                    "directives",
                    "optional",
                    "allocation",
                ]
            };
            self.keys(m, keys, "a requirement assignment", section);
        }
        // The target node: a template, [template, index], or a node type.
        let mut target: Option<TypeId> = None;
        if let Some(n) = node_ref {
            let (name_node, index) = match n.as_seq() {
                Some(l) if l.len() == 2 => (&l[0], Some(&l[1])),
                Some(_) => {
                    self.error(
                        Code::Template,
                        "8.5.1",
                        n.span,
                        "`node` as a list is `[ <node template>, <index> ]`",
                    );
                    (n, None)
                }
                None => (n, None),
            };
            if let Some(i) = index {
                match self.call_of(i) {
                    Call::Yes(fname, args) => {
                        self.call(fname, args, i);
                    }
                    Call::Malformed => {}
                    Call::No => {
                        if !matches!(self.classify(i), Scalar::Int(x) if x >= 0) {
                            self.error(
                                Code::Template,
                                "8.5.1",
                                i.span,
                                "the node index must be a non-negative integer",
                            );
                        }
                    }
                }
            }
            if let Some(name) = self.expect_str(name_node, "the target `node`", "8.5.1") {
                if let Some((t, _)) = idx.node(name) {
                    let t = &t;
                    target = *t;
                    if name == source && index.is_none() && !self.v13() {
                        // A node may relate to itself only through an index.
                    }
                    if let (Some(t), Some(want)) = (t, def_node_type) {
                        if !self.ts.is_a(*t, want) {
                            let message = format!(
                                "node template `{name}` is of type `{}`, which is not a `{}` as requirement `{}` needs",
                                self.type_name(*t),
                                self.type_name(want),
                                self.path_last()
                            );
                            self.error(Code::Template, "8.5.2", name_node.span, message);
                        }
                    }
                } else if index.is_none() {
                    match self.ts.resolve_type(self.doc, Kind::Node, name) {
                        Ok(t) => {
                            target = Some(t);
                            if let Some(want) = def_node_type {
                                if !self.ts.is_a(t, want) {
                                    let message = format!(
                                        "node type `{name}` is not a `{}`",
                                        self.type_name(want)
                                    );
                                    self.error(Code::Template, "8.5.2", name_node.span, message);
                                }
                            }
                        }
                        Err(_) => self.error(
                            Code::Template,
                            "8.5.2",
                            name_node.span,
                            format!("`{name}` is neither a node template nor a node type"),
                        ),
                    }
                } else {
                    self.error(
                        Code::Template,
                        "8.5.2",
                        name_node.span,
                        format!("`{name}` is not a node template"),
                    );
                }
            }
        }
        let Some(m) = map else {
            self.target_capability(
                target,
                None,
                def_cap_type,
                def_cap_symbolic.map(|(n, _)| n),
                a.span,
            );
            return (Some(1), false);
        };
        // capability
        let assigned_cap = m.get("capability");
        if let Some(cn) = assigned_cap {
            if let Some(name) = self.expect_str(cn, "`capability`", "8.5.2") {
                if let Some((sym, _)) = def_cap_symbolic {
                    if name != sym {
                        self.error(
                            Code::Template,
                            "8.5.2",
                            cn.span,
                            format!("the requirement's capability is the symbolic name `{sym}` and must stay unchanged"),
                        );
                    }
                } else {
                    let is_symbolic = target
                        .or(def_node_type)
                        .is_some_and(|t| self.node_capabilities(t).iter().any(|(c, _)| *c == name));
                    if !is_symbolic {
                        match self.ts.resolve_type(self.doc, Kind::Capability, name) {
                            Ok(ct) => {
                                if let Some(want) = def_cap_type {
                                    if !self.ts.is_a(ct, want) {
                                        let message = format!(
                                            "capability type `{name}` is not a `{}` as the requirement definition needs",
                                            self.type_name(want)
                                        );
                                        self.error(Code::Template, "8.5.2", cn.span, message);
                                    }
                                }
                            }
                            // Without a known target, a symbolic name is
                            // matched against the candidates at deployment.
                            Err(_) => {
                                if let Some(t) = target.or(def_node_type) {
                                    let message = format!(
                                        "`{name}` is neither a capability of `{}` nor a capability type",
                                        self.type_name(t)
                                    );
                                    self.error(Code::Template, "8.5.2", cn.span, message);
                                }
                            }
                        }
                    }
                }
            }
        }
        let cap_name = assigned_cap.and_then(value::as_str);
        self.target_capability(
            target,
            cap_name,
            def_cap_type,
            def_cap_symbolic.map(|(n, _)| n),
            a.span,
        );
        // relationship
        let mut rel_type = def_rel_type;
        if let Some(r) = m.get("relationship") {
            self.at("relationship", |c| {
                if let Some(name) = value::as_str(r) {
                    // A relationship type first, then a relationship template (§8.5.2).
                    let t = match c.ts.resolve_type(c.doc, Kind::Relationship, name) {
                        Ok(t) => Some(t),
                        Err(_) => match idx.relationships.get(name) {
                            Some(t) => *t,
                            None => {
                                c.error(
                                    Code::Template,
                                    "8.5.2",
                                    r.span,
                                    format!("`{name}` is neither a relationship type nor a relationship template"),
                                );
                                None
                            }
                        },
                    };
                    if let (Some(t), Some(want)) = (t, def_rel_type) {
                        if !c.ts.is_a(t, want) {
                            let message = format!("relationship `{name}` is not a `{}`", c.type_name(want));
                            c.error(Code::Template, "8.5.2", r.span, message);
                        }
                    }
                    rel_type = t.or(rel_type);
                } else if let Some(rm) = c.expect_map(r, "a relationship assignment", "8.5.1") {
                    c.keys(rm, &["type", "properties", "attributes", "interfaces"], "a relationship assignment", "8.5.1");
                    if let Some(tn) = rm.get("type") {
                        if let Some(t) = c.type_ref(tn, Kind::Relationship, "8.5.1") {
                            if let Some(want) = def_rel_type {
                                if !c.ts.is_a(t, want) {
                                    let message = format!("relationship type `{}` is not a `{}`", c.type_name(t), c.type_name(want));
                                    c.error(Code::Template, "8.5.2", tn.span, message);
                                }
                            }
                            rel_type = Some(t);
                        }
                    }
                    let saved = (c.fctx.self_node, c.fctx.self_relationship);
                    c.fctx.self_node = None;
                    c.fctx.self_relationship = true;
                    if let Some(t) = rel_type {
                        let props = c.type_entries(t, "properties");
                        match rm.get("properties") {
                            Some(p) => c.at("properties", |c| c.assignments(p, &props, Role::Property, "8.5.1", true)),
                            None => c.required_assigned(None, &props, r.span, "8.5.1"),
                        }
                        if let Some(at) = rm.get("attributes") {
                            let attrs = c.type_attributes(t);
                            c.at("attributes", |c| c.assignments(at, &attrs, Role::Attribute, "8.5.1", false));
                        }
                        if let Some(i) = rm.get("interfaces") {
                            let defs = c.type_entries(t, "interfaces");
                            c.at("interfaces", |c| c.interface_assignments(i, &defs, "8.5.1"));
                        }
                    } else {
                        for key in ["properties", "attributes", "interfaces"] {
                            if let Some(v) = rm.get(key) {
                                c.check_functions(v);
                            }
                        }
                    }
                    (c.fctx.self_node, c.fctx.self_relationship) = saved;
                }
            });
        }
        self.relationship_fits(rel_type, target, cap_name, def_cap_type, a.span);
        if let Some(f) = m.get("node_filter") {
            let saved = (self.fctx.self_node, self.fctx.self_relationship);
            self.fctx.self_node = None;
            self.fctx.self_relationship = true;
            self.at("node_filter", |c| c.condition(f, "8.6"));
            (self.fctx.self_node, self.fctx.self_relationship) = saved;
        }
        let mut count = Some(1);
        if let Some(cn) = m.get("count") {
            self.at("count", |c| c.count(cn, "8.5.1"));
            count = value::as_count(cn);
            if self.is_call(cn) {
                count = None;
            }
        }
        let mut optional = false;
        if let Some(o) = m.get("optional") {
            match self.classify(o) {
                Scalar::Bool(b) => optional = b,
                _ => self.error(
                    Code::InvalidShape,
                    "8.5.1",
                    o.span,
                    "`optional` must be a boolean",
                ),
            }
        }
        if let Some(d) = m.get("directives") {
            self.at("directives", |c| {
                for (dname, span) in c.expect_str_list(d, "`directives`", "8.5.1") {
                    if !["internal", "external"].contains(&dname) {
                        c.error(
                            Code::InvalidShape,
                            "8.5.1",
                            span,
                            format!("unknown requirement directive `{dname}` (allowed: internal, external)"),
                        );
                    }
                }
            });
        }
        if let Some(al) = m.get("allocation") {
            self.at("allocation", |c| {
                c.allocation(al, target, cap_name, def_cap_type)
            });
        }
        (count, optional)
    }

    fn path_last(&self) -> String {
        self.path
            .render()
            .rsplit('.')
            .next()
            .unwrap_or_default()
            .to_string()
    }

    /// The capability a requirement targets on a known target node type.
    fn target_capability_type(
        &self,
        target: Option<TypeId>,
        cap_name: Option<&str>,
        def_cap_type: Option<TypeId>,
    ) -> Option<TypeId> {
        let t = target?;
        let caps = self.node_capabilities(t);
        if let Some(name) = cap_name {
            if let Some((_, v)) = caps.iter().find(|(n, _)| *n == name) {
                return self.capability_type_of(v);
            }
        }
        let want = def_cap_type?;
        caps.iter()
            .filter_map(|(_, v)| self.capability_type_of(v))
            .find(|&ct| self.ts.is_a(ct, want))
    }

    /// A known target node type must offer a fitting capability.
    fn target_capability(
        &mut self,
        target: Option<TypeId>,
        cap_name: Option<&str>,
        def_cap_type: Option<TypeId>,
        def_symbolic: Option<&str>,
        span: Span,
    ) {
        let Some(t) = target else { return };
        let caps = self.node_capabilities(t);
        if let Some(sym) = def_symbolic.or(cap_name) {
            if caps.iter().any(|(n, _)| *n == sym) {
                if let (Some(want), Some((_, v))) =
                    (def_cap_type, caps.iter().find(|(n, _)| *n == sym))
                {
                    if let Some(ct) = self.capability_type_of(v) {
                        if !self.ts.is_a(ct, want) {
                            let message = format!(
                                "capability `{sym}` of `{}` is of type `{}`, not a `{}`",
                                self.type_name(t),
                                self.type_name(ct),
                                self.type_name(want)
                            );
                            self.error(Code::Template, "8.5.2", span, message);
                        }
                    }
                }
                return;
            }
            if def_symbolic.is_some() {
                let message = format!(
                    "node type `{}` has no capability `{sym}`",
                    self.type_name(t)
                );
                self.error(Code::Template, "8.5.2", span, message);
                return;
            }
        }
        if let Some(want) = def_cap_type {
            let fits = caps
                .iter()
                .filter_map(|(_, v)| self.capability_type_of(v))
                .any(|ct| self.ts.is_a(ct, want));
            if !fits {
                let message = format!(
                    "node type `{}` has no capability of type `{}`",
                    self.type_name(t),
                    self.type_name(want)
                );
                self.error(Code::Template, "8.5.2", span, message);
            }
        }
    }

    /// The relationship type's valid target lists against a known target.
    fn relationship_fits(
        &mut self,
        rel: Option<TypeId>,
        target: Option<TypeId>,
        cap_name: Option<&str>,
        def_cap_type: Option<TypeId>,
        span: Span,
    ) {
        let Some(rel) = rel else { return };
        let cap_type = self.target_capability_type(target, cap_name, def_cap_type);
        let checks = [
            (
                "valid_capability_types",
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
                self.fctx.self_node,
                "start at a node",
            ),
        ];
        for (key, kind, subject, what) in checks {
            let (Some(t), Some(list)) = (subject, self.ts.inherited(rel, key)) else {
                continue;
            };
            let valid = self.types_in_list(list, kind);
            if !valid.iter().any(|&v| self.ts.is_a(t, v)) {
                let message = format!(
                    "relationship type `{}` cannot {what} of type `{}` ({key})",
                    self.type_name(rel),
                    self.type_name(t)
                );
                self.error(Code::Template, "7.3", span, message);
            }
        }
    }

    /// `allocation` (§8.5.5): properties of the target capability, of
    /// integer, float or scalar types.
    fn allocation(
        &mut self,
        al: &'a Node,
        target: Option<TypeId>,
        cap_name: Option<&str>,
        def_cap_type: Option<TypeId>,
    ) {
        let Some(m) = self.named_map(al, "`allocation`", "8.5.5") else {
            return;
        };
        let cap_type = self
            .target_capability_type(target, cap_name, def_cap_type)
            .or(def_cap_type);
        let props = cap_type.map(|ct| self.type_entries(ct, "properties"));
        for (k, v) in m.iter() {
            let Some(props) = &props else {
                self.at(k.name.as_str(), |c| c.check_functions(v));
                continue;
            };
            let Some((_, p)) = props.iter().find(|(n, _)| *n == k.name) else {
                // Allocations filter target candidates when the requirement
                // is fulfilled (§8.5.5): one that no candidate can satisfy is
                // worth a warning, the orchestrator decides.
                let message = format!(
                    "allocation `{}` names no property of the target capability type `{}`, so no target can satisfy it",
                    k.name,
                    self.type_name(cap_type.expect("known"))
                );
                self.warning(Code::ToscaNotice, "8.5.5", k.span, message);
                continue;
            };
            if let Some(s) = self.param_schema(p) {
                let allocatable = matches!(
                    self.ts.builtin_base(s.ty),
                    Some(
                        crate::types::Builtin::Integer
                            | crate::types::Builtin::Float
                            | crate::types::Builtin::Scalar
                    )
                );
                if !allocatable {
                    self.error(
                        Code::ToscaNotice,
                        "8.5.5",
                        k.span,
                        format!(
                            "only integer, float or scalar properties can be allocated, not `{}`",
                            k.name
                        ),
                    );
                    continue;
                }
                self.at(k.name.as_str(), |c| c.check_value(v, &s, "8.5.5"));
            }
        }
    }

    /// Interface assignments (§11.3) against the interface definitions of
    /// the node or relationship type.
    fn interface_assignments(
        &mut self,
        node: &'a Node,
        defs: &[(&'a str, Param<'a>)],
        section: &'static str,
    ) {
        let Some(map) = self.named_map(node, "`interfaces`", section) else {
            return;
        };
        for (k, v) in map.iter() {
            let Some((_, def)) = defs.iter().find(|(n, _)| *n == k.name) else {
                self.error(
                    Code::UndefinedReference,
                    "11.3",
                    k.span,
                    format!("`{}` is not an interface of the type", k.name),
                );
                continue;
            };
            self.at(k.name.as_str(), |c| c.interface_assignment(v, def));
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
        super::defs::collect_section(&chain, key)
    }

    fn interface_assignment(&mut self, v: &'a Node, def: &Param<'a>) {
        if v.is_null() {
            return;
        }
        let Some(m) = self.expect_map(v, "an interface assignment", "11.3") else {
            return;
        };
        let v13 = self.v13();
        if !v13 {
            self.keys(
                m,
                &["inputs", "operations", "notifications"],
                "an interface assignment",
                "11.3",
            );
        }
        let inputs = self.interface_parts(def, "inputs");
        if let Some(i) = m.get("inputs") {
            self.at("inputs", |c| c.input_assignments(i, &inputs, true));
        }
        for key in ["operations", "notifications"] {
            let Some(ops) = m.get(key) else { continue };
            let defs = self.interface_parts(def, key);
            self.at(key, |c| {
                let Some(om) = c.named_map(ops, &format!("`{key}`"), "11.5") else {
                    return;
                };
                for (k, ov) in om.iter() {
                    let Some((_, od)) = defs.iter().find(|(n, _)| *n == k.name) else {
                        let what = if key == "operations" {
                            "operation"
                        } else {
                            "notification"
                        };
                        c.error(
                            Code::UndefinedReference,
                            "11.5",
                            k.span,
                            format!("{what} `{}` is not defined by the interface", k.name),
                        );
                        continue;
                    };
                    c.at(k.name.as_str(), |c| c.operation_assignment(ov, od));
                }
            });
        }
        if v13 {
            let defs = self.interface_parts(def, "operations");
            for (k, ov) in m.iter() {
                if k.name == "inputs" || k.name == "operations" || k.name == "notifications" {
                    continue;
                }
                match defs.iter().find(|(n, _)| *n == k.name) {
                    Some((_, od)) => self.at(k.name.as_str(), |c| c.operation_assignment(ov, od)),
                    None => self.error(
                        Code::UndefinedReference,
                        "1.3 3.6.16",
                        k.span,
                        format!("operation `{}` is not defined by the interface", k.name),
                    ),
                }
            }
        }
    }

    /// Parameter value assignments (§9.9): undefined inputs are allowed
    /// where `allow_new`; fixed-value inputs cannot be assigned.
    fn input_assignments(
        &mut self,
        node: &'a Node,
        defs: &[(&'a str, Param<'a>)],
        allow_new: bool,
    ) {
        let Some(map) = self.named_map(node, "`inputs`", "9.9") else {
            return;
        };
        for (k, v) in map.iter() {
            match defs.iter().find(|(n, _)| *n == k.name) {
                Some((_, p)) => self.at(k.name.as_str(), |c| {
                    c.assignment(k.name.as_str(), v, p, "input", "9.9")
                }),
                None => {
                    if !allow_new {
                        self.error(
                            Code::UndefinedReference,
                            "13.2.3.3",
                            k.span,
                            format!("`{}` is not an input of the operation", k.name),
                        );
                    }
                    self.at(k.name.as_str(), |c| c.check_functions(v));
                }
            }
        }
    }

    /// An operation or notification assignment (§11.5, §11.7).
    fn operation_assignment(&mut self, v: &'a Node, def: &Param<'a>) {
        if v.is_null() {
            return;
        }
        if super::defs::is_short_form(v) {
            self.implementation(v, None);
            return;
        }
        let Some(m) = v.as_map() else { return };
        let allowed: &[&str] = if self.v13() {
            &[
                "implementation",
                "inputs",
                "outputs",
                "description",
                "operation_host",
                "timeout",
            ]
        } else {
            &["implementation", "inputs", "outputs", "description"]
        };
        self.keys(m, allowed, "an operation assignment", "11.5");
        if let Some(i) = m.get("implementation") {
            self.at("implementation", |c| c.implementation(i, None));
        }
        if let Some(i) = m.get("inputs") {
            let inputs = super::defs::collect_section(&def.defs, "inputs");
            self.at("inputs", |c| c.input_assignments(i, &inputs, true));
        }
        if let Some(o) = m.get("outputs") {
            let outputs = super::defs::collect_section(&def.defs, "outputs");
            self.at("outputs", |c| {
                let Some(om) = c.named_map(o, "`outputs`", "9.10") else {
                    return;
                };
                for (k, mv) in om.iter() {
                    if outputs
                        .iter()
                        .any(|(n, p)| *n == k.name && p.mapping().is_some())
                    {
                        c.error(
                            Code::Definition,
                            "11.5",
                            k.span,
                            format!("output `{}` is already mapped in its definition", k.name),
                        );
                    }
                    if !c.v13() {
                        c.at(k.name.as_str(), |c| c.attribute_selection(mv));
                    }
                }
            });
        }
    }

    fn relationship_templates(&mut self, node: &'a Node, idx: &Index<'a>) {
        let section = self.sec("7.4", "1.3 3.8.4");
        let Some(map) = self.named_map(node, "`relationship_templates`", section) else {
            return;
        };
        for (k, v) in map.iter() {
            let ty = idx.relationships.get(k.name.as_str()).copied().flatten();
            self.at(k.name.as_str(), |c| {
                let Some(own) = c.expect_map(v, "a relationship template", section) else {
                    return;
                };
                let keys: &[&str] = &[
                    "type",
                    "description",
                    "metadata",
                    "properties",
                    "attributes",
                    "interfaces",
                    "copy",
                ];
                c.keys(own, keys, "a relationship template", section);
                let source = c.copy_source(own, map, "relationship template", section);
                let tpl = Tpl { own, source };
                let Some(tn) = tpl.get("type") else {
                    c.error(
                        Code::MissingKeyname,
                        section,
                        v.span,
                        format!("relationship template `{}` needs a `type`", k.name),
                    );
                    return;
                };
                let Some(ty) = ty else {
                    c.at("type", |c| {
                        c.type_ref(tn, Kind::Relationship, section);
                    });
                    return;
                };
                c.fctx.self_relationship = true;
                let props = c.type_entries(ty, "properties");
                match tpl.get("properties") {
                    Some(p) => c.at("properties", |c| {
                        c.assignments(p, &props, Role::Property, "9.5", true)
                    }),
                    None => c.required_assigned(None, &props, v.span, "9.5"),
                }
                if let Some(a) = tpl.get("attributes") {
                    let attrs = c.type_attributes(ty);
                    c.at("attributes", |c| {
                        c.assignments(a, &attrs, Role::Attribute, "9.7", false)
                    });
                }
                if let Some(i) = tpl.get("interfaces") {
                    let defs = c.type_entries(ty, "interfaces");
                    c.at("interfaces", |c| c.interface_assignments(i, &defs, "7.4"));
                }
                if let Some(d) = own.get("description") {
                    c.description(d);
                }
                if let Some(m) = own.get("metadata") {
                    c.metadata(m);
                }
                c.fctx.self_relationship = false;
            });
        }
    }

    fn groups(&mut self, node: &'a Node, idx: &Index<'a>) {
        let section = self.sec("16.2", "1.3 3.8.5");
        let Some(map) = self.named_map(node, "`groups`", section) else {
            return;
        };
        for (k, v) in map.iter() {
            self.at(k.name.as_str(), |c| {
                let Some(m) = c.expect_map(v, "a group definition", section) else { return };
                let keys: &[&str] = if c.v13() {
                    &["type", "description", "metadata", "properties", "members", "interfaces"]
                } else {
                    &["type", "description", "metadata", "properties", "attributes", "members"]
                };
                c.keys(m, keys, "a group definition", section);
                let ty = match m.get("type") {
                    Some(tn) => c.at("type", |c| c.type_ref(tn, Kind::Group, section)),
                    None => {
                        c.error(Code::MissingKeyname, section, v.span, format!("group `{}` needs a `type`", k.name));
                        None
                    }
                };
                if let Some(ty) = ty {
                    let props = c.type_entries(ty, "properties");
                    match m.get("properties") {
                        Some(p) => c.at("properties", |c| c.assignments(p, &props, Role::Property, "16.2", true)),
                        None => c.required_assigned(None, &props, v.span, "16.2"),
                    }
                    if let Some(a) = m.get("attributes") {
                        let attrs = c.type_attributes(ty);
                        c.at("attributes", |c| c.assignments(a, &attrs, Role::Attribute, "16.2", false));
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
                            }
                        }
                    });
                }
            });
        }
    }

    fn policies(&mut self, node: &'a Node, idx: &Index<'a>) {
        let section = self.sec("16.4", "1.3 3.8.6");
        if node.is_null() {
            self.error(
                Code::InvalidShape,
                "6.9.8",
                node.span,
                "`policies` is empty: omit it or list policy definitions",
            );
            return;
        }
        let Some(list) = self.expect_seq(node, "`policies`", "6.9.8") else {
            return;
        };
        let mut names: Vec<&str> = Vec::new();
        for (i, item) in list.iter().enumerate() {
            self.at_index(i, |c| {
                let Some(m) = c.expect_map(item, "a policy definition", section) else { return };
                if m.len() != 1 {
                    c.error(Code::InvalidShape, "6.9.8", item.span, "each entry of `policies` is a single-key map `<name>: <policy definition>`");
                    return;
                }
                let (k, v) = m.first().expect("one entry");
                if names.contains(&k.name.as_str()) {
                    c.error(Code::Duplicate, "6.9.1", k.span, format!("policy `{}` is defined twice", k.name));
                }
                names.push(k.name.as_str());
                c.at(k.name.as_str(), |c| c.policy(v, idx, section));
            });
        }
    }

    fn policy(&mut self, v: &'a Node, idx: &Index<'a>, section: &'static str) {
        let Some(m) = self.expect_map(v, "a policy definition", section) else {
            return;
        };
        self.keys(
            m,
            &[
                "type",
                "description",
                "metadata",
                "properties",
                "targets",
                "triggers",
            ],
            "a policy definition",
            section,
        );
        let ty = match m.get("type") {
            Some(tn) => self.at("type", |c| c.type_ref(tn, Kind::Policy, section)),
            None => {
                self.error(
                    Code::MissingKeyname,
                    section,
                    v.span,
                    "a policy definition needs a `type`",
                );
                None
            }
        };
        if let Some(ty) = ty {
            let props = self.type_entries(ty, "properties");
            match m.get("properties") {
                Some(p) => self.at("properties", |c| {
                    c.assignments(p, &props, Role::Property, "16.4", true)
                }),
                None => self.required_assigned(None, &props, v.span, "16.4"),
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
                let Some(tm) = c.named_map(tr, "`triggers`", "16.5") else {
                    return;
                };
                for (k, def) in tm.iter() {
                    c.at(k.name.as_str(), |c| c.trigger(def));
                }
            });
        }
    }

    /// A trigger definition (§16.5).
    pub(super) fn trigger(&mut self, def: &'a Node) {
        let Some(m) = self.expect_map(def, "a trigger definition", "16.5") else {
            return;
        };
        if self.v13() {
            return;
        }
        self.keys(
            m,
            &["description", "event", "condition", "action"],
            "a trigger definition",
            "16.5",
        );
        match m.get("event") {
            Some(e) => {
                self.expect_str(e, "`event`", "16.5");
            }
            None => self.error(
                Code::MissingKeyname,
                "16.5",
                def.span,
                "a trigger needs an `event`",
            ),
        }
        if let Some(c) = m.get("condition") {
            self.at("condition", |ch| ch.condition(c, "16.5"));
        }
        match m.get("action") {
            Some(a) => self.at("action", |c| c.activities(a, None, None)),
            None => self.error(
                Code::MissingKeyname,
                "16.5",
                def.span,
                "a trigger needs an `action`",
            ),
        }
    }

    /// A list of activity definitions (§13.2.3); with a known target node
    /// template and the service template's workflows.
    fn activities(
        &mut self,
        a: &'a Node,
        target: Option<(TypeId, Tpl<'a>)>,
        idx: Option<&Index<'a>>,
    ) {
        let Some(list) = self.expect_seq(a, "a list of activities", "13.2.3") else {
            return;
        };
        for (i, item) in list.iter().enumerate() {
            self.at_index(i, |c| {
                let Some(m) = c.expect_map(item, "an activity definition", "13.2.3") else { return };
                if m.len() != 1 {
                    c.error(Code::InvalidShape, "13.2.3", item.span, "an activity is a single-key map (delegate, set_state, call_operation or inline)");
                    return;
                }
                let (k, v) = m.first().expect("one entry");
                let kind = k.name.as_str();
                c.at(kind, |c| match kind {
                    "set_state" => {
                        c.expect_str(v, "`set_state`", "13.2.3.2");
                    }
                    "delegate" | "inline" => {
                        let name = match value::as_str(v) {
                            Some(s) => Some((s, v.span)),
                            None => c.expect_map(v, &format!("`{kind}`"), "13.2.3").and_then(|vm| {
                                c.keys(vm, &["workflow", "inputs"], &format!("a `{kind}` activity"), "13.2.3");
                                if let Some(i) = vm.get("inputs") {
                                    c.check_functions(i);
                                }
                                match vm.get("workflow") {
                                    Some(w) => c.expect_str(w, "`workflow`", "13.2.3").map(|s| (s, w.span)),
                                    None => {
                                        c.error(Code::MissingKeyname, "13.2.3", v.span, format!("`{kind}` needs a `workflow`"));
                                        None
                                    }
                                }
                            }),
                        };
                        if let (Some((name, span)), Some(idx), "inline") = (name, idx, kind) {
                            if !idx.workflows.contains(&name) {
                                c.error(Code::UndefinedReference, "13.2.3.4", span, format!("workflow `{name}` is not defined"));
                            }
                        }
                    }
                    "call_operation" => c.call_operation(v, target),
                    _ => c.error(
                        Code::Template,
                        "13.2.3",
                        k.span,
                        format!("unknown activity `{kind}` (delegate, set_state, call_operation or inline)"),
                    ),
                });
            });
        }
    }

    /// `call_operation` (§13.2.3.3): `<interface>.<operation>` of the target
    /// node, with inputs that the operation defines; every required input
    /// ends up with a value.
    fn call_operation(&mut self, v: &'a Node, target: Option<(TypeId, Tpl<'a>)>) {
        let (op_node, inputs) = match value::as_str(v) {
            Some(_) => (v, None),
            None => {
                let Some(m) = self.expect_map(v, "`call_operation`", "13.2.3.3") else {
                    return;
                };
                self.keys(
                    m,
                    &["operation", "inputs"],
                    "a `call_operation` activity",
                    "13.2.3.3",
                );
                let Some(op) = m.get("operation") else {
                    self.error(
                        Code::MissingKeyname,
                        "13.2.3.3",
                        v.span,
                        "`call_operation` needs an `operation`",
                    );
                    return;
                };
                (op, m.get("inputs"))
            }
        };
        let Some(op) = self.expect_str(op_node, "the operation name", "13.2.3.3") else {
            return;
        };
        let Some((iface, opname)) = op.split_once('.') else {
            self.error(
                Code::Template,
                "13.2.3.3",
                op_node.span,
                format!("`{op}` is not `<interface_name>.<operation_name>`"),
            );
            return;
        };
        let Some((ty, tpl)) = target else {
            if let Some(i) = inputs {
                self.check_functions(i);
            }
            return;
        };
        let ifaces = self.type_entries(ty, "interfaces");
        let Some((_, idef)) = ifaces.iter().find(|(n, _)| *n == iface) else {
            let message = format!(
                "the target's type `{}` has no interface `{iface}`",
                self.type_name(ty)
            );
            self.error(Code::Template, "13.2.3.3", op_node.span, message);
            return;
        };
        let ops = self.interface_parts(idef, "operations");
        let Some((_, odef)) = ops.iter().find(|(n, _)| *n == opname) else {
            self.error(
                Code::Template,
                "13.2.3.3",
                op_node.span,
                format!("interface `{iface}` has no operation `{opname}`"),
            );
            return;
        };
        let mut defined = self.interface_parts(idef, "inputs");
        for (n, p) in super::defs::collect_section(&odef.defs, "inputs") {
            match defined.iter_mut().find(|(d, _)| *d == n) {
                Some((_, q)) => q.defs.extend(p.defs),
                None => defined.push((n, p)),
            }
        }
        let given = inputs.and_then(Node::as_map);
        if let Some(i) = inputs {
            self.at("inputs", |c| c.input_assignments(i, &defined, false));
        }
        // Values assigned by the node template's interface assignment.
        let tpl_iface = tpl.get("interfaces").and_then(|i| i.get(iface));
        let tpl_inputs = tpl_iface
            .and_then(|i| i.get("inputs"))
            .and_then(Node::as_map);
        let tpl_op_inputs = tpl_iface
            .and_then(|i| i.get("operations"))
            .and_then(|o| o.get(opname))
            .and_then(|o| o.get("inputs"))
            .and_then(Node::as_map);
        for (name, p) in &defined {
            let has_value = given.is_some_and(|g| g.contains_key(name))
                || tpl_inputs.is_some_and(|g| g.contains_key(name))
                || tpl_op_inputs.is_some_and(|g| g.contains_key(name))
                || p.default().is_some()
                || p.fixed().is_some();
            if p.required() && !has_value {
                self.error(
                    Code::MissingValue,
                    "13.2.3.3",
                    v.span,
                    format!("required input `{name}` of operation `{op}` gets no value"),
                );
            }
        }
    }

    fn workflows(&mut self, node: &'a Node, idx: &Index<'a>) {
        let Some(map) = self.named_map(node, "`workflows`", "13.2") else {
            return;
        };
        for (k, v) in map.iter() {
            self.at(k.name.as_str(), |c| c.workflow(v, idx));
        }
    }

    fn workflow(&mut self, v: &'a Node, idx: &Index<'a>) {
        let Some(m) = self.expect_map(v, "a workflow definition", "13.2") else {
            return;
        };
        let keys: &[&str] = if self.v13() {
            &[
                "description",
                "metadata",
                "inputs",
                "preconditions",
                "steps",
                "implementation",
                "outputs",
            ]
        } else {
            &[
                "description",
                "metadata",
                "inputs",
                "precondition",
                "steps",
                "implementation",
                "outputs",
            ]
        };
        self.keys(m, keys, "a workflow definition", "13.2");
        if m.contains_key("steps") && m.contains_key("implementation") {
            self.error(
                Code::Template,
                "13.2",
                v.span,
                "`steps` and `implementation` are mutually exclusive",
            );
        }
        if let Some(i) = m.get("inputs") {
            self.at("inputs", |c| {
                c.param_defs(
                    i,
                    Role::Incoming,
                    Place::Template,
                    &[],
                    ("13.2", "workflow `inputs`"),
                    true,
                )
            });
        }
        let saved_inputs = self.fctx.inputs.clone();
        if let Some(wi) = m.get("inputs").and_then(Node::as_map) {
            self.fctx.inputs.insert(0, wi);
        }
        if let Some(p) = m.get("precondition") {
            self.at("precondition", |c| c.condition(p, "13.2.1"));
        }
        if let Some(i) = m.get("implementation") {
            self.at("implementation", |c| c.implementation(i, None));
        }
        if let Some(o) = m.get("outputs") {
            self.at("outputs", |c| {
                if let Some(om) = c.named_map(o, "workflow `outputs`", "13.2") {
                    for (k, mv) in om.iter() {
                        c.at(k.name.as_str(), |c| c.attribute_selection(mv));
                    }
                }
            });
        }
        if let Some(steps) = m.get("steps") {
            self.at("steps", |c| {
                let Some(sm) = c.named_map(steps, "`steps`", "13.2.2") else {
                    return;
                };
                let step_names: Vec<&str> = sm.keys().collect();
                for (k, s) in sm.iter() {
                    c.at(k.name.as_str(), |c| c.step(s, idx, &step_names));
                }
            });
        }
        self.fctx.inputs = saved_inputs;
    }

    fn step(&mut self, s: &'a Node, idx: &Index<'a>, step_names: &[&str]) {
        let Some(m) = self.expect_map(s, "a workflow step", "13.2.2") else {
            return;
        };
        self.keys(
            m,
            &[
                "target",
                "target_relationship",
                "operation_host",
                "filter",
                "activities",
                "on_success",
                "on_failure",
            ],
            "a workflow step",
            "13.2.2",
        );
        let mut target = None;
        match m.get("target") {
            Some(t) => {
                if let Some(name) = self.expect_str(t, "the step `target`", "13.2.2") {
                    match idx.node(name) {
                        Some((Some(ty), tpl)) => target = Some((ty, tpl)),
                        Some(_) => {}
                        None => {
                            if !idx.groups.contains_key(name) {
                                self.error(
                                    Code::UndefinedReference,
                                    "13.2.2",
                                    t.span,
                                    format!("step target `{name}` is neither a node template nor a group"),
                                );
                            }
                        }
                    }
                }
            }
            None => self.error(
                Code::MissingKeyname,
                "13.2.2",
                s.span,
                "a workflow step needs a `target`",
            ),
        }
        if let Some(tr) = m.get("target_relationship") {
            if let (Some(name), Some((ty, _))) = (
                self.expect_str(tr, "`target_relationship`", "13.2.2"),
                target,
            ) {
                if !self.node_requirements(ty).iter().any(|(n, _)| *n == name) {
                    let message = format!(
                        "the target's type `{}` has no requirement `{name}`",
                        self.type_name(ty)
                    );
                    self.error(Code::UndefinedReference, "13.2.2", tr.span, message);
                }
            }
        }
        if let Some(f) = m.get("filter") {
            self.at("filter", |c| {
                if let Some(list) = c.expect_seq(f, "`filter`", "13.2.2") {
                    for (i, clause) in list.iter().enumerate() {
                        c.at_index(i, |c| c.condition(clause, "13.2.2"));
                    }
                }
            });
        }
        let saved = self.fctx.self_node;
        self.fctx.self_node = target.map(|(t, _)| t);
        match m.get("activities") {
            Some(a) => self.at("activities", |c| c.activities(a, target, Some(idx))),
            None => self.error(
                Code::MissingKeyname,
                "13.2.2",
                s.span,
                "a workflow step needs `activities`",
            ),
        }
        self.fctx.self_node = saved;
        for key in ["on_success", "on_failure"] {
            let Some(n) = m.get(key) else { continue };
            let names: Vec<(&str, Span)> = match value::as_str(n) {
                Some(s) => vec![(s, n.span)],
                None => self.at(key, |c| c.expect_str_list(n, &format!("`{key}`"), "13.2.2")),
            };
            for (name, span) in names {
                if !step_names.contains(&name) {
                    self.error(
                        Code::UndefinedReference,
                        "13.2.2",
                        span,
                        format!("`{key}` names `{name}`, which is not a step of this workflow"),
                    );
                }
            }
        }
    }

    /// Function definitions inside a service template refine the outer ones:
    /// only implementations change, new signatures are appended (§10.4).
    fn function_refinements(&mut self, node: &'a Node) {
        self.function_definitions(node);
        let Some(map) = node.as_map() else { return };
        for (k, def) in map.iter() {
            let outer = self
                .loaded
                .doc(self.doc)
                .root
                .get("functions")
                .and_then(|f| f.get(&k.name))
                .or_else(|| {
                    self.ts
                        .resolve(self.doc, crate::types::Space::Function, &k.name)
                        .ok()
                        .map(|e| self.ts.functions[e as usize].def)
                });
            let Some(outer_sigs) = outer
                .and_then(|o| o.get("signatures"))
                .and_then(Node::as_seq)
            else {
                continue;
            };
            let Some(sigs) = def.get("signatures").and_then(Node::as_seq) else {
                continue;
            };
            for (i, sig) in sigs.iter().enumerate().take(outer_sigs.len()) {
                if let Some(sm) = sig.as_map() {
                    for (sk, _) in sm.iter() {
                        if sk.name != "implementation" {
                            self.error(
                                Code::Definition,
                                "10.4",
                                sk.span,
                                format!("refining signature {i} of `{}` may only change its `implementation`", k.name),
                            );
                        }
                    }
                }
            }
        }
    }
}

/// An empty map for templates that are not maps (reported elsewhere).
static EMPTY: std::sync::LazyLock<Map> = std::sync::LazyLock::new(Map::new);
