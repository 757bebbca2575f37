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
//! - [`verify`]: `castle verify`, a solve report or fc-solve's output replayed.
//! - [`report`]: the JSON contract (and the JSON of `deal` and `analyze`).
//! - [`render`]: the text a player reads (board, moves, results).
//! - [`html`]: the page that replays a line (`solve --format html`, `show`).
//! - [`analyze`]: every legal move from a position with the verdict after it.
//! - [`critical`]: the critical moves of a line (where only one or two moves keep the win).
//! - [`difficulty`]: the grade of a winnable deal (a simple player's playouts) and its tiers.
//! - [`winnable`]: winnable deals on demand, from the tables and beyond them by solving.
//! - [`batch`]: seed ranges solved in parallel into resumable CSV rows.
//! - [`stats`]: batch rows merged and summarised (win rates, quantiles).
//! - [`winrates`]: the published tables: one bit per deal and the win rates of `data/tables/`.
//! - [`mod@bench`]: the fixed benchmark sets and the tables of `castle bench`.
//! - [`text`]: input bytes to text (UTF-8 named by line and byte), long tokens cut in messages.
//! - [`error`]: the error of the library's commands ([`Error`]).
//! - [`peer`]: fc-solve, the peer solver, run on the same deals (`castle bench --peer`).
//! - [`play`]: `castle play`, the game in a terminal with the solver as a coach.
//! - `serve` (the `serve` feature): `castle serve`, the game in a browser, its HTTP API.
//!
//! # Examples
//!
//! Deal a numbered deal: deal 42 of Beleaguered Castle, the same on every machine and in every
//! release (`castle deal --seed 42`).
//!
//! ```
//! use castle::{Deal, Variant};
//!
//! let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 42);
//! assert_eq!(deal.tableau.len(), 8);
//! assert_eq!(deal.tableau[0].len(), 6);
//! assert_eq!(deal.tableau[0][0].to_string(), "QD");
//! assert!(deal.validate().is_ok());
//! ```
//!
//! Read a deal file's text: castle's text format, an fc-solve board or JSON, detected from the
//! text. The name given (here `board.fcs`) only labels error messages, which name the line and
//! card at fault.
//!
//! ```
//! use castle::formats::{read_deal, write_text, ReadOptions};
//! use castle::Variant;
//!
//! let board = "Foundations: H-A C-A D-A S-A
//! KS QS 5D 4D 7D 4C
//! TS KD 9H JS 5C 6H
//! 9S 7C 9D TH QD JD
//! 8D 8C 8H 2S 3H 7S
//! 8S JH TC QC 9C 6D
//! 6C KC 2D 2H KH 3C
//! 5S 7H TD 4S JC 3S
//! 5H QH 6S 3D 4H 2C
//! ";
//! let deal = read_deal(board, "board.fcs", ReadOptions::default())?;
//! assert_eq!(deal.rules.variant, Variant::BeleagueredCastle);
//! assert_eq!(deal.foundations[..4], [1, 1, 1, 1]);
//!
//! // castle's own text format reads back to the same deal.
//! let again = read_deal(&write_text(&deal), "deal.txt", ReadOptions::default())?;
//! assert_eq!(again, deal);
//!
//! // Bad input is an error that names the file, the line and the card.
//! let bad = board.replace("KS QS", "KS 1X");
//! let err = read_deal(&bad, "board.fcs", ReadOptions::default()).unwrap_err();
//! assert!(err.to_string().contains("board.fcs: line 2"), "{err}");
//! # Ok::<(), castle::InputError>(())
//! ```
//!
//! Solve a deal. With the foundations starting at queens (`--start-rank 12`) only the kings
//! are left, so the search takes milliseconds; a full deal is solved the same way.
//!
//! ```
//! use castle::{Deal, Solver, Variant, Verdict};
//!
//! let rules = Variant::BeleagueredCastle.rules().with_start_rank(12)?;
//! let deal = Deal::from_seed(rules, 1);
//! let outcome = Solver::default().solve(&deal)?;
//! assert_eq!(outcome.verdict, Verdict::Solvable);
//! assert_eq!(outcome.moves.len(), 4); // the four kings go home
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Check a line with the independent checker: replay the solver's moves, or a line typed by
//! hand, and get the first illegal move or a won game.
//!
//! ```
//! use castle::check::{check_win, steps_of, CheckError, Step};
//! use castle::pile::Pile;
//! use castle::{Deal, Solver, Variant};
//!
//! let rules = Variant::BeleagueredCastle.rules().with_start_rank(12)?;
//! let deal = Deal::from_seed(rules, 1);
//! let outcome = Solver::default().solve(&deal)?;
//! check_win(&deal, &steps_of(&outcome.moves))?;
//!
//! // A king does not build on a king: the checker names the first illegal move.
//! let top = *deal.tableau[0].last().unwrap();
//! let wrong = [Step::single(top, Pile::Tableau(0), Pile::Tableau(1))];
//! match check_win(&deal, &wrong) {
//!     Err(CheckError::Illegal(e)) => assert_eq!(e.number, 1),
//!     other => panic!("expected an illegal move, got {other:?}"),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

pub mod analyze;
pub mod batch;
#[cfg(feature = "cli")]
pub mod bench;
pub mod card;
pub mod certificate;
pub mod check;
pub mod critical;
pub mod deal;
pub mod defaults;
pub mod difficulty;
pub mod error;
pub mod formats;
pub mod html;
pub mod interval;
pub mod moves;
pub mod peer;
pub mod pile;
pub mod play;
#[cfg(feature = "cli")]
pub mod plot;
pub mod pysol;
pub mod render;
pub mod report;
pub mod rows;
pub mod rules;
pub mod sat;
#[cfg(feature = "serve")]
pub mod serve;
pub mod shorten;
pub mod solver;
pub mod state;
pub mod stats;
pub mod text;
pub mod verify;
pub mod winnable;
pub mod winrates;

pub use card::{Card, Suit};
pub use deal::Deal;
pub use error::{Error, InputError, InputKind, Origin};
pub use rules::{Rules, Variant};
pub use solver::{Limit, Limits, Outcome, Phase, SolveError, Solver, Verdict};
pub use state::Pruning;
