//! The layered search (`castle::solver::layered`, `--layered`) against the usual exact search:
//! on small deals of every variant (foundation return off) the two must agree wherever both
//! decide, every layered win must replay on the checker's board, and on a lost deal the
//! layered search must store exactly the positions the plain depth-first search enters (both
//! hold every reachable position once, under the same exact keys). Under foundation return the
//! layered search refuses, and `--layered` falls back to the usual schedule.
//!
//! The small deals: beleaguered-castle, streets-and-alleys and citadel from a high start rank
//! (few cards out), and for fortress, castile and courtyard, positions late in a win the usual
//! search found (the checker's board turned back into a deal), some of them after a few
//! random legal moves, which lose some.

use crate::common;

use crate::common::{exact, plain_dfs, solve_checked};
use castle::check::{check_win, replay, steps_of};
use castle::solver::layered::{self, End, LayeredError};
use castle::{Deal, Limits, Pruning, Solver, Variant, Verdict};
use rand::{Rng, SeedableRng};

/// The layered search through the solver, within `nodes` and `memory` bytes (its wins
/// replayed by the checker here too).
fn layered_solve(deal: &Deal, nodes: u64, memory: usize) -> castle::Outcome {
    let solver = Solver {
        limits: Limits {
            max_nodes: Some(nodes),
            memory_bytes: memory,
            ..Limits::default()
        },
        layered: true,
        ..Solver::default()
    };
    solve_checked(&solver, deal)
}

/// The layered search alone within `nodes` and `memory` bytes, spilling to `spill` if
/// given, on `threads` threads; its raw line replayed.
fn layered_run(
    deal: &Deal,
    nodes: u64,
    memory: usize,
    spill: Option<&layered::SpillTo>,
    threads: usize,
) -> layered::Report {
    let limits = Limits {
        max_nodes: Some(nodes),
        memory_bytes: memory,
        ..Limits::default()
    };
    let r = layered::search(
        deal,
        Pruning::default(),
        limits,
        spill,
        None,
        threads,
        &mut |_| {},
    )
    .unwrap();
    if let End::Won(line) = &r.end {
        check_win(deal, &steps_of(line)).unwrap_or_else(|e| {
            panic!(
                "{} {:?}: the layered line does not replay: {e}",
                deal.rules.variant, deal.seed
            )
        });
    }
    r
}

/// The layered search alone, in memory, its raw line replayed.
fn layered_raw(deal: &Deal, nodes: u64) -> layered::Report {
    layered_run(deal, nodes, Limits::default().memory_bytes, None, 1)
}

/// A budget that sends a search to disk: what the in-memory run `mem` stored as records
/// (they stay in memory) and a third of the rest of its bytes but its threads' lists of
/// children (whose size follows the budget), plus 1 MiB.
fn tight_budget(mem: &layered::Report) -> usize {
    let recs = (mem.stored as usize).div_ceil(layered::CHUNK) * layered::CHUNK * 8;
    recs + mem.peak_bytes.saturating_sub(recs + mem.scratch_bytes) / 3 + (1 << 20)
}

#[derive(Default, Debug)]
struct Tally {
    won: usize,
    lost: usize,
    unknown: usize,
}

/// Compares the two searches on `deal`; counts what the layered search decided.
fn compare(deal: &Deal, what: &str, tally: &mut Tally) {
    let e = exact(deal, 100_000);
    let l = layered_solve(deal, 50_000, 256 << 20);
    match l.verdict {
        Verdict::Solvable => tally.won += 1,
        Verdict::Unsolvable => tally.lost += 1,
        Verdict::Unknown => tally.unknown += 1,
    }
    if l.verdict != Verdict::Unknown {
        assert_eq!(l.phase.map(|p| p.name()), Some("layered"), "{what}");
    }
    if e.verdict != Verdict::Unknown && l.verdict != Verdict::Unknown {
        assert_eq!(e.verdict, l.verdict, "{what}: the two searches disagree");
    }
}

/// Beleaguered-castle, streets-and-alleys and citadel from high start ranks, single and
/// unlimited sequence moves.
#[test]
fn the_layered_verdict_is_the_exact_one_on_high_start_ranks() {
    let mut tally = Tally::default();
    for v in [
        Variant::BeleagueredCastle,
        Variant::StreetsAndAlleys,
        Variant::Citadel,
    ] {
        for seq in [
            castle::rules::SequenceMoves::Single,
            castle::rules::SequenceMoves::Unlimited,
        ] {
            for start in [1, 8, 10] {
                let rules = v
                    .rules()
                    .with_start_rank(start)
                    .unwrap()
                    .with_sequence_moves(seq);
                for seed in 1..=12 {
                    let deal = Deal::from_seed(rules, seed);
                    compare(
                        &deal,
                        &format!("{v:?} {seq:?} rank {start} seed {seed}"),
                        &mut tally,
                    );
                }
            }
        }
    }
    assert!(tally.won >= 100 && tally.lost >= 20, "{tally:?}");
}

/// A position `left` single moves before the end of the win `steps`, then `random` random
/// legal moves (the checker's), as a deal.
fn late_position(
    deal: &Deal,
    steps: &[castle::check::Step],
    left: usize,
    random: usize,
    rng: &mut impl Rng,
) -> Deal {
    let keep = steps.len().saturating_sub(left);
    let mut board = replay(deal, &steps[..keep]).unwrap();
    for _ in 0..random {
        let legal = board.legal_steps();
        if legal.is_empty() {
            break;
        }
        // Deals from the stock first, half the time: burying cards in the waste loses.
        let deal_out = legal.iter().position(|s| s.from == "s" && s.to == "w");
        let step = match deal_out {
            Some(k) if rng.gen_bool(0.5) => k,
            _ => rng.gen_range(0..legal.len()),
        };
        board.play(&legal[step]).unwrap();
    }
    // A deal is a position with no fill pending (an empty pile with cards in the waste or
    // the stock): the fill is the only legal step then.
    while board.pending_fill().is_some() {
        let fill = board.legal_steps().swap_remove(0);
        board.play(&fill).unwrap();
    }
    board.to_deal()
}

/// Fortress, castile, courtyard and beleaguered-castle: late positions of wins, some after
/// random moves.
#[test]
fn the_layered_verdict_is_the_exact_one_late_in_games() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(27);
    let mut tally = Tally::default();
    for (v, left) in [
        (Variant::Fortress, 36),
        (Variant::Castile, 36),
        (Variant::Courtyard, 90),
        (Variant::BeleagueredCastle, 40),
    ] {
        for seed in 1..=12 {
            let deal = Deal::from_seed(v.rules(), seed);
            let win = exact(&deal, 1_000_000);
            if win.verdict != Verdict::Solvable {
                // The deal itself (fortress's are mostly lost).
                compare(&deal, &format!("{v:?} seed {seed}"), &mut tally);
                continue;
            }
            let steps = steps_of(&win.moves);
            for random in [0, 4, 30] {
                let late = late_position(&deal, &steps, left, random, &mut rng);
                late.validate().unwrap();
                compare(&late, &format!("{v:?} seed {seed} +{random}"), &mut tally);
            }
        }
    }
    assert!(tally.won >= 30 && tally.lost >= 15, "{tally:?}");
}

/// On lost deals the layered search stores exactly the positions the plain depth-first
/// search enters: each holds every position reachable from the deal, once.
#[test]
fn the_layered_search_stores_every_reachable_position_once() {
    let mut lost = 0;
    for seed in 1..=60 {
        let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), seed);
        let e = solve_checked(&plain_dfs(300_000), &deal);
        if e.verdict != Verdict::Unsolvable {
            continue;
        }
        let r = layered_raw(&deal, 10_000_000);
        assert_eq!(r.end, End::Exhausted, "seed {seed}");
        assert_eq!(r.stored, e.states, "seed {seed}: positions stored");
        assert_eq!(r.expanded, r.stored, "seed {seed}: each expanded once");
        assert_eq!(
            r.classes.iter().map(|&(_, n)| n).sum::<u64>(),
            r.stored,
            "seed {seed}: the classes hold them all"
        );
        lost += 1;
    }
    assert!(lost >= 15, "only {lost} lost deals");
}

/// Budgets end the layered search as unknown, never as lost: a node budget, a memory budget
/// too small for its first chunk of records, one too small for its classes, and a raised
/// stop flag.
#[test]
fn budgets_end_the_layered_search_as_unknown() {
    use castle::Limit;
    let deal = Deal::from_seed(Variant::Courtyard.rules(), 98);
    let r = layered_raw(&deal, 1000);
    assert_eq!(r.end, End::Cut(Limit::Nodes));
    assert_eq!(r.expanded, 1000);
    let out = layered_solve(&deal, 1000, 256 << 10);
    assert_eq!(
        (out.verdict, out.limit),
        (Verdict::Unknown, Some(Limit::Memory))
    );
    let out = layered_solve(&deal, 2_000_000, 12 << 20);
    assert_eq!(
        (out.verdict, out.limit),
        (Verdict::Unknown, Some(Limit::Memory))
    );
    assert!(out.peak_table_bytes <= 12 << 20, "{}", out.peak_table_bytes);
    let stop = std::sync::atomic::AtomicBool::new(true);
    let r = layered::search(
        &deal,
        Pruning::default(),
        Limits::default(),
        None,
        Some(&stop),
        1,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(r.end, End::Cut(Limit::Stopped));
}

/// Under foundation return a card may leave its foundation: the layered search refuses, and
/// the solver runs its usual schedule instead (same verdict, not the layered phase).
#[test]
fn foundation_return_falls_back_to_the_usual_search() {
    let rules = Variant::BeleagueredCastle
        .rules()
        .with_foundation_return(true)
        .with_start_rank(9)
        .unwrap();
    let mut decided = 0;
    for seed in 1..=10 {
        let deal = Deal::from_seed(rules, seed);
        assert_eq!(
            layered::search(
                &deal,
                Pruning::default(),
                Limits::default(),
                None,
                None,
                1,
                &mut |_| {}
            )
            .unwrap_err(),
            LayeredError::FoundationReturn
        );
        let e = exact(&deal, 200_000);
        let l = layered_solve(&deal, 200_000, 256 << 20);
        assert_eq!(e.verdict, l.verdict, "seed {seed}");
        assert_ne!(l.phase.map(|p| p.name()), Some("layered"), "seed {seed}");
        decided += usize::from(e.verdict != Verdict::Unknown);
    }
    assert!(decided >= 5);
}

/// `castle solve --layered` reports the layered phase, and its win replays (`castle verify`).
#[test]
fn solve_layered_on_the_command_line() {
    let out = common::run_ok(&[
        "solve",
        "-v",
        "bc",
        "--start-rank",
        "9",
        "-s",
        "3",
        "--layered",
        "-q",
        "-f",
        "json",
    ]);
    assert!(out.contains("\"phase\":\"layered\""), "{out}");
    let report = common::temp_file(&out);
    common::run_ok(&["verify", report.path().to_str().unwrap()]);
}

/// The layered search within `memory` bytes, spilling under a temporary directory (no
/// checkpoints) when `spill`.
fn layered_spill(deal: &Deal, nodes: u64, memory: usize, spill: bool) -> layered::Report {
    let dir = layered::SpillTo::new(&std::env::temp_dir().join("castle-test-spill"));
    layered_run(deal, nodes, memory, spill.then_some(&dir), 1)
}

/// The beleaguered-castle deals of 1..=`last` that the plain depth-first search proves lost
/// within 300,000 positions, then deals 1..=6 of bc, sa and citadel from start rank 8 (won
/// and lost).
fn lost_and_high_rank_deals(last: u64) -> Vec<Deal> {
    let plain = plain_dfs(300_000);
    let mut deals: Vec<Deal> = (1..=last)
        .map(|seed| Deal::from_seed(Variant::BeleagueredCastle.rules(), seed))
        .filter(|deal| solve_checked(&plain, deal).verdict == Verdict::Unsolvable)
        .collect();
    for v in [
        Variant::BeleagueredCastle,
        Variant::StreetsAndAlleys,
        Variant::Citadel,
    ] {
        for seed in 1..=6 {
            deals.push(Deal::from_seed(v.rules().with_start_rank(8).unwrap(), seed));
        }
    }
    deals
}

/// Threads: the runs of positions are expanded on several threads and stored in the order
/// one thread stores them (`layered/expand.rs`), so on every deal the search must end
/// exactly as on one thread: the same win line, or the same classes with the same
/// positions, expanded the same number of times; the same under a node budget that cuts it,
/// and within 4 MiB, where the threads' lists of children are small enough to fill up
/// (some runs must be cut, and redone from there). The deals: beleaguered-castle deals the
/// plain depth-first search proves lost within 300,000 positions, and high-start-rank deals
/// of three games (won and lost).
#[test]
fn threads_change_no_line_and_no_count() {
    let deals = lost_and_high_rank_deals(30);
    let (mut cut, mut decided) = (0, 0);
    for deal in &deals {
        let what = format!("{} {:?}", deal.rules.variant, deal.seed);
        let one = layered_run(deal, 400_000, 1 << 30, None, 1);
        decided += usize::from(one.end != End::Cut(castle::Limit::Nodes));
        for (nodes, memory, threads) in [
            (400_000, 1 << 30, 2),
            (one.expanded * 2 / 3, 1 << 30, 2),
            (400_000, 4 << 20, 3),
        ] {
            let base = if nodes == 400_000 && memory == 1 << 30 {
                one.clone()
            } else {
                layered_run(deal, nodes, memory, None, 1)
            };
            let r = layered_run(deal, nodes, memory, None, threads);
            assert_eq!(
                (
                    &base.end,
                    base.expanded,
                    &base.classes,
                    base.stored,
                    base.best_home
                ),
                (&r.end, r.expanded, &r.classes, r.stored, r.best_home),
                "{what}: {nodes} nodes, {memory} bytes, {threads} threads"
            );
            assert!(r.peak_bytes <= memory, "{what}: {}", r.peak_bytes);
            cut += r.cut_runs;
        }
    }
    assert!(decided >= 20, "{decided} decided");
    assert!(cut > 0, "no run was cut by a full list");
}

/// `--spill`: under a memory budget too small for them, the pending classes and then the
/// class being closed go to disk, and nothing else changes. The disk keeps the records'
/// order (each layer's new positions in the order generated, as the in-memory queue stores
/// them), so on every deal the spilled search must end exactly as the one in memory: the
/// same win line, or the same classes with the same positions, expanded the same number
/// of times, within [`tight_budget`]. The deals: beleaguered-castle deals the plain
/// depth-first search proves lost within 300,000 positions, and high-start-rank deals of
/// three games (won and lost); at least a few must really go to disk.
#[test]
fn spilling_to_disk_changes_no_line_and_no_count() {
    let deals = lost_and_high_rank_deals(40);
    let (mut classes_on_disk, mut pending_on_disk, mut early) = (0, 0, 0);
    for deal in &deals {
        let what = format!("{} {:?}", deal.rules.variant, deal.seed);
        let mem = layered_spill(deal, 400_000, 1 << 30, false);
        let budget = tight_budget(&mem);
        let disk = layered_spill(deal, 400_000, budget, true);
        // On two threads, on disk: the same again. (Pending classes on disk gather
        // repeats, which a cut search counts among the stored: compared when lost.)
        let dir = layered::SpillTo::new(&std::env::temp_dir().join("castle-test-spill"));
        let two = layered_run(deal, 400_000, budget, Some(&dir), 2);
        assert_eq!(
            (&disk.end, disk.expanded, &disk.classes),
            (&two.end, two.expanded, &two.classes),
            "{what}: on disk, one thread and two"
        );
        if disk.end == End::Exhausted {
            assert_eq!(
                disk.stored, two.stored,
                "{what}: on disk, one thread and two"
            );
        }
        assert_eq!(
            mem.end, disk.end,
            "{what}: in memory {} bytes, {} stored; budget {budget}; spilled {} bytes, {} classes on disk",
            mem.peak_bytes, mem.stored, disk.peak_bytes, disk.disk.classes
        );
        assert_eq!(mem.expanded, disk.expanded, "{what}");
        assert_eq!(mem.classes, disk.classes, "{what}");
        if mem.end == End::Exhausted {
            assert_eq!(mem.stored, disk.stored, "{what}");
        }
        assert!(disk.peak_bytes <= budget, "{what}: {}", disk.peak_bytes);
        classes_on_disk += usize::from(disk.disk.classes > 0);
        pending_on_disk += usize::from(disk.disk.written > 0);
        early += disk.early_settles;
    }
    assert!(early > 0, "no layer was settled before its end");
    eprintln!(
        "{} deals, {classes_on_disk} with a class on disk, {pending_on_disk} wrote",
        deals.len()
    );
    assert!(
        classes_on_disk >= 3 && pending_on_disk >= 5,
        "{classes_on_disk} deals had a class on disk, {pending_on_disk} wrote to disk"
    );
}

/// A spill directory that cannot be made ends the solve as unknown (disk), with the
/// file system's answer; on the command line it is bad input (exit 2) naming the flag. A
/// disk budget too small for the files (`--spill-max`, standing in for a full disk) ends
/// the solve as unknown, limit `disk`, with the message in the report.
#[test]
fn an_unusable_spill_directory_is_reported() {
    let file = common::temp_file("not a directory");
    let under_file = file.path().join("spill");
    let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 5);
    let solver = Solver {
        layered: true,
        spill: Some(layered::SpillTo::new(&under_file)),
        ..Solver::default()
    };
    let out = solver.solve(&deal).unwrap();
    assert_eq!(
        (out.verdict, out.limit),
        (Verdict::Unknown, Some(castle::Limit::Disk))
    );
    assert!(out.disk.unwrap().error.is_some());
    let out = common::castle()
        .args(["solve", "-s", "5", "--spill", under_file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--spill"), "{err}");
    let spill = tempfile::tempdir().unwrap();
    let json = common::run_ok(&[
        "solve",
        "-v",
        "bc",
        "--start-rank",
        "6",
        "-s",
        "3",
        "--layered",
        "--spill",
        spill.path().to_str().unwrap(),
        "--memory",
        "8",
        "--spill-max",
        "0.001",
        "-f",
        "json",
    ]);
    assert!(json.contains("\"verdict\":\"unknown\""), "{json}");
    assert!(json.contains("\"limit\":\"disk\""), "{json}");
    assert!(json.contains("--spill-max"), "{json}");
    assert_eq!(std::fs::read_dir(spill.path()).unwrap().count(), 0);
}

/// A win-rate run hands its unknown deals to the layered search with a spill directory:
/// `batch --retry-unknown --spill DIR` decides them, appending rows, and `stats` then counts
/// no unknown; the directory is left empty.
#[test]
fn batch_retries_unknown_deals_with_a_spill_directory() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("rows.csv");
    let spill = dir.path().join("spill");
    let csv = csv.to_str().unwrap();
    let base = [
        "batch",
        "-v",
        "bc",
        "--start-rank",
        "9",
        "--seeds",
        "1..8",
        "--csv",
        csv,
        "-q",
    ];
    common::run_ok(&[&base[..], &["--max-nodes", "1"]].concat());
    let before = std::fs::read_to_string(csv).unwrap();
    assert!(before.contains(",unknown,"), "{before}");
    common::run_ok(
        &[
            &base[..],
            &[
                "--retry-unknown",
                "--spill",
                spill.to_str().unwrap(),
                "--memory",
                "64",
            ],
        ]
        .concat(),
    );
    let stats = common::run_ok(&["stats", csv]);
    assert!(stats.contains("unknown 0"), "{stats}");
    assert_eq!(std::fs::read_dir(&spill).unwrap().count(), 0);
}

/// A batch's last pass with `--spill DIR` is the solve's own path (`Solver::spill`): bc 85
/// (lost, as the plain exact search proves in `spill_goes_to_disk_only_when_the_memory_runs_out`)
/// in 3 MiB fills the schedule's table, goes on on disk and is proved lost there, its row
/// counting the schedule's nodes too; and with `--max-nodes` the schedule and the layered
/// search share the one budget.
#[test]
fn a_batch_last_pass_goes_on_on_disk_within_its_budgets() {
    let dir = tempfile::tempdir().unwrap();
    let spill = dir.path().join("spill");
    let spill = spill.to_str().unwrap();
    let row = |extra: &[&str]| -> serde_json::Value {
        let base = [
            "batch",
            "-v",
            "bc",
            "--seeds",
            "85",
            "--no-quotient",
            "--memory",
            "3",
            "-j",
            "1",
            "-q",
            "-f",
            "jsonl",
        ];
        let out = common::run_ok(&[&base[..], extra].concat());
        serde_json::from_str(out.lines().next().unwrap()).unwrap()
    };
    let disk = row(&["--spill", spill]);
    assert_eq!(
        (&disk["verdict"], &disk["phase"]),
        (&"unsolvable".into(), &"layered".into()),
        "{disk}"
    );
    let alone = common::run_ok(&[
        "solve",
        "-v",
        "bc",
        "-s",
        "85",
        "--layered",
        "-f",
        "json",
        "-q",
    ]);
    let alone: serde_json::Value = serde_json::from_str(&alone).unwrap();
    assert_eq!(alone["verdict"], "unsolvable");
    assert!(
        disk["nodes"].as_u64() > alone["nodes"].as_u64(),
        "{disk} {alone}"
    );
    // The layered search alone takes more than this budget: the schedule's nodes and its
    // share both count against it.
    let budget = alone["nodes"].as_u64().unwrap() / 2;
    let cut = row(&["--spill", spill, "--max-nodes", &budget.to_string()]);
    assert_eq!(cut["verdict"], "unknown", "{cut}");
    let nodes = cut["nodes"].as_u64().unwrap();
    assert!(nodes <= budget + budget / 10, "{nodes} nodes of {budget}");
    assert_eq!(std::fs::read_dir(spill).unwrap().count(), 0);
}

/// The layered search with checkpoints after every class, under `root`, within `nodes` and
/// `memory` bytes, on `threads` threads.
fn layered_checkpointed(
    deal: &Deal,
    nodes: u64,
    memory: usize,
    root: &std::path::Path,
    threads: usize,
) -> layered::Report {
    let to = layered::SpillTo {
        checkpoint_secs: Some(0.0),
        ..layered::SpillTo::new(root)
    };
    layered_run(deal, nodes, memory, Some(&to), threads)
}

/// Checkpoints: a search stopped by a budget leaves its checkpoint under the spill
/// directory, and the same search run again takes it up: stopped twice and resumed, it
/// ends exactly as the search run through (the same win line, or the same classes with
/// the same positions, expanded the same number of times), and then leaves nothing behind.
/// A stop redoes only the class it cut short, so the resumed runs expand no more in all
/// than the budget of the last.
#[test]
fn a_checkpointed_search_resumes_where_it_stopped() {
    // Deals of several classes (so that a cut falls after a checkpoint), won and lost:
    // fortress 7 and castile 25 (6 and 8 classes), and wins from high start ranks.
    let mut deals = vec![
        Deal::from_seed(Variant::Fortress.rules(), 7),
        Deal::from_seed(Variant::Castile.rules(), 25),
    ];
    'find: for v in [Variant::StreetsAndAlleys, Variant::Citadel] {
        for seed in 1..=12 {
            let deal = Deal::from_seed(v.rules().with_start_rank(8).unwrap(), seed);
            let r = layered_raw(&deal, 50_000);
            if r.classes.len() >= 6 && matches!(r.end, End::Won(_)) {
                deals.push(deal);
                if deals.len() == 5 {
                    break 'find;
                }
            }
        }
    }
    assert!(deals.len() >= 4, "{} deals", deals.len());
    for deal in &deals {
        let what = format!("{} {:?}", deal.rules.variant, deal.seed);
        let once = tempfile::tempdir().unwrap();
        let full = layered_checkpointed(deal, 400_000, 1 << 30, once.path(), 1);
        assert!(
            full.classes.len() >= 6,
            "{what}: {:?} {:?}",
            full.classes,
            full.end
        );
        assert_ne!(full.end, End::Cut(castle::Limit::Nodes), "{what}");
        assert_eq!(std::fs::read_dir(once.path()).unwrap().count(), 0, "{what}");
        let root = tempfile::tempdir().unwrap();
        for (i, part) in [3, 2].into_iter().enumerate() {
            let cut = layered_checkpointed(deal, full.expanded / part, 1 << 30, root.path(), 1);
            assert_eq!(cut.end, End::Cut(castle::Limit::Nodes), "{what}");
            assert_eq!(cut.disk.resumed_from.is_some(), i == 1, "{what}");
            let kept: Vec<_> = std::fs::read_dir(root.path()).unwrap().collect();
            assert_eq!(kept.len(), 1, "{what}: one directory kept");
            let dir = kept[0].as_ref().unwrap().path();
            assert!(dir.join("checkpoint.json").exists(), "{what}");
        }
        let resumed = layered_checkpointed(deal, 400_000, 1 << 30, root.path(), 1);
        // Taken up from the second cut's checkpoint, which the first cut's had begun.
        let from = resumed.disk.resumed_from.expect("a resumed search");
        assert!(from > 0 && from <= full.expanded / 2, "{what}: {from}");
        assert_eq!(resumed.end, full.end, "{what}");
        assert_eq!(resumed.expanded, full.expanded, "{what}");
        assert_eq!(resumed.classes, full.classes, "{what}");
        assert_eq!(resumed.stored, full.stored, "{what}");
        assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 0, "{what}");
    }
}

/// On the command line: `solve --layered --spill DIR` stopped by a budget leaves its checkpoint, and
/// the same command without the budget says it resumed and decides the deal as the usual
/// search does.
#[test]
fn solve_resumes_from_its_checkpoint_on_the_command_line() {
    let spill = tempfile::tempdir().unwrap();
    let args = [
        "solve",
        "-v",
        "castile",
        "-s",
        "25",
        "--layered",
        "--spill",
        spill.path().to_str().unwrap(),
        "--checkpoint-every",
        "0.000001",
    ];
    let cut = common::run_ok(&[&args[..], &["--max-nodes", "400"]].concat());
    assert!(cut.contains("unknown"), "{cut}");
    assert_eq!(std::fs::read_dir(spill.path()).unwrap().count(), 1);
    let done = common::run_ok(&args);
    assert!(done.contains("resumed from the checkpoint"), "{done}");
    // The usual search's verdict on the deal.
    let usual = common::run_ok(&["solve", "-v", "castile", "-s", "25"]);
    assert!(usual.contains("unsolvable:"), "{usual}");
    assert!(done.contains("unsolvable:"), "{done}");
    assert_eq!(std::fs::read_dir(spill.path()).unwrap().count(), 0);
}

/// Checkpoints inside a class on disk, between two of its layers: under a memory budget that
/// sends classes to disk, a search cut seven times and resumed ends exactly as the search run
/// through, and at least one cut fell inside a class on disk (its checkpoint names it). The
/// cut runs take two threads, the others one: a checkpoint does not depend on the threads.
#[test]
fn a_class_on_disk_resumes_between_its_layers() {
    let mut in_class = 0;
    let mut tried = 0;
    for v in [
        Variant::BeleagueredCastle,
        Variant::StreetsAndAlleys,
        Variant::Citadel,
    ] {
        for seed in 1..=6 {
            let deal = Deal::from_seed(v.rules().with_start_rank(8).unwrap(), seed);
            let what = format!("{v:?} {seed}");
            let mem = layered_spill(&deal, 400_000, 1 << 30, false);
            let budget = tight_budget(&mem);
            let once = tempfile::tempdir().unwrap();
            let full = layered_checkpointed(&deal, 400_000, budget, once.path(), 1);
            // (A deal cut by the node budget is compared at that budget.)
            if full.disk.classes == 0 {
                continue;
            }
            tried += 1;
            let root = tempfile::tempdir().unwrap();
            for eighths in 1..=7 {
                let nodes = full.expanded * eighths / 8;
                let cut = layered_checkpointed(&deal, nodes, budget, root.path(), 2);
                if cut.end != End::Cut(castle::Limit::Nodes) {
                    // Memory: this deal's budget is too tight to be cut here.
                    break;
                }
                for dir in std::fs::read_dir(root.path()).unwrap() {
                    let manifest = dir.unwrap().path().join("checkpoint.json");
                    let text = std::fs::read_to_string(manifest).unwrap_or_default();
                    in_class += usize::from(text.contains("\"class\":{"));
                }
            }
            let kept = std::fs::read_dir(root.path()).unwrap().count();
            let resumed = layered_checkpointed(&deal, 400_000, budget, root.path(), 1);
            assert_eq!(resumed.disk.resumed_from.is_some(), kept > 0, "{what}");
            assert_eq!(resumed.end, full.end, "{what}");
            assert_eq!(resumed.expanded, full.expanded, "{what}");
            assert_eq!(resumed.classes, full.classes, "{what}");
            assert_eq!(resumed.stored, full.stored, "{what}");
            // A verdict removes the directory; a budget keeps the checkpoint.
            let left = std::fs::read_dir(root.path()).unwrap().count();
            assert_eq!(left > 0, matches!(full.end, End::Cut(_)), "{what}");
        }
    }
    assert!(
        tried >= 2 && in_class >= 1,
        "{tried} deals, {in_class} cuts inside a class"
    );
}

/// A solve under `--spill` (without `--layered`) that was cut inside the layered search,
/// after its schedule had filled the table, takes up the checkpoint at once when run again:
/// its node count is the layered search's alone, equal to that of `--layered` from the
/// start, where a run through the schedule first counts the schedule's nodes too. bc 85 in
/// 3 MiB without the quotient fills the schedule's table (see design.md, "Out of core");
/// the verdict is checked against the usual search in memory.
#[test]
fn a_spilled_solve_takes_up_its_checkpoint_without_the_schedule() {
    let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 85);
    let root = tempfile::tempdir().unwrap();
    let to = layered::SpillTo {
        checkpoint_secs: Some(0.0),
        ..layered::SpillTo::new(root.path())
    };
    let solver = |nodes: Option<u64>, layered: bool, spill: &layered::SpillTo| Solver {
        quotient: false,
        layered,
        spill: Some(spill.clone()),
        limits: Limits {
            max_nodes: nodes,
            memory_bytes: 3 << 20,
            ..Limits::default()
        },
        ..Solver::default()
    };
    let fresh = tempfile::tempdir().unwrap();
    let through = solver(None, false, &layered::SpillTo::new(fresh.path()))
        .solve(&deal)
        .unwrap();
    let alone = solver(None, true, &layered::SpillTo::new(fresh.path()))
        .solve(&deal)
        .unwrap();
    let usual = Solver::default().solve(&deal).unwrap();
    assert_eq!(through.verdict, usual.verdict);
    assert_eq!(alone.verdict, usual.verdict);
    assert!(
        through.nodes > alone.nodes,
        "the schedule ran first: {} > {}",
        through.nodes,
        alone.nodes
    );
    assert!(!solver(None, false, &to).takes_up_checkpoint(&deal));
    // Cut inside the layered search: past the schedule's nodes, short of the whole.
    let cut = solver(Some(through.nodes - alone.nodes / 2), false, &to)
        .solve(&deal)
        .unwrap();
    assert_eq!(cut.limit, Some(castle::Limit::Nodes));
    let again = solver(None, false, &to);
    assert!(again.takes_up_checkpoint(&deal));
    // Too little memory for the records taken up: unknown, and the checkpoint stays.
    let starved = Solver {
        limits: Limits {
            memory_bytes: 1 << 20,
            ..again.limits
        },
        ..again.clone()
    }
    .solve(&deal)
    .unwrap();
    assert_eq!(starved.limit, Some(castle::Limit::Memory));
    assert!(again.takes_up_checkpoint(&deal));
    let resumed = again.solve(&deal).unwrap();
    assert!(resumed.disk.as_ref().unwrap().resumed_from.is_some());
    assert_eq!(resumed.verdict, usual.verdict);
    assert_eq!(resumed.nodes, alone.nodes, "the schedule was not run again");
    assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 0);
}
