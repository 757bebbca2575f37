//! Experimental: courtyard abstractions by pinned values, refined from failed replays.
//!
//! `cargo run --release --example courtyard_cegar -- FIRST LAST [MAX_STATES]`

#[path = "common/pin.rs"]
mod pin;

use castle::{Card, Deal, Suit, Variant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let first: u64 = args[0].parse().unwrap();
    let last: u64 = args[1].parse().unwrap();
    let max: usize = args.get(2).map_or(2_000_000, |a| a.parse().unwrap());
    let verbose = std::env::var_os("VERBOSE").is_some();
    let name = |v: usize| Card::new((v / 4 + 1) as u8, Suit::from_index(v % 4)).to_string();
    if let Ok(pins) = std::env::var("PINS") {
        let mut pinned = [false; 52];
        for c in pins.split(',') {
            let c: Card = c.parse().unwrap();
            pinned[c.index()] = true;
        }
        let deal = Deal::from_seed(Variant::Courtyard.rules(), first);
        let (g, root) = pin::Game::new(&deal, pinned);
        let (r, n) = g.solve(&root, max);
        println!(
            "{first}\t{}\t{n}",
            match r {
                Ok(Some(_)) => "win",
                Ok(None) => "LOST",
                Err(()) => "limit",
            }
        );
        return;
    }
    println!("deal\tend\trounds\tpinned\tstates_last_win\tseconds");
    for seed in first..=last {
        let deal = Deal::from_seed(Variant::Courtyard.rules(), seed);
        let t0 = std::time::Instant::now();
        let (end, rounds, line) = pin::cegar(&deal, max, |r| {
            if verbose {
                eprintln!(
                    "  {seed}: pinned {} states {} line {} failed at {:?} pin {:?}",
                    r.pinned,
                    r.states,
                    r.line,
                    r.failed_at,
                    r.new.iter().map(|&v| name(v)).collect::<Vec<_>>()
                );
            }
        });
        let checked = line.map(|l| match castle::check::check_win(&deal, &l) {
            Ok(()) => format!("replays ({} moves)", l.len()),
            Err(e) => format!("DOES NOT REPLAY: {e}"),
        });
        let last = rounds.last();
        println!(
            "{seed}\t{end:?}\t{}\t{}\t{}\t{:.1}\t{}",
            rounds.len(),
            last.map_or(0, |r| r.pinned + r.new.len()),
            last.map_or(0, |r| r.states),
            t0.elapsed().as_secs_f64(),
            checked.unwrap_or_default()
        );
    }
}
