//! JavaScript value semantics that the value operators depend on: strict
//! equality, relational comparison with its coercions, `String()` conversion as
//! `Array#join` applies it, string-to-number conversion, UTF-16 lengths and the
//! two rounding functions (`Number#toFixed(2)`, `Math.round`).
//!
//! The reference implementation is JavaScript, and templates rely on its exact
//! behaviour (for example `'b' > 'a'`, `1 === '1'` being false or `1.005`
//! rounding to `1`). Values are taken as `Option<&Value>` where `None` is
//! JavaScript's `undefined` and `Some(Value::Null)` is `null`.

use std::cmp::Ordering;

use v4t_yaml::Value;

use crate::compat;

/// A JavaScript primitive, the result of `ToPrimitive`.
enum Prim {
    Undefined,
    Null,
    Bool(bool),
    Number(f64),
    String(String),
}

/// `ToPrimitive(v, hint)`: arrays become their `join(",")`, plain objects
/// `"[object Object]"`, dates their time value (hint number) or their
/// `toString()` (default hint).
fn to_primitive(v: Option<&Value>, hint_number: bool) -> Prim {
    match v {
        None => Prim::Undefined,
        Some(Value::Null) => Prim::Null,
        Some(Value::Bool(b)) => Prim::Bool(*b),
        Some(Value::Number(n)) => Prim::Number(*n),
        Some(Value::String(s)) => Prim::String(s.clone()),
        Some(Value::Timestamp(ms)) => {
            if hint_number {
                Prim::Number(*ms)
            } else {
                Prim::String(date_to_string(*ms))
            }
        }
        Some(v @ (Value::Seq(_) | Value::Map(_))) => Prim::String(to_string(Some(v))),
    }
}

fn prim_to_number(p: &Prim) -> f64 {
    match p {
        Prim::Undefined => f64::NAN,
        Prim::Null => 0.0,
        Prim::Bool(b) => f64::from(u8::from(*b)),
        Prim::Number(n) => *n,
        Prim::String(s) => string_to_number(s),
    }
}

/// JavaScript's `===`. Lists, maps and dates are objects and therefore never
/// equal to another value (the caller handles comparing an object with itself);
/// `NaN` is not equal to itself.
pub(crate) fn strict_equal(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(Value::Null), Some(Value::Null)) => true,
        (Some(Value::Bool(x)), Some(Value::Bool(y))) => x == y,
        (Some(Value::Number(x)), Some(Value::Number(y))) => x == y,
        (Some(Value::String(x)), Some(Value::String(y))) => x == y,
        _ => false,
    }
}

/// Equality by value: `===` for scalars (dates by time), lists item by
/// item, maps entry by entry whatever their order; `NaN` equals `NaN` only
/// if `nan_equal` (`SameValueZero`). The reference compares lists and maps
/// by object identity, so two equal lists were never `equal`.
pub(crate) fn value_equal(a: Option<&Value>, b: Option<&Value>, nan_equal: bool) -> bool {
    match (a, b) {
        (Some(Value::Number(x)), Some(Value::Number(y))) => {
            x == y || (nan_equal && x.is_nan() && y.is_nan())
        }
        (Some(Value::Timestamp(x)), Some(Value::Timestamp(y))) => x == y,
        (Some(Value::Seq(x)), Some(Value::Seq(y))) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(p, q)| value_equal(Some(&p.value), Some(&q.value), nan_equal))
        }
        (Some(Value::Map(x)), Some(Value::Map(y))) => {
            x.len() == y.len()
                && x.iter().all(|(k, p)| {
                    y.get(&k.name)
                        .is_some_and(|q| value_equal(Some(&p.value), Some(&q.value), nan_equal))
                })
        }
        _ => strict_equal(a, b),
    }
}

/// The abstract relational comparison `a < b`: `None` when the result is
/// `undefined` (a `NaN` was involved), which makes every operator false.
fn less_than(a: Option<&Value>, b: Option<&Value>) -> Option<bool> {
    let pa = to_primitive(a, true);
    let pb = to_primitive(b, true);
    if let (Prim::String(x), Prim::String(y)) = (&pa, &pb) {
        return Some(x.encode_utf16().cmp(y.encode_utf16()) == Ordering::Less);
    }
    let (x, y) = (prim_to_number(&pa), prim_to_number(&pb));
    if x.is_nan() || y.is_nan() {
        None
    } else {
        Some(x < y)
    }
}

/// JavaScript's `a < b`.
pub(crate) fn lt(a: Option<&Value>, b: Option<&Value>) -> bool {
    less_than(a, b) == Some(true)
}

/// JavaScript's `a > b`.
pub(crate) fn gt(a: Option<&Value>, b: Option<&Value>) -> bool {
    less_than(b, a) == Some(true)
}

/// JavaScript's `a <= b`.
pub(crate) fn le(a: Option<&Value>, b: Option<&Value>) -> bool {
    less_than(b, a) == Some(false)
}

/// JavaScript's `a >= b`.
pub(crate) fn ge(a: Option<&Value>, b: Option<&Value>) -> bool {
    less_than(a, b) == Some(false)
}

/// How `Array#join` converts an item: `null` and `undefined` become `""`,
/// everything else as `String(x)`.
pub(crate) fn join_item(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        v => to_string(v),
    }
}

/// JavaScript's `String(x)`: numbers in shortest form, lists comma-joined
/// recursively, plain objects `[object Object]`, dates as `Date#toString`.
pub(crate) fn to_string(v: Option<&Value>) -> String {
    match v {
        None => "undefined".to_string(),
        Some(Value::Null) => "null".to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => compat::format_js(*n),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Timestamp(ms)) => date_to_string(*ms),
        Some(Value::Seq(items)) => join(items.iter().map(|n| &n.value), ","),
        Some(Value::Map(_)) => "[object Object]".to_string(),
    }
}

/// `Array#join(separator)`.
pub(crate) fn join<'v>(items: impl Iterator<Item = &'v Value>, separator: &str) -> String {
    let mut out = String::new();
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push_str(separator);
        }
        out.push_str(&join_item(Some(item)));
    }
    out
}

/// `Date#toString()` in UTC, e.g. `Sun Jan 01 2023 00:00:00 GMT+0000 (Coordinated Universal Time)`.
pub(crate) fn date_to_string(ms: f64) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    if !ms.is_finite() {
        return "Invalid Date".to_string();
    }
    let t = ms.trunc() as i64;
    let days = t.div_euclid(86_400_000);
    let rem = t.rem_euclid(86_400_000);
    let (y, m, d) = compat::civil_from_days(days);
    let year = if y >= 0 {
        format!("{y:04}")
    } else {
        format!("-{:06}", -y)
    };
    format!(
        "{} {} {d:02} {year} {:02}:{:02}:{:02} GMT+0000 (Coordinated Universal Time)",
        DAYS.get(compat::weekday(ms)).copied().unwrap_or("Sun"),
        MONTHS
            .get((m as usize).saturating_sub(1))
            .copied()
            .unwrap_or("Jan"),
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
    )
}

fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// JavaScript's `StringToNumber`: surrounding whitespace is ignored, `""` is 0,
/// decimal literals, `Infinity` and `0x`/`0o`/`0b` integers are accepted,
/// anything else is `NaN`.
pub(crate) fn string_to_number(s: &str) -> f64 {
    let s = s.trim_matches(is_js_whitespace);
    if s.is_empty() {
        return 0.0;
    }
    for (prefix, radix) in [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ] {
        if let Some(digits) = s.strip_prefix(prefix) {
            if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
                return f64::NAN;
            }
            return digits.chars().fold(0.0, |acc, c| {
                acc * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
            });
        }
    }
    let (sign, body) = match s.as_bytes().first() {
        Some(b'-') => (-1.0, &s[1..]),
        Some(b'+') => (1.0, &s[1..]),
        _ => (1.0, s),
    };
    if body == "Infinity" {
        return sign * f64::INFINITY;
    }
    if !is_decimal_literal(body) {
        return f64::NAN;
    }
    body.parse::<f64>().map(|n| sign * n).unwrap_or(f64::NAN)
}

/// `digits [. digits] [e [+-] digits]` with at least one mantissa digit.
fn is_decimal_literal(s: &str) -> bool {
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut mantissa_digits = 0;
    while bytes.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
        mantissa_digits += 1;
    }
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
            mantissa_digits += 1;
        }
    }
    if mantissa_digits == 0 {
        return false;
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let start = i;
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    i == bytes.len()
}

/// `s.length`: the number of UTF-16 code units.
pub(crate) fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// JavaScript's `Math.round`: the nearest integer, halves towards +∞.
pub(crate) fn math_round(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let floor = x.floor();
    let rounded = if x - floor >= 0.5 { floor + 1.0 } else { floor };
    if rounded == 0.0 && x.is_sign_negative() {
        -0.0
    } else {
        rounded
    }
}

/// `Number(x.toFixed(2))` with JavaScript's decimal-exact rounding of the binary
/// value: `1.005` gives `1` (it is really 1.00499…), `1.125` gives `1.13`
/// (an exact tie rounds up in magnitude).
pub fn to_fixed_2(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let a = x.abs();
    if a >= 1e21 || a.fract() == 0.0 {
        return x;
    }
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    // Below 2^-10 (< 0.005) the result is always zero; this bound also keeps
    // the exact arithmetic below within 128 bits.
    if a < 1.0 / 1024.0 {
        return sign * 0.0;
    }
    // a = m / 2^k exactly, with m < 2^53 and 0 < k <= 63 (a is not an integer
    // and 2^-10 <= a < 2^53).
    let bits = a.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let mantissa = u128::from((bits & ((1u64 << 52) - 1)) | (1u64 << 52));
    let k = 1075 - exp; // a = mantissa * 2^(exp - 1075)
    if !(1..=120).contains(&k) {
        return x;
    }
    let scaled = mantissa * 100; // 100a = scaled / 2^k
    let mut n = scaled >> k;
    let remainder = scaled - (n << k);
    if remainder * 2 >= (1u128 << k) {
        n += 1;
    }
    let text = format!("{}.{:02}", n / 100, n % 100);
    sign * text.parse::<f64>().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use v4t_yaml::Node;

    fn s(x: &str) -> Value {
        Value::String(x.to_string())
    }
    fn n(x: f64) -> Value {
        Value::Number(x)
    }

    #[test]
    fn to_fixed_2_rounds_the_binary_value_exactly() {
        assert_eq!(to_fixed_2(1.005), 1.0);
        assert_eq!(to_fixed_2(2.675), 2.67);
        assert_eq!(to_fixed_2(1.125), 1.13);
        assert_eq!(to_fixed_2(-1.125), -1.13);
        assert_eq!(to_fixed_2(1.118_033_988_749_895), 1.12);
        assert_eq!(to_fixed_2(10.0), 10.0);
        assert_eq!(to_fixed_2(0.004), 0.0);
        assert_eq!(to_fixed_2(0.005), 0.01);
        assert_eq!(to_fixed_2(123_456_789.125), 123_456_789.13);
        assert!(to_fixed_2(f64::NAN).is_nan());
        assert_eq!(to_fixed_2(f64::INFINITY), f64::INFINITY);
        assert_eq!(to_fixed_2(1e22), 1e22);
    }

    #[test]
    fn math_round_takes_halves_upwards() {
        assert_eq!(math_round(2.5), 3.0);
        assert_eq!(math_round(-2.5), -2.0);
        assert_eq!(math_round(-2.6), -3.0);
        assert_eq!(math_round(0.49999999999999994), 0.0);
        assert!(math_round(-0.4).is_sign_negative());
    }

    #[test]
    fn strict_equality_never_equates_objects_or_nan() {
        assert!(strict_equal(Some(&n(1.0)), Some(&n(1.0))));
        assert!(!strict_equal(Some(&n(1.0)), Some(&s("1"))));
        assert!(!strict_equal(Some(&n(f64::NAN)), Some(&n(f64::NAN))));
        let list = Value::Seq(vec![Node::number(1.0)]);
        assert!(!strict_equal(Some(&list), Some(&list.clone())));
        assert!(!strict_equal(None, Some(&Value::Null)));
    }

    #[test]
    fn value_equality_compares_lists_and_maps_by_content() {
        let list = |items: &[f64]| Value::Seq(items.iter().map(|&x| Node::number(x)).collect());
        assert!(value_equal(
            Some(&list(&[1.0, 2.0])),
            Some(&list(&[1.0, 2.0])),
            false
        ));
        assert!(!value_equal(
            Some(&list(&[1.0])),
            Some(&list(&[1.0, 2.0])),
            false
        ));
        assert!(!value_equal(Some(&n(f64::NAN)), Some(&n(f64::NAN)), false));
        assert!(value_equal(Some(&n(f64::NAN)), Some(&n(f64::NAN)), true));
        assert!(!value_equal(Some(&n(1.0)), Some(&s("1")), true));
    }

    #[test]
    fn comparisons_follow_javascript_coercion() {
        assert!(gt(Some(&s("b")), Some(&s("a"))));
        assert!(lt(Some(&s("10")), Some(&s("9"))));
        assert!(gt(Some(&s("10")), Some(&n(9.0))));
        assert!(ge(Some(&Value::Null), Some(&n(0.0))));
        assert!(!ge(None, Some(&n(0.0))));
        assert!(!lt(Some(&s("abc")), Some(&n(1.0))));
        assert!(!ge(Some(&s("abc")), Some(&n(1.0))));
        assert!(lt(Some(&Value::Bool(false)), Some(&Value::Bool(true))));
        // U+FF5E sorts after U+1F600's high surrogate in UTF-16, unlike in UTF-8.
        assert!(lt(Some(&s("\u{1F600}")), Some(&s("\u{FF5E}"))));
        assert!(le(Some(&n(1.0)), Some(&n(1.0))));
    }

    #[test]
    fn string_conversion_matches_array_join() {
        let list = Value::Seq(vec![
            Node::number(1.0),
            Node::null(),
            Node::seq(vec![Node::bool(true), Node::number(2.5)]),
        ]);
        assert_eq!(to_string(Some(&list)), "1,,true,2.5");
        assert_eq!(join_item(Some(&Value::Null)), "");
        assert_eq!(
            to_string(Some(&Value::Map(v4t_yaml::Map::new()))),
            "[object Object]"
        );
        assert_eq!(
            to_string(Some(&Value::Timestamp(1_672_531_200_000.0))),
            "Sun Jan 01 2023 00:00:00 GMT+0000 (Coordinated Universal Time)"
        );
    }

    #[test]
    fn string_to_number_accepts_only_numeric_literals() {
        assert_eq!(string_to_number(" 12.5 "), 12.5);
        assert_eq!(string_to_number(""), 0.0);
        assert_eq!(string_to_number("0x1f"), 31.0);
        assert_eq!(string_to_number("-Infinity"), f64::NEG_INFINITY);
        assert_eq!(string_to_number(".5e1"), 5.0);
        assert!(string_to_number("inf").is_nan());
        assert!(string_to_number("1e").is_nan());
        assert!(string_to_number("12px").is_nan());
    }

    #[test]
    fn lengths_count_utf16_units() {
        assert_eq!(utf16_len("äöü"), 3);
        assert_eq!(utf16_len("\u{1F600}"), 2);
    }
}
