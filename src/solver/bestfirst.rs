//! The best-first pass: one weighted A\* search over the move graph, which can be run a slice
//! at a time. It ranks positions by `f = g + w * h`: `g` the moves played from the deal (every
//! single-card move, automatic ones included, as a solution counts them) and `h` =
//! [`Position::moves_left_bound`], a lower bound on the moves still needed, and keeps only
//! positions with `g + h` below a bound (the best win known). A position reached again by a
//! line with a smaller `g` is searched again from there.
//!
//! Two searches are built on it: the solver's portfolio ([`super::portfolio`], run by
//! [`super::schedule`]) runs passes with no bound, each ranking by its own [`Eval`], a slice
//! at a time between the depth-first attempts. `castle solve --short` ([`super::short`]) runs
//! passes of falling weights on `g + w * h`, each bounded by the best win so far.
//!
//! Memory: about 80 bytes per position generated are allowed for (the node, its moves, its
//! queue entry and its table entry; 44 were measured at 7.9 million positions, the rest is room
//! for the vectors' growth); a pass stops, with what it found, when that passes its budget.

use super::search::autoplay;
use super::{End, Limit};
use crate::card::Card;
use crate::deal::Deal;
use crate::moves::{moved_card, Move, MoveList};
use crate::state::{Features, Position, Pruning};
use std::cmp::Reverse;
use std::collections::hash_map::Entry;
use std::collections::BinaryHeap;

/// Bytes a generated position costs, roughly (see the module docs).
const BYTES_PER_NODE: usize = 80;

/// What lies under a pile's bottom card, as an atom of [`Pass::novel`] (the cards are 0..52).
const BOTTOM: usize = 52;

/// Words of bits for the atoms of one bound in [`Pass::novel`]: each card (52) on each card
/// or on the bottom (53).
const ATOM_WORDS: usize = (53 * 52usize).div_ceil(64);

/// How a pass ranks the positions it reaches: `f` is a weighted sum, in tenths of a move,
/// of `g` (moves played from the deal) and the counts of [`Features`]; least `f` first.
/// Only [`Eval::bound`] with a weight of 10 (plain A\*) or more ranks by `g` plus a bound,
/// which `--short` needs; the portfolio's other members ([`super::portfolio`]) rank as they
/// please, since they only ever report a win.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Eval {
    /// Weight of `g`.
    pub g: u32,
    /// Weight of `h`, [`Position::moves_left_bound`] (the pass computes it once per position).
    pub bound: u32,
    /// Weight of [`Features::left`].
    pub left: u32,
    /// Weight of [`Features::disorder`].
    pub disorder: u32,
    /// Weight of [`Features::dig`].
    pub dig: u32,
    /// Weight of each tableau pile or cell *not* empty ([`Features::empty`] lowers `f`).
    pub full: u32,
    /// Weight of each waste card, [`Position::waste_len`] (see
    /// [`super::portfolio::WASTE_GUIDE`]).
    pub waste: u32,
    /// Among positions of equal `f`, the one reached first goes first (breadth-first on a
    /// plateau); otherwise the deepest, then the newest.
    pub fifo: bool,
    /// Nonzero (and not `fifo`): among positions of equal `f`, an order drawn from this seed.
    pub tie_seed: u64,
    /// Expand with [`Position::relocation_moves`] instead of the complete move set.
    pub relocate: bool,
    /// Added to `f` of a position that is not novel: one that makes no atom (a card lying
    /// directly on a given card, or at the bottom of a pile) true for the first time among
    /// the positions with its bound `h` the pass has reached. A weight above every other term
    /// makes novelty the first key and the rest the second, as in best-first width search
    /// (Lipovetzky and Geffner's BFWS): on a plateau, where the other terms tie for
    /// thousands of positions, the search goes first to arrangements of the tableau it has
    /// not met. See [`super::portfolio::Member::Novelty`].
    pub novelty: u32,
}

impl Eval {
    /// Weighted A\*: `f = g + w/10 * h`, `h` the bound.
    pub const fn bound(w: u32) -> Eval {
        Eval {
            g: 10,
            bound: w,
            left: 0,
            disorder: 0,
            dig: 0,
            full: 0,
            waste: 0,
            fifo: false,
            tie_seed: 0,
            relocate: false,
            novelty: 0,
        }
    }

    /// True when `f` needs more than `g`, the bound and the waste.
    fn needs_features(&self) -> bool {
        self.left + self.disorder + self.dig + self.full > 0
    }

    /// `f` of a position `g` moves from the deal, with bound `h`, at `pos`.
    fn f(&self, pos: &Position, g: u32, h: u32, piles: u32) -> u32 {
        let mut f = self.g * g + self.bound * h + self.waste * pos.waste_len();
        if self.needs_features() {
            let x: Features = pos.features();
            f += self.left * x.left
                + self.disorder * x.disorder
                + self.dig * x.dig
                + self.full * piles.saturating_sub(x.empty);
        }
        f
    }
}

/// Budgets of a pass.
#[derive(Clone, Copy, Debug)]
pub(super) struct PassLimits<'a> {
    /// Positions to expand (all passes together, for `--short`).
    pub nodes: u64,
    /// Bytes a pass may use.
    pub memory: usize,
    /// When it must end whatever its budget.
    pub clock: Clock<'a>,
}

pub(super) use super::clock::Clock;

/// A position reached: the moves that led to it from its parent.
struct Node {
    parent: u32,
    start: u32,
    len: u32,
    /// [`Position::moves_left_bound`] there.
    h: u32,
    /// The card just moved (see [`Position::generate`]).
    last: Option<(Card, u8)>,
    /// Reached again with a smaller `g` (by another node) after it was queued.
    stale: bool,
    /// Edges from the deal's node.
    depth: u32,
}

/// One weighted pass, which can be run a slice at a time.
pub(super) struct Pass<'a, const W: usize> {
    deal: &'a Deal,
    prune: Pruning,
    /// How `f` is made.
    eval: Eval,
    /// Tableau piles and cells (for [`Eval::full`]).
    piles: u32,
    /// Only wins shorter than this count.
    best: usize,
    nodes: Vec<Node>,
    moves: Vec<Move>,
    /// Least `g` each position was reached with, and the node that holds it.
    seen: ahash::HashMap<[u64; W], (u32, u32)>,
    /// (f, g, node): least f first, then the deepest.
    queue: BinaryHeap<(Reverse<u32>, u32, u32, u32)>,
    /// With [`Eval::novelty`]: the atoms met so far, [`ATOM_WORDS`] words of bits for each
    /// bound `h` (see [`Pass::novel`]).
    atoms: Vec<u64>,
    /// The position of the node last expanded, and its chain from the root (root first):
    /// the next expansion walks from there (see [`Pass::walk`]).
    at: Option<(Position, Vec<u32>)>,
    started: bool,
    /// The shortest win found.
    pub(super) win: Option<Vec<Move>>,
    /// Positions expanded so far.
    pub(super) expanded: u64,
}

impl<'a, const W: usize> Pass<'a, W> {
    /// A pass with weight `w` (in tenths) that keeps only wins shorter than `best`.
    pub(super) fn new(deal: &'a Deal, prune: Pruning, w: u32, best: usize) -> Self {
        Pass {
            deal,
            prune,
            eval: Eval::bound(w),
            piles: (deal.tableau.len() + deal.rules.cells) as u32,
            best,
            nodes: Vec::new(),
            moves: Vec::new(),
            seen: Default::default(),
            queue: BinaryHeap::new(),
            atoms: Vec::new(),
            at: None,
            started: false,
            win: None,
            expanded: 0,
        }
    }

    /// Ranks by `eval` instead. Not a bound unless `eval` is [`Eval::bound`]: only for a pass
    /// that takes any win, never for `--short`.
    pub(super) fn with_eval(mut self, eval: Eval) -> Self {
        self.eval = eval;
        self
    }

    /// Starts the pass again from the deal, ranking by `eval`, keeping its buffers' room and
    /// its count of positions expanded (for restarted members: a new pass each restart
    /// would grow its map and vectors from nothing every few hundred positions).
    pub(super) fn restart(&mut self, eval: Eval) {
        self.eval = eval;
        self.nodes.clear();
        self.moves.clear();
        self.seen.clear();
        self.queue.clear();
        self.atoms.clear();
        self.at = None;
        self.started = false;
        self.win = None;
    }

    /// Node `i` and its ancestors up to the root, into `chain` (deepest first).
    fn chain(&self, mut i: u32, chain: &mut Vec<u32>) {
        chain.clear();
        loop {
            chain.push(i);
            let n = &self.nodes[i as usize];
            if n.parent == i {
                break;
            }
            i = n.parent;
        }
    }

    /// The moves that led to node `j` from its parent.
    fn edge(&self, j: u32) -> &[Move] {
        let n = &self.nodes[j as usize];
        &self.moves[n.start as usize..(n.start + n.len) as usize]
    }

    /// The line from the deal to node `i`, then `tail`.
    fn line(&self, i: u32, tail: &[Move]) -> Vec<Move> {
        let mut chain = Vec::new();
        self.chain(i, &mut chain);
        let mut line: Vec<Move> = chain
            .iter()
            .rev()
            .flat_map(|&j| self.edge(j))
            .copied()
            .collect();
        line.extend_from_slice(tail);
        line
    }

    /// Node `i`'s position, reached from the position of the node expanded before (`at`):
    /// up that node's chain to the last node the two chains share, undoing its edges, then
    /// down `i`'s, playing them (the first expansion starts from the deal). Rebuilding every
    /// position from the deal replayed the whole line, and best-first passes expand lines a
    /// hundred moves deep: walking took 41% off the pass's instructions (`valgrind
    /// --tool=callgrind castle batch -v sa --seeds 1..40 -j 1`, same nodes). `chain` is
    /// scratch (and `at`'s chain is reused), so an expansion allocates nothing once the
    /// buffers have grown.
    /// Returns the position and `i`'s chain, for the caller to put back in `at` once done.
    fn walk(&mut self, i: u32, chain: &mut Vec<u32>) -> (Position, Vec<u32>) {
        let (mut pos, mut from) = self
            .at
            .take()
            .unwrap_or_else(|| (Position::new(self.deal), Vec::new()));
        // Climb from `i` to the first node on the line at hand (`from[d]` is its node at
        // depth `d`), so that a step costs the tree distance, not the depth: a search diving
        // on a plateau goes 100,000 positions deep.
        chain.clear();
        let mut x = i;
        let keep = loop {
            let d = self.nodes[x as usize].depth as usize;
            if from.get(d) == Some(&x) {
                break d + 1;
            }
            chain.push(x);
            let p = self.nodes[x as usize].parent;
            if p == x {
                break 0;
            }
            x = p;
        };
        for &j in from[keep..].iter().rev() {
            for &m in self.edge(j).iter().rev() {
                pos.undo(m);
            }
        }
        from.truncate(keep);
        for &j in chain.iter().rev() {
            for &m in self.edge(j) {
                pos.apply(m);
            }
            from.push(j);
        }
        (pos, from)
    }

    /// Records a position reached by `hist` from node `parent` (`g` moves from the deal),
    /// unless it cannot lead to a shorter win or was reached as cheaply before.
    fn offer(
        &mut self,
        pos: &Position,
        parent: Option<u32>,
        hist: &[Move],
        g: u32,
        last: Option<(Card, u8)>,
    ) {
        let h = pos.moves_left_bound();
        if (g + h) as usize >= self.best {
            return;
        }
        let key = pos
            .key::<W>()
            .expect("key width chosen from key_bits_bound");
        let i = self.nodes.len() as u32;
        match self.seen.entry(key) {
            Entry::Occupied(mut e) => {
                let (old_g, old) = *e.get();
                if old_g <= g {
                    return;
                }
                self.nodes[old as usize].stale = true;
                e.insert((g, i));
            }
            Entry::Vacant(e) => {
                e.insert((g, i));
            }
        }
        let depth = parent.map_or(0, |p| self.nodes[p as usize].depth + 1);
        self.nodes.push(Node {
            depth,
            parent: parent.unwrap_or(i),
            start: self.moves.len() as u32,
            len: hist.len() as u32,
            h,
            last,
            stale: false,
        });
        self.moves.extend_from_slice(hist);
        let mut f = self.eval.f(pos, g, h, self.piles);
        if self.eval.novelty > 0 && !self.novel(pos, h) {
            f += self.eval.novelty;
        }
        let tie = if self.eval.fifo {
            u32::MAX - i
        } else if self.eval.tie_seed != 0 {
            let mut h = (u64::from(i) ^ self.eval.tie_seed).wrapping_mul(0xff51_afd7_ed55_8ccd);
            h ^= h >> 33;
            (h.wrapping_mul(0xc4ce_b9fe_1a85_ec53) >> 32) as u32
        } else {
            0
        };
        self.queue.push((Reverse(f), tie, g, i));
    }

    /// True when `pos` makes some atom true for the first time among the positions with
    /// bound `h` this pass has reached; records its atoms. An atom is a card lying directly
    /// on a given card or at the bottom of a pile (with two decks, on either copy: the atoms
    /// name cards by suit and rank).
    fn novel(&mut self, pos: &Position, h: u32) -> bool {
        let base = h as usize * ATOM_WORDS;
        if self.atoms.len() < base + ATOM_WORDS {
            self.atoms.resize(base + ATOM_WORDS, 0);
        }
        let mut new = false;
        for p in 0..pos.piles() {
            let mut below = BOTTOM;
            for &c in pos.pile(p) {
                let card = c.index();
                let a = below * 52 + card;
                let (w, bit) = (base + a / 64, 1u64 << (a % 64));
                new |= self.atoms[w] & bit == 0;
                self.atoms[w] |= bit;
                below = card;
            }
        }
        new
    }

    /// Bytes in use, roughly (see the module docs).
    pub(super) fn bytes(&self) -> usize {
        self.nodes.len() * BYTES_PER_NODE + self.atoms.len() * 8
    }

    /// Expands up to `budget` more positions (stopping at the first win if `first`); the
    /// wins go to [`Pass::win`], the count to [`Pass::expanded`].
    pub(super) fn run(&mut self, budget: u64, limits: PassLimits<'_>, first: bool) -> End<()> {
        let mut hist = Vec::new();
        if !self.started {
            self.started = true;
            let mut pos = Position::new(self.deal);
            autoplay(&mut pos, self.prune, false, &mut hist);
            if pos.is_won() {
                if hist.len() < self.best {
                    self.best = hist.len();
                    self.win = Some(hist);
                }
                return End::Exhausted;
            }
            self.offer(&pos, None, &hist, hist.len() as u32, None);
        }
        let end = self.expanded.saturating_add(budget);
        let mut list = MoveList::default();
        let mut chain = Vec::new();
        // The moves to try, each a chain (one move each but with `relocate`): chain `k`
        // ends at `ends[k]`.
        let mut chains: Vec<Move> = Vec::new();
        let mut ends: Vec<u32> = Vec::new();
        while let Some(&(_, _, g, i)) = self.queue.peek() {
            if self.expanded >= end {
                return End::Cut(Limit::Nodes);
            }
            if self.bytes() > limits.memory {
                return End::Cut(Limit::Memory);
            }
            if self.expanded & 0xFFF == 0 && limits.clock.out_of_time() {
                return End::Cut(limits.clock.cut());
            }
            self.queue.pop();
            let node = &self.nodes[i as usize];
            // Reached more cheaply since, or no longer able to beat a win found since.
            if node.stale || (g + node.h) as usize >= self.best {
                continue;
            }
            let last = node.last;
            let (mut pos, at) = self.walk(i, &mut chain);
            self.expanded += 1;
            if self.eval.relocate {
                pos.relocation_moves(&mut chains, &mut ends);
            } else {
                pos.generate(self.prune, 0, last, &mut list);
                chains.clear();
                chains.extend(list.iter());
                ends.clear();
                ends.extend(1..=chains.len() as u32);
            }
            let mut from = 0;
            for &end in &ends {
                let steps = &chains[from as usize..end as usize];
                from = end;
                hist.clear();
                for &m in steps {
                    pos.play(m, &mut hist);
                }
                autoplay(&mut pos, self.prune, false, &mut hist);
                let child_g = g + hist.len() as u32;
                if pos.is_won() {
                    if (child_g as usize) < self.best {
                        let line = self.line(i, &hist);
                        debug_assert_eq!(line.len(), child_g as usize);
                        self.best = line.len();
                        self.win = Some(line);
                    }
                } else {
                    let moved = match steps {
                        [m] => moved_card(*m, hist.len()),
                        _ => None,
                    };
                    self.offer(&pos, Some(i), &hist, child_g, moved);
                }
                for &u in hist.iter().rev() {
                    pos.undo(u);
                }
            }
            self.at = Some((pos, at));
            if first && self.win.is_some() {
                return End::Won(());
            }
        }
        End::Exhausted
    }
}

#[cfg(test)]
mod tests {
    use super::{Eval, Pass};
    use crate::deal::Deal;
    use crate::moves::{MoveList, FOUNDATION};
    use crate::rules::Variant;
    use crate::state::{Position, Pruning};

    /// A position is novel the first time its atoms meet its bound, and not again there; a
    /// move that puts a card somewhere new makes it novel again; another bound is a fresh
    /// partition.
    #[test]
    fn a_position_is_novel_once_per_bound_until_a_card_lands_somewhere_new() {
        let deal = Deal::from_seed(Variant::StreetsAndAlleys.rules(), 1);
        let eval = Eval {
            left: 10,
            novelty: 100_000,
            ..Eval::default()
        };
        let mut pass = Pass::<3>::new(&deal, Pruning::default(), 10, usize::MAX).with_eval(eval);
        let mut pos = Position::new(&deal);
        assert!(pass.novel(&pos, 40));
        assert!(!pass.novel(&pos, 40));
        assert!(pass.novel(&pos, 41));
        let mut list = MoveList::default();
        pos.generate(Pruning::default(), 0, None, &mut list);
        let m = list
            .iter()
            .find(|m| m.to != FOUNDATION && !pos.pile(usize::from(m.to)).is_empty())
            .expect("a deal of streets-and-alleys has a move onto a card");
        pos.apply(m);
        assert!(pass.novel(&pos, 40), "{m:?} puts a card on a new card");
        assert!(!pass.novel(&pos, 40));
        pos.undo(m);
        assert!(!pass.novel(&pos, 40));
    }
}
