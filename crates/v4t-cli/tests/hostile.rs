//! The hostile-input suite: templates a careless or malicious user could
//! write, each of which must fail with a clear error at the right place and
//! never panic.
//!
//! Every `tests/hostile/*.yaml` starts with its expectation as comments:
//!
//! ```text
//! # error: 7:23 Target "nowhere" of relation "dependency@0" of node "a" does not exist
//! # presets: dev            (optional: presets to resolve with)
//! ```
//!
//! The location is `LINE:COLUMN`, or `-` for errors that have no location
//! (`Could not solve`); `\n` in the message stands for a line break (the
//! reference pretty-prints JSON in some messages). `# error-prefix:` compares
//! only the start of the message. `# ok` expects success. `# warning: L:C
//! message` lines list the expected warnings, in order (also for a failing
//! case: warnings are reported when resolution fails, too).
//!
//! Inputs that cannot be files (10,000 levels of nesting, alias bombs,
//! 10 MB strings, non-UTF-8 bytes) are generated below. Every case runs
//! in-process through the library under `catch_unwind`; a few also run
//! through the `v4t` binary.

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use v4t::{NoFiles, ResolveOptions, Sources};

use crate::common::v4t;

/// An expected error: message, whether only its start is compared, location.
type ExpectedError = (String, bool, Option<(u32, u32)>);

/// What a case expects.
#[derive(Debug, Default)]
struct Expectation {
    /// `Some(..)` for an error.
    error: Option<ExpectedError>,
    warnings: Vec<(String, (u32, u32))>,
    presets: Vec<String>,
}

fn location(text: &str) -> Option<(u32, u32)> {
    if text == "-" {
        return None;
    }
    let (line, col) = text.split_once(':').expect("location is LINE:COLUMN or -");
    Some((line.parse().unwrap(), col.parse().unwrap()))
}

fn parse_expectation(name: &str, text: &str) -> Expectation {
    let mut e = Expectation::default();
    let mut ok = false;
    for line in text.lines().take_while(|l| l.starts_with('#')) {
        let line = line.trim_start_matches('#').trim();
        let (key, rest) = line.split_once(':').unwrap_or((line, ""));
        let rest = rest.trim();
        match key {
            "ok" => ok = true,
            "presets" => e.presets = rest.split(',').map(|p| p.trim().to_string()).collect(),
            "error" | "error-prefix" | "warning" => {
                let (loc, message) = rest.split_once(' ').expect("LOCATION MESSAGE");
                let message = message.replace("\\n", "\n");
                if key == "warning" {
                    e.warnings
                        .push((message, location(loc).expect("warnings have a location")));
                } else {
                    e.error = Some((message, key == "error-prefix", location(loc)));
                }
            }
            _ => {}
        }
    }
    assert!(
        ok != e.error.is_some(),
        "{name}: the header must say `# ok` or `# error: ...`"
    );
    e
}

/// Resolves `text` in-process, turning a panic into a test failure.
fn resolve(name: &str, text: &str, presets: &[String]) -> Result<v4t::Resolved, v4t::Error> {
    resolve_warned(name, text, presets).0
}

/// [`resolve`] with the warnings (collected also when resolution fails).
fn resolve_warned(
    name: &str,
    text: &str,
    presets: &[String],
) -> (Result<v4t::Resolved, v4t::Error>, Vec<v4t::Diagnostic>) {
    let options = ResolveOptions {
        presets: presets.to_vec(),
        ..ResolveOptions::default()
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let mut sources = Sources::new();
        let id = sources.add(name, text);
        let mut warnings = Vec::new();
        let result =
            v4t::resolve_with_warnings(&mut sources, id, &mut NoFiles, &options, &mut warnings);
        (result, warnings)
    }));
    match outcome {
        Ok(result) => result,
        Err(_) => panic!("{name}: the resolver panicked"),
    }
}

/// Checks one case; returns a description of the mismatch, if any.
fn check(name: &str, text: &str, expect: &Expectation) -> Option<String> {
    let (result, warnings) = resolve_warned(name, text, &expect.presets);
    let got: Vec<_> = warnings
        .iter()
        .map(|w| (w.message.clone(), w.span.locate(text).start()))
        .collect();
    if got != expect.warnings {
        return Some(format!(
            "{name}: expected warnings {:?}, got {got:?}",
            expect.warnings
        ));
    }
    match (result, &expect.error) {
        (Err(e), Some((message, prefix, loc))) => {
            let message_ok = if *prefix {
                e.message.starts_with(message.as_str())
            } else {
                e.message == *message
            };
            let got_loc = e.span.is_known().then(|| e.span.locate(text).start());
            if !message_ok || got_loc != *loc {
                return Some(format!(
                    "{name}: expected {loc:?} {message:?}, got {got_loc:?} {:?}",
                    e.message
                ));
            }
            // Errors are never reported in a different file.
            if e.span.is_known() && e.span.source.0 != 0 {
                return Some(format!("{name}: error points into another source"));
            }
            None
        }
        (Ok(_), None) => None,
        (Err(e), None) => Some(format!("{name}: unexpected error {:?}", e.message)),
        (Ok(_), Some((message, ..))) => Some(format!("{name}: expected error {message:?}")),
    }
}

fn hostile_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile")
}

#[test]
fn hostile_templates_fail_clearly() {
    let mut names: Vec<_> = fs::read_dir(hostile_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    names.sort();
    assert!(names.len() >= 60, "only {} hostile templates", names.len());
    let mut failures = Vec::new();
    for path in &names {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = fs::read_to_string(path).unwrap();
        let expect = parse_expectation(&name, &text);
        failures.extend(check(&name, &text, &expect));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The fuzzers' crash inputs (`fuzz/regressions/`): each must not panic.
#[test]
fn fuzz_regressions_do_not_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    let Ok(entries) = fs::read_dir(&dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        let bytes = fs::read(&path).unwrap();
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let _ = resolve(&name, &text, &[]);
        let _ = catch_unwind(|| v4t_yaml::parse(&text, v4t::SourceId(0)))
            .unwrap_or_else(|_| panic!("{name}: the YAML parser panicked"));
    }
}

const HEADER: &str = "tosca_definitions_version: tosca_variability_1_0\n";

fn expect_error(name: &str, text: &str, message: &str, prefix: bool, loc: Option<(u32, u32)>) {
    let expect = Expectation {
        error: Some((message.to_string(), prefix, loc)),
        ..Expectation::default()
    };
    if let Some(failure) = check(name, text, &expect) {
        panic!("{failure}");
    }
}

#[test]
fn truly_empty_file() {
    let message = "Unsupported TOSCA definitions version";
    expect_error("empty", "", message, false, Some((1, 1)));
    expect_error("blank", "\n\n   \n", message, false, Some((1, 1)));
}

#[test]
fn ten_thousand_levels_of_block_nesting() {
    let mut text = String::from(HEADER);
    for depth in 0..10_000 {
        text.push_str(&" ".repeat(depth));
        text.push_str("a:\n");
    }
    expect_error(
        "deep-block",
        &text,
        "nesting too deep (more than 1000 levels)",
        false,
        Some((1002, 1001)),
    );
}

#[test]
fn ten_thousand_levels_of_flow_nesting() {
    let text = format!(
        "{HEADER}topology_template: {}{}\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    expect_error(
        "deep-flow-seq",
        &text,
        "nesting too deep",
        true,
        Some((2, 275)),
    );
    let text = format!(
        "{HEADER}topology_template: {}{}\n",
        "{a: ".repeat(10_000),
        "}".repeat(10_000)
    );
    expect_error(
        "deep-flow-map",
        &text,
        "nesting too deep",
        true,
        Some((2, 1040)),
    );
}

/// `key:` blocks nested `depth` times at `indent`, around `leaf`.
fn block_nest(key: &str, depth: usize, indent: usize, leaf: &str, list: bool) -> String {
    let mut out = String::new();
    for level in 0..depth {
        let pad = " ".repeat(indent + 4 * level);
        if list {
            out.push_str(&format!("{pad}{key}:\n{pad}  - 1\n{pad}  -\n"));
        } else {
            out.push_str(&format!("{pad}{key}:\n"));
        }
    }
    out.push_str(&" ".repeat(indent + 4 * depth));
    out.push_str(leaf);
    out.push('\n');
    out
}

#[test]
fn deeply_nested_expressions_within_the_yaml_limit() {
    // Debug builds use far more stack per level than release builds; run on
    // a stack like the CLI's (it runs every command on a 64 MB stack).
    std::thread::Builder::new()
        .stack_size(16 << 20)
        .spawn(deeply_nested_expressions)
        .expect("spawn")
        .join()
        .expect("no panic");
}

fn deeply_nested_expressions() {
    // 300 levels of `add` parse fine (600 YAML levels); the value evaluator
    // stops at its own limit instead of overflowing the stack.
    let text = format!(
        "{HEADER}topology_template:\n  node_templates:\n    a:\n      type: tosca.nodes.Root\n      properties:\n        - p:\n            expression:\n{}",
        block_nest("add", 300, 14, "1", true)
    );
    expect_error(
        "deep-value-expression",
        &text,
        "Value expression is nested too deeply (more than 256 levels)",
        false,
        Some((775, 1039)),
    );
    // 900 levels of `not` in a condition: the logic encoder stops at its
    // limit (this overflowed the stack before the limit existed).
    let logic = |depth| {
        format!(
            "{HEADER}topology_template:\n  node_templates:\n    a:\n      type: tosca.nodes.Root\n      conditions:\n{}",
            block_nest("not", depth, 8, "true", false)
        )
    };
    expect_error(
        "deep-logic-expression",
        &logic(900),
        "Logic expression is nested too deeply (more than 128 levels)",
        false,
        Some((135, 521)),
    );
    // 100 levels are fine; an even number of `not`s keeps the node.
    let resolved = resolve("logic-100", &logic(100), &[]).expect("resolves");
    let nodes = resolved
        .template
        .get("topology_template")
        .and_then(|t| t.get("node_templates"));
    assert!(nodes.and_then(|n| n.get("a")).is_some());
}

#[test]
fn billion_laughs() {
    let mut text = String::from(HEADER);
    text.push_str("l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        let refs = vec![format!("*l{}", i - 1); 10].join(", ");
        text.push_str(&format!("l{i}: &l{i} [{refs}]\n"));
    }
    expect_error(
        "billion-laughs",
        &text,
        "too many aliases expanded (more than 1000000 nodes)",
        false,
        Some((7, 45)),
    );
}

#[test]
fn ten_megabyte_strings() {
    let long = "x".repeat(10 * 1024 * 1024);
    // As a description: resolves (and the string survives unchanged).
    let text = format!("{HEADER}description: {long}\ntopology_template:\n  node_templates: {{}}\n");
    let resolved = resolve("long-description", &text, &[]).expect("resolves");
    assert_eq!(
        resolved
            .template
            .get("description")
            .and_then(|d| d.as_str())
            .map(str::len),
        Some(long.len())
    );
    // As an unknown requirement target: a clear error at its line.
    let text = format!(
        "{HEADER}topology_template:\n  node_templates:\n    a:\n      type: tosca.nodes.Root\n      requirements:\n        - dependency: {long}\n"
    );
    let message =
        format!("Target \"{long}\" of relation \"dependency@0\" of node \"a\" does not exist");
    expect_error("long-target", &text, &message, false, Some((7, 23)));
}

#[test]
fn huge_numbers() {
    let text = format!(
        "{HEADER}topology_template:\n  node_templates:\n    a:\n      type: tosca.nodes.Root\n      weight: {}\n",
        "9".repeat(100_000)
    );
    expect_error(
        "huge-weight",
        &text,
        "Weight \"Infinity\" of node \"a\" is too large",
        false,
        Some((6, 15)),
    );
}

#[test]
fn control_characters() {
    let text = format!("{HEADER}description: a\u{7}b\n");
    let outcome = resolve("bell", &text, &[]);
    let e = outcome.expect_err("control characters are not allowed in YAML");
    assert_eq!(e.span.locate(&text).start(), (2, 15), "{e:?}");
}

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("v4t-hostile-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn non_utf8_bytes_through_the_binary() {
    let mut bytes = HEADER.as_bytes().to_vec();
    bytes.extend_from_slice(b"description: caf\xe9 \xff\n");
    let path = temp_file("latin1.yaml", &bytes);
    // Invalid input like invalid YAML: exit 1, pointing at the first bad byte.
    let out = v4t(&["resolve", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<_> = stderr.lines().collect();
    assert_eq!(
        lines[0],
        format!("error: \"{}\" is not valid UTF-8", path.display())
    );
    assert_eq!(lines[1], format!(" --> {}:2:17", path.display()));
    assert!(stderr.ends_with("  = code: V4T002\n"), "{stderr}");
    assert!(out.stdout.is_empty());

    // An inputs file likewise, also as JSON.
    let template = temp_file("plain.yaml", HEADER.as_bytes());
    let inputs = temp_file("latin1-inputs.yaml", b"mode: \xe9t\xe9\n");
    let out = v4t(&[
        "resolve",
        template.to_str().unwrap(),
        "--inputs",
        inputs.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("{\"severity\":\"error\",\"code\":\"V4T002\",\"message\":")
            && stderr.contains("\"line\":1,\"column\":7,"),
        "{stderr}"
    );
}

#[test]
fn limits_are_clear_errors_through_the_binary() {
    let mut text = String::from(HEADER);
    text.push_str(&"[".repeat(10_000));
    let path = temp_file("deep.yaml", text.as_bytes());
    let out = v4t(&["resolve", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(
            "{\"severity\":\"error\",\"code\":\"V4T001\",\"message\":\"nesting too deep"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("\"line\":2,"), "{stderr}");
}

#[test]
fn hostile_files_through_the_binary() {
    // A handful of the files, to see the rendering end to end.
    for (name, line) in [
        ("ref_requirement_target.yaml", 8),
        ("yaml_duplicate_node.yaml", 7),
        ("type_variability_list.yaml", 4),
    ] {
        let path = hostile_dir().join(name);
        let text = fs::read_to_string(&path).unwrap();
        let (message, _, loc) = parse_expectation(name, &text).error.unwrap();
        assert_eq!(loc.unwrap().0, line);
        let out = v4t(&["resolve", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with(&format!("error: {message}\n")),
            "{stderr}"
        );
        assert!(stderr.contains(&format!("{name}:{line}:")), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}
