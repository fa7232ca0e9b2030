//! Test helpers shared by the unit tests of the pipeline stages.

use crate::config::Version;
use crate::graph::Graph;
use crate::options::Options;
use crate::{document, resolve, NoFiles, Node, ResolveOptions, Sources};

/// Parses a YAML fixture.
pub fn doc(yaml: &str) -> Node {
    v4t_yaml::parse(yaml, v4t_yaml::SourceId(0)).expect("fixture parses")
}

/// The version of a fixture (`tosca_variability_1_0` if it has none).
pub fn version(doc: &Node) -> Version {
    Version::of(doc).unwrap_or(Version::V1)
}

/// The first normalisation of `doc`, as the enricher does it (with the
/// option `automatic_default_alternatives` as written).
pub fn normalize(doc: &mut Node) -> crate::Result<()> {
    let automatic = crate::options::automatic_default_alternatives(document::options(doc))?;
    crate::normalize::normalize(doc, automatic)
}

/// The options of `doc` as written.
pub fn options(doc: &Node) -> crate::Result<Options> {
    Options::new(version(doc), document::options(doc))
}

/// The graph of the normalised `doc` under its options as written.
pub fn build(doc: &Node) -> crate::Result<Graph> {
    crate::graph::build(doc, &options(doc)?)
}

/// Enriches `doc` in place (`v4t enrich` without loading).
pub fn enrich(doc: &mut Node) -> crate::Result<()> {
    crate::enrich::enrich(doc, version(doc)).map(drop)
}

/// Resolves a template text with the given presets and inputs (YAML map text).
pub fn resolve_text(
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
