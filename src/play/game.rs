//! One game in play, free of any user interface: the board, the moves made (each marked as
//! the player's or automatic), undo and redo without limit, restart, automatic safe moves to
//! the foundations, the score, and save/load in the JSON of `castle solve --format json`.
//!
//! Every move goes through the rule-book checker ([`Board::play`]), so the game never keeps
//! its own copy of the rules; the only rule this module adds is which foundation moves are
//! *safe* to make automatically ([`safe_home`]).
//!
//! The rest of the play code reads a board only through [`view`] and names piles only
//! through [`Target`]: those two are the places to extend when boards gain reserve cells, a
//! stock and a waste.

use crate::card::{Card, Suit};
use crate::check::{Board, Step};
use crate::deal::Deal;
use crate::formats::{self, Format, ReadOptions};
use crate::report::{MoveJson, Report};
use crate::rules::{Build, Rules};
use crate::InputError;
use serde_json::Value;

/// A step of the checker, made in one place so that a new field of [`Step`] is added here
/// only.
pub fn step(card: Card, from: &str, to: &str) -> Step {
    Step::single(card, from, to)
}

/// What the screen shows of a board: every list bottom to top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// Tableau piles `t1..tN`.
    pub tableau: Vec<Vec<Card>>,
    /// Foundations (C, D, H, S for one deck).
    pub foundations: Vec<Vec<Card>>,
    /// Reserve cells `r1..rK` (none in the variants built so far).
    pub reserve: Vec<Option<Card>>,
    /// The stock, next card last (none so far).
    pub stock: Vec<Card>,
    /// The waste, top card last (none so far).
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
}

/// The one function that reads a [`Board`] for display.
pub fn view(board: &Board) -> View {
    View {
        tableau: board.tableau.clone(),
        foundations: board.foundations.clone(),
        reserve: Vec::new(),
        stock: Vec::new(),
        waste: Vec::new(),
    }
}

/// A pile the player names by key, click or word.
///
/// Reserve cells (`r1..`), the stock (`s`) and the waste (`w`) will be further variants; the
/// key map of [`Target::of_key`] leaves `r`, `s` and `w` free for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// Tableau pile, 0-based (`t1` is `Pile(0)`).
    Pile(usize),
    /// The foundations (the card's suit picks the pile).
    Foundation,
}

/// The keys of the tableau piles, in order: the top row of the keyboard.
pub const PILE_KEYS: [char; 12] = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '-', '='];

impl Target {
    /// The pile name used in moves: `t3`, `f`.
    pub fn name(self) -> String {
        match self {
            Target::Pile(i) => format!("t{}", i + 1),
            Target::Foundation => "f".to_string(),
        }
    }

    /// The key that picks this pile in the full-screen game.
    pub fn key(self) -> Option<char> {
        match self {
            Target::Pile(i) => PILE_KEYS.get(i).copied(),
            Target::Foundation => Some('f'),
        }
    }

    /// The pile a key picks on a board with `piles` tableau piles: `1`..`9`, `0`, `-`, `=`
    /// for t1..t12, `f` for the foundations.
    pub fn of_key(key: char, piles: usize) -> Option<Target> {
        if key == 'f' {
            return Some(Target::Foundation);
        }
        PILE_KEYS
            .iter()
            .position(|&k| k == key)
            .filter(|&i| i < piles)
            .map(Target::Pile)
    }

    /// Reads a pile word: `t3`, `3` or `f` (any case).
    ///
    /// # Errors
    /// What the word should have been.
    pub fn parse(word: &str, piles: usize) -> Result<Target, String> {
        let w = word.trim().to_ascii_lowercase();
        if w == "f" {
            return Ok(Target::Foundation);
        }
        let digits = w.strip_prefix('t').unwrap_or(&w);
        match digits.parse::<usize>() {
            Ok(n) if (1..=piles).contains(&n) => Ok(Target::Pile(n - 1)),
            _ => Err(format!(
                "`{word}` is not a pile (t1..t{piles}, or 1..{piles}, or f)"
            )),
        }
    }

    /// The pile a step names, if it is one of these.
    pub fn of_name(name: &str, piles: usize) -> Option<Target> {
        Target::parse(name, piles).ok()
    }
}

/// True if `card` may go to its foundation automatically: no win is ever lost by sending
/// it there now. Extend this with one arm per build rule.
pub fn safe_home(rules: &Rules, foundations: &[Vec<Card>], card: Card) -> bool {
    match rules.build {
        // Horne's rule, the same as the solver's (`Position::safe_move`): with building down
        // regardless of suit, only cards of rank r-1 could ever be placed on a card of rank r.
        // When every foundation holds at least r-2, each of those r-1 cards can go home
        // itself at any time, and nothing can be built on it (its r-2 cards are all home),
        // so no card ever needs the r card to stay out.
        Build::DownAnySuit => {
            let least = foundations.iter().map(Vec::len).min().unwrap_or(0);
            usize::from(card.rank()) <= least + 2
        }
        // Up or down in suit with one deck: every card that fits (see
        // `Position::safe_move` for the argument).
        Build::UpDownSuit => rules.decks == 1,
        // Courtyard: both cards one rank lower of the suit must be home; the caller's fill
        // rule is the solver's (see `Position::safe_move`). Not played automatically here.
        Build::DownSuit => false,
    }
}

/// The first automatic move on `board`, scanning t1, t2, …: a top card that fits its
/// foundation and is [`safe_home`].
pub fn next_safe_step(rules: &Rules, board: &Board) -> Option<Step> {
    board.tableau.iter().enumerate().find_map(|(i, pile)| {
        let &card = pile.last()?;
        if !safe_home(rules, &board.foundations, card) {
            return None;
        }
        let s = step(card, &Target::Pile(i).name(), "f");
        board.clone().play(&s).ok().map(|()| s)
    })
}

/// One move in the game's history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The move.
    pub step: Step,
    /// Made by the automatic safe moves, not by the player.
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
        std::iter::once(self.step.clone())
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
}

impl Game {
    /// A new game of `deal`. With `auto` on, the safe foundation moves are made at once.
    pub fn new(deal: Deal, auto: bool) -> Game {
        let mut g = Game {
            board: Board::new(&deal),
            deal,
            done: Vec::new(),
            undone: Vec::new(),
            auto,
        };
        g.autoplay();
        g
    }

    /// The deal as dealt.
    pub fn deal(&self) -> &Deal {
        &self.deal
    }

    /// The rules.
    pub fn rules(&self) -> &Rules {
        &self.deal.rules
    }

    /// The board now.
    pub fn board(&self) -> &Board {
        &self.board
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

    /// Makes every automatic move there is (if they are on) and returns them.
    fn autoplay(&mut self) -> Vec<Step> {
        let mut made = Vec::new();
        if !self.auto {
            return made;
        }
        while let Some(s) = next_safe_step(&self.deal.rules, &self.board) {
            if self.board.play(&s).is_err() {
                break; // cannot happen: next_safe_step tried it
            }
            self.record(s.clone(), true);
            made.push(s);
        }
        made
    }

    /// The top card of a source pile.
    fn source_card(&self, from: Target) -> Result<Card, String> {
        match from {
            Target::Pile(i) => match self.board.tableau.get(i) {
                None => Err(format!("there is no pile {}", from.name())),
                Some(p) => p
                    .last()
                    .copied()
                    .ok_or_else(|| format!("{} is empty", from.name())),
            },
            Target::Foundation => {
                Err("cards on the foundations stay there in these rules".to_string())
            }
        }
    }

    /// Plays the top card of `from` onto `to`, then the automatic moves.
    ///
    /// # Errors
    /// Why the move is illegal; nothing changes then.
    pub fn play(&mut self, from: Target, to: Target) -> Result<Played, String> {
        let card = self.source_card(from)?;
        self.play_step(&step(card, &from.name(), &to.name()))
    }

    /// Plays a named move, then the automatic moves.
    ///
    /// # Errors
    /// Why the move is illegal; nothing changes then.
    pub fn play_step(&mut self, s: &Step) -> Result<Played, String> {
        self.board.play(s)?;
        self.record(s.clone(), false);
        let auto = self.autoplay();
        Ok(Played {
            step: s.clone(),
            auto,
        })
    }

    /// Moves the top card of `from` where it does most good, as a single click does in the
    /// seed games: home if it fits, else onto another card, else to an empty pile.
    ///
    /// # Errors
    /// Why no move of that card exists.
    pub fn quick(&mut self, from: Target) -> Result<Played, String> {
        let card = self.source_card(from)?;
        let name = from.name();
        let legal: Vec<Step> = self
            .board
            .legal_steps()
            .into_iter()
            .filter(|s| s.from == name)
            .collect();
        let onto_card = |s: &&Step| {
            Target::of_name(&s.to, self.board.tableau.len())
                .is_some_and(|t| matches!(t, Target::Pile(j) if !self.board.tableau[j].is_empty()))
        };
        let best = legal
            .iter()
            .find(|s| s.to == "f")
            .or_else(|| legal.iter().find(onto_card))
            .or_else(|| legal.first())
            .cloned();
        match best {
            Some(s) => self.play_step(&s),
            None => Err(format!("{card} on {name} has no legal move")),
        }
    }

    /// Takes back the last move (an automatic move counts as one).
    pub fn undo(&mut self) -> Option<Entry> {
        let e = self.done.pop()?;
        let mut b = Board::new(&self.deal);
        for d in &self.done {
            // Every move in the history was legal when it was made, from this same start.
            let _ = b.play(&d.step);
        }
        self.board = b;
        self.undone.push(e.clone());
        Some(e)
    }

    /// Makes the last undone move again.
    pub fn redo(&mut self) -> Option<Entry> {
        let e = self.undone.pop()?;
        if self.board.play(&e.step).is_err() {
            // The redo list always starts from this position; a failure would be a bug, and
            // dropping the list is the safe way out.
            self.undone.clear();
            return None;
        }
        self.done.push(e.clone());
        Some(e)
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

    /// The game as the JSON of `castle solve --format json`: the deal, its options and the
    /// moves so far, which `castle verify` replays. The verdict is `solvable` when the moves
    /// win, else `unknown` (no search was made: `limit` is null). An extra `play` object
    /// keeps what the contract has no place for: which moves were automatic (1-based move
    /// numbers), the moves that redo would bring back (next first) and the automatic-move
    /// switch; readers of the contract ignore it.
    pub fn to_json(&self) -> String {
        let mv = |s: &Step| MoveJson {
            card: s.card.to_string(),
            from: s.from.clone(),
            to: s.to.clone(),
            count: (s.count > 1).then_some(s.count),
        };
        let report = Report {
            variant: self.deal.rules.variant.name().to_string(),
            seed: self.deal.seed,
            options: crate::report::OptionsJson::of(&self.deal),
            deal: crate::report::DealJson::of(&self.deal),
            verdict: if self.is_won() { "solvable" } else { "unknown" }.to_string(),
            moves: self.done.iter().map(|e| mv(&e.step)).collect(),
            nodes: 0,
            states: 0,
            seconds: 0.0,
            limit: None,
        };
        let mut v = serde_json::to_value(&report).unwrap_or(Value::Null);
        let automatic: Vec<usize> = self
            .done
            .iter()
            .enumerate()
            .filter(|(_, e)| e.auto)
            .map(|(i, _)| i + 1)
            .collect();
        let redo: Vec<MoveJson> = self.undone.iter().rev().map(|e| mv(&e.step)).collect();
        if let Value::Object(m) = &mut v {
            m.insert(
                "play".to_string(),
                serde_json::json!({ "automatic": automatic, "redo": redo, "auto": self.auto }),
            );
        }
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
        s.push('\n');
        s
    }

    /// A game saved by [`Game::to_json`], or any `castle solve --format json` report (its
    /// moves are replayed). `origin` names the file in messages.
    ///
    /// # Errors
    /// An [`InputError`] naming the file and the field or move at fault.
    pub fn from_json(text: &str, origin: &str) -> Result<Game, InputError> {
        let deal = formats::read_deal(
            text,
            origin,
            ReadOptions {
                format: Some(Format::Json),
                ..Default::default()
            },
        )?;
        let report: Report = serde_json::from_str(text).map_err(|e| {
            InputError(format!(
                "{origin}: line {}: not a saved game (the JSON of `castle solve --format json`): {e}",
                e.line()
            ))
        })?;
        let steps = report.steps(origin)?;
        let v: Value = serde_json::from_str(text)
            .map_err(|e| InputError(format!("{origin}: invalid JSON: {e}")))?;
        let play = v.get("play");
        let automatic: Vec<u64> = play
            .and_then(|p| p.get("automatic"))
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default();
        let auto = play
            .and_then(|p| p.get("auto"))
            .and_then(Value::as_bool)
            .unwrap_or(true);
        let redo: Vec<MoveJson> = match play.and_then(|p| p.get("redo")) {
            Some(r) => serde_json::from_value(r.clone())
                .map_err(|e| InputError(format!("{origin}: play.redo: {e}")))?,
            None => Vec::new(),
        };
        let mut g = Game {
            board: Board::new(&deal),
            deal,
            done: Vec::new(),
            undone: Vec::new(),
            auto,
        };
        for (i, s) in steps.into_iter().enumerate() {
            g.board.play(&s).map_err(|why| {
                InputError(format!("{origin}: move {} ({s}) is illegal: {why}", i + 1))
            })?;
            let auto = automatic.contains(&(i as u64 + 1));
            g.done.push(Entry { step: s, auto });
        }
        let redo_report = Report {
            moves: redo,
            ..report
        };
        let redo = redo_report.steps(&format!("{origin}: play.redo"))?;
        let mut trial = g.board.clone();
        for (i, s) in redo.iter().enumerate() {
            trial.play(s).map_err(|why| {
                InputError(format!(
                    "{origin}: play.redo move {} ({s}) is illegal: {why}",
                    i + 1
                ))
            })?;
        }
        g.undone = redo
            .into_iter()
            .rev()
            .map(|step| Entry { step, auto: false })
            .collect();
        Ok(g)
    }
}

/// The suit an empty foundation stands for, when there is one foundation per suit.
pub fn foundation_suit(index: usize, count: usize) -> Option<Suit> {
    (count == Suit::NUM).then(|| Suit::from_index(index))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;

    fn bc(seed: u64) -> Deal {
        Deal::from_seed(Variant::BeleagueredCastle.rules(), seed)
    }

    /// Any legal player move from the position (the first found), if one exists.
    fn some_move(g: &Game) -> Option<Step> {
        g.board().legal_steps().into_iter().next()
    }

    #[test]
    fn keys_and_words_name_the_same_piles() {
        for i in 0..10 {
            let t = Target::Pile(i);
            assert_eq!(Target::of_key(t.key().unwrap(), 10), Some(t));
            assert_eq!(Target::parse(&t.name(), 10), Ok(t));
            assert_eq!(Target::parse(&(i + 1).to_string(), 10), Ok(t));
        }
        assert_eq!(Target::of_key('9', 8), None);
        assert_eq!(Target::of_key('f', 8), Some(Target::Foundation));
        assert!(Target::parse("t9", 8).is_err());
        assert!(Target::parse("x", 8).is_err());
        assert!(Target::parse("t0", 8).is_err());
        // r, s and w stay free for reserve cells, the stock and the waste.
        for k in ['r', 's', 'w'] {
            assert_eq!(Target::of_key(k, 12), None);
        }
    }

    #[test]
    fn safe_rule_is_horne_rule() {
        let r = Variant::BeleagueredCastle.rules();
        let f = |h: [usize; 4]| -> Vec<Vec<Card>> {
            Suit::ALL
                .iter()
                .map(|&s| (1..=h[s.index()] as u8).map(|k| Card::new(k, s)).collect())
                .collect()
        };
        let c = |s: &str| s.parse::<Card>().unwrap();
        assert!(safe_home(&r, &f([1, 1, 1, 1]), c("3C")));
        assert!(!safe_home(&r, &f([2, 1, 1, 1]), c("4C")));
        assert!(safe_home(&r, &f([2, 2, 2, 2]), c("4C")));
        assert!(safe_home(&r, &f([0, 0, 0, 0]), c("2H")));
        assert!(!safe_home(&r, &f([0, 5, 5, 5]), c("3H")));
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
        assert!(next_safe_step(g.rules(), g.board()).is_none());
        let mut g2 = g.clone();
        for _ in 0..auto {
            assert!(g2.undo().unwrap().auto);
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
        let redone = g.clone().redo().unwrap().step;
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
        assert!(g.play(Target::Pile(0), Target::Pile(0)).is_err());
        assert!(g.play(Target::Pile(9), Target::Pile(0)).is_err());
        assert!(g.play(Target::Foundation, Target::Pile(0)).is_err());
        assert_eq!(g.board(), &before);
        assert_eq!(g.history().len(), 0);
    }

    #[test]
    fn quick_prefers_the_foundation() {
        let mut g = Game::new(bc(11), false);
        if let Some(s) = g.board().legal_steps().into_iter().find(|s| s.to == "f") {
            let from = Target::parse(&s.from, 8).unwrap();
            let p = g.quick(from).unwrap();
            assert_eq!(p.step, s);
        }
    }

    #[test]
    fn save_and_load_restore_the_game() {
        let mut g = Game::new(bc(5), true);
        for _ in 0..5 {
            let Some(s) = some_move(&g) else { break };
            g.play_step(&s).unwrap();
        }
        g.undo();
        let text = g.to_json();
        let back = Game::from_json(&text, "save.json").unwrap();
        assert_eq!(back.board(), g.board());
        assert_eq!(back.history(), g.history());
        assert_eq!(back.redo_len(), g.redo_len());
        assert_eq!(back.auto(), g.auto());
        // It is the solve report of the contract.
        let r: Report = serde_json::from_str(&text).unwrap();
        assert_eq!(r.moves.len(), g.history().len());
        assert_eq!(r.verdict, "unknown");
        // A bad move is named by number.
        let bad = text.replacen("\"to\": \"", "\"to\": \"t99", 1);
        let e = Game::from_json(&bad, "save.json").unwrap_err();
        assert!(e.0.starts_with("save.json: move 1"), "{e}");
    }
}
