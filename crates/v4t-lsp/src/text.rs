//! Positions: LSP positions (0-based lines, UTF-16 code units) against the
//! library's spans (byte ranges), edits of open buffers, and `file:` URIs.

use std::path::{Path, PathBuf};

use lsp_types::{Position, Range, TextDocumentContentChangeEvent};
use v4t::Span;

/// The byte offset of `pos` in `text` (clamped to the line's end and the
/// text's end).
pub(crate) fn offset(text: &str, pos: Position) -> usize {
    let mut start = 0;
    for _ in 0..pos.line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let line = text[start..].split('\n').next().unwrap_or_default();
    let mut units = 0u32;
    for (i, c) in line.char_indices() {
        if units >= pos.character {
            return start + i;
        }
        units += c.len_utf16() as u32;
    }
    start + line.len()
}

/// The LSP position of byte offset `at` in `text`.
pub(crate) fn position(text: &str, at: usize) -> Position {
    let at = floor_char(text, at.min(text.len()));
    let before = &text[..at];
    let line = before.matches('\n').count() as u32;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let character = before[line_start..]
        .chars()
        .map(|c| c.len_utf16() as u32)
        .sum();
    Position { line, character }
}

/// The largest char boundary at or before `at`.
fn floor_char(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The LSP range of `span` in `text` (the start of the text for unknown
/// spans).
pub(crate) fn range(text: &str, span: Span) -> Range {
    if !span.is_known() {
        return Range::default();
    }
    let start = span.start as usize;
    let end = (span.end as usize).max(start);
    Range {
        start: position(text, start),
        end: position(text, end),
    }
}

/// Whether `span` contains byte offset `at` (end inclusive, so a cursor
/// right after a word is on it).
pub(crate) fn contains(span: Span, at: usize) -> bool {
    span.is_known() && span.start as usize <= at && at <= span.end as usize
}

/// Applies one change of `textDocument/didChange` (a range, or the whole
/// text).
pub(crate) fn apply(text: &mut String, change: TextDocumentContentChangeEvent) {
    match change.range {
        Some(r) => {
            let start = offset(text, r.start);
            let end = offset(text, r.end).max(start);
            text.replace_range(start..end, &change.text);
        }
        None => *text = change.text,
    }
}

/// The file path of a `file:` URI (`None` for other schemes).
pub(crate) fn uri_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file://host/path`: only the local host (empty or `localhost`).
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok().map(PathBuf::from)
}

/// The `file:` URI of an absolute path.
pub(crate) fn path_uri(path: &Path) -> String {
    let mut out = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `a/b/../c` → `a/c`, lexically (paths of open buffers and of files
/// the loader is asked for are compared this way).
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let text = "a: 😀x\nbé: 1\n";
        // `x` is after a surrogate pair: UTF-16 column 5, character column 5 (1-based 5).
        let at = offset(text, Position::new(0, 5));
        assert_eq!(&text[at..at + 1], "x");
        assert_eq!(position(text, at), Position::new(0, 5));
        let x = Span::bytes(v4t::SourceId(0), at as u32, at as u32 + 1);
        assert_eq!(
            range(text, x),
            Range::new(Position::new(0, 5), Position::new(0, 6))
        );
        assert!(contains(x, at) && contains(x, at + 1) && !contains(x, at + 2));
        // Past the end of a line: clamped.
        assert_eq!(offset(text, Position::new(1, 99)), text.len() - 1);
        assert_eq!(offset(text, Position::new(9, 0)), text.len());
    }

    #[test]
    fn edits_apply_in_utf16() {
        let mut text = String::from("é: 1\nb: 2\n");
        let change = TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(0, 3), Position::new(1, 1))),
            range_length: None,
            text: "x\nc".into(),
        };
        apply(&mut text, change);
        assert_eq!(text, "é: x\nc: 2\n");
    }

    #[test]
    fn uris_round_trip() {
        let p = Path::new("/tmp/a b/ü.yaml");
        let uri = path_uri(p);
        assert_eq!(uri, "file:///tmp/a%20b/%C3%BC.yaml");
        assert_eq!(uri_path(&uri).as_deref(), Some(p));
        assert_eq!(uri_path("untitled:1"), None);
        assert_eq!(normalize(Path::new("/a/b/../c/./d")), Path::new("/a/c/d"));
    }
}
