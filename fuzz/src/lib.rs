//! The readers of castle as fuzz targets: each takes any bytes, and panics (so that the
//! fuzzer reports it) only if castle panics or gives an error that does not name its source
//! or is longer than [`MAX_MESSAGE`] bytes. `fuzz_targets/` wraps each in `fuzz_target!`;
//! `tests/it/fuzz.rs` of the main package also compiles this file and runs every target on its
//! seed inputs, so it cannot rot unseen.

use castle::check::Board;
use castle::formats::{self, Format, ReadOptions};
use castle::play::{coach::Coach, game::Game, lines, session::Session};
use castle::{Deal, Variant};

/// The longest message an error may print, in bytes.
pub const MAX_MESSAGE: usize = 400;

/// The name the inputs go by in messages.
pub const ORIGIN: &str = "fuzz-input";

fn short(msg: &str, origin: &str) {
    assert!(
        msg.starts_with(origin),
        "the error does not name {origin}: {msg}"
    );
    assert!(msg.len() <= MAX_MESSAGE, "a message of {} bytes", msg.len());
}

fn text(data: &[u8]) -> Option<String> {
    match castle::text::decode(data.to_vec(), ORIGIN) {
        Ok(t) => Some(t),
        Err(e) => {
            short(&e.to_string(), ORIGIN);
            None
        }
    }
}

/// A deal file in `format` (`None`: detected).
pub fn deal(data: &[u8], format: Option<Format>) {
    let Some(t) = text(data) else { return };
    let opts = ReadOptions {
        format,
        ..ReadOptions::default()
    };
    if let Err(e) = formats::read_deal(&t, ORIGIN, opts) {
        short(&e.to_string(), ORIGIN);
    }
}

/// A solve report, checked by `castle verify`.
pub fn verify_report(data: &[u8]) {
    let Some(t) = text(data) else { return };
    if let Err(e) = castle::verify::verify_report(&mut Vec::new(), &t, ORIGIN) {
        short(&e.to_string(), ORIGIN);
    }
}

/// A batch CSV read by `castle stats`.
pub fn batch_csv(data: &[u8]) {
    match castle::batch::rows_from_bytes(data.to_vec(), ORIGIN) {
        Ok(rows) => {
            castle::stats::write(&mut Vec::new(), &castle::stats::merge(rows), None).unwrap();
        }
        Err(e) => short(&e.to_string(), ORIGIN),
    }
}

/// A batch CSV opened for a resume (written to a file in the temporary directory).
pub fn batch_resume(data: &[u8]) {
    let path = std::env::temp_dir().join(format!("castle-fuzz-{}.csv", std::process::id()));
    std::fs::write(&path, data).unwrap();
    let origin = path.display().to_string();
    let rules = Variant::BeleagueredCastle.rules();
    let r = castle::batch::open_for_append(&path, &rules, castle::deal::Numbering::Castle, false);
    if let Err(e) = r {
        short(&e.to_string(), &origin);
    }
    let _ = std::fs::remove_file(&path);
}

/// `castle analyze --after` on deal 3 of Beleaguered Castle.
pub fn after_moves(data: &[u8]) {
    let Ok(after) = std::str::from_utf8(data) else {
        return;
    };
    let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 3);
    let mut board = Board::new(&deal);
    if let Err(e) = castle::analyze::play_after(&mut board, after) {
        short(&e.with_flag("--after").to_string(), "--after");
    }
}

/// `castle play`'s line commands on deal 5 (no coach; `save` and `load` lines dropped: they
/// name files).
pub fn play_lines(data: &[u8]) {
    let input: Vec<u8> = data
        .split(|&b| b == b'\n')
        .filter(|l| {
            !l.trim_ascii_start().starts_with(b"save") && !l.trim_ascii_start().starts_with(b"load")
        })
        .collect::<Vec<_>>()
        .join(&b'\n');
    let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 5);
    let mut s = Session::new(Game::new(deal, true), Coach::new(None), None);
    match lines::run(&mut s, &input[..], &mut Vec::new()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {}
        Err(e) => panic!("{e}"),
    }
}
