//! Source texts and the files a template pulls in.
//!
//! The library does no I/O: the caller hands over the template text and a
//! [`Loader`] that reads the files next to it (`lib/` types, qualities,
//! type-specific conditions, TOSCA imports). Every text gets a [`SourceId`]
//! so that spans can be rendered as `file:line:column` by the caller.

use std::sync::{Arc, OnceLock};

use v4t_yaml::{LineIndex, Location, SourceId, Span};

/// One loaded text.
pub struct SourceFile {
    /// The name shown in diagnostics (normally the path as the user gave it).
    pub name: String,
    /// The path the [`Loader`] read it from (relative to the template's
    /// directory, `/`-separated), or `None` for texts the caller added
    /// itself (the template, an inputs file). Imports in this file are
    /// relative to its directory ([`join_import`]).
    pub path: Option<String>,
    /// The text ([`SourceFile::text`]), empty once released.
    text: String,
    /// Where its lines start, built on first use ([`SourceFile::locate`]).
    lines: OnceLock<LineIndex>,
    /// How to read the text again ([`Sources::set_reread`]).
    reread: Option<Reread>,
    /// Set by [`Sources::release`].
    released: Option<Box<Released>>,
}

/// Reads a text again after [`Sources::release`] dropped it (a file on
/// disk); `None` if it cannot.
pub type Reread = Arc<dyn Fn() -> Option<String> + Send + Sync>;

/// A released text: its length and hash, to tell that a text read again is
/// the same, and that text once read.
struct Released {
    len: usize,
    hash: u64,
    text: OnceLock<String>,
}

impl std::fmt::Debug for SourceFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SourceFile")
            .field("name", &self.name)
            .field("path", &self.path)
            .field(
                "len",
                &self.released.as_ref().map_or(self.text.len(), |r| r.len),
            )
            .field("released", &self.released.is_some())
            .finish()
    }
}

impl Clone for SourceFile {
    fn clone(&self) -> SourceFile {
        SourceFile {
            name: self.name.clone(),
            path: self.path.clone(),
            text: self.text().to_string(),
            lines: OnceLock::new(),
            reread: self.reread.clone(),
            released: None,
        }
    }
}

impl SourceFile {
    fn new(name: String, path: Option<String>, text: String) -> SourceFile {
        SourceFile {
            name,
            path,
            text,
            lines: OnceLock::new(),
            reread: None,
            released: None,
        }
    }

    /// The text. A released one is read again on first use (diagnostics
    /// quote it); if that fails or gives another text, it is empty.
    pub fn text(&self) -> &str {
        let Some(released) = &self.released else {
            return &self.text;
        };
        released.text.get_or_init(|| {
            self.reread
                .as_ref()
                .and_then(|reread| reread())
                .filter(|t| t.len() == released.len && v4t_yaml::hash::hash_str(t) == released.hash)
                .unwrap_or_default()
        })
    }

    /// The index of the text's lines, built on first use.
    fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(self.text()))
    }

    /// The byte offset of 1-based `line` and `col` (in characters); the end
    /// of the line if the column is past it.
    pub fn offset(&self, line: u32, col: u32) -> Option<usize> {
        let offset = self.lines().offset(self.text(), line, col)?;
        Some(offset as usize)
    }

    /// The lines and columns of `span`, a span of this text.
    pub fn locate(&self, span: Span) -> Location {
        self.lines().locate(self.text(), span)
    }
}

/// All texts of one run, indexed by [`SourceId`].
#[derive(Clone, Debug, Default)]
pub struct Sources {
    files: Vec<SourceFile>,
}

impl Sources {
    /// No texts yet.
    pub fn new() -> Sources {
        Sources::default()
    }

    /// Adds a text the caller read itself (the template, an inputs file).
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> SourceId {
        self.push(SourceFile::new(name.into(), None, text.into()))
    }

    /// Adds a text the caller made that stands at `path` of the
    /// repository a [`Loader`] reads (imports in it are relative to
    /// `path`), shown as `name`.
    pub fn add_at(
        &mut self,
        name: impl Into<String>,
        path: impl Into<String>,
        text: impl Into<String>,
    ) -> SourceId {
        self.push(SourceFile::new(name.into(), Some(path.into()), text.into()))
    }

    /// Adds a text a [`Loader`] read from `path` (also its name).
    pub fn add_loaded(&mut self, path: impl Into<String>, text: impl Into<String>) -> SourceId {
        let path = path.into();
        self.push(SourceFile::new(path.clone(), Some(path), text.into()))
    }

    fn push(&mut self, file: SourceFile) -> SourceId {
        self.files.push(file);
        // More than 4 billion texts cannot be held in memory anyway.
        SourceId(u32::try_from(self.files.len() - 1).unwrap_or(u32::MAX - 1))
    }

    /// Shows text `id` as `name` in diagnostics from now on.
    pub fn rename(&mut self, id: SourceId, name: impl Into<String>) {
        if let Some(file) = self.files.get_mut(id.0 as usize) {
            file.name = name.into();
        }
    }

    /// Tells how to read text `id` again, so that [`Sources::release`] may
    /// drop it (the command line does for a template file on disk).
    pub fn set_reread(&mut self, id: SourceId, reread: Reread) {
        if let Some(file) = self.files.get_mut(id.0 as usize) {
            file.reread = Some(reread);
        }
    }

    /// Drops text `id` if it can be read again ([`Sources::set_reread`]):
    /// a processor that has parsed a large template needs its text only to
    /// quote it in a diagnostic. [`SourceFile::text`] reads it again then.
    pub fn release(&mut self, id: SourceId) {
        let Some(file) = self.files.get_mut(id.0 as usize) else {
            return;
        };
        if file.reread.is_none() || file.released.is_some() {
            return;
        }
        let text = std::mem::take(&mut file.text);
        file.released = Some(Box::new(Released {
            len: text.len(),
            hash: v4t_yaml::hash::hash_str(&text),
            text: OnceLock::new(),
        }));
        file.lines = OnceLock::new();
    }

    /// The text with id `id`.
    pub fn get(&self, id: SourceId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    /// The text a span covers, exactly as written (`None` for unknown spans).
    pub fn text_of(&self, span: Span) -> Option<&str> {
        if !span.is_known() {
            return None;
        }
        self.get(span.source)?.text().get(span.range())
    }

    /// The span of text `id` from `start` to `end`, each a 1-based
    /// `(line, column)` with columns in characters ([`Span::NONE`] for a
    /// position the text does not have).
    pub fn span(&self, id: SourceId, start: (u32, u32), end: (u32, u32)) -> Span {
        let Some(file) = self.get(id) else {
            return Span::NONE;
        };
        let offset =
            |(line, col): (u32, u32)| file.offset(line, col).and_then(|o| u32::try_from(o).ok());
        match (offset(start), offset(end)) {
            (Some(start), Some(end)) => Span::bytes(id, start, end),
            _ => Span::NONE,
        }
    }

    /// The lines and columns of a span (`None` for unknown spans and
    /// sources).
    pub fn locate(&self, span: Span) -> Option<Location> {
        if !span.is_known() {
            return None;
        }
        Some(self.get(span.source)?.locate(span))
    }
}

/// Reads the files a template refers to, relative to the template's directory.
///
/// Paths are `/`-separated and relative to the directory of the template;
/// an implementation decides what it allows (the command line refuses paths
/// that leave that directory). To follow an import written in a file that
/// was itself loaded, resolve it with [`join_import`] first.
pub trait Loader {
    /// Reads `path` (relative to the template directory, `/`-separated).
    /// `Ok(None)` if it does not exist; `Err` with a message if it cannot be read.
    fn read(&mut self, path: &str) -> Result<Option<String>, String>;

    /// Every `.yaml`/`.yml` file below `lib/`, breadth-first, as relative paths
    /// (`lib/a.yaml`, `lib/sub/b.yaml`); empty if there is no `lib/`.
    fn lib_files(&mut self) -> Vec<String>;

    /// Every file the loader can read, as relative paths, sorted: for
    /// processors that find files by their content (TOSCA profiles shipped
    /// in a CSAR, imported by profile name). Empty unless implemented;
    /// implementations may stop after a bound.
    fn files(&mut self) -> Vec<String> {
        Vec::new()
    }

    /// Whether the files form one closed repository (a CSAR, files in
    /// memory) whose root relative imports cannot leave: `..` above the
    /// root stays at the root, as RFC 3986 resolves URLs. `false` for a
    /// directory on disk, where `../types/base.yaml` means the file above
    /// it ([`join_import`] keeps the leading `..`; the loader may refuse
    /// it, for example outside a boundary the user set).
    fn bounded(&self) -> bool {
        true
    }
}

/// A loader for templates that have no files beside them.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoFiles;

impl Loader for NoFiles {
    fn read(&mut self, _path: &str) -> Result<Option<String>, String> {
        Ok(None)
    }

    fn lib_files(&mut self) -> Vec<String> {
        Vec::new()
    }
}

/// A loader over files held in memory, by path relative to the template's
/// directory (`/`-separated): for hosts without a file system (the browser
/// playground, editors with unsaved buffers) and for tests.
///
/// Paths are taken as given, without `./` or `..` resolution; a path that
/// leaves the template directory (`../x`) or is absolute is simply absent.
///
/// ```
/// use v4t_source::{Loader, MemoryFiles};
/// let mut files = MemoryFiles::new();
/// files.insert("lib/b/t.yaml", "b");
/// files.insert("lib/a.yml", "a");
/// files.insert("types.yaml", "t");
/// assert_eq!(files.read("types.yaml"), Ok(Some("t".to_string())));
/// assert_eq!(files.read("../types.yaml"), Ok(None));
/// assert_eq!(files.lib_files(), ["lib/a.yml", "lib/b/t.yaml"]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct MemoryFiles {
    files: std::collections::BTreeMap<String, String>,
}

impl MemoryFiles {
    /// No files.
    pub fn new() -> MemoryFiles {
        MemoryFiles::default()
    }

    /// Adds (or replaces) the file `path` with `text`.
    pub fn insert(&mut self, path: impl Into<String>, text: impl Into<String>) {
        self.files.insert(path.into(), text.into());
    }

    /// The files with `path` added (or replaced) with `text`.
    pub fn with(mut self, path: &str, text: &str) -> MemoryFiles {
        self.insert(path, text);
        self
    }

    /// How many files there are.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether there are no files.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

impl Loader for MemoryFiles {
    fn read(&mut self, path: &str) -> Result<Option<String>, String> {
        Ok(self.files.get(path).cloned())
    }

    /// Breadth-first like a directory walk: shallower files first, then by
    /// path.
    fn lib_files(&mut self) -> Vec<String> {
        let mut lib: Vec<&String> = self
            .files
            .keys()
            .filter(|p| p.starts_with("lib/") && (p.ends_with(".yaml") || p.ends_with(".yml")))
            .collect();
        lib.sort_by_key(|p| (p.matches('/').count(), p.as_str()));
        lib.into_iter().cloned().collect()
    }

    fn files(&mut self) -> Vec<String> {
        self.files.keys().cloned().collect()
    }
}

/// The path (relative to the template directory) of `import`, written in a
/// file read from `importer` ([`SourceFile::path`]; `None` for the template
/// itself): `import` joined to the importer's directory, with `.` and `..`
/// resolved lexically. Leading `..` that leave the template directory are
/// kept, for the [`Loader`] to refuse or allow. Absolute paths and URLs
/// (`/x`, `C:/x`, `https://...`, `file:...`) are returned unchanged.
///
/// ```
/// use v4t_source::join_import;
/// assert_eq!(join_import(Some("lib/net/a.yaml"), "../b.yaml"), "lib/b.yaml");
/// assert_eq!(join_import(None, "./types/c.yaml"), "types/c.yaml");
/// assert_eq!(join_import(Some("a.yaml"), "../up.yaml"), "../up.yaml");
/// assert_eq!(join_import(Some("lib/a.yaml"), "https://x.org/t.yaml"), "https://x.org/t.yaml");
/// ```
pub fn join_import(importer: Option<&str>, import: &str) -> String {
    if import.starts_with(['/', '\\']) || has_scheme(import) {
        return import.to_string();
    }
    let mut parts: Vec<&str> = Vec::new();
    if let Some(importer) = importer {
        parts.extend(importer.split('/'));
        parts.pop(); // the importing file's own name
    }
    for part in import.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    parts.retain(|p| !p.is_empty() && *p != ".");
    parts.join("/")
}

/// `path` as [`join_import`] gives it, with the leading `..` that leave the
/// root dropped: a path inside a closed repository ([`Loader::bounded`]),
/// where `..` at the root stays at the root (RFC 3986 §5.2.4).
///
/// ```
/// use v4t_source::{join_import, within_root};
/// assert_eq!(within_root(&join_import(Some("a.yaml"), "../t/b.yaml")), "t/b.yaml");
/// ```
pub fn within_root(path: &str) -> &str {
    let mut rest = path;
    while let Some(r) = rest.strip_prefix("../") {
        rest = r;
    }
    if rest == ".." {
        ""
    } else {
        rest
    }
}

/// Whether `path` starts with a URL scheme or a drive letter (`scheme:`).
fn has_scheme(path: &str) -> bool {
    match path.split_once(':') {
        Some((scheme, _)) => {
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_renamed_text_keeps_its_text_and_path() {
        let mut sources = Sources::new();
        let id = sources.add_loaded("types/a.yaml", "a: 1\n");
        sources.rename(id, "csar/types/a.yaml");
        sources.rename(SourceId(7), "nothing");
        let file = sources.get(id).unwrap();
        assert_eq!(file.name, "csar/types/a.yaml");
        assert_eq!(file.path.as_deref(), Some("types/a.yaml"));
        assert_eq!(file.text(), "a: 1\n");
    }

    #[test]
    fn text_of_returns_what_a_span_covers() {
        let mut sources = Sources::new();
        let id = sources.add("t.yaml", "a: 1.0\nbé: [x, 'y']\nc: |\n  z\n");
        let doc = v4t_yaml::parse(sources.get(id).map(SourceFile::text).unwrap(), id).unwrap();
        let text = |key: &str| doc.get(key).and_then(|n| sources.text_of(n.span));
        assert_eq!(text("a"), Some("1.0"));
        assert_eq!(text("bé"), Some("[x, 'y']"));
        assert_eq!(text("c"), Some("|\n  z"));
        assert_eq!(sources.text_of(doc.span).map(str::len), Some(29));
        assert_eq!(sources.text_of(Span::NONE), None);
        assert_eq!(sources.text_of(Span::at(SourceId(9), 0)), None);
        // Past the end of a line: the line's end.
        assert_eq!(
            sources.text_of(sources.span(id, (1, 4), (1, 99))),
            Some("1.0")
        );
    }

    /// The offset of a line and column, found by walking the text.
    fn walked_offset(text: &str, line: u32, col: u32) -> Option<usize> {
        let mut start = 0;
        for _ in 0..line.checked_sub(1)? {
            start += text[start..].find('\n')? + 1;
        }
        let rest = text[start..].split('\n').next().unwrap_or_default();
        let skip = (col as usize).checked_sub(1)?;
        Some(start + rest.char_indices().nth(skip).map_or(rest.len(), |(i, _)| i))
    }

    #[test]
    fn offsets_are_those_of_walking_the_text() {
        for text in [
            "",
            "a",
            "ab\ncd\n",
            "ab\r\ncd",
            "\n\nx",
            "bé: [x]\nçà\n\ny: 1",
            "x\n😀😀 z\n",
        ] {
            let file = SourceFile::new("t".into(), None, text.into());
            let lines = text.split('\n').count() as u32;
            for line in 0..=lines + 1 {
                for col in 0..=12 {
                    assert_eq!(
                        file.offset(line, col),
                        walked_offset(text, line, col),
                        "{text:?} {line}:{col}"
                    );
                }
            }
        }
    }

    #[test]
    fn released_texts_are_read_again_when_quoted() {
        let text = "a: 1\nb: [x]\n";
        let mut sources = Sources::new();
        let kept = sources.add("kept.yaml", text);
        let again = sources.add("again.yaml", text);
        let changed = sources.add("changed.yaml", text);
        sources.set_reread(again, Arc::new(|| Some("a: 1\nb: [x]\n".to_string())));
        sources.set_reread(changed, Arc::new(|| Some("a: 2\nb: [x]\n".to_string())));
        // Indexed before the release: the lines are found again after it.
        let b = sources.span(again, (2, 4), (2, 7));
        assert_eq!(sources.text_of(b), Some("[x]"));
        for id in [kept, again, changed] {
            sources.release(id);
        }
        let text_of = |id| sources.get(id).map(SourceFile::text);
        assert_eq!(text_of(kept), Some(text), "no way to read it again: kept");
        assert_eq!(
            sources.get(again).map(|f| f.text.len()),
            Some(0),
            "released"
        );
        assert_eq!(sources.text_of(b), Some("[x]"));
        assert_eq!(text_of(again), Some(text));
        // Another text than the one parsed is not quoted.
        assert_eq!(text_of(changed), Some(""));
        assert_eq!(sources.text_of(sources.span(changed, (2, 4), (2, 7))), None);
    }

    #[test]
    fn loaded_files_remember_their_path() {
        let mut sources = Sources::new();
        let t = sources.add("dir/template.yaml", "");
        let l = sources.add_loaded("lib/a.yaml", "x: 1");
        assert_eq!(sources.get(t).and_then(|f| f.path.as_deref()), None);
        assert_eq!(sources.get(l).map(|f| f.name.as_str()), Some("lib/a.yaml"));
        assert_eq!(
            sources.get(l).and_then(|f| f.path.as_deref()),
            Some("lib/a.yaml")
        );
        assert_eq!((t, l), (SourceId(0), SourceId(1)));
    }

    #[test]
    fn imports_resolve_against_the_importing_file() {
        let cases = [
            (None, "types.yaml", "types.yaml"),
            (None, "a/./b/../c.yaml", "a/c.yaml"),
            (None, "../x.yaml", "../x.yaml"),
            (Some("lib/a.yaml"), "b.yaml", "lib/b.yaml"),
            (Some("lib/a.yaml"), "../../x.yaml", "../x.yaml"),
            (Some("lib/deep/a.yaml"), "../../top.yaml", "top.yaml"),
            (Some("lib/a.yaml"), "sub//b.yaml", "lib/sub/b.yaml"),
            (Some("lib/a.yaml"), "/etc/passwd", "/etc/passwd"),
            (Some("lib/a.yaml"), "file:x.yaml", "file:x.yaml"),
            (Some("lib/a.yaml"), "C:/x.yaml", "C:/x.yaml"),
            (Some("lib/a.yaml"), "a:b/x.yaml", "a:b/x.yaml"),
            (Some("lib/a.yaml"), "x/a:b.yaml", "lib/x/a:b.yaml"),
        ];
        for (importer, import, want) in cases {
            assert_eq!(join_import(importer, import), want, "{importer:?} {import}");
        }
        assert_eq!(within_root("../../x/y.yaml"), "x/y.yaml");
        assert_eq!(within_root("x/../y.yaml"), "x/../y.yaml");
        assert_eq!(within_root(".."), "");
    }
}
