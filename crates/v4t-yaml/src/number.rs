//! JavaScript number formatting (`Number.prototype.toString()`).
//!
//! The reference implementation is written in JavaScript, so numbers appear in
//! its output (YAML, JSON, messages) the way JavaScript prints them: shortest
//! round-trip digits, integers without a fractional part, exponent notation
//! only for very large or very small magnitudes.

/// Formats `n` exactly like JavaScript's `String(n)` / `Number#toString()`.
pub fn format_js(n: f64) -> String {
    if n.is_nan() {
        return "NaN".to_string();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.to_string();
    }
    if n == 0.0 {
        return "0".to_string();
    }
    let (digits, point) = shortest_digits(n.abs());
    let mut out = String::new();
    if n < 0.0 {
        out.push('-');
    }
    let k = digits.len() as i64;
    if k <= point && point <= 21 {
        out.push_str(&digits);
        for _ in 0..(point - k) {
            out.push('0');
        }
    } else if 0 < point && point <= 21 {
        let (int, frac) = digits.split_at(point as usize);
        out.push_str(int);
        out.push('.');
        out.push_str(frac);
    } else if -6 < point && point <= 0 {
        out.push_str("0.");
        for _ in 0..(-point) {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let e = point - 1;
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push('e');
        out.push(if e < 0 { '-' } else { '+' });
        out.push_str(&e.abs().to_string());
    }
    out
}

/// The shortest round-trip decimal digits of a finite positive `x` and the
/// position of the decimal point: `x = 0.d1d2d3... * 10^point`.
fn shortest_digits(x: f64) -> (String, i64) {
    // Rust's `{:e}` prints the shortest representation that round-trips,
    // e.g. `1.2345e-7` or `1e21`.
    let s = format!("{:e}", x);
    let (mantissa, exp) = s.split_once('e').unwrap_or((s.as_str(), "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    (digits, exp + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_javascript() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "0"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e21, "1e+21"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (123e-20, "1.23e-18"),
            (123456789012345680000.0, "123456789012345680000"),
            (2.5, "2.5"),
            (-7.0, "-7"),
            (100.0, "100"),
            (1e20, "100000000000000000000"),
            (0.000001, "0.000001"),
            (0.0000012, "0.0000012"),
            (123.456, "123.456"),
            (-0.5, "-0.5"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (9007199254740993.0, "9007199254740992"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (1.0 / 3.0, "0.3333333333333333"),
            (-1.5e300, "-1.5e+300"),
        ];
        for (n, s) in cases {
            assert_eq!(format_js(*n), *s, "formatting {n:e}");
        }
    }
}
