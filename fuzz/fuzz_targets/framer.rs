//! `RecordFramer` fed a stream (valid records, trailer-carrying records, unpadded COMPRESSED
//! records and raw bytes mixed)
//! in arbitrary chunk splits: the result is the one of feeding it whole, whatever the split;
//! a refused chunk leaves the framer as it was; the error names the same record; a stream of
//! valid records only ends on a boundary having counted each record once; a chunk
//! `is_plain_record` accepts is one whole record for `feed` at a boundary (on a fresh
//! framer, and on the chunked one whenever it is between records), and `after_plain_records`
//! gives the state `feed` reached for it; `first_plain_record` takes only what
//! `is_plain_record` takes; and `RecordWalker` stepped over each chunk alone (the framer
//! without its inline path) finds the same records, boundaries and errors as `feed`.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use perf_data_fuzz::{ref_u16, ref_u32, ref_u64, ArbEndian};
use perf_encode::records::{
    first_plain_record, is_plain_record, FramingError, RecordFramer, RecordWalker, Step,
};
use perf_encode::Endian;

#[derive(Arbitrary, Debug)]
enum Piece {
    /// A record of `8 + 8 * words` bytes.
    Record { type_: u32, misc: u16, words: u8 },
    /// HEADER_TRACING_DATA: a 16-byte record then `size` bytes padded to 8.
    TracingData { size: u16 },
    /// AUXTRACE: a 48-byte record (u64 size first) then `size` bytes.
    Auxtrace { size: u16 },
    /// COMPRESSED: `8 + len` bytes (len mod 65528), unpadded as perf 6.1 writes it, so
    /// what follows may be unaligned.
    Compressed { len: u16 },
    /// Anything.
    Raw(Vec<u8>),
    /// A header whose size field is `size` (often invalid).
    Header { type_: u32, size: u16 },
}

#[derive(Arbitrary, Debug)]
struct Input {
    endian: ArbEndian,
    pieces: Vec<Piece>,
    /// Chunk lengths (cycled); 0 means an empty chunk.
    splits: Vec<u8>,
}

fn header(type_: u32, misc: u16, size: u16, e: Endian) -> Vec<u8> {
    [&ref_u32(type_, e)[..], &ref_u16(misc, e), &ref_u16(size, e)].concat()
}

fn state(f: &RecordFramer) -> String {
    format!("{f:?}")
}

fuzz_target!(|input: Input| {
    let e = input.endian.endian();
    let mut stream = Vec::new();
    let mut all_valid = true;
    let mut valid_records = 0u64;
    for p in &input.pieces {
        match *p {
            Piece::Record { type_, misc, words } => {
                // Types with a trailer are built by their own pieces.
                let type_ = if type_ == 66 || type_ == 71 { 9 } else { type_ };
                let size = 8 + 8 * u16::from(words);
                stream.extend(header(type_, misc, size, e));
                stream.extend((0..usize::from(words) * 8).map(|i| i as u8));
                valid_records += 1;
            }
            Piece::TracingData { size } => {
                stream.extend(header(66, 0, 16, e));
                stream.extend_from_slice(&ref_u32(u32::from(size), e));
                stream.extend_from_slice(&[0; 4]);
                stream.extend(std::iter::repeat_n(0x66, usize::from(size).div_ceil(8) * 8));
                valid_records += 1;
            }
            Piece::Auxtrace { size } => {
                stream.extend(header(71, 0, 48, e));
                stream.extend_from_slice(&ref_u64(u64::from(size), e));
                stream.extend_from_slice(&[0; 32]);
                stream.extend(std::iter::repeat_n(0x71, usize::from(size)));
                valid_records += 1;
            }
            Piece::Compressed { len } => {
                let len = len % 65528;
                stream.extend(header(81, 0, 8 + len, e));
                stream.extend(std::iter::repeat_n(0x81, usize::from(len)));
                valid_records += 1;
            }
            Piece::Raw(ref b) => {
                stream.extend_from_slice(b);
                all_valid = false;
            }
            Piece::Header { type_, size } => {
                stream.extend(header(type_, 0, size, e));
                all_valid = false;
            }
        }
    }

    let start = RecordFramer::new(e);
    assert!(start.at_boundary());
    assert_eq!(start.records(), 0);
    let whole = start.check(&stream);
    assert_eq!(
        state(&start),
        state(&RecordFramer::new(e)),
        "check changed the framer"
    );
    if all_valid {
        let s = whole.expect("valid records are accepted");
        assert!(
            s.at_boundary(),
            "a stream of whole records ends on a boundary"
        );
        assert_eq!(s.records(), valid_records);
    }

    // The same stream in chunks.
    let mut f = RecordFramer::new(e);
    let mut pos = 0usize;
    let mut i = 0usize;
    let mut failed: Option<(usize, FramingError)> = None;
    let (mut walker, mut walked_records) = (RecordWalker::new(e), 0u64);
    while pos < stream.len() || (i == 0 && stream.is_empty()) {
        let len = if input.splits.iter().all(|&s| s == 0) {
            stream.len()
        } else {
            usize::from(input.splits[i % input.splits.len()])
        };
        i += 1;
        let end = (pos + len).min(stream.len());
        let chunk = &stream[pos..end];
        let before = f;
        // A chunk the stateless test takes is one whole record to a framer between records.
        for order in [Endian::Little, Endian::Big] {
            if is_plain_record(order, chunk) {
                let mut fresh = RecordFramer::new(order);
                assert_eq!(
                    fresh.feed(chunk),
                    Ok(()),
                    "is_plain_record took a bad record"
                );
                assert!(fresh.at_boundary(), "is_plain_record took a piece");
                assert_eq!(fresh.records(), 1, "is_plain_record took several records");
            }
        }
        if let Some(r) = first_plain_record(e, chunk) {
            assert!(
                is_plain_record(e, r),
                "first_plain_record took what is_plain_record refuses"
            );
            assert_eq!(is_plain_record(e, chunk), r.len() == chunk.len());
        } else {
            assert!(
                !is_plain_record(e, chunk),
                "is_plain_record took what first_plain_record refuses"
            );
        }
        // The walker alone, step by step.
        let (mut walked, mut records, mut at) = (walker, walked_records, 0usize);
        let mut walk_err = None;
        while at < chunk.len() {
            match walked.step(&chunk[at..]) {
                Ok(Step::Record(r)) => {
                    assert!(r.taken >= 1, "a step took nothing");
                    records += 1;
                    at += r.taken;
                }
                Ok(Step::Header(n) | Step::Body(n)) => {
                    assert!(n >= 1, "a step took nothing");
                    at += n;
                }
                Err(fault) => {
                    walk_err = Some(fault.at(at));
                    break;
                }
            }
        }
        assert!(at <= chunk.len(), "a step took more than it was given");
        // check and feed agree.
        let checked = f.check(chunk);
        let feed_result = f.feed(chunk);
        if before.at_boundary() && is_plain_record(e, chunk) {
            assert_eq!(feed_result, Ok(()), "feed refused a plain record");
            assert!(f.at_boundary(), "a plain record did not end on a boundary");
            assert_eq!(f.records(), before.records() + 1, "not one record");
            // The writer's shortcut for records it checked: the same state without a walk.
            assert_eq!(
                before.after_plain_records(1),
                Some(f),
                "after_plain_records"
            );
        }
        if !before.at_boundary() {
            assert_eq!(before.after_plain_records(1), None, "after_plain_records");
        }
        match feed_result {
            Ok(()) => {
                assert_eq!(walk_err, None, "the walker refused what feed took");
                assert_eq!(
                    (records, walked.at_boundary(), walked.remaining()),
                    (f.records(), f.at_boundary(), f.remaining()),
                    "the walker and feed disagree"
                );
                (walker, walked_records) = (walked, records);
                let checked = checked.expect("check agrees with feed");
                assert_eq!(
                    (checked.records(), checked.at_boundary()),
                    (f.records(), f.at_boundary())
                );
                // Prefix property: the framer is where feeding the prefix at once leaves it
                // (checked in full on the first chunks and the last, to stay fast).
                if i <= 64 || end == stream.len() {
                    assert_eq!(state(&f), state(&checked));
                    assert_eq!(
                        state(&f),
                        state(&start.check(&stream[..end]).expect("prefix is accepted")),
                        "chunked state differs from the state after the same bytes at once"
                    );
                }
            }
            Err(err) => {
                assert_eq!(checked.err(), Some(err));
                assert_eq!(
                    walk_err,
                    Some(err),
                    "the walker and feed disagree on the error"
                );
                assert_eq!(
                    state(&f),
                    state(&before),
                    "a refused chunk changed the framer"
                );
                failed = Some((pos, err));
                break;
            }
        }
        pos = end;
    }

    match (whole, failed) {
        (Ok(s), None) => {
            assert_eq!(state(&s), state(&f), "split changed the result");
            assert_eq!(s.records(), f.records());
            assert_eq!(s.at_boundary(), f.at_boundary());
        }
        (Err(w), Some((chunk_start, c))) => {
            // Same record, same fields; offsets relative to the chunk (0 when the record began
            // in an earlier chunk).
            let (wo, co) = match (w, c) {
                (
                    FramingError::BadSize {
                        offset: wo,
                        type_: wt,
                        size: ws,
                    },
                    FramingError::BadSize {
                        offset: co,
                        type_: ct,
                        size: cs,
                    },
                ) => {
                    assert_eq!((wt, ws), (ct, cs));
                    (wo, co)
                }
                (
                    FramingError::ShortHeader {
                        offset: wo,
                        type_: wt,
                    },
                    FramingError::ShortHeader {
                        offset: co,
                        type_: ct,
                    },
                ) => {
                    assert_eq!(wt, ct);
                    (wo, co)
                }
                (w, c) => panic!("whole stream: {w:?}, chunked: {c:?}"),
            };
            assert_eq!(co, wo.saturating_sub(chunk_start), "error offset");
            let _ = format!("{c}");
        }
        (w, c) => panic!("whole stream: {w:?}, chunked: {c:?}"),
    }
});
