//! Measures how far two exact reductions would shrink courtyard's layered search: every
//! position reachable from a deal, level by level (cards home plus cards dealt), counted three
//! ways: by castle's key; with the waste keyed by its cards' values (two copies of a card are
//! the same card, so which copy lies in the waste does not change the future); and with,
//! besides, each suit's piles brought to one canonical arrangement of those that reversible
//! pile-to-pile moves connect (a moved card that is not a pile's bottom can always move back).
//! It also counts the distinct tableaux (piles as suit, bottom rank, top rank), sets of pile
//! tops and wastes by value among each level's positions (a position is fixed by its
//! tableau, foundations and cards dealt). It also asks the relaxed courtyard of `common/rm.rs` about one position in `EVERY` (default
//! 1,000) as they are expanded: `rm_dead` counts those it proves lost. Every position is held
//! in memory: deal 98 to level 29 took about 15 GiB.
//!
//! `cargo run --release --example courtyard_classes -- SEED MAX_LEVEL [EVERY]`

use castle::card::Card;
use castle::moves::MoveList;
use castle::state::{Position, Pruning};
use castle::{Deal, Variant};
use std::collections::{HashMap, HashSet};

#[allow(dead_code)]
#[path = "common/rm.rs"]
mod rm;

/// A pile of this game as (suit, bottom rank, top rank): a same-suit run down from its bottom.
type Pile = (u8, u8, u8);

/// A position keyed by its piles (as given), its waste's cards and the stock's size.
type Key = (Vec<Pile>, Vec<Card>, usize);

fn piles(p: &Position) -> Vec<Pile> {
    (0..p.piles())
        .filter_map(|i| {
            let pile = p.pile(i);
            let (b, t) = (pile.first()?, pile.last()?);
            Some((b.suit_index() as u8, b.rank(), t.rank()))
        })
        .collect()
}

/// The least sorted arrangement among those that reversible moves reach: a top card that is
/// not its pile's bottom moves onto the same suit's card one rank higher on another top.
fn canonical(mut ps: Vec<Pile>) -> Vec<Pile> {
    ps.sort_unstable();
    let mut seen: HashSet<Vec<Pile>> = HashSet::new();
    let mut todo = vec![ps.clone()];
    seen.insert(ps.clone());
    let mut best = ps;
    while let Some(cur) = todo.pop() {
        for a in 0..cur.len() {
            let (s, b, t) = cur[a];
            if t == b {
                continue; // a bottom card: moving it empties the pile (not reversible)
            }
            for d in 0..cur.len() {
                let (s2, _, t2) = cur[d];
                if d == a || s2 != s || t2 != t + 1 {
                    continue;
                }
                let mut next = cur.clone();
                next[a].2 = t + 1;
                next[d].2 = t;
                next.sort_unstable();
                if seen.insert(next.clone()) {
                    if next < best {
                        best = next.clone();
                    }
                    todo.push(next);
                }
            }
        }
    }
    best
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seed: u64 = args[0].parse().expect("SEED");
    let max_level: usize = args[1].parse().expect("MAX_LEVEL");
    let deal = Deal::from_seed(Variant::Courtyard.rules(), seed);
    let dealt0 = deal.stock.len();
    let prune = Pruning::default();
    let level = |p: &Position| p.home() as usize + dealt0 - p.stock().len();
    let autoplay = |p: &mut Position, h: &mut Vec<castle::moves::Move>| {
        while let Some(m) = p.safe_move() {
            p.play(m, h);
        }
    };
    let mut root = Position::new(&deal);
    autoplay(&mut root, &mut Vec::new());
    let mut frontier: HashMap<usize, Vec<Position>> = HashMap::new();
    let mut exact: HashMap<usize, HashSet<[u64; 4]>> = HashMap::new();
    let mut by_value: HashMap<usize, HashSet<Key>> = HashMap::new();
    let mut canon: HashMap<usize, HashSet<Key>> = HashMap::new();
    // The tableaux alone, the sets of pile tops, and the wastes by value.
    let mut tabs: HashMap<usize, HashSet<Vec<Pile>>> = HashMap::new();
    let mut tops: HashMap<usize, HashSet<Vec<u8>>> = HashMap::new();
    let mut wastes: HashMap<usize, HashSet<Vec<Card>>> = HashMap::new();
    macro_rules! add {
        ($p:expr) => {{
            let p: Position = $p;
            let l = level(&p);
            if exact.entry(l).or_default().insert(p.key::<4>().unwrap()) {
                let ps = piles(&p);
                let (w, s) = (p.waste(), p.stock().len());
                tabs.entry(l).or_default().insert(sorted(ps.clone()));
                let mut t: Vec<u8> = ps.iter().map(|&(su, _, top)| top * 4 + su).collect();
                t.sort_unstable();
                tops.entry(l).or_default().insert(t);
                let mut wv = w.clone();
                wv.sort_unstable();
                wastes.entry(l).or_default().insert(wv);
                by_value
                    .entry(l)
                    .or_default()
                    .insert((sorted(ps.clone()), w.clone(), s));
                canon.entry(l).or_default().insert((canonical(ps), w, s));
                frontier.entry(l).or_default().push(p);
            }
        }};
    }
    let g = rm::Game::of(&deal);
    let every: usize = args.get(2).map_or(1000, |a| a.parse().unwrap());
    let (mut sampled, mut dead, mut popped) = (0usize, 0usize, 0usize);
    let t0 = std::time::Instant::now();
    add!(root);
    let mut list = MoveList::default();
    println!("level\texact\tby_value\tcanonical\tratio\ttableaux\ttops\twastes\tseconds\tsampled\trm_dead");
    for l in 0..=max_level {
        while let Some(p) = frontier.get_mut(&l).and_then(Vec::pop) {
            popped += 1;
            if popped % every == 0 {
                let st = rm::St::of_position(&p, dealt0);
                sampled += 1;
                if g.solve(st, 100_000).0 == Some(false) {
                    dead += 1;
                }
            }
            p.generate(prune, 0, None, &mut list);
            for m in list.iter() {
                let mut c = p.clone();
                let mut h = Vec::new();
                c.play(m, &mut h);
                autoplay(&mut c, &mut h);
                if c.is_won() {
                    println!("won at level {l}");
                    return;
                }
                add!(c);
            }
        }
        frontier.remove(&l);
        let e = exact.remove(&l).map_or(0, |s| s.len());
        let v = by_value.remove(&l).map_or(0, |s| s.len());
        let c = canon.remove(&l).map_or(0, |s| s.len());
        let tb = tabs.remove(&l).map_or(0, |s| s.len());
        let tp = tops.remove(&l).map_or(0, |s| s.len());
        let ws = wastes.remove(&l).map_or(0, |s| s.len());
        println!(
            "{l}\t{e}\t{v}\t{c}\t{:.2}\t{tb}\t{tp}\t{ws}\t{:.1}\t{sampled}\t{dead}",
            e as f64 / c.max(1) as f64,
            t0.elapsed().as_secs_f64()
        );
        (sampled, dead) = (0, 0);
    }
}

fn sorted(mut ps: Vec<Pile>) -> Vec<Pile> {
    ps.sort_unstable();
    ps
}
