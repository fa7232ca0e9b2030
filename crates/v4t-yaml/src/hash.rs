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

#[cfg(test)]
mod tests {
    use super::*;

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
