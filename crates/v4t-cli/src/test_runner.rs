//! `v4t test`: discovers variability tests in OpenTOSCA Vintner's format
//! (conformance test trees, test groups, single tests and CSARs with a
//! `tests/` directory), runs them in parallel and reports failures with short
//! data diffs in a deterministic order.
//!
//! The semantics follow the reference's conformance harness and
//! `vintner template test`: template, inputs and expected files found by
//! their default names or named in `test.yaml`; `error:` compared exactly;
//! results compared as data (see [`crate::compare`]).

use std::collections::BTreeMap;
use std::fs;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use v4t::{Error, ResolveOptions, Sources};
use v4t_yaml::{Map, Node, SourceId, Value};

use crate::compare::diff;
use crate::diagnostics::catch_panic;
use crate::fs_loader::FsLoader;
use crate::inputs::{env_inputs, inputs_from_file};
use crate::resolve_cmd::{now_ms, read_text};
use crate::{TestArgs, EXIT_FAILURE, EXIT_OK, EXIT_USAGE};
use v4t::deep_merge;

/// Default template file names, in order of preference.
const TEMPLATE_NAMES: [&str; 4] = [
    "vst.yaml",
    "variable-service-template.yaml",
    "service-template.yaml",
    "template.yaml",
];
/// Default inputs file names.
const INPUTS_NAMES: [&str; 2] = ["inputs.yaml", "inputs.xml"];
/// Default expected file names.
const EXPECTED_NAMES: [&str; 2] = ["est.yaml", "expected.yaml"];
/// At most this many diff lines per failing test.
const MAX_DIFF_LINES: usize = 20;
/// Directory nesting limit of discovery (guards against symlink loops).
const MAX_DEPTH: usize = 32;
/// Stack size of the worker threads: the resolver recurses over documents.
const STACK_SIZE: usize = 64 * 1024 * 1024;

/// One discovered test.
#[derive(Debug, Clone)]
struct TestCase {
    /// The test directory (expected and inputs files are relative to it).
    dir: PathBuf,
    /// Where the template is looked up: the test directory, or the CSAR root.
    base: PathBuf,
    /// Directory names from the PATH argument down to the test (for sorting,
    /// `---only` and `---disabled`).
    components: Vec<String>,
    /// The group the test is counted in for the summary.
    group: String,
}

/// What happened to one test.
#[derive(Debug)]
enum Outcome {
    Passed,
    Failed(Vec<String>),
    Skipped,
}

/// Runs `v4t test` and returns the exit code.
pub fn run(args: &TestArgs) -> u8 {
    let root = &args.path;
    if !root.is_dir() {
        eprintln!(
            "error: \"{}\" is not a directory (expected a CSAR, a test directory or a directory of tests)",
            root.display()
        );
        return EXIT_USAGE;
    }
    let mut tests = Vec::new();
    discover(root, &mut Vec::new(), root, &mut tests, 0);
    tests.sort_by(|a, b| a.components.cmp(&b.components));
    if tests.is_empty() {
        eprintln!("warning: no tests found in \"{}\"", root.display());
    }

    let only = tests
        .iter()
        .any(|t| t.components.iter().any(|c| c.ends_with("---only")));
    let skip: Vec<bool> = tests
        .iter()
        .map(|t| {
            let disabled = t.components.iter().any(|c| c.ends_with("---disabled"));
            let not_only = only && !t.components.iter().any(|c| c.ends_with("---only"));
            disabled || not_only
        })
        .collect();

    let threads = args
        .jobs
        .map(|n| n.get())
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
        .unwrap_or(1)
        .min(tests.len().max(1));
    let outcomes = run_all(&tests, &skip, threads);

    // Report in path order.
    let mut stdout = std::io::stdout().lock();
    let (mut passed, mut failed, mut skipped) = (0usize, 0usize, 0usize);
    let mut groups: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    for (test, outcome) in tests.iter().zip(&outcomes) {
        let group = groups.entry(test.group.as_str()).or_default();
        match outcome {
            Outcome::Passed => {
                passed += 1;
                group.0 += 1;
                group.1 += 1;
                if args.verbose {
                    let _ = writeln!(stdout, "ok   {}", test.dir.display());
                }
            }
            Outcome::Failed(lines) => {
                failed += 1;
                group.1 += 1;
                let _ = writeln!(stdout, "FAIL {}", test.dir.display());
                for line in lines {
                    for part in line.lines() {
                        let _ = writeln!(stdout, "     {part}");
                    }
                }
            }
            Outcome::Skipped => {
                skipped += 1;
                group.2 += 1;
                if args.verbose {
                    let _ = writeln!(stdout, "skip {}", test.dir.display());
                }
            }
        }
    }
    if args.summary || groups.len() > 1 {
        for (name, (p, total, s)) in &groups {
            let skipped = if *s > 0 {
                format!(" ({s} skipped)")
            } else {
                String::new()
            };
            let _ = writeln!(stdout, "{name}: {p}/{total}{skipped}");
        }
    }
    let mut last = format!("{passed} passed, {failed} failed");
    if skipped > 0 {
        last.push_str(&format!(", {skipped} skipped"));
    }
    let _ = writeln!(stdout, "{last}");
    let _ = stdout.flush();
    if failed == 0 {
        EXIT_OK
    } else {
        EXIT_FAILURE
    }
}

/// Finds the tests below `dir` (`rel` are the names from the root to `dir`).
fn discover(root: &Path, rel: &mut Vec<String>, dir: &Path, out: &mut Vec<TestCase>, depth: usize) {
    let group_of = |rel: &[String]| {
        if rel.is_empty() {
            root.display().to_string()
        } else {
            rel.join("/")
        }
    };
    if dir.join("tests").is_dir() {
        // A CSAR: the template is at its root, tests below `tests/`.
        for name in sub_directories(&dir.join("tests")) {
            let mut components = rel.clone();
            components.extend(["tests".to_string(), name.clone()]);
            out.push(TestCase {
                dir: dir.join("tests").join(&name),
                base: dir.to_path_buf(),
                components,
                group: group_of(rel),
            });
        }
    } else if is_test_dir(dir) {
        let group = group_of(rel.split_last().map(|(_, g)| g).unwrap_or(&[]));
        out.push(TestCase {
            dir: dir.to_path_buf(),
            base: dir.to_path_buf(),
            components: rel.clone(),
            group,
        });
    } else if depth < MAX_DEPTH {
        for name in sub_directories(dir) {
            rel.push(name.clone());
            discover(root, rel, &dir.join(&name), out, depth + 1);
            rel.pop();
        }
    }
}

/// Whether `dir` is a single test (has `test.yaml` or a template file).
fn is_test_dir(dir: &Path) -> bool {
    dir.join("test.yaml").is_file() || TEMPLATE_NAMES.iter().any(|n| dir.join(n).is_file())
}

/// Sub-directory names of `dir`, sorted, without those starting with `.`.
fn sub_directories(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    names
}

/// Runs the tests on `threads` workers; outcomes in the order of `tests`.
fn run_all(tests: &[TestCase], skip: &[bool], threads: usize) -> Vec<Outcome> {
    let env = env_inputs();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Outcome>>> = Mutex::new((0..tests.len()).map(|_| None).collect());
    let progress = std::io::stderr().is_terminal() && !tests.is_empty();
    let to_run = skip.iter().filter(|s| !**s).count();

    std::thread::scope(|scope| {
        for _ in 0..threads {
            let worker = || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= tests.len() {
                    break;
                }
                let outcome = if skip[i] {
                    Outcome::Skipped
                } else {
                    let outcome = match catch_panic(|| run_one(&tests[i], &env)) {
                        Ok(Ok(())) => Outcome::Passed,
                        Ok(Err(lines)) => Outcome::Failed(lines),
                        Err(panic) => Outcome::Failed(vec![format!("panicked: {panic}")]),
                    };
                    let n = done.fetch_add(1, Ordering::SeqCst) + 1;
                    if progress {
                        draw_progress(n, to_run);
                    }
                    outcome
                };
                if let Ok(mut results) = results.lock() {
                    results[i] = Some(outcome);
                }
            };
            let spawned = std::thread::Builder::new()
                .stack_size(STACK_SIZE)
                .spawn_scoped(scope, worker);
            if spawned.is_err() {
                // Could not start a thread: the others (or the fallback
                // below) do the work.
                break;
            }
        }
    });
    // If no thread could be started, run here.
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    if progress {
        eprint!("\r\x1b[K");
    }
    results
        .iter_mut()
        .enumerate()
        .map(|(i, r)| {
            r.take().unwrap_or_else(|| {
                if skip[i] {
                    Outcome::Skipped
                } else {
                    match catch_panic(|| run_one(&tests[i], &env)) {
                        Ok(Ok(())) => Outcome::Passed,
                        Ok(Err(lines)) => Outcome::Failed(lines),
                        Err(panic) => Outcome::Failed(vec![format!("panicked: {panic}")]),
                    }
                }
            })
        })
        .collect()
}

fn draw_progress(done: usize, total: usize) {
    const WIDTH: usize = 30;
    let filled = (done * WIDTH)
        .checked_div(total)
        .unwrap_or(WIDTH)
        .min(WIDTH);
    let mut err = std::io::stderr().lock();
    let _ = write!(
        err,
        "\r[{}{}] {done}/{total}",
        "=".repeat(filled),
        " ".repeat(WIDTH - filled)
    );
    let _ = err.flush();
}

/// The settings of `test.yaml`.
#[derive(Default)]
struct TestConfig {
    presets: Vec<String>,
    error: Option<String>,
    template: Option<String>,
    expected: Option<String>,
    inputs: Option<String>,
    replace: Vec<(String, String)>,
    merge: Option<Node>,
}

/// Runs one test; `Err` holds the lines explaining the failure.
fn run_one(test: &TestCase, env: &Map) -> Result<(), Vec<String>> {
    let fail = |line: String| vec![line];
    let config = read_config(&test.dir).map_err(fail)?;

    // The template.
    let template_path = match &config.template {
        Some(t) => test.base.join(t),
        None => TEMPLATE_NAMES
            .iter()
            .map(|n| test.base.join(n))
            .find(|p| p.is_file())
            .ok_or_else(|| {
                fail(format!(
                    "Did not find variable service template in directory \"{}\"",
                    test.base.display()
                ))
            })?,
    };
    let text = read_text(&template_path).map_err(|e| {
        fail(format!(
            "could not read \"{}\": {e}",
            template_path.display()
        ))
    })?;
    let mut sources = Sources::new();
    let template = sources.add(template_path.display().to_string(), text);
    let mut loader = FsLoader::for_template(&template_path);

    // The inputs: only if a file exists (then with the environment).
    let inputs_path = match &config.inputs {
        Some(i) => Some(test.dir.join(i)),
        None => INPUTS_NAMES
            .iter()
            .map(|n| test.dir.join(n))
            .find(|p| p.is_file()),
    };
    let mut inputs_error: Option<Error> = None;
    let mut inputs = None;
    if let Some(path) = &inputs_path {
        let text = read_text(path)
            .map_err(|e| fail(format!("could not read \"{}\": {e}", path.display())))?;
        match inputs_from_file(&mut sources, env, &path.display().to_string(), text) {
            Ok(map) => inputs = Some(map),
            // Loading inputs is part of resolving in the reference.
            Err(e) => inputs_error = Some(e),
        }
    }

    let options = ResolveOptions {
        presets: config.presets.clone(),
        inputs,
        enrich: true,
        // Like the reference harness: the real clock.
        now_ms: Some(now_ms()),
        ..ResolveOptions::default()
    };
    let result = match inputs_error {
        Some(e) => Err(e),
        None => v4t::resolve(&mut sources, template, &mut loader, &options),
    };

    let resolved = match (&config.error, result) {
        (Some(expected), Err(e)) if e.message == *expected => return Ok(()),
        (Some(expected), Err(e)) => {
            return Err(fail(format!(
                "expected error \"{expected}\" but got \"{}\"",
                e.message
            )))
        }
        (Some(expected), Ok(_)) => {
            return Err(fail(format!(
                "expected error \"{expected}\" but resolution succeeded"
            )))
        }
        (None, Err(e)) => {
            let at = sources
                .get(e.span.source)
                .filter(|_| e.span.is_known())
                .map(|f| format!(" (at {}:{}:{})", f.name, e.span.line, e.span.col))
                .unwrap_or_default();
            return Err(fail(format!("resolution failed: {}{at}", e.message)));
        }
        (None, Ok(resolved)) => resolved,
    };

    // Emit, post-process textually and read back, like the reference.
    let mut output = v4t_yaml::emit(&resolved.template);
    for (find, replace) in &config.replace {
        if !find.is_empty() {
            output = output.replace(find.as_str(), replace);
        }
    }
    let actual = v4t_yaml::parse(&output, SourceId(0)).map_err(|e| {
        fail(format!(
            "could not read back the emitted output: {} at {}",
            e.message, e.span
        ))
    })?;

    let expected_path = match &config.expected {
        Some(e) => test.dir.join(e),
        None => EXPECTED_NAMES
            .iter()
            .map(|n| test.dir.join(n))
            .find(|p| p.is_file())
            .ok_or_else(|| {
                fail(format!(
                    "Did not find expected service template in directory \"{}\"",
                    test.dir.display()
                ))
            })?,
    };
    let text = read_text(&expected_path).map_err(|e| {
        fail(format!(
            "could not read \"{}\": {e}",
            expected_path.display()
        ))
    })?;
    let mut expected = v4t_yaml::parse(&text, SourceId(0)).map_err(|e| {
        fail(format!(
            "invalid expected file \"{}\": {} at {}",
            expected_path.display(),
            e.message,
            e.span
        ))
    })?;
    if let Some(merge) = &config.merge {
        deep_merge(&mut expected, merge);
    }

    let lines = diff(&expected.value, &actual.value, MAX_DIFF_LINES);
    if lines.is_empty() {
        Ok(())
    } else {
        Err(lines)
    }
}

/// Reads `test.yaml` of `dir` (all defaults if there is none).
fn read_config(dir: &Path) -> Result<TestConfig, String> {
    let path = dir.join("test.yaml");
    if !path.is_file() {
        return Ok(TestConfig::default());
    }
    let invalid = |what: String| format!("invalid \"{}\": {what}", path.display());
    let text = read_text(&path).map_err(&invalid)?;
    let doc = v4t_yaml::parse(&text, SourceId(0))
        .map_err(|e| invalid(format!("{} at {}", e.message, e.span)))?;
    let map = match &doc.value {
        Value::Null => return Ok(TestConfig::default()),
        Value::Map(map) => map,
        other => {
            return Err(invalid(format!(
                "expected a map, not a {}",
                other.kind_name()
            )))
        }
    };
    let string = |key: &str| -> Result<Option<String>, String> {
        match map.get(key).map(|n| &n.value) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(invalid(format!(
                "`{key}` must be a string, not a {}",
                other.kind_name()
            ))),
        }
    };
    let presets = match map.get("presets").map(|n| &n.value) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Seq(items)) => items
            .iter()
            .map(|n| {
                n.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| invalid("`presets` must contain strings".into()))
            })
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(invalid(format!(
                "`presets` must be a string or a list, not a {}",
                other.kind_name()
            )))
        }
    };
    let replace = match map.get("replace").map(|n| &n.value) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Seq(items)) => items
            .iter()
            .map(|pair| match pair.as_seq().map(Vec::as_slice) {
                Some([find, replace]) => match (find.as_str(), replace.as_str()) {
                    (Some(f), Some(r)) => Ok((f.to_string(), r.to_string())),
                    _ => Err(invalid("`replace` pairs must be strings".into())),
                },
                _ => Err(invalid(
                    "`replace` must be a list of [find, replace] pairs".into(),
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(invalid(
                "`replace` must be a list of [find, replace] pairs".into(),
            ))
        }
    };
    Ok(TestConfig {
        presets,
        error: string("error")?,
        template: string("template")?,
        expected: string("expected")?,
        inputs: string("inputs")?,
        replace,
        merge: map.get("merge").filter(|n| n.is_defined()).cloned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_of_a_tree_and_a_csar() {
        let root = std::env::temp_dir().join(format!("v4t-discover-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        for f in [
            "g1/t2/template.yaml",
            "g1/t1/test.yaml",
            "g1/template.host.yaml",
            "g2/.hidden/template.yaml",
            "csar/template.yaml",
            "csar/tests/prod/test.yaml",
            "csar/tests/dev/test.yaml",
        ] {
            let p = root.join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, "").unwrap();
        }
        let mut tests = Vec::new();
        discover(&root, &mut Vec::new(), &root, &mut tests, 0);
        let names: Vec<_> = tests.iter().map(|t| t.components.join("/")).collect();
        assert_eq!(
            names,
            ["csar/tests/dev", "csar/tests/prod", "g1/t1", "g1/t2"]
        );
        assert_eq!(tests[0].base, root.join("csar"));
        assert_eq!(tests[0].group, "csar");
        assert_eq!(tests[2].group, "g1");
        fs::remove_dir_all(&root).unwrap();
    }
}
