//! Many short strings one after another in one buffer ([`Texts`]): the
//! graph's element ids and an analysis's dead and core elements. A large
//! template has hundreds of thousands of elements, and a `String` each
//! cost an allocation and as much memory again as the text.

use std::fmt::{self, Write};

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

#[cfg(test)]
mod tests {
    use super::Texts;

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
