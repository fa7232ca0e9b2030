//! Checks of the solved result: consistency and semantic checks on present
//! elements, in the reference's order; the first violation is the error
//! (part 2, section 7).
//!
//! The checks are written once, over a `Logic` of presence: resolving
//! evaluates them on one solution (`bool`, stopping at the first
//! violation); `v4t analyze` builds them as SAT literals over every
//! configuration at once (`solve::family`), one violation literal
//! per check and element, in the same order.

use crate::error::{Error, Result};

use crate::graph::{Cond, ElementId, Graph, Kind};
use crate::solve::Solution;
use v4t_yaml::hash::Seen;

/// Runs every enabled check; a hosting cycle among present nodes is always
/// an error.
pub(crate) fn check(graph: &Graph, solution: &Solution) -> Result<()> {
    let present = |id: ElementId| solution.is_present(id);
    if let Some(cycle) = present_hosting_cycle(graph, &present) {
        return Err(graph.hosting_cycle(&cycle));
    }
    checks(graph, &mut OneSolution { solution, graph })
}

/// Presence and the connectives the checks need, and what a violation does.
pub(crate) trait Logic {
    /// A truth value: `bool`, or a SAT literal.
    type B: Copy;
    /// Whether the element is present.
    fn present(&mut self, id: ElementId) -> Self::B;
    /// Whether `b` is false for certain (the check needs no more work).
    fn is_false(&self, b: Self::B) -> bool;
    fn constant(&self, b: bool) -> Self::B;
    fn not(&mut self, b: Self::B) -> Self::B;
    fn and(&mut self, xs: &[Self::B]) -> Self::B;
    fn or(&mut self, xs: &[Self::B]) -> Self::B;
    /// At least two of `xs` hold.
    fn at_least_two(&mut self, xs: &[Self::B]) -> Self::B;
    /// The check fails with `error()` where `when` holds. On one solution
    /// that is the error of the run; symbolically it is recorded.
    fn violation(&mut self, when: Self::B, error: impl FnOnce() -> Error) -> Result<()>;
    /// [`Logic::violation`] of one of the checks of this module, described
    /// by what it is about: symbolically, a run finds a violation per
    /// element and check and reports a few of them, so their errors are
    /// built only where reported ([`Violation::error`]).
    fn violated(&mut self, when: Self::B, v: Violation) -> Result<()>;
}

/// A violation of a check of this module: what it is about, from which
/// its error is built where it is reported.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Violation {
    /// "`<element x>` `what`".
    Element { x: ElementId, what: &'static str },
    /// A present element `x` whose container is absent.
    NoContainer { x: ElementId, container: ElementId },
    /// A present relation `r` whose `role` (`source` or `target`), `end`,
    /// is absent.
    NoEnd {
        r: ElementId,
        end: ElementId,
        role: &'static str,
    },
}

impl Violation {
    /// The error, with its notes: why an absent container or relation end
    /// is absent, and which option would have removed the element with it.
    pub(crate) fn error(self, g: &Graph) -> Error {
        match self {
            Violation::Element { x, what } => element_error(g, x, what),
            Violation::NoContainer { x, container } => {
                let error = Error::at(
                    format!("Container of {} does not exist", g.display(x)),
                    g.get(x).span,
                )
                .in_element(g.id(x));
                with_absent_container_notes(g, error, x, container, "container")
            }
            Violation::NoEnd { r, end, role } => {
                let error = Error::at(
                    format!(
                        "Relation {role} \"{}\" of {} does not exist",
                        g.name(end),
                        g.display(r)
                    ),
                    g.get(r).span,
                )
                .in_element(g.id(r));
                with_absent_container_notes(g, error, r, end, role)
            }
        }
    }
}

/// One solution: presence is known, the first violation is the error.
pub(crate) struct OneSolution<'s> {
    pub(crate) solution: &'s Solution,
    pub(crate) graph: &'s Graph,
}

impl Logic for OneSolution<'_> {
    type B = bool;
    fn present(&mut self, id: ElementId) -> bool {
        self.solution.is_present(id)
    }
    fn is_false(&self, b: bool) -> bool {
        !b
    }
    fn constant(&self, b: bool) -> bool {
        b
    }
    fn not(&mut self, b: bool) -> bool {
        !b
    }
    fn and(&mut self, xs: &[bool]) -> bool {
        xs.iter().all(|&x| x)
    }
    fn or(&mut self, xs: &[bool]) -> bool {
        xs.iter().any(|&x| x)
    }
    fn at_least_two(&mut self, xs: &[bool]) -> bool {
        xs.iter().filter(|&&x| x).count() > 1
    }
    fn violation(&mut self, when: bool, error: impl FnOnce() -> Error) -> Result<()> {
        if when {
            return Err(error());
        }
        Ok(())
    }
    fn violated(&mut self, when: bool, v: Violation) -> Result<()> {
        self.violation(when, || v.error(self.graph))
    }
}

/// The enabled checks in the reference's order (without the hosting cycle).
pub(crate) fn checks<L: Logic>(g: &Graph, l: &mut L) -> Result<()> {
    let c = &g.options().checks;
    if c.relation_source {
        relation_ends(g, l, true)?;
    }
    if c.relation_target {
        relation_ends(g, l, false)?;
    }
    if c.missing_artifact_container {
        missing_container(g, l, g.artifacts())?;
    }
    if c.ambiguous_artifact {
        per_present_node(g, l, |e| e.artifacts())?;
    }
    if c.missing_property_container {
        missing_container(g, l, g.properties())?;
    }
    if c.ambiguous_property {
        per_present_node(g, l, |e| e.properties())?;
        if g.grammar() == crate::version::Grammar::Tosca2 {
            per_present_node(g, l, |e| e.attributes())?;
        }
    }
    if c.missing_type_container {
        missing_container(g, l, g.types())?;
    }
    if c.ambiguous_type {
        types(g, l)?;
    }
    if c.ambiguous_hosting {
        ambiguous_hosting(g, l)?;
    }
    expected(g, l)?;
    if c.missing_technology_container {
        missing_container(g, l, g.technologies())?;
    }
    if c.ambiguous_technology {
        ambiguous_technology(g, l)?;
    }
    if c.ambiguous_input {
        let always = l.constant(true);
        ambiguous(g, l, always, g.inputs(), true)?;
    }
    // `unconsumed_input_check` (the reference guards this check with
    // `unproduced_output_check`; their defaults agree).
    if c.unconsumed_input {
        unconsumed_inputs(g, l)?;
    }
    if c.ambiguous_output {
        let always = l.constant(true);
        ambiguous(g, l, always, g.outputs(), true)?;
    }
    if c.unproduced_output {
        unproduced_outputs(g, l)?;
    }
    if c.ambiguous_relation {
        per_present_node(g, l, |e| e.outgoing())?;
    }
    Ok(())
}

/// A present relation whose source (or target) is absent.
fn relation_ends<L: Logic>(g: &Graph, l: &mut L, source: bool) -> Result<()> {
    for &r in g.relations() {
        let e = g.get(r);
        let Some(end) = (if source { e.source() } else { e.target() }) else {
            continue;
        };
        let here = l.present(r);
        if l.is_false(here) {
            continue;
        }
        let when = present_without(l, here, end);
        let role = if source { "source" } else { "target" };
        l.violated(when, Violation::NoEnd { r, end, role })?;
    }
    Ok(())
}

/// No two present elements of one of each present node's lists share a name.
fn per_present_node<L: Logic>(
    g: &Graph,
    l: &mut L,
    list: impl Fn(&crate::graph::Element) -> &[ElementId],
) -> Result<()> {
    for &n in g.nodes() {
        let here = l.present(n);
        if !l.is_false(here) {
            ambiguous(g, l, here, list(g.get(n)), true)?;
        }
    }
    Ok(())
}

/// Every present container has exactly one present type (spec check 9;
/// the reference only rejects two of the same name and silently takes the
/// first): the second one present is reported.
fn types<L: Logic>(g: &Graph, l: &mut L) -> Result<()> {
    let containers = g
        .nodes()
        .iter()
        .chain(g.groups())
        .chain(g.policies())
        .chain(g.artifacts());
    let mut lits = Vec::new();
    for &x in containers {
        let here = l.present(x);
        if l.is_false(here) {
            continue;
        }
        let types = g.get(x).types();
        if types.is_empty() && g.get(x).kind == Kind::Artifact {
            // A TOSCA 2.0 artifact written without type.
            continue;
        }
        let when = present_without_any(l, here, types, &mut lits);
        l.violated(
            when,
            Violation::Element {
                x,
                what: "has no type",
            },
        )?;
        ambiguous(g, l, here, types, false)?;
    }
    Ok(())
}

/// A node's hosting relations (present or not).
fn hosting(g: &Graph, n: ElementId) -> impl Iterator<Item = ElementId> + '_ {
    g.get(n)
        .outgoing()
        .iter()
        .copied()
        .filter(|&r| g.get(r).hosting())
}

/// No present node has more than one present hosting relationship: its
/// present hosting relations establish at most one (TOSCA 2.0: an
/// assignment with `count: 2` establishes two, one with `count: 0` none).
fn ambiguous_hosting<L: Logic>(g: &Graph, l: &mut L) -> Result<()> {
    let mut lits = Vec::new();
    for &n in g.nodes() {
        let here = l.present(n);
        if l.is_false(here) {
            continue;
        }
        lits.clear();
        for r in hosting(g, n) {
            // Twice is as good as more for "at least two".
            for _ in 0..g.relationships(r).min(2) {
                lits.push(l.present(r));
            }
        }
        let two = l.at_least_two(&lits);
        let when = l.and(&[here, two]);
        let what = "has more than one hosting relations";
        l.violated(when, Violation::Element { x: n, what })?;
    }
    Ok(())
}

/// The `expected_*` checks: a present node with hosting relations, incoming
/// relations, artifacts or technologies has a present one.
fn expected<L: Logic>(g: &Graph, l: &mut L) -> Result<()> {
    let c = &g.options().checks;
    // The members one of which must be present, and whether the node has
    // any (TOSCA 2.0: hosting relations with `count: 0` establish none).
    type Members<'g> = &'g dyn Fn(ElementId, &mut Vec<ElementId>) -> bool;
    let lists: [(bool, Members<'_>, &str); 4] = [
        (
            c.expected_hosting,
            &|n, out| {
                out.extend(hosting(g, n).filter(|&r| g.relationships(r) > 0));
                hosting(g, n).next().is_some()
            },
            "expected to have a hosting relation",
        ),
        (
            c.expected_incoming_relation,
            &|n, out| {
                out.extend_from_slice(g.get(n).incoming());
                !out.is_empty()
            },
            "expected to have an incoming relation",
        ),
        (
            c.expected_artifact,
            &|n, out| {
                out.extend_from_slice(g.get(n).artifacts());
                !out.is_empty()
            },
            "expected to have an deployment artifact",
        ),
        (
            c.expected_technology,
            &|n, out| {
                out.extend_from_slice(g.get(n).technologies());
                !out.is_empty()
            },
            "expected to have a technology",
        ),
    ];
    let mut lits = Vec::new();
    let mut ids = Vec::new();
    for (enabled, members, what) in lists {
        if !enabled {
            continue;
        }
        for &n in g.nodes() {
            let here = l.present(n);
            ids.clear();
            let applies = members(n, &mut ids);
            if l.is_false(here) || !applies {
                continue;
            }
            let when = present_without_any(l, here, &ids, &mut lits);
            l.violated(when, Violation::Element { x: n, what })?;
        }
    }
    Ok(())
}

/// No present node has more than one present technology.
fn ambiguous_technology<L: Logic>(g: &Graph, l: &mut L) -> Result<()> {
    let mut lits = Vec::new();
    for &n in g.nodes() {
        let here = l.present(n);
        if l.is_false(here) {
            continue;
        }
        lits.clear();
        lits.extend(g.get(n).technologies().iter().map(|&t| l.present(t)));
        let two = l.at_least_two(&lits);
        let when = l.and(&[here, two]);
        l.violated(
            when,
            Violation::Element {
                x: n,
                what: "has more than one technology",
            },
        )?;
    }
    Ok(())
}

/// Every present input has a present consumer.
fn unconsumed_inputs<L: Logic>(g: &Graph, l: &mut L) -> Result<()> {
    let mut lits = Vec::new();
    for &i in g.inputs() {
        let here = l.present(i);
        if l.is_false(here) {
            continue;
        }
        let when = present_without_any(l, here, g.get(i).consumers(), &mut lits);
        l.violated(
            when,
            Violation::Element {
                x: i,
                what: "is not consumed",
            },
        )?;
    }
    Ok(())
}

/// Every producer of a present output is present.
fn unproduced_outputs<L: Logic>(g: &Graph, l: &mut L) -> Result<()> {
    let mut lits = Vec::new();
    for &o in g.outputs() {
        let here = l.present(o);
        if l.is_false(here) {
            continue;
        }
        lits.clear();
        for &p in g.get(o).producers() {
            let there = l.present(p);
            lits.push(l.not(there));
        }
        let some_gone = l.or(&lits);
        let when = l.and(&[here, some_gone]);
        l.violated(
            when,
            Violation::Element {
                x: o,
                what: "is not produced",
            },
        )?;
    }
    Ok(())
}

/// `here` holds and none of `ids` is present (`lits` is scratch space).
fn present_without_any<L: Logic>(
    l: &mut L,
    here: L::B,
    ids: &[ElementId],
    lits: &mut Vec<L::B>,
) -> L::B {
    lits.clear();
    for &id in ids {
        let p = l.present(id);
        lits.push(p);
    }
    let some = l.or(lits);
    let none = l.not(some);
    l.and(&[here, none])
}

/// `<Display> <what>` about an element, at the element: the form of every
/// check message that names only the offending element.
fn element_error(g: &Graph, x: ElementId, what: &str) -> Error {
    Error::at(format!("{} {what}", g.Display(x)), g.get(x).span).in_element(g.id(x))
}

/// `here` holds and the element `other` is absent (a present element
/// whose relation end or container is gone).
fn present_without<L: Logic>(l: &mut L, here: L::B, other: ElementId) -> L::B {
    let there = l.present(other);
    let gone = l.not(there);
    l.and(&[here, gone])
}

/// The first cycle of present hosting relations between present nodes
/// (depth-first in node and requirement order), as its relations.
pub(crate) fn present_hosting_cycle(
    g: &Graph,
    present: &impl Fn(ElementId) -> bool,
) -> Option<Vec<ElementId>> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        OnPath,
        Done,
    }
    let mut state = vec![State::New; g.elements().len()];
    // The present hosting relations of a node whose target is present.
    let hosting = |n: ElementId| {
        g.get(n).outgoing().iter().copied().filter(move |&r| {
            let e = g.get(r);
            e.hosting() && present(r) && e.target().is_some_and(present)
        })
    };
    for &root in g.nodes().iter().filter(|&&n| present(n)) {
        if state[root.0 as usize] != State::New {
            continue;
        }
        // The relations of the current path, and per path node the next one to follow.
        let mut path: Vec<ElementId> = Vec::new();
        let mut stack: Vec<(ElementId, usize)> = vec![(root, 0)];
        state[root.0 as usize] = State::OnPath;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            let Some(r) = hosting(node).nth(*next) else {
                state[node.0 as usize] = State::Done;
                stack.pop();
                path.pop();
                continue;
            };
            *next += 1;
            let Some(host) = g.get(r).target() else {
                continue;
            };
            match state[host.0 as usize] {
                State::OnPath => {
                    let start = path
                        .iter()
                        .position(|&p| g.get(p).source() == Some(host))
                        .unwrap_or(path.len());
                    let mut cycle = path[start..].to_vec();
                    cycle.push(r);
                    return Some(cycle);
                }
                State::Done => {}
                State::New => {
                    state[host.0 as usize] = State::OnPath;
                    path.push(r);
                    stack.push((host, 0));
                }
            }
        }
    }
    None
}

/// A present element of `ids` whose container is absent.
fn missing_container<L: Logic>(g: &Graph, l: &mut L, ids: &[ElementId]) -> Result<()> {
    for &x in ids {
        let Some(c) = g.get(x).container() else {
            continue;
        };
        let here = l.present(x);
        if l.is_false(here) {
            continue;
        }
        let when = present_without(l, here, c);
        l.violated(when, Violation::NoContainer { x, container: c })?;
    }
    Ok(())
}

/// Notes for a present element `x` whose container (or relation end)
/// `absent` is not: why the container is absent (its conditions, where
/// written) and which option would have removed `x` with it. `role` names
/// what `absent` is to `x` (`container`, `source`, `target`).
///
/// A default condition applies only to an element without conditions of
/// its own (9.3), a pruning condition to any (9.4); the options are the
/// kind's (the resolver graph sees enrichment options at their defaults,
/// so the advice does not depend on what the template set).
fn with_absent_container_notes(
    g: &Graph,
    error: Error,
    x: ElementId,
    absent: ElementId,
    role: &str,
) -> Error {
    let manual = |id: ElementId| -> Vec<&Cond> {
        g.get(id)
            .conditions
            .iter()
            .filter(|c| !c.is_generated())
            .collect()
    };
    let written_at = |list: &[&Cond], id: ElementId| {
        list.iter()
            .find_map(|c| c.written_span())
            .unwrap_or(g.get(id).span)
    };
    let gone = manual(absent);
    let why = if gone.is_empty() {
        format!(
            "{} is absent (it has no conditions of its own)",
            g.display(absent)
        )
    } else {
        format!(
            "{} is absent; its conditions: {}",
            g.display(absent),
            crate::readable::all_of(&gone, g)
        )
    };
    let error = error.with_note(why, written_at(&gone, absent));
    let kind = g.get(x).kind.word();
    let own = manual(x);
    let remedy = if own.is_empty() {
        format!(
            "{} has no conditions, so its default condition would remove it with its {role}: enable `{kind}_default_condition` (or `mode: consistent-strict`) or `{kind}_pruning` (or `mode: consistent-loose`), or give it the conditions of its {role}",
            g.display(x)
        )
    } else {
        format!(
            "{} has conditions ({}), so no default condition applies to it: enable `{kind}_pruning` (or `mode: consistent-loose`) to remove it with its {role}, or give it the conditions of its {role}",
            g.display(x),
            crate::readable::all_of(&own, g)
        )
    };
    error.with_note(remedy, written_at(&own, x))
}

/// No two present elements of `ids` share a name (any two, unless
/// `by_name`) where `guard` holds; reports the second one.
fn ambiguous<L: Logic>(
    g: &Graph,
    l: &mut L,
    guard: L::B,
    ids: &[ElementId],
    by_name: bool,
) -> Result<()> {
    // Per name: whether an earlier element of that name is present.
    let mut seen: Seen<'_, L::B> = Seen::new();
    for &x in ids {
        let here = l.present(x);
        if l.is_false(here) {
            continue;
        }
        let name = if by_name { g.name(x) } else { "" };
        match seen.get_mut(name) {
            Some(earlier) => {
                let before = *earlier;
                let when = l.and(&[guard, here, before]);
                l.violated(
                    when,
                    Violation::Element {
                        x,
                        what: "is ambiguous",
                    },
                )?;
                *earlier = l.or(&[before, here]);
            }
            None => {
                seen.insert(name, here);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::testing::resolve_text;

    fn resolve(nodes: &str) -> Result<(), String> {
        let t = format!("tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  node_templates:\n{nodes}");
        resolve_text(&t, &[], None).map(|_| ())
    }

    #[test]
    fn checks_report_the_first_violation_exactly() {
        for (nodes, message) in [
            (
                "    a: {type: t, requirements: [{r: b}]}\n    b: {type: t, conditions: false}\n",
                "Relation target \"b\" of relation \"r@0\" of node \"a\" does not exist",
            ),
            (
                "    a: {type: t, conditions: false, properties: [{p: {value: 1}}]}\n",
                "Container of property \"p@0\" of node \"a\" does not exist",
            ),
            (
                "    a: {type: t, properties: [{p: 1}, {p: 2}]}\n",
                "Property \"p@1\" of node \"a\" is ambiguous",
            ),
            (
                "    a: {type: t, requirements: [{host: b}, {host: c}]}\n    b: {type: t}\n    c: {type: t}\n",
                "Node \"a\" has more than one hosting relations",
            ),
            (
                "    a: {type: t, requirements: [{host: {node: b, conditions: false}}]}\n    b: {type: t}\n",
                "Node \"a\" expected to have a hosting relation",
            ),
            (
                "    a: {type: [{t: {conditions: false}}]}\n",
                "Node \"a\" has no type",
            ),
            (
                "    a: {type: [{t: {}}, {u: {}}]}\n",
                "Type \"u@1\" of node \"a\" is ambiguous",
            ),
        ] {
            assert_eq!(resolve(nodes).unwrap_err(), message, "{nodes}");
        }
    }

    /// A type follows its container: an absent node's types are absent,
    /// also without type default conditions or pruning (the spec's own
    /// `is_prod` example failed the type container check, issue 12).
    #[test]
    fn types_of_absent_nodes_are_absent() {
        for nodes in [
            "    a: {type: t, conditions: false}\n",
            "    a: {type: [{t: {conditions: true}}, {u: {default_alternative: true}}], conditions: false}\n",
        ] {
            let t = format!("tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  node_templates:\n{nodes}    b: {{type: t}}\n");
            let out = resolve_text(&t, &[], None).expect("resolves");
            let names: Vec<&str> = out
                .get("topology_template")
                .and_then(|t| t.get("node_templates"))
                .and_then(|n| n.as_map())
                .map(|m| m.keys().collect())
                .unwrap_or_default();
            assert_eq!(names, vec!["b"], "{nodes}");
        }
    }

    #[test]
    fn checks_can_be_switched_off() {
        let t = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    options: {checks: false}
  node_templates:
    a: {type: t, properties: [{p: 1}, {p: 2}]}
";
        let out = resolve_text(t, &[], None).expect("resolves");
        // the later of two present properties wins in the output
        let a = out
            .get("topology_template")
            .and_then(|t| t.get("node_templates"))
            .and_then(|n| n.get("a"));
        assert_eq!(
            a.and_then(|a| a.get("properties"))
                .and_then(|p| p.get("p"))
                .and_then(|p| p.as_f64()),
            Some(2.0)
        );
    }

    /// Present nodes hosted on each other are an error that names the cycle
    /// from the node listed first, even with the checks off; a cycle that is
    /// not present is none (issue 17, item 1).
    #[test]
    fn hosting_cycles_among_present_nodes_are_errors() {
        for (options, nodes, cycle) in [
            (
                "{}",
                "    a: {type: t, requirements: [{host: b}]}\n    b: {type: t, requirements: [{host: c}]}\n    c: {type: t, requirements: [{host: b}]}\n",
                "b → c → b",
            ),
            (
                "{checks: false}",
                "    c: {type: t, requirements: [{host: b}]}\n    b: {type: t, requirements: [{host: c}]}\n",
                "c → b → c",
            ),
            (
                "{checks: false}",
                "    b: {type: t, requirements: [{db: c}, {host: b}]}\n    c: {type: t}\n",
                "b → b",
            ),
        ] {
            let t = format!("tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  variability:\n    options: {options}\n  node_templates:\n{nodes}");
            let e = resolve_text(&t, &[], None).unwrap_err();
            assert_eq!(e, format!("Hosting relations form a cycle: {cycle}"), "{nodes}");
        }
        assert_eq!(
            resolve("    a: {type: t, requirements: [{host: b}]}\n    b: {type: t, requirements: [{host: {node: a, conditions: false}}]}\n")
                .unwrap_err(),
            "Node \"b\" expected to have a hosting relation"
        );
    }

    /// `unconsumed_input_check` guards the check that present inputs are
    /// consumed; `unproduced_output_check` only the output check (issue 12).
    #[test]
    fn unconsumed_inputs_have_their_own_check() {
        let t = |options: &str| {
            format!("tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  variability:\n    options: {options}\n  inputs:\n    x: {{type: string}}\n  node_templates:\n    a: {{type: t}}\n")
        };
        assert_eq!(
            resolve_text(&t("{unconsumed_input_check: true}"), &[], None).unwrap_err(),
            "Input \"x@0\" is not consumed"
        );
        assert!(resolve_text(&t("{unproduced_output_check: true}"), &[], None).is_ok());
    }

    /// Resolved without enrichment, a type of an absent node is present:
    /// the error says what to do.
    #[test]
    fn type_container_errors_name_the_remedy() {
        let mut sources = crate::Sources::new();
        let id = sources.add(
            "template.yaml",
            "tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  node_templates:\n    a: {type: t, conditions: false}\n",
        );
        let options = crate::ResolveOptions {
            enrich: false,
            ..crate::ResolveOptions::default()
        };
        let e = crate::resolve(&mut sources, id, &mut crate::NoFiles, &options).unwrap_err();
        assert_eq!(
            e.message,
            "Container of type \"t@0\" of node \"a\" does not exist"
        );
        assert_eq!(e.notes.len(), 2);
        assert!(e.notes[1].message.contains("`type_default_condition`"));
    }

    /// The error of a present element with an absent container (or
    /// relation end) and the notes that say why and what to change
    /// (QA issue 12): the container's conditions where written, and the
    /// option that removes the element with it — a default condition only
    /// for elements without conditions, pruning for any.
    /// The error, and where its notes are (line and column).
    fn container_error(nodes: &str) -> (v4t_source::Diagnostic, Vec<(u32, u32)>) {
        let mut sources = crate::Sources::new();
        let text = format!(
            "tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  node_templates:\n{nodes}"
        );
        let id = sources.add("template.yaml", text);
        let e = crate::resolve(
            &mut sources,
            id,
            &mut crate::NoFiles,
            &crate::ResolveOptions::default(),
        )
        .unwrap_err()
        .into_diagnostic();
        let at = e
            .notes
            .iter()
            .map(|n| sources.locate(n.span).unwrap_or_default().start())
            .collect();
        (e, at)
    }

    #[test]
    fn container_errors_say_why_and_what_to_change() {
        // without conditions of its own: the default condition would do
        let (e, at) = container_error(
            "    a:\n      type: t\n      conditions: false\n      requirements:\n        - dependency: b\n    b: {type: t}\n",
        );
        assert_eq!(
            e.message,
            "Relation source \"a\" of relation \"dependency@0\" of node \"a\" does not exist"
        );
        let notes: Vec<&str> = e.notes.iter().map(|n| n.message.as_str()).collect();
        assert_eq!(notes[0], "node \"a\" is absent; its conditions: false");
        assert_eq!(at[0], (6, 19), "at the container's condition");
        assert!(
            notes[1].contains("`relation_default_condition`"),
            "{}",
            notes[1]
        );
        assert!(notes[1].contains("`relation_pruning`"), "{}", notes[1]);
        assert_eq!(notes.len(), 2);

        // with conditions of its own: only pruning would
        let (e, at) = container_error(
            "    a:\n      type: t\n      conditions: {not: true}\n      properties:\n        - p: {value: 1, conditions: true}\n",
        );
        assert_eq!(
            e.message,
            "Container of property \"p@0\" of node \"a\" does not exist"
        );
        let notes: Vec<&str> = e.notes.iter().map(|n| n.message.as_str()).collect();
        assert_eq!(notes[0], "node \"a\" is absent; its conditions: not true");
        assert!(notes[1].contains("has conditions (true)"), "{}", notes[1]);
        assert!(notes[1].contains("`property_pruning`"), "{}", notes[1]);
        assert!(!notes[1].contains("default_condition`"), "{}", notes[1]);
        assert_eq!(at[1], (8, 37), "at the property's own condition");
    }
}
