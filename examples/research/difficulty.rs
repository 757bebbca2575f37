//! Measures the difficulty grade (`castle::difficulty`): for the winnable deals of a range of
//! a published table, the simple player's grade under two playout seeds, written as CSV, and
//! the cost per deal on stderr. docs/difficulty.md reads its output.
//!
//! `cargo run --release --example difficulty -- VARIANT FIRST LAST [PLAYOUTS] > grades.csv`

use castle::deal::Numbering;
use castle::difficulty::{grade_with, PATIENCE, PLAYOUTS, PLAYOUT_SEED};
use castle::winrates::winnable;
use castle::{Deal, Variant};
use rayon::prelude::*;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: difficulty VARIANT FIRST LAST [PLAYOUTS]";
    let variant: Variant = args.first().expect(usage).parse().expect("a variant");
    let first: u64 = args.get(1).expect(usage).parse().expect("a number");
    let last: u64 = args.get(2).expect(usage).parse().expect("a number");
    let k: u32 = args
        .get(3)
        .map_or(PLAYOUTS, |s| s.parse().expect("a number"));
    let patience: u32 = args
        .get(4)
        .map_or(PATIENCE, |s| s.parse().expect("a number"));
    let t = castle::winnable::table(&variant.rules(), Numbering::Castle).expect("a table");
    let seeds: Vec<u64> = (first..=last)
        .filter(|&s| winnable(t.bits, t.first, t.last, s) == Some(true))
        .collect();
    let start = Instant::now();
    let rows: Vec<String> = seeds
        .par_iter()
        .map(|&s| {
            let deal = Deal::from_seed(variant.rules(), s);
            let a = grade_with(&deal, k, patience, PLAYOUT_SEED);
            let b = grade_with(&deal, k, patience, PLAYOUT_SEED + 1_000_003);
            format!(
                "{s},{},{:.4},{},{:.4},{},{}",
                a.wins, a.home, b.wins, b.home, a.spare, b.spare
            )
        })
        .collect();
    let secs = start.elapsed().as_secs_f64();
    println!("seed,wins_a,home_a,wins_b,home_b,spare_a,spare_b");
    for r in rows {
        println!("{r}");
    }
    eprintln!(
        "{} winnable deals of {variant} {first}..{last}, {k} playouts twice: {secs:.1} s wall, {:.2} ms a deal a grade",
        seeds.len(),
        1000.0 * secs * rayon::current_num_threads() as f64 / (2 * seeds.len().max(1)) as f64
    );
}
