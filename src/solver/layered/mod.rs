//! The layered search: an exhaustive search of the positions reachable from a deal, one
//! *level* of progress at a time, that holds in its hash set only the class of positions it
//! is closing.
//!
//! This module owns [`search`] (and its [`Report`], [`End`] and [`LayeredError`]); the
//! solver runs it instead of its schedule under [`super::Solver::layered`]. Measurements are
//! in `docs/design.md` ("The layered search"); `examples/layered.rs` makes them.
//!
//! # Levels
//! The level of a position is the cards on the foundations plus the cards dealt from the
//! stock. With `foundation_return` off no move takes a card off a foundation (the move
//! generator offers foundation moves *from* a foundation only with it), and no move puts a
//! card back into the stock (a deal moves the stock's next card to the waste, a fill moves
//! it to an empty pile; only `undo`, which the search never counts as a move, lowers the
//! stock's index). So no move lowers the level: moves between the tableau, the cells and
//! the waste keep it, foundation moves and deals raise it, and the automatic moves after a
//! move are foundation moves and fills, which raise it or keep it. [`search`] refuses the
//! rules with foundation return ([`LayeredError::FoundationReturn`]), where a level could
//! fall.
//!
//! # Classes
//! A move that keeps the level moves no card home and deals none, so it keeps the foundation
//! heights too: a level splits into *classes*, one per foundation height vector (which,
//! with the level, fixes the cards dealt), and no move joins two classes of one level. The
//! search closes one class at a time, so its set holds one class.
//!
//! # The search, and why `Lost` is a proof
//! Levels are taken in increasing order, and the classes of a level one after the other (in
//! the order they were found). Closing a class starts from its *entries*, the positions of
//! the class that moves from lower levels reached (the deal itself for the first), and
//! expands every position of the class breadth-first, each once: a child of the same level
//! (hence of the same class) is kept if its key is new to the class's set; a child of a
//! higher level goes to its class's pending set if new there; a won child ends the search.
//! When the class's queue is empty its set is dropped: no position of a later class can
//! reach it again (levels never fall, and a class of the same level is never reached from
//! another), so no later child can be one of its positions, and nothing needs to be looked
//! up there. A class starts from its pending set, which is complete by then: every position
//! of a lower level has been expanded, and nothing else enters it.
//!
//! Keys are [`Position::key`]'s, exact: two positions share a key only when they are equal
//! up to the order of the piles (which no rule names), so a lookup never merges two
//! different positions, and no verdict rests on a hash.
//!
//! **Claim**: when the search ends without a budget and without a win, every position
//! reachable from the deal (by the moves [`Position::generate`] offers with `last = None`,
//! each followed by the automatic moves, as every search of the crate plays them) was
//! stored, hence expanded, and none is won: the deal is lost. Completeness of those moves
//! and of the automatic moves with respect to wins is proved where they are made
//! (`state/movegen.rs`, `state/safe.rs`).
//!
//! **The one reduction that depends on the line, `no_repeat`.** A position `S` is expanded
//! with the `last` of the move that *first* stored it, from its stored parent `P`
//! ([`moved_card`](crate::moves::moved_card): a single move of card `c` from a tableau pile
//! or a cell to pile `B`, with no automatic move after it). Then [`Position::generate`]
//! leaves out `c`'s moves from `B`. Walk up the stored parents from `S` while each
//! position's `last` names `c` on the pile where `c` lies in it: `S = X_0, P = X_1, ...,
//! X_k = Q`, where `Q` is the first whose `last` does not name `c` there (the deal's `last`
//! is `None`, so the walk ends). Each step moved
//! `c` alone, with nothing after it, so every `X_j` is `Q` with `c` moved from its pile `A`
//! in `Q` to another pile or cell. A left-out move `c: B -> C` from `S` therefore reaches `Q`
//! with `c` moved from `A` to `C`: `Q` itself when `C = A` (or when `C` is another cell and
//! `A` a cell: the key sorts the cells), else a move `Q` makes (the top of `C` is the same
//! in `Q` and in `S`, since only `c` moved; `C = B` is not a move; a move into an empty pile
//! is offered by `Q` into its first empty pile or, for a lone card, not at all as it gives
//! `Q` back, both the same position up to pile order), or `c`'s foundation move from `Q`.
//! The automatic moves after it start from the same position either way. `Q` is stored, and
//! `Q`'s own `last` does not leave out `c` on `A`: so that position is stored.
//! Now suppose a reachable position `T` were never stored, and take a line from the deal to
//! `T` (by moves offered with `last = None`): the deal is stored; let `X -> Y` be the first
//! step whose `X` is stored and `Y` is not. `X`'s stored twin (same key: equal up to pile
//! order, so it offers the same moves up to pile order) was expanded, and either offered the
//! move to `Y` (then `Y` was stored: a contradiction) or left it out by `no_repeat` (then `Y`
//! was stored, by the argument above: a contradiction). So every reachable position was
//! stored, and each stored one was expanded. The argument needs only that every stored
//! position is expanded with the `last` it was stored with, in any order; so passing `last`
//! is exact here, as in the depth-first search.
//!
//! # Positions without a table of them: parent links
//! A stored position is kept as a record of 8 bytes, its parent's index and the move that
//! led to it (the automatic moves after it are played again), in one array for every level;
//! the keys live only in the class's set and in the pending sets. To expand a position the
//! search walks from the position it expanded before: up to the last ancestor the two share,
//! undoing, then down, playing each record's move and the automatic moves after it
//! ([`Position::play`] and `autoplay` are functions of the position, so each replay rebuilds
//! the position, pile for pile, that was there when the record was made). Positions are
//! expanded in the order they were stored, so consecutive ones are mostly siblings or
//! cousins and a walk is a few moves long. A win's line is the line walked to its parent,
//! then the move and its automatic moves: the solver replays it through the checker
//! ([`super::Solver::solve_with_progress`]), as every win.
//!
//! # Threads
//! With several threads (`threads`, the solver's `--threads`) a run of consecutive stored
//! positions is expanded on all of them at once, each thread walking a contiguous part of it,
//! and the children are then stored by this thread in the order one thread would have
//! generated them (`layered/expand.rs` has the argument): the same records at the same
//! indices, the same counts and the same win, on any number of threads. A run ends where a
//! look at the clock falls (every 4,096 positions), so the looks, the checkpoints
//! and the node budget fall where they fall on one thread. Even on one thread the runs pay:
//! the lookups of a run's children, made in a loop of their own, overlap their cache
//! misses (the hard lost deal of `data/bench`: 31 s a position at a time, 16 s in runs).
//!
//! # Memory
//! The bytes counted are those of the record array (allocated in chunks of
//! [`CHUNK`] records, so it never copies itself to grow), the class's set and the pending
//! sets and their records (a set of `n` keys holds `n * 8 / 7` slots rounded up to a power
//! of two, `W * 8 + 1` bytes each), and each thread's list of children (`expand::kids_cap`:
//! at most about 3 MiB a thread, less under a small budget, allocated at the start). Before
//! a set or a list grows, the bytes it is about to allocate are added: if that passes the
//! budget, the search ends as `unknown` (memory), unless a spill directory can take
//! something (below).
//!
//! # Out of core (`--spill DIR`)
//! With a spill directory (`layered/spill.rs`), a request that does not fit the budget first moves
//! things to disk, then asks again:
//! 1. **The pending classes.** Each pending class's records are written to a file of its
//!    own and its key set is dropped; from then on every pending class (new ones too)
//!    gathers records only, repeats and all, written out whenever room is asked for again.
//!    When such a class starts, its records (the file's, then those gathered since) are
//!    played from their parents, each to its key, and stored as the class's entries if the
//!    key is new to the class. The file keeps the order offered, and the first record of each
//!    key is the one stored, as the pending set kept it: the entries are the same records in
//!    the same order.
//! 2. **The class being closed.** Its set's keys go to the directory's stored keys, split
//!    into partitions by a hash of the key, and the set is dropped. From then on a child of
//!    the same class is a *candidate*, written with its record and its number in the order
//!    generated; when the positions stored so far are all expanded (the end of a layer),
//!    each partition in turn is loaded as a set (its stored keys, then its candidates in
//!    order), and a candidate whose key is not in it yet is new: its key joins the stored
//!    keys and its record is stored, in the order generated. That is *delayed duplicate
//!    detection*: the same test as the in-memory set's (is the key among those stored, or
//!    among the candidates before it?), made a layer later and a partition at a time.
//!
//! Why this changes nothing but where the bytes are: a position's key is compared whole in
//! both places (no hash decides anything: it only picks the partition, and equal keys go to
//! the same one), so a candidate is stored if and only if the in-memory search would have
//! stored it. And the order is the same: the in-memory queue stores a child as soon as it
//! is generated, behind the positions stored before it, so it holds the positions layer by
//! layer, each layer's in the order generated; the disk stores each layer's new positions
//! in that order too. So every position is stored with the same record (hence expanded
//! with the same `last`), at the same index, and the search generates the same children in
//! the same order: the same classes, counts, and win, as `tests/it/layered.rs` checks on deals
//! that go to disk. The argument above that `Lost` is a proof therefore holds unchanged.
//!
//! What stays in memory: the record array (8 bytes a position: `--memory` must hold it),
//! the files' write buffers (a 16th of the budget at most), and at the end of a layer one
//! partition's set and a bit per candidate. A file that cannot be written (a full disk)
//! ends the search as `unknown` ([`Limit::Disk`]) with the file system's message, never as
//! a verdict. The directory is the search's own, made under the one given and removed at
//! the end.

mod checkpoint;
mod expand;
mod spill;

use super::{DiskUse, Limit, Limits, Progress};
use crate::deal::Deal;
use crate::moves::Move;
use crate::state::{Position, Pruning};
use expand::{expand_run, Kid, Run, Walker};
use spill::{Checkpoint, Spill};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Records per chunk of the record array: 2^16 (512 KiB).
pub const CHUNK: usize = 1 << 16;

/// Positions expanded between two looks at the clock, the memory and the stop flag.
const CHECK_EVERY: u64 = 1 << 12;

/// Candidates of a class on disk that are settled before the layer ends once they are as many
/// as the keys stored (see [`Search::intake`]), but never fewer than this.
const SETTLE_MIN: u64 = 1 << 16;

/// Fewest positions a run expands (see [`Search::close`]).
const MIN_RUN: usize = 16;

/// Positions expanded between two progress reports.
const PROGRESS_EVERY: u64 = 1 << 16;

/// A stored position: its parent's index (its own for the deal) and the move from there.
#[derive(Clone, Copy)]
struct Rec {
    parent: u32,
    mv: Move,
}

const _: () = assert!(std::mem::size_of::<Rec>() == 8);

/// How a layered search ended (the solve's [`End`]): a win is every single-card move from
/// the deal, automatic ones included (not yet replayed by the checker: the caller does that);
/// `Exhausted` means every position reachable from the deal was expanded and none is won; a
/// cut is never a loss.
pub use super::End;

/// What a layered search found, and what it cost.
#[derive(Clone, Debug)]
pub struct Report {
    /// The verdict.
    pub end: End,
    /// Positions expanded.
    pub expanded: u64,
    /// Distinct positions stored (every level's, the pending ones included).
    pub stored: u64,
    /// Classes closed, each as (its level, its positions), in the order closed.
    pub classes: Vec<(u16, u64)>,
    /// Most bytes counted at once (see the module docs).
    pub peak_bytes: usize,
    /// Most cards on the foundations in a stored position.
    pub best_home: u8,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// The spill directory's use (all zero and none without `--spill`): its peak and
    /// written bytes, the classes that went on on disk, the error of [`Limit::Disk`], and
    /// the positions expanded before the checkpoint taken up (counted in `expanded`).
    pub disk: DiskUse,
    /// Settles of a class on disk made before their layer ended (see `Search::intake`).
    pub early_settles: u64,
    /// Bytes of the lists of children the threads fill (counted in `peak_bytes` for the
    /// whole search: see `expand.rs`).
    pub scratch_bytes: usize,
    /// Runs of positions cut short because a thread's list of children filled up (the
    /// positions after the cut were expanded again in the next run: see `expand.rs`).
    pub cut_runs: u64,
}

impl Report {
    /// Positions in the largest class closed.
    pub fn largest_class(&self) -> u64 {
        self.classes.iter().map(|&(_, n)| n).max().unwrap_or(0)
    }

    /// Levels with a class closed.
    pub fn levels(&self) -> usize {
        let mut levels: Vec<u16> = self.classes.iter().map(|&(l, _)| l).collect();
        levels.dedup();
        levels.len()
    }
}

/// Rules the layered search cannot decide.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayeredError {
    /// With foundation return a card may leave its foundation, so a level could fall.
    #[error("the layered search needs foundation return off (a card taken back from a foundation lowers the level)")]
    FoundationReturn,
    /// The spill directory could not be made.
    #[error("cannot use the spill directory {dir}: {error}")]
    SpillDir {
        /// The directory given.
        dir: String,
        /// What the file system answered.
        error: String,
    },
}

/// Where the layered search spills (`--spill DIR`, `--spill-max`).
#[derive(Clone, Debug, PartialEq)]
pub struct SpillTo {
    /// The directory under which the search makes its own.
    pub dir: std::sync::Arc<Path>,
    /// Most bytes its files may hold at once (a write past it ends the search as a full
    /// disk would: unknown, [`Limit::Disk`]).
    pub max_bytes: Option<u64>,
    /// Write a checkpoint after a class closes when this many seconds have passed since the
    /// last one, in a directory named after the deal, and take up the search from the
    /// checkpoint found there (see "Checkpoints"). `None`: no checkpoints, and a directory
    /// of the run's own.
    pub checkpoint_secs: Option<f64>,
}

impl SpillTo {
    /// Under `dir`, with no budget but the disk's, and no checkpoints.
    pub fn new(dir: &Path) -> SpillTo {
        SpillTo {
            dir: std::sync::Arc::from(dir),
            max_bytes: None,
            checkpoint_secs: None,
        }
    }
}

/// Whether the layered search applies to these rules (see [`LayeredError`]).
pub fn applies(deal: &Deal) -> bool {
    !deal.rules.options.foundation_return
}

/// Searches the positions reachable from `deal` level by level (see the module docs), within
/// `limits` (the node budget counts positions expanded; the memory budget the bytes of the
/// module docs), until a win, the end of the reachable positions, a budget, or `stop`.
/// With `spill`, what outgrows the memory budget goes on in a directory made under its
/// directory (see "Out of core"), removed at the end. `progress` is called every 65,536 positions
/// expanded.
///
/// # Errors
/// [`LayeredError::FoundationReturn`] under foundation return;
/// [`LayeredError::SpillDir`] when the spill directory cannot be made.
///
/// # Panics
/// If the deal is too large for the state key (as [`super::Solver::solve`]).
pub fn search(
    deal: &Deal,
    prune: Pruning,
    limits: Limits,
    spill: Option<&SpillTo>,
    stop: Option<&AtomicBool>,
    threads: usize,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Report, LayeredError> {
    if !applies(deal) {
        return Err(LayeredError::FoundationReturn);
    }
    let (description, words) = describe(deal, prune);
    let every = spill.and_then(|to| to.checkpoint_secs);
    let (spill, resume) = match spill {
        None => (None, None),
        Some(to) => {
            let opened = match to.checkpoint_secs {
                Some(_) => Spill::open(
                    &to.dir,
                    &description,
                    words,
                    limits.memory_bytes,
                    to.max_bytes,
                ),
                None => {
                    Spill::new(&to.dir, words, limits.memory_bytes, to.max_bytes).map(|s| (s, None))
                }
            };
            let (s, ck) = opened.map_err(|e| LayeredError::SpillDir {
                dir: to.dir.display().to_string(),
                error: e.to_string(),
            })?;
            (Some(s), ck)
        }
    };
    let disk = DiskSetup {
        spill,
        checkpoint_every: every,
        resume,
    };
    Ok(if words == 3 {
        Search::<3>::new(deal, prune, limits, disk, stop, threads).run(progress)
    } else {
        Search::<4>::new(deal, prune, limits, disk, stop, threads).run(progress)
    })
}

/// The search of `deal` under `prune` written out (what a checkpoint must match, and what
/// names its directory), and its key's words.
fn describe(deal: &Deal, prune: Pruning) -> (String, usize) {
    let words = Position::new(deal).key_words();
    (format!("{deal:?} {prune:?} W{words}"), words)
}

/// True when [`search`] of `deal` under `prune` with `spill` would take up a checkpoint
/// (checkpoints are on, and one of this search waits under the directory).
pub fn checkpointed(deal: &Deal, prune: Pruning, spill: &SpillTo) -> bool {
    applies(deal)
        && spill.checkpoint_secs.is_some()
        && spill::holds_checkpoint(&spill.dir, &describe(deal, prune).0)
}

/// The spill directory of a search, its checkpoint interval, and the checkpoint it takes up.
struct DiskSetup {
    spill: Option<Spill>,
    checkpoint_every: Option<f64>,
    resume: Option<Checkpoint>,
}

/// A level not yet closed: the keys of its positions found so far and their records, in the
/// order found.
struct Pending<const W: usize> {
    keys: ahash::HashSet<[u64; W]>,
    recs: Vec<Rec>,
    /// On disk (see "Out of core"): `keys` is empty and unused, `recs` holds the records
    /// not yet written, with repeats.
    spilled: bool,
}

impl<const W: usize> Pending<W> {
    fn new(spilled: bool) -> Self {
        Pending {
            keys: Default::default(),
            recs: Vec::new(),
            spilled,
        }
    }

    fn bytes(&self) -> usize {
        set_bytes::<W>(self.keys.capacity()) + self.recs.capacity() * std::mem::size_of::<Rec>()
    }
}

/// The classes of one level found so far, in the order found: `list[k]` (taken when it is
/// closed) holds class `class[k]`'s positions; `index` finds `k` from the class.
struct Classes<const W: usize> {
    list: Vec<Option<Pending<W>>>,
    class: Vec<u64>,
    index: ahash::HashMap<u64, usize>,
}

impl<const W: usize> Default for Classes<W> {
    fn default() -> Self {
        Classes {
            list: Vec::new(),
            class: Vec::new(),
            index: Default::default(),
        }
    }
}

/// A position's class within its level: its foundation heights (in the position's canonical
/// order, so equal positions have equal classes), one byte each. With the level (cards home
/// plus cards dealt) they fix the cards dealt, so level and class name the class.
#[inline]
fn class_of(pos: &Position) -> u64 {
    u64::from_le_bytes(pos.foundations())
}

/// The level of a position (see the module docs): its cards home plus the cards dealt from
/// the stock, `seq` being the cards in the stock and the waste at the deal.
#[inline]
fn level_of(pos: &Position, seq: usize) -> usize {
    usize::from(pos.home()) + seq - pos.stock().len()
}

/// Bytes of a hash set of `W`-word keys that can hold `cap` keys (see the module docs).
fn set_bytes<const W: usize>(cap: usize) -> usize {
    if cap == 0 {
        return 0;
    }
    let slots = if cap < 8 {
        cap + 1
    } else {
        (cap * 8 / 7).next_power_of_two()
    };
    slots * (W * 8 + 1)
}

/// A class on disk at a checkpoint between two layers: its number in its level, its first
/// record, and the next record to expand.
#[derive(Clone, Copy)]
struct InClass {
    k: usize,
    start: usize,
    next: usize,
}

/// Why the search loop stopped early: a win, or a cut (never `Exhausted`, which is the
/// loop's normal end).
type Halt = End;

/// `unknown` when the `deadline` has passed (`Limit::Seconds`) or `stop` is up (no limit).
fn clock(deadline: Option<Instant>, stop: Option<&AtomicBool>) -> Result<(), Halt> {
    let clock = super::clock::Clock { deadline, stop };
    if clock.deadline_passed() {
        return Err(Halt::Cut(Limit::Seconds));
    }
    if clock.stopped() {
        return Err(Halt::Cut(Limit::Stopped));
    }
    Ok(())
}

struct Search<'a, const W: usize> {
    deal: &'a Deal,
    prune: Pruning,
    limits: Limits,
    deadline: Option<Instant>,
    stop: Option<&'a AtomicBool>,
    t0: Instant,
    /// Every stored position, by index, in chunks of [`CHUNK`].
    chunks: Vec<Vec<Rec>>,
    len: usize,
    /// The classes found and not yet closed, by level (index: level).
    pending: Vec<Classes<W>>,
    /// Bytes of the pending sets and their records (kept as they grow).
    pending_bytes: usize,
    /// The keys of the class being closed (only: see the module docs); empty while the
    /// class is on disk.
    current: ahash::HashSet<[u64; W]>,
    /// The class being closed (see [`class_of`]).
    current_class: u64,
    /// The spill directory (`--spill`), if any.
    spill: Option<Spill>,
    /// The class being closed is on disk (see "Out of core").
    on_disk: bool,
    /// The pending classes are on disk, and every class found from now on (see "Out of
    /// core").
    pending_spilled: bool,
    /// What [`Report::disk`] says, but the bytes (the directory's own counters).
    disk: DiskUse,
    /// Keys stored for the class on disk, as of the last settle.
    disk_stored: u64,
    /// One past the highest level.
    top: usize,
    early_settles: u64,
    /// Checkpoints: the interval in seconds (none: no checkpoints), when the last was
    /// written, the records it saved, and the checkpoint to take up at the start.
    checkpoint_every: Option<f64>,
    last_checkpoint: Instant,
    saved_records: u64,
    resume: Option<Checkpoint>,
    /// One walk through the stored positions per thread (see `expand.rs`); the first is
    /// this thread's, which also finds the entries of classes on disk.
    walkers: Vec<Walker<W>>,
    /// The children a walker's list holds (see `expand::kids_cap`), and the most positions
    /// a run expands, so that their children fit the lists.
    kids_cap: usize,
    run_cap: usize,
    cut_runs: u64,
    /// The walkers' bytes (their lists' room is fixed at the start; counted while the
    /// lists are being stored too, when the walkers are out of `walkers`).
    walker_bytes: usize,
    /// Cards dealt from the stock at the deal, and in all (waste and stock).
    seq: usize,
    expanded: u64,
    peak_bytes: usize,
    best_home: u8,
    classes: Vec<(u16, u64)>,
}

impl<'a, const W: usize> Search<'a, W> {
    fn new(
        deal: &'a Deal,
        prune: Pruning,
        limits: Limits,
        disk: DiskSetup,
        stop: Option<&'a AtomicBool>,
        threads: usize,
    ) -> Self {
        let DiskSetup {
            spill,
            checkpoint_every,
            resume,
        } = disk;
        let t0 = Instant::now();
        let kids_cap = expand::kids_cap::<W>(limits.memory_bytes, threads);
        let walkers: Vec<Walker<W>> = (0..threads.max(1))
            .map(|_| Walker::new(deal, prune, kids_cap))
            .collect();
        let walker_bytes = walkers.iter().map(Walker::bytes).sum();
        Search {
            deal,
            prune,
            limits,
            deadline: limits.deadline(t0),
            stop,
            t0,
            chunks: Vec::new(),
            len: 0,
            pending: Vec::new(),
            pending_bytes: 0,
            current: Default::default(),
            current_class: 0,
            spill,
            on_disk: false,
            pending_spilled: false,
            disk: DiskUse::default(),
            disk_stored: 0,
            top: 0,
            early_settles: 0,
            checkpoint_every,
            last_checkpoint: t0,
            saved_records: 0,
            resume,
            walkers,
            walker_bytes,
            kids_cap,
            run_cap: CHECK_EVERY as usize,
            cut_runs: 0,
            seq: deal.stock.len() + deal.waste.len(),
            expanded: 0,
            peak_bytes: 0,
            best_home: 0,
            classes: Vec::new(),
        }
    }

    /// Bytes in use (see the module docs).
    fn bytes(&self) -> usize {
        self.chunks.len() * CHUNK * std::mem::size_of::<Rec>()
            + set_bytes::<W>(self.current.capacity())
            + self.pending_bytes
            + self.spill.as_ref().map_or(0, Spill::buffer_bytes)
            + self.walker_bytes
    }

    /// True when `extra` more bytes fit the budget (then notes the peak: the caller allocates
    /// them).
    fn room(&mut self, extra: usize) -> bool {
        let b = self.bytes() + extra;
        let fits = b <= self.limits.memory_bytes;
        if fits {
            self.peak_bytes = self.peak_bytes.max(b);
        }
        fits
    }

    /// Makes room for `extra` more bytes, moving what it can to the spill directory
    /// ([`Search::relieve`]; the class being closed only with `class`, and then the room
    /// asked for is no longer needed); `Err` when it cannot.
    fn make_room(&mut self, extra: usize, class: bool) -> Result<(), Halt> {
        while !self.room(extra) {
            let was_on_disk = self.on_disk;
            if !self.relieve(class)? {
                return Err(Halt::Cut(Limit::Memory));
            }
            if self.on_disk && !was_on_disk {
                // The class went to disk: the bytes asked for its set are not needed now
                // (the caller looks at `on_disk` again).
                return Ok(());
            }
        }
        Ok(())
    }

    /// Moves one thing to the spill directory, in this order: the pending classes (all of
    /// them, then, each time, the records they gathered since), then, with `class`, the
    /// class being closed. False when there is nothing left to move (or no directory).
    fn relieve(&mut self, class: bool) -> Result<bool, Halt> {
        if self.spill.is_none() {
            return Ok(false);
        }
        if self.pending_bytes > 0 {
            self.spill_pending().map_err(|e| self.disk_failed(e))?;
            return Ok(true);
        }
        if class && !self.on_disk && !self.current.is_empty() {
            self.class_to_disk().map_err(|e| self.disk_failed(e))?;
            return Ok(true);
        }
        Ok(false)
    }

    /// Ends the search as unknown for a failure of the spill directory.
    fn disk_failed(&mut self, e: std::io::Error) -> Halt {
        let dir = self.spill.as_ref().map(|s| s.dir().display().to_string());
        self.disk.error = Some(format!("{}: {e}", dir.unwrap_or_default()));
        Halt::Cut(Limit::Disk)
    }

    /// Writes every pending class's records to its file and drops its keys (see "Out of
    /// core"); from now on pending classes gather records only.
    fn spill_pending(&mut self) -> std::io::Result<()> {
        let spill = self.spill.as_mut().expect("a spill directory");
        for (level, classes) in self.pending.iter_mut().enumerate() {
            for (k, p) in classes.list.iter_mut().enumerate() {
                if let Some(p) = p {
                    spill.pend(level, k, &p.recs)?;
                    p.recs = Vec::new();
                    p.keys = Default::default();
                    p.spilled = true;
                }
            }
        }
        self.pending_bytes = 0;
        self.pending_spilled = true;
        Ok(())
    }

    /// Moves the class being closed to disk: its keys become the stored keys of the spill
    /// directory's partitions, and from now on its children wait there, layer by layer, for
    /// [`Search::settle`].
    fn class_to_disk(&mut self) -> std::io::Result<()> {
        let spill = self.spill.as_mut().expect("a spill directory");
        for key in self.current.drain() {
            spill.visit(&key)?;
        }
        self.current = Default::default();
        self.on_disk = true;
        self.disk.classes += 1;
        self.disk_stored = self.spill.as_ref().map_or(0, Spill::stored);
        // The cache of candidates, if its bytes fit (it only saves disk traffic).
        let want = self.spill.as_ref().map_or(0, Spill::cache_bytes);
        if self.room(want) {
            self.spill.as_mut().expect("a spill directory").make_cache();
        }
        Ok(())
    }

    /// Appends a record; `Err` when the memory budget or the index space runs out.
    fn push(&mut self, r: Rec) -> Result<u32, Halt> {
        if self.len >= u32::MAX as usize {
            return Err(Halt::Cut(Limit::Memory));
        }
        if self.len % CHUNK == 0 {
            // The class's keys stay in memory here: its set already holds this record's key.
            self.make_room(CHUNK * std::mem::size_of::<Rec>(), false)?;
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
        self.chunks[self.len / CHUNK].push(r);
        self.len += 1;
        Ok((self.len - 1) as u32)
    }

    /// Stores a position of the class being closed, unless it is stored already: at once
    /// in memory; on disk, as a candidate that [`Search::settle`] stores if it is new.
    fn intake(&mut self, key: [u64; W], rec: Rec) -> Result<(), Halt> {
        if !self.on_disk {
            let (len, cap) = (self.current.len(), self.current.capacity());
            if len < cap && self.len % CHUNK != 0 {
                // Nothing grows: one probe.
                if self.current.insert(key) {
                    self.push(rec)?;
                }
                return Ok(());
            }
            if self.current.contains(&key) {
                return Ok(());
            }
            // A set and a record array that grow ask for their bytes first, so that a set
            // that goes to disk holds exactly the keys of the records stored.
            let grow = if len == cap {
                set_bytes::<W>(cap + 1)
            } else {
                0
            } + if self.len % CHUNK == 0 {
                CHUNK * std::mem::size_of::<Rec>()
            } else {
                0
            };
            self.make_room(grow, true)?;
            if !self.on_disk {
                self.current.insert(key);
                self.push(rec)?;
                return Ok(());
            }
        }
        let spill = self
            .spill
            .as_mut()
            .expect("a class on disk has a directory");
        spill
            .candidate(&key, rec)
            .map_err(|e| self.disk_failed(e))?;
        // Settling before the layer ends bounds the candidates on disk by the keys stored
        // (each settle reads the stored keys once, so at most twice the reading in all).
        // Exact and in the same order: the new positions settled now are stored behind
        // those stored before, in the order generated, as the in-memory queue stores them,
        // and later candidates are compared with them as with the others.
        let n = self.spill.as_ref().map_or(0, Spill::candidates);
        if n >= SETTLE_MIN && n >= self.disk_stored {
            self.early_settles += 1;
            self.settle()?;
        }
        Ok(())
    }

    /// Stores the new positions among the candidates of the layer just expanded (the class
    /// is on disk), in the order they were generated; false when there were none.
    fn settle(&mut self) -> Result<bool, Halt> {
        let spill = self
            .spill
            .as_ref()
            .expect("a class on disk has a directory");
        if spill.candidates() == 0 {
            return Ok(false);
        }
        let need = spill.settle_bytes(set_bytes::<W>);
        self.make_room(need, false)?;
        let spill = self
            .spill
            .as_mut()
            .expect("a class on disk has a directory");
        // A settle reads every partition: the clock and the stop flag are asked between
        // partitions too, so that a budget ends the search in time.
        let (deadline, stop) = (self.deadline, self.stop);
        let marks = match spill.settle::<W>(&|| clock(deadline, stop).is_err()) {
            Ok(Some(m)) => m,
            Ok(None) => {
                return Err(clock(deadline, stop)
                    .err()
                    .unwrap_or(Halt::Cut(Limit::Stopped)))
            }
            Err(e) => return Err(self.disk_failed(e)),
        };
        let n = self.spill.as_ref().map_or(0, Spill::candidates);
        let mut block = Vec::new();
        let mut seq = 0u64;
        let mut any = false;
        while seq < n {
            let spill = self
                .spill
                .as_mut()
                .expect("a class on disk has a directory");
            if let Err(e) = spill.records(seq, &mut block) {
                return Err(self.disk_failed(e));
            }
            self.check_clock()?;
            for &r in &block {
                if marks[(seq / 64) as usize] >> (seq % 64) & 1 == 1 {
                    self.push(r)?;
                    any = true;
                }
                seq += 1;
            }
        }
        let spill = self
            .spill
            .as_mut()
            .expect("a class on disk has a directory");
        spill.end_layer().map_err(|e| self.disk_failed(e))?;
        let spill = self
            .spill
            .as_ref()
            .expect("a class on disk has a directory");
        self.disk_stored = spill.stored();
        Ok(any)
    }

    fn run(mut self, progress: &mut dyn FnMut(&Progress)) -> Report {
        let end = match self.levels_loop(progress) {
            Ok(()) => End::Exhausted,
            Err(halt) => halt,
        };
        let mut spill = self.spill.take();
        if let Some(s) = &mut spill {
            // Without a verdict the checkpoint stays for the next run.
            s.keep(matches!(end, End::Cut(_)));
        }
        let stored = self.len as u64
            + self
                .pending
                .iter()
                .enumerate()
                .flat_map(|(level, c)| {
                    c.list
                        .iter()
                        .enumerate()
                        .filter_map(move |(k, p)| p.as_ref().map(|p| (level, k, p)))
                })
                .map(|(level, k, p)| {
                    p.recs.len() as u64 + spill.as_ref().map_or(0, |s| s.pending_len(level, k))
                })
                .sum::<u64>();
        self.peak_bytes = self.peak_bytes.max(self.bytes());
        Report {
            end,
            expanded: self.expanded,
            stored,
            classes: self.classes,
            peak_bytes: self.peak_bytes,
            best_home: self.best_home,
            seconds: self.t0.elapsed().as_secs_f64(),
            disk: DiskUse {
                peak_bytes: spill.as_ref().map_or(0, Spill::peak_on_disk),
                written: spill.as_ref().map_or(0, Spill::written),
                ..self.disk
            },
            early_settles: self.early_settles,
            scratch_bytes: self.walker_bytes,
            cut_runs: self.cut_runs,
        }
    }

    /// The deal, then each level in turn (or, from a checkpoint, the class it names on).
    fn levels_loop(&mut self, progress: &mut dyn FnMut(&Progress)) -> Result<(), Halt> {
        // Every walker stands at the deal, its automatic moves played.
        let root = &self.walkers[0];
        if root.pos.is_won() {
            return Err(Halt::Won(root.hist.clone()));
        }
        self.best_home = root.pos.home();
        let first = level_of(&root.pos, self.seq);
        // Levels run up to every card home with the stock dealt.
        let top = self.deal.rules.cards() + self.seq + 1;
        self.top = top;
        self.pending = (0..top).map(|_| Classes::default()).collect();
        let (from_level, from_k) = match self.resume.take() {
            Some(ck) => {
                let (level, next, class) = self.restore(ck)?;
                if let Some(c) = class {
                    // The class cut between two of its layers, on disk: on from there.
                    self.close(level, c.start, c.next, c.k, progress)?;
                    self.classes
                        .push((level as u16, (self.len - c.start) as u64));
                    self.maybe_checkpoint(level, next, top, None)?;
                }
                (level, next)
            }
            None => {
                self.push(Rec {
                    parent: 0,
                    mv: Move::single(crate::card::Card::new(1, crate::card::Suit::Clubs), 0, 0),
                })?;
                let root = &self.walkers[0].pos;
                let key = root.key::<W>().expect("key width from the bound");
                self.current_class = class_of(root);
                self.current.insert(key);
                self.close(first, 0, 0, 0, progress)?;
                self.classes.push((first as u16, self.len as u64));
                self.current = Default::default();
                self.maybe_checkpoint(first + 1, 0, top, None)?;
                (first + 1, 0)
            }
        };
        // No other class of the deal's level is reachable: nothing enters a level's classes
        // but moves from lower levels. Then each level, class by class, in the order found.
        for level in from_level..top {
            let mut k = if level == from_level { from_k } else { 0 };
            // Closing a class only adds to higher levels: this level's list is fixed now.
            while k < self.pending[level].list.len() {
                let p = self.pending[level].list[k]
                    .take()
                    .expect("each class taken once");
                self.current_class = self.pending[level].class[k];
                let start = self.len;
                self.pending_bytes -= p.bytes();
                if p.spilled {
                    self.enter_from_disk(level, k, p.recs)?;
                } else {
                    for &r in &p.recs {
                        self.push(r)?;
                    }
                    self.current = p.keys;
                }
                self.close(level, start, start, k, progress)?;
                self.classes.push((level as u16, (self.len - start) as u64));
                self.current = Default::default();
                k += 1;
                self.maybe_checkpoint(level, k, top, None)?;
            }
            self.pending[level] = Classes::default();
        }
        Ok(())
    }

    /// Ends the search `unknown` when the deadline has passed (`Limit::Seconds`) or the stop
    /// flag is up (no limit). Asked every `CHECK_EVERY` expansions, and for each block of
    /// records read back from the disk (reading a class's entries or a layer's survivors can
    /// take longer than many expansions). What is on disk stays as the last checkpoint left
    /// it: a resume cuts the files back to it.
    fn check_clock(&self) -> Result<(), Halt> {
        clock(self.deadline, self.stop)
    }

    /// Stores the position record `r` leads to (an entry of the class about to be closed).
    fn enter(&mut self, r: Rec) -> Result<(), Halt> {
        let (prune, class) = (self.prune, self.current_class);
        let w = &mut self.walkers[0];
        w.walk(&self.chunks, prune, r.parent);
        let key = w.visit(r.mv, prune, |pos, _| {
            debug_assert_eq!(class_of(pos), class);
            pos.key::<W>().expect("key width from the bound")
        });
        self.intake(key, r)
    }

    /// Closes the class being closed, of `level`, whose positions start at index `start`,
    /// expanding from index `from` on; `k` is its number in its level (0 for the deal's
    /// class, alone in its level), for checkpoints between its layers.
    fn close(
        &mut self,
        level: usize,
        start: usize,
        from: usize,
        k: usize,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<(), Halt> {
        let mut i = from;
        loop {
            if i == self.len {
                // On disk, the layer just expanded left its children as candidates.
                if self.on_disk && self.settle()? {
                    continue;
                }
                break;
            }
            if self.limits.max_nodes.is_some_and(|n| self.expanded >= n) {
                return Err(Halt::Cut(Limit::Nodes));
            }
            if self.expanded % CHECK_EVERY == 0 {
                self.check_clock()?;
                self.make_room(0, true)?;
                if self.on_disk && self.checkpoint_due() {
                    // Between two expansions, with the candidates settled (exact at any
                    // point: see `intake`), every stored position before `i` is expanded
                    // and nothing waits: a checkpoint can take up the class from here.
                    self.settle()?;
                    let class = InClass { k, start, next: i };
                    self.maybe_checkpoint(level, k + 1, self.top, Some(class))?;
                }
            }
            if self.expanded % PROGRESS_EVERY == 0 && self.expanded > 0 {
                progress(&Progress {
                    nodes: self.expanded,
                    states: self.len as u64,
                    seconds: self.t0.elapsed().as_secs_f64(),
                    level: Some(level as u16),
                    disk_bytes: self.spill.as_ref().map_or(0, Spill::on_disk),
                });
            }
            // A run up to the next look at the clock (so the looks above fall on the same
            // counts as one position at a time), within the stored positions and the node
            // budget: expanded on every thread, then stored in order (see `expand.rs`).
            let mut n = (CHECK_EVERY - self.expanded % CHECK_EVERY) as usize;
            n = n.min(self.len - i).min(self.run_cap);
            if let Some(max) = self.limits.max_nodes {
                n = n.min((max - self.expanded) as usize);
            }
            let (current, pending) = (&self.current, &self.pending);
            // Asked before the lists are stored, of sets that only grow meanwhile (a set
            // that goes to disk keeps its keys there, among the stored keys a candidate is
            // checked against; a pending class on disk has no keys here, so nothing is
            // left out for it). Never a lookup in a set being written.
            let seen = |kid: &Kid<W>| {
                if kid.level as usize == level {
                    current.contains(&kid.key)
                } else {
                    let classes = &pending[kid.level as usize];
                    classes.index.get(&kid.class).is_some_and(|&k| {
                        classes.list[k]
                            .as_ref()
                            .is_some_and(|p| p.keys.contains(&kid.key))
                    })
                }
            };
            let run = Run {
                chunks: &self.chunks,
                prune: self.prune,
                seq: self.seq,
                seen: &seen,
            };
            let parts = expand_run(&mut self.walkers, &run, i, n);
            let walkers = std::mem::take(&mut self.walkers);
            let mut stored = Ok(());
            for (w, &(a, b)) in walkers.iter().zip(&parts) {
                stored = self.store_kids(level, w);
                i = a + w.ends.len();
                if stored.is_err() {
                    break;
                }
                if i < b {
                    // A part whose list filled up: the parts after it are dropped, and
                    // the next run starts from its first position not expanded.
                    self.cut_runs += 1;
                    break;
                }
            }
            self.walkers = walkers;
            stored?;
            // Runs the lists can hold whole: the last run's children per position, with room.
            let (parents, kids) = self.walkers[..parts.len()]
                .iter()
                .fold((0, 0), |(p, k), w| (p + w.ends.len(), k + w.generated));
            self.run_cap =
                (self.walkers.len() * self.kids_cap * 2 / 3 / (kids / parents.max(1) + 1))
                    .max(MIN_RUN);
        }
        if self.on_disk {
            let spill = self
                .spill
                .as_mut()
                .expect("a class on disk has a directory");
            spill.end_class().map_err(|e| self.disk_failed(e))?;
            self.on_disk = false;
        }
        Ok(())
    }

    /// Stores the children a walker's expansion generated, parent after parent, as one
    /// thread expanding and storing each in turn would (see `expand.rs`): counts each
    /// parent expanded, and checks that no child left its class for a lower or parallel one.
    fn store_kids(&mut self, level: usize, w: &Walker<W>) -> Result<(), Halt> {
        let mut from = 0;
        for &end in &w.ends {
            self.expanded += 1;
            for kid in &w.kids[from..end as usize] {
                let to = kid.level as usize;
                // A move that keeps the level moved no card home and dealt none: the class
                // (the foundations, and the cards dealt, which the level then fixes) stays.
                // Checked, not assumed: a position filed under a closed class would be lost
                // to the search, and a `Lost` could then be wrong.
                assert!(
                    to > level || (to == level && kid.class == self.current_class),
                    "a move left its class for a lower or parallel one"
                );
                self.best_home = self.best_home.max(kid.home);
                if to == level {
                    self.intake(kid.key, kid.rec)?;
                } else {
                    self.offer(to, kid.class, kid.key, kid.rec)?;
                }
            }
            from = end as usize;
        }
        match &w.won {
            Some(line) => Err(Halt::Won(line.clone())),
            None => Ok(()),
        }
    }

    /// Adds a position of a higher level to its class's pending set, unless it is there
    /// already (on disk: to its records, repeats and all).
    fn offer(&mut self, to: usize, class: u64, key: [u64; W], rec: Rec) -> Result<(), Halt> {
        let spilled = self.pending_spilled;
        let classes = &mut self.pending[to];
        let k = *classes.index.entry(class).or_insert_with(|| {
            classes.list.push(Some(Pending::new(spilled)));
            classes.class.push(class);
            classes.list.len() - 1
        });
        let p = classes.list[k].as_mut().expect("a pending class");
        let (kl, kc) = (p.keys.len(), p.keys.capacity());
        let (rl, rc) = (p.recs.len(), p.recs.capacity());
        if p.spilled {
            if rl < rc {
                p.recs.push(rec);
                return Ok(());
            }
            let grow = rc.max(4) * std::mem::size_of::<Rec>();
            // Making room may write this class's records out: look it up again after.
            self.make_room(grow, false)?;
            let p = self.pending[to].list[k].as_mut().expect("a pending class");
            let before = p.bytes();
            p.recs.push(rec);
            self.pending_bytes += p.bytes() - before;
            return Ok(());
        }
        if kl < kc && rl < rc {
            // Nothing grows: one probe.
            if p.keys.insert(key) {
                p.recs.push(rec);
            }
            return Ok(());
        }
        if p.keys.contains(&key) {
            return Ok(());
        }
        let grow = if kl == kc { set_bytes::<W>(kc + 1) } else { 0 }
            + if rl == rc {
                rc.max(4) * std::mem::size_of::<Rec>()
            } else {
                0
            };
        self.make_room(grow, false)?;
        let p = self.pending[to].list[k].as_mut().expect("a pending class");
        if p.spilled {
            // Making room wrote the pending classes out: this one gathers records now.
            let before = p.bytes();
            p.recs.push(rec);
            self.pending_bytes += p.bytes() - before;
            return Ok(());
        }
        let before = p.bytes();
        p.keys.insert(key);
        p.recs.push(rec);
        self.pending_bytes += p.bytes() - before;
        Ok(())
    }
}
