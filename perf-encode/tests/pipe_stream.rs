//! `PipeStream` over small buffers, drained in random amounts: the drained bytes are exactly
//! the pipe header and the records in order (with the features' end marker where it
//! belongs), a record that does not fit leaves the stream as it was, and the result is a
//! valid pipe-mode stream.
#![allow(clippy::arithmetic_side_effects)] // tests: arithmetic on small known values
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
// tests: helpers outside #[test] fns panic on bad input, which fails the test
#![cfg(feature = "alloc")]

use perf_abi::{feature, PerfEventAttr, PerfPipeHeader, PERF_MAGIC, PIPE_HEADER_SIZE};
use perf_encode::records::{
    Comm, FinishedRound, HeaderAttr, HeaderFeature, HeaderTracingData, RecordFramer, SampleId,
    SampleLayout,
};
use perf_encode::stream::PipeStream;
use perf_encode::{to_vec, EncodeError, Endian};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Item {
    Comm(Vec<u8>),
    Round,
    Tracing(Vec<u8>),
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        proptest::collection::vec(b'a'..=b'z', 0..40).prop_map(Item::Comm),
        Just(Item::Round),
        proptest::collection::vec(any::<u8>(), 0..30).prop_map(Item::Tracing),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn drained_bytes_are_the_stream(
        cap in 16usize..200,
        nattrs in 0usize..3,
        features in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..20), 0..3),
        items in proptest::collection::vec(item(), 0..20),
        drains in proptest::collection::vec(0usize..50, 64),
        big in any::<bool>(),
    ) {
        let e = if big { Endian::Big } else { Endian::Little };
        let layout = SampleLayout::default();
        let attr = PerfEventAttr { size: 128, ..Default::default() };
        let mut expected = to_vec(&PerfPipeHeader { magic: PERF_MAGIC, size: PIPE_HEADER_SIZE }, e).unwrap();
        let mut buf = vec![0u8; cap];
        let mut s = PipeStream::new(&mut buf, e).unwrap();
        let mut out = Vec::new();
        let mut d = drains.iter().cycle();
        // Pushes `rec` (encoded as `bytes`), draining as needed; false when it can never fit.
        let mut push = |s: &mut PipeStream<'_>, out: &mut Vec<u8>, bytes: &[u8], f: &mut dyn FnMut(&mut PipeStream<'_>) -> Result<(), EncodeError>| -> bool {
            loop {
                let before = s.pending().to_vec();
                match f(s) {
                    Ok(()) => return true,
                    Err(EncodeError::BufferTooSmall { .. }) => {
                        assert_eq!(s.pending(), &before[..], "a refused record leaves the stream");
                        if s.is_drained() {
                            assert!(bytes.len() > cap);
                            return false;
                        }
                        let n = (*d.next().unwrap()).max(1);
                        s.drain_to(|c| { let k = n.min(c.len()); out.extend_from_slice(&c[..k]); Ok::<_, ()>(k) }).unwrap();
                    }
                    Err(other) => panic!("{other:?}"),
                }
            }
        };
        let ids = [1u64, 2];
        for _ in 0..nattrs {
            let rec = to_vec(&HeaderAttr { attr: &attr, ids: &ids }, e).unwrap();
            if push(&mut s, &mut out, &rec, &mut |s| s.add_attr(&attr, &ids)) {
                expected.extend_from_slice(&rec);
            }
        }
        let mut in_features = false;
        for (i, payload) in features.iter().enumerate() {
            let index = feature::HOSTNAME + i as u8;
            let rec = to_vec(&HeaderFeature { index, payload }, e).unwrap();
            if push(&mut s, &mut out, &rec, &mut |s| s.add_feature(index, payload)) {
                expected.extend_from_slice(&rec);
                in_features = true;
            }
        }
        let end = to_vec(&HeaderFeature::END, e).unwrap();
        for it in &items {
            let rec = match it {
                Item::Comm(name) => to_vec(&Comm { layout: &layout, pid: 1, tid: 2, comm: name, exec: false, sample_id: SampleId::default() }, e),
                Item::Round => to_vec(&FinishedRound, e),
                Item::Tracing(data) => to_vec(&HeaderTracingData { data }, e),
            }
            .unwrap();
            let marker = if in_features { end.len() } else { 0 };
            let pushed = push(&mut s, &mut out, &vec![0; rec.len() + marker], &mut |s| match it {
                Item::Comm(name) => s.push(&Comm { layout: &layout, pid: 1, tid: 2, comm: name, exec: false, sample_id: SampleId::default() }),
                Item::Round => s.push(&FinishedRound),
                Item::Tracing(data) => s.push(&HeaderTracingData { data }),
            });
            if pushed {
                if in_features {
                    expected.extend_from_slice(&end);
                    in_features = false;
                }
                expected.extend_from_slice(&rec);
            }
        }
        out.extend_from_slice(s.pending());
        prop_assert_eq!(&out, &expected);
        let mut framer = RecordFramer::new(e);
        framer.feed(&out[16..]).unwrap();
        prop_assert!(framer.at_boundary());
    }
}
