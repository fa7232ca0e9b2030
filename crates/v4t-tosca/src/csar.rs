//! Cloud Service Archives (§17): the `TOSCA.meta` file and the choice of
//! the entry file. Reading the archive itself (a directory or a zip file)
//! is the caller's business; this module only sees its file list and texts.

use v4t_source::Loader;

/// The keynames of block 0 of a `TOSCA.meta` file (§17.2.1).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    /// `CSAR-Version`.
    pub csar_version: Option<String>,
    /// `Created-By`.
    pub created_by: Option<String>,
    /// `Entry-Definitions`: the entry file's path in the archive.
    pub entry_definitions: Option<String>,
    /// `Entry-Definitions` with its continuation lines joined without a
    /// space (§17.2 "collapses" the leading spaces of continuation lines:
    /// a path split over lines is read both ways).
    pub entry_definitions_joined: Option<String>,
    /// `Other-Definitions`: further files, space-separated in the meta file.
    pub other_definitions: Vec<String>,
}

/// Parses a `TOSCA.meta` file: `key: value` lines, continuation lines
/// start with a space, blocks are separated by empty lines; only block 0
/// is read.
pub fn parse_meta(text: &str) -> Result<Meta, String> {
    // (keyname, value with continuations joined by a space, joined tight)
    let mut entries: Vec<(String, String, String)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            if !entries.is_empty() {
                break; // end of block 0
            }
            continue;
        }
        if line.starts_with(' ') {
            match entries.last_mut() {
                Some((_, spaced, tight)) => {
                    spaced.push(' ');
                    spaced.push_str(line.trim());
                    tight.push_str(line.trim());
                }
                None => {
                    return Err(format!(
                        "TOSCA.meta line {}: a continuation line without a keyname",
                        n + 1
                    ))
                }
            }
            continue;
        }
        let Some((k, v)) = line.split_once(':') else {
            return Err(format!(
                "TOSCA.meta line {}: expected `<keyname>: <value>`",
                n + 1
            ));
        };
        let v = v.trim().to_string();
        entries.push((k.trim().to_string(), v.clone(), v));
    }
    let mut meta = Meta::default();
    for (k, v, tight) in entries {
        match k.as_str() {
            "CSAR-Version" => meta.csar_version = Some(v),
            "Created-By" => meta.created_by = Some(v),
            "Entry-Definitions" => {
                meta.entry_definitions = Some(v);
                meta.entry_definitions_joined = Some(tight);
            }
            "Other-Definitions" => meta.other_definitions = split_names(&v),
            _ => {}
        }
    }
    match meta.csar_version.as_deref() {
        None => return Err("TOSCA.meta: block 0 has no `CSAR-Version`".to_string()),
        Some("2.0" | "1.1" | "1.0") => {}
        Some(v) => {
            return Err(format!(
                "TOSCA.meta: unsupported CSAR-Version `{v}` (expected 2.0)"
            ))
        }
    }
    if meta.entry_definitions.as_deref().is_none_or(str::is_empty) {
        return Err("TOSCA.meta: block 0 has no `Entry-Definitions`".to_string());
    }
    Ok(meta)
}

/// `Other-Definitions`: file names separated by blanks, quoted if they
/// contain blanks.
fn split_names(v: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in v.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The entry file of a CSAR (§17.1, §17.3): `Entry-Definitions` of its
/// `TOSCA.meta` (at the root or in `TOSCA-Metadata/`), else its only YAML
/// file at the root.
pub fn entry_of(repo: &mut dyn Loader) -> Result<String, String> {
    let files = repo.files();
    let metas: Vec<&String> = files
        .iter()
        .filter(|f| *f == "TOSCA.meta" || *f == "TOSCA-Metadata/TOSCA.meta")
        .collect();
    match metas.as_slice() {
        [meta] => {
            let text = repo
                .read(meta)?
                .ok_or_else(|| format!("cannot read `{meta}`"))?;
            let m = parse_meta(&text)?;
            let entry = crate::load::normalize(m.entry_definitions.as_deref().unwrap_or_default());
            if files.contains(&entry) {
                return Ok(entry);
            }
            let joined = m
                .entry_definitions_joined
                .as_deref()
                .map(crate::load::normalize);
            match joined {
                Some(joined) if files.contains(&joined) => Ok(joined),
                _ => Err(format!(
                    "TOSCA.meta: the Entry-Definitions file `{entry}` is not in the archive"
                )),
            }
        }
        [] => {
            let roots: Vec<&String> = files
                .iter()
                .filter(|f| !f.contains('/') && (f.ends_with(".yaml") || f.ends_with(".yml")))
                .collect();
            match roots.as_slice() {
                [one] => Ok((*one).clone()),
                [] => Err("the archive has no TOSCA.meta and no YAML file at its root".to_string()),
                _ => Err(format!(
                    "the archive has no TOSCA.meta and {} YAML files at its root; without TOSCA.meta there must be exactly one",
                    roots.len()
                )),
            }
        }
        _ => Err("the archive has more than one TOSCA.meta file".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryFiles;

    #[test]
    fn meta_block_0_is_read_with_continuation_lines() {
        let m = parse_meta("CSAR-Version: 2.0\nCreated-By: me\nEntry-Definitions: a/\n b.yaml\nOther-Definitions: x.yaml \"y z.yaml\"\n\nCustom: 1\n").unwrap();
        assert_eq!(m.entry_definitions.as_deref(), Some("a/ b.yaml"));
        assert_eq!(m.entry_definitions_joined.as_deref(), Some("a/b.yaml"));
        assert_eq!(m.other_definitions, ["x.yaml", "y z.yaml"]);
        assert!(parse_meta("Created-By: me\nEntry-Definitions: a.yaml\n").is_err());
        assert!(parse_meta("CSAR-Version: 3.0\nEntry-Definitions: a.yaml\n").is_err());
    }

    #[test]
    fn the_entry_is_the_meta_entry_or_the_only_root_yaml() {
        let mut r = MemoryFiles::new()
            .with(
                "TOSCA-Metadata/TOSCA.meta",
                "CSAR-Version: 2.0\nEntry-Definitions: main.yaml\n",
            )
            .with("main.yaml", "")
            .with("other.yaml", "");
        assert_eq!(entry_of(&mut r).unwrap(), "main.yaml");
        let mut r = MemoryFiles::new()
            .with("main.yaml", "")
            .with("types/t.yaml", "");
        assert_eq!(entry_of(&mut r).unwrap(), "main.yaml");
        let mut r = MemoryFiles::new().with("a.yaml", "").with("b.yaml", "");
        assert!(entry_of(&mut r).is_err());
        // A path continued on the next line (§17.2).
        let mut r = MemoryFiles::new()
            .with(
                "TOSCA.meta",
                "CSAR-Version: 2.0\nEntry-Definitions: defs/\n  main.yaml\n",
            )
            .with("defs/main.yaml", "");
        assert_eq!(entry_of(&mut r).unwrap(), "defs/main.yaml");
    }
}
