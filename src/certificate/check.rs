//! The check of a certificate: the start is in the set, no member is won, and every move
//! from every member leads back into the set (after the closure rules; see the module docs
//! of [`super`]). The members are looked up in a hash table of the checker's own.

use super::exact::Exact;
use super::quotient::Quotient;
use super::{Certificate, Kind, Malformed, Members, Start};
use std::fmt::Display;

/// What a certificate that checks out holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checked {
    /// Members (positions of the invariant).
    pub positions: u64,
    /// Moves followed from them (each looked up).
    pub moves: u64,
}

/// Why a certificate proves nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    /// The rules or the deal are outside what the kind describes.
    #[error("the certificate's rules or deal do not fit its kind: {0}")]
    Setup(String),
    /// The members are not sorted and distinct.
    #[error("the members are not sorted and distinct (member {0})")]
    Unsorted(u64),
    /// The deal's start (after its forced and safe moves) is not a member.
    #[error(
        "the deal's start (after its forced and safe moves) is not in the certificate:\n{board}"
    )]
    StartMissing {
        /// The position looked up.
        board: String,
    },
    /// A member that is not a position of this deal, or not in canonical form.
    #[error("member {index} is not a position of this deal: {why}{}", board.as_deref().map(|b| format!("\n{b}")).unwrap_or_default())]
    Malformed {
        /// 1-based.
        index: u64,
        /// What is wrong.
        why: String,
        /// The member, when it decodes.
        board: Option<String>,
    },
    /// A won member.
    #[error("member {index} is won")]
    Won {
        /// 1-based.
        index: u64,
    },
    /// A move from a member leads out of the set.
    #[error("member {index} has a move that leaves the set: {step}\n{board}after {step} (and its forced and safe moves), not in the certificate:\n{next}")]
    Open {
        /// 1-based.
        index: u64,
        /// The member.
        board: String,
        /// The move.
        step: String,
        /// Where it leads.
        next: String,
    },
}

/// What a kind must provide to be checked: its positions, canonical bytes and moves.
trait Rules: Sync {
    type Pos;
    fn decode(&self, bytes: &[u8]) -> Result<Self::Pos, Malformed>;
    fn encode(&self, p: &Self::Pos, out: &mut Vec<u8>);
    fn well_formed(&self, p: &Self::Pos) -> Result<(), Malformed>;
    fn won(&self, p: &Self::Pos) -> bool;
    fn settled(&self, p: &Self::Pos) -> bool;
    fn show(&self, p: &Self::Pos) -> String;
    /// The start's settled positions.
    fn starts(
        &self,
        start: &Start,
        f: &mut dyn FnMut(&Self::Pos) -> Result<(), Fail>,
    ) -> Result<(), Fail>;
    /// Every move and the settled positions it leads to.
    fn each(&self, p: &Self::Pos, f: Visit<'_, Self::Pos>) -> Result<(), Fail>;
}

/// What [`Rules::each`] calls with each move (as text) and each position it leads to.
type Visit<'a, P> = &'a mut dyn FnMut(&dyn Display, &P) -> Result<(), Fail>;

/// A check that stopped inside a member's moves.
enum Fail {
    /// A broken invariant of the kind (never on a well-formed member).
    Broken(String),
    /// A successor not in the set: the move and the successor as text.
    Open(String, String),
}

impl From<String> for Fail {
    fn from(s: String) -> Fail {
        Fail::Broken(s)
    }
}

impl From<Malformed> for Fail {
    fn from(m: Malformed) -> Fail {
        Fail::Broken(m.0)
    }
}

impl Rules for Exact {
    type Pos = super::exact::Board;
    fn decode(&self, bytes: &[u8]) -> Result<Self::Pos, Malformed> {
        Exact::decode(self, bytes)
    }
    fn encode(&self, p: &Self::Pos, out: &mut Vec<u8>) {
        Exact::encode(self, p, out)
    }
    fn well_formed(&self, p: &Self::Pos) -> Result<(), Malformed> {
        Exact::well_formed(self, p)
    }
    fn won(&self, p: &Self::Pos) -> bool {
        Exact::won(self, p)
    }
    fn settled(&self, p: &Self::Pos) -> bool {
        Exact::settled(self, p)
    }
    fn show(&self, p: &Self::Pos) -> String {
        Exact::show(self, p)
    }
    fn starts(
        &self,
        start: &Start,
        f: &mut dyn FnMut(&Self::Pos) -> Result<(), Fail>,
    ) -> Result<(), Fail> {
        let mut b = self.start_board(start)?;
        self.settle(&mut b);
        f(&b)
    }
    fn each(&self, p: &Self::Pos, f: Visit<'_, Self::Pos>) -> Result<(), Fail> {
        self.successors(p, |m, q| f(m, q))
    }
}

impl Rules for Quotient {
    type Pos = super::quotient::APos;
    fn decode(&self, bytes: &[u8]) -> Result<Self::Pos, Malformed> {
        Quotient::decode(self, bytes)
    }
    fn encode(&self, p: &Self::Pos, out: &mut Vec<u8>) {
        Quotient::encode(self, p, out)
    }
    fn well_formed(&self, p: &Self::Pos) -> Result<(), Malformed> {
        Quotient::well_formed(self, p)
    }
    fn won(&self, p: &Self::Pos) -> bool {
        Quotient::won(self, p)
    }
    fn settled(&self, p: &Self::Pos) -> bool {
        Quotient::settled(self, p)
    }
    fn show(&self, p: &Self::Pos) -> String {
        Quotient::show(self, p)
    }
    fn starts(
        &self,
        start: &Start,
        f: &mut dyn FnMut(&Self::Pos) -> Result<(), Fail>,
    ) -> Result<(), Fail> {
        let a = self.start(start)?;
        self.settle(a, &mut |b| f(&b))
    }
    fn each(&self, p: &Self::Pos, f: Visit<'_, Self::Pos>) -> Result<(), Fail> {
        self.successors(p, &mut |m, q| f(m, &q))
    }
}

/// The checker's hash of a member's bytes: eight bytes at a time, multiplied and folded by
/// odd constants (the fractional parts of the square roots of 2, 3 and 5, as in SHA-512's
/// first words). Its own, not the search's.
#[inline]
fn hash(bytes: &[u8]) -> u64 {
    const M: u64 = 0xBB67_AE85_84CA_A73B;
    let mut h = 0x6A09_E667_F3BC_C908 ^ bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().expect("eight bytes"));
        h = (h ^ w).wrapping_mul(M);
        h ^= h >> 29;
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(M);
        h ^= h >> 29;
    }
    h = h.wrapping_mul(0x3C6E_F372_FE94_F82B);
    h ^ h >> 32
}

/// The members as a set: an open-addressing table of member numbers (plus one; 0 is empty)
/// at least twice as large as the set, probed linearly and confirmed on the whole bytes.
struct Set<'a> {
    members: &'a Members,
    slots: Vec<u32>,
    mask: usize,
}

impl<'a> Set<'a> {
    fn new(members: &'a Members) -> Set<'a> {
        let size = (members.len() * 2).next_power_of_two().max(16);
        let mut set = Set {
            members,
            slots: vec![0; size],
            mask: size - 1,
        };
        for i in 0..members.len() {
            let mut at = hash(members.get(i)) as usize & set.mask;
            while set.slots[at] != 0 {
                at = (at + 1) & set.mask;
            }
            set.slots[at] = i as u32 + 1;
        }
        set
    }

    #[inline]
    fn contains(&self, bytes: &[u8]) -> bool {
        let mut at = hash(bytes) as usize & self.mask;
        loop {
            match self.slots[at] {
                0 => return false,
                i if self.members.get(i as usize - 1) == bytes => return true,
                _ => at = (at + 1) & self.mask,
            }
        }
    }
}

/// Checks `cert` (see the module docs of [`super`]). With `threads > 1` the members are
/// checked on that many threads; the rejection reported is the first member's all the same.
///
/// # Errors
/// The first reason the certificate proves nothing: the start missing, a malformed or won
/// member (by number), or the first member with a move that leaves the set.
pub fn check(cert: &Certificate, threads: usize) -> Result<Checked, Rejection> {
    if cert.members.len() >= u32::MAX as usize {
        return Err(Rejection::Setup(
            "more members than the checker counts".into(),
        ));
    }
    if let Some(i) =
        (1..cert.members.len()).find(|&i| cert.members.get(i - 1) >= cert.members.get(i))
    {
        return Err(Rejection::Unsorted(i as u64 + 1));
    }
    match cert.kind {
        Kind::Exact => {
            let rules = Exact::new(cert.game, &cert.start, cert.autoplay)
                .map_err(|m| Rejection::Setup(m.0))?;
            run(&rules, cert, threads)
        }
        Kind::Quotient { k, dealt, kept } => {
            let rules = Quotient::new(cert.game, &cert.start, k, dealt, kept, cert.autoplay)
                .map_err(|m| Rejection::Setup(m.0))?;
            run(&rules, cert, threads)
        }
    }
}

fn run<R: Rules>(rules: &R, cert: &Certificate, threads: usize) -> Result<Checked, Rejection>
where
    R::Pos: Send,
{
    let set = Set::new(&cert.members);
    let mut buf = Vec::new();
    rules
        .starts(&cert.start, &mut |p| {
            rules.encode(p, &mut buf);
            if set.contains(&buf) {
                Ok(())
            } else {
                Err(Fail::Open(String::new(), rules.show(p)))
            }
        })
        .map_err(|f| match f {
            Fail::Broken(why) => Rejection::Setup(why),
            Fail::Open(_, board) => Rejection::StartMissing { board },
        })?;
    let n = cert.members.len();
    let moves = if threads <= 1 || n < 4096 {
        check_range(rules, &set, 0..n)?
    } else {
        use rayon::prelude::*;
        const CHUNK: usize = 2048;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Rejection::Setup(e.to_string()))?;
        let results: Vec<Result<u64, Rejection>> = pool.install(|| {
            (0..n.div_ceil(CHUNK))
                .into_par_iter()
                .map(|c| check_range(rules, &set, c * CHUNK..((c + 1) * CHUNK).min(n)))
                .collect()
        });
        let mut moves = 0;
        for r in results {
            moves += r?;
        }
        moves
    };
    Ok(Checked {
        positions: n as u64,
        moves,
    })
}

/// Checks members `range`: the moves followed, or the first rejection.
fn check_range<R: Rules>(
    rules: &R,
    set: &Set<'_>,
    range: std::ops::Range<usize>,
) -> Result<u64, Rejection> {
    let mut own = Vec::new();
    let mut buf = Vec::new();
    let mut moves = 0u64;
    for i in range {
        let index = i as u64 + 1;
        let bytes = set.members.get(i);
        let malformed =
            |why: String, board: Option<String>| Rejection::Malformed { index, why, board };
        let p = rules.decode(bytes).map_err(|why| malformed(why.0, None))?;
        rules.encode(&p, &mut own);
        if own != bytes {
            return Err(malformed(
                "its bytes are not in canonical form".into(),
                Some(rules.show(&p)),
            ));
        }
        rules
            .well_formed(&p)
            .map_err(|why| malformed(why.0, Some(rules.show(&p))))?;
        if rules.won(&p) {
            return Err(Rejection::Won { index });
        }
        if !rules.settled(&p) {
            return Err(malformed(
                "a forced or safe move is left (members are settled positions)".into(),
                Some(rules.show(&p)),
            ));
        }
        rules
            .each(&p, &mut |step, q| {
                moves += 1;
                rules.encode(q, &mut buf);
                if set.contains(&buf) {
                    Ok(())
                } else {
                    Err(Fail::Open(step.to_string(), rules.show(q)))
                }
            })
            .map_err(|f| match f {
                Fail::Broken(why) => malformed(why, Some(rules.show(&p))),
                Fail::Open(step, next) => Rejection::Open {
                    index,
                    board: rules.show(&p),
                    step,
                    next,
                },
            })?;
    }
    Ok(moves)
}
