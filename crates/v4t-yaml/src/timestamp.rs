//! YAML timestamps as JavaScript dates.
//!
//! js-yaml (the reference implementation's YAML library) turns plain scalars
//! such as `2023-01-01` or `2001-12-14t21:59:43.10-05:00` into JavaScript
//! `Date`s. We represent a date as milliseconds since the epoch (UTC), compute
//! it exactly as js-yaml does (including `Date.UTC`'s overflow rules), and
//! print it as `Date#toISOString` does. The calendar helpers are public because
//! date operators elsewhere reuse them.

const MS_PER_DAY: i64 = 86_400_000;

/// Days since 1970-01-01 of the proleptic Gregorian date `y-m-d` (`m` in 1..=12).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let m = i64::from(m);
    let d = i64::from(d);
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date `(year, month 1..=12, day 1..=31)` of a day
/// number counted from 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    (y, m as u32, d as u32)
}

/// Day of the week of a time value (0 = Sunday), in UTC, like `Date#getUTCDay`.
/// Non-finite times give 0.
pub fn weekday(ms: f64) -> usize {
    if !ms.is_finite() {
        return 0;
    }
    let days = (ms.trunc() as i64).div_euclid(MS_PER_DAY);
    // 1970-01-01 was a Thursday.
    (days + 4).rem_euclid(7) as usize
}

/// JavaScript's `Date.UTC(year, month0, day, h, min, s, ms)`, including its
/// overflow behaviour (month 12 is January of the next year, day 0 is the last
/// day of the previous month, ...) and the mapping of years 0..=99 to 1900..=1999.
fn date_utc(year: i64, month0: i64, day: i64, h: i64, min: i64, s: i64, ms: i64) -> f64 {
    let year = if (0..=99).contains(&year) {
        1900 + year
    } else {
        year
    };
    let ym = year + month0.div_euclid(12);
    let mn = month0.rem_euclid(12) as u32 + 1;
    let days = days_from_civil(ym, mn, 1) + day - 1;
    let t = days * MS_PER_DAY + h * 3_600_000 + min * 60_000 + s * 1000 + ms;
    t as f64
}

/// A position in a date text (ASCII is all the date formats use), shared by
/// the YAML timestamp reader and the date operators of value expressions.
#[derive(Clone, Debug)]
pub struct Cursor<'a> {
    text: &'a [u8],
    /// The byte position.
    pub pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`.
    pub fn new(text: &'a str) -> Cursor<'a> {
        Cursor {
            text: text.as_bytes(),
            pos: 0,
        }
    }

    /// The byte at the position.
    pub fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    /// Moves past `c` if it is next.
    pub fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Between `min` and `max` ASCII digits, as a number (saturated at
    /// `i64::MAX` for runs too long to fit); `None`, with the position
    /// unchanged, if fewer than `min` follow.
    pub fn digits(&mut self, min: usize, max: usize) -> Option<i64> {
        let start = self.pos;
        let mut v: i64 = 0;
        while self.pos - start < max {
            match self.peek() {
                Some(c) if c.is_ascii_digit() => {
                    v = v.saturating_mul(10).saturating_add(i64::from(c - b'0'));
                    self.pos += 1;
                }
                _ => break,
            }
        }
        if self.pos - start >= min {
            Some(v)
        } else {
            self.pos = start;
            None
        }
    }

    /// Whether the whole text is read.
    pub fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    /// Skips spaces and tabs; returns how many.
    pub fn skip_blanks(&mut self) -> usize {
        let start = self.pos;
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
        self.pos - start
    }

    /// The text from byte `start` to the position.
    pub fn since(&self, start: usize) -> &'a [u8] {
        self.text.get(start..self.pos).unwrap_or_default()
    }
}

/// Parses a YAML timestamp the way js-yaml 4 does and returns milliseconds
/// since the epoch, or `None` if `s` is not a timestamp.
///
/// Accepted forms: `YYYY-MM-DD` (UTC midnight) and
/// `YYYY-M-D(T|t|blanks)H:MM:SS(.fraction)?(blanks*(Z|±H(:MM)?))?`. Without a
/// zone the time is UTC; fractional seconds are truncated to milliseconds.
pub fn parse_yaml_timestamp(s: &str) -> Option<f64> {
    let mut c = Cursor::new(s);
    let year = c.digits(4, 4)?;
    if !c.eat(b'-') {
        return None;
    }
    let month_start = c.pos;
    let month = c.digits(1, 2)?;
    let month_len = c.pos - month_start;
    if !c.eat(b'-') {
        return None;
    }
    let day_start = c.pos;
    let day = c.digits(1, 2)?;
    let day_len = c.pos - day_start;
    if c.at_end() {
        // The date-only form needs two-digit month and day.
        if month_len == 2 && day_len == 2 {
            return Some(date_utc(year, month - 1, day, 0, 0, 0, 0));
        }
        return None;
    }
    if !(c.eat(b'T') || c.eat(b't') || c.skip_blanks() > 0) {
        return None;
    }
    let hour = c.digits(1, 2)?;
    if !c.eat(b':') {
        return None;
    }
    let minute = c.digits(2, 2)?;
    if !c.eat(b':') {
        return None;
    }
    let second = c.digits(2, 2)?;
    let mut fraction = 0;
    if c.eat(b'.') {
        let start = c.pos;
        while matches!(c.peek(), Some(d) if d.is_ascii_digit()) {
            c.pos += 1;
        }
        let digits = c.since(start);
        let mut ms = 0;
        for k in 0..3 {
            ms = ms * 10 + digits.get(k).map_or(0, |d| i64::from(d - b'0'));
        }
        fraction = ms;
    }
    let mut delta = 0;
    if !c.at_end() {
        c.skip_blanks();
        if c.eat(b'Z') {
        } else {
            let sign = match c.peek() {
                Some(b'+') => 1,
                Some(b'-') => -1,
                _ => return None,
            };
            c.pos += 1;
            let tz_hour = c.digits(1, 2)?;
            let tz_minute = if c.eat(b':') { c.digits(2, 2)? } else { 0 };
            delta = sign * (tz_hour * 60 + tz_minute) * 60_000;
        }
        if !c.at_end() {
            return None;
        }
    }
    let t = date_utc(year, month - 1, day, hour, minute, second, fraction);
    Some(t - delta as f64)
}

/// Formats a time value like JavaScript's `Date#toISOString`:
/// `YYYY-MM-DDTHH:MM:SS.mmmZ`, with `+YYYYYY`/`-YYYYYY` years outside 0..=9999.
/// Non-finite values (invalid dates) give `Invalid Date`.
pub fn format_iso(ms: f64) -> String {
    if !ms.is_finite() {
        return "Invalid Date".to_string();
    }
    let t = ms.trunc() as i64;
    let days = t.div_euclid(MS_PER_DAY);
    let rem = t.rem_euclid(MS_PER_DAY);
    let (y, m, d) = civil_from_days(days);
    let year = if (0..=9999).contains(&y) {
        format!("{y:04}")
    } else if y < 0 {
        format!("-{:06}", -y)
    } else {
        format!("+{y:06}")
    };
    format!(
        "{year}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iso(s: &str) -> Option<String> {
        parse_yaml_timestamp(s).map(format_iso)
    }

    #[test]
    fn parses_the_yaml_timestamp_forms() {
        assert_eq!(parse_yaml_timestamp("1970-01-01"), Some(0.0));
        assert_eq!(
            iso("2023-01-01").as_deref(),
            Some("2023-01-01T00:00:00.000Z")
        );
        assert_eq!(
            iso("2001-12-14t21:59:43.10-05:00").as_deref(),
            Some("2001-12-15T02:59:43.100Z")
        );
        assert_eq!(
            iso("2001-12-14T21:59:43.123456Z").as_deref(),
            Some("2001-12-14T21:59:43.123Z")
        );
        assert_eq!(
            iso("2001-12-14 21:59:43.10 -5").as_deref(),
            Some("2001-12-15T02:59:43.100Z")
        );
        assert_eq!(
            iso("2001-12-14 21:59:43.10").as_deref(),
            Some("2001-12-14T21:59:43.100Z")
        );
        assert_eq!(
            iso("2002-1-2 1:02:03").as_deref(),
            Some("2002-01-02T01:02:03.000Z")
        );
        assert_eq!(
            iso("2002-01-02T01:02:03.").as_deref(),
            Some("2002-01-02T01:02:03.000Z")
        );
        // Date.UTC overflow rules.
        assert_eq!(
            iso("2023-02-30").as_deref(),
            Some("2023-03-02T00:00:00.000Z")
        );
        assert_eq!(
            iso("2023-13-01").as_deref(),
            Some("2024-01-01T00:00:00.000Z")
        );
        assert_eq!(
            iso("0050-01-01").as_deref(),
            Some("1950-01-01T00:00:00.000Z")
        );
    }

    #[test]
    fn rejects_non_timestamps() {
        for s in [
            "",
            "2023",
            "2023-1-01",
            "2023-01-1",
            "2023-01-01x",
            "2023-01-01T",
            "2023-01-01T1:2:03",
            "2023-01-01 10:00:00 +0100",
            "2023-01-01 10:00:00Zx",
            "23-01-01",
            "2023/01/01",
        ] {
            assert_eq!(parse_yaml_timestamp(s), None, "{s:?}");
        }
    }

    #[test]
    fn formats_like_to_iso_string() {
        assert_eq!(format_iso(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_iso(-1.0), "1969-12-31T23:59:59.999Z");
        assert_eq!(format_iso(1e15), "+033658-09-27T01:46:40.000Z");
        assert_eq!(format_iso(-1e14), "-001199-02-15T14:13:20.000Z");
        assert_eq!(format_iso(f64::NAN), "Invalid Date");
    }

    #[test]
    fn civil_round_trip_and_weekday() {
        for z in [-800_000, -1, 0, 1, 59, 365, 10_957, 19_358, 2_932_896] {
            let (y, m, d) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, d), z);
        }
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(weekday(0.0), 4);
        // 2023-01-01 was a Sunday.
        assert_eq!(
            weekday(parse_yaml_timestamp("2023-01-01").unwrap_or(0.0)),
            0
        );
        assert_eq!(weekday(-1.0), 3);
    }
}
