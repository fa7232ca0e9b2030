//! The date operators (`same`, `before`, `before_or_same`, `after`,
//! `after_or_same`, `within`) and the dayjs-compatible date parsing they rely
//! on (§4.7.2).
//!
//! The reference hands raw operands to `dayjs(x)`: dates are used as is,
//! numbers are milliseconds, strings go through dayjs's own pattern (read in
//! local time, which is UTC on the machines the reference's tests run on) or
//! else JavaScript's `Date` parser. We model local time as UTC.

use v4t_yaml::timestamp::Cursor;
use v4t_yaml::{NodeRef, Span, Value, ValueRef};

use crate::compat;
use crate::error::{EvalError, Result};
use crate::operands::{item_span, json_raw, list, not_a, value_of};

/// JavaScript's largest time value (`TimeClip`).
const MAX_TIME: f64 = 8.64e15;

/// Evaluates a date operator.
pub(crate) fn compare(op: &str, arg: NodeRef<'_>, span: Span, now_ms: f64) -> Result<Value> {
    let items = list(arg, span)?;
    let a = date(items.first(), span, now_ms)?;
    let result = if op == "within" {
        let Some(ValueRef::Seq(range)) = items.get(1).map(NodeRef::value) else {
            return Err(not_a(
                json_raw(items.get(1)),
                "not an array",
                item_span(items.get(1), span),
            ));
        };
        let range_span = item_span(items.get(1), span);
        let lo = date(range.first(), range_span, now_ms)?;
        let hi = date(range.get(1), range_span, now_ms)?;
        lo < a && a < hi
    } else {
        let b = date(items.get(1), span, now_ms)?;
        match op {
            "same" => a == b,
            "before" => a < b,
            "before_or_same" => a <= b,
            "after" => a > b,
            _ => a >= b,
        }
    };
    Ok(Value::Bool(result))
}

/// `dayjs(x)` of a raw operand, which must be a valid date.
fn date(item: Option<NodeRef<'_>>, span: Span, now_ms: f64) -> Result<f64> {
    let ms = match item {
        // `dayjs(undefined)` is now.
        None => now_ms,
        Some(node) => to_time(&value_of(node)),
    };
    if ms.is_nan() {
        return Err(EvalError::new(
            "Element \"Invalid Date\" is not a date",
            item_span(item, span),
        ));
    }
    Ok(ms)
}

/// The time value dayjs derives from a value; NaN for an invalid date.
pub(crate) fn to_time(value: &Value) -> f64 {
    match value {
        Value::Null | Value::Seq(_) | Value::Map(_) => f64::NAN,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Number(n) => time_clip(*n),
        Value::Timestamp(ms) => time_clip(*ms),
        Value::String(s) => parse_date_string(s),
    }
}

fn time_clip(t: f64) -> f64 {
    if !t.is_finite() || t.abs() > MAX_TIME {
        f64::NAN
    } else {
        t.trunc() + 0.0
    }
}

/// dayjs's string parsing: its `REGEX_PARSE` pattern in local time unless the
/// string ends with `Z`, otherwise JavaScript's `Date` parser.
pub(crate) fn parse_date_string(s: &str) -> f64 {
    let ends_with_z = s.ends_with(['Z', 'z']);
    if !ends_with_z {
        if let Some(parts) = match_dayjs_pattern(s) {
            return parts;
        }
    }
    parse_js_date(s)
}

/// `new Date(y, M, D, h, m, s, ms)` in UTC (standing in for local time), with
/// JavaScript's overflow rules and years 0..=99 mapped to 1900..=1999.
fn make_date(year: f64, month0: f64, day: f64, h: f64, min: f64, s: f64, ms: f64) -> f64 {
    let all = [year, month0, day, h, min, s, ms];
    if all.iter().any(|v| !v.is_finite()) {
        return f64::NAN;
    }
    let year = year.trunc();
    let year = if (0.0..=99.0).contains(&year) {
        1900.0 + year
    } else {
        year
    };
    let month0 = month0.trunc();
    let y = year + (month0 / 12.0).floor();
    let m = month0.rem_euclid(12.0);
    if y.abs() > 400_000.0 {
        return f64::NAN;
    }
    let days = compat::days_from_civil(y as i64, m as u32 + 1, 1) as f64 + day.trunc() - 1.0;
    let time = h.trunc() * 3_600_000.0 + min.trunc() * 60_000.0 + s.trunc() * 1000.0 + ms.trunc();
    time_clip(days * 86_400_000.0 + time)
}

/// One element of dayjs's `REGEX_PARSE`:
/// `^(\d{4})[-/]?(\d{1,2})?[-/]?(\d{0,2})[Tt\s]*(\d{1,2})?:?(\d{1,2})?:?(\d{1,2})?[.:]?(\d+)?$`.
#[derive(Clone, Copy)]
enum Pat {
    /// Digits, between `min` and `max` of them, captured into group `group`.
    Digits {
        min: usize,
        max: usize,
        group: usize,
    },
    /// An optional character from the set.
    Opt(&'static [u8]),
    /// Any number of `T`, `t` or whitespace.
    Separators,
}

const DAYJS_PATTERN: [Pat; 13] = [
    Pat::Digits {
        min: 4,
        max: 4,
        group: 1,
    },
    Pat::Opt(b"-/"),
    Pat::Digits {
        min: 0,
        max: 2,
        group: 2,
    },
    Pat::Opt(b"-/"),
    Pat::Digits {
        min: 0,
        max: 2,
        group: 3,
    },
    Pat::Separators,
    Pat::Digits {
        min: 0,
        max: 2,
        group: 4,
    },
    Pat::Opt(b":"),
    Pat::Digits {
        min: 0,
        max: 2,
        group: 5,
    },
    Pat::Opt(b":"),
    Pat::Digits {
        min: 0,
        max: 2,
        group: 6,
    },
    Pat::Opt(b".:"),
    Pat::Digits {
        min: 0,
        max: usize::MAX,
        group: 7,
    },
];

/// Matches dayjs's pattern (greedy, backtracking, with memoised failures) and
/// builds the local date from the groups.
fn match_dayjs_pattern(s: &str) -> Option<f64> {
    let bytes = s.as_bytes();
    let mut groups = [(0usize, 0usize); 8];
    let mut failed = vec![false; (DAYJS_PATTERN.len() + 1) * (bytes.len() + 1)];
    if !match_from(bytes, 0, 0, &mut groups, &mut failed) {
        return None;
    }
    let group = |i: usize| -> &str {
        let (start, end) = groups.get(i).copied().unwrap_or((0, 0));
        s.get(start..end).unwrap_or("")
    };
    // `d[i] || default`: an empty or missing group takes the default.
    let num = |i: usize, default: f64| -> f64 {
        let g = group(i);
        if g.is_empty() {
            default
        } else {
            g.parse::<f64>().unwrap_or(f64::NAN)
        }
    };
    let month0 = {
        let m = num(2, f64::NAN) - 1.0;
        // `d[2] - 1 || 0`
        if m.is_nan() || m == 0.0 {
            0.0
        } else {
            m
        }
    };
    let ms_text: String = {
        let g = group(7);
        if g.is_empty() {
            "0".to_string()
        } else {
            g.chars().take(3).collect()
        }
    };
    let ms = ms_text.parse::<f64>().unwrap_or(0.0);
    Some(make_date(
        num(1, f64::NAN),
        month0,
        num(3, 1.0),
        num(4, 0.0),
        num(5, 0.0),
        num(6, 0.0),
        ms,
    ))
}

fn match_from(
    s: &[u8],
    pos: usize,
    index: usize,
    groups: &mut [(usize, usize); 8],
    failed: &mut [bool],
) -> bool {
    let memo = index * (s.len() + 1) + pos;
    if failed.get(memo).copied().unwrap_or(false) {
        return false;
    }
    let matched = match DAYJS_PATTERN.get(index) {
        None => pos == s.len(),
        Some(Pat::Digits { min, max, group }) => {
            let available = s
                .get(pos..)
                .unwrap_or(&[])
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count()
                .min(*max);
            let mut found = false;
            if available >= *min {
                for take in (*min..=available).rev() {
                    if match_from(s, pos + take, index + 1, groups, failed) {
                        if let Some(g) = groups.get_mut(*group) {
                            *g = (pos, pos + take);
                        }
                        found = true;
                        break;
                    }
                }
            }
            found
        }
        Some(Pat::Opt(set)) => {
            (s.get(pos).is_some_and(|b| set.contains(b))
                && match_from(s, pos + 1, index + 1, groups, failed))
                || match_from(s, pos, index + 1, groups, failed)
        }
        Some(Pat::Separators) => {
            let available = s
                .get(pos..)
                .unwrap_or(&[])
                .iter()
                .take_while(|b| {
                    matches!(b, b'T' | b't' | b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
                })
                .count();
            (0..=available)
                .rev()
                .any(|take| match_from(s, pos + take, index + 1, groups, failed))
        }
    };
    if !matched {
        if let Some(f) = failed.get_mut(memo) {
            *f = true;
        }
    }
    matched
}

/// JavaScript's `Date` parser for the ISO forms: `YYYY[-MM[-DD]]` (UTC) with
/// an optional time `THH:mm[:ss[.sss]]` and offset (`Z`, `±HH:mm`, `±HHmm`);
/// a time without offset is local time. `±YYYYYY` years and a space instead of
/// `T` are accepted as V8 does. Other formats are invalid here.
fn parse_js_date(s: &str) -> f64 {
    let mut p = Cursor::new(s);
    // Every field of an ISO date fits an f64 exactly.
    let digits = |p: &mut Cursor<'_>, n: usize| p.digits(n, n).map(|v| v as f64);
    let year = match p.peek() {
        Some(sign @ (b'+' | b'-')) => {
            p.pos += 1;
            let Some(y) = digits(&mut p, 6) else {
                return f64::NAN;
            };
            if sign == b'-' {
                if y == 0.0 {
                    return f64::NAN;
                }
                -y
            } else {
                y
            }
        }
        _ => match digits(&mut p, 4) {
            Some(y) => y,
            None => return f64::NAN,
        },
    };
    let mut month = 1.0;
    let mut day = 1.0;
    if p.eat(b'-') {
        let Some(m) = digits(&mut p, 2) else {
            return f64::NAN;
        };
        month = m;
        if p.eat(b'-') {
            let Some(d) = digits(&mut p, 2) else {
                return f64::NAN;
            };
            day = d;
        }
    }
    if !(1.0..=12.0).contains(&month) || !(1.0..=31.0).contains(&day) {
        return f64::NAN;
    }
    let (mut h, mut min, mut sec, mut ms) = (0.0, 0.0, 0.0, 0.0);
    if p.eat(b'T') || p.eat(b't') || p.eat(b' ') {
        let (Some(hh), true, Some(mm)) = (digits(&mut p, 2), p.eat(b':'), digits(&mut p, 2)) else {
            return f64::NAN;
        };
        h = hh;
        min = mm;
        if p.eat(b':') {
            let Some(ss) = digits(&mut p, 2) else {
                return f64::NAN;
            };
            sec = ss;
            if p.eat(b'.') || p.eat(b',') {
                let start = p.pos;
                if p.digits(1, usize::MAX).is_none() {
                    return f64::NAN;
                }
                let fraction = s.get(start..p.pos).unwrap_or("0");
                let first3: String = fraction.chars().chain("00".chars()).take(3).collect();
                ms = first3.parse::<f64>().unwrap_or(0.0);
            }
        }
        let valid = h < 24.0 || (h == 24.0 && min == 0.0 && sec == 0.0 && ms == 0.0);
        if !valid || min > 59.0 || sec > 59.0 {
            return f64::NAN;
        }
    }
    let mut offset_minutes = 0.0;
    match p.peek() {
        None => {}
        Some(b'Z' | b'z') => {
            p.pos += 1;
        }
        Some(sign @ (b'+' | b'-')) => {
            p.pos += 1;
            let Some(oh) = digits(&mut p, 2) else {
                return f64::NAN;
            };
            p.eat(b':');
            let Some(om) = digits(&mut p, 2) else {
                return f64::NAN;
            };
            if oh > 23.0 || om > 59.0 {
                return f64::NAN;
            }
            offset_minutes = (oh * 60.0 + om) * if sign == b'-' { -1.0 } else { 1.0 };
        }
        Some(_) => return f64::NAN,
    }
    if p.peek().is_some() {
        return f64::NAN;
    }
    let t = make_date_utc(year, month - 1.0, day, h, min, sec, ms);
    time_clip(t - offset_minutes * 60_000.0)
}

/// `Date.UTC` without the two-digit-year mapping (ISO years are literal).
fn make_date_utc(year: f64, month0: f64, day: f64, h: f64, min: f64, s: f64, ms: f64) -> f64 {
    let days = compat::days_from_civil(year as i64, month0 as u32 + 1, 1) as f64 + day - 1.0;
    days * 86_400_000.0 + h * 3_600_000.0 + min * 60_000.0 + s * 1000.0 + ms
}

#[cfg(test)]
mod tests {
    use super::*;

    const JAN_1_2023: f64 = 1_672_531_200_000.0;

    #[test]
    fn dayjs_pattern_reads_local_time() {
        assert_eq!(parse_date_string("2023-01-01"), JAN_1_2023);
        assert_eq!(parse_date_string("2023-01-01T00:00:00"), JAN_1_2023);
        assert_eq!(
            parse_date_string("2023-01-01 01:02:03.4567"),
            JAN_1_2023 + 3_723_456.0
        );
        assert_eq!(parse_date_string("2023/1/1"), JAN_1_2023);
        assert_eq!(parse_date_string("2023"), JAN_1_2023);
        assert_eq!(parse_date_string("20230101"), JAN_1_2023);
        // Month overflow rolls into the next year, as `new Date(y, 12, 1)` does.
        assert_eq!(parse_date_string("2022-13-01"), JAN_1_2023);
    }

    #[test]
    fn other_strings_use_the_date_parser() {
        assert_eq!(parse_date_string("2023-01-01T00:00:00.000Z"), JAN_1_2023);
        assert_eq!(parse_date_string("2023-01-01t00:00:00z"), JAN_1_2023);
        assert_eq!(parse_date_string("2023-01-01T01:00:00+01:00"), JAN_1_2023);
        assert_eq!(parse_date_string("2022-12-31T23:00:00-0100"), JAN_1_2023);
        assert_eq!(parse_date_string("+002023-01-01T00:00:00Z"), JAN_1_2023);
        assert!(parse_date_string("yesterday").is_nan());
        assert!(parse_date_string("").is_nan());
        assert!(parse_date_string("2023-02-30T25:00:00Z").is_nan());
    }

    #[test]
    fn values_become_times_like_dayjs() {
        assert_eq!(to_time(&Value::Timestamp(JAN_1_2023)), JAN_1_2023);
        assert_eq!(to_time(&Value::Number(5.7)), 5.0);
        assert_eq!(to_time(&Value::Bool(true)), 1.0);
        assert!(to_time(&Value::Null).is_nan());
        assert!(to_time(&Value::Seq(vec![])).is_nan());
        assert!(to_time(&Value::Number(f64::INFINITY)).is_nan());
    }

    #[test]
    fn long_inputs_do_not_blow_up() {
        let long = format!("2023{}", " ".repeat(5000)) + "x";
        assert!(parse_date_string(&long).is_nan());
        let digits = format!("2023-01-01T00:00:00.{}", "9".repeat(5000));
        assert_eq!(parse_date_string(&digits), JAN_1_2023 + 999.0);
    }
}

#[cfg(test)]
mod operator_tests {
    use crate::evaluate::tests::{check, check_err};

    #[test]
    fn comparisons_of_timestamps() {
        check(
            "{same: [2023-01-01T00:00:00.000Z, 2023-01-01T00:00:00.000Z]}",
            "true",
        );
        check(
            "{same: [2023-01-01T00:00:00.000Z, 2023-01-03T00:00:00.000Z]}",
            "false",
        );
        check(
            "{before: [2023-01-01T00:00:00.000Z, 2023-01-03T00:00:00.000Z]}",
            "true",
        );
        check(
            "{before: [2023-01-01T00:00:00.000Z, 2022-01-03T00:00:00.000Z]}",
            "false",
        );
        check("{before_or_same: [2023-01-01, 2023-01-01]}", "true");
        check(
            "{before_or_same: [2023-01-01T00:00:00.000Z, 2022-01-03T00:00:00.000Z]}",
            "false",
        );
        check(
            "{after: [2023-01-01T00:00:00.000Z, 2022-01-03T00:00:00.000Z]}",
            "true",
        );
        check(
            "{after: [2023-01-01T00:00:00.000Z, 2023-01-03T00:00:00.000Z]}",
            "false",
        );
        check(
            "{after_or_same: [2023-01-01T00:00:00.000Z, 2022-01-03T00:00:00.000Z]}",
            "true",
        );
        check("{after_or_same: [2023-01-01, 2023-01-02]}", "false");
    }

    #[test]
    fn within_is_exclusive() {
        check(
            "{within: [2023-01-02T00:00:00.000Z, [2023-01-01T00:00:00.000Z, 2023-01-03T00:00:00.000Z]]}",
            "true",
        );
        check(
            "{within: [2023-01-04T00:00:00.000Z, [2023-01-01T00:00:00.000Z, 2023-01-03T00:00:00.000Z]]}",
            "false",
        );
        check("{within: [2023-01-01, [2023-01-01, 2023-01-03]]}", "false");
        check("{within: [2023-01-03, [2023-01-01, 2023-01-03]]}", "false");
        check_err("{within: [2023-01-01, 5]}", "Element \"5\" is not an array");
        check_err(
            "{within: [2023-01-01, [x, 2023-01-03]]}",
            "Element \"Invalid Date\" is not a date",
        );
    }

    #[test]
    fn mixed_operands() {
        // Strings, numbers (milliseconds) and `true` (1 ms) are dates too.
        check("{same: ['2023-01-01', 2023-01-01T00:00:00.000Z]}", "true");
        check("{same: [1672531200000, 2023-01-01]}", "true");
        check("{before: [true, 2]}", "true");
        check(
            "{before: ['2023-01-01T00:00:00+01:00', 2023-01-01]}",
            "true",
        );
        // A missing operand is `dayjs(undefined)`, i.e. now (2023-01-02).
        check("{before: [2023-01-01]}", "true");
        check("{after: [2023-01-03]}", "true");
    }

    #[test]
    fn invalid_dates() {
        for bad in [
            "null",
            "x",
            "[2023-01-01]",
            "{concat: ['2023-01-01']}",
            ".nan",
        ] {
            check_err(
                &format!("{{before: [{bad}, 2023-01-01]}}"),
                "Element \"Invalid Date\" is not a date",
            );
            check_err(
                &format!("{{after: [2023-01-01, {bad}]}}"),
                "Element \"Invalid Date\" is not a date",
            );
        }
        check_err(
            "{same: 2023-01-01}",
            "Element \"\"2023-01-01T00:00:00.000Z\"\" is not an array",
        );
    }
}
