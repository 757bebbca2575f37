//! The variants beyond the classic three, and the rule options, against outside knowledge:
//! small positions decided by the independent breadth-first solver over the move checker's
//! boards, hand-built positions whose outcome is forced, and the checker's own refusals.
//! Every solution found is replayed by the checker.

use crate::common::{bfs_board, cards, solve_checked, verdict_of};
use castle::check::{replay, steps_of, Board, Step};
use castle::rules::{Rules, SequenceMoves, Variant};
use castle::{Card, Deal, Pruning, Solver, Verdict};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

/// A random small position of `rules` played on `piles` piles: most of each suit home, the
/// rest dealt at random (cells filled first for castile; for courtyard one card per pile and
/// the rest as the stock).
fn small_position(rules: Rules, piles: usize, seed: u64) -> Deal {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut rules = rules;
    rules.piles = piles;
    let mut deal = Deal::empty(rules);
    let mut rest = Vec::new();
    if rules.decks == 2 {
        // At most 11 cards out (the stock makes the space grow fast: every dealt card
        // may stay in the waste or leave it).
        for f in deal.foundations.iter_mut() {
            *f = rng.gen_range(8..=13u8);
        }
        while deal
            .foundations
            .iter()
            .map(|&h| 13 - h as usize)
            .sum::<usize>()
            > 11
        {
            deal.foundations[rng.gen_range(0..8)] = 13;
        }
        for s in 0..4 {
            let (a, b) = (deal.foundations[s], deal.foundations[s + 4]);
            deal.foundations[s] = a.max(b);
            deal.foundations[s + 4] = a.min(b);
        }
        for c in Card::deck() {
            let s = c.suit().index();
            for h in [deal.foundations[s], deal.foundations[s + 4]] {
                if c.rank() > h {
                    rest.push(c);
                }
            }
        }
        rest.shuffle(&mut rng);
        for (k, c) in rest.drain(..piles.min(rest.len())).enumerate() {
            deal.tableau[k].push(c);
        }
        deal.stock = rest;
    } else {
        // Fewer cards where more moves exist: cells, or building in suit both ways.
        let low = match (rules.build, rules.cells) {
            (_, 1..) => 9,
            (castle::rules::Build::DownAnySuit, _) => 8,
            _ => 7,
        };
        for s in 0..4 {
            deal.foundations[s] = rng.gen_range(low..=11);
        }
        for c in Card::deck() {
            if c.rank() > deal.foundations[c.suit().index()] {
                rest.push(c);
            }
        }
        rest.shuffle(&mut rng);
        let cells = rules.cells.min(rest.len());
        deal.reserve = rest.drain(..cells).collect();
        for c in rest {
            deal.tableau[rng.gen_range(0..piles)].push(c);
        }
    }
    deal.validate().unwrap();
    deal
}

/// Castle (every reduction on; every reduction and restart off; restarts from tiny attempts
/// keeping their proofs) agrees with the slow solver on every small position the slow solver decides; returns (compared, won, lost).
fn agrees_with_the_slow_solver(rules: Rules, piles: usize, seeds: u64) -> (usize, usize, usize) {
    let plain = Solver {
        pruning: Pruning::NONE,
        restarts: false,
        ..Solver::default()
    };
    // Restarts from 16-node attempts, each keeping what it proved lost for the next.
    let tiny_attempts = Solver {
        first_attempt: 16,
        keep_proofs: Some(0),
        quick: false,
        best_first: false,
        ..Solver::default()
    };
    let results: Vec<_> = (1..=seeds)
        .into_par_iter()
        .map(|s| {
            let deal = small_position(rules, piles, s);
            let slow = bfs_board(&deal, 30_000);
            let fast = [
                solve_checked(&Solver::default(), &deal).verdict,
                solve_checked(&plain, &deal).verdict,
                solve_checked(&tiny_attempts, &deal).verdict,
            ];
            (s, slow, fast)
        })
        .collect();
    let (mut compared, mut won, mut lost) = (0, 0, 0);
    for (s, slow, fast) in results {
        let Some(slow) = slow else { continue };
        let expect = verdict_of(slow);
        compared += 1;
        if expect == Verdict::Solvable {
            won += 1;
        } else {
            lost += 1;
        }
        assert_eq!(fast, [expect; 3], "{} small position {s}", rules.variant);
    }
    (compared, won, lost)
}

/// [`agrees_with_the_slow_solver`] over several pile counts (fewer piles lose more often),
/// requiring at least `min` positions compared and a tenth of them of each outcome.
fn agrees_mixed(what: &str, rules: Rules, runs: &[(usize, u64)], min: usize) {
    agrees_mixed_lost(what, rules, runs, min, min / 10);
}

/// [`agrees_mixed`] with its own floor for lost positions.
fn agrees_mixed_lost(what: &str, rules: Rules, runs: &[(usize, u64)], min: usize, lost_min: usize) {
    let (mut compared, mut won, mut lost) = (0, 0, 0);
    for &(piles, seeds) in runs {
        let (c, w, l) = agrees_with_the_slow_solver(rules, piles, seeds);
        compared += c;
        won += w;
        lost += l;
    }
    assert!(
        compared >= min && won >= min / 10 && lost >= lost_min,
        "{what}: {compared} compared, {won} won, {lost} lost"
    );
}

#[test]
fn fortress_agrees_with_the_slow_solver() {
    agrees_mixed("fortress", Variant::Fortress.rules(), &[(4, 150)], 100);
}

#[test]
fn castile_agrees_with_the_slow_solver() {
    let rules = Variant::Castile.rules();
    agrees_mixed("castile", rules, &[(2, 80), (3, 70)], 100);
}

#[test]
fn courtyard_agrees_with_the_slow_solver() {
    // Small courtyard positions are seldom lost (the waste keeps every dealt card in reach
    // of a later play), so a few lost ones are all a sample holds.
    let rules = Variant::Courtyard.rules();
    agrees_mixed_lost("courtyard", rules, &[(1, 100), (2, 50)], 100, 3);
}

#[test]
fn unlimited_sequence_moves_agree_with_the_slow_solver() {
    for (v, runs) in [
        (Variant::StreetsAndAlleys, &[(2, 60), (3, 60)][..]),
        (Variant::Castile, &[(2, 100)][..]),
        (Variant::Courtyard, &[(1, 100)][..]),
    ] {
        let rules = v.rules().with_sequence_moves(SequenceMoves::Unlimited);
        let lost_min = if v == Variant::Courtyard { 3 } else { 6 };
        agrees_mixed_lost(
            &format!("{v}, unlimited sequence moves"),
            rules,
            runs,
            60,
            lost_min,
        );
    }
}

/// Unlimited sequence moves are a rule, not a shortcut: on some small positions they turn a
/// lost game into a won one (the slow solver says so, with and without the option). The
/// option only adds moves, so it can never lose a win.
#[test]
fn unlimited_sequence_moves_change_verdicts() {
    let mut flips = 0;
    for s in 1..=150 {
        let base = small_position(Variant::BeleagueredCastle.rules(), 3, s);
        let Some(plain) = bfs_board(&base, 40_000) else {
            continue;
        };
        let plain = verdict_of(plain);
        let deal = Deal {
            rules: base.rules.with_sequence_moves(SequenceMoves::Unlimited),
            ..base.clone()
        };
        let Some(v) = bfs_board(&deal, 40_000) else {
            continue;
        };
        let v = verdict_of(v);
        assert_eq!(solve_checked(&Solver::default(), &deal).verdict, v);
        assert!(!(plain == Verdict::Solvable && v == Verdict::Unsolvable));
        flips += usize::from(v != plain);
    }
    assert!(flips >= 5, "{flips} flips");
}

/// A pile by name (the names here are known good).
fn p(name: &str) -> castle::pile::Pile {
    name.parse().expect("a pile name")
}

fn hand(rules: Rules, piles: &[&str]) -> Deal {
    let mut rules = rules;
    rules.piles = piles.len();
    let mut deal = Deal::empty(rules);
    deal.tableau = piles.iter().map(|p| cards(p)).collect();
    deal
}

#[test]
fn castile_wins_through_its_cell() {
    // Spades T..K are left: TS in a cell, KS covers JS, QS alone. TS goes home from the cell,
    // KS steps into the empty cell (or onto QS), then J, Q, K go home: a win in 5 moves, and
    // no shorter one (the slow solver's breadth-first answer).
    let mut deal = hand(Variant::Castile.rules(), &["JS KS", "QS"]);
    deal.foundations = [13, 13, 13, 9, 0, 0, 0, 0];
    deal.reserve = cards("TS");
    deal.validate().unwrap();
    assert_eq!(bfs_board(&deal, 10_000), Some(Some(5)));
    let out = solve_checked(&Solver::default(), &deal);
    assert_eq!(out.verdict, Verdict::Solvable);
    assert!(out.moves.len() >= 5);
}

/// The default solver without its quick and best-first phases (which would win or enter
/// positions before the complete search, changing the node counts these tests pin).
fn complete_only() -> Solver {
    Solver {
        quick: false,
        best_first: false,
        ..Solver::default()
    }
}

#[test]
fn fortress_without_a_move_is_lost() {
    // Spades 6..K left on two full piles whose tops, 8S and TS, are two ranks apart: no
    // card fits the other top (up or down in suit), 6S is buried, no pile is empty.
    let mut deal = hand(Variant::Fortress.rules(), &["6S 9S QS 8S", "7S JS KS TS"]);
    deal.foundations = [13, 13, 13, 5, 0, 0, 0, 0];
    deal.validate().unwrap();
    assert_eq!(Board::new(&deal).legal_steps(), vec![]);
    let out = solve_checked(&complete_only(), &deal);
    assert_eq!((out.verdict, out.nodes), (Verdict::Unsolvable, 1));
}

#[test]
fn courtyard_fills_an_emptied_pile_from_the_stock() {
    // Hearts: both piles at J; QH and KH on the tableau, KH and QH in the stock. Sending QH
    // home empties t1, which the stock fills at once (the waste is empty): the fill is a move
    // of the solution, and the checker refuses any line that skips it.
    let mut deal = hand(Variant::Courtyard.rules(), &["QH", "KH"]);
    deal.foundations = [13, 13, 11, 13, 13, 13, 11, 13];
    deal.stock = cards("KH QH");
    deal.validate().unwrap();
    let out = solve_checked(&Solver::default(), &deal);
    assert_eq!(out.verdict, Verdict::Solvable);
    let steps = steps_of(&out.moves);
    let qh = "QH".parse().unwrap();
    let kh = "KH".parse().unwrap();
    assert_eq!(steps[0], Step::single(qh, p("t1"), p("f")));
    assert_eq!(steps[1], Step::single(kh, p("s"), p("t1")));
    // Skipping the fill is refused, naming the pile.
    let bad = [
        Step::single(qh, p("t1"), p("f")),
        Step::single(kh, p("t2"), p("f")),
    ];
    let e = replay(&deal, &bad).unwrap_err();
    assert_eq!(e.number, 2);
    assert!(e.why.to_string().contains("t1 is empty"), "{}", e.why);
}

#[test]
fn the_checker_refuses_what_the_rules_forbid() {
    let c = |s: &str| s.parse::<Card>().unwrap();
    // Castile: a cell takes only tableau cards, one at a time.
    let mut castile = hand(Variant::Castile.rules(), &["JS KS", "QS"]);
    castile.foundations = [13, 13, 13, 9, 0, 0, 0, 0];
    castile.reserve = cards("TS");
    let mut b = Board::new(&castile);
    let e = b
        .play(&Step::single(c("TS"), p("r1"), p("r2")))
        .unwrap_err();
    assert!(e.to_string().contains("top card of a tableau pile"), "{e}");
    let e = b
        .play(&Step::single(c("KS"), p("t1"), p("r1")))
        .unwrap_err();
    assert!(e.to_string().contains("already holds TS"), "{e}");
    assert!(b.play(&Step::single(c("KS"), p("t1"), p("r2"))).is_ok());
    // Runs move only under unlimited sequence moves, and only ordered runs.
    let mut fortress = hand(
        Variant::Fortress.rules(),
        &["6S 9S QS 8S", "7S JS KS TS", ""],
    );
    fortress.foundations = [13, 13, 13, 5, 0, 0, 0, 0];
    let run = Step {
        card: c("KS"),
        from: p("t2"),
        to: p("t3"),
        count: 2,
    };
    let e = Board::new(&fortress).play(&run).unwrap_err();
    assert!(e.to_string().contains("one card at a time"), "{e}");
    fortress.rules = fortress.rules.with_sequence_moves(SequenceMoves::Unlimited);
    let e = Board::new(&fortress).play(&run).unwrap_err();
    assert!(e.to_string().contains("not an ordered run"), "{e}");
    // Foundation cards stay home unless foundation return is on, and then go only to the
    // tableau.
    let back = Step::single(c("5S"), p("f"), p("t3"));
    assert!(Board::new(&fortress)
        .play(&back)
        .unwrap_err()
        .to_string()
        .contains("no foundation return"));
    fortress.rules = fortress.rules.with_foundation_return(true);
    let mut b = Board::new(&fortress);
    assert!(b.play(&back).is_ok());
    assert_eq!(b.foundations[3].len(), 4);
    // Courtyard: the stock deals only to the waste, and nothing goes back to it.
    let mut court = hand(Variant::Courtyard.rules(), &["QH", "KH"]);
    court.foundations = [13, 13, 11, 13, 13, 13, 11, 13];
    court.stock = cards("KH QH");
    let mut b = Board::new(&court);
    assert!(b
        .play(&Step::single(c("KH"), p("s"), p("t1")))
        .unwrap_err()
        .to_string()
        .contains("stock cards go to the waste"));
    assert!(b.play(&Step::single(c("KH"), p("s"), p("w"))).is_ok());
    assert!(b
        .play(&Step::single(c("KH"), p("w"), p("s")))
        .unwrap_err()
        .to_string()
        .contains("back to the stock"));
}

/// Safe autoplay in each build rule moves only cards the arguments in `state.rs` cover; the
/// on/off agreement over whole deals is in `tests/solver.rs`. Here: with foundation return
/// it plays nothing at all (home is not final), so a deal whose cards could all go home at
/// once is still searched move by move.
#[test]
fn no_automatic_moves_with_foundation_return() {
    let mut deal = hand(Variant::Fortress.rules(), &["KS QS JS TS"]);
    deal.foundations = [13, 13, 13, 9, 0, 0, 0, 0];
    let plain = solve_checked(&complete_only(), &deal);
    deal.rules = deal.rules.with_foundation_return(true);
    let ret = solve_checked(&complete_only(), &deal);
    assert_eq!(
        (plain.verdict, ret.verdict),
        (Verdict::Solvable, Verdict::Solvable)
    );
    assert_eq!(plain.nodes, 0, "autoplay wins before the search starts");
    assert!(ret.nodes > 1, "foundation return searches");
}

/// Foundation return, on small positions of two piles: with it every card home may come
/// back, so the spaces are far larger than the cards left out suggest; positions the slow
/// solver decides within its cap must get its verdict.
#[test]
fn foundation_return_agrees_with_the_slow_solver() {
    let mut budget = Solver::default();
    budget.limits.memory_bytes = 64 << 20;
    budget.limits.max_nodes = Some(2_000_000);
    let results: Vec<_> = (1..=200u64)
        .into_par_iter()
        .map(|s| {
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(s);
            let v = [Variant::BeleagueredCastle, Variant::Fortress][rng.gen_range(0..2)];
            let base = small_position(v.rules(), 2, s);
            let deal = Deal {
                rules: base.rules.with_foundation_return(true),
                ..base.clone()
            };
            let slow = bfs_board(&deal, 30_000).map(verdict_of);
            let plain = bfs_board(&base, 30_000).map(verdict_of);
            (s, slow, plain, solve_checked(&budget, &deal).verdict)
        })
        .collect();
    let mut compared = 0;
    for (s, slow, plain, fast) in results {
        let Some(slow) = slow else { continue };
        if fast != Verdict::Unknown {
            assert_eq!(fast, slow, "small position {s}");
            compared += 1;
        }
        // More moves never lose a win.
        assert!(!(plain == Some(Verdict::Solvable) && slow == Verdict::Unsolvable));
    }
    assert!(compared >= 100, "{compared} compared");
}

#[test]
fn foundation_return_wins_a_game_that_is_lost_without_it() {
    // Clubs and diamonds are home, spades to 9S, hearts to 6H. t1 is 9H 7H 8H, t2 is
    // KS QS JS TS KH QH JH TH. The tops 8H and TH take no card (no 9 or J is on top), fit no
    // foundation (7H and TS are buried) and no pile is empty: without foundation return there
    // is no legal move at all. With it, 9S comes back onto TH, 8H goes onto 9S, and then
    // 7H, 8H, 9H go home, 9S steps into the emptied t1, and everything else follows.
    let mut deal = hand(
        Variant::BeleagueredCastle.rules(),
        &["9H 7H 8H", "KS QS JS TS KH QH JH TH"],
    );
    deal.foundations = [13, 13, 6, 9, 0, 0, 0, 0];
    deal.validate().unwrap();
    assert_eq!(Board::new(&deal).legal_steps(), vec![]);
    assert_eq!(
        solve_checked(&Solver::default(), &deal).verdict,
        Verdict::Unsolvable
    );
    deal.rules = deal.rules.with_foundation_return(true);
    assert!(matches!(bfs_board(&deal, 200_000), Some(Some(_))));
    let out = solve_checked(&Solver::default(), &deal);
    assert_eq!(out.verdict, Verdict::Solvable);
    assert!(
        steps_of(&out.moves).iter().any(|s| s.from == "f"),
        "the win brings a card back"
    );
}

/// The short-solution search (`--short`) against the slow solver's shortest lengths: on
/// small positions of every variant and option, with the reductions on and off, it must prove
/// its win the shortest (the final A* pass finishes) and that win must be exactly as long as
/// the breadth-first search's, which counts every move the same way (fills, stock deals and a
/// counted run move as one each).
#[test]
fn the_short_search_finds_the_shortest_wins() {
    let mut short = Solver {
        short: Some(300_000),
        ..Solver::default()
    };
    short.limits.memory_bytes = 256 << 20;
    let plain = Solver {
        pruning: Pruning::NONE,
        ..short.clone()
    };
    // (rules, piles, positions, won positions required): small fortress positions are
    // nearly all lost (4 won of 150), so more of them and a lower floor.
    let cases: Vec<(Rules, usize, u64, usize)> = vec![
        (Variant::BeleagueredCastle.rules(), 4, 40, 10),
        (Variant::StreetsAndAlleys.rules(), 3, 40, 10),
        (Variant::Fortress.rules(), 4, 150, 3),
        (Variant::Castile.rules(), 3, 40, 10),
        (Variant::Courtyard.rules(), 2, 40, 10),
        (
            Variant::StreetsAndAlleys
                .rules()
                .with_sequence_moves(SequenceMoves::Unlimited),
            3,
            40,
            10,
        ),
        (
            Variant::Fortress.rules().with_foundation_return(true),
            3,
            160,
            10,
        ),
    ];
    for (rules, piles, positions, min) in cases {
        let results: Vec<_> = (1..=positions)
            .into_par_iter()
            .map(|s| {
                let deal = small_position(rules, piles, s);
                let slow = bfs_board(&deal, 30_000);
                let fast = [solve_checked(&short, &deal), solve_checked(&plain, &deal)];
                (s, slow, fast)
            })
            .collect();
        let mut compared = 0;
        for (s, slow, fast) in results {
            let Some(Some(shortest)) = slow else { continue };
            let what = format!("{} ({:?}) position {s}", rules.variant, rules.options);
            for out in &fast {
                assert_eq!(out.verdict, Verdict::Solvable, "{what}");
                // Never shorter than the shortest; as short when proved so.
                assert!(out.moves.len() >= shortest, "{what}");
                if out.shortest {
                    assert_eq!(out.moves.len(), shortest, "{what}");
                }
            }
            compared += usize::from(fast.iter().all(|o| o.shortest));
        }
        assert!(
            compared >= min,
            "{} ({:?}): only {compared} won positions proved shortest",
            rules.variant,
            rules.options
        );
    }
}
