//! Measures a relaxed courtyard ([`rm`]) deal by deal: whether the relaxation can win, the
//! states it searched, and seconds. Its "cannot win" would be a proof that the deal is lost
//! (every line of the game is a line of the relaxation); measured, it wins every deal tried
//! (docs/design.md, "Why courtyard needs a quotient").
//!
//! `cargo run --release --example courtyard_relax -- FIRST LAST [MAX_STATES]`

#[path = "common/rm.rs"]
mod rm;

use castle::{Deal, Variant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let first: u64 = args[0].parse().expect("FIRST");
    let last: u64 = args[1].parse().expect("LAST");
    let max: usize = args
        .get(2)
        .map_or(5_000_000, |a| a.parse().expect("MAX_STATES"));
    println!("deal\tverdict\tstates\tseconds");
    for seed in first..=last {
        let deal = Deal::from_seed(Variant::Courtyard.rules(), seed);
        let t0 = std::time::Instant::now();
        let (verdict, states) = rm::Game::of(&deal).solve(rm::St::of_deal(&deal), max);
        let verdict = match verdict {
            Some(true) => "can-win",
            Some(false) => "lost",
            None => "limit",
        };
        println!(
            "{seed}\t{verdict}\t{states}\t{:.3}",
            t0.elapsed().as_secs_f64()
        );
    }
}
