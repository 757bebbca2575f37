//! The text a player reads: the board drawn as the seed games lay it out, numbered moves, a
//! solve's result with the options in force, an analysis, the list of variants, and the
//! warning about stock games searched without a budget.

use crate::analyze::Analysis;
use crate::card::{Card, Suit};
use crate::check::{steps_of, Step};
use crate::deal::Deal;
use crate::pile::Pile;
use crate::rules::{Rules, Variant};
use crate::solver::{Limit, Outcome, Solver, Verdict};
use crate::Error;
use std::io::Write;

/// Whether to colour text output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Color {
    /// ANSI colours (red suits in red, piles dimmed labels).
    On,
    /// Plain text.
    Off,
}

fn show(c: Card, color: Color) -> String {
    let face = format!("{}{}", &c.to_string()[..1], c.suit().symbol());
    match (color, c.suit().is_red()) {
        (Color::On, true) => format!("\x1b[31m{face}\x1b[0m"),
        (Color::On, false) => format!("\x1b[1m{face}\x1b[0m"),
        (Color::Off, _) => c.to_string(),
    }
}

/// Draws a deal the way the seed games lay it out: foundations in a middle column, the
/// piles as wings on both sides, each wing's top card on the outside; then the reserve
/// cells, stock and waste of the games that have them.
pub fn draw_board(deal: &Deal, color: Color) -> String {
    let n = deal.tableau.len();
    let left = n.div_ceil(2);
    let cell = 3; // every card is two characters plus a space
    let width = deal.tableau[..left].iter().map(Vec::len).max().unwrap_or(0) * cell;
    let nf = deal.rules.foundation_piles();
    let mut out = String::new();
    let rows = left.max(nf);
    for row in 0..rows {
        let mut line = String::new();
        if row < left {
            let pile = &deal.tableau[row];
            let pad = width - pile.len() * cell;
            line += &" ".repeat(pad);
            for &c in pile.iter().rev() {
                line += &show(c, color);
                line.push(' ');
            }
            line += &format!("t{:<2}", row + 1);
        } else {
            line += &" ".repeat(width + 3);
        }
        let f = if row < nf {
            let s = Suit::from_index(row % 4);
            let h = deal.foundations[row];
            if h == 0 {
                format!("[ {}]", s.letter())
            } else {
                format!("[{}]", show(Card::new(h, s), color))
            }
        } else {
            "    ".to_string()
        };
        line += &format!(" {f} ");
        let r = row + left;
        if r < n {
            line += &format!("t{:<2}", r + 1);
            for &c in &deal.tableau[r] {
                line.push(' ');
                line += &show(c, color);
            }
        }
        out += line.trim_end();
        out.push('\n');
    }
    if deal.rules.cells > 0 {
        let cells: Vec<String> = (0..deal.rules.cells)
            .map(|k| match deal.reserve.get(k) {
                Some(&c) => format!("r{} [{}]", k + 1, show(c, color)),
                None => format!("r{} [  ]", k + 1),
            })
            .collect();
        out += &format!("reserve: {}\n", cells.join("  "));
    }
    if deal.rules.stock {
        let next = deal
            .stock
            .first()
            .map_or(String::new(), |&c| format!(", next {}", show(c, color)));
        let top = deal.waste.last().map_or("empty".to_string(), |&c| {
            format!("{} cards, top {}", deal.waste.len(), show(c, color))
        });
        out += &format!("stock: {} cards{next}    waste: {top}\n", deal.stock.len());
    }
    out
}

/// Numbered moves, one per line, in the notation a player follows (`12. 5H t3 -> t7`).
pub fn draw_moves(moves: &[Step]) -> String {
    let w = moves.len().to_string().len();
    moves
        .iter()
        .enumerate()
        .map(|(i, m)| format!("{:>w$}. {m}\n", i + 1))
        .collect()
}

/// Numbered moves as [`draw_moves`] writes them, each card drawn as the board draws it (`2♥`
/// in colour, `2H` without).
pub fn draw_moves_in(moves: &[Step], color: Color) -> String {
    let w = moves.len().to_string().len();
    moves
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let text = m.to_string();
            let rest = &text[m.card.to_string().len()..];
            format!("{:>w$}. {}{rest}\n", i + 1, show(m.card, color))
        })
        .collect()
}

/// `n` and the noun, plural unless `n` is 1 (`1 move`, `2 moves`).
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The options in force, as printed with every text result.
pub fn rules_line(r: &Rules) -> String {
    let o = r.options;
    let mut parts = Vec::new();
    if r.variant.has_start_rank() {
        parts.push(format!("start rank {}", o.start_rank));
    }
    parts.push(format!(
        "foundation return {}",
        if o.foundation_return { "on" } else { "off" }
    ));
    parts.push(format!("sequence moves {}", o.sequence_moves.name()));
    parts.join(", ")
}

/// Writes a solve's result for a player: the deal's title and options, the board, the verdict
/// (the moves of a win; for `unknown`, which of `solver`'s budgets ran out) and the cost.
///
/// # Errors
/// Writing `out`.
pub fn write_solve(
    out: &mut impl Write,
    deal: &Deal,
    r: &Outcome,
    solver: &Solver,
    numbering: crate::deal::Numbering,
    color: Color,
) -> Result<(), Error> {
    let title = match deal.seed {
        Some(s) if numbering == crate::deal::Numbering::Pysol => {
            format!("{} deal {s} (PySolFC's game number)", deal.rules.variant)
        }
        Some(s) => format!("{} deal {s}", deal.rules.variant),
        None => format!("{} (deal from file)", deal.rules.variant),
    };
    writeln!(out, "{title}, {}", rules_line(&deal.rules))?;
    writeln!(out)?;
    write!(out, "{}", draw_board(deal, color))?;
    writeln!(out)?;
    let l = &solver.limits;
    match r.verdict {
        Verdict::Solvable => {
            // The search's first win, when the shortening made it shorter.
            let first = match r.first_len {
                Some(n) if n > r.moves.len() => {
                    format!("; the search's first win had {n}, --raw prints it")
                }
                _ => String::new(),
            };
            writeln!(
                out,
                "solvable: won in {} (checked by replay{first})",
                count(r.moves.len() as u64, "move")
            )?;
            if r.shorten_cut {
                writeln!(
                    out,
                    "the time budget (--max-seconds {}) stopped the shortening: this is the shortest line it had",
                    l.max_seconds.unwrap_or(0.0)
                )?;
            }
            write!(out, "{}", draw_moves_in(&steps_of(&r.moves), color))?;
        }
        Verdict::Unsolvable => writeln!(
            out,
            "unsolvable: every reachable position was searched; no line wins (at best {} home)",
            count(r.best_home, "card")
        )?,
        Verdict::Unknown => {
            let why = match r.limit {
                Some(Limit::Nodes) => format!(
                    "the node budget ran out (--max-nodes {})",
                    l.max_nodes.unwrap_or(0)
                ),
                Some(Limit::Seconds) => format!(
                    "the time budget ran out (--max-seconds {})",
                    l.max_seconds.unwrap_or(0.0)
                ),
                Some(Limit::Memory) if r.disk.is_some() => format!(
                    "the memory budget ran out even with the spill directory (the positions' records, 8 bytes each, and the files' buffers stay in memory: raise --memory, now {} MiB)",
                    l.memory_bytes >> 20
                ),
                Some(Limit::Memory) => format!(
                    "the current line outgrew the memory budget (raise --memory, now {} MiB)",
                    l.memory_bytes >> 20
                ),
                Some(Limit::Disk) => format!(
                    "the spill directory failed ({})",
                    r.disk
                        .as_ref()
                        .and_then(|d| d.error.as_deref())
                        .unwrap_or("no message")
                ),
                Some(Limit::Stopped) => "the solve was stopped".to_string(),
                None => "no reason recorded".to_string(),
            };
            writeln!(out, "unknown: {why}; this is not a proof either way")?;
        }
    }
    let phase = match r.phase {
        Some(p) => format!(", decided by the {} phase", p.name()),
        None => String::new(),
    };
    writeln!(
        out,
        "{} nodes, {} states, {:.3} s{phase}",
        r.nodes, r.states, r.seconds
    )?;
    if let Some(n) = r.disk.as_ref().and_then(|d| d.resumed_from) {
        writeln!(
            out,
            "resumed from the checkpoint in the --spill directory ({n} nodes searched before)"
        )?;
    }
    if let Some(d) = r.disk.as_ref().filter(|d| d.written > 0) {
        writeln!(
            out,
            "spilled to disk: {} MiB at most, {} MiB written; classes searched on disk: {}",
            d.peak_bytes >> 20,
            d.written >> 20,
            d.classes
        )?;
    }
    if let Some(nodes) = r.short_nodes {
        // What stopped it, and the flag that moves that budget (never one already maxed).
        let what = match (r.shortest, r.short_limit) {
            (true, _) => "no win is shorter".to_string(),
            (false, Some(Limit::Seconds)) => format!(
                "the time budget (--max-seconds {}) stopped it; a shorter win may exist",
                l.max_seconds.unwrap_or(0.0)
            ),
            (false, Some(Limit::Memory)) => format!(
                "it outgrew the memory budget (--memory {}); a shorter win may exist",
                l.memory_bytes >> 20
            ),
            (false, _) => "all it may expand; a shorter win may exist (--short with a larger --short-nodes searches longer)".to_string(),
        };
        writeln!(out, "short search: {nodes} positions; {what}")?;
    }
    Ok(())
}

/// Writes an analysis for a player: the board, the position's verdict, each move's.
///
/// # Errors
/// Writing `out`.
pub fn write_analysis(out: &mut impl Write, a: &Analysis, color: Color) -> Result<(), Error> {
    let whole = &a.whole;
    write!(out, "{}", draw_board(&a.position, color))?;
    writeln!(out)?;
    match whole.verdict {
        Verdict::Solvable => writeln!(
            out,
            "this position is winnable: decided in {}, a win in {}",
            count(whole.nodes, "node"),
            count(whole.moves.len() as u64, "move")
        )?,
        Verdict::Unsolvable => writeln!(
            out,
            "this position is lost: proved in {}",
            count(whole.nodes, "node")
        )?,
        Verdict::Unknown => writeln!(
            out,
            "this position is undecided after {} (a budget ran out)",
            count(whole.nodes, "node")
        )?,
    }
    if let Some((tier, g)) = a.difficulty {
        writeln!(
            out,
            "difficulty: {tier} (a simple player won {} of {} playouts from here; docs/difficulty.md)",
            g.wins, g.playouts
        )?;
    }
    if a.moves.is_empty() {
        writeln!(out, "no legal move")?;
    }
    let ch = a.choices;
    if ch.critical() {
        writeln!(
            out,
            "critical: only {} of the {} moves here keep the win (moves to the same position counted once)",
            ch.not_lost(),
            ch.total
        )?;
    }
    // Moves of one card from one pile to the empty piles are one choice: listed once, with
    // the other empty piles named, when their verdicts agree.
    let empty = |to: Pile| match to {
        Pile::Tableau(k) => a
            .position
            .tableau
            .get(usize::from(k))
            .is_some_and(Vec::is_empty),
        _ => false,
    };
    let mut lines: Vec<(&Step, Verdict, Vec<String>)> = Vec::new();
    for (s, r) in &a.moves {
        let same = lines.iter_mut().find(|(t, v, _)| {
            *v == r.verdict
                && t.card == s.card
                && t.from == s.from
                && t.count == s.count
                && empty(t.to)
                && empty(s.to)
        });
        match same {
            Some((_, _, others)) => others.push(s.to.to_string()),
            None => lines.push((s, r.verdict, Vec::new())),
        }
    }
    for (s, verdict, others) in lines {
        let what = match verdict {
            Verdict::Solvable => "keeps the win",
            Verdict::Unsolvable => "loses",
            Verdict::Unknown => "unknown (budget)",
        };
        let or = if others.is_empty() {
            String::new()
        } else {
            format!(" (or {}: any empty pile)", others.join(", "))
        };
        writeln!(out, "  {} {} -> {}{or}: {what}", s.card, s.from, s.to)?;
    }
    Ok(())
}

/// Writes every variant's rules and aliases (`castle variants`).
///
/// # Errors
/// Writing `out`.
pub fn write_variants(out: &mut impl Write) -> Result<(), Error> {
    for v in Variant::ALL {
        writeln!(out, "{}", v.rules().describe())?;
        let aliases = v.aliases();
        if !aliases.is_empty() {
            writeln!(out, "  also: {}", aliases.join(", "))?;
        }
    }
    Ok(())
}

/// The warning for a stock game (courtyard) searched with neither a node nor a time budget:
/// its wins come in seconds, but the complete search has never finished one of its lost deals
/// (courtyard deal 3 was still searching after ten minutes). A full table replaces entries
/// and goes on, so the memory budget does not stop it either.
pub fn unbounded_stock_note(rules: &Rules, solver: &Solver) -> Option<String> {
    (rules.stock && solver.limits.max_nodes.is_none() && solver.limits.max_seconds.is_none()).then(
        || {
            format!(
                "note: {}: a win usually comes within seconds, but a lost deal is rarely proved \
                 and the search may not end; --max-seconds or --max-nodes bounds it",
                rules.variant
            )
        },
    )
}
