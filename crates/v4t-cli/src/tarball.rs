//! Tarball CSARs (TOSCA 2.0 §17.1.1.1): uncompressed UStar tarballs and
//! Gzip-compressed ones (`.tar`, `.tar.gz`, `.tgz`), read into their files,
//! which the CSAR archive takes in with the same limits and entry-name
//! rules as zip archives.
//!
//! The reader knows what CSARs need: regular files and directories, long
//! names (POSIX `pax` `path` records and GNU `L` entries) and the UStar
//! name prefix. Links and device files are refused, as in zip archives.

const BLOCK: usize = 512;

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
    bytes.starts_with(&[0x1f, 0x8b])
        || (bytes.get(257..262) == Some(b"ustar")
            && bytes.get(..BLOCK).is_some_and(|h| check_sum(h).is_ok()))
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
    let inflated;
    let data = if bytes.starts_with(&[0x1f, 0x8b]) {
        inflated = gunzip(bytes, limits.bytes)?;
        &inflated[..]
    } else {
        bytes
    };
    let mut files = Vec::new();
    let (mut pos, mut count, mut total) = (0usize, 0usize, 0u64);
    let mut long_name: Option<String> = None;
    while pos + BLOCK <= data.len() {
        let header = &data[pos..pos + BLOCK];
        if header.iter().all(|&b| b == 0) {
            break; // the end-of-archive blocks
        }
        check_sum(header)?;
        let size = octal(&header[124..136]).ok_or("a tar header has a damaged size")?;
        let start = pos + BLOCK;
        let end = usize::try_from(size)
            .ok()
            .and_then(|s| start.checked_add(s))
            .filter(|&e| e <= data.len())
            .ok_or("the tarball is truncated")?;
        let content = &data[start..end];
        pos = start + (end - start).div_ceil(BLOCK) * BLOCK;
        let name = match long_name.take() {
            Some(n) => n,
            None => header_name(header)?,
        };
        match header[156] {
            b'0' | 0 | b'7' => {}
            b'5' => continue,
            b'x' => {
                long_name = pax_path(content)?;
                continue;
            }
            b'g' => continue, // global pax records: nothing a CSAR needs
            b'L' => {
                long_name = Some(text(content.split(|&b| b == 0).next().unwrap_or(&[]))?);
                continue;
            }
            b'1' | b'2' => return Err(format!("entry \"{name}\" is a link")),
            t => {
                return Err(format!(
                    "entry \"{name}\" has the unsupported tar entry type `{}`",
                    t as char
                ))
            }
        }
        count += 1;
        if count > limits.entries {
            let most = limits.entries;
            return Err(format!("the archive has more than {most} entries"));
        }
        total += size;
        if total > limits.bytes {
            return Err(too_large(limits.bytes));
        }
        // `tar -C dir .` writes `./` before every name.
        let mut path = name.as_str();
        while let Some(rest) = path.strip_prefix("./") {
            path = rest;
        }
        files.push((path.to_string(), content.to_vec()));
    }
    Ok(files)
}

fn too_large(bytes: u64) -> String {
    format!(
        "the archive inflates to more than {} MiB",
        bytes / (1024 * 1024)
    )
}

/// The name of a UStar header: the prefix (UStar only), `/`, the name.
fn header_name(header: &[u8]) -> Result<String, String> {
    let field = |r: std::ops::Range<usize>| {
        let f = &header[r];
        text(&f[..f.iter().position(|&b| b == 0).unwrap_or(f.len())])
    };
    let name = field(0..100)?;
    let prefix = if &header[257..262] == b"ustar" {
        field(345..500)?
    } else {
        String::new()
    };
    Ok(if prefix.is_empty() {
        name
    } else {
        format!("{prefix}/{name}")
    })
}

fn text(bytes: &[u8]) -> Result<String, String> {
    String::from_utf8(bytes.to_vec()).map_err(|_| "an entry name is not UTF-8".to_string())
}

/// An octal number field (NUL- or space-terminated).
fn octal(field: &[u8]) -> Option<u64> {
    let digits: Vec<u8> = field
        .iter()
        .copied()
        .skip_while(|&b| b == b' ')
        .take_while(|&b| b != 0 && b != b' ')
        .collect();
    if digits.is_empty() {
        return Some(0);
    }
    u64::from_str_radix(std::str::from_utf8(&digits).ok()?, 8).ok()
}

/// Whether a header's checksum field holds [`header_sum`].
fn check_sum(header: &[u8]) -> Result<(), String> {
    if octal(&header[148..156]) == Some(header_sum(header)) {
        Ok(())
    } else {
        Err("a tar header is damaged (wrong checksum)".to_string())
    }
}

/// The sum of a header's bytes, the checksum field counted as spaces.
fn header_sum(header: &[u8]) -> u64 {
    let field = 148..156;
    let spaces = 32 * field.len() as u64;
    let rest: u64 = header[..field.start]
        .iter()
        .chain(&header[field.end..])
        .map(|&b| u64::from(b))
        .sum();
    spaces + rest
}

/// The `path` of a pax extended header (`<length> path=<name>\n` records).
fn pax_path(records: &[u8]) -> Result<Option<String>, String> {
    let mut rest = records;
    while !rest.is_empty() {
        let space = rest
            .iter()
            .position(|&b| b == b' ')
            .ok_or("a damaged pax header")?;
        let len: usize = std::str::from_utf8(&rest[..space])
            .ok()
            .and_then(|s| s.parse().ok())
            .filter(|&l| l > space && l <= rest.len())
            .ok_or("a damaged pax header")?;
        let record = &rest[space + 1..len];
        let record = record.strip_suffix(b"\n").unwrap_or(record);
        if let Some(path) = record.strip_prefix(b"path=") {
            return text(path).map(Some);
        }
        rest = &rest[len..];
    }
    Ok(None)
}

/// The content of a Gzip stream (RFC 1952): its header skipped, the
/// deflate data inflated within the archive limit.
fn gunzip(bytes: &[u8], most: u64) -> Result<Vec<u8>, String> {
    let damaged = || "a damaged Gzip stream".to_string();
    if bytes.len() < 18 || bytes[2] != 8 {
        return Err(damaged());
    }
    let flags = bytes[3];
    let mut pos = 10;
    if flags & 4 != 0 {
        let xlen = usize::from(u16::from_le_bytes([
            *bytes.get(pos).ok_or_else(damaged)?,
            *bytes.get(pos + 1).ok_or_else(damaged)?,
        ]));
        pos += 2 + xlen;
    }
    for flag in [8, 16] {
        if flags & flag != 0 {
            let nul = bytes
                .get(pos..)
                .and_then(|r| r.iter().position(|&b| b == 0))
                .ok_or_else(damaged)?;
            pos += nul + 1;
        }
    }
    if flags & 2 != 0 {
        pos += 2;
    }
    let stream = bytes.get(pos..).ok_or_else(damaged)?;
    let limit = usize::try_from(most).unwrap_or(usize::MAX);
    miniz_oxide::inflate::decompress_to_vec_with_limit(stream, limit)
        .map_err(|_| format!("the tarball is damaged, or {}", too_large(most)))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A UStar header block for a file `name` of `size` bytes.
    fn header(name: &str, size: usize, kind: u8) -> Vec<u8> {
        let mut h = vec![0u8; BLOCK];
        h[..name.len()].copy_from_slice(name.as_bytes());
        h[100..107].copy_from_slice(b"0000644");
        h[124..135].copy_from_slice(format!("{size:011o}").as_bytes());
        h[136..147].copy_from_slice(b"00000000000");
        h[156] = kind;
        h[257..263].copy_from_slice(b"ustar\0");
        h[263..265].copy_from_slice(b"00");
        let sum = header_sum(&h);
        h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
        h
    }

    /// A plain tarball of `entries` (name, content), as `tar -C dir .`
    /// writes it.
    pub(crate) fn tar(entries: &[(&str, &str)]) -> Vec<u8> {
        let mut out = header("./", 0, b'5');
        for (name, content) in entries {
            out.extend(header(name, content.len(), b'0'));
            let mut data = content.as_bytes().to_vec();
            data.resize(content.len().div_ceil(BLOCK) * BLOCK, 0);
            out.extend(data);
        }
        out.extend(vec![0u8; 2 * BLOCK]);
        out
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
        let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
        out.extend(miniz_oxide::deflate::compress_to_vec(data, 6));
        out.extend(0u32.to_le_bytes()); // the trailer is not checked
        out.extend((data.len() as u32).to_le_bytes());
        out
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
        assert!(read(&bytes, LIMITS).unwrap_err().contains("checksum"));
        let mut link = header("l", 0, b'2');
        link.extend(vec![0u8; 2 * BLOCK]);
        assert!(read(&link, LIMITS).unwrap_err().contains("is a link"));
        let truncated = &tar(&[("t.yaml", "a: 1\n")])[..BLOCK * 2 + 2];
        assert!(read(truncated, LIMITS).is_err());
        let many: Vec<(String, &str)> = (0..11).map(|i| (format!("f{i}"), "")).collect();
        let many: Vec<(&str, &str)> = many.iter().map(|(n, c)| (n.as_str(), *c)).collect();
        assert!(read(&tar(&many), LIMITS)
            .unwrap_err()
            .contains("more than 10 entries"));
    }

    #[test]
    fn pax_paths_name_the_next_entry() {
        let long = format!("{}/t.yaml", "d".repeat(120));
        let record = format!(" path={long}\n");
        let record = format!("{}{record}", record.len() + 3); // 3 digits of length
        let mut bytes = header("PaxHeader", record.len(), b'x');
        let mut data = record.into_bytes();
        data.resize(BLOCK, 0);
        bytes.extend(data);
        bytes.extend(tar(&[("short", "a: 1\n")])[BLOCK..].to_vec());
        let files = read(&bytes, LIMITS).unwrap();
        assert_eq!(get(&files, &long), Some(&b"a: 1\n"[..]));
    }
}
