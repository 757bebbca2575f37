//! The peer's tests: reading fc-solve's output, replaying its solutions, and (when
//! fc-solve is installed) running it.

use super::process::find_executable;
use super::*;
use crate::check;
use crate::rules::Variant;
use crate::solver::{Solver, Verdict};
use std::path::PathBuf;

fn deal(seed: u64) -> Deal {
    Deal::from_seed(Variant::BeleagueredCastle.rules(), seed)
}

/// A position six moves from the end (the king of spades must make way first).
fn near_win() -> Deal {
    let mut d = Deal::empty(Variant::BeleagueredCastle.rules());
    d.foundations[..4].copy_from_slice(&[13, 13, 10, 11]);
    let cards = |s: &str| s.split_whitespace().map(|c| c.parse().unwrap()).collect();
    d.tableau = vec![cards("QS JH KS"), cards("KH QH")];
    d.tableau.resize(8, Vec::new());
    d
}

/// fc-solve 5.0.0's whole output on [`near_win`] (`-g beleaguered_castle -to 0AB -sp
/// r:tf -p -t -sam`), trailing spaces included.
const SOLVED_OUTPUT: &str = "-=-=-=-=-=-=-=-=-=-=-=-

Foundations: H-T C-K D-K S-J 
Freecells:
: QS JH KS
: KH QH
: 
: 
: 
: 
: 
: 


====================

Move 1 cards from stack 0 to stack 2

Foundations: H-T C-K D-K S-J 
Freecells:
: QS JH
: KH QH
: KS
: 
: 
: 
: 
: 


====================

Move a card from stack 0 to the foundations

Foundations: H-J C-K D-K S-J 
Freecells:
: QS
: KH QH
: KS
: 
: 
: 
: 
: 


====================

Move a card from stack 1 to the foundations

Foundations: H-Q C-K D-K S-J 
Freecells:
: QS
: KH
: KS
: 
: 
: 
: 
: 


====================

Move a card from stack 0 to the foundations

Foundations: H-Q C-K D-K S-Q 
Freecells:
: 
: KH
: KS
: 
: 
: 
: 
: 


====================

Move a card from stack 1 to the foundations

Foundations: H-K C-K D-K S-Q 
Freecells:
: 
: 
: KS
: 
: 
: 
: 
: 


====================

Move a card from stack 2 to the foundations

Foundations: H-K C-K D-K S-K 
Freecells:
: 
: 
: 
: 
: 
: 
: 
: 


====================

This game is solveable.
Total number of states checked is 3.
This scan generated 4 states.
";

/// fc-solve 5.0.0's whole output on beleaguered-castle deal 4 (unsolvable).
const UNSOLVED_OUTPUT: &str = "I could not solve this game.
Total number of states checked is 15.
This scan generated 15 states.
";

#[test]
fn parses_a_solution() {
    let out = parse_output(SOLVED_OUTPUT).unwrap();
    assert_eq!(out.verdict, Some(PeerVerdict::Solvable));
    assert_eq!(out.states_checked, Some(3));
    assert_eq!(
        out.moves,
        vec![
            FcMove::Stack {
                from: 0,
                to: 2,
                cards: 1
            },
            FcMove::Foundation { from: 0 },
            FcMove::Foundation { from: 1 },
            FcMove::Foundation { from: 0 },
            FcMove::Foundation { from: 1 },
            FcMove::Foundation { from: 2 },
        ]
    );
    assert_eq!(out.boards.len(), 7);
    assert_eq!(out.boards[0].foundations, [13, 13, 10, 11]);
    assert_eq!(
        out.boards[0],
        FcBoard {
            foundations: [13, 13, 10, 11],
            tableau: near_win().tableau
        }
    );
    assert_eq!(out.boards[1].tableau[2], vec!["KS".parse().unwrap()]);
    assert!(out.boards[6].tableau.iter().all(Vec::is_empty));
}

#[test]
fn replays_a_parsed_solution() {
    let d = near_win();
    let out = parse_output(SOLVED_OUTPUT).unwrap();
    let moves = replay_solution(&d, &out).unwrap();
    assert_eq!(moves.len(), 6);
    assert_eq!(moves[0].to_string(), "KS t1 -> t3");
    assert_eq!(moves[5].to_string(), "KS t3 -> f");
    // A move that does not match the printed position is caught.
    let mut bad = out.clone();
    bad.moves[0] = FcMove::Stack {
        from: 0,
        to: 3,
        cards: 1,
    };
    let e = replay_solution(&d, &bad).unwrap_err();
    assert!(e.to_string().contains("after move 1"), "{e}");
    // So is an illegal one (the positions left out).
    bad.boards.clear();
    bad.moves[0] = FcMove::Stack {
        from: 0,
        to: 1,
        cards: 1,
    };
    let e = replay_solution(&d, &bad).unwrap_err();
    assert!(
        e.to_string().contains("move 1 (KS t1 -> t2) is illegal"),
        "{e}"
    );
    // A line that stops short does not win.
    let mut short = out;
    short.moves.pop();
    short.boards.pop();
    let e = replay_solution(&d, &short).unwrap_err();
    assert!(e.to_string().contains("not won"), "{e}");
}

/// A position whose win starts with a run of two cards: t1 `KH QH QS JH`, t2 `KS`.
fn run_deal(more: &str) -> Deal {
    let mut d = Deal::empty(Variant::BeleagueredCastle.rules());
    d.foundations[..4].copy_from_slice(&[13, 13, 10, 11]);
    let cards = |s: &str| s.split_whitespace().map(|c| c.parse().unwrap()).collect();
    d.tableau = vec![cards("KH QH QS JH"), cards("KS")];
    d.tableau
        .extend(more.split(',').filter(|p| !p.is_empty()).map(cards));
    d.tableau.resize(8, Vec::new());
    d
}

#[test]
fn replays_runs_as_single_moves() {
    let stack = |from, to, cards| FcMove::Stack { from, to, cards };
    let home = |from| FcMove::Foundation { from };
    let mut out = FcOutput {
        moves: vec![stack(0, 1, 2), home(1), home(0), home(1), home(0), home(1)],
        ..FcOutput::default()
    };
    let moves = replay_solution(&run_deal(""), &out).unwrap();
    let shown: Vec<String> = moves.iter().map(Move::to_string).collect();
    assert_eq!(
        shown[..4],
        ["JH t1 -> t3", "QS t1 -> t2", "JH t3 -> t2", "JH t2 -> f"]
    );
    assert_eq!(moves.len(), 8);
    // Every single move is checked: `QH QS JH` is no run, and QS cannot go on QH.
    out.moves[0] = stack(0, 1, 3);
    let e = replay_solution(&run_deal(""), &out).unwrap_err();
    assert!(
        e.to_string().contains("move 1 (QS t4 -> t2) is illegal"),
        "{e}"
    );
    // Two cards need an empty pile (here all eight piles hold cards).
    out.moves[0] = stack(0, 1, 2);
    let full = run_deal("5H,6H,7H,8H,9H,TH");
    let e = replay_solution(&full, &out).unwrap_err();
    assert!(e.to_string().contains("needs more empty piles"), "{e}");
    // More cards than the stack holds.
    out.moves[0] = stack(1, 0, 2);
    let e = replay_solution(&run_deal(""), &out).unwrap_err();
    assert!(e.to_string().contains("fewer than 2 cards"), "{e}");
}

#[test]
fn parses_no_solution() {
    let out = parse_output(UNSOLVED_OUTPUT).unwrap();
    assert_eq!(out.verdict, Some(PeerVerdict::Unsolvable));
    assert_eq!(out.states_checked, Some(15));
    assert!(out.moves.is_empty() && out.boards.is_empty());
}

#[test]
fn refuses_unknown_output() {
    assert!(
        parse_output("Move the sequence on top of Stack 1 to the foundations")
            .unwrap_err()
            .to_string()
            .contains("unknown move")
    );
    assert!(parse_output("Something else.")
        .unwrap_err()
        .to_string()
        .contains("line 1"));
    assert_eq!(parse_output("").unwrap().verdict, None);
}

#[test]
fn refuses_rules_it_cannot_play() {
    assert!(supports(&Variant::BeleagueredCastle.rules()).is_ok());
    assert!(supports(&Variant::StreetsAndAlleys.rules()).is_ok());
    assert!(supports(&Variant::Citadel.rules()).is_ok());
    for v in [Variant::Fortress, Variant::Castile, Variant::Courtyard] {
        assert!(supports(&v.rules()).is_err(), "{v}");
    }
    let r = Variant::BeleagueredCastle.rules();
    assert!(supports(&r.with_foundation_return(true)).is_err());
    assert!(supports(&r.with_sequence_moves(SequenceMoves::Unlimited)).is_err());
    let run = run_fc_solve(
        Path::new("/nonexistent/fc-solve"),
        &Deal::from_seed(Variant::Fortress.rules(), 1),
        Duration::from_secs(1),
    );
    assert!(matches!(run.verdict, PeerVerdict::Failed(ref m) if m.contains("fortress")));
}

#[test]
fn a_missing_executable_fails() {
    let run = run_fc_solve(
        Path::new("/nonexistent/fc-solve"),
        &deal(1),
        Duration::from_secs(1),
    );
    assert!(matches!(run.verdict, PeerVerdict::Failed(ref m) if m.contains("cannot run")));
}

#[test]
fn finds_executables_on_path() {
    assert!(find_executable(Path::new("sh")).is_some());
    assert_eq!(find_executable(Path::new("/nonexistent/fc-solve")), None);
    assert_eq!(
        find_executable(Path::new("castle-no-such-program-on-path")),
        None
    );
}

fn peer() -> Option<PathBuf> {
    let exe = fc_solve_path();
    if exe.is_none() {
        eprintln!("fc-solve not found: skipping the test against the peer solver");
    }
    exe
}

/// 2 GiB of address space: fc-solve's hardest of deals 1..=10 needs about 1.2 GB
/// resident.
const TEST_CAP: u64 = 2 << 30;

#[test]
fn agrees_with_castle_on_deals_1_to_10() {
    let Some(exe) = peer() else { return };
    for seed in 1..=10 {
        let d = deal(seed);
        let ours = Solver::default().solve(&d).unwrap();
        let run = run_fc_solve_capped(
            &exe,
            &d,
            PeerPreset::Complete,
            Duration::from_secs(60),
            Some(TEST_CAP),
        );
        eprintln!(
            "deal {seed}: castle {} ({} moves), fc-solve {:?} ({:?} moves, {:.2} s, {:?} bytes)",
            ours.verdict.name(),
            ours.moves.len(),
            run.verdict,
            run.moves,
            run.seconds,
            run.peak_rss_bytes
        );
        match (&ours.verdict, &run.verdict) {
            (Verdict::Solvable, PeerVerdict::Solvable) => {
                let moves = run.solution.as_ref().unwrap();
                assert_eq!(run.moves, Some(moves.len()));
                check::check_win(&d, &check::steps_of(moves)).unwrap();
            }
            (Verdict::Unsolvable, PeerVerdict::Unsolvable) => assert_eq!(run.moves, None),
            (_, PeerVerdict::Timeout) => eprintln!("deal {seed}: fc-solve timed out"),
            (a, b) => panic!("deal {seed}: castle says {}, fc-solve {b:?}", a.name()),
        }
    }
}

#[test]
fn measures_the_child_not_the_parent() {
    let Some(exe) = peer() else { return };
    // 400 MB resident here, which a forked child's `ru_maxrss` would include.
    let ballast = vec![1u8; 400 << 20];
    let run = run_fc_solve(&exe, &deal(10), Duration::from_secs(60));
    assert_eq!(run.verdict, PeerVerdict::Solvable);
    // fc-solve needs about 80 MB on deal 10.
    let peak = run.peak_rss_bytes.expect("a 0.3 s run is sampled");
    assert!((20 << 20..300 << 20).contains(&peak), "{peak}");
    assert_eq!(
        ballast.iter().map(|&b| usize::from(b)).sum::<usize>(),
        400 << 20
    );
}

#[test]
fn times_out() {
    let Some(exe) = peer() else { return };
    // fc-solve needs about 6 s for deal 6.
    let d = deal(6);
    let run = run_fc_solve_capped(
        &exe,
        &d,
        PeerPreset::Complete,
        Duration::from_millis(300),
        Some(TEST_CAP),
    );
    assert_eq!(run.verdict, PeerVerdict::Timeout);
    assert!(run.seconds >= 0.3 && run.seconds < 5.0, "{}", run.seconds);
    assert_eq!(run.moves, None);
}

#[test]
fn dies_under_a_memory_cap() {
    let Some(exe) = peer() else { return };
    // Deal 6 makes fc-solve store over 1 GB; 64 MiB of address space is far too little.
    let run = run_fc_solve_capped(
        &exe,
        &deal(6),
        PeerPreset::Complete,
        Duration::from_secs(30),
        Some(64 << 20),
    );
    assert!(
        matches!(run.verdict, PeerVerdict::Failed(ref m) if m.starts_with("out of memory")),
        "{:?}",
        run.verdict
    );
}

/// fc-solve 5.0.0's whole output on deal 3 with its heuristic preset (`-l ct -p -t -sam`):
/// 106 moves, some of them runs of up to 8 cards through empty piles (data/peer/README.md).
const CT_OUTPUT: &str = include_str!("../../data/peer/ct-bc-3.out");

#[test]
fn replays_a_ct_solution_with_runs() {
    let out = parse_output(CT_OUTPUT).unwrap();
    assert_eq!(out.verdict, Some(PeerVerdict::Solvable));
    assert_eq!(out.moves.len(), 106);
    assert_eq!(out.boards.len(), 107);
    let runs: Vec<usize> = out
        .moves
        .iter()
        .filter_map(|m| match *m {
            FcMove::Stack { cards, .. } if cards > 1 => Some(cards),
            _ => None,
        })
        .collect();
    assert_eq!(runs.len(), 11);
    assert_eq!(runs.iter().max(), Some(&8));
    // Every position fc-solve printed is compared on the way; the line must win.
    let moves = replay_solution(&deal(3), &out).unwrap();
    assert_eq!(moves.len(), 168);
    check::check_win(&deal(3), &check::steps_of(&moves)).unwrap();
    // The same line on another deal fails at its first position.
    assert!(matches!(
        replay_solution(&deal(4), &out),
        Err(ReplayError::Start(_))
    ));
}

#[test]
fn a_ct_give_up_is_no_verdict() {
    // `-l ct` gives up on deal 4 (castle proves it lost) with the complete search's words.
    let text = "I could not solve this game.\nTotal number of states checked is 91.\n";
    assert_eq!(
        parse_output(text).unwrap().verdict,
        Some(PeerVerdict::Unsolvable)
    );
    assert!(PeerPreset::Complete.proves_losses());
    assert!(!PeerPreset::Heuristic.proves_losses());
    assert_eq!(PeerPreset::Heuristic.args(), &FC_SOLVE_CT_ARGS);
    assert!(!FC_SOLVE_CT_ARGS.contains(&"-to"));
    let Some(exe) = peer() else { return };
    let cap = Some(TEST_CAP);
    let t = Duration::from_secs(60);
    let run = run_fc_solve_capped(&exe, &deal(4), PeerPreset::Heuristic, t, cap);
    assert_eq!(run.verdict, PeerVerdict::NoWin);
    assert_eq!(run.verdict.name(), "no-win");
    assert_eq!(run.moves, None);
    let run = run_fc_solve_capped(&exe, &deal(3), PeerPreset::Heuristic, t, cap);
    assert_eq!(run.verdict, PeerVerdict::Solvable);
    assert_eq!(run.moves, Some(168));
    let moves = run.solution.unwrap();
    check::check_win(&deal(3), &check::steps_of(&moves)).unwrap();
}
