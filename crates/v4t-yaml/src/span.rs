//! Where a node was written: [`Span`]s are byte ranges into their source
//! text, 12 bytes on every node and key of a tree that holds millions of
//! them; lines and columns ([`Location`]) are computed from the text when a
//! diagnostic, an editor or a report shows them ([`LineIndex`]).

use std::fmt;

/// Identifies one loaded source text (a template, an inputs file, a `lib/` type file ...).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceId(pub u32);

/// Where a node was written: its source and the byte range it covers. The
/// start is the offset of the node's first byte, the end the offset just
/// after its last one (exclusive), so a scalar `abc` at offset 3 ends at 6.
/// An empty scalar (`key:` with nothing after it) has a zero-width span. A
/// block collection ends where its last entry ends, a flow collection after
/// its closing bracket.
///
/// Nodes created by the processor (not read from a file) carry
/// [`Span::NONE`], which is also the default. Diagnostics that point at a
/// position rather than a node use a zero-width [`Span::at`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    /// The text the node was read from.
    pub source: SourceId,
    /// Byte offset of the first byte.
    pub start: u32,
    /// Byte offset after the last byte.
    pub end: u32,
}

impl Default for Span {
    fn default() -> Span {
        Span::NONE
    }
}

impl Span {
    /// The span of synthesized nodes.
    pub const NONE: Span = Span {
        source: SourceId(u32::MAX),
        start: u32::MAX,
        end: u32::MAX,
    };

    /// A zero-width span at byte `offset` (a position, e.g. of a syntax error).
    #[inline]
    pub fn at(source: SourceId, offset: u32) -> Span {
        Span {
            source,
            start: offset,
            end: offset,
        }
    }

    /// The span of the bytes `start..end`.
    #[inline]
    pub fn bytes(source: SourceId, start: u32, end: u32) -> Span {
        Span { source, start, end }
    }

    /// Whether this span points into a real source.
    #[inline]
    pub fn is_known(&self) -> bool {
        self.start != u32::MAX
    }

    /// `self` if known, otherwise `other`.
    pub fn or(self, other: Span) -> Span {
        if self.is_known() {
            self
        } else {
            other
        }
    }

    /// The zero-width span at this span's start.
    pub fn start_point(self) -> Span {
        Span::at(self.source, self.start)
    }

    /// The zero-width span at this span's end.
    pub fn end_point(self) -> Span {
        Span::at(self.source, self.end)
    }

    /// The byte range (empty for [`Span::NONE`]).
    pub fn range(&self) -> std::ops::Range<usize> {
        if self.is_known() {
            self.start as usize..self.end.max(self.start) as usize
        } else {
            0..0
        }
    }

    /// This span extended to end where `other` ends, if `other` is in the
    /// same source and ends later.
    #[inline]
    pub fn to(self, other: Span) -> Span {
        if !self.is_known() {
            return other;
        }
        if other.source == self.source && other.is_known() && other.end > self.end {
            Span {
                end: other.end,
                ..self
            }
        } else {
            self
        }
    }

    /// Lines and columns of this span in `text`, its source. This scans the
    /// text up to the span; to locate many spans of one text, build a
    /// [`LineIndex`] once.
    pub fn locate(&self, text: &str) -> Location {
        LineIndex::new(text).locate(text, *self)
    }
}

/// `n` as a `u32`, saturated: offsets, lines and columns of texts up to
/// 4 GiB (larger ones are refused long before; never panics).
#[inline]
pub(crate) fn clamp_u32(n: usize) -> u32 {
    n.min(u32::MAX as usize) as u32
}

/// A [`Span`] as people read it: 1-based lines and columns, columns
/// counting characters. The end is the position after the last character
/// (exclusive), so `abc` at 1:4 ends at 1:7. [`Location::NONE`] (all zero)
/// for spans that are not known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Location {
    /// Line of the first character.
    pub line: u32,
    /// Column of the first character.
    pub col: u32,
    /// Line of the position after the last character.
    pub end_line: u32,
    /// Column of the position after the last character.
    pub end_col: u32,
}

impl Location {
    /// The location of unknown spans.
    pub const NONE: Location = Location {
        line: 0,
        col: 0,
        end_line: 0,
        end_col: 0,
    };

    /// The start `(line, col)`.
    pub fn start(&self) -> (u32, u32) {
        (self.line, self.col)
    }

    /// The (exclusive) end `(end_line, end_col)`.
    pub fn end(&self) -> (u32, u32) {
        (self.end_line, self.end_col)
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// The byte offsets where the lines of one text start, to turn byte
/// offsets into lines and columns and back: `u32`s in a table of exactly
/// the line count (a 50 MB template has two million lines; lines starting
/// past 4 GiB have no offset).
#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    /// Byte offset of the start of each line (the first is 0).
    starts: Vec<u32>,
    /// Whether the text is ASCII (columns are then byte distances).
    ascii: bool,
}

impl LineIndex {
    /// The index of `text`.
    pub fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let breaks = memchr::memchr_iter(b'\n', bytes).count();
        let mut starts = Vec::with_capacity(breaks + 1);
        starts.extend(
            std::iter::once(0)
                .chain(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1))
                .map_while(|start| u32::try_from(start).ok()),
        );
        LineIndex {
            starts,
            ascii: text.is_ascii(),
        }
    }

    /// The 1-based `(line, column)` of byte `offset` in `text` (the text
    /// this index was built from); an offset past the end is at the end.
    pub fn position(&self, text: &str, offset: u32) -> (u32, u32) {
        let offset = offset.min(clamp_u32(text.len()));
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts.get(line - 1).copied().unwrap_or(0);
        let col = if self.ascii {
            offset - start
        } else {
            let chars = text
                .get(start as usize..offset as usize)
                .map_or(0, |s| s.chars().count());
            clamp_u32(chars)
        };
        (clamp_u32(line), col.saturating_add(1))
    }

    /// The lines and columns of `span` in `text`.
    pub fn locate(&self, text: &str, span: Span) -> Location {
        if !span.is_known() {
            return Location::NONE;
        }
        let (line, col) = self.position(text, span.start);
        let (end_line, end_col) = if span.end == span.start {
            (line, col)
        } else {
            self.position(text, span.end.max(span.start))
        };
        Location {
            line,
            col,
            end_line,
            end_col,
        }
    }

    /// The byte offset of 1-based `line` and character column `col` in
    /// `text`; a column past the end of its line is the line's end. `None`
    /// for a line the text does not have and for column 0.
    pub fn offset(&self, text: &str, line: u32, col: u32) -> Option<u32> {
        let start = *self
            .starts
            .get(usize::try_from(line).ok()?.checked_sub(1)?)?;
        let rest = text.get(start as usize..)?;
        let line_len = rest.find('\n').unwrap_or(rest.len());
        let skip = usize::try_from(col).ok()?.checked_sub(1)?;
        let within = if self.ascii {
            skip.min(line_len)
        } else {
            rest[..line_len]
                .char_indices()
                .nth(skip)
                .map_or(line_len, |(i, _)| i)
        };
        u32::try_from(start as usize + within).ok()
    }

    /// The byte offset where 1-based `line` starts.
    pub fn line_start(&self, line: u32) -> Option<u32> {
        let i = usize::try_from(line).ok()?.checked_sub(1)?;
        self.starts.get(i).copied()
    }

    /// The number of lines.
    pub fn lines(&self) -> usize {
        self.starts.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_are_twelve_bytes() {
        assert_eq!(std::mem::size_of::<Span>(), 12);
    }

    #[test]
    fn spans_extend_to_later_ends_in_the_same_source() {
        let a = Span::bytes(SourceId(1), 3, 9);
        let b = Span::bytes(SourceId(1), 20, 30);
        assert_eq!(a.to(b), Span::bytes(SourceId(1), 3, 30));
        assert_eq!(b.to(a), b);
        assert_eq!(a.to(Span::NONE), a);
        assert_eq!(Span::NONE.to(a), a);
        assert_eq!(a.to(Span::bytes(SourceId(2), 40, 50)), a);
        assert_eq!(a.start_point(), Span::at(SourceId(1), 3));
        assert_eq!(a.end_point(), Span::at(SourceId(1), 9));
        assert_eq!(Span::default(), Span::NONE);
        assert!(!Span::NONE.is_known() && Span::at(SourceId(0), 0).is_known());
        assert_eq!((a.range(), Span::NONE.range()), (3..9, 0..0));
    }

    #[test]
    fn locations_count_lines_and_characters() {
        let text = "a: 1\nné: [x, y]\n\nlast";
        let index = LineIndex::new(text);
        let at = |s: &str| u32::try_from(text.find(s).unwrap()).unwrap();
        // `[x, y]` on line 2 starts at character 5 (byte 8: `é` is two).
        let list = Span::bytes(SourceId(0), at("[x"), at("[x") + 6);
        let loc = index.locate(text, list);
        assert_eq!((loc.start(), loc.end()), ((2, 5), (2, 11)));
        assert_eq!(loc.to_string(), "2:5");
        assert_eq!(list.locate(text), loc);
        assert_eq!(index.offset(text, 2, 5), Some(at("[x")));
        // Across lines, at a line start, at the end and past it.
        let all = Span::bytes(SourceId(0), 0, u32::try_from(text.len()).unwrap());
        assert_eq!(index.locate(text, all).end(), (4, 5));
        assert_eq!(index.position(text, at("last")), (4, 1));
        assert_eq!(index.position(text, 10_000), (4, 5));
        assert_eq!(index.offset(text, 3, 7), Some(at("\nlast")));
        assert_eq!(index.offset(text, 9, 1), None);
        assert_eq!(index.offset(text, 1, 0), None);
        assert_eq!(index.locate(text, Span::NONE), Location::NONE);
        assert_eq!(index.lines(), 4);
    }

    #[test]
    fn offsets_and_positions_are_inverse() {
        for text in ["", "x", "a\nbc\n", "ä: ü\n  - ß€\n\n", "\n\n"] {
            let index = LineIndex::new(text);
            for (offset, _) in text.char_indices().chain([(text.len(), ' ')]) {
                let offset = u32::try_from(offset).unwrap();
                let (line, col) = index.position(text, offset);
                assert_eq!(
                    index.offset(text, line, col),
                    Some(offset),
                    "{text:?} {offset}"
                );
            }
        }
    }
}
