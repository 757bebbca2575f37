//! Measures the suit-blind quotient search (`castle::solver::quotient`) on deals, beside the
//! exact search if asked: one line per deal and window, with time, positions, nodes and
//! memory.
//!
//! ```text
//! cargo run --release --example quotient -- --deal ../shared/bench/hard-unsolvable.fcs -k 2,3,4
//! cargo run --release --example quotient -- --seed 9830 -k 3 --max-seconds 300
//! cargo run --release --example quotient -- --seeds 1..200 -k 3 --exact --lost-only
//! ```
//!
//! Options: `--variant V` (default beleaguered-castle), `--start-rank R`, `--unlimited`
//! (sequence moves), `--seed N` | `--seeds A..B` | `--deal FILE` (castle's deal formats),
//! `-k LIST` (comma-separated windows, default 3), `--max-seconds S`, `--max-nodes N`,
//! `--max-mib M` (the quotient's budget, default 8192), `--exact` (also run castle's exact
//! search, `Solver::default()` with `--exact-nodes N`, default 20 million, and print its
//! verdict and states), `--lost-only` (with `--exact`: print only deals it proves lost),
//! `--plain` (without the dealt refinement, `QuotientOptions::dealt`), `--refine N` (after a
//! false branch win, up to `N` more runs at the same window, each keeping the cards the last
//! line got wrong, `QuotientOptions::kept`; `--refine-step S` keeps only the first `S` of
//! them, as the schedule keeps one; the `kept` column counts them), `--proved` (each run
//! skips the positions the deal's earlier runs proved lost, `quotient::search_proved`; the
//! `pruned` and `closed` columns count what it skipped and what it proved; `dropped` says
//! whether a run freed those proofs for room it needed), `--why` (print to stderr where each
//! false line went wrong: its wrong cards and their distance from the line's end), `--probe N`
//! (solve, within `N` nodes, the real position a false line reaches before its first wrong
//! branch; a win there is a win of the deal, replayed), `--tail N` (with `--refine`: also
//! keep every wrong card of a false line's last `N` moves). The `concrete`
//! column says whether a branch win's line wins on the deal itself (its length), as it always
//! does with `-k 13`, where nothing branches.
//! Peak resident memory (`VmHWM`) is the process's so far: run one big deal per process.

use castle::deal::Numbering;
use castle::formats::{read_deal, ReadOptions};
use castle::rules::SequenceMoves;
use castle::solver::quotient::{
    concrete_line, concrete_prefix, search, search_proved, wrong_branch_places, wrong_branches,
    Proved, QuotientOptions, QuotientVerdict,
};
use castle::{Deal, Limits, Solver, Variant, Verdict};
use std::sync::atomic::AtomicBool;

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// CPU seconds this thread has used (the machine may be shared: wall time alone misleads).
fn thread_cpu() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec for the duration of the call.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut variant = Variant::BeleagueredCastle;
    let mut start_rank = None;
    let mut unlimited = false;
    let mut seeds: Vec<u64> = Vec::new();
    let mut file = None;
    let mut ks = vec![3u8];
    let mut opts = QuotientOptions {
        max_bytes: 8 << 30,
        ..QuotientOptions::default()
    };
    let mut exact = false;
    let mut exact_nodes = 20_000_000u64;
    let mut lost_only = false;
    let mut refine = 0u32;
    let mut proved_on = false;
    let mut step = usize::MAX;
    let mut why = false;
    let mut tail_moves = 0usize;
    let mut probe = 0u64;
    let mut it = args.iter();
    let bad = |what: &str| -> ! {
        eprintln!("quotient example: {what} (see the header of examples/quotient.rs)");
        std::process::exit(2)
    };
    while let Some(a) = it.next() {
        let mut val = || {
            it.next()
                .cloned()
                .unwrap_or_else(|| bad(&format!("{a} needs a value")))
        };
        match a.as_str() {
            "--variant" => variant = val().parse().unwrap_or_else(|e| bad(&format!("{e}"))),
            "--start-rank" => {
                start_rank = Some(val().parse().unwrap_or_else(|_| bad("--start-rank")))
            }
            "--unlimited" => unlimited = true,
            "--seed" => seeds.push(val().parse().unwrap_or_else(|_| bad("--seed"))),
            "--seeds" => {
                let v = val();
                let (a, b) = v.split_once("..").unwrap_or_else(|| bad("--seeds A..B"));
                let (a, b): (u64, u64) = (
                    a.parse().unwrap_or_else(|_| bad("--seeds A..B")),
                    b.parse().unwrap_or_else(|_| bad("--seeds A..B")),
                );
                seeds.extend(a..=b);
            }
            "--deal" => file = Some(val()),
            "-k" => {
                ks = val()
                    .split(',')
                    .map(|k| k.parse().unwrap_or_else(|_| bad("-k 2,3,4")))
                    .collect()
            }
            "--max-seconds" => {
                opts.max_seconds = Some(val().parse().unwrap_or_else(|_| bad("--max-seconds")))
            }
            "--max-nodes" => {
                opts.max_nodes = Some(val().parse().unwrap_or_else(|_| bad("--max-nodes")))
            }
            "--max-mib" => {
                opts.max_bytes = val().parse::<usize>().unwrap_or_else(|_| bad("--max-mib")) << 20
            }
            "--exact" => exact = true,
            "--exact-nodes" => exact_nodes = val().parse().unwrap_or_else(|_| bad("--exact-nodes")),
            "--lost-only" => lost_only = true,
            "--refine-step" => step = val().parse().unwrap_or_else(|_| bad("--refine-step")),
            "--proved" => proved_on = true,
            "--why" => why = true,
            "--probe" => probe = val().parse().unwrap_or_else(|_| bad("--probe")),
            "--tail" => tail_moves = val().parse().unwrap_or_else(|_| bad("--tail")),
            "--refine" => refine = val().parse().unwrap_or_else(|_| bad("--refine")),
            "--plain" => opts.dealt = false,
            "--repeat" => opts.no_repeat = false,
            other => bad(&format!("unknown argument `{other}`")),
        }
    }
    let mut rules = variant.rules();
    if let Some(r) = start_rank {
        rules = rules
            .with_start_rank(r)
            .unwrap_or_else(|e| bad(&e.to_string()));
    }
    if unlimited {
        rules = rules.with_sequence_moves(SequenceMoves::Unlimited);
    }
    let mut deals: Vec<(String, Deal)> = Vec::new();
    if let Some(path) = file {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| bad(&format!("{path}: {e}")));
        let ro = ReadOptions {
            variant: Some(variant),
            start_rank,
            sequence_moves: unlimited.then_some(SequenceMoves::Unlimited),
            ..ReadOptions::default()
        };
        let deal = read_deal(&text, &path, ro).unwrap_or_else(|e| bad(&e.to_string()));
        deals.push((path, deal));
    }
    for s in seeds {
        let deal =
            Deal::numbered(rules, Numbering::Castle, s).unwrap_or_else(|e| bad(&e.to_string()));
        deals.push((s.to_string(), deal));
    }
    if deals.is_empty() {
        bad("give --seed, --seeds or --deal");
    }
    println!("deal\tk\tkept\tverdict\tpositions\tnodes\tseconds\tcpu\tMiB\tlong_keys\tdepth\tpeak_rss_MiB\tpruned\tclosed\tconcrete\texact\texact_states\texact_nodes\texact_seconds\tdropped");
    let mut sum = [0u64; 2];
    // The refinement's kept cards (`u64::MAX`: this window's rounds are over).
    let mut kept = 0u64;
    for (name, deal) in &deals {
        // The proofs of this deal's earlier runs (`--proved`).
        let mut proved = Proved::new();
        let ex = exact.then(|| {
            let solver = Solver {
                limits: Limits {
                    max_nodes: Some(exact_nodes),
                    ..Limits::default()
                },
                ..Solver::default()
            };
            solver.solve(deal).expect("the solver's win replays")
        });
        if lost_only
            && ex
                .as_ref()
                .is_some_and(|o| o.verdict != Verdict::Unsolvable)
        {
            continue;
        }
        for (k, round) in ks
            .iter()
            .flat_map(|&k| (0..=refine).map(move |round| (k, round)))
        {
            if round == 0 {
                kept = 0;
            } else if kept == u64::MAX {
                continue;
            }
            let stop = AtomicBool::new(false);
            let cpu0 = thread_cpu();
            let o = QuotientOptions { k, kept, ..opts };
            let r = if proved_on {
                search_proved(deal, &o, &stop, &mut proved)
            } else {
                search(deal, &o, &stop)
            };
            let cpu = thread_cpu() - cpu0;
            let (ev, es, en, et) = ex.as_ref().map_or(
                (
                    "-".to_string(),
                    "-".to_string(),
                    "-".to_string(),
                    "-".to_string(),
                ),
                |o| {
                    (
                        o.verdict.to_string(),
                        o.states.to_string(),
                        o.nodes.to_string(),
                        format!("{:.2}", o.seconds),
                    )
                },
            );
            if let Some(o) = &ex {
                sum[0] += r.positions;
                sum[1] += o.states;
            }
            // A branch win's line played on the deal: its length if it wins there.
            let concrete = match r.verdict {
                QuotientVerdict::BRANCH_WIN => {
                    concrete_line(deal, &r.line).map_or("no".to_string(), |l| l.len().to_string())
                }
                _ => "-".to_string(),
            };
            if why && r.verdict == QuotientVerdict::BRANCH_WIN {
                // Where the false line went wrong: each wrong card's distance from the line's
                // end, and how many tableau moves follow the first wrong branch.
                let places = wrong_branch_places(deal, &r.line);
                let tail = places.first().map_or(0, |&(i, _)| {
                    r.line[i..].iter().filter(|m| m.to.is_some()).count()
                });
                let from_end: Vec<String> = places
                    .iter()
                    .map(|&(i, c)| format!("{}@{}", c, r.line.len() - i))
                    .collect();
                eprintln!(
                    "{name} run {}: line {} moves, {} wrong (card@moves-from-end): {}; tableau moves after the first: {tail}",
                    kept.count_ones(),
                    r.line.len(),
                    places.len(),
                    from_end.join(" ")
                );
            }
            let shown = kept.count_ones();
            if probe > 0
                && r.verdict == QuotientVerdict::BRANCH_WIN
                && concrete_line(deal, &r.line).is_none()
            {
                // `--probe N`: the real position just before the false line's first wrong
                // branch, solved exactly within `N` nodes.
                let (prefix, at) = concrete_prefix(deal, &r.line);
                let solver = Solver {
                    limits: Limits {
                        max_nodes: Some(probe),
                        ..Limits::default()
                    },
                    ..Solver::default()
                };
                let t = std::time::Instant::now();
                match solver.solve(&at) {
                    Ok(o) => {
                        let mut whole = prefix.clone();
                        whole.extend_from_slice(&o.moves);
                        let replays = o.verdict == Verdict::Solvable
                            && castle::check::check_win(deal, &castle::check::steps_of(&whole))
                                .is_ok();
                        eprintln!(
                            "{name} run {shown}: probe after {} moves, {} cards home: {} ({} nodes, {} states, {:.1} s){}",
                            prefix.len(),
                            at.cards_home(),
                            o.verdict,
                            o.nodes,
                            o.states,
                            t.elapsed().as_secs_f64(),
                            if replays { format!(", a win of the deal in {} moves that replays", whole.len()) } else { String::new() }
                        );
                        if replays {
                            kept = u64::MAX;
                        }
                    }
                    Err(e) => eprintln!("{name}: probe failed: {e}"),
                }
            }
            // The next round keeps the cards this branch win got wrong, if any are new.
            let wrong = match r.verdict {
                QuotientVerdict::BRANCH_WIN if concrete_line(deal, &r.line).is_some() => 0,
                QuotientVerdict::BRANCH_WIN => {
                    let first = wrong_branches(deal, &r.line)
                        .iter()
                        .map(|&c| 1u64 << c)
                        .filter(|b| b & kept == 0)
                        .take(step)
                        .fold(0, |m, b| m | b);
                    // `--tail N`: also every wrong card of the line's last `N` moves.
                    let tail = wrong_branch_places(deal, &r.line)
                        .iter()
                        .filter(|&&(i, _)| r.line.len() - i <= tail_moves)
                        .fold(0, |m, &(_, c)| m | 1u64 << c)
                        & !kept;
                    first | tail
                }
                _ => 0,
            };
            kept = if wrong == 0 { u64::MAX } else { kept | wrong };
            println!(
                "{name}\t{k}\t{shown}\t{}\t{}\t{}\t{:.2}\t{cpu:.2}\t{:.1}\t{}\t{}\t{:.0}\t{}\t{}\t{concrete}\t{ev}\t{es}\t{en}\t{et}\t{}",
                r.verdict,
                r.positions,
                r.nodes,
                r.seconds,
                r.bytes as f64 / (1 << 20) as f64,
                r.long_keys,
                r.depth,
                peak_rss_mib(),
                r.pruned,
                r.closed,
                if r.dropped { "yes" } else { "no" },
            );
        }
    }
    if exact {
        println!(
            "# sum of positions (all k) {} ; sum of exact states (once per k) {}",
            sum[0], sum[1]
        );
    }
}
