//! Measures courtyard's SAT model (`castle::sat`, docs/design.md "Courtyard: losses by a SAT
//! solver") on positions whose verdict is known elsewhere and on whole deals; every
//! refutation's LRAT proof is checked (`NOPROOF=1`: none written).
//!
//! - `cargo run --release --example courtyard_sat -- SEED...`: whole deals;
//! - `... -- late FIRST LAST`: positions late in wins of those deals, after random moves,
//!   that the exact layered search decides (as tests/it/courtyard_pin.rs makes them;
//!   `LEFTS=35,70` the moves before the end, `ONLY=NAME` one of them);
//! - `... -- along SEED`: positions at each tenth of a win (all winnable);
//! - `... -- play SEED 60,40,20`: positions of a random playout at those stock sizes.
//!
//! - `... -- replay SEED FILE`: a model saved by `MODELS=DIR` played again on deal `SEED`.
//!
//! `TIMEOUT=S` bounds each solve; `SHOW=1` prints a model event by event; `MODELS=DIR`
//! saves each model (one byte a variable).

use castle::{Deal, Variant};
use std::time::Instant;

fn sat(deal: &Deal, what: &str, show_it: bool) -> Option<bool> {
    let deadline = std::env::var("TIMEOUT")
        .ok()
        .map(|t| Instant::now() + std::time::Duration::from_secs_f64(t.parse().unwrap()));
    let dir = std::env::temp_dir();
    let proof = std::env::var("NOPROOF").is_err().then_some(dir.as_path());
    let (v, run) = castle::sat::decide(deal, deadline, None, proof, false).unwrap();
    let r = match &v {
        castle::sat::Verdict::Lost { .. } => Some(false),
        castle::sat::Verdict::Model {
            replayed,
            assignment,
            ..
        } => {
            if let Ok(dir) = std::env::var("MODELS") {
                let bytes: Vec<u8> = assignment.iter().map(|&b| u8::from(b)).collect();
                std::fs::write(format!("{dir}/{}.model", what.replace(' ', "-")), bytes).unwrap();
            }
            println!(
                "{what}: model played on the game: {} of {} gaps, {} cards home; {}",
                replayed.gaps,
                deal.stock.len() + deal.waste.len(),
                replayed.home,
                replayed.refusal.as_deref().unwrap_or("every gap played")
            );
            Some(true)
        }
        castle::sat::Verdict::Stopped => None,
    };
    println!(
        "{what}: stock {} waste {}: {} vars, {} clauses, {r:?} in {:.2} s; proof {} bytes checked in {:.2} s",
        deal.stock.len(),
        deal.waste.len(),
        run.vars,
        run.clauses,
        run.solve_seconds,
        run.proof_bytes,
        run.check_seconds
    );
    if let (castle::sat::Verdict::Model { lines, .. }, true) = (&v, show_it) {
        for l in lines {
            println!("{l}");
        }
    }
    r
}

/// The exact layered search's verdict within `nodes` (None: undecided).
fn exact(deal: &Deal, nodes: u64) -> Option<bool> {
    use castle::solver::layered::{self, End};
    let limits = castle::Limits {
        max_nodes: Some(nodes),
        ..castle::Limits::default()
    };
    let r = layered::search(
        deal,
        castle::Pruning::default(),
        limits,
        None,
        None,
        1,
        &mut |_| {},
    )
    .unwrap();
    match r.end {
        End::Won(_) => Some(true),
        End::Exhausted => Some(false),
        End::Cut(_) => None,
    }
}

/// Positions `left` moves before the end of a win of each deal of `seeds`, after random
/// legal moves (as tests/it/courtyard_pin.rs makes them).
fn late_positions(seeds: std::ops::RangeInclusive<u64>, lefts: &[usize]) -> Vec<(String, Deal)> {
    use castle::check::{replay, steps_of};
    use rand::{Rng, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(49);
    let solver = castle::Solver {
        limits: castle::Limits {
            max_nodes: Some(300_000),
            ..castle::Limits::default()
        },
        ..castle::Solver::default()
    };
    let mut out = Vec::new();
    for seed in seeds {
        let deal = Deal::from_seed(Variant::Courtyard.rules(), seed);
        let won = solver.solve(&deal).unwrap();
        if won.verdict != castle::Verdict::Solvable {
            continue;
        }
        let steps = steps_of(&won.moves);
        for &left in lefts {
            for random in [0, 10, 40, 90] {
                let mut board = replay(&deal, &steps[..steps.len().saturating_sub(left)]).unwrap();
                for _ in 0..random {
                    let legal = board.legal_steps();
                    if legal.is_empty() {
                        break;
                    }
                    let deal_out = legal.iter().position(|s| s.from == "s" && s.to == "w");
                    let k = match deal_out {
                        Some(k) if rng.gen_bool(0.85) => k,
                        _ => rng.gen_range(0..legal.len()),
                    };
                    board.play(&legal[k]).unwrap();
                }
                while board.pending_fill().is_some() {
                    let fill = board.legal_steps().swap_remove(0);
                    board.play(&fill).unwrap();
                }
                out.push((
                    format!("seed {seed} left {left} +{random}"),
                    board.to_deal(),
                ));
            }
        }
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("replay") {
        // A model saved by `MODELS=DIR`, played again on the deal.
        let seed: u64 = args[1].parse().unwrap();
        let bytes = std::fs::read(&args[2]).unwrap();
        let deal = Deal::from_seed(Variant::Courtyard.rules(), seed);
        let m = castle::sat::model::Model::new(&deal);
        let value = |l: i32| bytes[l.unsigned_abs() as usize] == 1;
        let r = castle::sat::replay::replay(&m, &deal, &value);
        println!(
            "deal {seed}: model played on the game: {} of {} gaps, {} cards home; {}",
            r.gaps,
            m.events(),
            r.home,
            r.refusal.as_deref().unwrap_or("every gap played")
        );
        if std::env::var("SHOW").is_ok() {
            for l in m.describe(&value) {
                println!("{l}");
            }
        }
        return;
    }
    let show_it = std::env::var("SHOW").is_ok();
    if args.first().map(String::as_str) == Some("late") {
        let first: u64 = args[1].parse().unwrap();
        let last: u64 = args[2].parse().unwrap();
        let (mut lost, mut proved, mut won, mut bad) = (0, 0, 0, 0);
        let lefts: Vec<usize> = std::env::var("LEFTS").map_or(vec![35, 70], |v| {
            v.split(',').map(|x| x.parse().unwrap()).collect()
        });
        for (what, deal) in late_positions(first..=last, &lefts) {
            if let Ok(f) = std::env::var("ONLY") {
                if what != f {
                    continue;
                }
                println!("{}", castle::formats::write_text(&deal));
            }
            let Some(e) = exact(&deal, 200_000) else {
                continue;
            };
            let r = sat(&deal, &format!("{what} exact {e}"), show_it && !e);
            if e {
                won += 1;
                if r == Some(false) {
                    bad += 1;
                    println!("UNSOUND: {what}");
                }
            } else {
                lost += 1;
                proved += usize::from(r == Some(false));
            }
        }
        println!("won {won} (unsat on {bad}), lost {lost}, proved lost {proved}");
        return;
    }
    if args.first().map(String::as_str) == Some("play") {
        use castle::check::Board;
        use rand::{Rng, SeedableRng};
        let seed: u64 = args[1].parse().unwrap();
        let at: Vec<usize> = args[2].split(',').map(|x| x.parse().unwrap()).collect();
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let deal = Deal::from_seed(Variant::Courtyard.rules(), seed);
        let mut board = Board::new(&deal);
        for &left in &at {
            while board.to_deal().stock.len() > left {
                let legal = board.legal_steps();
                if legal.is_empty() {
                    break;
                }
                let home = legal
                    .iter()
                    .position(|s| s.to == castle::pile::Pile::Foundation);
                let deal_out = legal
                    .iter()
                    .position(|s| s.from == castle::pile::Pile::Stock);
                let k = match (home, deal_out) {
                    (Some(k), _) => k,
                    (None, Some(k)) if rng.gen_bool(0.7) => k,
                    _ => rng.gen_range(0..legal.len()),
                };
                board.play(&legal[k]).unwrap();
                while board.pending_fill().is_some() {
                    let fill = board.legal_steps().swap_remove(0);
                    board.play(&fill).unwrap();
                }
            }
            sat(
                &board.to_deal(),
                &format!("seed {seed} stock {left}"),
                false,
            );
        }
        return;
    }
    if args.first().map(String::as_str) == Some("along") {
        use castle::check::{replay, steps_of};
        let seed: u64 = args[1].parse().unwrap();
        let deal = Deal::from_seed(Variant::Courtyard.rules(), seed);
        let won = castle::Solver::default().solve(&deal).unwrap();
        assert_eq!(won.verdict, castle::Verdict::Solvable);
        let steps = steps_of(&won.moves);
        for tenth in (0..10).rev() {
            let at = steps.len() * tenth / 10;
            let mut board = replay(&deal, &steps[..at]).unwrap();
            while board.pending_fill().is_some() {
                let fill = board.legal_steps().swap_remove(0);
                board.play(&fill).unwrap();
            }
            let r = sat(
                &board.to_deal(),
                &format!("seed {seed} at {tenth}/10"),
                false,
            );
            assert_ne!(r, Some(false), "UNSOUND");
        }
        return;
    }
    for a in args {
        let seed: u64 = a.parse().expect("SEED");
        let deal = Deal::from_seed(Variant::Courtyard.rules(), seed);
        sat(&deal, &format!("deal {seed}"), show_it);
    }
}
