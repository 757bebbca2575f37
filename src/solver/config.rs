//! The solver's configuration, apart from the engine: what a solve may spend (limits), how it
//! searches (the reductions, the threads, the salt), and which plan it runs ([`Solver::plan`],
//! the switches that edit it, [`Solver::plan_for`]). Nothing here searches: the engine is
//! `schedule/` (the plan's interpreter) and the searches it runs, which read this
//! configuration and keep their state in their own types (`schedule::Context`, the passes,
//! the tables). The defaults a user sets are `crate::defaults`, read by the command line and
//! the Python package alike.

use super::schedule::{PATH_MIN_BYTES, PATH_WINDOW};
use super::types::Limits;
use super::{layered, plan, portfolio};
use crate::deal::Deal;
use crate::state::Pruning;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A configured solver.
#[derive(Clone, Debug)]
pub struct Solver {
    /// Budgets.
    pub limits: Limits,
    /// The reductions in use (all on by default).
    pub pruning: Pruning,
    /// Restart with a varied move order and a doubled node budget while attempts stay small
    /// (see [`Solver::solve_with_progress`]).
    pub restarts: bool,
    /// Attempts with at least this node budget keep the states they prove lost for the
    /// attempts after them (see "Proofs that outlive an attempt" in `search.rs`; default
    /// [`PROVE_FROM_NODES`](super::PROVE_FROM_NODES)). `None`: every attempt starts from an empty table.
    pub keep_proofs: Option<u64>,
    /// Node budget of the first restarted attempt (later ones double it).
    pub first_attempt: u64,
    /// Shorten every win found (see [`crate::shorten`]): cut loops, merge a card's
    /// consecutive moves. Never changes a verdict; the result is replayed.
    pub shorten: bool,
    /// Start with the quick phase (see [`Phase::Quick`](super::Phase::Quick)).
    pub quick: bool,
    /// Interleave a best-first search with the restarted depth-first attempts (see
    /// [`Phase::BestFirst`](super::Phase::BestFirst)).
    pub best_first: bool,
    /// The members of the portfolio the best-first phase runs (see [`portfolio`]).
    pub members: portfolio::Members,
    /// The portfolio's members that keep every position they reach may borrow the room the
    /// table has not taken yet, and give it back when the table or the quotient needs it
    /// (see `plan::LOAN_PART`). Never changes a verdict: the members only report wins.
    pub loans: bool,
    /// Once the deal looks winnable (a quotient run met a branch win), give the portfolio a
    /// larger slice of each attempt in the variants where that was measured to pay
    /// (`plan::PortfolioPlan::winnable_share`). Never changes a verdict: the members only report wins.
    pub winnable_share: bool,
    /// Varies the random draws of the searches that only look for wins: the portfolio's
    /// swarms and members and the swarm beside the schedule (see [`portfolio::salted`]). 0 (the
    /// default) is castle's usual search, node for node; another salt is another search for a
    /// win, so a deal left `unknown` by a budget is worth running again with a new salt rather
    /// than the same search a second time (`batch --retry-unknown` does so). Never changes a
    /// verdict: those searches only report wins, and every win is replayed.
    pub salt: u64,
    /// Interleave probes, short depth-first attempts on a small table of their own, with the
    /// long attempts: this many nodes times Luby's sequence (default [`PROBE_NODES`](super::PROBE_NODES); `None`:
    /// no probes).
    pub probes: Option<u64>,
    /// Threads searching the deal together (sharing one table; see `search.rs`). The
    /// verdict does not depend on it; the nodes and the move list found may. The layered
    /// search ([`Solver::layered`]) expands on this many threads and is the same search on
    /// any number of them (see [`layered`], "Threads").
    pub threads: usize,
    /// After a win, search best-first for a shorter one, expanding at most this many
    /// positions (see [`short`](super::short)). It never changes a verdict; its win is replayed like any.
    pub short: Option<u64>,
    /// What each thread's path may take past its table's budget (default
    /// [`PATH_MIN_BYTES`], at most an eighth of `--memory`, and counted inside `--memory`: the
    /// schedule takes it out of the main table's share; tests set 0 to reach the path's limits
    /// on small deals).
    pub path_floor: usize,
    /// Frames at the top of a search path that keep their untried moves; deeper ones keep
    /// a count and make them again on the way back (see "Compact paths" in `search.rs`).
    /// 0 keeps every list. The search is the same, node for node, whatever the value.
    pub path_window: usize,
    /// Run the suit-blind quotient ([`quotient`](super::quotient)) between the attempts, where the rules allow
    /// it: budgeted searches of a smaller, over-approximating space whose `Lost` is a proof
    /// (see `schedule::QuotientSchedule` for when it runs; only with [`Solver::restarts`]). Never
    /// changes a verdict; it can only prove a loss sooner.
    pub quotient: bool,
    /// Percent of the memory budget the quotient holds on its thread beside the schedule
    /// (two threads or more; `None`: `1 / plan::QUOTIENT_THREAD_PART`). The refining runs
    /// that decide the hardest streets-and-alleys deals can need more than that.
    pub quotient_percent: Option<u8>,
    /// Keep the positions of the quotient run that proves a loss, when that run stores every
    /// one of them (see [`Outcome::lost_members`](super::Outcome::lost_members)), for a
    /// certificate to be built from them rather than by a search of its own (`batch
    /// --certify`, `solve --certificate`). The search is the same, node for node; the
    /// positions take room beside the quotient's budget, at most a sixteenth of it.
    pub keep_members: bool,
    /// Run the layered search ([`layered`]) instead of the schedule, where the rules allow
    /// it (foundation return off; otherwise the schedule runs as without it). It decides a
    /// deal by closing the reachable positions one level of progress at a time, holding one
    /// level's keys at once; a win comes back as a line, replayed as every win.
    pub layered: bool,
    /// A directory under which the layered search goes on on disk when its positions outgrow
    /// the memory budget (see "Out of core" in [`layered`]). With [`Solver::layered`] the
    /// layered search runs from the start; without it the usual schedule runs first, and
    /// only if its table fills (its first entry replaced: the memory has run out) does the
    /// schedule stop and the layered search take the deal on, with the rest of the budgets
    /// (where it applies: foundation return off). So an easy deal is decided as fast as
    /// without a spill directory. A directory that cannot be made ends the solve as unknown
    /// ([`Limit::Disk`](super::Limit::Disk)), as a full disk does.
    pub spill: Option<layered::SpillTo>,
    /// The plan to run instead of the one the deal's rules get ([`plan::Plan::for_rules`]);
    /// the switches above (`quick`, `best_first`, `members`, `probes` off, `quotient`,
    /// `restarts`, `winnable_share`, `loans`) still apply to it, but its numbers stand (see
    /// [`Solver::plan_for`]).
    pub plan: Option<plan::Plan>,
    /// A flag another thread may raise to end the solve early: every phase looks at it where
    /// it looks at the clock (every few thousand nodes, a few milliseconds apart), and the
    /// solve ends as `unknown` with [`Limit::Stopped`](super::Limit::Stopped), like a time budget that ran out. A
    /// raise after a win was found only cuts the short-solution search ([`Solver::short`])
    /// short: the win stands. `None` (the default): nothing but the budgets ends a solve. The
    /// Python module raises it on Ctrl-C; a batch shares one flag among its workers' solvers.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Default for Solver {
    fn default() -> Self {
        Solver {
            limits: Limits::default(),
            pruning: Pruning::default(),
            restarts: true,
            keep_proofs: Some(plan::PROVE_FROM_NODES),
            first_attempt: plan::FIRST_ATTEMPT_NODES,
            shorten: true,
            quick: true,
            best_first: true,
            members: portfolio::Members::DEFAULT,
            loans: true,
            winnable_share: true,
            salt: 0,
            probes: Some(plan::PROBE_NODES),
            threads: 1,
            short: None,
            path_floor: PATH_MIN_BYTES,
            path_window: PATH_WINDOW,
            quotient: true,
            quotient_percent: None,
            keep_members: false,
            layered: false,
            spill: None,
            plan: None,
            stop: None,
        }
    }
}

impl Solver {
    /// The plan a solve of `deal` runs: [`Solver::plan`] or the rules' own, with this
    /// solver's switches applied. Without a plan of its own, the solver's numbers
    /// (`first_attempt`, `keep_proofs`, `probes`) are the plan's; with one, the plan's
    /// numbers stand and only the switches apply.
    pub fn plan_for(&self, deal: &Deal) -> plan::Plan {
        let mut p = match &self.plan {
            Some(p) => p.clone(),
            None => {
                let mut p = plan::Plan::for_rules(&deal.rules);
                p.attempts.first = Some(self.first_attempt.max(1));
                p.attempts.keep_proofs_from = self.keep_proofs;
                if let (Some(unit), Some(pr)) = (self.probes, p.probes.as_mut()) {
                    pr.unit = unit.max(1);
                }
                p
            }
        };
        if !self.quick {
            p.quick = None;
        }
        if let Some(pf) = p.portfolio.as_mut() {
            pf.members
                .retain(|m| self.members.iter().any(|x| x == m.member));
            if !self.winnable_share {
                pf.winnable_share = None;
            }
            if !self.loans {
                pf.loan_part = None;
            }
        }
        if !self.best_first || p.portfolio.as_ref().is_some_and(|pf| pf.members.is_empty()) {
            p.portfolio = None;
        }
        if p.portfolio.is_none() {
            p.early_slice = None;
        }
        if self.probes.is_none() {
            p.probes = None;
        }
        if !self.quotient {
            p.quotient = None;
        }
        if !self.restarts {
            p.attempts.first = None;
        }
        if p.attempts.first.is_none() {
            // One attempt, nothing between.
            p.portfolio = None;
            p.early_slice = None;
            p.quotient = None;
            p.probes = None;
        }
        p
    }
}
