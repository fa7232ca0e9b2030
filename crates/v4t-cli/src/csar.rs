//! Zipped CSARs (Cloud Service ARchives): reading one into memory, reading
//! the files beside the template from it, and writing one back (its
//! template is chosen by [`crate::csar_entry`], as for a directory).
//!
//! Archives are untrusted input. An archive is read whole into memory,
//! never extracted: nothing is written to the file system. Entry names must
//! be plain relative paths (no `/` at the start, no `\`, no drive letter, no
//! `.` or `..` component, UTF-8) and unique; symlinks, encrypted entries and
//! compression methods other than stored and deflate are refused. The
//! number of entries and the inflated size of every entry and of all
//! together are bounded, and every entry's size and CRC are checked, which
//! defuses zip bombs. Inside the archive the files beside the template are
//! confined to the template's directory, as on disk
//! ([`crate::files::confine`]).
//!

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use rawzip::{CompressionMethod, DataDescriptorOutput, ZipArchive, ZipArchiveWriter};
use v4t::Loader;

use crate::files::confine;

/// The most entries an archive may have.
pub const MAX_ENTRIES: usize = 65_536;
/// The most bytes all entries may inflate to together.
pub const MAX_INFLATED_BYTES: u64 = crate::files::MAX_INPUT_BYTES;

/// Whether `path` names a zipped CSAR by its extension.
pub fn has_archive_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("csar") || e.eq_ignore_ascii_case("zip"))
}

/// Whether a file is an archive by its name or its first bytes (at least
/// [`crate::tarball::SNIFF_BYTES`] of them where it has that many): a zip
/// archive or a tarball.
pub fn is_archive(path: &Path, start: &[u8]) -> bool {
    has_archive_extension(path)
        || crate::tarball::has_tarball_extension(&path.to_string_lossy())
        || looks_like_archive(start)
}

/// Whether `bytes` start like a zip archive or a tarball.
pub fn looks_like_archive(bytes: &[u8]) -> bool {
    looks_like_zip(bytes) || crate::tarball::looks_like_tarball(bytes)
}

/// Whether `bytes` start like a zip archive (a local file header, or the
/// end record of an empty archive).
pub fn looks_like_zip(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06")
}

/// The files of an archive, by normalised path, in archive order.
#[derive(Debug, Clone, Default)]
pub struct Archive {
    files: BTreeMap<String, Vec<u8>>,
    /// Paths in the order of the archive (kept when writing it back).
    order: Vec<String>,
}

impl Archive {
    /// Reads an archive from `bytes`: a tarball (§17.1.1.1, see
    /// [`crate::tarball`]) or else a zip archive.
    pub fn read(bytes: &[u8]) -> Result<Archive, String> {
        if crate::tarball::looks_like_tarball(bytes) {
            return Self::read_tar(bytes);
        }
        Self::read_zip(bytes)
    }

    /// Reads a tarball from `bytes`, its entry names checked as a zip
    /// archive's.
    fn read_tar(bytes: &[u8]) -> Result<Archive, String> {
        let limits = crate::tarball::Limits {
            entries: MAX_ENTRIES,
            bytes: MAX_INFLATED_BYTES,
        };
        let mut archive = Archive::default();
        for (name, content) in crate::tarball::read(bytes, limits)? {
            archive.insert(&name, content)?;
        }
        Ok(archive)
    }

    /// Reads a zip archive from `bytes`.
    fn read_zip(bytes: &[u8]) -> Result<Archive, String> {
        let zip = ZipArchive::from_slice(bytes).map_err(|e| format!("not a zip archive: {e}"))?;
        let mut archive = Archive::default();
        let mut entries = zip.entries();
        let mut inflated_total: u64 = 0;
        let mut count = 0usize;
        while let Some(entry) = entries
            .next_entry()
            .map_err(|e| format!("damaged zip archive: {e}"))?
        {
            count += 1;
            if count > MAX_ENTRIES {
                return Err(format!("the archive has more than {MAX_ENTRIES} entries"));
            }
            let raw = entry.file_path();
            let name = std::str::from_utf8(raw.as_bytes())
                .map_err(|_| "an entry name is not UTF-8".to_string())?;
            let path = entry_path(name)?;
            if entry.is_dir() {
                continue;
            }
            if entry.mode().is_symlink() {
                return Err(format!("entry \"{path}\" is a symbolic link"));
            }
            if entry.flags().is_encrypted() {
                return Err(format!("entry \"{path}\" is encrypted"));
            }
            let declared = entry.uncompressed_size_hint();
            if declared > MAX_INFLATED_BYTES - inflated_total {
                return Err(format!(
                    "the archive inflates to more than {} MiB",
                    MAX_INFLATED_BYTES / (1024 * 1024)
                ));
            }
            let method = entry.compression_method();
            let local = zip
                .get_entry(entry.wayfinder())
                .map_err(|e| format!("damaged entry \"{path}\": {e}"))?;
            let data = local.data();
            let content = if method == CompressionMethod::STORE {
                data.to_vec()
            } else if method == CompressionMethod::DEFLATE {
                // Never inflates beyond the declared size (a zip bomb lies
                // about it; the size check below then fails).
                miniz_oxide::inflate::decompress_to_vec_with_limit(data, declared as usize)
                    .map_err(|_| format!("entry \"{path}\" is damaged or larger than declared"))?
            } else {
                return Err(format!(
                    "entry \"{path}\" uses an unsupported compression method (only stored and deflate are supported)"
                ));
            };
            let claim = local.claim_verifier();
            let actual = rawzip::ZipVerification {
                crc: rawzip::crc32(&content),
                uncompressed_size: content.len() as u64,
            };
            claim
                .valid(actual)
                .map_err(|e| format!("entry \"{path}\" is damaged: {e}"))?;
            inflated_total += content.len() as u64;
            archive.insert(&path, content)?;
        }
        Ok(archive)
    }

    /// Adds the file `name` (checked as an entry name) read from an
    /// archive; a name that appears twice is an error.
    pub(crate) fn insert(&mut self, name: &str, content: Vec<u8>) -> Result<(), String> {
        let path = entry_path(name)?;
        if self.files.insert(path.clone(), content).is_some() {
            return Err(format!("entry \"{path}\" appears twice"));
        }
        self.order.push(path);
        Ok(())
    }

    /// The content of file `path`.
    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.files.get(path).map(Vec::as_slice)
    }

    /// Every file with its content, in archive order.
    pub fn files(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.order
            .iter()
            .filter_map(|p| Some((p.as_str(), self.files.get(p)?.as_slice())))
    }

    /// Whether `path` is a file of the archive.
    pub fn is_file(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    /// Whether `dir` is a directory of the archive (some file is below it);
    /// the empty path is the root.
    pub fn is_dir(&self, dir: &str) -> bool {
        if dir.is_empty() {
            return true;
        }
        let prefix = format!("{dir}/");
        self.files
            .range(prefix.clone()..)
            .next()
            .is_some_and(|(p, _)| p.starts_with(&prefix))
    }

    /// The names of the sub-directories of `dir` (sorted, unique).
    pub fn sub_directories(&self, dir: &str) -> Vec<String> {
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        let mut names: Vec<String> = self
            .files
            .range(prefix.clone()..)
            .take_while(|(p, _)| p.starts_with(&prefix))
            .filter_map(|(p, _)| {
                p[prefix.len()..]
                    .split_once('/')
                    .map(|(d, _)| d.to_string())
            })
            .collect();
        names.dedup();
        names
    }

    /// Sets the content of file `path` (added at the end if new).
    pub fn set(&mut self, path: &str, content: Vec<u8>) {
        if self.files.insert(path.to_string(), content).is_none() {
            self.order.push(path.to_string());
        }
    }

    /// The archive as zip bytes: deflated entries in archive order, all
    /// dated 1980-01-01 (the earliest date zip can store), so the same
    /// archive gives the same bytes.
    pub fn to_zip(&self) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        let mut writer = ZipArchiveWriter::new(&mut out);
        let error = |e: rawzip::Error| format!("could not write the archive: {e}");
        for path in &self.order {
            let Some(content) = self.files.get(path) else {
                continue;
            };
            let (mut entry, _config) = writer
                .new_file(path.as_str())
                .compression_method(CompressionMethod::DEFLATE)
                .unix_permissions(0o644)
                .last_modified(rawzip::time::UtcDateTime::from_unix(315_532_800))
                .start()
                .map_err(error)?;
            let compressed = miniz_oxide::deflate::compress_to_vec(content, 6);
            entry
                .write_all(&compressed)
                .map_err(|e| format!("could not write the archive: {e}"))?;
            entry
                .finish(DataDescriptorOutput::new(
                    rawzip::crc32(content),
                    content.len() as u64,
                ))
                .map_err(error)?;
        }
        writer.finish().map_err(error)?;
        Ok(out)
    }
}

/// Checks an entry name and returns it without a trailing `/`.
fn entry_path(name: &str) -> Result<String, String> {
    let refuse = |why: &str| Err(format!("entry \"{name}\" {why}"));
    let trimmed = name.strip_suffix('/').unwrap_or(name);
    if trimmed.is_empty() {
        return refuse("has an empty name");
    }
    if trimmed.starts_with('/') || trimmed.as_bytes().get(1) == Some(&b':') {
        return refuse("is an absolute path");
    }
    if trimmed.contains('\\') {
        return refuse("contains a backslash");
    }
    if trimmed.contains('\0') {
        return refuse("contains a NUL character");
    }
    for component in trimmed.split('/') {
        match component {
            "" => return refuse("has an empty path component"),
            "." | ".." => return refuse("leaves the archive's root or is not normalised"),
            _ => {}
        }
    }
    Ok(trimmed.to_string())
}

/// Reads the files beside a template from an archive, confined to the
/// template's directory.
#[derive(Debug)]
pub struct ArchiveLoader {
    archive: Arc<Archive>,
    /// The template's directory inside the archive (`""` is the root).
    dir: String,
}

impl ArchiveLoader {
    /// The loader for the template at `template` inside `archive`.
    pub fn for_template(archive: Arc<Archive>, template: &str) -> ArchiveLoader {
        let dir = template
            .rsplit_once('/')
            .map(|(d, _)| d.to_string())
            .unwrap_or_default();
        ArchiveLoader::for_directory(archive, &dir)
    }

    /// The loader for the files below `dir` inside `archive` (`""` is the
    /// root).
    pub fn for_directory(archive: Arc<Archive>, dir: &str) -> ArchiveLoader {
        ArchiveLoader {
            archive,
            dir: dir.to_string(),
        }
    }

    /// Whether `path` (relative to the directory) is a file of the archive.
    pub fn is_file(&self, path: &str) -> bool {
        let shown = if self.dir.is_empty() { "." } else { &self.dir };
        confine(path, shown).is_ok_and(|rel| self.archive.is_file(&self.full(&rel)))
    }

    fn full(&self, rel: &Path) -> String {
        let rel: Vec<_> = rel.iter().filter_map(|c| c.to_str()).collect();
        let rel = rel.join("/");
        if self.dir.is_empty() {
            rel
        } else {
            format!("{}/{rel}", self.dir)
        }
    }
}

impl Loader for ArchiveLoader {
    fn read(&mut self, path: &str) -> Result<Option<String>, String> {
        let shown = if self.dir.is_empty() { "." } else { &self.dir };
        let rel = confine(path, shown)?;
        let full = self.full(&rel);
        match self.archive.get(&full) {
            None => Ok(None),
            Some(bytes) => String::from_utf8(bytes.to_vec()).map(Some).map_err(|e| {
                format!(
                    "Could not read \"{full}\": {}",
                    crate::files::not_utf8_message(&e)
                )
            }),
        }
    }

    fn files(&mut self) -> Vec<String> {
        let prefix = if self.dir.is_empty() {
            String::new()
        } else {
            format!("{}/", self.dir)
        };
        self.archive
            .files
            .keys()
            .filter_map(|p| p.strip_prefix(&prefix).map(str::to_string))
            .collect()
    }

    fn lib_files(&mut self) -> Vec<String> {
        let lib = self.full(Path::new("lib"));
        let mut files: Vec<(usize, String)> = self
            .archive
            .files
            .keys()
            .filter_map(|p| p.strip_prefix(&format!("{lib}/")).map(|rest| (p, rest)))
            .filter(|(_, rest)| rest.ends_with(".yaml") || rest.ends_with(".yml"))
            .map(|(_, rest)| (rest.matches('/').count(), format!("lib/{rest}")))
            .collect();
        // Breadth-first, sorted by path within a depth: as on disk.
        files.sort();
        files.into_iter().map(|(_, p)| p).collect()
    }
}

/// A zipped CSAR holding `files` (path, text): the archives of the tests.
#[cfg(test)]
pub(crate) fn zip(files: &[(&str, &str)]) -> Vec<u8> {
    let mut archive = Archive::default();
    for (path, content) in files {
        archive.set(path, content.as_bytes().to_vec());
    }
    archive.to_zip().unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tarballs_are_read_with_the_entry_checks_of_zip_archives() {
        let tar = crate::tarball::tests::tar;
        let archive = Archive::read(&tar(&[("./defs/t.yaml", "a: 1\n")])).unwrap();
        assert_eq!(archive.get("defs/t.yaml"), Some(&b"a: 1\n"[..]));
        assert!(Archive::read(&tar(&[("../t.yaml", "a: 1\n")])).is_err());
        let twice = tar(&[("t.yaml", "a: 1\n"), ("./t.yaml", "a: 2\n")]);
        assert!(Archive::read(&twice).unwrap_err().contains("appears twice"));
    }

    #[test]
    fn round_trip_and_entry_definitions() {
        let bytes = zip(&[
            (
                "TOSCA-Metadata/TOSCA.meta",
                "TOSCA-Meta-File-Version: 1.1\nCSAR-Version: 1.1\nEntry-Definitions: defs/t.yaml\n",
            ),
            ("defs/t.yaml", "a: 1\n"),
            ("defs/lib/b.yaml", "b: 1\n"),
            ("defs/lib/a.yaml", "a: 1\n"),
            ("defs/lib/x/c.yaml", "c: 1\n"),
        ]);
        assert!(looks_like_zip(&bytes));
        let archive = Arc::new(Archive::read(&bytes).unwrap());
        assert_eq!(archive.get("defs/t.yaml"), Some(&b"a: 1\n"[..]));
        assert!(archive.is_dir("defs/lib") && !archive.is_dir("defs/li"));
        assert_eq!(archive.sub_directories("defs"), ["lib"]);
        assert_eq!(archive.to_zip().unwrap(), bytes, "deterministic");
        let mut loader = ArchiveLoader::for_template(archive, "defs/t.yaml");
        assert_eq!(
            loader.lib_files(),
            ["lib/a.yaml", "lib/b.yaml", "lib/x/c.yaml"]
        );
        assert_eq!(loader.read("lib/a.yaml"), Ok(Some("a: 1\n".into())));
        assert_eq!(loader.read("nothing.yaml"), Ok(None));
        assert!(loader.read("../TOSCA-Metadata/TOSCA.meta").is_err());
    }

    /// An archive with one stored entry named exactly `name`.
    fn raw_zip(name: &str) -> Vec<u8> {
        let mut out = Vec::new();
        let mut writer = ZipArchiveWriter::new(&mut out);
        let (mut entry, _) = writer
            .new_file(rawzip::path::EntryPath::verbatim(name.as_bytes()))
            .start()
            .unwrap();
        entry.write_all(b"x").unwrap();
        entry
            .finish(DataDescriptorOutput::new(rawzip::crc32(b"x"), 1))
            .unwrap();
        writer.finish().unwrap();
        out
    }

    #[test]
    fn escaping_and_odd_entry_names_are_refused() {
        for name in [
            "../x.yaml",
            "/etc/passwd",
            "a/../../x",
            "C:/x",
            "a\\b",
            "a//b",
            "./a",
        ] {
            let bytes = raw_zip(name);
            let e = Archive::read(&bytes).unwrap_err();
            assert!(e.starts_with(&format!("entry \"{name}\"")), "{name}: {e}");
        }
    }

    #[test]
    fn duplicates_and_lying_sizes_are_refused() {
        let mut archive = Archive::default();
        archive.set("a", b"x".to_vec());
        archive.order.push("a".into());
        assert_eq!(
            Archive::read(&archive.to_zip().unwrap()).unwrap_err(),
            "entry \"a\" appears twice"
        );
        // A deflated entry claiming 10 bytes that inflates to 100 KB.
        let big = vec![b'a'; 100_000];
        let mut out = Vec::new();
        let mut writer = ZipArchiveWriter::new(&mut out);
        let (mut entry, _) = writer
            .new_file("bomb")
            .compression_method(CompressionMethod::DEFLATE)
            .start()
            .unwrap();
        entry
            .write_all(&miniz_oxide::deflate::compress_to_vec(&big, 6))
            .unwrap();
        entry
            .finish(DataDescriptorOutput::new(rawzip::crc32(&big[..10]), 10))
            .unwrap();
        writer.finish().unwrap();
        let e = Archive::read(&out).unwrap_err();
        assert!(e.contains("larger than declared"), "{e}");
    }

    #[test]
    fn not_an_archive() {
        assert!(Archive::read(b"tosca_definitions_version: x\n").is_err());
        assert!(!looks_like_zip(b"tosca"));
    }
}
