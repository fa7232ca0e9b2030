//! Tarball CSARs (TOSCA 2.0 §17.1.1.1): uncompressed tarballs and
//! Gzip-compressed ones (`.tar`, `.tar.gz`, `.tgz`), read with the `tar`
//! and `flate2` crates into their files, which the CSAR archive takes in
//! with the same limits and entry-name rules as zip archives.
//!
//! Regular files are read and directories skipped; long names (POSIX `pax`
//! and GNU) come from the `tar` crate. Links and device files are refused,
//! as in zip archives.

use std::io::Read;

/// The size of a tar header block.
const BLOCK: usize = 512;

/// Gzip's magic number.
const GZIP: [u8; 2] = [0x1f, 0x8b];

/// The most entries and inflated bytes a tarball may have.
#[derive(Clone, Copy)]
pub struct Limits {
    pub entries: usize,
    pub bytes: u64,
}

/// A file of a tarball: its name as written (a leading `./` dropped) and
/// its content.
pub type File = (String, Vec<u8>);

/// How many bytes [`looks_like_tarball`] needs to see.
pub const SNIFF_BYTES: usize = BLOCK;

/// Whether `bytes` start like a tarball: Gzip's magic number, or a UStar
/// header (`ustar` at offset 257) whose checksum is right (so that a text
/// file with `ustar` at that offset is not taken for one).
pub fn looks_like_tarball(bytes: &[u8]) -> bool {
    if bytes.starts_with(&GZIP) {
        return true;
    }
    let Some(block) = bytes.get(..BLOCK) else {
        return false;
    };
    if block.get(257..262) != Some(b"ustar") {
        return false;
    }
    let header = tar::Header::from_byte_slice(block);
    let mut recomputed = header.clone();
    recomputed.set_cksum();
    header
        .cksum()
        .ok()
        .is_some_and(|c| Some(c) == recomputed.cksum().ok())
}

/// Whether `name` ends like a tarball's file name.
pub fn has_tarball_extension(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [".tar", ".tar.gz", ".tgz"]
        .iter()
        .any(|e| name.ends_with(e))
}

/// Reads the files of a tarball (Gzip-compressed or not), in tarball order.
pub fn read(bytes: &[u8], limits: Limits) -> Result<Vec<File>, String> {
    if bytes.starts_with(&GZIP) {
        // The inflated stream is read no further than the limit allows.
        let inflated = flate2::read::GzDecoder::new(bytes).take(limits.bytes.saturating_add(1));
        files(inflated, limits)
    } else {
        files(bytes, limits)
    }
}

/// The files of the tar stream `reader`.
fn files(reader: impl Read, limits: Limits) -> Result<Vec<File>, String> {
    let damaged = |e: std::io::Error| format!("the tarball is damaged: {e}");
    let mut archive = tar::Archive::new(reader);
    let mut files = Vec::new();
    let (mut count, mut total) = (0usize, 0u64);
    for entry in archive.entries().map_err(damaged)? {
        let mut entry = entry.map_err(damaged)?;
        let name = String::from_utf8(entry.path_bytes().into_owned())
            .map_err(|_| "an entry name is not UTF-8".to_string())?;
        let kind = entry.header().entry_type();
        match kind {
            tar::EntryType::Regular | tar::EntryType::Continuous => {}
            // Directories, and global pax records: nothing a CSAR needs.
            tar::EntryType::Directory | tar::EntryType::XGlobalHeader => continue,
            tar::EntryType::Link | tar::EntryType::Symlink => {
                return Err(format!("entry \"{name}\" is a link"))
            }
            other => {
                return Err(format!(
                    "entry \"{name}\" has the unsupported tar entry type `{}`",
                    other.as_byte() as char
                ))
            }
        }
        count += 1;
        if count > limits.entries {
            let most = limits.entries;
            return Err(format!("the archive has more than {most} entries"));
        }
        total = total.saturating_add(entry.size());
        if total > limits.bytes {
            return Err(too_large(limits.bytes));
        }
        let mut content = Vec::with_capacity(usize::try_from(entry.size()).unwrap_or(0));
        entry.read_to_end(&mut content).map_err(damaged)?;
        // `tar -C dir .` writes `./` before every name.
        let mut path = name.as_str();
        while let Some(rest) = path.strip_prefix("./") {
            path = rest;
        }
        files.push((path.to_string(), content));
    }
    Ok(files)
}

fn too_large(bytes: u64) -> String {
    format!(
        "the archive inflates to more than {} MiB",
        bytes / (1024 * 1024)
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::Write;

    /// A header for an entry `name` of `size` bytes and type `kind`, its
    /// name written as is (even `../x`, which the tar crate's builder
    /// refuses to write).
    fn header(name: &str, size: usize, kind: tar::EntryType) -> tar::Header {
        let mut h = tar::Header::new_ustar();
        h.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
        h.set_size(size as u64);
        h.set_mode(0o644);
        h.set_entry_type(kind);
        h.set_cksum();
        h
    }

    /// A plain tarball of `entries` (name, content), as `tar -C dir .`
    /// writes it.
    pub(crate) fn tar(entries: &[(&str, &str)]) -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        b.append(&header("./", 0, tar::EntryType::Directory), &[][..])
            .unwrap();
        for (name, content) in entries {
            let h = header(name, content.len(), tar::EntryType::Regular);
            b.append(&h, content.as_bytes()).unwrap();
        }
        b.into_inner().unwrap()
    }

    const LIMITS: Limits = Limits {
        entries: 10,
        bytes: 1 << 20,
    };

    fn get<'f>(files: &'f [File], name: &str) -> Option<&'f [u8]> {
        files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| c.as_slice())
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn plain_and_gzipped_tarballs_are_read_with_their_paths() {
        let bytes = tar(&[
            ("./TOSCA.meta", "CSAR-Version: 2.0\n"),
            ("./defs/t.yaml", "a: 1\n"),
        ]);
        assert!(looks_like_tarball(&bytes));
        for bytes in [bytes.clone(), gzip(&bytes)] {
            let files = read(&bytes, LIMITS).unwrap();
            assert_eq!(get(&files, "defs/t.yaml"), Some(&b"a: 1\n"[..]));
            assert_eq!(get(&files, "TOSCA.meta"), Some(&b"CSAR-Version: 2.0\n"[..]));
        }
        assert!(has_tarball_extension("x.TAR.gz") && has_tarball_extension("x.tgz"));
        // Text with `ustar` where a header has it is not a tarball.
        let text = format!("{}ustar{}", "#".repeat(257), " ".repeat(300));
        assert!(!looks_like_tarball(text.as_bytes()));
        assert!(!has_tarball_extension("x.zip"));
    }

    #[test]
    fn damaged_tarballs_links_and_too_many_entries_are_refused() {
        let mut bytes = tar(&[("t.yaml", "a: 1\n")]);
        bytes[BLOCK + 3] ^= 1; // the name, under the checksum
        assert!(read(&bytes, LIMITS).is_err());
        let mut b = tar::Builder::new(Vec::new());
        let mut link = header("l", 0, tar::EntryType::Symlink);
        link.set_link_name("t.yaml").unwrap();
        link.set_cksum();
        b.append(&link, &[][..]).unwrap();
        let link = b.into_inner().unwrap();
        assert!(read(&link, LIMITS).unwrap_err().contains("is a link"));
        let truncated = &tar(&[("t.yaml", "a: 1\n")])[..BLOCK * 2 + 2];
        assert!(read(truncated, LIMITS).is_err());
        let many: Vec<(String, &str)> = (0..11).map(|i| (format!("f{i}"), "")).collect();
        let many: Vec<(&str, &str)> = many.iter().map(|(n, c)| (n.as_str(), *c)).collect();
        assert!(read(&tar(&many), LIMITS)
            .unwrap_err()
            .contains("more than 10 entries"));
        // A Gzip bomb stops at the limit.
        let big = "a".repeat(2 << 20);
        let bomb = gzip(&tar(&[("big.yaml", &big)]));
        assert!(read(&bomb, LIMITS).unwrap_err().contains("more than 1 MiB"));
    }

    #[test]
    fn long_names_name_their_entry() {
        let long = format!("{}/t.yaml", "d".repeat(120));
        // pax (`x` records) and GNU (`L` entries) long names alike.
        let mut pax = tar::Builder::new(Vec::new());
        pax.append_pax_extensions([("path", long.as_bytes())])
            .unwrap();
        pax.append(&header("short", 5, tar::EntryType::Regular), &b"a: 1\n"[..])
            .unwrap();
        let mut gnu = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.set_size(5);
        h.set_mode(0o644);
        gnu.append_data(&mut h, &long, &b"a: 1\n"[..]).unwrap();
        for bytes in [pax.into_inner().unwrap(), gnu.into_inner().unwrap()] {
            let files = read(&bytes, LIMITS).unwrap();
            assert_eq!(get(&files, &long), Some(&b"a: 1\n"[..]));
        }
    }
}
