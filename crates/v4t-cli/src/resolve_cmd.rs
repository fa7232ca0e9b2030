//! `v4t resolve`: read a variable service template and its inputs, resolve
//! it with the library, and write the TOSCA result.
//!
//! All I/O of a resolution happens here: reading the template (or stdin),
//! the inputs file and the environment, the clock, and writing the output
//! atomically so that a failed run never leaves a half-written or clobbered
//! file behind.

use std::fs;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use v4t::{Code, ResolveOptions, Sources};
use v4t_yaml::{Map, Node};

use crate::diagnostics::{catch_panic, Reporter};
use crate::fs_loader::FsLoader;
use crate::inputs::{assignment_value, env_inputs, inputs_from_file};
use crate::{EnrichArgs, ResolveArgs, EXIT_FAILURE, EXIT_OK, EXIT_USAGE};

/// The largest template or inputs file that is read (256 MiB). Larger
/// inputs are refused with a clear error instead of exhausting memory.
pub const MAX_INPUT_BYTES: u64 = 256 * 1024 * 1024;

/// Reads the template named on the command line (`-` is standard input).
fn read_template(
    sources: &mut Sources,
    template: &str,
    reporter: Reporter,
) -> Result<(v4t::SourceId, FsLoader), u8> {
    if template == "-" {
        let mut bytes = Vec::new();
        let read = std::io::stdin()
            .take(MAX_INPUT_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| e.to_string())
            .and_then(|_| check_size(bytes.len() as u64))
            .and_then(|()| utf8(bytes));
        match read {
            Ok(text) => Ok((sources.add("<stdin>", text), FsLoader::new("."))),
            Err(e) => {
                reporter.error(
                    Code::File,
                    &format!("could not read the template from standard input: {e}"),
                );
                Err(EXIT_USAGE)
            }
        }
    } else {
        let path = Path::new(template);
        match read_text(path) {
            Ok(text) => Ok((sources.add(template, text), FsLoader::for_template(path))),
            Err(e) => {
                let message = format!("could not read template \"{template}\": {e}");
                reporter.error(Code::File, &message);
                Err(EXIT_USAGE)
            }
        }
    }
}

/// Runs `v4t resolve` and returns the exit code.
pub fn run(args: &ResolveArgs) -> u8 {
    let reporter = Reporter {
        format: args.format,
        color: std::io::stderr().is_terminal(),
    };
    let mut sources = Sources::new();
    let (template, mut loader) = match read_template(&mut sources, &args.template, reporter) {
        Ok(t) => t,
        Err(code) => return code,
    };

    // Inputs: environment + file (only with --inputs), then --input.
    let mut inputs: Option<Node> = None;
    if let Some(path) = &args.inputs {
        let text = match read_text(path) {
            Ok(text) => text,
            Err(e) => {
                let message = format!("could not read inputs file \"{}\": {e}", path.display());
                reporter.error(Code::File, &message);
                return EXIT_USAGE;
            }
        };
        let name = path.display().to_string();
        match inputs_from_file(&mut sources, &env_inputs(), &name, text) {
            Ok(map) => inputs = Some(map),
            Err(e) => {
                reporter.report(&sources, &e);
                return EXIT_FAILURE;
            }
        }
    }
    for (name, value) in &args.input {
        let map = inputs.get_or_insert_with(|| Node::map(Map::new()));
        if let Some(map) = map.as_map_mut() {
            map.insert(name.as_str(), assignment_value(value));
        }
    }

    let options = ResolveOptions {
        presets: presets(&args.presets),
        inputs,
        enrich: true,
        now_ms: Some(now_ms()),
        report: args.report.is_some(),
        // The process ends after writing the result.
        free_memory: false,
    };

    let outcome = catch_panic(|| {
        v4t::resolve(&mut sources, template, &mut loader, &options).map(|mut resolved| {
            let report = args.report.as_ref().map(|path| {
                let node = resolved.report.to_node();
                if path.extension().is_some_and(|e| e == "json") {
                    let mut json = v4t_yaml::json::to_json_pretty(&node);
                    json.push('\n');
                    json
                } else {
                    v4t_yaml::emit(&node)
                }
            });
            let yaml = v4t_yaml::emit(&resolved.template);
            let warnings = std::mem::take(&mut resolved.warnings);
            // Left to the operating system at exit (see `free_memory`).
            std::mem::forget(resolved);
            (yaml, report, warnings)
        })
    });
    let (yaml, report, warnings) = match finish(outcome, &sources, reporter) {
        Ok(result) => result,
        Err(code) => return code,
    };
    // Warnings are printed before the result is written and never change
    // the exit code.
    for w in &warnings {
        reporter.report(&sources, w);
    }
    if let (Some(path), Some(text)) = (&args.report, report) {
        if let Err(e) = write_atomically(path, &text) {
            reporter.error(
                Code::Write,
                &format!("could not write \"{}\": {e}", path.display()),
            );
            return EXIT_USAGE;
        }
    }
    write_result(args.output.as_deref(), &yaml, reporter)
}

/// Runs `v4t enrich` and returns the exit code.
pub fn run_enrich(args: &EnrichArgs) -> u8 {
    let reporter = Reporter {
        format: args.format,
        color: std::io::stderr().is_terminal(),
    };
    let mut sources = Sources::new();
    let (template, mut loader) = match read_template(&mut sources, &args.template, reporter) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let outcome = catch_panic(|| {
        v4t::enrich(&mut sources, template, &mut loader).map(|doc| v4t_yaml::emit(&doc))
    });
    match finish(outcome, &sources, reporter) {
        Ok(yaml) => write_result(args.output.as_deref(), &yaml, reporter),
        Err(code) => code,
    }
}

/// Renders a library error or panic; passes a result through.
fn finish<T>(
    outcome: Result<Result<T, v4t::Error>, String>,
    sources: &Sources,
    reporter: Reporter,
) -> Result<T, u8> {
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => {
            reporter.report(sources, &e);
            Err(EXIT_FAILURE)
        }
        Err(panic) => {
            let message = format!("internal error: the resolver panicked: {panic}");
            reporter.error(Code::Internal, &message);
            Err(EXIT_FAILURE)
        }
    }
}

/// Writes the result to `output` (atomically) or standard output.
fn write_result(output: Option<&Path>, yaml: &str, reporter: Reporter) -> u8 {
    match output {
        Some(path) => {
            if let Err(e) = write_atomically(path, yaml) {
                reporter.error(
                    Code::Write,
                    &format!("could not write \"{}\": {e}", path.display()),
                );
                return EXIT_USAGE;
            }
        }
        None => {
            let mut out = std::io::stdout().lock();
            if let Err(e) = out.write_all(yaml.as_bytes()).and_then(|_| out.flush()) {
                if e.kind() != std::io::ErrorKind::BrokenPipe {
                    reporter.error(Code::Write, &format!("could not write the result: {e}"));
                }
                return EXIT_USAGE;
            }
        }
    }
    EXIT_OK
}

/// Reads a UTF-8 text file of at most [`MAX_INPUT_BYTES`] with a readable error.
pub fn read_text(path: &Path) -> Result<String, String> {
    let file = fs::File::open(path).map_err(|e| e.to_string())?;
    if let Ok(meta) = file.metadata() {
        check_size(meta.len())?;
    }
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    check_size(bytes.len() as u64)?;
    utf8(bytes)
}

fn check_size(len: u64) -> Result<(), String> {
    if len > MAX_INPUT_BYTES {
        Err(format!(
            "the input is larger than {} MiB",
            MAX_INPUT_BYTES / (1024 * 1024)
        ))
    } else {
        Ok(())
    }
}

/// The text of `bytes`, or an error naming the line and column (in
/// characters) of the first byte that is not UTF-8.
pub fn utf8(bytes: Vec<u8>) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        // The valid prefix is UTF-8 by definition.
        let prefix = std::str::from_utf8(valid).unwrap_or_default();
        let line = prefix.matches('\n').count() + 1;
        let col = prefix
            .rsplit('\n')
            .next()
            .unwrap_or_default()
            .chars()
            .count()
            + 1;
        format!("the file is not valid UTF-8 (line {line}, column {col})")
    })
}

/// Writes `text` to `path` via a temporary file in the same directory and a
/// rename, so readers never see a partial file and a failure leaves any
/// existing file untouched. A path that exists but is not a regular file
/// (`/dev/null`, a pipe) is written directly: renaming over it would
/// replace the device.
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    if fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let mut file = fs::OpenOptions::new().write(true).open(path)?;
        return file.write_all(text.as_bytes());
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("not a file name"))?
        .to_string_lossy()
        .into_owned();
    let temp = dir.join(format!(".{file_name}.{}.v4t-tmp", std::process::id()));
    let result = (|| {
        let mut file = fs::File::create(&temp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// The presets to apply: those given on the command line, or else those in
/// `OPENTOSCA_VINTNER_VARIABILITY_PRESETS` (a JSON list, as the reference
/// reads it; a plain string counts as a one-element list).
fn presets(given: &[String]) -> Vec<String> {
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
    use super::presets_from_env;

    #[test]
    fn presets_from_the_environment() {
        assert_eq!(presets_from_env(r#"["dev", "eu"]"#), ["dev", "eu"]);
        assert_eq!(presets_from_env("dev"), ["dev"]);
        assert!(presets_from_env("").is_empty());
    }
}
