//! Helpers shared by the integration tests, above all an independent slow solver: a
//! breadth-first search over plain vectors, written from the rule book alone (no autoplay, no
//! pruning, no packed keys), used as the source of known verdicts for small positions.

#![allow(dead_code)]

use castle::{Card, Deal, Suit};
use std::collections::{HashSet, VecDeque};

/// Canonical form for the slow solver: non-empty piles sorted, plus foundation heights.
type Slow = (Vec<Vec<u8>>, [u8; 4]);

fn canon(piles: &[Vec<u8>], found: [u8; 4]) -> Slow {
    let mut p: Vec<Vec<u8>> = piles.iter().filter(|p| !p.is_empty()).cloned().collect();
    p.sort();
    (p, found)
}

fn rank(c: u8) -> u8 {
    Card::from_code(c).unwrap().rank()
}

fn suit(c: u8) -> usize {
    Card::from_code(c).unwrap().suit().index()
}

/// Breadth-first search from a Beleaguered Castle-family deal (build down regardless of
/// suit, any card to an empty pile, one card at a time). Returns `Some(Some(n))` with the
/// length of a shortest win, `Some(None)` if no win exists, `None` if more than `cap`
/// states would be needed.
pub fn bfs_shortest_win(deal: &Deal, cap: usize) -> Option<Option<usize>> {
    let n = deal.tableau.len();
    let start: Vec<Vec<u8>> = deal
        .tableau
        .iter()
        .map(|p| p.iter().map(|c| c.code()).collect())
        .collect();
    let mut seen: HashSet<Slow> = HashSet::new();
    let mut queue: VecDeque<(Vec<Vec<u8>>, [u8; 4], usize)> = VecDeque::new();
    seen.insert(canon(&start, deal.foundations));
    queue.push_back((start, deal.foundations, 0));
    while let Some((piles, found, depth)) = queue.pop_front() {
        if found.iter().all(|&h| h == 13) {
            return Some(Some(depth));
        }
        for i in 0..n {
            let Some(&c) = piles[i].last() else { continue };
            // To the foundation.
            if found[suit(c)] + 1 == rank(c) {
                let mut p = piles.clone();
                p[i].pop();
                let mut f = found;
                f[suit(c)] += 1;
                if seen.insert(canon(&p, f)) {
                    queue.push_back((p, f, depth + 1));
                }
            }
            // To another pile.
            for j in 0..n {
                if j == i {
                    continue;
                }
                let ok = match piles[j].last() {
                    None => true,
                    Some(&t) => rank(t) == rank(c) + 1,
                };
                if ok {
                    let mut p = piles.clone();
                    p[i].pop();
                    p[j].push(c);
                    if seen.insert(canon(&p, found)) {
                        queue.push_back((p, found, depth + 1));
                    }
                }
            }
        }
        if seen.len() > cap {
            return None;
        }
    }
    Some(None)
}

/// Parses a space-separated card list.
pub fn cards(s: &str) -> Vec<Card> {
    s.split_whitespace().map(|t| t.parse().unwrap()).collect()
}

/// Cards of the full deck that are neither on the given piles nor on the foundations.
pub fn missing_cards(tableau: &[Vec<Card>], found: [u8; 4]) -> Vec<Card> {
    Card::deck()
        .into_iter()
        .filter(|c| c.rank() > found[c.suit().index()])
        .filter(|c| !tableau.iter().any(|p| p.contains(c)))
        .collect()
}

/// Every suit, for building positions by hand.
pub const SUITS: [Suit; 4] = Suit::ALL;
