//! castle's integration tests: one test binary, one module per topic, so that the crate is
//! linked once for all of them (docs/testing.md says what each checks). `common` holds the
//! shared helpers: two slow independent solvers, the built binary's runners, batch rows.
//!
//! `tests/memory.rs` stays a binary of its own: it measures a child's peak resident set, which
//! on Linux includes the spawning process's (see its opening).
//!
//! One module, or one test: `cargo test --release --test it batch::` or `--test it
//! -- --exact solver::a_position_won_in_five_moves`.

mod common;

mod batch;
mod certificate;
mod cli;
mod courtyard_pin;
mod courtyard_sat;
mod crosscheck;
mod everyday;
mod fuzz;
mod kill;
mod layered;
mod plan;
mod play;
mod quotient;
mod readme;
mod replay_page;
#[cfg(feature = "serve")]
mod serve;
#[cfg(feature = "serve")]
mod serve_page;
mod shards;
mod slurm;
mod solver;
mod stop;
mod tables;
mod usability;
mod variants;
mod winnable;
