//! Counts of what a variable service template is made of (`v4t template
//! stats`, the reference's command of the same name): its elements as the
//! element graph sees them before enrichment, the conditions written on
//! them, its variability inputs and presets, and its lines.

use v4t_source::{Loader, Sources};
use v4t_yaml::SourceId;

use crate::document;
use crate::Result;

/// What one template consists of. Elements are counted as the resolver's
/// element graph has them before any condition is generated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Node templates.
    pub nodes: usize,
    /// Relations (requirement assignments).
    pub relations: usize,
    /// Properties of node templates, relations, groups, policies and artifacts.
    pub properties: usize,
    /// Type assignments (every node template's type, each entry of a `type` list).
    pub types: usize,
    /// Policies.
    pub policies: usize,
    /// Groups.
    pub groups: usize,
    /// Topology inputs.
    pub inputs: usize,
    /// Topology outputs.
    pub outputs: usize,
    /// Artifacts.
    pub artifacts: usize,
    /// Imports.
    pub imports: usize,
    /// Deployment technologies assigned to node templates.
    pub technologies: usize,
    /// Every element of the graph.
    pub elements: usize,
    /// Conditions written on elements (each entry of a `conditions` list).
    pub conditions: usize,
    /// Variability inputs.
    pub variability_inputs: usize,
    /// Variability presets.
    pub presets: usize,
    /// Lines of the template file.
    pub lines: usize,
    /// Lines of the template file that are not blank.
    pub non_blank_lines: usize,
}

impl Stats {
    /// The field names and values, in declaration order (for printing).
    pub fn fields(&self) -> [(&'static str, usize); 17] {
        [
            ("nodes", self.nodes),
            ("relations", self.relations),
            ("properties", self.properties),
            ("types", self.types),
            ("policies", self.policies),
            ("groups", self.groups),
            ("inputs", self.inputs),
            ("outputs", self.outputs),
            ("artifacts", self.artifacts),
            ("imports", self.imports),
            ("technologies", self.technologies),
            ("elements", self.elements),
            ("conditions", self.conditions),
            ("variability_inputs", self.variability_inputs),
            ("presets", self.presets),
            ("lines", self.lines),
            ("non_blank_lines", self.non_blank_lines),
        ]
    }

    /// The sum of `self` and `other` (the totals over several templates).
    pub fn add(&self, other: &Stats) -> Stats {
        let mut sum = Stats::default();
        let fields = [self.fields(), other.fields()];
        let total = |i: usize| fields[0][i].1 + fields[1][i].1;
        sum.nodes = total(0);
        sum.relations = total(1);
        sum.properties = total(2);
        sum.types = total(3);
        sum.policies = total(4);
        sum.groups = total(5);
        sum.inputs = total(6);
        sum.outputs = total(7);
        sum.artifacts = total(8);
        sum.imports = total(9);
        sum.technologies = total(10);
        sum.elements = total(11);
        sum.conditions = total(12);
        sum.variability_inputs = total(13);
        sum.presets = total(14);
        sum.lines = total(15);
        sum.non_blank_lines = total(16);
        sum
    }
}

/// The [`Stats`] of the variable service template `template`.
pub fn stats(sources: &mut Sources, template: SourceId, loader: &mut dyn Loader) -> Result<Stats> {
    let text = sources.get(template).map(|f| f.text()).unwrap_or("");
    let lines = text.lines().count();
    let non_blank_lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    let (mut doc, _loaded, version, grammar) = crate::load_checked(sources, template, loader)?;
    let files = crate::types::TypeFiles::load(&mut doc, grammar, sources, template, loader)?;
    let types = files.system();
    let variability = document::variability_of((&doc).into());
    let variability_inputs = document::declared_inputs(variability).len();
    let presets = document::entries_of(variability.and_then(|v| v.get("presets"))).count();
    let graph = crate::resolver_graph(&mut doc, version, &types, None)?;
    Ok(Stats {
        nodes: graph.nodes().len(),
        relations: graph.relations().len(),
        properties: graph.properties().len(),
        types: graph.types().len(),
        policies: graph.policies().len(),
        groups: graph.groups().len(),
        inputs: graph.inputs().len(),
        outputs: graph.outputs().len(),
        artifacts: graph.artifacts().len(),
        imports: graph.imports().len(),
        technologies: graph.technologies().len(),
        elements: graph.elements().len(),
        conditions: graph.elements().iter().map(|e| e.conditions.len()).sum(),
        variability_inputs,
        presets,
        lines,
        non_blank_lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats_of(text: &str) -> Stats {
        let mut sources = Sources::new();
        let id = sources.add("t.yaml", text.to_string());
        stats(&mut sources, id, &mut crate::NoFiles).unwrap()
    }

    #[test]
    fn counts_elements_conditions_inputs_and_presets() {
        let s = stats_of(
            "tosca_definitions_version: tosca_variability_1_0\n\
             topology_template:\n\
             \x20 variability:\n\
             \x20   inputs:\n\
             \x20     big: {type: boolean}\n\
             \x20   presets:\n\
             \x20     small: {inputs: {big: false}}\n\
             \x20     large: {inputs: {big: true}}\n\
             \x20 node_templates:\n\
             \x20   a:\n\
             \x20     type: a\n\
             \x20     conditions: {get_variability_input: big}\n\
             \x20     properties:\n\
             \x20       - p: 1\n\
             \x20       - p: {value: 2, conditions: [{get_variability_input: big}, true]}\n\
             \x20     requirements:\n\
             \x20       - host: b\n\
             \x20   b:\n\
             \x20     type: b\n\
             \n",
        );
        assert_eq!((s.nodes, s.relations, s.properties), (2, 1, 2));
        assert_eq!((s.variability_inputs, s.presets), (1, 2));
        assert_eq!(s.conditions, 3);
        assert_eq!((s.lines, s.non_blank_lines), (20, 19));
        assert!(s.elements >= 5, "{s:?}");
        assert_eq!(s.add(&s).nodes, 4);
    }
}
