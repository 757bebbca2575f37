//! The full-screen board (ratatui on crossterm), laid out as the seed games lay it out: the
//! foundations in a middle column (two for courtyard's eight) and the tableau piles as wings
//! on both sides, each wing's top card on the outside, with the reserve cells, the stock and
//! the waste on a line above. Suits in colour, the cards that can move in bold and underlined,
//! the selected card reversed, the hinted card on yellow, a status line with the score and
//! the "winnable?" mark, a message line, and the keys at the bottom.
//!
//! The coach runs in a background [`Worker`]: the screen never waits for it. Hint and "show
//! me" asked before it has decided wait for its answer and then happen by themselves.
//!
//! This file holds the [`App`] (its state, the coach's answers, actions and the event loop)
//! and the terminal set-up; `input` turns keys and clicks into actions, `render` draws.

use super::coach::Worker;
use super::game::Target;
use super::session::{Action, Reply, Session};
use crate::check::{Board, Step};
use crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event};
use crossterm::execute;
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::layout::Rect;
use ratatui::Terminal;
use std::io;
use std::time::Duration;

mod input;
mod render;

/// A file name being typed.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Prompt {
    Save(String),
    Load(String),
}

/// The full-screen game's state besides the session: selection, messages, the coach thread.
pub struct App {
    s: Session,
    worker: Option<Worker>,
    asked: Option<Board>,
    selected: Option<Target>,
    hint: Option<Step>,
    message: Option<(String, bool)>,
    pending: Option<Action>,
    prompt: Option<Prompt>,
    /// The first key of a two-key pile name (`r` of `r1`).
    typed: Option<char>,
    help: bool,
    hits: Vec<(Rect, Target)>,
    quit: bool,
}

impl App {
    /// The app on a session; `worker` answers for the coach (none: the coach is off).
    pub fn new(s: Session, worker: Option<Worker>) -> App {
        App {
            s,
            worker,
            asked: None,
            selected: None,
            hint: None,
            message: None,
            pending: None,
            prompt: None,
            typed: None,
            help: false,
            hits: Vec::new(),
            quit: false,
        }
    }

    /// The session.
    pub fn session(&self) -> &Session {
        &self.s
    }

    /// True once the player has asked to quit.
    pub fn quitting(&self) -> bool {
        self.quit
    }

    /// Takes in the coach's answers and sends it the position if it needs one. Never waits.
    /// True if anything on the screen may have changed.
    pub fn tick(&mut self) -> bool {
        let mut changed = false;
        if let Some(w) = &self.worker {
            for (b, k) in w.answers() {
                self.s.coach.learn(b, k);
                changed = true;
            }
            let board = self.s.board();
            if self.s.coach.needs(board) && self.asked.as_ref() != Some(board) {
                w.ask(board);
                self.asked = Some(board.clone());
            }
        }
        if let Some(a) = self.pending.clone() {
            if self.s.coach.known(self.s.board()).is_some() {
                self.pending = None;
                self.act(a);
                changed = true;
            }
        }
        changed
    }

    fn say(&mut self, text: impl Into<String>, error: bool) {
        self.message = Some((text.into(), error));
    }

    /// Does an action and shows its reply.
    pub fn act(&mut self, a: Action) {
        self.hint = None;
        self.pending = None;
        self.selected = None;
        match self.s.act(&a) {
            Reply::Done(lines) => {
                if a == Action::Hint {
                    self.hint = self
                        .s
                        .coach
                        .known(self.s.board())
                        .and_then(|k| k.plan.first().cloned());
                }
                self.say(lines.join(" · "), false);
            }
            Reply::Refused(why) => self.say(why, true),
            Reply::Wait => {
                self.say("the coach is still thinking; it will answer here", false);
                self.pending = Some(a);
            }
        }
    }

    /// Runs the event loop on `terminal` until the player quits.
    ///
    /// # Errors
    /// A terminal failure.
    pub fn event_loop<B: Backend>(&mut self, terminal: &mut Terminal<B>) -> io::Result<()> {
        let mut dirty = true;
        while !self.quit {
            dirty |= self.tick();
            if dirty {
                terminal.draw(|f| self.draw(f))?;
                dirty = false;
            }
            if event::poll(Duration::from_millis(100))? {
                match event::read()? {
                    Event::Key(k) => self.key(k),
                    Event::Mouse(m) => self.mouse(m),
                    _ => {}
                }
                dirty = true;
            }
        }
        Ok(())
    }
}

fn restore() -> io::Result<()> {
    disable_raw_mode()?;
    execute!(io::stdout(), DisableMouseCapture, LeaveAlternateScreen)
}

/// Plays `s` full-screen on the terminal, and puts the terminal back afterwards (also after
/// a panic).
///
/// # Errors
/// A terminal failure.
pub fn run(s: Session) -> io::Result<()> {
    let worker = s.coach.solver().map(|solver| Worker::spawn(solver.clone()));
    enable_raw_mode()?;
    let mut stdout = io::stdout();
    if let Err(e) = execute!(stdout, EnterAlternateScreen, EnableMouseCapture) {
        let _ = restore();
        return Err(e);
    }
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = restore();
        hook(info);
    }));
    let result = Terminal::new(CrosstermBackend::new(stdout)).and_then(|mut terminal| {
        let r = App::new(s, worker).event_loop(&mut terminal);
        let _ = terminal.show_cursor();
        r
    });
    restore()?;
    result
}

#[cfg(test)]
mod tests {
    use super::render::{face, MIN_SIZE};
    use super::*;
    use crate::pile::Pile;
    use crate::play::coach::{coach_solver, Coach};
    use crate::play::game::view;
    use crate::play::game::Game;
    use crate::Deal;
    use crossterm::event::{
        KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
    };
    use ratatui::backend::TestBackend;

    fn screen(app: &mut App, w: u16, h: u16) -> String {
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(|f| app.draw(f)).unwrap();
        let buf = t.backend().buffer().clone();
        let mut s = String::new();
        for y in 0..h {
            for x in 0..w {
                s.push_str(buf[(x, y)].symbol());
            }
            s.push('\n');
        }
        s
    }

    fn app(seed: u64) -> App {
        app_of(crate::Variant::BeleagueredCastle, seed)
    }

    fn app_of(v: crate::Variant, seed: u64) -> App {
        let deal = Deal::from_seed(v.rules(), seed);
        let s = Session::new(
            Game::new(deal, false),
            Coach::new(coach_solver(100_000, None)),
            Some(100_000),
        );
        App::new(s, None)
    }

    fn press(app: &mut App, c: char) {
        app.key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }

    /// Presses the keys that pick `t` (`r` then `1` for a cell).
    fn pick(app: &mut App, t: Target) {
        for c in t.keys().unwrap().chars() {
            press(app, c);
        }
    }

    fn click(app: &mut App, t: Target, button: MouseButton) {
        let (r, _) = *app.hits.iter().find(|(_, h)| *h == t).unwrap();
        app.mouse(MouseEvent {
            kind: MouseEventKind::Down(button),
            column: r.x + r.width / 2,
            row: r.y,
            modifiers: KeyModifiers::NONE,
        });
    }

    #[test]
    fn the_screen_shows_the_wings_the_foundations_and_the_keys() {
        let mut a = app(42);
        let text = screen(&mut a, 100, 24);
        assert!(text.contains("[A♣]"), "{text}");
        assert!(text.contains("[A♠]"));
        assert!(text.contains("undo"));
        assert!(text.contains("winnable:"));
        // Every top card is on the screen; narrow screens squeeze the piles but keep them.
        for p in &a.session().board().tableau {
            assert!(text.contains(&face(*p.last().unwrap())));
        }
        let narrow = screen(&mut a, 60, 24);
        for p in &a.session().board().tableau {
            assert!(narrow.contains(&face(*p.last().unwrap())), "{narrow}");
        }
    }

    #[test]
    fn keys_move_cards_and_illegal_moves_change_nothing() {
        let mut a = app(42);
        let legal = a.session().board().legal_steps();
        let s = *legal.iter().find(|s| s.to != "f").unwrap();
        pick(&mut a, Target::At(s.from));
        pick(&mut a, Target::At(s.to));
        assert_eq!(a.session().game.history().len(), 1);
        press(&mut a, 'u');
        assert_eq!(a.session().game.history().len(), 0);
        press(&mut a, 'y');
        assert_eq!(a.session().game.history().len(), 1);
        // An illegal pair: a pile onto one whose top is not one rank higher.
        let board = a.session().board().clone();
        let bad = (0..8)
            .flat_map(|i| (0..8).map(move |j| (i, j)))
            .find(|&(i, j)| {
                i != j
                    && !board.tableau[i].is_empty()
                    && !board
                        .legal_steps()
                        .iter()
                        .any(|s| s.from == Pile::Tableau(i as u8) && s.to == Pile::Tableau(j as u8))
            })
            .unwrap();
        pick(&mut a, Target::At(Pile::Tableau(bad.0 as u8)));
        pick(&mut a, Target::At(Pile::Tableau(bad.1 as u8)));
        assert_eq!(a.session().board(), &board);
        assert!(a.message.as_ref().unwrap().1, "an error is shown");
        press(&mut a, 'q');
        assert!(a.quitting());
    }

    #[test]
    fn a_click_picks_the_pile_under_it() {
        let mut a = app(42);
        let _ = screen(&mut a, 100, 24);
        for i in 0..8 {
            click(&mut a, Target::At(Pile::Tableau(i)), MouseButton::Left);
            assert_eq!(a.selected, Some(Target::At(Pile::Tableau(i))));
            a.key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
            assert_eq!(a.selected, None);
        }
        // The foundations are no source without foundation return.
        click(&mut a, Target::At(Pile::Foundation), MouseButton::Left);
        assert_eq!(a.selected, None);
        assert!(a.message.as_ref().unwrap().1);
    }

    #[test]
    fn castile_shows_its_cells_and_r_then_a_number_picks_one() {
        let mut a = app_of(crate::Variant::Castile, 2);
        let text = screen(&mut a, 100, 24);
        let v = view(a.session().board());
        for c in v.reserve.iter().flatten() {
            assert!(text.contains(&format!("[{}]", face(*c))), "{text}");
        }
        assert!(text.contains("r1") && text.contains("r2") && text.contains(" cell"));
        assert!(!text.contains("start rank"), "{text}");
        for p in &v.tableau {
            assert!(text.contains(&face(*p.last().unwrap())), "{text}");
        }
        // Both cells are full: t1 to r1 is refused, and the board stays.
        let board = a.session().board().clone();
        pick(&mut a, Target::At(Pile::Tableau(0)));
        pick(&mut a, Target::At(Pile::Reserve(0)));
        assert_eq!(a.session().board(), &board);
        assert!(a.message.as_ref().unwrap().0.contains("already holds"));
        // A cell card that can move goes by `r` and its number, then a destination.
        let s = board
            .legal_steps()
            .into_iter()
            .find(|s| matches!(s.from, Pile::Reserve(_)))
            .unwrap();
        pick(&mut a, Target::At(s.from));
        assert!(a.selected.is_some());
        pick(&mut a, Target::At(s.to));
        assert_eq!(a.session().game.history()[0].step, s);
        // `r` then a cell that does not exist.
        press(&mut a, 'r');
        press(&mut a, '7');
        assert!(a.message.as_ref().unwrap().0.contains("no cell r7"));
        // Clicks on the cells' line pick them.
        let _ = screen(&mut a, 100, 24);
        let full = (0..2)
            .find(|&k| a.session().board().reserve[k].is_some())
            .unwrap();
        let full = Target::At(Pile::Reserve(full as u8));
        click(&mut a, full, MouseButton::Left);
        assert_eq!(a.selected, Some(full));
    }

    #[test]
    fn courtyard_shows_stock_waste_and_eight_foundations_and_s_deals() {
        let mut a = app_of(crate::Variant::Courtyard, 1);
        let text = screen(&mut a, 100, 24);
        let next = a.session().board().stock[0];
        assert!(
            text.contains(&format!("[{}] 92 left", face(next))),
            "{text}"
        );
        // Eight empty foundations in two columns, and an empty waste.
        assert_eq!(text.matches("[  ]").count(), 9, "{text}");
        assert!(text.contains(" deal") && text.contains(" waste"));
        press(&mut a, 's');
        assert_eq!(a.session().board().waste, vec![next]);
        let text = screen(&mut a, 100, 24);
        assert!(text.contains("91 left"), "{text}");
        // A click on the stock deals too.
        click(&mut a, Target::At(Pile::Stock), MouseButton::Left);
        assert_eq!(a.session().board().waste.len(), 2);
        // `w` picks the waste; a pile it does not fit refuses it and nothing changes.
        let board = a.session().board().clone();
        press(&mut a, 'w');
        assert_eq!(a.selected, Some(Target::At(Pile::Waste)));
        let top = *board.waste.last().unwrap();
        let j = (0..12)
            .find(|&j| {
                board.tableau[j]
                    .last()
                    .is_some_and(|&c| !board.rules().builds_on(top, c))
            })
            .unwrap();
        pick(&mut a, Target::At(Pile::Tableau(j as u8)));
        assert_eq!(a.session().board(), &board);
        // The stock is no destination.
        pick(&mut a, Target::At(Pile::Tableau(0)));
        press(&mut a, 's');
        assert_eq!(
            a.session().board().waste.len(),
            3,
            "s deals whatever is picked"
        );
        // A sending home that empties a pile is filled at once.
        let before = a.session().game.history().len();
        if let Some(s) = a
            .session()
            .board()
            .legal_steps()
            .into_iter()
            .find(|s| s.to == "f" && matches!(s.from, Pile::Tableau(_)))
        {
            let from = Target::At(s.from);
            let alone = a.session().board().tableau[match from {
                Target::At(Pile::Tableau(i)) => usize::from(i),
                _ => unreachable!(),
            }]
            .len()
                == 1;
            pick(&mut a, from);
            press(&mut a, 'f');
            let h = a.session().game.history();
            assert!(h.len() > before);
            if alone {
                assert!(h.iter().any(|e| e.auto && e.step.from == "w"));
            }
        }
    }

    #[test]
    fn every_variant_draws_and_v_cycles_through_all_six() {
        let mut a = app(1);
        let mut seen = Vec::new();
        for _ in 0..6 {
            let v = a.session().game.rules().variant;
            seen.push(v);
            for (w, h) in [(100, 30), (60, 20)] {
                let text = screen(&mut a, w, h);
                assert!(text.contains("winnable"), "{v} {w}x{h}: {text}");
                for p in &a.session().board().tableau {
                    assert!(
                        text.contains(&face(*p.last().unwrap())),
                        "{v} {w}x{h}: {text}"
                    );
                }
            }
            let _ = screen(&mut a, MIN_SIZE.0, MIN_SIZE.1);
            press(&mut a, '<');
            press(&mut a, 'v');
        }
        assert_eq!(seen, crate::Variant::ALL);
        assert_eq!(
            a.session().game.rules().variant,
            crate::Variant::BeleagueredCastle
        );
    }

    #[test]
    fn foundation_return_picks_a_foundation_card_with_f() {
        let rules = crate::Variant::Fortress
            .rules()
            .with_foundation_return(true);
        let text = "variant: fortress\nfoundations: QC QD QH 9S\nt1: KC\nt2: KD\nt3: KH JS\nt4: KS TS QS\nt5:\nt6:\nt7:\nt8:\nt9:\nt10:\n";
        let mut deal = crate::formats::read_deal(text, "test", Default::default()).unwrap();
        deal.rules = rules;
        let s = Session::new(Game::new(deal, true), Coach::new(None), None);
        let mut a = App::new(s, None);
        assert!(a.session().game.history().is_empty(), "no automatic moves");
        press(&mut a, 'f');
        let Some(Target::Home(first)) = a.selected else {
            panic!("{:?}", a.selected)
        };
        press(&mut a, 'f');
        let Some(Target::Home(second)) = a.selected else {
            panic!("{:?}", a.selected)
        };
        assert_ne!(first, second);
        // QC goes back onto KC: pick it by cycling, then t1.
        while a.selected != Some(Target::Home("QC".parse().unwrap())) {
            press(&mut a, 'f');
        }
        pick(&mut a, Target::At(Pile::Tableau(0)));
        assert_eq!(a.session().board().tableau[0].len(), 2);
        let _ = screen(&mut a, 100, 24);
        click(
            &mut a,
            Target::Home("QD".parse().unwrap()),
            MouseButton::Left,
        );
        assert_eq!(a.selected, Some(Target::Home("QD".parse().unwrap())));
    }

    #[test]
    fn hint_waits_for_the_coach_and_then_answers() {
        let mut a = app(42);
        let s = coach_solver(100_000, None).unwrap();
        a.worker = Some(Worker::spawn(s));
        press(&mut a, 'h');
        let t0 = std::time::Instant::now();
        while !a.message.as_ref().is_some_and(|m| m.0.starts_with("hint")) {
            a.tick();
            assert!(t0.elapsed().as_secs() < 60, "the coach never answered");
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}
