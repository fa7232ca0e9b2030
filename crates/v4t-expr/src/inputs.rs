//! Variability inputs: reading an input during evaluation (§2.5) and the
//! lodash `merge` used to accumulate presets and input files (§2.1).
//!
//! Reading an input may store its default into the assignments and re-evaluates
//! the value as an expression, so inputs can refer to other inputs and named
//! expressions; a reference back to an input that is being read is reported as
//! a cycle instead of recursing forever.

use v4t_yaml::{Key, Node, NodeRef, Span, Value, ValueRef};

use crate::error::{EvalError, Result};
use crate::evaluate::Evaluator;
use crate::operands::locate;

impl Evaluator<'_> {
    /// §2.5 steps 1-5 then re-evaluation of the result as a value expression.
    pub fn variability_input(&mut self, name: &str, span: Span) -> Result<Value> {
        if self.active_inputs.contains(name) {
            return Err(EvalError::new(
                format!("Variability input \"{name}\" is cyclic"),
                span,
            ));
        }
        self.active_inputs.push(name);
        let result = self
            .read_input(name, span)
            .and_then(|value| self.evaluate_owned(value).map_err(|e| locate(e, span)));
        self.active_inputs.pop();
        result
    }

    /// `Solver.getInput`: the assigned value, else the (stored) default, else
    /// the (stored) result of the default expression.
    fn read_input(&mut self, name: &str, span: Span) -> Result<Node> {
        let Some(definition) = self
            .definitions
            .and_then(|d| d.get(name).filter(|n| n.is_defined()))
        else {
            return Err(EvalError::new(
                format!("Variability input \"{name}\" is not defined"),
                span,
            ));
        };
        // An entry of `assigned` hides the base's, even when it is null.
        let value = match self.assigned.get(name) {
            Some(own) => Some(own),
            None => self.base.and_then(|b| b.get(name)),
        };
        if let Some(value) = value.filter(|n| n.is_defined()) {
            return Ok(value.clone());
        }
        if let Some(default) = definition.get_defined("default") {
            let default = default.to_node();
            self.assigned.insert(name, default.clone());
            return Ok(default);
        }
        let Some(expression) = definition.get_defined("default_expression") else {
            return Err(EvalError::new(
                format!(
                    "Variability input \"{name}\" has no value nor default (expression) assigned"
                ),
                span,
            ));
        };
        let value = self.evaluate(expression).map_err(|e| locate(e, span))?;
        if matches!(value, Value::Null) {
            return Err(EvalError::new(
                format!("Did not find variability input \"{name}\""),
                expression.span().or(span),
            ));
        }
        let node = Node::new(value, expression.span());
        self.assigned.insert(name, node.clone());
        Ok(node)
    }
}

/// lodash `merge` (§2.1): plain maps merge recursively, arrays merge by index,
/// null source overwrites, scalars overwrite.
///
/// A source that is neither a map nor a list leaves `target` unchanged, as
/// `merge(object, 5)` does; a map or list merged into a scalar target replaces it
/// with a copy. Merging a map into a list only sets the list's index keys (the
/// other keys would be non-index array properties, which YAML cannot show).
pub fn deep_merge<'a>(target: &mut Node, source: impl Into<NodeRef<'a>>) {
    let source = source.into();
    match (&mut target.value, source.value()) {
        (Value::Map(t), ValueRef::Map(s)) => {
            for (key, src) in s.iter() {
                match t.get_mut(key.name()) {
                    Some(slot) => merge_value(slot, src),
                    None => {
                        let mut slot = Node::new(Value::Null, src.span());
                        fresh_container(&mut slot, src);
                        merge_value(&mut slot, src);
                        t.push(Key::new(key.name(), key.span()), slot);
                    }
                }
            }
        }
        (Value::Seq(t), ValueRef::Seq(s)) => {
            for (i, src) in s.iter().enumerate() {
                match t.get_mut(i) {
                    Some(slot) => merge_value(slot, src),
                    None => {
                        let mut slot = Node::new(Value::Null, src.span());
                        fresh_container(&mut slot, src);
                        merge_value(&mut slot, src);
                        t.push(slot);
                    }
                }
            }
        }
        (Value::Seq(t), ValueRef::Map(s)) => {
            for (key, src) in s.iter() {
                let name = key.name();
                let index = name.parse::<usize>().ok().filter(|i| i.to_string() == name);
                if let Some(slot) = index.and_then(|i| t.get_mut(i)) {
                    merge_value(slot, src);
                }
            }
        }
        (_, ValueRef::Map(_) | ValueRef::Seq(_)) => {
            fresh_container(target, source);
            deep_merge(target, source);
        }
        _ => {}
    }
}

/// lodash's `baseMergeDeep`/`assignMergeValue` for one property.
fn merge_value(slot: &mut Node, src: NodeRef<'_>) {
    match (&slot.value, src.value()) {
        // A list source into a non-list starts from `[]`; a map source into a
        // non-object starts from `{}` (a list target keeps its list).
        (Value::Seq(_), ValueRef::Seq(_) | ValueRef::Map(_))
        | (Value::Map(_), ValueRef::Map(_)) => deep_merge(slot, src),
        (_, ValueRef::Map(_) | ValueRef::Seq(_)) => {
            fresh_container(slot, src);
            deep_merge(slot, src);
        }
        // Scalars (including null and dates) overwrite.
        _ => *slot = src.to_node(),
    }
}

/// Replaces `slot` by an empty container of the source's kind.
fn fresh_container(slot: &mut Node, src: NodeRef<'_>) {
    match src.value() {
        ValueRef::Map(_) => slot.value = Value::Map(v4t_yaml::Map::new()),
        ValueRef::Seq(_) => slot.value = Value::Seq(Vec::new()),
        _ => {}
    }
    slot.span = src.span();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{map, node};
    use v4t_yaml::{deep_equal, Map};

    const DEFINITIONS: &str = "{
        plain: {type: string},
        with_default: {default: 7},
        with_map_default: {default: {concat: [some, '_', value]}},
        with_expression: {default_expression: {add: [1, {variability_input: with_default}]}},
        empty_expression: {default_expression: {token: [a, ' ', 3]}},
        null_default: {default: null, default_expression: 'from expression'},
        dated: {default: 2023-01-01},
        unknown_map: {default: {foo: 1}},
        self_default: {default: {variability_input: self_default}},
        self_expression: {default_expression: {variability_input: self_expression}},
        ping: {default_expression: {value_expression: pong}},
        broken: null
    }";

    const EXPRESSIONS: &str = "{pong: {variability_input: ping}}";

    /// Reads input `name` with the definitions and expressions read as
    /// trees and read as [`v4t_yaml::Doc`]s: both must give the same value
    /// (or error) and store the same assignments.
    fn run(assigned: &str, name: &str) -> (std::result::Result<Value, EvalError>, Map) {
        let definitions = map(DEFINITIONS);
        let expressions = map(EXPRESSIONS);
        let mut e = Evaluator::new(Some(&definitions), Some(&expressions), map(assigned), 0.0);
        let result = e.variability_input(name, Span::NONE);
        let doc = |text: &str| {
            let schema = v4t_yaml::parse::Schema::JsYaml;
            v4t_yaml::parse_doc_reporting_duplicates(text, v4t_yaml::SourceId(0), schema)
                .map(|(d, _)| d)
                .unwrap_or_else(|e| panic!("{text:?}: {e:?}"))
        };
        let (definitions, expressions) = (doc(DEFINITIONS), doc(EXPRESSIONS));
        let mut read = Evaluator::reading(
            definitions.root().as_map(),
            expressions.root().as_map(),
            map(assigned),
            0.0,
        );
        let from_doc = read.variability_input(name, Span::NONE);
        match (&result, &from_doc) {
            (Ok(a), Ok(b)) => assert!(deep_equal(a, b), "{name}: {a:?} and {b:?}"),
            (Err(a), Err(b)) => assert_eq!((&a.message, a.span), (&b.message, b.span), "{name}"),
            _ => panic!("{name}: {result:?} and {from_doc:?}"),
        }
        let stored = |e: &Evaluator<'_>| Value::Map(e.assigned().clone());
        assert!(deep_equal(&stored(&e), &stored(&read)), "{name}");
        (result, e.assigned().clone())
    }

    fn value(assigned: &str, name: &str) -> Value {
        run(assigned, name)
            .0
            .unwrap_or_else(|e| panic!("{name}: {}", e.message))
    }

    fn message(assigned: &str, name: &str) -> String {
        match run(assigned, name).0 {
            Ok(v) => panic!("{name}: expected an error, got {v:?}"),
            Err(e) => e.message,
        }
    }

    #[test]
    fn assigned_values_win() {
        assert!(deep_equal(
            &value("{plain: hello}", "plain"),
            &Value::String("hello".into())
        ));
        assert!(deep_equal(
            &value("{with_default: 3}", "with_default"),
            &Value::Number(3.0)
        ));
        // false, 0 and "" are assigned values.
        assert!(deep_equal(
            &value("{with_default: false}", "with_default"),
            &Value::Bool(false)
        ));
        assert!(deep_equal(
            &value("{with_default: 0}", "with_default"),
            &Value::Number(0.0)
        ));
        assert!(deep_equal(
            &value("{with_default: ''}", "with_default"),
            &Value::String(String::new())
        ));
        // An assigned map is an operator expression.
        assert!(deep_equal(
            &value("{plain: {add: [1, 2]}}", "plain"),
            &Value::Number(3.0)
        ));
        assert_eq!(
            message("{plain: {foo: 1}}", "plain"),
            "Unknown value expression \"{\n    \"foo\": 1\n}\""
        );
    }

    #[test]
    fn null_counts_as_unassigned() {
        assert!(deep_equal(
            &value("{with_default: null}", "with_default"),
            &Value::Number(7.0)
        ));
        assert!(deep_equal(
            &value("{}", "null_default"),
            &Value::String("from expression".into())
        ));
    }

    /// [`Evaluator::over`] reads as the base with the assignments over it:
    /// the same values as one merged map, an own entry (even null) hiding
    /// the base's, and only the own entries and stored defaults kept.
    #[test]
    fn assignments_over_a_base_read_as_one_merged_map() {
        let definitions = map(DEFINITIONS);
        let base = map("{plain: from_base, with_default: 1, with_expression: 5}");
        let cases = [
            ("{}", "plain"),
            ("{plain: own}", "plain"),
            ("{with_default: null}", "with_default"),
            ("{}", "with_expression"),
            ("{with_expression: null}", "with_expression"),
            ("{}", "null_default"),
        ];
        for (own, name) in cases {
            let mut merged = base.clone();
            for (k, v) in map(own).iter() {
                merged.insert(k.name.as_str(), v.clone());
            }
            let mut whole = Evaluator::new(Some(&definitions), None, merged, 0.0);
            let want = whole.variability_input(name, Span::NONE).unwrap();
            let mut layered = Evaluator::new(Some(&definitions), None, map(own), 0.0).over(&base);
            let got = layered.variability_input(name, Span::NONE).unwrap();
            assert!(
                deep_equal(&got, &want),
                "{own} {name}: {got:?} and {want:?}"
            );
            assert_eq!(
                layered.assigned().get("plain").is_some(),
                own.contains("plain")
            );
        }
        // The own null hides the base's 1: the default is read and stored.
        let mut layered =
            Evaluator::new(Some(&definitions), None, map("{with_default: null}"), 0.0).over(&base);
        let seven = layered
            .variability_input("with_default", Span::NONE)
            .unwrap();
        assert!(deep_equal(&seven, &Value::Number(7.0)));
        assert!(deep_equal(
            &layered.assigned().get("with_default").unwrap().value,
            &Value::Number(7.0)
        ));
    }

    #[test]
    fn defaults_are_stored_and_evaluated() {
        let (result, assigned) = run("{}", "with_default");
        assert!(deep_equal(&result.unwrap(), &Value::Number(7.0)));
        assert!(deep_equal(
            &assigned.get("with_default").unwrap().value,
            &Value::Number(7.0)
        ));

        let (result, assigned) = run("{}", "with_map_default");
        assert!(deep_equal(
            &result.unwrap(),
            &Value::String("some_value".into())
        ));
        // The stored default is the raw expression, evaluated on every read.
        assert!(deep_equal(
            &assigned.get("with_map_default").unwrap().value,
            &node("{concat: [some, '_', value]}").value
        ));

        let (result, assigned) = run("{}", "with_expression");
        assert!(deep_equal(&result.unwrap(), &Value::Number(8.0)));
        assert!(deep_equal(
            &assigned.get("with_expression").unwrap().value,
            &Value::Number(8.0)
        ));
        assert!(deep_equal(
            &assigned.get("with_default").unwrap().value,
            &Value::Number(7.0)
        ));
    }

    #[test]
    fn input_errors() {
        assert_eq!(
            message("{}", "nope"),
            "Variability input \"nope\" is not defined"
        );
        assert_eq!(
            message("{}", "broken"),
            "Variability input \"broken\" is not defined"
        );
        assert_eq!(
            message("{}", "plain"),
            "Variability input \"plain\" has no value nor default (expression) assigned"
        );
        assert_eq!(
            message("{}", "empty_expression"),
            "Did not find variability input \"empty_expression\""
        );
        assert_eq!(
            message("{}", "dated"),
            "Unknown value expression \"\"2023-01-01T00:00:00.000Z\"\""
        );
        assert_eq!(
            message("{}", "unknown_map"),
            "Unknown value expression \"{\n    \"foo\": 1\n}\""
        );
    }

    #[test]
    fn cyclic_inputs_are_reported() {
        assert_eq!(
            message("{}", "self_default"),
            "Variability input \"self_default\" is cyclic"
        );
        assert_eq!(
            message("{}", "self_expression"),
            "Variability input \"self_expression\" is cyclic"
        );
        assert_eq!(
            message("{}", "ping"),
            "Variability input \"ping\" is cyclic"
        );
    }

    #[test]
    fn without_definitions_no_input_exists() {
        let mut e = Evaluator::new(None, None, map("{a: 1}"), 0.0);
        assert_eq!(
            e.variability_input("a", Span::NONE).unwrap_err().message,
            "Variability input \"a\" is not defined"
        );
    }

    #[test]
    fn input_operator_checks_its_argument() {
        let definitions = map(DEFINITIONS);
        let mut e = Evaluator::new(Some(&definitions), None, Map::new(), 0.0);
        assert!(deep_equal(
            &e.evaluate(&node("{variability_input: with_default}"))
                .unwrap(),
            &Value::Number(7.0)
        ));
        assert_eq!(
            e.evaluate(&node("{variability_input: [a]}"))
                .unwrap_err()
                .message,
            "Element \"[\"a\"]\" is not a string"
        );
        let text = "{variability_input: nope}";
        let err = e.evaluate(&node(text)).unwrap_err();
        assert_eq!(err.message, "Variability input \"nope\" is not defined");
        assert_eq!(err.span.locate(text).start(), (1, 21));
    }

    /// `source` merged into `target`, `source` read as a tree; merging it
    /// read as a [`v4t_yaml::Doc`] must give the same tree, spans included.
    fn merged(target: &str, source: &str) -> Node {
        let mut tree = node(target);
        deep_merge(&mut tree, &node(source));
        let schema = v4t_yaml::parse::Schema::JsYaml;
        let (doc, _) =
            v4t_yaml::parse_doc_reporting_duplicates(source, v4t_yaml::SourceId(0), schema)
                .unwrap();
        let mut read = node(target);
        deep_merge(&mut read, doc.root());
        assert_eq!(
            format!("{tree:?}"),
            format!("{read:?}"),
            "{target} <- {source}"
        );
        tree
    }

    fn assert_merge(target: &str, source: &str, expected: &str) {
        let got = merged(target, source);
        assert!(
            deep_equal(&got.value, &node(expected).value),
            "{target} <- {source}: {got:?}"
        );
    }

    #[test]
    fn deep_merge_follows_lodash() {
        assert_merge("[1, 2, 3]", "[9]", "[9, 2, 3]");
        assert_merge("{a: [1, 2, 3]}", "{a: [9]}", "{a: [9, 2, 3]}");
        assert_merge(
            "{a: {b: 1, c: 2}}",
            "{a: {c: 3, d: 4}}",
            "{a: {b: 1, c: 3, d: 4}}",
        );
        assert_merge("{a: 1}", "{a: null}", "{a: null}");
        assert_merge("{a: {b: 1}}", "{a: 5}", "{a: 5}");
        assert_merge("{a: 5}", "{a: {b: 1}}", "{a: {b: 1}}");
        assert_merge("{a: 5}", "{a: [1]}", "{a: [1]}");
        assert_merge("{a: {x: 1}}", "{a: [1]}", "{a: [1]}");
        assert_merge("{a: [1, 2]}", "{a: {'1': 9, z: 3}}", "{a: [1, 9]}");
        assert_merge(
            "{a: [{x: 1}]}",
            "{a: [{y: 2}, 3]}",
            "{a: [{x: 1, y: 2}, 3]}",
        );
        assert_merge("{a: 1}", "{a: 2023-01-01}", "{a: 2023-01-01}");
        assert_merge("{a: 1}", "5", "{a: 1}");
        assert_merge("5", "{a: 1}", "{a: 1}");
    }

    #[test]
    fn deep_merge_keeps_order_and_copies_sources() {
        let got = merged("{b: 1, a: 2}", "{c: {d: [1]}, a: 3}");
        let keys: Vec<_> = got.as_map().unwrap().keys().collect();
        assert_eq!(keys, ["b", "a", "c"]);
        assert!(deep_equal(
            &got.get("c").unwrap().value,
            &node("{d: [1]}").value
        ));
    }
}
