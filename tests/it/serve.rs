//! `castle serve` end to end, over HTTP on the loopback interface: a server started with
//! `--port 0` on 127.0.0.1 (the address it prints), requests sent by a small HTTP client
//! written here (so that malformed requests can be sent too), the server stopped with SIGTERM
//! at the end. Known verdicts come from elsewhere: games replayed by `castle verify`, losses
//! certified by `castle check-certificate` (a checker that shares no code with the search),
//! a courtyard deal no build has decided. The page itself is driven in `serve_page.rs`.

use crate::common::{castle, run_ok, temp_file};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A `castle serve` started for a test; stopped (SIGTERM, then killed) when dropped.
pub struct Server {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
}

impl Server {
    /// Starts `castle serve --port 0 ARGS` and waits (at most 60 s) for its address.
    pub fn start(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_castle"))
            .args(["serve", "--port", "0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("castle serve starts");
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(at) = line.find("http://") {
                    let rest = &line[at + 7..];
                    let addr = rest[..rest.find('/').unwrap_or(rest.len())].to_string();
                    let _ = tx.send(addr);
                }
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("castle serve prints its address");
        Server { child, addr }
    }

    /// The server's peak resident set so far, in MiB (Linux).
    pub fn peak_mib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb / 1024)
    }

    /// Stops the server with SIGTERM and returns whether it exited cleanly (within 60 s).
    pub fn stop(mut self) -> bool {
        self.terminate()
    }

    fn terminate(&mut self) -> bool {
        if let Ok(Some(status)) = self.child.try_wait() {
            return status.success();
        }
        // SAFETY: `kill` only sends a signal, to the child this test started.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(60) {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.success();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        false
    }

    /// `POST /api/ROUTE` with a JSON body.
    pub fn post(&self, route: &str, body: &Value) -> Resp {
        post(&self.addr, route, body)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.terminate();
    }
}

/// An HTTP response.
#[derive(Debug)]
pub struct Resp {
    /// The status code.
    pub status: u16,
    /// The headers, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Resp {
    /// The body as JSON (the test fails if it is not).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "status {}: not JSON ({e}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The `error` of a JSON error body.
    pub fn error(&self) -> String {
        self.json()["error"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

/// Sends `request` (the whole HTTP/1.1 request) and reads the response to its end (every
/// request says `Connection: close`).
pub fn raw(addr: &str, request: &[u8]) -> std::io::Result<Resp> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(120)))?;
    // A server that refuses a body may answer and close before it is all sent: the answer
    // is read all the same.
    let _ = s.write_all(request);
    let mut buf = Vec::new();
    s.read_to_end(&mut buf)?;
    let split = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| std::io::Error::other("no end of headers"))?;
    let head = String::from_utf8_lossy(&buf[..split]).to_string();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("bad status line: {head}")))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = buf[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"))
    {
        let mut out = Vec::new();
        let mut rest = &body[..];
        while let Some(end) = rest.windows(2).position(|w| w == b"\r\n") {
            let size = usize::from_str_radix(String::from_utf8_lossy(&rest[..end]).trim(), 16)
                .map_err(std::io::Error::other)?;
            if size == 0 {
                break;
            }
            out.extend_from_slice(&rest[end + 2..end + 2 + size]);
            rest = &rest[end + 2 + size + 2..];
        }
        body = out;
    }
    Ok(Resp {
        status,
        headers,
        body,
    })
}

/// A request with a body.
pub fn request(addr: &str, method: &str, path: &str, extra: &str, body: &[u8]) -> Resp {
    let mut r = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}\r\n",
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body);
    raw(addr, &r).unwrap_or_else(|e| panic!("{method} {path}: {e}"))
}

/// `POST /api/ROUTE` with a JSON body.
pub fn post(addr: &str, route: &str, body: &Value) -> Resp {
    request(
        addr,
        "POST",
        &format!("/api/{route}"),
        "",
        body.to_string().as_bytes(),
    )
}

/// A state reply (status 200), its JSON.
pub fn ok(r: Resp) -> Value {
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    r.json()
}

/// The piles of a state: id and cards.
fn piles(state: &Value) -> Vec<(String, Vec<String>)> {
    state["piles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap().to_string(),
                p["cards"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c.as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect()
}

/// `/api/play` of `action` on `state`'s game.
fn play(s: &Server, state: &Value, action: Value) -> Resp {
    let mut body = action;
    body["game"] = state["game"].clone();
    body["score"] = state["score"].clone();
    s.post("play", &body)
}

/// The board of the game a state holds, replayed by the checker from the save file's moves.
fn checker_board(state: &Value) -> castle::check::Board {
    let text = state["game"].as_str().unwrap();
    let deal = castle::formats::read_json_deal(text, "game").unwrap();
    let report: castle::report::Report = serde_json::from_str(text).unwrap();
    castle::check::replay(&deal, &report.steps("game").unwrap()).unwrap()
}

/// The checker's board as the API names its piles.
pub fn board_piles(board: &castle::check::Board) -> Vec<(String, Vec<String>)> {
    let v = castle::play::game::view(board);
    let names = |p: &[castle::Card]| p.iter().map(ToString::to_string).collect::<Vec<_>>();
    let mut out = Vec::new();
    for (i, p) in v.tableau.iter().enumerate() {
        out.push((format!("t{}", i + 1), names(p)));
    }
    for (i, p) in v.foundations.iter().enumerate() {
        out.push((format!("f{}", i + 1), names(p)));
    }
    for (i, c) in v.reserve.iter().enumerate() {
        out.push((
            format!("r{}", i + 1),
            c.iter().map(ToString::to_string).collect(),
        ));
    }
    if board.rules().stock {
        out.push(("s".to_string(), names(&v.stock)));
        out.push(("w".to_string(), names(&v.waste)));
    }
    out
}

#[test]
fn a_game_played_on_the_coach_s_hints_is_won_and_verify_replays_its_save() {
    let s = Server::start(&["--solves", "1", "--memory", "256"]);
    // The first castile deal the coach calls winnable (the win below proves it).
    let mut st = (1..20)
        .map(|seed| ok(s.post("deal", &json!({"variant": "castile", "seed": seed}))))
        .find(|st| ok(s.post("coach", &json!({"game": st["game"]})))["mark"] == "yes")
        .expect("a winnable castile deal in 1..20");
    assert_eq!(st["variant"], "castile");
    let home0 = st["home"].as_u64().unwrap() - st["score"]["points"].as_u64().unwrap();
    let mut boards = vec![st.clone()];
    for _ in 0..600 {
        if st["won"] == true {
            break;
        }
        let c = ok(s.post("coach", &json!({"game": st["game"], "hint": true})));
        assert_eq!(c["mark"], "yes", "{c}");
        assert_eq!(c["text"], "still winnable");
        let h = &c["hint"];
        // Half the moves by their source alone (a click), when that makes the hinted move.
        let from = if h["from"] == "f" {
            format!("f:{}", h["card"].as_str().unwrap())
        } else {
            h["from"].as_str().unwrap().to_string()
        };
        let action = json!({"action": "move", "from": from, "to": h["to"], "count": h["count"]});
        st = ok(play(&s, &st, action));
        // The board the API draws is the checker's replay of the game's moves.
        assert_eq!(piles(&st), board_piles(&checker_board(&st)));
        // Only the player's move and moves to the foundations or fills were made.
        boards.push(st.clone());
    }
    assert_eq!(st["won"], true, "won on the coach's hints");
    // The score: a point for each card sent home, all of them.
    let total = st["cards"].as_u64().unwrap();
    assert_eq!(st["score"]["points"].as_u64().unwrap(), total - home0);
    assert_eq!(st["score"]["stopped"], Value::Null);
    // `castle verify` replays the save file, and it is a win.
    let f = temp_file(st["game"].as_str().unwrap());
    let out = run_ok(&["verify", f.path().to_str().unwrap()]);
    assert!(out.starts_with("ok"), "{out}");
    // Undo takes back one move at a time (an automatic one counts as one), through the
    // positions the game went through; the score stops counting.
    let n = boards.len();
    let len = |st: &Value| st["history"].as_array().unwrap().len();
    let mut u = st.clone();
    while len(&u) > len(&boards[n - 4]) {
        let before = len(&u);
        u = ok(play(&s, &u, json!({"action": "undo"})));
        assert_eq!(len(&u), before - 1);
        assert_eq!(piles(&u), board_piles(&checker_board(&u)));
    }
    assert_eq!(piles(&u), piles(&boards[n - 4]));
    assert_eq!(u["score"]["stopped"], "undo");
    let frozen = u["score"]["points"].clone();
    while len(&u) < len(&boards[n - 3]) {
        u = ok(play(&s, &u, json!({"action": "redo"})));
    }
    assert_eq!(piles(&u), piles(&boards[n - 3]));
    assert_eq!(u["score"]["points"], frozen, "no points after undo");
    // Load: the same game, its score stopped; `castle play --load` reads the save too.
    let l = ok(s.post("load", &json!({"text": u["game"], "name": "g.json"})));
    assert_eq!(piles(&l), piles(&u));
    assert_eq!(l["score"]["stopped"], "load");
    assert_eq!(l["redo"], u["redo"]);
    let g = temp_file(u["game"].as_str().unwrap());
    let out = castle()
        .args(["play", "--load", g.path().to_str().unwrap()])
        .write_stdin("quit\n")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Restart: the deal again, the moves on the redo list.
    let r = ok(play(&s, &u, json!({"action": "restart"})));
    assert_eq!(piles(&r), piles(&boards[0]));
    assert_eq!(r["score"]["stopped"], "undo", "the first reason stays");
    assert!(s.stop(), "the server stops cleanly on SIGTERM");
}

#[test]
fn automatic_moves_can_be_switched_off_and_each_is_undone_alone() {
    let s = Server::start(&["--solves", "1", "--memory", "256"]);
    // Streets and alleys deals its aces in the piles: some deal has one on top.
    let (mut on, off) = (1..100)
        .find_map(|seed| {
            let on = ok(s.post("deal", &json!({"variant": "sa", "seed": seed})));
            let off = ok(s.post(
                "deal",
                &json!({"variant": "sa", "seed": seed, "auto": false}),
            ));
            (on["moves"]["automatic"].as_u64().unwrap() > 0).then_some((on, off))
        })
        .expect("a streets-and-alleys deal with an ace on top");
    assert_eq!(off["history"].as_array().unwrap().len(), 0);
    assert_eq!(off["auto"], false);
    let autos = on["moves"]["automatic"].as_u64().unwrap();
    // Each automatic move went home, and each undo takes one back.
    for m in on["history"].as_array().unwrap() {
        assert_eq!(m["auto"], true);
        assert!(m["text"].as_str().unwrap().ends_with("-> f"), "{m}");
    }
    for k in 1..=autos {
        on = ok(play(&s, &on, json!({"action": "undo"})));
        assert_eq!(on["history"].as_array().unwrap().len() as u64, autos - k);
    }
    assert_eq!(piles(&on), piles(&off));
    // Switching them on makes them.
    let again = ok(play(&s, &off, json!({"action": "auto", "on": true})));
    assert_eq!(again["moves"]["automatic"].as_u64().unwrap(), autos);
}

/// The message `castle ARGS` prints on standard error for bad input (exit 2), without its
/// `castle: ` and the flag it names.
fn cli_message(args: &[&str], stdin: &str) -> String {
    let out = castle().args(args).write_stdin(stdin).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "castle {args:?}");
    let e = String::from_utf8_lossy(&out.stderr).trim().to_string();
    e.strip_prefix("castle: ").unwrap_or(&e).to_string()
}

#[test]
fn bad_input_gets_a_4xx_with_the_command_line_s_message() {
    let s = Server::start(&["--solves", "1", "--memory", "256"]);
    let a = &s.addr;
    let bad = |r: Resp, status: u16| -> String {
        assert_eq!(r.status, status, "{}", String::from_utf8_lossy(&r.body));
        assert_eq!(r.header("content-type"), Some("application/json"));
        r.error()
    };
    // Not JSON, not UTF-8, not the route's JSON.
    for body in [&b"nope"[..], b"{\"variant\": 3}", b"\xff\xfe{}", b""] {
        let e = bad(request(a, "POST", "/api/deal", "", body), 400);
        assert!(e.starts_with("the request is not"), "{e}");
    }
    // An unknown variant: the message of `castle deal --variant xyz`.
    let e = bad(s.post("deal", &json!({"variant": "xyz", "seed": 1})), 400);
    let cli = cli_message(&["deal", "--variant", "xyz", "--seed", "1"], "");
    assert!(cli.ends_with(&e), "{cli} / {e}");
    // PySolFC's numbers for a variant it does not number; a start rank out of range.
    let e = bad(
        s.post(
            "deal",
            &json!({"variant": "fortress", "seed": 5, "numbering": "pysol"}),
        ),
        400,
    );
    let cli = cli_message(
        &[
            "deal",
            "-v",
            "fortress",
            "--seed",
            "5",
            "--numbering",
            "pysol",
        ],
        "",
    );
    assert!(cli.ends_with(&e), "{cli} / {e}");
    let e = bad(
        s.post(
            "deal",
            &json!({"variant": "bc", "seed": 5, "start_rank": 13}),
        ),
        400,
    );
    let cli = cli_message(&["deal", "--seed", "5", "--start-rank", "13"], "");
    assert!(cli.ends_with(&e), "{cli} / {e}");
    // A malformed board: the message of `castle deal --deal FILE` for the same text, with
    // the file named "the board".
    let board = run_ok(&["deal", "--seed", "42"]).replace("KS QS", "KS 1X");
    let e = bad(s.post("deal", &json!({"board": board})), 400);
    let cli = cli_message(&["deal", "--deal", "-"], &board);
    assert_eq!(cli.replace("<stdin>", "the board"), e);
    // A board and a number at once.
    let e = bad(s.post("deal", &json!({"board": board, "seed": 3})), 400);
    assert!(e.contains("not both"), "{e}");
    // An illegal move: the line mode's message (`error: ...`), and the game unchanged.
    let st = ok(s.post("deal", &json!({"seed": 42, "auto": false})));
    for (from, to) in [("t1", "t1"), ("t2", "f"), ("t3", "t9")] {
        let r = play(&s, &st, json!({"action": "move", "from": from, "to": to}));
        let status = if to == "t9" { 400 } else { 422 };
        let e = bad(r, status);
        let lines = castle()
            .args(["play", "--seed", "42", "--no-auto", "--coach-nodes", "0"])
            .write_stdin(format!("{from} {to}\nquit\n"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&lines.stdout).to_string();
        let cli = text
            .lines()
            .find_map(|l| l.strip_prefix("error: "))
            .unwrap_or_else(|| panic!("line mode refuses {from} {to}: {text}"));
        assert_eq!(cli, e, "{from} {to}");
    }
    let e = bad(play(&s, &st, json!({"action": "undo"})), 422);
    assert_eq!(e, "nothing to undo");
    let e = bad(play(&s, &st, json!({"action": "fly"})), 400);
    assert!(e.contains("unknown action"), "{e}");
    // A save file that is not one, or whose move is illegal: `castle play --load`'s message.
    let game = st["game"].as_str().unwrap().to_string();
    let broken = game.replacen(
        "\"moves\": []",
        "\"moves\": [{\"card\": \"KS\", \"from\": \"t1\", \"to\": \"f\"}]",
        1,
    );
    assert_ne!(broken, game);
    for text in [broken.as_str(), "{\"deal\": 5}", "[]"] {
        // A move the rules refuse is 422, like any illegal move; the rest is 400.
        let status = if text == broken { 422 } else { 400 };
        let e = bad(
            s.post("load", &json!({"text": text, "name": "g.json"})),
            status,
        );
        let f = temp_file(text);
        let cli = cli_message(&["play", "--load", f.path().to_str().unwrap()], "");
        let path = f.path().display().to_string();
        assert_eq!(cli.replace(&path, "g.json"), e, "{text}");
    }
    // A game that is not a save file, sent to a route that reads one.
    let e = bad(s.post("coach", &json!({"game": "{}"})), 400);
    assert!(e.starts_with("the game: "), "{e}");
    // Too large a body: 413, whether it says so in advance or not.
    // (Said in advance: the headers alone, the server answers before any body comes.)
    let big = format!(
        "POST /api/deal HTTP/1.1\r\nHost: {a}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        (1 << 20) + 1
    );
    assert_eq!(raw(a, big.as_bytes()).unwrap().status, 413);
    let mut chunked = format!(
        "POST /api/deal HTTP/1.1\r\nHost: {a}\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    .into_bytes();
    for _ in 0..20 {
        chunked.extend_from_slice(format!("{:x}\r\n", 100_000).as_bytes());
        chunked.extend_from_slice(&vec![b' '; 100_000]);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    assert_eq!(raw(a, &chunked).map(|r| r.status).unwrap_or(413), 413);
    // Unknown routes and pages, the wrong method, a page of another site.
    assert!(bad(s.post("files", &json!({})), 404).contains("no such route"));
    assert_eq!(request(a, "GET", "/etc/passwd", "", b"").status, 404);
    assert_eq!(
        request(a, "GET", "/api/../../etc/passwd", "", b"").status,
        404
    );
    let r = request(a, "GET", "/api/deal", "", b"");
    assert_eq!(r.header("allow"), Some("POST"));
    bad(r, 405);
    let r = request(
        a,
        "POST",
        "/api/deal",
        "Origin: http://evil.example\r\n",
        b"{}",
    );
    bad(r, 403);
    // Garbage that is not HTTP at all does not stop the server.
    let _ = raw(a, b"\x00\x01\x02 not http\r\n\r\n");
    // And after all of it, the server still answers.
    assert_eq!(request(a, "GET", "/api/health", "", b"").json()["ok"], true);
    let page = request(a, "GET", "/", "", b"");
    assert_eq!(page.status, 200);
    assert!(String::from_utf8_lossy(&page.body).contains("<!DOCTYPE html>"));
    assert!(s.stop());
}

/// A position of `seed`'s won line (bc, no automatic moves) and a move from it that loses,
/// the loss certified by `castle check-certificate`: (the line's moves before it, the move).
pub fn certified_losing_move(
    seed: u64,
    after: usize,
) -> Option<(Vec<castle::check::Step>, castle::check::Step)> {
    let json = run_ok(&["solve", "--seed", &seed.to_string(), "-f", "json", "-q"]);
    let report: castle::report::Report = serde_json::from_str(&json).unwrap();
    if report.verdict != "solvable" {
        return None;
    }
    let deal = castle::formats::read_json_deal(&json, "report").unwrap();
    let steps = report.steps("report").unwrap();
    let prefix = steps[..after.min(steps.len())].to_vec();
    let board = castle::check::replay(&deal, &prefix).unwrap();
    let text: Vec<String> = prefix
        .iter()
        .map(|s| format!("{} {}", s.from, s.to))
        .collect();
    let a: Value = serde_json::from_str(&run_ok(&[
        "analyze",
        "--seed",
        &seed.to_string(),
        "--after",
        &text.join(", "),
        "-f",
        "json",
        "--max-nodes",
        "2000000",
    ]))
    .unwrap();
    let lost = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["verdict"] == "unsolvable")?;
    let step = board
        .step_named(lost["from"].as_str()?, lost["to"].as_str()?, 1)
        .ok()?;
    // The loss, certified by the independent checker.
    let mut next = board.clone();
    next.play(&step).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pos = dir.path().join("pos.txt");
    std::fs::write(&pos, castle::formats::write_text(&next.to_deal())).unwrap();
    let cert = dir.path().join("pos.cert");
    run_ok(&[
        "solve",
        "--deal",
        pos.to_str().unwrap(),
        "--certificate",
        cert.to_str().unwrap(),
        "-q",
    ]);
    let checked = castle()
        .args([
            "check-certificate",
            cert.to_str().unwrap(),
            "--deal",
            pos.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(checked.status.success(), "the loss is certified");
    Some((prefix, step))
}

#[test]
fn the_coach_says_winnable_lost_since_move_n_and_undecided() {
    let s = Server::start(&["--solves", "1", "--memory", "256"]);
    // A won deal (the checker replays the line) and a certified losing move after 3 moves.
    let (seed, prefix, losing) = (1..30)
        .find_map(|seed| certified_losing_move(seed, 3).map(|(p, l)| (seed, p, l)))
        .expect("a bc deal with a losing move after three moves of its win");
    let mut st = ok(s.post("deal", &json!({"seed": seed, "auto": false})));
    let c = ok(s.post("coach", &json!({"game": st["game"]})));
    assert_eq!(
        (c["mark"].as_str(), c["text"].as_str()),
        (Some("yes"), Some("still winnable"))
    );
    for step in &prefix {
        let a = json!({"action": "move", "from": step.from.to_string(), "to": step.to.to_string()});
        st = ok(play(&s, &st, a));
        let c = ok(s.post("coach", &json!({"game": st["game"]})));
        assert_eq!(c["mark"], "yes", "along the win");
    }
    let a = json!({"action": "move", "from": losing.from.to_string(), "to": losing.to.to_string()});
    let lost = ok(play(&s, &st, a));
    let n = prefix.len() + 1;
    let c = ok(s.post("coach", &json!({"game": lost["game"]})));
    assert_eq!(c["mark"], "no", "{c}");
    assert_eq!(c["since"].as_u64(), Some(n as u64), "{c}");
    assert_eq!(
        c["text"],
        format!("no longer winnable: since move {n} ({losing})")
    );
    // A few more moves: still lost since the same move.
    let mut later = lost.clone();
    for _ in 0..3 {
        let Some(m) = later["legal"].as_array().unwrap().first().cloned() else {
            break;
        };
        later = ok(play(
            &s,
            &later,
            json!({"action": "move", "from": m["from"], "to": m["to"]}),
        ));
    }
    let c = ok(s.post("coach", &json!({"game": later["game"]})));
    assert_eq!(c["since"].as_u64(), Some(n as u64), "{c}");
    // Undo the losing move: winnable again.
    let back = ok(play(&s, &lost, json!({"action": "undo"})));
    let c = ok(s.post("coach", &json!({"game": back["game"], "hint": true})));
    assert_eq!(c["mark"], "yes");
    assert!(c["hint"]["text"].is_string(), "{c}");
    // The analysis says the same of the losing move.
    let a = ok(s.post("analyze", &json!({"game": back["game"]})));
    let m = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| {
            m["from"] == losing.from.to_string()
                && m["to"] == losing.to.to_string()
                && m["card"] == losing.card.to_string()
        })
        .cloned()
        .unwrap();
    assert_eq!(m["verdict"], "unsolvable");
    assert!(s.stop());

    // Courtyard deal 98: no build has decided it within 60 s (docs/performance-log.md), so
    // within a 20,000-node budget the coach can only say it does not know.
    let s = Server::start(&["--solves", "1", "--memory", "256", "--coach-nodes", "20000"]);
    let st = ok(s.post("deal", &json!({"variant": "courtyard", "seed": 98})));
    let c = ok(s.post("coach", &json!({"game": st["game"], "hint": true})));
    assert_eq!(c["mark"], "unknown", "{c}");
    assert_eq!(c["text"], "not decided within the budget");
    assert_eq!(c["hint"], Value::Null);
    let sol = ok(s.post("solve", &json!({"game": st["game"]})));
    assert_eq!(sol["verdict"], "unknown");
    assert!(s.stop());
}

#[test]
fn a_full_queue_gets_503_with_retry_after() {
    // One solve at a time, none waiting; a solve that runs its whole 3 s budget (courtyard 98,
    // see above) holds the one place.
    let s = Server::start(&[
        "--solves",
        "1",
        "--queue",
        "0",
        "--memory",
        "256",
        "--coach-nodes",
        "1000000000",
        "--coach-seconds",
        "3",
    ]);
    let st = ok(s.post("deal", &json!({"variant": "courtyard", "seed": 98})));
    let addr = s.addr.clone();
    let game = st["game"].clone();
    let slow = std::thread::spawn(move || post(&addr, "coach", &json!({"game": game})));
    // Wait (at most 60 s) until it runs.
    let t0 = Instant::now();
    loop {
        let h = request(&s.addr, "GET", "/api/health", "", b"").json();
        if h["solves_running"] == 1 {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the solve never ran"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let r = s.post("coach", &json!({"game": st["game"]}));
    assert_eq!(r.status, 503, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.header("retry-after"), Some("1"));
    assert!(r.error().starts_with("busy"), "{}", r.error());
    // The cheap routes do not wait for solves.
    assert_eq!(
        play(&s, &st, json!({"action": "quick", "from": "s"})).status,
        200
    );
    let first = slow.join().unwrap();
    assert_eq!(first.status, 200);
    assert_eq!(first.json()["mark"], "unknown");
    assert!(s.stop());
}

/// 16 clients for 15 s, each sending a mix of cheap requests (deal, play, legal) and solving
/// ones (coach, solve, analyze) of all six variants: every answer must be a well-formed
/// 200 (or a 503 with Retry-After when the queue is full), the server's peak memory within
/// its `--memory`, and the server still answering afterwards.
#[test]
fn a_load_of_sixteen_clients_gets_only_well_formed_answers() {
    const MEMORY_MIB: u64 = 384;
    let s = Server::start(&[
        "--solves",
        "2",
        "--queue",
        "8",
        "--memory",
        &MEMORY_MIB.to_string(),
        "--coach-seconds",
        "1",
    ]);
    let variants = ["bc", "sa", "citadel", "fortress", "castile", "courtyard"];
    let t0 = Instant::now();
    let run_for = Duration::from_secs(15);
    let workers: Vec<_> = (0..16)
        .map(|k| {
            let addr = s.addr.clone();
            std::thread::spawn(move || {
                let mut counts = [0u64; 3]; // ok, busy, bad
                let mut i = 0u64;
                // Bounded in time and in count.
                while t0.elapsed() < run_for && i < 5_000 {
                    i += 1;
                    let v = variants[(k + i as usize) % variants.len()];
                    let seed = 1 + (k as u64 * 31 + i) % 50;
                    let d = post(&addr, "deal", &json!({"variant": v, "seed": seed}));
                    if d.status != 200 {
                        counts[2] += 1;
                        continue;
                    }
                    let st = d.json();
                    let legal = st["legal"].as_array().unwrap().clone();
                    let r = match i % 4 {
                        0 | 1 => match legal.get(i as usize % legal.len().max(1)) {
                            Some(m) => {
                                let mut b = json!({"action": "move", "from": m["from"], "to": m["to"], "count": m["count"]});
                                b["game"] = st["game"].clone();
                                b["score"] = st["score"].clone();
                                post(&addr, "play", &b)
                            }
                            None => post(&addr, "legal", &json!({"game": st["game"]})),
                        },
                        2 => post(&addr, "coach", &json!({"game": st["game"], "hint": true})),
                        _ => post(
                            &addr,
                            if k % 2 == 0 { "solve" } else { "analyze" },
                            &json!({"game": st["game"]}),
                        ),
                    };
                    let well_formed = serde_json::from_slice::<Value>(&r.body).is_ok();
                    match r.status {
                        200 if well_formed => counts[0] += 1,
                        503 if well_formed && r.header("retry-after").is_some() => counts[1] += 1,
                        _ => {
                            eprintln!("bad answer {}: {}", r.status, String::from_utf8_lossy(&r.body));
                            counts[2] += 1;
                        }
                    }
                }
                counts
            })
        })
        .collect();
    let mut total = [0u64; 3];
    for w in workers {
        let c = w.join().expect("a client panicked: a malformed answer");
        for i in 0..3 {
            total[i] += c[i];
        }
    }
    eprintln!(
        "load: {} ok, {} busy (503), {} bad",
        total[0], total[1], total[2]
    );
    assert_eq!(total[2], 0, "failed or malformed answers");
    assert!(total[0] > 100, "the server answered: {total:?}");
    let peak = s.peak_mib().unwrap_or(0);
    eprintln!("peak resident set {peak} MiB of --memory {MEMORY_MIB}");
    assert!(
        peak <= MEMORY_MIB,
        "peak {peak} MiB over --memory {MEMORY_MIB}"
    );
    let h = request(&s.addr, "GET", "/api/health", "", b"").json();
    assert_eq!(h["ok"], true);
    assert_eq!(h["solves_running"], 0);
    ok(s.post("deal", &json!({"seed": 1})));
    assert!(s.stop());
}

#[test]
fn a_solution_s_critical_moves_are_the_analysis_s_and_certified() {
    let s = Server::start(&["--solves", "1", "--memory", "256"]);
    // bc deals until a win with a critical move.
    let (seed, line, k) = (1..40)
        .find_map(|seed| {
            let st = ok(s.post("deal", &json!({"seed": seed, "auto": false})));
            let sol = ok(s.post("solve", &json!({"game": st["game"]})));
            let line = sol["line"].as_array()?.clone();
            let k = line.iter().position(|m| !m["critical"].is_null())?;
            Some((seed, line, k))
        })
        .expect("a bc win with a critical move");
    let mark = &line[k]["critical"];
    let (keep, total) = (mark[0].as_u64().unwrap(), mark[1].as_u64().unwrap());
    assert!((1..=2).contains(&keep) && keep < total, "{mark}");
    // `castle analyze` of that position says it is critical, with the same counts.
    let after: Vec<String> = line[..k]
        .iter()
        .map(|m| {
            format!(
                "{} {}",
                m["from"].as_str().unwrap(),
                m["to"].as_str().unwrap()
            )
        })
        .collect();
    let a: Value = serde_json::from_str(&run_ok(&[
        "analyze",
        "--seed",
        &seed.to_string(),
        "--after",
        &after.join(", "),
        "-f",
        "json",
    ]))
    .unwrap();
    assert_eq!(a["critical"], true, "{a}");
    assert_eq!(a["choices"]["total"].as_u64(), Some(total));
    let text = run_ok(&[
        "analyze",
        "--seed",
        &seed.to_string(),
        "--after",
        &after.join(", "),
    ]);
    assert!(
        text.contains(&format!(
            "critical: only {keep} of the {total} moves here keep the win"
        )),
        "{text}"
    );
    // Each move the analysis calls lost is certified lost by the independent checker.
    let json = run_ok(&["deal", "--seed", &seed.to_string(), "-f", "json"]);
    let deal = castle::formats::read_json_deal(&json, "deal").unwrap();
    let mut board = castle::check::Board::new(&deal);
    for m in &line[..k] {
        let st = board
            .step_named(m["from"].as_str().unwrap(), m["to"].as_str().unwrap(), 1)
            .unwrap();
        board.play(&st).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let mut certified = 0;
    for m in a["moves"].as_array().unwrap() {
        if m["verdict"] != "unsolvable" {
            continue;
        }
        let st = board
            .step_named(m["from"].as_str().unwrap(), m["to"].as_str().unwrap(), 1)
            .unwrap();
        let mut next = board.clone();
        next.play(&st).unwrap();
        let pos = dir.path().join(format!("p{certified}.txt"));
        std::fs::write(&pos, castle::formats::write_text(&next.to_deal())).unwrap();
        let cert = dir.path().join(format!("p{certified}.cert"));
        run_ok(&[
            "solve",
            "--deal",
            pos.to_str().unwrap(),
            "--certificate",
            cert.to_str().unwrap(),
            "-q",
        ]);
        run_ok(&[
            "check-certificate",
            cert.to_str().unwrap(),
            "--deal",
            pos.to_str().unwrap(),
        ]);
        certified += 1;
    }
    assert!(
        certified as u64 >= total - keep,
        "{certified} certified of {total} - {keep}"
    );
    assert!(s.stop());
    // The replay page tags critical moves too, on some deal of the same numbers.
    let marked = (1..40u64).any(|seed| {
        run_ok(&["solve", "--seed", &seed.to_string(), "-f", "html", "-q"])
            .contains("\"critical\":[")
    });
    assert!(marked, "a replay page of bc 1..40 marks a critical move");
}
