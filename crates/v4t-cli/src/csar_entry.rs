//! The choice of a CSAR's template for the commands that resolve (`v4t
//! validate` follows TOSCA §17 alone), the same for
//! a directory and a zip archive: what one user zips, another unpacks.

use crate::fs_loader::AnyLoader;

/// The reference's default template file names, in order of preference.
pub const TEMPLATE_NAMES: [&str; 4] = [
    "vst.yaml",
    "variable-service-template.yaml",
    "service-template.yaml",
    "template.yaml",
];

/// Why [`entry_template`] found no template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryError {
    /// No `TOSCA.meta`, no file of a default name, and (where it counts)
    /// not exactly one YAML file at the root.
    NotFound(String),
    /// A `TOSCA.meta` exists but names no template that is there.
    Invalid(String),
}

impl EntryError {
    /// The explanation.
    pub fn message(&self) -> &str {
        match self {
            EntryError::NotFound(m) | EntryError::Invalid(m) => m,
        }
    }
}

/// The path of the template of the CSAR whose root `root` reads: a
/// directory or a zipped archive alike, for every command.
///
/// 1. `Entry-Definitions` of `TOSCA.meta` (at the root or in
///    `TOSCA-Metadata/`), if there is one (TOSCA 1.3 §6, TOSCA 2.0 §17);
/// 2. else the first of [`TEMPLATE_NAMES`] (the reference's rule);
/// 3. else, if `single_yaml`, the only YAML file at the root (TOSCA 2.0
///    §17.1). Off for a single test directory, whose `test.yaml` or
///    `expected.yaml` could be that file.
pub fn entry_template(root: &mut AnyLoader, single_yaml: bool) -> Result<String, EntryError> {
    let has_meta = root.is_file("TOSCA.meta") || root.is_file("TOSCA-Metadata/TOSCA.meta");
    if has_meta {
        return v4t_tosca::csar::entry_of(root).map_err(EntryError::Invalid);
    }
    if let Some(name) = TEMPLATE_NAMES.iter().find(|n| root.is_file(n)) {
        return Ok(name.to_string());
    }
    if !single_yaml {
        return Err(EntryError::NotFound(format!(
            "no TOSCA.meta and none of {}",
            TEMPLATE_NAMES.join(", ")
        )));
    }
    v4t_tosca::csar::entry_of(root).map_err(EntryError::NotFound)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::csar::{zip, Archive, ArchiveLoader};
    use crate::fs_loader::FsLoader;

    /// [`entry_template`] of a zipped CSAR.
    fn entry_in_zip(bytes: &[u8], single_yaml: bool) -> Result<String, EntryError> {
        let archive = Arc::new(Archive::read(bytes).unwrap());
        let root = ArchiveLoader::for_directory(archive, "");
        entry_template(&mut AnyLoader::Archive(root), single_yaml)
    }

    /// [`entry_template`] of the same files as a directory.
    fn entry_in_directory(files: &[(&str, &str)], single_yaml: bool) -> Result<String, EntryError> {
        static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("v4t-csar-{}-{n}", std::process::id()));
        for (path, content) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content).unwrap();
        }
        let root = FsLoader::new(&dir).unwrap();
        let entry = entry_template(&mut AnyLoader::Fs(root), single_yaml);
        std::fs::remove_dir_all(dir).unwrap();
        entry
    }

    /// The template of `files`, the same as a directory and zipped.
    fn entry(files: &[(&str, &str)], single_yaml: bool) -> Result<String, EntryError> {
        let zipped = entry_in_zip(&zip(files), single_yaml);
        assert_eq!(entry_in_directory(files, single_yaml), zipped, "{files:?}");
        zipped
    }

    const META: &str =
        "TOSCA-Meta-File-Version: 1.1\nCSAR-Version: 1.1\nEntry-Definitions: main.yaml\n";

    #[test]
    fn a_directory_and_a_zip_have_the_same_template() {
        let tests = [("tests/a/test.yaml", ""), ("tests/a/expected.yaml", "")];
        // TOSCA.meta names the template, before any default name.
        let meta = [("TOSCA-Metadata/TOSCA.meta", META), ("main.yaml", "")];
        assert_eq!(
            entry(&[&meta[..], &tests].concat(), true),
            Ok("main.yaml".into())
        );
        let both = [&meta[..], &[("template.yaml", "")], &tests].concat();
        assert_eq!(entry(&both, false), Ok("main.yaml".into()));
        assert_eq!(
            entry(&[("TOSCA.meta", META), ("main.yaml", "")], false),
            Ok("main.yaml".into())
        );
        // Without it, the first default name, even beside other YAML files.
        let named = [("template.yaml", ""), ("vst.yaml", ""), ("types.yaml", "")];
        assert_eq!(entry(&named, true), Ok("vst.yaml".into()));
        // Else the single root YAML file, where that rule applies.
        assert_eq!(
            entry(&[("t.yaml", ""), ("tests/a/test.yaml", "")], true),
            Ok("t.yaml".into())
        );
        assert!(matches!(
            entry(&[("test.yaml", "")], false),
            Err(EntryError::NotFound(_))
        ));
        assert!(matches!(
            entry(&[("t.yaml", ""), ("u.yml", "")], true),
            Err(EntryError::NotFound(_))
        ));
        // A TOSCA.meta naming a missing file is an error, not a fallback.
        let missing = [("TOSCA-Metadata/TOSCA.meta", META), ("template.yaml", "")];
        let e = entry(&missing, true).unwrap_err();
        assert!(matches!(e, EntryError::Invalid(_)), "{e:?}");
        assert!(e.message().contains("main.yaml"), "{e:?}");
    }
}
