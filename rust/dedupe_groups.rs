//! The shingles two or more items share, found without a large hash table: (hash, item) pairs
//! scattered into partitions by their top bits, each partition grouped in cache, and the groups
//! numbered in the global order of prefix filtering and handed to their items.

use crate::dedupe_index::MIN_SPLIT;
use crate::dedupe_scatter::{Chunk, PARTITIONS, PARTITION_BITS};
use rayon::prelude::*;

/// The shingles that two or more items share, as groups numbered in the global order of
/// prefix filtering: frequency (the number of items holding it, at least 2) ascending, then
/// the rank of its first holder, then hash. Any fixed tie-break keeps the filter exact (see
/// `dedupe.rs`); the first holder's rank puts the shingles an item shares with the same items
/// next to each other (a near-copy's ~60 shingles shared with its original get consecutive
/// numbers), so the visit's per-group arrays are read in runs and an item's groups fill few
/// 64-bit words (`dedupe_blocks`).
///
/// `freq[g]` is the frequency of group `g`, and `of_item[item_starts[r]..item_starts[r + 1]]`
/// the groups of the item of rank `r` in ascending order: rarest first. Shingles held by one
/// item only are left out: they cannot add to any overlap, and in the global order they come
/// before every shared shingle (frequency 1), so a prefix of an item's full order is its unique
/// shingles followed by a prefix of its shared ones.
///
/// How it got here (dedupe of 10k items of 150 words, native): one hash map from every shingle
/// to the kept items holding it missed the cache on nearly every access (~170 ms); resolving
/// shared shingles per partition with small hash maps and then a map over the shared ones only
/// (~60 ms at 10k, but 1.1 s of 1.6 s at 100k in those two steps); then pairs scattered into
/// partitions by the top bits of the hash, each partition sorted in cache (in parallel), and
/// groups handed to items with a counting sort, so nothing random touches a large table; now
/// the scatter is fused with the shingling (`dedupe_scatter.rs`), groups are numbered by two
/// counting passes, and handed to items in that order, so no item's list needs sorting.
pub struct Groups {
    pub freq: Vec<u32>,
    pub item_starts: Vec<u32>,
    pub of_item: Vec<u32>,
}

impl Groups {
    /// The groups of the item of rank `r`, rarest first.
    pub fn of(&self, r: usize) -> &[u32] {
        &self.of_item[self.item_starts[r] as usize..self.item_starts[r + 1] as usize]
    }

    pub fn frequency(&self, g: u32) -> u32 {
        self.freq[g as usize]
    }

    pub fn count(&self) -> usize {
        self.freq.len()
    }
}

/// One partition's shared shingles in hash order: the holders' ranks of each, ascending, one
/// group after another (`members[starts[g]..starts[g + 1]]`, `starts[0] == 0`).
struct Part {
    members: Vec<u32>,
    starts: Vec<u32>,
}

/// The shared shingles of the `n` items whose pairs `chunks` holds.
pub fn shared_groups(chunks: &[Chunk], n: usize) -> Groups {
    let parts: Vec<Part> = (0..PARTITIONS)
        .into_par_iter()
        .map_init(Scratch::default, |scratch, p| {
            group_partition(chunks.iter().flat_map(|c| c.runs(p)), scratch)
        })
        .collect();

    // every group's members in one array (hash order of the call), and where each starts
    let total_groups: usize = parts.iter().map(|p| p.starts.len() - 1).sum();
    let total_members: usize = parts.iter().map(|p| p.members.len()).sum();
    let mut starts: Vec<u32> = Vec::with_capacity(total_groups + 1);
    let mut members: Vec<u32> = Vec::with_capacity(total_members);
    for part in &parts {
        let base = members.len() as u32;
        starts.extend(
            part.starts[..part.starts.len() - 1]
                .iter()
                .map(|&s| base + s),
        );
        members.extend_from_slice(&part.members);
    }
    starts.push(members.len() as u32);
    drop(parts);

    // the global order: stable counting sorts by first holder, then by frequency
    let freq_of = |g: usize| starts[g + 1] - starts[g];
    let by_first = counting_order((0..total_groups as u32).collect(), n, |g| {
        members[starts[g as usize] as usize] as usize
    });
    let numbered = counting_order(by_first, n + 1, |g| freq_of(g as usize) as usize);
    let mut rank = vec![0u32; total_groups];
    let mut freq = vec![0u32; total_groups];
    for (at, &g) in numbered.iter().enumerate() {
        rank[g as usize] = at as u32;
        freq[at] = freq_of(g as usize);
    }
    drop(numbered);

    // hand the groups to their items: read in hash order, so only the writes are scattered
    // (reading them in the global order instead, so that no item's list would need sorting,
    // missed the cache on every group: 80 % of this function at 100k items), then sort each
    // item's list into the global order. Written and dropped: this hand-out in parallel, each
    // partition sorting its (holder, group) pairs into ranges of holders and a task per range
    // (~26 ms CPU of one thread at 100k here, all of it in the numbering and this loop): it
    // cost 1 ms more CPU at 10k and its wall-time gain did not show at a load of 8-9.
    let mut item_starts = vec![0u32; n + 1];
    for &m in &members {
        item_starts[m as usize + 1] += 1;
    }
    for r in 0..n {
        item_starts[r + 1] += item_starts[r];
    }
    let mut cursor = item_starts[..n].to_vec();
    let mut of_item = vec![0u32; members.len()];
    for (g, w) in starts.windows(2).enumerate() {
        for &m in &members[w[0] as usize..w[1] as usize] {
            let to = &mut cursor[m as usize];
            of_item[*to as usize] = rank[g];
            *to += 1;
        }
    }
    drop((members, starts, rank, cursor));
    let bounds: Vec<usize> = item_starts.iter().map(|&s| s as usize).collect();
    split_at_starts(&mut of_item, &bounds)
        .into_par_iter()
        .with_min_len(MIN_SPLIT)
        .for_each(|mine| mine.sort_unstable());
    Groups {
        freq,
        item_starts,
        of_item,
    }
}

/// `groups` reordered stably by `key(g)`, which is below `keys`.
#[inline(never)]
fn counting_order(groups: Vec<u32>, keys: usize, key: impl Fn(u32) -> usize) -> Vec<u32> {
    let mut at = vec![0u32; keys + 1];
    for &g in &groups {
        at[key(g) + 1] += 1;
    }
    for k in 0..keys {
        at[k + 1] += at[k];
    }
    let mut out = vec![0u32; groups.len()];
    for &g in &groups {
        let to = &mut at[key(g)];
        out[*to as usize] = g;
        *to += 1;
    }
    out
}

#[derive(Default)]
struct Scratch {
    /// `[seen, twice]` words of the filter, side by side: one cache line per pair's test
    bitmap: Vec<[u64; 2]>,
    candidates: Vec<(u64, u32)>,
    pairs: Vec<(u64, u32)>,
    buckets: Vec<u32>,
}

/// The shared shingles among one partition's runs.
///
/// Most shingles are held by one item, so a filter drops them first: each hash sets a bit of a
/// bitmap of at least 16 bits per pair (by the hash bits below the partition's), and a bit set
/// twice marks a possible repeat; only pairs on a marked bit (the shared ones and ~6 % of the
/// others) go on to be grouped. Both passes are branch-free and the bitmaps stay in L1.
/// Measured (`dedupe_phases.rs` on bench_engine's corpus, CPU time of the whole grouping, load
/// ~8): 100k items 91 ms, against 120 ms grouping every pair as `group_pairs` does; 10k 9.0
/// against 11.5 ms. Then the two bitmaps side by side, indices masked so the bitmap needs no
/// bounds check, scratch that is not zeroed again, and a bucket of two taken without a sort:
/// 8.1M -> 6.8M instructions for a 1k-item call's 256 partitions (callgrind, one thread).
#[inline(never)]
fn group_partition<'a>(
    runs: impl Iterator<Item = (&'a [u64], &'a [u32])> + Clone,
    scratch: &mut Scratch,
) -> Part {
    let len: usize = runs.clone().map(|(h, _)| h.len()).sum();
    let Scratch {
        bitmap,
        candidates,
        pairs,
        buckets,
    } = scratch;
    let bits = (usize::BITS - len.leading_zeros() + 4).clamp(6, 24);
    let (shift, mask) = (64 - PARTITION_BITS - bits, (1usize << bits) - 1);
    let words = 1usize << (bits - 6);
    bitmap.clear();
    bitmap.resize(words, [0, 0]);
    let bitmap = &mut bitmap[..words];
    for (hs, _) in runs.clone() {
        for &h in hs {
            let i = (h >> shift) as usize & mask;
            let w = &mut bitmap[(i >> 6) & (words - 1)];
            let b = 1u64 << (i & 63);
            w[1] |= w[0] & b;
            w[0] |= b;
        }
    }
    if candidates.len() < len {
        candidates.resize(len, (0, 0));
    }
    let mut kept = 0;
    for (hs, rs) in runs {
        for (&h, &r) in hs.iter().zip(rs) {
            let i = (h >> shift) as usize & mask;
            candidates[kept] = (h, r);
            kept += (bitmap[(i >> 6) & (words - 1)][1] >> (i & 63) & 1) as usize;
        }
    }
    group_pairs(&mut candidates[..kept], pairs, buckets)
}

/// The groups among `candidates`: one counting pass on the hash bits below the partition's
/// puts equal hashes in the same small bucket; a bucket of two or more is then sorted by hash,
/// and its runs of equal hashes are the groups, their holders in rank order. Lost to it:
/// `sort_unstable_by_key` on the whole partition (prepare of 40k plain candidates 303 ms CPU,
/// against 263-276 ms; 20k 150 against 135). Then the pairs as two arrays instead of one of
/// padded tuples: 242-253 ms (20k 119).
fn group_pairs(
    candidates: &mut [(u64, u32)],
    pairs: &mut Vec<(u64, u32)>,
    buckets: &mut Vec<u32>,
) -> Part {
    let len = candidates.len();
    // at most one group per two candidates
    let (mut members, mut starts) = (Vec::with_capacity(len), Vec::with_capacity(len / 2 + 1));
    starts.push(0u32);
    if len < 64 {
        candidates.sort_unstable_by_key(|&(h, _)| h);
        collect_groups(candidates, &mut members, &mut starts);
        return Part { members, starts };
    }
    // about one pair in two buckets, so most buckets hold at most one
    let bits = (usize::BITS - len.leading_zeros() + 1).min(16);
    let (shift, mask) = (64 - PARTITION_BITS - bits, (1usize << bits) - 1);
    let bucket = |h: u64| (h >> shift) as usize & mask;
    buckets.clear();
    buckets.resize(mask + 1, 0);
    for &(h, _) in candidates.iter() {
        buckets[bucket(h)] += 1;
    }
    let mut sum = 0u32;
    for b in buckets.iter_mut() {
        let c = *b;
        *b = sum;
        sum += c;
    }
    if pairs.len() < len {
        pairs.resize(len, (0, 0));
    }
    for &(h, r) in candidates.iter() {
        let to = &mut buckets[bucket(h)];
        pairs[*to as usize] = (h, r);
        *to += 1;
    }
    // buckets[b] is now the end of bucket b
    let mut begin = 0usize;
    for &end in buckets.iter() {
        let end = end as usize;
        match end - begin {
            0 | 1 => {}
            2 => {
                // the common case: one shingle two items share, or two that only share a bucket
                let (a, b) = (pairs[begin], pairs[begin + 1]);
                if a.0 == b.0 {
                    members.extend([a.1.min(b.1), a.1.max(b.1)]);
                    starts.push(members.len() as u32);
                }
            }
            _ => {
                let run = &mut pairs[begin..end];
                run.sort_unstable_by_key(|&(h, _)| h);
                collect_groups(run, &mut members, &mut starts);
            }
        }
        begin = end;
    }
    Part { members, starts }
}

/// Appends the runs of two or more equal hashes of `sorted` as groups.
fn collect_groups(sorted: &[(u64, u32)], members: &mut Vec<u32>, starts: &mut Vec<u32>) {
    let mut k = 0;
    while k < sorted.len() {
        let mut end = k + 1;
        while end < sorted.len() && sorted[end].0 == sorted[k].0 {
            end += 1;
        }
        if end - k > 1 {
            let from = members.len();
            members.extend(sorted[k..end].iter().map(|&(_, r)| r));
            members[from..].sort_unstable();
            starts.push(members.len() as u32);
        }
        k = end;
    }
}

/// `v[starts[p]..starts[p + 1]]` as separate mutable slices, for sorting them in parallel.
fn split_at_starts<'a, T>(v: &'a mut [T], starts: &[usize]) -> Vec<&'a mut [T]> {
    let mut out = Vec::with_capacity(starts.len().saturating_sub(1));
    let mut rest = v;
    for w in starts.windows(2) {
        let (head, tail) = rest.split_at_mut(w[1] - w[0]);
        out.push(head);
        rest = tail;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partition_yields_every_shared_hash_with_its_holders_in_rank_order() {
        let mut scratch = Scratch::default();
        for len in [0usize, 1, 63, 64, 1000, 20_000] {
            // one partition: the same top bits, the rest spread, with repeats; two runs of
            // ranks (as two chunks give), each in rank order
            let pair = |j: usize| {
                let h = ((j % 700) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> PARTITION_BITS;
                ((5 << (64 - PARTITION_BITS)) | h, j as u32)
            };
            let (a, b): (Vec<_>, Vec<_>) =
                (0..len).map(pair).partition(|&(_, r)| r < len as u32 / 2);
            let (ah, ar): (Vec<u64>, Vec<u32>) = a.into_iter().unzip();
            let (bh, br): (Vec<u64>, Vec<u32>) = b.into_iter().unzip();
            let runs = [(&ah[..], &ar[..]), (&bh[..], &br[..])];
            let part = group_partition(runs.iter().copied(), &mut scratch);
            let mut expected: std::collections::BTreeMap<u64, Vec<u32>> = Default::default();
            for j in 0..len {
                let (h, r) = pair(j);
                expected.entry(h).or_default().push(r);
            }
            let expected: Vec<Vec<u32>> = expected.into_values().filter(|m| m.len() > 1).collect();
            let got: Vec<Vec<u32>> = part
                .starts
                .windows(2)
                .map(|w| part.members[w[0] as usize..w[1] as usize].to_vec())
                .collect();
            assert_eq!(got, expected, "{len}");
        }
    }
}
