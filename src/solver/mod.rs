//! The exact solver: budgets, verdicts, and the entry point that picks the key width.
//!
//! A verdict is exact: `Solvable` comes with a move list (replayed by the independent checker
//! in `check.rs` before [`Solver::solve`] returns it; one that does not replay is a
//! [`SolveError`], never an outcome), `Unsolvable` means the depth-first search entered every
//! position reachable from the deal (modulo the reductions of `state/`, each proved to keep
//! every win), and `Unknown` means a budget ran out first — it never stands for "lost".
//!
//! Where each job lives:
//! - `config.rs`: [`Solver`], the configuration (limits, switches, threads, salt, plan);
//!   `mod.rs` (here): its public entry points, and the re-exports.
//! - `end.rs`: [`End`], how every search ends, [`Limit`], [`Verdict`]; `types.rs`: [`Limits`],
//!   [`Outcome`] and its one constructor, [`Phase`], [`Progress`], [`SolveError`].
//! - `plan.rs`: the plan as data; `schedule/`: its interpreter, how a solve spends its
//!   budgets — the quick phase, the restarted attempts, the probes (Luby's sequence), the
//!   best-first slices, the split of `--memory`.
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
mod config;
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

pub use config::Solver;
pub use end::{End, Limit, Verdict};
pub use plan::{FIRST_ATTEMPT_NODES, PROBE_NODES, PROVE_FROM_NODES};
pub use schedule::{PATH_MIN_BYTES, PATH_SHARE, PATH_WINDOW};
pub use types::{
    cpu_seconds, Cost, DiskUse, Limits, Outcome, Phase, Progress, QuotientProof, SolveError, Spent,
    DEFAULT_MEMORY_MIB,
};

use crate::deal::Deal;
use crate::state::Position;
use schedule::Context;
use std::sync::atomic::Ordering;

impl Solver {
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
