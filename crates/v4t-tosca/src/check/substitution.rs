//! Substitution mappings (§15): the node type a service template can
//! implement, and how the substituted node's properties, attributes,
//! capabilities, requirements and interfaces map onto the template.
//!
//! Several mappings name their target with a flow sequence as the map key
//! (a YAML complex key, [`v4t_yaml::Key::tree`]): property and attribute
//! mappings `[ CAPABILITY, <capability>, <name> ]` and
//! `[ RELATIONSHIP, <requirement>, <index>, <name> ]` (§15.2, §15.3), and
//! requirement mappings `[ <requirement>, <count> ]` (§15.5).

use crate::keynames::Entity;
use crate::section::Section;
use v4t_source::Code;
use v4t_yaml::hash::{ByName, SeededSet};
use v4t_yaml::{KeyRef, NodeRef, SeqRef, Span, ValueRef};

use super::defs::{DefNode, Param};
use super::template::{Index, Tpl};
use super::Checker;
use crate::types::{Kind, TypeId};
use crate::value::{self, Scalar};

/// How many assignments of a requirement one requirement mapping maps (§15.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Count {
    /// `<requirement>: ...`: one assignment (all of them, if it is the
    /// requirement's only mapping).
    Plain,
    /// `[ <requirement>, <count> ]: ...`
    Exactly(u64),
    /// `[ <requirement>, UNBOUNDED ]: ...`: all remaining assignments.
    Unbounded,
}

/// The definition a property or attribute mapping key names (§15.2, §15.3).
struct Mapped<'a> {
    def: Param<'a>,
    /// The index `ALL` of a relationship mapping: the values of every
    /// relationship the requirement creates, as a list.
    all: bool,
}

const PROPERTY_KEY_SHAPE: &str = "a property mapping key is `<property>`, `[ CAPABILITY, <capability>, <property> ]` or `[ RELATIONSHIP, <requirement>, <index>, <property> ]`";
const ATTRIBUTE_KEY_SHAPE: &str = "an attribute mapping key is `<attribute>`, `[ CAPABILITY, <capability>, <attribute> ]` or `[ RELATIONSHIP, <requirement>, <index>, <attribute> ]`";
const REQUIREMENT_KEY_SHAPE: &str =
    "a requirement mapping key is `<requirement>` or `[ <requirement>, <count> ]` (a non-negative integer or UNBOUNDED)";

impl<'t, 'a> Checker<'t, 'a> {
    /// Substitution mappings (§15).
    pub(super) fn substitution_mappings(&mut self, node: NodeRef<'a>, idx: &Index<'a>) {
        let section = Section::SubstitutionMapping;
        let Some(m) = self.expect_map(node, "`substitution_mappings`", section) else {
            return;
        };
        self.keys(
            m,
            Entity::SubstitutionMappings,
            "substitution mappings",
            section,
        );
        let ty = match m.get("node_type") {
            Some(t) => self.at("node_type", |c| c.type_ref(t, Kind::Node, section)),
            None => {
                self.error(
                    Code::MissingKeyname,
                    section,
                    node.span(),
                    "substitution mappings need a `node_type`",
                );
                None
            }
        };
        if let Some(f) = m.get("substitution_filter") {
            self.at("substitution_filter", |c| {
                c.condition(f, Section::SubstitutionMapping)
            });
        }
        let Some(ty) = ty else { return };
        // What the node type defines is not all known if it inherits from
        // a name that is no type: mappings of names it lacks may be right.
        self.inherits_unknown = self.ts.inherits_unknown(ty);
        let mut mapped_inputs: SeededSet<&str> = SeededSet::default();
        if let Some(p) = m.get("properties") {
            self.at("properties", |c| {
                c.property_mappings(p, ty, idx, &mut mapped_inputs)
            });
        }
        if let Some(inputs) = idx.inputs.filter(|_| !self.v13()) {
            for (k, def) in inputs.iter() {
                let required = def
                    .get("required")
                    .and_then(NodeRef::as_bool)
                    .unwrap_or(true);
                if required
                    && def.get("default").is_none()
                    && def.get("value").is_none()
                    && !mapped_inputs.contains(k.name())
                {
                    self.error(
                        Code::Template,
                        Section::PropertyMapping,
                        k.span(),
                        format!("input `{}` is required and has no default, so the substitution mappings must map a property to it", k.name()),
                    );
                }
            }
        }
        if let Some(a) = m.get("attributes") {
            self.at("attributes", |c| c.attribute_mappings(a, ty, idx));
        }
        if let Some(cm) = m.get("capabilities") {
            self.at("capabilities", |c| c.capability_mappings(cm, ty, idx));
        }
        if let Some(r) = m.get("requirements") {
            self.at("requirements", |c| c.requirement_mappings(r, ty, idx));
        }
        if let Some(i) = m.get("interfaces") {
            self.at("interfaces", |c| c.interface_mappings(i, ty, idx));
        }
        self.inherits_unknown = false;
    }

    /// Property mappings: `<property>: <input>` (§15.2).
    fn property_mappings(
        &mut self,
        p: NodeRef<'a>,
        ty: TypeId,
        idx: &Index<'a>,
        mapped_inputs: &mut SeededSet<&'a str>,
    ) {
        let Some(pm) = self.named_map_with(p, "property mappings", Section::PropertyMapping, true)
        else {
            return;
        };
        let single = |l: NodeRef<'a>| {
            l.as_seq()
                .filter(|l| l.len() == 1)
                .and_then(|l| value::as_str(l.at(0)))
        };
        // The node type's properties, merged once for every mapping.
        let own = self.type_entries(ty, "properties");
        let own = ByName::new(&own);
        for (k, v) in pm.iter() {
            if self.v13() {
                // TOSCA 1.3 (§3.8.8): `[ <input> ]` or `mapping: [ <input> ]`
                // map an input; anything else is the property's value.
                let mapping = v.get("mapping").filter(|_| v.as_map().is_some());
                if single(v).is_none() && mapping.and_then(single).is_none() {
                    self.at(k.name(), |c| c.check_functions(v));
                    continue;
                }
            }
            let input = value::as_str(v)
                .or_else(|| single(v))
                .or_else(|| v.get("mapping").filter(|_| self.v13()).and_then(single));
            let Some(input) = input else {
                self.error(
                    Code::Template,
                    Section::PropertyMapping,
                    v.span(),
                    "a property mapping maps a property to an input name",
                );
                continue;
            };
            mapped_inputs.insert(input);
            let mapped = self.mapped_definition(k, ty, false, &own);
            let Some(idef) = idx.inputs.and_then(|i| i.get(input)) else {
                self.error(
                    Code::Template,
                    Section::PropertyMapping,
                    v.span(),
                    format!("`{input}` is not an input of this service template"),
                );
                continue;
            };
            // `ALL` maps a list of values: its entries are not checked.
            let Some(mapped) = mapped.filter(|m| !m.all) else {
                continue;
            };
            let ps = self.param_schema(&mapped.def);
            if let (Some(ps), Some(is)) = (ps, self.parameter_type(idef)) {
                if !self.compatible(ps.ty, is) {
                    let message = format!(
                        "property `{}` (type `{}`) is mapped to input `{input}` of the incompatible type `{}`",
                        k.name(),
                        self.type_name(ps.ty),
                        self.type_name(is)
                    );
                    self.error(Code::Template, Section::PropertyMapping, v.span(), message);
                }
            }
        }
    }

    /// The type of a parameter definition of this service template, where
    /// it names one.
    fn parameter_type(&self, def: NodeRef<'a>) -> Option<TypeId> {
        let doc = self.doc;
        let param = Param {
            defs: vec![DefNode { node: def, doc }],
        };
        self.param_schema(&param).map(|s| s.ty)
    }

    /// Attribute mappings: `<attribute>: <output>` (§15.3).
    fn attribute_mappings(&mut self, a: NodeRef<'a>, ty: TypeId, idx: &Index<'a>) {
        let Some(am) =
            self.named_map_with(a, "attribute mappings", Section::AttributeMapping, true)
        else {
            return;
        };
        // The node type's attributes, merged once for every mapping.
        let own = self.type_attributes(ty);
        let own = ByName::new(&own);
        for (k, v) in am.iter() {
            // TOSCA 1.3 also maps an attribute onto a node template's
            // attribute: `[ <node template>, <attribute> ]`.
            let pair = v.as_seq().filter(|l| l.len() == 2 && self.v13());
            if let Some(node) = pair.and_then(|l| value::as_str(l.at(0))) {
                if idx.node(node).is_none() {
                    let message = format!("`{node}` is not a node template");
                    self.error(Code::Template, Section::AttributeMapping, v.span(), message);
                }
                continue;
            }
            let mapped = self.mapped_definition(k, ty, true, &own);
            let output = value::as_str(v).or_else(|| {
                v.as_seq()
                    .filter(|l| l.len() == 1)
                    .and_then(|l| value::as_str(l.at(0)))
            });
            let odef = output.and_then(|o| idx.outputs?.get(o));
            match (output, odef) {
                (Some(o), Some(odef)) => {
                    // The output's value is stored in the attribute (§15.3).
                    let at = mapped
                        .filter(|m| !m.all)
                        .and_then(|m| self.param_schema(&m.def));
                    if let (Some(at), Some(ot)) = (at, self.parameter_type(odef)) {
                        if !self.compatible(ot, at.ty) {
                            let message = format!(
                                "attribute `{}` (type `{}`) is mapped to output `{o}` of the incompatible type `{}`",
                                k.name(),
                                self.type_name(at.ty),
                                self.type_name(ot)
                            );
                            self.error(
                                Code::Template,
                                Section::AttributeMapping,
                                v.span(),
                                message,
                            );
                        }
                    }
                }
                (Some(o), None) => self.error(
                    Code::Template,
                    Section::AttributeMapping,
                    v.span(),
                    format!("`{o}` is not an output of this service template"),
                ),
                (None, _) => self.error(
                    Code::Template,
                    Section::AttributeMapping,
                    v.span(),
                    "an attribute mapping maps an attribute to an output name",
                ),
            }
        }
    }

    /// `found`, the definition `name` of node type `ty`, or the error that
    /// the type has none.
    fn reported<T>(
        &mut self,
        found: Option<T>,
        ty: TypeId,
        what: &str,
        name: &str,
        span: Span,
        section: Section,
    ) -> Option<T> {
        if found.is_none() {
            let message = format!("node type `{}` has no {what} `{name}`", self.type_name(ty));
            self.undefined(Code::Template, section, span, message);
        }
        found
    }

    /// The property (`attributes`: attribute) definition a mapping key
    /// names (§15.2, §15.3): `<name>` of node type `ty`,
    /// `[ CAPABILITY, <capability>, <name> ]` of one of its capabilities,
    /// or `[ RELATIONSHIP, <requirement>, <index>, <name> ]` (the index
    /// optional, a non-negative integer or `ALL`) of the relationship one
    /// of its requirements creates. Reports what does not exist. `own` are
    /// the properties (attributes) of `ty`.
    fn mapped_definition(
        &mut self,
        k: KeyRef<'a>,
        ty: TypeId,
        attributes: bool,
        own: &ByName<'_, 'a, Param<'a>>,
    ) -> Option<Mapped<'a>> {
        let (what, section, shape) = if attributes {
            ("attribute", Section::AttributeMapping, ATTRIBUTE_KEY_SHAPE)
        } else {
            ("property", Section::PropertyMapping, PROPERTY_KEY_SHAPE)
        };
        let entries = |c: &Self, t: TypeId| {
            if attributes {
                c.type_attributes(t)
            } else {
                c.type_entries(t, "properties")
            }
        };
        let Some(tree) = k.tree() else {
            let found = own.get(k.name()).cloned();
            let def = self.reported(found, ty, what, k.name(), k.span(), section);
            return def.map(|def| Mapped { def, all: false });
        };
        let list: Vec<NodeRef<'a>> = tree
            .as_seq()
            .map(|l| l.iter().collect())
            .unwrap_or_default();
        let (target_ty, name_node, all) = match *list.as_slice() {
            [kind, cap, name] if value::as_str(kind) == Some("CAPABILITY") => {
                let Some(cap_name) = value::as_str(cap) else {
                    self.error(Code::Template, section, cap.span(), shape);
                    return None;
                };
                let caps = self.node_capabilities(ty);
                let found = named(caps, cap_name);
                let def = self.reported(found, ty, "capability", cap_name, cap.span(), section)?;
                (self.capability_type_of(&def)?, name, false)
            }
            [kind, req, ref rest @ ..]
                if value::as_str(kind) == Some("RELATIONSHIP") && (1..=2).contains(&rest.len()) =>
            {
                let index = rest.first().filter(|_| rest.len() == 2);
                let all = index.is_some_and(|&i| value::as_str(i) == Some("ALL"));
                if let Some(i) = index.filter(|&&i| !all && value::as_count(i).is_none()) {
                    let message = "the relationship index is a non-negative integer or ALL";
                    self.error(Code::Template, section, i.span(), message);
                }
                let Some(req_name) = value::as_str(req) else {
                    self.error(Code::Template, section, req.span(), shape);
                    return None;
                };
                let reqs = self.node_requirements(ty);
                let found = named(reqs, req_name);
                let def = self.reported(found, ty, "requirement", req_name, req.span(), section)?;
                let rel = def.get("relationship")?;
                let rel_name = value::as_str(rel).or_else(|| value::as_str(rel.get("type")?))?;
                let rel_ty = self
                    .ts
                    .resolve_type(self.doc_of(rel), Kind::Relationship, rel_name)
                    .ok()?;
                (rel_ty, *rest.last()?, all)
            }
            _ => {
                self.error(Code::Template, section, k.span(), shape);
                return None;
            }
        };
        let Some(name) = value::as_str(name_node) else {
            self.error(Code::Template, section, name_node.span(), shape);
            return None;
        };
        match entries(self, target_ty)
            .into_iter()
            .find(|(n, _)| *n == name)
        {
            Some((_, def)) => Some(Mapped { def, all }),
            None => {
                let message = format!("`{}` has no {what} `{name}`", self.type_name(target_ty));
                self.undefined_in(
                    target_ty,
                    Code::Template,
                    section,
                    name_node.span(),
                    message,
                );
                None
            }
        }
    }

    /// Capability mappings: `<capability>: [ <node template>, <capability> ]` (§15.4).
    fn capability_mappings(&mut self, cm: NodeRef<'a>, ty: TypeId, idx: &Index<'a>) {
        let caps = self.node_capabilities(ty);
        let Some(map) = self.named_map(cm, "capability mappings", Section::CapabilityMapping)
        else {
            return;
        };
        for (k, v) in map.iter() {
            let want = caps
                .iter()
                .find(|(n, _)| *n == k.name())
                .map(|(_, p)| self.capability_type_of(p));
            if want.is_none() {
                let message = format!(
                    "node type `{}` has no capability `{}`",
                    self.type_name(ty),
                    k.name()
                );
                self.undefined(
                    Code::Template,
                    Section::CapabilityMapping,
                    k.span(),
                    message,
                );
            }
            let shape = "a capability mapping is `[ <node template>, <capability> ]`";
            let Some(pair) = v.as_seq().filter(|l| l.len() == 2) else {
                self.error(Code::Template, Section::CapabilityMapping, v.span(), shape);
                continue;
            };
            let (Some(nname), Some(cname)) = (value::as_str(pair.at(0)), value::as_str(pair.at(1)))
            else {
                self.error(Code::Template, Section::CapabilityMapping, v.span(), shape);
                continue;
            };
            let Some((nt, _)) = idx.node(nname) else {
                self.error(
                    Code::Template,
                    Section::CapabilityMapping,
                    pair.at(0).span(),
                    format!("`{nname}` is not a node template"),
                );
                continue;
            };
            let Some(nt) = nt else { continue };
            match self
                .node_capabilities(nt)
                .into_iter()
                .find(|(n, _)| *n == cname)
            {
                None => {
                    let message = format!("node template `{nname}` has no capability `{cname}`");
                    let span = pair.at(1).span();
                    self.undefined_in(
                        nt,
                        Code::Template,
                        Section::CapabilityMapping,
                        span,
                        message,
                    );
                }
                Some((_, p)) => {
                    if let (Some(Some(want)), Some(got)) = (want, self.capability_type_of(&p)) {
                        if !self.ts.is_a(got, want) {
                            let message = format!(
                                "capability `{cname}` of `{nname}` (type `{}`) is not a `{}`",
                                self.type_name(got),
                                self.type_name(want)
                            );
                            self.error(
                                Code::Template,
                                Section::CapabilityMapping,
                                pair.at(1).span(),
                                message,
                            );
                        }
                    }
                }
            }
        }
    }

    /// Interface mappings: `<interface>: { <operation>: <workflow> }` (§15.6).
    fn interface_mappings(&mut self, i: NodeRef<'a>, ty: TypeId, idx: &Index<'a>) {
        let ifaces = self.type_entries(ty, "interfaces");
        let Some(im) = self.named_map(i, "interface mappings", Section::InterfaceMapping) else {
            return;
        };
        for (k, v) in im.iter() {
            let Some((_, idef)) = ifaces.iter().find(|(n, _)| *n == k.name()) else {
                let message = format!(
                    "node type `{}` has no interface `{}`",
                    self.type_name(ty),
                    k.name()
                );
                self.undefined(Code::Template, Section::InterfaceMapping, k.span(), message);
                continue;
            };
            let ops = self.interface_parts(idef, "operations");
            self.at(k.name(), |c| {
                let Some(om) = c.expect_map(v, "an interface mapping", Section::InterfaceMapping)
                else {
                    return;
                };
                for (ok, ov) in om.iter() {
                    if !ops.iter().any(|(n, _)| *n == ok.name()) {
                        let message =
                            format!("interface `{}` has no operation `{}`", k.name(), ok.name());
                        c.undefined(
                            Code::Template,
                            Section::InterfaceMapping,
                            ok.span(),
                            message,
                        );
                    }
                    if let Some(w) =
                        c.expect_str(ov, "the mapped workflow", Section::InterfaceMapping)
                    {
                        if !idx.workflows.contains_key(w) {
                            c.error(
                                Code::Template,
                                Section::InterfaceMapping,
                                ov.span(),
                                format!("workflow `{w}` is not defined"),
                            );
                        }
                    }
                }
            });
        }
    }

    /// Requirement mappings (§15.5): a list of single-key maps
    /// `<requirement>: <target>` or `[ <requirement>, <count> ]: <target>`
    /// (TOSCA 1.3: a map), the target `[ <node template>, <requirement> ]`,
    /// a selectable node, or a list of those.
    fn requirement_mappings(&mut self, r: NodeRef<'a>, ty: TypeId, idx: &Index<'a>) {
        let reqs = self.node_requirements(ty);
        let entries: Vec<(KeyRef<'a>, NodeRef<'a>)> = match (r.value(), self.v13()) {
            (ValueRef::Map(m), true) => m.iter().collect(),
            (ValueRef::Seq(list), false) => {
                let mut out = Vec::new();
                for (i, item) in list.iter().enumerate() {
                    match item
                        .as_map()
                        .and_then(|m| m.first().filter(|_| m.len() == 1))
                    {
                        Some(entry) => out.push(entry),
                        None => self.at_index(i, |c| {
                            c.error(
                                Code::InvalidShape,
                                Section::RequirementMapping,
                                item.span(),
                                "each requirement mapping is a single-key map",
                            )
                        }),
                    }
                }
                out
            }
            _ => {
                let what = if self.v13() { "a map" } else { "a list" };
                self.error(
                    Code::InvalidShape,
                    Section::RequirementMapping,
                    r.span(),
                    format!("requirement mappings must be {what}"),
                );
                return;
            }
        };
        let keys: Vec<Option<(&'a str, Count)>> = entries
            .iter()
            .map(|(k, _)| self.requirement_mapping_key(*k))
            .collect();
        for (name, def) in &reqs {
            let mine = || {
                entries.iter().zip(&keys).filter_map(move |((k, _), key)| {
                    key.filter(|(n, _)| n == name).map(|(_, c)| (*k, c))
                })
            };
            // After `[ <requirement>, UNBOUNDED ]` (all remaining
            // assignments), no mapping of the same requirement (§15.5).
            if let Some((k, _)) = mine().skip_while(|(_, c)| *c != Count::Unbounded).nth(1) {
                let message = format!(
                    "requirement `{name}` is mapped again after a mapping with an UNBOUNDED count"
                );
                self.error(
                    Code::Template,
                    Section::RequirementMapping,
                    k.span(),
                    message,
                );
            }
            // §15.5.4 rule 3: no more mappings than the requirement's upper bound.
            let Some((_, hi)) = def.get("count_range").and_then(|cr| self.range_of(cr)) else {
                continue;
            };
            let assignments = |count: Count| match count {
                Count::Plain => 1,
                Count::Exactly(n) => n,
                Count::Unbounded => 0,
            };
            let total = mine().fold(0u64, |t, (_, c)| t.saturating_add(assignments(c)));
            let mut running = 0u64;
            let first_over = mine().find(|(_, c)| {
                running = running.saturating_add(assignments(*c));
                running > hi
            });
            if let Some((k, _)) = first_over {
                let message = format!(
                    "requirement `{name}` is mapped {total} times, more than the upper bound {hi} of its count_range"
                );
                self.error(
                    Code::Template,
                    Section::RequirementMappingRules,
                    k.span(),
                    message,
                );
            }
        }
        for ((k, v), key) in entries.into_iter().zip(keys) {
            let Some((name, _)) = key else { continue };
            if !reqs.iter().any(|(n, _)| *n == name) {
                let message = format!(
                    "node type `{}` has no requirement `{name}`",
                    self.type_name(ty)
                );
                let span = k
                    .tree()
                    .and_then(|t| t.as_seq())
                    .map_or(k.span(), |l| l.at(0).span());
                self.undefined(Code::Template, Section::RequirementMapping, span, message);
            }
            self.at(k.name(), |c| c.requirement_mapping_target(v, idx, 0));
        }
    }

    /// The requirement name and count of a requirement mapping key
    /// (§15.5); reports keys of another shape.
    fn requirement_mapping_key(&mut self, k: KeyRef<'a>) -> Option<(&'a str, Count)> {
        let Some(tree) = k.tree() else {
            return Some((k.name(), Count::Plain));
        };
        if let Some([name, count]) = tree.as_seq().and_then(SeqRef::array) {
            let count = match self.classify(count) {
                Scalar::Int(n) if n >= 0 => Some(Count::Exactly(n as u64)),
                Scalar::Str("UNBOUNDED") => Some(Count::Unbounded),
                _ => None,
            };
            if let (Some(name), Some(count)) = (value::as_str(name), count) {
                return Some((name, count));
            }
        }
        self.error(
            Code::Template,
            Section::RequirementMapping,
            k.span(),
            REQUIREMENT_KEY_SHAPE,
        );
        None
    }

    fn requirement_mapping_target(&mut self, v: NodeRef<'a>, idx: &Index<'a>, depth: usize) {
        if let Some(name) = value::as_str(v) {
            if !idx.nodes.contains_key(name) {
                self.error(
                    Code::Template,
                    Section::RequirementMapping,
                    v.span(),
                    format!("`{name}` is not a node template"),
                );
            }
            return;
        }
        let Some(list) = v.as_seq() else {
            self.error(Code::Template, Section::RequirementMapping, v.span(), "a requirement mapping target is `[ <node template>, <requirement> ]` or a node template name");
            return;
        };
        let pair = list.len() == 2 && list.iter().all(|n| value::as_str(n).is_some());
        if pair {
            let (nname, rname) = (
                value::as_str(list.at(0)).expect("str"),
                value::as_str(list.at(1)).expect("str"),
            );
            if let Some((nt, tpl)) = idx.node(nname) {
                if let Some(nt) = nt {
                    if !self.node_requirements(nt).iter().any(|(n, _)| *n == rname) {
                        self.error(
                            Code::Template,
                            Section::RequirementMapping,
                            list.at(1).span(),
                            format!("node template `{nname}` has no requirement `{rname}`"),
                        );
                    } else if !self.v13() && !has_dangling(tpl, rname) {
                        self.error(
                            Code::Template,
                            Section::RequirementMappingRules,
                            list.at(1).span(),
                            format!("requirement `{rname}` of `{nname}` is not dangling"),
                        );
                        self.note("every assignment of it names its target node; a requirement of the substituted node can only be mapped onto a dangling requirement");
                    }
                }
                return;
            }
            if depth > 0 {
                self.error(
                    Code::Template,
                    Section::RequirementMapping,
                    list.at(0).span(),
                    format!("`{nname}` is not a node template"),
                );
                return;
            }
        }
        if depth > 0 {
            self.error(Code::Template, Section::RequirementMapping, v.span(), "a requirement mapping target is `[ <node template>, <requirement> ]` or a node template name");
            return;
        }
        for (i, item) in list.iter().enumerate() {
            self.at_index(i, |c| c.requirement_mapping_target(item, idx, depth + 1));
        }
    }
}

/// Whether requirement `name` of a node template is dangling (§15.5.4): it
/// has no assignment (an implicit one is dangling), or one without a
/// target `node`.
fn has_dangling(tpl: Tpl<'_>, name: &str) -> bool {
    let Some(list) = tpl.get("requirements").and_then(NodeRef::as_seq) else {
        return true;
    };
    let mut assigned = false;
    for item in list {
        let Some(a) = item.as_map().and_then(|m| m.get(name)) else {
            continue;
        };
        assigned = true;
        let targeted = match a.value() {
            ValueRef::String(_) | ValueRef::Seq(_) => true,
            ValueRef::Map(m) => m.contains_key("node"),
            _ => false,
        };
        if !targeted {
            return true;
        }
    }
    !assigned
}

/// The definition named `name` among `defs`, the first of the name.
fn named<T>(defs: Vec<(&str, T)>, name: &str) -> Option<T> {
    defs.into_iter().find(|(n, _)| *n == name).map(|(_, d)| d)
}
