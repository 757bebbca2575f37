//! How a search ends: the one answer every engine gives (the restarted depth-first attempts,
//! the probes, the best-first passes and the portfolio's members, the swarm, the suit-blind
//! quotient's runs, the layered search), and the one place a verdict is minted from it
//! ([`End::verdict`], read only by [`super::Outcome::new`] and [`super::Outcome::settle`]).
//!
//! An engine that searches part of the game (a best-first pass, which only looks for wins, or
//! a quotient run, whose win is abstract) ends the same way; what its end proves is for its
//! caller to say, and only an exact search's `Exhausted` reaches an outcome as a loss.

use crate::moves::Move;
use std::fmt;

/// How a search ended. `W` is what a win carries: the line of single-card moves for the
/// game's own searches; nothing for a pass that keeps its line (`End<()>`, taken with its
/// `take_win`); an abstract line for the quotient (see `quotient::QuotientResult`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum End<W = Vec<Move>> {
    /// A win.
    Won(W),
    /// Every position the search could reach was searched, and none is won.
    Exhausted,
    /// A budget, the deadline or the stop flag cut it first: never a verdict.
    Cut(Limit),
}

impl<W> End<W> {
    /// The verdict this end gives when the search that ended so is exact.
    pub const fn verdict(&self) -> Verdict {
        match self {
            End::Won(_) => Verdict::Solvable,
            End::Exhausted => Verdict::Unsolvable,
            End::Cut(_) => Verdict::Unknown,
        }
    }

    /// The limit that cut it, if one did.
    pub const fn limit(&self) -> Option<Limit> {
        match self {
            End::Cut(l) => Some(*l),
            _ => None,
        }
    }

    /// True when it won.
    pub const fn won(&self) -> bool {
        matches!(self, End::Won(_))
    }

    /// True when the deadline or the stop flag cut it: the solve is over, whatever the
    /// budgets left.
    pub const fn out_of_time(&self) -> bool {
        matches!(self, End::Cut(Limit::Seconds | Limit::Stopped))
    }

    /// The same end with the win's payload mapped.
    pub fn map<V>(self, f: impl FnOnce(W) -> V) -> End<V> {
        match self {
            End::Won(w) => End::Won(f(w)),
            End::Exhausted => End::Exhausted,
            End::Cut(l) => End::Cut(l),
        }
    }

    /// The end of a search that reports a win in `win` and otherwise the limit that cut it
    /// (`None`: it ran out of positions); a win counts whatever else happened.
    pub fn of(win: Option<W>, limit: Option<Limit>) -> End<W> {
        match (win, limit) {
            (Some(w), _) => End::Won(w),
            (None, Some(l)) => End::Cut(l),
            (None, None) => End::Exhausted,
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
    /// The memory budget ran out: the table is full of states on the current path, or the path
    /// itself outgrew its share (raise `--memory`).
    Memory,
    /// The layered search's spill directory failed (a full disk, say): see its message.
    Disk,
    /// The caller raised the solver's stop flag ([`super::Solver::stop`]): Ctrl-C in the
    /// Python module, say.
    Stopped,
}

impl Limit {
    /// The name used in JSON (`"nodes"`, `"seconds"`, `"memory"`, `"disk"`, `"stopped"`).
    pub const fn name(self) -> &'static str {
        match self {
            Limit::Nodes => "nodes",
            Limit::Seconds => "seconds",
            Limit::Memory => "memory",
            Limit::Disk => "disk",
            Limit::Stopped => "stopped",
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
