//! The move checker: replays a move list from a deal and names the first illegal move.
//!
//! It is deliberately written apart from the search (`state.rs`): plain vectors of cards,
//! piles addressed by their names, and the rules read straight from the rule book rather
//! than from the move generator, so a bug in one is not silently shared by the other. It
//! knows nothing of keys, runs through empty piles or safe moves: only what a player may do.

use crate::card::{Card, Suit};
use crate::deal::Deal;
use crate::rules::{Rules, SequenceMoves};
use std::fmt;

/// A move as written in a solution: the card, the pile names (`t1..tN`, `r1..rK`, `f`, `s`,
/// `w`) and how many cards move (`card` is the bottom one of them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The card that moves (the bottom card of a run).
    pub card: Card,
    /// Source pile name.
    pub from: String,
    /// Destination pile name.
    pub to: String,
    /// Cards moved: 1, or a run's length under unlimited sequence moves.
    pub count: usize,
}

impl Step {
    /// A one-card step.
    pub fn single(card: Card, from: &str, to: &str) -> Step {
        Step {
            card,
            from: from.to_string(),
            to: to.to_string(),
            count: 1,
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.count > 1 {
            write!(
                f,
                "{} {} -> {} ({} cards)",
                self.card, self.from, self.to, self.count
            )
        } else {
            write!(f, "{} {} -> {}", self.card, self.from, self.to)
        }
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
    /// Foundation piles, bottom to top: 4 (one per suit, in the order C, D, H, S) or, with
    /// two decks, 8, where any ace starts any empty pile.
    pub foundations: Vec<Vec<Card>>,
    /// Reserve cells `r1..rK`.
    pub reserve: Vec<Option<Card>>,
    /// The stock, next card first.
    pub stock: Vec<Card>,
    /// The waste, bottom to top.
    pub waste: Vec<Card>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Pile(usize),
    Cell(usize),
    Foundation,
    Stock,
    Waste,
}

impl Board {
    /// The board of a deal, before any move.
    pub fn new(deal: &Deal) -> Board {
        let rules = deal.rules;
        let mut reserve: Vec<Option<Card>> = deal.reserve.iter().map(|&c| Some(c)).collect();
        reserve.resize(rules.cells, None);
        Board {
            rules,
            tableau: deal.tableau.clone(),
            foundations: (0..4 * rules.decks as usize)
                .map(|p| {
                    let suit = Suit::from_index(p % 4);
                    (1..=deal.foundations[p])
                        .map(|r| Card::new(r, suit))
                        .collect()
                })
                .collect(),
            reserve,
            stock: deal.stock.clone(),
            waste: deal.waste.clone(),
        }
    }

    /// The rules this board is played by.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The pile names this board has, for messages.
    fn names(&self) -> String {
        let mut s = format!("t1..t{}", self.tableau.len());
        if !self.reserve.is_empty() {
            s += &format!(", r1..r{}", self.reserve.len());
        }
        s += ", f";
        if self.rules.stock {
            s += ", s, w";
        }
        s
    }

    fn place(&self, name: &str) -> Result<Place, String> {
        match name {
            "f" => return Ok(Place::Foundation),
            "s" if self.rules.stock => return Ok(Place::Stock),
            "w" if self.rules.stock => return Ok(Place::Waste),
            _ => {}
        }
        let bad = || format!("there is no pile {name} ({})", self.names());
        let (kind, number) = name.split_at(name.len().min(1));
        let number: usize = number.parse().map_err(|_| bad())?;
        match kind {
            "t" if (1..=self.tableau.len()).contains(&number) => Ok(Place::Pile(number - 1)),
            "r" if (1..=self.reserve.len()).contains(&number) => Ok(Place::Cell(number - 1)),
            _ => Err(bad()),
        }
    }

    /// The tableau pile that must be filled before anything else, if any: in a stock game an
    /// emptied pile is filled at once from the waste, or from the stock when the waste is
    /// empty.
    pub fn pending_fill(&self) -> Option<usize> {
        if !self.rules.stock || (self.waste.is_empty() && self.stock.is_empty()) {
            return None;
        }
        self.tableau.iter().position(Vec::is_empty)
    }

    /// True if `card` may go on `under` on the tableau, by the rule book's wording.
    fn builds(&self, card: Card, under: Card) -> Result<(), String> {
        use crate::rules::Build;
        let (ok, rule) = match self.rules.build {
            Build::DownAnySuit => (
                under.rank() == card.rank() + 1,
                "a card goes on one rank higher",
            ),
            Build::UpDownSuit => (
                under.suit() == card.suit()
                    && (under.rank() == card.rank() + 1 || card.rank() == under.rank() + 1),
                "a card goes on the same suit one rank higher or lower",
            ),
            Build::DownSuit => (
                under.suit() == card.suit() && under.rank() == card.rank() + 1,
                "a card goes on the same suit one rank higher",
            ),
        };
        if ok {
            Ok(())
        } else {
            Err(format!("{card} cannot go on {under}: {rule}"))
        }
    }

    /// The foundation pile `card` would go on, if any.
    fn foundation_for(&self, card: Card) -> Option<usize> {
        if self.foundations.len() == 4 {
            let pile = &self.foundations[card.suit().index()];
            let need = pile.last().map_or(1, |c| c.rank() + 1);
            return (card.rank() == need).then_some(card.suit().index());
        }
        // Two decks: any ace to any empty pile, then up in suit.
        self.foundations.iter().position(|pile| match pile.last() {
            None => card.rank() == 1,
            Some(t) => t.suit() == card.suit() && t.rank() + 1 == card.rank(),
        })
    }

    /// Plays one move if the rules allow it.
    ///
    /// # Errors
    /// Why the move is illegal; the board is then unchanged.
    pub fn play(&mut self, step: &Step) -> Result<(), String> {
        let from = self.place(&step.from)?;
        let to = self.place(&step.to)?;
        let card = step.card;
        let count = step.count;
        if count == 0 {
            return Err("a move carries at least one card".to_string());
        }
        if let Some(e) = self.pending_fill() {
            let (src, name) = if self.waste.is_empty() {
                (Place::Stock, "stock")
            } else {
                (Place::Waste, "waste")
            };
            if from != src || to != Place::Pile(e) || count != 1 {
                return Err(format!(
                    "t{} is empty and must first be filled from the {name}",
                    e + 1
                ));
            }
        }
        if from == Place::Stock && to != Place::Waste && self.pending_fill().is_none() {
            return Err("stock cards go to the waste".to_string());
        }
        if count > 1 {
            if self.rules.options.sequence_moves == SequenceMoves::Single {
                return Err(format!(
                    "{count} cards move at once, but these rules move one card at a time"
                ));
            }
            let (Place::Pile(_), Place::Pile(_)) = (from, to) else {
                return Err("only runs on the tableau move together".to_string());
            };
        }
        if from == to {
            return Err("a card cannot move onto its own pile".to_string());
        }
        // The source must show the card (and the run above it).
        match from {
            Place::Pile(p) => {
                let pile = &self.tableau[p];
                if pile.len() < count {
                    return Err(if pile.is_empty() {
                        format!("{} is empty", step.from)
                    } else {
                        format!("{} holds only {} cards", step.from, pile.len())
                    });
                }
                let bottom = pile[pile.len() - count];
                if bottom != card {
                    return Err(if count == 1 {
                        format!("the top card of {} is {bottom}, not {card}", step.from)
                    } else {
                        format!(
                            "the card {count} from the top of {} is {bottom}, not {card}",
                            step.from
                        )
                    });
                }
                for w in pile[pile.len() - count..].windows(2) {
                    self.builds(w[1], w[0]).map_err(|why| {
                        format!("the {count} cards are not an ordered run ({why})")
                    })?;
                }
            }
            Place::Cell(k) => match self.reserve[k] {
                Some(c) if c == card => {}
                Some(c) => return Err(format!("{} holds {c}, not {card}", step.from)),
                None => return Err(format!("{} is empty", step.from)),
            },
            Place::Waste => match self.waste.last() {
                Some(&c) if c == card => {}
                Some(&c) => return Err(format!("the top of the waste is {c}, not {card}")),
                None => return Err("the waste is empty".to_string()),
            },
            Place::Stock => match self.stock.first() {
                Some(&c) if c == card => {}
                Some(&c) => return Err(format!("the next stock card is {c}, not {card}")),
                None => return Err("the stock is empty".to_string()),
            },
            Place::Foundation => {
                if !self.rules.options.foundation_return {
                    return Err(
                        "cards on the foundations stay there in these rules (no foundation return)"
                            .to_string(),
                    );
                }
                if !self.foundations.iter().any(|p| p.last() == Some(&card)) {
                    return Err(format!("{card} is not the top card of a foundation"));
                }
            }
        }
        // The destination must take it.
        match to {
            Place::Foundation => {
                if self.foundation_for(card).is_none() {
                    return Err(if self.foundations.len() == 4 {
                        match self.foundations[card.suit().index()].last() {
                            None => format!(
                                "the {} foundation is empty and takes only the ace",
                                card.suit().letter()
                            ),
                            Some(t) => {
                                format!("the {} foundation shows {t}", card.suit().letter())
                            }
                        }
                    } else {
                        format!("no foundation takes {card} (each builds up in suit from an ace)")
                    });
                }
            }
            Place::Pile(d) => {
                if let Some(&under) = self.tableau[d].last() {
                    self.builds(card, under)?;
                }
            }
            Place::Cell(k) => {
                if let Some(c) = self.reserve[k] {
                    return Err(format!("{} already holds {c}", step.to));
                }
                if !matches!(from, Place::Pile(_)) {
                    return Err("a reserve cell takes only the top card of a tableau pile".into());
                }
            }
            Place::Waste => {
                if from != Place::Stock {
                    return Err("only the stock deals to the waste".to_string());
                }
            }
            Place::Stock => return Err("nothing goes back to the stock".to_string()),
        }
        if from == Place::Foundation && !matches!(to, Place::Pile(_)) {
            return Err("a foundation card may come back only to a tableau pile".to_string());
        }
        // Every check passed: move the cards.
        let moved: Vec<Card> = match from {
            Place::Pile(p) => {
                let pile = &mut self.tableau[p];
                pile.split_off(pile.len() - count)
            }
            Place::Cell(k) => vec![self.reserve[k].take().expect("checked")],
            Place::Waste => vec![self.waste.pop().expect("checked")],
            Place::Stock => vec![self.stock.remove(0)],
            Place::Foundation => {
                // With two decks both piles of a suit may show the card: they are alike.
                let p = self
                    .foundations
                    .iter()
                    .position(|p| p.last() == Some(&card))
                    .expect("checked");
                vec![self.foundations[p].pop().expect("checked")]
            }
        };
        match to {
            Place::Foundation => {
                let p = self.foundation_for(card).expect("checked");
                self.foundations[p].push(card);
            }
            Place::Pile(d) => self.tableau[d].extend(moved),
            Place::Cell(k) => self.reserve[k] = Some(card),
            Place::Waste => self.waste.push(card),
            Place::Stock => unreachable!("refused above"),
        }
        Ok(())
    }

    /// The step a player means by naming a source and a destination (`t3 f`, `w t1`,
    /// `s w`, `r2 t5`, `f:5H t2` for a foundation card, and a run's card count under
    /// unlimited sequence moves): the card is read off the board. Legality is checked
    /// only by [`Board::play`].
    ///
    /// # Errors
    /// If the source is not a pile of this board or shows no card.
    pub fn step_named(&self, from: &str, to: &str, count: usize) -> Result<Step, String> {
        let from = from.trim().to_ascii_lowercase();
        let to = to.trim().to_ascii_lowercase();
        if let Some(card) = from.strip_prefix("f:") {
            let card: Card = card.parse().map_err(|e| format!("{e}"))?;
            return Ok(Step {
                card,
                from: "f".to_string(),
                to,
                count,
            });
        }
        self.place(&from)?;
        let shown = self.shown(&from, count.max(1));
        match shown[..] {
            [card] => Ok(Step {
                card,
                from,
                to,
                count: count.max(1),
            }),
            [] => Err(if count > 1 {
                format!("{from} does not hold {count} cards")
            } else {
                format!("{from} is empty")
            }),
            _ => Err(format!(
                "name the foundation card to move, like `f:{} {to}`",
                shown[0]
            )),
        }
    }

    /// The pile names of this board, in the order `legal_steps` tries them.
    fn all_names(&self) -> Vec<String> {
        let mut names: Vec<String> = (1..=self.tableau.len()).map(|i| format!("t{i}")).collect();
        names.extend((1..=self.reserve.len()).map(|i| format!("r{i}")));
        names.push("f".to_string());
        if self.rules.stock {
            names.push("s".to_string());
            names.push("w".to_string());
        }
        names
    }

    /// The card a pile shows for a move of `count` cards from it, if any.
    fn shown(&self, name: &str, count: usize) -> Vec<Card> {
        let Ok(place) = self.place(name) else {
            return Vec::new();
        };
        match place {
            Place::Pile(p) => {
                let pile = &self.tableau[p];
                pile.len()
                    .checked_sub(count)
                    .map(|i| vec![pile[i]])
                    .unwrap_or_default()
            }
            Place::Cell(k) => self.reserve[k].into_iter().collect(),
            Place::Waste => self.waste.last().copied().into_iter().collect(),
            Place::Stock => self.stock.first().copied().into_iter().collect(),
            // Distinct foundation tops (with two decks two piles may show the same card).
            Place::Foundation => {
                let mut tops: Vec<Card> = self
                    .foundations
                    .iter()
                    .filter_map(|p| p.last())
                    .copied()
                    .collect();
                tops.sort();
                tops.dedup();
                tops
            }
        }
    }

    /// Every legal move here, found by trying each available card on each destination with
    /// [`Board::play`] (the rule book, not the search's generator). Under unlimited sequence
    /// moves, runs of every length are tried too.
    pub fn legal_steps(&self) -> Vec<Step> {
        let names = self.all_names();
        let unlimited = self.rules.options.sequence_moves == SequenceMoves::Unlimited;
        let mut steps = Vec::new();
        for from in &names {
            let max = match self.place(from) {
                Ok(Place::Pile(p)) if unlimited => self.tableau[p].len().max(1),
                _ => 1,
            };
            for count in 1..=max {
                for card in self.shown(from, count) {
                    for to in &names {
                        let step = Step {
                            card,
                            from: from.clone(),
                            to: to.clone(),
                            count,
                        };
                        if self.clone().play(&step).is_ok() {
                            steps.push(step);
                        }
                    }
                }
            }
        }
        steps
    }

    /// This position as a deal (a starting position for the solver).
    pub fn to_deal(&self) -> Deal {
        let mut deal = Deal::empty(self.rules);
        // Foundation heights by suit; with two decks the two piles of a suit, higher first.
        let mut by_suit: [Vec<u8>; 4] = Default::default();
        for pile in &self.foundations {
            if let Some(t) = pile.last() {
                by_suit[t.suit().index()].push(pile.len() as u8);
            }
        }
        for (s, hs) in by_suit.iter_mut().enumerate() {
            hs.sort_unstable_by(|a, b| b.cmp(a));
            for (k, &h) in hs.iter().enumerate().take(2) {
                deal.foundations[s + 4 * k] = h;
            }
        }
        deal.tableau = self.tableau.clone();
        deal.reserve = self.reserve.iter().flatten().copied().collect();
        deal.stock = self.stock.clone();
        deal.waste = self.waste.clone();
        deal
    }

    /// Cards not yet on the foundations.
    pub fn cards_out(&self) -> usize {
        self.tableau.iter().map(Vec::len).sum::<usize>()
            + self.reserve.iter().flatten().count()
            + self.stock.len()
            + self.waste.len()
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
            count: usize::from(m.count),
        })
        .collect()
}
