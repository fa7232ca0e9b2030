//! The document tree: every node carries the [`Span`] of the YAML it came from.
//!
//! Values follow JavaScript semantics because the reference implementation is
//! written in JavaScript: there is one number type (`f64`), maps keep insertion
//! order and have string keys, and YAML timestamps are dates (milliseconds since
//! the epoch).

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

pub use crate::span::{SourceId, Span};

/// How a scalar was written, as far as it matters to a reader that must tell
/// `1` from `1.0`, `true` from `'true'` or see explicit tags (a TOSCA 2.0
/// validator), and to an emitter that writes values back as they were
/// written. One byte on every [`Node`]; it describes the value the parser
/// produced (a stage that replaces a node's value should not rely on it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Form {
    /// Not a scalar read from text: a collection, or a node the processor made.
    #[default]
    Other,
    /// A plain scalar resolved implicitly to null, a boolean, a string or
    /// (js-yaml schema only) a timestamp.
    Plain,
    /// A plain scalar resolved implicitly to an integer (`1`, `0x1F`).
    Int,
    /// A plain scalar resolved implicitly to a float (`1.0`, `1e3`, `.inf`).
    Float,
    /// A single- or double-quoted scalar (always a string).
    Quoted,
    /// A literal (`|`) or folded (`>`) block scalar (always a string).
    Block,
    /// A scalar with an explicit tag.
    Tagged(Tag),
}

/// The explicit tags a scalar may carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tag {
    /// `!!str`
    Str,
    /// `!!int`
    Int,
    /// `!!float`
    Float,
    /// `!!bool`
    Bool,
    /// `!!null`
    Null,
    /// `!!timestamp`
    Timestamp,
    /// `!!binary` (accepted only by [`crate::parse::Schema::Core`], as the
    /// string written, for a validator to reject or decode).
    Binary,
    /// `!` (the non-specific tag: a string).
    NonSpecific,
}

impl Form {
    /// Whether the scalar was written as a floating-point number (plain or
    /// `!!float`): `1.0` as opposed to `1`.
    pub fn is_float(self) -> bool {
        matches!(self, Form::Float | Form::Tagged(Tag::Float))
    }

    /// Whether the scalar was written as an integer (plain or `!!int`).
    pub fn is_int(self) -> bool {
        matches!(self, Form::Int | Form::Tagged(Tag::Int))
    }

    /// The explicit tag, if the scalar had one.
    pub fn tag(self) -> Option<Tag> {
        match self {
            Form::Tagged(tag) => Some(tag),
            _ => None,
        }
    }
}

/// A YAML node: a value, where it was written and how.
#[derive(Clone, Debug, Default)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// Where it was written ([`Span::NONE`] for nodes the processor made).
    pub span: Span,
    /// How a scalar was written ([`Form::Other`] for everything else).
    pub form: Form,
}

/// A YAML value with JavaScript semantics.
#[derive(Clone, Debug, Default)]
pub enum Value {
    /// `null`, `~` or empty. Also used for JavaScript's `undefined` where a
    /// value is required but absent.
    #[default]
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number (JavaScript has one number type).
    Number(f64),
    /// A string.
    String(String),
    /// A YAML timestamp (a JavaScript `Date`), in milliseconds since the epoch (UTC).
    Timestamp(f64),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping.
    Map(Map),
}

/// A map key and where it was written.
///
/// Maps are string-keyed (JavaScript objects in the reference). A key written
/// as a collection (a *complex key*: `[ service, 2 ]: x`, `? {a: 1}`) keeps
/// its tree ([`Key::tree`]), and its [`Key::name`] is a rendering of it,
/// which lookups and duplicate detection use:
///
/// * [`Schema::JsYaml`](crate::parse::Schema::JsYaml): js-yaml 4's
///   `String(key)`: a sequence is its items joined with `,` (`service,2`;
///   null items are empty, map items `[object Object]`, nested sequences an
///   error), a map is `[object Object]`;
/// * [`Schema::Core`](crate::parse::Schema::Core) (YAML 1.2: keys are equal
///   when their nodes are): the key written as a flow collection
///   (`[service, 2]`, `{$keygen: [UUID]}`), exactly as the emitter writes it.
///
/// The emitter writes a complex key back as the collection it was.
#[derive(Clone, Debug)]
pub struct Key {
    /// The key as a JavaScript property name (`1` and `'1'` are both
    /// `"1"`; a complex key's rendering, see above).
    pub name: KeyName,
    /// Where the key was written.
    pub span: Span,
}

/// The name of a map key: a string in one allocation of exactly its length,
/// or a reference to a name several keys share (a reading shares the names
/// its keys repeat) or to a complex key's rendering and tree
/// ([`Key::tree`]). 16 bytes either way (a `String` alone is 24), which
/// keeps [`Key`] at 32 bytes; documents hold millions of keys, and almost
/// none is complex. Reads like a `&str` (`Deref`, comparisons with strings
/// by name, `Display`).
#[derive(Clone)]
pub struct KeyName(Repr);

#[derive(Clone)]
enum Repr {
    Plain(Box<str>),
    Shared(Arc<SharedName>),
}

/// A name held by reference: one that keys of a document repeat, or a
/// complex key's rendering with its tree.
#[derive(Clone)]
struct SharedName {
    name: Box<str>,
    tree: Option<Node>,
}

/// The key names of one reading, shared where they repeat.
///
/// A document repeats a few names (`type`, `properties`, `conditions`)
/// hundreds of thousands of times, and a name of its own is an allocation
/// of 8 to 24 bytes per key (family 1 seed 100,000: 2.3 million repeated
/// keys). A direct-mapped table by the name's hash remembers the names
/// seen: the second key of a name makes it shared, the later ones take a
/// reference. A name that does not repeat costs a hash and leaves a shared
/// name in its slot alone, so a stream of unique names (template names)
/// does not evict the frequent ones.
pub(crate) struct KeyNames {
    slots: Box<[NameSlot]>,
}

/// What a [`KeyNames`] slot remembers: a name's hash, and once that name
/// came again, the name.
#[derive(Clone, Default)]
enum NameSlot {
    #[default]
    Empty,
    Seen(u64),
    Shared(u64, Arc<SharedName>),
}

/// Slots of a [`KeyNames`] table (a power of two; 24 KB).
const NAME_SLOTS: usize = 1024;

impl KeyNames {
    pub(crate) fn new() -> KeyNames {
        KeyNames {
            slots: vec![NameSlot::Empty; NAME_SLOTS].into_boxed_slice(),
        }
    }

    /// The key name `name`, shared if the reading had it before.
    pub(crate) fn name(&mut self, name: &str) -> KeyName {
        self.shared(name).unwrap_or_else(|| KeyName::from(name))
    }

    /// [`KeyNames::name`] of a name already owned.
    pub(crate) fn owned(&mut self, name: String) -> KeyName {
        self.shared(&name).unwrap_or_else(|| KeyName::from(name))
    }

    /// `name` shared if the reading had it before; `None` (the name seen)
    /// if not.
    fn shared(&mut self, name: &str) -> Option<KeyName> {
        let h = short_name_hash(name.as_bytes())?;
        let slot = &mut self.slots[h as usize & (NAME_SLOTS - 1)];
        match slot {
            NameSlot::Shared(seen, shared)
                if *seen == h && same_bytes(shared.name.as_bytes(), name.as_bytes()) =>
            {
                return Some(KeyName(Repr::Shared(Arc::clone(shared))));
            }
            NameSlot::Shared(..) => {}
            NameSlot::Seen(seen) if *seen == h => {
                let shared = Arc::new(SharedName {
                    name: name.into(),
                    tree: None,
                });
                *slot = NameSlot::Shared(h, Arc::clone(&shared));
                return Some(KeyName(Repr::Shared(shared)));
            }
            NameSlot::Seen(_) | NameSlot::Empty => *slot = NameSlot::Seen(h),
        }
        None
    }
}

/// A hash of a name of up to [`SHARED_NAME_LEN`] bytes that reads every
/// byte (three overlapping words), `None` for a longer name, which
/// [`KeyNames`] leaves unshared: keynames are short, and a name that long
/// is mostly a template's own. Not seeded: a collision costs sharing, not
/// time.
#[inline]
fn short_name_hash(b: &[u8]) -> Option<u64> {
    let n = b.len();
    let word = |at: usize| {
        b.get(at..at + 8)
            .and_then(|w| w.first_chunk::<8>())
            .map_or(0, |w| u64::from_le_bytes(*w))
    };
    let half = |at: usize| {
        b.get(at..at + 4)
            .and_then(|w| w.first_chunk::<4>())
            .map_or(0, |w| u64::from(u32::from_le_bytes(*w)))
    };
    let (first, middle, last) = match n {
        0..4 => {
            let byte = |i: usize| b.get(i).map_or(0, |&c| u64::from(c));
            (
                byte(0) | byte(n / 2) << 8 | byte(n.wrapping_sub(1)) << 16,
                0,
                0,
            )
        }
        4..8 => (half(0), 0, half(n - 4)),
        8..=SHARED_NAME_LEN => (word(0), word((n - 8) / 2), word(n - 8)),
        _ => return None,
    };
    let fold = |x: u64, y: u64| {
        let m = u128::from(x) * u128::from(y);
        (m as u64) ^ ((m >> 64) as u64)
    };
    const K: [u64; 3] = [
        0x243f_6a88_85a3_08d3,
        0x1319_8a2e_0370_7344,
        0xa409_3822_299f_31d0,
    ];
    Some(fold(first ^ K[0], last ^ K[1]) ^ fold(middle ^ K[2], K[0] ^ n as u64))
}

/// The longest name [`KeyNames`] shares (three words).
const SHARED_NAME_LEN: usize = 24;

impl KeyName {
    /// The name as a `&str`.
    #[inline]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Plain(name) => name,
            Repr::Shared(s) => &s.name,
        }
    }
}

#[cfg(test)]
impl KeyName {
    /// Whether the name is held by reference without a tree (a repeated
    /// name [`KeyNames`] shares).
    fn is_shared(&self) -> bool {
        matches!(&self.0, Repr::Shared(s) if s.tree.is_none())
    }
}

impl Default for KeyName {
    fn default() -> KeyName {
        KeyName(Repr::Plain(Box::default()))
    }
}

impl std::ops::Deref for KeyName {
    type Target = str;

    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for KeyName {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for KeyName {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for KeyName {
    fn eq(&self, other: &KeyName) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for KeyName {}

impl std::hash::Hash for KeyName {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialOrd for KeyName {
    fn partial_cmp(&self, other: &KeyName) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for KeyName {
    fn cmp(&self, other: &KeyName) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl fmt::Debug for KeyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for KeyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<String> for KeyName {
    fn from(s: String) -> KeyName {
        KeyName(Repr::Plain(s.into_boxed_str()))
    }
}

impl From<&str> for KeyName {
    fn from(s: &str) -> KeyName {
        KeyName(Repr::Plain(s.into()))
    }
}

impl From<KeyName> for String {
    fn from(k: KeyName) -> String {
        match k.0 {
            Repr::Plain(name) => name.into_string(),
            Repr::Shared(s) => s.name.to_string(),
        }
    }
}

impl PartialEq<str> for KeyName {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for KeyName {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for KeyName {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<KeyName> for str {
    fn eq(&self, other: &KeyName) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<KeyName> for &str {
    fn eq(&self, other: &KeyName) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<KeyName> for String {
    fn eq(&self, other: &KeyName) -> bool {
        self.as_str() == other.as_str()
    }
}

/// An insertion-ordered map with string keys.
///
/// Lookups are linear for small maps; large maps (node templates,
/// expressions, relationship templates) keep a hash index.
#[derive(Clone, Debug, Default)]
pub struct Map {
    entries: Vec<(Key, Node)>,
    /// Key positions by key hash, kept only for large maps (first occurrence
    /// of a hash wins; lookups verify the key and scan on hash collisions).
    /// Boxed: most maps are small, and an inline table would make every
    /// [`Value`] (and so every [`Node`]) larger.
    index: Option<Box<Index>>,
}

/// Map index: [`key_hash`] to the first entry position with that hash.
pub(crate) type Index = HashMap<u64, u32, BuildHasherDefault<HashIsKey>>;

/// A seeded hash of a map key ([`crate::hash`]), so that the index needs no
/// copies of the keys.
#[inline]
fn key_hash(key: &str) -> u64 {
    crate::hash::hash_str(key)
}

/// The index keys are already hashes.
#[derive(Default)]
pub(crate) struct HashIsKey(u64);

impl Hasher for HashIsKey {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

impl Node {
    /// A node of `value` written at `span` (no scalar form).
    pub fn new(value: Value, span: Span) -> Node {
        Node {
            value,
            span,
            form: Form::Other,
        }
    }

    /// A scalar read from text: its value, span and how it was written.
    #[inline]
    pub fn scalar(value: Value, span: Span, form: Form) -> Node {
        Node { value, span, form }
    }

    /// A synthesized node without source location.
    pub fn synth(value: Value) -> Node {
        Node::new(value, Span::NONE)
    }

    /// A synthesized `null`.
    pub fn null() -> Node {
        Node::synth(Value::Null)
    }

    /// A synthesized string.
    pub fn string(s: impl Into<String>) -> Node {
        Node::synth(Value::String(s.into()))
    }

    /// A synthesized number.
    pub fn number(n: f64) -> Node {
        Node::synth(Value::Number(n))
    }

    /// A synthesized boolean.
    pub fn bool(b: bool) -> Node {
        Node::synth(Value::Bool(b))
    }

    /// A synthesized sequence.
    pub fn seq(items: Vec<Node>) -> Node {
        Node::synth(Value::Seq(items))
    }

    /// A synthesized map.
    pub fn map(map: Map) -> Node {
        Node::synth(Value::Map(map))
    }

    /// A single-entry map `{key: value}`.
    pub fn single(key: impl Into<String>, value: Node) -> Node {
        // Sized for exactly one entry: conditions create millions of these.
        let mut map = Map::with_capacity(1);
        map.push(Key::new(key, Span::NONE), value);
        Node::map(map)
    }

    /// Whether the value is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self.value, Value::Null)
    }

    /// JavaScript's `isDefined`: neither missing nor null.
    pub fn is_defined(&self) -> bool {
        !self.is_null()
    }

    /// The string, if the value is one.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, if the value is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self.value {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The number, if the value is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self.value {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The items, if the value is a sequence.
    pub fn as_seq(&self) -> Option<&Vec<Node>> {
        match &self.value {
            Value::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// The items, mutable, if the value is a sequence.
    pub fn as_seq_mut(&mut self) -> Option<&mut Vec<Node>> {
        match &mut self.value {
            Value::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// The map, if the value is one.
    pub fn as_map(&self) -> Option<&Map> {
        match &self.value {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The map, mutable, if the value is one.
    pub fn as_map_mut(&mut self) -> Option<&mut Map> {
        match &mut self.value {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// Looks up `key` if this node is a map.
    #[inline]
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map().and_then(|m| m.get(key))
    }

    /// Looks up `key` if this node is a map, treating null values as missing.
    #[inline]
    pub fn get_defined(&self, key: &str) -> Option<&Node> {
        self.get(key).filter(|n| n.is_defined())
    }

    /// Looks up `key`, mutable, if this node is a map.
    #[inline]
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        self.as_map_mut().and_then(|m| m.get_mut(key))
    }

    /// JavaScript truthiness (`!!value`).
    pub fn is_truthy(&self) -> bool {
        self.value.is_truthy()
    }
}

impl Value {
    /// JavaScript truthiness (`!!value`).
    pub fn is_truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Number(n) => *n != 0.0 && !n.is_nan(),
            Value::String(s) => !s.is_empty(),
            Value::Timestamp(_) | Value::Seq(_) | Value::Map(_) => true,
        }
    }

    /// A short name of the value's kind, for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Timestamp(_) => "timestamp",
            Value::Seq(_) => "list",
            Value::Map(_) => "map",
        }
    }
}

/// Maps with more entries than this keep a hash index for lookups.
pub(crate) const INDEX_THRESHOLD: usize = 24;

impl Map {
    /// An empty map, as a constant.
    pub const EMPTY: Map = Map {
        entries: Vec::new(),
        index: None,
    };

    /// An empty map.
    pub fn new() -> Map {
        Map::default()
    }

    /// An empty map with room for `n` entries.
    pub fn with_capacity(n: usize) -> Map {
        Map {
            entries: Vec::with_capacity(n),
            index: None,
        }
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Inlined into the lookups: a small map's scan for a key of up to 32
    /// bytes costs no call, and keeps nothing else on its path (the other
    /// cases would make every lookup save registers).
    #[inline(always)]
    fn position(&self, key: &str) -> Option<usize> {
        let bytes = key.as_bytes();
        match &self.index {
            None if bytes.len() <= 32 => self
                .entries
                .iter()
                .position(|(k, _)| same_bytes(k.name.as_bytes(), bytes)),
            _ => self.position_out_of_line(key),
        }
    }

    /// [`Self::position`] through the hash index, or for long keys.
    #[inline(never)]
    fn position_out_of_line(&self, key: &str) -> Option<usize> {
        let Some(index) = &self.index else {
            return self.entries.iter().position(|(k, _)| k.name == key);
        };
        match index.get(&key_hash(key)) {
            None => None,
            Some(&i)
                if self
                    .entries
                    .get(i as usize)
                    .is_some_and(|(k, _)| same_bytes(k.name.as_bytes(), key.as_bytes())) =>
            {
                Some(i as usize)
            }
            Some(_) => self.entries.iter().position(|(k, _)| k.name == key),
        }
    }

    /// Rebuilds (or drops) the hash index after a structural change.
    fn reindex(&mut self) {
        if self.entries.len() > INDEX_THRESHOLD {
            let (index, _) = index_names(self.entries.len(), |i| self.name_at(i));
            self.index = Some(Box::new(index));
        } else {
            self.index = None;
        }
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Node> {
        let bytes = key.as_bytes();
        // `position`'s scan, finding the entry itself: no counter, no bounds
        // check (measured: cheaper than going through the position).
        let found = match &self.index {
            None if bytes.len() <= 32 => self
                .entries
                .iter()
                .find(|(k, _)| same_bytes(k.name.as_bytes(), bytes)),
            _ => self
                .position_out_of_line(key)
                .and_then(|i| self.entries.get(i)),
        };
        found.map(|(_, v)| v)
    }

    /// The value of `key`, mutable.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        let bytes = key.as_bytes();
        // As in `get`.
        let found = match &self.index {
            None if bytes.len() <= 32 => self
                .entries
                .iter_mut()
                .find(|(k, _)| same_bytes(k.name.as_bytes(), bytes)),
            _ => self
                .position_out_of_line(key)
                .and_then(|i| self.entries.get_mut(i)),
        };
        found.map(|(_, v)| v)
    }

    /// The entry at `position` in insertion order.
    pub fn get_index(&self, position: usize) -> Option<(&Key, &Node)> {
        self.entries.get(position).map(|(k, v)| (k, v))
    }

    /// Mutable access to the value at `position` in insertion order.
    pub fn get_index_mut(&mut self, position: usize) -> Option<&mut Node> {
        self.entries.get_mut(position).map(|(_, v)| v)
    }

    /// The position of `key`'s (first) entry in insertion order, with its
    /// value: a stable index for tables kept beside the map.
    pub fn get_full(&self, key: &str) -> Option<(usize, &Node)> {
        self.position(key).map(|i| (i, &self.entries[i].1))
    }

    /// The entry for `key`, including the key's span.
    pub fn get_entry(&self, key: &str) -> Option<(&Key, &Node)> {
        self.position(key).map(|i| {
            let (k, v) = &self.entries[i];
            (k, v)
        })
    }

    /// Whether `key` has an entry.
    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// Sets `key` to `value`: replaces the value in place if the key exists
    /// (keeping its position), appends otherwise (JavaScript property semantics).
    pub fn insert(&mut self, key: impl Into<String>, value: Node) {
        let key = key.into();
        if let Some(slot) = self.get_mut(&key) {
            *slot = value;
        } else {
            self.push(Key::new(key, Span::NONE), value);
        }
    }

    /// Appends an entry with its key span; does not check for duplicates.
    pub fn push(&mut self, key: Key, value: Node) {
        let position = self.entries.len();
        if position == self.entries.capacity() {
            // Grow by a quarter (at least one entry) rather than doubling:
            // the parser sizes maps exactly, and the stages add an entry or
            // two to millions of them (`technology: []` on every node
            // template), where doubling would nearly double the tree.
            self.entries.reserve_exact((position / 4).max(1));
        }
        match &mut self.index {
            Some(index) => {
                index.entry(key_hash(&key.name)).or_insert(position as u32);
                self.entries.push((key, value));
            }
            None => {
                self.entries.push((key, value));
                if self.entries.len() > INDEX_THRESHOLD {
                    self.reindex();
                }
            }
        }
    }

    /// The map under `key`, first replacing a missing or non-map value with an
    /// empty map (`obj.key ??= {}` in the reference). Always `Some`.
    pub fn map_entry(&mut self, key: &str) -> Option<&mut Map> {
        if !matches!(self.get(key).map(|n| &n.value), Some(Value::Map(_))) {
            self.insert(key, Node::map(Map::new()));
        }
        self.get_mut(key).and_then(Node::as_map_mut)
    }

    /// Removes `key`, keeping the order of the other entries.
    pub fn remove(&mut self, key: &str) -> Option<Node> {
        let pos = self.position(key)?;
        let removed = self.entries.remove(pos).1;
        if self.index.is_some() {
            self.reindex();
        }
        Some(removed)
    }

    /// The first entry (the implementation reads single-entry maps this way).
    pub fn first(&self) -> Option<(&Key, &Node)> {
        self.entries.first().map(|(k, v)| (k, v))
    }

    /// The first entry, its value mutable.
    pub fn first_mut(&mut self) -> Option<(&Key, &mut Node)> {
        self.entries.first_mut().map(|(k, v)| (&*k, v))
    }

    /// The entries in insertion order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&Key, &Node)> + ExactSizeIterator {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The entries in insertion order, as stored.
    pub(crate) fn entries(&self) -> &[(Key, Node)] {
        &self.entries
    }

    /// The entries in insertion order, values mutable.
    pub fn iter_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = (&Key, &mut Node)> + ExactSizeIterator {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    /// The keys in insertion order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.name.as_str())
    }

    /// Keeps the entries for which `f` holds, in order.
    pub fn retain(&mut self, mut f: impl FnMut(&Key, &Node) -> bool) {
        let before = self.entries.len();
        self.entries.retain(|(k, v)| f(k, v));
        if self.entries.len() != before {
            self.reindex();
        }
    }

    /// Mutable keys and values, for the parser to adjust spans. Key names
    /// must not change (the index hashes them).
    pub(crate) fn entries_mut(&mut self) -> impl Iterator<Item = (&mut Key, &mut Node)> {
        self.entries.iter_mut().map(|(k, v)| (k, v))
    }

    /// The entries, in insertion order.
    pub fn into_entries(self) -> Vec<(Key, Node)> {
        self.entries
    }

    /// A map of `entries` (not checked for duplicate keys).
    pub fn from_entries(entries: Vec<(Key, Node)>) -> Map {
        let mut m = Map {
            entries,
            index: None,
        };
        m.reindex();
        m
    }

    /// [`Map::from_entries`] for a parser that has checked maps of up to
    /// [`INDEX_THRESHOLD`] entries for duplicate keys: a larger map finds
    /// them while building its index (`None` if two keys are equal), so that
    /// the parser needs no hash set of its own.
    pub(crate) fn from_unique_entries(entries: Vec<(Key, Node)>) -> Option<Map> {
        if entries.len() <= INDEX_THRESHOLD {
            return Some(Map::from_entries(entries));
        }
        let mut map = Map {
            entries,
            index: None,
        };
        let (index, duplicate) = index_names(map.entries.len(), |i| map.name_at(i));
        map.index = Some(Box::new(index));
        (!duplicate).then_some(map)
    }

    /// The name of entry `i` (empty past the end).
    fn name_at(&self, i: usize) -> &str {
        self.entries.get(i).map_or("", |(k, _)| &k.name)
    }
}

/// The hash index of `count` key names (`name(i)`), the first of equal
/// names winning as lookups expect, and whether two names are equal (looked
/// for only where hashes meet: a duplicate, or rarely a collision). Shared
/// by [`Map`] and [`crate::Doc`].
pub(crate) fn index_names<'n>(count: usize, name: impl Fn(usize) -> &'n str) -> (Index, bool) {
    use std::collections::hash_map::Entry;
    let mut index = Index::with_capacity_and_hasher(count, Default::default());
    let mut duplicate = false;
    for i in 0..count {
        match index.entry(key_hash(name(i))) {
            Entry::Vacant(slot) => {
                slot.insert(crate::span::clamp_u32(i));
            }
            Entry::Occupied(_) if !duplicate => {
                duplicate = (0..i).any(|j| name(j) == name(i));
            }
            Entry::Occupied(_) => {}
        }
    }
    (index, duplicate)
}

/// `a == b`, inline for keys of up to 32 bytes (nearly all map keys): a
/// lookup compares lengths first and then mostly finds its key, so the bytes
/// of matching keys are compared on almost every call, and a `memcmp` call
/// costs more than the comparison itself.
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    // Two possibly overlapping words cover 4 to 32 bytes.
    if n >= 16 {
        if n > 32 {
            return a == b;
        }
        let head = |s: &[u8]| s.first_chunk::<16>().map(|c| u128::from_ne_bytes(*c));
        let tail = |s: &[u8]| s.last_chunk::<16>().map(|c| u128::from_ne_bytes(*c));
        return head(a) == head(b) && tail(a) == tail(b);
    }
    if n >= 8 {
        let head = |s: &[u8]| s.first_chunk::<8>().map(|c| u64::from_ne_bytes(*c));
        let tail = |s: &[u8]| s.last_chunk::<8>().map(|c| u64::from_ne_bytes(*c));
        return head(a) == head(b) && tail(a) == tail(b);
    }
    if n >= 4 {
        let head = |s: &[u8]| s.first_chunk::<4>().map(|c| u32::from_ne_bytes(*c));
        let tail = |s: &[u8]| s.last_chunk::<4>().map(|c| u32::from_ne_bytes(*c));
        return head(a) == head(b) && tail(a) == tail(b);
    }
    // First, middle and last byte cover 0 to 3 bytes.
    a.first() == b.first() && a.get(n / 2) == b.get(n / 2) && a.last() == b.last()
}

impl Key {
    /// The scalar key `name` written at `span`.
    pub fn new(name: impl Into<String>, span: Span) -> Key {
        Key {
            name: KeyName::from(name.into()),
            span,
        }
    }

    /// A complex key: the collection `node`, named `name` (its rendering).
    pub fn complex(name: impl Into<String>, node: Node) -> Key {
        let span = node.span;
        let complex = SharedName {
            name: name.into().into_boxed_str(),
            tree: Some(node),
        };
        Key {
            name: KeyName(Repr::Shared(Arc::new(complex))),
            span,
        }
    }

    /// The key's tree if it was written as a collection (a complex key);
    /// `None` for scalar keys and for keys the processor made.
    pub fn tree(&self) -> Option<&Node> {
        match &self.name.0 {
            Repr::Plain(_) => None,
            Repr::Shared(s) => s.tree.as_ref(),
        }
    }

    /// [`Key::tree`], to adjust its spans (the name stays).
    pub fn tree_mut(&mut self) -> Option<&mut Node> {
        match &mut self.name.0 {
            // A shared name without a tree is not copied to say so.
            Repr::Shared(s) if s.tree.is_some() => Arc::make_mut(s).tree.as_mut(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_stay_small() {
        // Documents hold millions of nodes; keep them compact. A span is a
        // byte range (12 bytes) and the form one byte, in what was padding.
        assert_eq!(std::mem::size_of::<Span>(), 12);
        assert_eq!(std::mem::size_of::<Form>(), 1);
        assert!(
            std::mem::size_of::<Node>() <= 48,
            "{}",
            std::mem::size_of::<Node>()
        );
        // A key: name (16, a complex key's tree behind the same pointer)
        // and span (12); a map entry is 80 bytes.
        assert_eq!(std::mem::size_of::<KeyName>(), 16);
        assert_eq!(std::mem::size_of::<Key>(), 32);
        assert_eq!(std::mem::size_of::<(Key, Node)>(), 80);
    }

    #[test]
    fn repeated_key_names_are_shared() {
        let mut names = KeyNames::new();
        assert!(!names.name("type").is_shared(), "the first is its own");
        let later: Vec<KeyName> = (0..5).map(|_| names.name("type")).collect();
        assert!(later.iter().all(|k| k.is_shared() && *k == "type"));
        let one = |k: &KeyName| match &k.0 {
            Repr::Shared(s) => Arc::as_ptr(s),
            Repr::Plain(_) => std::ptr::null(),
        };
        assert!(
            later.iter().all(|k| one(k) == one(&later[0])),
            "one name for all"
        );
        // Names of their own in between leave a shared name in its slot.
        for i in 0..10_000 {
            assert!(!names.name(&format!("component_{i}")).is_shared());
        }
        assert!(names.name("type").is_shared());
        // A name longer than three words stays unshared.
        let long = "x".repeat(SHARED_NAME_LEN + 1);
        assert!((0..3).all(|_| !names.name(&long).is_shared()));
        assert!(names.owned("type".to_string()).is_shared());
    }

    #[test]
    fn shared_names_read_back_exactly() {
        // Every length up to the limit, and names that differ in one byte
        // at each position: their hashes differ (every byte is read) and
        // each name reads back as itself, shared or not.
        let mut all = Vec::new();
        for n in 0..=SHARED_NAME_LEN {
            all.push("a".repeat(n));
            for at in 0..n {
                let mut name = "a".repeat(n).into_bytes();
                name[at] = b'b';
                all.push(String::from_utf8(name).unwrap());
            }
        }
        let hashes: std::collections::HashSet<u64> = all
            .iter()
            .map(|s| short_name_hash(s.as_bytes()).unwrap())
            .collect();
        assert_eq!(hashes.len(), all.len());
        let mut names = KeyNames::new();
        let mut shared = 0;
        for _ in 0..3 {
            for name in &all {
                let k = names.name(name);
                assert_eq!(k.as_str(), name);
                shared += usize::from(k.is_shared());
            }
        }
        assert!(shared >= all.len(), "{shared} of {}", 3 * all.len());
    }

    #[test]
    fn readings_share_repeated_keys() {
        let text: String = (0..50)
            .map(|i| format!("n{i}:\n  type: t\n  properties: {{a: 1}}\n"))
            .collect();
        let fast = crate::fast::parse_fast(&text, SourceId(0)).expect("the fast path reads it");
        let general = crate::parse::parse_saphyr(&text, SourceId(0)).unwrap();
        for doc in [fast, general] {
            let mut shared = 0;
            let mut keys = 0;
            for (_, node) in doc.as_map().unwrap().iter() {
                for (k, v) in node.as_map().unwrap().iter() {
                    keys += 1;
                    shared += usize::from(k.name.is_shared());
                    for (k, _) in v.as_map().into_iter().flat_map(Map::iter) {
                        keys += 1;
                        shared += usize::from(k.name.is_shared());
                    }
                }
            }
            assert_eq!((keys, shared), (150, 147));
        }
    }

    #[test]
    fn key_names_read_like_strings() {
        let key = Key::new("name", Span::NONE);
        let (owned, borrowed): (String, &str) = ("name".into(), "name");
        assert!(key.name == borrowed);
        assert!(borrowed == key.name);
        assert!(key.name == *borrowed);
        assert!(*borrowed == key.name);
        assert!(key.name == owned);
        assert!(owned == key.name);
        assert!(key.name != "other" && key.name != *"nam");
        assert_eq!((key.name.as_str(), key.name.len()), ("name", 4));
        assert_eq!(format!("{} {:?}", key.name, key.name), "name \"name\"");
        assert_eq!(String::from(key.name.clone()), "name");
        let mut set = std::collections::HashSet::new();
        set.insert(key.name.clone());
        assert!(set.contains("name"));
        assert!(key.tree().is_none());
        let complex = Key::complex("a,b", Node::seq(vec![Node::string("a"), Node::string("b")]));
        assert_eq!(complex.tree().and_then(Node::as_seq).map(Vec::len), Some(2));
        // Names compare, hash and order by their text only.
        let (plain, a, b) = (KeyName::from("a,b"), KeyName::from("a"), KeyName::from("b"));
        assert!(complex.name == "a,b" && complex.name == plain);
        assert!(set.insert(complex.name.clone()) && set.contains("a,b"));
        assert!(a < complex.name && complex.name < b);
        assert_eq!(String::from(complex.name.clone()), "a,b");
    }

    #[test]
    fn insert_replaces_in_place_and_appends_new_keys() {
        let mut m = Map::new();
        m.insert("a", Node::number(1.0));
        m.insert("b", Node::number(2.0));
        m.insert("a", Node::number(3.0));
        assert_eq!(m.keys().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(m.get("a").and_then(Node::as_f64), Some(3.0));
        assert!(m.remove("a").is_some());
        assert_eq!(m.keys().collect::<Vec<_>>(), ["b"]);
    }

    #[test]
    fn pushes_grow_maps_by_a_quarter() {
        let entry = |i: usize| (Key::new(format!("k{i}"), Span::NONE), Node::null());
        let mut m = Map::from_entries((0..3).map(entry).collect());
        m.push(Key::new("technology", Span::NONE), Node::null());
        assert_eq!(m.entries.capacity(), 4);
        let mut m = Map::new();
        for i in 0..100 {
            m.push(entry(i).0, Node::null());
            assert!(m.entries.capacity() <= (i + 1) * 5 / 4 + 1, "{i}");
        }
        assert_eq!(m.get("k99").map(Node::is_null), Some(true));
    }

    #[test]
    fn large_maps_find_first_occurrences() {
        let entries: Vec<(Key, Node)> = (0..100)
            .map(|i| {
                (
                    Key::new(format!("k{}", i % 60), Span::NONE),
                    Node::number(i as f64),
                )
            })
            .collect();
        let mut m = Map::from_entries(entries);
        assert_eq!(m.get("k5").and_then(Node::as_f64), Some(5.0));
        assert_eq!(m.get("k59").and_then(Node::as_f64), Some(59.0));
        assert!(m.get("k60").is_none());
        m.push(Key::new("new", Span::NONE), Node::number(-1.0));
        assert_eq!(m.get("new").and_then(Node::as_f64), Some(-1.0));
        assert!(m.remove("k5").is_some());
        assert_eq!(m.get("k5").and_then(Node::as_f64), Some(65.0));
    }

    #[test]
    fn lookups_agree_on_short_and_long_keys_in_small_and_large_maps() {
        let long = "a_key_that_is_longer_than_thirty_two_bytes";
        for size in [3, 40] {
            let mut entries: Vec<(Key, Node)> = (0..size)
                .map(|i| {
                    (
                        Key::new(format!("k{i}"), Span::NONE),
                        Node::number(i as f64),
                    )
                })
                .collect();
            entries.push((Key::new(long, Span::NONE), Node::number(-1.0)));
            entries.push((Key::new("k1", Span::NONE), Node::number(-2.0)));
            entries.push((Key::new(long, Span::NONE), Node::number(-3.0)));
            let mut m = Map::from_entries(entries);
            for (key, want) in [("k1", 1.0), (long, -1.0)] {
                assert_eq!(
                    m.get(key).and_then(Node::as_f64),
                    Some(want),
                    "{size} {key}"
                );
                assert_eq!(m.get_entry(key).map(|(k, _)| k.name.as_str()), Some(key));
                assert!(m.contains_key(key));
                assert_eq!(m.get_mut(key).and_then(|n| n.as_f64()), Some(want));
            }
            assert!(m.get(&long[1..]).is_none() && !m.contains_key("k"));
            assert_eq!(m.remove(long).and_then(|n| n.as_f64()), Some(-1.0));
            assert_eq!(m.get(long).and_then(Node::as_f64), Some(-3.0));
        }
    }

    #[test]
    fn same_bytes_compares_every_byte() {
        let words = [
            "",
            "a",
            "b",
            "ab",
            "ba",
            "abc",
            "abd",
            "xbc",
            "abcd",
            "abce",
            "xbcd",
            "abcdefg",
            "abcdefh",
            "abxdefg",
            "abcdefgh",
            "abcdefgi",
            "xbcdefgh",
            "abcdefghijk",
            "abcdxfghijk",
            "abcdefghijklmnop",
            "abcdefghijklmnoq",
            "abcdefghxjklmnop",
            "abcdefghijklmnopq",
            "abcdefghijklmnopr",
            "é",
            "aé",
        ];
        for a in words {
            for b in words {
                assert_eq!(same_bytes(a.as_bytes(), b.as_bytes()), a == b, "{a} {b}");
            }
        }
        // Every single-byte difference at every length up to 40.
        for n in 0..=40usize {
            let a: Vec<u8> = (0..n as u8).collect();
            assert!(same_bytes(&a, &a.clone()));
            for i in 0..n {
                let mut b = a.clone();
                b[i] ^= 0x80;
                assert!(!same_bytes(&a, &b), "{n} {i}");
            }
        }
    }

    #[test]
    fn truthiness_follows_javascript() {
        assert!(!Value::String(String::new()).is_truthy());
        assert!(Value::String("false".into()).is_truthy());
        assert!(!Value::Number(0.0).is_truthy());
        assert!(!Value::Number(f64::NAN).is_truthy());
        assert!(Value::Seq(vec![]).is_truthy());
    }
}
