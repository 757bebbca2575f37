//! `castle batch` and `castle stats` end to end: shards merge to the unsharded run, a run
//! killed part-way resumes to the same rows with none lost or doubled, and corrupt input is
//! named by file and line.

use crate::common::{batch_rows, castle, run_ok};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

fn batch(args: &[&str]) {
    run_ok(&[&["batch"], args, &["--quiet"]].concat());
}

#[test]
fn shards_merged_equal_the_unsharded_run() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.csv");
    batch(&[
        "--variant",
        "citadel",
        "--seeds",
        "1..45",
        "--csv",
        whole.to_str().unwrap(),
    ]);
    let mut merged = BTreeMap::new();
    let mut files = Vec::new();
    for k in 0..3 {
        let p = dir.path().join(format!("shard{k}.csv"));
        batch(&[
            "--variant",
            "citadel",
            "--seeds",
            "1..45",
            "--shard",
            &format!("{k}/3"),
            "--csv",
            p.to_str().unwrap(),
            "-j",
            "1",
        ]);
        for (s, r) in batch_rows(&p) {
            assert!(merged.insert(s, r).is_none(), "seed {s} in two shards");
        }
        files.push(p);
    }
    assert_eq!(merged, batch_rows(&whole));
    // `stats` over the shards prints what it prints over the whole run.
    let stats = |paths: &[&Path]| {
        let out = castle().arg("stats").args(paths).output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let shard_refs: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    assert_eq!(stats(&shard_refs), stats(&[whole.as_path()]));
    // The same file twice: duplicates are reported, not double-counted.
    let twice = stats(&[whole.as_path(), whole.as_path()]);
    assert!(twice.contains("45 rows appeared more than once"), "{twice}");
    assert!(twice.contains("deals 45:"), "{twice}");
}

#[test]
fn a_killed_run_resumes_with_no_row_lost_or_doubled() {
    let dir = tempfile::tempdir().unwrap();
    let reference = dir.path().join("reference.csv");
    let resumed = dir.path().join("resumed.csv");
    let args = |p: &Path| -> Vec<String> {
        [
            "batch",
            "--seeds",
            "1..120",
            "-j",
            "1",
            "--csv",
            p.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec()
    };
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("castle"));
    let mut child = cmd.args(args(&resumed)).arg("--quiet").spawn().unwrap();
    // Kill it once some rows are written (or after a while, whichever is first).
    let t0 = Instant::now();
    loop {
        let n = std::fs::read_to_string(&resumed)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if n > 20 || t0.elapsed() > Duration::from_secs(60) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = batch_rows(&resumed).len();
    assert!(before < 120, "the run finished before it could be killed");
    // A power cut in the middle of a write leaves a torn last line; resume must cut it.
    std::fs::OpenOptions::new()
        .append(true)
        .open(&resumed)
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"999,beleaguered-cas"))
        .unwrap();
    let out = castle().args(args(&resumed)).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("({before} done before)")));
    batch(
        &args(&reference)[1..]
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert_eq!(batch_rows(&resumed), batch_rows(&reference));
}

#[test]
fn corrupt_files_are_named_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.csv");
    let good = dir.path().join("good.csv");
    batch(&["--seeds", "1..5", "--csv", good.to_str().unwrap()]);
    let mut text = std::fs::read_to_string(&good).unwrap();
    text = text.replacen(
        "beleaguered-castle,1,false,single,",
        "beleaguered-castle,x,false,single,",
        1,
    );
    std::fs::write(&p, text).unwrap();
    for args in [
        vec!["stats", p.to_str().unwrap()],
        vec![
            "batch",
            "--seeds",
            "1..9",
            "--quiet",
            "--csv",
            p.to_str().unwrap(),
        ],
    ] {
        let out = castle().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("bad.csv: line 2"), "{args:?}: {err}");
    }
    std::fs::write(&p, "seed,verdict\n1,solvable\n").unwrap();
    let out = castle()
        .args(["stats", p.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 1: not a castle batch file"));
}

#[test]
fn winnable_only_lists_the_won_seeds() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("b.csv");
    let won = dir.path().join("won.txt");
    batch(&[
        "--seeds",
        "1..30",
        "--csv",
        csv.to_str().unwrap(),
        "--winnable-only",
        won.to_str().unwrap(),
    ]);
    let mut listed: Vec<u64> = std::fs::read_to_string(&won)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    listed.sort_unstable();
    let from_rows: Vec<u64> = batch_rows(&csv)
        .into_iter()
        .filter(|(_, r)| r.contains(",solvable,"))
        .map(|(s, _)| s)
        .collect();
    assert_eq!(listed, from_rows);
    assert!(!listed.is_empty());
}

/// A file written before the `numbering` column resumes: it is rewritten once with the
/// current header, its rows kept, and the run goes on after them.
#[test]
fn a_file_from_before_the_numbering_column_resumes() {
    // Files of each older layout: the first three rows cut to the old columns.
    for old_header in [castle::batch::HEADER_V1, castle::batch::HEADER_V2] {
        let dir = tempfile::tempdir().unwrap();
        let full = dir.path().join("full.csv");
        batch(&["--seeds", "1..6", "--csv", full.to_str().unwrap()]);
        let columns = old_header.split(',').count();
        let cut = |rows: BTreeMap<u64, String>| -> BTreeMap<u64, String> {
            rows.into_iter()
                .map(|(s, l)| {
                    // `rows` dropped `ms`, so the old columns are one fewer.
                    let f: Vec<&str> = l.split(',').take(columns - 1).collect();
                    (s, f.join(","))
                })
                .collect()
        };
        let want = cut(batch_rows(&full));
        let text = std::fs::read_to_string(&full).unwrap();
        let mut lines: Vec<String> = text
            .lines()
            .skip(1)
            .filter(|l| l.split(',').next().unwrap().parse::<u64>().unwrap() <= 3)
            .map(|l| l.split(',').take(columns).collect::<Vec<_>>().join(","))
            .collect();
        lines.insert(0, old_header.to_string());
        let old = dir.path().join("old.csv");
        std::fs::write(&old, lines.join("\n") + "\n").unwrap();
        batch(&["--seeds", "1..6", "--csv", old.to_str().unwrap()]);
        // Rewritten with the current header, the old rows kept, the others added.
        assert_eq!(cut(batch_rows(&old)), want, "{old_header}");
    }
}

/// PySolFC numbering in a batch: the rows say so, and deal 1's row is PySolFC game 1's.
#[test]
fn pysol_numbering_in_a_batch() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("p.csv");
    batch(&[
        "--seeds",
        "1..3",
        "--numbering",
        "pysol",
        "--csv",
        f.to_str().unwrap(),
    ]);
    let r = batch_rows(&f);
    assert_eq!(r.len(), 3);
    assert!(r.values().all(|l| l.contains(",pysol,")), "{r:?}");
    // Mixing numberings in one file is refused.
    let out = castle()
        .args([
            "batch",
            "--seeds",
            "1..3",
            "--quiet",
            "--csv",
            f.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("numbering pysol in the file, castle here (--numbering)"),
        "{err}"
    );
}

/// `--retry-unknown` solves again exactly the seeds whose rows all say `unknown`, appends one
/// row for each, and leaves the decided seeds alone; `stats` then counts the decided rows.
#[test]
fn retry_unknown_solves_only_the_unknown_seeds_again() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("b.csv");
    let path = csv.to_str().unwrap();
    let verdicts = || -> Vec<(u64, String)> {
        let text = std::fs::read_to_string(&csv).unwrap();
        text.lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f[0].parse().unwrap(), f[5].to_string())
            })
            .collect()
    };
    // A budget too small for most deals.
    batch(&["--seeds", "1..12", "--csv", path, "--max-nodes", "3000"]);
    let first = verdicts();
    // Rows come in completion order.
    let mut unknown: Vec<u64> = first
        .iter()
        .filter(|(_, v)| v == "unknown")
        .map(|&(s, _)| s)
        .collect();
    unknown.sort_unstable();
    assert_eq!(first.len(), 12);
    assert!(!unknown.is_empty() && unknown.len() < 12, "{first:?}");
    // Without the flag, a resume has nothing to do.
    batch(&["--seeds", "1..12", "--csv", path]);
    assert_eq!(verdicts(), first);
    // With it, the unknown seeds and only they get a row each, decided.
    batch(&["--seeds", "1..12", "--csv", path, "--retry-unknown"]);
    let after = verdicts();
    assert_eq!(after[..12], first[..]);
    let mut retried: Vec<u64> = after[12..].iter().map(|&(s, _)| s).collect();
    retried.sort_unstable();
    assert_eq!(retried, unknown);
    assert!(after[12..].iter().all(|(_, v)| v != "unknown"), "{after:?}");
    // Again: nothing left to retry.
    batch(&["--seeds", "1..12", "--csv", path, "--retry-unknown"]);
    assert_eq!(verdicts(), after);
    let out = castle().args(["stats", path]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let rows = if unknown.len() == 1 { "row" } else { "rows" };
    assert!(
        text.contains(&format!("{} {rows} appeared more than once", unknown.len())),
        "{text}"
    );
    assert!(text.contains("unknown 0"), "{text}");
    // The flag needs a file to read.
    castle()
        .args(["batch", "--seeds", "1..2", "--retry-unknown"])
        .assert()
        .code(2);
}

/// A retry searches for wins along other lines (its salt is the deal's count of `unknown`
/// rows; see `Solver::salt`), so the same budget that left a deal unknown can decide it on
/// the retry. Streets-and-alleys 66 and 129 on one thread with 50,000 nodes: `unknown` twice
/// in a row without a file (the search is the same, node for node), both won on the retry
/// with the same budget, and each win replays (`solve --salt 1` with the budget finds it, and
/// `verify` replays its report); with `--salt 1` given, the first run already wins them. A
/// deal started in the last pass by a run that never ended it draws anew as well.
#[test]
fn a_retry_is_another_search_for_a_win() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("r.csv");
    let path = csv.to_str().unwrap();
    let budget: Vec<&str> = "-v sa --seeds 66,129 -j 1 --one-pass --max-nodes 50000"
        .split(' ')
        .collect();
    let verdicts = |args: &[&str]| -> Vec<(u64, String)> {
        let out = run_ok(&[&["batch"], &budget[..], args, &["--quiet"]].concat());
        let mut v: Vec<(u64, String)> = out
            .lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f[0].parse().unwrap(), f[5].to_string())
            })
            .collect();
        v.sort();
        assert_eq!(v.len(), 2, "{out}");
        v
    };
    for _ in 0..2 {
        assert!(verdicts(&[]).iter().all(|(_, v)| v == "unknown"));
    }
    assert!(verdicts(&["--salt", "1"])
        .iter()
        .all(|(_, v)| v == "solvable"));
    run_ok(&[&["batch"], &budget[..], &["--csv", path, "--quiet"]].concat());
    run_ok(
        &[
            &["batch"],
            &budget[..],
            &["--csv", path, "--retry-unknown", "--quiet"],
        ]
        .concat(),
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 4, "{text}");
    assert!(rows[..2].iter().all(|r| r[5] == "unknown"), "{text}");
    assert!(rows[2..].iter().all(|r| r[5] == "solvable"), "{text}");
    for seed in ["66", "129"] {
        let report = dir.path().join(format!("{seed}.json"));
        let args = format!("solve -v sa --seed {seed} --max-nodes 50000 --salt 1 -f json");
        let json = run_ok(&args.split(' ').collect::<Vec<_>>());
        assert!(json.contains(r#""verdict":"solvable""#), "{json}");
        std::fs::write(&report, json).unwrap();
        run_ok(&["verify", report.to_str().unwrap()]);
    }
    // A deal an earlier run started in the last pass and never ended (its tries in the
    // pending file) draws anew too: with one try on record 66 is won, with none it is the
    // search that left it unknown.
    for (tries, verdict) in [(0, "unknown"), (1, "solvable")] {
        let csv = dir.path().join(format!("t{tries}.csv"));
        std::fs::write(
            dir.path().join(format!("t{tries}.csv.pending")),
            format!(
                "seed,next_pass,nodes,ms,cpu_ms,quick,portfolio,quotient,attempts,probes,tries,tried_ms\n\
                 66,3,100,1,1,100,0,0,0,0,{tries},0\n"
            ),
        )
        .unwrap();
        let mut args: Vec<&str> =
            "batch -v sa --seeds 66 -j 1 --max-nodes 50000 --pass-nodes 1000 --quiet --csv"
                .split(' ')
                .collect();
        args.push(csv.to_str().unwrap());
        run_ok(&args);
        assert_eq!(column(&csv, "verdict")[&66], verdict, "{tries} tries");
        // The last of two passes (a pass of 1,000 nodes, then 50,000).
        assert_eq!(column(&csv, "pass")[&66], "2", "{tries} tries");
    }
}

fn stderr_of(args: &[&str]) -> (Option<i32>, String) {
    let out = castle().args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_torn_header_is_written_again_on_resume() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.csv");
    let clean = dir.path().join("clean.csv");
    let args = ["--seeds", "1..3", "-j", "1", "--start-rank", "8"];
    batch(&[&args[..], &["--csv", clean.to_str().unwrap()]].concat());
    for torn in [
        "",
        "seed,variant,sta",
        castle::batch::HEADER,
        "\u{feff}seed",
    ] {
        std::fs::write(&p, torn).unwrap();
        batch(&[&args[..], &["--csv", p.to_str().unwrap()]].concat());
        assert_eq!(batch_rows(&p), batch_rows(&clean), "torn header {torn:?}");
    }
    // Text that is not the start of a header is left as it is.
    std::fs::write(&p, "my notes").unwrap();
    let (code, err) = stderr_of(&[&["batch"][..], &args, &["--csv", p.to_str().unwrap()]].concat());
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("t.csv: line 1: not a castle batch file"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "my notes");
}

#[test]
fn stats_names_the_column_and_reads_a_byte_order_mark() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("b.csv");
    batch(&[
        "--seeds",
        "1..3",
        "--start-rank",
        "9",
        "--csv",
        p.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, format!("\u{feff}{text}")).unwrap();
    let out = castle()
        .args(["stats", p.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("deals 3: winnable 3"));
    // A resume appends to the file with its mark.
    batch(&[
        "--seeds",
        "1..4",
        "--start-rank",
        "9",
        "--csv",
        p.to_str().unwrap(),
    ]);
    let bad = text.replacen(",solvable,", ",solvable,x", 1);
    std::fs::write(&p, bad).unwrap();
    let (code, err) = stderr_of(&["stats", p.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("b.csv: line 2: bad row: column `moves`"),
        "{err}"
    );
    let mut bytes = format!("{}\n1,x", castle::batch::HEADER).into_bytes();
    bytes.push(0xff);
    bytes.push(b'\n');
    std::fs::write(&p, bytes).unwrap();
    let (code, err) = stderr_of(&["stats", p.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("b.csv: line 2: byte"), "{err}");
}

#[test]
fn a_second_batch_on_one_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("b.csv");
    let path = p.to_str().unwrap();
    // A batch that runs until it is killed: deals with no node budget, one worker.
    let mut first = std::process::Command::new(env!("CARGO_BIN_EXE_castle"))
        .args([
            "batch",
            "--seeds",
            "1..1000000",
            "-j",
            "1",
            "-q",
            "--memory",
            "16",
        ])
        .args(["--csv", path])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while std::fs::metadata(&p).map_or(0, |m| m.len()) == 0 {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "the first batch did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let (code, err) = stderr_of(&["batch", "--seeds", "1..1000000", "-q", "--csv", path]);
    first.kill().unwrap();
    first.wait().unwrap();
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "{path}: another castle batch (process {})",
            first.id()
        )),
        "{err}"
    );
    // Once the first has ended, the file is free again.
    batch(&[
        "--seeds",
        "1",
        "--start-rank",
        "1",
        "--max-nodes",
        "10",
        "--csv",
        path,
    ]);
}

#[test]
fn a_range_of_any_length_starts_at_once_and_stops_with_its_reader() {
    use std::io::BufRead;
    let t0 = Instant::now();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_castle"))
        .args([
            "batch",
            "--seeds",
            "0..18446744073709551615",
            "--start-rank",
            "11",
        ])
        .args(["-j", "2", "-q"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    assert_eq!(lines.next().unwrap().unwrap(), castle::batch::HEADER);
    assert!(lines.next().unwrap().unwrap().contains(",solvable,"));
    // The reader goes away: the batch ends (a closed pipe is success) instead of solving on.
    drop(lines);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert!(t0.elapsed() < Duration::from_secs(20), "{:?}", t0.elapsed());
}

#[test]
fn a_list_of_seeds_runs_each_once_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let (list, whole) = (dir.path().join("list.csv"), dir.path().join("whole.csv"));
    batch(&["--seeds", "1..12", "--csv", whole.to_str().unwrap()]);
    let whole = batch_rows(&whole);
    // Out of order, overlapping, with a repeat: each seed once, rows as the range's.
    batch(&["--seeds", "9,2..4,3..5,9", "--csv", list.to_str().unwrap()]);
    let want = |seeds: &[u64]| -> BTreeMap<u64, String> {
        seeds.iter().map(|s| (*s, whole[s].clone())).collect()
    };
    assert_eq!(batch_rows(&list), want(&[2, 3, 4, 5, 9]));
    // A longer list on the same file adds only the seeds it lacks.
    batch(&["--seeds", "1..5,9..12", "--csv", list.to_str().unwrap()]);
    assert_eq!(batch_rows(&list), want(&[1, 2, 3, 4, 5, 9, 10, 11, 12]));
    let out = castle()
        .args(["batch", "--seeds", "1..5,8..x", "--quiet"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--seeds `8..x`"), "{err}");
}

/// The verdict column (and the pass column) of a batch file, by seed.
fn column(path: &Path, name: &str) -> BTreeMap<u64, String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = header.iter().position(|c| *c == name).unwrap();
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].parse().unwrap(), f[at].to_string())
        })
        .collect()
}

/// Passes with small node budgets decide every deal as one pass does, deals that need more
/// than the first budget are decided in a later pass (their rows say which and count every
/// pass's nodes), and the closing line says how many each pass decided.
#[test]
fn passes_decide_what_one_pass_decides() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.csv");
    let passes = dir.path().join("passes.csv");
    batch(&[
        "--seeds",
        "1..30",
        "--one-pass",
        "--csv",
        one.to_str().unwrap(),
    ]);
    let out = castle()
        .args([
            "batch",
            "--seeds",
            "1..30",
            "--quiet",
            "--pass-nodes",
            "2000,5000",
        ])
        .args(["--csv", passes.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(column(&passes, "verdict"), column(&one, "verdict"));
    let pass = column(&passes, "pass");
    let by = |p: &str| pass.values().filter(|v| *v == p).count();
    assert!(by("1") > 0 && by("2") > 0 && by("3") > 0, "{pass:?}");
    assert!(
        said.contains(&format!(
            "decided {} in pass 1, {} in pass 2, {} in the last pass",
            by("1"),
            by("2"),
            by("3")
        )),
        "{said}"
    );
    // A deal of the first pass took at most its budget, and one the quick phase decides
    // (1,000 nodes, before any budget binds) is the one-pass solve node for node; past it a
    // budget shrinks the portfolio's slices in proportion, so the nodes may differ. A deal of a
    // later pass counts the first pass's budget too.
    let (n1, np) = (column(&one, "nodes"), column(&passes, "nodes"));
    for (seed, p) in &pass {
        let (a, b): (u64, u64) = (n1[seed].parse().unwrap(), np[seed].parse().unwrap());
        match p.as_str() {
            "1" => {
                assert!(b <= 2000, "deal {seed}: {b} nodes");
                assert!(
                    a > 1000 || a == b,
                    "deal {seed}: {a} nodes in one pass, {b} in passes"
                );
            }
            _ => assert!(b > 2000, "deal {seed}: {b} nodes"),
        }
    }
    assert!(!dir.path().join("passes.csv.pending").exists());
}

/// A stopped batch leaves the deals it had carried to a later pass in `FILE.pending`; the
/// next run takes each up in that pass, its row counting what the file says it cost, and
/// removes the file at the end.
#[test]
fn a_pending_deal_resumes_in_its_pass() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("p.csv");
    batch(&["--seeds", "1..3", "--csv", csv.to_str().unwrap()]);
    let pending = dir.path().join("p.csv.pending");
    std::fs::write(
        &pending,
        "seed,next_pass,nodes,ms,cpu_ms,quick,portfolio,quotient,attempts,probes\n\
         5,3,123456789,1000,900,1000,0,0,123455789,0\n\
         6,2,777,1,1,777,0,0,0,0\n\
         7,2,77",
    )
    .unwrap();
    batch(&["--seeds", "1..7", "--csv", csv.to_str().unwrap()]);
    let pass = column(&csv, "pass");
    let nodes = column(&csv, "nodes");
    assert_eq!(pass.len(), 7);
    assert_eq!(pass[&5], "3", "{pass:?}");
    assert!(nodes[&5].parse::<u64>().unwrap() > 123456789);
    assert_eq!(pass[&6], "2");
    assert!(nodes[&6].parse::<u64>().unwrap() > 777);
    // The torn line's deal starts again from the first pass.
    assert_eq!(pass[&7], "1");
    assert!(!pending.exists());
}

/// The last pass takes the deals that earlier runs started there and never ended after the
/// others, the least tried first (fewer starts, then less time), whatever their seeds; a
/// pending file of an older build (no tries) still reads, and a line of either kind may
/// follow its header.
#[test]
fn the_last_pass_takes_the_deals_tried_before_last() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("t.csv");
    let pending = dir.path().join("t.csv.pending");
    std::fs::write(
        &pending,
        "seed,next_pass,nodes,ms,cpu_ms,quick,portfolio,quotient,attempts,probes\n\
         5,3,100000,10,10,1000,0,0,99000,0\n\
         5,3,100000,10,10,1000,0,0,99000,0,2,0\n\
         6,3,100000,10,10,1000,0,0,99000,0,1,90000\n\
         7,3,100000,10,10,1000,0,0,99000,0,1,50\n\
         8,3,100000,10,10,1000,0,0,99000,0\n\
         9,3,100000,10,10,1000,0,0,99000,0,0,0\n",
    )
    .unwrap();
    batch(&["--seeds", "5..9", "-j", "1", "--csv", csv.to_str().unwrap()]);
    let text = std::fs::read_to_string(&csv).unwrap();
    let order: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(order, ["8", "9", "7", "6", "5"]);
    assert!(column(&csv, "pass").values().all(|p| p == "3"));
    assert!(!pending.exists());
}

/// A run over part of the range keeps the pending carries of the deals outside it: the file
/// then holds just those, and the run that covers them takes each up in its pass.
#[test]
fn a_run_over_part_of_the_range_keeps_the_other_deals_pending() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("p.csv");
    let pending = dir.path().join("p.csv.pending");
    let header = "seed,next_pass,nodes,ms,cpu_ms,quick,portfolio,quotient,attempts,probes";
    std::fs::write(
        &pending,
        format!(
            "{header}\n\
             2,3,123456789,1000,900,1000,0,0,123455789,0\n\
             9,3,987654321,2000,1900,1000,0,0,987653321,0\n"
        ),
    )
    .unwrap();
    batch(&["--seeds", "1..4", "--csv", csv.to_str().unwrap()]);
    assert_eq!(column(&csv, "pass")[&2], "3");
    // Rewritten in this build's form (an older build's file, no tries: none).
    let left = std::fs::read_to_string(&pending).unwrap();
    assert_eq!(
        left,
        format!("{header},tries,tried_ms\n9,3,987654321,2000,1900,1000,0,0,987653321,0,0,0\n")
    );
    batch(&["--seeds", "1..9", "--csv", csv.to_str().unwrap()]);
    let (pass, nodes) = (column(&csv, "pass"), column(&csv, "nodes"));
    assert_eq!(pass.len(), 9);
    assert_eq!(pass[&9], "3", "{pass:?}");
    assert!(nodes[&9].parse::<u64>().unwrap() > 987654321);
    assert!(!pending.exists());
}
