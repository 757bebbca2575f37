//! The coach: the solver's view of the position in play, within a small budget.
//!
//! For each position it knows a [`Known`]: the verdict and, for a winnable position, a
//! winning line from it (checked by the rule-book checker before it is believed). It
//! remembers the last positions it saw, so undo and redo show their mark at once, and it
//! carries a winning line forward when the moves played keep to it, so a player who follows
//! the hints (or "show me") costs no new search. A budget that runs out gives `unknown`,
//! never a guess.
//!
//! The full-screen game asks a background [`Worker`] thread; the line mode solves on the
//! spot ([`Coach::think`]), so its output is the same on every run.

use crate::check::{steps_of, Board, Step};
use crate::pile::Pile;
use crate::solver::{Limits, Solver, Verdict};
use std::collections::VecDeque;
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};

/// What the solver knows about one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Known {
    /// The verdict.
    pub verdict: Verdict,
    /// For a winnable position, a checked winning line from it (every single move,
    /// automatic ones included); empty otherwise.
    pub plan: Vec<Step>,
    /// Nodes the search took (0 when the answer was carried forward).
    pub nodes: u64,
}

/// The "winnable?" mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// The coach is switched off.
    Off,
    /// A search is running.
    Thinking,
    /// Every card is home.
    Won,
    /// A win exists from here.
    Yes,
    /// No win exists from here.
    No,
    /// The budget ran out before either was shown.
    Unknown,
}

impl Mark {
    /// The word shown for it.
    pub const fn word(self) -> &'static str {
        match self {
            Mark::Off => "off",
            Mark::Thinking => "thinking",
            Mark::Won => "won",
            Mark::Yes => "yes",
            Mark::No => "no",
            Mark::Unknown => "unknown",
        }
    }
}

/// Table budget of one coach search. Small searches never come near it (the table grows by
/// doubling from small), and a full table only costs time.
pub const COACH_MEMORY_MIB: usize = 256;

/// How many positions the coach remembers.
const MEMORY: usize = 256;

/// The solver configured with the coach's budget. `max_nodes` 0 switches the coach off.
pub fn coach_solver(max_nodes: u64, max_seconds: Option<f64>) -> Option<Solver> {
    (max_nodes > 0).then(|| Solver {
        limits: Limits {
            max_nodes: Some(max_nodes),
            max_seconds,
            memory_bytes: COACH_MEMORY_MIB << 20,
        },
        ..Solver::default()
    })
}

/// Solves one position. A position the search cannot hold (a pile longer than a deal may
/// have) is `unknown`.
pub fn solve(solver: &Solver, board: &Board) -> Known {
    let deal = board.to_deal();
    if board.cards_out() == 0 {
        return Known {
            verdict: Verdict::Solvable,
            plan: Vec::new(),
            nodes: 0,
        };
    }
    if deal.validate().is_err() {
        return Known {
            verdict: Verdict::Unknown,
            plan: Vec::new(),
            nodes: 0,
        };
    }
    // A win that does not replay is a bug the solver reports as an error; the coach then
    // knows nothing, as for a plan that does not replay on this board (below).
    let Ok(out) = solver.solve(&deal) else {
        return Known {
            verdict: Verdict::Unknown,
            plan: Vec::new(),
            nodes: 0,
        };
    };
    let plan = match out.verdict {
        Verdict::Solvable => {
            let map = cell_map(board);
            let steps = steps_of(&out.moves)
                .into_iter()
                .map(|s| Step {
                    from: rename_cell(s.from, &map),
                    to: rename_cell(s.to, &map),
                    ..s
                })
                .collect();
            shorten(board, steps)
        }
        _ => Vec::new(),
    };
    let verdict = match out.verdict {
        // Believe a win only when the checker replays it on this board.
        Verdict::Solvable if !wins(board, &plan) => Verdict::Unknown,
        v => v,
    };
    Known {
        plan: if verdict == Verdict::Solvable {
            plan
        } else {
            Vec::new()
        },
        verdict,
        nodes: out.nodes,
    }
}

/// True if `plan` wins from `board`, by the checker.
pub fn wins(board: &Board, plan: &[Step]) -> bool {
    let mut b = board.clone();
    plan.iter().all(|s| b.play(s).is_ok()) && b.cards_out() == 0
}

/// The board's cell for each cell of `board.to_deal()`, which packs the cell cards to the
/// front (`r1` of the deal is the board's first full cell, and so on, then its empty cells
/// in order). The checker never moves a card between cells, so the map holds for a whole
/// line, and the rules treat all cells alike: a line of the deal is a line of the board
/// with its cells renamed.
fn cell_map(board: &Board) -> Vec<usize> {
    let (full, empty): (Vec<usize>, Vec<usize>) =
        (0..board.reserve.len()).partition(|&k| board.reserve[k].is_some());
    full.into_iter().chain(empty).collect()
}

/// `pile` with a cell of the deal renamed to the board's cell.
fn rename_cell(pile: Pile, map: &[usize]) -> Pile {
    match pile {
        Pile::Reserve(k) if usize::from(k) < map.len() => Pile::Reserve(map[usize::from(k)] as u8),
        p => p,
    }
}

/// A winning line without its round trips: where the line comes back to a position it has
/// been in before, the moves between are cut out (the rest of the line applies from the
/// same position, so it still wins). The solver's lines can hold such loops where it moves a
/// run through empty piles; a player shown the line should not see them.
pub fn shorten(board: &Board, plan: Vec<Step>) -> Vec<Step> {
    let mut seen = vec![board.clone()];
    let mut kept: Vec<Step> = Vec::with_capacity(plan.len());
    let mut now = board.clone();
    for s in plan {
        if now.play(&s).is_err() {
            break; // not a line from this board: stop here (callers check the result)
        }
        match seen.iter().position(|b| *b == now) {
            Some(i) => {
                seen.truncate(i + 1);
                kept.truncate(i);
            }
            None => {
                seen.push(now.clone());
                kept.push(s);
            }
        }
    }
    kept
}

/// The coach's memory of positions, and its solver (none when it is off).
#[derive(Clone, Debug)]
pub struct Coach {
    solver: Option<Solver>,
    memo: VecDeque<(Board, Known)>,
}

impl Coach {
    /// A coach with this solver; `None` switches it off.
    pub fn new(solver: Option<Solver>) -> Coach {
        Coach {
            solver,
            memo: VecDeque::new(),
        }
    }

    /// The solver, if the coach is on.
    pub fn solver(&self) -> Option<&Solver> {
        self.solver.as_ref()
    }

    /// What is known about `board`.
    pub fn known(&self, board: &Board) -> Option<&Known> {
        self.memo.iter().find(|(b, _)| b == board).map(|(_, k)| k)
    }

    /// Remembers what a search (or a carried line) found.
    pub fn learn(&mut self, board: Board, known: Known) {
        self.memo.retain(|(b, _)| *b != board);
        self.memo.push_front((board, known));
        self.memo.truncate(MEMORY);
    }

    /// The mark of `board`.
    pub fn mark(&self, board: &Board) -> Mark {
        if board.cards_out() == 0 {
            return Mark::Won;
        }
        if self.solver.is_none() {
            return Mark::Off;
        }
        match self.known(board).map(|k| k.verdict) {
            None => Mark::Thinking,
            Some(Verdict::Solvable) => Mark::Yes,
            Some(Verdict::Unsolvable) => Mark::No,
            Some(Verdict::Unknown) => Mark::Unknown,
        }
    }

    /// The position still needs a search (the coach is on and knows nothing of it).
    pub fn needs(&self, board: &Board) -> bool {
        self.solver.is_some() && board.cards_out() > 0 && self.known(board).is_none()
    }

    /// Solves `board` here and now if nothing is known of it yet.
    pub fn think(&mut self, board: &Board) {
        if let (true, Some(s)) = (self.needs(board), self.solver.clone()) {
            let k = solve(&s, board);
            self.learn(board.clone(), k);
        }
    }

    /// After `played` (forward moves) took `before` to `after`: a lost position stays lost,
    /// and a winning line stays one when the moves played come out of it. The shortened
    /// line is replayed by the checker before it is kept.
    pub fn follow(&mut self, before: &Board, played: &[Step], after: &Board) {
        if self.known(after).is_some() {
            return;
        }
        let Some(k) = self.known(before).cloned() else {
            return;
        };
        match k.verdict {
            Verdict::Unsolvable => self.learn(
                after.clone(),
                Known {
                    verdict: Verdict::Unsolvable,
                    plan: Vec::new(),
                    nodes: 0,
                },
            ),
            Verdict::Solvable => {
                let mut plan = k.plan;
                for s in played {
                    // The same move, or the same card sent home from another pile (an
                    // automatic move made before the line would have made it).
                    let at = plan.iter().position(|p| p == s).or_else(|| {
                        plan.iter().position(|p| {
                            s.to == Pile::Foundation && p.to == Pile::Foundation && p.card == s.card
                        })
                    });
                    match at {
                        Some(i) => {
                            plan.remove(i);
                        }
                        None => return,
                    }
                }
                if wins(after, &plan) {
                    self.learn(
                        after.clone(),
                        Known {
                            verdict: Verdict::Solvable,
                            plan,
                            nodes: 0,
                        },
                    );
                }
            }
            Verdict::Unknown => {}
        }
    }
}

/// The hint for a position, in words: a move that keeps the deal winnable, or why there is
/// none.
pub fn hint_text(known: &Known, budget: Option<u64>) -> String {
    match (known.verdict, known.plan.first()) {
        (Verdict::Solvable, Some(s)) => {
            format!(
                "hint: {} {} -> {} keeps the deal winnable",
                s.card, s.from, s.to
            )
        }
        (Verdict::Solvable, None) => "hint: the game is won".to_string(),
        (Verdict::Unsolvable, _) => {
            "hint: no move keeps the deal winnable: it is lost from here".to_string()
        }
        (Verdict::Unknown, _) => match budget {
            Some(n) => {
                format!("hint: none: the solver could not decide this position within {n} nodes")
            }
            None => "hint: none: the solver could not decide this position".to_string(),
        },
    }
}

/// A background thread that solves the positions it is sent, newest first: positions sent
/// while it was busy are skipped but the last.
pub struct Worker {
    ask: Sender<Board>,
    answers: Receiver<(Board, Known)>,
}

impl Worker {
    /// Starts the thread.
    pub fn spawn(solver: Solver) -> Worker {
        let (ask, jobs) = channel::<Board>();
        let (tell, answers) = channel();
        std::thread::spawn(move || {
            while let Ok(mut board) = jobs.recv() {
                loop {
                    match jobs.try_recv() {
                        Ok(newer) => board = newer,
                        Err(TryRecvError::Empty) => break,
                        Err(TryRecvError::Disconnected) => return,
                    }
                }
                let k = solve(&solver, &board);
                if tell.send((board, k)).is_err() {
                    return;
                }
            }
        });
        Worker { ask, answers }
    }

    /// Asks for a position (returns at once).
    pub fn ask(&self, board: &Board) {
        let _ = self.ask.send(board.clone());
    }

    /// The answers that have come in, without waiting.
    pub fn answers(&self) -> Vec<(Board, Known)> {
        self.answers.try_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;
    use crate::Deal;

    /// A pile by name (tests only: the name is known good).
    fn pile(name: &str) -> Pile {
        name.parse().expect("a pile name")
    }

    fn solver() -> Solver {
        coach_solver(200_000, None).unwrap()
    }

    #[test]
    fn following_the_plan_needs_no_new_search() {
        let deal = (1..50)
            .map(|s| Deal::from_seed(Variant::BeleagueredCastle.rules(), s))
            .find(|d| solver().solve(d).unwrap().verdict == Verdict::Solvable)
            .unwrap();
        let mut coach = Coach::new(Some(solver()));
        let mut board = Board::new(&deal);
        coach.think(&board);
        assert_eq!(coach.mark(&board), Mark::Yes);
        let plan = coach.known(&board).unwrap().plan.clone();
        for (i, s) in plan.iter().enumerate() {
            let before = board.clone();
            board.play(s).unwrap();
            coach.follow(&before, std::slice::from_ref(s), &board);
            assert!(
                !coach.needs(&board) || board.cards_out() == 0,
                "move {i} of {}: {s}",
                plan.len()
            );
        }
        assert_eq!(coach.mark(&board), Mark::Won);
    }

    #[test]
    fn a_plan_names_the_boards_own_cells() {
        // Castile deal 2 is won at once by the solver; after AS goes home from r2, put the
        // cell card 2H in r2, so that r1 is the empty cell.
        let deal = Deal::from_seed(Variant::Castile.rules(), 2);
        let mut board = Board::new(&deal);
        let as_ = "AS".parse::<crate::Card>().unwrap();
        assert_eq!(board.reserve[1], Some(as_));
        board
            .play(&crate::play::game::step(as_, pile("r2"), pile("f")))
            .unwrap();
        board.reserve.swap(0, 1);
        let k = solve(&solver(), &board);
        assert_eq!(k.verdict, Verdict::Solvable);
        assert!(wins(&board, &k.plan));
        assert!(k.plan.iter().any(|s| s.from == "r2" || s.to == "r1"));
    }

    #[test]
    fn shorten_cuts_round_trips_only() {
        // Spades J, Q, K alone in three piles of eight: a lone card may go to an empty pile
        // and come back.
        let c = |s: &str| s.parse::<crate::Card>().unwrap();
        let mut tableau = vec![vec![c("JS")], vec![c("QS")], vec![c("KS")]];
        tableau.resize(8, vec![]);
        let deal = Deal {
            tableau,
            foundations: [13, 13, 13, 10, 0, 0, 0, 0],
            ..Deal::empty(Variant::BeleagueredCastle.rules())
        };
        deal.validate().unwrap();
        let board = Board::new(&deal);
        let there = crate::play::game::step(c("JS"), pile("t1"), pile("t4"));
        let back = crate::play::game::step(c("JS"), pile("t4"), pile("t1"));
        let home = crate::play::game::step(c("JS"), pile("t1"), pile("f"));
        assert_eq!(shorten(&board, vec![there, back]), vec![]);
        assert_eq!(shorten(&board, vec![there, back, home]), vec![home]);
        assert_eq!(shorten(&board, vec![there, back, there]), vec![there]);
        assert_eq!(shorten(&board, vec![home]), vec![home]);
    }

    #[test]
    fn the_worker_answers() {
        let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 1);
        let board = Board::new(&deal);
        let w = Worker::spawn(solver());
        w.ask(&board);
        let t0 = std::time::Instant::now();
        loop {
            let a = w.answers();
            if let Some((b, k)) = a.into_iter().last() {
                assert_eq!(b, board);
                assert_eq!(k, solve(&solver(), &board));
                break;
            }
            assert!(t0.elapsed().as_secs() < 60, "no answer");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }

    #[test]
    fn off_means_off() {
        let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 1);
        let board = Board::new(&deal);
        let mut c = Coach::new(coach_solver(0, None));
        c.think(&board);
        assert_eq!(c.mark(&board), Mark::Off);
        assert!(!c.needs(&board));
    }
}
