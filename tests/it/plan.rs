//! The plan as data (docs/design.md, "The plan"): a plan read from a file changes what runs
//! and never a verdict, and `castle solve --show-plan` prints what `--plan` reads back.

use crate::common::{castle, run_ok, solve_checked, temp_file};
use castle::bench::standard_sets;
use castle::solver::plan::{Between, Plan};
use castle::{Solver, Variant, Verdict};

/// `plan` without the phase `phase` (and, for the portfolio, its early slice).
fn without(mut plan: Plan, phase: Between) -> Plan {
    plan.between.retain(|b| *b != phase);
    match phase {
        Between::Portfolio => {
            plan.portfolio = None;
            plan.early_slice = None;
        }
        Between::Quotient => plan.quotient = None,
        Between::Probes => plan.probes = None,
    }
    plan
}

/// The fixed benchmark sets of the five one-deck games, solved with the plan each deal gets
/// and with that plan less the portfolio: the same verdict on every deal, nothing unknown
/// (wins replayed), and the second run's portfolio spends nothing. The default runs spend
/// nodes in the portfolio, so a plan that were not read would fail the test.
#[test]
fn a_plan_without_the_portfolio_keeps_the_fixed_sets_verdicts() {
    let mut portfolio_nodes = 0;
    for set in standard_sets() {
        if set.variant == Variant::Courtyard {
            continue;
        }
        for seed in set.first..=set.last {
            let deal = set.deal(seed).unwrap();
            let default = Solver::default();
            let with = solve_checked(&default, &deal);
            let plan = without(default.plan_for(&deal), Between::Portfolio);
            let solver = Solver {
                plan: Some(plan),
                ..Solver::default()
            };
            let out = solve_checked(&solver, &deal);
            assert_ne!(with.verdict, Verdict::Unknown, "{} {seed}", set.variant);
            assert_eq!(out.verdict, with.verdict, "{} {seed}", set.variant);
            assert_eq!(out.spent.portfolio, 0, "{} {seed}", set.variant);
            portfolio_nodes += with.spent.portfolio;
        }
    }
    assert!(
        portfolio_nodes > 0,
        "the default plan never ran the portfolio"
    );
}

/// Leaving out the quotient or the probes likewise: those phases spend nothing and the
/// verdicts stand (beleaguered-castle and streets-and-alleys 1..30, and four deals of theirs
/// on which the default plan runs probes: few do).
#[test]
fn a_plan_without_the_quotient_or_the_probes_keeps_the_verdicts() {
    let mut spent = [0u64; 2];
    for variant in [Variant::BeleagueredCastle, Variant::StreetsAndAlleys] {
        let probed: [u64; 2] = match variant {
            Variant::BeleagueredCastle => [264, 371],
            _ => [160, 276],
        };
        for seed in (1..=30).chain(probed) {
            let deal = castle::Deal::from_seed(variant.rules(), seed);
            let default = Solver::default();
            let with = solve_checked(&default, &deal);
            spent[0] += with.spent.quotient;
            spent[1] += with.spent.probes;
            for phase in [Between::Quotient, Between::Probes] {
                let solver = Solver {
                    plan: Some(without(default.plan_for(&deal), phase)),
                    ..Solver::default()
                };
                let out = solve_checked(&solver, &deal);
                assert_eq!(out.verdict, with.verdict, "{variant} {seed} {phase:?}");
                let phase_spent = match phase {
                    Between::Quotient => out.spent.quotient,
                    _ => out.spent.probes,
                };
                assert_eq!(phase_spent, 0, "{variant} {seed} {phase:?}");
            }
        }
    }
    assert!(spent[0] > 0 && spent[1] > 0, "a phase never ran: {spent:?}");
}

/// Deals of the throughput samples that a batch's first pass leaves (more than 100,000 nodes),
/// solved with two quotient plans, `a` and `b` (edits of the default): the same verdict from
/// both, nothing unknown, wins replayed. Returns how many deals the two solved in different
/// nodes (an edit that changed nothing would fail the caller's test).
fn moved_by(
    a: impl Fn(&mut castle::solver::plan::QuotientPlan),
    b: impl Fn(&mut castle::solver::plan::QuotientPlan),
) -> u64 {
    let deals = [
        (Variant::BeleagueredCastle, 101_830),
        (Variant::BeleagueredCastle, 103_008),
        (Variant::BeleagueredCastle, 102_776),
        (Variant::StreetsAndAlleys, 100_470),
    ];
    let mut moved = 0;
    for (variant, seed) in deals {
        let deal = castle::Deal::from_seed(variant.rules(), seed);
        let solve = |edit: &dyn Fn(&mut castle::solver::plan::QuotientPlan)| {
            let mut plan = Solver::default().plan_for(&deal);
            edit(
                plan.quotient
                    .as_mut()
                    .expect("the quotient runs in these games"),
            );
            solve_checked(
                &Solver {
                    plan: Some(plan),
                    ..Solver::default()
                },
                &deal,
            )
        };
        let (x, y) = (solve(&a), solve(&b));
        assert_ne!(x.verdict, Verdict::Unknown, "{variant} {seed}");
        assert_eq!(x.verdict, y.verdict, "{variant} {seed}");
        moved += u64::from(x.nodes != y.nodes);
    }
    moved
}

/// The quotient's credit (`QUOTIENT_SHARE_UNBRANCHED`, `QUOTIENT_SHARE`) moves nodes between
/// phases and no verdict: on the deals of [`moved_by`], the shares of before (2, 1/4) and the
/// defaults give the same verdicts and differ in nodes (performance log, "The schedule's
/// constants", QUOTIENT_SHARE_UNBRANCHED). Both at the window the shares were measured at,
/// `k = 2` (at the default `k = 1` most of these deals are decided before the shares matter).
#[test]
fn the_quotients_credit_moves_nodes_and_keeps_the_verdicts() {
    let q = Solver::default()
        .plan_for(&castle::Deal::from_seed(
            Variant::BeleagueredCastle.rules(),
            1,
        ))
        .quotient
        .unwrap();
    assert_ne!(
        (q.share_unbranched, q.share),
        (2, 4),
        "the defaults are the old shares"
    );
    let moved = moved_by(
        |q| q.first_k = 2,
        |q| {
            q.first_k = 2;
            (q.share_unbranched, q.share) = (2, 4);
        },
    );
    assert!(
        moved >= 3,
        "the shares changed the nodes of {moved} deals only"
    );
}

/// The quotient's window (`QUOTIENT_FIRST_K`) moves nodes and no verdict: on the deals of
/// [`moved_by`], the default window and `k = 2` give the same verdicts and differ in nodes
/// (performance log, "The schedule's constants", QUOTIENT_FIRST_K).
#[test]
fn the_quotients_window_moves_nodes_and_keeps_the_verdicts() {
    let q = Solver::default()
        .plan_for(&castle::Deal::from_seed(
            Variant::StreetsAndAlleys.rules(),
            1,
        ))
        .quotient
        .unwrap();
    assert_ne!(q.first_k, 2, "the default is the old window");
    let moved = moved_by(|_| {}, |q| q.first_k = 2);
    assert!(
        moved >= 3,
        "the window changed the nodes of {moved} deals only"
    );
}

/// `--show-plan` prints the plan as JSON; given back with `--plan` it is the same solve (the
/// same nodes); edited, it changes what runs; a file that is not a plan is refused with
/// exit code 2 and a message naming the file and the field.
#[test]
fn the_command_line_shows_and_reads_plans() {
    let shown = run_ok(&["solve", "-v", "bc", "-s", "7", "--show-plan"]);
    let plan = Plan::from_json(&shown).expect("the shown plan reads back");
    assert_eq!(
        plan,
        Solver::default().plan_for(&castle::Deal::from_seed(
            Variant::BeleagueredCastle.rules(),
            7
        ))
    );
    let nodes = |args: &[&str]| -> u64 {
        let mut all = vec!["solve", "-v", "bc", "-s", "7", "-f", "json", "-q", "--raw"];
        all.extend_from_slice(args);
        let json: serde_json::Value = serde_json::from_str(&run_ok(&all)).unwrap();
        json["nodes"].as_u64().unwrap()
    };
    let file = temp_file(&shown);
    let path = file.path().to_str().unwrap();
    assert_eq!(nodes(&[]), nodes(&["--plan", path]));

    // A plan with the first attempt's budget at the whole solve's: no restarts, so another
    // search and (on this deal) other nodes.
    let mut edited = plan.clone();
    edited.attempts.first = Some(1_000_000_000);
    let other = temp_file(&edited.to_json());
    let shown_back = run_ok(&[
        "solve",
        "-v",
        "bc",
        "-s",
        "7",
        "--show-plan",
        "--plan",
        other.path().to_str().unwrap(),
    ]);
    assert_eq!(Plan::from_json(&shown_back).unwrap(), edited);

    let bad = temp_file(&shown.replace("\"quick\"", "\"quik\""));
    let out = castle()
        .args(["solve", "-s", "7", "--plan", bad.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(bad.path().to_str().unwrap()) && err.contains("quik"),
        "{err}"
    );
    let missing = castle()
        .args([
            "batch",
            "--seeds",
            "1..2",
            "--plan",
            "/nonexistent/plan.json",
        ])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/plan.json"));
}

/// The quotient's short early run (`quotient.early_nodes`) changes which search decides and
/// never a verdict: the fixed sets of the three games the quotient applies to, with the run
/// and without it, the same verdicts (wins replayed, nothing unknown), and the run decided
/// deals (fewer nodes on some lost deal: it proved the loss before the portfolio's slice).
#[test]
fn the_quotients_early_run_keeps_the_fixed_sets_verdicts() {
    let mut sooner = 0;
    for set in standard_sets() {
        if !matches!(
            set.variant,
            Variant::BeleagueredCastle | Variant::StreetsAndAlleys | Variant::Citadel
        ) {
            continue;
        }
        for seed in set.first..=set.last {
            let deal = set.deal(seed).unwrap();
            let default = Solver::default();
            let plan = default.plan_for(&deal);
            let q = plan.quotient.expect("the quotient applies");
            assert_eq!(
                q.early_nodes,
                Some(castle::solver::plan::EARLY_QUOTIENT_NODES)
            );
            let with = solve_checked(&default, &deal);
            let solver = Solver {
                plan: Some(Plan {
                    quotient: Some(castle::solver::plan::QuotientPlan {
                        early_nodes: None,
                        ..q
                    }),
                    ..plan
                }),
                ..Solver::default()
            };
            let without = solve_checked(&solver, &deal);
            assert_ne!(with.verdict, Verdict::Unknown, "{} {seed}", set.variant);
            assert_eq!(with.verdict, without.verdict, "{} {seed}", set.variant);
            if with.verdict == Verdict::Unsolvable && with.nodes < without.nodes {
                sooner += 1;
            }
        }
    }
    assert!(sooner > 0, "the early run never proved a loss sooner");
}
