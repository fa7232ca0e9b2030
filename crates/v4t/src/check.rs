//! Checks of the solved result: consistency and semantic checks on present
//! elements, in the reference's order; the first violation is the error
//! (part 2, section 7).

use crate::error::{fail_at, Error, Result};

use crate::graph::{ElementId, Graph, Kind};
use crate::solve::Solution;

/// Runs every enabled check; a hosting cycle among present nodes is always
/// an error.
pub(crate) fn check(graph: &Graph, solution: &Solution) -> Result<()> {
    let present = |id: ElementId| solution.is_present(id);
    if let Some(cycle) = present_hosting_cycle(graph, &present) {
        return Err(graph.hosting_cycle(&cycle));
    }
    let checker = Checker { g: graph, solution };
    checker.relation_ends()?;
    checker.containers_and_names()?;
    checker.nodes()?;
    checker.technologies()?;
    checker.inputs_and_outputs()?;
    let c = &graph.options.checks;
    if c.ambiguous_relation {
        for n in checker.present_of(&graph.nodes) {
            ambiguous_names(graph, &graph.get(n).outgoing, &present)?;
        }
    }
    Ok(())
}

/// The checks of one solution, by family, in the reference's order.
struct Checker<'a> {
    g: &'a Graph,
    solution: &'a Solution,
}

impl Checker<'_> {
    fn present(&self, id: ElementId) -> bool {
        self.solution.is_present(id)
    }

    /// The present elements of `list`.
    fn present_of<'l>(&'l self, list: &'l [ElementId]) -> impl Iterator<Item = ElementId> + 'l {
        list.iter().copied().filter(|&x| self.present(x))
    }

    /// Present relations have present sources and targets.
    fn relation_ends(&self) -> Result<()> {
        let (g, c) = (self.g, &self.g.options.checks);
        if c.relation_source {
            for r in self.present_of(&g.relations) {
                if let Some(s) = g.get(r).source.filter(|&s| !self.present(s)) {
                    fail_at!(
                        g,
                        r,
                        "Relation source \"{}\" of {} does not exist",
                        g.get(s).name,
                        g.display(r)
                    );
                }
            }
        }
        if c.relation_target {
            for r in self.present_of(&g.relations) {
                if let Some(t) = g.get(r).target.filter(|&t| !self.present(t)) {
                    fail_at!(
                        g,
                        r,
                        "Relation target \"{}\" of {} does not exist",
                        g.get(t).name,
                        g.display(r)
                    );
                }
            }
        }
        Ok(())
    }

    /// Artifacts, properties and types have present containers and no
    /// present namesakes; typed elements have a present type.
    fn containers_and_names(&self) -> Result<()> {
        let (g, c) = (self.g, &self.g.options.checks);
        let present = |id: ElementId| self.present(id);
        if c.missing_artifact_container {
            missing_container(g, &g.artifacts, &present)?;
        }
        if c.ambiguous_artifact {
            for n in self.present_of(&g.nodes) {
                ambiguous_names(g, &g.get(n).artifacts, &present)?;
            }
        }
        if c.missing_property_container {
            missing_container(g, &g.properties, &present)?;
        }
        if c.ambiguous_property {
            for n in self.present_of(&g.nodes) {
                ambiguous_names(g, &g.get(n).properties, &present)?;
                ambiguous_names(g, &g.get(n).attributes, &present)?;
            }
        }
        if c.missing_type_container {
            missing_container(g, &g.types, &present)?;
        }
        if c.ambiguous_type {
            let containers = g
                .nodes
                .iter()
                .chain(&g.groups)
                .chain(&g.policies)
                .chain(&g.artifacts);
            for &x in containers.filter(|&&x| present(x)) {
                if g.get(x).types.is_empty() && g.get(x).kind == Kind::Artifact {
                    // A TOSCA 2.0 artifact written without type.
                    continue;
                }
                let mut present_types = self.present_of(&g.get(x).types);
                if present_types.next().is_none() {
                    fail_at!(g, x, "{} has no type", g.Display(x));
                }
                // Exactly one present type (spec check 9); the reference only
                // rejects two of the same name and silently takes the first.
                if let Some(second) = present_types.next() {
                    fail_at!(g, second, "{} is ambiguous", g.Display(second));
                }
            }
        }
        Ok(())
    }

    /// Present nodes have one host, and the hosts, incoming relations and
    /// artifacts they may have.
    fn nodes(&self) -> Result<()> {
        let (g, c) = (self.g, &self.g.options.checks);
        let hosting = |n: ElementId| {
            g.get(n)
                .outgoing
                .iter()
                .copied()
                .filter(|&r| g.get(r).hosting)
        };
        // Relationships, not assignments: a TOSCA 2.0 assignment with
        // `count: 2` establishes two, one with `count: 0` none.
        let hosts = |n: ElementId| -> u32 {
            hosting(n)
                .filter(|&r| self.present(r))
                .map(|r| g.relationships(r))
                .sum()
        };
        for n in self.present_of(&g.nodes).filter(|_| c.ambiguous_hosting) {
            if hosts(n) > 1 {
                fail_at!(g, n, "{} has more than one hosting relations", g.Display(n));
            }
        }
        for n in self.present_of(&g.nodes).filter(|_| c.expected_hosting) {
            if hosting(n).count() > 0 && hosts(n) == 0 {
                fail_at!(g, n, "{} expected to have a hosting relation", g.Display(n));
            }
        }
        for n in self
            .present_of(&g.nodes)
            .filter(|_| c.expected_incoming_relation)
        {
            let inc = &g.get(n).incoming;
            if !inc.is_empty() && self.present_of(inc).next().is_none() {
                let display = g.Display(n);
                fail_at!(g, n, "{display} expected to have an incoming relation");
            }
        }
        for n in self.present_of(&g.nodes).filter(|_| c.expected_artifact) {
            let arts = &g.get(n).artifacts;
            if !arts.is_empty() && self.present_of(arts).next().is_none() {
                let display = g.Display(n);
                fail_at!(g, n, "{display} expected to have an deployment artifact");
            }
        }
        Ok(())
    }

    /// Present nodes with technologies have exactly one present, in a
    /// present container.
    fn technologies(&self) -> Result<()> {
        let (g, c) = (self.g, &self.g.options.checks);
        if c.expected_technology {
            for n in self.present_of(&g.nodes) {
                let techs = &g.get(n).technologies;
                if !techs.is_empty() && self.present_of(techs).next().is_none() {
                    fail_at!(g, n, "{} expected to have a technology", g.Display(n));
                }
            }
        }
        if c.missing_technology_container {
            missing_container(g, &g.technologies, &|id| self.present(id))?;
        }
        if c.ambiguous_technology {
            for n in self.present_of(&g.nodes) {
                if self.present_of(&g.get(n).technologies).count() > 1 {
                    fail_at!(g, n, "{} has more than one technology", g.Display(n));
                }
            }
        }
        Ok(())
    }

    /// Inputs and outputs have no present namesakes; present inputs are
    /// consumed and present outputs produced.
    fn inputs_and_outputs(&self) -> Result<()> {
        let (g, c) = (self.g, &self.g.options.checks);
        let present = |id: ElementId| self.present(id);
        if c.ambiguous_input {
            ambiguous_names(g, &g.inputs, &present)?;
        }
        // `unconsumed_input_check` (the reference guards this check with
        // `unproduced_output_check`; their defaults agree).
        if c.unconsumed_input {
            for i in self.present_of(&g.inputs) {
                if self.present_of(&g.get(i).consumers).next().is_none() {
                    fail_at!(g, i, "{} is not consumed", g.Display(i));
                }
            }
        }
        if c.ambiguous_output {
            ambiguous_names(g, &g.outputs, &present)?;
        }
        if c.unproduced_output {
            for o in self.present_of(&g.outputs) {
                if g.get(o).producers.iter().any(|&p| !present(p)) {
                    fail_at!(g, o, "{} is not produced", g.Display(o));
                }
            }
        }
        Ok(())
    }
}

/// The first cycle of present hosting relations between present nodes
/// (depth-first in node and requirement order), as its relations.
fn present_hosting_cycle(
    g: &Graph,
    present: &impl Fn(ElementId) -> bool,
) -> Option<Vec<ElementId>> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        OnPath,
        Done,
    }
    let mut state = vec![State::New; g.elements.len()];
    // The present hosting relations of a node whose target is present.
    let hosting = |n: ElementId| {
        g.get(n).outgoing.iter().copied().filter(move |&r| {
            let e = g.get(r);
            e.hosting && present(r) && e.target.is_some_and(present)
        })
    };
    for &root in g.nodes.iter().filter(|&&n| present(n)) {
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
            let Some(host) = g.get(r).target else {
                continue;
            };
            match state[host.0 as usize] {
                State::OnPath => {
                    let start = path
                        .iter()
                        .position(|&p| g.get(p).source == Some(host))
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

fn missing_container(
    g: &Graph,
    ids: &[ElementId],
    present: &impl Fn(ElementId) -> bool,
) -> Result<()> {
    for &x in ids.iter().filter(|&&x| present(x)) {
        let Some(c) = g.get(x).container.filter(|&c| !present(c)) else {
            continue;
        };
        let error = Error::at(
            format!("Container of {} does not exist", g.display(x)),
            g.get(x).span,
        )
        .in_element(g.id(x));
        // Enriched templates never get here for types (a type follows its
        // container); say what to do for templates resolved without.
        if g.get(x).kind == Kind::Type {
            return Err(error.with_note(
                format!(
                    "the conditions of the type hold while those of {} do not: give the type the same conditions or enable `type_default_condition` or `type_pruning`",
                    g.display(c)
                ),
                g.get(c).span,
            ));
        }
        return Err(error);
    }
    Ok(())
}

/// No two present elements of `ids` share a name; reports the second one.
fn ambiguous_names(
    g: &Graph,
    ids: &[ElementId],
    present: &impl Fn(ElementId) -> bool,
) -> Result<()> {
    let mut seen: Vec<&str> = Vec::new();
    for &x in ids.iter().filter(|&&x| present(x)) {
        let name = g.get(x).name.as_str();
        if seen.contains(&name) {
            fail_at!(g, x, "{} is ambiguous", g.Display(x));
        }
        seen.push(name);
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
        assert_eq!(e.notes.len(), 1);
        assert!(e.notes[0].message.contains("`type_default_condition`"));
    }
}
