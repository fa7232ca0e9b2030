//! The Variability4TOSCA value-expression language, with the semantics of the
//! reference implementation (OpenTOSCA Vintner, written in JavaScript).
//!
//! Value expressions are computed eagerly into plain values: arithmetic
//! (`add`, `sub`, …), strings (`concat`, `join`, `token`), constraints
//! (`equal`, `greater`, `in_range`, `valid_values`, `length`, …), statistics and
//! regressions (`sum`, `mean`, `linear_regression`, …), dates (`before`,
//! `within`, …, `weekday`), named value expressions and variability inputs.
//! Because templates and their expected results were written against
//! JavaScript, numbers are `f64`, equality is `===`, comparisons coerce like
//! `<`, string lengths count UTF-16 units and rounding is `toFixed(2)`.
//!
//! * [`Evaluator`] evaluates expressions ([`Evaluator::evaluate`]), coerces them
//!   to booleans for logic contexts ([`Evaluator::evaluate_as_logic`]) and reads
//!   variability inputs ([`Evaluator::variability_input`]), storing defaults.
//!   It reads the template through [`v4t_yaml::NodeRef`]: an owned tree or a
//!   [`v4t_yaml::Doc`] ([`Evaluator::reading`]).
//! * [`deep_merge`] is lodash's `merge`, used to accumulate input assignments.
//! * [`to_fixed_2`] is `Number(x.toFixed(2))`.
//!
//! Errors ([`EvalError`]) carry the reference's exact message and the span of
//! the offending node. Evaluation never panics: cyclic named expressions or
//! inputs and overly deep nesting are reported as errors.
//!
//! ```
//! use v4t_expr::Evaluator;
//! use v4t_yaml::{parse, SourceId, Value};
//!
//! let definitions = parse("size: {type: integer}", SourceId(0)).unwrap();
//! let assigned = parse("size: 3", SourceId(0)).unwrap();
//! let assigned = assigned.as_map().unwrap().clone();
//! let mut eval = Evaluator::new(definitions.as_map(), None, assigned, 0.0);
//! let expr = parse("{add: [{variability_input: size}, 2]}", SourceId(1)).unwrap();
//! assert!(matches!(eval.evaluate(&expr), Ok(Value::Number(n)) if n == 5.0));
//! let test = parse("{greater: [{variability_input: size}, 4]}", SourceId(2)).unwrap();
//! assert_eq!(eval.evaluate_as_logic(&test).ok(), Some(false));
//! ```

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod analytics;
mod compat;
mod dates;
mod error;
mod evaluate;
mod inputs;
mod js;
mod operands;
#[cfg(test)]
mod testing;

pub use error::EvalError;
pub use evaluate::{operator_names, Evaluator, Op as ValueOp, MAX_DEPTH};
pub use inputs::deep_merge;
pub use js::to_fixed_2;
