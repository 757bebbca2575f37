//! A search thread's open states that its recent-key cache no longer holds (see "Proofs that
//! outlive an attempt" in `search.rs`), found by key.
//!
//! The keys themselves already sit on the thread's open stack, in entry order, so this set
//! stores only where: one `u64` per state, the state's position on the open stack plus one
//! (low half; 0 marks an empty slot) and 32 bits of the key's hash (high half, which also
//! gives the home slot), in a linear probing array between 3/8 and 3/4 full (it doubles when
//! full): 11 to 21 bytes per open state, against 29 to 57 for an `ahash` map of key to index
//! (a copy of the key, the index and a control byte, 25 bytes, at a load between 7/16 and
//! 7/8). A lookup compares the hash bits first and reads the open stack only when
//! they match, so a miss rarely touches the stack; a match is always confirmed on the full key,
//! so the set never answers for a key it does not hold.

/// See the module docs.
#[derive(Default)]
pub(super) struct OpenSet {
    slots: Vec<u64>,
    len: usize,
}

/// Slots from which [`OpenSet::prefetch`] loads ahead: 512 KiB of slots, half a core's
/// second-level cache here; a smaller set mostly stays in the caches.
const PREFETCH_FROM: usize = 1 << 16;

/// The key's hash; its top half is both the entry's check bits and its home slot.
#[inline]
fn hash<const W: usize>(key: &[u64; W]) -> u64 {
    use crate::state::{fold_key, Stir, KEY_HASH_MUL, KEY_HASH_MUL2, KEY_HASH_SEED};
    let h = fold_key(key, KEY_HASH_SEED, KEY_HASH_MUL2, Stir::XorShift(29));
    h.wrapping_mul(KEY_HASH_MUL) & !0xFFFF_FFFF
}

/// The position on the open stack an entry points at.
#[inline]
fn pos_of(s: u64) -> usize {
    (s as u32 - 1) as usize
}

impl OpenSet {
    /// Entries held.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Bytes the set holds (every slot was written, so all of them are resident).
    pub fn bytes(&self) -> usize {
        std::mem::size_of_val(&self.slots[..])
    }

    /// An entry's home slot, from its stored hash bits alone: moving entries (deletion,
    /// growth) never reads the open stack, so an entry whose position has since been popped
    /// (see [`Self::remove_pos`]) cannot upset the probe order.
    #[inline]
    fn home(&self, s: u64) -> usize {
        (s >> 32) as usize & (self.slots.len() - 1)
    }

    /// The slot holding `key`'s entry, if any.
    #[inline]
    fn find<const W: usize>(&self, keys: &[[u64; W]], key: &[u64; W]) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        let h = hash(key);
        let mask = self.slots.len() - 1;
        let mut i = self.home(h);
        loop {
            let s = self.slots[i];
            if s == 0 {
                return None;
            }
            if s & !0xFFFF_FFFF == h && keys.get(pos_of(s)) == Some(key) {
                return Some(i);
            }
            i = (i + 1) & mask;
        }
    }

    /// The position of the open stack `keys` that holds `key`, if the set has one (the full
    /// key is compared), leaving the entry in place.
    #[inline]
    pub fn position<const W: usize>(&self, keys: &[[u64; W]], key: &[u64; W]) -> Option<u32> {
        self.find(keys, key).map(|i| pos_of(self.slots[i]) as u32)
    }

    /// Takes `key` out of the set: a position of the open stack `keys` that holds it, if
    /// the set has one. The full key is compared, so the answer is never another state's.
    /// (The search leaves entries in place, [`Self::position`]; the tests take them out to
    /// check deletion.)
    #[cfg(test)]
    pub fn remove_key<const W: usize>(&mut self, keys: &[[u64; W]], key: &[u64; W]) -> Option<u32> {
        let i = self.find(keys, key)?;
        let pos = pos_of(self.slots[i]) as u32;
        self.delete(i);
        Some(pos)
    }

    /// Starts loading the slot where a lookup of `key` begins (a hint: it changes nothing),
    /// when the set is too big for the caches to hold it anyway.
    #[inline]
    pub fn prefetch<const W: usize>(&self, key: &[u64; W]) {
        if self.slots.len() >= PREFETCH_FROM {
            let i = self.home(hash(key));
            super::table::prefetch(self.slots.as_ptr().wrapping_add(i));
        }
    }

    /// Takes the entry of position `pos` of the open stack out of the set, if it holds one.
    ///
    /// An entry may outlive its position: a state entered twice (its table entry was
    /// replaced while it was open) has its earlier position superseded in the cache, and that
    /// one is never removed. Such an entry costs a slot until [`Self::clear`], and nothing
    /// else: homes come from the stored bits, and a lookup answers with a position only if
    /// the open stack holds the key asked for there now — then it *is* an open position of
    /// that state.
    #[inline]
    pub fn remove_pos<const W: usize>(&mut self, keys: &[[u64; W]], pos: u32) {
        if self.len == 0 {
            return;
        }
        let want = pos as u64 + 1;
        let mask = self.slots.len() - 1;
        let mut i = self.home(hash(&keys[pos as usize]));
        loop {
            let s = self.slots[i];
            if s == 0 {
                return;
            }
            if s & 0xFFFF_FFFF == want {
                self.delete(i);
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /// Empties slot `i`, shifting later entries of its probe run back so that no lookup
    /// stops short of them (deletion without tombstones).
    fn delete(&mut self, mut i: usize) {
        let mask = self.slots.len() - 1;
        let mut j = i;
        loop {
            j = (j + 1) & mask;
            let s = self.slots[j];
            if s == 0 {
                break;
            }
            let home = self.home(s);
            // The entry at `j` may fill the hole at `i` unless its home lies in (i, j].
            if (j.wrapping_sub(home) & mask) >= (j.wrapping_sub(i) & mask) {
                self.slots[i] = s;
                i = j;
            }
        }
        self.slots[i] = 0;
        self.len -= 1;
    }

    /// Holds `key`, the state at position `pos` of the open stack `keys` (passed apart, as the
    /// caller has it at hand: reading it back from the stack was a cache miss). An entry for
    /// the same key at another position is replaced: both positions stand for the same state,
    /// and the later one is searched in full like the first.
    pub fn insert<const W: usize>(&mut self, keys: &[[u64; W]], key: &[u64; W], pos: u32) {
        debug_assert!(&keys[pos as usize] == key);
        if self.growth_bytes().is_some() {
            self.grow();
        }
        let h = hash(key);
        let entry = h | (pos as u64 + 1);
        let mask = self.slots.len() - 1;
        let mut i = self.home(h);
        loop {
            let s = self.slots[i];
            if s == 0 {
                self.slots[i] = entry;
                self.len += 1;
                return;
            }
            if s & !0xFFFF_FFFF == h && keys.get(pos_of(s)) == Some(key) {
                self.slots[i] = entry;
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /// If the next [`OpenSet::insert`] grows the set: the bytes of the new array, which it
    /// holds beside the old one while it moves the entries over.
    #[inline]
    pub fn growth_bytes(&self) -> Option<usize> {
        ((self.len + 1) * 4 > self.slots.len() * 3)
            .then(|| (self.slots.len() * 2).max(64) * std::mem::size_of::<u64>())
    }

    fn grow(&mut self) {
        let n = (self.slots.len() * 2).max(64);
        let old = std::mem::replace(&mut self.slots, vec![0; n]);
        let mask = self.slots.len() - 1;
        for s in old.into_iter().filter(|&s| s != 0) {
            let mut i = self.home(s);
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }

    /// Forgets every entry (cheap when the set is already empty).
    pub fn clear(&mut self) {
        if self.len > 0 {
            self.slots.fill(0);
            self.len = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use std::collections::HashMap;

    /// Random inserts and removals, by key and by position, against a map, with keys drawn
    /// from a small pool so that repeats, growth and long probe runs happen; every growth is
    /// the one `growth_bytes` announced.
    #[test]
    fn agrees_with_a_map() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let mut grew = 0;
        for round in 0..20 {
            let mut keys: Vec<[u64; 2]> = Vec::new();
            let mut set = OpenSet::default();
            let mut model: HashMap<[u64; 2], u32> = HashMap::new();
            let pool = 50 + round * 40;
            for _ in 0..5000 {
                let key = [rng.gen_range(0..pool as u64), rng.gen_range(0..3)];
                match rng.gen_range(0..5) {
                    0 | 1 => {
                        keys.push(key);
                        let pos = keys.len() as u32 - 1;
                        // The growth the search charges for in advance is the one made.
                        let (before, growth) = (set.bytes(), set.growth_bytes());
                        set.insert(&keys, &key, pos);
                        model.insert(key, pos);
                        assert_eq!(set.bytes(), growth.unwrap_or(before));
                        grew += usize::from(growth.is_some());
                    }
                    2 => assert_eq!(set.remove_key(&keys, &key), model.remove(&key)),
                    3 => assert_eq!(set.position(&keys, &key), model.get(&key).copied()),
                    _ => {
                        if let Some(pos) = model.get(&key).copied() {
                            set.remove_pos(&keys, pos);
                            model.remove(&key);
                        }
                    }
                }
                assert_eq!(set.len(), model.len());
            }
            for (k, &pos) in &model {
                assert_eq!(
                    set.find(&keys, k).map(|i| pos_of(set.slots[i]) as u32),
                    Some(pos)
                );
            }
            set.clear();
            assert_eq!(set.remove_key(&keys, &keys[0].clone()), None);
        }
        assert!(grew >= 40, "the set grew only {grew} times");
    }

    /// A position that is no longer the entry for its key is not removed in its stead.
    #[test]
    fn removing_a_superseded_position_keeps_the_later_one() {
        let keys = vec![[5, 5], [6, 6], [5, 5]];
        let mut set = OpenSet::default();
        set.insert(&keys, &keys[0].clone(), 0);
        set.insert(&keys, &keys[1].clone(), 1);
        set.insert(&keys, &keys[2].clone(), 2);
        assert_eq!(set.len(), 2);
        set.remove_pos(&keys, 0);
        assert_eq!(set.len(), 2);
        assert_eq!(set.remove_key(&keys, &[5, 5]), Some(2));
        assert_eq!(set.remove_key(&keys, &[6, 6]), Some(1));
        assert_eq!(set.len(), 0);
    }

    /// An entry whose position was popped without removal stays harmless: a new state at
    /// that position is not taken for the old key, nor the old key for the new state.
    #[test]
    fn a_stale_entry_never_answers_for_another_state() {
        let mut keys = vec![[1, 1], [2, 2]];
        let mut set = OpenSet::default();
        set.insert(&keys, &keys[1].clone(), 1);
        keys.truncate(1);
        keys.push([3, 3]);
        assert_eq!(set.remove_key(&keys, &[2, 2]), None);
        assert_eq!(set.remove_key(&keys, &[3, 3]), None);
        set.insert(&keys, &keys[1].clone(), 1);
        assert_eq!(set.len(), 2);
        assert_eq!(set.remove_key(&keys, &[3, 3]), Some(1));
        assert_eq!(set.remove_key(&keys, &[3, 3]), None);
        set.clear();
        assert_eq!(set.len(), 0);
    }
}
