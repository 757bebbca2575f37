//! The positions earlier runs proved lost, kept for the runs after them (see "Proofs that
//! outlive a run" in [`super`]).

use super::*;

/// Most earlier runs the quotient's store of proofs keeps ([`Proved::keep_best`]): the oldest,
/// the newest, and the largest (performance log, "The schedule's constants", PROOF_RUNS).
pub(super) const PROOF_RUNS: usize = 4;

/// A [`Table`] value: the position's component is closed, and it is lost (see "Proofs that
/// outlive a run" in the module docs).
pub(super) const PROVED: u32 = u32::MAX;
/// [`Frame::index`] of a position with a safe move.
pub(super) const UNSTORED: u32 = u32::MAX;

/// The positions earlier runs on one deal proved lost, kept for the runs after them (see
/// "Proofs that outlive a run" in the module docs): each run's tables, with the window and
/// kept cards it ran with. A run with a window at least as wide and every card they kept
/// kept skips a position whose image under an earlier run's abstraction that run proved.
#[derive(Default)]
pub struct Proved {
    pub(super) runs: Vec<Level>,
}

/// One earlier run's tables (see [`Proved`]).
pub(super) struct Level {
    pub(super) k: u8,
    pub(super) dealt: bool,
    pub(super) kept: u64,
    /// Positions it proved lost.
    pub(super) proofs: usize,
    pub(super) codes: Codes,
    pub(super) main: Table<MAIN_WORDS>,
    pub(super) long: Table<LONG_WORDS>,
}

impl Level {
    pub(super) fn bytes(&self) -> usize {
        self.main.bytes() + self.long.bytes()
    }

    /// True if a run with window `k`, refinement `dealt` and kept cards `kept` may use this
    /// run's proofs: its abstraction keeps everything this one keeps.
    pub(super) fn coarser_than(&self, k: u8, dealt: bool, kept: u64) -> bool {
        self.dealt == dealt && self.k <= k && self.kept & !kept == 0
    }

    /// The key of `a`'s image under this run's abstraction: `a` with every card this run
    /// would not have fixed made unfixed (see "Proofs that outlive a run"); `words` and
    /// `bits` are `a`'s own key, the image's when the abstraction is the same.
    ///
    /// # Errors
    /// [`Broken::Code`], as [`key_of`].
    pub(super) fn key(
        &mut self,
        a: &Abs,
        words: &[u64; LONG_WORDS + 1],
        bits: usize,
    ) -> Result<([u64; LONG_WORDS + 1], usize), Broken> {
        if self.k == a.k && self.kept == a.kept {
            return Ok((*words, bits));
        }
        let mut b = a.clone();
        b.k = self.k;
        b.kept = self.kept;
        let (f, k, kept_cards) = (b.f, self.k, self.kept);
        for i in 0..b.n {
            let l = b.len[i] as usize;
            for c in &mut b.pile[i][..l] {
                let (rank, tag) = (*c >> 3, *c & 7);
                // A card not home is fixed here as in `Abs::symbol_of`.
                if tag < UNFIXED && !(rank <= f[tag as usize] + k || kept(kept_cards, rank, tag)) {
                    *c = sym(rank, UNFIXED);
                }
            }
        }
        key_of(&b, &mut self.codes)
    }

    /// [`Table::prefetch`] of the table that would hold a key of `bits` bits; returns the
    /// key's hash there, for [`Level::holds`].
    #[inline]
    pub(super) fn prefetch(&self, words: &[u64; LONG_WORDS + 1], bits: usize) -> u64 {
        if bits <= MAIN_WORDS * 64 {
            let h = hash_words(&words[..MAIN_WORDS]);
            self.main.prefetch(h);
            h
        } else {
            let h = hash_words(&words[..LONG_WORDS]);
            if bits <= LONG_WORDS * 64 {
                self.long.prefetch(h);
            }
            h
        }
    }

    /// True if this run proved lost the position of key `words` (of `bits` bits and hash `h`,
    /// from [`Level::key`] and [`Level::prefetch`]): its tables hold proved keys alone
    /// ([`Table::proved_only`]).
    #[inline]
    pub(super) fn holds(&self, words: &[u64; LONG_WORDS + 1], bits: usize, h: u64) -> bool {
        if bits <= MAIN_WORDS * 64 {
            let key = words[..MAIN_WORDS].try_into().expect("words");
            self.main.find_hashed(key, h).1
        } else {
            let key = words[..LONG_WORDS].try_into().expect("words");
            bits <= LONG_WORDS * 64 && self.long.find_hashed(key, h).1
        }
    }
}

impl Proved {
    /// No run yet.
    pub fn new() -> Self {
        Proved::default()
    }

    /// Bytes the kept runs' tables hold.
    pub fn bytes(&self) -> usize {
        self.runs.iter().map(Level::bytes).sum()
    }

    /// Runs kept.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Keeps at most [`PROOF_RUNS`] runs: the oldest (the coarsest), the newest, and of the
    /// others those that proved the most positions (dropping a run's proofs only makes the
    /// next runs skip less).
    pub(super) fn keep_best(&mut self) {
        while self.runs.len() > PROOF_RUNS {
            let newest = self.runs.len() - 1;
            let worst = (1..newest)
                .min_by_key(|&i| self.runs[i].proofs)
                .expect("more than one run");
            self.runs.remove(worst);
        }
    }

    /// Forgets every run (the runs after it search without their proofs: slower, as sound).
    pub fn clear(&mut self) {
        self.runs.clear();
    }
}
