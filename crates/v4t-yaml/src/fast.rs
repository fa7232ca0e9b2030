//! A fast, single-pass reader for the YAML that TOSCA templates use.
//!
//! [`parse_fast`] reads block mappings and sequences (including sequences not
//! indented under their key), single-line plain scalars, single- and
//! double-quoted scalars (values in block context may continue over lines,
//! in any column, as js-yaml reads them), single-line flow collections,
//! comments, blank lines, a leading `---` and a final `...`. It builds
//! exactly the tree (values, key order and spans) that the `saphyr-parser`
//! path ([`crate::parse::parse_saphyr`]) builds, with the same scalar
//! resolution.
//!
//! Whenever it meets anything else (anchors, aliases, tags, block scalars,
//! explicit or complex keys, merge keys, multi-line plain scalars or flows,
//! directives, tabs, several documents, duplicate keys, deep nesting, any
//! syntax error or doubt) it gives up and returns `None`, and the caller
//! reruns the saphyr path, which keeps every message and rare feature as it
//! is.
//!
//! The reader is recursive but bounded: it gives up beyond [`FAST_MAX_DEPTH`]
//! nested collections (the saphyr path then applies the real limits).

use std::borrow::Cow;

use crate::doc::{Doc, DocBuilder, NodeId, PendingEntry};
use crate::scalar::{is_null, key_string, resolve_bool, resolve_plain_form, Schema};
use crate::span::clamp_u32;
use crate::value::{Form, Key, KeyNames, Map, Node, SourceId, Span, Value, INDEX_THRESHOLD};

/// Nesting depth beyond which the fast path gives up.
pub const FAST_MAX_DEPTH: usize = 200;

/// Implicit keys longer than this (in bytes) are left to the saphyr path.
const MAX_KEY_LEN: usize = 1000;

/// The fast path gave up; the caller must use the saphyr path.
#[derive(Debug)]
struct Bail;

type R<T> = Result<T, Bail>;

/// Reads `text` with the fast path; `None` when it cannot be sure.
///
/// The caller must have rejected non-printable characters already.
pub fn parse_fast(text: &str, source: SourceId) -> Option<Node> {
    parse_fast_with(text, source, Schema::JsYaml)
}

/// [`parse_fast`] with the scalar resolution of `schema`.
pub fn parse_fast_with(text: &str, source: SourceId, schema: Schema) -> Option<Node> {
    read(text, source, schema, Tree(KeyNames::new()))
}

/// [`parse_fast_with`] into a [`Doc`].
pub fn parse_fast_doc(text: &str, source: SourceId, schema: Schema) -> Option<Doc> {
    let mut builder = DocBuilder::for_text(source, text);
    let mut p = Fast::new(text, source, schema, &mut builder)?;
    let root = p.document().ok()?;
    Some(builder.finish(root))
}

fn read<S: Sink>(text: &str, source: SourceId, schema: Schema, mut sink: S) -> Option<S::Node> {
    Fast::new(text, source, schema, &mut sink)?.document().ok()
}

/// What the reader writes: an owned tree ([`Tree`]) or a [`Doc`]
/// ([`DocBuilder`]). Children are made before their parents; the entries
/// and items of the collections under construction wait on the reader's
/// stacks.
trait Sink {
    /// A node made.
    type Node;
    /// A map entry made.
    type Entry;
    /// A scalar value.
    fn scalar(&mut self, value: Value, span: Span, form: Form) -> Self::Node;
    /// A string scalar from text (not copied where the sink need not).
    fn string(&mut self, s: Cow<'_, str>, span: Span, form: Form) -> Self::Node;
    /// Where a node was written.
    fn span(&self, node: &Self::Node) -> Span;
    /// A map entry.
    fn entry(&mut self, name: &str, span: Span, value: Self::Node) -> Self::Entry;
    /// The spans of an entry's key and of its value.
    fn entry_spans(&self, entry: &Self::Entry) -> (Span, Span);
    /// An entry's key name.
    fn entry_name<'e>(&'e self, entry: &'e Self::Entry) -> &'e str;
    /// A sequence of the items `items[base..]` (taken off the stack).
    fn seq(&mut self, items: &mut Vec<Self::Node>, base: usize, span: Span) -> Self::Node;
    /// A map of the entries `entries[base..]` (taken off the stack);
    /// `None` on duplicate keys (maps of up to [`INDEX_THRESHOLD`] entries
    /// are checked by [`check_duplicate`] as they are read).
    fn map(
        &mut self,
        entries: &mut Vec<Self::Entry>,
        base: usize,
        span: Span,
    ) -> Option<Self::Node>;
}

/// Writes an owned tree, its key names shared where they repeat.
struct Tree(KeyNames);

impl Sink for Tree {
    type Node = Node;
    type Entry = (Key, Node);

    #[inline]
    fn scalar(&mut self, value: Value, span: Span, form: Form) -> Node {
        Node::scalar(value, span, form)
    }

    #[inline]
    fn string(&mut self, s: Cow<'_, str>, span: Span, form: Form) -> Node {
        Node::scalar(Value::String(s.into_owned()), span, form)
    }

    #[inline]
    fn span(&self, node: &Node) -> Span {
        node.span
    }

    #[inline]
    fn entry(&mut self, name: &str, span: Span, value: Node) -> (Key, Node) {
        (
            Key {
                name: self.0.name(name),
                span,
            },
            value,
        )
    }

    fn entry_spans(&self, (k, v): &(Key, Node)) -> (Span, Span) {
        (k.span, v.span)
    }

    #[inline]
    fn entry_name<'e>(&'e self, (k, _): &'e (Key, Node)) -> &'e str {
        &k.name
    }

    fn seq(&mut self, items: &mut Vec<Node>, base: usize, span: Span) -> Node {
        // One allocation of the final size and one copy, also for `base == 0`
        // since Rust 1.77 (`drain` would move item by item).
        Node::new(Value::Seq(items.split_off(base)), span)
    }

    fn map(&mut self, entries: &mut Vec<(Key, Node)>, base: usize, span: Span) -> Option<Node> {
        let map = Map::from_unique_entries(entries.split_off(base))?;
        Some(Node::new(Value::Map(map), span))
    }
}

impl Sink for DocBuilder {
    type Node = NodeId;
    type Entry = PendingEntry;

    #[inline]
    fn scalar(&mut self, value: Value, span: Span, form: Form) -> NodeId {
        DocBuilder::scalar(self, &value, span, form)
    }

    #[inline]
    fn string(&mut self, s: Cow<'_, str>, span: Span, form: Form) -> NodeId {
        self.string_node(&s, span, form)
    }

    #[inline]
    fn span(&self, node: &NodeId) -> Span {
        self.node_span(*node)
    }

    #[inline]
    fn entry(&mut self, name: &str, span: Span, value: NodeId) -> PendingEntry {
        DocBuilder::entry(self, name, span, value)
    }

    fn entry_spans(&self, entry: &PendingEntry) -> (Span, Span) {
        (self.entry_span(entry), self.node_span(entry.value()))
    }

    #[inline]
    fn entry_name<'e>(&'e self, entry: &'e PendingEntry) -> &'e str {
        DocBuilder::entry_name(self, entry)
    }

    fn seq(&mut self, items: &mut Vec<NodeId>, base: usize, span: Span) -> NodeId {
        let id = DocBuilder::seq(self, items.get(base..).unwrap_or_default(), span);
        items.truncate(base);
        id
    }

    fn map(&mut self, entries: &mut Vec<PendingEntry>, base: usize, span: Span) -> Option<NodeId> {
        let (id, duplicate) = self.map_of(entries.get(base..).unwrap_or_default(), span);
        entries.truncate(base);
        (!duplicate).then_some(id)
    }
}

/// Non-ASCII characters the fast path leaves to saphyr (line breaks and
/// white space of other YAML versions, byte order marks).
fn odd_char(c: char) -> bool {
    !c.is_ascii() && (c.is_whitespace() || matches!(c, '\u{85}' | '\u{feff}' | '\u{200b}'))
}

struct Fast<'t, 's, S: Sink> {
    /// Where the nodes go.
    out: &'s mut S,
    text: &'t str,
    b: &'t [u8],
    pos: usize,
    /// Line (1-based) of `pos`.
    line: u32,
    /// Byte offset where the line of `pos` starts.
    line_start: usize,
    source: SourceId,
    schema: Schema,
    depth: usize,
    /// Indentation of the content line `pos` is at (after [`Fast::next_line`]);
    /// `None` at the end of the document.
    next: Option<usize>,
    /// Whether a `...` line ended the document.
    doc_end: bool,
    /// Whether the first content line has been seen (`---` is then a new document).
    started: bool,
    /// Entries of the maps under construction (innermost last), so that each
    /// finished map gets a vector of exactly its size.
    entries: Vec<S::Entry>,
    /// Items of the sequences under construction.
    items: Vec<S::Node>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// At the end of the line or before a comment.
    End,
    /// Before a `:` that makes the scalar a key.
    Colon,
}

/// Characters a plain scalar may not start with on the fast path (indicators,
/// quotes, whitespace); `-` is decided by the caller.
fn cannot_start_plain(c: u8) -> bool {
    matches!(
        c,
        b'&' | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'%'
            | b'@'
            | b'`'
            | b'\''
            | b'"'
            | b'#'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'?'
            | b':'
            | b' '
            | b'\n'
            | b'\t'
            | b'\r'
    )
}

/// The bytes at which the scan of a plain scalar in block context stops to
/// look (everything else, spaces included, belongs to the scalar).
const BLOCK_STOPS: [bool; 256] = byte_set(b"\n:#\t\r");

/// The same for plain scalars in flow collections.
const FLOW_STOPS: [bool; 256] = byte_set(b"\n:#\t\r,[]{}");

const fn byte_set(bytes: &[u8]) -> [bool; 256] {
    let mut set = [false; 256];
    let mut i = 0;
    while i < bytes.len() {
        set[bytes[i] as usize] = true;
        i += 1;
    }
    set
}

fn is_blank_or_end(b: Option<&u8>) -> bool {
    matches!(b, None | Some(b' ' | b'\n'))
}

fn is_flow_indicator(b: u8) -> bool {
    matches!(b, b',' | b'[' | b']' | b'{' | b'}')
}

/// A plain scalar's value and form, skipping the full resolution for
/// identifiers: no number or timestamp starts with a letter or `_`, so only
/// the null and boolean words remain to be told apart.
fn plain_value(s: &str, schema: Schema) -> (Plain<'_>, Form) {
    match s.as_bytes().first() {
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
            let value = if is_null(s) {
                Plain::Other(Value::Null)
            } else if let Some(b) = resolve_bool(s) {
                Plain::Other(Value::Bool(b))
            } else {
                Plain::Str(s)
            };
            (value, Form::Plain)
        }
        _ => {
            let (value, form) = resolve_plain_form(s, schema);
            (Plain::Other(value), form)
        }
    }
}

/// A plain scalar's value: an identifier is the text itself.
enum Plain<'s> {
    Str(&'s str),
    Other(Value),
}

/// A plain key's JavaScript property name.
fn plain_key(s: &str, schema: Schema) -> R<Cow<'_, str>> {
    if s == "<<" {
        return Err(Bail);
    }
    match plain_value(s, schema).0 {
        Plain::Str(name) => Ok(Cow::Borrowed(name)),
        Plain::Other(Value::String(name)) => Ok(Cow::Owned(name)),
        Plain::Other(value) => key_string(&value).map(Cow::Owned).ok_or(Bail),
    }
}

impl<'t, 's, S: Sink> Fast<'t, 's, S> {
    /// A reader of `text` into `out`; `None` for texts the fast path leaves
    /// to saphyr.
    fn new(text: &'t str, source: SourceId, schema: Schema, out: &'s mut S) -> Option<Self> {
        if !text.is_ascii() && text.chars().any(odd_char) {
            return None;
        }
        Some(Fast {
            out,
            text,
            b: text.as_bytes(),
            pos: 0,
            line: 1,
            line_start: 0,
            source,
            schema,
            depth: 0,
            next: None,
            doc_end: false,
            started: false,
            entries: Vec::with_capacity(64),
            items: Vec::with_capacity(64),
        })
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn at(&self, i: usize) -> Option<&u8> {
        self.b.get(i)
    }

    /// The zero-width span at `pos`.
    #[inline(always)]
    fn span_at(&self, pos: usize) -> Span {
        Span::at(self.source, clamp_u32(pos))
    }

    /// The span from `start` to `end`.
    #[inline(always)]
    fn span_of(&self, start: usize, end: usize) -> Span {
        Span::bytes(self.source, clamp_u32(start), clamp_u32(end))
    }

    /// A plain scalar node from `start` to `end` on the current line.
    fn plain(&mut self, text: &str, start: usize, end: usize) -> S::Node {
        let span = self.span_of(start, end);
        match plain_value(text, self.schema) {
            (Plain::Str(s), form) => self.out.string(Cow::Borrowed(s), span, form),
            (Plain::Other(value), form) => self.out.scalar(value, span, form),
        }
    }

    /// Column (0-based, in bytes) of `pos`; only spaces and dashes precede
    /// block collection starts, so this is also the character column there.
    fn col(&self) -> usize {
        self.pos.saturating_sub(self.line_start)
    }

    fn skip_spaces(&mut self) {
        // Eight bytes at a time: indentation is a large share of the text.
        const SPACES: u64 = u64::from_ne_bytes([b' '; 8]);
        let mut i = self.pos;
        while let Some(word) = self.b.get(i..i + 8) {
            let Ok(word) = <[u8; 8]>::try_from(word) else {
                break;
            };
            let other = u64::from_le_bytes(word) ^ SPACES;
            if other != 0 {
                self.pos = i + (other.trailing_zeros() / 8) as usize;
                return;
            }
            i += 8;
        }
        while self.at(i) == Some(&b' ') {
            i += 1;
        }
        self.pos = i;
    }

    /// Finishes a line after a value: spaces, an optional comment, the line end.
    fn end_line(&mut self) -> R<()> {
        let before = self.pos;
        self.skip_spaces();
        match self.peek() {
            None | Some(b'\n') => Ok(()),
            Some(b'#') if self.pos > before => {
                self.skip_comment();
                Ok(())
            }
            _ => Err(Bail),
        }
    }

    /// Skips to the end of the line (stopping at a `\r`, which the callers reject).
    fn skip_comment(&mut self) {
        while let Some(c) = self.peek() {
            if c == b'\n' || c == b'\r' {
                break;
            }
            self.pos += 1;
        }
    }

    /// Moves from the end of a line to the next content line and sets
    /// [`Fast::next`] to its indentation (`None` at the end of the document).
    fn next_line(&mut self) -> R<()> {
        loop {
            match self.peek() {
                None => {
                    self.next = None;
                    return Ok(());
                }
                Some(b'\n') => {
                    self.pos += 1;
                    self.line = self.line.checked_add(1).ok_or(Bail)?;
                    self.line_start = self.pos;
                }
                _ => return Err(Bail),
            }
            if let Some(indent) = self.content_here()? {
                self.next = Some(indent);
                return Ok(());
            }
            if self.doc_end {
                self.next = None;
                return Ok(());
            }
        }
    }

    /// At a line start: skips indentation; returns the indentation if the
    /// line has content, `None` for blank and comment lines (left at their end).
    fn content_here(&mut self) -> R<Option<usize>> {
        self.skip_spaces();
        let indent = self.col();
        match self.peek() {
            None | Some(b'\n') => Ok(None),
            Some(b'#') => {
                self.skip_comment();
                Ok(None)
            }
            Some(b'\t' | b'\r') => Err(Bail),
            Some(b'-' | b'.') if indent == 0 => {
                let rest = self.b.get(self.pos..).unwrap_or_default();
                if rest.starts_with(b"---") && is_blank_or_end(self.at(self.pos + 3)) {
                    return if self.started { Err(Bail) } else { Ok(Some(0)) };
                }
                if rest.starts_with(b"...") && is_blank_or_end(self.at(self.pos + 3)) {
                    self.pos += 3;
                    self.end_line()?;
                    self.doc_end = true;
                    return Ok(None);
                }
                Ok(Some(indent))
            }
            Some(_) => Ok(Some(indent)),
        }
    }

    fn document(&mut self) -> R<S::Node> {
        // The first line may be `---` (alone or with a comment).
        let first = self.content_here()?;
        let mut indent = first;
        if first.is_none() && !self.doc_end {
            self.next_line()?;
            indent = self.next;
        } else if first.is_none() {
            return Err(Bail);
        }
        if indent == Some(0)
            && self
                .b
                .get(self.pos..)
                .is_some_and(|r| r.starts_with(b"---"))
        {
            if !is_blank_or_end(self.at(self.pos + 3)) {
                return Err(Bail);
            }
            self.pos += 3;
            self.end_line()?;
            self.started = true;
            self.next_line()?;
            indent = self.next;
        }
        self.started = true;
        if indent.is_none() || self.doc_end {
            return Err(Bail); // empty documents: rare, left to saphyr
        }
        self.next = indent;
        let root = self.block_node(-1)?;
        if self.next.is_some() {
            return Err(Bail);
        }
        if self.doc_end {
            // Only blank lines and comments may follow `...`.
            loop {
                match self.peek() {
                    None => break,
                    Some(b'\n') => self.pos += 1,
                    _ => {
                        self.line_start = self.pos;
                        self.doc_end = false;
                        if self.content_here()?.is_some() || self.doc_end {
                            return Err(Bail);
                        }
                    }
                }
            }
        }
        Ok(root)
    }

    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > FAST_MAX_DEPTH {
            return Err(Bail);
        }
        Ok(())
    }

    /// A block node starting at `pos` (a content position deeper than
    /// `parent`); returns with the next content line looked up.
    fn block_node(&mut self, parent: isize) -> R<S::Node> {
        let col = self.col();
        if isize::try_from(col).map_err(|_| Bail)? <= parent {
            return Err(Bail);
        }
        self.enter()?;
        let start = self.pos;
        // A scalar is read once: it is then either the first key of a map or
        // the node itself.
        let node = match self.peek() {
            Some(b'-') if is_blank_or_end(self.at(self.pos + 1)) => self.block_seq(col, false)?,
            Some(b'[' | b'{') => {
                let node = self.flow_node()?;
                self.scalar_line(node, parent)?
            }
            Some(b'"' | b'\'') => {
                let first_line = self.line;
                let span = self.span_at(start);
                let text = self.quoted(true)?;
                let after = self.pos;
                self.skip_spaces();
                if self.peek() == Some(b':') && is_blank_or_end(self.at(self.pos + 1)) {
                    if self.line != first_line {
                        return Err(Bail); // a multi-line implicit key
                    }
                    let key_span = self.span_of(start, after);
                    let colon = self.key_colon(start)?;
                    self.block_map(col, (text, key_span, colon))?
                } else {
                    self.pos = after;
                    let span = span.to(self.span_at(after));
                    let node = self.out.string(text, span, Form::Quoted);
                    self.scalar_line(node, parent)?
                }
            }
            _ => {
                let (end, stop) = self.scan_plain_block()?;
                let text = self.text.get(start..end).ok_or(Bail)?;
                match stop {
                    Stop::Colon => {
                        let name = plain_key(text, self.schema)?;
                        let key_span = self.span_of(start, end);
                        let colon = self.key_colon(start)?;
                        self.block_map(col, (name, key_span, colon))?
                    }
                    Stop::End => {
                        let node = self.plain(text, start, end);
                        self.scalar_line(node, parent)?
                    }
                }
            }
        };
        self.depth -= 1;
        Ok(node)
    }

    /// Finishes the line of a block node that is a single scalar or flow
    /// collection, which nothing deeper may follow.
    fn scalar_line(&mut self, node: S::Node, parent: isize) -> R<S::Node> {
        self.end_line()?;
        self.next_line()?;
        if let (Some(next), Ok(parent)) = (self.next, usize::try_from(parent)) {
            if next > parent {
                return Err(Bail); // continuation or error
            }
        }
        if parent < 0 && self.next.is_some() {
            return Err(Bail);
        }
        Ok(node)
    }

    /// A block mapping whose keys are at column `indent`, with its first key
    /// already read (its name, span and the position of its `:`).
    fn block_map(&mut self, indent: usize, first: (Cow<'t, str>, Span, usize)) -> R<S::Node> {
        let base = self.entries.len();
        let start = first.1.start_point();
        let mut first = Some(first);
        loop {
            let (name, key_span, colon) = match first.take() {
                Some(key) => key,
                None => self.block_key()?,
            };
            self.check_duplicate(base, &name)?;
            self.skip_spaces();
            let value = match self.peek() {
                None | Some(b'\n' | b'#') => {
                    let null_span = self.span_at(colon);
                    self.skip_comment();
                    self.next_line()?;
                    match self.next {
                        Some(c) if c > indent => self.block_node(indent as isize)?,
                        Some(c) if c == indent && self.at_dash() => {
                            self.enter()?;
                            let seq = self.block_seq(indent, true)?;
                            self.depth -= 1;
                            seq
                        }
                        _ => self.out.scalar(Value::Null, null_span, Form::Plain),
                    }
                }
                _ => {
                    let node = self.inline_value()?;
                    self.next_line()?;
                    node
                }
            };
            let entry = self.out.entry(&name, key_span, value);
            self.entries.push(entry);
            match self.next {
                Some(c) if c == indent => {
                    if self.at_dash() {
                        return Err(Bail);
                    }
                }
                Some(c) if c > indent => return Err(Bail),
                _ => break,
            }
        }
        // The map ends where its last entry does (its value, or its key if
        // the value is empty).
        let span = self.entries.last().map_or(start, |e| {
            let (key, value) = self.out.entry_spans(e);
            start.to(key).to(value)
        });
        self.out.map(&mut self.entries, base, span).ok_or(Bail)
    }

    fn at_dash(&self) -> bool {
        self.peek() == Some(b'-') && is_blank_or_end(self.at(self.pos + 1))
    }

    /// A block key (not the first of its map): returns its name, its span
    /// and the position of its `:` (and moves past it).
    fn block_key(&mut self) -> R<(Cow<'t, str>, Span, usize)> {
        let start = self.pos;
        let (name, end) = match self.peek() {
            Some(b'"' | b'\'') => {
                let name = self.quoted(false)?;
                let end = self.pos;
                self.skip_spaces();
                (name, end)
            }
            _ => {
                let (end, stop) = self.scan_plain_block()?;
                if stop != Stop::Colon {
                    return Err(Bail);
                }
                let text = self.text.get(start..end).ok_or(Bail)?;
                (plain_key(text, self.schema)?, end)
            }
        };
        if self.peek() != Some(b':') || !is_blank_or_end(self.at(self.pos + 1)) {
            return Err(Bail);
        }
        let span = self.span_of(start, end);
        Ok((name, span, self.key_colon(start)?))
    }

    /// At the `:` of a key that started at `start`: checks the key's length,
    /// moves past the `:` and returns its position.
    fn key_colon(&mut self, start: usize) -> R<usize> {
        if self.pos - start > MAX_KEY_LEN {
            return Err(Bail);
        }
        let colon = self.pos;
        self.pos += 1;
        Ok(colon)
    }

    /// A value on the current line (scalar or flow collection), then the line end.
    fn inline_value(&mut self) -> R<S::Node> {
        let start = self.pos;
        let node = match self.peek() {
            Some(b'[' | b'{') => self.flow_node()?,
            Some(b'"' | b'\'') => {
                let span = self.span_at(start);
                let text = self.quoted(true)?;
                let span = span.to(self.span_at(self.pos));
                self.out.string(text, span, Form::Quoted)
            }
            _ => {
                let (end, stop) = self.scan_plain_block()?;
                if stop != Stop::End {
                    return Err(Bail);
                }
                let text = self.text.get(start..end).ok_or(Bail)?;
                self.plain(text, start, end)
            }
        };
        self.end_line()?;
        Ok(node)
    }

    /// A block sequence whose dashes are at column `indent`; `indentless`
    /// if it is not indented under its key.
    fn block_seq(&mut self, indent: usize, indentless: bool) -> R<S::Node> {
        let mut span = self.span_at(self.pos);
        let base = self.items.len();
        let mut first = true;
        loop {
            self.pos += 1; // the dash
            self.skip_spaces();
            let empty = matches!(self.peek(), None | Some(b'\n' | b'#'));
            if empty {
                self.skip_comment();
            }
            if first && indentless {
                span = self.indentless_span(self.pos);
            }
            first = false;
            let item = match empty {
                true => {
                    let null_span = self.span_at(self.pos);
                    self.next_line()?;
                    match self.next {
                        Some(c) if c > indent => self.block_node(indent as isize)?,
                        _ => self.out.scalar(Value::Null, null_span, Form::Plain),
                    }
                }
                false => self.block_node(indent as isize)?,
            };
            self.items.push(item);
            match self.next {
                Some(c) if c == indent && self.at_dash() => {}
                Some(c) if c > indent => return Err(Bail),
                _ => break,
            }
        }
        let span = self
            .items
            .last()
            .map_or(span, |item| span.to(self.out.span(item)));
        Ok(self.out.seq(&mut self.items, base, span))
    }

    /// The span saphyr gives a sequence not indented under its key: where its
    /// first item's content (or the end of the dash's line) is, moved back
    /// to the dash over spaces unless that content starts with `-` or `[`.
    fn indentless_span(&self, m: usize) -> Span {
        if matches!(self.at(m), Some(b'-' | b'[')) {
            return self.span_at(m);
        }
        let mut i = m;
        while i > 0 && self.at(i - 1) == Some(&b' ') {
            i -= 1;
        }
        if i > 0 && i < m && self.at(i - 1) == Some(&b'-') {
            return self.span_at(i - 1);
        }
        self.span_at(m)
    }

    /// The first position from `i` on whose byte is in `stops` (the text's
    /// length if none is).
    fn find(&self, i: usize, stops: &[bool; 256]) -> usize {
        let rest = self.b.get(i..).unwrap_or_default();
        i + rest
            .iter()
            .position(|&c| stops[usize::from(c)])
            .unwrap_or(rest.len())
    }

    /// [`Fast::find`] with [`BLOCK_STOPS`], eight bytes at a time: a word
    /// without bytes below `$` (control characters, space, `!`, `"`, `#`)
    /// and without `:` holds none. The lowest flagged byte of a word is exact
    /// (borrows only flag bytes above it); a space there resumes the search.
    fn find_block_stop(&self, mut i: usize) -> usize {
        const ONES: u64 = u64::from_ne_bytes([1; 8]);
        const HIGH: u64 = ONES * 0x80;
        const COLONS: u64 = ONES * b':' as u64;
        while let Some(word) = self.b.get(i..i + 8) {
            let Ok(word) = <[u8; 8]>::try_from(word) else {
                break;
            };
            let w = u64::from_le_bytes(word);
            let colon = w ^ COLONS;
            let flagged =
                ((w.wrapping_sub(ONES * 0x24) & !w) | (colon.wrapping_sub(ONES) & !colon)) & HIGH;
            if flagged == 0 {
                i += 8;
                continue;
            }
            i += (flagged.trailing_zeros() / 8) as usize;
            match self.at(i) {
                Some(&c) if BLOCK_STOPS[usize::from(c)] => return i,
                _ => i += 1,
            }
        }
        self.find(i, &BLOCK_STOPS)
    }

    /// `end` moved back over the spaces that precede it, but not before `start`.
    fn trim_spaces(&self, start: usize, mut end: usize) -> usize {
        while end > start && self.at(end - 1) == Some(&b' ') {
            end -= 1;
        }
        end
    }

    /// Scans a plain scalar in block context from `pos`; returns the end of its
    /// text and why it stopped, leaving `pos` at the stop.
    fn scan_plain_block(&mut self) -> R<(usize, Stop)> {
        let start = self.pos;
        let first = self.peek().ok_or(Bail)?;
        if cannot_start_plain(first) || (first == b'-' && is_blank_or_end(self.at(start + 1))) {
            return Err(Bail);
        }
        let mut i = start;
        let stop = loop {
            i = self.find_block_stop(i);
            match self.b.get(i) {
                None | Some(b'\n') => break Stop::End,
                Some(b':') if is_blank_or_end(self.at(i + 1)) => break Stop::Colon,
                Some(b'#') if self.at(i.wrapping_sub(1)) == Some(&b' ') => break Stop::End,
                Some(b'\t' | b'\r') => return Err(Bail),
                Some(_) => i += 1,
            }
        };
        let end = self.trim_spaces(start, i);
        self.pos = if stop == Stop::End { end } else { i };
        Ok((end, stop))
    }

    /// A quoted scalar at `pos`; moves past the closing quote. With
    /// `lines` (a value in block context) it may continue over lines, in
    /// any column, as js-yaml reads it (only a document marker at the start
    /// of a line ends the document inside it); the saphyr path reads such
    /// scalars the same way (see `crate::lenient`).
    fn quoted(&mut self, lines: bool) -> R<Cow<'t, str>> {
        let quote = self.peek().ok_or(Bail)?;
        let start = self.pos + 1;
        let mut i = start;
        let mut escaped = false;
        let (mut line, mut line_start) = (self.line, self.line_start);
        loop {
            match self.b.get(i) {
                None | Some(b'\r') => return Err(Bail),
                Some(b'\n') => {
                    if !lines {
                        return Err(Bail);
                    }
                    i += 1;
                    line = line.checked_add(1).ok_or(Bail)?;
                    line_start = i;
                    let rest = self.b.get(i..).unwrap_or_default();
                    if (rest.starts_with(b"---") || rest.starts_with(b"..."))
                        && is_blank_or_end(self.at(i + 3))
                    {
                        return Err(Bail); // a document marker: an error
                    }
                }
                Some(&c) if c == quote => {
                    if quote == b'\'' && self.at(i + 1) == Some(&b'\'') {
                        escaped = true;
                        i += 2;
                        continue;
                    }
                    break;
                }
                Some(b'\\') if quote == b'"' => {
                    if self.at(i + 1).is_none() {
                        return Err(Bail);
                    }
                    escaped = true;
                    // An escaped line break is read by the `\n` arm.
                    i += if self.at(i + 1) == Some(&b'\n') { 1 } else { 2 };
                }
                Some(_) => i += 1,
            }
        }
        let raw = self.text.get(start..i).ok_or(Bail)?;
        self.pos = i + 1;
        if line != self.line {
            if raw.contains('\t') {
                return Err(Bail);
            }
            self.line = line;
            self.line_start = line_start;
            return fold_quoted(raw, quote == b'"').map(Cow::Owned);
        }
        if !escaped {
            return Ok(Cow::Borrowed(raw));
        }
        if quote == b'\'' {
            return Ok(Cow::Owned(raw.replace("''", "'")));
        }
        unescape_double(raw).map(Cow::Owned)
    }

    /// A flow collection or scalar at `pos`.
    fn flow_node(&mut self) -> R<S::Node> {
        let start = self.pos;
        match self.peek() {
            Some(b'[') => {
                self.enter()?;
                self.pos += 1;
                let base = self.items.len();
                loop {
                    self.skip_spaces();
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        break;
                    }
                    let item = self.flow_node()?;
                    self.items.push(item);
                    self.skip_spaces();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            break;
                        }
                        _ => return Err(Bail),
                    }
                }
                self.depth -= 1;
                let span = self.span_of(start, self.pos);
                Ok(self.out.seq(&mut self.items, base, span))
            }
            Some(b'{') => {
                self.enter()?;
                self.pos += 1;
                let base = self.entries.len();
                loop {
                    self.skip_spaces();
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        break;
                    }
                    let key_start = self.pos;
                    let name = match self.peek() {
                        Some(b'"' | b'\'') => self.quoted(false)?,
                        _ => {
                            let (text, stop) = self.scan_plain_flow()?;
                            if stop != Stop::Colon {
                                return Err(Bail);
                            }
                            plain_key(text, self.schema)?
                        }
                    };
                    let key_span = self.span_of(key_start, self.pos);
                    self.skip_spaces();
                    if self.peek() != Some(b':') || self.at(self.pos + 1) != Some(&b' ') {
                        return Err(Bail);
                    }
                    self.pos += 1;
                    self.skip_spaces();
                    self.check_duplicate(base, &name)?;
                    let value = self.flow_node()?;
                    let entry = self.out.entry(&name, key_span, value);
                    self.entries.push(entry);
                    self.skip_spaces();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {
                            self.pos += 1;
                            break;
                        }
                        _ => return Err(Bail),
                    }
                }
                self.depth -= 1;
                let span = self.span_of(start, self.pos);
                self.out.map(&mut self.entries, base, span).ok_or(Bail)
            }
            Some(b'"' | b'\'') => {
                let text = self.quoted(false)?;
                let span = self.span_of(start, self.pos);
                Ok(self.out.string(text, span, Form::Quoted))
            }
            _ => {
                let (text, stop) = self.scan_plain_flow()?;
                if stop != Stop::End {
                    return Err(Bail);
                }
                Ok(self.plain(text, start, self.pos))
            }
        }
    }

    /// Scans a plain scalar inside a flow collection; leaves `pos` after its
    /// text (before any spaces). Stops before `,[]{}` ([`Stop::End`]) or
    /// before a `: ` ([`Stop::Colon`]); anything else is left to saphyr.
    fn scan_plain_flow(&mut self) -> R<(&'t str, Stop)> {
        let start = self.pos;
        let first = self.peek().ok_or(Bail)?;
        if (cannot_start_plain(first) || first == b'-')
            && !(first == b'-' && self.at(start + 1).is_some_and(u8::is_ascii_digit))
        {
            return Err(Bail);
        }
        let mut i = start;
        let stop = loop {
            i = self.find(i, &FLOW_STOPS);
            match self.b.get(i) {
                None | Some(b'\n' | b'\t' | b'\r' | b'#') => return Err(Bail),
                Some(&c) if is_flow_indicator(c) => break Stop::End,
                Some(b':') => match self.at(i + 1) {
                    Some(b' ') => break Stop::Colon,
                    Some(&c) if is_flow_indicator(c) => return Err(Bail),
                    None | Some(b'\n') => return Err(Bail),
                    _ => i += 1,
                },
                Some(_) => i += 1,
            }
        };
        let end = self.trim_spaces(start, i);
        self.pos = end;
        Ok((self.text.get(start..end).ok_or(Bail)?, stop))
    }
}

impl<S: Sink> Fast<'_, '_, S> {
    /// Gives up on duplicate keys (the saphyr path reports them). Only maps
    /// without a hash index are checked here, key by key, among the entries
    /// from `base` on; [`Sink::map`] checks the others as it builds their
    /// index.
    fn check_duplicate(&self, base: usize, name: &str) -> R<()> {
        let entries = self.entries.get(base..).unwrap_or_default();
        if entries.len() < INDEX_THRESHOLD && entries.iter().any(|e| self.out.entry_name(e) == name)
        {
            return Err(Bail);
        }
        Ok(())
    }
}

/// The value of a quoted scalar's content that spans several lines (`raw`,
/// between the quotes, without tabs or carriage returns), folded exactly as
/// `saphyr-parser` folds it: trailing spaces before a line break and
/// leading spaces after it are dropped, one line break becomes a space, n
/// line breaks n - 1 newlines, and an escaped line break (`\` at the end
/// of a line in a double-quoted scalar) joins the lines, keeping only the
/// newlines of the empty lines after it.
fn fold_quoted(raw: &str, double: bool) -> R<String> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    let mut spaces = 0;
    loop {
        // A run of characters other than spaces and line breaks.
        let mut leading_blanks = false;
        while let Some(&c) = chars.peek() {
            if c == ' ' || c == '\n' {
                break;
            }
            chars.next();
            match c {
                // `''` (the only quote inside a single-quoted scalar).
                '\'' if !double => {
                    chars.next();
                    out.push('\'');
                }
                '\\' if double && chars.peek() == Some(&'\n') => {
                    chars.next();
                    leading_blanks = true;
                    break;
                }
                '\\' if double => out.push(unescape(&mut chars)?),
                c => out.push(c),
            }
        }
        if chars.peek().is_none() {
            return Ok(out);
        }
        // Spaces and line breaks.
        let (mut folded, mut breaks) = (false, 0);
        while let Some(&c) = chars.peek() {
            match c {
                ' ' if !leading_blanks => spaces += 1,
                ' ' => {}
                '\n' if leading_blanks => breaks += 1,
                '\n' => {
                    spaces = 0;
                    folded = true;
                    leading_blanks = true;
                }
                _ => break,
            }
            chars.next();
        }
        if folded && breaks == 0 {
            out.push(' ');
        } else if leading_blanks {
            out.extend(std::iter::repeat_n('\n', breaks));
        } else {
            out.extend(std::iter::repeat_n(' ', spaces));
        }
        spaces = 0;
    }
}

/// The value of a single-line double-quoted scalar's content.
fn unescape_double(raw: &str) -> R<String> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(unescape(&mut chars)?);
    }
    Ok(out)
}

/// The character of the escape sequence after a `\` (read from `chars`).
fn unescape(chars: &mut impl Iterator<Item = char>) -> R<char> {
    let e = chars.next().ok_or(Bail)?;
    let simple = match e {
        '0' => '\0',
        'a' => '\u{7}',
        'b' => '\u{8}',
        't' | '\t' => '\t',
        'n' => '\n',
        'v' => '\u{b}',
        'f' => '\u{c}',
        'r' => '\r',
        'e' => '\u{1b}',
        ' ' => ' ',
        '"' => '"',
        '/' => '/',
        '\\' => '\\',
        'N' => '\u{85}',
        '_' => '\u{a0}',
        'L' => '\u{2028}',
        'P' => '\u{2029}',
        'x' | 'u' | 'U' => {
            let len = match e {
                'x' => 2,
                'u' => 4,
                _ => 8,
            };
            let mut code = 0u32;
            for _ in 0..len {
                let d = chars.next().and_then(|d| d.to_digit(16)).ok_or(Bail)?;
                code = code * 16 + d;
            }
            char::from_u32(code).ok_or(Bail)?
        }
        _ => return Err(Bail),
    };
    Ok(simple)
}
