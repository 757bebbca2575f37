//! Seeded random mutation of every reader, so that bad input stays an error and never a
//! panic: the three deal formats (castle text, fc-solve boards, JSON), solve reports for
//! `verify`, batch CSV for `stats` and for a resume, `--after` move text and the line
//! commands of `castle play`.
//!
//! The bulk (thousands of inputs) calls the library's readers in the test's own process, each
//! under `catch_unwind`: no panic, and every error names its source and stays short. A few
//! hundred inputs go through the binary: exit code 0, 1 or 2 (never 101, the code of a panic,
//! or a signal), and a short message that names the file or flag. The seed is fixed, so a
//! failure reproduces; `CASTLE_FUZZ_SEED=N` runs another sequence and `CASTLE_FUZZ_SCALE=K`
//! K times as many inputs. The `fuzz/` directory has `cargo fuzz` targets for long runs.

use crate::common::{run_castle, SMALL_BATCH};
use castle::check::Board;
use castle::formats::{self, Format, ReadOptions};
use castle::play::{coach::Coach, game::Game, lines, session::Session};
use castle::{Deal, Variant};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The longest message an error may print, in bytes.
const MAX_MESSAGE: usize = 400;

fn rng() -> Xoshiro256PlusPlus {
    let seed = std::env::var("CASTLE_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20261126);
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

fn scale() -> usize {
    std::env::var("CASTLE_FUZZ_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

/// Pieces that readers have tripped on: non-ASCII letters at the start of a name (a pile
/// `é1`, a full-width `Ｔ1`, a zero-width space), a byte-order mark, line ends, numbers at
/// and past the edges of their types, and a long token.
const PIECES: &[&str] = &[
    "é",
    "Ｔ1",
    "\u{200b}",
    "\u{feff}",
    "\r\n",
    "\n",
    "\0",
    "#",
    ":",
    ",",
    "\"",
    "{",
    "}",
    "[",
    "]",
    "-",
    " ",
    "13",
    "255",
    "256",
    "-1",
    "0",
    "1e19",
    "18446744073709551616",
    "10H",
    "KS",
    "t9",
    "t0",
    "t64",
    "t65",
    "f",
    "r1",
    "s",
    "w",
    "f:5H",
    "unlimited",
    "fortress",
    "start-rank: 13",
    "solvable",
    "unsolvable",
    "\"count\":200",
    "null",
];

/// One random edit of `input`, a few times over.
fn mutate(r: &mut impl Rng, input: &[u8]) -> Vec<u8> {
    let mut b = input.to_vec();
    for _ in 0..r.gen_range(1..=4) {
        let at = r.gen_range(0..=b.len());
        match r.gen_range(0..9) {
            0 if !b.is_empty() => {
                let i = r.gen_range(0..b.len());
                b[i] ^= 1 << r.gen_range(0..8);
            }
            1 if !b.is_empty() => {
                let i = r.gen_range(0..b.len());
                let n = r.gen_range(1..=16).min(b.len() - i);
                b.drain(i..i + n);
            }
            2 => {
                let p = PIECES[r.gen_range(0..PIECES.len())].as_bytes();
                b.splice(at..at, p.iter().copied());
            }
            3 => {
                let p: Vec<u8> = (0..r.gen_range(1..8)).map(|_| r.gen()).collect();
                b.splice(at..at, p);
            }
            4 if !b.is_empty() => {
                // Copy a slice elsewhere (a card twice, a line twice).
                let i = r.gen_range(0..b.len());
                let n = r.gen_range(1..=40).min(b.len() - i);
                let piece = b[i..i + n].to_vec();
                b.splice(at..at, piece);
            }
            5 => b.truncate(at),
            6 if r.gen_ratio(1, 8) => {
                let long = "X".repeat(r.gen_range(100..5000));
                b.splice(at..at, long.bytes());
            }
            7 if !b.is_empty() => {
                // Replace a byte with a printable ASCII one.
                let i = r.gen_range(0..b.len());
                b[i] = r.gen_range(b' '..=b'~');
            }
            _ => {
                let p = PIECES[r.gen_range(0..PIECES.len())].as_bytes();
                b.splice(at..at, p.iter().copied());
            }
        }
    }
    b
}

/// Runs `f` on `input`; panics (with the input) if it panicked, or if its error does not
/// name `origin` or is too long. Returns whether the panic was one of `known`.
fn check<E: std::fmt::Display>(
    what: &str,
    input: &[u8],
    origin: &str,
    known: &[&str],
    f: impl FnOnce() -> Result<(), E>,
) -> bool {
    quiet_known_panics();
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => false,
        Ok(Err(e)) => {
            let msg = e.to_string();
            assert!(
                msg.starts_with(origin),
                "{what}: the error does not name {origin}: {msg}\ninput: {:?}",
                show(input)
            );
            assert!(
                msg.len() <= MAX_MESSAGE,
                "{what}: a message of {} bytes: {}...\ninput: {:?}",
                msg.len(),
                &msg[..msg.floor_char_boundary_compat(300)],
                show(input)
            );
            false
        }
        Err(p) => {
            let why = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            if known.iter().any(|k| why.contains(k)) {
                return true;
            }
            panic!("{what} panicked: {why}\ninput: {:?}", show(input));
        }
    }
}

/// An input for a failure message: its first 600 bytes.
fn show(input: &[u8]) -> String {
    let s = String::from_utf8_lossy(&input[..input.len().min(600)]).into_owned();
    format!("{s:?} ({} bytes)", input.len())
}

/// `str::floor_char_boundary` for the test's Rust version.
trait Floor {
    fn floor_char_boundary_compat(&self, i: usize) -> usize;
}

impl Floor for String {
    fn floor_char_boundary_compat(&self, mut i: usize) -> usize {
        i = i.min(self.len());
        while !self.is_char_boundary(i) {
            i -= 1;
        }
        i
    }
}

/// Panics tolerated as known bugs (counted and printed, not failed). The checker's panic on
/// a pile name starting with a non-ASCII character (`split_at(1)`) is gone:
/// pile names are read by `castle::pile::Pile`, which cannot panic. The list stays empty, so
/// any panic fails the test.
const NON_ASCII_PILE: &[&str] = &[];

/// Keeps the known panics (see [`NON_ASCII_PILE`]) from printing a backtrace each.
fn quiet_known_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let msg = info.to_string();
            if !NON_ASCII_PILE.iter().any(|k| msg.contains(k)) {
                default(info);
            }
        }));
    });
}

fn deals() -> Vec<Deal> {
    let mut v = Vec::new();
    for (variant, seed) in [
        (Variant::BeleagueredCastle, 1),
        (Variant::StreetsAndAlleys, 2),
        (Variant::Citadel, 3),
        (Variant::Fortress, 4),
        (Variant::Castile, 5),
        (Variant::Courtyard, 6),
    ] {
        v.push(Deal::from_seed(variant.rules(), seed));
    }
    v
}

fn decode(bytes: &[u8], origin: &str) -> Result<String, castle::InputError> {
    castle::text::decode(bytes.to_vec(), origin)
}

#[test]
fn deal_readers_never_panic() {
    let mut r = rng();
    let mut corpus: Vec<(Vec<u8>, Option<Format>)> = Vec::new();
    for d in deals() {
        corpus.push((formats::write_text(&d).into_bytes(), Some(Format::Text)));
        if let Ok(f) = formats::write_fcs(&d) {
            corpus.push((f.into_bytes(), Some(Format::Fcs)));
        }
        let mut j = Vec::new();
        castle::report::write_deal(&mut j, &d, castle::deal::Numbering::Castle).unwrap();
        corpus.push((j, Some(Format::Json)));
    }
    let n = 10_000 * scale();
    for i in 0..n {
        let (seed, format) = &corpus[i % corpus.len()];
        let input = mutate(&mut r, seed);
        // Half with the format named, half detected.
        let format = if r.gen() { *format } else { None };
        let origin = "fuzz.deal";
        check("read_deal", &input, origin, &[], || {
            let text = decode(&input, origin)?;
            let opts = ReadOptions {
                format,
                ..ReadOptions::default()
            };
            formats::read_deal(&text, origin, opts).map(|_| ())
        });
    }
    eprintln!("deal readers: {n} inputs");
}

#[test]
fn verify_never_panics() {
    let mut r = rng();
    let solver = castle::Solver::default();
    let mut corpus = Vec::new();
    for seed in 1..=4 {
        let rules = Variant::BeleagueredCastle
            .rules()
            .with_start_rank(9)
            .unwrap();
        let deal = Deal::from_seed(rules, seed);
        let out = solver.solve(&deal).unwrap();
        let mut j = Vec::new();
        castle::report::write_report(&mut j, &deal, &out, castle::deal::Numbering::Castle).unwrap();
        corpus.push(j);
    }
    let n = 4000 * scale();
    let mut known = 0;
    for i in 0..n {
        let mut seed = corpus[i % corpus.len()].clone();
        let piled = r.gen_ratio(1, 4);
        if piled {
            // A pile name that starts with another character (`é1`, `Ｔ1`, a zero-width
            // space): the case that panicked in the checker.
            let text = String::from_utf8(seed).unwrap();
            let key = ["\"from\":\"", "\"to\":\""][r.gen_range(0..2)];
            let piece = PIECES[r.gen_range(0..4)];
            seed = text.replacen(key, &format!("{key}{piece}"), 1).into_bytes();
        }
        // Half the renamed piles go in as they are (most mutations break the JSON).
        let input = if piled && r.gen() {
            seed
        } else {
            mutate(&mut r, &seed)
        };
        let origin = "fuzz.json";
        known += usize::from(check("verify", &input, origin, NON_ASCII_PILE, || {
            let text = decode(&input, origin)?;
            let mut out = Vec::new();
            castle::verify::verify_report(&mut out, &text, origin).map(|_| ())
        }));
    }
    eprintln!("verify: {n} inputs, {known} hit the known non-ASCII pile panic of check.rs");
}

#[test]
fn batch_csv_readers_never_panic() {
    let mut r = rng();
    let mut csv = format!("{}\n", castle::batch::HEADER);
    for seed in 1..=6 {
        csv += &format!(
            "{seed},beleaguered-castle,1,false,single,{},{},{},{},{},{},{},castle\n",
            ["solvable", "unsolvable", "unknown"][seed % 3],
            seed * 10,
            seed * 1000,
            seed * 100,
            seed,
            [52, 20, 7][seed % 3],
            ["", "", "nodes"][seed % 3]
        );
    }
    let n = 5000 * scale();
    for _ in 0..n {
        let input = mutate(&mut r, csv.as_bytes());
        check("stats", &input, "fuzz.csv", &[], || {
            let rows = castle::batch::rows_from_bytes(input.clone(), "fuzz.csv")?;
            castle::stats::write(&mut Vec::new(), &castle::stats::merge(rows), None).map_err(|e| {
                castle::InputError::new(castle::InputKind::Report, e.to_string()).at("fuzz.csv")
            })
        });
    }
    // A resume opens the file, cuts a torn line, and appends: through real files.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fuzz.csv");
    let origin = path.display().to_string();
    let rules = Variant::BeleagueredCastle.rules();
    let resumes = 600 * scale();
    for _ in 0..resumes {
        let input = mutate(&mut r, csv.as_bytes());
        std::fs::write(&path, &input).unwrap();
        check("resume", &input, &origin, &[], || {
            castle::batch::open_for_append(&path, &rules, castle::deal::Numbering::Castle, false)
                .map(|_| ())
        });
    }
    eprintln!("batch CSV: {n} inputs to stats, {resumes} resumes");
}

#[test]
fn after_moves_never_panic() {
    let mut r = rng();
    let rules = Variant::BeleagueredCastle
        .rules()
        .with_start_rank(8)
        .unwrap();
    let deal = Deal::from_seed(rules, 3);
    let won = castle::Solver::default().solve(&deal).unwrap();
    let line: Vec<String> = castle::check::steps_of(&won.moves)
        .iter()
        .map(|s| format!("{} {}", s.from, s.to))
        .collect();
    let seed = line.join(", ");
    let n = 5000 * scale();
    let mut known = 0;
    for _ in 0..n {
        let input = mutate(&mut r, seed.as_bytes());
        let text = String::from_utf8_lossy(&input).into_owned();
        known += usize::from(check("--after", &input, "--after", NON_ASCII_PILE, || {
            let mut board = Board::new(&deal);
            castle::analyze::play_after(&mut board, &text).map_err(|e| e.with_flag("--after"))
        }));
    }
    eprintln!("--after: {n} inputs, {known} hit the known non-ASCII pile panic of check.rs");
}

/// The commands of a game, for mutation (no `save`/`load`: they name files).
const PLAY: &str = "t1\nt2 t3\nt3 f\nundo\nredo 2\nlegal\nmoves\nboard\nauto off\nt4 t5 2\n\
f:AH t1\nrestart\nrank 11\nt1 f\nvariant fortress\nt1\nnew 5\nundo 3\nhint\nshow 2\nhelp\n";

#[test]
fn play_lines_never_panic() {
    let mut r = rng();
    let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 5);
    let n = 1500 * scale();
    let mut known = 0;
    for _ in 0..n {
        let mut input = mutate(&mut r, PLAY.as_bytes());
        // Commands that name files stay out of a test that runs in the source tree.
        let text = String::from_utf8_lossy(&input).into_owned();
        if text.lines().any(|l| {
            ["save", "load"]
                .iter()
                .any(|w| l.trim_start().starts_with(w))
        }) {
            input = text
                .lines()
                .filter(|l| {
                    !l.trim_start().starts_with("save") && !l.trim_start().starts_with("load")
                })
                .collect::<Vec<_>>()
                .join("\n")
                .into_bytes();
        }
        let game = Game::new(deal.clone(), true);
        known += usize::from(check("play", &input, "", NON_ASCII_PILE, || {
            let mut s = Session::new(game, Coach::new(None), None);
            let mut out = Vec::new();
            match lines::run(&mut s, &input[..], &mut out) {
                // Bytes that are not UTF-8 end the game: the binary exits 2 for them.
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => Ok(()),
                other => other,
            }
        }));
    }
    eprintln!("play: {n} command scripts, {known} hit the known non-ASCII pile panic");
}

/// Runs the binary; asserts it did not panic or die, and that a message is short and names
/// `place`. Returns the exit code.
fn run(args: &[&str], stdin: &[u8], place: &str, dir: &std::path::Path) -> i32 {
    let out = run_castle(args, stdin, Some(dir));
    let err = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code();
    if code == Some(101) && NON_ASCII_PILE.iter().any(|k| err.contains(k)) {
        // Known, see NON_ASCII_PILE.
        return 101;
    }
    assert!(
        matches!(code, Some(0..=2)),
        "castle {args:?} exited with {:?}: {err}\nstdin: {:?}",
        out.status,
        show(stdin)
    );
    assert!(
        err.len() <= MAX_MESSAGE + 20,
        "castle {args:?}: {} bytes on standard error: {}",
        err.len(),
        err.chars().take(300).collect::<String>()
    );
    if code == Some(2) {
        assert!(
            err.contains(place),
            "castle {args:?}: `{err}` does not name {place}"
        );
    }
    code.unwrap()
}

#[test]
fn the_binary_exits_0_1_or_2_on_mutated_input() {
    let mut r = rng();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let file = d.join("in.txt");
    let f = file.to_str().unwrap();
    let fast = ["--max-nodes", "2000", "--memory", "16", "--no-quick"];
    let deal = formats::write_text(&Deal::from_seed(
        Variant::BeleagueredCastle
            .rules()
            .with_start_rank(9)
            .unwrap(),
        2,
    ));
    let fcs = formats::write_fcs(&Deal::from_seed(Variant::StreetsAndAlleys.rules(), 2)).unwrap();
    let solver = castle::Solver::default();
    let small = Deal::from_seed(
        Variant::BeleagueredCastle
            .rules()
            .with_start_rank(10)
            .unwrap(),
        3,
    );
    let mut report = Vec::new();
    castle::report::write_report(
        &mut report,
        &small,
        &solver.solve(&small).unwrap(),
        castle::deal::Numbering::Castle,
    )
    .unwrap();
    let rounds = 80 * scale();
    let mut runs = 0;
    let mut known = 0;
    for _ in 0..rounds {
        for seed in [deal.as_bytes(), fcs.as_bytes()] {
            std::fs::write(&file, mutate(&mut r, seed)).unwrap();
            run(
                &[&["solve", "-q", "--deal", f][..], &fast].concat(),
                b"",
                "in.txt",
                d,
            );
            let input = mutate(&mut r, seed);
            run(
                &[&["solve", "-q", "--deal", "-"][..], &fast].concat(),
                &input,
                "<stdin>",
                d,
            );
            runs += 2;
        }
        std::fs::write(&file, mutate(&mut r, &report)).unwrap();
        let piled = String::from_utf8(report.clone()).unwrap().replacen(
            "\"from\":\"",
            &format!("\"from\":\"{}", PIECES[r.gen_range(0..4)]),
            1,
        );
        std::fs::write(&file, mutate(&mut r, piled.as_bytes())).unwrap();
        known += usize::from(run(&["verify", f], b"", "in.txt", d) == 101);
        let input = mutate(&mut r, &report);
        run(&["verify", "-"], &input, "<stdin>", d);
        let after = String::from_utf8_lossy(&mutate(&mut r, b"t1 f, t2 t3, t4 t5")).into_owned();
        if !after.contains('\0') {
            let args = [
                "analyze",
                "--seed",
                "3",
                "--start-rank",
                "11",
                "--after",
                &after,
            ];
            known += usize::from(run(&[&args[..], &fast].concat(), b"", "--after", d) == 101);
            runs += 1;
        }
        let mut csv = format!("{}\n", castle::batch::HEADER);
        csv += "1,beleaguered-castle,11,false,single,solvable,8,7,7,0,52,,castle\n";
        std::fs::write(&file, mutate(&mut r, csv.as_bytes())).unwrap();
        run(&["stats", f], b"", "in.txt", d);
        std::fs::write(&file, mutate(&mut r, csv.as_bytes())).unwrap();
        let args = [&SMALL_BATCH[..], &["-j", "1", "--csv", f], &fast[..2]].concat();
        run(&args, b"", "in.txt", d);
        let script = mutate(&mut r, PLAY.as_bytes());
        let args = ["play", "--seed", "4", "--coach-nodes", "200", "--lines"];
        run(&args, &script, "<stdin>", d);
        runs += 7;
    }
    eprintln!("binary: {runs} runs, {known} hit the known non-ASCII pile panic of check.rs");
}

/// The `cargo fuzz` targets of `fuzz/` (compiled here too, so that they keep building).
#[path = "../../fuzz/src/lib.rs"]
mod targets;

#[test]
fn the_cargo_fuzz_targets_run_on_mutated_input() {
    let mut r = rng();
    let d = Deal::from_seed(Variant::BeleagueredCastle.rules(), 9);
    let text = formats::write_text(&d);
    let fcs = formats::write_fcs(&d).unwrap();
    let mut json = Vec::new();
    castle::report::write_deal(&mut json, &d, castle::deal::Numbering::Castle).unwrap();
    let small = Deal::from_seed(
        Variant::BeleagueredCastle
            .rules()
            .with_start_rank(10)
            .unwrap(),
        3,
    );
    let mut report = Vec::new();
    let won = castle::Solver::default().solve(&small).unwrap();
    castle::report::write_report(&mut report, &small, &won, castle::deal::Numbering::Castle)
        .unwrap();
    let csv = format!(
        "{}\n1,beleaguered-castle,1,false,single,solvable,8,7,7,0,52,,castle\n",
        castle::batch::HEADER
    );
    let n = 100 * scale();
    for _ in 0..n {
        targets::deal(&mutate(&mut r, text.as_bytes()), Some(Format::Text));
        targets::deal(&mutate(&mut r, fcs.as_bytes()), Some(Format::Fcs));
        targets::deal(&mutate(&mut r, &json), Some(Format::Json));
        targets::batch_csv(&mutate(&mut r, csv.as_bytes()));
        targets::batch_resume(&mutate(&mut r, csv.as_bytes()));
        targets::play_lines(&mutate(&mut r, PLAY.as_bytes()));
        targets::verify_report(&mutate(&mut r, &report));
        targets::after_moves(&mutate(&mut r, b"t1 f, t2 t3, t4 t5"));
    }
    eprintln!("cargo fuzz targets: {} inputs", 8 * n);
}
