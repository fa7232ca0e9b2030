//! A [`Loader`] that reads the files beside a template from the file system.
//!
//! The library asks for files by relative path (`qualities.yaml`,
//! `lib/types.yaml`, a `type_specific_conditions` path written in the
//! template, an import `../types/base.yaml`). A [`Boundary`] says how far
//! they may go: a CSAR directory confines every path to itself (absolute
//! paths, `..` leaving the directory and symlinks resolving outside it are
//! refused); a template file on disk follows relative paths above its
//! directory, as every TOSCA processor does, unless the user set a root
//! directory (`v4t validate --root`). Absolute paths are always refused.
//! Only regular files are read,
//! each of at most [`MAX_INPUT_BYTES`] and all together of at most
//! [`MAX_BESIDE_BYTES`]. `lib/` is listed breadth-first and sorted by name so
//! results do not depend on the file system's order; entries it skips
//! (symlinks leaving the directory, files that are not regular files) are
//! kept as [`FsLoader::warnings`] for the command to print.

use std::collections::VecDeque;
use std::fs;
use std::path::{Component, Path, PathBuf};

use v4t_source::Loader;

use crate::csar::ArchiveLoader;
use crate::dependencies::{self, Dependency};
use crate::read::{confine, read_bytes, too_large, MAX_INPUT_BYTES};

/// The most bytes read from all files beside one template together.
pub const MAX_BESIDE_BYTES: u64 = MAX_INPUT_BYTES;

/// How far the relative paths a [`FsLoader`] reads may lead.
#[derive(Debug)]
pub enum Boundary {
    /// Not out of the directory (a CSAR directory, standard input).
    Dir,
    /// Anywhere below this directory (canonical; `None` if it cannot be
    /// resolved, which refuses everything outside the loader's directory).
    Root(Option<PathBuf>, PathBuf),
    /// Anywhere a relative path leads (a template file on disk).
    Open,
}

/// Reads files relative to one directory, within a [`Boundary`].
#[derive(Debug)]
pub struct FsLoader {
    /// The directory as given (used in messages).
    dir: PathBuf,
    /// How far paths may lead.
    boundary: Boundary,
    /// Its canonical form (used for containment checks); `None` if the
    /// directory does not exist or cannot be resolved.
    root: Option<PathBuf>,
    /// The dependencies of `config.yaml` that have not been pulled: read
    /// from their source as if they were at their target.
    mounts: Vec<Mount>,
    /// Bytes read so far (bounded by [`MAX_BESIDE_BYTES`]).
    bytes_read: u64,
    /// Entries of `lib/` that were skipped, with the reason.
    pub warnings: Vec<String>,
    /// Which dependencies were read from their source (one line each).
    pub notes: Vec<String>,
}

/// A dependency read in place: the files below `target` are `source`'s.
#[derive(Debug)]
struct Mount {
    dependency: Dependency,
    /// The canonical source: files read through the mount stay inside it.
    root: PathBuf,
    /// Whether [`FsLoader::notes`] says so already (or need not: a link
    /// made by `pull --link`).
    noted: bool,
}

/// Where a path of the directory is on disk, and the folder it must stay in.
struct Located<'a> {
    path: PathBuf,
    root: Option<&'a Path>,
    mount: Option<usize>,
}

impl FsLoader {
    /// A loader for templates in `dir` (use `.` for standard input), with the
    /// dependencies of its `config.yaml` that have not been pulled read in
    /// place. An error says what is wrong with `config.yaml` or a source.
    pub fn new(dir: impl Into<PathBuf>) -> Result<FsLoader, String> {
        let mut loader = FsLoader::without_dependencies(dir);
        for dependency in dependencies::read(&loader.dir)? {
            let target = loader.dir.join(&dependency.target);
            let pulled = match fs::symlink_metadata(&target) {
                Err(_) => false,
                // `pull --link`: read through the link as from the source
                // (the link leaves the directory, but only into the source).
                Ok(m) if m.file_type().is_symlink() => {
                    let real = fs::canonicalize(&target).ok();
                    if real.is_none() || real != fs::canonicalize(&dependency.source).ok() {
                        continue;
                    }
                    true
                }
                // Pulled: the copy at the target wins.
                Ok(_) => continue,
            };
            let root = fs::canonicalize(&dependency.source).map_err(|e| {
                format!(
                    "{}: the dependency \"{}\" cannot be read from \"{}\": {e}",
                    dependency.at,
                    dependency.written,
                    dependency.source.display()
                )
            })?;
            loader.mounts.push(Mount {
                dependency,
                root,
                noted: pulled,
            });
        }
        Ok(loader)
    }

    /// A loader for `dir` that ignores its `config.yaml` (what `v4t template
    /// pull` reads from, and where dependencies make no sense).
    pub fn without_dependencies(dir: impl Into<PathBuf>) -> FsLoader {
        let dir = dir.into();
        let dir = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir
        };
        let root = fs::canonicalize(&dir).ok();
        FsLoader {
            dir,
            boundary: Boundary::Dir,
            root,
            mounts: Vec::new(),
            bytes_read: 0,
            warnings: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// The loader for the template file `template` (its parent directory),
    /// confined to that directory.
    pub fn for_template(template: &Path) -> Result<FsLoader, String> {
        FsLoader::new(template.parent().unwrap_or(Path::new(".")))
    }

    /// The loader for a TOSCA file on disk: relative paths lead where they
    /// lead (`../types/base.yaml`), or, with `root`, anywhere inside `root`.
    pub fn for_file(file: &Path, root: Option<&Path>) -> Result<FsLoader, String> {
        Ok(FsLoader::for_template(file)?.reaching_above(root))
    }

    /// This loader, letting paths lead above its directory: within `root`
    /// if given, else anywhere.
    pub fn reaching_above(mut self, root: Option<&Path>) -> FsLoader {
        self.boundary = match root {
            Some(r) => Boundary::Root(fs::canonicalize(r).ok(), r.to_path_buf()),
            None => Boundary::Open,
        };
        self
    }

    /// Where `path` (relative to the directory) is when it leads above the
    /// directory and the boundary lets it go there; `None` for a path that
    /// stays inside (or a boundary that keeps it there: `confine` refuses).
    fn above(&self, path: &str) -> Result<Option<PathBuf>, String> {
        let shown = self.dir.display().to_string();
        let (root, root_shown) = match &self.boundary {
            Boundary::Dir => return Ok(None),
            _ if confine(path, &shown).is_ok() => return Ok(None),
            Boundary::Root(root, shown) => (root.as_ref(), Some(shown)),
            Boundary::Open => (None, None),
        };
        let relative = Path::new(path);
        if relative.has_root() || path.starts_with('\\') || path.get(1..2) == Some(":") {
            return Err(format!("Refusing to read \"{path}\": an absolute path"));
        }
        let full = self.dir.join(relative);
        if let Some(root_shown) = root_shown {
            let inside = match (root, fs::canonicalize(&full)) {
                (Some(root), Ok(real)) => real.starts_with(root),
                // A file that does not exist is reported as missing.
                (Some(_), Err(_)) => fs::symlink_metadata(&full).is_err(),
                (None, _) => false,
            };
            if !inside {
                return Err(format!(
                    "\"{}\" is outside of the root directory \"{}\" (`--root`)",
                    lexical(&self.dir, path).display(),
                    root_shown.display()
                ));
            }
        }
        Ok(Some(full))
    }

    /// Whether `path` (relative to the directory) is a regular file, after
    /// following symlinks (reading it may still refuse one leading outside).
    pub fn is_file(&self, path: &str) -> bool {
        let shown = self.dir.display().to_string();
        confine(path, &shown).is_ok_and(|rel| self.locate(&rel).path.is_file())
    }

    /// Where the confined relative path `rel` is: below a dependency's
    /// source if it lies below the dependency's target, else in the
    /// directory.
    fn locate(&self, rel: &Path) -> Located<'_> {
        for (i, mount) in self.mounts.iter().enumerate() {
            if let Ok(rest) = rel.strip_prefix(&mount.dependency.target) {
                return Located {
                    path: mount.root.join(rest),
                    root: Some(&mount.root),
                    mount: Some(i),
                };
            }
        }
        Located {
            path: self.dir.join(rel),
            root: self.root.as_deref(),
            mount: None,
        }
    }

    /// Says (once per dependency) that mount `i` was read from its source.
    fn note(&mut self, i: Option<usize>) {
        let Some(mount) = i.and_then(|i| self.mounts.get_mut(i)) else {
            return;
        };
        if !mount.noted {
            mount.noted = true;
            let d = &mount.dependency;
            self.notes.push(format!(
                "\"{}\" is read from \"{}\" ({}: the dependency is not pulled)",
                self.dir.join(&d.target).display(),
                d.source.display(),
                d.at
            ));
        }
    }

    /// The entries of the directory `rel` (relative, `/`-separated; empty
    /// for the root), sorted by name: those on disk and the targets of
    /// dependencies read in place that lie directly in it.
    fn entries(&self, rel: &str) -> Vec<Entry> {
        let located = self.locate(Path::new(rel));
        let mut entries: Vec<Entry> = sorted_entries(&located.path)
            .into_iter()
            .filter_map(|(name, entry)| {
                Some(Entry {
                    file_type: entry.file_type().ok()?,
                    path: entry.path(),
                    name,
                    root: located.root.map(Path::to_path_buf),
                    mount: located.mount,
                })
            })
            .collect();
        for (i, mount) in self.mounts.iter().enumerate() {
            let target = Path::new(&mount.dependency.target);
            let (Some(parent), Some(name)) = (target.parent(), target.file_name()) else {
                continue;
            };
            let (Ok(file_type), Some(name)) = (fs::metadata(&mount.root), name.to_str()) else {
                continue;
            };
            if parent == Path::new(rel) && !entries.iter().any(|e| e.name == name) {
                entries.push(Entry {
                    name: name.to_string(),
                    path: mount.root.clone(),
                    file_type: file_type.file_type(),
                    root: Some(mount.root.clone()),
                    mount: Some(i),
                });
            }
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        entries
    }
}

/// One entry of a directory listing ([`FsLoader::entries`]).
struct Entry {
    name: String,
    /// Where it is on disk.
    path: PathBuf,
    /// Its type, symlinks not followed.
    file_type: fs::FileType,
    /// The folder it must resolve into (the directory's or a source's).
    root: Option<PathBuf>,
    /// The dependency it is read through, if any.
    mount: Option<usize>,
}

/// Whether the existing `path` resolves (through symlinks) to a place inside
/// `root`.
fn resolves_inside(root: Option<&Path>, path: &Path) -> bool {
    match (root, fs::canonicalize(path)) {
        (Some(root), Ok(real)) => real.starts_with(root),
        _ => false,
    }
}

impl FsLoader {
    /// The bytes of `path` (relative to the directory, or below a
    /// dependency's target), confined and bounded as [`Loader::read`] reads.
    pub fn read_bytes(&mut self, path: &str) -> Result<Option<Vec<u8>>, String> {
        let (located, confined) = match self.above(path)? {
            Some(path) => {
                let located = Located {
                    path,
                    root: None,
                    mount: None,
                };
                (located, false)
            }
            None => {
                let rel = confine(path, &self.dir.display().to_string())?;
                (self.locate(&rel), true)
            }
        };
        let (full, mount) = (&located.path, located.mount);
        // `symlink_metadata` so that a dangling symlink counts as existing
        // (and is then refused below rather than silently ignored).
        if fs::symlink_metadata(full).is_err() {
            return Ok(None);
        }
        if confined && !resolves_inside(located.root, full) {
            let (what, outside) = match (located.mount, located.root) {
                (Some(_), Some(root)) => ("dependency", root.display().to_string()),
                _ => ("template directory", self.dir.display().to_string()),
            };
            return Err(format!(
                "Refusing to read \"{path}\": it resolves to a place outside of the {what} \"{outside}\""
            ));
        }
        let left = MAX_BESIDE_BYTES - self.bytes_read;
        let bytes = read_bytes(full, left.min(MAX_INPUT_BYTES)).map_err(|e| {
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
        self.bytes_read += bytes.len() as u64;
        self.note(mount);
        Ok(Some(bytes))
    }
}

impl Loader for FsLoader {
    fn read(&mut self, path: &str) -> Result<Option<String>, String> {
        let Some(bytes) = self.read_bytes(path)? else {
            return Ok(None);
        };
        String::from_utf8(bytes).map(Some).map_err(|e| {
            let rel = confine(path, "").unwrap_or_default();
            format!(
                "Could not read \"{}\": {}",
                self.locate(&rel).path.display(),
                crate::read::not_utf8_message(&e)
            )
        })
    }

    fn files(&mut self) -> Vec<String> {
        self.walk()
    }

    fn bounded(&self) -> bool {
        matches!(self.boundary, Boundary::Dir)
    }

    fn lib_files(&mut self) -> Vec<String> {
        let mut files = Vec::new();
        let lib = self.locate(Path::new("lib"));
        match fs::symlink_metadata(&lib.path) {
            Ok(m) if m.is_dir() => {}
            // A symlinked `lib` is allowed if it stays inside the directory.
            Ok(m)
                if m.file_type().is_symlink()
                    && lib.path.is_dir()
                    && resolves_inside(lib.root, &lib.path) => {}
            // A dependency read in place below `lib/`.
            Err(_)
                if self
                    .mounts
                    .iter()
                    .any(|m| m.dependency.target.starts_with("lib/")) => {}
            _ => return files,
        }
        let mut queue = VecDeque::from([String::from("lib")]);
        let mut used = Vec::new();
        while let Some(rel) = queue.pop_front() {
            for entry in self.entries(&rel) {
                let child = format!("{rel}/{}", entry.name);
                let full = &entry.path;
                if entry.file_type.is_dir() {
                    queue.push_back(child);
                    continue;
                }
                if entry.file_type.is_symlink() {
                    // Symlinked directories are never followed (no loops);
                    // symlinked files only if they stay inside.
                    if fs::metadata(full).is_err() {
                        self.warnings.push(format!(
                            "Skipping \"{}\": it is a dangling symlink",
                            full.display()
                        ));
                    } else if !resolves_inside(entry.root.as_deref(), full) {
                        self.warnings.push(format!(
                            "Skipping \"{}\": it is a symlink to a place outside of the template directory \"{}\"",
                            full.display(),
                            self.dir.display()
                        ));
                    } else if is_yaml(&entry.name) && full.is_file() {
                        files.push(child);
                        used.push(entry.mount);
                    } else if full.is_dir() {
                        self.warnings.push(format!(
                            "Skipping \"{}\": symlinked directories in lib/ are not followed",
                            full.display()
                        ));
                    }
                } else if is_yaml(&entry.name) {
                    if entry.file_type.is_file() {
                        files.push(child);
                        used.push(entry.mount);
                    } else {
                        self.warnings.push(format!(
                            "Skipping \"{}\": not a regular file",
                            full.display()
                        ));
                    }
                }
            }
        }
        for mount in used {
            self.note(mount);
        }
        files
    }
}

/// At most this many files are listed by [`Loader::files`].
const MAX_LISTED: usize = 20_000;

impl FsLoader {
    /// Every regular file below the directory (relative paths, sorted;
    /// hidden entries and symlinks skipped, at most
    /// [`MAX_LISTED`] files, 16 levels deep), dependencies read in place
    /// included.
    fn walk(&self) -> Vec<String> {
        let mut files = Vec::new();
        let mut queue = VecDeque::from([String::new()]);
        while let Some(rel) = queue.pop_front() {
            for entry in self
                .entries(&rel)
                .into_iter()
                .filter(|e| !e.name.starts_with('.'))
            {
                let child = if rel.is_empty() {
                    entry.name
                } else {
                    format!("{rel}/{}", entry.name)
                };
                if entry.file_type.is_dir() {
                    if child.matches('/').count() < 16 {
                        queue.push_back(child);
                    }
                } else if entry.file_type.is_file() {
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

    fn bounded(&self) -> bool {
        match self {
            AnyLoader::Fs(l) => l.bounded(),
            AnyLoader::Archive(l) => l.bounded(),
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

    /// Which dependencies were read from their source (printed as notes).
    pub fn notes(&self) -> &[String] {
        match self {
            AnyLoader::Fs(l) => &l.notes,
            AnyLoader::Archive(_) => &[],
        }
    }
}

/// `dir` joined with the relative, `/`-separated `path`, whose leading `..`
/// remove components of `dir` where it has them (`types/../x.yaml` from
/// `a/b` is `a/b/x.yaml`, `../x.yaml` is `a/x.yaml`): how a file above the
/// directory is named in messages.
pub fn lexical(dir: &Path, path: &str) -> PathBuf {
    let mut out = dir.to_path_buf();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." if matches!(out.components().next_back(), Some(Component::Normal(_))) => {
                out.pop();
            }
            _ => out.push(seg),
        }
    }
    out
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
        let mut loader = FsLoader::new(&dir).unwrap();
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
        let mut loader = FsLoader::new(&dir).unwrap();
        assert!(loader.read("../secret.yaml").is_err());
        assert!(loader.read("sub/../../secret.yaml").is_err());
        let absolute = tmp.0.join("secret.yaml");
        assert!(loader.read(absolute.to_str().unwrap()).is_err());
        // `..` that stays inside is fine.
        assert_eq!(loader.read("a/../t.yaml"), Ok(Some("t\n".into())));
    }

    #[test]
    fn a_file_on_disk_follows_paths_above_its_directory_within_the_root() {
        let tmp = TempDir::new();
        write(&tmp.0.join("repo/svc/main.yaml"), "m\n");
        write(&tmp.0.join("repo/types/t.yaml"), "t\n");
        write(&tmp.0.join("secret.yaml"), "secret\n");
        let main = tmp.0.join("repo/svc/main.yaml");
        let mut open = FsLoader::for_file(&main, None).unwrap();
        assert!(!open.bounded());
        assert_eq!(open.read("../types/t.yaml"), Ok(Some("t\n".into())));
        assert_eq!(open.read("../../secret.yaml"), Ok(Some("secret\n".into())));
        assert!(open
            .read(tmp.0.join("secret.yaml").to_str().unwrap())
            .is_err());
        let mut rooted = FsLoader::for_file(&main, Some(&tmp.0.join("repo"))).unwrap();
        assert_eq!(rooted.read("../types/t.yaml"), Ok(Some("t\n".into())));
        let e = rooted.read("../../secret.yaml").unwrap_err();
        assert!(e.contains("outside of the root directory"), "{e}");
        assert_eq!(rooted.read("../missing.yaml"), Ok(None));
        assert!(FsLoader::new(tmp.0.join("repo")).unwrap().bounded());
    }

    #[test]
    fn paths_above_a_directory_are_named_lexically() {
        assert_eq!(
            lexical(Path::new("a/b"), "../x.yaml"),
            Path::new("a/x.yaml")
        );
        assert_eq!(
            lexical(Path::new("a"), "t/../../../x.yaml"),
            Path::new("../x.yaml")
        );
        assert_eq!(lexical(Path::new(""), "../x.yaml"), Path::new("../x.yaml"));
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
        let mut loader = FsLoader::new(&dir).unwrap();
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
        let mut loader = FsLoader::new(&dir).unwrap();
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
        assert!(FsLoader::new(tmp.0.join("nowhere"))
            .unwrap()
            .lib_files()
            .is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn lib_files_do_not_follow_symlinked_directories() {
        let tmp = TempDir::new();
        let dir = tmp.0.join("csar");
        write(&dir.join("lib/a.yaml"), "x: 1\n");
        // A loop: lib/loop -> lib.
        std::os::unix::fs::symlink(dir.join("lib"), dir.join("lib/loop")).unwrap();
        let mut loader = FsLoader::new(&dir).unwrap();
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
        let mut loader = FsLoader::new(&dir).unwrap();
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
        let mut loader = FsLoader::new(&dir).unwrap();
        loader.bytes_read = MAX_BESIDE_BYTES - 3;
        let e = loader.read("a.yaml").unwrap_err();
        assert!(e.ends_with("larger than 256 MiB together"), "{e}");
    }
}
