//! Test helpers shared by the unit tests of the pipeline stages.

use crate::config::Version;
use crate::graph::Graph;
use crate::options::Options;
use crate::{document, resolve, NoFiles, Node, ResolveOptions, Sources};

/// A template with every kind of element (types, nodes, relations,
/// properties, policies, groups, inputs, artifacts, imports, technologies,
/// outputs), conditions, `implies` and `implied`, shared by the unit tests
/// of the graph and the solver.
pub(crate) const ALL_ELEMENTS: &str = "
tosca_definitions_version: tosca_variability_1_0
topology_template:
  inputs:
    port: {type: integer, conditions: true}
  node_templates:
    web:
      type: [{web.a: {}}, {web.b: {conditions: false}}]
      properties:
        - p: 1
        - p: {value: 2, conditions: false, implied: false, implies: [[node.vm]]}
      requirements:
        - host: vm
        - db: {node: vm, relationship: r, conditions: true}
      artifacts:
        - image: {file: a.tar, properties: [{size: 1}]}
      technology: [{ansible: {assign: x, conditions: true}}]
    vm:
      type: vm
      implies: [[node.web]]
  relationship_templates:
    r:
      type: rt
      properties: {q: x}
  groups:
    g: {type: tosca.groups.Root, members: [web, [web, db]], properties: {gp: 1}}
  policies:
    - pol: {type: p, targets: [g], properties: {pp: 2}}
  outputs:
    url: {value: {get_property: [web, p]}}
imports:
  - a.yaml
";

/// Parses a YAML fixture.
pub(crate) fn doc(yaml: &str) -> Node {
    v4t_yaml::parse(yaml, v4t_yaml::SourceId(0)).expect("fixture parses")
}

/// The version of a fixture (`tosca_variability_1_0` if it has none).
pub(crate) fn version(doc: &Node) -> Version {
    Version::of(doc).unwrap_or(Version::V1)
}

/// The first normalisation of `doc`, as the enricher does it (with the
/// option `automatic_default_alternatives` as written).
pub(crate) fn normalize(doc: &mut Node) -> crate::Result<()> {
    let automatic = crate::options::automatic_default_alternatives(document::options(doc))?;
    crate::normalize::normalize(doc, automatic)
}

/// The options of `doc` as written.
pub(crate) fn options(doc: &Node) -> crate::Result<Options> {
    let grammar = crate::version::Grammar::of(doc);
    Options::for_base(version(doc), grammar, document::options(doc))
}

/// The graph of the normalised `doc` under its options as written (the
/// condition lists moved out of a copy, so that `doc` keeps them).
pub(crate) fn build(doc: &Node) -> crate::Result<Graph> {
    let type_files = type_files(doc);
    let types = type_files.system();
    crate::graph::build_moving_conditions(&mut doc.clone(), &options(doc)?, &types)
}

/// Enriches `doc` in place (`v4t enrich` without loading).
pub(crate) fn enrich(doc: &mut Node) -> crate::Result<()> {
    let type_files = type_files(doc);
    let types = type_files.system();
    crate::enrich::enrich(doc, version(doc), &types).map(drop)
}

/// The type files of a fixture (no files beside it).
pub(crate) fn type_files(doc: &Node) -> crate::types::TypeFiles {
    let grammar = crate::version::Grammar::of(doc);
    let mut sources = Sources::new();
    let id = sources.add("template.yaml", "");
    crate::types::TypeFiles::load(doc, grammar, &mut sources, id, &mut NoFiles).expect("types load")
}

/// Resolves a template text with the given presets and inputs (YAML map
/// text), keeping the whole error.
pub(crate) fn resolve_error(template: &str, inputs: Option<&str>) -> Option<crate::Error> {
    let mut sources = Sources::new();
    let id = sources.add("template.yaml", template);
    let options = ResolveOptions {
        inputs: inputs.map(doc),
        ..ResolveOptions::default()
    };
    resolve(&mut sources, id, &mut NoFiles, &options).err()
}

/// Resolves a template text with the given presets and inputs (YAML map text).
pub(crate) fn resolve_text(
    template: &str,
    presets: &[&str],
    inputs: Option<&str>,
) -> Result<Node, String> {
    let mut sources = Sources::new();
    let id = sources.add("template.yaml", template);
    let options = ResolveOptions {
        presets: presets.iter().map(|s| s.to_string()).collect(),
        inputs: inputs.map(doc),
        ..ResolveOptions::default()
    };
    resolve(&mut sources, id, &mut NoFiles, &options)
        .map(|r| r.template)
        .map_err(|e| e.message.clone())
}
