//! The page that replays a solution (`castle solve --format html`, `castle show`), opened in
//! a real browser: Debian's `chromium`, headless, dumps the page's DOM at `#move=0`, a move
//! in the middle and the last move, and the board in the DOM (the cards of every pile, in
//! order) must be the checker's position after that many moves, for a won deal of every
//! variant. A screenshot of each page at its middle move is kept in
//! `target/tmp/replay-pages/` for people to look at. Without chromium the test says so and
//! passes, except under CI (`CI` set), where that is a failure.

use crate::common;

use crate::common::{castle, run_ok};
use castle::check::{replay, Board};
use castle::play::game::view;
use castle::report::Report;
use castle::Variant;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The browser, if there is one.
fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            let ok = Command::new(name)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success());
            ok.then(|| PathBuf::from(name))
        })
}

/// Runs headless chromium on `url` with `extra` flags and returns its standard output.
fn headless(browser: &Path, profile: &Path, url: &str, extra: &[&str]) -> String {
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--window-size=1200,800",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The piles of a dumped DOM: each `data-pile` element's id and its cards' codes, in order.
fn dom_piles(dom: &str) -> Vec<(String, Vec<String>)> {
    dom.split("data-pile=\"")
        .skip(1)
        .map(|part| {
            let id = part[..part.find('"').unwrap()].to_string();
            let body = &part[..part.find("</div>").unwrap()];
            let cards = body
                .split("data-card=\"")
                .skip(1)
                .map(|c| c[..c.find('"').unwrap()].to_string())
                .collect();
            (id, cards)
        })
        .collect()
}

/// The checker's board as the page names its piles: `t1..`, `f1..`, `r1..`, `s` (next card
/// last) and `w`.
fn board_piles(board: &Board) -> Vec<(String, Vec<String>)> {
    let v = view(board);
    let names = |p: &[castle::Card]| p.iter().map(ToString::to_string).collect::<Vec<_>>();
    let mut out = Vec::new();
    for (i, p) in v.tableau.iter().enumerate() {
        out.push((format!("t{}", i + 1), names(p)));
    }
    for (i, p) in v.foundations.iter().enumerate() {
        out.push((format!("f{}", i + 1), names(p)));
    }
    for (i, c) in v.reserve.iter().enumerate() {
        out.push((
            format!("r{}", i + 1),
            c.iter().map(ToString::to_string).collect(),
        ));
    }
    if board.rules().stock {
        out.push(("s".to_string(), names(&v.stock)));
        out.push(("w".to_string(), names(&v.waste)));
    }
    out
}

/// The first of seeds 1.. whose solve is a win, as its JSON report.
fn won_report(variant: Variant) -> String {
    for seed in 1..30u64 {
        let json = run_ok(&[
            "solve",
            "-v",
            variant.name(),
            "--seed",
            &seed.to_string(),
            "--max-nodes",
            "300000",
            "-f",
            "json",
            "-q",
        ]);
        if json.contains("\"verdict\":\"solvable\"") {
            return json;
        }
    }
    panic!("no won deal of {} in seeds 1..30", variant.name());
}

#[test]
fn the_page_draws_the_checker_s_position_at_every_move_asked() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but chromium is missing: the replay page cannot be tested (apt-get install chromium)"
        );
        eprintln!("chromium is not installed: the replay page's browser test is skipped");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("replay-pages");
    std::fs::create_dir_all(&shots).unwrap();
    for variant in Variant::ALL {
        let json = won_report(variant);
        let report_path = dir.path().join(format!("{}.json", variant.name()));
        std::fs::write(&report_path, &json).unwrap();
        let page = dir.path().join(format!("{}.html", variant.name()));
        run_ok(&[
            "show",
            report_path.to_str().unwrap(),
            "-o",
            page.to_str().unwrap(),
        ]);
        let html = std::fs::read_to_string(&page).unwrap();
        assert!(!html.contains("http://") && !html.contains("https://"));

        let deal = castle::formats::read_json_deal(&json, "report").unwrap();
        let report: Report = serde_json::from_str(&json).unwrap();
        let steps = report.steps("report").unwrap();
        let last = steps.len();
        let profile = dir.path().join("profile");
        for n in [0, last / 2, last] {
            let url = format!("file://{}#move={n}", page.display());
            let dom = headless(&browser, &profile, &url, &["--dump-dom"]);
            assert!(
                dom.contains(&format!("id=\"status\" data-move=\"{n}\"")),
                "{} opens at move {n}",
                variant.name()
            );
            let board = replay(&deal, &steps[..n]).unwrap();
            // Compared by pile name: the page lays the piles out in wings, not in order.
            let sorted = |v: Vec<(String, Vec<String>)>| v.into_iter().collect::<BTreeMap<_, _>>();
            let (drawn, want) = (dom_piles(&dom), board_piles(&board));
            assert_eq!(
                drawn.len(),
                want.len(),
                "{}: every pile drawn once",
                variant.name()
            );
            assert_eq!(
                sorted(drawn),
                sorted(want),
                "{} after {n} moves",
                variant.name()
            );
            // The current move is marked in the list, and every move is listed.
            let current: Vec<&str> = dom
                .split("<li ")
                .skip(1)
                .map(|li| &li[..li.find('>').unwrap()])
                .filter(|tag| tag.contains("current"))
                .collect();
            assert_eq!(current.len(), 1, "{}: one current move", variant.name());
            assert!(
                current[0].contains(&format!("data-move=\"{n}\"")),
                "{} marks move {n}: {}",
                variant.name(),
                current[0]
            );
            assert_eq!(
                dom.matches("<li ").count(),
                last + 1,
                "{}: the deal and every move listed",
                variant.name()
            );
        }
        let shot = shots.join(format!("{}.png", variant.name()));
        let url = format!("file://{}#move={}", page.display(), last / 2);
        headless(
            &browser,
            &profile,
            &url,
            &[&format!("--screenshot={}", shot.display())],
        );
        assert!(shot.exists(), "a screenshot of {}", variant.name());
    }
}

/// `solve --format html` writes the same board and moves as `show` of its JSON report.
#[test]
fn solve_writes_the_page_show_writes() {
    let page = run_ok(&["solve", "--seed", "42", "-f", "html", "-q"]);
    assert!(page.starts_with("<!DOCTYPE html>"), "{}", &page[..40]);
    let json = run_ok(&["solve", "--seed", "42", "-f", "json", "-q"]);
    let report: Report = serde_json::from_str(&json).unwrap();
    let f = common::temp_file(&json);
    let shown = run_ok(&["show", f.path().to_str().unwrap()]);
    let moves_of = |p: &str| p.matches("\"text\":").count();
    assert_eq!(moves_of(&page), report.moves.len());
    assert_eq!(moves_of(&shown), report.moves.len());
    // An unwritable -o and a file that is no report are bad input.
    for args in [
        vec![
            "show",
            f.path().to_str().unwrap(),
            "-o",
            "/no/such/dir/p.html",
        ],
        vec!["show", "/no/such/file.json"],
    ] {
        let out = castle().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

/// A game saved by `castle play` keeps its own marks of the automatic moves on the page.
#[test]
fn show_keeps_a_saved_game_s_automatic_moves() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("game.json");
    let input = format!("save {}\nquit\n", save.display());
    let out = common::run_castle(&["play", "--seed", "42"], input.as_bytes(), None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&save).unwrap()).unwrap();
    let automatic = saved["play"]["automatic"].as_array().unwrap().len();
    let moves = saved["moves"].as_array().unwrap().len();
    assert!(automatic > 0, "deal 42 starts with automatic moves");
    let page = run_ok(&["show", save.to_str().unwrap()]);
    assert_eq!(page.matches("\"auto\":true").count(), automatic);
    assert_eq!(page.matches("\"text\":").count(), moves);
    assert!(page.contains("A saved game from"));
}
