//! The attempt scheduler: the interpreter of a solve's [`Plan`]. A quick phase, the
//! portfolio's first slice, the quotient's first run, then restarted depth-first attempts
//! with doubling node budgets, and between the long ones the plan's phases in its order:
//! slices of the portfolio ([`super::portfolio`]), the quotient's later runs, and probes
//! (short attempts on a small table of their own, cut by Luby's sequence). The plan holds
//! the budgets and shares (their measurements are in docs/performance-log.md, "The
//! schedule's constants"); here is the split of `--memory` between the table, the search
//! paths, the caches, the probes, the portfolio and the relocating swarm.

use super::bestfirst::Clock;
use super::plan::{Between, Plan, QuotientPlan};
use super::portfolio::Portfolio;
use super::{
    quotient, search, table, Cost, End, Limit, Outcome, Phase, Progress, SolveError, Solver, Spent,
    Verdict,
};
use crate::deal::Deal;
use crate::moves::Move;
use crate::state::Position;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

mod quotient_phase;
pub use quotient_phase::BESIDE_SWARM_SEED;
use quotient_phase::{quotient_step, QuotientSchedule, QuotientStep};

impl Solver {
    /// The schedule, with the quotient on a thread of its own when the solve has threads to
    /// spare (see [`Solver::attempts_beside_quotient`]).
    pub(super) fn attempts<const W: usize>(
        &self,
        deal: &Deal,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<Outcome, SolveError> {
        let plan = self.plan_for(deal);
        if let (true, Some(q), None, true) = (
            self.threads >= 2,
            plan.quotient,
            self.limits.max_nodes,
            quotient::applies(deal),
        ) {
            self.attempts_beside_quotient::<W>(deal, &plan, q, progress)
        } else {
            self.schedule::<W>(deal, progress, None)
        }
    }

    /// The schedule itself. `beside`: the quotient runs on a thread of its own, and this
    /// flag goes up once one of its runs meets a branch win (see `winnable_share`).
    fn schedule<const W: usize>(
        &self,
        deal: &Deal,
        progress: &mut dyn FnMut(&Progress),
        beside: Option<&AtomicBool>,
    ) -> Result<Outcome, SolveError> {
        let t0 = std::time::Instant::now();
        let plan = self.plan_for(deal);
        let threads = self.threads.max(1);
        // The recent-key caches take at most an eighth of the budget (in fact a few hundred
        // KiB), the best-first phase at most an eighth, the table and the search paths the
        // rest (see `PATH_SHARE`).
        let memory = self.limits.memory_bytes;
        let scratches: Vec<search::Scratch<W>> = (0..threads)
            .map(|_| search::Scratch::new(memory / 8 / threads))
            .collect();
        let caches: usize = scratches.iter().map(|s| s.cache_bytes()).sum();
        let pf_plan = plan.portfolio.as_ref();
        let bf_share = pf_plan.map_or(1, |pf| pf.share);
        let looks_winnable_share = pf_plan.and_then(|pf| pf.winnable_share);
        let loan_part = pf_plan.and_then(|pf| pf.loan_part);
        let bf_bytes = pf_plan.map_or(0, |pf| memory / pf.memory_part);
        // The relocating swarm's room of its own, if it runs.
        let own = pf_plan
            .and_then(|pf| pf.swarm_part)
            .map_or(0, |part| memory / part);
        let mut portfolio = pf_plan.filter(|_| bf_bytes > 0).map(|pf| {
            Portfolio::<W>::new(deal, self.pruning, &pf.members, bf_bytes, own, self.salt)
        });
        let portfolio_bytes = bf_bytes + portfolio.as_ref().map_or(0, |pf| pf.own);
        let clock = self.clock(t0);
        // The probes' table: a probe stores at most as many states as its nodes, some 30 bytes
        // each, and the longest probes replace entries past the cap.
        let probe_bytes = plan.probes.map_or(0, |p| (memory / 32).min(p.table_bytes));
        // Made when the first long attempt is cut: most deals never need them, and their
        // table and caches are not allocated for those.
        let probe_plan = plan.probes.filter(|_| probe_bytes > 0);
        let mut probes: Option<Probes<W>> = None;
        // What the search paths may take past their tables' budgets (see `path_slack`) is
        // counted in `--memory` too: it comes out of the main table's share.
        let main_slack = path_slack(self.path_floor, threads, memory);
        let probe_slack = if probe_bytes > 0 {
            path_slack(self.path_floor, threads, memory)
        } else {
            0
        };
        let table_bytes = memory
            .saturating_sub(caches + portfolio_bytes + probe_bytes + main_slack + probe_slack);
        let mut ctx = Context::new(
            deal,
            self,
            &plan,
            t0,
            table_bytes,
            memory / PATH_SHARE,
            main_slack,
            scratches,
        );
        // Under `--spill` without `--layered`, the schedule stops once its table is full and
        // the layered search takes the deal on (see `Solver::spill`).
        ctx.stop_when_full = self.spill.is_some() && !self.layered && super::layered::applies(deal);
        // The room of `--memory` the other phases hold: the quotient's runs (the early one
        // and the phase's) take what they leave.
        let reserved = caches + portfolio_bytes + probe_bytes + main_slack + probe_slack;
        let mut attempts = 0u32;
        if let Some(quick) = plan.quick {
            // The quick phase: a win it finds is real (and replayed like any other); if it
            // finds none, whatever the reason, the complete search below decides.
            let budget = match self.limits.max_nodes {
                Some(m) => m.min(quick),
                None => quick,
            };
            attempts += 1;
            match ctx.attempt(Some(budget), 0, true, progress) {
                end @ (End::Won(_) | End::Cut(Limit::Seconds | Limit::Memory | Limit::Stopped)) => {
                    return Ok(ctx.outcome(end, attempts, Phase::Quick));
                }
                End::Cut(Limit::Nodes) => {
                    // Not decided at once: the quotient's short early run, where the plan has
                    // one, then the portfolio's first slice.
                    if let Some((q, nodes)) = plan.quotient.and_then(|q| Some((q, q.early_nodes?)))
                    {
                        let early = quotient_phase::early_quotient_step(
                            q,
                            nodes,
                            self.keep_members,
                            &mut ctx,
                            reserved,
                            &mut portfolio,
                            attempts,
                        );
                        if let Some(out) = early {
                            return out;
                        }
                    }
                    if let (Some(pf), Some(slice)) = (portfolio.as_mut(), plan.early_slice) {
                        let out = portfolio_slice(pf, loan_part, slice, &mut ctx, clock, attempts);
                        if let Some(out) = out {
                            return Ok(out);
                        }
                    }
                }
                _ => {}
            }
        }
        // The quotient phase: its first run now, the later ones as the attempts earn them
        // (see `QuotientSchedule`).
        let mut quotient = plan
            .quotient
            .map(|p| QuotientSchedule::new(p).collecting(self.keep_members));
        if let Some(out) =
            quotient_step(&mut quotient, &mut ctx, reserved, &mut portfolio, attempts)
        {
            return out;
        }
        let mut k = 0u32;
        loop {
            let mut budget = plan
                .attempts
                .first
                .map(|first| first.saturating_mul(1 << k.min(40)));
            let global_left = self.limits.max_nodes.map(|m| m.saturating_sub(ctx.done));
            let global_binds = match (budget, global_left) {
                (_, None) => false,
                (None, Some(_)) => true,
                (Some(b), Some(g)) => g <= b,
            };
            if global_binds {
                budget = global_left;
            }
            attempts += 1;
            let end = ctx.attempt(budget, u64::from(k), false, progress);
            if end == End::Cut(Limit::Nodes) && !global_binds {
                // A slice of the portfolio: the best-first member a quarter of the attempt's
                // nodes (a half with a stock, all of them once an sa deal looks winnable; see
                // `winnable_share`), each other member its share of that.
                for &phase in &plan.between {
                    let Some(b) = budget else { break };
                    match phase {
                        Between::Portfolio => {
                            let Some(pf) = portfolio.as_mut() else {
                                continue;
                            };
                            let branched = quotient.as_ref().is_some_and(|q| q.branched)
                                || beside.is_some_and(|b| b.load(Ordering::Relaxed));
                            let share = looks_winnable_share
                                .filter(|_| branched)
                                .unwrap_or(bf_share);
                            let unit = (b / share).max(1);
                            if let Some(out) =
                                portfolio_slice(pf, loan_part, unit, &mut ctx, clock, attempts)
                            {
                                return Ok(out);
                            }
                            if pf.is_done() {
                                portfolio = None;
                            }
                        }
                        Between::Quotient => {
                            let Some(q) = quotient.as_mut() else {
                                continue;
                            };
                            q.earn(b, ctx.done.saturating_sub(ctx.spent.quotient));
                            if let Some(out) = quotient_step(
                                &mut quotient,
                                &mut ctx,
                                reserved,
                                &mut portfolio,
                                attempts,
                            ) {
                                return out;
                            }
                        }
                        Between::Probes => {
                            let Some(pp) = probe_plan else {
                                continue;
                            };
                            let p = probes.get_or_insert_with(|| {
                                Probes::new(
                                    deal,
                                    self,
                                    &plan,
                                    t0,
                                    probe_bytes,
                                    probe_slack,
                                    threads,
                                )
                            });
                            p.earn(b, pp.share);
                            if let Some(out) = p.run(&mut ctx, &mut attempts, progress) {
                                return Ok(out);
                            }
                        }
                    }
                }
                k += 1;
                continue;
            }
            return Ok(ctx.outcome(end, attempts, Phase::Complete));
        }
    }
}

impl Solver {
    /// The quotient on a thread of its own beside the schedule, which runs on the other
    /// threads without it (see "The quotient beside the schedule" in design.md). The quotient
    /// gets `1 / QUOTIENT_THREAD_PART` of `--memory` (or [`Solver::quotient_percent`]) and the
    /// schedule the rest. Whichever decides first stops the other: the quotient's `Lost` is a
    /// proof and its win is a line played on the deal, replayed by the checker like every
    /// other, so the verdict is the schedule's own whichever side gives it; the nodes of both
    /// are counted.
    fn attempts_beside_quotient<const W: usize>(
        &self,
        deal: &Deal,
        plan: &Plan,
        q_plan: QuotientPlan,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<Outcome, SolveError> {
        let t0 = Instant::now();
        let memory = self.limits.memory_bytes;
        let q_bytes = match self.quotient_percent {
            Some(p) => (memory as u128 * u128::from(p.clamp(1, 90)) / 100) as usize,
            None => memory / q_plan.thread_part,
        };
        // Raised by the quotient when it decides (the schedule stops), or by the watcher when
        // the caller raises the solve's own flag.
        let halt = Arc::new(AtomicBool::new(false));
        // Raised when the schedule has ended (the quotient stops), or with the caller's flag.
        let q_stop = AtomicBool::new(false);
        let branched = AtomicBool::new(false);
        let schedule = Solver {
            threads: self.threads - 1,
            quotient: false,
            stop: Some(Arc::clone(&halt)),
            limits: super::Limits {
                memory_bytes: memory - q_bytes,
                ..self.limits
            },
            ..self.clone()
        };
        let deadline = self.limits.deadline(t0);
        // Once the quotient is out of room its thread runs a relocating swarm of its own
        // there, if the solve's portfolio has that member (see `BESIDE_SWARM_SEED`).
        let swarm = plan.portfolio.as_ref().is_some_and(|pf| {
            pf.members
                .iter()
                .any(|m| m.member == super::portfolio::Member::RelocateSwarm)
        });
        let (out, beside) = std::thread::scope(|s| {
            let quotient = s.spawn(|| {
                let clock = Clock {
                    deadline,
                    stop: Some(&q_stop),
                };
                let b = beside_thread::<W>(
                    deal,
                    QuotientSchedule::new(q_plan).collecting(self.keep_members),
                    self.pruning,
                    q_bytes,
                    clock,
                    &branched,
                    swarm,
                    self.salt,
                );
                if b.swarm_win.is_some()
                    || matches!(
                        b.step,
                        QuotientStep::Lost { .. }
                            | QuotientStep::Won { .. }
                            | QuotientStep::Broken(_)
                    )
                {
                    halt.store(true, Ordering::Relaxed);
                }
                b
            });
            // The caller's flag reaches both sides through this watcher (each search reads
            // one flag).
            let watcher = s.spawn(|| {
                while !q_stop.load(Ordering::Relaxed) {
                    if self.stopped() {
                        halt.store(true, Ordering::Relaxed);
                        q_stop.store(true, Ordering::Relaxed);
                    }
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
            });
            let out = schedule.schedule::<W>(deal, progress, Some(&branched));
            q_stop.store(true, Ordering::Relaxed);
            let q = quotient.join().expect("the quotient's thread panicked");
            watcher.join().expect("the stop watcher panicked");
            (out, q)
        });
        let Beside {
            step,
            quotient_nodes,
            swarm_win,
            swarm_nodes,
        } = beside;
        // A broken invariant is a bug, reported whoever decided (as in the schedule).
        if let QuotientStep::Broken(why) = &step {
            return Err(SolveError::Invariant(why.to_string()));
        }
        let mut out = out?;
        out.nodes += quotient_nodes + swarm_nodes;
        out.spent.quotient += quotient_nodes;
        out.spent.portfolio += swarm_nodes;
        // The schedule's own verdict stands if it gave one; otherwise the quotient's. (The
        // schedule stops on `halt` only when the quotient decided or the caller's flag went
        // up, so an undecided quotient leaves the schedule's own limit in place.)
        if out.verdict == Verdict::Unknown {
            match step {
                QuotientStep::Lost {
                    positions,
                    by,
                    members,
                } => {
                    out.settle(End::Exhausted, Phase::Quotient);
                    out.lost_by = Some(by);
                    out.lost_members = members;
                    out.states = positions;
                    out.peak_states = out.peak_states.max(positions);
                }
                QuotientStep::Won { line } => out.settle(End::Won(line), Phase::Quotient),
                _ => {
                    if let Some(line) = swarm_win {
                        out.settle(End::Won(line), Phase::BesideSwarm);
                    }
                }
            }
        }
        out.seconds = t0.elapsed().as_secs_f64();
        Ok(out)
    }
}

/// The quotient's runs on a thread of their own (see [`Solver::attempts_beside_quotient`]):
/// the runs of [`QuotientSchedule`] with no share to earn, each false win refining the next,
/// a run cut by its nodes doubling the next's budget, until one decides, the clock stops
/// them or a run runs out of room. Raises `branched` at the first branch win. Returns the
/// last step and the nodes of all the runs.
fn quotient_alone(
    deal: &Deal,
    mut q: QuotientSchedule,
    bytes: usize,
    clock: Clock<'_>,
    branched: &AtomicBool,
) -> (QuotientStep, u64) {
    let mut done = 0u64;
    loop {
        // Credit for exactly the next run, so that the flag goes up after the run that meets
        // the first branch win, not after the last run.
        q.credit = q.budget;
        let step = q.run(deal, &mut done, None, bytes, clock, false);
        if q.branched {
            branched.store(true, Ordering::Relaxed);
        }
        // `Continue`: that run decided nothing; the next, unless the phase is off.
        if !matches!(step, QuotientStep::Continue) || q.off {
            return (step, done);
        }
    }
}

/// What the thread beside the schedule did (see [`beside_thread`]).
struct Beside {
    /// The quotient's last step.
    step: QuotientStep,
    quotient_nodes: u64,
    /// The swarm's win, if it ran and won.
    swarm_win: Option<Vec<Move>>,
    swarm_nodes: u64,
}

/// The thread beside the schedule (see [`Solver::attempts_beside_quotient`]): the quotient's
/// runs ([`quotient_alone`]) and, if they end out of room (the phase off, with no verdict,
/// deadline or stop) and `swarm` is set, a relocating swarm of its own in the quotient's
/// `bytes` for the rest of the solve ([`super::portfolio::swarm_alone`], random orders drawn
/// from [`BESIDE_SWARM_SEED`]).
#[allow(clippy::too_many_arguments)]
fn beside_thread<const W: usize>(
    deal: &Deal,
    quotient: QuotientSchedule,
    prune: crate::state::Pruning,
    bytes: usize,
    clock: Clock<'_>,
    branched: &AtomicBool,
    swarm: bool,
    salt: u64,
) -> Beside {
    let (step, quotient_nodes) = quotient_alone(deal, quotient, bytes, clock, branched);
    let (swarm_win, swarm_nodes) = if swarm && matches!(step, QuotientStep::Continue) {
        let seed = super::portfolio::salted(BESIDE_SWARM_SEED, salt);
        super::portfolio::swarm_alone::<W>(deal, prune, seed, bytes, clock)
    } else {
        (None, 0)
    };
    Beside {
        step,
        quotient_nodes,
        swarm_win,
        swarm_nodes,
    }
}

/// One slice of the portfolio, `unit` nodes for its best-first member (the others their
/// share of it; see [`Portfolio::run`]), within what `--max-nodes` leaves, sharing the
/// table's proved positions. Returns the outcome if the slice ends the solve (a win, or the
/// deadline). A member out of room, or out of positions, stops, and its bytes go to the
/// table.
fn portfolio_slice<const W: usize>(
    pf: &mut Portfolio<'_, W>,
    loan_part: Option<usize>,
    unit: u64,
    ctx: &mut Context<'_, W>,
    clock: Clock<'_>,
    attempts: u32,
) -> Option<Outcome> {
    let cap = ctx
        .solver
        .limits
        .max_nodes
        .map(|m| m.saturating_sub(ctx.done));
    if cap == Some(0) {
        // `--max-nodes` is spent (a member always expands at least one position).
        return None;
    }
    // The table takes back its loans once it is short of room.
    if ctx.table.take_refused() {
        let freed = pf.recall();
        ctx.table.grant(freed);
    }
    let lend = loan_part.map_or(0, |part| ctx.table.room() / part);
    let before = pf.expanded;
    let (turn, bytes) = pf.run(unit, cap, clock, ctx.pool.as_ref(), Some(&ctx.table), lend);
    ctx.done += pf.expanded - before;
    ctx.spent.portfolio += pf.expanded - before;
    ctx.table.lend(bytes.borrowed);
    ctx.table.grant(bytes.freed);
    match turn {
        End::Won((line, member)) => {
            Some(ctx.outcome(End::Won(line), attempts, Phase::BestFirst(member)))
        }
        // The slice was spent (the portfolio never ends `Exhausted`: its members only look
        // for wins, and one that runs out of positions leaves its seat).
        End::Cut(Limit::Nodes) | End::Exhausted => None,
        // Out of time: the slice's own cut names the limit.
        End::Cut(l) => Some(ctx.outcome(End::Cut(l), attempts, Phase::Complete)),
    }
}

/// The search paths share the table's budget, and the table always leaves them
/// `1 / PATH_SHARE` of `--memory`; a path the budget cannot hold ends the search `unknown`
/// (memory), never a verdict (performance log, "The schedule's constants", PATH_SHARE).
pub const PATH_SHARE: usize = 8;

/// What the paths may take past their table's budget, per thread (a floor for tiny budgets;
/// see [`path_slack`]).
pub const PATH_MIN_BYTES: usize = 16 << 20;

/// What the search paths of one table (the main one or the probes') may take past that table's
/// budget: [`Solver::path_floor`] per thread, but never more than `1 / PATH_SHARE` of
/// `--memory` (8 MiB at 64 MiB), so that a small budget keeps room for its table. The schedule
/// takes this slack out of the main table's share, so it stays inside `--memory`: a path that
/// outgrows it ends the search as `unknown` (memory). With the default 4 GiB the slack is the
/// floor itself, as before, and the tables never fill on the benchmarks, so their node
/// counts are unchanged.
fn path_slack(floor: usize, threads: usize, memory: usize) -> usize {
    (floor * threads).min(memory / PATH_SHARE)
}

/// Frames at the top of a path that keep their move lists (see [`Solver::path_window`]): up
/// to twice this many lists, some 60 KiB, stay in the cache; below them a level costs its
/// frame and its share of the line, not its untried moves as well.
pub const PATH_WINDOW: usize = 1024;

/// Jitter of the first probe's move order, far from the long attempts' (their number).
const PROBE_JITTER: u64 = 1 << 32;

/// The probes of one solve (see [`crate::solver::plan::PROBE_NODES`]): their own table and threads, and their
/// node account.
struct Probes<'a, const W: usize> {
    ctx: Context<'a, W>,
    /// Nodes of the shortest probe.
    unit: u64,
    /// Probes run so far (each one's move order and Luby term come from it).
    run: u64,
    /// Nodes the probes may still take: an eighth of the long attempts' budgets, carried
    /// over, so a probe waits until the attempts have earned its size.
    credit: u64,
}

impl<'a, const W: usize> Probes<'a, W> {
    fn new(
        deal: &'a Deal,
        solver: &'a Solver,
        plan: &Plan,
        t0: std::time::Instant,
        bytes: usize,
        slack: usize,
        threads: usize,
    ) -> Self {
        let unit = plan.probes.map_or(1, |p| p.unit);
        let scratches: Vec<search::Scratch<W>> = (0..threads)
            .map(|_| search::Scratch::new(bytes / 8 / threads))
            .collect();
        let caches: usize = scratches.iter().map(|s| s.cache_bytes()).sum();
        let table = bytes - caches.min(bytes / 2);
        Probes {
            ctx: Context::new(
                deal,
                solver,
                plan,
                t0,
                table,
                bytes / PATH_SHARE,
                slack,
                scratches,
            ),
            unit: unit.max(1),
            run: 0,
            credit: 0,
        }
    }

    /// Credits the probes with `1 / share` of a long attempt's `budget`.
    fn earn(&mut self, budget: u64, share: u64) {
        self.credit += budget / share.max(1);
    }

    /// Runs the probes the credit pays for, each counted in `main`'s nodes and `attempts`;
    /// the outcome when one decides the deal or the time runs out.
    fn run(
        &mut self,
        main: &mut Context<'a, W>,
        attempts: &mut u32,
        progress: &mut dyn FnMut(&Progress),
    ) -> Option<Outcome> {
        loop {
            let mut nodes = self.unit.saturating_mul(super::luby::luby(self.run + 1));
            if nodes > self.credit {
                return None;
            }
            if let Some(m) = main.solver.limits.max_nodes {
                nodes = nodes.min(m.saturating_sub(main.done));
            }
            if nodes == 0 {
                return None;
            }
            *attempts += 1;
            self.run += 1;
            let p = &mut self.ctx;
            p.done = main.done;
            // The spinner counts the states both tables hold.
            let held = main.table.len() as u64;
            let mut shown = |now: &Progress| {
                progress(&Progress {
                    states: held + now.states,
                    ..*now
                })
            };
            let end = p.attempt(Some(nodes), PROBE_JITTER + self.run, false, &mut shown);
            self.credit -= (p.done - main.done).min(self.credit);
            main.spent.probes += p.done - main.done;
            main.done = p.done;
            main.best_home = main.best_home.max(p.best_home);
            main.peak_path = main.peak_path.max(p.peak_path);
            main.untracked += std::mem::take(&mut p.untracked);
            // A probe is an exact search like any attempt: its win is a win, and a probe
            // that ends within its budget has searched every reachable position.
            // Its outcome counts the states of the table that decided, the probe's.
            match end {
                End::Won(_) | End::Exhausted => {
                    let mut out = main.outcome(end, *attempts, Phase::Probe);
                    out.states = p.table.len() as u64;
                    out.peak_states = out.peak_states.max(p.table.peak_len() as u64);
                    return Some(out);
                }
                End::Cut(Limit::Seconds | Limit::Stopped) => {
                    return Some(main.outcome(end, *attempts, Phase::Probe));
                }
                // Out of nodes, or out of its small table's room: the next.
                End::Cut(Limit::Nodes | Limit::Memory | Limit::Disk) => {}
            }
        }
    }
}

/// What the attempts of one solve share.
pub(super) struct Context<'a, const W: usize> {
    deal: &'a Deal,
    solver: &'a Solver,
    t0: std::time::Instant,
    pub(super) table: table::Table<W>,
    scratches: Vec<search::Scratch<W>>,
    pub(super) pool: Option<rayon::ThreadPool>,
    /// See [`search::Run::donate_mask`].
    pub(super) donate_mask: u64,
    /// Nodes of the attempts so far.
    done: u64,
    best_home: u8,
    /// Most bytes a thread's path held (see [`Outcome::peak_path_bytes`]).
    peak_path: usize,
    /// Attempts that stopped tracking proofs (see [`Outcome::untracked`]).
    untracked: u32,
    /// The table's proved marks come from an exact attempt that kept proofs (the quick
    /// phase's do not: its foundation moves are not proved safe).
    proofs: bool,
    /// The nodes of `done`, phase by phase (see [`Outcome::spent`]).
    spent: Spent,
    /// See [`search::Run::stop_when_full`]: set on the main table's context only.
    pub(super) stop_when_full: bool,
    /// Attempts with at least this budget keep proofs (the plan's; `None` without
    /// restarts).
    keep_proofs_from: Option<u64>,
}

impl<'a, const W: usize> Context<'a, W> {
    /// The shared state of a solve: a table of `table_bytes` that leaves the search paths
    /// `path_bytes` (their share of `--memory`), one scratch per thread, and a pool for more
    /// than one.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        deal: &'a Deal,
        solver: &'a Solver,
        plan: &Plan,
        t0: std::time::Instant,
        table_bytes: usize,
        path_bytes: usize,
        path_slack: usize,
        scratches: Vec<search::Scratch<W>>,
    ) -> Self {
        let threads = scratches.len();
        Context {
            deal,
            solver,
            t0,
            table: table::Table::<W>::new(table_bytes).with_paths(path_bytes, path_slack),
            scratches,
            pool: (threads > 1).then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .thread_name(|i| format!("castle-solve-{i}"))
                    .build()
                    .expect("a thread pool for the search")
            }),
            donate_mask: search::DONATE_EVERY,
            done: 0,
            best_home: deal.cards_home() as u8,
            peak_path: 0,
            untracked: 0,
            proofs: false,
            spent: Spent::default(),
            stop_when_full: false,
            keep_proofs_from: plan.attempts.first.and(plan.attempts.keep_proofs_from),
        }
    }

    /// One search from the deal with a fresh table: its win, its exhaustion, or the limit
    /// that cut it.
    pub(super) fn attempt(
        &mut self,
        budget: Option<u64>,
        jitter: u64,
        greedy: bool,
        progress: &mut dyn FnMut(&Progress),
    ) -> End {
        if self.proofs {
            self.table.forget_open();
        } else {
            self.table.clear();
        }
        for s in &mut self.scratches {
            s.clear();
        }
        let mut run = search::Run::new(self.deal, self.solver, self.t0);
        run.budget = budget;
        run.done = self.done;
        run.jitter = jitter;
        run.greedy = greedy;
        run.donate_mask = self.donate_mask;
        run.stop_when_full = self.stop_when_full;
        // Proofs are for later attempts: only restarts have any, and only big attempts pay
        // for their bookkeeping (see `PROVE_FROM_NODES`).
        run.prove = !greedy
            && matches!((self.keep_proofs_from, budget), (Some(from), Some(b)) if b >= from);
        self.proofs = run.prove;
        match &self.pool {
            None => {
                let mut pos = Position::new(self.deal);
                search::dfs::<W, _>(
                    &run,
                    &mut &mut self.table,
                    &mut self.scratches[0],
                    &mut pos,
                    &[],
                    search::Root::Enter,
                    &mut |_| {},
                    progress,
                );
            }
            Some(pool) => {
                run.parallel = true;
                search::parallel(&run, &self.table, &mut self.scratches, pool, progress);
            }
        }
        let nodes = run.nodes.load(Ordering::Relaxed);
        self.done += nodes;
        if greedy {
            self.spent.quick += nodes;
        } else {
            self.spent.attempts += nodes;
        }
        self.best_home = self.best_home.max(run.best_home.load(Ordering::Relaxed));
        self.peak_path = self.peak_path.max(run.peak_path.load(Ordering::Relaxed));
        self.untracked += u32::from(run.untracked.load(Ordering::Relaxed));
        let win = run.win.into_inner().unwrap_or_else(|e| e.into_inner());
        let limit = run.limit.into_inner().unwrap_or_else(|e| e.into_inner());
        End::of(win, limit)
    }

    /// The outcome of the solve, ended by `end` (decided by `phase` unless cut), at what the
    /// attempts have spent so far. The win is shortened (with `Solver::shorten`) and replayed
    /// by `Solver::solve_w` and `Solver::solve_with_progress`, where a failure can be returned.
    fn outcome(&self, end: End, attempts: u32, phase: Phase) -> Outcome {
        let cost = Cost {
            nodes: self.done,
            states: self.table.len() as u64,
            peak_states: self.table.peak_len() as u64,
            seconds: self.t0.elapsed().as_secs_f64(),
            best_home: self.best_home,
            table_bytes: self.table.bytes(),
            peak_table_bytes: self.table.peak_bytes(),
            peak_path_bytes: self.peak_path,
            replaced: self.table.replaced(),
            untracked: self.untracked,
            attempts,
            disk: None,
            spent: self.spent,
        };
        Outcome::new(end, phase, cost)
    }
}

#[cfg(test)]
mod tests;
