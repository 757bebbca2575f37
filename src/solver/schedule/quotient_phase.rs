//! The quotient as a phase of the schedule: its budgeted, refining runs between the exact
//! search's attempts ([`QuotientSchedule`]), and the exact search from a false line's real
//! position ([`solve_prefix`]).

use super::Context;
use crate::deal::Deal;
use crate::moves::Move;
use crate::solver::bestfirst::Clock;
use crate::solver::plan::QuotientPlan;
use crate::solver::portfolio::Portfolio;
use crate::solver::quotient::{self, QuotientOptions, QuotientVerdict};
use crate::solver::Limit;
use crate::solver::{End, Limits, Outcome, Phase, QuotientProof, SolveError, Solver};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Runs the quotient phase if it has earned a run: the outcome when it decides the deal
/// (lost, with the states of the run that proved it) or the deadline passes, and an error
/// when a run met a broken invariant (see [`quotient::Broken`]: the solve then proves
/// nothing, and says so instead of going on as if the run had not happened).
pub(super) fn quotient_step<const W: usize>(
    schedule: &mut Option<QuotientSchedule>,
    ctx: &mut Context<'_, W>,
    reserved: usize,
    portfolio: &mut Option<Portfolio<'_, W>>,
    attempts: u32,
) -> Option<Result<Outcome, SolveError>> {
    let q = schedule.as_mut()?;
    let limits = ctx.solver.limits;
    let clock = ctx.solver.clock(ctx.t0);
    let before = ctx.done;
    // The earlier runs' proofs are counted in the next run's room: the table takes back
    // what it lent them.
    ctx.table.grant(std::mem::take(&mut q.lent));
    let step = loop {
        // The room the table has not taken, less what the portfolio's members borrowed of it.
        let loans = portfolio.as_ref().map_or(0, Portfolio::loans);
        let used = ctx.table.bytes() + reserved + ctx.peak_path + loans;
        let bytes = limits.memory_bytes.saturating_sub(used);
        let recallable = loans > 0;
        match q.run(
            ctx.deal,
            &mut ctx.done,
            limits.max_nodes,
            bytes,
            clock,
            recallable,
        ) {
            // The run needs the room the members borrowed: they give it back (and hold no
            // loans after), and the run starts again.
            QuotientStep::Short => {
                let freed = portfolio.as_mut().map_or(0, Portfolio::recall);
                ctx.table.grant(freed);
            }
            step => break step,
        }
    };
    // Between runs the proofs stay, on a loan from the table's idle room, or go if it has
    // not the room (the runs after are as sound without them, only slower).
    let held = q.proved.bytes();
    if held > 0 && held <= ctx.table.room() {
        ctx.table.lend(held);
        q.lent = held;
    } else {
        q.proved.clear();
    }
    ctx.spent.quotient += ctx.done - before;
    match step {
        QuotientStep::Continue | QuotientStep::Short => None,
        QuotientStep::Deadline => Some(Ok(ctx.outcome(
            End::Cut(ctx.solver.clock_limit()),
            attempts,
            Phase::Quotient,
        ))),
        QuotientStep::Won { line } => {
            Some(Ok(ctx.outcome(End::Won(line), attempts, Phase::Quotient)))
        }
        QuotientStep::Lost {
            positions,
            by,
            members,
        } => {
            let mut out = ctx.outcome(End::Exhausted, attempts, Phase::Quotient);
            out.lost_by = Some(by);
            out.lost_members = members;
            out.states = positions;
            out.peak_states = out.peak_states.max(positions);
            Some(Ok(out))
        }
        QuotientStep::Broken(why) => Some(Err(SolveError::Invariant(why.to_string()))),
    }
}

/// The plan's short early run of the quotient ([`QuotientPlan::early_nodes`]): one run of
/// `nodes` (its search from a false line's real position at most as many), on a schedule of
/// its own that ends with it, so that the phase's own runs later go as without it (they
/// search its positions again: at most `nodes`). Its outcome when it decides the deal, as
/// [`quotient_step`]'s.
pub(super) fn early_quotient_step<const W: usize>(
    plan: QuotientPlan,
    nodes: u64,
    collect: bool,
    ctx: &mut Context<'_, W>,
    reserved: usize,
    portfolio: &mut Option<Portfolio<'_, W>>,
    attempts: u32,
) -> Option<Result<Outcome, SolveError>> {
    let early = QuotientSchedule::new(QuotientPlan {
        first_nodes: nodes,
        prefix_min_nodes: plan.prefix_min_nodes.min(nodes),
        prefix_nodes: plan.prefix_nodes.min(nodes),
        ..plan
    })
    .collecting(collect);
    let mut early = Some(early);
    let out = quotient_step(&mut early, ctx, reserved, portfolio, attempts);
    // Its proofs go with it: the table takes back the room it lent them.
    if let Some(q) = early {
        ctx.table.grant(q.lent);
    }
    out
}

/// The seed of the random orders of the relocating swarm that the quotient's thread beside
/// the schedule runs once the quotient is out of room (`beside_thread`); another seed than the
/// portfolio's own swarm (performance log, "The schedule's constants", BESIDE_SWARM_SEED).
pub const BESIDE_SWARM_SEED: u64 = 0xB351_DE5E_ED00;

/// The quotient as a phase of [`super::Solver`]'s schedule (with [`super::Solver::quotient`]
/// on): budgeted runs of [`quotient::search`] between the exact search's attempts. Only its `Lost` is
/// used (a proof, see the module docs); a branch win or a budget ends the run and the exact
/// search goes on. Each run starts afresh and frees its tables when it ends.
pub(super) struct QuotientSchedule {
    /// The plan's budgets, shares and windows.
    pub(super) plan: QuotientPlan,
    /// Window of the next run.
    pub(super) k: u8,
    /// Node budget of the next run.
    pub(super) budget: u64,
    /// Nodes earned towards the next run.
    pub(super) credit: u64,
    /// No more runs (refused rules, memory, or a branch win at the largest window).
    pub(super) off: bool,
    /// Some run met a branch win: the deal looks winnable (see [`crate::solver::plan::QUOTIENT_SHARE`]).
    pub(super) branched: bool,
    /// Cards the runs keep with their suit whatever the window ([`QuotientOptions::kept`]).
    pub(super) kept: u64,
    /// The other phases' nodes at the last credit (see [`QuotientSchedule::earn`]).
    pub(super) others: u64,
    /// What the earlier runs proved lost, which the later ones skip (see "Proofs that
    /// outlive a run" in the quotient's docs).
    pub(super) proved: quotient::Proved,
    /// Bytes of the table's budget lent to `proved` between runs ([`quotient_step`]).
    pub(super) lent: usize,
    /// Keep the positions of a run that starts with no earlier proofs, so that a loss it
    /// proves comes with its certificate's members ([`Solver::keep_members`]).
    pub(super) collect: bool,
}

/// A collecting run's members may hold at most this part of the run's room, beside it (see
/// [`quotient::search_proved_collect`]: they are not counted in the run's budget, so that the
/// search is the same, node for node, with `--certify` and without). A sixteenth holds a
/// member for about every 30 bytes of the run's tables, more than a run stores (8 to 16
/// bytes a position), so only a run near its room gives them up; its loss is then certified
/// by the certificate pass's own search.
const COLLECT_PART: usize = 16;

/// The exact search from the real position a false branch `line` reaches before its first
/// wrong branch ([`quotient::concrete_prefix`]): the line's moves up to there are legal on
/// the deal, so the position is one the deal reaches, and a win from it, after them, is a
/// win of the deal. Why it pays: a false line is a depth-first search's path of thousands
/// to millions of moves, most of them legal on the deal, ending where the abstraction saw
/// every card go home; the real position there often has most of the work done, and the
/// abstraction lost the win only in its last few foundation moves (see "Refining by the cards
/// a branch got wrong" in the quotient's docs). It only reports a win (checked by the
/// nested solve and again by this solve's checker), so it cannot change a verdict; a lost or
/// undecided position there proves nothing, and the refinement goes on. Returns the win, if
/// any, and the nodes spent. The nested solve has no quotient (no recursion) and no
/// shortening (this solve shortens the whole line).
fn solve_prefix(
    deal: &Deal,
    line: &[quotient::AbstractMove],
    nodes: u64,
    bytes: usize,
    (min_bytes, max_bytes): (usize, usize),
    max_seconds: Option<f64>,
) -> (Option<Vec<Move>>, u64) {
    let room = (bytes / 2).min(max_bytes);
    let (mut prefix, at) = quotient::concrete_prefix(deal, line);
    if prefix.is_empty() || room < min_bytes {
        // The deal itself (the schedule is searching it already), or no room.
        return (None, 0);
    }
    let solver = Solver {
        limits: Limits {
            max_nodes: Some(nodes),
            max_seconds,
            memory_bytes: room,
        },
        quotient: false,
        shorten: false,
        threads: 1,
        ..Solver::default()
    };
    match solver.solve(&at) {
        Ok(out) if out.verdict == super::Verdict::Solvable => {
            prefix.extend_from_slice(&out.moves);
            (Some(prefix), out.nodes)
        }
        Ok(out) => (None, out.nodes),
        // A position the game reached is a valid deal; an error here would be the nested
        // solve's own, and the refinement goes on without it.
        Err(_) => (None, 0),
    }
}

/// What a run of the quotient phase decided.
pub(super) enum QuotientStep {
    /// Nothing: the exact search goes on.
    Continue,
    /// The deal is lost: positions stored by the run that proved it, its abstraction, and
    /// its positions as a certificate's members when the run kept them and they are one
    /// (see [`QuotientSchedule::collect`]).
    Lost {
        positions: u64,
        by: QuotientProof,
        members: Option<crate::certificate::Members>,
    },
    /// A run's win, played on the deal (see [`quotient::concrete_line`]).
    Won { line: Vec<Move> },
    /// The deadline passed, or the solve's stop flag is up.
    Deadline,
    /// A run ran out of room while the portfolio's members held loans (see
    /// [`QuotientSchedule::run`]'s `recallable`): the run is not charged, and can start
    /// again once they give the room back.
    Short,
    /// A run met a broken invariant: the solve ends as an error.
    Broken(quotient::Broken),
}

impl QuotientSchedule {
    /// A schedule whose first run can start at once.
    pub(super) fn new(plan: QuotientPlan) -> Self {
        let first = plan.first_nodes;
        QuotientSchedule {
            plan,
            k: plan.first_k,
            budget: first,
            credit: first,
            off: false,
            branched: false,
            kept: 0,
            others: 0,
            proved: quotient::Proved::new(),
            lent: 0,
            collect: false,
        }
    }

    /// The same schedule, keeping a proving run's members when `collect` is on (see
    /// [`QuotientSchedule::collect`]).
    pub(super) fn collecting(mut self, collect: bool) -> Self {
        self.collect = collect;
        self
    }

    /// Credits the phase with its share of a long attempt's `budget`: `share_unbranched` times
    /// the budget until a run meets a branch win (see
    /// [`crate::solver::plan::QUOTIENT_SHARE_UNBRANCHED`]); after one, `1 / share` of the nodes
    /// every other phase spent since the last credit (`others` is their total so far; see
    /// [`crate::solver::plan::QUOTIENT_SHARE`]).
    pub(super) fn earn(&mut self, budget: u64, others: u64) {
        let fresh = others.saturating_sub(self.others);
        self.others = others;
        let share = if self.branched {
            fresh / self.plan.share
        } else {
            budget.saturating_mul(self.plan.share_unbranched)
        };
        self.credit = self.credit.saturating_add(share);
    }

    /// Runs the quotient while the credit pays for its next run. `nodes_left` is the solve's
    /// node budget left (`None`: unbounded), `bytes` what the run's tables may hold, and
    /// `clock` the solve's deadline and stop flag. Adds the nodes it used to `done`. With `recallable` (others
    /// hold room they would give back), a run that runs out of room returns
    /// [`QuotientStep::Short`] instead of ending the phase.
    pub(super) fn run(
        &mut self,
        deal: &Deal,
        done: &mut u64,
        nodes_left: Option<u64>,
        bytes: usize,
        clock: Clock<'_>,
        recallable: bool,
    ) -> QuotientStep {
        while !self.off && self.credit >= self.budget {
            let mut nodes = self.budget;
            if let Some(left) = nodes_left.map(|l| l.saturating_sub(*done)) {
                if left == 0 {
                    return QuotientStep::Continue;
                }
                nodes = nodes.min(left);
            }
            let max_seconds = match clock.deadline {
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now()).as_secs_f64();
                    if left <= 0.0 {
                        return QuotientStep::Deadline;
                    }
                    Some(left)
                }
                None => None,
            };
            let opts = QuotientOptions {
                k: self.k,
                kept: self.kept,
                max_nodes: Some(nodes),
                max_seconds,
                max_bytes: bytes,
                // Every move, so that a run's components are the abstract graph's own and
                // close as soon as they are searched: with no-repeat each position waits on
                // its parent, nearly every position stays open until the run ends, and the
                // runs after a false win search everything again (sa 20967, 14 runs: with
                // no-repeat the sixth of them stores 7.4 M positions; without it, after a
                // first of 0.69 M, each stores 6,000 to 58,000, and the 15th wins).
                no_repeat: false,
                ..QuotientOptions::default()
            };
            let never = AtomicBool::new(false);
            let stop = clock.stop.unwrap_or(&never);
            // Only a run with no earlier proofs can store every position of its proof (the
            // others skip what the earlier ones proved), so only such a run keeps them.
            let encoder = (self.collect && self.proved.runs() == 0)
                .then(|| {
                    crate::certificate::quotient::Quotient::new(
                        crate::certificate::game_of(&deal.rules),
                        &crate::certificate::start_of(deal),
                        self.k,
                        opts.dealt,
                        self.kept,
                        opts.autoplay,
                    )
                    .ok()
                })
                .flatten();
            let (r, members) = match encoder {
                Some(e) => quotient::search_proved_collect(
                    deal,
                    &opts,
                    stop,
                    &mut self.proved,
                    e,
                    bytes / COLLECT_PART,
                ),
                None => (
                    quotient::search_proved(deal, &opts, stop, &mut self.proved),
                    None,
                ),
            };
            *done = done.saturating_add(r.nodes);
            if r.verdict == QuotientVerdict::End(End::Cut(Limit::Memory)) && self.proved.runs() > 0
            {
                // Earlier runs' proofs took room this one needed (a run frees those it
                // consults and goes on; these are the others): run again without them (as
                // sound, only slower).
                self.proved.clear();
                self.credit -= r.nodes.min(self.credit);
                continue;
            }
            if recallable && r.verdict == QuotientVerdict::End(End::Cut(Limit::Memory)) {
                return QuotientStep::Short;
            }
            // Charged the nodes it used: a run that ends before its budget (a false win the
            // next run refines, say) leaves the rest to the next.
            self.credit -= r.nodes.min(self.credit);
            match r.verdict {
                QuotientVerdict::LOST => {
                    return QuotientStep::Lost {
                        positions: r.positions,
                        by: QuotientProof {
                            k: self.k,
                            dealt: opts.dealt,
                            kept: self.kept,
                        },
                        members,
                    }
                }
                QuotientVerdict::BRANCH_WIN => {
                    self.branched = true;
                    // A branch win whose line is legal on the deal itself is a win (every
                    // branch it took was the real card).
                    if let Some(line) = quotient::concrete_line(deal, &r.line) {
                        return QuotientStep::Won { line };
                    }
                    // Within the solve's node budget, like the run.
                    let prefix_nodes = self
                        .plan
                        .prefix_nodes
                        .min(r.nodes.max(self.plan.prefix_min_nodes))
                        .min(nodes_left.map_or(u64::MAX, |l| l.saturating_sub(*done)));
                    if prefix_nodes > 0 {
                        let (line, used) = solve_prefix(
                            deal,
                            &r.line,
                            prefix_nodes,
                            // The run's tables are gone; the proofs it kept stay.
                            bytes.saturating_sub(self.proved.bytes()),
                            (self.plan.prefix_min_bytes, self.plan.prefix_max_bytes),
                            max_seconds,
                        );
                        *done = done.saturating_add(used);
                        self.credit -= used.min(self.credit);
                        if let Some(line) = line {
                            return QuotientStep::Won { line };
                        }
                    }
                    // Otherwise the next run keeps the first card the line's branches got
                    // wrong, at the same window (see "Refining by the cards a branch got
                    // wrong" in the quotient's docs): every line through that branch is gone,
                    // and the space grows by one card's suit, not a window's four.
                    if let Some(kept) = quotient::next_kept(deal, &r.line, self.kept) {
                        self.kept = kept;
                    } else if self.k < self.plan.max_k {
                        // No card to keep: a line that fails on the deal sends home a card
                        // under a suit it lacks, and a kept card is never branched, so this
                        // does not happen; a wider window, as before refining, if it did.
                        self.k += 1;
                    } else if self.k < self.plan.exact_k {
                        self.k = self.plan.exact_k;
                    } else {
                        // Unreachable: nothing branches at the exact window.
                        self.off = true;
                    }
                }
                QuotientVerdict::End(End::Cut(Limit::Nodes)) => {
                    self.budget = self.budget.saturating_mul(2)
                }
                QuotientVerdict::End(End::Cut(Limit::Seconds | Limit::Stopped)) => {
                    return QuotientStep::Deadline
                }
                // (The quotient keeps nothing on disk: `Disk` never ends its runs.)
                QuotientVerdict::End(End::Cut(Limit::Memory | Limit::Disk))
                | QuotientVerdict::NotApplicable(_) => self.off = true,
                QuotientVerdict::Broken(why) => {
                    self.off = true;
                    return QuotientStep::Broken(why);
                }
            }
        }
        QuotientStep::Continue
    }
}
