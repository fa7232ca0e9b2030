//! The value-mode evaluator (§4.7): dispatch on the operator key, the
//! arithmetic, string and constraint operators, named value expressions and the
//! value-to-logic coercion (§4.8).
//!
//! Evaluation is eager and follows the reference's JavaScript semantics. Named
//! expressions and variability inputs may refer to each other, so the evaluator
//! tracks which ones are being evaluated (to report cycles) and how deeply
//! expressions are nested (to fail cleanly instead of overflowing the stack).

use std::borrow::Cow;

use v4t_yaml::{json, Map, MapRef, Node, NodeRef, SeqRef, Span, Value, ValueRef};

use crate::error::{EvalError, Result};
use crate::js;
use crate::operands::{item_span, json_eval, json_raw, list, locate, not_a, raw_string, value_of};

/// The deepest nesting of value expressions that is evaluated; deeper
/// expressions fail with a clear error instead of exhausting the stack.
pub const MAX_DEPTH: usize = 256;

/// The value operators, declared in the order in which the reference tries
/// them (the derived order is the precedence). Each variant is its key in
/// CamelCase (`VariabilityInput` is `variability_input`). Exported as
/// [`crate::ValueOp`], so that callers match operators, not key strings.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    VariabilityInput,
    ValueExpression,
    Concat,
    Join,
    Token,
    Equal,
    Greater,
    GreaterOrEqual,
    Less,
    LessOrEqual,
    InRange,
    ValidValues,
    Length,
    MinLength,
    MaxLength,
    Sum,
    Count,
    Min,
    Max,
    Median,
    Mean,
    Variance,
    StandardDeviation,
    LinearRegression,
    PolynomialRegression,
    LogarithmicRegression,
    ExponentialRegression,
    Weekday,
    Same,
    Before,
    BeforeOrSame,
    After,
    AfterOrSame,
    Within,
}

// `select` tracks the operators it has seen in a `u64`.
const _: () = assert!((Op::Within as u32) < 64);

impl Op {
    /// Every operator, in order.
    const ALL: [Op; Op::Within as usize + 1] = [
        Op::Add,
        Op::Sub,
        Op::Mul,
        Op::Div,
        Op::Mod,
        Op::VariabilityInput,
        Op::ValueExpression,
        Op::Concat,
        Op::Join,
        Op::Token,
        Op::Equal,
        Op::Greater,
        Op::GreaterOrEqual,
        Op::Less,
        Op::LessOrEqual,
        Op::InRange,
        Op::ValidValues,
        Op::Length,
        Op::MinLength,
        Op::MaxLength,
        Op::Sum,
        Op::Count,
        Op::Min,
        Op::Max,
        Op::Median,
        Op::Mean,
        Op::Variance,
        Op::StandardDeviation,
        Op::LinearRegression,
        Op::PolynomialRegression,
        Op::LogarithmicRegression,
        Op::ExponentialRegression,
        Op::Weekday,
        Op::Same,
        Op::Before,
        Op::BeforeOrSame,
        Op::After,
        Op::AfterOrSame,
        Op::Within,
    ];

    /// The operator spelled `key`, if any.
    pub fn parse(key: &str) -> Option<Op> {
        Some(match key {
            "add" => Op::Add,
            "sub" => Op::Sub,
            "mul" => Op::Mul,
            "div" => Op::Div,
            "mod" => Op::Mod,
            "variability_input" => Op::VariabilityInput,
            "value_expression" => Op::ValueExpression,
            "concat" => Op::Concat,
            "join" => Op::Join,
            "token" => Op::Token,
            "equal" => Op::Equal,
            "greater" => Op::Greater,
            "greater_or_equal" => Op::GreaterOrEqual,
            "less" => Op::Less,
            "less_or_equal" => Op::LessOrEqual,
            "in_range" => Op::InRange,
            "valid_values" => Op::ValidValues,
            "length" => Op::Length,
            "min_length" => Op::MinLength,
            "max_length" => Op::MaxLength,
            "sum" => Op::Sum,
            "count" => Op::Count,
            "min" => Op::Min,
            "max" => Op::Max,
            "median" => Op::Median,
            "mean" => Op::Mean,
            "variance" => Op::Variance,
            "standard_deviation" => Op::StandardDeviation,
            "linear_regression" => Op::LinearRegression,
            "polynomial_regression" => Op::PolynomialRegression,
            "logarithmic_regression" => Op::LogarithmicRegression,
            "exponential_regression" => Op::ExponentialRegression,
            "weekday" => Op::Weekday,
            "same" => Op::Same,
            "before" => Op::Before,
            "before_or_same" => Op::BeforeOrSame,
            "after" => Op::After,
            "after_or_same" => Op::AfterOrSame,
            "within" => Op::Within,
            _ => return None,
        })
    }

    /// The operator's key.
    pub fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Sub => "sub",
            Op::Mul => "mul",
            Op::Div => "div",
            Op::Mod => "mod",
            Op::VariabilityInput => "variability_input",
            Op::ValueExpression => "value_expression",
            Op::Concat => "concat",
            Op::Join => "join",
            Op::Token => "token",
            Op::Equal => "equal",
            Op::Greater => "greater",
            Op::GreaterOrEqual => "greater_or_equal",
            Op::Less => "less",
            Op::LessOrEqual => "less_or_equal",
            Op::InRange => "in_range",
            Op::ValidValues => "valid_values",
            Op::Length => "length",
            Op::MinLength => "min_length",
            Op::MaxLength => "max_length",
            Op::Sum => "sum",
            Op::Count => "count",
            Op::Min => "min",
            Op::Max => "max",
            Op::Median => "median",
            Op::Mean => "mean",
            Op::Variance => "variance",
            Op::StandardDeviation => "standard_deviation",
            Op::LinearRegression => "linear_regression",
            Op::PolynomialRegression => "polynomial_regression",
            Op::LogarithmicRegression => "logarithmic_regression",
            Op::ExponentialRegression => "exponential_regression",
            Op::Weekday => "weekday",
            Op::Same => "same",
            Op::Before => "before",
            Op::BeforeOrSame => "before_or_same",
            Op::After => "after",
            Op::AfterOrSame => "after_or_same",
            Op::Within => "within",
        }
    }
}

const WEEKDAYS: [&str; 7] = [
    "sunday",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
];

/// Evaluates value expressions (§4.7) and reads variability inputs (§2.5).
///
/// One evaluator lives for one resolution run: it owns the input assignments,
/// into which defaults are stored when first read.
#[derive(Debug)]
pub struct Evaluator<'a> {
    pub(crate) definitions: Option<MapRef<'a>>,
    pub(crate) expressions: Option<MapRef<'a>>,
    pub(crate) assigned: Map,
    /// Assignments read for the names `assigned` lacks ([`Evaluator::over`]).
    pub(crate) base: Option<&'a Map>,
    pub(crate) now_ms: f64,
    depth: usize,
    /// Named value expressions currently being evaluated (cycle detection).
    active_expressions: ActiveNames,
    /// Variability inputs currently being read (cycle detection).
    pub(crate) active_inputs: ActiveNames,
}

/// The names on the current evaluation path (for cycle detection), in one
/// reused buffer: entering a name does not allocate once the buffer has grown.
#[derive(Debug, Default)]
pub(crate) struct ActiveNames {
    text: String,
    /// End of each name in `text`.
    ends: Vec<usize>,
}

impl ActiveNames {
    pub(crate) fn contains(&self, name: &str) -> bool {
        let mut start = 0;
        self.ends.iter().any(|&end| {
            let found = self.text.get(start..end) == Some(name);
            start = end;
            found
        })
    }

    pub(crate) fn push(&mut self, name: &str) {
        self.text.push_str(name);
        self.ends.push(self.text.len());
    }

    pub(crate) fn pop(&mut self) {
        self.ends.pop();
        self.text.truncate(self.ends.last().copied().unwrap_or(0));
    }
}

impl<'a> Evaluator<'a> {
    /// `definitions`: `topology_template.variability.inputs` (name -> definition map), if any.
    /// `expressions`: `topology_template.variability.expressions`, if any.
    /// `assigned`: the accumulated input assignments (presets + inputs, already merged).
    /// `now_ms`: current time (ms since epoch) for `weekday` (computed once; UTC weekday).
    pub fn new(
        definitions: Option<&'a Map>,
        expressions: Option<&'a Map>,
        assigned: Map,
        now_ms: f64,
    ) -> Self {
        Evaluator::reading(
            definitions.map(MapRef::from),
            expressions.map(MapRef::from),
            assigned,
            now_ms,
        )
    }

    /// [`Evaluator::new`] with the sections read through [`MapRef`]: from
    /// an owned tree or a [`v4t_yaml::Doc`].
    pub fn reading(
        definitions: Option<MapRef<'a>>,
        expressions: Option<MapRef<'a>>,
        assigned: Map,
        now_ms: f64,
    ) -> Self {
        Evaluator {
            definitions,
            expressions,
            assigned,
            base: None,
            now_ms,
            depth: 0,
            active_expressions: ActiveNames::default(),
            active_inputs: ActiveNames::default(),
        }
    }

    /// Reads `base` for every input `assigned` has no entry for, as if
    /// `assigned` were `base` with its own entries over it: an analysis
    /// that evaluates one expression under many combinations of a few
    /// inputs assigns just those instead of copying every input each time.
    pub fn over(mut self, base: &'a Map) -> Self {
        self.base = Some(base);
        self
    }

    /// The named expression `variability.expressions[name]`, if defined (used by logic mode too).
    pub fn expression(&self, name: &str) -> Option<NodeRef<'a>> {
        self.expressions
            .and_then(|m| m.get(name).filter(|n| n.is_defined()))
    }

    /// The final input assignments (after defaults were stored), e.g. for
    /// reports; without the base of [`Evaluator::over`].
    pub fn assigned(&self) -> &Map {
        &self.assigned
    }

    /// Value-mode evaluation (§4.7 dispatch). Returns `Value::Null` for
    /// JavaScript `undefined`/`null` results (e.g. `token` out of range).
    pub fn evaluate<'n>(&mut self, expr: impl Into<NodeRef<'n>>) -> Result<Value> {
        self.evaluate_ref(expr.into())
    }

    fn evaluate_ref(&mut self, expr: NodeRef<'_>) -> Result<Value> {
        if self.depth >= MAX_DEPTH {
            return Err(EvalError::new(
                format!("Value expression is nested too deeply (more than {MAX_DEPTH} levels)"),
                expr.span(),
            ));
        }
        self.depth += 1;
        let result = self.dispatch(expr);
        self.depth -= 1;
        result
    }

    /// §4.8: evaluate `expr` in value mode and coerce to a boolean (errors with
    /// the pretty original expression).
    pub fn evaluate_as_logic<'n>(&mut self, expr: impl Into<NodeRef<'n>>) -> Result<bool> {
        let expr = expr.into();
        match self.evaluate_ref(expr)? {
            Value::Bool(b) => Ok(b),
            Value::String(_) => Ok(true),
            Value::Number(n) => Ok(n > 0.0),
            _ => Err(EvalError::new(
                format!(
                    "Unexpected value expression treated as logic \"{}\"",
                    json::to_json_pretty(expr)
                ),
                expr.span(),
            )),
        }
    }

    /// [`Self::evaluate`] of a node that is no longer needed: a literal is
    /// moved out instead of copied.
    pub(crate) fn evaluate_owned(&mut self, expr: Node) -> Result<Value> {
        if self.depth < MAX_DEPTH && is_literal(&expr.value) {
            return Ok(expr.value);
        }
        self.evaluate_ref(NodeRef::Tree(&expr))
    }

    fn dispatch(&mut self, expr: NodeRef<'_>) -> Result<Value> {
        let map = match expr.value() {
            ValueRef::Null => {
                return Err(EvalError::new("Received undefined condition", expr.span()))
            }
            ValueRef::Bool(_) | ValueRef::Number(_) | ValueRef::String(_) | ValueRef::Seq(_) => {
                return Ok(value_of(expr).into_owned())
            }
            ValueRef::Timestamp(_) => return Err(unknown(expr)),
            ValueRef::Map(map) => map,
        };
        match select(map) {
            Some((op, arg)) => self.operator(op, arg, expr),
            None => Err(unknown(expr)),
        }
    }

    fn operator(&mut self, op: Op, arg: NodeRef<'_>, expr: NodeRef<'_>) -> Result<Value> {
        let span = arg.span().or(expr.span());
        match op {
            Op::Add => self.op_add(arg, span),
            Op::Mul => self.op_mul(arg, span),
            Op::Sub | Op::Div => self.op_sub_div(op, arg, span),
            Op::Mod => self.op_mod(arg, span),
            Op::VariabilityInput => self.op_variability_input(arg, span),
            Op::ValueExpression => self.op_value_expression(arg, span),
            Op::Concat => self.op_concat(arg, span),
            Op::Join => self.op_join(arg, span),
            Op::Token => self.op_token(arg, span),
            Op::Equal => self.op_equal(arg, span),
            Op::Greater | Op::GreaterOrEqual | Op::Less | Op::LessOrEqual => {
                self.op_compare(op, arg, span)
            }
            Op::InRange => self.op_in_range(arg, span),
            Op::ValidValues => self.op_valid_values(arg, span),
            Op::Length | Op::MinLength | Op::MaxLength => self.op_length(op, arg, span),
            Op::Sum
            | Op::Count
            | Op::Min
            | Op::Max
            | Op::Median
            | Op::Mean
            | Op::Variance
            | Op::StandardDeviation => crate::analytics::statistic(op.name(), arg, span),
            Op::LinearRegression
            | Op::PolynomialRegression
            | Op::LogarithmicRegression
            | Op::ExponentialRegression => crate::analytics::regression(op.name(), arg, span),
            Op::Weekday => self.op_weekday(),
            Op::Same | Op::Before | Op::BeforeOrSame | Op::After | Op::AfterOrSame | Op::Within => {
                crate::dates::compare(op.name(), arg, span, self.now_ms)
            }
        }
    }

    #[inline(never)]
    fn op_add(&mut self, arg: NodeRef<'_>, span: Span) -> Result<Value> {
        let mut sum = 0.0;
        for item in list(arg, span)? {
            sum += self.eval_number(Some(item), span)?;
        }
        Ok(Value::Number(sum))
    }

    #[inline(never)]
    fn op_mul(&mut self, arg: NodeRef<'_>, span: Span) -> Result<Value> {
        let mut product = 1.0;
        for item in list(arg, span)? {
            product *= self.eval_number(Some(item), span)?;
        }
        Ok(Value::Number(product))
    }

    #[inline(never)]
    fn op_sub_div(&mut self, op: Op, arg: NodeRef<'_>, span: Span) -> Result<Value> {
        let items = list(arg, span)?;
        let mut acc = self.eval_number(items.first(), span)?;
        for item in items.iter().skip(1) {
            let x = self.eval_number(Some(item), span)?;
            acc = if op == Op::Sub { acc - x } else { acc / x };
        }
        Ok(Value::Number(acc))
    }

    #[inline(never)]
    fn op_mod(&mut self, arg: NodeRef<'_>, span: Span) -> Result<Value> {
        let items = list(arg, span)?;
        let a = self.eval_number(items.first(), span)?;
        let b = self.eval_number(items.get(1), span)?;
        Ok(Value::Number(a % b))
    }

    #[inline(never)]
    fn op_variability_input(&mut self, arg: NodeRef<'_>, span: Span) -> Result<Value> {
        let name = raw_string(arg, span)?;
        self.variability_input(name, span)
    }

    #[inline(never)]
    fn op_value_expression(&mut self, arg: NodeRef<'_>, span: Span) -> Result<Value> {
        let name = raw_string(arg, span)?;
        self.value_expression(name, span)
    }

    #[inline(never)]
    fn op_concat(&mut self, arg: NodeRef<'_>, span: Span) -> Result<Value> {
        let mut out = String::new();
        for item in list(arg, span)? {
            let v = self.eval_item(Some(item), span)?;
            out.push_str(&js::join_item(defined(&v)));
        }
        Ok(Value::String(out))
    }

    #[inline(never)]
    fn op_join(&mut self, arg: NodeRef<'_>, span: Span) -> Result<Value> {
        let items = list(arg, span)?;
        let array = self.eval_item(items.first(), span)?;
        let Value::Seq(values) = &*array else {
            return Err(not_a(
                json_eval(&array),
                "not an array",
                item_span(items.first(), span),
            ));
        };
        let separator = match items.get(1) {
            None => ",".to_string(),
            Some(d) => js::to_string(Some(&value_of(d))),
        };
        // The items are value expressions (the reference joins them raw,
        // so `{concat: ..}` became `[object Object]`).
        let values = self.eval_each(SeqRef::Tree(values), span)?;
        Ok(Value::String(js::join(values.iter(), &separator)))
    }

    #[inline(never)]
    fn op_token(&mut self, arg: NodeRef<'_>, span: Span) -> Result<Value> {
        let items = list(arg, span)?;
        let text = self.eval_item(items.first(), span)?;
        let Value::String(text) = &*text else {
            return Err(not_a(
                json_eval(&text),
                "not a string",
                item_span(items.first(), span),
            ));
        };
        Ok(token(text, items.get(1), items.get(2)))
    }

    #[inline(never)]
    fn op_equal(&mut self, arg: NodeRef<'_>, span: Span) -> Result<Value> {
        let items = list(arg, span)?;
        let first = self.eval_item(items.first(), span)?;
        for (i, item) in items.iter().enumerate() {
            // By value, lists and maps too (the reference compares them by
            // identity); NaN is never equal, also to itself.
            let equal = if i == 0 {
                !matches!(*first, Value::Number(n) if n.is_nan())
            } else {
                let v = self.eval_item(Some(item), span)?;
                js::value_equal(defined(&v), defined(&first), false)
            };
            if !equal {
                return Ok(Value::Bool(false));
            }
        }
        Ok(Value::Bool(true))
    }

    #[inline(never)]
    fn op_compare(&mut self, op: Op, arg: NodeRef<'_>, span: Span) -> Result<Value> {
        let items = list(arg, span)?;
        let a = self.eval_item(items.first(), span)?;
        let b = self.eval_item(items.get(1), span)?;
        let (a, b) = (defined(&a), defined(&b));
        Ok(Value::Bool(match op {
            Op::Greater => js::gt(a, b),
            Op::GreaterOrEqual => js::ge(a, b),
            Op::Less => js::lt(a, b),
            _ => js::le(a, b),
        }))
    }

    #[inline(never)]
    fn op_in_range(&mut self, arg: NodeRef<'_>, span: Span) -> Result<Value> {
        let items = list(arg, span)?;
        let x = self.eval_item(items.first(), span)?;
        let bounds = match items.get(1).map(NodeRef::value) {
            Some(ValueRef::Seq(bounds)) => bounds,
            _ => {
                return Err(not_a(
                    json_raw(items.get(1)),
                    "not an array",
                    item_span(items.get(1), span),
                ))
            }
        };
        // The bounds are value expressions (the reference reads them raw).
        let lo = match bounds.first() {
            Some(b) => Some(self.eval_item(Some(b), span)?.into_owned()),
            None => None,
        };
        let hi = match bounds.get(1) {
            Some(b) => Some(self.eval_item(Some(b), span)?.into_owned()),
            None => None,
        };
        let x = defined(&x);
        Ok(Value::Bool(
            js::le(lo.as_ref(), x) && js::le(x, hi.as_ref()),
        ))
    }

    #[inline(never)]
    fn op_valid_values(&mut self, arg: NodeRef<'_>, span: Span) -> Result<Value> {
        let items = list(arg, span)?;
        let x = self.eval_item(items.first(), span)?;
        let values = self.eval_item(items.get(1), span)?;
        let Value::Seq(values) = &*values else {
            return Err(not_a(
                json_eval(&values),
                "not an array",
                item_span(items.get(1), span),
            ));
        };
        // The items are value expressions, compared by value.
        let values = self.eval_each(SeqRef::Tree(values), span)?;
        let x = defined(&x);
        Ok(Value::Bool(
            values.iter().any(|v| js::value_equal(Some(v), x, true)),
        ))
    }

    #[inline(never)]
    fn op_length(&mut self, op: Op, arg: NodeRef<'_>, span: Span) -> Result<Value> {
        let items = list(arg, span)?;
        let value = self.eval_item(items.first(), span)?;
        // Strings by UTF-16 units, lists by items (the reference rejects lists).
        let len = match &*value {
            Value::String(text) => js::utf16_len(text) as f64,
            Value::Seq(list) => list.len() as f64,
            _ => {
                return Err(not_a(
                    json_eval(&value),
                    "not a string",
                    item_span(items.first(), span),
                ))
            }
        };
        let n = self.eval_item(items.get(1), span)?;
        // The reference asserts a number here: `length: [b, A]` is an error, not `false`.
        let Value::Number(n) = *n else {
            return Err(not_a(
                json_eval(&n),
                "not a number",
                item_span(items.get(1), span),
            ));
        };
        Ok(Value::Bool(match op {
            Op::Length => len == n,
            Op::MinLength => len >= n,
            _ => len <= n,
        }))
    }

    #[inline(never)]
    fn op_weekday(&self) -> Result<Value> {
        let day = WEEKDAYS
            .get(crate::compat::weekday(self.now_ms))
            .copied()
            .unwrap_or("sunday");
        Ok(Value::String(day.to_string()))
    }

    /// `{value_expression: name}` (§4.6).
    fn value_expression(&mut self, name: &str, span: Span) -> Result<Value> {
        let Some(found) = self.expression(name) else {
            return Err(EvalError::new(
                format!("Did not find value expression \"{name}\""),
                span,
            ));
        };
        if self.active_expressions.contains(name) {
            return Err(EvalError::new(
                format!("Value expression \"{name}\" is cyclic"),
                span,
            ));
        }
        self.active_expressions.push(name);
        let result = self.evaluate_ref(found);
        self.active_expressions.pop();
        result
    }

    /// Evaluates an argument; a missing one is JavaScript's `undefined`.
    /// Literals (below the depth limit) are borrowed, not copied.
    /// The items of a list argument, operator expressions evaluated (other
    /// items, `null` included, as they are).
    fn eval_each(&mut self, items: SeqRef<'_>, parent: Span) -> Result<Vec<Value>> {
        items
            .iter()
            .map(|item| match item.value() {
                ValueRef::Map(_) => self.eval_item(Some(item), parent).map(Cow::into_owned),
                _ => Ok(value_of(item).into_owned()),
            })
            .collect()
    }

    fn eval_item<'n>(&mut self, item: Option<NodeRef<'n>>, parent: Span) -> Result<Cow<'n, Value>> {
        match item {
            Some(item) if self.depth < MAX_DEPTH && is_literal_ref(item.value()) => {
                Ok(value_of(item))
            }
            Some(item) => self
                .evaluate_ref(item)
                .map(Cow::Owned)
                .map_err(|e| locate(e, parent)),
            None => Err(EvalError::new("Received undefined condition", parent)),
        }
    }

    /// Evaluates an argument that must yield a number.
    fn eval_number(&mut self, item: Option<NodeRef<'_>>, parent: Span) -> Result<f64> {
        match &*self.eval_item(item, parent)? {
            Value::Number(n) => Ok(*n),
            other => Err(not_a(
                json_eval(other),
                "not a number",
                item_span(item, parent),
            )),
        }
    }
}

/// The operator the reference applies to `map`: the first of [`Op`] whose
/// key the map has with a defined value. Only the first entry of a key counts
/// (as for [`Map::get`]); one pass over the entries instead of a lookup per
/// operator.
fn select(map: MapRef<'_>) -> Option<(Op, NodeRef<'_>)> {
    let mut best: Option<(Op, NodeRef<'_>)> = None;
    let mut seen = 0u64;
    for (key, value) in map.iter() {
        let Some(op) = Op::parse(key.name()) else {
            continue;
        };
        let bit = 1u64 << (op as u32);
        if seen & bit != 0 {
            continue;
        }
        seen |= bit;
        if value.is_defined() && best.is_none_or(|(b, _)| op < b) {
            best = Some((op, value));
        }
    }
    best
}

/// `split(delimiter)[index]` with JavaScript's rules for both arguments.
fn token(text: &str, delimiter: Option<NodeRef<'_>>, index: Option<NodeRef<'_>>) -> Value {
    let parts: Vec<String> = match delimiter {
        None => vec![text.to_string()],
        Some(d) => {
            let sep = js::to_string(Some(&value_of(d)));
            if sep.is_empty() {
                text.chars().map(String::from).collect()
            } else {
                text.split(sep.as_str()).map(str::to_string).collect()
            }
        }
    };
    let position = match index.map(NodeRef::value) {
        Some(ValueRef::Number(n)) if n.fract() == 0.0 && (0.0..4_294_967_295.0).contains(&n) => {
            Some(n as usize)
        }
        Some(ValueRef::String(s))
            if !s.is_empty()
                && s.bytes().all(|b| b.is_ascii_digit())
                && (s.len() == 1 || !s.starts_with('0')) =>
        {
            s.parse::<usize>().ok()
        }
        _ => None,
    };
    match position.and_then(|i| parts.get(i)) {
        Some(part) => Value::String(part.clone()),
        None => Value::Null,
    }
}

/// Whether `v` evaluates to (a copy of) itself (see [`Evaluator::dispatch`]).
fn is_literal(v: &Value) -> bool {
    matches!(
        v,
        Value::Bool(_) | Value::Number(_) | Value::String(_) | Value::Seq(_)
    )
}

/// [`is_literal`] of a node read through a [`NodeRef`].
fn is_literal_ref(v: ValueRef<'_>) -> bool {
    matches!(
        v,
        ValueRef::Bool(_) | ValueRef::Number(_) | ValueRef::String(_) | ValueRef::Seq(_)
    )
}

/// An evaluated value as an operand: `Value::Null` stands for `undefined`.
pub(crate) fn defined(v: &Value) -> Option<&Value> {
    match v {
        Value::Null => None,
        v => Some(v),
    }
}

fn unknown(expr: NodeRef<'_>) -> EvalError {
    let mut e = EvalError::new(
        format!(
            "Unknown value expression \"{}\"",
            json::to_json_pretty(expr)
        ),
        expr.span(),
    );
    // The map's first key that is no operator is what the author meant as
    // the operator (a known one with a null operand is left alone).
    let key = expr.as_map().and_then(|m| {
        m.iter()
            .map(|(k, _)| k)
            .find(|k| Op::parse(k.name()).is_none())
    });
    if let Some(key) = key {
        e.unknown_operator = Some(Box::new((key.name().to_string(), key.span())));
    }
    e
}

/// The names of the value operators (for "did you mean" suggestions).
pub fn operator_names() -> impl Iterator<Item = &'static str> {
    Op::ALL.iter().map(|op| op.name())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::testing::{map, node};
    use v4t_yaml::{deep_equal, Key};

    /// Monday, 2023-01-02T00:00:00Z.
    pub(crate) const NOW: f64 = 1_672_617_600_000.0;

    fn evaluator() -> Evaluator<'static> {
        Evaluator::new(None, None, Map::new(), NOW)
    }

    /// Evaluates `text` read as a tree and read as a [`v4t_yaml::Doc`]:
    /// both readings must give the same value, or the same error at the
    /// same place.
    pub(crate) fn eval(text: &str) -> Result<Value> {
        let tree = evaluator().evaluate(&node(text));
        let schema = v4t_yaml::parse::Schema::JsYaml;
        let (doc, _) =
            v4t_yaml::parse_doc_reporting_duplicates(text, v4t_yaml::SourceId(0), schema)
                .unwrap_or_else(|e| panic!("{text:?}: {e:?}"));
        let read = evaluator().evaluate(doc.root());
        match (&tree, &read) {
            (Ok(a), Ok(b)) => assert!(deep_equal(a, b), "{text}: tree {a:?}, document {b:?}"),
            (Err(a), Err(b)) => assert_eq!(
                (&a.message, a.span, &a.unknown_operator),
                (&b.message, b.span, &b.unknown_operator),
                "{text}"
            ),
            _ => panic!("{text}: tree {tree:?}, document {read:?}"),
        }
        tree
    }

    /// Asserts that `text` evaluates to the value written as `expected`.
    pub(crate) fn check(text: &str, expected: &str) {
        let got = eval(text).unwrap_or_else(|e| panic!("{text}: {}", e.message));
        let want = node(expected).value;
        assert!(
            deep_equal(&got, &want),
            "{text}: got {got:?}, want {want:?}"
        );
    }

    /// Asserts that `text` fails with exactly `message`.
    pub(crate) fn check_err(text: &str, message: &str) {
        match eval(text) {
            Ok(v) => panic!("{text}: expected error {message:?}, got {v:?}"),
            Err(e) => assert_eq!(e.message, message, "{text}"),
        }
    }

    fn number(text: &str) -> f64 {
        match eval(text) {
            Ok(Value::Number(n)) => n,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn literals_are_returned_as_is() {
        check("5", "5");
        check("'x'", "'x'");
        check("true", "true");
        check("[1, {add: [1]}]", "[1, {add: [1]}]");
        check_err("null", "Received undefined condition");
        check_err(
            "2023-01-01",
            "Unknown value expression \"\"2023-01-01T00:00:00.000Z\"\"",
        );
    }

    #[test]
    fn unknown_operators_print_the_whole_map() {
        check_err(
            "{foo: 1}",
            "Unknown value expression \"{\n    \"foo\": 1\n}\"",
        );
        check_err(
            "{and: [true]}",
            "Unknown value expression \"{\n    \"and\": [\n        true\n    ]\n}\"",
        );
        // A null operand does not select the operator.
        check_err(
            "{add: null}",
            "Unknown value expression \"{\n    \"add\": null\n}\"",
        );
        check_err(
            "{logic_expression: x}",
            "Unknown value expression \"{\n    \"logic_expression\": \"x\"\n}\"",
        );
    }

    #[test]
    fn unknown_operators_are_named_with_their_place() {
        let unknown = |text: &str| {
            eval(text)
                .unwrap_err()
                .unknown_operator
                .map(|b| (b.0, b.1.locate(text).start()))
        };
        assert_eq!(unknown("{equals: [1, 1]}"), Some(("equals".into(), (1, 2))));
        assert_eq!(unknown("{add: null, x: 1}"), Some(("x".into(), (1, 13))));
        assert_eq!(unknown("{add: null}"), None);
        assert_eq!(operator_names().count(), Op::ALL.len());
        assert!(operator_names().all(|n| Op::parse(n).is_some()));
    }

    #[test]
    fn operator_precedence_follows_the_key_order() {
        // `add` comes before `concat` whatever the map order.
        check("{concat: [a], add: [1, 2]}", "3");
    }

    #[test]
    fn operator_keys_round_trip_in_precedence_order() {
        let keys = [
            "add",
            "sub",
            "mul",
            "div",
            "mod",
            "variability_input",
            "value_expression",
            "concat",
            "join",
            "token",
            "equal",
            "greater",
            "greater_or_equal",
            "less",
            "less_or_equal",
            "in_range",
            "valid_values",
            "length",
            "min_length",
            "max_length",
            "sum",
            "count",
            "min",
            "max",
            "median",
            "mean",
            "variance",
            "standard_deviation",
            "linear_regression",
            "polynomial_regression",
            "logarithmic_regression",
            "exponential_regression",
            "weekday",
            "same",
            "before",
            "before_or_same",
            "after",
            "after_or_same",
            "within",
        ];
        let ops: Vec<Op> = keys.iter().filter_map(|k| Op::parse(k)).collect();
        assert_eq!(ops.len(), keys.len());
        assert!(ops.windows(2).all(|w| w[0] < w[1]));
        assert!(ops.iter().zip(keys).all(|(op, k)| op.name() == k));
        assert_eq!(Op::parse("logic_expression"), None);
        assert_eq!(Op::parse("Add"), None);
    }

    #[test]
    fn only_the_first_entry_of_a_key_selects_an_operator() {
        let entry = |k: &str, v: Node| (Key::new(k, Span::NONE), v);
        let items = || Node::seq(vec![Node::number(1.0), Node::number(2.0)]);
        // `{add: null, add: [1, 2]}`: the lookup finds the null entry.
        let expr = Node::map(Map::from_entries(vec![
            entry("add", Node::null()),
            entry("add", items()),
        ]));
        assert!(evaluator().evaluate(&expr).is_err());
        let expr = Node::map(Map::from_entries(vec![
            entry("concat", items()),
            entry("add", Node::null()),
            entry("add", items()),
        ]));
        assert!(deep_equal(
            &evaluator().evaluate(&expr).unwrap(),
            &Value::String("12".into())
        ));
        let expr = Node::map(Map::from_entries(vec![
            entry("concat", items()),
            entry("add", items()),
            entry("add", Node::null()),
        ]));
        assert!(deep_equal(
            &evaluator().evaluate(&expr).unwrap(),
            &Value::Number(3.0)
        ));
    }

    #[test]
    fn active_names_find_whole_names_only() {
        let mut names = ActiveNames::default();
        assert!(!names.contains(""));
        names.push("ab");
        names.push("c");
        assert!(names.contains("ab") && names.contains("c"));
        assert!(!names.contains("a") && !names.contains("abc") && !names.contains("bc"));
        names.pop();
        assert!(!names.contains("c") && names.contains("ab"));
        names.push("");
        assert!(names.contains(""));
        names.pop();
        names.pop();
        assert!(!names.contains("ab"));
        names.pop();
    }

    #[test]
    fn add() {
        check("{add: [1, 2, 3.5]}", "6.5");
        check("{add: []}", "0");
        check("{add: [1, {add: [2, 3]}]}", "6");
        check_err("{add: [1, abc]}", "Element \"\"abc\"\" is not a number");
        check_err("{add: [1, [2]]}", "Element \"[2]\" is not a number");
        check_err("{add: [1, null]}", "Received undefined condition");
        check_err("{add: 5}", "Element \"5\" is not an array");
        check_err(
            "{add: [{token: [a, ' ', 3]}]}",
            "Element \"undefined\" is not a number",
        );
    }

    #[test]
    fn sub() {
        check("{sub: [10]}", "10");
        check("{sub: [10, 3, 2]}", "5");
        check_err("{sub: []}", "Received undefined condition");
        check_err("{sub: [a, 1]}", "Element \"\"a\"\" is not a number");
        check_err("{sub: [1, true]}", "Element \"true\" is not a number");
    }

    #[test]
    fn mul() {
        check("{mul: [2, 3, 4]}", "24");
        check("{mul: []}", "1");
        check_err("{mul: [2, '3']}", "Element \"\"3\"\" is not a number");
    }

    #[test]
    fn div() {
        check("{div: [10, 4]}", "2.5");
        check("{div: [10, 2, 5]}", "1");
        assert_eq!(number("{div: [1, 0]}"), f64::INFINITY);
        assert_eq!(number("{div: [-1, 0]}"), f64::NEG_INFINITY);
        assert!(number("{div: [0, 0]}").is_nan());
        check_err("{div: []}", "Received undefined condition");
        check_err("{div: {a: 1}}", "Element \"{\"a\":1}\" is not an array");
    }

    #[test]
    fn modulo() {
        check("{mod: [7, 3]}", "1");
        check("{mod: [-7, 3]}", "-1");
        check("{mod: [5.5, 2]}", "1.5");
        assert!(number("{mod: [1, 0]}").is_nan());
        check_err("{mod: [1]}", "Received undefined condition");
        check_err("{mod: [1, x]}", "Element \"\"x\"\" is not a number");
    }

    #[test]
    fn concat() {
        check("{concat: ['hello', ' ', 'world']}", "'hello world'");
        check("{concat: [1, true, 2.5, [1, 2], x]}", "'1true2.51,2x'");
        check(
            "{concat: [[null, [3, [4]], {a: 1}]]}",
            "',3,4,[object Object]'",
        );
        check("{concat: [{token: [a, ' ', 5]}, x]}", "x");
        check(
            "{concat: [{div: [1, 0]}, {mul: [0.1, 3]}]}",
            "'Infinity0.30000000000000004'",
        );
        check("{concat: []}", "''");
        check_err("{concat: [a, null]}", "Received undefined condition");
        check_err("{concat: abc}", "Element \"\"abc\"\" is not an array");
    }

    #[test]
    fn join() {
        check("{join: [[a, b, 1], '-']}", "'a-b-1'");
        check("{join: [[a, b, 1]]}", "'a,b,1'");
        check("{join: [[a, null, [1, 2]], '']}", "'a1,2'");
        check("{join: [[a, b], 0]}", "'a0b'");
        // Items are value expressions (issue 12).
        check("{join: [[{concat: [a, b]}, {add: [1, 2]}], '-']}", "'ab-3'");
        check_err("{join: [abc, '-']}", "Element \"\"abc\"\" is not an array");
        check_err("{join: []}", "Received undefined condition");
    }

    #[test]
    fn token() {
        check("{token: ['hello world', ' ', 1]}", "world");
        check("{token: ['a,b,c', ',', '2']}", "c");
        check("{token: ['abc', '', 1]}", "b");
        check("{token: ['abc']}", "null");
        check("{token: ['a b', ' ', 5]}", "null");
        check("{token: ['a b', ' ', -1]}", "null");
        check("{token: ['a b', ' ', 0.5]}", "null");
        check("{token: [{concat: [a, ' ', b]}, ' ', 0]}", "a");
        check_err("{token: [5, ' ', 0]}", "Element \"5\" is not a string");
        check_err("{token: []}", "Received undefined condition");
    }

    #[test]
    fn equal() {
        check("{equal: [1, 1, 1]}", "true");
        check("{equal: [1, 1, 2]}", "false");
        check("{equal: [1, '1']}", "false");
        check("{equal: [a, {concat: [a]}]}", "true");
        // Lists and maps by value (issue 12; the reference: by identity).
        check("{equal: [[1], [1]]}", "true");
        check("{equal: [[1], [1, 2]]}", "false");
        check("{equal: [{concat: [a]}, a, {token: [a, ' ', 0]}]}", "true");
        check("{equal: [[1]]}", "true");
        check("{equal: [{div: [0, 0]}]}", "false");
        check(
            "{equal: [{token: [a, ' ', 4]}, {token: [b, ' ', 4]}]}",
            "true",
        );
        // `every` stops at the first difference: the unknown input is never read.
        check("{equal: [1, 2, {variability_input: nope}]}", "false");
        check_err("{equal: []}", "Received undefined condition");
        check_err("{equal: 1}", "Element \"1\" is not an array");
    }

    #[test]
    fn comparisons() {
        check("{greater: [2, 1]}", "true");
        check("{greater: [1, 1]}", "false");
        check("{greater: [b, a]}", "true");
        check("{greater: ['10', 9]}", "true");
        check("{greater: ['10', '9']}", "false");
        check("{greater_or_equal: [1, 1]}", "true");
        check("{greater_or_equal: [abc, 1]}", "false");
        check("{less: [1, 2]}", "true");
        check("{less: [2, 1]}", "false");
        check("{less_or_equal: [1, 1]}", "true");
        check("{less_or_equal: [2, 1]}", "false");
        check("{less: [false, true]}", "true");
        check("{less: [{token: [a, ' ', 3]}, 1]}", "false");
        check_err("{less: [1]}", "Received undefined condition");
        check_err("{greater: 1}", "Element \"1\" is not an array");
    }

    #[test]
    fn in_range() {
        check("{in_range: [1, [0, 1]]}", "true");
        check("{in_range: [0, [0, 1]]}", "true");
        check("{in_range: [2, [0, 1]]}", "false");
        check("{in_range: [{add: [1]}, [0, 1]]}", "true");
        // The bounds are value expressions (issue 12).
        check("{in_range: [1, [{add: [0]}, 2]]}", "true");
        check("{in_range: [3, [0, {add: [1, 1]}]]}", "false");
        check("{in_range: [1, [0]]}", "false");
        check_err("{in_range: [1, 5]}", "Element \"5\" is not an array");
        check_err("{in_range: [1]}", "Element \"undefined\" is not an array");
        check_err("{in_range: []}", "Received undefined condition");
    }

    #[test]
    fn valid_values() {
        check("{valid_values: [1, [0, 1]]}", "true");
        check("{valid_values: [2, [0, 1]]}", "false");
        check("{valid_values: [1, ['1']]}", "false");
        check("{valid_values: [.nan, [.nan]]}", "true");
        check("{valid_values: [[1], [[1]]]}", "true");
        check("{valid_values: [ab, [x, {concat: [a, b]}]]}", "true");
        check_err("{valid_values: [1, 1]}", "Element \"1\" is not an array");
        check_err("{valid_values: [1]}", "Received undefined condition");
    }

    #[test]
    fn lengths() {
        check("{length: ['hallo', 4]}", "false");
        check("{length: ['hallo', 5]}", "true");
        check("{length: ['äöü', 3]}", "true");
        check("{length: ['hallo', {add: [2, 3]}]}", "true");
        check("{min_length: ['hallo', 5]}", "true");
        check("{min_length: ['hallo', 6]}", "false");
        check("{max_length: ['hallo', 5]}", "true");
        check("{max_length: ['hallo', 4]}", "false");
        // Lists by their items (issue 12).
        check("{length: [[1, 2], 2]}", "true");
        check("{min_length: [[1], 2]}", "false");
        check("{max_length: [[], 0]}", "true");
        check_err("{length: [true, 1]}", "Element \"true\" is not a string");
        check_err("{min_length: [1, 1]}", "Element \"1\" is not a string");
        check_err("{max_length: ['a']}", "Received undefined condition");
        // The second argument must be a number (issue 17, item 3).
        check_err("{length: [b, A]}", "Element \"\"A\"\" is not a number");
        check_err(
            "{length: ['hallo', '5']}",
            "Element \"\"5\"\" is not a number",
        );
        check_err(
            "{min_length: [b, true]}",
            "Element \"true\" is not a number",
        );
        check_err("{max_length: [b, [1]]}", "Element \"[1]\" is not a number");
    }

    #[test]
    fn weekday_is_computed_from_now() {
        check("{weekday: []}", "monday");
        check("{weekday: true}", "monday");
        let mut e = Evaluator::new(None, None, Map::new(), NOW - 86_400_000.0);
        assert!(deep_equal(
            &e.evaluate(&node("{weekday: []}")).unwrap(),
            &Value::String("sunday".into())
        ));
    }

    #[test]
    fn named_value_expressions() {
        let expressions = map("{name: Miles, sum: {add: [1, {value_expression: one}]}, one: 1, \
             a: {value_expression: b}, b: {add: [1, {value_expression: a}]}, \
             self: {value_expression: self}, nothing: null, twice: {add: [{value_expression: one}, {value_expression: one}]}}");
        let mut e = Evaluator::new(None, Some(&expressions), Map::new(), NOW);
        let mut run = |t: &str| e.evaluate(&node(t));
        assert!(deep_equal(
            &run("{value_expression: name}").unwrap(),
            &Value::String("Miles".into())
        ));
        assert!(deep_equal(
            &run("{value_expression: sum}").unwrap(),
            &Value::Number(2.0)
        ));
        assert!(deep_equal(
            &run("{value_expression: twice}").unwrap(),
            &Value::Number(2.0)
        ));
        assert_eq!(
            run("{value_expression: missing}").unwrap_err().message,
            "Did not find value expression \"missing\""
        );
        assert_eq!(
            run("{value_expression: nothing}").unwrap_err().message,
            "Did not find value expression \"nothing\""
        );
        assert_eq!(
            run("{value_expression: a}").unwrap_err().message,
            "Value expression \"a\" is cyclic"
        );
        assert_eq!(
            run("{value_expression: self}").unwrap_err().message,
            "Value expression \"self\" is cyclic"
        );
        assert_eq!(
            run("{value_expression: 5}").unwrap_err().message,
            "Element \"5\" is not a string"
        );
        assert!(e.expression("name").is_some());
        assert!(e.expression("nothing").is_none());
        assert!(e.expression("missing").is_none());
    }

    #[test]
    fn without_expressions_nothing_is_found() {
        check_err(
            "{value_expression: x}",
            "Did not find value expression \"x\"",
        );
    }

    #[test]
    fn deep_nesting_fails_cleanly() {
        let mut expr = Node::number(1.0);
        for _ in 0..1000 {
            expr = Node::single("add", Node::seq(vec![expr]));
        }
        let err = evaluator().evaluate(&expr).unwrap_err();
        assert_eq!(
            err.message,
            format!("Value expression is nested too deeply (more than {MAX_DEPTH} levels)")
        );
        let mut shallow = Node::number(1.0);
        for _ in 0..(MAX_DEPTH - 1) {
            shallow = Node::single("add", Node::seq(vec![shallow]));
        }
        assert!(deep_equal(
            &evaluator().evaluate(&shallow).unwrap(),
            &Value::Number(1.0)
        ));
    }

    #[test]
    fn value_to_logic_coercion() {
        let mut e = evaluator();
        let mut logic = |t: &str| e.evaluate_as_logic(&node(t));
        assert_eq!(logic("true"), Ok(true));
        assert_eq!(logic("{equal: [1, 2]}"), Ok(false));
        assert_eq!(logic("''"), Ok(true));
        assert_eq!(logic("'false'"), Ok(true));
        assert_eq!(logic("1"), Ok(true));
        assert_eq!(logic("0"), Ok(false));
        assert_eq!(logic("-1"), Ok(false));
        assert_eq!(logic("{div: [0, 0]}"), Ok(false));
        assert_eq!(
            logic("[true]").unwrap_err().message,
            "Unexpected value expression treated as logic \"[\n    true\n]\""
        );
        assert_eq!(
            logic("{token: [a, ' ', 2]}").unwrap_err().message,
            "Unexpected value expression treated as logic \"{\n    \"token\": [\n        \"a\",\n        \" \",\n        2\n    ]\n}\""
        );
        assert_eq!(
            logic("{add: [x]}").unwrap_err().message,
            "Element \"\"x\"\" is not a number"
        );
    }

    #[test]
    fn errors_point_at_the_offending_node() {
        let at = |text: &str| eval(text).unwrap_err().span.locate(text).start();
        assert_eq!(at("{add: [1, 'x']}"), (1, 11));
        assert_eq!(at("{sub: []}"), (1, 7));
        assert_eq!(at("{add: [1, {foo: 2}]}"), (1, 11));
        // Synthesized nodes fall back to the enclosing operator's location.
        let text = "{add: [1, 2]}";
        let mut expr = node(text);
        if let Some(Value::Seq(items)) = expr.get_mut("add").map(|n| &mut n.value) {
            items.push(Node::string("x"));
        }
        let err = evaluator().evaluate(&expr).unwrap_err();
        assert_eq!(err.span.locate(text).start(), (1, 7));
    }
}

#[cfg(test)]
mod stack_tests {
    use super::*;

    /// The deepest accepted nesting, through every recursive path (operators,
    /// named expressions and inputs), fits into a small thread stack.
    #[test]
    fn maximal_nesting_fits_in_a_small_stack() {
        let result = std::thread::Builder::new()
            .stack_size(STACK)
            .spawn(|| {
                let mut expr = Node::number(1.0);
                for _ in 0..(MAX_DEPTH - 1) {
                    expr = Node::single("concat", Node::seq(vec![expr]));
                }
                let mut e = Evaluator::new(None, None, Map::new(), 0.0);
                let ok = e.evaluate(&expr).is_ok();
                let mut deeper = expr;
                for _ in 0..10 {
                    deeper = Node::single("concat", Node::seq(vec![deeper]));
                }
                ok && e.evaluate(&deeper).is_err()
            })
            .map(|h| h.join());
        assert!(matches!(result, Ok(Ok(true))));
    }

    const STACK: usize = 1 << 20;
}
