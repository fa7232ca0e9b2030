//! A template directory's dependencies, as OpenTOSCA Vintner's projects
//! declare them in `config.yaml`:
//!
//! ```yaml
//! dependencies:
//!     - source: ../shared/lib   # relative to the directory, or absolute
//!       target: lib             # optional: the source's base name
//! ```
//!
//! Each names a file or folder kept elsewhere that belongs at `target`
//! inside the directory (typically a `lib/` shared by several templates).
//! The reference copies them into place with `template pull` before it
//! tests; v4t reads a dependency that has not been pulled from its source
//! (see [`crate::fs_loader`]) and offers `v4t template pull|unpull` for
//! whoever wants the copies.

use std::fs;
use std::path::{Component, Path, PathBuf};

use v4t_yaml::{Node, SourceId, Span, Value};

use crate::read::{read_bytes, MAX_INPUT_BYTES};

/// The name of the file that declares a directory's dependencies.
pub const CONFIG_FILE: &str = "config.yaml";

/// One entry of `dependencies`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependency {
    /// The source as written in `config.yaml` (for messages).
    pub written: String,
    /// The source: the written path joined to the directory unless absolute.
    pub source: PathBuf,
    /// Where the source belongs, relative to the directory (`/`-separated,
    /// without `.` or `..`, never the directory itself).
    pub target: String,
    /// Where `config.yaml` names it (`dir/config.yaml:3:7`), for messages.
    pub at: String,
}

/// The dependencies declared by `dir/config.yaml`; none if there is no such
/// file. An error names the file, line and column of what is wrong.
pub fn read(dir: &Path) -> Result<Vec<Dependency>, String> {
    let file = dir.join(CONFIG_FILE);
    if fs::symlink_metadata(&file).is_err() {
        return Ok(Vec::new());
    }
    let shown = file.display().to_string();
    let bytes = read_bytes(&file, MAX_INPUT_BYTES)
        .map_err(|e| format!("could not read \"{shown}\": {e}"))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "could not read \"{shown}\": {}",
            crate::read::not_utf8_message(&e)
        )
    })?;
    parse(dir, &shown, &text)
}

/// [`read`] of the text of `shown` (the config file of `dir`).
fn parse(dir: &Path, shown: &str, text: &str) -> Result<Vec<Dependency>, String> {
    let at = |span: Span| format!("{shown}:{}", span.locate(text));
    let root =
        v4t_yaml::parse(text, SourceId(0)).map_err(|e| format!("{}: {}", at(e.span), e.message))?;
    let entries = match &root.value {
        Value::Map(map) => match map.get("dependencies") {
            Some(Node {
                value: Value::Seq(entries),
                ..
            }) => entries,
            Some(other) => {
                return Err(format!(
                    "{}: \"dependencies\" must be a list of maps with \"source\" and an optional \"target\"",
                    at(other.span)
                ))
            }
            None => return Err(format!("{}: a map with a list \"dependencies\" expected", at(root.span))),
        },
        Value::Null => return Ok(Vec::new()),
        _ => return Err(format!("{}: a map with a list \"dependencies\" expected", at(root.span))),
    };
    entries
        .iter()
        .map(|entry| dependency(dir, entry, &at))
        .collect()
}

/// One entry of `dependencies`.
fn dependency(dir: &Path, entry: &Node, at: &dyn Fn(Span) -> String) -> Result<Dependency, String> {
    let Value::Map(map) = &entry.value else {
        return Err(format!(
            "{}: a dependency is a map with \"source\" and an optional \"target\"",
            at(entry.span)
        ));
    };
    let mut source = None;
    let mut target = None;
    for (key, value) in map.iter() {
        let slot = match key.name.as_ref() {
            "source" => &mut source,
            "target" => &mut target,
            other => {
                return Err(format!(
                "{}: unknown key \"{other}\" in a dependency (expected \"source\" or \"target\")",
                at(key.span)
            ))
            }
        };
        match &value.value {
            Value::String(s) if !s.is_empty() => *slot = Some((s.clone(), value.span)),
            _ => {
                return Err(format!(
                    "{}: \"{}\" must be a non-empty string",
                    at(value.span),
                    key.name
                ))
            }
        }
    }
    let Some((written, source_span)) = source else {
        return Err(format!(
            "{}: a dependency needs a \"source\"",
            at(entry.span)
        ));
    };
    let source = if Path::new(&written).is_absolute() {
        PathBuf::from(&written)
    } else {
        dir.join(&written)
    };
    let (target, target_span) = match target {
        Some((t, span)) => (t, span),
        None => (base_name(&source).ok_or_else(|| {
            format!("{}: the source \"{written}\" has no name to use as the target; add a \"target\"", at(source_span))
        })?, source_span),
    };
    let target = inside(&target).ok_or_else(|| {
        format!(
            "{}: the target \"{target}\" must be a path inside the template directory",
            at(target_span)
        )
    })?;
    Ok(Dependency {
        written,
        source,
        target,
        at: at(source_span),
    })
}

/// The base name of `path` after resolving `.` and `..` lexically (the
/// reference's `path.parse(path.resolve(source)).base`).
fn base_name(path: &Path) -> Option<String> {
    let absolute = std::path::absolute(path).ok()?;
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for component in absolute.components() {
        match component {
            Component::Normal(c) => parts.push(c),
            Component::ParentDir => {
                parts.pop();
            }
            _ => {}
        }
    }
    parts.last()?.to_str().map(str::to_string)
}

/// `target` as a normalised relative path inside the directory, if it is one
/// (not absolute, not leaving the directory, not the directory itself).
fn inside(target: &str) -> Option<String> {
    if target.starts_with('\\') || target.get(1..2) == Some(":") {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for component in Path::new(target).components() {
        match component {
            Component::Normal(c) => parts.push(c.to_str()?),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<Vec<Dependency>, String> {
        parse(Path::new("/p/t"), "/p/t/config.yaml", text)
    }

    #[test]
    fn reads_sources_and_targets() {
        let deps = parsed(
            "dependencies:\n  - source: ../shared/lib\n  - source: /abs/types\n    target: lib/types\n",
        )
        .unwrap();
        assert_eq!(deps.len(), 2);
        assert_eq!(deps[0].source, Path::new("/p/t/../shared/lib"));
        assert_eq!(deps[0].target, "lib");
        assert_eq!(deps[0].at, "/p/t/config.yaml:2:13");
        assert_eq!(deps[1].source, Path::new("/abs/types"));
        assert_eq!(deps[1].target, "lib/types");
        assert!(parsed("").unwrap().is_empty());
    }

    #[test]
    fn bad_configs_are_located_errors() {
        let cases = [
            (
                "- a\n",
                "/p/t/config.yaml:1:1: a map with a list \"dependencies\" expected",
            ),
            (
                "other: 1\n",
                "/p/t/config.yaml:1:1: a map with a list \"dependencies\" expected",
            ),
            (
                "dependencies: lib\n",
                "/p/t/config.yaml:1:15: \"dependencies\" must be a list",
            ),
            (
                "dependencies:\n  - lib\n",
                "/p/t/config.yaml:2:5: a dependency is a map",
            ),
            (
                "dependencies:\n  - target: lib\n",
                "/p/t/config.yaml:2:5: a dependency needs a \"source\"",
            ),
            (
                "dependencies:\n  - source: 3\n",
                "/p/t/config.yaml:2:13: \"source\" must be a non-empty string",
            ),
            (
                "dependencies:\n  - source: x\n    tagret: y\n",
                "/p/t/config.yaml:3:5: unknown key \"tagret\"",
            ),
            (
                "dependencies:\n  - source: x\n    target: ../elsewhere\n",
                "/p/t/config.yaml:3:13: the target \"../elsewhere\" must be a path inside",
            ),
            (
                "dependencies:\n  - source: x\n    target: .\n",
                "/p/t/config.yaml:3:13: the target \".\"",
            ),
            (
                "dependencies:\n  - source: /\n",
                "/p/t/config.yaml:2:13: the source \"/\" has no name",
            ),
            ("dependencies: [\n", "/p/t/config.yaml:"),
        ];
        for (text, expected) in cases {
            let e = parsed(text).unwrap_err();
            assert!(e.starts_with(expected), "{text:?}: {e}");
        }
    }

    #[test]
    fn targets_are_normalised_and_confined() {
        assert_eq!(inside("./lib/../lib/x"), Some("lib/x".into()));
        assert_eq!(inside("lib/"), Some("lib".into()));
        assert_eq!(inside("/lib"), None);
        assert_eq!(inside("a/../.."), None);
        assert_eq!(inside("C:/x"), None);
        assert_eq!(
            base_name(Path::new("/p/t/../shared/lib/.")),
            Some("lib".into())
        );
    }
}
