//! The analysis as JSON (`v4t analyze --format json`, the playground).

use super::{Analysis, Count, Excluder, Irrelevance, Natural, Why};
use crate::Sources;
use v4t_yaml::{Map, Node, Span, Value};

fn string(s: &str) -> Node {
    Node::string(s)
}

fn null() -> Node {
    Node::new(Value::Null, Span::NONE)
}

/// Input values as a JSON object `name: value`.
fn pairs(values: &[(String, Value)]) -> Node {
    let mut m = Map::new();
    for (k, v) in values {
        m.insert(k.clone(), Node::new(v.clone(), Span::NONE));
    }
    Node::new(Value::Map(m), Span::NONE)
}

/// A number as JSON: a number up to 2^53, a decimal string above.
fn natural(n: &Natural) -> Node {
    match n.to_u128().filter(|&v| v <= 1 << 53) {
        Some(v) => Node::new(Value::Number(v as f64), Span::NONE),
        None => string(&n.to_string()),
    }
}

fn counted(c: &Count) -> Node {
    let mut m = Map::new();
    m.insert("count", natural(&c.value));
    m.insert("exact", Node::bool(c.exact));
    Node::new(Value::Map(m), Span::NONE)
}

fn strings<'a>(list: impl IntoIterator<Item = &'a (impl AsRef<str> + ?Sized + 'a)>) -> Node {
    Node::new(
        Value::Seq(list.into_iter().map(|s| string(s.as_ref())).collect()),
        Span::NONE,
    )
}

impl Analysis {
    /// The analysis as a JSON-shaped tree (`v4t analyze --format json`,
    /// the playground, the Python package), locations named as in `sources`.
    /// `inputs` (`name`, `values`), `configurations`,
    /// `valid` and `topologies` (`count`, `exact`), `determined`, `dead`,
    /// `core`, `irrelevant`, `failures` (`message`, `code`, `configurations`,
    /// `witness`: input → value or null, `conflict`: the part of the witness
    /// that has no solution, or null, `undeclared`: only with values the
    /// template does not declare), `excluded` (`by`: `feature model` or
    /// `constraints`, `configurations`, `witness`, `reasons` as `v4t explain`
    /// gives them), `redundant` (constraints as reasons), `commonality`
    /// (element id → `count`, `exact`) and `atomic` (lists of ids) with
    /// `--details`, `sample` (input → value maps) with `--sample` or
    /// `--random`, `why` with `--why` (see `why_json`), `unmodelled`, `presets` (`name`,
    /// `error` and `same_as`, each a string or null), `topologies_listed`
    /// (`topologies`, `complete`) with `--enumerate`, and `validated`
    /// (`topologies`, `complete`) with `--validate`.
    pub fn to_node(&self, sources: &Sources) -> Node {
        json(sources, self)
    }
}

fn json(sources: &Sources, a: &Analysis) -> Node {
    let mut m = Map::new();
    let inputs = a
        .inputs
        .iter()
        .map(|i| {
            let mut im = Map::new();
            im.insert("name", string(&i.name));
            let values = i
                .values
                .iter()
                .map(|v| Node::new(v.clone(), Span::NONE))
                .collect();
            im.insert("values", Node::new(Value::Seq(values), Span::NONE));
            Node::new(Value::Map(im), Span::NONE)
        })
        .collect();
    m.insert("inputs", Node::new(Value::Seq(inputs), Span::NONE));
    m.insert("configurations", natural(&a.configurations));
    m.insert("valid", counted(&a.valid));
    m.insert("topologies", counted(&a.topologies));
    m.insert("determined", Node::bool(a.determined));
    m.insert("dead", strings(&a.dead));
    m.insert("core", strings(&a.core));
    m.insert("irrelevant", strings(&a.irrelevant));
    let failures = a
        .failures
        .iter()
        .map(|f| {
            let mut fm = Map::new();
            fm.insert("message", string(&f.error.message));
            fm.insert("code", string(&f.error.code.to_string()));
            fm.insert("configurations", counted(&f.configurations));
            let witness = f.witness.as_ref().map_or_else(null, |w| pairs(w));
            fm.insert("witness", witness);
            fm.insert(
                "conflict",
                f.conflict.as_ref().map_or_else(null, |c| pairs(c)),
            );
            fm.insert("undeclared", Node::bool(f.undeclared));
            Node::new(Value::Map(fm), Span::NONE)
        })
        .collect();
    m.insert("failures", Node::new(Value::Seq(failures), Span::NONE));
    let excluded = a
        .excluded
        .iter()
        .map(|e| {
            let mut em = Map::new();
            let by = match e.by {
                Excluder::FeatureModel => "feature model",
                Excluder::Constraints => "constraints",
            };
            em.insert("by", string(by));
            em.insert("configurations", counted(&e.configurations));
            em.insert(
                "witness",
                e.witness.as_ref().map_or_else(null, |w| pairs(w)),
            );
            let reasons = e.reasons.iter().map(|r| r.to_node(sources)).collect();
            em.insert("reasons", Node::new(Value::Seq(reasons), Span::NONE));
            Node::new(Value::Map(em), Span::NONE)
        })
        .collect();
    m.insert("excluded", Node::new(Value::Seq(excluded), Span::NONE));
    let redundant = a.redundant.iter().map(|r| r.to_node(sources)).collect();
    m.insert("redundant", Node::new(Value::Seq(redundant), Span::NONE));
    if !a.commonality.is_empty() {
        let mut cm = Map::new();
        for (id, c) in &a.commonality {
            cm.insert(id.clone(), counted(c));
        }
        m.insert("commonality", Node::new(Value::Map(cm), Span::NONE));
        let atomic = a.atomic.iter().map(strings).collect();
        m.insert("atomic", Node::new(Value::Seq(atomic), Span::NONE));
    }
    if let Some(why) = &a.why {
        m.insert("why", why_json(sources, why));
    }
    if !a.sample.is_empty() {
        let sample = a.sample.iter().map(|c| pairs(c)).collect();
        m.insert("sample", Node::new(Value::Seq(sample), Span::NONE));
    }
    m.insert("unmodelled", strings(&a.unmodelled));
    let presets = a
        .presets
        .iter()
        .map(|p| {
            let mut pm = Map::new();
            pm.insert("name", string(&p.name));
            pm.insert(
                "error",
                p.error.as_ref().map_or_else(null, |e| string(&e.message)),
            );
            pm.insert("same_as", p.same_as.as_deref().map_or_else(null, string));
            Node::new(Value::Map(pm), Span::NONE)
        })
        .collect();
    m.insert("presets", Node::new(Value::Seq(presets), Span::NONE));
    if let Some((n, complete)) = a.validated {
        let mut vm = Map::new();
        vm.insert("topologies", Node::number(n as f64));
        vm.insert("complete", Node::bool(complete));
        m.insert("validated", Node::new(Value::Map(vm), Span::NONE));
    }
    if let Some((topologies, complete)) = &a.enumerated {
        let mut tm = Map::new();
        let list = topologies.iter().map(strings).collect();
        tm.insert("topologies", Node::new(Value::Seq(list), Span::NONE));
        tm.insert("complete", Node::bool(*complete));
        m.insert("topologies_listed", Node::new(Value::Map(tm), Span::NONE));
    }
    Node::new(Value::Map(m), Span::NONE)
}

/// `--why`: `elements` (`element`, `dead`, `reasons`), `inputs` (`input`,
/// `because`: `unread`, `determined` or `readers`; `reasons`: the parts
/// that make it determined; `readers`: reasons with a `verdict`) and `conditions` (`element`, `holds`, `condition`).
fn why_json(sources: &Sources, why: &Why) -> Node {
    let reasons = |rs: &[crate::reason::Reason]| {
        Node::new(
            Value::Seq(rs.iter().map(|r| r.to_node(sources)).collect()),
            Span::NONE,
        )
    };
    let mut m = Map::new();
    let elements = why
        .elements
        .iter()
        .map(|e| {
            let mut em = Map::new();
            em.insert("element", string(&e.element));
            em.insert("dead", Node::bool(e.dead));
            em.insert("reasons", reasons(&e.reasons));
            Node::new(Value::Map(em), Span::NONE)
        })
        .collect();
    m.insert("elements", Node::new(Value::Seq(elements), Span::NONE));
    let inputs = why
        .inputs
        .iter()
        .map(|i| {
            let mut im = Map::new();
            im.insert("input", string(&i.input));
            let readers = match &i.because {
                Irrelevance::Unread => {
                    im.insert("because", string("unread"));
                    Vec::new()
                }
                Irrelevance::Determined(rs) => {
                    im.insert("because", string("determined"));
                    im.insert("reasons", reasons(rs));
                    Vec::new()
                }
                Irrelevance::Readers(readers) => {
                    im.insert("because", string("readers"));
                    readers
                        .iter()
                        .map(|(r, v)| {
                            let mut node = r.to_node(sources);
                            if let Value::Map(rm) = &mut node.value {
                                rm.insert("verdict", string(v.word()));
                            }
                            node
                        })
                        .collect()
                }
            };
            im.insert("readers", Node::new(Value::Seq(readers), Span::NONE));
            Node::new(Value::Map(im), Span::NONE)
        })
        .collect();
    m.insert("inputs", Node::new(Value::Seq(inputs), Span::NONE));
    let conditions = why
        .conditions
        .iter()
        .map(|c| {
            let mut cm = Map::new();
            cm.insert("element", string(&c.element));
            cm.insert("holds", Node::bool(c.holds));
            cm.insert("condition", c.condition.to_node(sources));
            Node::new(Value::Map(cm), Span::NONE)
        })
        .collect();
    m.insert("conditions", Node::new(Value::Seq(conditions), Span::NONE));
    Node::new(Value::Map(m), Span::NONE)
}
