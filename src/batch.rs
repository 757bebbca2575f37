//! Deal analysis at scale (`castle batch`): seed ranges solved in parallel into rows, rows
//! appended to a CSV (or written as JSON lines) that survives interruption. The summary
//! statistics of `castle stats` are in [`crate::stats`].
//!
//! # Crash safety and resume
//! Every row is formatted in memory and written with one `write_all` of a whole line, then
//! flushed, by a single writer. A process killed at any moment therefore leaves every
//! finished row intact and at most one partial last line. On resume the file is read back,
//! a partial last line (no newline) is cut off, and the seeds already present are skipped; a
//! file with no whole line is a header torn by a crash, written again (unless it is not the
//! start of the header, when it is refused untouched). A batch holds an advisory lock
//! (`flock`) on its file for as long as it runs, so a second batch on the same file is refused
//! with a message naming the first's process. An interrupt (`castle batch` sets a flag on
//! SIGINT or SIGTERM) stops a run between rows, with nothing partial written: see [`run`].

use crate::deal::{Deal, Numbering};
use crate::report::Report;
use crate::rules::Rules;
use crate::solver::{Outcome, Solver, Verdict};
use crate::stats::wilson;
use crate::text::Cut;
use crate::{Error, InputError, InputKind, Origin};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub mod passes;

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
    /// Solution length in single moves; empty if there is no solution (files written before
    /// said 0).
    pub moves: Option<usize>,
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
    /// The phase that decided the deal (`quick`, `complete`, `quotient`, a portfolio member
    /// such as `best-first:dig`, `layered`); empty for `unknown` and in files written before
    /// the column existed.
    #[serde(default)]
    pub phase: String,
    /// CPU milliseconds the deal took (user and system, every pass of the batch together);
    /// empty in files written before the column existed.
    #[serde(default)]
    pub cpu_ms: Option<u64>,
    /// The pass of the batch that decided the deal, from 1 (see [`passes`]); empty in files
    /// written before the column existed.
    #[serde(default)]
    pub pass: Option<u8>,
    /// For a lost deal of a batch that certifies its losses (`--certify`, `--certificates`):
    /// whether its certificate was built and passed the independent checker before the row
    /// was written; empty otherwise, and in files written before the column existed.
    #[serde(default)]
    pub certified: Option<bool>,
}

fn castle_numbering() -> String {
    Numbering::Castle.name().to_string()
}

/// The CSV header line (the field names of [`Row`], in order).
pub const HEADER: &str =
    "seed,variant,start_rank,foundation_return,sequence_moves,verdict,moves,nodes,states,ms,score,limit,numbering,phase,cpu_ms,pass,certified";

/// The header of batch files written before the `certified` column (still read; a resume
/// rewrites such a file once with the current header).
pub const HEADER_V3: &str =
    "seed,variant,start_rank,foundation_return,sequence_moves,verdict,moves,nodes,states,ms,score,limit,numbering,phase,cpu_ms,pass";

/// The header of batch files written before the `phase`, `cpu_ms` and `pass` columns (still read; a
/// resume rewrites such a file once with the current header).
pub const HEADER_V2: &str =
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
            moves: (out.verdict == Verdict::Solvable).then_some(out.moves.len()),
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
            phase: out.phase.map(|p| p.name().to_string()).unwrap_or_default(),
            cpu_ms: Some((out.cpu_seconds * 1000.0).round() as u64),
            pass: None,
            certified: None,
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

/// Which seeds a batch covers: the seeds of some ranges, every `n`-th of them in increasing
/// order from the `k`-th (shard `k/n`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seeds {
    /// Inclusive ranges, disjoint, not adjacent, in increasing order (see [`Seeds::parse`]).
    pub ranges: Vec<(u64, u64)>,
    /// Shard index, `0..count`.
    pub shard: u64,
    /// Number of shards (1: no sharding).
    pub shards: u64,
}

impl Seeds {
    /// The seeds `first..=last`, unsharded.
    pub fn range(first: u64, last: u64) -> Seeds {
        Seeds {
            ranges: vec![(first, last)],
            shard: 0,
            shards: 1,
        }
    }

    /// Parses a comma-separated list of ranges `A..B` (inclusive; `A..=B` too) and single
    /// numbers, as `1..1000,2024,5000..5010`: sorted, overlaps and repeats merged.
    ///
    /// # Errors
    /// A [`InputKind::Seeds`] error whose origin is the item at fault, quoted (the command
    /// line adds its flag: ``--seeds `9..2`: the range is empty``).
    pub fn parse(s: &str) -> Result<Vec<(u64, u64)>, InputError> {
        let mut ranges = Vec::new();
        for item in s.split(',') {
            let quoted = || Origin::Text(format!("`{}`", Cut(item.trim())));
            let bad = || {
                InputError::new(
                    InputKind::Seeds,
                    "expected ranges like 1..1000 (inclusive) or numbers, separated by commas",
                )
                .at(quoted())
            };
            let (a, b) = match item.split_once("..") {
                Some((a, b)) => (a, b.strip_prefix('=').unwrap_or(b)),
                None => (item, item),
            };
            let a: u64 = a.trim().parse().map_err(|_| bad())?;
            let b: u64 = b.trim().parse().map_err(|_| bad())?;
            if a > b {
                return Err(InputError::new(
                    InputKind::Seeds,
                    format!("the range is empty ({a} > {b})"),
                )
                .at(quoted()));
            }
            ranges.push((a, b));
        }
        ranges.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
        for (a, b) in ranges {
            match merged.last_mut() {
                Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        Ok(merged)
    }

    /// Parses `K/N` (shard K of N, K = 0..N-1).
    ///
    /// # Errors
    /// A [`InputKind::Seeds`] error whose origin is the text, quoted.
    pub fn parse_shard(s: &str) -> Result<(u64, u64), InputError> {
        let bad = || {
            InputError::new(InputKind::Seeds, "expected K/N with 0 <= K < N, like 0/4")
                .at(Origin::Text(format!("`{}`", Cut(s))))
        };
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k: u64 = k.trim().parse().map_err(|_| bad())?;
        let n: u64 = n.trim().parse().map_err(|_| bad())?;
        if n == 0 || k >= n {
            return Err(bad());
        }
        Ok((k, n))
    }

    /// How many seeds the ranges hold, before sharding (2^64 does not fit a `u64`).
    fn total(&self) -> u128 {
        self.ranges
            .iter()
            .map(|&(a, b)| u128::from(b - a) + 1)
            .sum()
    }

    /// How many seeds there are (counted, not listed: the ranges may hold 2^64 of them, which
    /// saturates).
    pub fn count(&self) -> u64 {
        let (total, shard, shards) = (
            self.total(),
            u128::from(self.shard),
            u128::from(self.shards),
        );
        if shard >= total {
            0
        } else {
            u64::try_from((total - 1 - shard) / shards + 1).unwrap_or(u64::MAX)
        }
    }

    /// Whether `seed` is one of the seeds.
    pub fn contains(&self, seed: u64) -> bool {
        // Its place among the ranges' seeds, in increasing order.
        let mut before = 0u128;
        for &(a, b) in &self.ranges {
            if seed < a {
                return false;
            }
            if seed <= b {
                let i = before + u128::from(seed - a);
                return i % u128::from(self.shards) == u128::from(self.shard);
            }
            before += u128::from(b - a) + 1;
        }
        false
    }

    /// The seeds, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.clone().into_seeds()
    }

    /// The seeds, in increasing order, owning the ranges (for a thread of its own).
    fn into_seeds(self) -> impl Iterator<Item = u64> + Send + 'static {
        let (shard, shards) = (u128::from(self.shard), u128::from(self.shards));
        self.ranges
            .into_iter()
            .flat_map(|(a, b)| a..=b)
            .scan(0u128, |i, seed| {
                let at = *i;
                *i += 1;
                Some((at, seed))
            })
            .filter(move |(i, _)| i % shards == shard)
            .map(|(_, seed)| seed)
    }
}

/// Reads the rows of a CSV file (a leading byte-order mark is skipped).
///
/// # Errors
/// A message naming the file and line of a bad header, of a row that does not parse (and its
/// column), or of bytes that are not UTF-8.
pub fn read_rows(path: &Path) -> Result<Vec<Row>, InputError> {
    let origin = path.display().to_string();
    let bytes = crate::stats::read_batch_file(path, &origin)?;
    rows_from_bytes(bytes, &origin)
}

/// The summary of a batch's CSV file (one variant and options: a batch refuses rows of
/// others), as `castle stats` gives it; `None` for a file without rows.
///
/// # Errors
/// As [`read_rows`].
pub fn file_summary(path: &Path) -> Result<Option<crate::stats::Summary>, InputError> {
    let merged = crate::stats::merge(read_rows(path)?);
    Ok(merged.groups.into_values().next())
}

/// Reads the rows of a batch CSV held in memory: `origin` names it in messages (see
/// [`read_rows`]).
///
/// # Errors
/// As [`read_rows`].
pub fn rows_from_bytes(bytes: Vec<u8>, origin: &str) -> Result<Vec<Row>, InputError> {
    let text = crate::text::decode(bytes, origin)?;
    rows_from(text.as_bytes(), origin)
}

pub(crate) fn rows_from(reader: impl std::io::Read, origin: &str) -> Result<Vec<Row>, InputError> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(reader);
    let header = r
        .headers()
        .map_err(|e| {
            InputError::new(InputKind::Report, e.to_string())
                .at(origin)
                .on_line(1)
        })?
        .iter()
        .collect::<Vec<_>>()
        .join(",");
    if ![HEADER, HEADER_V3, HEADER_V2, HEADER_V1].contains(&header.as_str()) {
        return Err(InputError::new(
            InputKind::Report,
            format!(
                "not a castle batch file (header `{}`, expected `{HEADER}`)",
                Cut(&header)
            ),
        )
        .at(origin)
        .on_line(1));
    }
    let mut rows = Vec::new();
    for rec in r.deserialize::<Row>() {
        rows.push(rec.map_err(|e| row_error(origin, &e))?);
    }
    Ok(rows)
}

/// A row that does not parse, named by line and column.
fn row_error(origin: &str, e: &csv::Error) -> InputError {
    let line = e.position().map_or(0, |p| p.line());
    let what = match e.kind() {
        csv::ErrorKind::Deserialize { err, .. } => {
            let column = err
                .field()
                .and_then(|f| HEADER.split(',').nth(f as usize))
                .map_or(String::new(), |c| format!("column `{c}`: "));
            format!("{column}{}", err.kind())
        }
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("{len} fields, expected {expected_len}"),
        _ => e.to_string(),
    };
    InputError::new(
        InputKind::Report,
        format!("bad row: {}", crate::text::cut_words(&what, 60)),
    )
    .at(origin)
    .on_line(line as usize)
}

/// Takes an advisory lock on a batch CSV for this process (released when the file is
/// closed, or the process ends however it ends), so that two batches never append to one
/// file.
#[cfg(unix)]
fn lock(file: &std::fs::File, origin: &str) -> Result<(), InputError> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: `flock` only reads the descriptor, which `file` keeps open for the call.
    let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    if e.kind() != std::io::ErrorKind::WouldBlock {
        return Err(
            InputError::new(InputKind::File, format!("cannot lock the file: {e}")).at(origin),
        );
    }
    let holder = lock_holder(file).map_or(String::new(), |pid| format!(" (process {pid})"));
    Err(InputError::new(
        InputKind::File,
        format!(
            "another castle batch{holder} is appending to this file; wait for it to end, or give another file"
        ),
    )
    .at(origin))
}

#[cfg(not(unix))]
fn lock(_file: &std::fs::File, _origin: &str) -> Result<(), InputError> {
    Ok(())
}

/// The process holding a `flock` on `file`, from Linux's `/proc/locks` (best effort).
#[cfg(unix)]
fn lock_holder(file: &std::fs::File) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let ino = file.metadata().ok()?.ino();
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    locks.lines().find_map(|l| {
        // `1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF`
        let f: Vec<&str> = l.split_whitespace().collect();
        let id = f.get(5)?;
        (f.get(1) == Some(&"FLOCK") && id.rsplit(':').next()?.parse::<u64>().ok()? == ino)
            .then(|| f.get(4)?.parse().ok())
            .flatten()
    })
}

/// Writes `text` to `tmp` and renames it over `path`, so an interruption leaves the old file
/// or the new one whole (the batch file's upgrade, the pending file's end).
pub(crate) fn replace_file(path: &Path, tmp: &Path, text: &str) -> std::io::Result<()> {
    std::fs::write(tmp, text)?;
    std::fs::rename(tmp, path)
}

/// A batch CSV open for appending (see [`open_for_append`]).
#[derive(Debug)]
pub struct Opened {
    /// The file, locked, positioned for appending.
    pub file: std::fs::File,
    /// The seeds not to solve again.
    pub done: HashSet<u64>,
    /// With `retry_unknown`: each seed to solve again and its count of `unknown` rows.
    pub retries: HashMap<u64, u64>,
}

/// Opens a batch CSV for appending: locks it (a second batch on the same file is refused),
/// creates it with the header, or checks an existing one, cuts a torn last line (or a torn
/// header, when a crash left nothing else), and returns the seeds already done for these
/// rules: every seed with a row, or with `retry_unknown` only those with a decided row (so
/// the seeds whose rows all say `unknown` are solved again, and their new rows appended;
/// `stats` counts a seed's decided row over its `unknown` ones), and with `retry_unknown`
/// how many `unknown` rows each seed left to solve again has (its retry's salt: see
/// [`Solver::salt`]).
///
/// # Errors
/// Unreadable files, a file another batch holds, a foreign header or a corrupt row (named by
/// line), or rows of other rules in the file.
pub fn open_for_append(
    path: &Path,
    rules: &Rules,
    numbering: Numbering,
    retry_unknown: bool,
) -> Result<Opened, InputError> {
    let origin = path.display().to_string();
    let io = |e: std::io::Error| InputError::new(InputKind::File, e.to_string()).at(path);
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)
        .map_err(io)?;
    lock(&file, &origin)?;
    let mut bytes = Vec::new();
    file.rewind().map_err(io)?;
    std::io::Read::read_to_end(&mut file, &mut bytes).map_err(io)?;
    // Everything after the last newline is a line a crash cut short.
    let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    if keep == 0 {
        // No whole line: a new file, or a header torn by a crash (written again); anything
        // else is not a batch file, and is left as it is.
        let torn = bytes
            .strip_prefix(crate::text::BOM.as_bytes())
            .unwrap_or(&bytes);
        if !HEADER.as_bytes().starts_with(torn) {
            let shown = String::from_utf8_lossy(torn);
            return Err(InputError::new(
                InputKind::Report,
                format!(
                    "not a castle batch file (`{}` without a newline, expected the header `{HEADER}`)",
                    Cut(&shown)
                ),
            )
            .at(path)
            .on_line(1));
        }
        file.set_len(0).map_err(io)?;
        file.write_all(format!("{HEADER}\n").as_bytes())
            .map_err(io)?;
        file.flush().map_err(io)?;
        return Ok(Opened {
            file,
            done: HashSet::new(),
            retries: HashMap::new(),
        });
    }
    bytes.truncate(keep);
    let text = crate::text::decode(bytes, &origin)?;
    // The header and rows are checked before the torn line is cut: a file that is not a
    // batch file is refused untouched.
    let rows = rows_from(text.as_bytes(), &origin)?;
    if (keep as u64) < file.metadata().map_err(io)?.len() {
        file.set_len(keep as u64).map_err(io)?;
    }
    let first = text.lines().next().unwrap_or("");
    let first = first.strip_prefix(crate::text::BOM).unwrap_or(first);
    if [HEADER_V1, HEADER_V2, HEADER_V3].contains(&first) {
        // An older file: rewrite it with the current header (a new file renamed over the
        // old one, so an interruption leaves one or the other whole).
        let mut body = format!("{HEADER}\n");
        for row in &rows {
            body += &row.csv_line();
        }
        replace_file(path, &path.with_extension("csv.upgrade"), &body).map_err(io)?;
        drop(file);
        return open_for_append(path, rules, numbering, retry_unknown);
    }
    let mut done = HashSet::new();
    let mut unknown = HashMap::new();
    for (i, row) in rows.iter().enumerate() {
        let differ = differences(row, rules, numbering);
        if !differ.is_empty() {
            return Err(InputError::new(
                InputKind::Report,
                format!(
                    "the file's rows are for another batch: {}; give the file's options, or use another file",
                    differ.join("; ")
                ),
            )
            .at(path)
            .on_line(i + 2));
        }
        if !retry_unknown || row.verdict != Verdict::Unknown.name() {
            done.insert(row.seed);
        } else {
            *unknown.entry(row.seed).or_insert(0) += 1;
        }
    }
    unknown.retain(|seed, _| !done.contains(seed));
    Ok(Opened {
        file,
        done,
        retries: unknown,
    })
}

/// What differs between a row of a batch file and the batch being run, one phrase an option:
/// `start rank 1 in the file, 2 here (--start-rank)`.
fn differences(row: &Row, rules: &Rules, numbering: Numbering) -> Vec<String> {
    let o = rules.options;
    let on = |b: bool| if b { "on" } else { "off" };
    let mut d = Vec::new();
    let mut differ = |what: &str, file: &str, here: &str, flag: &str| {
        if file != here {
            d.push(format!(
                "{what} {} in the file, {here} here ({flag})",
                Cut(file)
            ));
        }
    };
    differ("variant", &row.variant, rules.variant.name(), "--variant");
    // Two variants' own start ranks are part of the variants, not an option given.
    let defaults = row.variant.parse::<crate::rules::Variant>().is_ok_and(|v| {
        v.rules().options.start_rank == row.start_rank
            && rules.variant.rules().options.start_rank == o.start_rank
    });
    if !defaults {
        differ(
            "start rank",
            &row.start_rank.to_string(),
            &o.start_rank.to_string(),
            "--start-rank",
        );
    }
    differ(
        "foundation return",
        on(row.foundation_return),
        on(o.foundation_return),
        "--foundation-return",
    );
    differ(
        "sequence moves",
        &row.sequence_moves,
        o.sequence_moves.name(),
        "--sequence-moves",
    );
    differ("numbering", &row.numbering, numbering.name(), "--numbering");
    d
}

/// Seeds handed to the workers at a time.
const SEED_CHUNK: usize = 1 << 16;

/// The map of deals in flight, or the pending file, whatever a worker that panicked holding
/// it left (a seed inserted or removed is whole either way, and a carry is written as a
/// whole line).
fn guard<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// How often the calling thread of [`run`] looks at the interrupt flag while no row comes.
const INTERRUPT_POLL: Duration = Duration::from_millis(50);

/// How a [`run`] ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended {
    /// Every seed was solved and handed to the sink.
    Done,
    /// The interrupt flag was set: the sink got no row after it. The deals in flight then,
    /// each with how long it had been solved (that work is lost: see "Interruption").
    Interrupted(Vec<(u64, Duration)>),
}

/// Solves `seeds` of `rules` on `threads` workers (each with an equal share of the memory
/// budget), skipping `done`, and hands each finished row and outcome to `sink` in the
/// calling thread as soon as it is ready (rows come in completion order).
///
/// # Interruption
/// The calling thread looks at `interrupt` before each row and every [`INTERRUPT_POLL`]
/// while it waits for one (a signal handler sets it; see `castle batch`). Once it is set, no
/// row reaches `sink` and no deal is started, and `run` returns [`Ended::Interrupted`] at
/// once: the deals in flight are abandoned, unrecorded (the solver has no stop of its own;
/// their workers finish them in the background, send to no one and end, or end with the
/// process), and named with the time each had taken, which the next run spends again. The
/// rows handed to `sink` before are all there is.
///
/// # Errors
/// The first error of `sink`, or of a solve (a bug: see [`crate::solver::SolveError`]).
// Eight plain inputs, each named at the call: a struct for them would only be built to be
// taken apart here.
#[allow(clippy::too_many_arguments)]
pub fn run(
    rules: Rules,
    numbering: Numbering,
    seeds: Seeds,
    done: &HashSet<u64>,
    solver: Solver,
    threads: usize,
    interrupt: &AtomicBool,
    sink: &mut dyn FnMut(Row, Deal, Outcome) -> Result<(), Error>,
) -> Result<Ended, Error> {
    let threads = threads.max(1);
    let mut per = solver.clone();
    per.limits.memory_bytes = (solver.limits.memory_bytes / threads).max(1 << 20);
    run_with(
        rules,
        numbering,
        seeds.into_seeds(),
        done,
        move |deal: &Deal| Ok((per.solve(deal)?, None)),
        threads,
        interrupt,
        &mut |row, deal, out, _| sink(row, deal, out),
    )
}

/// [`run`] with any way of solving a deal (`solve`, called on the workers).
#[allow(clippy::too_many_arguments)]
fn run_with(
    rules: Rules,
    numbering: Numbering,
    seeds: impl Iterator<Item = u64> + Send + 'static,
    done: &HashSet<u64>,
    solve: impl Fn(&Deal) -> Result<(Outcome, Option<CertNote>), Error> + Send + Sync + 'static,
    threads: usize,
    interrupt: &AtomicBool,
    sink: &mut dyn FnMut(Row, Deal, Outcome, Option<CertNote>) -> Result<(), Error>,
) -> Result<Ended, Error> {
    // With one worker the feeder solves the seeds itself, on a plain thread. On a rayon
    // worker, a solve that runs its own pool (one deal on every thread: `install`, the
    // portfolio's slices) would, while it waits for that pool, take the next seed's task of
    // this one and solve it nested inside the first: two deals at once, each with the whole
    // memory budget, each timed as both.
    let pool = if threads > 1 {
        Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(std::io::Error::other)?,
        )
    } else {
        None
    };
    type Solved = Result<(Row, Deal, Outcome, Option<CertNote>), Error>;
    let (tx, rx) = std::sync::mpsc::sync_channel::<Solved>(threads * 4);
    // Set when the receiver stops taking rows (the sink failed, or an interrupt): no more
    // deals are started.
    let stop = Arc::new(AtomicBool::new(false));
    // The workers' own copy of the seeds done: an interrupted run returns without waiting
    // for them, so they borrow nothing from the caller.
    let done = Arc::new(done.clone());
    // The deals being solved, with when each started (named if the run is interrupted).
    let flight: Arc<Mutex<BTreeMap<u64, Instant>>> = Arc::default();
    let feeder = {
        let stop = Arc::clone(&stop);
        let flight = Arc::clone(&flight);
        std::thread::spawn(move || {
            // The seeds in chunks, so that a range of any length takes no more memory than
            // one chunk (`--seeds 1..18446744073709551615` is a run that never ends, not an
            // allocation that fails).
            let mut todo = seeds.filter(|s| !done.contains(s));
            let one = |tx: &std::sync::mpsc::SyncSender<Solved>, seed: u64| {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                // The numbering was checked on the first seed before the run started.
                let Ok(deal) = Deal::numbered(rules, numbering, seed) else {
                    return;
                };
                guard(&flight).insert(seed, Instant::now());
                let solved = solve(&deal)
                    .map(|(out, note)| (Row::new(&deal, numbering, &out), deal, out, note));
                guard(&flight).remove(&seed);
                if tx.send(solved).is_err() {
                    stop.store(true, Ordering::Relaxed);
                }
            };
            match pool {
                None => {
                    for seed in todo {
                        if stop.load(Ordering::Relaxed) {
                            break;
                        }
                        one(&tx, seed);
                    }
                }
                Some(pool) => pool.install(|| loop {
                    use rayon::prelude::*;
                    let chunk: Vec<u64> = todo.by_ref().take(SEED_CHUNK).collect();
                    if chunk.is_empty() || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    // One seed per task (`with_max_len(1)`): solve times are heavy-tailed, and
                    // a hard deal must not hold back the seeds that rayon would otherwise have
                    // put in the same sequential chunk behind it; idle workers steal them.
                    chunk
                        .par_iter()
                        .with_max_len(1)
                        .for_each_with(tx.clone(), |tx, &seed| one(tx, seed));
                }),
            }
            drop(tx);
        })
    };
    let abandoned = || {
        let now = Instant::now();
        let f = guard(&flight);
        Ended::Interrupted(f.iter().map(|(&s, &t)| (s, now - t)).collect())
    };
    let result = loop {
        if interrupt.load(Ordering::Relaxed) {
            break Ok(abandoned());
        }
        let solved = match rx.recv_timeout(INTERRUPT_POLL) {
            Ok(solved) => solved,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => break Ok(Ended::Done),
        };
        // A row that came with the interrupt is dropped with the deals in flight, and named
        // with them.
        if interrupt.load(Ordering::Relaxed) {
            let mut ended = abandoned();
            if let (Ended::Interrupted(flight), Ok((row, ..))) = (&mut ended, &solved) {
                flight.push((row.seed, Duration::from_millis(row.ms)));
            }
            break Ok(ended);
        }
        if let Err(e) = solved.and_then(|(row, deal, out, note)| sink(row, deal, out, note)) {
            break Err(e);
        }
    };
    stop.store(true, Ordering::Relaxed);
    drop(rx);
    if !matches!(result, Ok(Ended::Interrupted(_))) {
        // Every seed solved, or the sink failed: the workers stop at their next send, and
        // the pool is gone when the feeder returns. A worker's panic goes on here, as it
        // would in a scoped thread.
        if let Err(panic) = feeder.join() {
            std::panic::resume_unwind(panic);
        }
    }
    result
}

/// Row formats of `castle batch` on standard output (when no CSV file is given).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowFormat {
    /// CSV with a header ([`HEADER`]).
    Csv,
    /// One solve report ([`crate::report::Report`]) per line.
    Jsonl,
}

/// What became of a lost deal's certificate under `castle batch --certify` (or
/// `--certificates DIR`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CertNote {
    /// Built and checked by the independent checker (and written, with a directory).
    Certified {
        /// Members.
        positions: u64,
        /// Bytes of the file written (`None` when no directory was given: the certificate
        /// was checked and dropped).
        bytes: Option<u64>,
    },
    /// Not built: a budget of the certificate pass ran out (the message says which).
    Failed(String),
}

/// Builds and checks the certificate of the lost `deal` with at most `max_bytes` of memory,
/// and writes it into `dir` when one is given (as [`crate::solver::certify::file_name`]).
///
/// # Errors
/// An internal error of the pass or the checker (a bug), or the file system's.
fn certify_to(
    dir: Option<&Path>,
    deal: &Deal,
    numbering: Numbering,
    max_bytes: usize,
) -> Result<CertNote, Error> {
    use crate::solver::certify::{self, CertifyError, CertifyOptions};
    let opts = CertifyOptions {
        max_bytes,
        ..CertifyOptions::default()
    };
    // `certify` returns only a certificate the checker accepted (`check_threads` 1: on this
    // worker's thread).
    let certified = match certify::certify(deal, numbering, &opts) {
        Ok(c) => c,
        Err(e @ CertifyError::Limit(_)) => {
            return Ok(CertNote::Failed(format!(
                "seed {}: {e}",
                deal.seed.unwrap_or(0)
            )))
        }
        Err(e) => {
            return Err(Error::Certificate(format!(
                "seed {}: {e}",
                deal.seed.unwrap_or(0)
            )))
        }
    };
    let Some(dir) = dir else {
        let positions = certified.checked.map_or(0, |c| c.positions);
        return Ok(CertNote::Certified {
            positions,
            bytes: None,
        });
    };
    let path = dir.join(certify::file_name(deal, numbering));
    let written = crate::certificate::write(&certified.certificate, &path).map_err(|e| {
        Error::Certificate(format!(
            "{}: cannot write the certificate: {e}",
            path.display()
        ))
    })?;
    Ok(CertNote::Certified {
        positions: written.positions,
        bytes: Some(written.bytes),
    })
}

/// What `castle batch` does: which deals, how they are solved, where the rows go.
#[derive(Clone, Debug)]
pub struct BatchOptions {
    /// The rules of every deal.
    pub rules: Rules,
    /// Whose deal numbers the seeds are.
    pub numbering: Numbering,
    /// The seeds.
    pub seeds: Seeds,
    /// The solver of each deal (its memory budget is shared by the workers).
    pub solver: Solver,
    /// Worker threads.
    pub threads: usize,
    /// Append rows to this CSV file (resuming a run), instead of writing them to the output.
    pub csv: Option<PathBuf>,
    /// Row format on the output when there is no `csv` file.
    pub format: RowFormat,
    /// Also append the seeds proved winnable to this file, one per line.
    pub winnable_only: Option<PathBuf>,
    /// Solve again the seeds whose rows in `csv` all say `unknown` (see [`open_for_append`]),
    /// each with its salt raised by the number of those rows, so that a retry is another
    /// search for a win and not the same one again (see [`Solver::salt`]).
    pub retry_unknown: bool,
    /// Solve every deal once with the solver's budgets, instead of in passes (see
    /// [`passes`]).
    pub one_pass: bool,
    /// The node budgets of the passes before the last (default [`passes::PASS_NODES`]).
    pub pass_nodes: Vec<u64>,
    /// Write a certificate of each lost deal into this directory (see [`CertNote`]); it
    /// implies `certify`.
    pub certificates: Option<PathBuf>,
    /// Build each lost deal's certificate and check it with the independent checker before
    /// its row is written (the row's `certified` column), keeping no file unless
    /// `certificates` names a directory. The pass's CPU is in the row's `cpu_ms`.
    pub certify: bool,
}

/// The verdicts of a batch so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Deals proved winnable.
    pub won: u64,
    /// Deals proved lost.
    pub lost: u64,
    /// Deals left undecided.
    pub unknown: u64,
    /// Seeds skipped because the CSV file already had them.
    pub done_before: usize,
    /// Whether the file's `unknown` seeds were solved again.
    pub retried: bool,
    /// Whether the run was interrupted (see [`run`]): the rows counted are all written.
    pub interrupted: bool,
    /// The deals in flight when it was, each with how long it had been solved in the pass
    /// [`Tally::pass`] (the next run starts that pass of it again).
    pub abandoned: Vec<(u64, Duration)>,
    /// The pass running now (from 0; see [`passes`]).
    pub pass: usize,
    /// The passes of the batch.
    pub passes: usize,
    /// Deals waiting for a later pass (they have no row yet).
    pub waiting: u64,
    /// Deals of the pass running now that earlier runs started in it and never ended (they
    /// come last; see "Resume" at [`passes`]).
    pub tried: u64,
    /// Deals decided by each pass (`unknown` rows of the last pass not counted).
    pub by_pass: [u64; passes::MAX_PASSES],
    /// Lost deals certified (with `--certify` or `--certificates`; written with the latter).
    pub certificates: u64,
    /// Bytes of the certificates written (with `--certificates`).
    pub certificate_bytes: u64,
    /// Lost deals whose certificate pass ran out of a budget, with the message of each.
    pub uncertified: Vec<String>,
    /// CPU milliseconds of the rows written by this run (their `cpu_ms`: every pass of each
    /// deal, and its certificate pass).
    pub cpu_ms: u64,
}

impl Tally {
    /// Deals solved in this run.
    pub fn deals(&self) -> u64 {
        self.won + self.lost + self.unknown
    }

    /// The progress line: the win rate so far and its 95% Wilson interval, unknowns counted
    /// both ways; in a later pass, which and how many deals are left for it.
    pub fn progress(&self) -> String {
        let n = self.deals();
        let (lo, hi) = (wilson(self.won, n).0, wilson(self.won + self.unknown, n).1);
        let mut line = format!(
            "win rate {:.1}% [{:.1}, {:.1}], {} unknown",
            100.0 * self.won as f64 / n.max(1) as f64,
            100.0 * lo,
            100.0 * hi,
            self.unknown
        );
        if self.pass > 0 {
            line += &format!(
                "; pass {} of {}: {} left",
                self.pass + 1,
                self.passes,
                self.waiting
            );
            if self.tried > 0 {
                line += &format!(" ({} started by an earlier run, taken last)", self.tried);
            }
        } else if self.waiting > 0 {
            line += &format!(", {} for later passes", self.waiting);
        }
        line
    }

    /// Seconds until the `left` deals still to solve are done, projected from this run's
    /// deals: their mean CPU (the rows' `cpu_ms`) times `left`, over the CPU the process is
    /// getting (`cpu_seconds` of the process over `elapsed` wall seconds: the cores it runs on,
    /// less what other work, or `nice`, takes). `None` before the first row.
    ///
    /// The mean is over the deals decided so far; the deals carried to a later pass cost more
    /// than it, so in the first pass of a batch in passes the projection is low by their part.
    pub fn remaining_seconds(&self, left: u64, cpu_seconds: f64, elapsed: f64) -> Option<f64> {
        let n = self.deals();
        if n == 0 || cpu_seconds <= 0.0 || elapsed <= 0.0 {
            return None;
        }
        let per_deal = self.cpu_ms as f64 / 1000.0 / n as f64;
        let cores = cpu_seconds / elapsed;
        Some(left as f64 * per_deal / cores)
    }

    /// The closing line, if any deal was solved.
    pub fn summary(&self) -> Option<String> {
        let n = self.deals();
        (n > 0).then(|| {
            let mut line = format!(
                "{}: {} winnable, {} unsolvable, {} unknown ({} done before{})",
                crate::render::count(n, "deal"),
                self.won,
                self.lost,
                self.unknown,
                self.done_before,
                if self.retried {
                    ", unknown ones retried"
                } else {
                    ""
                }
            );
            if self.passes > 1 {
                let by: Vec<String> = (0..self.passes)
                    .map(|i| {
                        let what = if i + 1 == self.passes {
                            "the last pass (a deal at a time, every thread)".to_string()
                        } else {
                            format!("pass {}", i + 1)
                        };
                        format!("{} in {what}", self.by_pass[i])
                    })
                    .collect();
                line += &format!("; decided {}", by.join(", "));
            }
            line
        })
    }
}

/// A batch ready to run: its files open, the seeds already done read back.
#[derive(Debug)]
pub struct Batch {
    opts: BatchOptions,
    file: Option<std::fs::File>,
    done: HashSet<u64>,
    /// With `retry_unknown`: the `unknown` rows of each seed solved again (added to its
    /// salt).
    retries: HashMap<u64, u64>,
    winnable: Option<std::fs::File>,
    /// Deals a run before left for a later pass (see [`passes`], "Resume").
    carried: HashMap<u64, passes::Carry>,
    /// Carries of deals outside this run's seeds (an earlier run over a larger range left
    /// them): kept in the pending file when this run ends, for the run that takes them up.
    elsewhere: HashMap<u64, passes::Carry>,
}

impl Batch {
    /// Opens the CSV file (see [`open_for_append`]), the winnable-seeds file, and reads the
    /// deals a stopped run left for a later pass ([`passes::PendingFile`]).
    ///
    /// # Errors
    /// The errors of [`open_for_append`]; a winnable-seeds file that cannot be opened; a
    /// pending file that is not one.
    pub fn open(opts: BatchOptions) -> Result<Batch, InputError> {
        let (file, done, retries) = match &opts.csv {
            Some(p) => {
                let o = open_for_append(p, &opts.rules, opts.numbering, opts.retry_unknown)?;
                (Some(o.file), o.done, o.retries)
            }
            None => (None, HashSet::new(), HashMap::new()),
        };
        let pending = match &opts.csv {
            Some(p) => passes::PendingFile::read(p)?,
            None => HashMap::new(),
        };
        let (carried, elsewhere) = pending
            .into_iter()
            .filter(|(seed, _)| !done.contains(seed))
            .partition(|(seed, _)| opts.seeds.contains(*seed));
        let winnable = match &opts.winnable_only {
            Some(p) => Some(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(p)
                    .map_err(|e| InputError::new(InputKind::File, e.to_string()).at(p))?,
            ),
            None => None,
        };
        Ok(Batch {
            opts,
            file,
            done,
            retries,
            winnable,
            carried,
            elsewhere,
        })
    }

    /// The seeds this run will solve.
    pub fn todo(&self) -> u64 {
        let seeds = &self.opts.seeds;
        let before = self.done.iter().filter(|&&s| seeds.contains(s)).count() as u64;
        seeds.count().saturating_sub(before)
    }

    /// The passes this batch makes (see [`passes`]).
    pub fn plan(&self) -> passes::Plan {
        let o = &self.opts;
        // `--layered` without `--spill` asks for the layered search on every deal.
        if o.one_pass || (o.solver.layered && o.solver.spill.is_none()) {
            passes::Plan::one(&o.solver, o.threads)
        } else {
            passes::Plan::rising_with(&o.solver, o.threads, &o.pass_nodes)
        }
    }

    /// Solves the seeds in passes (see [`passes`] and [`run`]), writing each deal's row as
    /// it is decided (to the CSV file, or to `out`) and calling `progress` after each row and
    /// at the start of each pass. Once `interrupt` is set no more rows are written, and the
    /// tally says `interrupted` (see "Interruption" at [`run`]); each row written is whole and
    /// flushed.
    ///
    /// # Errors
    /// Writing a row, or a solve's internal error.
    pub fn run(
        mut self,
        out: &mut impl Write,
        interrupt: &AtomicBool,
        progress: &mut dyn FnMut(&Tally),
    ) -> Result<Tally, Error> {
        let plan = self.plan();
        let o = self.opts.clone();
        if self.file.is_none() && o.format == RowFormat::Csv {
            writeln!(out, "{HEADER}")?;
        }
        let mut tally = Tally {
            done_before: self.done.len(),
            retried: o.retry_unknown,
            passes: plan.passes.len(),
            ..Tally::default()
        };
        let last = plan.passes.len() - 1;
        // Each retried deal's count of `unknown` rows, shared by every pass's workers.
        let retries = Arc::new(std::mem::take(&mut self.retries));
        // Shared with the last pass's worker, which writes a deal's carry as it starts it.
        let pending = Arc::new(Mutex::new(o.csv.as_deref().map(passes::PendingFile::new)));
        // A carry that names a pass this plan does not have goes to its last.
        let mut carried = std::mem::take(&mut self.carried);
        for c in carried.values_mut() {
            c.next = c.next.min(last);
        }
        // The first pass takes the seeds of the range that no earlier run carried on to a
        // later pass.
        let mut skip = self.done.clone();
        skip.extend(carried.iter().filter(|(_, c)| c.next > 0).map(|(s, _)| *s));
        let mut queue: Vec<Vec<u64>> = vec![Vec::new(); plan.passes.len()];
        for (&seed, c) in carried.iter().filter(|(_, c)| c.next > 0) {
            queue[c.next].push(seed);
        }
        tally.waiting = queue.iter().map(|q| q.len() as u64).sum();
        for (i, pass) in plan.passes.iter().enumerate() {
            // The last pass's deals, each with its carry as the pass begins: its worker puts
            // each start on record from it.
            let mut starts: HashMap<u64, passes::Carry> = HashMap::new();
            let (seeds, skip_now): (Box<dyn Iterator<Item = u64> + Send>, _) = if i == 0 {
                (Box::new(o.seeds.clone().into_seeds()), skip.clone())
            } else {
                let mut list = std::mem::take(&mut queue[i]);
                list.sort_unstable();
                list.dedup();
                if list.is_empty() {
                    continue;
                }
                // The deals earlier runs started in this pass and never ended come last, the
                // least tried first (see "Resume" at `passes`); the sort is stable, so the
                // others keep their seed order.
                list.sort_by_key(|s| carried.get(s).map(passes::Carry::turn));
                if pass.last {
                    starts = list
                        .iter()
                        .map(|&s| (s, carried.get(&s).copied().unwrap_or_default()))
                        .collect();
                }
                tally.tried = starts.values().filter(|c| c.tries > 0).count() as u64;
                (Box::new(list.into_iter()), HashSet::new())
            };
            tally.pass = i;
            if i > 0 {
                progress(&tally);
            }
            let solver = pass.solver.clone();
            let certificates = o.certificates.clone();
            let certify = o.certify || certificates.is_some();
            let numbering = o.numbering;
            let starts = Arc::new(starts);
            let started = Arc::clone(&starts);
            let record = Arc::clone(&pending);
            let retries = Arc::clone(&retries);
            let solve = move |deal: &Deal| {
                // In the last pass a deal's start is on record before its search (a run
                // killed in it leaves the try counted).
                if let Some((seed, c)) = deal.seed.and_then(|s| Some((s, started.get(&s)?))) {
                    if let Some(p) = guard(&record).as_mut() {
                        p.push(seed, &c.started())?;
                    }
                }
                // A deal solved before without a verdict, a retried one (its `unknown` rows)
                // or one an earlier run started in the last pass and never ended (its tries),
                // draws anew in its searches for a win: the same draws would repeat the
                // search that had missed (see `Solver::salt`).
                let before = deal.seed.map_or(0, |s| {
                    retries.get(&s).copied().unwrap_or(0)
                        + started.get(&s).map_or(0, |c| u64::from(c.tries))
                });
                let salted;
                let solver = if before > 0 {
                    salted = Solver {
                        salt: solver.salt.wrapping_add(before),
                        ..solver.clone()
                    };
                    &salted
                } else {
                    &solver
                };
                // With `--spill DIR` the last pass's solver goes on on disk when the deal fills
                // its table, or takes up the checkpoint an earlier run left (`Solver::spill`).
                let mut out = solver.solve(deal)?;
                // A lost deal's verdict is final in any pass: its certificate is built and
                // checked here, on the worker, and its CPU charged to the deal.
                let note = if certify && out.verdict == Verdict::Unsolvable {
                    let cpu0 = crate::solver::cpu_seconds(true);
                    let note = certify_to(
                        certificates.as_deref(),
                        deal,
                        numbering,
                        solver.limits.memory_bytes,
                    )?;
                    out.cpu_seconds += crate::solver::cpu_seconds(true) - cpu0;
                    Some(note)
                } else {
                    None
                };
                Ok((out, note))
            };
            let mut sink = |row: Row,
                            deal: Deal,
                            mut outcome: Outcome,
                            note: Option<CertNote>|
             -> Result<(), Error> {
                let certified = match note {
                    Some(CertNote::Certified { bytes, .. }) => {
                        tally.certificates += 1;
                        tally.certificate_bytes += bytes.unwrap_or(0);
                        Some(true)
                    }
                    Some(CertNote::Failed(why)) => {
                        tally.uncertified.push(why);
                        Some(false)
                    }
                    None => None,
                };
                let carry = carried.remove(&row.seed).unwrap_or_default();
                if let Some(next) = plan.next(i, &outcome) {
                    let c = carry.after(&outcome, next);
                    if let Some(p) = guard(&pending).as_mut() {
                        p.push(row.seed, &c)?;
                    }
                    carried.insert(row.seed, c);
                    queue[next].push(row.seed);
                    tally.waiting += 1;
                    progress(&tally);
                    return Ok(());
                }
                if carry != passes::Carry::default() {
                    tally.waiting = tally.waiting.saturating_sub(1);
                }
                carry.charge(&mut outcome);
                tally.cpu_ms += (outcome.cpu_seconds * 1000.0).round() as u64;
                let row = Row {
                    certified,
                    ..passes::stamp(Row::new(&deal, o.numbering, &outcome), i)
                };
                match outcome.verdict {
                    Verdict::Solvable => tally.won += 1,
                    Verdict::Unsolvable => tally.lost += 1,
                    Verdict::Unknown => tally.unknown += 1,
                }
                if outcome.verdict != Verdict::Unknown {
                    tally.by_pass[i] += 1;
                }
                match (&mut self.file, o.format) {
                    (Some(f), _) => {
                        f.write_all(row.csv_line().as_bytes())?;
                        f.flush()?;
                    }
                    (None, RowFormat::Csv) => {
                        out.write_all(row.csv_line().as_bytes())?;
                        out.flush()?;
                    }
                    (None, RowFormat::Jsonl) => {
                        let mut report = Report::new(&deal, &outcome).numbered(o.numbering);
                        report.pass = row.pass;
                        report.certified = row.certified;
                        serde_json::to_writer(&mut *out, &report)?;
                        writeln!(out)?;
                        out.flush()?;
                    }
                }
                if outcome.verdict == Verdict::Solvable {
                    if let Some(w) = &mut self.winnable {
                        writeln!(w, "{}", row.seed)?;
                        w.flush()?;
                    }
                }
                progress(&tally);
                Ok(())
            };
            let ended = run_with(
                o.rules,
                o.numbering,
                seeds,
                &skip_now,
                solve,
                pass.workers,
                interrupt,
                &mut sink,
            )?;
            if let Ended::Interrupted(abandoned) = ended {
                // How long the stopped run had been on each deal it leaves in the last pass.
                if let Some(p) = guard(&pending).as_mut() {
                    for &(seed, took) in &abandoned {
                        if let Some(c) = starts.get(&seed) {
                            let ms = u64::try_from(took.as_millis()).unwrap_or(u64::MAX);
                            p.push(seed, &c.started().stopped(ms))?;
                        }
                    }
                }
                tally.interrupted = true;
                tally.abandoned = abandoned;
                return Ok(tally);
            }
        }
        if let Some(p) = guard(&pending).take() {
            p.finish(&self.elsewhere)?;
        }
        tally.pass = 0;
        tally.waiting = 0;
        tally.tried = 0;
        Ok(tally)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The last pass solves one deal at a time on every thread: with one worker, a solve
    /// whose search runs its own thread pool must not start the next deal while it waits
    /// for that pool (see `run_with`), so no two deals are ever in flight at once.
    #[test]
    fn one_worker_solves_one_deal_at_a_time() {
        use crate::rules::Variant;
        use std::sync::atomic::AtomicUsize;
        let mut solver = Solver {
            threads: 2,
            ..Solver::default()
        };
        solver.limits.max_nodes = Some(200_000);
        let in_flight = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let (i, m) = (Arc::clone(&in_flight), Arc::clone(&most));
        let solve = move |deal: &Deal| {
            let now = i.fetch_add(1, Ordering::SeqCst) + 1;
            m.fetch_max(now, Ordering::SeqCst);
            let out = solver.solve(deal);
            i.fetch_sub(1, Ordering::SeqCst);
            Ok((out?, None))
        };
        let mut order = Vec::new();
        let ended = run_with(
            Variant::BeleagueredCastle.rules(),
            Numbering::Castle,
            Seeds::range(1, 12).into_seeds(),
            &HashSet::new(),
            solve,
            1,
            &AtomicBool::new(false),
            &mut |row, _, _, _| {
                order.push(row.seed);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(ended, Ended::Done);
        assert_eq!(
            most.load(Ordering::SeqCst),
            1,
            "two deals in flight at once"
        );
        assert_eq!(
            order,
            (1..=12).collect::<Vec<_>>(),
            "one at a time, in order"
        );
    }

    #[test]
    fn the_remaining_time_is_the_mean_cpu_over_the_cpu_the_process_gets() {
        let t = Tally {
            won: 3,
            lost: 1,
            cpu_ms: 8_000,
            ..Tally::default()
        };
        // 2 CPU s a deal; 100 deals left; the process got 6 CPU s in 4 s (1.5 cores): 200 CPU
        // s over 1.5 cores.
        let s = t.remaining_seconds(100, 6.0, 4.0).unwrap();
        assert!((s - 200.0 / 1.5).abs() < 1e-9, "{s}");
        assert_eq!(Tally::default().remaining_seconds(100, 6.0, 4.0), None);
        assert_eq!(t.remaining_seconds(100, 0.0, 4.0), None);
        assert_eq!(t.remaining_seconds(0, 6.0, 4.0), Some(0.0));
    }

    #[test]
    fn shards_partition_the_range() {
        let all: Vec<u64> = (0..4)
            .flat_map(|k| {
                Seeds {
                    shard: k,
                    shards: 4,
                    ..Seeds::range(3, 40)
                }
                .iter()
                .collect::<Vec<_>>()
            })
            .collect();
        let mut sorted = all.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (3..=40).collect::<Vec<_>>());
        assert!(Seeds::parse_shard("4/4").is_err());
        for (first, last, shard, shards) in
            [(3, 40, 1, 4), (0, 0, 0, 1), (5, 7, 3, 4), (1, 9, 0, 3)]
        {
            let s = Seeds {
                shard,
                shards,
                ..Seeds::range(first, last)
            };
            assert_eq!(s.count(), s.iter().count() as u64, "{s:?}");
            assert!(
                (0..50).all(|x| s.contains(x) == s.iter().any(|y| y == x)),
                "{s:?}"
            );
        }
        assert_eq!(Seeds::range(0, u64::MAX).count(), u64::MAX);
        assert_eq!(
            Seeds {
                ranges: vec![(0, u64::MAX)],
                shard: 1,
                shards: 2
            }
            .count(),
            1 << 63
        );
    }

    #[test]
    fn seed_lists_parse_sorted_and_merged() {
        assert_eq!(Seeds::parse("1..10").unwrap(), [(1, 10)]);
        assert_eq!(Seeds::parse("1..=10").unwrap(), [(1, 10)]);
        assert_eq!(Seeds::parse("7").unwrap(), [(7, 7)]);
        assert_eq!(
            Seeds::parse("9830, 3041,1..5,4..8,10").unwrap(),
            [(1, 8), (10, 10), (3041, 3041), (9830, 9830)]
        );
        assert_eq!(
            Seeds::parse("0..3,18446744073709551615,1..18446744073709551614").unwrap(),
            [(0, u64::MAX)]
        );
        for bad in ["9..2", "", "1,,2", "1..x", "a", "1..5,-3"] {
            let e = Seeds::parse(bad).expect_err(bad);
            assert_eq!(e.kind, InputKind::Seeds);
            let e = e.with_flag("--seeds").to_string();
            assert!(e.starts_with("--seeds `"), "{bad}: {e}");
        }
        // The message names the item at fault, not the whole list.
        let e = Seeds::parse("1..100,9..2,300").unwrap_err().to_string();
        assert!(e.contains("`9..2`") && !e.contains("300"), "{e}");
        // Sharding counts along the list, across its gaps.
        let s = Seeds {
            ranges: Seeds::parse("1..3,10,20..22").unwrap(),
            shard: 1,
            shards: 2,
        };
        assert_eq!(s.iter().collect::<Vec<_>>(), [2, 10, 21]);
        assert_eq!(s.count(), 3);
        assert!((0..30).all(|x| s.contains(x) == [2, 10, 21].contains(&x)));
    }
}
