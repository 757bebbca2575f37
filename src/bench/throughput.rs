//! `castle bench --throughput`: what a million deals cost. Each variant's fixed sample
//! ([`SAMPLES`]) is solved as `castle batch` solves a range (its passes, every core), and the
//! table gives the CPU time, deals per core-hour, the hours a million deals would take on
//! this machine's cores, how much of the time the slowest 1% of deals took, and the unknowns.
//! The node total is the regression signature (the same on every run while no deal reaches
//! the last pass, whose threads share one table).
//!
//! `--against BIN` runs another build's `bench --throughput --json` on the same sample
//! before each of this build's rows, so both see the same machine, and prints the ratios.

use crate::batch::{Batch, BatchOptions, RowFormat, Seeds};
use crate::deal::Numbering;
use crate::rules::Variant;
use crate::solver::{cpu_seconds, Solver, Verdict};
use crate::Error;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// The fixed samples: deals 100,001 and up of each variant in castle's numbering (past the
/// deals 1..10,000 that the schedule's constants were measured on), 10,000 deals each, and
/// 2,000 of streets-and-alleys, whose deals cost ten times as much. Courtyard has none: its
/// deals are not all decided (see docs/design.md, "A game with a stock").
pub const SAMPLES: [(Variant, u64, u64); 5] = [
    (Variant::BeleagueredCastle, 100_001, 110_000),
    (Variant::StreetsAndAlleys, 100_001, 102_000),
    (Variant::Citadel, 100_001, 110_000),
    (Variant::Fortress, 100_001, 110_000),
    (Variant::Castile, 100_001, 110_000),
];

/// One variant's sample, solved.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Throughput {
    /// The variant's name.
    pub variant: String,
    /// First and last deal of the sample.
    pub first: u64,
    /// Last deal.
    pub last: u64,
    /// Deals solved.
    pub deals: u64,
    /// Won, lost, unknown.
    pub won: u64,
    /// Lost.
    pub lost: u64,
    /// Unknown.
    pub unknown: u64,
    /// Nodes over the sample (the regression signature).
    pub nodes: u64,
    /// CPU seconds of the whole process while it solved the sample (user and system).
    pub cpu_seconds: f64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Threads (workers) used.
    pub threads: usize,
    /// The share of the deals' CPU time that the slowest 1% of them took.
    pub slowest_share: f64,
    /// Median and 99th percentile CPU milliseconds of a deal.
    pub median_ms: u64,
    /// 99th percentile.
    pub p99_ms: u64,
    /// Deals decided by each pass of the batch (see [`crate::batch::passes`]).
    pub by_pass: Vec<u64>,
}

impl Throughput {
    /// Deals per hour of one core.
    pub fn per_core_hour(&self) -> f64 {
        self.deals as f64 / (self.cpu_seconds / 3600.0).max(1e-9)
    }

    /// Hours a million deals would take on `cores` cores at this rate.
    pub fn million_hours(&self, cores: usize) -> f64 {
        1e6 / self.per_core_hour() / cores.max(1) as f64
    }
}

/// Solves `count` deals (at most the whole sample) of the sample of `variant` on `threads`
/// workers, as `castle batch` would with `solver`'s budgets.
///
/// # Errors
/// A solve's internal error (a bug).
pub fn measure(
    variant: Variant,
    count: Option<u64>,
    solver: &Solver,
    threads: usize,
) -> Result<Throughput, Error> {
    let (_, first, last) = SAMPLES
        .iter()
        .copied()
        .find(|s| s.0 == variant)
        .unwrap_or((variant, 100_001, 110_000));
    let last = count.map_or(last, |n| last.min(first + n.max(1) - 1));
    let opts = BatchOptions {
        rules: variant.rules(),
        numbering: Numbering::Castle,
        seeds: Seeds::range(first, last),
        solver: solver.clone(),
        threads,
        csv: None,
        format: RowFormat::Csv,
        winnable_only: None,
        retry_unknown: false,
        one_pass: false,
        pass_nodes: crate::batch::passes::PASS_NODES.to_vec(),
        certificates: None,
        certify: false,
    };
    let batch = Batch::open(opts)?;
    let mut rows = Vec::new();
    let cpu0 = cpu_seconds(false);
    let t0 = std::time::Instant::now();
    let tally = batch.run(&mut rows, &AtomicBool::new(false), &mut |_| {})?;
    let seconds = t0.elapsed().as_secs_f64();
    let cpu = cpu_seconds(false) - cpu0;
    let rows = crate::rows::rows_from(&rows[..], "the sample's rows")?;
    let mut ms: Vec<u64> = rows.iter().map(|r| r.cpu_ms.unwrap_or(r.ms)).collect();
    ms.sort_unstable();
    let total: u64 = ms.iter().sum();
    let top = ms.len().div_ceil(100);
    let slow: u64 = ms.iter().rev().take(top).sum();
    let at = |q: f64| ms.get(((ms.len() as f64 * q) as usize).min(ms.len().saturating_sub(1)));
    Ok(Throughput {
        variant: variant.name().to_string(),
        first,
        last,
        deals: rows.len() as u64,
        won: rows
            .iter()
            .filter(|r| r.verdict == Verdict::Solvable.name())
            .count() as u64,
        lost: rows
            .iter()
            .filter(|r| r.verdict == Verdict::Unsolvable.name())
            .count() as u64,
        unknown: rows
            .iter()
            .filter(|r| r.verdict == Verdict::Unknown.name())
            .count() as u64,
        nodes: rows.iter().map(|r| r.nodes).sum(),
        cpu_seconds: cpu,
        seconds,
        threads,
        slowest_share: slow as f64 / total.max(1) as f64,
        median_ms: at(0.5).copied().unwrap_or(0),
        p99_ms: at(0.99).copied().unwrap_or(0),
        by_pass: tally.by_pass[..tally.passes].to_vec(),
    })
}

/// The header of the table.
fn header(out: &mut impl Write, cores: usize) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<20} {:>14} {:>6} {:>6} {:>6} {:>4} {:>12} {:>8} {:>12} {:>9} {:>7} {:>7} {:>7}",
        "variant",
        "deals",
        "won",
        "lost",
        "unk",
        "",
        "nodes",
        "CPU s",
        "deals/core-h",
        format!("1M: h/{cores}c"),
        "slow 1%",
        "med ms",
        "p99 ms"
    )
}

fn row(out: &mut impl Write, t: &Throughput, tag: &str, cores: usize) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<20} {:>14} {:>6} {:>6} {:>6} {:>4} {:>12} {:>8.1} {:>12.0} {:>9.2} {:>6.0}% {:>7} {:>7}",
        format!("{}{tag}", t.variant),
        format!("{}..{}", t.first, t.last),
        t.won,
        t.lost,
        t.unknown,
        "",
        t.nodes,
        t.cpu_seconds,
        t.per_core_hour(),
        t.million_hours(cores),
        100.0 * t.slowest_share,
        t.median_ms,
        t.p99_ms
    )
}

/// Runs `against`'s `bench --throughput --json` for one variant (the other build's row).
fn run_against(
    bin: &Path,
    variant: Variant,
    count: Option<u64>,
    threads: usize,
) -> Result<Throughput, Error> {
    let mut cmd = std::process::Command::new(bin);
    cmd.args(["bench", "--throughput", "--json", "-v", variant.name()])
        .args(["-j", &threads.to_string()]);
    if let Some(n) = count {
        cmd.args(["--sample", &n.to_string()]);
    }
    let out = cmd.output().map_err(|e| {
        crate::InputError::new(crate::InputKind::Usage, format!("cannot run it: {e}"))
            .with_flag(format!("--against {}", bin.display()))
    })?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.starts_with('{'));
    match line.map(serde_json::from_str::<Throughput>) {
        Some(Ok(t)) if out.status.success() => Ok(t),
        _ => Err(crate::InputError::new(
            crate::InputKind::Usage,
            format!(
                "not a castle with `bench --throughput --json` (it said: {})",
                crate::text::cut_words(String::from_utf8_lossy(&out.stderr).trim(), 60)
            ),
        )
        .with_flag(format!("--against {}", bin.display()))
        .into()),
    }
}

/// `castle bench --throughput`: the samples of `only` (or every one), `count` deals of each
/// at most, on `threads` workers; a row each (a JSON object each with `json`), and with
/// `against` the other build's row before each and the ratios after.
///
/// # Errors
/// Writing `out`; a build `against` that cannot be run; a solve's internal error.
pub fn run(
    out: &mut impl Write,
    solver: &Solver,
    only: Option<Variant>,
    count: Option<u64>,
    threads: usize,
    against: Option<&Path>,
    json: bool,
) -> Result<(), Error> {
    let cores = threads.max(1);
    if !json {
        header(out, cores)?;
    }
    for (variant, _, _) in SAMPLES.iter().filter(|s| only.map_or(true, |v| v == s.0)) {
        let other = match against {
            Some(bin) => Some(run_against(bin, *variant, count, threads)?),
            None => None,
        };
        let t = measure(*variant, count, solver, threads)?;
        if json {
            serde_json::to_writer(&mut *out, &t)?;
            writeln!(out)?;
            continue;
        }
        if let Some(o) = &other {
            row(out, o, " (against)", cores)?;
        }
        row(out, &t, "", cores)?;
        if let Some(o) = &other {
            writeln!(
                out,
                "{:<20} CPU x{:.2} ({:.1} s against {:.1} s), nodes x{:.2}, slowest 1% {:.0}% against {:.0}%, unknown {} against {}",
                "  this / against",
                t.cpu_seconds / o.cpu_seconds.max(1e-9),
                t.cpu_seconds,
                o.cpu_seconds,
                t.nodes as f64 / o.nodes.max(1) as f64,
                100.0 * t.slowest_share,
                100.0 * o.slowest_share,
                t.unknown,
                o.unknown
            )?;
        }
        out.flush()?;
    }
    Ok(())
}
