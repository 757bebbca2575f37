//! The layered search's checkpoints (see "Checkpoints" in the module's opening): when one is
//! due, writing it, and a resumed search's restore from the last one.

use super::spill::{Checkpoint, ClassCheckpoint, Spill};
use super::{Halt, InClass, Pending, Rec, Search, CHUNK};
use std::time::Instant;

impl<const W: usize> Search<'_, W> {
    /// Whether checkpoints are on and the interval has passed since the last one.
    pub(super) fn checkpoint_due(&self) -> bool {
        self.checkpoint_every
            .is_some_and(|every| self.last_checkpoint.elapsed().as_secs_f64() >= every)
    }

    /// Writes a checkpoint if they are on and the interval has passed since the last one;
    /// class `next` of `level` is the next to close, after `class` (the class on disk being
    /// closed, between two of its layers) if any (see "Checkpoints").
    pub(super) fn maybe_checkpoint(
        &mut self,
        level: usize,
        next: usize,
        top: usize,
        class: Option<InClass>,
    ) -> Result<(), Halt> {
        if !self.checkpoint_due() {
            return Ok(());
        }
        // Every pending class to its file, so that the files hold all of them.
        if !self.pending_spilled || self.pending_bytes > 0 {
            self.spill_pending().map_err(|e| self.disk_failed(e))?;
        }
        let spill = self.spill.as_ref().expect("checkpoints need a directory");
        let ck = Checkpoint {
            search: self.description(),
            records: self.len as u64,
            expanded: self.expanded,
            best_home: self.best_home,
            classes_on_disk: self.disk.classes,
            classes: self.classes.clone(),
            level,
            next,
            class: class.map(|c| ClassCheckpoint {
                k: c.k,
                class: self.current_class,
                start: c.start as u64,
                next: c.next as u64,
                visited: spill.visited_lens(),
            }),
            pending: (level..top)
                .map(|l| {
                    let c = &self.pending[l];
                    let list = (0..c.list.len())
                        .map(|k| {
                            let closed = l == level && k < next;
                            (c.class[k], (!closed).then(|| spill.pending_len(l, k)))
                        })
                        .collect();
                    (l, list)
                })
                .collect(),
        };
        let spill = self.spill.as_mut().expect("checkpoints need a directory");
        let mut i = self.saved_records as usize;
        let mut saved = Ok(());
        while i < self.len && saved.is_ok() {
            let (c, at) = (i / CHUNK, i % CHUNK);
            let end = (self.len - c * CHUNK).min(CHUNK);
            saved = spill.save_records(&self.chunks[c][at..end]);
            i = c * CHUNK + end;
        }
        saved
            .and_then(|()| spill.checkpoint(&ck))
            .map_err(|e| self.disk_failed(e))?;
        self.saved_records = self.len as u64;
        self.last_checkpoint = Instant::now();
        Ok(())
    }

    /// Takes up the search from a checkpoint: its records, counters and pending classes
    /// (every one on disk), and the class on disk it was cut in, if any; returns the class
    /// to close next and that one.
    pub(super) fn restore(
        &mut self,
        ck: Checkpoint,
    ) -> Result<(usize, usize, Option<InClass>), Halt> {
        let mut block = Vec::new();
        while (self.len as u64) < ck.records {
            let spill = self.spill.as_mut().expect("a checkpoint has a directory");
            if let Err(e) = spill.saved_records_from(self.len as u64, &mut block) {
                return Err(self.disk_failed(e));
            }
            if block.is_empty() {
                break;
            }
            for &r in &block {
                self.push(r)?;
            }
        }
        // Every record the checkpoint names is back, or the resumed search is not the one that
        // was stopped.
        assert_eq!(self.len as u64, ck.records, "records missing on resume");
        self.saved_records = ck.records;
        self.expanded = ck.expanded;
        self.disk.resumed_from = Some(ck.expanded);
        self.best_home = ck.best_home;
        self.disk.classes = ck.classes_on_disk;
        self.classes = ck.classes;
        self.pending_spilled = true;
        for (level, list) in ck.pending {
            let c = &mut self.pending[level];
            for (class, len) in list {
                c.index.insert(class, c.list.len());
                c.list.push(len.map(|_| Pending::new(true)));
                c.class.push(class);
            }
        }
        let class = ck.class.map(|c| {
            // Its stored keys are the partitions' files, cut back to the checkpoint.
            self.current_class = c.class;
            self.on_disk = true;
            self.disk_stored = c.visited.iter().sum();
            let want = self.spill.as_ref().map_or(0, Spill::cache_bytes);
            if self.room(want) {
                self.spill.as_mut().expect("a directory").make_cache();
            }
            InClass {
                k: c.k,
                start: c.start as usize,
                next: c.next as usize,
            }
        });
        Ok((ck.level, ck.next, class))
    }

    /// The search written out, for checkpoints: the deal (its rules included), the
    /// reductions and the key width.
    pub(super) fn description(&self) -> String {
        format!("{:?} {:?} W{W}", self.deal, self.prune)
    }

    /// Stores the entries of pending class `k` of `level`, which is on disk: its file's
    /// records, then `rest` (gathered since the last write), each played from its parent to
    /// find its key, and stored once (see "Out of core").
    pub(super) fn enter_from_disk(
        &mut self,
        level: usize,
        k: usize,
        rest: Vec<Rec>,
    ) -> Result<(), Halt> {
        let mut block = Vec::new();
        let mut from = 0;
        loop {
            let spill = self
                .spill
                .as_mut()
                .expect("a spilled class has a directory");
            if let Err(e) = spill.pending_records(level, k, from, &mut block) {
                return Err(self.disk_failed(e));
            }
            if block.is_empty() {
                break;
            }
            from += block.len() as u64;
            self.check_clock()?;
            for &r in &block {
                self.enter(r)?;
            }
        }
        for r in rest {
            self.enter(r)?;
        }
        let spill = self
            .spill
            .as_mut()
            .expect("a spilled class has a directory");
        spill
            .drop_pending(level, k)
            .map_err(|e| self.disk_failed(e))
    }
}
