//! `v4t resolve` and `v4t enrich`: read a variable service template (a
//! file, standard input or a zipped CSAR) and its inputs, run the library,
//! and write the result.
//!
//! All I/O of a resolution happens here: reading the template and the
//! inputs file, the environment, the clock, and writing the output
//! atomically so that a failed run never leaves a half-written or clobbered
//! file behind. Output paths are checked before any work: the result may
//! not overwrite the template or the inputs file, and the report may not
//! share a destination with the result.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use v4t::{Code, Diagnostic, ResolveOptions, SourceId, Sources};
use v4t_yaml::{Map, Node};

use crate::diagnostics::{catch_panic, ColorChoice, Reporter};
use crate::files::{same_file, write_atomically};
use crate::inputs::{assignment_value, env_inputs, inputs_from_file};
use crate::{EnrichArgs, ResolveArgs, VariantArgs, EXIT_FAILURE, EXIT_OK, EXIT_USAGE};
use v4t_files::csar::Archive;
use v4t_files::fs_loader::AnyLoader;
use v4t_files::open::{add_text, OpenError, Template};
use v4t_files::read::{read_bytes, MAX_INPUT_BYTES};

/// The format of the result (`--output-format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// YAML (the default).
    Yaml,
    /// JSON, pretty-printed.
    Json,
    /// A zipped CSAR: the input archive (or just the template) with the
    /// result in place of the template.
    Csar,
}

impl OutputFormat {
    /// The format `--output-format` names, or else the one the output
    /// file's extension suggests.
    fn choose(given: Option<OutputFormat>, output: Option<&Path>) -> OutputFormat {
        given.unwrap_or_else(|| match output {
            Some(p) if v4t_files::csar::has_archive_extension(p) => OutputFormat::Csar,
            Some(p)
                if p.extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("json")) =>
            {
                OutputFormat::Json
            }
            _ => OutputFormat::Yaml,
        })
    }
}

/// Reports why a template or inputs file could not be opened; returns the
/// exit code (2 for a file that cannot be read, 1 for invalid input).
fn report_open_error(error: OpenError, reporter: &Reporter) -> u8 {
    match error {
        OpenError::Usage(code, message) => {
            reporter.error(code, &message);
            EXIT_USAGE
        }
        OpenError::Invalid(sources, diagnostic) => {
            reporter.report(&sources, &diagnostic);
            EXIT_FAILURE
        }
    }
}

/// The variability inputs of the command line: the environment and the
/// inputs `file` (only when given), then the `--input` assignments; `None`
/// if there are none. On failure the error is reported and the exit code
/// returned.
pub fn read_inputs(
    sources: &mut Sources,
    file: Option<&Path>,
    assignments: &[(String, String)],
    reporter: &Reporter,
) -> Result<Option<Node>, u8> {
    let mut inputs: Option<Node> = None;
    if let Some(path) = file {
        let name = path.display().to_string();
        let read = read_bytes(path, MAX_INPUT_BYTES)
            .map_err(|e| {
                let message = format!("could not read inputs file \"{name}\": {e}");
                OpenError::Usage(Code::File, message)
            })
            .and_then(|bytes| {
                // Parsed from `sources` below: only its id is needed here.
                add_text(sources, &name, bytes)
                    .map_err(|d| OpenError::Invalid(Box::new(sources.clone()), d))
            });
        let id = match read {
            Ok(id) => id,
            Err(e) => return Err(report_open_error(e, reporter)),
        };
        match inputs_from_file(sources, &env_inputs(), id) {
            Ok(map) => inputs = Some(map),
            Err(e) => {
                reporter.report_error(sources, &e);
                return Err(EXIT_FAILURE);
            }
        }
    }
    for (name, value) in assignments {
        let map = inputs.get_or_insert_with(|| Node::map(Map::new()));
        if let Some(map) = map.as_map_mut() {
            map.insert(name.as_str(), assignment_value(value));
        }
    }
    Ok(inputs)
}

/// Reads the template named on the command line for a command that only
/// reads it (`analyze`, and through [`open_variant`] `explain` and `graph`):
/// its sources, id and loader, or the exit code
/// after reporting why it cannot be read.
pub fn open_template(
    reporter: &Reporter,
    template: &str,
) -> Result<(Sources, SourceId, AnyLoader), u8> {
    v4t_files::open::open_template(template)
        .map(|t| (t.sources, t.id, t.loader))
        .map_err(|e| report_open_error(e, reporter))
}

/// Reads the template and the variant's inputs for a command that resolves
/// one variant on the way (`explain`, `graph`): its sources, id, loader and
/// the options that resolve the variant (no report), or the exit code after
/// reporting what cannot be read.
pub fn open_variant(
    reporter: &Reporter,
    template: &str,
    variant: &VariantArgs,
) -> Result<(Sources, SourceId, AnyLoader, ResolveOptions), u8> {
    let (mut sources, id, loader) = open_template(reporter, template)?;
    let inputs = read_inputs(
        &mut sources,
        variant.inputs.as_deref(),
        &variant.input,
        reporter,
    )?;
    let options = ResolveOptions {
        presets: presets(&variant.presets),
        inputs,
        now_ms: Some(now_ms()),
        report: false,
        ..ResolveOptions::default()
    };
    Ok((sources, id, loader, options))
}

/// The output file, unless it is standard output (`-` or absent).
fn output_file(output: Option<&Path>) -> Option<&Path> {
    output.filter(|p| p.as_os_str() != "-")
}

/// Refuses output paths that would destroy an input or lose a result.
fn check_destinations(
    template: &str,
    inputs: Option<&Path>,
    output: Option<&Path>,
    report: Option<&Path>,
) -> Result<(), String> {
    let template = (template != "-").then(|| Path::new(template));
    let named_inputs = [("the template", template), ("the inputs file", inputs)];
    for (what, destination) in [("the result", output_file(output)), ("the report", report)] {
        let Some(destination) = destination.filter(|p| p.as_os_str() != "-") else {
            continue;
        };
        for (input_name, input) in named_inputs {
            if input.is_some_and(|i| same_file(i, destination)) {
                return Err(format!(
                    "refusing to write {what} to \"{}\": it is {input_name}",
                    destination.display()
                ));
            }
        }
    }
    match (output_file(output), report) {
        (None, Some(r)) if r.as_os_str() == "-" => {
            Err("--report - needs --output FILE: standard output already carries the result".into())
        }
        (Some(o), Some(r)) if same_file(o, r) => Err(format!(
            "--report and --output both name \"{}\"; the report would be lost",
            r.display()
        )),
        _ => Ok(()),
    }
}

/// Checks the destinations (result, report) against the inputs, then
/// reads the template; a problem is reported as a usage error.
fn open(
    reporter: &Reporter,
    template: &str,
    inputs: Option<&Path>,
    [output, report]: [Option<&Path>; 2],
) -> Result<Template, u8> {
    check_destinations(template, inputs, output, report)
        .map_err(|e| OpenError::Usage(Code::Write, e))
        .and_then(|()| v4t_files::open::open_template(template))
        .map_err(|e| report_open_error(e, reporter))
}

/// Prints what the loader skipped and the library's warnings.
fn print_warnings(
    reporter: &Reporter,
    sources: &Sources,
    loader: &AnyLoader,
    warnings: &[v4t::Diagnostic],
) {
    for w in loader.warnings() {
        reporter.report(sources, &Diagnostic::warning(Code::SkippedFile, w.as_str()));
    }
    print_notes(reporter, loader);
    for w in warnings {
        reporter.report(sources, w);
    }
}

/// Prints which dependencies were read from their source.
pub fn print_notes(reporter: &Reporter, loader: &AnyLoader) {
    for note in loader.notes() {
        reporter.note(note);
    }
}

/// Runs `v4t resolve` and returns the exit code.
pub fn run(args: &ResolveArgs, color: ColorChoice) -> u8 {
    let reporter = Reporter::to_stderr(args.flags.format, color, args.flags.quiet);
    let code = resolve(args, &reporter);
    reporter.finish();
    code
}

/// Resolves and reports; returns the exit code.
fn resolve(args: &ResolveArgs, reporter: &Reporter) -> u8 {
    let flags = &args.flags;
    let destinations = [flags.output.as_deref(), flags.report.as_deref()];
    let Template {
        mut sources,
        id,
        mut loader,
        archive,
    } = match open(
        reporter,
        &args.template,
        flags.inputs.as_deref(),
        destinations,
    ) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let format = OutputFormat::choose(flags.output_format, output_file(flags.output.as_deref()));

    let inputs = match read_inputs(
        &mut sources,
        flags.inputs.as_deref(),
        &flags.input,
        reporter,
    ) {
        Ok(inputs) => inputs,
        Err(code) => return code,
    };

    let options = ResolveOptions {
        presets: presets(&args.presets),
        inputs,
        enrich: true,
        now_ms: Some(now_ms()),
        report: flags.report.is_some(),
        validate: flags.validate,
        output_name: output_file(flags.output.as_deref()).map(|p| p.display().to_string()),
        // The process ends after writing the result.
        free_memory: false,
    };

    let mut warnings = Vec::new();
    let outcome = catch_panic(|| {
        v4t::resolve_with_warnings(&mut sources, id, &mut loader, &options, &mut warnings).map(
            |resolved| {
                let report = flags.report.as_ref().map(|path| {
                    let node = resolved.report.to_node();
                    if path.extension().is_some_and(|e| e == "json") {
                        json_text(&node)
                    } else {
                        v4t_yaml::emit(&node)
                    }
                });
                let result = render(&resolved.template, format);
                // Left to the operating system at exit (see `free_memory`).
                std::mem::forget(resolved);
                (result, report)
            },
        )
    });
    // Warnings come first, also when resolution failed (a typo is often
    // the cause), and never change the exit code.
    print_warnings(reporter, &sources, &loader, &warnings);
    let (result, report) = match finish(outcome, &sources, reporter) {
        Ok(result) => result,
        Err(code) => return code,
    };
    let bytes = match package(result, format, archive) {
        Ok(bytes) => bytes,
        Err(e) => {
            reporter.error(Code::Write, &e);
            return EXIT_FAILURE;
        }
    };
    if let (Some(path), Some(text)) = (&flags.report, report) {
        let written = if path.as_os_str() == "-" {
            write_stdout(text.as_bytes())
        } else {
            write_atomically(path, text.as_bytes())
        };
        if let Err(e) = written {
            let message = format!("could not write \"{}\": {e}", path.display());
            reporter.error(Code::Write, &message);
            return EXIT_USAGE;
        }
    }
    write_result(flags.output.as_deref(), &bytes, reporter)
}

/// Runs `v4t enrich` and returns the exit code.
pub fn run_enrich(args: &EnrichArgs, color: ColorChoice) -> u8 {
    let reporter = Reporter::to_stderr(args.format, color, false);
    let Template {
        mut sources,
        id,
        mut loader,
        archive,
    } = match open(
        &reporter,
        &args.template,
        None,
        [args.output.as_deref(), None],
    ) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let format = OutputFormat::choose(None, output_file(args.output.as_deref()));
    let outcome =
        catch_panic(|| v4t::enrich(&mut sources, id, &mut loader).map(|doc| render(&doc, format)));
    print_warnings(&reporter, &sources, &loader, &[]);
    let result = match finish(outcome, &sources, &reporter) {
        Ok(result) => result,
        Err(code) => return code,
    };
    match package(result, format, archive) {
        Ok(bytes) => write_result(args.output.as_deref(), &bytes, &reporter),
        Err(e) => {
            reporter.error(Code::Write, &e);
            EXIT_FAILURE
        }
    }
}

/// The document as text: JSON for `json`, YAML otherwise (a CSAR holds YAML).
fn render(doc: &Node, format: OutputFormat) -> String {
    match format {
        OutputFormat::Json => json_text(doc),
        OutputFormat::Yaml | OutputFormat::Csar => v4t::to_yaml(doc),
    }
}

/// Pretty JSON with a final newline.
fn json_text(node: &Node) -> String {
    let mut json = v4t_yaml::json::to_json_pretty(node);
    json.push('\n');
    json
}

/// The bytes to write: the text, or for `csar` the input archive (or a new
/// one) with the result as its template.
fn package(
    text: String,
    format: OutputFormat,
    archive: Option<(Arc<Archive>, String)>,
) -> Result<Vec<u8>, String> {
    if format != OutputFormat::Csar {
        return Ok(text.into_bytes());
    }
    let (mut archive, entry) = match archive {
        Some((archive, entry)) => (Arc::unwrap_or_clone(archive), entry),
        None => {
            let mut archive = Archive::default();
            archive.set(
                "TOSCA-Metadata/TOSCA.meta",
                b"TOSCA-Meta-File-Version: 1.1\nCSAR-Version: 1.1\nCreated-By: v4t\nEntry-Definitions: service-template.yaml\n".to_vec(),
            );
            (archive, "service-template.yaml".to_string())
        }
    };
    archive.set(&entry, text.into_bytes());
    archive.to_zip()
}

/// Renders a library error or panic; passes a result through.
pub fn finish<T>(
    outcome: Result<Result<T, v4t::Error>, String>,
    sources: &Sources,
    reporter: &Reporter,
) -> Result<T, u8> {
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => {
            reporter.report_error(sources, &e);
            Err(EXIT_FAILURE)
        }
        Err(panic) => {
            let message = format!("internal error: the resolver panicked: {panic}");
            reporter.error(Code::Internal, &message);
            Err(EXIT_FAILURE)
        }
    }
}

/// Writes `bytes` to standard output.
fn write_stdout(bytes: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes).and_then(|()| out.flush())
}

/// Writes the result to `output` (atomically) or standard output (`-` or
/// no output).
pub fn write_result(output: Option<&Path>, bytes: &[u8], reporter: &Reporter) -> u8 {
    match output_file(output) {
        Some(path) => {
            if let Err(e) = write_atomically(path, bytes) {
                let message = format!("could not write \"{}\": {e}", path.display());
                reporter.error(Code::Write, &message);
                return EXIT_USAGE;
            }
        }
        None => {
            // A reader that stopped early (`| head`) is no error.
            match write_stdout(bytes) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    reporter.error(Code::Write, &format!("could not write the result: {e}"));
                    return EXIT_USAGE;
                }
                _ => {}
            }
        }
    }
    EXIT_OK
}

/// The presets to apply: those given on the command line, or else those in
/// `OPENTOSCA_VINTNER_VARIABILITY_PRESETS` (a JSON list, as the reference
/// reads it; a plain string counts as a one-element list).
pub fn presets(given: &[String]) -> Vec<String> {
    let given: Vec<String> = given
        .iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect();
    if !given.is_empty() {
        return given;
    }
    match std::env::var("OPENTOSCA_VINTNER_VARIABILITY_PRESETS") {
        Ok(text) => presets_from_env(&text),
        Err(_) => Vec::new(),
    }
}

/// Presets from the environment variable's text.
fn presets_from_env(text: &str) -> Vec<String> {
    let value = crate::loose::loose_parse(text);
    match (value.as_seq(), value.as_str()) {
        (Some(items), _) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| v4t_yaml::json::to_json(i))
            })
            .collect(),
        (None, Some(s)) if !s.trim().is_empty() => vec![s.trim().to_string()],
        _ => Vec::new(),
    }
}

/// The current time in milliseconds since the epoch (for date operators).
pub fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as f64)
        .unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_from_the_environment() {
        assert_eq!(presets_from_env(r#"["dev", "eu"]"#), ["dev", "eu"]);
        assert_eq!(presets_from_env("dev"), ["dev"]);
        assert!(presets_from_env("").is_empty());
    }

    #[test]
    fn output_format_by_extension() {
        let choose = |p: &str| OutputFormat::choose(None, Some(Path::new(p)));
        assert_eq!(choose("out.json"), OutputFormat::Json);
        assert_eq!(choose("out.JSON"), OutputFormat::Json);
        assert_eq!(choose("out.csar"), OutputFormat::Csar);
        assert_eq!(choose("out.zip"), OutputFormat::Csar);
        assert_eq!(choose("out.yaml"), OutputFormat::Yaml);
        assert_eq!(OutputFormat::choose(None, None), OutputFormat::Yaml);
        assert_eq!(
            OutputFormat::choose(Some(OutputFormat::Json), Some(Path::new("x.yaml"))),
            OutputFormat::Json
        );
    }

    #[test]
    fn destinations_may_not_be_inputs() {
        let dir = std::env::temp_dir().join(format!("v4t-dest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let template = dir.join("t.yaml");
        std::fs::write(&template, "x").unwrap();
        let t = template.to_str().unwrap();
        let out = dir.join("o.yaml");
        assert!(check_destinations(t, None, Some(&template), None)
            .unwrap_err()
            .ends_with("it is the template"));
        assert!(check_destinations(t, None, Some(&out), Some(&template)).is_err());
        assert!(check_destinations(t, Some(&out), None, Some(&out))
            .unwrap_err()
            .ends_with("it is the inputs file"));
        assert!(
            check_destinations(t, None, Some(&out), Some(&dir.join("./o.yaml")))
                .unwrap_err()
                .contains("the report would be lost")
        );
        assert!(check_destinations(t, None, None, Some(Path::new("-"))).is_err());
        assert!(check_destinations(t, None, Some(Path::new("-")), Some(Path::new("-"))).is_err());
        assert!(check_destinations(t, None, Some(&out), Some(Path::new("-"))).is_ok());
        assert!(check_destinations("-", None, Some(Path::new("-")), None).is_ok());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
