//! Opening what a user names: a variable service template (a YAML file,
//! standard input, a CSAR directory or archive) for the commands that
//! resolve, and a TOSCA file or CSAR with everything it imports for
//! validation. The CLI and the Python package open paths through here.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use v4t_source::{Code, Diagnostic, Loader, SourceId, Sources, Span};

use crate::csar::{Archive, ArchiveLoader};
use crate::csar_entry::entry_template;
use crate::fs_loader::{AnyLoader, FsLoader};
use crate::read::{read_bounded, read_bytes, MAX_INPUT_BYTES};

/// A variable service template read from a path.
pub struct Template {
    /// The template's text (and later every file the library reads).
    pub sources: Sources,
    /// The template's source.
    pub id: SourceId,
    /// Where the files beside the template come from.
    pub loader: AnyLoader,
    /// For a zipped CSAR: the archive and the template's path inside it.
    pub archive: Option<(Arc<Archive>, String)>,
}

/// Why a template, inputs file or repository could not be opened.
#[derive(Debug)]
pub enum OpenError {
    /// It cannot be read or may not be read (the CLI's exit 2): the code
    /// and message.
    Usage(Code, String),
    /// It was read but is not valid input (exit 1): the diagnostic points
    /// into it.
    Invalid(Box<Sources>, Diagnostic),
}

impl OpenError {
    /// The error as a diagnostic with the sources its location points into.
    pub fn into_diagnostic(self) -> (Sources, Diagnostic) {
        match self {
            OpenError::Usage(code, message) => (Sources::new(), Diagnostic::error(code, message)),
            OpenError::Invalid(sources, diagnostic) => (*sources, diagnostic),
        }
    }
}

/// Adds `bytes` to `sources` under `name` as text. Bytes that are not UTF-8
/// are invalid input like invalid YAML: the error points at the line and
/// column of the first bad byte, in the text with the bad bytes replaced.
pub fn add_text(sources: &mut Sources, name: &str, bytes: Vec<u8>) -> Result<SourceId, Diagnostic> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok(sources.add(name, text)),
        Err(e) => {
            // The bytes before the first bad one are the same in both texts.
            let at = u32::try_from(e.utf8_error().valid_up_to()).unwrap_or(u32::MAX);
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let id = sources.add(name, text);
            let message = format!("\"{name}\" is not valid UTF-8");
            Err(Diagnostic::error(Code::Encoding, message).at(Span::at(id, at)))
        }
    }
}

/// Reads the template `template` names: `-` is standard input, a CSAR (a
/// directory or a zip archive or tarball) is opened and its template found
/// ([`entry_template`]).
pub fn open_template(template: &str) -> Result<Template, OpenError> {
    let path = Path::new(template);
    // The file the text can be read from again (not standard input).
    let mut file_on_disk = None;
    let (bytes, name, loader) = if template == "-" {
        let bytes = read_bounded(std::io::stdin().lock(), MAX_INPUT_BYTES).map_err(|e| {
            let message = format!("could not read the template from standard input: {e}");
            OpenError::Usage(Code::File, message)
        })?;
        (bytes, "<stdin>".to_string(), fs_loader(FsLoader::new("."))?)
    } else if path.is_dir() {
        let mut root = AnyLoader::Fs(FsLoader::without_dependencies(path));
        let entry =
            entry_template(&mut root, true).map_err(|e| csar_error(template, e.message()))?;
        let file = path.join(entry);
        let name = file.display().to_string();
        let bytes = read_bytes(&file, MAX_INPUT_BYTES).map_err(|e| {
            let message = format!("could not read template \"{name}\": {e}");
            OpenError::Usage(Code::File, message)
        })?;
        file_on_disk = Some(file.clone());
        (bytes, name, fs_loader(FsLoader::for_template(&file))?)
    } else {
        let bytes = read_bytes(path, MAX_INPUT_BYTES).map_err(|e| {
            let message = format!("could not read template \"{template}\": {e}");
            OpenError::Usage(Code::File, message)
        })?;
        if crate::csar::is_archive(path, &bytes) {
            return from_archive(&bytes, template);
        }
        // A file on disk: its imports may lead above its directory.
        file_on_disk = Some(path.to_path_buf());
        (
            bytes,
            template.to_string(),
            fs_loader(FsLoader::for_file(path, None))?,
        )
    };
    if crate::csar::looks_like_archive(&bytes) {
        return from_archive(&bytes, &name);
    }
    let mut sources = Sources::new();
    match add_text(&mut sources, &name, bytes) {
        Ok(id) => {
            if let Some(file) = file_on_disk {
                sources.set_reread(id, reread(file));
            }
            Ok(Template {
                sources,
                id,
                loader: AnyLoader::Fs(loader),
                archive: None,
            })
        }
        Err(d) => Err(OpenError::Invalid(Box::new(sources), d)),
    }
}

/// Reads the template file `file` again, for a diagnostic after the
/// library released its text ([`Sources::release`]).
fn reread(file: PathBuf) -> v4t_source::Reread {
    Arc::new(move || {
        let bytes = read_bytes(&file, MAX_INPUT_BYTES).ok()?;
        String::from_utf8(bytes).ok()
    })
}

/// The loader for the files beside a template, or why there is none (a
/// broken `config.yaml`, a dependency that cannot be read).
fn fs_loader(loader: Result<FsLoader, String>) -> Result<FsLoader, OpenError> {
    loader.map_err(|e| OpenError::Usage(Code::File, e))
}

/// The error for the CSAR `name` that cannot be read (`why`).
fn csar_error(name: &str, why: &str) -> OpenError {
    OpenError::Usage(Code::File, format!("could not read CSAR \"{name}\": {why}"))
}

/// The template inside the zipped CSAR `bytes` (named `name` in messages).
fn from_archive(bytes: &[u8], name: &str) -> Result<Template, OpenError> {
    let archive = Arc::new(Archive::read(bytes).map_err(|e| csar_error(name, &e))?);
    let mut root = AnyLoader::Archive(ArchiveLoader::for_directory(archive.clone(), ""));
    let entry = entry_template(&mut root, true).map_err(|e| csar_error(name, e.message()))?;
    let text = archive.get(&entry).unwrap_or_default().to_vec();
    let mut sources = Sources::new();
    let id = match add_text(&mut sources, &format!("{name}!/{entry}"), text) {
        Ok(id) => id,
        Err(d) => return Err(OpenError::Invalid(Box::new(sources), d)),
    };
    Ok(Template {
        sources,
        id,
        loader: AnyLoader::Archive(ArchiveLoader::for_template(archive.clone(), &entry)),
        archive: Some((archive, entry)),
    })
}

/// A TOSCA file or CSAR opened for validation.
pub struct Repository {
    /// The directory or archive the entry file and its imports are read from.
    pub loader: AnyLoader,
    /// The entry file, relative to the loader's root.
    pub entry: String,
    /// The directory (or archive) diagnostics name files relative to.
    pub shown: PathBuf,
}

/// Opens `path` for validation: a TOSCA file, a CSAR directory, a zipped
/// CSAR or a tarball, whose entry is `Entry-Definitions` of `TOSCA.meta`
/// (at the root or in `TOSCA-Metadata/`), else its only YAML file at the
/// root (TOSCA 2.0 §17.3: no default names, unlike the commands that
/// resolve). A file on disk may import files above its directory, within
/// `root` if given; an archive that cannot be read or is refused (an entry
/// leaving its root, a link, a zip bomb) is a usage error, as in every
/// command.
pub fn open_repository(path: &Path, root: Option<&Path>) -> Result<Repository, OpenError> {
    let meta = fs::metadata(path).map_err(|e| {
        OpenError::Usage(
            Code::File,
            format!("cannot read \"{}\": {e}", path.display()),
        )
    })?;
    let invalid = |code, message| {
        OpenError::Invalid(Box::new(Sources::new()), Diagnostic::error(code, message))
    };
    let repository = if meta.is_dir() {
        AnyLoader::Fs(fs_loader(FsLoader::new(path))?)
    } else if is_archive(path) {
        let archive = read_bytes(path, MAX_INPUT_BYTES)
            .and_then(|bytes| Archive::read(&bytes))
            .map_err(|message| {
                let message = format!("cannot read the CSAR \"{}\": {message}", path.display());
                OpenError::Usage(Code::Csar, message)
            })?;
        AnyLoader::Archive(ArchiveLoader::for_directory(Arc::new(archive), ""))
    } else {
        let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let entry = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if let Some(root) = root {
            let inside = fs::canonicalize(root)
                .and_then(|r| Ok(fs::canonicalize(path)?.starts_with(r)))
                .unwrap_or(false);
            if !inside {
                let message = format!(
                    "\"{}\" is not inside the root directory \"{}\"",
                    path.display(),
                    root.display()
                );
                return Err(OpenError::Usage(Code::File, message));
            }
        }
        let loader = AnyLoader::Fs(fs_loader(FsLoader::for_file(path, root))?);
        return Ok(Repository {
            loader,
            entry,
            shown: dir,
        });
    };
    let mut loader = repository;
    // A TOSCA processor: TOSCA.meta, else the single root YAML file.
    let entry = v4t_tosca::csar::entry_of(&mut loader).map_err(|e| {
        let message = format!("\"{}\" is not a valid CSAR: {e}", path.display());
        invalid(Code::Csar, message)
    })?;
    Ok(Repository {
        loader,
        entry,
        shown: path.to_path_buf(),
    })
}

impl Repository {
    /// Loads the entry with everything it imports (remote imports and
    /// profiles from the folders of `elsewhere`) and validates it as TOSCA:
    /// the sources (loaded files named `DIR/path` as the user sees them),
    /// the diagnostics, sorted, and the loader (with its warnings and notes).
    pub fn validate(
        mut self,
        elsewhere: v4t_tosca::Elsewhere<'_>,
    ) -> (Sources, Vec<Diagnostic>, AnyLoader) {
        let mut sources = Sources::new();
        let files = &mut self.loader as &mut dyn Loader;
        let loaded = v4t_tosca::load_with(&mut sources, files, &self.entry, elsewhere);
        let ts = v4t_tosca::TypeSystem::build(&loaded);
        let diagnostics = v4t_tosca::validate(&ts, &sources).into_sorted();
        (
            display_names(sources, &self.shown),
            diagnostics,
            self.loader,
        )
    }
}

/// The sources with names as the user sees them: loaded files as
/// `DIR/path` (or `ARCHIVE/path`; `..` resolved), bundled profiles as they
/// are. Renamed in place: a copy would hold every text twice (a 51 MB
/// file: 51 MB more at the peak).
fn display_names(mut sources: Sources, dir: &Path) -> Sources {
    let mut id = SourceId(0);
    while let Some(file) = sources.get(id) {
        if let Some(p) = &file.path {
            let name = crate::fs_loader::lexical(dir, p).display().to_string();
            sources.rename(id, name);
        }
        id = SourceId(id.0 + 1);
    }
    sources
}

/// Whether a file is a zip archive or a tarball (by its name or its first
/// bytes).
fn is_archive(path: &Path) -> bool {
    use std::io::Read;
    let mut start = Vec::with_capacity(crate::tarball::SNIFF_BYTES);
    let read = fs::File::open(path).and_then(|f| {
        f.take(crate::tarball::SNIFF_BYTES as u64)
            .read_to_end(&mut start)
    });
    crate::csar::is_archive(path, if read.is_ok() { &start } else { &[] })
}
