//! A list of element ids in one string ([`ElementIds`]): the dead and core
//! elements of an analysis. On a template without variability every
//! element is core; a million ids as `String`s cost a million allocations
//! and as much memory again as their text, at the analysis's peak.

use std::fmt::{self, Write};

/// Element ids in order, one after another in one string.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ElementIds {
    text: String,
    /// Where each id ends in `text` (it starts where the previous one ends).
    ends: Vec<usize>,
}

impl ElementIds {
    /// Appends an id, written by its `Display`.
    pub(crate) fn push(&mut self, id: impl fmt::Display) {
        // Writing into a `String` cannot fail.
        let _ = write!(self.text, "{id}");
        self.ends.push(self.text.len());
    }

    /// The number of ids.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The `i`th id.
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)?;
        let start = i.checked_sub(1).map_or(0, |p| self.ends[p]);
        self.text.get(start..end)
    }

    /// The ids in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i).unwrap_or_default())
    }

    /// Whether `id` is among them.
    pub fn contains(&self, id: &str) -> bool {
        self.iter().any(|x| x == id)
    }
}

impl fmt::Debug for ElementIds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a ElementIds {
    type Item = &'a str;
    type IntoIter = Box<dyn ExactSizeIterator<Item = &'a str> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl<S: AsRef<str>> FromIterator<S> for ElementIds {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> ElementIds {
        let mut ids = ElementIds::default();
        for id in iter {
            ids.push(id.as_ref());
        }
        ids
    }
}

#[cfg(test)]
mod tests {
    use super::ElementIds;

    #[test]
    fn ids_read_back_in_order() {
        let ids: ElementIds = ["node.a", "", "relation.host@0.node.a"]
            .into_iter()
            .collect();
        assert_eq!(ids.len(), 3);
        assert_eq!(ids.get(0), Some("node.a"));
        assert_eq!(ids.get(1), Some(""));
        assert_eq!(ids.get(2), Some("relation.host@0.node.a"));
        assert_eq!(ids.get(3), None);
        assert_eq!(
            ids.iter().collect::<Vec<_>>(),
            ["node.a", "", "relation.host@0.node.a"]
        );
        assert!(ids.contains("node.a") && !ids.contains("node"));
        assert_eq!(
            format!("{ids:?}"),
            r#"["node.a", "", "relation.host@0.node.a"]"#
        );
    }
}
