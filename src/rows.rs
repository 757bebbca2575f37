//! The rows of a batch (`castle batch`'s CSV): one [`Row`] per solved deal, the header of
//! each version of the format, and reading them back. [`crate::batch`] writes them,
//! [`crate::stats`] and [`crate::winrates`] read them.

use crate::deal::{Deal, Numbering};
use crate::solver::{Outcome, Verdict};
use crate::text::Cut;
use crate::{InputError, InputKind};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One solved deal, as a CSV row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// Deal number.
    pub seed: u64,
    /// Variant name.
    pub variant: String,
    /// Option: start rank.
    pub start_rank: u8,
    /// Option: foundation return.
    pub foundation_return: bool,
    /// Option: sequence moves.
    pub sequence_moves: String,
    /// `solvable`, `unsolvable` or `unknown`.
    pub verdict: String,
    /// Solution length in single moves; empty if there is no solution (files written before
    /// said 0).
    pub moves: Option<usize>,
    /// Nodes searched.
    pub nodes: u64,
    /// States stored at the end.
    pub states: u64,
    /// Milliseconds taken.
    pub ms: u64,
    /// Cards on the foundations at the best point any searched line reached (52 for a win).
    pub score: u8,
    /// For `unknown`: which budget ran out; empty otherwise.
    pub limit: String,
    /// Whose deal numbers `seed` is: `castle` or `pysol` (absent in files written before
    /// PySolFC numbering existed, which are all `castle`).
    #[serde(default = "castle_numbering")]
    pub numbering: String,
    /// The phase that decided the deal (`quick`, `complete`, `quotient`, a portfolio member
    /// such as `best-first:dig`, `layered`); empty for `unknown` and in files written before
    /// the column existed.
    #[serde(default)]
    pub phase: String,
    /// CPU milliseconds the deal took (user and system, every pass of the batch together);
    /// empty in files written before the column existed.
    #[serde(default)]
    pub cpu_ms: Option<u64>,
    /// The pass of the batch that decided the deal, from 1 (see [`passes`]); empty in files
    /// written before the column existed.
    #[serde(default)]
    pub pass: Option<u8>,
    /// For a lost deal of a batch that certifies its losses (`--certify`, `--certificates`):
    /// whether its certificate was built and passed the independent checker before the row
    /// was written; empty otherwise, and in files written before the column existed.
    #[serde(default)]
    pub certified: Option<bool>,
}

fn castle_numbering() -> String {
    Numbering::Castle.name().to_string()
}

/// The CSV header line (the field names of [`Row`], in order).
pub const HEADER: &str =
    "seed,variant,start_rank,foundation_return,sequence_moves,verdict,moves,nodes,states,ms,score,limit,numbering,phase,cpu_ms,pass,certified";

/// The header of batch files written before the `certified` column (still read; a resume
/// rewrites such a file once with the current header).
pub const HEADER_V3: &str =
    "seed,variant,start_rank,foundation_return,sequence_moves,verdict,moves,nodes,states,ms,score,limit,numbering,phase,cpu_ms,pass";

/// The header of batch files written before the `phase`, `cpu_ms` and `pass` columns (still read; a
/// resume rewrites such a file once with the current header).
pub const HEADER_V2: &str =
    "seed,variant,start_rank,foundation_return,sequence_moves,verdict,moves,nodes,states,ms,score,limit,numbering";

/// The header of batch files written before the `numbering` column (still read; a resume
/// rewrites such a file once with the current header).
pub const HEADER_V1: &str =
    "seed,variant,start_rank,foundation_return,sequence_moves,verdict,moves,nodes,states,ms,score,limit";

impl Row {
    /// The row of a solve.
    pub fn new(deal: &Deal, numbering: Numbering, out: &Outcome) -> Row {
        let o = deal.rules.options;
        Row {
            seed: deal.seed.unwrap_or(0),
            variant: deal.rules.variant.name().to_string(),
            start_rank: o.start_rank,
            foundation_return: o.foundation_return,
            sequence_moves: o.sequence_moves.name().to_string(),
            verdict: out.verdict.name().to_string(),
            moves: (out.verdict == Verdict::Solvable).then_some(out.moves.len()),
            nodes: out.nodes,
            states: out.states,
            ms: (out.seconds * 1000.0).round() as u64,
            score: if out.verdict == Verdict::Solvable {
                deal.rules.cards() as u8
            } else {
                out.best_home
            },
            limit: out.limit.map(|l| l.name().to_string()).unwrap_or_default(),
            numbering: numbering.name().to_string(),
            phase: out.phase.map(|p| p.name().to_string()).unwrap_or_default(),
            cpu_ms: Some((out.cpu_seconds * 1000.0).round() as u64),
            pass: None,
            certified: None,
        }
    }

    /// The row as one CSV line, newline included.
    pub fn csv_line(&self) -> String {
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        w.serialize(self).expect("a row always serializes");
        String::from_utf8(w.into_inner().expect("in-memory writer")).expect("CSV is UTF-8")
    }

    /// The group a row is summarised in: variant and options.
    pub fn group(&self) -> String {
        let numbering = if self.numbering == Numbering::Castle.name() {
            String::new()
        } else {
            format!(" numbering={}", self.numbering)
        };
        format!(
            "{} start-rank={} foundation-return={} sequence-moves={}{numbering}",
            self.variant, self.start_rank, self.foundation_return, self.sequence_moves
        )
    }
}

/// Reads the rows of a CSV file (a leading byte-order mark is skipped).
///
/// # Errors
/// A message naming the file and line of a bad header, of a row that does not parse (and its
/// column), or of bytes that are not UTF-8.
pub fn read_rows(path: &Path) -> Result<Vec<Row>, InputError> {
    let origin = path.display().to_string();
    let bytes = read_batch_file(path, &origin)?;
    rows_from_bytes(bytes, &origin)
}

/// Reads the rows of a batch CSV held in memory: `origin` names it in messages (see
/// [`read_rows`]).
///
/// # Errors
/// As [`read_rows`].
pub fn rows_from_bytes(bytes: Vec<u8>, origin: &str) -> Result<Vec<Row>, InputError> {
    let text = crate::text::decode(bytes, origin)?;
    rows_from(text.as_bytes(), origin)
}

pub(crate) fn rows_from(reader: impl std::io::Read, origin: &str) -> Result<Vec<Row>, InputError> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(reader);
    let header = r
        .headers()
        .map_err(|e| {
            InputError::new(InputKind::Report, e.to_string())
                .at(origin)
                .on_line(1)
        })?
        .iter()
        .collect::<Vec<_>>()
        .join(",");
    if ![HEADER, HEADER_V3, HEADER_V2, HEADER_V1].contains(&header.as_str()) {
        return Err(InputError::new(
            InputKind::Report,
            format!(
                "not a castle batch file (header `{}`, expected `{HEADER}`)",
                Cut(&header)
            ),
        )
        .at(origin)
        .on_line(1));
    }
    let mut rows = Vec::new();
    for rec in r.deserialize::<Row>() {
        rows.push(rec.map_err(|e| row_error(origin, &e))?);
    }
    Ok(rows)
}

/// A row that does not parse, named by line and column.
fn row_error(origin: &str, e: &csv::Error) -> InputError {
    let line = e.position().map_or(0, |p| p.line());
    let what = match e.kind() {
        csv::ErrorKind::Deserialize { err, .. } => {
            let column = err
                .field()
                .and_then(|f| HEADER.split(',').nth(f as usize))
                .map_or(String::new(), |c| format!("column `{c}`: "));
            format!("{column}{}", err.kind())
        }
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("{len} fields, expected {expected_len}"),
        _ => e.to_string(),
    };
    InputError::new(
        InputKind::Report,
        format!("bad row: {}", crate::text::cut_words(&what, 60)),
    )
    .at(origin)
    .on_line(line as usize)
}

/// Bytes a batch file's first line may take: its header or first JSON line is a few hundred.
const FIRST_LINE_BYTES: u64 = 1 << 20;

/// A batch file's bytes. Batch files may be large, so there is no cap on the whole; but one
/// whose first [`FIRST_LINE_BYTES`] hold no line end is not one (`castle stats /dev/zero`
/// read for ever), and is refused once that much is read.
pub(crate) fn read_batch_file(path: &Path, origin: &str) -> Result<Vec<u8>, InputError> {
    use std::io::Read;
    let cannot = |e: std::io::Error| {
        InputError::new(InputKind::File, format!("cannot read: {e}")).at(origin)
    };
    let mut file = std::fs::File::open(path).map_err(cannot)?;
    let mut text = Vec::new();
    (&mut file)
        .take(FIRST_LINE_BYTES)
        .read_to_end(&mut text)
        .map_err(cannot)?;
    if text.len() as u64 == FIRST_LINE_BYTES && !text.contains(&b'\n') {
        return Err(InputError::new(
            InputKind::Report,
            "no line ends in its first MiB: not a batch file (CSV or JSON lines)",
        )
        .at(origin));
    }
    file.read_to_end(&mut text).map_err(cannot)?;
    Ok(text)
}
