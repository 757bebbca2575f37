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
//! foundation (`-` or nothing for none). `seed` and `start-rank` are optional; `variant`
//! defaults to the one given on the command line, else beleaguered-castle.

use crate::card::{Card, Suit};
use crate::deal::Deal;
use crate::rules::{Rules, Variant};
use crate::InputError;
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
            _ => Err(InputError(format!(
                "unknown deal format `{s}` (text, fcs or json)"
            ))),
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

fn err(origin: &str, line: usize, msg: impl std::fmt::Display) -> InputError {
    InputError(format!("{origin}: line {line}: {msg}"))
}

fn parse_card(origin: &str, line: usize, tok: &str) -> Result<Card, InputError> {
    tok.parse::<Card>().map_err(|e| err(origin, line, e))
}

/// Reads a deal. `origin` names the file in messages (`-` for standard input).
///
/// # Errors
/// An [`InputError`] naming the file, line and card or field at fault.
pub fn read_deal(text: &str, origin: &str, opts: ReadOptions) -> Result<Deal, InputError> {
    if text.trim().is_empty() {
        return Err(InputError(format!(
            "{origin}: the file is empty (expected a deal)"
        )));
    }
    let format = opts.format.unwrap_or_else(|| detect(text));
    let deal = match format {
        Format::Text => read_text(text, origin, opts)?,
        Format::Fcs => read_fcs(text, origin, opts)?,
        Format::Json => read_json(text, origin, opts)?,
    };
    deal.validate()
        .map_err(|e| InputError(format!("{origin}: {e}")))?;
    Ok(deal)
}

fn rules_for(
    origin: &str,
    file_variant: Option<Variant>,
    file_rank: Option<u8>,
    opts: ReadOptions,
) -> Result<Rules, InputError> {
    let variant = match (file_variant, opts.variant) {
        (Some(f), Some(c)) if f != c => {
            return Err(InputError(format!(
                "{origin}: the file says variant {f}, but --variant says {c}"
            )))
        }
        (Some(v), _) | (None, Some(v)) => v,
        (None, None) => Variant::BeleagueredCastle,
    };
    let mut rules = variant.rules();
    if let Some(r) = opts.start_rank.or(file_rank) {
        rules = rules
            .with_start_rank(r)
            .map_err(|e| InputError(format!("{origin}: {e}")))?;
    }
    Ok(rules)
}

/// Sets a foundation from its top card, refusing a suit given twice.
fn set_foundation(
    found: &mut [u8; 4],
    seen: &mut [bool; 4],
    top: Card,
    origin: &str,
    line: usize,
) -> Result<(), InputError> {
    let s = top.suit().index();
    if seen[s] {
        return Err(err(
            origin,
            line,
            format!("two foundations of suit {}", top.suit().letter()),
        ));
    }
    seen[s] = true;
    found[s] = top.rank();
    Ok(())
}

fn read_text(text: &str, origin: &str, opts: ReadOptions) -> Result<Deal, InputError> {
    let mut variant = None;
    let mut seed = None;
    let mut rank = None;
    let mut found = [0u8; 4];
    let mut seen = [false; 4];
    let mut piles: Vec<Option<Vec<Card>>> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.split('#').next().unwrap_or("").trim();
        if l.is_empty() {
            continue;
        }
        let Some((key, value)) = l.split_once(':') else {
            return Err(err(
                origin,
                line,
                format!("expected `name: value`, found `{l}`"),
            ));
        };
        let key = key.trim().to_ascii_lowercase();
        let value = value.trim();
        match key.as_str() {
            "variant" => {
                variant = Some(value.parse::<Variant>().map_err(|e| err(origin, line, e))?);
            }
            "seed" => {
                seed =
                    Some(value.parse::<u64>().map_err(|_| {
                        err(origin, line, format!("`{value}` is not a deal number"))
                    })?);
            }
            "start-rank" => {
                rank = Some(value.parse::<u8>().map_err(|_| {
                    err(
                        origin,
                        line,
                        format!("`{value}` is not a start rank (0..12)"),
                    )
                })?);
            }
            "foundations" => {
                for tok in value.split_whitespace().filter(|t| *t != "-") {
                    let c = parse_card(origin, line, tok)?;
                    set_foundation(&mut found, &mut seen, c, origin, line)?;
                }
            }
            k if k.starts_with('t') => {
                let n: usize = k[1..]
                    .parse()
                    .ok()
                    .filter(|&n| (1..=64).contains(&n))
                    .ok_or_else(|| err(origin, line, format!("`{key}` is not a pile name")))?;
                if piles.len() < n {
                    piles.resize(n, None);
                }
                if piles[n - 1].is_some() {
                    return Err(err(origin, line, format!("pile {key} is given twice")));
                }
                let cards = value
                    .split_whitespace()
                    .map(|t| parse_card(origin, line, t))
                    .collect::<Result<Vec<_>, _>>()?;
                piles[n - 1] = Some(cards);
            }
            _ => {
                return Err(err(
                    origin,
                    line,
                    format!(
                        "unknown field `{key}` (variant, seed, start-rank, foundations, t1..tN)"
                    ),
                ))
            }
        }
    }
    let tableau = piles
        .into_iter()
        .enumerate()
        .map(|(i, p)| p.ok_or_else(|| InputError(format!("{origin}: pile t{} is missing", i + 1))))
        .collect::<Result<Vec<_>, _>>()?;
    let rules = rules_for(origin, variant, rank, opts)?;
    Ok(Deal {
        rules,
        seed,
        tableau,
        foundations: found,
    })
}

fn read_fcs(text: &str, origin: &str, opts: ReadOptions) -> Result<Deal, InputError> {
    let mut found = [0u8; 4];
    let mut seen = [false; 4];
    let mut tableau = Vec::new();
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
                        origin,
                        line,
                        format!("`{tok}` is not a foundation (like `H-5` or `S-0`)"),
                    )
                })?;
                let suit = s
                    .chars()
                    .next()
                    .and_then(Suit::from_letter)
                    .filter(|_| s.len() == 1)
                    .ok_or_else(|| err(origin, line, format!("`{tok}`: `{s}` is not a suit")))?;
                let rank = if r == "0" {
                    0
                } else {
                    crate::card::parse_rank(r)
                        .ok_or_else(|| err(origin, line, format!("`{tok}`: `{r}` is not a rank")))?
                };
                if rank > 0 {
                    set_foundation(&mut found, &mut seen, Card::new(rank, suit), origin, line)?;
                } else if std::mem::replace(&mut seen[suit.index()], true) {
                    return Err(err(
                        origin,
                        line,
                        format!("two foundations of suit {}", suit.letter()),
                    ));
                }
            }
            continue;
        }
        if lower.starts_with("freecells:") {
            if l["freecells:".len()..].split_whitespace().any(|t| t != "-") {
                return Err(err(origin, line, "this family has no free cells"));
            }
            continue;
        }
        let body = l.strip_prefix(':').unwrap_or(l);
        let cards = body
            .split_whitespace()
            .map(|t| parse_card(origin, line, t))
            .collect::<Result<Vec<_>, _>>()?;
        tableau.push(cards);
    }
    let rules = rules_for(origin, None, None, opts)?;
    Ok(Deal {
        rules,
        seed: None,
        tableau,
        foundations: found,
    })
}

fn json_cards(v: &Value, what: &str, origin: &str) -> Result<Vec<Card>, InputError> {
    let arr = v
        .as_array()
        .ok_or_else(|| InputError(format!("{origin}: {what} must be a list of cards")))?;
    arr.iter()
        .enumerate()
        .map(|(k, c)| {
            let s = c.as_str().ok_or_else(|| {
                InputError(format!("{origin}: {what}[{k}] must be a card string"))
            })?;
            s.parse::<Card>()
                .map_err(|e| InputError(format!("{origin}: {what}[{k}]: {e}")))
        })
        .collect()
}

fn json_piles(v: &Value, what: &str, origin: &str) -> Result<Vec<Vec<Card>>, InputError> {
    let arr = v
        .as_array()
        .ok_or_else(|| InputError(format!("{origin}: {what} must be a list of piles")))?;
    arr.iter()
        .enumerate()
        .map(|(i, p)| json_cards(p, &format!("{what}[{i}]"), origin))
        .collect()
}

fn read_json(text: &str, origin: &str, opts: ReadOptions) -> Result<Deal, InputError> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| InputError(format!("{origin}: line {}: invalid JSON: {e}", e.line())))?;
    let (deal_v, variant, seed, rank) = if let Some(d) = v.get("deal") {
        let variant = match v.get("variant").and_then(Value::as_str) {
            Some(s) => Some(
                s.parse::<Variant>()
                    .map_err(|e| InputError(format!("{origin}: {e}")))?,
            ),
            None => None,
        };
        let rank = v
            .pointer("/options/start_rank")
            .and_then(Value::as_u64)
            .map(|r| r.min(255) as u8);
        (d, variant, v.get("seed").and_then(Value::as_u64), rank)
    } else {
        (&v, None, None, None)
    };
    let tableau_v = deal_v
        .get("tableau")
        .or_else(|| deal_v.get("tableau piles"))
        .ok_or_else(|| {
            InputError(format!(
                "{origin}: no `tableau` (or Solvitaire `tableau piles`) field"
            ))
        })?;
    let tableau = json_piles(tableau_v, "tableau", origin)?;
    let mut found = [0u8; 4];
    let mut seen = [false; 4];
    if let Some(f) = deal_v.get("foundations") {
        for (i, pile) in json_piles(f, "foundations", origin)?
            .into_iter()
            .enumerate()
        {
            let Some(&top) = pile.last() else { continue };
            for (k, c) in pile.iter().enumerate() {
                if c.suit() != top.suit() || c.rank() as usize != k + 1 {
                    return Err(InputError(format!(
                        "{origin}: foundations[{i}] must run from the ace up in one suit; found {c} at position {}",
                        k + 1
                    )));
                }
            }
            let s = top.suit().index();
            if std::mem::replace(&mut seen[s], true) {
                return Err(InputError(format!(
                    "{origin}: two foundations of suit {}",
                    top.suit().letter()
                )));
            }
            found[s] = top.rank();
        }
    }
    for field in ["reserve", "stock", "waste", "cells"] {
        if let Some(x) = deal_v.get(field) {
            if x.as_array().is_some_and(|a| !a.is_empty()) {
                return Err(InputError(format!(
                    "{origin}: `{field}` must be empty: this variant has none"
                )));
            }
        }
    }
    let rules = rules_for(origin, variant, rank, opts)?;
    Ok(Deal {
        rules,
        seed,
        tableau,
        foundations: found,
    })
}

fn cards_line(cards: &[Card]) -> String {
    cards
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Writes a deal in the text format (it reads back to the same deal).
pub fn write_text(deal: &Deal) -> String {
    let mut s = String::from("# castle deal, text format 1: piles bottom to top\n");
    s += &format!("variant: {}\n", deal.rules.variant);
    if let Some(seed) = deal.seed {
        s += &format!("seed: {seed}\n");
    }
    s += &format!("start-rank: {}\n", deal.rules.options.start_rank);
    let tops: Vec<String> = Suit::ALL
        .iter()
        .filter(|s| deal.foundations[s.index()] > 0)
        .map(|&s| Card::new(deal.foundations[s.index()], s).to_string())
        .collect();
    s += &format!(
        "foundations: {}\n",
        if tops.is_empty() {
            "-".to_string()
        } else {
            tops.join(" ")
        }
    );
    for (i, p) in deal.tableau.iter().enumerate() {
        s += &format!("t{}: {}\n", i + 1, cards_line(p));
    }
    s
}

/// Writes a deal as an fc-solve board.
pub fn write_fcs(deal: &Deal) -> String {
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
    for p in &deal.tableau {
        s += &cards_line(p);
        s.push('\n');
    }
    s
}
