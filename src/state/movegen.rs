//! Move generation: [`Position::generate`] writes every legal move, after the exact
//! reductions switched on in [`Pruning`] (each with the reason it loses nothing beside it),
//! into a caller-owned [`MoveList`]: single-card moves between piles, cells, the waste, the
//! stock and the foundations, and run moves (through empty piles under single-card rules, as
//! one move under unlimited sequence moves). The order the search tries them in is
//! `order`'s.

use super::{Position, Pruning, MAX_CELLS, MAX_PILES};
use crate::card::{Card, Suit, KING};
use crate::deal::MAX_PILE;
use crate::moves::{is_tableau, Move, MoveList, CELL, FOUNDATION, STOCK, WASTE};
use crate::rules::Build;

impl Position {
    /// The piles (bit mask) whose top card `c` may go on, `c`'s own pile `from` excluded.
    #[inline]
    fn parents(&self, c: Card, by_rank: &[u16; 16], by_code: &[u16; 64], from: u8) -> u16 {
        let code = c.code() as usize;
        let r = c.rank();
        let mask = match self.build {
            Build::DownAnySuit => by_rank[r as usize + 1],
            Build::UpDownSuit => {
                (if r < KING { by_code[code + 4] } else { 0 })
                    | (if r > 1 { by_code[code - 4] } else { 0 })
            }
            Build::DownSuit => {
                if r < KING {
                    by_code[code + 4]
                } else {
                    0
                }
            }
        };
        if is_tableau(from) {
            mask & !(1 << from)
        } else {
            mask
        }
    }

    /// Writes every legal move (after the reductions switched on in `prune`) into `out`, in
    /// the order the search tries them: foundation moves, moves onto other cards, moves to an
    /// empty pile, then moves of cell cards, the waste top and foundation tops, a deal from
    /// the stock, and run moves. The order is a heuristic only; the search tries all of them.
    ///
    /// `jitter` (0 for none) perturbs the heuristic order pseudo-randomly, so that restarted
    /// searches try different lines first; foundation moves stay first.
    ///
    /// `last` is the card the move into this position carried and the pile it lies on, if
    /// that was a single move from a tableau pile or a cell to the tableau or a cell, and
    /// nothing moved after it (no automatic move, no fill). With `no_repeat` that card's moves
    /// are not generated: a line `c: A -> B` then `c: B -> C` reaches exactly the position that
    /// `c: A -> C` reaches from the parent (the parent itself when `C` is `A`), and from a
    /// tableau pile or a cell the parent may move `c` wherever `B` may (or its equivalent under
    /// the empty-pile reductions); with nothing moved between, the two positions are identical
    /// card for card, and a foundation move of `c` here is the parent's own foundation move of
    /// `c`. So these moves only reach positions the parent's other moves reach. Only the card
    /// on pile `B` is left out: with two decks its twin elsewhere moves freely (leaving out the
    /// twin's moves too, as by card value, would lose positions: after `c: A -> B`, the twin's
    /// `c': D -> X` is not a move of the parent's that `c` repeats).
    ///
    /// Returns true when `no_repeat` left out at least one legal move. The position's moves
    /// then depend on the line into it: the positions those moves reach are searched from the
    /// parent, not from here (see the search's proof bookkeeping, `solver/search.rs`).
    pub fn generate(
        &self,
        prune: Pruning,
        jitter: u64,
        last: Option<(Card, u8)>,
        out: &mut MoveList,
    ) -> bool {
        out.clear();
        let n = self.n;
        // The empty piles (bit mask), the tops, read once; foundation moves; and the piles by
        // the rank (or the card) of their top card, so each card finds its parents at once.
        let mut empty = 0u16;
        let mut tops = [None; MAX_PILES];
        let mut by_rank = [0u16; 16];
        let mut by_code = [0u16; 64];
        for (i, top) in tops[..n].iter_mut().enumerate() {
            let l = self.len[i] as usize;
            if l == 0 {
                empty |= 1 << i;
                continue;
            }
            let c = self.cards[i][l - 1];
            *top = Some(c);
            if self.fits_foundation(c) {
                out.push(Move::single(c, i as u8, FOUNDATION));
            }
            if self.build == Build::DownAnySuit {
                by_rank[c.rank() as usize] |= 1 << i;
            } else {
                by_code[c.code() as usize] |= 1 << i;
            }
        }
        let first_empty = (empty != 0).then(|| empty.trailing_zeros() as usize);
        for (i, &top) in tops[..n].iter().enumerate() {
            let Some(c) = top else { continue };
            let mut parents = self.parents(c, &by_rank, &by_code, i as u8);
            while parents != 0 {
                let j = parents.trailing_zeros();
                parents &= parents - 1;
                out.push(Move::single(c, i as u8, j as u8));
            }
        }
        for (i, &top) in tops[..n].iter().enumerate() {
            let Some(c) = top else { continue };
            // A card alone in its pile moved to an empty pile gives the same position up to
            // pile order, which the key ignores: nothing new can be reached that way.
            if prune.skip_lone_to_empty && self.len[i] == 1 {
                continue;
            }
            self.push_to_empty(c, i as u8, first_empty, prune, out);
        }
        if self.ncells > 0 {
            self.generate_cells(prune, &by_rank, &by_code, first_empty, out);
        }
        if self.has_stock {
            if self.wlen > 0 {
                let c = self.seq[self.waste[self.wlen as usize - 1] as usize];
                if self.fits_foundation(c) {
                    out.push(Move::single(c, WASTE, FOUNDATION));
                }
                self.push_onto(c, WASTE, &by_rank, &by_code, first_empty, prune, out);
            }
            if self.sidx < self.seq_len {
                out.push(Move::single(self.seq[self.sidx as usize], STOCK, WASTE));
            }
        }
        if self.foundation_return {
            for s in 0..4 {
                let tops = [
                    self.found[s],
                    if self.two_decks { self.found[s + 4] } else { 0 },
                ];
                for (k, &r) in tops.iter().enumerate() {
                    if r == 0 || (k == 1 && r == tops[0]) {
                        continue;
                    }
                    let c = Card::new(r, Suit::from_index(s));
                    self.push_onto(c, FOUNDATION, &by_rank, &by_code, first_empty, prune, out);
                }
            }
        }
        if self.unlimited {
            self.generate_sequences(empty, prune, &by_rank, &by_code, out);
        } else if prune.run_moves {
            self.generate_runs(empty, &by_rank, &by_code, out);
        }
        // The last card's moves are generated with the rest and then dropped, so that the
        // answer says whether there were any.
        let repeat_left_out = match last {
            Some((c, at)) if prune.no_repeat => out.remove_from(c, at),
            _ => false,
        };
        if prune.order_moves {
            self.order(jitter, out);
        }
        repeat_left_out
    }

    /// Moves of `c` from `from` into empty piles: the first only with `one_empty_target` (all
    /// empty piles are alike: the key ignores pile order, so moving a card to any of them
    /// reaches one and the same position).
    #[inline]
    fn push_to_empty(
        &self,
        c: Card,
        from: u8,
        first_empty: Option<usize>,
        prune: Pruning,
        out: &mut MoveList,
    ) {
        let Some(first) = first_empty else { return };
        if prune.one_empty_target {
            out.push(Move::single(c, from, first as u8));
        } else {
            for e in first..self.n {
                if self.len[e] == 0 {
                    out.push(Move::single(c, from, e as u8));
                }
            }
        }
    }

    /// Moves of a card from outside the tableau (`from`: a cell, the waste or the
    /// foundations) onto its parents and into empty piles.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn push_onto(
        &self,
        c: Card,
        from: u8,
        by_rank: &[u16; 16],
        by_code: &[u16; 64],
        first_empty: Option<usize>,
        prune: Pruning,
        out: &mut MoveList,
    ) {
        let mut parents = self.parents(c, by_rank, by_code, from);
        while parents != 0 {
            let j = parents.trailing_zeros();
            parents &= parents - 1;
            out.push(Move::single(c, from, j as u8));
        }
        self.push_to_empty(c, from, first_empty, prune, out);
    }

    /// Reserve-cell moves: cell cards home, onto parents and into empty piles; tableau tops
    /// into an empty cell (the first only with `one_empty_target`: the key sorts the cells,
    /// so which empty cell takes a card does not matter).
    fn generate_cells(
        &self,
        prune: Pruning,
        by_rank: &[u16; 16],
        by_code: &[u16; 64],
        first_empty: Option<usize>,
        out: &mut MoveList,
    ) {
        let mut empty_cells = [0u8; MAX_CELLS];
        let mut ne = 0;
        for k in 0..self.ncells {
            let from = CELL + k as u8;
            match Card::from_code(self.cells[k]) {
                None => {
                    empty_cells[ne] = from;
                    ne += 1;
                }
                Some(c) => {
                    if self.fits_foundation(c) {
                        out.push(Move::single(c, from, FOUNDATION));
                    }
                    self.push_onto(c, from, by_rank, by_code, first_empty, prune, out);
                }
            }
        }
        if ne == 0 {
            return;
        }
        let targets = if prune.one_empty_target {
            &empty_cells[..1]
        } else {
            &empty_cells[..ne]
        };
        for i in 0..self.n {
            let Some(c) = self.top(i) else { continue };
            for &t in targets {
                out.push(Move::single(c, i as u8, t));
            }
        }
    }

    /// The length of the ordered run (by the build rule) at the top of pile `i`.
    #[inline]
    fn top_run(&self, i: usize) -> usize {
        let l = self.len[i] as usize;
        let pile = &self.cards[i][..l];
        let mut run = usize::from(l > 0);
        while run < l && self.build.builds_on(pile[l - run], pile[l - run - 1]) {
            run += 1;
        }
        run
    }

    /// Run moves under single-card rules: the top `k >= 2` cards of a pile, an ordered run,
    /// onto a card the run's bottom card builds on or into an empty pile, when enough other
    /// piles are empty to carry it (`2^e` cards with `e` spare empty piles). Each is a chain
    /// of legal single moves, so adding them changes no verdict.
    /// `empty`: the empty piles, as a bit mask.
    fn generate_runs(
        &self,
        empty: u16,
        by_rank: &[u16; 16],
        by_code: &[u16; 64],
        out: &mut MoveList,
    ) {
        if empty == 0 {
            return;
        }
        let empties = empty.count_ones();
        let cap_parent = 1usize << empties.min(6);
        let cap_empty = 1usize << (empties - 1).min(6);
        let first = Some(empty.trailing_zeros() as usize);
        self.push_runs(first, cap_parent, cap_empty, true, (by_rank, by_code), out);
    }

    /// Run moves under unlimited sequence moves: every ordered run at the top of a pile
    /// moves as one move onto a card its bottom builds on, or into an empty pile (into the
    /// first only with `one_empty_target`; the whole pile into an empty pile only without
    /// `skip_lone_to_empty`, as it reaches the same position).
    /// `empty`: the empty piles, as a bit mask.
    fn generate_sequences(
        &self,
        empty: u16,
        prune: Pruning,
        by_rank: &[u16; 16],
        by_code: &[u16; 64],
        out: &mut MoveList,
    ) {
        let (skip, parents) = (prune.skip_lone_to_empty, (by_rank, by_code));
        if prune.one_empty_target {
            let first = (empty != 0).then(|| empty.trailing_zeros() as usize);
            self.push_runs(first, MAX_PILE, MAX_PILE, skip, parents, out);
            return;
        }
        // Every empty pile as a target: one pass per empty pile.
        self.push_runs(None, MAX_PILE, MAX_PILE, skip, parents, out);
        let mut rest = empty;
        while rest != 0 {
            let e = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            self.push_runs_to_empty(e, MAX_PILE, skip, out);
        }
    }

    /// Pushes run moves of at most `cap_parent` cards onto parents and at most `cap_empty`
    /// into `empty` (if given); `skip_whole`: no whole pile into an empty pile. `parents`:
    /// the piles by their top's rank and by their top card, as [`Position::generate`] made
    /// them.
    fn push_runs(
        &self,
        empty: Option<usize>,
        cap_parent: usize,
        cap_empty: usize,
        skip_whole: bool,
        (by_rank, by_code): (&[u16; 16], &[u16; 64]),
        out: &mut MoveList,
    ) {
        for i in 0..self.n {
            let l = self.len[i] as usize;
            let run = self.top_run(i);
            if run < 2 {
                continue;
            }
            let pile = &self.cards[i][..l];
            // The piles each run card may go on (`parents[k]` for the run of the top `k`
            // cards), then the moves by target pile, then by run length.
            let most = run.min(cap_parent);
            let mut parents = [0u16; MAX_PILE + 1];
            let mut any = 0;
            for k in 2..=most {
                parents[k] = self.parents(pile[l - k], by_rank, by_code, i as u8);
                any |= parents[k];
            }
            while any != 0 {
                let j = any.trailing_zeros() as usize;
                any &= any - 1;
                for (k, &p) in parents.iter().enumerate().take(most + 1).skip(2) {
                    if p >> j & 1 == 1 {
                        out.push(Move {
                            card: pile[l - k],
                            from: i as u8,
                            to: j as u8,
                            count: k as u8,
                        });
                    }
                }
            }
            if let Some(e) = empty {
                for k in 2..=run.min(cap_empty) {
                    if k == l && skip_whole {
                        break; // the whole pile to an empty pile: the same position
                    }
                    out.push(Move {
                        card: pile[l - k],
                        from: i as u8,
                        to: e as u8,
                        count: k as u8,
                    });
                }
            }
        }
    }

    /// Run moves of at most `cap` cards into the empty pile `e`.
    fn push_runs_to_empty(&self, e: usize, cap: usize, skip_whole: bool, out: &mut MoveList) {
        for i in 0..self.n {
            let l = self.len[i] as usize;
            let run = self.top_run(i);
            for k in 2..=run.min(cap) {
                if k == l && skip_whole {
                    break;
                }
                out.push(Move {
                    card: self.cards[i][l - k],
                    from: i as u8,
                    to: e as u8,
                    count: k as u8,
                });
            }
        }
    }
}

impl Position {
    /// The relocation moves of the portfolio's `relocate` member, each a chain of legal
    /// moves written to `out` (chain `k` ends at `ends[k]`): a card goes home from the top of
    /// a pile or from under up to `e` cards, which are parked one to an empty pile first (`e`
    /// the empty piles); an ordered run (every suffix of a pile's top run, or a whole run
    /// lower down, the cards above it parked first) goes onto a card it builds on anywhere in
    /// another pile, the cards above that card parked too, as long as the empty piles left
    /// can carry the run;
    /// and the top run of a pile (as much of it as the empty piles can carry) goes into an
    /// empty pile, unless it is the whole pile.
    ///
    /// This is not the complete move set: moves of one card to an empty pile are missing, for
    /// one. It is a smaller graph of bigger steps, in the manner of fc-solve's meta-moves
    /// (its tests `0`, `3`, `4`, `6` and `8`), where a greedy search on the cards home climbs
    /// far better than on single moves: a dig that takes several moves of no visible progress
    /// is one step here. The member only ever reports a win, which the checker replays, so
    /// nothing here can change a verdict. Games with a stock have none (a parked card would
    /// change the fills).
    pub fn relocation_moves(&self, out: &mut Vec<Move>, ends: &mut Vec<u32>) {
        out.clear();
        ends.clear();
        if self.has_stock {
            return;
        }
        let n = self.n;
        let mut empties = [0u8; MAX_PILES];
        let mut ne = 0;
        for i in 0..n {
            if self.len[i] == 0 {
                empties[ne] = i as u8;
                ne += 1;
            }
        }
        let capacity = |left: usize| {
            if self.unlimited {
                MAX_PILE
            } else {
                1usize << left.min(6)
            }
        };
        // Cards home, from the top or from under parked cards.
        for i in 0..n {
            let l = self.len[i] as usize;
            if l == 0 {
                continue;
            }
            for k in 0..=ne.min(l - 1) {
                let c = self.cards[i][l - 1 - k];
                if !self.fits_foundation(c) {
                    continue;
                }
                for (p, &e) in empties[..k].iter().enumerate() {
                    out.push(Move::single(self.cards[i][l - 1 - p], i as u8, e));
                }
                out.push(Move::single(c, i as u8, FOUNDATION));
                ends.push(out.len() as u32);
                break;
            }
        }
        // Runs onto a parent, parking the cards above the parent: every suffix of a pile's
        // top run, and each whole ordered run below it, its cards above parked too.
        for i in 0..n {
            let l = self.len[i] as usize;
            let mut top = l; // one past the top card of the run being looked at
            let mut park_src = 0;
            while top > 0 && park_src <= ne {
                let mut bottom = top - 1;
                while bottom > 0
                    && self
                        .build
                        .builds_on(self.cards[i][bottom], self.cards[i][bottom - 1])
                {
                    bottom -= 1;
                }
                let starts = if park_src == 0 {
                    bottom..top
                } else {
                    bottom..bottom + 1
                };
                for s in starts {
                    let card = self.cards[i][s];
                    let run = top - s;
                    for j in 0..n {
                        let lj = self.len[j] as usize;
                        if j == i || lj == 0 {
                            continue;
                        }
                        for d in (lj.saturating_sub(1 + ne - park_src)..lj).rev() {
                            if !self.build.builds_on(card, self.cards[j][d]) {
                                continue;
                            }
                            let park = lj - 1 - d;
                            if run > capacity(ne - park_src - park) {
                                continue;
                            }
                            for (p, &e) in empties[..park_src].iter().enumerate() {
                                out.push(Move::single(self.cards[i][l - 1 - p], i as u8, e));
                            }
                            for (p, &e) in empties[park_src..park_src + park].iter().enumerate() {
                                out.push(Move::single(self.cards[j][lj - 1 - p], j as u8, e));
                            }
                            out.push(Move {
                                card,
                                from: i as u8,
                                to: j as u8,
                                count: run as u8,
                            });
                            ends.push(out.len() as u32);
                        }
                    }
                }
                park_src += top - bottom;
                top = bottom;
            }
        }
        // The top run into an empty pile.
        if ne > 0 {
            let cap = capacity(ne - 1);
            for i in 0..n {
                let l = self.len[i] as usize;
                let r = self.top_run(i);
                if l == 0 || r == l {
                    continue;
                }
                let run = r.min(cap);
                out.push(Move {
                    card: self.cards[i][l - run],
                    from: i as u8,
                    to: empties[0],
                    count: run as u8,
                });
                ends.push(out.len() as u32);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::every_rule_set;
    use crate::check::{steps_of, Board};
    use crate::deal::Deal;
    use crate::moves::{MoveList, FOUNDATION};
    use crate::state::{Position, Pruning};

    /// Random walks in every rule set: each relocation chain, expanded into the single moves
    /// `play` makes of it, replays on the checker (the rules written apart from the search),
    /// changes the position, and a chain ending with a foundation move sends a card home.
    #[test]
    fn every_relocation_chain_is_legal_on_the_checker() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let (mut chains, mut ends, mut hist) = (Vec::new(), Vec::new(), Vec::new());
        let mut list = MoveList::default();
        let mut checked = 0;
        for (v, rules) in every_rule_set() {
            for seed in 1..=6 {
                let deal = Deal::from_seed(rules, seed);
                let mut pos = Position::new(&deal);
                let mut board = Board::new(&deal);
                for _ in 0..300 {
                    pos.relocation_moves(&mut chains, &mut ends);
                    assert!(
                        !rules.stock || ends.is_empty(),
                        "{v}: a stock game has none"
                    );
                    let mut from = 0;
                    for &end in &ends {
                        let chain = &chains[from as usize..end as usize];
                        from = end;
                        let (before, home) = (pos.key::<4>(), pos.home());
                        let mut h = Vec::new();
                        for &m in chain {
                            pos.play(m, &mut h);
                        }
                        let mut b = board.clone();
                        for step in steps_of(&h) {
                            b.play(&step).unwrap_or_else(|e| {
                                panic!("{v} deal {seed}: chain {chain:?} -> {h:?}: {e}")
                            });
                        }
                        assert_ne!(pos.key::<4>(), before, "{v}: a chain that changes nothing");
                        if chain.last().is_some_and(|m| m.to == FOUNDATION) {
                            assert_eq!(pos.home(), home + 1);
                        }
                        for &u in h.iter().rev() {
                            pos.undo(u);
                        }
                        assert_eq!(pos.key::<4>(), before);
                        checked += 1;
                    }
                    // On with a random move of the complete set.
                    pos.generate(Pruning::NONE, 0, None, &mut list);
                    if list.is_empty() {
                        break;
                    }
                    hist.clear();
                    pos.play(list.get(rng.gen_range(0..list.len())), &mut hist);
                    for step in steps_of(&hist) {
                        board.play(&step).expect("the walk's own move is legal");
                    }
                }
            }
        }
        assert!(checked > 10_000, "only {checked} chains checked");
    }
}
