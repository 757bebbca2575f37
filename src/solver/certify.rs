//! The certificate pass: once a deal is proved lost, a search of its own enumerates an
//! invariant that [`crate::certificate::check`] can verify (see `docs/design.md`, "Certified
//! losses").
//!
//! The schedule's searches mostly cannot hand over what they entered: the table replaces
//! entries, attempts restart, threads share work, and `no_repeat` leaves out moves whose
//! positions another line reaches. (The exception, a quotient run that proved the loss with
//! every move followed and no earlier run's proofs skipped, hands its positions over:
//! [`certify_from`].) So this pass starts afresh, with only reductions the checker
//! re-justifies itself: pile order (the checker sorts piles), safe autoplay (when on, the
//! checker applies its own rule) and the forced fills; `no_repeat` is off, so every stored
//! position has all its moves followed. Where the rules allow it, the suit-blind quotient runs
//! at windows 2, 3, 4 and 5 (with the dealt refinement) and the first `Lost` gives the members;
//! after a branch win at every window, window 2 goes on keeping one more card per run, the
//! first its last false win got wrong (the schedule's refinement), until a run is `Lost`;
//! where the quotient does not apply, a depth-first search over the exact positions does.
//! The certificate returned has been checked.

use super::quotient::{self, QuotientOptions, QuotientVerdict};
use super::{End, Limit, QuotientProof};
use crate::certificate::exact::{Board, Exact};
use crate::certificate::{self, Certificate, Checked, Kind, Label, Members, Rejection};
use crate::deal::{Deal, Numbering};
use crate::moves::{Move, MoveList, STOCK, WASTE};
use crate::state::{Position, Pruning};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// How the pass builds its certificate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The quotient where it applies (windows 2 to 5, widening while each fits in memory;
    /// then window 2 keeping the cards its false wins got wrong, one more a run, until it
    /// proves the loss), else the exact positions.
    Auto,
    /// The exact positions.
    Exact,
    /// The quotient at this window, with or without the dealt refinement.
    Quotient {
        /// The window.
        k: u8,
        /// The dealt refinement.
        dealt: bool,
    },
}

/// What the pass may do.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CertifyOptions {
    /// Bytes its tables, members and path may hold together.
    pub max_bytes: usize,
    /// Stop after this many seconds.
    pub max_seconds: Option<f64>,
    /// The safe-autoplay closure rule (see [`crate::certificate`]).
    pub autoplay: bool,
    /// Which kind of certificate.
    pub method: Method,
    /// Check the certificate before returning it (threads of the check).
    pub check_threads: usize,
    /// With [`Method::Auto`]: the abstraction of the quotient run that proved the loss in the
    /// solve ([`crate::solver::Outcome::lost_by`]), run first. A deal the solve's quotient
    /// proved only after refining (window 2 keeping cards its false wins got wrong) then
    /// costs one run instead of the windows 2 to 5 and every refinement again (sa 66201: a
    /// window-5 certificate built and checked in 28.5 s after a 1 s solve, against 0.8 s
    /// with the hint; performance log, "The certificate from the solve's abstraction"). The hint
    /// changes only which run comes first: a run that does not prove the loss (the solve's
    /// run had skipped what earlier runs proved) leaves the usual order to go on, and only
    /// a certificate the checker accepts comes out.
    pub hint: Option<QuotientProof>,
}

impl Default for CertifyOptions {
    fn default() -> Self {
        CertifyOptions {
            max_bytes: 4 << 30,
            max_seconds: None,
            autoplay: true,
            method: Method::Auto,
            check_threads: 1,
            hint: None,
        }
    }
}

/// Why no certificate came out.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CertifyError {
    /// A budget ran out (`memory` or `time`).
    #[error("the certificate pass ran out of {0} before it had every position")]
    Limit(&'static str),
    /// The pass met a won position: the deal is not lost (a bug in whatever said it was).
    #[error(
        "internal error: the certificate pass reached a won position, so the deal is not lost"
    )]
    Won,
    /// The quotient asked for does not apply to the rules.
    #[error("the suit-blind quotient does not apply to these rules ({0})")]
    NotApplicable(String),
    /// The quotient met a broken invariant (a bug; never a certificate).
    #[error("internal error in the quotient: {0}")]
    Broken(String),
    /// The quotient found a branch win at the window asked for.
    #[error("the quotient at k = {0} reaches a won abstract position (a wider window may prove the loss)")]
    BranchWin(u8),
    /// The independent checker rejected the certificate (a bug in the pass or the checker).
    #[error("internal error: the certificate does not check: {0}")]
    Rejected(Box<Rejection>),
}

/// A checked certificate and what it cost.
#[derive(Clone, Debug)]
pub struct Certified {
    /// The certificate.
    pub certificate: Certificate,
    /// Seconds to build it (the searches that made it).
    pub seconds: f64,
    /// Seconds the checker took on it (0 if it was not checked).
    pub check_seconds: f64,
    /// What the checker found.
    pub checked: Option<Checked>,
}

/// Builds a certificate that `deal` (numbered by `numbering`, if it has a number) is lost.
///
/// # Errors
/// See [`CertifyError`]; a deal that is not lost gives [`CertifyError::Won`] or (for a
/// quotient asked for by window) [`CertifyError::BranchWin`].
pub fn certify(
    deal: &Deal,
    numbering: Numbering,
    opts: &CertifyOptions,
) -> Result<Certified, CertifyError> {
    certify_from(deal, numbering, opts, None)
}

/// [`certify`], given the members the solve's proving run kept
/// ([`crate::solver::Outcome::lost_members`], of the abstraction `opts.hint`): with
/// [`Method::Auto`] they are the certificate, checked as any, and the pass searches nothing.
/// The solve's run and the pass's first run search the same positions with the same moves
/// followed (window, dealt refinement and kept cards from the hint, no earlier proofs, every
/// move), so their members are the same set and the pass's search would only repeat it; on
/// a lost first-pass deal that search was about a third of what certifying cost (performance
/// log, "A lost deal's certificate from the solve's own run"). Members the checker
/// rejects (a bug, whichever side) are dropped and the pass runs as without them, so that a
/// batch still gets a checked certificate; tests assert it never happens.
///
/// # Errors
/// As [`certify`].
pub fn certify_from(
    deal: &Deal,
    numbering: Numbering,
    opts: &CertifyOptions,
    members: Option<Members>,
) -> Result<Certified, CertifyError> {
    let t0 = Instant::now();
    if let (Method::Auto, Some(h), Some(members)) = (opts.method, opts.hint, members) {
        let kind = Kind::Quotient {
            k: h.k,
            dealt: h.dealt,
            kept: h.kept,
        };
        match finish(deal, numbering, opts, kind, members, t0) {
            Ok(c) => return Ok(c),
            Err(e) => {
                debug_assert!(false, "the solve's members do not check: {e}");
            }
        }
    }
    let game = certificate::game_of(&deal.rules);
    let start = certificate::start_of(deal);
    let left = |t0: Instant| {
        opts.max_seconds
            .map(|s| (s - t0.elapsed().as_secs_f64()).max(1e-3))
    };
    let windows: &[(u8, bool)] = match opts.method {
        Method::Auto => &[(2, true), (3, true), (4, true), (5, true)],
        Method::Quotient { k, dealt } => &[(k, dealt)][..],
        Method::Exact => &[],
    };
    let ask = match opts.method {
        Method::Quotient { k, dealt } => Some((k, dealt)),
        _ => None,
    };
    // One quotient run: its members when it proves the loss, the next kept cards (if any)
    // after a false win, or `None` when the quotient cannot go on (the exact search then
    // writes the certificate).
    let run = |k: u8, dealt: bool, kept: u64| -> Result<Option<Run>, CertifyError> {
        let encoder =
            match certificate::quotient::Quotient::new(game, &start, k, dealt, kept, opts.autoplay)
            {
                Ok(e) => e,
                Err(why) if ask.is_some() => return Err(CertifyError::NotApplicable(why.0)),
                Err(_) => return Ok(None),
            };
        let qopts = QuotientOptions {
            k,
            max_nodes: None,
            max_seconds: left(t0),
            max_bytes: opts.max_bytes,
            autoplay: opts.autoplay,
            no_repeat: false,
            dealt,
            kept,
        };
        let (r, members) = quotient::search_collect(deal, &qopts, &AtomicBool::new(false), encoder);
        match r.verdict {
            QuotientVerdict::LOST => {
                Ok(Some(Run::Lost(Kind::Quotient { k, dealt, kept }, members)))
            }
            QuotientVerdict::BRANCH_WIN if ask.is_some() => Err(CertifyError::BranchWin(k)),
            QuotientVerdict::BRANCH_WIN => {
                if quotient::concrete_line(deal, &r.line).is_some() {
                    return Err(CertifyError::Won);
                }
                Ok(Some(Run::FalseWin(quotient::next_kept(
                    deal, &r.line, kept,
                ))))
            }
            QuotientVerdict::End(End::Cut(Limit::Memory)) => Err(CertifyError::Limit("memory")),
            QuotientVerdict::End(End::Cut(_)) => Err(CertifyError::Limit("time")),
            QuotientVerdict::NotApplicable(why) if ask.is_some() => {
                Err(CertifyError::NotApplicable(why.to_string()))
            }
            QuotientVerdict::NotApplicable(_) => Ok(None),
            QuotientVerdict::Broken(why) => Err(CertifyError::Broken(why.to_string())),
        }
    };
    // The windows in turn; in `Auto`, after a false win at every one, the first window goes
    // on keeping one more card a false win got wrong per run (see "Refining by the cards a
    // branch got wrong" in the quotient's docs) until a run proves the loss; keeping every
    // card leaves nothing to branch, so it ends.
    let mut found = None;
    let mut refine: Option<(u8, bool, u64)> = None;
    if let (Method::Auto, Some(h)) = (opts.method, opts.hint) {
        // The solve's own abstraction first. A false win or a budget there proves nothing
        // about the others (a fresh run may be larger than the solve's last one), so they
        // go on as without the hint; a won position or a broken invariant is an error as
        // anywhere.
        match run(h.k, h.dealt, h.kept) {
            Ok(Some(Run::Lost(kind, members))) => found = Some((kind, members)),
            Ok(_) | Err(CertifyError::Limit(_)) => {}
            Err(e) => return Err(e),
        }
    }
    for &(k, dealt) in windows.iter().take_while(|_| found.is_none()) {
        let tried = run(k, dealt, 0);
        // A wider window that runs out of room after a narrower one's false win: refine the
        // narrower one instead (the route the solve's quotient phase takes; a window's
        // positions grow about fourfold a card, a kept card's twofold).
        if let (Err(CertifyError::Limit("memory")), Some(_)) = (&tried, refine) {
            break;
        }
        match tried? {
            Some(Run::Lost(kind, members)) => {
                found = Some((kind, members));
                break;
            }
            Some(Run::FalseWin(next)) => {
                refine = refine.or(next.map(|kept| (k, dealt, kept)));
            }
            None => {
                refine = None;
                break;
            }
        }
    }
    while let (None, Some((k, dealt, kept))) = (&found, refine) {
        refine = None;
        match run(k, dealt, kept)? {
            Some(Run::Lost(kind, members)) => found = Some((kind, members)),
            Some(Run::FalseWin(next)) => refine = next.map(|kept| (k, dealt, kept)),
            None => {}
        }
    }
    let (kind, members) = match found {
        Some(f) => f,
        None => (Kind::Exact, exact_members(deal, opts, t0)?),
    };
    finish(deal, numbering, opts, kind, members, t0)
}

/// The certificate of `kind` with `members` (sorted here), checked when `opts` asks, its
/// seconds counted from `t0`.
fn finish(
    deal: &Deal,
    numbering: Numbering,
    opts: &CertifyOptions,
    kind: Kind,
    mut members: Members,
    t0: Instant,
) -> Result<Certified, CertifyError> {
    let game = certificate::game_of(&deal.rules);
    let start = certificate::start_of(deal);
    let label = Label {
        variant: deal.rules.variant.name().to_string(),
        seed: deal.seed,
        numbering: numbering.name().to_string(),
    };
    members.sort();
    let certificate = Certificate {
        kind,
        game,
        autoplay: opts.autoplay,
        label,
        start,
        members,
    };
    let seconds = t0.elapsed().as_secs_f64();
    let mut out = Certified {
        certificate,
        seconds,
        check_seconds: 0.0,
        checked: None,
    };
    if opts.check_threads > 0 {
        let t1 = Instant::now();
        let checked = certificate::check(&out.certificate, opts.check_threads)
            .map_err(|e| CertifyError::Rejected(Box::new(e)))?;
        out.check_seconds = t1.elapsed().as_secs_f64();
        out.checked = Some(checked);
    }
    Ok(out)
}

/// The exact positions reachable from the deal (after the closure rules), by a depth-first
/// search with an explicit stack: each position entered once, all its moves followed.
fn exact_members(deal: &Deal, opts: &CertifyOptions, t0: Instant) -> Result<Members, CertifyError> {
    let game = certificate::game_of(&deal.rules);
    let start = certificate::start_of(deal);
    let enc =
        Exact::new(game, &start, opts.autoplay).map_err(|m| CertifyError::NotApplicable(m.0))?;
    let mut board = enc
        .start_board(&start)
        .map_err(|m| CertifyError::NotApplicable(m.0))?;
    let deadline = opts
        .max_seconds
        .map(|s| t0 + std::time::Duration::from_secs_f64(s.min(1e9)));
    // Only the reductions the checker re-justifies: pile order (empty piles and cells alike,
    // a lone card to an empty pile is the same position), nothing else.
    let prune = Pruning::SAME_POSITIONS;
    let mut p = Position::new(deal);
    let mut hist: Vec<Move> = Vec::new();
    fill_pending(&mut p);
    settle(&mut p, opts.autoplay, &mut hist);
    hist.clear();
    let mut set = ByteSet::new();
    let mut buf = Vec::new();
    let mut enter =
        |p: &Position, set: &mut ByteSet, board: &mut Board| -> Result<bool, CertifyError> {
            if p.is_won() {
                return Err(CertifyError::Won);
            }
            board_of(p, board);
            enc.encode(board, &mut buf);
            Ok(set.insert(&buf))
        };
    enter(&p, &mut set, &mut board)?;
    struct Frame {
        start: usize,
        next: usize,
        undo_to: usize,
    }
    let mut list = MoveList::default();
    let mut moves: Vec<Move> = Vec::new();
    let mut frames: Vec<Frame> = Vec::new();
    p.generate(prune, 0, None, &mut list);
    moves.extend(list.iter());
    frames.push(Frame {
        start: 0,
        next: 0,
        undo_to: 0,
    });
    let mut steps = 0u64;
    while let Some(top) = frames.last_mut() {
        if top.next == moves.len() {
            let f = frames.pop().expect("a frame");
            moves.truncate(f.start);
            while hist.len() > f.undo_to {
                p.undo(hist.pop().expect("a move"));
            }
            continue;
        }
        let m = moves[top.next];
        top.next += 1;
        let h = hist.len();
        p.play(m, &mut hist);
        settle(&mut p, opts.autoplay, &mut hist);
        if enter(&p, &mut set, &mut board)? {
            let start = moves.len();
            p.generate(prune, 0, None, &mut list);
            moves.extend(list.iter());
            frames.push(Frame {
                start,
                next: start,
                undo_to: h,
            });
        } else {
            while hist.len() > h {
                p.undo(hist.pop().expect("a move"));
            }
        }
        steps += 1;
        if steps % 4096 == 0 {
            let path = moves.capacity() * 4 + frames.capacity() * 24 + hist.capacity() * 4;
            if set.bytes() + path > opts.max_bytes {
                return Err(CertifyError::Limit("memory"));
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(CertifyError::Limit("time"));
            }
        }
    }
    Ok(set.members)
}

/// Fills the empty piles of a stock game's start, as the rules force (a position given with
/// an empty pile and cards in the waste or stock).
fn fill_pending(p: &mut Position) {
    loop {
        let Some(e) = (0..p.piles()).find(|&i| p.pile(i).is_empty()) else {
            return;
        };
        let m = if let Some(&c) = p.waste().last() {
            Move::single(c, WASTE, e as u8)
        } else if let Some(&c) = p.stock().first() {
            Move::single(c, STOCK, e as u8)
        } else {
            return;
        };
        p.apply(m);
    }
}

/// Plays the safe moves (with `autoplay`), as the checker's closure rule does.
fn settle(p: &mut Position, autoplay: bool, hist: &mut Vec<Move>) {
    if autoplay {
        while let Some(m) = p.safe_move() {
            p.play(m, hist);
        }
    }
}

/// The checker's board of `p` (cards as certificate bytes).
fn board_of(p: &Position, b: &mut Board) {
    for i in 0..p.piles() {
        let pile = p.pile(i);
        b.len[i] = pile.len() as u8;
        for (k, &c) in pile.iter().enumerate() {
            b.piles[i][k] = certificate::card_byte(c);
        }
    }
    b.found = p.foundations();
    for (k, &c) in p.cell_codes().iter().enumerate() {
        b.cells[k] = crate::card::Card::from_code(c).map_or(0, certificate::card_byte);
    }
    b.taken = p.stock_taken();
    b.waste = p.waste_bits();
}

/// What one quotient run of the certificate pass gave.
enum Run {
    /// The loss, proved: the certificate's kind and members.
    Lost(Kind, certificate::Members),
    /// A false branch win, and the kept cards of the next run if a card is left to keep.
    FalseWin(Option<u64>),
}

/// The members found so far, with a hash index of its own (the pass's, not the checker's).
struct ByteSet {
    members: Members,
    slots: Vec<u32>,
    hasher: ahash::RandomState,
}

impl ByteSet {
    fn new() -> ByteSet {
        ByteSet {
            members: Members::new(),
            slots: vec![0; 1 << 12],
            hasher: ahash::RandomState::with_seeds(1, 2, 3, 4),
        }
    }

    fn bytes(&self) -> usize {
        self.members.bytes() + self.slots.capacity() * 4
    }

    /// Adds `bytes`; true if it was not there.
    fn insert(&mut self, bytes: &[u8]) -> bool {
        if (self.members.len() + 1) * 2 > self.slots.len() {
            let size = self.slots.len() * 2;
            let mut slots = vec![0u32; size];
            for i in 0..self.members.len() {
                let mut at = self.hasher.hash_one(self.members.get(i)) as usize & (size - 1);
                while slots[at] != 0 {
                    at = (at + 1) & (size - 1);
                }
                slots[at] = i as u32 + 1;
            }
            self.slots = slots;
        }
        let mask = self.slots.len() - 1;
        let mut at = self.hasher.hash_one(bytes) as usize & mask;
        loop {
            match self.slots[at] {
                0 => break,
                i if self.members.get(i as usize - 1) == bytes => return false,
                _ => at = (at + 1) & mask,
            }
        }
        self.members.push(bytes);
        self.slots[at] = self.members.len() as u32;
        true
    }
}

/// The file name `castle batch --certificates DIR` gives the certificate of `deal`: the
/// variant, the rule options that are not the variant's own, PySolFC's numbering if used,
/// and the deal number (`beleaguered-castle-9830.cert`).
pub fn file_name(deal: &Deal, numbering: Numbering) -> String {
    let rules = &deal.rules;
    let plain = rules.variant.rules();
    let mut name = rules.variant.name().to_string();
    if rules.options.start_rank != plain.options.start_rank {
        name.push_str(&format!("-start-rank-{}", rules.options.start_rank));
    }
    if rules.options.foundation_return {
        name.push_str("-foundation-return");
    }
    if rules.options.sequence_moves != plain.options.sequence_moves {
        name.push_str(&format!("-{}", rules.options.sequence_moves.name()));
    }
    if numbering == Numbering::Pysol {
        name.push_str("-pysol");
    }
    match deal.seed {
        Some(s) => format!("{name}-{s}.cert"),
        None => format!("{name}.cert"),
    }
}
