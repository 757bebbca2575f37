//! `castle analyze`: every legal move from a position with the verdict after it — the hint a
//! player wants when stuck — and the position's own difficulty, and whether it is critical
//! (only one or two of its moves keep the win: [`crate::critical`]); and the `--after` list
//! of moves that leads from the deal to the position.

use crate::check::StepError;
use crate::check::{Board, Step};
use crate::critical::Choices;
use crate::deal::Deal;
use crate::difficulty::{Grade, Tier};
use crate::solver::Verdict;
use crate::solver::{Outcome, SolveError, Solver};
use crate::text::Cut;
use crate::{InputError, InputKind};

/// A position's verdict and each legal move's verdict.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The position as a deal.
    pub position: Deal,
    /// The solve of the position itself (nodes to decide, a solution).
    pub whole: Outcome,
    /// Each legal move (from the rule book's checker, not the search) and the solve of the
    /// position after it.
    pub moves: Vec<(Step, Outcome)>,
    /// The moves' verdicts as choices (moves to the same position up to pile order counted
    /// once): whether the position is critical ([`Choices::critical`]).
    pub choices: Choices,
    /// For a winnable position of a variant's own rules: its difficulty tier, and the simple
    /// player's grade it comes from ([`crate::difficulty`]; the cuts of the variant's table).
    pub difficulty: Option<(Tier, Grade)>,
}

/// Analyses `board` with `solver`. Its node and time budgets bound the whole analysis: each
/// solve (the position's, then each move's) gets an equal share of what the ones before it
/// left, so a budget that an easy solve does not use goes to the solves after it.
///
/// # Errors
/// A solve's internal error (see [`SolveError`]).
pub fn analyze(board: &Board, solver: &Solver) -> Result<Analysis, SolveError> {
    let t0 = std::time::Instant::now();
    let steps = board.legal_steps();
    let solves = 1 + steps.len() as u64;
    let mut nodes = 0u64;
    let mut k = 0u64;
    let mut solve = |deal: &Deal| -> Result<Outcome, SolveError> {
        let left = solves - k;
        k += 1;
        let mut share = solver.clone();
        share.limits.max_nodes = solver
            .limits
            .max_nodes
            .map(|n| (n.saturating_sub(nodes) / left).max(1));
        share.limits.max_seconds = solver
            .limits
            .max_seconds
            .map(|s| (s - t0.elapsed().as_secs_f64()).max(0.0) / left as f64);
        let out = if share.limits.max_seconds == Some(0.0) {
            Outcome::unknown(crate::solver::Limit::Seconds)
        } else {
            share.solve(deal)?
        };
        nodes += out.nodes;
        Ok(out)
    };
    let position = board.to_deal();
    let whole = solve(&position)?;
    let moves: Vec<(Step, Outcome)> = steps
        .into_iter()
        .map(|step| {
            let mut next = board.clone();
            next.play(&step).expect("legal_steps yields legal moves");
            let out = solve(&next.to_deal())?;
            Ok((step, out))
        })
        .collect::<Result<_, SolveError>>()?;
    let verdicts: Vec<(Step, Verdict)> = moves.iter().map(|(s, o)| (*s, o.verdict)).collect();
    let difficulty = match (whole.verdict, crate::winnable::cuts(&position.rules)) {
        (Verdict::Solvable, Some(cuts)) => {
            let g = crate::difficulty::grade(&position);
            Some((cuts.tier(g.score()), g))
        }
        _ => None,
    };
    Ok(Analysis {
        position,
        whole,
        choices: Choices::of_verdicts(board, &verdicts),
        moves,
        difficulty,
    })
}

/// Plays `after` on `board`: moves as `FROM TO` (or `FROM TO COUNT`) separated by commas,
/// like `t3 f, t1 t5` (the notation of `castle analyze --after`).
///
/// # Errors
/// A move that does not parse or is illegal ([`InputKind::Move`]), named by its number (the
/// command line adds its flag, `--after`).
pub fn play_after(board: &mut Board, after: &str) -> Result<(), InputError> {
    for (i, pair) in after
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .enumerate()
    {
        let words: Vec<&str> = pair.split_whitespace().collect();
        // Pile names as `Pile` reads them (a bare number names a tableau pile: `3 f` is
        // `t3 f`, as `play` reads it).
        let (from, to, count) = match words[..] {
            [from, to] => (from, to, Some(1)),
            [from, to, n] => (from, to, n.parse::<usize>().ok().filter(|&n| n >= 1)),
            _ => (pair, pair, None),
        };
        let Some(count) = count else {
            return Err(InputError::new(
                InputKind::Move,
                format!(
                    "move {} `{}` is not `FROM TO` or `FROM TO COUNT` (like `t3 f`)",
                    i + 1,
                    Cut(pair)
                ),
            ));
        };
        let step = board.step_named(from, to, count).map_err(|why| {
            let kind = match why {
                StepError::NoPile { .. } => InputKind::Pile,
                StepError::Card(_) => InputKind::Card,
                _ => InputKind::Move,
            };
            let why = crate::text::cut_words(&why.to_string(), 60);
            InputError::new(kind, format!("move {} `{}`: {why}", i + 1, Cut(pair)))
        })?;
        board.play(&step).map_err(|why| {
            let msg = format!("move {} ({step}) is illegal: {why}", i + 1);
            InputError::new(InputKind::Move, crate::text::cut_words(&msg, 60))
        })?;
    }
    Ok(())
}
