//! The suit-blind quotient (`castle::solver::quotient`) against the exact search: its `Lost`
//! must never meet a win the exact search finds (every such win is replayed by the checker),
//! every `Lost` the exact search decides must be `unsolvable` there too, and with `k = 13`
//! (nothing merged) it must split lost and won deals as the exact search does and count the
//! same positions. Plus positions whose answer is known by hand.

use crate::common::{cards, exact, f8, plain_dfs, solve_checked};
use castle::check::{check_win, steps_of};
use castle::rules::{Rules, SequenceMoves};
use castle::solver::quotient::{
    concrete_line, next_kept, search, search_proved, wrong_branches, End, Limit, Proved,
    QuotientOptions, QuotientResult, QuotientVerdict, Refusal,
};
use castle::{Deal, Variant, Verdict};
use std::sync::atomic::AtomicBool;

/// The plain quotient (no dealt refinement).
fn quotient(deal: &Deal, k: u8, nodes: u64) -> QuotientResult {
    quotient_with(deal, k, false, nodes)
}

fn quotient_with(deal: &Deal, k: u8, dealt: bool, nodes: u64) -> QuotientResult {
    let opts = QuotientOptions {
        k,
        dealt,
        max_nodes: Some(nodes),
        max_bytes: 1 << 30,
        ..QuotientOptions::default()
    };
    search(deal, &opts, &AtomicBool::new(false))
}

fn rules(variant: Variant, start: Option<u8>, unlimited: bool) -> Rules {
    let mut r = variant.rules();
    if let Some(s) = start {
        r = r.with_start_rank(s).unwrap();
    }
    if unlimited {
        r = r.with_sequence_moves(SequenceMoves::Unlimited);
    }
    r
}

/// What a sweep saw.
#[derive(Debug, Default)]
struct Tally {
    lost: u32,
    confirmed: u32,
    branch_wins: u32,
    limits: u32,
}

/// The windows the sweeps try, each plain and with the dealt refinement.
const KS: [(u8, bool); 6] = [
    (1, false),
    (2, false),
    (3, false),
    (1, true),
    (2, true),
    (3, true),
];

/// For each deal and window: a quotient `Lost` must not be winnable, and where the exact
/// search decides, it must say `unsolvable`.
fn sweep(
    r: Rules,
    seeds: std::ops::Range<u64>,
    ks: &[(u8, bool)],
    qnodes: u64,
    enodes: u64,
) -> Tally {
    let mut t = Tally::default();
    for seed in seeds {
        let deal = Deal::from_seed(r, seed);
        let mut checked: Option<Verdict> = None;
        for &(k, dealt) in ks {
            let q = quotient_with(&deal, k, dealt, qnodes);
            match q.verdict {
                QuotientVerdict::LOST => {
                    t.lost += 1;
                    let v = *checked.get_or_insert_with(|| exact(&deal, enodes).verdict);
                    assert_ne!(
                        v,
                        Verdict::Solvable,
                        "{} seed {seed} k {k} dealt {dealt}: quotient says lost, the exact search won",
                        r.variant
                    );
                    t.confirmed += u32::from(v == Verdict::Unsolvable);
                }
                QuotientVerdict::BRANCH_WIN => t.branch_wins += 1,
                QuotientVerdict::End(End::Cut(_)) => t.limits += 1,
                QuotientVerdict::NotApplicable(why) => panic!("refused {r:?}: {why}"),
                QuotientVerdict::Broken(why) => {
                    panic!("{} seed {seed} k {k}: broken invariant: {why}", r.variant)
                }
            }
        }
    }
    t
}

#[test]
fn lost_is_never_winnable_start_ranks() {
    // Start ranks 3..6 give many wins in small spaces: the best net for an unsound merge.
    let mut total = Tally::default();
    for (variant, start, seeds) in [
        (Variant::BeleagueredCastle, 3, 1..80),
        (Variant::BeleagueredCastle, 4, 1..150),
        (Variant::BeleagueredCastle, 5, 1..200),
        (Variant::BeleagueredCastle, 6, 1..200),
        (Variant::StreetsAndAlleys, 4, 1..100),
        (Variant::Citadel, 4, 1..100),
    ] {
        for unlimited in [false, true] {
            let t = sweep(
                rules(variant, Some(start), unlimited),
                seeds.clone(),
                &KS,
                50_000,
                200_000,
            );
            total.lost += t.lost;
            total.confirmed += t.confirmed;
            total.branch_wins += t.branch_wins;
            total.limits += t.limits;
        }
    }
    eprintln!("{total:?}");
    assert!(total.lost > 100 && total.branch_wins > 1000, "{total:?}");
}

#[test]
fn lost_is_never_winnable_dealt_games() {
    let mut total = Tally::default();
    for (variant, seeds) in [
        (Variant::BeleagueredCastle, 1..120),
        (Variant::StreetsAndAlleys, 1..80),
        (Variant::Citadel, 1..120),
    ] {
        let t = sweep(rules(variant, None, false), seeds, &KS, 30_000, 300_000);
        total.lost += t.lost;
        total.confirmed += t.confirmed;
        total.branch_wins += t.branch_wins;
        total.limits += t.limits;
    }
    eprintln!("{total:?}");
    assert!(total.lost > 20, "{total:?}");
}

/// Thousands of deals of the three games and their start ranks (a few minutes):
/// `cargo test --release --test quotient -- --ignored`.
#[test]
#[ignore]
fn lost_is_never_winnable_thousands() {
    let mut total = Tally::default();
    for (variant, start, seeds) in [
        (Variant::BeleagueredCastle, None, 1..800),
        (Variant::StreetsAndAlleys, None, 1..600),
        (Variant::Citadel, None, 1..800),
        (Variant::BeleagueredCastle, Some(3), 1..800),
        (Variant::BeleagueredCastle, Some(4), 1..800),
        (Variant::BeleagueredCastle, Some(5), 1..800),
        (Variant::StreetsAndAlleys, Some(4), 1..600),
        (Variant::Citadel, Some(5), 1..600),
    ] {
        for unlimited in [false, true] {
            if unlimited && start.is_none() {
                continue;
            }
            let t = sweep(
                rules(variant, start, unlimited),
                seeds.clone(),
                &KS,
                50_000,
                500_000,
            );
            total.lost += t.lost;
            total.confirmed += t.confirmed;
            total.branch_wins += t.branch_wins;
            total.limits += t.limits;
        }
    }
    eprintln!("{total:?}");
}

/// With `k = 13` nothing is merged and no foundation move branches: the quotient is the exact
/// search up to pile order, so it decides the same way and, on a lost deal, counts the same
/// positions as the exact search's states.
#[test]
fn k13_is_the_exact_search() {
    let mut lost = 0;
    let mut won = 0;
    for (variant, start, unlimited, seeds) in [
        (Variant::BeleagueredCastle, Some(4), false, 1..120),
        (Variant::BeleagueredCastle, Some(5), true, 1..80),
        (Variant::StreetsAndAlleys, Some(4), false, 1..80),
        (Variant::Citadel, Some(3), false, 1..60),
        (Variant::BeleagueredCastle, None, false, 1..40),
    ] {
        let r = rules(variant, start, unlimited);
        for seed in seeds {
            let deal = Deal::from_seed(r, seed);
            let q = quotient(&deal, 13, 300_000);
            if matches!(q.verdict, QuotientVerdict::End(End::Cut(_))) {
                continue;
            }
            let e = solve_checked(&plain_dfs(1_000_000), &deal);
            // The dealt refinement tells moved cards from unmoved ones as well: more
            // positions, the same verdicts.
            let d = quotient_with(&deal, 13, true, 1_000_000);
            match (d.verdict, e.verdict) {
                (QuotientVerdict::LOST, Verdict::Unsolvable) => {
                    assert!(d.positions >= e.states, "{variant} {start:?} seed {seed}")
                }
                (QuotientVerdict::BRANCH_WIN, Verdict::Solvable) | (_, Verdict::Unknown) => {}
                (QuotientVerdict::End(End::Cut(_)), _) => {}
                (d, e) => panic!("{variant} {start:?} seed {seed}: dealt {d}, exact {e}"),
            }
            match (q.verdict, e.verdict) {
                (QuotientVerdict::LOST, Verdict::Unsolvable) => {
                    assert_eq!(q.positions, e.states, "{variant} {start:?} seed {seed}");
                    lost += 1;
                }
                (QuotientVerdict::BRANCH_WIN, Verdict::Solvable) => {
                    // Nothing branches at k = 13: the line is a win of the deal, and the
                    // checker replays it.
                    let dealt_won = d.verdict == QuotientVerdict::BRANCH_WIN;
                    for line in [Some(&q.line), dealt_won.then_some(&d.line)]
                        .into_iter()
                        .flatten()
                    {
                        let moves = concrete_line(&deal, line)
                            .unwrap_or_else(|| panic!("{variant} {start:?} seed {seed}"));
                        check_win(&deal, &steps_of(&moves)).unwrap();
                    }
                    won += 1
                }
                (_, Verdict::Unknown) => {}
                (q, e) => panic!("{variant} {start:?} seed {seed}: quotient {q}, exact {e}"),
            }
        }
    }
    assert!(lost > 20 && won > 100, "{lost} lost, {won} won");
}

/// Every suit's ten is buried under its king, the jacks stand on the queens, and no pile is
/// empty: no card fits a foundation, a king can only go to an empty pile, and a jack only on
/// a queen on top. Not one move: lost, by hand, whatever the window.
#[test]
fn a_position_with_no_move_is_lost() {
    let mut deal = Deal::empty(
        Variant::BeleagueredCastle
            .rules()
            .with_start_rank(9)
            .unwrap(),
    );
    deal.foundations = f8([9; 4]);
    for (i, p) in [
        "TC KC", "TD KD", "TH KH", "TS KS", "QC JD", "QD JC", "QH JS", "QS JH",
    ]
    .iter()
    .enumerate()
    {
        deal.tableau[i] = cards(p);
    }
    deal.validate().unwrap();
    for k in 1..=13 {
        let q = quotient(&deal, k, 1000);
        assert_eq!(
            (q.verdict, q.positions),
            (QuotientVerdict::LOST, 1),
            "k {k}"
        );
    }
    assert_eq!(exact(&deal, 1000).verdict, Verdict::Unsolvable);
}

/// Jacks under kings, queens alone: a queen onto a king empties a pile, a king goes there,
/// its jack goes home, and so on; won by hand, so never `Lost`. With `k = 13` the abstract
/// win is a real one.
#[test]
fn a_winnable_position_is_never_lost() {
    let mut deal = Deal::empty(
        Variant::BeleagueredCastle
            .rules()
            .with_start_rank(10)
            .unwrap(),
    );
    deal.foundations = f8([10; 4]);
    for (i, p) in ["JD KC", "JC KD", "JH KS", "JS KH", "QC", "QD", "QH", "QS"]
        .iter()
        .enumerate()
    {
        deal.tableau[i] = cards(p);
    }
    deal.validate().unwrap();
    for k in 1..=13 {
        let q = quotient(&deal, k, 10_000);
        assert_eq!(q.verdict, QuotientVerdict::BRANCH_WIN, "k {k}");
        // From k = 3 the window holds the jack, queen and king: nothing branches, and the
        // line is a win of the deal.
        if k >= 3 {
            let moves = concrete_line(&deal, &q.line).expect("no branch at k >= 3");
            check_win(&deal, &steps_of(&moves)).unwrap();
        }
    }
    assert_eq!(exact(&deal, 10_000).verdict, Verdict::Solvable);
}

/// An abstract win proves nothing: bc deal 29 at start rank 4 is lost (the exact search
/// exhausts it), yet with `k = 3` the quotient reaches a won position through branches that
/// give suits to the wrong cards.
#[test]
fn a_branch_win_can_be_false() {
    let deal = Deal::from_seed(rules(Variant::BeleagueredCastle, Some(4), false), 29);
    assert_eq!(exact(&deal, 1_000_000).verdict, Verdict::Unsolvable);
    let q = quotient(&deal, 3, 1_000_000);
    assert_eq!(q.verdict, QuotientVerdict::BRANCH_WIN);
    // Its line is not a win of the deal: a foundation move meets another suit's card.
    assert!(!q.line.is_empty());
    assert_eq!(concrete_line(&deal, &q.line), None);
    assert_eq!(
        quotient(&deal, 13, 1_000_000).verdict,
        QuotientVerdict::LOST
    );
    // The line names the cards its branches got wrong; keeping them, the same window no
    // longer meets that line, and keeping one wrong card after each false win proves the
    // deal lost.
    let wrong = wrong_branches(&deal, &q.line);
    assert!(!wrong.is_empty());
    let kept = wrong.iter().fold(0u64, |m, &c| m | 1 << c);
    let opts = QuotientOptions {
        k: 3,
        dealt: false,
        kept,
        max_nodes: Some(1_000_000),
        max_bytes: 1 << 30,
        ..QuotientOptions::default()
    };
    let again = search(&deal, &opts, &AtomicBool::new(false));
    assert!(again.verdict == QuotientVerdict::LOST || again.line != q.line);
    let (q, kept) = refine(&deal, 3, false, 60, 1_000_000);
    assert_eq!(q.verdict, QuotientVerdict::LOST);
    assert_ne!(kept, 0);
}

/// Every card of the deck, as a `kept` mask.
const ALL_CARDS: u64 = ((1u64 << 56) - 1) & !0xF;

/// The refinement loop: a run with window `k`; after a branch win whose line does not win on
/// the deal, the next keeps the first card it got wrong; at most `rounds` runs. Returns the
/// last run and the cards kept for it. Every branch win it meets must replay on the deal or
/// name a card not kept yet (else the loop could not progress).
fn refine(deal: &Deal, k: u8, dealt: bool, rounds: u32, nodes: u64) -> (QuotientResult, u64) {
    let mut kept = 0u64;
    let mut last = None;
    for _ in 0..rounds {
        let opts = QuotientOptions {
            k,
            dealt,
            kept,
            max_nodes: Some(nodes),
            max_bytes: 1 << 30,
            ..QuotientOptions::default()
        };
        let q = search(deal, &opts, &AtomicBool::new(false));
        if q.verdict != QuotientVerdict::BRANCH_WIN || concrete_line(deal, &q.line).is_some() {
            return (q, kept);
        }
        let next = next_kept(deal, &q.line, kept)
            .expect("a false branch win names a card the runs do not keep yet");
        last = Some((q, kept));
        kept = next;
    }
    last.expect("at least one round")
}

/// A set of deals of the refinement tests: variant, start rank, unlimited sequence moves, seeds.
type DealSet = (Variant, Option<u8>, bool, std::ops::Range<u64>);

/// Every deal of `sets`, with a name for messages.
fn deals_of(sets: &[DealSet]) -> impl Iterator<Item = (Deal, String)> + '_ {
    sets.iter().flat_map(|(variant, start, unlimited, seeds)| {
        let r = rules(*variant, *start, *unlimited);
        seeds.clone().map(move |seed| {
            (
                Deal::from_seed(r, seed),
                format!("{variant} {start:?} seed {seed}"),
            )
        })
    })
}

/// Checks a quotient `Lost` on `deal` against the plain depth-first search (solved once per
/// deal, kept in `verdict`): it must not win there. True if it proves the deal `unsolvable`.
fn plain_search_agrees(deal: &Deal, verdict: &mut Option<Verdict>, what: &str) -> bool {
    let v = *verdict.get_or_insert_with(|| solve_checked(&plain_dfs(400_000), deal).verdict);
    assert_ne!(
        v,
        Verdict::Solvable,
        "{what}: the quotient says lost, the plain search won"
    );
    v == Verdict::Unsolvable
}

/// Keeping cards ([`QuotientOptions::kept`]) refines the abstraction: a `Lost` with any kept
/// set is never a deal the plain depth-first search wins, and every `Lost` it decides is
/// `unsolvable` there; every false branch win names a card to keep; and refining proves
/// deals lost that the same window without it leaves at a branch win.
#[test]
fn refined_lost_is_never_winnable() {
    let (mut lost, mut confirmed, mut by_refining) = (0, 0, 0);
    for (deal, name) in deals_of(&[
        (Variant::BeleagueredCastle, Some(4), false, 1..100),
        (Variant::BeleagueredCastle, Some(5), true, 1..60),
        (Variant::StreetsAndAlleys, Some(4), false, 1..80),
        (Variant::Citadel, Some(4), false, 1..60),
        (Variant::BeleagueredCastle, None, false, 1..40),
        (Variant::StreetsAndAlleys, None, false, 1..30),
    ]) {
        let mut verdict = None;
        for (k, dealt) in [(1, false), (1, true), (2, true)] {
            let (q, kept) = refine(&deal, k, dealt, 8, 40_000);
            if q.verdict != QuotientVerdict::LOST {
                continue;
            }
            lost += 1;
            by_refining += u32::from(kept != 0);
            let what = format!("{name} k {k} dealt {dealt} kept {kept:#x}, refined");
            confirmed += u32::from(plain_search_agrees(&deal, &mut verdict, &what));
        }
    }
    eprintln!("{lost} lost ({by_refining} after refining), {confirmed} confirmed");
    assert!(
        lost > 50 && by_refining > 10 && confirmed > 30,
        "{lost} {by_refining} {confirmed}"
    );
}

/// How a refinement loop ended ([`refine_runs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refined {
    Lost,
    /// A run's line won on the deal (replayed by the checker).
    Won,
    /// Out of rounds.
    Open,
}

/// The schedule's loop in small: runs cut at `first` nodes and doubling after each cut;
/// after a false branch win, the next keeps one more card the line got wrong, and every
/// `widen`-th false win widens the window instead (up to 13). With `proofs`, every run skips
/// what the earlier ones proved (`search_proved`). Returns the end (open past 25 runs or a
/// run of 100,000 nodes) and the positions the runs skipped.
fn refine_runs(
    deal: &Deal,
    k: u8,
    no_repeat: bool,
    proofs: bool,
    first: u64,
    widen: u32,
) -> (Refined, u64) {
    let (mut k, mut kept, mut nodes, mut pruned, mut false_wins) = (k, 0u64, first, 0, 0);
    let mut proved = Proved::new();
    for _ in 0..25 {
        let opts = QuotientOptions {
            k,
            kept,
            no_repeat,
            max_nodes: Some(nodes),
            max_bytes: 1 << 30,
            ..QuotientOptions::default()
        };
        let stop = AtomicBool::new(false);
        let q = if proofs {
            search_proved(deal, &opts, &stop, &mut proved)
        } else {
            search(deal, &opts, &stop)
        };
        pruned += q.pruned;
        match q.verdict {
            QuotientVerdict::LOST => return (Refined::Lost, pruned),
            QuotientVerdict::End(End::Cut(Limit::Nodes)) if nodes < 100_000 => nodes *= 2,
            QuotientVerdict::End(End::Cut(_)) => return (Refined::Open, pruned),
            QuotientVerdict::BRANCH_WIN => {
                if let Some(line) = concrete_line(deal, &q.line) {
                    check_win(deal, &steps_of(&line)).unwrap();
                    return (Refined::Won, pruned);
                }
                false_wins += 1;
                if false_wins % widen == 0 && k < 13 {
                    k += 1;
                } else {
                    kept = next_kept(deal, &q.line, kept).expect("a false win names a card");
                }
            }
            v => panic!("{v}"),
        }
    }
    (Refined::Open, pruned)
}

/// Proofs carried from run to run ("Proofs that outlive a run" in the quotient's docs) keep
/// the verdicts: on deals of three games (start ranks with many wins in small spaces among
/// them), runs cut after a few thousand nodes and refined by kept cards and wider windows,
/// with no-repeat on and off, end lost only on deals the plain depth-first search does not
/// win (and those it decides are `unsolvable` there), and with the proofs on and off they
/// end the same way wherever both end. The proofs are used (positions are skipped) and the
/// runs decide both ways.
#[test]
fn proofs_carried_across_runs_keep_the_verdicts() {
    let (mut lost, mut won, mut confirmed, mut pruned, mut compared) = (0, 0, 0, 0u64, 0);
    for (deal, name) in deals_of(&[
        (Variant::BeleagueredCastle, Some(4), false, 1..30),
        (Variant::BeleagueredCastle, Some(5), true, 1..20),
        (Variant::StreetsAndAlleys, Some(4), false, 1..30),
        (Variant::Citadel, Some(4), false, 1..20),
        (Variant::BeleagueredCastle, None, false, 1..16),
        (Variant::StreetsAndAlleys, None, false, 1..20),
    ]) {
        let mut verdict = None;
        for (k, no_repeat, first, widen) in [(1, false, 2_000, 3), (2, true, 5_000, 1000)] {
            let what = format!("{name} k {k} no_repeat {no_repeat}");
            let (with, p) = refine_runs(&deal, k, no_repeat, true, first, widen);
            pruned += p;
            let (without, _) = refine_runs(&deal, k, no_repeat, false, first, widen);
            if with != Refined::Open && without != Refined::Open {
                compared += 1;
                assert_eq!(with, without, "{what}: proofs on and off differ");
            }
            match with {
                Refined::Won => won += 1,
                Refined::Lost => {
                    lost += 1;
                    let what = format!("{what}, proofs carried over");
                    confirmed += u32::from(plain_search_agrees(&deal, &mut verdict, &what));
                }
                Refined::Open => {}
            }
        }
    }
    eprintln!(
        "{lost} lost ({confirmed} confirmed), {won} won, {compared} compared, {pruned} skipped"
    );
    assert!(
        lost > 30 && won > 150 && confirmed > 30 && compared > 200 && pruned > 100_000,
        "{lost} {won} {confirmed} {compared} {pruned}"
    );
}

/// Keeping every card fixes every card, as the widest window does: with the same `k = 1`
/// otherwise, the runs store exactly the positions of `k = 13` (plain, where the key is the
/// exact search's up to pile order) and give the same verdicts.
#[test]
fn keeping_every_card_is_the_widest_window() {
    let (mut compared, mut won) = (0, 0);
    for seed in 1..120 {
        let deal = Deal::from_seed(rules(Variant::BeleagueredCastle, Some(4), false), seed);
        let wide = quotient(&deal, 13, 300_000);
        let opts = QuotientOptions {
            k: 1,
            dealt: false,
            kept: ALL_CARDS,
            max_nodes: Some(300_000),
            max_bytes: 1 << 30,
            ..QuotientOptions::default()
        };
        let all = search(&deal, &opts, &AtomicBool::new(false));
        if matches!(wide.verdict, QuotientVerdict::End(End::Cut(_))) {
            continue;
        }
        assert_eq!(all.verdict, wide.verdict, "seed {seed}");
        if wide.verdict == QuotientVerdict::LOST {
            assert_eq!(all.positions, wide.positions, "seed {seed}");
            compared += 1;
        } else {
            let moves = concrete_line(&deal, &all.line).expect("nothing branches");
            check_win(&deal, &steps_of(&moves)).unwrap();
            won += 1;
        }
    }
    assert!(compared >= 5 && won > 20, "{compared} lost, {won} won");
}

#[test]
fn other_rules_are_refused() {
    let stop = AtomicBool::new(false);
    let opts = QuotientOptions::default();
    for (variant, why) in [
        (Variant::Fortress, Refusal::Build),
        (Variant::Castile, Refusal::Build),
        (Variant::Courtyard, Refusal::Build),
    ] {
        let deal = Deal::from_seed(variant.rules(), 1);
        assert_eq!(
            search(&deal, &opts, &stop).verdict,
            QuotientVerdict::NotApplicable(why)
        );
    }
    let deal = Deal::from_seed(
        Variant::BeleagueredCastle
            .rules()
            .with_foundation_return(true),
        1,
    );
    assert_eq!(
        search(&deal, &opts, &stop).verdict,
        QuotientVerdict::NotApplicable(Refusal::FoundationReturn)
    );
}

/// Budgets give `Limit`, never `Lost`: a node budget, a stop flag raised before the start, a
/// memory budget too small for the first table.
#[test]
fn budgets_stop_with_a_limit() {
    let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 9830);
    let q = quotient(&deal, 3, 10_000);
    assert_eq!(q.verdict, QuotientVerdict::End(End::Cut(Limit::Nodes)));
    let stopped = search(&deal, &QuotientOptions::default(), &AtomicBool::new(true));
    assert_eq!(
        stopped.verdict,
        QuotientVerdict::End(End::Cut(Limit::Stopped))
    );
    let tiny = QuotientOptions {
        max_bytes: 64 << 10,
        ..QuotientOptions::default()
    };
    let q = search(&deal, &tiny, &AtomicBool::new(false));
    assert_eq!(q.verdict, QuotientVerdict::End(End::Cut(Limit::Memory)));
}

/// The caller runs the quotient beside the exact search and raises the flag when the exact
/// search decides first: the quotient stops with `Stopped`, never `Lost`.
#[test]
fn a_stop_flag_from_another_thread_ends_the_search() {
    let deal = Deal::from_seed(Variant::BeleagueredCastle.rules(), 9830);
    let stop = AtomicBool::new(false);
    let q = std::thread::scope(|s| {
        // Plain, k = 4: over a minute of work, so the flag comes first.
        let opts = QuotientOptions {
            k: 4,
            dealt: false,
            ..QuotientOptions::default()
        };
        let (deal, flag) = (&deal, &stop);
        let h = s.spawn(move || search(deal, &opts, flag));
        std::thread::sleep(std::time::Duration::from_millis(200));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        h.join().unwrap()
    });
    assert_eq!(q.verdict, QuotientVerdict::End(End::Cut(Limit::Stopped)));
    assert!(q.positions > 0 && q.seconds < 10.0, "{q:?}");
}

/// With two threads and no node budget the quotient runs on a thread of its own beside the
/// schedule (design.md, "The quotient beside the schedule"); with a node budget it stays a
/// phase of the schedule. Both must give the single-threaded solve's verdict on deals of the
/// two variants it applies to, lost and won, and count every node in some phase; so must the
/// quotient beside with three quarters of the room.
#[test]
fn the_quotient_beside_the_schedule_gives_the_same_verdicts() {
    use castle::{Limits, Solver};
    let one = Solver::default();
    let beside = Solver {
        threads: 2,
        ..Solver::default()
    };
    // The quotient with most of the room (`--quotient-memory 75`).
    let roomy = Solver {
        threads: 2,
        quotient_percent: Some(75),
        ..Solver::default()
    };
    let within = Solver {
        threads: 2,
        limits: Limits {
            max_nodes: Some(u64::MAX / 2),
            ..Limits::default()
        },
        ..Solver::default()
    };
    let (mut won, mut lost) = (0, 0);
    for variant in [Variant::BeleagueredCastle, Variant::StreetsAndAlleys] {
        for seed in 1..=30 {
            let deal = Deal::from_seed(variant.rules(), seed);
            let expect = solve_checked(&one, &deal).verdict;
            match expect {
                Verdict::Solvable => won += 1,
                Verdict::Unsolvable => lost += 1,
                Verdict::Unknown => panic!("{variant:?} {seed} undecided"),
            }
            for (name, s) in [("beside", &beside), ("roomy", &roomy), ("within", &within)] {
                let out = solve_checked(s, &deal);
                assert_eq!(out.verdict, expect, "{variant:?} {seed}, quotient {name}");
                assert_eq!(out.spent.total(), out.nodes, "{variant:?} {seed} {name}");
            }
        }
    }
    assert!(won >= 10 && lost >= 10, "{won} won, {lost} lost");
}

/// A run short of room frees the earlier runs' proofs it consults and goes on (the quotient's
/// "Which runs are kept"): on streets-and-alleys 20967, whose first run is large and the
/// refining runs after it small (performance log, "Proofs that outlive a run"), each refining
/// run gets the room of the proofs it would consult and 8 MiB more (the first, which has none,
/// the default budget). Runs drop them; none ends
/// `lost` (the deal is won); one out of room anyway runs again with room and no proofs, as the
/// schedule does; and the refinement still ends in a win that replays on the deal.
#[test]
fn a_run_short_of_room_drops_the_earlier_proofs_and_goes_on() {
    let deal = Deal::from_seed(Variant::StreetsAndAlleys.rules(), 20967);
    let stop = AtomicBool::new(false);
    let mut proved = Proved::new();
    let (mut kept, mut dropped, mut short) = (0u64, 0, 0);
    for run in 0..40 {
        let base = QuotientOptions {
            k: 2,
            kept,
            no_repeat: false,
            ..QuotientOptions::default()
        };
        let room = proved.bytes();
        let squeezed = QuotientOptions {
            max_bytes: if room > 0 {
                room + (8 << 20)
            } else {
                base.max_bytes
            },
            ..base
        };
        let mut q = search_proved(&deal, &squeezed, &stop, &mut proved);
        dropped += u32::from(q.dropped);
        if q.verdict == QuotientVerdict::End(End::Cut(Limit::Memory)) {
            assert!(q.dropped, "run {run}: out of room with the proofs held");
            short += 1;
            proved.clear();
            q = search_proved(&deal, &base, &stop, &mut proved);
        }
        assert_eq!(q.verdict, QuotientVerdict::BRANCH_WIN, "run {run}");
        if let Some(line) = concrete_line(&deal, &q.line) {
            check_win(&deal, &steps_of(&line)).unwrap();
            assert!(dropped > short, "{dropped} dropped, {short} out of room");
            return;
        }
        kept = next_kept(&deal, &q.line, kept).expect("a false win names a card");
    }
    panic!("no win in 40 runs");
}
