//! Measures the refinement loop of `common/pin.rs` (courtyard abstracted by pinned card
//! values, refined from the replays of its wins; docs/design.md, "Courtyard: refining an
//! abstraction") deal by deal: how it ended (`Lost` would be a proof, `Won` a real win, whose
//! line is replayed by the checker here, `Limit` the abstract search's budget), rounds, the
//! values pinned in the last search, the states of the last abstract win, seconds.
//!
//! `cargo run --release --example courtyard_cegar -- FIRST LAST [MAX_STATES]` (abstract
//! states a round, 2,000,000 by default). `VERBOSE=1` prints each round; `PIN_DEBUG=1` each
//! refused replay; `PINS=7H,8H,...` searches once with those values pinned (deal FIRST), and
//! with `PIN_STATS=1` counts what varies among the states it entered.

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
