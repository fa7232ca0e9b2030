//! Constraint enrichment: structural constraints (each behind its option) and
//! implication constraints of `implied` elements (part 1, section 10), as
//! [`Constraint`] terms (element ids are SAT variable names in their YAML form).

use super::Constraints;
use crate::error::{bail, Error, Result};
use crate::graph::{Constraint, ElementId, Graph, Kind};
use crate::types::TypeSystem;
use thin_vec::thin_vec;
use v4t_yaml::hash::Seen;
use v4t_yaml::{Node, NodeRef};

/// Groups `ids` by element name (first-appearance order).
fn by_name(g: &Graph, ids: &[ElementId]) -> Vec<Vec<ElementId>> {
    // Thousands of inputs or outputs are hashed, not scanned per name.
    let mut groups: Seen<'_, Vec<ElementId>> = Seen::new();
    for &id in ids {
        groups.push(g.name(id), id);
    }
    groups.into_values()
}

/// The generated constraints, in the reference's order; with
/// [`Constraints::Dropped`] they are derived (so their errors stand) but
/// not kept, and the result is empty.
pub(super) fn enrich_constraints(
    doc: NodeRef<'_>,
    g: &Graph,
    types: &TypeSystem,
    what: Constraints,
) -> Result<Vec<Constraint>> {
    let mut out = Generated {
        kept: Vec::new(),
        keep: what == Constraints::Kept,
    };
    containment(g, &mut out);
    hosting_and_requirements(g, &mut out);
    technologies(doc, g, types, &mut out)?;
    uniqueness(g, &mut out);
    implications(g, &mut out)?;
    Ok(out.kept)
}

/// Where the generated constraints go: kept in order, or dropped.
struct Generated {
    kept: Vec<Constraint>,
    keep: bool,
}

impl Generated {
    fn push(&mut self, c: Constraint) {
        if self.keep {
            self.kept.push(c);
        }
    }
}

/// `{a: b}` as an implication constraint.
fn implies(a: Constraint, b: Constraint) -> Constraint {
    Constraint::implies(a, b)
}

/// Relations, artifacts, properties and types imply their ends and
/// containers (10.1), in the reference's order (unique artifacts among them).
fn containment(g: &Graph, out: &mut Generated) {
    let o = &g.options().constraints;
    let (id, ids) = (Constraint::Var, Constraint::vars);
    // An element implies its container.
    let contained = |list: &[ElementId], out: &mut Generated| {
        for &x in list {
            if let Some(c) = g.get(x).container() {
                out.push(implies(id(x), id(c)));
            }
        }
    };
    if o.relation_source {
        for &r in g.relations() {
            if let Some(t) = g.get(r).target() {
                out.push(implies(id(r), id(t)));
            }
        }
    }
    if o.relation_target {
        for &r in g.relations() {
            if let Some(src) = g.get(r).source() {
                out.push(implies(id(r), id(src)));
            }
        }
    }
    if o.unique_artifact {
        for &n in g.nodes() {
            for same in by_name(g, g.get(n).artifacts()) {
                out.push(Constraint::Amo(ids(&same)));
            }
        }
    }
    if o.artifact_container {
        contained(g.artifacts(), out);
    }
    if o.property_container {
        contained(g.properties(), out);
    }
    if o.unique_property {
        let containers = g
            .nodes()
            .iter()
            .chain(g.relations())
            .chain(g.policies())
            .chain(g.groups())
            .chain(g.artifacts());
        for &c in containers {
            for list in [g.get(c).properties(), g.get(c).attributes()] {
                for same in by_name(g, list) {
                    out.push(Constraint::Amo(ids(&same)));
                }
            }
        }
    }
    if o.type_container {
        contained(g.types(), out);
    }
}

/// Hosting, incoming relations and artifacts nodes require (10.1).
fn hosting_and_requirements(g: &Graph, out: &mut Generated) {
    let o = &g.options().constraints;
    let (id, ids) = (Constraint::Var, Constraint::vars);
    let hosting = |n: ElementId| -> Vec<ElementId> {
        g.get(n)
            .outgoing()
            .iter()
            .copied()
            .filter(|&r| g.get(r).hosting())
            .collect()
    };
    if o.required_hosting {
        for &n in g.nodes() {
            match hosting(n)[..] {
                [] => {}
                [h] => out.push(implies(id(n), id(h))),
                ref hs => out.push(implies(id(n), Constraint::Exo(ids(hs)))),
            }
        }
    }
    if o.single_hosting {
        for &n in g.nodes() {
            out.push(Constraint::Amo(ids(&hosting(n))));
        }
    }
    if o.required_incoming_relation {
        for &n in g.nodes() {
            let inc = g.get(n).incoming();
            if !inc.is_empty() {
                out.push(implies(id(n), Constraint::Or(ids(inc))));
            }
        }
    }
    if o.required_artifact {
        for &n in g.nodes() {
            let arts = g.get(n).artifacts();
            if !arts.is_empty() {
                out.push(implies(id(n), Constraint::Exo(ids(arts))));
            }
        }
    }
}

/// Managed nodes require exactly one technology, or at most one (10.1).
fn technologies(
    doc: NodeRef<'_>,
    g: &Graph,
    types: &TypeSystem,
    out: &mut Generated,
) -> Result<()> {
    let o = &g.options().constraints;
    let (id, ids) = (Constraint::Var, Constraint::vars);
    if o.required_technology {
        for &n in g.nodes() {
            if !g.is_managed(types, g.raw_map(doc, n), n)? {
                continue;
            }
            match g.get(n).technologies()[..] {
                [t] => out.push(implies(id(n), id(t))),
                ref ts => out.push(implies(id(n), Constraint::Exo(ids(ts)))),
            }
        }
    }
    if o.unique_technology {
        for &n in g.nodes() {
            if g.is_managed(types, g.raw_map(doc, n), n)? {
                out.push(Constraint::Amo(ids(g.get(n).technologies())));
            }
        }
    }
    Ok(())
}

/// At most one input, output and relation of a name (10.1).
fn uniqueness(g: &Graph, out: &mut Generated) {
    let o = &g.options().constraints;
    let (id, ids) = (Constraint::Var, Constraint::vars);
    if o.unique_input {
        for same in by_name(g, g.inputs()) {
            out.push(Constraint::Amo(ids(&same)));
        }
    }
    if o.unique_output {
        for same in by_name(g, g.outputs()) {
            out.push(Constraint::Amo(ids(&same)));
        }
    }
    if o.unique_relation {
        for &n in g.nodes() {
            for same in by_name(g, g.get(n).outgoing()) {
                out.push(implies(id(n), Constraint::Amo(ids(&same))));
            }
        }
    }
}

/// Implication constraints of implied elements (10.2).
fn implications(g: &Graph, out: &mut Generated) -> Result<()> {
    let o = &g.options().constraints;
    let (id, manual) = (Constraint::Var, Constraint::Manual);
    for x in g.ordered() {
        let e = g.get(x);
        if !g.is_implied(x) {
            continue;
        }
        match e.kind {
            Kind::Node => out.push(implies(manual(x), id(x))),
            Kind::Property => {
                if e.consumes().is_empty()
                    || !e.consumes().iter().any(|&c| g.get(c).kind == Kind::Input)
                {
                    continue;
                }
                let Some(c) = e.container() else { continue };
                let consumed = e.consumes().iter().map(|&c| manual(c)).collect();
                let left = Constraint::And(thin_vec![id(c), manual(x), Constraint::Or(consumed)]);
                out.push(implies(left, id(x)));
            }
            Kind::Relation if o.relation_enhanced_implication_mode => {
                let (Some(src), Some(t)) = (e.source(), e.target()) else {
                    continue;
                };
                let left = Constraint::And(thin_vec![id(src), manual(x), manual(t)]);
                out.push(implies(left, id(x)));
            }
            _ => {
                let Some(c) = e.container() else { continue };
                let explicit = g.implied(x);
                let value = explicit.and_then(Node::as_str);
                // Not written: the default, `true` here.
                match (explicit.map(|n| &n.value), value) {
                    (_, Some("TARGET")) if e.kind != Kind::Relation => {
                        bail!(e.span, "{} is not a relation", g.Display(x))
                    }
                    (_, Some("TARGET" | "SOURCE" | "CONTAINER"))
                    | (Some(v4t_yaml::Value::Bool(true)) | None, _) => {}
                    _ => return Err(Error::at("Left not defined", e.span)),
                }
                let left = Constraint::And(thin_vec![id(c), manual(x)]);
                out.push(implies(left, id(x)));
            }
        }
    }
    Ok(())
}
