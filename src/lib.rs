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
//! - [`state`]: the packed search position and its exact, pile-order-free key.
//! - [`solver`]: the depth-first search and its bounded transposition table.
//! - [`check`]: the independent move checker.
//! - [`shorten`]: solution shortening on the checker's boards.
//! - [`verify`]: `castle verify`, a solve report or fc-solve's output replayed.
//! - [`report`]: the JSON contract (and the JSON of `deal` and `analyze`).
//! - [`render`]: the text a player reads (board, moves, results).
//! - [`analyze`]: every legal move from a position with the verdict after it.
//! - [`batch`]: seed ranges solved in parallel into resumable CSV rows.
//! - [`stats`]: batch rows merged and summarised (win rates, quantiles).
//! - [`mod@bench`]: the fixed benchmark sets and the tables of `castle bench`.
//! - [`error`]: the error of the library's commands ([`Error`]).
//! - [`peer`]: fc-solve, the peer solver, run on the same deals (`castle bench --peer`).
//! - [`play`]: `castle play`, the game in a terminal with the solver as a coach.
#![deny(missing_docs)]

pub mod analyze;
pub mod batch;
pub mod bench;
pub mod card;
pub mod check;
pub mod deal;
pub mod error;
pub mod formats;
pub mod moves;
pub mod peer;
pub mod play;
pub mod pysol;
pub mod render;
pub mod report;
pub mod rules;
pub mod shorten;
pub mod solver;
pub mod state;
pub mod stats;
pub mod verify;

pub use card::{Card, Suit};
pub use deal::Deal;
pub use error::Error;
pub use rules::{Rules, Variant};
pub use solver::{Limit, Limits, Outcome, Phase, SolveError, Solver, Verdict};
pub use state::Pruning;

/// Bad input from a person or a file: the message names the file, line, card or flag at
/// fault. The command-line tool exits with code 2 for these.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);
