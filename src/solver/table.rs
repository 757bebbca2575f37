//! The transposition table: a bounded, exact set of the states the search has entered.
//!
//! - Slots hold exact keys, `[u64; W]` (24 bytes for the classic games), so a lookup never
//!   mistakes one position for another: an `unsolvable` verdict never rests on a hash match.
//! - Beside each slot is a one-byte tag drawn from the key's hash (0 marks an empty slot).
//!   A probe scans the tags — 32 of them are half a cache line — and reads a key only where
//!   the tag matches, so a miss costs one cache line instead of a dozen.
//! - Multiply-shift indexing takes the top bits of a mixed hash; a key lives within
//!   [`PROBE`] slots of its home (linear probing, no wrap: the arrays have `PROBE` spare slots
//!   at the end).
//! - The table starts small and doubles (rehashing) while the memory budget allows, keeping
//!   the load under 7/8. At the budget it *replaces*: a new key takes the place of an
//!   unpinned key in its window. A lost entry costs time (that state may be searched again),
//!   never a wrong verdict, because an entry only ever means "already entered".
//! - States on the current search path are *pinned* (one bit each) and never replaced, so a
//!   cycle back into the path is always seen and the search cannot loop.

/// How far from its home slot a key may live.
pub const PROBE: usize = 128;

/// Most slots of the recent-key cache (see [`Table::enter`]): 2^15 keys, under a megabyte,
/// so it stays in the second-level cache while the table proper is far larger than any
/// cache. It never takes more than an eighth of the memory budget.
const RECENT_BITS: u32 = 15;

/// Result of [`Table::enter`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// The key was already there.
    Present,
    /// The key was stored, pinned, at this slot.
    Stored(usize),
    /// No room: the budget is reached and every slot of the window is pinned.
    NoRoom,
}

/// Exact key set with pins; see the module docs.
pub struct Table<const W: usize> {
    recent: Vec<[u64; W]>,
    recent_mask: usize,
    slots: Vec<[u64; W]>,
    tags: Vec<u8>,
    pins: Vec<u64>,
    bits: u32,
    len: usize,
    peak_len: usize,
    max_bits: u32,
    epoch: u32,
    replaced: u64,
    peak_bytes: usize,
}

#[inline]
fn mix(key: &[u64]) -> u64 {
    let mut h: u64 = 0x243F_6A88_85A3_08D3;
    for &w in key {
        h = (h ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= h >> 29;
    }
    h.wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ (h >> 32)
}

#[inline]
fn tag_of(h: u64) -> u8 {
    (h as u8).max(1)
}

/// Asks the kernel to back a large table with 2 MiB pages: table probes land at random, and
/// with 4 KiB pages nearly every probe of a big table also misses the TLB. Only a hint; where
/// it is refused nothing changes.
fn advise_huge_pages<T>(v: &mut [T]) {
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

impl<const W: usize> Table<W> {
    /// Bytes one slot takes: the key, its tag and its pin bit (rounded up).
    pub const SLOT_BYTES: usize = 8 * W + 2;

    /// A table that may grow to `max_bytes`.
    pub fn new(max_bytes: usize) -> Table<W> {
        let recent_len = (max_bytes / 8 / (8 * W)).clamp(64, 1 << RECENT_BITS);
        let recent_len = 1usize << (usize::BITS - 1 - recent_len.leading_zeros());
        let max_bytes = max_bytes.saturating_sub(recent_len * 8 * W);
        let per_slot_bits = (8 * W as u64 + 1) * 8 + 1; // key, tag, pin
        let max_slots = (max_bytes as u64 * 8 / per_slot_bits).max(1 << 10);
        let max_bits = 63 - max_slots.leading_zeros();
        let mut t = Table {
            recent: vec![[0u64; W]; recent_len],
            recent_mask: recent_len - 1,
            slots: Vec::new(),
            tags: Vec::new(),
            pins: Vec::new(),
            bits: 0,
            len: 0,
            peak_len: 0,
            max_bits,
            epoch: 0,
            replaced: 0,
            peak_bytes: 0,
        };
        t.alloc(max_bits.min(16));
        t
    }

    fn alloc(&mut self, bits: u32) {
        let n = (1usize << bits) + PROBE;
        self.slots = vec![[0u64; W]; n];
        advise_huge_pages(&mut self.slots);
        self.tags = vec![0u8; n];
        self.pins = vec![0u64; n.div_ceil(64)];
        self.bits = bits;
        self.peak_bytes = self.peak_bytes.max(self.bytes());
    }

    /// Forgets every key but keeps the allocation (only the tags and pins are cleared).
    pub fn clear(&mut self) {
        self.recent.fill([0; W]);
        self.tags.fill(0);
        self.pins.fill(0);
        self.len = 0;
        self.epoch = self.epoch.wrapping_add(1);
    }

    /// Bytes allocated now.
    pub fn bytes(&self) -> usize {
        (self.slots.len() + self.recent.len()) * 8 * W + self.tags.len() + self.pins.len() * 8
    }

    /// Largest allocation so far (during a rehash both tables exist; this counts both).
    pub fn peak_bytes(&self) -> usize {
        self.peak_bytes
    }

    /// Keys stored now.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Most keys stored at once since the table was made (across clears).
    pub fn peak_len(&self) -> usize {
        self.peak_len
    }

    /// True if nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Keys replaced since the table reached its budget.
    pub fn replaced(&self) -> u64 {
        self.replaced
    }

    /// Changes whenever slots move or are forgotten; a slot index from another epoch is stale.
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    #[inline]
    fn home(&self, h: u64) -> usize {
        (h >> (64 - self.bits)) as usize
    }

    #[inline]
    fn pinned(&self, i: usize) -> bool {
        self.pins[i / 64] >> (i % 64) & 1 == 1
    }

    #[inline]
    fn set_pin(&mut self, i: usize, on: bool) {
        if on {
            self.pins[i / 64] |= 1 << (i % 64);
        } else {
            self.pins[i / 64] &= !(1 << (i % 64));
        }
    }

    #[inline]
    fn put(&mut self, i: usize, tag: u8, key: &[u64; W]) {
        self.slots[i] = *key;
        self.tags[i] = tag;
        self.set_pin(i, true);
    }

    /// Looks `key` up; if absent, stores it pinned (growing or replacing as needed).
    ///
    /// A small direct-mapped cache of recently entered keys is asked first: most positions
    /// the search meets again are transpositions of ones it entered moments ago, and the cache
    /// answers those without touching the big arrays. It holds only keys that were entered,
    /// so its "present" is always true (an entry the table has since replaced was still
    /// entered once, which is all "present" means); it is emptied with the table.
    #[inline]
    pub fn enter(&mut self, key: &[u64; W]) -> Entry {
        let h = mix(key);
        let r = (h as usize >> 8) & self.recent_mask;
        if &self.recent[r] == key {
            return Entry::Present;
        }
        self.recent[r] = *key;
        let tag = tag_of(h);
        loop {
            let home = self.home(h);
            let mut free = None;
            for i in home..home + PROBE {
                let t = self.tags[i];
                if t == 0 {
                    free = Some(i);
                    break;
                }
                if t == tag && &self.slots[i] == key {
                    return Entry::Present;
                }
            }
            match free {
                Some(i) => {
                    if self.len + 1 > (7usize << self.bits) / 8 && self.bits < self.max_bits {
                        self.grow();
                        continue;
                    }
                    self.put(i, tag, key);
                    self.len += 1;
                    self.peak_len = self.peak_len.max(self.len);
                    return Entry::Stored(i);
                }
                None if self.bits < self.max_bits => self.grow(),
                None => return self.replace(home, h, tag, key),
            }
        }
    }

    /// The window is full and the table may not grow: overwrite an unpinned key, starting the
    /// scan at a point drawn from the hash so that no slot of the window is favoured.
    fn replace(&mut self, home: usize, h: u64, tag: u8, key: &[u64; W]) -> Entry {
        let start = (h >> 8) as usize % PROBE;
        for k in 0..PROBE {
            let i = home + (start + k) % PROBE;
            if !self.pinned(i) {
                self.put(i, tag, key);
                self.replaced += 1;
                return Entry::Stored(i);
            }
        }
        Entry::NoRoom
    }

    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        let old_tags = std::mem::take(&mut self.tags);
        let old_pins = std::mem::take(&mut self.pins);
        let old_bytes = old.len() * 8 * W + old_tags.len() + old_pins.len() * 8;
        let mut bits = self.bits + 1;
        'retry: loop {
            self.alloc(bits);
            self.peak_bytes = self.peak_bytes.max(self.bytes() + old_bytes);
            for (j, k) in old.iter().enumerate() {
                if old_tags[j] == 0 {
                    continue;
                }
                let home = self.home(mix(k));
                let Some(i) = (home..home + PROBE).find(|&i| self.tags[i] == 0) else {
                    // A window overflowed at under half load: vanishingly rare; go bigger.
                    bits += 1;
                    continue 'retry;
                };
                self.slots[i] = *k;
                self.tags[i] = old_tags[j];
                if old_pins[j / 64] >> (j % 64) & 1 == 1 {
                    self.set_pin(i, true);
                }
            }
            break;
        }
        self.epoch = self.epoch.wrapping_add(1);
    }

    /// Finds the slot of `key`, if stored.
    pub fn find(&self, key: &[u64; W]) -> Option<usize> {
        let h = mix(key);
        let tag = tag_of(h);
        let home = self.home(h);
        (home..home + PROBE)
            .take_while(|&i| self.tags[i] != 0)
            .find(|&i| self.tags[i] == tag && &self.slots[i] == key)
    }

    /// Unpins the key at `slot` (the search has left that state).
    #[inline]
    pub fn unpin(&mut self, slot: usize) {
        self.set_pin(slot, false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(i: u64) -> [u64; 3] {
        [i + 1, i.wrapping_mul(7), 3]
    }

    #[test]
    fn grows_keeps_every_key_and_pins_survive() {
        let mut t = Table::<3>::new(1 << 30);
        for i in 0..100_000 {
            assert!(matches!(t.enter(&key(i)), Entry::Stored(_)));
        }
        for i in 0..100_000 {
            assert_eq!(t.enter(&key(i)), Entry::Present);
        }
        assert_eq!(t.len(), 100_000);
        assert_eq!(t.replaced(), 0);
        t.clear();
        assert!(t.is_empty());
        assert!(matches!(t.enter(&key(5)), Entry::Stored(_)));
    }

    #[test]
    fn a_full_table_replaces_only_unpinned_keys() {
        let mut t = Table::<3>::new(64 * 1024);
        let mut pinned = Vec::new();
        for i in 0..20_000u64 {
            match t.enter(&key(i)) {
                Entry::Stored(s) => {
                    if i % 50 == 0 {
                        pinned.push(i);
                    } else {
                        t.unpin(s);
                    }
                }
                Entry::Present => panic!("fresh key reported present"),
                Entry::NoRoom => {}
            }
        }
        assert!(t.replaced() > 0, "the small table never filled");
        assert!(t.bytes() <= 64 * 1024 + Table::<3>::SLOT_BYTES * PROBE + 64);
        for i in pinned {
            assert!(t.find(&key(i)).is_some(), "pinned key {i} was replaced");
        }
    }
}
