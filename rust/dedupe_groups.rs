//! The shingles two or more items share, found without a large hash table: (hash, item) pairs
//! scattered into partitions by their top bits, each partition grouped in cache, and the groups
//! numbered in the global order of prefix filtering and handed to their items.

use rayon::prelude::*;

/// Number of partitions for finding shared shingles; each holds a few thousand pairs at 10k
/// items, small enough to sort in cache.
const PARTITION_BITS: u32 = 10;
const PARTITIONS: usize = 1 << PARTITION_BITS;

/// The shingles that two or more items share, as groups numbered in the global order:
/// frequency (the number of items holding it, at least 2) ascending, then hash.
///
/// `freq[g]` is the frequency of group `g`, and `of_item[item_starts[r]..item_starts[r + 1]]`
/// the groups of the item of rank `r` in ascending order: rarest first. Shingles held by one
/// item only are left out: they cannot add to any overlap, and in the global order they come
/// before every shared shingle (frequency 1), so a prefix of an item's full order is its unique
/// shingles followed by a prefix of its shared ones. Numbering groups in that order (rather than
/// by hash) puts the shingles of one template or footer, which have about the same frequency,
/// next to each other, so an item's common shingles fill a few 64-bit words (`dedupe_blocks`).
///
/// How it got here (dedupe of 10k items of 150 words, native): one hash map from every shingle
/// to the kept items holding it missed the cache on nearly every access (~170 ms); resolving
/// shared shingles per partition with small hash maps and then a map over the shared ones only
/// (~60 ms at 10k, but 1.1 s of 1.6 s at 100k in those two steps); now pairs are scattered into
/// partitions by the top bits of the hash, each partition is sorted in cache (in parallel), and
/// groups are handed to items with a counting sort, so nothing random touches a large table.
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

/// `shingles[r]` are the distinct shingle hashes of the item of rank `r`.
pub fn shared_groups(shingles: &[Vec<u64>]) -> Groups {
    let bucket = |h: u64| (h >> (64 - PARTITION_BITS)) as usize; // the top bits
    let mut part_starts = vec![0usize; PARTITIONS + 1];
    for hs in shingles {
        for &h in hs {
            part_starts[bucket(h) + 1] += 1;
        }
    }
    for p in 0..PARTITIONS {
        part_starts[p + 1] += part_starts[p];
    }
    // the (hash, item) pairs by partition, as two arrays: 12 bytes a shingle, not the 16 of a
    // padded tuple (the largest allocation of a call: 70 MB instead of 93 at 40k items)
    let total = part_starts[PARTITIONS];
    let (mut hashes, mut owners) = (vec![0u64; total], vec![0u32; total]);
    let mut next = part_starts.clone();
    for (r, hs) in shingles.iter().enumerate() {
        for &h in hs {
            let at = &mut next[bucket(h)];
            hashes[*at] = h;
            owners[*at] = r as u32;
            *at += 1;
        }
    }
    let parts: Vec<(&[u64], &[u32])> = part_starts
        .windows(2)
        .map(|w| (&hashes[w[0]..w[1]], &owners[w[0]..w[1]]))
        .collect();
    // per partition: the member lists of its shared shingles, one after another, and where
    // each group starts within them
    let per_part: Vec<(Vec<u32>, Vec<u32>)> = parts
        .into_par_iter()
        .map_init(Vec::new, |scratch, (hs, rs)| {
            let part = sort_by_hash(hs, rs, scratch);
            let (mut members, mut starts) = (Vec::new(), Vec::new());
            let mut k = 0;
            while k < part.len() {
                let mut end = k + 1;
                while end < part.len() && part[end].0 == part[k].0 {
                    end += 1;
                }
                if end - k > 1 {
                    starts.push(members.len() as u32);
                    members.extend(part[k..end].iter().map(|&(_, r)| r));
                }
                k = end;
            }
            (members, starts)
        })
        .collect();
    drop((hashes, owners));

    let mut starts: Vec<u32> = Vec::new();
    let mut members: Vec<u32> = Vec::new();
    for (part_members, part_starts) in per_part {
        let base = members.len() as u32;
        starts.extend(part_starts.iter().map(|&s| base + s));
        members.extend_from_slice(&part_members);
    }
    starts.push(members.len() as u32);

    // the global order: a counting sort of the groups (hash order) by frequency, stable
    let hash_freq: Vec<u32> = starts.windows(2).map(|w| w[1] - w[0]).collect();
    let mut freq_starts = vec![0u32; shingles.len() + 2];
    for &f in &hash_freq {
        freq_starts[f as usize + 1] += 1;
    }
    for f in 0..freq_starts.len() - 1 {
        freq_starts[f + 1] += freq_starts[f];
    }
    let mut rank = vec![0u32; hash_freq.len()];
    let mut freq = vec![0u32; hash_freq.len()];
    for (g, &f) in hash_freq.iter().enumerate() {
        let at = &mut freq_starts[f as usize];
        rank[g] = *at;
        freq[*at as usize] = f;
        *at += 1;
    }
    drop(hash_freq);

    // counting sort of (item, group) by item
    let n = shingles.len();
    let mut item_starts = vec![0u32; n + 1];
    for &m in &members {
        item_starts[m as usize + 1] += 1;
    }
    for r in 0..n {
        item_starts[r + 1] += item_starts[r];
    }
    let mut cursor = item_starts.clone();
    let mut of_item = vec![0u32; members.len()];
    for g in 0..starts.len() - 1 {
        for &m in &members[starts[g] as usize..starts[g + 1] as usize] {
            of_item[cursor[m as usize] as usize] = rank[g];
            cursor[m as usize] += 1;
        }
    }
    drop((members, starts, rank));
    let bounds: Vec<usize> = item_starts.iter().map(|&s| s as usize).collect();
    split_at_starts(&mut of_item, &bounds)
        .into_par_iter()
        .for_each(|mine| mine.sort_unstable());
    Groups {
        freq,
        item_starts,
        of_item,
    }
}

/// The pairs of one partition in ascending hash order (member order within a hash does not
/// matter): one counting pass on the hash bits below the partition's, then tiny sorts. Lost to
/// it: `sort_unstable_by_key` on the whole partition (prepare of 40k plain candidates 303 ms
/// CPU, against 263-276 ms; 20k 150 against 135). Then the pairs as two arrays instead of one
/// of padded tuples: 242-253 ms (20k 119). Written and dropped: scattering the pairs into the
/// partitions on all cores (each chunk of items into its own run of every partition): no
/// change in CPU time, and a wall-clock gain (at most the scatter's ~25 ms halved) that this
/// machine's load made unmeasurable.
fn sort_by_hash<'a>(
    hashes: &[u64],
    owners: &[u32],
    scratch: &'a mut Vec<(u64, u32)>,
) -> &'a [(u64, u32)] {
    scratch.clear();
    if hashes.len() < 64 {
        scratch.extend(hashes.iter().copied().zip(owners.iter().copied()));
        scratch.sort_unstable_by_key(|&(h, _)| h);
        return scratch;
    }
    let bits = (usize::BITS - hashes.len().leading_zeros()).min(14); // ~1 pair per bucket
    let (shift, mask) = (64 - PARTITION_BITS - bits, (1usize << bits) - 1);
    let bucket = |h: u64| (h >> shift) as usize & mask;
    let mut starts = vec![0u32; mask + 2];
    for &h in hashes {
        starts[bucket(h) + 1] += 1;
    }
    for b in 0..=mask {
        starts[b + 1] += starts[b];
    }
    scratch.resize(hashes.len(), (0, 0));
    let mut next = starts.clone();
    for (&h, &r) in hashes.iter().zip(owners) {
        let at = &mut next[bucket(h)];
        scratch[*at as usize] = (h, r);
        *at += 1;
    }
    for w in starts.windows(2) {
        if w[1] - w[0] > 1 {
            scratch[w[0] as usize..w[1] as usize].sort_unstable_by_key(|&(h, _)| h);
        }
    }
    scratch
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
    fn partitions_come_out_in_hash_order_with_every_pair() {
        let mut scratch = Vec::new();
        for len in [0usize, 1, 63, 64, 1000, 20_000] {
            // one partition: the same top bits, the rest spread, with repeats
            let part: Vec<(u64, u32)> = (0..len as u64)
                .map(|j| {
                    let h = (j % 700).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> PARTITION_BITS;
                    ((5 << (64 - PARTITION_BITS)) | h, j as u32)
                })
                .collect();
            let mut expected = part.clone();
            expected.sort_unstable();
            let (hs, rs): (Vec<u64>, Vec<u32>) = part.iter().copied().unzip();
            let mut got = sort_by_hash(&hs, &rs, &mut scratch).to_vec();
            assert!(got.windows(2).all(|w| w[0].0 <= w[1].0), "{len}");
            got.sort_unstable();
            assert_eq!(got, expected, "{len}");
        }
    }
}
