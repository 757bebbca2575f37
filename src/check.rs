//! The move checker: replays a move list from a deal and names the first illegal move.
//!
//! It is deliberately written apart from the search (`state.rs`): plain vectors of cards,
//! piles addressed by their names, and the rules read straight from the rule book rather
//! than from the move generator, so a bug in one is not silently shared by the other.

use crate::card::{Card, Suit};
use crate::deal::Deal;
use crate::rules::{Build, Rules};
use std::fmt;

/// A move as written in a solution: the card and the pile names (`t1..tN`, `f`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The card that moves.
    pub card: Card,
    /// Source pile name.
    pub from: String,
    /// Destination pile name.
    pub to: String,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} -> {}", self.card, self.from, self.to)
    }
}

/// The first illegal move of a replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("move {number} ({step}) is illegal: {why}")]
pub struct IllegalMove {
    /// 1-based move number.
    pub number: usize,
    /// The move.
    pub step: Step,
    /// Why it is illegal.
    pub why: String,
}

/// Why a solution does not win.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// A move broke the rules.
    #[error(transparent)]
    Illegal(#[from] IllegalMove),
    /// Every move was legal but cards are left off the foundations.
    #[error("all {moves} moves are legal, but the game is not won: {left} cards are not on the foundations")]
    NotWon {
        /// Moves replayed.
        moves: usize,
        /// Cards still out.
        left: usize,
    },
}

/// A position as the checker sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    rules: Rules,
    /// Tableau piles, bottom to top.
    pub tableau: Vec<Vec<Card>>,
    /// Foundation piles by suit (C, D, H, S), bottom to top.
    pub foundations: Vec<Vec<Card>>,
}

enum Place {
    Pile(usize),
    Foundation,
}

impl Board {
    /// The board of a deal, before any move.
    pub fn new(deal: &Deal) -> Board {
        Board {
            rules: deal.rules,
            tableau: deal.tableau.clone(),
            foundations: Suit::ALL
                .iter()
                .map(|&s| deal.foundation_cards(s))
                .collect(),
        }
    }

    fn place(&self, name: &str) -> Result<Place, String> {
        if name == "f" {
            return Ok(Place::Foundation);
        }
        let number = name
            .strip_prefix('t')
            .and_then(|n| n.parse::<usize>().ok())
            .ok_or_else(|| format!("`{name}` is not a pile (t1..t{} or f)", self.tableau.len()))?;
        if number == 0 || number > self.tableau.len() {
            return Err(format!(
                "there is no pile {name} (t1..t{})",
                self.tableau.len()
            ));
        }
        Ok(Place::Pile(number - 1))
    }

    /// Plays one move if the rules allow it.
    ///
    /// # Errors
    /// Why the move is illegal; the board is then unchanged.
    pub fn play(&mut self, step: &Step) -> Result<(), String> {
        let from = self.place(&step.from)?;
        let to = self.place(&step.to)?;
        let Place::Pile(src) = from else {
            return Err("cards on the foundations stay there in these rules".to_string());
        };
        match self.tableau[src].last() {
            None => return Err(format!("{} is empty", step.from)),
            Some(&top) if top != step.card => {
                return Err(format!(
                    "the top card of {} is {top}, not {}",
                    step.from, step.card
                ))
            }
            Some(_) => {}
        }
        let card = step.card;
        match to {
            Place::Foundation => {
                let pile = &self.foundations[card.suit().index()];
                let need = pile.last().map_or(1, |c| c.rank() + 1);
                if card.rank() != need {
                    return Err(match pile.last() {
                        None => format!(
                            "the {} foundation is empty and takes only the ace",
                            card.suit().letter()
                        ),
                        Some(t) => format!("the {} foundation shows {t}", card.suit().letter()),
                    });
                }
                self.tableau[src].pop();
                self.foundations[card.suit().index()].push(card);
            }
            Place::Pile(dst) => {
                if dst == src {
                    return Err("a card cannot move onto its own pile".to_string());
                }
                if let Some(&under) = self.tableau[dst].last() {
                    let fits = match self.rules.build {
                        Build::DownAnySuit => under.rank() == card.rank() + 1,
                    };
                    if !fits {
                        return Err(format!(
                            "{card} cannot go on {under}: a card goes on one rank higher"
                        ));
                    }
                }
                self.tableau[src].pop();
                self.tableau[dst].push(card);
            }
        }
        Ok(())
    }

    /// Every legal single move here, found by trying each top card on each destination
    /// with [`Board::play`] (the rule book, not the search's generator).
    pub fn legal_steps(&self) -> Vec<Step> {
        let mut names: Vec<String> = (1..=self.tableau.len()).map(|i| format!("t{i}")).collect();
        names.push("f".to_string());
        let mut steps = Vec::new();
        for (i, pile) in self.tableau.iter().enumerate() {
            let Some(&card) = pile.last() else { continue };
            for to in &names {
                let step = Step {
                    card,
                    from: names[i].clone(),
                    to: to.clone(),
                };
                if self.clone().play(&step).is_ok() {
                    steps.push(step);
                }
            }
        }
        steps
    }

    /// This position as a deal (a starting position for the solver).
    pub fn to_deal(&self) -> Deal {
        let mut foundations = [0u8; 4];
        for (s, f) in self.foundations.iter().enumerate() {
            foundations[s] = f.len() as u8;
        }
        Deal {
            rules: self.rules,
            seed: None,
            tableau: self.tableau.clone(),
            foundations,
        }
    }

    /// Cards not yet on the foundations.
    pub fn cards_out(&self) -> usize {
        self.tableau.iter().map(Vec::len).sum()
    }
}

/// Replays `steps` from the deal and returns the final board.
///
/// # Errors
/// The first illegal move, with its number and reason.
pub fn replay(deal: &Deal, steps: &[Step]) -> Result<Board, IllegalMove> {
    let mut board = Board::new(deal);
    for (i, step) in steps.iter().enumerate() {
        board.play(step).map_err(|why| IllegalMove {
            number: i + 1,
            step: step.clone(),
            why,
        })?;
    }
    Ok(board)
}

/// Replays `steps` and requires a won game at the end.
///
/// # Errors
/// The first illegal move, or [`CheckError::NotWon`].
pub fn check_win(deal: &Deal, steps: &[Step]) -> Result<(), CheckError> {
    let board = replay(deal, steps)?;
    match board.cards_out() {
        0 => Ok(()),
        left => Err(CheckError::NotWon {
            moves: steps.len(),
            left,
        }),
    }
}

/// Converts search moves into named steps.
pub fn steps_of(moves: &[crate::moves::Move]) -> Vec<Step> {
    moves
        .iter()
        .map(|m| Step {
            card: m.card,
            from: crate::moves::pile_name(m.from),
            to: crate::moves::pile_name(m.to),
        })
        .collect()
}
