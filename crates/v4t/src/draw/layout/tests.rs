use super::*;

/// Whether the segment `p`–`q` passes through the inside of `r` (touching
/// its border, as an arrow touches its own box, does not count).
fn crosses(p: Point, q: Point, r: &Rect) -> bool {
    let eps = 0.5;
    let (x0, x1) = (r.x + eps, r.x + r.width - eps);
    let (y0, y1) = (r.y + eps, r.y + r.height - eps);
    // Liang–Barsky clipping of the segment to the shrunken rectangle.
    let (dx, dy) = (q.x - p.x, q.y - p.y);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (denominator, numerator) in [
        (-dx, p.x - x0),
        (dx, x1 - p.x),
        (-dy, p.y - y0),
        (dy, y1 - p.y),
    ] {
        if denominator == 0.0 {
            if numerator < 0.0 {
                return false;
            }
        } else {
            let t = numerator / denominator;
            if denominator < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    t0 < t1
}

fn overlap(a: &Rect, b: &Rect) -> bool {
    a.x < b.x + b.width - 0.5
        && b.x < a.x + a.width - 0.5
        && a.y < b.y + b.height - 0.5
        && b.y < a.y + a.height - 0.5
}

/// A small deterministic random number generator.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

fn random_graph(seed: u64, n: usize, m: usize) -> (Vec<Size>, Vec<Edge>) {
    let mut rng = Lcg(seed);
    let boxes = (0..n)
        .map(|_| Size {
            width: 40.0 + rng.below(200) as f64,
            height: 20.0 + rng.below(40) as f64,
        })
        .collect();
    let edges = (0..m)
        .map(|_| Edge {
            from: rng.below(n),
            to: rng.below(n),
            label: Size {
                width: 10.0 + rng.below(120) as f64,
                height: 14.0,
            },
            together: (rng.below(3) == 0).then(|| rng.below(4)),
        })
        .collect();
    (boxes, edges)
}

/// Every property the drawing promises, on one laid-out graph.
fn assert_readable(boxes: &[Size], edges: &[Edge], placed: &Placed) {
    let canvas = Rect {
        x: 0.0,
        y: 0.0,
        width: placed.size.width,
        height: placed.size.height,
    };
    let inside = |r: &Rect| {
        r.x >= canvas.x
            && r.y >= canvas.y
            && r.x + r.width <= canvas.width + 1e-6
            && r.y + r.height <= canvas.height + 1e-6
    };
    for (i, r) in placed.boxes.iter().enumerate() {
        assert_eq!((r.width, r.height), (boxes[i].width, boxes[i].height));
        assert!(inside(r), "box {i} {r:?} outside {canvas:?}");
        for (j, s) in placed.boxes.iter().enumerate().skip(i + 1) {
            assert!(!overlap(r, s), "boxes {i} and {j} overlap");
        }
    }
    for (e, (edge, route)) in edges.iter().zip(&placed.routes).enumerate() {
        let points = &route.points;
        let (first, last) = (points[0], points[points.len() - 1]);
        let (from, to) = (&placed.boxes[edge.from], &placed.boxes[edge.to]);
        let on_border = |p: Point, r: &Rect| {
            let near = |a: f64, b: f64| (a - b).abs() < 1e-6;
            (near(p.y, r.y) || near(p.y, r.y + r.height) || near(p.x, r.x + r.width))
                && p.x >= r.x - 1e-6
                && p.x <= r.x + r.width + 1e-6
        };
        assert!(on_border(first, from), "edge {e} starts off its box");
        assert!(on_border(last, to), "edge {e} ends off its box");
        for w in points.windows(2) {
            for (b, r) in placed.boxes.iter().enumerate() {
                if b != edge.from && b != edge.to {
                    assert!(!crosses(w[0], w[1], r), "edge {e} crosses box {b}");
                }
            }
        }
        let label = &route.label;
        assert!(inside(label), "label {e} outside");
        for (b, r) in placed.boxes.iter().enumerate() {
            assert!(!overlap(label, r), "label {e} on box {b}");
        }
        for (f, other) in placed.routes.iter().enumerate().skip(e + 1) {
            assert!(!overlap(label, &other.label), "labels {e} and {f} overlap");
        }
        if edge.from != edge.to {
            // The label is beside a vertical piece of its own arrow.
            let line = label.x - LABEL_PAD;
            let beside = points.windows(2).any(|w| {
                (w[0].x - line).abs() < 1e-6
                    && (w[1].x - line).abs() < 1e-6
                    && w[0].y.min(w[1].y) <= label.y + 1e-6
                    && w[0].y.max(w[1].y) >= label.y + label.height - 1e-6
            });
            assert!(beside, "label {e} is not beside its arrow: {route:?}");
        }
    }
}

#[test]
fn random_graphs_are_readable() {
    for seed in 0..60 {
        let n = 2 + (seed as usize * 7) % 30;
        let m = (seed as usize * 13) % (2 * n + 1);
        let (boxes, edges) = random_graph(seed, n, m);
        let placed = layout(&boxes, &edges).expect("small");
        assert_readable(&boxes, &edges, &placed);
        assert_eq!(
            layout(&boxes, &edges).expect("small"),
            placed,
            "seed {seed}"
        );
    }
}

#[test]
fn the_checks_can_fail() {
    let r = Rect {
        x: 10.0,
        y: 10.0,
        width: 20.0,
        height: 20.0,
    };
    let p = |x, y| Point { x, y };
    assert!(crosses(p(0.0, 20.0), p(40.0, 20.0), &r));
    assert!(crosses(p(0.0, 0.0), p(40.0, 40.0), &r));
    assert!(!crosses(p(0.0, 0.0), p(40.0, 0.0), &r));
    assert!(
        !crosses(p(10.0, 0.0), p(10.0, 40.0), &r),
        "along the border"
    );
    assert!(!crosses(p(0.0, 15.0), p(15.0, 0.0), &r));
}

#[test]
fn a_chain_is_one_straight_column() {
    let n = 20_000;
    let boxes = vec![
        Size {
            width: 120.0,
            height: 40.0
        };
        n
    ];
    let edges: Vec<Edge> = (0..n - 1)
        .map(|i| Edge {
            from: i,
            to: i + 1,
            label: Size {
                width: 30.0,
                height: 14.0,
            },
            together: None,
        })
        .collect();
    let placed = layout(&boxes, &edges).expect("a chain fits");
    let x = placed.boxes[0].x;
    assert!(placed.boxes.iter().all(|b| b.x == x));
    assert!(placed.boxes.windows(2).all(|w| w[0].y < w[1].y));
}

#[test]
fn a_cycle_points_back() {
    let size = Size {
        width: 50.0,
        height: 20.0,
    };
    let label = Size {
        width: 20.0,
        height: 14.0,
    };
    let edges = [(0, 1), (1, 2), (2, 0), (1, 1)].map(|(from, to)| Edge {
        from,
        to,
        label,
        together: None,
    });
    let placed = layout(&[size; 3], &edges).expect("small");
    assert_readable(&[size; 3], &edges, &placed);
    // 2 -> 0 goes up: it ends at the bottom of box 0.
    let back = &placed.routes[2].points;
    let b0 = &placed.boxes[0];
    assert_eq!(back[back.len() - 1].y, b0.y + b0.height);
}

#[test]
fn too_many_bends_are_refused() {
    // A chain and an arrow from its first box to every other one: the
    // arrows cross n²/2 layers.
    let n = 2_000;
    let size = Size {
        width: 10.0,
        height: 10.0,
    };
    let label = size;
    let edges: Vec<Edge> = (0..n - 1)
        .map(|i| Edge {
            from: i,
            to: i + 1,
            label,
            together: None,
        })
        .chain((2..n).map(|i| Edge {
            from: 0,
            to: i,
            label,
            together: None,
        }))
        .collect();
    let err = layout(&vec![size; n], &edges).expect_err("too large");
    assert_eq!(err.boxes, n);
    assert!(err.bends > MAX_SLOTS);
}

#[test]
fn alternatives_sit_side_by_side() {
    // 0 has two alternative hosts (1, 2), listed after its arrow to 4,
    // which 3 is hosted on: barycenters alone put 4 between 1 and 2.
    let size = Size {
        width: 60.0,
        height: 30.0,
    };
    let label = Size {
        width: 40.0,
        height: 14.0,
    };
    let edges = [(0, 4, None), (3, 4, None), (0, 1, Some(7)), (0, 2, Some(7))].map(
        |(from, to, together)| Edge {
            from,
            to,
            label,
            together,
        },
    );
    let placed = layout(&[size; 5], &edges).expect("small");
    assert_readable(&[size; 5], &edges, &placed);
    let (b1, b2) = (placed.boxes[1], placed.boxes[2]);
    assert_eq!(b1.y, b2.y);
    let between = |b: &Rect| b.y == b1.y && b.x > b1.x.min(b2.x) && b.x < b1.x.max(b2.x);
    let others = [0, 3, 4].map(|b| placed.boxes[b]);
    assert!(others.iter().any(|b| b.y == b1.y), "{placed:?}");
    assert!(!others.iter().any(between), "{placed:?}");
}
