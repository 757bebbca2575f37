//! A model of courtyard's formula played on the real game ([`crate::check::Board`], the
//! rule book's move checker): gap by gap, the cards the model moves are moved, each once,
//! straight to the place the model gives them at the gap's end, in any order the rules
//! allow, then the gap's event. The first gap no such order realizes names what the
//! relaxation lets through: a step the rules refuse, and why. That is how the model is
//! tightened (docs/design.md, "Courtyard: losses by a SAT solver"): each refusal points at
//! a consequence of the rules the formula does not yet state.
//!
//! Moving each card once, straight to its place, finds an order whenever one exists for
//! such moves: a legal move never makes another one illegal (it uncovers the card below
//! it; it covers only a card that stays, and that no other mover is bound for, a card
//! holding one card; a card home never leaves). One kind of double move is tried: a run
//! lying on a mover, where the model has it before and after the gap, steps aside onto the
//! other copies of the values it lies on and comes back. Other double moves (a card away
//! and back to uncover one below) the model does not record and the replay does not try, so
//! a refusal is "no order of these moves", not a proof that the gap cannot be played.

use super::model::{Model, Place};
use crate::check::{Board, Step};
use crate::deal::Deal;
use crate::pile::Pile;

/// What the replay made of a model.
#[derive(Debug)]
pub struct Replayed {
    /// Gaps realized, from the first.
    pub gaps: usize,
    /// The moves that realize them.
    pub steps: Vec<Step>,
    /// Cards home after them.
    pub home: usize,
    /// Why the next gap could not be played (None: the model is a win, every gap played).
    pub refusal: Option<String>,
}

/// The real position with each card known by its index in the model.
#[derive(Clone)]
pub(crate) struct Mirror {
    board: Board,
    piles: Vec<Vec<usize>>,
    waste: Vec<usize>,
    /// Next card first.
    stock: Vec<usize>,
    home: Vec<bool>,
}

impl Mirror {
    /// The model's cards are numbered pile by pile (bottom first), then the waste (bottom
    /// first), then the stock (next first): [`Model`]'s order.
    pub(crate) fn new(deal: &Deal) -> Mirror {
        let mut k = 0;
        let mut take = |n: usize| {
            let v: Vec<usize> = (k..k + n).collect();
            k += n;
            v
        };
        let piles = deal.tableau.iter().map(|p| take(p.len())).collect();
        let waste = take(deal.waste.len());
        let stock = take(deal.stock.len());
        Mirror {
            board: Board::new(deal),
            piles,
            waste,
            stock,
            home: vec![false; k],
        }
    }

    fn place(&self, i: usize) -> Place {
        if self.home[i] {
            return Place::Home;
        }
        if self.waste.contains(&i) {
            return Place::Waste;
        }
        if self.stock.contains(&i) {
            return Place::Stock;
        }
        for p in &self.piles {
            if let Some(k) = p.iter().position(|&c| c == i) {
                return if k == 0 {
                    Place::Bottom
                } else {
                    Place::On(p[k - 1])
                };
            }
        }
        Place::Nowhere
    }

    /// The card `k` lies on (`k` is a card of a run above a mover, so not a bottom).
    fn below(&self, k: usize) -> usize {
        match self.place(k) {
            Place::On(q) => q,
            other => unreachable!("a card above another is on it, not {other:?}"),
        }
    }

    /// Every card's place.
    pub(crate) fn places(&self, n: usize) -> Vec<Place> {
        (0..n).map(|i| self.place(i)).collect()
    }

    /// The pile holding `i` and the card on it, if it is in the tableau.
    fn pile_of(&self, i: usize) -> Option<(usize, Option<usize>)> {
        self.piles.iter().enumerate().find_map(|(n, p)| {
            let k = p.iter().position(|&c| c == i)?;
            Some((n, p.get(k + 1).copied()))
        })
    }

    /// Plays `step` on the board (the rules' say) and, if it is legal, on the indexes.
    pub(crate) fn play(&mut self, step: Step, steps: &mut Vec<Step>) -> Result<(), String> {
        self.board.play(&step).map_err(|e| format!("{step}: {e}"))?;
        let i = match step.from {
            Pile::Tableau(p) => self.piles[usize::from(p)].pop(),
            Pile::Waste => self.waste.pop(),
            Pile::Stock => Some(self.stock.remove(0)),
            _ => None,
        }
        .expect("the board moved a card from a pile the indexes hold");
        match step.to {
            Pile::Tableau(p) => self.piles[usize::from(p)].push(i),
            Pile::Waste => self.waste.push(i),
            Pile::Foundation => self.home[i] = true,
            _ => unreachable!("courtyard moves to the tableau, the waste or home"),
        }
        steps.push(step);
        Ok(())
    }
}

/// Plays the model (`value`: its assignment) of `deal`'s formula `m` on the real game.
pub fn replay(m: &Model, deal: &Deal, value: &dyn Fn(i32) -> bool) -> Replayed {
    let mut mirror = Mirror::new(deal);
    let mut steps = Vec::new();
    let n = m.cards();
    let mut refusal = None;
    let mut gaps = 0;
    for s in 1..=m.events() {
        if let Err(why) = gap(m, s, value, &mut mirror, &mut steps) {
            refusal = Some(format!("gap {s}: {why}"));
            break;
        }
        gaps = s;
    }
    Replayed {
        gaps,
        steps,
        home: (0..n).filter(|&i| mirror.home[i]).count(),
        refusal,
    }
}

/// The moves that take `i` to `to` with the run `above` it (cards that lie where they lie
/// before and after the gap): each steps aside onto the other copy of the value it lies on,
/// the top card first, and comes back once `i` has moved. Tried on a copy of the position.
fn carry(
    m: &Model,
    mirror: &Mirror,
    i: usize,
    above: &[usize],
    to: Pile,
) -> Result<Vec<Step>, String> {
    let mut trial = mirror.clone();
    let mut plan = Vec::new();
    let name = |i: usize| m.name(i);
    for &k in above.iter().rev() {
        let under = trial.below(k);
        let from = trial.pile_of(k).expect("in the tableau").0;
        let aside = (0..m.cards())
            .find(|&o| {
                o != under
                    && m.card(o) == m.card(under)
                    && matches!(trial.pile_of(o), Some((_, None)))
            })
            .ok_or_else(|| {
                format!(
                    "{} is covered by {}, and the other copy of {} is not a top",
                    name(i),
                    name(k),
                    name(under)
                )
            })?;
        let dest = trial.pile_of(aside).expect("a top").0;
        shift(&mut trial, &mut plan, m.card(k), (from, dest))
            .map_err(|e| format!("{}'s carry: {e}", name(i)))?;
    }
    let from = trial.pile_of(i).expect("in the tableau").0;
    trial
        .play(
            Step::single(m.card(i), Pile::Tableau(from as u8), to),
            &mut plan,
        )
        .map_err(|e| format!("{}: {e}", name(i)))?;
    for &k in above {
        let from = trial.pile_of(k).expect("in the tableau").0;
        let dest = trial.pile_of(mirror.below(k)).expect("in the tableau").0;
        shift(&mut trial, &mut plan, m.card(k), (from, dest))
            .map_err(|e| format!("{}'s carry back: {e}", name(i)))?;
    }
    Ok(plan)
}

/// Moves `card` from one tableau pile to another on `trial`, adding the step to `plan`.
fn shift(
    trial: &mut Mirror,
    plan: &mut Vec<Step>,
    card: crate::card::Card,
    (from, to): (usize, usize),
) -> Result<(), String> {
    let step = Step::single(card, Pile::Tableau(from as u8), Pile::Tableau(to as u8));
    trial.play(step, plan)
}

/// Where mover `i` goes: home, or onto the card the model puts it on (a top that stays).
fn destination(
    m: &Model,
    mirror: &Mirror,
    target: &[Place],
    movers: &[usize],
    i: usize,
) -> Result<Pile, String> {
    let name = |i: usize| m.name(i);
    match target[i] {
        Place::Home => Ok(Pile::Foundation),
        Place::On(q) if movers.contains(&q) => Err(format!(
            "{} is bound for {}, which has yet to move",
            name(i),
            name(q)
        )),
        Place::On(q) => match mirror.pile_of(q) {
            Some((p, None)) => Ok(Pile::Tableau(p as u8)),
            Some((_, Some(k))) => Err(format!(
                "{} is bound for {}, covered by {}",
                name(i),
                name(q),
                name(k)
            )),
            None => Err(format!(
                "{} is bound for {}, not in the tableau",
                name(i),
                name(q)
            )),
        },
        other => Err(format!("{} is bound for {}", name(i), m.show(other))),
    }
}

/// Plays gap `s`: the deals, the tableau's moves, the event; then checks the position is
/// the model's state `s`.
fn gap(
    m: &Model,
    s: usize,
    value: &dyn Fn(i32) -> bool,
    mirror: &mut Mirror,
    steps: &mut Vec<Step>,
) -> Result<(), String> {
    let n = m.cards();
    let target: Vec<Place> = (0..n).map(|i| m.place(s, i, value)).collect();
    let name = |i: usize| m.name(i);
    // The cards dealt in the gap, in the stock's order (before the event: they lie on it).
    while let Some(&i) = mirror.stock.first() {
        if target[i] == Place::Stock {
            break;
        }
        let step = Step::single(m.card(i), Pile::Stock, Pile::Waste);
        mirror.play(step, steps)?;
    }
    let event = mirror
        .waste
        .iter()
        .copied()
        .find(|&i| target[i] != Place::Waste)
        .ok_or("no card leaves the waste")?;
    // The tableau's movers, each straight to its place; a bottom last (its pile is filled
    // at once, by the event).
    let mut movers: Vec<usize> = (0..n)
        .filter(|&i| mirror.pile_of(i).is_some() && mirror.place(i) != target[i])
        .collect();
    while !movers.is_empty() {
        let mut played = None;
        let mut why = Vec::new();
        for &i in &movers {
            let (pile, _) = mirror.pile_of(i).expect("a mover is in the tableau");
            if mirror.piles[pile].len() == 1 && movers.len() > 1 {
                why.push(format!(
                    "{} would empty its pile while other cards have yet to move",
                    name(i)
                ));
                continue;
            }
            let to = match destination(m, mirror, &target, &movers, i) {
                Ok(to) => to,
                Err(e) => {
                    why.push(e);
                    continue;
                }
            };
            let above = mirror.piles[pile][mirror.piles[pile]
                .iter()
                .position(|&c| c == i)
                .expect("in its pile")
                + 1..]
                .to_vec();
            if let Some(&k) = above.iter().find(|&&k| target[k] != mirror.place(k)) {
                why.push(format!("{} is covered by {}", name(i), name(k)));
                continue;
            }
            match carry(m, mirror, i, &above, to) {
                Ok(plan) => {
                    played = Some((i, plan));
                    break;
                }
                Err(e) => why.push(e),
            }
        }
        let Some((i, plan)) = played else {
            return Err(why.join("; "));
        };
        for step in plan {
            mirror.play(step, steps)?;
        }
        movers.retain(|&k| k != i);
    }
    // The event: the waste's top leaves.
    if mirror.waste.last() != Some(&event) {
        let top = *mirror
            .waste
            .last()
            .expect("the event's card is in the waste");
        return Err(format!(
            "{} leaves the waste under {} (which stays)",
            name(event),
            name(top)
        ));
    }
    let to = match target[event] {
        Place::Home => Pile::Foundation,
        Place::Bottom => match mirror.board.pending_fill() {
            Some(p) => Pile::Tableau(p as u8),
            None => {
                return Err(format!(
                    "{} is bound for a pile, and none is empty",
                    name(event)
                ))
            }
        },
        Place::On(q) => match mirror.pile_of(q) {
            Some((p, None)) => Pile::Tableau(p as u8),
            _ => {
                return Err(format!(
                    "{} is bound for {}, not a top",
                    name(event),
                    name(q)
                ))
            }
        },
        other => return Err(format!("{} is bound for {}", name(event), m.show(other))),
    };
    mirror.play(Step::single(m.card(event), Pile::Waste, to), steps)?;
    let off: Vec<String> = (0..n)
        .filter(|&i| mirror.place(i) != target[i])
        .map(|i| {
            format!(
                "{} is {} (the model: {})",
                name(i),
                m.show(mirror.place(i)),
                m.show(target[i])
            )
        })
        .collect();
    if off.is_empty() {
        Ok(())
    } else {
        Err(off.join("; "))
    }
}
