//! The loader of the language server: open buffers override the files on
//! disk, which are read through the caller's loader (the command line's,
//! with its confinement to the template's directory and its size bounds).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use v4t::Loader;

use crate::text::normalize;

/// Makes the loader for the files beside a template in a directory.
pub type LoaderFactory = dyn Fn(&Path) -> Box<dyn Loader> + Send + Sync;

/// The texts of the open buffers, by normalized absolute path.
pub(crate) type Buffers = Arc<HashMap<PathBuf, String>>;

/// A [`Loader`] for one directory: open buffers first, then the disk.
pub(crate) struct Overlay {
    dir: PathBuf,
    buffers: Buffers,
    disk: Box<dyn Loader>,
}

impl Overlay {
    /// The loader for templates in `dir`.
    pub(crate) fn new(dir: &Path, buffers: Buffers, loaders: &LoaderFactory) -> Overlay {
        Overlay {
            dir: dir.to_path_buf(),
            buffers,
            disk: loaders(dir),
        }
    }
}

impl Loader for Overlay {
    fn read(&mut self, path: &str) -> Result<Option<String>, String> {
        // Only plain relative paths are looked up among the buffers: the
        // disk loader decides about anything that could leave the directory.
        let plain =
            !path.starts_with('/') && !path.split('/').any(|s| s == "..") && !path.contains(':');
        if plain {
            if let Some(text) = self.buffers.get(&normalize(&self.dir.join(path))) {
                return Ok(Some(text.clone()));
            }
        }
        self.disk.read(path)
    }

    fn lib_files(&mut self) -> Vec<String> {
        self.disk.lib_files()
    }

    fn files(&mut self) -> Vec<String> {
        self.disk.files()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Disk;
    impl Loader for Disk {
        fn read(&mut self, path: &str) -> Result<Option<String>, String> {
            Ok(Some(format!("disk {path}")))
        }
        fn lib_files(&mut self) -> Vec<String> {
            vec!["lib/a.yaml".into()]
        }
    }

    #[test]
    fn buffers_override_the_disk() {
        let mut open = HashMap::new();
        open.insert(PathBuf::from("/t/types.yaml"), "buffer".to_string());
        let factory: Box<LoaderFactory> = Box::new(|_| Box::new(Disk));
        let mut l = Overlay::new(Path::new("/t"), Arc::new(open), &*factory);
        assert_eq!(l.read("types.yaml").unwrap().as_deref(), Some("buffer"));
        assert_eq!(l.read("./types.yaml").unwrap().as_deref(), Some("buffer"));
        assert_eq!(
            l.read("other.yaml").unwrap().as_deref(),
            Some("disk other.yaml")
        );
        // Paths that may leave the directory are the disk loader's to judge.
        assert_eq!(
            l.read("../t/types.yaml").unwrap().as_deref(),
            Some("disk ../t/types.yaml")
        );
        assert_eq!(l.lib_files(), ["lib/a.yaml"]);
    }
}
