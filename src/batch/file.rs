//! A batch's CSV file: opened for appending under a lock, checked against the batch's
//! rules, an older header upgraded, a torn last line cut (see "Crash safety and resume" in
//! [`super`]).

use crate::deal::Numbering;
use crate::rows::{rows_from, Row, HEADER, HEADER_V1, HEADER_V2, HEADER_V3};
use crate::rules::Rules;
use crate::solver::Verdict;
use crate::text::Cut;
use crate::InputError;
use crate::InputKind;
use std::collections::{HashMap, HashSet};
use std::io::{Seek, Write};
use std::path::Path;

/// Takes an advisory lock on a batch CSV for this process (released when the file is
/// closed, or the process ends however it ends), so that two batches never append to one
/// file.
#[cfg(unix)]
fn lock(file: &std::fs::File, origin: &str) -> Result<(), InputError> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: `flock` only reads the descriptor, which `file` keeps open for the call.
    let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    if e.kind() != std::io::ErrorKind::WouldBlock {
        return Err(
            InputError::new(InputKind::File, format!("cannot lock the file: {e}")).at(origin),
        );
    }
    let holder = lock_holder(file).map_or(String::new(), |pid| format!(" (process {pid})"));
    Err(InputError::new(
        InputKind::File,
        format!(
            "another castle batch{holder} is appending to this file; wait for it to end, or give another file"
        ),
    )
    .at(origin))
}

#[cfg(not(unix))]
fn lock(_file: &std::fs::File, _origin: &str) -> Result<(), InputError> {
    Ok(())
}

/// The process holding a `flock` on `file`, from Linux's `/proc/locks` (best effort).
#[cfg(unix)]
fn lock_holder(file: &std::fs::File) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let ino = file.metadata().ok()?.ino();
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    locks.lines().find_map(|l| {
        // `1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF`
        let f: Vec<&str> = l.split_whitespace().collect();
        let id = f.get(5)?;
        (f.get(1) == Some(&"FLOCK") && id.rsplit(':').next()?.parse::<u64>().ok()? == ino)
            .then(|| f.get(4)?.parse().ok())
            .flatten()
    })
}

/// Writes `text` to `tmp` and renames it over `path`, so an interruption leaves the old file
/// or the new one whole (the batch file's upgrade, the pending file's end).
pub(crate) fn replace_file(path: &Path, tmp: &Path, text: &str) -> std::io::Result<()> {
    std::fs::write(tmp, text)?;
    std::fs::rename(tmp, path)
}

/// A batch CSV open for appending (see [`open_for_append`]).
#[derive(Debug)]
pub struct Opened {
    /// The file, locked, positioned for appending.
    pub file: std::fs::File,
    /// The seeds not to solve again.
    pub done: HashSet<u64>,
    /// With `retry_unknown`: each seed to solve again and its count of `unknown` rows.
    pub retries: HashMap<u64, u64>,
}

/// Opens a batch CSV for appending: locks it (a second batch on the same file is refused),
/// creates it with the header, or checks an existing one, cuts a torn last line (or a torn
/// header, when a crash left nothing else), and returns the seeds already done for these
/// rules: every seed with a row, or with `retry_unknown` only those with a decided row (so
/// the seeds whose rows all say `unknown` are solved again, and their new rows appended;
/// `stats` counts a seed's decided row over its `unknown` ones), and with `retry_unknown`
/// how many `unknown` rows each seed left to solve again has (its retry's salt: see
/// [`Solver::salt`]).
///
/// # Errors
/// Unreadable files, a file another batch holds, a foreign header or a corrupt row (named by
/// line), or rows of other rules in the file.
pub fn open_for_append(
    path: &Path,
    rules: &Rules,
    numbering: Numbering,
    retry_unknown: bool,
) -> Result<Opened, InputError> {
    let origin = path.display().to_string();
    let io = |e: std::io::Error| InputError::new(InputKind::File, e.to_string()).at(path);
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)
        .map_err(io)?;
    lock(&file, &origin)?;
    let mut bytes = Vec::new();
    file.rewind().map_err(io)?;
    std::io::Read::read_to_end(&mut file, &mut bytes).map_err(io)?;
    // Everything after the last newline is a line a crash cut short.
    let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    if keep == 0 {
        // No whole line: a new file, or a header torn by a crash (written again); anything
        // else is not a batch file, and is left as it is.
        let torn = bytes
            .strip_prefix(crate::text::BOM.as_bytes())
            .unwrap_or(&bytes);
        if !HEADER.as_bytes().starts_with(torn) {
            let shown = String::from_utf8_lossy(torn);
            return Err(InputError::new(
                InputKind::Report,
                format!(
                    "not a castle batch file (`{}` without a newline, expected the header `{HEADER}`)",
                    Cut(&shown)
                ),
            )
            .at(path)
            .on_line(1));
        }
        file.set_len(0).map_err(io)?;
        file.write_all(format!("{HEADER}\n").as_bytes())
            .map_err(io)?;
        file.flush().map_err(io)?;
        return Ok(Opened {
            file,
            done: HashSet::new(),
            retries: HashMap::new(),
        });
    }
    bytes.truncate(keep);
    let text = crate::text::decode(bytes, &origin)?;
    // The header and rows are checked before the torn line is cut: a file that is not a
    // batch file is refused untouched.
    let rows = rows_from(text.as_bytes(), &origin)?;
    if (keep as u64) < file.metadata().map_err(io)?.len() {
        file.set_len(keep as u64).map_err(io)?;
    }
    let first = text.lines().next().unwrap_or("");
    let first = first.strip_prefix(crate::text::BOM).unwrap_or(first);
    if [HEADER_V1, HEADER_V2, HEADER_V3].contains(&first) {
        // An older file: rewrite it with the current header (a new file renamed over the
        // old one, so an interruption leaves one or the other whole).
        let mut body = format!("{HEADER}\n");
        for row in &rows {
            body += &row.csv_line();
        }
        replace_file(path, &path.with_extension("csv.upgrade"), &body).map_err(io)?;
        drop(file);
        return open_for_append(path, rules, numbering, retry_unknown);
    }
    let mut done = HashSet::new();
    let mut unknown = HashMap::new();
    for (i, row) in rows.iter().enumerate() {
        let differ = differences(row, rules, numbering);
        if !differ.is_empty() {
            return Err(InputError::new(
                InputKind::Report,
                format!(
                    "the file's rows are for another batch: {}; give the file's options, or use another file",
                    differ.join("; ")
                ),
            )
            .at(path)
            .on_line(i + 2));
        }
        if !retry_unknown || row.verdict != Verdict::Unknown.name() {
            done.insert(row.seed);
        } else {
            *unknown.entry(row.seed).or_insert(0) += 1;
        }
    }
    unknown.retain(|seed, _| !done.contains(seed));
    Ok(Opened {
        file,
        done,
        retries: unknown,
    })
}

/// What differs between a row of a batch file and the batch being run, one phrase an option:
/// `start rank 1 in the file, 2 here (--start-rank)`.
fn differences(row: &Row, rules: &Rules, numbering: Numbering) -> Vec<String> {
    let o = rules.options;
    let on = |b: bool| if b { "on" } else { "off" };
    let mut d = Vec::new();
    let mut differ = |what: &str, file: &str, here: &str, flag: &str| {
        if file != here {
            d.push(format!(
                "{what} {} in the file, {here} here ({flag})",
                Cut(file)
            ));
        }
    };
    differ("variant", &row.variant, rules.variant.name(), "--variant");
    // Two variants' own start ranks are part of the variants, not an option given.
    let defaults = row.variant.parse::<crate::rules::Variant>().is_ok_and(|v| {
        v.rules().options.start_rank == row.start_rank
            && rules.variant.rules().options.start_rank == o.start_rank
    });
    if !defaults {
        differ(
            "start rank",
            &row.start_rank.to_string(),
            &o.start_rank.to_string(),
            "--start-rank",
        );
    }
    differ(
        "foundation return",
        on(row.foundation_return),
        on(o.foundation_return),
        "--foundation-return",
    );
    differ(
        "sequence moves",
        &row.sequence_moves,
        o.sequence_moves.name(),
        "--sequence-moves",
    );
    differ("numbering", &row.numbering, numbering.name(), "--numbering");
    d
}
