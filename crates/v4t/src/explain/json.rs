//! The explanation as JSON (`v4t explain --format json`, the playground).

use super::{Decision, Explanation, InputOrigin, Reason};
use crate::Sources;
use v4t_yaml::{Map, Node, Span, Value};

impl InputOrigin {
    /// Where the value comes from, in words (`preset "prod"`, `default`).
    pub fn describe(&self) -> String {
        match self {
            InputOrigin::Assigned => "assigned".to_string(),
            InputOrigin::Preset(p) => format!("preset \"{p}\""),
            InputOrigin::Default => "default".to_string(),
            InputOrigin::DefaultExpression => "default expression".to_string(),
            InputOrigin::Unset => "not set".to_string(),
        }
    }
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
        let at = file.locate(span);
        m.insert("file", string(&file.name));
        m.insert("line", Node::number(f64::from(at.line)));
        m.insert("column", Node::number(f64::from(at.col)));
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

impl Reason {
    /// The reason as a JSON-shaped tree (`kind`, `element`, `message`,
    /// `condition`, `value`, location, `inputs`, `reads`), as explanations
    /// and analyses (excluded configurations, redundant constraints) list it.
    pub fn to_node(&self, sources: &Sources) -> Node {
        reason_json(sources, self)
    }
}

fn reason_json(sources: &Sources, r: &Reason) -> Node {
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

impl Explanation {
    /// The explanation as a JSON-shaped tree (`v4t explain --format json`,
    /// the playground), locations named as in `sources`: `inputs` (`name`, `value`, `origin`, location),
    /// `resolves`, `error` (`code`, `message`) or null, `conflict` (reasons),
    /// `objectives` (name → value) and `elements` (`id`, `display`,
    /// `present`, location, `summary`, `decision`, `reasons`). A reason has
    /// `kind`, `element`, `message`, `condition`, `value`, location,
    /// `inputs` (name → value) and `reads` (`element`, `manual`, `value`).
    pub fn to_node(&self, sources: &Sources) -> Node {
        json(sources, self)
    }
}

fn json(sources: &Sources, e: &Explanation) -> Node {
    let mut m = Map::new();
    let inputs = e
        .inputs
        .iter()
        .map(|i| {
            let mut im = Map::new();
            im.insert("name", string(&i.name));
            im.insert("value", i.value.as_ref().map_or_else(null, value));
            im.insert("origin", string(&i.origin.describe()));
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
