//! A batch killed with SIGKILL at a dozen points, each chosen by its progress (the rows in its
//! CSV file), and resumed each time, ends with the rows of a clean run: every seed once, each
//! with the same verdict, moves, nodes and states.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Full Beleaguered Castle deals with a node budget: each takes a few milliseconds to tens of
/// milliseconds, decided or `unknown` the same way on every run (no time budget).
const SEEDS: u64 = 300;

fn args(csv: &Path) -> Vec<String> {
    let last = SEEDS.to_string();
    let seeds = format!("1..{last}");
    [
        "batch",
        "-v",
        "bc",
        "--seeds",
        &seeds,
        "-j",
        "2",
        "--max-nodes",
        "100000",
        "--memory",
        "64",
        "-q",
        "--csv",
        csv.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec()
}

/// The whole rows of a batch file by seed, without the timing column; a torn last line (a
/// kill in the middle of a write) is not counted. Panics on a seed written twice.
fn rows(path: &Path) -> BTreeMap<u64, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let whole = &text[..text.rfind('\n').map_or(0, |p| p + 1)];
    let mut by = BTreeMap::new();
    for l in whole.lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(f.len(), castle::batch::HEADER.split(',').count(), "`{l}`");
        let seed: u64 = f[0].parse().unwrap();
        let without_ms = [&f[..9], &f[10..]].concat().join(",");
        assert!(
            by.insert(seed, without_ms).is_none(),
            "seed {seed} written twice"
        );
    }
    by
}

fn castle(args: &[String]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_castle"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn a_batch_killed_a_dozen_times_resumes_to_the_clean_run() {
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean.csv");
    let killed = dir.path().join("killed.csv");
    let out = castle(&args(&clean)).wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = rows(&clean);
    assert_eq!(want.len() as u64, SEEDS);

    let mut kills = Vec::new();
    for k in 1..=12 {
        let target = (SEEDS as usize) * k / 13;
        let mut child = castle(&args(&killed));
        let t0 = Instant::now();
        let finished = loop {
            if child.try_wait().unwrap().is_some() {
                break true;
            }
            if rows(&killed).len() >= target || t0.elapsed() > Duration::from_secs(30) {
                break false;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        if !finished {
            // `Child::kill` sends SIGKILL: no handler runs, no buffer is flushed.
            child.kill().unwrap();
            kills.push(rows(&killed).len());
        }
        let out = child.wait_with_output().unwrap();
        assert!(
            !finished || out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // At least ten of the kills came before the end, at rising points.
    assert!(
        kills.len() >= 10 && kills.last() < Some(&(SEEDS as usize)),
        "kills at {kills:?}"
    );
    let out = castle(&args(&killed)).wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = rows(&killed);
    assert_eq!(got.len(), want.len(), "kills at {kills:?}");
    for (seed, row) in &want {
        assert_eq!(got.get(seed), Some(row), "seed {seed}; kills at {kills:?}");
    }
    eprintln!("killed at {kills:?} rows of {SEEDS}");
}
