//! Courtyard's losses by a SAT solver: the game relaxed to a formula over the waste's event
//! clock ([`model`]), which every winning line satisfies, handed to CaDiCaL ([`cadical`]);
//! its refutation, written as an LRAT proof, is checked by [`crate::certificate::lrat`],
//! which shares nothing with the solver or the encoder. Design and measurements:
//! docs/design.md, "Courtyard: losses by a SAT solver".

pub mod cadical;
pub mod cnf;
pub mod model;
pub mod replay;

use crate::certificate::lrat;
use crate::deal::Deal;
use crate::rules::{SequenceMoves, Variant};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Whether the model describes these rules: courtyard as the seed game plays it (one card
/// at a time, no foundation return).
pub fn applies(deal: &Deal) -> bool {
    let o = deal.rules.options;
    deal.rules.variant == Variant::Courtyard
        && !o.foundation_return
        && o.sequence_moves == SequenceMoves::Single
}

/// What the solver made of a position's formula.
#[derive(Debug)]
pub enum Verdict {
    /// Refuted, with the checked proof (binary LRAT) when one was asked for: the position
    /// is lost.
    Lost {
        /// The proof, if kept.
        proof: Option<Vec<u8>>,
        /// What its check held.
        checked: Option<lrat::LratChecked>,
    },
    /// The formula has a model (the relaxation admits a line; the game may not).
    Model {
        /// Each event's changes, as [`model::Model::describe`] gives them.
        lines: Vec<String>,
        /// The model played on the real game: how far it goes, and the first step the
        /// rules refuse.
        replayed: replay::Replayed,
        /// The value of each variable (index 0 unused), to replay it again later:
        /// [`model::Model::new`] numbers the variables the same way every time.
        assignment: Vec<bool>,
    },
    /// Stopped by the deadline or the flag.
    Stopped,
}

/// Sizes and times of one run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Run {
    /// Variables of the formula.
    pub vars: i32,
    /// Clauses.
    pub clauses: u64,
    /// Seconds to build it.
    pub encode_seconds: f64,
    /// Seconds the solver took.
    pub solve_seconds: f64,
    /// Bytes of the proof.
    pub proof_bytes: u64,
    /// Seconds the check took.
    pub check_seconds: f64,
}

/// Why no verdict came out.
#[derive(Debug, thiserror::Error)]
pub enum SatError {
    /// The proof file could not be written or read back.
    #[error("the SAT proof file: {0}")]
    Io(#[from] std::io::Error),
    /// The solver said unsatisfiable but its proof does not check (a bug in the solver or
    /// the checker; never a verdict).
    #[error("internal error: the SAT solver's proof does not check: {0}")]
    Rejected(#[from] lrat::LratError),
}

/// Builds the formula of `deal` and solves it, until `deadline` or `stop`. With `proof_dir`,
/// CaDiCaL writes its proof there (a file removed at the end), and a refutation is returned
/// only once [`lrat::check`] accepts the proof against the formula; `keep` keeps the proof's
/// bytes in the verdict.
///
/// # Errors
/// See [`SatError`].
pub fn decide(
    deal: &Deal,
    deadline: Option<Instant>,
    stop: Option<&AtomicBool>,
    proof_dir: Option<&Path>,
    keep: bool,
) -> Result<(Verdict, Run), SatError> {
    let t0 = Instant::now();
    let m = model::Model::new(deal);
    let mut run = Run {
        vars: m.cnf.vars(),
        clauses: m.cnf.clauses(),
        encode_seconds: t0.elapsed().as_secs_f64(),
        ..Run::default()
    };
    let file = match proof_dir {
        Some(dir) => Some(
            tempfile::Builder::new()
                .prefix("castle-lrat-")
                .tempfile_in(dir)?,
        ),
        None => None,
    };
    let mut solver = cadical::Cadical::new(file.as_ref().map(|f| f.path()))?;
    match proof_dir {
        Some(dir) => solver.add_via_file(&m.cnf, dir)?,
        None => solver.add_flat(m.cnf.flat()),
    }
    let t1 = Instant::now();
    let answer = solver.solve(&cadical::Stop {
        deadline,
        flag: stop,
    });
    run.solve_seconds = t1.elapsed().as_secs_f64();
    match answer {
        cadical::Answer::Stopped => Ok((Verdict::Stopped, run)),
        cadical::Answer::Sat => {
            let value = |l| solver.value(l);
            let lines = m.describe(&value);
            let replayed = replay::replay(&m, deal, &value);
            let assignment = (0..=m.cnf.vars()).map(|v| v > 0 && value(v)).collect();
            Ok((
                Verdict::Model {
                    lines,
                    replayed,
                    assignment,
                },
                run,
            ))
        }
        cadical::Answer::Unsat => {
            solver.close_proof();
            let Some(file) = file else {
                return Ok((
                    Verdict::Lost {
                        proof: None,
                        checked: None,
                    },
                    run,
                ));
            };
            let bytes = std::fs::read(file.path())?;
            run.proof_bytes = bytes.len() as u64;
            let t2 = Instant::now();
            let checked = lrat::check(&m.cnf.to_clauses(), &bytes)?;
            run.check_seconds = t2.elapsed().as_secs_f64();
            Ok((
                Verdict::Lost {
                    proof: keep.then_some(bytes),
                    checked: Some(checked),
                },
                run,
            ))
        }
    }
}

/// The states a line passes through at each event (the position right after the `s`-th
/// card leaves the waste, or the stock straight into an emptied pile), each card by its
/// place in `m`'s terms; `None` if a step is illegal.
pub fn states_of(
    m: &model::Model,
    deal: &Deal,
    steps: &[crate::check::Step],
) -> Option<Vec<Vec<model::Place>>> {
    let mut mirror = replay::Mirror::new(deal);
    let mut states = vec![mirror.places(m.cards())];
    let mut played = Vec::new();
    for &step in steps {
        mirror.play(step, &mut played).ok()?;
        let event = step.from == crate::pile::Pile::Waste
            || (step.from == crate::pile::Pile::Stock && step.to != crate::pile::Pile::Waste);
        if event {
            states.push(mirror.places(m.cards()));
        }
    }
    Some(states)
}

/// Whether `deal`'s formula has a model once every state is pinned to the line `steps`
/// passes through: for a winning line it must (every clause holds on a real line), so
/// `false` names a clause that is wrong. Stops at `deadline` (`None`).
pub fn line_satisfies(
    deal: &Deal,
    steps: &[crate::check::Step],
    deadline: Option<Instant>,
) -> Option<bool> {
    let m = model::Model::new(deal);
    let states = states_of(&m, deal, steps)?;
    let mut flat = m.cnf.flat().to_vec();
    for (s, places) in states.iter().enumerate().take(m.events() + 1) {
        for (i, &place) in places.iter().enumerate() {
            for l in m.literals(s, i, place) {
                if l != cnf::TRUE {
                    flat.extend([l, 0]);
                }
            }
        }
    }
    let mut solver = cadical::Cadical::new(None).ok()?;
    solver.add_flat(&flat);
    match solver.solve(&cadical::Stop {
        deadline,
        flag: None,
    }) {
        cadical::Answer::Sat => Some(true),
        cadical::Answer::Unsat => Some(false),
        cadical::Answer::Stopped => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pigeons into fewer holes, as CNF.
    #[allow(clippy::needless_range_loop)]
    fn pigeons(p: usize, h: usize) -> cnf::Cnf {
        let mut c = cnf::Cnf::new();
        let x: Vec<Vec<i32>> = (0..p).map(|_| (0..h).map(|_| c.var()).collect()).collect();
        for row in &x {
            c.add(row);
        }
        for j in 0..h {
            for a in 0..p {
                for b in a + 1..p {
                    c.add(&[-x[a][j], -x[b][j]]);
                }
            }
        }
        c
    }

    #[test]
    fn cadicals_proofs_check() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("proof");
        let c = pigeons(4, 3);
        let mut s = cadical::Cadical::new(Some(&path)).unwrap();
        s.add_flat(c.flat());
        let a = s.solve(&cadical::Stop {
            deadline: None,
            flag: None,
        });
        assert_eq!(a, cadical::Answer::Unsat);
        s.close_proof();
        let bytes = std::fs::read(&path).unwrap();
        let got = lrat::check(&c.to_clauses(), &bytes).unwrap();
        assert!(got.added > 0);
    }
}
