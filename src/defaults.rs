//! The defaults and bounds of what a user sets, defined once: the command line's flags and
//! the Python package's keyword arguments both read them, so the two never drift apart.

/// `--memory` / `memory_mib` when none is given: 4 GiB (see the solver's
/// [`crate::solver::DEFAULT_MEMORY_MIB`]).
pub const MEMORY_MIB: usize = crate::solver::DEFAULT_MEMORY_MIB;

/// The largest `--memory` / `memory_mib`, in MiB: 1 PiB (a larger number overflows the bytes
/// it stands for).
pub const MAX_MEMORY_MIB: usize = 1 << 30;

/// The most threads of a solve or a batch (`--threads`, `threads`).
pub const MAX_THREADS: usize = 256;

/// The longest time budget taken as one: 100 years (a longer one, up to infinity, means no
/// budget; `Instant` plus a larger duration can overflow).
pub const FOREVER_SECONDS: f64 = 100.0 * 365.25 * 86_400.0;

/// Positions the short-solution search of a plain solve may expand: about 0.1 s. `castle
/// solve --seed 42` goes from 129 moves to 72 with it.
pub const SHORT_NODES: u64 = 20_000;

/// Positions the short-solution search may expand when asked for (`--short`, `short=True`).
pub const SHORT_NODES_LONG: u64 = 1_000_000;

/// Percent of the memory budget the quotient holds on its own thread beside the schedule
/// (`--quotient-memory`).
pub const QUOTIENT_MEMORY_PERCENT: u8 = 25;

/// Seconds between two checkpoints of the layered search on disk (a checkpoint writes the
/// records stored since the last one and the pending classes' records: a few seconds at most
/// on this machine's disks for a search of a billion positions).
pub const CHECKPOINT_SECS: f64 = 120.0;
