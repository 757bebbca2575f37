//! The coach of `castle serve`: whether the position of a game is still winnable, the next
//! move of a win, and for a lost position the move that lost it ("no longer winnable: since
//! move N"). The verdicts are the exact solver's ([`crate::play::coach::solve`], whose wins
//! are replayed by the checker before they are believed), within the request's [`Budget`]; a
//! budget that runs out gives `unknown`, never "lost".
//!
//! Finding the move that lost the game rests on one fact: along a game, winnable positions
//! come first and lost ones after (a position with a win has a move that keeps it, and a
//! lost position has none). So the positions where the player was to move are searched by
//! bisection, the one before the last move first (where most games are lost).
//!
//! Decided positions are kept in a [`Cache`] shared by all requests; a win's line puts every
//! position along it in the cache too, so a player who follows the hints costs no new search,
//! and a game that left the line a few moves ago is carried forward as `castle play`'s coach
//! carries it ([`crate::play::coach::Coach::follow`]).

use crate::check::{Board, Step};
use crate::critical::MARK_NODES;
use crate::play::coach::{self as play_coach, Coach, Known};
use crate::play::game::Game;
use crate::solver::{Limits, Solver, Verdict};
use serde::Serialize;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Instant;

/// The node and time budget of one request, spent by its solves one after another.
#[derive(Debug)]
pub struct Budget {
    nodes: Option<u64>,
    deadline: Option<Instant>,
    memory: usize,
    used: u64,
}

impl Budget {
    /// The budget of `solver`'s limits, from now.
    pub fn new(solver: &Solver) -> Budget {
        let l = &solver.limits;
        Budget {
            nodes: l.max_nodes,
            deadline: l.deadline(Instant::now()),
            memory: l.memory_bytes,
            used: 0,
        }
    }

    /// Nodes spent.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// Counts `n` nodes spent.
    pub fn spend(&mut self, n: u64) {
        self.used = self.used.saturating_add(n);
    }

    /// What is left: (nodes, seconds), or `None` when something ran out.
    fn left(&self) -> Option<(Option<u64>, Option<f64>)> {
        let nodes = match self.nodes {
            Some(n) if self.used >= n => return None,
            Some(n) => Some(n - self.used),
            None => None,
        };
        let seconds = match self.deadline {
            Some(d) => {
                let s = d.saturating_duration_since(Instant::now()).as_secs_f64();
                if s <= 0.0 {
                    return None;
                }
                Some(s)
            }
            None => None,
        };
        Some((nodes, seconds))
    }

    /// `base` with what is left of the budget, or `None` when it ran out.
    pub fn solver(&self, base: &Solver) -> Option<Solver> {
        let (max_nodes, max_seconds) = self.left()?;
        Some(Solver {
            limits: Limits {
                max_nodes,
                max_seconds,
                memory_bytes: self.memory,
            },
            ..base.clone()
        })
    }

    /// The solver of the critical marks: [`MARK_NODES`] a choice (less if less is left),
    /// verdicts only.
    pub fn marking(&self, base: &Solver) -> Option<Solver> {
        let (nodes, seconds) = self.left()?;
        let mut s =
            crate::critical::marking_solver(nodes.map_or(MARK_NODES, |n| n.min(MARK_NODES)));
        s.limits.max_seconds = seconds;
        s.limits.memory_bytes = self.memory;
        s.stop.clone_from(&base.stop);
        Some(s)
    }
}

/// How many positions the cache keeps.
pub const CACHE_POSITIONS: usize = 4096;

/// Decided positions, shared by the requests (the oldest forgotten first).
#[derive(Debug, Default)]
pub struct Cache {
    inner: Mutex<CacheInner>,
}

#[derive(Debug, Default)]
struct CacheInner {
    map: HashMap<String, Known>,
    order: VecDeque<String>,
}

/// A board's key: every pile and the rules (the plans name the board's own cells, so the
/// key does not forget their order).
fn key(board: &Board) -> String {
    format!("{board:?}")
}

impl Cache {
    /// What is known of `board`.
    pub fn get(&self, board: &Board) -> Option<Known> {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.map.get(&key(board)).cloned()
    }

    /// Remembers `known` of `board`; a win's line also puts each position along it, with
    /// the rest of the line.
    pub fn put(&self, board: &Board, known: &Known) {
        let mut entries = vec![(key(board), known.clone())];
        if known.verdict == Verdict::Solvable {
            let mut b = board.clone();
            for (i, s) in known.plan.iter().enumerate().take(CACHE_POSITIONS / 8) {
                if b.play(s).is_err() {
                    break;
                }
                entries.push((
                    key(&b),
                    Known {
                        verdict: Verdict::Solvable,
                        plan: known.plan[i + 1..].to_vec(),
                        nodes: 0,
                    },
                ));
            }
        }
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        for (k, v) in entries {
            if inner.map.insert(k.clone(), v).is_none() {
                inner.order.push_back(k);
            }
        }
        while inner.order.len() > CACHE_POSITIONS {
            if let Some(old) = inner.order.pop_front() {
                inner.map.remove(&old);
            }
        }
    }

    /// Positions kept.
    pub fn len(&self) -> usize {
        self.inner.lock().map_or(0, |i| i.map.len())
    }

    /// No position kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The coach's word on a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    /// Every card is home.
    Won,
    /// A win exists from here.
    Yes,
    /// No win exists from here.
    No,
    /// The budget ran out before either was shown.
    Unknown,
}

/// What the coach says of a game's position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coaching {
    /// The mark.
    pub mark: Mark,
    /// For `Yes`: a checked winning line from the position.
    pub plan: Vec<Step>,
    /// For `No`: the number (from 1, in the game's moves, automatic ones included) of the
    /// move that lost the game, when the search pinned it.
    pub since: Option<usize>,
    /// That move.
    pub losing_move: Option<Step>,
    /// For `No` when the move is not pinned: the most moves after which the game is known to
    /// have been winnable (`None`: not even the deal is known to be winnable).
    pub winnable_after: Option<usize>,
    /// For `No`: the deal itself has no win.
    pub deal_lost: bool,
    /// Known without a search.
    pub cached: bool,
}

impl Coaching {
    fn new(mark: Mark) -> Coaching {
        Coaching {
            mark,
            plan: Vec::new(),
            since: None,
            losing_move: None,
            winnable_after: None,
            deal_lost: false,
            cached: false,
        }
    }

    /// The answer in words, as the page shows it.
    pub fn text(&self) -> String {
        match self.mark {
            Mark::Won => "won: every card is home".to_string(),
            Mark::Yes => "still winnable".to_string(),
            Mark::Unknown => "not decided within the budget".to_string(),
            Mark::No => match (self.since, &self.losing_move) {
                (Some(n), Some(s)) => format!("no longer winnable: since move {n} ({s})"),
                _ if self.deal_lost => "not winnable: the deal has no win".to_string(),
                _ => match self.winnable_after {
                    Some(k) => format!(
                        "no longer winnable: since a move after move {k} (which one is not decided within the budget)"
                    ),
                    None => "no longer winnable (which move lost it is not decided within the budget)"
                        .to_string(),
                },
            },
        }
    }
}

/// What is known of `board`: from the cache, or solved within `budget` (and cached). `None`
/// when the budget has run out.
fn decide(
    board: &Board,
    cache: &Cache,
    budget: &mut Budget,
    base: &Solver,
) -> Option<(Known, bool)> {
    if let Some(k) = cache.get(board) {
        return Some((k, true));
    }
    let solver = budget.solver(base)?;
    let k = play_coach::solve(&solver, board);
    budget.spend(k.nodes);
    // An undecided position is kept too: asking again with the same budget would only
    // spend it again.
    cache.put(board, &k);
    Some((k, false))
}

/// How far back a game's moves are looked at for a known position to carry forward.
const CARRY_BACK: usize = 16;

/// The boards of a game after each number of moves, 0 to all (the deal to now).
fn boards(game: &Game) -> Vec<Board> {
    let mut b = Board::new(game.deal());
    let mut out = Vec::with_capacity(game.history().len() + 1);
    out.push(b.clone());
    for e in game.history() {
        // Every move of a game was checked when it was made (or loaded).
        let _ = b.play(&e.step);
        out.push(b.clone());
    }
    out
}

/// A known position a few moves back carried forward to the position now, as `castle
/// play`'s coach does: a loss stays a loss, a line stays a win when the moves made come out
/// of it (checked by the checker).
fn carried(game: &Game, all: &[Board], cache: &Cache) -> Option<Known> {
    let now = all.last()?;
    let steps: Vec<Step> = game.history().iter().map(|e| e.step).collect();
    let n = steps.len();
    for i in (n.saturating_sub(CARRY_BACK)..n).rev() {
        let Some(k) = cache.get(&all[i]) else {
            continue;
        };
        if k.verdict == Verdict::Unknown {
            return None;
        }
        let mut c = Coach::new(None);
        c.learn(all[i].clone(), k);
        c.follow(&all[i], &steps[i..], now);
        let k = c.known(now).cloned()?;
        cache.put(now, &k);
        return Some(k);
    }
    None
}

/// The coach's answer on `game`'s position, within `budget` (a lost position's search for
/// the move that lost it has a budget as large again of its own).
pub fn coach(game: &Game, cache: &Cache, budget: &mut Budget, base: &Solver) -> Coaching {
    if game.is_won() {
        return Coaching::new(Mark::Won);
    }
    let all = boards(game);
    let now = game.board();
    let (known, cached) = match cache.get(now) {
        Some(k) => (k, true),
        None => match carried(game, &all, cache) {
            Some(k) => (k, true),
            None => match decide(now, cache, budget, base) {
                Some(kc) => kc,
                None => return Coaching::new(Mark::Unknown),
            },
        },
    };
    let mut c = Coaching::new(match known.verdict {
        Verdict::Solvable => Mark::Yes,
        Verdict::Unsolvable => Mark::No,
        Verdict::Unknown => Mark::Unknown,
    });
    c.cached = cached;
    c.plan = known.plan;
    if c.mark == Mark::No {
        let mut since_budget = Budget::new(base);
        since(game, &all, cache, &mut since_budget, base, &mut c);
        budget.spend(since_budget.used());
    }
    c
}

/// Pins the move that lost the game (see the module's docs) into `c`.
fn since(
    game: &Game,
    all: &[Board],
    cache: &Cache,
    budget: &mut Budget,
    base: &Solver,
    c: &mut Coaching,
) {
    let history = game.history();
    // The positions where the player was to move: before each of the player's moves, and now.
    let rests: Vec<usize> = (0..=history.len())
        .filter(|&i| i == history.len() || !history[i].auto)
        .collect();
    let verdict = |i: usize, budget: &mut Budget| {
        decide(&all[rests[i]], cache, budget, base).map_or(Verdict::Unknown, |(k, _)| k.verdict)
    };
    let (mut lo, mut hi) = (None, rests.len() - 1);
    // Most games are lost by their last move: that position first, then the first one.
    if hi >= 1 {
        match verdict(hi - 1, budget) {
            Verdict::Solvable => lo = Some(hi - 1),
            Verdict::Unsolvable => hi -= 1,
            Verdict::Unknown => {}
        }
    }
    if lo.is_none() {
        match verdict(0, budget) {
            Verdict::Solvable => lo = Some(0),
            Verdict::Unsolvable => {
                c.deal_lost = true;
                return;
            }
            Verdict::Unknown => return,
        }
    }
    let Some(mut lo) = lo else { return };
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        match verdict(mid, budget) {
            Verdict::Solvable => lo = mid,
            Verdict::Unsolvable => hi = mid,
            Verdict::Unknown => break,
        }
    }
    if hi - lo == 1 {
        let at = rests[lo];
        c.since = Some(at + 1);
        c.losing_move = Some(history[at].step);
    } else {
        c.winnable_after = Some(rests[lo]);
    }
}
