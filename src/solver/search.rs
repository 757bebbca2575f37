//! Depth-first search with an explicit stack: no recursion (wins can be thousands of moves
//! deep), no allocation per node (moves go into one growing stack of move lists).
//!
//! # Several threads in one deal
//! With `threads > 1` the threads share one [`Table`] and one [`Run`] (stop flag, node count,
//! the win). A rayon scope runs *tasks*: a task is a position (a move list from the deal) and
//! some of its untried moves. The first task is the deal itself. A thread that sees no task
//! waiting *donates* work: it takes the untried moves of the shallowest position on its own
//! path that has some (the front half of them) and spawns them as a task for an idle thread.
//!
//! Why this stays exact: the search is a graph search over a shared set of entered states,
//! and its completeness argument needs only that every entered state eventually has every
//! move tried — by anyone. Suppose no win was found and the search ended without a budget,
//! yet some entered state `S` has a winning line `S, S1, ..., win`. Take the first `Si` of that
//! line never entered: its predecessor was entered, so all its moves were tried (donated moves
//! run before the scope ends), and trying the move to `Si` either entered `Si` or found it
//! entered already — a contradiction. A state another thread has entered but not finished is
//! "entered", which is all the argument uses. Pins (never replaced while pinned) keep each
//! thread's own path loop-free; a donated task's root needs none, since a thread that comes
//! back to it through a cycle either finds it entered or enters it anew (pinned, one level
//! deeper), and either way stops there.
//!
//! # Proofs that outlive an attempt
//! A restarted search (see [`super::Solver::solve_with_progress`]) may keep the states an
//! earlier attempt *proved* lost, but not every state it entered: "entered" is only a loss
//! relative to the search that entered it. A state left because it was entered already may
//! sit on the current path, unfinished; when a budget cuts the attempt, such a state was
//! never finished, and a state that counted on it is not proved.
//!
//! So each thread keeps Tarjan's bookkeeping for strongly connected components: every state
//! it enters gets the next index and goes on an open stack; a frame's `low` is the smallest
//! index its subtree reached among states still open. A finished frame whose `low` is its
//! own index has no edge out of its subtree to an unfinished state: every state reachable
//! from it was entered and finished (by this thread, within its subtree), or was proved lost
//! before. With no win found, all of them are lost, and the frame proves its whole
//! component — the open stack down to its own entry ([`Table::prove`]). Proved states hold
//! their proof whatever happens later; the rest are forgotten before the next attempt
//! ([`Table::forget_open`]). Three things make a frame wait (its `low` becomes an ancestor's
//! index, or [`TAINTED`], which never resolves in this attempt):
//! - **Path-dependent moves.** When `no_repeat` left out moves of the card just moved
//!   ([`Position::generate`] says so), those moves' positions are searched from the parent;
//!   the frame depends on its parent finishing, so its `low` starts at the parent's index.
//! - **Other threads.** A state open in the table but not on this thread's open stack is
//!   another thread's (or a finished task's): [`TAINTED`].
//! - **Donated moves.** A frame that gave moves away, and a donated task's root, cannot
//!   vouch for moves another thread runs: [`TAINTED`].
//!
//! A proof never depends on how the search is cut short: a component is proved when its
//! root finishes, before any budget can stop it, and proofs only ever rest on states
//! finished or proved lost earlier.
//!
//! # Compact paths
//! The hard lost deals' paths run millions of positions deep (bc 1770's about as deep as it
//! has states), and each level's untried moves and table slot took more of the path than
//! the rest of its frame. So only the top of the path is kept whole: the path is the first
//! frame (never compact: a donated root's moves were not generated there), then the
//! [`Deep`] frames, then the whole ones; once more than twice [`Solver::path_window`]
//! frames are whole above the first, the lowest `path_window` of them become deep, keeping
//! 16 bytes of their 32 and no moves. When the search comes back to a deep frame, the
//! position there is the one its moves were made for, and [`Position::generate`] is a
//! function of the position, the pruning, the run's jitter and the card moved into it (read
//! off the line): the same list comes out, and its last `count` moves are exactly the ones
//! not yet tried, in the same order. The search is the same, node for node, whatever the
//! window (a test runs it with the smallest). The lists stay a tail of the generated list
//! because nothing else takes moves from them: tried moves leave from the front, and
//! [`give_away`] donates the front half. Leaving a deep frame costs a lookup by key to
//! unpin it (its slot was not kept), as leaving a proved component's states does.

use super::open::OpenSet;
use super::table::{Entry, Slot, Table};
use super::{Limit, Progress, Solver};
use crate::deal::Deal;
use crate::moves::{moved_card, Move, MoveList};
use crate::state::{Position, Pruning};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// One position on the search path.
struct Frame {
    /// Its untried moves are `stack[next..end]`. Its list starts where the frame below ends
    /// (at 0 for the first frame): the lists lie end to end, so no `start` is stored. Only
    /// the top frame's `end` moves (its tried moves are dropped when it gets a child);
    /// [`give_away`] keeps `end`. The untried moves are always the tail of the list
    /// [`Position::generate`] made for the position (a donated root's aside), which is
    /// what lets a deep frame become a [`Deep`] one (see "Compact paths").
    next: u32,
    end: u32,
    /// History length before the edge into this position was played.
    hist: u32,
    /// Its table slot ([`Slot::NONE`] for a donated task's root, which another thread
    /// entered; [`Slot::BY_KEY`] for a frame that was deep, which is unpinned by its key).
    slot: Slot,
    /// The smallest index of an open state its subtree reaches ([`TAINTED`]: one whose
    /// proof this thread cannot see through).
    low: u32,
    /// Where its entry sits on the open stack (for a frame not on it, where the stack ended
    /// when it was pushed).
    tpos: u32,
}

// Deep searches hold millions of frames (the hard lost deals of bc 1..10000 ran out of memory on
// their path, not their table), so a frame is kept to half a cache line.
const _: () = assert!(std::mem::size_of::<Frame>() == 32);

/// A frame below the top of a long path (see "Compact paths"): its untried moves are the last
/// `count` of the list made for its position; its list is empty, so it ends where the first
/// frame's does; its slot is looked up by key when it is left.
#[derive(Clone, Copy)]
struct Deep {
    count: u32,
    hist: u32,
    low: u32,
    tpos: u32,
}

const _: () = assert!(std::mem::size_of::<Deep>() == 16);

impl Deep {
    fn of(f: &Frame) -> Deep {
        Deep {
            count: f.end - f.next,
            hist: f.hist,
            low: f.low,
            tpos: f.tpos,
        }
    }
}

impl Frame {
    /// Its number in this thread's entry order (see "Proofs that outlive an attempt"): its
    /// place on the open stack plus one, when the attempt tracks proofs; [`TAINTED`] for a
    /// donated task's root (no slot: it is not on the stack) and when nothing is tracked.
    /// Places are reused once a component is popped, but by then no frame, cache entry or
    /// open-set entry still refers to the popped ones (they were marked proved), and Tarjan's
    /// bookkeeping only ever compares states that are open together, whose places are in
    /// entry order.
    #[inline]
    fn index(&self, track: bool) -> u32 {
        if track && self.slot != Slot::NONE {
            self.tpos + 1
        } else {
            TAINTED
        }
    }
}

/// A `low` that no entered frame's index equals: the frame waits on something this thread
/// does not track (another thread's state, donated moves, the root of a donated task, whose
/// own index is this too, so that it never counts as a component's root).
const TAINTED: u32 = 0;

/// The recent-key cache's mark for a state proved lost (neutral in a `min` of indices).
const PROVED: u32 = u32::MAX;

/// Plays every safe foundation move (if that reduction is on), recording each; with `greedy`
/// (the quick phase), every foundation move.
#[inline]
pub(super) fn autoplay(pos: &mut Position, prune: Pruning, greedy: bool, hist: &mut Vec<Move>) {
    if greedy {
        while let Some(m) = pos.foundation_move() {
            pos.play(m, hist);
        }
        return;
    }
    if !prune.safe_autoplay {
        return;
    }
    while let Some(m) = pos.safe_move() {
        pos.play(m, hist);
    }
}

/// [`autoplay`] after the search plays `m` from a position it entered (so one with no safe
/// move left): the first look is [`Position::safe_move_after`]'s, which plays the same moves.
#[inline]
fn autoplay_after(pos: &mut Position, m: Move, prune: Pruning, greedy: bool, hist: &mut Vec<Move>) {
    if greedy || !prune.safe_autoplay {
        return autoplay(pos, prune, greedy, hist);
    }
    if let Some(first) = pos.safe_move_after(m) {
        pos.play(first, hist);
        autoplay(pos, prune, greedy, hist);
    }
}

#[inline]
fn undo_to(pos: &mut Position, hist: &mut Vec<Move>, len: usize) {
    while hist.len() > len {
        let m = hist.pop().expect("history longer than len");
        pos.undo(m);
    }
}

/// Most slots of the recent-key cache (see [`Scratch`]): 2^13 keys, 128 KiB for two-word
/// keys, so it stays in a core's second-level cache (1 MiB here) beside the stacks while the
/// table proper is far larger than any cache. At 2^15 keys the cache itself missed: its load
/// took two thirds of the search loop's samples under `perf`, and bc 1..200 ran 6-13% slower
/// (`/tmp/A` and `/tmp/B` side by side, one per core, `castle bench --no-quick`).
const RECENT_BITS: u32 = 13;

/// A thread's growing buffers, kept from one attempt (and one task) to the next so that
/// they are not faulted in again, and its cache of recently entered keys.
///
/// The cache is asked before the table: most positions the search meets again are
/// transpositions of ones this thread entered moments ago, and the cache answers those without
/// touching the big arrays. It holds only keys this thread entered, so its "present" is always
/// true (an entry the table has since replaced was still entered once, which is all "present"
/// means); it is emptied with the table.
pub(super) struct Scratch<const W: usize> {
    hist: Vec<Move>,
    stack: Vec<Move>,
    frames: Vec<Frame>,
    /// The deep frames, between `frames[0]` and `frames[1]` on the path.
    deep: Vec<Deep>,
    /// Recently entered keys and what each is (its index while open, [`PROVED`],
    /// [`TAINTED`]).
    recent: Vec<([u64; W], u32)>,
    /// This thread's open states (entered, not proved) that the cache no longer holds.
    open: OpenSet,
    /// The open stack: this thread's open states in entry order, as keys (a proof finds
    /// each state's slot by its key: see [`Table::prove`]).
    tkeys: Vec<[u64; W]>,
    /// Bytes of the budget this thread's path (the buffers above) has taken from the
    /// table's account ([`Table::charge_path`]); when the path needs more and the account has
    /// none, the search stops with [`Limit::Memory`].
    charged: usize,
    /// The most bytes each path buffer ever held (see [`path_bytes`]).
    high: [usize; 5],
}

/// Bytes the search path holds resident: the line from the deal, the untried moves of every
/// position on it, their frames (whole and deep), the open stack, and the open set (its whole
/// capacity). A buffer never shrinks, so every page it ever wrote stays resident: each counts
/// at the most it ever held (`high`, one entry per buffer, kept from attempt to attempt). The
/// most the sum ever was is less when the buffers peak at different times: on bc 2461 with
/// 14 GiB, a later attempt's open stack and set grew 1.6 GB beside the buffers an earlier attempt
/// had left, uncharged, and the process went that far past `--memory`.
#[inline]
fn path_bytes<const W: usize>(
    high: &mut [usize; 5],
    hist: &[Move],
    stack: &[Move],
    frames: &[Frame],
    deep: &[Deep],
    tkeys: &[[u64; W]],
    open: &OpenSet,
) -> usize {
    let now = [
        std::mem::size_of_val(hist),
        std::mem::size_of_val(stack),
        std::mem::size_of_val(frames),
        std::mem::size_of_val(deep),
        std::mem::size_of_val(tkeys),
    ];
    let mut sum = open.bytes();
    for (h, n) in high.iter_mut().zip(now) {
        *h = (*h).max(n);
        sum += *h;
    }
    sum
}

/// Where [`path_bytes`] keeps the open stack's high-water mark (reset when the stack is freed).
const HIGH_TKEYS: usize = 4;

impl<const W: usize> Scratch<W> {
    /// Buffers with a recent-key cache of at most `cache_bytes` (2^13 keys at most).
    pub fn new(cache_bytes: usize) -> Self {
        let n = (cache_bytes / (8 * W)).clamp(64, 1 << RECENT_BITS);
        let n = 1usize << (usize::BITS - 1 - n.leading_zeros());
        Scratch {
            hist: Vec::new(),
            stack: Vec::new(),
            frames: Vec::new(),
            deep: Vec::new(),
            recent: vec![([0; W], 0); n],
            open: OpenSet::default(),
            tkeys: Vec::new(),
            charged: 0,
            high: [0; 5],
        }
    }

    /// Bytes of the recent-key cache.
    pub fn cache_bytes(&self) -> usize {
        self.recent.len() * std::mem::size_of::<([u64; W], u32)>()
    }

    /// Forgets the cached keys (before every attempt).
    pub fn clear(&mut self) {
        self.recent.fill(([0; W], 0));
    }
}

/// The recent-key cache's slot for `key` (a cheap hash: the cache is small and a collision
/// only costs a table probe).
#[inline]
fn cache_slot<const W: usize>(recent: &[([u64; W], u32)], key: &[u64; W]) -> usize {
    use crate::state::{fold_key, Stir, KEY_HASH_MUL};
    let h = fold_key(key, 0, KEY_HASH_MUL, Stir::Not);
    (h >> 40) as usize & (recent.len() - 1)
}

/// Puts `key` in cache slot `r` as `what`. An open state of this thread that it evicts moves
/// to `open`: each open state is in the cache or in the set, never both, so most states
/// (proved before the cache forgets them) never touch the set.
#[inline]
fn cache_put<const W: usize>(
    recent: &mut [([u64; W], u32)],
    r: usize,
    key: [u64; W],
    what: u32,
    open: &mut OpenSet,
    tkeys: &[[u64; W]],
) {
    let (old, v) = recent[r];
    if v != PROVED && v != TAINTED {
        open.insert(tkeys, &old, v - 1);
    }
    recent[r] = (key, what);
}

/// Sets what the cache knows of `key`, if the cache holds it.
#[inline]
fn cache_mark<const W: usize>(recent: &mut [([u64; W], u32)], key: &[u64; W], what: u32) {
    let r = cache_slot(recent, key);
    if &recent[r].0 == key {
        recent[r].1 = what;
    }
}

/// The table as one search thread uses it: owned (no locks) or shared.
pub(super) trait Access<const W: usize> {
    fn enter(&mut self, key: &[u64; W]) -> Entry;
    fn unpin(&mut self, slot: Slot, key: impl FnOnce() -> [u64; W]);
    fn prove(&mut self, key: &[u64; W]);
    fn len(&self) -> usize;
    fn table(&self) -> &Table<W>;
}

impl<const W: usize> Access<W> for &mut Table<W> {
    #[inline]
    fn enter(&mut self, key: &[u64; W]) -> Entry {
        Table::enter(self, key)
    }
    #[inline]
    fn unpin(&mut self, slot: Slot, key: impl FnOnce() -> [u64; W]) {
        Table::unpin(self, slot, key);
    }
    #[inline]
    fn prove(&mut self, key: &[u64; W]) {
        Table::prove(self, key);
    }
    fn len(&self) -> usize {
        Table::len(self)
    }
    fn table(&self) -> &Table<W> {
        self
    }
}

/// A table several threads use.
pub(super) struct Shared<'a, const W: usize>(pub &'a Table<W>);

impl<const W: usize> Access<W> for Shared<'_, W> {
    #[inline]
    fn enter(&mut self, key: &[u64; W]) -> Entry {
        self.0.enter_shared(key)
    }
    #[inline]
    fn unpin(&mut self, slot: Slot, key: impl FnOnce() -> [u64; W]) {
        self.0.unpin_shared(slot, key);
    }
    #[inline]
    fn prove(&mut self, key: &[u64; W]) {
        self.0.prove_shared(key);
    }
    fn len(&self) -> usize {
        self.0.len()
    }
    fn table(&self) -> &Table<W> {
        self.0
    }
}

/// One attempt of a solve, as every thread of it sees it.
pub(super) struct Run<'a> {
    pub deal: &'a Deal,
    pub cfg: &'a Solver,
    /// When the solve started (for `--max-seconds`).
    pub t0: Instant,
    /// This attempt's node budget (`Limit::Nodes` when hit).
    pub budget: Option<u64>,
    /// Nodes of earlier attempts (for the progress figures).
    pub done: u64,
    /// Varies the move order (0: the plain heuristic order).
    pub jitter: u64,
    /// Donate work to idle threads.
    pub parallel: bool,
    /// Look for an idle thread when the node count has these bits clear.
    pub donate_mask: u64,
    /// The quick phase: every card that fits goes home at once (not exact; see
    /// [`super::Phase::Quick`]).
    pub greedy: bool,
    /// Prove states lost as components finish (see "Proofs that outlive an attempt"), for
    /// the attempts after this one. Off, the table only knows "entered".
    pub prove: bool,
    /// Set when a win is found or a budget runs out: every thread stops.
    pub stop: AtomicBool,
    /// Nodes of this attempt, all threads.
    pub nodes: AtomicU64,
    pub best_home: AtomicU8,
    /// Most bytes any thread's search path held (see [`path_bytes`]).
    pub peak_path: AtomicUsize,
    /// Set when a thread stopped tracking proofs to make room for its path.
    pub untracked: AtomicBool,
    pub win: Mutex<Option<Vec<Move>>>,
    pub limit: Mutex<Option<Limit>>,
    /// Donated tasks not yet started.
    pub queued: AtomicUsize,
    /// Stop with [`Limit::Memory`] once the table is full (its first entry replaced): the
    /// schedule's attempts under `--spill` without `--layered`, which then hand the deal to
    /// the layered search (see [`Solver::spill`]).
    pub stop_when_full: bool,
}

impl<'a> Run<'a> {
    pub fn new(deal: &'a Deal, cfg: &'a Solver, t0: Instant) -> Self {
        Run {
            deal,
            cfg,
            t0,
            budget: None,
            done: 0,
            jitter: 0,
            parallel: false,
            donate_mask: DONATE_EVERY,
            greedy: false,
            prove: false,
            stop: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            best_home: AtomicU8::new(0),
            peak_path: AtomicUsize::new(0),
            untracked: AtomicBool::new(false),
            win: Mutex::new(None),
            limit: Mutex::new(None),
            queued: AtomicUsize::new(0),
            stop_when_full: false,
        }
    }

    fn halt(&self, limit: Option<Limit>) {
        if let Some(l) = limit {
            let mut g = self.limit.lock().unwrap_or_else(|e| e.into_inner());
            g.get_or_insert(l);
        }
        self.stop.store(true, Ordering::Relaxed);
    }

    fn won(&self, line: &[Move]) {
        let mut g = self.win.lock().unwrap_or_else(|e| e.into_inner());
        if g.is_none() {
            *g = Some(line.to_vec());
        }
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Where a search starts.
pub(super) enum Root {
    /// The position `pos` stands in, to be entered like any other.
    Enter,
    /// Donated work: these moves from the position `pos` stands in (entered by another
    /// thread).
    Moves(Vec<Move>),
}

/// Work handed to another thread: the line to the position, and moves to try there.
pub(super) type Task = (Vec<Move>, Vec<Move>);

/// A path takes budget in steps of this many bytes (one atomic update per step).
const PATH_CHUNK: usize = 1 << 20;

/// Nodes between two reads of the clock and the stop flag (and progress reports).
const CLOCK_EVERY: u64 = 0xFFFF;
/// Nodes between two looks for an idle thread (a mask: every 1,024 nodes).
pub(super) const DONATE_EVERY: u64 = 0x3FF;
/// Nodes a thread of a parallel search counts before adding them to the shared count. A lone
/// thread checks the node budget against its own count at every node (so budgets are exact)
/// and adds to the shared count only when it stops: a locked add per node had about 1% of
/// the samples under `perf` (bc 1..200), though the bench's seconds did not show it.
const SYNC_EVERY: u64 = 0xFF;

/// Depth-first search from `pos`, whose line from the deal is `prefix`. Results go to `run`.
/// Whatever the order, a search that ends without hitting a budget or the stop flag has tried
/// every move of every state it entered.
#[allow(clippy::too_many_arguments)]
pub(super) fn dfs<const W: usize, A: Access<W>>(
    run: &Run,
    table: &mut A,
    scratch: &mut Scratch<W>,
    pos: &mut Position,
    prefix: &[Move],
    root: Root,
    donate: &mut dyn FnMut(Task),
    progress: &mut dyn FnMut(&Progress),
) {
    let prune = run.cfg.pruning;
    let limits = run.cfg.limits;
    let jitter = run.jitter;
    let greedy = run.greedy;
    let mut track = run.prove;
    let window = run.cfg.path_window;
    let (budget, done, t0) = (run.budget, run.done, run.t0);
    // Nodes already counted when a lone thread starts (no other thread adds to the count).
    let base = run.nodes.load(Ordering::Relaxed);
    let Scratch {
        hist,
        stack,
        frames,
        deep,
        recent,
        open,
        tkeys,
        charged,
        high,
    } = scratch;
    let mut peak_path = 0usize;
    hist.clear();
    hist.extend_from_slice(prefix);
    stack.clear();
    frames.clear();
    deep.clear();
    let mut list = MoveList::default();
    let mut nodes: u64 = 0;
    let mut synced: u64 = 0;
    let mut best_home = pos.home();

    // Ends this thread's search (the states on its path stay pinned: the table is cleared
    // before it is searched again).
    macro_rules! finish {
        () => {{
            // States still open stay unproved for this attempt: whoever meets them again
            // (this thread in a later task included) must not take them as proved.
            for k in tkeys.drain(..) {
                cache_mark(recent, &k, TAINTED);
            }
            open.clear();
            run.best_home.fetch_max(best_home, Ordering::Relaxed);
            run.peak_path.fetch_max(peak_path, Ordering::Relaxed);
            run.nodes.fetch_add(nodes - synced, Ordering::Relaxed);
            return;
        }};
    }

    // Charges the path's bytes (and `$extra` more, while proofs are tracked: what the open
    // set is about to take for a moment) to the table's budget. The path shares the table's
    // budget: a line that outgrows what is left of `--memory` first gives up its proof
    // tracking (below), then ends the search as `unknown`, never as a verdict.
    macro_rules! charge {
        ($extra:expr) => {{
            let extra = if track { $extra } else { 0 };
            let mut path = path_bytes(high, hist, stack, frames, deep, tkeys, open) + extra;
            while path > *charged {
                let add = (path - *charged).next_multiple_of(PATH_CHUNK);
                if table.table().charge_path(add) {
                    *charged += add;
                } else if track {
                    // Out of room while tracking proofs: stop tracking for the rest
                    // of this attempt rather than stop the search. The open stack and
                    // set go (on bc 1770, whose components span its whole path, over
                    // a third of it), and with them only proofs not yet made: those
                    // made so far rest on finished states and stand. With no index,
                    // no frame roots a component from here on, so nothing is proved
                    // that this thread cannot vouch for; its open states stay open
                    // (tainted to whoever meets them) and are forgotten after the
                    // attempt. The attempt itself stays a complete search: its
                    // "entered" marks need no proofs. The freed bytes stay charged to
                    // this path, so the table cannot take them back.
                    track = false;
                    for e in recent.iter_mut() {
                        if e.1 != PROVED {
                            e.1 = TAINTED;
                        }
                    }
                    *open = OpenSet::default();
                    *tkeys = Vec::new();
                    high[HIGH_TKEYS] = 0;
                    run.untracked.store(true, Ordering::Relaxed);
                    path = path_bytes(high, hist, stack, frames, deep, tkeys, open);
                } else {
                    run.halt(Some(Limit::Memory));
                    finish!()
                }
            }
            // Counted once charged: bytes the budget refused were never taken.
            peak_path = peak_path.max(path);
        }};
    }

    // Enters the position `pos` stands in: stores its key and pushes its frame. A hit tells
    // the current frame's `low` what the state met is (see the module docs).
    macro_rules! enter {
        ($hist_before:expr, $last:expr) => {{
            let key = pos
                .key::<W>()
                .expect("key width chosen from key_bits_bound");
            let r = cache_slot(recent, &key);
            let entry = if recent[r].0 == key {
                // Entered by this thread lately: open (its index), proved or tainted.
                if let Some(f) = frames.last_mut() {
                    f.low = f.low.min(recent[r].1);
                }
                Entry::Present
            } else {
                if track {
                    // If the table says "open", the open set is asked next: its slot loads
                    // while the table's probe waits for its own line. On the hard lost deal
                    // the set's lookups went from 12.5-12.6% of the samples to 8.3-8.9%
                    // (`perf`), and the deal from 23.8-24.6 s to 21.4-23.4 s, same nodes.
                    open.prefetch(&key);
                }
                let entry = table.enter(&key);
                let mut in_set = false;
                let mut what = match entry {
                    Entry::Present => PROVED,
                    // Ours, or another's. One of ours the cache no longer holds stays in
                    // the set: moving it to the cache would evict another open state into
                    // the set, more misses in a set that on a big search is far larger than
                    // any cache (bc 6378: the set's lookups and inserts took 15% of the
                    // time under `perf`). Measured, the gain is within the noise (bc 6378,
                    // idle, alternating: 24.6 and 23.2 s against 26.2 and 23.5 s).
                    Entry::Open if track => match open.position(tkeys, &key) {
                        Some(p) => {
                            in_set = true;
                            p + 1
                        }
                        None => TAINTED,
                    },
                    _ => TAINTED,
                };
                if let (Entry::Present | Entry::Open, Some(f)) = (entry, frames.last_mut()) {
                    f.low = f.low.min(what);
                }
                if entry != Entry::NoRoom && !in_set {
                    // An open state the cache evicts goes to the open set; if that makes the
                    // set grow, its old and new arrays are held together for a moment, and
                    // the budget must cover both first (on bc 2461 with 14 GiB, charging it
                    // took the peak down by 1 GiB).
                    let v = recent[r].1;
                    if v != PROVED && v != TAINTED {
                        if let Some(extra) = open.growth_bytes() {
                            charge!(extra);
                            if !track && what != PROVED {
                                // Tracking was dropped for want of room: no index stands.
                                what = TAINTED;
                            }
                        }
                    }
                    cache_put(recent, r, key, what, open, tkeys);
                }
                entry
            };
            match entry {
                Entry::Present | Entry::Open => false,
                Entry::NoRoom => {
                    run.halt(Some(Limit::Memory));
                    finish!()
                }
                Entry::Stored(slot) => {
                    nodes += 1;
                    let dep = pos.generate(prune, jitter, $last, &mut list);
                    // The parent's tried moves are dead: its untried ones slide down over
                    // them (same order), so a deep path holds only moves still to try.
                    let n = frames.len();
                    let below = if n >= 2 { frames[n - 2].end } else { 0 };
                    if let Some(p) = frames.last_mut() {
                        let untried = p.end - p.next;
                        stack.copy_within(p.next as usize..p.end as usize, below as usize);
                        p.next = below;
                        p.end = below + untried;
                        stack.truncate(p.end as usize);
                    }
                    let start = stack.len() as u32;
                    stack.extend(list.iter());
                    let index = if track {
                        if tkeys.len() >= u32::MAX as usize - 1 {
                            // Positions are stored in 32 bits (see `OpenSet`).
                            run.halt(Some(Limit::Memory));
                            finish!()
                        }
                        tkeys.len() as u32 + 1
                    } else {
                        TAINTED
                    };
                    let low = match frames.last() {
                        Some(p) if dep => p.index(track).min(index),
                        _ => index,
                    };
                    frames.push(Frame {
                        next: start,
                        end: stack.len() as u32,
                        hist: $hist_before as u32,
                        slot,
                        low,
                        tpos: tkeys.len() as u32,
                    });
                    if track {
                        tkeys.push(key);
                        recent[r].1 = index;
                    }
                    if window > 0 && frames.len() > 2 * window + 1 {
                        compact(frames, deep, stack, window);
                    }
                    charge!(0);
                    true
                }
            }
        }};
    }

    match root {
        Root::Enter => {
            autoplay(pos, prune, greedy, hist);
            best_home = best_home.max(pos.home());
            if pos.is_won() {
                run.won(hist);
                finish!()
            }
            enter!(prefix.len(), None);
        }
        Root::Moves(moves) => {
            let start = stack.len() as u32;
            stack.extend_from_slice(&moves);
            // Not on the open stack: a child waiting on it waits on what it cannot track.
            frames.push(Frame {
                next: start,
                end: stack.len() as u32,
                hist: prefix.len() as u32,
                slot: Slot::NONE,
                low: TAINTED,
                tpos: tkeys.len() as u32,
            });
        }
    }

    loop {
        if run.stop.load(Ordering::Relaxed) {
            finish!()
        }
        if frames.len() == 1 {
            if let Some(d) = deep.pop() {
                // Back at a deep frame: it becomes whole again, its untried moves the tail
                // of the list made for this position, made again (see "Compact paths").
                let start = frames[0].end;
                // The untried moves made again must land where the frame's list ends: a
                // mismatch would skip moves, and the search would no longer be a proof.
                assert_eq!(
                    stack.len(),
                    start as usize,
                    "a deep frame's moves misplaced"
                );
                if d.count > 0 {
                    let at = d.hist as usize;
                    let last = moved_card(hist[at], hist.len() - at);
                    pos.generate(prune, jitter, last, &mut list);
                    let made = list.iter().len();
                    stack.extend(list.iter().skip(made - d.count as usize));
                }
                frames.push(Frame {
                    next: start,
                    end: start + d.count,
                    hist: d.hist,
                    slot: Slot::BY_KEY,
                    low: d.low,
                    tpos: d.tpos,
                });
            }
        }
        let Some(f) = frames.last_mut() else {
            finish!()
        };
        if f.next == f.end {
            // Every move of this position was tried: leave it (unpin; it stays stored, so a
            // later visit by another path is answered from the table).
            let f = frames.pop().expect("frame present");
            let index = f.index(track);
            if index != TAINTED && f.low == index {
                // The root of a component: everything on the open stack from its own entry
                // up is proved lost (see the module docs).
                let from = f.tpos as usize;
                for i in from..tkeys.len() {
                    let k = tkeys[i];
                    table.prove(&k);
                    let r = cache_slot(recent, &k);
                    if recent[r].0 == k {
                        recent[r].1 = PROVED;
                    } else {
                        open.remove_pos(tkeys, i as u32);
                    }
                }
                tkeys.truncate(from);
            } else {
                if f.slot != Slot::NONE {
                    table.unpin(f.slot, || pos.key::<W>().expect("key fits"));
                }
                // The frame below: the last deep one when this was the lowest whole one.
                if let (Some(d), 1) = (deep.last_mut(), frames.len()) {
                    d.low = d.low.min(f.low);
                } else if let Some(g) = frames.last_mut() {
                    g.low = g.low.min(f.low);
                }
            }
            stack.truncate(frames.last().map_or(0, |g| g.end as usize));
            undo_to(pos, hist, f.hist as usize);
            continue;
        }
        let m = stack[f.next as usize];
        f.next += 1;
        let before = hist.len();
        pos.play(m, hist);
        autoplay_after(pos, m, prune, greedy, hist);
        // The card just moved, if nothing else moved with it (see `Position::generate`).
        let last = moved_card(m, hist.len() - before);
        if pos.home() > best_home {
            best_home = pos.home();
        }
        if pos.is_won() {
            run.won(hist);
            finish!()
        }
        if !enter!(before, last) {
            undo_to(pos, hist, before);
            continue;
        }
        if !run.parallel {
            if budget.is_some_and(|max| base + nodes >= max) {
                run.halt(Some(Limit::Nodes));
                finish!()
            }
        } else if nodes - synced > SYNC_EVERY {
            let total = run.nodes.fetch_add(nodes - synced, Ordering::Relaxed) + nodes - synced;
            synced = nodes;
            if budget.is_some_and(|max| total >= max) {
                run.halt(Some(Limit::Nodes));
                finish!()
            }
        }
        if run.parallel && nodes & run.donate_mask == 0 && run.queued.load(Ordering::Relaxed) == 0 {
            give_away(frames, deep, stack, hist, donate);
        }
        if nodes & CLOCK_EVERY == 0 {
            let seconds = t0.elapsed().as_secs_f64();
            if limits.max_seconds.is_some_and(|s| seconds >= s) {
                run.halt(Some(Limit::Seconds));
                finish!()
            }
            if run.stop_when_full && table.table().replaced() > 0 {
                run.halt(Some(Limit::Memory));
                finish!()
            }
            if run.cfg.stopped() {
                run.halt(Some(Limit::Stopped));
                finish!()
            }
            if !run.parallel {
                progress(&Progress {
                    nodes: done + base + nodes,
                    states: table.len() as u64,
                    seconds,
                    level: None,
                    disk_bytes: 0,
                });
            }
        }
    }
}

/// Makes the lowest `window` whole frames above the first deep ones (see "Compact paths"):
/// their lists go, and the lists above slide down over them.
fn compact(frames: &mut Vec<Frame>, deep: &mut Vec<Deep>, stack: &mut Vec<Move>, window: usize) {
    let start = frames[0].end;
    let cut = frames[window].end;
    deep.extend(frames.drain(1..=window).map(|f| Deep::of(&f)));
    let shift = cut - start;
    stack.copy_within(cut as usize.., start as usize);
    stack.truncate(stack.len() - shift as usize);
    for f in &mut frames[1..] {
        f.next -= shift;
        f.end -= shift;
    }
}

/// Hands the front half of the untried moves of the shallowest whole position on the path that
/// has any to `donate`, with the line to that position (deep frames, whose moves are not at
/// hand, are passed over). The moves it keeps stay where they are, the tail of the list (see
/// "Compact paths").
fn give_away(
    frames: &mut [Frame],
    deep: &[Deep],
    stack: &mut [Move],
    hist: &[Move],
    donate: &mut dyn FnMut(Task),
) {
    let Some(k) = frames.iter().position(|f| f.next < f.end) else {
        return;
    };
    let f = &frames[k];
    let (next, end) = (f.next as usize, f.end as usize);
    let mid = next + (end - next).div_ceil(2);
    let moves = stack[next..mid].to_vec();
    // The position of frame `k` is the line up to where frame `k + 1`'s edge begins.
    let at = match deep.first() {
        Some(d) if k == 0 => d.hist as usize,
        _ => frames.get(k + 1).map_or(hist.len(), |g| g.hist as usize),
    };
    frames[k].next = mid as u32;
    // Another thread runs these moves: this frame cannot vouch for them.
    frames[k].low = TAINTED;
    donate((hist[..at].to_vec(), moves));
}

/// Runs one attempt on `pool`'s threads, sharing `table`; calls `progress` from this thread
/// about every 50 ms, and returns as soon as the attempt ends. (It used to sleep 50 ms
/// between looks: each probe, a millisecond or so of search, then cost a whole 50 ms, and
/// two threads proved the hard lost deal of `data/bench` no faster than one.)
pub(super) fn parallel<const W: usize>(
    run: &Run,
    table: &Table<W>,
    scratches: &mut [Scratch<W>],
    pool: &rayon::ThreadPool,
    progress: &mut dyn FnMut(&Progress),
) {
    let slots: Vec<Mutex<&mut Scratch<W>>> = scratches.iter_mut().map(Mutex::new).collect();
    let slots = &slots[..];
    std::thread::scope(|ts| {
        // The worker holds the sender: dropping it when it returns (or unwinds) wakes the
        // loop below at once.
        let (done, ended) = std::sync::mpsc::channel::<()>();
        let worker = ts.spawn(move || {
            let _done = done;
            pool.install(|| rayon::scope(|s| task(s, run, table, slots, Vec::new(), None)))
        });
        let tick = std::time::Duration::from_millis(50);
        while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = ended.recv_timeout(tick) {
            progress(&Progress {
                nodes: run.done + run.nodes.load(Ordering::Relaxed),
                states: table.len() as u64,
                seconds: run.t0.elapsed().as_secs_f64(),
                level: None,
                disk_bytes: 0,
            });
            if run
                .cfg
                .limits
                .max_seconds
                .is_some_and(|s| run.t0.elapsed().as_secs_f64() >= s)
            {
                run.halt(Some(Limit::Seconds));
            }
            if run.cfg.stopped() {
                run.halt(Some(Limit::Stopped));
            }
        }
        if let Err(e) = worker.join() {
            std::panic::resume_unwind(e);
        }
    });
}

/// One task: rebuilds the position at the end of `prefix` and searches from it (all of it, or
/// only `moves` there), donating work to idle threads as it goes.
fn task<'s, const W: usize>(
    s: &rayon::Scope<'s>,
    run: &'s Run<'s>,
    table: &'s Table<W>,
    slots: &'s [Mutex<&mut Scratch<W>>],
    prefix: Vec<Move>,
    moves: Option<Vec<Move>>,
) {
    // A thread runs one task at a time (a task never waits on rayon), so its scratch is free.
    let i = rayon::current_thread_index().unwrap_or(0) % slots.len();
    let mut scratch = slots[i].lock().unwrap_or_else(|e| e.into_inner());
    let mut pos = Position::new(run.deal);
    for &m in &prefix {
        pos.apply(m);
    }
    let root = match moves {
        None => Root::Enter,
        Some(m) => Root::Moves(m),
    };
    let mut donate = |(p, m): Task| {
        run.queued.fetch_add(1, Ordering::Relaxed);
        s.spawn(move |s| {
            run.queued.fetch_sub(1, Ordering::Relaxed);
            task(s, run, table, slots, p, Some(m));
        });
    };
    dfs(
        run,
        &mut Shared(table),
        &mut scratch,
        &mut pos,
        &prefix,
        root,
        &mut donate,
        &mut |_| {},
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::{Card, Suit};

    /// Buffers that peak at different times are charged for both peaks: a long line left by
    /// one attempt stays resident while the next attempt's open stack grows, and the path is
    /// what the two hold together; freeing the open stack (dropped tracking) takes it off.
    #[test]
    fn the_path_counts_each_buffer_at_its_peak() {
        let mut high = [0; 5];
        let open = OpenSet::default();
        let line = vec![Move::single(Card::new(1, Suit::Clubs), 0, 1); 1000];
        let keys = vec![[0u64; 2]; 500];
        let none: &[[u64; 2]] = &[];
        let first = path_bytes(&mut high, &line, &[], &[], &[], none, &open);
        assert_eq!(first, std::mem::size_of_val(&line[..]));
        let next = path_bytes(&mut high, &line[..10], &[], &[], &[], &keys, &open);
        assert_eq!(next, first + std::mem::size_of_val(&keys[..]));
        high[HIGH_TKEYS] = 0;
        assert_eq!(
            path_bytes(&mut high, &[], &[], &[], &[], none, &open),
            first
        );
    }
}
