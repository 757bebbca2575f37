//! A CNF formula under construction: variables, clauses, and the few gadgets the courtyard
//! model is written with (AND and OR of literals, at most one, exactly `k`).
//!
//! Variable 1 is fixed true by the first clause, so [`TRUE`] and [`FALSE`] are literals like
//! any other; clauses made of them are simplified as they are added (a clause with a true
//! literal is dropped, false literals are left out), so a model's constant parts cost
//! nothing. Clauses are numbered from 1 in the order they are added: an LRAT proof names
//! them so.

/// The literal that is always true (variable 1).
pub const TRUE: i32 = 1;
/// The literal that is always false.
pub const FALSE: i32 = -1;

/// A formula: its variables and its clauses, each ended by a 0 in one flat list.
#[derive(Clone, Debug)]
pub struct Cnf {
    vars: i32,
    flat: Vec<i32>,
    clauses: u64,
}

impl Default for Cnf {
    fn default() -> Self {
        Cnf::new()
    }
}

impl Cnf {
    /// A formula holding only the clause that makes [`TRUE`] true.
    pub fn new() -> Cnf {
        Cnf {
            vars: 1,
            flat: vec![TRUE, 0],
            clauses: 1,
        }
    }

    /// A new variable.
    pub fn var(&mut self) -> i32 {
        self.vars += 1;
        self.vars
    }

    /// Variables so far.
    pub fn vars(&self) -> i32 {
        self.vars
    }

    /// Clauses so far.
    pub fn clauses(&self) -> u64 {
        self.clauses
    }

    /// The clauses, each ended by a 0.
    pub fn flat(&self) -> &[i32] {
        &self.flat
    }

    /// The clauses one by one (clause `i + 1` of an LRAT proof is item `i`).
    pub fn to_clauses(&self) -> Vec<Vec<i32>> {
        self.flat
            .split(|&l| l == 0)
            .take(self.clauses as usize)
            .map(<[i32]>::to_vec)
            .collect()
    }

    /// Writes the formula in DIMACS form.
    ///
    /// # Errors
    /// Writing `w`.
    pub fn write_dimacs(&self, w: &mut impl std::io::Write) -> std::io::Result<()> {
        writeln!(w, "p cnf {} {}", self.vars, self.clauses)?;
        let mut line = String::new();
        for &l in &self.flat {
            line.clear();
            if l == 0 {
                line.push_str("0\n");
            } else {
                line.push_str(&l.to_string());
                line.push(' ');
            }
            w.write_all(line.as_bytes())?;
        }
        Ok(())
    }

    /// Adds the clause `c`: dropped if a literal is true or two are complementary; false and
    /// repeated literals left out.
    pub fn add(&mut self, c: &[i32]) {
        if c.contains(&TRUE) || c.iter().any(|&l| c.contains(&-l)) {
            return;
        }
        let start = self.flat.len();
        for &l in c {
            if l != FALSE && !self.flat[start..].contains(&l) {
                self.flat.push(l);
            }
        }
        self.flat.push(0);
        self.clauses += 1;
    }

    /// A literal equal to the AND of `lits` (a constant or one of them when that is all it
    /// can be).
    pub fn and(&mut self, lits: &[i32]) -> i32 {
        if lits.contains(&FALSE) {
            return FALSE;
        }
        let lits: Vec<i32> = lits.iter().copied().filter(|&l| l != TRUE).collect();
        if lits.iter().any(|&l| lits.contains(&-l)) {
            return FALSE;
        }
        match lits.len() {
            0 => TRUE,
            1 => lits[0],
            _ => {
                let v = self.var();
                for &l in &lits {
                    self.add(&[-v, l]);
                }
                let mut c: Vec<i32> = lits.iter().map(|l| -l).collect();
                c.push(v);
                self.add(&c);
                v
            }
        }
    }

    /// A literal equal to the OR of `lits`.
    pub fn or(&mut self, lits: &[i32]) -> i32 {
        let neg: Vec<i32> = lits.iter().map(|l| -l).collect();
        -self.and(&neg)
    }

    /// At most one of `lits` is true (pairwise for a few, else a ladder of auxiliary
    /// variables: 3 clauses a literal).
    pub fn at_most_one(&mut self, lits: &[i32]) {
        let lits: Vec<i32> = lits.iter().copied().filter(|&l| l != FALSE).collect();
        if lits.len() <= 4 {
            for a in 0..lits.len() {
                for b in a + 1..lits.len() {
                    self.add(&[-lits[a], -lits[b]]);
                }
            }
            return;
        }
        let mut prev = lits[0];
        for &x in &lits[1..] {
            let s = self.var();
            self.add(&[-prev, s]);
            self.add(&[-x, s]);
            self.add(&[-prev, -x]);
            prev = s;
        }
    }

    /// Exactly `k` of `lits` are true: a sequential counter whose outputs are defined both
    /// ways (`s[i][j]` is true exactly when at least `j + 1` of the first `i + 1` literals
    /// are), so that a proof can count with them, not only bound.
    pub fn exactly(&mut self, lits: &[i32], k: usize) {
        let lits: Vec<i32> = lits.iter().copied().filter(|&l| l != FALSE).collect();
        if lits.len() < k {
            self.add(&[]);
            return;
        }
        let w = k + 1;
        let mut prev: Vec<i32> = vec![FALSE; w];
        for &x in &lits {
            let mut cur = vec![FALSE; w];
            for j in 0..w {
                let below = if j == 0 { TRUE } else { prev[j - 1] };
                // cur[j] <-> prev[j] | (x & below)
                let v = self.var();
                self.add(&[-prev[j], v]);
                self.add(&[-x, -below, v]);
                self.add(&[-v, prev[j], x]);
                self.add(&[-v, prev[j], below]);
                cur[j] = v;
            }
            prev = cur;
        }
        if k > 0 {
            self.add(&[prev[k - 1]]);
        }
        self.add(&[-prev[k]]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every assignment of the variables up to `n` satisfying the formula (brute force).
    fn models(c: &Cnf, n: i32) -> Vec<Vec<bool>> {
        let extra = c.vars() - n;
        let mut out = Vec::new();
        for bits in 0u64..1 << (c.vars() - 1) {
            let val = |l: i32| {
                let v = l.unsigned_abs() as u64;
                let b = v == 1 || bits >> (v - 2) & 1 == 1;
                if l > 0 {
                    b
                } else {
                    !b
                }
            };
            if c.to_clauses().iter().all(|cl| cl.iter().any(|&l| val(l))) {
                let m: Vec<bool> = (2..=n).map(val).collect();
                if !out.contains(&m) {
                    out.push(m);
                }
            }
        }
        let _ = extra;
        out
    }

    #[test]
    fn exactly_k_admits_exactly_the_assignments_with_k_true() {
        for (n, k) in [(4usize, 2usize), (5, 0), (3, 3), (3, 1)] {
            let mut c = Cnf::new();
            let lits: Vec<i32> = (0..n).map(|_| c.var()).collect();
            c.exactly(&lits, k);
            let got = models(&c, n as i32 + 1);
            let want = (0u32..1 << n)
                .filter(|b| b.count_ones() as usize == k)
                .count();
            assert_eq!(got.len(), want, "n {n} k {k}");
            assert!(got.iter().all(|m| m.iter().filter(|&&b| b).count() == k));
        }
    }

    #[test]
    fn gadgets_mean_what_they_say() {
        let mut c = Cnf::new();
        let (a, b, d) = (c.var(), c.var(), c.var());
        let x = c.and(&[a, -b]);
        let y = c.or(&[b, d]);
        c.at_most_one(&[a, b, d]);
        let n = c.vars();
        for m in models(&c, n) {
            let v = |l: i32| m[(l.abs() - 2) as usize] == (l > 0);
            assert_eq!(v(x), v(a) && !v(b));
            assert_eq!(v(y), v(b) || v(d));
            assert!([a, b, d].iter().filter(|&&l| v(l)).count() <= 1);
        }
        assert_eq!(c.and(&[a, FALSE]), FALSE);
        assert_eq!(c.or(&[a, TRUE]), TRUE);
        assert_eq!(c.and(&[a, -a]), FALSE);
    }
}
