//! The analytical operators: statistics (`sum` … `standard_deviation`, as
//! stats-lite 2.2 computes them) and the four regressions (regression-js 2.0.1
//! with precision 2, §4.7.1).
//!
//! Their arguments are used raw, never evaluated, and must be literal numbers.
//! The formulas are ported operation by operation, because templates compare
//! the rounded results exactly and floating-point order matters.

use v4t_yaml::{json, NodeRef, Span, Value, ValueRef};

use crate::error::{EvalError, Result};
use crate::js::{math_round, to_fixed_2};
use crate::operands::{item_span, json_raw, list, not_a};

/// The largest polynomial order computed; the reference has no limit, but an
/// absurd order would only burn time and memory.
const MAX_POLYNOMIAL_ORDER: f64 = 64.0;

/// `sum`, `count`, `min`, `max`, `median`, `mean`, `variance`, `standard_deviation`.
pub(crate) fn statistic(op: &str, arg: NodeRef<'_>, span: Span) -> Result<Value> {
    let values = numbers(arg, span)?;
    let result = match op {
        "sum" => to_fixed_2(sum(&values)),
        "count" => values.len() as f64,
        "min" | "max" => {
            if values.is_empty() {
                let what = if op == "min" { "Minimum" } else { "Maximum" };
                return Err(EvalError::new(
                    format!("{what} of \"{}\" does not exist", json::to_json(arg)),
                    span,
                ));
            }
            let pick = if op == "min" { js_min } else { js_max };
            values.iter().copied().fold(
                if op == "min" {
                    f64::INFINITY
                } else {
                    f64::NEG_INFINITY
                },
                pick,
            )
        }
        "median" => median(values),
        "mean" => to_fixed_2(mean(&values)),
        "variance" => to_fixed_2(variance(&values)),
        _ => to_fixed_2(variance(&values).sqrt()),
    };
    Ok(Value::Number(result))
}

/// The four regressions; the result is `toFixed2` of the prediction at x₀.
pub(crate) fn regression(op: &str, arg: NodeRef<'_>, span: Span) -> Result<Value> {
    let items = list(arg, span)?;
    let points = points(items.first(), span)?;
    let prediction = match op {
        "linear_regression" => linear(&points, number(items.get(1), span)?),
        "logarithmic_regression" => logarithmic(&points, number(items.get(1), span)?),
        "exponential_regression" => exponential(&points, number(items.get(1), span)?),
        _ => {
            let order = number(items.get(1), span)?;
            if order > MAX_POLYNOMIAL_ORDER {
                return Err(EvalError::new(
                    format!(
                        "Polynomial order \"{}\" is too large (at most {MAX_POLYNOMIAL_ORDER})",
                        json_raw(items.get(1))
                    ),
                    item_span(items.get(1), span),
                ));
            }
            polynomial(&points, order, number(items.get(2), span)?)
        }
    };
    Ok(Value::Number(to_fixed_2(prediction)))
}

/// A list of literal numbers.
fn numbers(arg: NodeRef<'_>, span: Span) -> Result<Vec<f64>> {
    list(arg, span)?
        .iter()
        .map(|item| number(Some(item), span))
        .collect()
}

/// A literal number (`assert.isNumber` on the raw argument).
fn number(item: Option<NodeRef<'_>>, span: Span) -> Result<f64> {
    match item.map(NodeRef::value) {
        Some(ValueRef::Number(n)) => Ok(n),
        _ => Err(not_a(json_raw(item), "not a number", item_span(item, span))),
    }
}

/// A list of `[x, y]` number pairs.
fn points(item: Option<NodeRef<'_>>, span: Span) -> Result<Vec<(f64, f64)>> {
    let Some(ValueRef::Seq(points)) = item.map(NodeRef::value) else {
        return Err(not_a(json_raw(item), "not an array", item_span(item, span)));
    };
    let span = item_span(item, span);
    points
        .iter()
        .map(|point| {
            let ValueRef::Seq(pair) = point.value() else {
                return Err(not_a(
                    json::to_json(point),
                    "not an array",
                    point.span().or(span),
                ));
            };
            let span = point.span().or(span);
            Ok((number(pair.first(), span)?, number(pair.get(1), span)?))
        })
        .collect()
}

/// `Math.min` of two numbers: NaN wins, -0 is smaller than 0.
fn js_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a < b || (a == b && a.is_sign_negative()) {
        a
    } else {
        b
    }
}

/// `Math.max` of two numbers: NaN wins, 0 is larger than -0.
fn js_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a > b || (a == b && a.is_sign_positive()) {
        a
    } else {
        b
    }
}

fn sum(values: &[f64]) -> f64 {
    values.iter().fold(0.0, |total, v| total + v)
}

fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    sum(values) / values.len() as f64
}

/// Population variance: the mean of the squared deviations.
fn variance(values: &[f64]) -> f64 {
    let avg = mean(values);
    let diffs: Vec<f64> = values.iter().map(|v| (v - avg) * (v - avg)).collect();
    mean(&diffs)
}

fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let half = values.len() / 2;
    let middle = values.get(half).copied().unwrap_or(f64::NAN);
    if values.len() % 2 == 1 {
        middle
    } else {
        let before = values.get(half - 1).copied().unwrap_or(f64::NAN);
        (before + middle) / 2.0
    }
}

/// regression-js's `round(v, 2)`.
fn r2(v: f64) -> f64 {
    math_round(v * 100.0) / 100.0
}

fn linear(data: &[(f64, f64)], x0: f64) -> f64 {
    let mut s = [0.0f64; 5];
    let mut len = 0.0;
    for &(x, y) in data {
        len += 1.0;
        s[0] += x;
        s[1] += y;
        s[2] += x * x;
        s[3] += x * y;
        s[4] += y * y;
    }
    let run = (len * s[2]) - (s[0] * s[0]);
    let rise = (len * s[3]) - (s[0] * s[1]);
    let gradient = if run == 0.0 { 0.0 } else { r2(rise / run) };
    let intercept = r2((s[1] / len) - ((gradient * s[0]) / len));
    r2((gradient * x0) + intercept)
}

fn exponential(data: &[(f64, f64)], x0: f64) -> f64 {
    let mut s = [0.0f64; 6];
    for &(x, y) in data {
        s[0] += x;
        s[1] += y;
        s[2] += x * x * y;
        s[3] += y * y.ln();
        s[4] += x * y * y.ln();
        s[5] += x * y;
    }
    let denominator = (s[1] * s[2]) - (s[5] * s[5]);
    let a = (((s[2] * s[3]) - (s[5] * s[4])) / denominator).exp();
    let b = ((s[1] * s[4]) - (s[5] * s[3])) / denominator;
    let coeff_a = r2(a);
    let coeff_b = r2(b);
    r2(coeff_a * (coeff_b * x0).exp())
}

fn logarithmic(data: &[(f64, f64)], x0: f64) -> f64 {
    let mut s = [0.0f64; 4];
    let len = data.len() as f64;
    for &(x, y) in data {
        s[0] += x.ln();
        s[1] += y * x.ln();
        s[2] += y;
        s[3] += x.ln().powi(2);
    }
    let a = ((len * s[1]) - (s[2] * s[0])) / ((len * s[3]) - (s[0] * s[0]));
    let coeff_b = r2(a);
    let coeff_a = r2((s[2] - (coeff_b * s[0])) / len);
    r2(r2(coeff_a + (coeff_b * x0.ln())))
}

fn polynomial(data: &[(f64, f64)], order: f64, x0: f64) -> f64 {
    // `for (let i = 0; i < order + 1; i++)`: the number of iterations.
    let k = order + 1.0;
    let size = if k > 0.0 { k.ceil() as usize } else { 0 };
    let mut columns: Vec<Vec<f64>> = Vec::with_capacity(size + 1);
    let mut lhs = Vec::with_capacity(size);
    for i in 0..size {
        let mut a = 0.0;
        for &(x, y) in data {
            a += x.powf(i as f64) * y;
        }
        lhs.push(a);
        let mut c = Vec::with_capacity(size);
        for j in 0..size {
            let mut b = 0.0;
            for &(x, _) in data {
                b += x.powf((i + j) as f64);
            }
            c.push(b);
        }
        columns.push(c);
    }
    columns.push(lhs);
    let coefficients: Vec<f64> = gaussian_elimination(columns, order)
        .into_iter()
        .map(r2)
        .collect();
    let prediction = coefficients
        .iter()
        .enumerate()
        .fold(0.0, |sum, (power, coeff)| {
            sum + (coeff * x0.powf(power as f64))
        });
    r2(prediction)
}

/// regression-js's `gaussianElimination(input, order)`: `matrix[column][row]`,
/// the last column being the right-hand side; partial pivoting by column `i`.
fn gaussian_elimination(mut matrix: Vec<Vec<f64>>, order: f64) -> Vec<f64> {
    let n = matrix.len().saturating_sub(1);
    // `const coefficients = [order]`, then filled from the back.
    let mut coefficients = vec![f64::NAN; n.max(1)];
    coefficients[0] = order;
    for i in 0..n {
        let mut maxrow = i;
        for j in (i + 1)..n {
            if matrix[i][j].abs() > matrix[i][maxrow].abs() {
                maxrow = j;
            }
        }
        for column in matrix.iter_mut().skip(i) {
            column.swap(i, maxrow);
        }
        for j in (i + 1)..n {
            for k in (i..=n).rev() {
                let delta = (matrix[k][i] * matrix[i][j]) / matrix[i][i];
                matrix[k][j] -= delta;
            }
        }
    }
    for j in (0..n).rev() {
        let mut total = 0.0;
        for k in (j + 1)..n {
            total += matrix[k][j] * coefficients[k];
        }
        coefficients[j] = (matrix[n][j] - total) / matrix[j][j];
    }
    coefficients
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_match_stats_lite() {
        assert_eq!(sum(&[1.0, 2.0, 3.0, 4.0]), 10.0);
        assert_eq!(median(vec![3.0, 1.0, 2.0, 4.0]), 2.5);
        assert_eq!(median(vec![1.0, 2.0, 3.0, 4.0, 10.0]), 3.0);
        assert!(median(vec![]).is_nan());
        assert_eq!(variance(&[1.0, 2.0, 3.0, 4.0]), 1.25);
        assert!(mean(&[]).is_nan());
        assert!(js_min(1.0, f64::NAN).is_nan());
        assert!(js_min(0.0, -0.0).is_sign_negative());
        assert!(js_max(-0.0, 0.0).is_sign_positive());
    }

    #[test]
    fn regressions_match_the_conformance_examples() {
        assert_eq!(linear(&[(0.0, 0.0), (1.0, 2.0), (2.0, 4.0)], 100.0), 200.0);
        assert_eq!(
            exponential(&[(0.0, 1.0), (1.0, 2.72), (2.0, 7.39), (3.0, 20.09)], 4.0),
            54.6
        );
        assert_eq!(
            logarithmic(
                &[
                    (0.01, -4.61),
                    (0.5, -0.7),
                    (1.0, 0.0),
                    (2.0, 0.69),
                    (3.0, 1.0)
                ],
                4.0
            ),
            1.34
        );
        assert_eq!(
            polynomial(&[(0.0, 0.0), (1.0, 1.0), (2.0, 4.0)], 2.0, 5.0),
            25.0
        );
    }

    #[test]
    fn polynomial_edge_orders() {
        // Order 1 is a line through the points.
        assert_eq!(
            polynomial(&[(0.0, 1.0), (1.0, 3.0), (2.0, 5.0)], 1.0, 10.0),
            21.0
        );
        // A negative order leaves regression-js's initial `[order]` as the only coefficient.
        assert_eq!(polynomial(&[(0.0, 1.0)], -3.0, 10.0), -3.0);
        // Too few points give a singular system: NaN, never a panic.
        assert!(polynomial(&[], 2.0, 1.0).is_nan());
    }

    #[test]
    fn linear_without_spread_has_zero_gradient() {
        assert_eq!(linear(&[(1.0, 2.0), (1.0, 4.0)], 50.0), 3.0);
        assert!(linear(&[], 1.0).is_nan());
    }
}

#[cfg(test)]
mod operator_tests {
    use crate::evaluate::tests::{check, check_err, eval};
    use v4t_yaml::Value;

    fn is_nan(text: &str) -> bool {
        matches!(eval(text), Ok(Value::Number(n)) if n.is_nan())
    }

    #[test]
    fn sum_and_count() {
        check("{sum: [1, 2, 3, 4]}", "10");
        check("{sum: [0.1, 0.2]}", "0.3");
        check("{sum: []}", "0");
        check_err(
            "{sum: [{add: [1]}]}",
            "Element \"{\"add\":[1]}\" is not a number",
        );
        check_err("{sum: [1, '2']}", "Element \"\"2\"\" is not a number");
        check_err("{sum: 5}", "Element \"5\" is not an array");
        check("{count: [1, 2, 3]}", "3");
        check("{count: []}", "0");
        check_err("{count: [a]}", "Element \"\"a\"\" is not a number");
    }

    #[test]
    fn min_and_max() {
        check("{min: [1, 2, 3, 4]}", "1");
        check("{max: [1, 2, 3, 4]}", "4");
        check("{min: [0.123, 5]}", "0.123");
        check_err("{min: []}", "Minimum of \"[]\" does not exist");
        check_err("{max: []}", "Maximum of \"[]\" does not exist");
        check_err("{max: [null]}", "Element \"null\" is not a number");
    }

    #[test]
    fn median_mean_variance_deviation() {
        check("{median: [1, 2, 3, 4, 10]}", "3");
        check("{median: [3, 1, 2, 4]}", "2.5");
        assert!(is_nan("{median: []}"));
        check("{mean: [1, 2, 3, 4, 10]}", "4");
        check("{mean: [1, 2]}", "1.5");
        check("{mean: [1, 1, 2]}", "1.33");
        assert!(is_nan("{mean: []}"));
        check("{variance: [1, 2, 3, 4]}", "1.25");
        assert!(is_nan("{variance: []}"));
        check("{standard_deviation: [1, 2, 3, 4]}", "1.12");
        check_err("{variance: [x]}", "Element \"\"x\"\" is not a number");
        check_err("{standard_deviation: {}}", "Element \"{}\" is not an array");
    }

    #[test]
    fn regressions() {
        check(
            "{linear_regression: [[[0, 0], [1, 2], [2, 4]], 100]}",
            "200",
        );
        check(
            "{exponential_regression: [[[0, 1], [1, 2.72], [2, 7.39], [3, 20.09]], 4]}",
            "54.6",
        );
        check(
            "{logarithmic_regression: [[[0.01, -4.61], [0.5, -0.7], [1, 0], [2, 0.69], [3, 1]], 4]}",
            "1.34",
        );
        check(
            "{polynomial_regression: [[[0, 0], [1, 1], [2, 4]], 2, 5]}",
            "25",
        );
    }

    #[test]
    fn regression_argument_checks() {
        check_err("{linear_regression: 5}", "Element \"5\" is not an array");
        check_err(
            "{linear_regression: [5, 1]}",
            "Element \"5\" is not an array",
        );
        check_err(
            "{linear_regression: [[5], 1]}",
            "Element \"5\" is not an array",
        );
        check_err(
            "{linear_regression: [[[0, a]], 1]}",
            "Element \"\"a\"\" is not a number",
        );
        check_err(
            "{linear_regression: [[[0]], 1]}",
            "Element \"undefined\" is not a number",
        );
        check_err(
            "{linear_regression: [[[0, 0]]]}",
            "Element \"undefined\" is not a number",
        );
        check_err(
            "{exponential_regression: [[[0, 1]], x]}",
            "Element \"\"x\"\" is not a number",
        );
        check_err(
            "{logarithmic_regression: [[], null]}",
            "Element \"null\" is not a number",
        );
        check_err(
            "{polynomial_regression: [[[0, 0]], 2]}",
            "Element \"undefined\" is not a number",
        );
        check_err(
            "{polynomial_regression: [[[0, 0]], two, 1]}",
            "Element \"\"two\"\" is not a number",
        );
        check_err(
            "{polynomial_regression: [[[0, 0]], 1000, 1]}",
            "Polynomial order \"1000\" is too large (at most 64)",
        );
        // Items are not evaluated.
        check_err(
            "{linear_regression: [[[0, {add: [1]}]], 1]}",
            "Element \"{\"add\":[1]}\" is not a number",
        );
    }
}
