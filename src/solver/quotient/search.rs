//! The depth-first search of the abstract space, Tarjan's components closing as they are
//! searched (see "Soundness: `Lost` is a proof" in [`super`]).

use super::*;

/// A position [`Search::enter`] stored: its table (true: the long one) and slot, whether it
/// is new, and its key (words and length in bits), which earlier runs' proofs may need.
pub(super) struct Entered {
    pub(super) long: bool,
    pub(super) slot: usize,
    pub(super) new: bool,
    pub(super) words: [u64; LONG_WORDS + 1],
    pub(super) bits: usize,
}

/// After part `part` of `table` grew: moves the entries of Tarjan's `stack` that are in it
/// (`long` says which table) from their places in `old` to their slots now.
pub(super) fn remap<const W: usize>(
    stack: &mut [u64],
    long: bool,
    table: &Table<W>,
    part: usize,
    old: &[[u64; W]],
) {
    for at in stack
        .iter_mut()
        .filter(|at| (**at & 1 == 1) == long && (**at >> 1) as usize >> SLOT_BITS == part)
    {
        let (slot, there) = table.find(&old[(*at >> 1) as usize & SLOT_PLACE]);
        debug_assert!(there);
        *at = open_at(long, slot);
    }
}

/// One position on the search path: its untried moves are `moves[next..end]` (its list
/// starts where the frame below it ends), and `via` is the move that entered it.
/// Its place in Tarjan's order is `index` ([`UNSTORED`] for a position with a safe move,
/// which is not stored), and `low` the least place of an open position its subtree reached.
#[derive(Clone, Copy)]
pub(super) struct Frame {
    pub(super) next: u32,
    pub(super) end: u32,
    pub(super) via: Option<AMove>,
    pub(super) index: u32,
    pub(super) low: u32,
}

/// Packs a position on Tarjan's stack: its table and slot.
#[inline]
pub(super) fn open_at(long: bool, slot: usize) -> u64 {
    (slot as u64) << 1 | u64::from(long)
}

pub(super) struct Search<'a> {
    pub(super) a: Abs,
    pub(super) opts: &'a QuotientOptions,
    pub(super) stop: &'a AtomicBool,
    pub(super) deadline: Option<Instant>,
    pub(super) codes: Codes,
    pub(super) main: Table<MAIN_WORDS>,
    pub(super) long: Table<LONG_WORDS>,
    pub(super) frames: Vec<Frame>,
    pub(super) moves: Vec<AMove>,
    pub(super) positions: u64,
    pub(super) nodes: u64,
    pub(super) peak_bytes: usize,
    pub(super) depth: usize,
    /// The move that won, if one did (see [`Search::line`]).
    pub(super) won_by: Option<AMove>,
    /// The certificate pass's members, when it runs (see [`search_collect`]).
    pub(super) collect: Option<Collector>,
    /// Tarjan's stack: the stored positions whose component is not closed yet
    /// ([`open_at`]).
    pub(super) tarjan: Vec<u64>,
    /// The next stored position's place in Tarjan's order.
    pub(super) next_index: u32,
    /// Earlier runs whose proofs this one uses ([`Proved`]).
    pub(super) earlier: Vec<Level>,
    /// The earlier runs' proofs were freed for room ([`Search::drop_earlier`]).
    pub(super) dropped: bool,
    /// New positions an earlier run had proved lost (not searched).
    pub(super) pruned: u64,
    /// Positions whose component this run closed.
    pub(super) closed: u64,
}

impl<'a> Search<'a> {
    pub(super) fn new(
        a: Abs,
        opts: &'a QuotientOptions,
        stop: &'a AtomicBool,
        t0: Instant,
    ) -> Self {
        Search {
            a,
            opts,
            stop,
            deadline: crate::Limits {
                max_seconds: opts.max_seconds,
                ..crate::Limits::default()
            }
            .deadline(t0),
            codes: Codes::new(),
            main: Table::new(),
            long: Table::new(),
            frames: Vec::with_capacity(1 << 12),
            moves: Vec::with_capacity(1 << 16),
            positions: 0,
            nodes: 0,
            peak_bytes: 0,
            depth: 0,
            won_by: None,
            collect: None,
            tarjan: Vec::new(),
            next_index: 0,
            earlier: Vec::new(),
            dropped: false,
            pruned: 0,
            closed: 0,
        }
    }

    pub(super) fn path_bytes(&self) -> usize {
        self.frames.capacity() * std::mem::size_of::<Frame>()
            + self.moves.capacity() * std::mem::size_of::<AMove>()
            + self.tarjan.capacity() * 8
    }

    pub(super) fn bytes(&self) -> usize {
        self.main.bytes()
            + self.long.bytes()
            + self.earlier.iter().map(Level::bytes).sum::<usize>()
            + self.path_bytes()
            + self.collect.as_ref().map_or(0, Collector::counted_bytes)
    }

    /// The position's key: its words and its length in bits.
    ///
    /// # Errors
    /// [`Broken::Code`]: a symbol the foundations do not allow, whose code would merge keys.
    #[inline]
    pub(super) fn key(&mut self) -> Result<([u64; LONG_WORDS + 1], usize), Broken> {
        key_of(&self.a, &mut self.codes)
    }

    /// Pile `i` before pile `j` in the key's order.
    #[inline]
    pub(super) fn less(a: &Abs, head: &[u64; MAX_PILES], i: usize, j: usize) -> bool {
        if head[i] != head[j] {
            return head[i] < head[j];
        }
        let l = a.len[i] as usize;
        l > 7 && a.pile[i][7..l] < a.pile[j][7..l]
    }

    /// Stores the position's key (see [`Entered`]).
    #[inline]
    pub(super) fn enter(&mut self) -> Result<Entered, Halt> {
        let (words, bits) = self.key().map_err(Halt::Broken)?;
        let long = bits > MAIN_WORDS * 64;
        let (slot, new) = if !long {
            self.store(|s| &mut s.main, false, &words)?
        } else if bits <= LONG_WORDS * 64 {
            self.store(|s| &mut s.long, true, &words)?
        } else {
            return Err(Halt::Broken(Broken::KeyLength));
        };
        Ok(Entered {
            long,
            slot,
            new,
            words,
            bits,
        })
    }

    /// Inserts the first `W` of `words` in the table `table` picks (`long`: the long one),
    /// growing the key's part first if it needs it (within the budget, moving Tarjan's
    /// entries of that part to their new slots); the slot, and true if the key is new.
    #[inline]
    pub(super) fn store<const W: usize>(
        &mut self,
        table: impl Fn(&mut Self) -> &mut Table<W>,
        long: bool,
        words: &[u64; LONG_WORDS + 1],
    ) -> Result<(usize, bool), Halt> {
        let key: [u64; W] = words[..W].try_into().expect("words");
        let h = hash_words(&key);
        let part = Table::<W>::part_of(h);
        if table(self).needs_growth(part) {
            let grown = table(self).grown_bytes(part);
            self.grow_check(grown)?;
            let old = table(self).grow(part);
            let mut tarjan = std::mem::take(&mut self.tarjan);
            remap(&mut tarjan, long, table(self), part, &old);
            self.tarjan = tarjan;
        }
        Ok(table(self).insert(&key, h))
    }

    #[inline]
    pub(super) fn val(&mut self, long: bool, slot: usize) -> &mut u32 {
        if long {
            self.long.val(slot)
        } else {
            self.main.val(slot)
        }
    }

    /// Closes the component whose root has place `index`: every position above it on
    /// Tarjan's stack is proved lost.
    pub(super) fn close(&mut self, index: u32) {
        while let Some(&at) = self.tarjan.last() {
            let (long, slot) = (at & 1 == 1, (at >> 1) as usize);
            let v = self.val(long, slot);
            if *v < index {
                break;
            }
            *v = PROVED;
            self.tarjan.pop();
            self.closed += 1;
        }
    }

    /// True if an earlier run proved the position on the board lost ([`Proved`]); `words`
    /// and `bits` are its key in this run.
    pub(super) fn earlier_proves(
        &mut self,
        words: &[u64; LONG_WORDS + 1],
        bits: usize,
    ) -> Result<bool, Halt> {
        // Every earlier run's key first, each table's slot asked for as it is known, then
        // the lookups: their cache misses overlap (they were most of a refining run's time).
        for chunk in self.earlier.chunks_mut(PROOF_RUNS) {
            let mut keys = [([0u64; LONG_WORDS + 1], 0usize, 0u64); PROOF_RUNS];
            for (level, key) in chunk.iter_mut().zip(&mut keys) {
                let (w, b) = level.key(&self.a, words, bits).map_err(Halt::Broken)?;
                *key = (w, b, level.prefetch(&w, b));
            }
            if chunk
                .iter()
                .zip(&keys)
                .any(|(level, (w, b, h))| level.holds(w, *b, *h))
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Fails if a table growing to `new_bytes` (while its old array is still held) would
    /// pass the memory budget.
    pub(super) fn grow_check(&mut self, new_bytes: usize) -> Result<(), Limit> {
        let mut total = self.bytes() + new_bytes;
        if total > self.opts.max_bytes && self.drop_earlier() {
            total = self.bytes() + new_bytes;
        }
        if total > self.opts.max_bytes {
            return Err(Limit::Memory);
        }
        self.peak_bytes = self.peak_bytes.max(total);
        Ok(())
    }

    pub(super) fn check(&mut self) -> Result<(), Limit> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(Limit::Stopped);
        }
        if self.opts.max_nodes.is_some_and(|m| self.nodes >= m) {
            return Err(Limit::Nodes);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Limit::Seconds);
        }
        let mut b = self.bytes();
        self.peak_bytes = self.peak_bytes.max(b);
        if b > self.opts.max_bytes && self.drop_earlier() {
            b = self.bytes();
        }
        if b > self.opts.max_bytes {
            return Err(Limit::Memory);
        }
        Ok(())
    }

    /// Frees the earlier runs' proofs for the room this run needs; false if it held none.
    /// The run goes on as sound: the positions it skipped stay proved (their proofs were
    /// proofs), and it only skips no more (see "Which runs are kept" in the module docs).
    pub(super) fn drop_earlier(&mut self) -> bool {
        if self.earlier.is_empty() {
            return false;
        }
        self.earlier = Vec::new();
        self.dropped = true;
        true
    }

    /// Opens a frame for the position just entered by `via`: its safe move's branches if it
    /// has one, else (if it is new) all its moves. `Ok(false)`: already in the table.
    #[inline]
    pub(super) fn open(&mut self, via: Option<AMove>) -> Result<bool, Halt> {
        self.nodes += 1;
        let start = self.moves.len();
        let safe = if self.opts.autoplay {
            self.a.safe_pile()
        } else {
            None
        };
        let (mut index, mut low) = (UNSTORED, UNSTORED);
        if let Some(i) = safe {
            self.a.push_home(i, &mut self.moves).map_err(Halt::Broken)?;
        } else {
            let Entered {
                long,
                slot,
                new,
                words,
                bits,
            } = self.enter()?;
            if !new {
                // An edge to a stored position: if its component is open, the parent's
                // component cannot close before it.
                let v = *self.val(long, slot);
                if let Some(top) = self.frames.last_mut() {
                    top.low = top.low.min(v);
                }
                self.nodes -= 1;
                return Ok(false);
            }
            if self.earlier_proves(&words, bits)? {
                *self.val(long, slot) = PROVED;
                self.pruned += 1;
                self.nodes -= 1;
                return Ok(false);
            }
            if self.next_index == PROVED - 1 {
                return Err(Halt::Limit(Limit::Memory));
            }
            index = self.next_index;
            self.next_index += 1;
            low = index;
            *self.val(long, slot) = index;
            self.tarjan.push(open_at(long, slot));
            self.positions += 1;
            if let Some(c) = &mut self.collect {
                c.keep(&self.a);
            }
            // No repeat: only after a single tableau move with nothing played after it.
            let last = via
                .filter(|m| self.opts.no_repeat && m.to() != FOUND && m.count() == 1)
                .map(|m| m.to() as usize);
            if last.is_some() {
                // The moves no-repeat leaves out are searched from the parent (see the
                // module docs): this position's proof waits on the parent's.
                if let Some(parent) = self.frames.last() {
                    low = low.min(parent.index);
                }
            }
            self.a
                .generate(last, &mut self.moves)
                .map_err(Halt::Broken)?;
        }
        // Frames hold 32-bit places in the move stack.
        if self.moves.len() >= u32::MAX as usize {
            return Err(Halt::Limit(Limit::Memory));
        }
        self.frames.push(Frame {
            next: start as u32,
            end: self.moves.len() as u32,
            via,
            index,
            low,
        });
        self.depth = self.depth.max(self.frames.len());
        Ok(true)
    }

    /// The moves from the deal to the position on top of the path, after a win: the move
    /// into each frame, then the winning move (applied, never opened), `won_by`.
    pub(super) fn line(&self) -> Vec<AbstractMove> {
        self.frames
            .iter()
            .filter_map(|f| f.via)
            .chain(self.won_by)
            .map(|m| AbstractMove {
                from: m.from() as u8,
                to: (m.to() != FOUND).then(|| m.to()),
                count: m.count() as u8,
                suit: (m.to() == FOUND).then(|| m.suit()),
            })
            .collect()
    }

    pub(super) fn run(&mut self) -> QuotientVerdict {
        match self.dfs() {
            Ok(v) => v,
            Err(Halt::Limit(l)) => QuotientVerdict::End(End::Cut(l)),
            Err(Halt::Broken(why)) => QuotientVerdict::Broken(why),
        }
    }

    pub(super) fn dfs(&mut self) -> Result<QuotientVerdict, Halt> {
        if self.a.won() {
            return Ok(QuotientVerdict::BRANCH_WIN);
        }
        self.check()?;
        self.open(None)?;
        let mut next_check = self.nodes + CHECK_EVERY;
        while let Some(top) = self.frames.last_mut() {
            if top.next == top.end {
                let done = self.frames.pop().expect("a frame");
                let start = self.frames.last().map_or(0, |f| f.end as usize);
                self.moves.truncate(start);
                if let Some(m) = done.via {
                    self.a.undo(m);
                }
                if done.index != UNSTORED && done.low == done.index {
                    self.close(done.index);
                }
                if let Some(parent) = self.frames.last_mut() {
                    parent.low = parent.low.min(done.low);
                }
                continue;
            }
            let m = self.moves[top.next as usize];
            top.next += 1;
            let m = self.a.apply(m);
            if self.a.won() {
                self.won_by = Some(m);
                return Ok(QuotientVerdict::BRANCH_WIN);
            }
            if !self.open(Some(m))? {
                self.a.undo(m);
            }
            if self.nodes >= next_check {
                next_check = self.nodes + CHECK_EVERY;
                self.check()?;
            }
        }
        Ok(QuotientVerdict::LOST)
    }
}
