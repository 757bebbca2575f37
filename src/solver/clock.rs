//! The one clock of a solve's searches: its deadline and its stop flag, asked by every
//! engine that can be cut short (the best-first passes, the swarm, the quotient's runs, the
//! layered search). `shorten.rs` keeps a clock of its own that asks the time only every few
//! calls, since its steps ask once a move.

use super::Limit;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// What ends a search early whatever its node budget: the solve's deadline, and its stop flag
/// ([`super::Solver::stop`]; the layered search reads it too), which ends it as the deadline does.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Clock<'a> {
    /// Wall-clock end, if any.
    pub deadline: Option<Instant>,
    /// The solve's stop flag, if any.
    pub stop: Option<&'a AtomicBool>,
}

impl Clock<'_> {
    /// True once the deadline has passed.
    pub fn deadline_passed(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// True once the stop flag is up.
    pub fn stopped(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// True once the deadline has passed or the stop flag is up (a best-first pass then
    /// ends cut by [`Clock::cut`]).
    pub fn out_of_time(&self) -> bool {
        self.deadline_passed() || self.stopped()
    }

    /// The limit that cut a search that found [`Clock::out_of_time`]: `Stopped` while the
    /// stop flag is up, else `Seconds` (the order `Solver::clock_limit` reads the solve's own
    /// clock in, so an engine's cut and the solve's outcome name the same limit).
    pub fn cut(&self) -> Limit {
        if self.stopped() {
            Limit::Stopped
        } else {
            Limit::Seconds
        }
    }
}
