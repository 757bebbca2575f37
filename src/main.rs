//! `castle`: the command-line tool. A dispatcher over the library: `cli.rs` parses the
//! command line into the library's options and reads the files it names; each command is one
//! library call that writes to standard output. Exit codes: 0 done, 1 failure (a line that
//! does not check out in `verify`, an internal error), 2 bad input (a file, card or flag at
//! fault); a closed pipe (`castle solve ... | head`) is success.

mod cli;
mod commands;

use anyhow::Result;
use castle::check::Board;
use castle::{analyze, render, report, verify, InputError};
use clap::{CommandFactory, Parser};
use cli::{Cli, Command, OutFormat};
use std::io::Write;
use std::process::ExitCode;

/// Makes every large allocation its own mapping, returned to the system when freed.
///
/// glibc's malloc raises its mmap threshold to the size of each large block freed (up to
/// 32 MiB). The table's segments grow by half and free their old arrays, so after the first
/// few the new arrays came from the heap, where the freed ones left holes too small to reuse:
/// `castle solve -v bc --seed 2461` with the default 4 GiB ended at a peak RSS of 4,968 MiB,
/// 21% over its budget. A fixed threshold keeps the dynamic rule off. It is low
/// ([`MMAP_THRESHOLD`]) because a small `--memory` makes small segments: at 256 MiB they are
/// under 1 MiB each, and with a threshold of 1 MiB the hard lost deal of `data/bench` peaked at
/// 295 MiB resident, the heap's holes past the budget.
/// Allocations from this size on are mappings of their own (see [`fixed_mmap_threshold`]).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: i32 = 128 << 10;

fn fixed_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets a malloc parameter; it is called before any other thread
    // exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
    }
}

fn main() -> ExitCode {
    fixed_mmap_threshold();
    match run(parse_command_line()) {
        Ok(code) => code,
        Err(e) => {
            let lib = || e.chain().filter_map(|c| c.downcast_ref::<castle::Error>());
            let broken_pipe = lib().any(castle::Error::is_broken_pipe)
                || e.chain().any(|c| {
                    c.downcast_ref::<std::io::Error>()
                        .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
                });
            if broken_pipe {
                return ExitCode::SUCCESS;
            }
            // Every long word cut: no message echoes a whole megabyte of bad input.
            eprintln!(
                "castle: {}",
                castle::text::cut_words(&format!("{e:#}"), 200)
            );
            if lib().any(castle::Error::is_input) || e.chain().any(|c| c.is::<InputError>()) {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// The command line, parsed by clap; a refusal is printed as clap prints it (exit 2), but
/// with each value it quotes cut as castle's own messages cut them (a 100 KB flag value is
/// not echoed whole). Help and version go out untouched.
fn parse_command_line() -> Cli {
    match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            let msg = e.render().to_string();
            eprint!("{}", castle::text::cut_quoted(&msg, '\''));
            std::process::exit(e.exit_code());
        }
        Err(e) => e.exit(),
    }
}

/// `castle play`'s failure: bytes on standard input that are not UTF-8 are bad input (exit 2),
/// like the same bytes in a file.
fn play_error(e: std::io::Error) -> anyhow::Error {
    if e.kind() == std::io::ErrorKind::InvalidData {
        InputError::new(
            castle::InputKind::Text,
            format!("{e} (castle play reads one command per line, as UTF-8 text)"),
        )
        .at(castle::Origin::Stdin)
        .into()
    } else {
        e.into()
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match cli.command {
        Command::Deal(a) if a.winnable.winnable => cli::winnable::run(&a, &mut out)?,
        Command::Deal(a) => commands::deal(&a, &mut out)?,
        Command::Solve(a) => {
            if let Some(code) = commands::solve(&a, &mut out)? {
                return Ok(code);
            }
        }
        Command::CheckCertificate(a) => {
            return Ok(cli::certificate::check_files(&mut out, &a)?);
        }
        Command::Verify(a) => {
            let passed = if a.fc_solve {
                let deal = a.source.load()?;
                let (text, origin) = cli::read_input(&a.file)?;
                let json = a.format == OutFormat::Json;
                // Rules fc-solve does not play are the flag's fault, not the file's.
                verify::verify_fc_solve(&mut out, &deal, &text, &origin, json).map_err(
                    |e| match e {
                        castle::Error::Input(e) if e.origin.is_none() => {
                            castle::Error::Input(e.with_flag("--fc-solve"))
                        }
                        e => e,
                    },
                )?
            } else {
                if a.source.given() || a.format != OutFormat::Text {
                    return Err(InputError::new(
                        castle::InputKind::Usage,
                        "the deal's flags (--variant, --seed, --deal, the rule options) and --format go with --fc-solve (a solve report names its deal and rules)",
                    ).into());
                }
                let (text, origin) = cli::read_input(&a.file)?;
                verify::verify_report(&mut out, &text, &origin)?
            };
            if !passed {
                return Ok(ExitCode::from(1));
            }
        }
        Command::Show(a) => {
            let (text, origin) = cli::read_input(&a.file)?;
            let page = castle::html::show_page(&text, &origin)?;
            match &a.output {
                Some(p) => {
                    std::fs::write(p, page).map_err(|e| {
                        InputError::new(castle::InputKind::File, format!("cannot write: {e}"))
                            .at(p)
                            .with_flag("-o")
                    })?;
                    eprintln!(
                        "the page is in {} (open it in a browser; {}#move=N opens it at move N)",
                        p.display(),
                        p.display()
                    );
                }
                None => out.write_all(page.as_bytes())?,
            }
        }
        Command::Variants => render::write_variants(&mut out)?,
        Command::Completions { shell } => {
            // Written whole into memory first: the generator panics on a write error, and a
            // closed pipe (`castle completions fish | head`) is not a failure.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "castle", &mut script);
            out.write_all(&script)?;
        }
        Command::Bench(a) => commands::bench(&a, &mut out)?,
        Command::Batch(a) => {
            if let Some(code) = commands::batch(&a, &mut out)? {
                return Ok(code);
            }
        }
        Command::Stats(a) => commands::stats(&a, &mut out)?,
        Command::Analyze(a) => {
            let deal = a.source.load()?;
            let solver = a.budget.to_solver()?;
            let mut board = Board::new(&deal);
            analyze::play_after(&mut board, &a.after).map_err(|e| e.with_flag("--after"))?;
            let analysis = analyze::analyze(&board, &solver)?;
            match a.format {
                OutFormat::Json => report::write_analysis(&mut out, &analysis)?,
                OutFormat::Text => render::write_analysis(&mut out, &analysis, cli::color())?,
            }
        }
        #[cfg(feature = "serve")]
        Command::Serve(a) => {
            drop(out);
            commands::serve(&a)?;
        }
        Command::Play(a) => {
            drop(out);
            let (game, opts) = a.to_game()?;
            castle::play::run(game, &opts).map_err(play_error)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
