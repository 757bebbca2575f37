//! The page that replays a line: `castle solve --format html` and `castle show FILE`. One
//! self-contained HTML file (its style and script inline, no fonts, no network) that lays the
//! deal out as `castle play` does — the foundations in a middle column, the piles as wings on
//! both sides with each wing's top card on the outside, the cells, stock and waste above —
//! and steps through the moves: buttons, arrow keys, play/pause, the move list beside the
//! board with the current move marked, and `#move=N` in the address to open at move N.
//!
//! The page does not know the rules. The positions are the checker's: this module replays
//! the line with [`Board::play`] and writes, for each move, which pile lost how many cards
//! to which pile, having checked that moving those cards (top ones, order kept) turns the
//! board before the move into the checker's board after it. The script only moves cards
//! between piles, forwards or back, so what it draws after N moves is the checker's position
//! after N moves.
//!
//! A winning line's critical moves ([`crate::critical`]: only one or two of the position's
//! choices keep the win) are tagged in the move list and named in the status line.

use crate::check::{steps_of, Board, Step};
use crate::critical::{mark_line, marking_solver, Choices, MARK_NODES};
use crate::deal::{Deal, Numbering};
use crate::pile::Pile;
use crate::play::game::Game;
use crate::play::game::{fill_step, foundation_suit, safe_home, view, View};
use crate::solver::{Outcome, Verdict};
use crate::{InputError, InputKind};
use serde::Serialize;

/// One pile as the page draws it.
#[derive(Serialize)]
struct PileJson {
    /// `t1`, `f1`, `r1`, `s`, `w`.
    id: String,
    /// Where it goes: `left`, `right`, `found`, `cell`, `stock`, `waste`.
    place: &'static str,
    /// The suit glyph an empty foundation waits for, if it waits for one.
    #[serde(skip_serializing_if = "Option::is_none")]
    suit: Option<char>,
    /// The cards, bottom first (the stock: the next card last).
    cards: Vec<String>,
}

/// One move as the page plays it.
#[derive(Serialize)]
struct MoveJson {
    /// As the text output writes it: `AC t7 -> f`.
    text: String,
    /// The pile (index into the piles) the cards leave.
    from: usize,
    /// The pile they go to.
    to: usize,
    /// How many cards, the top ones of `from`.
    n: usize,
    /// Made by the game, not the player: a forced fill or a safe foundation move.
    auto: bool,
    /// A critical move: how many choices of the position it is made from are not proved to
    /// lose the win, and how many choices there are ([`crate::critical`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    critical: Option<[usize; 2]>,
}

#[derive(Serialize)]
struct PageJson<'a> {
    title: &'a str,
    note: &'a str,
    piles: Vec<PileJson>,
    moves: Vec<MoveJson>,
}

/// The automatic moves of a line as `castle play` would make them on its own: a stock
/// game's forced fill of an emptied pile, and a foundation move that cannot lose a win
/// ([`safe_home`]; never with foundation return). A line from a saved game keeps the flags
/// the game saved instead.
pub fn automatic_moves(deal: &Deal, steps: &[Step]) -> Vec<bool> {
    let mut board = Board::new(deal);
    let mut out = Vec::with_capacity(steps.len());
    for s in steps {
        let fill = fill_step(&board).is_some_and(|f| f == *s);
        let home = s.to == Pile::Foundation
            && s.count == 1
            && match s.from {
                Pile::Tableau(i) => board
                    .tableau
                    .get(usize::from(i))
                    .is_some_and(|p| safe_home(&board, s.card, p.len() == 1)),
                Pile::Reserve(_) => safe_home(&board, s.card, false),
                _ => false,
            };
        out.push(fill || home);
        if board.play(s).is_err() {
            break;
        }
    }
    out.resize(steps.len(), false);
    out
}

/// The piles of a view in the page's order: tableau, foundations, cells, stock, waste.
fn piles_of(v: &View) -> Vec<Vec<String>> {
    let names = |p: &Vec<crate::card::Card>| p.iter().map(ToString::to_string).collect();
    let mut out: Vec<Vec<String>> = v.tableau.iter().map(names).collect();
    out.extend(v.foundations.iter().map(names));
    out.extend(
        v.reserve
            .iter()
            .map(|c| c.iter().map(ToString::to_string).collect()),
    );
    out.push(names(&v.stock));
    out.push(names(&v.waste));
    out
}

/// The page replaying `steps` from `deal`. `automatic` marks the moves made by the game
/// (shorter than `steps`: the rest are not); `title` heads the page and `note` says what the
/// line is (a win found by the solver, a saved game, ...).
///
/// # Errors
/// A move that is illegal where it is played, named by its number; `origin` names the file.
pub fn page(
    deal: &Deal,
    steps: &[Step],
    automatic: &[bool],
    title: &str,
    note: &str,
    origin: &str,
) -> Result<String, InputError> {
    page_marked(deal, steps, automatic, &[], title, note, origin)
}

/// [`page`] with the critical moves marked: `marks[k]` is the choices of the position move
/// `k` is made from ([`crate::critical::mark_line`]); a critical one is tagged in the list.
///
/// # Errors
/// As [`page`].
pub fn page_marked(
    deal: &Deal,
    steps: &[Step],
    automatic: &[bool],
    marks: &[Option<Choices>],
    title: &str,
    note: &str,
    origin: &str,
) -> Result<String, InputError> {
    let mut board = Board::new(deal);
    let v = view(&board);
    let left_n = v.tableau.len().div_ceil(2);
    let nf = v.foundations.len();
    let mut piles: Vec<PileJson> = Vec::new();
    for (i, p) in piles_of(&v).into_iter().enumerate() {
        let t = v.tableau.len();
        let (id, place, suit) = if i < t {
            let side = if i < left_n { "left" } else { "right" };
            (Pile::Tableau(i as u8).to_string(), side, None)
        } else if i < t + nf {
            let k = i - t;
            let suit = foundation_suit(k, nf).map(|s| s.symbol());
            // The page shows each foundation pile, so each has an id of its own.
            (format!("f{}", k + 1), "found", suit)
        } else if i < t + nf + v.reserve.len() {
            (Pile::Reserve((i - t - nf) as u8).to_string(), "cell", None)
        } else if i == t + nf + v.reserve.len() {
            (Pile::Stock.to_string(), "stock", None)
        } else {
            (Pile::Waste.to_string(), "waste", None)
        };
        piles.push(PileJson {
            id,
            place,
            suit,
            cards: p,
        });
    }
    if !deal.rules.stock {
        piles.truncate(piles.len() - 2);
    }
    let mut moves = Vec::with_capacity(steps.len());
    let mut before = piles_of(&v);
    for (k, s) in steps.iter().enumerate() {
        board.play(s).map_err(|why| {
            InputError::new(
                InputKind::Move,
                format!("move {} ({s}) is illegal: {why}", k + 1),
            )
            .at(origin)
        })?;
        let after = piles_of(&view(&board));
        let mv = diff(&before, &after).ok_or_else(|| {
            InputError::new(
                InputKind::Move,
                format!(
                    "move {} ({s}) does not move cards from one pile to another",
                    k + 1
                ),
            )
            .at(origin)
        })?;
        moves.push(MoveJson {
            text: s.to_string(),
            from: mv.0,
            to: mv.1,
            n: mv.2,
            auto: automatic.get(k).copied().unwrap_or(false),
            critical: marks
                .get(k)
                .copied()
                .flatten()
                .filter(Choices::critical)
                .map(|c| [c.not_lost(), c.total]),
        });
        before = after;
    }
    let data = PageJson {
        title,
        note,
        piles,
        moves,
    };
    let json = serde_json::to_string(&data).unwrap_or_default();
    // Inside a script element: `<` written as an escape, so no `</script>` can end it.
    let json = json.replace('<', "\\u003c");
    // The data goes in last, at the one place the template has for it (a title holding
    // `{{DATA}}` is only text).
    let (head, tail) = TEMPLATE.split_once("{{DATA}}").unwrap_or((TEMPLATE, ""));
    Ok(format!(
        "{}{json}{tail}",
        head.replace("{{TITLE}}", &escape(title))
    ))
}

/// The page's heading: the variant, the deal and the rule options that are not the
/// variant's own.
fn heading(deal: &Deal, numbering: Numbering) -> String {
    let which = match (deal.seed, numbering) {
        (Some(s), Numbering::Pysol) => format!("deal {s} (PySolFC's game number)"),
        (Some(s), Numbering::Castle) => format!("deal {s}"),
        (None, _) => "a deal from a file".to_string(),
    };
    let o = deal.rules.options;
    let mut t = format!("castle: {} {which}", deal.rules.variant.name());
    if deal.rules.variant.has_start_rank() {
        t += &format!(", start rank {}", o.start_rank);
    }
    if o.foundation_return {
        t += ", foundation return";
    }
    if o.sequence_moves == crate::rules::SequenceMoves::Unlimited {
        t += ", unlimited sequence moves";
    }
    t
}

/// The page of a solve: its win stepped through, or the deal alone with what the search
/// found (no win exists; or the budget stopped it).
///
/// # Errors
/// None in practice: a win is checked before it is returned (an illegal move would be named).
pub fn solve_page(deal: &Deal, out: &Outcome, numbering: Numbering) -> Result<String, InputError> {
    let steps = steps_of(&out.moves);
    let auto = automatic_moves(deal, &steps);
    let count = auto.iter().filter(|&&a| a).count();
    let note = match out.verdict {
        Verdict::Solvable => {
            let mut n = format!(
                "A win in {} moves ({count} of them automatic: forced fills and foundation moves that cannot lose the win), checked move by move.",
                steps.len()
            );
            if let Some(first) = out.first_len.filter(|&f| f != steps.len()) {
                n += &format!(" The search's first win had {first} moves.");
            }
            if out.shorten_cut {
                n += " The shortening was cut by the time budget: a shorter line may exist.";
            }
            n
        }
        Verdict::Unsolvable => "No win exists: the search went through every position the deal can reach. The board shows the deal.".to_string(),
        Verdict::Unknown => format!(
            "Unknown: the search stopped at its {} budget before it decided. The board shows the deal.",
            out.limit.map_or("", |l| l.name())
        ),
    };
    let marks = critical_marks(deal, &steps, &auto)?;
    page_marked(
        deal,
        &steps,
        &auto,
        &marks,
        &heading(deal, numbering),
        &note,
        "the solution",
    )
}

/// The critical marks of a line's player moves (none for a line that does not win), each
/// choice searched with [`MARK_NODES`] nodes.
fn critical_marks(
    deal: &Deal,
    steps: &[Step],
    auto: &[bool],
) -> Result<Vec<Option<Choices>>, InputError> {
    let player: Vec<bool> = auto.iter().map(|a| !a).collect();
    // A solve's internal error leaves the page unmarked rather than failing it.
    Ok(mark_line(deal, steps, &player, &marking_solver(MARK_NODES))
        .unwrap_or_else(|_| vec![None; steps.len()]))
}

/// The page of a saved game or a solve report (the JSON of `castle solve --format json`,
/// which is also what `castle play` saves); `origin` names the file. A saved game's own
/// marks of its automatic moves are kept; a report's are worked out as the game would make
/// them ([`automatic_moves`]).
///
/// # Errors
/// What [`Game::from_json`] refuses (not the JSON of a report, a bad deal, an illegal move),
/// named by the file.
pub fn show_page(text: &str, origin: &str) -> Result<String, InputError> {
    let game = Game::from_json(text, origin)?;
    let deal = game.deal().clone();
    let steps: Vec<Step> = game.history().iter().map(|e| e.step).collect();
    let saved = serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .is_some_and(|v| v.get("play").is_some());
    let auto: Vec<bool> = if saved {
        game.history().iter().map(|e| e.auto).collect()
    } else {
        automatic_moves(&deal, &steps)
    };
    let count = auto.iter().filter(|&&a| a).count();
    let what = if saved { "A saved game" } else { "A line" };
    let end = if game.is_won() {
        "won at the end"
    } else {
        "not won at its end"
    };
    let note = format!(
        "{what} from {origin}: {} moves ({count} of them automatic), {end}.",
        steps.len()
    );
    let marks = critical_marks(&deal, &steps, &auto)?;
    page_marked(
        &deal,
        &steps,
        &auto,
        &marks,
        &heading(&deal, game.numbering()),
        &note,
        origin,
    )
}

/// The one pile that lost cards and the one that gained them, and how many, if moving that
/// many top cards (order kept) from the one to the other turns `before` into `after`.
fn diff(before: &[Vec<String>], after: &[Vec<String>]) -> Option<(usize, usize, usize)> {
    let from = (0..before.len()).find(|&i| after[i].len() < before[i].len())?;
    let to = (0..before.len()).find(|&i| after[i].len() > before[i].len())?;
    let n = before[from].len() - after[from].len();
    let mut want = before.to_vec();
    let at = want[from].len() - n;
    let moved = want[from].split_off(at);
    want[to].extend(moved);
    (want == after).then_some((from, to, n))
}

/// Text for HTML.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const TEMPLATE: &str = include_str!("html/replay.html");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{check_win, replay, steps_of};
    use crate::rules::Variant;
    use crate::solver::{Limits, Solver, Verdict};

    /// Deal `seed` of `variant` and its win, if the solver finds one within a small budget.
    fn won(variant: Variant, seed: u64) -> Option<(Deal, Vec<Step>)> {
        let deal = Deal::from_seed(variant.rules(), seed);
        let solver = Solver {
            limits: Limits {
                max_nodes: Some(200_000),
                ..Limits::default()
            },
            ..Solver::default()
        };
        let out = solver.solve(&deal).ok()?;
        (out.verdict == Verdict::Solvable).then(|| (deal.clone(), steps_of(&out.moves)))
    }

    /// The data of a page, parsed back.
    fn data(page: &str) -> serde_json::Value {
        let start = page.find("id=\"data\">").unwrap() + "id=\"data\">".len();
        let end = start + page[start..].find("</script>").unwrap();
        serde_json::from_str(&page[start..end].replace("\\u003c", "<")).unwrap()
    }

    /// Plays the page's moves as its script does (top cards from one pile to another) and
    /// compares every position with the checker's.
    #[test]
    fn the_page_holds_every_move_and_its_positions_are_the_checker_s() {
        for variant in Variant::ALL {
            let Some((deal, steps)) = (1..20).find_map(|seed| won(variant, seed)) else {
                panic!("no won deal of {} in seeds 1..20", variant.name());
            };
            check_win(&deal, &steps).unwrap();
            let auto = automatic_moves(&deal, &steps);
            let html = page(&deal, &steps, &auto, "a <title> & more", "note", "test").unwrap();
            assert!(html.starts_with("<!DOCTYPE html>"));
            assert!(html.contains("a &lt;title&gt; &amp; more"));
            for banned in ["http://", "https://", "src=", "href=", "@import", "url("] {
                assert!(!html.contains(banned), "no network: `{banned}`");
            }
            let d = data(&html);
            let moves = d["moves"].as_array().unwrap();
            assert_eq!(moves.len(), steps.len());
            let mut piles: Vec<Vec<String>> = d["piles"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    p["cards"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|c| c.as_str().unwrap().to_string())
                        .collect()
                })
                .collect();
            for (k, m) in moves.iter().enumerate() {
                assert_eq!(m["text"], steps[k].to_string());
                let (from, to, n) = (
                    m["from"].as_u64().unwrap() as usize,
                    m["to"].as_u64().unwrap() as usize,
                    m["n"].as_u64().unwrap() as usize,
                );
                let at = piles[from].len() - n;
                let cards = piles[from].split_off(at);
                piles[to].extend(cards);
                let board = replay(&deal, &steps[..=k]).unwrap();
                let mut want = piles_of(&view(&board));
                if !deal.rules.stock {
                    want.truncate(want.len() - 2);
                }
                assert_eq!(piles, want, "{} move {}", variant.name(), k + 1);
            }
            // Every card home at the end: the foundations hold the deck.
            let home: usize = d["piles"]
                .as_array()
                .unwrap()
                .iter()
                .zip(&piles)
                .filter(|(p, _)| p["place"] == "found")
                .map(|(_, c)| c.len())
                .sum();
            assert_eq!(home, deal.rules.cards(), "{}", variant.name());
        }
    }

    /// A forced fill and a safe foundation move are marked automatic; a tableau move never.
    #[test]
    fn automatic_moves_are_fills_and_safe_foundation_moves() {
        let (deal, steps) = (1..20)
            .find_map(|s| won(Variant::Courtyard, s))
            .expect("a won courtyard deal");
        let auto = automatic_moves(&deal, &steps);
        let mut board = Board::new(&deal);
        let mut fills = 0;
        for (s, &a) in steps.iter().zip(&auto) {
            if board.pending_fill().is_some() {
                assert!(a, "the fill {s} is automatic");
                fills += 1;
            }
            if matches!(s.to, Pile::Tableau(_)) && board.pending_fill().is_none() {
                assert!(!a, "{s} is the player's");
            }
            board.play(s).unwrap();
        }
        assert!(fills > 0, "the line has fills");
        assert!(auto.iter().any(|&a| a));
    }

    /// A line with an illegal move is refused, naming the move.
    #[test]
    fn an_illegal_move_is_named() {
        let (deal, mut steps) = (1..20)
            .find_map(|s| won(Variant::BeleagueredCastle, s))
            .unwrap();
        // The bottom card of the longest pile to the foundation: it is not on top.
        let pile = (0..deal.tableau.len())
            .max_by_key(|&i| deal.tableau[i].len())
            .unwrap();
        steps.insert(
            0,
            Step::single(
                deal.tableau[pile][0],
                Pile::Tableau(pile as u8),
                Pile::Foundation,
            ),
        );
        let e = page(&deal, &steps, &[], "t", "n", "sol.json").unwrap_err();
        assert_eq!(
            (e.kind, e.origin.clone()),
            (InputKind::Move, Some("sol.json".into()))
        );
        assert!(e.to_string().starts_with("sol.json: move "), "{e}");
    }
}
