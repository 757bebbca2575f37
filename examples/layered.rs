//! Measures the layered search (`castle::solver::layered`) deal by deal: verdict, positions
//! expanded and stored, levels and classes closed, the largest class, peak bytes counted, seconds, rate.
//!
//! `cargo run --release --example layered -- VARIANT FIRST LAST SECONDS MEMORY_MIB` (deals
//! by castle's numbering), or `... -- FILE SECONDS MEMORY_MIB` for a deal file (its variant
//! read from the file, beleaguered-castle if it names none). One line per deal; a final line
//! sums them. `LAYERED_LEVELS=1` also prints each deal's classes (level:positions);
//! `LAYERED_SPILL=DIR` spills under DIR what outgrows the budget (then the columns add the
//! classes on disk, peak disk MiB and GiB written); `LAYERED_THREADS=N` expands on N threads
//! (default 1).

use castle::solver::layered::{self, End};
use castle::{Deal, Limits, Pruning, Variant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| -> &str { args.get(i).map_or("", String::as_str) };
    let deals: Vec<(String, Deal)>;
    let (seconds, mib): (f64, usize);
    if args.len() == 3 {
        let text = std::fs::read_to_string(arg(0)).expect("a deal file");
        let deal = castle::formats::read_deal(&text, arg(0), Default::default()).expect("a deal");
        deals = vec![(arg(0).to_string(), deal)];
        seconds = arg(1).parse().expect("SECONDS");
        mib = arg(2).parse().expect("MEMORY_MIB");
    } else {
        let v: Variant = arg(0).parse().expect("a variant");
        let first: u64 = arg(1).parse().expect("FIRST");
        let last: u64 = arg(2).parse().expect("LAST");
        seconds = arg(3).parse().expect("SECONDS");
        mib = arg(4).parse().expect("MEMORY_MIB");
        deals = (first..=last)
            .map(|s| (s.to_string(), Deal::from_seed(v.rules(), s)))
            .collect();
    }
    let show_levels = std::env::var_os("LAYERED_LEVELS").is_some();
    let threads: usize =
        std::env::var("LAYERED_THREADS").map_or(1, |t| t.parse().expect("LAYERED_THREADS=N"));
    let spill =
        std::env::var_os("LAYERED_SPILL").map(|d| layered::SpillTo::new(std::path::Path::new(&d)));
    println!("deal\tverdict\texpanded\tstored\tlevels\tclasses\tlargest\tlargest%\tpeak_MiB\tseconds\tkpos/s\ton_disk\tdisk_MiB\twritten_GiB");
    let (mut won, mut lost, mut unknown) = (0, 0, 0);
    for (name, deal) in deals {
        let limits = Limits {
            max_nodes: None,
            max_seconds: Some(seconds),
            memory_bytes: mib << 20,
        };
        let r = layered::search(
            &deal,
            Pruning::default(),
            limits,
            spill.as_ref(),
            None,
            threads,
            &mut |_| {},
        )
        .expect("foundation return off, a usable spill directory");
        let verdict = match &r.end {
            End::Won(line) => {
                castle::check::check_win(&deal, &castle::check::steps_of(line))
                    .expect("the line replays");
                won += 1;
                "won".to_string()
            }
            End::Exhausted => {
                lost += 1;
                "lost".to_string()
            }
            End::Cut(l) => {
                unknown += 1;
                format!("unknown({})", l.name())
            }
        };
        let largest = r.largest_class();
        println!(
            "{name}\t{verdict}\t{}\t{}\t{}\t{}\t{largest}\t{:.1}\t{:.0}\t{:.1}\t{:.0}\t{}\t{:.0}\t{:.2}",
            r.expanded,
            r.stored,
            r.levels(),
            r.classes.len(),
            100.0 * largest as f64 / r.stored.max(1) as f64,
            r.peak_bytes as f64 / (1 << 20) as f64,
            r.seconds,
            r.expanded as f64 / r.seconds / 1000.0,
            r.disk.classes,
            r.disk.peak_bytes as f64 / (1 << 20) as f64,
            r.disk.written as f64 / (1u64 << 30) as f64,
        );
        if show_levels {
            let classes: Vec<String> = r.classes.iter().map(|(l, n)| format!("{l}:{n}")).collect();
            println!("  classes (level:positions) {}", classes.join(" "));
        }
    }
    println!("total: {won} won, {lost} lost, {unknown} unknown");
}
