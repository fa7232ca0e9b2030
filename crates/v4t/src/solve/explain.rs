//! Why "Could not solve": the parts of the problem that conflict.
//!
//! Only when resolving finds no solution, the problem is encoded once more
//! with every part (an element's condition, its presence when its
//! conditions hold, a constraint, an `implies` entry) guarded by a literal
//! of its own. The guards that conflict are shrunk to a subset-minimal set
//! ([`v4t_sat::Solver::minimal_core`]): drop any one and the rest has a
//! solution. Each becomes a note with the part's location and, where the
//! part reads variability inputs, their assigned values.

use super::encode::{Encoder, Part};
use super::problem::{encode_problem, RawDefs};
use crate::document;
use crate::graph::{Cond, Graph};
use crate::types::TypeSystem;
use v4t_source::Note;
use v4t_yaml::json::to_json;
use v4t_yaml::{Map, Node, Span};

/// At most this many notes; a longer conflict ends with a count of the rest.
const MAX_NOTES: usize = 12;

/// Longer conditions and constraints are not quoted in a note (its
/// location shows them).
const MAX_QUOTED: usize = 80;

/// The notes explaining why `graph` has no solution under `inputs`; empty
/// if no conflict of parts is found (then the clauses that make no part
/// conflict by themselves).
pub(crate) fn unsat_notes(
    doc: &Node,
    graph: &Graph,
    types: &TypeSystem,
    inputs: Map,
    now_ms: f64,
) -> Vec<Note> {
    let mut enc = Encoder::new(graph, doc, types, inputs.clone(), now_ms);
    enc.guards = Some(Vec::new());
    if encode_problem(&mut enc).is_err() {
        return Vec::new();
    }
    let parts = enc.guards.take().unwrap_or_default();
    let guards: Vec<_> = parts.iter().map(|&(g, _)| g).collect();
    let Some(core) = enc.sat.minimal_core(&guards) else {
        return Vec::new();
    };
    // The core keeps the order of `guards`, which follows `parts`.
    let mut rest = parts.iter();
    let mut chosen: Vec<Part> = core
        .iter()
        .filter_map(|g| rest.find(|(l, _)| l == g).map(|&(_, p)| p))
        .collect();
    // What is required first, then the elements it meets.
    chosen.sort_by_key(|p| match p {
        Part::Constraint(_) | Part::Generated(_) | Part::Implies(..) => 0,
        Part::Presence(_) => 1,
        Part::Condition { .. } => 2,
    });
    let notes = Notes {
        doc,
        graph,
        inputs: &inputs,
    };
    let mut out: Vec<Note> = chosen
        .iter()
        .take(MAX_NOTES)
        .map(|&p| notes.of(p))
        .collect();
    if chosen.len() > MAX_NOTES {
        out.push(Note {
            message: format!(
                "and {} more parts of the conflict",
                chosen.len() - MAX_NOTES
            ),
            span: Span::NONE,
        });
    }
    out
}

/// What the notes read.
struct Notes<'a> {
    doc: &'a Node,
    graph: &'a Graph,
    inputs: &'a Map,
}

impl Notes<'_> {
    /// The note of one part of the conflict.
    fn of(&self, part: Part) -> Note {
        let g = self.graph;
        let (message, span) = match part {
            Part::Condition {
                id,
                index,
                constant,
            } => {
                let e = g.get(id);
                let cond = e.conditions.get(index as usize);
                let (what, node, span) = match cond {
                    Some(Cond::Yaml(n)) => ("condition", Some((**n).clone()), n.span),
                    Some(c) => ("generated condition", Some(c.to_node(g)), Span::NONE),
                    None => ("condition", None, Span::NONE),
                };
                let mut m = format!("{what} of {}", g.display(id));
                if let Some(n) = node.as_ref().filter(|_| !span.is_known()) {
                    m.push_str(&quoted(n));
                }
                if constant == Some(false) {
                    m.push_str(" is false");
                }
                m.push_str(&self.inputs_read(node.as_ref()));
                (m, known_or(span, e.span))
            }
            Part::Presence(id) => {
                let e = g.get(id);
                let m = if e.conditions.is_empty() {
                    format!("{} has no conditions, so it is present", g.Display(id))
                } else {
                    format!("{} is present when all its conditions hold", g.Display(id))
                };
                (m, e.span)
            }
            Part::Constraint(i) => {
                let node = document::variability_entry(self.doc, "constraints")
                    .and_then(Node::as_seq)
                    .and_then(|list| list.get(i as usize));
                let mut m = String::from("constraint");
                if let Some(n) = node {
                    m.push_str(&quoted(n));
                }
                m.push_str(&self.inputs_read(node));
                (m, node.map_or(Span::NONE, |n| n.span))
            }
            Part::Generated(i) => {
                let node = g.constraints().get(i as usize).map(|c| c.to_node(g));
                let mut m = String::from("generated constraint");
                if let Some(n) = &node {
                    m.push_str(&quoted(n));
                }
                (m, Span::NONE)
            }
            Part::Implies(id, i) => {
                let raw = RawDefs::new(self.doc);
                let node = raw
                    .get(g, id)
                    .and_then(|r| r.get("implies"))
                    .and_then(Node::as_seq)
                    .and_then(|list| list.get(i as usize));
                let mut m = format!("implies of {}", g.display(id));
                m.push_str(&self.inputs_read(node));
                (
                    m,
                    known_or(node.map_or(Span::NONE, |n| n.span), g.get(id).span),
                )
            }
        };
        Note { message, span }
    }

    /// ` for input a = 1, b = "x"`: the assigned variability inputs that
    /// `node` reads, directly or through named expressions (in order of
    /// first reading, each once).
    fn inputs_read(&self, node: Option<&Node>) -> String {
        let mut names: Vec<&str> = Vec::new();
        let mut expressions: Vec<&str> = Vec::new();
        let mut pending: Vec<&Node> = node.into_iter().collect();
        let defined = document::variability_entry(self.doc, "expressions");
        let mut visited = 0;
        while let Some(n) = pending.pop() {
            visited += 1;
            if visited > 10_000 {
                break;
            }
            if let Some(m) = n.as_map() {
                for (k, v) in m.iter().rev() {
                    match (k.name.as_str(), v.as_str()) {
                        ("variability_input", Some(name)) if !names.contains(&name) => {
                            names.push(name);
                        }
                        ("logic_expression" | "value_expression", Some(name))
                            if !expressions.contains(&name) =>
                        {
                            expressions.push(name);
                            pending.extend(defined.and_then(|d| d.get(name)));
                        }
                        _ => pending.push(v),
                    }
                }
            } else if let Some(items) = n.as_seq() {
                pending.extend(items.iter().rev());
            }
        }
        let definitions = document::variability_entry(self.doc, "inputs");
        let assigned: Vec<String> = names
            .iter()
            .filter_map(|&name| {
                let v = self
                    .inputs
                    .get(name)
                    .filter(|v| v.is_defined())
                    .or_else(|| {
                        let d = definitions?.get(name)?;
                        d.get("default").filter(|v| v.is_defined())
                    })?;
                Some(format!("{name} = {}", to_json(v)))
            })
            .collect();
        match assigned.len() {
            0 => String::new(),
            1 => format!(" for input {}", assigned[0]),
            _ => format!(" for inputs {}", assigned.join(", ")),
        }
    }
}

/// ` {json}` if it is short.
fn quoted(n: &Node) -> String {
    let json = to_json(n);
    if json.chars().count() <= MAX_QUOTED {
        format!(" {json}")
    } else {
        String::new()
    }
}

/// `span` if it points into a source, else `fallback`.
fn known_or(span: Span, fallback: Span) -> Span {
    if span.is_known() {
        span
    } else {
        fallback
    }
}
