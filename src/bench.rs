//! The fixed benchmark sets of `castle bench` and the `benches/` harness: the same deals every
//! run, so total node counts double as a regression signature.

use crate::deal::Deal;
use crate::rules::Variant;
use crate::solver::{Solver, Verdict};
use std::time::Instant;

/// A named set of deals.
#[derive(Clone, Debug)]
pub struct DealSet {
    /// The variant.
    pub variant: Variant,
    /// First deal number.
    pub first: u64,
    /// Last deal number (inclusive).
    pub last: u64,
    /// A time budget per deal that this set runs under when none is given on the command
    /// line (courtyard's hardest deals are not decided in any time a benchmark can wait).
    pub max_seconds: Option<f64>,
}

/// The standard sets: beleaguered-castle 1..=200, then 1..=100 of streets-and-alleys,
/// fortress, castile and courtyard (the last with 10 seconds per deal).
pub fn standard_sets() -> Vec<DealSet> {
    let set = |variant, last, max_seconds| DealSet {
        variant,
        first: 1,
        last,
        max_seconds,
    };
    vec![
        set(Variant::BeleagueredCastle, 200, None),
        set(Variant::StreetsAndAlleys, 100, None),
        set(Variant::Fortress, 100, None),
        set(Variant::Castile, 100, None),
        set(Variant::Courtyard, 100, Some(10.0)),
    ]
}

/// What one set cost.
#[derive(Clone, Debug, Default)]
pub struct SetResult {
    /// Deals solved.
    pub solvable: u64,
    /// Deals proved lost.
    pub unsolvable: u64,
    /// Deals left undecided.
    pub unknown: u64,
    /// Total nodes.
    pub nodes: u64,
    /// Total states stored (summed over deals).
    pub states: u64,
    /// Total seconds.
    pub seconds: f64,
    /// Table bytes per stored state, at the peak, of the deal that stored the most states.
    pub bytes_per_state: f64,
    /// Most states any one deal held in its table at once.
    pub max_states: u64,
    /// Solution lengths of the solved deals.
    pub lengths: Vec<usize>,
    /// Most bytes any deal's search path held.
    pub max_path_bytes: usize,
}

/// Solves every deal of `set` one after another on this thread.
pub fn run_set(set: &DealSet, solver: &Solver) -> SetResult {
    let mut r = SetResult::default();
    let mut solver = *solver;
    if solver.limits.max_seconds.is_none() {
        solver.limits.max_seconds = set.max_seconds;
    }
    let t0 = Instant::now();
    for seed in set.first..=set.last {
        let deal = Deal::from_seed(set.variant.rules(), seed);
        let out = solver.solve(&deal);
        match out.verdict {
            Verdict::Solvable => {
                r.solvable += 1;
                r.lengths.push(out.moves.len());
            }
            Verdict::Unsolvable => r.unsolvable += 1,
            Verdict::Unknown => r.unknown += 1,
        }
        r.nodes += out.nodes;
        r.states += out.states;
        r.max_path_bytes = r.max_path_bytes.max(out.peak_path_bytes);
        if out.peak_states > r.max_states {
            r.max_states = out.peak_states;
            r.bytes_per_state = out.table_bytes as f64 / out.peak_states.max(1) as f64;
        }
    }
    r.seconds = t0.elapsed().as_secs_f64();
    r
}

/// Peak resident memory of this process in bytes (Linux `VmHWM`), if known.
pub fn peak_rss_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Resets this process's peak resident memory (Linux: `5` to `/proc/self/clear_refs`), so
/// that [`peak_rss_bytes`] measures what follows; false where that is not possible.
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// One deal solved by castle and by the peer.
#[derive(Clone, Debug)]
pub struct PeerPair {
    /// The deal number.
    pub seed: u64,
    /// castle's result.
    pub castle: crate::solver::Outcome,
    /// fc-solve's result.
    pub peer: crate::peer::PeerRun,
}

/// Solves every deal of `set` with castle and then with fc-solve (`exe`, with `timeout` and
/// an address-space cap of `max_memory` bytes per deal), one after the other on this thread.
pub fn run_set_with_peer(
    set: &DealSet,
    solver: &Solver,
    exe: &std::path::Path,
    timeout: std::time::Duration,
    max_memory: u64,
) -> Vec<PeerPair> {
    let mut solver = *solver;
    if solver.limits.max_seconds.is_none() {
        solver.limits.max_seconds = set.max_seconds;
    }
    (set.first..=set.last)
        .map(|seed| {
            let deal = Deal::from_seed(set.variant.rules(), seed);
            let castle = solver.solve(&deal);
            let peer = crate::peer::run_fc_solve_capped(exe, &deal, timeout, Some(max_memory));
            PeerPair { seed, castle, peer }
        })
        .collect()
}
