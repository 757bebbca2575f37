//! The fixed benchmark sets of `castle bench` and the `benches/` harness: the same deals every
//! run, so total node counts double as a regression signature. Also the drivers that print
//! `castle bench`'s tables: the sets ([`sets`]), the sets beside fc-solve's complete search
//! and its heuristic `-l ct` preset ([`sets_with_peer`]) and single deal files ([`deals`]).
//! The sets deal in castle's numbering or in PySolFC's ([`DealSet::numbering`]).

use crate::deal::{Deal, Numbering};
use crate::peer::{PeerPreset, PeerRun, PeerVerdict};
use crate::rules::Variant;
use crate::solver::{Outcome, Solver, Verdict};
use crate::state::Pruning;
use crate::{Error, InputError, InputKind};
use std::io::Write;
use std::time::{Duration, Instant};

pub mod throughput;

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
    /// Whose numbers `first..=last` are: castle's or PySolFC's game numbers.
    pub numbering: Numbering,
}

impl DealSet {
    /// Deal number `seed` of this set's variant in its numbering.
    ///
    /// # Errors
    /// A PySolFC number of a variant PySolFC numbering is not matched for, or 0.
    pub fn deal(&self, seed: u64) -> Result<Deal, InputError> {
        Deal::numbered(self.variant.rules(), self.numbering, seed)
    }

    /// Whether this set's deals exist in its numbering (PySolFC numbers only
    /// beleaguered-castle, streets-and-alleys and citadel).
    pub fn dealt(&self) -> bool {
        self.deal(self.first.max(1)).is_ok()
    }
}

/// The standard sets: beleaguered-castle 1..=200, streets-and-alleys 1..=100, citadel
/// 1..=200, then 1..=100 of fortress, castile and courtyard (the last with 10 seconds per
/// deal); all in castle's numbering.
pub fn standard_sets() -> Vec<DealSet> {
    let set = |variant, last, max_seconds| DealSet {
        variant,
        first: 1,
        last,
        max_seconds,
        numbering: Numbering::Castle,
    };
    vec![
        set(Variant::BeleagueredCastle, 200, None),
        set(Variant::StreetsAndAlleys, 100, None),
        set(Variant::Citadel, 200, None),
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
/// A deal its numbering does not have ([`DealSet::deal`]); a solve's internal error (see
/// [`SolveError`](crate::solver::SolveError)).
pub fn run_set(set: &DealSet, solver: &Solver) -> Result<SetResult, Error> {
    let mut r = SetResult::default();
    let mut solver = solver.clone();
    if solver.limits.max_seconds.is_none() {
        solver.limits.max_seconds = set.max_seconds;
    }
    let t0 = Instant::now();
    for seed in set.first..=set.last {
        let deal = set.deal(seed)?;
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

/// One deal solved by castle and by the peer's presets.
#[derive(Clone, Debug)]
pub struct PeerPair {
    /// The deal number.
    pub seed: u64,
    /// castle's result.
    pub castle: crate::solver::Outcome,
    /// fc-solve's complete search ([`PeerPreset::Complete`]), if it ran.
    pub complete: Option<PeerRun>,
    /// fc-solve's heuristic preset ([`PeerPreset::Heuristic`]), if it ran.
    pub heuristic: Option<PeerRun>,
}

/// Solves every deal of `set` with castle once and then with fc-solve (`exe`) in each of
/// `presets`, with `timeout` and an address-space cap of `max_memory` bytes per run, one
/// after the other on this thread.
///
/// # Errors
/// A deal its numbering does not have; a solve's internal error (see
/// [`SolveError`](crate::solver::SolveError)).
pub fn run_set_with_peer(
    set: &DealSet,
    solver: &Solver,
    exe: &std::path::Path,
    presets: &[PeerPreset],
    timeout: std::time::Duration,
    max_memory: u64,
) -> Result<Vec<PeerPair>, Error> {
    let mut solver = solver.clone();
    if solver.limits.max_seconds.is_none() {
        solver.limits.max_seconds = set.max_seconds;
    }
    (set.first..=set.last)
        .map(|seed| {
            let deal = set.deal(seed)?;
            let castle = solver.solve(&deal)?;
            let run = |p: PeerPreset| {
                presets.contains(&p).then(|| {
                    crate::peer::run_fc_solve_capped(exe, &deal, p, timeout, Some(max_memory))
                })
            };
            Ok(PeerPair {
                seed,
                castle,
                complete: run(PeerPreset::Complete),
                heuristic: run(PeerPreset::Heuristic),
            })
        })
        .collect()
}

/// A set's name in the tables: `bc 1..200`.
pub fn set_name(set: &DealSet) -> String {
    let v = match set.variant {
        Variant::BeleagueredCastle => "bc",
        Variant::StreetsAndAlleys => "sa",
        other => other.name(),
    };
    match set.numbering {
        Numbering::Castle => format!("{v} {}..{}", set.first, set.last),
        Numbering::Pysol => format!("{v} {}..{} pysol", set.first, set.last),
    }
}

/// The median of `v` (the upper one of an even count; 0 when empty).
fn median(v: &mut [usize]) -> usize {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}

fn mib(bytes: f64) -> f64 {
    bytes / (1 << 20) as f64
}

/// The standard sets (those of `only`, if given) in `numbering`, without the sets whose
/// variant that numbering does not deal.
///
/// # Errors
/// `only` is a variant `numbering` does not deal, or one with no standard set.
pub fn chosen_sets(
    only: Option<Variant>,
    numbering: Numbering,
) -> Result<Vec<DealSet>, InputError> {
    let chosen: Vec<DealSet> = standard_sets()
        .into_iter()
        .filter(|s| only.is_none() || only == Some(s.variant))
        .map(|s| DealSet { numbering, ..s })
        .collect();
    match (only, chosen.first()) {
        // This module is the command line's (`cli` feature): its errors name their flags.
        (Some(v), None) => {
            Err(InputError::new(InputKind::Usage, "no benchmark set").with_flag(format!("--variant {v}")))
        }
        (Some(v), Some(set)) if !set.dealt() => Err(InputError::new(
            InputKind::Rules,
            format!("PySolFC numbering does not deal {v} (beleaguered-castle, streets-and-alleys and citadel only)"),
        )
        .with_flag(format!("--numbering {}", numbering.name()))),
        _ => Ok(chosen.into_iter().filter(DealSet::dealt).collect()),
    }
}

/// `castle bench`: every standard set (or those of `only`) in `numbering` with `solver`,
/// and with `baseline` once more with the reductions off; one row each, then the peak
/// memory.
///
/// # Errors
/// A variant `numbering` does not deal; writing `out`; a solve's internal error.
pub fn sets(
    out: &mut impl Write,
    solver: &Solver,
    only: Option<Variant>,
    numbering: Numbering,
    baseline: bool,
) -> Result<(), Error> {
    let chosen = chosen_sets(only, numbering)?;
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
    for set in chosen {
        let mut rows = vec![("", solver.clone())];
        if baseline {
            rows.push((
                " (no reductions)",
                Solver {
                    pruning: Pruning::NONE,
                    ..solver.clone()
                },
            ));
        }
        for (tag, s) in rows {
            let r = run_set(&set, &s)?;
            let med = median(&mut r.lengths.clone());
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

/// Which fc-solve presets run beside castle (`castle bench --peer --peer-preset`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PeerPresets {
    /// The complete search only.
    Complete,
    /// The heuristic `-l ct` preset only.
    Heuristic,
    /// Both, each on every deal.
    #[default]
    Both,
}

impl PeerPresets {
    /// The presets to run, in order.
    pub fn presets(self) -> &'static [PeerPreset] {
        match self {
            PeerPresets::Complete => &[PeerPreset::Complete],
            PeerPresets::Heuristic => &[PeerPreset::Heuristic],
            PeerPresets::Both => &[PeerPreset::Complete, PeerPreset::Heuristic],
        }
    }
}

/// How fc-solve runs beside castle (`castle bench --peer`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PeerOptions {
    /// Seconds fc-solve may spend on one deal (a deal it does not finish counts this long).
    pub seconds: f64,
    /// MiB of address space fc-solve may use on one deal.
    pub memory_mib: u64,
    /// The presets that run.
    pub presets: PeerPresets,
}

/// `castle bench --peer`: every supported set (or those of `only`) in `numbering`, solved
/// once by castle and by each of fc-solve's presets in `peer`; then a table per preset, one
/// row per set: the complete search's verdicts and times beside castle's, and the
/// heuristic preset's wins beside castle's (the deals each wins that the other does not,
/// the time to a win and the solution lengths on the deals both win).
///
/// # Errors
/// [`InputError`] when fc-solve is not installed or `numbering` does not deal `only`;
/// writing `out`; a solve's internal error.
pub fn sets_with_peer(
    out: &mut impl Write,
    solver: &Solver,
    only: Option<Variant>,
    numbering: Numbering,
    peer: &PeerOptions,
) -> Result<(), Error> {
    let Some(exe) = crate::peer::fc_solve_path() else {
        return Err(InputError::new(
            InputKind::Usage,
            "fc-solve is not installed (Debian: apt-get install freecell-solver-bin; or set CASTLE_FC_SOLVE)",
        )
        .with_flag("--peer")
        .into());
    };
    let timeout = Duration::from_secs_f64(peer.seconds);
    let presets = peer.presets.presets();
    let mut results = Vec::new();
    for set in chosen_sets(only, numbering)? {
        if crate::peer::supports(&set.variant.rules()).is_ok() {
            let pairs =
                run_set_with_peer(&set, solver, &exe, presets, timeout, peer.memory_mib << 20)?;
            results.push((set, pairs));
        }
    }
    let command = |p: PeerPreset| format!("{} {}", exe.display(), p.args().join(" "));
    if presets.contains(&PeerPreset::Complete) {
        complete_table(out, &results, peer)?;
        writeln!(
            out,
            "fc-solve: `{}`, {} s and {} MiB per deal (a deal it does not finish counts {} s); \
             med len over the deals both solved, in single-card moves; ratio = fc-solve s / castle s",
            command(PeerPreset::Complete),
            peer.seconds,
            peer.memory_mib,
            peer.seconds
        )?;
    }
    if presets.contains(&PeerPreset::Heuristic) {
        if presets.len() > 1 {
            writeln!(out)?;
        }
        heuristic_table(out, &results)?;
        writeln!(
            out,
            "ct: `{}`, {} s and {} MiB per deal. castle s, ct s: seconds to a win summed over the \
             deals both won; ratio = ct s / castle s; med len over the same deals, in single-card \
             moves (ct's runs expanded; every ct line is replayed on castle's checker); \
             no-win: ct gave up (which proves nothing); open: ct timed out or failed",
            command(PeerPreset::Heuristic),
            peer.seconds,
            peer.memory_mib
        )?;
    }
    Ok(())
}

/// The table of fc-solve's complete search beside castle (see [`sets_with_peer`]).
fn complete_table(
    out: &mut impl Write,
    results: &[(DealSet, Vec<PeerPair>)],
    peer: &PeerOptions,
) -> Result<(), Error> {
    writeln!(
        out,
        "{:<20} {:>5} {:>10} {:>10} {:>7} {:>8} {:>8} {:>9} {:>9} {:>9}",
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
        "{:<20} {:>5} {:>10} {:>10} {:>7} {:>8} {:>8} {:>9} {:>9} {:>9}",
        "", "", "", "", "", "med len", "med len", "undecided", "undecided", ""
    )?;
    for (set, pairs) in results {
        let runs: Vec<(&PeerPair, &PeerRun)> = pairs
            .iter()
            .filter_map(|p| Some((p, p.complete.as_ref()?)))
            .collect();
        let castle_s: f64 = pairs.iter().map(|p| p.castle.seconds).sum();
        let peer_s: f64 = runs.iter().map(|(_, r)| r.seconds.min(peer.seconds)).sum();
        let mut castle_len = Vec::new();
        let mut peer_len = Vec::new();
        let mut disagree = Vec::new();
        let (mut castle_open, mut peer_open) = (0, 0);
        for (p, run) in &runs {
            let theirs = match &run.verdict {
                PeerVerdict::Solvable => Some(Verdict::Solvable),
                PeerVerdict::Unsolvable => Some(Verdict::Unsolvable),
                PeerVerdict::NoWin | PeerVerdict::Timeout | PeerVerdict::Failed(_) => None,
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
            if let (Verdict::Solvable, Some(n)) = (p.castle.verdict, run.moves) {
                castle_len.push(p.castle.moves.len());
                peer_len.push(n);
            }
        }
        let bound = if peer_open > 0 { ">=" } else { "" };
        writeln!(
            out,
            "{:<20} {:>5} {:>10.2} {:>10} {:>7} {:>8} {:>8} {:>9} {:>9} {:>9}",
            set_name(set),
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
    Ok(())
}

/// The seeds of `seeds`, at most 30 of them, then how many more.
fn seed_list(seeds: &[u64]) -> String {
    let shown: Vec<String> = seeds.iter().take(30).map(u64::to_string).collect();
    let more = seeds.len().saturating_sub(30);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!("{}{more}", shown.join(" "))
}

/// The table of fc-solve's heuristic preset beside castle (see [`sets_with_peer`]); under
/// each row, the deals ct wins and castle does not (castle's verdict, nodes and seconds),
/// the deals castle wins and ct does not, and the runs of ct that failed.
fn heuristic_table(
    out: &mut impl Write,
    results: &[(DealSet, Vec<PeerPair>)],
) -> Result<(), Error> {
    let row = |out: &mut dyn Write, cells: [&str; 13]| {
        writeln!(
            out,
            "{:<20} {:>5} {:>6} {:>5} {:>5} {:>6} {:>5} {:>9} {:>8} {:>6} {:>6} {:>6} {:>6}",
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            cells[4],
            cells[5],
            cells[6],
            cells[7],
            cells[8],
            cells[9],
            cells[10],
            cells[11],
            cells[12]
        )
    };
    row(
        out,
        [
            "set", "deals", "castle", "ct", "ct", "castle", "both", "castle s", "ct s", "ratio",
            "castle", "ct", "ct",
        ],
    )?;
    row(
        out,
        [
            "", "", "won", "won", "only", "only", "won", "both won", "both won", "", "medlen",
            "medlen", "no-win",
        ],
    )?;
    for (set, pairs) in results {
        let (mut castle_won, mut ct_won, mut no_win, mut open) = (0, 0, 0, 0);
        let mut ct_only = Vec::new();
        let mut castle_only = Vec::new();
        let mut failed = Vec::new();
        let (mut both, mut castle_s, mut ct_s) = (0, 0.0, 0.0);
        let mut castle_len = Vec::new();
        let mut ct_len = Vec::new();
        for p in pairs {
            let Some(run) = &p.heuristic else { continue };
            let ours = p.castle.verdict == Verdict::Solvable;
            let theirs = run.verdict == PeerVerdict::Solvable;
            castle_won += usize::from(ours);
            ct_won += usize::from(theirs);
            match &run.verdict {
                PeerVerdict::NoWin | PeerVerdict::Unsolvable => no_win += 1,
                PeerVerdict::Timeout => open += 1,
                PeerVerdict::Failed(why) => {
                    open += 1;
                    failed.push(format!("{}: {why}", p.seed));
                }
                PeerVerdict::Solvable => {}
            }
            match (ours, theirs) {
                (true, true) => {
                    both += 1;
                    castle_s += p.castle.seconds;
                    ct_s += run.seconds;
                    castle_len.push(p.castle.moves.len());
                    ct_len.extend(run.moves);
                }
                (false, true) => ct_only.push(p),
                (true, false) => castle_only.push(p.seed),
                (false, false) => {}
            }
        }
        row(
            out,
            [
                &set_name(set),
                &pairs.len().to_string(),
                &castle_won.to_string(),
                &ct_won.to_string(),
                &ct_only.len().to_string(),
                &castle_only.len().to_string(),
                &both.to_string(),
                &format!("{castle_s:.2}"),
                &format!("{ct_s:.2}"),
                &format!("{:.1}x", ct_s / castle_s.max(1e-9)),
                &median(&mut castle_len).to_string(),
                &median(&mut ct_len).to_string(),
                &no_win.to_string(),
            ],
        )?;
        if open > 0 {
            writeln!(out, "  ct open (timed out or failed): {open}")?;
        }
        if !ct_only.is_empty() {
            let list: Vec<String> = ct_only
                .iter()
                .map(|p| {
                    format!(
                        "{} ({}, {} nodes, {:.1} s)",
                        p.seed,
                        p.castle.verdict.name(),
                        p.castle.nodes,
                        p.castle.seconds
                    )
                })
                .collect();
            writeln!(out, "  ct wins, castle does not: {}", list.join(", "))?;
        }
        if !castle_only.is_empty() {
            writeln!(
                out,
                "  castle wins, ct does not: {}",
                seed_list(&castle_only)
            )?;
        }
        for f in failed {
            writeln!(out, "  ct failed on deal {f}")?;
        }
    }
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
                ..solver.clone()
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
            for &preset in peer.presets.presets() {
                let p = crate::peer::run_fc_solve_capped(
                    &exe,
                    &deal,
                    preset,
                    Duration::from_secs_f64(peer.seconds),
                    Some(peer.memory_mib << 20),
                );
                writeln!(
                    out,
                    "{:<28} fc-solve {}: {} in {:.2} s{}{}",
                    "",
                    preset.name(),
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
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_follow_the_numbering() {
        let castle = chosen_sets(None, Numbering::Castle).unwrap();
        assert_eq!(castle.len(), standard_sets().len());
        let pysol = chosen_sets(None, Numbering::Pysol).unwrap();
        let names: Vec<String> = pysol.iter().map(set_name).collect();
        assert_eq!(
            names,
            ["bc 1..200 pysol", "sa 1..100 pysol", "citadel 1..200 pysol"]
        );
        let rules = Variant::Citadel.rules();
        assert_eq!(
            pysol[2].deal(67).unwrap(),
            Deal::numbered(rules, Numbering::Pysol, 67).unwrap()
        );
        assert_ne!(pysol[2].deal(67).unwrap(), Deal::from_seed(rules, 67));
        assert!(chosen_sets(Some(Variant::Fortress), Numbering::Pysol).is_err());
        assert_eq!(
            chosen_sets(Some(Variant::Citadel), Numbering::Castle)
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn the_ct_table_counts_the_wins_each_way() {
        let Some(exe) = crate::peer::fc_solve_path() else {
            eprintln!("fc-solve not found: skipping the test against the peer solver");
            return;
        };
        let set = DealSet {
            variant: Variant::BeleagueredCastle,
            first: 1,
            last: 8,
            max_seconds: None,
            numbering: Numbering::Pysol,
        };
        let both = PeerPresets::Both.presets();
        let t = Duration::from_secs(30);
        let mut pairs =
            run_set_with_peer(&set, &Solver::default(), &exe, both, t, 2 << 30).unwrap();
        let mut ct_wins = 0;
        for p in &pairs {
            let complete = p.complete.as_ref().unwrap();
            let ct = p.heuristic.as_ref().unwrap();
            // The complete search is a second opinion on castle's verdicts.
            match complete.verdict {
                PeerVerdict::Solvable => assert_eq!(p.castle.verdict, Verdict::Solvable),
                PeerVerdict::Unsolvable => assert_eq!(p.castle.verdict, Verdict::Unsolvable),
                _ => {}
            }
            // ct proves nothing, and wins only where a win exists; its lines replayed.
            assert_ne!(ct.verdict, PeerVerdict::Unsolvable);
            if ct.verdict == PeerVerdict::Solvable {
                ct_wins += 1;
                assert_eq!(p.castle.verdict, Verdict::Solvable, "deal {}", p.seed);
                let moves = ct.solution.as_ref().unwrap();
                let deal = set.deal(p.seed).unwrap();
                crate::check::check_win(&deal, &crate::check::steps_of(moves)).unwrap();
            }
        }
        assert!(ct_wins > 0);
        // One deal castle "did not win" and ct did, one the other way round.
        let a = pairs
            .iter()
            .position(|p| p.heuristic.as_ref().unwrap().verdict == PeerVerdict::Solvable)
            .unwrap();
        pairs[a].castle.verdict = Verdict::Unknown;
        let b = pairs
            .iter()
            .rposition(|p| p.heuristic.as_ref().unwrap().verdict == PeerVerdict::Solvable)
            .unwrap();
        assert_ne!(a, b, "two deals ct wins");
        pairs[b].heuristic.as_mut().unwrap().verdict = PeerVerdict::NoWin;
        let mut text = Vec::new();
        heuristic_table(&mut text, &[(set.clone(), pairs.clone())]).unwrap();
        let text = String::from_utf8(text).unwrap();
        let row = text.lines().nth(2).unwrap();
        let cells: Vec<&str> = row.split_whitespace().collect();
        let castle_won = pairs
            .iter()
            .filter(|p| p.castle.verdict == Verdict::Solvable)
            .count();
        // set (3 words), deals, castle won, ct won, ct only, castle only, both.
        assert_eq!(
            cells[3..9],
            [
                "8".to_string(),
                castle_won.to_string(),
                (ct_wins - 1).to_string(),
                "1".to_string(),
                "1".to_string(),
                (ct_wins - 2).to_string(),
            ]
        );
        let ct_only = format!("ct wins, castle does not: {} (unknown, ", pairs[a].seed);
        assert!(text.contains(&ct_only), "{text}");
        let castle_only = format!("castle wins, ct does not: {}\n", pairs[b].seed);
        assert!(text.contains(&castle_only), "{text}");
    }
}
