//! `v4t analyze`: questions about every configuration of a variable service
//! template ([`v4t::analyze`]), printed as a text report or one JSON object.
//!
//! Exit code 1 when some configuration or preset fails (so CI can gate a
//! template library on "every variant resolves") or the template itself is
//! invalid.

use v4t::analyze::{analyze, json, show_value as value, Analysis, AnalyzeOptions, Count};
use v4t_yaml::json::to_json;

use crate::diagnostics::{catch_panic, ColorChoice, Format, Reporter};
use crate::resolve_cmd::{finish, now_ms, open_template, print_notes};
use crate::{AnalyzeArgs, EXIT_FAILURE, EXIT_OK};

/// The most topologies `--validate` resolves and validates.
const VALIDATE_LIMIT: usize = 256;

/// Runs `v4t analyze` and returns the exit code.
pub fn run(args: &AnalyzeArgs, color: ColorChoice) -> u8 {
    let reporter = Reporter::to_stderr(args.format, color, false);
    let (mut sources, template, mut loader) = match open_template(&reporter, &args.template) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let options = AnalyzeOptions {
        now_ms: Some(now_ms()),
        enumerate: args.enumerate,
        validate: if args.validate { VALIDATE_LIMIT } else { 0 },
        ..AnalyzeOptions::default()
    };
    let outcome = catch_panic(|| analyze(&mut sources, template, &mut loader, &options));
    print_notes(&reporter, &loader);
    let analysis = match finish(outcome, &sources, &reporter) {
        Ok(a) => a,
        Err(code) => return code,
    };
    for w in &analysis.warnings {
        reporter.report(&sources, w);
    }
    match args.format {
        Format::Text => print!("{}", text(&analysis)),
        Format::Json => println!("{}", to_json(&json(&analysis))),
    }
    if analysis.failures.is_empty() && analysis.presets.iter().all(|p| p.error.is_none()) {
        EXIT_OK
    } else {
        EXIT_FAILURE
    }
}

/// A count for people: `at least N` when it is a lower bound.
fn count(c: &Count) -> String {
    if c.exact {
        c.value.to_string()
    } else {
        format!("at least {}", c.value)
    }
}

/// The text report.
pub fn text(a: &Analysis) -> String {
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    line(format!("inputs: {}", a.inputs.len()));
    for input in &a.inputs {
        let values: Vec<String> = input.values.iter().map(value).collect();
        line(format!("  {}: {}", input.name, values.join(", ")));
    }
    line(format!("configurations: {}", a.configurations));
    line(format!("valid configurations: {}", count(&a.valid)));
    let how = if a.determined {
        "determined by the inputs"
    } else {
        "allowed by the conditions; the optimiser picks among them"
    };
    line(format!("topologies: {} ({how})", count(&a.topologies)));
    let list = |title: &str, ids: &[String], line: &mut dyn FnMut(String)| {
        line(format!("{title}: {}", ids.len()));
        for id in ids {
            line(format!("  {id}"));
        }
    };
    list("dead elements", &a.dead, &mut line);
    list("core elements", &a.core, &mut line);
    if a.determined {
        list(
            "inputs that never change the topology",
            &a.irrelevant,
            &mut line,
        );
    }
    if a.failures.is_empty() {
        line("failing configurations: none".to_string());
    } else {
        line("failing configurations:".to_string());
        for f in &a.failures {
            line(format!(
                "  {} with \"{}\"",
                count(&f.configurations),
                f.error.message
            ));
            if let Some(w) = &f.witness {
                let shown: Vec<String> =
                    w.iter().map(|(k, v)| format!("{k}={}", value(v))).collect();
                if shown.is_empty() {
                    line("    (the only configuration: the template has no inputs)".to_string());
                } else {
                    line(format!("    for example: {}", shown.join(" ")));
                }
            }
            if let Some(c) = f.conflict.as_ref().filter(|c| !c.is_empty()) {
                let shown: Vec<String> =
                    c.iter().map(|(k, v)| format!("{k}={}", value(v))).collect();
                line(format!("    no solution with: {}", shown.join(" ")));
            }
        }
    }
    if !a.presets.is_empty() {
        line("presets:".to_string());
        for p in &a.presets {
            match (&p.error, &p.same_as) {
                (Some(e), _) => line(format!("  {}: fails with \"{}\"", p.name, e.message)),
                (None, Some(other)) => line(format!("  {}: same topology as {other}", p.name)),
                (None, None) => line(format!("  {}: resolves", p.name)),
            }
        }
    }
    if let Some((n, complete)) = a.validated {
        let more = if complete {
            ""
        } else {
            "; more exist, not validated"
        };
        line(format!(
            "validated: {n} topologies, one configuration each{more}"
        ));
    }
    for note in &a.unmodelled {
        line(format!("not modelled: {note}"));
    }
    if let Some((topologies, complete)) = &a.enumerated {
        line(format!(
            "topologies listed: {}{}",
            topologies.len(),
            if *complete { "" } else { " (more exist)" }
        ));
        for (i, t) in topologies.iter().enumerate() {
            line(format!("  {}: {}", i + 1, t.join(" ")));
        }
    }
    out
}
