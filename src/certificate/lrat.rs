//! An LRAT proof checker: that a CNF formula is unsatisfiable, from a proof a SAT solver
//! wrote while it refuted the formula (CaDiCaL's binary LRAT, `docs/formats.md`,
//! "Certificates").
//!
//! The checker trusts neither the solver nor the encoder: it takes the clauses (numbered 1,
//! 2, ... in order) and the proof, and accepts only if every clause the proof adds follows
//! from clauses it holds by *reverse unit propagation along the hints*: with every literal of
//! the new clause set false, each hint in turn names a clause that is then unit (its one open
//! literal is set true) or false (the check is done). A clause so derived is implied by the
//! formula, so once the empty clause is derived the formula has no model. Deletions only
//! forget clauses (a proof may not use them afterwards). Resolution asymmetric tautologies
//! (negative hints) are refused: CaDiCaL writes none, and a plain RUP checker is a few dozen
//! lines anyone can read.
//!
//! # The binary format
//! A sequence of steps. `a` (byte 0x61), the new clause's id, its literals, a 0, its hints,
//! a 0: an addition. `d` (0x64), ids, a 0: deletions. Every number is written as
//! `2 * |x| + (x < 0)` in little-endian groups of 7 bits, the high bit set on every group but
//! the last; ids are positive, literals are DIMACS literals.

use std::fmt;

/// Why a proof proves nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LratError {
    /// The bytes are not a proof (cut short, a bad step letter, a number too large).
    #[error("the proof is malformed at byte {at}: {why}")]
    Malformed {
        /// Offset in the proof.
        at: usize,
        /// What was wrong.
        why: &'static str,
    },
    /// A step names a clause the checker does not hold (never added, or deleted).
    #[error("step {step} names clause {id}, which is not held")]
    Unknown {
        /// The step (from 1).
        step: u64,
        /// The clause id.
        id: u64,
    },
    /// A step adds a clause under an id already used.
    #[error("step {step} adds clause {id}, an id already used")]
    Reused {
        /// The step.
        step: u64,
        /// The id.
        id: u64,
    },
    /// A hint's clause is neither unit nor false under the assignment so far.
    #[error("step {step} (clause {id}): hint {hint} is neither unit nor false")]
    NotUnit {
        /// The step.
        step: u64,
        /// The clause being added.
        id: u64,
        /// The hint.
        hint: u64,
    },
    /// The hints end without a false clause.
    #[error("step {step} (clause {id}): its hints end without a conflict")]
    NoConflict {
        /// The step.
        step: u64,
        /// The clause being added.
        id: u64,
    },
    /// A negative hint (a RAT step), which this checker does not follow.
    #[error("step {step} (clause {id}) has a RAT hint, which this checker does not accept")]
    Rat {
        /// The step.
        step: u64,
        /// The clause being added.
        id: u64,
    },
    /// The proof ends without deriving the empty clause.
    #[error("the proof never derives the empty clause")]
    NoEmptyClause,
}

/// What a checked proof held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LratChecked {
    /// Clauses of the formula.
    pub clauses: u64,
    /// Clauses the proof added (the empty one included).
    pub added: u64,
    /// Clauses it deleted.
    pub deleted: u64,
    /// Hints followed.
    pub hints: u64,
}

impl fmt::Display for LratChecked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} clauses, {} added by the proof ({} hints), {} deleted",
            self.clauses, self.added, self.hints, self.deleted
        )
    }
}

/// The clauses held, by id: literals in one arena, each clause a range of it.
struct Clauses {
    lits: Vec<i32>,
    /// `(start, len)` by id (index `id - 1`); `len == u32::MAX` marks a clause not held.
    spans: Vec<(u64, u32)>,
}

const GONE: u32 = u32::MAX;

impl Clauses {
    fn get(&self, id: u64) -> Option<&[i32]> {
        let &(start, len) = self.spans.get(usize::try_from(id.checked_sub(1)?).ok()?)?;
        (len != GONE).then(|| &self.lits[start as usize..start as usize + len as usize])
    }

    fn insert(&mut self, id: u64, clause: &[i32]) -> bool {
        let Some(i) = id.checked_sub(1).and_then(|i| usize::try_from(i).ok()) else {
            return false;
        };
        if i < self.spans.len() {
            if self.spans[i].1 != GONE {
                return false;
            }
        } else {
            self.spans.resize(i + 1, (0, GONE));
        }
        self.spans[i] = (self.lits.len() as u64, clause.len() as u32);
        self.lits.extend_from_slice(clause);
        true
    }

    fn remove(&mut self, id: u64) -> bool {
        match id
            .checked_sub(1)
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| self.spans.get_mut(i))
        {
            Some(s) if s.1 != GONE => {
                s.1 = GONE;
                true
            }
            _ => false,
        }
    }
}

/// Reads the numbers of a binary proof.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn number(&mut self) -> Result<(u64, bool), LratError> {
        let mut x: u64 = 0;
        let mut shift = 0;
        loop {
            let Some(&b) = self.bytes.get(self.at) else {
                return Err(LratError::Malformed {
                    at: self.at,
                    why: "cut short inside a number",
                });
            };
            self.at += 1;
            if shift > 63 || (shift == 63 && b & 0x7e != 0) {
                return Err(LratError::Malformed {
                    at: self.at - 1,
                    why: "a number too large",
                });
            }
            x |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok((x >> 1, x & 1 == 1));
            }
            shift += 7;
        }
    }

    /// An id: positive (0 ends a list: `None`).
    fn id(&mut self) -> Result<Option<(u64, bool)>, LratError> {
        let (u, neg) = self.number()?;
        if u == 0 {
            return Ok(None);
        }
        Ok(Some((u, neg)))
    }

    fn literal(&mut self) -> Result<Option<i32>, LratError> {
        let at = self.at;
        let (u, neg) = self.number()?;
        if u == 0 {
            return Ok(None);
        }
        let v = i32::try_from(u).map_err(|_| LratError::Malformed {
            at,
            why: "a variable too large",
        })?;
        Ok(Some(if neg { -v } else { v }))
    }
}

/// Checks that `proof` (binary LRAT) refutes the formula whose clauses are `cnf`: clause
/// `i + 1` is `cnf[i]`.
///
/// # Errors
/// The first step that does not check, or a proof that ends without the empty clause.
pub fn check(cnf: &[Vec<i32>], proof: &[u8]) -> Result<LratChecked, LratError> {
    let mut held = Clauses {
        lits: Vec::new(),
        spans: Vec::with_capacity(cnf.len()),
    };
    let mut vars = 0usize;
    for (i, c) in cnf.iter().enumerate() {
        held.insert(i as u64 + 1, c);
        vars = vars.max(
            c.iter()
                .map(|l| l.unsigned_abs() as usize)
                .max()
                .unwrap_or(0),
        );
    }
    let mut out = LratChecked {
        clauses: cnf.len() as u64,
        ..LratChecked::default()
    };
    // value[v]: 1 true, -1 false, 0 open; `trail` lists the variables set, to clear them.
    let mut value: Vec<i8> = vec![0; vars + 1];
    let mut trail: Vec<usize> = Vec::new();
    let mut r = Reader {
        bytes: proof,
        at: 0,
    };
    let mut step = 0u64;
    let mut clause: Vec<i32> = Vec::new();
    while r.at < proof.len() {
        step += 1;
        let letter = proof[r.at];
        r.at += 1;
        match letter {
            b'd' => {
                while let Some((id, _)) = r.id()? {
                    if !held.remove(id) {
                        return Err(LratError::Unknown { step, id });
                    }
                    out.deleted += 1;
                }
            }
            b'a' => {
                let Some((id, false)) = r.id()? else {
                    return Err(LratError::Malformed {
                        at: r.at,
                        why: "an addition without a positive id",
                    });
                };
                clause.clear();
                while let Some(l) = r.literal()? {
                    clause.push(l);
                }
                let need = clause
                    .iter()
                    .map(|l| l.unsigned_abs() as usize)
                    .max()
                    .unwrap_or(0);
                if need >= value.len() {
                    value.resize(need + 1, 0);
                }
                // Every literal of the new clause false (a tautology is true: no conflict is
                // needed, and its hints are skipped).
                let mut conflict = false;
                for &l in &clause {
                    let v = l.unsigned_abs() as usize;
                    let want: i8 = if l > 0 { -1 } else { 1 };
                    match value[v] {
                        0 => {
                            value[v] = want;
                            trail.push(v);
                        }
                        x if x != want => conflict = true,
                        _ => {}
                    }
                }
                let mut ok = conflict;
                let mut failed = None;
                while let Some((hint, negative)) = r.id()? {
                    if negative {
                        failed.get_or_insert(LratError::Rat { step, id });
                        continue;
                    }
                    if ok || failed.is_some() {
                        continue;
                    }
                    out.hints += 1;
                    let Some(c) = held.get(hint) else {
                        failed = Some(LratError::Unknown { step, id: hint });
                        continue;
                    };
                    let mut open = None;
                    let mut opens = 0;
                    let mut satisfied = false;
                    for &l in c {
                        let v = l.unsigned_abs() as usize;
                        let x = value.get(v).copied().unwrap_or(0);
                        let lit_value = if l > 0 { x } else { -x };
                        match lit_value {
                            1 => {
                                satisfied = true;
                                break;
                            }
                            0 => {
                                opens += 1;
                                open = Some(l);
                            }
                            _ => {}
                        }
                    }
                    match (satisfied, opens, open) {
                        (false, 0, _) => ok = true,
                        (false, 1, Some(l)) => {
                            let v = l.unsigned_abs() as usize;
                            if v >= value.len() {
                                value.resize(v + 1, 0);
                            }
                            value[v] = if l > 0 { 1 } else { -1 };
                            trail.push(v);
                        }
                        _ => failed = Some(LratError::NotUnit { step, id, hint }),
                    }
                }
                for v in trail.drain(..) {
                    value[v] = 0;
                }
                if let Some(e) = failed.filter(|_| !conflict) {
                    return Err(e);
                }
                if !ok {
                    return Err(LratError::NoConflict { step, id });
                }
                if !held.insert(id, &clause) {
                    return Err(LratError::Reused { step, id });
                }
                out.added += 1;
                if clause.is_empty() {
                    return Ok(out);
                }
            }
            _ => {
                return Err(LratError::Malformed {
                    at: r.at - 1,
                    why: "a step that is neither `a` nor `d`",
                })
            }
        }
    }
    Err(LratError::NoEmptyClause)
}

/// Writes LRAT steps in the binary format (for tests and for tools that build proofs).
#[derive(Clone, Debug, Default)]
pub struct Writer {
    /// The proof so far.
    pub bytes: Vec<u8>,
}

impl Writer {
    fn number(&mut self, u: u64, neg: bool) {
        let mut x = (u << 1) | u64::from(neg);
        while x & !0x7f != 0 {
            self.bytes.push((x & 0x7f) as u8 | 0x80);
            x >>= 7;
        }
        self.bytes.push(x as u8);
    }

    /// An addition: clause `id` with `lits`, derived along `hints`.
    pub fn add(&mut self, id: u64, lits: &[i32], hints: &[u64]) {
        self.bytes.push(b'a');
        self.number(id, false);
        for &l in lits {
            self.number(u64::from(l.unsigned_abs()), l < 0);
        }
        self.bytes.push(0);
        for &h in hints {
            self.number(h, false);
        }
        self.bytes.push(0);
    }

    /// Deletions of `ids`.
    pub fn delete(&mut self, ids: &[u64]) {
        self.bytes.push(b'd');
        for &i in ids {
            self.number(i, false);
        }
        self.bytes.push(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (x1 | x2), (!x1 | x2), (x1 | !x2), (!x1 | !x2): unsatisfiable.
    fn four() -> Vec<Vec<i32>> {
        vec![vec![1, 2], vec![-1, 2], vec![1, -2], vec![-1, -2]]
    }

    /// A proof by hand: x2 from clauses 1, 2 (x2 false makes 1 unit in x1, then 2 false);
    /// then the empty clause from 5, 3, 4.
    fn proof() -> Writer {
        let mut w = Writer::default();
        w.add(5, &[2], &[1, 2]);
        w.delete(&[1, 2]);
        w.add(6, &[], &[5, 3, 4]);
        w
    }

    #[test]
    fn a_hand_made_proof_checks() {
        let got = check(&four(), &proof().bytes).unwrap();
        assert_eq!(
            got,
            LratChecked {
                clauses: 4,
                added: 2,
                deleted: 2,
                hints: 5
            }
        );
    }

    #[test]
    fn broken_proofs_are_refused() {
        // A hint that is not unit: clause 3 (x1 | !x2) with x2 false is satisfied.
        let mut w = Writer::default();
        w.add(5, &[2], &[3, 2]);
        assert!(matches!(
            check(&four(), &w.bytes),
            Err(LratError::NotUnit { hint: 3, .. })
        ));
        // Hints that end without a conflict.
        let mut w = Writer::default();
        w.add(5, &[2], &[1]);
        assert!(matches!(
            check(&four(), &w.bytes),
            Err(LratError::NoConflict { .. })
        ));
        // A deleted clause used later.
        let mut w = Writer::default();
        w.delete(&[3]);
        w.add(5, &[2], &[1, 2]);
        w.add(6, &[], &[5, 3, 4]);
        assert!(matches!(
            check(&four(), &w.bytes),
            Err(LratError::Unknown { id: 3, .. })
        ));
        // An id used twice.
        let mut w = Writer::default();
        w.add(4, &[2], &[1, 2]);
        assert!(matches!(
            check(&four(), &w.bytes),
            Err(LratError::Reused { id: 4, .. })
        ));
        // No empty clause.
        let mut w = Writer::default();
        w.add(5, &[2], &[1, 2]);
        assert_eq!(check(&four(), &w.bytes), Err(LratError::NoEmptyClause));
        // The same proof for a satisfiable formula (clause 4 dropped) fails.
        let sat = &four()[..3];
        assert!(check(sat, &proof().bytes).is_err());
        // Cut short, and a bad letter.
        let bytes = proof().bytes;
        for cut in 1..bytes.len() {
            assert!(check(&four(), &bytes[..cut]).is_err(), "cut at {cut}");
        }
        assert!(matches!(
            check(&four(), b"x"),
            Err(LratError::Malformed { .. })
        ));
        // A RAT hint.
        let mut w = Writer::default();
        w.bytes.extend([b'a', 10, 4, 0, 3, 0]);
        assert!(matches!(
            check(&four(), &w.bytes),
            Err(LratError::Rat { .. })
        ));
    }

    #[test]
    fn numbers_round_trip() {
        for x in [1u64, 63, 64, 127, 128, 300, 1 << 40, (1 << 62) - 1] {
            let mut w = Writer::default();
            w.number(x, true);
            let mut r = Reader {
                bytes: &w.bytes,
                at: 0,
            };
            assert_eq!(r.number().unwrap(), (x, true));
            assert_eq!(r.at, w.bytes.len());
        }
    }
}
