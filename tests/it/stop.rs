//! The solver's stop flag (`Solver::stop`): raised by another thread while a solve runs, it
//! ends the solve as `unknown` with `Limit::Stopped`, whatever the solve is doing (the
//! schedule's phases, several threads, the layered search), and a win found before it
//! stands. Each solve also has a time budget far beyond the raise: a solve that ignored the
//! flag would end on that budget (`Limit::Seconds`) or decide the deal, and fail here.

use crate::common::data;
use castle::formats::{read_deal, ReadOptions};
use castle::{Deal, Limit, Limits, Outcome, Solver, Variant, Verdict};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Longer than any solve here should take once the flag is up.
const BACKSTOP_SECONDS: f64 = 600.0;

/// Courtyard deal 4: `unknown` after 2 s (`castle batch -v courtyard --seeds 1..20 -j 1
/// --max-seconds 2 --one-pass`), so a solve of it is still searching when the flag goes up.
fn hard_courtyard() -> Deal {
    Deal::from_seed(Variant::Courtyard.rules(), 4)
}

fn hard_lost() -> Deal {
    let text = std::fs::read_to_string(data("bench/hard-unsolvable.fcs")).unwrap();
    read_deal(&text, "hard-unsolvable.fcs", ReadOptions::default()).unwrap()
}

/// Solves `deal` with `solver` (its stop flag set up here) while another thread raises the
/// flag after `after`; the outcome.
fn solve_stopped(mut solver: Solver, deal: &Deal, after: Duration) -> Outcome {
    let flag = Arc::new(AtomicBool::new(false));
    solver.stop = Some(Arc::clone(&flag));
    solver.limits = Limits {
        max_seconds: Some(BACKSTOP_SECONDS),
        ..solver.limits
    };
    std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(after);
            flag.store(true, Ordering::Relaxed);
        });
        solver.solve(deal).expect("no internal error")
    })
}

fn assert_stopped(out: &Outcome, what: &str) {
    assert_eq!(out.verdict, Verdict::Unknown, "{what}");
    assert_eq!(out.limit, Some(Limit::Stopped), "{what}");
    assert_eq!(out.phase, None, "{what}");
    assert!(
        out.seconds < BACKSTOP_SECONDS / 2.0,
        "{what}: {} s",
        out.seconds
    );
}

#[test]
fn the_flag_stops_the_whole_schedule_at_any_point() {
    // Early (the quick phase, the portfolio's first slice, the quotient) and late (the
    // restarted attempts, probes and slices in between).
    for ms in [5, 60, 400] {
        let out = solve_stopped(
            Solver::default(),
            &hard_courtyard(),
            Duration::from_millis(ms),
        );
        assert_stopped(&out, &format!("courtyard 4, raised after {ms} ms"));
        assert!(out.nodes > 0);
    }
}

#[test]
fn the_flag_stops_a_solve_on_several_threads() {
    let solver = Solver {
        threads: 2,
        ..Solver::default()
    };
    let out = solve_stopped(solver, &hard_courtyard(), Duration::from_millis(300));
    assert_stopped(&out, "courtyard 4 on 2 threads");
}

/// On two threads with no node budget the quotient has a thread of its own (design.md, "The
/// quotient beside the schedule"); the flag reaches it and the schedule both. Streets and
/// alleys 62407 is lost, proved by the refining quotient after many seconds (17.6 CPU s in
/// one run of `castle solve -v sa -s 62407 -j 2 --memory 8192`), so both are still at work
/// when the flag goes up.
#[test]
fn the_flag_stops_the_quotient_beside_the_schedule() {
    let solver = Solver {
        threads: 2,
        ..Solver::default()
    };
    let deal = Deal::from_seed(Variant::StreetsAndAlleys.rules(), 62407);
    let out = solve_stopped(solver, &deal, Duration::from_millis(300));
    assert_stopped(&out, "streets-and-alleys 62407 on 2 threads");
    assert!(out.spent.quotient > 0, "the quotient did not run");
}

#[test]
fn the_flag_stops_the_plain_depth_first_search() {
    // No other phase: the flag is read where the search reads the clock.
    let solver = Solver {
        quick: false,
        restarts: false,
        best_first: false,
        quotient: false,
        probes: None,
        ..Solver::default()
    };
    let out = solve_stopped(solver, &hard_lost(), Duration::from_millis(200));
    assert_stopped(&out, "the hard lost deal, one attempt");
}

#[test]
fn the_flag_stops_the_layered_search() {
    let solver = Solver {
        layered: true,
        ..Solver::default()
    };
    let out = solve_stopped(solver, &hard_lost(), Duration::from_millis(200));
    assert_stopped(&out, "the hard lost deal, layered");
}

#[test]
fn a_flag_raised_before_the_solve_ends_it_at_once() {
    let solver = Solver {
        stop: Some(Arc::new(AtomicBool::new(true))),
        ..Solver::default()
    };
    let out = solver.solve(&hard_courtyard()).unwrap();
    assert_stopped(&out, "raised before");
    assert_eq!(out.nodes, 0);
}

#[test]
fn a_flag_never_raised_changes_nothing() {
    // Beleaguered-castle 42 is won (its line is replayed by the solver, and again here);
    // the same nodes with the flag there and down as without it.
    let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 42);
    let plain = Solver::default().solve(&deal).unwrap();
    let with = Solver {
        stop: Some(Arc::new(AtomicBool::new(false))),
        ..Solver::default()
    }
    .solve(&deal)
    .unwrap();
    assert_eq!(plain.verdict, Verdict::Solvable);
    castle::check::check_win(&deal, &castle::check::steps_of(&with.moves)).unwrap();
    assert_eq!((with.verdict, with.nodes), (plain.verdict, plain.nodes));
    assert_eq!(with.moves, plain.moves);
}
