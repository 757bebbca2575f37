//! `castle solve --certificate FILE`, `castle batch --certificates DIR` (their paths) and
//! `castle check-certificate`: the command-line side of [`castle::certificate`].

use super::{CheckCertificateArgs, SolveArgs};
use castle::certificate::{self, Rejection};
use castle::solver::certify::{self, CertifyOptions};
use castle::{Deal, InputError, Outcome, Verdict};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

fn input(msg: String) -> InputError {
    InputError::new(castle::InputKind::Usage, msg)
}

/// `--certificates DIR`: the directory, made if missing, that a file can be written in.
pub fn dir(path: &Path) -> Result<PathBuf, InputError> {
    let fail = |e: std::io::Error| input(format!("--certificates {}: {e}", path.display()));
    std::fs::create_dir_all(path).map_err(fail)?;
    let probe = path.join(format!(".castle-probe-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(fail)?;
    let _ = std::fs::remove_file(&probe);
    Ok(path.to_path_buf())
}

/// `--certificate FILE`: refused before the solve if it cannot be written (an existing file
/// is left as it is until a certificate replaces it).
pub fn probe(path: &Path) -> Result<(), InputError> {
    let fail = |e: std::io::Error| input(format!("--certificate {}: {e}", path.display()));
    if path.is_dir() {
        return Err(input(format!(
            "--certificate {}: is a directory",
            path.display()
        )));
    }
    if path.exists() {
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(fail)?;
    } else {
        std::fs::write(path, b"").map_err(fail)?;
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// After `castle solve --certificate FILE`: writes the certificate of an `unsolvable` verdict
/// and says what it holds (on standard output in text mode, else standard error).
///
/// # Errors
/// A certificate that could not be built (a budget, or an internal error) or written.
pub fn after_solve(
    out: &mut impl Write,
    a: &SolveArgs,
    deal: &Deal,
    result: &Outcome,
    path: &Path,
) -> anyhow::Result<()> {
    if result.verdict != Verdict::Unsolvable {
        eprintln!(
            "no certificate written to {}: the verdict is {} (a certificate proves a loss)",
            path.display(),
            result.verdict.name()
        );
        return Ok(());
    }
    let opts = CertifyOptions {
        max_bytes: a.budget.memory << 20,
        autoplay: !a.certificate_no_autoplay,
        method: a.certificate_kind,
        check_threads: usize::from(a.threads),
        hint: result.lost_by,
        ..CertifyOptions::default()
    };
    // The solve's members were kept with safe autoplay on, as the checker's default rule.
    let members = result.lost_members.clone().filter(|_| opts.autoplay);
    let certified = certify::certify_from(deal, a.source.numbering(), &opts, members)
        .map_err(|e| anyhow::anyhow!("no certificate written to {}: {e}", path.display()))?;
    let written = certificate::write(&certified.certificate, path)
        .map_err(|e| anyhow::anyhow!("{}: cannot write the certificate: {e}", path.display()))?;
    let line = format!(
        "certificate {}: {} positions ({}{}), {}, built in {:.2} s, checked in {:.2} s",
        path.display(),
        written.positions,
        certified.certificate.kind,
        if certified.certificate.autoplay {
            "; safe autoplay"
        } else {
            ""
        },
        size(written.bytes),
        certified.seconds,
        certified.check_seconds,
    );
    if a.format == super::SolveFormat::Text {
        writeln!(out, "{line}")?;
    } else {
        eprintln!("{line}");
    }
    Ok(())
}

/// Bytes as `812 B`, `3.4 KiB`, `1.2 MiB`.
pub fn size(bytes: u64) -> String {
    match bytes {
        b if b < 1 << 10 => format!("{b} B"),
        b if b < 1 << 20 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{:.1} MiB", b as f64 / f64::from(1 << 20)),
    }
}

/// `castle check-certificate`: checks each file; 0 when all check out, 1 when one is rejected.
///
/// # Errors
/// A file that is not a certificate (bad input), or a deal given that cannot be read.
pub fn check_files(
    out: &mut impl Write,
    a: &CheckCertificateArgs,
) -> Result<ExitCode, castle::Error> {
    let want = if a.source.given() {
        let deal = a.source.load()?;
        Some((
            certificate::game_of(&deal.rules),
            sorted(certificate::start_of(&deal)),
        ))
    } else {
        None
    };
    let many = a.files.len() > 1;
    let mut rejected = 0;
    for path in &a.files {
        let prefix = if many {
            format!("{}: ", path.display())
        } else {
            String::new()
        };
        let t0 = Instant::now();
        let cert =
            certificate::read(path).map_err(|e| input(format!("{}: {e}", path.display())))?;
        if let Some((game, start)) = &want {
            if cert.game != *game || sorted(cert.start.clone()) != *start {
                writeln!(
                    out,
                    "{prefix}certificate rejected: it is about {} ({}), not the deal given",
                    cert.label, cert.game
                )?;
                rejected += 1;
                continue;
            }
        }
        match certificate::check(&cert, usize::from(a.threads)) {
            Ok(c) => {
                writeln!(
                    out,
                    "{prefix}certificate ok: {} positions, closed, no win",
                    c.positions
                )?;
                writeln!(
                    out,
                    "{prefix}{} is lost ({}; {}{}); {} moves followed in {:.2} s",
                    cert.label,
                    cert.game,
                    cert.kind,
                    if cert.autoplay { ", safe autoplay" } else { "" },
                    c.moves,
                    t0.elapsed().as_secs_f64()
                )?;
            }
            Err(e) => {
                rejected += 1;
                writeln!(out, "{prefix}certificate rejected: {}", rejection(&e))?;
            }
        }
    }
    Ok(if rejected > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn rejection(e: &Rejection) -> String {
    e.to_string()
}

/// A deal up to pile order (the same game position, whatever the piles are called).
fn sorted(mut s: certificate::Start) -> certificate::Start {
    s.tableau.sort();
    s.cells.sort();
    s
}
