//! The bodies of the longer commands (`bench`, `batch`, `stats`): each turns its parsed
//! arguments into library calls and prints what they return; `main.rs` only dispatches.

use crate::cli::{self, progress, BatchArgs, BenchArgs, StatsArgs};
use anyhow::Result;
use castle::batch::Batch;
use castle::{bench, stats, InputError};
use std::io::Write;
use std::process::ExitCode;

/// Prints the warning for a stock game searched without a budget (see
/// [`castle::render::unbounded_stock_note`]).
pub fn note(rules: &castle::Rules, solver: &castle::Solver) {
    if let Some(note) = castle::render::unbounded_stock_note(rules, solver) {
        eprintln!("{note}");
    }
}

/// `castle bench`.
pub fn bench(a: &BenchArgs, mut out: &mut impl Write) -> Result<()> {
    let solver = a.to_solver()?;
    let variant = cli::parse_variant(a.variant.as_deref())?;
    let peer = a.peer_options()?;
    let numbering = a.numbering.into();
    #[cfg(feature = "serve")]
    if a.coach {
        let sets: Vec<_> = bench::chosen_sets(variant, numbering)?
            .into_iter()
            .filter(|s| variant.is_some() || s.variant != castle::Variant::Courtyard)
            .collect();
        let server = castle::serve::Config::default().solver()?;
        castle::serve::bench::run(&mut out, &sets, &solver, &server)?;
        return Ok(());
    }
    if a.throughput {
        let threads = a.threads.map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            usize::from,
        );
        let solver = a.budget.to_solver()?;
        bench::throughput::run(
            &mut out,
            &solver,
            variant,
            a.sample,
            threads,
            a.against.as_deref(),
            a.json,
        )?;
    } else if !a.deals.is_empty() {
        if a.numbering != cli::Numbering::Castle {
            return Err(InputError::new(
                castle::InputKind::Usage,
                "--numbering applies to the sets, not to --deal files",
            )
            .into());
        }
        let deals = a.deals.iter().map(|p| cli::read_deal_file(p, variant));
        let threads = a.deal_threads();
        bench::deals(&mut out, &solver, threads, deals, a.peer.then_some(&peer))?;
    } else if a.peer {
        bench::sets_with_peer(&mut out, &solver, variant, numbering, &peer)?;
    } else {
        bench::sets(&mut out, &solver, variant, numbering, a.baseline)?;
    }
    Ok(())
}

/// `castle batch`: the exit code of an interrupted run (`None` when it ran to its end).
pub fn batch(a: &BatchArgs, mut out: &mut impl Write) -> Result<Option<ExitCode>> {
    let opts = a.to_options()?;
    if !a.quiet {
        note(&opts.rules, &opts.solver);
    }
    let batch = Batch::open(opts)?;
    let interrupt = cli::signals::Interrupt::on_signals()?;
    let bar = progress::batch_bar(batch.todo(), a.quiet);
    let t0 = std::time::Instant::now();
    let clock = progress::BatchClock::start();
    let tally = batch.run(&mut out, &interrupt.flag, &mut |t| {
        progress::batch_step(&bar, &clock, t);
    })?;
    bar.finish_and_clear();
    if tally.interrupted {
        eprintln!("{}", progress::batch_stopped(&tally, a.csv.as_deref()));
        return Ok(Some(ExitCode::from(interrupt.exit_code())));
    }
    // A run that found rows in its file: the file's win rate too.
    let file = match &a.csv {
        Some(p) if tally.done_before > 0 || tally.retried => castle::batch::file_summary(p)?,
        _ => None,
    };
    eprintln!(
        "{}",
        progress::batch_end(&tally, t0.elapsed(), a.csv.as_deref(), file.as_ref())
    );
    if let Some(dir) = &a.certificates {
        eprintln!(
            "{} written to {} ({})",
            castle::render::count(tally.certificates, "certificate"),
            dir.display(),
            cli::certificate::size(tally.certificate_bytes)
        );
    } else if a.certify {
        eprintln!(
            "{} of {} certified (built and checked, not kept)",
            tally.certificates,
            castle::render::count(tally.lost, "lost deal")
        );
    }
    for why in &tally.uncertified {
        eprintln!("no certificate: {why}");
    }
    Ok(None)
}

/// `castle stats`.
pub fn stats(a: &StatsArgs, mut out: &mut impl Write) -> Result<()> {
    if let (Some(range), Some(dir)) = (&a.join, &a.table) {
        let bad = || {
            castle::InputError::new(castle::InputKind::Seeds, "give one range, FIRST..LAST")
                .with_flag("--join")
        };
        let (first, last) =
            match castle::batch::Seeds::parse(range).map_err(|e| e.with_flag("--join"))?[..] {
                [(first, last)] => (first, last),
                _ => return Err(bad().into()),
            };
        for f in castle::winrates::join(dir, first, last)? {
            eprintln!("wrote {}", f.display());
        }
        if a.files.is_empty() {
            return Ok(());
        }
    }
    let mut rows = Vec::new();
    for f in &a.files {
        rows.extend(stats::read_rows(f)?);
    }
    if let (Some(dir), None) = (&a.table, &a.join) {
        let written = if a.update {
            castle::winrates::update(dir, &rows)?
        } else {
            castle::winrates::write(dir, &rows, a.allow_unknown)?
        };
        for f in written {
            eprintln!("wrote {}", f.display());
        }
    }
    let merged = stats::merge(rows);
    if let Some(svg) = &a.plot {
        castle::plot::check_path(svg)?;
    }
    match a.format {
        cli::StatsFormat::Text => stats::write(&mut out, &merged, a.csv.as_deref())?,
        f => {
            stats::write_rows(&mut out, &merged, f == cli::StatsFormat::Json)?;
            if let Some(csv) = &a.csv {
                stats::write_csv_file(csv, &merged)?;
            }
        }
    }
    if let Some(svg) = &a.plot {
        let source = castle::plot::Source {
            files: a.files.iter().map(|f| f.display().to_string()).collect(),
        };
        castle::plot::plot(&merged, &source, svg)?;
        eprintln!(
            "the pictures of {} are in {} (an SVG file: open it in a browser)",
            castle::render::count(merged.groups.values().map(|s| s.deals).sum::<u64>(), "deal"),
            svg.display()
        );
    }
    Ok(())
}

/// `castle serve`: runs until Ctrl-C or SIGTERM, saying where it listens (and, when that is
/// not this machine only, that every machine that reaches it may use it).
#[cfg(feature = "serve")]
pub fn serve(a: &cli::ServeArgs) -> Result<()> {
    let config = a.to_config();
    castle::serve::run(&config, |addr| {
        let url = format!("http://{addr}/");
        eprintln!("castle serve: {url} (open it in a browser; Ctrl-C stops the server)");
        if !addr.ip().is_loopback() {
            eprintln!(
                "castle serve: listening on {} beyond this machine: anyone who can reach it can play and use its solver",
                addr.ip()
            );
        }
    })?;
    Ok(())
}

/// `castle deal` (without `--winnable`): the deal in the format asked.
pub fn deal(a: &cli::DealArgs, mut out: &mut impl Write) -> Result<()> {
    use castle::{formats, render, report};
    use cli::DealFormat;
    let deal = a.source.load()?;
    match a.format {
        _ if a.board => write!(out, "{}", render::draw_board(&deal, cli::color()))?,
        DealFormat::Text => {
            let text = formats::write_text_numbered(&deal, a.source.numbering());
            out.write_all(text.as_bytes())?;
        }
        DealFormat::Fcs => {
            let board = formats::write_fcs(&deal).map_err(|e| e.with_flag("--format fcs"))?;
            out.write_all(board.as_bytes())?;
        }
        DealFormat::Json => report::write_deal(&mut out, &deal, a.source.numbering())?,
    }
    Ok(())
}

/// `castle solve`: the deal solved (or its plan shown), the verdict printed, the certificate
/// written; `Some` exit code when a signal stopped it.
pub fn solve(a: &cli::SolveArgs, mut out: &mut impl Write) -> Result<Option<ExitCode>> {
    use castle::{render, report};
    use cli::SolveFormat;
    let deal = a.load()?;
    let mut solver = a.to_solver()?;
    if a.show_plan {
        writeln!(out, "{}", solver.plan_for(&deal).to_json())?;
        return Ok(None);
    }
    if let Some(path) = &a.certificate {
        cli::certificate::probe(path)?;
    }
    if !a.quiet {
        note(&deal.rules, &solver);
    }
    // Ctrl-C or SIGTERM ends the search `unknown` (stopped), reported as any other
    // outcome; a layered search on disk keeps its last checkpoint for the next run.
    let interrupt = cli::signals::Interrupt::on_signals()?;
    solver.stop = Some(std::sync::Arc::clone(&interrupt.flag));
    // A certificate asked for: the proving run's positions, if the quotient proves the loss
    // (the same search; see `Solver::keep_members`).
    solver.keep_members = a.certificate.is_some();
    let result = progress::solve_with_spinner(&solver, &deal, a.quiet)?;
    match a.format {
        SolveFormat::Json => {
            report::write_report(&mut out, &deal, &result, a.source.numbering())?;
        }
        SolveFormat::Html => {
            let page = castle::html::solve_page(&deal, &result, a.source.numbering())?;
            out.write_all(page.as_bytes())?;
        }
        SolveFormat::Text => {
            let numbering = a.source.numbering();
            render::write_solve(&mut out, &deal, &result, &solver, numbering, cli::color())?;
        }
    }
    if let Some(path) = &a.certificate {
        cli::certificate::after_solve(&mut out, a, &deal, &result, path)?;
    }
    if result.limit == Some(castle::Limit::Stopped) {
        return Ok(Some(ExitCode::from(interrupt.exit_code())));
    }
    Ok(None)
}
