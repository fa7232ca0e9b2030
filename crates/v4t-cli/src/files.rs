//! Writing files the user names, atomically.
//!
//! Every file the CLI writes goes through [`write_atomically`]: an
//! exclusively created temporary file with a random name in the target
//! directory, renamed over the target, and removed again if the process is
//! interrupted ([`crate::signals`]). Reading is `v4t_files::read`'s.

use std::fs;
use std::hash::{BuildHasher, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A random hexadecimal string: the per-process random keys of the
/// standard library's hasher (seeded by the operating system) over a
/// counter, the time and the process id. Unpredictable enough that nobody
/// can plant a file under the name beforehand; exclusive creation makes a
/// collision harmless anyway.
fn random_suffix() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    if let Ok(d) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(d.as_nanos());
    }
    format!("{:016x}", h.finish())
}

/// Creates a new temporary file beside `path` (never following or reusing
/// an existing name) and registers it for removal on interruption.
fn create_temp(dir: &Path, file_name: &str) -> std::io::Result<(PathBuf, fs::File)> {
    let mut last = None;
    for _ in 0..16 {
        let temp = dir.join(format!(".{file_name}.{}.v4t-tmp", random_suffix()));
        // Registered before it exists, so that no moment is left in which
        // an interruption would leave it behind.
        crate::signals::register_temp(&temp);
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
        {
            Ok(file) => return Ok((temp, file)),
            Err(e) => {
                crate::signals::unregister_temp(&temp);
                if e.kind() != std::io::ErrorKind::AlreadyExists {
                    return Err(e);
                }
                last = Some(e);
            }
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("could not create a temporary file")))
}

/// Writes `bytes` to `path` via a temporary file in the same directory and a
/// rename, so readers never see a partial file and a failure leaves any
/// existing file untouched. The temporary file is created exclusively under
/// a random name (a symlink planted under a predictable name cannot redirect
/// the write) and removed if the process is interrupted. A path that exists
/// but is not a regular file (`/dev/null`, a pipe) is written directly:
/// renaming over it would replace the device.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let existing = fs::metadata(path).ok();
    if existing.as_ref().is_some_and(|m| m.is_dir()) {
        return Err(std::io::Error::other("it is a directory"));
    }
    if existing.as_ref().is_some_and(|m| !m.is_file()) {
        let mut file = fs::OpenOptions::new().write(true).open(path)?;
        return file.write_all(bytes);
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("not a file name"))?
        .to_string_lossy()
        .into_owned();
    crate::signals::install();
    let (temp, mut file) = create_temp(&dir, &file_name)?;
    let result = (|| {
        if let Some(meta) = &existing {
            // Keep the permissions of the file being replaced.
            file.set_permissions(meta.permissions())?;
        }
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    crate::signals::unregister_temp(&temp);
    result
}

/// What identifies a file for "is this the same file" checks: the device
/// and inode of an existing file, the absolute path of one to be created.
#[derive(Debug, PartialEq, Eq)]
pub enum Identity {
    Inode(u64, u64),
    Path(PathBuf),
}

/// The [`Identity`] of `path` (`None` for standard input/output and paths
/// that cannot be resolved).
pub fn identity(path: &Path) -> Option<Identity> {
    if path.as_os_str() == "-" {
        return None;
    }
    if let Ok(meta) = fs::metadata(path) {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            return Some(Identity::Inode(meta.dev(), meta.ino()));
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            return fs::canonicalize(path).ok().map(Identity::Path);
        }
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let dir = fs::canonicalize(parent).ok()?;
    Some(Identity::Path(dir.join(path.file_name()?)))
}

/// Whether `a` and `b` name the same file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (identity(a), identity(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "v4t-files-{tag}-{}-{}",
            std::process::id(),
            random_suffix()
        ));
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn atomic_writes_replace_and_leave_no_temporary_file() {
        let dir = temp_dir("atomic");
        let path = dir.join("out.yaml");
        write_atomically(&path, b"one").unwrap();
        write_atomically(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(&dir).unwrap().collect();
        assert_eq!(names.len(), 1);
        assert!(write_atomically(&dir, b"x").is_err());
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn same_file_sees_through_names() {
        let dir = temp_dir("same");
        let a = dir.join("a.yaml");
        fs::write(&a, "x").unwrap();
        let dotted = dir.join(".").join("a.yaml");
        assert!(same_file(&a, &dotted));
        assert!(!same_file(&a, &dir.join("b.yaml")));
        // Neither exists: compared by absolute path.
        assert!(same_file(&dir.join("c.yaml"), &dir.join("./c.yaml")));
        assert!(!same_file(Path::new("-"), Path::new("-")));
        #[cfg(unix)]
        {
            let link = dir.join("link.yaml");
            std::os::unix::fs::symlink(&a, &link).unwrap();
            assert!(same_file(&a, &link));
        }
        fs::remove_dir_all(dir).unwrap();
    }
}
