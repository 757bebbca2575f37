//! `castle`: the command-line tool. A thin layer over the library: parse (cli.rs), read the
//! deal, call the solver, print. Exit codes: 0 done, 1 failure (an illegal move in `verify`,
//! an internal error), 2 bad input (a file, card or flag at fault).

mod cli;

use anyhow::{bail, Context, Result};
use castle::bench::{peak_rss_bytes, run_set, standard_sets};
use castle::check::{self, replay};
use castle::deal::Numbering;
use castle::formats::{self, Format, ReadOptions};
use castle::report::{draw_board, draw_moves, Color, Report};
use castle::rules::SequenceMoves;
use castle::{Deal, InputError, Limits, Outcome, Pruning, Rules, Solver, Variant, Verdict};
use clap::{CommandFactory, Parser};
use cli::{BudgetArgs, Cli, Command, DealFormat, DealSource, InFormat, OutFormat};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;
use std::time::Duration;

/// Makes every large allocation its own mapping, returned to the system when freed.
///
/// glibc's malloc raises its mmap threshold to the size of each large block freed (up to
/// 32 MiB). The table's segments grow by half and free their old arrays, so after the first
/// few the new arrays came from the heap, where the freed ones left holes too small to reuse:
/// `castle solve -v bc --seed 2461` with the default 4 GiB ended at a peak RSS of 4,968 MiB,
/// 21% over its budget. A fixed threshold keeps the dynamic rule off.
fn fixed_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets a malloc parameter; it is called before any other thread
    // exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

fn main() -> ExitCode {
    fixed_mmap_threshold();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            // A closed pipe (`castle solve ... | head`) is the reader's choice, not a failure.
            let broken_pipe = e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
                    || c.downcast_ref::<serde_json::Error>()
                        .is_some_and(|j| j.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
            });
            if broken_pipe {
                return ExitCode::SUCCESS;
            }
            eprintln!("castle: {e:#}");
            if e.chain().any(|c| c.is::<InputError>()) {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

fn input(msg: impl Into<String>) -> anyhow::Error {
    InputError(msg.into()).into()
}

fn parse_variant(name: &Option<String>) -> Result<Option<Variant>> {
    name.as_deref()
        .map(|s| {
            s.parse::<Variant>()
                .map_err(|e| input(format!("--variant: {e}")))
        })
        .transpose()
}

fn read_input(path: &std::path::Path) -> Result<(String, String)> {
    if path.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading standard input")?;
        Ok((s, "<stdin>".to_string()))
    } else {
        let origin = path.display().to_string();
        let s = std::fs::read_to_string(path)
            .map_err(|e| input(format!("{origin}: cannot read: {e}")))?;
        Ok((s, origin))
    }
}

/// The rules a command line asks for: the variant's, with the rule options on top.
fn rules_of(variant: Variant, r: &cli::RuleArgs) -> Result<Rules> {
    let mut rules = variant.rules();
    if let Some(k) = r.start_rank {
        rules = rules.with_start_rank(k).map_err(|e| input(e.to_string()))?;
    }
    if r.foundation_return {
        rules = rules.with_foundation_return(true);
    }
    if let Some(s) = r.sequence_moves {
        rules = rules.with_sequence_moves(sequence(s));
    }
    Ok(rules)
}

fn sequence(s: cli::SequenceArg) -> SequenceMoves {
    match s {
        cli::SequenceArg::Single => SequenceMoves::Single,
        cli::SequenceArg::Unlimited => SequenceMoves::Unlimited,
    }
}

fn numbering(n: cli::Numbering) -> Numbering {
    match n {
        cli::Numbering::Castle => Numbering::Castle,
        cli::Numbering::Pysol => Numbering::Pysol,
    }
}

/// The deal the user asked for: by number, or read from a file.
fn load_deal(src: &DealSource) -> Result<Deal> {
    let variant = parse_variant(&src.variant)?;
    match (&src.seed, &src.deal) {
        (Some(seed), None) => {
            let rules = rules_of(variant.unwrap_or(Variant::BeleagueredCastle), &src.rules)?;
            Deal::numbered(rules, numbering(src.rules.numbering), *seed)
                .map_err(|e| input(format!("--seed {seed}: {e}")))
        }
        (None, Some(path)) => {
            if src.rules.numbering != cli::Numbering::Castle {
                return Err(input("--numbering applies to --seed, not to --deal files"));
            }
            let (text, origin) = read_input(path)?;
            let format = src.from.map(|f| match f {
                InFormat::Text => Format::Text,
                InFormat::Fcs => Format::Fcs,
                InFormat::Json => Format::Json,
            });
            let opts = ReadOptions {
                variant,
                start_rank: src.rules.start_rank,
                foundation_return: src.rules.foundation_return.then_some(true),
                sequence_moves: src.rules.sequence_moves.map(sequence),
                format,
            };
            Ok(formats::read_deal(&text, &origin, opts)?)
        }
        _ => Err(input(
            "give a deal: --seed N (with --variant) or --deal FILE",
        )),
    }
}

fn limits(b: &BudgetArgs) -> Result<Solver> {
    if b.memory == 0 {
        return Err(input("--memory must be at least 1 (MiB)"));
    }
    if b.max_seconds.is_some_and(|s| s.is_nan() || s <= 0.0) {
        return Err(input("--max-seconds must be a positive number"));
    }
    Ok(Solver {
        limits: Limits {
            max_nodes: b.max_nodes,
            max_seconds: b.max_seconds,
            memory_bytes: b.memory << 20,
        },
        pruning: if b.no_prune {
            Pruning::NONE
        } else {
            Pruning::ALL
        },
        restarts: !b.no_restarts,
        keep_proofs: (!b.no_keep_proofs).then_some(b.prove_from_nodes),
        first_attempt: castle::solver::FIRST_ATTEMPT_NODES,
        shorten: !b.no_shorten,
        quick: !b.no_quick,
        best_first: !b.no_best_first,
        probes: (!b.no_probes).then_some(b.probe_nodes),
        threads: 1,
        short: b.short.then_some(b.short_nodes),
        ..Solver::default()
    })
}

fn color() -> Color {
    if std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none() {
        Color::On
    } else {
        Color::Off
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match cli.command {
        Command::Deal(a) => {
            let deal = load_deal(&a.source)?;
            let text = if a.board {
                draw_board(&deal, color())
            } else {
                match a.format {
                    DealFormat::Text => formats::write_text(&deal),
                    DealFormat::Fcs => formats::write_fcs(&deal)?,
                    DealFormat::Json => {
                        let v = serde_json::json!({
                            "variant": deal.rules.variant.name(),
                            "seed": deal.seed,
                            "options": castle::report::OptionsJson::of(&deal),
                            "deal": castle::report::DealJson::of(&deal),
                        });
                        serde_json::to_string_pretty(&v)? + "\n"
                    }
                }
            };
            out.write_all(text.as_bytes())?;
        }
        Command::Solve(a) => {
            let deal = load_deal(&a.source)?;
            let solver = Solver {
                threads: usize::from(a.threads),
                ..limits(&a.budget)?
            };
            if !a.quiet {
                unbounded_stock_note(&deal.rules, &solver);
            }
            let result = solve_with_spinner(&solver, &deal, a.quiet)?;
            let report = Report::new(&deal, &result);
            match a.format {
                OutFormat::Json => {
                    serde_json::to_writer(&mut out, &report)?;
                    writeln!(out)?;
                }
                OutFormat::Text => print_text(&mut out, &deal, &result, &a.budget)?,
            }
        }
        Command::Verify(a) if a.fc_solve => return verify_fc_solve(&mut out, &a),
        Command::Verify(a) => {
            if a.source.given() || a.format != OutFormat::Text {
                bail!(input(
                    "the deal's flags (--variant, --seed, --deal, the rule options) and --format go with --fc-solve (a solve report names its deal and rules)"
                ));
            }
            return verify(&mut out, &a.file);
        }
        Command::Variants => {
            for v in Variant::ALL {
                writeln!(out, "{}", v.rules().describe())?;
                let aliases = v.aliases();
                if !aliases.is_empty() {
                    writeln!(out, "  also: {}", aliases.join(", "))?;
                }
            }
        }
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "castle", &mut out);
        }
        Command::Bench(a) => bench(&mut out, &a)?,
        Command::Batch(a) => batch(&mut out, &a)?,
        Command::Stats(a) => stats(&mut out, &a)?,
        Command::Analyze(a) => analyze(&mut out, &a)?,
        Command::Play(a) => {
            drop(out);
            play(&a)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Warns, on standard error, that a stock game (courtyard) searched with neither a node nor a
/// time budget may not end: its wins come in seconds, but the complete search has never
/// finished one of its lost deals (courtyard deal 3 was still searching after ten minutes;
/// the README's win-rate section has the figures). A full table replaces entries and goes on,
/// so `--memory` does not stop it either.
fn unbounded_stock_note(rules: &castle::Rules, solver: &Solver) {
    if rules.stock && solver.limits.max_nodes.is_none() && solver.limits.max_seconds.is_none() {
        eprintln!(
            "note: {}: a win usually comes within seconds, but a lost deal is rarely proved \
             and the search may not end; --max-seconds or --max-nodes bounds it",
            rules.variant
        );
    }
}

/// Solves, with a spinner on a terminal once the search has run for half a second.
fn solve_with_spinner(solver: &Solver, deal: &Deal, quiet: bool) -> Result<Outcome> {
    let show = !quiet && std::io::stderr().is_terminal();
    let mut bar: Option<ProgressBar> = None;
    let result = solver.solve_with_progress(deal, &mut |p| {
        if !show || p.seconds < 0.5 {
            return;
        }
        let b = bar.get_or_insert_with(|| {
            let b = ProgressBar::new_spinner();
            b.set_style(
                ProgressStyle::with_template("{spinner} {elapsed} {msg}").expect("valid template"),
            );
            b.enable_steady_tick(Duration::from_millis(120));
            b
        });
        b.set_message(format!(
            "{} nodes, {} states, {:.2} M nodes/s",
            p.nodes,
            p.states,
            p.nodes as f64 / p.seconds / 1e6
        ));
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if result.verdict == Verdict::Solvable {
        // Every solution is replayed by the independent checker before anyone sees it.
        check::check_win(deal, &check::steps_of(&result.moves))
            .context("internal error: the solver's solution does not replay")?;
    }
    Ok(result)
}

fn print_text(out: &mut impl Write, deal: &Deal, r: &Outcome, b: &BudgetArgs) -> Result<()> {
    let title = match deal.seed {
        Some(s) => format!("{} deal {s}", deal.rules.variant),
        None => format!("{} (deal from file)", deal.rules.variant),
    };
    writeln!(out, "{title}, {}", rules_line(&deal.rules))?;
    writeln!(out)?;
    write!(out, "{}", draw_board(deal, color()))?;
    writeln!(out)?;
    match r.verdict {
        Verdict::Solvable => {
            writeln!(out, "solvable: won in {} moves (checked by replay)", r.moves.len())?;
            write!(out, "{}", draw_moves(&check::steps_of(&r.moves)))?;
        }
        Verdict::Unsolvable => writeln!(
            out,
            "unsolvable: every reachable position was searched; no line wins (at best {} cards home)",
            r.best_home
        )?,
        Verdict::Unknown => {
            let why = match r.limit {
                Some(castle::Limit::Nodes) => format!("the node budget ran out (--max-nodes {})", b.max_nodes.unwrap_or(0)),
                Some(castle::Limit::Seconds) => format!("the time budget ran out (--max-seconds {})", b.max_seconds.unwrap_or(0.0)),
                Some(castle::Limit::Memory) => format!("the current line outgrew the memory budget (raise --memory, now {} MiB)", b.memory),
                None => "no reason recorded".to_string(),
            };
            writeln!(out, "unknown: {why}; this is not a proof either way")?;
        }
    }
    let phase = match r.phase {
        Some(p) => format!(", decided by the {} phase", p.name()),
        None => String::new(),
    };
    writeln!(
        out,
        "{} nodes, {} states, {:.3} s{phase}",
        r.nodes, r.states, r.seconds
    )?;
    if let Some(nodes) = r.short_nodes {
        let what = if r.shortest {
            "no win is shorter"
        } else {
            "a shorter win may exist (raise --short-nodes)"
        };
        writeln!(out, "short search: {nodes} positions; {what}")?;
    }
    Ok(())
}

fn verify(out: &mut impl Write, path: &std::path::Path) -> Result<ExitCode> {
    let (text, origin) = read_input(path)?;
    if text.trim().is_empty() {
        bail!(input(format!(
            "{origin}: the file is empty (expected the JSON of `castle solve --format json`)"
        )));
    }
    let report: Report = serde_json::from_str(&text).map_err(|e| {
        input(format!(
            "{origin}: line {}: not a solve report: {e}",
            e.line()
        ))
    })?;
    let deal = formats::read_deal(
        &text,
        &origin,
        ReadOptions {
            format: Some(Format::Json),
            ..Default::default()
        },
    )?;
    let steps = report.steps(&origin)?;
    match replay(&deal, &steps) {
        Err(e) => {
            writeln!(out, "{origin}: {e}")?;
            Ok(ExitCode::from(1))
        }
        Ok(board) => {
            let left = board.cards_out();
            if left == 0 {
                writeln!(out, "ok: {} moves replay to a won game", steps.len())?;
                Ok(ExitCode::SUCCESS)
            } else if report.verdict == "solvable" {
                writeln!(
                    out,
                    "{origin}: all {} moves are legal, but {left} cards are still off the foundations",
                    steps.len()
                )?;
                Ok(ExitCode::from(1))
            } else {
                writeln!(
                    out,
                    "ok: {} moves are legal ({left} cards still off the foundations; verdict {})",
                    steps.len(),
                    report.verdict
                )?;
                Ok(ExitCode::SUCCESS)
            }
        }
    }
}

/// `castle verify --fc-solve`: fc-solve's win of a deal, replayed by the checker (see
/// [`castle::peer::replay_solution`]).
fn verify_fc_solve(out: &mut impl Write, a: &cli::VerifyArgs) -> Result<ExitCode> {
    let deal = load_deal(&a.source)?;
    castle::peer::supports(&deal.rules).map_err(|e| input(format!("--fc-solve: {e}")))?;
    let (text, origin) = read_input(&a.file)?;
    if text.trim().is_empty() {
        bail!(input(format!(
            "{origin}: the file is empty (expected fc-solve's output, with -m or -p -t -sam)"
        )));
    }
    let fc = castle::peer::parse_output(&text)
        .map_err(|e| input(format!("{origin}: not fc-solve's output: {e}")))?;
    if fc.moves.is_empty() {
        writeln!(
            out,
            "{origin}: fc-solve printed no moves (no solution to check)"
        )?;
        return Ok(ExitCode::from(1));
    }
    let moves = match castle::peer::replay_solution(&deal, &fc) {
        Ok(m) => m,
        Err(e) => {
            writeln!(out, "{origin}: {e}")?;
            return Ok(ExitCode::from(1));
        }
    };
    match a.format {
        OutFormat::Json => {
            let source = format!(
                "fc-solve's win ({} moves, runs played as single moves), replayed by castle {}; nodes, states and seconds are not castle's",
                fc.moves.len(),
                env!("CARGO_PKG_VERSION")
            );
            let report = Report::replayed(&deal, &moves, source);
            writeln!(out, "{}", serde_json::to_string(&report)?)?;
        }
        OutFormat::Text => writeln!(
            out,
            "ok: fc-solve's {} moves ({} single-card moves) replay to a won game",
            fc.moves.len(),
            moves.len()
        )?,
    }
    Ok(ExitCode::SUCCESS)
}

fn bench(out: &mut impl Write, a: &cli::BenchArgs) -> Result<()> {
    let solver = Solver {
        threads: usize::from(a.threads),
        ..limits(&a.budget)?
    };
    if !a.deals.is_empty() {
        return bench_deals(out, a, &solver);
    }
    if a.peer {
        return bench_peer(out, a, &solver);
    }
    let only = parse_variant(&a.variant)?;
    writeln!(
        out,
        "{:<22} {:>6} {:>5} {:>5} {:>4} {:>12} {:>8} {:>9} {:>10} {:>9} {:>8} {:>9}",
        "set",
        "deals",
        "won",
        "lost",
        "unk",
        "nodes",
        "seconds",
        "Mnodes/s",
        "max states",
        "B/state",
        "med len",
        "path MiB"
    )?;
    for set in standard_sets() {
        if only.is_some_and(|v| v != set.variant) {
            continue;
        }
        let mut rows = vec![("", solver)];
        if a.baseline {
            rows.push((
                " (no reductions)",
                Solver {
                    pruning: Pruning::NONE,
                    ..solver
                },
            ));
        }
        for (tag, s) in rows {
            let r = run_set(&set, &s);
            let mut lens = r.lengths.clone();
            lens.sort_unstable();
            let med = lens.get(lens.len() / 2).copied().unwrap_or(0);
            writeln!(
                out,
                "{:<22} {:>6} {:>5} {:>5} {:>4} {:>12} {:>8.2} {:>9.2} {:>10} {:>9.1} {:>8} {:>9.1}",
                format!("{} {}..{}{tag}", short(set.variant), set.first, set.last),
                set.last - set.first + 1,
                r.solvable,
                r.unsolvable,
                r.unknown,
                r.nodes,
                r.seconds,
                r.nodes as f64 / r.seconds / 1e6,
                r.max_states,
                r.bytes_per_state,
                med,
                r.max_path_bytes as f64 / (1 << 20) as f64
            )?;
        }
    }
    if let Some(rss) = peak_rss_bytes() {
        writeln!(
            out,
            "peak resident memory: {:.1} MiB",
            rss as f64 / (1 << 20) as f64
        )?;
    }
    Ok(())
}

/// `castle bench --peer`: every supported set solved by castle and by fc-solve.
fn bench_peer(out: &mut impl Write, a: &cli::BenchArgs, solver: &Solver) -> Result<()> {
    let Some(exe) = castle::peer::fc_solve_path() else {
        bail!(input(
            "--peer: fc-solve is not installed (Debian: apt-get install freecell-solver-bin; or set CASTLE_FC_SOLVE)"
        ));
    };
    let only = parse_variant(&a.variant)?;
    let timeout = Duration::from_secs_f64(a.peer_seconds);
    writeln!(
        out,
        "{:<10} {:>5} {:>10} {:>10} {:>7} {:>8} {:>8} {:>9} {:>9} {:>9}",
        "set",
        "deals",
        "castle s",
        "fc-solve s",
        "ratio",
        "castle",
        "fc-solve",
        "castle",
        "fc-solve",
        "disagree"
    )?;
    writeln!(
        out,
        "{:<10} {:>5} {:>10} {:>10} {:>7} {:>8} {:>8} {:>9} {:>9} {:>9}",
        "", "", "", "", "", "med len", "med len", "undecided", "undecided", ""
    )?;
    for set in standard_sets() {
        if only.is_some_and(|v| v != set.variant)
            || castle::peer::supports(&set.variant.rules()).is_err()
        {
            continue;
        }
        let pairs =
            castle::bench::run_set_with_peer(&set, solver, &exe, timeout, a.peer_memory << 20);
        let castle_s: f64 = pairs.iter().map(|p| p.castle.seconds).sum();
        let peer_s: f64 = pairs
            .iter()
            .map(|p| p.peer.seconds.min(a.peer_seconds))
            .sum();
        let mut castle_len = Vec::new();
        let mut peer_len = Vec::new();
        let mut disagree = Vec::new();
        let (mut castle_open, mut peer_open) = (0, 0);
        for p in &pairs {
            use castle::peer::PeerVerdict as P;
            let theirs = match &p.peer.verdict {
                P::Solvable => Some(Verdict::Solvable),
                P::Unsolvable => Some(Verdict::Unsolvable),
                P::Timeout | P::Failed(_) => None,
            };
            if theirs.is_none() {
                peer_open += 1;
            }
            if p.castle.verdict == Verdict::Unknown {
                castle_open += 1;
            }
            if let Some(v) = theirs {
                if p.castle.verdict != Verdict::Unknown && v != p.castle.verdict {
                    disagree.push(p.seed);
                }
            }
            if let (Verdict::Solvable, Some(n)) = (p.castle.verdict, p.peer.moves) {
                castle_len.push(p.castle.moves.len());
                peer_len.push(n);
            }
        }
        let median = |v: &mut Vec<usize>| {
            v.sort_unstable();
            v.get(v.len() / 2).copied().unwrap_or(0)
        };
        let bound = if peer_open > 0 { ">=" } else { "" };
        writeln!(
            out,
            "{:<10} {:>5} {:>10.2} {:>10} {:>7} {:>8} {:>8} {:>9} {:>9} {:>9}",
            format!("{} {}..{}", short(set.variant), set.first, set.last),
            pairs.len(),
            castle_s,
            format!("{bound}{peer_s:.2}"),
            format!("{bound}{:.1}x", peer_s / castle_s.max(1e-9)),
            median(&mut castle_len),
            median(&mut peer_len),
            castle_open,
            peer_open,
            disagree.len()
        )?;
        if !disagree.is_empty() {
            writeln!(out, "  VERDICTS DIFFER on deals {disagree:?}")?;
        }
    }
    writeln!(
        out,
        "fc-solve: `{} {}`, {} s and {} MiB per deal (a deal it does not finish counts {} s); \
         med len over the deals both solved, in single-card moves; ratio = fc-solve s / castle s",
        exe.display(),
        castle::peer::FC_SOLVE_ARGS.join(" "),
        a.peer_seconds,
        a.peer_memory,
        a.peer_seconds
    )?;
    Ok(())
}

/// `castle bench --deal FILE...`: each deal with one thread and with `--threads`.
fn bench_deals(out: &mut impl Write, a: &cli::BenchArgs, solver: &Solver) -> Result<()> {
    let threads = if a.threads > 1 {
        usize::from(a.threads)
    } else {
        2
    };
    writeln!(
        out,
        "{:<28} {:>7} {:>11} {:>7} {:>12} {:>11} {:>8} {:>9} {:>9} {:>9}",
        "deal",
        "threads",
        "verdict",
        "moves",
        "nodes",
        "states",
        "phase",
        "seconds",
        "peak MiB",
        "path MiB"
    )?;
    for path in &a.deals {
        let (text, origin) = read_input(path)?;
        let opts = ReadOptions {
            variant: parse_variant(&a.variant)?,
            start_rank: None,
            foundation_return: None,
            sequence_moves: None,
            format: None,
        };
        let deal = formats::read_deal(&text, &origin, opts)?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let mut secs = Vec::new();
        for t in [1, threads] {
            let s = Solver {
                threads: t,
                ..*solver
            };
            castle::bench::reset_peak_rss();
            let o = s.solve(&deal);
            if o.verdict == Verdict::Solvable {
                check::check_win(&deal, &check::steps_of(&o.moves))
                    .context("internal error: the solver's solution does not replay")?;
            }
            let rss = peak_rss_bytes().map_or("?".to_string(), |b| {
                format!("{:.0}", b as f64 / (1 << 20) as f64)
            });
            writeln!(
                out,
                "{:<28} {:>7} {:>11} {:>7} {:>12} {:>11} {:>8} {:>9.2} {:>9} {:>9.1}",
                name,
                t,
                o.verdict.name(),
                o.moves.len(),
                o.nodes,
                o.peak_states,
                o.phase.map_or("-", |p| p.name()),
                o.seconds,
                rss,
                o.peak_path_bytes as f64 / (1 << 20) as f64
            )?;
            secs.push(o.seconds);
        }
        writeln!(
            out,
            "{:<28} speed-up with {threads} threads: {:.2}x",
            "",
            secs[0] / secs[1].max(1e-9)
        )?;
        if a.peer {
            if let Some(exe) = castle::peer::fc_solve_path() {
                let p = castle::peer::run_fc_solve_capped(
                    &exe,
                    &deal,
                    Duration::from_secs_f64(a.peer_seconds),
                    Some(a.peer_memory << 20),
                );
                writeln!(
                    out,
                    "{:<28} fc-solve: {} in {:.2} s{}{}",
                    "",
                    p.verdict.name(),
                    p.seconds,
                    p.moves.map_or(String::new(), |m| format!(", {m} moves")),
                    p.peak_rss_bytes.map_or(String::new(), |b| format!(
                        ", peak {:.0} MiB",
                        b as f64 / (1 << 20) as f64
                    ))
                )?;
            }
        }
    }
    Ok(())
}

fn short(v: Variant) -> &'static str {
    match v {
        Variant::BeleagueredCastle => "bc",
        Variant::StreetsAndAlleys => "sa",
        other => other.name(),
    }
}

/// The options in force, as printed with every text result.
fn rules_line(r: &Rules) -> String {
    let o = r.options;
    let mut parts = Vec::new();
    if r.variant.has_start_rank() {
        parts.push(format!("start rank {}", o.start_rank));
    }
    parts.push(format!(
        "foundation return {}",
        if o.foundation_return { "on" } else { "off" }
    ));
    parts.push(format!("sequence moves {}", o.sequence_moves.name()));
    parts.join(", ")
}

fn batch(out: &mut impl Write, a: &cli::BatchArgs) -> Result<()> {
    use castle::batch::{self, Seeds};
    let variant = parse_variant(&Some(a.variant.clone()))?.expect("variant given");
    let rules = rules_of(variant, &a.rules)?;
    let numbering = numbering(a.rules.numbering);
    let (first, last) = Seeds::parse_range(&a.seeds)?;
    // Every seed of the range deals the same way; the first one tells whether they can.
    for seed in [first, last] {
        Deal::numbered(rules, numbering, seed).map_err(|e| input(format!("--seeds: {e}")))?;
    }
    let (shard, shards) = match &a.shard {
        Some(s) => Seeds::parse_shard(s)?,
        None => (0, 1),
    };
    let seeds = Seeds {
        first,
        last,
        shard,
        shards,
    };
    let solver = limits(&a.budget)?;
    if !a.quiet {
        unbounded_stock_note(&rules, &solver);
    }
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 {
        return Err(input("--threads must be at least 1"));
    }
    let (mut file, done) = match &a.csv {
        Some(p) => {
            let (f, d) = batch::open_for_append(p, &rules, numbering, a.retry_unknown)?;
            (Some(f), d)
        }
        None => (None, Default::default()),
    };
    let mut winnable = match &a.winnable_only {
        Some(p) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|e| input(format!("{}: {e}", p.display())))?,
        ),
        None => None,
    };
    let total = seeds.iter().filter(|s| !done.contains(s)).count() as u64;
    let bar = if a.quiet || !std::io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::new(total);
        b.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} deals, {per_sec}, ETA {eta} {msg}")
                .expect("valid template"),
        );
        b
    };
    if file.is_none() && a.format == cli::RowFormat::Csv {
        writeln!(out, "{}", batch::HEADER)?;
    }
    let (mut won, mut lost, mut unknown) = (0u64, 0u64, 0u64);
    batch::run(
        rules,
        numbering,
        seeds,
        &done,
        solver,
        threads,
        &mut |row, deal, outcome| {
            match outcome.verdict {
                Verdict::Solvable => won += 1,
                Verdict::Unsolvable => lost += 1,
                Verdict::Unknown => unknown += 1,
            }
            match (&mut file, a.format) {
                (Some(f), _) => {
                    f.write_all(row.csv_line().as_bytes())?;
                    f.flush()?;
                }
                (None, cli::RowFormat::Csv) => {
                    out.write_all(row.csv_line().as_bytes())?;
                    out.flush()?;
                }
                (None, cli::RowFormat::Jsonl) => {
                    let report = Report::new(&deal, &outcome);
                    serde_json::to_writer(&mut *out, &report)?;
                    writeln!(out)?;
                    out.flush()?;
                }
            }
            if outcome.verdict == Verdict::Solvable {
                if let Some(w) = &mut winnable {
                    writeln!(w, "{}", row.seed)?;
                    w.flush()?;
                }
            }
            let n = won + lost + unknown;
            let (lo, hi) = (
                castle::batch::wilson(won, n).0,
                castle::batch::wilson(won + unknown, n).1,
            );
            bar.set_message(format!(
                "win rate {:.1}% [{:.1}, {:.1}], {unknown} unknown",
                100.0 * won as f64 / n as f64,
                100.0 * lo,
                100.0 * hi
            ));
            bar.inc(1);
            Ok(())
        },
    )?;
    bar.finish_and_clear();
    let n = won + lost + unknown;
    if n > 0 {
        eprintln!(
            "{n} deals: {won} winnable, {lost} unsolvable, {unknown} unknown ({} done before{})",
            done.len(),
            if a.retry_unknown {
                ", unknown ones retried"
            } else {
                ""
            }
        );
    }
    Ok(())
}

fn stats(out: &mut impl Write, a: &cli::StatsArgs) -> Result<()> {
    let mut rows = Vec::new();
    for f in &a.files {
        rows.extend(castle::batch::read_rows(f)?);
    }
    let m = castle::batch::merge(rows);
    if m.duplicates > 0 {
        writeln!(
            out,
            "note: {} rows appeared more than once and were counted once",
            m.duplicates
        )?;
    }
    for (group, seed, verdicts) in &m.conflicts {
        writeln!(
            out,
            "conflict: {group} seed {seed} has verdicts {} (left out)",
            verdicts.join(", ")
        )?;
    }
    let mut csv_out = match &a.csv {
        Some(p) => Some(csv::Writer::from_path(p).with_context(|| format!("{}", p.display()))?),
        None => None,
    };
    if let Some(w) = &mut csv_out {
        w.write_record([
            "group",
            "deals",
            "winnable",
            "unsolvable",
            "unknown",
            "win_rate_low",
            "win_rate_high",
            "len_min",
            "len_median",
            "len_p99",
            "len_max",
            "nodes_min",
            "nodes_median",
            "nodes_p99",
            "nodes_max",
        ])?;
    }
    for (group, s) in &m.groups {
        writeln!(out, "{group}")?;
        writeln!(
            out,
            "  deals {}: winnable {}, unsolvable {}, unknown {}",
            s.deals, s.winnable, s.unsolvable, s.unknown
        )?;
        writeln!(
            out,
            "  win rate {:.2}% (95% Wilson interval, unknowns counted both ways: {:.2}% .. {:.2}%)",
            100.0 * s.winnable as f64 / s.deals.max(1) as f64,
            100.0 * s.win_rate.0,
            100.0 * s.win_rate.1
        )?;
        let q = |v: &[u64; 4]| {
            format!(
                "min {} / median {} / p99 {} / max {}",
                v[0], v[1], v[2], v[3]
            )
        };
        writeln!(out, "  solution length: {}", q(&s.length))?;
        writeln!(out, "  nodes: {}", q(&s.nodes))?;
        if !s.lost_scores.is_empty() {
            let d: Vec<String> = s
                .lost_scores
                .iter()
                .map(|(k, v)| format!("{k}:{v}"))
                .collect();
            writeln!(
                out,
                "  lost deals by cards home at best (score:count): {}",
                d.join(" ")
            )?;
        }
        if let Some(w) = &mut csv_out {
            let mut rec = vec![
                group.clone(),
                s.deals.to_string(),
                s.winnable.to_string(),
                s.unsolvable.to_string(),
                s.unknown.to_string(),
                format!("{:.6}", s.win_rate.0),
                format!("{:.6}", s.win_rate.1),
            ];
            rec.extend(s.length.iter().chain(&s.nodes).map(u64::to_string));
            w.write_record(&rec)?;
        }
    }
    if let Some(mut w) = csv_out {
        w.flush()?;
    }
    Ok(())
}

/// `castle play`: the deal (a random number if none is given) or a saved game, then the
/// library's game loop.
fn play(a: &cli::PlayArgs) -> Result<()> {
    use castle::play::{game::Game, PlayOptions};
    if a.coach_seconds.is_nan() || a.coach_seconds <= 0.0 {
        return Err(input("--coach-seconds must be a positive number"));
    }
    let game = match &a.load {
        Some(path) => {
            let (text, origin) = read_input(path)?;
            Game::from_json(&text, &origin)?
        }
        None => {
            let mut src = a.source.clone();
            if src.seed.is_none() && src.deal.is_none() {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64);
                src.seed = Some(now % 1_000_000 + 1);
            }
            Game::new(load_deal(&src)?, !a.no_auto)
        }
    };
    let opts = PlayOptions {
        auto: !a.no_auto,
        coach_nodes: a.coach_nodes,
        coach_seconds: a.coach_seconds,
        lines: a.lines,
    };
    castle::play::run(game, &opts)?;
    Ok(())
}

fn analyze(out: &mut impl Write, a: &cli::AnalyzeArgs) -> Result<()> {
    let deal = load_deal(&a.source)?;
    let solver = limits(&a.budget)?;
    let mut board = castle::check::Board::new(&deal);
    for (i, pair) in a
        .after
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .enumerate()
    {
        let words: Vec<&str> = pair.split_whitespace().collect();
        let (from, to, count) = match words[..] {
            [from, to] => (from, to, Some(1)),
            [from, to, n] => (from, to, n.parse::<usize>().ok().filter(|&n| n >= 1)),
            _ => (pair, pair, None),
        };
        let Some(count) = count.filter(|_| (2..=3).contains(&words.len())) else {
            return Err(input(format!(
                "--after: move {} `{pair}` is not `FROM TO` or `FROM TO COUNT` (like `t3 f`)",
                i + 1
            )));
        };
        let step = board
            .step_named(from, to, count)
            .map_err(|why| input(format!("--after: move {} `{pair}`: {why}", i + 1)))?;
        board.play(&step).map_err(|why| {
            input(format!(
                "--after: move {} ({step}) is illegal: {why}",
                i + 1
            ))
        })?;
    }
    let castle::analyze::Analysis {
        position: here,
        whole,
        moves: rows,
    } = castle::analyze::analyze(&board, &solver);
    match a.format {
        OutFormat::Json => {
            let v = serde_json::json!({
                "position": castle::report::DealJson::of(&here),
                "verdict": whole.verdict.name(),
                "limit": whole.limit.map(|l| l.name()),
                "nodes": whole.nodes,
                "solution_length": (whole.verdict == Verdict::Solvable).then_some(whole.moves.len()),
                "moves": rows.iter().map(|(s, r)| serde_json::json!({
                    "card": s.card.to_string(), "from": s.from, "to": s.to,
                    "verdict": r.verdict.name(),
                    "limit": r.limit.map(|l| l.name()),
                    "nodes": r.nodes,
                })).collect::<Vec<_>>(),
            });
            writeln!(out, "{v}")?;
        }
        OutFormat::Text => {
            write!(out, "{}", draw_board(&here, color()))?;
            writeln!(out)?;
            match whole.verdict {
                Verdict::Solvable => writeln!(
                    out,
                    "this position is winnable: decided in {} nodes, a win in {} moves",
                    whole.nodes,
                    whole.moves.len()
                )?,
                Verdict::Unsolvable => writeln!(
                    out,
                    "this position is lost: proved in {} nodes",
                    whole.nodes
                )?,
                Verdict::Unknown => writeln!(
                    out,
                    "this position is undecided after {} nodes (a budget ran out)",
                    whole.nodes
                )?,
            }
            if rows.is_empty() {
                writeln!(out, "no legal move")?;
            }
            for (s, r) in &rows {
                let what = match r.verdict {
                    Verdict::Solvable => "keeps the win",
                    Verdict::Unsolvable => "loses",
                    Verdict::Unknown => "unknown (budget)",
                };
                writeln!(out, "  {} {} -> {}: {what}", s.card, s.from, s.to)?;
            }
        }
    }
    Ok(())
}
