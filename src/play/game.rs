//! One game in play, free of any user interface: the board, the moves made (each marked as
//! the player's or automatic), undo and redo without limit, restart, automatic moves, the
//! score, and save/load in the JSON of `castle solve --format json`.
//!
//! Every move goes through the rule-book checker ([`Board::play`]), so the game never keeps
//! its own copy of the rules. It adds two kinds of automatic move: the forced fill of an
//! emptied pile in a stock game ([`fill_step`], made always, as the rules demand it), and
//! the foundation moves that are *safe* to make ([`next_safe_step`], made while automatic
//! moves are on).
//!
//! The rest of the play code reads a board only through [`view`] and names piles only
//! through [`Target`].
//!
//! Pile words and keys live in [`super::notation`] (re-exported here); saving and loading,
//! in this module's `save` part ([`Game::to_json`], [`Game::from_json`]).

use crate::card::{Card, Suit};
use crate::check::{Board, Step, StepError};
use crate::deal::{Deal, Numbering};
use crate::pile::Pile;
use crate::rules::SequenceMoves;

mod save;

/// Why a move asked for in play cannot be made; nothing changes then.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    /// The checker refuses it, or cannot read it off the board.
    #[error(transparent)]
    Step(#[from] StepError),
    /// A card count above one under single-card rules.
    #[error(
        "these rules move one card at a time (runs move as one under --sequence-moves unlimited)"
    )]
    OneAtATime,
    /// `f` as the source where several foundation cards could go.
    #[error("several foundation cards can go to {dest}: name one ({cards})")]
    SeveralFoundationCards {
        /// The destination.
        dest: Pile,
        /// The choices, like `f:5H, f:7C`.
        cards: String,
    },
    /// `f` as the source with nothing on the foundations.
    #[error("the foundations are empty")]
    FoundationsEmpty,
    /// `f` as the source where no foundation card can go.
    #[error("no foundation card can go to {0}")]
    NoFoundationCardFor(Pile),
    /// A single card that does not fit, where a run would.
    #[error("{why} (a run of {n} fits: `{from} {to} {n}`)")]
    RunFits {
        /// Why the single card does not go.
        why: Box<PlayError>,
        /// The run's source.
        from: Pile,
        /// Its destination.
        to: Pile,
        /// Its length.
        n: usize,
    },
    /// A move the game has just made by itself.
    #[error("{step} was made automatically just now ({why})")]
    MadeAutomatically {
        /// The move.
        step: Step,
        /// Why it cannot be made again.
        why: StepError,
    },
    /// A quick move from the foundations, which hold several cards.
    #[error("name the foundation card to move, like `f:5H`")]
    NameTheFoundationCard,
    /// A quick move from a pile whose card goes nowhere.
    #[error("{card} on {pile} has no legal move")]
    NoLegalMove {
        /// The card.
        card: Card,
        /// The pile, as the player named it.
        pile: String,
    },
}

pub use super::notation::{source_name, step, Shape, Target, PILE_KEYS};

/// What the screen shows of a board: every list bottom to top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// Tableau piles `t1..tN`.
    pub tableau: Vec<Vec<Card>>,
    /// Foundations: C, D, H, S for one deck; with two decks eight piles, any ace to any
    /// empty one.
    pub foundations: Vec<Vec<Card>>,
    /// Reserve cells `r1..rK` (castile: 2).
    pub reserve: Vec<Option<Card>>,
    /// The stock as a face-down pile: the next card to deal last.
    pub stock: Vec<Card>,
    /// The waste: its top card (the playable one) last.
    pub waste: Vec<Card>,
}

impl View {
    /// Cards on the foundations.
    pub fn home(&self) -> usize {
        self.foundations.iter().map(Vec::len).sum()
    }

    /// Cards in the game.
    pub fn total(&self) -> usize {
        self.home()
            + self.tableau.iter().map(Vec::len).sum::<usize>()
            + self.reserve.iter().flatten().count()
            + self.stock.len()
            + self.waste.len()
    }

    /// The next card the stock deals.
    pub fn next_stock(&self) -> Option<Card> {
        self.stock.last().copied()
    }
}

/// The one function that reads a [`Board`] for display.
pub fn view(board: &Board) -> View {
    View {
        tableau: board.tableau.clone(),
        foundations: board.foundations.clone(),
        reserve: board.reserve.clone(),
        // The board keeps the stock next card first.
        stock: board.stock.iter().rev().copied().collect(),
        waste: board.waste.clone(),
    }
}

// The automatic foundation moves are the solver's own reduction: `Build::safe_home` (in
// `rules.rs`; proved in `state/safe.rs`), asked with this board's heights, and never with
// foundation return (a card sent home can come back, so home is not final and no argument
// applies). `next_safe_step` tries the tableau tops t1, t2, … then the cell cards, as the
// solver does.

/// True if `card` may go to its foundation automatically: no win is ever lost by sending
/// it there now. `alone` says the card is the last one of its tableau pile (false for a
/// cell card). Whether it fits is the caller's question.
pub fn safe_home(board: &Board, card: Card, alone: bool) -> bool {
    let rules = board.rules();
    if rules.options.foundation_return {
        return false;
    }
    let height = |p: &Vec<Card>| u8::try_from(p.len()).unwrap_or(u8::MAX);
    rules.build.safe_home(
        rules.decks,
        card.rank(),
        || board.foundations.iter().map(height).min().unwrap_or(0),
        || {
            // The suit's piles (one per deck); a pile not started yet stands at 0.
            let suit = card.suit();
            let mut heights: Vec<u8> = board
                .foundations
                .iter()
                .filter(|p| p.last().is_some_and(|t| t.suit() == suit))
                .map(height)
                .collect();
            heights.resize(rules.decks.into(), 0);
            heights.into_iter().min().unwrap_or(0)
        },
        || alone && rules.stock && !(board.waste.is_empty() && board.stock.is_empty()),
    )
}

/// The first automatic foundation move on `board`, trying the tableau tops t1, t2, … and
/// then the cell cards r1, r2, …: a card that fits its foundation and is [`safe_home`].
pub fn next_safe_step(board: &Board) -> Option<Step> {
    let piles = board.tableau.iter().enumerate().filter_map(|(i, pile)| {
        let &card = pile.last()?;
        Some((card, Pile::Tableau(i as u8), pile.len() == 1))
    });
    let cells = board
        .reserve
        .iter()
        .enumerate()
        .filter_map(|(k, c)| c.map(|c| (c, Pile::Reserve(k as u8), false)));
    piles.chain(cells).find_map(|(card, from, alone)| {
        if !safe_home(board, card, alone) {
            return None;
        }
        let s = step(card, from, Pile::Foundation);
        board.clone().play(&s).ok().map(|()| s)
    })
}

/// The forced fill of an emptied pile in a stock game, if one is due: the waste's top card,
/// or the stock's next card when the waste is empty ([`Board::pending_fill`]).
pub fn fill_step(board: &Board) -> Option<Step> {
    let e = board.pending_fill()?;
    let to = Pile::Tableau(e as u8);
    match board.waste.last() {
        Some(&c) => Some(step(c, Pile::Waste, to)),
        None => board.stock.first().map(|&c| step(c, Pile::Stock, to)),
    }
}

/// One move in the game's history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The move.
    pub step: Step,
    /// Made by the game (a safe foundation move or a forced fill), not by the player.
    pub auto: bool,
}

/// What one player's move did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// The player's move.
    pub step: Step,
    /// The automatic moves that followed it.
    pub auto: Vec<Step>,
}

impl Played {
    /// Every move made, the player's first.
    pub fn all(&self) -> Vec<Step> {
        std::iter::once(self.step)
            .chain(self.auto.iter().cloned())
            .collect()
    }
}

/// A game: the deal, the board now, the moves made and the moves undone.
#[derive(Clone, Debug)]
pub struct Game {
    deal: Deal,
    board: Board,
    done: Vec<Entry>,
    /// Undone moves, the next to redo last.
    undone: Vec<Entry>,
    auto: bool,
    /// Whose number the deal's seed is (shown in the title, kept in save files).
    numbering: Numbering,
}

impl Game {
    /// The deal as dealt, no move made (not even the automatic ones).
    fn unplayed(deal: Deal, auto: bool) -> Game {
        Game {
            board: Board::new(&deal),
            deal,
            done: Vec::new(),
            undone: Vec::new(),
            auto,
            numbering: Numbering::Castle,
        }
    }

    /// A new game of `deal`. With `auto` on, the safe foundation moves are made at once.
    pub fn new(deal: Deal, auto: bool) -> Game {
        let mut g = Game::unplayed(deal, auto);
        g.autoplay();
        g
    }

    /// The game with its deal's number read in `numbering` (castle's unless said; the deal
    /// itself must be that numbering's deal of its seed).
    pub fn numbered(mut self, numbering: Numbering) -> Game {
        self.numbering = numbering;
        self
    }

    /// Whose number the deal's seed is.
    pub fn numbering(&self) -> Numbering {
        self.numbering
    }

    /// The deal as dealt.
    pub fn deal(&self) -> &Deal {
        &self.deal
    }

    /// The rules.
    pub fn rules(&self) -> &crate::rules::Rules {
        &self.deal.rules
    }

    /// The board now.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The piles of the board.
    pub fn shape(&self) -> Shape {
        Shape::of(&self.board)
    }

    /// The moves made, in order.
    pub fn history(&self) -> &[Entry] {
        &self.done
    }

    /// How many undone moves redo can bring back.
    pub fn redo_len(&self) -> usize {
        self.undone.len()
    }

    /// Whether automatic safe moves are on.
    pub fn auto(&self) -> bool {
        self.auto
    }

    /// Moves made: (the player's, automatic).
    pub fn moves_made(&self) -> (usize, usize) {
        let auto = self.done.iter().filter(|e| e.auto).count();
        (self.done.len() - auto, auto)
    }

    /// Every card is on the foundations.
    pub fn is_won(&self) -> bool {
        self.board.cards_out() == 0
    }

    /// Records a move already played on the board. A move equal to the next one to redo
    /// takes that one off the redo list and keeps the rest; any other move clears it.
    fn record(&mut self, step: Step, auto: bool) {
        if self.undone.last().is_some_and(|e| e.step == step) {
            self.undone.pop();
        } else {
            self.undone.clear();
        }
        self.done.push(Entry { step, auto });
    }

    /// Makes the automatic moves there are and returns them: a forced fill always, the
    /// safe foundation moves while automatic moves are on.
    fn autoplay(&mut self) -> Vec<Step> {
        let mut made = Vec::new();
        loop {
            let next = fill_step(&self.board)
                .or_else(|| self.auto.then(|| next_safe_step(&self.board)).flatten());
            let Some(s) = next else { break };
            if self.board.play(&s).is_err() {
                break; // cannot happen: both come from the checker's own rules
            }
            self.record(s, true);
            made.push(s);
        }
        made
    }

    /// The move from `from` to `to`: exactly `count` cards when given, else the longest run
    /// that may go (one card under single-card rules; for `f` as the source, the
    /// one foundation card that fits).
    ///
    /// # Errors
    /// Why there is no such move.
    pub fn step_of(
        &self,
        from: Target,
        to: Target,
        count: Option<usize>,
    ) -> Result<Step, PlayError> {
        let b = &self.board;
        if from.is_foundation() && !self.rules().options.foundation_return {
            return Err(StepError::NoFoundationReturn.into());
        }
        let dest = to.destination();
        if count.is_some_and(|n| n > 1)
            && self.rules().options.sequence_moves == SequenceMoves::Single
        {
            return Err(PlayError::OneAtATime);
        }
        if let Some(n) = count {
            return Ok(b.step_named(&from.name(), &dest.to_string(), n)?);
        }
        let legal: Vec<Step> = b
            .legal_steps()
            .into_iter()
            .filter(|s| from.is_source_of(s) && s.to == dest)
            .collect();
        if from == Target::At(Pile::Foundation) && legal.len() > 1 {
            let cards: Vec<String> = legal.iter().map(|s| format!("f:{}", s.card)).collect();
            return Err(PlayError::SeveralFoundationCards {
                dest,
                cards: cards.join(", "),
            });
        }
        match legal.into_iter().max_by_key(|s| s.count) {
            Some(s) => Ok(s),
            None if from == Target::At(Pile::Foundation) => {
                Err(if b.foundations.iter().all(Vec::is_empty) {
                    PlayError::FoundationsEmpty
                } else {
                    PlayError::NoFoundationCardFor(dest)
                })
            }
            None => Ok(b.step_named(&from.name(), &dest.to_string(), 1)?),
        }
    }

    /// Plays from `from` to `to` (see [`Game::step_of`] for `count`), then the automatic
    /// moves.
    ///
    /// # Errors
    /// Why the move is illegal; nothing changes then.
    pub fn play(
        &mut self,
        from: Target,
        to: Target,
        count: Option<usize>,
    ) -> Result<Played, PlayError> {
        let s = self.step_of(from, to, count)?;
        self.play_step(&s).map_err(|why| {
            // A single card that does not fit, where a run would: say so.
            let run = (count == Some(1)
                && self.rules().options.sequence_moves == SequenceMoves::Unlimited)
                .then(|| {
                    self.board
                        .legal_steps()
                        .into_iter()
                        .find(|l| from.is_source_of(l) && l.to == to.destination() && l.count > 1)
                })
                .flatten();
            match run {
                Some(l) => PlayError::RunFits {
                    why: Box::new(why),
                    from: l.from,
                    to: l.to,
                    n: l.count,
                },
                None => why,
            }
        })
    }

    /// Plays a named move, then the automatic moves.
    ///
    /// # Errors
    /// Why the move is illegal; nothing changes then.
    pub fn play_step(&mut self, s: &Step) -> Result<Played, PlayError> {
        self.board.play(s).map_err(|why| {
            // A move the game has just made by itself (typed from a solver's line, say).
            let made = self
                .done
                .iter()
                .rev()
                .take_while(|e| e.auto)
                .any(|e| &e.step == s);
            if made {
                PlayError::MadeAutomatically { step: *s, why }
            } else {
                PlayError::Step(why)
            }
        })?;
        self.record(*s, false);
        let auto = self.autoplay();
        Ok(Played { step: *s, auto })
    }

    /// Moves the card (or run) of `from` where it does most good, as a single click does in
    /// the seed games: home if it fits, else onto another card (the longest run that goes),
    /// else to an empty pile (a run that leaves a card behind, if one may go), else to a
    /// cell. The stock deals.
    ///
    /// # Errors
    /// Why no move from that pile exists.
    pub fn quick(&mut self, from: Target) -> Result<Played, PlayError> {
        if from == Target::At(Pile::Foundation) && self.rules().options.foundation_return {
            return Err(PlayError::NameTheFoundationCard);
        }
        let b = &self.board;
        let legal: Vec<Step> = b
            .legal_steps()
            .into_iter()
            .filter(|s| from.is_source_of(s))
            .collect();
        let pile = |s: &Step| match s.to {
            Pile::Tableau(j) => b.tableau.get(usize::from(j)),
            _ => None,
        };
        let left = |s: &Step| match from {
            Target::At(Pile::Tableau(i)) => b.tableau[usize::from(i)].len() - s.count,
            _ => 1,
        };
        let home = legal.iter().find(|s| s.to == Pile::Foundation);
        let onto_card = legal
            .iter()
            .filter(|s| pile(s).is_some_and(|p| !p.is_empty()))
            .max_by_key(|s| s.count);
        let to_space = legal
            .iter()
            .filter(|s| pile(s).is_some_and(Vec::is_empty))
            .max_by_key(|s| (left(s) > 0, s.count));
        let best = home
            .or(onto_card)
            .or(to_space)
            .or_else(|| legal.first())
            .cloned();
        match best {
            Some(s) => self.play_step(&s),
            None => Err(match from {
                Target::At(Pile::Stock) if b.stock.is_empty() => StepError::StockEmpty.into(),
                _ if from.is_foundation() && !self.rules().options.foundation_return => {
                    StepError::NoFoundationReturn.into()
                }
                _ => match b.step_named(&from.name(), &Pile::Foundation.to_string(), 1) {
                    Ok(s) => PlayError::NoLegalMove {
                        card: s.card,
                        pile: from.name(),
                    },
                    Err(e) => e.into(),
                },
            }),
        }
    }

    /// The board after the moves made, replayed from the deal.
    fn replayed(&self) -> Board {
        let mut b = Board::new(&self.deal);
        for d in &self.done {
            // Every move in the history was legal when it was made, from this same start.
            let _ = b.play(&d.step);
        }
        b
    }

    /// Takes back the last move (an automatic move counts as one), and with a forced fill
    /// the move that emptied the pile too: a position waiting for its fill is never left
    /// on the board. The moves taken back, in the order they were made.
    pub fn undo(&mut self) -> Option<Vec<Entry>> {
        let mut taken = vec![self.done.pop()?];
        self.board = self.replayed();
        while self.board.pending_fill().is_some() {
            let Some(e) = self.done.pop() else { break };
            taken.push(e);
            self.board = self.replayed();
        }
        self.undone.extend(taken.iter().cloned());
        taken.reverse();
        Some(taken)
    }

    /// Makes the last undone move again, and the forced fill after it. The moves made.
    pub fn redo(&mut self) -> Option<Vec<Entry>> {
        let mut made = Vec::new();
        while let Some(e) = self.undone.pop() {
            if self.board.play(&e.step).is_err() {
                // The redo list always starts from this position; a failure would be a bug,
                // and dropping the list is the safe way out.
                self.undone.clear();
                break;
            }
            self.done.push(e.clone());
            made.push(e);
            if self.board.pending_fill().is_none() {
                break;
            }
        }
        if made.is_empty() {
            return None;
        }
        // A fill the redo list did not hold (it always does) is made all the same.
        while let Some(s) = fill_step(&self.board) {
            if self.board.play(&s).is_err() {
                break;
            }
            self.record(s, true);
            made.push(Entry {
                step: s,
                auto: true,
            });
        }
        Some(made)
    }

    /// Back to the deal: every move goes onto the redo list, then the automatic moves of the
    /// opening are made again (if they are on), which take their own moves off that list.
    pub fn restart(&mut self) -> Vec<Step> {
        while let Some(e) = self.done.pop() {
            self.undone.push(e);
        }
        self.board = Board::new(&self.deal);
        self.autoplay()
    }

    /// Switches automatic moves on or off; switching on makes the safe moves there are.
    pub fn set_auto(&mut self, on: bool) -> Vec<Step> {
        self.auto = on;
        self.autoplay()
    }
}

/// The suit an empty foundation stands for, when there is one foundation per suit.
pub fn foundation_suit(index: usize, count: usize) -> Option<Suit> {
    (count == Suit::NUM).then(|| Suit::from_index(index))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats;
    use crate::report::Report;
    use crate::rules::Variant;

    /// A pile by name (tests only: the name is known good).
    fn pile(name: &str) -> Pile {
        name.parse().expect("a pile name")
    }

    /// A target by pile name (tests only: the name is known good).
    fn at(name: &str) -> Target {
        Target::At(pile(name))
    }

    fn bc(seed: u64) -> Deal {
        Deal::from_seed(Variant::BeleagueredCastle.rules(), seed)
    }

    /// Any legal player move from the position (the first found), if one exists.
    fn some_move(g: &Game) -> Option<Step> {
        g.board().legal_steps().into_iter().next()
    }

    /// A small deterministic generator for random playouts.
    struct Lcg(u64);

    impl Lcg {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((self.0 >> 33) % n as u64) as usize
        }
    }

    /// Plays up to `moves` random legal moves (automatic moves off; fills are made), calling
    /// `at` on every position on the way.
    fn playout(deal: Deal, seed: u64, moves: usize, mut at: impl FnMut(&Game)) -> Game {
        let mut g = Game::new(deal, false);
        let mut rng = Lcg(seed);
        for _ in 0..moves {
            at(&g);
            let legal = g.board().legal_steps();
            if legal.is_empty() {
                break;
            }
            // Foundation moves now and then, so the foundations grow.
            let s = *legal
                .iter()
                .find(|s| s.to == "f" && rng.below(2) == 0)
                .unwrap_or(&legal[rng.below(legal.len())]);
            g.play_step(&s).unwrap();
        }
        at(&g);
        g
    }

    const CASTILE: &str = "\
variant: castile
foundations: -
reserve: 2H AS
t1: QS 2S 5H 6D 3H
t2: 7C 6H AD TH 5S
t3: 9S 2C TD 6C QH
t4: KD JC KS 8C 9D
t5: 7S 5D 3C KC 8H
t6: 3S 7D 6S 8D 3D
t7: 4H TS 9C 4D JH
t8: AC QC 4C 4S JD
t9: KH TC QD 9H 2D
t10: JS 5C 8S AH 7H
";

    fn read(text: &str) -> Deal {
        formats::read_deal(text, "test", Default::default()).unwrap()
    }

    #[test]
    fn keys_and_words_name_the_same_piles() {
        let shape = Shape {
            piles: 12,
            cells: 2,
            stock: true,
        };
        for t in Pile::all(12, 2, true).map(Target::At) {
            assert_eq!(Target::of_keys(&t.keys().unwrap(), shape), Some(t));
            assert_eq!(Target::parse(&t.name(), shape), Ok(t));
        }
        for i in 0..12 {
            assert_eq!(
                Target::parse(&(i + 1).to_string(), shape),
                Ok(Target::At(Pile::Tableau(i)))
            );
        }
        let c = |s: &str| s.parse::<Card>().unwrap();
        assert_eq!(Target::parse("f:5h", shape), Ok(Target::Home(c("5H"))));
        assert_eq!(Target::Home(c("5H")).name(), "f:5H");
        let bc = Shape {
            piles: 8,
            cells: 0,
            stock: false,
        };
        assert_eq!(Target::of_keys("9", bc), None);
        assert_eq!(Target::of_keys("f", bc), Some(at("f")));
        assert_eq!(Target::of_keys("r3", shape), None);
        for bad in ["t9", "x", "t0", "r1", "s", "w", "f:", "f:1X"] {
            assert!(Target::parse(bad, bc).is_err(), "{bad}");
        }
        for k in ["r", "s", "w", "r1"] {
            assert_eq!(Target::of_keys(k, bc), None, "{k}");
        }
        assert!(Target::parse("r3", shape)
            .unwrap_err()
            .to_string()
            .contains("r1..r2"));
    }

    #[test]
    fn the_view_shows_cells_stock_and_waste_in_its_orders() {
        let deal = read(CASTILE);
        let v = view(&Board::new(&deal));
        assert_eq!(
            v.reserve,
            vec![deal.reserve.first().copied(), deal.reserve.get(1).copied()]
        );
        assert_eq!(v.total(), 52);
        let court = Deal::from_seed(Variant::Courtyard.rules(), 1);
        let mut b = Board::new(&court);
        b.play(&step(court.stock[0], pile("s"), pile("w"))).unwrap();
        let v = view(&b);
        assert_eq!(v.waste, vec![court.stock[0]]);
        assert_eq!(v.next_stock(), Some(court.stock[1]));
        assert_eq!(v.stock.len(), 91);
        assert_eq!(v.foundations.len(), 8);
        assert_eq!(v.total(), 104);
    }

    #[test]
    fn safe_rule_is_horne_rule() {
        let deal = |h: [u8; 4]| Deal {
            foundations: [h[0], h[1], h[2], h[3], 0, 0, 0, 0],
            ..Deal::empty(Variant::BeleagueredCastle.rules())
        };
        let c = |s: &str| s.parse::<Card>().unwrap();
        let safe = |h, card| safe_home(&Board::new(&deal(h)), c(card), false);
        assert!(safe([1, 1, 1, 1], "3C"));
        assert!(!safe([2, 1, 1, 1], "4C"));
        assert!(safe([2, 2, 2, 2], "4C"));
        assert!(safe([0, 0, 0, 0], "2H"));
        assert!(!safe([0, 5, 5, 5], "3H"));
        // No automatic moves at all with foundation return.
        let back = Deal {
            rules: Variant::BeleagueredCastle
                .rules()
                .with_foundation_return(true),
            ..deal([1, 1, 1, 1])
        };
        assert!(!safe_home(&Board::new(&back), c("2C"), false));
    }

    /// The automatic moves are the solver's: on random positions of every variant (and with
    /// foundation return), the first safe move is the one `Position::safe_move` makes.
    #[test]
    fn automatic_moves_are_the_solvers_safe_moves() {
        let mut rules: Vec<crate::Rules> = Variant::ALL.iter().map(|v| v.rules()).collect();
        rules.push(Variant::Fortress.rules().with_foundation_return(true));
        rules.push(Variant::Courtyard.rules().with_foundation_return(true));
        let mut compared = [0usize; 2];
        for r in rules {
            for seed in 1..=6 {
                let deal = Deal::from_seed(r, seed);
                playout(deal, seed, 120, |g| {
                    let b = g.board();
                    let ours = next_safe_step(b);
                    let theirs = crate::state::Position::new(&b.to_deal()).safe_move();
                    compared[usize::from(ours.is_some())] += 1;
                    match (&ours, theirs) {
                        (None, None) => {}
                        (Some(s), Some(m)) => {
                            assert_eq!(s.card, m.card, "{}: {b:?}", r.variant);
                            let name = crate::moves::pile_name(m.from);
                            // The search packs the cell cards to the front.
                            assert!(
                                s.from == name.as_str()
                                    || matches!(s.from, Pile::Reserve(_)) && name.starts_with('r'),
                                "{} {s} vs {name}",
                                r.variant
                            );
                        }
                        _ => panic!(
                            "{}: ours {ours:?}, the solver's {theirs:?}: {b:?}",
                            r.variant
                        ),
                    }
                });
            }
        }
        assert!(compared[0] > 100 && compared[1] > 20, "{compared:?}");
    }

    #[test]
    fn automatic_moves_follow_each_move_and_undo_takes_them_back_one_by_one() {
        // Streets and alleys starts with every ace in a pile: some deal has an ace on top.
        let deal = (1..200)
            .map(|s| Deal::from_seed(Variant::StreetsAndAlleys.rules(), s))
            .find(|d| d.tableau.iter().any(|p| p.last().unwrap().rank() == 1))
            .unwrap();
        let g = Game::new(deal.clone(), true);
        let (manual, auto) = g.moves_made();
        assert_eq!(manual, 0);
        assert!(auto >= 1);
        assert!(g.history().iter().all(|e| e.auto));
        assert!(next_safe_step(g.board()).is_none());
        let mut g2 = g.clone();
        for _ in 0..auto {
            assert!(g2.undo().unwrap()[0].auto);
        }
        assert_eq!(g2.board(), &Board::new(&deal));
        // Undo does not make the automatic moves again.
        assert_eq!(g2.history().len(), 0);
        // Redo brings each back.
        for _ in 0..auto {
            g2.redo().unwrap();
        }
        assert_eq!(g2.board(), g.board());
        let off = Game::new(deal.clone(), false);
        assert_eq!(off.history().len(), 0);
    }

    #[test]
    fn an_emptied_courtyard_pile_is_filled_at_once_and_undo_takes_both_back() {
        // Courtyard deal 1 has AC alone on t5: sending it home empties t5.
        let deal = Deal::from_seed(Variant::Courtyard.rules(), 1);
        assert_eq!(deal.tableau[4], vec!["AC".parse::<Card>().unwrap()]);
        for auto in [false, true] {
            let mut g = Game::new(deal.clone(), auto);
            let start = g.board().clone();
            let p = g.play(at("t5"), at("f"), None).unwrap();
            // The stock's next card fills t5 (the waste is empty), even with auto off.
            assert_eq!(p.auto[0], step(deal.stock[0], pile("s"), pile("t5")));
            assert!(g.history()[1].auto);
            assert!(g.board().pending_fill().is_none());
            let undone = g.undo().unwrap();
            assert_eq!(undone[0].step.to, "f");
            assert!(undone.len() >= 2);
            if !auto {
                assert_eq!(g.board(), &start);
                assert_eq!(undone.len(), 2);
            }
            // Redo makes the move and its fill again.
            let redone = g.redo().unwrap();
            assert_eq!(redone.len(), 2);
            assert_eq!(redone[1].step, p.auto[0]);
            // Typing the fill again says it was made.
            let e = g.play_step(&p.auto[0]).unwrap_err();
            assert!(e.to_string().contains("made automatically"), "{e}");
        }
        // Random courtyard games never rest on a pile waiting for its fill, and undo
        // walks back to the deal through positions seen on the way.
        for seed in 1..=4 {
            let mut seen = Vec::new();
            let mut g = playout(
                Deal::from_seed(Variant::Courtyard.rules(), seed),
                seed,
                80,
                |g| {
                    assert!(g.board().pending_fill().is_none());
                    seen.push(g.board().clone());
                },
            );
            assert!(g
                .history()
                .iter()
                .any(|e| e.auto && matches!(e.step.to, Pile::Tableau(_))));
            while g.undo().is_some() {
                assert!(seen.contains(g.board()));
            }
            assert_eq!(g.board(), &seen[0]);
        }
    }

    #[test]
    fn castile_cells_take_and_give_cards() {
        let mut g = Game::new(read(CASTILE), false);
        // Both cells are full: t1's top cannot go to r1.
        let before = g.board().clone();
        let e = g.play(at("t1"), at("r1"), None).unwrap_err();
        assert!(e.to_string().contains("already holds"), "{e}");
        assert_eq!(g.board(), &before);
        // AS from r2 home, then 3H from t1 into the empty cell; it cannot go back onto 6D.
        g.play(at("r2"), at("f"), None).unwrap();
        g.play(at("t1"), at("r2"), None).unwrap();
        assert_eq!(g.board().reserve[1], Some("3H".parse().unwrap()));
        let before = g.board().clone();
        let e = g.play(at("r2"), at("t1"), None).unwrap_err();
        assert!(e.to_string().contains("cannot go on 6D"), "{e}");
        assert_eq!(g.board(), &before);
        g.undo();
        g.undo();
        assert_eq!(g.board(), &Board::new(g.deal()));
    }

    /// A fortress end game: the queens of three suits home, the spades to the nine.
    const FORTRESS_END: &str = "\
variant: fortress
foundations: QC QD QH 9S
t1: KC
t2: KD
t3: KH JS
t4: KS TS QS
t5:
t6:
t7:
t8:
t9:
t10:
";

    #[test]
    fn foundation_cards_come_back_only_with_foundation_return() {
        let c = |s: &str| s.parse::<Card>().unwrap();
        let mut g = Game::new(read(FORTRESS_END), false);
        let e = g.play(at("f"), at("t1"), None).unwrap_err();
        assert!(e.to_string().contains("no foundation return"), "{e}");
        let text = format!("{FORTRESS_END}foundation-return: yes\n");
        let mut g = Game::new(read(&text), false);
        // Only QC goes on KC; any of the four may go to an empty pile.
        let p = g.play(at("f"), at("t1"), None).unwrap();
        assert_eq!(p.step, step(c("QC"), pile("f"), pile("t1")));
        let e = g.play(at("f"), at("t5"), None).unwrap_err();
        assert!(e.to_string().contains("f:QD"), "{e}");
        g.play(Target::Home(c("9S")), at("t5"), None).unwrap();
        assert_eq!(g.board().tableau[4], vec![c("9S")]);
        // No automatic moves with foundation return.
        assert_eq!(g.set_auto(true), vec![]);
    }

    #[test]
    fn runs_move_as_one_under_unlimited_sequence_moves() {
        let text = "\
variant: fortress
sequence-moves: unlimited
foundations: QC QD QH 7S
t1: KS 9S 8S
t2: TS
t3: KC
t4: KD
t5: KH
t6: JS QS
t7:
t8:
t9:
t10:
";
        let mut g = Game::new(read(text), false);
        let before = g.board().clone();
        let e = g.play(at("t1"), at("t2"), Some(1)).unwrap_err();
        assert!(e.to_string().contains("a run of 2 fits: `t1 t2 2`"), "{e}");
        assert_eq!(g.board(), &before);
        let p = g.play(at("t1"), at("t2"), None).unwrap();
        assert_eq!(p.step.count, 2);
        assert_eq!(g.board().tableau[1].len(), 3);
        g.undo();
        g.play(at("t1"), at("t2"), Some(2)).unwrap();
        assert_eq!(g.board().tableau[1].len(), 3);
    }

    #[test]
    fn undo_redo_restart_round_trip() {
        let mut g = Game::new(bc(7), false);
        let start = g.board().clone();
        let mut boards = vec![start.clone()];
        for _ in 0..6 {
            let Some(s) = some_move(&g) else { break };
            g.play_step(&s).unwrap();
            boards.push(g.board().clone());
        }
        let n = g.history().len();
        assert!(n > 0);
        for k in (0..n).rev() {
            g.undo().unwrap();
            assert_eq!(g.board(), &boards[k]);
        }
        assert!(g.undo().is_none());
        for b in boards.iter().skip(1) {
            g.redo().unwrap();
            assert_eq!(g.board(), b);
        }
        assert!(g.redo().is_none());
        g.restart();
        assert_eq!(g.board(), &start);
        assert_eq!(g.redo_len(), n);
        // Making the next undone move by hand keeps the rest of the redo list; any other
        // move clears it.
        let mut other = g.clone();
        let redone = g.clone().redo().unwrap()[0].step;
        g.play_step(&redone).unwrap();
        assert_eq!(g.redo_len(), n - 1);
        if let Some(s) = other
            .board()
            .legal_steps()
            .into_iter()
            .find(|s| *s != redone)
        {
            other.play_step(&s).unwrap();
            assert_eq!(other.redo_len(), 0);
        }
    }

    #[test]
    fn an_illegal_move_changes_nothing() {
        let mut g = Game::new(bc(3), false);
        let before = g.board().clone();
        // A card never goes onto its own pile, and a pile that does not exist is refused.
        assert!(g.play(at("t1"), at("t1"), None).is_err());
        assert!(g.play(at("t10"), at("t1"), None).is_err());
        assert!(g.play(at("f"), at("t1"), None).is_err());
        assert!(g.play(at("s"), at("w"), None).is_err());
        assert!(g.quick(at("r1")).is_err());
        assert_eq!(g.board(), &before);
        assert_eq!(g.history().len(), 0);
        // The stock deals only to the waste.
        let mut c = Game::new(Deal::from_seed(Variant::Courtyard.rules(), 2), false);
        let before = c.board().clone();
        let e = c.play(at("s"), at("t1"), None).unwrap_err();
        assert!(e.to_string().contains("stock cards go to the waste"), "{e}");
        assert_eq!(c.board(), &before);
        let p = c.quick(at("s")).unwrap();
        assert_eq!(p.step.to, "w");
    }

    #[test]
    fn quick_prefers_the_foundation() {
        let mut g = Game::new(bc(11), false);
        if let Some(s) = g.board().legal_steps().into_iter().find(|s| s.to == "f") {
            let from = Target::At(s.from);
            let p = g.quick(from).unwrap();
            assert_eq!(p.step, s);
        }
    }

    #[test]
    fn save_and_load_restore_the_game() {
        let mut texts = Vec::new();
        for deal in [
            bc(5),
            Deal::from_seed(Variant::Courtyard.rules(), 1),
            read(CASTILE),
        ] {
            let mut g = playout(deal, 9, 40, |_| {});
            g.set_auto(true);
            g.undo();
            g.undo();
            let text = g.to_json();
            let back = Game::from_json(&text, "save.json").unwrap();
            assert_eq!(back.board(), g.board());
            assert_eq!(back.history(), g.history());
            assert_eq!(back.undone, g.undone);
            assert_eq!(back.auto(), g.auto());
            // It is the solve report of the contract, and the checker replays it.
            let r: Report = serde_json::from_str(&text).unwrap();
            assert_eq!(r.moves.len(), g.history().len());
            assert_eq!(r.verdict, "unknown");
            crate::check::replay(g.deal(), &r.steps("save").unwrap()).unwrap();
            texts.push(text);
        }
        let text = &texts[0];
        // A bad move is named by number.
        let to = |name: &str| {
            let at = text.find("\"to\": \"").unwrap() + 7;
            let end = at + text[at..].find('"').unwrap();
            format!("{}{name}{}", &text[..at], &text[end..])
        };
        let e = Game::from_json(&to("t9"), "save.json").unwrap_err();
        assert_eq!(e.kind, crate::InputKind::Move);
        assert!(e.to_string().starts_with("save.json: move 1"), "{e}");
        // A name that is no pile at all is refused as the JSON is read, naming it.
        let e = Game::from_json(&to("t9x"), "save.json").unwrap_err();
        assert_eq!(e.kind, crate::InputKind::Report);
        assert!(e.to_string().contains("`t9x` is not a pile name"), "{e}");
    }
}
