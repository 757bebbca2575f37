//! The exact solver: budgets, verdicts, and the entry point that picks the key width.
//!
//! A verdict is exact: `Solvable` comes with a move list (replayed by the independent checker
//! in `check.rs` before [`Solver::solve`] returns it; one that does not replay is a
//! [`SolveError`], never an outcome), `Unsolvable` means the depth-first search entered every
//! position reachable from the deal (modulo the reductions of `state/`, each proved to keep
//! every win), and `Unknown` means a budget ran out first — it never stands for "lost".
//!
//! Where each job lives:
//! - `mod.rs` (here): [`Solver`], its public entry points, and the re-exports.
//! - `types.rs`: [`Limits`], [`Limit`], [`Verdict`], [`Outcome`], [`Phase`], [`Progress`],
//!   [`SolveError`].
//! - `schedule.rs`: how a solve spends its budgets — the quick phase, the restarted attempts,
//!   the probes (Luby's sequence), the best-first slices, the split of `--memory` — and every
//!   tuning constant of the schedule with the measurements behind it.
//! - `search.rs`: the depth-first search (one thread or several) and its proofs.
//! - [`table`]: the bounded transposition table; `open.rs`: the compact set of open states.
//! - `bestfirst.rs`: the weighted best-first pass; [`portfolio`]: the passes with different
//!   evaluations the schedule runs side by side, in slices.
//! - [`short`]: the search for a shortest win (`--short`), built on that pass.
//! - [`layered`]: the exhaustive search level by level of progress (`--layered`), which the
//!   solver runs instead of the schedule under [`Solver::layered`].

mod bestfirst;
pub mod certify;
mod clock;
mod end;
pub mod layered;
mod ledger;
mod luby;
pub mod member;
mod open;
pub mod plan;
pub mod portfolio;
pub mod quotient;
mod schedule;
mod search;
pub mod short;
mod swarm;
pub mod table;
mod types;

pub use end::{End, Limit, Verdict};
pub use plan::{FIRST_ATTEMPT_NODES, PROBE_NODES, PROVE_FROM_NODES};
pub use schedule::{PATH_MIN_BYTES, PATH_SHARE, PATH_WINDOW};
pub use types::{
    cpu_seconds, Cost, DiskUse, Limits, Outcome, Phase, Progress, SolveError, Spent,
    DEFAULT_MEMORY_MIB,
};

use crate::deal::Deal;
use crate::state::{Position, Pruning};
use schedule::Context;
use std::sync::atomic::{AtomicBool, Ordering};
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
    /// [`PROVE_FROM_NODES`]). `None`: every attempt starts from an empty table.
    pub keep_proofs: Option<u64>,
    /// Node budget of the first restarted attempt (later ones double it).
    pub first_attempt: u64,
    /// Shorten every win found (see [`crate::shorten`]): cut loops, merge a card's
    /// consecutive moves. Never changes a verdict; the result is replayed.
    pub shorten: bool,
    /// Start with the quick phase (see [`Phase::Quick`]).
    pub quick: bool,
    /// Interleave a best-first search with the restarted depth-first attempts (see
    /// [`Phase::BestFirst`]).
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
    /// long attempts: this many nodes times Luby's sequence (default [`PROBE_NODES`]; `None`:
    /// no probes).
    pub probes: Option<u64>,
    /// Threads searching the deal together (sharing one table; see `search.rs`). The
    /// verdict does not depend on it; the nodes and the move list found may. The layered
    /// search ([`Solver::layered`]) expands on this many threads and is the same search on
    /// any number of them (see [`layered`], "Threads").
    pub threads: usize,
    /// After a win, search best-first for a shorter one, expanding at most this many
    /// positions (see [`short`]). It never changes a verdict; its win is replayed like any.
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
    /// Run the suit-blind quotient ([`quotient`]) between the attempts, where the rules allow
    /// it: budgeted searches of a smaller, over-approximating space whose `Lost` is a proof
    /// (see `schedule::QuotientSchedule` for when it runs; only with [`Solver::restarts`]). Never
    /// changes a verdict; it can only prove a loss sooner.
    pub quotient: bool,
    /// Percent of the memory budget the quotient holds on its thread beside the schedule
    /// (two threads or more; `None`: `1 / plan::QUOTIENT_THREAD_PART`). The refining runs
    /// that decide the hardest streets-and-alleys deals can need more than that.
    pub quotient_percent: Option<u8>,
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
    /// ([`Limit::Disk`]), as a full disk does.
    pub spill: Option<layered::SpillTo>,
    /// The plan to run instead of the one the deal's rules get ([`plan::Plan::for_rules`]);
    /// the switches above (`quick`, `best_first`, `members`, `probes` off, `quotient`,
    /// `restarts`, `winnable_share`, `loans`) still apply to it, but its numbers stand (see
    /// [`Solver::plan_for`]).
    pub plan: Option<plan::Plan>,
    /// A flag another thread may raise to end the solve early: every phase looks at it where
    /// it looks at the clock (every few thousand nodes, a few milliseconds apart), and the
    /// solve ends as `unknown` with [`Limit::Stopped`], like a time budget that ran out. A
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

    /// Solves a validated deal.
    ///
    /// # Errors
    /// See [`Solver::solve_with_progress`].
    pub fn solve(&self, deal: &Deal) -> Result<Outcome, SolveError> {
        self.solve_with_progress(deal, &mut |_| {})
    }

    /// Solves a validated deal, calling `progress` now and then (every 65,536 nodes).
    ///
    /// # Panics
    /// If the deal has more piles or longer piles than [`Deal::validate`] admits.
    ///
    /// # Restarts
    /// Depth-first search time on winnable deals is heavy-tailed: an early move into a huge
    /// lost region can cost millions of nodes that another order never sees. With restarts on,
    /// attempt `k` gets `20,000 * 2^k` nodes and a different pseudo-random perturbation of the
    /// move order. Between attempts the table forgets every state not proved lost (with
    /// [`Solver::keep_proofs`]; without it, everything): a state an attempt entered is only
    /// lost relative to that attempt, but one it *proved* lost is lost for good (the argument
    /// is in `search.rs`), so a later attempt skips it. Every attempt uses only exact rules,
    /// so any attempt that ends within its budget has searched every reachable position and
    /// its verdict is exact; the attempts cut short cost at most as many nodes again as the
    /// last one (the budgets double), less what their proofs save the later ones. Once the
    /// attempts are long, short *probes* in new orders run between them (see
    /// [`PROBE_NODES`]), and a best-first search (see [`Phase::BestFirst`]).
    /// `--max-nodes` and `--max-seconds` bound the total.
    ///
    /// # Errors
    /// Only for a bug: every win is replayed by the independent checker
    /// ([`crate::check::check_win`]) before it is returned, and one that does not replay (or
    /// whose shortening fails) is a [`SolveError`], never an outcome.
    pub fn solve_with_progress(
        &self,
        deal: &Deal,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<Outcome, SolveError> {
        if self.stopped() {
            return Ok(Outcome::unknown(Limit::Stopped));
        }
        // A stock game's position with an emptied pile (one `analyze` reaches, or a deal file
        // holds) owes its fills before any other move: the searches start after them.
        let (filled, fills) = forced_fills(deal);
        let start = filled.as_ref().unwrap_or(deal);
        let mut out = if Position::new(start).key_words() == 3 {
            self.solve_w::<3>(start, progress)?
        } else {
            self.solve_w::<4>(start, progress)?
        };
        if !fills.is_empty() && out.verdict == Verdict::Solvable {
            out.first_len = out.first_len.map(|n| n + fills.len());
            out.moves.splice(0..0, fills);
        }
        if out.verdict == Verdict::Solvable {
            crate::check::check_win(deal, &crate::check::steps_of(&out.moves))
                .map_err(|e| SolveError::BadSolution(Box::new(e)))?;
        }
        Ok(out)
    }

    /// For tests of the proofs kept across restarts: one attempt of at most `nodes` nodes
    /// that keeps proofs (with this solver's pruning and threads; no quick phase), and the keys
    /// (`Position::key::<4>`) of the states it proved lost. The attempt may be cut by the
    /// budget; whatever it proved must be lost all the same. With several threads,
    /// `donate_mask` sets how often a thread looks for an idle one (0: at every node, so
    /// that small positions are split up too).
    #[doc(hidden)]
    pub fn proved_in_one_attempt(
        &self,
        deal: &Deal,
        nodes: u64,
        donate_mask: u64,
    ) -> Vec<[u64; 4]> {
        let solver = Solver {
            keep_proofs: Some(0),
            restarts: true,
            ..self.clone()
        };
        let scratches = (0..solver.threads.max(1))
            .map(|_| search::Scratch::new(1 << 16))
            .collect();
        let table_bytes = solver.limits.memory_bytes;
        let plan = solver.plan_for(deal);
        let mut ctx = Context::<4>::new(
            deal,
            &solver,
            &plan,
            std::time::Instant::now(),
            table_bytes,
            solver.limits.memory_bytes / PATH_SHARE,
            solver.path_floor * solver.threads.max(1),
            scratches,
        );
        ctx.donate_mask = donate_mask;
        ctx.attempt(Some(nodes), 1, false, &mut |_| {});
        ctx.table.proved_keys()
    }

    /// The attempts, the shortening of their win (with [`Solver::shorten`]), then (with
    /// [`Solver::short`]) the search for a shorter win, once the depth-first search's table is
    /// freed.
    fn solve_w<const W: usize>(
        &self,
        deal: &Deal,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<Outcome, SolveError> {
        let t0 = std::time::Instant::now();
        let alone = self.threads <= 1;
        let cpu0 = cpu_seconds(alone);
        let cpu = || cpu_seconds(alone) - cpu0;
        let layered = self.layered || self.takes_up_checkpoint(deal);
        let mut out = if layered && layered::applies(deal) {
            self.solve_layered(deal, progress)
        } else {
            self.attempts::<W>(deal, progress)?
        };
        if self.spill.is_some()
            && !layered
            && out.verdict == Verdict::Unknown
            && out.limit == Some(Limit::Memory)
            && layered::applies(deal)
        {
            // The schedule's table is full (see `Solver::spill`): its memory is freed, and
            // the layered search takes the deal on with what is left of the budgets.
            out = self.layered_after(deal, &out, t0, progress);
        }
        if out.verdict == Verdict::Solvable {
            out.first_len = Some(out.moves.len());
        }
        // `--max-seconds` bounds the whole solve: the shortening stops at the deadline with
        // the best line it has, and says so.
        let deadline = self.limits.deadline(t0);
        if out.verdict == Verdict::Solvable && self.shorten {
            let short = crate::shorten::shorten_until(deal, &out.moves, deadline)?;
            out.moves = short.moves;
            out.shorten_cut = short.cut;
            out.seconds = t0.elapsed().as_secs_f64();
        }
        out.cpu_seconds = cpu();
        let Some(budget) = self.short else {
            return Ok(out);
        };
        if out.verdict != Verdict::Solvable || out.shorten_cut {
            return Ok(out);
        }
        let limits = bestfirst::PassLimits {
            nodes: budget,
            memory: self.limits.memory_bytes,
            clock: self.clock(t0),
        };
        let found = short::search::<W>(deal, self.pruning, out.moves.len(), limits);
        out.short_nodes = Some(found.nodes);
        out.shortest = found.optimal;
        out.short_limit = found.limit;
        if let Some(line) = found.moves {
            // Merging a card's consecutive moves may still help (no loops remain).
            let line = if self.shorten {
                let short = crate::shorten::shorten_until(deal, &line, deadline)?;
                out.shorten_cut |= short.cut;
                short.moves
            } else {
                line
            };
            if line.len() < out.moves.len() {
                out.moves = line;
            }
        }
        out.seconds = t0.elapsed().as_secs_f64();
        out.cpu_seconds = cpu();
        Ok(out)
    }
}

/// The fills a stock game's position owes before any other move (courtyard's rule in
/// `docs/rules.md`: an emptied pile is filled at once from the waste's top, else the stock's
/// next card, a move of its own, lowest pile first), and the position after them; `None` and
/// no moves when none is due. The searches only ever fill a pile right after the move that
/// emptied it, so they must start from a position that owes none.
fn forced_fills(deal: &Deal) -> (Option<Deal>, Vec<crate::moves::Move>) {
    use crate::moves::{Move, STOCK, WASTE};
    let mut fills = Vec::new();
    if !deal.rules.stock {
        return (None, fills);
    }
    let mut d = deal.clone();
    while let Some(e) = d.tableau.iter().position(Vec::is_empty) {
        let to = e as u8;
        let m = if let Some(c) = d.waste.pop() {
            Move::single(c, WASTE, to)
        } else if !d.stock.is_empty() {
            Move::single(d.stock.remove(0), STOCK, to)
        } else {
            break;
        };
        d.tableau[e].push(m.card);
        fills.push(m);
    }
    (if fills.is_empty() { None } else { Some(d) }, fills)
}

impl Solver {
    /// The layered search (with [`Solver::spill`]) after the schedule's `first` ran out of
    /// memory, with what `first` left of the node and time budgets; the nodes are both
    /// searches', the seconds the whole solve's.
    fn layered_after(
        &self,
        deal: &Deal,
        first: &Outcome,
        t0: std::time::Instant,
        progress: &mut dyn FnMut(&Progress),
    ) -> Outcome {
        let spent = t0.elapsed().as_secs_f64();
        let rest = Solver {
            limits: Limits {
                max_nodes: self
                    .limits
                    .max_nodes
                    .map(|n| n.saturating_sub(first.nodes).max(1)),
                max_seconds: self.limits.max_seconds.map(|s| (s - spent).max(0.0)),
                ..self.limits
            },
            layered: true,
            ..self.clone()
        };
        let mut out = if rest.limits.max_seconds == Some(0.0) {
            Outcome::unknown(Limit::Seconds)
        } else {
            rest.solve_layered(deal, &mut |p: &Progress| {
                progress(&Progress {
                    nodes: p.nodes + first.nodes,
                    seconds: p.seconds + spent,
                    ..*p
                });
            })
        };
        out.nodes += first.nodes;
        out.spent = out.spent + first.spent;
        out.best_home = out.best_home.max(first.best_home);
        out.attempts += first.attempts;
        out.seconds = t0.elapsed().as_secs_f64();
        out
    }

    /// True when a layered search of `deal` cut short under this solver's spill directory
    /// left a checkpoint there (see "Checkpoints" in [`layered`]): then the solve takes it up
    /// at once instead of running the schedule first, and does not run it after either.
    /// Whatever began that search (the schedule, having filled its table without a verdict,
    /// or [`Solver::layered`] from the start), the layered search is complete on its own, so
    /// going straight to it loses no verdict; it saves running the schedule again, an hour
    /// on the hardest deals, each time a stopped run is started again.
    pub fn takes_up_checkpoint(&self, deal: &Deal) -> bool {
        self.spill
            .as_ref()
            .is_some_and(|to| layered::checkpointed(deal, self.pruning, to))
    }

    /// True once the caller raised [`Solver::stop`].
    pub(crate) fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// What ends a search of a solve that started at `t0` early: its deadline and its stop
    /// flag.
    fn clock(&self, t0: std::time::Instant) -> bestfirst::Clock<'_> {
        bestfirst::Clock {
            deadline: self.limits.deadline(t0),
            stop: self.stop.as_deref(),
        }
    }

    /// The limit of a search that found the clock run out or the stop flag up (see
    /// [`Solver::stop`]): the flag when it is up, else the time budget.
    pub(crate) fn clock_limit(&self) -> Limit {
        if self.stopped() {
            Limit::Stopped
        } else {
            Limit::Seconds
        }
    }

    /// The layered search's outcome (see [`Solver::layered`]): `Solvable` with its line,
    /// `Unsolvable` when it closed every level, `Unknown` at a budget. The schedule's table
    /// fields describe the layered search's stores: `states` and `peak_states` the positions
    /// stored, `table_bytes` and `peak_table_bytes` its peak bytes (see [`layered`]).
    fn solve_layered(&self, deal: &Deal, progress: &mut dyn FnMut(&Progress)) -> Outcome {
        let r = match layered::search(
            deal,
            self.pruning,
            self.limits,
            self.spill.as_ref(),
            self.stop.as_deref(),
            self.threads,
            progress,
        ) {
            Ok(r) => r,
            Err(layered::LayeredError::FoundationReturn) => {
                unreachable!("the caller checked that the layered search applies")
            }
            Err(e @ layered::LayeredError::SpillDir { .. }) => {
                let mut out = Outcome::unknown(Limit::Disk);
                out.disk = Some(DiskUse {
                    error: Some(e.to_string()),
                    ..DiskUse::default()
                });
                return out;
            }
        };
        let cost = Cost {
            nodes: r.expanded,
            states: r.stored,
            peak_states: r.stored,
            seconds: r.seconds,
            best_home: r.best_home,
            table_bytes: r.peak_bytes,
            peak_table_bytes: r.peak_bytes,
            attempts: 1,
            disk: self.spill.is_some().then(|| r.disk.clone()),
            spent: Spent {
                attempts: r.expanded,
                ..Spent::default()
            },
            ..Cost::default()
        };
        Outcome::new(r.end, Phase::Layered, cost)
    }
}
