//! Measures the difficulty grade (`castle::difficulty`) behind docs/difficulty.md.
//!
//! `cargo run --release --example difficulty -- stability VARIANT FIRST LAST`: the winnable
//! deals of that range of the variant's tier file graded again with other playout streams
//! (seed `PLAYOUT_SEED + 1000003`), tiered on the same cuts: the share of deals whose tier
//! is the same, and the confusion between tiers.
//!
//! `cargo run --release --example difficulty -- feel VARIANT N`: the first N deals of each
//! tier of the variant's tier file: the simple player's win rate under the other streams, the
//! length of the win `castle solve` prints, and its critical positions (`castle solve --format
//! html` marks them: positions where only one or two moves keep the win).

use castle::check::steps_of;
use castle::critical::{mark_line, marking_solver, MARK_NODES};
use castle::deal::Numbering;
use castle::difficulty::{grade_with, tier_at, Tier, PATIENCE, PLAYOUTS, PLAYOUT_SEED};
use castle::winnable::tiers;
use castle::{Deal, Solver, Variant, Verdict};
use rayon::prelude::*;
use std::time::Instant;

/// The other playout streams.
const OTHER_SEED: u64 = PLAYOUT_SEED + 1_000_003;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: difficulty stability VARIANT FIRST LAST | feel VARIANT N";
    let variant: Variant = args.get(1).expect(usage).parse().expect("a variant");
    let t = tiers(variant, Numbering::Castle).expect("a tier file");
    let start = Instant::now();
    match args[0].as_str() {
        "stability" => {
            let first: u64 = args.get(2).expect(usage).parse().expect("a number");
            let last: u64 = args.get(3).expect(usage).parse().expect("a number");
            let pairs: Vec<(Tier, Tier)> = (first.max(t.first)..=last.min(t.last))
                .into_par_iter()
                .filter_map(|s| {
                    let a = tier_at(t.tiers, t.first, t.last, s)?;
                    let deal = Deal::from_seed(variant.rules(), s);
                    let g = grade_with(&deal, PLAYOUTS, PATIENCE, OTHER_SEED);
                    Some((a, t.cuts.tier(g.score())))
                })
                .collect();
            let same = pairs.iter().filter(|(a, b)| a == b).count();
            let far = pairs
                .iter()
                .filter(|(a, b)| (*a as i8 - *b as i8).abs() == 2)
                .count();
            println!(
                "{variant} {first}..{last}: {} winnable deals, same tier under other playouts {:.1}%, easy<->hard {:.1}% ({:.0} s wall)",
                pairs.len(),
                100.0 * same as f64 / pairs.len().max(1) as f64,
                100.0 * far as f64 / pairs.len().max(1) as f64,
                start.elapsed().as_secs_f64()
            );
        }
        "feel" => {
            let n: usize = args.get(2).expect(usage).parse().expect("a number");
            println!("{variant}, the first {n} deals of each tier:");
            println!("tier    simple player wins   win length (mean)   critical positions (mean)");
            for tier in Tier::ALL {
                let seeds: Vec<u64> = (t.first..=t.last)
                    .filter(|&s| tier_at(t.tiers, t.first, t.last, s) == Some(tier))
                    .take(n)
                    .collect();
                let rows: Vec<(u32, usize, usize)> = seeds
                    .par_iter()
                    .map(|&s| {
                        let deal = Deal::from_seed(variant.rules(), s);
                        let wins = grade_with(&deal, PLAYOUTS, PATIENCE, OTHER_SEED).wins;
                        let out = Solver::default().solve(&deal).expect("a solve");
                        assert_eq!(out.verdict, Verdict::Solvable, "{variant} {s}");
                        let steps = steps_of(&out.moves);
                        let auto = castle::html::automatic_moves(&deal, &steps);
                        let player: Vec<bool> = auto.iter().map(|a| !a).collect();
                        let marks = mark_line(&deal, &steps, &player, &marking_solver(MARK_NODES))
                            .expect("the marks");
                        let critical = marks.iter().flatten().filter(|c| c.critical()).count();
                        (wins, steps.len(), critical)
                    })
                    .collect();
                let k = rows.len().max(1) as f64;
                let wins: u32 = rows.iter().map(|r| r.0).sum();
                println!(
                    "{:<7} {:>17.1}%   {:>17.1}   {:>25.1}",
                    tier.name(),
                    100.0 * f64::from(wins) / (k * f64::from(PLAYOUTS)),
                    rows.iter().map(|r| r.1).sum::<usize>() as f64 / k,
                    rows.iter().map(|r| r.2).sum::<usize>() as f64 / k,
                );
            }
            eprintln!("({:.0} s wall)", start.elapsed().as_secs_f64());
        }
        _ => panic!("{usage}"),
    }
}
