//! The plan of a solve: which phases the schedule runs, in what order, with what budgets and
//! shares, as data (docs/design.md, "The plan"). [`Plan::for_rules`] gives the plan a deal
//! gets by default; [`crate::solver::Solver::plan_for`] applies the solver's switches to it
//! (`--no-quick`, `--portfolio`, ...); `castle solve --show-plan` prints it and `--plan FILE`
//! reads one, so a tuning experiment is an edit of a file, not of the code.
//!
//! No plan can change a verdict: the phases that look for wins only report wins (replayed by
//! the checker), the quotient's `Lost` is a proof at any budget, and the depth-first
//! attempts decide whatever the plan (the last attempt of a solve has no node budget but the
//! solve's own). A plan changes only which search gets there first, and the nodes.
//!
//! Each default names the section of docs/performance-log.md ("The schedule's constants")
//! that holds the measurements it was chosen from.

use super::member::{Member, Members, RELOCATE_RESTART_NODES, RESTART_NODES};
use crate::rules::{Rules, Variant};
use serde::{Deserialize, Serialize};

/// Node budget of the first depth-first attempt; each later one doubles it
/// ("FIRST_ATTEMPT_NODES").
pub const FIRST_ATTEMPT_NODES: u64 = 20_000;
/// Attempts with at least this budget keep the positions they prove lost for the next
/// ("PROVE_FROM_NODES").
pub const PROVE_FROM_NODES: u64 = 1_280_000;
/// The quick phase's nodes ("QUICK_NODES").
pub const QUICK_NODES: u64 = 1_000;
/// The quick phase's nodes in a game with a stock ("QUICK_NODES").
pub const QUICK_NODES_STOCK: u64 = 50_000;
/// The portfolio's first slice, right after a quick phase that did not decide
/// ("EARLY_SLICE").
pub const EARLY_SLICE: u64 = 4_000;
/// The quotient's short early run, between the quick phase and the portfolio's first slice
/// ("EARLY_QUOTIENT_NODES").
pub const EARLY_QUOTIENT_NODES: u64 = 5_000;
/// The portfolio's best-first member gets `1 / share` of each attempt's nodes
/// ("BEST_FIRST_SHARE").
pub const BEST_FIRST_SHARE: u64 = 4;
/// [`BEST_FIRST_SHARE`] in a game with a stock ("BEST_FIRST_SHARE_STOCK").
pub const BEST_FIRST_SHARE_STOCK: u64 = 2;
/// The portfolio holds `1 / part` of `--memory` ("BEST_FIRST_PART").
pub const BEST_FIRST_PART: usize = 8;
/// [`BEST_FIRST_PART`] in a game with a stock ("BEST_FIRST_PART").
pub const BEST_FIRST_PART_STOCK: usize = 4;
/// The relocating swarm's own `1 / part` of `--memory` ("RELOCATE_SWARM_PART").
pub const RELOCATE_SWARM_PART: usize = 4;
/// The members may borrow `1 / part` of the room the table has not taken ("LOAN_PART").
pub const LOAN_PART: usize = 2;
/// How many times its share a digging member takes in a game with a stock
/// ("STOCK_DIG_FACTOR").
pub const STOCK_DIG_FACTOR: u64 = 4;
/// Nodes of the shortest probe (Luby's sequence times this) ("PROBE_NODES").
pub const PROBE_NODES: u64 = 2_000;
/// The probes get `1 / share` of each long attempt's budget ("PROBE_SHARE").
pub const PROBE_SHARE: u64 = 2;
/// [`PROBE_SHARE`] in a game with a stock ("PROBE_SHARE").
pub const PROBE_SHARE_STOCK: u64 = 8;
/// Most bytes of the probes' table ("PROBE_TABLE_BYTES").
pub const PROBE_TABLE_BYTES: usize = 32 << 20;
/// The quotient's first run ("QUOTIENT_FIRST_NODES").
pub const QUOTIENT_FIRST_NODES: u64 = 50_000;
/// The quotient's first run in streets-and-alleys ("QUOTIENT_FIRST_NODES").
pub const QUOTIENT_FIRST_NODES_SA: u64 = 300_000;
/// After a branch win the quotient earns `1 / share` of the other phases' nodes
/// ("QUOTIENT_SHARE").
pub const QUOTIENT_SHARE: u64 = 1;
/// Before one, this many times each long attempt's budget ("QUOTIENT_SHARE_UNBRANCHED").
pub const QUOTIENT_SHARE_UNBRANCHED: u64 = 8;
/// The quotient's thread beside the schedule holds `1 / part` of `--memory`
/// ("QUOTIENT_THREAD_PART").
pub const QUOTIENT_THREAD_PART: usize = 4;
/// The window of the quotient's runs ("QUOTIENT_FIRST_K").
pub const QUOTIENT_FIRST_K: u8 = 1;
/// The widest window before the exact one ("QUOTIENT_MAX_K").
pub const QUOTIENT_MAX_K: u8 = 5;
/// The window at which nothing branches ("QUOTIENT_EXACT_K").
pub const QUOTIENT_EXACT_K: u8 = 13;
/// Most nodes of the search from a false line's last real position ("PREFIX_NODES").
pub const PREFIX_NODES: u64 = 1_000_000;
/// Least nodes of that search ("PREFIX_NODES").
pub const PREFIX_MIN_NODES: u64 = 20_000;
/// Most bytes that search holds ("PREFIX_NODES").
pub const PREFIX_MAX_BYTES: usize = 64 << 20;
/// Below this room that search is not run ("PREFIX_NODES").
pub const PREFIX_MIN_BYTES: usize = 1 << 20;

/// The plan of a solve (see the module's opening). Read from JSON with every field named
/// (`deny_unknown_fields`: a misspelt field is an error, not a default).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// The quick phase's nodes (a depth-first attempt that plays home at once), if it runs.
    pub quick: Option<u64>,
    /// The portfolio's first slice right after a quick phase that ran out of nodes (its
    /// best-first member's nodes), if the portfolio runs.
    pub early_slice: Option<u64>,
    /// The restarted depth-first attempts.
    pub attempts: Attempts,
    /// The phases that run after each attempt cut by its node budget, in this order.
    pub between: Vec<Between>,
    /// The portfolio of searches for a win, if it runs.
    pub portfolio: Option<PortfolioPlan>,
    /// The suit-blind quotient, if it runs (where the rules allow it).
    pub quotient: Option<QuotientPlan>,
    /// The probes, if they run.
    pub probes: Option<ProbePlan>,
}

/// The depth-first attempts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attempts {
    /// Node budget of the first attempt, each later one twice the one before; `None`: one
    /// attempt with no budget but the solve's (no restarts, and then no phase between).
    pub first: Option<u64>,
    /// Attempts with at least this budget keep the positions they prove lost; `None`:
    /// none does.
    pub keep_proofs_from: Option<u64>,
}

/// A phase that runs between two attempts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Between {
    /// A slice of the portfolio.
    Portfolio,
    /// The quotient's runs its credit pays for.
    Quotient,
    /// The probes their credit pays for.
    Probes,
}

/// The portfolio (docs/design.md, "The portfolio").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortfolioPlan {
    /// Its best-first member's slice is `1 / share` of the attempt's budget.
    pub share: u64,
    /// Its members hold `1 / memory_part` of `--memory` together.
    pub memory_part: usize,
    /// The share once the deal looks winnable (a quotient run met a branch win), if other.
    pub winnable_share: Option<u64>,
    /// The relocating swarm's own `1 / part` of `--memory`, if it has room of its own.
    pub swarm_part: Option<usize>,
    /// Members that keep every position may borrow `1 / loan_part` of the table's idle
    /// room; `None`: no loans.
    pub loan_part: Option<usize>,
    /// The members, in the order they take turns.
    pub members: Vec<MemberPlan>,
}

/// One member of the portfolio and its budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemberPlan {
    /// Which search (its `--portfolio` name).
    pub member: Member,
    /// Its nodes, in quarters of the best-first member's slice.
    pub share: u64,
    /// For a restarted member, its shortest run (times Luby's sequence); 0 otherwise.
    pub restart_nodes: u64,
}

/// The probes (docs/design.md, "Probes").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbePlan {
    /// Nodes of the shortest probe.
    pub unit: u64,
    /// They earn `1 / share` of each long attempt's budget.
    pub share: u64,
    /// Most bytes of their table (at most a thirty-second of `--memory`).
    pub table_bytes: usize,
}

/// The quotient (docs/design.md, "The suit-blind quotient").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuotientPlan {
    /// Nodes of its first run (right after the quick phase); a run cut by its nodes doubles
    /// the next.
    pub first_nodes: u64,
    /// After a branch win it earns `1 / share` of the other phases' nodes.
    pub share: u64,
    /// Before one, this many times each long attempt's budget.
    pub share_unbranched: u64,
    /// Beside the schedule (two threads or more) it holds `1 / thread_part` of `--memory`.
    pub thread_part: usize,
    /// The window of its runs.
    pub first_k: u8,
    /// The widest window before the exact one.
    pub max_k: u8,
    /// The window at which nothing branches.
    pub exact_k: u8,
    /// Most nodes of the exact search from a false line's last real position (0: none).
    pub prefix_nodes: u64,
    /// Least nodes of that search.
    pub prefix_min_nodes: u64,
    /// Most bytes it holds.
    pub prefix_max_bytes: usize,
    /// Below this room it is not run.
    pub prefix_min_bytes: usize,
    /// Nodes of a short run right after the quick phase, before the portfolio's early slice
    /// (and its exact search from a false line's real position at most as many), if any:
    /// most lost deals are proved by a run of a few hundred positions, and a winnable deal
    /// loses at most these nodes.
    #[serde(default)]
    pub early_nodes: Option<u64>,
}

impl Member {
    /// Its default share in a game with a stock or not (the digging members take
    /// [`STOCK_DIG_FACTOR`] times theirs in one; "The portfolio's members" in the log).
    pub const fn default_share(self, stock: bool) -> u64 {
        let share = match self {
            Member::Bound | Member::Swarm | Member::Relocate | Member::Novelty => 4,
            Member::RelocateSwarm => 16,
            _ => 1,
        };
        match self {
            Member::Dig | Member::Disorder | Member::Home if stock => share * STOCK_DIG_FACTOR,
            _ => share,
        }
    }

    /// Its default shortest run, for a restarted member ("RESTART_NODES").
    pub const fn default_restart_nodes(self) -> u64 {
        match self {
            Member::Restarts => RESTART_NODES,
            Member::Relocate => RELOCATE_RESTART_NODES,
            _ => 0,
        }
    }
}

impl Members {
    /// The members in the set, each with its default budget under `rules` (the plan's rows).
    pub fn plans(self, rules: &crate::Rules) -> Vec<MemberPlan> {
        self.iter()
            .map(|m| MemberPlan::default_for(m, rules))
            .collect()
    }
}

impl MemberPlan {
    /// The member with its default budget under `rules`.
    pub fn default_for(member: Member, rules: &Rules) -> MemberPlan {
        MemberPlan {
            member,
            share: member.default_share(rules.stock),
            restart_nodes: member.default_restart_nodes(),
        }
    }
}

impl Plan {
    /// The plan a deal of these rules gets (every phase on; the rows in which a game with a
    /// stock, and streets-and-alleys, differ are the measured ones of the log).
    pub fn for_rules(rules: &Rules) -> Plan {
        let stock = rules.stock;
        let sa = rules.variant == Variant::StreetsAndAlleys;
        Plan {
            quick: Some(if stock {
                QUICK_NODES_STOCK
            } else {
                QUICK_NODES
            }),
            early_slice: Some(EARLY_SLICE),
            attempts: Attempts {
                first: Some(FIRST_ATTEMPT_NODES),
                keep_proofs_from: Some(PROVE_FROM_NODES),
            },
            between: vec![Between::Portfolio, Between::Quotient, Between::Probes],
            portfolio: Some(PortfolioPlan {
                share: if stock {
                    BEST_FIRST_SHARE_STOCK
                } else {
                    BEST_FIRST_SHARE
                },
                memory_part: if stock {
                    BEST_FIRST_PART_STOCK
                } else {
                    BEST_FIRST_PART
                },
                winnable_share: sa.then_some(1),
                swarm_part: (!stock).then_some(RELOCATE_SWARM_PART),
                loan_part: Some(LOAN_PART),
                members: Members::DEFAULT.plans(rules),
            }),
            quotient: Some(QuotientPlan {
                first_nodes: if sa {
                    QUOTIENT_FIRST_NODES_SA
                } else {
                    QUOTIENT_FIRST_NODES
                },
                share: QUOTIENT_SHARE,
                share_unbranched: QUOTIENT_SHARE_UNBRANCHED,
                thread_part: QUOTIENT_THREAD_PART,
                first_k: QUOTIENT_FIRST_K,
                max_k: QUOTIENT_MAX_K,
                exact_k: QUOTIENT_EXACT_K,
                prefix_nodes: PREFIX_NODES,
                prefix_min_nodes: PREFIX_MIN_NODES,
                prefix_max_bytes: PREFIX_MAX_BYTES,
                prefix_min_bytes: PREFIX_MIN_BYTES,
                early_nodes: Some(EARLY_QUOTIENT_NODES),
            }),
            probes: Some(ProbePlan {
                unit: PROBE_NODES,
                share: if stock {
                    PROBE_SHARE_STOCK
                } else {
                    PROBE_SHARE
                },
                table_bytes: PROBE_TABLE_BYTES,
            }),
        }
    }

    /// Reads a plan from JSON text.
    ///
    /// # Errors
    /// Text that is not a plan: the parser's message (line and column) and what is wrong.
    pub fn from_json(text: &str) -> Result<Plan, String> {
        let p: Plan = serde_json::from_str(text).map_err(|e| e.to_string())?;
        p.check()?;
        Ok(p)
    }

    /// The plan as pretty JSON (what `--plan` reads).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a plan always serializes")
    }

    /// Refuses numbers the schedule divides by or cannot use.
    fn check(&self) -> Result<(), String> {
        let nonzero = |what: &str, v: u64| {
            if v == 0 {
                Err(format!("{what} must be at least 1"))
            } else {
                Ok(())
            }
        };
        if let Some(pf) = &self.portfolio {
            nonzero("portfolio.share", pf.share)?;
            nonzero("portfolio.memory_part", pf.memory_part as u64)?;
            if let Some(s) = pf.winnable_share {
                nonzero("portfolio.winnable_share", s)?;
            }
            if let Some(s) = pf.swarm_part {
                nonzero("portfolio.swarm_part", s as u64)?;
            }
            if let Some(s) = pf.loan_part {
                nonzero("portfolio.loan_part", s as u64)?;
            }
        }
        if let Some(q) = &self.quotient {
            nonzero("quotient.share", q.share)?;
            nonzero("quotient.thread_part", q.thread_part as u64)?;
            if !(1..=13).contains(&q.first_k)
                || q.max_k < q.first_k
                || q.exact_k < q.max_k
                || q.exact_k > 13
            {
                return Err(
                    "quotient windows must satisfy 1 <= first_k <= max_k <= exact_k <= 13"
                        .to_string(),
                );
            }
        }
        if let Some(p) = &self.probes {
            nonzero("probes.unit", p.unit)?;
            nonzero("probes.share", p.share)?;
        }
        Ok(())
    }

    /// Whether `phase` runs between the attempts.
    pub fn runs(&self, phase: Between) -> bool {
        self.between.contains(&phase)
            && match phase {
                Between::Portfolio => self.portfolio.is_some(),
                Between::Quotient => self.quotient.is_some(),
                Between::Probes => self.probes.is_some(),
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_reads_back_as_written_and_misspellings_are_refused() {
        for v in Variant::ALL {
            let p = Plan::for_rules(&v.rules());
            assert_eq!(Plan::from_json(&p.to_json()).unwrap(), p, "{v:?}");
        }
        let p = Plan::for_rules(&Variant::BeleagueredCastle.rules());
        let bad = p.to_json().replace("\"early_slice\"", "\"early_slise\"");
        assert!(Plan::from_json(&bad).unwrap_err().contains("early_slise"));
        let zero = p.to_json().replacen("\"share\": 4", "\"share\": 0", 1);
        assert!(Plan::from_json(&zero).unwrap_err().contains("share"));
    }
}
