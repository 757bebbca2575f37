//! The exact kind: members are positions, written canonically. Its own board, move rules
//! (from `docs/rules.md`), safe-autoplay rule (from `docs/design.md`, "Safe autoplay") and
//! canonical form; nothing here comes from the search.
//!
//! A card is a byte `rank * 4 + suit` (ranks 1..=13, suits C, D, H, S). The stock and waste
//! are described against the deal's *sequence*: its waste (bottom to top) then its stock (next
//! card first). Cards leave the stock in that order, so a position's stock is the sequence
//! from `taken` on, and its waste is the cards of the sequence before `taken` still in it (a
//! stack in sequence order: the top is the highest index).

use super::{BuildRule, Game, Malformed, Start, MAX_CELLS, MAX_LEN, MAX_PILES, MAX_SEQ};
use std::fmt::Write as _;

/// A position.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Board {
    /// Cards in each pile.
    pub len: [u8; MAX_PILES],
    /// Piles, bottom to top.
    pub piles: [[u8; MAX_LEN]; MAX_PILES],
    /// Foundation heights by suit; with two decks the suit's second pile at `4 + s`, never
    /// higher than the first (the two are alike).
    pub found: [u8; 8],
    /// Reserve cells (0: empty).
    pub cells: [u8; MAX_CELLS],
    /// Cards of the sequence that have left the stock.
    pub taken: u8,
    /// The waste: bit `i` for sequence card `i` still in it.
    pub waste: u128,
}

/// Where a move takes a card from or to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Tableau pile `i` (in the board's order, which for a member is its canonical order).
    Pile(u8),
    /// Reserve cell `i`.
    Cell(u8),
    /// The waste's top.
    Waste,
    /// The stock's next card.
    Stock,
    /// The foundations.
    Home,
}

/// A move: `count` cards, the bottom one `card`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The (bottom) card.
    pub card: u8,
    /// Cards moved.
    pub count: u8,
    /// Source.
    pub from: Place,
    /// Destination.
    pub to: Place,
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = |p: Place| match p {
            Place::Pile(i) => format!("t{}", i + 1),
            Place::Cell(i) => format!("r{}", i + 1),
            Place::Waste => "w".to_string(),
            Place::Stock => "s".to_string(),
            Place::Home => "f".to_string(),
        };
        write!(
            f,
            "{} {} -> {}",
            super::card_text(self.card),
            name(self.from),
            name(self.to)
        )?;
        if self.count > 1 {
            write!(f, " ({} cards)", self.count)?;
        }
        Ok(())
    }
}

#[inline]
fn rank(c: u8) -> u8 {
    c >> 2
}

#[inline]
fn suit(c: u8) -> usize {
    (c & 3) as usize
}

/// The rules and the deal's sequence: what every board of one certificate shares.
#[derive(Clone, Debug)]
pub struct Exact {
    game: Game,
    n: usize,
    ncells: usize,
    seq: [u8; MAX_SEQ],
    seq_len: u8,
    autoplay: bool,
}

impl Exact {
    /// The rules of `game` for the deal `start`.
    ///
    /// # Errors
    /// If the game or the deal is outside what the format describes.
    pub fn new(game: Game, start: &Start, autoplay: bool) -> Result<Exact, Malformed> {
        let n = usize::from(game.piles);
        if n == 0 || n > MAX_PILES || usize::from(game.cells) > MAX_CELLS {
            return Err(format!("{n} piles and {} cells", game.cells).into());
        }
        if !(1..=2).contains(&game.decks) {
            return Err(format!("{} decks", game.decks).into());
        }
        if start.tableau.len() != n {
            return Err(format!("the deal has {} piles, not {n}", start.tableau.len()).into());
        }
        let seq_len = start.waste.len() + start.stock.len();
        if seq_len > MAX_SEQ || (!game.stock && seq_len > 0) {
            return Err(format!("{seq_len} cards in stock and waste").into());
        }
        let mut seq = [0; MAX_SEQ];
        for (k, &c) in start.waste.iter().chain(&start.stock).enumerate() {
            seq[k] = c;
        }
        Ok(Exact {
            game,
            n,
            ncells: usize::from(game.cells),
            seq,
            seq_len: seq_len as u8,
            autoplay,
        })
    }

    /// The deal's board, as dealt (before any fill or safe move).
    ///
    /// # Errors
    /// A pile too long or too many cells.
    pub fn start_board(&self, start: &Start) -> Result<Board, Malformed> {
        let mut b = Board {
            len: [0; MAX_PILES],
            piles: [[0; MAX_LEN]; MAX_PILES],
            found: start.foundations,
            cells: [0; MAX_CELLS],
            taken: start.waste.len() as u8,
            waste: (1u128 << start.waste.len()) - 1,
        };
        for (i, p) in start.tableau.iter().enumerate() {
            if p.len() > MAX_LEN {
                return Err(format!("pile {} holds {} cards", i + 1, p.len()).into());
            }
            b.piles[i][..p.len()].copy_from_slice(p);
            b.len[i] = p.len() as u8;
        }
        if start.cells.len() > self.ncells {
            return Err(format!("{} cards in {} cells", start.cells.len(), self.ncells).into());
        }
        b.cells[..start.cells.len()].copy_from_slice(&start.cells);
        self.norm_found(&mut b);
        self.well_formed(&b)?;
        Ok(b)
    }

    /// Two decks: each suit's higher pile first (the two piles of a suit are alike).
    fn norm_found(&self, b: &mut Board) {
        if self.game.decks == 2 {
            for s in 0..4 {
                if b.found[s + 4] > b.found[s] {
                    b.found.swap(s, s + 4);
                }
            }
        }
    }

    /// Every card is where one of its copies can be: each card exactly once per deck over
    /// the foundations, piles, cells, waste and stock, and valid bytes throughout.
    ///
    /// # Errors
    /// What is wrong.
    pub fn well_formed(&self, b: &Board) -> Result<(), Malformed> {
        let mut count = [0u16; 56];
        let mut add = |c: u8, place: &str| -> Result<(), Malformed> {
            if !(1..=13).contains(&rank(c)) {
                return Err(format!("byte {c} in {place} is not a card").into());
            }
            count[c as usize] += 1;
            Ok(())
        };
        let slots = 4 * usize::from(self.game.decks);
        for (p, &h) in b.found.iter().enumerate() {
            if h > 13 || (p >= slots && h > 0) {
                return Err(format!("foundation {p} at height {h}").into());
            }
            for r in 1..=h {
                add(r * 4 + (p % 4) as u8, "a foundation")?;
            }
        }
        for i in 0..self.n {
            if usize::from(b.len[i]) > MAX_LEN {
                return Err(format!("pile {} too long", i + 1).into());
            }
            for &c in &b.piles[i][..usize::from(b.len[i])] {
                add(c, "a pile")?;
            }
        }
        for &c in &b.cells[..self.ncells] {
            if c != 0 {
                add(c, "a cell")?;
            }
        }
        if b.taken > self.seq_len || b.waste >> b.taken != 0 {
            return Err("the stock's count or the waste is out of range"
                .to_string()
                .into());
        }
        for k in 0..usize::from(self.seq_len) {
            if k >= usize::from(b.taken) || b.waste >> k & 1 == 1 {
                add(self.seq[k], "the stock or waste")?;
            }
        }
        for r in 1..=13u8 {
            for s in 0..4u8 {
                let c = r * 4 + s;
                if count[c as usize] != u16::from(self.game.decks) {
                    return Err(format!(
                        "{} appears {} times",
                        super::card_text(c),
                        count[c as usize]
                    )
                    .into());
                }
            }
        }
        Ok(())
    }

    /// True when every card is home.
    pub fn won(&self, b: &Board) -> bool {
        b.found[..4 * usize::from(self.game.decks)]
            .iter()
            .all(|&h| h == 13)
    }

    /// The foundation pile that takes `c`, if any.
    #[inline]
    fn home_slot(&self, b: &Board, c: u8) -> Option<usize> {
        let s = suit(c);
        if b.found[s] + 1 == rank(c) {
            Some(s)
        } else if self.game.decks == 2 && b.found[s + 4] + 1 == rank(c) {
            Some(s + 4)
        } else {
            None
        }
    }

    /// True if `c` may go on `under` by the build rule.
    #[inline]
    fn builds(&self, c: u8, under: u8) -> bool {
        match self.game.build {
            BuildRule::DownAnySuit => rank(under) == rank(c) + 1,
            BuildRule::UpDownSuit => {
                suit(under) == suit(c) && (rank(under) == rank(c) + 1 || rank(c) == rank(under) + 1)
            }
            BuildRule::DownSuit => suit(under) == suit(c) && rank(under) == rank(c) + 1,
        }
    }

    #[inline]
    fn waste_top(&self, b: &Board) -> Option<usize> {
        (b.waste != 0).then(|| 127 - b.waste.leading_zeros() as usize)
    }

    /// The empty pile a stock game must fill now, if any.
    fn pending_fill(&self, b: &Board) -> Option<usize> {
        if !self.game.stock || (b.waste == 0 && b.taken >= self.seq_len) {
            return None;
        }
        (0..self.n).find(|&i| b.len[i] == 0)
    }

    /// A card the safe-autoplay rule sends home now: a pile top or a cell card (never the
    /// waste), as its place. See `docs/design.md`, "Safe autoplay": down any suit, one deck, a
    /// card of rank `r` when every foundation holds `r - 2`; up or down in suit, one deck,
    /// every card that fits; down in suit, a card when both cards one rank below of its suit
    /// are home, unless it is the last card of its pile while the waste or stock holds cards.
    fn safe(&self, b: &Board) -> Option<Place> {
        if !self.autoplay || self.game.foundation_return {
            return None;
        }
        let stock_left = self.game.stock && (b.waste != 0 || b.taken < self.seq_len);
        let ok = |c: u8, alone: bool| -> bool {
            if self.home_slot(b, c).is_none() {
                return false;
            }
            let r = rank(c);
            match (self.game.build, self.game.decks) {
                (BuildRule::DownAnySuit, 1) => {
                    r <= b.found[..4].iter().min().expect("four suits") + 2
                }
                (BuildRule::UpDownSuit, 1) => true,
                (BuildRule::DownSuit, d) => {
                    let low = if d == 2 {
                        b.found[suit(c)].min(b.found[suit(c) + 4])
                    } else {
                        b.found[suit(c)]
                    };
                    r <= low + 1 && !(alone && stock_left)
                }
                _ => false,
            }
        };
        for i in 0..self.n {
            let l = usize::from(b.len[i]);
            if l > 0 && ok(b.piles[i][l - 1], l == 1) {
                return Some(Place::Pile(i as u8));
            }
        }
        (0..self.ncells)
            .find(|&k| b.cells[k] != 0 && ok(b.cells[k], false))
            .map(|k| Place::Cell(k as u8))
    }

    /// Plays a move known to be legal.
    fn play(&self, b: &mut Board, m: &Step) {
        let k = usize::from(m.count);
        let mut moved = [0u8; MAX_LEN];
        match m.from {
            Place::Pile(i) => {
                let i = usize::from(i);
                let l = usize::from(b.len[i]);
                moved[..k].copy_from_slice(&b.piles[i][l - k..l]);
                b.len[i] -= m.count;
            }
            Place::Cell(i) => {
                moved[0] = b.cells[usize::from(i)];
                b.cells[usize::from(i)] = 0;
            }
            Place::Waste => {
                let t = self.waste_top(b).expect("a waste card");
                moved[0] = self.seq[t];
                b.waste &= !(1 << t);
            }
            Place::Stock => {
                moved[0] = self.seq[usize::from(b.taken)];
                if m.to == Place::Waste {
                    b.waste |= 1 << b.taken;
                }
                b.taken += 1;
            }
            Place::Home => {
                let s = suit(m.card);
                let p = if b.found[s] == rank(m.card) { s } else { s + 4 };
                b.found[p] -= 1;
                moved[0] = m.card;
            }
        }
        match m.to {
            Place::Pile(j) => {
                let j = usize::from(j);
                let l = usize::from(b.len[j]);
                b.piles[j][l..l + k].copy_from_slice(&moved[..k]);
                b.len[j] += m.count;
            }
            Place::Cell(j) => b.cells[usize::from(j)] = moved[0],
            Place::Waste => {}
            Place::Home => {
                let p = self.home_slot(b, m.card).expect("the card fits");
                b.found[p] += 1;
            }
            Place::Stock => unreachable!("nothing goes to the stock"),
        }
        self.norm_found(b);
    }

    /// The closure after a move: the forced fills and the safe moves, until neither is left.
    pub fn settle(&self, b: &mut Board) {
        loop {
            if let Some(e) = self.pending_fill(b) {
                let (card, from) = match self.waste_top(b) {
                    Some(t) => (self.seq[t], Place::Waste),
                    None => (self.seq[usize::from(b.taken)], Place::Stock),
                };
                let m = Step {
                    card,
                    count: 1,
                    from,
                    to: Place::Pile(e as u8),
                };
                self.play(b, &m);
                continue;
            }
            match self.safe(b) {
                Some(from) => {
                    let card = match from {
                        Place::Pile(i) => {
                            b.piles[usize::from(i)][usize::from(b.len[usize::from(i)]) - 1]
                        }
                        Place::Cell(k) => b.cells[usize::from(k)],
                        _ => unreachable!("safe cards are pile tops or cells"),
                    };
                    let m = Step {
                        card,
                        count: 1,
                        from,
                        to: Place::Home,
                    };
                    self.play(b, &m);
                }
                None => return,
            }
        }
    }

    /// True if nothing is left for [`Exact::settle`] to do.
    pub fn settled(&self, b: &Board) -> bool {
        self.pending_fill(b).is_none() && self.safe(b).is_none()
    }

    /// Calls `f` with every legal move from `b` (a settled board) and the settled board it
    /// leads to. Moves into an empty pile or cell go to the first one only (the others give
    /// the same position up to order), and a whole pile never moves into an empty pile (the
    /// same position).
    pub fn successors<E>(
        &self,
        b: &Board,
        mut f: impl FnMut(&Step, &Board) -> Result<(), E>,
    ) -> Result<(), E> {
        let n = self.n;
        let first_empty = (0..n).find(|&i| b.len[i] == 0);
        let first_cell = (0..self.ncells).find(|&k| b.cells[k] == 0);
        let mut go = |m: Step| -> Result<(), E> {
            let mut next = b.clone();
            self.play(&mut next, &m);
            self.settle(&mut next);
            f(&m, &next)
        };
        // A card (or run) from somewhere onto the tableau: onto each pile it builds on, and
        // into the first empty pile unless it is the whole of its own pile.
        let onto_tableau = |go: &mut dyn FnMut(Step) -> Result<(), E>,
                            card: u8,
                            count: u8,
                            from: Place,
                            whole: bool|
         -> Result<(), E> {
            for j in 0..n {
                if from == Place::Pile(j as u8) {
                    continue;
                }
                let l = usize::from(b.len[j]);
                let ok = if l == 0 {
                    Some(j) == first_empty && !whole
                } else {
                    self.builds(card, b.piles[j][l - 1])
                };
                if ok {
                    go(Step {
                        card,
                        count,
                        from,
                        to: Place::Pile(j as u8),
                    })?;
                }
            }
            Ok(())
        };
        for i in 0..n {
            let l = usize::from(b.len[i]);
            if l == 0 {
                continue;
            }
            let pile = &b.piles[i][..l];
            let top = pile[l - 1];
            let from = Place::Pile(i as u8);
            if self.home_slot(b, top).is_some() {
                go(Step {
                    card: top,
                    count: 1,
                    from,
                    to: Place::Home,
                })?;
            }
            if let Some(k) = first_cell {
                go(Step {
                    card: top,
                    count: 1,
                    from,
                    to: Place::Cell(k as u8),
                })?;
            }
            // Runs: one card, or under unlimited sequence moves every ordered run on top.
            let mut count = 1;
            loop {
                let card = pile[l - count];
                onto_tableau(&mut go, card, count as u8, from, count == l)?;
                if !self.game.unlimited || count == l || !self.builds(card, pile[l - count - 1]) {
                    break;
                }
                count += 1;
            }
        }
        for k in 0..self.ncells {
            let c = b.cells[k];
            if c == 0 {
                continue;
            }
            let from = Place::Cell(k as u8);
            if self.home_slot(b, c).is_some() {
                go(Step {
                    card: c,
                    count: 1,
                    from,
                    to: Place::Home,
                })?;
            }
            onto_tableau(&mut go, c, 1, from, false)?;
        }
        if let Some(t) = self.waste_top(b) {
            let c = self.seq[t];
            if self.home_slot(b, c).is_some() {
                go(Step {
                    card: c,
                    count: 1,
                    from: Place::Waste,
                    to: Place::Home,
                })?;
            }
            onto_tableau(&mut go, c, 1, Place::Waste, false)?;
        }
        if self.game.stock && b.taken < self.seq_len {
            go(Step {
                card: self.seq[usize::from(b.taken)],
                count: 1,
                from: Place::Stock,
                to: Place::Waste,
            })?;
        }
        if self.game.foundation_return {
            for s in 0..4 {
                for p in [s, s + 4] {
                    let h = b.found[p];
                    // A second pile of a suit exists with two decks only; equal tops are
                    // one card.
                    if h == 0 || (p >= 4 && (self.game.decks == 1 || h == b.found[s])) {
                        continue;
                    }
                    onto_tableau(&mut go, h * 4 + s as u8, 1, Place::Home, false)?;
                }
            }
        }
        Ok(())
    }

    /// Bytes of a member of this game.
    fn header_len(&self) -> usize {
        4 * usize::from(self.game.decks) + self.ncells + self.stock_len()
    }

    fn stock_len(&self) -> usize {
        if self.game.stock {
            1 + usize::from(self.seq_len).div_ceil(8)
        } else {
            0
        }
    }

    /// Writes the canonical form of `b` into `out` (cleared first): the foundations (4
    /// bytes, with two decks 8: each suit's higher pile, then the lower), the cells sorted
    /// high to low (0 for empty), with a stock the cards taken and the waste's bits (little
    /// endian, one bit per sequence card), then the piles sorted by (length, cards), each as
    /// its length and its cards bottom to top.
    pub fn encode(&self, b: &Board, out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(&b.found[..4 * usize::from(self.game.decks)]);
        let mut cells = b.cells;
        cells[..self.ncells].sort_unstable_by(|a, b| b.cmp(a));
        out.extend_from_slice(&cells[..self.ncells]);
        if self.game.stock {
            out.push(b.taken);
            let bytes = b.waste.to_le_bytes();
            out.extend_from_slice(&bytes[..usize::from(self.seq_len).div_ceil(8)]);
        }
        let mut order = [0u8; MAX_PILES];
        for i in 0..self.n {
            let key = |j: usize| (b.len[j], &b.piles[j][..usize::from(b.len[j])]);
            let mut at = i;
            while at > 0 && key(usize::from(order[at - 1])) > key(i) {
                order[at] = order[at - 1];
                at -= 1;
            }
            order[at] = i as u8;
        }
        for &i in &order[..self.n] {
            let l = usize::from(b.len[usize::from(i)]);
            out.push(l as u8);
            out.extend_from_slice(&b.piles[usize::from(i)][..l]);
        }
    }

    /// The board a member's bytes describe (its piles in canonical order). The caller checks
    /// that encoding it gives the bytes back (so the bytes were canonical).
    ///
    /// # Errors
    /// Bytes too short or too long, or a pile longer than [`MAX_LEN`].
    pub fn decode(&self, bytes: &[u8]) -> Result<Board, Malformed> {
        let short = || "the member's bytes end early".to_string();
        let h = self.header_len();
        if bytes.len() < h {
            return Err(short().into());
        }
        let mut b = Board {
            len: [0; MAX_PILES],
            piles: [[0; MAX_LEN]; MAX_PILES],
            found: [0; 8],
            cells: [0; MAX_CELLS],
            taken: 0,
            waste: 0,
        };
        let nf = 4 * usize::from(self.game.decks);
        b.found[..nf].copy_from_slice(&bytes[..nf]);
        b.cells[..self.ncells].copy_from_slice(&bytes[nf..nf + self.ncells]);
        let mut at = nf + self.ncells;
        if self.game.stock {
            b.taken = bytes[at];
            let w = usize::from(self.seq_len).div_ceil(8);
            let mut le = [0u8; 16];
            le[..w].copy_from_slice(&bytes[at + 1..at + 1 + w]);
            b.waste = u128::from_le_bytes(le);
            at += 1 + w;
        }
        for i in 0..self.n {
            let l = usize::from(*bytes.get(at).ok_or_else(short)?);
            if l > MAX_LEN {
                return Err(format!("a pile of {l} cards").into());
            }
            let cards = bytes.get(at + 1..at + 1 + l).ok_or_else(short)?;
            b.piles[i][..l].copy_from_slice(cards);
            b.len[i] = l as u8;
            at += 1 + l;
        }
        if at != bytes.len() {
            return Err("the member's bytes go on past its last pile"
                .to_string()
                .into());
        }
        Ok(b)
    }

    /// The board as text, one line per part.
    pub fn show(&self, b: &Board) -> String {
        let mut s = String::new();
        let cards = |cs: &[u8]| -> String {
            cs.iter()
                .map(|&c| super::card_text(c))
                .collect::<Vec<_>>()
                .join(" ")
        };
        s.push_str("  foundations:");
        for p in 0..4 * usize::from(self.game.decks) {
            let _ = write!(s, " {}{}", b"CDHS"[p % 4] as char, b.found[p]);
        }
        s.push('\n');
        if self.ncells > 0 {
            let _ = writeln!(
                s,
                "  cells: {}",
                b.cells[..self.ncells]
                    .iter()
                    .map(|&c| if c == 0 {
                        "--".to_string()
                    } else {
                        super::card_text(c)
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
        if self.game.stock {
            let waste: Vec<u8> = (0..usize::from(b.taken))
                .filter(|&k| b.waste >> k & 1 == 1)
                .map(|k| self.seq[k])
                .collect();
            let _ = writeln!(
                s,
                "  waste: {} | stock: {}",
                cards(&waste),
                cards(&self.seq[usize::from(b.taken)..usize::from(self.seq_len)])
            );
        }
        for i in 0..self.n {
            let _ = writeln!(
                s,
                "  t{}: {}",
                i + 1,
                cards(&b.piles[i][..usize::from(b.len[i])])
            );
        }
        s
    }
}
