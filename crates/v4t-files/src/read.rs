//! Reading files the user names, defensively.
//!
//! Every file v4t reads (template, inputs, the files beside the template,
//! test files, archives) goes through [`read_bytes`]: only regular files are
//! opened (a FIFO would block, a device like `/dev/zero` never ends), and at
//! most a limit plus one byte is read, so an oversized file is refused before
//! it exhausts memory.

use std::fs;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// Checks the relative `path` lexically and returns it as a relative path
/// below the template directory (shown as `dir` in the message): absolute
/// paths and `..` leaving the directory are refused. Shared by the file
/// system and the archive loader.
pub fn confine(path: &str, dir: &str) -> Result<PathBuf, String> {
    let escape = || {
        format!("Refusing to read \"{path}\": it is outside of the template directory \"{dir}\"")
    };
    // Also refuse Windows-style absolute paths written with `/` on Unix.
    if path.starts_with('\\') || path.get(1..2) == Some(":") {
        return Err(escape());
    }
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
    Ok(rel)
}

/// The largest template, inputs file or archive that is read (256 MiB).
/// Larger inputs are refused with a clear error instead of exhausting memory.
pub const MAX_INPUT_BYTES: u64 = 256 * 1024 * 1024;

/// A short description of what kind of file `meta` describes, for messages
/// about files that are not regular files.
fn kind(meta: &fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    "not a regular file"
}

/// The error for a file of more than `limit` bytes.
pub fn too_large(limit: u64) -> String {
    format!("the file is larger than {} MiB", limit / (1024 * 1024))
}

/// Opens `path` for reading if it is a regular file (after following
/// symlinks). Non-blocking, so that a file swapped for a FIFO between the
/// check and the open cannot hang the process; checked again after opening.
fn open_regular(path: &Path) -> Result<fs::File, String> {
    let meta = fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err(format!("not a regular file ({})", kind(&meta)));
    }
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err(format!("not a regular file ({})", kind(&meta)));
    }
    Ok(file)
}

/// Reads the regular file `path` if it has at most `limit` bytes.
pub fn read_bytes(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    let file = open_regular(path)?;
    let len = file.metadata().map_or(0, |m| m.len());
    if len > limit {
        return Err(too_large(limit));
    }
    // The size as the capacity: no growing of a large template's buffer
    // while it is read (unless the file grows meanwhile).
    read_into(file, limit, len as usize)
}

/// Reads at most `limit` bytes from `reader`; more is an error.
pub fn read_bounded(reader: impl Read, limit: u64) -> Result<Vec<u8>, String> {
    read_into(reader, limit, 0)
}

/// The size of the pieces [`read_into`] reads.
const CHUNK: usize = 64 * 1024;

/// Above this size [`read_into`] stops doubling its buffer and reserves the
/// whole limit instead.
const RESERVE_LIMIT_ABOVE: usize = 1024 * 1024;

/// [`read_bounded`] into one buffer of `capacity` bytes at first. The input
/// is refused as soon as more than `limit` bytes are seen. The buffer
/// doubles while small; once it would pass [`RESERVE_LIMIT_ABOVE`] it grows
/// to `limit` at once: reserved address space becomes memory only when
/// written, while every doubling copies (the allocator moves large blocks),
/// briefly holding the old and the new buffer. So a large or oversized
/// input costs about `limit` bytes of memory at most, not the next power of
/// two above it plus the copy (as `read_to_end` would).
///
/// The first `capacity` bytes are read straight into the buffer (a file of
/// known size: no copy of a large template through the chunk); only what
/// comes after them goes through a chunk.
fn read_into(mut reader: impl Read, limit: u64, capacity: usize) -> Result<Vec<u8>, String> {
    let limit_len = usize::try_from(limit).unwrap_or(usize::MAX);
    let reserved = capacity.min(limit_len);
    let mut bytes = Vec::with_capacity(reserved);
    if reserved > 0 {
        // At most the reserved bytes: the buffer does not grow here.
        let reserved = reserved as u64;
        (&mut reader)
            .take(reserved)
            .read_to_end(&mut bytes)
            .map_err(|e| e.to_string())?;
        if (bytes.len() as u64) < reserved {
            // The input ended before its announced size.
            return Ok(bytes);
        }
    }
    let mut chunk = vec![0u8; CHUNK];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => return Ok(bytes),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.to_string()),
        };
        if n > limit_len - bytes.len() {
            return Err(too_large(limit));
        }
        if n > bytes.capacity() - bytes.len() {
            let doubled = (bytes.capacity() * 2)
                .max(bytes.len() + n)
                .max(CHUNK)
                .min(limit_len);
            let grown = if doubled > RESERVE_LIMIT_ABOVE {
                limit_len
            } else {
                doubled
            };
            // Where address space is short, grow only as needed.
            if bytes.try_reserve_exact(grown - bytes.len()).is_err() {
                bytes.reserve_exact(doubled - bytes.len());
            }
        }
        bytes.extend_from_slice(&chunk[..n]);
    }
}

/// Where the first byte that is not UTF-8 is: 1-based line and column (in
/// characters).
pub fn utf8_error_position(e: &std::string::FromUtf8Error) -> (u32, u32) {
    let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
    // The valid prefix is UTF-8 by definition.
    let prefix = std::str::from_utf8(valid).unwrap_or_default();
    let line = prefix.matches('\n').count() + 1;
    let col = prefix
        .rsplit('\n')
        .next()
        .unwrap_or_default()
        .chars()
        .count()
        + 1;
    (line as u32, col as u32)
}

/// The message for a file that is not UTF-8, naming where.
pub fn not_utf8_message(e: &std::string::FromUtf8Error) -> String {
    let (line, col) = utf8_error_position(e);
    format!("the file is not valid UTF-8 (line {line}, column {col})")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("v4t-read-{tag}-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn bounded_reads_refuse_larger_inputs() {
        assert_eq!(read_bounded(&b"abcd"[..], 4).unwrap(), b"abcd");
        assert_eq!(
            read_bounded(&b"abcde"[..], 4).unwrap_err(),
            "the file is larger than 0 MiB"
        );
        let dir = temp_dir("bounded");
        let path = dir.join("f");
        fs::write(&path, "12345").unwrap();
        assert!(read_bytes(&path, 4).is_err());
        assert_eq!(read_bytes(&path, 5).unwrap(), b"12345");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_buffer_never_grows_beyond_the_limit() {
        // Exactly the limit, delivered in odd pieces: accepted, and the
        // buffer was not doubled past the limit on the way.
        let limit = 300_000;
        let input = vec![7u8; limit];
        let pieces = Pieces(&input, 4_097);
        let bytes = read_bounded(pieces, limit as u64).unwrap();
        assert_eq!(bytes, input);
        assert!(bytes.capacity() <= limit, "capacity {}", bytes.capacity());
        // An endless input is refused, without reading much past the limit.
        let mut endless = std::io::repeat(0);
        let e = read_bounded(&mut endless, 1024 * 1024).unwrap_err();
        assert_eq!(e, "the file is larger than 1 MiB");
        let mut counted = Counted(std::io::repeat(1), 0);
        assert!(read_bounded(&mut counted, limit as u64).is_err());
        assert!(counted.1 <= limit + CHUNK, "read {} bytes", counted.1);
    }

    /// A file of known size is read straight into its buffer (the reader
    /// is offered more room than a chunk: the buffer's own), and bytes past
    /// the announced size still count against the limit.
    #[test]
    fn a_known_size_is_read_without_a_chunk() {
        let input = vec![3u8; 16 * CHUNK + 5];
        let mut offered = Offered(&input, 0);
        let bytes = read_into(&mut offered, input.len() as u64, input.len()).unwrap();
        assert_eq!(bytes, input);
        assert!(offered.1 > CHUNK, "offered {} bytes", offered.1);
        assert_eq!(bytes.capacity(), input.len());
        // The input is longer than announced: read on, within the limit.
        let longer = read_into(&input[..], input.len() as u64, 10).unwrap();
        assert_eq!(longer, input);
        let e = read_into(&input[..], 100, 10).unwrap_err();
        assert_eq!(e, "the file is larger than 0 MiB");
        // Shorter than announced: what there is.
        assert_eq!(read_into(&input[..7], 100, 50).unwrap(), &input[..7]);
    }

    /// A reader that records the largest buffer it was offered.
    struct Offered<'a>(&'a [u8], usize);

    impl Read for Offered<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.1 = self.1.max(buf.len());
            let n = self.0.len().min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// A reader that hands out its bytes at most `.1` at a time.
    struct Pieces<'a>(&'a [u8], usize);

    impl Read for Pieces<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.0.len().min(self.1).min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// A reader that counts the bytes it hands out.
    struct Counted<R>(R, usize);

    impl<R: Read> Read for Counted<R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.0.read(buf)?;
            self.1 += n;
            Ok(n)
        }
    }

    #[cfg(unix)]
    #[test]
    fn only_regular_files_are_read() {
        let dir = temp_dir("kinds");
        let error = read_bytes(&dir, 10).unwrap_err();
        assert_eq!(error, "not a regular file (a directory)");
        let error = read_bytes(Path::new("/dev/zero"), 10).unwrap_err();
        assert_eq!(error, "not a regular file (a character device)");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn utf8_errors_name_line_and_column() {
        let e = String::from_utf8(b"ab\ncd\xffe".to_vec()).unwrap_err();
        assert_eq!(utf8_error_position(&e), (2, 3));
        let e = String::from_utf8(b"\xe9".to_vec()).unwrap_err();
        assert_eq!(utf8_error_position(&e), (1, 1));
    }
}
