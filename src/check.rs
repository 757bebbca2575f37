//! The move checker: replays a move list from a deal and names the first illegal move.
//!
//! It is deliberately written apart from the search (`state.rs`): plain vectors of cards,
//! piles addressed by their names, and the rules read straight from the rule book rather
//! than from the move generator, so a bug in one is not silently shared by the other. It
//! knows nothing of keys, runs through empty piles or safe moves: only what a player may do.

use crate::card::{Card, CardParseError, Suit};
use crate::deal::Deal;
use crate::pile::Pile;
use crate::rules::{Rules, SequenceMoves};
use std::fmt;

/// A move as written in a solution: the card, the piles (written `t1..tN`, `r1..rK`, `f`,
/// `s`, `w`) and how many cards move (`card` is the bottom one of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The card that moves (the bottom card of a run).
    pub card: Card,
    /// Source pile.
    pub from: Pile,
    /// Destination pile.
    pub to: Pile,
    /// Cards moved: 1, or a run's length under unlimited sequence moves.
    pub count: usize,
}

impl Step {
    /// A one-card step.
    pub fn single(card: Card, from: Pile, to: Pile) -> Step {
        Step {
            card,
            from,
            to,
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
    pub why: StepError,
}

/// Why one move is illegal on a board ([`Board::play`]), or cannot be read off it
/// ([`Board::step_named`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StepError {
    /// The name is not a pile of this board.
    #[error("there is no pile {name} ({piles})")]
    NoPile {
        /// The name as given (or the pile's own, for a pile this board lacks).
        name: String,
        /// The board's pile names, like `t1..t8, f`.
        piles: String,
    },
    /// A card named in `f:CARD` that is not a card.
    #[error("{0}")]
    Card(#[from] CardParseError),
    /// A move of zero cards.
    #[error("a move carries at least one card")]
    NoCards,
    /// An emptied tableau pile of a stock game waits to be filled.
    #[error("{pile} is empty and must first be filled from the {from}")]
    MustFill {
        /// The empty pile.
        pile: Pile,
        /// `stock` or `waste`.
        from: &'static str,
    },
    /// A stock card going elsewhere than the waste.
    #[error("stock cards go to the waste")]
    StockToWaste,
    /// A run under single-card rules.
    #[error("{0} cards move at once, but these rules move one card at a time")]
    OneAtATime(usize),
    /// A run from or to something other than a tableau pile.
    #[error("only runs on the tableau move together")]
    RunOffTableau,
    /// Source and destination are the same.
    #[error("a card cannot move onto its own pile")]
    SamePile,
    /// The source pile is empty.
    #[error("{0} is empty")]
    Empty(Pile),
    /// The source pile holds fewer cards than the run.
    #[error("{pile} holds only {holds} cards")]
    TooFew {
        /// The pile.
        pile: Pile,
        /// Cards it holds.
        holds: usize,
    },
    /// The source pile does not show the card.
    #[error("the top card of {pile} is {top}, not {card}")]
    NotOnTop {
        /// The pile.
        pile: Pile,
        /// Its top card.
        top: Card,
        /// The card the move names.
        card: Card,
    },
    /// The run's bottom card is not the card named.
    #[error("the card {count} from the top of {pile} is {found}, not {card}")]
    NotAtDepth {
        /// Cards in the run.
        count: usize,
        /// The pile.
        pile: Pile,
        /// The card found there.
        found: Card,
        /// The card the move names.
        card: Card,
    },
    /// The cards of a run do not build on each other.
    #[error("the {count} cards are not an ordered run ({why})")]
    NotARun {
        /// Cards in the run.
        count: usize,
        /// The first pair that does not build.
        why: Box<StepError>,
    },
    /// A cell holding another card.
    #[error("{pile} holds {holds}, not {card}")]
    CellHolds {
        /// The cell.
        pile: Pile,
        /// Its card.
        holds: Card,
        /// The card the move names.
        card: Card,
    },
    /// The waste shows another card.
    #[error("the top of the waste is {top}, not {card}")]
    WasteTop {
        /// The waste's top card.
        top: Card,
        /// The card the move names.
        card: Card,
    },
    /// The waste is empty.
    #[error("the waste is empty")]
    WasteEmpty,
    /// The stock's next card is another.
    #[error("the next stock card is {next}, not {card}")]
    StockNext {
        /// The stock's next card.
        next: Card,
        /// The card the move names.
        card: Card,
    },
    /// The stock is empty.
    #[error("the stock is empty")]
    StockEmpty,
    /// A foundation card moving without the foundation-return rule.
    #[error("cards on the foundations stay there in these rules (no foundation return)")]
    NoFoundationReturn,
    /// The card is not on top of any foundation.
    #[error("{0} is not the top card of a foundation")]
    NotAFoundationTop(Card),
    /// The suit's foundation is empty and the card is not its ace.
    #[error("the {0} foundation is empty and takes only the ace")]
    FoundationWantsAce(char),
    /// The suit's foundation shows a card the move's card does not follow.
    #[error("{card} cannot go home: the {suit} foundation shows {top}, {}", match .next {
        Some(n) => format!("so it takes {n} next"),
        None => "and it is complete".to_string(),
    })]
    FoundationShows {
        /// The card moved.
        card: Card,
        /// The suit's letter.
        suit: char,
        /// The foundation's top card.
        top: Card,
        /// The card it takes next (none once it holds the king).
        next: Option<Card>,
    },
    /// No foundation takes the card (two decks).
    #[error("no foundation takes {0} (each builds up in suit from an ace)")]
    NoFoundationTakes(Card),
    /// The card does not build on the destination's top card.
    #[error("{card} cannot go on {under}: {rule}")]
    DoesNotBuild {
        /// The moving card.
        card: Card,
        /// The destination's top card.
        under: Card,
        /// The build rule, in words.
        rule: &'static str,
    },
    /// The destination cell is full.
    #[error("{pile} already holds {holds}")]
    CellFull {
        /// The cell.
        pile: Pile,
        /// Its card.
        holds: Card,
    },
    /// A cell filled from elsewhere than the tableau.
    #[error("a reserve cell takes only the top card of a tableau pile")]
    CellFromTableauOnly,
    /// The waste filled from elsewhere than the stock.
    #[error("only the stock deals to the waste")]
    WasteFromStockOnly,
    /// A move to the stock.
    #[error("nothing goes back to the stock")]
    NothingToStock,
    /// A foundation card coming back elsewhere than the tableau.
    #[error("a foundation card may come back only to a tableau pile")]
    FoundationBackToTableau,
    /// The source does not hold as many cards as the run.
    #[error("{pile} does not hold {count} cards")]
    DoesNotHold {
        /// The pile.
        pile: Pile,
        /// Cards asked for.
        count: usize,
    },
    /// A foundation source that shows several cards.
    #[error("name the foundation card to move, like `f:{card} {to}`")]
    NameTheFoundationCard {
        /// One of the cards shown.
        card: Card,
        /// The destination.
        to: Pile,
    },
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
#[derive(Debug, PartialEq, Eq)]
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

impl Clone for Board {
    fn clone(&self) -> Board {
        Board {
            rules: self.rules,
            tableau: self.tableau.clone(),
            foundations: self.foundations.clone(),
            reserve: self.reserve.clone(),
            stock: self.stock.clone(),
            waste: self.waste.clone(),
        }
    }

    /// Reuses this board's piles (callers that try many lines from one board copy it often).
    fn clone_from(&mut self, source: &Board) {
        self.rules = source.rules;
        self.tableau.clone_from(&source.tableau);
        self.foundations.clone_from(&source.foundations);
        self.reserve.clone_from(&source.reserve);
        self.stock.clone_from(&source.stock);
        self.waste.clone_from(&source.waste);
    }
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
        Pile::ranges(self.tableau.len(), self.reserve.len(), self.rules.stock)
    }

    /// The pile `name` names, if this board has it.
    fn place_named(&self, name: &str) -> Result<Pile, StepError> {
        let pile: Pile = name.parse().map_err(|_| StepError::NoPile {
            name: name.to_string(),
            piles: self.names(),
        })?;
        self.place(pile)
    }

    /// `pile`, if this board has it.
    fn place(&self, pile: Pile) -> Result<Pile, StepError> {
        let bad = || StepError::NoPile {
            name: pile.to_string(),
            piles: self.names(),
        };
        let has = match pile {
            Pile::Tableau(i) => usize::from(i) < self.tableau.len(),
            Pile::Reserve(k) => usize::from(k) < self.reserve.len(),
            Pile::Foundation => true,
            Pile::Stock | Pile::Waste => self.rules.stock,
        };
        if has {
            Ok(pile)
        } else {
            Err(bad())
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
    fn builds(&self, card: Card, under: Card) -> Result<(), StepError> {
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
            Err(StepError::DoesNotBuild { card, under, rule })
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
    pub fn play(&mut self, step: &Step) -> Result<(), StepError> {
        self.allows(step)?;
        self.apply(step);
        Ok(())
    }

    /// Whether the rules allow `step` here, the board untouched: every check [`Board::play`]
    /// makes, and only those (it makes them through this).
    ///
    /// # Errors
    /// Why the move is illegal.
    pub fn allows(&self, step: &Step) -> Result<(), StepError> {
        let from = self.place(step.from)?;
        let to = self.place(step.to)?;
        let card = step.card;
        let count = step.count;
        if count == 0 {
            return Err(StepError::NoCards);
        }
        if let Some(e) = self.pending_fill() {
            let (src, name) = if self.waste.is_empty() {
                (Pile::Stock, "stock")
            } else {
                (Pile::Waste, "waste")
            };
            let e = Pile::Tableau(e as u8);
            if from != src || to != e || count != 1 {
                return Err(StepError::MustFill {
                    pile: e,
                    from: name,
                });
            }
        }
        if from == Pile::Stock && to != Pile::Waste && self.pending_fill().is_none() {
            return Err(StepError::StockToWaste);
        }
        if count > 1 {
            if self.rules.options.sequence_moves == SequenceMoves::Single {
                return Err(StepError::OneAtATime(count));
            }
            let (Pile::Tableau(_), Pile::Tableau(_)) = (from, to) else {
                return Err(StepError::RunOffTableau);
            };
        }
        if from == to {
            return Err(StepError::SamePile);
        }
        // The source must show the card (and the run above it).
        match from {
            Pile::Tableau(p) => {
                let pile = &self.tableau[usize::from(p)];
                if pile.len() < count {
                    return Err(if pile.is_empty() {
                        StepError::Empty(step.from)
                    } else {
                        StepError::TooFew {
                            pile: step.from,
                            holds: pile.len(),
                        }
                    });
                }
                let bottom = pile[pile.len() - count];
                if bottom != card {
                    return Err(if count == 1 {
                        StepError::NotOnTop {
                            pile: step.from,
                            top: bottom,
                            card,
                        }
                    } else {
                        StepError::NotAtDepth {
                            count,
                            pile: step.from,
                            found: bottom,
                            card,
                        }
                    });
                }
                for w in pile[pile.len() - count..].windows(2) {
                    self.builds(w[1], w[0]).map_err(|why| StepError::NotARun {
                        count,
                        why: Box::new(why),
                    })?;
                }
            }
            Pile::Reserve(k) => match self.reserve[usize::from(k)] {
                Some(c) if c == card => {}
                Some(c) => {
                    return Err(StepError::CellHolds {
                        pile: step.from,
                        holds: c,
                        card,
                    })
                }
                None => return Err(StepError::Empty(step.from)),
            },
            Pile::Waste => match self.waste.last() {
                Some(&c) if c == card => {}
                Some(&c) => return Err(StepError::WasteTop { top: c, card }),
                None => return Err(StepError::WasteEmpty),
            },
            Pile::Stock => match self.stock.first() {
                Some(&c) if c == card => {}
                Some(&c) => return Err(StepError::StockNext { next: c, card }),
                None => return Err(StepError::StockEmpty),
            },
            Pile::Foundation => {
                if !self.rules.options.foundation_return {
                    return Err(StepError::NoFoundationReturn);
                }
                if !self.foundations.iter().any(|p| p.last() == Some(&card)) {
                    return Err(StepError::NotAFoundationTop(card));
                }
            }
        }
        // The destination must take it.
        match to {
            Pile::Foundation => {
                if self.foundation_for(card).is_none() {
                    let suit = card.suit().letter();
                    return Err(if self.foundations.len() == 4 {
                        match self.foundations[card.suit().index()].last() {
                            None => StepError::FoundationWantsAce(suit),
                            Some(&top) => StepError::FoundationShows {
                                card,
                                suit,
                                top,
                                next: (top.rank() < crate::card::KING)
                                    .then(|| Card::new(top.rank() + 1, top.suit())),
                            },
                        }
                    } else {
                        StepError::NoFoundationTakes(card)
                    });
                }
            }
            Pile::Tableau(d) => {
                if let Some(&under) = self.tableau[usize::from(d)].last() {
                    self.builds(card, under)?;
                }
            }
            Pile::Reserve(k) => {
                if let Some(c) = self.reserve[usize::from(k)] {
                    return Err(StepError::CellFull {
                        pile: step.to,
                        holds: c,
                    });
                }
                if !matches!(from, Pile::Tableau(_)) {
                    return Err(StepError::CellFromTableauOnly);
                }
            }
            Pile::Waste => {
                if from != Pile::Stock {
                    return Err(StepError::WasteFromStockOnly);
                }
            }
            Pile::Stock => return Err(StepError::NothingToStock),
        }
        if from == Pile::Foundation && !matches!(to, Pile::Tableau(_)) {
            return Err(StepError::FoundationBackToTableau);
        }
        Ok(())
    }

    /// Moves the cards of a step [`Board::allows`].
    fn apply(&mut self, step: &Step) {
        let (from, to, card, count) = (step.from, step.to, step.card, step.count);
        if let (1, Pile::Tableau(p), Pile::Tableau(d)) = (count, from, to) {
            // The common case, without the run's buffer.
            let c = self.tableau[usize::from(p)].pop().expect("checked");
            self.tableau[usize::from(d)].push(c);
            return;
        }
        let moved: Vec<Card> = match from {
            Pile::Tableau(p) => {
                let pile = &mut self.tableau[usize::from(p)];
                pile.split_off(pile.len() - count)
            }
            Pile::Reserve(k) => vec![self.reserve[usize::from(k)].take().expect("checked")],
            Pile::Waste => vec![self.waste.pop().expect("checked")],
            Pile::Stock => vec![self.stock.remove(0)],
            Pile::Foundation => {
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
            Pile::Foundation => {
                let p = self.foundation_for(card).expect("checked");
                self.foundations[p].push(card);
            }
            Pile::Tableau(d) => self.tableau[usize::from(d)].extend(moved),
            Pile::Reserve(k) => self.reserve[usize::from(k)] = Some(card),
            Pile::Waste => self.waste.push(card),
            Pile::Stock => unreachable!("refused by `allows`"),
        }
    }

    /// The step a player means by naming a source and a destination (`t3 f`, `w t1`,
    /// `s w`, `r2 t5`, `f:5H t2` for a foundation card, and a run's card count under
    /// unlimited sequence moves): the card is read off the board. Legality is checked
    /// only by [`Board::play`].
    ///
    /// # Errors
    /// If the source is not a pile of this board or shows no card.
    pub fn step_named(&self, from: &str, to: &str, count: usize) -> Result<Step, StepError> {
        let from = from.trim().to_ascii_lowercase();
        let to = self.place_named(&to.trim().to_ascii_lowercase())?;
        if let Some(card) = from.strip_prefix("f:") {
            let card: Card = card.parse()?;
            return Ok(Step {
                card,
                from: Pile::Foundation,
                to,
                count,
            });
        }
        let from = self.place_named(&from)?;
        let shown = self.shown(from, count.max(1));
        match shown[..] {
            [card] => Ok(Step {
                card,
                from,
                to,
                count: count.max(1),
            }),
            [] => Err(if count > 1 {
                StepError::DoesNotHold { pile: from, count }
            } else {
                StepError::Empty(from)
            }),
            _ => Err(StepError::NameTheFoundationCard { card: shown[0], to }),
        }
    }

    /// The piles of this board, in the order `legal_steps` tries them.
    fn all_piles(&self) -> Vec<Pile> {
        Pile::all(self.tableau.len(), self.reserve.len(), self.rules.stock).collect()
    }

    /// The card a pile shows for a move of `count` cards from it, if any.
    fn shown(&self, pile: Pile, count: usize) -> Vec<Card> {
        let Ok(place) = self.place(pile) else {
            return Vec::new();
        };
        match place {
            Pile::Tableau(p) => {
                let pile = &self.tableau[usize::from(p)];
                pile.len()
                    .checked_sub(count)
                    .map(|i| vec![pile[i]])
                    .unwrap_or_default()
            }
            Pile::Reserve(k) => self.reserve[usize::from(k)].into_iter().collect(),
            Pile::Waste => self.waste.last().copied().into_iter().collect(),
            Pile::Stock => self.stock.first().copied().into_iter().collect(),
            // Distinct foundation tops (with two decks two piles may show the same card).
            Pile::Foundation => {
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
        let piles = self.all_piles();
        let unlimited = self.rules.options.sequence_moves == SequenceMoves::Unlimited;
        let mut steps = Vec::new();
        // Each try is asked of this board (`allows`: the checks `play` makes, the board
        // untouched); most are illegal, nearly all for the destination, so a try to the same
        // pile, to a tableau card it does not build on or to a foundation that does not take
        // it is dropped first (`allows` would refuse each of them too).
        for &from in &piles {
            let max = match self.place(from) {
                Ok(Pile::Tableau(p)) if unlimited => self.tableau[usize::from(p)].len().max(1),
                _ => 1,
            };
            if from == Pile::Foundation && !self.rules.options.foundation_return {
                continue; // `allows` refuses every such move
            }
            for count in 1..=max {
                // A tableau pile's card at that depth without the list `shown` builds.
                let one;
                let list;
                let cards: &[Card] = match from {
                    Pile::Tableau(p) => {
                        let pile = &self.tableau[usize::from(p)];
                        one = pile.len().checked_sub(count).map(|i| pile[i]);
                        one.as_slice()
                    }
                    _ => {
                        list = self.shown(from, count);
                        &list
                    }
                };
                for &card in cards {
                    for &to in &piles {
                        let refused = to == from
                            || match to {
                                Pile::Tableau(d) => self.tableau[usize::from(d)]
                                    .last()
                                    .is_some_and(|&under| self.builds(card, under).is_err()),
                                Pile::Foundation => self.foundation_for(card).is_none(),
                                _ => false,
                            };
                        if refused {
                            continue;
                        }
                        let step = Step {
                            card,
                            from,
                            to,
                            count,
                        };
                        if self.allows(&step).is_ok() {
                            steps.push(step);
                        }
                    }
                }
            }
        }
        steps
    }

    /// Every legal move here (as [`Board::legal_steps`]) with the board it leaves.
    pub fn successors(&self) -> Vec<(Step, Board)> {
        self.legal_steps()
            .into_iter()
            .map(|step| {
                let mut board = self.clone();
                board.apply(&step);
                (step, board)
            })
            .collect()
    }

    /// Calls `f` with every legal move here (as [`Board::legal_steps`], in its order) and the
    /// board it leaves, played on `scratch` (whatever it held; its piles are reused) for
    /// callers that look at many boards and keep few.
    pub fn for_each_successor(&self, scratch: &mut Board, mut f: impl FnMut(Step, &Board)) {
        for step in self.legal_steps() {
            scratch.clone_from(self);
            scratch.apply(&step);
            f(step, scratch);
        }
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
            step: *step,
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
            from: Pile::from_index(m.from),
            to: Pile::from_index(m.to),
            count: usize::from(m.count),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;

    /// `successors` asks `allows` before it plays a try, skips the tries a glance at the
    /// destination refuses, and `for_each_successor` reuses one scratch board: none may drop
    /// a legal move or leave anything behind. Along a walk of each variant's deals (and under
    /// unlimited sequence moves), their moves and boards are exactly those of `play` on a
    /// fresh copy per try of every card, run length and destination, and the board asked is
    /// unchanged.
    #[test]
    fn successors_are_the_moves_a_fresh_board_per_try_allows() {
        for (variant, unlimited) in Variant::ALL
            .into_iter()
            .map(|v| (v, false))
            .chain([(Variant::StreetsAndAlleys, true), (Variant::Citadel, true)])
        {
            let mut rules = variant.rules();
            if unlimited {
                rules.options.sequence_moves = SequenceMoves::Unlimited;
            }
            for seed in 1..=3 {
                let deal = Deal::numbered(rules, Default::default(), seed).unwrap();
                let mut board = Board::new(&deal);
                for walk in 0..40 {
                    let before = board.clone();
                    let got = board.successors();
                    assert!(board == before, "{variant:?} {seed}: the board changed");
                    let mut lent = Vec::new();
                    board.for_each_successor(&mut Board::new(&deal), |s, b| {
                        lent.push((s, b.clone()));
                    });
                    assert!(lent == got, "{variant:?} {seed}, move {walk}: lent boards");
                    let mut want = Vec::new();
                    for from in board.all_piles() {
                        for count in 1..=13 {
                            for card in board.shown(from, count) {
                                for to in board.all_piles() {
                                    let step = Step {
                                        card,
                                        from,
                                        to,
                                        count,
                                    };
                                    let mut b = board.clone();
                                    if b.play(&step).is_ok() {
                                        want.push((step, b));
                                    }
                                }
                            }
                        }
                    }
                    assert!(got == want, "{variant:?} {seed}, move {walk}");
                    // The next board: a move drawn from the seed and the walk.
                    let Some((_, next)) = got.into_iter().nth((seed as usize * 7 + walk) % 5)
                    else {
                        break;
                    };
                    board = next;
                }
            }
        }
    }

    /// Pile names in any script are refused with the board's names, never a panic (the
    /// checker once split the name at its first byte); a pile the board lacks is refused the
    /// same way when played.
    #[test]
    fn non_ascii_pile_names_are_refused_not_panicked_on() {
        let deal = Deal::numbered(Variant::BeleagueredCastle.rules(), Default::default(), 1)
            .expect("deal 1");
        let board = Board::new(&deal);
        let card = board.tableau[0][board.tableau[0].len() - 1];
        for bad in [
            "é",
            "é1",
            "Ｔ1",
            "ｔ１",
            "t１",
            "\u{200b}t1",
            "t\u{200b}",
            "🂡",
            "",
            "t9",
            "r1",
        ] {
            let e = board.step_named(bad, "f", 1).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("there is no pile {bad} (t1..t8, f)"),
                "{bad:?}"
            );
            assert!(board.step_named("t1", bad, 1).is_err(), "{bad:?}");
        }
        // A pile that parses but is not on this board.
        for missing in [Pile::Tableau(8), Pile::Reserve(0), Pile::Stock, Pile::Waste] {
            let e = board
                .clone()
                .play(&Step::single(card, missing, Pile::Foundation))
                .unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("there is no pile {missing} (t1..t8, f)")
            );
            assert!(board
                .clone()
                .play(&Step::single(card, Pile::Tableau(0), missing))
                .is_err());
        }
        let e = replay(
            &deal,
            &[Step::single(card, Pile::Tableau(8), Pile::Foundation)],
        )
        .unwrap_err();
        assert_eq!(e.number, 1);
        assert!(matches!(e.why, StepError::NoPile { .. }));
        // The bare number is a tableau pile, in any case and with spaces around.
        assert_eq!(
            board.step_named(" 1 ", "F", 1),
            Ok(Step::single(card, Pile::Tableau(0), Pile::Foundation))
        );
    }
}
