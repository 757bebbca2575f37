//! Everyday use, round two: what a new user tripped over (a courtyard analysis that failed,
//! formats that did not read back, budgets that did not bound the command, inputs without a
//! size cap, a resumed batch's win rate, the small words). Every win here is replayed by the
//! independent checker, and every test here failed on the code before its fix.

use crate::common::{castle, run_ok, temp_file};
use castle::check::{check_win, steps_of, Board};
use castle::{Deal, Limits, Solver, Variant, Verdict};

fn budget(nodes: u64) -> Solver {
    Solver {
        limits: Limits {
            max_nodes: Some(nodes),
            ..Limits::default()
        },
        ..Solver::default()
    }
}

/// A courtyard move that empties a pile leaves its fill from the stock due: the position after
/// it (what `analyze` solves for each move) must be solved with the fill first, and every
/// line the solver returns replays. Deals 1, 2, 3, 5 and 6 all start with an ace on a pile of
/// one card, whose move home empties it.
#[test]
fn courtyard_positions_waiting_for_a_fill_are_solved_fill_first() {
    let solver = budget(200_000);
    let mut waiting = 0;
    for seed in 1..=6 {
        let deal = Deal::from_seed(Variant::Courtyard.rules(), seed);
        let board = Board::new(&deal);
        let analysis = castle::analyze::analyze(&board, &solver)
            .unwrap_or_else(|e| panic!("courtyard {seed}: {e:#?}"));
        for (step, out) in &analysis.moves {
            let mut next = board.clone();
            next.play(step).unwrap();
            let pending = next.pending_fill().is_some();
            waiting += usize::from(pending);
            if out.verdict == Verdict::Solvable {
                let line = steps_of(&out.moves);
                check_win(&next.to_deal(), &line)
                    .unwrap_or_else(|e| panic!("courtyard {seed} after {step}: {e}"));
                if pending {
                    assert!(
                        line[0].from == "s" || line[0].from == "w",
                        "courtyard {seed} after {step}: the line starts {}",
                        line[0]
                    );
                }
            }
        }
    }
    assert!(waiting >= 5, "only {waiting} moves left a fill due");
}

/// The same through the binary: `analyze --max-seconds 1` on courtyard 1 (the user's
/// command) exits 0 and lists the ace's move home.
#[test]
fn courtyard_analyze_runs_to_the_end() {
    let out = run_ok(&[
        "analyze",
        "-v",
        "courtyard",
        "--seed",
        "1",
        "--max-nodes",
        "300000",
    ]);
    assert!(out.contains("AC t5 -> f"), "{out}");
}

/// Every format castle writes reads back to the same position: random reachable positions of
/// every variant (random legal walks of the checker's moves from numbered deals, with the rule
/// options on some), written as text, as JSON and, where the format holds the game (one deck,
/// no stock), as an fc-solve board, and read again with the rule options the command line
/// would give. Empty piles (a pile emptied in play, a courtyard pile waiting for its fill)
/// come up on many of the walks, and are counted.
#[test]
fn every_format_reads_back_the_position_it_wrote() {
    use castle::formats::{read_deal, write_fcs, write_text, Format, ReadOptions};
    use castle::rules::SequenceMoves;
    use rand::{Rng, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(51);
    let (mut positions, mut with_empty, mut fcs) = (0, 0, 0);
    for variant in Variant::ALL {
        for k in 0..40u64 {
            let mut rules = variant.rules();
            if k % 3 == 1 {
                rules = rules.with_foundation_return(true);
            }
            if k % 4 == 2 {
                rules = rules.with_sequence_moves(SequenceMoves::Unlimited);
            }
            if k % 5 == 3 && variant.has_start_rank() {
                rules = rules.with_start_rank(rng.gen_range(0..=12)).unwrap();
            }
            let deal = Deal::from_seed(rules, 1 + k);
            let mut board = Board::new(&deal);
            for _ in 0..rng.gen_range(0..400) {
                let steps = board.legal_steps();
                if steps.is_empty() {
                    break;
                }
                // Half the time a move home or one that empties its pile, if there is one:
                // positions with empty piles come up on most walks.
                let empties = |s: &&castle::check::Step| {
                    s.to == "f"
                        || matches!(s.from, castle::pile::Pile::Tableau(k)
                            if board.tableau[usize::from(k)].len() == s.count)
                };
                let keen: Vec<_> = steps.iter().filter(empties).collect();
                let step = if !keen.is_empty() && rng.gen_bool(0.5) {
                    keen[rng.gen_range(0..keen.len())]
                } else {
                    &steps[rng.gen_range(0..steps.len())]
                };
                board.play(&step.clone()).unwrap();
                if board.tableau.iter().any(Vec::is_empty) && rng.gen_bool(0.5) {
                    break;
                }
            }
            let mut position = board.to_deal();
            if k % 2 == 0 {
                position.seed = Some(k);
            }
            position.validate().unwrap();
            positions += 1;
            with_empty += usize::from(position.tableau.iter().any(Vec::is_empty));
            let opts = |format| ReadOptions {
                variant: Some(variant),
                start_rank: Some(rules.options.start_rank).filter(|_| variant.has_start_rank()),
                foundation_return: Some(rules.options.foundation_return),
                sequence_moves: Some(rules.options.sequence_moves),
                format: Some(format),
            };
            let what = format!("{variant} {k}: {position:?}");
            let text = write_text(&position);
            let back = read_deal(&text, "text", opts(Format::Text)).unwrap_or_else(|e| {
                panic!("{what}\n{text}\n{e}");
            });
            assert_eq!(back, position, "text\n{text}");
            // The text format also detects itself and carries its own rules.
            let back = read_deal(&text, "text", ReadOptions::default()).unwrap();
            assert_eq!(back, position, "text, detected\n{text}");
            let mut json = Vec::new();
            castle::report::write_deal(&mut json, &position, castle::deal::Numbering::Castle)
                .unwrap();
            let json = String::from_utf8(json).unwrap();
            let back = read_deal(&json, "json", ReadOptions::default())
                .unwrap_or_else(|e| panic!("{what}\n{json}\n{e}"));
            assert_eq!(back, position, "json\n{json}");
            if let Ok(board) = write_fcs(&position) {
                fcs += 1;
                let back = read_deal(&board, "fcs", opts(Format::Fcs))
                    .unwrap_or_else(|e| panic!("{what}\n{board}\n{e}"));
                assert_eq!(
                    back,
                    Deal {
                        seed: None,
                        ..position.clone()
                    },
                    "fcs\n{board}"
                );
                // Detected as fc-solve's format, too.
                let back = read_deal(
                    &board,
                    "fcs",
                    ReadOptions {
                        format: None,
                        ..opts(Format::Fcs)
                    },
                )
                .unwrap_or_else(|e| panic!("{what}\n{board}\n{e}"));
                assert_eq!(back.tableau, position.tableau, "fcs, detected\n{board}");
            }
        }
    }
    assert!(
        with_empty >= 60,
        "{with_empty} of {positions} with an empty pile"
    );
    println!("{positions} positions, {with_empty} with an empty pile, {fcs} fc-solve boards");
    assert!(fcs >= 150, "{fcs} fc-solve boards");
}

/// `--max-seconds` bounds the whole solve, the shortening of the win included:
/// streets-and-alleys 679's first win (21,442 moves, found in about 0.2 s, with the schedule of
/// that day) took 7 s to shorten whatever the budget. With a budget of 2 s the line printed
/// replays, and when the deadline stopped the shortening the text and the JSON both say so
/// (which happens depends on the first win the schedule finds: the unit test
/// `shorten::tests` forces the cut with a deadline already passed).
#[test]
fn the_time_budget_bounds_the_shortening_too() {
    let args = [
        "solve",
        "-v",
        "sa",
        "--seed",
        "679",
        "--max-seconds",
        "2",
        "-q",
    ];
    let json = run_ok(&[&args[..], &["-f", "json"]].concat());
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["verdict"], "solvable", "{json}");
    let cut = v["shortening_cut"] == true;
    let moves = v["moves"].as_array().unwrap().len();
    assert!(v["first_win_moves"].as_u64().unwrap() as usize >= moves);
    let f = temp_file(&json);
    let out = run_ok(&["verify", f.path().to_str().unwrap()]);
    assert!(out.starts_with("ok"), "{out}");
    let text = run_ok(&args);
    assert_eq!(
        text.contains("the time budget (--max-seconds 2) stopped the shortening"),
        cut,
        "{}",
        &text[text.len().saturating_sub(400)..]
    );
}

/// Runs castle with `stdin`, killed after a minute (a reader without a cap never ends on
/// `/dev/zero`): the exit code and standard error.
fn run_bounded(args: &[&str], stdin: &[u8]) -> (Option<i32>, String) {
    let out = castle()
        .args(args)
        .write_stdin(stdin)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap_or_else(|e| panic!("castle {args:?} did not end: {e}"));
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Deal files, solve reports, saved games and batch files are read with a cap: a file of
/// endless zeros is refused as bad input (exit 2) with a message naming it and the cap, not
/// read until memory runs out; `load /dev/full` in play's line mode is refused and the game
/// goes on.
#[test]
fn endless_input_is_refused_with_a_clear_error() {
    let refused = |args: &[&str], stdin: &[u8], name: &str| {
        let (code, err) = run_bounded(args, stdin);
        assert_eq!(code, Some(2), "castle {args:?}: {err}");
        assert!(err.contains(name) && err.contains("MiB"), "{err}");
        assert!(err.len() < 300, "{err}");
    };
    refused(&["solve", "--deal", "/dev/zero"], b"", "/dev/zero");
    refused(&["deal", "--deal", "/dev/zero"], b"", "/dev/zero");
    refused(&["verify", "/dev/zero"], b"", "/dev/zero");
    refused(&["stats", "/dev/zero"], b"", "/dev/zero");
    refused(&["play", "--load", "/dev/zero"], b"", "/dev/zero");
    // Nine MiB on standard input: more than any deal.
    let big = vec![b' '; 9 << 20];
    refused(&["solve", "--deal", "-"], &big, "<stdin>");
    // Play's line mode refuses the file and takes the next command.
    let (code, err) = run_bounded(
        &["play", "--seed", "1", "--lines"],
        b"load /dev/full\nquit\n",
    );
    assert_eq!(code, Some(0), "{err}");
    let out = castle()
        .args(["play", "--seed", "1", "--lines"])
        .write_stdin("load /dev/full\nquit\n")
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("/dev/full: more than 8 MiB"), "{text}");
}

/// The standard error of a batch run (which must succeed).
fn batch_err(args: &[&str]) -> String {
    let out = castle().args(args).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "castle {args:?}: {err}");
    err
}

/// A resumed batch ends with the win rate of the whole file (as `castle stats` computes it
/// from the file), beside its own deals' rate; so does a run with nothing left to do.
#[test]
fn a_resumed_batch_gives_the_file_s_win_rate() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("bc.csv");
    let csv = csv.to_str().unwrap();
    let run = |seeds: &str| {
        batch_err(&[
            "batch",
            "-q",
            "-j",
            "2",
            "--max-nodes",
            "20000",
            "--seeds",
            seeds,
            "--csv",
            csv,
        ])
    };
    let first = run("1..10");
    assert!(!first.contains(&format!("in {csv}")), "{first}");
    let file_rate = || {
        let v: serde_json::Value =
            serde_json::from_str(&run_ok(&["stats", csv, "--format", "json"])).unwrap();
        format!(
            "in {csv}: {} deals, win rate {:.2}%",
            v["deals"],
            100.0 * v["win_rate"].as_f64().unwrap()
        )
    };
    let resumed = run("1..30");
    assert!(resumed.contains("(10 done before)"), "{resumed}");
    assert!(resumed.contains(&file_rate()), "{resumed}\n{}", file_rate());
    let again = run("1..30");
    assert!(again.starts_with("nothing to do"), "{again}");
    assert!(again.contains(&file_rate()), "{again}");
}

/// A batch on a file of other options names each option that differs, with its flag.
#[test]
fn a_batch_on_a_file_of_other_options_names_the_option() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("bc.csv");
    let csv = csv.to_str().unwrap();
    let base = [
        "batch",
        "-q",
        "--max-nodes",
        "2000",
        "--seeds",
        "1..2",
        "--csv",
        csv,
    ];
    batch_err(&base);
    let refused = |extra: &[&str], says: &str| {
        let out = castle().args(base).args(extra).output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(says), "{extra:?}: {err}");
        assert!(err.contains("line 2"), "{err}");
    };
    refused(
        &["--start-rank", "2"],
        "start rank 1 in the file, 2 here (--start-rank)",
    );
    refused(
        &["--foundation-return"],
        "foundation return off in the file, on here (--foundation-return)",
    );
    refused(
        &["--sequence-moves", "unlimited"],
        "sequence moves single in the file, unlimited here (--sequence-moves)",
    );
    refused(
        &["--numbering", "pysol"],
        "numbering castle in the file, pysol here (--numbering)",
    );
    // Another variant: its own start rank is no option given, and is not named.
    let out = castle().args(base).args(["-v", "sa"]).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("variant beleaguered-castle in the file, streets-and-alleys here (--variant)")
            && !err.contains("start rank"),
        "{err}"
    );
}

/// The short search's last line names what stopped it, and never advises a flag already
/// given: under `--short --max-seconds 1` it is the time budget (bc 1's short search runs for
/// many seconds), with the default budget the positions (`--short` searches longer).
#[test]
fn the_short_search_names_what_stopped_it() {
    let last = |args: &[&str]| run_ok(args).lines().last().unwrap().to_string();
    let timed = last(&[
        "solve",
        "--seed",
        "1",
        "--short",
        "--max-seconds",
        "1",
        "-q",
    ]);
    assert!(timed.starts_with("short search: "), "{timed}");
    assert!(!timed.contains("--short"), "{timed}");
    assert!(
        timed.contains("no win is shorter")
            || timed.contains("the time budget (--max-seconds 1) stopped it"),
        "{timed}"
    );
    let plain = last(&["solve", "--seed", "1", "-q"]);
    assert!(
        plain.contains("(--short with a larger --short-nodes searches longer)"),
        "{plain}"
    );
}

/// `stats --csv FILE` writes the CSV that `stats --format csv` prints (one format, with the
/// point win rate beside both interval ends); a `--csv` that cannot be written (a directory)
/// is bad input, exit 2, with the system's reason said once.
#[test]
fn stats_writes_one_csv_and_names_a_file_it_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let rows = dir.path().join("bc.csv");
    let rows = rows.to_str().unwrap();
    batch_err(&[
        "batch",
        "-q",
        "--max-nodes",
        "20000",
        "--seeds",
        "1..8",
        "--csv",
        rows,
    ]);
    let printed = run_ok(&["stats", rows, "--format", "csv"]);
    let file = dir.path().join("summary.csv");
    run_ok(&["stats", rows, "--csv", file.to_str().unwrap()]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), printed);
    assert!(
        printed.lines().next().unwrap().contains(",win_rate,"),
        "{printed}"
    );
    let d = dir.path().to_str().unwrap();
    let out = castle().args(["stats", rows, "--csv", d]).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(d), "{err}");
    assert_eq!(err.matches("os error").count(), 1, "{err}");
}

/// A 100 KB flag value is not echoed whole by clap's messages (cut as castle's own, with its
/// length in bytes), spaces or not; nor is a 100 KB line by play's line mode.
#[test]
fn long_values_are_cut_in_every_message() {
    let words = "1 ".repeat(50_000);
    let long = "x".repeat(100_000);
    for args in [
        vec!["solve", "--seed", long.as_str()],
        vec!["solve", "--seed", words.as_str()],
        vec!["deal", long.as_str()],
        vec!["batch", "--seeds", "1", "-j", words.as_str()],
    ] {
        let out = castle().args(&args).output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", &err[..err.len().min(300)]);
        assert!(err.len() < 600, "{} bytes: {}", err.len(), &err[..300]);
        assert!(err.contains("bytes)"), "{err}");
    }
    let script = format!("{words}\nt1 {long}\nquit\n");
    let out = castle()
        .args(["play", "--seed", "1", "--lines"])
        .write_stdin(script)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let errors: Vec<&str> = text.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 2, "{}", &text[..text.len().min(2000)]);
    for e in errors {
        assert!(
            e.len() < 200 && e.contains("bytes)"),
            "{}",
            &e[..e.len().min(300)]
        );
    }
}

/// `verify` checks that a report's `seed` names its deal: a report whose number was changed
/// (or whose cards were) fails, naming the number and the first pile that differs; the
/// same report with its own number, or with PySolFC's numbering named, passes.
#[test]
fn verify_refuses_a_seed_that_is_not_the_deal() {
    let report = run_ok(&["solve", "--seed", "42", "-f", "json", "-q"]);
    let check = |text: &str| {
        let f = temp_file(text);
        let out = castle()
            .args(["verify", f.path().to_str().unwrap()])
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    assert_eq!(check(&report).0, Some(0));
    let moved = report.replacen("\"seed\":42", "\"seed\":43", 1);
    assert_ne!(moved, report);
    let (code, out) = check(&moved);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("`seed` says beleaguered-castle deal 43") && out.contains("t1 differs"),
        "{out}"
    );
    let pysol = run_ok(&[
        "solve",
        "--seed",
        "42",
        "--numbering",
        "pysol",
        "-f",
        "json",
        "-q",
    ]);
    assert_eq!(check(&pysol).0, Some(0));
    let (code, out) =
        check(&pysol.replacen("\"numbering\":\"pysol\"", "\"numbering\":\"castle\"", 1));
    assert_eq!(code, Some(1), "{out}");
}

/// The JSON report of `castle solve ARGS -f json -q`.
fn solve_json(args: &[&str]) -> serde_json::Value {
    let out = run_ok(&[&["solve", "-f", "json", "-q"], args].concat());
    serde_json::from_str(&out).unwrap()
}

/// `--spill DIR` lets the usual schedule run and goes to disk only when its memory runs out:
/// deal 42 is won as fast as without it (it was `unknown` after 5 s, the layered search's
/// first levels); bc 85 (lost: the plain exact search proves it, below) in 3 MiB fills the
/// schedule's table, and the layered search then proves it lost on disk, both searches'
/// nodes counted. `--layered` still selects the layered search from the start.
#[test]
fn spill_goes_to_disk_only_when_the_memory_runs_out() {
    let dir = tempfile::tempdir().unwrap();
    let spill = dir.path().to_str().unwrap();
    let won = solve_json(&["--seed", "42", "--max-seconds", "5", "--spill", spill]);
    assert_eq!(won["verdict"], "solvable", "{won}");
    assert_ne!(won["phase"], "layered");
    assert!(won.get("spill").is_none(), "{won}");
    let exact = solve_json(&["--seed", "85", "--no-quotient"]);
    assert_eq!(
        (&exact["verdict"], &exact["phase"]),
        (&"unsolvable".into(), &"complete".into())
    );
    let small = solve_json(&[
        "--seed",
        "85",
        "--no-quotient",
        "--memory",
        "3",
        "--spill",
        spill,
    ]);
    assert_eq!(small["verdict"], "unsolvable", "{small}");
    assert_eq!(small["phase"], "layered", "{small}");
    assert!(
        small["spill"]["written_bytes"].as_u64().unwrap() > 0,
        "{small}"
    );
    assert_eq!(std::fs::read_dir(spill).unwrap().count(), 0);
    let layered = solve_json(&["--seed", "85", "--layered"]);
    assert_eq!(
        (&layered["verdict"], &layered["phase"]),
        (&"unsolvable".into(), &"layered".into())
    );
    // The schedule's nodes come first: more than the layered search alone takes.
    assert!(
        small["nodes"].as_u64() > layered["nodes"].as_u64(),
        "{small}"
    );
}

/// `analyze`'s budgets bound the whole analysis, not each of its solves: within a node
/// budget its solves together take about that many nodes (before, each took it all).
#[test]
fn analyze_shares_one_budget_across_its_moves() {
    // A lost deal: every solve runs to its budget.
    let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 85);
    let board = Board::new(&deal);
    let moves = board.legal_steps().len() as u64;
    assert!(moves >= 5, "{moves} moves");
    let total = 40_000;
    let a = castle::analyze::analyze(&board, &budget(total)).unwrap();
    let used: u64 = a.whole.nodes + a.moves.iter().map(|(_, o)| o.nodes).sum::<u64>();
    assert!(used <= total + total / 10, "{used} nodes of {total}");
    assert!(a.moves.iter().any(|(_, o)| o.verdict == Verdict::Unknown));
}

/// The texts of an SVG file's text elements, in order.
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .map(|t| {
            let body = &t[t.find('>').unwrap() + 1..];
            body[..body.find("</text>").unwrap()].trim().to_string()
        })
        .collect()
}

/// `stats --plot` on rows written by hand, so every count is known without castle: the title
/// names the files, the deals and what stopped the unknowns; the unknowns are counted and
/// drawn; the interval's bounds are written as the numbers `stats -f json` gives; every panel
/// has its axis labels; the histograms are bars; deals of 0 ms are counted, not drawn at
/// 1 ms; the nodes have their panel; a line on stderr says where the file is. A bitmap name
/// or a missing directory is bad input, refused before anything is printed.
#[test]
fn stats_plot_draws_what_a_researcher_reads() {
    let dir = tempfile::tempdir().unwrap();
    let head = "seed,variant,start_rank,foundation_return,sequence_moves,verdict,moves,nodes,states,ms,score,limit,numbering\n";
    // Group 1 (bc): 3 won (0, 0 and 12 ms), 2 lost, 2 unknown stopped by the clock at 250
    // and 900 ms. Group 2 (castile): 2 won, 1 unknown stopped by the node budget, 1 lost.
    let bc = format!(
        "{head}1,beleaguered-castle,1,false,single,solvable,90,40,40,0,52,,castle\n\
         2,beleaguered-castle,1,false,single,solvable,100,400,400,0,52,,castle\n\
         3,beleaguered-castle,1,false,single,solvable,130,4000,4000,12,52,,castle\n\
         4,beleaguered-castle,1,false,single,unsolvable,,900,900,3,5,,castle\n\
         5,beleaguered-castle,1,false,single,unsolvable,,800,800,2,7,,castle\n\
         6,beleaguered-castle,1,false,single,unknown,,90000,9000,250,9,seconds,castle\n\
         7,beleaguered-castle,1,false,single,unknown,,99000,9900,900,11,seconds,castle\n"
    );
    let ca = format!(
        "{head}1,castile,0,false,single,solvable,150,20,20,1,52,,castle\n\
         2,castile,0,false,single,solvable,170,30,30,1,52,,castle\n\
         3,castile,0,false,single,unknown,,50000,5000,40,3,nodes,castle\n\
         4,castile,0,false,single,unsolvable,,70,70,1,2,,castle\n"
    );
    let (f1, f2) = (dir.path().join("bc.csv"), dir.path().join("ca.csv"));
    std::fs::write(&f1, bc).unwrap();
    std::fs::write(&f2, ca).unwrap();
    let (f1, f2) = (f1.to_str().unwrap(), f2.to_str().unwrap());
    let svg = dir.path().join("p.svg");
    let out = castle()
        .args(["stats", f1, f2, "--plot", svg.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(&format!("11 deals are in {}", svg.display())),
        "{err}"
    );
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg"));
    assert!(!picture.contains("href"), "self-contained: no links");
    let texts = svg_texts(&picture);
    let has = |s: &str| texts.iter().any(|t| t.contains(s));
    let title = &texts[0];
    for want in [
        f1,
        f2,
        "11 deals",
        "the clock stopped 2 deals after 250 ms to 900 ms",
    ] {
        assert!(title.contains(want), "the title has `{want}`: {title}");
    }
    assert!(
        title.contains("the node budget stopped 1 deal at 50,000 nodes"),
        "{title}"
    );
    // The unknowns, counted in the outcome panel and the table.
    assert!(
        has("7 deals, 2 unknown") && has("4 deals, 1 unknown"),
        "{texts:?}"
    );
    assert!(has("7 deals: 3 won, 2 lost, 2 unknown"), "{texts:?}");
    // The interval's bounds as the numbers stats prints in JSON.
    let json = run_ok(&["stats", f1, f2, "-f", "json"]);
    for line in json.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let pc = |k: &str| 100.0 * v[k].as_f64().unwrap();
        let want = format!(
            "{:.2}% [{:.2}, {:.2}]",
            pc("win_rate"),
            pc("win_rate_low"),
            pc("win_rate_high")
        );
        assert!(has(&want), "the interval `{want}` is written: {texts:?}");
    }
    // Axis labels on every panel.
    for label in [
        "% of deals: won, unknown (grey), lost (pale)",
        "milliseconds (log scale)",
        "% of the deals, fastest first",
        "moves of the solution printed",
        "nodes searched (log scale, 4 bars a power of ten)",
        "cards home at best (score)",
    ] {
        assert!(has(label), "the axis label `{label}`: {texts:?}");
    }
    assert!(
        texts.iter().filter(|t| *t == "deals").count() >= 3,
        "{texts:?}"
    );
    assert!(has("nodes per deal"));
    // 0 ms deals: the two of group 1 are counted, not drawn.
    assert!(has("2 deals took under 1 ms"), "{texts:?}");
    // Bars: group 1's colour fills its outcome bar (won), its lengths (3 bars: 90, 100, 130
    // fall in distinct bins), its nodes (all 7 deals in 7 decades' bins, some shared) and its
    // lost scores (5 and 7): at least 1 + 3 + 2 + 2 rectangles, plus the table's swatch.
    let blue = picture
        .matches("<rect")
        .zip(picture.split("<rect").skip(1))
        .filter(|(_, r)| r[..r.find("/>").unwrap()].contains("fill=\"#1F77B4\""))
        .count();
    assert!(blue >= 9, "{blue} rectangles in group 1's colour");
    // Bitmaps and missing directories: exit 2, nothing printed.
    for bad in [
        dir.path().join("p.png"),
        dir.path().join("no/such/dir/p.svg"),
    ] {
        let out = castle()
            .args(["stats", f1, "--plot", bad.to_str().unwrap()])
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(out.stdout.is_empty(), "refused before printing");
        assert!(err.contains(bad.to_str().unwrap()), "{err}");
    }
}
