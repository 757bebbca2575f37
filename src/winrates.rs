//! The published tables of `data/tables/` (`castle stats FILE --table DIR`): for a range of
//! deals that a batch decided every deal of, one bit per deal saying whether it is winnable,
//! and a row of `winrates.csv` with the win rate and its 95% Wilson interval.
//!
//! # The bit file
//! `VARIANT-NUMBERING[-OPTIONS]-FIRST-LAST.bits` holds `(LAST - FIRST + 1)` bits, bit `i` for
//! deal `FIRST + i`: byte `i / 8`, bit `i % 8` counted from the least significant, set when
//! the deal is winnable and clear when it is lost; the last byte's unused bits are clear. A
//! deal's verdict is one bit, 12.5 KB per 100,000 deals; the batch's rows (moves, nodes,
//! times) stay with the user.
//!
//! # A table with unknown deals
//! A table is meant to have every deal decided. When some deals are still `unknown` when the
//! table is wanted (their last pass can take hours a deal; `castle stats --table DIR
//! --allow-unknown`), the table is still written, saying so: its bit is clear, the row counts
//! it in `unknown` and lists it in `unknown_deals`, the win rate is over the decided deals,
//! and the interval is widened to hold both ends, from the Wilson interval's low end with
//! every unknown deal lost to its high end with every one won. With no unknown deal these
//! are the plain figures.

use crate::batch::Row;
use crate::stats::wilson;
use crate::{InputError, InputKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One line of `winrates.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableRow {
    /// The variant's name.
    pub variant: String,
    /// Whose deal numbers: `castle` or `pysol`.
    pub numbering: String,
    /// The rule options, as `start-rank=1 foundation-return=false sequence-moves=single`.
    pub options: String,
    /// First deal number.
    pub first: u64,
    /// Last deal number.
    pub last: u64,
    /// Deals (`last - first + 1`).
    pub deals: u64,
    /// Winnable deals.
    pub won: u64,
    /// Lost deals.
    pub lost: u64,
    /// Deals left `unknown` (see "A table with unknown deals"; 0 in a file without the
    /// column).
    #[serde(default)]
    pub unknown: u64,
    /// Win rate, in percent (`won / (won + lost)`).
    pub win_rate: f64,
    /// The 95% Wilson interval's low end, in percent (every unknown deal counted lost).
    pub wilson_low: f64,
    /// Its high end, in percent (every unknown deal counted won).
    pub wilson_high: f64,
    /// The bit file of the range.
    pub bits: String,
    /// The unknown deals' numbers, separated by spaces.
    #[serde(default)]
    pub unknown_deals: String,
}

impl TableRow {
    /// The numbers of the deals the table leaves unknown (their bits are clear).
    ///
    /// # Errors
    /// A number that does not parse, named.
    pub fn unknown_seeds(&self) -> Result<Vec<u64>, InputError> {
        self.unknown_deals
            .split_whitespace()
            .map(|s| {
                s.parse().map_err(|_| {
                    InputError::new(
                        InputKind::Report,
                        format!("{}: unknown deal '{s}' is not a deal number", self.bits),
                    )
                })
            })
            .collect()
    }
}

/// The header of `winrates.csv`.
pub const HEADER: &str = "variant,numbering,options,first,last,deals,won,lost,unknown,win_rate,wilson_low,wilson_high,bits,unknown_deals";

/// The deals of one group (variant, numbering, options) of batch rows: their range, each
/// deal's bit, and the table's row.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// The row of `winrates.csv`.
    pub row: TableRow,
    /// The bits (see the module's opening).
    pub bits: Vec<u8>,
}

/// The options of a row, as in [`TableRow::options`].
fn options(r: &Row) -> String {
    format!(
        "start-rank={} foundation-return={} sequence-moves={}",
        r.start_rank, r.foundation_return, r.sequence_moves
    )
}

/// The tables of `rows`, one per group (variant, numbering, options). A seed's decided row
/// counts over its `unknown` ones (a retried deal), as in `castle stats`. A deal with only
/// `unknown` rows is refused unless `allow_unknown` (see "A table with unknown deals").
///
/// # Errors
/// A group whose seeds are not one contiguous range, or with a deal that has both verdicts or
/// (without `allow_unknown`) is `unknown`: the message names the group and the first such
/// deal.
pub fn tables(rows: &[Row], allow_unknown: bool) -> Result<Vec<Table>, InputError> {
    type Key = (String, String, String);
    let mut groups: BTreeMap<Key, BTreeMap<u64, Option<bool>>> = BTreeMap::new();
    for r in rows {
        let key = (r.variant.clone(), r.numbering.clone(), options(r));
        let won = match r.verdict.as_str() {
            "solvable" => Some(true),
            "unsolvable" => Some(false),
            _ => None,
        };
        let seeds = groups.entry(key).or_default();
        match (seeds.get(&r.seed).copied(), won) {
            (Some(Some(a)), Some(b)) if a != b => {
                return Err(InputError::new(
                    InputKind::Report,
                    format!("{} deal {}: rows with both verdicts", r.group(), r.seed),
                ))
            }
            (Some(Some(_)), _) => {}
            _ => {
                seeds.insert(r.seed, won);
            }
        }
    }
    let mut out = Vec::new();
    for ((variant, numbering, opts), seeds) in groups {
        let name = format!("{variant} {numbering} {opts}");
        let (&first, _) = seeds.iter().next().expect("a group has a row");
        let (&last, _) = seeds.iter().next_back().expect("a group has a row");
        let deals = last - first + 1;
        if seeds.len() as u64 != deals {
            let gap = (first..=last)
                .find(|s| !seeds.contains_key(s))
                .unwrap_or(first);
            return Err(InputError::new(
                InputKind::Report,
                format!(
                    "{name}: deals {first}..{last} are not all there (no row for deal {gap}): a table needs every deal of its range"
                ),
            ));
        }
        let unknown: Vec<u64> = seeds
            .iter()
            .filter(|(_, v)| v.is_none())
            .map(|(&s, _)| s)
            .collect();
        if let (Some(s), false) = (unknown.first(), allow_unknown) {
            return Err(InputError::new(
                InputKind::Report,
                format!(
                    "{name}: deal {s} is unknown: a table needs every deal decided (run the batch again without budgets, or with --retry-unknown; --allow-unknown writes the table with its unknown deals listed)"
                ),
            ));
        }
        let mut bits = vec![0u8; usize::try_from(deals.div_ceil(8)).unwrap_or(usize::MAX)];
        let mut won = 0;
        for (&s, v) in &seeds {
            if *v == Some(true) {
                let i = (s - first) as usize;
                bits[i / 8] |= 1 << (i % 8);
                won += 1;
            }
        }
        let open = unknown.len() as u64;
        let lost = deals - won - open;
        let (lo, hi) = bounds(won, open, deals);
        let default_opts = opts == default_options(&variant);
        let file = format!(
            "{variant}-{numbering}{}-{first}-{last}.bits",
            if default_opts {
                String::new()
            } else {
                format!("-{}", opts.replace(' ', "-").replace('=', ""))
            }
        );
        out.push(Table {
            row: TableRow {
                variant,
                numbering,
                options: opts,
                first,
                last,
                deals,
                won,
                lost,
                unknown: open,
                win_rate: round4(100.0 * won as f64 / (won + lost).max(1) as f64),
                wilson_low: round4(100.0 * lo),
                wilson_high: round4(100.0 * hi),
                bits: file,
                unknown_deals: unknown
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(" "),
            },
            bits,
        });
    }
    Ok(out)
}

/// The interval of a table's win rate, as fractions: the 95% Wilson interval's low end with
/// the `unknown` deals lost, its high end with them won (the plain interval when none is).
pub fn bounds(won: u64, unknown: u64, deals: u64) -> (f64, f64) {
    (wilson(won, deals).0, wilson(won + unknown, deals).1)
}

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

/// The options string of a variant's own rules.
fn default_options(variant: &str) -> String {
    match variant.parse::<crate::Variant>() {
        Ok(v) => {
            let o = v.rules().options;
            format!(
                "start-rank={} foundation-return={} sequence-moves={}",
                o.start_rank,
                o.foundation_return,
                o.sequence_moves.name()
            )
        }
        Err(_) => String::new(),
    }
}

/// Whether deal `seed` is winnable, by a table's bits (`None` outside `first..=last`).
pub fn winnable(bits: &[u8], first: u64, last: u64, seed: u64) -> Option<bool> {
    if seed < first || seed > last {
        return None;
    }
    let i = usize::try_from(seed - first).ok()?;
    Some(bits.get(i / 8)? & (1 << (i % 8)) != 0)
}

/// Reads `winrates.csv` of a table directory (empty if there is none).
///
/// # Errors
/// A file that cannot be read or parsed (named by line).
pub fn read_index(dir: &Path) -> Result<Vec<TableRow>, InputError> {
    let path = dir.join("winrates.csv");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(InputError::new(InputKind::File, format!("cannot read: {e}")).at(&path))
        }
    };
    let mut r = csv::Reader::from_reader(text.as_bytes());
    r.deserialize()
        .map(|row| {
            row.map_err(|e| {
                let line = e.position().map_or(0, |p| p.line());
                InputError::new(InputKind::Report, e.to_string())
                    .at(&path)
                    .on_line(line as usize)
            })
        })
        .collect()
}

/// Writes the tables of `rows` into `dir`: each one's bit file, and its line of
/// `winrates.csv` (replacing the line of the same group and range; the lines sorted). Returns
/// the files written.
///
/// # Errors
/// See [`tables`]; a directory or file that cannot be written.
pub fn write(dir: &Path, rows: &[Row], allow_unknown: bool) -> Result<Vec<PathBuf>, crate::Error> {
    let new = tables(rows, allow_unknown)?;
    std::fs::create_dir_all(dir)?;
    let mut index = read_index(dir)?;
    let mut written = Vec::new();
    for t in new {
        let path = dir.join(&t.row.bits);
        std::fs::write(&path, &t.bits)?;
        written.push(path);
        index.retain(|r| {
            (&r.variant, &r.numbering, &r.options, r.first, r.last)
                != (
                    &t.row.variant,
                    &t.row.numbering,
                    &t.row.options,
                    t.row.first,
                    t.row.last,
                )
        });
        index.push(t.row);
    }
    index.sort_by(|a, b| {
        (&a.variant, &a.numbering, &a.options, a.first).cmp(&(
            &b.variant,
            &b.numbering,
            &b.options,
            b.first,
        ))
    });
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in &index {
        w.serialize(r).map_err(std::io::Error::other)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let path = dir.join("winrates.csv");
    std::fs::write(&path, bytes)?;
    written.push(path);
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(seed: u64, verdict: &str) -> Row {
        let mut r = crate::batch::rows_from(
            format!(
                "{}\n{seed},beleaguered-castle,1,false,single,{verdict},,1,1,1,4,,castle,,,\n",
                crate::batch::HEADER
            )
            .as_bytes(),
            "t",
        )
        .unwrap();
        r.remove(0)
    }

    #[test]
    fn bits_say_which_deals_are_winnable() {
        let rows: Vec<Row> = (5..=15)
            .map(|s| row(s, if s % 3 == 0 { "solvable" } else { "unsolvable" }))
            .chain([row(9, "unknown")])
            .collect();
        let t = tables(&rows, false).unwrap();
        assert_eq!(t.len(), 1);
        let t = &t[0];
        assert_eq!((t.row.first, t.row.last, t.row.deals), (5, 15, 11));
        // 6, 9, 12 and 15 (9's `unknown` row does not count over its decided one).
        assert_eq!((t.row.won, t.row.lost), (4, 7));
        assert_eq!(t.bits.len(), 2);
        for s in 5..=15 {
            assert_eq!(winnable(&t.bits, 5, 15, s), Some(s % 3 == 0), "deal {s}");
        }
        assert_eq!(winnable(&t.bits, 5, 15, 16), None);
        assert_eq!(t.row.bits, "beleaguered-castle-castle-5-15.bits");
        // 4 of 11, by hand: 36.3636%.
        assert!((t.row.win_rate - 36.3636).abs() < 1e-9);
    }

    #[test]
    fn an_unknown_deal_allowed_is_listed_and_widens_the_interval() {
        // Deals 1..=10: 1, 2 and 3 won, 4 unknown (its retried row too), the rest lost.
        let rows: Vec<Row> = (1..=10)
            .map(|s| match s {
                1..=3 => row(s, "solvable"),
                4 => row(s, "unknown"),
                _ => row(s, "unsolvable"),
            })
            .chain([row(4, "unknown")])
            .collect();
        let t = &tables(&rows, true).unwrap()[0];
        let r = &t.row;
        assert_eq!((r.deals, r.won, r.lost, r.unknown), (10, 3, 6, 1));
        assert_eq!(r.unknown_deals, "4");
        assert_eq!(r.unknown_seeds().unwrap(), vec![4]);
        assert_eq!(winnable(&t.bits, 1, 10, 4), Some(false));
        // 3 of the 9 decided; the interval runs from 3 of 10's low end to 4 of 10's high end.
        assert!((r.win_rate - 33.3333).abs() < 1e-9);
        let (lo3, hi3) = wilson(3, 10);
        let (_, hi4) = wilson(4, 10);
        assert!((r.wilson_low - 100.0 * lo3).abs() < 1e-3);
        assert!((r.wilson_high - 100.0 * hi4).abs() < 1e-3);
        assert!(r.wilson_high > 100.0 * hi3 + 1.0);
        // Written and read back: the columns survive; a file without them reads as none.
        let dir = std::env::temp_dir().join(format!("castle-winrates-{}", std::process::id()));
        write(&dir, &rows, true).unwrap();
        let text = std::fs::read_to_string(dir.join("winrates.csv")).unwrap();
        assert_eq!(text.lines().next(), Some(HEADER));
        let back = read_index(&dir).unwrap();
        assert_eq!(back, vec![r.clone()]);
        let old = "variant,numbering,options,first,last,deals,won,lost,win_rate,wilson_low,wilson_high,bits\n\
                   fortress,castle,x,1,2,2,1,1,50.0,1.0,99.0,f.bits\n";
        std::fs::write(dir.join("winrates.csv"), old).unwrap();
        let back = read_index(&dir).unwrap();
        assert_eq!((back[0].unknown, back[0].unknown_deals.as_str()), (0, ""));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_gap_or_an_unknown_deal_is_refused() {
        let gap = [row(1, "solvable"), row(3, "solvable")];
        let e = tables(&gap, true).unwrap_err().to_string();
        assert!(e.contains("no row for deal 2"), "{e}");
        let unknown = [row(1, "solvable"), row(2, "unknown")];
        let e = tables(&unknown, false).unwrap_err().to_string();
        assert!(e.contains("deal 2 is unknown"), "{e}");
        let both = [row(1, "solvable"), row(1, "unsolvable")];
        assert!(tables(&both, true)
            .unwrap_err()
            .to_string()
            .contains("both verdicts"));
    }
}
