//! Writes the tier files of `data/tables/` (`castle::difficulty`): for a range of a published
//! table, every winnable deal graded by the simple player, the range's tertile cuts, the
//! `.tiers` file (two bits a deal) and the range's line of `tiers.csv`; then
//! `src/winnable_tiers.rs` (the tier files compiled into the library) from `tiers.csv`.
//!
//! `cargo run --release --example tiers -- VARIANT FIRST LAST [DIR]` (DIR: data/tables)

use castle::deal::Numbering;
use castle::difficulty::{grade_range, pack, Tier, PATIENCE, PLAYOUTS, PLAYOUT_SEED};
use castle::winrates::winnable;
use castle::Variant;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

const HEADER: &str =
    "variant,numbering,first,last,winnable,easy,medium,hard,cut_hard,cut_easy,playouts,patience,playout_seed,tiers";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: tiers VARIANT FIRST LAST [DIR]";
    let variant: Variant = args.first().expect(usage).parse().expect("a variant");
    let first: u64 = args.get(1).expect(usage).parse().expect("a number");
    let last: u64 = args.get(2).expect(usage).parse().expect("a number");
    let dir = PathBuf::from(args.get(3).map_or("data/tables", String::as_str));
    let numbering = Numbering::Castle;
    let t = castle::winnable::table(&variant.rules(), numbering).expect("a published table");
    assert!(
        t.first <= first && last <= t.last,
        "the range is outside the table"
    );
    let start = Instant::now();
    let (tiers, cuts) = grade_range(variant.rules(), numbering, first, last, |s| {
        winnable(t.bits, t.first, t.last, s) == Some(true)
    })
    .expect("the deals deal");
    let secs = start.elapsed().as_secs_f64();
    let count = |w: Tier| tiers.iter().filter(|t| **t == Some(w)).count();
    let (easy, medium, hard) = (count(Tier::Easy), count(Tier::Medium), count(Tier::Hard));
    let name = format!("{variant}-{}-{first}-{last}.tiers", numbering.name());
    std::fs::write(dir.join(&name), pack(&tiers)).expect("the tier file is written");
    let line = format!(
        "{variant},{},{first},{last},{},{easy},{medium},{hard},{},{},{PLAYOUTS},{PATIENCE},{PLAYOUT_SEED},{name}",
        numbering.name(),
        easy + medium + hard,
        cuts.hard,
        cuts.easy
    );
    // tiers.csv: one line per variant and numbering (a new range replaces the old one).
    let index = dir.join("tiers.csv");
    let mut lines: BTreeMap<String, String> = std::fs::read_to_string(&index)
        .unwrap_or_default()
        .lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|l| {
            (
                l.split(',').take(2).collect::<Vec<_>>().join(","),
                l.to_string(),
            )
        })
        .collect();
    lines.insert(format!("{variant},{}", numbering.name()), line);
    let mut csv = format!("{HEADER}\n");
    let mut rust = String::from(
        "// The tier files of `data/tables/` and their cuts (`data/tables/tiers.csv`), written by\n\
         // `cargo run --release --example tiers` (docs/difficulty.md).\n\n\
         /// The published tier files.\npub static TIERS: &[Tiers] = &[\n",
    );
    for l in lines.values() {
        writeln!(csv, "{l}").unwrap();
        let f: Vec<&str> = l.split(',').collect();
        let v: Variant = f[0].parse().expect("a variant");
        let n = if f[1] == "pysol" { "Pysol" } else { "Castle" };
        writeln!(
            rust,
            "    Tiers {{\n        variant: Variant::{v:?},\n        numbering: Numbering::{n},\n        first: {},\n        last: {},\n        tiers: include_bytes!(\"../data/tables/{}\"),\n        cuts: Cuts {{\n            hard: {:?},\n            easy: {:?},\n        }},\n    }},",
            f[2], f[3], f[13], f[8].parse::<f64>().unwrap(), f[9].parse::<f64>().unwrap()
        )
        .unwrap();
    }
    rust.push_str("];\n");
    std::fs::write(&index, csv).expect("tiers.csv is written");
    std::fs::write("src/winnable_tiers.rs", rust).expect("src/winnable_tiers.rs is written");
    eprintln!(
        "{variant} {first}..{last}: {} winnable graded ({easy} easy, {medium} medium, {hard} hard; cuts {} and {}) in {secs:.1} s wall",
        easy + medium + hard,
        cuts.hard,
        cuts.easy
    );
}
