//! How long one load waits when it depends on the one before and lands at random in an array
//! of a given size: the cost a transposition-table probe pays once the table outgrows the
//! caches. The performance log compares it with the table's share of a node's time.
//!
//! `cargo run --release --example memory_latency` (a few seconds; sizes in MiB as arguments,
//! default 1 4 16 32 64 128 256).

use std::time::Instant;

/// Cache line in `usize` words: each line holds one link, so every step touches a new line.
const LINE: usize = 64 / std::mem::size_of::<usize>();

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("sizes are MiB, whole numbers"))
        .collect();
    let sizes = if sizes.is_empty() {
        vec![1, 4, 16, 32, 64, 128, 256]
    } else {
        sizes
    };
    for mib in sizes {
        let lines = (mib << 20) / 64;
        // One random cycle through every line (Sattolo's shuffle), so the chain visits them
        // all before it repeats and no prefetcher can guess the next address.
        let mut order: Vec<usize> = (0..lines).collect();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in (1..lines).rev() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            order.swap(i, (x % i as u64) as usize);
        }
        let mut next = vec![0usize; lines * LINE];
        for k in 0..lines {
            next[order[k] * LINE] = order[(k + 1) % lines] * LINE;
        }
        let steps = 20_000_000usize;
        let mut p = 0usize;
        let t = Instant::now();
        for _ in 0..steps {
            p = next[p];
        }
        let ns = t.elapsed().as_nanos() as f64 / steps as f64;
        // Printing `p` keeps the chain from being optimised away.
        println!(
            "{mib:5} MiB: {ns:6.1} ns a load (ended at line {})",
            p / LINE
        );
    }
}
