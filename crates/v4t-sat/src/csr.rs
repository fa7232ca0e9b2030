//! Lists by index in compressed rows: every list in one vector, and where
//! each starts (the adjacency of a graph, the clauses of a variable).

/// Lists by index (`start[i]..start[i + 1]` in `list`).
#[derive(Debug)]
pub(crate) struct Csr {
    start: Vec<u32>,
    list: Vec<u32>,
}

impl Csr {
    /// From (index, item) pairs over `n` indices, each list sorted and
    /// without repeats.
    pub(crate) fn new(n: usize, mut pairs: Vec<(u32, u32)>) -> Csr {
        pairs.sort_unstable();
        pairs.dedup();
        let mut start = vec![0u32; n + 1];
        for &(v, _) in &pairs {
            start[v as usize + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        Csr {
            start,
            list: pairs.into_iter().map(|(_, x)| x).collect(),
        }
    }

    /// The list of index `v`.
    pub(crate) fn of(&self, v: u32) -> &[u32] {
        &self.list[self.start[v as usize] as usize..self.start[v as usize + 1] as usize]
    }

    /// The number of lists.
    pub(crate) fn len(&self) -> usize {
        self.start.len() - 1
    }
}
