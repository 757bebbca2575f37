//! `castle stats`: batch rows merged across files (duplicates counted once, conflicting
//! verdicts reported), summarised per variant and options (win rate with a 95% Wilson
//! interval, solution length and node quantiles, lost deals by score), and printed as text
//! and, on request, as a CSV summary.

use crate::report::Report;
use crate::rows::{read_batch_file, Row};
use crate::{Error, InputError, InputKind};
use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::Path;

/// Reads the rows of a batch file: CSV (with its header), or JSON lines (`batch --format
/// jsonl`, one solve report per line). A torn last line (no newline at the end, as a batch
/// stopped mid-write leaves it) that does not parse is left out, as `batch` itself would cut
/// it on resuming.
///
/// # Errors
/// A message naming the file and line of a bad header or a row that does not parse.
pub fn read_rows(path: &Path) -> Result<Vec<Row>, InputError> {
    let origin = path.display().to_string();
    let text = read_batch_file(path, &origin)?;
    // A torn last line (a crash mid-write; it may end inside a character) is left out when
    // the file does not read whole.
    let keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let read = |bytes: &[u8]| {
        let text = crate::text::decode(bytes.to_vec(), &origin)?;
        rows_of(text.as_bytes(), &origin)
    };
    match read(&text) {
        Err(_) if keep > 0 && keep < text.len() => read(&text[..keep]),
        rows => rows,
    }
}

fn rows_of(text: &[u8], origin: &str) -> Result<Vec<Row>, InputError> {
    let jsonl = text
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{');
    if !jsonl {
        return crate::rows::rows_from(text, origin);
    }
    let mut rows = Vec::new();
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let bad = |e: &dyn std::fmt::Display| {
            InputError::new(InputKind::Report, format!("not a solve report: {e}"))
                .at(origin)
                .on_line(i + 1)
        };
        let r: Report = serde_json::from_slice(line).map_err(|e| bad(&e))?;
        let seed = r.seed.ok_or_else(|| bad(&"no seed"))?;
        rows.push(Row {
            seed,
            variant: r.variant,
            start_rank: r.options.start_rank,
            foundation_return: r.options.foundation_return,
            sequence_moves: r.options.sequence_moves,
            moves: (r.verdict == "solvable").then_some(r.moves.len()),
            verdict: r.verdict,
            nodes: r.nodes,
            states: r.states,
            ms: (r.seconds * 1000.0).round() as u64,
            score: r.score.unwrap_or(0),
            limit: r.limit.unwrap_or_default(),
            numbering: r.numbering.unwrap_or_else(|| "castle".to_string()),
            phase: r.phase.unwrap_or_default(),
            cpu_ms: r.cpu_seconds.map(|s| (s * 1000.0).round() as u64),
            pass: r.pass,
            certified: r.certified,
        });
    }
    Ok(rows)
}

pub use crate::interval::wilson;

/// Summary of one group (variant and options).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Deals.
    pub deals: u64,
    /// Proved winnable.
    pub winnable: u64,
    /// Proved lost.
    pub unsolvable: u64,
    /// Undecided.
    pub unknown: u64,
    /// Win rate interval: the Wilson lower bound with unknowns counted as losses, and the
    /// Wilson upper bound with unknowns counted as wins.
    pub win_rate: (f64, f64),
    /// Solution lengths of winnable deals: min, median, p99, max.
    pub length: [u64; 4],
    /// Nodes of all deals: min, median, p99, max.
    pub nodes: [u64; 4],
    /// Lost deals by score (cards home at best): score -> count.
    pub lost_scores: BTreeMap<u8, u64>,
    /// Lost deals whose row says their certificate passed the independent checker
    /// (`castle batch --certify`).
    pub certified: u64,
}

fn quantiles(mut v: Vec<u64>) -> [u64; 4] {
    if v.is_empty() {
        return [0; 4];
    }
    v.sort_unstable();
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    [v[0], at(0.5), at(0.99), v[v.len() - 1]]
}

/// What merging files found besides the summaries.
#[derive(Clone, Debug, Default)]
pub struct Merge {
    /// Summaries by group.
    pub groups: BTreeMap<String, Summary>,
    /// Rows seen more than once with the same verdict (counted once).
    pub duplicates: u64,
    /// Seeds whose rows disagree on the verdict: (group, seed, verdicts).
    pub conflicts: Vec<(String, u64, Vec<String>)>,
    /// The rows counted, by group (one per seed).
    pub rows: BTreeMap<String, Vec<Row>>,
}

/// Merges rows from several files: one row per (group, seed). A seed seen again with the
/// same verdict is a duplicate; with another verdict a conflict (a decided verdict beats
/// `unknown`; two decided verdicts that differ are reported and the seed left out).
pub fn merge(rows: impl IntoIterator<Item = Row>) -> Merge {
    let mut by: BTreeMap<(String, u64), Vec<Row>> = BTreeMap::new();
    for r in rows {
        by.entry((r.group(), r.seed)).or_default().push(r);
    }
    let mut m = Merge::default();
    let mut kept: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for ((group, seed), rows) in by {
        m.duplicates += rows.len() as u64 - 1;
        let decided: Vec<&Row> = rows.iter().filter(|r| r.verdict != "unknown").collect();
        let verdicts: HashSet<&str> = decided.iter().map(|r| r.verdict.as_str()).collect();
        if verdicts.len() > 1 {
            m.conflicts.push((
                group,
                seed,
                rows.iter().map(|r| r.verdict.clone()).collect(),
            ));
            continue;
        }
        // A certified row of a lost deal counts over an uncertified one.
        let best = decided
            .iter()
            .find(|r| r.certified == Some(true))
            .or(decided.first())
            .copied()
            .unwrap_or(&rows[0])
            .clone();
        kept.entry(group).or_default().push(best);
    }
    for (group, rows) in kept {
        let mut s = Summary {
            deals: rows.len() as u64,
            ..Default::default()
        };
        let mut lengths = Vec::new();
        for r in &rows {
            match r.verdict.as_str() {
                "solvable" => {
                    s.winnable += 1;
                    lengths.push(r.moves.unwrap_or(0) as u64);
                }
                "unsolvable" => {
                    s.unsolvable += 1;
                    s.certified += u64::from(r.certified == Some(true));
                    *s.lost_scores.entry(r.score).or_default() += 1;
                }
                _ => s.unknown += 1,
            }
        }
        s.win_rate = (
            wilson(s.winnable, s.deals).0,
            wilson(s.winnable + s.unknown, s.deals).1,
        );
        s.length = quantiles(lengths);
        s.nodes = quantiles(rows.iter().map(|r| r.nodes).collect());
        m.groups.insert(group.clone(), s);
        m.rows.insert(group, rows);
    }
    m
}

/// One group's summary as `stats --format json|csv` prints it: the options as fields of
/// their own, the point win rate and both interval ends.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SummaryRow {
    /// Variant name.
    pub variant: String,
    /// Option: start rank.
    pub start_rank: u8,
    /// Option: foundation return.
    pub foundation_return: bool,
    /// Option: sequence moves.
    pub sequence_moves: String,
    /// Whose deal numbers the seeds are.
    pub numbering: String,
    /// Deals.
    pub deals: u64,
    /// Proved winnable.
    pub winnable: u64,
    /// Proved lost.
    pub unsolvable: u64,
    /// Undecided.
    pub unknown: u64,
    /// Winnable deals over all deals.
    pub win_rate: f64,
    /// The 95% Wilson lower bound, unknowns counted as losses.
    pub win_rate_low: f64,
    /// The 95% Wilson upper bound, unknowns counted as wins.
    pub win_rate_high: f64,
    /// Solution lengths: min, median, p99, max.
    pub len_min: u64,
    /// See `len_min`.
    pub len_median: u64,
    /// See `len_min`.
    pub len_p99: u64,
    /// See `len_min`.
    pub len_max: u64,
    /// Nodes: min, median, p99, max.
    pub nodes_min: u64,
    /// See `nodes_min`.
    pub nodes_median: u64,
    /// See `nodes_min`.
    pub nodes_p99: u64,
    /// See `nodes_min`.
    pub nodes_max: u64,
    /// Lost deals whose certificate passed the independent checker (`batch --certify`).
    pub certified: u64,
}

/// The summary rows of a merge, one per group.
pub fn summary_rows(m: &Merge) -> Vec<SummaryRow> {
    m.groups
        .iter()
        .filter_map(|(g, s)| {
            let r = m.rows.get(g)?.first()?;
            Some(SummaryRow {
                variant: r.variant.clone(),
                start_rank: r.start_rank,
                foundation_return: r.foundation_return,
                sequence_moves: r.sequence_moves.clone(),
                numbering: r.numbering.clone(),
                deals: s.deals,
                winnable: s.winnable,
                unsolvable: s.unsolvable,
                unknown: s.unknown,
                win_rate: s.winnable as f64 / s.deals.max(1) as f64,
                win_rate_low: s.win_rate.0,
                win_rate_high: s.win_rate.1,
                len_min: s.length[0],
                len_median: s.length[1],
                len_p99: s.length[2],
                len_max: s.length[3],
                nodes_min: s.nodes[0],
                nodes_median: s.nodes[1],
                nodes_p99: s.nodes[2],
                nodes_max: s.nodes[3],
                certified: s.certified,
            })
        })
        .collect()
}

/// Writes the summary rows as JSON lines (`json`) or CSV with a header.
///
/// # Errors
/// Writing `out`.
pub fn write_rows(out: &mut impl Write, m: &Merge, json: bool) -> Result<(), Error> {
    let rows = summary_rows(m);
    if json {
        for r in &rows {
            serde_json::to_writer(&mut *out, r)?;
            writeln!(out)?;
        }
        return Ok(());
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    let csv_error = |source| Error::Csv {
        path: "<stdout>".into(),
        source,
    };
    for r in &rows {
        w.serialize(r).map_err(csv_error)?;
    }
    if rows.is_empty() {
        w.write_record(["variant"]).map_err(csv_error)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| csv_error(e.into_error().into()))?;
    out.write_all(&bytes)?;
    Ok(())
}

/// Writes the summary rows to the CSV file `path`, as [`write_rows`] prints them (`castle
/// stats --csv FILE` and `--format csv` write one format).
///
/// # Errors
/// A file that cannot be made (bad input: a directory, say), or writing it.
pub fn write_csv_file(path: &Path, m: &Merge) -> Result<(), Error> {
    let mut file = std::fs::File::create(path)
        .map_err(|e| InputError::new(InputKind::File, format!("cannot write: {e}")).at(path))?;
    write_rows(&mut file, m, false)?;
    file.sync_all().ok();
    Ok(())
}

/// Prints a merge: notes on duplicates and conflicts, then each group's summary; with `csv`,
/// also writes the summaries to that file ([`write_csv_file`]).
///
/// # Errors
/// Writing `out` or the CSV file.
pub fn write(out: &mut impl Write, m: &Merge, csv: Option<&Path>) -> Result<(), Error> {
    if m.duplicates > 0 {
        writeln!(
            out,
            "note: {} appeared more than once (each counted once)",
            crate::render::count(m.duplicates, "row")
        )?;
    }
    for (group, seed, verdicts) in &m.conflicts {
        writeln!(
            out,
            "conflict: {group} seed {seed} has verdicts {} (left out)",
            verdicts.join(", ")
        )?;
    }
    if let Some(p) = csv {
        write_csv_file(p, m)?;
    }
    for (group, s) in &m.groups {
        writeln!(out, "{group}")?;
        writeln!(
            out,
            "  deals {}: winnable {}, unsolvable {}{}, unknown {}",
            s.deals,
            s.winnable,
            s.unsolvable,
            if s.certified > 0 {
                format!(" ({} certified)", s.certified)
            } else {
                String::new()
            },
            s.unknown
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
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_hand_computed_values() {
        // 5 of 10: p = 0.5, z = 1.96: centre 0.5, half-width 1.96/1.38416 * sqrt(0.025 +
        // 0.009604) = 0.26340 -> (0.2366, 0.7634).
        let (lo, hi) = wilson(5, 10);
        assert!(
            (lo - 0.2366).abs() < 1e-4 && (hi - 0.7634).abs() < 1e-4,
            "{lo} {hi}"
        );
        // 0 of 10: upper bound z^2/(n + z^2) = 3.8415/13.8415 = 0.27753.
        let (lo, hi) = wilson(0, 10);
        assert!(lo.abs() < 1e-12 && (hi - 0.27753).abs() < 1e-4, "{lo} {hi}");
        // 10 of 10 mirrors it.
        let (lo, hi) = wilson(10, 10);
        assert!(
            (lo - 0.72247).abs() < 1e-4 && (hi - 1.0).abs() < 1e-12,
            "{lo} {hi}"
        );
        // 68 of 100: z^2 = 3.841459; centre (0.68 + 0.0192073)/1.0384146 = 0.673341; half
        // 1.959964/1.0384146 * sqrt(0.002176 + 0.0000960) = 1.887457 * 0.0476659 = 0.089967.
        let (lo, hi) = wilson(68, 100);
        assert!(
            (lo - 0.583374).abs() < 1e-5 && (hi - 0.763308).abs() < 1e-5,
            "{lo} {hi}"
        );
    }
}
