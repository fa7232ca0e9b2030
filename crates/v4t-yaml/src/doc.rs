//! A read-only document in one arena, and a view that reads it and the
//! owned tree alike.
//!
//! A [`Node`] tree spends about 130 bytes on a map entry with a short
//! string value (the key and the node inline, a heap block for each
//! string); a flat 50 MB template holds two and a half million of them. A
//! [`Doc`] keeps every node in one vector of 20-byte slots, every map
//! entry in another of 20 bytes, and every string in one buffer, with the
//! key names that repeat stored once: under half the size. It is made once
//! and read: a validator, which never changes the document it checks, reads
//! it through [`NodeRef`].
//!
//! [`NodeRef`] (and [`MapRef`], [`SeqRef`], [`KeyRef`]) read a [`Doc`] or
//! an owned [`Node`] with the reading half of [`Node`]'s interface, so that
//! code written against the view serves both: a file just parsed, and a
//! tree the processor made (a resolved template it checks).

use crate::hash::SeededMap;
use crate::span::{clamp_u32, SourceId, Span};
use crate::value::INDEX_THRESHOLD;
use crate::value::{index_names, same_bytes, Form, Index, Key, Map, Node, Tag, Value};

/// A document in one arena (see the module documentation). Made by
/// [`Doc::from_node`] or by the fast parser
/// ([`crate::parse_doc_reporting_duplicates`]).
#[derive(Clone, Debug, Default)]
pub struct Doc {
    source: SourceId,
    /// Every node; children come before their parents.
    nodes: Vec<Slot>,
    /// Map entries, each map's entries together and in order.
    entries: Vec<EntrySlot>,
    /// Sequence items (node ids), each sequence's items together.
    items: Vec<u32>,
    /// String values and key names.
    strings: String,
    /// Hash indexes of maps with more than [`INDEX_THRESHOLD`] entries, by
    /// map node id: key hash to the first entry position with that hash.
    indexes: SeededMap<u32, Index>,
    /// The trees of complex keys, by entry position.
    complex_keys: SeededMap<u32, u32>,
    root: u32,
}

/// A node: its span in the document's source, its kind and form, and two
/// words whose meaning depends on the kind (see [`Kind`]).
#[derive(Clone, Copy, Debug)]
struct Slot {
    start: u32,
    end: u32,
    a: u32,
    b: u32,
    kind: Kind,
    form: u8,
}

/// What a [`Slot`]'s words hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Nothing.
    Null,
    /// `a`: 0 or 1.
    Bool,
    /// `a` and `b`: the low and high half of the `f64`'s bits.
    Number,
    /// As [`Kind::Number`], milliseconds since the epoch.
    Timestamp,
    /// `a`: offset into [`Doc::strings`], `b`: length.
    String,
    /// `a`: position of the first item in [`Doc::items`], `b`: count.
    Seq,
    /// `a`: position of the first entry in [`Doc::entries`], `b`: count.
    Map,
}

/// A map entry: its key's name (offset and length in [`Doc::strings`]),
/// the key's span and the value's node id.
#[derive(Clone, Copy, Debug)]
struct EntrySlot {
    name: u32,
    name_len: u32,
    start: u32,
    end: u32,
    value: u32,
}

/// Set in a map's form byte when the map has a hash index.
const INDEXED: u8 = 0x80;

/// A span's `start` for nodes without one (made by the processor, or read
/// from another source than the document's).
const NO_SPAN: u32 = u32::MAX;

fn pack_form(form: Form) -> u8 {
    match form {
        Form::Other => 0,
        Form::Plain => 1,
        Form::Int => 2,
        Form::Float => 3,
        Form::Quoted => 4,
        Form::Block => 5,
        Form::Tagged(tag) => {
            8 + match tag {
                Tag::Str => 0,
                Tag::Int => 1,
                Tag::Float => 2,
                Tag::Bool => 3,
                Tag::Null => 4,
                Tag::Timestamp => 5,
                Tag::Binary => 6,
                Tag::NonSpecific => 7,
            }
        }
    }
}

fn unpack_form(form: u8) -> Form {
    match form {
        1 => Form::Plain,
        2 => Form::Int,
        3 => Form::Float,
        4 => Form::Quoted,
        5 => Form::Block,
        8 => Form::Tagged(Tag::Str),
        9 => Form::Tagged(Tag::Int),
        10 => Form::Tagged(Tag::Float),
        11 => Form::Tagged(Tag::Bool),
        12 => Form::Tagged(Tag::Null),
        13 => Form::Tagged(Tag::Timestamp),
        14 => Form::Tagged(Tag::Binary),
        15 => Form::Tagged(Tag::NonSpecific),
        _ => Form::Other,
    }
}

/// Writes a [`Doc`]: scalars first, then the collections that hold them
/// (children before parents), the root last.
pub(crate) struct DocBuilder {
    doc: Doc,
    /// Offsets of key names and short strings already in [`Doc::strings`]
    /// (bounded: names that repeat come early; the names of node templates
    /// do not repeat).
    names: SeededMap<Box<str>, u32>,
}

/// Strings remembered at most by a [`DocBuilder`].
const MAX_NAMES: usize = 4096;

/// Strings values up to this length are stored once (type names, `true`
/// spelt as a string, units); longer ones are rarely repeated.
const MAX_SHARED_LEN: usize = 64;

/// A node in a [`DocBuilder`]'s document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NodeId(u32);

/// A map entry made by [`DocBuilder::entry`], waiting for its map.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PendingEntry {
    slot: EntrySlot,
    /// A complex key's tree.
    tree: Option<u32>,
}

impl PendingEntry {
    /// The entry's value.
    pub(crate) fn value(&self) -> NodeId {
        NodeId(self.slot.value)
    }
}

impl DocBuilder {
    /// A builder of a document read from `source`.
    pub(crate) fn new(source: SourceId) -> DocBuilder {
        DocBuilder {
            doc: Doc {
                source,
                ..Doc::default()
            },
            names: SeededMap::default(),
        }
    }

    fn span_words(&self, span: Span) -> (u32, u32) {
        if span.is_known() && span.source == self.doc.source {
            (span.start, span.end)
        } else {
            (NO_SPAN, NO_SPAN)
        }
    }

    fn push(&mut self, span: Span, kind: Kind, form: Form, a: u32, b: u32) -> NodeId {
        let (start, end) = self.span_words(span);
        let id = clamp_u32(self.doc.nodes.len());
        self.doc.nodes.push(Slot {
            start,
            end,
            a,
            b,
            kind,
            form: pack_form(form),
        });
        NodeId(id)
    }

    fn string(&mut self, s: &str) -> (u32, u32) {
        let at = clamp_u32(self.doc.strings.len());
        self.doc.strings.push_str(s);
        (at, clamp_u32(s.len()))
    }

    fn name(&mut self, name: &str) -> (u32, u32) {
        if let Some(&at) = self.names.get(name) {
            return (at, clamp_u32(name.len()));
        }
        let (at, len) = self.string(name);
        if self.names.len() < MAX_NAMES {
            self.names.insert(name.into(), at);
        }
        (at, len)
    }

    /// A scalar (not a collection).
    pub(crate) fn scalar(&mut self, value: &Value, span: Span, form: Form) -> NodeId {
        let bits = |n: f64| {
            let bits = n.to_bits();
            (bits as u32, (bits >> 32) as u32)
        };
        match value {
            Value::Null => self.push(span, Kind::Null, form, 0, 0),
            Value::Bool(b) => self.push(span, Kind::Bool, form, u32::from(*b), 0),
            Value::Number(n) => {
                let (a, b) = bits(*n);
                self.push(span, Kind::Number, form, a, b)
            }
            Value::Timestamp(n) => {
                let (a, b) = bits(*n);
                self.push(span, Kind::Timestamp, form, a, b)
            }
            Value::String(s) => self.string_node(s, span, form),
            // Collections are built from their children ([`Self::seq`],
            // [`Self::map_of`]); given here, they are empty.
            Value::Seq(_) => self.push(span, Kind::Seq, form, 0, 0),
            Value::Map(_) => self.push(span, Kind::Map, form, 0, 0),
        }
    }

    /// A string scalar.
    pub(crate) fn string_node(&mut self, s: &str, span: Span, form: Form) -> NodeId {
        let (a, b) = if s.len() <= MAX_SHARED_LEN {
            self.name(s)
        } else {
            self.string(s)
        };
        self.push(span, Kind::String, form, a, b)
    }

    /// A sequence of `items` (made before).
    pub(crate) fn seq(&mut self, items: &[NodeId], span: Span) -> NodeId {
        let first = clamp_u32(self.doc.items.len());
        self.doc.items.extend(items.iter().map(|i| i.0));
        self.push(span, Kind::Seq, Form::Other, first, clamp_u32(items.len()))
    }

    /// Where node `id` was written.
    pub(crate) fn node_span(&self, id: NodeId) -> Span {
        let s = self.doc.slot(id.0);
        self.doc.span_of(s.start, s.end)
    }

    /// An entry of key `name` written at `span`, of value `value`.
    pub(crate) fn entry(&mut self, name: &str, span: Span, value: NodeId) -> PendingEntry {
        let (name, name_len) = self.name(name);
        let (start, end) = self.span_words(span);
        PendingEntry {
            slot: EntrySlot {
                name,
                name_len,
                start,
                end,
                value: value.0,
            },
            tree: None,
        }
    }

    /// Where an entry's key was written.
    pub(crate) fn entry_span(&self, entry: &PendingEntry) -> Span {
        self.doc.span_of(entry.slot.start, entry.slot.end)
    }

    /// An entry's key name.
    pub(crate) fn entry_name(&self, entry: &PendingEntry) -> &str {
        self.doc.str_at(entry.slot.name, entry.slot.name_len)
    }

    /// A map of `entries` (made before), and whether two of its keys are
    /// equal. Only a map of more than [`INDEX_THRESHOLD`] entries looks, as
    /// it builds its index (lookups find the first of equal keys, as in a
    /// [`Map`]); the fast parser checks smaller maps as it reads them.
    pub(crate) fn map_of(&mut self, entries: &[PendingEntry], span: Span) -> (NodeId, bool) {
        let first = clamp_u32(self.doc.entries.len());
        let (index, duplicate) = if entries.len() > INDEX_THRESHOLD {
            let name = |i: usize| {
                (entries.get(i)).map_or("", |e| self.doc.str_at(e.slot.name, e.slot.name_len))
            };
            let (index, duplicate) = index_names(entries.len(), name);
            (Some(index), duplicate)
        } else {
            (None, false)
        };
        for (i, e) in entries.iter().enumerate() {
            if let Some(tree) = e.tree {
                self.doc.complex_keys.insert(first + clamp_u32(i), tree);
            }
        }
        self.doc.entries.extend(entries.iter().map(|e| e.slot));
        let count = clamp_u32(entries.len());
        let id = self.push(span, Kind::Map, Form::Other, first, count);
        if let Some(index) = index {
            if let Some(slot) = self.doc.nodes.get_mut(id.0 as usize) {
                slot.form |= INDEXED;
            }
            self.doc.indexes.insert(id.0, index);
        }
        (id, duplicate)
    }

    /// Gives collection `id` the form `form`: a processor marks a map it
    /// made from a scalar with the scalar's form (the parser's collections
    /// have none).
    fn set_form(&mut self, id: NodeId, form: Form) {
        if let Some(slot) = self.doc.nodes.get_mut(id.0 as usize) {
            slot.form |= pack_form(form);
        }
    }

    /// The document with root `root`.
    pub(crate) fn finish(mut self, root: NodeId) -> Doc {
        self.doc.root = root.0;
        self.doc
    }

    /// A builder of the document of `text`, with room reserved for as many
    /// nodes and entries as `text` can hold at most, on 64-bit targets.
    ///
    /// Why: growing a vector of 50 MB copies it into a new block while the
    /// old one is still resident, and these copies, not the document, were
    /// the peak of reading a large file. A reservation is address space:
    /// the pages no slot is written to are never resident. A 32-bit target
    /// (WebAssembly) commits what it reserves, so it grows as it goes.
    pub(crate) fn for_text(source: SourceId, text: &str) -> DocBuilder {
        let mut b = DocBuilder::new(source);
        if cfg!(target_pointer_width = "64") {
            // Every entry has a `:`, every item a `-` or a `,` or follows a
            // `[`; every collection holds an entry or an item or is written
            // `[]` or `{}`. Counted in byte lanes, 255 bytes at a time (no
            // lane can overflow): this compiles to vector compares and adds.
            let (mut colons, mut items) = (0usize, 0usize);
            for chunk in text.as_bytes().chunks(255) {
                let (c, i) = chunk.iter().fold((0u8, 0u8), |(c, i), &b| {
                    let item = matches!(b, b'-' | b',' | b'[' | b'{');
                    (
                        c.wrapping_add(u8::from(b == b':')),
                        i.wrapping_add(u8::from(item)),
                    )
                });
                colons += usize::from(c);
                items += usize::from(i);
            }
            // A reservation the system refuses (a huge hostile text) is
            // no error: the vectors then grow as they go.
            let nodes = colons
                .saturating_add(items)
                .saturating_mul(2)
                .saturating_add(1);
            let reserved = b.doc.entries.try_reserve(colons).is_ok()
                && b.doc.items.try_reserve(items).is_ok()
                && b.doc.nodes.try_reserve(nodes).is_ok();
            if !reserved {
                b.doc.entries = Vec::new();
                b.doc.items = Vec::new();
                b.doc.nodes = Vec::new();
            }
        }
        b
    }
}

impl Doc {
    /// The document of an owned tree whose spans are in `source` (spans in
    /// other sources are dropped).
    pub fn from_node(node: &Node, source: SourceId) -> Doc {
        let mut b = DocBuilder::new(source);
        let root = add_node(&mut b, node);
        b.finish(root)
    }

    /// The document of `node` if every span in it is in `source` (or
    /// unknown), else `node` itself: a tree assembled from several files
    /// keeps its spans only as a tree.
    pub fn from_tree(node: Node, source: SourceId) -> Result<Doc, Node> {
        fn within(node: &Node, source: SourceId) -> bool {
            let here = |span: Span| !span.is_known() || span.source == source;
            here(node.span)
                && match &node.value {
                    Value::Seq(items) => items.iter().all(|i| within(i, source)),
                    Value::Map(m) => m.iter().all(|(k, v)| {
                        here(k.span)
                            && k.tree().is_none_or(|t| within(t, source))
                            && within(v, source)
                    }),
                    _ => true,
                }
        }
        if within(&node, source) {
            Ok(Doc::from_node(&node, source))
        } else {
            Err(node)
        }
    }

    /// The root node.
    pub fn root(&self) -> NodeRef<'_> {
        NodeRef::Doc(self, self.root)
    }

    fn slot(&self, id: u32) -> Slot {
        self.nodes.get(id as usize).copied().unwrap_or(Slot {
            start: NO_SPAN,
            end: NO_SPAN,
            a: 0,
            b: 0,
            kind: Kind::Null,
            form: 0,
        })
    }

    fn str_at(&self, at: u32, len: u32) -> &str {
        let start = at as usize;
        self.strings.get(start..start + len as usize).unwrap_or("")
    }

    fn span_of(&self, start: u32, end: u32) -> Span {
        if start == NO_SPAN {
            Span::NONE
        } else {
            Span::bytes(self.source, start, end)
        }
    }

    fn entry(&self, at: u32) -> Option<&EntrySlot> {
        self.entries.get(at as usize)
    }

    /// Whether entry `e` has key `key` (lengths first: most keys of a map
    /// differ in length).
    #[inline(always)]
    fn is_named(&self, e: &EntrySlot, key: &str) -> bool {
        e.name_len as usize == key.len()
            && (self.strings.as_bytes())
                .get(e.name as usize..e.name as usize + key.len())
                .is_some_and(|name| same_bytes(name, key.as_bytes()))
    }

    /// The value of `key` in node `id` if it is a map: the lookup of
    /// [`NodeRef::get`] and [`MapRef::get`], in one pass over the slots. A
    /// scan of its own beside [`MapRef::position`]'s: finding the entry
    /// rather than its position is 1.2% of `validate`'s instructions.
    #[inline(always)]
    fn get(&self, id: u32, key: &str) -> Option<NodeRef<'_>> {
        let s = self.slot(id);
        if s.kind != Kind::Map {
            return None;
        }
        let first = s.a as usize;
        let entry = if s.form & INDEXED != 0 {
            self.entries.get(first + self.position_indexed(id, s, key)?)
        } else {
            (self.entries.get(first..first + s.b as usize)?)
                .iter()
                .find(|e| self.is_named(e, key))
        };
        entry.map(|e| NodeRef::Doc(self, e.value))
    }

    /// [`MapRef::position`] in map `id` (slot `s`), which has an index.
    #[inline(never)]
    fn position_indexed(&self, id: u32, s: Slot, key: &str) -> Option<usize> {
        let first = s.a as usize;
        let entries = self.entries.get(first..first + s.b as usize)?;
        if let Some(index) = self.indexes.get(&id) {
            match index.get(&crate::hash::hash_str(key)) {
                None => return None,
                Some(&i)
                    if entries
                        .get(i as usize)
                        .is_some_and(|e| self.is_named(e, key)) =>
                {
                    return Some(i as usize)
                }
                Some(_) => {}
            }
        }
        entries.iter().position(|e| self.is_named(e, key))
    }
}

fn add_node(b: &mut DocBuilder, node: &Node) -> NodeId {
    match &node.value {
        Value::Seq(items) => {
            let ids: Vec<NodeId> = items.iter().map(|i| add_node(b, i)).collect();
            let id = b.seq(&ids, node.span);
            b.set_form(id, node.form);
            id
        }
        Value::Map(m) => {
            let entries: Vec<PendingEntry> = m
                .iter()
                .map(|(k, v)| {
                    let value = add_node(b, v);
                    let tree = k.tree().map(|t| add_node(b, t).0);
                    PendingEntry {
                        tree,
                        ..b.entry(&k.name, k.span, value)
                    }
                })
                .collect();
            let id = b.map_of(&entries, node.span).0;
            b.set_form(id, node.form);
            id
        }
        value => b.scalar(value, node.span, node.form),
    }
}

/// The node [`SeqRef::at`] reads past the end.
static NULL: Node = Node {
    value: Value::Null,
    span: Span::NONE,
    form: Form::Other,
};

/// The map [`MapRef::EMPTY`] reads.
static EMPTY_MAP: Map = Map::EMPTY;

/// A document held as an owned tree or as a [`Doc`].
#[derive(Clone, Debug)]
pub enum Root {
    /// An owned tree (a template the processor made or changed).
    Tree(Node),
    /// A document read and not changed since.
    Doc(Doc),
}

impl Default for Root {
    fn default() -> Root {
        Root::Tree(Node::null())
    }
}

impl From<Node> for Root {
    fn from(node: Node) -> Root {
        Root::Tree(node)
    }
}

impl From<Doc> for Root {
    fn from(doc: Doc) -> Root {
        Root::Doc(doc)
    }
}

impl Root {
    /// The root node.
    pub fn node(&self) -> NodeRef<'_> {
        match self {
            Root::Tree(node) => NodeRef::Tree(node),
            Root::Doc(doc) => doc.root(),
        }
    }
}

/// A node of a [`Doc`] or of an owned tree.
#[derive(Clone, Copy, Debug)]
pub enum NodeRef<'a> {
    /// A node of an owned tree.
    Tree(&'a Node),
    /// Node `id` of a document.
    Doc(&'a Doc, u32),
}

/// A node's value.
#[derive(Clone, Copy, Debug)]
pub enum ValueRef<'a> {
    /// See [`Value::Null`].
    Null,
    /// See [`Value::Bool`].
    Bool(bool),
    /// See [`Value::Number`].
    Number(f64),
    /// See [`Value::String`].
    String(&'a str),
    /// See [`Value::Timestamp`].
    Timestamp(f64),
    /// See [`Value::Seq`].
    Seq(SeqRef<'a>),
    /// See [`Value::Map`].
    Map(MapRef<'a>),
}

impl<'a> From<&'a Value> for ValueRef<'a> {
    #[inline]
    fn from(value: &'a Value) -> ValueRef<'a> {
        match value {
            Value::Null => ValueRef::Null,
            Value::Bool(b) => ValueRef::Bool(*b),
            Value::Number(x) => ValueRef::Number(*x),
            Value::String(s) => ValueRef::String(s),
            Value::Timestamp(x) => ValueRef::Timestamp(*x),
            Value::Seq(items) => ValueRef::Seq(SeqRef::Tree(items)),
            Value::Map(m) => ValueRef::Map(MapRef::Tree(m)),
        }
    }
}

/// Structural equality with the test harness's semantics (chai deep equal):
/// map key order is ignored, list order matters, types must match (`1` is not
/// `"1"`), numbers compare numerically, timestamps by time. Spans are ignored.
pub fn deep_equal(a: &Value, b: &Value) -> bool {
    ValueRef::from(a).deep_equal(ValueRef::from(b))
}

impl ValueRef<'_> {
    /// Structural equality ([`crate::deep_equal`]) of values of a tree or
    /// of a [`Doc`], either side.
    pub fn deep_equal(self, other: ValueRef<'_>) -> bool {
        match (self, other) {
            (ValueRef::Null, ValueRef::Null) => true,
            (ValueRef::Bool(x), ValueRef::Bool(y)) => x == y,
            (ValueRef::Number(x), ValueRef::Number(y)) => x == y || (x.is_nan() && y.is_nan()),
            (ValueRef::String(x), ValueRef::String(y)) => x == y,
            (ValueRef::Timestamp(x), ValueRef::Timestamp(y)) => x == y,
            (ValueRef::Seq(x), ValueRef::Seq(y)) => {
                x.len() == y.len()
                    && (x.iter().zip(y.iter())).all(|(a, b)| a.value().deep_equal(b.value()))
            }
            (ValueRef::Map(x), ValueRef::Map(y)) => {
                x.len() == y.len()
                    && x.iter().all(|(k, v)| match y.get(k.name()) {
                        Some(w) => v.value().deep_equal(w.value()),
                        None => false,
                    })
            }
            _ => false,
        }
    }
}

/// A sequence of a [`Doc`] or of an owned tree.
#[derive(Clone, Copy, Debug)]
pub enum SeqRef<'a> {
    /// The items of an owned sequence.
    Tree(&'a [Node]),
    /// Items `first..first + len` of the document's item list.
    Doc(&'a Doc, u32, u32),
    /// A single node read as a list of one item (a function's only
    /// argument written without brackets).
    One(NodeRef<'a>),
}

/// A map of a [`Doc`] or of an owned tree.
#[derive(Clone, Copy, Debug)]
pub enum MapRef<'a> {
    /// An owned map.
    Tree(&'a Map),
    /// Map node `id` of a document.
    Doc(&'a Doc, u32),
}

/// A map key of a [`Doc`] or of an owned tree.
#[derive(Clone, Copy, Debug)]
pub enum KeyRef<'a> {
    /// An owned key.
    Tree(&'a Key),
    /// Entry `at` of the document's entry list.
    Doc(&'a Doc, u32),
}

impl<'a> From<&'a Node> for NodeRef<'a> {
    fn from(node: &'a Node) -> NodeRef<'a> {
        NodeRef::Tree(node)
    }
}

impl<'a> From<&'a Map> for MapRef<'a> {
    fn from(map: &'a Map) -> MapRef<'a> {
        MapRef::Tree(map)
    }
}

impl<'a> From<&'a Key> for KeyRef<'a> {
    fn from(key: &'a Key) -> KeyRef<'a> {
        KeyRef::Tree(key)
    }
}

impl<'a> NodeRef<'a> {
    /// The owned node this reads, if it reads one of a tree (not of a
    /// [`Doc`]).
    #[inline]
    pub fn as_tree(self) -> Option<&'a Node> {
        match self {
            NodeRef::Tree(n) => Some(n),
            NodeRef::Doc(..) => None,
        }
    }

    /// The value.
    #[inline]
    pub fn value(self) -> ValueRef<'a> {
        match self {
            NodeRef::Tree(n) => ValueRef::from(&n.value),
            NodeRef::Doc(d, id) => {
                let s = d.slot(id);
                let number = || f64::from_bits(u64::from(s.a) | (u64::from(s.b) << 32));
                match s.kind {
                    Kind::Null => ValueRef::Null,
                    Kind::Bool => ValueRef::Bool(s.a != 0),
                    Kind::Number => ValueRef::Number(number()),
                    Kind::Timestamp => ValueRef::Timestamp(number()),
                    Kind::String => ValueRef::String(d.str_at(s.a, s.b)),
                    Kind::Seq => ValueRef::Seq(SeqRef::Doc(d, s.a, s.b)),
                    Kind::Map => ValueRef::Map(MapRef::Doc(d, id)),
                }
            }
        }
    }

    /// Where the node was written.
    #[inline]
    pub fn span(self) -> Span {
        match self {
            NodeRef::Tree(n) => n.span,
            NodeRef::Doc(d, id) => {
                let s = d.slot(id);
                d.span_of(s.start, s.end)
            }
        }
    }

    /// How a scalar was written.
    #[inline]
    pub fn form(self) -> Form {
        match self {
            NodeRef::Tree(n) => n.form,
            NodeRef::Doc(d, id) => unpack_form(d.slot(id).form & !INDEXED),
        }
    }

    /// Whether the value is `null`.
    #[inline]
    pub fn is_null(self) -> bool {
        match self {
            NodeRef::Tree(n) => matches!(n.value, Value::Null),
            NodeRef::Doc(d, id) => d.slot(id).kind == Kind::Null,
        }
    }

    /// JavaScript's `isDefined`: neither missing nor null.
    #[inline]
    pub fn is_defined(self) -> bool {
        !self.is_null()
    }

    /// The string, if the value is one.
    #[inline]
    pub fn as_str(self) -> Option<&'a str> {
        match self {
            // Each kind read directly, not through `value` (these run for
            // every key and value a stage reads).
            NodeRef::Tree(n) => n.as_str(),
            NodeRef::Doc(..) => match self.value() {
                ValueRef::String(s) => Some(s),
                _ => None,
            },
        }
    }

    /// The boolean, if the value is one.
    pub fn as_bool(self) -> Option<bool> {
        match self.value() {
            ValueRef::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The number, if the value is one.
    pub fn as_f64(self) -> Option<f64> {
        match self.value() {
            ValueRef::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The items, if the value is a sequence.
    #[inline]
    pub fn as_seq(self) -> Option<SeqRef<'a>> {
        match self {
            NodeRef::Tree(n) => n.as_seq().map(|items| SeqRef::Tree(items)),
            NodeRef::Doc(d, id) => {
                let s = d.slot(id);
                (s.kind == Kind::Seq).then_some(SeqRef::Doc(d, s.a, s.b))
            }
        }
    }

    /// The map, if the value is one.
    #[inline]
    pub fn as_map(self) -> Option<MapRef<'a>> {
        match self {
            NodeRef::Tree(n) => n.as_map().map(MapRef::Tree),
            NodeRef::Doc(d, id) => (d.slot(id).kind == Kind::Map).then_some(MapRef::Doc(d, id)),
        }
    }

    /// Looks up `key` if this node is a map.
    #[inline]
    pub fn get(self, key: &str) -> Option<NodeRef<'a>> {
        match self {
            NodeRef::Tree(n) => n.get(key).map(NodeRef::Tree),
            NodeRef::Doc(d, id) => d.get(id, key),
        }
    }

    /// Looks up `key` if this node is a map, treating null values as missing.
    #[inline]
    pub fn get_defined(self, key: &str) -> Option<NodeRef<'a>> {
        self.get(key).filter(|n| n.is_defined())
    }

    /// JavaScript truthiness (`!!value`).
    pub fn is_truthy(self) -> bool {
        match self.value() {
            ValueRef::Null => false,
            ValueRef::Bool(b) => b,
            ValueRef::Number(n) => n != 0.0 && !n.is_nan(),
            ValueRef::String(s) => !s.is_empty(),
            ValueRef::Timestamp(_) | ValueRef::Seq(_) | ValueRef::Map(_) => true,
        }
    }

    /// A short name of the value's kind, for messages.
    pub fn kind_name(self) -> &'static str {
        match self.value() {
            ValueRef::Null => "null",
            ValueRef::Bool(_) => "boolean",
            ValueRef::Number(_) => "number",
            ValueRef::String(_) => "string",
            ValueRef::Timestamp(_) => "timestamp",
            ValueRef::Seq(_) => "list",
            ValueRef::Map(_) => "map",
        }
    }

    /// The owned node: the node itself for a tree, a copy for a document.
    pub fn to_node(self) -> Node {
        match self {
            NodeRef::Tree(n) => n.clone(),
            NodeRef::Doc(..) => {
                let value = match self.value() {
                    ValueRef::Null => Value::Null,
                    ValueRef::Bool(b) => Value::Bool(b),
                    ValueRef::Number(n) => Value::Number(n),
                    ValueRef::String(s) => Value::String(s.to_string()),
                    ValueRef::Timestamp(n) => Value::Timestamp(n),
                    ValueRef::Seq(items) => {
                        Value::Seq(items.iter().map(NodeRef::to_node).collect())
                    }
                    ValueRef::Map(m) => Value::Map(Map::from_entries(
                        m.iter().map(|(k, v)| (k.to_key(), v.to_node())).collect(),
                    )),
                };
                Node::scalar(value, self.span(), self.form())
            }
        }
    }
}

impl<'a> SeqRef<'a> {
    /// No items.
    pub const EMPTY: SeqRef<'static> = SeqRef::Tree(&[]);

    /// The number of items.
    #[inline]
    pub fn len(self) -> usize {
        match self {
            SeqRef::Tree(items) => items.len(),
            SeqRef::Doc(_, _, len) => len as usize,
            SeqRef::One(_) => 1,
        }
    }

    /// Whether there are no items.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// Item `i`.
    #[inline]
    pub fn get(self, i: usize) -> Option<NodeRef<'a>> {
        match self {
            SeqRef::Tree(items) => items.get(i).map(NodeRef::Tree),
            SeqRef::Doc(d, first, len) => {
                let i = u32::try_from(i).ok().filter(|&i| i < len)?;
                let id = *d.items.get((first + i) as usize)?;
                Some(NodeRef::Doc(d, id))
            }
            SeqRef::One(node) => (i == 0).then_some(node),
        }
    }

    /// The items if there are exactly `N` of them (for readers that
    /// expect a pair or a triple).
    pub fn array<const N: usize>(self) -> Option<[NodeRef<'a>; N]> {
        if self.len() != N {
            return None;
        }
        let mut items = [NodeRef::Tree(&NULL); N];
        for (slot, item) in items.iter_mut().zip(self.iter()) {
            *slot = item;
        }
        Some(items)
    }

    /// `node` as a list of one item.
    pub fn one(node: NodeRef<'a>) -> SeqRef<'a> {
        SeqRef::One(node)
    }

    /// Item `i`, or a null node past the end (for readers that checked
    /// the length).
    #[inline]
    pub fn at(self, i: usize) -> NodeRef<'a> {
        self.get(i).unwrap_or(NodeRef::Tree(&NULL))
    }

    /// The items from `from` on (none if `from` is past the end).
    pub fn slice(self, from: std::ops::RangeFrom<usize>) -> SeqRef<'a> {
        let from = from.start.min(self.len());
        match self {
            SeqRef::Tree(items) => SeqRef::Tree(items.get(from..).unwrap_or_default()),
            SeqRef::Doc(d, first, len) => {
                let from = clamp_u32(from);
                SeqRef::Doc(d, first + from, len - from)
            }
            SeqRef::One(_) if from == 0 => self,
            SeqRef::One(_) => SeqRef::EMPTY,
        }
    }

    /// The first item.
    pub fn first(self) -> Option<NodeRef<'a>> {
        self.get(0)
    }

    /// The last item.
    pub fn last(self) -> Option<NodeRef<'a>> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// The items in order.
    #[inline]
    pub fn iter(self) -> SeqIter<'a> {
        SeqIter {
            seq: self,
            front: 0,
            back: self.len(),
        }
    }
}

/// The items of a [`SeqRef`].
#[derive(Clone, Debug)]
pub struct SeqIter<'a> {
    seq: SeqRef<'a>,
    front: usize,
    back: usize,
}

impl<'a> Iterator for SeqIter<'a> {
    type Item = NodeRef<'a>;

    #[inline]
    fn next(&mut self) -> Option<NodeRef<'a>> {
        if self.front >= self.back {
            return None;
        }
        self.front += 1;
        self.seq.get(self.front - 1)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for SeqIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        self.seq.get(self.back)
    }
}

impl ExactSizeIterator for SeqIter<'_> {}

impl<'a> IntoIterator for SeqRef<'a> {
    type Item = NodeRef<'a>;
    type IntoIter = SeqIter<'a>;

    fn into_iter(self) -> SeqIter<'a> {
        self.iter()
    }
}

impl<'a> MapRef<'a> {
    /// No entries.
    pub const EMPTY: MapRef<'static> = MapRef::Tree(&EMPTY_MAP);

    /// The number of entries.
    #[inline]
    pub fn len(self) -> usize {
        match self {
            MapRef::Tree(m) => m.len(),
            MapRef::Doc(d, id) => d.slot(id).b as usize,
        }
    }

    /// Whether the map has no entries.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// Entry `i`.
    #[inline]
    pub fn get_index(self, i: usize) -> Option<(KeyRef<'a>, NodeRef<'a>)> {
        match self {
            MapRef::Tree(m) => m
                .get_index(i)
                .map(|(k, v)| (KeyRef::Tree(k), NodeRef::Tree(v))),
            MapRef::Doc(d, id) => {
                let s = d.slot(id);
                let i = u32::try_from(i).ok().filter(|&i| i < s.b)?;
                let at = s.a + i;
                let e = d.entry(at)?;
                Some((KeyRef::Doc(d, at), NodeRef::Doc(d, e.value)))
            }
        }
    }

    /// The position of `key`. Inlined into the lookups, as
    /// [`Map`]'s: a small map's scan costs no call.
    #[inline(always)]
    fn position(self, key: &str) -> Option<usize> {
        match self {
            MapRef::Tree(m) => m.get_full(key).map(|(i, _)| i),
            MapRef::Doc(d, id) => {
                let s = d.slot(id);
                if s.form & INDEXED != 0 {
                    return d.position_indexed(id, s, key);
                }
                let first = s.a as usize;
                let entries = d.entries.get(first..first + s.b as usize)?;
                entries.iter().position(|e| d.is_named(e, key))
            }
        }
    }

    /// The value of `key`.
    #[inline]
    pub fn get(self, key: &str) -> Option<NodeRef<'a>> {
        match self {
            MapRef::Tree(m) => m.get(key).map(NodeRef::Tree),
            MapRef::Doc(d, id) => d.get(id, key),
        }
    }

    /// The key and value of `key`.
    pub fn get_entry(self, key: &str) -> Option<(KeyRef<'a>, NodeRef<'a>)> {
        self.get_index(self.position(key)?)
    }

    /// The position and value of `key`.
    pub fn get_full(self, key: &str) -> Option<(usize, NodeRef<'a>)> {
        let i = self.position(key)?;
        self.get_index(i).map(|(_, v)| (i, v))
    }

    /// Whether the map has `key`.
    #[inline]
    pub fn contains_key(self, key: &str) -> bool {
        match self {
            MapRef::Tree(m) => m.contains_key(key),
            MapRef::Doc(..) => self.position(key).is_some(),
        }
    }

    /// The first entry.
    pub fn first(self) -> Option<(KeyRef<'a>, NodeRef<'a>)> {
        self.get_index(0)
    }

    /// The entries in order.
    #[inline]
    pub fn iter(self) -> MapIter<'a> {
        MapIter(match self {
            MapRef::Tree(m) => Entries::Tree(m.entries().iter()),
            MapRef::Doc(d, id) => {
                let s = d.slot(id);
                Entries::Doc(d, s.a..s.a + s.b)
            }
        })
    }

    /// The key names in order.
    pub fn keys(self) -> impl Iterator<Item = &'a str> {
        self.iter().map(|(k, _)| k.name())
    }

    /// The values in order.
    #[inline]
    pub fn values(self) -> impl DoubleEndedIterator<Item = NodeRef<'a>> {
        self.iter().map(|(_, v)| v)
    }
}

/// The entries of a [`MapRef`]: a tree's as a slice iterator, so that
/// reading a tree through [`MapRef`] costs one branch per entry.
#[derive(Clone, Debug)]
pub struct MapIter<'a>(Entries<'a>);

#[derive(Clone, Debug)]
enum Entries<'a> {
    Tree(std::slice::Iter<'a, (Key, Node)>),
    /// The document and the range of its entry list the map holds.
    Doc(&'a Doc, std::ops::Range<u32>),
}

impl<'a> Entries<'a> {
    /// The document's entry `at`.
    #[inline]
    fn doc_item(d: &'a Doc, at: u32) -> Option<(KeyRef<'a>, NodeRef<'a>)> {
        let e = d.entry(at)?;
        Some((KeyRef::Doc(d, at), NodeRef::Doc(d, e.value)))
    }
}

impl<'a> Iterator for MapIter<'a> {
    type Item = (KeyRef<'a>, NodeRef<'a>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            Entries::Tree(it) => it.next().map(|(k, v)| (KeyRef::Tree(k), NodeRef::Tree(v))),
            Entries::Doc(d, range) => Entries::doc_item(d, range.next()?),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match &self.0 {
            Entries::Tree(it) => it.len(),
            Entries::Doc(_, range) => range.len(),
        };
        (n, Some(n))
    }
}

impl DoubleEndedIterator for MapIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            Entries::Tree(it) => it
                .next_back()
                .map(|(k, v)| (KeyRef::Tree(k), NodeRef::Tree(v))),
            Entries::Doc(d, range) => Entries::doc_item(d, range.next_back()?),
        }
    }
}

impl ExactSizeIterator for MapIter<'_> {}

impl<'a> IntoIterator for MapRef<'a> {
    type Item = (KeyRef<'a>, NodeRef<'a>);
    type IntoIter = MapIter<'a>;

    fn into_iter(self) -> MapIter<'a> {
        self.iter()
    }
}

impl<'a> KeyRef<'a> {
    /// The key as a JavaScript property name (see [`Key::name`]).
    #[inline]
    pub fn name(self) -> &'a str {
        match self {
            KeyRef::Tree(k) => &k.name,
            KeyRef::Doc(d, at) => d.entry(at).map_or("", |e| d.str_at(e.name, e.name_len)),
        }
    }

    /// Where the key was written.
    #[inline]
    pub fn span(self) -> Span {
        match self {
            KeyRef::Tree(k) => k.span,
            KeyRef::Doc(d, at) => d
                .entry(at)
                .map_or(Span::NONE, |e| d.span_of(e.start, e.end)),
        }
    }

    /// The owned key this reads, if it reads one of a tree (not of a
    /// [`Doc`]).
    #[inline]
    pub fn as_tree(self) -> Option<&'a Key> {
        match self {
            KeyRef::Tree(k) => Some(k),
            KeyRef::Doc(..) => None,
        }
    }

    /// The key's tree if it was written as a collection (see [`Key::tree`]).
    pub fn tree(self) -> Option<NodeRef<'a>> {
        match self {
            KeyRef::Tree(k) => k.tree().map(NodeRef::Tree),
            KeyRef::Doc(d, _) if d.complex_keys.is_empty() => None,
            KeyRef::Doc(d, at) => d.complex_keys.get(&at).map(|&t| NodeRef::Doc(d, t)),
        }
    }

    /// The owned key.
    pub fn to_key(self) -> Key {
        match self {
            KeyRef::Tree(k) => k.clone(),
            KeyRef::Doc(..) => match self.tree() {
                Some(tree) => {
                    let mut key = Key::complex(self.name(), tree.to_node());
                    key.span = self.span();
                    key
                }
                None => Key::new(self.name(), self.span()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every node, key, span and form of `tree` reads the same through its
    /// document as through the tree.
    fn same(tree: NodeRef<'_>, doc: NodeRef<'_>) {
        assert_eq!(tree.span(), doc.span());
        assert_eq!(tree.form(), doc.form());
        match (tree.value(), doc.value()) {
            (ValueRef::Seq(a), ValueRef::Seq(b)) => {
                assert_eq!(a.len(), b.len());
                for (x, y) in a.iter().zip(b.iter()) {
                    same(x, y);
                }
                assert_eq!(a.iter().rev().count(), b.iter().rev().count());
            }
            (ValueRef::Map(a), ValueRef::Map(b)) => {
                assert_eq!(a.len(), b.len());
                for ((k, x), (l, y)) in a.iter().zip(b.iter()) {
                    assert_eq!((k.name(), k.span()), (l.name(), l.span()));
                    assert_eq!(k.tree().is_some(), l.tree().is_some());
                    if let (Some(s), Some(t)) = (k.tree(), l.tree()) {
                        same(s, t);
                    }
                    same(x, y);
                    let found = b.get(k.name()).map(|v| v.span());
                    assert_eq!(found, a.get(k.name()).map(|v| v.span()));
                }
                assert!(b.get("no such key").is_none());
            }
            (a, b) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
        }
    }

    fn both(text: &str) {
        let tree = crate::parse(text, SourceId(3)).unwrap();
        let doc = Doc::from_node(&tree, SourceId(3));
        same(NodeRef::from(&tree), doc.root());
        let back = doc.root().to_node();
        assert!(crate::deep_equal(&tree.value, &back.value));
        assert!(doc.root().value().deep_equal(ValueRef::from(&tree.value)));
        assert_eq!(crate::emit(&tree), crate::emit(&back));
    }

    #[test]
    fn deep_equal_ignores_key_order_but_not_list_order() {
        let p = |text: &str| crate::parse(text, SourceId(0)).unwrap();
        let (x, y) = (p("{a: 1, b: s}"), p("{b: s, a: 1}"));
        assert!(deep_equal(&x.value, &y.value));
        assert!(!deep_equal(&p("[1, 2]").value, &p("[2, 1]").value));
        assert!(!deep_equal(&p("1").value, &p("'1'").value));
        assert!(!deep_equal(&p("{a: 1}").value, &p("{a: 1, b: 2}").value));
        // A document against a tree, either side.
        let doc = Doc::from_node(&x, SourceId(0));
        assert!(doc.root().value().deep_equal(ValueRef::from(&y.value)));
        assert!(!ValueRef::from(&p("{a: 1, b: t}").value).deep_equal(doc.root().value()));
    }

    #[test]
    fn documents_read_as_their_trees() {
        both("a: 1\nb: [x, 'y', 2.0, true, null]\nc: {d: e}\n");
        both("? [service, 2]\n: x\nk: !!str 1\nt: 2024-01-02\n");
        both("- &a {x: 1}\n- *a\n- |\n  block\n");
        let many: String = (0..100).map(|i| format!("key{i}: {i}\n")).collect();
        both(&many);
    }

    /// A collection the processor made from a scalar keeps the scalar's
    /// form (the transformation writes such a map back as the scalar).
    #[test]
    fn collections_keep_their_forms() {
        let mut tree = crate::parse("a: {file: x}\nb: [1]\n", SourceId(3)).unwrap();
        let marked = [("a", Form::Quoted), ("b", Form::Plain)];
        for (key, form) in marked {
            if let Some(n) = tree.get_mut(key) {
                n.form = form;
            }
        }
        let many: String = (0..100).map(|i| format!("k{i}: {i}\n")).collect();
        let mut indexed = crate::parse(&many, SourceId(3)).unwrap();
        indexed.form = Form::Plain;
        for tree in [tree, indexed] {
            let doc = Doc::from_node(&tree, SourceId(3));
            same(NodeRef::from(&tree), doc.root());
            assert_eq!(doc.root().to_node().form, tree.form);
        }
    }

    #[test]
    fn trees_with_spans_in_other_sources_stay_trees() {
        let mut tree = crate::parse("a: {b: 1}\n", SourceId(1)).unwrap();
        let one = Doc::from_tree(tree.clone(), SourceId(1));
        assert!(one.is_ok_and(|d| d.root().get("a").and_then(|a| a.get("b")).is_some()));
        let other = crate::parse("c\n", SourceId(2)).unwrap();
        tree.get_mut("a")
            .and_then(Node::as_map_mut)
            .unwrap()
            .insert("c", other);
        let kept = Doc::from_tree(tree, SourceId(1));
        assert!(kept.is_err_and(|t| t.get("a").and_then(|a| a.get("c")).is_some()));
    }

    #[test]
    fn large_maps_find_every_key_through_their_index() {
        let text: String = (0..1000)
            .map(|i| format!("n{i}: {{type: T{}}}\n", i % 7))
            .collect();
        let tree = crate::parse(&text, SourceId(0)).unwrap();
        let doc = Doc::from_node(&tree, SourceId(0));
        let root = doc.root().as_map().unwrap();
        for i in (0..1000).step_by(37) {
            let t = root.get(&format!("n{i}")).and_then(|n| n.get("type"));
            assert_eq!(
                t.and_then(NodeRef::as_str),
                Some(format!("T{}", i % 7).as_str())
            );
        }
        assert!(root.get("n1000").is_none());
        assert_eq!(root.get_full("n999").map(|(i, _)| i), Some(999));
    }

    #[test]
    fn repeated_key_names_are_stored_once() {
        let text: String = (0..1000)
            .map(|i| format!("- {{type: t, properties: {i}}}\n"))
            .collect();
        let tree = crate::parse(&text, SourceId(0)).unwrap();
        let doc = Doc::from_node(&tree, SourceId(0));
        assert!(doc.strings.len() < 100, "{}", doc.strings.len());
    }

    #[test]
    fn large_maps_reject_duplicate_keys() {
        let mut b = DocBuilder::new(SourceId(0));
        let v = b.scalar(&Value::Null, Span::NONE, Form::Other);
        let many: Vec<PendingEntry> = (0..30)
            .map(|i| b.entry(&format!("k{}", i % 29), Span::NONE, v))
            .collect();
        assert!(b.map_of(&many, Span::NONE).1);
        let fine: Vec<PendingEntry> = (0..30)
            .map(|i| b.entry(&format!("k{i}"), Span::NONE, v))
            .collect();
        assert!(!b.map_of(&fine, Span::NONE).1);
    }

    #[test]
    fn slots_stay_small() {
        assert_eq!(std::mem::size_of::<Slot>(), 20);
        assert_eq!(std::mem::size_of::<EntrySlot>(), 20);
        assert!(std::mem::size_of::<NodeRef<'_>>() <= 16);
    }
}
