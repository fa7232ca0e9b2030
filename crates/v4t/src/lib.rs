//! v4t: a Variability4TOSCA processor.
//!
//! Resolves a *variable service template* (TOSCA with conditional elements)
//! into a plain TOSCA Simple Profile 1.3 template (or a TOSCA 2.0 one for a
//! template on TOSCA 2.0), following the
//! Variability4TOSCA specification and the observable behaviour of the
//! reference implementation, OpenTOSCA Vintner.
//!
//! The library does no I/O: texts come in through [`Sources`] and a
//! [`Loader`] (the command line's reads files beside the template; [`NoFiles`]
//! reads none). Failures are [`Error`]s: a [`Diagnostic`] with the
//! reference's message, a stable [`Code`], the range of the offending node
//! and notes.
//!
//! ```
//! use v4t::{resolve, NoFiles, ResolveOptions, Sources};
//!
//! let template = "
//! tosca_definitions_version: tosca_variability_1_0
//! topology_template:
//!   variability:
//!     inputs:
//!       prod: {type: boolean}
//!     options: {type_default_condition: true}
//!   node_templates:
//!     small: {type: tosca.nodes.Compute, conditions: {not: {variability_input: prod}}}
//!     large: {type: tosca.nodes.Compute, conditions: {variability_input: prod}}
//! ";
//! let mut sources = Sources::new();
//! let id = sources.add("template.yaml", template);
//! let options = ResolveOptions {
//!     inputs: Some(v4t_yaml::parse("prod: true", v4t::SourceId(1)).unwrap()),
//!     ..ResolveOptions::default()
//! };
//! let resolved = resolve(&mut sources, id, &mut NoFiles, &options).unwrap();
//! let nodes = resolved.template.get("topology_template").and_then(|t| t.get("node_templates"));
//! assert!(nodes.and_then(|n| n.get("large")).is_some());
//! assert!(nodes.and_then(|n| n.get("small")).is_none());
//! ```
//!
//! # Stages
//! The pipeline ([`resolve`]) runs these modules in order; each module's
//! documentation states its input, output and invariants.
//! 1. `load`: parse the template (as its base grammar, TOSCA 1.3 or 2.0,
//!    reads), pull in type-specific conditions, technology rules and `lib/`
//!    types; `validate` checks shapes, `lint` finds probable mistakes;
//!    `types` builds the type system (the TOSCA layer's, with the template's
//!    imports).
//! 2. `config`: the definitions version, the base grammar and the options,
//!    read once.
//! 3. `normalize`: rewrite map and list forms into one canonical shape.
//! 4. `graph`: build the element graph (typed ids, names, containers).
//! 5. `enrich`: technologies, default and pruning conditions, constraints.
//! 6. `inputs`: presets and variability input assignments.
//! 7. `solve`: encode conditions into SAT, solve and optimise.
//! 8. `check`: consistency and semantic checks of the result (on TOSCA 2.0
//!    also `references`).
//! 9. `transform`: write the variability-resolved template; `verify`
//!    validates it with the TOSCA layer on request.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(unreachable_pub)]

pub mod analyze;
mod check;
mod config;
mod document;
pub mod draw;
mod enrich;
mod error;
pub mod explain;
mod functions;
mod graph;
mod inputs;
mod kind;
mod lint;
mod load;
mod logic;
mod normalize;
mod options;
mod readable;
mod reason;
mod references;
mod report;
mod solve;
mod stats;
mod suggest;
mod texts;
mod transform;
mod types;
mod validate;
mod verify;
mod version;

#[cfg(test)]
mod testing;

pub use config::Grammar;
use config::{Config, Version};
pub use document::collection_entries;
pub use error::{Error, Result};
pub use lint::{keynames, Entity};
pub use logic::operator_names;
pub use readable::logic as readable_condition;
pub use report::{ElementDecision, Report, TechnologyChoice};
pub use stats::{stats, Stats};
pub use v4t_expr::deep_merge;
pub use v4t_source::{
    join_import, Code, Diagnostic, Loader, MemoryFiles, NoFiles, Note, Severity, SourceFile,
    Sources,
};
pub use v4t_yaml::{Node, SourceId, Span, Value};
pub use version::grammar_of;

/// What to resolve with.
#[derive(Clone, Debug)]
pub struct ResolveOptions {
    /// Variability presets, applied in order.
    pub presets: Vec<String>,
    /// Variability input assignments (a map), merged over the presets.
    pub inputs: Option<Node>,
    /// Run the enricher first (default and pruning conditions, constraints,
    /// technologies). The conformance tests and `v4t resolve` enrich.
    pub enrich: bool,
    /// The current time in milliseconds since the epoch, for date operators
    /// (`weekday`). `None` means the epoch; the CLI passes the real clock.
    pub now_ms: Option<f64>,
    /// Build [`Resolved::report`] (otherwise it stays empty).
    pub report: bool,
    /// Validate the resolved template with the TOSCA layer before returning
    /// it (`--validate`): an invalid result is an error ([`Code::InvalidOutput`]).
    pub validate: bool,
    /// The name of the resolved template in diagnostics of `validate` (the
    /// output file; default: the template's name with ` (resolved)`).
    pub output_name: Option<String>,
    /// Free the intermediate structures (document, graph, solution). A
    /// process that exits right after resolving (the CLI) sets this to
    /// `false` and leaves them to the operating system, which is faster
    /// than freeing millions of small allocations.
    pub free_memory: bool,
}

impl Default for ResolveOptions {
    fn default() -> Self {
        ResolveOptions {
            presets: Vec::new(),
            inputs: None,
            enrich: true,
            now_ms: None,
            report: true,
            validate: false,
            output_name: None,
            free_memory: true,
        }
    }
}

/// A variability-resolved service template.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The resolved TOSCA document.
    pub template: Node,
    /// What was decided: element presence, technologies, objectives, inputs.
    pub report: report::Report,
}

/// Resolves the variable service template `template` (already added to `sources`).
pub fn resolve(
    sources: &mut Sources,
    template: SourceId,
    loader: &mut dyn Loader,
    options: &ResolveOptions,
) -> Result<Resolved> {
    resolve_with_warnings(sources, template, loader, options, &mut Vec::new())
}

/// [`resolve`], adding the probable mistakes found on the way (warnings:
/// assignments to undeclared variability inputs) to `warnings`, whether or
/// not resolution succeeds: a typo is often the cause of a failure.
/// Warnings never change the result.
pub fn resolve_with_warnings(
    sources: &mut Sources,
    template: SourceId,
    loader: &mut dyn Loader,
    options: &ResolveOptions,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Resolved> {
    resolve_observed(sources, template, loader, options, &mut |_| {}, warnings)
}

/// The pipeline stages [`resolve_observed`] reports, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Parsing the template and loading types, rules and conditions.
    Load,
    /// Technology, condition and constraint enrichment.
    Enrich,
    /// Input assignment, normalisation and the resolver graph.
    Graph,
    /// Encoding, solving and optimisation.
    Solve,
    /// Consistency checks and the decision report.
    Check,
    /// Writing the resolved document.
    Transform,
}

/// [`resolve_with_warnings`], calling `observe` as each stage finishes
/// (used by the benchmark).
pub fn resolve_observed(
    sources: &mut Sources,
    template: SourceId,
    loader: &mut dyn Loader,
    options: &ResolveOptions,
    observe: &mut dyn FnMut(Stage),
    warnings: &mut Vec<Diagnostic>,
) -> Result<Resolved> {
    let template_id = template;
    let (prepared, assigned) =
        prepare_variant(sources, template, loader, options, observe, warnings)?;
    let Prepared {
        mut doc,
        mut graph,
        loaded,
        files,
        ..
    } = prepared;
    let types = files.system();
    let now_ms = options.now_ms.unwrap_or(0.0);
    inputs::validate(&doc, &assigned, now_ms, &types, sources).map_err(code(Code::InvalidInput))?;
    observe(Stage::Graph);
    let solution = match solve::solve_releasing((&doc).into(), &mut graph, &types, assigned, now_ms)
    {
        Ok(solution) => solution,
        Err(e) if e.code == Code::Unsatisfiable => {
            let explained = unsatisfiable_explained(sources, template_id, loader, options);
            return Err(code(Code::InvalidCondition)(explained.unwrap_or(e)));
        }
        Err(e) => return Err(code(Code::InvalidCondition)(e)),
    };
    observe(Stage::Solve);
    check::check(&graph, &solution).map_err(code(Code::Inconsistent))?;
    check_references(&doc, &graph, &solution, &types)?;
    if graph.grammar() == Grammar::Tosca2 {
        warnings.extend(references::count_range_warnings(&graph, &solution, &types));
    }
    let report = if options.report {
        report::Report::new(&graph, &solution)
    } else {
        report::Report::default()
    };
    observe(Stage::Check);
    let template = transform::transform(
        transform::Source::Moved(&mut doc),
        &graph,
        &solution,
        &loaded,
        &types,
    )
    .map_err(code(Code::Output))?;
    if options.validate {
        let name = options.output_name.as_deref();
        verify::verify(sources, template_id, loader, &template, name)?;
    }
    observe(Stage::Transform);
    if !options.free_memory {
        std::mem::forget(doc);
        std::mem::forget(graph);
        std::mem::forget(solution);
    }
    Ok(Resolved { template, report })
}

/// The error of solving `template` again on a graph built anew, with the
/// notes that name a minimal set of conflicting parts: resolving let its
/// graph drop the conditions they name ([`solve::solve_releasing`]). Only a
/// failing resolve pays for the second build.
fn unsatisfiable_explained(
    sources: &mut Sources,
    template: SourceId,
    loader: &mut dyn Loader,
    options: &ResolveOptions,
) -> Option<Error> {
    let quiet = &mut Vec::new();
    let (prepared, assigned) =
        prepare_variant(sources, template, loader, options, &mut |_| {}, quiet).ok()?;
    let types = prepared.files.system();
    let now_ms = options.now_ms.unwrap_or(0.0);
    solve::solve(&prepared.doc, &prepared.graph, &types, assigned, now_ms).err()
}

/// Solves and checks one input assignment on a prepared graph, with the
/// codes resolving gives each stage's errors (what drawing a variant and
/// analysing presets or topologies share with [`resolve_observed`]).
fn solve_checked<'d>(
    doc: impl Into<v4t_yaml::NodeRef<'d>>,
    graph: &graph::Graph,
    (types, sources): (&types::TypeSystem<'_>, &Sources),
    assigned: v4t_yaml::Map,
    now_ms: f64,
) -> Result<solve::Solution> {
    let doc = doc.into();
    inputs::validate(doc, &assigned, now_ms, types, sources).map_err(code(Code::InvalidInput))?;
    let solution =
        solve::solve(doc, graph, types, assigned, now_ms).map_err(code(Code::InvalidCondition))?;
    check::check(graph, &solution).map_err(code(Code::Inconsistent))?;
    Ok(solution)
}

/// The TOSCA 2.0 references V4T's checks do not cover (a no-op on TOSCA
/// 1.3) on one solution: after [`solve_checked`] wherever a variant is
/// resolved.
fn check_references<'d>(
    doc: impl Into<v4t_yaml::NodeRef<'d>>,
    graph: &graph::Graph,
    solution: &solve::Solution,
    types: &types::TypeSystem<'_>,
) -> Result<()> {
    let mut one = check::OneSolution { solution, graph };
    references::checks(doc.into(), graph, types, &mut one)
}

/// A template up to the resolver graph (what resolving and analysing share).
struct Prepared {
    doc: Node,
    graph: graph::Graph,
    loaded: load::LoadedTypes,
    /// The documents the template's types come from: the stages after the
    /// graph build their type system from them ([`types::TypeFiles::system`]).
    files: types::TypeFiles,
}

/// Loads, checks, enriches (unless `enrich` is `None`; it says what becomes
/// of the generated constraints) and normalises the template and builds
/// the resolver graph, adding lint warnings to `warnings`. `between`
/// runs after enrichment, where resolving assigns the inputs (so its errors
/// come in the same order). Reports [`Stage::Load`] and [`Stage::Enrich`];
/// the caller reports [`Stage::Graph`].
fn prepare(
    sources: &mut Sources,
    template: SourceId,
    loader: &mut dyn Loader,
    enrich: Option<enrich::Constraints>,
    between: &mut dyn FnMut(&Node, &mut Vec<Diagnostic>) -> Result<()>,
    observe: &mut dyn FnMut(Stage),
    warnings: &mut Vec<Diagnostic>,
) -> Result<Prepared> {
    let (mut doc, loaded, version, grammar) = load_checked(sources, template, loader)?;
    warnings.extend(lint::lint(&doc));
    let files = types::TypeFiles::load(&mut doc, grammar, sources, template, loader)?;
    let types = files.system();
    observe(Stage::Load);
    let enriched = match enrich {
        Some(constraints) => {
            let enriched = enrich::enrich_for_resolving(&mut doc, version, &types, constraints);
            Some(enriched.map_err(code(Code::InvalidCondition))?)
        }
        None => None,
    };
    observe(Stage::Enrich);
    between(&doc, warnings)?;
    let graph = resolver_graph(&mut doc, version, &types, enriched)?;
    drop(types);
    Ok(Prepared {
        doc,
        graph,
        loaded,
        files,
    })
}

/// [`prepare`] for the one variant `options` selects (resolve, explain,
/// draw): its presets and inputs are assigned after enrichment, where
/// resolving reads them; returns the assignment with the prepared template.
fn prepare_variant(
    sources: &mut Sources,
    template: SourceId,
    loader: &mut dyn Loader,
    options: &ResolveOptions,
    observe: &mut dyn FnMut(Stage),
    warnings: &mut Vec<Diagnostic>,
) -> Result<(Prepared, v4t_yaml::Map)> {
    let mut assigned = v4t_yaml::Map::new();
    let prepared = prepare(
        sources,
        template,
        loader,
        enrichment(options.enrich),
        &mut |doc, warnings| {
            assigned = inputs::assign(doc, &options.presets, options.inputs.as_ref(), warnings)
                .map_err(code(Code::InvalidInput))?;
            Ok(())
        },
        observe,
        warnings,
    )?;
    Ok((prepared, assigned))
}

/// What [`prepare`] enriches when `enrich` (the option) is on: everything
/// the encoder reads.
fn enrichment(enrich: bool) -> Option<enrich::Constraints> {
    enrich.then_some(enrich::Constraints::Kept)
}

/// Enriches the variable service template `template`: the template with every
/// generated condition and constraint made explicit (`v4t enrich`).
pub fn enrich(sources: &mut Sources, template: SourceId, loader: &mut dyn Loader) -> Result<Node> {
    let (mut doc, loaded, version, grammar) = load_checked(sources, template, loader)?;
    let files = types::TypeFiles::load(&mut doc, grammar, sources, template, loader)?;
    let types = files.system();
    enrich::enrich(&mut doc, version, &types).map_err(code(Code::InvalidCondition))?;
    if let Some(root) = doc.as_map_mut() {
        files.copy_types_into(root);
    }
    load::remove_loaded_types(&mut doc, &loaded);
    Ok(doc)
}

/// Writes a document of v4t (a resolved or enriched template) as YAML: a
/// TOSCA 2.0 document with every value as it was written (`1.0` stays a
/// float, a date a string: [`v4t_yaml::Style::AsWritten`]), a TOSCA 1.3 one
/// as the reference writes it.
pub fn to_yaml(doc: &Node) -> String {
    let style = match crate::version::grammar_of(doc) {
        Grammar::Tosca13 => v4t_yaml::Style::JsYaml,
        Grammar::Tosca2 => v4t_yaml::Style::AsWritten,
    };
    v4t_yaml::emit_with(doc, style)
}

/// Loads the template and checks its version, base grammar and shape.
fn load_checked(
    sources: &mut Sources,
    template: SourceId,
    loader: &mut dyn Loader,
) -> Result<(Node, load::LoadedTypes, Version, Grammar)> {
    let (doc, loaded, grammar) =
        load::load(sources, template, loader).map_err(code(Code::InvalidShape))?;
    let version = Version::of(&doc).map_err(code(Code::DefinitionsVersion))?;
    validate::validate(&doc).map_err(code(Code::InvalidShape))?;
    Ok((doc, loaded, version, grammar))
}

/// The resolver graph: the enricher's graph #2 when
/// it kept one (`enriched`), else a graph built from `doc`. The resolver
/// reads conditions only through the graph; the output drops them.
fn resolver_graph(
    doc: &mut Node,
    version: Version,
    types: &types::TypeSystem<'_>,
    enriched: Option<(Config, Option<graph::Graph>)>,
) -> Result<graph::Graph> {
    match &enriched {
        // The enricher left its graph and a normalised document.
        Some((_, Some(_))) => {}
        // The enricher's first normalisation deleted the option.
        Some((_, None)) => normalize::normalize(doc, false, normalize::TypeShape::List)
            .map_err(code(Code::InvalidShape))?,
        None => {
            let automatic = options::automatic_default_alternatives(document::options(&*doc))?;
            normalize::normalize(doc, automatic, normalize::TypeShape::List)
                .map_err(code(Code::InvalidShape))?;
        }
    }
    let (Config { resolver, .. }, kept) = match enriched {
        Some((config, kept)) => (config, kept),
        None => {
            let config = Config::read(&*doc, version, false).map_err(code(Code::InvalidShape))?;
            (config, None)
        }
    };
    let graph = match kept {
        Some(g2) => graph::rebuild(&*doc, types, g2, resolver),
        None => graph::build_moving_conditions(doc, &resolver, types, false, None),
    }
    .map_err(code(Code::UndefinedReference))?;
    graph.release_technology_lists(doc);
    Ok(graph)
}

/// Gives a stage's errors the stage's code unless they have a more specific one.
fn code(code: Code) -> impl Fn(Error) -> Error {
    move |e| e.or_code(code)
}
