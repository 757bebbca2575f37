//! The fixed benchmark sets of `castle bench` and the `benches/` harness: the same deals every
//! run, so total node counts double as a regression signature. Also the drivers that print
//! `castle bench`'s tables: the sets ([`sets`]), the sets beside fc-solve ([`sets_with_peer`])
//! and single deal files ([`deals`]).

use crate::deal::Deal;
use crate::rules::Variant;
use crate::solver::{Outcome, SolveError, Solver, Verdict};
use crate::state::Pruning;
use crate::{Error, InputError};
use std::io::Write;
use std::time::{Duration, Instant};

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
///
/// # Errors
/// A solve's internal error (see [`SolveError`]).
pub fn run_set(set: &DealSet, solver: &Solver) -> Result<SetResult, SolveError> {
    let mut r = SetResult::default();
    let mut solver = *solver;
    if solver.limits.max_seconds.is_none() {
        solver.limits.max_seconds = set.max_seconds;
    }
    let t0 = Instant::now();
    for seed in set.first..=set.last {
        let deal = Deal::from_seed(set.variant.rules(), seed);
        let out = solver.solve(&deal)?;
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
    Ok(r)
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
///
/// # Errors
/// A solve's internal error (see [`SolveError`]).
pub fn run_set_with_peer(
    set: &DealSet,
    solver: &Solver,
    exe: &std::path::Path,
    timeout: std::time::Duration,
    max_memory: u64,
) -> Result<Vec<PeerPair>, SolveError> {
    let mut solver = *solver;
    if solver.limits.max_seconds.is_none() {
        solver.limits.max_seconds = set.max_seconds;
    }
    (set.first..=set.last)
        .map(|seed| {
            let deal = Deal::from_seed(set.variant.rules(), seed);
            let castle = solver.solve(&deal)?;
            let peer = crate::peer::run_fc_solve_capped(exe, &deal, timeout, Some(max_memory));
            Ok(PeerPair { seed, castle, peer })
        })
        .collect()
}

/// A set's name in the tables: `bc 1..200`.
fn set_name(set: &DealSet) -> String {
    let v = match set.variant {
        Variant::BeleagueredCastle => "bc",
        Variant::StreetsAndAlleys => "sa",
        other => other.name(),
    };
    format!("{v} {}..{}", set.first, set.last)
}

fn mib(bytes: f64) -> f64 {
    bytes / (1 << 20) as f64
}

/// `castle bench`: every standard set (or those of `only`) with `solver`, and with
/// `baseline` once more with the reductions off; one row each, then the peak memory.
///
/// # Errors
/// Writing `out`; a solve's internal error.
pub fn sets(
    out: &mut impl Write,
    solver: &Solver,
    only: Option<Variant>,
    baseline: bool,
) -> Result<(), Error> {
    writeln!(
        out,
        "{:<22} {:>6} {:>5} {:>5} {:>4} {:>12} {:>8} {:>9} {:>10} {:>9} {:>8} {:>9}",
        "set",
        "deals",
        "won",
        "lost",
        "unk",
        "nodes",
        "seconds",
        "Mnodes/s",
        "max states",
        "B/state",
        "med len",
        "path MiB"
    )?;
    for set in standard_sets() {
        if only.is_some_and(|v| v != set.variant) {
            continue;
        }
        let mut rows = vec![("", *solver)];
        if baseline {
            rows.push((
                " (no reductions)",
                Solver {
                    pruning: Pruning::NONE,
                    ..*solver
                },
            ));
        }
        for (tag, s) in rows {
            let r = run_set(&set, &s)?;
            let mut lens = r.lengths.clone();
            lens.sort_unstable();
            let med = lens.get(lens.len() / 2).copied().unwrap_or(0);
            writeln!(
                out,
                "{:<22} {:>6} {:>5} {:>5} {:>4} {:>12} {:>8.2} {:>9.2} {:>10} {:>9.1} {:>8} {:>9.1}",
                format!("{}{tag}", set_name(&set)),
                set.last - set.first + 1,
                r.solvable,
                r.unsolvable,
                r.unknown,
                r.nodes,
                r.seconds,
                r.nodes as f64 / r.seconds / 1e6,
                r.max_states,
                r.bytes_per_state,
                med,
                mib(r.max_path_bytes as f64)
            )?;
        }
    }
    if let Some(rss) = peak_rss_bytes() {
        writeln!(out, "peak resident memory: {:.1} MiB", mib(rss as f64))?;
    }
    Ok(())
}

/// How fc-solve runs beside castle (`castle bench --peer`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PeerOptions {
    /// Seconds fc-solve may spend on one deal (a deal it does not finish counts this long).
    pub seconds: f64,
    /// MiB of address space fc-solve may use on one deal.
    pub memory_mib: u64,
}

/// `castle bench --peer`: every supported set (or those of `only`) solved by castle and by
/// fc-solve, one row per set.
///
/// # Errors
/// [`InputError`] when fc-solve is not installed; writing `out`; a solve's internal error.
pub fn sets_with_peer(
    out: &mut impl Write,
    solver: &Solver,
    only: Option<Variant>,
    peer: &PeerOptions,
) -> Result<(), Error> {
    let Some(exe) = crate::peer::fc_solve_path() else {
        return Err(InputError(
            "--peer: fc-solve is not installed (Debian: apt-get install freecell-solver-bin; or set CASTLE_FC_SOLVE)".to_string(),
        )
        .into());
    };
    let timeout = Duration::from_secs_f64(peer.seconds);
    writeln!(
        out,
        "{:<10} {:>5} {:>10} {:>10} {:>7} {:>8} {:>8} {:>9} {:>9} {:>9}",
        "set",
        "deals",
        "castle s",
        "fc-solve s",
        "ratio",
        "castle",
        "fc-solve",
        "castle",
        "fc-solve",
        "disagree"
    )?;
    writeln!(
        out,
        "{:<10} {:>5} {:>10} {:>10} {:>7} {:>8} {:>8} {:>9} {:>9} {:>9}",
        "", "", "", "", "", "med len", "med len", "undecided", "undecided", ""
    )?;
    for set in standard_sets() {
        if only.is_some_and(|v| v != set.variant)
            || crate::peer::supports(&set.variant.rules()).is_err()
        {
            continue;
        }
        let pairs = run_set_with_peer(&set, solver, &exe, timeout, peer.memory_mib << 20)?;
        let castle_s: f64 = pairs.iter().map(|p| p.castle.seconds).sum();
        let peer_s: f64 = pairs.iter().map(|p| p.peer.seconds.min(peer.seconds)).sum();
        let mut castle_len = Vec::new();
        let mut peer_len = Vec::new();
        let mut disagree = Vec::new();
        let (mut castle_open, mut peer_open) = (0, 0);
        for p in &pairs {
            use crate::peer::PeerVerdict as P;
            let theirs = match &p.peer.verdict {
                P::Solvable => Some(Verdict::Solvable),
                P::Unsolvable => Some(Verdict::Unsolvable),
                P::Timeout | P::Failed(_) => None,
            };
            if theirs.is_none() {
                peer_open += 1;
            }
            if p.castle.verdict == Verdict::Unknown {
                castle_open += 1;
            }
            if let Some(v) = theirs {
                if p.castle.verdict != Verdict::Unknown && v != p.castle.verdict {
                    disagree.push(p.seed);
                }
            }
            if let (Verdict::Solvable, Some(n)) = (p.castle.verdict, p.peer.moves) {
                castle_len.push(p.castle.moves.len());
                peer_len.push(n);
            }
        }
        let median = |v: &mut Vec<usize>| {
            v.sort_unstable();
            v.get(v.len() / 2).copied().unwrap_or(0)
        };
        let bound = if peer_open > 0 { ">=" } else { "" };
        writeln!(
            out,
            "{:<10} {:>5} {:>10.2} {:>10} {:>7} {:>8} {:>8} {:>9} {:>9} {:>9}",
            set_name(&set),
            pairs.len(),
            castle_s,
            format!("{bound}{peer_s:.2}"),
            format!("{bound}{:.1}x", peer_s / castle_s.max(1e-9)),
            median(&mut castle_len),
            median(&mut peer_len),
            castle_open,
            peer_open,
            disagree.len()
        )?;
        if !disagree.is_empty() {
            writeln!(out, "  VERDICTS DIFFER on deals {disagree:?}")?;
        }
    }
    writeln!(
        out,
        "fc-solve: `{} {}`, {} s and {} MiB per deal (a deal it does not finish counts {} s); \
         med len over the deals both solved, in single-card moves; ratio = fc-solve s / castle s",
        exe.display(),
        crate::peer::FC_SOLVE_ARGS.join(" "),
        peer.seconds,
        peer.memory_mib,
        peer.seconds
    )?;
    Ok(())
}

/// `castle bench --deal FILE...`: each deal (a name and the deal, or the error reading it)
/// solved with one thread and, when `threads` is more than 1, with `threads` too (each run's
/// peak memory, and the speed-up); with `peer`, fc-solve's run too (when it is installed).
///
/// # Errors
/// The first deal that could not be read; writing `out`; a solve's internal error.
pub fn deals(
    out: &mut impl Write,
    solver: &Solver,
    threads: usize,
    deals: impl IntoIterator<Item = Result<(String, Deal), Error>>,
    peer: Option<&PeerOptions>,
) -> Result<(), Error> {
    let runs: &[usize] = if threads > 1 { &[1, threads] } else { &[1] };
    writeln!(
        out,
        "{:<28} {:>7} {:>11} {:>7} {:>12} {:>11} {:>8} {:>9} {:>9} {:>9}",
        "deal",
        "threads",
        "verdict",
        "moves",
        "nodes",
        "states",
        "phase",
        "seconds",
        "peak MiB",
        "path MiB"
    )?;
    for named in deals {
        let (name, deal) = named?;
        let mut secs = Vec::new();
        for &t in runs {
            let s = Solver {
                threads: t,
                ..*solver
            };
            reset_peak_rss();
            let o: Outcome = s.solve(&deal)?;
            let rss = peak_rss_bytes().map_or("?".to_string(), |b| format!("{:.0}", mib(b as f64)));
            writeln!(
                out,
                "{:<28} {:>7} {:>11} {:>7} {:>12} {:>11} {:>8} {:>9.2} {:>9} {:>9.1}",
                name,
                t,
                o.verdict.name(),
                o.moves.len(),
                o.nodes,
                o.peak_states,
                o.phase.map_or("-", |p| p.name()),
                o.seconds,
                rss,
                mib(o.peak_path_bytes as f64)
            )?;
            secs.push(o.seconds);
        }
        if let [one, more] = secs[..] {
            writeln!(
                out,
                "{:<28} speed-up with {threads} threads: {:.2}x",
                "",
                one / more.max(1e-9)
            )?;
        }
        if let Some((peer, exe)) = peer.and_then(|p| Some((p, crate::peer::fc_solve_path()?))) {
            let p = crate::peer::run_fc_solve_capped(
                &exe,
                &deal,
                Duration::from_secs_f64(peer.seconds),
                Some(peer.memory_mib << 20),
            );
            writeln!(
                out,
                "{:<28} fc-solve: {} in {:.2} s{}{}",
                "",
                p.verdict.name(),
                p.seconds,
                p.moves.map_or(String::new(), |m| format!(", {m} moves")),
                p.peak_rss_bytes.map_or(String::new(), |b| format!(
                    ", peak {:.0} MiB",
                    mib(b as f64)
                ))
            )?;
        }
    }
    Ok(())
}
