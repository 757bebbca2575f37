//! Helpers shared by the integration tests, above all two independent slow solvers: a
//! breadth-first search over plain vectors, written from the rule book alone (no autoplay, no
//! pruning, no packed keys), and a breadth-first search over the move checker's boards (any
//! variant and option: its moves are the checker's `legal_steps`, never the search's move
//! generator). They are the source of known verdicts for small positions.

#![allow(dead_code)]

use castle::check::Board;
use castle::check::{check_win, steps_of};
use castle::{Card, Deal, Limits, Outcome, Solver, Suit, Verdict};
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::Path;

/// Canonical form for the slow solver: non-empty piles sorted, plus foundation heights.
type Slow = (Vec<Vec<u8>>, [u8; 4]);

fn canon(piles: &[Vec<u8>], found: [u8; 4]) -> Slow {
    let mut p: Vec<Vec<u8>> = piles.iter().filter(|p| !p.is_empty()).cloned().collect();
    p.sort();
    (p, found)
}

fn rank(c: u8) -> u8 {
    Card::from_code(c).unwrap().rank()
}

fn suit(c: u8) -> usize {
    Card::from_code(c).unwrap().suit().index()
}

/// Breadth-first search from a Beleaguered Castle-family deal (build down regardless of
/// suit, any card to an empty pile, one card at a time). Returns `Some(Some(n))` with the
/// length of a shortest win, `Some(None)` if no win exists, `None` if more than `cap`
/// states would be needed.
pub fn bfs_shortest_win(deal: &Deal, cap: usize) -> Option<Option<usize>> {
    let n = deal.tableau.len();
    let start: Vec<Vec<u8>> = deal
        .tableau
        .iter()
        .map(|p| p.iter().map(|c| c.code()).collect())
        .collect();
    let mut seen: HashSet<Slow> = HashSet::new();
    let mut queue: VecDeque<(Vec<Vec<u8>>, [u8; 4], usize)> = VecDeque::new();
    let f4: [u8; 4] = deal.foundations[..4].try_into().unwrap();
    seen.insert(canon(&start, f4));
    queue.push_back((start, f4, 0));
    while let Some((piles, found, depth)) = queue.pop_front() {
        if found.iter().all(|&h| h == 13) {
            return Some(Some(depth));
        }
        for i in 0..n {
            let Some(&c) = piles[i].last() else { continue };
            // To the foundation.
            if found[suit(c)] + 1 == rank(c) {
                let mut p = piles.clone();
                p[i].pop();
                let mut f = found;
                f[suit(c)] += 1;
                if seen.insert(canon(&p, f)) {
                    queue.push_back((p, f, depth + 1));
                }
            }
            // To another pile.
            for j in 0..n {
                if j == i {
                    continue;
                }
                let ok = match piles[j].last() {
                    None => true,
                    Some(&t) => rank(t) == rank(c) + 1,
                };
                if ok {
                    let mut p = piles.clone();
                    p[i].pop();
                    p[j].push(c);
                    if seen.insert(canon(&p, found)) {
                        queue.push_back((p, found, depth + 1));
                    }
                }
            }
        }
        if seen.len() > cap {
            return None;
        }
    }
    Some(None)
}

/// A board up to the things the rules ignore: pile order, cell order, which foundation pile
/// of a suit holds which run.
type BoardKey = (Vec<Vec<u8>>, Vec<u8>, Vec<u8>, Vec<u8>, Vec<Vec<u8>>);

fn board_key(b: &Board) -> BoardKey {
    let codes = |v: &[Card]| v.iter().map(|c| c.code()).collect::<Vec<u8>>();
    let mut piles: Vec<Vec<u8>> = b.tableau.iter().map(|p| codes(p)).collect();
    piles.sort();
    let mut cells: Vec<u8> = b
        .reserve
        .iter()
        .map(|c| c.map_or(0, |c| c.code()))
        .collect();
    cells.sort();
    let mut found = vec![Vec::new(); 4];
    for f in &b.foundations {
        if let Some(t) = f.last() {
            found[t.suit().index()].push(f.len() as u8);
        }
    }
    for f in &mut found {
        f.sort();
    }
    (piles, cells, codes(&b.stock), codes(&b.waste), found)
}

/// Breadth-first search over the checker's boards, any variant and options. Same answers as
/// [`bfs_shortest_win`] (counting every move, fills and stock deals included).
pub fn bfs_board(deal: &Deal, cap: usize) -> Option<Option<usize>> {
    let start = Board::new(deal);
    let mut seen: HashSet<BoardKey> = HashSet::new();
    let mut queue: VecDeque<(Board, usize)> = VecDeque::new();
    seen.insert(board_key(&start));
    queue.push_back((start, 0));
    while let Some((b, depth)) = queue.pop_front() {
        if b.cards_out() == 0 {
            return Some(Some(depth));
        }
        for step in b.legal_steps() {
            let mut next = b.clone();
            next.play(&step).expect("legal_steps yields legal moves");
            if seen.insert(board_key(&next)) {
                queue.push_back((next, depth + 1));
            }
        }
        if seen.len() > cap {
            return None;
        }
    }
    Some(None)
}

/// Foundation heights of a one-deck deal, by suit, as a [`Deal`] holds them.
pub fn f8(f: [u8; 4]) -> [u8; 8] {
    [f[0], f[1], f[2], f[3], 0, 0, 0, 0]
}

/// Parses a space-separated card list.
pub fn cards(s: &str) -> Vec<Card> {
    s.split_whitespace().map(|t| t.parse().unwrap()).collect()
}

/// Cards of the full deck that are neither on the given piles nor on the foundations.
pub fn missing_cards(tableau: &[Vec<Card>], found: [u8; 8]) -> Vec<Card> {
    Card::deck()
        .into_iter()
        .filter(|c| c.rank() > found[c.suit().index()])
        .filter(|c| !tableau.iter().any(|p| p.contains(c)))
        .collect()
}

/// Every suit, for building positions by hand.
pub const SUITS: [Suit; 4] = Suit::ALL;

/// Solves and, for a win, replays the moves with the checker (which fails the test if any
/// move is illegal or the game is not won at the end).
pub fn solve_checked(solver: &Solver, deal: &Deal) -> Outcome {
    let out = solver.solve(deal).expect("the solution replays");
    if out.verdict == Verdict::Solvable {
        if let Err(e) = check_win(deal, &steps_of(&out.moves)) {
            panic!(
                "solution for {} seed {:?} does not replay: {e}\n{deal:?}",
                deal.rules.variant, deal.seed
            );
        }
    }
    out
}

/// The default solver's outcome within `nodes` (its wins replayed, as [`solve_checked`]).
pub fn exact(deal: &Deal, nodes: u64) -> Outcome {
    let solver = Solver {
        limits: Limits {
            max_nodes: Some(nodes),
            ..Limits::default()
        },
        ..Solver::default()
    };
    solve_checked(&solver, deal)
}

/// The plain depth-first search (no restarts, quick phase, portfolio, probes or quotient)
/// within `nodes`: it decides `unsolvable` by entering every reachable position.
pub fn plain_dfs(nodes: u64) -> Solver {
    Solver {
        limits: Limits {
            max_nodes: Some(nodes),
            ..Limits::default()
        },
        restarts: false,
        quick: false,
        best_first: false,
        probes: None,
        quotient: false,
        ..Solver::default()
    }
}

/// The verdict a slow solver's answer (a shortest win's length, or none) stands for.
pub fn verdict_of(shortest: Option<usize>) -> Verdict {
    if shortest.is_some() {
        Verdict::Solvable
    } else {
        Verdict::Unsolvable
    }
}

/// The path of `data/PATH` in the repository (golden deals, cross-check data, bench deals).
pub fn data(path: &str) -> String {
    format!("{}/data/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// The built binary, ready for arguments (assert_cmd).
pub fn castle() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("castle").unwrap()
}

/// Runs castle with `args`, asserts that it succeeded, and returns its standard output.
pub fn run_ok(args: &[&str]) -> String {
    let out = castle().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "castle {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A temporary file holding `text` (removed when dropped).
pub fn temp_file(text: &str) -> tempfile::NamedTempFile {
    use std::io::Write;
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

/// Runs the built binary in `dir` (or here) with `stdin` written to its standard input (from
/// a thread of its own, so that a child that writes much before it reads cannot stall), and
/// returns what it printed and how it ended. A child that exits without reading all of its
/// input shows that in its exit status, not as an error here.
pub fn run_castle(
    args: &[&str],
    stdin: &[u8],
    dir: Option<&std::path::Path>,
) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_castle"));
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    let mut child = cmd.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    std::thread::scope(|s| {
        s.spawn(move || {
            let _ = input.write_all(stdin);
        });
        child.wait_with_output().unwrap()
    })
}

/// A batch of two quick deals (beleaguered castle from rank 11 up), quiet: the arguments the
/// tests of `batch`'s options and readers start from (add `--csv FILE` and the flag tested).
pub const SMALL_BATCH: [&str; 6] = ["batch", "-q", "--seeds", "1..2", "--start-rank", "11"];

/// The rows of a batch CSV file by seed, without the timing columns (`ms`, `cpu_ms`), which
/// differ from run to run: what two runs of the same deals must agree on. The file must be
/// whole (the current header, every row complete); panics on a seed written twice.
pub fn batch_rows(path: &Path) -> BTreeMap<u64, String> {
    let text = std::fs::read_to_string(path).unwrap();
    assert_eq!(text.lines().next(), Some(castle::batch::HEADER), "{path:?}");
    rows_without_times(&text)
}

/// [`batch_rows`] of a file a batch may be writing or was killed writing: a missing file has
/// no rows, and a torn last line (a kill in the middle of a write) is not counted.
pub fn whole_batch_rows(path: &Path) -> BTreeMap<u64, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    rows_without_times(&text[..text.rfind('\n').map_or(0, |p| p + 1)])
}

fn rows_without_times(text: &str) -> BTreeMap<u64, String> {
    let header: Vec<&str> = castle::batch::HEADER.split(',').collect();
    let mut by = BTreeMap::new();
    for l in text.lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(f.len(), header.len(), "torn row `{l}`");
        let seed: u64 = f[0].parse().unwrap();
        let without_times = f
            .iter()
            .zip(&header)
            .filter(|(_, h)| **h != "ms" && **h != "cpu_ms")
            .map(|(v, _)| *v)
            .collect::<Vec<_>>()
            .join(",");
        assert!(
            by.insert(seed, without_times).is_none(),
            "seed {seed} written twice"
        );
    }
    by
}

/// Runs the test script `tests/it/NAME` with bash and the built binary as `$CASTLE`, asserts
/// that it succeeded, and returns what it printed (printed too).
pub fn run_script(name: &str) -> String {
    let script = format!("{}/tests/it/{name}", env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new("bash")
        .arg(&script)
        .env("CASTLE", env!("CARGO_BIN_EXE_castle"))
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    println!("{stdout}");
    assert!(
        out.status.success(),
        "tests/it/{name} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}
