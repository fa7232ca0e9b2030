//! Test helpers shared by the unit tests of the pipeline stages.

use crate::{resolve, NoFiles, Node, ResolveOptions, Sources};

/// Parses a YAML fixture.
pub fn doc(yaml: &str) -> Node {
    v4t_yaml::parse(yaml, v4t_yaml::SourceId(0)).expect("fixture parses")
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
