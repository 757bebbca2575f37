//! The command line: clap parses into these types, and they turn themselves into the
//! library's options (rules, a [`Solver`], [`BatchOptions`], ...) and read the deal files
//! they name; `main.rs` dispatches. This is the only module that knows clap, and with
//! [`progress`] (the spinner and the progress bar) the only one that knows indicatif.

mod budget;
pub mod certificate;
pub mod progress;
pub mod signals;
pub mod winnable;

pub use budget::BudgetArgs;

use castle::batch::{BatchOptions, Seeds};
use castle::bench::{PeerOptions, PeerPresets};
use castle::formats::{self, Format, ReadOptions};
use castle::render::Color;
use castle::rules::SequenceMoves;
use castle::{Deal, InputError, InputKind, Rules, Solver, Variant};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// Exact solver for the Beleaguered Castle family of patience games.
#[derive(Parser, Debug)]
#[command(name = "castle", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print a numbered deal, or re-print a deal file in another format.
    #[command(after_help = DEAL_EXAMPLES)]
    Deal(DealArgs),
    /// Solve a deal exactly: a checked winning line, a proof of no win, or `unknown`.
    #[command(after_help = SOLVE_EXAMPLES)]
    Solve(SolveArgs),
    /// Replay a solution (the JSON that `solve --format json` prints, or fc-solve's output
    /// with --fc-solve) and check every move.
    #[command(after_help = VERIFY_EXAMPLES)]
    Verify(VerifyArgs),
    /// Write the page that replays a solve report or a saved game: one HTML file, no network,
    /// the board and the moves stepped through.
    #[command(after_help = SHOW_EXAMPLES)]
    Show(ShowArgs),
    /// List the variants and their rules.
    Variants,
    /// Print shell completions (bash, zsh, fish, elvish, powershell).
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Run the fixed benchmark sets and print nodes, speed and memory.
    #[command(after_help = BENCH_EXAMPLES)]
    Bench(BenchArgs),
    /// Solve a range of numbered deals in parallel: CSV or JSON-lines rows, resumable.
    #[command(after_help = BATCH_EXAMPLES)]
    Batch(BatchArgs),
    /// Merge batch files (CSV or JSON lines) and print win rates (95% Wilson intervals) and
    /// distributions, as text, JSON or CSV, or drawn as an SVG picture.
    #[command(after_help = STATS_EXAMPLES)]
    Stats(StatsArgs),
    /// Every legal move from a position, each with whether the game is still winnable after
    /// it, and the position's difficulty (nodes to decide, solution length).
    #[command(after_help = ANALYZE_EXAMPLES)]
    Analyze(AnalyzeArgs),
    /// Play a deal in the terminal, with the solver as a coach (one command per line when
    /// standard input or output is not a terminal; `help` lists the commands).
    #[command(after_help = PLAY_EXAMPLES)]
    Play(PlayArgs),
    /// Play in a browser: a local web app (the page and its JSON API) with the exact solver
    /// as the coach. Listens on 127.0.0.1 only unless --bind says otherwise.
    #[cfg(feature = "serve")]
    #[command(after_help = SERVE_EXAMPLES)]
    Serve(ServeArgs),
    /// Check certificates of lost deals (from `solve --certificate` or `batch
    /// --certificates`) with code independent of the search: the deal's start is in the set,
    /// no member is won, and every legal move from every member stays in it.
    #[command(after_help = CHECK_CERTIFICATE_EXAMPLES)]
    CheckCertificate(CheckCertificateArgs),
}

const CHECK_CERTIFICATE_EXAMPLES: &str =
    "Exit code 0 when every file checks out, 1 when one is rejected (the first member
whose move leaves the set is printed), 2 for a file that is not a certificate.

Examples:
  castle solve --seed 9830 --certificate c.cert && castle check-certificate c.cert
  castle check-certificate c.cert --seed 9830       also require it to be about deal 9830
  castle check-certificate certs/*.cert -j 2        every certificate of a batch";

const DEAL_EXAMPLES: &str = "Examples:
  castle deal --seed 42                       deal 42 of beleaguered-castle, as text
  castle deal -v citadel --seed 7 --board     drawn as the game lays it out
  castle deal --seed 42 --format fcs          as an fc-solve board
  castle deal --seed 67 --numbering pysol     PySolFC's game 67
  castle deal --winnable --seed 1000          the first winnable deal from 1000 on
  castle deal -v sa --winnable --random --difficulty hard --count 5
                                              five hard winnable deals, drawn at random";

const SOLVE_EXAMPLES: &str =
    "By default the win printed is the shortest castle finds within a small budget (a short
best-first search after the win, 20,000 positions); --raw prints the search's first win as
found, --short searches longer (and says when no win is shorter).

Examples:
  castle solve --seed 42                      board, verdict, numbered moves
  castle solve my-board.txt                   a deal file (text, fc-solve board or JSON)
  castle solve < board.fcs                    a deal on standard input
  castle solve -v castile --seed 7 -f json    the JSON report (castle verify reads it)
  castle solve --seed 9830 --certificate c.cert   a lost deal's certificate
  castle solve --seed 42 -f html > sol.html   a page that replays the win (open it in a browser)
  castle solve --seed 42 --short              search on for the shortest win
  castle solve -v courtyard --seed 1 --max-seconds 10";

const VERIFY_EXAMPLES: &str = "Examples:
  castle solve --seed 42 -f json > sol.json && castle verify sol.json
  castle verify --fc-solve fc.out --seed 3041     fc-solve's solution of deal 3041";

const SHOW_EXAMPLES: &str = "Examples:
  castle solve --seed 42 -f json > sol.json && castle show sol.json -o sol.html
  castle show castle-beleaguered-castle-42.json -o game.html    a game saved by castle play
  castle show sol.json > sol.html                               the page on standard output
Open the page at move 12: sol.html#move=12.";

const COMPLETIONS_EXAMPLES: &str = "Examples:
  castle completions bash > ~/.local/share/bash-completion/completions/castle
  castle completions fish > ~/.config/fish/completions/castle.fish";

const BENCH_EXAMPLES: &str = "Examples:
  castle bench -v bc                          the beleaguered-castle set only
  castle bench --deal hard.fcs                one deal with one thread and with two
  castle bench --deal hard.fcs -j 1           one deal with one thread only
  castle bench --peer --numbering pysol -v sa PySolFC's sa 1..100 beside fc-solve's complete
                                              search and its -l ct preset";

const BATCH_EXAMPLES: &str = "Examples:
  castle batch --seeds 1..1000 --csv bc.csv             resumable: run it again to go on
  castle batch -v sa --seeds 1..100 -f jsonl > sa.jsonl
  castle batch --seeds 1..100000 --shard 0/4 --csv bc-0.csv   one machine's quarter
  castle batch --seeds 1..1000 --csv bc.csv --certificates certs   with each loss's certificate";

const STATS_EXAMPLES: &str = "Examples:
  castle stats bc.csv                         win rate, lengths, nodes
  castle stats bc-0.csv bc-1.csv bc-2.csv     shards merged (duplicates counted once)
  castle stats bc.csv sa.jsonl --format csv   one line per variant and options
  castle stats bc.csv sa.csv --plot out.svg   the pictures";

const ANALYZE_EXAMPLES: &str = "Examples:
  castle analyze --seed 42                    every first move, winnable or not
  castle analyze --seed 42 --after \"t1 f, 3 f\"  after two moves";

const PLAY_EXAMPLES: &str = "Examples:
  castle play --seed 42
  printf 'hint\\nquit\\n' | castle play --seed 42   one command per line";

/// `castle play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Which deal (a random deal number when neither --seed nor --deal is given).
    #[command(flatten)]
    pub source: DealSource,
    /// Start from a saved game (the JSON that `save` writes, or any `solve --format json`;
    /// its rule options are the file's own).
    #[arg(long, conflicts_with_all = ["seed", "deal", "start_rank", "foundation_return", "sequence_moves"])]
    pub load: Option<PathBuf>,
    /// No automatic safe moves to the foundations at the start.
    #[arg(long)]
    pub no_auto: bool,
    /// Node budget of each coach search (the "winnable?" mark, hints); 0 turns the coach off.
    #[arg(long, default_value_t = 1_000_000)]
    pub coach_nodes: u64,
    /// Time budget of each coach search in the full-screen board.
    #[arg(long, default_value_t = 3.0)]
    pub coach_seconds: f64,
    /// One command per line even on a terminal.
    #[arg(long)]
    pub lines: bool,
}

#[cfg(feature = "serve")]
const SERVE_EXAMPLES: &str = "Examples:
  castle serve                                then open http://127.0.0.1:8080/
  castle serve --port 9000 --coach-seconds 5
  castle serve --bind 0.0.0.0                 every machine that reaches this one may play";

/// `castle serve`.
#[cfg(feature = "serve")]
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The port (0: one the system picks; the address is printed on start).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on: 127.0.0.1 (this machine only) unless told otherwise.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    /// MiB the whole server may use: 64 for itself, the rest shared by the solves in flight.
    #[arg(long, default_value_t = 1024)]
    pub memory: usize,
    /// Solves in flight at once (default: one a core).
    #[arg(long)]
    pub solves: Option<usize>,
    /// Requests that may wait for a solve's place; more are answered 503 with Retry-After.
    #[arg(long, default_value_t = 16)]
    pub queue: usize,
    /// Node budget of each request that solves (coach, solve, analyze).
    #[arg(long, default_value_t = 2_000_000)]
    pub coach_nodes: u64,
    /// Time budget of each request that solves.
    #[arg(long, default_value_t = 2.0)]
    pub coach_seconds: f64,
}

#[cfg(feature = "serve")]
impl ServeArgs {
    /// The server's configuration.
    pub fn to_config(&self) -> castle::serve::Config {
        let d = castle::serve::Config::default();
        castle::serve::Config {
            addr: std::net::SocketAddr::new(self.bind, self.port),
            memory_mib: self.memory,
            solves: self.solves.unwrap_or(d.solves),
            queue: self.queue,
            coach_nodes: self.coach_nodes,
            coach_seconds: self.coach_seconds,
            body_bytes: d.body_bytes,
        }
    }
}

/// `castle analyze`.
#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    /// Which deal.
    #[command(flatten)]
    pub source: DealSource,
    /// Moves to play first, as `FROM TO` pairs separated by commas: `t3 f, t1 t5` (a third
    /// word counts the cards of a run under unlimited sequence moves; `f:5H t2` names a
    /// foundation card).
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub after: String,
    /// Budgets of the whole analysis: each solve (the position's, then each move's) gets an
    /// equal share of what the solves before it left.
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "text")]
    pub format: OutFormat,
}

/// Row formats of `batch` on standard output.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowFormat {
    /// CSV with a header.
    Csv,
    /// One `solve --format json` object per line.
    Jsonl,
}

/// `castle batch`.
#[derive(Args, Debug)]
pub struct BatchArgs {
    /// The variant (aliases: bc and beleaguered-fortress, sa, bastion for castile).
    #[arg(long, short = 'v', default_value = "beleaguered-castle", value_parser = variant_names())]
    pub variant: String,
    /// Rule options and deal numbering.
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Deal numbers: ranges (inclusive) and numbers, separated by commas: `1..1000000`,
    /// `3041,9830`, `1..100,250`.
    #[arg(long)]
    pub seeds: String,
    /// Only every N-th seed of the list, starting at the K-th: `K/N` with K = 0..N-1.
    #[arg(long)]
    pub shard: Option<String>,
    /// Worker threads (default: every core).
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u16).range(1..=MAX_THREADS))]
    pub threads: Option<u16>,
    /// Append rows to this CSV file; run again with the same arguments to resume.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Row format on standard output when no --csv is given.
    #[arg(long, short = 'f', value_enum, default_value = "csv")]
    pub format: RowFormat,
    /// Also append the seeds proved winnable to this file, one per line.
    #[arg(long)]
    pub winnable_only: Option<PathBuf>,
    /// Solve again the seeds whose rows in --csv all say `unknown` (with this run's budgets,
    /// say a larger --max-seconds), appending their new rows; `stats` counts a decided row
    /// over `unknown` ones. Each deal's --salt is raised by its count of unknown rows, so a
    /// retry searches for wins along other lines rather than the same ones again.
    #[arg(long, requires = "csv")]
    pub retry_unknown: bool,
    /// Solve each deal once with the budgets given, all threads at once (without it a batch
    /// solves in passes: every deal with a small node budget, the deals left with a larger
    /// one, then the last ones one at a time on every thread with the whole --memory)
    #[arg(long)]
    pub one_pass: bool,
    /// Node budgets of the passes before the last, comma-separated, increasing (at most two)
    #[arg(
        long,
        value_name = "N,N",
        default_value = "3000000,30000000",
        conflicts_with = "one_pass"
    )]
    pub pass_nodes: String,
    /// Write a certificate of each deal proved lost into this directory (made if missing),
    /// as `VARIANT-SEED.cert` (see `solve --certificate`); `check-certificate` checks them.
    #[arg(long, value_name = "DIR")]
    pub certificates: Option<PathBuf>,
    /// Certify every loss as it is found: build the deal's certificate and check it with the
    /// independent checker before its row is written (the row's `certified` column; its CPU
    /// is in `cpu_ms`), keeping no file (--certificates keeps them)
    #[arg(long)]
    pub certify: bool,
    /// Budgets for each deal; --memory is shared by all threads.
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// No progress bar.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// `castle stats`.
#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Batch files, CSV or JSON lines (shards of one run, or several runs).
    #[arg(required_unless_present = "join")]
    pub files: Vec<PathBuf>,
    /// Also write the summary as CSV to this file.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Output format: text, or one JSON object / CSV line per variant and options (point
    /// win rate, both interval ends, the options as columns of their own).
    #[arg(long, short = 'f', value_enum, default_value = "text")]
    pub format: StatsFormat,
    /// Draw the win rates, solution lengths, lost deals' scores and times to this SVG file.
    #[arg(long, value_name = "SVG")]
    pub plot: Option<PathBuf>,
    /// Write the tables of data/tables into DIR: one bit per deal (winnable or not) for each
    /// variant and options, and their win rates in DIR/winrates.csv (every deal of each range
    /// must be decided, but see --allow-unknown)
    #[arg(long, value_name = "DIR")]
    pub table: Option<PathBuf>,
    /// With --table: write a table whose range still has unknown deals (their last pass not
    /// finished), listing them in its row, with the win rate over the decided deals
    /// and an interval wide enough for either verdict of each
    #[arg(long, requires = "table")]
    pub allow_unknown: bool,
    /// With --table: decide the unknown deals of the tables already in DIR from these rows
    /// (a later run over them, `castle batch --seeds LIST`), leaving every other deal's
    /// verdict as the table has it; a row that disagrees with a table is refused
    #[arg(long, requires = "table", conflicts_with = "allow_unknown")]
    pub update: bool,
    /// With --table: write the table of deals FIRST..LAST from tables already in DIR that
    /// follow each other over it (ranges run apart, such as a million's quarters); the
    /// parts stay
    #[arg(
        long,
        value_name = "FIRST..LAST",
        requires = "table",
        conflicts_with_all = ["update", "allow_unknown"]
    )]
    pub join: Option<String>,
}

/// Output formats of `stats`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatsFormat {
    /// For people.
    Text,
    /// One JSON object per line, one line per variant and options.
    Json,
    /// CSV, one row per variant and options.
    Csv,
}

/// Which deal, by number or from a file.
#[derive(Args, Debug, Clone)]
pub struct DealSource {
    /// The variant (default beleaguered-castle; aliases: bc and beleaguered-fortress,
    /// sa, bastion for castile).
    #[arg(long, short = 'v', value_parser = variant_names())]
    pub variant: Option<String>,
    /// Deal number (the project's numbering).
    #[arg(long, short = 's', conflicts_with = "deal")]
    pub seed: Option<u64>,
    /// Deal file (`-` for standard input): text, fc-solve board or JSON.
    #[arg(long, short = 'd')]
    pub deal: Option<PathBuf>,
    /// Format of the deal file (detected if not given).
    #[arg(long, value_enum)]
    pub from: Option<InFormat>,
    /// Rule options and deal numbering.
    #[command(flatten)]
    pub rules: RuleArgs,
}

impl DealSource {
    /// Whose number `--seed` is.
    pub fn numbering(&self) -> castle::deal::Numbering {
        self.rules.numbering.into()
    }

    /// True if any of these flags was given (a command that reads its deal elsewhere refuses
    /// them).
    pub fn given(&self) -> bool {
        let r = &self.rules;
        self.variant.is_some()
            || self.seed.is_some()
            || self.deal.is_some()
            || self.from.is_some()
            || r.start_rank.is_some()
            || r.foundation_return
            || r.sequence_moves.is_some()
            || r.numbering != Numbering::Castle
    }
}

/// The rule options of the seed texts, and which deal numbers `--seed` means.
#[derive(Args, Debug, Clone)]
pub struct RuleArgs {
    /// Foundations start holding A..K of every suit (0..12; 1 is beleaguered-castle, 0
    /// streets-and-alleys). Beleaguered Castle family only.
    #[arg(long)]
    pub start_rank: Option<u8>,
    /// The top card of a foundation may go back to a tableau pile.
    #[arg(long)]
    pub foundation_return: bool,
    /// `unlimited`: an ordered run moves as one move whatever the empty piles.
    #[arg(long, value_enum)]
    pub sequence_moves: Option<SequenceArg>,
    /// Whose deal numbers the seeds (--seed, --seeds) are: this project's, or PySolFC's game
    /// numbers (beleaguered-castle, streets-and-alleys, citadel).
    #[arg(long, value_enum, default_value = "castle")]
    pub numbering: Numbering,
}

/// `--sequence-moves`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SequenceArg {
    /// One card per move.
    Single,
    /// An ordered run moves as one move.
    Unlimited,
}

/// `--numbering`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numbering {
    /// The project's own numbered shuffle (see the README).
    Castle,
    /// PySolFC's game numbers.
    Pysol,
}

/// `bench --peer-preset`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerPresetArg {
    /// fc-solve's complete single-card search.
    Complete,
    /// fc-solve's heuristic `-l ct` preset.
    Ct,
    /// Both.
    Both,
}

/// Deal file formats.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum InFormat {
    /// The project's text format.
    Text,
    /// fc-solve board.
    Fcs,
    /// Project or Solvitaire JSON.
    Json,
}

/// Output formats of `deal`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DealFormat {
    /// The project's text format (reads back with `--deal`).
    Text,
    /// fc-solve board.
    Fcs,
    /// JSON.
    Json,
}

/// Output formats of `solve`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutFormat {
    /// A board and numbered moves, for people.
    Text,
    /// One JSON object (the stable machine interface).
    Json,
}

/// Output formats of `solve`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolveFormat {
    /// A board and numbered moves, for people.
    Text,
    /// One JSON object (the stable machine interface).
    Json,
    /// One self-contained HTML page that replays the win on a drawn board.
    Html,
}

/// `castle deal`.
#[derive(Args, Debug)]
pub struct DealArgs {
    /// Which deal.
    #[command(flatten)]
    pub source: DealSource,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "text")]
    pub format: DealFormat,
    /// Draw the board as the seed games lay it out instead of the file format.
    #[arg(long)]
    pub board: bool,
    /// Winnable deals only (`--winnable`, with `--random`, `--count`, `--difficulty`).
    #[command(flatten)]
    pub winnable: winnable::WinnableArgs,
}

/// The help heading of the budgets.
const BUDGETS: &str = "Budgets";
/// The help heading of the flags that tune the search (none changes a verdict).
const TUNING: &str = "Search tuning (no verdict depends on these)";
/// The help heading of the short-solution search.
const SHORT: &str = "Shorter solutions";

/// `--variant`: the text as given (the library parses it, with its message for an unknown
/// name), and the names and aliases as the possible values that the help lists and the
/// shells complete.
#[derive(Clone, Copy, Debug)]
struct VariantNames;

impl clap::builder::TypedValueParser for VariantNames {
    type Value = String;

    fn parse_ref(
        &self,
        _cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        // Checked where the deal is made ([`parse_variant`]), with the library's message.
        Ok(value.to_string_lossy().into_owned())
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        use clap::builder::PossibleValue;
        Some(Box::new(Variant::ALL.into_iter().map(|v| {
            PossibleValue::new(v.name()).aliases(v.aliases().iter().copied())
        })))
    }
}

fn variant_names() -> VariantNames {
    VariantNames
}

/// `castle solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    /// A deal file (text, fc-solve board or JSON), as --deal; with no deal given and standard
    /// input not a terminal, the deal is read from standard input.
    #[arg(value_name = "DEAL_FILE", conflicts_with_all = ["seed", "deal"])]
    pub file: Option<PathBuf>,
    /// Which deal.
    #[command(flatten)]
    pub source: DealSource,
    /// Print the search's first win as found: no shortening (the default prints the
    /// shortest win a small best-first search finds after it).
    #[arg(long, help_heading = SHORT, conflicts_with = "short")]
    pub raw: bool,
    /// Budgets.
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// Threads searching the deal together, sharing one table (same verdict as one thread;
    /// with two or more and no --max-nodes, one of them runs the suit-blind quotient on its
    /// own, then a relocating swarm once the quotient is out of room; with --layered or
    /// --spill, the same search, expanded on every thread).
    #[arg(long, short = 'j', default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: u16,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "text")]
    pub format: SolveFormat,
    /// No progress spinner.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Print the plan this solve would run (JSON, the deal's rules' plan with the switches
    /// and --plan applied) and exit without solving; edit it and give it back with --plan.
    #[arg(long)]
    pub show_plan: bool,
    /// When the verdict is `unsolvable`, write a certificate of the loss to FILE: a set of
    /// positions that holds the deal, is closed under every legal move and holds no won
    /// position, built by a search of its own and checked before it is written
    /// (`castle check-certificate FILE` checks it again, with code independent of the search).
    #[arg(long, value_name = "FILE")]
    pub certificate: Option<PathBuf>,
    /// The certificate's kind: `auto` (the suit-blind quotient where the rules allow it and
    /// it proves the loss, else the exact positions), `exact`, or `quotient:K` (window K).
    #[arg(long, hide = true, default_value = "auto", requires = "certificate", value_parser = parse_certificate_kind)]
    pub certificate_kind: castle::solver::certify::Method,
    /// No safe-autoplay closure rule in the certificate: every position after every move is
    /// a member (larger; the check then rests on the rules alone).
    #[arg(long, requires = "certificate")]
    pub certificate_no_autoplay: bool,
}

/// `castle check-certificate`.
#[derive(Args, Debug)]
pub struct CheckCertificateArgs {
    /// Certificate files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The deal each certificate must be about (--seed with --variant and the rule options,
    /// or --deal FILE): a certificate of another deal or other rules is rejected.
    #[command(flatten)]
    pub source: DealSource,
    /// Threads checking each certificate's members.
    #[arg(long, short = 'j', default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: u16,
}

/// `--certificate-kind`: `auto`, `exact` or `quotient:K`.
fn parse_certificate_kind(s: &str) -> Result<castle::solver::certify::Method, InputError> {
    use castle::solver::certify::Method;
    match s {
        "auto" => Ok(Method::Auto),
        "exact" => Ok(Method::Exact),
        _ => match s.strip_prefix("quotient:").map(str::parse::<u8>) {
            Some(Ok(k)) if (1..=13).contains(&k) => Ok(Method::Quotient { k, dealt: true }),
            _ => Err(input(format!(
                "`{s}`: expected auto, exact or quotient:K (K = 1..13)"
            ))),
        },
    }
}

/// `castle show`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The solve report (`castle solve --format json`) or a game saved by `castle play`,
    /// `-` for standard input.
    pub file: PathBuf,
    /// Write the page to this file (default: standard output).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// `castle verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The solve report (JSON from `castle solve --format json`), `-` for standard input;
    /// with --fc-solve, fc-solve's output.
    pub file: PathBuf,
    /// FILE is fc-solve's output (`-m`, or `-p -t -sam` to compare every position) for the
    /// deal given by --variant and --seed or by --deal: its moves are replayed, a run through
    /// empty piles as the single moves it stands for.
    #[arg(long)]
    pub fc_solve: bool,
    /// With --fc-solve: the deal fc-solve was given.
    #[command(flatten)]
    pub source: DealSource,
    /// With --fc-solve: `json` prints the replayed line as castle's solve report (single
    /// moves; nodes, states and seconds 0), which `castle verify FILE` reads.
    #[arg(long, short = 'f', value_enum, default_value = "text")]
    pub format: OutFormat,
}

/// `castle bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Budgets (the defaults are the ones the targets are stated for).
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// Also run every set with the reductions off, as the baseline for the ratios.
    #[arg(long)]
    pub baseline: bool,
    /// Only the sets of this variant (aliases: bc and beleaguered-fortress, sa, bastion for
    /// castile); with --deal, the variant of the deal files.
    #[arg(long, short = 'v', value_parser = variant_names())]
    pub variant: Option<String>,
    /// Threads searching each deal together (the sets still run one deal at a time; default
    /// 1, and 2 with --deal).
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: Option<u16>,
    /// Solve these deal files instead of the sets, each with one thread and with --threads
    /// (default 2 here; -j 1 runs one thread only), printing the speed-up and each run's peak
    /// memory.
    #[arg(long = "deal", value_name = "FILE")]
    pub deals: Vec<PathBuf>,
    /// Deal numbers of the sets: castle's, or PySolFC's game numbers (beleaguered-castle,
    /// streets-and-alleys and citadel only; the other sets are left out).
    #[arg(long, value_enum, default_value = "castle")]
    pub numbering: Numbering,
    /// Also solve every deal with fc-solve, if it is installed (see --peer-preset): its
    /// complete search beside castle's verdicts and times, and its heuristic `-l ct` preset
    /// beside castle's wins (deals each wins that the other does not, time to a win and
    /// solution lengths on the deals both win). castle solves each deal once for both.
    #[arg(long)]
    pub peer: bool,
    /// Which fc-solve configurations --peer runs: `complete` (`-to 0AB -sp r:tf`, exact),
    /// `ct` (`-l ct`, heuristic: its give-ups prove nothing) or `both`.
    #[arg(long, value_enum, default_value = "both")]
    pub peer_preset: PeerPresetArg,
    /// Seconds fc-solve may spend on one deal under --peer (a deal it does not finish counts
    /// this long).
    #[arg(long, default_value_t = 10.0)]
    pub peer_seconds: f64,
    /// MiB of address space fc-solve may use on one deal under --peer.
    #[arg(long, default_value_t = 4096)]
    pub peer_memory: u64,
    /// What a million deals cost: solve each variant's fixed sample (10,000 deals, 2,000 of
    /// streets-and-alleys) as `castle batch` does, on every core (or --threads), and print
    /// CPU time, deals per core-hour, the hours a million deals take here and the time share
    /// of the slowest 1%.
    #[arg(long, conflicts_with_all = ["deals", "peer", "baseline"])]
    pub throughput: bool,
    /// How long a player of `castle serve` waits for the coach: positions a quarter, half and
    /// three quarters of the way through each won deal of the sets, each asked with the
    /// server's default budget and an empty cache; the times' quantiles per set (courtyard
    /// only with --variant courtyard: its wins take long to find).
    #[cfg(feature = "serve")]
    #[arg(long, conflicts_with_all = ["deals", "peer", "baseline", "throughput"])]
    pub coach: bool,
    /// With --throughput: only the first N deals of each sample.
    #[arg(long, value_name = "N", requires = "throughput", value_parser = clap::value_parser!(u64).range(1..))]
    pub sample: Option<u64>,
    /// With --throughput: run this other castle build on the same samples first, row for
    /// row, and print the ratios (it must have `bench --throughput`).
    #[arg(long, value_name = "BIN", requires = "throughput")]
    pub against: Option<PathBuf>,
    /// With --throughput: one JSON object per variant instead of the table.
    #[arg(long, requires = "throughput")]
    pub json: bool,
}

/// A refusal of the command line's own (flags that do not go together, a value out of
/// range), its flags named in the message.
fn input(msg: impl Into<String>) -> InputError {
    InputError::new(InputKind::Usage, msg)
}

/// `--variant`, if given.
pub fn parse_variant(name: Option<&str>) -> Result<Option<Variant>, InputError> {
    name.map(|s| {
        s.parse::<Variant>()
            .map_err(|e| InputError::new(InputKind::Rules, e.to_string()).with_flag("--variant"))
    })
    .transpose()
}

/// Colours on standard output when it is a terminal and `NO_COLOR` is not set.
pub fn color() -> Color {
    if std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none() {
        Color::On
    } else {
        Color::Off
    }
}

/// The text of a file, or of standard input for `-`, and its name for messages: UTF-8 (bytes
/// that are not are bad input, named by line and byte), a byte-order mark dropped, at most
/// [`castle::text::MAX_FILE_BYTES`] (more is bad input).
pub fn read_input(path: &Path) -> Result<(String, String), castle::Error> {
    use castle::text::read_capped;
    let (bytes, origin) = if path.as_os_str() == "-" {
        let origin = "<stdin>".to_string();
        let b = read_capped(std::io::stdin().lock(), &origin).map_err(castle::Error::Stdin)??;
        (b, origin)
    } else {
        let origin = path.display().to_string();
        let cannot = |e| InputError::new(InputKind::File, format!("cannot read: {e}")).at(path);
        let file = std::fs::File::open(path).map_err(cannot)?;
        let b = read_capped(file, &origin).map_err(cannot)??;
        (b, origin)
    };
    let text = castle::text::decode(bytes, &origin)?;
    Ok((text, origin))
}

pub use castle::defaults::FOREVER_SECONDS;

/// Checks a flag of seconds: a positive number (NaN, zero and negatives refused); infinity and
/// anything above [`FOREVER_SECONDS`] come back as `None`, no limit.
pub fn seconds_flag(flag: &str, s: f64) -> Result<Option<f64>, InputError> {
    if s.is_nan() || s <= 0.0 {
        return Err(input(format!(
            "{flag} must be a positive number of seconds, not {s}"
        )));
    }
    Ok((s <= FOREVER_SECONDS).then_some(s))
}

/// A deal file of `bench --deal`, named by its file name (rules from the file, the variant
/// from `--variant` if given).
pub fn read_deal_file(
    path: &Path,
    variant: Option<Variant>,
) -> Result<(String, Deal), castle::Error> {
    let (text, origin) = read_input(path)?;
    let opts = ReadOptions {
        variant,
        start_rank: None,
        foundation_return: None,
        sequence_moves: None,
        format: None,
    };
    let deal = formats::read_deal(&text, &origin, opts)?;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    Ok((name, deal))
}

impl From<SequenceArg> for SequenceMoves {
    fn from(s: SequenceArg) -> Self {
        match s {
            SequenceArg::Single => SequenceMoves::Single,
            SequenceArg::Unlimited => SequenceMoves::Unlimited,
        }
    }
}

impl From<Numbering> for castle::deal::Numbering {
    fn from(n: Numbering) -> Self {
        match n {
            Numbering::Castle => castle::deal::Numbering::Castle,
            Numbering::Pysol => castle::deal::Numbering::Pysol,
        }
    }
}

impl From<InFormat> for Format {
    fn from(f: InFormat) -> Self {
        match f {
            InFormat::Text => Format::Text,
            InFormat::Fcs => Format::Fcs,
            InFormat::Json => Format::Json,
        }
    }
}

impl From<RowFormat> for castle::batch::RowFormat {
    fn from(f: RowFormat) -> Self {
        match f {
            RowFormat::Csv => castle::batch::RowFormat::Csv,
            RowFormat::Jsonl => castle::batch::RowFormat::Jsonl,
        }
    }
}

impl RuleArgs {
    /// The rules the command line asks for: the variant's, with the rule options on top.
    pub fn to_rules(&self, variant: Variant) -> Result<Rules, InputError> {
        let mut rules = variant.rules();
        if let Some(k) = self.start_rank {
            rules = rules.with_start_rank(k).map_err(|e| input(e.to_string()))?;
        }
        if self.foundation_return {
            rules = rules.with_foundation_return(true);
        }
        if let Some(s) = self.sequence_moves {
            rules = rules.with_sequence_moves(s.into());
        }
        Ok(rules)
    }
}

impl DealSource {
    /// The deal the user asked for: by number, or read from a file.
    pub fn load(&self) -> Result<Deal, castle::Error> {
        let variant = parse_variant(self.variant.as_deref())?;
        match (&self.seed, &self.deal) {
            (Some(seed), None) => {
                let rules = self
                    .rules
                    .to_rules(variant.unwrap_or(Variant::BeleagueredCastle))?;
                Ok(Deal::numbered(rules, self.rules.numbering.into(), *seed)
                    .map_err(|e| e.with_flag(format!("--seed {seed}")))?)
            }
            (None, Some(path)) => {
                if self.rules.numbering != Numbering::Castle {
                    return Err(input("--numbering applies to --seed, not to --deal files").into());
                }
                let (text, origin) = read_input(path)?;
                let opts = ReadOptions {
                    variant,
                    start_rank: self.rules.start_rank,
                    foundation_return: self.rules.foundation_return.then_some(true),
                    sequence_moves: self.rules.sequence_moves.map(Into::into),
                    format: self.from.map(Into::into),
                };
                Ok(formats::read_deal(&text, &origin, opts)?)
            }
            _ => Err(input("give a deal: --seed N (with --variant) or --deal FILE").into()),
        }
    }
}

pub use castle::defaults::SHORT_NODES as DEFAULT_SHORT_NODES;

impl SolveArgs {
    /// The solver: the budgets, with `--threads`; the short-solution search with a small
    /// budget unless `--raw` or `--short` says otherwise.
    pub fn to_solver(&self) -> Result<Solver, InputError> {
        let mut solver = Solver {
            threads: usize::from(self.threads),
            ..self.budget.to_solver()?
        };
        if self.raw {
            solver.shorten = false;
            solver.short = None;
        } else if solver.short.is_none() {
            solver.short = Some(DEFAULT_SHORT_NODES);
        }
        Ok(solver)
    }

    /// The deal: the positional file, --seed or --deal, or standard input when none is given
    /// and it is not a terminal.
    pub fn load(&self) -> Result<Deal, castle::Error> {
        let mut src = self.source.clone();
        let implicit = self.file.is_none()
            && src.seed.is_none()
            && src.deal.is_none()
            && !std::io::stdin().is_terminal();
        if let Some(f) = &self.file {
            src.deal = Some(f.clone());
        } else if implicit {
            src.deal = Some(PathBuf::from("-"));
        }
        match src.load() {
            // Nothing on standard input: the user gave no deal at all.
            Err(castle::Error::Input(e))
                if implicit
                    && e.origin == Some(castle::Origin::Stdin)
                    && e.message.starts_with("the file is empty") =>
            {
                Err(input(
                    "give a deal: --seed N (with --variant), a deal file, or the deal on standard input",
                )
                .into())
            }
            loaded => loaded,
        }
    }
}

impl BenchArgs {
    /// The solver: the budgets, with `--threads`.
    pub fn to_solver(&self) -> Result<Solver, InputError> {
        Ok(Solver {
            threads: usize::from(self.threads.unwrap_or(1)),
            ..self.budget.to_solver()?
        })
    }

    /// Threads of the second run of each `--deal` (1: no second run).
    pub fn deal_threads(&self) -> usize {
        usize::from(self.threads.unwrap_or(2))
    }

    /// How fc-solve runs under `--peer`.
    pub fn peer_options(&self) -> Result<PeerOptions, InputError> {
        let seconds = seconds_flag("--peer-seconds", self.peer_seconds)?.unwrap_or(FOREVER_SECONDS);
        Ok(PeerOptions {
            seconds,
            memory_mib: self.peer_memory,
            presets: match self.peer_preset {
                PeerPresetArg::Complete => PeerPresets::Complete,
                PeerPresetArg::Ct => PeerPresets::Heuristic,
                PeerPresetArg::Both => PeerPresets::Both,
            },
        })
    }
}

/// `--pass-nodes`: one or two node budgets, increasing.
fn parse_pass_nodes(s: &str) -> Result<Vec<u64>, InputError> {
    let bad = || {
        input(format!(
            "--pass-nodes `{}`: give one or two node budgets, increasing, such as 3000000,30000000",
            castle::text::Cut(s)
        ))
    };
    let list: Vec<u64> = s
        .split(',')
        .map(|x| x.trim().parse::<u64>().ok().filter(|&n| n > 0))
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    if list.is_empty()
        || list.len() > castle::batch::passes::PASS_NODES.len()
        || list.windows(2).any(|w| w[0] >= w[1])
    {
        return Err(bad());
    }
    Ok(list)
}

/// The most threads of `batch` (`--threads`), as for `solve` and `bench`.
pub const MAX_THREADS: i64 = castle::defaults::MAX_THREADS as i64;

impl BatchArgs {
    /// `--format jsonl` writes to standard output; a `--csv` file is always CSV.
    fn check_format(&self) -> Result<(), InputError> {
        match (&self.csv, self.format) {
            (Some(p), RowFormat::Jsonl) => Err(input(format!(
                "--format jsonl writes rows to standard output, but --csv {} is CSV; give one or the other",
                p.display()
            ))),
            _ => Ok(()),
        }
    }

    /// The batch these flags describe.
    pub fn to_options(&self) -> Result<BatchOptions, InputError> {
        let variant = parse_variant(Some(&self.variant))?.expect("variant given");
        let rules = self.rules.to_rules(variant)?;
        let numbering = self.rules.numbering.into();
        let ranges = Seeds::parse(&self.seeds).map_err(|e| e.with_flag("--seeds"))?;
        // Every seed of a range deals the same way; its ends tell whether they can.
        for &seed in ranges.iter().flat_map(|(a, b)| [a, b]) {
            Deal::numbered(rules, numbering, seed).map_err(|e| e.with_flag("--seeds"))?;
        }
        let (shard, shards) = match &self.shard {
            Some(s) => Seeds::parse_shard(s).map_err(|e| e.with_flag("--shard"))?,
            None => (0, 1),
        };
        let solver = self.budget.to_solver()?;
        self.check_format()?;
        let threads = self.threads.map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            usize::from,
        );
        let threads = threads.min(MAX_THREADS as usize);
        Ok(BatchOptions {
            rules,
            numbering,
            seeds: Seeds {
                ranges,
                shard,
                shards,
            },
            solver,
            threads,
            csv: self.csv.clone(),
            format: self.format.into(),
            winnable_only: self.winnable_only.clone(),
            retry_unknown: self.retry_unknown,
            one_pass: self.one_pass,
            pass_nodes: parse_pass_nodes(&self.pass_nodes)?,
            certificates: match &self.certificates {
                Some(dir) => Some(certificate::dir(dir)?),
                None => None,
            },
            certify: self.certify,
        })
    }
}

impl PlayArgs {
    /// The game to start (the deal, a random deal number if none is given, or a saved game)
    /// and the options of the game loop.
    pub fn to_game(
        &self,
    ) -> Result<(castle::play::game::Game, castle::play::PlayOptions), castle::Error> {
        use castle::play::{game::Game, PlayOptions};
        let coach_seconds =
            seconds_flag("--coach-seconds", self.coach_seconds)?.unwrap_or(FOREVER_SECONDS);
        let game = match &self.load {
            Some(path) => {
                let (text, origin) = read_input(path)?;
                Game::from_json(&text, &origin)?
            }
            None => {
                let mut src = self.source.clone();
                if src.seed.is_none() && src.deal.is_none() {
                    let now = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(1, |d| d.as_nanos() as u64);
                    src.seed = Some(now % 1_000_000 + 1);
                }
                Game::new(src.load()?, !self.no_auto).numbered(src.numbering())
            }
        };
        let opts = PlayOptions {
            auto: !self.no_auto,
            coach_nodes: self.coach_nodes,
            coach_seconds,
            lines: self.lines,
        };
        Ok((game, opts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }
}
