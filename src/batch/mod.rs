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
use crate::{Error, InputError, InputKind};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod file;
pub mod passes;
mod seeds;

pub use crate::rows::{read_rows, rows_from_bytes, Row, HEADER, HEADER_V1, HEADER_V2, HEADER_V3};
pub(crate) use file::replace_file;
pub use file::{open_for_append, Opened};
pub use seeds::Seeds;

/// The summary of a batch's CSV file (one variant and options: a batch refuses rows of
/// others), as `castle stats` gives it; `None` for a file without rows.
///
/// # Errors
/// As [`read_rows`].
pub fn file_summary(path: &Path) -> Result<Option<crate::stats::Summary>, InputError> {
    let merged = crate::stats::merge(read_rows(path)?);
    Ok(merged.groups.into_values().next())
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
/// trying the solve's quotient abstraction `hint` first, and writes it into `dir` when one is
/// given (as [`crate::solver::certify::file_name`]).
///
/// # Errors
/// An internal error of the pass or the checker (a bug), or the file system's.
fn certify_to(
    dir: Option<&Path>,
    deal: &Deal,
    numbering: Numbering,
    max_bytes: usize,
    hint: Option<crate::solver::QuotientProof>,
    members: Option<crate::certificate::Members>,
) -> Result<CertNote, Error> {
    use crate::solver::certify::{self, CertifyError, CertifyOptions};
    let opts = CertifyOptions {
        max_bytes,
        hint,
        ..CertifyOptions::default()
    };
    // `certify` returns only a certificate the checker accepted (`check_threads` 1: on this
    // worker's thread).
    let certified = match certify::certify_from(deal, numbering, &opts, members) {
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
            let certificates = o.certificates.clone();
            let certify = o.certify || certificates.is_some();
            // A lost deal's certificate from the positions of the quotient run that proved
            // it, when that run kept them (`Solver::keep_members`; the same search).
            let solver = Solver {
                keep_members: certify,
                ..pass.solver.clone()
            };
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
                        out.lost_by,
                        out.lost_members.take(),
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
