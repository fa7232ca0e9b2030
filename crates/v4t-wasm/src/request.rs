//! What the page asks for: the template text and a request (JSON) with the
//! files beside it, the variant (presets, inputs) and per-command settings,
//! read into the library's types.

use v4t::{Code, Diagnostic, MemoryFiles, ResolveOptions, SourceId, Sources};
use v4t_yaml::{Map, Node};

/// The largest template, extra file or inputs text the playground reads
/// (bytes): larger texts are refused with an error instead of keeping the
/// worker busy for long.
pub const MAX_TEXT_BYTES: usize = 2 * 1024 * 1024;

/// The name of the template in diagnostics.
pub const TEMPLATE_NAME: &str = "template.yaml";

/// The name of the inputs text in diagnostics.
pub const INPUTS_NAME: &str = "inputs";

/// One request, read: the texts, the files beside the template and the
/// settings.
pub struct Request {
    /// Every text: the template first, then the inputs.
    pub sources: Sources,
    /// The template's id in `sources`.
    pub template: SourceId,
    /// The files beside the template (`lib/`, imports), by relative path.
    pub files: MemoryFiles,
    /// The variant: presets and inputs (no decision report).
    pub variant: ResolveOptions,
    /// The elements to explain (ids or node names; empty: all).
    pub elements: Vec<String>,
    /// The drawing's format: `dot`, `mermaid` or `plantuml`.
    pub format: String,
    /// Draw the variant instead of the variable template.
    pub resolved: bool,
}

/// Reads `template` and the request `json`: an object with `files` (path →
/// text), `presets` (names), `inputs` (the text of a JSON or YAML map),
/// `elements` (to explain), `format` and `resolved` (to draw), `validate`
/// (validate the resolved template) and `now_ms` (the clock, for date
/// operators). Every key may be missing. The error is the diagnostic to
/// show, with the sources its span points into.
pub fn read(template: &str, json: &str) -> Result<Request, (Sources, Diagnostic)> {
    let mut sources = Sources::new();
    let fail = |sources: Sources, d: Diagnostic| Err((sources, d));
    if template.len() > MAX_TEXT_BYTES {
        return fail(sources, too_large(TEMPLATE_NAME, template.len()));
    }
    let id = sources.add(TEMPLATE_NAME, template);
    let request = match v4t_yaml::parse(json, SourceId(u32::MAX - 1)) {
        Ok(node) if node.as_map().is_some() || node.is_null() => node,
        _ => {
            let message = "internal error: the request is not a JSON object";
            return fail(sources, Diagnostic::error(Code::Internal, message));
        }
    };
    let mut files = MemoryFiles::new();
    for (path, text) in request
        .get("files")
        .and_then(Node::as_map)
        .into_iter()
        .flat_map(Map::iter)
    {
        let text = text.as_str().unwrap_or_default();
        if text.len() > MAX_TEXT_BYTES {
            return fail(sources, too_large(&path.name, text.len()));
        }
        files.insert(path.name.to_string(), text);
    }
    let inputs = match request.get("inputs").and_then(Node::as_str) {
        Some(text) if !text.trim().is_empty() => Some(inputs(&mut sources, text)?),
        _ => None,
    };
    let variant = ResolveOptions {
        presets: strings(request.get("presets")),
        inputs,
        now_ms: request.get("now_ms").and_then(Node::as_f64),
        report: false,
        validate: flag(request.get("validate")),
        ..ResolveOptions::default()
    };
    Ok(Request {
        sources,
        template: id,
        files,
        variant,
        elements: strings(request.get("elements")),
        format: request
            .get("format")
            .and_then(Node::as_str)
            .unwrap_or("mermaid")
            .to_string(),
        resolved: flag(request.get("resolved")),
    })
}

/// The error for a text of `len` bytes named `name` that is too large.
fn too_large(name: &str, len: usize) -> Diagnostic {
    let message = format!(
        "\"{name}\" is too large: {:.1} MB; the playground reads up to {} MB (use the command line for larger templates)",
        len as f64 / 1_048_576.0,
        MAX_TEXT_BYTES / 1_048_576
    );
    Diagnostic::error(Code::Encoding, message)
}

/// The inputs `text` (a JSON or YAML map) added to `sources` and parsed.
fn inputs(sources: &mut Sources, text: &str) -> Result<Node, (Sources, Diagnostic)> {
    if text.len() > MAX_TEXT_BYTES {
        return Err((sources.clone(), too_large(INPUTS_NAME, text.len())));
    }
    let id = sources.add(INPUTS_NAME, text);
    match v4t_yaml::parse(text, id) {
        Ok(node) if node.as_map().is_some() => Ok(node),
        Ok(node) => {
            let message = "the variability inputs must be a map of input names to values";
            let d = Diagnostic::error(Code::InvalidInput, message).at(node.span);
            Err((sources.clone(), d))
        }
        Err(e) => {
            let d = Diagnostic::error(Code::Yaml, e.message.clone()).at(e.span);
            Err((sources.clone(), d))
        }
    }
}

/// A list of strings (`null` and other values: empty).
fn strings(node: Option<&Node>) -> Vec<String> {
    node.and_then(Node::as_seq)
        .map(|items| {
            items
                .iter()
                .filter_map(Node::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Whether a setting is `true`.
fn flag(node: Option<&Node>) -> bool {
    node.and_then(Node::as_bool).unwrap_or(false)
}
