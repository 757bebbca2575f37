//! The transposition table: a bounded, exact set of the states the search has entered,
//! shareable between threads.
//!
//! - **Exact keys.** Slots hold whole keys, so a lookup never mistakes one position for
//!   another: an `unsolvable` verdict never rests on a hash match.
//! - **Two key widths.** A key is `W` words, but nearly every position's key fits in two
//!   (its field string is at most 128 bits; measured: 99.9% of the keys the beleaguered-castle
//!   benchmark meets, 96% for streets-and-alleys). Keys whose words past the second are zero go
//!   to a table of 16-byte slots, the rest to one of `8 * W`-byte slots. The split is a
//!   function of the key, and dropping words known to be zero loses nothing, so it stays exact.
//! - **One byte of overhead per slot**: bit 7 is the *pin* (the state is on a search path and
//!   may not be replaced), bit 6 marks an *open* state (entered, not yet proved lost; see
//!   below), bits 0..5 a tag drawn from the key's hash (0 marks an empty slot). A probe scans
//!   tags and reads a key only where the tag matches. A short slot is 17 bytes.
//! - **Open and proved.** An entry is stored open. The search proves it lost ([`Table::prove`])
//!   once every state reachable from it is known lost (`search.rs` has the argument); proved
//!   entries outlive a restart ([`Table::forget_open`]), open ones do not. Within one search
//!   both mean "already entered".
//! - **Segments.** Each table is split by the top bits of the hash into segments, each an
//!   open-addressing table with linear probing (a key lives within [`PROBE`] slots of its home,
//!   no wrap: each segment has `PROBE` spare slots at its end). A segment grows on its own, by
//!   half, when it is 7/8 full, so the load stays between 7/12 and 7/8 (short slots: 19.4 to
//!   29.2 bytes per state, tails included 2-3% more), and a growth holds only one small segment
//!   twice, so the process stays within the memory budget.
//! - **The budget.** Growth stops at the budget (`--memory`); then the table *replaces*: a new
//!   key takes the place of an unpinned key in its window. A lost entry costs time (that state
//!   may be searched again), never a wrong verdict, because an entry only ever means "already
//!   entered". Pinned states (the search paths) are never replaced, so a cycle back into a path
//!   is always seen and no search can loop.
//! - **Threads.** Every segment sits behind its own mutex; with hundreds of segments two
//!   threads rarely meet. A single-threaded search takes `&mut` and skips the locks.

use super::ledger::Ledger;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// How far from its home slot a key may live.
pub const PROBE: usize = 64;

/// Slots of a fresh segment of short keys.
const FIRST_CAP: usize = 128;

/// Slots of a fresh segment of wide keys. In beleaguered-castle and streets-and-alleys few
/// keys are wide (0.1% and 4%), so the wide part is mostly its segments' fixed sizes: at 128
/// slots (and the tail) 1.2 MB over 256 segments, 0.5 MB at 16. On the largest
/// streets-and-alleys deal of the benchmark (640,000 states) that took the table from 28.7
/// to 27.6 bytes per state, and from 33.2 to 31.0 on one of 320,000 (`castle bench --variant
/// sa`, same nodes; the 320,000 with a best-first share since reverted). A segment grows by
/// half as it fills, whatever it started with.
const FIRST_WIDE_CAP: usize = 16;

/// Most segments per table (2^8); fewer for small budgets, so that one segment's growth is a
/// small part of the budget.
const MAX_SEG_BITS: u32 = 8;

const PIN: u8 = 0x80;
const OPEN: u8 = 0x40;
const TAG: u8 = 0x3F;

/// Result of [`Table::enter`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// The key was already there, proved lost.
    Present,
    /// The key was already there, not (yet) proved lost: on a search path, or left by one
    /// whose proof waits for a state still on a path.
    Open,
    /// The key was stored, pinned, at this slot.
    Stored(Slot),
    /// No room: the budget is reached and every slot of the window is pinned.
    NoRoom,
}

/// Where a key was stored; stale once its segment has grown (then [`Table::unpin`] looks the
/// key up again).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Slot {
    /// Segment number; bit 31 set for the wide table.
    seg: u32,
    idx: u32,
    epoch: u32,
}

impl Slot {
    /// No slot (a segment number no table has).
    pub const NONE: Slot = Slot {
        seg: u32::MAX,
        idx: 0,
        epoch: 0,
    };
    /// A slot not kept: [`Table::unpin`] looks the key up.
    pub const BY_KEY: Slot = Slot {
        seg: u32::MAX - 1,
        idx: 0,
        epoch: 0,
    };
}

/// The mixed hash of a key: segment from the top bits, home from the next, tag from the low.
#[inline]
pub fn mix(key: &[u64]) -> u64 {
    use crate::state::{fold_key, Stir, KEY_HASH_MUL, KEY_HASH_SEED};
    let h = fold_key(key, KEY_HASH_SEED, KEY_HASH_MUL, Stir::XorShift(29));
    h.wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ (h >> 32)
}

#[inline]
fn tag_of(h: u64) -> u8 {
    (h as u8 & TAG).max(1)
}

/// Starts loading the cache line at `p` (a hint: no effect on results, and a prefetch never
/// faults, whatever the address).
#[inline(always)]
pub(super) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` reads nothing the program sees and cannot fault.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p.cast::<i8>(), std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Asks the kernel to back a large array with 2 MiB pages: probes land at random, and with
/// 4 KiB pages nearly every probe of a big table also misses the TLB. Only a hint; where it is
/// refused nothing changes.
pub(super) fn advise_huge_pages<T>(v: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let bytes = std::mem::size_of_val(v);
        if bytes < 4 * HUGE {
            return;
        }
        let start = v.as_mut_ptr() as usize;
        let aligned = start.next_multiple_of(HUGE);
        let len = (start + bytes - aligned) / HUGE * HUGE;
        // SAFETY: the range lies inside the live allocation `v`; MADV_HUGEPAGE only changes
        // how the kernel backs it, never its contents.
        unsafe {
            libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

/// One open-addressing segment of `K`-word keys.
struct Segment<const K: usize> {
    keys: Vec<[u64; K]>,
    tags: Vec<u8>,
    cap: usize,
    len: usize,
    epoch: u32,
}

/// What a segment did with a key.
enum Probe {
    /// Found; the tag byte.
    Present(u8),
    Stored(usize),
    /// It must grow first (full window or load above 7/8).
    Full,
    NoRoom,
}

impl<const K: usize> Segment<K> {
    const SLOT_BYTES: usize = 8 * K + 1;

    fn new(cap: usize) -> Self {
        let mut s = Segment {
            keys: vec![[0; K]; cap + PROBE],
            tags: vec![0; cap + PROBE],
            cap,
            len: 0,
            epoch: 0,
        };
        advise_huge_pages(&mut s.keys);
        s
    }

    fn bytes_for(cap: usize) -> usize {
        (cap + PROBE) * Self::SLOT_BYTES
    }

    /// Home slot: the hash bits below the segment bits, scaled to the capacity.
    #[inline]
    fn home(&self, h: u64, seg_bits: u32) -> usize {
        ((u128::from(h << seg_bits) * self.cap as u128) >> 64) as usize
    }

    /// Looks the key up; stores it pinned if absent and there is room. `at_budget`: the
    /// segment may not grow, so a full window replaces an unpinned key.
    #[inline]
    fn probe(&mut self, key: &[u64; K], h: u64, seg_bits: u32, at_budget: bool) -> Probe {
        let home = self.home(h, seg_bits);
        let tag = tag_of(h);
        // The tags and the keys are two arrays, so a probe of a big table misses twice: the
        // tag's line, then (on a tag match or to store) the key's. A key found or stored
        // within a few slots of its home is in the line fetched now, so the two misses
        // overlap (the hard lost deal spent 39% of its time here, `perf annotate` putting 54%
        // of that on the tag load and 37% on the key compare).
        prefetch(self.keys.as_ptr().wrapping_add(home));
        for i in home..home + PROBE {
            let t = self.tags[i];
            if t == 0 {
                if !at_budget && (self.len + 1) * 8 > self.cap * 7 {
                    return Probe::Full;
                }
                self.keys[i] = *key;
                self.tags[i] = tag | PIN | OPEN;
                self.len += 1;
                return Probe::Stored(i);
            }
            if t & TAG == tag && &self.keys[i] == key {
                return Probe::Present(t);
            }
        }
        if !at_budget {
            return Probe::Full;
        }
        // Replace an unpinned key, scanning from a point drawn from the hash so that no slot
        // of the window is favoured.
        let start = (h >> 8) as usize % PROBE;
        for k in 0..PROBE {
            let i = home + (start + k) % PROBE;
            if self.tags[i] & PIN == 0 {
                self.keys[i] = *key;
                self.tags[i] = tag | PIN | OPEN;
                return Probe::Stored(i);
            }
        }
        Probe::NoRoom
    }

    fn find(&self, key: &[u64; K], h: u64, seg_bits: u32) -> Option<usize> {
        let home = self.home(h, seg_bits);
        (home..home + PROBE)
            .take_while(|&i| self.tags[i] != 0)
            .find(|&i| self.tags[i] & TAG == tag_of(h) && &self.keys[i] == key)
    }

    /// Clears `bits` of the key's tag, if the key is stored.
    #[inline]
    fn clear_bits(&mut self, key: &[u64; K], h: u64, seg_bits: u32, bits: u8) {
        if let Some(i) = self.find(key, h, seg_bits) {
            self.tags[i] &= !bits;
        }
    }

    /// Drops every open entry, keeping the proved ones (and no pins: every pinned entry is
    /// open). Each kept key moves to the first free slot of its window, which is at or before
    /// where it was, so it stays within reach of its home.
    fn retain_proved(&mut self, seg_bits: u32) {
        let kept: Vec<([u64; K], u8)> = self
            .tags
            .iter()
            .zip(&self.keys)
            .filter(|(&t, _)| t != 0 && t & OPEN == 0)
            .map(|(&t, k)| (*k, t))
            .collect();
        self.clear();
        for (k, t) in kept {
            let home = self.home(mix(&k), seg_bits);
            let i = (home..home + PROBE)
                .find(|&i| self.tags[i] == 0)
                .expect("a kept key finds room at or before its old slot");
            self.keys[i] = k;
            self.tags[i] = t;
            self.len += 1;
        }
    }

    /// Rebuilt with at least `cap` slots (more if a window overflows), keeping every key and
    /// pin.
    fn regrow(&mut self, mut cap: usize, seg_bits: u32, hash: impl Fn(&[u64; K]) -> u64) {
        let old_keys = std::mem::take(&mut self.keys);
        let old_tags = std::mem::take(&mut self.tags);
        'retry: loop {
            let mut next = Segment::<K>::new(cap);
            for (k, &t) in old_keys.iter().zip(&old_tags) {
                if t == 0 {
                    continue;
                }
                let home = next.home(hash(k), seg_bits);
                let Some(i) = (home..home + PROBE).find(|&i| next.tags[i] == 0) else {
                    // A window overflowed below 7/12 load: vanishingly rare; go bigger.
                    cap += cap / 2;
                    continue 'retry;
                };
                next.keys[i] = *k;
                next.tags[i] = t;
            }
            self.keys = next.keys;
            self.tags = next.tags;
            self.cap = cap;
            self.epoch = self.epoch.wrapping_add(1);
            return;
        }
    }

    fn clear(&mut self) {
        self.tags.fill(0);
        self.len = 0;
        self.epoch = self.epoch.wrapping_add(1);
    }
}

/// A segment's lock and header on a cache line of their own, so that two threads working in
/// neighbouring segments do not pass one line back and forth.
#[repr(align(64))]
struct Padded<T>(T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Padded<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// One key width's segments.
struct Part<const K: usize> {
    segs: Vec<Padded<Mutex<Segment<K>>>>,
    seg_bits: u32,
}

impl<const K: usize> Part<K> {
    /// Appends every key proved lost, widened to `W` words (zeros past the `K`th).
    fn push_proved<const W: usize>(&self, out: &mut Vec<[u64; W]>) {
        for s in &self.segs {
            let seg = lock(s);
            for (k, &t) in seg.keys.iter().zip(&seg.tags) {
                if t != 0 && t & OPEN == 0 {
                    let mut w = [0; W];
                    w[..K].copy_from_slice(k);
                    out.push(w);
                }
            }
        }
    }

    fn new(seg_bits: u32, first_cap: usize) -> Self {
        Part {
            segs: (0..1usize << seg_bits)
                .map(|_| Padded(Mutex::new(Segment::new(first_cap))))
                .collect(),
            seg_bits,
        }
    }

    /// Segment `s`, for a table only this thread uses (no lock).
    #[inline]
    fn owned(&mut self, s: usize) -> &mut Segment<K> {
        self.segs[s].get_mut().unwrap_or_else(|e| e.into_inner())
    }

    /// Segment `s`, locked.
    #[inline]
    fn locked(&self, s: usize) -> std::sync::MutexGuard<'_, Segment<K>> {
        lock(&self.segs[s])
    }

    fn bytes(&self) -> usize {
        self.segs
            .iter()
            .map(|s| Segment::<K>::bytes_for(lock(s).cap))
            .sum()
    }

    fn len(&self) -> usize {
        self.segs.iter().map(|s| lock(s).len).sum()
    }
}

/// The segment of hash `h` in a part of `2^seg_bits` segments (its top bits).
#[inline]
fn seg_of(h: u64, seg_bits: u32) -> usize {
    if seg_bits == 0 {
        0
    } else {
        (h >> (64 - seg_bits)) as usize
    }
}

/// Locks a segment. A panic in another thread while it held the lock leaves the segment
/// consistent (every write to it is a plain store of a whole slot), so poisoning is ignored.
#[inline]
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Exact key set with pins; see the module docs.
pub struct Table<const W: usize> {
    short: Part<2>,
    long: Part<W>,
    budget: Ledger,
    replaced: AtomicU64,
    peak_len: AtomicUsize,
}

/// The first two words of a key whose other words are zero, else `None`.
#[inline]
fn short_form<const W: usize>(key: &[u64; W]) -> Option<[u64; 2]> {
    key[2..].iter().all(|&w| w == 0).then(|| [key[0], key[1]])
}

const WIDE: u32 = 1 << 31;

/// What [`enter_in`] did: the tag byte of a key found, or the slot it stored the key at.
enum Found {
    Present(u8),
    Stored(usize, u32),
    NoRoom,
}

/// The segment operation both the locked and the unlocked paths run: probe, growing the
/// segment (within the budget) until the key is found or stored.
#[inline]
fn enter_in<const K: usize>(
    seg: &mut Segment<K>,
    key: &[u64; K],
    h: u64,
    seg_bits: u32,
    budget: &Ledger,
    replaced: &AtomicU64,
) -> Found {
    loop {
        match seg.probe(key, h, seg_bits, false) {
            Probe::Present(t) => return Found::Present(t),
            Probe::Stored(i) => return Found::Stored(i, seg.epoch),
            Probe::NoRoom => return Found::NoRoom,
            Probe::Full => {
                let cap = seg.cap + seg.cap / 2;
                let (old, new) = (
                    Segment::<K>::bytes_for(seg.cap),
                    Segment::<K>::bytes_for(cap),
                );
                if budget.grow(new) {
                    seg.regrow(cap, seg_bits, |k| mix(k));
                    // `regrow` may have gone bigger than asked (a window overflowed below
                    // 7/12 load: vanishingly rare); account the difference.
                    let now = Segment::<K>::bytes_for(seg.cap);
                    budget.used.fetch_add(now - new, Ordering::Relaxed);
                    budget.release(old);
                    continue;
                }
                // At the budget: fill the window, then replace.
                let before = seg.len;
                return match seg.probe(key, h, seg_bits, true) {
                    Probe::Present(t) => Found::Present(t),
                    Probe::Stored(i) => {
                        if seg.len == before {
                            replaced.fetch_add(1, Ordering::Relaxed);
                        }
                        Found::Stored(i, seg.epoch)
                    }
                    Probe::NoRoom | Probe::Full => Found::NoRoom,
                };
            }
        }
    }
}

impl<const W: usize> Table<W> {
    /// A table that may grow to `max_bytes`.
    pub fn new(max_bytes: usize) -> Table<W> {
        let seg_bits = ((max_bytes >> 16).max(1).ilog2()).min(MAX_SEG_BITS);
        let t = Table {
            short: Part::new(seg_bits, FIRST_CAP),
            long: Part::new(seg_bits, FIRST_WIDE_CAP),
            budget: Ledger {
                max: max_bytes,
                used: AtomicUsize::new(0),
                peak: AtomicUsize::new(0),
                path: AtomicUsize::new(0),
                reserve: 0,
                slack: 0,
                refused: std::sync::atomic::AtomicBool::new(false),
            },
            replaced: AtomicU64::new(0),
            peak_len: AtomicUsize::new(0),
        };
        let first = t.short.bytes() + t.long.bytes();
        t.budget.used.store(first, Ordering::Relaxed);
        t.budget.peak.store(first, Ordering::Relaxed);
        t
    }

    /// Shares the budget with search paths: they may take `slack` bytes past the budget, and
    /// the table leaves them at least `reserve` bytes in all (of which the slack is the first
    /// part, so a small budget's table loses nothing to the paths). See
    /// [`Table::charge_path`].
    pub fn with_paths(mut self, reserve: usize, slack: usize) -> Self {
        self.budget.slack = slack;
        self.budget.reserve = reserve.min(self.budget.max).max(slack);
        self
    }

    /// Raises the budget by `bytes` that another part of the solve has freed (the best-first
    /// phase's, once it ends): the table grows into them instead of replacing entries.
    pub fn grant(&mut self, bytes: usize) {
        self.budget.max += bytes;
    }

    /// Bytes of the budget the table has not allocated and may still take, beyond what it
    /// leaves the search paths: what it can lend ([`Table::lend`]).
    pub fn room(&self) -> usize {
        let b = &self.budget;
        let paths = b.path.load(Ordering::Relaxed).max(b.reserve);
        b.max
            .saturating_sub(b.used.load(Ordering::Relaxed))
            .saturating_sub(paths)
    }

    /// Lowers the budget by `bytes` lent to another part of the solve (the portfolio's
    /// members, which take idle memory while the table is small); [`Table::grant`] gives
    /// them back. A loan past [`Table::room`] (a member's last growth may overshoot what it
    /// was offered) leaves the table below what it holds: it cannot grow, and replaces.
    pub fn lend(&mut self, bytes: usize) {
        debug_assert!(bytes <= self.budget.max);
        self.budget.max = self.budget.max.saturating_sub(bytes);
    }

    /// True if the table has been refused a growth (it is replacing entries) since the last
    /// call: the moment to take back what it lent.
    pub fn take_refused(&self) -> bool {
        self.budget.refused.swap(false, Ordering::Relaxed)
    }

    /// Takes `add` bytes of the budget for a search path; false if that would pass the
    /// budget (plus the slack). What the table has already allocated stays with it, so the
    /// paths and the table together never pass the budget: whichever asks last is refused
    /// (the table then replaces entries; a refused path ends its search as `unknown`).
    pub fn charge_path(&self, add: usize) -> bool {
        let b = &self.budget;
        let mut path = b.path.load(Ordering::Relaxed);
        loop {
            if b.used.load(Ordering::Relaxed) + path + add > b.max + b.slack {
                return false;
            }
            match b.path.compare_exchange_weak(
                path,
                path + add,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(p) => path = p,
            }
        }
    }

    /// Bytes the search paths have taken.
    pub fn path_bytes(&self) -> usize {
        self.budget.path.load(Ordering::Relaxed)
    }

    /// Forgets every key but keeps the allocation.
    pub fn clear(&mut self) {
        self.each_segment(Segment::clear, Segment::clear);
    }

    /// Forgets every open key (and every pin), keeping the keys proved lost: what a new
    /// search from the deal may still trust (see the module docs).
    pub fn forget_open(&mut self) {
        let (short_bits, long_bits) = (self.short.seg_bits, self.long.seg_bits);
        self.each_segment(
            |s| s.retain_proved(short_bits),
            |s| s.retain_proved(long_bits),
        );
    }

    /// Runs `short` on every short segment and `long` on every wide one, noting the peak
    /// count of keys first (both callers drop keys).
    fn each_segment(
        &mut self,
        mut short: impl FnMut(&mut Segment<2>),
        mut long: impl FnMut(&mut Segment<W>),
    ) {
        let len = self.len();
        self.peak_len.fetch_max(len, Ordering::Relaxed);
        for s in &mut self.short.segs {
            short(s.get_mut().unwrap_or_else(|e| e.into_inner()));
        }
        for s in &mut self.long.segs {
            long(s.get_mut().unwrap_or_else(|e| e.into_inner()));
        }
    }

    /// Every key proved lost, widened to `W` words (for tests of the proofs).
    pub fn proved_keys(&self) -> Vec<[u64; W]> {
        let mut out = Vec::new();
        self.short.push_proved(&mut out);
        self.long.push_proved(&mut out);
        out
    }

    /// Bytes allocated now.
    pub fn bytes(&self) -> usize {
        self.budget.used.load(Ordering::Relaxed)
    }

    /// Largest allocation so far, a segment's growth (old and new at once) included.
    pub fn peak_bytes(&self) -> usize {
        self.budget.peak.load(Ordering::Relaxed)
    }

    /// Keys stored now.
    pub fn len(&self) -> usize {
        self.short.len() + self.long.len()
    }

    /// Most keys stored at once since the table was made (across clears).
    pub fn peak_len(&self) -> usize {
        self.peak_len.load(Ordering::Relaxed).max(self.len())
    }

    /// True if nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keys replaced since the table reached its budget.
    pub fn replaced(&self) -> u64 {
        self.replaced.load(Ordering::Relaxed)
    }

    #[inline]
    fn result(at: Found, seg: usize, wide: bool) -> Entry {
        match at {
            Found::Present(t) if t & OPEN != 0 => Entry::Open,
            Found::Present(_) => Entry::Present,
            Found::NoRoom => Entry::NoRoom,
            Found::Stored(i, epoch) => Entry::Stored(Slot {
                seg: seg as u32 | if wide { WIDE } else { 0 },
                idx: i as u32,
                epoch,
            }),
        }
    }

    /// Looks `key` up; if absent, stores it pinned (growing or replacing as needed). For a
    /// table only this thread uses: no locks.
    #[inline]
    pub fn enter(&mut self, key: &[u64; W]) -> Entry {
        let bits = (self.short.seg_bits, self.long.seg_bits);
        let (short, long) = (&mut self.short, &mut self.long);
        enter_via(
            key,
            bits,
            &self.budget,
            &self.replaced,
            |s| short.owned(s),
            |s| long.owned(s),
        )
    }

    /// [`Table::enter`] for a table several threads share.
    #[inline]
    pub fn enter_shared(&self, key: &[u64; W]) -> Entry {
        enter_via(
            key,
            (self.short.seg_bits, self.long.seg_bits),
            &self.budget,
            &self.replaced,
            |s| self.short.locked(s),
            |s| self.long.locked(s),
        )
    }

    /// True if `key` is stored.
    pub fn contains(&self, key: &[u64; W]) -> bool {
        let (sb, lb) = (self.short.seg_bits, self.long.seg_bits);
        route(
            key,
            (sb, lb),
            |k2, h, s| self.short.locked(s).find(k2, h, sb).is_some(),
            |k, h, s| self.long.locked(s).find(k, h, lb).is_some(),
        )
    }

    /// True if `key` is stored and not open: proved lost, when the last search kept proofs
    /// (without proofs a search never clears the open mark; see [`Table::prove`]).
    pub fn is_proved(&self, key: &[u64; W]) -> bool {
        let (sb, lb) = (self.short.seg_bits, self.long.seg_bits);
        route(
            key,
            (sb, lb),
            |k2, h, s| {
                let seg = self.short.locked(s);
                seg.find(k2, h, sb).is_some_and(|i| seg.tags[i] & OPEN == 0)
            },
            |k, h, s| {
                let seg = self.long.locked(s);
                seg.find(k, h, lb).is_some_and(|i| seg.tags[i] & OPEN == 0)
            },
        )
    }

    /// Unpins the key stored at `slot` (the search has left that state); it stays open. If
    /// its segment has grown since, or the slot is [`Slot::BY_KEY`], the key (from `key`,
    /// called only then) is looked up.
    #[inline]
    pub fn unpin(&mut self, slot: Slot, key: impl FnOnce() -> [u64; W]) {
        let bits = (self.short.seg_bits, self.long.seg_bits);
        let (short, long) = (&mut self.short, &mut self.long);
        unpin_via(slot, key, bits, |s| short.owned(s), |s| long.owned(s));
    }

    /// Marks `key` proved lost (and unpins it), if it is still stored (a key replaced since
    /// it was unpinned is left alone). It is looked up by its hash: the search keeps no slot
    /// for the states it proves, which saves 12 bytes per open state on deep paths, and the
    /// lookup reads the line a stored slot would have.
    #[inline]
    pub fn prove(&mut self, key: &[u64; W]) {
        let bits = (self.short.seg_bits, self.long.seg_bits);
        let (short, long) = (&mut self.short, &mut self.long);
        prove_via(key, bits, |s| short.owned(s), |s| long.owned(s));
    }

    /// [`Table::unpin`] for a shared table.
    #[inline]
    pub fn unpin_shared(&self, slot: Slot, key: impl FnOnce() -> [u64; W]) {
        let bits = (self.short.seg_bits, self.long.seg_bits);
        unpin_via(
            slot,
            key,
            bits,
            |s| self.short.locked(s),
            |s| self.long.locked(s),
        );
    }

    /// [`Table::prove`] for a shared table.
    #[inline]
    pub fn prove_shared(&self, key: &[u64; W]) {
        let bits = (self.short.seg_bits, self.long.seg_bits);
        prove_via(key, bits, |s| self.short.locked(s), |s| self.long.locked(s));
    }
}

/// The one body of [`Table::enter`] and [`Table::enter_shared`]: `short(s)` and `long(s)`
/// hand out segment `s` of the short-key and the wide part, borrowed or locked.
#[inline]
fn enter_via<const W: usize, A, B>(
    key: &[u64; W],
    (short_bits, long_bits): (u32, u32),
    budget: &Ledger,
    replaced: &AtomicU64,
    short: impl FnOnce(usize) -> A,
    long: impl FnOnce(usize) -> B,
) -> Entry
where
    A: std::ops::DerefMut<Target = Segment<2>>,
    B: std::ops::DerefMut<Target = Segment<W>>,
{
    route(
        key,
        (short_bits, long_bits),
        |k2, h, s| {
            let r = enter_in(&mut short(s), k2, h, short_bits, budget, replaced);
            Table::<W>::result(r, s, false)
        },
        |k, h, s| {
            let r = enter_in(&mut long(s), k, h, long_bits, budget, replaced);
            Table::<W>::result(r, s, true)
        },
    )
}

/// The one body of [`Table::prove`] and [`Table::prove_shared`] (see [`enter_via`]): finds
/// the key and clears its pin and open mark.
#[inline]
fn prove_via<const W: usize, A, B>(
    key: &[u64; W],
    (short_bits, long_bits): (u32, u32),
    short: impl FnOnce(usize) -> A,
    long: impl FnOnce(usize) -> B,
) where
    A: std::ops::DerefMut<Target = Segment<2>>,
    B: std::ops::DerefMut<Target = Segment<W>>,
{
    route(
        key,
        (short_bits, long_bits),
        |k2, h, s| short(s).clear_bits(k2, h, short_bits, PIN | OPEN),
        |k, h, s| long(s).clear_bits(k, h, long_bits, PIN | OPEN),
    );
}

/// Hashes `key` once and hands its part's form of it (two words when the rest is zero), the
/// hash and its segment to `short` or `long`.
#[inline]
fn route<const W: usize, R>(
    key: &[u64; W],
    (short_bits, long_bits): (u32, u32),
    short: impl FnOnce(&[u64; 2], u64, usize) -> R,
    long: impl FnOnce(&[u64; W], u64, usize) -> R,
) -> R {
    if let Some(k2) = short_form(key) {
        let h = mix(&k2);
        short(&k2, h, seg_of(h, short_bits))
    } else {
        let h = mix(key);
        long(key, h, seg_of(h, long_bits))
    }
}

/// The one body of [`Table::unpin`] and [`Table::unpin_shared`] (see [`enter_via`]). A pinned
/// key cannot have been replaced, so only a growth (a new epoch) moves it; then the key
/// (from `key`, called only then) is looked up again, as it is for [`Slot::BY_KEY`].
#[inline]
fn unpin_via<const W: usize, A, B>(
    slot: Slot,
    key: impl FnOnce() -> [u64; W],
    (short_bits, long_bits): (u32, u32),
    short: impl FnOnce(usize) -> A,
    long: impl FnOnce(usize) -> B,
) where
    A: std::ops::DerefMut<Target = Segment<2>>,
    B: std::ops::DerefMut<Target = Segment<W>>,
{
    if slot == Slot::BY_KEY {
        route(
            &key(),
            (short_bits, long_bits),
            |k2, h, s| short(s).clear_bits(k2, h, short_bits, PIN),
            |k, h, s| long(s).clear_bits(k, h, long_bits, PIN),
        );
        return;
    }
    if slot.seg & WIDE == 0 {
        let key = || short_form(&key());
        unpin_in(&mut short(slot.seg as usize), slot, key, short_bits);
    } else {
        let key = || Some(key());
        unpin_in(&mut long((slot.seg & !WIDE) as usize), slot, key, long_bits);
    }
}

#[inline]
fn unpin_in<const K: usize>(
    seg: &mut Segment<K>,
    slot: Slot,
    key: impl FnOnce() -> Option<[u64; K]>,
    seg_bits: u32,
) {
    if slot.epoch == seg.epoch {
        seg.tags[slot.idx as usize] &= !PIN;
    } else if let Some(k) = key() {
        seg.clear_bits(&k, mix(&k), seg_bits, PIN);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(i: u64) -> [u64; 3] {
        // Every fourth key is wide (a nonzero third word).
        [i + 1, i.wrapping_mul(7), u64::from(i % 4 == 0) * 3]
    }

    #[test]
    fn only_proved_keys_count_as_proved() {
        let mut t = Table::<3>::new(1 << 20);
        for i in 0..100 {
            assert!(matches!(t.enter(&key(i)), Entry::Stored(_)));
        }
        for i in (0..100).step_by(3) {
            t.prove(&key(i));
        }
        for i in 0..100 {
            assert_eq!(t.is_proved(&key(i)), i % 3 == 0, "key {i}");
        }
        // Absent keys are not proved; proofs survive `forget_open`, open keys do not.
        assert!(!t.is_proved(&key(1000)));
        t.forget_open();
        assert!(t.is_proved(&key(3)) && !t.contains(&key(1)));
    }

    #[test]
    fn grows_keeps_every_key_and_pins_survive() {
        let mut t = Table::<3>::new(1 << 30);
        let mut slots = Vec::new();
        const N: u64 = 1_000_000;
        for i in 0..N {
            match t.enter(&key(i)) {
                Entry::Stored(s) => slots.push(s),
                e => panic!("fresh key {i}: {e:?}"),
            }
        }
        for i in 0..N {
            assert_eq!(t.enter(&key(i)), Entry::Open);
            assert!(t.contains(&key(i)));
        }
        assert_eq!(t.len(), N as usize);
        assert_eq!(t.replaced(), 0);
        // Every slot handle, stale or not, unpins its own key.
        for (i, s) in slots.into_iter().enumerate() {
            t.unpin(s, || key(i as u64));
        }
        let pinned: usize = t
            .short
            .segs
            .iter()
            .chain([].iter())
            .map(|s| lock(s).tags.iter().filter(|&&g| g & PIN != 0).count())
            .sum::<usize>()
            + t.long
                .segs
                .iter()
                .map(|s| lock(s).tags.iter().filter(|&&g| g & PIN != 0).count())
                .sum::<usize>();
        assert_eq!(pinned, 0);
        // Three keys in four short (17-byte slots), one wide (25): at 7/12 to 7/8 load,
        // 22 to 33 bytes per key, and a little for the segments' spare tails.
        let per = t.bytes() as f64 / N as f64;
        assert!(per < 32.0, "{per} bytes per key");
        t.clear();
        assert!(t.is_empty());
        assert_eq!(t.peak_len(), N as usize);
        assert!(matches!(t.enter(&key(5)), Entry::Stored(_)));
    }

    #[test]
    fn proved_keys_outlive_forget_open_and_open_ones_do_not() {
        let mut t = Table::<3>::new(1 << 26);
        const N: u64 = 100_000;
        let mut slots = Vec::new();
        for i in 0..N {
            match t.enter(&key(i)) {
                Entry::Stored(s) => slots.push(s),
                e => panic!("fresh key {i}: {e:?}"),
            }
        }
        // Growth has moved most keys since they were stored: stale slots still find them.
        for (i, s) in slots.into_iter().enumerate() {
            let i = i as u64;
            if i % 3 == 0 {
                t.prove(&key(i));
            } else {
                t.unpin(s, || key(i));
            }
        }
        assert_eq!(t.enter(&key(3)), Entry::Present);
        assert_eq!(t.enter(&key(4)), Entry::Open);
        assert_eq!(t.proved_keys().len(), N.div_ceil(3) as usize);
        t.forget_open();
        assert_eq!(t.len(), N.div_ceil(3) as usize);
        for i in 0..N {
            let e = t.enter(&key(i));
            if i % 3 == 0 {
                assert_eq!(e, Entry::Present, "proved key {i}");
            } else {
                assert!(matches!(e, Entry::Stored(_)), "open key {i}: {e:?}");
            }
        }
    }

    #[test]
    fn paths_and_table_share_one_budget() {
        let budget = 4 << 20;
        let mut t = Table::<3>::new(budget).with_paths(1 << 20, 0);
        // The table grows until only the reserve is left, then replaces.
        for i in 0..400_000 {
            let e = t.enter(&key(i));
            if let Entry::Stored(s) = e {
                t.unpin(s, || key(i));
            }
        }
        assert!(t.replaced() > 0, "the table never reached its budget");
        assert!(
            t.peak_bytes() + (1 << 20) <= budget,
            "{} bytes",
            t.peak_bytes()
        );
        // The paths get the reserve and what the table left, never more.
        let room = budget - t.bytes();
        assert!(room >= 1 << 20);
        assert!(t.charge_path(room));
        assert!(!t.charge_path(1));
        assert_eq!(t.path_bytes(), room);
        // With a slack, that much more.
        let t = Table::<3>::new(1 << 20).with_paths(1 << 18, 8 << 20);
        assert!(t.charge_path(8 << 20));
        assert!(!t.charge_path(2 << 20));
        // The slack is the paths' first room: with it the table keeps its whole budget.
        let mut t = Table::<3>::new(4 << 20).with_paths(1 << 20, 8 << 20);
        for i in 0..400_000 {
            if let Entry::Stored(s) = t.enter(&key(i)) {
                t.unpin(s, || key(i));
            }
        }
        assert!(t.peak_bytes() <= 4 << 20, "{} bytes", t.peak_bytes());
        assert!(t.peak_bytes() > 3 << 20, "{} bytes", t.peak_bytes());
        // Paths that hold more than the reserve keep the table from growing into it.
        let mut t = Table::<3>::new(4 << 20).with_paths(1 << 20, 0);
        assert!(t.charge_path(3 << 20));
        for i in 0..400_000 {
            if let Entry::Stored(s) = t.enter(&key(i)) {
                t.unpin(s, || key(i));
            }
        }
        assert!(t.peak_bytes() <= 1 << 20, "{} bytes", t.peak_bytes());
    }

    #[test]
    fn a_full_table_replaces_only_unpinned_keys() {
        let budget = 256 * 1024;
        let mut t = Table::<3>::new(budget);
        let mut pinned = Vec::new();
        for i in 0..40_000u64 {
            match t.enter(&key(i)) {
                Entry::Stored(s) => {
                    if i % 50 == 0 {
                        pinned.push(i);
                    } else {
                        t.unpin(s, || key(i));
                    }
                }
                Entry::Present | Entry::Open => panic!("fresh key reported present"),
                Entry::NoRoom => {}
            }
        }
        assert!(t.replaced() > 0, "the small table never filled");
        assert!(t.bytes() <= budget, "{} > {budget}", t.bytes());
        assert!(t.peak_bytes() <= budget, "{} > {budget}", t.peak_bytes());
        for i in pinned {
            assert!(t.contains(&key(i)), "pinned key {i} was replaced");
        }
    }

    #[test]
    fn a_grant_lets_a_full_table_grow_again() {
        let budget = 256 * 1024;
        let mut t = Table::<3>::new(budget);
        let fill = |t: &mut Table<3>, keys: std::ops::Range<u64>| {
            for i in keys {
                if let Entry::Stored(s) = t.enter(&key(i)) {
                    t.unpin(s, || key(i));
                }
            }
        };
        fill(&mut t, 0..40_000);
        let replaced = t.replaced();
        assert!(replaced > 0, "the small table never filled");
        let full = t.bytes();
        t.grant(budget);
        fill(&mut t, 40_000..50_000);
        assert!(t.bytes() > full, "the table did not grow into the grant");
        assert!(t.bytes() <= 2 * budget, "{} > {}", t.bytes(), 2 * budget);
        assert!(
            t.peak_bytes() <= 2 * budget,
            "{} > {}",
            t.peak_bytes(),
            2 * budget
        );
    }

    /// A loan lowers the room by what it took; a table that fills the rest is refused a
    /// growth and says so once; the loan given back lets it grow again.
    #[test]
    fn a_loan_shrinks_the_room_until_the_table_asks_for_it_back() {
        let budget = 1 << 20;
        let mut t = Table::<3>::new(budget);
        let room = t.room();
        assert_eq!(room, budget - t.bytes());
        assert!(!t.take_refused(), "a fresh table was refused");
        let loan = room / 2;
        t.lend(loan);
        assert_eq!(t.room(), room - loan);
        let fill = |t: &mut Table<3>, keys: std::ops::Range<u64>| {
            for i in keys {
                if let Entry::Stored(s) = t.enter(&key(i)) {
                    t.unpin(s, || key(i));
                }
            }
        };
        fill(&mut t, 0..100_000);
        assert!(t.replaced() > 0, "the table never filled");
        assert!(
            t.bytes() <= budget - loan,
            "{} > {}",
            t.bytes(),
            budget - loan
        );
        assert!(t.take_refused(), "no refusal while replacing");
        assert!(!t.take_refused(), "a refusal was reported twice");
        let full = t.bytes();
        t.grant(loan);
        fill(&mut t, 100_000..140_000);
        assert!(
            t.bytes() > full,
            "the table did not grow into the loan given back"
        );
        assert!(t.bytes() <= budget, "{} > {}", t.bytes(), budget);
    }

    #[test]
    fn threads_share_one_table() {
        let t = Table::<3>::new(1 << 28);
        let stored = AtomicU64::new(0);
        std::thread::scope(|sc| {
            for _ in 0..2 {
                sc.spawn(|| {
                    for i in 0..50_000 {
                        if let Entry::Stored(s) = t.enter_shared(&key(i)) {
                            stored.fetch_add(1, Ordering::Relaxed);
                            t.unpin_shared(s, || key(i));
                        }
                    }
                });
            }
        });
        // Each key stored by exactly one of the two threads.
        assert_eq!(stored.load(Ordering::Relaxed), 50_000);
        assert_eq!(t.len(), 50_000);
    }
}
