//! `castle play`: the seed games' own features in a terminal, with the solver as a coach.
//!
//! - [`game`]: one game, free of any user interface: moves through the rule-book checker,
//!   undo and redo without limit, restart, automatic safe moves, score; save and load in
//!   its `save` part.
//! - [`notation`]: pile names, keys and words ([`notation::Target`]) read against the board.
//! - [`coach`]: the "winnable?" mark, hints and "show me", from the solver on a small budget.
//! - [`session`]: the game and the coach driven by [`session::Action`]s, for both front ends.
//! - [`lines`]: one command per line in, the board as text out (scripts and tests).
//! - [`tui`]: the full-screen board (ratatui on crossterm), keys and mouse.
//!
//! [`run`] picks the front end: the full-screen board when standard input and output are
//! both terminals, else the line mode.

pub mod coach;
pub mod game;
pub mod lines;
pub mod notation;
pub mod session;
#[cfg(feature = "cli")]
pub mod tui;

/// How to play.
#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// Automatic safe moves at the start (a key or `auto on|off` switches them later).
    pub auto: bool,
    /// Node budget of each coach search; 0 switches the coach off.
    pub coach_nodes: u64,
    /// Time budget of each coach search in the full-screen board (the line mode uses nodes
    /// only, so its output is the same on every run).
    pub coach_seconds: f64,
    /// The line mode even on a terminal.
    pub lines: bool,
}

impl Default for PlayOptions {
    fn default() -> Self {
        PlayOptions {
            auto: true,
            coach_nodes: 1_000_000,
            coach_seconds: 3.0,
            lines: false,
        }
    }
}

#[cfg(feature = "cli")]
/// Plays `game`: in the full-screen board when standard input and output are both
/// terminals (and `opts.lines` is off), else in the line mode on standard input and output.
///
/// # Errors
/// A terminal or I/O failure.
pub fn run(game: game::Game, opts: &PlayOptions) -> std::io::Result<()> {
    use std::io::IsTerminal;
    let full_screen =
        !opts.lines && std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let budget = (opts.coach_nodes > 0).then_some(opts.coach_nodes);
    if full_screen {
        let solver = coach::coach_solver(opts.coach_nodes, Some(opts.coach_seconds));
        tui::run(session::Session::new(
            game,
            coach::Coach::new(solver),
            budget,
        ))
    } else {
        let solver = coach::coach_solver(opts.coach_nodes, None);
        let mut s = session::Session::new(game, coach::Coach::new(solver), budget);
        let stdin = std::io::stdin();
        let mut out = std::io::stdout().lock();
        lines::run(&mut s, stdin.lock(), &mut out)
    }
}
