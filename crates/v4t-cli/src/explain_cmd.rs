//! `v4t explain`: why each element of a variant is present or absent
//! ([`v4t::explain`]), as rustc-style notes or one JSON object.
//!
//! Exit code 1 when the variant does not resolve (its error and conflict
//! are the explanation), 0 otherwise.

use std::collections::HashMap;
use v4t::analyze::show_value;
use v4t::explain::{
    explain, Decision, ElementExplanation, ExplainOptions, Explanation, InputOrigin, Reason,
};
use v4t::{Sources, Span};
use v4t_yaml::{Map, Node, Value};

use crate::diagnostics::{
    catch_panic, escape, header, render, snippet, ColorChoice, Format, Reporter,
};
use crate::resolve_cmd::{finish, open_variant, print_notes};
use crate::{ExplainArgs, EXIT_FAILURE, EXIT_OK};

/// Runs `v4t explain` and returns the exit code.
pub fn run(args: &ExplainArgs, color: ColorChoice) -> u8 {
    let reporter = Reporter::to_stderr(args.format, color, false);
    let (mut sources, template, mut loader, variant) =
        match open_variant(&reporter, &args.template, &args.variant) {
            Ok(t) => t,
            Err(code) => return code,
        };
    let options = ExplainOptions {
        variant,
        elements: args.elements.clone(),
    };
    let outcome = catch_panic(|| explain(&mut sources, template, &mut loader, &options));
    print_notes(&reporter, &loader);
    let explanation = match finish(outcome, &sources, &reporter) {
        Ok(e) => e,
        Err(code) => return code,
    };
    for w in &explanation.warnings {
        reporter.report(&sources, w);
    }
    match args.format {
        Format::Text => {
            use std::io::IsTerminal;
            let color = color.enabled(std::io::stdout().is_terminal());
            print!("{}", text(&sources, &explanation, color));
        }
        Format::Json => println!("{}", v4t_yaml::json::to_json(&json(&sources, &explanation))),
    }
    if explanation.error.is_some() {
        EXIT_FAILURE
    } else {
        EXIT_OK
    }
}

/// `file:line:column` of a known span.
pub(crate) fn location(sources: &Sources, span: Span) -> Option<String> {
    let file = span
        .is_known()
        .then(|| sources.get(span.source))
        .flatten()?;
    Some(format!("{}:{}:{}", file.name, span.line, span.col))
}

fn origin(o: &InputOrigin) -> String {
    match o {
        InputOrigin::Assigned => "assigned".to_string(),
        InputOrigin::Preset(p) => format!("preset \"{p}\""),
        InputOrigin::Default => "default".to_string(),
        InputOrigin::DefaultExpression => "default expression".to_string(),
        InputOrigin::Unset => "not set".to_string(),
    }
}

/// The text report: the inputs, then each element's summary with its
/// reasons as notes (the error of a variant that fails goes to standard
/// error like `v4t resolve`'s).
pub fn text(sources: &Sources, e: &Explanation, color: bool) -> String {
    let mut out = String::new();
    if !e.inputs.is_empty() {
        out.push_str("inputs:\n");
    }
    for i in &e.inputs {
        let value = i.value.as_ref().map_or("no value".to_string(), show_value);
        let at = location(sources, i.span)
            .map(|l| format!(", {l}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "  {} = {} ({}{at})\n",
            escape(&i.name),
            escape(&value),
            escape(&origin(&i.origin)),
        ));
    }
    if !e.objectives.is_empty() {
        let shown: Vec<String> = e
            .objectives
            .iter()
            .map(|(name, v)| format!("{name} = {v}"))
            .collect();
        out.push_str(&format!("objectives: {}\n", shown.join(", ")));
    }
    // A variant that does not resolve: its error, with the conflict as notes.
    for d in e.error.iter().flat_map(|e| e.diagnostics()) {
        out.push('\n');
        out.push_str(&render(sources, d, color));
    }
    // Elements explained so far, and their presence.
    let mut above: HashMap<&str, bool> = HashMap::new();
    for element in &e.elements {
        out.push('\n');
        out.push_str(&element_text(sources, element, &above, color));
        above.insert(&element.id, element.present);
    }
    out
}

/// One element: `id: summary`, the decision's details, the reasons; the
/// reasons about elements of `above` (explained already, with their
/// presence) are one line.
fn element_text(
    sources: &Sources,
    e: &ElementExplanation,
    above: &HashMap<&str, bool>,
    color: bool,
) -> String {
    let mut out = header(&e.id, &e.summary, 36, color);
    let differences = |list: &[(String, bool)]| -> String {
        let shown: Vec<String> = list
            .iter()
            .map(|(id, p)| format!("{id} {}", if *p { "present" } else { "absent" }))
            .collect();
        shown.join(", ")
    };
    match &e.decision {
        Decision::Conditions => {}
        Decision::Objective {
            weight,
            alternative,
            option,
            name,
            ..
        } => {
            if let Some(w) = weight {
                out.push_str(&format!("  = its weight in the objective: {w}\n"));
            }
            out.push_str(&format!(
                "  = the alternative it beat: {}\n",
                differences(alternative)
            ));
            if option.is_known() {
                let message = format!("the objective {name} is switched on here");
                out.push_str(&header("note", &message, 32, color));
                out.push_str(&snippet(
                    sources,
                    *option,
                    annotate_snippets::Level::NOTE,
                    color,
                ));
            }
        }
        Decision::Tie { alternative, .. } => {
            out.push_str(&format!(
                "  = the alternative: {}\n",
                differences(alternative)
            ));
        }
    }
    let mut see_above: Vec<String> = Vec::new();
    for r in &e.reasons {
        let explained = r
            .element
            .as_deref()
            .and_then(|id| Some((id, *above.get(id)?)));
        match explained {
            Some((id, present)) => {
                let state = if present { "present" } else { "absent" };
                let shown = format!("{id} ({state})");
                if !see_above.contains(&shown) {
                    see_above.push(shown);
                }
            }
            None => out.push_str(&reason_text(sources, r, color)),
        }
    }
    if !see_above.is_empty() {
        out.push_str(&format!(
            "  = explained above: {}\n",
            escape(&see_above.join(", "))
        ));
    }
    out
}

/// One reason as a note: its message and location, then what it reads.
fn reason_text(sources: &Sources, r: &Reason, color: bool) -> String {
    let mut out = header("note", &r.message, 32, color);
    out.push_str(&snippet(
        sources,
        r.span,
        annotate_snippets::Level::NOTE,
        color,
    ));
    if let Some(c) = r.condition.as_deref().filter(|c| !r.message.contains(c)) {
        out.push_str(&format!("  = condition: {}\n", escape(c)));
    }
    if !r.reads.is_empty() {
        let shown: Vec<String> = r
            .reads
            .iter()
            .map(|read| {
                let conditions = match &read.condition {
                    Some(c) => format!(": {c}{}", for_inputs(&read.inputs)),
                    None => String::new(),
                };
                let what = match (read.manual, read.value) {
                    (true, _) if read.condition.is_none() => " (no manual conditions)".to_string(),
                    (true, Some(v)) => {
                        let held = if v { "hold" } else { "false" };
                        format!(" (manual conditions {held}{conditions})")
                    }
                    (true, None) => format!(" (manual conditions{conditions})"),
                    (false, Some(v)) => format!(" ({})", if v { "present" } else { "absent" }),
                    (false, None) => String::new(),
                };
                format!("{}{what}", read.element)
            })
            .collect();
        out.push_str(&format!("  = reads: {}\n", escape(&shown.join(", "))));
    }
    out
}

fn string(s: &str) -> Node {
    Node::string(s)
}

fn null() -> Node {
    Node::null()
}

fn value(v: &Value) -> Node {
    Node::new(v.clone(), Span::NONE)
}

/// `file`, `line` and `column` of a known span.
fn locate(m: &mut Map, sources: &Sources, span: Span) {
    if let Some(file) = span.is_known().then(|| sources.get(span.source)).flatten() {
        m.insert("file", string(&file.name));
        m.insert("line", Node::number(f64::from(span.line)));
        m.insert("column", Node::number(f64::from(span.col)));
    }
}

/// Input values as an object `name: value`.
fn inputs_json(values: &[(String, Value)]) -> Node {
    let mut m = Map::new();
    for (name, v) in values {
        m.insert(name.clone(), value(v));
    }
    Node::map(m)
}

/// ` for input a = 1` (as in messages), or nothing.
fn for_inputs(values: &[(String, Value)]) -> String {
    let shown: Vec<String> = values
        .iter()
        .map(|(name, v)| format!("{name} = {}", show_value(v)))
        .collect();
    match shown.len() {
        0 => String::new(),
        1 => format!(" for input {}", shown[0]),
        _ => format!(" for inputs {}", shown.join(", ")),
    }
}

pub(crate) fn reason_json(sources: &Sources, r: &Reason) -> Node {
    let mut m = Map::new();
    m.insert("kind", string(r.kind.word()));
    m.insert("element", r.element.as_deref().map_or_else(null, string));
    m.insert("message", string(&r.message));
    m.insert(
        "condition",
        r.condition.as_deref().map_or_else(null, string),
    );
    m.insert("value", r.value.map_or_else(null, Node::bool));
    locate(&mut m, sources, r.span);
    m.insert("inputs", inputs_json(&r.inputs));
    let reads = r
        .reads
        .iter()
        .map(|read| {
            let mut rm = Map::new();
            rm.insert("element", string(&read.element));
            rm.insert("manual", Node::bool(read.manual));
            rm.insert("value", read.value.map_or_else(null, Node::bool));
            if read.manual {
                rm.insert(
                    "condition",
                    read.condition.as_deref().map_or_else(null, string),
                );
                rm.insert("inputs", inputs_json(&read.inputs));
            }
            Node::map(rm)
        })
        .collect();
    m.insert("reads", Node::seq(reads));
    Node::map(m)
}

fn differences_json(list: &[(String, bool)]) -> Node {
    let items = list
        .iter()
        .map(|(id, p)| {
            let mut m = Map::new();
            m.insert("element", string(id));
            m.insert("present", Node::bool(*p));
            Node::map(m)
        })
        .collect();
    Node::seq(items)
}

fn decision_json(sources: &Sources, d: &Decision) -> Node {
    let mut m = Map::new();
    match d {
        Decision::Conditions => {
            m.insert("by", string("conditions"));
        }
        Decision::Objective {
            name,
            goal,
            option,
            weight,
            value,
            alternative_value,
            alternative,
        } => {
            m.insert("by", string("objective"));
            m.insert("objective", string(name));
            m.insert("goal", string(goal));
            let mut om = Map::new();
            locate(&mut om, sources, *option);
            m.insert("option", Node::map(om));
            m.insert(
                "weight",
                weight.map_or_else(null, |w| Node::number(w as f64)),
            );
            m.insert("value", Node::number(*value as f64));
            m.insert("alternative_value", Node::number(*alternative_value as f64));
            m.insert("alternative", differences_json(alternative));
        }
        Decision::Tie { rule, alternative } => {
            m.insert("by", string("tie"));
            m.insert("rule", string(rule));
            m.insert("alternative", differences_json(alternative));
        }
    }
    Node::map(m)
}

/// The JSON report: `inputs` (`name`, `value`, `origin`, location),
/// `resolves`, `error` (`code`, `message`) or null, `conflict` (reasons),
/// `objectives` (name → value) and `elements` (`id`, `display`,
/// `present`, location, `summary`, `decision`, `reasons`). A reason has
/// `kind`, `element`, `message`, `condition`, `value`, location,
/// `inputs` (name → value) and `reads` (`element`, `manual`, `value`).
pub fn json(sources: &Sources, e: &Explanation) -> Node {
    let mut m = Map::new();
    let inputs = e
        .inputs
        .iter()
        .map(|i| {
            let mut im = Map::new();
            im.insert("name", string(&i.name));
            im.insert("value", i.value.as_ref().map_or_else(null, value));
            im.insert("origin", string(&origin(&i.origin)));
            locate(&mut im, sources, i.span);
            Node::map(im)
        })
        .collect();
    m.insert("inputs", Node::seq(inputs));
    m.insert("resolves", Node::bool(e.error.is_none()));
    let error = e.error.as_ref().map_or_else(null, |err| {
        let mut em = Map::new();
        em.insert("code", string(err.code.as_str()));
        em.insert("message", string(&err.message));
        Node::map(em)
    });
    m.insert("error", error);
    let conflict = e.conflict.iter().map(|r| reason_json(sources, r)).collect();
    m.insert("conflict", Node::seq(conflict));
    let mut objectives = Map::new();
    for (name, v) in &e.objectives {
        objectives.insert(name.clone(), Node::number(*v as f64));
    }
    m.insert("objectives", Node::map(objectives));
    let elements = e
        .elements
        .iter()
        .map(|x| {
            let mut xm = Map::new();
            xm.insert("id", string(&x.id));
            xm.insert("display", string(&x.display));
            xm.insert("present", Node::bool(x.present));
            locate(&mut xm, sources, x.span);
            xm.insert("summary", string(&x.summary));
            xm.insert("decision", decision_json(sources, &x.decision));
            let reasons = x.reasons.iter().map(|r| reason_json(sources, r)).collect();
            xm.insert("reasons", Node::seq(reasons));
            Node::map(xm)
        })
        .collect();
    m.insert("elements", Node::seq(elements));
    Node::map(m)
}
