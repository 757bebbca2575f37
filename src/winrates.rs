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
//!
//! # Deciding a table's unknown deals later
//! The batch file a table came from can be large and gone; the table alone says every
//! deal's verdict (a clear bit is lost unless the row lists the deal as unknown). So
//! `castle stats ROWS --table DIR --update` takes the rows of a later run over a table's
//! unknown deals (`castle batch --seeds LIST`) and writes the table again with them decided.
//! A decided row of a deal the table has decided must agree with it, and a row of a deal
//! outside every table is refused: an update decides unknowns and never changes a verdict.
//!
//! # Joining tables
//! A million deals can be run as ranges of their own (a quarter a session), each written as
//! its table; `castle stats --table DIR --join FIRST..LAST` then writes the table of the
//! whole range from tables that follow each other, deal for deal: the bits of each, the
//! counts summed, the certified losses summed (unknown when a part does not count them).

use crate::interval::wilson;
use crate::rows::Row;
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
    /// Lost deals whose row says their certificate passed the independent checker
    /// (`castle batch --certify`); empty for a table made without certifying (and in files
    /// written before the column existed).
    #[serde(default)]
    pub certified: Option<u64>,
    /// Lost deals whose row says their certificate was tried and not made (`certified`
    /// false), separated by spaces: a later `--certify` run over them and `--update` count
    /// them in.
    #[serde(default)]
    pub uncertified_deals: String,
}

impl TableRow {
    /// The numbers of the deals the table leaves unknown (their bits are clear).
    ///
    /// # Errors
    /// A number that does not parse, named.
    pub fn unknown_seeds(&self) -> Result<Vec<u64>, InputError> {
        seeds_of(&self.unknown_deals, &self.bits, "unknown")
    }

    /// The numbers of the lost deals whose certificate was not made.
    ///
    /// # Errors
    /// A number that does not parse, named.
    pub fn uncertified_seeds(&self) -> Result<Vec<u64>, InputError> {
        seeds_of(&self.uncertified_deals, &self.bits, "uncertified")
    }
}

/// Deal numbers separated by spaces (a column of `winrates.csv`).
fn seeds_of(list: &str, bits: &str, what: &str) -> Result<Vec<u64>, InputError> {
    list.split_whitespace()
        .map(|s| {
            s.parse().map_err(|_| {
                InputError::new(
                    InputKind::Report,
                    format!("{bits}: {what} deal '{s}' is not a deal number"),
                )
            })
        })
        .collect()
}

/// The header of `winrates.csv`.
pub const HEADER: &str = "variant,numbering,options,first,last,deals,won,lost,unknown,win_rate,wilson_low,wilson_high,bits,unknown_deals,certified,uncertified_deals";

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

/// A group of rows (variant, numbering, options) and each of its deals' verdict
/// (`None`: unknown).
type Groups = BTreeMap<(String, String, String), BTreeMap<u64, Option<bool>>>;

/// The lost deals of each group whose row says they were certified.
type Certified = BTreeMap<(String, String, String), std::collections::BTreeSet<u64>>;

/// The lost deals of each group of `rows` that a row says were certified (`yes`), or were
/// tried and not (`!yes`, and no row of the deal says it was).
fn certified(rows: &[Row], yes: bool) -> Certified {
    let mut c = Certified::new();
    for r in rows {
        if r.verdict == "unsolvable" && r.certified == Some(yes) {
            let key = (r.variant.clone(), r.numbering.clone(), options(r));
            c.entry(key).or_default().insert(r.seed);
        }
    }
    if !yes {
        for (key, sure) in certified(rows, true) {
            if let Some(not) = c.get_mut(&key) {
                not.retain(|s| !sure.contains(s));
            }
        }
    }
    c
}

/// The rows grouped, a seed's decided row counting over its `unknown` ones (a retried deal),
/// as in `castle stats`.
///
/// # Errors
/// A deal with rows of both verdicts.
fn groups(rows: &[Row]) -> Result<Groups, InputError> {
    let mut groups = Groups::new();
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
    Ok(groups)
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
    let (certified, not) = (certified(rows, true), certified(rows, false));
    groups(rows)?
        .into_iter()
        .map(|(key, seeds)| {
            let sure = certified.get(&key).map(|c| c.len() as u64);
            let not: Vec<u64> = not.get(&key).into_iter().flatten().copied().collect();
            let (variant, numbering, opts) = key;
            table(
                variant,
                numbering,
                opts,
                &seeds,
                allow_unknown,
                (sure, &not),
            )
        })
        .collect()
}

/// The table of one group's deals (see [`tables`]).
fn table(
    variant: String,
    numbering: String,
    opts: String,
    seeds: &BTreeMap<u64, Option<bool>>,
    allow_unknown: bool,
    (certified, uncertified): (Option<u64>, &[u64]),
) -> Result<Table, InputError> {
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
    for (&s, v) in seeds {
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
    Ok(Table {
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
            certified,
            uncertified_deals: uncertified
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(" "),
        },
        bits,
    })
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
    let index = read_index(dir)?;
    store(dir, new, index)
}

/// Writes each table's bit file into `dir` and its row into `index` (in place of the row of
/// the same group and range), then `index` as `winrates.csv`; returns the files written.
fn store(
    dir: &Path,
    tables: Vec<Table>,
    mut index: Vec<TableRow>,
) -> Result<Vec<PathBuf>, crate::Error> {
    let mut written = Vec::new();
    for t in tables {
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
    written.push(write_index(dir, index)?);
    Ok(written)
}

/// Writes `winrates.csv` of `dir` from `index`, sorted; returns its path.
fn write_index(dir: &Path, mut index: Vec<TableRow>) -> Result<PathBuf, crate::Error> {
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
    Ok(path)
}

/// Each deal's verdict in a published table: its bit, or `None` for a deal its row lists
/// as unknown.
///
/// # Errors
/// A bit file that cannot be read, or that disagrees with its row (length or winnable
/// count).
fn read_table(dir: &Path, row: &TableRow) -> Result<BTreeMap<u64, Option<bool>>, crate::Error> {
    let path = dir.join(&row.bits);
    let bits = std::fs::read(&path)
        .map_err(|e| InputError::new(InputKind::File, format!("cannot read: {e}")).at(&path))?;
    let bad = |why: String| InputError::new(InputKind::Report, why).at(&path);
    if bits.len() as u64 != row.deals.div_ceil(8) || row.deals != row.last + 1 - row.first {
        return Err(bad(format!(
            "{} bytes, but winrates.csv gives it deals {}..{}",
            bits.len(),
            row.first,
            row.last
        ))
        .into());
    }
    let unknown = row.unknown_seeds()?;
    let mut seeds: BTreeMap<u64, Option<bool>> = (row.first..=row.last)
        .map(|s| (s, winnable(&bits, row.first, row.last, s)))
        .collect();
    for s in unknown {
        match seeds.get_mut(&s) {
            Some(v @ Some(false)) => *v = None,
            _ => {
                return Err(bad(format!(
                    "winrates.csv lists deal {s} as unknown, but it is outside the range or its bit is set"
                ))
                .into())
            }
        }
    }
    let won = seeds.values().filter(|v| **v == Some(true)).count() as u64;
    if won != row.won {
        return Err(bad(format!(
            "{won} deals winnable, but winrates.csv says {}",
            row.won
        ))
        .into());
    }
    Ok(seeds)
}

/// Decides unknown deals of the tables already in `dir` from `rows` (see "Deciding a
/// table's unknown deals later"): a decided row of a deal a table lists as unknown sets its
/// verdict, and the table's bits and row are written again. Returns the files written.
///
/// # Errors
/// A row whose deal no table of its variant, numbering and options holds; a decided row
/// that disagrees with a table's verdict; a table's files that cannot be read or written.
pub fn update(dir: &Path, rows: &[Row]) -> Result<Vec<PathBuf>, crate::Error> {
    let new = groups(rows)?;
    let newly = certified(rows, true);
    let newly_not = certified(rows, false);
    let mut index = read_index(dir)?;
    let mut writes = Vec::new();
    for ((variant, numbering, opts), verdicts) in &new {
        let held = |r: &TableRow, s: u64| {
            (&r.variant, &r.numbering, &r.options) == (variant, numbering, opts)
                && (r.first..=r.last).contains(&s)
        };
        if let Some(s) = verdicts
            .keys()
            .find(|&&s| !index.iter().any(|r| held(r, s)))
        {
            return Err(InputError::new(
                InputKind::Report,
                format!(
                    "{variant} {numbering} {opts} deal {s}: no table in {} holds it (--update decides a table's unknown deals; a new table wants every deal of its range, without --update)",
                    dir.display()
                ),
            )
            .into());
        }
        for row in index.iter_mut() {
            if !verdicts.keys().any(|&s| held(row, s)) {
                continue;
            }
            let mut seeds = read_table(dir, row)?;
            // The table's certified losses and those of the deals the rows decide or certify
            // (a lost deal's row, certified, of a deal the table had unknown or uncertified);
            // the uncertified ones, less those, with the rows' new ones.
            let mut sure = row.certified;
            let mut not = row.uncertified_seeds()?;
            let key = (variant.clone(), numbering.clone(), opts.clone());
            for (&s, &v) in verdicts.range(row.first..=row.last) {
                let open = seeds[&s].is_none() || not.contains(&s);
                if v == Some(false) && open && newly.get(&key).is_some_and(|c| c.contains(&s)) {
                    sure = Some(sure.unwrap_or(0) + 1);
                    not.retain(|&n| n != s);
                } else if v == Some(false)
                    && seeds[&s].is_none()
                    && newly_not.get(&key).is_some_and(|c| c.contains(&s))
                {
                    not.push(s);
                }
                match (seeds[&s], v) {
                    (Some(a), Some(b)) if a != b => {
                        let says = |w: bool| if w { "winnable" } else { "lost" };
                        return Err(InputError::new(
                            InputKind::Report,
                            format!(
                                "{variant} {numbering} {opts} deal {s}: {} says {}, a row says {}",
                                row.bits,
                                says(a),
                                says(b)
                            ),
                        )
                        .into());
                    }
                    (None, Some(b)) => {
                        seeds.insert(s, Some(b));
                    }
                    _ => {}
                }
            }
            not.sort_unstable();
            let t = table(
                variant.clone(),
                numbering.clone(),
                opts.clone(),
                &seeds,
                true,
                (sure, &not),
            )?;
            // Written only once every table is checked: a refusal leaves the files as
            // they were.
            writes.push((dir.join(&row.bits), t.bits));
            *row = TableRow {
                bits: row.bits.clone(),
                ..t.row
            };
        }
    }
    let mut written = Vec::new();
    for (path, bits) in writes {
        std::fs::write(&path, bits)?;
        written.push(path);
    }
    written.push(write_index(dir, index)?);
    Ok(written)
}

/// Joins tables of `dir` into one of `first..=last` (see "Joining tables"): for each group
/// (variant, numbering, options), a chain of its tables, each starting the deal after the
/// last one ends, from `first` to `last`. Writes the joined table's bits and row (the parts
/// stay) and returns the files written.
///
/// # Errors
/// No group whose tables cover the range so; a part that does not read back (see
/// [`read_table`]); a file that cannot be written.
pub fn join(dir: &Path, first: u64, last: u64) -> Result<Vec<PathBuf>, crate::Error> {
    let index = read_index(dir)?;
    let mut groups: Vec<(String, String, String)> = index
        .iter()
        .map(|r| (r.variant.clone(), r.numbering.clone(), r.options.clone()))
        .collect();
    groups.sort();
    groups.dedup();
    let mut joined = Vec::new();
    for (variant, numbering, opts) in groups {
        let parts: Vec<&TableRow> = index
            .iter()
            .filter(|r| (&r.variant, &r.numbering, &r.options) == (&variant, &numbering, &opts))
            .collect();
        let Some(chain) = chain(&parts, first, last) else {
            continue;
        };
        if let [one] = chain[..] {
            if (one.first, one.last) == (first, last) {
                continue;
            }
        }
        let mut seeds = BTreeMap::new();
        let mut certified = Some(0);
        let mut not = Vec::new();
        for part in &chain {
            seeds.extend(read_table(dir, part)?);
            certified = certified.zip(part.certified).map(|(a, b)| a + b);
            not.extend(part.uncertified_seeds()?);
        }
        let any_unknown = seeds.values().any(Option::is_none);
        joined.push(table(
            variant,
            numbering,
            opts,
            &seeds,
            any_unknown,
            (certified, &not),
        )?);
    }
    if joined.is_empty() {
        return Err(InputError::new(
            InputKind::Report,
            format!(
                "no tables in {} join into deals {first}..{last}: the parts must be of one variant, numbering and options, each starting the deal after the last one ends",
                dir.display()
            ),
        )
        .into());
    }
    store(dir, joined, index)
}

/// Tables of `parts` that follow each other from deal `first` to deal `last`, if some do
/// (the longest first, so a quarter is taken over the tenth inside it).
fn chain<'a>(parts: &[&'a TableRow], first: u64, last: u64) -> Option<Vec<&'a TableRow>> {
    let mut next: Vec<&TableRow> = parts
        .iter()
        .copied()
        .filter(|r| r.first == first && r.last <= last)
        .collect();
    next.sort_by_key(|r| std::cmp::Reverse(r.last));
    for r in next {
        if r.last == last {
            return Some(vec![r]);
        }
        if let Some(mut rest) = chain(parts, r.last + 1, last) {
            rest.insert(0, r);
            return Some(rest);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row as a file written before the `certified` column has it.
    fn row(seed: u64, verdict: &str) -> Row {
        let mut r = crate::rows::rows_from(
            format!(
                "{}\n{seed},beleaguered-castle,1,false,single,{verdict},,1,1,1,4,,castle,,,\n",
                crate::rows::HEADER_V3
            )
            .as_bytes(),
            "t",
        )
        .unwrap();
        r.remove(0)
    }

    #[test]
    fn a_table_counts_its_certified_losses() {
        let certified = |seed: u64, yes: Option<bool>| Row {
            certified: yes,
            ..row(seed, "unsolvable")
        };
        let rows = vec![
            row(1, "solvable"),
            certified(2, Some(true)),
            certified(3, Some(false)),
            certified(4, Some(true)),
            // A won deal's row never says certified; one that did would not count.
            Row {
                certified: Some(true),
                ..row(5, "solvable")
            },
        ];
        let t = tables(&rows, false).unwrap();
        assert_eq!((t[0].row.lost, t[0].row.certified), (3, Some(2)));
        assert_eq!(t[0].row.uncertified_deals, "3");
        // A table made without certifying says nothing of it.
        let plain: Vec<Row> = (1..=3).map(|s| row(s, "unsolvable")).collect();
        assert_eq!(tables(&plain, false).unwrap()[0].row.certified, None);
        // The line in winrates.csv ends with the count.
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &rows, false).unwrap();
        let index = std::fs::read_to_string(dir.path().join("winrates.csv")).unwrap();
        assert_eq!(index.lines().next(), Some(HEADER));
        assert!(index.lines().nth(1).unwrap().ends_with(",2,3"), "{index}");
        assert_eq!(read_index(dir.path()).unwrap()[0].certified, Some(2));
        // Deal 3 certified by a later run: --update counts it and lists it no more; a
        // second update with the same row does not count it twice.
        let later = vec![certified(3, Some(true))];
        update(dir.path(), &later).unwrap();
        update(dir.path(), &later).unwrap();
        let row = &read_index(dir.path()).unwrap()[0];
        assert_eq!(
            (row.certified, row.uncertified_deals.as_str()),
            (Some(3), "")
        );
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

    #[test]
    fn an_update_decides_unknown_deals_and_changes_no_verdict() {
        let dir = std::env::temp_dir().join(format!("castle-update-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // Deals 1..=12: 3, 6, 9, 12 won; 4 and 7 unknown; the rest lost.
        let verdict = |s: u64| match s {
            4 | 7 => "unknown",
            s if s % 3 == 0 => "solvable",
            _ => "unsolvable",
        };
        let rows: Vec<Row> = (1..=12).map(|s| row(s, verdict(s))).collect();
        write(&dir, &rows, true).unwrap();
        let bits = "beleaguered-castle-castle-1-12.bits";
        let before = std::fs::read(dir.join(bits)).unwrap();
        // A deal outside every table, or one that contradicts the table: refused, nothing
        // written.
        let e = update(&dir, &[row(13, "solvable")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("deal 13: no table"), "{e}");
        let e = update(&dir, &[row(4, "solvable"), row(6, "unsolvable")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("deal 6") && e.contains("says winnable"), "{e}");
        assert_eq!(std::fs::read(dir.join(bits)).unwrap(), before);
        // A second table over deals 3..=5 that has deal 5 won: a row with 5 lost agrees with
        // the first table (checked first) and is refused by the second, and the first
        // table's deal 4 is not written either.
        let inner = [row(3, "solvable"), row(4, "unknown"), row(5, "solvable")];
        write(&dir, &inner, true).unwrap();
        let e = update(&dir, &[row(4, "solvable"), row(5, "unsolvable")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("deal 5") && e.contains("3-5.bits"), "{e}");
        assert_eq!(std::fs::read(dir.join(bits)).unwrap(), before);
        std::fs::remove_file(dir.join("beleaguered-castle-castle-3-5.bits")).unwrap();
        let mut index = read_index(&dir).unwrap();
        index.retain(|r| r.first == 1);
        write_index(&dir, index).unwrap();
        // 4 decided won, 7 tried again and still unknown, 5 repeated as the table has it.
        update(
            &dir,
            &[row(4, "solvable"), row(7, "unknown"), row(5, "unsolvable")],
        )
        .unwrap();
        let r = read_index(&dir).unwrap().remove(0);
        assert_eq!((r.won, r.lost, r.unknown), (5, 6, 1));
        assert_eq!(r.unknown_deals, "7");
        // The same table as a batch with those rows would have written.
        let mut all = rows.clone();
        all.push(row(4, "solvable"));
        let fresh = &tables(&all, true).unwrap()[0];
        assert_eq!(r, fresh.row);
        assert_eq!(std::fs::read(dir.join(bits)).unwrap(), fresh.bits);
        // The last one: the table has no unknown deal left.
        update(&dir, &[row(7, "unsolvable")]).unwrap();
        let r = read_index(&dir).unwrap().remove(0);
        assert_eq!(
            (r.won, r.lost, r.unknown, r.unknown_deals.as_str()),
            (5, 7, 0, "")
        );
        // A bit file that disagrees with its row is named.
        std::fs::write(dir.join(bits), [0u8, 0]).unwrap();
        let e = update(&dir, &[row(1, "unsolvable")])
            .unwrap_err()
            .to_string();
        assert!(e.contains(bits) && e.contains("0 deals winnable"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
