//! Two relaxations of courtyard whose tableau is a multiset of cards (docs/design.md,
//! "Two multiset relaxations"). The stock, the waste and the foundations are
//! exact; a waste top may go home when it fits, or into the tableau when the tableau's room
//! allows; any tableau card may go home when it fits (and the room allows what is left).
//!
//! - `runs`: the tableau must split into at most 12 same-suit runs (each a card on the card
//!   one rank above, in suit): with multiplicities `m_r` of a suit's ranks that takes
//!   `sum_r max(0, m_r - m_{r+1})` runs. A real tableau is 12 piles, each such a run, and
//!   every real move keeps it so, so every line of the game is a line of this relaxation.
//! - `starts`: the cards whose value has no copy of its parent in the tableau or home count
//!   for the room, at most 12 (a parent holds any number of cards). Looser than `runs`.
//!
//! Safe moves are made at once: a card goes home when both copies one rank below are (it can
//! hold nothing, and leaving cannot split a run); in `starts`, a waste top goes into the
//! tableau when a copy of its parent is there or home (it then costs no room, ever).
//!
//! `cargo run --release --example courtyard_multiset -- runs|starts best MAX SEED...` (a
//! best-first search for a win, at most MAX states), or `... runs layers SEED MAX_DEALT`
//! (every state, layered by cards dealt).

use castle::{Deal, Variant};
use std::collections::{BinaryHeap, HashSet};

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct S {
    i: u8,
    waste: u128,
    found: [u8; 8],
}

struct G {
    stock: Vec<u8>,
    tab0: Vec<u8>,
    starts: bool,
}

fn rank(v: u8) -> u8 {
    v / 4 + 1
}

impl G {
    /// Copies of each value in the tableau, and home.
    fn counts(&self, s: &S) -> ([u8; 52], [u8; 52]) {
        let (mut m, mut h) = ([0u8; 52], [0u8; 52]);
        for &v in &self.tab0 {
            m[v as usize] += 1;
        }
        for k in 0..s.i as usize {
            if s.waste >> k & 1 == 0 {
                m[self.stock[k] as usize] += 1;
            }
        }
        for su in 0..4 {
            for f in [su, su + 4] {
                for r in 1..=s.found[f] as usize {
                    m[(r - 1) * 4 + su] -= 1;
                    h[(r - 1) * 4 + su] += 1;
                }
            }
        }
        (m, h)
    }

    /// The room the tableau takes.
    fn room(&self, m: &[u8; 52], h: &[u8; 52]) -> u32 {
        let mut n = 0;
        for v in 0..52 {
            let up = if v < 48 { m[v + 4] } else { 0 };
            n += if self.starts {
                u32::from(m[v] > 0 && (v >= 48 || up + h[v + 4] == 0))
            } else {
                u32::from(m[v].saturating_sub(up))
            };
        }
        n
    }

    fn fits(s: &S, v: u8) -> Option<usize> {
        let su = (v % 4) as usize;
        let r = rank(v);
        [su, su + 4].into_iter().find(|&f| s.found[f] == r - 1)
    }

    fn home(s: &mut S, f: usize) {
        s.found[f] += 1;
        let su = f % 4;
        if s.found[su] < s.found[su + 4] {
            s.found.swap(su, su + 4);
        }
    }

    fn top(&self, s: &S) -> Option<usize> {
        (0..s.i as usize).rev().find(|&k| s.waste >> k & 1 == 1)
    }

    fn won(&self, s: &S) -> bool {
        s.i as usize == self.stock.len() && s.waste == 0
    }

    fn safe(s: &S, v: u8) -> bool {
        let su = (v % 4) as usize;
        let r = rank(v);
        s.found[su] >= r - 1 && s.found[su + 4] >= r - 1
    }

    /// The safe moves, to a fixed point.
    fn close(&self, s: &mut S) {
        loop {
            let (m, h) = self.counts(s);
            let mut moved = false;
            if let Some(t) = self.top(s) {
                let v = self.stock[t];
                let parent = v < 48 && m[v as usize + 4] + h[v as usize + 4] > 0;
                if G::safe(s, v) && G::fits(s, v).is_some() {
                    G::home(s, G::fits(s, v).unwrap());
                    s.waste &= !(1 << t);
                    moved = true;
                } else if self.starts && parent {
                    s.waste &= !(1 << t);
                    moved = true;
                }
            }
            if !moved {
                if let Some((v, f)) = (0..52u8)
                    .filter(|&v| m[v as usize] > 0 && G::safe(s, v))
                    .find_map(|v| G::fits(s, v).map(|f| (v, f)))
                {
                    let _ = v;
                    G::home(s, f);
                    moved = true;
                }
            }
            if !moved {
                return;
            }
        }
    }

    fn kids(&self, s: &S, out: &mut Vec<S>) {
        out.clear();
        let (m, h) = self.counts(s);
        for v in 0..52u8 {
            if m[v as usize] > 0 {
                if let Some(f) = G::fits(s, v) {
                    let mut m2 = m;
                    m2[v as usize] -= 1;
                    if self.room(&m2, &h) <= 12 {
                        let mut k = *s;
                        G::home(&mut k, f);
                        out.push(k);
                    }
                }
            }
        }
        if let Some(t) = self.top(s) {
            let v = self.stock[t];
            if let Some(f) = G::fits(s, v) {
                let mut k = *s;
                k.waste &= !(1 << t);
                G::home(&mut k, f);
                out.push(k);
            }
            let mut m2 = m;
            m2[v as usize] += 1;
            if self.room(&m2, &h) <= 12 {
                let mut k = *s;
                k.waste &= !(1 << t);
                out.push(k);
            }
        }
        if (s.i as usize) < self.stock.len() {
            let mut k = *s;
            k.waste |= 1 << s.i;
            k.i += 1;
            out.push(k);
        }
        for k in out.iter_mut() {
            self.close(k);
        }
    }
}

fn game(seed: u64, starts: bool) -> (G, S) {
    let deal = Deal::from_seed(Variant::Courtyard.rules(), seed);
    let g = G {
        stock: deal.stock.iter().map(|c| c.index() as u8).collect(),
        tab0: deal
            .tableau
            .iter()
            .flatten()
            .map(|c| c.index() as u8)
            .collect(),
        starts,
    };
    let mut root = S {
        i: 0,
        waste: 0,
        found: [0; 8],
    };
    g.close(&mut root);
    (g, root)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let starts = match args[0].as_str() {
        "runs" => false,
        "starts" => true,
        _ => panic!("runs or starts"),
    };
    let mut kids = Vec::new();
    if args[1] == "layers" {
        let (g, root) = game(args[2].parse().expect("SEED"), starts);
        let last: usize = args[3].parse().expect("MAX_DEALT");
        let mut level: HashSet<S> = HashSet::from([root]);
        println!("dealt\tstates\tseconds");
        let t0 = std::time::Instant::now();
        for i in 0..=last {
            let mut todo: Vec<S> = level.iter().copied().collect();
            let mut next = HashSet::new();
            while let Some(s) = todo.pop() {
                if g.won(&s) {
                    println!("won");
                    return;
                }
                g.kids(&s, &mut kids);
                for k in kids.drain(..) {
                    if k.i as usize == i {
                        if level.insert(k) {
                            todo.push(k);
                        }
                    } else {
                        next.insert(k);
                    }
                }
            }
            println!("{i}\t{}\t{:.1}", level.len(), t0.elapsed().as_secs_f64());
            if next.is_empty() {
                println!("lost");
                return;
            }
            level = next;
        }
        return;
    }
    let max: usize = args[2].parse().expect("MAX");
    println!("deal\tverdict\tstates\tbest_home\tseconds");
    for a in &args[3..] {
        let seed: u64 = a.parse().expect("SEED");
        let (g, root) = game(seed, starts);
        // Best first: cards home, then fewer in the waste.
        let score = |s: &S| -> i64 {
            let home: i64 = s.found.iter().map(|&f| i64::from(f)).sum();
            8 * home - 3 * i64::from(s.waste.count_ones() as u8) + i64::from(s.i)
        };
        let mut seen = HashSet::from([root]);
        let mut heap = BinaryHeap::from([(score(&root), 0u64, root)]);
        let (mut verdict, mut best, mut n) = ("lost", 0, 0u64);
        let t0 = std::time::Instant::now();
        while let Some((_, _, s)) = heap.pop() {
            best = best.max(s.found.iter().map(|&f| u32::from(f)).sum::<u32>());
            if g.won(&s) {
                verdict = "won";
                break;
            }
            if seen.len() > max {
                verdict = "limit";
                break;
            }
            g.kids(&s, &mut kids);
            for k in kids.drain(..) {
                if seen.insert(k) {
                    n += 1;
                    heap.push((score(&k), n, k));
                }
            }
        }
        println!(
            "{seed}\t{verdict}\t{}\t{best}\t{:.2}",
            seen.len(),
            t0.elapsed().as_secs_f64()
        );
    }
}
