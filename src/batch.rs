//! Deal analysis at scale: seed ranges solved in parallel into rows, rows appended to a CSV
//! (or JSON lines) that survives interruption, and the summary statistics of `castle stats`.
//!
//! # Crash safety and resume
//! Every row is formatted in memory and written with one `write_all` of a whole line, then
//! flushed, by a single writer. A process killed at any moment therefore leaves every
//! finished row intact and at most one partial last line. On resume the file is read back,
//! a partial last line (no newline) is cut off, and the seeds already present are skipped.

use crate::deal::{Deal, Numbering};
use crate::rules::Rules;
use crate::solver::{Outcome, Solver, Verdict};
use crate::InputError;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, Seek, Write};
use std::path::Path;

/// One solved deal, as a CSV row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// Deal number.
    pub seed: u64,
    /// Variant name.
    pub variant: String,
    /// Option: start rank.
    pub start_rank: u8,
    /// Option: foundation return.
    pub foundation_return: bool,
    /// Option: sequence moves.
    pub sequence_moves: String,
    /// `solvable`, `unsolvable` or `unknown`.
    pub verdict: String,
    /// Solution length in single moves (0 if none).
    pub moves: usize,
    /// Nodes searched.
    pub nodes: u64,
    /// States stored at the end.
    pub states: u64,
    /// Milliseconds taken.
    pub ms: u64,
    /// Cards on the foundations at the best point any searched line reached (52 for a win).
    pub score: u8,
    /// For `unknown`: which budget ran out; empty otherwise.
    pub limit: String,
    /// Whose deal numbers `seed` is: `castle` or `pysol` (absent in files written before
    /// PySolFC numbering existed, which are all `castle`).
    #[serde(default = "castle_numbering")]
    pub numbering: String,
}

fn castle_numbering() -> String {
    Numbering::Castle.name().to_string()
}

/// The CSV header line (the field names of [`Row`], in order).
pub const HEADER: &str =
    "seed,variant,start_rank,foundation_return,sequence_moves,verdict,moves,nodes,states,ms,score,limit,numbering";

/// The header of batch files written before the `numbering` column (still read; a resume
/// rewrites such a file once with the current header).
pub const HEADER_V1: &str =
    "seed,variant,start_rank,foundation_return,sequence_moves,verdict,moves,nodes,states,ms,score,limit";

impl Row {
    /// The row of a solve.
    pub fn new(deal: &Deal, numbering: Numbering, out: &Outcome) -> Row {
        let o = deal.rules.options;
        Row {
            seed: deal.seed.unwrap_or(0),
            variant: deal.rules.variant.name().to_string(),
            start_rank: o.start_rank,
            foundation_return: o.foundation_return,
            sequence_moves: o.sequence_moves.name().to_string(),
            verdict: out.verdict.name().to_string(),
            moves: out.moves.len(),
            nodes: out.nodes,
            states: out.states,
            ms: (out.seconds * 1000.0).round() as u64,
            score: if out.verdict == Verdict::Solvable {
                deal.rules.cards() as u8
            } else {
                out.best_home
            },
            limit: out.limit.map(|l| l.name().to_string()).unwrap_or_default(),
            numbering: numbering.name().to_string(),
        }
    }

    /// The row as one CSV line, newline included.
    pub fn csv_line(&self) -> String {
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        w.serialize(self).expect("a row always serializes");
        String::from_utf8(w.into_inner().expect("in-memory writer")).expect("CSV is UTF-8")
    }

    /// The group a row is summarised in: variant and options.
    pub fn group(&self) -> String {
        let numbering = if self.numbering == Numbering::Castle.name() {
            String::new()
        } else {
            format!(" numbering={}", self.numbering)
        };
        format!(
            "{} start-rank={} foundation-return={} sequence-moves={}{numbering}",
            self.variant, self.start_rank, self.foundation_return, self.sequence_moves
        )
    }
}

/// Which seeds a batch covers: `first..=last`, every `n`-th from offset `k` (shard `k/n`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seeds {
    /// First seed of the range.
    pub first: u64,
    /// Last seed of the range (inclusive).
    pub last: u64,
    /// Shard index, `0..count`.
    pub shard: u64,
    /// Number of shards (1: no sharding).
    pub shards: u64,
}

impl Seeds {
    /// Parses `A..B` (inclusive) or a single number.
    ///
    /// # Errors
    /// A message naming the flag and the text.
    pub fn parse_range(s: &str) -> Result<(u64, u64), InputError> {
        let bad = || {
            InputError(format!(
                "--seeds `{s}`: expected a range like 1..1000 (inclusive) or one number"
            ))
        };
        let (a, b) = match s.split_once("..") {
            Some((a, b)) => (a, b.strip_prefix('=').unwrap_or(b)),
            None => (s, s),
        };
        let a: u64 = a.trim().parse().map_err(|_| bad())?;
        let b: u64 = b.trim().parse().map_err(|_| bad())?;
        if a > b {
            return Err(InputError(format!(
                "--seeds `{s}`: the range is empty ({a} > {b})"
            )));
        }
        Ok((a, b))
    }

    /// Parses `K/N` (shard K of N, K = 0..N-1).
    ///
    /// # Errors
    /// A message naming the flag and the text.
    pub fn parse_shard(s: &str) -> Result<(u64, u64), InputError> {
        let bad = || {
            InputError(format!(
                "--shard `{s}`: expected K/N with 0 <= K < N, like 0/4"
            ))
        };
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k: u64 = k.trim().parse().map_err(|_| bad())?;
        let n: u64 = n.trim().parse().map_err(|_| bad())?;
        if n == 0 || k >= n {
            return Err(bad());
        }
        Ok((k, n))
    }

    /// The seeds, in order.
    pub fn iter(&self) -> impl Iterator<Item = u64> {
        let (first, shard, shards) = (self.first, self.shard, self.shards);
        (first..=self.last).filter(move |s| (s - first) % shards == shard)
    }
}

/// Reads the rows of a CSV file.
///
/// # Errors
/// A message naming the file and line of a bad header or a row that does not parse.
pub fn read_rows(path: &Path) -> Result<Vec<Row>, InputError> {
    let origin = path.display().to_string();
    let file =
        std::fs::File::open(path).map_err(|e| InputError(format!("{origin}: cannot read: {e}")))?;
    rows_from(std::io::BufReader::new(file), &origin)
}

fn rows_from(reader: impl std::io::Read, origin: &str) -> Result<Vec<Row>, InputError> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(reader);
    let header = r
        .headers()
        .map_err(|e| InputError(format!("{origin}: line 1: {e}")))?
        .iter()
        .collect::<Vec<_>>()
        .join(",");
    if header != HEADER && header != HEADER_V1 {
        return Err(InputError(format!(
            "{origin}: line 1: not a castle batch file (header `{header}`, expected `{HEADER}`)"
        )));
    }
    let mut rows = Vec::new();
    for rec in r.deserialize::<Row>() {
        let row = rec.map_err(|e| {
            let line = e.position().map_or(0, |p| p.line());
            InputError(format!("{origin}: line {line}: bad row: {e}"))
        })?;
        rows.push(row);
    }
    Ok(rows)
}

/// Opens a batch CSV for appending: creates it with the header, or checks an existing one,
/// cuts a torn last line, and returns the seeds already done for these rules: every seed with
/// a row, or with `retry_unknown` only those with a decided row (so the seeds whose rows all
/// say `unknown` are solved again, and their new rows appended; `stats` counts a seed's
/// decided row over its `unknown` ones).
///
/// # Errors
/// Unreadable files, a foreign header or a corrupt row (named by line), or rows of other
/// rules in the file.
pub fn open_for_append(
    path: &Path,
    rules: &Rules,
    numbering: Numbering,
    retry_unknown: bool,
) -> Result<(std::fs::File, HashSet<u64>), InputError> {
    let origin = path.display().to_string();
    let io = |e: std::io::Error| InputError(format!("{origin}: {e}"));
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)
        .map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    if len == 0 {
        file.write_all(format!("{HEADER}\n").as_bytes())
            .map_err(io)?;
        file.flush().map_err(io)?;
        return Ok((file, HashSet::new()));
    }
    // Cut a torn last line: everything after the last newline.
    let mut text = Vec::new();
    file.rewind().map_err(io)?;
    std::io::BufReader::new(&file)
        .read_until(0, &mut text)
        .map_err(io)?;
    let keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    if keep < text.len() {
        file.set_len(keep as u64).map_err(io)?;
        text.truncate(keep);
    }
    let rows = rows_from(&text[..], &origin)?;
    if text.starts_with(format!("{HEADER_V1}\n").as_bytes()) {
        // An older file: rewrite it with the current header (a new file renamed over the
        // old one, so an interruption leaves one or the other whole).
        let tmp = path.with_extension("csv.upgrade");
        let mut body = format!("{HEADER}\n");
        for row in &rows {
            body += &row.csv_line();
        }
        std::fs::write(&tmp, body).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)?;
        return open_for_append(path, rules, numbering, retry_unknown);
    }
    let o = rules.options;
    let mut done = HashSet::new();
    for (i, row) in rows.iter().enumerate() {
        if row.variant != rules.variant.name()
            || row.start_rank != o.start_rank
            || row.foundation_return != o.foundation_return
            || row.sequence_moves != o.sequence_moves.name()
            || row.numbering != numbering.name()
        {
            return Err(InputError(format!(
                "{origin}: line {}: a row for `{}`, but this batch is `{}`; use another file",
                i + 2,
                row.group(),
                rules.variant
            )));
        }
        if !retry_unknown || row.verdict != Verdict::Unknown.name() {
            done.insert(row.seed);
        }
    }
    Ok((file, done))
}

/// Solves `seeds` of `rules` on `threads` workers (each with an equal share of the memory
/// budget), skipping `done`, and hands each finished row and outcome to `sink` in the
/// calling thread as soon as it is ready (rows come in completion order).
pub fn run(
    rules: Rules,
    numbering: Numbering,
    seeds: Seeds,
    done: &HashSet<u64>,
    solver: Solver,
    threads: usize,
    sink: &mut dyn FnMut(Row, Deal, Outcome) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let todo: Vec<u64> = seeds.iter().filter(|s| !done.contains(s)).collect();
    let threads = threads.max(1);
    let mut per = solver;
    per.limits.memory_bytes = (solver.limits.memory_bytes / threads).max(1 << 20);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(std::io::Error::other)?;
    let (tx, rx) = std::sync::mpsc::sync_channel::<(Row, Deal, Outcome)>(threads * 4);
    let mut result = Ok(());
    std::thread::scope(|scope| {
        scope.spawn(move || {
            pool.install(|| {
                use rayon::prelude::*;
                // One seed per task (`with_max_len(1)`): solve times are heavy-tailed, and a
                // hard deal must not hold back the seeds that rayon would otherwise have put
                // in the same sequential chunk behind it; idle workers steal them.
                todo.par_iter()
                    .with_max_len(1)
                    .for_each_with(tx, |tx, &seed| {
                        // The numbering was checked on the first seed before the run started.
                        let Ok(deal) = Deal::numbered(rules, numbering, seed) else {
                            return;
                        };
                        let out = per.solve(&deal);
                        let _ = tx.send((Row::new(&deal, numbering, &out), deal, out));
                    });
            });
        });
        for (row, deal, out) in rx {
            if let Err(e) = sink(row, deal, out) {
                result = Err(e);
                break;
            }
        }
    });
    result
}

/// A 95% Wilson score interval for `k` successes in `n` trials.
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let center = (p + z * z / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    ((center - half).max(0.0), (center + half).min(1.0))
}

/// Summary of one group (variant and options).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Deals.
    pub deals: u64,
    /// Proved winnable.
    pub winnable: u64,
    /// Proved lost.
    pub unsolvable: u64,
    /// Undecided.
    pub unknown: u64,
    /// Win rate interval: the Wilson lower bound with unknowns counted as losses, and the
    /// Wilson upper bound with unknowns counted as wins.
    pub win_rate: (f64, f64),
    /// Solution lengths of winnable deals: min, median, p99, max.
    pub length: [u64; 4],
    /// Nodes of all deals: min, median, p99, max.
    pub nodes: [u64; 4],
    /// Lost deals by score (cards home at best): score -> count.
    pub lost_scores: BTreeMap<u8, u64>,
}

fn quantiles(mut v: Vec<u64>) -> [u64; 4] {
    if v.is_empty() {
        return [0; 4];
    }
    v.sort_unstable();
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    [v[0], at(0.5), at(0.99), v[v.len() - 1]]
}

/// What merging files found besides the summaries.
#[derive(Clone, Debug, Default)]
pub struct Merge {
    /// Summaries by group.
    pub groups: BTreeMap<String, Summary>,
    /// Rows seen more than once with the same verdict (counted once).
    pub duplicates: u64,
    /// Seeds whose rows disagree on the verdict: (group, seed, verdicts).
    pub conflicts: Vec<(String, u64, Vec<String>)>,
}

/// Merges rows from several files: one row per (group, seed). A seed seen again with the
/// same verdict is a duplicate; with another verdict a conflict (a decided verdict beats
/// `unknown`; two decided verdicts that differ are reported and the seed left out).
pub fn merge(rows: impl IntoIterator<Item = Row>) -> Merge {
    let mut by: BTreeMap<(String, u64), Vec<Row>> = BTreeMap::new();
    for r in rows {
        by.entry((r.group(), r.seed)).or_default().push(r);
    }
    let mut m = Merge::default();
    let mut kept: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for ((group, seed), rows) in by {
        m.duplicates += rows.len() as u64 - 1;
        let decided: Vec<&Row> = rows.iter().filter(|r| r.verdict != "unknown").collect();
        let verdicts: HashSet<&str> = decided.iter().map(|r| r.verdict.as_str()).collect();
        if verdicts.len() > 1 {
            m.conflicts.push((
                group,
                seed,
                rows.iter().map(|r| r.verdict.clone()).collect(),
            ));
            continue;
        }
        let best = decided.first().copied().unwrap_or(&rows[0]).clone();
        kept.entry(group).or_default().push(best);
    }
    for (group, rows) in kept {
        let mut s = Summary {
            deals: rows.len() as u64,
            ..Default::default()
        };
        let mut lengths = Vec::new();
        for r in &rows {
            match r.verdict.as_str() {
                "solvable" => {
                    s.winnable += 1;
                    lengths.push(r.moves as u64);
                }
                "unsolvable" => {
                    s.unsolvable += 1;
                    *s.lost_scores.entry(r.score).or_default() += 1;
                }
                _ => s.unknown += 1,
            }
        }
        s.win_rate = (
            wilson(s.winnable, s.deals).0,
            wilson(s.winnable + s.unknown, s.deals).1,
        );
        s.length = quantiles(lengths);
        s.nodes = quantiles(rows.iter().map(|r| r.nodes).collect());
        m.groups.insert(group, s);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_hand_computed_values() {
        // 5 of 10: p = 0.5, z = 1.96: centre 0.5, half-width 1.96/1.38416 * sqrt(0.025 +
        // 0.009604) = 0.26340 -> (0.2366, 0.7634).
        let (lo, hi) = wilson(5, 10);
        assert!(
            (lo - 0.2366).abs() < 1e-4 && (hi - 0.7634).abs() < 1e-4,
            "{lo} {hi}"
        );
        // 0 of 10: upper bound z^2/(n + z^2) = 3.8415/13.8415 = 0.27753.
        let (lo, hi) = wilson(0, 10);
        assert!(lo.abs() < 1e-12 && (hi - 0.27753).abs() < 1e-4, "{lo} {hi}");
        // 10 of 10 mirrors it.
        let (lo, hi) = wilson(10, 10);
        assert!(
            (lo - 0.72247).abs() < 1e-4 && (hi - 1.0).abs() < 1e-12,
            "{lo} {hi}"
        );
        // 68 of 100: z^2 = 3.841459; centre (0.68 + 0.0192073)/1.0384146 = 0.673341; half
        // 1.959964/1.0384146 * sqrt(0.002176 + 0.0000960) = 1.887457 * 0.0476659 = 0.089967.
        let (lo, hi) = wilson(68, 100);
        assert!(
            (lo - 0.583374).abs() < 1e-5 && (hi - 0.763308).abs() < 1e-5,
            "{lo} {hi}"
        );
    }

    #[test]
    fn shards_partition_the_range() {
        let all: Vec<u64> = (0..4)
            .flat_map(|k| {
                Seeds {
                    first: 3,
                    last: 40,
                    shard: k,
                    shards: 4,
                }
                .iter()
                .collect::<Vec<_>>()
            })
            .collect();
        let mut sorted = all.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (3..=40).collect::<Vec<_>>());
        assert!(Seeds::parse_shard("4/4").is_err());
        assert_eq!(Seeds::parse_range("1..10").unwrap(), (1, 10));
        assert_eq!(Seeds::parse_range("7").unwrap(), (7, 7));
        assert!(Seeds::parse_range("9..2").is_err());
    }
}
