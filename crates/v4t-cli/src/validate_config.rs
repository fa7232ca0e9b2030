//! `v4t.toml`: the severities of `v4t validate`'s rules, for a project.
//!
//! ```toml
//! [validate]
//! warn = ["V4T110"]           # errors of these codes become warnings
//! allow = ["V4T101", "V4T180"] # diagnostics of these codes are dropped
//! ```
//!
//! The file is found upward from the validated file (its directory, then
//! each parent). Only this subset of TOML is read (tables, `key = "string"`
//! and `key = [ "string", ... ]` over several lines, `#` comments); other
//! tables are ignored, unknown keys of `[validate]` are errors.

use std::path::{Path, PathBuf};

/// The file name looked for.
pub const FILE_NAME: &str = "v4t.toml";

/// The `[validate]` settings of a `v4t.toml`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ValidateConfig {
    /// Codes whose errors become warnings.
    pub warn: Vec<String>,
    /// Codes whose diagnostics are dropped.
    pub allow: Vec<String>,
}

/// The nearest `v4t.toml` at or above `start` (a directory).
pub fn find(start: &Path) -> Option<PathBuf> {
    let start = std::fs::canonicalize(start).ok()?;
    start
        .ancestors()
        .map(|dir| dir.join(FILE_NAME))
        .find(|candidate| candidate.is_file())
}

/// Reads the `[validate]` table of a `v4t.toml` text; an error names the
/// line (1-based) and what is wrong.
pub fn parse(text: &str) -> Result<ValidateConfig, String> {
    let mut config = ValidateConfig::default();
    let mut table = String::new();
    let mut lines = text.lines().enumerate();
    while let Some((i, raw)) = lines.next() {
        let line = strip_comment(raw).trim();
        if line.is_empty() {
            continue;
        }
        if let Some(name) = line.strip_prefix('[') {
            let name = name
                .strip_suffix(']')
                .ok_or_else(|| format!("line {}: a table header ends with `]`", i + 1))?;
            table = name.trim().to_string();
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .ok_or_else(|| format!("line {}: expected `key = value`", i + 1))?;
        let (key, mut value) = (key.trim(), value.trim().to_string());
        // An array may continue over the following lines.
        if value.starts_with('[') {
            while !value.ends_with(']') {
                let Some((_, next)) = lines.next() else {
                    return Err(format!("line {}: the array is not closed", i + 1));
                };
                value.push(' ');
                value.push_str(strip_comment(next).trim());
            }
        }
        if table != "validate" {
            continue;
        }
        let codes = strings(&value).map_err(|e| format!("line {}: {e}", i + 1))?;
        match key {
            "warn" => config.warn.extend(codes),
            "allow" => config.allow.extend(codes),
            _ => {
                return Err(format!(
                    "line {}: unknown key `{key}` in [validate] (known: warn, allow)",
                    i + 1
                ))
            }
        }
    }
    Ok(config)
}

/// The line without a `#` comment (outside a string).
fn strip_comment(line: &str) -> &str {
    let mut quoted = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '#' if !quoted => return &line[..i],
            _ => {}
        }
    }
    line
}

/// A string or an array of strings (no escapes: codes need none).
fn strings(value: &str) -> Result<Vec<String>, String> {
    let one = |s: &str| -> Result<String, String> {
        let s = s.trim();
        s.strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .filter(|s| !s.contains(['"', '\\']))
            .map(str::to_string)
            .ok_or_else(|| format!("expected a string in double quotes, not `{s}`"))
    };
    match value.strip_prefix('[') {
        Some(rest) => {
            let inner = rest.strip_suffix(']').ok_or("the array is not closed")?;
            inner
                .split(',')
                .filter(|s| !s.trim().is_empty())
                .map(one)
                .collect()
        }
        None => one(value).map(|s| vec![s]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_validate_table_is_read_and_others_ignored() {
        let text = "# project settings\n[other]\nwarn = 3\n\n[validate]\nwarn = [\"V4T110\", # spec examples\n  \"V4T103\",\n]\nallow = \"V4T180\"\n";
        let c = parse(text).unwrap();
        assert_eq!(c.warn, ["V4T110", "V4T103"]);
        assert_eq!(c.allow, ["V4T180"]);
        assert_eq!(parse("").unwrap(), ValidateConfig::default());
    }

    #[test]
    fn malformed_settings_name_their_line() {
        assert_eq!(
            parse("[validate]\ndeny = [\"V4T110\"]\n").unwrap_err(),
            "line 2: unknown key `deny` in [validate] (known: warn, allow)"
        );
        assert_eq!(
            parse("[validate]\nwarn = [V4T110]\n").unwrap_err(),
            "line 2: expected a string in double quotes, not `V4T110`"
        );
        assert_eq!(
            parse("[validate]\nwarn = [\"V4T110\"\n").unwrap_err(),
            "line 2: the array is not closed"
        );
        assert_eq!(
            parse("[validate\n").unwrap_err(),
            "line 1: a table header ends with `]`"
        );
        assert_eq!(
            parse("warn\n").unwrap_err(),
            "line 1: expected `key = value`"
        );
    }
}
