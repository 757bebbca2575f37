//! Input text as castle reads it: bytes checked as UTF-8 (a bad sequence named by its line
//! and byte), a leading byte-order mark dropped; and the bad tokens that messages quote, cut
//! short when long (a 5 MB token is not echoed whole).

use crate::{InputError, InputKind};
use std::fmt;

/// The UTF-8 byte-order mark some editors put at the start of a file.
pub const BOM: &str = "\u{feff}";

/// Decodes a file's bytes: drops a leading byte-order mark, and names the line and byte
/// (both counted from 1, the byte within the file) of the first sequence that is not UTF-8.
///
/// # Errors
/// An [`InputError`] naming `origin`, the line and the byte.
pub fn decode(bytes: Vec<u8>, origin: &str) -> Result<String, InputError> {
    match String::from_utf8(bytes) {
        Ok(s) => Ok(match s.strip_prefix(BOM) {
            Some(rest) => rest.to_string(),
            None => s,
        }),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let bytes = e.as_bytes();
            let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
            let col = at
                - bytes[..at]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |p| p + 1);
            Err(InputError::new(
                InputKind::Text,
                format!(
                    "byte {} (column {}) is not UTF-8 (0x{:02x}); castle reads UTF-8 text",
                    at + 1,
                    col + 1,
                    bytes[at]
                ),
            )
            .at(origin)
            .on_line(line))
        }
    }
}

/// The most bytes castle reads from a deal file, a solve report, a saved game or fc-solve's
/// output: 8 MiB. A deal takes under a kilobyte; a report of a 38,688-move line (the longest
/// castle has printed, a raw quotient win) 1.6 MB. Without a cap, `castle solve --deal
/// /dev/zero` filled a gibibyte before failing, and `load /dev/full` in `play` never ended.
pub const MAX_FILE_BYTES: u64 = 8 << 20;

/// Reads all of `r` if it holds at most [`MAX_FILE_BYTES`] (it stops reading one byte past
/// that): the bytes, or an [`InputError`] naming `origin` and the cap when there are more.
/// The outer error is `r`'s own.
///
/// # Errors
/// Reading `r`.
pub fn read_capped(
    r: impl std::io::Read,
    origin: &str,
) -> std::io::Result<Result<Vec<u8>, InputError>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    r.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Ok(Err(InputError::new(
            InputKind::Text,
            format!(
                "more than {} MiB, far more than a deal, a solve report or a saved game (is it the right file?)",
                MAX_FILE_BYTES >> 20
            ),
        )
        .at(origin)));
    }
    Ok(Ok(bytes))
}

/// Drops a leading byte-order mark.
pub fn strip_bom(s: &str) -> &str {
    s.strip_prefix(BOM).unwrap_or(s)
}

/// The longest token a message quotes whole, in characters.
pub const QUOTE_CHARS: usize = 40;

/// A token quoted in a message: itself when short, else its first [`QUOTE_CHARS`]
/// characters, `...` and its length in bytes.
#[derive(Clone, Copy, Debug)]
pub struct Cut<'a>(pub &'a str);

impl fmt::Display for Cut<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(QUOTE_CHARS) {
            None => f.write_str(self.0),
            Some((end, _)) => write!(f, "{}... ({} bytes)", &self.0[..end], self.0.len()),
        }
    }
}

/// [`Cut`] as a string.
pub fn cut(s: &str) -> String {
    Cut(s).to_string()
}

/// A whole message with every word longer than `max` bytes cut (see [`Cut`]): the last
/// guard of the command-line tool, for messages that quote text this crate did not cut.
pub fn cut_words(msg: &str, max: usize) -> String {
    if msg.len() <= max {
        return msg.to_string();
    }
    let mut out = String::new();
    let mut rest = msg;
    while !rest.is_empty() {
        let word_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let (word, tail) = rest.split_at(word_end);
        if word.len() > max {
            out += &cut(word);
        } else {
            out += word;
        }
        let space_end = tail
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(tail.len());
        out += &tail[..space_end];
        rest = &tail[space_end..];
    }
    out
}

/// A message with every span between two `quote` characters longer than [`QUOTE_CHARS`] cut
/// as [`Cut`] cuts a token, and then every word longer than 200 bytes ([`cut_words`]): a 100
/// KB value is not echoed whole, even when it has spaces. clap quotes the values it refuses
/// with `'` (`invalid value '...' for '--seed <SEED>'`), castle with backticks.
pub fn cut_quoted(msg: &str, quote: char) -> String {
    let mut out = String::with_capacity(msg.len().min(4096));
    let mut rest = msg;
    while let Some(open) = rest.find(quote) {
        let inner = &rest[open + quote.len_utf8()..];
        let Some(close) = inner.find(quote) else {
            break;
        };
        out += &rest[..open + quote.len_utf8()];
        out += &cut(&inner[..close]);
        out.push(quote);
        rest = &inner[close + quote.len_utf8()..];
    }
    out += rest;
    cut_words(&out, 200)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_utf8_is_named_by_line_and_byte() {
        let e = decode(b"ab\ncd\xffe".to_vec(), "f.txt").unwrap_err();
        assert_eq!(
            (e.kind, e.origin.clone(), e.line),
            (
                InputKind::Text,
                Some(crate::Origin::File("f.txt".into())),
                Some(2)
            )
        );
        let e = e.to_string();
        assert!(e.starts_with("f.txt: line 2: byte 6 (column 3)"), "{e}");
        assert_eq!(decode(b"\xef\xbb\xbfx: 1".to_vec(), "f").unwrap(), "x: 1");
    }

    #[test]
    fn long_quoted_spans_are_cut() {
        let value = "1 ".repeat(50_000);
        let msg = format!("error: invalid value '{value}' for '--seed <SEED>': invalid digit");
        let c = cut_quoted(&msg, '\'');
        assert!(c.len() < 200, "{c}");
        assert!(
            c.contains("'--seed <SEED>'") && c.contains("(100000 bytes)"),
            "{c}"
        );
        assert_eq!(cut_quoted("a 'short' one", '\''), "a 'short' one");
        assert_eq!(cut_quoted("it's", '\''), "it's");
        let c = cut_quoted(&format!("unknown command `{value}`"), '`');
        assert!(c.len() < 100, "{c}");
    }

    #[test]
    fn long_tokens_are_cut_and_their_length_given() {
        assert_eq!(cut("KS"), "KS");
        let long = "é".repeat(1000);
        let c = cut(&long);
        assert!(
            c.ends_with("... (2000 bytes)") && c.chars().count() < 70,
            "{c}"
        );
        let m = cut_words(&format!("a `{}` b", "x".repeat(5000)), 200);
        assert!(
            m.len() < 100 && m.starts_with("a `xxx") && m.ends_with(" b"),
            "{m}"
        );
    }
}
