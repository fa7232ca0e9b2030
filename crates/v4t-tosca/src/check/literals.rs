//! The string forms of TOSCA's special types: timestamps (RFC 3339,
//! §9.1.2.1), versions (§9.1.2.3), scalars (`<number> <unit>`, §9.1.2.2)
//! and bytes (Base64, §9.1.1.5).

use std::cmp::Ordering;

/// A parsed timestamp: the instant in nanoseconds since the epoch (UTC).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct TimestampValue(pub i128);

/// Parses an RFC 3339 timestamp: `full-date` alone or `full-date "T"
/// full-time` with a `Z` or `±hh:mm` offset (`-00:00` is UTC).
pub fn parse_timestamp(s: &str) -> Option<TimestampValue> {
    let b = s.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = b.get(from..from + len)?;
        if !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(part).ok()?.parse().ok()
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let days = v4t_yaml::timestamp::days_from_civil(year, month as u32, day as u32) as i128;
    let mut nanos = days * 86_400 * 1_000_000_000;
    if b.len() == 10 {
        return Some(TimestampValue(nanos));
    }
    if !matches!(b[10], b'T' | b't') || b.len() < 19 || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (hour, minute, second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut i = 19;
    let mut frac: i128 = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
        let digits = &s[start..i.min(start + 9)];
        frac = digits.parse::<i128>().ok()? * 10i128.pow(9 - digits.len() as u32);
    }
    let offset_minutes = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) if i + 6 == b.len() && b[i + 3] == b':' => {
            let (oh, om) = (num(i + 1, 2)?, num(i + 4, 2)?);
            if oh > 23 || om > 59 {
                return None;
            }
            let m = oh * 60 + om;
            if sign == b'-' {
                -m
            } else {
                m
            }
        }
        _ => return None,
    };
    nanos +=
        ((hour * 3600 + minute * 60 + second - offset_minutes * 60) as i128) * 1_000_000_000 + frac;
    Some(TimestampValue(nanos))
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// A parsed TOSCA version: `major.minor[.fix[.qualifier[-build]]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionValue {
    /// The first number.
    pub major: u64,
    /// The second number.
    pub minor: u64,
    /// The third number (0 if omitted).
    pub fix: u64,
    /// The qualifier after the third number, if any.
    pub qualifier: Option<String>,
    /// The build number after the qualifier (0 if omitted).
    pub build: u64,
}

impl PartialOrd for VersionValue {
    /// Maven-style (§9.1.2.3): numbers left to right; a version with a
    /// qualifier is older than one without; different qualifiers of the
    /// same numbers do not compare.
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        let nums = (self.major, self.minor, self.fix).cmp(&(other.major, other.minor, other.fix));
        if nums != Ordering::Equal {
            return Some(nums);
        }
        match (&self.qualifier, &other.qualifier) {
            (None, None) => Some(Ordering::Equal),
            (Some(_), None) => Some(Ordering::Less),
            (None, Some(_)) => Some(Ordering::Greater),
            (Some(a), Some(b)) if a == b => Some(self.build.cmp(&other.build)),
            _ => None,
        }
    }
}

/// Parses a TOSCA version string.
pub fn parse_version(s: &str) -> Option<VersionValue> {
    let mut parts = s.splitn(4, '.');
    let n = |p: Option<&str>| -> Option<u64> {
        let p = p?;
        if p.is_empty() || !p.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        p.parse().ok()
    };
    let major = n(parts.next())?;
    let minor = n(parts.next())?;
    let mut v = VersionValue {
        major,
        minor,
        fix: 0,
        qualifier: None,
        build: 0,
    };
    if let Some(fix) = parts.next() {
        v.fix = n(Some(fix))?;
        if let Some(rest) = parts.next() {
            let (q, build) = match rest.rsplit_once('-') {
                Some((q, b)) => (q, n(Some(b))?),
                None => (rest, 0),
            };
            if q.is_empty() || !q.chars().all(|c| c.is_alphanumeric() || c == '_') {
                return None;
            }
            v.qualifier = Some(q.to_string());
            v.build = build;
        }
    }
    Some(v)
}

/// A scalar literal split into its number and unit (`"10 kg"` → 10, `kg`).
#[derive(Clone, Debug, PartialEq)]
pub struct ScalarLiteral<'s> {
    pub number: f64,
    /// Whether the number was written as an integer.
    pub integer: bool,
    pub unit: &'s str,
}

/// Splits `<number> <unit>` (whitespace between them is required, the
/// number is any YAML number notation).
pub fn parse_scalar_literal(s: &str) -> Option<ScalarLiteral<'_>> {
    let s = s.trim();
    let (num, unit) = s.split_once(char::is_whitespace)?;
    parse_scalar_literal_parts(num, unit.trim_start())
}

/// A scalar literal from its number and unit texts.
fn parse_scalar_literal_parts<'s>(num: &str, unit: &'s str) -> Option<ScalarLiteral<'s>> {
    if unit.is_empty() || unit.contains(char::is_whitespace) {
        return None;
    }
    let number = match v4t_yaml::parse::resolve_plain(num) {
        v4t_yaml::Value::Number(n) => n,
        _ => return None,
    };
    let lower = num.to_ascii_lowercase();
    let integer = !(lower.contains('.') || (lower.contains('e') && !lower.contains("0x")));
    Some(ScalarLiteral {
        number,
        integer,
        unit,
    })
}

/// [`parse_scalar_literal`], and TOSCA 1.3's form without whitespace
/// (1.3 §3.3.6.2: "any number of spaces (including zero or none)" between
/// the number and the unit, e.g. `4GB`): the unit is then the trailing run of
/// letters.
pub fn parse_scalar_literal_13(s: &str) -> Option<ScalarLiteral<'_>> {
    if let Some(lit) = parse_scalar_literal(s) {
        return Some(lit);
    }
    let s = s.trim();
    let unit_len = s.bytes().rev().take_while(u8::is_ascii_alphabetic).count();
    let (num, unit) = s.split_at(s.len() - unit_len);
    if num.is_empty() || unit.is_empty() {
        return None;
    }
    parse_scalar_literal_parts(num, unit)
}

/// Whether `s` is Base64 (RFC 2045 §6.8: line breaks and spaces ignored,
/// `=` padding only at the end).
pub fn is_base64(s: &str) -> bool {
    let data: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !data.len().is_multiple_of(4) {
        return false;
    }
    let pad = data.iter().rev().take_while(|&&b| b == b'=').count();
    if pad > 2 {
        return false;
    }
    data[..data.len() - pad]
        .iter()
        .all(|&b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_follow_rfc_3339() {
        assert!(parse_timestamp("2025-04-12T23:20:50.52Z").is_some());
        assert!(parse_timestamp("1990-12-31T15:59:60-08:00").is_some());
        assert!(parse_timestamp("2000-02-29").is_some());
        assert!(parse_timestamp("2001-02-29").is_none());
        assert!(parse_timestamp("2001-12-14 21:59:43.10").is_none());
        assert!(parse_timestamp("2001-12-14T21:59:43").is_none());
        assert!(parse_timestamp("2001-13-14").is_none());
        let a = parse_timestamp("1996-12-19T16:39:57-08:00").unwrap();
        let b = parse_timestamp("1996-12-20T00:39:57Z").unwrap();
        assert_eq!(a, b);
        assert_eq!(
            parse_timestamp("2000-01-01T00:00:00-00:00"),
            parse_timestamp("2000-01-01T00:00:00Z")
        );
    }

    #[test]
    fn versions_parse_and_compare_like_maven() {
        let v = |s| parse_version(s).unwrap();
        assert_eq!(v("2.0.1").fix, 1);
        assert_eq!(v("1.0.0.alpha-10").build, 10);
        assert!(parse_version("6").is_none());
        assert!(parse_version("1.x").is_none());
        assert!(v("1.2") < v("1.10"));
        assert!(v("3.1.0.beta") < v("3.1.0"));
        assert!(v("1.0.0.alpha-2") < v("1.0.0.alpha-10"));
        assert_eq!(v("1.0.0.alpha").partial_cmp(&v("1.0.0.beta")), None);
    }

    #[test]
    fn scalar_literals_need_a_number_whitespace_and_a_unit() {
        let l = parse_scalar_literal("10 kg").unwrap();
        assert_eq!((l.number, l.integer, l.unit), (10.0, true, "kg"));
        let l = parse_scalar_literal("125.3   mm").unwrap();
        assert_eq!((l.number, l.integer, l.unit), (125.3, false, "mm"));
        assert!(parse_scalar_literal("10").is_none());
        assert!(parse_scalar_literal("g").is_none());
        assert!(parse_scalar_literal("1,000bp/s").is_none());
        assert!(parse_scalar_literal("10kg").is_none());
        assert_eq!(parse_scalar_literal_13("10kg").unwrap().unit, "kg");
        let l = parse_scalar_literal_13("1.5e3GB").unwrap();
        assert_eq!((l.number, l.unit, l.integer), (1500.0, "GB", false));
        assert_eq!(parse_scalar_literal_13("2 GB").unwrap().number, 2.0);
        assert!(parse_scalar_literal_13("GB").is_none());
        assert!(parse_scalar_literal_13("12").is_none());
        assert!(parse_scalar_literal_13("x1GB").is_none());
        assert_eq!(parse_scalar_literal("0x10 B").unwrap().number, 16.0);
    }

    #[test]
    fn base64_is_checked_without_decoding() {
        assert!(is_base64(""));
        assert!(is_base64("R0lGODlh\nDAAMAA=="));
        assert!(!is_base64("abc"));
        assert!(!is_base64("ab=c"));
        assert!(!is_base64("a*bc"));
    }
}
