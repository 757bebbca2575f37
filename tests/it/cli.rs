//! The binary end to end: golden deal numbers, format round trips, the JSON contract read
//! back by `verify`, and bad input (exit code 2, a message naming the fault, never a panic).

use crate::common::{castle, data, run_castle, run_ok, temp_file, SMALL_BATCH};
use predicates::prelude::*;
use serde_json::Value;

/// Every variant, by the name the command line takes.
const VARIANTS: [&str; 6] = [
    "beleaguered-castle",
    "streets-and-alleys",
    "citadel",
    "fortress",
    "castile",
    "courtyard",
];

#[test]
fn deal_numbers_never_change() {
    for v in VARIANTS {
        for s in ["1", "2", "42", "1000000"] {
            let want = std::fs::read_to_string(data(&format!("golden/{v}-{s}.txt"))).unwrap();
            assert_eq!(
                run_ok(&["deal", "--variant", v, "--seed", s]),
                want,
                "{v} deal {s}"
            );
        }
    }
}

fn json_deal(args: &[&str]) -> Value {
    let v: Value = serde_json::from_str(&run_ok(args)).unwrap();
    v["deal"].clone()
}

#[test]
fn every_deal_format_round_trips() {
    for v in VARIANTS {
        let want = json_deal(&["deal", "--variant", v, "--seed", "7", "--format", "json"]);
        // fc-solve boards hold no stock: courtyard goes through text and JSON only.
        let formats: &[&str] = if v == "courtyard" {
            &["text", "json"]
        } else {
            &["text", "fcs", "json"]
        };
        for &fmt in formats {
            let file = temp_file(&run_ok(&[
                "deal",
                "--variant",
                v,
                "--seed",
                "7",
                "--format",
                fmt,
            ]));
            let path = file.path().to_str().unwrap();
            let got = json_deal(&["deal", "--variant", v, "--deal", path, "--format", "json"]);
            assert_eq!(got, want, "{v} through {fmt}");
            // And the text format reads back to the very same text.
            if fmt == "text" {
                let again = run_ok(&["deal", "--variant", v, "--deal", path]);
                assert_eq!(again, std::fs::read_to_string(path).unwrap());
            }
        }
    }
}

#[test]
fn solve_prints_the_json_contract_and_verify_accepts_it() {
    let text = run_ok(&["solve", "--seed", "2", "--format", "json"]);
    let v: Value = serde_json::from_str(&text).unwrap();
    for key in [
        "variant", "seed", "options", "deal", "verdict", "moves", "nodes", "states", "seconds",
        "limit",
    ] {
        assert!(v.get(key).is_some(), "missing `{key}`");
    }
    assert_eq!(v["variant"], "beleaguered-castle");
    assert_eq!(v["seed"], 2);
    assert_eq!(v["options"]["start_rank"], 1);
    assert_eq!(v["options"]["foundation_return"], false);
    assert_eq!(v["options"]["sequence_moves"], "single");
    assert_eq!(v["deal"]["foundations"][0], serde_json::json!(["AC"]));
    assert_eq!(v["verdict"], "solvable");
    assert!(v["limit"].is_null());
    let moves = v["moves"].as_array().unwrap();
    assert!(!moves.is_empty());
    assert!(moves
        .iter()
        .all(|m| m["card"].is_string() && m["from"].is_string() && m["to"].is_string()));
    let file = temp_file(&text);
    castle()
        .args(["verify", file.path().to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("ok:"));
}

#[test]
fn verify_names_the_first_illegal_move() {
    let text = run_ok(&["solve", "--seed", "2", "--format", "json"]);
    let mut v: Value = serde_json::from_str(&text).unwrap();
    // Drop move 3: the moves after it no longer fit, or the game ends unfinished.
    v["moves"].as_array_mut().unwrap().remove(2);
    let file = temp_file(&v.to_string());
    castle()
        .args(["verify", file.path().to_str().unwrap()])
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("move")
                .and(predicate::str::contains("illegal").or(predicate::str::contains("still off"))),
        );
    // A move onto a card of the wrong rank is named with its number and reason.
    let mut v: Value = serde_json::from_str(&text).unwrap();
    let first = v["moves"][0].clone();
    v["moves"] = serde_json::json!([{"card": first["card"], "from": first["from"], "to": "t9"}]);
    let file = temp_file(&v.to_string());
    castle()
        .args(["verify", file.path().to_str().unwrap()])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("move 1").and(predicate::str::contains("no pile t9")));
}

#[test]
fn a_deal_can_come_from_standard_input_and_a_budget_gives_unknown() {
    let deal = run_ok(&["deal", "--seed", "31"]);
    let out = castle()
        .args([
            "solve",
            "--deal",
            "-",
            "--format",
            "json",
            "--max-nodes",
            "50",
        ])
        .write_stdin(deal)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "unknown");
    assert_eq!(v["limit"], "nodes");
    assert_eq!(v["seed"], 31);
}

#[test]
fn text_output_reads_like_a_game() {
    let text = run_ok(&["solve", "--seed", "2"]);
    assert!(text.contains("[AC]"), "{text}");
    assert!(text.contains("solvable: won in"));
    assert!(text.contains("1. "));
    assert!(!text.contains('\x1b'), "no colour when piped");
}

/// Bad input: exit code 2, a message that names the fault, and no panic.
fn bad(args: &[&str], stdin: Option<&str>, expect: &[&str]) {
    let mut cmd = castle();
    cmd.args(args);
    if let Some(s) = stdin {
        cmd.write_stdin(s.to_string());
    }
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "castle {args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for e in expect {
        assert!(err.contains(e), "castle {args:?}: `{err}` lacks `{e}`");
    }
}

#[test]
fn bad_input_is_named_and_exits_2() {
    let good = run_ok(&["deal", "--seed", "3"]);
    let t1 = good
        .lines()
        .find(|l| l.starts_with("t1:"))
        .unwrap()
        .to_string();
    let first_card = t1.split_whitespace().nth(1).unwrap().to_string();
    let second_card = t1.split_whitespace().nth(2).unwrap().to_string();
    let solve = ["solve", "--deal", "-"];

    // A missing card: drop the first card of t1.
    let missing = good.replacen(&format!("t1: {first_card} "), "t1: ", 1);
    bad(
        &solve,
        Some(&missing),
        &["<stdin>", "missing 1 card", &first_card],
    );
    // A duplicate card: the second card of t1 written twice.
    let dup = good.replacen(
        &format!("t1: {first_card} "),
        &format!("t1: {second_card} "),
        1,
    );
    bad(&solve, Some(&dup), &["appears twice", &second_card]);
    // A card spelled 1X.
    let junk = good.replacen(&first_card, "1X", 1);
    bad(&solve, Some(&junk), &["line 6", "`1X` is not a card"]);
    // Wrong pile count: no t8.
    let short: String = good
        .lines()
        .filter(|l| !l.starts_with("t8:"))
        .map(|l| format!("{l}\n"))
        .collect();
    bad(&solve, Some(&short), &["8 tableau piles", "has 7"]);
    // An empty file.
    let empty = temp_file("");
    bad(
        &["solve", "--deal", empty.path().to_str().unwrap()],
        None,
        &["empty"],
    );
    // A file that is not there.
    bad(
        &["solve", "--deal", "/no/such/deal.txt"],
        None,
        &["/no/such/deal.txt"],
    );
    // The quotient's part of --memory: a percent from 1 to 90.
    for v in ["0", "91", "half"] {
        bad(
            &["solve", "--seed", "1", "--quotient-memory", v],
            None,
            &["--quotient-memory", v],
        );
    }
    // An unknown variant, on the command line and in a file.
    bad(
        &["solve", "--variant", "klondike", "--seed", "1"],
        None,
        &["unknown variant `klondike`"],
    );
    bad(
        &solve,
        Some(&good.replace("beleaguered-castle", "spider")),
        &["line 2", "unknown variant `spider`"],
    );
    // A start rank out of range.
    bad(
        &["deal", "--seed", "1", "--start-rank", "13"],
        None,
        &["--start-rank"],
    );
    // verify given something that is not a report.
    bad(
        &["verify", "-"],
        Some("{\"moves\": 3}"),
        &["not a solve report"],
    );
    // fc-solve boards: a bad foundation.
    bad(&solve, Some("Foundations: H-Z\nKS\n"), &["`H-Z`"]);
    // No deal at all.
    bad(&["solve"], None, &["--seed"]);
}

#[test]
fn variants_and_completions_print() {
    let v = run_ok(&["variants"]);
    for name in [
        "beleaguered-castle",
        "streets-and-alleys",
        "citadel",
        "beleaguered-fortress",
    ] {
        assert!(v.contains(name), "{name} missing from `castle variants`");
    }
    for shell in ["bash", "zsh", "fish"] {
        assert!(run_ok(&["completions", shell]).contains("castle"));
    }
}

#[test]
fn foreign_boards_are_read() {
    // fc-solve's layout of Beleaguered Castle, as in data/bench, and Solvitaire's JSON.
    let fcs = "Foundations: H-A C-A D-A S-A\n".to_string()
        + &run_ok(&["deal", "--seed", "5", "--format", "fcs"])
            .lines()
            .skip(1)
            .map(|l| format!(": {l}\n"))
            .collect::<String>();
    let a = castle()
        .args(["deal", "--deal", "-", "--format", "json"])
        .write_stdin(fcs)
        .output()
        .unwrap();
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    let deal: Value = serde_json::from_slice::<Value>(&a.stdout).unwrap()["deal"].clone();
    let solvitaire = serde_json::json!({
        "tableau piles": deal["tableau"],
        "foundations": deal["foundations"],
    });
    let b = castle()
        .args(["deal", "--deal", "-", "--format", "json"])
        .write_stdin(solvitaire.to_string())
        .output()
        .unwrap();
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    assert_eq!(
        serde_json::from_slice::<Value>(&b.stdout).unwrap()["deal"],
        deal
    );
}

#[test]
fn analyze_lists_every_legal_move_with_its_verdict() {
    let v: Value =
        serde_json::from_str(&run_ok(&["analyze", "--seed", "2", "--format", "json"])).unwrap();
    assert_eq!(v["verdict"], "solvable");
    let moves = v["moves"].as_array().unwrap();
    assert!(!moves.is_empty());
    // A winnable position has at least one move that keeps the win.
    assert!(moves.iter().any(|m| m["verdict"] == "solvable"));
    // Played moves first, then the analysis; an illegal prefix is bad input.
    let text = run_ok(&["analyze", "--seed", "2", "--after", "t8 f"]);
    assert!(text.contains("this position is"), "{text}");
    bad(
        &["analyze", "--seed", "2", "--after", "t1 t8"],
        None,
        &["--after: move 1", "illegal"],
    );
    bad(
        &["analyze", "--seed", "2", "--after", "t1"],
        None,
        &["not `FROM TO`"],
    );
    // A value that starts with a hyphen is still --after's (the fuzz test met `-1`, which
    // clap took for an unknown flag and whose message did not name --after).
    bad(
        &["analyze", "--seed", "2", "--after", "-1"],
        None,
        &["--after: move 1 `-1`"],
    );
}

/// The new variants' bad input: a third reserve card, a 53rd card in one deck, a stock in a
/// game without one, a start rank or PySolFC number where they do not apply.
#[test]
fn bad_input_of_the_new_variants_exits_2() {
    let castile = run_ok(&["deal", "--variant", "castile", "--seed", "3"]);
    let t1 = castile.lines().find(|l| l.starts_with("t1:")).unwrap();
    let top = t1.split_whitespace().last().unwrap();
    // The top card of t1 moved into a third reserve slot.
    let three = castile
        .lines()
        .map(|l| {
            if l.starts_with("t1:") {
                l.rsplit_once(' ').unwrap().0.to_string()
            } else if l.starts_with("reserve:") {
                format!("{l} {top}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    bad(
        &["solve", "--deal", "-"],
        Some(&three),
        &["<stdin>", "2 reserve cells", top],
    );
    // A 53rd card: t1's top card dealt twice in fortress.
    let fortress = run_ok(&["deal", "--variant", "fortress", "--seed", "3"]);
    let t1 = fortress.lines().find(|l| l.starts_with("t1:")).unwrap();
    let top = t1.split_whitespace().last().unwrap().to_string();
    let dup = fortress.replace(t1, &format!("{t1} {top}"));
    bad(
        &["solve", "--deal", "-"],
        Some(&dup),
        &[&format!("card {top} appears twice")],
    );
    // A stock in beleaguered-castle.
    let bc = run_ok(&["deal", "--seed", "3"]);
    let t1 = bc.lines().find(|l| l.starts_with("t1:")).unwrap();
    let (rest, top) = t1.rsplit_once(' ').unwrap();
    let stocked = bc.replace(t1, rest) + &format!("stock: {top}\n");
    bad(
        &["solve", "--deal", "-"],
        Some(&stocked),
        &["beleaguered-castle has no stock", top],
    );
    bad(
        &[
            "solve",
            "--variant",
            "fortress",
            "--seed",
            "1",
            "--start-rank",
            "2",
        ],
        None,
        &["--start-rank applies to"],
    );
    bad(
        &[
            "deal",
            "--variant",
            "courtyard",
            "--seed",
            "1",
            "--numbering",
            "pysol",
        ],
        None,
        &["courtyard"],
    );
    bad(
        &[
            "deal",
            "--variant",
            "courtyard",
            "--seed",
            "1",
            "--format",
            "fcs",
        ],
        None,
        &["--format fcs"],
    );
}

/// PySolFC's game numbers through the binary match the committed pysol_cards boards.
#[test]
fn pysol_numbers_through_the_binary() {
    let text = std::fs::read_to_string(data("pysol/beleaguered-castle.txt")).unwrap();
    let block: Vec<&str> = text
        .split("deal 67\n")
        .nth(1)
        .unwrap()
        .lines()
        .skip(1)
        .take(8)
        .collect();
    let fcs = run_ok(&[
        "deal",
        "--seed",
        "67",
        "--numbering",
        "pysol",
        "--format",
        "fcs",
    ]);
    let piles: Vec<&str> = fcs.lines().skip(1).collect();
    assert_eq!(piles, block);
}

/// A stock game solved with no node or time budget warns on standard error that the search
/// may not end; a budget, `--quiet` or a game without a stock keeps it quiet.
#[test]
fn an_unbounded_stock_game_is_warned_about() {
    let note = "a lost deal is rarely proved";
    let stderr = |args: &[&str]| {
        let out = castle().args(args).output().unwrap();
        assert!(out.status.success(), "castle {args:?} failed");
        String::from_utf8(out.stderr).unwrap()
    };
    assert!(stderr(&["solve", "-v", "courtyard", "--seed", "1"]).contains(note));
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("cy.csv");
    let csv = csv.to_str().unwrap();
    let batch = [
        "batch",
        "-v",
        "courtyard",
        "--seeds",
        "1",
        "-j",
        "1",
        "--csv",
        csv,
    ];
    assert!(stderr(&batch).contains(note));
    let courtyard = |extra: &[&str]| {
        let mut args = vec!["solve", "-v", "courtyard", "--seed", "1"];
        args.extend_from_slice(extra);
        stderr(&args)
    };
    let quiet = [
        courtyard(&["--max-nodes", "100000"]),
        courtyard(&["--max-seconds", "60"]),
        courtyard(&["-q"]),
        stderr(&["solve", "-v", "beleaguered-castle", "--seed", "1"]),
    ];
    for (k, err) in quiet.iter().enumerate() {
        assert!(!err.contains(note), "run {k} warned: {err}");
    }
}

/// Runs castle with `stdin`, and returns the exit code and standard error.
fn run_with(args: &[&str], stdin: &[u8]) -> (i32, String) {
    let out = run_castle(args, stdin, None);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn time_budgets_out_of_range_are_no_limit_or_refused() {
    // Above 100 years (up to infinity) is no limit; the deal is still solved.
    for s in ["1e19", "1e20", "inf"] {
        for cmd in [
            &["solve", "-q", "--start-rank", "11", "--seed", "1"][..],
            &["analyze", "--start-rank", "12", "--seed", "1"][..],
        ] {
            let mut args = cmd.to_vec();
            args.extend(["--max-seconds", s]);
            let (code, err) = run_with(&args, b"");
            assert_eq!(code, 0, "{args:?}: {err}");
        }
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("b.csv");
        let args = [
            &SMALL_BATCH[..],
            &["--max-seconds", s, "--csv", csv.to_str().unwrap()],
        ]
        .concat();
        assert_eq!(run_with(&args, b"").0, 0, "{args:?}");
    }
    for s in ["NaN", "0", "-inf"] {
        let (code, err) = run_with(
            &["solve", "--seed", "1", &format!("--max-seconds={s}")],
            b"",
        );
        assert_eq!(code, 2, "{s}: {err}");
        assert!(
            err.contains("--max-seconds must be a positive number"),
            "{err}"
        );
    }
    let (code, err) = run_with(&["play", "--seed", "1", "--coach-seconds=inf"], b"quit\n");
    assert_eq!(code, 0, "{err}");
    let (code, err) = run_with(
        &["solve", "--seed", "1", "--memory", "18446744073709551615"],
        b"",
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--memory"), "{err}");
}

#[test]
fn a_closed_pipe_ends_completions_quietly() {
    use std::process::{Command as Std, Stdio};
    for shell in ["fish", "bash", "zsh"] {
        let mut child = Std::new(env!("CARGO_BIN_EXE_castle"))
            .args(["completions", shell])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the reading end at once: every write fails with a broken pipe.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{shell}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn bytes_that_are_not_utf8_are_bad_input_named_by_line_and_byte() {
    let (code, err) = run_with(
        &["solve", "--deal", "-", "-q"],
        b"variant: bc\nt1: K\xffS\n",
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("<stdin>: line 2: byte 18 (column 6) is not UTF-8"),
        "{err}"
    );
    let (code, err) = run_with(&["verify", "-"], b"\xff");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("<stdin>: line 1: byte 1"), "{err}");
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), b"{\"a\":\n\"\xc3\"}").unwrap();
    let (code, err) = run_with(&["verify", f.path().to_str().unwrap()], b"");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("line 2: byte 8 (column 2)"), "{err}");
    let (code, err) = run_with(
        &["play", "--seed", "1", "--coach-nodes", "0"],
        b"help\n\xff\n",
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("<stdin>") && err.contains("UTF-8"), "{err}");
}

#[test]
fn a_byte_order_mark_is_read_not_shown() {
    let deal = run_ok(&["deal", "--seed", "7"]);
    let f = temp_file(&format!("\u{feff}{deal}"));
    let path = f.path().to_str().unwrap();
    assert_eq!(run_ok(&["deal", "--deal", path]), deal);
    let json = run_ok(&["solve", "--start-rank", "11", "--seed", "2", "-f", "json"]);
    let f = temp_file(&format!("\u{feff}{json}"));
    assert!(run_ok(&["verify", f.path().to_str().unwrap()]).starts_with("ok:"));
}

#[test]
fn verify_checks_the_verdict_against_the_moves() {
    let json = run_ok(&["solve", "--start-rank", "10", "--seed", "3", "-f", "json"]);
    assert!(json.contains("\"verdict\":\"solvable\""));
    for (verdict, want) in [("unsolvable", 1), ("unknown", 1), ("bogus", 2), ("", 2)] {
        let bad = json.replace(
            "\"verdict\":\"solvable\"",
            &format!("\"verdict\":\"{verdict}\""),
        );
        let f = temp_file(&bad);
        let out = castle().arg("verify").arg(f.path()).output().unwrap();
        let all = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(want), "{verdict:?}: {all}");
        if want == 1 {
            assert!(
                all.contains("replay to a won game, but the verdict says"),
                "{all}"
            );
        } else {
            assert!(
                all.contains("is not one of solvable, unsolvable, unknown"),
                "{all}"
            );
        }
    }
    // A line that stops short may carry any decided-or-not verdict but `solvable`.
    let v: Value = serde_json::from_str(&json).unwrap();
    let mut short = v.clone();
    short["moves"].as_array_mut().unwrap().truncate(2);
    for verdict in ["unknown", "unsolvable"] {
        short["verdict"] = verdict.into();
        let f = temp_file(&short.to_string());
        assert!(
            run_ok(&["verify", f.path().to_str().unwrap()]).starts_with("ok: 2 moves are legal")
        );
    }
}

#[test]
fn a_long_bad_token_is_cut_in_the_message() {
    let token = "X".repeat(5 << 20);
    let f = temp_file(&format!("variant: bc\nt1: {token}\n"));
    let (code, err) = run_with(&["solve", "--deal", f.path().to_str().unwrap()], b"");
    assert_eq!(code, 2);
    assert!(err.len() < 400, "{} bytes", err.len());
    assert!(
        err.contains("line 2: `XXXX") && err.contains(&format!("({} bytes)", 5 << 20)),
        "{err}"
    );
    // Messages of other modules quoting it whole are cut by the last guard in main.
    let after = format!("t1 {}", &token[..100_000]);
    let (code, err) = run_with(&["analyze", "--seed", "1", "--after", &after], b"");
    assert_eq!(code, 2);
    assert!(err.len() < 400, "{} bytes: {}", err.len(), &err[..200]);
}

#[test]
fn too_many_batch_workers_are_refused() {
    let (code, err) = run_with(&["batch", "--seeds", "1..2", "-j", "100000"], b"");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not in 1..=256"), "{err}");
}

#[test]
fn a_start_rank_in_a_deal_file_is_named_as_the_file_s() {
    let deal = run_ok(&["deal", "--seed", "1"]).replace("start-rank: 1", "start-rank: 13");
    let f = temp_file(&deal);
    let (code, err) = run_with(&["solve", "--deal", f.path().to_str().unwrap()], b"");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(": line 4: start rank 13 is out of range (0..12)"),
        "{err}"
    );
    assert!(!err.contains("--start-rank"), "{err}");
    let json = run_ok(&["deal", "--seed", "1", "-f", "json"])
        .replace("\"start_rank\": 1", "\"start_rank\": 13");
    let f = temp_file(&json);
    let (code, err) = run_with(&["solve", "--deal", f.path().to_str().unwrap()], b"");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("options.start_rank: start rank 13"), "{err}");
}

#[test]
fn jsonl_rows_and_a_csv_file_are_refused_together() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("b.csv");
    let args = [
        "batch",
        "--seeds",
        "1..2",
        "-f",
        "jsonl",
        "--csv",
        csv.to_str().unwrap(),
    ];
    let (code, err) = run_with(&args, b"");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--format jsonl") && err.contains("b.csv"),
        "{err}"
    );
    assert!(!csv.exists());
}
