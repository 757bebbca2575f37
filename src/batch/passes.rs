//! The passes of a batch: how `castle batch` ends with no deal `unknown` without stalling on
//! one.
//!
//! Solve times are heavy-tailed: the median deal takes a millisecond, and the slowest one in a
//! thousand can take minutes and all the memory there is. So a batch solves its seeds in
//! passes ([`Plan`]):
//!
//! 1. every deal, one per worker, with at most [`PASS_NODES`]`[0]` nodes each;
//! 2. the deals that pass left `unknown` (out of nodes), with [`PASS_NODES`]`[1]` each;
//! 3. the deals still left, one at a time, each with every thread (the in-deal parallel
//!    search sharing one table) and the whole `--memory`, with no budget but the ones given on
//!    the command line; a deal that runs out of memory there goes on with the layered search
//!    on disk when `--spill DIR` is given.
//!
//! A deal that ends a pass out of time or memory (not nodes) goes straight to the last pass,
//! where it gets more of both. Each pass starts a deal afresh: what an earlier pass spent on it
//! is lost work, at most the earlier passes' budgets, a tenth of the next (the node budgets
//! grow by more than ten). Rows count every pass a deal went through (nodes, times, `spent`).
//!
//! With `--max-nodes` or `--max-seconds` every pass keeps within them (passes with a larger
//! node budget than `--max-nodes` are left out), so the last pass may leave deals `unknown`;
//! their rows are written then, and the summary counts them. When `--max-nodes` leaves out
//! every pass but the last, that pass is the whole range and runs one deal per worker, as
//! `--one-pass` does.
//!
//! # Resume
//! A deal left for a later pass has no row yet. Its carry (the pass it goes to next and what it
//! cost) is appended to a file beside the CSV, `FILE.pending`, one line each, so a batch
//! stopped in a later pass takes those deals up in the pass they had reached, not from the
//! first. The file goes when the batch ends, but for the carries of deals outside the run's
//! seeds (a run over part of a range an earlier run left deals of), which stay for the run
//! that covers them.
//!
//! The last pass also writes a deal's carry when it starts the deal, counting the start
//! ([`Carry::tries`]), and a run stopped by a signal writes how long it had been on the deals
//! it leaves ([`Carry::tried_ms`]). A resumed later pass takes its deals in the order of those
//! counts, the untried first (in increasing seed order): a deal that takes longer than a run
//! lasts (hours, in the last pass) does not hold back every run that follows, and the deals
//! behind it get their turn. The order of the deals changes nothing of any one's verdict or
//! of its search; what the stopped runs spent is not in the rows (they count the run that
//! decided the deal and the passes before it).

use super::Row;
use crate::solver::{Limit, Outcome, Solver, Spent, Verdict};
use crate::{InputError, InputKind};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The node budgets of the passes before the last, per deal. The first decides all but a few
/// in a hundred thousand (7 of streets-and-alleys' first 125,000 deals went past it), the
/// second nearly all of those. A deal's search does not
/// depend on its budget until the budget binds, so no budget changes a verdict, and a deal
/// that takes `n` nodes costs `n` plus the budgets of the passes it failed; the first budget
/// is the one that leaves few deals to pay it (performance log, "The schedule's constants",
/// PASS_NODES).
pub const PASS_NODES: [u64; 2] = [3_000_000, 30_000_000];

/// Most passes a batch makes (the per-deal passes and the last).
pub const MAX_PASSES: usize = PASS_NODES.len() + 1;

/// One pass of a batch.
#[derive(Clone, Debug)]
pub struct Pass {
    /// The solver of each deal (its memory budget is a worker's share of `--memory`).
    pub solver: Solver,
    /// Deals solved at once (each on one thread, or one deal on `solver.threads`).
    pub workers: usize,
    /// The last pass: its `unknown` rows are written.
    pub last: bool,
}

/// The passes of a batch, in order.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The passes (one at least; the last is [`Pass::last`]).
    pub passes: Vec<Pass>,
}

impl Plan {
    /// Every deal solved once by `solver`, `threads` at a time: `castle batch --one-pass` (and
    /// `--layered` without `--spill`, which asks for the layered search on every deal).
    pub fn one(solver: &Solver, threads: usize) -> Plan {
        let threads = threads.max(1);
        Plan {
            passes: vec![Pass {
                solver: share(solver.clone(), threads),
                workers: threads,
                last: true,
            }],
        }
    }

    /// The passes of the module's opening for `solver`'s budgets, on `threads` threads.
    /// `solver.spill` is the disk the last pass may go to (its solver keeps it: a deal that
    /// fills the table goes on on disk, see `Solver::spill`); every pass runs the usual
    /// schedule, the earlier ones without a spill directory (a deal that runs out of memory
    /// there goes to the last pass).
    pub fn rising(solver: &Solver, threads: usize) -> Plan {
        Plan::rising_with(solver, threads, &PASS_NODES)
    }

    /// [`Plan::rising`] with other node budgets for the passes before the last (at most
    /// [`PASS_NODES`]`.len()` of them are used; `castle batch --pass-nodes`).
    pub fn rising_with(solver: &Solver, threads: usize, budgets: &[u64]) -> Plan {
        let threads = threads.max(1);
        let base = Solver {
            layered: false,
            spill: None,
            threads: 1,
            ..solver.clone()
        };
        let user_nodes = solver.limits.max_nodes;
        let mut passes: Vec<Pass> = budgets
            .iter()
            .take(PASS_NODES.len())
            .filter(|&&n| user_nodes.map_or(true, |u| n < u))
            .map(|&n| {
                let mut s = share(base.clone(), threads);
                s.limits.max_nodes = Some(n);
                Pass {
                    solver: s,
                    workers: threads,
                    last: false,
                }
            })
            .collect();
        if passes.is_empty() {
            // `--max-nodes` below the first pass's budget: the one pass is the whole range, not
            // a tail of hard deals, so each worker takes a deal (deterministic node counts, and
            // no in-deal parallel search spent on easy deals), as `--one-pass` does.
            return Plan::one(
                &Solver {
                    spill: solver.spill.clone(),
                    ..base
                },
                threads,
            );
        }
        passes.push(Pass {
            solver: Solver {
                threads,
                spill: solver.spill.clone(),
                ..base
            },
            workers: 1,
            last: true,
        });
        Plan { passes }
    }

    /// The pass (index from 0) a deal that ended `out` in pass `i` goes to next, if any: the
    /// next pass when the pass's own node budget stopped it, the last when time or memory did.
    pub fn next(&self, i: usize, out: &Outcome) -> Option<usize> {
        let pass = self.passes.get(i)?;
        if pass.last || out.verdict != Verdict::Unknown {
            return None;
        }
        match out.limit {
            Some(Limit::Nodes) => Some(i + 1),
            _ => Some(self.passes.len() - 1),
        }
    }
}

/// What a deal cost in the passes before the one now solving it, and where it goes next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Carry {
    /// The pass it goes to next (from 0).
    pub next: usize,
    /// Nodes so far.
    pub nodes: u64,
    /// Milliseconds so far.
    pub ms: u64,
    /// CPU milliseconds so far.
    pub cpu_ms: u64,
    /// Nodes so far, phase by phase.
    pub spent: Spent,
    /// Runs that started the deal in pass `next` and ended before it did (stopped, killed,
    /// crashed): recorded in the last pass only (see "Resume" in the module's opening).
    pub tries: u32,
    /// Milliseconds those runs are known to have spent on it (a run stopped by a signal
    /// says; one killed outright cannot).
    pub tried_ms: u64,
}

impl Carry {
    /// The carry of a deal that ended `out` (after `self`) and goes to pass `next`.
    pub fn after(self, out: &Outcome, next: usize) -> Carry {
        let mut c = self;
        if next != c.next {
            c.tries = 0;
            c.tried_ms = 0;
        }
        c.next = next;
        c.nodes += out.nodes;
        c.ms += (out.seconds * 1000.0).round() as u64;
        c.cpu_ms += (out.cpu_seconds * 1000.0).round() as u64;
        c.spent = c.spent + out.spent;
        c
    }

    /// The carry of a deal as its pass starts it (one more try).
    pub fn started(self) -> Carry {
        Carry {
            tries: self.tries.saturating_add(1),
            ..self
        }
    }

    /// The carry of a deal a stopped run had been solving for `ms` milliseconds (after
    /// [`Carry::started`]).
    pub fn stopped(self, ms: u64) -> Carry {
        Carry {
            tried_ms: self.tried_ms.saturating_add(ms),
            ..self
        }
    }

    /// Where a later pass takes the deal: the deals tried less (then for less time) first.
    pub fn turn(&self) -> (u32, u64) {
        (self.tries, self.tried_ms)
    }

    /// `out` with what the earlier passes cost added (its nodes, times and `spent`).
    pub fn charge(&self, out: &mut Outcome) {
        out.nodes += self.nodes;
        out.seconds += self.ms as f64 / 1000.0;
        out.cpu_seconds += self.cpu_ms as f64 / 1000.0;
        out.spent = out.spent + self.spent;
    }

    /// The carry's line in the pending file (see [`PendingFile`]).
    fn line(&self, seed: u64) -> String {
        let s = self.spent;
        format!(
            "{seed},{},{},{},{},{},{},{},{},{},{},{}\n",
            self.next + 1,
            self.nodes,
            self.ms,
            self.cpu_ms,
            s.quick,
            s.portfolio,
            s.quotient,
            s.attempts,
            s.probes,
            self.tries,
            self.tried_ms
        )
    }

    /// A line of the pending file, or `None` if it is not one (a line torn by a crash). A line
    /// without the tries (an older build's) has none.
    fn parse(line: &str) -> Option<(u64, Carry)> {
        let f: Vec<u64> = line
            .split(',')
            .map(|x| x.trim().parse().ok())
            .collect::<Option<_>>()?;
        let (tries, tried_ms) = match f.len() {
            10 => (0, 0),
            12 => (u32::try_from(f[10]).ok()?, f[11]),
            _ => return None,
        };
        let [seed, next, nodes, ms, cpu_ms, quick, portfolio, quotient, attempts, probes] = f[..10]
        else {
            return None;
        };
        let next = usize::try_from(next).ok()?.checked_sub(1)?;
        Some((
            seed,
            Carry {
                next,
                nodes,
                ms,
                cpu_ms,
                spent: Spent {
                    quick,
                    portfolio,
                    quotient,
                    attempts,
                    probes,
                },
                tries,
                tried_ms,
            },
        ))
    }
}

/// `solver` with its share of the memory budget when `workers` deals are solved at once.
fn share(mut solver: Solver, workers: usize) -> Solver {
    solver.limits.memory_bytes = (solver.limits.memory_bytes / workers.max(1)).max(1 << 20);
    solver
}

/// The file of deals left for a later pass (see "Resume" in the module's opening): a header
/// line, then `seed,next pass,nodes,ms,cpu_ms,quick,portfolio,quotient,attempts,probes,tries,
/// tried_ms` per deal, the last line for a seed counting.
#[derive(Debug)]
pub struct PendingFile {
    path: PathBuf,
    file: Option<std::fs::File>,
}

/// The header line of a pending file.
const PENDING_HEADER: &str =
    "seed,next_pass,nodes,ms,cpu_ms,quick,portfolio,quotient,attempts,probes,tries,tried_ms";

/// The header of the pending files of the builds before the tries: their lines read with
/// none, and the lines appended to them carry their own.
const PENDING_HEADER_UNTRIED: &str =
    "seed,next_pass,nodes,ms,cpu_ms,quick,portfolio,quotient,attempts,probes";

impl PendingFile {
    /// The pending file of the batch CSV `csv`.
    pub fn path_for(csv: &Path) -> PathBuf {
        let mut name = csv.as_os_str().to_owned();
        name.push(".pending");
        PathBuf::from(name)
    }

    /// Reads the carries of `csv`'s pending file (none if there is no file). A line that does
    /// not parse is one a crash tore, and is skipped: its deal starts again from the first
    /// pass.
    ///
    /// # Errors
    /// A file that exists and cannot be read, or is not a pending file.
    pub fn read(csv: &Path) -> Result<HashMap<u64, Carry>, InputError> {
        let path = Self::path_for(csv);
        let text = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HashMap::new()),
            Err(e) => {
                return Err(InputError::new(InputKind::File, format!("cannot read: {e}")).at(&path))
            }
        };
        let text = String::from_utf8_lossy(&text);
        let mut lines = text.lines();
        if lines
            .next()
            .is_some_and(|h| h != PENDING_HEADER && h != PENDING_HEADER_UNTRIED)
        {
            return Err(InputError::new(
                InputKind::Report,
                "not the pending file of a castle batch (remove it to start those deals again)",
            )
            .at(&path)
            .on_line(1));
        }
        Ok(lines.filter_map(Carry::parse).collect())
    }

    /// The pending file of `csv`, opened for appending when the first carry comes.
    pub fn new(csv: &Path) -> PendingFile {
        PendingFile {
            path: Self::path_for(csv),
            file: None,
        }
    }

    /// Appends a deal's carry (whole lines, flushed).
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn push(&mut self, seed: u64, carry: &Carry) -> std::io::Result<()> {
        if self.file.is_none() {
            let exists = self.path.exists();
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)?;
            if !exists {
                writeln!(f, "{PENDING_HEADER}")?;
            }
            self.file = Some(f);
        }
        let f = self.file.as_mut().expect("opened above");
        f.write_all(carry.line(seed).as_bytes())?;
        f.flush()
    }

    /// The batch ended and every deal of its range has its row: removes the file, or, when
    /// `elsewhere` holds carries of deals outside the range (a run over part of a range an
    /// earlier run left deals of), leaves just those, so the run that takes them up resumes
    /// them in their pass.
    ///
    /// # Errors
    /// The file cannot be rewritten (its old lines then stay, which only repeats work).
    pub fn finish(self, elsewhere: &HashMap<u64, Carry>) -> std::io::Result<()> {
        drop(self.file);
        if elsewhere.is_empty() {
            let _ = std::fs::remove_file(&self.path);
            return Ok(());
        }
        let mut seeds: Vec<_> = elsewhere.keys().copied().collect();
        seeds.sort_unstable();
        let mut text = format!("{PENDING_HEADER}\n");
        for s in seeds {
            text += &elsewhere[&s].line(s);
        }
        let mut tmp = self.path.clone().into_os_string();
        tmp.push(".new");
        super::replace_file(&self.path, Path::new(&tmp), &text)
    }
}

/// The pass's number in rows and messages (from 1).
pub fn number(i: usize) -> u8 {
    u8::try_from(i + 1).unwrap_or(u8::MAX)
}

/// A row of a deal decided in pass `i` (see [`Row::pass`]).
pub fn stamp(mut row: Row, i: usize) -> Row {
    row.pass = Some(number(i));
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_carry_reads_back_and_a_torn_line_is_none() {
        let c = Carry {
            next: 2,
            nodes: 1_000_000,
            ms: 812,
            cpu_ms: 800,
            spent: Spent {
                quick: 1000,
                portfolio: 2,
                quotient: 3,
                attempts: 4,
                probes: 5,
            },
            tries: 2,
            tried_ms: 90_000,
        };
        let line = c.line(42);
        assert_eq!(Carry::parse(line.trim_end()), Some((42, c)));
        assert_eq!(Carry::parse(&line[..line.len() / 2]), None);
        assert_eq!(Carry::parse("42,0,1,1,1,1,1,1,1,1"), None, "pass 0");
        // An older build's line: no tries.
        let old = Carry::parse("42,3,1000000,812,800,1000,2,3,4,5").expect("reads");
        assert_eq!(
            old.1,
            Carry {
                tries: 0,
                tried_ms: 0,
                ..c
            }
        );
        assert_eq!(
            Carry::parse("42,3,1000000,812,800,1000,2,3,4,5,1"),
            None,
            "one of two"
        );
    }

    #[test]
    fn tries_count_in_their_pass_only() {
        let c = Carry::default()
            .after(&Outcome::unknown(Limit::Nodes), 2)
            .started();
        let c = c.started().stopped(1500).stopped(500);
        assert_eq!(c.turn(), (2, 2000));
        assert!(Carry::default().turn() < c.turn());
        // Going on to another pass, the deal has not been tried there.
        assert_eq!(c.after(&Outcome::unknown(Limit::Nodes), 3).turn(), (0, 0));
        assert_eq!(
            c.after(&Outcome::unknown(Limit::Nodes), 2).turn(),
            (2, 2000)
        );
    }

    #[test]
    fn the_plan_keeps_within_the_node_budget_given() {
        let mut s = Solver::default();
        assert_eq!(Plan::rising(&s, 2).passes.len(), MAX_PASSES);
        s.limits.max_nodes = Some(PASS_NODES[1]);
        let p = Plan::rising(&s, 2);
        assert_eq!(p.passes.len(), 2);
        assert_eq!(p.passes[0].solver.limits.max_nodes, Some(PASS_NODES[0]));
        assert_eq!(p.passes[1].solver.limits.max_nodes, Some(PASS_NODES[1]));
        assert!(p.passes[1].last && p.passes[1].workers == 1 && p.passes[1].solver.threads == 2);
        s.limits.max_nodes = Some(10);
        let p = Plan::rising(&s, 2);
        assert_eq!(p.passes.len(), 1);
        assert!(p.passes[0].last && p.passes[0].workers == 2 && p.passes[0].solver.threads == 1);
    }
}
