//! [`ChunkedVec`]: a list that grows without moving what it holds.

/// Elements per chunk after the first (an event description is ~220 bytes: ~55 KiB).
const CHUNK: usize = 256;

/// The first chunk's first capacity (it grows as a `Vec` does up to [`CHUNK`]).
const FIRST_CHUNK: usize = 4;

/// An append-only list stored in chunks of [`CHUNK`] elements. Growing never copies the
/// elements already in it, as a `Vec` does each time it doubles: for 10,000 event
/// descriptions that copy (and the fresh pages it touches) cost more than adding them.
#[derive(Debug)]
pub(crate) struct ChunkedVec<T> {
    /// Every chunk but the last is full (holds [`CHUNK`] elements).
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for ChunkedVec<T> {
    fn default() -> Self {
        ChunkedVec {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> ChunkedVec<T> {
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub(crate) fn push(&mut self, value: T) {
        match self.chunks.last_mut() {
            Some(last) if last.len() < CHUNK => last.push(value),
            // The first chunk grows as a `Vec` does (most files have a few events); the
            // others are allocated whole.
            Some(_) => self.chunks.push({
                let mut chunk = Vec::with_capacity(CHUNK);
                chunk.push(value);
                chunk
            }),
            None => self.chunks.push({
                let mut chunk = Vec::with_capacity(FIRST_CHUNK);
                chunk.push(value);
                chunk
            }),
        }
        self.len += 1;
    }

    pub(crate) fn get(&self, index: usize) -> Option<&T> {
        self.chunks.get(index / CHUNK)?.get(index % CHUNK)
    }

    pub(crate) fn first(&self) -> Option<&T> {
        self.chunks.first()?.first()
    }

    /// The elements from `start` on, in order (none when `start` is past the end).
    pub(crate) fn iter_from(&self, start: usize) -> impl Iterator<Item = &T> + '_ {
        let first_chunk = self.chunks.get(start / CHUNK..).unwrap_or(&[]);
        first_chunk.iter().flatten().skip(start % CHUNK)
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.iter_from(0)
    }

    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> + '_ {
        self.chunks.iter_mut().flatten()
    }
}

/// Elements per chunk of a [`SliceArena`] (a bigger slice gets a chunk of its own).
const ARENA_CHUNK: usize = 4096;

/// The first capacity of a [`SliceArena`]'s first chunk (it grows up to [`ARENA_CHUNK`]).
const FIRST_ARENA_CHUNK: usize = 256;

/// Where a [`SliceArena`] keeps one slice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ArenaSlice {
    chunk: usize,
    start: usize,
    len: usize,
}

/// Append-only storage of many small slices (the names and the ids of event descriptions)
/// in a few large chunks, instead of one heap allocation per slice. `C` is the chunk:
/// `Vec<T>` for slices `[T]`, `String` for `str`.
#[derive(Debug)]
pub(crate) struct SliceArena<C> {
    chunks: Vec<C>,
}

impl<C> Default for SliceArena<C> {
    fn default() -> Self {
        SliceArena { chunks: Vec::new() }
    }
}

/// A growable buffer a [`SliceArena`] appends to: `Vec<T>` or `String`.
pub(crate) trait Chunk {
    /// What one stored slice is: `[T]` or `str`.
    type Slice: ?Sized;
    fn with_capacity(capacity: usize) -> Self;
    fn len(&self) -> usize;
    fn capacity(&self) -> usize;
    fn slice_len(items: &Self::Slice) -> usize;
    fn append(&mut self, items: &Self::Slice);
    fn part(&self, start: usize, len: usize) -> Option<&Self::Slice>;
}

impl<T: Copy> Chunk for Vec<T> {
    type Slice = [T];
    fn with_capacity(capacity: usize) -> Self {
        Vec::with_capacity(capacity)
    }
    fn len(&self) -> usize {
        self.len()
    }
    fn capacity(&self) -> usize {
        self.capacity()
    }
    fn slice_len(items: &[T]) -> usize {
        items.len()
    }
    fn append(&mut self, items: &[T]) {
        self.extend_from_slice(items);
    }
    fn part(&self, start: usize, len: usize) -> Option<&[T]> {
        self.get(start..)?.get(..len)
    }
}

impl Chunk for String {
    type Slice = str;
    fn with_capacity(capacity: usize) -> Self {
        String::with_capacity(capacity)
    }
    fn len(&self) -> usize {
        self.len()
    }
    fn capacity(&self) -> usize {
        self.capacity()
    }
    fn slice_len(items: &str) -> usize {
        items.len()
    }
    fn append(&mut self, items: &str) {
        self.push_str(items);
    }
    fn part(&self, start: usize, len: usize) -> Option<&str> {
        self.get(start..)?.get(..len)
    }
}

impl<C: Chunk> SliceArena<C> {
    /// Stores a copy of `items`.
    pub(crate) fn push(&mut self, items: &C::Slice) -> ArenaSlice {
        // The first chunk grows as a `Vec` does (most files have a few events). Moving a
        // chunk would be harmless (slices are found by position, not by address); the
        // others are allocated whole so that they never need to.
        let len = C::slice_len(items);
        let last = self.chunks.len().saturating_sub(1);
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() + len <= ARENA_CHUNK.max(chunk.capacity()) => {
                let start = chunk.len();
                chunk.append(items);
                ArenaSlice {
                    chunk: last,
                    start,
                    len,
                }
            }
            full => {
                let first = if full.is_some() {
                    ARENA_CHUNK
                } else {
                    FIRST_ARENA_CHUNK
                };
                let capacity = first.max(len);
                let mut chunk = C::with_capacity(capacity);
                chunk.append(items);
                self.chunks.push(chunk);
                ArenaSlice {
                    chunk: self.chunks.len() - 1,
                    start: 0,
                    len,
                }
            }
        }
    }

    /// The slice stored at `at`; `None` only for a place this arena did not give.
    pub(crate) fn get(&self, at: ArenaSlice) -> Option<&C::Slice> {
        self.chunks.get(at.chunk)?.part(at.start, at.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_arena_gives_back_every_slice() {
        let mut arena = SliceArena::<Vec<u64>>::default();
        let mut kept = Vec::new();
        // Lengths around and above the chunk size, and empty slices.
        for n in (0..300).chain([ARENA_CHUNK - 1, ARENA_CHUNK, ARENA_CHUNK + 1, 0, 5]) {
            let items: Vec<u64> = (0..n as u64).map(|k| k * 1000 + n as u64).collect();
            let at = arena.push(&items);
            kept.push((at, items));
        }
        for (at, items) in &kept {
            assert_eq!(arena.get(*at), Some(items.as_slice()));
        }
        assert!(arena.chunks.len() > 2);
        let elsewhere = ArenaSlice {
            chunk: 99,
            start: 0,
            len: 1,
        };
        assert_eq!(arena.get(elsewhere), None);
    }

    #[test]
    fn a_string_arena_gives_back_every_str() {
        let mut arena = SliceArena::<String>::default();
        let names: Vec<String> = (0..2000).map(|n| format!("sys{n}:événement_{n}")).collect();
        let kept: Vec<ArenaSlice> = names.iter().map(|n| arena.push(n)).collect();
        for (at, name) in kept.iter().zip(&names) {
            assert_eq!(arena.get(*at), Some(name.as_str()));
        }
        assert!(arena.chunks.len() > 2);
    }

    #[test]
    fn behaves_as_a_vec() {
        let mut c = ChunkedVec::default();
        let mut v = Vec::new();
        for n in 0..3 * CHUNK + 5 {
            assert_eq!(c.len(), v.len());
            assert_eq!(c.is_empty(), v.is_empty());
            assert_eq!(c.first(), v.first());
            for probe in [0, n / 2, n.saturating_sub(1), n, n + 1, CHUNK, CHUNK - 1] {
                assert_eq!(c.get(probe), v.get(probe), "get({probe}) of {n}");
            }
            for start in [0, n / 3, n.saturating_sub(1), n, n + 7, CHUNK, CHUNK + 1] {
                let got: Vec<&usize> = c.iter_from(start).collect();
                let want: Vec<&usize> = v.iter().skip(start).collect();
                assert_eq!(got, want, "iter_from({start}) of {n}");
            }
            c.push(n);
            v.push(n);
        }
        assert!(c.iter().eq(v.iter()));
        assert!(c.chunks.iter().rev().skip(1).all(|k| k.len() == CHUNK));
    }
}
