//! The quotient's tables of positions: eight parts that grow one at a time, multiply-shift
//! indexing, each slot a key and its place in Tarjan's order.

use super::*;

/// A map from exact keys of `W` words to a `u32`, in [`PARTS`] open-addressing parts chosen
/// by the key's hash, each growing on its own (see [`Part`]). The value is the position's
/// place in Tarjan's order while its component is open, [`PROVED`] once it is closed (see
/// "Proofs that outlive a run" in the module docs). A slot names its part and its place there
/// ([`SLOT_BITS`]).
///
/// A part that doubles holds its old and new arrays at once; with one array for the whole
/// table a run could fill at most a third of its budget (sa 99776's run with 17 cards kept
/// was refused a growth at 9,072 of 12,000 MiB). With eight parts a growth needs an eighth of
/// that room, and the parts, filled evenly by the hash, grow one after the other.
pub(super) struct Table<const W: usize> {
    pub(super) parts: Vec<Part<W>>,
}

/// One part of a [`Table`]: linear probing on the hash's bits below the part's own (the
/// all-zero key marks an empty slot, and every key starts with a one bit).
pub(super) struct Part<const W: usize> {
    pub(super) slots: Vec<[u64; W]>,
    pub(super) vals: Vec<u32>,
    pub(super) len: usize,
    pub(super) shift: u32,
}

/// Parts of a [`Table`]: the hash's top `PART_BITS` bits choose one.
pub(super) const PART_BITS: u32 = 3;
pub(super) const PARTS: usize = 1 << PART_BITS;
/// A [`Table`]'s slot is its part's number shifted by `SLOT_BITS`, plus the place in the part.
pub(super) const SLOT_BITS: u32 = 56;
/// The place in the part, of a [`Table`]'s slot.
pub(super) const SLOT_PLACE: usize = (1 << SLOT_BITS) - 1;
/// Slots of a part's first array: the parts of a table start as one array of 4,096 did, the
/// size of most of a deal's short runs.
pub(super) const PART_FIRST: usize = (1 << 12) / PARTS;

#[inline]
pub(super) fn hash_words(words: &[u64]) -> u64 {
    use crate::state::{fold_key, Stir, KEY_HASH_MUL, KEY_HASH_MUL2, KEY_HASH_SEED};
    let h = fold_key(words, KEY_HASH_SEED, KEY_HASH_MUL, Stir::XorShift(32));
    let h = h.wrapping_mul(KEY_HASH_MUL2);
    h ^ h >> 32
}

/// A slot's bytes: the key and its value.
pub(super) const fn slot_bytes(words: usize) -> usize {
    words * 8 + 4
}

impl<const W: usize> Part<W> {
    pub(super) fn new() -> Self {
        Part {
            slots: Vec::new(),
            vals: Vec::new(),
            len: 0,
            shift: 64,
        }
    }

    pub(super) fn bytes(&self) -> usize {
        self.slots.len() * W * 8 + self.vals.len() * 4
    }

    /// Bytes after the next growth.
    pub(super) fn grown_bytes(&self) -> usize {
        (self.slots.len() * 2).max(PART_FIRST) * slot_bytes(W)
    }

    pub(super) fn needs_growth(&self) -> bool {
        (self.len + 1) * 4 > self.slots.len() * 3
    }

    /// An empty part of `cap` slots (a power of two), with values if `vals`.
    pub(super) fn with_capacity(cap: usize, vals: bool) -> Self {
        let mut p = Part::new();
        p.slots = vec![[0; W]; cap];
        advise_huge_pages(&mut p.slots);
        if vals {
            p.vals = vec![0; cap];
            advise_huge_pages(&mut p.vals);
        }
        p.shift = 64 - cap.trailing_zeros();
        p
    }

    /// Doubles the part; returns its old keys (by their old places).
    pub(super) fn grow(&mut self) -> Vec<[u64; W]> {
        let cap = (self.slots.len() * 2).max(PART_FIRST);
        let fresh = Part::with_capacity(cap, true);
        let old = std::mem::replace(self, fresh);
        for (key, &v) in old.slots.iter().zip(&old.vals) {
            if key[0] != 0 {
                let at = self.place(key, hash_words(key) << PART_BITS);
                self.vals[at] = v;
                self.len += 1;
            }
        }
        old.slots
    }

    /// The place holding `key` (`h`: its hash without the part's bits), or the empty place
    /// where it would go; true if it holds it.
    #[inline]
    pub(super) fn find(&self, key: &[u64; W], h: u64) -> (usize, bool) {
        if self.slots.is_empty() {
            return (0, false);
        }
        let mask = self.slots.len() - 1;
        let mut i = (h >> self.shift) as usize;
        loop {
            let slot = &self.slots[i];
            if slot[0] == 0 {
                return (i, false);
            }
            if slot == key {
                return (i, true);
            }
            i = (i + 1) & mask;
        }
    }

    /// Puts a key not in the part at its empty place; returns the place.
    #[inline]
    pub(super) fn place(&mut self, key: &[u64; W], h: u64) -> usize {
        let (i, there) = self.find(key, h);
        debug_assert!(!there);
        self.slots[i] = *key;
        i
    }

    /// The part of this one's keys whose value is [`PROVED`], without values.
    pub(super) fn proved_only(mut self) -> Self {
        let n = self.vals.iter().filter(|&&v| v == PROVED).count();
        if n == self.len {
            self.vals = Vec::new();
            return self;
        }
        if n == 0 {
            return Part::new();
        }
        let mut cap = PART_FIRST;
        while (n + 1) * 4 > cap * 3 {
            cap *= 2;
        }
        let mut t = Part::with_capacity(cap, false);
        for (key, &v) in self.slots.iter().zip(&self.vals) {
            if key[0] != 0 && v == PROVED {
                t.place(key, hash_words(key) << PART_BITS);
                t.len += 1;
            }
        }
        t
    }
}

impl<const W: usize> Table<W> {
    pub(super) fn new() -> Self {
        Table {
            parts: (0..PARTS).map(|_| Part::new()).collect(),
        }
    }

    pub(super) fn bytes(&self) -> usize {
        self.parts.iter().map(Part::bytes).sum()
    }

    /// Keys held.
    pub(super) fn len(&self) -> usize {
        self.parts.iter().map(|p| p.len).sum()
    }

    /// The part that holds a key of hash `h` (`hash_words` of the key).
    #[inline]
    pub(super) fn part_of(h: u64) -> usize {
        (h >> (64 - PART_BITS)) as usize
    }

    /// Bytes part `part` holds after its next growth.
    pub(super) fn grown_bytes(&self, part: usize) -> usize {
        self.parts[part].grown_bytes()
    }

    pub(super) fn needs_growth(&self, part: usize) -> bool {
        self.parts[part].needs_growth()
    }

    /// Doubles part `part`; returns its old keys (by their old places) so that the caller can
    /// find where the ones it holds by slot went.
    pub(super) fn grow(&mut self, part: usize) -> Vec<[u64; W]> {
        self.parts[part].grow()
    }

    /// The slot holding `key`, or the empty slot where it would go; true if it holds it.
    #[inline]
    pub(super) fn find(&self, key: &[u64; W]) -> (usize, bool) {
        self.find_hashed(key, hash_words(key))
    }

    /// [`Table::find`] of a key whose hash `h` is known.
    #[inline]
    pub(super) fn find_hashed(&self, key: &[u64; W], h: u64) -> (usize, bool) {
        let part = Self::part_of(h);
        let (i, there) = self.parts[part].find(key, h << PART_BITS);
        (part << SLOT_BITS | i, there)
    }

    /// Inserts `key` of hash `h`; its slot, and true if it was new. The caller grows its
    /// part first when [`Table::needs_growth`].
    #[inline]
    pub(super) fn insert(&mut self, key: &[u64; W], h: u64) -> (usize, bool) {
        debug_assert!(key[0] != 0);
        let (slot, there) = self.find_hashed(key, h);
        if !there {
            let p = &mut self.parts[slot >> SLOT_BITS];
            p.slots[slot & SLOT_PLACE] = *key;
            p.len += 1;
        }
        (slot, !there)
    }

    /// The value at `slot` (a slot [`Table::find`] or [`Table::insert`] gave).
    #[inline]
    pub(super) fn val(&mut self, slot: usize) -> &mut u32 {
        &mut self.parts[slot >> SLOT_BITS].vals[slot & SLOT_PLACE]
    }

    /// The table of this one's proved keys alone (see [`PROVED`]), each part sized for them
    /// as [`Table::needs_growth`] would grow it, without values (every key it holds is proved:
    /// [`Table::find`] answers). While a part is built both its arrays are held.
    pub(super) fn proved_only(self) -> Self {
        Table {
            parts: self.parts.into_iter().map(Part::proved_only).collect(),
        }
    }

    /// True if no part holds values (see [`Table::proved_only`]).
    #[cfg(test)]
    pub(super) fn has_values(&self) -> bool {
        self.parts.iter().any(|p| !p.vals.is_empty())
    }

    /// Asks the processor to bring the first slot of a key of hash `h` into the cache
    /// ([`prefetch`]: a hint, it changes no result), so that the lookups of one position in
    /// several tables wait for memory together instead of one after the other.
    #[inline]
    pub(super) fn prefetch(&self, h: u64) {
        let p = &self.parts[Self::part_of(h)];
        if !p.slots.is_empty() {
            prefetch(&p.slots[((h << PART_BITS) >> p.shift) as usize]);
        }
    }
}
