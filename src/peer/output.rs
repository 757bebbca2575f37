//! Reading fc-solve's standard output ([`parse_output`]): the verdict line, the moves and,
//! with `-p -t -sam`, every position between them, as [`FcOutput`]; a line it does not know
//! is an [`OutputError`] naming the line.

use super::{PeerVerdict, ITERATIONS_LINE, SOLVED_LINE, UNSOLVED_LINE};
use crate::card::CardParseError;
use crate::{Card, Suit};

/// A line of fc-solve's output that does not read: its 1-based number and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {why}")]
pub struct OutputError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub why: OutputFault,
}

/// What is wrong with a line of fc-solve's output.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OutputFault {
    /// A stack number that is not a number.
    #[error("`{word}` is not a number in `{line}`")]
    NotANumber {
        /// The word.
        word: String,
        /// The line.
        line: String,
    },
    /// A `Move` line of another shape.
    #[error("unknown move `{0}`")]
    UnknownMove(String),
    /// A token of the `Foundations:` line that is not `S-R`.
    #[error("`{0}` is not a foundation")]
    NotAFoundation(String),
    /// Cards in free cells (the preset has none).
    #[error("cards in cells: `{0}`")]
    CardsInCells(String),
    /// A stack line before the position's `Foundations:` line.
    #[error("a stack before any `Foundations:` line")]
    StackFirst,
    /// A card of a stack that is not a card.
    #[error("{0}")]
    Card(CardParseError),
    /// A states-checked line whose count does not read.
    #[error("`{0}`")]
    StatesCount(String),
    /// A line of no known kind.
    #[error("unexpected line `{0}`")]
    Unexpected(String),
}

/// A move as fc-solve prints it (stacks numbered from 0, as it prints them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FcMove {
    /// `Move N cards from stack A to stack B`.
    Stack {
        /// Source stack.
        from: usize,
        /// Destination stack.
        to: usize,
        /// Cards moved (1 under `-to 0AB`).
        cards: usize,
    },
    /// `Move a card from stack A to the foundations`.
    Foundation {
        /// Source stack.
        from: usize,
    },
}

/// A position as fc-solve prints it with `-p -t`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FcBoard {
    /// Foundation heights by suit (index [`Suit::index`]: C, D, H, S).
    pub foundations: [u8; 4],
    /// The stacks, each bottom to top.
    pub tableau: Vec<Vec<Card>>,
}

/// fc-solve's output, read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FcOutput {
    /// The verdict line ([`PeerVerdict::Failed`] for an iteration limit), if there is one.
    pub verdict: Option<PeerVerdict>,
    /// The moves of the solution, in order.
    pub moves: Vec<FcMove>,
    /// The positions printed with `-sam`: the start, then one after each move (empty if the
    /// output has no positions).
    pub boards: Vec<FcBoard>,
    /// "Total number of states checked is N."
    pub states_checked: Option<u64>,
}

fn parse_move(line: &str) -> Result<FcMove, OutputFault> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let num = |w: &str| {
        w.parse::<usize>().map_err(|_| OutputFault::NotANumber {
            word: w.to_string(),
            line: line.to_string(),
        })
    };
    match words[..] {
        ["Move", "a", "card", "from", "stack", a, "to", "the", "foundations"] => {
            Ok(FcMove::Foundation { from: num(a)? })
        }
        ["Move", n, "cards" | "card", "from", "stack", a, "to", "stack", b] => Ok(FcMove::Stack {
            from: num(a)?,
            to: num(b)?,
            cards: num(n)?,
        }),
        _ => Err(OutputFault::UnknownMove(line.to_string())),
    }
}

fn parse_foundations(body: &str) -> Result<[u8; 4], OutputFault> {
    let mut f = [0u8; 4];
    for tok in body.split_whitespace() {
        let bad = || OutputFault::NotAFoundation(tok.to_string());
        let (s, r) = tok.split_once('-').ok_or_else(bad)?;
        let mut sc = s.chars();
        let suit = match (sc.next(), sc.next()) {
            (Some(c), None) => Suit::from_letter(c).ok_or_else(bad)?,
            _ => return Err(bad()),
        };
        f[suit.index()] = if r == "0" {
            0
        } else {
            crate::card::parse_rank(r).ok_or_else(bad)?
        };
    }
    Ok(f)
}

/// Reads fc-solve's standard output as printed with `-m` (moves only) or `-p -t -sam`
/// (positions in the parseable layout, and moves).
///
/// # Errors
/// A line it does not know, naming it.
pub fn parse_output(text: &str) -> Result<FcOutput, OutputError> {
    let mut out = FcOutput::default();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let at = |why: OutputFault| OutputError { line: i + 1, why };
        if line.is_empty() || line.starts_with("-=-=") || line.starts_with("====") {
            continue;
        }
        if line.starts_with("Move") {
            out.moves.push(parse_move(line).map_err(at)?);
        } else if let Some(body) = line.strip_prefix("Foundations:") {
            out.boards.push(FcBoard {
                foundations: parse_foundations(body).map_err(at)?,
                tableau: Vec::new(),
            });
        } else if let Some(body) = line.strip_prefix("Freecells:") {
            if !body.trim().is_empty() {
                return Err(at(OutputFault::CardsInCells(line.to_string())));
            }
        } else if let Some(body) = line.strip_prefix(':') {
            let board = out
                .boards
                .last_mut()
                .ok_or_else(|| at(OutputFault::StackFirst))?;
            let pile = body
                .split_whitespace()
                .map(|t| t.parse::<Card>().map_err(|e| at(OutputFault::Card(e))))
                .collect::<Result<Vec<_>, _>>()?;
            board.tableau.push(pile);
        } else if line == SOLVED_LINE {
            out.verdict = Some(PeerVerdict::Solvable);
        } else if line == UNSOLVED_LINE {
            out.verdict = Some(PeerVerdict::Unsolvable);
        } else if line == ITERATIONS_LINE {
            out.verdict = Some(PeerVerdict::Failed(
                "fc-solve's iteration limit was reached".to_string(),
            ));
        } else if let Some(n) = line
            .strip_prefix("Total number of states checked is ")
            .and_then(|r| r.strip_suffix('.'))
        {
            out.states_checked = Some(
                n.parse()
                    .map_err(|_| at(OutputFault::StatesCount(line.to_string())))?,
            );
        } else if line.starts_with("This scan generated ") {
            continue;
        } else {
            return Err(at(OutputFault::Unexpected(line.to_string())));
        }
    }
    Ok(out)
}
