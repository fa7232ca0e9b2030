//! Many short strings one after another in one buffer ([`Texts`]): the
//! graph's element ids and an analysis's dead and core elements. A large
//! template has hundreds of thousands of elements, and a `String` each
//! cost an allocation and as much memory again as the text. And the names
//! a pass over a section has met so far ([`Seen`]).

use std::fmt::{self, Write};
use v4t_yaml::hash::SeededMap;

/// Strings in order, concatenated, with where each one ends.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Texts {
    text: String,
    /// Where each string ends in `text` (it starts where the previous one
    /// ends): four bytes, like the source offsets the strings come from
    /// ([`v4t_yaml::Span`]). Past 4 GiB of text, which no source a span
    /// can address comes near, the ends saturate and the strings read
    /// empty.
    ends: Vec<u32>,
}

impl Texts {
    /// Appends `s`.
    pub(crate) fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.end();
    }

    /// Appends `s` as its `Display` writes it.
    pub(crate) fn push_display(&mut self, s: impl fmt::Display) {
        // Writing into a `String` cannot fail.
        let _ = write!(self.text, "{s}");
        self.end();
    }

    fn end(&mut self) {
        self.ends
            .push(u32::try_from(self.text.len()).unwrap_or(u32::MAX));
    }

    /// The number of strings.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// String `i`, if there are that many.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        let start = i.checked_sub(1).map_or(0, |p| self.ends[p] as usize);
        self.text.get(start..end)
    }

    /// The strings in order.
    pub(crate) fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i).unwrap_or_default())
    }

    /// Makes room for `strings` more ends.
    pub(crate) fn reserve(&mut self, strings: usize) {
        self.ends.reserve(strings);
    }

    /// Gives back what the text reserved while growing, once every string
    /// is in.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
    }
}

/// Values by name, in the order the names were first met: scanned while
/// there are few (a node's handful of properties, where hashing costs more
/// than it saves), hashed from [`Seen::SCANNED`] on (a section of thousands
/// of inputs or outputs made a scan per name quadratic).
pub(crate) struct Seen<'a, T> {
    entries: Vec<(&'a str, T)>,
    /// Name to position in `entries`, once there are more than
    /// [`Seen::SCANNED`] (made then: even an empty map seeds its hasher).
    index: Option<SeededMap<&'a str, usize>>,
}

impl<'a, T> Seen<'a, T> {
    /// How many names are scanned before they are hashed.
    const SCANNED: usize = 16;

    pub(crate) fn new() -> Self {
        Seen {
            entries: Vec::new(),
            index: None,
        }
    }

    /// The value of `name`, if it was met.
    pub(crate) fn get_mut(&mut self, name: &str) -> Option<&mut T> {
        let at = match &self.index {
            None => self.entries.iter().position(|(n, _)| *n == name),
            Some(index) => index.get(name).copied(),
        };
        at.and_then(|i| self.entries.get_mut(i)).map(|(_, v)| v)
    }

    /// Meets `name` (not met before) with `value`.
    pub(crate) fn insert(&mut self, name: &'a str, value: T) {
        if self.entries.len() == Self::SCANNED {
            let index = self.entries.iter().enumerate().map(|(i, (n, _))| (*n, i));
            self.index = Some(index.collect());
        }
        if let Some(index) = &mut self.index {
            index.insert(name, self.entries.len());
        }
        self.entries.push((name, value));
    }

    /// The values, in the order their names were first met.
    pub(crate) fn into_values(self) -> Vec<T> {
        self.entries.into_iter().map(|(_, v)| v).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::{Seen, Texts};

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
        assert!(seen.get_mut("n40").is_none());
    }

    #[test]
    fn strings_read_back_in_order() {
        let mut t = Texts::default();
        t.push("node.a");
        t.push("");
        t.push_display(format_args!("relation.{}@{}", "host", 0));
        assert_eq!(t.len(), 3);
        assert_eq!(t.get(0), Some("node.a"));
        assert_eq!(t.get(1), Some(""));
        assert_eq!(t.get(2), Some("relation.host@0"));
        assert_eq!(t.get(3), None);
        assert_eq!(
            t.iter().collect::<Vec<_>>(),
            ["node.a", "", "relation.host@0"]
        );
    }
}
