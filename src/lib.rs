//! # castle
//!
//! An exact solver for the Beleaguered Castle family of patience games: every verdict is
//! either a winning move list (checked by an independent replayer) or a proof that no win
//! exists; a search that runs out of budget says `unknown`, never `unsolvable`.
//!
//! - [`card`]: the packed [`Card`].
//! - [`rules`]: each variant as data ([`Rules`], [`Variant`]).
//! - [`deal`]: the numbered shuffle and deal validation.
//! - [`pysol`]: PySolFC's game numbers (MS LCG below 32000, MT19937 above) for 3 variants.
//! - [`formats`]: deal files (text, fc-solve, Solvitaire/own JSON).
//! - [`pile`]: pile names (`t1`, `r1`, `f`, `s`, `w`), the one [`pile::Pile`] type.
//! - [`state`]: the packed search position and its exact, pile-order-free key.
//! - [`solver`]: the depth-first search and its bounded transposition table.
//! - [`check`]: the independent move checker.
//! - [`shorten`]: solution shortening on the checker's boards.
//! - [`report`]: the JSON contract and the text rendering.
//! - [`mod@bench`]: the fixed benchmark sets behind `castle bench`.
//! - [`peer`]: fc-solve, the peer solver, run on the same deals (`castle bench --peer`).
//! - [`play`]: `castle play`, the game in a terminal with the solver as a coach.
#![deny(missing_docs)]

pub mod analyze;
pub mod batch;
pub mod bench;
pub mod card;
pub mod check;
pub mod deal;
pub mod formats;
pub mod moves;
pub mod peer;
pub mod pile;
pub mod play;
pub mod pysol;
pub mod report;
pub mod rules;
pub mod shorten;
pub mod solver;
pub mod state;

pub use card::{Card, Suit};
pub use deal::Deal;
pub use rules::{Rules, Variant};
pub use solver::{Limit, Limits, Outcome, Phase, Solver, Verdict};
pub use state::Pruning;

/// Bad input from a person or a file: the message names the file, line, card or flag at
/// fault. The command-line tool exits with code 2 for these.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);
