//! What js-yaml (the reference's parser) accepts and `saphyr-parser`
//! does not, for the saphyr path.
//!
//! *Quoted scalars whose continuation lines are under-indented.* YAML 1.2
//! requires the continuation lines of a quoted scalar to be indented more
//! than the block collection around it, so `saphyr-parser` rejects
//!
//! ```yaml
//! description: "A multiline description
//! using a quoted string"
//! ```
//!
//! with "invalid indentation in quoted scalar". js-yaml 4 (the reference's
//! parser) and libyaml accept continuation lines in any column: only a
//! document marker (`---`, `...`) at the start of a line ends the document
//! inside the scalar. Folding drops the leading blanks of continuation
//! lines, so indenting them changes no value. [`Indented`] does that for
//! the scalar saphyr stopped at, then the caller reads the text again (one
//! more read per such scalar, within a budget), and maps the spans of the
//! result back to the text as written.
//!
//! *Flow collections whose lines are under-indented.* saphyr rejects
//!
//! ```yaml
//! metadata: {owner: ops,
//! tier: web}
//! ```
//!
//! ("invalid indentation", "invalid indentation in flow construct", or a
//! tab there), as YAML 1.2 asks; js-yaml 4 and libyaml read it. Leading
//! blanks inside a flow collection only separate tokens or are dropped by
//! folding, so [`Indented::indent_flow`] indents the lines of the
//! outermost open collection up to where saphyr stopped, right of its
//! bracket, and the text is read again as for quoted scalars. A line that
//! would continue a plain scalar is left alone: js-yaml ends the scalar
//! before it and fails, and so does the parser where saphyr reads it (see
//! `plain_lines_in_flow` in `parse.rs`).
//!
//! *A `:` right before the `[` or `{` of a value in a flow collection*
//! (`{get_attr:[a, b]}`, common in OpenStack Heat templates): js-yaml and
//! libyaml end the key at the `:`, saphyr stops with "':' may not precede
//! any of `[{` in flow mapping". [`Indented::space_after_colon`] puts a
//! space after it and the text is read again, spans mapped back.
//!
//! *A `-` after blanks inside a plain scalar of a flow collection, before
//! `,[]{}`* (`[a -]`, `{k: [0.5 -, 1]}`): YAML 1.2 and js-yaml read
//! `a -`, saphyr stops with "plain scalar cannot start with '-' followed by
//! ,[]{}" as if the `-` began a scalar. [`Indented::replace_dash`] puts a
//! byte the text does not hold in its place (same length: spans stay), the
//! text is read again, and [`Indented::restore`] puts the `-` back into the
//! plain scalars and keys; where a node starts at the `-` (it began a
//! scalar, `[a, -]`), the error stands, as in js-yaml.

use std::collections::BTreeMap;

use crate::value::{Form, KeyName, Node, Span, Value};

/// Total bytes the saphyr path reads again for the changes of this module
/// (at least [`MIN_REREADS`] reads of any text): one read per change, so a
/// hostile text full of them stays linear.
const MAX_REREAD_BYTES: usize = 256 << 20;

/// Reads again allowed even for texts larger than [`MAX_REREAD_BYTES`].
const MIN_REREADS: usize = 8;

/// A text with spaces inserted (under-indented lines of quoted scalars and
/// flow collections, after a `:`) and `-`s replaced, and how to map
/// positions in it back to the original.
pub(crate) struct Indented<'t> {
    original: &'t str,
    /// The changed text, once something has been changed.
    text: Option<String>,
    /// Spaces inserted, by the offset in the original text they stand
    /// before (at line starts, and after a `:`; a line keeps its number).
    inserted: BTreeMap<u32, u32>,
    rereads: usize,
    /// How often the text may be changed (read again).
    limit: usize,
    /// The byte standing in for each `-` of [`Indented::replace_dash`]
    /// (one the original text does not hold), once one is replaced.
    stand_in: Option<u8>,
    /// Where each replaced `-` is, in the original text.
    dashes: Vec<u32>,
}

/// Bytes that may stand in for a `-` inside a plain scalar: none is an
/// indicator there or changes how the scalar resolves, and none appears in
/// the texts of parse errors.
const STAND_INS: &[u8] = b"^~$;=+<>\\()";

impl<'t> Indented<'t> {
    pub(crate) fn new(original: &'t str) -> Indented<'t> {
        Indented {
            original,
            text: None,
            inserted: BTreeMap::new(),
            rereads: 0,
            limit: MIN_REREADS.max(MAX_REREAD_BYTES / original.len().max(1)),
            stand_in: None,
            dashes: Vec::new(),
        }
    }

    /// The text to read.
    pub(crate) fn text(&self) -> &str {
        self.text.as_deref().unwrap_or(self.original)
    }

    /// Indents the under-indented continuation lines of the quoted scalar
    /// whose opening quote is at byte `quote` of [`Self::text`] to the
    /// quote's column. `Err(None)` if there is nothing to indent (the error
    /// has another cause), `Err(Some(limit))` if the text has been read
    /// again `limit` times already.
    pub(crate) fn indent_quoted(&mut self, quote: usize) -> Result<(), Option<usize>> {
        let text = self.text.as_deref().unwrap_or(self.original);
        let column = column_of(text, quote).ok_or(None)?;
        // (byte offset of a line start, spaces to insert there)
        let mut insertions: Vec<(usize, usize)> = Vec::new();
        scan_quoted(text.as_bytes(), quote, |start, spaces, blank| {
            if !blank && spaces < column {
                insertions.push((start, column - spaces));
            }
        });
        self.insert(&insertions)
    }

    /// Indents the lines of the flow collection whose opening bracket is
    /// at byte `open` of [`Self::text`], up to the line of byte `at` (where
    /// saphyr stopped), to one column right of the bracket: js-yaml and
    /// libyaml read flow collections whose lines are indented no more than
    /// the block around them (or with a tab in its indentation). Leading
    /// blanks only separate tokens there or are dropped by folding, so this
    /// changes no value. A line that would continue a plain scalar stays as
    /// it is (js-yaml ends the scalar before it and fails). `Err(None)` if
    /// there is nothing to indent or a document marker starts a line on the
    /// way (the error stands), `Err(Some(limit))` if the text has been read
    /// again `limit` times already.
    pub(crate) fn indent_flow(&mut self, open: usize, at: usize) -> Result<(), Option<usize>> {
        let text = self.text();
        let b = text.as_bytes();
        let column = column_of(text, open).ok_or(None)? + 1;
        // (byte offset of a line start, spaces to insert there)
        let mut insertions: Vec<(usize, usize)> = Vec::new();
        let mut indent = |start: usize, spaces: usize, blank: bool| {
            if !blank && spaces < column {
                insertions.push((start, column - spaces));
            }
        };
        // Whether the last token is a plain scalar (or a node property)
        // that a next line would continue.
        let mut plain = false;
        let mut i = open;
        while i < at {
            match *b.get(i).ok_or(None)? {
                b'\n' => {
                    let start = i + 1;
                    let rest = b.get(start..).unwrap_or_default();
                    if starts_with_marker(rest) {
                        return Err(None);
                    }
                    let spaces = rest.iter().take_while(|&&c| c == b' ').count();
                    // A line that starts with an indicator or a comment
                    // continues no scalar.
                    let continues = plain
                        && !matches!(rest.get(spaces), Some(b',' | b']' | b'}' | b'#' | b'\t'));
                    if !continues {
                        indent(start, spaces, is_blank_line(rest, spaces));
                    }
                    i = start;
                }
                b'#' if matches!(b.get(i.wrapping_sub(1)), Some(b' ' | b'\t' | b'\n')) => {
                    while b.get(i).is_some_and(|&c| c != b'\n') {
                        i += 1;
                    }
                }
                b'"' | b'\'' if !plain => {
                    let close = scan_quoted(b, i, |start, spaces, blank| {
                        indent(start, spaces, blank);
                    })
                    .ok_or(None)?;
                    i = close + 1;
                }
                b' ' | b'\t' | b'\r' => i += 1,
                b',' | b'[' | b']' | b'{' | b'}' => {
                    plain = false;
                    i += 1;
                }
                c @ (b':' | b'?')
                    if matches!(b.get(i + 1), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
                        || (c == b':' && !plain) =>
                {
                    plain = false;
                    i += 1;
                }
                _ => {
                    plain = true;
                    i += 1;
                }
            }
        }
        self.insert(&insertions)
    }

    /// Inserts `n` spaces at byte `at` of [`Self::text`] for each
    /// `(at, n)` of `insertions` (in text order), for the next read.
    /// `Err(None)` if there are none, `Err(Some(limit))` if the text has
    /// been read again `limit` times already.
    fn insert(&mut self, insertions: &[(usize, usize)]) -> Result<(), Option<usize>> {
        if insertions.is_empty() {
            return Err(None);
        }
        if self.rereads >= self.limit {
            return Err(Some(self.limit));
        }
        let remap = self.remap();
        let text = self.text.as_deref().unwrap_or(self.original);
        let added: usize = insertions.iter().map(|(_, n)| n).sum();
        let mut out = String::with_capacity(text.len() + added);
        let mut from = 0;
        for &(at, n) in insertions {
            out.push_str(text.get(from..at).unwrap_or_default());
            out.extend(std::iter::repeat_n(' ', n));
            from = at;
            // Where it stands in the original text (spaces inserted there
            // before too, at a line start, are the same place).
            let original = remap.offset(u32::try_from(at).unwrap_or(u32::MAX));
            let n = u32::try_from(n).unwrap_or(u32::MAX);
            let entry = self.inserted.entry(original).or_insert(0);
            *entry = entry.saturating_add(n);
        }
        out.push_str(text.get(from..).unwrap_or_default());
        self.text = Some(out);
        self.rereads += 1;
        Ok(())
    }

    /// Puts a space after the `:` at byte `at` of [`Self::text`], which
    /// saphyr rejected before the `[` or `{` of a value (`{get_attr:[a,
    /// b]}`: js-yaml and libyaml read the key `get_attr`). `Err(None)` if
    /// no `[` or `{` follows a `:` there, `Err(Some(limit))` if the text has
    /// been read again `limit` times already.
    pub(crate) fn space_after_colon(&mut self, at: usize) -> Result<(), Option<usize>> {
        let b = self.text().as_bytes();
        if b.get(at) != Some(&b':') || !matches!(b.get(at + 1), Some(b'[' | b'{')) {
            return Err(None);
        }
        self.insert(&[(at + 1, 1)])
    }

    /// Puts a stand-in for the `-` at byte `at` of [`Self::text`], which
    /// saphyr took for the start of a plain scalar before `,[]{}`.
    /// `Err(None)` if it is no `-` after a blank or the original text
    /// holds every stand-in, `Err(Some(limit))` if the text has been read
    /// again `limit` times already.
    pub(crate) fn replace_dash(&mut self, at: usize) -> Result<(), Option<usize>> {
        let text = self.text.as_deref().unwrap_or(self.original).as_bytes();
        let after_blank = at.checked_sub(1).and_then(|i| text.get(i));
        if text.get(at) != Some(&b'-') || !matches!(after_blank, Some(b' ' | b'\t' | b'\n' | b'\r'))
        {
            return Err(None);
        }
        let original = self.original.as_bytes();
        let stand_in = match self.stand_in {
            Some(b) => b,
            None => *STAND_INS
                .iter()
                .find(|b| !original.contains(b))
                .ok_or(None)?,
        };
        if self.rereads >= self.limit {
            return Err(Some(self.limit));
        }
        let at_original = self.remap().offset(u32::try_from(at).map_err(|_| None)?);
        let mut text = self
            .text
            .take()
            .unwrap_or_else(|| self.original.to_string());
        // One ASCII byte for another (`at` is a `-`): spans stay.
        text.replace_range(at..=at, char::from(stand_in).encode_utf8(&mut [0; 4]));
        self.text = Some(text);
        self.stand_in = Some(stand_in);
        self.dashes.push(at_original);
        self.rereads += 1;
        Ok(())
    }

    /// Puts the `-`s of [`Self::replace_dash`] back into the plain scalars
    /// and keys of `root` (spans already mapped back) and into `messages`;
    /// `Err(())` if a node or key starts at one of them (the `-` began a
    /// scalar: the error saphyr reported stands).
    pub(crate) fn restore<'m>(
        &self,
        root: &mut Node,
        messages: impl Iterator<Item = &'m mut String>,
    ) -> Result<(), ()> {
        let Some(stand_in) = self.stand_in.map(char::from) else {
            return Ok(());
        };
        let starts_at_dash = |span: &Span| span.is_known() && self.dashes.contains(&span.start);
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            if starts_at_dash(&node.span) {
                return Err(());
            }
            match &mut node.value {
                Value::String(text) if node.form == Form::Plain && text.contains(stand_in) => {
                    *text = text.replace(stand_in, "-");
                }
                Value::Seq(items) => stack.extend(items.iter_mut()),
                Value::Map(map) => {
                    if map.entries().iter().any(|(k, _)| starts_at_dash(&k.span)) {
                        return Err(());
                    }
                    if map.keys().any(|k| k.contains(stand_in)) {
                        let entries = std::mem::take(map).into_entries();
                        for (mut key, value) in entries {
                            if key.name.contains(stand_in) && key.tree().is_none() {
                                key.name = KeyName::from(key.name.replace(stand_in, "-"));
                            }
                            map.push(key, value);
                        }
                    }
                    for (key, value) in map.entries_mut() {
                        if let Some(complex) = key.tree_mut() {
                            stack.push(complex);
                        }
                        stack.push(value);
                    }
                }
                _ => {}
            }
        }
        for message in messages {
            if message.contains(stand_in) {
                *message = message.replace(stand_in, "-");
            }
        }
        Ok(())
    }

    /// How to map spans of [`Self::text`] back to the original text.
    pub(crate) fn remap(&self) -> Remap {
        let mut before = 0u32;
        let shifts = self
            .inserted
            .iter()
            .map(|(&original, &n)| {
                let shift = (original.saturating_add(before), n, before);
                before = before.saturating_add(n);
                shift
            })
            .collect();
        Remap { shifts }
    }
}

/// Maps byte offsets of an [`Indented`] text back to the original text
/// ([`Indented::remap`]).
#[derive(Default)]
pub(crate) struct Remap {
    /// For each place with inserted spaces, in order: where they start in
    /// the indented text, how many, and how many were inserted before.
    shifts: Vec<(u32, u32, u32)>,
}

impl Remap {
    /// The original offset of `offset`; a position in inserted spaces is
    /// the place they were inserted at (the start of a line, after a `:`).
    fn offset(&self, offset: u32) -> u32 {
        let i = self
            .shifts
            .partition_point(|&(start, _, _)| start <= offset);
        let Some(&(start, n, before)) = i.checked_sub(1).and_then(|i| self.shifts.get(i)) else {
            return offset;
        };
        if offset >= start.saturating_add(n) {
            offset - before - n
        } else {
            start - before
        }
    }

    /// Maps `span` back.
    pub(crate) fn span(&self, span: &mut Span) {
        if self.shifts.is_empty() || !span.is_known() {
            return;
        }
        span.start = self.offset(span.start);
        span.end = self.offset(span.end);
    }

    /// [`Remap::span`] for every node and key of a tree.
    pub(crate) fn tree(&self, root: &mut Node) {
        if self.shifts.is_empty() {
            return;
        }
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            self.span(&mut node.span);
            match &mut node.value {
                Value::Seq(items) => stack.extend(items.iter_mut()),
                Value::Map(map) => {
                    for (key, value) in map.entries_mut() {
                        self.span(&mut key.span);
                        if let Some(complex) = key.tree_mut() {
                            stack.push(complex);
                        }
                        stack.push(value);
                    }
                }
                _ => {}
            }
        }
    }
}

/// Scans the quoted scalar whose opening quote is at byte `quote` of `b`;
/// calls `line(start, spaces, blank)` for each continuation line (its byte
/// offset, its leading spaces, whether it holds only spaces). Returns the
/// offset of the closing quote, `None` if the scalar does not end (or a
/// document marker ends the document first).
fn scan_quoted(b: &[u8], quote: usize, mut line: impl FnMut(usize, usize, bool)) -> Option<usize> {
    let quote_char = *b.get(quote).filter(|c| matches!(c, b'"' | b'\''))?;
    let mut i = quote + 1;
    loop {
        match *b.get(i)? {
            b'\\' if quote_char == b'"' => {
                // An escaped line break still starts a continuation line.
                i += if matches!(b.get(i + 1), Some(b'\n' | b'\r')) {
                    1
                } else {
                    2
                };
            }
            b'\'' if quote_char == b'\'' && b.get(i + 1) == Some(&b'\'') => i += 2,
            c if c == quote_char => return Some(i),
            b'\n' => {
                let start = i + 1;
                let rest = b.get(start..).unwrap_or_default();
                if starts_with_marker(rest) {
                    return None;
                }
                let spaces = rest.iter().take_while(|&&c| c == b' ').count();
                line(start, spaces, is_blank_line(rest, spaces));
                i = start + spaces;
            }
            _ => i += 1,
        }
    }
}

/// The column (in characters) of byte `at` of `text`; `None` if `at` is
/// not a character boundary of it.
fn column_of(text: &str, at: usize) -> Option<usize> {
    let before = text.get(..at)?;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Some(before.get(line_start..).map_or(0, |l| l.chars().count()))
}

/// Whether a line (`rest`, from its start) begins with a document marker
/// (`---` or `...` and a blank), which ends the document wherever it stands.
fn starts_with_marker(rest: &[u8]) -> bool {
    (rest.starts_with(b"---") || rest.starts_with(b"..."))
        && matches!(rest.get(3), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
}

/// Whether a line (`rest`, from its start) holds only its `spaces` leading
/// spaces.
fn is_blank_line(rest: &[u8], spaces: usize) -> bool {
    match rest.get(spaces) {
        None | Some(b'\n') => true,
        Some(b'\r') => matches!(rest.get(spaces + 1), None | Some(b'\n')),
        _ => false,
    }
}

/// The opening quote of the quoted scalar that contains byte `at`, looked
/// for from byte `from` on (the end of the last complete token): saphyr
/// reports a tab in the leading blanks of an under-indented line where the
/// tab is, not where the scalar starts. Between `from` and the scalar only
/// indicators, node properties, comments and complete quoted scalars can
/// stand; `None` if no quoted scalar from there contains `at`.
pub(crate) fn enclosing_quote(text: &str, from: usize, at: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = from;
    while i < at {
        match *b.get(i)? {
            b' ' | b'\t' | b'\r' | b'\n' | b',' | b'[' | b']' | b'{' | b'}' | b':' | b'-'
            | b'?' => i += 1,
            b'#' => {
                while b.get(i).is_some_and(|&c| c != b'\n') {
                    i += 1;
                }
            }
            b'"' | b'\'' => match scan_quoted(b, i, |_, _, _| {}) {
                Some(close) if close < at => i = close + 1,
                _ => return Some(i),
            },
            // Anchors, tags, aliases: up to a blank or flow indicator.
            _ => {
                while b.get(i).is_some_and(|c| !b" \t\r\n,[]{}".contains(c)) {
                    i += 1;
                }
            }
        }
    }
    None
}

/// The opening bracket of the outermost flow collection still open at
/// byte `at`, looked for from byte `from` on (the end of the last complete
/// token): saphyr may stop inside a flow collection before its parser has
/// seen the bracket (a collection that could still be a mapping key).
/// Between `from` and `at` only indicators, node properties, comments,
/// plain and complete quoted scalars stand; `None` if no bracket there is
/// still open at `at`.
pub(crate) fn enclosing_flow(text: &str, from: usize, at: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut open: Vec<usize> = Vec::new();
    // Whether a quote here would begin a quoted scalar (at the start of a
    // node), not stand inside a plain one.
    let mut node_start = true;
    let mut i = from;
    while i < at {
        let c = *b.get(i)?;
        match c {
            b'[' | b'{' => open.push(i),
            b']' | b'}' => {
                open.pop();
            }
            b'#' if node_start => {
                while b.get(i).is_some_and(|&c| c != b'\n') {
                    i += 1;
                }
                continue;
            }
            b'"' | b'\'' if node_start => {
                i = scan_quoted(b, i, |_, _, _| {}).filter(|&close| close < at)? + 1;
                node_start = false;
                continue;
            }
            _ => {}
        }
        node_start = matches!(
            c,
            b' ' | b'\t' | b'\r' | b'\n' | b',' | b'[' | b'{' | b':' | b'?' | b'-'
        );
        i += 1;
    }
    open.first().copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::SourceId;

    fn quote_after(indented: &Indented<'_>, key: &str) -> usize {
        indented
            .text()
            .find(key)
            .map_or(usize::MAX, |i| i + key.len())
    }

    #[test]
    fn continuation_lines_are_indented_to_the_quote_and_mapped_back() {
        let text = "k:\n  a: \"x\ny\n\n  \n z \\\n\tw\"\n---\n";
        let mut indented = Indented::new(text);
        assert_eq!(
            indented.indent_quoted(quote_after(&indented, "a: ")),
            Ok(())
        );
        // Lines 3 (`y`), 6 (` z`) and 7 (a tab) move to column 6; blank
        // lines stay as they are.
        assert_eq!(
            indented.text(),
            "k:\n  a: \"x\n     y\n\n  \n     z \\\n     \tw\"\n---\n"
        );
        let (new, old) = (indented.text().to_string(), text);
        let at = |t: &str, s: &str| u32::try_from(t.find(s).unwrap_or(0)).unwrap_or(0);
        // From `y` (after the inserted spaces) to after `w`.
        let remap = indented.remap();
        let mut span = Span::bytes(SourceId(0), at(&new, "y"), at(&new, "w\"") + 1);
        remap.span(&mut span);
        assert_eq!(
            span,
            Span::bytes(SourceId(0), at(old, "y"), at(old, "w\"") + 1)
        );
        let mut span = Span::at(SourceId(0), at(&new, "z"));
        remap.span(&mut span);
        assert_eq!(span, Span::at(SourceId(0), at(old, "z")));
        // A position in inserted spaces is the start of its line.
        let mut span = Span::at(SourceId(0), at(&new, "     z") + 1);
        remap.span(&mut span);
        assert_eq!(span, Span::at(SourceId(0), at(old, " z")));
        // Nothing left to indent: the error has another cause.
        assert_eq!(
            indented.indent_quoted(quote_after(&indented, "a: ")),
            Err(None)
        );
        assert_eq!(indented.indent_quoted(0), Err(None));
    }

    #[test]
    fn flow_lines_are_indented_right_of_the_bracket_up_to_the_stop() {
        // Lines 3 (`b,`), 4 (a comment), 6 (a quoted scalar's continuation)
        // and 7 (`]`) move to column 6; the blank line 5 stays; nothing
        // after the line of the stop (`c` on line 8) is touched.
        let text = "k:\n  p: [a,\nb,\n # c\n\n  'x\ny'\n]\nc: [d,\ne]\n";
        let mut indented = Indented::new(text);
        let (open, at) = (text.find('[').unwrap_or(0), text.find("]\n").unwrap_or(0));
        assert_eq!(indented.indent_flow(open, at), Ok(()));
        assert_eq!(
            indented.text(),
            "k:\n  p: [a,\n      b,\n      # c\n\n      'x\n      y'\n      ]\nc: [d,\ne]\n"
        );
        // Nothing left to indent there: the error has another cause.
        let at = indented.text().find("]\n").unwrap_or(0);
        assert_eq!(indented.indent_flow(open, at), Err(None));
        // A line that would continue a plain scalar stays (js-yaml ends the
        // scalar and fails); one that starts with an indicator does not.
        let text = "k:\n  p: [a\nb]\n";
        let mut indented = Indented::new(text);
        assert_eq!(indented.indent_flow(8, 12), Err(None));
        let text = "k:\n  p: [a\n, b]\n";
        let mut indented = Indented::new(text);
        assert_eq!(indented.indent_flow(8, 14), Ok(()));
        assert_eq!(indented.text(), "k:\n  p: [a\n      , b]\n");
        // A document marker ends the document inside the collection.
        let mut indented = Indented::new("p: [a,\n---\nb]\n");
        assert_eq!(indented.indent_flow(3, 11), Err(None));
    }

    #[test]
    fn the_enclosing_flow_is_the_outermost_bracket_still_open() {
        let text = "a: [b, {c: '[', d: [e]} # [\n  ,\nf]\n";
        let at = text.find("f]").unwrap_or(0);
        assert_eq!(enclosing_flow(text, 0, at), Some(3));
        assert_eq!(
            enclosing_flow(text, 4, at),
            None,
            "its bracket is before the scan"
        );
        assert_eq!(enclosing_flow("a: [b]\nc\n", 0, 7), None, "closed");
        assert_eq!(enclosing_flow("a: [it's,\nb]\n", 0, 10), Some(3));
    }

    #[test]
    fn document_markers_end_the_scan() {
        let text = "a: 'x\ny\n--- z\nw'\n";
        let mut indented = Indented::new(text);
        assert_eq!(indented.indent_quoted(3), Ok(()));
        assert_eq!(indented.text(), "a: 'x\n   y\n--- z\nw'\n");
    }

    #[test]
    fn rereads_are_limited() {
        let text = "a: \"x\ny\"\nb: 'x\ny'\nc: \"x\ny\"\n";
        let mut indented = Indented::new(text);
        indented.limit = 2;
        assert_eq!(
            indented.indent_quoted(quote_after(&indented, "a: ")),
            Ok(())
        );
        assert_eq!(
            indented.indent_quoted(quote_after(&indented, "b: ")),
            Ok(())
        );
        assert_eq!(
            indented.indent_quoted(quote_after(&indented, "c: ")),
            Err(Some(2))
        );
    }

    #[test]
    fn the_enclosing_quote_skips_comments_properties_and_earlier_scalars() {
        let text = "a: # it's\n  {\"k\": &x !t \"v\n\ty\"}\n";
        let tab = text.find('\t').unwrap_or(0);
        let quote = text.find("\"v").unwrap_or(0);
        assert_eq!(enclosing_quote(text, 2, tab), Some(quote));
        assert_eq!(enclosing_quote(text, 2, 5), None);
    }
}
