//! [`RecentRecord`]: the last SAMPLE a group of records written before their description
//! took, kept so that the next one, usually the same bytes but for a time or a cpu, is
//! judged and added by the 8-byte chunks where it differs from it alone: every fact a group
//! keeps is the same after the same bytes are added again.

/// The longest record kept: its chunks are the bits of a `u64`.
pub(crate) const RECENT_MAX: usize = 64 * 8;

/// A group's last SAMPLE, and the trace it matched (see the module).
#[derive(Clone, Debug)]
pub(crate) struct RecentRecord {
    bytes: [u8; RECENT_MAX],
    /// Its length; 0: none kept.
    len: usize,
    /// The group's trace it matched.
    trace: usize,
}

impl Default for RecentRecord {
    fn default() -> Self {
        RecentRecord {
            bytes: [0; RECENT_MAX],
            len: 0,
            trace: 0,
        }
    }
}

impl RecentRecord {
    /// Keeps `record`, which matched trace `trace`, when it is short enough and a whole
    /// number of chunks; else keeps none.
    pub(crate) fn set(&mut self, record: &[u8], trace: usize) {
        match self.bytes.get_mut(..record.len()) {
            Some(kept) if record.len() % 8 == 0 => {
                kept.copy_from_slice(record);
                self.len = record.len();
                self.trace = trace;
            }
            _ => self.clear(),
        }
    }

    /// Keeps none.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// The chunks (bit `k`: bytes `8k..8k + 8`) where `record` differs from the record
    /// kept, and its trace, when one of its length is kept.
    #[inline]
    pub(crate) fn changes(&self, record: &[u8]) -> Option<(usize, u64)> {
        if record.len() != self.len || self.len == 0 {
            return None;
        }
        let kept = self.bytes.get(..self.len)?;
        let mut changed = 0u64;
        // Two chunks at a time: most pairs are the same.
        let (pairs, rest) = (kept.chunks_exact(16), record.chunks_exact(16));
        let last = (pairs.remainder(), rest.remainder());
        for (k, (a, b)) in pairs.zip(rest).enumerate() {
            let (Some(a), Some(b)) = (a.first_chunk::<16>(), b.first_chunk::<16>()) else {
                continue;
            };
            let differ = u128::from_ne_bytes(*a) ^ u128::from_ne_bytes(*b);
            if differ != 0 {
                let low = u64::from(differ as u64 != 0);
                let high = u64::from((differ >> 64) as u64 != 0);
                // The pair's chunks in memory order, whatever the machine's byte order.
                let (first, second) = match cfg!(target_endian = "little") {
                    true => (low, high),
                    false => (high, low),
                };
                changed |= (first | second << 1) << (2 * k);
            }
        }
        if last.0 != last.1 {
            changed |= 1 << (self.len / 8 - 1);
        }
        Some((self.trace, changed))
    }

    /// `record`, of the length kept, differs from it in the chunks `changed` (as
    /// [`changes`](Self::changes) found): it is kept instead.
    pub(crate) fn update(&mut self, record: &[u8], changed: u64) {
        let mut left = changed;
        while left != 0 {
            let at = left.trailing_zeros() as usize * 8;
            left &= left - 1;
            let (Some(to), Some(from)) = (
                self.bytes
                    .get_mut(at..)
                    .and_then(|b| b.first_chunk_mut::<8>()),
                record.get(at..).and_then(|r| r.first_chunk::<8>()),
            ) else {
                continue;
            };
            *to = *from;
        }
    }
}

/// The chunks (bits, as [`RecentRecord::changes`] counts them) that bytes `a..b` lie in.
#[inline]
pub(crate) fn chunks_of(a: usize, b: usize) -> u64 {
    if a >= b {
        return 0;
    }
    let (first, last) = (a / 8, (b - 1) / 8);
    // Beyond the 64 chunks of a kept record: every chunk (never asked of one).
    if last >= 64 {
        return u64::MAX;
    }
    (u64::MAX >> (63 - last)) & (u64::MAX << first)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // test code: a failed unwrap fails the test
mod tests {
    use super::*;

    #[test]
    fn changes_name_the_chunks_that_differ() {
        let mut recent = RecentRecord::default();
        let a: Vec<u8> = (0..48).collect();
        assert_eq!(recent.changes(&a), None);
        recent.set(&a, 3);
        assert_eq!(recent.changes(&a), Some((3, 0)));
        let mut b = a.clone();
        b[9] = 0xff;
        b[47] = 0xff;
        assert_eq!(recent.changes(&b), Some((3, 0b100010)));
        recent.update(&b, 0b100010);
        assert_eq!(recent.changes(&b), Some((3, 0)));
        assert_eq!(recent.changes(&b[..40]), None);
        // An odd number of chunks: the last one alone.
        recent.set(&a[..40], 2);
        let mut d = a[..40].to_vec();
        d[3] = 0xff;
        d[35] = 0xff;
        assert_eq!(recent.changes(&d), Some((2, 0b10001)));
        // Too long, or not whole chunks: none kept.
        recent.set(&[0; RECENT_MAX + 8], 0);
        assert_eq!(recent.changes(&[0; RECENT_MAX + 8]), None);
        recent.set(&[0; 20], 0);
        assert_eq!(recent.changes(&[0; 20]), None);
        recent.set(&[7; RECENT_MAX], 1);
        let mut c = [7; RECENT_MAX];
        c[RECENT_MAX - 1] = 0;
        assert_eq!(recent.changes(&c), Some((1, 1 << 63)));
    }

    #[test]
    fn chunks_of_a_range_are_those_it_touches() {
        assert_eq!(chunks_of(0, 0), 0);
        assert_eq!(chunks_of(5, 5), 0);
        assert_eq!(chunks_of(0, 8), 0b1);
        assert_eq!(chunks_of(7, 9), 0b11);
        assert_eq!(chunks_of(16, 40), 0b11100);
        assert_eq!(chunks_of(8, 512), u64::MAX - 1);
        assert_eq!(chunks_of(8, 520), u64::MAX);
    }
}
