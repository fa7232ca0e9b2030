//! Operand helpers shared by the operator families (arithmetic and
//! strings in `evaluate`, statistics in `analytics`, dates in `dates`):
//! argument shapes, the reference's `Element "..." is not ...` messages and
//! `JSON.stringify` renderings, and error locations.

use std::borrow::Cow;

use v4t_yaml::{json, NodeRef, SeqRef, Span, Value, ValueRef};

use crate::compat;
use crate::error::EvalError;
use crate::error::Result;

/// The operator's argument as a list (`assert.isArray`).
pub(crate) fn list(arg: NodeRef<'_>, span: Span) -> Result<SeqRef<'_>> {
    match arg.value() {
        ValueRef::Seq(items) => Ok(items),
        _ => Err(not_a(json::to_json(arg), "not an array", span)),
    }
}

/// The operator's argument as a string (`assert.isString`).
pub(crate) fn raw_string(arg: NodeRef<'_>, span: Span) -> Result<&str> {
    match arg.value() {
        ValueRef::String(s) => Ok(s),
        _ => Err(not_a(json::to_json(arg), "not a string", span)),
    }
}

/// The value of a node as written: borrowed from a tree, made from a
/// document.
pub(crate) fn value_of(node: NodeRef<'_>) -> Cow<'_, Value> {
    match node {
        NodeRef::Tree(n) => Cow::Borrowed(&n.value),
        other => Cow::Owned(other.to_node().value),
    }
}

/// `Element "<json>" is <what>`.
pub(crate) fn not_a(json: String, what: &str, span: Span) -> EvalError {
    EvalError::new(format!("Element \"{json}\" is {what}"), span)
}

/// `JSON.stringify` of a raw argument; a missing one is `undefined`.
pub(crate) fn json_raw(node: Option<NodeRef<'_>>) -> String {
    match node {
        Some(node) => json::to_json(node),
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
pub(crate) fn item_span(item: Option<NodeRef<'_>>, parent: Span) -> Span {
    item.map_or(parent, |n| n.span().or(parent))
}

/// Fills in a location for errors raised on synthesized nodes.
pub(crate) fn locate(mut e: EvalError, span: Span) -> EvalError {
    if !e.span.is_known() {
        e.span = span;
    }
    e
}
