//! `castle play` end to end. Scripted sessions go through the line mode (standard input is
//! not a terminal there): a whole game won with the moves of a `castle solve` solution,
//! illegal moves refused with the board unchanged, undo and redo round trips, save and load,
//! and the "winnable?" mark on a hand-built position. One test runs the full-screen board
//! in a pseudo-terminal.

use crate::common::{castle, temp_file};
use serde_json::Value;

/// Runs `castle play ARGS` with `input` on standard input; the session must end cleanly.
fn play(args: &[&str], input: &str) -> String {
    let out = castle()
        .arg("play")
        .args(args)
        .write_stdin(input)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "castle play {args:?}: {stderr}");
    assert!(
        stderr.is_empty(),
        "castle play {args:?} wrote to stderr: {stderr}"
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The board blocks of a session's output, in order: each runs from its title comment to
/// its `# winnable:` line.
fn boards(out: &str) -> Vec<String> {
    let lines: Vec<&str> = out.lines().collect();
    let mut v = Vec::new();
    let mut i = 0;
    while i + 1 < lines.len() {
        if lines[i].starts_with("# ") && lines[i + 1].starts_with("variant: ") {
            let mut block = String::new();
            while i < lines.len() {
                block += lines[i];
                block.push('\n');
                i += 1;
                if lines[i - 1].starts_with("# winnable:") {
                    break;
                }
            }
            v.push(block);
        } else {
            i += 1;
        }
    }
    v
}

/// The position of a board block: its deal-format lines, without the status comments.
fn position(block: &str) -> String {
    block
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn mark(block: &str) -> &str {
    block
        .lines()
        .find_map(|l| l.strip_prefix("# winnable: "))
        .unwrap()
}

/// The lines between board blocks that start with `error:`.
fn errors(out: &str) -> Vec<&str> {
    out.lines().filter(|l| l.starts_with("error:")).collect()
}

fn run_json(args: &[&str]) -> Value {
    let out = castle().args(args).output().unwrap();
    assert!(out.status.success(), "castle {args:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The solve report of `castle solve --format json ARGS` within a small budget.
fn solve(args: &[&str]) -> Value {
    let mut all = vec!["solve", "--format", "json", "--max-nodes", "200000", "-q"];
    all.extend_from_slice(args);
    run_json(&all)
}

/// The moves of a solve report as line-mode moves: `FROM TO`, and the card count of a run.
fn line_moves(report: &Value) -> Vec<String> {
    report["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let mv = format!(
                "{} {}",
                m["from"].as_str().unwrap(),
                m["to"].as_str().unwrap()
            );
            match m["count"].as_u64() {
                Some(n) => format!("{mv} {n}"),
                None => mv,
            }
        })
        .collect()
}

/// A solution of deal `seed` from `castle solve --format json`, as line-mode moves.
fn solution(seed: &str) -> Vec<String> {
    let v = solve(&["--seed", seed]);
    assert_eq!(v["verdict"], "solvable", "deal {seed} is winnable");
    line_moves(&v)
}

/// The first deal number of these rules that the solver wins within its small budget, and
/// the winning line.
fn winnable(rules: &[&str]) -> (String, Value) {
    (1..100)
        .map(|n| n.to_string())
        .find_map(|n| {
            let mut args = rules.to_vec();
            args.extend(["--seed", &n]);
            let v = solve(&args);
            (v["verdict"] == "solvable").then_some((n, v))
        })
        .expect("a winnable deal among the first 99")
}

/// The deal of these arguments, as `castle deal --format json` prints it.
fn deal_json(args: &[&str]) -> Value {
    let mut all = vec!["deal", "--format", "json"];
    all.extend_from_slice(args);
    run_json(&all)
}

fn cards(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect()
}

/// The value of a `name: value` line of a board block (without its `#` comment).
fn field<'a>(block: &'a str, name: &str) -> &'a str {
    block
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name}:")))
        .unwrap_or_else(|| panic!("no `{name}:` line in {block}"))
        .split('#')
        .next()
        .unwrap()
        .trim()
}

/// Deal 3 of beleaguered-castle is won by the solver in a few hundred nodes.
const EASY: &str = "3";

#[test]
fn a_whole_game_won_with_the_moves_of_a_solution() {
    let moves = solution(EASY);
    let input = moves.join("\n") + "\nquit\n";
    // Automatic moves off: the solution lists them itself.
    let out = play(
        &["--seed", EASY, "--no-auto", "--coach-nodes", "20000"],
        &input,
    );
    assert!(errors(&out).is_empty(), "{:?}", errors(&out));
    let b = boards(&out);
    assert_eq!(b.len(), moves.len() + 1, "a board after every move");
    let last = b.last().unwrap();
    assert!(last.contains("# home 52/52"), "{last}");
    assert_eq!(mark(last), "won");
    assert!(out.contains("won: every card is home"));
    // Every pile is empty at the end.
    assert!(position(last)
        .lines()
        .filter(|l| l.starts_with('t'))
        .all(|l| l.ends_with(':')));
}

#[test]
fn show_me_plays_the_solver_line_to_the_end_with_automatic_moves_on() {
    let out = play(&["--seed", EASY, "--coach-nodes", "20000"], "show 400\n");
    assert!(errors(&out).is_empty(), "{:?}", errors(&out));
    let b = boards(&out);
    assert_eq!(mark(&b[0]), "yes");
    assert_eq!(mark(b.last().unwrap()), "won");
    assert!(out.contains("solver: "));
    assert!(out.contains("automatic: "));
}

#[test]
fn illegal_moves_are_refused_and_change_nothing() {
    let deal = run_json(&["deal", "--seed", "42", "--format", "json"]);
    let tops: Vec<String> = deal["deal"]["tableau"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            p.as_array()
                .unwrap()
                .last()
                .unwrap()
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let rank = |c: &str| "A23456789TJQK".find(&c[..1]).unwrap() + 1;
    // A pile onto another whose top card is not one rank higher.
    let (i, j) = (0..8)
        .flat_map(|i| (0..8).map(move |j| (i, j)))
        .find(|&(i, j)| i != j && rank(&tops[j]) != rank(&tops[i]) + 1)
        .unwrap();
    // A top card that does not fit its foundation (which holds only the ace): not a 2.
    let k = (0..8).find(|&k| rank(&tops[k]) != 2).unwrap();
    let bad = [
        format!("t{} t{}", i + 1, j + 1),
        format!("t{} f", k + 1),
        "t1 t1".to_string(),
        "f t1".to_string(),
        "t9 f".to_string(),
        "t0 t1".to_string(),
        "t1 t2 t3".to_string(),
        "jump".to_string(),
        "undo".to_string(),
        "redo".to_string(),
        "undo many".to_string(),
        "auto sometimes".to_string(),
        "rank 13".to_string(),
        "new -1".to_string(),
        "variant chess".to_string(),
        "load /nonexistent/castle-save.json".to_string(),
        "save".to_string(),
    ];
    let input = bad.join("\n") + "\nboard\n";
    let out = play(&["--seed", "42", "--no-auto", "--coach-nodes", "0"], &input);
    let errs = errors(&out);
    assert_eq!(
        errs.len(),
        bad.len(),
        "one error line per bad command: {errs:?}"
    );
    assert!(errs[0].contains("cannot go on"), "{}", errs[0]);
    assert!(errs[1].contains("foundation"), "{}", errs[1]);
    assert!(errs[4].contains("t9"), "{}", errs[4]);
    assert!(
        errs[15].contains("/nonexistent/castle-save.json"),
        "{}",
        errs[15]
    );
    let b = boards(&out);
    assert!(b.len() >= 2);
    let first = position(&b[0]);
    for block in &b {
        assert_eq!(
            position(block),
            first,
            "a refused command changed the board"
        );
        assert!(block.contains("moves 0 (0 automatic)"));
    }
}

#[test]
fn undo_and_redo_round_trip() {
    let moves = solution(EASY);
    let k = 12;
    let mut input = moves[..k].join("\n");
    input += &format!("\nundo {k}\nredo {k}\nundo 5\nredo 2\nrestart\nredo {k}\nundo\n");
    input += &moves[k - 1]; // the undone move made again by hand: the redo list stays empty
    input += "\nredo\nquit\n";
    let out = play(&["--seed", EASY, "--no-auto", "--coach-nodes", "0"], &input);
    let b: Vec<String> = boards(&out).iter().map(|x| position(x)).collect();
    // b[0] is the deal, b[1..=k] the moves, then one board per command.
    let (start, after_k) = (&b[0], &b[k]);
    assert_eq!(&b[k + 1], start, "undo {k} is back at the deal");
    assert_eq!(&b[k + 2], after_k, "redo {k} is back after move {k}");
    assert_eq!(&b[k + 3], &b[k - 5], "undo 5");
    assert_eq!(&b[k + 4], &b[k - 3], "redo 2");
    assert_eq!(&b[k + 5], start, "restart");
    assert_eq!(&b[k + 6], after_k, "restart keeps the moves for redo");
    assert_eq!(&b[k + 7], &b[k - 1], "undo");
    assert_eq!(&b[k + 8], after_k, "the same move by hand");
    assert_eq!(&b[k + 9], after_k, "nothing left to redo");
    assert_eq!(errors(&out), ["error: nothing to redo"]);
}

#[test]
fn undo_takes_back_an_automatic_move() {
    // Deal 42 opens with 2H and 3H on top of piles, which go home at once.
    let out = play(
        &["--seed", "42", "--coach-nodes", "0"],
        "undo\nundo\nundo\n",
    );
    let b = boards(&out);
    assert!(b[0].contains("moves 2 (2 automatic)"), "{}", b[0]);
    assert!(out.contains("undone: 3H t3 -> f (automatic)"), "{out}");
    assert!(out.contains("undone: 2H t1 -> f (automatic)"));
    assert_eq!(errors(&out), ["error: nothing to undo"]);
    // After both, the board is the deal as dealt, and undo did not make them again.
    let dealt = castle()
        .args(["deal", "--seed", "42"])
        .output()
        .unwrap()
        .stdout;
    let dealt = String::from_utf8(dealt).unwrap();
    for line in position(&b[2]).lines().filter(|l| l.starts_with('t')) {
        assert!(dealt.contains(line), "{line} is not dealt so");
    }
}

#[test]
fn save_then_load_gives_the_same_position() {
    let moves = solution(EASY);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.json");
    let f = file.to_str().unwrap();
    let input = format!("{}\nundo 2\nsave {f}\nquit\n", moves[..8].join("\n"));
    let out = play(&["--seed", EASY, "--coach-nodes", "0", "--no-auto"], &input);
    assert!(errors(&out).is_empty(), "{:?}", errors(&out));
    let saved = position(boards(&out).last().unwrap());
    let after8 = position(&boards(&out)[8]);

    // It is the JSON of `castle solve --format json`.
    let text = std::fs::read_to_string(&file).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    for key in [
        "variant", "seed", "options", "deal", "verdict", "moves", "nodes", "states", "seconds",
        "limit",
    ] {
        assert!(v.get(key).is_some(), "no `{key}` in the saved game");
    }
    assert_eq!(v["seed"], 3);
    assert_eq!(v["options"]["start_rank"], 1);
    assert_eq!(v["moves"].as_array().unwrap().len(), 6);
    // `castle verify` replays it, and `castle solve` reads its deal.
    let verify = castle().args(["verify", f]).output().unwrap();
    assert!(verify.status.success());
    assert!(String::from_utf8_lossy(&verify.stdout).starts_with("ok: 6 moves are legal"));
    let solved = run_json(&[
        "solve",
        "--deal",
        f,
        "--format",
        "json",
        "--max-nodes",
        "200000",
    ]);
    assert_eq!(solved["verdict"], "solvable");

    // Loaded at the start, and by command after other moves: the same position, and redo
    // brings back the two undone moves.
    let out = play(&["--load", f, "--coach-nodes", "0"], "redo 2\nquit\n");
    let b = boards(&out);
    assert_eq!(position(&b[0]), saved);
    assert_eq!(position(&b[1]), after8);
    let out = play(
        &["--seed", "9", "--coach-nodes", "0"],
        &format!("t1\nload {f}\nquit\n"),
    );
    assert_eq!(position(boards(&out).last().unwrap()), saved);
}

#[test]
fn bad_files_exit_2_naming_the_file() {
    let junk = temp_file("{\"variant\": \"beleaguered-castle\", \"deal\": 5}");
    let path = junk.path().to_str().unwrap();
    for args in [
        vec!["play", "--load", path],
        vec!["play", "--deal", "/nonexistent/deal.txt"],
        vec!["play", "--seed", "1", "--start-rank", "40"],
        vec!["play", "--variant", "chess", "--seed", "1"],
    ] {
        let out = castle().args(&args).write_stdin("quit\n").output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("castle: "), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let out = castle().args(["play", "--load", path]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains(path));
}

/// A position where one move throws the win away, certain by hand:
///
/// The foundations hold every suit up to the nine, so the tens, jacks, queens and kings
/// are out. Before the move, t8 is empty and the tops are JC JD JH JS KC KD and KS (on t7).
/// A win: JC to t8 uncovers TC, which goes home, then JC; that empties t1, so the same
/// works for the jacks of diamonds, hearts and spades in turn (each jack to an empty pile,
/// its ten home, the jack home). Then every ten and jack is home and five piles are empty:
/// each king steps into an empty pile, the queens under them go home, then the kings.
///
/// The move KS t7 -> t8 fills the last empty pile and uncovers KH. Then the eight tops are
/// the four jacks and the four kings, and nothing can move: a jack needs its ten home (the
/// tens are all under the jacks) or a queen on top somewhere (the queens are all under
/// kings); a king has no empty pile to go to. No move at all, cards out: lost.
const THROW_AWAY: &str = "\
variant: beleaguered-castle
foundations: 9C 9D 9H 9S
t1: TC JC
t2: TD JD
t3: TH JH
t4: TS JS
t5: QC KC
t6: QD KD
t7: QS QH KH KS
t8:
";

#[test]
fn the_mark_turns_to_lost_after_a_move_that_throws_the_win_away() {
    let deal = temp_file(THROW_AWAY);
    let path = deal.path().to_str().unwrap();
    let out = play(
        &["--deal", path, "--coach-nodes", "200000"],
        "hint\nt7 t8\nlegal\nhint\nshow\nundo\nshow 30\n",
    );
    let b = boards(&out);
    assert_eq!(mark(&b[0]), "yes");
    assert!(out.contains("hint: ") && out.contains("keeps the deal winnable"));
    assert_eq!(mark(&b[2]), "no", "{}", b[2]);
    assert!(out.contains("no legal move"));
    assert!(out.contains("hint: no move keeps the deal winnable"));
    assert!(out.contains("error: show: no move keeps the deal winnable"));
    assert_eq!(mark(&b[6]), "yes", "undo brings the win back");
    assert_eq!(mark(b.last().unwrap()), "won", "and the solver's line wins");
}

fn rank(c: &str) -> usize {
    "A23456789TJQK".find(&c[..1]).unwrap() + 1
}

/// True if card `c` may go on card `under` when building up or down in suit.
fn up_down_in_suit(c: &str, under: &str) -> bool {
    c[1..] == under[1..] && rank(c).abs_diff(rank(under)) == 1
}

#[test]
fn a_fortress_game_is_won_with_the_moves_of_a_solution() {
    let (seed, report) = winnable(&["--variant", "fortress"]);
    let moves = line_moves(&report);
    let input = moves.join("\n") + "\nquit\n";
    let args = [
        "--variant",
        "fortress",
        "--seed",
        &seed,
        "--no-auto",
        "--coach-nodes",
        "0",
    ];
    let out = play(&args, &input);
    assert!(errors(&out).is_empty(), "deal {seed}: {:?}", errors(&out));
    let b = boards(&out);
    assert_eq!(b.len(), moves.len() + 1, "a board after every move");
    assert!(
        b[0].starts_with(&format!("# fortress deal {seed}\n")),
        "{}",
        b[0]
    );
    assert!(!b[0].contains("start-rank"), "fortress has no start rank");
    let last = b.last().unwrap();
    assert!(last.contains("# home 52/52"), "{last}");
    assert_eq!(mark(last), "won");
    assert!(out.contains("won: every card is home"));
}

#[test]
fn runs_move_as_one_under_unlimited_sequence_moves() {
    // A winning line whose runs are written `t3 t5 3`, played move by move.
    let rules = ["--variant", "fortress", "--sequence-moves", "unlimited"];
    let (seed, report) = winnable(&rules);
    let moves = line_moves(&report);
    let runs = moves.iter().filter(|m| m.split(' ').count() == 3).count();
    let mut args = rules.to_vec();
    args.extend(["--seed", &seed, "--no-auto", "--coach-nodes", "0"]);
    let out = play(&args, &(moves.join("\n") + "\n"));
    assert!(errors(&out).is_empty(), "deal {seed}: {:?}", errors(&out));
    assert!(out.contains("sequence-moves: unlimited"));
    assert!(
        out.contains("cards)"),
        "a run move is reported with its count"
    );
    assert_eq!(mark(boards(&out).last().unwrap()), "won");
    assert!(
        runs > 0 || moves.is_empty(),
        "deal {seed}'s line moves no run"
    );
}

/// A courtyard deal with an ace alone on a pile (the first among deals 1, 2, ...): its
/// number, the ace's pile (1-based) and the stock, next card first.
fn courtyard_with_an_ace() -> (String, usize, Vec<String>) {
    (1..100)
        .find_map(|n| {
            let n = n.to_string();
            let d = deal_json(&["--variant", "courtyard", "--seed", &n]);
            let piles = d["deal"]["tableau"].as_array().unwrap().clone();
            let k = piles.iter().position(|p| cards(p)[0].starts_with('A'))?;
            Some((n, k + 1, cards(&d["deal"]["stock"])))
        })
        .unwrap()
}

#[test]
fn a_courtyard_pile_emptied_is_filled_at_once_and_undo_takes_both_back() {
    let (seed, k, stock) = courtyard_with_an_ace();
    // Automatic moves off: the fill is made all the same. First from the stock (the waste
    // is empty), then, after a deal, from the waste.
    let input = format!("t{k} f\nundo\ndeal\nt{k} f\nundo\ns w\nmoves\nquit\n");
    let args = [
        "--variant",
        "courtyard",
        "--seed",
        &seed,
        "--no-auto",
        "--coach-nodes",
        "0",
    ];
    let out = play(&args, &input);
    assert!(errors(&out).is_empty(), "{:?}", errors(&out));
    let b = boards(&out);
    assert_eq!(b.len(), 8, "a board after each command");
    assert_eq!(field(&b[0], "waste"), "-");
    assert!(b[0].contains("# home 0/104"));
    let s0 = &stock[0];
    assert!(out.contains(&format!("automatic: {s0} s -> t{k}")), "{out}");
    assert_eq!(field(&b[1], &format!("t{k}")), s0);
    assert!(field(&b[1], "stock").starts_with(&stock[1]));
    assert!(
        b[1].contains("# home 1/104, moves 2 (1 automatic)"),
        "{}",
        b[1]
    );
    let ace = field(&b[0], &format!("t{k}"));
    assert!(
        out.contains(&format!(
            "undone: {ace} t{k} -> f, {s0} s -> t{k} (automatic)"
        )),
        "{out}"
    );
    assert_eq!(
        position(&b[2]),
        position(&b[0]),
        "undo takes the move and its fill back"
    );
    assert!(
        b[2].contains("moves 0 (0 automatic), auto off, redo 2"),
        "{}",
        b[2]
    );
    // Dealt to the waste; now the fill comes from there.
    assert_eq!(field(&b[3], "waste"), s0);
    assert!(out.contains(&format!("automatic: {s0} w -> t{k}")), "{out}");
    assert_eq!(field(&b[4], "waste"), "-");
    assert_eq!(field(&b[4], &format!("t{k}")), s0);
    assert_eq!(position(&b[5]), position(&b[3]));
    // `s w` deals too: the waste shows two cards, the second on top.
    assert_eq!(field(&b[6], "waste"), format!("{s0} {}", stock[1]));
    assert!(
        out.contains(&format!("1. {s0} s -> w\n2. {} s -> w\n", stock[1])),
        "{out}"
    );
}

#[test]
fn a_castile_cell_takes_a_card_and_gives_it_back() {
    // A deal where a cell card can go home at once (an ace), and a pile whose top card
    // builds on the card under it (so it can come back from the cell).
    let (seed, cell, pile) = (1..300)
        .find_map(|n| {
            let n = n.to_string();
            let d = deal_json(&["--variant", "castile", "--seed", &n]);
            let reserve = cards(&d["deal"]["reserve"]);
            let cell = reserve.iter().position(|c| c.starts_with('A'))?;
            let piles = d["deal"]["tableau"].as_array().unwrap();
            let pile = piles.iter().position(|p| {
                let p = cards(p);
                up_down_in_suit(&p[p.len() - 1], &p[p.len() - 2])
            })?;
            Some((n, cell + 1, pile + 1))
        })
        .unwrap();
    let other = 3 - cell;
    let input = format!(
        "t{pile} r{other}\nr{cell} f\nt{pile} r{cell}\nr{cell} t{pile}\nr{other} r{cell}\nquit\n"
    );
    let args = [
        "--variant",
        "castile",
        "--seed",
        &seed,
        "--no-auto",
        "--coach-nodes",
        "0",
    ];
    let out = play(&args, &input);
    let errs = errors(&out);
    // Both cells full at the start; and a cell card never goes to another cell.
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert!(
        errs[0].contains(&format!("r{other} already holds")),
        "{}",
        errs[0]
    );
    assert!(errs[1].contains("reserve cell takes only"), "{}", errs[1]);
    let b = boards(&out);
    assert_eq!(
        position(&b[1]),
        position(&b[0]),
        "the refused move changed nothing"
    );
    let top = |block: &str| {
        field(block, &format!("t{pile}"))
            .rsplit(' ')
            .next()
            .unwrap()
            .to_string()
    };
    let card = top(&b[0]);
    let cells = |block: &str| {
        field(block, "reserve")
            .split(' ')
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(cells(&b[2])[cell - 1], "-", "the ace went home: {}", b[2]);
    assert_eq!(cells(&b[3])[cell - 1], card, "{}", b[3]);
    assert_ne!(top(&b[3]), card);
    assert_eq!(cells(&b[4])[cell - 1], "-");
    assert_eq!(top(&b[4]), card, "the card is back on its pile");
    assert_eq!(position(&b[5]), position(&b[4]));
}

#[test]
fn bad_moves_in_the_new_places_are_refused_and_change_nothing() {
    let cases: [(&[&str], &[&str], &[&str]); 4] = [
        (
            &["--variant", "courtyard", "--seed", "1"],
            &[
                "s t1", "w t1", "w", "t1 s", "t1 w", "r1 t1", "f:AC t1", "rank 2", "t1 t2 2",
            ],
            &[
                "stock cards go to the waste",
                "w is empty",
                "w is empty",
                "nothing goes back to the stock",
                "only the stock deals to the waste",
                "not a pile",
                "no foundation return",
                "start rank",
                "one card at a time",
            ],
        ),
        (
            &["--variant", "castile", "--seed", "1"],
            &["t1 r1", "t1 r2", "r3 t1", "s w", "deal", "r1 r2"],
            &[
                "already holds",
                "already holds",
                "r1..r2",
                "not a pile",
                "no stock",
                "already holds",
            ],
        ),
        (
            &[
                "--variant",
                "fortress",
                "--seed",
                "1",
                "--foundation-return",
            ],
            &["f t1", "f:2H t1", "rank 1", "t1 t2 2"],
            &[
                "the foundations are empty",
                "2H",
                "start rank",
                "one card at a time",
            ],
        ),
        (
            &["--variant", "beleaguered-castle", "--seed", "1"],
            &["s w", "r1 t1", "w t1", "f:AC t1"],
            &[
                "not a pile",
                "not a pile",
                "not a pile",
                "no foundation return",
            ],
        ),
    ];
    for (args, bad, why) in cases {
        let mut all = args.to_vec();
        all.extend(["--no-auto", "--coach-nodes", "0"]);
        let input = bad.join("\n") + "\nboard\n";
        let out = play(&all, &input);
        let errs = errors(&out);
        assert_eq!(errs.len(), bad.len(), "{args:?}: {errs:?}");
        for ((e, w), line) in errs.iter().zip(why).zip(bad) {
            assert!(e.contains(w), "{args:?}: `{line}` gave {e}, not `{w}`");
        }
        let b = boards(&out);
        for block in &b {
            assert_eq!(
                position(block),
                position(&b[0]),
                "{args:?}: the board changed"
            );
        }
    }
}

#[test]
fn a_courtyard_game_saves_and_loads() {
    // The solver's line played by "show me" (a listed fill is the game's own automatic
    // move, so the line is not typed in), three moves taken back, then saved.
    let (seed, _) = winnable(&["--variant", "courtyard"]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("court.json");
    let f = file.to_str().unwrap();
    let input = format!("show 30\nundo 3\nsave {f}\nquit\n");
    let args = [
        "--variant",
        "courtyard",
        "--seed",
        &seed,
        "--coach-nodes",
        "200000",
    ];
    let out = play(&args, &input);
    assert!(errors(&out).is_empty(), "{:?}", errors(&out));
    assert!(
        out.contains("automatic: "),
        "fills and safe moves on the way"
    );
    let b = boards(&out);
    let saved = position(b.last().unwrap());
    let before_undo = position(&b[1]);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(v["variant"], "courtyard");
    assert_eq!(v["deal"]["stock"].as_array().unwrap().len(), 92);
    let made = v["moves"].as_array().unwrap().len();
    assert!(made > 0 && !v["play"]["redo"].as_array().unwrap().is_empty());
    // `castle verify` replays it, and `castle solve --deal` solves its deal.
    let verify = castle().args(["verify", f]).output().unwrap();
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );
    assert!(
        String::from_utf8_lossy(&verify.stdout).starts_with(&format!("ok: {made} moves are legal"))
    );
    let solved = solve(&["--deal", f]);
    assert_eq!(solved["verdict"], "solvable");
    // Loaded at the start: the same position; redo brings back the undone moves.
    let out = play(&["--load", f, "--coach-nodes", "0"], "redo 3\nquit\n");
    assert!(out.contains("redone: "));
    assert!(errors(&out).is_empty(), "{:?}", errors(&out));
    let b = boards(&out);
    assert_eq!(position(&b[0]), saved);
    assert_eq!(position(b.last().unwrap()), before_undo);
    // The rule options are the file's own.
    let clash = castle()
        .args(["play", "--load", f, "--foundation-return"])
        .output()
        .unwrap();
    assert_eq!(clash.status.code(), Some(2));
}

#[test]
fn the_full_screen_board_runs_in_a_terminal() {
    let bin = assert_cmd::cargo::cargo_bin("castle");
    // A pseudo-terminal starts 0x0: give it a size first, as a terminal window has one.
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c")
        .arg("stty rows 30 cols 110 && exec \"$0\" play --seed 42 --coach-nodes 50000")
        .arg(&bin);
    let mut p = rexpect::session::spawn_command(cmd, Some(30_000)).unwrap();
    // The screen is drawn with cursor moves between words, so look for single words.
    for word in [
        "beleaguered-castle",
        "winnable:",
        "undo",
        "redo",
        "hint",
        "quit",
    ] {
        p.exp_string(word).unwrap();
    }
    p.send("?").unwrap();
    p.flush().unwrap();
    p.exp_string("closes").unwrap();
    p.send("x").unwrap();
    p.send("q").unwrap();
    p.flush().unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn the_full_screen_board_shows_the_stock_and_the_waste() {
    let bin = assert_cmd::cargo::cargo_bin("castle");
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c")
        .arg("stty rows 30 cols 110 && exec \"$0\" play --variant courtyard --seed 1 --coach-nodes 0")
        .arg(&bin);
    let mut p = rexpect::session::spawn_command(cmd, Some(30_000)).unwrap();
    for word in ["courtyard", "left", "deal", "waste", "quit"] {
        p.exp_string(word).unwrap();
    }
    // Deal a card, then quit.
    p.send("s").unwrap();
    p.send("q").unwrap();
    p.flush().unwrap();
    p.exp_eof().unwrap();
}

/// `--numbering pysol` shows in the board's title, is kept by save and load (at the start
/// and by command), and a save file from before the field existed still loads, as castle's
/// numbering.
#[test]
fn pysol_numbering_shows_in_the_title_and_survives_save_and_load() {
    let pysol = ["--seed", "67", "--numbering", "pysol"];
    let report = solve(&pysol);
    assert_eq!(report["verdict"], "solvable");
    let moves = line_moves(&report);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pysol.json");
    let f = file.to_str().unwrap();
    let args = [&pysol[..], &["--coach-nodes", "0", "--no-auto"]].concat();
    let out = play(
        &args,
        &format!("{}\nsave {f}\nquit\n", moves[..5].join("\n")),
    );
    assert!(errors(&out).is_empty(), "{:?}", errors(&out));
    let b = boards(&out);
    let title = "beleaguered-castle deal 67 (PySolFC's game number)";
    assert!(
        b.iter().all(|b| b.starts_with(&format!("# {title}"))),
        "{out}"
    );
    // The board is PySolFC's deal 67 as `castle deal` gives it, not castle's deal 67.
    let dealt = |args: &[&str]| -> Vec<String> {
        deal_json(args)["deal"]["tableau"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| cards(p).join(" "))
            .collect()
    };
    let shown: Vec<String> = (1..=8)
        .map(|i| field(&b[0], &format!("t{i}")).to_string())
        .collect();
    assert_eq!(shown, dealt(&pysol));
    assert_ne!(shown, dealt(&["--seed", "67"]));
    let saved = position(b.last().unwrap());

    let text = std::fs::read_to_string(&file).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["numbering"], "pysol");
    assert_eq!(v["seed"], 67);
    let verify = castle().args(["verify", f]).output().unwrap();
    assert!(verify.status.success());

    // A new game keeps the numbering; a variant PySolFC does not number is castle's deal.
    let out = play(&args, "new 68\nvariant fortress\nquit\n");
    let b = boards(&out);
    assert!(
        b[1].starts_with("# beleaguered-castle deal 68 (PySolFC's game number)"),
        "{out}"
    );
    assert_eq!(
        field(&b[1], "t1"),
        dealt(&["--seed", "68", "--numbering", "pysol"])[0]
    );
    assert!(b[2].starts_with("# fortress deal 68\n"), "{out}");
    assert!(out.contains("dealt in castle's numbering"), "{out}");

    // Loaded at the start: the same position, still PySolFC's, and saved again so.
    let again = dir.path().join("again.json");
    let out = play(
        &["--load", f, "--coach-nodes", "0"],
        &format!("save {}\nquit\n", again.display()),
    );
    let b = boards(&out);
    assert!(b[0].starts_with(&format!("# {title}")), "{out}");
    assert_eq!(position(&b[0]), saved);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&again).unwrap()).unwrap();
    assert_eq!(v["numbering"], "pysol");
    // Loaded by command in a game of castle's numbering.
    let out = play(
        &["--seed", "9", "--coach-nodes", "0"],
        &format!("load {f}\nquit\n"),
    );
    let last = boards(&out).pop().unwrap();
    assert!(last.starts_with(&format!("# {title}")), "{out}");
    assert_eq!(position(&last), saved);

    // A file saved before the numbering was kept has no `numbering`: castle's deal.
    let old_file = dir.path().join("old.json");
    let out = play(
        &["--seed", EASY, "--coach-nodes", "0", "--no-auto"],
        &format!("{}\nsave {}\nquit\n", solution(EASY)[0], old_file.display()),
    );
    let saved = position(boards(&out).last().unwrap());
    let mut old: Value =
        serde_json::from_str(&std::fs::read_to_string(&old_file).unwrap()).unwrap();
    assert_eq!(old["numbering"], "castle");
    old.as_object_mut().unwrap().remove("numbering");
    std::fs::write(&old_file, serde_json::to_string_pretty(&old).unwrap()).unwrap();
    let out = play(
        &["--load", old_file.to_str().unwrap(), "--coach-nodes", "0"],
        &format!("save {}\nquit\n", again.display()),
    );
    let b = boards(&out);
    assert!(
        b[0].starts_with(&format!("# beleaguered-castle deal {EASY}, ")),
        "{out}"
    );
    assert_eq!(position(&b[0]), saved);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&again).unwrap()).unwrap();
    assert_eq!(v["numbering"], "castle");
}

#[test]
fn the_full_screen_board_names_pysol_numbering() {
    let bin = assert_cmd::cargo::cargo_bin("castle");
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c")
        .arg(
            "stty rows 30 cols 110 && exec \"$0\" play --seed 67 --numbering pysol --coach-nodes 0",
        )
        .arg(&bin);
    let mut p = rexpect::session::spawn_command(cmd, Some(30_000)).unwrap();
    for word in ["beleaguered-castle", "67", "PySolFC's", "quit"] {
        p.exp_string(word).unwrap();
    }
    p.send("q").unwrap();
    p.flush().unwrap();
    p.exp_eof().unwrap();
}
