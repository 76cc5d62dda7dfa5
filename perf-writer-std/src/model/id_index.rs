//! [`IdIndex`]: which event description owns each sample id.

use rustc_hash::FxHashMap;
use std::collections::hash_map::Entry;

/// Sample ids, each to the index of the description that owns it.
///
/// Ids usually arrive in ascending order (the kernel's ids are a counter, and so are most
/// writers'), a description's ids often contiguous. An id above every id seen so far extends
/// the last run of a sorted list, or starts a new one: no hashing and, for contiguous ids,
/// no memory per id. Only an id at or below the highest seen goes to a hash map (after a
/// lookup for a duplicate). Adding 10,000 descriptions of 16 ids each was dominated by
/// inserting their 160,000 ids into a hash map (see BENCHMARKS.md).
#[derive(Debug, Default)]
pub(crate) struct IdIndex {
    /// Ascending and disjoint; the last one ends at the highest id claimed.
    runs: Vec<IdRun>,
    /// Ids that arrived at or below the highest id claimed before them.
    others: FxHashMap<u64, u32>,
}

/// The ids `first..=last`, all owned by description `desc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct IdRun {
    first: u64,
    last: u64,
    desc: u32,
}

/// The state of the runs before a [`IdIndex::claim`], to give its ids back.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClaimMark {
    runs: usize,
    last: Option<u64>,
}

impl IdIndex {
    /// No id was claimed.
    pub(crate) fn is_empty(&self) -> bool {
        self.runs.is_empty() && self.others.is_empty()
    }

    /// The description that owns `id`.
    pub(crate) fn get(&self, id: u64) -> Option<u32> {
        let after = self.runs.partition_point(|r| r.first <= id);
        if let Some(r) = after.checked_sub(1).and_then(|i| self.runs.get(i)) {
            if id <= r.last {
                return Some(r.desc);
            }
        }
        self.others.get(&id).copied()
    }

    /// Gives every id of `ids` to description `desc`. Refuses (with the first id already
    /// owned, by another description or earlier in `ids`) and changes nothing if one is
    /// taken. On success, the mark gives the ids back with [`release`](Self::release).
    pub(crate) fn claim(&mut self, ids: &[u64], desc: u32) -> Result<ClaimMark, u64> {
        let mark = ClaimMark {
            runs: self.runs.len(),
            last: self.runs.last().map(|r| r.last),
        };
        if self.claim_as_one_run(ids, desc) {
            return Ok(mark);
        }
        for (n, &id) in ids.iter().enumerate() {
            if !self.insert(id, desc) {
                self.release(mark, ids.get(..n).unwrap_or(&[]));
                return Err(id);
            }
        }
        Ok(mark)
    }

    /// Gives back `ids`, claimed since `mark` was taken (and nothing else since).
    pub(crate) fn release(&mut self, mark: ClaimMark, ids: &[u64]) {
        // Ids above the old highest went to the runs, at their end: cut them off. The others
        // were not in the map before (they would have been refused), so remove them all.
        self.runs.truncate(mark.runs);
        if let (Some(r), Some(last)) = (self.runs.last_mut(), mark.last) {
            r.last = last;
        }
        if !self.others.is_empty() {
            for id in ids {
                self.others.remove(id);
            }
        }
    }

    /// The commonest claim in one step: `ids` contiguous and ascending, above every id
    /// claimed, become one new run. False (nothing claimed) for any other `ids`.
    fn claim_as_one_run(&mut self, ids: &[u64], desc: u32) -> bool {
        let (Some(&first), Some(&last)) = (ids.first(), ids.last()) else {
            return false;
        };
        let above = self.runs.last().is_none_or(|r| first > r.last);
        let contiguous = ids
            .iter()
            .enumerate()
            .all(|(k, &id)| id == first.wrapping_add(k as u64));
        if !above || !contiguous || last < first {
            return false;
        }
        self.runs.push(IdRun { first, last, desc });
        true
    }

    /// Claims one id; false when it is taken.
    fn insert(&mut self, id: u64, desc: u32) -> bool {
        match self.runs.last_mut() {
            Some(r) if id <= r.last => {
                if self.get(id).is_some() {
                    return false;
                }
                match self.others.entry(id) {
                    Entry::Vacant(v) => {
                        v.insert(desc);
                        true
                    }
                    Entry::Occupied(_) => false,
                }
            }
            // `r.last < id`, so `r.last + 1` does not overflow.
            Some(r) if r.desc == desc && id == r.last.wrapping_add(1) => {
                r.last = id;
                true
            }
            _ => {
                self.runs.push(IdRun {
                    first: id,
                    last: id,
                    desc,
                });
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Claims `descs` in order into an index and into a plain map, and checks that both
    /// agree on every refusal and every owner.
    fn check_against_map(descs: &[Vec<u64>]) {
        let mut index = IdIndex::default();
        let mut map: HashMap<u64, u32> = HashMap::new();
        for (d, ids) in descs.iter().enumerate() {
            let d = d as u32;
            let mut seen = std::collections::HashSet::new();
            let expected = ids
                .iter()
                .find(|id| map.contains_key(id) || !seen.insert(**id))
                .copied();
            let got = index.claim(ids, d);
            assert_eq!(got.err(), expected, "desc {d}: {ids:?}");
            if expected.is_none() {
                map.extend(ids.iter().map(|&id| (id, d)));
            }
            for (&id, &owner) in &map {
                assert_eq!(index.get(id), Some(owner), "id {id}");
            }
            for id in ids {
                assert_eq!(index.get(*id), map.get(id).copied(), "id {id}");
            }
        }
    }

    #[test]
    fn contiguous_ascending_ids_are_runs() {
        let descs: Vec<Vec<u64>> = (0..100).map(|d| (d * 16..d * 16 + 16).collect()).collect();
        check_against_map(&descs);
        let mut index = IdIndex::default();
        for (d, ids) in descs.iter().enumerate() {
            index.claim(ids, d as u32).unwrap();
        }
        assert_eq!(index.runs.len(), 100, "one run per description");
        assert!(index.others.is_empty());
        assert_eq!(index.get(1600), None);
        assert_eq!(index.get(1599), Some(99));
        // Ids that wrap around are not one run.
        check_against_map(&[vec![u64::MAX, 0], vec![u64::MAX - 2, u64::MAX - 1]]);
        check_against_map(&[vec![u64::MAX - 1, u64::MAX, 0, 1]]);
    }

    #[test]
    fn duplicates_are_refused_and_change_nothing() {
        check_against_map(&[
            vec![1, 2, 3],
            vec![4, 5, 2],      // 2 taken: 4 and 5 given back
            vec![4, 5],         // now free
            vec![10, 8, 8],     // twice in one call, below the highest
            vec![10, 11, 10],   // twice in one call, above it
            vec![7, 9, 6, 100], // below the highest, in the gaps
            vec![9],
            vec![0, u64::MAX],
            vec![u64::MAX - 1, u64::MAX],
            vec![u64::MAX - 1],
        ]);
    }

    #[test]
    fn a_release_restores_the_extended_run() {
        let mut index = IdIndex::default();
        index.claim(&[1, 2], 0).unwrap();
        let mark = index.claim(&[3, 4, 0], 0).unwrap();
        index.release(mark, &[3, 4, 0]);
        assert_eq!(
            index.runs,
            [IdRun {
                first: 1,
                last: 2,
                desc: 0
            }]
        );
        assert!(index.others.is_empty());
        assert_eq!(index.get(3), None);
        index.claim(&[3], 1).unwrap();
        assert_eq!(index.get(3), Some(1));
    }

    #[test]
    fn random_ids_agree_with_a_map() {
        // A small xorshift generator: ids from a narrow range, so that duplicates, gaps and
        // out-of-order ids are all common.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let descs: Vec<Vec<u64>> = (0..300)
            .map(|_| {
                let len = (next() % 6) as usize;
                let base = next() % 400;
                (0..len)
                    .map(|k| match next() % 3 {
                        0 => base + k as u64,
                        _ => next() % 500,
                    })
                    .collect()
            })
            .collect();
        check_against_map(&descs);
    }
}
