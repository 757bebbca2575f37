//! The API of `castle serve`, free of HTTP: each route is a function from the request's JSON
//! to a [`Reply`] (a status and a JSON body). The server keeps no game: the page holds the
//! game as castle's save file (the JSON `castle play` saves and `castle verify` reads) and
//! sends it with each request; the server replays it with the rule-book checker
//! ([`Game::from_json`]), does what is asked with the same [`Game`] that `castle play` uses,
//! and sends the new game back. So the rules live in Rust only, no request can touch a file,
//! and a request costs what its game's moves cost to replay.
//!
//! Bad input gets a 4xx whose `error` is the message the command line prints for the same
//! input (without its flag name): 400 for what cannot be read (not JSON, an unknown variant,
//! a malformed board or save), 422 for a move the rules refuse.

use super::coach::{self, Budget, Cache};
use crate::check::{Board, Step};
use crate::critical::{choices, Choices};
use crate::deal::{Deal, Numbering};
use crate::formats::{self, Format, ReadOptions};
use crate::pile::Pile;
use crate::play::game::{foundation_suit, view, Game, Target};
use crate::play::session::Session;
use crate::rules::{SequenceMoves, Variant};
use crate::solver::{Solver, Verdict};
use crate::{InputError, InputKind};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// What a route answers: an HTTP status and a JSON body.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// The body.
    pub body: Value,
}

impl Reply {
    fn ok(body: Value) -> Reply {
        Reply { status: 200, body }
    }

    /// An error reply: `{"error": message, "kind": kind}`.
    pub fn error(status: u16, kind: &str, message: impl Into<String>) -> Reply {
        Reply {
            status,
            body: json!({"error": message.into(), "kind": kind}),
        }
    }

    /// Bad input, as the command line words it (without the flag).
    fn input(e: &InputError) -> Reply {
        let mut e = e.clone();
        e.flag = None;
        let kind = format!("{:?}", e.kind).to_ascii_lowercase();
        let status = if e.kind == InputKind::Move { 422 } else { 400 };
        Reply::error(status, &kind, e.to_string())
    }
}

/// What every route may use: the budgets and the coach's memory.
#[derive(Debug)]
pub struct Context {
    /// The solver of one request (its node and time budget, its share of the memory).
    pub solver: Solver,
    /// Positions the coach has decided, shared by all requests.
    pub cache: Cache,
}

/// The routes that run the solver (they wait for a place among the solves in flight).
pub fn solves(route: &str) -> bool {
    matches!(route, "coach" | "solve" | "analyze")
}

/// Runs one route on a request body. `route` is the path after `/api/`.
pub fn handle(ctx: &Context, route: &str, body: &[u8]) -> Reply {
    let result = match route {
        "variants" => Ok(variants()),
        "deal" => parse(body).and_then(|r| deal(&r)),
        "load" => parse(body).and_then(|r: LoadRequest| load(&r)),
        "play" => parse(body).and_then(|r| play(&r)),
        "legal" => parse(body).and_then(|r: GameRequest| {
            let g = r.game()?;
            Ok(json!({"legal": legal(g.board())}))
        }),
        "coach" => parse(body).and_then(|r| coach_route(ctx, &r)),
        "solve" => parse(body).and_then(|r| solve_route(ctx, &r)),
        "analyze" => parse(body).and_then(|r| analyze_route(ctx, &r)),
        _ => {
            return Reply::error(
                404,
                "route",
                format!(
                "no such route: /api/{} (deal, load, play, legal, coach, solve, analyze, variants)",
                crate::text::Cut(route)
            ),
            )
        }
    };
    match result {
        Ok(v) => Reply::ok(v),
        Err(r) => r,
    }
}

/// The request's JSON, or a 400 that says why it is not that.
fn parse<T: for<'de> Deserialize<'de>>(body: &[u8]) -> Result<T, Reply> {
    let text = std::str::from_utf8(body)
        .map_err(|e| Reply::error(400, "text", format!("the request is not UTF-8 text: {e}")))?;
    serde_json::from_str(text).map_err(|e| {
        Reply::error(
            400,
            "request",
            format!("the request is not the JSON this route reads: {e}"),
        )
    })
}

/// The origin that names a game sent by the page in messages.
const GAME: &str = "the game";

/// A request that carries a game.
#[derive(Deserialize)]
struct GameRequest {
    /// The game: castle's save file, as text.
    game: String,
    /// The score so far.
    #[serde(default)]
    score: Score,
}

impl GameRequest {
    fn game(&self) -> Result<Game, Reply> {
        Game::from_json(&self.game, GAME).map_err(|e| Reply::input(&e))
    }
}

/// The seed games' score: a point for each card sent to the foundations, counted until the
/// player undoes a move, restarts or loads a game (then it stays as it was until a new deal).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Score {
    /// Points: cards sent home since the deal while the score counted.
    pub points: u32,
    /// Why the score stopped counting (`undo`, `restart` or `load`); `None` while it counts.
    #[serde(default)]
    pub stopped: Option<String>,
}

impl Score {
    fn add(&mut self, steps: &[Step]) {
        if self.stopped.is_none() {
            let home = steps.iter().filter(|s| s.to == Pile::Foundation).count();
            self.points = self.points.saturating_add(home as u32);
        }
    }

    fn stop(&mut self, why: &str) {
        if self.stopped.is_none() {
            self.stopped = Some(why.to_string());
        }
    }
}

/// `/api/variants`: the variants, with what the page needs to offer their options.
fn variants() -> Value {
    let list: Vec<Value> = Variant::ALL
        .iter()
        .map(|v| {
            let r = v.rules();
            json!({
                "name": v.name(),
                "aliases": v.aliases(),
                "rules": r.describe(),
                "start_rank": v.has_start_rank().then_some(r.options.start_rank),
                "pysol": Deal::numbered(r, Numbering::Pysol, 1).is_ok(),
            })
        })
        .collect();
    json!({ "variants": list })
}

/// `/api/deal`.
#[derive(Deserialize)]
struct DealRequest {
    /// The variant (a name or an alias; default beleaguered-castle).
    variant: Option<String>,
    /// The deal number; with none (and no board) a random one.
    seed: Option<u64>,
    /// `castle` (default) or `pysol`.
    numbering: Option<String>,
    /// A board in any format castle reads (text, fc-solve, JSON), instead of a number.
    board: Option<String>,
    /// The board's format, when it should not be detected: `text`, `fcs` or `json`.
    format: Option<String>,
    /// The foundations start at this rank (the Beleaguered Castle family).
    start_rank: Option<u8>,
    /// Foundation cards may come back.
    foundation_return: Option<bool>,
    /// `single` or `unlimited`.
    sequence_moves: Option<String>,
    /// Automatic safe moves to the foundations (default on).
    auto: Option<bool>,
}

fn deal(r: &DealRequest) -> Result<Value, Reply> {
    let input = |e: InputError| Reply::input(&e);
    let variant = match &r.variant {
        Some(v) => Some(
            v.parse::<Variant>()
                .map_err(|e| input(InputError::new(InputKind::Rules, e.to_string())))?,
        ),
        None => None,
    };
    let sequence = match r.sequence_moves.as_deref() {
        None => None,
        Some("single") => Some(SequenceMoves::Single),
        Some("unlimited") => Some(SequenceMoves::Unlimited),
        Some(s) => {
            return Err(input(InputError::new(
                InputKind::Rules,
                format!(
                    "sequence moves `{}`: single or unlimited",
                    crate::text::Cut(s)
                ),
            )))
        }
    };
    let numbering = match &r.numbering {
        Some(n) => n.parse::<Numbering>().map_err(input)?,
        None => Numbering::Castle,
    };
    let deal = match &r.board {
        Some(text) => {
            if r.seed.is_some() || numbering != Numbering::Castle {
                return Err(input(InputError::new(
                    InputKind::Usage,
                    "give a board or a deal number, not both",
                )));
            }
            let format = match &r.format {
                Some(f) => Some(f.parse::<Format>().map_err(input)?),
                None => None,
            };
            let opts = ReadOptions {
                variant,
                start_rank: r.start_rank,
                foundation_return: r.foundation_return.filter(|&f| f),
                sequence_moves: sequence,
                format,
            };
            formats::read_deal(text, "the board", opts).map_err(input)?
        }
        None => {
            let mut rules = variant.unwrap_or(Variant::BeleagueredCastle).rules();
            if let Some(k) = r.start_rank {
                rules = rules
                    .with_start_rank(k)
                    .map_err(|e| input(InputError::new(InputKind::Rules, e.to_string())))?;
            }
            if r.foundation_return == Some(true) {
                rules = rules.with_foundation_return(true);
            }
            if let Some(s) = sequence {
                rules = rules.with_sequence_moves(s);
            }
            let seed = match r.seed {
                Some(s) => s,
                None => {
                    use rand::Rng;
                    // PySolFC's numbers from 32000 on are dealt by another generator; the
                    // random numbers stay in the range players know.
                    let top = if numbering == Numbering::Pysol {
                        31_999
                    } else {
                        1_000_000
                    };
                    rand::thread_rng().gen_range(1..=top)
                }
            };
            Deal::numbered(rules, numbering, seed).map_err(input)?
        }
    };
    let numbering = if deal.seed.is_some() {
        numbering
    } else {
        Numbering::Castle
    };
    let game = Game::new(deal, r.auto.unwrap_or(true)).numbered(numbering);
    let mut score = Score::default();
    let opening: Vec<Step> = game.history().iter().map(|e| e.step).collect();
    score.add(&opening);
    Ok(state(&game, &score, None))
}

/// `/api/load`: a saved game sent as text (the page reads the file; the server never does).
#[derive(Deserialize)]
struct LoadRequest {
    /// The file's text.
    text: String,
    /// The file's name, for messages.
    name: Option<String>,
}

fn load(r: &LoadRequest) -> Result<Value, Reply> {
    let origin = r
        .name
        .as_deref()
        .map(crate::text::cut)
        .unwrap_or_else(|| "the file".to_string());
    let game = Game::from_json(&r.text, &origin).map_err(|e| Reply::input(&e))?;
    let score = Score {
        points: 0,
        stopped: Some("load".to_string()),
    };
    Ok(state(&game, &score, Some(format!("loaded {origin}"))))
}

/// `/api/play`.
#[derive(Deserialize)]
struct PlayRequest {
    #[serde(flatten)]
    game: GameRequest,
    /// `move`, `quick`, `undo`, `redo`, `restart` or `auto`.
    action: String,
    /// The source pile (`t3`, `r1`, `w`, `s`, `f:5H`), for `move` and `quick`.
    from: Option<String>,
    /// The destination (`t5`, `r2`, `f`), for `move`.
    to: Option<String>,
    /// The cards to move (a run under unlimited sequence moves); the longest that may go
    /// when not given.
    count: Option<usize>,
    /// For `auto`: on or off.
    on: Option<bool>,
}

fn play(r: &PlayRequest) -> Result<Value, Reply> {
    let mut game = r.game.game()?;
    let mut score = r.game.score.clone();
    let refused = |e: &dyn std::fmt::Display| Reply::error(422, "move", e.to_string());
    let shape = game.shape();
    let target = |w: &Option<String>, what: &str| -> Result<Target, Reply> {
        let w = w.as_deref().ok_or_else(|| {
            Reply::error(
                400,
                "request",
                format!("this action needs `{what}`: a pile like t1"),
            )
        })?;
        Target::parse(w, shape).map_err(|e| Reply::error(400, "pile", e.to_string()))
    };
    let message = match r.action.as_str() {
        "move" | "quick" => {
            let from = target(&r.from, "from")?;
            let played = if r.action == "move" {
                let to = target(&r.to, "to")?;
                if r.count == Some(0) {
                    return Err(refused(&"a move carries at least one card"));
                }
                game.play(from, to, r.count)
            } else {
                game.quick(from)
            }
            .map_err(|e| refused(&e))?;
            let all = played.all();
            score.add(&all);
            moves_text(&all)
        }
        "undo" => {
            let undone = game.undo().ok_or_else(|| refused(&"nothing to undo"))?;
            score.stop("undo");
            format!(
                "undone: {}",
                moves_text(&undone.iter().map(|e| e.step).collect::<Vec<_>>())
            )
        }
        "redo" => {
            let redone = game.redo().ok_or_else(|| refused(&"nothing to redo"))?;
            let steps: Vec<Step> = redone.iter().map(|e| e.step).collect();
            score.add(&steps);
            format!("redone: {}", moves_text(&steps))
        }
        "restart" => {
            let made = game.restart();
            score.stop("restart");
            score.add(&made);
            "restarted".to_string()
        }
        "auto" => {
            let on = r.on.unwrap_or(!game.auto());
            let made = game.set_auto(on);
            score.add(&made);
            format!("automatic moves {}", if on { "on" } else { "off" })
        }
        a => {
            return Err(Reply::error(
                400,
                "request",
                format!(
                    "unknown action `{}` (move, quick, undo, redo, restart, auto)",
                    crate::text::Cut(a)
                ),
            ))
        }
    };
    Ok(state(&game, &score, Some(message)))
}

fn moves_text(steps: &[Step]) -> String {
    steps
        .iter()
        .map(Step::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// One move as the page gets it.
fn move_json(s: &Step) -> Value {
    json!({
        "card": s.card.to_string(),
        "from": s.from.to_string(),
        "to": s.to.to_string(),
        "count": s.count,
        "text": s.to_string(),
    })
}

/// The legal moves of a board, as the checker finds them.
fn legal(board: &Board) -> Vec<Value> {
    board.legal_steps().iter().map(move_json).collect()
}

/// The piles of a board as the page draws them (the replay page's layout): each with its id
/// (`t1`, `f1`, `r1`, `s`, `w`), its place (`left`, `right`, `found`, `cell`, `stock`,
/// `waste`), the suit an empty foundation waits for, and its cards bottom first (the stock's
/// next card last).
pub fn piles(board: &Board) -> Vec<Value> {
    let v = view(board);
    let names = |p: &[crate::Card]| p.iter().map(ToString::to_string).collect::<Vec<_>>();
    let left = v.tableau.len().div_ceil(2);
    let mut out = Vec::new();
    for (i, p) in v.tableau.iter().enumerate() {
        let place = if i < left { "left" } else { "right" };
        out.push(json!({"id": format!("t{}", i + 1), "place": place, "cards": names(p)}));
    }
    let nf = v.foundations.len();
    for (k, p) in v.foundations.iter().enumerate() {
        let suit = foundation_suit(k, nf).map(|s| s.symbol().to_string());
        out.push(
            json!({"id": format!("f{}", k + 1), "place": "found", "suit": suit, "cards": names(p)}),
        );
    }
    for (k, c) in v.reserve.iter().enumerate() {
        let cards: Vec<String> = c.iter().map(ToString::to_string).collect();
        out.push(json!({"id": format!("r{}", k + 1), "place": "cell", "cards": cards}));
    }
    if board.rules().stock {
        out.push(json!({"id": "s", "place": "stock", "cards": names(&v.stock)}));
        out.push(json!({"id": "w", "place": "waste", "cards": names(&v.waste)}));
    }
    out
}

/// The whole state the page draws: the game (its save file, which the page sends back), the
/// score, the board, the legal moves, the moves made.
fn state(game: &Game, score: &Score, message: Option<String>) -> Value {
    let board = game.board();
    let v = view(board);
    let rules = game.rules();
    let title = Session::new(game.clone(), crate::play::coach::Coach::new(None), None).title();
    let history: Vec<Value> = game
        .history()
        .iter()
        .map(|e| json!({"text": e.step.to_string(), "auto": e.auto}))
        .collect();
    let (mine, auto) = game.moves_made();
    json!({
        "game": game.to_json(),
        "score": score,
        "title": title,
        "variant": rules.variant.name(),
        "seed": game.deal().seed,
        "numbering": game.numbering().name(),
        "options": {
            "start_rank": rules.variant.has_start_rank().then_some(rules.options.start_rank),
            "foundation_return": rules.options.foundation_return,
            "sequence_moves": match rules.options.sequence_moves {
                SequenceMoves::Single => "single",
                SequenceMoves::Unlimited => "unlimited",
            },
        },
        "piles": piles(board),
        "legal": legal(board),
        "history": history,
        "moves": {"player": mine, "automatic": auto},
        "redo": game.redo_len(),
        "auto": game.auto(),
        "won": game.is_won(),
        "home": v.home(),
        "cards": v.total(),
        "message": message,
    })
}

/// `/api/coach`.
#[derive(Deserialize)]
struct CoachRequest {
    #[serde(flatten)]
    game: GameRequest,
    /// Also the next move of a win (when there is one).
    #[serde(default)]
    hint: bool,
}

fn coach_route(ctx: &Context, r: &CoachRequest) -> Result<Value, Reply> {
    let game = r.game.game()?;
    let mut budget = Budget::new(&ctx.solver);
    let c = coach::coach(&game, &ctx.cache, &mut budget, &ctx.solver);
    let hint = if r.hint {
        c.plan.first().map(move_json)
    } else {
        None
    };
    Ok(json!({
        "mark": c.mark,
        "text": c.text(),
        "since": c.since,
        "losing_move": c.losing_move.as_ref().map(move_json),
        "winnable_after": c.winnable_after,
        "hint": hint,
        "nodes": budget.used(),
        "cached": c.cached,
    }))
}

/// `/api/solve`: a win from the position now, as the game plays it (the automatic moves
/// made by the game after each move of the player's), each player's move with its critical
/// mark; or why there is none.
fn solve_route(ctx: &Context, r: &GameRequest) -> Result<Value, Reply> {
    let mut game = r.game()?;
    let mut budget = Budget::new(&ctx.solver);
    // The marks have a budget as large again of their own: they never starve the line.
    let mut marking = Budget::new(&ctx.solver);
    let mut line: Vec<Value> = Vec::new();
    let start = game.history().len();
    let mut verdict = Verdict::Solvable;
    // A line is at most every card moved a few times; the cap only guards against a bug.
    for _ in 0..4 * 104 * 8 {
        if game.is_won() {
            break;
        }
        let c = coach::coach(&game, &ctx.cache, &mut budget, &ctx.solver);
        let Some(step) = c.plan.first().copied() else {
            verdict = match c.mark {
                coach::Mark::No => Verdict::Unsolvable,
                _ => Verdict::Unknown,
            };
            break;
        };
        let before = game.board().clone();
        let mark = marking.marking(&ctx.solver).and_then(|solver| {
            let ch = choices(&before, Some(&step), &solver).ok()?;
            marking.spend(ch.nodes);
            Some(ch)
        });
        let Ok(played) = game.play_step(&step) else {
            verdict = Verdict::Unknown;
            break;
        };
        let mut m = move_json(&step);
        m["auto"] = json!(false);
        m["critical"] = critical_json(mark);
        line.push(m);
        for s in &played.auto {
            let mut a = move_json(s);
            a["auto"] = json!(true);
            line.push(a);
        }
    }
    if !game.is_won() && verdict == Verdict::Solvable {
        verdict = Verdict::Unknown;
    }
    if verdict != Verdict::Solvable {
        line.clear();
    }
    Ok(json!({
        "verdict": verdict.name(),
        "from_move": start,
        "line": line,
        "nodes": budget.used() + marking.used(),
    }))
}

/// A player's move's mark: `[not lost, of]` when critical, else null.
fn critical_json(c: Option<Choices>) -> Value {
    match c {
        Some(c) if c.critical() => json!([c.not_lost(), c.total]),
        _ => Value::Null,
    }
}

/// `/api/analyze`: `castle analyze --format json` of the position now.
fn analyze_route(ctx: &Context, r: &GameRequest) -> Result<Value, Reply> {
    let game = r.game()?;
    let solver = ctx.solver.clone();
    let a = crate::analyze::analyze(game.board(), &solver)
        .map_err(|e| Reply::error(500, "solve", e.to_string()))?;
    let mut out = Vec::new();
    crate::report::write_analysis(&mut out, &a)
        .map_err(|e| Reply::error(500, "internal", e.to_string()))?;
    serde_json::from_slice(&out).map_err(|e| Reply::error(500, "internal", e.to_string()))
}
