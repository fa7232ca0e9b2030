//! TOSCA paths (§10.3) in `$get_property`, `$get_attribute`,
//! `$get_artifact` and `$available_allocation`: the start (`SELF` or a
//! template name), the steps (`RELATIONSHIP`, `CAPABILITY`, `SOURCE`,
//! `TARGET`, with indices), and the name after the path, checked against the
//! types along the way where they are known.

use crate::section::Section;
use v4t_source::Code;
use v4t_yaml::{SeqRef, Span};

use super::funcs::Call;
use super::Checker;
use crate::types::{Builtin, TypeId};
use crate::value::{self, Scalar};

/// What a TOSCA path has reached so far.
#[derive(Clone, Copy, PartialEq)]
enum Ctx {
    /// A node (of this type, where known).
    Node(Option<TypeId>),
    /// A capability (of this type, where known).
    Capability(Option<TypeId>),
    Relationship,
    /// `SELF` where it is not known what `SELF` is.
    Unknown,
}

impl<'t, 'a> Checker<'t, 'a> {
    /// A TOSCA path (§10.3) followed by a name and nested names (for
    /// `$get_property`/`$get_attribute` when `nested` is true).
    pub(super) fn tosca_path(&mut self, function: &str, l: SeqRef<'a>, span: Span, nested: bool) {
        for a in l {
            if let Call::Yes(n, args) = self.call_of(a) {
                self.call(n, args, a);
            }
        }
        let Some((ctx, i)) = self.path_start(function, l, span) else {
            return;
        };
        let Some((ctx, i)) = self.path_steps(function, l, span, ctx, i) else {
            return;
        };
        self.path_name(function, l.slice(i.min(l.len())..), span, ctx, nested);
    }

    /// Argument `i` of a path as a keyword or name (not a call).
    fn path_word(&self, l: SeqRef<'a>, i: usize) -> Option<&'a str> {
        l.get(i)
            .and_then(|n| value::as_str(n))
            .filter(|_| !matches!(self.call_of_quiet(l.at(i)), Call::Yes(..)))
    }

    /// Whether argument `i` of a path is an index (a non-negative integer,
    /// `ALL` or a call).
    fn path_index(&self, l: SeqRef<'a>, i: usize) -> bool {
        l.get(i).is_some_and(|n| {
            matches!(self.classify(n), Scalar::Int(x) if x >= 0)
                || value::as_str(n) == Some("ALL")
                || matches!(self.call_of_quiet(n), Call::Yes(..))
        })
    }

    /// Where a path starts (`SELF`, or a node template with an optional
    /// index, or a relationship template) and the argument after it.
    fn path_start(&mut self, function: &str, l: SeqRef<'a>, span: Span) -> Option<(Ctx, usize)> {
        let Some(first) = self.path_word(l, 0) else {
            self.error(
                Code::Function,
                Section::ToscaPath,
                l.first().map(|n| n.span()).unwrap_or(span),
                format!("the TOSCA path of `${function}` starts with SELF or a template name"),
            );
            return None;
        };
        if first == "SELF" {
            let ctx = if let Some(t) = self.fctx.self_node {
                Ctx::Node(Some(t))
            } else if self.fctx.self_relationship {
                Ctx::Relationship
            } else {
                Ctx::Unknown
            };
            return Some((ctx, 1));
        }
        let node = self
            .fctx
            .nodes
            .as_ref()
            .and_then(|ns| ns.get(first))
            .copied();
        let relationship = self
            .fctx
            .relationships
            .as_ref()
            .is_some_and(|rs| rs.contains(first));
        match (node, relationship) {
            (Some(t), _) => Some((Ctx::Node(t), if self.path_index(l, 1) { 2 } else { 1 })),
            (None, true) => Some((Ctx::Relationship, 1)),
            (None, false) => {
                if self.fctx.in_template {
                    self.error(
                        Code::Function,
                        Section::ToscaPath,
                        l.at(0).span(),
                        format!("`${function}` names `{first}`, which is neither SELF nor a node or relationship template"),
                    );
                    let nodes = self.fctx.nodes.clone();
                    let relationships = self.fctx.relationships.clone();
                    let names = (nodes.iter().flat_map(|ns| ns.keys()))
                        .chain(relationships.iter().flat_map(|rs| rs.iter()))
                        .copied();
                    self.did_you_mean(first, names);
                } else {
                    self.error(
                        Code::Function,
                        Section::OperationDefinition,
                        l.at(0).span(),
                        format!("outside a service template, `${function}` can only start at SELF, not `{first}`"),
                    );
                }
                None
            }
        }
    }

    /// Follows the steps of a path from `ctx` at argument `i`: where they
    /// lead and the argument after them, `None` after an error.
    fn path_steps(
        &mut self,
        function: &str,
        l: SeqRef<'a>,
        span: Span,
        mut ctx: Ctx,
        mut i: usize,
    ) -> Option<(Ctx, usize)> {
        while let Some(w) = self.path_word(l, i) {
            let node_ctx = matches!(ctx, Ctx::Node(_)) || ctx == Ctx::Unknown;
            let rel_ctx = ctx == Ctx::Relationship || ctx == Ctx::Unknown;
            match w {
                "RELATIONSHIP" if node_ctx => {
                    let Some(req) = self.path_word(l, i + 1) else {
                        self.error(
                            Code::Function,
                            Section::ToscaPath,
                            span,
                            format!("malformed TOSCA path in `${function}`"),
                        );
                        return None;
                    };
                    if let Ctx::Node(Some(t)) = ctx {
                        let reqs = self.node_requirements(t);
                        // A type inheriting from a name that is no type may
                        // have it.
                        let unknown = self.ts.inherits_unknown(t);
                        if !unknown && !reqs.iter().any(|(n, _)| *n == req) {
                            let message = format!(
                                "node type `{}` has no requirement `{req}`",
                                self.type_name(t)
                            );
                            self.error(
                                Code::Function,
                                Section::ToscaPath,
                                l.at(i + 1).span(),
                                message,
                            );
                            self.defined_names(req, reqs.iter().map(|(n, _)| *n), "requirement");
                            return None;
                        }
                    }
                    i += 2;
                    if self.path_index(l, i) {
                        i += 1;
                    }
                    ctx = Ctx::Relationship;
                }
                "CAPABILITY" if node_ctx => match self.path_word(l, i + 1) {
                    Some(cap) if cap != "RELATIONSHIP" => {
                        let cap_type = match ctx {
                            Ctx::Node(Some(t)) => {
                                self.path_capability(t, cap, l.at(i + 1).span())?
                            }
                            _ => None,
                        };
                        (ctx, i) = self.after_capability(l, i + 2, cap_type);
                    }
                    _ if rel_ctx => (ctx, i) = self.after_capability(l, i + 1, None),
                    _ => break,
                },
                "SOURCE" | "TARGET" if rel_ctx => {
                    i += 1;
                    ctx = Ctx::Node(None);
                }
                "CAPABILITY" if rel_ctx => (ctx, i) = self.after_capability(l, i + 1, None),
                _ => break,
            }
        }
        Some((ctx, i))
    }

    /// The type of capability `cap` of node type `t` (`Some(None)` where
    /// the definition names none); `None` after reporting that `t` has no
    /// such capability.
    fn path_capability(&mut self, t: TypeId, cap: &str, at: Span) -> Option<Option<TypeId>> {
        let caps = self.node_capabilities(t);
        match caps.iter().find(|(n, _)| *n == cap) {
            Some((_, v)) => Some(self.capability_type_of(v)),
            None if self.ts.inherits_unknown(t) => Some(None),
            None => {
                let message = format!(
                    "node type `{}` has no capability `{cap}`",
                    self.type_name(t)
                );
                self.error(Code::Function, Section::ToscaPath, at, message);
                self.defined_names(cap, caps.iter().map(|(n, _)| *n), "capability");
                None
            }
        }
    }

    /// After a capability at argument `i`: its relationships
    /// (`RELATIONSHIP` with an optional index) or the capability itself.
    fn after_capability(
        &self,
        l: SeqRef<'a>,
        mut i: usize,
        cap_type: Option<TypeId>,
    ) -> (Ctx, usize) {
        if self.path_word(l, i) != Some("RELATIONSHIP") {
            return (Ctx::Capability(cap_type), i);
        }
        i += 1;
        if self.path_index(l, i) {
            i += 1;
        }
        (Ctx::Relationship, i)
    }

    /// The name after a path (`rest[0]`) and its nested names: present,
    /// and a property, attribute or artifact of the entity where its type is
    /// known.
    fn path_name(&mut self, function: &str, rest: SeqRef<'a>, span: Span, ctx: Ctx, nested: bool) {
        if rest.is_empty() {
            self.error(
                Code::Function,
                Section::GraphQueryFunctions,
                span,
                format!("`${function}` needs a name after its TOSCA path"),
            );
            return;
        }
        if !nested && rest.len() > 1 {
            self.error(
                Code::Function,
                Section::GraphQueryFunctions,
                rest.at(1).span(),
                format!("`${function}` takes a TOSCA path and one name"),
            );
        }
        self.nested_names(rest.slice(1..));
        let Some(name) = value::as_str(rest.at(0)) else {
            if !matches!(self.call_of_quiet(rest.at(0)), Call::Yes(..)) {
                self.error(
                    Code::Function,
                    Section::GraphQueryFunctions,
                    rest.at(0).span(),
                    "the name after a TOSCA path must be a string",
                );
            }
            return;
        };
        if function == "available_allocation" {
            self.allocatable_property(name, rest.at(0).span(), ctx);
            return;
        }
        // Names that are statically known to be wrong.
        let (Ctx::Node(Some(t)) | Ctx::Capability(Some(t))) = ctx else {
            return;
        };
        let attrs = function != "get_property";
        if function == "get_artifact" {
            return; // templates may add artifacts to their type's
        }
        let (defined, what) = if attrs {
            (self.type_attributes(t), "attribute")
        } else {
            (self.type_entries(t, "properties"), "property")
        };
        match defined.iter().find(|(n, _)| *n == name) {
            Some((_, p)) => {
                if let Some(s) = self.param_schema(p) {
                    self.nested_into(s, rest.slice(1..), Section::GraphQueryFunctions);
                }
            }
            None => {
                let message = format!("`{}` has no {what} `{name}`", self.type_name(t));
                let span = rest.at(0).span();
                if self.undefined_in(
                    t,
                    Code::Function,
                    Section::GraphQueryFunctions,
                    span,
                    message,
                ) {
                    self.defined_names(name, defined.iter().map(|(n, _)| *n), what);
                }
            }
        }
    }

    /// The property of `$available_allocation` (§10.2.1.8): the path leads
    /// to a capability, the property is one of it and allocatable (integer,
    /// float or scalar), where the path's types are known.
    fn allocatable_property(&mut self, name: &str, span: Span, ctx: Ctx) {
        let t = match ctx {
            Ctx::Capability(Some(t)) => t,
            Ctx::Node(Some(_)) => {
                let message = "the TOSCA path of `$available_allocation` must lead to a capability";
                self.error(Code::Function, Section::AvailableAllocation, span, message);
                return;
            }
            _ => return,
        };
        let props = self.type_entries(t, "properties");
        let Some((_, p)) = props.iter().find(|(n, _)| *n == name) else {
            let message = format!("`{}` has no property `{name}`", self.type_name(t));
            if self.undefined_in(
                t,
                Code::Function,
                Section::GraphQueryFunctions,
                span,
                message,
            ) {
                self.defined_names(name, props.iter().map(|(n, _)| *n), "property");
            }
            return;
        };
        let base = self
            .param_schema(p)
            .and_then(|s| self.ts.builtin_base(s.ty));
        if base.is_some_and(|b| !matches!(b, Builtin::Integer | Builtin::Float | Builtin::Scalar)) {
            let message = format!(
                "`$available_allocation` needs an integer, float or scalar property, not `{name}`"
            );
            self.error(Code::Function, Section::AvailableAllocation, span, message);
        }
    }
}
