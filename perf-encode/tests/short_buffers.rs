//! Every encoder with buffers of exactly its length, one byte less, none, and more: the exact
//! and larger buffers get `encoded_len` bytes written; a short one is `BufferTooSmall` with the
//! exact numbers and not a byte of it changes.
#![allow(clippy::arithmetic_side_effects)] // tests: arithmetic on small known values
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
// tests: helpers outside #[test] fns (parsers of perf bytes, checkers) panic on bad input, which fails the test
#![cfg(feature = "alloc")]

use perf_abi::{
    feature, record_type, ClockData, NrCpus, PerfEventAttr, PerfEventHeader, PerfFileHeader,
    PerfFileSection, PerfPipeHeader, SampleTime, CLOCK_DATA_VERSION, FILE_HEADER_SIZE, PERF_MAGIC,
    PIPE_HEADER_SIZE,
};
use perf_encode::features::{
    tracing_data, ClockResolution, EventDescFeature, FormatText, TotalMem, TracepointFormat,
    TracingData,
};
use perf_encode::layout::{FeatureLen, FileLayout, LayoutInput, SectionOrder};
use perf_encode::records::{FinishedInit, FinishedRound, Record};
use perf_encode::{
    append_to_vec, encoded_len, to_slice, to_vec, Encode, EncodeError, Endian, EventEntry,
    HeaderString, StringList,
};

const FILL: u8 = 0xA5;

/// Checks `value` against buffers of every interesting length, in both byte orders.
fn check<E: Encode + ?Sized>(what: &str, value: &E, expected_len: usize) {
    let len = encoded_len(value).unwrap();
    assert_eq!(len, expected_len, "{what}: encoded_len");
    assert!(len > 0, "{what}: pick a non-empty value");
    for endian in [Endian::Little, Endian::Big] {
        let reference = to_vec(value, endian).unwrap();
        assert_eq!(reference.len(), len, "{what} {endian:?}: to_vec length");

        let mut exact = vec![FILL; len];
        let written = to_slice(value, endian, &mut exact).unwrap();
        assert_eq!(written.len(), len, "{what} {endian:?}: exact buffer");
        assert_eq!(written, &reference[..], "{what} {endian:?}: exact buffer");

        let mut larger = vec![FILL; len + 9];
        let written = to_slice(value, endian, &mut larger).unwrap();
        assert_eq!(written.len(), len, "{what} {endian:?}: larger buffer");
        assert_eq!(&larger[..len], &reference[..], "{what} {endian:?}");
        assert!(
            larger[len..].iter().all(|&b| b == FILL),
            "{what} {endian:?}: wrote past encoded_len"
        );

        let mut short = vec![FILL; len - 1];
        let err = to_slice(value, endian, &mut short).unwrap_err();
        assert_eq!(
            err,
            EncodeError::BufferTooSmall {
                needed: len,
                available: len - 1
            },
            "{what} {endian:?}: one byte short"
        );
        assert!(
            short.iter().all(|&b| b == FILL),
            "{what} {endian:?}: short buffer touched"
        );

        let mut empty: [u8; 0] = [];
        let err = to_slice(value, endian, &mut empty).unwrap_err();
        assert_eq!(
            err,
            EncodeError::BufferTooSmall {
                needed: len,
                available: 0
            },
            "{what} {endian:?}: empty buffer"
        );

        // Appending puts the same bytes after what is there.
        let mut v = vec![FILL; 3];
        append_to_vec(value, endian, &mut v).unwrap();
        assert_eq!(&v[..3], &[FILL; 3]);
        assert_eq!(&v[3..], &reference[..], "{what} {endian:?}: append_to_vec");
    }
}

fn attr(config: u64) -> PerfEventAttr {
    PerfEventAttr {
        type_: perf_abi::attr::TYPE_SOFTWARE,
        size: 128,
        config,
        sample_period: 4000,
        sample_type: 0x107,
        flags: perf_abi::attr_flags::DISABLED | perf_abi::attr_flags::SAMPLE_ID_ALL,
        ..Default::default()
    }
}

#[test]
fn strings() {
    check("HeaderString", &HeaderString::new(b"hostname"), 4 + 64);
    check("HeaderString empty", &HeaderString::new(b""), 4 + 64);
    check("HeaderString 63", &HeaderString::new(&[b'x'; 63]), 4 + 64);
    check("HeaderString 64", &HeaderString::new(&[b'x'; 64]), 4 + 128);
    check(
        "StringList",
        &StringList::new(&["/usr/bin/perf", "record", "-a"]),
        4 + 3 * 68,
    );
    check("StringList empty", &StringList::<&str>::new(&[]), 4);
}

#[test]
fn fixed_features() {
    check(
        "NrCpus",
        &NrCpus {
            available: 4,
            online: 2,
        },
        8,
    );
    check(
        "SampleTime",
        &SampleTime {
            first: 10,
            last: 20,
        },
        16,
    );
    check(
        "ClockData",
        &ClockData {
            version: CLOCK_DATA_VERSION,
            clockid: 1,
            wall_clock_ns: 1_700_000_000_000_000_000,
            clockid_time_ns: 12345,
        },
        24,
    );
    check("ClockResolution", &ClockResolution { ns: 1 }, 8);
    check("TotalMem", &TotalMem { kib: 16 << 20 }, 8);
}

#[test]
fn event_desc() {
    let ids_a = [1u64, 2];
    let ids_b = [3u64];
    let events = [
        EventEntry {
            attr: attr(0),
            name: "cpu-clock",
            ids: &ids_a,
        },
        EventEntry {
            attr: PerfEventAttr {
                type_: perf_abi::attr::TYPE_TRACEPOINT,
                config: 372,
                ..attr(0)
            },
            name: "sched:sched_switch",
            ids: &ids_b,
        },
    ];
    check(
        "EventDescFeature",
        &EventDescFeature::new(&events),
        8 + (128 + 4 + 68 + 16) + (128 + 4 + 68 + 8),
    );
    let v8 = [EventEntry {
        attr: PerfEventAttr {
            config3: 1,
            ..attr(0)
        },
        name: "e",
        ids: &[],
    }];
    check(
        "EventDescFeature VER8",
        &EventDescFeature::new(&v8),
        8 + 136 + 4 + 68,
    );
    check("EventDescFeature empty", &EventDescFeature::new(&[]), 8);
}

#[test]
fn tracing_data() {
    let events = [
        TracepointFormat {
            system: "sched",
            format: FormatText::Text(b"name: sched_switch\nID: 372\n"),
        },
        TracepointFormat {
            system: "sched",
            format: FormatText::Text(b"name: sched_wakeup\nID: 373\n"),
        },
        TracepointFormat {
            system: "irq",
            format: FormatText::Text(b"name: irq_handler_entry\nID: 40\n"),
        },
    ];
    let ftraces: [&[u8]; 1] = [b"name: function\nID: 1\n"];
    let td = TracingData {
        ftraces: &ftraces,
        events: &events,
        kallsyms: b"ffffffff81000000 T _text\n",
        printk: b"0x1 : \"x\"\n",
        saved_cmdline: b"1 init\n",
        ..TracingData::new(8, 4096)
    };
    let expected = 14
        + 1
        + 1
        + 4
        + (12 + 8 + tracing_data::DEFAULT_HEADER_PAGE.len())
        + (13 + 8 + tracing_data::DEFAULT_HEADER_EVENT.len())
        + (4 + 8 + ftraces[0].len())
        + 4
        + (6 + 4 + (8 + 27) + (8 + 27))
        + (4 + 4 + (8 + 31))
        + (4 + 25)
        + (4 + 10)
        + (8 + 7);
    check("TracingData", &td, expected);
    let empty = TracingData::new(4, 4096);
    check(
        "TracingData empty",
        &empty,
        20 + (12 + 8 + tracing_data::DEFAULT_HEADER_PAGE.len())
            + (13 + 8 + tracing_data::DEFAULT_HEADER_EVENT.len())
            + 4
            + 4
            + 4
            + 4
            + 8,
    );
}

#[cfg(feature = "tracepoint_decode")]
#[test]
fn tracing_data_parsed_format() {
    let text = "name: sched_switch\nID: 372\nformat:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n\
\tfield:pid_t prev_pid;\toffset:8;\tsize:4;\tsigned:1;\n\n\
print fmt: \"prev_pid=%d\", REC->prev_pid\n";
    let fmt = tracepoint_decode::PerfEventFormat::parse(true, "sched", text).unwrap();
    let events = [TracepointFormat {
        system: "sched",
        format: FormatText::Parsed(&fmt),
    }];
    let td = TracingData {
        events: &events,
        ..TracingData::new(8, 4096)
    };
    let mut rendered = String::new();
    fmt.write_to(&mut rendered).unwrap();
    assert_eq!(rendered, text, "this text is in write_to's normal form");
    check(
        "TracingData parsed",
        &td,
        20 + (12 + 8 + tracing_data::DEFAULT_HEADER_PAGE.len())
            + (13 + 8 + tracing_data::DEFAULT_HEADER_EVENT.len())
            + 4
            + 4
            + (6 + 4 + 8 + text.len())
            + 4
            + 4
            + 8,
    );
}

#[test]
fn file_structs() {
    let h = PerfFileHeader {
        magic: PERF_MAGIC,
        size: FILE_HEADER_SIZE,
        attr_size: 144,
        attrs: PerfFileSection {
            offset: 104,
            size: 144,
        },
        data: PerfFileSection {
            offset: 248,
            size: 8,
        },
        event_types: PerfFileSection::default(),
        features: [1 << 3, 0, 0, 0],
    };
    check("PerfFileHeader", &h, 104);
    check(
        "PerfFileSection",
        &PerfFileSection { offset: 1, size: 2 },
        16,
    );
    check(
        "PerfPipeHeader",
        &PerfPipeHeader {
            magic: PERF_MAGIC,
            size: PIPE_HEADER_SIZE,
        },
        16,
    );
    check(
        "PerfEventHeader",
        &PerfEventHeader {
            type_: record_type::SAMPLE,
            misc: 2,
            size: 16,
        },
        8,
    );
}

#[test]
fn attrs() {
    for size in perf_abi::attr::ATTR_SIZES {
        let a = PerfEventAttr {
            size,
            config: 1,
            ..Default::default()
        };
        check("PerfEventAttr", &a, size as usize);
    }
    check("PerfEventAttr 128", &attr(9), 128);
}

#[test]
fn records() {
    let payload = [7u8; 16];
    let parts: [&[u8]; 1] = [&payload];
    check(
        "Record",
        &Record::new(record_type::SAMPLE, 2, &parts),
        8 + 16,
    );
    let odd: [&[u8]; 2] = [b"abc", b"de"];
    check(
        "Record padded",
        &Record::padded(record_type::COMM, 0, &odd),
        16,
    );
    check("Record empty", &Record::new(record_type::EXIT, 0, &[]), 8);
    let max = vec![1u8; 0xfff8 - 8];
    let parts: [&[u8]; 1] = [&max];
    check(
        "Record max",
        &Record::new(record_type::SAMPLE, 0, &parts),
        0xfff8,
    );
    check("FinishedRound", &FinishedRound, 8);
    check("FinishedInit", &FinishedInit, 8);
}

#[test]
fn layout_encoders() {
    let ids_a = [1u64, 2, 3];
    let ids_b = [4u64];
    let events = [
        EventEntry {
            attr: attr(0),
            name: "a",
            ids: &ids_a,
        },
        EventEntry {
            attr: attr(9),
            name: "b",
            ids: &ids_b,
        },
    ];
    let features = [
        FeatureLen {
            index: feature::HOSTNAME,
            len: 68,
        },
        FeatureLen {
            index: feature::NRCPUS,
            len: 8,
        },
        FeatureLen {
            index: feature::EVENT_DESC,
            len: 400,
        },
    ];
    for order in [SectionOrder::AttrsFirst, SectionOrder::AttrsLast] {
        let layout = FileLayout::plan(LayoutInput {
            order,
            events: &events,
            data_size: 64,
            features: &features,
        })
        .unwrap();
        check("header", &layout.header(), 104);
        check("feature table", &layout.feature_table_encoder(), 3 * 16);
        check("attrs section", &layout.attrs_encoder(), 2 * (128 + 16));
        check("ids", &layout.ids_encoder(), 4 * 8);
    }
    let v8 = [EventEntry {
        attr: PerfEventAttr {
            config3: 5,
            ..attr(0)
        },
        name: "v8",
        ids: &ids_b,
    }];
    let layout = FileLayout::plan(LayoutInput {
        order: SectionOrder::AttrsLast,
        events: &v8,
        data_size: 0,
        features: &[],
    })
    .unwrap();
    check("attrs section VER8", &layout.attrs_encoder(), 136 + 16);
}

/// An encoder that fails for another reason fails the same way with any buffer, before
/// touching it; `append_to_vec` leaves the vector as it was.
#[test]
fn invalid_values_fail_before_the_buffer_is_used() {
    let bad = PerfEventAttr {
        size: 100,
        ..Default::default()
    };
    for len in [0usize, 99, 100, 136, 200] {
        let mut buf = vec![FILL; len];
        assert_eq!(
            to_slice(&bad, Endian::Little, &mut buf).unwrap_err(),
            EncodeError::InvalidAttrSize { size: 100 }
        );
        assert!(buf.iter().all(|&b| b == FILL));
    }
    let parts: [&[u8]; 1] = [b"abc"];
    let odd = Record::new(record_type::SAMPLE, 0, &parts);
    let mut v = vec![1u8, 2, 3];
    assert_eq!(
        append_to_vec(&odd, Endian::Big, &mut v).unwrap_err(),
        EncodeError::InvalidRecordSize { size: 11 }
    );
    assert_eq!(v, [1, 2, 3]);
    let mut buf = [FILL; 64];
    assert_eq!(
        to_slice(&odd, Endian::Big, &mut buf).unwrap_err(),
        EncodeError::InvalidRecordSize { size: 11 }
    );
    assert!(buf.iter().all(|&b| b == FILL));
}
