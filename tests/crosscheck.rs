//! castle against an outside solver: PySolFC deals 1..120 of each classic variant (boards
//! dealt by pysol_cards) with the verdicts of fc-solve's complete single-card search
//! (`fc-solve -g GAME -to 0AB -sp r:tf`), committed in `data/crosscheck/` with their
//! provenance. fc-solve is not needed to run this test.

use castle::check::{check_win, steps_of};
use castle::formats::{read_deal, Format, ReadOptions};
use castle::rules::Variant;
use castle::{Solver, Verdict};
use rayon::prelude::*;

struct Case {
    deal: u64,
    verdict: Option<Verdict>,
    board: String,
}

fn cases(variant: Variant) -> Vec<Case> {
    let path = format!(
        "{}/data/crosscheck/{}.txt",
        env!("CARGO_MANIFEST_DIR"),
        variant.name()
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let body: String = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    body.split("\n\n")
        .filter(|b| !b.trim().is_empty())
        .map(|block| {
            let block = block.trim();
            let (head, board) = block.split_once('\n').expect("header and board");
            let words: Vec<&str> = head.split_whitespace().collect();
            assert_eq!(words[0], "deal", "{path}: bad header `{head}`");
            let verdict = match words[2] {
                "solvable" => Some(Verdict::Solvable),
                "unsolvable" => Some(Verdict::Unsolvable),
                "timeout" => None,
                other => panic!("{path}: unknown verdict {other}"),
            };
            Case {
                deal: words[1].parse().unwrap(),
                verdict,
                board: board.to_string(),
            }
        })
        .collect()
}

fn agree_with_fc_solve(variant: Variant) {
    let cases = cases(variant);
    assert_eq!(cases.len(), 120, "{variant}: expected 120 deals");
    let mut solver = Solver::default();
    solver.limits.max_nodes = Some(40_000_000);
    solver.limits.memory_bytes = 1 << 30;
    // Deals fc-solve could not decide in 30 s are left out: there is nothing to compare.
    let results: Vec<(u64, Option<Verdict>, Verdict)> = cases
        .par_iter()
        .filter(|c| c.verdict.is_some())
        .map(|c| {
            let deal = read_deal(
                &c.board,
                &format!("{variant} deal {}", c.deal),
                ReadOptions {
                    variant: Some(variant),
                    format: Some(Format::Fcs),
                    ..Default::default()
                },
            )
            .expect("committed board reads");
            let out = solver.solve(&deal);
            if out.verdict == Verdict::Solvable {
                check_win(&deal, &steps_of(&out.moves)).expect("solution replays");
            }
            (c.deal, c.verdict, out.verdict)
        })
        .collect();
    let mut compared = 0;
    for (n, theirs, ours) in &results {
        assert_ne!(
            *ours,
            Verdict::Unknown,
            "{variant} PySolFC deal {n}: castle gave up"
        );
        if let Some(theirs) = theirs {
            assert_eq!(
                ours, theirs,
                "{variant} PySolFC deal {n}: fc-solve says {theirs}"
            );
            compared += 1;
        }
    }
    assert!(
        compared >= 100,
        "{variant}: only {compared} verdicts compared"
    );
}

#[test]
fn beleaguered_castle_agrees_with_fc_solve() {
    agree_with_fc_solve(Variant::BeleagueredCastle);
}

#[test]
fn streets_and_alleys_agrees_with_fc_solve() {
    agree_with_fc_solve(Variant::StreetsAndAlleys);
}

#[test]
fn citadel_agrees_with_fc_solve() {
    agree_with_fc_solve(Variant::Citadel);
}
