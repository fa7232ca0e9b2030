//! Entity definitions and their refinement (§5.1.3): property, attribute
//! and parameter definitions (§9.4, §9.6, §9.8), schema definitions (§9.3),
//! capability (§8.2), requirement (§8.4), interface (§11.2), operation and
//! notification definitions (§11.4, §11.6), artifact definitions (§12.2)
//! and implementations (§11.8).
//!
//! A definition refined along a derivation chain is seen through a *view*
//! that keeps every definition node (root-most first) together with the
//! document it was written in, so names in inherited definitions resolve
//! where they were written. Views are built without diagnostics; the
//! definitions themselves are checked once, where they are written.

use crate::diag::with_article;
use crate::keynames::{is_keyname, Entity};
use crate::section::Section;
use v4t_source::Code;
use v4t_yaml::hash::Seen;
use v4t_yaml::{MapRef, NodeRef, Span};

use super::Checker;
use crate::load::{DocId, Grammar};
use crate::types::{Builtin, Kind, TypeId, TypeSystem};
use crate::value::{self, Scalar};

/// A definition as written, with the document whose names it uses.
#[derive(Clone, Copy, Debug)]
pub struct DefNode<'a> {
    pub node: NodeRef<'a>,
    pub doc: DocId,
}

/// A resolved data schema: a data type, schemas of entries and keys, and
/// the validation clauses added by the definitions (not the type's own).
#[derive(Clone, Debug)]
pub struct Schema<'a> {
    pub ty: TypeId,
    pub entry: Option<Box<Schema<'a>>>,
    pub key: Option<Box<Schema<'a>>>,
    pub validations: Vec<DefNode<'a>>,
}

impl<'a> Schema<'a> {
    pub fn of_type(ty: TypeId) -> Schema<'a> {
        Schema {
            ty,
            entry: None,
            key: None,
            validations: Vec::new(),
        }
    }
}

/// What a parameter-like definition defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Property,
    Attribute,
    /// Operation/notification/interface inputs, workflow inputs, template
    /// outputs: may carry a fixed `value`.
    Outgoing,
    /// Template inputs, operation/notification outputs: may carry a `mapping`.
    Incoming,
}

/// Where a parameter definition is written (what it may contain).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// In a type definition (short forms only refine).
    Type,
    /// In an interface type: no implementations, no output mappings.
    InterfaceType,
    /// In a service template (inputs, outputs, workflow parameters).
    Template,
}

/// A property, attribute or parameter seen through its refinements.
#[derive(Clone, Debug, Default)]
pub struct Param<'a> {
    pub defs: Vec<DefNode<'a>>,
}

/// Nesting depth limit for schema definitions and values (hostile input).
pub const MAX_NESTING: usize = 64;

impl<'a> Param<'a> {
    /// The nearest (most refined) value of keyname `key`.
    pub fn get(&self, key: &str) -> Option<NodeRef<'a>> {
        self.defs.iter().rev().find_map(|d| d.node.get(key))
    }

    /// Keyname `key` of the most derived definition alone: in TOSCA 1.x a
    /// redefinition replaces its parent's (1.x has no refinement rules).
    pub fn own(&self, key: &str) -> Option<NodeRef<'a>> {
        self.defs.last().and_then(|d| d.node.get(key))
    }

    /// `required` (default true, §9.4). A value that is no boolean (an
    /// error of the definition, such as YAML 1.1's `no`) requires nothing:
    /// every template that leaves the parameter out would otherwise repeat
    /// that one error as a missing value.
    pub fn required(&self) -> bool {
        self.get("required")
            .is_none_or(|r| r.as_bool() == Some(true))
    }

    pub fn default(&self) -> Option<NodeRef<'a>> {
        self.get("default")
    }

    /// The fixed value: `value`, or a short-form definition.
    pub fn fixed(&self) -> Option<NodeRef<'a>> {
        self.defs.iter().rev().find_map(|d| {
            if is_short_form(d.node) {
                Some(d.node)
            } else {
                d.node.get("value")
            }
        })
    }

    /// The attribute mapping of an incoming parameter: `mapping`, or a
    /// single-line definition (§9.8).
    pub fn mapping(&self) -> Option<NodeRef<'a>> {
        self.defs.iter().rev().find_map(|d| {
            if is_short_form(d.node) {
                Some(d.node)
            } else {
                d.node.get("mapping")
            }
        })
    }
}

/// A short-form definition (`name: value`): anything but a map of keynames.
pub fn is_short_form(node: NodeRef<'_>) -> bool {
    match node.as_map() {
        Some(m) => m.len() == 1 && m.first().is_some_and(|(k, _)| k.name().starts_with('$')),
        None => true,
    }
}

/// A parameter-like definition in map form being checked, with what its
/// diagnostics cite.
struct ParamDef<'p, 'a> {
    name: &'a str,
    node: NodeRef<'a>,
    map: MapRef<'a>,
    role: Role,
    place: Place,
    parent: Option<&'p Param<'a>>,
    section: Section,
    /// `property`, `attribute` or `parameter`.
    what: &'static str,
}

/// The keynames of a property, attribute or parameter definition
/// (§9.4, §9.6, §9.8; TOSCA 1.3: `constraints`, no `mapping`).
/// The table entity of a definition of `role`.
fn param_entity(role: Role) -> Entity {
    match role {
        Role::Property => Entity::Property,
        Role::Attribute => Entity::Attribute,
        Role::Incoming | Role::Outgoing => Entity::Parameter,
    }
}

/// Names and views of a section (`properties`, `attributes`, ...) along a
/// chain of definitions (root-most first), in order of first appearance.
pub fn collect_section<'a>(chain: &[DefNode<'a>], section: &str) -> Vec<(&'a str, Param<'a>)> {
    collect_named(chain, |node| {
        let entries = node.get(section).and_then(NodeRef::as_map);
        entries
            .into_iter()
            .flat_map(|m| m.iter().map(|(k, v)| (k.name(), v)))
    })
}

/// The `key` section (`inputs`, `operations`, `notifications`) along a
/// chain of interface types and definitions; in TOSCA 1.x the operations
/// include those listed directly ([`collect_operations_13`]).
pub fn collect_interface_section<'a>(
    chain: &[DefNode<'a>],
    key: &str,
    v13: bool,
) -> Vec<(&'a str, Param<'a>)> {
    if key == "operations" && v13 {
        collect_operations_13(chain)
    } else {
        collect_section(chain, key)
    }
}

/// The operations along a chain of TOSCA 1.x interface types and
/// definitions: those under `operations` and those listed directly (a
/// key that is no keyname of either, with a map or nothing as value).
fn collect_operations_13<'a>(chain: &[DefNode<'a>]) -> Vec<(&'a str, Param<'a>)> {
    // The keyname table holds 1.3's interface definitions under 2.0 only
    // (1.3 ones are not checked by keyname); their names are the same.
    let keyname = |name: &str| {
        is_keyname(Entity::Type(Kind::Interface), Grammar::Tosca13, name)
            || is_keyname(Entity::InterfaceDefinition, Grammar::Tosca2, name)
    };
    collect_named(chain, |node| {
        let listed = node.get("operations").and_then(NodeRef::as_map);
        let direct = node.as_map().into_iter().flat_map(move |m| {
            m.iter()
                .filter(move |(k, v)| !keyname(k.name()) && (v.is_null() || v.as_map().is_some()))
        });
        (listed.into_iter().flat_map(|m| m.iter()))
            .chain(direct)
            .map(|(k, v)| (k.name(), v))
    })
}

/// The type a capability or interface definition names: its short form
/// (`host: tosca.capabilities.Compute`) or its `type`.
pub fn def_type_name<'a>(def: NodeRef<'a>) -> Option<&'a str> {
    value::as_str(def).or_else(|| value::as_str(def.get("type")?))
}

/// The requirement definitions along a chain (lists of single-key maps).
pub fn collect_requirements<'a>(chain: &[DefNode<'a>]) -> Vec<(&'a str, Param<'a>)> {
    collect_named(chain, |node| {
        let items = node.get("requirements").and_then(NodeRef::as_seq);
        items.into_iter().flatten().filter_map(|item| {
            let (k, v) = item.as_map().filter(|m| m.len() == 1)?.first()?;
            Some((k.name(), v))
        })
    })
}

/// Views of the named definitions that `entries` finds in each definition
/// of a chain, merged by name in order of first appearance.
fn collect_named<'a, I>(
    chain: &[DefNode<'a>],
    entries: impl Fn(NodeRef<'a>) -> I,
) -> Vec<(&'a str, Param<'a>)>
where
    I: Iterator<Item = (&'a str, NodeRef<'a>)>,
{
    // By name (a scan of the names met per entry was quadratic in a type's
    // properties, and cubic along a long chain of types).
    let mut out: Seen<'a, Param<'a>> = Seen::new();
    for d in chain {
        for (name, node) in entries(d.node) {
            let def = DefNode { node, doc: d.doc };
            match out.get_mut(name) {
                Some(p) => p.defs.push(def),
                None => out.insert(name, Param { defs: vec![def] }),
            }
        }
    }
    out.into_entries()
}

/// The definition nodes of type `t` and its ancestors, root-most first.
pub fn chain_defs<'a>(ts: &TypeSystem<'a>, t: TypeId) -> Vec<DefNode<'a>> {
    let mut chain: Vec<DefNode<'a>> = ts
        .chain(t)
        .filter_map(|c| {
            let def = ts.get(c);
            Some(DefNode {
                node: def.def?,
                doc: def.doc?,
            })
        })
        .collect();
    chain.reverse();
    chain
}

impl<'t, 'a> Checker<'t, 'a> {
    /// The definition nodes of a type and its ancestors, root-most first.
    pub fn chain_defs(&self, t: TypeId) -> Vec<DefNode<'a>> {
        chain_defs(self.ts, t)
    }

    /// The properties (or attributes, or another map section) of a type,
    /// merged along its derivation chain.
    pub fn type_entries(&self, t: TypeId, section: &str) -> Vec<(&'a str, Param<'a>)> {
        collect_section(&self.chain_defs(t), section)
    }

    /// The attributes of a type: its attribute definitions and, reflected,
    /// its property definitions (§9.6).
    pub fn type_attributes(&self, t: TypeId) -> Vec<(&'a str, Param<'a>)> {
        let mut attrs: Seen<'a, Param<'a>> = Seen::new();
        for (name, p) in self.type_entries(t, "attributes") {
            attrs.insert(name, p);
        }
        for (name, p) in self.type_entries(t, "properties") {
            if attrs.get(name).is_none() {
                attrs.insert(name, p);
            }
        }
        attrs.into_entries()
    }

    /// Resolves a type name quietly (views never report).
    fn quiet_type(&self, doc: DocId, kind: Kind, node: NodeRef<'_>) -> Option<TypeId> {
        let name = value::as_str(node)?;
        self.ts.resolve_type(doc, kind, name).ok()
    }

    /// The merged schema of a property-like view, or `None` if no definition
    /// names a resolvable type.
    pub fn param_schema(&self, p: &Param<'a>) -> Option<Schema<'a>> {
        self.merge_schema(&p.defs, 0)
    }

    /// Merges schema-like definitions (property definitions or schema
    /// definitions, short form = type name), root-most first.
    pub fn merge_schema(&self, defs: &[DefNode<'a>], depth: usize) -> Option<Schema<'a>> {
        if depth > MAX_NESTING {
            return None;
        }
        let mut ty = None;
        let mut validations = Vec::new();
        let mut entries = Vec::new();
        let mut keys = Vec::new();
        for d in defs {
            if let Some(name) = value::as_str(d.node) {
                if let Ok(t) = self.ts.resolve_type(d.doc, Kind::Data, name) {
                    ty = Some(t);
                }
                continue;
            }
            let Some(m) = d.node.as_map() else { continue };
            if let Some(t) = m
                .get("type")
                .and_then(|n| self.quiet_type(d.doc, Kind::Data, n))
            {
                ty = Some(t);
            }
            let at = |key| m.get(key).map(|node| DefNode { node, doc: d.doc });
            let constraints = at("constraints");
            if constraints.is_some() && self.loaded.doc(d.doc).grammar == Some(Grammar::Tosca13) {
                // TOSCA 1.x has no refinement rules: a derived type that
                // redefines a property's constraints replaces the parent's
                // (Heat-translator's VNF types widen ETSI's `vnic_type`).
                validations.clear();
            }
            validations.extend(at("validation"));
            validations.extend(constraints);
            entries.extend(at("entry_schema"));
            keys.extend(at("key_schema"));
        }
        let ty = ty?;
        // No definitions name no type: `None`, as for an absent schema.
        let entry = self.merge_schema(&entries, depth + 1).map(Box::new);
        let key = self.merge_schema(&keys, depth + 1).map(Box::new);
        Some(Schema {
            ty,
            entry,
            key,
            validations,
        })
    }

    /// The entry schema of values of `s`: the definition's, else the one of
    /// its data type (or an ancestor, §9.2).
    pub fn entry_schema(&self, s: &Schema<'a>) -> Option<Schema<'a>> {
        if let Some(e) = &s.entry {
            return Some((**e).clone());
        }
        self.type_schema_part(s.ty, "entry_schema")
    }

    /// The key schema of map values of `s` (default: string).
    pub fn key_schema(&self, s: &Schema<'a>) -> Option<Schema<'a>> {
        if let Some(k) = &s.key {
            return Some((**k).clone());
        }
        self.type_schema_part(s.ty, "key_schema")
    }

    fn type_schema_part(&self, ty: TypeId, key: &str) -> Option<Schema<'a>> {
        let parts: Vec<DefNode<'a>> = self
            .chain_defs(ty)
            .into_iter()
            .filter_map(|d| {
                Some(DefNode {
                    node: d.node.get(key)?,
                    doc: d.doc,
                })
            })
            .collect();
        if parts.is_empty() {
            None
        } else {
            self.merge_schema(&parts, 1)
        }
    }

    /// Checks a schema definition (§9.3) and returns its schema.
    pub fn schema(&mut self, node: NodeRef<'a>, section: Section) -> Option<Schema<'a>> {
        self.schema_at(node, section, 0, None)
    }

    fn schema_at(
        &mut self,
        node: NodeRef<'a>,
        section: Section,
        depth: usize,
        parent: Option<&Schema<'a>>,
    ) -> Option<Schema<'a>> {
        if depth > MAX_NESTING {
            self.error(
                Code::InvalidShape,
                section,
                node.span(),
                "schema definitions nested too deeply",
            );
            return None;
        }
        if let Some(name) = value::as_str(node) {
            let ty = self.resolve_type(name, Kind::Data, node.span(), Section::SchemaDefinition)?;
            self.check_refined_type(parent.map(|p| p.ty), ty, node.span());
            self.no_abstract_scalar(ty, node.span());
            let s = Schema::of_type(ty);
            self.check_collection_schema(&s, None, None, node.span(), parent);
            return Some(s);
        }
        let map = self.expect_map(node, "a schema definition", Section::SchemaDefinition)?;
        self.keys(
            map,
            Entity::Schema,
            "a schema definition",
            Section::SchemaDefinition,
        );
        if let Some(d) = map.get("description") {
            self.description(d);
        }
        let ty = match map.get("type") {
            Some(t) => {
                let ty = self.type_ref(t, Kind::Data, Section::SchemaDefinition)?;
                self.check_refined_type(parent.map(|p| p.ty), ty, t.span());
                self.no_abstract_scalar(ty, t.span());
                ty
            }
            None => match parent {
                Some(p) => p.ty,
                None => {
                    self.error(
                        Code::MissingKeyname,
                        Section::SchemaDefinition,
                        node.span(),
                        "a schema definition needs a `type`",
                    );
                    return None;
                }
            },
        };
        let mut s = Schema::of_type(ty);
        if let Some(v) = map.get("validation") {
            self.at("validation", |c| {
                c.validation_clause(v, Some(&Schema::of_type(ty)))
            });
            s.validations.push(DefNode {
                node: v,
                doc: self.doc,
            });
        }
        if let Some(v) = map.get("constraints") {
            self.at("constraints", |c| {
                c.constraint_clauses(v, Some(&Schema::of_type(ty)))
            });
            s.validations.push(DefNode {
                node: v,
                doc: self.doc,
            });
        }
        let parent_entry = parent.and_then(|p| p.entry.as_deref());
        let parent_key = parent.and_then(|p| p.key.as_deref());
        if let Some(e) = map.get("entry_schema") {
            s.entry = self
                .at("entry_schema", |c| {
                    c.schema_at(e, section, depth + 1, parent_entry)
                })
                .map(Box::new);
        }
        if let Some(k) = map.get("key_schema") {
            s.key = self
                .at("key_schema", |c| {
                    c.schema_at(k, section, depth + 1, parent_key)
                })
                .map(Box::new);
        }
        self.check_collection_schema(
            &s,
            map.get("entry_schema"),
            map.get("key_schema"),
            node.span(),
            parent,
        );
        Some(s)
    }

    /// The abstract `scalar` type cannot be used directly (§9.1.2.2).
    fn no_abstract_scalar(&mut self, ty: TypeId, span: Span) {
        if self.ts.get(ty).builtin == Some(Builtin::Scalar) {
            self.error(
                Code::Definition,
                Section::Scalar,
                span,
                "the `scalar` type is abstract",
            );
            self.note("use a scalar type derived from it");
        }
    }

    /// In a refinement, a new type must be the parent's type or derive from it.
    /// TOSCA 1.3 has no refinement rules (a derived type may redefine a
    /// definition with any type): TOSCA 2.0 only.
    pub fn check_refined_type(&mut self, parent: Option<TypeId>, ty: TypeId, span: Span) {
        if self.v13() {
            return;
        }
        if let Some(p) = parent {
            if !self.ts.is_a(ty, p) {
                let message = format!(
                    "the refined type `{}` does not derive from `{}`",
                    self.type_name(ty),
                    self.type_name(p)
                );
                self.error(
                    Code::Refinement,
                    Section::TypeDerivationRefinement,
                    span,
                    message,
                );
            }
        }
    }

    /// `entry_schema` is mandatory for lists and maps and forbidden
    /// elsewhere; `key_schema` is only for maps and derives from string.
    fn check_collection_schema(
        &mut self,
        s: &Schema<'a>,
        entry: Option<NodeRef<'a>>,
        key: Option<NodeRef<'a>>,
        span: Span,
        parent: Option<&Schema<'a>>,
    ) {
        let base = self.ts.builtin_base(s.ty);
        let collection = matches!(base, Some(Builtin::List | Builtin::Map));
        if collection {
            let inherited = parent.is_some_and(|p| p.entry.is_some())
                || self.type_schema_part(s.ty, "entry_schema").is_some();
            if entry.is_none() && !inherited && !self.v13() {
                self.error(
                    Code::EntrySchema,
                    Section::SchemaDefinition,
                    span,
                    format!(
                        "`entry_schema` is mandatory for the collection type `{}`",
                        self.type_name(s.ty)
                    ),
                );
            }
        } else if let Some(e) = entry {
            self.error(
                Code::Definition,
                Section::SchemaDefinition,
                e.span(),
                format!(
                    "`entry_schema` is only allowed for lists and maps, not for `{}`",
                    self.type_name(s.ty)
                ),
            );
        }
        if let Some(k) = key {
            if base != Some(Builtin::Map) {
                self.error(
                    Code::Definition,
                    Section::SchemaDefinition,
                    k.span(),
                    format!(
                        "`key_schema` is only allowed for maps, not for `{}`",
                        self.type_name(s.ty)
                    ),
                );
            } else if let Some(ks) = s.key.as_ref().filter(|_| !self.v13()) {
                // TOSCA 1.3 keys may be of any type (§3.3.5: "keys are
                // assumed to be of type string" where none is given).
                if self.ts.builtin_base(ks.ty) != Some(Builtin::String) {
                    let message = format!(
                        "a `key_schema` must derive from `string`, not `{}`",
                        self.type_name(ks.ty)
                    );
                    self.error(
                        Code::Definition,
                        Section::SchemaDefinition,
                        k.span(),
                        message,
                    );
                }
            }
        }
    }

    /// Checks a property, attribute or parameter definition (or refinement,
    /// if `parent` is given).
    pub fn param_def(
        &mut self,
        name: &'a str,
        node: NodeRef<'a>,
        role: Role,
        place: Place,
        parent: Option<&Param<'a>>,
    ) {
        let (section, what) = match role {
            Role::Property => (Section::PropertyDefinition, "property"),
            Role::Attribute => (Section::AttributeDefinition, "attribute"),
            _ => (Section::ParameterDefinition, "parameter"),
        };
        let parent_schema = parent.and_then(|p| self.param_schema(p));
        // A single-line incoming parameter is a mapping, not a value (§9.8).
        let incoming = role == Role::Incoming && !self.v13();
        // Refinement rules are TOSCA 2.0's (§5.1.3); 1.3 has none.
        if !incoming && !self.v13() && parent.is_some_and(|p| p.fixed().is_some()) {
            self.error(
                Code::Refinement,
                section,
                node.span(),
                format!("{what} `{name}` has a fixed value in its parent definition and cannot be refined"),
            );
            return;
        }
        // TOSCA 1.3 writes functions without `$`: a call is a value too.
        let call_13 = self.v13() && self.is_call(node);
        if is_short_form(node) || call_13 || self.is_value_13(node, role, place) {
            // §9.8: `name: <value or expression>` for outgoing parameters,
            // `name: <attribute selection>` for incoming ones; properties
            // and attributes only refine in short form (§9.4). An
            // interface type's parameters are there to be refined by node
            // and relationship types: a new one in single-line form would
            // fix its value (or map it, §11.4) for every type that uses the
            // interface, so it needs a definition map (see
            // docs/tosca-2.0-conformance.md).
            let parameter = !matches!(role, Role::Property | Role::Attribute);
            let short_ok = parent.is_some()
                || self.inherits_unknown
                || parameter && (place != Place::InterfaceType || self.v13());
            if !short_ok {
                self.error(
                    Code::Definition,
                    section,
                    node.span(),
                    if parameter {
                        format!("a new parameter of an interface type needs a definition map, not the single-line form `{name}: <value>`")
                    } else {
                        format!("the short form `{name}: <value>` only refines an inherited {what} definition; a new {what} needs a definition map")
                    },
                );
                return;
            }
            if incoming {
                self.mapping(name, node, place, parent);
            } else if let Some(s) = parent_schema.as_ref() {
                self.check_value(node, s, section);
            } else {
                self.check_functions(node);
            }
            return;
        }
        let Some(map) = node.as_map() else { return };
        let def = ParamDef {
            name,
            node,
            map,
            role,
            place,
            parent,
            section,
            what,
        };
        self.keys(
            map,
            param_entity(role),
            &format!("{} definition", with_article(what)),
            section,
        );
        self.common_keynames(map);
        let mut schema = self.param_def_schema(&def, parent_schema.as_ref());
        let required = self.param_required(&def);
        for key in ["validation", "constraints"] {
            let Some(v) = map.get(key) else { continue };
            if key == "validation" {
                self.at("validation", |c| c.validation_clause(v, schema.as_ref()));
            } else {
                self.at("constraints", |c| c.constraint_clauses(v, schema.as_ref()));
            }
            if let Some(s) = schema.as_mut() {
                s.validations.push(DefNode {
                    node: v,
                    doc: self.doc,
                });
            }
        }
        if let Some(d) = map.get("default") {
            if !required && role != Role::Attribute && !self.v13() {
                self.error(
                    Code::OptionalDefault,
                    section,
                    d.span(),
                    format!("{what} `{name}` is not required, so it cannot have a `default`"),
                );
            }
            // TOSCA 1.3 says nothing of null values; type libraries write
            // `default:` (null) for "no default" (SODALITE's, 178 times),
            // and tosca-parser and xOpera read it so. TOSCA 2.0 says it:
            // strings and bytes cannot be null (§9.1.1.1, §9.1.1.6).
            if !(self.v13() && d.is_null()) {
                self.param_value_at("default", d, schema.as_ref(), section);
            }
        }
        self.param_value_and_mapping(&def, schema.as_ref());
        if let Some(st) = map.get("status") {
            self.status(st, section);
        }
    }

    /// A TOSCA 1.3 parameter of a type's operation written as a map value:
    /// a parameter definition "allows a value to be assigned to it (as for
    /// a TOSCA property assignment)" (§3.6.14), and a map none of whose keys
    /// is a keyname of one is that value (MiCADO's Kubernetes types give
    /// each operation its manifest so: `spec: {strategy: ...}`). A map with
    /// one keyname is a definition, so a misspelt keyname beside `type`
    /// is still reported.
    fn is_value_13(&self, node: NodeRef<'a>, role: Role, place: Place) -> bool {
        self.v13()
            && matches!(role, Role::Incoming | Role::Outgoing)
            && place != Place::Template
            && node.as_map().is_some_and(|m| {
                !m.is_empty()
                    && m.iter()
                        .all(|(k, _)| !is_keyname(Entity::Parameter, self.grammar, k.name()))
            })
    }

    /// A definition's `status`: a string; TOSCA 1.3 (§3.6.10.3) lists the
    /// values (TOSCA 2.0 no longer does).
    fn status(&mut self, st: NodeRef<'a>, section: Section) {
        let Some(text) = self.expect_str(st, "`status`", section) else {
            return;
        };
        const STATUS_13: [&str; 4] = ["supported", "unsupported", "experimental", "deprecated"];
        if self.v13() && !STATUS_13.contains(&text) {
            let message = format!("unknown status `{text}`");
            self.error(
                Code::Definition,
                Section::V13PropertyDefinition,
                st.span(),
                message,
            );
            self.note(format!("the statuses are {}", STATUS_13.join(", ")));
        }
    }

    /// The schema of a parameter-like definition: its `type` (or the
    /// parent's), entry and key schemas (or the parent's) and the parent's
    /// validation clauses.
    fn param_def_schema(
        &mut self,
        def: &ParamDef<'_, 'a>,
        parent_schema: Option<&Schema<'a>>,
    ) -> Option<Schema<'a>> {
        let (map, section) = (def.map, def.section);
        let ty = match map.get("type") {
            Some(t) => self.at("type", |c| {
                let ty = c.type_ref(t, Kind::Data, section)?;
                c.no_abstract_scalar(ty, t.span());
                c.check_refined_type(parent_schema.map(|p| p.ty), ty, t.span());
                Some(ty)
            }),
            None => {
                if def.parent.is_none()
                    && !self.inherits_unknown
                    && matches!(def.role, Role::Property | Role::Attribute)
                {
                    self.error(
                        Code::MissingKeyname,
                        section,
                        def.node.span(),
                        format!("{} `{}` needs a `type`", def.what, def.name),
                    );
                }
                parent_schema.map(|s| s.ty)
            }
        }?;
        let mut s = Schema::of_type(ty);
        let pe = parent_schema.and_then(|p| p.entry.as_deref());
        let pk = parent_schema.and_then(|p| p.key.as_deref());
        if let Some(e) = map.get("entry_schema") {
            s.entry = self
                .at("entry_schema", |c| c.schema_at(e, section, 1, pe))
                .map(Box::new);
        } else if let Some(p) = parent_schema {
            s.entry = p.entry.clone();
        }
        if let Some(k) = map.get("key_schema") {
            s.key = self
                .at("key_schema", |c| c.schema_at(k, section, 1, pk))
                .map(Box::new);
        } else if let Some(p) = parent_schema {
            s.key = p.key.clone();
        }
        if let Some(p) = parent_schema {
            s.validations = p.validations.clone();
        }
        self.check_collection_schema(
            &s,
            map.get("entry_schema"),
            map.get("key_schema"),
            def.node.span(),
            parent_schema,
        );
        Some(s)
    }

    /// `required` of a definition (a boolean; a refinement cannot make a
    /// required definition optional).
    fn param_required(&mut self, def: &ParamDef<'_, 'a>) -> bool {
        let Some(r) = def.map.get("required") else {
            return def.parent.is_none_or(Param::required);
        };
        match self.classify(r) {
            Scalar::Bool(b) => {
                if !b && !self.v13() && def.parent.is_some_and(Param::required) {
                    self.error(
                        Code::Refinement,
                        def.section,
                        r.span(),
                        format!(
                            "{} `{}` is required in its parent definition and cannot become optional",
                            def.what, def.name
                        ),
                    );
                }
                b
            }
            _ => {
                self.not_a_boolean(r, "required", def.section);
                true
            }
        }
    }

    /// A `default` or `value` of a definition against its schema (or just
    /// its function calls, without one).
    fn param_value_at(
        &mut self,
        key: &'a str,
        v: NodeRef<'a>,
        schema: Option<&Schema<'a>>,
        section: Section,
    ) {
        match schema {
            Some(s) => self.at(key, |c| c.check_value(v, s, section)),
            None => self.check_functions(v),
        }
    }

    /// `value` (outgoing parameters) and `mapping` (incoming parameters) of
    /// a parameter definition (§9.8), never both. TOSCA 1.3 gives every
    /// parameter definition a `value` (§3.6.14), inputs too.
    fn param_value_and_mapping(&mut self, def: &ParamDef<'_, 'a>, schema: Option<&Schema<'a>>) {
        let name = def.name;
        let (value, mapping) = (def.map.get("value"), def.map.get("mapping"));
        if let Some(v) = value {
            if def.role == Role::Incoming && !self.v13() {
                self.error(
                    Code::Definition,
                    Section::ParameterDefinition,
                    v.span(),
                    format!("`value` is only for outgoing parameters; `{name}` is incoming"),
                );
            }
            self.param_value_at("value", v, schema, def.section);
        }
        let Some(m) = mapping else { return };
        if value.is_some() {
            self.error(
                Code::Definition,
                Section::ParameterDefinition,
                m.span(),
                format!("parameter `{name}` has both `value` and `mapping`"),
            );
        } else if def.role == Role::Outgoing {
            self.error(
                Code::Definition,
                Section::ParameterDefinition,
                m.span(),
                format!("`mapping` is only for incoming parameters; `{name}` is outgoing"),
            );
        } else {
            self.mapping(name, m, def.place, def.parent);
        }
    }

    /// The attribute mapping of an incoming parameter (`mapping`, or the
    /// single-line form, §9.8): not in interface types (§11.4), not over a
    /// parent's mapping, an attribute selection.
    fn mapping(&mut self, name: &str, m: NodeRef<'a>, place: Place, parent: Option<&Param<'a>>) {
        if place == Place::InterfaceType {
            self.error(
                Code::Definition,
                Section::OperationDefinition,
                m.span(),
                "attribute mappings are not allowed in interface type definitions",
            );
        } else {
            self.attribute_selection(m);
        }
        if parent.is_some_and(|p| p.mapping().is_some()) {
            self.error(
                Code::Refinement,
                Section::ParameterDefinition,
                m.span(),
                format!("parameter `{name}` is already mapped in its parent definition"),
            );
        }
    }

    /// A parameter mapping: `[ <tosca_path>, <attribute>, ... ]` (§9.10),
    /// an attribute of the containing entity selected as `$get_attribute`
    /// selects it (§10.3): where the path reaches a known type, the
    /// attribute must be one of it.
    pub fn attribute_selection(&mut self, m: NodeRef<'a>) {
        match m.as_seq() {
            Some(items) if !items.is_empty() => {
                let mut names = true;
                for i in items {
                    if !matches!(self.classify(i), Scalar::Str(_) | Scalar::Int(_)) {
                        names = false;
                        self.error(
                            Code::InvalidShape,
                            Section::ParameterMappingAssignment,
                            i.span(),
                            "an attribute selection lists names and indices",
                        );
                    }
                }
                if names {
                    self.tosca_path("get_attribute", items, m.span(), true);
                }
            }
            _ => self.error(
                Code::InvalidShape,
                Section::ParameterMappingAssignment,
                m.span(),
                "a parameter mapping is a list: [ <tosca_path>, <attribute_name>, ... ]",
            ),
        }
    }

    /// A map of parameter definitions (inputs, outputs): each checked, with
    /// `parents` the inherited definitions they may refine.
    pub fn param_defs(
        &mut self,
        node: NodeRef<'a>,
        role: Role,
        place: Place,
        parents: &[(&'a str, Param<'a>)],
        (section, what): (Section, &str),
        allow_new: bool,
    ) {
        let Some(map) = self.named_map(node, what, section) else {
            return;
        };
        for (k, v) in map.iter() {
            let name = k.name();
            let parent = parents.iter().find(|(n, _)| *n == name).map(|(_, p)| p);
            if parent.is_none() && !allow_new {
                let message =
                    format!("{what} refine inherited definitions only; `{name}` is not defined");
                self.undefined(Code::UndefinedReference, section, k.span(), message);
                continue;
            }
            self.at(name, |c| c.param_def(name, v, role, place, parent));
        }
    }
}
