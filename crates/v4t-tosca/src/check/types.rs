//! Type definitions (§6.4 and the chapter of each kind): keynames, the
//! common keynames, and the derivation and refinement rules of everything
//! a type defines.

use crate::diag::with_article;
use crate::keynames::{is_keyname, keynames, Entity};
use crate::section::Section;
use v4t_source::Code;
use v4t_yaml::hash::{ByName, SeededSet};
use v4t_yaml::{MapRef, NodeRef, Span};

use super::defs::{is_short_form, DefNode, Param, Place, Role};
use super::funcs::FnCtx;
use super::inherited::{Inherited, ParentChain};
use super::Checker;
use crate::types::{Builtin, Kind, TypeId};
use crate::value::{self, Scalar};

impl<'t, 'a> Checker<'t, 'a> {
    /// A `*_types` section.
    pub(super) fn type_section(&mut self, kind: Kind, v: NodeRef<'a>) {
        let Some(map) = self.named_map(v, &format!("`{}`", kind.section()), kind.spec_section())
        else {
            return;
        };
        for (k, def) in map.iter() {
            if kind == Kind::Data && self.ts.builtin(self.grammar, k.name()).is_some() {
                self.error(
                    Code::Definition,
                    Section::BuiltInTypes,
                    k.span(),
                    format!(
                        "`{}` is the name of a built-in type and cannot be used for a data type",
                        k.name()
                    ),
                );
                continue;
            }
            let Some(t) = self.ts.local_type(self.doc, kind, k.name()) else {
                continue;
            };
            self.at(k.name(), |c| c.type_def(kind, t, def));
        }
    }

    /// One type definition: its keynames, the common keynames of types
    /// (§6.4.1), its properties and attributes, and what its kind defines.
    fn type_def(&mut self, kind: Kind, t: TypeId, def: NodeRef<'a>) {
        let section = kind.spec_section();
        if def.is_null() && self.v13() {
            return;
        }
        let Some(map) = self.expect_map(
            def,
            &format!("{} definition", with_article(kind.noun())),
            section,
        ) else {
            return;
        };
        let scalar = kind == Kind::Data && self.ts.builtin_base(t) == Some(Builtin::Scalar);
        self.type_keynames(kind, map, def.span(), scalar);
        if let Some(d) = map.get("description") {
            self.at("description", |c| c.description(d));
        }
        if let Some(m) = map.get("metadata") {
            self.at("metadata", |c| c.metadata(m));
        }
        if let Some(d) = map.get("derived_from") {
            self.expect_str(d, "`derived_from`", Section::TypeKeynames);
        }
        if let Some(v) = map.get("version") {
            self.type_version(v);
        }
        let parent = self.ts.get(t).parent;
        let parent_chain = ParentChain::new(self.ts, parent);
        self.inherits_unknown = self.ts.inherits_unknown(t);
        let saved = std::mem::take(&mut self.fctx);
        self.fctx = FnCtx {
            self_node: (kind == Kind::Node).then_some(t),
            self_relationship: kind == Kind::Relationship,
            in_interface_type: kind == Kind::Interface,
            ..FnCtx::default()
        };
        if kind != Kind::Interface {
            self.type_properties_and_attributes(map, &parent_chain);
        }
        match kind {
            Kind::Data => self.data_type(t, map, scalar),
            Kind::Node => self.node_type(map, &parent_chain),
            Kind::Relationship => self.relationship_type(t, map, &parent_chain),
            Kind::Capability => {
                for (key, k) in [
                    ("valid_source_node_types", Kind::Node),
                    ("valid_relationship_types", Kind::Relationship),
                    ("valid_source_types", Kind::Node),
                ] {
                    if let Some(l) = map.get(key) {
                        self.narrowing_list(t, key, l, k, Section::CapabilityType);
                    }
                }
            }
            Kind::Interface => self.interface_type(t, map, &parent_chain),
            Kind::Artifact => {
                if let Some(m) = map.get("mime_type") {
                    self.expect_str(m, "`mime_type`", Section::ArtifactType);
                }
                if let Some(f) = map.get("file_ext") {
                    self.at("file_ext", |c| {
                        c.expect_str_list(f, "`file_ext`", Section::ArtifactType);
                    });
                }
            }
            Kind::Group => {
                if let Some(l) = map.get("members") {
                    self.narrowing_list(t, "members", l, Kind::Node, Section::GroupType);
                }
                if self.v13() {
                    self.capabilities_requirements_interfaces(map, &parent_chain);
                }
            }
            Kind::Policy => {
                if let Some(l) = map.get("targets") {
                    self.narrowing_targets(t, l);
                }
                if let Some(tr) = map.get("triggers") {
                    let parents = super::defs::collect_section(parent_chain.get(), "triggers");
                    self.at("triggers", |c| c.triggers(tr, &parents));
                }
            }
        }
        self.fctx = saved;
        self.inherits_unknown = false;
    }

    /// The keynames of a type definition: the common ones and its kind's;
    /// a scalar type's (§9.1.2.2) only in scalar types.
    fn type_keynames(&mut self, kind: Kind, map: MapRef<'a>, def_span: Span, scalar: bool) {
        let mut allowed: Vec<&str> = keynames(Entity::Type(kind), self.grammar).collect();
        let scalar_keys: Vec<&str> = keynames(Entity::ScalarType, self.grammar).collect();
        if scalar {
            allowed.extend_from_slice(&scalar_keys);
            allowed.retain(|k| *k != "properties" && *k != "key_schema" && *k != "entry_schema");
        }
        if !scalar && kind == Kind::Data && !self.v13() {
            let misplaced: Vec<&str> = scalar_keys
                .iter()
                .copied()
                .filter(|k| map.contains_key(k))
                .collect();
            if let Some(first) = misplaced.first() {
                self.error(
                    Code::Definition,
                    Section::Scalar,
                    map.get_entry(first)
                        .map(|(k, _)| k.span())
                        .unwrap_or(def_span),
                    format!(
                        "`{}` is only allowed in scalar types (types derived from `scalar`)",
                        misplaced.join("`, `")
                    ),
                );
                allowed.extend_from_slice(&scalar_keys);
            }
        }
        // TOSCA 1.3 interface types may list operations directly.
        if !(self.v13() && kind == Kind::Interface) {
            self.keys_among(
                map,
                &allowed,
                Some(Entity::Type(kind)),
                &format!("{} definition", with_article(kind.noun())),
                kind.spec_section(),
            );
        }
    }

    /// The property and attribute definitions of a type, refining its
    /// parent's.
    fn type_properties_and_attributes(
        &mut self,
        map: MapRef<'a>,
        parent_chain: &ParentChain<'_, 'a>,
    ) {
        for (section_key, role) in [
            ("properties", Role::Property),
            ("attributes", Role::Attribute),
        ] {
            let Some(node) = map.get(section_key) else {
                continue;
            };
            let parents = match parent_chain.parent() {
                None => Vec::new(),
                Some(p) => {
                    let ts = self.ts;
                    let inherited = self.inherited.get_or_insert_with(|| Inherited::new(ts));
                    inherited.defs(p, section_key, node).unwrap_or_else(|| {
                        super::defs::collect_section(parent_chain.get(), section_key)
                    })
                }
            };
            self.at(section_key, |c| {
                c.param_defs(
                    node,
                    role,
                    Place::Type,
                    &parents,
                    (section_for(role), &format!("`{section_key}`")),
                    true,
                )
            });
        }
    }

    /// What a relationship type defines besides properties and attributes
    /// (§7.3): interfaces and the lists of valid targets and sources.
    fn relationship_type(
        &mut self,
        t: TypeId,
        map: MapRef<'a>,
        parent_chain: &ParentChain<'_, 'a>,
    ) {
        if let Some(i) = map.get("interfaces") {
            let parents = super::defs::collect_section(parent_chain.get(), "interfaces");
            self.at("interfaces", |c| c.interface_defs(i, &parents));
        }
        let lists: &[(&str, Kind)] = &[
            ("valid_capability_types", Kind::Capability),
            ("valid_target_node_types", Kind::Node),
            ("valid_source_node_types", Kind::Node),
            ("valid_target_types", Kind::Capability),
        ];
        for &(key, k) in lists {
            if let Some(l) = map.get(key) {
                self.narrowing_list(t, key, l, k, Section::RelationshipType);
            }
        }
    }

    /// `version` of a type (§6.4.1): a version string.
    fn type_version(&mut self, v: NodeRef<'a>) {
        let ok = match self.classify(v) {
            Scalar::Str(s) => super::literals::parse_version(s).is_some() || self.v13(),
            Scalar::Int(_) | Scalar::Float(_) => self.v13(),
            _ => false,
        };
        if !ok {
            self.error(
                Code::DefinitionsVersion,
                Section::TypeKeynames,
                v.span(),
                format!(
                    "{} is not a version string `major.minor[.fix[.qualifier[-build]]]` (quote `major.minor` versions)",
                    value::show(v)
                ),
            );
        }
    }

    /// Lists of types that a derived type may only narrow (`valid_*`,
    /// `members`): every entry resolves, and, where the parent type has the
    /// list, is in it or derives from an entry of it.
    fn narrowing_list(
        &mut self,
        t: TypeId,
        key: &'a str,
        l: NodeRef<'a>,
        kind: Kind,
        section: Section,
    ) {
        self.at(key, |c| {
            let entries = c.expect_str_list(l, &format!("`{key}`"), section);
            // Only narrowed in TOSCA 2.0 (§5.1.3); 1.3 has no refinement rules.
            let parent_list = (c.ts.get(t).parent.filter(|_| !c.v13()))
                .and_then(|p| c.ts.inherited(p, key));
            let parent_types: Option<Vec<TypeId>> = parent_list.map(|pl| c.types_in_list(pl, kind));
            for (name, span) in entries {
                let Some(e) = c.resolve_type(name, kind, span, section) else {
                    continue;
                };
                if let Some(pts) = &parent_types {
                    if !pts.iter().any(|&p| c.ts.is_a(e, p)) {
                        let message = format!(
                            "`{name}` is not in (or derived from a type in) the `{key}` of the parent type"
                        );
                        c.error(Code::Refinement, section, span, message);
                        c.note("a derived type may only narrow this list");
                    }
                }
            }
        });
    }

    /// The resolved types of a written list of type names (quietly), in the
    /// scope of the document that wrote it.
    pub fn types_in_list(&self, l: NodeRef<'a>, kind: Kind) -> Vec<TypeId> {
        let doc = self.doc_of(l);
        l.as_seq()
            .map(|items| {
                items
                    .iter()
                    .filter_map(|i| self.ts.resolve_type(doc, kind, value::as_str(i)?).ok())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The document a node was read from.
    pub fn doc_of(&self, n: NodeRef<'_>) -> crate::load::DocId {
        self.loaded
            .doc_of_source(n.span().source)
            .unwrap_or(self.doc)
    }

    /// Policy type `targets`: node or group types, narrowing the parent's.
    fn narrowing_targets(&mut self, t: TypeId, l: NodeRef<'a>) {
        self.at("targets", |c| {
            let entries = c.expect_str_list(l, "`targets`", Section::PolicyType);
            let parent_list = c.ts.get(t).parent.and_then(|p| c.ts.inherited(p, "targets"));
            let parents: Option<Vec<TypeId>> = parent_list.map(|pl| {
                let mut v = c.types_in_list(pl, Kind::Node);
                v.extend(c.types_in_list(pl, Kind::Group));
                v
            });
            for (name, span) in entries {
                let found = c
                    .ts
                    .resolve_type(c.doc, Kind::Node, name)
                    .or_else(|_| c.ts.resolve_type(c.doc, Kind::Group, name));
                let Ok(e) = found else {
                    c.error(
                        Code::UndefinedReference,
                        Section::PolicyType,
                        span,
                        format!("policy target `{name}` is neither a node type nor a group type"),
                    );
                    continue;
                };
                if let Some(ps) = &parents {
                    if !ps.iter().any(|&p| c.ts.is_a(e, p)) {
                        c.error(
                            Code::Definition,
                            Section::PolicyType,
                            span,
                            format!("`{name}` is not in (or derived from a type in) the `targets` of the parent policy type"),
                        );
                    }
                }
            }
        });
    }

    /// Data type rules (§9.2) and scalar type rules (§9.1.2.2).
    fn data_type(&mut self, t: TypeId, map: MapRef<'a>, scalar: bool) {
        let def = self.ts.get(t);
        let parent = def.parent;
        let base = self.ts.builtin_base(t);
        if map.get("derived_from").is_none() && map.get("properties").is_none() && !self.v13() {
            let message = "a data type needs `derived_from` or at least one property definition";
            let hint = if map.contains_key("type") {
                " (`type` is not a data type keyname; use `derived_from`)"
            } else {
                ""
            };
            self.error(
                Code::Definition,
                Section::DataType,
                def.span,
                format!("{message}{hint}"),
            );
        }
        if let Some(p) = map.get("properties") {
            if !scalar && base.is_some() && !self.v13() {
                self.error(
                    Code::Definition,
                    Section::DataType,
                    p.span(),
                    "properties are only allowed in complex data types, not in types derived from built-in types",
                );
            }
            if p.as_map().is_some_and(MapRef::is_empty) {
                self.error(
                    Code::Definition,
                    Section::DataType,
                    p.span(),
                    "`properties` must contain at least one property definition",
                );
            }
        }
        if let Some(v) = map.get("validation") {
            let s = super::defs::Schema::of_type(t);
            self.at("validation", |c| c.validation_clause(v, Some(&s)));
        }
        if let Some(v) = map.get("constraints") {
            let s = super::defs::Schema::of_type(t);
            self.at("constraints", |c| c.constraint_clauses(v, Some(&s)));
        }
        let collection = matches!(base, Some(Builtin::List | Builtin::Map));
        if let Some(e) = map.get("entry_schema") {
            if collection {
                let parent_schema = parent.and_then(|p| {
                    let s = super::defs::Schema::of_type(p);
                    self.entry_schema(&s)
                });
                self.at("entry_schema", |c| {
                    c.schema_refining(e, parent_schema.as_ref())
                });
            } else {
                self.error(
                    Code::Definition,
                    Section::DataType,
                    e.span(),
                    "`entry_schema` is only allowed in data types derived from `list` or `map`",
                );
            }
        } else if collection && !self.v13() {
            let inherited = self
                .ts
                .get(t)
                .parent
                .is_some_and(|p| self.ts.inherited(p, "entry_schema").is_some());
            if !inherited {
                self.error(
                    Code::MissingKeyname,
                    Section::DataType,
                    self.ts.get(t).span,
                    "a data type derived from `list` or `map` needs an `entry_schema`",
                );
            }
        }
        if let Some(k) = map.get("key_schema") {
            if base == Some(Builtin::Map) {
                if let Some(s) = self.at("key_schema", |c| c.schema(k, Section::DataType)) {
                    if !self.v13() && self.ts.builtin_base(s.ty) != Some(Builtin::String) {
                        self.error(
                            Code::Definition,
                            Section::DataType,
                            k.span(),
                            "a `key_schema` must derive from `string`",
                        );
                    }
                }
            } else {
                self.error(
                    Code::Definition,
                    Section::DataType,
                    k.span(),
                    "`key_schema` is only allowed in data types derived from `map`",
                );
            }
        }
        if scalar {
            self.scalar_type(t, map);
        }
        self.recursive_data_type(t);
    }

    /// A schema definition refining an inherited one.
    fn schema_refining(&mut self, node: NodeRef<'a>, parent: Option<&super::defs::Schema<'a>>) {
        match parent {
            None => {
                self.schema(node, Section::SchemaDefinition);
            }
            Some(p) => {
                // The type, if given, must derive from the parent's.
                let ty = match value::as_str(node) {
                    Some(n) => self
                        .resolve_type(n, Kind::Data, node.span(), Section::SchemaDefinition)
                        .map(|t| (t, node.span())),
                    None => node.get("type").and_then(|tn| {
                        self.type_ref(tn, Kind::Data, Section::SchemaDefinition)
                            .map(|t| (t, tn.span()))
                    }),
                };
                if let Some((t, span)) = ty {
                    self.check_refined_type(Some(p.ty), t, span);
                }
                if let Some(v) = node.get("validation") {
                    self.at("validation", |c| c.validation_clause(v, Some(p)));
                }
                if let Some(v) = node.get("constraints") {
                    self.at("constraints", |c| c.constraint_clauses(v, Some(p)));
                }
            }
        }
    }

    /// A complex data type that contains itself through required
    /// properties has no finite value.
    fn recursive_data_type(&mut self, t: TypeId) {
        let mut stack = vec![(t, 0usize)];
        let mut seen = std::collections::HashSet::new();
        while let Some((cur, depth)) = stack.pop() {
            if depth > 64 || !seen.insert(cur) {
                continue;
            }
            for (name, p) in self.type_entries(cur, "properties") {
                if !p.required() || p.default().is_some() || p.fixed().is_some() {
                    continue;
                }
                let Some(s) = self.param_schema(&p) else {
                    continue;
                };
                if self.ts.builtin_base(s.ty).is_some() {
                    continue;
                }
                if s.ty == t || self.ts.is_a(s.ty, t) {
                    let message = format!(
                        "data type `{}` contains itself through the required property `{name}`",
                        self.ts.get(t).name
                    );
                    self.error(
                        Code::Definition,
                        Section::DataType,
                        self.ts.get(t).span,
                        message,
                    );
                    self.note("no value of it can be finite");
                    return;
                }
                stack.push((s.ty, depth + 1));
            }
        }
    }

    /// Scalar type rules (§9.1.2.2).
    fn scalar_type(&mut self, t: TypeId, map: MapRef<'a>) {
        let span = self.ts.get(t).span;
        let parent = self.ts.get(t).parent;
        let parent_is_abstract =
            parent.is_some_and(|p| self.ts.get(p).builtin == Some(Builtin::Scalar));
        // The scalar type it refines (not the abstract `scalar`).
        let refined = parent.filter(|_| !parent_is_abstract);
        let integer = self.scalar_data_type(map, refined);
        let units = self.multipliers(map, "units", integer);
        let prefixes = self.multipliers(map, "prefixes", integer);
        let inherited_units = refined.and_then(|p| self.ts.inherited(p, "units"));
        if map.get("units").is_none() && inherited_units.is_none() {
            self.error(
                Code::MissingKeyname,
                Section::Scalar,
                span,
                "a scalar type needs `units`",
            );
            return;
        }
        if inherited_units.is_none() {
            self.scalar_units(map, span, &units, &prefixes);
        } else if let Some(cu) = map.get("canonical_unit") {
            self.error(
                Code::Definition,
                Section::Scalar,
                cu.span(),
                "a derived scalar type must not add or change `canonical_unit`",
            );
        }
    }

    /// The `data_type` of a scalar type: `float` or `integer` (or derived),
    /// never changed by a derived scalar type (`refined`: the scalar type it
    /// derives from); whether it is an integer type.
    fn scalar_data_type(&mut self, map: MapRef<'a>, refined: Option<TypeId>) -> bool {
        let Some(dt) = map.get("data_type") else {
            let inherited = refined.and_then(|p| self.ts.inherited(p, "data_type"));
            return inherited.is_some_and(|dt| {
                value::as_str(dt)
                    .and_then(|n| self.ts.resolve_type(self.doc_of(dt), Kind::Data, n).ok())
                    .is_some_and(|d| self.ts.builtin_base(d) == Some(Builtin::Integer))
            });
        };
        if refined.is_some() {
            self.error(
                Code::Definition,
                Section::Scalar,
                dt.span(),
                "the `data_type` of a scalar type must not be changed in a derived scalar type",
            );
        }
        let Some(d) = self.type_ref(dt, Kind::Data, Section::Scalar) else {
            return false;
        };
        match self.ts.builtin_base(d) {
            Some(Builtin::Integer) => true,
            Some(Builtin::Float) => false,
            _ => {
                self.error(
                    Code::Definition,
                    Section::Scalar,
                    dt.span(),
                    "the `data_type` of a scalar type must be `float`, `integer` or derived from them",
                );
                false
            }
        }
    }

    /// The `units` or `prefixes` of a scalar type with their multipliers
    /// (positive numbers; integers for an `integer` scalar).
    fn multipliers(&mut self, map: MapRef<'a>, key: &'a str, integer: bool) -> Vec<(&'a str, f64)> {
        let mut out = Vec::new();
        let Some(node) = map.get(key) else { return out };
        let Some(m) = self.expect_map(node, &format!("`{key}`"), Section::Scalar) else {
            return out;
        };
        for (k, v) in m.iter() {
            match self.classify(v) {
                Scalar::Int(i) if i > 0 => out.push((k.name(), i as f64)),
                Scalar::Float(f) if f > 0.0 && !integer => out.push((k.name(), f)),
                Scalar::Float(_) if integer => {
                    self.error(
                        Code::Definition,
                        Section::Scalar,
                        v.span(),
                        format!("multiplier of `{}` must be an integer", k.name()),
                    );
                    self.note("the scalar type's `data_type` is an integer type");
                }
                _ => self.error(
                    Code::Definition,
                    Section::Scalar,
                    v.span(),
                    format!("multiplier of `{}` must be a positive number", k.name()),
                ),
            }
        }
        out
    }

    /// The units, prefixes and canonical unit of a scalar type that defines
    /// its units (rather than inheriting them).
    fn scalar_units(
        &mut self,
        map: MapRef<'a>,
        span: Span,
        units: &[(&'a str, f64)],
        prefixes: &[(&'a str, f64)],
    ) {
        let ones = units.iter().filter(|(_, m)| *m == 1.0).count();
        if !units.is_empty() && ones == 0 {
            self.error(
                Code::Definition,
                Section::Scalar,
                span,
                "at least one unit needs the multiplier 1",
            );
        }
        if let Some((prefixes_key, _)) = map.get_entry("prefixes") {
            if units.len() > 1 {
                self.error(
                    Code::Definition,
                    Section::Scalar,
                    prefixes_key.span(),
                    "`prefixes` require exactly one unit (with multiplier 1)",
                );
            }
            if !prefixes.is_empty() && !prefixes.iter().any(|(_, m)| *m == 1.0) {
                self.error(
                    Code::Definition,
                    Section::Scalar,
                    span,
                    "at least one prefix needs the multiplier 1",
                );
            }
        }
        match map.get("canonical_unit") {
            None if ones > 1 => self.error(
                Code::Definition,
                Section::Scalar,
                span,
                "`canonical_unit` is required when several units have the multiplier 1",
            ),
            Some(cu) => self.canonical_unit(cu, units, prefixes),
            None => {}
        }
    }

    /// `canonical_unit`: a unit (with a prefix) of the scalar type whose
    /// multiplier is 1.
    fn canonical_unit(
        &mut self,
        cu: NodeRef<'a>,
        units: &[(&'a str, f64)],
        prefixes: &[(&'a str, f64)],
    ) {
        let Some(name) = self.expect_str(cu, "`canonical_unit`", Section::Scalar) else {
            return;
        };
        let info = super::eval::ScalarInfo {
            units: units.iter().map(|(n, m)| (n.to_string(), *m)).collect(),
            prefixes: prefixes.iter().map(|(n, m)| (n.to_string(), *m)).collect(),
            data_type: None,
            case_insensitive: false,
            unspaced: false,
        };
        match info.multiplier(name) {
            None => self.error(
                Code::Definition,
                Section::Scalar,
                cu.span(),
                format!("canonical unit `{name}` is not a unit of this scalar type"),
            ),
            Some(m) if m != 1.0 => self.error(
                Code::Definition,
                Section::Scalar,
                cu.span(),
                format!("canonical unit `{name}` must have the multiplier 1"),
            ),
            Some(_) => {}
        }
    }

    /// Node type definitions (§7.1).
    fn node_type(&mut self, map: MapRef<'a>, parent_chain: &ParentChain<'_, 'a>) {
        self.capabilities_requirements_interfaces(map, parent_chain);
        if let Some(a) = map.get("artifacts") {
            self.at("artifacts", |c| c.artifact_defs(a));
        }
    }

    /// The capability, requirement and interface definitions of a node
    /// type, or of a TOSCA 1.x group type (which had them before 1.3).
    fn capabilities_requirements_interfaces(
        &mut self,
        map: MapRef<'a>,
        parent_chain: &ParentChain<'_, 'a>,
    ) {
        if let Some(caps) = map.get("capabilities") {
            let parents = super::defs::collect_section(parent_chain.get(), "capabilities");
            self.at("capabilities", |c| {
                c.each_entry(
                    caps,
                    "`capabilities`",
                    Section::CapabilityDefinition,
                    |c, name, def| {
                        let parent = parents.iter().find(|(n, _)| *n == name).map(|(_, p)| p);
                        c.capability_def(def, parent);
                    },
                );
            });
        }
        if let Some(reqs) = map.get("requirements") {
            // A TOSCA 1.3 requirement definition in a derived type replaces
            // the parent's (1.3 has no refinement rules).
            let parents = if self.v13() {
                Vec::new()
            } else {
                super::defs::collect_requirements(parent_chain.get())
            };
            self.at("requirements", |c| c.requirement_defs(reqs, &parents));
        }
        if let Some(i) = map.get("interfaces") {
            let parents = super::defs::collect_section(parent_chain.get(), "interfaces");
            self.at("interfaces", |c| c.interface_defs(i, &parents));
        }
    }

    /// A capability definition or refinement (§8.2, §8.2.1).
    fn capability_def(&mut self, def: NodeRef<'a>, parent: Option<&Param<'a>>) {
        let parent_type = parent.and_then(|p| self.capability_type_of(p));
        if let Some(name) = value::as_str(def) {
            if let Some(ty) = self.resolve_type(
                name,
                Kind::Capability,
                def.span(),
                Section::CapabilityDefinition,
            ) {
                self.check_refined_type(parent_type, ty, def.span());
            }
            return;
        }
        let Some(map) = self.expect_map(
            def,
            "a capability definition",
            Section::CapabilityDefinition,
        ) else {
            return;
        };
        self.keys(
            map,
            Entity::CapabilityDefinition,
            "a capability definition",
            Section::CapabilityDefinition,
        );
        match map.get_entry("occurrences") {
            Some((_, o)) if self.v13() => {
                self.at("occurrences", |c| {
                    c.count_range(o, Section::CapabilityDefinition)
                });
            }
            Some((k, _)) => self.warning(
                Code::ToscaNotice,
                Section::CapabilityDefinition,
                k.span(),
                "`occurrences` on capabilities is deprecated in TOSCA 2.0 (use `allocation` in requirement assignments)",
            ),
            None => {}
        }
        self.common_keynames(map);
        let Some(ty) = self.refined_type(
            map,
            Kind::Capability,
            parent_type,
            def,
            (Section::CapabilityDefinition, "a capability definition"),
        ) else {
            return;
        };
        self.refine_type_entries(map, ty, "capability");
        for (key, kind) in [
            ("valid_source_node_types", Kind::Node),
            ("valid_relationship_types", Kind::Relationship),
            ("valid_source_types", Kind::Node),
        ] {
            if let Some(l) = map.get(key) {
                self.subset_of_type_list(ty, key, l, kind, Section::CapabilityDefinition);
            }
        }
    }

    /// The `type` of a definition that may refine an inherited one: the
    /// written type (which must derive from the inherited one), else the
    /// inherited one; a new definition needs one.
    fn refined_type(
        &mut self,
        map: MapRef<'a>,
        kind: Kind,
        parent_type: Option<TypeId>,
        at: NodeRef<'a>,
        (section, what): (Section, &str),
    ) -> Option<TypeId> {
        match map.get("type") {
            Some(tn) => self.type_ref(tn, kind, section).inspect(|&t| {
                self.check_refined_type(parent_type, t, tn.span());
            }),
            None => {
                if parent_type.is_none() && !self.inherits_unknown {
                    self.error(
                        Code::MissingKeyname,
                        section,
                        at.span(),
                        format!("{what} needs a `type`"),
                    );
                }
                parent_type
            }
        }
    }

    /// `properties` and `attributes` of a definition that only refines those
    /// of its type `ty` (capability and relationship definitions, §8.2, §8.4).
    fn refine_type_entries(&mut self, map: MapRef<'a>, ty: TypeId, what: &str) {
        for key in ["properties", "attributes"] {
            let Some(n) = map.get(key) else { continue };
            let (role, parents) = if key == "properties" {
                (Role::Property, self.type_entries(ty, key))
            } else {
                (Role::Attribute, self.type_attributes(ty))
            };
            self.at(key, |c| {
                c.param_defs(
                    n,
                    role,
                    Place::Type,
                    &parents,
                    (section_for(role), &format!("{what} `{key}`")),
                    false,
                )
            });
        }
    }

    /// A list in a definition that must stay within the same list of the
    /// definition's type (§8.2).
    fn subset_of_type_list(
        &mut self,
        ty: TypeId,
        key: &'a str,
        l: NodeRef<'a>,
        kind: Kind,
        section: Section,
    ) {
        self.at(key, |c| {
            let entries = c.expect_str_list(l, &format!("`{key}`"), section);
            let allowed = c.ts.inherited(ty, key).map(|tl| c.types_in_list(tl, kind));
            for (name, span) in entries {
                let Some(e) = c.resolve_type(name, kind, span, section) else {
                    continue;
                };
                if let Some(a) = &allowed {
                    if !a.iter().any(|&p| c.ts.is_a(e, p)) {
                        let message = format!(
                            "`{name}` is not in (or derived from a type in) the `{key}` of `{}`",
                            c.type_name(ty)
                        );
                        c.error(Code::Definition, section, span, message);
                    }
                }
            }
        });
    }

    /// Requirement definitions (§8.4): a list of single-key maps with
    /// unique names, refining inherited ones (§8.4.1).
    fn requirement_defs(&mut self, reqs: NodeRef<'a>, parents: &[(&'a str, Param<'a>)]) {
        let Some(list) = self.expect_seq(reqs, "`requirements`", Section::RequirementDefinition)
        else {
            return;
        };
        let mut names: SeededSet<&str> = SeededSet::default();
        let parents_by_name = ByName::new(parents);
        for (i, item) in list.iter().enumerate() {
            self.at_index(i, |c| {
                let Some(m) = c.expect_map(
                    item,
                    "a requirement definition",
                    Section::RequirementDefinition,
                ) else {
                    return;
                };
                if m.len() != 1 {
                    c.error(
                        Code::InvalidShape,
                        Section::RequirementDefinition,
                        item.span(),
                        "each entry of `requirements` is a single-key map `<name>: <definition>`",
                    );
                    return;
                }
                let (k, def) = m.first().expect("one entry");
                if !names.insert(k.name()) {
                    c.error(
                        Code::Duplicate,
                        Section::RequirementDefinition,
                        k.span(),
                        format!("requirement `{}` is defined twice", k.name()),
                    );
                }
                let parent = parents_by_name.get(k.name());
                c.at(k.name(), |c| c.requirement_def(def, parent));
            });
        }
    }

    fn requirement_def(&mut self, def: NodeRef<'a>, parent: Option<&Param<'a>>) {
        // The TOSCA 1.3 short form `<name>: <capability type>`.
        if let Some(name) = value::as_str(def) {
            self.resolve_type(
                name,
                Kind::Capability,
                def.span(),
                Section::RequirementDefinition,
            );
            return;
        }
        let Some(map) = self.expect_map(
            def,
            "a requirement definition",
            Section::RequirementDefinition,
        ) else {
            return;
        };
        self.keys(
            map,
            Entity::RequirementDefinition,
            "a requirement definition",
            Section::RequirementDefinition,
        );
        self.common_keynames(map);
        let get_parent = |key: &str| parent.and_then(|p| p.get(key));
        // node
        let parent_node = get_parent("node").and_then(|n| {
            self.ts
                .resolve_type(self.doc_of(n), Kind::Node, value::as_str(n)?)
                .ok()
        });
        let node = map.get("node").and_then(|n| {
            let t = self.type_ref(n, Kind::Node, Section::RequirementDefinition)?;
            self.check_refined_type(parent_node, t, n.span());
            Some(t)
        });
        let node = node.or(parent_node);
        match map.get("capability") {
            Some(cn) => self.capability_of_requirement_def(cn, node, parent),
            None => {
                if parent.is_none() && !self.v13() && !self.inherits_unknown {
                    self.error(
                        Code::MissingKeyname,
                        Section::RequirementDefinition,
                        def.span(),
                        "a requirement definition needs a `capability`",
                    );
                }
            }
        }
        // Within a requirement definition, SELF is the relationship being
        // established (§10.3, §8.6): in its node filter and in the
        // relationship definition's interfaces (`[SELF, TARGET, address]`).
        let saved = (self.fctx.self_node, self.fctx.self_relationship);
        (self.fctx.self_node, self.fctx.self_relationship) = (None, true);
        if let Some(r) = map.get("relationship") {
            self.at("relationship", |c| c.relationship_def(r, parent));
        }
        if let Some(f) = map.get("node_filter") {
            self.at("node_filter", |c| c.condition(f, Section::NodeFilter));
        }
        (self.fctx.self_node, self.fctx.self_relationship) = saved;
        if let Some(cr) = map.get("count_range").or_else(|| map.get("occurrences")) {
            let parent_range = get_parent("count_range")
                .or_else(|| get_parent("occurrences"))
                .filter(|_| !self.v13())
                .and_then(|p| self.range_of(p));
            if let Some((lo, hi)) = self.count_range(cr, Section::RequirementDefinition) {
                if let Some((plo, phi)) = parent_range {
                    if lo < plo || hi > phi {
                        self.error(
                            Code::Definition,
                            Section::RequirementRefinement,
                            cr.span(),
                            "a refined `count_range` must lie within the parent's range",
                        );
                    }
                }
            }
        }
    }

    /// The `capability` of a requirement definition: a capability of its
    /// `node` type (a symbolic name, unchanged in refinements), or a
    /// capability type that refines the parent's and that the node type
    /// offers.
    fn capability_of_requirement_def(
        &mut self,
        cn: NodeRef<'a>,
        node: Option<TypeId>,
        parent: Option<&Param<'a>>,
    ) {
        let Some(name) = self.expect_str(cn, "`capability`", Section::RequirementDefinition) else {
            return;
        };
        let parent_cap = parent.and_then(|p| p.get("capability"));
        let is_symbolic = |c: &Self, name: &str| {
            node.is_some_and(|n| c.node_capabilities(n).iter().any(|(cap, _)| *cap == name))
        };
        let parent_name = parent_cap.and_then(value::as_str);
        let symbolic = is_symbolic(self, name);
        // A symbolic name in the parent stays (§8.4.1); a parent's name
        // that is no capability of the node is a capability type, which a
        // symbolic name may refine.
        let changed = !self.v13()
            && parent_name.is_some_and(|pc| {
                pc != name
                    && if symbolic {
                        self.ts
                            .resolve_type(self.doc, Kind::Capability, pc)
                            .is_err()
                    } else {
                        is_symbolic(self, pc)
                    }
            });
        if changed {
            self.error(
                Code::Definition,
                Section::RequirementRefinement,
                cn.span(),
                "a capability given by symbolic name must stay unchanged in refinements",
            );
        }
        if symbolic || changed {
            return;
        }
        let Some(ct) = self.resolve_type(
            name,
            Kind::Capability,
            cn.span(),
            Section::RequirementDefinition,
        ) else {
            return;
        };
        let parent_type = parent_cap.and_then(|p| {
            self.ts
                .resolve_type(self.doc_of(p), Kind::Capability, value::as_str(p)?)
                .ok()
        });
        self.check_refined_type(parent_type, ct, cn.span());
        if let Some(n) = node {
            let fulfils = self.node_capabilities(n).iter().any(|(_, v)| {
                self.capability_type_of(v)
                    .is_some_and(|t| self.ts.is_a(t, ct))
            });
            if !fulfils && !self.capabilities_unknown(n) {
                let message = format!(
                    "node type `{}` has no capability of type `{}`",
                    self.type_name(n),
                    self.type_name(ct)
                );
                self.error(
                    Code::Template,
                    Section::RequirementDefinition,
                    cn.span(),
                    message,
                );
            }
        }
    }

    /// `count_range: [min, max]` (§8.4; TOSCA 1.3's `occurrences` of
    /// requirement and capability definitions, 1.3 §3.7.3, §3.7.2) in the
    /// definition of `section`; `None` if invalid (reported).
    pub fn count_range(&mut self, cr: NodeRef<'a>, section: Section) -> Option<(u64, u64)> {
        let r = self.range_of(cr);
        if r.is_none() {
            self.error(
                Code::InvalidShape,
                section,
                cr.span(),
                format!(
                    "`{}` is `[min, max]` with non-negative integers, min <= max, max may be UNBOUNDED",
                    if self.v13() { "occurrences" } else { "count_range" }
                ),
            );
        }
        r
    }

    /// Reads `[min, max]` quietly.
    pub fn range_of(&self, cr: NodeRef<'_>) -> Option<(u64, u64)> {
        let l = cr.as_seq()?;
        if l.len() != 2 {
            return None;
        }
        let lo = match self.classify(l.at(0)) {
            Scalar::Int(i) if i >= 0 => i as u64,
            _ => return None,
        };
        let hi = match self.classify(l.at(1)) {
            Scalar::Int(i) if i >= 0 => i as u64,
            Scalar::Str("UNBOUNDED") => u64::MAX,
            _ => return None,
        };
        (lo <= hi).then_some((lo, hi))
    }

    /// The relationship of a requirement definition (§8.4): a type name or
    /// a relationship definition refining the type's properties, attributes
    /// and interfaces.
    fn relationship_def(&mut self, r: NodeRef<'a>, parent: Option<&Param<'a>>) {
        let parent_type = parent.and_then(|p| p.get("relationship")).and_then(|pr| {
            let name = value::as_str(pr).or_else(|| value::as_str(pr.get("type")?))?;
            self.ts
                .resolve_type(self.doc_of(pr), Kind::Relationship, name)
                .ok()
        });
        if let Some(name) = value::as_str(r) {
            if let Some(t) = self.resolve_type(
                name,
                Kind::Relationship,
                r.span(),
                Section::RequirementDefinition,
            ) {
                self.check_refined_type(parent_type, t, r.span());
            }
            return;
        }
        let Some(map) = self.expect_map(
            r,
            "a relationship definition",
            Section::RequirementDefinition,
        ) else {
            return;
        };
        self.keys(
            map,
            Entity::RelationshipDefinition,
            "a relationship definition",
            Section::RequirementDefinition,
        );
        let Some(ty) = self.refined_type(
            map,
            Kind::Relationship,
            parent_type,
            r,
            (Section::RequirementDefinition, "a relationship definition"),
        ) else {
            return;
        };
        self.refine_type_entries(map, ty, "relationship");
        if let Some(i) = map.get("interfaces") {
            let parents = self.type_entries(ty, "interfaces");
            self.at("interfaces", |c| c.interface_refinements_only(i, &parents));
        }
    }

    /// Interface definitions in node and relationship types (§11.2).
    fn interface_defs(&mut self, node: NodeRef<'a>, parents: &[(&'a str, Param<'a>)]) {
        let Some(m) = self.named_map(node, "`interfaces`", Section::InterfaceDefinition) else {
            return;
        };
        let parents_by_name = ByName::new(parents);
        for (k, def) in m.iter() {
            let parent = parents_by_name.get(k.name());
            self.at(k.name(), |c| c.interface_def(def, parent));
        }
    }

    /// Interface refinements (relationship definitions in requirements):
    /// the interfaces must exist in the relationship type.
    fn interface_refinements_only(&mut self, node: NodeRef<'a>, parents: &[(&'a str, Param<'a>)]) {
        let Some(m) = self.named_map(node, "`interfaces`", Section::RequirementDefinition) else {
            return;
        };
        let parents_by_name = ByName::new(parents);
        for (k, def) in m.iter() {
            match parents_by_name.get(k.name()) {
                Some(p) => self.at(k.name(), |c| c.interface_def(def, Some(p))),
                None => {
                    let message = format!(
                        "interface `{}` is not defined by the relationship type",
                        k.name()
                    );
                    self.undefined(
                        Code::UndefinedReference,
                        Section::RequirementDefinition,
                        k.span(),
                        message,
                    );
                }
            }
        }
    }

    /// The interface type of an interface definition view.
    pub fn interface_type_of(&self, v: &Param<'a>) -> Option<TypeId> {
        v.defs.iter().rev().find_map(|d| {
            let name = value::as_str(d.node.get("type")?)?;
            self.ts.resolve_type(d.doc, Kind::Interface, name).ok()
        })
    }

    /// Whether the type of a capability or interface definition view is not
    /// fully known: a name (short form or `type`) that is no type of
    /// `kind`, or a type that inherits from one. Its assignments may then
    /// name what that type would define.
    pub fn def_type_unknown(&self, v: &Param<'a>, kind: Kind) -> bool {
        v.defs.iter().any(|d| {
            let Some(name) = super::defs::def_type_name(d.node) else {
                return false;
            };
            match self.ts.resolve_type(d.doc, kind, name) {
                Ok(t) => self.ts.inherits_unknown(t),
                Err(_) => true,
            }
        })
    }

    /// Whether the capabilities of node type `t` are not all known: it
    /// inherits from a name that is no type, or a capability's type is
    /// not fully known. A capability looked for may then be among them.
    pub fn capabilities_unknown(&self, t: TypeId) -> bool {
        self.ts.inherits_unknown(t)
            || (self.node_capabilities(t).iter())
                .any(|(_, v)| self.def_type_unknown(v, Kind::Capability))
    }

    fn interface_def(&mut self, def: NodeRef<'a>, parent: Option<&Param<'a>>) {
        let Some(map) =
            self.expect_map(def, "an interface definition", Section::InterfaceDefinition)
        else {
            return;
        };
        // TOSCA 1.3 interface definitions may list operations directly.
        if !self.v13() {
            self.keys(
                map,
                Entity::InterfaceDefinition,
                "an interface definition",
                Section::InterfaceDefinition,
            );
        }
        let parent_type = parent.and_then(|p| self.interface_type_of(p));
        let ty = self.refined_type(
            map,
            Kind::Interface,
            parent_type,
            def,
            (Section::InterfaceDefinition, "an interface definition"),
        );
        let Some(ty) = ty else { return };
        // The view: the interface type's chain, then the inherited
        // definitions, for inputs, operations and notifications.
        let mut chain = self.chain_defs(ty);
        if let Some(p) = parent {
            chain.extend(p.defs.iter().copied());
        }
        if let Some(i) = map.get("inputs") {
            let parents = super::defs::collect_section(&chain, "inputs");
            self.at("inputs", |c| {
                c.param_defs(
                    i,
                    Role::Outgoing,
                    Place::Type,
                    &parents,
                    (Section::InterfaceDefinition, "interface `inputs`"),
                    true,
                )
            });
        }
        for key in ["operations", "notifications"] {
            if let Some(ops) = map.get(key) {
                let parents = super::defs::collect_interface_section(&chain, key, self.v13());
                self.at(key, |c| {
                    c.operation_defs(ops, &parents, key, Place::Type, false)
                });
            }
        }
        if self.v13() {
            // 1.3: operations may be listed directly in the interface definition.
            let parents = super::defs::collect_interface_section(&chain, "operations", true);
            let parents_by_name = ByName::new(&parents);
            for (k, v) in map.iter() {
                if ![
                    "type",
                    "description",
                    "inputs",
                    "operations",
                    "notifications",
                    "metadata",
                ]
                .contains(&k.name())
                {
                    let parent = parents_by_name.get(k.name());
                    let op = Entity::OperationDefinition;
                    self.at(k.name(), |c| {
                        c.operation_def(k.name(), v, parent, Place::Type, op)
                    });
                }
            }
        }
    }

    /// Interface types (§11.1): inputs, operations, notifications; no
    /// implementations and no output mappings.
    fn interface_type(&mut self, _t: TypeId, map: MapRef<'a>, parent_chain: &ParentChain<'_, 'a>) {
        if let Some(i) = map.get("inputs") {
            let parents = super::defs::collect_section(parent_chain.get(), "inputs");
            self.at("inputs", |c| {
                c.param_defs(
                    i,
                    Role::Outgoing,
                    Place::InterfaceType,
                    &parents,
                    (Section::InterfaceType, "interface type `inputs`"),
                    true,
                )
            });
        }
        for key in ["operations", "notifications"] {
            if let Some(ops) = map.get(key) {
                let parents =
                    super::defs::collect_interface_section(parent_chain.get(), key, self.v13());
                self.at(key, |c| {
                    c.operation_defs(ops, &parents, key, Place::InterfaceType, true)
                });
            }
        }
        if self.v13() {
            let parents =
                super::defs::collect_interface_section(parent_chain.get(), "operations", true);
            let parents_by_name = ByName::new(&parents);
            for (k, v) in map.iter() {
                if !is_keyname(Entity::Type(Kind::Interface), self.grammar, k.name()) {
                    // An operation listed directly is a map (or empty);
                    // anything else is a keyname 1.3 does not define here.
                    if !(v.is_null() || v.as_map().is_some()) {
                        self.error(
                            Code::UnknownKeyname,
                            Section::V13InterfaceType,
                            k.span(),
                            format!("unknown keyname `{}` in an interface type", k.name()),
                        );
                        self.note("an operation listed directly in a TOSCA 1.3 interface type is a map of operation keynames");
                        continue;
                    }
                    let parent = parents_by_name.get(k.name());
                    self.at(k.name(), |c| {
                        c.operation_def(
                            k.name(),
                            v,
                            parent,
                            Place::InterfaceType,
                            Entity::OperationDefinition,
                        )
                    });
                }
            }
        }
    }

    /// Operation or notification definitions: new ones only in interface
    /// types, refinements elsewhere (§11.4, §11.6).
    fn operation_defs(
        &mut self,
        ops: NodeRef<'a>,
        parents: &[(&'a str, Param<'a>)],
        key: &str,
        place: Place,
        allow_new: bool,
    ) {
        let (what, entity) = if key == "operations" {
            ("operation", Entity::OperationDefinition)
        } else {
            ("notification", Entity::NotificationDefinition)
        };
        let Some(m) = self.named_map(ops, &format!("`{key}`"), Section::OperationDefinition) else {
            return;
        };
        let parents_by_name = ByName::new(parents);
        for (k, def) in m.iter() {
            let parent = parents_by_name.get(k.name());
            if parent.is_none() && !allow_new {
                self.error(
                    Code::UndefinedReference,
                    Section::OperationDefinition,
                    k.span(),
                    format!("{what} `{}` is not defined by the interface type", k.name()),
                );
                continue;
            }
            self.at(k.name(), |c| {
                c.operation_def(k.name(), def, parent, place, entity)
            });
        }
    }

    /// An operation or notification definition (`entity`, §11.4, §11.6).
    fn operation_def(
        &mut self,
        name: &str,
        def: NodeRef<'a>,
        parent: Option<&Param<'a>>,
        place: Place,
        entity: Entity,
    ) {
        if def.is_null() {
            return;
        }
        let (what, section) = match entity {
            Entity::NotificationDefinition => {
                ("a notification definition", Section::NotificationDefinition)
            }
            _ => ("an operation definition", Section::OperationDefinition),
        };
        if self.operation_list(def, what, section) {
            self.note(format!(
                "for no implementation, define it without one (`{name}:`)"
            ));
            return;
        }
        if is_short_form(def) {
            if place == Place::InterfaceType {
                self.error(
                    Code::Definition,
                    Section::InterfaceType,
                    def.span(),
                    "interface types must not define implementations (here in short form)",
                );
            } else {
                self.implementation(def, None);
            }
            return;
        }
        let Some(map) = def.as_map() else { return };
        let (what, section) = match entity {
            Entity::NotificationDefinition => {
                ("a notification definition", Section::NotificationDefinition)
            }
            _ => ("an operation definition", Section::OperationDefinition),
        };
        self.keys(map, entity, what, section);
        if let Some(d) = map.get("description") {
            self.description(d);
        }
        if let Some(i) = map.get("implementation") {
            if place == Place::InterfaceType {
                self.error(
                    Code::Definition,
                    Section::InterfaceType,
                    i.span(),
                    "interface types must not define implementations for their operations and notifications",
                );
            } else {
                self.at("implementation", |c| c.implementation(i, None));
            }
        }
        let chain: Vec<DefNode<'a>> = parent.map(|p| p.defs.clone()).unwrap_or_default();
        if let Some(i) = map.get("inputs") {
            let parents = super::defs::collect_section(&chain, "inputs");
            self.at("inputs", |c| {
                c.param_defs(
                    i,
                    Role::Outgoing,
                    place,
                    &parents,
                    (Section::OperationDefinition, "operation `inputs`"),
                    true,
                )
            });
        }
        if let Some(o) = map.get("outputs") {
            let parents = super::defs::collect_section(&chain, "outputs");
            self.at("outputs", |c| {
                c.param_defs(
                    o,
                    Role::Incoming,
                    place,
                    &parents,
                    (Section::OperationDefinition, "operation `outputs`"),
                    true,
                )
            });
        }
    }

    /// Policy type triggers: new ones may be added, inherited ones must not
    /// be changed (§16.3).
    fn triggers(&mut self, tr: NodeRef<'a>, parents: &[(&'a str, Param<'a>)]) {
        let Some(m) = self.named_map(tr, "`triggers`", Section::TriggerDefinition) else {
            return;
        };
        let parents_by_name = ByName::new(parents);
        for (k, def) in m.iter() {
            if parents_by_name.get(k.name()).is_some() {
                self.error(
                    Code::Definition,
                    Section::PolicyType,
                    k.span(),
                    format!(
                        "trigger `{}` is inherited and must not be changed",
                        k.name()
                    ),
                );
                continue;
            }
            self.at(k.name(), |c| c.trigger(def, None, None));
        }
    }

    /// The `artifacts` of a node type or node template (§12.2).
    pub(super) fn artifact_defs(&mut self, artifacts: NodeRef<'a>) {
        self.each_entry(
            artifacts,
            "`artifacts`",
            Section::ArtifactDefinition,
            |c, _, def| c.artifact_def(def),
        );
    }

    /// An artifact definition (§12.2).
    pub(super) fn artifact_def(&mut self, def: NodeRef<'a>) {
        if let Some(file) = value::as_str(def) {
            if !self.v13() {
                self.warning(
                    Code::ToscaNotice,
                    Section::ArtifactDefinition,
                    def.span(),
                    format!("short artifact form `{file}`: TOSCA 2.0 artifact definitions need `type` and `file`"),
                );
            }
            return;
        }
        let Some(map) = self.expect_map(def, "an artifact definition", Section::ArtifactDefinition)
        else {
            return;
        };
        self.keys(
            map,
            Entity::Artifact,
            "an artifact definition",
            Section::ArtifactDefinition,
        );
        let ty = match map.get("type") {
            Some(tn) => self.type_ref(tn, Kind::Artifact, Section::ArtifactDefinition),
            None => {
                self.error(
                    Code::MissingKeyname,
                    Section::ArtifactDefinition,
                    def.span(),
                    "an artifact definition needs a `type`",
                );
                None
            }
        };
        match map.get("file") {
            Some(f) => {
                self.expect_str(f, "the artifact `file`", Section::ArtifactDefinition);
            }
            None => self.error(
                Code::MissingKeyname,
                Section::ArtifactDefinition,
                def.span(),
                "an artifact definition needs a `file`",
            ),
        }
        if let Some(r) = map.get("repository") {
            if let Some(name) =
                self.expect_str(r, "the artifact `repository`", Section::ArtifactDefinition)
            {
                if self
                    .ts
                    .resolve(self.doc, crate::types::Space::Repository, name)
                    .is_err()
                {
                    self.error(
                        Code::UndefinedReference,
                        Section::ArtifactDefinition,
                        r.span(),
                        format!("repository `{name}` is not defined"),
                    );
                }
            }
        }
        for key in [
            "checksum",
            "checksum_algorithm",
            "artifact_version",
            "description",
        ] {
            if let Some(v) = map.get(key) {
                self.expect_str(v, &format!("`{key}`"), Section::ArtifactDefinition);
            }
        }
        if map.contains_key("checksum") && !map.contains_key("checksum_algorithm") {
            self.error(
                Code::MissingKeyname,
                Section::ArtifactDefinition,
                def.span(),
                "`checksum_algorithm` is required when `checksum` is given",
            );
        }
        if let Some(m) = map.get("metadata") {
            self.metadata(m);
        }
        if let (Some(ty), Some(props)) = (ty, map.get("properties")) {
            let defs = self.type_entries(ty, "properties");
            self.at("properties", |c| {
                c.assignments(
                    props,
                    &defs,
                    Role::Property,
                    Section::ArtifactDefinition,
                    true,
                )
            });
        } else if let Some(ty) = ty {
            let defs = self.type_entries(ty, "properties");
            self.required_assigned(None, &defs, def.span(), Section::ArtifactDefinition);
        }
    }

    /// An operation or notification implementation (§11.8).
    pub(super) fn implementation(&mut self, i: NodeRef<'a>, _artifacts: Option<&[&str]>) {
        if value::as_str(i).is_some() {
            return;
        }
        let Some(map) =
            self.expect_map(i, "an implementation definition", Section::Implementations)
        else {
            return;
        };
        self.keys(
            map,
            Entity::Implementation,
            "an implementation definition",
            Section::Implementations,
        );
        if let Some(p) = map.get("primary") {
            self.at("primary", |c| {
                if value::as_str(p).is_none() {
                    c.artifact_def(p);
                }
            });
        }
        if let Some(d) = map.get("dependencies") {
            self.at("dependencies", |c| {
                if let Some(list) = c.expect_seq(d, "`dependencies`", Section::Implementations) {
                    for (n, item) in list.iter().enumerate() {
                        c.at_index(n, |c| {
                            if value::as_str(item).is_none() {
                                c.artifact_def(item);
                            }
                        });
                    }
                }
            });
        }
        if let Some(t) = map.get("timeout") {
            if !matches!(self.classify(t), Scalar::Int(_)) {
                self.error(
                    Code::InvalidShape,
                    Section::Implementations,
                    t.span(),
                    "`timeout` must be an integer",
                );
            }
        }
    }
}

pub(super) fn section_for(role: Role) -> Section {
    match role {
        Role::Property => Section::PropertyDefinition,
        Role::Attribute => Section::AttributeDefinition,
        _ => Section::ParameterDefinition,
    }
}
