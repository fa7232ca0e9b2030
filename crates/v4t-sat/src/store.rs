//! The clause store: every clause a solver was given, as written, in one
//! flat buffer (read by splitting, propagation, counting and exporting).

use crate::Lit;

/// Clauses in order: their literals concatenated and where each one ends.
///
/// The ends are `u32` offsets: on a large resolve the store is at the peak
/// of memory, and most clauses have two or three literals, so `usize` ends
/// would take as much room as the literals. A store therefore holds at most
/// `u32::MAX` literals (16 GiB of them).
#[derive(Clone, Debug, Default)]
pub(crate) struct Clauses {
    lits: Vec<Lit>,
    ends: Vec<u32>,
}

impl Clauses {
    /// Appends a clause.
    ///
    /// # Panics
    ///
    /// Beyond `u32::MAX` literals in all, like a vector past its capacity.
    pub(crate) fn push(&mut self, clause: &[Lit]) {
        self.lits.extend_from_slice(clause);
        let end =
            u32::try_from(self.lits.len()).expect("a clause store holds at most 4 Gi literals");
        self.ends.push(end);
    }

    /// The number of clauses.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Clause `c` (`c < len()`).
    pub(crate) fn get(&self, c: usize) -> &[Lit] {
        let start = if c == 0 { 0 } else { self.ends[c - 1] as usize };
        &self.lits[start..self.ends[c] as usize]
    }

    /// Every clause, in order.
    pub(crate) fn iter(&self) -> impl ExactSizeIterator<Item = &[Lit]> + '_ {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let clause = &self.lits[start..end as usize];
            start = end as usize;
            clause
        })
    }

    /// Makes room for `clauses` more clauses of `lits` literals in all,
    /// exactly.
    pub(crate) fn reserve_exact(&mut self, lits: usize, clauses: usize) {
        self.lits.reserve_exact(lits);
        self.ends.reserve_exact(clauses);
    }

    /// The literals of every clause, concatenated.
    pub(crate) fn lits(&self) -> &[Lit] {
        &self.lits
    }

    /// Whether no room is reserved beyond the clauses (but for a vector's
    /// first allocation of four entries).
    #[cfg(test)]
    pub(crate) fn reserved_exactly(&self) -> bool {
        self.lits.capacity() <= self.lits.len().max(4)
            && self.ends.capacity() <= self.ends.len().max(4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clauses_read_back_in_order_by_position_and_by_iteration() {
        let (a, b, c) = (Lit(2), Lit(5), Lit(7));
        let mut s = Clauses::default();
        s.push(&[a, b]);
        s.push(&[]);
        s.push(&[c, a, b]);
        assert_eq!(s.len(), 3);
        assert_eq!(s.get(0), &[a, b]);
        assert_eq!(s.get(1), &[] as &[Lit]);
        assert_eq!(s.get(2), &[c, a, b]);
        let all: Vec<&[Lit]> = s.iter().collect();
        assert_eq!(all, vec![&[a, b][..], &[], &[c, a, b]]);
    }
}
