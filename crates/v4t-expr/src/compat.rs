//! JavaScript renderings this crate needs from `v4t-yaml`: `JSON.stringify`,
//! `Number#toString`, `Date#toISOString` and the civil-calendar helpers.
//!
//! They are kept behind this one small module so that the rest of the crate does
//! not depend on where they come from: private fallbacks were used here while
//! `v4t-yaml`'s versions did not exist yet; now these are thin wrappers.

use v4t_yaml::{json, number, timestamp, Node, Value};

/// `JSON.stringify(x)` of a value (compact).
pub(crate) fn to_json(value: &Value) -> String {
    json::to_json(&Node::synth(value.clone()))
}

/// JavaScript's `Number.prototype.toString()`.
pub(crate) fn format_js(n: f64) -> String {
    number::format_js(n)
}

/// Days since 1970-01-01 of the proleptic Gregorian date `y-m-d` (`m` in 1..=12).
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    timestamp::days_from_civil(y, m, d)
}

/// The date `(year, month 1..=12, day 1..=31)` of a day number counted from 1970-01-01.
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    timestamp::civil_from_days(z)
}

/// Day of the week (0 = Sunday) of a time value, in UTC; non-finite times give 0.
pub(crate) fn weekday(ms: f64) -> usize {
    timestamp::weekday(ms)
}

/// `Date#toISOString`; non-finite values give `Invalid Date`.
#[cfg(test)]
pub(crate) fn format_iso(ms: f64) -> String {
    timestamp::format_iso(ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use v4t_yaml::Map;

    #[test]
    fn numbers_print_like_javascript() {
        assert_eq!(format_js(4.0), "4");
        assert_eq!(format_js(-2.5), "-2.5");
        assert_eq!(format_js(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(format_js(1e21), "1e+21");
        assert_eq!(format_js(123456789012345680000.0), "123456789012345680000");
        assert_eq!(format_js(0.000001), "0.000001");
        assert_eq!(format_js(1.5e-7), "1.5e-7");
        assert_eq!(format_js(f64::NAN), "NaN");
        assert_eq!(format_js(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(format_js(-0.0), "0");
    }

    #[test]
    fn json_matches_stringify() {
        let mut m = Map::new();
        m.insert("1", Node::null());
        m.insert(
            "b",
            Node::seq(vec![Node::number(1.0), Node::string("x\"y")]),
        );
        m.insert("e", Node::map(Map::new()));
        let v = Value::Map(m);
        assert_eq!(to_json(&v), r#"{"1":null,"b":[1,"x\"y"],"e":{}}"#);
        assert_eq!(
            json::to_json_pretty(&Node::synth(v.clone())),
            "{\n    \"1\": null,\n    \"b\": [\n        1,\n        \"x\\\"y\"\n    ],\n    \"e\": {}\n}"
        );
        assert_eq!(to_json(&Value::Number(f64::NAN)), "null");
        assert_eq!(
            to_json(&Value::Timestamp(1_672_531_200_000.0)),
            "\"2023-01-01T00:00:00.000Z\""
        );
    }

    #[test]
    fn calendar_helpers_round_trip() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2023, 1, 1), 19_358);
        assert_eq!(civil_from_days(19_358), (2023, 1, 1));
        assert_eq!(weekday(0.0), 4);
        assert_eq!(format_iso(-1.0), "1969-12-31T23:59:59.999Z");
    }
}
