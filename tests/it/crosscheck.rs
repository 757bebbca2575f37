//! castle against an outside solver: PySolFC deals 1..120 of each classic variant (boards
//! dealt by pysol_cards) with the verdicts of fc-solve's complete single-card search
//! (`fc-solve -g GAME -to 0AB -sp r:tf`), committed in `data/crosscheck/` with their
//! provenance. fc-solve is not needed to run this test.

use crate::common::{castle, data};
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
    let path = data(&format!("crosscheck/{}.txt", variant.name()));
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
            let out = solver.solve(&deal).expect("the solution replays");
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

/// Beleaguered-castle deals 3041, 6378 and 6626 stayed `unknown` after 25 minutes with
/// earlier builds; fc-solve's heuristic searches printed a win for each (3041 with its preset
/// `as`, the others with its default search). fc-solve's output is committed
/// (`data/crosscheck/fc-solve/`), and so is castle's solve report of each win, its runs played
/// as single-card moves (`castle verify --fc-solve OUT ... --format json`); here the
/// independent checker, through `castle verify`, replays both to a won game from castle's own
/// deal of that number, comparing every position fc-solve printed on the way. So "winnable"
/// for these deals rests on fc-solve, not on castle's search.
const FC_SOLVE_WINS: [u64; 3] = [3041, 6378, 6626];

/// The ones of [`FC_SOLVE_WINS`] castle's default search wins too (3041 it does not, in 25
/// minutes).
const CASTLE_WINS: [u64; 2] = [6378, 6626];

fn fc_solve_win(seed: u64) -> (std::path::PathBuf, serde_json::Value) {
    let path = std::path::PathBuf::from(data(&format!(
        "crosscheck/beleaguered-castle-{seed}-fc-solve.json"
    )));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    (
        path,
        serde_json::from_str(&text).expect("committed JSON reads"),
    )
}

#[test]
fn fc_solve_wins_of_hard_deals_replay() {
    for seed in FC_SOLVE_WINS {
        let (path, file) = fc_solve_win(seed);
        let dealt = castle()
            .args([
                "deal",
                "-v",
                "bc",
                "--seed",
                &seed.to_string(),
                "--format",
                "json",
            ])
            .output()
            .unwrap();
        let dealt: serde_json::Value = serde_json::from_slice(&dealt.stdout).unwrap();
        assert_eq!(
            file["deal"], dealt["deal"],
            "deal {seed}: not castle's deal"
        );
        let moves = file["moves"].as_array().unwrap().len();
        assert!(moves > 100, "deal {seed}: {moves} moves");
        castle()
            .arg("verify")
            .arg(&path)
            .assert()
            .success()
            .stdout(format!("ok: {moves} moves replay to a won game\n"));
        // fc-solve's own output: every move and position checked, the runs expanded into
        // the very moves of the report.
        let raw = data(&format!(
            "crosscheck/fc-solve/beleaguered-castle-{seed}.out"
        ));
        let fc_moves = std::fs::read_to_string(&raw)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("Move"))
            .count();
        let verify = |format: &str| {
            castle()
                .args(["verify", "--fc-solve", &raw, "-v", "bc", "--seed"])
                .arg(seed.to_string())
                .args(["--format", format])
                .assert()
                .success()
        };
        verify("text").stdout(format!(
            "ok: fc-solve's {fc_moves} moves ({moves} single-card moves) replay to a won game\n"
        ));
        assert!(fc_moves < moves, "deal {seed}: no run to expand");
        let out = verify("json").get_output().stdout.clone();
        let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(report["deal"], file["deal"], "deal {seed}");
        assert_eq!(report["moves"], file["moves"], "deal {seed}");
        assert_eq!(report["verdict"], "solvable");
        assert!(report["source"].as_str().unwrap().contains("fc-solve"));
    }
}

/// `verify --fc-solve` refuses a line that does not fit the deal, and bad flags.
#[test]
fn fc_solve_output_of_another_deal_is_refused() {
    let raw = data("crosscheck/fc-solve/beleaguered-castle-3041.out");
    castle()
        .args(["verify", "--fc-solve", &raw, "-v", "bc", "--seed", "3042"])
        .assert()
        .code(1)
        .stdout(predicates::str::contains(
            "the start position: pile t1 differs",
        ));
    let empty = tempfile::NamedTempFile::new().unwrap();
    let empty = empty.path().to_str().unwrap();
    // Bad input, exit 2 with the reason on standard error.
    for (args, why) in [
        (
            vec!["--fc-solve", empty, "--seed", "1"],
            "the file is empty",
        ),
        (vec![&raw, "--seed", "3041"], "go with --fc-solve"),
        (vec![&raw, "--start-rank", "2"], "go with --fc-solve"),
        (
            vec!["--fc-solve", &raw, "-v", "fortress", "--seed", "1"],
            "fc-solve cannot play fortress",
        ),
    ] {
        castle()
            .arg("verify")
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicates::str::contains(why));
    }
}

/// The solver wins both (about 30 s and 75 s in a release build, so not in the default run:
/// `cargo test --release --test crosscheck -- --ignored`).
#[test]
#[ignore]
fn castle_wins_the_deals_fc_solve_won() {
    use castle::Deal;
    for seed in CASTLE_WINS {
        let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), seed);
        let out = Solver::default()
            .solve(&deal)
            .expect("the solution replays");
        assert_eq!(out.verdict, Verdict::Solvable, "deal {seed}");
        check_win(&deal, &steps_of(&out.moves)).expect("solution replays");
    }
}
