//! The schedule's tests: the quotient's runs in and beside the schedule, the search from
//! false lines' real positions, and the thread beside the schedule.

use super::{Clock, QuotientSchedule, QuotientStep};
use crate::solver::plan::{Plan, QuotientPlan, PREFIX_NODES, QUOTIENT_FIRST_K};

/// The quotient's rows of the plan a deal gets by default.
fn qplan(deal: &Deal) -> QuotientPlan {
    Plan::for_rules(&deal.rules).quotient.unwrap()
}

/// A quotient run that meets a broken invariant ends the solve as an error, never as
/// `unsolvable`: the deal (streets-and-alleys 1 with the ace of clubs on top of a pile) is
/// lost, the quotient's first run proves it, and with that run started from a broken
/// position (the ace's move home finds no three to bring into its window) the solve
/// returns the error.
#[test]
fn a_broken_quotient_run_ends_the_solve_as_an_error() {
    use crate::solver::{Phase, SolveError, Solver, Verdict};
    let deal = crate::solver::quotient::tests::ace_on_top();
    let out = Solver::default().solve(&deal).unwrap();
    assert_eq!(out.verdict, Verdict::Unsolvable);
    assert_eq!(out.phase, Some(Phase::Quotient));
    crate::solver::quotient::tests::trip_next_search();
    match Solver::default().solve(&deal) {
        Err(SolveError::Invariant(why)) => assert!(why.contains("window"), "{why}"),
        other => panic!("{other:?}"),
    }
}
use crate::check::{check_win, steps_of};
use crate::deal::Deal;
use crate::rules::Variant;

/// The quotient's refining loop on `deal` with the search from false lines' real
/// positions given `prefix_nodes` (0: off), until a verdict, a first false line
/// (`first_false`), or `max_nodes` nodes spent.
fn refine(
    deal: &Deal,
    prefix_nodes: u64,
    first_false: bool,
    max_nodes: u64,
) -> (QuotientStep, QuotientSchedule) {
    let mut q = QuotientSchedule::new(QuotientPlan {
        prefix_nodes,
        ..qplan(deal)
    });
    let mut done = 0u64;
    loop {
        q.credit = q.budget;
        let step = q.run(deal, &mut done, None, 1 << 30, Clock::default(), false);
        if !matches!(step, QuotientStep::Continue)
            || q.off
            || (first_false && q.kept != 0)
            || done > max_nodes
        {
            return (step, q);
        }
    }
}

/// sa 99776 (a deal every other phase left `unknown` for hours): the quotient's first
/// false line reaches, before its first wrong branch, a real position the exact search
/// wins at once, and the deal is won by the line up to there and that win (replayed by
/// the checker). Without that search the same run only refines.
#[test]
fn a_false_lines_real_position_is_searched_for_a_win() {
    let deal = Deal::from_seed(Variant::StreetsAndAlleys.rules(), 99776);
    match refine(&deal, PREFIX_NODES, true, u64::MAX).0 {
        QuotientStep::Won { line } => check_win(&deal, &steps_of(&line)).unwrap(),
        _ => panic!("no win from the first false line's position"),
    }
    let (step, q) = refine(&deal, 0, true, u64::MAX);
    assert!(matches!(step, QuotientStep::Continue), "decided without it");
    assert_ne!(q.kept, 0, "no false line met");
}

/// The search from false lines' real positions only adds wins: the refining loop on
/// bc and sa deals, with it and without, gives the same verdict wherever both decide
/// (every win replays, every loss is the quotient's proof), and with it no deal that the
/// loop without it decides is left undecided.
#[test]
fn the_search_from_false_lines_keeps_the_verdicts() {
    let (mut both, mut won_by_it) = (0, 0);
    for variant in [Variant::BeleagueredCastle, Variant::StreetsAndAlleys] {
        for seed in 1..=24 {
            let deal = Deal::from_seed(variant.rules(), seed);
            let verdict = |step: &QuotientStep| match step {
                QuotientStep::Won { line } => {
                    check_win(&deal, &steps_of(line)).unwrap();
                    Some(true)
                }
                QuotientStep::Lost { .. } => Some(false),
                _ => None,
            };
            let on = verdict(&refine(&deal, PREFIX_NODES, false, 3_000_000).0);
            let off = verdict(&refine(&deal, 0, false, 3_000_000).0);
            match (on, off) {
                (Some(a), Some(b)) => {
                    assert_eq!(a, b, "{variant} {seed}");
                    both += 1;
                }
                (Some(true), None) => won_by_it += 1,
                (None, Some(_)) => panic!("{variant} {seed}: undecided with it"),
                _ => {}
            }
        }
    }
    assert!(both >= 24, "only {both} deals decided both ways");
    eprintln!("{both} decided both ways, {won_by_it} won only with it");
}

/// The quotient on a thread of its own runs the same refining runs as in the schedule,
/// with no share to earn: it wins bc 13 after keeping cards (the line replays) and raises
/// the branched flag; it proves a lost deal without one; and it ends at once when its
/// stop flag is up.
#[test]
fn the_quotient_alone_refines_proves_and_stops() {
    use super::quotient_alone;
    use std::sync::atomic::{AtomicBool, Ordering};
    let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 13);
    let branched = AtomicBool::new(false);
    let (step, nodes) = quotient_alone(
        &deal,
        QuotientSchedule::new(qplan(&deal)),
        1 << 28,
        Clock::default(),
        &branched,
    );
    match step {
        QuotientStep::Won { line } => check_win(&deal, &steps_of(&line)).unwrap(),
        _ => panic!("no win"),
    }
    assert!(branched.load(Ordering::Relaxed));
    assert!(nodes > 0);

    let lost = crate::solver::quotient::tests::ace_on_top();
    let branched = AtomicBool::new(false);
    let (step, nodes) = quotient_alone(
        &lost,
        QuotientSchedule::new(qplan(&lost)),
        1 << 28,
        Clock::default(),
        &branched,
    );
    assert!(matches!(step, QuotientStep::Lost { .. }), "not proved lost");
    assert!(!branched.load(Ordering::Relaxed));
    assert!(nodes > 0);

    let up = AtomicBool::new(true);
    let clock = Clock {
        deadline: None,
        stop: Some(&up),
    };
    let (step, _) = quotient_alone(
        &deal,
        QuotientSchedule::new(qplan(&deal)),
        1 << 28,
        clock,
        &AtomicBool::new(false),
    );
    assert!(matches!(step, QuotientStep::Deadline), "not stopped");
}

/// Once the quotient is out of room (half a MiB here), the thread beside the schedule runs
/// a relocating swarm of its own there: on a won deal it wins (the line replays; with
/// another salt, another swarm's win, the quotient's runs the same), with the swarm off it
/// returns nothing, and on a lost deal (`data/bench/hard-unsolvable.fcs`,
/// lost by the exact search: no win to find, and more positions than the swarm's room
/// holds, so it starts afresh again and again) the raised stop flag ends it.
#[test]
fn out_of_room_the_quotient_thread_runs_a_swarm() {
    use super::beside_thread;
    use crate::state::Pruning;
    use std::sync::atomic::AtomicBool;
    let deal = Deal::from_seed(Variant::StreetsAndAlleys.rules(), 2);
    assert_eq!(crate::state::Position::new(&deal).key_words(), 3);
    let no = AtomicBool::new(false);
    let half_a_mib = |deal: &Deal, clock, swarm| {
        beside_thread::<3>(
            deal,
            QuotientSchedule::new(qplan(deal)),
            Pruning::default(),
            1 << 19,
            clock,
            &no,
            swarm,
            0,
        )
    };
    let b = half_a_mib(&deal, Clock::default(), true);
    assert!(
        matches!(b.step, QuotientStep::Continue),
        "the quotient decided"
    );
    assert!(b.quotient_nodes > 0 && b.swarm_nodes > 0);
    let line = b.swarm_win.expect("the swarm did not win");
    check_win(&deal, &steps_of(&line)).unwrap();

    // Another salt draws another swarm: its own win, which replays too.
    let salted = beside_thread::<3>(
        &deal,
        QuotientSchedule::new(qplan(&deal)),
        Pruning::default(),
        1 << 19,
        Clock::default(),
        &no,
        true,
        1,
    );
    assert_eq!(salted.quotient_nodes, b.quotient_nodes);
    let other = salted.swarm_win.expect("the salted swarm did not win");
    check_win(&deal, &steps_of(&other)).unwrap();
    assert!(
        (other != line) || (salted.swarm_nodes != b.swarm_nodes),
        "the salt changed nothing"
    );

    let b = half_a_mib(&deal, Clock::default(), false);
    assert!(b.swarm_win.is_none() && b.swarm_nodes == 0);

    let text = include_str!("../../../data/bench/hard-unsolvable.fcs");
    let lost = crate::formats::read_deal(text, "hard", Default::default()).unwrap();
    assert_eq!(crate::state::Position::new(&lost).key_words(), 3);
    let up = AtomicBool::new(false);
    let b = std::thread::scope(|s| {
        let h = s.spawn(|| {
            let clock = Clock {
                deadline: None,
                stop: Some(&up),
            };
            half_a_mib(&lost, clock, true)
        });
        std::thread::sleep(std::time::Duration::from_millis(300));
        up.store(true, std::sync::atomic::Ordering::Relaxed);
        h.join().unwrap()
    });
    assert!(
        matches!(b.step, QuotientStep::Continue),
        "the quotient decided"
    );
    assert!(b.swarm_win.is_none() && b.swarm_nodes > 0);
}

/// Jacks under kings, queens alone, tens home (won by hand: a queen onto a king empties
/// a pile, a king goes there, its jack goes home, and so on). In the schedule's first run
/// (`k = 2`) the kings are outside the window, but the dealt refinement knows each king by
/// its place until it moves, so each branch is the real card: the run's line wins on the
/// deal, and the phase returns it, checked here by the checker.
#[test]
fn a_branch_win_that_replays_on_the_deal_is_a_win() {
    let mut deal = Deal::empty(
        Variant::BeleagueredCastle
            .rules()
            .with_start_rank(10)
            .unwrap(),
    );
    deal.foundations = [10, 10, 10, 10, 0, 0, 0, 0];
    for (i, p) in ["JD KC", "JC KD", "JH KS", "JS KH", "QC", "QD", "QH", "QS"]
        .iter()
        .enumerate()
    {
        deal.tableau[i] = p.split(' ').map(|c| c.parse().unwrap()).collect();
    }
    deal.validate().unwrap();
    let mut done = 0;
    match QuotientSchedule::new(qplan(&deal)).run(
        &deal,
        &mut done,
        None,
        1 << 28,
        Clock::default(),
        false,
    ) {
        QuotientStep::Won { line } => check_win(&deal, &steps_of(&line)).unwrap(),
        _ => panic!("no win in the first run"),
    }
    assert!(done > 0);
}

/// A raised stop flag ends a quotient run as the deadline does (the schedule then ends
/// the solve with `Limit::Stopped`; see `Solver::clock_limit`), and the same run with the
/// flag down goes on to its verdict: the run of the test above.
#[test]
fn a_raised_stop_flag_ends_the_quotient_run() {
    use std::sync::atomic::AtomicBool;
    let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 13);
    let mut done = 0;
    let raised = AtomicBool::new(true);
    let up = Clock {
        deadline: None,
        stop: Some(&raised),
    };
    let step = QuotientSchedule::new(qplan(&deal)).run(&deal, &mut done, None, 1 << 28, up, false);
    assert!(matches!(step, QuotientStep::Deadline));
    let lowered = AtomicBool::new(false);
    let down = Clock {
        deadline: None,
        stop: Some(&lowered),
    };
    let step =
        QuotientSchedule::new(qplan(&deal)).run(&deal, &mut done, None, 1 << 28, down, false);
    assert!(!matches!(step, QuotientStep::Deadline));
}

/// Beleaguered-castle 13: its first run at `k = 2` meets a won abstract position whose line
/// does not replay on the deal, and so do the next five, each keeping one more card the
/// line before got wrong; the seventh run's line wins on the deal (measured with
/// `examples/quotient.rs --seed 13 -k 2 --refine 20 --refine-step 1 --proved --repeat`,
/// the schedule's runs: every move, the earlier runs' proofs carried over; with no-repeat
/// and without the proofs, the ninth run wins). The phase returns it, the checker replays
/// it, and the window never widened. (The search from false lines' positions is off: it
/// wins the deal sooner, and this is about the refinement.)
#[test]
fn false_branch_wins_keep_cards_until_a_line_wins_on_the_deal() {
    let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 13);
    // The window the measurement was made at (the default is `QUOTIENT_FIRST_K`).
    let mut q = QuotientSchedule::new(QuotientPlan {
        first_k: 2,
        ..qplan(&deal)
    });
    q.plan.prefix_nodes = 0;
    q.credit = u64::MAX / 2;
    let mut done = 0;
    match q.run(&deal, &mut done, None, 1 << 28, Clock::default(), false) {
        QuotientStep::Won { line } => check_win(&deal, &steps_of(&line)).unwrap(),
        _ => panic!("no win"),
    }
    assert_eq!(q.k, 2, "the window widened");
    assert_eq!(q.kept.count_ones(), 6, "cards kept before the win");
    // Seven runs, each its first budget at most.
    assert!(done > 0 && done <= 7 * q.budget, "{done} nodes");
}

/// A run out of room while others hold loans is `Short`: not charged, the phase still
/// on, so the same run can start again once the room comes back; without loans to call
/// back, the same shortage ends the phase.
#[test]
fn a_quotient_run_short_of_room_waits_for_the_loans() {
    let text = include_str!("../../../data/bench/hard-unsolvable.fcs");
    let deal = crate::formats::read_deal(text, "hard-unsolvable.fcs", Default::default()).unwrap();
    let mut q = QuotientSchedule::new(qplan(&deal));
    let (credit, budget) = (q.credit, q.budget);
    let mut done = 0;
    assert!(matches!(
        q.run(&deal, &mut done, None, 1 << 10, Clock::default(), true),
        QuotientStep::Short
    ));
    assert!(!q.off);
    assert_eq!(
        (q.credit, q.budget, q.k),
        (credit, budget, QUOTIENT_FIRST_K)
    );
    assert!(matches!(
        q.run(&deal, &mut done, None, 1 << 10, Clock::default(), false),
        QuotientStep::Continue
    ));
    assert!(
        q.off,
        "a shortage with nothing to call back left the phase on"
    );
}
