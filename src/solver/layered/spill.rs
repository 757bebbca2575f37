//! The layered search's disk, under `--spill DIR`: the files where a class that outgrew the
//! memory budget goes on, and where the pending classes wait (see "Out of core" in the
//! parent module's docs for the search's side and why no verdict depends on it).
//!
//! This module owns [`Spill`]: a directory of its own under the user's, removed when the
//! search ends, holding
//! - per partition of the class on disk ([`PARTS`], chosen by a hash of the key), the keys
//!   of the class's positions stored so far (*visited*) and the candidates of the layer being
//!   expanded, each as its key and its number in the order generated (*seq*);
//! - the candidates' records (parent and move), in the order generated;
//! - per pending class, its records (no keys: they are played again when the class starts).
//!
//! Every file is append-only behind a small write buffer, read back whole in the order
//! written. The counters ([`Spill::on_disk`], [`Spill::peak_on_disk`], [`Spill::written`])
//! count the bytes in the files.

use super::Rec;
use crate::moves::Move;
use crate::state::KEY_HASH_MUL;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Partitions of a class on disk. Duplicates are found one partition at a time, so a
/// partition's keys (a 256th of the class's, with the layer's candidates) are what must fit
/// in memory at once: 50,000 keys for the hard lost deal's largest class of 12.6 million.
pub const PARTS: usize = 256;

/// Bytes a file's write buffer holds at most before it is written out (see [`Spill::new`]).
const LOG_BUF: usize = 64 << 10;

/// Entries read from a file at once.
const READ_ENTRIES: usize = 1 << 14;

/// A record as 8 bytes (parent, then the move's word), little-endian.
fn rec_bytes(r: Rec) -> [u8; 8] {
    let mut b = [0; 8];
    b[..4].copy_from_slice(&r.parent.to_le_bytes());
    b[4..].copy_from_slice(&r.mv.to_bits().to_le_bytes());
    b
}

/// The record [`rec_bytes`] wrote (the files are this search's own, written in this run).
fn rec_from(b: &[u8]) -> Rec {
    let w = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
    Rec {
        parent: w(0),
        mv: Move::from_bits(w(4)),
    }
}

/// Writes a key's words to the front of `e`, little-endian; returns the bytes written.
fn key_bytes(key: &[u64], e: &mut [u8]) -> usize {
    for (i, w) in key.iter().enumerate() {
        e[i * 8..i * 8 + 8].copy_from_slice(&w.to_le_bytes());
    }
    key.len() * 8
}

/// A hash of a key: its top byte picks the partition, its low bits the cache's slot.
#[inline]
fn hash(key: &[u64]) -> u64 {
    let h = crate::state::fold_key(key, 0, KEY_HASH_MUL, crate::state::Stir::Rotate(29));
    h.wrapping_mul(KEY_HASH_MUL)
}

/// The partition of a key, from its [`hash`].
#[inline]
fn part_of(hash: u64) -> usize {
    (hash >> 56) as usize % PARTS
}

/// The byte counters of the directory, and its budget.
#[derive(Default)]
struct Io {
    on_disk: u64,
    peak: u64,
    written: u64,
    /// Most bytes the files may hold at once (`--spill-max`).
    max: Option<u64>,
}

/// One append-only file of entries of one size, behind a write buffer (the file is
/// created at the first write).
struct Log {
    path: PathBuf,
    size: usize,
    /// Bytes buffered before a write.
    cap: usize,
    file: Option<File>,
    buf: Vec<u8>,
    /// Bytes in the file.
    on_disk: u64,
}

impl Log {
    fn new(path: PathBuf, size: usize, cap: usize) -> Self {
        Log {
            path,
            size,
            cap,
            file: None,
            buf: Vec::new(),
            on_disk: 0,
        }
    }

    /// Entries in the file and the buffer.
    fn len(&self) -> u64 {
        (self.on_disk + self.buf.len() as u64) / self.size as u64
    }

    fn push(&mut self, entry: &[u8], io: &mut Io) -> io::Result<()> {
        debug_assert_eq!(entry.len(), self.size);
        self.buf.extend_from_slice(entry);
        if self.buf.len() >= self.cap {
            self.flush(io)?;
        }
        Ok(())
    }

    fn flush(&mut self, io: &mut Io) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        if self.file.is_none() {
            self.file = Some(
                OpenOptions::new()
                    .create(true)
                    .truncate(true)
                    .read(true)
                    .write(true)
                    .open(&self.path)?,
            );
        }
        let n = self.buf.len() as u64;
        if let Some(max) = io.max.filter(|&m| io.on_disk + n > m) {
            return Err(io::Error::other(format!(
                "the files would pass the disk budget of {max} bytes (--spill-max)"
            )));
        }
        let file = self.file.as_mut().expect("opened above");
        file.seek(SeekFrom::Start(self.on_disk))?;
        file.write_all(&self.buf)?;
        self.on_disk += n;
        io.on_disk += n;
        io.written += n;
        io.peak = io.peak.max(io.on_disk);
        self.buf.clear();
        Ok(())
    }

    /// Calls `f` on every entry, the file's then the buffer's: the order pushed.
    fn read(&mut self, mut f: impl FnMut(&[u8])) -> io::Result<()> {
        let mut from = 0;
        let mut block = Vec::new();
        loop {
            self.read_range(from, READ_ENTRIES, &mut block)?;
            if block.is_empty() {
                return Ok(());
            }
            block.chunks_exact(self.size).for_each(&mut f);
            from += (block.len() / self.size) as u64;
        }
    }

    /// Sets `out` to at most `max` entries from entry `from` on (empty past the end).
    fn read_range(&mut self, from: u64, max: usize, out: &mut Vec<u8>) -> io::Result<()> {
        out.clear();
        let size = self.size as u64;
        let mut at = from * size;
        let end = (at + max as u64 * size).min(self.on_disk + self.buf.len() as u64);
        if at < self.on_disk.min(end) {
            let n = (self.on_disk.min(end) - at) as usize;
            out.resize(n, 0);
            let file = self.file.as_mut().expect("bytes on disk have a file");
            file.seek(SeekFrom::Start(at))?;
            file.read_exact(out)?;
            at += n as u64;
        }
        if at < end {
            let (a, b) = ((at - self.on_disk) as usize, (end - self.on_disk) as usize);
            out.extend_from_slice(&self.buf[a..b]);
        }
        Ok(())
    }

    /// Sets `out` to at most [`READ_ENTRIES`] records from record `from` on (a log of
    /// records; empty past the end).
    fn read_recs(&mut self, from: u64, out: &mut Vec<Rec>) -> io::Result<()> {
        debug_assert_eq!(self.size, 8);
        let mut raw = Vec::new();
        self.read_range(from, READ_ENTRIES, &mut raw)?;
        out.clear();
        out.extend(raw.chunks_exact(8).map(rec_from));
        Ok(())
    }

    /// Empties the log and removes its file.
    fn clear(&mut self, io: &mut Io) -> io::Result<()> {
        self.buf = Vec::new();
        if self.file.take().is_some() {
            io.on_disk -= self.on_disk;
            self.on_disk = 0;
            fs::remove_file(&self.path)?;
        }
        Ok(())
    }
}

/// The spill directory of one layered search (see the module docs).
pub(super) struct Spill {
    dir: PathBuf,
    io: Io,
    /// Words of a key.
    words: usize,
    /// Bytes of a write buffer.
    buf: usize,
    /// Per partition: the class's keys stored so far.
    visited: Vec<Log>,
    /// Per partition: this layer's candidates, as key and seq.
    cand: Vec<Log>,
    /// This layer's candidates' records, in seq order.
    recs: Log,
    /// Candidates so far in this layer.
    seq: u64,
    /// The pending classes' files, by (level, number in level).
    pending: ahash::HashMap<(usize, usize), Log>,
    /// The checkpoints' copy of the record array, and the records in it.
    saved: Log,
    /// Keep the directory at the end (it holds a checkpoint to resume from).
    keep: bool,
    /// With checkpoints: files of pending classes that have started since the last
    /// checkpoint, which still names them (removed at the next one).
    started: Vec<Log>,
    /// A direct-mapped cache of keys met by [`Spill::candidate`] (`words` words a slot; all
    /// zero: empty), made by [`Spill::make_cache`].
    cache: Vec<u64>,
    /// Slots of the cache (a power of two).
    cache_slots: usize,
}

/// What a checkpoint holds besides the files (see "Checkpoints" in the parent module).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(super) struct Checkpoint {
    /// The deal, rules and reductions searched, written out: a checkpoint resumes only the
    /// same search.
    pub search: String,
    /// Records in the `records` file that belong to the checkpoint.
    pub records: u64,
    pub expanded: u64,
    pub best_home: u8,
    pub classes_on_disk: u32,
    /// Classes closed, as (level, positions).
    pub classes: Vec<(u16, u64)>,
    /// The next class to close: class `next` of `level`.
    pub level: usize,
    pub next: usize,
    /// The pending classes of `level` and above, by level: each class's id and the records
    /// of its file that belong to the checkpoint (`None` for a class of `level` closed or
    /// being closed).
    pub pending: Vec<PendingLevel>,
    /// The class on disk the checkpoint was written in, between two of its layers.
    #[serde(default)]
    pub class: Option<ClassCheckpoint>,
}

/// A class on disk at a checkpoint (see [`Checkpoint::class`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(super) struct ClassCheckpoint {
    /// Its number in its level.
    pub k: usize,
    /// Its id (foundation heights).
    pub class: u64,
    /// Its first record, and the next to expand.
    pub start: u64,
    pub next: u64,
    /// Keys in each partition's file of stored keys.
    pub visited: Vec<u64>,
}

/// A level's pending classes in a checkpoint: the level, and each class's id and records
/// (`None`: closed).
pub(super) type PendingLevel = (usize, Vec<(u64, Option<u64>)>);

/// The checkpoint's file in the directory.
const MANIFEST: &str = "checkpoint.json";

/// A stable 64-bit hash (FNV-1a) of a search's description, for its directory's name.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The directory of the search `search` under `root`, named by a hash of it.
fn search_dir(root: &Path, search: &str) -> PathBuf {
    root.join(format!("castle-layered-{:016x}", fnv(search)))
}

/// True when another running process holds `dir` (its lock names a live pid).
fn in_use(dir: &Path) -> bool {
    fs::read_to_string(dir.join("lock")).is_ok_and(|text| {
        text.trim()
            .parse::<u32>()
            .is_ok_and(|pid| pid != std::process::id() && alive(pid))
    })
}

/// The checkpoint in `dir`, if its manifest reads and is the search `search`'s.
fn manifest(dir: &Path, search: &str) -> Option<Checkpoint> {
    fs::read_to_string(dir.join(MANIFEST))
        .ok()
        .and_then(|t| serde_json::from_str::<Checkpoint>(&t).ok())
        .filter(|c| c.search == search)
}

/// True when [`Spill::open`] would take up a checkpoint of the search `search` under `root`
/// (its directory holds that search's manifest, and no other running process holds it).
pub(super) fn holds_checkpoint(root: &Path, search: &str) -> bool {
    let dir = search_dir(root, search);
    !in_use(&dir) && manifest(&dir, search).is_some()
}

/// True when process `pid` runs (Linux: it has a `/proc` entry; elsewhere assumed).
fn alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        Path::new(&format!("/proc/{pid}")).exists()
    } else {
        true
    }
}

/// Names the directories of the searches of one process apart.
static NEXT_DIR: AtomicU64 = AtomicU64::new(0);

impl Spill {
    /// The buffers' size for a memory budget of `memory` bytes: an 8192nd of it, between
    /// 1 KiB and [`LOG_BUF`], so that the buffers of the partitions' files (two per
    /// partition and one more) take at most about a 16th of the budget.
    fn buf_for(memory: usize) -> usize {
        (memory / 8192).clamp(1 << 10, LOG_BUF)
    }

    /// A new directory under `root` (created if missing), for keys of `words` words, within
    /// a memory budget of `memory` bytes (see [`Spill::buf_for`]). The files may hold `max`
    /// bytes at once (a write past it fails as a full disk would). Removed at the end.
    pub fn new(root: &Path, words: usize, memory: usize, max: Option<u64>) -> io::Result<Spill> {
        fs::create_dir_all(root)?;
        let dir = loop {
            let n = NEXT_DIR.fetch_add(1, Ordering::Relaxed);
            let dir = root.join(format!("castle-layered-{}-{n}", std::process::id()));
            match fs::create_dir(&dir) {
                Ok(()) => break dir,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        };
        Ok(Spill::in_dir(dir, words, memory, max))
    }

    /// The directory of the search `search` (its deal, rules and reductions written out)
    /// under `root`, named by a hash of it, with the checkpoint found there if it is that
    /// search's. A directory in use by a running process is not touched: a new one is made
    /// (and nothing resumed). Whatever a checkpoint does not name (files of a class being
    /// closed, records written after it) is removed.
    pub fn open(
        root: &Path,
        search: &str,
        words: usize,
        memory: usize,
        max: Option<u64>,
    ) -> io::Result<(Spill, Option<Checkpoint>)> {
        fs::create_dir_all(root)?;
        let dir = search_dir(root, search);
        fs::create_dir_all(&dir)?;
        if in_use(&dir) {
            return Ok((Spill::new(root, words, memory, max)?, None));
        }
        fs::write(dir.join("lock"), std::process::id().to_string())?;
        let mut spill = Spill::in_dir(dir, words, memory, max);
        spill.keep = true;
        let ck = manifest(&spill.dir, search);
        // Everything but the lock, the manifest, the saved records and the pending files it
        // names goes; those it names are cut back to their length at the checkpoint.
        let mut named: ahash::HashMap<String, u64> = Default::default();
        if let Some(c) = &ck {
            named.insert("records".into(), c.records * 8);
            for (p, &n) in c.class.iter().flat_map(|c| c.visited.iter().enumerate()) {
                named.insert(format!("visited-{p}"), n * words as u64 * 8);
            }
            for (level, list) in &c.pending {
                for (k, &(_, len)) in list.iter().enumerate() {
                    if let Some(len) = len {
                        named.insert(format!("pending-{level}-{k}"), len * 8);
                    }
                }
            }
        }
        for entry in fs::read_dir(&spill.dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == "lock" || (name == MANIFEST && ck.is_some()) {
                continue;
            }
            match named.get(&name) {
                Some(&bytes) if entry.metadata()?.len() >= bytes => {
                    let file = OpenOptions::new()
                        .read(true)
                        .write(true)
                        .open(entry.path())?;
                    file.set_len(bytes)?;
                    let size = if name.starts_with("visited-") {
                        words * 8
                    } else {
                        8
                    };
                    let log = Log {
                        file: Some(file),
                        on_disk: bytes,
                        ..Log::new(entry.path(), size, spill.buf)
                    };
                    spill.io.on_disk += bytes;
                    if name == "records" {
                        spill.saved = log;
                    } else if let Some(p) = name.strip_prefix("visited-") {
                        match p.parse::<usize>() {
                            Ok(p) if p < PARTS => spill.visited[p] = log,
                            _ => return Spill::fresh(spill),
                        }
                    } else {
                        let mut parts = name["pending-".len()..].split('-');
                        let mut num = || parts.next().and_then(|p| p.parse::<usize>().ok());
                        let (level, k) = (num().unwrap_or(0), num().unwrap_or(0));
                        spill.pending.insert((level, k), log);
                    }
                }
                // A file shorter than the checkpoint says: the checkpoint cannot be used.
                Some(_) => return Spill::fresh(spill),
                None => fs::remove_file(entry.path())?,
            }
        }
        if let Some(c) = &ck {
            let all_there = c.pending.iter().all(|(level, list)| {
                list.iter().enumerate().all(|(k, &(_, len))| {
                    len.map_or(true, |n| n == 0 || spill.pending.contains_key(&(*level, k)))
                })
            }) && (c.records == 0 || spill.saved.file.is_some());
            if !all_there {
                return Spill::fresh(spill);
            }
        }
        spill.io.peak = spill.io.on_disk;
        Ok((spill, ck))
    }

    /// `spill`'s directory emptied (but for its lock), for a search from the start.
    fn fresh(mut spill: Spill) -> io::Result<(Spill, Option<Checkpoint>)> {
        spill.pending.clear();
        spill.saved = Log::new(spill.dir.join("records"), 8, spill.buf);
        spill.io.on_disk = 0;
        for entry in fs::read_dir(&spill.dir)? {
            let entry = entry?;
            if entry.file_name() != "lock" {
                fs::remove_file(entry.path())?;
            }
        }
        Ok((spill, None))
    }

    /// Slots of the candidates' cache for a budget of `memory` bytes: a 16th of it, rounded
    /// down to a power of two, at least 1,024.
    fn cache_slots_for(memory: usize, words: usize) -> usize {
        let slots = (memory / 16 / (words * 8)).max(1024);
        1 << (usize::BITS - 1 - slots.leading_zeros())
    }

    fn in_dir(dir: PathBuf, words: usize, memory: usize, max: Option<u64>) -> Spill {
        let buf = Spill::buf_for(memory);
        let log = |name: String, size: usize| Log::new(dir.join(name), size, buf);
        Spill {
            visited: (0..PARTS)
                .map(|p| log(format!("visited-{p}"), words * 8))
                .collect(),
            cand: (0..PARTS)
                .map(|p| log(format!("cand-{p}"), words * 8 + 8))
                .collect(),
            recs: log("recs".into(), 8),
            saved: log("records".into(), 8),
            dir,
            io: Io {
                max,
                ..Io::default()
            },
            words,
            buf,
            seq: 0,
            pending: Default::default(),
            keep: false,
            started: Vec::new(),
            cache: Vec::new(),
            cache_slots: Spill::cache_slots_for(memory, words),
        }
    }

    /// Appends records to the saved records (those stored since the last checkpoint, in
    /// order, before [`Spill::checkpoint`]).
    pub fn save_records(&mut self, records: &[Rec]) -> io::Result<()> {
        for &r in records {
            self.saved.push(&rec_bytes(r), &mut self.io)?;
        }
        Ok(())
    }

    /// Keys in each partition's file of stored keys (the class on disk).
    pub fn visited_lens(&self) -> Vec<u64> {
        self.visited.iter().map(Log::len).collect()
    }

    /// Writes a checkpoint: the saved records and the pending classes' files to the disk,
    /// then the manifest, written whole and renamed over the old one, so that a checkpoint
    /// is never half written. The files must hold what `ck` says they hold.
    pub fn checkpoint(&mut self, ck: &Checkpoint) -> io::Result<()> {
        self.saved.flush(&mut self.io)?;
        if ck.class.is_some() {
            for log in &mut self.visited {
                log.flush(&mut self.io)?;
                if let Some(f) = &log.file {
                    f.sync_data()?;
                }
            }
        }
        assert_eq!(
            self.saved.len(),
            ck.records,
            "a checkpoint must name the records on disk"
        );
        if let Some(f) = &self.saved.file {
            f.sync_data()?;
        }
        for log in self.pending.values() {
            if let Some(f) = &log.file {
                f.sync_data()?;
            }
        }
        let tmp = self.dir.join("checkpoint.tmp");
        let text = serde_json::to_string(ck).map_err(io::Error::other)?;
        let mut f = File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        fs::rename(&tmp, self.dir.join(MANIFEST))?;
        self.keep = true;
        for mut log in std::mem::take(&mut self.started) {
            log.clear(&mut self.io)?;
        }
        Ok(())
    }

    /// Sets `out` to the saved records from `from` on (at most [`READ_ENTRIES`]; empty past
    /// the end).
    pub fn saved_records_from(&mut self, from: u64, out: &mut Vec<Rec>) -> io::Result<()> {
        self.saved.read_recs(from, out)
    }

    /// Whether the directory stays at the end: with `true` (a search that ended without a
    /// verdict) it does if it holds a checkpoint; with `false` it goes.
    pub fn keep(&mut self, keep: bool) {
        self.keep = keep && self.dir.join(MANIFEST).exists();
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Bytes in the files now.
    pub fn on_disk(&self) -> u64 {
        self.io.on_disk
    }

    /// Most bytes in the files at once.
    pub fn peak_on_disk(&self) -> u64 {
        self.io.peak
    }

    /// Bytes written in all.
    pub fn written(&self) -> u64 {
        self.io.written
    }

    /// Bytes of the write buffers (each at most about [`LOG_BUF`]).
    pub fn buffer_bytes(&self) -> usize {
        self.visited
            .iter()
            .chain(&self.cand)
            .chain(std::iter::once(&self.recs))
            .chain(self.pending.values())
            .map(|l| l.buf.capacity())
            .sum::<usize>()
            + self.cache.capacity() * 8
    }

    /// Adds a key to the class's stored keys (a class going to disk hands over its set).
    pub fn visit(&mut self, key: &[u64]) -> io::Result<()> {
        let mut e = [0u8; 32];
        let n = key_bytes(key, &mut e);
        self.visited[part_of(hash(key))].push(&e[..n], &mut self.io)
    }

    /// Adds a candidate of the layer being expanded, its key and record, unless the cache
    /// shows it need not be written: a key in the cache was written as a candidate before
    /// (in this layer, or in an earlier one, and then stored by [`Spill::settle`] or found
    /// stored already), so the candidate would not be new. Dropping it changes nothing that
    /// settling decides: the first candidate of a key still comes first.
    pub fn candidate(&mut self, key: &[u64], rec: Rec) -> io::Result<()> {
        let n = key.len();
        let h = hash(key);
        // An empty slot is all zeros: an all-zero key (none is: the won position, with
        // every pile empty, never becomes a candidate) is never taken as cached.
        if !self.cache.is_empty() && key.iter().any(|&w| w != 0) {
            let slot = (h as usize & (self.cache_slots - 1)) * n;
            if &self.cache[slot..slot + n] == key {
                return Ok(());
            }
            self.cache[slot..slot + n].copy_from_slice(key);
        }
        let mut e = [0u8; 40];
        key_bytes(key, &mut e);
        e[n * 8..n * 8 + 8].copy_from_slice(&self.seq.to_le_bytes());
        self.cand[part_of(h)].push(&e[..n * 8 + 8], &mut self.io)?;
        self.recs.push(&rec_bytes(rec), &mut self.io)?;
        self.seq += 1;
        Ok(())
    }

    /// Bytes of the candidates' cache ([`Spill::make_cache`]).
    pub fn cache_bytes(&self) -> usize {
        self.cache_slots * self.words * 8
    }

    /// Makes the candidates' cache (the class going to disk; the caller made room for it).
    pub fn make_cache(&mut self) {
        self.cache = vec![0; self.cache_slots * self.words];
    }

    /// Keys stored for the class on disk.
    pub fn stored(&self) -> u64 {
        self.visited.iter().map(Log::len).sum()
    }

    /// Candidates waiting for [`Spill::settle`].
    pub fn candidates(&self) -> u64 {
        self.seq
    }

    /// Bytes [`Spill::settle`] allocates at most: the mark bits and the largest partition's
    /// set (stored keys plus candidates), measured as `set_bytes` measures a set.
    pub fn settle_bytes(&self, set_bytes: impl Fn(usize) -> usize) -> usize {
        let most = (0..PARTS)
            .map(|p| (self.visited[p].len() + self.cand[p].len()) as usize)
            .max()
            .unwrap_or(0);
        self.seq.div_ceil(64) as usize * 8 + set_bytes(most)
    }

    /// Finds the new positions among the layer's candidates, one partition at a time: a
    /// candidate is new when its key is not among the class's stored keys and no candidate
    /// before it (in seq order) has its key. Adds their keys to the stored keys and returns
    /// the candidates' mark bits (bit `seq` set for a new one); the caller then takes the
    /// marked records with [`Spill::records`]. Exact: keys are compared whole.
    ///
    /// `give_up` is asked before each partition (a deadline, a stop): when it says so the
    /// settle returns `None`, and the search must end without a verdict (the candidates are
    /// not all settled).
    pub fn settle<const W: usize>(
        &mut self,
        give_up: &dyn Fn() -> bool,
    ) -> io::Result<Option<Vec<u64>>> {
        debug_assert_eq!(W, self.words);
        let mut marks = vec![0u64; self.seq.div_ceil(64) as usize];
        let key_of = |e: &[u8]| -> [u64; W] {
            std::array::from_fn(|i| {
                u64::from_le_bytes(e[i * 8..i * 8 + 8].try_into().expect("8 bytes"))
            })
        };
        for p in 0..PARTS {
            if self.cand[p].len() == 0 {
                continue;
            }
            if give_up() {
                return Ok(None);
            }
            let cap = (self.visited[p].len() + self.cand[p].len()) as usize;
            let mut set: ahash::HashSet<[u64; W]> =
                ahash::HashSet::with_capacity_and_hasher(cap, Default::default());
            self.visited[p].read(|e| {
                set.insert(key_of(e));
            })?;
            let (cand, visited, io) = (&mut self.cand[p], &mut self.visited[p], &mut self.io);
            let mut err = Ok(());
            cand.read(|e| {
                let key = key_of(&e[..W * 8]);
                if set.insert(key) {
                    let seq = u64::from_le_bytes(e[W * 8..].try_into().expect("8 bytes"));
                    marks[(seq / 64) as usize] |= 1 << (seq % 64);
                    if err.is_ok() {
                        err = visited.push(&e[..W * 8], io);
                    }
                }
            })?;
            err?;
            cand.clear(io)?;
        }
        Ok(Some(marks))
    }

    /// Sets `out` to the layer's candidate records from seq `from` on (at most
    /// [`READ_ENTRIES`]; empty past the end).
    pub fn records(&mut self, from: u64, out: &mut Vec<Rec>) -> io::Result<()> {
        self.recs.read_recs(from, out)
    }

    /// Ends the layer: its candidates' records go.
    pub fn end_layer(&mut self) -> io::Result<()> {
        self.seq = 0;
        self.recs.clear(&mut self.io)
    }

    /// Ends the class on disk: its stored keys go, and the cache's.
    pub fn end_class(&mut self) -> io::Result<()> {
        self.cache = Vec::new();
        for p in 0..PARTS {
            self.visited[p].clear(&mut self.io)?;
            self.cand[p].clear(&mut self.io)?;
        }
        self.end_layer()
    }

    /// Appends records to pending class `k` of `level`.
    pub fn pend(&mut self, level: usize, k: usize, recs: &[Rec]) -> io::Result<()> {
        let (dir, buf) = (&self.dir, self.buf);
        let log = self
            .pending
            .entry((level, k))
            .or_insert_with(|| Log::new(dir.join(format!("pending-{level}-{k}")), 8, buf));
        for &r in recs {
            log.buf.extend_from_slice(&rec_bytes(r));
        }
        // A pending class is written whole at each call: its buffer holds nothing after.
        log.flush(&mut self.io)?;
        log.buf = Vec::new();
        Ok(())
    }

    /// Records in pending class `k` of `level`'s file.
    pub fn pending_len(&self, level: usize, k: usize) -> u64 {
        self.pending.get(&(level, k)).map_or(0, Log::len)
    }

    /// Sets `out` to pending class `k` of `level`'s records from `from` on (at most
    /// [`READ_ENTRIES`]; empty past the end).
    pub fn pending_records(
        &mut self,
        level: usize,
        k: usize,
        from: u64,
        out: &mut Vec<Rec>,
    ) -> io::Result<()> {
        match self.pending.get_mut(&(level, k)) {
            Some(log) => log.read_recs(from, out),
            None => {
                out.clear();
                Ok(())
            }
        }
    }

    /// Removes pending class `k` of `level`'s file (the class has started): at once, or,
    /// with checkpoints, at the next one (the last one needs it to resume).
    pub fn drop_pending(&mut self, level: usize, k: usize) -> io::Result<()> {
        if let Some(mut log) = self.pending.remove(&(level, k)) {
            if self.keep {
                self.started.push(log);
            } else {
                log.clear(&mut self.io)?;
            }
        }
        Ok(())
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        // A failure to remove files leaves them behind, not a wrong verdict.
        if self.keep {
            // The checkpoint stays for the next run; the files it does not name go then.
            let _ = fs::remove_file(self.dir.join("lock"));
        } else {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::{Card, Suit};

    fn rec(i: u32) -> Rec {
        Rec {
            parent: i,
            mv: Move::single(Card::new(1 + (i % 13) as u8, Suit::Hearts), 1, 2),
        }
    }

    /// Settling keeps the first of each key in seq order, drops keys stored before, and
    /// reads back through files and buffers alike.
    #[test]
    fn settle_keeps_first_new_candidates() {
        let root = std::env::temp_dir().join("castle-spill-unit");
        let mut s = Spill::new(&root, 3, 1 << 20, None).unwrap();
        s.visit(&[7, 7, 7]).unwrap();
        // Enough candidates that every partition's buffer is written out at least once.
        let n = 40_000u32;
        for i in 0..n {
            s.candidate(&[u64::from(i % 10_000), 1, 2], rec(i)).unwrap();
        }
        s.candidate(&[7, 7, 7], rec(n)).unwrap();
        assert!(s.on_disk() > 0);
        let marks = s.settle::<3>(&|| false).unwrap().unwrap();
        let new: Vec<u64> = (0..=u64::from(n))
            .filter(|&q| marks[(q / 64) as usize] >> (q % 64) & 1 == 1)
            .collect();
        assert_eq!(new, (0..10_000).collect::<Vec<u64>>());
        let mut out = Vec::new();
        s.records(9_999, &mut out).unwrap();
        assert_eq!(out[0].parent, 9_999);
        assert_eq!(out[0].mv, rec(9_999).mv);
        s.end_layer().unwrap();
        // The same keys again are all stored now.
        for i in 0..100u32 {
            s.candidate(&[u64::from(i), 1, 2], rec(i)).unwrap();
        }
        let marks = s.settle::<3>(&|| false).unwrap().unwrap();
        assert!(marks.iter().all(|&m| m == 0));
        s.end_class().unwrap();
        s.pend(5, 0, &[rec(1), rec(2)]).unwrap();
        s.pend(5, 0, &[rec(3)]).unwrap();
        let mut out = Vec::new();
        s.pending_records(5, 0, 1, &mut out).unwrap();
        assert_eq!(out.iter().map(|r| r.parent).collect::<Vec<_>>(), [2, 3]);
        s.drop_pending(5, 0).unwrap();
        assert_eq!(s.on_disk(), 0);
        let dir = s.dir.clone();
        drop(s);
        assert!(!dir.exists());
    }

    /// A search's directory whose lock names a running process (here pid 1) is left alone:
    /// the search gets a directory of its own and resumes nothing.
    #[test]
    fn a_locked_directory_is_left_alone() {
        let root = std::env::temp_dir().join(format!("castle-spill-lock-{}", std::process::id()));
        let theirs = root.join(format!("castle-layered-{:016x}", fnv("a search")));
        fs::create_dir_all(&theirs).unwrap();
        fs::write(theirs.join("lock"), "1").unwrap();
        fs::write(theirs.join(MANIFEST), "{}").unwrap();
        let (s, ck) = Spill::open(&root, "a search", 3, 1 << 20, None).unwrap();
        assert!(ck.is_none());
        assert_ne!(s.dir(), theirs.as_path());
        assert!(theirs.join(MANIFEST).exists());
        drop(s);
        fs::remove_dir_all(&root).unwrap();
    }

    /// A write past `max` fails, as a full disk's would, and writes nothing.
    #[test]
    fn the_disk_budget_fails_writes_past_it() {
        let root = std::env::temp_dir().join("castle-spill-unit");
        let mut s = Spill::new(&root, 3, 1 << 20, Some(1000)).unwrap();
        s.pend(1, 0, &[rec(1); 100]).unwrap();
        assert!(s.pend(1, 0, &[rec(2); 100]).is_err());
        assert_eq!(s.on_disk(), 800);
    }
}
