//! The solve's memory ledger: what the exact search's table and its search paths hold of
//! `--memory`, shared by every thread of the solve (docs/design.md, "The memory budget").
//! The table charges its segments here, the paths their buffers; the other phases get what
//! the ledger has not given out (`Table::room`).

use std::sync::atomic::{AtomicUsize, Ordering};

/// The solve's memory account: the table's segments, and the search paths that share its
/// budget (see [`super::table::Table::charge_path`]).
pub(super) struct Ledger {
    pub(super) max: usize,
    /// Table bytes allocated.
    pub(super) used: AtomicUsize,
    pub(super) peak: AtomicUsize,
    /// Bytes the search paths have taken (they never give any back: a path's buffers keep
    /// their pages from one attempt to the next).
    pub(super) path: AtomicUsize,
    /// Room the table always leaves for the paths (at least `slack`: the table itself never
    /// goes past `max`).
    pub(super) reserve: usize,
    /// How far the paths may go past `max` (a floor for tiny budgets).
    pub(super) slack: usize,
    /// The table has been refused a growth since [`super::table::Table::take_refused`] last asked.
    pub(super) refused: std::sync::atomic::AtomicBool,
}

impl Ledger {
    /// Takes `add` bytes (a new allocation made while the old one still exists) if both
    /// together stay within the budget, leaving the paths what they hold or the reserve.
    pub(super) fn grow(&self, add: usize) -> bool {
        let mut used = self.used.load(Ordering::Relaxed);
        loop {
            let paths = self.path.load(Ordering::Relaxed).max(self.reserve);
            if used + add + paths > self.max + self.slack {
                self.refused.store(true, Ordering::Relaxed);
                return false;
            }
            match self.used.compare_exchange_weak(
                used,
                used + add,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    self.peak.fetch_max(used + add, Ordering::Relaxed);
                    return true;
                }
                Err(u) => used = u,
            }
        }
    }

    pub(super) fn release(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::Relaxed);
    }
}
