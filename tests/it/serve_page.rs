//! The page of `castle serve`, driven in headless chromium (Debian's, as for the replay
//! page) through the DevTools protocol on a pipe (`--remote-debugging-pipe`: JSON messages
//! ending in a NUL byte on file descriptors 3 and 4, no other crate). Real mouse events drag
//! and click the cards; a whole game of two variants is won on the coach's hints, the board
//! in the DOM is compared with castle's checker (the game's saved moves replayed) along the
//! way, undo and redo go back and forth, the coach's answers are read off the page (a loss
//! certified by `castle check-certificate` among them), and a win from the page's "show a
//! win" carries its critical marks. A screenshot is kept in `target/tmp/serve-page/`. Without
//! chromium the test says so and passes, except under CI (`CI` set).

use crate::serve::{board_piles, certified_losing_move, ok, Server};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::io::FromRawFd;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Headless chromium and one page of it, spoken to over the DevTools pipe.
struct Browser {
    child: Child,
    to: File,
    from: mpsc::Receiver<Value>,
    id: u64,
    session: String,
    _profile: tempfile::TempDir,
}

impl Browser {
    fn launch() -> Option<Browser> {
        let ok = Command::new("chromium")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            return None;
        }
        let profile = tempfile::tempdir().unwrap();
        let mut fds = [0; 2];
        let mut back = [0; 2];
        // SAFETY: two fresh pipes; the child's ends go to its descriptors 3 and 4.
        unsafe {
            assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
            assert_eq!(libc::pipe(back.as_mut_ptr()), 0);
        }
        let (child_reads, we_write) = (fds[0], fds[1]);
        let (we_read, child_writes) = (back[0], back[1]);
        let mut cmd = Command::new("chromium");
        // (Debian's `chromium` is a shell script that execs the browser: the pipes pass.)
        cmd.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--remote-debugging-pipe",
            "--window-size=1280,900",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("about:blank")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        // SAFETY: only dup2 and close between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                // Out of the way first (any of the four may be 3 or 4 already), then into
                // place; dup2's copies are inherited by the exec.
                let a = libc::fcntl(child_reads, libc::F_DUPFD, 10);
                let b = libc::fcntl(child_writes, libc::F_DUPFD, 10);
                libc::close(we_write);
                libc::close(we_read);
                if a < 0 || b < 0 || libc::dup2(a, 3) < 0 || libc::dup2(b, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                libc::close(a);
                libc::close(b);
                Ok(())
            });
        }
        let child = cmd.spawn().expect("chromium starts");
        // SAFETY: our ends of the pipes, owned from here on; the child's ends closed here.
        let (to, from_file) = unsafe {
            libc::close(child_reads);
            libc::close(child_writes);
            (File::from_raw_fd(we_write), File::from_raw_fd(we_read))
        };
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(from_file);
            loop {
                let mut buf = Vec::new();
                match r.read_until(0, &mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        buf.pop();
                        if let Ok(v) = serde_json::from_slice::<Value>(&buf) {
                            if tx.send(v).is_err() {
                                return;
                            }
                        }
                    }
                }
            }
        });
        let mut b = Browser {
            child,
            to,
            from: rx,
            id: 0,
            session: String::new(),
            _profile: profile,
        };
        let target = b.call("Target.createTarget", json!({"url": "about:blank"}));
        let target = target["targetId"].as_str().unwrap().to_string();
        let s = b.call(
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
        );
        b.session = s["sessionId"].as_str().unwrap().to_string();
        b.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": false}),
        );
        Some(b)
    }

    /// One DevTools call (at most 60 s); its result.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.id += 1;
        let mut msg = json!({"id": self.id, "method": method, "params": params});
        if !self.session.is_empty() {
            msg["sessionId"] = json!(self.session);
        }
        let mut bytes = msg.to_string().into_bytes();
        bytes.push(0);
        self.to.write_all(&bytes).expect("chromium reads");
        let t0 = Instant::now();
        loop {
            let left = Duration::from_secs(60).saturating_sub(t0.elapsed());
            let v = self
                .from
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer to {method}"));
            if v["id"] == self.id {
                assert!(v.get("error").is_none(), "{method}: {v}");
                return v["result"].clone();
            }
        }
    }

    /// Opens a page afresh (only the address's `#` part differs between the pages opened:
    /// a blank page between them makes each a new load).
    fn open(&mut self, url: &str) {
        self.call("Page.navigate", json!({"url": "about:blank"}));
        self.call("Page.navigate", json!({"url": url}));
        self.settle();
    }

    /// The value of a script in the page.
    fn eval(&mut self, expr: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
        );
        assert!(r.get("exceptionDetails").is_none(), "{expr}: {r}");
        r["result"]["value"].clone()
    }

    /// Waits (at most 60 s) until the page has a game and no request is under way.
    fn settle(&mut self) {
        let t0 = Instant::now();
        while self.eval(
            "!!(window.castle && castle.state() && document.body.getAttribute('data-busy') === '0')",
        ) != json!(true)
        {
            assert!(t0.elapsed() < Duration::from_secs(60), "the page never settled");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The centre of the element a selector finds.
    fn centre(&mut self, selector: &str) -> (f64, f64) {
        let sel = serde_json::to_string(selector).unwrap();
        let v = self.eval(&format!(
            "(function () {{ var e = document.querySelector({sel}); if (!e) return null; e.scrollIntoView({{block: 'center'}}); var r = e.getBoundingClientRect(); return [r.left + Math.min(r.width, 46) / 2, r.top + r.height / 2]; }})()"
        ));
        assert!(!v.is_null(), "no element {selector}");
        (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
    }

    fn mouse(&mut self, kind: &str, (x, y): (f64, f64)) {
        self.call(
            "Input.dispatchMouseEvent",
            json!({"type": kind, "x": x, "y": y, "button": "left", "buttons": 1, "clickCount": 1}),
        );
    }

    /// A click on the element, then waits for the page.
    fn click(&mut self, selector: &str) {
        let at = self.centre(selector);
        self.mouse("mouseMoved", at);
        self.mouse("mousePressed", at);
        self.mouse("mouseReleased", at);
        self.settle();
    }

    /// A drag from one element to another, in steps, then waits for the page.
    fn drag(&mut self, from: &str, to: &str) {
        let a = self.centre(from);
        let b = self.centre(to);
        self.mouse("mouseMoved", a);
        self.mouse("mousePressed", a);
        for k in 1..=8 {
            let t = f64::from(k) / 8.0;
            self.mouse("mouseMoved", (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t));
        }
        self.mouse("mouseReleased", b);
        self.settle();
    }

    fn state(&mut self) -> Value {
        self.eval("castle.state()")
    }

    fn text(&mut self, id: &str) -> String {
        self.eval(&format!("document.getElementById('{id}').textContent"))
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The piles the DOM shows: each `data-pile` element and its cards' codes, in order.
    fn dom_piles(&mut self) -> BTreeMap<String, Vec<String>> {
        let v = self.eval(
            "Array.prototype.map.call(document.querySelectorAll('[data-pile]'), function (e) { return [e.getAttribute('data-pile'), Array.prototype.map.call(e.querySelectorAll('[data-card]'), function (c) { return c.getAttribute('data-card'); })]; })",
        );
        let mut out = BTreeMap::new();
        for p in v.as_array().unwrap() {
            let cards = p[1]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap().to_string())
                .collect();
            assert!(
                out.insert(p[0].as_str().unwrap().to_string(), cards)
                    .is_none(),
                "every pile drawn once"
            );
        }
        out
    }

    /// The DOM's board must be the checker's replay of the game's saved moves.
    fn check_board(&mut self, what: &str) {
        let st = self.state();
        let text = st["game"].as_str().unwrap();
        let deal = castle::formats::read_json_deal(text, "game").unwrap();
        let report: castle::report::Report = serde_json::from_str(text).unwrap();
        let board = castle::check::replay(&deal, &report.steps("game").unwrap()).unwrap();
        let want: BTreeMap<_, _> = board_piles(&board).into_iter().collect();
        assert_eq!(self.dom_piles(), want, "{what}");
    }

    fn screenshot(&mut self, path: &std::path::Path) {
        let r = self.call("Page.captureScreenshot", json!({"format": "png"}));
        let png = base64(r["data"].as_str().unwrap());
        std::fs::write(path, png).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Standard base64, decoded (the screenshot).
fn base64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let bytes: Vec<u8> = s.bytes().filter(|&c| c != b'=' && c != b'\n').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let v: Vec<u32> = chunk.iter().map(|&c| u32::from(val(c))).collect();
        let n = v
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &x)| n | x << (18 - 6 * i));
        out.push((n >> 16) as u8);
        if v.len() > 2 {
            out.push((n >> 8) as u8);
        }
        if v.len() > 3 {
            out.push(n as u8);
        }
    }
    out
}

/// The selector of a card of the hinted move and of its destination.
fn selectors(m: &Value) -> (String, String) {
    let card = m["card"].as_str().unwrap();
    let from = m["from"].as_str().unwrap();
    let src = if from == "f" {
        format!("[data-pile^=f] [data-card='{card}']")
    } else {
        format!("[data-pile='{from}'] [data-card='{card}']")
    };
    let to = m["to"].as_str().unwrap();
    let dst = if to == "f" {
        "[data-pile=f1]".to_string()
    } else {
        format!("[data-pile='{to}']")
    };
    (src, dst)
}

/// Whether a click on the hinted move's source makes that move (`castle play`'s quick move,
/// the one the page asks the server for).
fn click_makes(state: &Value, m: &Value) -> bool {
    let g = castle::play::game::Game::from_json(state["game"].as_str().unwrap(), "game").unwrap();
    let from = m["from"].as_str().unwrap();
    let shape = g.shape();
    let Ok(t) = castle::play::game::Target::parse(from, shape) else {
        return false;
    };
    let mut g2 = g.clone();
    g2.quick(t)
        .is_ok_and(|p| p.step.to_string() == m["text"].as_str().unwrap())
}

/// Plays a whole game on the page on the coach's hints: drags and clicks, undo and redo,
/// the board checked against the checker every few moves. Returns the number of moves.
fn win_on_hints(b: &mut Browser, what: &str) -> usize {
    b.check_board(&format!("{what}: the deal"));
    for n in 0..600 {
        let st = b.state();
        if st["won"] == true {
            b.check_board(&format!("{what}: won"));
            return n;
        }
        b.click("#hint");
        assert_eq!(b.text("coach"), "coach: still winnable", "{what} move {n}");
        let hint = b.eval("castle.state().hint");
        assert!(hint.is_object(), "{what}: a hint at move {n}");
        let (src, dst) = selectors(&hint);
        let before = st["history"].as_array().unwrap().len();
        if n % 2 == 1 && click_makes(&st, &hint) {
            b.click(&src);
        } else {
            b.drag(&src, &dst);
        }
        let after = b.state();
        let h = after["history"].as_array().unwrap();
        assert!(
            h.len() > before,
            "{what}: move {n} ({hint}) was made: {}",
            b.text("message")
        );
        assert_eq!(h[before]["text"], hint["text"], "{what}: the hinted move");
        assert_eq!(h[before]["auto"], false);
        if n % 7 == 0 {
            b.check_board(&format!("{what} after {} moves", h.len()));
        }
        if n == 4 {
            // Undo twice and redo twice, through the checker's positions.
            let len = h.len();
            b.click("#undo");
            b.check_board(&format!("{what}: undone once"));
            b.click("#undo");
            b.check_board(&format!("{what}: undone twice"));
            let back = b.state()["history"].as_array().unwrap().len();
            assert!(back < len);
            assert!(b.text("info").contains("no longer counted: "));
            b.click("#redo");
            b.click("#redo");
            b.check_board(&format!("{what}: redone"));
            // The redo list may hold automatic moves of their own: redo them all.
            while b.state()["history"].as_array().unwrap().len() < len {
                b.click("#redo");
            }
            assert_eq!(b.state()["history"].as_array().unwrap().len(), len);
            b.check_board(&format!("{what}: redone to move {len}"));
        }
    }
    panic!("{what}: not won in 600 moves");
}

#[test]
fn the_page_plays_two_won_games_and_shows_the_coach_s_answers() {
    let Some(mut b) = Browser::launch() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but chromium is missing: the page of castle serve cannot be tested"
        );
        eprintln!("chromium is not installed: the browser test of castle serve is skipped");
        return;
    };
    let s = Server::start(&["--solves", "2", "--memory", "512"]);
    let shots = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve-page");
    std::fs::create_dir_all(&shots).unwrap();

    // A castile deal the coach calls winnable (won below), with automatic moves.
    let seed = (1..20u64)
        .find(|&seed| {
            let st = ok(s.post("deal", &json!({"variant": "castile", "seed": seed})));
            ok(s.post("coach", &json!({"game": st["game"]})))["mark"] == "yes"
        })
        .expect("a winnable castile deal");
    let url = format!("http://{}/#variant=castile&seed={seed}", s.addr);
    b.open(&url);
    assert!(b.text("title").starts_with(&format!("castile deal {seed}")));
    let moves = win_on_hints(&mut b, "castile");
    assert!(moves > 10);
    assert!(b.text("info").contains("won!"), "{}", b.text("info"));
    // The save file is a won game for `castle verify`.
    let save = crate::common::temp_file(b.state()["game"].as_str().unwrap());
    let out = crate::common::run_ok(&["verify", save.path().to_str().unwrap()]);
    assert!(out.starts_with("ok"), "{out}");

    // Beleaguered castle deal 42 with no automatic moves: first a win from the page's "show a
    // win", stepped with its buttons, critical marks as the server sent them.
    let url = format!(
        "http://{}/#variant=beleaguered-castle&seed=42&auto=off",
        s.addr
    );
    b.open(&url);
    assert_eq!(b.state()["auto"], false);
    assert_eq!(b.state()["history"].as_array().unwrap().len(), 0);
    b.click("#solve");
    let t0 = Instant::now();
    while b.eval("castle.line() !== null") != json!(true) {
        assert!(t0.elapsed() < Duration::from_secs(60), "no win shown");
        std::thread::sleep(Duration::from_millis(20));
        b.settle();
    }
    let line = b.eval("castle.line().moves");
    let n = line.as_array().unwrap().len();
    assert_eq!(
        b.eval("document.querySelectorAll('#line li').length"),
        json!(n)
    );
    let critical = line
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| !m["critical"].is_null())
        .count();
    assert_eq!(
        b.eval("document.querySelectorAll('#line li.critical').length"),
        json!(critical)
    );
    for _ in 0..6 {
        b.click("#line-next");
    }
    b.check_board("bc 42: six moves of the win shown");
    assert_eq!(
        b.eval("document.querySelector('#line li.current').getAttribute('data-line')"),
        json!("6")
    );
    b.click("#hint");
    b.screenshot(&shots.join("serve-bc-42.png"));
    b.click("#restart");
    b.check_board("bc 42: restarted");
    let moves = win_on_hints(&mut b, "beleaguered-castle");
    assert!(moves > 10);

    // A loss, certified: the coach names the move that lost it; undo, and it is winnable.
    let (seed, prefix, losing) = (1..30)
        .find_map(|seed| certified_losing_move(seed, 2).map(|(p, l)| (seed, p, l)))
        .expect("a bc deal with a losing move after two moves of its win");
    let url = format!(
        "http://{}/#variant=beleaguered-castle&seed={seed}&auto=off",
        s.addr
    );
    b.open(&url);
    for m in prefix.iter().chain([&losing]) {
        let v =
            json!({"card": m.card.to_string(), "from": m.from.to_string(), "to": m.to.to_string()});
        let (src, dst) = selectors(&v);
        b.drag(&src, &dst);
    }
    b.check_board("the losing move made");
    b.click("#ask");
    let n = prefix.len() + 1;
    assert_eq!(
        b.text("coach"),
        format!("coach: no longer winnable: since move {n} ({losing})")
    );
    assert_eq!(
        b.eval("document.getElementById('coach').getAttribute('data-mark')"),
        json!("no")
    );
    b.click("#undo");
    b.click("#ask");
    assert_eq!(b.text("coach"), "coach: still winnable");
    drop(b);
    assert!(s.stop());
}
