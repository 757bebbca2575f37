//! The published tables of `data/tables/` agree with the solver: for each table, a random
//! sample of its deals is solved again and each verdict compared with the table's bit; the
//! bits, the counts and the win rate of `winrates.csv` agree with each other.
//!
//! The sample is drawn afresh on each run (the seed is printed, and `CASTLE_TABLE_SEED=N`
//! draws it again), so that over many runs every part of a table gets checked. A sampled deal
//! the solver does not decide within the test's node budget is replaced by another: an
//! `unknown` is not a disagreement, and the test stays short.

use crate::common::data;
use castle::deal::Numbering;
use castle::winrates::{bounds, read_index, winnable};
use castle::{Deal, Solver, Variant, Verdict};
use rand::{Rng, SeedableRng};
use std::path::PathBuf;

/// Deals checked per table.
const SAMPLE: usize = 6;
/// Deals drawn per table at most (the undecided ones are drawn past).
const DRAWS: usize = 30;
/// Nodes a sampled deal may take (all but a few in a thousand take fewer).
const NODES: u64 = 1_000_000;

#[test]
fn every_table_agrees_with_a_fresh_solve_of_a_sample() {
    let dir = PathBuf::from(data("tables"));
    let index = read_index(&dir).unwrap();
    assert!(!index.is_empty(), "no tables in {}", dir.display());
    let seed = std::env::var("CASTLE_TABLE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| rand::thread_rng().gen::<u64>());
    eprintln!("sample drawn with CASTLE_TABLE_SEED={seed}");
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut solver = Solver::default();
    solver.limits.max_nodes = Some(NODES);
    solver.limits.memory_bytes = 512 << 20;
    for t in &index {
        let bits = std::fs::read(dir.join(&t.bits)).unwrap();
        // The file's size, its count and the row's figures agree.
        assert_eq!(bits.len() as u64, t.deals.div_ceil(8), "{}", t.bits);
        assert_eq!(t.deals, t.last - t.first + 1, "{}", t.bits);
        let won: u64 = bits.iter().map(|b| u64::from(b.count_ones())).sum();
        // A table may list deals it leaves unknown (their bits clear; see the module
        // `castle::winrates`), counted apart.
        let unknown = t.unknown_seeds().unwrap();
        assert_eq!(unknown.len() as u64, t.unknown, "{}", t.bits);
        for &s in &unknown {
            assert!((t.first..=t.last).contains(&s), "{}: {s}", t.bits);
            assert_eq!(
                winnable(&bits, t.first, t.last, s),
                Some(false),
                "{}",
                t.bits
            );
        }
        assert_eq!(
            (won, t.deals - won - t.unknown),
            (t.won, t.lost),
            "{}",
            t.bits
        );
        let (lo, hi) = bounds(t.won, t.unknown, t.deals);
        assert!((100.0 * lo - t.wilson_low).abs() < 1e-3, "{}", t.bits);
        assert!((100.0 * hi - t.wilson_high).abs() < 1e-3, "{}", t.bits);
        let variant: Variant = t.variant.parse().unwrap();
        let numbering = match t.numbering.as_str() {
            "pysol" => Numbering::Pysol,
            _ => Numbering::Castle,
        };
        let mut checked = 0;
        for _ in 0..DRAWS {
            if checked == SAMPLE {
                break;
            }
            let deal_no = rng.gen_range(t.first..=t.last);
            if unknown.contains(&deal_no) {
                continue;
            }
            let deal = Deal::numbered(variant.rules(), numbering, deal_no).unwrap();
            let out = solver.solve(&deal).unwrap();
            let want = winnable(&bits, t.first, t.last, deal_no).unwrap();
            match out.verdict {
                Verdict::Unknown => continue,
                v => assert_eq!(
                    v == Verdict::Solvable,
                    want,
                    "{} deal {deal_no}: the table says {}, the solver {v}",
                    t.bits,
                    if want { "winnable" } else { "lost" }
                ),
            }
            checked += 1;
        }
        assert!(checked >= SAMPLE / 2, "{}: only {checked} decided", t.bits);
    }
}

/// `castle stats --table` refuses a range with an unknown deal (exit 2, the deal named), and
/// with `--allow-unknown` writes it, the deal listed and its bit clear; `--update` decides
/// it later from a run over that deal alone.
#[test]
fn a_table_with_an_unknown_deal_is_written_only_when_allowed() {
    use crate::common::{castle, run_ok};
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("f.csv");
    let csv = csv.to_str().unwrap();
    // Fortress deals 1..3 decided, deal 4 cut at one node (`unknown`).
    run_ok(&[
        "batch", "-v", "fortress", "--seeds", "1..3", "-q", "--csv", csv,
    ]);
    let cut = ["--seeds", "4", "--max-nodes", "1", "--one-pass", "-q"];
    run_ok(&[&["batch", "-v", "fortress", "--csv", csv][..], &cut[..]].concat());
    let tables = dir.path().join("t");
    let tables = tables.to_str().unwrap();
    let out = castle()
        .args(["stats", csv, "--table", tables])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("deal 4 is unknown"), "{err}");
    run_ok(&["stats", csv, "--table", tables, "--allow-unknown"]);
    let index = read_index(std::path::Path::new(tables)).unwrap();
    assert_eq!(index.len(), 1);
    let t = &index[0];
    assert_eq!((t.first, t.last, t.unknown), (1, 4, 1));
    assert_eq!(t.unknown_seeds().unwrap(), vec![4]);
    assert_eq!(t.won + t.lost, 3);
    let bits = std::fs::read(std::path::Path::new(tables).join(&t.bits)).unwrap();
    assert_eq!(winnable(&bits, 1, 4, 4), Some(false));

    // Deal 4 decided by a later run of its own, and the table updated from that run's rows
    // alone: the same table as one written from every row; a row of a deal outside the
    // table is refused (exit 2).
    let later = dir.path().join("g.csv");
    let later = later.to_str().unwrap();
    run_ok(&[
        "batch", "-v", "fortress", "--seeds", "4", "-q", "--csv", later,
    ]);
    run_ok(&["stats", later, "--table", tables, "--update"]);
    let whole = dir.path().join("w");
    let whole = whole.to_str().unwrap();
    run_ok(&["stats", csv, later, "--table", whole]);
    let updated = read_index(std::path::Path::new(tables)).unwrap();
    assert_eq!(updated, read_index(std::path::Path::new(whole)).unwrap());
    assert_eq!(updated[0].unknown, 0);
    let read = |d: &str| std::fs::read(std::path::Path::new(d).join(&t.bits)).unwrap();
    assert_eq!(read(tables), read(whole));
    let outside = dir.path().join("h.csv");
    let outside = outside.to_str().unwrap();
    run_ok(&[
        "batch", "-v", "fortress", "--seeds", "9", "-q", "--csv", outside,
    ]);
    let out = castle()
        .args(["stats", outside, "--table", tables, "--update"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("deal 9: no table"), "{err}");
}

/// Ranges run apart and joined (`stats --table DIR --join`) make the table one run over the
/// whole range makes, bits and row; a range the parts do not cover is refused (exit 2).
#[test]
fn tables_run_apart_join_into_the_table_of_the_whole_range() {
    use crate::common::{castle, run_ok};
    let dir = tempfile::tempdir().unwrap();
    let path = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    let (a, b, c, d) = (path("a.csv"), path("b.csv"), path("c.csv"), path("d.csv"));
    let (parts, whole) = (path("t"), path("w"));
    // Three parts, each certified (their losses counted), and a range nested in the first
    // that the chain must pass over.
    let batch = |seeds: &str, csv: &str| {
        run_ok(&[
            "batch",
            "-v",
            "castile",
            "--seeds",
            seeds,
            "-q",
            "--certify",
            "--csv",
            csv,
        ]);
    };
    batch("1..7", &a);
    batch("8..15", &b);
    batch("16..20", &c);
    batch("1..3", &d);
    for f in [&a, &b, &c, &d] {
        run_ok(&["stats", f, "--table", &parts]);
    }
    run_ok(&["stats", "--table", &parts, "--join", "1..20"]);
    run_ok(&["stats", &a, &b, &c, "--table", &whole]);
    let joined = read_index(std::path::Path::new(&parts)).unwrap();
    let one = read_index(std::path::Path::new(&whole)).unwrap();
    let row = joined
        .iter()
        .find(|r| (r.first, r.last) == (1, 20))
        .expect("the joined row");
    assert_eq!(row, &one[0]);
    let bits = |d: &str| std::fs::read(std::path::Path::new(d).join(&row.bits)).unwrap();
    assert_eq!(bits(&parts), bits(&whole));
    let out = castle()
        .args(["stats", "--table", &parts, "--join", "1..21"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("join into deals 1..21"), "{err}");
}

/// Tables of one variant, numbering and rules whose ranges start at the same deal agree on the
/// deals they share, bit for bit: the first 100,000 bits of a million-deal table are the
/// 100,000-deal table, and so on. The two come from different runs (other builds, years of
/// CPU apart), so a disagreement is a verdict one of them got wrong.
#[test]
fn tables_over_nested_ranges_agree_on_the_deals_they_share() {
    let dir = PathBuf::from(data("tables"));
    let index = read_index(&dir).unwrap();
    let mut pairs = 0;
    for a in &index {
        for b in &index {
            let same = a.variant == b.variant
                && a.numbering == b.numbering
                && a.options == b.options
                && a.first == b.first;
            if !same || a.last >= b.last {
                continue;
            }
            let small = std::fs::read(dir.join(&a.bits)).unwrap();
            let large = std::fs::read(dir.join(&b.bits)).unwrap();
            for deal in a.first..=a.last {
                assert_eq!(
                    winnable(&small, a.first, a.last, deal),
                    winnable(&large, b.first, b.last, deal),
                    "{} and {} differ at deal {deal}",
                    a.bits,
                    b.bits
                );
            }
            pairs += 1;
        }
    }
    // bc and sa 1..10,000 inside 1..100,000 at least.
    assert!(pairs >= 2, "only {pairs} nested pairs");
}
