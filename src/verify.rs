//! `castle verify`: a solve report (the JSON of `castle solve --format json`), or fc-solve's
//! output for a deal, replayed move by move on the independent checker ([`crate::check`]).
//! The result is printed; whether the line checked out is returned (the command-line tool
//! exits with 1 when it did not).

use crate::check::replay;
use crate::deal::Deal;
use crate::formats;
use crate::report::Report;
use crate::{Error, InputError, InputKind};
use std::io::Write;

/// Checks a solve report: `text`, read from `origin` (a file name, for the messages). The
/// verdict must be `solvable`, `unsolvable` or `unknown`; every move must be legal; and the
/// verdict must agree with the moves: `solvable` exactly when they end in a won game.
///
/// Returns true when the report checks out.
///
/// # Errors
/// [`InputError`] for a file that is empty, not a solve report, or names a bad deal or card;
/// writing `out`.
pub fn verify_report(out: &mut impl Write, text: &str, origin: &str) -> Result<bool, Error> {
    if text.trim().is_empty() {
        return Err(InputError::new(
            InputKind::Report,
            "the file is empty (expected the JSON of `castle solve --format json`)",
        )
        .at(origin)
        .into());
    }
    let report: Report = serde_json::from_str(text).map_err(|e| {
        InputError::new(InputKind::Report, format!("not a solve report: {e}"))
            .at(origin)
            .on_line(e.line())
    })?;
    let verdict = ["solvable", "unsolvable", "unknown"]
        .into_iter()
        .find(|v| *v == report.verdict)
        .ok_or_else(|| {
            InputError::new(
                InputKind::Report,
                format!(
                    "verdict `{}` is not one of solvable, unsolvable, unknown",
                    crate::text::Cut(&report.verdict)
                ),
            )
            .at(origin)
        })?;
    let deal = formats::read_json_deal(text, origin)?;
    if let Some(why) = seed_mismatch(&deal, report.numbering.as_deref()) {
        writeln!(out, "{origin}: {why}")?;
        return Ok(false);
    }
    let steps = report.steps(origin)?;
    let board = match replay(&deal, &steps) {
        Err(e) => {
            writeln!(out, "{origin}: {e}")?;
            return Ok(false);
        }
        Ok(board) => board,
    };
    let left = board.cards_out();
    if left == 0 && verdict != "solvable" {
        writeln!(
            out,
            "{origin}: the {} moves replay to a won game, but the verdict says {verdict}",
            steps.len()
        )?;
        Ok(false)
    } else if left == 0 {
        writeln!(out, "ok: {} moves replay to a won game", steps.len())?;
        Ok(true)
    } else if verdict == "solvable" {
        writeln!(
            out,
            "{origin}: all {} moves are legal, but {left} cards are still off the foundations",
            steps.len()
        )?;
        Ok(false)
    } else {
        writeln!(
            out,
            "ok: {} moves are legal ({left} cards still off the foundations; verdict {})",
            steps.len(),
            report.verdict
        )?;
        Ok(true)
    }
}

/// Why a report's `seed` does not name its `deal` (the deal that number deals, by the
/// report's `numbering`, with its rules), if it does not: a report whose number and cards
/// disagree is not the solution of the deal its number names.
fn seed_mismatch(deal: &Deal, numbering: Option<&str>) -> Option<String> {
    let seed = deal.seed?;
    let numbering = match numbering {
        None => crate::deal::Numbering::Castle,
        Some(n) => match n.parse::<crate::deal::Numbering>() {
            Ok(n) => n,
            Err(e) => return Some(format!("numbering: {e}")),
        },
    };
    let which = format!(
        "{} deal {seed}{}",
        deal.rules.variant,
        if numbering == crate::deal::Numbering::Pysol {
            " (PySolFC's numbering)"
        } else {
            ""
        }
    );
    let dealt = match Deal::numbered(deal.rules, numbering, seed) {
        Ok(d) => d,
        Err(e) => return Some(format!("`seed` {seed} cannot be dealt: {e}")),
    };
    let pile = (0..deal.tableau.len().max(dealt.tableau.len()))
        .find(|&i| deal.tableau.get(i) != dealt.tableau.get(i));
    let differs = match pile {
        Some(i) => crate::pile::Pile::Tableau(i as u8).to_string(),
        None if deal.foundations != dealt.foundations => "the foundations".to_string(),
        None if deal.reserve != dealt.reserve => "the reserve".to_string(),
        None if deal.stock != dealt.stock || deal.waste != dealt.waste => "the stock".to_string(),
        None => return None,
    };
    Some(format!(
        "`seed` says {which}, but the file's deal is another ({differs} differs); fix or drop the seed, the moves were not checked"
    ))
}

/// Checks fc-solve's output (`text`, read from `origin`) for `deal` (see
/// [`crate::peer::replay_solution`]): with `json`, the replayed line is printed as castle's
/// solve report, which [`verify_report`] reads.
///
/// Returns true when fc-solve's moves replay to a won game.
///
/// # Errors
/// [`InputError`] for rules fc-solve does not play ([`InputKind::Rules`], no origin: the
/// command line names its flag), an empty file or one that is not fc-solve's output;
/// writing `out`.
pub fn verify_fc_solve(
    out: &mut impl Write,
    deal: &Deal,
    text: &str,
    origin: &str,
    json: bool,
) -> Result<bool, Error> {
    crate::peer::supports(&deal.rules)
        .map_err(|e| InputError::new(InputKind::Rules, e.to_string()))?;
    if text.trim().is_empty() {
        return Err(InputError::new(
            InputKind::Report,
            "the file is empty (expected fc-solve's output, with -m or -p -t -sam)",
        )
        .at(origin)
        .into());
    }
    let fc = crate::peer::parse_output(text).map_err(|e| {
        InputError::new(InputKind::Report, format!("not fc-solve's output: {e}")).at(origin)
    })?;
    if fc.moves.is_empty() {
        writeln!(
            out,
            "{origin}: fc-solve printed no moves (no solution to check)"
        )?;
        return Ok(false);
    }
    let moves = match crate::peer::replay_solution(deal, &fc) {
        Ok(m) => m,
        Err(e) => {
            writeln!(out, "{origin}: {e}")?;
            return Ok(false);
        }
    };
    if json {
        let source = format!(
            "fc-solve's win ({} moves, runs played as single moves), replayed by castle {}; nodes, states and seconds are not castle's",
            fc.moves.len(),
            env!("CARGO_PKG_VERSION")
        );
        let report = Report::replayed(deal, &moves, source);
        writeln!(out, "{}", serde_json::to_string(&report)?)?;
    } else {
        writeln!(
            out,
            "ok: fc-solve's {} moves ({} single-card moves) replay to a won game",
            fc.moves.len(),
            moves.len()
        )?;
    }
    Ok(true)
}
