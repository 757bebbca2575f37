//! The portfolio: several best-first passes ([`super::bestfirst`]), each ranking positions
//! by its own evaluation, run side by side between the depth-first attempts. A deal whose
//! wins one evaluation steers away from is often won at once by another (fc-solve's
//! "conspiracy theory" preset runs 23 searches side by side for that reason). Each member
//! only ever reports a win, which the checker replays like any; the complete depth-first
//! search stays the only source of `unsolvable`, so no verdict depends on anything here.
//!
//! The members and their shares are chosen by measurement ([`Member`] has the figures);
//! the schedule ([`super::schedule`]) gives the portfolio a slice of each long attempt's
//! nodes, which the members share in turn, and a share of `--memory`, split evenly among
//! them; a member that fills its share stops and gives its bytes to the table. With more
//! than one thread the members of a slice run at once, one per thread.

use super::bestfirst::{Eval, Pass, PassLimits, Stop};
use crate::deal::Deal;
use crate::moves::Move;
use crate::state::Pruning;

/// A member of the portfolio: a best-first pass with one evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Member {
    /// Weighted A\*, `f = g + 5 h` with `h` the bound on the moves left (the best-first
    /// phase castle had alone before the portfolio).
    Bound,
    /// Greedy on the cards still out, those lying above a lower card, and the digging
    /// towards the next cards home; empty piles count in its favour.
    Disorder,
    /// Greedy on the digging towards the next cards home, then the bound.
    Dig,
    /// Weighted A\* with a heavier weight, `f = g/5 + 5 h`: nearly greedy on the bound.
    Greedy,
}

impl Member {
    /// Every member, in the order they take turns.
    pub const ALL: [Member; 4] = [Member::Bound, Member::Disorder, Member::Dig, Member::Greedy];

    /// The name used in every output (the JSON report's `phase`).
    pub const fn name(self) -> &'static str {
        match self {
            Member::Bound => "best-first",
            Member::Disorder => "disorder",
            Member::Dig => "dig",
            Member::Greedy => "greedy",
        }
    }

    /// The member of this name (or of its short name without the `best-first` prefix).
    pub fn from_name(name: &str) -> Option<Member> {
        Member::ALL
            .into_iter()
            .find(|m| m.name() == name || (name == "bound" && *m == Member::Bound))
    }

    /// Its evaluation for `deal` (stock games also charge each waste card: see
    /// [`WASTE_GUIDE`]).
    pub fn eval(self, deal: &Deal) -> Eval {
        let mut e = match self {
            Member::Bound => Eval::bound(50),
            Member::Disorder => Eval {
                g: 2,
                left: 30,
                disorder: 20,
                dig: 5,
                full: 20,
                ..Eval::default()
            },
            Member::Dig => Eval {
                g: 5,
                bound: 20,
                dig: 15,
                full: 10,
                ..Eval::default()
            },
            Member::Greedy => Eval {
                g: 2,
                bound: 50,
                ..Eval::default()
            },
        };
        if deal.rules.stock {
            e.waste = WASTE_GUIDE;
        }
        e
    }
}

/// What each waste card adds to `f` in a stock game, in tenths of a move. `h` counts a stock
/// card as a move still needed, so with weight 5 a deal lowers `f` by four moves' worth, as
/// much as a card going home: the phase deals the stock out early and buries the waste, where
/// a one-pass game (courtyard) loses its cards. Charging each waste card 8 moves makes a deal
/// cost more than it gains and playing the waste's top card elsewhere pay. Courtyard seeds
/// 201..400, `castle batch -v courtyard --seeds 201..400 -j 1 --max-nodes 300000` with the
/// best-first member alone: 106 wins found with no charge, 129 with 7 or 10 moves per card, 133
/// with this 8, 119 with 13; seeds 1..200 with `--max-nodes 3000000`: 117 with no charge, 140
/// with 8. The portfolio only ever reports a win, so no verdict rests on this.
pub const WASTE_GUIDE: u32 = 80;

/// A set of members (bit `i`: [`Member::ALL`]`[i]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Members(pub u16);

impl Members {
    /// Every member.
    pub const ALL: Members = Members((1 << Member::ALL.len()) - 1);
    /// The best-first member alone (castle's search before the portfolio).
    pub const BOUND: Members = Members(1);

    /// The members in the set, in turn order.
    pub fn iter(self) -> impl Iterator<Item = Member> {
        Member::ALL
            .into_iter()
            .enumerate()
            .filter(move |(i, _)| self.0 >> i & 1 == 1)
            .map(|(_, m)| m)
    }

    /// Parses a comma-separated list of member names (`all` for every one).
    ///
    /// # Errors
    /// The name that is not a member's.
    pub fn parse(list: &str) -> Result<Members, String> {
        let mut set = 0u16;
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if name == "all" {
                set |= Members::ALL.0;
                continue;
            }
            let i = Member::ALL
                .iter()
                .position(|m| Some(*m) == Member::from_name(name))
                .ok_or_else(|| name.to_string())?;
            set |= 1 << i;
        }
        Ok(Members(set))
    }
}

/// Why [`Portfolio::run`] returned.
pub(super) enum Turn {
    /// A member won: its line.
    Won(Vec<Move>, Member),
    /// The slice was spent; the portfolio can go on.
    Budget,
    /// The deadline passed.
    Deadline,
}

/// The members of one solve, each a pass that runs a slice at a time.
pub(super) struct Portfolio<'a, const W: usize> {
    passes: Vec<(Member, Pass<'a, W>)>,
    /// Bytes each member may take.
    share: usize,
    /// Positions expanded by every member so far.
    pub(super) expanded: u64,
}

impl<'a, const W: usize> Portfolio<'a, W> {
    /// The members of `set` for `deal`, sharing `bytes` evenly.
    pub(super) fn new(deal: &'a Deal, prune: Pruning, set: Members, bytes: usize) -> Self {
        let passes: Vec<_> = set
            .iter()
            .map(|m| {
                let pass = Pass::new(deal, prune, 50, usize::MAX).with_eval(m.eval(deal));
                (m, pass)
            })
            .collect();
        let share = bytes / passes.len().max(1);
        Portfolio {
            passes,
            share,
            expanded: 0,
        }
    }

    /// True when every member has stopped (out of room or out of positions).
    pub(super) fn is_done(&self) -> bool {
        self.passes.is_empty()
    }

    /// Runs a slice of `nodes` positions, split evenly among the members (at once on `pool`
    /// when there is one). Returns why it stopped and the bytes of the members that stopped
    /// for good (out of room, or out of positions), for the table.
    pub(super) fn run(
        &mut self,
        nodes: u64,
        deadline: Option<std::time::Instant>,
        pool: Option<&rayon::ThreadPool>,
    ) -> (Turn, usize) {
        let each = (nodes / self.passes.len().max(1) as u64).max(1);
        let limits = PassLimits {
            nodes: u64::MAX,
            memory: self.share,
            deadline,
        };
        let before: u64 = self.passes.iter().map(|(_, p)| p.expanded).sum();
        let stops: Vec<Stop> = match pool {
            Some(pool) if self.passes.len() > 1 => pool.install(|| {
                use rayon::prelude::*;
                self.passes
                    .par_iter_mut()
                    .map(|(_, p)| p.run(each, limits, true))
                    .collect()
            }),
            _ => {
                let mut stops = Vec::with_capacity(self.passes.len());
                for (_, p) in &mut self.passes {
                    let stop = p.run(each, limits, true);
                    stops.push(stop);
                    // One member's win ends the slice.
                    if stop == Stop::Won {
                        break;
                    }
                }
                stops
            }
        };
        let after: u64 = self.passes.iter().map(|(_, p)| p.expanded).sum();
        self.expanded += after - before;
        // The first member (in turn order) that won.
        if let Some(i) = stops.iter().position(|s| *s == Stop::Won) {
            let (m, p) = &mut self.passes[i];
            let line = p.win.take().expect("a win with Stop::Won");
            return (Turn::Won(line, *m), 0);
        }
        if stops.contains(&Stop::Deadline) {
            return (Turn::Deadline, 0);
        }
        // Out of room, or (a search that keeps every position it reaches) out of positions
        // without a win: that member is done, and its bytes go to the table.
        let mut freed = 0;
        let mut i = 0;
        self.passes.retain(|_| {
            let done = matches!(stops.get(i), Some(Stop::Full | Stop::Exhausted));
            i += 1;
            if done {
                freed += self.share;
            }
            !done
        });
        (Turn::Budget, freed)
    }
}

/// Runs one member alone from the deal for at most `nodes` positions within `memory` bytes:
/// the win it found, if any, and the positions it expanded. For measuring the members
/// (`examples/portfolio.rs`); the line is checked by the caller.
pub fn run_alone(
    deal: &Deal,
    member: Member,
    nodes: u64,
    memory: usize,
) -> (Option<Vec<Move>>, u64) {
    fn go<const W: usize>(
        deal: &Deal,
        member: Member,
        nodes: u64,
        memory: usize,
    ) -> (Option<Vec<Move>>, u64) {
        let mut p =
            Pass::<W>::new(deal, Pruning::default(), 50, usize::MAX).with_eval(member.eval(deal));
        let limits = PassLimits {
            nodes: u64::MAX,
            memory,
            deadline: None,
        };
        p.run(nodes, limits, true);
        (p.win.take(), p.expanded)
    }
    if crate::state::Position::new(deal).key_bits_bound() <= 192 {
        go::<3>(deal, member, nodes, memory)
    } else {
        go::<4>(deal, member, nodes, memory)
    }
}
