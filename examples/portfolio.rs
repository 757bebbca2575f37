//! Measures the portfolio's members (`castle::solver::portfolio`) one at a time: each runs
//! alone from every deal given, up to a node cap, and the line it wins with is replayed by the
//! checker. Prints one row per deal and member (`seed,member,won,nodes`) and, to standard
//! error, a summary per member: deals won, nodes expanded on them, and wins per million nodes
//! over all the deals.
//!
//! ```text
//! cargo run --release --example portfolio -- --variant sa --seeds 1..300 --nodes 200000
//! castle batch -v bc --seeds 1..1000 -f jsonl -q | jq -r 'select(.verdict=="solvable").seed' \
//!   | cargo run --release --example portfolio -- --variant bc --stdin --nodes 100000
//! ```
//!
//! Options: `--variant V`, `--numbering castle|pysol`, `--seeds A..B` or `--stdin` (one seed
//! per line), `--nodes N` (default 200,000), `--members LIST` (default all), `--mib M` (each
//! member's memory, default 1024).

use castle::check::{check_win, steps_of};
use castle::deal::Numbering;
use castle::solver::portfolio::{run_alone, Member, Members};
use castle::{Deal, Variant};
use std::io::BufRead;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut variant = Variant::BeleagueredCastle;
    let mut numbering = Numbering::Castle;
    let mut seeds: Vec<u64> = Vec::new();
    let mut nodes = 200_000u64;
    let mut members = Members::ALL;
    let mut mib = 1024usize;
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--variant" => {
                variant = value.parse().unwrap_or_else(|e| panic!("--variant: {e}"));
            }
            "--numbering" => {
                numbering = match value.as_str() {
                    "pysol" => Numbering::Pysol,
                    _ => Numbering::Castle,
                };
            }
            "--seeds" => {
                let (a, b) = value.split_once("..").expect("--seeds A..B");
                let (a, b): (u64, u64) = (a.parse().expect("A"), b.parse().expect("B"));
                seeds.extend(a..=b);
            }
            "--stdin" => {
                seeds.extend(
                    std::io::stdin()
                        .lock()
                        .lines()
                        .map_while(Result::ok)
                        .filter_map(|l| l.trim().parse::<u64>().ok()),
                );
                i += 1;
                continue;
            }
            "--nodes" => nodes = value.parse().expect("--nodes N"),
            "--members" => members = Members::parse(&value).expect("--members LIST"),
            "--mib" => mib = value.parse().expect("--mib M"),
            other => panic!("unknown option {other}"),
        }
        i += 2;
    }
    let rules = variant.rules();
    let list: Vec<Member> = members.iter().collect();
    let mut won = vec![0u32; list.len()];
    let mut won_nodes = vec![0u64; list.len()];
    let mut all_nodes = vec![0u64; list.len()];
    println!("seed,member,won,nodes");
    for &seed in &seeds {
        let deal = Deal::numbered(rules, numbering, seed).expect("a numbered deal");
        for (k, &m) in list.iter().enumerate() {
            let (line, expanded) = run_alone(&deal, m, nodes, mib << 20);
            if let Some(line) = &line {
                check_win(&deal, &steps_of(line)).expect("a member's win replays");
                won[k] += 1;
                won_nodes[k] += expanded;
            }
            all_nodes[k] += expanded;
            println!(
                "{seed},{},{},{expanded}",
                m.name(),
                u8::from(line.is_some())
            );
        }
    }
    for (k, m) in list.iter().enumerate() {
        eprintln!(
            "{:<12} won {:>5} of {}  nodes on wins {:>11}  all nodes {:>11}  wins per M nodes {:.2}",
            m.name(),
            won[k],
            seeds.len(),
            won_nodes[k],
            all_nodes[k],
            won[k] as f64 / (all_nodes[k].max(1) as f64 / 1e6)
        );
    }
}
