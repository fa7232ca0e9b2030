//! Source texts and the files a template pulls in.
//!
//! The library does no I/O: the caller hands over the template text and a
//! [`Loader`] that reads the files next to it (`lib/` types, qualities,
//! type-specific conditions). Every text gets a [`SourceId`] so that spans can
//! be rendered as `file:line:column` by the caller.

use v4t_yaml::SourceId;

/// One loaded text.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The name shown in diagnostics (normally the path).
    pub name: String,
    pub text: String,
}

/// All texts of one run, indexed by [`SourceId`].
#[derive(Clone, Debug, Default)]
pub struct Sources {
    files: Vec<SourceFile>,
}

impl Sources {
    pub fn new() -> Sources {
        Sources::default()
    }

    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> SourceId {
        self.files.push(SourceFile {
            name: name.into(),
            text: text.into(),
        });
        SourceId(self.files.len() as u32 - 1)
    }

    pub fn get(&self, id: SourceId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }
}

/// Reads the files a template refers to, relative to the template's directory.
pub trait Loader {
    /// Reads `path` (relative to the template directory, `/`-separated).
    /// `Ok(None)` if it does not exist; `Err` with a message if it cannot be read.
    fn read(&mut self, path: &str) -> Result<Option<String>, String>;

    /// Every `.yaml`/`.yml` file below `lib/`, breadth-first, as relative paths
    /// (`lib/a.yaml`, `lib/sub/b.yaml`); empty if there is no `lib/`.
    fn lib_files(&mut self) -> Vec<String>;
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
