//! Pile names: the one [`Pile`] type behind every `t1..tN`, `r1..rK`, `f`, `s` and `w` that
//! castle reads or writes (solutions, the checker, `--after`, `castle play`, the peer's
//! replay), with [`FromStr`] (a typed [`PileError`] naming the text at fault) and
//! [`Display`](fmt::Display), and the mapping to the search's pile indices in
//! [`crate::moves`].
//!
//! Parsing checks the spelling only (`t` or `r` and a number from 1, or `f`, `s`, `w`,
//! lower case); whether a deal has that pile is for the board that uses it to say.

use std::fmt;
use std::str::FromStr;

/// Pile index that stands for "the foundations" in a [`crate::moves::Move`] (the card's suit
/// picks the pile).
pub const FOUNDATION: u8 = 0xFF;
/// Pile index of the waste.
pub const WASTE: u8 = 0xFE;
/// Pile index of the stock.
pub const STOCK: u8 = 0xFD;
/// Pile index of reserve cell 0 (`r1`); cell `k` is `CELL + k`.
pub const CELL: u8 = 0x40;

/// True if pile index `p` is a tableau pile.
#[inline]
pub const fn is_tableau(p: u8) -> bool {
    p < CELL
}

/// True if pile index `p` is a reserve cell.
#[inline]
pub const fn is_cell(p: u8) -> bool {
    p >= CELL && p < STOCK
}

/// A pile of a board, by name. Tableau piles and reserve cells hold their 0-based index
/// (`t1` is `Tableau(0)`, `r2` is `Reserve(1)`); the foundations are one name (`f`), the
/// card's suit picking the pile.
///
/// ```
/// use castle::pile::Pile;
/// let p: Pile = "t3".parse().unwrap();
/// assert_eq!(p, Pile::Tableau(2));
/// assert_eq!(p.to_string(), "t3");
/// assert!("é".parse::<Pile>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pile {
    /// Tableau pile `t{i+1}`.
    Tableau(u8),
    /// Reserve cell `r{k+1}`.
    Reserve(u8),
    /// The foundations, `f`.
    Foundation,
    /// The stock, `s`.
    Stock,
    /// The waste, `w`.
    Waste,
}

/// Text that is not a pile name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{}` is not a pile name (t1..tN, r1..rK, f, s or w)",
    crate::text::Cut(text)
)]
pub struct PileError {
    /// The text at fault, as given (the message cuts a long one).
    pub text: String,
}

impl Pile {
    /// The pile a search index stands for ([`crate::moves::Move`]'s `from` and `to`):
    /// tableau `0..`, [`CELL`]` + k`, [`STOCK`], [`WASTE`] or [`FOUNDATION`].
    pub const fn from_index(p: u8) -> Pile {
        match p {
            FOUNDATION => Pile::Foundation,
            WASTE => Pile::Waste,
            STOCK => Pile::Stock,
            _ if is_cell(p) => Pile::Reserve(p - CELL),
            _ => Pile::Tableau(p),
        }
    }

    /// The search index of this pile (the inverse of [`Pile::from_index`]).
    pub const fn index(self) -> u8 {
        match self {
            Pile::Tableau(i) => i,
            Pile::Reserve(k) => CELL + k,
            Pile::Foundation => FOUNDATION,
            Pile::Stock => STOCK,
            Pile::Waste => WASTE,
        }
    }

    /// Every pile of a board with `tableau` piles and `cells` reserve cells (and a stock and
    /// waste if `stock`), in the order `t1..tN, r1..rK, f, s, w`.
    pub fn all(tableau: usize, cells: usize, stock: bool) -> impl Iterator<Item = Pile> {
        let t = (0..tableau).map(|i| Pile::Tableau(i as u8));
        let r = (0..cells).map(|k| Pile::Reserve(k as u8));
        let rest: &[Pile] = if stock {
            &[Pile::Foundation, Pile::Stock, Pile::Waste]
        } else {
            &[Pile::Foundation]
        };
        t.chain(r).chain(rest.iter().copied())
    }

    /// The names of a board's piles for messages: `t1..t8, r1..r2, f, s, w`.
    pub fn ranges(tableau: usize, cells: usize, stock: bool) -> String {
        let mut s = format!("t1..t{tableau}");
        if cells > 0 {
            s += &format!(", r1..r{cells}");
        }
        s += ", f";
        if stock {
            s += ", s, w";
        }
        s
    }
}

impl FromStr for Pile {
    type Err = PileError;

    /// Reads `t1..`, `r1..`, `f`, `s` or `w` (lower case, no spaces; the number in ASCII
    /// digits, from 1), or a bare number for a tableau pile (`3` is `t3`). This is the one
    /// reader of pile names in castle: solutions, the checker, `--after`, `castle play`, deal
    /// files and saved games all come through it.
    ///
    /// # Errors
    /// [`PileError`] naming the text, for anything else (never a panic, whatever the text).
    fn from_str(text: &str) -> Result<Pile, PileError> {
        let bad = || PileError {
            text: text.to_string(),
        };
        let mut chars = text.chars();
        let kind = chars.next().ok_or_else(bad)?;
        let digits = chars.as_str();
        match (kind, digits) {
            ('f', "") => return Ok(Pile::Foundation),
            ('s', "") => return Ok(Pile::Stock),
            ('w', "") => return Ok(Pile::Waste),
            _ => {}
        }
        // The bare-number shorthand: `3` is `t3` (as `castle play` and `--after` read it).
        let (kind, digits) = if kind.is_ascii_digit() {
            ('t', text)
        } else {
            (kind, digits)
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let n: u8 = digits.parse().map_err(|_| bad())?;
        let i = n.checked_sub(1).ok_or_else(bad)?;
        match kind {
            't' if i < CELL => Ok(Pile::Tableau(i)),
            'r' if i < STOCK - CELL => Ok(Pile::Reserve(i)),
            _ => Err(bad()),
        }
    }
}

/// A pile equals a text that is its name as [`Display`](fmt::Display) writes it (`t3`, `f`):
/// handy in tests and filters (`step.to == "f"`).
impl PartialEq<str> for Pile {
    fn eq(&self, name: &str) -> bool {
        match *self {
            Pile::Foundation => name == "f",
            Pile::Stock => name == "s",
            Pile::Waste => name == "w",
            // The spelling `Display` writes, and no other (no bare number, no `t01`). Clippy's
            // `*self == name` would call this very function.
            #[allow(clippy::cmp_owned)]
            _ => self.to_string() == name,
        }
    }
}

impl PartialEq<&str> for Pile {
    fn eq(&self, name: &&str) -> bool {
        *self == **name
    }
}

impl fmt::Display for Pile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Pile::Tableau(i) => f.pad(&format!("t{}", usize::from(i) + 1)),
            Pile::Reserve(k) => f.pad(&format!("r{}", usize::from(k) + 1)),
            Pile::Foundation => f.pad("f"),
            Pile::Stock => f.pad("s"),
            Pile::Waste => f.pad("w"),
        }
    }
}

/// Written as its name (`"t3"`), as solve reports and saved games hold it.
impl serde::Serialize for Pile {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Read from its name by [`FromStr`], spaces around it and upper case allowed (`" T3"`): a
/// solve report typed or edited by hand reads as the one castle wrote.
impl<'de> serde::Deserialize<'de> for Pile {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Pile, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        name.trim().to_ascii_lowercase().parse().map_err(|_| {
            serde::de::Error::custom(PileError {
                text: name.into_owned(),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;

    #[test]
    fn reads_every_kind() {
        assert_eq!("t1".parse(), Ok(Pile::Tableau(0)));
        assert_eq!("t12".parse(), Ok(Pile::Tableau(11)));
        assert_eq!("t01".parse(), Ok(Pile::Tableau(0)));
        assert_eq!("r2".parse(), Ok(Pile::Reserve(1)));
        assert_eq!("f".parse(), Ok(Pile::Foundation));
        assert_eq!("s".parse(), Ok(Pile::Stock));
        assert_eq!("w".parse(), Ok(Pile::Waste));
        // The bare-number shorthand for a tableau pile.
        assert_eq!("3".parse(), Ok(Pile::Tableau(2)));
        assert_eq!("12".parse(), Ok(Pile::Tableau(11)));
        assert!("0".parse::<Pile>().is_err());
        assert_eq!(Pile::Tableau(2), "t3");
        assert_ne!(Pile::Tableau(2), "3");
        assert_ne!(Pile::Tableau(2), "t03");
        assert_ne!(Pile::Tableau(2), "r3");
        assert_ne!(Pile::Reserve(0), "");
        assert_eq!(Pile::Foundation, "f");
    }

    #[test]
    fn refuses_bad_names_with_the_text() {
        for bad in [
            "",
            "t",
            "r",
            "t0",
            "r0",
            "x1",
            "T1",
            " t1",
            "t1 ",
            "t+1",
            "t-1",
            "t1x",
            "f1",
            "ff",
            "s2",
            "w0",
            "t256",
            "t65",
            "t99999999999999999999",
            "t1.5",
        ] {
            let e = bad.parse::<Pile>().unwrap_err();
            assert_eq!(e.text, bad);
            assert!(e.to_string().contains(&format!("`{bad}`")), "{e}");
        }
    }

    #[test]
    fn refuses_non_ascii_without_panicking() {
        for bad in [
            "é",
            "é1",
            "tĒ",
            "Ｔ1",
            "ｔ１",
            "t１",
            "t\u{0661}",
            "\u{200b}t1",
            "t\u{200b}1",
            "t1\u{200b}",
            "\u{200b}",
            "🂡",
            "f\u{301}",
        ] {
            let e = bad.parse::<Pile>().unwrap_err();
            assert_eq!(e.text, bad);
        }
    }

    #[test]
    fn round_trips_every_pile_of_every_variant() {
        for v in Variant::ALL {
            let r = v.rules();
            let piles: Vec<Pile> = Pile::all(r.piles, r.cells, r.stock).collect();
            assert_eq!(
                piles.len(),
                r.piles + r.cells + 1 + if r.stock { 2 } else { 0 }
            );
            for p in piles {
                let name = p.to_string();
                assert_eq!(name.parse::<Pile>(), Ok(p), "{v:?} {name}");
                assert!(p == name.as_str());
                if let Pile::Tableau(i) = p {
                    let bare = (i + 1).to_string();
                    assert_eq!(bare.parse::<Pile>(), Ok(p), "{v:?} {bare}");
                }
                assert_eq!(Pile::from_index(p.index()), p);
                assert_eq!(crate::moves::pile_name(p.index()), name);
            }
        }
    }

    #[test]
    fn reads_and_writes_json_by_name() {
        let p: Vec<Pile> = serde_json::from_str(r#"["t3", " R1 ", "f", "4"]"#).unwrap();
        assert_eq!(
            p,
            [
                Pile::Tableau(2),
                Pile::Reserve(0),
                Pile::Foundation,
                Pile::Tableau(3)
            ]
        );
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"["t3","r1","f","t4"]"#
        );
        let e = serde_json::from_str::<Pile>(r#""é1""#).unwrap_err();
        assert!(e.to_string().contains("`é1` is not a pile name"), "{e}");
        // A long name is cut in the message.
        let long = format!("\"t{}\"", "X".repeat(2000));
        let e = serde_json::from_str::<Pile>(&long).unwrap_err();
        assert!(e.to_string().len() < 400, "{e}");
    }

    #[test]
    fn pads_like_a_string() {
        assert_eq!(
            format!("{:>3}|{:<3}|", Pile::Tableau(0), Pile::Foundation),
            " t1|f  |"
        );
    }
}
