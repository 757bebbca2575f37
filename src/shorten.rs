//! Solution shortening: a depth-first win often wanders (a card moved and moved back, a
//! detour that comes back to a position already seen). This pass works on the move list
//! alone, with the independent checker's boards, so it can only return moves that replay:
//!
//! 1. **Loop cutting.** Replaying the moves visits positions `p0, p1, ..., pn`. When `pj`
//!    equals an earlier `pi` (the same cards in the same physical piles, cells, stock,
//!    waste and foundations), the moves `i+1..=j` are dropped: from `pi` the rest of the
//!    list replays exactly as it did from `pj`, because the boards are equal.
//! 2. **Merging.** Two consecutive single-card moves of one card, `c: A -> B` then
//!    `c: B -> C`, become `c: A -> C` when the checker accepts that move from the position
//!    before them; the position after is the same board (a card that went `A -> A` is a
//!    loop, and step 1 removes it).
//!
//! 3. **Loops through other piles.** A position that comes back with its tableau piles in
//!    other columns (cards carried round the empty piles and back: the same piles, permuted)
//!    is a loop too: the moves between are dropped and the rest of the list renamed by the
//!    permutation. The rules do not depend on a pile's column, but this step does not lean on
//!    that: a cut is kept only when the rest of the list, renamed, replays to a win from the
//!    earlier position.
//! 4. **Excursions.** A card moved `A -> B` and next moved `B -> C` some moves later (other
//!    cards moving in between): the first move is dropped and the second becomes `A -> C`
//!    (or is dropped too when `C` is `A`: the card went round and back). Kept only when the
//!    changed list replays to a win from the position before the first move.
//!
//! 5. **Shortcuts.** On a line longer than [`SHORTCUT_MOVES_PER_CARD`] moves per card out
//!    (a search that wandered: the exact quotient's lines run to tens of thousands of
//!    moves), from each board every sequence of up to [`SHORTCUT_DEPTH`] legal moves is
//!    tried; one that reaches a later board of the line (its piles maybe in other columns)
//!    in fewer moves replaces the moves between, the rest renamed as in step 3. Kept only
//!    when the whole list replays to a win.
//!
//! The steps repeat until nothing changes. The list given is replayed first, and the result
//! once more: a failure of either is a [`ShortenError`] (a bug in the caller or here), never a
//! silent fallback to an unchecked line.

use crate::check::{check_win, Board, CheckError, Step};
use crate::deal::Deal;
use crate::moves::Move;
use crate::pile::Pile;
use ahash::HashMap;

fn move_of(s: &Step) -> Move {
    Move {
        card: s.card,
        from: s.from.index(),
        to: s.to.index(),
        count: s.count as u8,
    }
}

/// Appends a length-prefixed list of bytes to `v`.
fn push_list(v: &mut Vec<u8>, cards: impl Iterator<Item = u8>) {
    let at = v.len();
    v.push(0);
    for c in cards {
        v.push(c);
        v[at] += 1;
    }
}

/// The board as bytes: equal bytes, equal boards (every list is length-prefixed).
fn board_bytes(b: &Board) -> Vec<u8> {
    let mut v = Vec::with_capacity(96);
    for p in &b.tableau {
        push_list(&mut v, p.iter().map(|c| c.code()));
    }
    push_rest(&mut v, b);
    v
}

/// Appends the board's bytes, the tableau left out.
fn push_rest(v: &mut Vec<u8>, b: &Board) {
    push_list(v, b.reserve.iter().map(|c| c.map_or(0, |c| c.code())));
    push_list(v, b.waste.iter().map(|c| c.code()));
    v.push(b.stock.len() as u8);
    for f in &b.foundations {
        v.push(f.len() as u8);
        v.push(f.last().map_or(0, |c| c.code()));
    }
}

/// One pass of loop cutting (step 1 of the module docs).
fn cut_loops(deal: &Deal, steps: Vec<Step>) -> Vec<Step> {
    let mut board = Board::new(deal);
    let mut seen: HashMap<Vec<u8>, usize> = HashMap::default();
    seen.insert(board_bytes(&board), 0);
    // `kept[k]` is the k-th kept step; `keys[k]` the board after the first k kept steps.
    let mut kept: Vec<Step> = Vec::with_capacity(steps.len());
    let mut keys: Vec<Vec<u8>> = vec![board_bytes(&board)];
    for s in steps {
        board.play(&s).expect("the moves replay");
        let key = board_bytes(&board);
        if let Some(&i) = seen.get(&key) {
            // Back at the board after `i` kept steps: drop everything since.
            for k in keys.drain(i + 1..) {
                seen.remove(&k);
            }
            kept.truncate(i);
        } else {
            kept.push(s);
            seen.insert(key.clone(), kept.len());
            keys.push(key);
        }
    }
    kept
}

/// One pass of merging (step 2 of the module docs).
fn merge(deal: &Deal, steps: Vec<Step>) -> Vec<Step> {
    let mut board = Board::new(deal);
    let mut out: Vec<Step> = Vec::with_capacity(steps.len());
    let mut it = steps.into_iter().peekable();
    while let Some(s) = it.next() {
        if let Some(next) = it.peek() {
            if s.count == 1 && next.count == 1 && next.card == s.card && next.from == s.to {
                let joined = Step::single(s.card, s.from, next.to);
                let mut trial = board.clone();
                if s.from != next.to && trial.play(&joined).is_ok() {
                    let mut two = board.clone();
                    two.play(&s).expect("the moves replay");
                    two.play(next).expect("the moves replay");
                    if two == trial {
                        it.next();
                        board = trial;
                        out.push(joined);
                        continue;
                    }
                }
            }
        }
        board.play(&s).expect("the moves replay");
        out.push(s);
    }
    out
}

/// True when `steps`, played from `board`, are legal and win.
fn wins_from(board: &Board, steps: &[Step]) -> bool {
    let mut b = board.clone();
    steps.iter().all(|s| b.play(s).is_ok()) && b.cards_out() == 0
}

/// The board's key with the tableau piles in sorted order (the columns forgotten), and the
/// piles' contents in column order.
fn pile_blind_key(b: &Board) -> Vec<u8> {
    let mut piles: Vec<&[crate::Card]> = b.tableau.iter().map(Vec::as_slice).collect();
    piles.sort_unstable();
    let mut v = Vec::with_capacity(96);
    for p in piles {
        v.push(p.len() as u8);
        v.extend(p.iter().map(|c| c.code()));
    }
    push_rest(&mut v, b);
    v
}

/// `sigma[p]`: the column of `earlier` that holds what column `p` of `later` holds (the two
/// boards have the same piles, permuted).
fn permutation(later: &Board, earlier: &Board) -> Vec<usize> {
    let mut used = vec![false; earlier.tableau.len()];
    later
        .tableau
        .iter()
        .map(|pile| {
            let q = (0..earlier.tableau.len())
                .find(|&q| !used[q] && earlier.tableau[q] == *pile)
                .expect("boards with the same pile-blind key");
            used[q] = true;
            q
        })
        .collect()
}

/// A step with its tableau piles renamed by `sigma` (`tN` becomes `t(sigma[N-1]+1)`).
fn renamed(s: &Step, sigma: &[usize]) -> Step {
    let name = |p: Pile| match p {
        Pile::Tableau(k) => Pile::Tableau(sigma[usize::from(k)] as u8),
        p => p,
    };
    Step {
        card: s.card,
        from: name(s.from),
        to: name(s.to),
        count: s.count,
    }
}

/// One cut of step 3 of the module docs, if there is one that replays.
///
/// Each board is looked up by [`pile_blind_hash`] first; a board whose hash was seen is
/// compared by key with the earlier boards of that hash, played again (matches are few;
/// keeping every board would cost a copy per move). Equal keys have equal hashes, so the
/// cuts tried are those of a lookup by key, in the same order.
fn cut_permuted_loop(deal: &Deal, steps: &[Step], clock: &Clock) -> Option<Vec<Step>> {
    let mut board = Board::new(deal);
    // Each hash's boards of distinct keys, by the number of moves before them (the first
    // board of each key).
    let mut seen: ahash::HashMap<u64, Vec<usize>> = ahash::HashMap::default();
    seen.insert(pile_blind_hash(&board), vec![0]);
    let played = |n: usize| -> Option<Board> {
        let mut b = Board::new(deal);
        for s in &steps[..n] {
            b.play(s).ok()?;
        }
        Some(b)
    };
    for (k, s) in steps.iter().enumerate() {
        if clock.out() {
            return None;
        }
        board.play(s).ok()?;
        let hash = pile_blind_hash(&board);
        let Some(firsts) = seen.get(&hash) else {
            seen.insert(hash, vec![k + 1]);
            continue;
        };
        let key = pile_blind_key(&board);
        let mut found = None;
        for &i in firsts {
            let earlier = played(i)?;
            if pile_blind_key(&earlier) == key {
                found = Some((i, earlier));
                break;
            }
        }
        let Some((i, earlier)) = found else {
            seen.get_mut(&hash).expect("seen").push(k + 1);
            continue;
        };
        let sigma = permutation(&board, &earlier);
        let rest: Vec<Step> = steps[k + 1..].iter().map(|s| renamed(s, &sigma)).collect();
        if wins_from(&earlier, &rest) {
            let mut out = steps[..i].to_vec();
            out.extend(rest);
            return Some(out);
        }
    }
    None
}

/// The farthest apart two moves of a card may be for step 4 to try them.
const EXCURSION: usize = 24;

/// One pass of step 4 of the module docs. A changed list is kept when its moves up to the
/// changed one replay and leave the board the original moves left there: from that board the
/// rest of the list replays as it did.
fn cut_excursions(deal: &Deal, mut steps: Vec<Step>, clock: &Clock) -> Vec<Step> {
    let mut board = Board::new(deal);
    // The two trial boards, kept across the trials to reuse their piles.
    let mut original = board.clone();
    let mut changed = board.clone();
    let mut i = 0;
    // Out of time, the list as it stands (every change so far was checked) is the answer.
    while i < steps.len() && !clock.out() {
        let s = &steps[i];
        // Within EXCURSION moves: further apart, the cards between nearly always depend on
        // the move (and each trial replays the moves between).
        let end = steps.len().min(i + 1 + EXCURSION);
        let next = (i + 1..end).find(|&j| steps[j].card == s.card);
        if let Some(j) = next.filter(|&j| s.count == 1 && steps[j].count == 1 && j > i + 1) {
            let mut trial: Vec<Step> = steps[i + 1..=j].to_vec();
            let last = trial.len() - 1;
            if trial[last].to == s.from {
                trial.pop();
            } else {
                trial[last] = Step::single(s.card, s.from, trial[last].to);
            }
            original.clone_from(&board);
            changed.clone_from(&board);
            if steps[i..=j].iter().all(|s| original.play(s).is_ok())
                && trial.iter().all(|s| changed.play(s).is_ok())
                && changed == original
            {
                steps.splice(i..=j, trial);
                continue;
            }
        }
        board.play(&steps[i]).expect("the moves replay");
        i += 1;
    }
    steps
}

/// Lines longer than this many moves per card out get step 5 (see [`cut_shortcuts`]).
pub const SHORTCUT_MOVES_PER_CARD: usize = 8;

/// Most moves of a shortcut (step 5).
pub const SHORTCUT_DEPTH: usize = 2;

/// Step 5 of the module docs, one pass along the line: from the board before each move,
/// every sequence of at most `depth` legal moves (the checker's [`Board::legal_steps`]); the
/// one that reaches the latest board of the line (pile-blind, as in step 3) in fewer moves
/// than the line takes there replaces those moves, and the moves after it are renamed by the
/// columns' permutation. The list returned replays to a win (checked here; if it did not,
/// the list given comes back unchanged).
///
/// The boards tried outnumber the line's a thousand to one and nearly none is on the line, so
/// each is first looked up by [`pile_blind_hash`] among the line's boards' hashes: equal keys
/// have equal hashes, so the filter drops only boards whose key is not the line's, and the
/// shortcuts taken are those of the plain lookup (`tests::the_hash_filter_takes_the_same_shortcuts`
/// runs both).
fn cut_shortcuts(deal: &Deal, steps: Vec<Step>, depth: usize, clock: &Clock) -> Vec<Step> {
    cut_shortcuts_with(deal, steps, depth, clock, true)
}

/// [`cut_shortcuts`], with the hash filter or without it (every board looked up by its key:
/// the tests' reference).
fn cut_shortcuts_with(
    deal: &Deal,
    steps: Vec<Step>,
    depth: usize,
    clock: &Clock,
    filter: bool,
) -> Vec<Step> {
    let mut boards = Vec::with_capacity(steps.len() + 1);
    boards.push(Board::new(deal));
    for s in &steps {
        let mut b = boards.last().expect("a board").clone();
        b.play(s).expect("the moves replay");
        boards.push(b);
    }
    // The last index of each board's pile-blind key: the farthest a shortcut can reach.
    let mut last: HashMap<Vec<u8>, usize> = HashMap::default();
    let mut hashes: ahash::HashSet<u64> = ahash::HashSet::default();
    for (j, b) in boards.iter().enumerate() {
        last.insert(pile_blind_key(b), j);
        hashes.insert(pile_blind_hash(b));
    }
    let mut out: Vec<Step> = Vec::with_capacity(steps.len());
    let mut board = Board::new(deal);
    // Scratch boards for the shortcuts tried: where a path stands, and one move further.
    let (mut from, mut to) = (board.clone(), board.clone());
    // Column `p` of the line's boards is column `sigma[p]` of `board` (the same piles).
    let mut sigma: Vec<usize> = (0..board.tableau.len()).collect();
    let mut i = 0;
    while i < steps.len() {
        // The shortcut saving the most moves, the first found of those (breadth first, in the
        // checker's order of moves): (moves saved, board index reached, its moves, the board).
        let mut best: Option<(usize, usize, Vec<Step>, Board)> = None;
        let mut consider = |to: &Board, path: &[Step], s: Step, d: usize| {
            if filter && !hashes.contains(&pile_blind_hash(to)) {
                return;
            }
            if let Some(&j) = last.get(&pile_blind_key(to)) {
                let saved = j.saturating_sub(i + d);
                if saved > best.as_ref().map_or(0, |b| b.0) {
                    let mut p = path.to_vec();
                    p.push(s);
                    best = Some((saved, j, p, to.clone()));
                }
            }
        };
        // The paths of each level, breadth first; a path's board is played again on `from`
        // when its moves are tried (a move or two: cheaper than keeping a board per path).
        let mut frontier: Vec<Vec<Step>> = vec![Vec::new()];
        // Out of time, no more shortcuts: the rest of the line follows as it is.
        let depth = if clock.out() { 0 } else { depth };
        for d in 1..=depth {
            let mut next = Vec::new();
            for path in &frontier {
                from.clone_from(&board);
                for s in path {
                    from.play(s).expect("the path's moves replay");
                }
                from.for_each_successor(&mut to, |s, to| {
                    consider(to, path, s, d);
                    if d < depth {
                        let mut p = path.clone();
                        p.push(s);
                        next.push(p);
                    }
                });
            }
            frontier = next;
        }
        if let Some((_, j, path, reached)) = best {
            sigma = permutation(&boards[j], &reached);
            out.extend(path);
            board = reached;
            i = j;
        } else {
            let s = renamed(&steps[i], &sigma);
            if board.play(&s).is_err() {
                return steps;
            }
            out.push(s);
            i += 1;
        }
    }
    // Every shortcut saves a move: a list as long as the one given has none.
    if out.len() == steps.len() || check_win(deal, &out).is_err() {
        return steps;
    }
    out
}

/// A hash of [`pile_blind_key`]'s bytes' meaning: each tableau pile's cards hashed in
/// order, the piles' hashes summed (so the columns do not count), then the rest of the board.
/// Equal keys give equal hashes; no allocation, no sort.
fn pile_blind_hash(b: &Board) -> u64 {
    fn mix(mut z: u64) -> u64 {
        // splitmix64's finaliser: the piles' sum needs each pile's hash well spread.
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn fold(h: u64, c: u8) -> u64 {
        h.wrapping_mul(0x0100_0000_01b3)
            .wrapping_add(u64::from(c) + 1)
    }
    let mut sum = 0u64;
    for p in &b.tableau {
        let h = p.iter().fold(p.len() as u64, |h, c| fold(h, c.code()));
        sum = sum.wrapping_add(mix(h));
    }
    let mut h = b.reserve.len() as u64;
    for c in &b.reserve {
        h = fold(h, c.map_or(0, |c| c.code()));
    }
    h = fold(h, b.waste.len() as u8);
    for c in &b.waste {
        h = fold(h, c.code());
    }
    h = fold(h, b.stock.len() as u8);
    for f in &b.foundations {
        h = fold(h, f.len() as u8);
        h = fold(h, f.last().map_or(0, |c| c.code()));
    }
    sum.wrapping_add(mix(h ^ 0x5bd1_e995))
}

/// Why [`shorten`] returned no line.
#[derive(Debug, thiserror::Error)]
pub enum ShortenError {
    /// The list given does not win from the deal.
    #[error("the line to shorten does not win")]
    NotAWin(#[source] CheckError),
    /// The shortened list does not replay (a bug here).
    #[error("the shortened line does not replay")]
    Broken(#[source] CheckError),
}

/// A shorter winning move list for `deal` (never a longer one): see the module docs.
///
/// # Errors
/// [`ShortenError::NotAWin`] if `moves` does not win from `deal`;
/// [`ShortenError::Broken`] if the result would not (a bug).
pub fn shorten(deal: &Deal, moves: &[Move]) -> Result<Vec<Move>, ShortenError> {
    Ok(shorten_with(deal, moves, true, None)?.moves)
}

/// What [`shorten_until`] returns: the shortest line it has, and whether it got to the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shortened {
    /// A winning line, never longer than the one given (replayed by the checker).
    pub moves: Vec<Move>,
    /// True when the deadline stopped the steps before they had nothing left to cut (the
    /// line is the best one so far: shorter ones may exist that [`shorten`] would find).
    pub cut: bool,
}

/// [`shorten`] within a deadline: each step is checked before it is kept, so the line the
/// steps have reached when the deadline passes wins like any (it is replayed once more all
/// the same). A line of 21,442 moves (streets-and-alleys 679's first win) takes 7 s whole;
/// a `--max-seconds` solve must not take that much past its budget.
///
/// # Errors
/// As [`shorten`].
pub fn shorten_until(
    deal: &Deal,
    moves: &[Move],
    deadline: Option<std::time::Instant>,
) -> Result<Shortened, ShortenError> {
    shorten_with(deal, moves, true, deadline)
}

/// When the steps must stop: a deadline, read from the clock every few calls (a step's
/// inner loops ask once a move).
struct Clock {
    deadline: Option<std::time::Instant>,
    calls: std::cell::Cell<u32>,
    out: std::cell::Cell<bool>,
}

impl Clock {
    fn new(deadline: Option<std::time::Instant>) -> Clock {
        Clock {
            deadline,
            calls: std::cell::Cell::new(0),
            out: std::cell::Cell::new(false),
        }
    }

    /// True once the deadline has passed (and from then on).
    fn out(&self) -> bool {
        let Some(deadline) = self.deadline else {
            return false;
        };
        if !self.out.get() {
            let n = self.calls.get().wrapping_add(1);
            self.calls.set(n);
            if n % 16 == 0 && std::time::Instant::now() >= deadline {
                self.out.set(true);
            }
        }
        self.out.get()
    }
}

/// [`shorten_until`], with step 5 (shortcuts) on long lines or never.
fn shorten_with(
    deal: &Deal,
    moves: &[Move],
    shortcuts: bool,
    deadline: Option<std::time::Instant>,
) -> Result<Shortened, ShortenError> {
    let original = crate::check::steps_of(moves);
    check_win(deal, &original).map_err(ShortenError::NotAWin)?;
    let clock = Clock::new(deadline);
    let mut steps = original;
    let long = if shortcuts {
        SHORTCUT_MOVES_PER_CARD * Board::new(deal).cards_out()
    } else {
        usize::MAX
    };
    while !clock.out() {
        let before = steps.len();
        steps = merge(deal, cut_loops(deal, steps));
        while let Some(cut) = cut_permuted_loop(deal, &steps, &clock) {
            steps = cut;
        }
        steps = cut_excursions(deal, steps, &clock);
        if steps.len() == before {
            // Only once the others have nothing left to cut: they are far cheaper, and a
            // line they take below the threshold never pays for this step.
            if steps.len() > long {
                steps = cut_shortcuts(deal, steps, SHORTCUT_DEPTH, &clock);
            }
            if steps.len() == before && !clock.out() {
                break;
            }
        }
    }
    check_win(deal, &steps).map_err(ShortenError::Broken)?;
    Ok(Shortened {
        moves: steps.iter().map(move_of).collect(),
        cut: clock.out.get(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;
    use crate::solver::{Solver, Verdict};

    #[test]
    fn a_detour_is_cut_and_a_double_move_merged() {
        // A won deal's (shortened) solution with a detour spliced in at the start: a card
        // moved to another pile and straight back. Shortening must remove exactly it.
        let mut spliced = 0;
        for seed in 1..=40 {
            let deal = Deal::from_seed(Variant::Castile.rules(), seed);
            let out = Solver::default().solve(&deal).unwrap();
            if out.verdict != Verdict::Solvable {
                continue;
            }
            let short = shorten(&deal, &out.moves).unwrap();
            assert_eq!(shorten(&deal, &short).unwrap(), short, "a fixed point");
            let board = Board::new(&deal);
            let detour = board.legal_steps().into_iter().find_map(|s| {
                let mut b = board.clone();
                b.play(&s).ok()?;
                let back = Step::single(s.card, s.to, s.from);
                b.play(&back).ok()?;
                Some([s, back])
            });
            let Some(detour) = detour else { continue };
            let mut padded: Vec<Move> = detour.iter().map(move_of).collect();
            padded.extend(short.iter().copied());
            let again = shorten(&deal, &padded).unwrap();
            assert_eq!(again, short, "castile deal {seed}: the detour is gone");
            assert!(check_win(&deal, &crate::check::steps_of(&again)).is_ok());
            spliced += 1;
        }
        assert!(spliced >= 5, "only {spliced} deals had a detour to splice");
    }

    #[test]
    fn a_double_move_is_merged() {
        // Spades J, Q, K alone in three piles of eight (beleaguered-castle): `JS t1 -> t4`,
        // `JS t4 -> t5` is `JS t1 -> t5`, and the merged list still wins.
        let c = |s: &str| s.parse::<crate::Card>().unwrap();
        let t = |n: u8| Pile::Tableau(n - 1);
        let mut deal = Deal::empty(Variant::BeleagueredCastle.rules());
        deal.tableau[0] = vec![c("JS")];
        deal.tableau[1] = vec![c("QS")];
        deal.tableau[2] = vec![c("KS")];
        deal.foundations = [13, 13, 13, 10, 0, 0, 0, 0];
        let steps = [
            Step::single(c("JS"), t(1), t(4)),
            Step::single(c("JS"), t(4), t(5)),
            Step::single(c("JS"), t(5), Pile::Foundation),
            Step::single(c("QS"), t(2), Pile::Foundation),
            Step::single(c("KS"), t(3), Pile::Foundation),
        ];
        let moves: Vec<Move> = steps.iter().map(move_of).collect();
        let short = crate::check::steps_of(&shorten(&deal, &moves).unwrap());
        assert_eq!(short.len(), 3, "{short:?}");
        assert_eq!(short[0], Step::single(c("JS"), t(1), Pile::Foundation));
    }

    #[test]
    fn cards_carried_round_the_empty_piles_are_cut() {
        // bc deal 42's first win (165 moves) carries 3C, 4C, 3D and 4D round the empty piles
        // and back; cutting exact repeats and merging alone left 155 moves, the permuted loops
        // and excursions take it to 129. The result replays (checked here, by the checker).
        // That first win is the depth-first search's: the portfolio wins the deal first (in
        // 87 moves), and so does the quotient's search from a false line's position, so both
        // are off here.
        let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 42);
        let raw = Solver {
            shorten: false,
            best_first: false,
            quotient: false,
            ..Solver::default()
        };
        let out = raw.solve(&deal).unwrap();
        assert_eq!(out.verdict, Verdict::Solvable);
        let short = shorten(&deal, &out.moves).unwrap();
        assert!(check_win(&deal, &crate::check::steps_of(&short)).is_ok());
        assert!(
            short.len() <= 130 && out.moves.len() >= 160,
            "{} -> {}",
            out.moves.len(),
            short.len()
        );
        assert_eq!(shorten(&deal, &short).unwrap(), short, "a fixed point");
    }

    #[test]
    fn shortcuts_cut_what_the_other_steps_leave() {
        // bc deal 122 as the exact quotient wins it (k = 13: nothing branches, so its line is
        // a win of the deal; 38,688 moves as found): the first four steps take it to 1,273
        // moves, the shortcuts to 548. The result replays (checked here, by the checker) and
        // is a fixed point.
        use crate::solver::quotient::{self, QuotientOptions};
        let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 122);
        let opts = QuotientOptions {
            k: 13,
            ..QuotientOptions::default()
        };
        let r = quotient::search(&deal, &opts, &std::sync::atomic::AtomicBool::new(false));
        let line = quotient::concrete_line(&deal, &r.line).expect("a win at k = 13");
        let cheap = shorten_with(&deal, &line, false, None).unwrap().moves;
        let short = shorten_with(&deal, &line, true, None).unwrap().moves;
        assert!(check_win(&deal, &crate::check::steps_of(&short)).is_ok());
        assert!(
            line.len() > 10_000 && short.len() * 2 < cheap.len(),
            "{} -> {} without shortcuts, {} with",
            line.len(),
            cheap.len(),
            short.len()
        );
        assert_eq!(shorten(&deal, &short).unwrap(), short, "a fixed point");
    }

    /// Step 3 as first written: every board looked up by its key.
    fn cut_permuted_loop_plain(deal: &Deal, steps: &[Step]) -> Option<Vec<Step>> {
        let mut board = Board::new(deal);
        let mut seen: HashMap<Vec<u8>, usize> = HashMap::default();
        seen.insert(pile_blind_key(&board), 0);
        for (k, s) in steps.iter().enumerate() {
            board.play(s).ok()?;
            let key = pile_blind_key(&board);
            if let Some(&i) = seen.get(&key) {
                let mut earlier = Board::new(deal);
                for s in &steps[..i] {
                    earlier.play(s).ok()?;
                }
                let sigma = permutation(&board, &earlier);
                let rest: Vec<Step> = steps[k + 1..].iter().map(|s| renamed(s, &sigma)).collect();
                if wins_from(&earlier, &rest) {
                    let mut out = steps[..i].to_vec();
                    out.extend(rest);
                    return Some(out);
                }
            } else {
                seen.insert(key, k + 1);
            }
        }
        None
    }

    #[test]
    fn the_hash_filter_takes_the_same_shortcuts() {
        // Long wandering lines: step 3 run to its end with the hash filter and by the plain
        // lookup of its first version; then, cut by the other steps first as `shorten` does,
        // one pass of step 5 with the filter and without it at depths 1 to 3 (2 on the
        // longest line): the same list, move for move. (That the scratch boards step 5 plays
        // are the boards `play` leaves is the checker's test.)
        use crate::solver::quotient::{self, QuotientOptions};
        let mut lines = Vec::new();
        let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 122);
        let opts = QuotientOptions {
            k: 13,
            ..QuotientOptions::default()
        };
        let r = quotient::search(&deal, &opts, &std::sync::atomic::AtomicBool::new(false));
        lines.push((
            deal.clone(),
            quotient::concrete_line(&deal, &r.line).unwrap(),
        ));
        let raw = Solver {
            shorten: false,
            quick: false,
            best_first: false,
            probes: None,
            quotient: false,
            ..Solver::default()
        };
        for (variant, seed) in [(Variant::StreetsAndAlleys, 679), (Variant::Citadel, 5)] {
            let deal = Deal::from_seed(variant.rules(), seed);
            let out = raw.solve(&deal).unwrap();
            if out.verdict == Verdict::Solvable {
                lines.push((deal, out.moves));
            }
        }
        assert!(lines.len() >= 2);
        let clock = Clock::new(None);
        for (n, (deal, line)) in lines.iter().enumerate() {
            // Step 3 to its end on the line as found (exact loops cut first, as `shorten`).
            let start = cut_loops(deal, crate::check::steps_of(line));
            let (mut fast, mut plain) = (start.clone(), start.clone());
            let mut cuts = 0;
            while let Some(cut) = cut_permuted_loop(deal, &fast, &clock) {
                fast = cut;
                cuts += 1;
            }
            while let Some(cut) = cut_permuted_loop_plain(deal, &plain) {
                plain = cut;
            }
            assert_eq!(fast, plain, "line {n}: step 3");
            assert!(cuts > 0 || n > 0, "line {n}: no permuted loop");
            let cut = shorten_with(deal, line, false, None).unwrap().moves;
            let steps = crate::check::steps_of(&cut);
            for depth in 1..=if n == 0 { 2 } else { 3 } {
                let fast = cut_shortcuts(deal, steps.clone(), depth, &clock);
                let plain = cut_shortcuts_with(deal, steps.clone(), depth, &clock, false);
                assert_eq!(fast, plain, "line {n}, depth {depth}");
                assert!(
                    fast.len() < steps.len() || depth == 1,
                    "line {n}: nothing cut"
                );
            }
        }
    }

    #[test]
    fn a_deadline_stops_the_steps_with_a_line_that_wins() {
        // streets-and-alleys 679's first win by the depth-first attempts alone (no quick
        // phase, portfolio, probes or quotient, which find short lines first) is thousands of
        // moves long (21,442 when written); the whole pass takes seconds. With a deadline
        // already past, the steps stop at once and say so, and the line they return still
        // replays to a win and is no longer than the one given.
        let deal = Deal::from_seed(Variant::StreetsAndAlleys.rules(), 679);
        let raw = Solver {
            shorten: false,
            quick: false,
            best_first: false,
            probes: None,
            quotient: false,
            ..Solver::default()
        };
        let out = raw.solve(&deal).unwrap();
        assert_eq!(out.verdict, Verdict::Solvable);
        assert!(out.moves.len() > 10_000, "{} moves", out.moves.len());
        let t0 = std::time::Instant::now();
        let cut = shorten_until(&deal, &out.moves, Some(t0)).unwrap();
        assert!(cut.cut, "the deadline had passed");
        assert!(cut.moves.len() <= out.moves.len());
        assert!(check_win(&deal, &crate::check::steps_of(&cut.moves)).is_ok());
        // Without a deadline (on a line that shortens quickly) the steps run to the end.
        let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 42);
        let out = raw.solve(&deal).unwrap();
        let whole = shorten_until(&deal, &out.moves, None).unwrap();
        assert!(!whole.cut);
        assert_eq!(whole.moves, shorten(&deal, &out.moves).unwrap());
    }

    #[test]
    fn a_list_that_does_not_win_is_an_error() {
        let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 1);
        let first = Board::new(&deal).legal_steps()[0];
        let moves = vec![move_of(&first)];
        assert!(matches!(
            shorten(&deal, &moves),
            Err(ShortenError::NotAWin(CheckError::NotWon { .. }))
        ));
    }
}
