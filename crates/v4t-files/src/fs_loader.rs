//! A [`Loader`] that reads the files beside a template from the file system.
//!
//! The library asks for files by relative path (`qualities.yaml`,
//! `lib/types.yaml`, a `type_specific_conditions` path written in the
//! template). Templates are untrusted input, so every path is confined to the
//! template's directory: absolute paths, `..` leaving the directory and
//! symlinks resolving outside it are refused. Only regular files are read,
//! each of at most [`MAX_INPUT_BYTES`] and all together of at most
//! [`MAX_BESIDE_BYTES`]. `lib/` is listed breadth-first and sorted by name so
//! results do not depend on the file system's order; entries it skips
//! (symlinks leaving the directory, files that are not regular files) are
//! kept as [`FsLoader::warnings`] for the command to print.

use std::collections::VecDeque;
use std::fs;
use std::path::{Path, PathBuf};

use v4t_source::Loader;

use crate::csar::ArchiveLoader;
use crate::read::{confine, read_bytes, too_large, MAX_INPUT_BYTES};

/// The most bytes read from all files beside one template together.
pub const MAX_BESIDE_BYTES: u64 = MAX_INPUT_BYTES;

/// Reads files relative to (and confined to) one directory.
#[derive(Debug)]
pub struct FsLoader {
    /// The directory as given (used in messages).
    dir: PathBuf,
    /// Its canonical form (used for containment checks); `None` if the
    /// directory does not exist or cannot be resolved.
    root: Option<PathBuf>,
    /// Bytes read so far (bounded by [`MAX_BESIDE_BYTES`]).
    read_bytes: u64,
    /// Entries of `lib/` that were skipped, with the reason.
    pub warnings: Vec<String>,
}

impl FsLoader {
    /// A loader for templates in `dir` (use `.` for standard input).
    pub fn new(dir: impl Into<PathBuf>) -> FsLoader {
        let dir = dir.into();
        let dir = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir
        };
        let root = fs::canonicalize(&dir).ok();
        FsLoader {
            dir,
            root,
            read_bytes: 0,
            warnings: Vec::new(),
        }
    }

    /// The loader for the template file `template` (its parent directory).
    pub fn for_template(template: &Path) -> FsLoader {
        FsLoader::new(template.parent().unwrap_or(Path::new(".")))
    }

    /// Whether `path` (relative to the directory) is a regular file, after
    /// following symlinks (reading it may still refuse one leading outside).
    pub fn is_file(&self, path: &str) -> bool {
        let shown = self.dir.display().to_string();
        confine(path, &shown).is_ok_and(|rel| self.dir.join(rel).is_file())
    }

    /// Whether the existing `path` resolves (through symlinks) to a place
    /// inside the root.
    fn inside(&self, path: &Path) -> bool {
        match (&self.root, fs::canonicalize(path)) {
            (Some(root), Ok(real)) => real.starts_with(root),
            _ => false,
        }
    }
}

impl Loader for FsLoader {
    fn read(&mut self, path: &str) -> Result<Option<String>, String> {
        let rel = confine(path, &self.dir.display().to_string())?;
        let full = self.dir.join(&rel);
        // `symlink_metadata` so that a dangling symlink counts as existing
        // (and is then refused below rather than silently ignored).
        if fs::symlink_metadata(&full).is_err() {
            return Ok(None);
        }
        if !self.inside(&full) {
            return Err(format!(
                "Refusing to read \"{path}\": it resolves to a place outside of the template directory \"{}\"",
                self.dir.display()
            ));
        }
        let left = MAX_BESIDE_BYTES - self.read_bytes;
        let bytes = read_bytes(&full, left.min(MAX_INPUT_BYTES)).map_err(|e| {
            let e = if left < MAX_INPUT_BYTES && e == too_large(left) {
                format!(
                    "the files beside the template are larger than {} MiB together",
                    MAX_BESIDE_BYTES / (1024 * 1024)
                )
            } else {
                e
            };
            format!("Could not read \"{}\": {e}", full.display())
        })?;
        self.read_bytes += bytes.len() as u64;
        String::from_utf8(bytes).map(Some).map_err(|e| {
            format!(
                "Could not read \"{}\": {}",
                full.display(),
                crate::read::not_utf8_message(&e)
            )
        })
    }

    fn files(&mut self) -> Vec<String> {
        self.walk()
    }

    fn lib_files(&mut self) -> Vec<String> {
        let mut files = Vec::new();
        let lib = self.dir.join("lib");
        match fs::symlink_metadata(&lib) {
            Ok(m) if m.is_dir() => {}
            // A symlinked `lib` is allowed if it stays inside the directory.
            Ok(m) if m.file_type().is_symlink() && lib.is_dir() && self.inside(&lib) => {}
            _ => return files,
        }
        let mut queue = VecDeque::from([String::from("lib")]);
        while let Some(rel) = queue.pop_front() {
            for (name, entry) in sorted_entries(&self.dir.join(&rel)) {
                let child = format!("{rel}/{name}");
                let Ok(file_type) = entry.file_type() else {
                    continue;
                };
                if file_type.is_dir() {
                    queue.push_back(child);
                    continue;
                }
                let full = entry.path();
                if file_type.is_symlink() {
                    // Symlinked directories are never followed (no loops);
                    // symlinked files only if they stay inside.
                    if fs::metadata(&full).is_err() {
                        self.warnings.push(format!(
                            "Skipping \"{}\": it is a dangling symlink",
                            full.display()
                        ));
                    } else if !self.inside(&full) {
                        self.warnings.push(format!(
                            "Skipping \"{}\": it is a symlink to a place outside of the template directory \"{}\"",
                            full.display(),
                            self.dir.display()
                        ));
                    } else if is_yaml(&name) && full.is_file() {
                        files.push(child);
                    } else if full.is_dir() {
                        self.warnings.push(format!(
                            "Skipping \"{}\": symlinked directories in lib/ are not followed",
                            full.display()
                        ));
                    }
                } else if is_yaml(&name) {
                    if file_type.is_file() {
                        files.push(child);
                    } else {
                        self.warnings.push(format!(
                            "Skipping \"{}\": not a regular file",
                            full.display()
                        ));
                    }
                }
            }
        }
        files
    }
}

/// At most this many files are listed by [`Loader::files`].
const MAX_LISTED: usize = 20_000;

impl FsLoader {
    /// Every regular file below the directory (relative paths, sorted;
    /// hidden entries and symlinked directories skipped, at most
    /// [`MAX_LISTED`] files, 16 levels deep).
    fn walk(&self) -> Vec<String> {
        let mut files = Vec::new();
        let mut queue = VecDeque::from([String::new()]);
        while let Some(rel) = queue.pop_front() {
            let entries = sorted_entries(&self.dir.join(&rel));
            for (name, entry) in entries
                .into_iter()
                .filter(|(name, _)| !name.starts_with('.'))
            {
                let child = if rel.is_empty() {
                    name
                } else {
                    format!("{rel}/{name}")
                };
                let Ok(file_type) = entry.file_type() else {
                    continue;
                };
                if file_type.is_dir() {
                    if child.matches('/').count() < 16 {
                        queue.push_back(child);
                    }
                } else if file_type.is_file() {
                    files.push(child);
                    if files.len() >= MAX_LISTED {
                        files.sort();
                        return files;
                    }
                }
            }
        }
        files.sort();
        files
    }
}

/// Where the files beside the template come from.
pub enum AnyLoader {
    Fs(FsLoader),
    Archive(ArchiveLoader),
}

impl Loader for AnyLoader {
    fn read(&mut self, path: &str) -> Result<Option<String>, String> {
        match self {
            AnyLoader::Fs(l) => l.read(path),
            AnyLoader::Archive(l) => l.read(path),
        }
    }

    fn lib_files(&mut self) -> Vec<String> {
        match self {
            AnyLoader::Fs(l) => l.lib_files(),
            AnyLoader::Archive(l) => l.lib_files(),
        }
    }

    fn files(&mut self) -> Vec<String> {
        match self {
            AnyLoader::Fs(l) => l.files(),
            AnyLoader::Archive(l) => l.files(),
        }
    }
}

impl AnyLoader {
    /// Whether `path` (relative to the loader's directory) is a file.
    pub fn is_file(&self, path: &str) -> bool {
        match self {
            AnyLoader::Fs(l) => l.is_file(path),
            AnyLoader::Archive(l) => l.is_file(path),
        }
    }

    /// What the loader skipped (printed as warnings).
    pub fn warnings(&self) -> &[String] {
        match self {
            AnyLoader::Fs(l) => &l.warnings,
            AnyLoader::Archive(_) => &[],
        }
    }
}

/// The entries of `dir` with UTF-8 names, sorted by name so that listings
/// do not depend on the file system's order (none if it cannot be read).
fn sorted_entries(dir: &Path) -> Vec<(String, fs::DirEntry)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut entries: Vec<_> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| Some((e.file_name().into_string().ok()?, e)))
        .collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries
}

fn is_yaml(name: &str) -> bool {
    name.ends_with(".yaml") || name.ends_with(".yml")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A fresh, empty directory under the system temp dir, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new() -> TempDir {
            static COUNTER: AtomicUsize = AtomicUsize::new(0);
            let path = std::env::temp_dir().join(format!(
                "v4t-fs-loader-{}-{}",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::SeqCst)
            ));
            let _ = fs::remove_dir_all(&path);
            fs::create_dir_all(&path).unwrap();
            TempDir(path)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn reads_relative_files_and_reports_missing_ones() {
        let tmp = TempDir::new();
        let dir = tmp.0.join("csar");
        write(&dir.join("qualities.yaml"), "q: 1\n");
        write(&dir.join("sub/x.yaml"), "x\n");
        let mut loader = FsLoader::new(&dir);
        assert_eq!(loader.read("qualities.yaml"), Ok(Some("q: 1\n".into())));
        assert_eq!(loader.read("./sub/../sub/x.yaml"), Ok(Some("x\n".into())));
        assert_eq!(loader.read("missing.yaml"), Ok(None));
    }

    #[test]
    fn refuses_paths_escaping_the_directory() {
        let tmp = TempDir::new();
        let dir = tmp.0.join("csar");
        write(&dir.join("t.yaml"), "t\n");
        write(&tmp.0.join("secret.yaml"), "secret\n");
        let mut loader = FsLoader::new(&dir);
        assert!(loader.read("../secret.yaml").is_err());
        assert!(loader.read("sub/../../secret.yaml").is_err());
        let absolute = tmp.0.join("secret.yaml");
        assert!(loader.read(absolute.to_str().unwrap()).is_err());
        // `..` that stays inside is fine.
        assert_eq!(loader.read("a/../t.yaml"), Ok(Some("t\n".into())));
    }

    #[cfg(unix)]
    #[test]
    fn refuses_symlinks_resolving_outside() {
        let tmp = TempDir::new();
        let dir = tmp.0.join("csar");
        write(&dir.join("inside.yaml"), "in\n");
        write(&tmp.0.join("secret.yaml"), "secret\n");
        std::os::unix::fs::symlink(tmp.0.join("secret.yaml"), dir.join("link.yaml")).unwrap();
        std::os::unix::fs::symlink(dir.join("inside.yaml"), dir.join("ok.yaml")).unwrap();
        let mut loader = FsLoader::new(&dir);
        assert!(loader.read("link.yaml").is_err());
        assert_eq!(loader.read("ok.yaml"), Ok(Some("in\n".into())));
    }

    #[test]
    fn lib_files_are_breadth_first_and_sorted() {
        let tmp = TempDir::new();
        let dir = tmp.0.join("csar");
        for f in [
            "lib/z.yaml",
            "lib/b/deep/d.yaml",
            "lib/a.yml",
            "lib/b/c.yaml",
            "lib/a/x.yaml",
            "lib/readme.md",
        ] {
            write(&dir.join(f), "x: 1\n");
        }
        let mut loader = FsLoader::new(&dir);
        assert_eq!(
            loader.lib_files(),
            [
                "lib/a.yml",
                "lib/z.yaml",
                "lib/a/x.yaml",
                "lib/b/c.yaml",
                "lib/b/deep/d.yaml"
            ]
        );
        assert!(FsLoader::new(tmp.0.join("nowhere")).lib_files().is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn lib_files_do_not_follow_symlinked_directories() {
        let tmp = TempDir::new();
        let dir = tmp.0.join("csar");
        write(&dir.join("lib/a.yaml"), "x: 1\n");
        // A loop: lib/loop -> lib.
        std::os::unix::fs::symlink(dir.join("lib"), dir.join("lib/loop")).unwrap();
        let mut loader = FsLoader::new(&dir);
        assert_eq!(loader.lib_files(), ["lib/a.yaml"]);
        assert_eq!(loader.warnings.len(), 1, "{:?}", loader.warnings);
        assert!(loader.warnings[0].ends_with("symlinked directories in lib/ are not followed"));
    }

    #[cfg(unix)]
    #[test]
    fn skipped_lib_entries_are_warnings() {
        let tmp = TempDir::new();
        let dir = tmp.0.join("csar");
        write(&dir.join("lib/a.yaml"), "x: 1\n");
        write(&tmp.0.join("secret.yaml"), "secret: 1\n");
        std::os::unix::fs::symlink(tmp.0.join("secret.yaml"), dir.join("lib/b.yaml")).unwrap();
        std::os::unix::fs::symlink(tmp.0.join("nowhere"), dir.join("lib/c.yaml")).unwrap();
        let fifo = std::ffi::CString::new(dir.join("lib/d.yaml").to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let mut loader = FsLoader::new(&dir);
        assert_eq!(loader.lib_files(), ["lib/a.yaml"]);
        let w = &loader.warnings;
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(
            w[0].contains("lib/b.yaml") && w[0].contains("outside"),
            "{w:?}"
        );
        assert!(
            w[1].contains("lib/c.yaml") && w[1].contains("dangling"),
            "{w:?}"
        );
        assert!(
            w[2].contains("lib/d.yaml") && w[2].contains("not a regular file"),
            "{w:?}"
        );
        // Read directly (a `type_specific_conditions` path), the FIFO is an
        // error, not a hang.
        let e = loader.read("lib/d.yaml").unwrap_err();
        assert!(e.contains("not a regular file (a FIFO)"), "{e}");
    }

    #[test]
    fn reads_beside_the_template_are_bounded_together() {
        let tmp = TempDir::new();
        let dir = tmp.0.join("csar");
        write(&dir.join("a.yaml"), "a: 1\n");
        let mut loader = FsLoader::new(&dir);
        loader.read_bytes = MAX_BESIDE_BYTES - 3;
        let e = loader.read("a.yaml").unwrap_err();
        assert!(e.ends_with("larger than 256 MiB together"), "{e}");
    }
}
