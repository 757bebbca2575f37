//! A batch killed with SIGKILL at a dozen points, each chosen by its progress (the rows in its
//! CSV file), and resumed each time, ends with the rows of a clean run: every seed once, each
//! with the same verdict, moves, nodes and states. A batch stopped by Ctrl-C (SIGINT) or
//! SIGTERM says how many rows it saved and how to go on, exits with 130 or 143, leaves only
//! whole rows, and the same command finishes it with the rows of a clean run.

use crate::common::whole_batch_rows;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Full Beleaguered Castle deals with a node budget: each takes a few milliseconds to tens of
/// milliseconds, decided or `unknown` the same way on every run (no time budget).
const SEEDS: u64 = 300;

fn args(csv: &Path) -> Vec<String> {
    args_upto(SEEDS, csv)
}

/// `castle batch` on seeds `1..=last` (as [`args`]) into `csv`.
fn args_upto(last: u64, csv: &Path) -> Vec<String> {
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
    let want = whole_batch_rows(&clean);
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
            if whole_batch_rows(&killed).len() >= target || t0.elapsed() > Duration::from_secs(30) {
                break false;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        if !finished {
            // `Child::kill` sends SIGKILL: no handler runs, no buffer is flushed.
            child.kill().unwrap();
            kills.push(whole_batch_rows(&killed).len());
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
    let got = whole_batch_rows(&killed);
    assert_eq!(got.len(), want.len(), "kills at {kills:?}");
    for (seed, row) in &want {
        assert_eq!(got.get(seed), Some(row), "seed {seed}; kills at {kills:?}");
    }
    eprintln!("killed at {kills:?} rows of {SEEDS}");
}

/// Sends `signal` (`INT`, `TERM`) to a child, with the system's `kill` command.
#[cfg(unix)]
fn signal(child: &std::process::Child, signal: &str) {
    let sent = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success(), "kill -{signal}");
}

/// Waits until `done()` or the child ends (false then), for at most a minute.
#[cfg(unix)]
fn wait_for(child: &mut std::process::Child, done: impl Fn() -> bool) -> bool {
    let t0 = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        if done() {
            return true;
        }
        assert!(t0.elapsed() < Duration::from_secs(60), "no progress");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_a_batch_between_rows_and_the_same_command_goes_on() {
    // About a third of the kill test's seeds: several seconds on two threads.
    const LAST: u64 = 120;
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean.csv");
    let stopped = dir.path().join("stopped.csv");
    let out = castle(&args_upto(LAST, &clean)).wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = whole_batch_rows(&clean);
    assert_eq!(want.len() as u64, LAST);

    let mut child = castle(&args_upto(LAST, &stopped));
    let started = wait_for(&mut child, || whole_batch_rows(&stopped).len() >= 20);
    assert!(started, "the batch ended before 20 rows");
    signal(&child, "INT");
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    // Only whole rows: the file ends with a newline, and every line has every column.
    let text = std::fs::read_to_string(&stopped).unwrap();
    assert!(text.ends_with('\n'), "a torn last line: {text}");
    let saved = whole_batch_rows(&stopped);
    assert!(
        saved.len() >= 20 && (saved.len() as u64) < LAST,
        "{} rows",
        saved.len()
    );
    let name = stopped.display();
    let n = saved.len();
    assert!(
        stderr.contains(&format!(
            "stopped: {n} rows saved to {name} ({n} in all); run the same command to go on"
        )),
        "{stderr}"
    );
    for (seed, row) in &saved {
        assert_eq!(want.get(seed), Some(row), "seed {seed}");
    }

    let out = castle(&args_upto(LAST, &stopped))
        .wait_with_output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&format!("({n} done before)")),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(whole_batch_rows(&stopped), want);
}

#[cfg(unix)]
#[test]
fn sigterm_stops_json_lines_between_rows() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("out.jsonl");
    let mut a = args_upto(120, &jsonl);
    a.truncate(a.len() - 2);
    a.extend(["-f", "jsonl"].map(String::from));
    let mut child = Command::new(env!("CARGO_BIN_EXE_castle"))
        .args(&a)
        .stdout(std::fs::File::create(&jsonl).unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = || {
        std::fs::read_to_string(&jsonl)
            .unwrap_or_default()
            .matches('\n')
            .count()
    };
    assert!(
        wait_for(&mut child, || lines() >= 10),
        "the batch ended before 10 rows"
    );
    signal(&child, "TERM");
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    let text = std::fs::read_to_string(&jsonl).unwrap();
    assert!(text.ends_with('\n'), "a torn last line");
    for l in text.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert!(v["verdict"].is_string(), "{l}");
    }
    let n = text.lines().count();
    assert!(
        stderr.contains(&format!("stopped: {n} rows written to standard output")),
        "{stderr}"
    );
}

/// `castle batch` of bc deal 15995 alone on one thread, with `extra` flags, into `csv`.
fn bc_15995(extra: &[&str], csv: &Path) -> Vec<String> {
    ["batch", "-v", "bc", "--seeds", "15995", "-j", "1", "-q"]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .chain(["--csv".to_string(), csv.to_str().unwrap().to_string()])
        .collect()
}

/// Sends Ctrl-C (SIGINT) to `child` after `ms` milliseconds; its standard error, once it has
/// ended as a stopped batch does (exit 130).
#[cfg(unix)]
fn ctrl_c_after(child: std::process::Child, ms: u64) -> String {
    std::thread::sleep(Duration::from_millis(ms));
    signal(&child, "INT");
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    stderr
}

/// A batch stopped while a deal is being solved names it, with the pass it was in: without
/// the quotient bc 15995 is still undecided after 5,000,000 nodes (7 s on one thread; the
/// quotient proves it lost in 434,172), so it leaves a first pass of 100,000 nodes for the
/// second, and is still in it a moment later.
#[cfg(unix)]
#[test]
fn ctrl_c_names_the_deal_in_flight_and_its_pass() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("hard.csv");
    let pending = dir.path().join("hard.csv.pending");
    let mut child = castle(&bc_15995(
        &["--no-quotient", "--pass-nodes", "100000,30000000"],
        &csv,
    ));
    let carried = || {
        std::fs::read_to_string(&pending)
            .unwrap_or_default()
            .lines()
            .any(|l| l.starts_with("15995,"))
    };
    assert!(
        wait_for(&mut child, carried),
        "the batch ended before the deal left the first pass"
    );
    let stderr = ctrl_c_after(child, 200);
    assert!(
        stderr.contains("1 deal was in flight in pass 2 (15995 after ")
            && stderr.contains("the next run solves it again from the start of that pass"),
        "{stderr}"
    );
}

/// The last pass puts a deal's start on record before its search: a run stopped in it by a
/// signal adds the time it had spent, one killed outright leaves the start counted, and both
/// send the deal behind the untried ones (`the_last_pass_takes_the_deals_tried_before_last`
/// checks that order). Without the quotient bc 15995 takes more than 5,000,000 nodes, 7 s
/// on one thread, so both runs stop it before its end.
#[cfg(unix)]
#[test]
fn a_stopped_last_pass_counts_the_deals_it_started() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("last.csv");
    let pending = dir.path().join("last.csv.pending");
    std::fs::write(
        &pending,
        "seed,next_pass,nodes,ms,cpu_ms,quick,portfolio,quotient,attempts,probes,tries,tried_ms\n\
         15995,3,30000000,40000,40000,1000,0,0,29999000,0,0,0\n",
    )
    .unwrap();
    let args = bc_15995(&["--memory", "256", "--no-quotient"], &csv);
    // The last line for the deal, as `(tries, tried_ms)`.
    let last = || {
        std::fs::read_to_string(&pending)
            .unwrap_or_default()
            .lines()
            .rev()
            .find(|l| l.starts_with("15995,"))
            .map(|l| {
                let f: Vec<u64> = l.split(',').map(|x| x.parse().unwrap()).collect();
                (f[10], f[11])
            })
    };
    let mut child = castle(&args);
    assert!(
        wait_for(&mut child, || last() == Some((1, 0))),
        "the start was not put on record"
    );
    let stderr = ctrl_c_after(child, 300);
    assert!(
        stderr.contains("in flight in the last pass (15995 after ")
            && stderr.contains("after the deals tried less"),
        "{stderr}"
    );
    let (tries, ms) = last().unwrap();
    assert!(tries == 1 && ms >= 300, "{tries} tries, {ms} ms");
    // Killed outright: only the start is on record.
    let mut child = castle(&args);
    assert!(
        wait_for(&mut child, || last().is_some_and(|(t, _)| t == 2)),
        "the second start was not put on record"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(last(), Some((2, ms)));
    let rows = std::fs::read_to_string(&csv).unwrap_or_default();
    assert!(rows.lines().count() <= 1, "{rows}");
}

/// `castle solve` stopped by Ctrl-C or SIGTERM reports the deal `unknown` (the solve was
/// stopped) and exits with 130 or 143, as a shell reports a process the signal killed.
/// Courtyard deal 4 is still searching after 2 s (the stop tests' `hard_courtyard`).
#[cfg(unix)]
#[test]
fn a_solve_stopped_by_a_signal_reports_unknown() {
    for (sig, code) in [("INT", 130), ("TERM", 143)] {
        let child = Command::new(env!("CARGO_BIN_EXE_castle"))
            .args([
                "solve",
                "-v",
                "courtyard",
                "-s",
                "4",
                "-j",
                "1",
                "-q",
                "--format",
                "json",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(1000));
        signal(&child, sig);
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "SIG{sig}: {stderr}");
        let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(report["verdict"], "unknown", "{stdout}");
        assert_eq!(report["limit"], "stopped", "{stdout}");
    }
}
