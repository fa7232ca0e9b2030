//! Literals equal in every model because binary clauses imply each from the
//! other: the strongly connected components of the binary implication
//! graph under the level-0 facts.
//!
//! [`crate::Split::can_differ_each`] asks, for each input, whether changing
//! it alone can change a part's outputs: a search of the part's two copies
//! each, as long as the part. An input every variable of which equals
//! another input's (a ring of constraints `a implies b`, ..., `z implies
//! a`; a mandatory feature and its parent) cannot change alone, which these
//! classes show for every input in one linear pass.

use crate::csr::Csr;
use crate::store::Clauses;
use crate::Lit;

/// The class of every literal (by its code): two literals in one class are
/// equal in every model of the clauses, and the class of `!l` is the
/// mirror of the class of `l`.
pub(crate) struct Equivalences {
    class: Vec<u32>,
}

impl Equivalences {
    /// The classes of the clauses in `store` whose literals not false in
    /// `facts` (per variable: 0 unknown, 1 true, -1 false) are two and none
    /// true. `facts` must be closed under unit propagation (a level-0
    /// fixpoint); literals of fixed variables are each a class of their own.
    pub(crate) fn new(store: &Clauses, facts: &[i8]) -> Equivalences {
        // Variables past `facts` (none where the facts are the store's
        // level-0 values) are unknown.
        let vars = (store.lits().iter())
            .map(|l| l.var_index() as usize + 1)
            .fold(facts.len(), usize::max);
        let nodes = 2 * vars;
        let value = |l: Lit| {
            let v = facts.get(l.var_index() as usize).copied().unwrap_or(0);
            if l.is_negated() {
                -v
            } else {
                v
            }
        };
        // The implication graph in compressed rows: `!a -> b` and `!b -> a`
        // for each binary clause `a | b`.
        let mut edges: Vec<(u32, u32)> = Vec::new();
        let mut open = Vec::with_capacity(2);
        'clauses: for clause in store.iter() {
            open.clear();
            for &l in clause {
                match value(l) {
                    1 => continue 'clauses,
                    -1 => {}
                    _ if open.contains(&l) => {}
                    _ if open.len() == 2 => continue 'clauses,
                    _ => open.push(l),
                }
            }
            if let [a, b] = open[..] {
                edges.push(((!a).0, b.0));
                edges.push(((!b).0, a.0));
            }
        }
        Equivalences {
            class: components(&Csr::new(nodes, edges)),
        }
    }

    /// The class of `l` (a number shared by the literals of the class).
    pub(crate) fn class_of(&self, l: Lit) -> u32 {
        self.class
            .get(l.0 as usize)
            .copied()
            .unwrap_or(u32::MAX - l.0)
    }
}

/// The strongly connected component of every node of the graph whose
/// edges from node `i` go to `edges.of(i)` (Tarjan's algorithm, with an
/// explicit stack: a ring of a million constraints is a path that deep).
fn components(edges: &Csr) -> Vec<u32> {
    const UNSEEN: u32 = u32::MAX;
    let nodes = edges.len();
    let mut index = vec![UNSEEN; nodes];
    let mut low = vec![0u32; nodes];
    let mut on_stack = vec![false; nodes];
    let mut class = vec![UNSEEN; nodes];
    let mut stack: Vec<u32> = Vec::new();
    // The depth-first path: a node and the position of its next edge
    // in its list.
    let mut path: Vec<(u32, u32)> = Vec::new();
    let mut counter = 0u32;
    let mut classes = 0u32;
    for root in 0..nodes as u32 {
        let mut entering = (index[root as usize] == UNSEEN).then_some(root);
        loop {
            if let Some(n) = entering.take() {
                index[n as usize] = counter;
                low[n as usize] = counter;
                counter += 1;
                stack.push(n);
                on_stack[n as usize] = true;
                path.push((n, 0));
            }
            let Some(top) = path.last_mut() else { break };
            let n = top.0;
            if let Some(&m) = edges.of(n).get(top.1 as usize) {
                top.1 += 1;
                if index[m as usize] == UNSEEN {
                    entering = Some(m);
                } else if on_stack[m as usize] {
                    low[n as usize] = low[n as usize].min(index[m as usize]);
                }
                continue;
            }
            path.pop();
            if let Some(&(parent, _)) = path.last() {
                low[parent as usize] = low[parent as usize].min(low[n as usize]);
            }
            if low[n as usize] == index[n as usize] {
                while let Some(m) = stack.pop() {
                    on_stack[m as usize] = false;
                    class[m as usize] = classes;
                    if m == n {
                        break;
                    }
                }
                classes += 1;
            }
        }
    }
    class
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{eval_lit, exercised, models, random_cnf, random_lit, Rng};
    use crate::Solver;

    impl Equivalences {
        /// Whether `a` and `b` are in one class (equal in every model).
        fn same(&self, a: Lit, b: Lit) -> bool {
            self.class_of(a) == self.class_of(b)
        }
    }

    /// Two literals are in one class exactly when the binary clauses
    /// imply each from the other; in particular they are then equal in
    /// every model, and a literal and its negation never share a class in
    /// a satisfiable instance.
    #[test]
    fn classes_are_the_mutual_implications_of_binary_clauses() {
        let mut rng = Rng::new(5);
        let mut shared = 0;
        for round in 0..400 {
            // Clauses of one to three literals, and binary ones that
            // close cycles of implications.
            let mut s = Solver::new();
            let n = 1 + rng.below(10) as usize;
            let vars: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
            let k = rng.below(n as u64) as usize;
            let mut cnf = random_cnf(&mut rng, &vars, k);
            for _ in 0..rng.below(2 * n as u64 + 1) {
                cnf.push(vec![
                    random_lit(&mut rng, &vars),
                    random_lit(&mut rng, &vars),
                ]);
            }
            for c in &cnf {
                s.add_clause(c);
            }
            let Some(facts) = s.level0() else { continue };
            let eq = Equivalences::new(&s.clauses, &facts);
            let ms = models(&vars, &cnf);
            let lits: Vec<Lit> = vars.iter().flat_map(|&v| [v, !v]).collect();
            for &a in &lits {
                for &b in &lits {
                    let fixed = |l: Lit| facts[l.var_index() as usize] != 0;
                    if a == b || fixed(a) || fixed(b) {
                        continue;
                    }
                    let same = eq.same(a, b);
                    assert_eq!(same, eq.same(!a, !b), "round {round}: mirror");
                    assert_eq!(same, implies(&s, &facts, a, b) && implies(&s, &facts, b, a));
                    if same {
                        shared += 1;
                        let equal = |m: &Vec<bool>| eval_lit(a, &vars, m) == eval_lit(b, &vars, m);
                        assert!(ms.iter().all(equal), "round {round}: {a:?} {b:?} {cnf:?}");
                    }
                }
            }
        }
        exercised!(shared > 200, "too few equal pairs: {shared}");
    }

    /// Whether a path of binary clauses (under `facts`) leads from `a` to `b`.
    fn implies(s: &Solver, facts: &[i8], a: Lit, b: Lit) -> bool {
        let value = |l: Lit| match facts[l.var_index() as usize] {
            0 => 0,
            v if l.is_negated() => -v,
            v => v,
        };
        let binary: Vec<(Lit, Lit)> = (s.clauses.iter())
            .filter(|c| !c.iter().any(|&l| value(l) == 1))
            .filter_map(|c| {
                let mut open: Vec<Lit> = c.iter().copied().filter(|&l| value(l) == 0).collect();
                open.dedup();
                open.sort_unstable_by_key(|l| l.0);
                open.dedup();
                match open[..] {
                    [x, y] => Some((x, y)),
                    _ => None,
                }
            })
            .collect();
        let mut seen = vec![a];
        let mut i = 0;
        while let Some(&l) = seen.get(i) {
            i += 1;
            for &(x, y) in &binary {
                for (from, to) in [(!x, y), (!y, x)] {
                    if from == l && !seen.contains(&to) {
                        seen.push(to);
                    }
                }
            }
        }
        seen.contains(&b)
    }

    #[test]
    fn a_long_ring_is_one_class_without_deep_recursion() {
        let mut s = Solver::new();
        let n = 200_000;
        let xs: Vec<Lit> = (0..n).map(|_| s.new_var()).collect();
        for i in 0..n {
            s.add_clause(&[!xs[i], xs[(i + 1) % n]]);
        }
        let facts = s.level0().expect("satisfiable");
        let eq = Equivalences::new(&s.clauses, &facts);
        assert!(xs.iter().all(|&x| eq.same(x, xs[0])));
        assert!(!eq.same(xs[0], !xs[1]));
    }
}
