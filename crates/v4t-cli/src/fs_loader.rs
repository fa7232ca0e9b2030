//! A [`Loader`] that reads the files beside a template from the file system.
//!
//! The library asks for files by relative path (`qualities.yaml`,
//! `lib/types.yaml`, a `type_specific_conditions` path written in the
//! template). Templates are untrusted input, so every path is confined to the
//! template's directory: absolute paths, `..` leaving the directory and
//! symlinks resolving outside it are refused. `lib/` is listed breadth-first
//! and sorted by name so results do not depend on the file system's order.

use std::collections::VecDeque;
use std::fs;
use std::path::{Component, Path, PathBuf};

use v4t::Loader;

/// Reads files relative to (and confined to) one directory.
#[derive(Debug)]
pub struct FsLoader {
    /// The directory as given (used in messages).
    dir: PathBuf,
    /// Its canonical form (used for containment checks); `None` if the
    /// directory does not exist or cannot be resolved.
    root: Option<PathBuf>,
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
        FsLoader { dir, root }
    }

    /// The loader for the template file `template` (its parent directory).
    pub fn for_template(template: &Path) -> FsLoader {
        FsLoader::new(template.parent().unwrap_or(Path::new(".")))
    }

    /// Checks `path` lexically and returns it as a relative path below the
    /// directory.
    fn confine(&self, path: &str) -> Result<PathBuf, String> {
        let escape = || {
            format!(
                "Refusing to read \"{path}\": it is outside of the template directory \"{}\"",
                self.dir.display()
            )
        };
        let mut rel = PathBuf::new();
        for component in Path::new(path).components() {
            match component {
                Component::Normal(c) => rel.push(c),
                Component::CurDir => {}
                Component::ParentDir => {
                    if !rel.pop() {
                        return Err(escape());
                    }
                }
                Component::RootDir | Component::Prefix(_) => return Err(escape()),
            }
        }
        // Also refuse Windows-style absolute paths written with `/` on Unix.
        if path.starts_with('\\') || path.get(1..2) == Some(":") {
            return Err(escape());
        }
        Ok(rel)
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
        let rel = self.confine(path)?;
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
        match fs::read(&full) {
            Ok(bytes) => String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| format!("Could not read \"{}\": not UTF-8", full.display())),
            Err(e) => Err(format!("Could not read \"{}\": {e}", full.display())),
        }
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
            let Ok(entries) = fs::read_dir(self.dir.join(&rel)) else {
                continue;
            };
            let mut entries: Vec<_> = entries
                .filter_map(|e| e.ok())
                .filter_map(|e| Some((e.file_name().into_string().ok()?, e)))
                .collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            for (name, entry) in entries {
                let child = format!("{rel}/{name}");
                let Ok(file_type) = entry.file_type() else {
                    continue;
                };
                if file_type.is_dir() {
                    queue.push_back(child);
                } else if is_yaml(&name) {
                    let full = entry.path();
                    // Symlinked directories are never followed (no loops);
                    // symlinked files only if they stay inside.
                    let ok = if file_type.is_symlink() {
                        full.is_file() && self.inside(&full)
                    } else {
                        file_type.is_file()
                    };
                    if ok {
                        files.push(child);
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
            let Ok(entries) = fs::read_dir(self.dir.join(&rel)) else {
                continue;
            };
            let mut entries: Vec<_> = entries
                .filter_map(|e| e.ok())
                .filter_map(|e| Some((e.file_name().into_string().ok()?, e)))
                .filter(|(name, _)| !name.starts_with('.'))
                .collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            for (name, entry) in entries {
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
    }
}
