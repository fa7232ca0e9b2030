//! A branching order for the counter ([`crate::Solver::count`]) from an
//! elimination order of the clauses' primal graph (variables adjacent when
//! they share a clause).
//!
//! Counting with component caching that decides variables in the reverse of
//! an elimination order of width `w` visits at most about `2^w` parts per
//! variable: the variables eliminated last separate the graph, so deciding
//! them first splits the clauses into parts that the cache then meets
//! again. Branching on the variable in the most open clauses (the plain
//! heuristic) ignores that structure; on a random product line with 180
//! inputs it runs out of budget where the reverse elimination order counts
//! exactly. The order is greedy: variables outside the projection first
//! (the counter never decides them), then the variable whose elimination
//! adds the fewest edges among its neighbours (minimum fill, up to 1,024
//! variables), then the fewest neighbours (minimum degree). Minimum fill
//! makes every family-5 size up to 221 inputs exact, minimum degree alone
//! every size up to 208.

use crate::Lit;

/// Above this many variables no order is computed (the plain heuristic
/// stays): the adjacency matrix grows with the square.
pub(crate) const ORDER_LIMIT: usize = 2048;

/// Up to this many variables the order minimises the edges each
/// elimination adds (minimum fill), beyond it only the degree.
const FILL_LIMIT: usize = 1024;

/// The members of a row of the adjacency matrix.
fn members_of(row: &[u64]) -> impl Iterator<Item = usize> + '_ {
    row.iter().enumerate().flat_map(|(w, &bits)| {
        let mut bits = bits;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let u = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                u
            })
        })
    })
}

/// How many pairs of neighbours of `i` are not adjacent: the edges
/// eliminating `i` adds.
fn missing_edges(adjacent: &[u64], words: usize, i: usize) -> u32 {
    let row_i = &adjacent[i * words..(i + 1) * words];
    let twice: u32 = members_of(row_i)
        .map(|u| {
            let row_u = &adjacent[u * words..(u + 1) * words];
            let apart: u32 = (row_i.iter().zip(row_u))
                .map(|(a, b)| (a & !b).count_ones())
                .sum();
            apart - 1
        })
        .sum();
    twice / 2
}

/// Per variable (of `projected`'s length), its position in the greedy
/// elimination order of the variables of the clauses
/// (`lits[start[c]..start[c + 1]]`; the counter's hold only variables
/// unassigned at its root): those outside the projection first, see the
/// module documentation. Higher ranks are eliminated later and so should
/// be decided earlier. Variables in no clause rank 0. `None` above
/// [`ORDER_LIMIT`] variables.
pub(crate) fn elimination_ranks(
    lits: &[Lit],
    start: &[u32],
    projected: &[bool],
) -> Option<Vec<u32>> {
    let n = projected.len();
    let mut local = vec![u32::MAX; n];
    let mut vars: Vec<u32> = Vec::new();
    for l in lits {
        let v = l.var_index() as usize;
        if local[v] == u32::MAX {
            local[v] = vars.len() as u32;
            vars.push(v as u32);
            if vars.len() > ORDER_LIMIT {
                return None;
            }
        }
    }
    let m = vars.len();
    let words = m.div_ceil(64);
    let mut adjacent = vec![0u64; m * words];
    let mut members = Vec::new();
    for c in start.windows(2) {
        members.clear();
        members.extend(
            lits[c[0] as usize..c[1] as usize]
                .iter()
                .map(|l| local[l.var_index() as usize])
                .filter(|&i| i != u32::MAX),
        );
        for &a in &members {
            for &b in &members {
                if a != b {
                    adjacent[a as usize * words + b as usize / 64] |= 1 << (b % 64);
                }
            }
        }
    }
    let row = |adjacent: &[u64], i: usize| -> u32 {
        adjacent[i * words..(i + 1) * words]
            .iter()
            .map(|w| w.count_ones())
            .sum()
    };
    let mut degree: Vec<u32> = (0..m).map(|i| row(&adjacent, i)).collect();
    let by_fill = m <= FILL_LIMIT;
    let mut fill = vec![0u32; m];
    let mut stale = vec![by_fill; m];
    let mut gone = vec![false; m];
    let mut ranks = vec![0u32; n];
    let mut neighbours = vec![0u64; words];
    for step in 0..m {
        for i in 0..m {
            if stale[i] && !gone[i] {
                fill[i] = missing_edges(&adjacent, words, i);
                stale[i] = false;
            }
        }
        // Outside the projection first, then the fewest edges added (up to
        // FILL_LIMIT variables), the fewest neighbours, variable order.
        let Some(v) = (0..m)
            .filter(|&i| !gone[i])
            .min_by_key(|&i| (projected[vars[i] as usize], fill[i], degree[i], i))
        else {
            break;
        };
        gone[v] = true;
        ranks[vars[v] as usize] = step as u32 + 1;
        neighbours.copy_from_slice(&adjacent[v * words..(v + 1) * words]);
        for u in members_of(&neighbours) {
            let r = &mut adjacent[u * words..(u + 1) * words];
            for (x, &y) in r.iter_mut().zip(&neighbours) {
                *x |= y;
            }
            r[u / 64] &= !(1 << (u % 64));
            r[v / 64] &= !(1 << (v % 64));
            degree[u] = row(&adjacent, u);
        }
        if by_fill {
            // New edges among the neighbours change the fill of every
            // variable next to one of them.
            for u in members_of(&neighbours) {
                stale[u] = true;
                for w in members_of(&adjacent[u * words..(u + 1) * words]) {
                    stale[w] = true;
                }
            }
        }
    }
    Some(ranks)
}

#[cfg(test)]
mod tests {
    use super::{elimination_ranks, ORDER_LIMIT};
    use crate::Lit;

    /// Clauses over variables by index, in the counter's flat store.
    fn store(clauses: &[&[u32]]) -> (Vec<Lit>, Vec<u32>) {
        let mut lits = Vec::new();
        let mut start = vec![0];
        for c in clauses {
            lits.extend(c.iter().map(|&v| Lit::from_var(v)));
            start.push(lits.len() as u32);
        }
        (lits, start)
    }

    #[test]
    fn a_path_is_eliminated_from_its_ends() {
        // 1 - 2 - 3 - 4 - 5; variables 0 and 6 are in no clause.
        let (lits, start) = store(&[&[1, 2], &[2, 3], &[3, 4], &[4, 5]]);
        let ranks = elimination_ranks(&lits, &start, &[true; 7]).unwrap();
        assert_eq!((ranks[0], ranks[6]), (0, 0), "{ranks:?}");
        let mut order: Vec<u32> = ranks[1..6].to_vec();
        order.sort_unstable();
        assert_eq!(order, [1, 2, 3, 4, 5], "{ranks:?}");
        // Minimum degree takes an end first (ties in variable order), and
        // what it leaves is again a path.
        assert_eq!(ranks[1], 1, "{ranks:?}");
        assert_eq!(ranks[2], 2, "{ranks:?}");
    }

    #[test]
    fn a_hub_is_decided_before_most_leaves() {
        // A star: variable 0 in a clause with each of 1..=6, which also
        // pair up (1 2), (3 4), (5 6); deciding 0 splits the rest.
        let (lits, start) = store(&[
            &[0, 1],
            &[0, 2],
            &[0, 3],
            &[0, 4],
            &[0, 5],
            &[0, 6],
            &[1, 2],
            &[3, 4],
            &[5, 6],
        ]);
        let ranks = elimination_ranks(&lits, &start, &[true; 7]).unwrap();
        // The pairs go first; once the hub has no more neighbours than the
        // last pair, ties fall in variable order.
        let later = ranks[1..].iter().filter(|&&r| r > ranks[0]).count();
        assert!(later <= 2, "{ranks:?}");
    }

    #[test]
    fn fewest_added_edges_before_fewest_neighbours() {
        // A 4-cycle 0-1-2-3 (degree 2, eliminating one adds an edge) and a
        // clique 4-5-6-7 (degree 3, adds none): the clique goes first.
        let (lits, start) = store(&[&[0, 1], &[1, 2], &[2, 3], &[3, 0], &[4, 5, 6, 7]]);
        let ranks = elimination_ranks(&lits, &start, &[true; 8]).unwrap();
        assert_eq!(ranks[4], 1, "{ranks:?}");
    }

    #[test]
    fn variables_outside_the_projection_go_first() {
        // 0 is hidden and in the most clauses; every projected variable
        // still ranks above it.
        let (lits, start) = store(&[&[0, 1], &[0, 2], &[0, 3], &[1, 2, 3]]);
        let projected = [false, true, true, true];
        let ranks = elimination_ranks(&lits, &start, &projected).unwrap();
        assert_eq!(ranks[0], 1, "{ranks:?}");
        assert!(ranks[1..].iter().all(|&r| r > 1), "{ranks:?}");
    }

    #[test]
    fn large_problems_keep_the_plain_heuristic() {
        let pairs: Vec<[u32; 2]> = (0..=ORDER_LIMIT as u32).map(|v| [v, v + 1]).collect();
        let clauses: Vec<&[u32]> = pairs.iter().map(|p| &p[..]).collect();
        let (lits, start) = store(&clauses);
        let n = ORDER_LIMIT + 2;
        assert!(elimination_ranks(&lits, &start, &vec![true; n]).is_none());
        let (lits, start) = store(&clauses[..ORDER_LIMIT - 1]);
        assert!(elimination_ranks(&lits, &start, &vec![true; n]).is_some());
    }
}
