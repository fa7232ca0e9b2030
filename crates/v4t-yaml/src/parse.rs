//! YAML text to [`Node`] tree, read the way js-yaml 4 reads it.
//!
//! The reference implementation loads YAML with js-yaml's default schema (YAML
//! 1.2 core schema plus timestamps and merge keys). We build on
//! `saphyr-parser`'s event stream and reproduce js-yaml's scalar resolution,
//! JavaScript-string map keys, duplicate-key errors, anchors/aliases (deep
//! copies) and merge keys. Every node and key records where it starts.
//!
//! The tree is built iteratively with an explicit stack, and untrusted input
//! is bounded: nesting deeper than [`MAX_DEPTH`] collections and alias
//! expansion beyond [`MAX_ALIAS_NODES`] nodes are errors, so no input can
//! overflow the stack or make memory explode (billion laughs).

use std::collections::HashMap;

use crate::hash::{SeededMap, SeededSet};
use std::fmt;

use saphyr_parser::{Event, Marker, Parser, ScalarStyle, ScanError, Tag};

use crate::doc::Doc;
use crate::lenient::Indented;
use crate::scalar::{
    core_float, core_int, is_null, key_string, resolve_bool, resolve_float, resolve_int,
};
pub use crate::scalar::{core_int_exact, resolve_plain, resolve_plain_form, Schema};
use crate::span::{clamp_u32, LineIndex};
use crate::timestamp::parse_yaml_timestamp;
use crate::value::{Form, Key, KeyNames, Map, Node, SourceId, Span, Tag as ScalarTag, Value};

/// Maximum number of nested collections.
pub const MAX_DEPTH: usize = 1000;

/// Maximum number of nodes created by copying aliased nodes.
pub const MAX_ALIAS_NODES: usize = 1_000_000;

const CORE: &str = "tag:yaml.org,2002:";

/// A YAML syntax or semantic error with the location it refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// What is wrong, as js-yaml words it where the reference reports it.
    pub message: String,
    /// Where.
    pub span: Span,
}

impl ParseError {
    fn new(message: impl Into<String>, span: Span) -> ParseError {
        ParseError {
            message: message.into(),
            span,
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Without the text there are no lines and columns to show; a
        // reader locates `span` in its source ([`Span::locate`]).
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

/// Parses a single YAML document. An empty stream (or only comments) is `null`.
///
/// Common documents are read by the fast path ([`crate::fast`]); anything it
/// does not handle with certainty (and every error) goes through
/// [`parse_saphyr`], with identical results.
pub fn parse(text: &str, source: SourceId) -> Result<Node, ParseError> {
    parse_with(text, source, Schema::JsYaml)
}

/// [`parse`] with the scalar resolution of `schema`.
pub fn parse_with(text: &str, source: SourceId, schema: Schema) -> Result<Node, ParseError> {
    if has_non_printable(text) {
        check_printable(text, source)?;
    }
    if let Some(node) = crate::fast::parse_fast_with(text, source, schema) {
        return Ok(node);
    }
    parse_checked(text, source, schema, Duplicates::Fail).map(|(node, _)| node)
}

/// Whether reading `text` with js-yaml's schema ([`Schema::JsYaml`])
/// succeeds with the same keys as `doc`, its reading with the core schema
/// ([`Schema::Core`]), so that a reader that wants js-yaml's errors and
/// the core schema's values need not read the text twice. The schemas
/// differ only in explicit tags, merge keys, complex keys and plain
/// scalars; plain values never fail, so what decides is: no node written
/// with a tag, no `<<` or complex key, and every plain key with the same
/// name in both (`2023-01-01` and `0b1` are not). `false` where in doubt.
pub fn js_yaml_reads_alike(doc: &Node, text: &str) -> bool {
    // Depth first, one iterator per open collection (memory by depth, not
    // by the width of a large map).
    enum Open<'a> {
        Seq(std::slice::Iter<'a, Node>),
        Map(std::slice::Iter<'a, (Key, Node)>),
    }
    fn open(n: &Node) -> Option<Open<'_>> {
        match &n.value {
            Value::Seq(items) => Some(Open::Seq(items.iter())),
            Value::Map(m) => Some(Open::Map(m.entries().iter())),
            _ => None,
        }
    }
    if doc.form.tag().is_some() {
        return false;
    }
    let mut stack: Vec<Open<'_>> = open(doc).into_iter().collect();
    while let Some(top) = stack.last_mut() {
        let next = match top {
            Open::Seq(items) => items.next(),
            Open::Map(entries) => match entries.next() {
                Some((k, _))
                    if k.tree().is_some() || k.name == "<<" || !plain_key_alike(k, text) =>
                {
                    return false;
                }
                Some((_, v)) => Some(v),
                None => None,
            },
        };
        match next {
            Some(n) if n.form.tag().is_some() => return false,
            Some(n) => stack.extend(open(n)),
            None => {
                stack.pop();
            }
        }
    }
    true
}

/// Whether key `k`, as `text` writes it, has its name under js-yaml's
/// schema too: a quoted key is a string in both; a plain one starting with
/// a letter or `_` is no number or timestamp in either (null and the
/// booleans read alike); any other plain key is resolved and compared.
fn plain_key_alike(k: &Key, text: &str) -> bool {
    let Some(written) = text.get(k.span.start as usize..k.span.end as usize) else {
        return false;
    };
    match written.as_bytes().first() {
        Some(b'"' | b'\'') => true,
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => true,
        Some(b'!' | b'&' | b'*' | b'?') | None => false,
        Some(_) => {
            let (value, _) = crate::scalar::resolve_plain_form(written, Schema::JsYaml);
            crate::scalar::key_string(&value).is_some_and(|name| name == k.name.as_str())
        }
    }
}

/// [`parse_with`], except that duplicated mapping keys are not fatal: each
/// is returned as an error ("duplicated mapping key" at the duplicate, in
/// document order) beside the tree, in which the last value of a duplicated
/// key stands. For validators that report every duplicate at once; any
/// other error still fails the parse.
pub fn parse_reporting_duplicates(
    text: &str,
    source: SourceId,
    schema: Schema,
) -> Result<(Node, Vec<ParseError>), ParseError> {
    if has_non_printable(text) {
        check_printable(text, source)?;
    }
    // The fast path gives up on duplicate keys: a tree from it has none.
    if let Some(node) = crate::fast::parse_fast_with(text, source, schema) {
        return Ok((node, Vec::new()));
    }
    parse_checked(text, source, schema, Duplicates::Collect)
}

/// [`parse_reporting_duplicates`] into a [`Doc`]: the document in one
/// arena, for readers that do not change it (a validator). The fast path
/// writes the document directly; the saphyr path's tree is copied into one.
pub fn parse_doc_reporting_duplicates(
    text: &str,
    source: SourceId,
    schema: Schema,
) -> Result<(Doc, Vec<ParseError>), ParseError> {
    if has_non_printable(text) {
        check_printable(text, source)?;
    }
    if let Some(doc) = crate::fast::parse_fast_doc(text, source, schema) {
        return Ok((doc, Vec::new()));
    }
    let (node, duplicated) = parse_checked(text, source, schema, Duplicates::Collect)?;
    Ok((Doc::from_node(&node, source), duplicated))
}

/// What a duplicated mapping key does to a parse.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Duplicates {
    /// Fails it (js-yaml's behaviour, the reference's error).
    Fail,
    /// Is collected as an error beside the tree; the last value stands.
    Collect,
}

/// Parses a single YAML document with the `saphyr-parser` event stream (the
/// reference path: every feature, every error message).
pub fn parse_saphyr(text: &str, source: SourceId) -> Result<Node, ParseError> {
    parse_saphyr_with(text, source, Schema::JsYaml)
}

/// [`parse_saphyr`] with the scalar resolution of `schema`.
pub fn parse_saphyr_with(text: &str, source: SourceId, schema: Schema) -> Result<Node, ParseError> {
    check_printable(text, source)?;
    parse_checked(text, source, schema, Duplicates::Fail).map(|(node, _)| node)
}

/// The saphyr path on a text without non-printable characters.
///
/// saphyr requires the continuation lines of quoted scalars to be indented
/// (YAML 1.2); js-yaml and libyaml accept them in any column. Where saphyr
/// rejects a quoted scalar for that alone, its continuation lines are
/// indented (which changes no value: folding drops leading blanks) and the
/// text is read again; spans are then mapped back to the text as written.
/// The same for the under-indented lines of a flow collection, and a space
/// goes after a `:` it rejected right before a flow value's bracket. Where
/// it stops at a `-` inside a flow plain scalar, a stand-in takes its
/// place for the next read and the `-` is put back after it
/// ([`crate::lenient`]).
fn parse_checked(
    text: &str,
    source: SourceId,
    schema: Schema,
    duplicates: Duplicates,
) -> Result<(Node, Vec<ParseError>), ParseError> {
    let mut indented = Indented::new(text);
    // The error of the first `-` saphyr stopped at before `,[]{}` in a
    // flow collection: it stands if one of them began a scalar after all.
    let mut first_dash: Option<ParseError> = None;
    loop {
        match build(indented.text(), source, schema, duplicates) {
            Ok((mut node, mut found)) => {
                let remap = indented.remap();
                remap.tree(&mut node);
                for d in &mut found {
                    remap.span(&mut d.span);
                }
                let messages = found.iter_mut().map(|d| &mut d.message);
                if let (Err(()), Some(error)) = (indented.restore(&mut node, messages), first_dash)
                {
                    return Err(error);
                }
                return Ok((node, found));
            }
            Err(Failure {
                mut error,
                retry: Some(Retry::DashInFlow(at)),
            }) => {
                indented.remap().span(&mut error.span);
                if let Err(limit) = indented.replace_dash(at) {
                    if let Some(limit) = limit {
                        error.message =
                            format!("{} (more than {limit} texts read again)", error.message);
                    }
                    return Err(error);
                }
                first_dash.get_or_insert(error);
            }
            Err(Failure {
                error,
                retry: Some(Retry::UnderIndentedQuote(quote)),
            }) => {
                let changed = indented.indent_quoted(quote);
                read_again(
                    changed,
                    error,
                    &indented,
                    "quoted scalars with under-indented lines",
                )?;
            }
            Err(Failure {
                error,
                retry: Some(Retry::UnderIndentedFlow { open, at }),
            }) => {
                let changed = indented.indent_flow(open, at);
                read_again(
                    changed,
                    error,
                    &indented,
                    "flow collections with under-indented lines",
                )?;
            }
            Err(Failure {
                error,
                retry: Some(Retry::ColonBeforeBracket(at)),
            }) => {
                let changed = indented.space_after_colon(at);
                read_again(changed, error, &indented, "texts read again")?;
            }
            Err(Failure {
                mut error,
                retry: None,
            }) => {
                // Not one a stand-in caused: none is an indicator.
                indented.remap().span(&mut error.span);
                return Err(error);
            }
        }
    }
}

/// `Ok` if the text was changed for another read (`changed`), else the
/// error saphyr reported, which stands: nothing to change (it has another
/// cause), or the text has been read again `limit` times already (said in
/// the message, with `what` was changed).
fn read_again(
    changed: Result<(), Option<usize>>,
    mut error: ParseError,
    indented: &Indented<'_>,
    what: &str,
) -> Result<(), ParseError> {
    let Err(limit) = changed else {
        return Ok(());
    };
    indented.remap().span(&mut error.span);
    if let Some(limit) = limit {
        error.message = format!("{} (more than {limit} {what})", error.message);
    }
    Err(error)
}

/// A failed read of the saphyr path.
struct Failure {
    error: ParseError,
    /// What a changed text may read where saphyr stopped
    /// ([`crate::lenient`]).
    retry: Option<Retry>,
}

/// Where saphyr stopped at what js-yaml reads.
enum Retry {
    /// Byte offset of the opening quote of a quoted scalar whose
    /// continuation line saphyr rejected for its indentation.
    UnderIndentedQuote(usize),
    /// Byte offset of a `-` before `,[]{}` that saphyr took for the start
    /// of a plain scalar in a flow collection.
    DashInFlow(usize),
    /// Byte offset of a `:` right before the `[` or `{` of a value in a
    /// flow collection (`{get_attr:[a, b]}`), which saphyr rejects.
    ColonBeforeBracket(usize),
    /// A token of a flow collection on a line saphyr rejected for its
    /// indentation (or a tab in it): byte offsets of the outermost open
    /// flow collection's bracket and of the token.
    UnderIndentedFlow { open: usize, at: usize },
}

impl From<ParseError> for Failure {
    fn from(error: ParseError) -> Failure {
        Failure { error, retry: None }
    }
}

/// One read of `text` with saphyr's event stream.
fn build(
    text: &str,
    source: SourceId,
    schema: Schema,
    duplicates: Duplicates,
) -> Result<(Node, Vec<ParseError>), Failure> {
    let mut builder = Builder {
        text,
        schema,
        duplicates,
        duplicated: Vec::new(),
        char_offsets: if text.is_ascii() {
            None
        } else {
            Some(text.char_indices().map(|(i, _)| i).collect())
        },
        source,
        frames: Vec::new(),
        anchors: HashMap::new(),
        alias_nodes: 0,
        snapshot_nodes: 0,
        snapshot_budget: MAX_ALIAS_NODES.saturating_add(text.len()),
        root: None,
        documents: 0,
        keys: KeyNames::new(),
    };
    let mut parser = Parser::new_from_str(text);
    // The last event's span (for errors that saphyr reports late), and the
    // byte offset where it ends.
    let mut last = Span::NONE;
    let mut last_end = 0;
    loop {
        let (event, span) = match parser.next_event() {
            None => break,
            Some(Ok(x)) => x,
            Some(Err(e)) => {
                let offset = builder.offset(e.marker());
                let retry = match e.info() {
                    "invalid indentation in quoted scalar" => offset.map(Retry::UnderIndentedQuote),
                    // A tab in the leading blanks of an under-indented line.
                    "tab cannot be used as indentation" => offset
                        .and_then(|at| crate::lenient::enclosing_quote(text, last_end, at))
                        .map(Retry::UnderIndentedQuote),
                    "plain scalar cannot start with '-' followed by ,[]{}" => {
                        offset.map(Retry::DashInFlow)
                    }
                    "':' may not precede any of `[{` in flow mapping" => {
                        offset.map(Retry::ColonBeforeBracket)
                    }
                    // A line of a flow collection indented no more than
                    // the block around it, or with a tab.
                    "invalid indentation in flow construct"
                    | "invalid indentation"
                    | "tabs disallowed within this context (block indentation)" => {
                        offset.and_then(|at| {
                            let open = builder
                                .outermost_flow()
                                .or_else(|| crate::lenient::enclosing_flow(text, last_end, at))?;
                            Some(Retry::UnderIndentedFlow { open, at })
                        })
                    }
                    _ => None,
                };
                let at = offset.unwrap_or(text.len());
                return Err(Failure {
                    error: scan_error(&e, source, text, at, last),
                    retry,
                });
            }
        };
        last_end = builder.offset(&span.end).unwrap_or(last_end);
        let mut start = builder.span(&span.start);
        match &event {
            Event::SequenceStart(..) => start = builder.dash_span(&span.start, start),
            Event::Scalar(_, ScalarStyle::Literal | ScalarStyle::Folded, ..) => {
                start = builder.block_scalar_span(&span.start, start);
                start = start.to(builder.trimmed_end(&span.end, start));
            }
            Event::Scalar(_, ScalarStyle::SingleQuoted, ..) => {
                start = start.to(builder.quoted_end(&span.start, b'\''));
            }
            Event::Scalar(_, ScalarStyle::DoubleQuoted, ..) => {
                start = start.to(builder.quoted_end(&span.start, b'"'));
            }
            Event::Scalar(_, ScalarStyle::Plain, ..) => {
                builder.plain_lines_in_flow(&span.start, &span.end)?;
                start = start.to(builder.span(&span.end));
            }
            Event::Alias(..) => start = start.to(builder.span(&span.end)),
            // A flow collection ends after its bracket; a block one where
            // its last entry ends (see `Frame::end`).
            Event::SequenceEnd => start = builder.flow_close(&span.start, b']'),
            Event::MappingEnd => start = builder.flow_close(&span.start, b'}'),
            _ => {}
        }
        if start.is_known() {
            last = start;
        }
        if builder.event(event, start)? {
            break;
        }
    }
    let root = (builder.root).unwrap_or_else(|| Node::new(Value::Null, Span::at(source, 0)));
    Ok((root, builder.duplicated))
}

/// A quick byte scan for what [`check_printable`] rejects.
fn has_non_printable(text: &str) -> bool {
    let b = text.as_bytes();
    // Most chunks are plain printable ASCII: a branch-free test first, on
    // fixed-size chunks so that the compiler vectorises it. One signed
    // comparison flags both control characters and non-ASCII bytes; tabs
    // and carriage returns are rare and left to the precise test.
    let suspect = |chunk: &[u8]| {
        chunk.iter().fold(false, |acc, &c| {
            acc | (((c as i8) < 0x20) & (c != b'\n')) | (c == 0x7f)
        })
    };
    let chunks = b.chunks_exact(64);
    let tail = chunks.remainder();
    for (n, chunk) in chunks.enumerate() {
        if suspect(chunk) && non_printable_from(b, n * 64, n * 64 + 64) {
            return true;
        }
    }
    suspect(tail) && non_printable_from(b, b.len() - tail.len(), b.len())
}

/// The precise test of [`has_non_printable`] for characters starting in `from..to`.
fn non_printable_from(b: &[u8], from: usize, to: usize) -> bool {
    let mut i = from;
    while i < to {
        let Some(&c) = b.get(i) else {
            return false;
        };
        let bad = match c {
            b'\t' | b'\n' | b'\r' => false,
            0..=0x1f | 0x7f => true,
            // U+0080..U+009F except U+0085.
            0xc2 => matches!(b.get(i + 1), Some(&n) if (0x80..=0x9f).contains(&n) && n != 0x85),
            // U+FFFE, U+FFFF.
            0xef => b.get(i + 1) == Some(&0xbf) && matches!(b.get(i + 2), Some(0xbe | 0xbf)),
            _ => false,
        };
        if bad {
            return true;
        }
        i += 1;
    }
    false
}

/// js-yaml refuses streams with non-printable characters.
fn check_printable(text: &str, source: SourceId) -> Result<(), ParseError> {
    for (at, c) in text.char_indices() {
        let bad = matches!(c,
            '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}'
            | '\u{7f}'..='\u{84}' | '\u{86}'..='\u{9f}' | '\u{fffe}' | '\u{ffff}');
        if bad {
            return Err(ParseError::new(
                "the stream contains non-printable characters",
                Span::at(source, clamp_u32(at)),
            ));
        }
    }
    Ok(())
}

/// A scanner error as a [`ParseError`]. `at` is the byte offset of its
/// marker, `last` the span of the last event.
///
/// saphyr notices a key without `:` only at a later token, often on a later
/// line: "simple key expect ':'" comes at the next token, the key being the
/// first token after the last event; "mapping values are not allowed" comes
/// at the `:` after a plain scalar that continued over lines (`c` followed
/// by `d: 1` reads as the key `c d`). Both point at the key that lacks its
/// `:`, where the line is wrong; a value continued on a wrongly indented
/// line is reported where it is.
fn scan_error(e: &ScanError, source: SourceId, text: &str, at: usize, last: Span) -> ParseError {
    let span = Span::at(source, clamp_u32(at));
    let index = LineIndex::new(text);
    let here = index.locate(text, span);
    let before = index.locate(text, last);
    let first_on_line = |(line, col): (u32, u32)| {
        text.lines()
            .nth(line.saturating_sub(1) as usize)
            .is_some_and(|l| l.chars().take_while(|c| *c == ' ').count() + 1 == col as usize)
    };
    let key = match e.info() {
        "simple key expect ':'" => {
            let from = if last.is_known() {
                before.end()
            } else {
                (1, 1)
            };
            Some(next_token(text, from))
        }
        "mapping values are not allowed in this context"
            if last.is_known() && before.line < here.line && first_on_line(before.start()) =>
        {
            Some(before.start())
        }
        _ => None,
    };
    if let Some((line, col)) = key.filter(|k| *k < here.start()) {
        let offset = index.offset(text, line, col).unwrap_or(span.start);
        return ParseError::new(
            "could not find expected ':' after this key",
            Span::at(source, offset),
        );
    }
    if e.info() == "recursion limit exceeded" {
        // saphyr limits flow collections to 255 nested levels.
        return ParseError::new(
            "nesting too deep (more than 255 levels of flow collections)",
            span,
        );
    }
    ParseError::new(e.info().to_string(), span)
}

/// The first token at or after `from` (1-based line and column, columns
/// in characters): spaces, line breaks, comments and the indicators `:`,
/// `-` and `?` followed by a space are skipped.
fn next_token(text: &str, from: (u32, u32)) -> (u32, u32) {
    let (mut line, mut col) = from;
    for l in text.lines().skip(line.saturating_sub(1) as usize) {
        let chars: Vec<char> = l.chars().collect();
        let mut i = col.saturating_sub(1) as usize;
        while let Some(&c) = chars.get(i) {
            let spaced = |j: usize| chars.get(j).is_none_or(|c| *c == ' ' || *c == '\t');
            match c {
                ' ' | '\t' => i += 1,
                '#' if i == 0 || spaced(i - 1) => break,
                ':' | '-' | '?' if spaced(i + 1) => i += 1,
                _ => return (line, i as u32 + 1),
            }
        }
        line += 1;
        col = 1;
    }
    from
}

/// A collection under construction.
struct Frame {
    span: Span,
    /// The furthest end of its children so far (a block collection ends there).
    end: u32,
    anchor: usize,
    /// Height (in nested collections) of the deepest child so far.
    height: usize,
    /// Nodes in this collection so far (itself included).
    size: usize,
    kind: FrameKind,
}

impl Frame {
    /// A collection that starts at `span`: so far only itself.
    fn open(span: Span, anchor: usize, kind: FrameKind) -> Frame {
        Frame {
            span,
            end: span.end,
            anchor,
            height: 0,
            size: 1,
            kind,
        }
    }
}

enum FrameKind {
    Seq {
        items: Vec<Node>,
        tag: CollectionTag,
    },
    Map {
        entries: Vec<(Key, Node)>,
        /// Key name to entry index.
        index: KeyIndex,
        /// Keys that came from merges and may be overridden by explicit keys.
        overridable: SeededSet<String>,
        pending: Option<(Key, bool)>,
        tag: CollectionTag,
    },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum CollectionTag {
    Plain,
    Omap,
    Pairs,
    Set,
}

/// A completed node with its height and size (for depth and alias limits).
#[derive(Clone)]
struct Built {
    node: Node,
    height: usize,
    size: usize,
}

struct Builder<'t> {
    text: &'t str,
    schema: Schema,
    duplicates: Duplicates,
    /// The duplicated keys found (with [`Duplicates::Collect`]).
    duplicated: Vec<ParseError>,
    /// Byte offset of every character, for non-ASCII texts (saphyr counts characters).
    char_offsets: Option<Vec<usize>>,
    source: SourceId,
    frames: Vec<Frame>,
    anchors: HashMap<usize, Built>,
    alias_nodes: usize,
    snapshot_nodes: usize,
    snapshot_budget: usize,
    root: Option<Node>,
    documents: usize,
    /// The key names read, shared where they repeat.
    keys: KeyNames,
}

fn full_tag(tag: &Tag) -> String {
    format!("{}{}", tag.handle, tag.suffix)
}

fn depth_error(span: Span) -> ParseError {
    ParseError::new(
        format!("nesting too deep (more than {MAX_DEPTH} levels)"),
        span,
    )
}

impl Builder<'_> {
    /// The zero-width span at a saphyr marker.
    fn span(&self, m: &Marker) -> Span {
        let at = self.offset(m).unwrap_or(self.text.len());
        Span::at(self.source, clamp_u32(at))
    }

    /// Byte offset of a saphyr marker (saphyr counts characters).
    fn offset(&self, m: &Marker) -> Option<usize> {
        match &self.char_offsets {
            None => Some(m.index()).filter(|&i| i <= self.text.len()),
            Some(offsets) => offsets
                .get(m.index())
                .copied()
                .or_else(|| (m.index() == offsets.len()).then_some(self.text.len())),
        }
    }

    /// The end of a quoted scalar starting at marker `m` (at its quote or
    /// at its anchor or tag): saphyr's end event includes the blanks and
    /// comment after the closing quote.
    fn quoted_end(&self, m: &Marker, quote: u8) -> Span {
        let Some(mut i) = self.offset(m) else {
            return Span::NONE;
        };
        let bytes = self.text.as_bytes();
        // Node properties (`&anchor`, `!tag`) before the quote.
        while let Some(b'&' | b'!') = bytes.get(i) {
            while bytes.get(i).is_some_and(|c| !c.is_ascii_whitespace()) {
                i += 1;
            }
            while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
                i += 1;
            }
        }
        if bytes.get(i) != Some(&quote) {
            return Span::NONE;
        }
        i += 1;
        loop {
            match bytes.get(i) {
                None => return Span::NONE,
                Some(b'\\') if quote == b'"' => i += 2,
                Some(&c) if c == quote => {
                    if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                        i += 2;
                    } else {
                        break;
                    }
                }
                Some(_) => i += 1,
            }
        }
        Span::at(self.source, clamp_u32(i + 1))
    }

    /// The end of a flow collection closed by `close`: saphyr's end event
    /// may start at a trailing comma and end after the blanks and comments
    /// that follow the bracket, so the bracket is looked up from the event's
    /// start. [`Span::NONE`] if there is none (a block collection, or an
    /// implicit single-pair map inside a flow sequence).
    fn flow_close(&self, m: &Marker, close: u8) -> Span {
        let Some(mut i) = self.offset(m) else {
            return Span::NONE;
        };
        let bytes = self.text.as_bytes();
        while let Some(&c) = bytes.get(i) {
            match c {
                b' ' | b'\t' | b'\r' | b'\n' | b',' => i += 1,
                b'#' => {
                    while bytes.get(i).is_some_and(|&c| c != b'\n') {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
        if bytes.get(i) != Some(&close) {
            return Span::NONE;
        }
        Span::at(self.source, clamp_u32(i + 1))
    }

    /// saphyr ends block scalars at the next token; the end of the last
    /// non-blank character before the marker instead (never before `start`,
    /// the header indicator).
    fn trimmed_end(&self, m: &Marker, start: Span) -> Span {
        let Some(offset) = self.offset(m) else {
            return start;
        };
        let before = self.text.get(..offset).unwrap_or_default();
        let end = clamp_u32(before.trim_end_matches([' ', '\t', '\r', '\n']).len());
        if end <= start.start {
            // No content: the span covers the indicator (`|` or `>`).
            return Span::bytes(start.source, start.start, start.start.saturating_add(1));
        }
        Span::at(start.source, end)
    }

    /// saphyr starts block scalars (`|`, `>`) at their content; move the span
    /// back to the header indicator.
    fn block_scalar_span(&self, m: &Marker, span: Span) -> Span {
        let Some(before) = self.offset(m).and_then(|o| self.text.get(..o)) else {
            return span;
        };
        let mut end = before.len();
        loop {
            let line_start = before
                .get(..end)
                .and_then(|b| b.rfind('\n'))
                .map_or(0, |i| i + 1);
            let line = before.get(line_start..end).unwrap_or_default();
            let line = line.strip_suffix('\r').unwrap_or(line);
            if !line.trim().is_empty() {
                let header = line.char_indices().find(|&(i, c)| {
                    (c == '|' || c == '>') && line.get(i + 1..).is_some_and(is_block_header_rest)
                });
                return match header {
                    Some((i, _)) => Span::at(span.source, clamp_u32(line_start + i)),
                    None => span,
                };
            }
            if line_start == 0 {
                return span;
            }
            end = line_start - 1;
        }
    }

    /// saphyr starts an indentless block sequence (`key:\n- a`) at its first
    /// item; move the span back to the dash.
    fn dash_span(&self, m: &Marker, span: Span) -> Span {
        let Some(offset) = self.offset(m) else {
            return span;
        };
        let bytes = self.text.as_bytes();
        if matches!(bytes.get(offset), Some(b'-' | b'[')) {
            return span;
        }
        let mut i = offset;
        while i > 0 && bytes.get(i - 1) == Some(&b' ') {
            i -= 1;
        }
        if i > 0 && i < offset && bytes.get(i - 1) == Some(&b'-') {
            return Span::at(span.source, clamp_u32(i - 1));
        }
        span
    }

    /// Whether `node`, about to be delivered, is the key of a block
    /// mapping entry written without one (`: x`): js-yaml's schema (the
    /// reference's reading) rejects it, where YAML 1.2 reads a null key.
    /// A key left out before its `:` has an empty span there, and so has
    /// the empty key of `?` alone on its line, whose `:` starts a later
    /// line of a mapping that began at the `?`.
    fn is_missed_block_key(&self, node: &Node) -> bool {
        let bytes = self.text.as_bytes();
        let at = node.span.start;
        if node.span.end != at
            || bytes.get(at as usize) != Some(&b':')
            || self.schema != Schema::JsYaml
        {
            return false;
        }
        let Some(Frame {
            kind: FrameKind::Map { pending: None, .. },
            span,
            ..
        }) = self.frames.last()
        else {
            return false;
        };
        let before = bytes.get(..at as usize).unwrap_or_default();
        let blanks = before
            .iter()
            .rev()
            .take_while(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
            .count();
        let after_question = before.len().checked_sub(blanks + 1).map(|i| before.get(i))
            == Some(Some(&b'?'))
            && before.iter().rev().take(blanks).any(|&c| c == b'\n');
        (span.start == at || !after_question) && self.outermost_flow().is_none()
    }

    /// The byte offset of the opening bracket of the outermost flow
    /// collection open so far. A frame is one if it starts at `[` or `{`
    /// and the next frame does not start there too (a block mapping whose
    /// first key is a flow collection starts where its key does).
    fn outermost_flow(&self) -> Option<usize> {
        let bytes = self.text.as_bytes();
        let starts = self.frames.iter().map(|f| f.span.start);
        let next = starts.clone().skip(1).map(Some).chain([None]);
        starts
            .zip(next)
            .find(|&(start, next)| {
                matches!(bytes.get(start as usize), Some(b'[' | b'{')) && next != Some(start)
            })
            .map(|(start, _)| start as usize)
    }

    /// The column of the innermost open block collection (its keys' or
    /// dashes' column), `None` at the top level. Frames are told apart as
    /// in [`Builder::outermost_flow`].
    fn block_indent(&self) -> Option<usize> {
        let bytes = self.text.as_bytes();
        let frames = &self.frames;
        let block = (0..frames.len()).rev().find(|&i| {
            let start = frames[i].span.start;
            !matches!(bytes.get(start as usize), Some(b'[' | b'{'))
                || frames.get(i + 1).map(|f| f.span.start) == Some(start)
        })?;
        let mut start = frames[block].span.start as usize;
        // saphyr starts an indentless sequence whose first item is a flow
        // collection at that item, not at its dash.
        let at_flow = matches!(bytes.get(start), Some(b'[' | b'{'));
        if at_flow && matches!(self.frames[block].kind, FrameKind::Seq { .. }) {
            let before = bytes.get(..start)?.iter().rposition(|&c| c != b' ');
            if let Some(dash) = before.filter(|&d| bytes[d] == b'-') {
                start = dash;
            }
        }
        let line = bytes.get(..start)?.iter().rposition(|&c| c == b'\n');
        Some(start - line.map_or(0, |l| l + 1))
    }

    /// A plain scalar in a flow collection continues only on lines indented
    /// more than the innermost block collection around the flow (YAML
    /// 1.2's `ns-flow-node(n+1)`; blank lines aside). saphyr reads any
    /// column; js-yaml, the reference's parser, ends the scalar before such
    /// a line and fails at its first token, with this error.
    fn plain_lines_in_flow(&self, from: &Marker, to: &Marker) -> Result<(), ParseError> {
        // Most scalars are on one line: no scan of their bytes.
        if from.line() == to.line() || self.outermost_flow().is_none() {
            return Ok(());
        }
        let (Some(from), Some(to)) = (self.offset(from), self.offset(to)) else {
            return Ok(());
        };
        let bytes = self.text.as_bytes();
        let scalar = bytes.get(from..to).unwrap_or_default();
        let min = self.block_indent().map_or(0, |column| column + 1);
        for (i, _) in scalar.iter().enumerate().filter(|(_, &c)| c == b'\n') {
            let line = from + i + 1;
            let rest = bytes.get(line..).unwrap_or_default();
            let spaces = rest.iter().take_while(|&&c| c == b' ').count();
            // Blank lines are folded whatever their indentation.
            let tabs = rest
                .iter()
                .skip(spaces)
                .take_while(|&&c| matches!(c, b'\t' | b'\r'));
            let token = line + spaces + tabs.count();
            if spaces < min && !matches!(bytes.get(token), None | Some(b'\n')) {
                return Err(ParseError::new(
                    "missed comma between flow collection entries",
                    Span::at(self.source, clamp_u32(token)),
                ));
            }
        }
        Ok(())
    }

    /// Handles one event; returns `true` at the end of the stream.
    fn event(&mut self, event: Event<'_>, span: Span) -> Result<bool, ParseError> {
        match event {
            Event::Nothing | Event::StreamStart | Event::DocumentEnd => {}
            Event::StreamEnd => return Ok(true),
            Event::DocumentStart(_) => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err(ParseError::new(
                        "expected a single document in the stream",
                        span,
                    ));
                }
            }
            Event::Alias(id) => {
                let Some(built) = self.anchors.get(&id) else {
                    return Err(ParseError::new("unidentified alias", span));
                };
                if self.frames.len() + built.height > MAX_DEPTH {
                    return Err(depth_error(span));
                }
                self.alias_nodes = self.alias_nodes.saturating_add(built.size);
                if self.alias_nodes > MAX_ALIAS_NODES {
                    return Err(ParseError::new(
                        format!("too many aliases expanded (more than {MAX_ALIAS_NODES} nodes)"),
                        span,
                    ));
                }
                let built = built.clone();
                self.deliver(built, false)?;
            }
            Event::Scalar(text, style, anchor, tag) => {
                let tag = tag.map(|t| full_tag(&t));
                let (value, form, merge) =
                    resolve_scalar(&text, style, tag.as_deref(), span, self.schema)?;
                let built = Built {
                    node: Node::scalar(value, span, form),
                    height: 0,
                    size: 1,
                };
                self.anchor(anchor, &built)?;
                self.deliver(built, merge)?;
            }
            Event::SequenceStart(anchor, tag) => {
                self.open_check(span)?;
                let tag = match tag.map(|t| full_tag(&t)).as_deref() {
                    None | Some("!") => CollectionTag::Plain,
                    Some(t) => match t.strip_prefix(CORE) {
                        Some("seq") => CollectionTag::Plain,
                        Some("omap") => CollectionTag::Omap,
                        Some("pairs") => CollectionTag::Pairs,
                        _ => return Err(tag_kind_error(t, "sequence", span)),
                    },
                };
                self.frames.push(Frame::open(
                    span,
                    anchor,
                    FrameKind::Seq {
                        items: Vec::new(),
                        tag,
                    },
                ));
            }
            Event::MappingStart(anchor, tag) => {
                self.open_check(span)?;
                let tag = match tag.map(|t| full_tag(&t)).as_deref() {
                    None | Some("!") => CollectionTag::Plain,
                    Some(t) => match t.strip_prefix(CORE) {
                        Some("map") => CollectionTag::Plain,
                        Some("set") => CollectionTag::Set,
                        _ => return Err(tag_kind_error(t, "mapping", span)),
                    },
                };
                self.frames.push(Frame::open(
                    span,
                    anchor,
                    FrameKind::Map {
                        entries: Vec::new(),
                        index: KeyIndex::default(),
                        overridable: SeededSet::default(),
                        pending: None,
                        tag,
                    },
                ));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(mut frame) = self.frames.pop() else {
                    return Err(ParseError::new("unbalanced collection end", span));
                };
                // `span` is the flow bracket's end, or unknown for block collections.
                let end = if span.is_known() { span.end } else { frame.end };
                frame.span = Span::bytes(frame.span.source, frame.span.start, end);
                let built = finish(frame)?;
                if let Some(anchor) = built.1 {
                    self.anchor(anchor, &built.0)?;
                }
                self.deliver(built.0, false)?;
            }
        }
        Ok(false)
    }

    /// Checks that a collection may start here (depth).
    fn open_check(&self, span: Span) -> Result<(), ParseError> {
        if self.frames.len() >= MAX_DEPTH {
            return Err(depth_error(span));
        }
        Ok(())
    }

    /// Remembers an anchored node for later aliases.
    fn anchor(&mut self, anchor: usize, built: &Built) -> Result<(), ParseError> {
        if anchor == 0 {
            return Ok(());
        }
        self.snapshot_nodes = self.snapshot_nodes.saturating_add(built.size);
        if self.snapshot_nodes > self.snapshot_budget {
            return Err(ParseError::new(
                "too many nested anchors to copy",
                built.node.span,
            ));
        }
        self.anchors.insert(anchor, built.clone());
        Ok(())
    }

    /// Adds a completed node to the collection under construction (or makes it the root).
    fn deliver(&mut self, built: Built, merge_key: bool) -> Result<(), ParseError> {
        if self.is_missed_block_key(&built.node) {
            return Err(ParseError::new(
                "incomplete explicit mapping pair; a key node is missed; or followed by a \
                 non-tabulated empty line",
                built.node.span,
            ));
        }
        let Some(frame) = self.frames.last_mut() else {
            self.root = Some(built.node);
            return Ok(());
        };
        frame.height = frame.height.max(built.height);
        frame.size = frame.size.saturating_add(built.size);
        if built.node.span.source == frame.span.source {
            frame.end = frame.end.max(built.node.span.end);
        }
        match &mut frame.kind {
            FrameKind::Seq { items, .. } => items.push(built.node),
            FrameKind::Map {
                entries,
                index,
                overridable,
                pending,
                ..
            } => match pending.take() {
                None => {
                    let span = built.node.span;
                    let key = match key_string(&built.node.value) {
                        Some(name) => Key {
                            name: self.keys.owned(name),
                            span,
                        },
                        None => {
                            let name = complex_key_name(&built.node, self.schema)?;
                            Key::complex(name, built.node)
                        }
                    };
                    if !merge_key
                        && index.get(entries, &key.name).is_some()
                        && !overridable.contains(&*key.name)
                    {
                        let error = ParseError::new("duplicated mapping key", span);
                        if self.duplicates == Duplicates::Fail {
                            return Err(error);
                        }
                        // The value replaces the first one (see below).
                        self.duplicated.push(error);
                    }
                    *pending = Some((key, merge_key));
                }
                Some((key, true)) => {
                    merge_into(entries, index, overridable, built.node, key.span)?;
                }
                Some((key, false)) => {
                    overridable.remove(&*key.name);
                    match index.get(entries, &key.name) {
                        Some(i) => {
                            if let Some(slot) = entries.get_mut(i) {
                                *slot = (key, built.node);
                            }
                        }
                        None => {
                            index.push(entries, key, built.node);
                        }
                    }
                }
            },
        }
        Ok(())
    }
}

/// Whether `rest` can follow a block scalar indicator on its header line:
/// indentation/chomping indicators, blanks and an optional comment.
fn is_block_header_rest(rest: &str) -> bool {
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == '+' || c == '-');
    let trimmed = rest.trim_start_matches([' ', '\t']);
    trimmed.is_empty() || (trimmed.starts_with('#') && trimmed.len() < rest.len())
}

/// Finds entries of a map under construction by key: a linear scan for small
/// maps, a hash index once the map grows (keeps large maps linear-time).
#[derive(Default)]
struct KeyIndex {
    map: Option<SeededMap<String, usize>>,
}

impl KeyIndex {
    const THRESHOLD: usize = 32;

    fn get(&self, entries: &[(Key, Node)], name: &str) -> Option<usize> {
        match &self.map {
            Some(map) => map.get(name).copied(),
            None => entries.iter().position(|(k, _)| *k.name == *name),
        }
    }

    fn push(&mut self, entries: &mut Vec<(Key, Node)>, key: Key, node: Node) {
        if let Some(map) = &mut self.map {
            map.insert(key.name.to_string(), entries.len());
        } else if entries.len() + 1 >= Self::THRESHOLD {
            let mut map: SeededMap<String, usize> = entries
                .iter()
                .enumerate()
                .map(|(i, (k, _))| (k.name.to_string(), i))
                .collect();
            map.insert(key.name.to_string(), entries.len());
            self.map = Some(map);
        }
        entries.push((key, node));
    }
}

/// Merges `source` (a map or a list of maps) into a map under construction:
/// existing keys win, and earlier sources win over later ones.
fn merge_into(
    entries: &mut Vec<(Key, Node)>,
    index: &mut KeyIndex,
    overridable: &mut SeededSet<String>,
    source: Node,
    key_span: Span,
) -> Result<(), ParseError> {
    let unacceptable = |span: Span| {
        ParseError::new(
            "cannot merge mappings; the provided source object is unacceptable",
            span.or(key_span),
        )
    };
    let sources = match source.value {
        Value::Map(m) => vec![m],
        Value::Seq(items) => {
            let mut maps = Vec::with_capacity(items.len());
            for item in items {
                match item.value {
                    Value::Map(m) => maps.push(m),
                    _ => return Err(unacceptable(item.span)),
                }
            }
            maps
        }
        _ => return Err(unacceptable(source.span)),
    };
    for map in sources {
        for (key, node) in map.into_entries() {
            if index.get(entries, &key.name).is_none() {
                overridable.insert(key.name.to_string());
                index.push(entries, key, node);
            }
        }
    }
    Ok(())
}

/// Turns a finished frame into a node; returns its anchor id if it has one.
fn finish(frame: Frame) -> Result<(Built, Option<usize>), ParseError> {
    let span = frame.span;
    let value = match frame.kind {
        FrameKind::Seq { items, tag } => match tag {
            CollectionTag::Omap => {
                let mut seen = SeededSet::default();
                for item in &items {
                    let ok = match item.as_map() {
                        Some(m) if m.len() == 1 => {
                            m.first().is_some_and(|(k, _)| seen.insert(k.name.clone()))
                        }
                        _ => false,
                    };
                    if !ok {
                        return Err(cannot_resolve("omap", span));
                    }
                }
                Value::Seq(items)
            }
            CollectionTag::Pairs => {
                let mut pairs = Vec::with_capacity(items.len());
                for item in items {
                    let item_span = item.span;
                    match item.value {
                        Value::Map(m) if m.len() == 1 => {
                            for (k, v) in m.into_entries() {
                                let key = Node::new(Value::String(k.name.into()), k.span);
                                pairs.push(Node::new(Value::Seq(vec![key, v]), item_span));
                            }
                        }
                        _ => return Err(cannot_resolve("pairs", span)),
                    }
                }
                Value::Seq(pairs)
            }
            _ => Value::Seq(items),
        },
        FrameKind::Map {
            entries,
            pending,
            tag,
            ..
        } => {
            if let Some((key, _)) = pending {
                return Err(ParseError::new("mapping key without a value", key.span));
            }
            if tag == CollectionTag::Set && entries.iter().any(|(_, v)| !v.is_null()) {
                return Err(cannot_resolve("set", span));
            }
            Value::Map(Map::from_entries(entries))
        }
    };
    let anchor = (frame.anchor != 0).then_some(frame.anchor);
    Ok((
        Built {
            node: Node::new(value, span),
            height: frame.height + 1,
            size: frame.size,
        },
        anchor,
    ))
}

fn cannot_resolve(tag: &str, span: Span) -> ParseError {
    ParseError::new(
        format!("cannot resolve a node with !<{CORE}{tag}> explicit tag"),
        span,
    )
}

fn tag_kind_error(tag: &str, kind: &str, span: Span) -> ParseError {
    let expected = match tag.strip_prefix(CORE) {
        Some("str" | "int" | "float" | "bool" | "null" | "timestamp" | "binary" | "merge") => {
            "scalar"
        }
        Some("map" | "set") => "mapping",
        Some("seq" | "omap" | "pairs") => "sequence",
        _ => return ParseError::new(format!("unknown tag !<{tag}>"), span),
    };
    ParseError::new(
        format!(
            "unacceptable node kind for !<{tag}> tag; it should be \"{expected}\", not \"{kind}\""
        ),
        span,
    )
}

/// The name of a complex key (a collection), see [`Key`]: js-yaml's
/// `String(key)` with [`Schema::JsYaml`], the key's flow form with
/// [`Schema::Core`].
fn complex_key_name(key: &Node, schema: Schema) -> Result<String, ParseError> {
    if schema == Schema::Core {
        return Ok(crate::emit::flow_text(key, crate::emit::Style::AsWritten));
    }
    const OBJECT: &str = "[object Object]";
    let Value::Seq(items) = &key.value else {
        return Ok(OBJECT.to_string());
    };
    // `Array.prototype.join`: null items are empty, maps `[object Object]`;
    // js-yaml refuses nested sequences (their rendering can explode).
    let mut name = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            name.push(',');
        }
        match &item.value {
            Value::Null => {}
            Value::Map(_) => name.push_str(OBJECT),
            Value::Seq(_) => {
                return Err(ParseError::new(
                    "nested arrays are not supported inside keys",
                    item.span,
                ))
            }
            scalar => name.push_str(&key_string(scalar).unwrap_or_default()),
        }
    }
    Ok(name)
}

/// Resolves a scalar: explicit tag, else implicit (plain only), else string.
/// Returns the value, how it was written and whether it is the merge key `<<`.
fn resolve_scalar(
    text: &str,
    style: ScalarStyle,
    tag: Option<&str>,
    span: Span,
    schema: Schema,
) -> Result<(Value, Form, bool), ParseError> {
    let string = || Value::String(text.to_string());
    let Some(tag) = tag else {
        return Ok(match style {
            ScalarStyle::Plain if text == "<<" => (string(), Form::Plain, true),
            ScalarStyle::Plain => {
                let (value, form) = resolve_plain_form(text, schema);
                (value, form, false)
            }
            ScalarStyle::Literal | ScalarStyle::Folded => (string(), Form::Block, false),
            ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => {
                (string(), Form::Quoted, false)
            }
        });
    };
    if tag == "!" {
        return Ok((string(), Form::Tagged(ScalarTag::NonSpecific), false));
    }
    let core = schema == Schema::Core;
    let fail = |name: &str| cannot_resolve(name, span);
    let (value, tag) = match tag.strip_prefix(CORE) {
        Some("str") => (string(), ScalarTag::Str),
        // js-yaml reads an empty node as null, but not an empty quoted or
        // block scalar (`!!null ''` fails there).
        Some("null")
            if is_null(text) && (core || !text.is_empty() || style == ScalarStyle::Plain) =>
        {
            (Value::Null, ScalarTag::Null)
        }
        Some("null") => return Err(fail("null")),
        Some("bool") => match resolve_bool(text) {
            Some(b) => (Value::Bool(b), ScalarTag::Bool),
            None => return Err(fail("bool")),
        },
        Some("int") => match if core {
            core_int(text)
        } else {
            resolve_int(text)
        } {
            Some(n) => (Value::Number(n), ScalarTag::Int),
            None => return Err(fail("int")),
        },
        Some("float") => match if core {
            core_float(text)
        } else {
            resolve_float(text)
        } {
            Some(n) => (Value::Number(n), ScalarTag::Float),
            None => return Err(fail("float")),
        },
        Some("timestamp") if core => (string(), ScalarTag::Timestamp),
        Some("timestamp") => match parse_yaml_timestamp(text) {
            Some(t) => (Value::Timestamp(t), ScalarTag::Timestamp),
            None => return Err(fail("timestamp")),
        },
        Some("binary") if core => (string(), ScalarTag::Binary),
        // js-yaml would make bytes of it, which no TOSCA type holds.
        Some("binary") => {
            return Err(ParseError::new(
                "`!!binary` values are not supported: write the Base64 text as a string",
                span,
            ))
        }
        Some("merge") if text == "<<" => return Ok((string(), Form::Plain, true)),
        Some("merge") => return Err(fail("merge")),
        _ => return Err(tag_kind_error(tag, "scalar", span)),
    };
    Ok((value, Form::Tagged(tag), false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deep_equal;
    use crate::span::Location;
    use crate::value::Tag;

    thread_local! {
        /// The text the tests' spans are located in ([`reading`]).
        static TEXT: std::cell::RefCell<String> = Default::default();
    }

    /// Remembers `text` as the one spans are located in.
    fn reading(text: &str) {
        TEXT.with(|t| *t.borrow_mut() = text.to_string());
    }

    /// Lines and columns of spans in the text being read.
    trait Located {
        fn loc(&self) -> Location;
        fn start(&self) -> (u32, u32) {
            self.loc().start()
        }
    }

    impl Located for Span {
        fn loc(&self) -> Location {
            TEXT.with(|t| self.locate(&t.borrow()))
        }
    }

    fn p(text: &str) -> Node {
        reading(text);
        match parse(text, SourceId(7)) {
            Ok(n) => n,
            Err(e) => panic!("unexpected error {e} for {text:?}"),
        }
    }

    fn err(text: &str) -> ParseError {
        reading(text);
        match parse(text, SourceId(7)) {
            Ok(n) => panic!("expected an error for {text:?}, got {n:?}"),
            Err(e) => e,
        }
    }

    /// A start position (tests of where things start).
    fn at(line: u32, col: u32) -> (u32, u32) {
        (line, col)
    }

    /// A range.
    fn rg(line: u32, col: u32, end_line: u32, end_col: u32) -> Span {
        TEXT.with(|t| {
            let text = t.borrow();
            let index = LineIndex::new(&text);
            let offset = |line, col| index.offset(&text, line, col).unwrap_or(u32::MAX);
            Span::bytes(SourceId(7), offset(line, col), offset(end_line, end_col))
        })
    }

    #[test]
    fn keys_without_colon_are_reported_on_their_own_line() {
        let cases = [
            // The next token is a key on a later line, after a comment.
            ("a:\n  b: 1\n  c\n\n  # comment\n  d: 3\n", (3, 3)),
            // A more indented line continues the plain scalar `properties`.
            ("x:\n  type: t\n  properties\n    p: 1\n", (3, 3)),
            ("a:\n  - x: 1\n    y\n    z: 2\n", (3, 5)),
            ("a:\n  b: |\n    x\n  c\n  d: 1\n", (4, 3)),
            // `c` and `d` read as the multi-line key `c d`.
            ("a:\n  c\n  d: 1\n", (2, 3)),
            ("c\nd: 1\n", (1, 1)),
        ];
        for (text, (line, col)) in cases {
            let e = err(text);
            assert_eq!(
                e.message, "could not find expected ':' after this key",
                "{text:?}"
            );
            assert_eq!(
                (e.span.loc().line, e.span.loc().col),
                (line, col),
                "{text:?}"
            );
        }
        // Where the wrong line is the one saphyr stops at, it stays there.
        for (text, (line, col)) in [
            ("a:\n  b: 1\n   c: 2\nd: 3\n", (3, 5)),
            ("a: b: c\n", (1, 5)),
        ] {
            let e = err(text);
            assert_eq!(e.message, "mapping values are not allowed in this context");
            assert_eq!(
                (e.span.loc().line, e.span.loc().col),
                (line, col),
                "{text:?}"
            );
        }
    }

    fn scalar(text: &str) -> Value {
        p(&format!("v: {text}\n"))
            .get("v")
            .map(|n| n.value.clone())
            .unwrap_or(Value::String("<missing>".into()))
    }

    #[test]
    fn locations_of_nodes_and_keys() {
        let doc = p("a: 1\nb:\n  - x\n  - y: 2\n    z: [1, {q: r}]\nc:\n- i1\n- i2\n");
        assert_eq!(doc.span, rg(1, 1, 8, 5));
        let m = doc.as_map().unwrap_or_else(|| panic!("map"));
        let (ka, va) = m.get_entry("a").unwrap_or_else(|| panic!("a"));
        assert_eq!((ka.span, va.span), (rg(1, 1, 1, 2), rg(1, 4, 1, 5)));
        let b = doc.get("b").unwrap_or_else(|| panic!("b"));
        assert_eq!(b.span, rg(3, 3, 5, 19));
        let items = b.as_seq().unwrap_or_else(|| panic!("seq"));
        assert_eq!(items[0].span, rg(3, 5, 3, 6));
        assert_eq!(items[1].span, rg(4, 5, 5, 19));
        let (kz, z) = items[1]
            .as_map()
            .and_then(|m| m.get_entry("z"))
            .unwrap_or_else(|| panic!("z"));
        assert_eq!((kz.span, z.span), (rg(5, 5, 5, 6), rg(5, 8, 5, 19)));
        let flow = z.as_seq().unwrap_or_else(|| panic!("flow"));
        assert_eq!(flow[0].span, rg(5, 9, 5, 10));
        assert_eq!(flow[1].span, rg(5, 12, 5, 18));
        let (kq, q) = flow[1]
            .as_map()
            .and_then(|m| m.get_entry("q"))
            .unwrap_or_else(|| panic!("q"));
        assert_eq!((kq.span, q.span), (rg(5, 13, 5, 14), rg(5, 16, 5, 17)));
        // Indentless sequence: starts at its first dash.
        let c = doc.get("c").unwrap_or_else(|| panic!("c"));
        assert_eq!(c.span, rg(7, 1, 8, 5));
        assert_eq!(c.as_seq().map(|s| s[1].span), Some(rg(8, 3, 8, 5)));
        // Empty values are zero-width; quoted scalars include their quotes.
        let doc = p("k:\nq: 'a b'  # c\n");
        assert_eq!(doc.get("k").map(|n| n.span), Some(rg(1, 2, 1, 2)));
        assert_eq!(doc.get("q").map(|n| n.span), Some(rg(2, 4, 2, 9)));
        assert_eq!(doc.span, rg(1, 1, 2, 9));
    }

    #[test]
    fn saphyr_path_ranges_of_multi_line_nodes() {
        // Multi-line scalars and flows are read by the saphyr path only.
        let doc = p("a: |\n  x\n  yy\n\n\nb: plain\n  multi  \nc: [1,\n  2 ]\nd: {x: [\n ]}\n");
        assert_eq!(doc.get("a").map(|n| n.span), Some(rg(1, 4, 3, 5)));
        assert_eq!(doc.get("b").map(|n| n.span), Some(rg(6, 4, 7, 8)));
        assert_eq!(doc.get("c").map(|n| n.span), Some(rg(8, 4, 9, 6)));
        assert_eq!(doc.get("d").map(|n| n.span), Some(rg(10, 4, 11, 4)));
        assert_eq!(doc.span, rg(1, 1, 11, 4));
        // An empty block scalar covers its indicator.
        let doc = p("e: |\nf: 1\n");
        assert_eq!(doc.get("e").map(|n| n.span), Some(rg(1, 4, 1, 5)));
        // Anchored and tagged scalars start at their properties.
        let doc = p("g: &a !!str x\nh: *a\n");
        assert_eq!(doc.get("g").map(|n| n.span), Some(rg(1, 4, 1, 14)));
    }

    #[test]
    fn block_scalars_start_at_their_indicator() {
        let doc = p("a: |\n  x\n\n  y\nb: >- # c | d\n\n  z\nc:\n  - |+\nd: é |\n");
        assert_eq!(doc.get("a").map(|n| n.span.start()), Some(at(1, 4)));
        assert_eq!(doc.get("b").map(|n| n.span.start()), Some(at(5, 4)));
        let c = doc
            .get("c")
            .and_then(Node::as_seq)
            .unwrap_or_else(|| panic!("c"));
        assert_eq!(c[0].span.start(), at(9, 5));
        assert_eq!(doc.get("d").and_then(Node::as_str), Some("é |"));
        let doc = p("k: é\nv: |2\n   x\n");
        assert_eq!(doc.get("v").map(|n| n.span.start()), Some(at(2, 4)));
        assert_eq!(doc.get("v").and_then(Node::as_str), Some(" x\n"));
        let doc = p("- |\r\n  x\r\n");
        assert_eq!(doc.as_seq().map(|s| s[0].span.start()), Some(at(1, 3)));
    }

    #[test]
    fn locations_count_characters_not_bytes() {
        let doc = p("é: ü\nk: [ä, ö]\n");
        assert_eq!(doc.get("é").map(|n| n.span.start()), Some(at(1, 4)));
        let k = doc
            .get("k")
            .and_then(Node::as_seq)
            .unwrap_or_else(|| panic!("k"));
        assert_eq!(k[1].span.start(), at(2, 8));
    }

    #[test]
    fn scalar_resolution_follows_js_yaml_core_schema() {
        use Value::*;
        let cases: Vec<(&str, Value)> = vec![
            ("~", Null),
            ("null", Null),
            ("Null", Null),
            ("NULL", Null),
            ("", Null),
            ("nULL", String("nULL".into())),
            ("true", Bool(true)),
            ("True", Bool(true)),
            ("TRUE", Bool(true)),
            ("false", Bool(false)),
            ("FALSE", Bool(false)),
            ("tRUE", String("tRUE".into())),
            ("yes", String("yes".into())),
            ("no", String("no".into())),
            ("on", String("on".into())),
            ("off", String("off".into())),
            ("y", String("y".into())),
            ("1", Number(1.0)),
            ("-12", Number(-12.0)),
            ("+12", Number(12.0)),
            ("1_000", Number(1000.0)),
            ("012", Number(12.0)),
            ("0x1F", Number(31.0)),
            ("0x_1F", Number(31.0)),
            ("0o17", Number(15.0)),
            ("0b101", Number(5.0)),
            ("-0x10", Number(-16.0)),
            ("0X1F", String("0X1F".into())),
            ("0x", String("0x".into())),
            ("1_", String("1_".into())),
            ("1.0", Number(1.0)),
            ("1.5", Number(1.5)),
            ("-1.5e3", Number(-1500.0)),
            ("1e3", Number(1000.0)),
            ("1.", Number(1.0)),
            (".5", Number(0.5)),
            ("-.5", String("-.5".into())),
            ("1_0.5", Number(10.5)),
            (".inf", Number(f64::INFINITY)),
            ("-.Inf", Number(f64::NEG_INFINITY)),
            ("+.INF", Number(f64::INFINITY)),
            (".nan", Number(f64::NAN)),
            (".NaN", Number(f64::NAN)),
            ("1:20", String("1:20".into())),
            ("1.2.3", String("1.2.3".into())),
            ("2023-01-01", Timestamp(1_672_531_200_000.0)),
            ("2023-01-01T10:00:00Z", Timestamp(1_672_567_200_000.0)),
            ("2023-01-01 10:00:00 +01:00", Timestamp(1_672_563_600_000.0)),
            ("2023-1-1", String("2023-1-1".into())),
            ("'1'", String("1".into())),
            ("\"true\"", String("true".into())),
            ("'null'", String("null".into())),
            ("'2023-01-01'", String("2023-01-01".into())),
            ("!!str 1", String("1".into())),
            ("!!str", String("".into())),
            ("!!int '7'", Number(7.0)),
            ("!!float 1", Number(1.0)),
            ("!!bool 'true'", Bool(true)),
            ("!!null", Null),
            ("!!null ~", Null),
            ("!!timestamp 2023-01-01", Timestamp(1_672_531_200_000.0)),
            ("! 12", String("12".into())),
            ("<<", String("<<".into())),
            ("hello world", String("hello world".into())),
        ];
        for (text, expected) in cases {
            let got = scalar(text);
            assert!(
                deep_equal(&got, &expected),
                "{text:?}: got {got:?}, expected {expected:?}"
            );
        }
    }

    /// The value and form of `v` in `v: {text}` under `schema`.
    fn scalar_with(text: &str, schema: Schema) -> (Value, Form) {
        let doc = parse_with(&format!("v: {text}\n"), SourceId(7), schema)
            .unwrap_or_else(|e| panic!("{text:?}: {e}"));
        let v = doc.get("v").unwrap_or_else(|| panic!("v"));
        (v.value.clone(), v.form)
    }

    #[test]
    fn forms_tell_how_scalars_were_written() {
        use Form::*;
        for schema in [Schema::JsYaml, Schema::Core] {
            let cases = [
                ("1", Int),
                ("-12", Int),
                ("0x1F", Int),
                ("1.0", Float),
                ("1e3", Float),
                (".inf", Float),
                ("x", Plain),
                ("true", Plain),
                ("", Plain),
                ("'1'", Quoted),
                ("\"1.0\"", Quoted),
                ("|\n  x", Block),
                (">\n  x", Block),
                ("!!float 1", Tagged(Tag::Float)),
                ("!!int '1'", Tagged(Tag::Int)),
                ("!!str 1", Tagged(Tag::Str)),
                ("!!bool true", Tagged(Tag::Bool)),
                ("!!null ~", Tagged(Tag::Null)),
                ("! 1", Tagged(Tag::NonSpecific)),
            ];
            for (text, form) in cases {
                assert_eq!(scalar_with(text, schema).1, form, "{text:?} {schema:?}");
            }
        }
        assert!(Form::Float.is_float() && Form::Tagged(Tag::Float).is_float());
        assert!(Form::Int.is_int() && !Form::Int.is_float());
        assert_eq!(Form::Tagged(Tag::Binary).tag(), Some(Tag::Binary));
        assert_eq!(Form::Quoted.tag(), None);
        // Collections and processor-made nodes have no scalar form.
        assert_eq!(p("a: [1]\n").form, Form::Other);
        assert_eq!(Node::string("x").form, Form::Other);
    }

    #[test]
    fn the_core_schema_is_yaml_1_2_exactly() {
        use Value::*;
        let cases: Vec<(&str, Value, Value)> = vec![
            // (text, js-yaml, YAML 1.2 core)
            ("1_000", Number(1000.0), String("1_000".into())),
            ("0b101", Number(5.0), String("0b101".into())),
            ("-0x10", Number(-16.0), String("-0x10".into())),
            ("0o17", Number(15.0), Number(15.0)),
            ("012", Number(12.0), Number(12.0)),
            ("+12", Number(12.0), Number(12.0)),
            ("-.5", String("-.5".into()), Number(-0.5)),
            ("+.5", String("+.5".into()), Number(0.5)),
            ("1.", Number(1.0), Number(1.0)),
            ("1_0.5", Number(10.5), String("1_0.5".into())),
            ("1e", String("1e".into()), String("1e".into())),
            (".", String(".".into()), String(".".into())),
            (
                "2023-01-01",
                Timestamp(1_672_531_200_000.0),
                String("2023-01-01".into()),
            ),
            (
                "2023-01-01T10:00:00+01:00",
                Timestamp(1_672_563_600_000.0),
                String("2023-01-01T10:00:00+01:00".into()),
            ),
        ];
        for (text, js, core) in cases {
            let got_js = scalar_with(text, Schema::JsYaml).0;
            let got_core = scalar_with(text, Schema::Core).0;
            assert!(deep_equal(&got_js, &js), "{text:?}: js-yaml {got_js:?}");
            assert!(deep_equal(&got_core, &core), "{text:?}: core {got_core:?}");
        }
        // A timestamp-looking plain scalar is the string written, and a
        // timestamp-looking key is that string too (js-yaml: a Date's text).
        let doc = parse_with("2023-01-01: x\n", SourceId(7), Schema::Core)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(doc.get("2023-01-01").is_some());
    }

    #[test]
    fn the_core_schema_keeps_timestamp_and_binary_tags_for_the_validator() {
        let (value, form) = scalar_with("!!timestamp 2023-01-01", Schema::Core);
        assert_eq!(
            (value.kind_name(), form),
            ("string", Form::Tagged(Tag::Timestamp))
        );
        let (value, form) = scalar_with("!!timestamp 2023-01-01", Schema::JsYaml);
        assert_eq!(
            (value.kind_name(), form),
            ("timestamp", Form::Tagged(Tag::Timestamp))
        );
        let (value, form) = scalar_with("!!binary aGVsbG8=", Schema::Core);
        assert!(deep_equal(&value, &Value::String("aGVsbG8=".into())));
        assert_eq!(form, Form::Tagged(Tag::Binary));
        // js-yaml's schema as the reference path reads it: refused.
        let e = parse("v: !!binary aGVsbG8=\n", SourceId(7)).err();
        assert!(e.is_some_and(|e| e.message.starts_with("`!!binary` values are not supported")));
        // Strictness of the core tags.
        assert!(parse_with("v: !!int 1_0\n", SourceId(7), Schema::Core).is_err());
        assert!(parse_with("v: !!int 1_0\n", SourceId(7), Schema::JsYaml).is_ok());
        let (value, form) = scalar_with("!!float 1", Schema::Core);
        assert!(deep_equal(&value, &Value::Number(1.0)));
        assert!(form.is_float());
    }

    #[test]
    fn explicit_tags_are_checked() {
        assert_eq!(err("a: !foo x\n").message, "unknown tag !<!foo>");
        assert_eq!(err("a: !foo x\n").span.start(), at(1, 4));
        assert_eq!(
            err("a: !!int x\n").message,
            "cannot resolve a node with !<tag:yaml.org,2002:int> explicit tag"
        );
        assert!(err("a: !!map x\n")
            .message
            .starts_with("unacceptable node kind"));
        assert!(err("a: !!seq {}\n")
            .message
            .starts_with("unacceptable node kind"));
        assert!(err("a: !!str [1]\n")
            .message
            .starts_with("unacceptable node kind"));
        assert_eq!(err("a: !x [1]\n").message, "unknown tag !<!x>");
        let doc = p("a: !!map {b: 1}\nc: !!seq [1]\ns: !!set {x, y}\nw: !!pairs [a: 1]\n");
        assert_eq!(
            doc.get("a").and_then(|a| a.get("b")).and_then(Node::as_f64),
            Some(1.0)
        );
        assert_eq!(doc.get("s").and_then(Node::as_map).map(Map::len), Some(2));
        let pairs = doc
            .get("w")
            .and_then(Node::as_seq)
            .unwrap_or_else(|| panic!("w"));
        assert_eq!(pairs[0].as_seq().map(Vec::len), Some(2));
    }

    #[test]
    fn map_keys_are_javascript_strings() {
        let doc = p("1: a\ntrue: b\nnull: c\n0x10: e\n1.50: f\n'x': g\n.inf: h\n");
        let keys: Vec<&str> = doc.as_map().map(|m| m.keys().collect()).unwrap_or_default();
        assert_eq!(keys, ["1", "true", "null", "16", "1.5", "x", "Infinity"]);
        assert!(doc.get("1").is_some());
        assert!(doc.get("true").is_some());
        assert!(doc.get("16").is_some());
        assert!(doc.get("1.5").is_some());
        assert!(doc.get("x").is_some());
        // `null` and `~` both become "null": a duplicate.
        assert_eq!(err("null: c\n~: d\n").message, "duplicated mapping key");
        let d = p("2023-01-01: x\n");
        assert_eq!(
            d.as_map()
                .and_then(|m| m.first())
                .map(|(k, _)| k.name.clone()),
            Some("Sun Jan 01 2023 00:00:00 GMT+0000 (Coordinated Universal Time)".into())
        );
    }

    fn key_names(doc: &Node) -> Vec<&str> {
        doc.as_map().map(|m| m.keys().collect()).unwrap_or_default()
    }

    fn core(text: &str) -> Result<Node, ParseError> {
        reading(text);
        parse_with(text, SourceId(7), Schema::Core)
    }

    #[test]
    fn complex_keys_are_named_like_js_yaml_and_keep_their_tree() {
        let doc = p("- [ service, 2 ]: [ software, service ]\n");
        let entry = doc
            .as_seq()
            .and_then(|s| s[0].as_map())
            .and_then(Map::first);
        let (key, value) = entry.expect("one entry");
        assert_eq!(&*key.name, "service,2");
        assert_eq!(key.span, rg(1, 3, 1, 17));
        let tree = key.tree().expect("the key's tree");
        assert_eq!(tree.span, key.span);
        let items: Vec<String> = tree
            .as_seq()
            .map(|s| s.iter().map(|n| format!("{:?}", n.value)).collect())
            .unwrap_or_default();
        assert_eq!(items, ["String(\"service\")", "Number(2.0)"]);
        assert_eq!(value.as_seq().map(Vec::len), Some(2));
        // js-yaml's `String(key)`: nulls empty, maps `[object Object]`,
        // numbers and dates as JavaScript writes them.
        let doc = p("? [a, {b: 1}, null, 1.50, true, ~, 2023-01-01]\n: x\n? {a: 1}\n: y\n[]: z\n");
        assert_eq!(
            key_names(&doc),
            [
                "a,[object Object],,1.5,true,,Sun Jan 01 2023 00:00:00 GMT+0000 (Coordinated Universal Time)",
                "[object Object]",
                ""
            ]
        );
        // Aliases and flow mappings as keys; scalar keys keep no tree.
        let doc = p("a: &x [1, b]\n*x : c\n{k: [v]}: d\n");
        assert_eq!(key_names(&doc), ["a", "1,b", "[object Object]"]);
        let m = doc.as_map().expect("map");
        assert!(m.get_entry("a").is_some_and(|(k, _)| k.tree().is_none()));
        assert!(m.get_entry("1,b").is_some_and(|(k, _)| k.tree().is_some()));
        assert_eq!(m.get("1,b").and_then(Node::as_str), Some("c"));
        // Inside a flow mapping.
        let doc = p("x: {[a, b]: 1, c: 2}\n");
        assert_eq!(doc.get("x").map(key_names), Some(vec!["a,b", "c"]));
    }

    #[test]
    fn complex_key_errors_follow_js_yaml() {
        let e = err("? [a, [b]]\n: x\n");
        assert_eq!(e.message, "nested arrays are not supported inside keys");
        assert_eq!(e.span.start(), at(1, 7));
        // Duplicates are found by name: maps all read `[object Object]`,
        // and `[a, b]` is `a,b`.
        let e = err("{ a: 1 }: 34\n{ b: 1 }: 35\n");
        assert_eq!(
            (e.message.as_str(), e.span.start()),
            ("duplicated mapping key", at(2, 1))
        );
        assert_eq!(err("[a, b]: 1\na,b: 2\n").span.start(), at(2, 1));
    }

    fn saphyr(text: &str) -> Result<Node, ParseError> {
        reading(text);
        parse_saphyr(text, SourceId(7))
    }

    /// Values js-yaml 4 gives (checked with js-yaml 4.1), except that the
    /// blank before the first line break is not content, as in YAML 1.2
    /// (js-yaml 4.1.0 keeps it; docs/spec-deviations.md).
    #[test]
    fn quoted_scalars_may_continue_in_any_column_like_js_yaml() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "description: \"A multiline description \nusing a quoted string\"\n",
                "description",
                "A multiline description using a quoted string",
            ),
            ("a: 'it''s\n x\n\n y'\n", "a", "it's x\ny"),
            ("p: \"\\\nR0lG\\\nOTk6\\\n+f/+\"\n", "p", "R0lGOTk6+f/+"),
            ("a: \"x\n\ty\"\n", "a", "x y"),
            ("a: \"x \\\ny\"\n", "a", "x y"),
            ("a: \"x\n  \n\"\n", "a", "x\n"),
            ("a: \"x\n---y\"\n", "a", "x ---y"),
        ];
        for &(text, key, want) in cases {
            for (path, doc) in [
                ("parse", parse(text, SourceId(7))),
                ("saphyr", saphyr(text)),
            ] {
                let doc = doc.unwrap_or_else(|e| panic!("{path}: {e} for {text:?}"));
                assert_eq!(
                    doc.get(key).and_then(Node::as_str),
                    Some(want),
                    "{path}: {text:?}"
                );
            }
        }
    }

    /// A block mapping entry without its key (`: x`) fails as in js-yaml
    /// 4.1, at its `:`; an empty key written with `?`, in a flow mapping,
    /// or quoted stays a key (checked with js-yaml 4.1). The core schema
    /// reads YAML 1.2's null key.
    #[test]
    fn a_block_entry_without_its_key_fails_like_js_yaml() {
        let message = "incomplete explicit mapping pair; a key node is missed; or followed by \
                       a non-tabulated empty line";
        for (text, at) in [
            (": x\n", 0),
            ("a: 1\n: x\n", 5),
            ("a:\n  : x\n", 5),
            ("- : x\n", 2),
            ("? : x\n", 2),
            ("a: 1\n:\n", 5),
        ] {
            for (path, read) in [
                ("parse", parse(text, SourceId(7))),
                ("saphyr", saphyr(text)),
            ] {
                let e = read
                    .err()
                    .unwrap_or_else(|| panic!("{path}: {text:?} read"));
                assert_eq!(
                    (e.message.as_str(), e.span.start),
                    (message, at),
                    "{path}: {text:?}"
                );
            }
        }
        let json = |text: &str| saphyr(text).map(|n| crate::json::to_json(&n));
        for (text, want) in [
            ("? \n: x\n", r#"{"null":"x"}"#),
            ("a: 1\n?\n: x\n", r#"{"a":1,"null":"x"}"#),
            ("{: x}\n", r#"{"null":"x"}"#),
            ("[: x]\n", r#"[{"null":"x"}]"#),
            ("'': x\n", r#"{"":"x"}"#),
        ] {
            assert_eq!(json(text).as_deref(), Ok(want), "{text:?}");
        }
        let core = parse_with(": x\n", SourceId(7), Schema::Core).map(|n| crate::json::to_json(&n));
        assert_eq!(core.as_deref(), Ok(r#"{"null":"x"}"#));
    }

    /// `!!null` on an empty quoted or block scalar fails as in js-yaml 4.1
    /// (only an empty node is its null); the core schema reads null.
    #[test]
    fn a_null_tag_on_an_empty_string_fails_like_js_yaml() {
        for text in ["v: !!null ''\n", "v: [!!null \"\"]\n", "v: !!null |\n"] {
            let e = err(text);
            assert_eq!(
                e.message, "cannot resolve a node with !<tag:yaml.org,2002:null> explicit tag",
                "{text:?}"
            );
            let core = parse_with(text, SourceId(7), Schema::Core);
            assert!(core.is_ok(), "core: {text:?}");
        }
        assert!(p("v: !!null\n").get("v").is_some_and(Node::is_null));
    }

    /// Lines of a flow collection indented no more than the block around
    /// it (or with a tab) read as js-yaml 4.1 and libyaml read them (saphyr
    /// stops at them), spans as written; a line that would continue a plain
    /// scalar stays an error, as in js-yaml, and so does a document marker.
    #[test]
    fn flow_collections_may_continue_in_any_column_like_js_yaml() {
        let json = |text: &str| saphyr(text).map(|n| crate::json::to_json(&n));
        let cases: &[(&str, &str)] = &[
            ("x:\n  p: [a, b,\n  c]\n", r#"{"x":{"p":["a","b","c"]}}"#),
            (
                "x:\n  p: [a, b,\nc]\nq: 1\n",
                r#"{"x":{"p":["a","b","c"]},"q":1}"#,
            ),
            ("x:\n  p: {a: 1,\n  b: 2}\n", r#"{"x":{"p":{"a":1,"b":2}}}"#),
            ("x:\n  p: [\n  a, b\n  ]\n", r#"{"x":{"p":["a","b"]}}"#),
            (
                "x:\n  p: [a,\n b]\n  q: 1\n",
                r#"{"x":{"p":["a","b"],"q":1}}"#,
            ),
            ("a:\n  b: [c\n  , d]\n", r#"{"a":{"b":["c","d"]}}"#),
            ("a:\n  - [b,\n  c]\n  - d\n", r#"{"a":[["b","c"],"d"]}"#),
            ("- [\n\t]\n", r#"[[]]"#),
            ("a: [b,\n\tc]\n", r#"{"a":["b","c"]}"#),
            ("a: [b, # c\nd]\n", r#"{"a":["b","d"]}"#),
            ("a: ['it''s [x',\nb]\n", r#"{"a":["it's [x","b"]}"#),
            ("- 1: {'q':\n0.1.2\n# c\n}\n", r#"[{"1":{"q":"0.1.2"}}]"#),
            (
                "- - [a,\n b, \"c\n d\", [e,\nf], {g: h,\ni: j}]\n- k\n",
                r#"[[["a","b","c d",["e","f"],{"g":"h","i":"j"}]],"k"]"#,
            ),
        ];
        for &(text, want) in cases {
            assert_eq!(json(text).as_deref(), Ok(want), "{text:?}");
            assert_eq!(
                parse(text, SourceId(7))
                    .map(|n| crate::json::to_json(&n))
                    .as_deref(),
                Ok(want),
                "parse: {text:?}"
            );
        }
        // Spans point into the text as written.
        let text = "x:\n  p: [a,\nbee]\n";
        let doc = saphyr(text).unwrap_or_else(|e| panic!("{e}"));
        let bee = doc
            .get("x")
            .and_then(|x| x.get("p"))
            .and_then(|p| p.as_seq());
        let bee = bee.and_then(|items| items.get(1)).map(|n| n.span);
        assert_eq!(bee.map(|s| (s.start, s.end)), Some((12, 15)));
        // Errors that stand: a line continuing a plain scalar (js-yaml ends
        // the scalar and misses a comma), a document marker.
        for text in ["x:\n  p: [a,\n b]\n q: 1\n", "a: [b,\n---\nc]\n"] {
            assert!(saphyr(text).is_err(), "{text:?}");
        }
    }

    /// A plain scalar in a flow collection continues on a line indented
    /// more than the block collection around the flow (YAML 1.2, js-yaml
    /// 4.1); on a line indented no more, js-yaml ends it and misses a comma.
    #[test]
    fn plain_scalars_in_flows_continue_only_on_indented_lines() {
        let json = |text: &str| saphyr(text).map(|n| crate::json::to_json(&n));
        for (text, want) in [
            ("x:\n  p: [a, b\n   c]\n", r#"{"x":{"p":["a","b c"]}}"#),
            ("p: [a, b\n c]\n", r#"{"p":["a","b c"]}"#),
            ("a:\n- [b, c\n d]\n", r#"{"a":[["b","c d"]]}"#),
            ("- - [a, b\n   c]\n", r#"[[["a","b c"]]]"#),
            ("p:\n  [a, b\n  c]\n", r#"{"p":["a","b c"]}"#),
            ("[a, {b: c\nd}]\n", r#"["a",{"b":"c d"}]"#),
            ("x:\n  p: [a, b\n\n   c]\n", r#"{"x":{"p":["a","b\nc"]}}"#),
        ] {
            assert_eq!(json(text).as_deref(), Ok(want), "{text:?}");
        }
        for (text, at) in [
            ("x:\n  p: [a, b\n  c]\n", 16),
            ("p: [a, b\nc]\n", 9),
            ("a:\n- [b, c\nd]\n", 11),
            ("- - [a, b\n  c]\n", 12),
            ("x:\n  p: {a: b\n  c: d}\n", 16),
            ("x:\n  p: [a, b\n   c\n  d]\n", 21),
            ("x:\n  p: [a, b\n\n  c]\n", 17),
        ] {
            let e = saphyr(text).err();
            assert_eq!(
                e.as_ref().map(|e| (e.message.as_str(), e.span.start)),
                Some(("missed comma between flow collection entries", at)),
                "{text:?}"
            );
            assert!(parse(text, SourceId(7)).is_err(), "parse: {text:?}");
        }
    }

    /// A `:` right before the `[` or `{` of a value in a flow collection
    /// (`{get_attr:[a, b]}`, as in OpenStack Heat templates) ends the key,
    /// as in js-yaml 4.1 and libyaml (saphyr stops there), spans as
    /// written; `a:b` stays one scalar.
    #[test]
    fn a_colon_before_a_flow_value_ends_the_key_like_js_yaml() {
        let json = |text: &str| saphyr(text).map(|n| crate::json::to_json(&n));
        for (text, want) in [
            (
                "x: { get_attr:[a, b] }\n",
                r#"{"x":{"get_attr":["a","b"]}}"#,
            ),
            ("{a:{b: 1}, c:d}\n", r#"{"a":{"b":1},"c:d":null}"#),
            ("[a:[b:[c]]]\n", r#"[{"a":[{"b":["c"]}]}]"#),
            ("x: {a:[1,\n  2]}\ny: 1\n", r#"{"x":{"a":[1,2]},"y":1}"#),
        ] {
            assert_eq!(json(text).as_deref(), Ok(want), "{text:?}");
        }
        let text = "x: {a:[1], b:[2], c: bee}\n";
        let doc = saphyr(text).unwrap_or_else(|e| panic!("{e}"));
        let span = |key: &str| {
            doc.get("x")
                .and_then(|x| x.get(key))
                .map(|n| (n.span.start, n.span.end))
        };
        assert_eq!(span("b"), Some((13, 16)), "[2]");
        assert_eq!(span("c"), Some((21, 24)), "bee");
        let e = saphyr("x: {a:[1], b:[}\n").err().map(|e| e.span.start);
        assert_eq!(
            e,
            Some(14),
            "the error after two reads is where it was written"
        );
    }

    /// A `-` after blanks inside a plain scalar of a flow collection,
    /// before `,[]{}`, continues the scalar as in js-yaml 4.1 (saphyr stops
    /// there), spans as written; a `-` that begins a scalar stays an
    /// error, and so do other errors after one.
    #[test]
    fn a_dash_inside_a_flow_plain_scalar_reads_as_in_js_yaml() {
        let json = |text: &str| saphyr(text).map(|n| crate::json::to_json(&n));
        assert_eq!(json("k: [a:b -]\n").as_deref(), Ok(r#"{"k":["a:b -"]}"#));
        assert_eq!(json("[0.50 -,.7]\n").as_deref(), Ok(r#"["0.50 -",0.7]"#));
        assert_eq!(json("[a\n  -]\n").as_deref(), Ok(r#"["a -"]"#));
        assert_eq!(json("{a -}\n").as_deref(), Ok(r#"{"a -":null}"#));
        assert_eq!(
            json("k: [a -, [b -]]\n").as_deref(),
            Ok(r#"{"k":["a -",["b -"]]}"#)
        );
        // What the text holds stays: `^` stands in for `-` only where the
        // text has none.
        assert_eq!(json("[a^ -, b ^]\n").as_deref(), Ok(r#"["a^ -","b ^"]"#));
        let doc = saphyr("[ab -, c]\n").unwrap_or_else(|e| panic!("{e}"));
        let items = doc.as_seq().expect("a sequence");
        assert_eq!(items[0].span, rg(1, 2, 1, 6));
        for text in ["[a, -]\n", "[a: -]\n", "{k: -}\n"] {
            let e = saphyr(text).expect_err(text);
            assert!(e.message.contains("cannot start with '-'"), "{text}: {e}");
            assert_eq!(e.span.start, text.find('-').map(|i| i as u32).unwrap_or(0));
        }
        let e = saphyr("[a -]\nb: [\n").expect_err("an unclosed sequence");
        assert!(!e.message.contains("cannot start with '-'"), "{e}");
        let e = saphyr("{a -, a -}\n").expect_err("a duplicate key");
        assert_eq!(
            (e.message.as_str(), e.span.start),
            ("duplicated mapping key", 6)
        );
    }

    #[test]
    fn under_indented_quoted_scalars_keep_their_spans_as_written() {
        let text = "a:\n  b: \"x\ny\"\n  c: [\"p\nq\", r]\n  d: &s 'u\nv'\n  e: *s\n";
        let doc = saphyr(text).unwrap_or_else(|e| panic!("{e}"));
        let a = doc.get("a").expect("a");
        assert_eq!(a.get("b").map(|n| n.span), Some(rg(2, 6, 3, 3)));
        assert_eq!(a.get("b").and_then(Node::as_str), Some("x y"));
        let c = a.get("c").and_then(Node::as_seq).expect("c");
        assert_eq!((c[0].span, c[1].span), (rg(4, 7, 5, 3), rg(5, 5, 5, 6)));
        assert_eq!(a.get("c").map(|n| n.span), Some(rg(4, 6, 5, 7)));
        assert_eq!(a.get("d").and_then(Node::as_str), Some("u v"));
        // The alias is a copy of the anchored node, span included.
        assert_eq!(a.get("d").map(|n| n.span), Some(rg(6, 6, 7, 3)));
        assert_eq!(a.get("e").map(|n| n.span), Some(rg(6, 6, 7, 3)));
        let keys: Vec<Span> = a
            .as_map()
            .map(|m| m.iter().map(|(k, _)| k.span).collect())
            .unwrap_or_default();
        assert_eq!(keys[3], rg(8, 3, 8, 4));
        assert_eq!(doc.span, rg(1, 1, 8, 4));
        // Many such scalars in one text (one read each).
        let many: String = (0..300)
            .map(|i| format!("k{i}: &a{i} \"x\ny\"\n"))
            .collect();
        let doc = saphyr(&many).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            doc.get("k299").map(|n| (n.span, n.as_str())),
            Some((rg(599, 7, 600, 3), Some("x y")))
        );
    }

    #[test]
    fn document_markers_still_end_quoted_scalars() {
        for text in [
            "a:\n  b: \"x\n...\ny\"\n",
            "a:\n  b: 'x\n--- y'\n",
            "a: \"x\n---\n\"\n",
        ] {
            let e = err(text);
            assert!(e.message.contains("document indicator"), "{text:?}: {e}");
        }
        // A multi-line quoted scalar is no implicit key.
        assert!(saphyr("a:\n  \"b\nc\": 1\n").is_err());
        assert!(saphyr("\"b\nc\": 1\n").is_err());
    }

    #[test]
    fn core_schema_names_complex_keys_by_their_flow_form() {
        // TOSCA 2.0 §10.1: function calls as keys, told apart by suffixes.
        let doc = core("hint:\n  { $keygen: [ UUID ]}: 34\n  { $keygen$1: [ UUID ]}: 56\n")
            .expect("valid");
        let hint = doc.get("hint").expect("hint");
        assert_eq!(
            key_names(hint),
            ["{$keygen: [UUID]}", "{$keygen$1: [UUID]}"]
        );
        let doc = core("? [a, [b, 1.0], 'c, d', '1', null]\n: x\n").expect("valid");
        assert_eq!(key_names(&doc), ["[a, [b, 1.0], 'c, d', '1', null]"]);
        let e = core("{a: 1}: x\n{ a: 1 }: y\n").expect_err("duplicate");
        assert_eq!(
            (e.message.as_str(), e.span.start()),
            ("duplicated mapping key", at(2, 1))
        );
        assert!(core("{a: 1}: x\n{a: 2}: y\n").is_ok());
    }

    #[test]
    fn duplicate_keys_are_errors_at_the_duplicate() {
        let e = err("a: 1\nb:\n  c: 1\n  c: 2\n");
        assert_eq!(e.message, "duplicated mapping key");
        assert_eq!(e.span.start(), at(4, 3));
        let e = err("x: {a: 1, 1: 2, '1': 3}\n");
        assert_eq!(e.span.start(), at(1, 17));
        assert_eq!(err("1: a\n1.0: b\n").span.start(), at(2, 1));
        // Large maps use a hash index: same behaviour.
        let mut big: String = (0..100).map(|i| format!("k{i}: {i}\n")).collect();
        big.push_str("k42: again\n");
        assert_eq!(err(&big).span.start(), at(101, 1));
        let mut merged: String = String::from("m:\n  <<: {");
        merged.push_str(
            &(0..50)
                .map(|i| format!("k{i}: {i}"))
                .collect::<Vec<_>>()
                .join(", "),
        );
        merged.push_str("}\n  k7: x\n  new: y\n");
        let doc = p(&merged);
        let m = doc.get("m").unwrap_or_else(|| panic!("m"));
        assert_eq!(m.get("k7").and_then(Node::as_str), Some("x"));
        assert_eq!(m.get("k49").and_then(Node::as_f64), Some(49.0));
        assert_eq!(m.as_map().map(Map::len), Some(51));
    }

    #[test]
    fn every_duplicate_key_can_be_reported() {
        let text = "a: 1\nb:\n  c: 1\n  c: 2\n  d: 3\na: 4\ne: {x: 1, x: 2, x: 3}\n";
        reading(text);
        let (doc, dups) = parse_reporting_duplicates(text, SourceId(7), Schema::Core)
            .unwrap_or_else(|e| panic!("{e}"));
        let found: Vec<_> = dups
            .iter()
            .map(|d| (d.message.as_str(), d.span.start()))
            .collect();
        let dup = "duplicated mapping key";
        assert_eq!(
            found,
            [
                (dup, at(4, 3)),
                (dup, at(6, 1)),
                (dup, at(7, 11)),
                (dup, at(7, 17))
            ]
        );
        // The last value stands, in the first one's place.
        assert_eq!(doc.get("a").and_then(Node::as_f64), Some(4.0));
        assert_eq!(
            doc.get("b").and_then(|b| b.get("c")).and_then(Node::as_f64),
            Some(2.0)
        );
        assert_eq!(
            doc.get("e").and_then(|e| e.get("x")).and_then(Node::as_f64),
            Some(3.0)
        );
        let keys: Vec<String> = doc.as_map().map_or_else(Vec::new, |m| {
            m.iter().map(|(k, _)| k.name.to_string()).collect()
        });
        assert_eq!(keys, ["a", "b", "e"]);
        // No duplicate: the same tree as `parse_with`, nothing reported.
        let (clean, none) = parse_reporting_duplicates("a: 1\nb: [2]\n", SourceId(7), Schema::Core)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(none.is_empty());
        let plain = parse_with("a: 1\nb: [2]\n", SourceId(7), Schema::Core);
        assert!(plain.is_ok_and(|p| crate::deep_equal(&p.value, &clean.value)));
        // Other errors still fail; the plain parse still fails on the first.
        assert!(parse_reporting_duplicates("a: [\n", SourceId(7), Schema::Core).is_err());
        assert_eq!(err(text).span.start(), at(4, 3));
    }

    #[test]
    fn aliases_are_deep_copies_with_the_anchor_spans() {
        let doc = p("a: &x\n  k: [1, 2]\nb: *x\nc: &s text\nd: *s\n");
        let a = doc.get("a").unwrap_or_else(|| panic!("a"));
        let b = doc.get("b").unwrap_or_else(|| panic!("b"));
        assert!(deep_equal(&a.value, &b.value));
        assert_eq!(a.span, b.span);
        assert_eq!(doc.get("d").and_then(Node::as_str), Some("text"));
        assert_eq!(err("a: *nope\n").span.start(), at(1, 4));
        // Re-defined anchors: aliases refer to the latest definition.
        let doc = p("x: &a 1\ny: &a 2\nz: *a\n");
        assert_eq!(doc.get("z").and_then(Node::as_f64), Some(2.0));
    }

    #[test]
    fn merge_keys_follow_js_yaml() {
        let doc = p(concat!(
            "base: &b {a: 1, b: 2}\n",
            "other: &o {b: 3, c: 4}\n",
            "m1:\n  <<: *b\n  b: 9\n",
            "m2:\n  b: 9\n  <<: *b\n",
            "m3:\n  <<: [*b, *o]\n",
            "m4:\n  <<: [*o, *b]\n  <<: {z: 0}\n",
            "m5:\n  '<<': 1\n",
        ));
        let get = |m: &str, k: &str| doc.get(m).and_then(|n| n.get(k)).and_then(Node::as_f64);
        assert_eq!((get("m1", "a"), get("m1", "b")), (Some(1.0), Some(9.0)));
        assert_eq!((get("m2", "a"), get("m2", "b")), (Some(1.0), Some(9.0)));
        assert_eq!(
            (get("m3", "a"), get("m3", "b"), get("m3", "c")),
            (Some(1.0), Some(2.0), Some(4.0))
        );
        assert_eq!((get("m4", "b"), get("m4", "z")), (Some(3.0), Some(0.0)));
        assert!(doc.get("m1").and_then(|m| m.get("<<")).is_none());
        assert_eq!(get("m5", "<<"), Some(1.0));
        // Merged keys keep their position, explicit override keeps it too.
        let keys: Vec<String> = doc
            .get("m1")
            .and_then(Node::as_map)
            .map(|m| m.keys().map(String::from).collect())
            .unwrap_or_default();
        assert_eq!(keys, ["a", "b"]);
        // An explicit key may override a merged one only once.
        assert_eq!(
            err("b: &b {a: 1}\nm:\n  <<: *b\n  a: 2\n  a: 3\n")
                .span
                .start(),
            at(5, 3)
        );
        assert!(err("m:\n  <<: 1\n")
            .message
            .starts_with("cannot merge mappings"));
        assert!(err("m:\n  <<: [{a: 1}, 2]\n")
            .message
            .starts_with("cannot merge mappings"));
    }

    #[test]
    fn billion_laughs_fails_fast() {
        let mut text = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for i in 1..10 {
            let prev = format!("*a{}", i - 1);
            let list = [prev.as_str(); 10].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{list}]\n"));
        }
        let start = std::time::Instant::now();
        let e = err(&text);
        assert_eq!(
            e.message,
            "too many aliases expanded (more than 1000000 nodes)"
        );
        assert!(start.elapsed().as_secs() < 10);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let flow = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(err(&flow).message.starts_with("nesting too deep"));
        let flow_maps = "{a: ".repeat(10_000);
        assert!(err(&flow_maps).message.starts_with("nesting too deep"));
        let block = format!("{}x\n", "- ".repeat(10_000));
        let e = err(&block);
        assert_eq!(e.message, "nesting too deep (more than 1000 levels)");
        let mut indented = String::new();
        for i in 0..2000 {
            indented.push_str(&" ".repeat(i));
            indented.push_str("k:\n");
        }
        assert_eq!(
            err(&indented).message,
            "nesting too deep (more than 1000 levels)"
        );
        // 1000 levels are fine.
        let ok = format!("{}x\n", "- ".repeat(1000));
        assert!(parse(&ok, SourceId(0)).is_ok());
        // Aliases cannot be used to nest deeper than the limit.
        let mut t = String::from("a0: &a0 ");
        t.push_str(&"[".repeat(200));
        t.push_str(&"]".repeat(200));
        t.push('\n');
        for i in 1..10 {
            t.push_str(&format!(
                "a{i}: &a{i} {}*a{}{}\n",
                "[".repeat(150),
                i - 1,
                "]".repeat(150)
            ));
        }
        assert_eq!(err(&t).message, "nesting too deep (more than 1000 levels)");
    }

    #[test]
    fn documents_and_streams() {
        assert!(p("").is_null());
        assert!(p("# just a comment\n\n").is_null());
        assert!(p("---\n").is_null());
        assert!(p("--- 5\n...\n").as_f64() == Some(5.0));
        let e = err("a: 1\n---\nb: 2\n");
        assert_eq!(e.message, "expected a single document in the stream");
        assert_eq!(e.span.start(), at(2, 1));
        let e = err("a:\n\t- b\n");
        assert_eq!(e.span.loc().line, 2);
        let e = err("a: \"x\n");
        assert!(e.span.is_known());
        let e = err("a: b\u{1}\n");
        assert_eq!(e.message, "the stream contains non-printable characters");
        assert_eq!(e.span.start(), at(1, 5));
        assert!(err("a: [1, 2\n").span.is_known());
        // Without its text, an error shows its message only.
        let e = err("a: 1\na: 2\n");
        assert_eq!(
            (e.to_string(), e.span.start()),
            (e.message.clone(), at(2, 1))
        );
    }

    #[test]
    fn garbage_never_panics() {
        let pieces = [
            "a",
            ":",
            " ",
            "\n",
            "-",
            "[",
            "]",
            "{",
            "}",
            ",",
            "&x",
            "*x",
            "!!str",
            "'",
            "\"",
            "|",
            ">",
            "?",
            "#",
            "\t",
            "<<",
            "---",
            "...",
            "%YAML 1.2",
            "!",
            "é",
            "0x",
            "\\",
        ];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..3000 {
            let mut s = String::new();
            for _ in 0..(seed % 24) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                s.push_str(pieces[(seed % pieces.len() as u64) as usize]);
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let _ = parse(&s, SourceId(0));
        }
    }
}
