//! The certificate file: [`MAGIC`], a version byte, then one zstd frame (with its checksum)
//! holding the header, the deal and the members, each member written as the length of the
//! prefix it shares with the one before and the rest of its bytes (the members are sorted, so
//! neighbours share their foundations and most piles). The byte layout is in
//! `docs/formats.md`, "Certificates".
//!
//! zstd at level [`LEVEL`] with a long window ([`WINDOW_LOG`]) rather than deflate: the
//! members repeat whole piles far apart, which deflate's 32 KiB window cannot see. Measured on
//! the members of three certificates (2026-11-28, the `zstd` and `gzip` tools on the same
//! bytes): bc 9830's quotient certificate (283,727 members, 4.35 MB before compression) takes
//! 358 KB with deflate (level 6; 350 KB at 9), 242 KB with zstd `--long=27 -9`; the hard lost
//! deal's (41,870 members) 66 KB and 50 KB; the hard deal's exact certificate (12,629,580
//! members, 282 MB) 11.6 MB and 1.90 MB, in 0.6 s instead of 2.4 s.

use super::{
    BuildRule, Certificate, Game, Kind, Label, Members, Start, MAGIC, MAX_CELLS, MAX_LEN,
    MAX_PILES, MAX_SEQ, VERSION,
};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

/// The bytes that end the stream (a cut file fails here if not before).
const END: &[u8; 4] = b"end\n";
/// zstd's compression level (see the module docs).
const LEVEL: i32 = 9;
/// zstd's window: 2^27 bytes, the most a decoder accepts by default.
const WINDOW_LOG: u32 = 27;

/// What writing a certificate produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Written {
    /// Members written.
    pub positions: u64,
    /// Bytes of the file.
    pub bytes: u64,
    /// Bytes of the members before compression (shared prefixes already dropped).
    pub raw_bytes: u64,
}

/// Writes `cert` to `path` (created or truncated).
///
/// # Errors
/// The file system's.
pub fn write(cert: &Certificate, path: &Path) -> std::io::Result<Written> {
    // The stream is written twice: once to count its bytes, then compressed. Told the size,
    // zstd shrinks its window and tables to fit it; otherwise every certificate, however
    // small, pays for the long window's (about 17 ms of system time each, measured on bc
    // 1..1000's 305 lost deals).
    let mut count = Count(0);
    let raw = body(cert, &mut count)?;
    let file = std::fs::File::create(path)?;
    let mut out = BufWriter::new(file);
    out.write_all(MAGIC)?;
    out.write_all(&[VERSION])?;
    let mut z = zstd::stream::write::Encoder::new(out, LEVEL)?;
    z.include_checksum(true)?;
    z.long_distance_matching(true)?;
    z.window_log(WINDOW_LOG)?;
    z.set_pledged_src_size(Some(count.0))?;
    body(cert, &mut z)?;
    let mut out = z.finish()?;
    out.flush()?;
    let file = out.into_inner().map_err(|e| e.into_error())?;
    file.sync_all().ok();
    Ok(Written {
        positions: cert.members.len() as u64,
        bytes: file.metadata()?.len(),
        raw_bytes: raw,
    })
}

/// A sink that counts the bytes written to it.
struct Count(u64);

impl Write for Count {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes what the compressed stream holds; returns the members' bytes.
fn body(cert: &Certificate, z: &mut impl Write) -> std::io::Result<u64> {
    let (kind, k, dealt, kept) = match cert.kind {
        Kind::Exact => (0, 0, false, 0),
        Kind::Quotient { k, dealt, kept: 0 } => (1, k, dealt, 0),
        Kind::Quotient { k, dealt, kept } => (2, k, dealt, kept),
    };
    let g = &cert.game;
    let build = match g.build {
        BuildRule::DownAnySuit => 0,
        BuildRule::UpDownSuit => 1,
        BuildRule::DownSuit => 2,
    };
    z.write_all(&[
        kind,
        k,
        u8::from(dealt),
        build,
        g.decks,
        g.piles,
        g.cells,
        u8::from(g.stock),
        u8::from(g.foundation_return),
        u8::from(g.unlimited),
        u8::from(cert.autoplay),
    ])?;
    if kind == 2 {
        z.write_all(&kept.to_le_bytes())?;
    }
    text(z, &cert.label.variant)?;
    match cert.label.seed {
        Some(s) => {
            z.write_all(&[1])?;
            z.write_all(&s.to_le_bytes())?;
        }
        None => z.write_all(&[0])?,
    }
    text(z, &cert.label.numbering)?;
    let s = &cert.start;
    z.write_all(&s.foundations)?;
    z.write_all(&[s.tableau.len() as u8])?;
    for p in &s.tableau {
        cards(z, p)?;
    }
    cards(z, &s.cells)?;
    cards(z, &s.stock)?;
    cards(z, &s.waste)?;
    let m = &cert.members;
    z.write_all(&(m.len() as u64).to_le_bytes())?;
    let mut raw = 0u64;
    let mut prev: &[u8] = &[];
    for i in 0..m.len() {
        let cur = m.get(i);
        let shared = prev
            .iter()
            .zip(cur)
            .take(255)
            .take_while(|(a, b)| a == b)
            .count();
        let rest = &cur[shared..];
        z.write_all(&[shared as u8, rest.len() as u8])?;
        z.write_all(rest)?;
        raw += 2 + rest.len() as u64;
        prev = cur;
    }
    z.write_all(END)?;
    Ok(raw)
}

fn text(w: &mut impl Write, s: &str) -> std::io::Result<()> {
    let b = &s.as_bytes()[..s.len().min(255)];
    w.write_all(&[b.len() as u8])?;
    w.write_all(b)
}

fn cards(w: &mut impl Write, cs: &[u8]) -> std::io::Result<()> {
    w.write_all(&[cs.len() as u8])?;
    w.write_all(cs)
}

/// Why a file is not a certificate that can be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be read.
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    /// Not a certificate, another version, or damaged.
    #[error("{0}")]
    Format(String),
}

fn damaged(e: std::io::Error) -> ReadError {
    ReadError::Format(format!("the certificate is cut short or damaged ({e})"))
}

fn byte(z: &mut dyn Read) -> Result<u8, ReadError> {
    let mut b = [0u8];
    z.read_exact(&mut b).map_err(damaged)?;
    Ok(b[0])
}

fn bytes(z: &mut dyn Read, n: usize) -> Result<Vec<u8>, ReadError> {
    let mut v = vec![0u8; n];
    z.read_exact(&mut v).map_err(damaged)?;
    Ok(v)
}

/// Reads a certificate written by [`write`].
///
/// # Errors
/// The file system's, or a file that is not a whole certificate of this version (the message
/// says what is wrong).
pub fn read(path: &Path) -> Result<Certificate, ReadError> {
    let file = std::fs::File::open(path)?;
    let mut r = BufReader::new(file);
    let mut head = [0u8; 13];
    let bad = |s: &str| ReadError::Format(s.to_string());
    r.read_exact(&mut head)
        .map_err(|_| bad("not a castle certificate (too short)"))?;
    if &head[..12] != MAGIC {
        return Err(bad("not a castle certificate (no `castle-cert` header)"));
    }
    if head[12] != VERSION {
        return Err(ReadError::Format(format!(
            "certificate format version {} (this castle reads version {VERSION})",
            head[12]
        )));
    }
    let mut decoder = zstd::stream::read::Decoder::with_buffer(r)?;
    decoder.window_log_max(WINDOW_LOG)?;
    let mut z = BufReader::new(decoder);
    let mut flags = [0u8; 11];
    for f in &mut flags {
        *f = byte(&mut z)?;
    }
    let [kind, k, dealt, build, decks, piles, cells, stock, ret, unlimited, autoplay] = flags;
    let flag = |b: u8, what: &str| -> Result<bool, ReadError> {
        match b {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(ReadError::Format(format!("the {what} flag is {b}"))),
        }
    };
    let kind = match kind {
        0 => Kind::Exact,
        1 => Kind::Quotient {
            k,
            dealt: flag(dealt, "dealt-refinement")?,
            kept: 0,
        },
        2 => {
            let mut b = [0u8; 8];
            for x in &mut b {
                *x = byte(&mut z)?;
            }
            Kind::Quotient {
                k,
                dealt: flag(dealt, "dealt-refinement")?,
                kept: u64::from_le_bytes(b),
            }
        }
        _ => {
            return Err(ReadError::Format(format!(
                "unknown certificate kind {kind}"
            )))
        }
    };
    let build = match build {
        0 => BuildRule::DownAnySuit,
        1 => BuildRule::UpDownSuit,
        2 => BuildRule::DownSuit,
        _ => return Err(ReadError::Format(format!("unknown build rule {build}"))),
    };
    if usize::from(piles) > MAX_PILES || usize::from(cells) > MAX_CELLS || !(1..=2).contains(&decks)
    {
        return Err(ReadError::Format(format!(
            "{piles} piles, {cells} cells, {decks} decks"
        )));
    }
    let game = Game {
        build,
        decks,
        piles,
        cells,
        stock: flag(stock, "stock")?,
        foundation_return: flag(ret, "foundation-return")?,
        unlimited: flag(unlimited, "sequence-moves")?,
    };
    let autoplay = flag(autoplay, "autoplay")?;
    let variant_len = usize::from(byte(&mut z)?);
    let variant = String::from_utf8_lossy(&bytes(&mut z, variant_len)?).into_owned();
    let seed = match byte(&mut z)? {
        0 => None,
        1 => Some(u64::from_le_bytes(
            bytes(&mut z, 8)?.try_into().expect("eight bytes"),
        )),
        b => return Err(ReadError::Format(format!("the seed flag is {b}"))),
    };
    let numbering_len = usize::from(byte(&mut z)?);
    let numbering = String::from_utf8_lossy(&bytes(&mut z, numbering_len)?).into_owned();
    let mut foundations = [0u8; 8];
    foundations.copy_from_slice(&bytes(&mut z, 8)?);
    let npiles = usize::from(byte(&mut z)?);
    if npiles != usize::from(piles) {
        return Err(ReadError::Format(format!(
            "the deal has {npiles} piles, the rules {piles}"
        )));
    }
    let mut tableau = Vec::with_capacity(npiles);
    for _ in 0..npiles {
        let l = usize::from(byte(&mut z)?);
        if l > MAX_LEN {
            return Err(ReadError::Format(format!("a dealt pile of {l} cards")));
        }
        tableau.push(bytes(&mut z, l)?);
    }
    let list = |z: &mut dyn Read, max: usize, what: &str| -> Result<Vec<u8>, ReadError> {
        let l = usize::from(byte(z)?);
        if l > max {
            return Err(ReadError::Format(format!("{l} cards in the {what}")));
        }
        bytes(z, l)
    };
    let cells_cards = list(&mut z, MAX_CELLS, "cells")?;
    let stock_cards = list(&mut z, MAX_SEQ, "stock")?;
    let waste_cards = list(&mut z, MAX_SEQ, "waste")?;
    let count = u64::from_le_bytes(bytes(&mut z, 8)?.try_into().expect("eight bytes"));
    let mut members = Members::new();
    let mut prev: Vec<u8> = Vec::new();
    for i in 0..count {
        let shared = usize::from(byte(&mut z)?);
        let rest = usize::from(byte(&mut z)?);
        if shared > prev.len() {
            return Err(ReadError::Format(format!(
                "member {} shares more bytes than the one before holds",
                i + 1
            )));
        }
        prev.truncate(shared);
        let mut tail = [0u8; 256];
        z.read_exact(&mut tail[..rest]).map_err(damaged)?;
        prev.extend_from_slice(&tail[..rest]);
        members.push(&prev);
    }
    let end = bytes(&mut z, END.len())?;
    if end != END {
        return Err(bad("the certificate's members do not end where it says"));
    }
    let mut extra = [0u8; 1];
    if z.read(&mut extra).map_err(damaged)? != 0 {
        return Err(bad("bytes after the certificate's end"));
    }
    Ok(Certificate {
        kind,
        game,
        autoplay,
        label: Label {
            variant,
            seed,
            numbering,
        },
        start: Start {
            tableau,
            foundations,
            cells: cells_cards,
            stock: stock_cards,
            waste: waste_cards,
        },
        members,
    })
}
