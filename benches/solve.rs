//! Criterion benchmarks over fixed deal sets. The total node count of each set is printed
//! first: it is the regression signature (a change of search order or pruning shows up there
//! before it shows up in time). The full sets of the issue live behind `castle bench`.

use castle::bench::{run_set, DealSet};
use castle::deal::Numbering;
use castle::rules::Variant;
use castle::Solver;
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

criterion_group!(benches, bench);
criterion_main!(benches);
