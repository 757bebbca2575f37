//! `castle deal --winnable`: the command-line side of [`castle::winnable`] (the flags, and
//! what is printed).

use super::{DealArgs, DealFormat};
use castle::difficulty::Tier;
use castle::winnable::{Finder, Found};
use castle::{formats, render, report, Deal, InputError, InputKind};
use clap::{Args, ValueEnum};
use std::io::Write;

/// The flags of `castle deal --winnable`.
#[derive(Args, Debug, Clone)]
pub struct WinnableArgs {
    /// A winnable deal only: the first at or after --seed (default 1), or one drawn with
    /// --random. Looked up in the published tables where they reach, else solved (winnable
    /// only with a win the checker replays).
    #[arg(long, conflicts_with = "deal")]
    pub winnable: bool,
    /// Draw the winnable deal(s) at random from the table's range (1..100000 without one;
    /// the draw's seed is printed on standard error).
    #[arg(long, requires = "winnable", conflicts_with = "seed")]
    pub random: bool,
    /// The seed of the random draw, to draw the same deals again.
    #[arg(long, requires = "random", value_name = "N")]
    pub random_seed: Option<u64>,
    /// This many winnable deals, one line each: number, difficulty, and how it was found
    /// (`table` or `solve`); JSON lines with --format json.
    #[arg(long, requires = "winnable", value_name = "N")]
    pub count: Option<usize>,
    /// Only deals of this difficulty (docs/difficulty.md: tiers of how often a simple
    /// player wins them, cut by thirds over each table).
    #[arg(long, requires = "winnable", value_enum)]
    pub difficulty: Option<TierArg>,
}

/// `--difficulty`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TierArg {
    /// The top third: the simple player wins them most often.
    Easy,
    /// The middle third.
    Medium,
    /// The bottom third.
    Hard,
}

impl From<TierArg> for Tier {
    fn from(t: TierArg) -> Tier {
        match t {
            TierArg::Easy => Tier::Easy,
            TierArg::Medium => Tier::Medium,
            TierArg::Hard => Tier::Hard,
        }
    }
}

/// Runs `castle deal --winnable`.
pub fn run(a: &DealArgs, out: &mut impl Write) -> Result<(), castle::Error> {
    let w = &a.winnable;
    let src = &a.source;
    let variant =
        super::parse_variant(src.variant.as_deref())?.unwrap_or(castle::Variant::BeleagueredCastle);
    let rules = src.rules.to_rules(variant)?;
    let numbering = src.numbering();
    let mut finder = Finder::new(rules, numbering, w.difficulty.map(Into::into))
        .map_err(|e| e.with_flag("--difficulty"))?;
    let count = w.count.unwrap_or(1);
    if count == 0 {
        return Err(InputError::new(InputKind::Usage, "--count must be at least 1").into());
    }
    let found = if w.random {
        let seed = w.random_seed.unwrap_or_else(rand::random);
        if w.random_seed.is_none() {
            eprintln!("castle: drawn with --random-seed {seed}");
        }
        finder.random(seed, count)
    } else {
        let start = src.seed.unwrap_or(1);
        finder
            .next_from(start, count)
            .map_err(|e| with_flag(e, &format!("--seed {start}")))
    }?;
    if !finder.undecided.is_empty() {
        eprintln!(
            "castle: passed over {} deal(s) the solver's budget did not decide: {}",
            finder.undecided.len(),
            castle::text::Cut(
                &finder
                    .undecided
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        );
    }
    if w.count.is_some() {
        for f in &found {
            write_line(out, a, &rules, f)?;
        }
        return Ok(());
    }
    let f = found[0];
    let deal = Deal::numbered(rules, numbering, f.seed)?;
    eprintln!(
        "castle: deal {} is winnable ({}){}",
        f.seed,
        match f.by {
            castle::winnable::By::Table => "by the table",
            castle::winnable::By::Solve => "solved, the win replayed",
        },
        f.tier.map_or(String::new(), |t| format!(", {t}"))
    );
    match a.format {
        _ if a.board => write!(out, "{}", render::draw_board(&deal, super::color()))?,
        DealFormat::Text => {
            out.write_all(formats::write_text_numbered(&deal, numbering).as_bytes())?
        }
        DealFormat::Fcs => {
            let board = formats::write_fcs(&deal).map_err(|e| e.with_flag("--format fcs"))?;
            out.write_all(board.as_bytes())?;
        }
        DealFormat::Json => report::write_deal(out, &deal, numbering)?,
    }
    Ok(())
}

fn with_flag(e: castle::Error, flag: &str) -> castle::Error {
    match e {
        castle::Error::Input(i) => castle::Error::Input(i.with_flag(flag.to_string())),
        e => e,
    }
}

/// One line of `--count`: text or a JSON object.
fn write_line(
    out: &mut impl Write,
    a: &DealArgs,
    rules: &castle::Rules,
    f: &Found,
) -> Result<(), castle::Error> {
    let tier = f.tier.map_or("-", Tier::name);
    if a.format == DealFormat::Json {
        let v = serde_json::json!({
            "variant": rules.variant.name(),
            "numbering": a.source.numbering().name(),
            "seed": f.seed,
            "winnable": true,
            "difficulty": f.tier.map(Tier::name),
            "by": f.by.name(),
        });
        writeln!(out, "{v}")?;
    } else {
        writeln!(out, "{} {tier} {}", f.seed, f.by.name())?;
    }
    Ok(())
}
