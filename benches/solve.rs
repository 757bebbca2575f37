//! Criterion benchmarks over fixed deal sets. The total node count of each set is printed
//! first: it is the regression signature (a change of search order or pruning shows up there
//! before it shows up in time). The full benchmark sets live behind `castle bench`.

use castle::bench::{run_set, DealSet};
use castle::deal::{Deal, Numbering};
use castle::moves::Move;
use castle::rules::Variant;
use castle::shorten::shorten;
use castle::{Solver, Verdict};
use criterion::{criterion_group, criterion_main, Criterion};

fn sets() -> Vec<(&'static str, DealSet)> {
    vec![
        (
            "beleaguered-castle 1..=40",
            DealSet {
                variant: Variant::BeleagueredCastle,
                first: 1,
                last: 40,
                max_seconds: None,
                numbering: Numbering::Castle,
            },
        ),
        (
            "streets-and-alleys 1..=20",
            DealSet {
                variant: Variant::StreetsAndAlleys,
                first: 1,
                last: 20,
                max_seconds: None,
                numbering: Numbering::Castle,
            },
        ),
        (
            "castile 1..=100",
            DealSet {
                variant: Variant::Castile,
                first: 1,
                last: 100,
                max_seconds: None,
                numbering: Numbering::Castle,
            },
        ),
    ]
}

fn bench(c: &mut Criterion) {
    let solver = Solver::default();
    let mut group = c.benchmark_group("solve");
    group.sample_size(10);
    for (name, set) in sets() {
        let r = run_set(&set, &solver).expect("the solutions replay");
        println!(
            "{name}: {} won, {} lost, {} unknown, {} nodes (signature)",
            r.solvable, r.unsolvable, r.unknown, r.nodes
        );
        group.bench_function(name, |b| {
            b.iter(|| run_set(&set, &solver).expect("the solutions replay"))
        });
    }
    group.finish();
}

/// The shortening pass alone, on the first wins (unshortened) of citadel 1..=100 in PySolFC's
/// numbering: every solve of a winnable deal runs it, so on easy deals it is a large part of
/// the time to a verdict. The moves in and out are printed as its signature.
fn shortening(c: &mut Criterion) {
    let raw = Solver {
        shorten: false,
        short: None,
        ..Solver::default()
    };
    let lines: Vec<(Deal, Vec<Move>)> = (1..=100)
        .filter_map(|seed| {
            let deal = Deal::numbered(Variant::Citadel.rules(), Numbering::Pysol, seed).ok()?;
            let out = raw.solve(&deal).ok()?;
            (out.verdict == Verdict::Solvable).then_some((deal, out.moves))
        })
        .collect();
    let shortened = |lines: &[(Deal, Vec<Move>)]| -> usize {
        lines
            .iter()
            .map(|(deal, moves)| shorten(deal, moves).expect("a win shortens").len())
            .sum()
    };
    println!(
        "shortening citadel 1..=100 pysol: {} lines, {} moves -> {} (signature)",
        lines.len(),
        lines.iter().map(|l| l.1.len()).sum::<usize>(),
        shortened(&lines)
    );
    // Streets-and-alleys deals the quotient wins with a long line (the first pass's and the
    // second's costliest shortenings in the million's first eighth): the shortcuts' step.
    let long: Vec<(Deal, Vec<Move>)> = [11256, 30103, 30452, 103152, 84859]
        .into_iter()
        .filter_map(|seed| {
            let deal = Deal::from_seed(Variant::StreetsAndAlleys.rules(), seed);
            let out = raw.solve(&deal).ok()?;
            (out.verdict == Verdict::Solvable).then_some((deal, out.moves))
        })
        .collect();
    println!(
        "shortening sa's long lines: {} lines, {} moves -> {} (signature)",
        long.len(),
        long.iter().map(|l| l.1.len()).sum::<usize>(),
        shortened(&long)
    );
    let mut group = c.benchmark_group("shorten");
    group.sample_size(10);
    group.bench_function("citadel 1..=100 pysol", |b| b.iter(|| shortened(&lines)));
    group.bench_function("sa long lines", |b| b.iter(|| shortened(&long)));
    group.finish();
}

criterion_group!(benches, bench, shortening);
criterion_main!(benches);
