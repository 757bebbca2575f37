//! The portfolio: several best-first passes ([`super::bestfirst`]), each ranking positions
//! by its own evaluation, and a swarm of randomized depth-first searches ([`super::swarm`]),
//! run side by side between the depth-first attempts. A deal whose
//! wins one evaluation steers away from is often won at once by another (fc-solve's
//! "conspiracy theory" preset runs 23 searches side by side for that reason). Each member
//! only ever reports a win, which the checker replays like any; the complete depth-first
//! search stays the only source of `unsolvable`, so no verdict depends on anything here.
//!
//! The members and their shares are chosen by measurement ([`Member`] has the figures);
//! the schedule ([`super::schedule`]) gives the portfolio a slice of each long attempt's
//! nodes, which the members share in turn, and a share of `--memory`, split evenly among
//! them; the members that keep every position they reach also borrow the room the table has
//! not taken yet (see `plan::LOAN_PART`), and give it back, stopping, when the table or
//! the quotient needs it. A member that fills what it may hold stops and gives its bytes
//! to the table. With more
//! than one thread the members of a slice run at once, one per thread.

use super::bestfirst::{Clock, Eval, Pass, PassLimits};
use super::luby::luby;
pub use super::member::{Member, Members, RELOCATE_RESTART_NODES, RESTART_NODES};
use super::plan::MemberPlan;
use super::swarm::Swarm;
use super::table::Table;
use super::{End, Limit};
use crate::deal::Deal;
use crate::moves::Move;
use crate::state::Pruning;

impl Member {
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
            Member::Home => Eval {
                left: 10,
                fifo: true,
                ..Eval::default()
            },
            Member::Restarts => Eval {
                left: 10,
                tie_seed: 1,
                ..Eval::default()
            },
            Member::Relocate => Eval {
                left: 10,
                tie_seed: 1,
                relocate: true,
                ..Eval::default()
            },
            Member::Novelty => Eval {
                left: 10,
                // Above any sum of the other terms: 104 cards out at most (1,040), and in a
                // stock game 92 waste cards at WASTE_GUIDE (7,360).
                novelty: 100_000,
                relocate: true,
                ..Eval::default()
            },
            Member::Greedy | Member::Swarm | Member::RelocateSwarm => Eval {
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

    /// Its evaluation for `deal` with its tie seed drawn under `salt` ([`salted`]): at salt 0
    /// [`Member::eval`] itself; otherwise every member breaks its ties at random, the plain
    /// ones too.
    pub fn salted_eval(self, deal: &Deal, salt: u64) -> Eval {
        let mut e = self.eval(deal);
        e.tie_seed = salted(e.tie_seed, salt);
        e
    }
}

/// The seed of the swarms' random orders at salt 0.
const SWARM_SEED: u64 = 0x5EED;

/// A random draw's seed under a solve's salt ([`crate::solver::Solver::salt`]): `seed`
/// itself at salt 0, so the default solve is the same search node for node; otherwise a seed
/// mixed from both, never 0 (a tie seed of 0 means no random ties). The salt only moves the
/// portfolio's draws (its swarms' orders, its members' ties) and the swarm beside the
/// schedule; those searches only ever report a win, which is replayed, so no salt can change
/// a verdict. What it is for: a search cut by a budget and run again with the same budget is
/// the same search again; with another salt it walks other lines.
pub fn salted(seed: u64, salt: u64) -> u64 {
    if salt == 0 {
        return seed;
    }
    let mut h =
        (seed ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h.max(1)
}

/// What each waste card adds to `f` in a stock game, in tenths of a move. The portfolio only
/// ever reports a win, so no verdict rests on it (performance log, "The schedule's
/// constants", WASTE_GUIDE).
pub const WASTE_GUIDE: u32 = 80;

/// Depth-first searches in the swarm member (fc-solve's `ct` runs 23 soft threads, most of
/// them random depth-first searches).
pub const SWARM_SEARCHES: usize = 24;

/// The search a member runs, a slice at a time.
enum Runner<'a, const W: usize> {
    Pass(Box<Pass<'a, W>>),
    Swarm(Box<Swarm<W>>),
    /// A restarted member ([`Member::Restarts`], [`Member::Relocate`]): its pass now, and
    /// what it takes to draw the next.
    Restarts(Box<Restarted<'a, W>>),
}

/// A greedy pass with random tie-breaks, restarted with a new draw of the ties after its
/// member's shortest run ([`Member::restart_nodes`]) times the next term of Luby's sequence.
struct Restarted<'a, const W: usize> {
    pass: Pass<'a, W>,
    member: Member,
    /// Its shortest run.
    unit: u64,
    deal: &'a Deal,
    /// The solve's salt (see [`salted`]).
    salt: u64,
    /// Runs so far (the current one's tie seed).
    runs: u64,
    /// Positions the current run has left.
    left: u64,
}

impl<'a, const W: usize> Restarted<'a, W> {
    fn new(deal: &'a Deal, prune: Pruning, member: Member, unit: u64, salt: u64) -> Self {
        Restarted {
            pass: Pass::new(deal, prune, 50, usize::MAX).with_eval(member.salted_eval(deal, salt)),
            member,
            unit,
            deal,
            salt,
            runs: 1,
            left: unit,
        }
    }

    fn run(&mut self, nodes: u64, limits: PassLimits<'_>) -> End<()> {
        let mut nodes = nodes;
        loop {
            let before = self.pass.expanded;
            let stop = self.pass.run(nodes.min(self.left), limits, true);
            let spent = self.pass.expanded - before;
            nodes -= spent.min(nodes);
            self.left -= spent.min(self.left);
            match stop {
                End::Won(()) | End::Exhausted | End::Cut(Limit::Seconds | Limit::Stopped) => {
                    return stop
                }
                End::Cut(Limit::Memory) | End::Cut(Limit::Nodes)
                    if self.left == 0 || stop == End::Cut(Limit::Memory) =>
                {
                    // A new draw of the ties, run for the next term of Luby's sequence.
                    self.runs += 1;
                    let mut eval = self.member.eval(self.deal);
                    eval.tie_seed = salted(self.runs, self.salt);
                    self.pass.restart(eval);
                    self.left = self.unit * luby(self.runs);
                }
                // (A pass keeps nothing on disk: `Disk` never ends it.)
                End::Cut(Limit::Memory | Limit::Nodes | Limit::Disk) => {}
            }
            if nodes == 0 {
                return End::Cut(Limit::Nodes);
            }
        }
    }
}

impl<'a, const W: usize> Runner<'a, W> {
    fn new(deal: &'a Deal, prune: Pruning, m: MemberPlan, salt: u64) -> Self {
        let seed = salted(SWARM_SEED, salt);
        match m.member {
            Member::Swarm => Runner::Swarm(Box::new(Swarm::new(deal, prune, SWARM_SEARCHES, seed))),
            Member::RelocateSwarm => Runner::Swarm(Box::new(
                Swarm::new(deal, prune, SWARM_SEARCHES, seed)
                    .relocating()
                    .sharing(),
            )),
            Member::Restarts | Member::Relocate => Runner::Restarts(Box::new(Restarted::new(
                deal,
                prune,
                m.member,
                m.restart_nodes,
                salt,
            ))),
            member => Runner::Pass(Box::new(
                Pass::new(deal, prune, 50, usize::MAX).with_eval(member.salted_eval(deal, salt)),
            )),
        }
    }

    fn run(&mut self, nodes: u64, limits: PassLimits<'_>, proved: Option<&Table<W>>) -> End<()> {
        match self {
            Runner::Pass(p) => p.run(nodes, limits, true),
            Runner::Swarm(s) => s.run(nodes, limits, proved),
            Runner::Restarts(r) => r.run(nodes, limits),
        }
    }

    /// A swarm starts afresh, holding nothing (see [`Swarm::restart`]): true. Any other
    /// search cannot give back what it holds without walking the same positions again: false.
    fn start_afresh(&mut self) -> bool {
        match self {
            Runner::Swarm(swarm) => {
                swarm.restart();
                true
            }
            _ => false,
        }
    }

    fn expanded(&self) -> u64 {
        match self {
            Runner::Pass(p) => p.expanded,
            Runner::Swarm(s) => s.expanded,
            Runner::Restarts(r) => r.pass.expanded,
        }
    }

    /// True for a search that keeps every position it reaches (a best-first pass, a swarm):
    /// such a member may borrow room from the table past its share. A restarted member
    /// starts afresh within its share instead.
    fn borrows(&self) -> bool {
        !matches!(self, Runner::Restarts(_))
    }

    /// Bytes it holds, as its memory limit counts them.
    fn bytes(&self) -> usize {
        match self {
            Runner::Pass(p) => p.bytes(),
            Runner::Swarm(s) => s.bytes(),
            Runner::Restarts(r) => r.pass.bytes(),
        }
    }

    /// Runs the search alone from the deal for at most `nodes` positions within `memory`
    /// bytes, until it wins or `clock` stops it: the win, if any, and the positions expanded.
    /// A swarm that fills `memory` starts afresh ([`Swarm::restart`]); any other search out
    /// of room stops there, and so does a swarm full before its first position (it would
    /// start afresh for ever).
    fn alone(mut self, nodes: u64, memory: usize, clock: Clock<'_>) -> (Option<Vec<Move>>, u64) {
        let limits = PassLimits {
            nodes: u64::MAX,
            memory,
            clock,
        };
        loop {
            let before = self.expanded();
            let left = nodes.saturating_sub(before);
            if left == 0
                || self.run(left, limits, None) != End::Cut(Limit::Memory)
                || self.expanded() == before
                || !self.start_afresh()
            {
                break;
            }
        }
        (self.take_win(), self.expanded())
    }

    fn take_win(&mut self) -> Option<Vec<Move>> {
        match self {
            Runner::Pass(p) => p.win.take(),
            Runner::Swarm(s) => s.win.take(),
            Runner::Restarts(r) => r.pass.win.take(),
        }
    }
}

/// The members of one solve, each a search that runs a slice at a time.
pub(super) struct Portfolio<'a, const W: usize> {
    seats: Vec<Seat<'a, W>>,
    /// Bytes given to rooms of their own, outside the portfolio's part (see
    /// [`Portfolio::new`]).
    pub(super) own: usize,
    /// Positions expanded by every member so far.
    pub(super) expanded: u64,
}

/// A member, its search, its room, and the bytes it holds past its share, borrowed from the
/// table.
struct Seat<'a, const W: usize> {
    member: Member,
    /// Its share of a slice, in [`Member::SHARES`] parts of the unit.
    nodes_share: u64,
    runner: Runner<'a, W>,
    /// Bytes it may take of its own.
    share: usize,
    /// Most bytes it may hold, its share and its loan together (see [`Portfolio::run`]).
    most: usize,
    loan: usize,
}

/// What a slice did to the portfolio's memory: bytes to give back to the table (the
/// shares and loans of the members that stopped), and the new loans taken from it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Bytes {
    pub(super) freed: usize,
    pub(super) borrowed: usize,
}

impl<'a, const W: usize> Portfolio<'a, W> {
    /// The members of the plan's `rows` for `deal`, sharing `bytes` evenly; a member may
    /// hold at most all of `bytes` with what it borrows. With `own` > 0 the relocating swarm
    /// (if a member) has `own` bytes of its own instead, outside `bytes`, and may hold no
    /// more (see the plan's `swarm_part`); [`Portfolio::own`] says what was given so.
    pub(super) fn new(
        deal: &'a Deal,
        prune: Pruning,
        rows: &[MemberPlan],
        bytes: usize,
        own: usize,
        salt: u64,
    ) -> Self {
        let apart = |m: Member| own > 0 && m == Member::RelocateSwarm;
        let even = rows.iter().filter(|r| !apart(r.member)).count().max(1);
        let seats: Vec<_> = rows
            .iter()
            .map(|&row| {
                let (share, most) = if apart(row.member) {
                    (own, own)
                } else {
                    (bytes / even, bytes)
                };
                Seat {
                    member: row.member,
                    nodes_share: row.share,
                    runner: Runner::new(deal, prune, row, salt),
                    share,
                    most,
                    loan: 0,
                }
            })
            .collect();
        let own = if rows.iter().any(|r| apart(r.member)) {
            own
        } else {
            0
        };
        Portfolio {
            seats,
            own,
            expanded: 0,
        }
    }

    /// True when every member has stopped (out of room or out of positions).
    pub(super) fn is_done(&self) -> bool {
        self.seats.is_empty()
    }

    /// Bytes the members hold on loan from the table.
    pub(super) fn loans(&self) -> usize {
        self.seats.iter().map(|s| s.loan).sum()
    }

    /// Takes back every loan and returns the bytes, for the table: called when the table or
    /// the quotient needs the room. A search that keeps its positions cannot give some back:
    /// a swarm starts afresh (see `Swarm::restart`) and keeps its seat and share, any other
    /// member holding a loan stops and gives its share back too.
    pub(super) fn recall(&mut self) -> usize {
        let mut freed = 0;
        self.seats.retain_mut(|s| {
            if s.loan == 0 {
                return true;
            }
            freed += s.loan;
            s.loan = 0;
            if s.runner.start_afresh() {
                return true;
            }
            freed += s.share;
            false
        });
        freed
    }

    /// Nodes a slice of `unit` would take: each member's [`Member::share`] of it.
    pub(super) fn slice_nodes(&self, unit: u64) -> u64 {
        self.seats
            .iter()
            .map(|s| unit * s.nodes_share / Member::SHARES)
            .sum()
    }

    /// Runs a slice: each member expands its [`Member::share`] of `unit` positions, and no
    /// more than the `cap` all together allow, in proportion (at once on `pool` when there is
    /// one). The members that keep every position they reach ([`Runner::borrows`]) may grow
    /// past their share by `lend` bytes between them, split evenly, up to [`Portfolio::most`]
    /// each. Returns how the slice ended (a member's win with its line and name; cut by
    /// `Nodes` when the slice was spent, by the clock's limit when time ran out; never
    /// `Exhausted`), and the bytes of the members that stopped for good (out of room, or out
    /// of positions) and the new loans, for the table.
    pub(super) fn run(
        &mut self,
        unit: u64,
        cap: Option<u64>,
        clock: Clock<'_>,
        pool: Option<&rayon::ThreadPool>,
        proved: Option<&Table<W>>,
        lend: usize,
    ) -> (End<(Vec<Move>, Member)>, Bytes) {
        let total = self.slice_nodes(unit).max(1);
        let nodes = |share: u64| {
            let want = unit * share / Member::SHARES;
            let n = match cap {
                Some(c) if c < total => {
                    (u128::from(want) * u128::from(c) / u128::from(total)) as u64
                }
                _ => want,
            };
            n.max(1)
        };
        let borrowers = self.seats.iter().filter(|s| s.runner.borrows()).count();
        let extra = lend / borrowers.max(1);
        let limits = |s: &Seat<'a, W>| PassLimits {
            nodes: u64::MAX,
            memory: if s.runner.borrows() {
                (s.share + s.loan)
                    .saturating_add(extra)
                    .min(s.most)
                    .max(s.share + s.loan)
            } else {
                s.share
            },
            clock,
        };
        let before: u64 = self.seats.iter().map(|s| s.runner.expanded()).sum();
        let mut stops: Vec<End<()>> = match pool {
            Some(pool) if self.seats.len() > 1 => pool.install(|| {
                use rayon::prelude::*;
                self.seats
                    .par_iter_mut()
                    .map(|s| match nodes(s.nodes_share) {
                        0 => End::Cut(Limit::Nodes),
                        n => {
                            let l = limits(s);
                            s.runner.run(n, l, proved)
                        }
                    })
                    .collect()
            }),
            _ => {
                let mut stops = Vec::with_capacity(self.seats.len());
                for s in &mut self.seats {
                    let stop = match nodes(s.nodes_share) {
                        0 => End::Cut(Limit::Nodes),
                        n => {
                            let l = limits(s);
                            s.runner.run(n, l, proved)
                        }
                    };
                    stops.push(stop);
                    // One member's win ends the slice.
                    if stop == End::Won(()) {
                        break;
                    }
                }
                stops
            }
        };
        let after: u64 = self.seats.iter().map(|s| s.runner.expanded()).sum();
        self.expanded += after - before;
        // The first member (in turn order) that won.
        if let Some(i) = stops.iter().position(|s| *s == End::Won(())) {
            let s = &mut self.seats[i];
            let line = s
                .runner
                .take_win()
                .expect("a member that won holds its line");
            return (End::Won((line, s.member)), Bytes::default());
        }
        // What the members now hold past their shares is on loan (a search that keeps its
        // positions never shrinks, so a loan only grows).
        let mut bytes = Bytes::default();
        for s in self.seats.iter_mut().filter(|s| s.runner.borrows()) {
            let loan = s.runner.bytes().saturating_sub(s.share).max(s.loan);
            bytes.borrowed += loan - s.loan;
            s.loan = loan;
        }
        if stops.iter().any(End::out_of_time) {
            return (End::Cut(clock.cut()), bytes);
        }
        // A swarm out of room starts afresh with new random orders (see `Swarm::restart`):
        // what it borrowed goes back to the table, and it keeps its seat.
        for (s, stop) in self.seats.iter_mut().zip(stops.iter_mut()) {
            if *stop == End::Cut(Limit::Memory) && s.runner.start_afresh() {
                bytes.freed += s.loan;
                s.loan = 0;
                *stop = End::Cut(Limit::Nodes);
            }
        }
        // Out of room, or (a search that keeps every position it reaches) out of positions
        // without a win: that member is done, and its bytes go to the table.
        let mut i = 0;
        self.seats.retain(|s| {
            let done = matches!(stops.get(i), Some(End::Cut(Limit::Memory) | End::Exhausted));
            i += 1;
            if done {
                bytes.freed += s.share + s.loan;
            }
            !done
        });
        (End::Cut(Limit::Nodes), bytes)
    }
}

/// A relocating swarm of its own ([`Member::RelocateSwarm`]'s search, its random orders
/// drawn from `seed`), run from the deal within `memory` bytes until it wins or `clock`
/// stops it: the thread of the quotient beside the schedule runs it once the quotient is out
/// of room (see `schedule::BESIDE_SWARM_SEED`). A full room starts it afresh with new orders,
/// as in the portfolio ([`Swarm::restart`]); a swarm out of positions, or full before its
/// first position, ends. Returns the win (replayed by the solve's checker like every win) and
/// the positions expanded. It only ever reports a win, so it can only turn `unknown` into a
/// checked win.
pub(super) fn swarm_alone<const W: usize>(
    deal: &Deal,
    prune: Pruning,
    seed: u64,
    memory: usize,
    clock: Clock<'_>,
) -> (Option<Vec<Move>>, u64) {
    let swarm = Swarm::<W>::new(deal, prune, SWARM_SEARCHES, seed)
        .relocating()
        .sharing();
    Runner::Swarm(Box::new(swarm)).alone(u64::MAX, memory, clock)
}

/// Runs one member alone from the deal for at most `nodes` positions within `memory` bytes:
/// the win it found, if any, and the positions it expanded. A swarm that fills `memory`
/// starts afresh, as in the portfolio ([`Swarm::restart`]); any other member out of room
/// stops there. For measuring the members (`examples/portfolio.rs`); the line is checked by
/// the caller.
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
        let row = MemberPlan::default_for(member, &deal.rules);
        Runner::<W>::new(deal, Pruning::default(), row, 0).alone(nodes, memory, Clock::default())
    }
    if crate::state::Position::new(deal).key_words() == 3 {
        go::<3>(deal, member, nodes, memory)
    } else {
        go::<4>(deal, member, nodes, memory)
    }
}

#[cfg(test)]
mod tests {
    use super::{Clock, End, Limit, Member, Members, Portfolio};
    use crate::formats::{read_deal, ReadOptions};
    use crate::state::{Position, Pruning};

    /// On a lost deal (no member can win: `data/bench/hard-unsolvable.fcs`, lost by the
    /// exact search), members with a share of 4 MiB (each may hold the whole 36 MiB) offered
    /// loans: those that keep their positions grow past their share and hold exactly that
    /// excess on loan, the restarted ones borrow nothing, every byte borrowed is either still
    /// on loan or given back with a stopped member, and a recall returns every loan, and the
    /// shares of the borrowers it stops: every one but the swarms, which start afresh in
    /// their seats.
    #[test]
    fn members_borrow_what_they_hold_past_their_share_and_give_it_back() {
        let text = include_str!("../../data/bench/hard-unsolvable.fcs");
        let deal = read_deal(text, "hard-unsolvable.fcs", ReadOptions::default()).unwrap();
        assert_eq!(Position::new(&deal).key_words(), 3);
        let share = 4 << 20;
        let members = Members::ALL.iter().count();
        let mut pf = Portfolio::<3>::new(
            &deal,
            Pruning::default(),
            &Members::ALL.plans(&deal.rules),
            members * share,
            0,
            0,
        );
        let (mut borrowed, mut freed) = (0, 0);
        let mut stopped = 0;
        for _ in 0..3 {
            let before = pf.seats.len();
            let (turn, bytes) = pf.run(100_000, None, Clock::default(), None, None, 64 << 20);
            assert!(turn == End::Cut(Limit::Nodes), "a member won a lost deal");
            stopped += before - pf.seats.len();
            borrowed += bytes.borrowed;
            freed += bytes.freed;
        }
        for s in &pf.seats {
            if s.runner.borrows() {
                assert_eq!(
                    s.loan,
                    s.runner.bytes().saturating_sub(share),
                    "{:?}",
                    s.member
                );
            } else {
                assert_eq!(s.loan, 0, "{:?} borrowed", s.member);
                assert!(matches!(s.member, Member::Restarts | Member::Relocate));
            }
        }
        assert!(pf.loans() > 0, "no member grew past its share");
        assert_eq!(borrowed, pf.loans() + (freed - stopped * share));
        let loans = pf.loans();
        let is_swarm = |m: Member| matches!(m, Member::Swarm | Member::RelocateSwarm);
        let stops = pf
            .seats
            .iter()
            .filter(|s| s.loan > 0 && !is_swarm(s.member))
            .count();
        let restarting: Vec<Member> = pf
            .seats
            .iter()
            .filter(|s| s.loan > 0 && is_swarm(s.member))
            .map(|s| s.member)
            .collect();
        assert!(
            stops > 0 && !restarting.is_empty(),
            "{stops} to stop, {restarting:?}"
        );
        let seated = pf.seats.len();
        assert_eq!(pf.recall(), stops * share + loans);
        assert_eq!(pf.loans(), 0);
        assert_eq!(pf.seats.len(), seated - stops);
        for s in &pf.seats {
            if restarting.contains(&s.member) {
                assert_eq!(s.runner.bytes(), 0, "{:?} kept its set", s.member);
            }
        }
    }

    /// A swarm that fills the room it may hold keeps its seat and starts afresh (giving back
    /// what its last growth took past its share), where a best-first pass that fills its
    /// room stops for good: on a lost deal, with a share of 1 MiB each and nothing offered on
    /// loan, after a few slices both swarms are still seated and have gone on expanding far
    /// past what fits in their share, holding no more than a growth past it.
    #[test]
    fn a_full_swarm_starts_afresh_and_keeps_its_seat() {
        let text = include_str!("../../data/bench/hard-unsolvable.fcs");
        let deal = read_deal(text, "hard-unsolvable.fcs", ReadOptions::default()).unwrap();
        let set = Members::parse("swarm,relocate-swarm,bound").unwrap();
        let share = 1 << 20;
        let mut pf = Portfolio::<3>::new(
            &deal,
            Pruning::default(),
            &set.plans(&deal.rules),
            3 * share,
            0,
            0,
        );
        let mut freed = 0;
        for _ in 0..8 {
            let (turn, bytes) = pf.run(400_000, None, Clock::default(), None, None, 0);
            assert!(turn == End::Cut(Limit::Nodes), "a member won a lost deal");
            freed += bytes.freed;
        }
        let seated: Vec<Member> = pf.seats.iter().map(|s| s.member).collect();
        assert_eq!(
            seated,
            [Member::Swarm, Member::RelocateSwarm],
            "bound fills and stops"
        );
        assert!(
            freed > share,
            "the swarms gave back what they took past their share"
        );
        for s in &pf.seats {
            assert!(s.runner.bytes() <= 4 * share, "{:?}", s.member);
            // 20 bytes a position at least: a megabyte holds fewer than 53,000.
            assert!(
                s.runner.expanded() > 100_000,
                "{:?} stopped early",
                s.member
            );
        }
    }

    /// With room of its own (given only when it runs), the relocating swarm holds that room
    /// and no more, borrowing nothing however much is offered, starts afresh when it fills
    /// it, and the other members split the portfolio's part evenly: on a lost deal, 8 MiB of its own and 4 MiB each
    /// for two others, 256 MiB offered on loan each slice, 40 slices of 40,000 positions
    /// for the swarm.
    #[test]
    fn the_relocating_swarm_keeps_to_its_own_room() {
        let text = include_str!("../../data/bench/hard-unsolvable.fcs");
        let deal = read_deal(text, "hard-unsolvable.fcs", ReadOptions::default()).unwrap();
        let set = Members::parse("swarm,relocate-swarm,bound").unwrap();
        let (own, share) = (8 << 20, 4 << 20);
        let without = Members::parse("swarm,bound").unwrap();
        let pf = Portfolio::<3>::new(
            &deal,
            Pruning::default(),
            &without.plans(&deal.rules),
            2 * share,
            own,
            0,
        );
        assert_eq!(pf.own, 0, "a room given to no member");
        let mut pf = Portfolio::<3>::new(
            &deal,
            Pruning::default(),
            &set.plans(&deal.rules),
            2 * share,
            own,
            0,
        );
        assert_eq!(pf.own, own);
        let rooms: Vec<(Member, usize, usize)> = pf
            .seats
            .iter()
            .map(|s| (s.member, s.share, s.most))
            .collect();
        assert_eq!(
            rooms,
            [
                (Member::Bound, share, 2 * share),
                (Member::Swarm, share, 2 * share),
                (Member::RelocateSwarm, own, own),
            ]
        );
        let mut most = 0;
        for _ in 0..40 {
            let (turn, _) = pf.run(10_000, None, Clock::default(), None, None, 256 << 20);
            assert!(turn == End::Cut(Limit::Nodes), "a member won a lost deal");
            let rs = pf.seats.iter().find(|s| s.member == Member::RelocateSwarm);
            let rs = rs.expect("the relocating swarm keeps its seat");
            assert_eq!(rs.loan, 0, "it borrowed");
            assert!(rs.runner.bytes() <= own, "{} bytes held", rs.runner.bytes());
            most = most.max(rs.runner.bytes());
        }
        let rs = pf.seats.iter().find(|s| s.member == Member::RelocateSwarm);
        // 20 bytes a position at least: 8 MiB holds fewer than 420,000.
        let n = rs.map(|s| s.runner.expanded());
        assert!(n > Some(1_000_000), "{n:?} expanded, {most} bytes at most");
        assert!(
            most > own / 4,
            "it never used its room: {most} bytes at most"
        );
    }

    /// A raised stop flag ends a slice as the deadline does, before any member wins (the
    /// schedule then ends the solve with `Limit::Stopped`); with the flag down the same
    /// slice on a lost deal runs its budget.
    #[test]
    fn a_raised_stop_flag_ends_the_slice() {
        use std::sync::atomic::AtomicBool;
        let text = include_str!("../../data/bench/hard-unsolvable.fcs");
        let deal = read_deal(text, "hard-unsolvable.fcs", ReadOptions::default()).unwrap();
        let mut pf = Portfolio::<3>::new(
            &deal,
            Pruning::default(),
            &Members::ALL.plans(&deal.rules),
            64 << 20,
            0,
            0,
        );
        let raised = AtomicBool::new(true);
        let clock = Clock {
            deadline: None,
            stop: Some(&raised),
        };
        let (turn, _) = pf.run(100_000, None, clock, None, None, 0);
        assert!(turn.out_of_time());
        let down = AtomicBool::new(false);
        let clock = Clock {
            deadline: None,
            stop: Some(&down),
        };
        let (turn, _) = pf.run(10_000, None, clock, None, None, 0);
        assert!(turn == End::Cut(Limit::Nodes));
    }

    /// A salt of 0 is the usual search (`salted` gives the seed back), any other a new draw,
    /// never 0 (no random ties). Salted, each member is another search: on streets-and-alleys
    /// deals 1..=6, of the members that win within 100,000 positions with salt 0 or 1, most
    /// take a different number of positions at salt 1, every line replays, and the members
    /// without random draws of their own (the plain best-first ones) are among those that
    /// change.
    #[test]
    fn another_salt_is_another_search_for_a_win() {
        use super::{salted, Runner};
        use crate::check::{check_win, steps_of};
        use crate::deal::Deal;
        use crate::rules::Variant;
        for seed in [0, 1, 0x5EED, u64::MAX] {
            assert_eq!(salted(seed, 0), seed);
            for salt in [1, 2, 77, u64::MAX] {
                assert_ne!(salted(seed, salt), 0);
                assert_ne!(salted(seed, salt), salted(seed, salt.wrapping_add(1)));
            }
        }
        let (mut won, mut differ, mut plain_differ) = (0, 0, 0);
        for n in 1..=6 {
            let deal = Deal::from_seed(Variant::StreetsAndAlleys.rules(), n);
            assert_eq!(Position::new(&deal).key_words(), 3);
            for m in Member::ALL {
                let run = |salt| {
                    Runner::<3>::new(
                        &deal,
                        Pruning::default(),
                        super::super::plan::MemberPlan::default_for(m, &deal.rules),
                        salt,
                    )
                    .alone(100_000, 64 << 20, Clock::default())
                };
                let (a, b) = (run(0), run(1));
                for line in [&a.0, &b.0].into_iter().flatten() {
                    check_win(&deal, &steps_of(line)).unwrap();
                }
                if a.0.is_none() && b.0.is_none() {
                    continue;
                }
                won += 1;
                if a.1 != b.1 {
                    differ += 1;
                    plain_differ +=
                        usize::from(matches!(m, Member::Bound | Member::Dig | Member::Home));
                }
            }
        }
        assert!(won >= 10, "only {won} member runs won");
        assert!(
            2 * differ > won,
            "{differ} of {won} wins took the same positions salted"
        );
        assert!(plain_differ > 0, "no plain member changed");
    }

    /// A slice of a game with a stock costs what the same slice costs elsewhere plus three
    /// more shares for each of the three digging members (four times their one share), and
    /// only those members run longer.
    #[test]
    fn a_stock_game_gives_the_digging_members_four_times_their_share() {
        use super::super::plan::{Plan, STOCK_DIG_FACTOR};
        use crate::deal::Deal;
        use crate::rules::Variant;
        let unit = 4_000;
        let slice = |v: Variant| {
            let deal = Deal::from_seed(v.rules(), 1);
            let rows = Plan::for_rules(&deal.rules).portfolio.unwrap().members;
            let pf = Portfolio::<4>::new(&deal, Pruning::default(), &rows, 64 << 20, 0, 0);
            let per: Vec<u64> = pf
                .seats
                .iter()
                .map(|s| unit * s.nodes_share / Member::SHARES)
                .collect();
            (pf.slice_nodes(unit), per)
        };
        let (with, per_with) = slice(Variant::Courtyard);
        let (without, per_without) = slice(Variant::BeleagueredCastle);
        assert_eq!(
            with,
            without + 3 * (STOCK_DIG_FACTOR - 1) * unit / Member::SHARES
        );
        for ((m, a), b) in Member::ALL.into_iter().zip(per_with).zip(per_without) {
            let digs = matches!(m, Member::Dig | Member::Disorder | Member::Home);
            assert_eq!(
                a,
                if digs { b * STOCK_DIG_FACTOR } else { b },
                "{}",
                m.name()
            );
        }
    }
}
