//! Soundness of courtyard's SAT model (`src/sat/`, docs/design.md "Courtyard: losses by a SAT
//! solver"): a refutation claims a position lost, so it must never meet a position that has a
//! win. The verdicts come from elsewhere: the exact layered search (its wins replayed by the
//! checker), and positions on a win castle found and the checker replayed (winnable by that
//! line). Every refutation's LRAT proof is checked by `certificate/lrat.rs`.

use crate::courtyard_pin::{exact, late_positions};
use castle::check::{replay, steps_of};
use castle::sat::{decide, Verdict as Sat};
use castle::{Deal, Limits, Solver, Variant, Verdict};
use std::time::{Duration, Instant};

#[derive(Default, Debug)]
struct Tally {
    won: usize,
    lost: usize,
    refuted_lost: usize,
    undecided: usize,
}

/// The model on `deal` within `seconds`: `Some(false)` refuted (its proof checked),
/// `Some(true)` a model, `None` stopped.
fn model(deal: &Deal, seconds: f64) -> Option<bool> {
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let dir = tempfile::tempdir().unwrap();
    let (v, _) = decide(deal, Some(deadline), None, Some(dir.path()), false).unwrap();
    match v {
        Sat::Lost { checked, .. } => {
            assert!(checked.is_some(), "a refutation without a checked proof");
            Some(false)
        }
        Sat::Model { .. } => Some(true),
        Sat::Stopped => None,
    }
}

/// Positions late in wins of courtyard `seeds` (after random moves, which lose many), decided
/// by the exact layered search: the model refutes none it wins.
fn late(seeds: std::ops::RangeInclusive<u64>, lefts: &[usize]) -> Tally {
    let mut t = Tally::default();
    for (what, deal) in late_positions(seeds, lefts) {
        let Some(won) = exact(&deal, 200_000) else {
            t.undecided += 1;
            continue;
        };
        let m = model(&deal, 20.0);
        if won {
            t.won += 1;
            assert_ne!(
                m,
                Some(false),
                "{what}: refuted, and the exact search wins it"
            );
        } else {
            t.lost += 1;
            t.refuted_lost += usize::from(m == Some(false));
        }
    }
    t
}

/// Courtyard 1..16, positions 20 to 70 moves before the end of a win: none of the won ones
/// refuted, and the model refutes most of the lost ones (measured: all of them), so the
/// test would see a model that refutes nothing.
#[test]
fn the_model_refutes_no_won_late_position() {
    let t = late(1..=16, &[20, 35, 50, 70]);
    eprintln!("{t:?}");
    assert!(t.won >= 100, "{t:?}");
    assert!(t.lost >= 5 && t.refuted_lost * 2 > t.lost, "{t:?}");
}

/// The same over courtyard 1..90 and five distances (over 1,000 positions; minutes).
#[test]
#[ignore]
fn the_model_refutes_no_won_late_position_more_deals() {
    let t = late(1..=90, &[20, 35, 50, 70, 90]);
    eprintln!("{t:?}");
    assert!(t.won + t.lost >= 1_000, "{t:?}");
}

/// Positions on replayed wins of courtyard 1..8, every tenth move while the stock holds at
/// most 20 cards: all winnable (the rest of the line wins them), none refuted.
#[test]
fn the_model_refutes_no_position_on_a_replayed_win() {
    let (mut checked, mut with_model) = (0, 0);
    for seed in 1..=8 {
        let deal = Deal::from_seed(Variant::Courtyard.rules(), seed);
        // Within a budget: some courtyard deals are not decided in any time a test can wait.
        let solver = Solver {
            limits: Limits {
                max_nodes: Some(300_000),
                ..Limits::default()
            },
            ..Solver::default()
        };
        let out = solver.solve(&deal).unwrap();
        if out.verdict != Verdict::Solvable {
            continue;
        }
        let steps = steps_of(&out.moves);
        for at in (0..steps.len()).step_by(10) {
            let board = replay(&deal, &steps[..at]).unwrap();
            // A position owing a fill is not one the game rests in.
            let position = board.to_deal();
            if board.pending_fill().is_some() || position.stock.len() > 20 {
                continue;
            }
            let m = model(&position, 5.0);
            assert_ne!(m, Some(false), "courtyard {seed} after {at} moves: refuted");
            checked += 1;
            with_model += usize::from(m == Some(true));
        }
    }
    eprintln!("{checked} positions, {with_model} with a model found");
    assert!(
        checked >= 30 && with_model * 2 > checked,
        "{checked} {with_model}"
    );
}

/// Every clause holds on a real line: the formula of courtyard deals castle wins (1..12,
/// within a budget), with every state pinned to the positions its replayed win passes
/// through at each event, still has a model. A clause that a real line breaks (an unsound
/// one) makes this unsatisfiable, on the exact state where it is wrong.
#[test]
fn a_real_wins_states_satisfy_the_formula() {
    let solver = Solver {
        limits: Limits {
            max_nodes: Some(300_000),
            ..Limits::default()
        },
        ..Solver::default()
    };
    let mut lines = 0;
    for seed in 1..=12 {
        let deal = Deal::from_seed(Variant::Courtyard.rules(), seed);
        let out = solver.solve(&deal).unwrap();
        if out.verdict != Verdict::Solvable {
            continue;
        }
        let steps = steps_of(&out.moves);
        // The whole line, and its tail from a position part-way (a deal of its own).
        for at in [0, steps.len() / 3] {
            let board = replay(&deal, &steps[..at]).unwrap();
            if board.pending_fill().is_some() {
                continue;
            }
            let deadline = Instant::now() + Duration::from_secs(120);
            let got = castle::sat::line_satisfies(&board.to_deal(), &steps[at..], Some(deadline));
            assert_eq!(
                got,
                Some(true),
                "courtyard {seed} from move {at}: a clause breaks on its win"
            );
            lines += 1;
        }
    }
    assert!(lines >= 10, "{lines} lines");
}
