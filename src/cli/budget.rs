//! The search budgets and switches every solving command shares (`solve`, `batch`, `bench`)
//! and the [`Solver`] they make.

use super::{input, seconds_flag, BUDGETS, SHORT, TUNING};
use castle::{InputError, Limits, Pruning, Solver};
use clap::Args;
use std::path::PathBuf;

/// Search budgets.
#[derive(Args, Debug, Clone)]
pub struct BudgetArgs {
    /// Stop after this many nodes (then the verdict is `unknown`).
    #[arg(long, help_heading = BUDGETS)]
    pub max_nodes: Option<u64>,
    /// Stop after this many seconds (then the verdict is `unknown`).
    #[arg(long, help_heading = BUDGETS)]
    pub max_seconds: Option<f64>,
    /// MiB for the transposition table; when full, entries are replaced (slower, still exact).
    #[arg(long, help_heading = BUDGETS, default_value_t = castle::solver::DEFAULT_MEMORY_MIB)]
    pub memory: usize,
    /// Switch off the search reductions (for checking them; much slower).
    #[arg(long, hide = true)]
    pub no_prune: bool,
    /// One depth-first search with no restarts (for checking them).
    #[arg(long, hide = true)]
    pub no_restarts: bool,
    /// Restart every attempt from an empty table, forgetting the states earlier attempts
    /// proved lost (for checking that keeping them changes no verdict).
    #[arg(long, hide = true)]
    pub no_keep_proofs: bool,
    /// Attempts with at least this node budget keep the states they prove lost (for
    /// measuring the threshold; see `PROVE_FROM_NODES`).
    #[arg(long, hide = true, default_value_t = castle::solver::PROVE_FROM_NODES)]
    pub prove_from_nodes: u64,
    /// Print the search's win as found, without the shortening pass.
    #[arg(long, hide = true)]
    pub no_shorten: bool,
    /// Skip the quick phase (the complete search decides every deal; the portfolio's first
    /// slice then waits for the first depth-first attempt).
    #[arg(long, help_heading = TUNING)]
    pub no_quick: bool,
    /// No best-first searches (the portfolio) after the quick phase and between the
    /// depth-first attempts.
    #[arg(long, help_heading = TUNING)]
    pub no_best_first: bool,
    /// The portfolio's members, comma-separated: best-first, disorder, dig, greedy, swarm,
    /// home, restarts, relocate, relocate-swarm, novelty; `default` or `all` (every one).
    #[arg(long, help_heading = TUNING, default_value = "default", value_parser = parse_members, conflicts_with = "no_best_first")]
    pub portfolio: castle::solver::portfolio::Members,
    /// No probes (short depth-first attempts with new move orders) between the long ones.
    #[arg(long, help_heading = TUNING)]
    pub no_probes: bool,
    /// Vary the random draws of the searches for a win (the portfolio's swarms and members):
    /// 0 is the usual search. A deal left unknown by a budget is the same search again with
    /// the same salt, another one with another salt. Wins may differ; no verdict depends on
    /// it (batch --retry-unknown adds each deal's count of unknown rows).
    #[arg(long, help_heading = TUNING, default_value_t = 0)]
    pub salt: u64,
    /// Run the plan in FILE (JSON, as `castle solve --show-plan` prints it): which phases run,
    /// in what order, with what budgets. The switches above still apply to it. No plan changes
    /// a verdict, only which search reaches it and the nodes.
    #[arg(long, help_heading = TUNING, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    /// No suit-blind quotient between the attempts (its budgeted searches of a smaller space
    /// can prove a loss that the exact search would take far longer to prove).
    #[arg(long)]
    pub no_quotient: bool,
    /// Percent of --memory the quotient holds on its own thread beside the schedule (with two
    /// threads or more; the schedule gets the rest). Its refining runs decide the hardest
    /// deals, and on some need more than the default quarter.
    #[arg(long, help_heading = BUDGETS, value_name = "PERCENT", default_value_t = castle::defaults::QUOTIENT_MEMORY_PERCENT,
          value_parser = clap::value_parser!(u8).range(1..=90))]
    pub quotient_memory: u8,
    /// Decide the deal with the layered search instead of the usual schedule: every position
    /// reachable from the deal, searched one level of progress (cards home plus cards dealt)
    /// at a time, with only one class of positions (one set of foundation heights) in its hash
    /// set at once, within --memory. Its `unsolvable` is a proof; it meets a win only after
    /// every lower level, so it is for deals the usual search leaves unknown: an easy deal
    /// can take it far longer (give --spill alone to let the usual schedule try first).
    /// Needs foundation return off (with it the usual schedule runs).
    #[arg(long)]
    pub layered: bool,
    /// Go on on disk under DIR when the memory runs out: the usual schedule runs first, and
    /// only if its table fills does the layered search (see --layered) take the deal on,
    /// going on on disk when its positions outgrow --memory (a directory of its own is made
    /// under DIR and removed at the end): the classes waiting their turn first, then the class
    /// being searched, whose duplicates are then found one partition at a time. With
    /// --layered, the layered search from the start. A full disk ends the solve as unknown.
    #[arg(long, value_name = "DIR")]
    pub spill: Option<std::path::PathBuf>,
    /// With --spill: most GiB its files may hold at once, fractions allowed (a deal that
    /// needs more ends unknown, as on a full disk). Default: what the disk holds.
    #[arg(long, value_name = "GIB", requires = "spill", value_parser = parse_gib)]
    pub spill_max: Option<u64>,
    /// With --spill: seconds between two checkpoints (written when a class of positions
    /// closes). A search stopped without a verdict (a budget, Ctrl-C, a crash) leaves its
    /// last checkpoint in DIR, and the same command run again takes it up.
    #[arg(long, value_name = "SECONDS", requires = "spill", default_value_t = castle::defaults::CHECKPOINT_SECS)]
    pub checkpoint_every: f64,
    /// Nodes of the shortest probes (their sizes follow Luby's sequence: 1, 1, 2, 1, 1, 2, 4
    /// ... times this).
    #[arg(long, help_heading = TUNING, default_value_t = castle::solver::PROBE_NODES, value_parser = clap::value_parser!(u64).range(1..), conflicts_with = "no_probes")]
    pub probe_nodes: u64,
    /// After a win, search best-first for a shorter one (weighted A*, then plain A*); says
    /// when the win printed is the shortest there is.
    #[arg(long, help_heading = SHORT)]
    pub short: bool,
    /// Positions the --short search may expand (about 80 bytes each, within --memory).
    #[arg(long, help_heading = SHORT, default_value_t = castle::defaults::SHORT_NODES_LONG, requires = "short")]
    pub short_nodes: u64,
}

pub use castle::defaults::MAX_MEMORY_MIB;

impl BudgetArgs {
    /// The solver these budgets and switches make (one thread).
    pub fn to_solver(&self) -> Result<Solver, InputError> {
        if self.memory == 0 {
            return Err(input("--memory must be at least 1 (MiB)"));
        }
        if self.memory > MAX_MEMORY_MIB {
            return Err(input(format!(
                "--memory {} is more than any machine has (at most {MAX_MEMORY_MIB} MiB)",
                self.memory
            )));
        }
        let max_seconds = match self.max_seconds {
            Some(s) => seconds_flag("--max-seconds", s)?,
            None => None,
        };
        Ok(Solver {
            limits: Limits {
                max_nodes: self.max_nodes,
                max_seconds,
                memory_bytes: self.memory << 20,
            },
            pruning: if self.no_prune {
                Pruning::NONE
            } else {
                Pruning::ALL
            },
            restarts: !self.no_restarts,
            keep_proofs: (!self.no_keep_proofs).then_some(self.prove_from_nodes),
            first_attempt: castle::solver::FIRST_ATTEMPT_NODES,
            shorten: !self.no_shorten,
            quick: !self.no_quick,
            best_first: !self.no_best_first,
            members: self.portfolio,
            probes: (!self.no_probes).then_some(self.probe_nodes),
            salt: self.salt,
            quotient: !self.no_quotient,
            quotient_percent: Some(self.quotient_memory),
            layered: self.layered,
            spill: match &self.spill {
                Some(dir) => Some(castle::solver::layered::SpillTo {
                    dir: spill_dir(dir)?,
                    max_bytes: self.spill_max,
                    checkpoint_secs: Some(
                        seconds_flag("--checkpoint-every", self.checkpoint_every)?
                            .unwrap_or(f64::INFINITY),
                    ),
                }),
                None => None,
            },
            threads: 1,
            short: self.short.then_some(self.short_nodes),
            plan: match &self.plan {
                Some(path) => Some(read_plan(path)?),
                None => None,
            },
            ..Solver::default()
        })
    }
}

/// `--plan FILE`: the plan, or an error naming the file (and the line and column the JSON
/// parser stopped at).
fn read_plan(path: &std::path::Path) -> Result<castle::solver::plan::Plan, InputError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| input(format!("--plan {}: {e}", path.display())))?;
    castle::solver::plan::Plan::from_json(&text)
        .map_err(|e| input(format!("--plan {}: not a plan: {e}", path.display())))
}

/// `--spill-max GIB`: a positive number of GiB, as bytes.
fn parse_gib(s: &str) -> Result<u64, InputError> {
    match s.parse::<f64>() {
        Ok(g) if g.is_finite() && g > 0.0 && g < 1e9 => Ok((g * f64::from(1u32 << 30)) as u64),
        _ => Err(input(format!("`{s}` is not a positive number of GiB"))),
    }
}

/// `--spill DIR`: the directory, made if missing; an error names it when it cannot be made
/// or written.
fn spill_dir(dir: &std::path::Path) -> Result<std::sync::Arc<std::path::Path>, InputError> {
    let fail = |e: std::io::Error| input(format!("--spill {}: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(fail)?;
    let probe = dir.join(format!(".castle-probe-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(fail)?;
    let _ = std::fs::remove_file(&probe);
    Ok(std::sync::Arc::from(dir))
}

/// `--portfolio`: member names.
fn parse_members(list: &str) -> Result<castle::solver::portfolio::Members, InputError> {
    match castle::solver::portfolio::Members::parse(list) {
        Ok(m) if m.0 != 0 => Ok(m),
        Ok(_) => Err(input("no member named (try `all`)")),
        Err(e) => Err(e),
    }
}
