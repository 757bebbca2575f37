//! `castle deal --winnable` and the difficulty tiers: every deal it returns (from the tables,
//! and solved beyond them) is solved again here and its win replayed by the checker; the
//! tier files agree with the grade recomputed from the cards; the tiers differ in what a
//! player feels (the simple player's win rate under another playout seed, the length of the
//! win); bad flags are refused with exit code 2 and the flag named.

use crate::common::{castle, data, exact, run_ok};
use castle::deal::Numbering;
use castle::difficulty::{grade_with, tier_at, Tier, PATIENCE, PLAYOUTS, PLAYOUT_SEED};
use castle::winnable::{cuts, tiers, TIERS};
use castle::{Deal, Rules, Variant, Verdict};

/// The five one-deck games.
const GAMES: [&str; 5] = [
    "beleaguered-castle",
    "streets-and-alleys",
    "citadel",
    "fortress",
    "castile",
];

/// Nodes a returned deal may take to be solved again here.
const NODES: u64 = 5_000_000;

/// The deals of `castle deal ARGS --count N --format json`: (seed, difficulty, by).
fn listed(args: &[&str]) -> Vec<(u64, Option<String>, String)> {
    let out = run_ok(&[&["deal", "--format", "json"][..], args].concat());
    out.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            assert_eq!(v["winnable"], true, "{l}");
            (
                v["seed"].as_u64().unwrap(),
                v["difficulty"].as_str().map(str::to_string),
                v["by"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Solves deal `seed` here and asserts a win that the checker replays (`exact` replays it).
fn assert_won(rules: Rules, numbering: Numbering, seed: u64) {
    let deal = Deal::numbered(rules, numbering, seed).unwrap();
    let out = exact(&deal, NODES);
    assert_eq!(
        out.verdict,
        Verdict::Solvable,
        "{} {} deal {seed} was returned as winnable",
        rules.variant,
        numbering.name()
    );
}

#[test]
fn every_deal_returned_is_won_by_a_fresh_solve() {
    for game in GAMES {
        let v: Variant = game.parse().unwrap();
        let mut sample = Vec::new();
        // Drawn at random (reproducibly) from the table, the next from a number, a tier, and
        // beyond the table (solved there).
        let random = listed(&[
            "-v",
            game,
            "--winnable",
            "--random",
            "--random-seed",
            "7",
            "--count",
            "3",
        ]);
        assert!(random.iter().all(|(_, _, by)| by == "table"), "{random:?}");
        let again = listed(&[
            "-v",
            game,
            "--winnable",
            "--random",
            "--random-seed",
            "7",
            "--count",
            "3",
        ]);
        assert_eq!(random, again, "the same --random-seed draws the same deals");
        sample.extend(random);
        let next = listed(&["-v", game, "--winnable", "--seed", "500", "--count", "2"]);
        assert!(next[0].0 >= 500 && next[0].0 < next[1].0, "{next:?}");
        sample.extend(next);
        let hard = listed(&[
            "-v",
            game,
            "--winnable",
            "--difficulty",
            "hard",
            "--count",
            "2",
        ]);
        assert!(
            hard.iter().all(|(_, t, _)| t.as_deref() == Some("hard")),
            "{hard:?}"
        );
        sample.extend(hard);
        let beyond = listed(&["-v", game, "--winnable", "--seed", "100001", "--count", "2"]);
        assert!(
            beyond
                .iter()
                .all(|(s, _, by)| by == "solve" && *s > 100_000),
            "{beyond:?}"
        );
        // Beyond the tables a tier comes from the playouts on the table's cuts.
        assert!(beyond.iter().all(|(_, t, _)| t.is_some()), "{beyond:?}");
        sample.extend(beyond);
        for (seed, _, _) in sample {
            assert_won(v.rules(), Numbering::Castle, seed);
        }
    }
}

#[test]
fn pysol_numbers_and_other_rules_are_looked_up_or_solved() {
    for game in ["beleaguered-castle", "streets-and-alleys", "citadel"] {
        let v: Variant = game.parse().unwrap();
        // Across the end of PySolFC's table (1..32000): looked up, then solved (deal 31996 is
        // winnable in all three, so six deals from it cannot all be in the table).
        let list = listed(&[
            "-v",
            game,
            "--numbering",
            "pysol",
            "--winnable",
            "--seed",
            "31996",
            "--count",
            "6",
        ]);
        assert!(list.iter().any(|(_, _, by)| by == "table"), "{list:?}");
        assert!(list.iter().any(|(_, _, by)| by == "solve"), "{list:?}");
        for (seed, _, by) in list {
            assert_eq!(by == "table", seed <= 32000);
            assert_won(v.rules(), Numbering::Pysol, seed);
        }
    }
    // Rule options outside the tables are solved, even inside a table's range, and get no tier.
    let list = listed(&[
        "-v",
        "fortress",
        "--foundation-return",
        "--winnable",
        "--count",
        "3",
    ]);
    let rules = Variant::Fortress.rules().with_foundation_return(true);
    for (seed, tier, by) in list {
        assert_eq!((by.as_str(), tier), ("solve", None));
        assert_won(rules, Numbering::Castle, seed);
    }
    // The next winnable deal at or after a lost one is the table's next set bit.
    let bits = std::fs::read(data("tables/fortress-castle-1-100000.bits")).unwrap();
    let lost = (1..100).find(|&s| castle::winrates::winnable(&bits, 1, 100_000, s) == Some(false));
    let lost = lost.unwrap();
    let want = (lost..).find(|&s| castle::winrates::winnable(&bits, 1, 100_000, s) == Some(true));
    let got = listed(&[
        "-v",
        "fortress",
        "--winnable",
        "--seed",
        &lost.to_string(),
        "--count",
        "1",
    ]);
    assert_eq!(got[0].0, want.unwrap());
}

#[test]
fn one_winnable_deal_prints_as_a_deal_in_every_format() {
    let text = run_ok(&["deal", "-v", "citadel", "--winnable", "--seed", "10"]);
    let seed: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("seed: "))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        text,
        run_ok(&["deal", "-v", "citadel", "--seed", &seed.to_string()])
    );
    let fcs = run_ok(&[
        "deal",
        "-v",
        "citadel",
        "--winnable",
        "--seed",
        "10",
        "--format",
        "fcs",
    ]);
    assert_eq!(
        fcs,
        run_ok(&[
            "deal",
            "-v",
            "citadel",
            "--seed",
            &seed.to_string(),
            "--format",
            "fcs"
        ])
    );
}

#[test]
fn the_tier_files_hold_the_grade_recomputed_from_the_cards() {
    assert!(TIERS.len() >= 5, "a tier file per one-deck game");
    for t in TIERS {
        let bits = castle::winnable::table(&t.variant.rules(), t.numbering)
            .unwrap()
            .bits;
        // Every winnable deal graded, every other deal 0.
        for s in t.first..=t.last {
            let won = castle::winrates::winnable(bits, 1, 100_000, s) == Some(true);
            assert_eq!(
                tier_at(t.tiers, t.first, t.last, s).is_some(),
                won,
                "{} {s}",
                t.variant
            );
        }
        // A sample recomputed: the same tier.
        for s in (t.first..=t.last).step_by(997) {
            let Some(tier) = tier_at(t.tiers, t.first, t.last, s) else {
                continue;
            };
            let deal = Deal::numbered(t.variant.rules(), t.numbering, s).unwrap();
            let g = castle::difficulty::grade(&deal);
            assert_eq!(
                cuts(&deal.rules).unwrap().tier(g.score()),
                tier,
                "{} {s}",
                t.variant
            );
        }
        // The tiers are thirds.
        let n = |w: Tier| {
            (t.first..=t.last)
                .filter(|&s| tier_at(t.tiers, t.first, t.last, s) == Some(w))
                .count()
        };
        let (e, m, h) = (n(Tier::Easy), n(Tier::Medium), n(Tier::Hard));
        let all = e + m + h;
        for x in [e, m, h] {
            assert!(
                3 * x >= all - 3 && 3 * x <= all + 3,
                "{}: {e} {m} {h}",
                t.variant
            );
        }
    }
}

#[test]
fn easy_deals_are_won_more_often_by_the_simple_player_under_another_seed() {
    // The tier files were made with PLAYOUT_SEED; here the player plays with other streams,
    // and the easy deals must still be won more often than the hard ones.
    for game in ["beleaguered-castle", "citadel", "fortress", "castile"] {
        let v: Variant = game.parse().unwrap();
        let t = tiers(v, Numbering::Castle).unwrap();
        let rate = |w: Tier| {
            let seeds: Vec<u64> = (t.first..=t.last)
                .filter(|&s| tier_at(t.tiers, t.first, t.last, s) == Some(w))
                .take(40)
                .collect();
            let wins: u32 = seeds
                .iter()
                .map(|&s| {
                    let deal = Deal::from_seed(v.rules(), s);
                    grade_with(&deal, PLAYOUTS, PATIENCE, PLAYOUT_SEED + 1_000_003).wins
                })
                .sum();
            f64::from(wins) / (seeds.len() as f64 * f64::from(PLAYOUTS))
        };
        let (easy, hard) = (rate(Tier::Easy), rate(Tier::Hard));
        assert!(easy > hard, "{game}: easy {easy} hard {hard}");
    }
}

#[test]
fn bad_flags_are_refused_naming_the_flag() {
    let cases: [(&[&str], &str); 5] = [
        (
            &["deal", "--winnable", "--difficulty", "extreme"],
            "--difficulty",
        ),
        (&["deal", "--winnable", "--count", "0"], "--count"),
        (
            &[
                "deal",
                "--winnable",
                "--difficulty",
                "easy",
                "--start-rank",
                "3",
            ],
            "--difficulty",
        ),
        (&["deal", "--random"], "--winnable"),
        (&["deal", "--winnable", "--random", "--seed", "4"], "--seed"),
    ];
    for (args, flag) in cases {
        let out = castle().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(flag), "{args:?}: {err}");
    }
}
