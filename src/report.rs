//! The machine-readable results: the JSON contract of `castle solve --format json` (read back
//! by `castle verify`), and the JSON of `castle deal --format json` and `castle analyze
//! --format json`. The text a player reads is [`crate::render`]'s.

use crate::analyze::Analysis;
use crate::card::Card;
use crate::check::Step;
use crate::deal::{Deal, Numbering};
use crate::pile::Pile;
use crate::solver::{Outcome, Verdict};
use crate::{Error, InputError};
use serde::{Deserialize, Serialize};
use std::io::Write;

/// The `options` object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OptionsJson {
    /// Foundations start holding A..start_rank.
    pub start_rank: u8,
    /// Foundation cards may come back.
    pub foundation_return: bool,
    /// `"single"` (or, with that option, `"unlimited"`).
    pub sequence_moves: String,
}

/// The `deal` object: every list bottom to top.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealJson {
    /// Tableau piles t1..tN.
    pub tableau: Vec<Vec<String>>,
    /// Foundations by suit C, D, H, S (with two decks 8 piles: C, D, H, S, then C, D, H, S).
    pub foundations: Vec<Vec<String>>,
    /// Reserve cells (the cards in them; empty for games without cells).
    #[serde(default)]
    pub reserve: Vec<String>,
    /// Stock, next card first (empty for games without one).
    #[serde(default)]
    pub stock: Vec<String>,
    /// Waste, bottom to top (empty for games without one).
    #[serde(default)]
    pub waste: Vec<String>,
}

/// One move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveJson {
    /// The card.
    pub card: String,
    /// Source pile.
    pub from: Pile,
    /// Destination pile.
    pub to: Pile,
    /// Cards moved at once (a run under unlimited sequence moves); absent for one card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<usize>,
}

/// The whole result object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Variant name.
    pub variant: String,
    /// Deal number, or null for a deal read from a file.
    pub seed: Option<u64>,
    /// Whose number `seed` is: `castle` or `pysol` (absent for a deal read from a file, and
    /// in reports written before it existed, which are all `castle`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numbering: Option<String>,
    /// Rule options.
    pub options: OptionsJson,
    /// The deal as dealt.
    pub deal: DealJson,
    /// `solvable`, `unsolvable` or `unknown`.
    pub verdict: String,
    /// Every move, automatic foundation moves and fills included (single cards, except runs
    /// under unlimited sequence moves, which carry a `count`).
    pub moves: Vec<MoveJson>,
    /// For a win castle searched for: the number of moves of the search's first win, before
    /// the shortening (at least the length of `moves`; equal with `--raw`). Absent otherwise,
    /// and in reports written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_win_moves: Option<usize>,
    /// True when the time budget stopped the shortening of the win: `moves` is the best line
    /// it had. Absent otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shortening_cut: bool,
    /// Nodes searched.
    pub nodes: u64,
    /// States stored.
    pub states: u64,
    /// Seconds taken.
    pub seconds: f64,
    /// CPU seconds taken (user and system; see `Outcome::cpu_seconds`). Absent for a line no
    /// search made, and in reports written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_seconds: Option<f64>,
    /// For `unknown`: `nodes`, `seconds` or `memory`.
    pub limit: Option<String>,
    /// Cards on the foundations at the best point any searched line reached (all of them for
    /// a win); absent for a line no search made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<u8>,
    /// The phase that decided the deal: `quick` or `complete` (null for `unknown`; absent in
    /// reports written before the quick phase existed).
    #[serde(default)]
    pub phase: Option<String>,
    /// The nodes each phase of the schedule spent (they add up to `nodes`): absent for a
    /// line no search made, and in reports written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spent: Option<SpentJson>,
    /// The pass of a batch that decided the deal (`castle batch`'s rows, from 1): absent
    /// elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass: Option<u8>,
    /// For a lost deal of a batch that certifies its losses (`castle batch --certify`):
    /// whether its certificate passed the independent checker. Absent elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certified: Option<bool>,
    /// The short-solution search (`--short`), when it ran: absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short: Option<ShortJson>,
    /// The layered search's spill directory (`--spill`), when it had one: absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spill: Option<SpillJson>,
    /// Where a line that castle did not find came from (`verify --fc-solve --format json`):
    /// absent in castle's own reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// The nodes each phase of a solve spent (see `crate::solver::Spent`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpentJson {
    /// The quick phase.
    pub quick: u64,
    /// The portfolio's members.
    pub portfolio: u64,
    /// The suit-blind quotient.
    pub quotient: u64,
    /// The depth-first attempts (or the layered search).
    pub attempts: u64,
    /// The probes.
    pub probes: u64,
}

/// What the short-solution search did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShortJson {
    /// Positions it expanded.
    pub nodes: u64,
    /// True when it proved that no win is shorter than `moves`.
    pub shortest: bool,
}

/// What the spill directory held (see `crate::solver::DiskUse`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpillJson {
    /// Most bytes in its files at once.
    pub peak_bytes: u64,
    /// Bytes written in all.
    pub written_bytes: u64,
    /// Classes that went on on disk.
    pub classes_on_disk: u32,
    /// For limit `disk`: what the file system answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Taken up from a checkpoint: the nodes searched before it (counted in `nodes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed_from: Option<u64>,
}

fn names(cards: &[Card]) -> Vec<String> {
    cards.iter().map(Card::to_string).collect()
}

impl DealJson {
    /// The deal object of a deal.
    pub fn of(deal: &Deal) -> DealJson {
        DealJson {
            tableau: deal.tableau.iter().map(|p| names(p)).collect(),
            foundations: (0..deal.rules.foundation_piles())
                .map(|p| names(&deal.foundation_cards(p)))
                .collect(),
            reserve: names(&deal.reserve),
            stock: names(&deal.stock),
            waste: names(&deal.waste),
        }
    }
}

impl OptionsJson {
    /// The options object of a deal's rules.
    pub fn of(deal: &Deal) -> OptionsJson {
        let o = deal.rules.options;
        OptionsJson {
            start_rank: o.start_rank,
            foundation_return: o.foundation_return,
            sequence_moves: o.sequence_moves.name().to_string(),
        }
    }
}

/// The `moves` list of a line.
fn moves_json(moves: &[crate::moves::Move]) -> Vec<MoveJson> {
    crate::check::steps_of(moves)
        .into_iter()
        .map(|s| MoveJson {
            card: s.card.to_string(),
            from: s.from,
            to: s.to,
            count: (s.count > 1).then_some(s.count),
        })
        .collect()
}

impl Report {
    /// The report of a solve.
    pub fn new(deal: &Deal, out: &Outcome) -> Report {
        Report {
            variant: deal.rules.variant.name().to_string(),
            seed: deal.seed,
            numbering: deal.seed.map(|_| Numbering::Castle.name().to_string()),
            score: Some(if out.verdict == Verdict::Solvable {
                deal.rules.cards() as u8
            } else {
                out.best_home
            }),
            options: OptionsJson::of(deal),
            deal: DealJson::of(deal),
            verdict: out.verdict.name().to_string(),
            moves: moves_json(&out.moves),
            first_win_moves: out.first_len,
            shortening_cut: out.shorten_cut,
            nodes: out.nodes,
            states: out.states,
            seconds: (out.seconds * 1e6).round() / 1e6,
            cpu_seconds: Some((out.cpu_seconds * 1e6).round() / 1e6),
            limit: out.limit.map(|l| l.name().to_string()),
            phase: out.phase.map(|p| p.name().to_string()),
            spent: Some(SpentJson {
                quick: out.spent.quick,
                portfolio: out.spent.portfolio,
                quotient: out.spent.quotient,
                attempts: out.spent.attempts,
                probes: out.spent.probes,
            }),
            pass: None,
            certified: None,
            short: out.short_nodes.map(|nodes| ShortJson {
                nodes,
                shortest: out.shortest,
            }),
            spill: out.disk.as_ref().map(|d| SpillJson {
                peak_bytes: d.peak_bytes,
                written_bytes: d.written,
                classes_on_disk: d.classes,
                error: d.error.clone(),
                resumed_from: d.resumed_from,
            }),
            source: None,
        }
    }

    /// The report of a winning line found elsewhere and replayed (the checker's job, not
    /// this function's), with `source` saying where it came from: verdict `solvable`, no
    /// search figures (0) and no phase.
    pub fn replayed(deal: &Deal, moves: &[crate::moves::Move], source: String) -> Report {
        Report {
            source: Some(source),
            ..Report::line(deal, Verdict::Solvable, moves_json(moves))
        }
    }

    /// The report of a line no search made (a replayed win, a saved game): no search
    /// figures (0), no phase, no source.
    pub fn line(deal: &Deal, verdict: Verdict, moves: Vec<MoveJson>) -> Report {
        Report {
            variant: deal.rules.variant.name().to_string(),
            seed: deal.seed,
            numbering: deal.seed.map(|_| Numbering::Castle.name().to_string()),
            score: None,
            options: OptionsJson::of(deal),
            deal: DealJson::of(deal),
            verdict: verdict.name().to_string(),
            moves,
            first_win_moves: None,
            shortening_cut: false,
            nodes: 0,
            states: 0,
            seconds: 0.0,
            cpu_seconds: None,
            limit: None,
            phase: None,
            spent: None,
            pass: None,
            certified: None,
            short: None,
            spill: None,
            source: None,
        }
    }

    /// The report with the deal's number in `numbering` (for a numbered deal).
    pub fn numbered(mut self, numbering: Numbering) -> Report {
        if self.seed.is_some() {
            self.numbering = Some(numbering.name().to_string());
        }
        self
    }

    /// The moves as checker steps.
    ///
    /// # Errors
    /// A move whose card does not parse, named by its number (pile names are read with the
    /// JSON, by [`Pile`]).
    pub fn steps(&self, origin: &str) -> Result<Vec<Step>, InputError> {
        self.moves
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let at =
                    |e: InputError| e.at(origin).map_message(|w| format!("move {}: {w}", i + 1));
                let card = m.card.parse::<Card>().map_err(|e| at(e.into()))?;
                Ok(Step {
                    card,
                    from: m.from,
                    to: m.to,
                    count: m.count.unwrap_or(1),
                })
            })
            .collect()
    }
}

/// Writes the report of a solve as one line of JSON (`numbering`: whose number the deal's
/// seed is).
///
/// # Errors
/// Writing `out`.
pub fn write_report(
    out: &mut impl Write,
    deal: &Deal,
    outcome: &Outcome,
    numbering: Numbering,
) -> Result<(), Error> {
    serde_json::to_writer(&mut *out, &Report::new(deal, outcome).numbered(numbering))?;
    writeln!(out)?;
    Ok(())
}

/// The JSON of `castle deal --format json`.
#[derive(Clone, Debug, Serialize)]
struct DealFileJson {
    variant: &'static str,
    seed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    numbering: Option<&'static str>,
    options: OptionsJson,
    deal: DealJson,
}

/// Writes a deal as `castle deal --format json` prints it (pretty, every object's keys in
/// alphabetical order, as the command has always printed them; `numbering` with the seed).
///
/// # Errors
/// Writing `out`.
pub fn write_deal(out: &mut impl Write, deal: &Deal, numbering: Numbering) -> Result<(), Error> {
    let v = serde_json::to_value(DealFileJson {
        variant: deal.rules.variant.name(),
        seed: deal.seed,
        numbering: deal.seed.map(|_| numbering.name()),
        options: OptionsJson::of(deal),
        deal: DealJson::of(deal),
    })?;
    writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    Ok(())
}

/// The JSON of `castle analyze --format json`.
#[derive(Clone, Debug, Serialize)]
struct AnalysisJson {
    position: DealJson,
    verdict: &'static str,
    limit: Option<&'static str>,
    nodes: u64,
    solution_length: Option<usize>,
    moves: Vec<MoveVerdictJson>,
    critical: bool,
    choices: ChoicesJson,
    difficulty: Option<DifficultyJson>,
}

/// The difficulty of `castle analyze --format json` (see [`crate::difficulty`]).
#[derive(Clone, Debug, Serialize)]
struct DifficultyJson {
    tier: &'static str,
    wins: u32,
    playouts: u32,
}

/// The moves of `castle analyze --format json` as choices (see [`crate::critical`]).
#[derive(Clone, Debug, Serialize)]
struct ChoicesJson {
    total: usize,
    keep: usize,
    lose: usize,
    undecided: usize,
}

/// One move of `castle analyze --format json` and the verdict after it.
#[derive(Clone, Debug, Serialize)]
struct MoveVerdictJson {
    card: String,
    from: Pile,
    to: Pile,
    verdict: &'static str,
    limit: Option<&'static str>,
    nodes: u64,
}

/// Writes an analysis as one line of JSON (every object's keys in alphabetical order, as the
/// command has always printed them).
///
/// # Errors
/// Writing `out`.
pub fn write_analysis(out: &mut impl Write, a: &Analysis) -> Result<(), Error> {
    let whole = &a.whole;
    let v = serde_json::to_value(AnalysisJson {
        position: DealJson::of(&a.position),
        verdict: whole.verdict.name(),
        limit: whole.limit.map(|l| l.name()),
        nodes: whole.nodes,
        solution_length: (whole.verdict == Verdict::Solvable).then_some(whole.moves.len()),
        moves: a
            .moves
            .iter()
            .map(|(s, r)| MoveVerdictJson {
                card: s.card.to_string(),
                from: s.from,
                to: s.to,
                verdict: r.verdict.name(),
                limit: r.limit.map(|l| l.name()),
                nodes: r.nodes,
            })
            .collect(),
        critical: a.choices.critical(),
        choices: ChoicesJson {
            total: a.choices.total,
            keep: a.choices.keep,
            lose: a.choices.lose,
            undecided: a.choices.undecided,
        },
        difficulty: a.difficulty.map(|(t, g)| DifficultyJson {
            tier: t.name(),
            wins: g.wins,
            playouts: g.playouts,
        }),
    })?;
    writeln!(out, "{v}")?;
    Ok(())
}
