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
//! [`QuotientVerdict::BRANCH_WIN`] with its line ([`QuotientResult::line`]); the caller plays
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
//! the schedule's exact search may find a win of the deal (`schedule::quotient_phase::solve_prefix`).
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
pub use super::{End, Limit};
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
    /// How the search ended: `Exhausted` ([`QuotientVerdict::LOST`]) when no reachable
    /// abstract position is won, which proves the deal lost; `Won` ([`QuotientVerdict::BRANCH_WIN`])
    /// when a won abstract position was reached, which may rest on a branch no concrete play
    /// matches and so proves nothing (its line is [`QuotientResult::line`]); a cut is never a
    /// verdict.
    End(End<()>),
    /// The rules are not ones the quotient applies to.
    NotApplicable(Refusal),
    /// A check that guards the proof failed (a bug): the run proves nothing, and the solve
    /// that ran it ends as an error (see [`Broken`]).
    Broken(Broken),
}

impl QuotientVerdict {
    /// No reachable abstract position is won: the deal is lost (a proof).
    pub const LOST: QuotientVerdict = QuotientVerdict::End(End::Exhausted);
    /// A won abstract position was reached (proves nothing).
    pub const BRANCH_WIN: QuotientVerdict = QuotientVerdict::End(End::Won(()));
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

/// Why the search stopped before its verdict: a cut, or a broken invariant.
enum Halt {
    Limit(Limit),
    Broken(Broken),
}

impl From<Limit> for Halt {
    fn from(l: Limit) -> Halt {
        Halt::Limit(l)
    }
}

impl QuotientVerdict {
    /// The name used in outputs: `lost`, `branch-win`, `limit-nodes`, ..., `not-applicable`.
    pub fn name(self) -> &'static str {
        match self {
            QuotientVerdict::LOST => "lost",
            QuotientVerdict::BRANCH_WIN => "branch-win",
            QuotientVerdict::End(End::Cut(Limit::Nodes)) => "limit-nodes",
            QuotientVerdict::End(End::Cut(Limit::Seconds)) => "limit-seconds",
            QuotientVerdict::End(End::Cut(Limit::Memory)) => "limit-memory",
            QuotientVerdict::End(End::Cut(Limit::Stopped)) => "stopped",
            QuotientVerdict::End(End::Cut(Limit::Disk)) => "limit-disk",
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
    let keep = Keep { encoder, cap: None };
    let (r, members) = run_search(deal, opts, stop, Some(keep), None);
    (r, members.unwrap_or_default())
}

/// [`search_proved`] that also keeps every position it stores, as [`search_collect`] does,
/// for the certificate pass to take instead of searching the same positions again
/// ([`super::certify::certify_from`]). The members come back only when they are a
/// certificate's: the run proved the loss without skipping a position an earlier run had
/// proved (`pruned` 0, nothing dropped), so that every position it stored had all its moves
/// followed within the run. The search is the same, node for node: the members are not
/// counted in `max_bytes` but held to `cap` bytes beside it, and a run that would hold more
/// gives them up and goes on.
pub fn search_proved_collect(
    deal: &Deal,
    opts: &QuotientOptions,
    stop: &AtomicBool,
    proved: &mut Proved,
    encoder: crate::certificate::quotient::Quotient,
    cap: usize,
) -> (QuotientResult, Option<crate::certificate::Members>) {
    let keep = Keep {
        encoder,
        cap: Some(cap),
    };
    let (r, members) = run_search(deal, opts, stop, Some(keep), Some(proved));
    let whole = r.verdict == QuotientVerdict::LOST && r.pruned == 0 && !r.dropped;
    (r, members.filter(|_| whole))
}

/// What a collecting run keeps its members with: the certificate's encoder, and the bytes
/// they may hold outside the run's budget (`None`: counted in it).
struct Keep {
    encoder: crate::certificate::quotient::Quotient,
    cap: Option<usize>,
}

fn run_search(
    deal: &Deal,
    opts: &QuotientOptions,
    stop: &AtomicBool,
    keep: Option<Keep>,
    mut proved: Option<&mut Proved>,
) -> (QuotientResult, Option<crate::certificate::Members>) {
    let t0 = Instant::now();
    let mut out = QuotientResult {
        verdict: QuotientVerdict::LOST,
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
            let root = tests::tripped(root, opts.k);
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
            s.collect = keep.map(|k| Collector {
                encoder: k.encoder,
                members: crate::certificate::Members::new(),
                buf: Vec::new(),
                cap: k.cap,
                gave_up: false,
            });
            out.verdict = s.run();
            if out.verdict == QuotientVerdict::BRANCH_WIN {
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
                    QuotientVerdict::LOST
                        | QuotientVerdict::Broken(_)
                        | QuotientVerdict::End(End::Cut(Limit::Memory))
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
            members = s.collect.filter(|c| !c.gave_up).map(|c| c.members);
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
    /// Bytes the members may hold outside the run's budget (`None`: they count in it).
    cap: Option<usize>,
    /// The members outgrew `cap` and were given up.
    gave_up: bool,
}

impl Collector {
    /// The bytes the run's budget counts.
    fn counted_bytes(&self) -> usize {
        match self.cap {
            Some(_) => 0,
            None => self.members.bytes(),
        }
    }

    /// Keeps `a` as a member.
    fn keep(&mut self, a: &Abs) {
        if self.gave_up {
            return;
        }
        if self.cap.is_some_and(|cap| self.members.bytes() > cap) {
            self.gave_up = true;
            self.members = crate::certificate::Members::new();
            return;
        }
        const NONE: [u8; MAX_PILES] = [0; MAX_PILES];
        let unmoved = if a.dealt { &a.prefix } else { &NONE };
        self.encoder
            .encode_parts(&a.f, &a.len, &a.pile, unmoved, &mut self.buf);
        self.members.push(&self.buf);
    }
}

mod abs;
mod lines;
mod proved;
mod search;
mod table;
#[cfg(test)]
pub(crate) mod tests;

use abs::*;
use lines::*;
pub use lines::{concrete_line, concrete_prefix, next_kept, wrong_branch_places, wrong_branches};
pub use proved::Proved;
use proved::*;
use search::*;
use table::*;
