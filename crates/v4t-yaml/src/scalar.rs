//! Scalar resolution: what a plain scalar means under a [`Schema`] (js-yaml
//! 4's default schema, or the YAML 1.2 core schema), the number syntaxes of
//! explicit `!!int`/`!!float` tags, and the JavaScript property name a
//! scalar map key becomes. Shared by both parser paths.

use crate::number::format_js;
use crate::timestamp::{civil_from_days, parse_yaml_timestamp, weekday};
use crate::value::{Form, Value};

/// How plain scalars and explicit scalar tags are resolved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Schema {
    /// js-yaml 4's default schema, what the reference implementation reads:
    /// the YAML 1.2 core schema extended with `_` digit separators, `0b`
    /// integers and implicit timestamps (as [`Value::Timestamp`]); `!!binary`
    /// (bytes in js-yaml) is refused. Variability4TOSCA on TOSCA 1.3 uses it.
    #[default]
    JsYaml,
    /// The YAML 1.2 core schema exactly (TOSCA 2.0): null, booleans,
    /// integers (`[-+]?[0-9]+`, `0o`, `0x`) and floats; everything else,
    /// timestamps included, is the string written. Explicit `!!timestamp`
    /// and `!!binary` scalars are kept as their text with [`Form::Tagged`],
    /// for the validator to reject or interpret. Merge keys (`<<`) still merge.
    Core,
}

/// The JavaScript property name (`String(key)`) of a scalar key value.
pub(crate) fn key_string(value: &Value) -> Option<String> {
    Some(match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => format_js(*n),
        Value::String(s) => s.clone(),
        Value::Timestamp(t) => js_date_string(*t),
        Value::Seq(_) | Value::Map(_) => return None,
    })
}

/// `Date#toString()` in UTC, e.g. `Sun Jan 01 2023 00:00:00 GMT+0000 (Coordinated Universal Time)`.
fn js_date_string(ms: f64) -> String {
    if !ms.is_finite() {
        return "Invalid Date".to_string();
    }
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let t = ms.trunc() as i64;
    let (y, m, d) = civil_from_days(t.div_euclid(86_400_000));
    let rem = t.rem_euclid(86_400_000);
    let year = if y < 0 {
        format!("-{:06}", -y)
    } else {
        format!("{y:04}")
    };
    format!(
        "{} {} {:02} {} {:02}:{:02}:{:02} GMT+0000 (Coordinated Universal Time)",
        DAYS.get(weekday(ms)).unwrap_or(&"Sun"),
        MONTHS.get(m.saturating_sub(1) as usize).unwrap_or(&"Jan"),
        d,
        year,
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60
    )
}

pub(crate) fn is_null(s: &str) -> bool {
    matches!(s, "" | "~" | "null" | "Null" | "NULL")
}

pub(crate) fn resolve_bool(s: &str) -> Option<bool> {
    match s {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// Implicit resolution of a plain scalar with js-yaml's default schema.
pub fn resolve_plain(s: &str) -> Value {
    resolve_plain_form(s, Schema::JsYaml).0
}

/// Implicit resolution of a plain scalar with `schema`, and its [`Form`].
pub fn resolve_plain_form(s: &str, schema: Schema) -> (Value, Form) {
    if is_null(s) {
        return (Value::Null, Form::Plain);
    }
    if let Some(b) = resolve_bool(s) {
        return (Value::Bool(b), Form::Plain);
    }
    match schema {
        Schema::JsYaml => {
            if let Some(n) = resolve_int(s) {
                return (Value::Number(n), Form::Int);
            }
            if let Some(n) = resolve_float(s) {
                return (Value::Number(n), Form::Float);
            }
            if let Some(t) = parse_yaml_timestamp(s) {
                return (Value::Timestamp(t), Form::Plain);
            }
        }
        Schema::Core => {
            if let Some(n) = core_int(s) {
                return (Value::Number(n), Form::Int);
            }
            if let Some(n) = core_float(s) {
                return (Value::Number(n), Form::Float);
            }
        }
    }
    (Value::String(s.to_string()), Form::Plain)
}

/// The YAML 1.2 core schema's `!!int`: `[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`.
pub(crate) fn core_int(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    for (prefix, radix) in [("0o", 8), ("0x", 16)] {
        if let Some(digits) = b.strip_prefix(prefix.as_bytes()) {
            if digits.is_empty() || !digits.iter().all(|&c| (c as char).is_digit(radix)) {
                return None;
            }
            return Some(radix_value(digits, radix));
        }
    }
    let (sign, digits) = match b.first()? {
        b'-' => (-1.0, b.get(1..)?),
        b'+' => (1.0, b.get(1..)?),
        _ => (1.0, b),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits)
        .ok()?
        .parse::<f64>()
        .ok()
        .map(|n| sign * n)
}

/// The exact value of a YAML 1.2 core schema `!!int` (`[-+]?[0-9]+`,
/// `0o[0-7]+`, `0x[0-9a-fA-F]+`) as a 64-bit signed integer: `None` if `s`
/// is no such integer or lies outside `i64`. [`Value::Number`] keeps
/// JavaScript's number semantics (exact only up to 2^53); a validator that
/// must see the written integer reads it back from the source text with
/// this.
pub fn core_int_exact(s: &str) -> Option<i64> {
    let (negative, digits, radix) = if let Some(d) = s.strip_prefix("0o") {
        (false, d, 8)
    } else if let Some(d) = s.strip_prefix("0x") {
        (false, d, 16)
    } else if let Some(d) = s.strip_prefix('-') {
        (true, d, 10)
    } else {
        (false, s.strip_prefix('+').unwrap_or(s), 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    // `from_str_radix` would accept a sign of its own; the digits have none.
    let magnitude = u64::from_str_radix(digits, radix).ok()?;
    if negative {
        0i64.checked_sub_unsigned(magnitude)
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// The YAML 1.2 core schema's `!!float`:
/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, `[-+]?\.(inf|Inf|INF)`,
/// `\.(nan|NaN|NAN)`.
pub(crate) fn core_float(s: &str) -> Option<f64> {
    match s {
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return Some(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Some(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Some(f64::NAN),
        _ => {}
    }
    let b = s.as_bytes();
    let digits = |from: usize| {
        b.get(from..)
            .map_or(0, |r| r.iter().take_while(|c| c.is_ascii_digit()).count())
    };
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    let whole = digits(i);
    i += whole;
    let mut fraction = 0;
    if b.get(i) == Some(&b'.') {
        fraction = digits(i + 1);
        i += 1 + fraction;
    }
    if whole == 0 && fraction == 0 {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1 + usize::from(matches!(b.get(i + 1), Some(b'-' | b'+')));
        let exponent = digits(i);
        if exponent == 0 {
            return None;
        }
        i += exponent;
    }
    if i != b.len() {
        return None;
    }
    parse_float_prefix(s.strip_prefix('+').unwrap_or(s))
}

/// js-yaml's `!!int`: decimal, `0b`, `0x`, `0o`, with `_` separators.
pub(crate) fn resolve_int(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let (neg, body) = match b.first()? {
        b'-' => (true, b.get(1..)?),
        b'+' => (false, b.get(1..)?),
        _ => (false, b),
    };
    let first = *body.first()?;
    let sign = if neg { -1.0 } else { 1.0 };
    if first == b'0' {
        if body.len() == 1 {
            // js-yaml returns `0` for a lone zero before applying the sign:
            // `-0` reads as 0, not -0.
            return Some(0.0);
        }
        let radix = match body.get(1) {
            Some(b'b') => Some(2),
            Some(b'x') => Some(16),
            Some(b'o') => Some(8),
            _ => None,
        };
        if let Some(radix) = radix {
            let digits = body.get(2..)?;
            if digits.last() == Some(&b'_') {
                return None;
            }
            let mut clean = Vec::new();
            for &c in digits {
                if c == b'_' {
                    continue;
                }
                if !(c as char).is_digit(radix) {
                    return None;
                }
                clean.push(c);
            }
            if clean.is_empty() {
                return None;
            }
            return Some(sign * radix_value(&clean, radix));
        }
        if body.get(1) == Some(&b'_') {
            return None;
        }
    } else if first == b'_' {
        return None;
    }
    if body.last() == Some(&b'_') {
        return None;
    }
    let mut clean = String::new();
    for &c in body {
        if c == b'_' {
            continue;
        }
        if !c.is_ascii_digit() {
            return None;
        }
        clean.push(c as char);
    }
    if clean.is_empty() {
        return None;
    }
    clean.parse::<f64>().ok().map(|n| sign * n)
}

/// The value of validated digits in a power-of-two radix, correctly rounded
/// when it fits in 128 bits (JavaScript's `parseInt` is exact for these radixes).
fn radix_value(digits: &[u8], radix: u32) -> f64 {
    let mut exact: Option<u128> = Some(0);
    let mut approx = 0.0f64;
    for &c in digits {
        let d = (c as char).to_digit(radix).unwrap_or(0);
        exact = exact
            .and_then(|v| v.checked_mul(u128::from(radix)))
            .and_then(|v| v.checked_add(u128::from(d)));
        approx = approx * f64::from(radix) + f64::from(d);
    }
    match exact {
        Some(v) => v as f64,
        None => approx,
    }
}

/// js-yaml's `!!float` pattern:
/// `[-+]?[0-9][0-9_]*(\.[0-9_]*)?([eE][-+]?[0-9]+)?`, `\.[0-9_]+([eE][-+]?[0-9]+)?`,
/// `[-+]?\.(inf|Inf|INF)`, `\.(nan|NaN|NAN)`; never ending with `_`.
pub(crate) fn resolve_float(s: &str) -> Option<f64> {
    match s {
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return Some(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Some(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Some(f64::NAN),
        _ => {}
    }
    if s.ends_with('_') {
        return None;
    }
    let b = s.as_bytes();
    let mut i = 0;
    let mut neg = false;
    let leading_dot = b.first() == Some(&b'.');
    if !leading_dot {
        if let Some(&c) = b.first() {
            if c == b'-' || c == b'+' {
                neg = c == b'-';
                i = 1;
            }
        }
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
            i += 1;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
                i += 1;
            }
        }
    } else {
        i = 1;
        let start = i;
        while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    let start = usize::from(neg || b.first() == Some(&b'+'));
    let clean: String = s
        .get(start..)?
        .chars()
        .filter(|&c| c != '_')
        .collect::<String>()
        .to_ascii_lowercase();
    let n = parse_float_prefix(&clean)?;
    Some(if neg { -n } else { n })
}

/// JavaScript's `parseFloat` on a string already validated by [`resolve_float`].
fn parse_float_prefix(s: &str) -> Option<f64> {
    if let Ok(n) = s.parse::<f64>() {
        return Some(n);
    }
    // Forms Rust rejects but parseFloat accepts, e.g. `1.e5` or `.` prefixes.
    let fixed = s.replacen(".e", ".0e", 1);
    let fixed = if fixed.starts_with('.') {
        format!("0{fixed}")
    } else {
        fixed
    };
    fixed.parse::<f64>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values and signs js-yaml 4.1 gives (checked with it): a lone zero
    /// is `0` whatever its sign; other zeros keep theirs.
    #[test]
    fn a_lone_zero_has_no_sign_as_in_js_yaml() {
        let bits = |s: &str| resolve_int(s).map(f64::to_bits);
        assert_eq!(bits("-0"), Some(0.0f64.to_bits()));
        assert_eq!(bits("+0"), Some(0.0f64.to_bits()));
        assert_eq!(bits("-00"), Some((-0.0f64).to_bits()));
        assert_eq!(bits("-0x0"), Some((-0.0f64).to_bits()));
        assert_eq!(bits("-0b_1"), Some((-1.0f64).to_bits()));
        assert_eq!(bits("-0_"), None);
        assert_eq!(bits("-_0"), None);
        assert_eq!(bits("1_000"), Some(1000.0f64.to_bits()));
    }

    #[test]
    fn core_integers_are_read_exactly_within_64_bits() {
        assert_eq!(core_int_exact("9223372036854775807"), Some(i64::MAX));
        assert_eq!(core_int_exact("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(core_int_exact("0x7fffffffffffffff"), Some(i64::MAX));
        assert_eq!(core_int_exact("0o777777777777777777777"), Some(i64::MAX));
        assert_eq!(
            core_int_exact("+9007199254740993"),
            Some(9_007_199_254_740_993)
        );
        assert_eq!(core_int_exact("9223372036854775808"), None);
        assert_eq!(core_int_exact("-9223372036854775809"), None);
        assert_eq!(core_int_exact("0x8000000000000000"), None);
        assert_eq!(core_int_exact("-0x1"), None);
        assert_eq!(core_int_exact("1.0"), None);
        assert_eq!(core_int_exact(""), None);
        assert_eq!(core_int_exact("-"), None);
        assert_eq!(core_int_exact("0x"), None);
    }
}
