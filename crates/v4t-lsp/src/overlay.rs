//! The loader of the language server: open buffers override the files on
//! disk, which are read through the caller's loader (the command line's,
//! with its bounds: a template file's imports may lead above its
//! directory, as `v4t resolve FILE` and `v4t validate FILE` read them).

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
        // Relative paths are looked up among the buffers; the disk loader
        // decides first about any that leads above the directory.
        let relative = !path.starts_with('/') && !path.contains(':');
        let above = path.split('/').any(|s| s == "..");
        let buffer = || self.buffers.get(&normalize(&self.dir.join(path))).cloned();
        if relative && !above {
            if let Some(text) = buffer() {
                return Ok(Some(text));
            }
        }
        let disk = self.disk.read(path)?;
        if relative && above && disk.is_some() {
            if let Some(text) = buffer() {
                return Ok(Some(text));
            }
        }
        Ok(disk)
    }

    fn lib_files(&mut self) -> Vec<String> {
        self.disk.lib_files()
    }

    fn files(&mut self) -> Vec<String> {
        self.disk.files()
    }

    fn bounded(&self) -> bool {
        self.disk.bounded()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A disk that has every file, refuses paths above `/t` when confined
    /// to it, and is an open directory otherwise.
    struct Disk {
        confined: bool,
    }
    impl Loader for Disk {
        fn read(&mut self, path: &str) -> Result<Option<String>, String> {
            if path.starts_with("..") && self.confined {
                return Err(format!("refusing {path}"));
            }
            Ok(Some(format!("disk {path}")))
        }
        fn lib_files(&mut self) -> Vec<String> {
            vec!["lib/a.yaml".into()]
        }
        fn bounded(&self) -> bool {
            self.confined
        }
    }

    #[test]
    fn buffers_override_the_disk() {
        let mut open = HashMap::new();
        open.insert(PathBuf::from("/t/types.yaml"), "buffer".to_string());
        open.insert(PathBuf::from("/up.yaml"), "buffer above".to_string());
        let open = Arc::new(open);
        let confined: Box<LoaderFactory> = Box::new(|_| Box::new(Disk { confined: true }));
        let mut l = Overlay::new(Path::new("/t"), open.clone(), &*confined);
        assert!(l.bounded());
        assert_eq!(l.read("types.yaml").unwrap().as_deref(), Some("buffer"));
        assert!(
            l.read("../up.yaml").is_err(),
            "the disk loader refuses first"
        );
        let factory: Box<LoaderFactory> = Box::new(|_| Box::new(Disk { confined: false }));
        let mut l = Overlay::new(Path::new("/t"), open, &*factory);
        assert!(!l.bounded(), "a directory on disk, as the disk loader says");
        assert_eq!(
            l.read("../up.yaml").unwrap().as_deref(),
            Some("buffer above")
        );
        assert_eq!(l.read("types.yaml").unwrap().as_deref(), Some("buffer"));
        assert_eq!(l.read("./types.yaml").unwrap().as_deref(), Some("buffer"));
        assert_eq!(
            l.read("other.yaml").unwrap().as_deref(),
            Some("disk other.yaml")
        );
        // Paths that may leave the directory are the disk loader's to judge;
        // a buffer of what it allows overrides it.
        assert_eq!(
            l.read("../t/types.yaml").unwrap().as_deref(),
            Some("buffer")
        );
        assert_eq!(
            l.read("../other.yaml").unwrap().as_deref(),
            Some("disk ../other.yaml")
        );
        assert_eq!(l.lib_files(), ["lib/a.yaml"]);
    }
}
