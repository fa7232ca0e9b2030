//! v4t in the browser: the library's commands for the playground (`web/`),
//! exported with `wasm-bindgen`.
//!
//! Every command takes the template text and a request (JSON, see
//! [`request::read`]: the files beside the template, presets, inputs and
//! the command's settings) and returns one JSON object: `ok`, the
//! command's result, and `diagnostics` (each as [`v4t::Diagnostic::to_json`]
//! writes it: message, code, `file`, `line`, `column`, ...). Nothing here
//! touches a file system: the files beside the template come from the
//! request through [`v4t::MemoryFiles`]. The functions are plain Rust on
//! other targets, which is how the tests run them.
#![forbid(unsafe_code)]

pub mod request;
mod response;
mod variability;

use v4t::analyze::AnalyzeOptions;
use v4t::draw::{DrawOptions, Format};
use v4t::explain::ExplainOptions;
use v4t::{Loader, Sources};
use wasm_bindgen::prelude::wasm_bindgen;

use request::{Request, TEMPLATE_NAME};
use response::Response;

/// The version of v4t.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// Resolves the variant the request's presets and inputs select:
/// `output` (the resolved template as YAML) when `ok`; warnings and errors
/// in `diagnostics`.
#[wasm_bindgen]
pub fn resolve(template: &str, request: &str) -> String {
    with_request(template, request, |mut r| {
        let mut warnings = Vec::new();
        let outcome = v4t::resolve_with_warnings(
            &mut r.sources,
            r.template,
            &mut r.files,
            &r.variant,
            &mut warnings,
        );
        let mut response = Response::new(outcome.is_ok());
        match outcome {
            Ok(resolved) => response.string("output", &v4t::to_yaml(&resolved.template)),
            Err(e) => warnings.extend(e.diagnostics().cloned()),
        }
        response.diagnostics(&r.sources, &warnings)
    })
}

/// The enriched template (`v4t enrich`) as `output`.
#[wasm_bindgen]
pub fn enrich(template: &str, request: &str) -> String {
    with_request(template, request, |mut r| {
        match v4t::enrich(&mut r.sources, r.template, &mut r.files) {
            Ok(doc) => {
                let mut response = Response::new(true);
                response.string("output", &v4t::to_yaml(&doc));
                response.diagnostics(&r.sources, &[])
            }
            Err(e) => failed(&r.sources, &e),
        }
    })
}

/// Validates the template as TOSCA 2.0 or 1.3 with the files beside it
/// (`v4t validate`): `ok` when there is no error.
#[wasm_bindgen]
pub fn validate(template: &str, request: &str) -> String {
    with_request(template, request, |mut r| {
        r.files.insert(TEMPLATE_NAME, template);
        let mut sources = Sources::new();
        let loaded = v4t_tosca::load(&mut sources, &mut r.files as &mut dyn Loader, TEMPLATE_NAME);
        let types = v4t_tosca::TypeSystem::build(&loaded);
        let diagnostics = v4t_tosca::validate(&types, &sources).into_sorted();
        let response = Response::new(!diagnostics.iter().any(|d| d.is_error()));
        response.diagnostics(&sources, &diagnostics)
    })
}

/// Why each element of the variant is present or absent (`v4t explain`):
/// `explanation` as `v4t explain --format json` prints it; `ok` when the
/// variant resolves.
#[wasm_bindgen]
pub fn explain(template: &str, request: &str) -> String {
    with_request(template, request, |mut r| {
        let options = ExplainOptions {
            variant: r.variant.clone(),
            elements: r.elements.clone(),
        };
        match v4t::explain::explain(&mut r.sources, r.template, &mut r.files, &options) {
            Ok(explanation) => {
                let mut response = Response::new(explanation.error.is_none());
                response.node("explanation", &explanation.to_node(&r.sources));
                let mut diagnostics = explanation.warnings.clone();
                diagnostics.extend(
                    explanation
                        .error
                        .iter()
                        .flat_map(|e| e.diagnostics().cloned()),
                );
                response.diagnostics(&r.sources, &diagnostics)
            }
            Err(e) => failed(&r.sources, &e),
        }
    })
}

/// Questions about every configuration (`v4t analyze`): `analysis` as
/// `v4t analyze --format json` prints it (counts, dead and core elements,
/// failing configurations, presets); `ok` when the analysis ran.
#[wasm_bindgen]
pub fn analyze(template: &str, request: &str) -> String {
    with_request(template, request, |mut r| {
        let options = AnalyzeOptions {
            now_ms: r.variant.now_ms,
            ..AnalyzeOptions::default()
        };
        match v4t::analyze::analyze(&mut r.sources, r.template, &mut r.files, &options) {
            Ok(analysis) => {
                let mut response = Response::new(true);
                response.node("analysis", &analysis.to_node(&r.sources));
                response.diagnostics(&r.sources, &analysis.warnings)
            }
            Err(e) => failed(&r.sources, &e),
        }
    })
}

/// The topology (`v4t graph`) as `graph`, in the request's `format`
/// (`dot`, `mermaid`, `plantuml`); the variant when `resolved`, else the
/// variable template with its conditions.
#[wasm_bindgen]
pub fn graph(template: &str, request: &str) -> String {
    with_request(template, request, |mut r| {
        let format = match r.format.as_str() {
            "dot" => Format::Dot,
            "plantuml" => Format::PlantUml,
            "svg" => Format::Svg,
            _ => Format::Mermaid,
        };
        let options = DrawOptions {
            resolved: r.resolved.then(|| r.variant.clone()),
            artifacts: false,
            format,
        };
        match v4t::draw::draw(&mut r.sources, r.template, &mut r.files, &options) {
            Ok(text) => {
                let mut response = Response::new(true);
                response.string("graph", &text);
                response.diagnostics(&r.sources, &[])
            }
            Err(e) => failed(&r.sources, &e),
        }
    })
}

/// The presets and inputs the template's `variability` section declares,
/// for the page's pickers: `presets` (`name`, `title`, `description`) and
/// `inputs` (`name`, `type`, `default`, `values`: the allowed values where
/// the input lists them). Never fails: a template that cannot be read has
/// none.
#[wasm_bindgen]
pub fn variability(template: &str) -> String {
    variability::describe(template)
}

/// The entry template of a CSAR (`files`: a JSON object of its paths, the
/// text of `TOSCA.meta` as its value, any value for the others):
/// `Entry-Definitions` of `TOSCA.meta`, else the only YAML file at the
/// root, as `entry`; an error in `diagnostics` otherwise.
#[wasm_bindgen]
pub fn csar_entry(files: &str) -> String {
    let listed = v4t_yaml::parse(files, v4t::SourceId(0)).ok();
    let mut loader = v4t::MemoryFiles::new();
    for (path, text) in listed
        .iter()
        .filter_map(|l| l.as_map())
        .flat_map(|m| m.iter())
    {
        loader.insert(path.name.to_string(), text.as_str().unwrap_or_default());
    }
    match v4t_tosca::csar::entry_of(&mut loader) {
        Ok(entry) => {
            let mut response = Response::new(true);
            response.string("entry", &entry);
            response.diagnostics(&Sources::new(), &[])
        }
        Err(e) => {
            let message = format!("not a valid CSAR: {e}");
            let d = v4t::Diagnostic::error(v4t::Code::Csar, message);
            Response::new(false).diagnostics(&Sources::new(), &[d])
        }
    }
}

/// Runs `command` on the request read from `template` and `request`, or
/// answers with the error that keeps it from being read.
fn with_request(template: &str, request: &str, command: impl FnOnce(Request) -> String) -> String {
    match request::read(template, request) {
        Ok(r) => command(r),
        Err((sources, d)) => Response::new(false).diagnostics(&sources, &[d]),
    }
}

/// The answer for a library error: its diagnostics.
fn failed(sources: &Sources, e: &v4t::Error) -> String {
    let diagnostics: Vec<v4t::Diagnostic> = e.diagnostics().cloned().collect();
    Response::new(false).diagnostics(sources, &diagnostics)
}

#[cfg(test)]
mod tests;
