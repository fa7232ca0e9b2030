//! Reference resolution for conditions: `SELF`, `CONTAINER`, `SOURCE`,
//! `TARGET`, names and indices, with the reference's exact errors
//! (part 2, section 4.5; part 1, section 5.7).

use super::{Element, ElementId, Graph, Kind};
use crate::error::{bail, Error, Result};
use v4t_yaml::json::{to_json, to_json_pretty};
use v4t_yaml::number::format_js;
use v4t_yaml::{NodeRef, SeqRef, ValueRef};

/// Name or index argument.
enum Key<'a> {
    Name(&'a str),
    Index(f64),
}

fn name_or_index(n: NodeRef<'_>) -> Result<Key<'_>> {
    match n.value() {
        ValueRef::String(s) => Ok(Key::Name(s)),
        ValueRef::Number(x) => Ok(Key::Index(x)),
        _ => bail!(
            n.span(),
            "Element \"{}\" is neither a string nor a number",
            to_json(n)
        ),
    }
}

fn string_arg(n: NodeRef<'_>) -> Result<&str> {
    n.as_str().ok_or_else(|| {
        Error::at(
            format!("Element \"{}\" is not a string", json_or_undefined(n)),
            n.span(),
        )
    })
}

fn json_or_undefined(n: NodeRef<'_>) -> String {
    crate::normalize::json_or_undefined(n)
}

fn list_arg(n: NodeRef<'_>) -> Result<SeqRef<'_>> {
    n.as_seq().ok_or_else(|| {
        Error::at(
            format!("Element \"{}\" is not an array", to_json(n)),
            n.span(),
        )
    })
}

fn at_index(list: &[ElementId], x: f64) -> Option<ElementId> {
    if x >= 0.0 && x.fract() == 0.0 {
        list.get(x as usize).copied()
    } else {
        None
    }
}

impl Graph {
    fn expect_kind(&self, id: ElementId, kind: Kind, n: NodeRef<'_>) -> Result<ElementId> {
        if self.get(id).kind == kind {
            Ok(id)
        } else {
            let article = match kind {
                Kind::Output | Kind::Artifact => "an",
                _ => "a",
            };
            bail!(
                n.span(),
                "{} is not {article} {}",
                self.Display(id),
                kind.word()
            )
        }
    }

    /// `SELF` / `CONTAINER` of the context, checked to be of `kind`.
    fn self_or_container(
        &self,
        ctx: Option<ElementId>,
        word: &str,
        kind: Kind,
        n: NodeRef<'_>,
    ) -> Result<Option<ElementId>> {
        match word {
            "SELF" => {
                let Some(c) = ctx else {
                    bail!(n.span(), "Element not defined")
                };
                Ok(Some(self.expect_kind(c, kind, n)?))
            }
            "CONTAINER" => {
                let Some(c) = ctx else {
                    bail!(n.span(), "Element is not defined")
                };
                let Some(cc) = self.get(c).container() else {
                    bail!(n.span(), "{} has no container", self.Display(c))
                };
                Ok(Some(self.expect_kind(cc, kind, n)?))
            }
            _ => Ok(None),
        }
    }

    /// The container of the context element (`container_presence`).
    pub(crate) fn lookup_container(
        &self,
        ctx: Option<ElementId>,
        n: NodeRef<'_>,
    ) -> Result<ElementId> {
        let Some(c) = ctx else {
            bail!(n.span(), "Element is not defined")
        };
        self.get(c)
            .container()
            .ok_or_else(|| Error::at(format!("{} has no container", self.Display(c)), n.span()))
    }

    /// A node: `SELF`, `CONTAINER`, `SOURCE`, `TARGET` or a name.
    pub(crate) fn lookup_node(&self, ctx: Option<ElementId>, n: NodeRef<'_>) -> Result<ElementId> {
        let name = string_arg(n)?;
        if let Some(id) = self.self_or_container(ctx, name, Kind::Node, n)? {
            return Ok(id);
        }
        if name == "SOURCE" || name == "TARGET" {
            let Some(c) = ctx else {
                bail!(n.span(), "Element not defined")
            };
            let r = self.expect_kind(c, Kind::Relation, n)?;
            let e = self.get(r);
            let found = if name == "SOURCE" {
                e.source()
            } else {
                e.target()
            };
            return found.ok_or_else(|| Error::at("Element not defined", n.span()));
        }
        self.node(name)
            .ok_or_else(|| Error::at(format!("Node \"{name}\" not found"), n.span()))
    }

    /// A relation: `SELF`, `CONTAINER` or `[node, name | index]`.
    pub(crate) fn lookup_relation(
        &self,
        ctx: Option<ElementId>,
        n: NodeRef<'_>,
    ) -> Result<ElementId> {
        self.lookup_of_node(ctx, n, Kind::Relation, "Relation", Element::outgoing)
    }

    /// An element of a node's list `members` (its relations or artifacts):
    /// `SELF`, `CONTAINER` or `[node, name | index]`, the node looked up with
    /// context (so `[SELF, x]` works; the reference resolves artifacts
    /// without).
    fn lookup_of_node(
        &self,
        ctx: Option<ElementId>,
        n: NodeRef<'_>,
        kind: Kind,
        what: &str,
        members: fn(&Element) -> &[ElementId],
    ) -> Result<ElementId> {
        if let Some(word) = n.as_str() {
            if let Some(id) = self.self_or_container(ctx, word, kind, n)? {
                return Ok(id);
            }
        }
        let pair = list_arg(n)?;
        let Some(first) = pair.first() else {
            bail!(n.span(), "{what} \"{}\" not found", to_json_pretty(n))
        };
        let node = self.lookup_node(ctx, first)?;
        self.pick(members(self.get(node)), pair.get(1), n, what)
    }

    /// Picks one of `list` by name or index (the second argument).
    fn pick(
        &self,
        list: &[ElementId],
        key: Option<NodeRef<'_>>,
        whole: NodeRef<'_>,
        what: &str,
    ) -> Result<ElementId> {
        let found = match key.map(name_or_index).transpose()? {
            Some(Key::Name(name)) => {
                let mut it = list.iter().filter(|&&x| self.name(x) == name);
                let first = it.next().copied();
                if it.next().is_some() {
                    bail!(
                        whole.span(),
                        "{what} \"{}\" is ambiguous",
                        to_json_pretty(whole)
                    );
                }
                first
            }
            Some(Key::Index(i)) => at_index(list, i),
            None => None,
        };
        found.ok_or_else(|| {
            let close = if what == "Technology" { "" } else { "\"" };
            Error::at(
                format!("{what} \"{}{close} not found", to_json_pretty(whole)),
                whole.span(),
            )
        })
    }

    /// An artifact: `SELF`, `CONTAINER` or `[node, name | index]`.
    pub(crate) fn lookup_artifact(
        &self,
        ctx: Option<ElementId>,
        n: NodeRef<'_>,
    ) -> Result<ElementId> {
        self.lookup_of_node(ctx, n, Kind::Artifact, "Artifact", Element::artifacts)
    }

    /// A policy: `SELF`, `CONTAINER`, name or index.
    pub(crate) fn lookup_policy(
        &self,
        ctx: Option<ElementId>,
        n: NodeRef<'_>,
    ) -> Result<ElementId> {
        self.lookup_by_name_or_index(ctx, n, Kind::Policy, &self.policies, "Policy")
    }

    /// A group: `SELF`, `CONTAINER` or a name.
    pub(crate) fn lookup_group(&self, ctx: Option<ElementId>, n: NodeRef<'_>) -> Result<ElementId> {
        let name = string_arg(n)?;
        if let Some(id) = self.self_or_container(ctx, name, Kind::Group, n)? {
            return Ok(id);
        }
        self.group(name)
            .ok_or_else(|| Error::at(format!("Group \"{name}\" not found"), n.span()))
    }

    /// An import: `SELF`, `CONTAINER` or an index.
    pub(crate) fn lookup_import(
        &self,
        ctx: Option<ElementId>,
        n: NodeRef<'_>,
    ) -> Result<ElementId> {
        if let Some(word) = n.as_str() {
            if let Some(id) = self.self_or_container(ctx, word, Kind::Import, n)? {
                return Ok(id);
            }
        }
        let Some(i) = n.as_f64() else {
            bail!(n.span(), "Element \"{}\" is not a number", to_json(n))
        };
        at_index(&self.imports, i)
            .ok_or_else(|| Error::at(format!("Import \"{}\" not found", format_js(i)), n.span()))
    }

    /// An input or output: `SELF`, `CONTAINER`, name or index.
    pub(crate) fn lookup_input_output(
        &self,
        ctx: Option<ElementId>,
        n: NodeRef<'_>,
        kind: Kind,
    ) -> Result<ElementId> {
        let (list, what) = if kind == Kind::Input {
            (&self.inputs, "Input")
        } else {
            (&self.outputs, "Output")
        };
        self.lookup_by_name_or_index(ctx, n, kind, list, what)
    }

    /// An element of the top-level `list` of `kind` (policies, inputs,
    /// outputs): `SELF`, `CONTAINER`, a name (unique in `list`) or an index.
    fn lookup_by_name_or_index(
        &self,
        ctx: Option<ElementId>,
        n: NodeRef<'_>,
        kind: Kind,
        list: &[ElementId],
        what: &str,
    ) -> Result<ElementId> {
        match n.value() {
            ValueRef::String(s) => {
                if let Some(id) = self.self_or_container(ctx, s, kind, n)? {
                    return Ok(id);
                }
                let mut it = list.iter().filter(|&&x| self.name(x) == s);
                let first = it.next().copied();
                if it.next().is_some() {
                    bail!(n.span(), "{what} \"{s}\" is ambiguous");
                }
                first.ok_or_else(|| Error::at(format!("{what} \"{s}\" not found"), n.span()))
            }
            ValueRef::Number(i) => at_index(list, i).ok_or_else(|| {
                Error::at(format!("{what} \"{}\" not found", format_js(i)), n.span())
            }),
            _ => bail!(
                n.span(),
                "Element \"{}\" is neither a string nor a number",
                to_json(n)
            ),
        }
    }

    /// A property or type of `container`, selected by the last argument.
    /// By name, the properties for which `fallback` holds (the hidden
    /// `VINTNER_UNDEFINED` alternative every property name has) do not
    /// count, so a name is not always ambiguous as in the reference.
    pub(crate) fn lookup_member(
        &self,
        container: ElementId,
        args: NodeRef<'_>,
        kind: Kind,
        fallback: &dyn Fn(ElementId) -> bool,
    ) -> Result<ElementId> {
        let list = list_arg(args)?;
        let key = list.last();
        if kind != Kind::Property {
            return self.pick(self.get(container).types(), key, args, "Type");
        }
        let all = self.get(container).properties();
        if key.is_some_and(|k| k.as_str().is_some()) {
            let named: Vec<ElementId> = all.iter().copied().filter(|&p| !fallback(p)).collect();
            return self.pick(&named, key, args, "Property");
        }
        self.pick(all, key, args, "Property")
    }

    /// A technology: `[node, name | index]`.
    pub(crate) fn lookup_technology(
        &self,
        ctx: Option<ElementId>,
        args: NodeRef<'_>,
    ) -> Result<ElementId> {
        let list = list_arg(args)?;
        let Some(first) = list.first() else {
            bail!(
                args.span(),
                "Technology \"{} not found",
                to_json_pretty(args)
            )
        };
        let node = self.lookup_node(ctx, first)?;
        self.pick(
            self.get(node).technologies(),
            list.get(1),
            args,
            "Technology",
        )
    }

    /// Argument shape checks of the type, property and technology getters:
    /// first item a string (or number for policies), others strings or numbers.
    pub(crate) fn check_args(args: NodeRef<'_>, first_may_be_number: bool) -> Result<SeqRef<'_>> {
        let list = list_arg(args)?;
        for (i, item) in list.iter().enumerate() {
            if i == 0 && !first_may_be_number {
                string_arg(item)?;
            } else {
                name_or_index(item)?;
            }
        }
        Ok(list)
    }
}
