//! The solver's vocabulary: the budgets of a solve ([`Limits`], [`Limit`]), its answer
//! ([`Verdict`], [`Outcome`], [`Phase`]), what a running solve reports ([`Progress`]) and
//! the error a solve returns only for a bug ([`SolveError`]).

use super::end::{End, Limit, Verdict};
use crate::moves::Move;

/// Budgets for one solve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Stop after this many nodes (positions whose moves were generated).
    pub max_nodes: Option<u64>,
    /// Stop after this many seconds.
    pub max_seconds: Option<f64>,
    /// Bytes the solve may use: the transposition table, the search path of each thread, the
    /// best-first phase, the probes' table and the small caches (see [`super::PATH_SHARE`]
    /// and `solver/schedule.rs` for the split). The process's peak resident set stays within
    /// about this plus a fixed few MiB (the binary itself; `tests/memory.rs` checks it).
    pub memory_bytes: usize,
}

/// Default table budget: 4 GiB, a sixth of a 24 GiB machine, so a batch on two cores and the
/// rest of the system keep plenty of room. `--memory` changes it.
pub const DEFAULT_MEMORY_MIB: usize = 4096;

impl Limits {
    /// When `--max-seconds` ends a solve that started at `t0`, if it is set. A limit no
    /// clock can reach (infinite, or past what `Instant` holds) is no limit; a negative or
    /// NaN one ends the solve at once. (The CLI refuses those; library callers may not.)
    pub fn deadline(&self, t0: std::time::Instant) -> Option<std::time::Instant> {
        let s = self.max_seconds?;
        if s.is_nan() || s <= 0.0 {
            return Some(t0);
        }
        std::time::Duration::try_from_secs_f64(s)
            .ok()
            .and_then(|d| t0.checked_add(d))
    }
}

#[cfg(test)]
mod tests {
    use super::Limits;
    use std::time::{Duration, Instant};

    /// Absurd limits from a library caller never panic: huge ones are no limit, negative or
    /// NaN ones a limit already passed, ordinary ones what they say.
    #[test]
    fn deadlines_of_absurd_limits_do_not_overflow() {
        let t0 = Instant::now();
        let at = |s: f64| {
            Limits {
                max_seconds: Some(s),
                ..Limits::default()
            }
            .deadline(t0)
        };
        assert_eq!(at(f64::INFINITY), None);
        assert_eq!(at(1e300), None);
        assert_eq!(at(f64::MAX), None);
        assert_eq!(at(-1.0), Some(t0));
        assert_eq!(at(f64::NAN), Some(t0));
        assert_eq!(at(2.5), Some(t0 + Duration::from_millis(2500)));
        assert_eq!(Limits::default().deadline(t0), None);
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_nodes: None,
            max_seconds: None,
            memory_bytes: DEFAULT_MEMORY_MIB << 20,
        }
    }
}

/// What a solve found, and what it cost.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The verdict.
    pub verdict: Verdict,
    /// For `Solvable`: every single-card move from the deal to the win, automatic foundation
    /// moves included. Empty otherwise.
    pub moves: Vec<Move>,
    /// Positions whose moves the search generated.
    pub nodes: u64,
    /// Distinct states in the table at the end (the table of the search that decided: a
    /// probe's own when a probe did).
    pub states: u64,
    /// Most states the table held at once (over all attempts); the table was sized for it.
    pub peak_states: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// For `Unknown`: which budget ran out.
    pub limit: Option<Limit>,
    /// Most cards on the foundations in any position the search reached.
    pub best_home: u8,
    /// Table allocation at the end, in bytes (key and a tag-and-pin byte per slot).
    pub table_bytes: usize,
    /// Largest table allocation during the solve (a segment's growth included).
    pub peak_table_bytes: usize,
    /// Most bytes one thread's search path held (the line, the untried moves, the frames).
    pub peak_path_bytes: usize,
    /// Table entries replaced because the memory budget was reached.
    pub replaced: u64,
    /// Attempts in which a thread stopped tracking proofs to make room for its path (the
    /// attempt searched on; see `search.rs`).
    pub untracked: u32,
    /// Search attempts made (more than one when restarts cut earlier attempts short).
    pub attempts: u32,
    /// The phase that decided the deal (none for `Unknown`).
    pub phase: Option<Phase>,
    /// Positions the short-solution search expanded (none when it did not run).
    pub short_nodes: Option<u64>,
    /// True when the short-solution search proved that no win is shorter than `moves`.
    pub shortest: bool,
    /// Otherwise, the budget that stopped the short-solution search (its positions, the
    /// memory or `--max-seconds`).
    pub short_limit: Option<Limit>,
    /// For `Solvable`: the length of the search's first win, before the shortening pass and
    /// the short-solution search (equal to `moves.len()` when neither ran, as with `castle
    /// solve --raw`; never less). `None` otherwise.
    pub first_len: Option<usize>,
    /// True when `--max-seconds` stopped the shortening of the win (see
    /// [`crate::shorten::shorten_until`]): `moves` is the best line it had, and shorter ones
    /// may exist.
    pub shorten_cut: bool,
    /// The layered search's spill directory, when it had one (`--spill`).
    pub disk: Option<DiskUse>,
    /// The nodes each phase of the schedule spent (they add up to `nodes`).
    pub spent: Spent,
    /// CPU seconds the solve took (user and system): the solving thread's own with one
    /// thread, the whole process's with more (exact when the solve runs alone, as in
    /// `castle solve` and a batch's last pass; see [`cpu_seconds`]).
    pub cpu_seconds: f64,
    /// For `Unsolvable` by the quotient: the abstraction of the run that proved the loss,
    /// which the certificate pass tries first (see [`crate::solver::certify::CertifyOptions`]).
    pub lost_by: Option<QuotientProof>,
    /// For `Unsolvable` by the quotient, with [`crate::solver::Solver::keep_members`]: the
    /// positions of the run that proved the loss, when that run stored every one of them
    /// (it started with no earlier run's proofs), in the encoding of a certificate's members.
    /// The certificate pass takes them instead of searching the same positions again
    /// ([`crate::solver::certify::certify_from`]); the checker still checks them.
    pub lost_members: Option<crate::certificate::Members>,
}

/// The abstraction of a suit-blind quotient run that proved a deal lost (its window, the dealt
/// refinement and the cards it kept with their suit; see [`crate::certificate::Kind`]). A
/// hint, not a proof: the run that proved the loss may have skipped what earlier runs had
/// proved, and only a certificate the checker accepts is one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuotientProof {
    /// The window.
    pub k: u8,
    /// The dealt refinement.
    pub dealt: bool,
    /// Cards kept with their suit whatever the window, bit `rank * 4 + suit`.
    pub kept: u64,
}

/// The nodes each phase of a solve spent (see [`Phase`]): where the time of a deal went, and
/// what the phases before the deciding one cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spent {
    /// The quick phase.
    pub quick: u64,
    /// The portfolio's members (every slice).
    pub portfolio: u64,
    /// The suit-blind quotient's runs.
    pub quotient: u64,
    /// The restarted depth-first attempts (the layered search's expansions too).
    pub attempts: u64,
    /// The probes.
    pub probes: u64,
}

impl std::ops::Add for Spent {
    type Output = Spent;

    /// Each phase's nodes of both.
    fn add(self, b: Spent) -> Spent {
        Spent {
            quick: self.quick + b.quick,
            portfolio: self.portfolio + b.portfolio,
            quotient: self.quotient + b.quotient,
            attempts: self.attempts + b.attempts,
            probes: self.probes + b.probes,
        }
    }
}

impl Spent {
    /// Every phase's nodes.
    pub const fn total(&self) -> u64 {
        self.quick + self.portfolio + self.quotient + self.attempts + self.probes
    }
}

/// CPU seconds (user and system) used so far: by the calling thread alone (`thread`), or by
/// the whole process. Linux and the BSDs have both clocks; elsewhere 0.
pub fn cpu_seconds(thread: bool) -> f64 {
    #[cfg(unix)]
    {
        let clock = if thread {
            libc::CLOCK_THREAD_CPUTIME_ID
        } else {
            libc::CLOCK_PROCESS_CPUTIME_ID
        };
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `clock_gettime` writes one `timespec`, which lives on this stack.
        if unsafe { libc::clock_gettime(clock, &mut ts) } == 0 {
            return ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9;
        }
    }
    let _ = thread;
    0.0
}

/// What a search cost, as its outcome reports it (see [`Outcome`]'s fields of the same names).
#[derive(Clone, Debug, Default)]
pub struct Cost {
    /// Positions whose moves it generated.
    pub nodes: u64,
    /// States in its table at the end.
    pub states: u64,
    /// Most states its table held at once.
    pub peak_states: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Most cards home in a position it reached.
    pub best_home: u8,
    /// Table bytes at the end.
    pub table_bytes: usize,
    /// Most table bytes.
    pub peak_table_bytes: usize,
    /// Most bytes a thread's path held.
    pub peak_path_bytes: usize,
    /// Table entries replaced for room.
    pub replaced: u64,
    /// Attempts that stopped tracking proofs.
    pub untracked: u32,
    /// Attempts made.
    pub attempts: u32,
    /// The spill directory's use, when it had one.
    pub disk: Option<DiskUse>,
    /// Nodes per phase.
    pub spent: Spent,
}

impl Outcome {
    /// The one constructor: the outcome of a solve whose search ended with `end`, by `phase`
    /// when it decided, at `cost`. The fields a solve fills in later (the shortening, the
    /// short-solution search, the CPU time) start empty.
    pub fn new(end: End, phase: Phase, cost: Cost) -> Outcome {
        let mut out = Outcome {
            verdict: Verdict::Unknown,
            moves: Vec::new(),
            nodes: cost.nodes,
            states: cost.states,
            peak_states: cost.peak_states,
            seconds: cost.seconds,
            limit: None,
            best_home: cost.best_home,
            table_bytes: cost.table_bytes,
            peak_table_bytes: cost.peak_table_bytes,
            peak_path_bytes: cost.peak_path_bytes,
            replaced: cost.replaced,
            untracked: cost.untracked,
            attempts: cost.attempts,
            phase: None,
            short_nodes: None,
            shortest: false,
            short_limit: None,
            first_len: None,
            shorten_cut: false,
            disk: cost.disk,
            spent: cost.spent,
            cpu_seconds: 0.0,
            lost_by: None,
            lost_members: None,
        };
        out.settle(end, phase);
        out
    }

    /// An `Unknown` outcome that did nothing, stopped by `limit`.
    pub fn unknown(limit: Limit) -> Outcome {
        Outcome::new(End::Cut(limit), Phase::Complete, Cost::default())
    }

    /// The verdict, the line, the limit and the phase from how the search ended: the one
    /// place a verdict is minted. A cut names its limit and no phase; a decided end names the
    /// phase that decided (a later phase settling an undecided outcome, as the quotient beside
    /// the schedule does, calls this again).
    pub fn settle(&mut self, end: End, phase: Phase) {
        self.verdict = end.verdict();
        self.limit = end.limit();
        self.phase = (self.verdict != Verdict::Unknown).then_some(phase);
        self.moves = match end {
            End::Won(line) => line,
            End::Exhausted | End::Cut(_) => Vec::new(),
        };
    }
}

/// What the layered search's spill directory held (see `layered`'s "Out of core").
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiskUse {
    /// Most bytes in its files at once.
    pub peak_bytes: u64,
    /// Bytes written in all.
    pub written: u64,
    /// Classes that went on on disk.
    pub classes: u32,
    /// For [`Limit::Disk`]: what the file system answered.
    pub error: Option<String>,
    /// Taken up from a checkpoint: the positions expanded before it (counted in `nodes`).
    pub resumed_from: Option<u64>,
}

/// A solve that could not return its outcome: a bug, since the search's wins are replayed by
/// the independent checker before anyone sees them (the command-line tool exits with 1).
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// The win found does not replay on the checker's board.
    #[error("internal error: the solver's solution does not replay")]
    BadSolution(#[source] Box<crate::check::CheckError>),
    /// Shortening the win failed (see [`crate::shorten`]).
    #[error("internal error: shortening the solver's solution failed")]
    Shorten(#[source] Box<crate::shorten::ShortenError>),
    /// A check that guards a proof failed (see [`crate::solver::quotient::Broken`]): the
    /// solve decides nothing, rather than risk an `unsolvable` it could not stand behind.
    #[error("internal error: a check that guards the proof failed ({0}); the deal is not decided")]
    Invariant(String),
}

impl From<crate::shorten::ShortenError> for SolveError {
    fn from(e: crate::shorten::ShortenError) -> Self {
        SolveError::Shorten(Box::new(e))
    }
}

/// Progress of a running solve, passed to the progress callback.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Nodes so far.
    pub nodes: u64,
    /// States in the table now.
    pub states: u64,
    /// Seconds so far.
    pub seconds: f64,
    /// The layered search: the level being closed (cards home plus cards dealt).
    pub level: Option<u16>,
    /// The layered search's spill directory: bytes in its files now (0 without one).
    pub disk_bytes: u64,
}

/// Which phase of a solve decided it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// The quick phase: a search that plays every card that fits to the foundations at once
    /// (not proved safe, so it may miss wins; it only ever reports a win it found).
    Quick,
    /// A member of the portfolio of best-first searches run between the depth-first attempts
    /// (see [`super::portfolio`]). They use only exact reductions but may stop before they
    /// have seen everything, so they only ever report a win.
    BestFirst(super::portfolio::Member),
    /// The complete search (every reduction proved to keep every win): one of the restarted
    /// depth-first attempts.
    Complete,
    /// A probe: a short depth-first attempt in a new move order on a small table of its own
    /// (see [`super::PROBE_NODES`]), as exact as any attempt: its win is a win, and a probe
    /// that ends within its budget has searched every reachable position.
    Probe,
    /// The suit-blind quotient (see [`super::quotient`]): it exhausted an over-approximation of
    /// the reachable positions and met no win, a proof of `unsolvable`; or it met a won
    /// abstract position whose line is legal on the deal itself (every branch it took was the
    /// real card), a win replayed as every win.
    Quotient,
    /// The layered search (see [`super::layered`]): it closed every level of progress, a proof
    /// of `unsolvable`, or met a win, which is replayed as every win.
    Layered,
    /// The relocating swarm that the quotient's thread beside the schedule runs once the
    /// quotient is out of room (see `schedule::BESIDE_SWARM_SEED`): it only reports a win,
    /// replayed as every win.
    BesideSwarm,
}

impl Phase {
    /// The name used in every output.
    pub const fn name(self) -> &'static str {
        match self {
            Phase::Quick => "quick",
            Phase::BestFirst(m) => m.phase(),
            Phase::Complete => "complete",
            Phase::Probe => "probe",
            Phase::Quotient => "quotient",
            Phase::Layered => "layered",
            Phase::BesideSwarm => "swarm:beside",
        }
    }
}
