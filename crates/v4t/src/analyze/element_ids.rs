//! A list of element ids in one string ([`ElementIds`], over
//! [`crate::texts::Texts`]): the dead and core elements of an analysis. On
//! a template without variability every element is core, and a million ids
//! as `String`s cost a million allocations at the analysis's peak.

use crate::texts::Texts;
use std::fmt;

/// Element ids in order, one after another in one string.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ElementIds(Texts);

impl ElementIds {
    /// Appends an id, written by its `Display`.
    pub(crate) fn push(&mut self, id: impl fmt::Display) {
        self.0.push_display(id);
    }

    /// The number of ids.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.len() == 0
    }

    /// The `i`th id.
    pub fn get(&self, i: usize) -> Option<&str> {
        self.0.get(i)
    }

    /// The ids in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.0.iter()
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
