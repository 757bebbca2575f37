//! The quotient's tests: its verdicts against the exact search, its proofs kept across runs,
//! its refinement, and the invariants that guard a proof.

use super::*;
use crate::rules::Variant;
use std::cell::Cell;

thread_local! {
    /// Set by a test: the next search on this thread starts from a broken position (see
    /// [`trip_next_search`]).
    static TRIP: Cell<bool> = const { Cell::new(false) };
}

/// Makes the next quotient search on this thread start from a broken position (every card
/// of rank `k + 1`, the first to enter a window after an ace goes home, turned into one of
/// the next rank: the first foundation move that brings one into a window finds none, see
/// [`Broken::NoBranch`] and [`Broken::DealtPlace`]), so that a test of the schedule sees
/// what a broken invariant does to a solve.
pub(crate) fn trip_next_search() {
    TRIP.with(|t| t.set(true));
}

pub(super) fn tripped(mut a: Abs, k: u8) -> Abs {
    if TRIP.with(|t| t.replace(false)) {
        forget_rank(&mut a, k + 1);
    }
    a
}

/// Turns every symbol of rank `r` into one of rank `r + 1` known by rank: the position no
/// longer holds the cards a foundation move may bring into a window.
fn forget_rank(a: &mut Abs, r: u8) {
    for i in 0..a.n {
        for q in 0..a.len[i] as usize {
            if a.pile[i][q] >> 3 == r {
                a.pile[i][q] = sym(r + 1, UNFIXED);
            }
        }
    }
}

/// Streets-and-alleys deal 1 with the ace of clubs moved to the top of the first pile:
/// it goes home at once (a safe move), and the two of clubs enters the window at `k = 1`
/// (the three at `k = 2`).
pub(crate) fn ace_on_top() -> Deal {
    let mut deal = Deal::from_seed(Variant::StreetsAndAlleys.rules(), 1);
    let ace = crate::card::Card::new(1, crate::card::Suit::Clubs);
    let (i, q) = deal
        .tableau
        .iter()
        .enumerate()
        .find_map(|(i, p)| p.iter().position(|&c| c == ace).map(|q| (i, q)))
        .expect("the ace is dealt");
    let top = *deal.tableau[0].last().expect("a card");
    deal.tableau[i][q] = top;
    *deal.tableau[0].last_mut().expect("a card") = ace;
    deal
}

fn run_on(a: Abs, opts: &QuotientOptions) -> QuotientVerdict {
    let stop = AtomicBool::new(false);
    let mut s = Search::new(a, opts, &stop, Instant::now());
    s.run()
}

/// A foundation move that finds no place for the card entering the window ends the run
/// as `Broken`, never `Lost` (it used to be a `debug_assert`: in release the move, and
/// every position behind it, was dropped).
#[test]
fn a_foundation_move_with_no_branch_breaks_the_run() {
    let opts = QuotientOptions {
        k: 2,
        dealt: false,
        ..QuotientOptions::default()
    };
    let mut a = Abs::new(&ace_on_top(), 2, false, 0).unwrap();
    assert_eq!(run_on(a.clone(), &opts), QuotientVerdict::LOST);
    forget_rank(&mut a, 3);
    assert_eq!(run_on(a, &opts), QuotientVerdict::Broken(Broken::NoBranch));
}

/// With the dealt refinement, the card entering the window from its never-moved place
/// must be there.
#[test]
fn a_card_missing_from_its_dealt_place_breaks_the_run() {
    let opts = QuotientOptions {
        k: 2,
        ..QuotientOptions::default()
    };
    let mut a = Abs::new(&ace_on_top(), 2, true, 0).unwrap();
    let (p, q) = a.dealt_at[3 * 4];
    assert!(
        q < a.prefix[p as usize],
        "the three of clubs is never moved"
    );
    a.pile[p as usize][q as usize] = sym(3, 1);
    assert_eq!(
        run_on(a, &opts),
        QuotientVerdict::Broken(Broken::DealtPlace)
    );
}

/// A symbol the foundations do not allow (a suit kept at a rank outside its window) has
/// no code of its own: the key is refused instead of sharing another position's.
#[test]
fn a_code_that_does_not_fit_breaks_the_run() {
    let opts = QuotientOptions {
        k: 2,
        dealt: false,
        ..QuotientOptions::default()
    };
    let deal = Deal::from_seed(Variant::StreetsAndAlleys.rules(), 1);
    let mut a = Abs::new(&deal, 2, false, 0).unwrap();
    let stop = AtomicBool::new(false);
    let mut s = Search::new(a.clone(), &opts, &stop, Instant::now());
    assert!(s.key().is_ok());
    // A nine with its suit kept while every foundation is empty (window: ranks 1, 2).
    let (i, q) = (0..a.n)
        .find_map(|i| {
            (0..a.len[i] as usize)
                .find(|&q| a.pile[i][q] >> 3 == 9)
                .map(|q| (i, q))
        })
        .expect("a nine");
    a.pile[i][q] = sym(9, 2);
    let mut s = Search::new(a.clone(), &opts, &stop, Instant::now());
    assert_eq!(s.key(), Err(Broken::Code));
    assert_eq!(run_on(a, &opts), QuotientVerdict::Broken(Broken::Code));
}

/// A finished run's table kept for the next runs holds its proved keys and nothing else:
/// every one found proved, no other key found at all.
#[test]
fn a_kept_table_holds_exactly_the_proved_keys() {
    let mut t = Table::<2>::new();
    let key = |i: u64| [1 << 63 | i, i * 7];
    for i in 0..20_000 {
        let h = hash_words(&key(i));
        let part = Table::<2>::part_of(h);
        if t.needs_growth(part) {
            t.grow(part);
        }
        let (at, new) = t.insert(&key(i), h);
        assert!(new);
        *t.val(at) = if i % 5 == 0 { PROVED } else { i as u32 };
    }
    // Every key where it was put, with its value, after the parts' growths.
    for i in 0..20_000 {
        let (at, there) = t.find(&key(i));
        assert!(there, "key {i}");
        assert_eq!(*t.val(at), if i % 5 == 0 { PROVED } else { i as u32 });
    }
    assert_eq!(t.len(), 20_000);
    let before = t.bytes();
    let kept = t.proved_only();
    assert_eq!(kept.len(), 4_000);
    assert!(kept.bytes() < before, "it saves room");
    assert!(!kept.has_values(), "every key it holds is proved");
    for i in 0..20_000 {
        assert_eq!(kept.find(&key(i)).1, i % 5 == 0, "key {i}");
    }
    // Nothing proved: nothing kept.
    let mut t = Table::<2>::new();
    let h = hash_words(&key(1));
    t.grow(Table::<2>::part_of(h));
    t.insert(&key(1), h);
    let kept = t.proved_only();
    assert_eq!((kept.len(), kept.bytes()), (0, 0));
}

/// The store keeps the oldest run, the newest and, of the others, those that proved the
/// most.
#[test]
fn the_store_keeps_the_oldest_and_newest_runs_and_the_largest_proofs() {
    let level = |kept: u64, proofs: usize| Level {
        k: 2,
        dealt: true,
        kept,
        proofs,
        codes: Codes::new(),
        main: Table::new(),
        long: Table::new(),
    };
    let mut p = Proved::new();
    for (i, proofs) in [3, 5, 40, 7, 60, 1].into_iter().enumerate() {
        p.runs.push(level(i as u64, proofs));
        p.keep_best();
    }
    let kept: Vec<(u64, usize)> = p.runs.iter().map(|l| (l.kept, l.proofs)).collect();
    assert_eq!(kept, [(0, 3), (2, 40), (4, 60), (5, 1)]);
}

/// Bits wider than their field are refused, whatever they are.
#[test]
fn a_value_wider_than_its_field_is_refused() {
    let mut w = Bits::new();
    w.put(0b11, 2);
    assert!(w.finish().is_ok());
    let mut w = Bits::new();
    w.put(0b100, 2);
    assert_eq!(w.finish(), Err(Broken::Code));
}

#[test]
fn bits_pack_most_significant_first() {
    let mut w = Bits::new();
    w.put(1, 1);
    w.put(0b101, 3);
    for _ in 0..20 {
        w.put(0xABC, 12);
    }
    let (words, bits) = w.finish().expect("fields that fit");
    assert_eq!(bits, 4 + 240);
    let mut want = vec![true, true, false, true];
    for _ in 0..20 {
        for b in (0..12).rev() {
            want.push(0xABC >> b & 1 == 1);
        }
    }
    for (i, &b) in want.iter().enumerate() {
        assert_eq!(words[i / 64] >> (63 - i % 64) & 1 == 1, b, "bit {i}");
    }
}

/// The key against a slow canonical form (the sorted piles of symbols and the
/// foundations) on random walks: equal keys exactly when equal forms, and `undo`
/// restores every position.
#[test]
fn keys_are_exact_and_undo_restores() {
    use crate::rules::Variant;
    use std::collections::HashMap;
    type Slow = (Vec<Option<(u8, Vec<u8>)>>, Vec<Vec<u8>>, [u8; 4]);
    // With the dealt refinement, piles with never-moved cards by column; the rest sorted.
    let slow = |a: &Abs| -> Slow {
        let column = |i: usize| a.dealt && a.prefix[i] > 0;
        let cols = (0..a.n)
            .map(|i| column(i).then(|| (a.prefix[i], a.pile[i][..a.len[i] as usize].to_vec())))
            .collect();
        let mut p: Vec<Vec<u8>> = (0..a.n)
            .filter(|&i| !column(i))
            .map(|i| a.pile[i][..a.len[i] as usize].to_vec())
            .collect();
        p.sort();
        (cols, p, a.f)
    };
    let opts = QuotientOptions::default();
    let stop = AtomicBool::new(false);
    let mut rng = 0x1234_5678_9ABC_DEF1u64;
    let mut next = |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    let mut walked = 0;
    for (variant, start, unlimited) in [
        (Variant::BeleagueredCastle, None, false),
        (Variant::StreetsAndAlleys, None, true),
        (Variant::Citadel, None, false),
        (Variant::BeleagueredCastle, Some(5), true),
    ] {
        let mut rules = variant.rules();
        if let Some(r) = start {
            rules = rules.with_start_rank(r).unwrap();
        }
        if unlimited {
            rules = rules.with_sequence_moves(SequenceMoves::Unlimited);
        }
        for (k, dealt) in [
            (1, false),
            (2, false),
            (3, false),
            (13, false),
            (2, true),
            (3, true),
        ] {
            let mut by_key: HashMap<Vec<u64>, Slow> = HashMap::new();
            let mut by_slow: HashMap<Slow, Vec<u64>> = HashMap::new();
            for seed in 1..6 {
                // The refinement's keys name columns: they compare within one deal.
                if dealt {
                    by_key.clear();
                    by_slow.clear();
                }
                let deal = Deal::from_seed(rules, seed);
                let mut s = Search::new(
                    Abs::new(&deal, k, dealt, 0).unwrap(),
                    &opts,
                    &stop,
                    Instant::now(),
                );
                for _ in 0..400 {
                    let (words, bits) = s.key().expect("a valid key");
                    let key = words[..bits.div_ceil(64)].to_vec();
                    let form = slow(&s.a);
                    assert_eq!(by_key.entry(key.clone()).or_insert(form.clone()), &form);
                    assert_eq!(by_slow.entry(form).or_insert(key.clone()), &key);
                    let mut list = Vec::new();
                    s.a.generate(None, &mut list).expect("moves");
                    if list.is_empty() {
                        break;
                    }
                    for &m in &list {
                        let before = slow(&s.a);
                        let raw = (s.a.pile, s.a.prefix);
                        let played = s.a.apply(m);
                        s.a.undo(played);
                        assert_eq!((slow(&s.a), (s.a.pile, s.a.prefix)), (before, raw));
                    }
                    s.a.apply(list[next(list.len())]);
                    walked += 1;
                }
            }
        }
    }
    assert!(walked > 5000, "{walked} moves walked");
}

#[test]
fn moves_pack_and_unpack() {
    let m = AMove::tableau(11, 3, 17);
    assert_eq!((m.from(), m.to(), m.count()), (11, 3, 17));
    let h = AMove::home(7, 2, 11, 51);
    assert_eq!(
        (h.from(), h.to(), h.suit(), h.bp(), h.bq()),
        (7, FOUND, 2, 11, 51)
    );
    let h = AMove::home(0, 3, NO_BRANCH, 0);
    assert_eq!((h.suit(), h.bp()), (3, NO_BRANCH));
}
