//! A layered (Sugiyama-style) layout of boxes and labelled arrows, for
//! `v4t graph --format svg`; near-linear in the size of the drawing
//! (`O(S log S)` for `S` boxes and edge bends), so a 20,000-box template
//! draws in about a second.
//!
//! The steps, each a bounded number of passes over the drawing:
//!
//! 1. **Orientation**: a depth-first search in box order turns the arrows
//!    that close a cycle around (they are drawn with their head at the
//!    other end).
//! 2. **Layering**: longest path from the boxes nothing points at, then
//!    those boxes moved down next to what they point at (a policy sits
//!    right above its target). Boxes take the even layers; every arrow
//!    passes through the odd layer below its tail, where its label is a
//!    slot of its own, so labels take room like boxes and sit beside their
//!    arrow. A longer arrow has a bend slot in every layer it crosses.
//! 3. **Ordering**: depth-first initial order, then at most
//!    [`ORDER_PASSES`] barycenter sweeps (down, up, ...), keeping the
//!    order with the fewest crossings (counted with a Fenwick tree).
//!    Alternatives (arrows of one requirement to two boxes) land side by
//!    side because their targets share their only neighbour.
//! 4. **Coordinates**: each layer is placed at the weighted mean of its
//!    neighbours' positions subject to its order and minimum gaps, which
//!    is an isotonic regression solved exactly by pool-adjacent-violators
//!    in linear time; [`COORDINATE_PASSES`] sweeps each way. Bends weigh
//!    more than boxes, which keeps long arrows straight.
//! 5. **Routing**: an arrow leaves its tail's box vertically at a port
//!    (ports are spread along the box side in the order of their next
//!    slots), crosses each layer vertically at its slot and changes
//!    column only in the gaps between layers, where no box is: so no
//!    segment crosses a box other than its ends. Arrows from a box to
//!    itself are loops on its right, with room reserved there.
//!
//! Everything is decided by the input order and `f64` arithmetic: the
//! same input gives the same coordinates.

use std::collections::{HashMap, VecDeque};

/// Width and height.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Size {
    pub(super) width: f64,
    pub(super) height: f64,
}

/// An arrow between two boxes (indices), with the size of its label.
#[derive(Clone, Copy, Debug)]
pub(super) struct Edge {
    pub(super) from: usize,
    pub(super) to: usize,
    pub(super) label: Size,
    /// Arrows with the same key are alternatives: their heads (and their
    /// labels) are kept side by side in their layers.
    pub(super) together: Option<usize>,
}

/// A point of the drawing (y grows downwards).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Point {
    pub(super) x: f64,
    pub(super) y: f64,
}

/// An axis-parallel rectangle: top-left corner and size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Rect {
    pub(super) x: f64,
    pub(super) y: f64,
    pub(super) width: f64,
    pub(super) height: f64,
}

/// The way of one arrow: a polyline from its tail to its head, and where
/// its label goes.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Route {
    pub(super) points: Vec<Point>,
    pub(super) label: Rect,
}

/// The laid-out drawing: boxes and routes in input order, and the size of
/// the canvas (everything lies within it).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Placed {
    pub(super) boxes: Vec<Rect>,
    pub(super) routes: Vec<Route>,
    pub(super) size: Size,
}

/// A drawing with more slots (boxes and bends) than [`MAX_SLOTS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TooLarge {
    pub(super) boxes: usize,
    pub(super) bends: usize,
}

/// The most slots laid out (memory and time stay in seconds and hundreds
/// of megabytes below this; the drawing itself would be unreadable long
/// before).
pub(super) const MAX_SLOTS: usize = 2_000_000;
/// Barycenter sweeps at most.
pub(super) const ORDER_PASSES: usize = 8;
/// Rounds of neighbour swaps after each sweep at most.
pub(super) const TRANSPOSE_ROUNDS: usize = 4;
/// Coordinate sweeps each way.
pub(super) const COORDINATE_PASSES: usize = 4;

/// Horizontal gap between two boxes.
const BOX_GAP: f64 = 24.0;
/// Horizontal gap next to a bend or label.
const BEND_GAP: f64 = 12.0;
/// Vertical gap between layers, at least and at most.
const LAYER_GAP: f64 = 36.0;
const MAX_LAYER_GAP: f64 = 160.0;
/// Horizontal run per unit of gap height of the widest arrow in a gap.
const GAP_SLOPE: f64 = 5.0;
/// Straight piece of an arrow next to its boxes (keeps heads upright).
const STUB: f64 = 8.0;
/// Space between an arrow and its label.
const LABEL_PAD: f64 = 4.0;
/// Space around the drawing.
const MARGIN: f64 = 8.0;
/// Distance between nested loops of a box.
const LOOP_STEP: f64 = 10.0;

/// What a slot of a layer holds.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Slot {
    Box(usize),
    /// The label of an edge (its arrow passes at the slot's left side).
    Label(usize),
    Bend,
}

/// The layered graph: slots with their extents, layers, and the arcs
/// between adjacent layers.
struct Layered {
    slots: Vec<Slot>,
    layer: Vec<usize>,
    /// Extent left and right of a slot's anchor (where arrows pass).
    left: Vec<f64>,
    right: Vec<f64>,
    /// Height a slot needs in its layer.
    height: Vec<f64>,
    layers: Vec<Vec<usize>>,
    /// Position of each slot in its layer.
    pos: Vec<usize>,
    /// Neighbours in the layer above and below (CSR: `start[s]..start[s+1]`).
    up: Adjacency,
    down: Adjacency,
    /// The slots of each edge from its top end to its bottom end (empty for loops).
    chains: Vec<Vec<usize>>,
    /// Whether an edge is drawn against its layering (head on top).
    reversed: Vec<bool>,
    /// The slots kept side by side: a representative slot for each slot
    /// of such a block (`None`: on its own).
    block: Vec<Option<usize>>,
}

/// Adjacency lists in one vector.
struct Adjacency {
    start: Vec<usize>,
    to: Vec<usize>,
}

impl Adjacency {
    fn new(n: usize, arcs: impl Iterator<Item = (usize, usize)> + Clone) -> Adjacency {
        let mut start = vec![0; n + 1];
        for (a, _) in arcs.clone() {
            start[a + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut to = vec![0; start[n]];
        for (a, b) in arcs {
            to[fill[a]] = b;
            fill[a] += 1;
        }
        Adjacency { start, to }
    }

    fn of(&self, s: usize) -> &[usize] {
        &self.to[self.start[s]..self.start[s + 1]]
    }
}

/// Lays out `boxes` and `edges` (see the module documentation).
pub(super) fn layout(boxes: &[Size], edges: &[Edge]) -> Result<Placed, TooLarge> {
    let mut g = layered(boxes, edges)?;
    order(&mut g);
    let x = coordinates(&g);
    Ok(route(&g, boxes, edges, &x))
}

/// Steps 1 and 2: orientation, layers, slots and arcs.
fn layered(boxes: &[Size], edges: &[Edge]) -> Result<Layered, TooLarge> {
    let n = boxes.len();
    let reversed = reversed_edges(n, edges);
    let oriented = |e: usize| {
        let Edge { from, to, .. } = edges[e];
        if reversed[e] {
            (to, from)
        } else {
            (from, to)
        }
    };
    let rank = ranks(
        n,
        (0..edges.len())
            .filter(|&e| edges[e].from != edges[e].to)
            .map(oriented),
    );
    let bends: usize = (0..edges.len())
        .filter(|&e| edges[e].from != edges[e].to)
        .map(|e| {
            let (a, b) = oriented(e);
            2 * (rank[b] - rank[a]) - 1
        })
        .sum();
    if n + bends > MAX_SLOTS {
        return Err(TooLarge { boxes: n, bends });
    }
    let mut slots: Vec<Slot> = (0..n).map(Slot::Box).collect();
    let mut layer: Vec<usize> = rank.iter().map(|r| 2 * r).collect();
    let mut left: Vec<f64> = boxes.iter().map(|b| b.width / 2.0).collect();
    let mut right = left.clone();
    let mut height: Vec<f64> = boxes.iter().map(|b| b.height).collect();
    let mut chains = vec![Vec::new(); edges.len()];
    let mut loops = vec![Vec::new(); n];
    for (e, edge) in edges.iter().enumerate() {
        if edge.from == edge.to {
            loops[edge.from].push(edge.label);
            continue;
        }
        let (a, b) = oriented(e);
        let mut chain = vec![a];
        for l in 2 * rank[a] + 1..2 * rank[b] {
            let label = l == 2 * rank[a] + 1;
            chain.push(slots.len());
            slots.push(if label { Slot::Label(e) } else { Slot::Bend });
            layer.push(l);
            left.push(0.0);
            right.push(if label {
                LABEL_PAD + edge.label.width
            } else {
                0.0
            });
            height.push(if label { edge.label.height } else { 0.0 });
        }
        chain.push(b);
        chains[e] = chain;
    }
    for (b, labels) in loops.iter().enumerate().filter(|(_, l)| !l.is_empty()) {
        let widest = labels.iter().map(|l| l.width).fold(0.0, f64::max);
        let stacked: f64 = labels.iter().map(|l| l.height).sum();
        right[b] += loop_reach(labels.len()) + LABEL_PAD + widest;
        height[b] = height[b].max(stacked);
    }
    let count = layer.iter().max().map_or(0, |l| l + 1);
    let arcs = chains
        .iter()
        .flat_map(|c| c.windows(2).map(|w| (w[0], w[1])));
    let up = Adjacency::new(slots.len(), arcs.clone().map(|(a, b)| (b, a)));
    let down = Adjacency::new(slots.len(), arcs);
    let block = blocks(slots.len(), edges, &chains);
    let mut g = Layered {
        block,
        pos: vec![0; slots.len()],
        slots,
        layer,
        left,
        right,
        height,
        layers: vec![Vec::new(); count],
        up,
        down,
        chains,
        reversed,
    };
    initial_order(&mut g);
    for l in 0..g.layers.len() {
        gather(&mut g, l);
    }
    Ok(g)
}

/// The blocks of slots kept together: the heads of alternatives, and
/// their labels, merged where they share a head (union-find).
fn blocks(slots: usize, edges: &[Edge], chains: &[Vec<usize>]) -> Vec<Option<usize>> {
    let mut parent: Vec<usize> = (0..slots).collect();
    fn root(parent: &mut [usize], mut s: usize) -> usize {
        while parent[s] != s {
            parent[s] = parent[parent[s]];
            s = parent[s];
        }
        s
    }
    let mut grouped = vec![false; slots];
    let mut first: HashMap<usize, (usize, usize)> = HashMap::new();
    for (e, edge) in edges.iter().enumerate() {
        let (Some(key), false) = (edge.together, chains[e].is_empty()) else {
            continue;
        };
        let label = chains[e][1];
        let head = edge.to;
        let (h, l) = *first.entry(key).or_insert((head, label));
        for (a, b) in [(h, head), (l, label)] {
            grouped[a] = true;
            grouped[b] = true;
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    (0..slots)
        .map(|s| grouped[s].then(|| root(&mut parent, s)))
        .collect()
}

/// Moves the members of each block in layer `l` next to the first of them.
fn gather(g: &mut Layered, l: usize) {
    if !g.layers[l].iter().any(|&s| g.block[s].is_some()) {
        return;
    }
    let mut members: HashMap<usize, Vec<usize>> = HashMap::new();
    for &s in &g.layers[l] {
        if let Some(b) = g.block[s] {
            members.entry(b).or_default().push(s);
        }
    }
    let mut order = Vec::with_capacity(g.layers[l].len());
    for &s in &g.layers[l] {
        match g.block[s] {
            None => order.push(s),
            Some(b) => order.extend(members.remove(&b).unwrap_or_default()),
        }
    }
    for (i, &s) in order.iter().enumerate() {
        g.pos[s] = i;
    }
    g.layers[l] = order;
}

/// How far right of its box the outermost of `loops` loops reaches.
fn loop_reach(loops: usize) -> f64 {
    LOOP_STEP * loops as f64
}

/// The edges that close a cycle in a depth-first search in box order.
fn reversed_edges(n: usize, edges: &[Edge]) -> Vec<bool> {
    let out = Adjacency::new(
        n,
        edges
            .iter()
            .enumerate()
            .filter(|(_, e)| e.from != e.to)
            .map(|(i, e)| (e.from, i)),
    );
    let mut reversed = vec![false; edges.len()];
    // 0: not seen, 1: on the stack, 2: done.
    let mut state = vec![0u8; n];
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if state[root] != 0 {
            continue;
        }
        state[root] = 1;
        stack.push((root, 0));
        while let Some((v, next)) = stack.last_mut() {
            let v = *v;
            if let Some(&e) = out.of(v).get(*next) {
                *next += 1;
                let w = edges[e].to;
                match state[w] {
                    0 => {
                        state[w] = 1;
                        stack.push((w, 0));
                    }
                    1 => reversed[e] = true,
                    _ => {}
                }
            } else {
                state[v] = 2;
                stack.pop();
            }
        }
    }
    reversed
}

/// Ranks of an acyclic graph: longest path from the sources, then each
/// source moved down to just above the highest box it points at.
fn ranks(n: usize, arcs: impl Iterator<Item = (usize, usize)> + Clone) -> Vec<usize> {
    let out = Adjacency::new(n, arcs.clone());
    let mut indegree = vec![0usize; n];
    for (_, b) in arcs {
        indegree[b] += 1;
    }
    let sources: Vec<bool> = indegree.iter().map(|&d| d == 0).collect();
    let mut queue: VecDeque<usize> = (0..n).filter(|&v| sources[v]).collect();
    let mut topological = Vec::with_capacity(n);
    let mut rank = vec![0usize; n];
    while let Some(v) = queue.pop_front() {
        topological.push(v);
        for &w in out.of(v) {
            rank[w] = rank[w].max(rank[v] + 1);
            indegree[w] -= 1;
            if indegree[w] == 0 {
                queue.push_back(w);
            }
        }
    }
    for &v in topological.iter().rev() {
        if let Some(lowest) = out.of(v).iter().map(|&w| rank[w]).min() {
            if sources[v] {
                rank[v] = lowest - 1;
            }
        }
    }
    rank
}

/// Depth-first order from the boxes in input order, layer by layer.
fn initial_order(g: &mut Layered) {
    let mut seen = vec![false; g.slots.len()];
    let mut stack = Vec::new();
    for root in 0..g.slots.len() {
        if seen[root] || !matches!(g.slots[root], Slot::Box(_)) {
            continue;
        }
        seen[root] = true;
        stack.push(root);
        while let Some(s) = stack.pop() {
            g.pos[s] = g.layers[g.layer[s]].len();
            g.layers[g.layer[s]].push(s);
            for &t in g.down.of(s).iter().rev() {
                if !seen[t] {
                    seen[t] = true;
                    stack.push(t);
                }
            }
        }
    }
}

/// Step 3: barycenter sweeps, keeping the order with the fewest crossings.
fn order(g: &mut Layered) {
    let mut best = crossings(g);
    let mut best_layers = g.layers.clone();
    for pass in 0..ORDER_PASSES {
        if best == 0 {
            break;
        }
        if pass % 2 == 0 {
            for l in 1..g.layers.len() {
                sort_layer(g, l, true);
            }
        } else {
            for l in (0..g.layers.len().saturating_sub(1)).rev() {
                sort_layer(g, l, false);
            }
        }
        transpose(g);
        let now = crossings(g);
        if now < best {
            best = now;
            best_layers.clone_from(&g.layers);
        }
    }
    g.layers = best_layers;
    for layer in &g.layers {
        for (i, &s) in layer.iter().enumerate() {
            g.pos[s] = i;
        }
    }
}

/// Sorts layer `l` by the mean position of each slot's neighbours above
/// (`from_above`) or below; a slot without such neighbours keeps its place.
fn sort_layer(g: &mut Layered, l: usize, from_above: bool) {
    let adjacency = if from_above { &g.up } else { &g.down };
    let mut keyed: Vec<(f64, usize, usize)> = g.layers[l]
        .iter()
        .map(|&s| {
            let near = adjacency.of(s);
            let key = if near.is_empty() {
                g.pos[s] as f64
            } else {
                near.iter().map(|&t| g.pos[t] as f64).sum::<f64>() / near.len() as f64
            };
            (key, g.pos[s], s)
        })
        .collect();
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    for (i, &(_, _, s)) in keyed.iter().enumerate() {
        g.layers[l][i] = s;
        g.pos[s] = i;
    }
    gather(g, l);
}

/// Swaps neighbours in a layer while that removes crossings, at most
/// [`TRANSPOSE_ROUNDS`] rounds.
fn transpose(g: &mut Layered) {
    let (mut mine, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..TRANSPOSE_ROUNDS {
        let mut improved = false;
        for l in 0..g.layers.len() {
            for i in 1..g.layers[l].len() {
                let (u, v) = (g.layers[l][i - 1], g.layers[l][i]);
                let mut kept = 0;
                let mut swapped = 0;
                for adjacency in [&g.up, &g.down] {
                    mine.clear();
                    mine.extend(adjacency.of(u).iter().map(|&t| g.pos[t]));
                    theirs.clear();
                    theirs.extend(adjacency.of(v).iter().map(|&t| g.pos[t]));
                    kept += inversions(&mut mine, &mut theirs);
                    swapped += inversions(&mut theirs, &mut mine);
                }
                if swapped < kept {
                    g.layers[l].swap(i - 1, i);
                    g.pos[u] = i;
                    g.pos[v] = i - 1;
                    improved = true;
                }
            }
        }
        if !improved {
            break;
        }
    }
    for l in 0..g.layers.len() {
        gather(g, l);
    }
}

/// The pairs `(a, b)` of `left × right` with `a > b`: the crossings of the
/// arcs of a slot with neighbours `left` placed before one with `right`.
fn inversions(left: &mut [usize], right: &mut [usize]) -> u64 {
    left.sort_unstable();
    right.sort_unstable();
    let mut count = 0;
    let mut j = 0;
    for &a in left.iter() {
        while j < right.len() && right[j] < a {
            j += 1;
        }
        count += j as u64;
    }
    count
}

/// The number of arc crossings between all adjacent layers.
fn crossings(g: &Layered) -> u64 {
    let mut total = 0;
    let mut targets = Vec::new();
    let mut tree = Vec::new();
    for l in 0..g.layers.len().saturating_sub(1) {
        targets.clear();
        for &s in &g.layers[l] {
            let first = targets.len();
            targets.extend(g.down.of(s).iter().map(|&t| g.pos[t]));
            targets[first..].sort_unstable();
        }
        // Arcs in order of their upper ends cross where the lower ends
        // are inverted: count, for each, the earlier ones further right.
        let width = g.layers[l + 1].len();
        tree.clear();
        tree.resize(width + 1, 0u64);
        for (seen, &t) in targets.iter().enumerate() {
            let mut at_or_left = 0;
            let mut i = t + 1;
            while i > 0 {
                at_or_left += tree[i];
                i &= i - 1;
            }
            total += seen as u64 - at_or_left;
            let mut i = t + 1;
            while i <= width {
                tree[i] += 1;
                i += i & i.wrapping_neg();
            }
        }
    }
    total
}

/// Step 4: the x coordinate of every slot's anchor.
fn coordinates(g: &Layered) -> Vec<f64> {
    let mut x = vec![0.0; g.slots.len()];
    for layer in &g.layers {
        let mut at = 0.0;
        for (i, &s) in layer.iter().enumerate() {
            if i > 0 {
                at += gap(g, layer[i - 1], s);
            }
            x[s] = at;
        }
    }
    let count = g.layers.len();
    for _ in 0..COORDINATE_PASSES {
        for l in 1..count {
            place(g, l, &mut x, true, false);
        }
        for l in (0..count.saturating_sub(1)).rev() {
            place(g, l, &mut x, false, true);
        }
    }
    for l in 0..count {
        place(g, l, &mut x, true, true);
    }
    let least = (0..g.slots.len())
        .map(|s| x[s] - g.left[s])
        .fold(f64::INFINITY, f64::min);
    if least.is_finite() {
        for v in &mut x {
            *v += MARGIN - least;
        }
    }
    x
}

/// The least distance between the anchors of neighbours `a` and `b` (in
/// this order).
fn gap(g: &Layered, a: usize, b: usize) -> f64 {
    let boxes = matches!(g.slots[a], Slot::Box(_)) && matches!(g.slots[b], Slot::Box(_));
    g.right[a] + if boxes { BOX_GAP } else { BEND_GAP } + g.left[b]
}

/// Places layer `l` as near as its order and gaps allow to the weighted
/// mean of its neighbours above and/or below: pool-adjacent-violators on
/// the anchors shifted by the cumulative least gaps.
fn place(g: &Layered, l: usize, x: &mut [f64], above: bool, below: bool) {
    let layer = &g.layers[l];
    // Blocks of slots placed together: (weight, weighted sum, slots).
    let mut blocks: Vec<(f64, f64, usize)> = Vec::with_capacity(layer.len());
    let mut offset = 0.0;
    let mut offsets = Vec::with_capacity(layer.len());
    for (i, &s) in layer.iter().enumerate() {
        if i > 0 {
            offset += gap(g, layer[i - 1], s);
        }
        offsets.push(offset);
        let none: &[usize] = &[];
        let near = if above { g.up.of(s) } else { none }
            .iter()
            .chain(if below { g.down.of(s) } else { none });
        let (count, sum) = near.fold((0usize, 0.0), |(n, sum), &t| (n + 1, sum + x[t]));
        let (desired, weight) = if count == 0 {
            (x[s], 0.01)
        } else if matches!(g.slots[s], Slot::Box(_)) {
            (sum / count as f64, 1.0)
        } else {
            (sum / count as f64, 4.0)
        };
        blocks.push((weight, weight * (desired - offset), 1));
        while blocks.len() > 1 {
            let (w2, sum2, n2) = blocks[blocks.len() - 1];
            let (w1, sum1, n1) = blocks[blocks.len() - 2];
            if sum1 / w1 < sum2 / w2 {
                break;
            }
            blocks.pop();
            let last = blocks.len() - 1;
            blocks[last] = (w1 + w2, sum1 + sum2, n1 + n2);
        }
    }
    let mut i = 0;
    for (w, sum, n) in blocks {
        for _ in 0..n {
            x[layer[i]] = sum / w + offsets[i];
            i += 1;
        }
    }
}

/// The top of each layer and its height. The gap below a layer grows
/// with the widest column change of the arrows crossing it (up to
/// [`MAX_LAYER_GAP`]), so that they stay steep enough to follow.
fn bands(g: &Layered, x: &[f64]) -> Vec<(f64, f64)> {
    let mut top = MARGIN;
    g.layers
        .iter()
        .map(|layer| {
            let height = layer.iter().map(|&s| g.height[s]).fold(0.0, f64::max);
            let band = (top, height);
            if !layer.is_empty() {
                let spread = layer
                    .iter()
                    .flat_map(|&s| g.down.of(s).iter().map(move |&t| (x[s] - x[t]).abs()))
                    .fold(0.0, f64::max);
                top += height + (spread / GAP_SLOPE).clamp(LAYER_GAP, MAX_LAYER_GAP);
            }
            band
        })
        .collect()
}

/// Step 5: boxes, arrows and labels in place.
fn route(g: &Layered, boxes: &[Size], edges: &[Edge], x: &[f64]) -> Placed {
    let bands = bands(g, x);
    let rects: Vec<Rect> = boxes
        .iter()
        .enumerate()
        .map(|(b, size)| {
            let (top, height) = bands[g.layer[b]];
            Rect {
                x: x[b] - size.width / 2.0,
                y: top + (height - size.height) / 2.0,
                width: size.width,
                height: size.height,
            }
        })
        .collect();
    let (down_port, up_port) = ports(g, edges, x, &rects);
    let mut loops_done = vec![0usize; boxes.len()];
    let loops_of = {
        let mut count = vec![0usize; boxes.len()];
        for e in edges.iter().filter(|e| e.from == e.to) {
            count[e.from] += 1;
        }
        count
    };
    let routes = edges
        .iter()
        .enumerate()
        .map(|(e, edge)| {
            if edge.from == edge.to {
                let i = loops_done[edge.from];
                loops_done[edge.from] += 1;
                return self_loop(&rects[edge.from], edge.label, i, loops_of[edge.from]);
            }
            let chain = &g.chains[e];
            let (top, bottom) = (chain[0], chain[chain.len() - 1]);
            let mut points = Vec::with_capacity(2 * chain.len() + 2);
            let (from, to) = (&rects[top], &rects[bottom]);
            let (band_top, band_height) = bands[g.layer[top]];
            let px = down_port[e];
            points.push(Point {
                x: px,
                y: from.y + from.height,
            });
            points.push(Point {
                x: px,
                y: band_top + band_height + STUB,
            });
            let mut label = Rect {
                x: px,
                y: 0.0,
                width: 0.0,
                height: 0.0,
            };
            for &s in &chain[1..chain.len() - 1] {
                let (t, h) = bands[g.layer[s]];
                points.push(Point { x: x[s], y: t });
                if h > 0.0 {
                    points.push(Point { x: x[s], y: t + h });
                }
                if let Slot::Label(_) = g.slots[s] {
                    label = Rect {
                        x: x[s] + LABEL_PAD,
                        y: t + (h - edge.label.height) / 2.0,
                        width: edge.label.width,
                        height: edge.label.height,
                    };
                }
            }
            let px = up_port[e];
            let (band_top, _) = bands[g.layer[bottom]];
            points.push(Point {
                x: px,
                y: band_top - STUB,
            });
            points.push(Point { x: px, y: to.y });
            if g.reversed[e] {
                points.reverse();
            }
            Route { points, label }
        })
        .collect();
    let width = (0..g.slots.len())
        .map(|s| x[s] + g.right[s])
        .fold(0.0, f64::max)
        + MARGIN;
    let height = bands.iter().map(|&(top, h)| top + h).fold(0.0, f64::max) + MARGIN;
    Placed {
        boxes: rects,
        routes,
        size: Size { width, height },
    }
}

/// Where each edge leaves the bottom of its upper box and enters the top
/// of its lower box: spread along the side in the order of the next slots.
fn ports(g: &Layered, edges: &[Edge], x: &[f64], rects: &[Rect]) -> (Vec<f64>, Vec<f64>) {
    let mut down = vec![0.0; edges.len()];
    let mut up = vec![0.0; edges.len()];
    let mut leaving: Vec<Vec<(f64, usize)>> = vec![Vec::new(); rects.len()];
    let mut entering: Vec<Vec<(f64, usize)>> = vec![Vec::new(); rects.len()];
    for (e, chain) in g.chains.iter().enumerate().filter(|(_, c)| !c.is_empty()) {
        let n = chain.len();
        leaving[chain[0]].push((x[chain[1]], e));
        entering[chain[n - 1]].push((x[chain[n - 2]], e));
    }
    for (ends, side) in [(&mut leaving, &mut down), (&mut entering, &mut up)] {
        for (b, list) in ends.iter_mut().enumerate() {
            list.sort_by(|p, q| p.0.total_cmp(&q.0).then(p.1.cmp(&q.1)));
            let r = &rects[b];
            let step = r.width / (list.len() + 1) as f64;
            for (k, &(_, e)) in list.iter().enumerate() {
                side[e] = r.x + step * (k + 1) as f64;
            }
        }
    }
    (down, up)
}

/// Loop `i` of `count` of a box onto itself, on its right; the outer
/// loops are the later ones, their labels stacked right of all loops.
fn self_loop(r: &Rect, label: Size, i: usize, count: usize) -> Route {
    let right = r.x + r.width;
    let middle = r.y + r.height / 2.0;
    let reach = LOOP_STEP * (i + 1) as f64;
    let spread = (r.height / 2.0) * (i + 1) as f64 / (count + 1) as f64;
    let points = vec![
        Point {
            x: right,
            y: middle - spread,
        },
        Point {
            x: right + reach,
            y: middle - spread,
        },
        Point {
            x: right + reach,
            y: middle + spread,
        },
        Point {
            x: right,
            y: middle + spread,
        },
    ];
    let stacked = label.height * count as f64;
    Route {
        points,
        label: Rect {
            x: right + loop_reach(count) + LABEL_PAD,
            y: middle - stacked / 2.0 + label.height * i as f64,
            width: label.width,
            height: label.height,
        },
    }
}

#[cfg(test)]
mod tests;
