//! Deal files in and out: the project's text format, fc-solve boards, Solvitaire JSON and the
//! project's own JSON (a `deal` object, or a whole `solve` report).
//!
//! # The text format (version 1)
//! ```text
//! # comments start with '#'
//! variant: beleaguered-castle
//! seed: 42
//! start-rank: 1
//! foundations: AC AD AH AS
//! t1: KS QS 5D 4D 7D 4C
//! ...
//! t8: 5H QH 6S 3D 4H 2C
//! ```
//! Piles list cards bottom to top. `foundations:` names the top card of each non-empty
//! foundation (`-` or nothing for none; with two decks a suit may be named twice, once per
//! pile). `seed`, `start-rank`, `foundation-return: yes|no` and `sequence-moves:
//! single|unlimited` are optional; `variant` defaults to the one given on the command line,
//! else beleaguered-castle. Variants with cells, a stock or a waste add `reserve:` (the cell
//! cards), `stock:` (next card first) and `waste:` (bottom to top) lines.

use crate::card::{Card, Suit};
use crate::deal::Deal;
use crate::pile::Pile;
use crate::rules::{Rules, SequenceMoves, Variant};
use crate::text::Cut;
use crate::{InputError, InputKind};
use serde_json::Value;
use std::str::FromStr;

/// A deal file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The project's text format.
    Text,
    /// fc-solve's board format.
    Fcs,
    /// JSON: the project's own (`deal` object or solve report) or Solvitaire's.
    Json,
}

impl FromStr for Format {
    type Err = InputError;
    fn from_str(s: &str) -> Result<Format, InputError> {
        match s.to_ascii_lowercase().as_str() {
            "text" | "txt" => Ok(Format::Text),
            "fcs" | "fc-solve" => Ok(Format::Fcs),
            "json" | "solvitaire" => Ok(Format::Json),
            _ => Err(InputError::new(
                InputKind::Usage,
                format!("unknown deal format `{}` (text, fcs or json)", Cut(s)),
            )),
        }
    }
}

/// What the command line says about a deal being read.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOptions {
    /// `--variant`, if given.
    pub variant: Option<Variant>,
    /// `--start-rank`, if given.
    pub start_rank: Option<u8>,
    /// `--foundation-return`, if given.
    pub foundation_return: Option<bool>,
    /// `--sequence-moves`, if given.
    pub sequence_moves: Option<SequenceMoves>,
    /// `--from`, if given; otherwise the format is detected.
    pub format: Option<Format>,
}

/// Guesses the format from the first meaningful line.
pub fn detect(text: &str) -> Format {
    let first = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if first.starts_with('{') {
        Format::Json
    } else if first.to_ascii_lowercase().starts_with("foundations:") && !text.contains("t1:") {
        Format::Fcs
    } else if first.contains(':') {
        Format::Text
    } else {
        Format::Fcs
    }
}

fn err(kind: InputKind, origin: &str, line: usize, msg: impl std::fmt::Display) -> InputError {
    InputError::new(kind, msg.to_string())
        .at(origin)
        .on_line(line)
}

fn parse_card(origin: &str, line: usize, tok: &str) -> Result<Card, InputError> {
    tok.parse::<Card>()
        .map_err(|e| InputError::from(e).at(origin).on_line(line))
}

/// Reads the deal of a JSON document (castle's solve report or deal object, a save file, or
/// Solvitaire's layout): [`read_deal`] with the format fixed to JSON.
///
/// # Errors
/// As [`read_deal`].
pub fn read_json_deal(text: &str, origin: &str) -> Result<Deal, InputError> {
    read_deal(
        text,
        origin,
        ReadOptions {
            format: Some(Format::Json),
            ..Default::default()
        },
    )
}

/// Reads a deal. `origin` names the file in messages (`-` for standard input).
///
/// # Errors
/// An [`InputError`] naming the file, line and card or field at fault.
pub fn read_deal(text: &str, origin: &str, opts: ReadOptions) -> Result<Deal, InputError> {
    if text.trim().is_empty() {
        return Err(
            InputError::new(InputKind::Deal, "the file is empty (expected a deal)").at(origin),
        );
    }
    let format = opts.format.unwrap_or_else(|| detect(text));
    let deal = match format {
        Format::Text => read_text(text, origin, opts)?,
        Format::Fcs => read_fcs(text, origin, opts)?,
        Format::Json => read_json(text, origin, opts)?,
    };
    deal.validate().map_err(|e| match e {
        crate::deal::DealError::PileCount { found, .. } if opts.variant.is_none() => {
            InputError::new(
                InputKind::Deal,
                format!("{e}{}", variants_with_piles(found)),
            )
            .at(origin)
        }
        e => InputError::new(InputKind::Deal, e.to_string()).at(origin),
    })?;
    Ok(deal)
}

/// The hint after a pile count that does not fit: the variants dealt with `piles` piles
/// (`; 10 piles: fortress or castile? add --variant`), or nothing when none is.
fn variants_with_piles(piles: usize) -> String {
    let names: Vec<&str> = Variant::ALL
        .into_iter()
        .filter(|v| v.rules().piles == piles)
        .map(Variant::name)
        .collect();
    match names[..] {
        [] => String::new(),
        [one] => format!("; {piles} piles: {one}? add --variant {one}"),
        _ => format!(
            "; {piles} piles: {}? add --variant",
            names
                .join(" or ")
                .replacen(" or ", ", ", names.len().saturating_sub(2))
        ),
    }
}

/// What a file says about the rules (each field optional).
#[derive(Default)]
struct FileRules {
    variant: Option<Variant>,
    /// The start rank, and where the file gives it (`line 3`, `options.start_rank`).
    start_rank: Option<(u8, String)>,
    foundation_return: Option<bool>,
    sequence_moves: Option<SequenceMoves>,
}

/// The rules of a deal being read: the file's, with the command line's options on top (a
/// variant that differs is an error; options given on the command line win).
fn rules_for(origin: &str, file: &FileRules, opts: ReadOptions) -> Result<Rules, InputError> {
    let variant = match (file.variant, opts.variant) {
        (Some(f), Some(c)) if f != c => {
            return Err(InputError::new(
                InputKind::Rules,
                format!("the file says variant {f}, but the command asks for {c}"),
            )
            .at(origin))
        }
        (Some(v), _) | (None, Some(v)) => v,
        (None, None) => Variant::BeleagueredCastle,
    };
    let mut rules = variant.rules();
    // A file's start rank that is just the variant's own (JSON always names one) is no
    // request; the command line's always is.
    let file_rank = file
        .start_rank
        .as_ref()
        .filter(|(r, _)| *r != rules.options.start_rank || variant.has_start_rank());
    if let Some(r) = opts.start_rank {
        rules = rules
            .with_start_rank(r)
            .map_err(|e| InputError::from(e).at(origin))?;
    } else if let Some((r, at)) = file_rank {
        // The file's own field is at fault, not a flag.
        rules = rules.with_start_rank(*r).map_err(|e| {
            let why = match e {
                crate::rules::OptionError::StartRank(r) => {
                    format!("start rank {r} is out of range (0..12)")
                }
                crate::rules::OptionError::StartRankVariant(v) => {
                    format!("a start rank is for the Beleaguered Castle family, not {v}")
                }
            };
            InputError::new(InputKind::Rules, format!("{at}: {why}")).at(origin)
        })?;
    }
    if let Some(f) = opts.foundation_return.or(file.foundation_return) {
        rules = rules.with_foundation_return(f);
    }
    if let Some(s) = opts.sequence_moves.or(file.sequence_moves) {
        rules = rules.with_sequence_moves(s);
    }
    Ok(rules)
}

/// Foundation tops as read (card, line), turned into pile heights once the rules are known:
/// one pile per suit, or two with two decks.
fn foundations_from(
    tops: &[(Card, usize)],
    rules: &Rules,
    origin: &str,
) -> Result<[u8; 8], InputError> {
    let mut found = [0u8; 8];
    let mut used = [0usize; 4];
    for &(top, line) in tops {
        let s = top.suit().index();
        if used[s] == rules.decks as usize {
            return Err(err(
                InputKind::Deal,
                origin,
                line,
                format!(
                    "{} foundations of suit {} (this game has {})",
                    used[s] + 1,
                    top.suit().letter(),
                    rules.decks
                ),
            ));
        }
        found[s + 4 * used[s]] = top.rank();
        used[s] += 1;
    }
    for s in 0..4 {
        if found[s + 4] > found[s] {
            found.swap(s, s + 4);
        }
    }
    Ok(found)
}

fn parse_bool(origin: &str, line: usize, key: &str, value: &str) -> Result<bool, InputError> {
    match value.to_ascii_lowercase().as_str() {
        "yes" | "true" | "on" => Ok(true),
        "no" | "false" | "off" => Ok(false),
        _ => Err(err(
            InputKind::Rules,
            origin,
            line,
            format!("`{key}` is `{}`; expected yes or no", Cut(value)),
        )),
    }
}

fn card_list(origin: &str, line: usize, value: &str) -> Result<Vec<Card>, InputError> {
    value
        .split_whitespace()
        .filter(|t| *t != "-")
        .map(|t| parse_card(origin, line, t))
        .collect()
}

fn read_text(text: &str, origin: &str, opts: ReadOptions) -> Result<Deal, InputError> {
    let mut file = FileRules::default();
    let mut seed = None;
    let mut tops = Vec::new();
    let mut piles: Vec<Option<Vec<Card>>> = Vec::new();
    let (mut reserve, mut stock, mut waste) = (Vec::new(), Vec::new(), Vec::new());
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.split('#').next().unwrap_or("").trim();
        if l.is_empty() {
            continue;
        }
        let Some((key, value)) = l.split_once(':') else {
            return Err(err(
                InputKind::Deal,
                origin,
                line,
                format!("expected `name: value`, found `{}`", Cut(l)),
            ));
        };
        let key = key.trim().to_ascii_lowercase();
        let value = value.trim();
        match key.as_str() {
            "variant" => {
                file.variant = Some(
                    value
                        .parse::<Variant>()
                        .map_err(|e| err(InputKind::Rules, origin, line, e))?,
                );
            }
            "seed" => {
                seed =
                    Some(value.parse::<u64>().map_err(|_| {
                        err(
                            InputKind::Deal,
                            origin,
                            line,
                            format!("`{}` is not a deal number", Cut(value)),
                        )
                    })?);
            }
            "numbering" => {
                // Whose number `seed` is; the cards are given, so it is only checked.
                value
                    .parse::<crate::deal::Numbering>()
                    .map_err(|e| err(InputKind::Rules, origin, line, e))?;
            }
            "start-rank" => {
                let rank = value.parse::<u8>().map_err(|_| {
                    err(
                        InputKind::Rules,
                        origin,
                        line,
                        format!("`{}` is not a start rank (0..12)", Cut(value)),
                    )
                })?;
                file.start_rank = Some((rank, format!("line {line}")));
            }
            "foundation-return" => {
                file.foundation_return = Some(parse_bool(origin, line, &key, value)?);
            }
            "sequence-moves" => {
                file.sequence_moves = Some(
                    value
                        .parse()
                        .map_err(|e| err(InputKind::Rules, origin, line, e))?,
                );
            }
            "foundations" => {
                for c in card_list(origin, line, value)? {
                    tops.push((c, line));
                }
            }
            "reserve" | "cells" => reserve = card_list(origin, line, value)?,
            "stock" => stock = card_list(origin, line, value)?,
            "waste" => waste = card_list(origin, line, value)?,
            k if k.starts_with('t') => {
                let n = match k.parse::<Pile>() {
                    Ok(Pile::Tableau(i)) if usize::from(i) < 64 => usize::from(i) + 1,
                    _ => {
                        return Err(err(
                            InputKind::Pile,
                            origin,
                            line,
                            format!("`{}` is not a pile name", Cut(&key)),
                        ))
                    }
                };
                if piles.len() < n {
                    piles.resize(n, None);
                }
                if piles[n - 1].is_some() {
                    return Err(err(
                        InputKind::Deal,
                        origin,
                        line,
                        format!("pile {key} is given twice"),
                    ));
                }
                let cards = value
                    .split_whitespace()
                    .map(|t| parse_card(origin, line, t))
                    .collect::<Result<Vec<_>, _>>()?;
                piles[n - 1] = Some(cards);
            }
            _ => {
                return Err(err(
                    InputKind::Deal,
                    origin,
                    line,
                    format!(
                        "unknown field `{}` (variant, seed, start-rank, foundation-return, sequence-moves, foundations, reserve, stock, waste, t1..tN)",
                        Cut(&key)
                    ),
                ))
            }
        }
    }
    let tableau = piles
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            p.ok_or_else(|| {
                InputError::new(
                    InputKind::Deal,
                    format!("pile {} is missing", Pile::Tableau(i as u8)),
                )
                .at(origin)
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let rules = rules_for(origin, &file, opts)?;
    Ok(Deal {
        foundations: foundations_from(&tops, &rules, origin)?,
        rules,
        seed,
        tableau,
        reserve,
        stock,
        waste,
    })
}

fn read_fcs(text: &str, origin: &str, opts: ReadOptions) -> Result<Deal, InputError> {
    let mut tops = Vec::new();
    let mut seen = [false; 4];
    let mut tableau = Vec::new();
    let mut reserve = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.split('#').next().unwrap_or("").trim();
        if l.is_empty() {
            continue;
        }
        let lower = l.to_ascii_lowercase();
        if lower.starts_with("foundations:") {
            for tok in l["foundations:".len()..].split_whitespace() {
                let (s, r) = tok.split_once('-').ok_or_else(|| {
                    err(
                        InputKind::Deal,
                        origin,
                        line,
                        format!("`{}` is not a foundation (like `H-5` or `S-0`)", Cut(tok)),
                    )
                })?;
                let suit = s
                    .chars()
                    .next()
                    .and_then(Suit::from_letter)
                    .filter(|_| s.len() == 1)
                    .ok_or_else(|| {
                        err(
                            InputKind::Card,
                            origin,
                            line,
                            format!("`{}`: `{}` is not a suit", Cut(tok), Cut(s)),
                        )
                    })?;
                let rank = if r == "0" {
                    0
                } else {
                    crate::card::parse_rank(r).ok_or_else(|| {
                        err(
                            InputKind::Card,
                            origin,
                            line,
                            format!("`{}`: `{}` is not a rank", Cut(tok), Cut(r)),
                        )
                    })?
                };
                if std::mem::replace(&mut seen[suit.index()], true) {
                    return Err(err(
                        InputKind::Deal,
                        origin,
                        line,
                        format!("two foundations of suit {}", suit.letter()),
                    ));
                }
                if rank > 0 {
                    tops.push((Card::new(rank, suit), line));
                }
            }
            continue;
        }
        if lower.starts_with("freecells:") {
            reserve = card_list(origin, line, &l["freecells:".len()..])?;
            continue;
        }
        let body = l.strip_prefix(':').unwrap_or(l);
        let cards = body
            .split_whitespace()
            .map(|t| parse_card(origin, line, t))
            .collect::<Result<Vec<_>, _>>()?;
        tableau.push(cards);
    }
    let rules = rules_for(origin, &FileRules::default(), opts)?;
    Ok(Deal {
        foundations: foundations_from(&tops, &rules, origin)?,
        rules,
        seed: None,
        tableau,
        reserve,
        stock: Vec::new(),
        waste: Vec::new(),
    })
}

/// An error in a JSON document, where the field named in `msg` is at fault (no line).
fn json_err(kind: InputKind, origin: &str, msg: impl std::fmt::Display) -> InputError {
    InputError::new(kind, msg.to_string()).at(origin)
}

fn json_cards(v: &Value, what: &str, origin: &str) -> Result<Vec<Card>, InputError> {
    let arr = v.as_array().ok_or_else(|| {
        json_err(
            InputKind::Deal,
            origin,
            format!("{what} must be a list of cards"),
        )
    })?;
    arr.iter()
        .enumerate()
        .map(|(k, c)| {
            let s = c.as_str().ok_or_else(|| {
                json_err(
                    InputKind::Card,
                    origin,
                    format!("{what}[{k}] must be a card string"),
                )
            })?;
            s.parse::<Card>()
                .map_err(|e| json_err(InputKind::Card, origin, format!("{what}[{k}]: {e}")))
        })
        .collect()
}

fn json_piles(v: &Value, what: &str, origin: &str) -> Result<Vec<Vec<Card>>, InputError> {
    let arr = v.as_array().ok_or_else(|| {
        json_err(
            InputKind::Deal,
            origin,
            format!("{what} must be a list of piles"),
        )
    })?;
    arr.iter()
        .enumerate()
        .map(|(i, p)| json_cards(p, &format!("{what}[{i}]"), origin))
        .collect()
}

fn read_json(text: &str, origin: &str, opts: ReadOptions) -> Result<Deal, InputError> {
    let v: Value = serde_json::from_str(text).map_err(|e| {
        err(
            InputKind::Deal,
            origin,
            e.line(),
            format!("invalid JSON: {e}"),
        )
    })?;
    let mut file = FileRules::default();
    let (deal_v, seed) = if let Some(d) = v.get("deal") {
        if let Some(s) = v.get("variant").and_then(Value::as_str) {
            file.variant = Some(
                s.parse::<Variant>()
                    .map_err(|e| json_err(InputKind::Rules, origin, e))?,
            );
        }
        file.start_rank = v
            .pointer("/options/start_rank")
            .and_then(Value::as_u64)
            .map(|r| (r.min(255) as u8, "options.start_rank".to_string()));
        file.foundation_return = v
            .pointer("/options/foundation_return")
            .and_then(Value::as_bool);
        if let Some(s) = v.pointer("/options/sequence_moves").and_then(Value::as_str) {
            file.sequence_moves = Some(s.parse().map_err(|e| {
                json_err(
                    InputKind::Rules,
                    origin,
                    format!("options.sequence_moves: {e}"),
                )
            })?);
        }
        (d, v.get("seed").and_then(Value::as_u64))
    } else {
        (&v, None)
    };
    let tableau_v = deal_v
        .get("tableau")
        .or_else(|| deal_v.get("tableau piles"))
        .ok_or_else(|| {
            json_err(
                InputKind::Deal,
                origin,
                "no `tableau` (or Solvitaire `tableau piles`) field",
            )
        })?;
    let tableau = json_piles(tableau_v, "tableau", origin)?;
    let mut tops = Vec::new();
    if let Some(f) = deal_v.get("foundations") {
        for (i, pile) in json_piles(f, "foundations", origin)?
            .into_iter()
            .enumerate()
        {
            let Some(&top) = pile.last() else { continue };
            for (k, c) in pile.iter().enumerate() {
                if c.suit() != top.suit() || c.rank() as usize != k + 1 {
                    return Err(json_err(
                        InputKind::Deal,
                        origin,
                        format!(
                            "foundations[{i}] must run from the ace up in one suit; found {c} at position {}",
                            k + 1
                        ),
                    ));
                }
            }
            tops.push((top, 1));
        }
    }
    let mut lists = [Vec::new(), Vec::new(), Vec::new()];
    for (k, field) in ["reserve", "stock", "waste"].into_iter().enumerate() {
        // Solvitaire calls the reserve cells `cells`.
        let alias = if k == 0 { deal_v.get("cells") } else { None };
        if let Some(x) = deal_v.get(field).or(alias) {
            lists[k] = json_cards(x, field, origin)?;
        }
    }
    let [reserve, stock, waste] = lists;
    let rules = rules_for(origin, &file, opts)?;
    Ok(Deal {
        foundations: foundations_from(&tops, &rules, origin).map_err(|e| InputError {
            line: None,
            message: format!("foundations: {}", e.message),
            ..e
        })?,
        rules,
        seed,
        tableau,
        reserve,
        stock,
        waste,
    })
}

fn cards_line(cards: &[Card]) -> String {
    if cards.is_empty() {
        return "-".to_string();
    }
    cards
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The top card of every non-empty foundation pile.
fn foundation_tops(deal: &Deal) -> Vec<Card> {
    (0..deal.rules.foundation_piles())
        .filter(|&p| deal.foundations[p] > 0)
        .map(|p| Card::new(deal.foundations[p], Suit::from_index(p % 4)))
        .collect()
}

/// Writes a numbered deal in the text format, with a `numbering:` line after the seed when
/// the number is not castle's own.
pub fn write_text_numbered(deal: &Deal, numbering: crate::deal::Numbering) -> String {
    let text = write_text(deal);
    match deal.seed {
        Some(seed) if numbering != crate::deal::Numbering::Castle => text.replacen(
            &format!("seed: {seed}\n"),
            &format!("seed: {seed}\nnumbering: {}\n", numbering.name()),
            1,
        ),
        _ => text,
    }
}

/// Writes a deal in the text format (it reads back to the same deal).
pub fn write_text(deal: &Deal) -> String {
    let rules = &deal.rules;
    let mut s = String::from("# castle deal, text format 1: piles bottom to top\n");
    s += &format!("variant: {}\n", rules.variant);
    if let Some(seed) = deal.seed {
        s += &format!("seed: {seed}\n");
    }
    if rules.variant.has_start_rank() {
        s += &format!("start-rank: {}\n", rules.options.start_rank);
    }
    if rules.options.foundation_return {
        s += "foundation-return: yes\n";
    }
    if rules.options.sequence_moves != SequenceMoves::Single {
        s += &format!("sequence-moves: {}\n", rules.options.sequence_moves.name());
    }
    s += &format!("foundations: {}\n", cards_line(&foundation_tops(deal)));
    if rules.cells > 0 {
        s += &format!("reserve: {}\n", cards_line(&deal.reserve));
    }
    if rules.stock {
        s += &format!("stock: {}\n", cards_line(&deal.stock));
        s += &format!("waste: {}\n", cards_line(&deal.waste));
    }
    for (i, p) in deal.tableau.iter().enumerate() {
        s += &format!("t{}: {}\n", i + 1, cards_line(p).trim_matches('-'));
    }
    s
}

/// Writes a deal as an fc-solve board (reserve cells as its `Freecells:` line, an empty pile
/// as a line `:`); it reads back to the same position (the rules from the command line).
///
/// # Errors
/// For a deal fc-solve's format cannot hold: two decks, a stock or a waste.
pub fn write_fcs(deal: &Deal) -> Result<String, InputError> {
    if deal.rules.decks > 1 || deal.rules.stock {
        return Err(InputError::new(
            InputKind::Usage,
            format!(
                "fc-solve's format cannot hold a {} deal (two decks and a stock); use text or json",
                deal.rules.variant
            ),
        ));
    }
    let f: Vec<String> = Suit::ALL
        .iter()
        .map(|&s| {
            let h = deal.foundations[s.index()];
            let r = if h == 0 {
                "0".to_string()
            } else {
                Card::new(h, s).to_string()[..1].to_string()
            };
            format!("{}-{}", s.letter(), r)
        })
        .collect();
    let mut s = format!("Foundations: {}\n", f.join(" "));
    if deal.rules.cells > 0 {
        s += &format!("Freecells: {}\n", cards_line(&deal.reserve));
    }
    for p in &deal.tableau {
        // An empty pile is a line of its own, `:` (fc-solve's way of printing one), never a
        // blank line: a reader skips those.
        if p.is_empty() {
            s.push(':');
        } else {
            s += &cards_line(p);
        }
        s.push('\n');
    }
    Ok(s)
}
