//! The suit-blind quotient: a smaller, over-approximating search whose `Lost` is a proof.
//!
//! This module owns one self-contained search, [`search`], for the games of the family in
//! which every tableau move depends on ranks alone: beleaguered-castle, streets-and-alleys
//! and citadel, any start rank, single or unlimited sequence moves. It refuses
//! ([`QuotientVerdict::NotApplicable`]) any other rule set: another build rule (fortress,
//! castile, courtyard), two decks, reserve cells, a stock, or foundation return (with return
//! a card may leave its foundation, and the windows below stop sliding one way).
//!
//! # The abstraction
//! Fix `k >= 1`. For each suit `s` let `next_s` be the rank its foundation needs next
//! (`height + 1`). A card `(s, r)` not home is *fixed* if `next_s <= r < next_s + k`, and
//! *unfixed* otherwise. The abstract position `α(c)` of a concrete position `c` keeps the
//! foundations exactly, keeps every fixed card with its suit, and replaces every unfixed card
//! by its rank alone. Tableau piles are interchangeable (no rule names a pile), so `α` also
//! forgets pile order: the key sorts the piles.
//!
//! The abstract moves from an abstract position `a`:
//! - **Tableau moves**, exactly as on ranks: the top card (or, with unlimited sequence moves,
//!   an ordered run: each card one rank below the one under it) of a pile goes onto a pile
//!   whose top is one rank above its bottom card, or into an empty pile. The rule book's
//!   tableau moves depend on ranks alone (build down regardless of suit, any card to an empty
//!   pile), so these are exactly the moves of any `c` with `α(c) = a`.
//! - **Foundation moves**: a fixed card `(s, next_s)` on a pile top goes home. Then the window
//!   of `s` slides: `(s, next_s + k)`, if that rank is at most the king, becomes fixed. It is
//!   one of the unfixed cards of rank `next_s + k` on the tableau (it is not home, it was not
//!   fixed), and the abstract search *branches*: one successor per position holding an
//!   unfixed card of that rank, each giving that card the suit `s`.
//!
//! A card `(s, next_s)` is always fixed (`k >= 1`), so every concrete foundation move has its
//! abstract one.
//!
//! # Soundness: `Lost` is a proof
//! **Simulation.** Let `c` be a concrete position and `a = α(c)`. Every concrete move
//! `c -> c'` has an abstract move `a -> a'` with `a' = α(c')`: a tableau move is the same move
//! on ranks, and it changes no foundation, so no card changes its fixed status and the
//! symbols travel with the cards; a foundation move of `(s, next_s)` is the abstract
//! foundation move from the same pile, and `α(c')` is its branch at the true position of
//! `(s, next_s + k)` in `c` (every other card keeps its status: only suit `s`'s window moved,
//! and it gained exactly that card). So the abstract positions reachable from `α(deal)`
//! include `α` of every concretely reachable position. An abstract position is won exactly
//! when every foundation is complete, as for the concrete positions mapping to it. If the
//! search exhausts the reachable abstract positions without meeting a won one, no
//! concretely reachable position is won: the deal is lost.
//!
//! An abstract win proves nothing: a branch may give a suit to a card that does not have it,
//! so the line may not correspond to any concrete play. It is reported as
//! [`QuotientVerdict::BranchWin`] with its line ([`QuotientResult::line`]); the caller plays
//! the line on the deal ([`concrete_line`]: tableau moves are legal there, being moves on
//! ranks, and a foundation move is legal exactly when its branch was the real card), keeps it
//! if it wins there (the checker replays it like any win), and otherwise falls back to the
//! exact search.
//!
//! With `k = 13` every card not home is fixed and no foundation move branches: the
//! abstraction is the identity up to pile order, and the search visits exactly the positions
//! of the exact search (a test compares the counts).
//!
//! # Reductions, each proved to keep the proof sound
//! A reduction may only depend on what the abstraction keeps (foundations, fixed cards,
//! ranks, and the line into the position), and the concrete argument for it must hold for
//! every concrete position the abstract one stands for. Then the completeness argument lifts.
//! Write `R` for the abstract positions the search enters and `W` for the concrete positions
//! from which a win exists. **Claim**: if `c` is in `W` and `α(c)` is in `R`, then `R` holds a
//! won position. By induction on (cards not home in `c`, length of `c`'s shortest win),
//! ordered lexicographically. If `α(c)` is won, done. Otherwise see each case below; each
//! gives a `c'` in `W`, smaller in that order, with `α(c')` in `R`. As `α(deal)` is in `R`,
//! a winnable deal puts a won position in `R`; so an `R` without one proves the deal lost.
//!
//! - **Safe autoplay** (the only reduction that removes positions). If the abstract position
//!   shows a fixed card `x = (s, r)` on a pile top with `r = next_s` and `r <= min_t
//!   next_t + 1` (every foundation holds rank `r - 2`), the search offers only that foundation
//!   move (all its branches). The test reads only foundations and a fixed card, and the same
//!   card `x` is on the same pile top of every `c` with `α(c) = a`. For such a `c`, the exact
//!   search's rule (`Position::safe_move`, build down regardless of suit) says a win from
//!   `c` gives a win from `c'` = `c` with `x` home: `x` can only ever hold a card `y` of rank
//!   `r - 1`, which fits its own foundation and on which nothing can be built (rank `r - 2` is
//!   home everywhere); delete `x`'s moves up to its move home, turn each move of a `y` onto `x`
//!   into `y` going home and delete that `y`'s later moves up to its own move home. Every
//!   tableau of the new line is the old one minus cards with nothing on them, so every other
//!   move stays legal. With unlimited sequence moves a run that carried `x` carries the same
//!   run minus `x` and the `y` above it (both home), still an ordered run of the cards below,
//!   and a run landing on `x` can only be a lone `y`. `c'` has one more card home, and `α(c')`
//!   is one of the branches, all entered. (Autoplay is confluent: playing one safe card leaves
//!   every other one safe and on top; which one goes first changes no reachable set.)
//! - **Pile order.** Piles are interchangeable, so the key sorts them; a move into an empty
//!   pile is offered into one empty pile only, and a whole pile is never moved into an empty
//!   pile (it reaches the same position). These change no set of positions.
//! - **No repeat.** After a single-card tableau move of card `x` from `A` to `B` with nothing
//!   played after it, the child offers no single-card move from `B`. Such a move of `x`
//!   reaches (up to pile order) what the parent reaches by moving `x` from `A` directly (the
//!   parent itself when it goes back to `A`; `x`'s move home is the parent's own): the parent
//!   offered that move (its own skipped card is not `x`, since it moved `x`), and the parent
//!   is entered, so its successors are. In the induction, when the first move of `c`'s
//!   shortest win is skipped, `α(c')` is one of the parent's successors or the parent.
//!
//! A position already in the table is entered (all its moves are or will be tried: the
//! search is an exhaustive depth-first search with an explicit stack), which is all the
//! claim needs; positions with a safe move are not stored (they have one branching move
//! each, and every line through them adds a card home, so no cycle passes only through them).
//!
//! # The dealt refinement ([`QuotientOptions::dealt`])
//! Call a card *unmoved* while it has not moved since the deal. The search never moves piles,
//! so the unmoved cards of pile `i` are the bottom part of the column dealt there, and a count
//! per pile says which they are. Extend each concrete position with these counts (a *flagged*
//! position: its moves are its position's moves, and a move lowers its source pile's count
//! to the cards left under the ones that moved); a flagged position is won, or has a win of
//! a given length, exactly when its position does. The refined abstraction keeps what `α`
//! keeps plus the counts, so an unmoved card is known by its place (it is the card dealt
//! there), and only moved cards are suit-blind. Tableau and foundation moves are as before
//! and update the counts the same way in both. The branch changes: when `(s, next_s + k)`
//! becomes fixed, if its dealt place lies in its pile's unmoved part, it is there (one
//! branch); otherwise it has moved, and it is one of the unfixed cards of that rank outside
//! the unmoved parts (a branch each). In a flagged concrete position the card is in exactly
//! one of these two cases, at a place the abstract move offers, so the simulation holds, and
//! `Lost` is a proof as before (a win of the deal is a win of the flagged deal).
//!
//! The reductions carry over, with the claim's induction run over flagged positions (the
//! measure, cards home and shortest win, depends on the position only): safe autoplay reads
//! the same information; only piles with no unmoved card are interchangeable (the key sorts
//! those and names the others by column; an empty pile has none); a lone card or a whole
//! pile into an empty pile gives the same position, so no shortest win plays it (dropping it
//! would give a shorter one), whatever it does to the counts; and when no-repeat leaves out
//! `x`'s move back to `A`, the position it gives is the parent's with `x` counted as moved:
//! the flagged position with the parent's counts has the same position, hence the same
//! measure, and its abstraction is the parent, which is entered.
//!
//! With the refinement `k = 13` counts more positions than the exact search (a card moved
//! away and back is told from one never moved); the verdicts are the same.
//!
//! # Refining by the cards a branch got wrong ([`QuotientOptions::kept`])
//! A branch win whose line does not win on the deal took, somewhere, a branch that gave suit
//! `s` to a card of rank `r` that is not `(s, r)`: following the line on the deal's cards by
//! place (its tableau moves are moves on ranks, and a foundation move takes the pile's top
//! card, whose rank is right), the card it sends home as `(s, r)` has another suit
//! ([`wrong_branches`]). Widening the window fixes four more cards per step, most of which no
//! branch got wrong, and the space grows with each; instead, a run may name a set `K` of
//! cards that stay fixed whatever the window: `(s, r)` not home is fixed if
//! `next_s <= r < next_s + k` or `(s, r)` is in `K`. The argument above holds unchanged: a
//! tableau move changes no status; a foundation move of `(s, next_s)` slides the window onto
//! `(s, next_s + k)`, which either is in `K` (fixed already, with its suit, at its place:
//! the abstract move has no branch, and `α(c')` is its one successor) or was unfixed (the
//! branch at its true place, as before); every other card keeps its status. The reductions
//! read foundations, fixed cards and ranks, so their arguments carry over, and the key's
//! codes depend on the foundations, `k` and `K`, all fixed for a run, so it stays decodable.
//! So a `Lost` with any `K` is a proof; keeping a card a branch got wrong removes every
//! abstract line through that branch, so the next run cannot return the same line.
//!
//! A false line is still worth something: its moves up to its first wrong branch are legal
//! on the deal ([`concrete_prefix`] plays them), so they reach a real position, from which
//! the schedule's exact search may find a win of the deal (`schedule::solve_prefix`).
//!
//! # Proofs that outlive a run ([`search_proved`])
//! A refining run searches again, with one more card kept, what the run before it searched,
//! and the runs grow with the kept cards (sa 20967: 0.69 M positions with none kept, 66 M with
//! seven). But a run that ends at a false win has proved most of what it searched.
//!
//! **Closing.** Each run numbers the positions it stores in the order it stores them and
//! keeps Tarjan's bookkeeping of strongly connected components: a frame's `low` is the least
//! number of a stored position whose component is still open that its subtree reached (a move
//! into a stored, open position lowers it; a move into a closed one does not). With no-repeat
//! on, a position entered by a single-card tableau move takes its parent's number as its `low`
//! too: the moves it leaves out are searched from the parent. A frame finished with `low`
//! equal to its own number closes its component: it and every position above it on Tarjan's
//! stack are marked proved. A run stops at the first won position without storing it, so no
//! closed component holds a won position, and none reaches one.
//!
//! **Claim**: no concrete position `c` with `α(c)` closed is in `W`. Take such a `c` in `W`
//! with the least measure of the induction above. `α(c)` is not won (a closed component holds
//! none), so the induction gives `c'` in `W`, smaller, with `α(c')` a child of `α(c)`, a
//! branch of its safe move (through a position not stored, which has no other moves), or,
//! for a move no-repeat left out, the parent of `α(c)` or one of the parent's children. Each
//! of these is reached from `α(c)` by the run's moves or is a position whose number bounds
//! `α(c)`'s `low`, so it was closed no later than `α(c)` (Tarjan: a component closes only
//! after everything it reaches, and a position's component cannot close before one whose
//! number bounds its `low`). So `α(c')` is closed, `c'` is in `W` with a smaller measure: a
//! contradiction. The claim holds in a run cut by a budget too: only closing matters, and
//! closing happened before the cut.
//!
//! **Skipping.** A run `R'` with window `k' >= k` and kept cards `K' ⊇ K` fixes every card
//! a run `R` with `k` and `K` fixes, in every position (and the same dealt refinement), so
//! `R`'s abstraction is a function of `R'`'s: `α_R(c) = β(α_R'(c))`, where `β` forgets the
//! suit of every card `R'` fixes and `R` does not ([`Level::key`]). If `R` closed `β(x)`,
//! every `c` with `α_R'(c) = x` has `α_R(c)` closed, so is not in `W` by the claim: `R'`
//! stores `x` as proved and does not search it. The induction of `R'` never meets such an
//! `x` (it only visits abstractions of positions in `W`), so `R'`'s `Lost`, and its own
//! closed positions, are proofs as before. Only the proofs of runs on the same deal are used
//! (the claim is about that deal's `W`).
//!
//! **Which runs are kept.** Only a run's proved positions can prove anything, so a finished
//! run is kept as those alone ([`Table::proved_only`]), and at most [`PROOF_RUNS`] runs are
//! kept: the oldest, whose abstraction is the coarsest (each of its proofs stands for the most
//! positions of a later run), the newest, and the largest of the others. Dropping a run only
//! makes the later runs skip less, so a run short of room frees them and goes on
//! ([`Search::drop_earlier`]). A new position costs a key for each kept run, and their
//! lookups are asked for together ([`Table::prefetch`]) on tables backed by huge pages: on
//! the tables' largest runs those lookups' cache and TLB misses were most of the time.
//!
//! **Measured.** Without no-repeat the components are the abstract graph's own, most close
//! long before a run's false win, and each refining run searches little more than the path
//! to its false win and what lies past it (`cargo run --release --example quotient --
//! --variant sa --seed 20967 -k 2 --refine 200 --refine-step 1 --proved --repeat`): the first
//! run stores 0.69 M positions and closes 0.68 M of them, the next thirteen store 6,000 to
//! 58,000 each, and the fifteenth wins on the deal, 2.4 s of runs in all; with no-repeat on
//! the same runs close nearly nothing (each position waits on its parent) and the sixth
//! stores 7.4 M positions. The schedule's runs therefore make every move.
//!
//! # The key
//! Fixed-size words, exact (a `Lost` never rests on a hash): one sentinel bit, the four
//! foundation heights (4 bits each), the pile lengths sorted (unary differences), then the
//! piles sorted by (length, cards), each card as its rank (4 bits) and the index of its
//! symbol among the symbols its rank may have in this position (the suits fixed at that
//! rank, then "unfixed" if some card of that rank is unfixed): 0 to 2 bits, fixed by the
//! foundations, so the code is decodable and two positions never share a key. With the dealt
//! refinement the piles' unmoved counts come first (6 bits each, by column), then for each
//! pile with unmoved cards the length (6 bits) and cards of the part above them; the unmoved
//! cards themselves are fixed by their column, count and the foundations; then the other
//! piles as above. Keys that fit
//! four words go in the main table, longer ones (only positions with many cards and several
//! fixed suits per rank) in a second table of eight-word keys: a key's length is a function
//! of its position, so the tables never hold the same position twice.

//! # Measured
//! `cargo run --release --example quotient -- ...` (`--plain` for the plain quotient), one
//! thread, this 2-core machine shared with other work: CPU seconds of the search's thread;
//! peak MiB is the search's own tables and path (the process's resident peak is within a few
//! MiB of it); depth is the longest search path.
//!
//! | deal | k | dealt refinement (default) | plain |
//! | --- | --- | --- | --- |
//! | `../shared/bench/hard-unsolvable.fcs` | 2 | lost: 41,255 positions, 0.04 s, 3 MiB | branch win (19,371 positions) |
//! | same | 3 | lost: 356,964, 0.44 s, 26 MiB | lost: 170,387, 0.17 s, 14 MiB, depth 30,892 |
//! | same | 4 | lost: 3,030,144, 5.6 s, 204 MiB | lost: 2,642,200, 4.4 s, 320 MiB |
//! | same | 13 | | lost: 12,629,580 (the exact search's states), 31.5 s, 2,784 MiB |
//! | bc 9830 | 2 | lost: 283,687, 0.23 s, 24 MiB | branch win (9,032) |
//! | bc 9830 | 3 | lost: 1,558,569, 1.9 s, 100 MiB | lost: 10,020,304, 12.2 s, 772 MiB, depth 84,222 |
//! | bc 9830 | 4 | lost: 7,606,245, 11.6 s, 776 MiB | lost: 46,917,136, 74 s, 3,088 MiB |
//! | bc 1770 | 2 | lost: 371,492, 0.32 s, 25 MiB | branch win at `k = 3` (28,040) |
//! | bc 2461 | 2 | lost: 328,937, 0.25 s, 24 MiB | branch win at `k = 3` (239,322) |
//! | bc 7875 | 2 | lost: 429,395, 0.50 s, 49 MiB | branch win at `k = 3` (409,778) |
//!
//! (bc 1770, 2461, 7875 and 9830 are the deals the exact search leaves `unknown` after 25
//! minutes and 14 GiB. Plain at `k = 4`, 2461 and 7875 still give branch wins, at 313,609
//! and 11,306,720 positions, and 1770 is undecided at 100 s with 15.3 million: for these the
//! refinement's `Lost` has no second witness yet.) Streets-and-alleys 1..100 (`--variant sa
//! --exact-nodes 5000000`): the exact search proves 46 deals lost with 513,720 states; the
//! refinement proves all 46 at `k = 2` with 72,650 positions (`k = 3`: 96,856). Beleaguered-castle 1..200 (`--seeds 1..200 --exact --lost-only -k
//! 2,3,4`): the exact search (20 million nodes each) proves 64 deals lost, holding 673,554
//! states on them in all (4.1 s). With the refinement, `k = 2` proves all 64 with 29,959
//! positions (`k = 3`: 33,688; `k = 4`: 42,146), smaller than the exact search on 30 deals
//! and larger on 6 (bc 179: 7,601 positions against 453,285 states). Plain, `k = 2` proves
//! 55 with 448,148 positions (65,817 exact states on those), `k = 3` 62 with 1,101,380,
//! `k = 4` all 64 with 1,111,256, larger than the exact search on 28 to 38 deals (bc 85:
//! 633,312 at `k = 3` against 152,434): without the refinement the branches cost more than
//! the merging saves on small deals.

use super::table::{advise_huge_pages, prefetch};
use crate::card::KING;
use crate::check::{steps_of, Board};
use crate::deal::Deal;
use crate::moves::{Move, FOUNDATION};
use crate::rules::{Build, SequenceMoves};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Most tableau piles the quotient search handles.
pub const MAX_PILES: usize = 12;
/// Most cards one pile may hold (a whole deck: hand-built positions may stack anything).
const CAP: usize = 52;
/// A symbol's tag for an unfixed card (tags 0..4 are the suits of fixed cards).
const UNFIXED: u8 = 4;
/// Words of the main table's keys.
const MAIN_WORDS: usize = 4;
/// Words of the overflow table's keys: the longest key is 1 + 16 + (52 + 12) + 52 * 6 bits.
const LONG_WORDS: usize = 7;
/// Nodes between looks at the clock, the stop flag and the path's memory.
const CHECK_EVERY: u64 = 1 << 12;

/// What one quotient search may do.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuotientOptions {
    /// Cards per suit kept with their suit (the window); 1..=13, 13 merges nothing.
    pub k: u8,
    /// Stop after this many nodes (positions whose moves were generated).
    pub max_nodes: Option<u64>,
    /// Stop after this many seconds.
    pub max_seconds: Option<f64>,
    /// Bytes the tables and the search path may hold together.
    pub max_bytes: usize,
    /// Play safe foundation moves at once (see the module docs). Off only for tests.
    pub autoplay: bool,
    /// Skip moves of the card just moved (see the module docs). Off only for tests.
    pub no_repeat: bool,
    /// Keep the cards never moved since the deal apart, with their suits (see "The dealt
    /// refinement" in the module docs). On by default: on beleaguered-castle 1..200 it proves
    /// every lost deal at `k = 2` with a twentieth of the exact search's states (see
    /// "Measured").
    pub dealt: bool,
    /// Cards kept with their suit whatever the window, one bit per card code
    /// (`rank * 4 + suit`): the refinement's cards (see "Refining by the cards a branch got
    /// wrong" in the module docs). 0 keeps none.
    pub kept: u64,
}

impl Default for QuotientOptions {
    fn default() -> Self {
        QuotientOptions {
            k: 3,
            max_nodes: None,
            max_seconds: None,
            max_bytes: 4 << 30,
            autoplay: true,
            no_repeat: true,
            dealt: true,
            kept: 0,
        }
    }
}

/// Which budget stopped a quotient search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QuotientLimit {
    /// [`QuotientOptions::max_nodes`].
    Nodes,
    /// [`QuotientOptions::max_seconds`].
    Seconds,
    /// [`QuotientOptions::max_bytes`].
    Memory,
    /// The caller's stop flag.
    Stopped,
}

/// Why the quotient does not apply to a rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// Tableau moves depend on suits (fortress, castile, courtyard).
    Build,
    /// Two decks.
    Decks,
    /// Reserve cells.
    Cells,
    /// A stock.
    Stock,
    /// Foundation return: cards may leave the foundations.
    FoundationReturn,
    /// More piles (or longer piles) than the search holds.
    TooLarge,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Refusal::Build => "tableau moves depend on suits",
            Refusal::Decks => "two decks",
            Refusal::Cells => "reserve cells",
            Refusal::Stock => "a stock",
            Refusal::FoundationReturn => "foundation return",
            Refusal::TooLarge => "more piles or cards than the quotient search holds",
        })
    }
}

/// The answer of a quotient search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QuotientVerdict {
    /// No reachable abstract position is won: the deal is lost (a proof).
    Lost,
    /// A won abstract position was reached; it may rest on a branch no concrete play matches,
    /// so it proves nothing.
    BranchWin,
    /// A budget ran out (never a verdict).
    Limit(QuotientLimit),
    /// The rules are not ones the quotient applies to.
    NotApplicable(Refusal),
    /// A check that guards the proof failed (a bug): the run proves nothing, and the solve
    /// that ran it ends as an error (see [`Broken`]).
    Broken(Broken),
}

/// A broken invariant of the quotient search: each is checked in every build, because the
/// search cannot go on without it and stay a proof (a silently dropped move, or two positions
/// sharing a key, could make a winnable deal look lost). None has ever been met; a run that
/// meets one ends as [`QuotientVerdict::Broken`], never `Lost`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Broken {
    /// A foundation move found no place for the card entering the window.
    NoBranch,
    /// The card entering the window from its dealt place is not there.
    DealtPlace,
    /// A symbol's code did not fit its field of the key (it would have merged keys).
    Code,
    /// A key longer than the longest key the tables hold.
    KeyLength,
}

impl fmt::Display for Broken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Broken::NoBranch => "a foundation move found no place for the card entering the window",
            Broken::DealtPlace => "the card entering the window is not at its dealt place",
            Broken::Code => "a card's code does not fit its field of the key",
            Broken::KeyLength => "a key longer than the tables hold",
        })
    }
}

/// Why the search stopped before its verdict.
enum Halt {
    Limit(QuotientLimit),
    Broken(Broken),
}

impl From<QuotientLimit> for Halt {
    fn from(l: QuotientLimit) -> Halt {
        Halt::Limit(l)
    }
}

impl QuotientVerdict {
    /// The name used in outputs: `lost`, `branch-win`, `limit-nodes`, ..., `not-applicable`.
    pub fn name(self) -> &'static str {
        match self {
            QuotientVerdict::Lost => "lost",
            QuotientVerdict::BranchWin => "branch-win",
            QuotientVerdict::Limit(QuotientLimit::Nodes) => "limit-nodes",
            QuotientVerdict::Limit(QuotientLimit::Seconds) => "limit-seconds",
            QuotientVerdict::Limit(QuotientLimit::Memory) => "limit-memory",
            QuotientVerdict::Limit(QuotientLimit::Stopped) => "stopped",
            QuotientVerdict::NotApplicable(_) => "not-applicable",
            QuotientVerdict::Broken(_) => "broken",
        }
    }
}

impl fmt::Display for QuotientVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QuotientVerdict::NotApplicable(why) => write!(f, "not applicable ({why})"),
            QuotientVerdict::Broken(why) => write!(f, "broken invariant ({why})"),
            v => f.write_str(v.name()),
        }
    }
}

/// A move of the abstract search, by pile: piles never change places in it (only its key
/// sorts them), so pile `i` is the deal's column `i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AbstractMove {
    /// Source pile.
    pub from: u8,
    /// Target pile, or `None` for the foundations.
    pub to: Option<u8>,
    /// Cards moved (more than one only with unlimited sequence moves).
    pub count: u8,
    /// For a foundation move, the suit the abstraction gave the card (castle's suit index,
    /// [`crate::card::Card::suit_index`]); `None` for a tableau move.
    pub suit: Option<u8>,
}

/// What a quotient search found, and what it cost.
#[derive(Clone, Debug, PartialEq)]
pub struct QuotientResult {
    /// The answer.
    pub verdict: QuotientVerdict,
    /// With `BranchWin`: the abstract line from the deal to the won position. Tableau moves
    /// depend on ranks alone, so the line is legal on the deal up to its first foundation
    /// move whose branch gave a card the wrong suit; [`concrete_line`] plays it there. With
    /// `k = 13` nothing branches and the line is a win of the deal.
    pub line: Vec<AbstractMove>,
    /// Distinct abstract positions stored (those without a safe move).
    pub positions: u64,
    /// Positions whose moves were generated (stored ones and those with a safe move).
    pub nodes: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Most bytes the tables and the path held at once.
    pub bytes: usize,
    /// Keys too long for the main table (see the module docs).
    pub long_keys: u64,
    /// Most positions on the search path at once.
    pub depth: usize,
    /// New positions skipped because an earlier run had proved them lost
    /// ([`search_proved`]); not counted in `positions`.
    pub pruned: u64,
    /// Positions whose component the run closed (proved lost) before it ended.
    pub closed: u64,
    /// The run freed the earlier runs' proofs for room it needed ([`search_proved`]).
    pub dropped: bool,
}

/// Searches the quotient of `deal` (a validated deal) with window `opts.k`, until it is
/// exhausted (`Lost`), a won abstract position is met (`BranchWin`), a budget runs out, or
/// `stop` becomes true (checked every few thousand nodes).
pub fn search(deal: &Deal, opts: &QuotientOptions, stop: &AtomicBool) -> QuotientResult {
    run_search(deal, opts, stop, None, None).0
}

/// [`search`] that skips the positions earlier runs on the same deal proved lost, and adds
/// its own proofs to `proved` for the runs after it (see "Proofs that outlive a run" in the
/// module docs). `proved` must only ever hold runs on `deal`. Its runs' tables count against
/// [`QuotientOptions::max_bytes`]; after a run out of room (which adds nothing to it) the
/// caller may [`Proved::clear`] them and run again.
pub fn search_proved(
    deal: &Deal,
    opts: &QuotientOptions,
    stop: &AtomicBool,
    proved: &mut Proved,
) -> QuotientResult {
    run_search(deal, opts, stop, None, Some(proved)).0
}

/// True when [`search`] takes the deal's rules (it would not end `NotApplicable`).
pub fn applies(deal: &Deal) -> bool {
    Abs::new(deal, 2, true, 0).is_ok()
}

/// [`search`] that also keeps every position it stores, in the encoding of a quotient
/// certificate's members ([`crate::certificate::quotient::Quotient::encode`]): with
/// `no_repeat` off, a `Lost` run's positions are closed under every abstract move (the
/// certificate pass, [`super::certify`]). The members count against `max_bytes`.
pub fn search_collect(
    deal: &Deal,
    opts: &QuotientOptions,
    stop: &AtomicBool,
    encoder: crate::certificate::quotient::Quotient,
) -> (QuotientResult, crate::certificate::Members) {
    let (r, members) = run_search(deal, opts, stop, Some(encoder), None);
    (r, members.unwrap_or_default())
}

fn run_search(
    deal: &Deal,
    opts: &QuotientOptions,
    stop: &AtomicBool,
    encoder: Option<crate::certificate::quotient::Quotient>,
    mut proved: Option<&mut Proved>,
) -> (QuotientResult, Option<crate::certificate::Members>) {
    let t0 = Instant::now();
    let mut out = QuotientResult {
        verdict: QuotientVerdict::Lost,
        line: Vec::new(),
        positions: 0,
        nodes: 0,
        seconds: 0.0,
        bytes: 0,
        long_keys: 0,
        depth: 0,
        pruned: 0,
        closed: 0,
        dropped: false,
    };
    let mut members = None;
    match Abs::new(deal, opts.k, opts.dealt, opts.kept) {
        Err(why) => out.verdict = QuotientVerdict::NotApplicable(why),
        Ok(root) => {
            #[cfg(test)]
            let root = tests::tripped(root);
            let mut s = Search::new(root, opts, stop, t0);
            // The earlier runs whose abstraction this one refines (the others wait aside).
            let mut aside = Vec::new();
            if let Some(p) = proved.as_deref_mut() {
                for level in std::mem::take(&mut p.runs) {
                    if level.coarser_than(s.a.k, s.a.dealt, s.a.kept) {
                        s.earlier.push(level);
                    } else {
                        aside.push(level);
                    }
                }
            }
            s.collect = encoder.map(|e| Collector {
                encoder: e,
                members: crate::certificate::Members::new(),
                buf: Vec::new(),
            });
            out.verdict = s.run();
            if out.verdict == QuotientVerdict::BranchWin {
                out.line = s.line();
            }
            out.positions = s.positions;
            out.nodes = s.nodes;
            out.bytes = s.peak_bytes;
            out.long_keys = s.long.len() as u64;
            out.depth = s.depth;
            out.pruned = s.pruned;
            out.closed = s.closed;
            out.dropped = s.dropped;
            if let Some(p) = proved {
                p.runs = aside;
                p.runs.append(&mut s.earlier);
                // A lost deal needs no more runs, a broken run proves nothing, and one out of
                // room leaves the room to the next (its closed positions are proofs all the
                // same).
                if !matches!(
                    out.verdict,
                    QuotientVerdict::Lost
                        | QuotientVerdict::Broken(_)
                        | QuotientVerdict::Limit(QuotientLimit::Memory)
                ) {
                    // Its proved positions alone (closed, or skipped as an earlier run's):
                    // the others can prove nothing.
                    let main = std::mem::replace(&mut s.main, Table::new()).proved_only();
                    let long = std::mem::replace(&mut s.long, Table::new()).proved_only();
                    let proofs = main.len() + long.len();
                    if proofs > 0 {
                        p.runs.push(Level {
                            k: s.a.k,
                            dealt: s.a.dealt,
                            kept: s.a.kept,
                            proofs,
                            codes: Codes::new(),
                            main,
                            long,
                        });
                        p.keep_best();
                    }
                }
            }
            members = s.collect.map(|c| c.members);
        }
    }
    out.seconds = t0.elapsed().as_secs_f64();
    (out, members)
}

/// The positions a certificate pass keeps (see [`search_collect`]).
struct Collector {
    encoder: crate::certificate::quotient::Quotient,
    members: crate::certificate::Members,
    buf: Vec<u8>,
}

impl Collector {
    /// Keeps `a` as a member.
    fn keep(&mut self, a: &Abs) {
        use crate::certificate::quotient::APos;
        let mut unmoved = [0u8; MAX_PILES];
        if a.dealt {
            unmoved = a.prefix;
        }
        let pos = APos {
            len: a.len,
            piles: a.pile,
            unmoved,
            found: a.f,
        };
        self.encoder.encode(&pos, &mut self.buf);
        self.members.push(&self.buf);
    }
}

/// The abstract `line` of a branch win played on `deal` itself: its moves, if every one is
/// legal there and the deal ends won. A branch that gave a card the wrong suit makes a
/// foundation move illegal (the card on that pile is another suit's), and the answer is
/// `None`. Played on the checker's board, so a line returned is a checked win (the solver
/// replays it once more before returning it, as every win).
pub fn concrete_line(deal: &Deal, line: &[AbstractMove]) -> Option<Vec<Move>> {
    let (out, board) = play_prefix(deal, line);
    (out.len() == line.len() && board.cards_out() == 0).then_some(out)
}

/// The longest prefix of a branch win's `line` that is legal on `deal`, and the position it
/// reaches there, as a deal to solve: a real position of the game, reached by the moves
/// returned (checked on the checker's board). A false line's prefix ends just before its
/// first wrong branch.
pub fn concrete_prefix(deal: &Deal, line: &[AbstractMove]) -> (Vec<Move>, Deal) {
    let (out, board) = play_prefix(deal, line);
    (out, board.to_deal())
}

fn play_prefix(deal: &Deal, line: &[AbstractMove]) -> (Vec<Move>, Board) {
    let mut board = Board::new(deal);
    let mut out = Vec::with_capacity(line.len());
    for m in line {
        let Some(pile) = board.tableau.get(usize::from(m.from)) else {
            break;
        };
        let Some(&card) = pile
            .len()
            .checked_sub(usize::from(m.count))
            .and_then(|i| pile.get(i))
        else {
            break;
        };
        let mv = Move {
            card,
            from: m.from,
            to: m.to.unwrap_or(FOUNDATION),
            count: m.count,
        };
        let Some(step) = steps_of(&[mv]).pop() else {
            break;
        };
        if board.play(&step).is_err() {
            break;
        }
        out.push(mv);
    }
    (out, board)
}

/// The cards a branch win's `line` sent home under a suit they do not have on `deal`, in
/// the line's order, as card codes (`rank * 4 + suit`, the bits of
/// [`QuotientOptions::kept`]): each is a card `(s, r)` the abstraction placed wrongly when
/// suit `s`'s window reached rank `r` (the card it sent home as `(s, r)` was another suit's).
/// Keeping one makes every line through its wrong branches impossible (see "Refining by the
/// cards a branch got wrong" in the module docs). Empty if the line wins on the deal.
///
/// The line is followed on the deal's cards by place: its tableau moves are moves on ranks,
/// legal on the deal whatever the suits, and a foundation move takes the pile's top card,
/// whose rank is the abstraction's; only the suit can differ.
pub fn wrong_branches(deal: &Deal, line: &[AbstractMove]) -> Vec<u8> {
    wrong_branch_places(deal, line)
        .into_iter()
        .map(|(_, c)| c)
        .collect()
}

/// [`wrong_branches`] with the index in `line` of each foundation move that got its card
/// wrong.
pub fn wrong_branch_places(deal: &Deal, line: &[AbstractMove]) -> Vec<(usize, u8)> {
    let mut piles: Vec<Vec<crate::card::Card>> = deal.tableau.clone();
    let mut wrong = Vec::new();
    for (i, m) in line.iter().enumerate() {
        let Some(from) = piles.get_mut(usize::from(m.from)) else {
            break;
        };
        let n = usize::from(m.count);
        if n == 0 || from.len() < n {
            break;
        }
        let moved = from.split_off(from.len() - n);
        match (m.to, m.suit) {
            (Some(to), _) => match piles.get_mut(usize::from(to)) {
                Some(p) => p.extend(moved),
                None => break,
            },
            (None, Some(suit)) => {
                let card = moved[0];
                if card.suit_index() != usize::from(suit) {
                    wrong.push((i, card.rank() * 4 + suit));
                }
            }
            (None, None) => break,
        }
    }
    wrong
}

/// The kept cards of the run after a false branch win: `kept` and the first card `line` got
/// wrong that `kept` does not hold yet (the refinement's step; see [`wrong_branches`]).
/// `None` if it names no such card (a line that fails on the deal always does: a kept card
/// is never branched).
pub fn next_kept(deal: &Deal, line: &[AbstractMove], kept: u64) -> Option<u64> {
    wrong_branches(deal, line)
        .into_iter()
        .map(|c| 1u64 << c)
        .find(|b| b & kept == 0)
        .map(|b| kept | b)
}

/// True if card `(suit, rank)` is one of the `kept` cards ([`QuotientOptions::kept`]).
#[inline]
const fn kept(kept: u64, rank: u8, suit: u8) -> bool {
    kept >> (rank * 4 + suit) & 1 != 0
}

/// A symbol: rank in the high bits, tag (a fixed card's suit, or [`UNFIXED`]) in the low 3.
#[inline]
const fn sym(rank: u8, tag: u8) -> u8 {
    rank << 3 | tag
}

/// Marks a foundation move in [`AMove::to`].
const FOUND: u8 = 0xF;
/// Marks "no branch" in [`AMove::bp`].
const NO_BRANCH: u8 = 0xF;

/// An abstract move, packed in 32 bits: source pile, target pile (or [`FOUND`]), cards
/// moved, and for a foundation move the suit and the branch (pile and index of the card
/// that becomes fixed, or [`NO_BRANCH`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
struct AMove(u32);

const _: () = assert!(std::mem::size_of::<AMove>() == 4);
const _: () = assert!(MAX_PILES < NO_BRANCH as usize && MAX_PILES < FOUND as usize);

impl AMove {
    #[inline]
    fn tableau(from: usize, to: usize, count: usize) -> AMove {
        debug_assert!(from < MAX_PILES && to < MAX_PILES && (1..=CAP).contains(&count));
        AMove(from as u32 | (to as u32) << 4 | (count as u32) << 8)
    }
    #[inline]
    fn home(from: usize, suit: u8, bp: u8, bq: u8) -> AMove {
        debug_assert!(from < MAX_PILES && suit < 4 && (bq as usize) < CAP);
        AMove(
            from as u32
                | u32::from(FOUND) << 4
                | 1 << 8
                | u32::from(suit) << 14
                | u32::from(bp) << 16
                | u32::from(bq) << 20,
        )
    }
    #[inline]
    fn from(self) -> usize {
        (self.0 & 0xF) as usize
    }
    #[inline]
    fn to(self) -> u8 {
        (self.0 >> 4 & 0xF) as u8
    }
    #[inline]
    fn count(self) -> usize {
        (self.0 >> 8 & 0x3F) as usize
    }
    #[inline]
    fn suit(self) -> u8 {
        (self.0 >> 14 & 3) as u8
    }
    #[inline]
    fn bp(self) -> u8 {
        (self.0 >> 16 & 0xF) as u8
    }
    #[inline]
    fn bq(self) -> usize {
        (self.0 >> 20 & 0x3F) as usize
    }
    /// The source pile's never-moved count before the move (set by [`Abs::apply`]).
    #[inline]
    fn prefix(self) -> u8 {
        (self.0 >> 26) as u8
    }
    #[inline]
    fn with_prefix(self, p: u8) -> AMove {
        debug_assert!((p as usize) <= CAP);
        AMove(self.0 & 0x03FF_FFFF | u32::from(p) << 26)
    }
}

/// The abstract position, mutated in place by `apply` / `undo`. Bytes above a pile's length
/// stay zero, so a pile's first eight bytes read as one word compare piles canonically.
#[derive(Clone)]
struct Abs {
    n: usize,
    len: [u8; MAX_PILES],
    pile: [[u8; CAP]; MAX_PILES],
    f: [u8; 4],
    home: u8,
    k: u8,
    unlimited: bool,
    /// Cards at the bottom of each pile never moved since the deal (pile `i` is where column
    /// `i` was dealt; piles never change places).
    prefix: [u8; MAX_PILES],
    /// Where each card was dealt (pile, index), by card code.
    dealt_at: [(u8, u8); 64],
    /// The dealt refinement is on.
    dealt: bool,
    /// Cards fixed whatever the window ([`QuotientOptions::kept`]).
    kept: u64,
}

impl Abs {
    fn new(deal: &Deal, k: u8, dealt: bool, kept: u64) -> Result<Abs, Refusal> {
        let r = &deal.rules;
        if r.build != Build::DownAnySuit {
            return Err(Refusal::Build);
        }
        if r.decks != 1 {
            return Err(Refusal::Decks);
        }
        if r.cells > 0 || !deal.reserve.is_empty() {
            return Err(Refusal::Cells);
        }
        if r.stock || !deal.stock.is_empty() || !deal.waste.is_empty() {
            return Err(Refusal::Stock);
        }
        if r.options.foundation_return {
            return Err(Refusal::FoundationReturn);
        }
        if deal.tableau.len() > MAX_PILES || deal.tableau.iter().any(|p| p.len() > CAP) {
            return Err(Refusal::TooLarge);
        }
        let k = k.clamp(1, KING);
        let mut f = [0u8; 4];
        f.copy_from_slice(&deal.foundations[..4]);
        let mut a = Abs {
            n: deal.tableau.len(),
            len: [0; MAX_PILES],
            pile: [[0; CAP]; MAX_PILES],
            f,
            home: f.iter().sum(),
            k,
            unlimited: r.options.sequence_moves == SequenceMoves::Unlimited,
            prefix: [0; MAX_PILES],
            dealt_at: [(NO_BRANCH, 0); 64],
            dealt,
            kept,
        };
        for (i, p) in deal.tableau.iter().enumerate() {
            for (q, c) in p.iter().enumerate() {
                a.pile[i][q] = a.symbol_of(c.rank(), c.suit_index() as u8);
                a.dealt_at[c.code() as usize] = (i as u8, q as u8);
            }
            a.len[i] = p.len() as u8;
            a.prefix[i] = p.len() as u8;
        }
        Ok(a)
    }

    /// The symbol of card `(suit, rank)` (not home) in this position.
    fn symbol_of(&self, rank: u8, suit: u8) -> u8 {
        let f = self.f[suit as usize];
        if f < rank && (rank <= f + self.k || kept(self.kept, rank, suit)) {
            sym(rank, suit)
        } else {
            sym(rank, UNFIXED)
        }
    }

    #[inline]
    fn top(&self, i: usize) -> u8 {
        let l = self.len[i] as usize;
        if l == 0 {
            0
        } else {
            self.pile[i][l - 1]
        }
    }

    #[inline]
    fn won(&self) -> bool {
        self.home == 4 * KING
    }

    /// True if the top card of pile `i` fits its foundation (it is then fixed).
    #[inline]
    fn fits(&self, c: u8) -> bool {
        let tag = c & 7;
        tag < UNFIXED && self.f[tag as usize] + 1 == c >> 3
    }

    /// The pile whose top card may go home at once (see "Safe autoplay" in the module docs).
    #[inline]
    fn safe_pile(&self) -> Option<usize> {
        let low = *self.f.iter().min().expect("four foundations");
        (0..self.n).find(|&i| {
            let c = self.top(i);
            c != 0 && self.fits(c) && c >> 3 <= low + 2
        })
    }

    /// Pushes the foundation move of pile `i`'s top card (which fits), one per branch.
    ///
    /// # Errors
    /// A broken invariant (see [`Broken`]): the card entering the window is not where the
    /// abstraction says it must be. Dropping the move instead would drop every position behind
    /// it, and a `Lost` would then prove nothing.
    #[inline]
    fn push_home(&self, i: usize, out: &mut Vec<AMove>) -> Result<(), Broken> {
        let c = self.top(i);
        let (rank, suit) = (c >> 3, c & 7);
        let r = rank + self.k;
        // Past the king, or a kept card (fixed already): nothing enters the window unknown.
        if r > KING || kept(self.kept, r, suit) {
            out.push(AMove::home(i, suit, NO_BRANCH, 0));
            return Ok(());
        }
        let want = sym(r, UNFIXED);
        if self.dealt {
            // Never moved: the card is where it was dealt, the one branch.
            let (p, q) = self.dealt_at[usize::from(r) * 4 + usize::from(suit)];
            if p != NO_BRANCH && q < self.prefix[p as usize] {
                if self.pile[p as usize][q as usize] != want {
                    return Err(Broken::DealtPlace);
                }
                out.push(AMove::home(i, suit, p, q));
                return Ok(());
            }
        }
        let before = out.len();
        for p in 0..self.n {
            // With the refinement, a card moved: not one in a pile's never-moved bottom.
            let from = if self.dealt {
                self.prefix[p] as usize
            } else {
                0
            };
            for q in from..self.len[p] as usize {
                if self.pile[p][q] == want {
                    out.push(AMove::home(i, suit, p as u8, q as u8));
                }
            }
        }
        if out.len() == before {
            return Err(Broken::NoBranch);
        }
        Ok(())
    }

    /// Pushes every move of a position with no safe move. `last`: the pile whose single-card
    /// moves the no-repeat rule leaves out.
    ///
    /// # Errors
    /// A broken invariant met by a foundation move ([`Abs::push_home`]).
    fn generate(&self, last: Option<usize>, out: &mut Vec<AMove>) -> Result<(), Broken> {
        let n = self.n;
        let mut by_rank = [0u16; 16];
        let mut first_empty = None;
        for i in 0..n {
            let c = self.top(i);
            if c == 0 {
                first_empty.get_or_insert(i);
                continue;
            }
            by_rank[(c >> 3) as usize] |= 1 << i;
            if self.fits(c) && last != Some(i) {
                self.push_home(i, out)?;
            }
        }
        for i in 0..n {
            let c = self.top(i);
            if c == 0 || last == Some(i) {
                continue;
            }
            let mut parents = by_rank[(c >> 3) as usize + 1] & !(1 << i);
            while parents != 0 {
                let j = parents.trailing_zeros() as usize;
                parents &= parents - 1;
                out.push(AMove::tableau(i, j, 1));
            }
        }
        if let Some(e) = first_empty {
            for i in 0..n {
                if self.len[i] > 1 && last != Some(i) {
                    out.push(AMove::tableau(i, e, 1));
                }
            }
        }
        if self.unlimited {
            for i in 0..n {
                let l = self.len[i] as usize;
                let p = &self.pile[i];
                let mut c = 2;
                while c <= l && p[l - c] >> 3 == (p[l - c + 1] >> 3) + 1 {
                    let bottom = p[l - c] >> 3;
                    let mut parents = by_rank[bottom as usize + 1] & !(1 << i);
                    while parents != 0 {
                        let j = parents.trailing_zeros() as usize;
                        parents &= parents - 1;
                        out.push(AMove::tableau(i, j, c));
                    }
                    if let Some(e) = first_empty {
                        if c < l {
                            out.push(AMove::tableau(i, e, c));
                        }
                    }
                    c += 1;
                }
            }
        }
        Ok(())
    }

    /// Plays `m` and returns it with the source pile's never-moved count before the move
    /// (which `undo` restores).
    #[inline]
    fn apply(&mut self, m: AMove) -> AMove {
        let from = m.from();
        let m = m.with_prefix(self.prefix[from]);
        let left = self.len[from] as usize - m.count();
        if (self.prefix[from] as usize) > left {
            self.prefix[from] = left as u8;
        }
        if m.to() == FOUND {
            let l = self.len[from] as usize - 1;
            debug_assert!(self.fits(self.pile[from][l]));
            self.pile[from][l] = 0;
            self.len[from] = l as u8;
            let s = m.suit();
            self.f[s as usize] += 1;
            self.home += 1;
            if m.bp() != NO_BRANCH {
                let cell = &mut self.pile[m.bp() as usize][m.bq()];
                debug_assert_eq!(*cell & 7, UNFIXED);
                *cell = *cell & !7 | s;
            }
        } else {
            let to = m.to() as usize;
            let c = m.count();
            let (lf, lt) = (self.len[from] as usize, self.len[to] as usize);
            for q in 0..c {
                self.pile[to][lt + q] = self.pile[from][lf - c + q];
                self.pile[from][lf - c + q] = 0;
            }
            self.len[from] = (lf - c) as u8;
            self.len[to] = (lt + c) as u8;
        }
        m
    }

    /// Takes back a move as [`Abs::apply`] returned it.
    #[inline]
    fn undo(&mut self, m: AMove) {
        let from = m.from();
        self.prefix[from] = m.prefix();
        if m.to() == FOUND {
            let s = m.suit();
            if m.bp() != NO_BRANCH {
                let cell = &mut self.pile[m.bp() as usize][m.bq()];
                *cell = *cell & !7 | UNFIXED;
            }
            let rank = self.f[s as usize];
            self.f[s as usize] -= 1;
            self.home -= 1;
            let l = self.len[from] as usize;
            self.pile[from][l] = sym(rank, s);
            self.len[from] += 1;
        } else {
            let to = m.to() as usize;
            let c = m.count();
            let (lf, lt) = (self.len[from] as usize, self.len[to] as usize);
            for q in 0..c {
                self.pile[from][lf + q] = self.pile[to][lt - c + q];
                self.pile[to][lt - c + q] = 0;
            }
            self.len[from] = (lf + c) as u8;
            self.len[to] = (lt - c) as u8;
        }
    }
}

/// The code of every symbol under the foundations `f` (see "The key" in the module docs):
/// `(value, bits)` with the rank in the value's high part.
struct Codes {
    f: [u8; 4],
    code: [(u32, u32); 128],
}

impl Codes {
    fn new() -> Codes {
        Codes {
            f: [0xFF; 4],
            code: [(0, 0); 128],
        }
    }

    #[inline]
    fn update(&mut self, f: [u8; 4], k: u8, kept_cards: u64) {
        if f == self.f {
            return;
        }
        self.f = f;
        let fixed = |s: u8, r: u8| {
            let h = f[s as usize];
            h < r && (r <= h + k || kept(kept_cards, r, s))
        };
        for r in 1..=KING {
            let mut options = 0u32;
            let mut index = [0u32; 5];
            for s in 0..4u8 {
                if fixed(s, r) {
                    index[s as usize] = options;
                    options += 1;
                }
            }
            let unfixed = (0..4u8).any(|s| f[s as usize] + k < r && !kept(kept_cards, r, s));
            index[UNFIXED as usize] = options;
            if unfixed {
                options += 1;
            }
            let bits = 32 - options.saturating_sub(1).leading_zeros();
            for tag in 0..5u8 {
                // A symbol no position under `f` can hold (a suit not fixed at this rank, or
                // "unfixed" where every card is fixed) gets a value too wide for its field:
                // `Bits::put` flags it, and the key is refused (see `Broken::Code`).
                let valid = if tag == UNFIXED {
                    unfixed
                } else {
                    fixed(tag, r)
                };
                self.code[sym(r, tag) as usize] = if valid {
                    (u32::from(r) << bits | index[tag as usize], 4 + bits)
                } else {
                    (u32::MAX, 4 + bits)
                };
            }
        }
    }
}

/// Writes bits most significant first into a fixed buffer.
struct Bits {
    words: [u64; LONG_WORDS + 1],
    at: usize,
    acc: u64,
    used: u32,
    /// A value wider than its field was put: its high bits would have run into the field
    /// before and merged two positions' keys (see `Broken::Code`).
    wide: bool,
}

impl Bits {
    #[inline]
    fn new() -> Bits {
        Bits {
            words: [0; LONG_WORDS + 1],
            at: 0,
            acc: 0,
            used: 0,
            wide: false,
        }
    }

    /// Puts the low `bits` (at most 32) of `value`; a `value` with more bits set marks the
    /// key as broken ([`Bits::finish`]), in every build.
    #[inline]
    fn put(&mut self, value: u64, bits: u32) {
        debug_assert!(bits <= 32);
        self.wide |= value >> bits != 0;
        let value = value & ((1u64 << bits) - 1);
        if self.used + bits <= 64 {
            self.acc = if bits == 0 {
                self.acc
            } else {
                self.acc << bits | value
            };
            self.used += bits;
        } else {
            let fit = 64 - self.used;
            let rest = bits - fit;
            let head = value >> rest;
            self.words[self.at] = if fit == 0 {
                self.acc
            } else {
                self.acc << fit | head
            };
            self.at += 1;
            self.acc = value & ((1u64 << rest) - 1);
            self.used = rest;
        }
    }

    /// The words and the number of bits written.
    ///
    /// # Errors
    /// [`Broken::Code`] if a value was wider than its field.
    #[inline]
    fn finish(mut self) -> Result<([u64; LONG_WORDS + 1], usize), Broken> {
        if self.wide {
            return Err(Broken::Code);
        }
        let bits = self.at * 64 + self.used as usize;
        if self.used > 0 {
            self.words[self.at] = self.acc << (64 - self.used);
        }
        Ok((self.words, bits))
    }
}

/// The position's key: its words and its length in bits.
///
/// # Errors
/// [`Broken::Code`]: a symbol the foundations do not allow, whose code would merge keys.
#[inline]
fn key_of(a: &Abs, codes: &mut Codes) -> Result<([u64; LONG_WORDS + 1], usize), Broken> {
    codes.update(a.f, a.k, a.kept);
    let n = a.n;
    // Piles sorted by (length, cards): the first eight bytes as one word decide almost
    // every comparison.
    let mut head = [0u64; MAX_PILES];
    let mut order = [0u8; MAX_PILES];
    let mut free = 0;
    for i in 0..n {
        if a.dealt && a.prefix[i] > 0 {
            continue;
        }
        let b: [u8; 8] = a.pile[i][..8].try_into().expect("eight bytes");
        head[i] = u64::from(a.len[i]) << 56 | u64::from_be_bytes(b) >> 8;
        let mut at = free;
        while at > 0 && Search::less(a, &head, i, order[at - 1] as usize) {
            order[at] = order[at - 1];
            at -= 1;
        }
        order[at] = i as u8;
        free += 1;
    }
    let mut w = Bits::new();
    w.put(1, 1);
    for s in 0..4 {
        w.put(u64::from(a.f[s]), 4);
    }
    if a.dealt {
        // Each column's never-moved count, then what lies on it (see the module docs).
        for i in 0..n {
            w.put(u64::from(a.prefix[i]), 6);
        }
        for i in 0..n {
            let p = a.prefix[i] as usize;
            if p == 0 {
                continue;
            }
            let l = a.len[i] as usize;
            w.put((l - p) as u64, 6);
            for &c in &a.pile[i][p..l] {
                let (v, b) = codes.code[c as usize];
                w.put(u64::from(v), b);
            }
        }
    }
    let mut prev = 0;
    for &i in &order[..free] {
        let l = u32::from(a.len[i as usize]);
        // `l - prev` zeros, then a one (at most 52 zeros: two puts).
        let gap = l - prev;
        if gap > 31 {
            w.put(0, gap - 31);
            w.put(1, 32);
        } else {
            w.put(1, gap + 1);
        }
        prev = l;
    }
    for &i in &order[..free] {
        let i = i as usize;
        for &c in &a.pile[i][..a.len[i] as usize] {
            let (v, b) = codes.code[c as usize];
            w.put(u64::from(v), b);
        }
    }
    w.finish()
}

/// A map from exact keys of `W` words to a `u32`, in [`PARTS`] open-addressing parts chosen
/// by the key's hash, each growing on its own (see [`Part`]). The value is the position's
/// place in Tarjan's order while its component is open, [`PROVED`] once it is closed (see
/// "Proofs that outlive a run" in the module docs). A slot names its part and its place there
/// ([`SLOT_BITS`]).
///
/// A part that doubles holds its old and new arrays at once; with one array for the whole
/// table a run could fill at most a third of its budget (sa 99776's run with 17 cards kept
/// was refused a growth at 9,072 of 12,000 MiB). With eight parts a growth needs an eighth of
/// that room, and the parts, filled evenly by the hash, grow one after the other.
struct Table<const W: usize> {
    parts: Vec<Part<W>>,
}

/// One part of a [`Table`]: linear probing on the hash's bits below the part's own (the
/// all-zero key marks an empty slot, and every key starts with a one bit).
struct Part<const W: usize> {
    slots: Vec<[u64; W]>,
    vals: Vec<u32>,
    len: usize,
    shift: u32,
}

/// Parts of a [`Table`]: the hash's top `PART_BITS` bits choose one.
const PART_BITS: u32 = 3;
const PARTS: usize = 1 << PART_BITS;
/// A [`Table`]'s slot is its part's number shifted by `SLOT_BITS`, plus the place in the part.
const SLOT_BITS: u32 = 56;
/// The place in the part, of a [`Table`]'s slot.
const SLOT_PLACE: usize = (1 << SLOT_BITS) - 1;
/// Slots of a part's first array: the parts of a table start as one array of 4,096 did, the
/// size of most of a deal's short runs.
const PART_FIRST: usize = (1 << 12) / PARTS;

#[inline]
fn hash_words(words: &[u64]) -> u64 {
    let mut h = 0x243F_6A88_85A3_08D3u64;
    for &w in words {
        h = (h ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= h >> 32;
    }
    h = h.wrapping_mul(0xD6E8_FEB8_6659_FD93);
    h ^ h >> 32
}

/// A slot's bytes: the key and its value.
const fn slot_bytes(words: usize) -> usize {
    words * 8 + 4
}

impl<const W: usize> Part<W> {
    fn new() -> Self {
        Part {
            slots: Vec::new(),
            vals: Vec::new(),
            len: 0,
            shift: 64,
        }
    }

    fn bytes(&self) -> usize {
        self.slots.len() * W * 8 + self.vals.len() * 4
    }

    /// Bytes after the next growth.
    fn grown_bytes(&self) -> usize {
        (self.slots.len() * 2).max(PART_FIRST) * slot_bytes(W)
    }

    fn needs_growth(&self) -> bool {
        (self.len + 1) * 4 > self.slots.len() * 3
    }

    /// An empty part of `cap` slots (a power of two), with values if `vals`.
    fn with_capacity(cap: usize, vals: bool) -> Self {
        let mut p = Part::new();
        p.slots = vec![[0; W]; cap];
        advise_huge_pages(&mut p.slots);
        if vals {
            p.vals = vec![0; cap];
            advise_huge_pages(&mut p.vals);
        }
        p.shift = 64 - cap.trailing_zeros();
        p
    }

    /// Doubles the part; returns its old keys (by their old places).
    fn grow(&mut self) -> Vec<[u64; W]> {
        let cap = (self.slots.len() * 2).max(PART_FIRST);
        let fresh = Part::with_capacity(cap, true);
        let old = std::mem::replace(self, fresh);
        for (key, &v) in old.slots.iter().zip(&old.vals) {
            if key[0] != 0 {
                let at = self.place(key, hash_words(key) << PART_BITS);
                self.vals[at] = v;
                self.len += 1;
            }
        }
        old.slots
    }

    /// The place holding `key` (`h`: its hash without the part's bits), or the empty place
    /// where it would go; true if it holds it.
    #[inline]
    fn find(&self, key: &[u64; W], h: u64) -> (usize, bool) {
        if self.slots.is_empty() {
            return (0, false);
        }
        let mask = self.slots.len() - 1;
        let mut i = (h >> self.shift) as usize;
        loop {
            let slot = &self.slots[i];
            if slot[0] == 0 {
                return (i, false);
            }
            if slot == key {
                return (i, true);
            }
            i = (i + 1) & mask;
        }
    }

    /// Puts a key not in the part at its empty place; returns the place.
    #[inline]
    fn place(&mut self, key: &[u64; W], h: u64) -> usize {
        let (i, there) = self.find(key, h);
        debug_assert!(!there);
        self.slots[i] = *key;
        i
    }

    /// The part of this one's keys whose value is [`PROVED`], without values.
    fn proved_only(mut self) -> Self {
        let n = self.vals.iter().filter(|&&v| v == PROVED).count();
        if n == self.len {
            self.vals = Vec::new();
            return self;
        }
        if n == 0 {
            return Part::new();
        }
        let mut cap = PART_FIRST;
        while (n + 1) * 4 > cap * 3 {
            cap *= 2;
        }
        let mut t = Part::with_capacity(cap, false);
        for (key, &v) in self.slots.iter().zip(&self.vals) {
            if key[0] != 0 && v == PROVED {
                t.place(key, hash_words(key) << PART_BITS);
                t.len += 1;
            }
        }
        t
    }
}

impl<const W: usize> Table<W> {
    fn new() -> Self {
        Table {
            parts: (0..PARTS).map(|_| Part::new()).collect(),
        }
    }

    fn bytes(&self) -> usize {
        self.parts.iter().map(Part::bytes).sum()
    }

    /// Keys held.
    fn len(&self) -> usize {
        self.parts.iter().map(|p| p.len).sum()
    }

    /// The part that holds a key of hash `h` (`hash_words` of the key).
    #[inline]
    fn part_of(h: u64) -> usize {
        (h >> (64 - PART_BITS)) as usize
    }

    /// Bytes part `part` holds after its next growth.
    fn grown_bytes(&self, part: usize) -> usize {
        self.parts[part].grown_bytes()
    }

    fn needs_growth(&self, part: usize) -> bool {
        self.parts[part].needs_growth()
    }

    /// Doubles part `part`; returns its old keys (by their old places) so that the caller can
    /// find where the ones it holds by slot went.
    fn grow(&mut self, part: usize) -> Vec<[u64; W]> {
        self.parts[part].grow()
    }

    /// The slot holding `key`, or the empty slot where it would go; true if it holds it.
    #[inline]
    fn find(&self, key: &[u64; W]) -> (usize, bool) {
        self.find_hashed(key, hash_words(key))
    }

    /// [`Table::find`] of a key whose hash `h` is known.
    #[inline]
    fn find_hashed(&self, key: &[u64; W], h: u64) -> (usize, bool) {
        let part = Self::part_of(h);
        let (i, there) = self.parts[part].find(key, h << PART_BITS);
        (part << SLOT_BITS | i, there)
    }

    /// Inserts `key` of hash `h`; its slot, and true if it was new. The caller grows its
    /// part first when [`Table::needs_growth`].
    #[inline]
    fn insert(&mut self, key: &[u64; W], h: u64) -> (usize, bool) {
        debug_assert!(key[0] != 0);
        let (slot, there) = self.find_hashed(key, h);
        if !there {
            let p = &mut self.parts[slot >> SLOT_BITS];
            p.slots[slot & SLOT_PLACE] = *key;
            p.len += 1;
        }
        (slot, !there)
    }

    /// The value at `slot` (a slot [`Table::find`] or [`Table::insert`] gave).
    #[inline]
    fn val(&mut self, slot: usize) -> &mut u32 {
        &mut self.parts[slot >> SLOT_BITS].vals[slot & SLOT_PLACE]
    }

    /// The table of this one's proved keys alone (see [`PROVED`]), each part sized for them
    /// as [`Table::needs_growth`] would grow it, without values (every key it holds is proved:
    /// [`Table::find`] answers). While a part is built both its arrays are held.
    fn proved_only(self) -> Self {
        Table {
            parts: self.parts.into_iter().map(Part::proved_only).collect(),
        }
    }

    /// True if no part holds values (see [`Table::proved_only`]).
    #[cfg(test)]
    fn has_values(&self) -> bool {
        self.parts.iter().any(|p| !p.vals.is_empty())
    }

    /// Asks the processor to bring the first slot of a key of hash `h` into the cache
    /// ([`prefetch`]: a hint, it changes no result), so that the lookups of one position in
    /// several tables wait for memory together instead of one after the other.
    #[inline]
    fn prefetch(&self, h: u64) {
        let p = &self.parts[Self::part_of(h)];
        if !p.slots.is_empty() {
            prefetch(&p.slots[((h << PART_BITS) >> p.shift) as usize]);
        }
    }
}

/// A position [`Search::enter`] stored: its table (true: the long one) and slot, whether it
/// is new, and its key (words and length in bits), which earlier runs' proofs may need.
struct Entered {
    long: bool,
    slot: usize,
    new: bool,
    words: [u64; LONG_WORDS + 1],
    bits: usize,
}

/// After part `part` of `table` grew: moves the entries of Tarjan's `stack` that are in it
/// (`long` says which table) from their places in `old` to their slots now.
fn remap<const W: usize>(
    stack: &mut [u64],
    long: bool,
    table: &Table<W>,
    part: usize,
    old: &[[u64; W]],
) {
    for at in stack
        .iter_mut()
        .filter(|at| (**at & 1 == 1) == long && (**at >> 1) as usize >> SLOT_BITS == part)
    {
        let (slot, there) = table.find(&old[(*at >> 1) as usize & SLOT_PLACE]);
        debug_assert!(there);
        *at = open_at(long, slot);
    }
}

/// One position on the search path: its untried moves are `moves[next..end]` (its list
/// starts where the frame below it ends), and `via` is the move that entered it.
/// Its place in Tarjan's order is `index` ([`UNSTORED`] for a position with a safe move,
/// which is not stored), and `low` the least place of an open position its subtree reached.
#[derive(Clone, Copy)]
struct Frame {
    next: u32,
    end: u32,
    via: Option<AMove>,
    index: u32,
    low: u32,
}

/// Most earlier runs the store keeps ([`Proved::keep_best`]): the oldest, the newest, and of
/// the others those that proved the most positions. A new position costs one key per earlier
/// run with another abstraction: with every earlier run, beleaguered-castle 1..200 took 5.8 s
/// against 4.2 s before the proofs were carried (`castle bench -v bc`, one build after the
/// other; the same nodes within 0.2%: the time was the keys of up to dozens of runs), and on
/// streets-and-alleys 99776 with eight runs kept a run took 1.6 times as long for the same
/// positions. The oldest run is the coarsest (the kept cards only grow), so each of its
/// proofs stands for the most positions of a later run, which stores them only along its own
/// path: keeping the newest four instead, 99776's sixth run had not ended after three minutes
/// where it took 5.7 s; keeping the newest and the largest, its 16th run ran out of 16 GiB at
/// 102 million positions, where with the oldest it ends (a false win) at 21.5 million in 83 s
/// (`cargo run --release --example quotient -- --variant sa --seed 99776 -k 2 --refine 400
/// --refine-step 1 --proved --repeat`; every earlier run: 19.6 million in 232 s). Dropping a
/// run loses no proof a run relies on (it only skips less). A kept run keeps its proved
/// positions alone ([`Table::proved_only`]).
const PROOF_RUNS: usize = 4;

/// A [`Table`] value: the position's component is closed, and it is lost (see "Proofs that
/// outlive a run" in the module docs).
const PROVED: u32 = u32::MAX;
/// [`Frame::index`] of a position with a safe move.
const UNSTORED: u32 = u32::MAX;

/// The positions earlier runs on one deal proved lost, kept for the runs after them (see
/// "Proofs that outlive a run" in the module docs): each run's tables, with the window and
/// kept cards it ran with. A run with a window at least as wide and every card they kept
/// kept skips a position whose image under an earlier run's abstraction that run proved.
#[derive(Default)]
pub struct Proved {
    runs: Vec<Level>,
}

/// One earlier run's tables (see [`Proved`]).
struct Level {
    k: u8,
    dealt: bool,
    kept: u64,
    /// Positions it proved lost.
    proofs: usize,
    codes: Codes,
    main: Table<MAIN_WORDS>,
    long: Table<LONG_WORDS>,
}

impl Level {
    fn bytes(&self) -> usize {
        self.main.bytes() + self.long.bytes()
    }

    /// True if a run with window `k`, refinement `dealt` and kept cards `kept` may use this
    /// run's proofs: its abstraction keeps everything this one keeps.
    fn coarser_than(&self, k: u8, dealt: bool, kept: u64) -> bool {
        self.dealt == dealt && self.k <= k && self.kept & !kept == 0
    }

    /// The key of `a`'s image under this run's abstraction: `a` with every card this run
    /// would not have fixed made unfixed (see "Proofs that outlive a run"); `words` and
    /// `bits` are `a`'s own key, the image's when the abstraction is the same.
    ///
    /// # Errors
    /// [`Broken::Code`], as [`key_of`].
    fn key(
        &mut self,
        a: &Abs,
        words: &[u64; LONG_WORDS + 1],
        bits: usize,
    ) -> Result<([u64; LONG_WORDS + 1], usize), Broken> {
        if self.k == a.k && self.kept == a.kept {
            return Ok((*words, bits));
        }
        let mut b = a.clone();
        b.k = self.k;
        b.kept = self.kept;
        let (f, k, kept_cards) = (b.f, self.k, self.kept);
        for i in 0..b.n {
            let l = b.len[i] as usize;
            for c in &mut b.pile[i][..l] {
                let (rank, tag) = (*c >> 3, *c & 7);
                // A card not home is fixed here as in `Abs::symbol_of`.
                if tag < UNFIXED && !(rank <= f[tag as usize] + k || kept(kept_cards, rank, tag)) {
                    *c = sym(rank, UNFIXED);
                }
            }
        }
        key_of(&b, &mut self.codes)
    }

    /// [`Table::prefetch`] of the table that would hold a key of `bits` bits; returns the
    /// key's hash there, for [`Level::holds`].
    #[inline]
    fn prefetch(&self, words: &[u64; LONG_WORDS + 1], bits: usize) -> u64 {
        if bits <= MAIN_WORDS * 64 {
            let h = hash_words(&words[..MAIN_WORDS]);
            self.main.prefetch(h);
            h
        } else {
            let h = hash_words(&words[..LONG_WORDS]);
            if bits <= LONG_WORDS * 64 {
                self.long.prefetch(h);
            }
            h
        }
    }

    /// True if this run proved lost the position of key `words` (of `bits` bits and hash `h`,
    /// from [`Level::key`] and [`Level::prefetch`]): its tables hold proved keys alone
    /// ([`Table::proved_only`]).
    #[inline]
    fn holds(&self, words: &[u64; LONG_WORDS + 1], bits: usize, h: u64) -> bool {
        if bits <= MAIN_WORDS * 64 {
            let key = words[..MAIN_WORDS].try_into().expect("words");
            self.main.find_hashed(key, h).1
        } else {
            let key = words[..LONG_WORDS].try_into().expect("words");
            bits <= LONG_WORDS * 64 && self.long.find_hashed(key, h).1
        }
    }
}

impl Proved {
    /// No run yet.
    pub fn new() -> Self {
        Proved::default()
    }

    /// Bytes the kept runs' tables hold.
    pub fn bytes(&self) -> usize {
        self.runs.iter().map(Level::bytes).sum()
    }

    /// Runs kept.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Keeps at most [`PROOF_RUNS`] runs: the oldest (the coarsest), the newest, and of the
    /// others those that proved the most positions (dropping a run's proofs only makes the
    /// next runs skip less).
    fn keep_best(&mut self) {
        while self.runs.len() > PROOF_RUNS {
            let newest = self.runs.len() - 1;
            let worst = (1..newest)
                .min_by_key(|&i| self.runs[i].proofs)
                .expect("more than one run");
            self.runs.remove(worst);
        }
    }

    /// Forgets every run (the runs after it search without their proofs: slower, as sound).
    pub fn clear(&mut self) {
        self.runs.clear();
    }
}

/// Packs a position on Tarjan's stack: its table and slot.
#[inline]
fn open_at(long: bool, slot: usize) -> u64 {
    (slot as u64) << 1 | u64::from(long)
}

struct Search<'a> {
    a: Abs,
    opts: &'a QuotientOptions,
    stop: &'a AtomicBool,
    deadline: Option<Instant>,
    codes: Codes,
    main: Table<MAIN_WORDS>,
    long: Table<LONG_WORDS>,
    frames: Vec<Frame>,
    moves: Vec<AMove>,
    positions: u64,
    nodes: u64,
    peak_bytes: usize,
    depth: usize,
    /// The move that won, if one did (see [`Search::line`]).
    won_by: Option<AMove>,
    /// The certificate pass's members, when it runs (see [`search_collect`]).
    collect: Option<Collector>,
    /// Tarjan's stack: the stored positions whose component is not closed yet
    /// ([`open_at`]).
    tarjan: Vec<u64>,
    /// The next stored position's place in Tarjan's order.
    next_index: u32,
    /// Earlier runs whose proofs this one uses ([`Proved`]).
    earlier: Vec<Level>,
    /// The earlier runs' proofs were freed for room ([`Search::drop_earlier`]).
    dropped: bool,
    /// New positions an earlier run had proved lost (not searched).
    pruned: u64,
    /// Positions whose component this run closed.
    closed: u64,
}

impl<'a> Search<'a> {
    fn new(a: Abs, opts: &'a QuotientOptions, stop: &'a AtomicBool, t0: Instant) -> Self {
        Search {
            a,
            opts,
            stop,
            deadline: crate::Limits {
                max_seconds: opts.max_seconds,
                ..crate::Limits::default()
            }
            .deadline(t0),
            codes: Codes::new(),
            main: Table::new(),
            long: Table::new(),
            frames: Vec::with_capacity(1 << 12),
            moves: Vec::with_capacity(1 << 16),
            positions: 0,
            nodes: 0,
            peak_bytes: 0,
            depth: 0,
            won_by: None,
            collect: None,
            tarjan: Vec::new(),
            next_index: 0,
            earlier: Vec::new(),
            dropped: false,
            pruned: 0,
            closed: 0,
        }
    }

    fn path_bytes(&self) -> usize {
        self.frames.capacity() * std::mem::size_of::<Frame>()
            + self.moves.capacity() * std::mem::size_of::<AMove>()
            + self.tarjan.capacity() * 8
    }

    fn bytes(&self) -> usize {
        self.main.bytes()
            + self.long.bytes()
            + self.earlier.iter().map(Level::bytes).sum::<usize>()
            + self.path_bytes()
            + self.collect.as_ref().map_or(0, |c| c.members.bytes())
    }

    /// The position's key: its words and its length in bits.
    ///
    /// # Errors
    /// [`Broken::Code`]: a symbol the foundations do not allow, whose code would merge keys.
    #[inline]
    fn key(&mut self) -> Result<([u64; LONG_WORDS + 1], usize), Broken> {
        key_of(&self.a, &mut self.codes)
    }

    /// Pile `i` before pile `j` in the key's order.
    #[inline]
    fn less(a: &Abs, head: &[u64; MAX_PILES], i: usize, j: usize) -> bool {
        if head[i] != head[j] {
            return head[i] < head[j];
        }
        let l = a.len[i] as usize;
        l > 7 && a.pile[i][7..l] < a.pile[j][7..l]
    }

    /// Stores the position's key (see [`Entered`]).
    #[inline]
    fn enter(&mut self) -> Result<Entered, Halt> {
        let (words, bits) = self.key().map_err(Halt::Broken)?;
        let long = bits > MAIN_WORDS * 64;
        let (slot, new) = if !long {
            self.store(|s| &mut s.main, false, &words)?
        } else if bits <= LONG_WORDS * 64 {
            self.store(|s| &mut s.long, true, &words)?
        } else {
            return Err(Halt::Broken(Broken::KeyLength));
        };
        Ok(Entered {
            long,
            slot,
            new,
            words,
            bits,
        })
    }

    /// Inserts the first `W` of `words` in the table `table` picks (`long`: the long one),
    /// growing the key's part first if it needs it (within the budget, moving Tarjan's
    /// entries of that part to their new slots); the slot, and true if the key is new.
    #[inline]
    fn store<const W: usize>(
        &mut self,
        table: impl Fn(&mut Self) -> &mut Table<W>,
        long: bool,
        words: &[u64; LONG_WORDS + 1],
    ) -> Result<(usize, bool), Halt> {
        let key: [u64; W] = words[..W].try_into().expect("words");
        let h = hash_words(&key);
        let part = Table::<W>::part_of(h);
        if table(self).needs_growth(part) {
            let grown = table(self).grown_bytes(part);
            self.grow_check(grown)?;
            let old = table(self).grow(part);
            let mut tarjan = std::mem::take(&mut self.tarjan);
            remap(&mut tarjan, long, table(self), part, &old);
            self.tarjan = tarjan;
        }
        Ok(table(self).insert(&key, h))
    }

    #[inline]
    fn val(&mut self, long: bool, slot: usize) -> &mut u32 {
        if long {
            self.long.val(slot)
        } else {
            self.main.val(slot)
        }
    }

    /// Closes the component whose root has place `index`: every position above it on
    /// Tarjan's stack is proved lost.
    fn close(&mut self, index: u32) {
        while let Some(&at) = self.tarjan.last() {
            let (long, slot) = (at & 1 == 1, (at >> 1) as usize);
            let v = self.val(long, slot);
            if *v < index {
                break;
            }
            *v = PROVED;
            self.tarjan.pop();
            self.closed += 1;
        }
    }

    /// True if an earlier run proved the position on the board lost ([`Proved`]); `words`
    /// and `bits` are its key in this run.
    fn earlier_proves(&mut self, words: &[u64; LONG_WORDS + 1], bits: usize) -> Result<bool, Halt> {
        // Every earlier run's key first, each table's slot asked for as it is known, then
        // the lookups: their cache misses overlap (they were most of a refining run's time).
        for chunk in self.earlier.chunks_mut(PROOF_RUNS) {
            let mut keys = [([0u64; LONG_WORDS + 1], 0usize, 0u64); PROOF_RUNS];
            for (level, key) in chunk.iter_mut().zip(&mut keys) {
                let (w, b) = level.key(&self.a, words, bits).map_err(Halt::Broken)?;
                *key = (w, b, level.prefetch(&w, b));
            }
            if chunk
                .iter()
                .zip(&keys)
                .any(|(level, (w, b, h))| level.holds(w, *b, *h))
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Fails if a table growing to `new_bytes` (while its old array is still held) would
    /// pass the memory budget.
    fn grow_check(&mut self, new_bytes: usize) -> Result<(), QuotientLimit> {
        let mut total = self.bytes() + new_bytes;
        if total > self.opts.max_bytes && self.drop_earlier() {
            total = self.bytes() + new_bytes;
        }
        if total > self.opts.max_bytes {
            return Err(QuotientLimit::Memory);
        }
        self.peak_bytes = self.peak_bytes.max(total);
        Ok(())
    }

    fn check(&mut self) -> Result<(), QuotientLimit> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(QuotientLimit::Stopped);
        }
        if self.opts.max_nodes.is_some_and(|m| self.nodes >= m) {
            return Err(QuotientLimit::Nodes);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(QuotientLimit::Seconds);
        }
        let mut b = self.bytes();
        self.peak_bytes = self.peak_bytes.max(b);
        if b > self.opts.max_bytes && self.drop_earlier() {
            b = self.bytes();
        }
        if b > self.opts.max_bytes {
            return Err(QuotientLimit::Memory);
        }
        Ok(())
    }

    /// Frees the earlier runs' proofs for the room this run needs; false if it held none.
    /// The run goes on as sound: the positions it skipped stay proved (their proofs were
    /// proofs), and it only skips no more (see "Which runs are kept" in the module docs).
    fn drop_earlier(&mut self) -> bool {
        if self.earlier.is_empty() {
            return false;
        }
        self.earlier = Vec::new();
        self.dropped = true;
        true
    }

    /// Opens a frame for the position just entered by `via`: its safe move's branches if it
    /// has one, else (if it is new) all its moves. `Ok(false)`: already in the table.
    #[inline]
    fn open(&mut self, via: Option<AMove>) -> Result<bool, Halt> {
        self.nodes += 1;
        let start = self.moves.len();
        let safe = if self.opts.autoplay {
            self.a.safe_pile()
        } else {
            None
        };
        let (mut index, mut low) = (UNSTORED, UNSTORED);
        if let Some(i) = safe {
            self.a.push_home(i, &mut self.moves).map_err(Halt::Broken)?;
        } else {
            let Entered {
                long,
                slot,
                new,
                words,
                bits,
            } = self.enter()?;
            if !new {
                // An edge to a stored position: if its component is open, the parent's
                // component cannot close before it.
                let v = *self.val(long, slot);
                if let Some(top) = self.frames.last_mut() {
                    top.low = top.low.min(v);
                }
                self.nodes -= 1;
                return Ok(false);
            }
            if self.earlier_proves(&words, bits)? {
                *self.val(long, slot) = PROVED;
                self.pruned += 1;
                self.nodes -= 1;
                return Ok(false);
            }
            if self.next_index == PROVED - 1 {
                return Err(Halt::Limit(QuotientLimit::Memory));
            }
            index = self.next_index;
            self.next_index += 1;
            low = index;
            *self.val(long, slot) = index;
            self.tarjan.push(open_at(long, slot));
            self.positions += 1;
            if let Some(c) = &mut self.collect {
                c.keep(&self.a);
            }
            // No repeat: only after a single tableau move with nothing played after it.
            let last = via
                .filter(|m| self.opts.no_repeat && m.to() != FOUND && m.count() == 1)
                .map(|m| m.to() as usize);
            if last.is_some() {
                // The moves no-repeat leaves out are searched from the parent (see the
                // module docs): this position's proof waits on the parent's.
                if let Some(parent) = self.frames.last() {
                    low = low.min(parent.index);
                }
            }
            self.a
                .generate(last, &mut self.moves)
                .map_err(Halt::Broken)?;
        }
        // Frames hold 32-bit places in the move stack.
        if self.moves.len() >= u32::MAX as usize {
            return Err(Halt::Limit(QuotientLimit::Memory));
        }
        self.frames.push(Frame {
            next: start as u32,
            end: self.moves.len() as u32,
            via,
            index,
            low,
        });
        self.depth = self.depth.max(self.frames.len());
        Ok(true)
    }

    /// The moves from the deal to the position on top of the path, after a win: the move
    /// into each frame, then the winning move (applied, never opened), `won_by`.
    fn line(&self) -> Vec<AbstractMove> {
        self.frames
            .iter()
            .filter_map(|f| f.via)
            .chain(self.won_by)
            .map(|m| AbstractMove {
                from: m.from() as u8,
                to: (m.to() != FOUND).then(|| m.to()),
                count: m.count() as u8,
                suit: (m.to() == FOUND).then(|| m.suit()),
            })
            .collect()
    }

    fn run(&mut self) -> QuotientVerdict {
        match self.dfs() {
            Ok(v) => v,
            Err(Halt::Limit(l)) => QuotientVerdict::Limit(l),
            Err(Halt::Broken(why)) => QuotientVerdict::Broken(why),
        }
    }

    fn dfs(&mut self) -> Result<QuotientVerdict, Halt> {
        if self.a.won() {
            return Ok(QuotientVerdict::BranchWin);
        }
        self.check()?;
        self.open(None)?;
        let mut next_check = self.nodes + CHECK_EVERY;
        while let Some(top) = self.frames.last_mut() {
            if top.next == top.end {
                let done = self.frames.pop().expect("a frame");
                let start = self.frames.last().map_or(0, |f| f.end as usize);
                self.moves.truncate(start);
                if let Some(m) = done.via {
                    self.a.undo(m);
                }
                if done.index != UNSTORED && done.low == done.index {
                    self.close(done.index);
                }
                if let Some(parent) = self.frames.last_mut() {
                    parent.low = parent.low.min(done.low);
                }
                continue;
            }
            let m = self.moves[top.next as usize];
            top.next += 1;
            let m = self.a.apply(m);
            if self.a.won() {
                self.won_by = Some(m);
                return Ok(QuotientVerdict::BranchWin);
            }
            if !self.open(Some(m))? {
                self.a.undo(m);
            }
            if self.nodes >= next_check {
                next_check = self.nodes + CHECK_EVERY;
                self.check()?;
            }
        }
        Ok(QuotientVerdict::Lost)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::rules::Variant;
    use std::cell::Cell;

    thread_local! {
        /// Set by a test: the next search on this thread starts from a broken position (see
        /// [`trip_next_search`]).
        static TRIP: Cell<bool> = const { Cell::new(false) };
    }

    /// Makes the next quotient search on this thread start from a broken position (every
    /// three turned into a four: the first foundation move that brings a three into a window
    /// finds none, see [`Broken::NoBranch`] and [`Broken::DealtPlace`]), so that a test of
    /// the schedule sees what a broken invariant does to a solve.
    pub(crate) fn trip_next_search() {
        TRIP.with(|t| t.set(true));
    }

    pub(super) fn tripped(mut a: Abs) -> Abs {
        if TRIP.with(|t| t.replace(false)) {
            forget_rank(&mut a, 3);
        }
        a
    }

    /// Turns every symbol of rank `r` into one of rank `r + 1` known by rank: the position no
    /// longer holds the cards a foundation move may bring into a window.
    fn forget_rank(a: &mut Abs, r: u8) {
        for i in 0..a.n {
            for q in 0..a.len[i] as usize {
                if a.pile[i][q] >> 3 == r {
                    a.pile[i][q] = sym(r + 1, UNFIXED);
                }
            }
        }
    }

    /// Streets-and-alleys deal 1 with the ace of clubs moved to the top of the first pile:
    /// it goes home at once (a safe move), and the three of clubs enters the window `k = 2`.
    pub(crate) fn ace_on_top() -> Deal {
        let mut deal = Deal::from_seed(Variant::StreetsAndAlleys.rules(), 1);
        let ace = crate::card::Card::new(1, crate::card::Suit::Clubs);
        let (i, q) = deal
            .tableau
            .iter()
            .enumerate()
            .find_map(|(i, p)| p.iter().position(|&c| c == ace).map(|q| (i, q)))
            .expect("the ace is dealt");
        let top = *deal.tableau[0].last().expect("a card");
        deal.tableau[i][q] = top;
        *deal.tableau[0].last_mut().expect("a card") = ace;
        deal
    }

    fn run_on(a: Abs, opts: &QuotientOptions) -> QuotientVerdict {
        let stop = AtomicBool::new(false);
        let mut s = Search::new(a, opts, &stop, Instant::now());
        s.run()
    }

    /// A foundation move that finds no place for the card entering the window ends the run
    /// as `Broken`, never `Lost` (it used to be a `debug_assert`: in release the move, and
    /// every position behind it, was dropped).
    #[test]
    fn a_foundation_move_with_no_branch_breaks_the_run() {
        let opts = QuotientOptions {
            k: 2,
            dealt: false,
            ..QuotientOptions::default()
        };
        let mut a = Abs::new(&ace_on_top(), 2, false, 0).unwrap();
        assert_eq!(run_on(a.clone(), &opts), QuotientVerdict::Lost);
        forget_rank(&mut a, 3);
        assert_eq!(run_on(a, &opts), QuotientVerdict::Broken(Broken::NoBranch));
    }

    /// With the dealt refinement, the card entering the window from its never-moved place
    /// must be there.
    #[test]
    fn a_card_missing_from_its_dealt_place_breaks_the_run() {
        let opts = QuotientOptions {
            k: 2,
            ..QuotientOptions::default()
        };
        let mut a = Abs::new(&ace_on_top(), 2, true, 0).unwrap();
        let (p, q) = a.dealt_at[3 * 4];
        assert!(
            q < a.prefix[p as usize],
            "the three of clubs is never moved"
        );
        a.pile[p as usize][q as usize] = sym(3, 1);
        assert_eq!(
            run_on(a, &opts),
            QuotientVerdict::Broken(Broken::DealtPlace)
        );
    }

    /// A symbol the foundations do not allow (a suit kept at a rank outside its window) has
    /// no code of its own: the key is refused instead of sharing another position's.
    #[test]
    fn a_code_that_does_not_fit_breaks_the_run() {
        let opts = QuotientOptions {
            k: 2,
            dealt: false,
            ..QuotientOptions::default()
        };
        let deal = Deal::from_seed(Variant::StreetsAndAlleys.rules(), 1);
        let mut a = Abs::new(&deal, 2, false, 0).unwrap();
        let stop = AtomicBool::new(false);
        let mut s = Search::new(a.clone(), &opts, &stop, Instant::now());
        assert!(s.key().is_ok());
        // A nine with its suit kept while every foundation is empty (window: ranks 1, 2).
        let (i, q) = (0..a.n)
            .find_map(|i| {
                (0..a.len[i] as usize)
                    .find(|&q| a.pile[i][q] >> 3 == 9)
                    .map(|q| (i, q))
            })
            .expect("a nine");
        a.pile[i][q] = sym(9, 2);
        let mut s = Search::new(a.clone(), &opts, &stop, Instant::now());
        assert_eq!(s.key(), Err(Broken::Code));
        assert_eq!(run_on(a, &opts), QuotientVerdict::Broken(Broken::Code));
    }

    /// A finished run's table kept for the next runs holds its proved keys and nothing else:
    /// every one found proved, no other key found at all.
    #[test]
    fn a_kept_table_holds_exactly_the_proved_keys() {
        let mut t = Table::<2>::new();
        let key = |i: u64| [1 << 63 | i, i * 7];
        for i in 0..20_000 {
            let h = hash_words(&key(i));
            let part = Table::<2>::part_of(h);
            if t.needs_growth(part) {
                t.grow(part);
            }
            let (at, new) = t.insert(&key(i), h);
            assert!(new);
            *t.val(at) = if i % 5 == 0 { PROVED } else { i as u32 };
        }
        // Every key where it was put, with its value, after the parts' growths.
        for i in 0..20_000 {
            let (at, there) = t.find(&key(i));
            assert!(there, "key {i}");
            assert_eq!(*t.val(at), if i % 5 == 0 { PROVED } else { i as u32 });
        }
        assert_eq!(t.len(), 20_000);
        let before = t.bytes();
        let kept = t.proved_only();
        assert_eq!(kept.len(), 4_000);
        assert!(kept.bytes() < before, "it saves room");
        assert!(!kept.has_values(), "every key it holds is proved");
        for i in 0..20_000 {
            assert_eq!(kept.find(&key(i)).1, i % 5 == 0, "key {i}");
        }
        // Nothing proved: nothing kept.
        let mut t = Table::<2>::new();
        let h = hash_words(&key(1));
        t.grow(Table::<2>::part_of(h));
        t.insert(&key(1), h);
        let kept = t.proved_only();
        assert_eq!((kept.len(), kept.bytes()), (0, 0));
    }

    /// The store keeps the oldest run, the newest and, of the others, those that proved the
    /// most.
    #[test]
    fn the_store_keeps_the_oldest_and_newest_runs_and_the_largest_proofs() {
        let level = |kept: u64, proofs: usize| Level {
            k: 2,
            dealt: true,
            kept,
            proofs,
            codes: Codes::new(),
            main: Table::new(),
            long: Table::new(),
        };
        let mut p = Proved::new();
        for (i, proofs) in [3, 5, 40, 7, 60, 1].into_iter().enumerate() {
            p.runs.push(level(i as u64, proofs));
            p.keep_best();
        }
        let kept: Vec<(u64, usize)> = p.runs.iter().map(|l| (l.kept, l.proofs)).collect();
        assert_eq!(kept, [(0, 3), (2, 40), (4, 60), (5, 1)]);
    }

    /// Bits wider than their field are refused, whatever they are.
    #[test]
    fn a_value_wider_than_its_field_is_refused() {
        let mut w = Bits::new();
        w.put(0b11, 2);
        assert!(w.finish().is_ok());
        let mut w = Bits::new();
        w.put(0b100, 2);
        assert_eq!(w.finish(), Err(Broken::Code));
    }

    #[test]
    fn bits_pack_most_significant_first() {
        let mut w = Bits::new();
        w.put(1, 1);
        w.put(0b101, 3);
        for _ in 0..20 {
            w.put(0xABC, 12);
        }
        let (words, bits) = w.finish().expect("fields that fit");
        assert_eq!(bits, 4 + 240);
        let mut want = vec![true, true, false, true];
        for _ in 0..20 {
            for b in (0..12).rev() {
                want.push(0xABC >> b & 1 == 1);
            }
        }
        for (i, &b) in want.iter().enumerate() {
            assert_eq!(words[i / 64] >> (63 - i % 64) & 1 == 1, b, "bit {i}");
        }
    }

    /// The key against a slow canonical form (the sorted piles of symbols and the
    /// foundations) on random walks: equal keys exactly when equal forms, and `undo`
    /// restores every position.
    #[test]
    fn keys_are_exact_and_undo_restores() {
        use crate::rules::Variant;
        use std::collections::HashMap;
        type Slow = (Vec<Option<(u8, Vec<u8>)>>, Vec<Vec<u8>>, [u8; 4]);
        // With the dealt refinement, piles with never-moved cards by column; the rest sorted.
        let slow = |a: &Abs| -> Slow {
            let column = |i: usize| a.dealt && a.prefix[i] > 0;
            let cols = (0..a.n)
                .map(|i| column(i).then(|| (a.prefix[i], a.pile[i][..a.len[i] as usize].to_vec())))
                .collect();
            let mut p: Vec<Vec<u8>> = (0..a.n)
                .filter(|&i| !column(i))
                .map(|i| a.pile[i][..a.len[i] as usize].to_vec())
                .collect();
            p.sort();
            (cols, p, a.f)
        };
        let opts = QuotientOptions::default();
        let stop = AtomicBool::new(false);
        let mut rng = 0x1234_5678_9ABC_DEF1u64;
        let mut next = |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as usize
        };
        let mut walked = 0;
        for (variant, start, unlimited) in [
            (Variant::BeleagueredCastle, None, false),
            (Variant::StreetsAndAlleys, None, true),
            (Variant::Citadel, None, false),
            (Variant::BeleagueredCastle, Some(5), true),
        ] {
            let mut rules = variant.rules();
            if let Some(r) = start {
                rules = rules.with_start_rank(r).unwrap();
            }
            if unlimited {
                rules = rules.with_sequence_moves(SequenceMoves::Unlimited);
            }
            for (k, dealt) in [
                (1, false),
                (2, false),
                (3, false),
                (13, false),
                (2, true),
                (3, true),
            ] {
                let mut by_key: HashMap<Vec<u64>, Slow> = HashMap::new();
                let mut by_slow: HashMap<Slow, Vec<u64>> = HashMap::new();
                for seed in 1..6 {
                    // The refinement's keys name columns: they compare within one deal.
                    if dealt {
                        by_key.clear();
                        by_slow.clear();
                    }
                    let deal = Deal::from_seed(rules, seed);
                    let mut s = Search::new(
                        Abs::new(&deal, k, dealt, 0).unwrap(),
                        &opts,
                        &stop,
                        Instant::now(),
                    );
                    for _ in 0..400 {
                        let (words, bits) = s.key().expect("a valid key");
                        let key = words[..bits.div_ceil(64)].to_vec();
                        let form = slow(&s.a);
                        assert_eq!(by_key.entry(key.clone()).or_insert(form.clone()), &form);
                        assert_eq!(by_slow.entry(form).or_insert(key.clone()), &key);
                        let mut list = Vec::new();
                        s.a.generate(None, &mut list).expect("moves");
                        if list.is_empty() {
                            break;
                        }
                        for &m in &list {
                            let before = slow(&s.a);
                            let raw = (s.a.pile, s.a.prefix);
                            let played = s.a.apply(m);
                            s.a.undo(played);
                            assert_eq!((slow(&s.a), (s.a.pile, s.a.prefix)), (before, raw));
                        }
                        s.a.apply(list[next(list.len())]);
                        walked += 1;
                    }
                }
            }
        }
        assert!(walked > 5000, "{walked} moves walked");
    }

    #[test]
    fn moves_pack_and_unpack() {
        let m = AMove::tableau(11, 3, 17);
        assert_eq!((m.from(), m.to(), m.count()), (11, 3, 17));
        let h = AMove::home(7, 2, 11, 51);
        assert_eq!(
            (h.from(), h.to(), h.suit(), h.bp(), h.bq()),
            (7, FOUND, 2, 11, 51)
        );
        let h = AMove::home(0, 3, NO_BRANCH, 0);
        assert_eq!((h.suit(), h.bp()), (3, NO_BRANCH));
    }
}
