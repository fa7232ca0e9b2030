//! Operand helpers shared by the operator families (arithmetic and
//! strings in `evaluate`, statistics in `analytics`, dates in `dates`):
//! argument shapes, the reference's `Element "..." is not ...` messages and
//! `JSON.stringify` renderings, and error locations.

use v4t_yaml::{Node, Span, Value};

use crate::compat;
use crate::error::EvalError;
use crate::error::Result;

/// The operator's argument as a list (`assert.isArray`).
pub(crate) fn list(arg: &Node, span: Span) -> Result<&[Node]> {
    match &arg.value {
        Value::Seq(items) => Ok(items),
        other => Err(not_a(compat::to_json(other), "not an array", span)),
    }
}

/// The operator's argument as a string (`assert.isString`).
pub(crate) fn raw_string(arg: &Node, span: Span) -> Result<&str> {
    match &arg.value {
        Value::String(s) => Ok(s),
        other => Err(not_a(compat::to_json(other), "not a string", span)),
    }
}

/// `Element "<json>" is <what>`.
pub(crate) fn not_a(json: String, what: &str, span: Span) -> EvalError {
    EvalError::new(format!("Element \"{json}\" is {what}"), span)
}

/// `JSON.stringify` of a raw argument; a missing one is `undefined`.
pub(crate) fn json_raw(node: Option<&Node>) -> String {
    match node {
        Some(node) => compat::to_json(&node.value),
        None => "undefined".to_string(),
    }
}

/// `JSON.stringify` of an evaluated value, whose `Null` means `undefined`.
pub(crate) fn json_eval(v: &Value) -> String {
    match v {
        Value::Null => "undefined".to_string(),
        v => compat::to_json(v),
    }
}

/// The span of an argument, or of its operator if the argument is missing or synthesized.
pub(crate) fn item_span(item: Option<&Node>, parent: Span) -> Span {
    item.map_or(parent, |n| n.span.or(parent))
}

/// Fills in a location for errors raised on synthesized nodes.
pub(crate) fn locate(mut e: EvalError, span: Span) -> EvalError {
    if !e.span.is_known() {
        e.span = span;
    }
    e
}
