//! The one hashing policy of v4t: every hash table whose keys a template can
//! choose (names, ids, map keys, text) hashes with foldhash's fast hash,
//! seeded once per process from the operating system's randomness, so that
//! no template can be written to make its names collide (hash flooding
//! turns table lookups quadratic). foldhash (a small, maintained crate
//! without dependencies) rather than std's SipHash: lookups by name are on
//! the hot paths, and foldhash takes a fraction of SipHash's time on short
//! keys. Tables keyed only by the program's own integers (SAT literals in
//! `v4t-sat`) may use a cheaper unseeded hash; nothing else may.
//!
//! Hash tables are only used for lookups, never iterated to produce output,
//! so the per-process seed does not make output depend on the run.

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;
use std::sync::OnceLock;

use foldhash::fast::{FoldHasher, SeedableRandomState};
use foldhash::SharedSeed;

/// The process-wide seeded hash state (seeds drawn from std's `RandomState`,
/// that is from the operating system, on first use).
fn state() -> &'static SeedableRandomState {
    static SHARED: OnceLock<SharedSeed> = OnceLock::new();
    static STATE: OnceLock<SeedableRandomState> = OnceLock::new();
    STATE.get_or_init(|| {
        let os = RandomState::new();
        let shared = SHARED.get_or_init(|| SharedSeed::from_u64(os.hash_one(0u8)));
        SeedableRandomState::with_seed(os.hash_one(1u8), shared)
    })
}

/// [`BuildHasher`] of the seeded hash; zero-sized, so a table is no larger
/// than with an unseeded hash.
#[derive(Clone, Copy, Debug, Default)]
pub struct Seeded;

impl BuildHasher for Seeded {
    type Hasher = FoldHasher<'static>;

    #[inline]
    fn build_hasher(&self) -> FoldHasher<'static> {
        state().build_hasher()
    }
}

/// A `HashMap` with the seeded hash.
pub type SeededMap<K, V> = HashMap<K, V, Seeded>;

/// A `HashSet` with the seeded hash.
pub type SeededSet<K> = HashSet<K, Seeded>;

/// The seeded hash of a string's bytes (without `str::hash`'s terminator:
/// one string per hash needs none).
#[inline]
pub fn hash_str(s: &str) -> u64 {
    use std::hash::Hasher;
    let mut hasher = Seeded.build_hasher();
    hasher.write(s.as_bytes());
    hasher.finish()
}

/// Values by name, in the order the names were first met: scanned while
/// there are few (a node's handful of properties, where hashing costs more
/// than it saves), hashed beyond 16 (a section of thousands of inputs or
/// outputs made a scan per name quadratic).
pub struct Seen<'a, T> {
    entries: Vec<(&'a str, T)>,
    /// Name to position in `entries`, once there are more than [`SCANNED`]
    /// (made then: even an empty map seeds its hasher).
    index: Option<SeededMap<&'a str, usize>>,
}

/// How many names [`Seen`] and [`ByName`] scan before they hash them (a
/// few names are found faster by a scan than by hashing).
pub const SCANNED: usize = 16;

/// Where `name` is among `entries`: by a scan, or through `index` if
/// there is one.
fn position<T>(
    entries: &[(&str, T)],
    index: Option<&SeededMap<&str, usize>>,
    name: &str,
) -> Option<usize> {
    match index {
        None => entries.iter().position(|(n, _)| *n == name),
        Some(index) => index.get(name).copied(),
    }
}

impl<'a, T> Seen<'a, T> {
    /// No name met yet.
    pub fn new() -> Self {
        Seen {
            entries: Vec::new(),
            index: None,
        }
    }

    /// The value of `name`, if it was met.
    pub fn get(&self, name: &str) -> Option<&T> {
        position(&self.entries, self.index.as_ref(), name).map(|i| &self.entries[i].1)
    }

    /// The value of `name`, if it was met, to change.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut T> {
        position(&self.entries, self.index.as_ref(), name).map(|i| &mut self.entries[i].1)
    }

    /// Meets `name` (not met before) with `value`.
    pub fn insert(&mut self, name: &'a str, value: T) {
        if self.entries.len() == SCANNED {
            let index = self.entries.iter().enumerate().map(|(i, (n, _))| (*n, i));
            self.index = Some(index.collect());
        }
        if let Some(index) = &mut self.index {
            index.insert(name, self.entries.len());
        }
        self.entries.push((name, value));
    }

    /// The names and their values, in the order the names were first met.
    pub fn into_entries(self) -> Vec<(&'a str, T)> {
        self.entries
    }

    /// The values, in the order their names were first met.
    pub fn into_values(self) -> Vec<T> {
        self.entries.into_iter().map(|(_, v)| v).collect()
    }
}

/// Finds the entries of a list of named entries by name, the first of a
/// name: by a scan while there are few, through an index built once beyond
/// 16 (a validator looking up each key of a map of thousands
/// of properties in the definitions made that quadratic).
pub struct ByName<'s, 'a, T> {
    entries: &'s [(&'a str, T)],
    index: Option<SeededMap<&'a str, usize>>,
}

impl<'s, 'a, T> ByName<'s, 'a, T> {
    /// An index of `entries` (built only if there are many).
    pub fn new(entries: &'s [(&'a str, T)]) -> Self {
        let index = (entries.len() > SCANNED).then(|| {
            let mut index = SeededMap::default();
            for (i, (name, _)) in entries.iter().enumerate() {
                index.entry(*name).or_insert(i);
            }
            index
        });
        ByName { entries, index }
    }

    /// The value of the first entry named `name`.
    pub fn get(&self, name: &str) -> Option<&'s T> {
        position(self.entries, self.index.as_ref(), name).map(|i| &self.entries[i].1)
    }
}

impl<'a, T> Seen<'a, Vec<T>> {
    /// Adds `item` to the group of `name`: groups by name, in the order the
    /// names were first met.
    pub fn push(&mut self, name: &'a str, item: T) {
        match self.get_mut(name) {
            Some(group) => group.push(item),
            None => self.insert(name, vec![item]),
        }
    }
}

impl<T> Default for Seen<'_, T> {
    fn default() -> Self {
        Seen::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names are found before and after they are hashed, each at its first
    /// value.
    #[test]
    fn seen_names_are_found_scanned_and_hashed() {
        let names: Vec<String> = (0..40).map(|i| format!("n{i}")).collect();
        let mut seen = Seen::new();
        for (i, n) in names.iter().enumerate() {
            assert!(seen.get_mut(n).is_none(), "{n} met too early");
            seen.insert(n, i);
            for (j, m) in names.iter().enumerate().take(i + 1) {
                assert_eq!(seen.get_mut(m).copied(), Some(j), "{m} after {n}");
            }
        }
        if let Some(v) = seen.get_mut("n3") {
            *v = 99;
        }
        assert_eq!(seen.get_mut("n3").copied(), Some(99));
        assert_eq!(seen.get("n3").copied(), Some(99));
        assert_eq!(seen.get("n39").copied(), Some(39));
        assert!(seen.get_mut("n40").is_none());
        assert!(seen.get("n40").is_none());
        let entries = seen.into_entries();
        assert_eq!(entries.len(), 40);
        assert_eq!(entries[3], ("n3", 99));
        assert_eq!(entries[39], ("n39", 39));
    }

    /// Entries are found by name, the first of a name, with and without
    /// the index; names not among them are not.
    #[test]
    fn entries_are_found_by_name_scanned_and_indexed() {
        for len in [0, 3, 16, 17, 60] {
            let names: Vec<String> = (0..len).map(|i| format!("n{}", i % 20)).collect();
            let entries: Vec<(&str, usize)> = names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.as_str(), i))
                .collect();
            let by_name = ByName::new(&entries);
            assert_eq!(by_name.index.is_some(), len > 16, "{len}");
            for (i, n) in names.iter().enumerate() {
                let first = names.iter().position(|m| m == n);
                assert_eq!(by_name.get(n).copied(), first, "{n} of {len}");
                assert!(first <= Some(i));
            }
            assert_eq!(by_name.get("n20"), None);
            assert_eq!(by_name.get(""), None);
        }
    }

    #[test]
    fn hashes_are_stable_within_a_process_and_tell_strings_apart() {
        assert_eq!(hash_str("node.web"), hash_str("node.web"));
        assert_ne!(hash_str("node.web"), hash_str("node.db"));
        let mut m: SeededMap<String, u32> = SeededMap::default();
        m.insert("a".into(), 1);
        assert_eq!(m.get("a"), Some(&1));
        assert_eq!(std::mem::size_of::<Seeded>(), 0);
    }
}
