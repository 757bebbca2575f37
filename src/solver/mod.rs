//! The exact solver: budgets, verdicts, and the entry point that picks the key width.
//!
//! A verdict is exact: `Solvable` comes with a move list (the tests replay every one with the
//! independent checker in `check.rs`), `Unsolvable` means the depth-first search entered every
//! position reachable from the deal (modulo the reductions of `state.rs`, each proved to keep
//! every win), and `Unknown` means a budget ran out first — it never stands for "lost".

mod search;
pub mod table;

use crate::deal::Deal;
use crate::moves::Move;
use crate::state::{Position, Pruning};
use std::fmt;

/// Budgets for one solve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Stop after this many nodes (positions whose moves were generated).
    pub max_nodes: Option<u64>,
    /// Stop after this many seconds.
    pub max_seconds: Option<f64>,
    /// Bytes the transposition table may use.
    pub memory_bytes: usize,
}

/// Default table budget: 4 GiB, a sixth of a 24 GiB machine, so a batch on two cores and the
/// rest of the system keep plenty of room. `--memory` changes it.
pub const DEFAULT_MEMORY_MIB: usize = 4096;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_nodes: None,
            max_seconds: None,
            memory_bytes: DEFAULT_MEMORY_MIB << 20,
        }
    }
}

/// Which budget stopped a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Limit {
    /// `--max-nodes`.
    Nodes,
    /// `--max-seconds`.
    Seconds,
    /// The table is full of states on the current path (raise `--memory`).
    Memory,
}

impl Limit {
    /// The name used in JSON (`"nodes"`, `"seconds"`, `"memory"`).
    pub const fn name(self) -> &'static str {
        match self {
            Limit::Nodes => "nodes",
            Limit::Seconds => "seconds",
            Limit::Memory => "memory",
        }
    }
}

/// The answer for one deal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// A win exists; the outcome holds one.
    Solvable,
    /// No win exists: the whole reachable space was searched.
    Unsolvable,
    /// A budget ran out before either was shown.
    Unknown,
}

impl Verdict {
    /// The name used in every output.
    pub const fn name(self) -> &'static str {
        match self {
            Verdict::Solvable => "solvable",
            Verdict::Unsolvable => "unsolvable",
            Verdict::Unknown => "unknown",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
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
    /// Distinct states in the table at the end.
    pub states: u64,
    /// Most states the table held at once (over all attempts); the table was sized for it.
    pub peak_states: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// For `Unknown`: which budget ran out.
    pub limit: Option<Limit>,
    /// Most cards on the foundations in any position the search reached.
    pub best_home: u8,
    /// Table allocation at the end, in bytes (key, tag and pin bit per slot).
    pub table_bytes: usize,
    /// Table entries replaced because the memory budget was reached.
    pub replaced: u64,
    /// Search attempts made (more than one when restarts cut earlier attempts short).
    pub attempts: u32,
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
}

/// A configured solver.
#[derive(Clone, Copy, Debug)]
pub struct Solver {
    /// Budgets.
    pub limits: Limits,
    /// The reductions in use (all on by default).
    pub pruning: Pruning,
    /// Restart with a varied move order and a doubled node budget while attempts stay small
    /// (see [`Solver::solve_with_progress`]).
    pub restarts: bool,
    /// Shorten every win found (see [`crate::shorten`]): cut loops, merge a card's
    /// consecutive moves. Never changes a verdict; the result is replayed.
    pub shorten: bool,
}

impl Default for Solver {
    fn default() -> Self {
        Solver {
            limits: Limits::default(),
            pruning: Pruning::default(),
            restarts: true,
            shorten: true,
        }
    }
}

/// Node budget of the first attempt when restarts are on.
const FIRST_ATTEMPT_NODES: u64 = 20_000;

impl Solver {
    /// Solves a validated deal.
    pub fn solve(&self, deal: &Deal) -> Outcome {
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
    /// move order, and the table is cleared between attempts. Every attempt uses only exact
    /// rules, so any attempt that ends within its budget has entered every reachable position
    /// and its verdict is exact; the attempts cut short cost at most as many nodes again as
    /// the last one (the budgets double). `--max-nodes` and `--max-seconds` bound the total.
    pub fn solve_with_progress(&self, deal: &Deal, progress: &mut dyn FnMut(&Progress)) -> Outcome {
        let pos = Position::new(deal);
        // The key of a deal of this family needs at most 8 * (6 + 8) + 2 * 52 = 216 bits
        // (`key_bits_bound`), so three words serve the dealt games and four any board.
        if pos.key_bits_bound() <= 192 {
            self.attempts::<3>(deal, progress)
        } else {
            assert!(
                pos.key_bits_bound() <= 256,
                "deal too large for the state key"
            );
            self.attempts::<4>(deal, progress)
        }
    }

    fn attempts<const W: usize>(
        &self,
        deal: &Deal,
        progress: &mut dyn FnMut(&Progress),
    ) -> Outcome {
        let t0 = std::time::Instant::now();
        let mut table = table::Table::<W>::new(self.limits.memory_bytes);
        let mut scratch = search::Scratch::default();
        let mut done = 0u64;
        let mut attempt = 0u32;
        loop {
            let mut budget = self
                .restarts
                .then(|| FIRST_ATTEMPT_NODES.saturating_mul(1 << attempt.min(40)));
            let global_left = self.limits.max_nodes.map(|m| m.saturating_sub(done));
            let global_binds = match (budget, global_left) {
                (_, None) => false,
                (None, Some(_)) => true,
                (Some(b), Some(g)) => g <= b,
            };
            if global_binds {
                budget = global_left;
            }
            let mut pos = Position::new(deal);
            table.clear();
            let jitter = u64::from(attempt);
            let run = search::Attempt {
                t0,
                budget,
                done,
                jitter,
            };
            let mut out =
                search::dfs::<W>(&mut pos, self, &mut table, &mut scratch, &run, progress);
            done += out.nodes;
            let cut = out.limit == Some(Limit::Nodes) && !global_binds;
            if !cut {
                if self.shorten && out.verdict == Verdict::Solvable {
                    out.moves = crate::shorten::shorten(deal, &out.moves);
                }
                out.nodes = done;
                out.seconds = t0.elapsed().as_secs_f64();
                out.attempts = attempt + 1;
                return out;
            }
            attempt += 1;
        }
    }
}
