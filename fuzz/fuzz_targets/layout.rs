//! `FileLayout::plan` with arbitrary events, data size and feature lengths (near `u64::MAX`
//! too): either the error a model of the planner predicts, or a layout whose regions follow
//! each other without gap or overlap, whose sizes are the inputs', whose file size is their
//! sum, and whose encoders write exactly the sections' lengths.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use perf_abi::PerfFileSection;
use perf_data_fuzz::{check_encoder, ref_attr, ref_u64, ArbAttr, ArbEndian, BufLen, Name};
use perf_encode::layout::{FeatureLen, FileLayout, LayoutInput, Region, SectionOrder};
use perf_encode::{EncodeError, EventEntry, MAX_EVENT_NAME_LEN};

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Size {
    Small(u16),
    NearMax(u16),
    Any(u64),
}

impl Size {
    fn value(self) -> u64 {
        match self {
            Size::Small(x) => u64::from(x),
            Size::NearMax(x) => u64::MAX - u64::from(x),
            Size::Any(x) => x,
        }
    }
}

#[derive(Arbitrary, Debug)]
struct ArbEvent {
    attr: ArbAttr,
    name: Name,
    /// Number of ids (mod 257) taken from the id pool at `ids_at`.
    ids_len: u16,
    ids_at: u8,
}

#[derive(Arbitrary, Debug)]
struct Input {
    attrs_last: bool,
    events: Vec<ArbEvent>,
    data_size: Size,
    features: Vec<(u8, Size)>,
    /// Sort and dedup the feature indices (so that plans succeed often).
    tidy_features: bool,
    id_seed: u64,
    endian: ArbEndian,
    buf_len: BufLen,
}

fuzz_target!(|input: Input| {
    let pool: Vec<u64> = (0..512u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ input.id_seed)
        .collect();
    let names: Vec<String> = input
        .events
        .iter()
        .take(32)
        .map(|e| e.name.text())
        .collect();
    let events: Vec<EventEntry<'_>> = input
        .events
        .iter()
        .zip(&names)
        .map(|(e, name)| {
            let at = usize::from(e.ids_at);
            let len = usize::from(e.ids_len % 257);
            EventEntry {
                attr: e.attr.attr(),
                name,
                ids: &pool[at..at + len],
            }
        })
        .collect();
    let mut features: Vec<FeatureLen> = input
        .features
        .iter()
        .map(|&(index, len)| FeatureLen {
            index,
            len: len.value(),
        })
        .collect();
    if input.tidy_features {
        features.sort_by_key(|f| f.index);
        features.dedup_by_key(|f| f.index);
        features.retain(|f| f.index != 0);
    }
    let order = if input.attrs_last {
        SectionOrder::AttrsLast
    } else {
        SectionOrder::AttrsFirst
    };
    let plan = FileLayout::plan(LayoutInput {
        order,
        events: &events,
        data_size: input.data_size.value(),
        features: &features,
    });

    // Model of the planner, in its order of checks, in u128 (no overflow possible).
    let mut expected: Result<u128, &'static str> = Ok(0);
    let mut payload: u128 = 0;
    let mut prev: Option<u8> = None;
    for f in &features {
        if f.index == 0 {
            expected = Err("reserved");
            break;
        }
        if prev.is_some_and(|p| p >= f.index) {
            expected = Err("unordered");
            break;
        }
        prev = Some(f.index);
        payload += u128::from(f.len);
        if payload > u128::from(u64::MAX) {
            expected = Err("overflow");
            break;
        }
    }
    if expected.is_ok() {
        // EventEntry::check: the name's length, a NUL in it, sample_type bits past
        // PERF_SAMPLE_MAX, READ without read_format's ID (the last three an invalid value).
        if let Some(bad) = events.iter().find(|e| {
            e.name.len() > MAX_EVENT_NAME_LEN
                || e.name.as_bytes().contains(&0)
                || e.attr.sample_type >= perf_abi::sample_type::MAX
                || (e.attr.sample_type & perf_abi::sample_type::READ != 0
                    && e.attr.read_format & perf_abi::read_format::ID == 0)
        }) {
            expected = Err(if bad.name.len() > MAX_EVENT_NAME_LEN {
                "toolong"
            } else {
                "invalid"
            });
        }
    }
    let attr_size: u64 = if events.iter().any(|e| e.attr.config3 != 0) {
        136
    } else {
        128
    };
    let ids_total: u64 = events.iter().map(|e| e.ids.len() as u64).sum();
    if expected.is_ok() {
        let total = 104u128
            + u128::from(ids_total) * 8
            + events.len() as u128 * u128::from(attr_size + 16)
            + u128::from(input.data_size.value())
            + features.len() as u128 * 16
            + payload;
        expected = if total > u128::from(u64::MAX) {
            Err("overflow")
        } else {
            Ok(total)
        };
    }

    let layout = match (expected, plan) {
        (Ok(total), Ok(l)) => {
            assert_eq!(
                u128::from(l.file_size()),
                total,
                "file size is the sum of sections"
            );
            l
        }
        (Err(want), Err(got)) => {
            let ok = match want {
                "reserved" => got == EncodeError::InvalidFeature { index: 0 },
                "unordered" => matches!(got, EncodeError::Unordered { .. }),
                "overflow" => matches!(got, EncodeError::Overflow { .. }),
                "toolong" => matches!(got, EncodeError::TooLong { .. }),
                _ => matches!(got, EncodeError::InvalidValue { .. }),
            };
            assert!(ok, "expected a {want} error, got {got:?}");
            return;
        }
        (want, got) => panic!("model says {want:?}, planner says {got:?}"),
    };

    // Regions: in the order's sequence, each starting where the previous one ends.
    let regions = layout.regions();
    let kinds: Vec<Region> = regions.iter().map(|r| r.0).collect();
    let want_kinds = match order {
        SectionOrder::AttrsFirst => [
            Region::Header,
            Region::Ids,
            Region::Attrs,
            Region::Data,
            Region::FeatureTable,
            Region::FeaturePayloads,
        ],
        SectionOrder::AttrsLast => [
            Region::Header,
            Region::Data,
            Region::FeatureTable,
            Region::FeaturePayloads,
            Region::Ids,
            Region::Attrs,
        ],
    };
    assert_eq!(kinds, want_kinds);
    assert_eq!(
        regions[0].1,
        PerfFileSection {
            offset: 0,
            size: 104
        }
    );
    let mut end = 0u64;
    for (kind, s) in regions {
        assert_eq!(
            s.offset, end,
            "{kind:?} does not start where the previous region ends"
        );
        end = s
            .offset
            .checked_add(s.size)
            .expect("a region ends past u64::MAX");
    }
    assert_eq!(end, layout.file_size());

    let h = layout.header();
    assert_eq!(h.magic, perf_abi::PERF_MAGIC);
    assert_eq!(h.size, 104);
    assert_eq!(u64::from(layout.attr_size()), attr_size);
    assert_eq!(h.attr_size, attr_size + 16);
    assert_eq!(h.attrs, layout.attrs());
    assert_eq!(h.attrs.size, events.len() as u64 * (attr_size + 16));
    assert_eq!(h.data, layout.data());
    assert_eq!(h.data.size, input.data_size.value());
    assert_eq!(h.event_types, PerfFileSection::default());
    assert_eq!(
        layout.feature_table().offset,
        h.data.offset + h.data.size,
        "the feature table starts where the data ends"
    );
    assert_eq!(layout.feature_table().size, features.len() as u64 * 16);
    assert_eq!(layout.feature_payloads().size as u128, payload);
    assert_eq!(layout.ids().size, ids_total * 8);
    let mut bits = [0u64; 4];
    for f in &features {
        bits[usize::from(f.index / 64)] |= 1 << (f.index % 64);
    }
    assert_eq!(h.features, bits);

    // Feature sections: ascending, contiguous, filling the payload region.
    let secs: Vec<(u8, PerfFileSection)> = layout.feature_sections().collect();
    assert_eq!(secs.len(), features.len());
    let mut at = layout.feature_payloads().offset;
    for ((index, s), f) in secs.iter().zip(&features) {
        assert_eq!((*index, s.offset, s.size), (f.index, at, f.len));
        at += s.size;
    }
    assert_eq!(
        at,
        layout.feature_payloads().offset + layout.feature_payloads().size
    );

    // Ids sections: one per event, contiguous, filling the ids region.
    let ids: Vec<PerfFileSection> = layout.ids_sections().collect();
    assert_eq!(ids.len(), events.len());
    let mut at = layout.ids().offset;
    for (s, e) in ids.iter().zip(&events) {
        assert_eq!((s.offset, s.size), (at, e.ids.len() as u64 * 8));
        at += s.size;
    }
    assert_eq!(at, layout.ids().offset + layout.ids().size);

    // The encoders write exactly their regions.
    let e = input.endian.endian();
    let header = check_encoder(&h, e, input.buf_len, 0xa5).expect("header encodes");
    assert_eq!(header.len(), 104);
    let table = check_encoder(&layout.feature_table_encoder(), e, input.buf_len, 0xa5)
        .expect("feature table encodes");
    let want_table: Vec<u8> = secs
        .iter()
        .flat_map(|(_, s)| [ref_u64(s.offset, e), ref_u64(s.size, e)].concat())
        .collect();
    assert_eq!(table, want_table);
    let attrs =
        check_encoder(&layout.attrs_encoder(), e, input.buf_len, 0xa5).expect("attrs encode");
    let mut want_attrs = Vec::new();
    for (ev, s) in events.iter().zip(&ids) {
        let a = ev.attr_with_size(layout.attr_size());
        want_attrs.extend(ref_attr(&a, e).expect("the file attr size holds every field"));
        want_attrs.extend_from_slice(&ref_u64(s.offset, e));
        want_attrs.extend_from_slice(&ref_u64(s.size, e));
    }
    assert_eq!(attrs, want_attrs);
    assert_eq!(attrs.len() as u64, h.attrs.size);
    let ids_bytes =
        check_encoder(&layout.ids_encoder(), e, input.buf_len, 0xa5).expect("ids encode");
    let want_ids: Vec<u8> = events
        .iter()
        .flat_map(|ev| ev.ids.iter().flat_map(|&id| ref_u64(id, e)))
        .collect();
    assert_eq!(ids_bytes, want_ids);
});
