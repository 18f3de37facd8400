//! The first pass of a dedupe call, fused: shingle each text and scatter its (hash, rank) pairs
//! into partitions by the top bits of the hash, per chunk of items, on all cores.
//!
//! Items are read in the order they sit in memory (not in visit order, which jumps: at 100k
//! items a miss on every item and on its id), a batch of texts at a time into one flat buffer
//! that stays in cache (no vector per text), and each pair goes straight into its partition's
//! region of the chunk. Partition `p` of the call is the union of every chunk's region `p`
//! (`dedupe_groups.rs` groups each partition on its own). A few chunks per thread, so that a
//! region is long enough (hundreds of pairs at 100k) to be read back at streaming speed.
//!
//! What this replaced (100k candidates of bench_engine's corpus, native, wall time on 2 cores,
//! load ~4): one vector of shingles per text, in visit order (135 ms of shingling where
//! shingling alone takes 55-70 ms, and 17 ms to free them), then a sequential counting pass and
//! scatter of every pair into the partitions (64 ms). Lost on the way: chunks of 128 items, each
//! scattered by a counting pass into runs of its own (runs of ~20 pairs at 100k, 1024 x 800 of
//! them: every run read back was a cache miss, grouping 120 -> 159 ms CPU at 100k); a vector
//! per partition and chunk instead of the regions (2 x 1024 vectors a chunk, in visit order:
//! 377 ms CPU at 100k against 347 with the regions, load 9); visit order kept for this pass
//! (a miss on each item and its id: the pass took 1.97x the shingling floor's CPU time at 100k,
//! against 1.86x in input order; load 8-9, so only the ratio is worth quoting).

use crate::dedupe::Item;
use crate::dedupe_index::MIN_SPLIT;
use crate::text::{content_hash, shingle_set_into};
use rayon::prelude::*;
use std::sync::Mutex;
use xxhash_rust::xxh3::xxh3_64;

/// 256 partitions: at 100k items ~30k pairs each (grouped in L2), and the scatter writes 512
/// streams, which the caches and TLB hold. With 1024 (8k pairs each) the scatter cost 0.34 of
/// the shingling's CPU time at 100k and grouping 0.31, against 0.27 and 0.29 now; at 10k, 32
/// or 64 partitions measured no better than 256 (perf samples, relative to shingling, load 9).
/// Lost too (issue 15, sixth session): 16 partitions for a 1k-item call, where 256 regions of
/// ~300 pairs and 256 grouping tasks looked like overhead: callgrind of `dedupe_phases` on 1k
/// candidates of bench_engine's corpus 497.0M -> 489.6M instructions (-1.5 %), not worth a
/// partition count per call.
pub const PARTITION_BITS: u32 = 8;
pub const PARTITIONS: usize = 1 << PARTITION_BITS;

/// Items shingled into the flat buffer before it is scattered: ~10k pairs, so the buffer is
/// still in cache when it is read again.
const BATCH_ITEMS: usize = 128;

/// Chunks per thread: a few, so a slow core does not hold the others up, and each run of a
/// partition is long enough (hundreds of pairs at 100k items) to be read at the memory's
/// streaming speed rather than a miss per run.
const CHUNKS_PER_THREAD: usize = 4;

pub fn partition_of(h: u64) -> usize {
    (h >> (64 - PARTITION_BITS)) as usize
}

/// Regions of pairs freed by earlier calls, kept for the next: the regions are the largest
/// memory a call touches, and fresh pages cost a fault each (at 10k items ~2,400 faults, 5-12
/// ms of system time a call, as much as a third of the kernel's CPU time). At most
/// `POOL_BYTES` are kept, so a call of ~40k items or more faults as before and a process keeps
/// no more than that after its largest call.
static POOL: Mutex<Vec<(Vec<u64>, Vec<u32>)>> = Mutex::new(Vec::new());
const POOL_BYTES: usize = 48 << 20;

/// Room for `len` pairs, from the pool when it holds a region large enough. A pooled region
/// keeps what the last call wrote (only `fill`'s part of a region is ever read, and it is
/// written first): zeroing it again cost a memset of 12 bytes a pair, 5 % of a 1k-item call's
/// instructions.
fn regions(len: usize) -> (Vec<u64>, Vec<u32>) {
    let reused = POOL.lock().ok().and_then(|mut pool| {
        let k = pool
            .iter()
            .position(|(h, o)| h.capacity() >= len && o.capacity() >= len)?;
        Some(pool.swap_remove(k))
    });
    let (mut hashes, mut owners) = reused.unwrap_or_default();
    hashes.resize(hashes.len().max(len), 0);
    owners.resize(owners.len().max(len), 0);
    (hashes, owners)
}

impl Drop for Chunk {
    fn drop(&mut self) {
        let (hashes, owners) = (
            std::mem::take(&mut self.hashes),
            std::mem::take(&mut self.owners),
        );
        let bytes = |h: &Vec<u64>, o: &Vec<u32>| h.capacity() * 8 + o.capacity() * 4;
        if let Ok(mut pool) = POOL.lock() {
            let held: usize = pool.iter().map(|(h, o)| bytes(h, o)).sum();
            if held + bytes(&hashes, &owners) <= POOL_BYTES {
                pool.push((hashes, owners));
            }
        }
    }
}

fn by_rank<T: Copy + Send + Sync>(v: &[T], order: &[usize]) -> Vec<T> {
    order
        .par_iter()
        .with_min_len(MIN_SPLIT)
        .map(|&i| v[i])
        .collect()
}

/// Lost (callgrind, one thread, a 10k-item call of bench_engine's corpus): `fill` as a fixed
/// array, so `fill[partition_of(h)]` needs no bounds check: 274.7M -> 272.7M instructions
/// (-0.7 %), not kept.
///
/// One chunk's pairs by partition: partition `p`'s are in its region
/// `p * room..p * room + fill[p]` of `hashes` (their items' ranks in `owners`), then, if the
/// region filled up, in `spill[p]`.
pub struct Chunk {
    room: usize,
    fill: Vec<u32>,
    hashes: Vec<u64>,
    owners: Vec<u32>,
    spill: Vec<(usize, Vec<u64>, Vec<u32>)>,
}

impl Chunk {
    #[inline]
    fn push(&mut self, h: u64, r: u32) {
        let p = partition_of(h);
        let at = self.fill[p] as usize;
        if at < self.room {
            self.hashes[p * self.room + at] = h;
            self.owners[p * self.room + at] = r;
            self.fill[p] += 1;
        } else {
            self.spilled(p, h, r);
        }
    }

    #[cold]
    fn spilled(&mut self, p: usize, h: u64, r: u32) {
        let k = match self.spill.iter().position(|s| s.0 == p) {
            Some(k) => k,
            None => {
                self.spill.push((p, Vec::new(), Vec::new()));
                self.spill.len() - 1
            }
        };
        self.spill[k].1.push(h);
        self.spill[k].2.push(r);
    }

    /// Partition `p`'s pairs: the region, then what spilled from it.
    pub fn runs(&self, p: usize) -> impl Iterator<Item = (&[u64], &[u32])> + Clone {
        let range = p * self.room..p * self.room + self.fill[p] as usize;
        let spilled = self.spill.iter().filter(move |s| s.0 == p);
        std::iter::once((&self.hashes[range.clone()], &self.owners[range]))
            .chain(spilled.map(|s| (&s.1[..], &s.2[..])))
    }
}

/// What the first pass knows of every item, by visit rank.
pub struct Shingled {
    pub chunks: Vec<Chunk>,
    /// Number of distinct shingles (0 for history).
    pub sizes: Vec<u32>,
    /// Content hash, for texts without words only.
    pub hashes: Vec<Option<u64>>,
    /// xxh3 of the id bytes (`None` for history items, which take no part in any match).
    pub ids: Vec<Option<u64>>,
}

pub fn shingle_chunks(items: &[Item], order: &[usize]) -> Shingled {
    let n = order.len();
    let mut rank_of = vec![0u32; n];
    for (r, &i) in order.iter().enumerate() {
        rank_of[i] = r as u32;
    }
    // by position first: the items are read in the order they sit in memory
    let (mut sizes, mut hashes, mut ids) = (vec![0u32; n], vec![None; n], vec![None; n]);
    let chunk = n
        .div_ceil(rayon::current_num_threads() * CHUNKS_PER_THREAD)
        .max(BATCH_ITEMS);
    let chunks: Vec<Chunk> = items
        .par_chunks(chunk)
        .zip(rank_of.par_chunks(chunk))
        .zip(sizes.par_chunks_mut(chunk))
        .zip(hashes.par_chunks_mut(chunk))
        .zip(ids.par_chunks_mut(chunk))
        .map(|((((items, ranks), sizes), hashes), ids)| {
            // room for about one pair per 4 bytes of text (a 5-word shingle per word) in each
            // partition's region: only what is written is ever touched, and what overflows a
            // region goes to a vector of its own
            let bytes: usize = items.iter().map(|it| it.text.len()).sum();
            let room = bytes / 4 / PARTITIONS + 8;
            let (region_hashes, region_owners) = regions(room * PARTITIONS);
            let mut out = Chunk {
                room,
                fill: vec![0u32; PARTITIONS],
                hashes: region_hashes,
                owners: region_owners,
                spill: Vec::new(),
            };
            let mut flat = Vec::new();
            for (b, batch) in items.chunks(BATCH_ITEMS).enumerate() {
                let at = b * BATCH_ITEMS;
                flat.clear();
                for (j, it) in batch.iter().enumerate() {
                    if it.history {
                        continue;
                    }
                    ids[at + j] = Some(xxh3_64(it.id));
                    let count = shingle_set_into(it.text, &mut flat);
                    // Texts with equal content hashes have equal word sequences, hence equal
                    // shingle sets and containment 1: for a text with words the hash match is
                    // always among its near matches. So the hash is computed only for texts
                    // without words, where it is the only way to match (the reference
                    // computes it for every text; the result is the same).
                    if count == 0 {
                        hashes[at + j] = content_hash(it.text);
                    }
                    sizes[at + j] = count as u32;
                }
                let mut from = 0;
                for (j, &size) in sizes[at..at + batch.len()].iter().enumerate() {
                    for &h in &flat[from..from + size as usize] {
                        out.push(h, ranks[at + j]);
                    }
                    from += size as usize;
                }
            }
            out
        })
        .collect();
    Shingled {
        chunks,
        sizes: by_rank(&sizes, order),
        hashes: by_rank(&hashes, order),
        ids: by_rank(&ids, order),
    }
}
