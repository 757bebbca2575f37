//! The full-screen board's drawing: the wings and the foundations, the cells, stock and
//! waste, card styles, the status, message and key lines, and the help screen.

use super::{App, Prompt};
use crate::card::Card;
use crate::pile::Pile;
use crate::play::coach::Mark;
use crate::play::game::{foundation_suit, source_name, view, Target, View, PILE_KEYS};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use ratatui::Frame;
use std::collections::HashSet;

/// Columns between the wings: a pile key, the foundation, a pile key.
const CENTER: u16 = 12;

/// The smallest screen the board is drawn on (columns, rows).
pub(super) const MIN_SIZE: (u16, u16) = (40, 14);

pub(super) fn face(c: Card) -> String {
    format!("{}{}", &c.to_string()[..1], c.suit().symbol())
}

fn suit_style(c: Card) -> Style {
    if c.suit().is_red() {
        Style::new().fg(Color::Red)
    } else {
        Style::new()
    }
}

fn key_style() -> Style {
    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
}

/// A pile within `width` columns, each wing's top card on the outside: the left wing lists
/// top to bottom, the right wing bottom to top. Cards that do not fit are the bottom ones,
/// shown as `…` next to the middle column.
fn pile_spans(
    pile: &[Card],
    width: usize,
    left: bool,
    style: &dyn Fn(usize, Card) -> Style,
) -> Vec<Span<'static>> {
    if pile.is_empty() {
        return vec![Span::styled("·", Style::new().add_modifier(Modifier::DIM))];
    }
    let n = pile.len();
    let gap = usize::from(n * 3 - 1 <= width);
    let cell = 2 + gap;
    let shown = if n * cell - gap <= width {
        n
    } else {
        (width.saturating_sub(1 + gap) + gap) / cell
    };
    let first = n - shown;
    let sep = || Span::raw(" ".repeat(gap));
    let more = || Span::styled("…", Style::new().add_modifier(Modifier::DIM));
    let mut spans = Vec::new();
    let cards: Vec<(usize, Card)> = pile.iter().copied().enumerate().skip(first).collect();
    if left {
        for (k, &(i, c)) in cards.iter().rev().enumerate() {
            if k > 0 {
                spans.push(sep());
            }
            spans.push(Span::styled(face(c), style(i, c)));
        }
        if first > 0 {
            spans.push(sep());
            spans.push(more());
        }
    } else {
        if first > 0 {
            spans.push(more());
            spans.push(sep());
        }
        for (k, &(i, c)) in cards.iter().enumerate() {
            if k > 0 {
                spans.push(sep());
            }
            spans.push(Span::styled(face(c), style(i, c)));
        }
    }
    spans
}

/// The board's grid: piles in the left wing, foundation columns and rows, and rows in all.
/// The foundations take one column, or two when they outnumber the wings' rows
/// (courtyard's eight beside six rows).
fn grid(v: &View) -> (usize, usize, usize, usize) {
    let left_n = v.tableau.len().div_ceil(2);
    let nf = v.foundations.len().max(1);
    let fcols = if nf > left_n.max(1) { 2 } else { 1 };
    let frows = nf.div_ceil(fcols);
    (left_n, fcols, frows, left_n.max(frows).max(1))
}

/// Screen rows the board needs at its tightest: the line of cells, stock and waste (if
/// any), the foundations' key, and one row per pile row.
fn board_rows(v: &View, stock: bool) -> usize {
    let head = usize::from(!v.reserve.is_empty() || stock);
    head + 1 + grid(v).3
}

fn width_of(spans: &[Span]) -> usize {
    spans.iter().map(Span::width).sum()
}

impl App {
    fn status(&self, v: &View) -> Line<'static> {
        let (m, a) = self.s.game.moves_made();
        let mark = self.s.mark();
        let mark_style = match mark {
            Mark::Yes => Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
            Mark::Won => Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
            Mark::No => Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            Mark::Unknown => Style::new().fg(Color::Yellow),
            Mark::Thinking | Mark::Off => Style::new().add_modifier(Modifier::DIM),
        };
        let mark_word = match mark {
            Mark::Thinking => "…",
            m => m.word(),
        };
        Line::from(vec![
            Span::styled("castle ", Style::new().add_modifier(Modifier::BOLD)),
            Span::raw(format!(
                "{} · home {}/{} · moves {} ({a} automatic) · auto {} · winnable: ",
                self.s.title(),
                v.home(),
                v.total(),
                m + a,
                if self.s.game.auto() { "on" } else { "off" },
            )),
            Span::styled(mark_word.to_string(), mark_style),
        ])
    }

    /// The key label of a pile, reversed when it is picked.
    fn label(&self, t: Target) -> Span<'static> {
        let k = t.keys().unwrap_or_else(|| "?".to_string());
        let st = if self.selected == Some(t) {
            key_style().add_modifier(Modifier::REVERSED)
        } else {
            key_style()
        };
        Span::styled(k, st)
    }

    /// The line above the wings, in pieces (each with the pile it shows, for clicks): the
    /// reserve cells, the stock (its next card and how many are left) and the waste (its top
    /// cards, the playable one last). `None` when the game has none of them.
    fn head_line(
        &self,
        v: &View,
        movable: &HashSet<String>,
    ) -> Option<Vec<(Vec<Span<'static>>, Option<Target>)>> {
        let stock = self.s.game.rules().stock;
        if v.reserve.is_empty() && !stock {
            return None;
        }
        let dim = Style::new().add_modifier(Modifier::DIM);
        let gap = || (vec![Span::raw("   ")], None);
        let mut parts = Vec::new();
        for (k, c) in v.reserve.iter().enumerate() {
            let t = Target::At(Pile::Reserve(k as u8));
            let mut sp = vec![self.label(t), Span::raw(" ")];
            match c {
                Some(c) => {
                    sp.push(Span::raw("["));
                    sp.push(Span::styled(
                        face(*c),
                        self.card_style(t, true, *c, movable),
                    ));
                    sp.push(Span::raw("]"));
                }
                None => sp.push(Span::styled("[  ]", dim)),
            }
            if k > 0 {
                parts.push(gap());
            }
            parts.push((sp, Some(t)));
        }
        if stock {
            if !parts.is_empty() {
                parts.push(gap());
            }
            let mut sp = vec![self.label(Target::At(Pile::Stock)), Span::raw(" ")];
            match v.next_stock() {
                Some(c) => {
                    sp.push(Span::raw("["));
                    sp.push(Span::styled(face(c), suit_style(c)));
                    sp.push(Span::raw(format!("] {} left", v.stock.len())));
                }
                None => sp.push(Span::styled("[  ] empty", dim)),
            }
            parts.push((sp, Some(Target::At(Pile::Stock))));
            parts.push(gap());
            let t = Target::At(Pile::Waste);
            let mut sp = vec![self.label(t), Span::raw(" ")];
            if v.waste.is_empty() {
                sp.push(Span::styled("[  ]", dim));
            } else {
                const SHOWN: usize = 5;
                let first = v.waste.len().saturating_sub(SHOWN);
                if first > 0 {
                    sp.push(Span::styled(format!("{first}… "), dim));
                }
                for (i, &c) in v.waste.iter().enumerate().skip(first) {
                    let top = i + 1 == v.waste.len();
                    if top {
                        sp.push(Span::raw("["));
                        sp.push(Span::styled(face(c), self.card_style(t, true, c, movable)));
                        sp.push(Span::raw("]"));
                    } else {
                        sp.push(Span::styled(
                            face(c),
                            suit_style(c).add_modifier(Modifier::DIM),
                        ));
                        sp.push(Span::raw(" "));
                    }
                }
            }
            parts.push((sp, Some(t)));
        }
        Some(parts)
    }

    /// The board's lines within `area`, and the screen rectangle of each pile.
    fn board_lines(&self, v: &View, area: Rect) -> (Vec<Line<'static>>, Vec<(Rect, Target)>) {
        let n = v.tableau.len();
        let (left_n, fcols, frows, rows) = grid(v);
        let center = CENTER + 5 * (fcols as u16 - 1);
        let lw = area.width.saturating_sub(center) / 2;
        let rw = area.width.saturating_sub(center + lw);
        let board = self.s.board();
        let movable: HashSet<String> = board.legal_steps().iter().map(source_name).collect();
        let head = self.head_line(v, &movable);
        let head_rows = 1 + usize::from(head.is_some());
        let height = usize::from(area.height);
        let gap = if height >= head_rows + rows * 2 { 2 } else { 1 };
        // A third of the spare rows above the board, the rest below.
        let spare = height.saturating_sub(head_rows + rows * gap);
        let mut lines = vec![Line::raw(""); spare / 3];
        let mut hits = Vec::new();
        // Reserve cells, stock and waste, centred above the wings.
        if let Some(parts) = head {
            let width: usize = parts.iter().map(|(sp, _)| width_of(sp)).sum();
            let mut x = usize::from(area.width).saturating_sub(width) / 2;
            let y = area.y + lines.len() as u16;
            let mut spans = vec![Span::raw(" ".repeat(x))];
            for (sp, t) in parts {
                let w = width_of(&sp);
                if let Some(t) = t {
                    hits.push((Rect::new(area.x + x as u16, y, w as u16, 1), t));
                }
                x += w;
                spans.extend(sp);
            }
            lines.push(Line::from(spans));
        }
        let label_y = area.y + lines.len() as u16;
        let f_at = lw + 5 + 2 * (fcols as u16 - 1);
        lines.push(Line::from(vec![
            Span::raw(" ".repeat(usize::from(f_at))),
            Span::styled("f", key_style()),
        ]));
        hits.push((
            Rect::new(area.x + f_at, label_y, 1, 1),
            Target::At(Pile::Foundation),
        ));
        let first_row_y = area.y + lines.len() as u16;
        for r in 0..rows {
            let y = first_row_y + (r * gap) as u16;
            let mut spans: Vec<Span<'static>> = Vec::new();
            // The left wing, right-aligned against the middle.
            if r < left_n {
                let t = Target::At(Pile::Tableau(r as u8));
                let pile = &v.tableau[r];
                let ps = pile_spans(pile, usize::from(lw.saturating_sub(1)), true, &|i, c| {
                    self.card_style(t, i + 1 == pile.len(), c, &movable)
                });
                let pad = usize::from(lw).saturating_sub(width_of(&ps) + 1);
                spans.push(Span::raw(" ".repeat(pad)));
                spans.extend(ps);
                spans.push(Span::raw(" "));
                spans.push(self.label(t));
                spans.push(Span::raw(" "));
                hits.push((Rect::new(area.x, y, lw + 2, 1), t));
            } else {
                spans.push(Span::raw(" ".repeat(usize::from(lw + 2))));
            }
            // The foundations of this row.
            for c in 0..fcols {
                spans.push(Span::raw(" "));
                let p = c * frows + r;
                if r >= frows || p >= v.foundations.len() {
                    spans.push(Span::raw("    "));
                    continue;
                }
                let x = area.x + lw + 3 + 5 * c as u16;
                match v.foundations[p].last() {
                    Some(&top) => {
                        let t = Target::Home(top);
                        let st = self
                            .card_style(t, true, top, &movable)
                            .add_modifier(Modifier::BOLD);
                        spans.push(Span::raw("["));
                        spans.push(Span::styled(face(top), st));
                        spans.push(Span::raw("]"));
                        hits.push((Rect::new(x, y, 4, 1), t));
                    }
                    None => {
                        let s = foundation_suit(p, v.foundations.len()).map_or(' ', |s| s.symbol());
                        spans.push(Span::styled(
                            format!("[ {s}]"),
                            Style::new().add_modifier(Modifier::DIM),
                        ));
                        hits.push((Rect::new(x, y, 4, 1), Target::At(Pile::Foundation)));
                    }
                }
            }
            spans.push(Span::raw(" "));
            // The right wing.
            let ri = left_n + r;
            if ri < n {
                let t = Target::At(Pile::Tableau(ri as u8));
                let pile = &v.tableau[ri];
                spans.push(Span::raw(" "));
                spans.push(self.label(t));
                spans.push(Span::raw(" "));
                spans.extend(pile_spans(
                    pile,
                    usize::from(rw.saturating_sub(1)),
                    false,
                    &|i, c| self.card_style(t, i + 1 == pile.len(), c, &movable),
                ));
                hits.push((Rect::new(area.x + lw + center - 4, y, rw + 4, 1), t));
            }
            lines.push(Line::from(spans));
            if gap == 2 && r + 1 < rows {
                lines.push(Line::raw(""));
            }
        }
        (lines, hits)
    }

    /// A card's style: its suit's colour; under the top card dimmed; the top card bold and
    /// underlined when it can move, reversed when picked, on yellow when hinted.
    fn card_style(&self, t: Target, top: bool, c: Card, movable: &HashSet<String>) -> Style {
        let mut st = suit_style(c);
        if !top {
            return st.add_modifier(Modifier::DIM);
        }
        if movable.contains(&t.name()) {
            st = st.add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
        }
        if self.selected == Some(t) {
            st = st.add_modifier(Modifier::REVERSED);
        }
        if self
            .hint
            .as_ref()
            .is_some_and(|h| source_name(h) == t.name())
        {
            st = st.bg(Color::Yellow).fg(Color::Black);
        }
        st
    }

    /// The keys of the piles this game has: (keys, what they pick).
    fn pile_keys(&self) -> Vec<(String, String)> {
        let shape = self.s.game.shape();
        let n = shape.piles.clamp(1, PILE_KEYS.len());
        let mut v = vec![(
            format!("{}..{}", PILE_KEYS[0], PILE_KEYS[n - 1]),
            format!("pick pile t1..t{n} (first the source, then the destination)"),
        )];
        if shape.cells > 0 {
            v.push((
                format!("r1..r{}", shape.cells),
                "pick a reserve cell (r, then its number)".to_string(),
            ));
        }
        if self.s.game.rules().options.foundation_return {
            v.push((
                "f".into(),
                "the foundations; as the source, a foundation card (f again: the next)".into(),
            ));
        } else {
            v.push(("f".into(), "the foundations, as the destination".into()));
        }
        if shape.stock {
            v.push(("s".into(), "deal a card from the stock to the waste".into()));
            v.push(("w".into(), "pick the waste's top card".into()));
        }
        v
    }

    /// The keys, wrapped at item boundaries to `width` columns.
    fn keys_text(&self, width: u16) -> Vec<Line<'static>> {
        let shape = self.s.game.shape();
        let n = shape.piles.clamp(1, PILE_KEYS.len());
        let mut items: Vec<(String, &str)> = vec![(
            format!("{}-{}", PILE_KEYS[0], PILE_KEYS[n - 1]),
            "pick a pile, then where to",
        )];
        if shape.cells > 0 {
            items.push((format!("r1-r{}", shape.cells), "cell"));
        }
        items.push(("f".into(), "foundation"));
        if shape.stock {
            items.push(("s".into(), "deal"));
            items.push(("w".into(), "waste"));
        }
        items.extend(
            [
                ("Enter", "best move"),
                ("u", "undo"),
                ("y", "redo"),
                ("h", "hint"),
                ("p", "show me"),
                ("a", "auto"),
                ("R", "restart"),
                ("N", "new"),
                ("S", "save"),
                ("L", "load"),
            ]
            .map(|(k, w)| (k.to_string(), w)),
        );
        if self.s.game.rules().variant.has_start_rank() {
            items.push(("<>".into(), "start rank"));
        }
        items.extend(
            [
                ("v", "variant"),
                ("Esc", "cancel"),
                ("?", "help"),
                ("q", "quit"),
            ]
            .map(|(k, w)| (k.to_string(), w)),
        );
        let width = usize::from(width.max(20));
        let mut lines = Vec::new();
        let mut spans: Vec<Span<'static>> = Vec::new();
        let mut used = 0;
        for (k, what) in items {
            let w = k.chars().count() + 1 + what.chars().count();
            if used > 0 && used + 3 + w > width {
                lines.push(Line::from(std::mem::take(&mut spans)));
                used = 0;
            }
            if used > 0 {
                spans.push(Span::raw(" · "));
                used += 3;
            }
            spans.push(Span::styled(k, key_style()));
            spans.push(Span::raw(format!(" {what}")));
            used += w;
        }
        lines.push(Line::from(spans));
        lines
    }

    fn help_text(&self) -> Vec<Line<'static>> {
        let mut rows = self.pile_keys();
        rows.extend(
            [
                (
                    "same pile / Enter",
                    "move the picked card where it does most good",
                ),
                ("Esc", "drop the pick, the hint and the message"),
                ("u  Backspace  ^Z", "undo (an automatic move counts as one)"),
                ("y  ^Y", "redo"),
                ("h", "hint: a move that keeps the deal winnable"),
                ("p", "show me: play the solver's next move"),
                ("a", "automatic safe moves to the foundations on/off"),
                ("R", "restart the deal (redo replays the game)"),
                ("N", "new game: the next deal number"),
                ("S / L", "save / load a game (solve-report JSON)"),
                ("< >", "start rank down / up, and deal again"),
                ("v", "next variant, same deal number"),
                (
                    "mouse",
                    "click a pile, then its destination; right-click: best move",
                ),
                ("q  ^C", "quit"),
            ]
            .map(|(k, t)| (k.to_string(), t.to_string())),
        );
        if !self.s.game.rules().variant.has_start_rank() {
            rows.retain(|(k, _)| k != "< >");
        }
        let mut v: Vec<Line<'static>> = rows
            .into_iter()
            .map(|(k, t)| {
                Line::from(vec![
                    Span::styled(format!("{k:>18}  "), key_style()),
                    Span::raw(t),
                ])
            })
            .collect();
        v.push(Line::raw(""));
        if self.s.game.rules().stock {
            v.push(Line::raw(
                "  an emptied pile is filled at once from the waste (or the stock): undo takes",
            ));
            v.push(Line::raw("  the fill back with the move that emptied it."));
        }
        v.push(Line::raw(
            "  winnable: yes / no come from the solver; unknown means its budget ran out.",
        ));
        v.push(Line::raw("  any key closes this help"));
        v
    }

    /// Draws the whole screen.
    pub fn draw(&mut self, f: &mut Frame) {
        let area = f.area();
        if area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1 {
            f.render_widget(
                Paragraph::new(format!(
                    "castle play: the terminal is {}x{}; make it at least {}x{} (q quits)",
                    area.width, area.height, MIN_SIZE.0, MIN_SIZE.1
                ))
                .wrap(Wrap { trim: true }),
                area,
            );
            self.hits.clear();
            return;
        }
        let v = view(self.s.board());
        let mut keys_text = self.keys_text(area.width);
        // On a short screen the board comes first: the keys shrink to the help key.
        if usize::from(area.height)
            < 3 + keys_text.len() + board_rows(&v, self.s.game.rules().stock)
        {
            keys_text = vec![Line::from(vec![
                Span::styled("?", key_style()),
                Span::raw(" keys · "),
                Span::styled("q", key_style()),
                Span::raw(" quit"),
            ])];
        }
        let [top, board, msg, keys] = Layout::vertical([
            Constraint::Length(2),
            Constraint::Min(4),
            Constraint::Length(1),
            Constraint::Length(keys_text.len() as u16),
        ])
        .areas(area);
        f.render_widget(
            Paragraph::new(self.status(&v)).wrap(Wrap { trim: true }),
            top,
        );
        let (lines, hits) = self.board_lines(&v, board);
        self.hits = hits;
        f.render_widget(Paragraph::new(lines), board);
        let message = match &self.prompt {
            Some(Prompt::Save(t)) => Line::from(vec![
                Span::styled("save to: ", key_style()),
                Span::raw(t.clone()),
                Span::styled("█", Style::new().add_modifier(Modifier::SLOW_BLINK)),
                Span::raw("  (Enter saves, Esc cancels)"),
            ]),
            Some(Prompt::Load(t)) => Line::from(vec![
                Span::styled("load from: ", key_style()),
                Span::raw(t.clone()),
                Span::styled("█", Style::new().add_modifier(Modifier::SLOW_BLINK)),
                Span::raw("  (Enter loads, Esc cancels)"),
            ]),
            None => match &self.message {
                Some((m, true)) => Line::styled(m.clone(), Style::new().fg(Color::Red)),
                Some((m, false)) => Line::raw(m.clone()),
                None => Line::raw(""),
            },
        };
        f.render_widget(Paragraph::new(message), msg);
        f.render_widget(Paragraph::new(keys_text), keys);
        if self.help {
            let text = self.help_text();
            let h = (text.len() as u16 + 2).min(area.height);
            let w = 84.min(area.width);
            let r = Rect::new(
                area.x + (area.width - w) / 2,
                area.y + (area.height - h) / 2,
                w,
                h,
            );
            f.render_widget(Clear, r);
            f.render_widget(
                Paragraph::new(text).block(Block::default().borders(Borders::ALL).title(" keys ")),
                r,
            );
        }
    }
}
