//! What a position looks like to the win-seeking searches: a few counts the portfolio's
//! members ([`crate::solver`]'s best-first passes) weigh into their evaluations. Guidance
//! only: no search prunes on them, so no verdict depends on anything here.

use super::Position;

/// Counts describing how far a position is from a win (see [`Position::features`]). The
/// bound ([`Position::moves_left_bound`]) and the waste's size are not among them: a pass has
/// the bound already, and the waste is one read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// Cards not yet home.
    pub left: u32,
    /// Tableau cards lying above a lower card (of any suit) in their pile: each must move
    /// before that card can go home.
    pub disorder: u32,
    /// Cards above the cards that fit a foundation now (counted twice) and above the ones
    /// that will fit next (counted once): the digging still needed before the next cards
    /// home are free.
    pub dig: u32,
    /// Empty tableau piles and empty reserve cells.
    pub empty: u32,
}

impl Position {
    /// The counts of [`Features`] for this position: one pass over the tableau.
    pub fn features(&self) -> Features {
        let mut f = Features {
            left: u32::from(self.total - self.home),
            ..Features::default()
        };
        for i in 0..self.n {
            let len = self.len[i] as usize;
            if len == 0 {
                f.empty += 1;
                continue;
            }
            for k in 0..len {
                let c = self.cards[i][k];
                // `low[i][k - 1]` indexes the lowest card under `c`.
                if k > 0 && self.cards[i][self.low[i][k - 1] as usize].rank() < c.rank() {
                    f.disorder += 1;
                }
                let above = (len - 1 - k) as u32;
                if above > 0 {
                    let fit = self.fit[c.suit_index()];
                    if fit >> c.rank() & 1 == 1 {
                        f.dig += 2 * above;
                    } else if c.rank() > 0 && fit >> (c.rank() - 1) & 1 == 1 {
                        f.dig += above;
                    }
                }
            }
        }
        f.empty += self.cells[..self.ncells]
            .iter()
            .filter(|&&c| c == 0)
            .count() as u32;
        f
    }
}

#[cfg(test)]
mod tests {
    use crate::card::Card;
    use crate::deal::Deal;
    use crate::rules::Variant;
    use crate::state::Position;

    fn pile(cards: &str) -> Vec<Card> {
        cards
            .split_whitespace()
            .map(|c| c.parse().expect("a card"))
            .collect()
    }

    /// Hand-counted on a small position: A..3 of every suit home, so the fours fit and the
    /// fives fit next (the other cards are left out: only the counts matter here).
    #[test]
    fn features_count_what_the_docs_say() {
        let mut tableau = vec![pile("5C 9D 4C"), pile("4H KS 6H 7S"), vec![], pile("5H 4D")];
        tableau.resize(8, pile("QC"));
        let deal = Deal {
            rules: Variant::BeleagueredCastle.rules(),
            seed: None,
            tableau,
            foundations: [3, 3, 3, 3, 0, 0, 0, 0],
            reserve: vec![],
            stock: vec![],
            waste: vec![],
        };
        let f = Position::new(&deal).features();
        assert_eq!(f.left, 52 - 12);
        // 9D above 5C; KS, 6H, 7S above 4H; 4D is lower than 5H; the QC piles hold one card.
        assert_eq!(f.disorder, 4);
        // Fitting cards (fours): 4C and 4D on top, 4H under 3 cards (2 * 3).
        // Next cards (fives): 5C under 2 cards, 5H under 1.
        assert_eq!(f.dig, 6 + 2 + 1);
        assert_eq!(f.empty, 1);
    }
}
