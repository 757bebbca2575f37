//! fc-solve, the peer solver, run on the same deals as castle, for `castle bench --peer`.
//!
//! [`run_fc_solve`] hands a deal to Shlomi Fish's Freecell Solver in its complete (exact)
//! single-card configuration for this family,
//!
//! ```text
//! fc-solve -g beleaguered_castle -to 0AB -sp r:tf -p -t -sam -
//! ```
//!
//! (the board, as [`write_fcs`] prints it, goes to its standard input), kills it at a time
//! limit, and reads its verdict. `-to 0AB` restricts it to the atomic moves (a top card to
//! the foundations, to an empty pile, to a pile one rank higher), so every move it prints
//! is one card, counted as castle counts them. `-p -t -sam` prints every position of the
//! solution between the moves; [`replay_solution`] turns the printed moves into castle
//! [`Move`]s, plays them on the independent checker's [`Board`], compares each position with
//! the one fc-solve printed, and requires a won game at the end, so a peer solution length
//! is known to be a real, legal, winning line.
//!
//! Only the rules fc-solve's `beleaguered_castle` preset plays are run ([`supports`]):
//! eight piles built down regardless of suit, one card at a time, no cells, stock, second
//! deck or foundation return; that is beleaguered-castle, streets-and-alleys and citadel at
//! any start rank.

use crate::check::{self, Board, Step};
use crate::deal::Deal;
use crate::formats::write_fcs;
use crate::moves::{Move, FOUNDATION};
use crate::rules::{Build, Rules, SequenceMoves};
use crate::{Card, Suit};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The arguments castle passes to fc-solve: the `beleaguered_castle` game preset, atomic
/// single-card moves only (`-to 0AB`), the safe-foundation-move pruning (`-sp r:tf`), and
/// parseable output with every position and move (`-p -t -sam`), board on standard input
/// (`-`).
pub const FC_SOLVE_ARGS: [&str; 10] = [
    "-g",
    "beleaguered_castle",
    "-to",
    "0AB",
    "-sp",
    "r:tf",
    "-p",
    "-t",
    "-sam",
    "-",
];

/// The line fc-solve prints when it found a solution.
pub const SOLVED_LINE: &str = "This game is solveable.";
/// The line fc-solve prints when its search space is exhausted without a win.
pub const UNSOLVED_LINE: &str = "I could not solve this game.";
/// The line fc-solve prints when an iteration limit (`-mi`) stopped it.
pub const ITERATIONS_LINE: &str = "Iterations count exceeded.";

/// The environment variable that names the fc-solve executable (a path, or a name looked up
/// on `PATH`); set but empty, it means there is none.
pub const FC_SOLVE_ENV: &str = "CASTLE_FC_SOLVE";

/// What fc-solve said about a deal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PeerVerdict {
    /// It printed a solution, and the solution replays to a won game on castle's checker.
    Solvable,
    /// It exhausted its search without a win.
    Unsolvable,
    /// It was killed at the time limit.
    Timeout,
    /// No verdict: the rules are not fc-solve's, it could not be started, it died (a message
    /// starting `out of memory` when it died under the memory cap), or its output or
    /// solution did not check.
    Failed(String),
}

impl PeerVerdict {
    /// `solvable`, `unsolvable`, `timeout` or `failed`, for reports.
    pub fn name(&self) -> &'static str {
        match self {
            PeerVerdict::Solvable => "solvable",
            PeerVerdict::Unsolvable => "unsolvable",
            PeerVerdict::Timeout => "timeout",
            PeerVerdict::Failed(_) => "failed",
        }
    }
}

/// One fc-solve run on one deal.
#[derive(Clone, Debug, PartialEq)]
pub struct PeerRun {
    /// The verdict.
    pub verdict: PeerVerdict,
    /// Single-card moves in its solution, foundation moves included (only when solvable).
    pub moves: Option<usize>,
    /// Wall-clock seconds from start to exit (or to the kill at the time limit).
    pub seconds: f64,
    /// fc-solve's own peak resident memory, if known: `ru_maxrss` from `wait4` when that is
    /// above this process's peak (below it, the figure may be this process's, inherited
    /// through the fork), else the last `VmHWM` sampled from `/proc` while it ran, every 20
    /// ms at most (`None` for a run too short to sample).
    pub peak_rss_bytes: Option<u64>,
    /// "Total number of states checked", as fc-solve reports it, if it did.
    pub states_checked: Option<u64>,
    /// Its solution as castle moves, checked by [`check::check_win`] (only when solvable).
    pub solution: Option<Vec<Move>>,
}

impl PeerRun {
    fn failed(why: impl Into<String>) -> PeerRun {
        PeerRun {
            verdict: PeerVerdict::Failed(why.into()),
            moves: None,
            seconds: 0.0,
            peak_rss_bytes: None,
            states_checked: None,
            solution: None,
        }
    }
}

/// The fc-solve executable: [`FC_SOLVE_ENV`] if set (a path, or a name looked up on `PATH`;
/// empty means none), else `fc-solve` on `PATH`. `None` if there is no such executable file.
pub fn fc_solve_path() -> Option<PathBuf> {
    match std::env::var_os(FC_SOLVE_ENV) {
        Some(v) if v.is_empty() => None,
        Some(v) => find_executable(Path::new(&v)),
        None => find_executable(Path::new("fc-solve")),
    }
}

fn find_executable(name: &Path) -> Option<PathBuf> {
    if name.components().count() > 1 {
        return is_executable(name).then(|| name.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(p) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// Whether fc-solve's `beleaguered_castle` preset plays these rules.
///
/// # Errors
/// What it cannot play.
pub fn supports(rules: &Rules) -> Result<(), String> {
    let v = rules.variant;
    let no = |what: &str| Err(format!("fc-solve cannot play {v}: {what}"));
    if rules.build != Build::DownAnySuit {
        return no("its beleaguered_castle preset builds down regardless of suit only");
    }
    if rules.piles != 8 {
        return no("its beleaguered_castle preset has 8 piles");
    }
    if rules.cells > 0 || rules.stock || rules.decks > 1 {
        return no("no reserve cells, stock or second deck");
    }
    if rules.options.foundation_return {
        return no("it has no foundation return");
    }
    if rules.options.sequence_moves != SequenceMoves::Single {
        return no("it is run with single-card moves only");
    }
    Ok(())
}

/// Runs fc-solve on `deal` with no memory cap: [`run_fc_solve_capped`] with `None`.
pub fn run_fc_solve(exe: &Path, deal: &Deal, timeout: Duration) -> PeerRun {
    run_fc_solve_capped(exe, deal, timeout, None)
}

/// Runs fc-solve (`exe`, with [`FC_SOLVE_ARGS`]) on `deal`, killing it after `timeout`. With
/// `max_memory_bytes`, its address space is capped there (`RLIMIT_AS`), so a deal it cannot
/// decide fails with `out of memory ...` instead of taking the machine down (fc-solve needs
/// more address space than resident memory; allow some slack). A solution it prints is
/// replayed with [`replay_solution`]; one that does not check makes the run `Failed`.
pub fn run_fc_solve_capped(
    exe: &Path,
    deal: &Deal,
    timeout: Duration,
    max_memory_bytes: Option<u64>,
) -> PeerRun {
    if let Err(e) = supports(&deal.rules) {
        return PeerRun::failed(e);
    }
    let board = match write_fcs(deal) {
        Ok(b) => b,
        Err(e) => return PeerRun::failed(e.0),
    };
    let child = match sys::run(exe, &FC_SOLVE_ARGS, &board, timeout, max_memory_bytes) {
        Ok(c) => c,
        Err(e) => return PeerRun::failed(format!("cannot run {}: {e}", exe.display())),
    };
    let mut run = PeerRun {
        verdict: PeerVerdict::Timeout,
        moves: None,
        seconds: child.seconds,
        peak_rss_bytes: child.peak_rss_bytes,
        states_checked: None,
        solution: None,
    };
    if child.timed_out {
        return run;
    }
    let stderr_tail = child
        .stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string();
    let cap = |m: u64| format!("the {m}-byte address-space cap");
    match child.exit {
        sys::Exit::Signal(sig) => {
            run.verdict = PeerVerdict::Failed(match max_memory_bytes {
                // Under the cap fc-solve 5.0 dies by SIGSEGV when an allocation fails.
                Some(m) => format!(
                    "out of memory: fc-solve died by signal {sig} under {}",
                    cap(m)
                ),
                None => format!("fc-solve died by signal {sig}"),
            });
            return run;
        }
        sys::Exit::Code(code) if code != 0 => {
            let lower = child.stderr.to_ascii_lowercase();
            run.verdict = PeerVerdict::Failed(match max_memory_bytes {
                Some(m) if lower.contains("memory") || lower.contains("alloc") => {
                    format!(
                        "out of memory: fc-solve exited with code {code} under {} ({stderr_tail})",
                        cap(m)
                    )
                }
                _ => format!("fc-solve exited with code {code} without a verdict ({stderr_tail})"),
            });
            return run;
        }
        sys::Exit::Code(_) => {}
    }
    let out = match parse_output(&child.stdout) {
        Ok(out) => out,
        Err(e) => {
            run.verdict = PeerVerdict::Failed(format!("unreadable fc-solve output: {e}"));
            return run;
        }
    };
    run.states_checked = out.states_checked;
    run.verdict = match out.verdict {
        None => PeerVerdict::Failed(format!("fc-solve printed no verdict ({stderr_tail})")),
        Some(PeerVerdict::Solvable) => match replay_solution(deal, &out) {
            Ok(moves) => {
                run.moves = Some(moves.len());
                run.solution = Some(moves);
                PeerVerdict::Solvable
            }
            Err(e) => PeerVerdict::Failed(format!(
                "fc-solve says solvable, but its solution does not check: {e}"
            )),
        },
        Some(v) => v,
    };
    run
}

/// A move as fc-solve prints it (stacks numbered from 0, as it prints them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FcMove {
    /// `Move N cards from stack A to stack B`.
    Stack {
        /// Source stack.
        from: usize,
        /// Destination stack.
        to: usize,
        /// Cards moved (1 under `-to 0AB`).
        cards: usize,
    },
    /// `Move a card from stack A to the foundations`.
    Foundation {
        /// Source stack.
        from: usize,
    },
}

/// A position as fc-solve prints it with `-p -t`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FcBoard {
    /// Foundation heights by suit (index [`Suit::index`]: C, D, H, S).
    pub foundations: [u8; 4],
    /// The stacks, each bottom to top.
    pub tableau: Vec<Vec<Card>>,
}

/// fc-solve's output, read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FcOutput {
    /// The verdict line ([`PeerVerdict::Failed`] for an iteration limit), if there is one.
    pub verdict: Option<PeerVerdict>,
    /// The moves of the solution, in order.
    pub moves: Vec<FcMove>,
    /// The positions printed with `-sam`: the start, then one after each move (empty if the
    /// output has no positions).
    pub boards: Vec<FcBoard>,
    /// "Total number of states checked is N."
    pub states_checked: Option<u64>,
}

fn parse_move(line: &str) -> Result<FcMove, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let num = |w: &str| {
        w.parse::<usize>()
            .map_err(|_| format!("`{w}` is not a number in `{line}`"))
    };
    match words[..] {
        ["Move", "a", "card", "from", "stack", a, "to", "the", "foundations"] => {
            Ok(FcMove::Foundation { from: num(a)? })
        }
        ["Move", n, "cards" | "card", "from", "stack", a, "to", "stack", b] => Ok(FcMove::Stack {
            from: num(a)?,
            to: num(b)?,
            cards: num(n)?,
        }),
        _ => Err(format!("unknown move `{line}`")),
    }
}

fn parse_foundations(body: &str) -> Result<[u8; 4], String> {
    let mut f = [0u8; 4];
    for tok in body.split_whitespace() {
        let bad = || format!("`{tok}` is not a foundation");
        let (s, r) = tok.split_once('-').ok_or_else(bad)?;
        let mut sc = s.chars();
        let suit = match (sc.next(), sc.next()) {
            (Some(c), None) => Suit::from_letter(c).ok_or_else(bad)?,
            _ => return Err(bad()),
        };
        f[suit.index()] = if r == "0" {
            0
        } else {
            crate::card::parse_rank(r).ok_or_else(bad)?
        };
    }
    Ok(f)
}

/// Reads fc-solve's standard output as printed with `-m` (moves only) or `-p -t -sam`
/// (positions in the parseable layout, and moves).
///
/// # Errors
/// A line it does not know, naming it.
pub fn parse_output(text: &str) -> Result<FcOutput, String> {
    let mut out = FcOutput::default();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let at = |e: String| format!("line {}: {e}", i + 1);
        if line.is_empty() || line.starts_with("-=-=") || line.starts_with("====") {
            continue;
        }
        if line.starts_with("Move") {
            out.moves.push(parse_move(line).map_err(at)?);
        } else if let Some(body) = line.strip_prefix("Foundations:") {
            out.boards.push(FcBoard {
                foundations: parse_foundations(body).map_err(at)?,
                tableau: Vec::new(),
            });
        } else if let Some(body) = line.strip_prefix("Freecells:") {
            if !body.trim().is_empty() {
                return Err(at(format!("cards in cells: `{line}`")));
            }
        } else if let Some(body) = line.strip_prefix(':') {
            let board = out
                .boards
                .last_mut()
                .ok_or_else(|| at("a stack before any `Foundations:` line".to_string()))?;
            let pile = body
                .split_whitespace()
                .map(|t| t.parse::<Card>().map_err(|e| at(e.to_string())))
                .collect::<Result<Vec<_>, _>>()?;
            board.tableau.push(pile);
        } else if line == SOLVED_LINE {
            out.verdict = Some(PeerVerdict::Solvable);
        } else if line == UNSOLVED_LINE {
            out.verdict = Some(PeerVerdict::Unsolvable);
        } else if line == ITERATIONS_LINE {
            out.verdict = Some(PeerVerdict::Failed(
                "fc-solve's iteration limit was reached".to_string(),
            ));
        } else if let Some(n) = line
            .strip_prefix("Total number of states checked is ")
            .and_then(|r| r.strip_suffix('.'))
        {
            out.states_checked = Some(n.parse().map_err(|_| at(format!("`{line}`")))?);
        } else if line.starts_with("This scan generated ") {
            continue;
        } else {
            return Err(at(format!("unexpected line `{line}`")));
        }
    }
    Ok(out)
}

/// Where the checker's board and a position fc-solve printed differ, if they do.
fn differs(board: &Board, fc: &FcBoard) -> Option<String> {
    let heights: Vec<usize> = board.foundations.iter().map(Vec::len).collect();
    let want: Vec<usize> = fc.foundations.iter().map(|&h| usize::from(h)).collect();
    if heights != want {
        return Some(format!(
            "foundation heights (C, D, H, S) {heights:?}, fc-solve printed {want:?}"
        ));
    }
    if board.tableau != fc.tableau {
        let k = (0..board.tableau.len().max(fc.tableau.len()))
            .find(|&k| board.tableau.get(k) != fc.tableau.get(k))
            .unwrap_or(0);
        return Some(format!("pile t{} differs from fc-solve's stack {k}", k + 1));
    }
    None
}

/// Turns fc-solve's solution into castle moves and checks it: each move is played on the
/// independent checker's [`Board`] (the card is the source pile's top card), every position
/// fc-solve printed must equal the checker's, and the whole line must win
/// ([`check::check_win`], as `castle verify` replays).
///
/// fc-solve's own searches (not the `-to 0AB` one castle runs) move a run of cards through
/// empty piles as one move. Such a move is played as the single moves it stands for, the
/// usual halving: the top half to an empty pile, the rest to the target through the other
/// empty piles, the half back on top; `n` cards need `n <= 2^e` with `e` empty piles
/// besides the source and target, which is also the most fc-solve moves at once without
/// cells. Each single move is checked like any other, so the expansion cannot let an illegal
/// run through; the position fc-solve printed is compared after the whole run.
///
/// # Errors
/// The first move that cannot be read or played, the first position that differs, or a
/// line that does not win.
pub fn replay_solution(deal: &Deal, out: &FcOutput) -> Result<Vec<Move>, String> {
    if !out.boards.is_empty() && out.boards.len() != out.moves.len() + 1 {
        return Err(format!(
            "{} moves but {} positions printed",
            out.moves.len(),
            out.boards.len()
        ));
    }
    let mut board = Board::new(deal);
    if let Some(d) = out.boards.first().and_then(|fc| differs(&board, fc)) {
        return Err(format!("the start position: {d}"));
    }
    let mut moves = Vec::with_capacity(out.moves.len());
    for (i, fm) in out.moves.iter().enumerate() {
        let n = i + 1;
        let first = moves.len();
        match *fm {
            FcMove::Foundation { from } => single(&mut board, &mut moves, n, from, FOUNDATION)?,
            FcMove::Stack { from, to, cards } => {
                let piles = board.tableau.len();
                if to >= piles {
                    return Err(format!("move {n}: no stack {to}"));
                }
                if cards == 0 || board.tableau.get(from).map_or(0, Vec::len) < cards {
                    return Err(format!(
                        "move {n}: stack {from} has fewer than {cards} cards or is missing"
                    ));
                }
                let empties: Vec<usize> = (0..piles)
                    .filter(|&k| k != from && k != to && board.tableau[k].is_empty())
                    .collect();
                run(&mut board, &mut moves, n, cards, from, to, &empties)?;
            }
        }
        if let Some(d) = out.boards.get(n).and_then(|fc| differs(&board, fc)) {
            let step = &check::steps_of(&moves[first..])[0];
            return Err(format!("after move {n} ({step}): {d}"));
        }
    }
    check::check_win(deal, &check::steps_of(&moves)).map_err(|e| e.to_string())?;
    Ok(moves)
}

/// Plays the top card of stack `from` to `to` (a pile index or [`FOUNDATION`]) on `board`
/// and records it; `n` numbers fc-solve's move in messages.
fn single(
    board: &mut Board,
    moves: &mut Vec<Move>,
    n: usize,
    from: usize,
    to: u8,
) -> Result<(), String> {
    let card = board
        .tableau
        .get(from)
        .and_then(|p| p.last().copied())
        .ok_or_else(|| format!("move {n}: stack {from} is empty or missing"))?;
    let m = Move::single(card, from as u8, to);
    let step: Step = check::steps_of(&[m]).remove(0);
    board
        .play(&step)
        .map_err(|why| format!("move {n} ({step}) is illegal: {why}"))?;
    moves.push(m);
    Ok(())
}

/// Moves the top `cards` of stack `from` to stack `to` one card at a time through the empty
/// piles `empties` (see [`replay_solution`]).
fn run(
    board: &mut Board,
    moves: &mut Vec<Move>,
    n: usize,
    cards: usize,
    from: usize,
    to: usize,
    empties: &[usize],
) -> Result<(), String> {
    if cards == 1 {
        return single(board, moves, n, from, to as u8);
    }
    let Some((&e, rest)) = empties.split_first() else {
        return Err(format!(
            "move {n}: a run of {cards} cards from stack {from} needs more empty piles"
        ));
    };
    let half = cards / 2;
    run(board, moves, n, half, from, e, rest)?;
    run(board, moves, n, cards - half, from, to, rest)?;
    run(board, moves, n, half, e, to, rest)
}

#[cfg(unix)]
mod sys {
    //! Running the child: stdin written, stdout and stderr drained on threads, `wait4`
    //! polled for its exit and its resource usage.
    use std::io::{Read, Write};
    use std::os::unix::process::CommandExt;
    use std::path::{Path, PathBuf};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    /// How the child ended.
    pub enum Exit {
        Code(i32),
        Signal(i32),
    }

    pub struct Finished {
        pub stdout: String,
        pub stderr: String,
        pub exit: Exit,
        pub timed_out: bool,
        pub seconds: f64,
        pub peak_rss_bytes: Option<u64>,
    }

    fn drain(r: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut buf);
            }
            String::from_utf8_lossy(&buf).into_owned()
        })
    }

    /// The peak resident memory (`VmHWM`) in a `/proc/*/status` file, in bytes.
    fn hwm(status_file: &Path) -> Option<u64> {
        let s = std::fs::read_to_string(status_file).ok()?;
        let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    }

    /// `wait4` on `pid`, retrying on `EINTR`: `Some((status, rusage))` once it has exited.
    fn wait4(pid: libc::pid_t, block: bool) -> std::io::Result<Option<(i32, libc::rusage)>> {
        loop {
            let mut status = 0;
            // SAFETY: rusage is plain old data; all zeroes is a valid value.
            let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
            let flags = if block { 0 } else { libc::WNOHANG };
            // SAFETY: both pointers are to live locals of the right types.
            let r = unsafe { libc::wait4(pid, &mut status, flags, &mut ru) };
            if r == pid {
                return Ok(Some((status, ru)));
            }
            if r == 0 {
                return Ok(None);
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }

    pub fn run(
        exe: &Path,
        args: &[&str],
        input: &str,
        timeout: Duration,
        max_memory_bytes: Option<u64>,
    ) -> std::io::Result<Finished> {
        let mut cmd = Command::new(exe);
        cmd.args(args)
            .env("FREECELL_SOLVER_QUIET", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(cap) = max_memory_bytes {
            let limit = libc::rlimit {
                rlim_cur: cap as libc::rlim_t,
                rlim_max: cap as libc::rlim_t,
            };
            // SAFETY: the closure runs in the forked child before exec, where only
            // async-signal-safe calls are sound: it makes one `setrlimit` system call on a
            // value copied into the closure, allocates nothing, takes no lock, and touches
            // no state shared with the parent's other threads.
            unsafe {
                cmd.pre_exec(move || {
                    if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let t0 = Instant::now();
        let mut child = cmd.spawn()?;
        let pid = child.id() as libc::pid_t;
        // The child's `ru_maxrss` is at least this process's resident memory when it was
        // spawned (Linux keeps the larger of the pre-exec address space's peak, a copy or
        // the very image of this process, and the program's own); read after spawn
        // returns, i.e. after the exec, this bounds that part.
        let parent_peak = hwm(Path::new("/proc/self/status"));
        let status_file = PathBuf::from(format!("/proc/{pid}/status"));
        let mut sampled: Option<u64> = None;
        let out = drain(child.stdout.take());
        let err = drain(child.stderr.take());
        if let Some(mut stdin) = child.stdin.take() {
            // A child that dies before reading its board shows in its exit status.
            let _ = stdin.write_all(input.as_bytes());
        }
        let mut pause = Duration::from_millis(1);
        let mut timed_out = false;
        let (status, ru) = loop {
            if let Some(done) = wait4(pid, false)? {
                break done;
            }
            // Its own peak so far (gone once it has exited, so sampled while it runs; not in
            // the first milliseconds, while the program is still being loaded).
            if t0.elapsed() >= Duration::from_millis(2) {
                sampled = sampled.max(hwm(&status_file));
            }
            if t0.elapsed() >= timeout {
                // Not yet reaped, so the pid is still this child's.
                let _ = child.kill();
                timed_out = true;
                match wait4(pid, true)? {
                    Some(done) => break done,
                    None => unreachable!("a blocking wait4 returns only when the child exits"),
                }
            }
            std::thread::sleep(pause.min(timeout.saturating_sub(t0.elapsed())));
            pause = (pause * 2).min(Duration::from_millis(20));
        };
        let seconds = t0.elapsed().as_secs_f64();
        // The child was reaped by wait4 above; `child` is dropped without waiting on it.
        drop(child);
        let exit = if libc::WIFSIGNALED(status) {
            Exit::Signal(libc::WTERMSIG(status))
        } else {
            Exit::Code(libc::WEXITSTATUS(status))
        };
        // Linux reports ru_maxrss in kilobytes. Above this process's own peak it can only be
        // the child's; otherwise it may be ours, and the child's peak is the last sample.
        let reported = u64::try_from(ru.ru_maxrss).ok().map(|kb| kb * 1024);
        let peak = match (reported, parent_peak) {
            (Some(r), Some(p)) if r > p => Some(r),
            _ => sampled,
        };
        Ok(Finished {
            stdout: out.join().unwrap_or_default(),
            stderr: err.join().unwrap_or_default(),
            exit,
            timed_out,
            seconds,
            peak_rss_bytes: peak,
        })
    }
}

#[cfg(not(unix))]
mod sys {
    //! fc-solve runs need Unix process control (`wait4`, `setrlimit`).
    use std::path::Path;
    use std::time::Duration;

    pub enum Exit {
        Code(i32),
        Signal(i32),
    }

    pub struct Finished {
        pub stdout: String,
        pub stderr: String,
        pub exit: Exit,
        pub timed_out: bool,
        pub seconds: f64,
        pub peak_rss_bytes: Option<u64>,
    }

    pub fn run(
        _: &Path,
        _: &[&str],
        _: &str,
        _: Duration,
        _: Option<u64>,
    ) -> std::io::Result<Finished> {
        Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "fc-solve runs need a Unix system",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;
    use crate::solver::{Solver, Verdict};

    fn deal(seed: u64) -> Deal {
        Deal::from_seed(Variant::BeleagueredCastle.rules(), seed)
    }

    /// A position six moves from the end (the king of spades must make way first).
    fn near_win() -> Deal {
        let mut d = Deal::empty(Variant::BeleagueredCastle.rules());
        d.foundations[..4].copy_from_slice(&[13, 13, 10, 11]);
        let cards = |s: &str| s.split_whitespace().map(|c| c.parse().unwrap()).collect();
        d.tableau = vec![cards("QS JH KS"), cards("KH QH")];
        d.tableau.resize(8, Vec::new());
        d
    }

    /// fc-solve 5.0.0's whole output on [`near_win`] (`-g beleaguered_castle -to 0AB -sp
    /// r:tf -p -t -sam`), trailing spaces included.
    const SOLVED_OUTPUT: &str = "-=-=-=-=-=-=-=-=-=-=-=-

Foundations: H-T C-K D-K S-J 
Freecells:
: QS JH KS
: KH QH
: 
: 
: 
: 
: 
: 


====================

Move 1 cards from stack 0 to stack 2

Foundations: H-T C-K D-K S-J 
Freecells:
: QS JH
: KH QH
: KS
: 
: 
: 
: 
: 


====================

Move a card from stack 0 to the foundations

Foundations: H-J C-K D-K S-J 
Freecells:
: QS
: KH QH
: KS
: 
: 
: 
: 
: 


====================

Move a card from stack 1 to the foundations

Foundations: H-Q C-K D-K S-J 
Freecells:
: QS
: KH
: KS
: 
: 
: 
: 
: 


====================

Move a card from stack 0 to the foundations

Foundations: H-Q C-K D-K S-Q 
Freecells:
: 
: KH
: KS
: 
: 
: 
: 
: 


====================

Move a card from stack 1 to the foundations

Foundations: H-K C-K D-K S-Q 
Freecells:
: 
: 
: KS
: 
: 
: 
: 
: 


====================

Move a card from stack 2 to the foundations

Foundations: H-K C-K D-K S-K 
Freecells:
: 
: 
: 
: 
: 
: 
: 
: 


====================

This game is solveable.
Total number of states checked is 3.
This scan generated 4 states.
";

    /// fc-solve 5.0.0's whole output on beleaguered-castle deal 4 (unsolvable).
    const UNSOLVED_OUTPUT: &str = "I could not solve this game.
Total number of states checked is 15.
This scan generated 15 states.
";

    #[test]
    fn parses_a_solution() {
        let out = parse_output(SOLVED_OUTPUT).unwrap();
        assert_eq!(out.verdict, Some(PeerVerdict::Solvable));
        assert_eq!(out.states_checked, Some(3));
        assert_eq!(
            out.moves,
            vec![
                FcMove::Stack {
                    from: 0,
                    to: 2,
                    cards: 1
                },
                FcMove::Foundation { from: 0 },
                FcMove::Foundation { from: 1 },
                FcMove::Foundation { from: 0 },
                FcMove::Foundation { from: 1 },
                FcMove::Foundation { from: 2 },
            ]
        );
        assert_eq!(out.boards.len(), 7);
        assert_eq!(out.boards[0].foundations, [13, 13, 10, 11]);
        assert_eq!(
            out.boards[0],
            FcBoard {
                foundations: [13, 13, 10, 11],
                tableau: near_win().tableau
            }
        );
        assert_eq!(out.boards[1].tableau[2], vec!["KS".parse().unwrap()]);
        assert!(out.boards[6].tableau.iter().all(Vec::is_empty));
    }

    #[test]
    fn replays_a_parsed_solution() {
        let d = near_win();
        let out = parse_output(SOLVED_OUTPUT).unwrap();
        let moves = replay_solution(&d, &out).unwrap();
        assert_eq!(moves.len(), 6);
        assert_eq!(moves[0].to_string(), "KS t1 -> t3");
        assert_eq!(moves[5].to_string(), "KS t3 -> f");
        // A move that does not match the printed position is caught.
        let mut bad = out.clone();
        bad.moves[0] = FcMove::Stack {
            from: 0,
            to: 3,
            cards: 1,
        };
        let e = replay_solution(&d, &bad).unwrap_err();
        assert!(e.contains("after move 1"), "{e}");
        // So is an illegal one (the positions left out).
        bad.boards.clear();
        bad.moves[0] = FcMove::Stack {
            from: 0,
            to: 1,
            cards: 1,
        };
        let e = replay_solution(&d, &bad).unwrap_err();
        assert!(e.contains("move 1 (KS t1 -> t2) is illegal"), "{e}");
        // A line that stops short does not win.
        let mut short = out;
        short.moves.pop();
        short.boards.pop();
        let e = replay_solution(&d, &short).unwrap_err();
        assert!(e.contains("not won"), "{e}");
    }

    /// A position whose win starts with a run of two cards: t1 `KH QH QS JH`, t2 `KS`.
    fn run_deal(more: &str) -> Deal {
        let mut d = Deal::empty(Variant::BeleagueredCastle.rules());
        d.foundations[..4].copy_from_slice(&[13, 13, 10, 11]);
        let cards = |s: &str| s.split_whitespace().map(|c| c.parse().unwrap()).collect();
        d.tableau = vec![cards("KH QH QS JH"), cards("KS")];
        d.tableau
            .extend(more.split(',').filter(|p| !p.is_empty()).map(cards));
        d.tableau.resize(8, Vec::new());
        d
    }

    #[test]
    fn replays_runs_as_single_moves() {
        let stack = |from, to, cards| FcMove::Stack { from, to, cards };
        let home = |from| FcMove::Foundation { from };
        let mut out = FcOutput {
            moves: vec![stack(0, 1, 2), home(1), home(0), home(1), home(0), home(1)],
            ..FcOutput::default()
        };
        let moves = replay_solution(&run_deal(""), &out).unwrap();
        let shown: Vec<String> = moves.iter().map(Move::to_string).collect();
        assert_eq!(
            shown[..4],
            ["JH t1 -> t3", "QS t1 -> t2", "JH t3 -> t2", "JH t2 -> f"]
        );
        assert_eq!(moves.len(), 8);
        // Every single move is checked: `QH QS JH` is no run, and QS cannot go on QH.
        out.moves[0] = stack(0, 1, 3);
        let e = replay_solution(&run_deal(""), &out).unwrap_err();
        assert!(e.contains("move 1 (QS t4 -> t2) is illegal"), "{e}");
        // Two cards need an empty pile (here all eight piles hold cards).
        out.moves[0] = stack(0, 1, 2);
        let full = run_deal("5H,6H,7H,8H,9H,TH");
        let e = replay_solution(&full, &out).unwrap_err();
        assert!(e.contains("needs more empty piles"), "{e}");
        // More cards than the stack holds.
        out.moves[0] = stack(1, 0, 2);
        let e = replay_solution(&run_deal(""), &out).unwrap_err();
        assert!(e.contains("fewer than 2 cards"), "{e}");
    }

    #[test]
    fn parses_no_solution() {
        let out = parse_output(UNSOLVED_OUTPUT).unwrap();
        assert_eq!(out.verdict, Some(PeerVerdict::Unsolvable));
        assert_eq!(out.states_checked, Some(15));
        assert!(out.moves.is_empty() && out.boards.is_empty());
    }

    #[test]
    fn refuses_unknown_output() {
        assert!(
            parse_output("Move the sequence on top of Stack 1 to the foundations")
                .unwrap_err()
                .contains("unknown move")
        );
        assert!(parse_output("Something else.")
            .unwrap_err()
            .contains("line 1"));
        assert_eq!(parse_output("").unwrap().verdict, None);
    }

    #[test]
    fn refuses_rules_it_cannot_play() {
        assert!(supports(&Variant::BeleagueredCastle.rules()).is_ok());
        assert!(supports(&Variant::StreetsAndAlleys.rules()).is_ok());
        assert!(supports(&Variant::Citadel.rules()).is_ok());
        for v in [Variant::Fortress, Variant::Castile, Variant::Courtyard] {
            assert!(supports(&v.rules()).is_err(), "{v}");
        }
        let r = Variant::BeleagueredCastle.rules();
        assert!(supports(&r.with_foundation_return(true)).is_err());
        assert!(supports(&r.with_sequence_moves(SequenceMoves::Unlimited)).is_err());
        let run = run_fc_solve(
            Path::new("/nonexistent/fc-solve"),
            &Deal::from_seed(Variant::Fortress.rules(), 1),
            Duration::from_secs(1),
        );
        assert!(matches!(run.verdict, PeerVerdict::Failed(ref m) if m.contains("fortress")));
    }

    #[test]
    fn a_missing_executable_fails() {
        let run = run_fc_solve(
            Path::new("/nonexistent/fc-solve"),
            &deal(1),
            Duration::from_secs(1),
        );
        assert!(matches!(run.verdict, PeerVerdict::Failed(ref m) if m.contains("cannot run")));
    }

    #[test]
    fn finds_executables_on_path() {
        assert!(find_executable(Path::new("sh")).is_some());
        assert_eq!(find_executable(Path::new("/nonexistent/fc-solve")), None);
        assert_eq!(
            find_executable(Path::new("castle-no-such-program-on-path")),
            None
        );
    }

    fn peer() -> Option<PathBuf> {
        let exe = fc_solve_path();
        if exe.is_none() {
            eprintln!("fc-solve not found: skipping the test against the peer solver");
        }
        exe
    }

    /// 2 GiB of address space: fc-solve's hardest of deals 1..=10 needs about 1.2 GB
    /// resident.
    const TEST_CAP: u64 = 2 << 30;

    #[test]
    fn agrees_with_castle_on_deals_1_to_10() {
        let Some(exe) = peer() else { return };
        for seed in 1..=10 {
            let d = deal(seed);
            let ours = Solver::default().solve(&d).unwrap();
            let run = run_fc_solve_capped(&exe, &d, Duration::from_secs(60), Some(TEST_CAP));
            eprintln!(
                "deal {seed}: castle {} ({} moves), fc-solve {:?} ({:?} moves, {:.2} s, {:?} bytes)",
                ours.verdict.name(),
                ours.moves.len(),
                run.verdict,
                run.moves,
                run.seconds,
                run.peak_rss_bytes
            );
            match (&ours.verdict, &run.verdict) {
                (Verdict::Solvable, PeerVerdict::Solvable) => {
                    let moves = run.solution.as_ref().unwrap();
                    assert_eq!(run.moves, Some(moves.len()));
                    check::check_win(&d, &check::steps_of(moves)).unwrap();
                }
                (Verdict::Unsolvable, PeerVerdict::Unsolvable) => assert_eq!(run.moves, None),
                (_, PeerVerdict::Timeout) => eprintln!("deal {seed}: fc-solve timed out"),
                (a, b) => panic!("deal {seed}: castle says {}, fc-solve {b:?}", a.name()),
            }
        }
    }

    #[test]
    fn measures_the_child_not_the_parent() {
        let Some(exe) = peer() else { return };
        // 400 MB resident here, which a forked child's `ru_maxrss` would include.
        let ballast = vec![1u8; 400 << 20];
        let run = run_fc_solve(&exe, &deal(10), Duration::from_secs(60));
        assert_eq!(run.verdict, PeerVerdict::Solvable);
        // fc-solve needs about 80 MB on deal 10.
        let peak = run.peak_rss_bytes.expect("a 0.3 s run is sampled");
        assert!((20 << 20..300 << 20).contains(&peak), "{peak}");
        assert_eq!(
            ballast.iter().map(|&b| usize::from(b)).sum::<usize>(),
            400 << 20
        );
    }

    #[test]
    fn times_out() {
        let Some(exe) = peer() else { return };
        // fc-solve needs about 6 s for deal 6.
        let d = deal(6);
        let run = run_fc_solve_capped(&exe, &d, Duration::from_millis(300), Some(TEST_CAP));
        assert_eq!(run.verdict, PeerVerdict::Timeout);
        assert!(run.seconds >= 0.3 && run.seconds < 5.0, "{}", run.seconds);
        assert_eq!(run.moves, None);
    }

    #[test]
    fn dies_under_a_memory_cap() {
        let Some(exe) = peer() else { return };
        // Deal 6 makes fc-solve store over 1 GB; 64 MiB of address space is far too little.
        let run = run_fc_solve_capped(&exe, &deal(6), Duration::from_secs(30), Some(64 << 20));
        assert!(
            matches!(run.verdict, PeerVerdict::Failed(ref m) if m.starts_with("out of memory")),
            "{:?}",
            run.verdict
        );
    }
}
