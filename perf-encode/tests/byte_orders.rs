//! Both byte orders, field by field, and the errors every encoder reports instead of writing
//! something perf would misread.
#![allow(clippy::arithmetic_side_effects)] // tests: arithmetic on small known values
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
// tests: helpers outside #[test] fns (parsers of perf bytes, checkers) panic on bad input, which fails the test
#![cfg(feature = "alloc")]

use perf_abi::record_fields::MAX_RECORD_SIZE;
use perf_abi::{
    attr_flags, feature, record_type, ClockData, NrCpus, PerfEventAttr, PerfEventHeader,
    PerfFileHeader, PerfFileSection, PerfPipeHeader, SampleTime, FILE_HEADER_SIZE, PERF_MAGIC,
    PIPE_HEADER_SIZE,
};
use perf_encode::features::{
    tracing_data, ClockResolution, EventDescFeature, FormatText, TotalMem, TracepointFormat,
    TracingData,
};
use perf_encode::layout::{FeatureLen, FileLayout, LayoutInput, SectionOrder};
use perf_encode::records::{FinishedInit, FinishedRound, Record};
use perf_encode::{
    encoded_len, to_vec, Encode, EncodeError, Endian, EventEntry, HeaderString, StringList,
    MAX_EVENT_NAME_LEN,
};

/// How a field is laid out in a file.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// A number in the file's byte order.
    Num,
    /// The attr bit-field word: little-endian bytes, each byte's bits reversed when big-endian.
    Bits,
}

/// `(offset, width, value, kind)`.
type Field = (usize, usize, u64, Kind);

/// Encodes `value` both ways and checks every field at its offset: the fields must tile the
/// whole encoding; numbers are `to_le_bytes` / `to_be_bytes` (so the big encoding is each
/// field of the little one reversed).
fn check_fields<E: Encode + ?Sized>(what: &str, value: &E, fields: &[Field]) -> Vec<u8> {
    let le = to_vec(value, Endian::Little).unwrap();
    let be = to_vec(value, Endian::Big).unwrap();
    assert_eq!(le.len(), be.len(), "{what}");
    let mut end = 0;
    for &(off, w, v, kind) in fields {
        assert_eq!(off, end, "{what}: fields must tile the encoding");
        assert!(w == 8 || v >> (8 * w) == 0, "{what}@{off}: value too wide");
        let l = &le[off..off + w];
        let b = &be[off..off + w];
        assert_eq!(l, &v.to_le_bytes()[..w], "{what}@{off}: little-endian");
        match kind {
            Kind::Num => {
                assert_eq!(b, &v.to_be_bytes()[8 - w..], "{what}@{off}: big-endian");
                let mut rev = l.to_vec();
                rev.reverse();
                assert_eq!(b, &rev[..], "{what}@{off}: reversed");
            }
            Kind::Bits => {
                let expected: Vec<u8> = l.iter().map(|x| x.reverse_bits()).collect();
                assert_eq!(b, &expected[..], "{what}@{off}: bit-reversed bytes");
            }
        }
        end = off + w;
    }
    assert_eq!(end, le.len(), "{what}: fields cover the whole encoding");
    be
}

const N: Kind = Kind::Num;

#[test]
fn file_header() {
    let h = PerfFileHeader {
        magic: PERF_MAGIC,
        size: FILE_HEADER_SIZE,
        attr_size: 0x90,
        attrs: PerfFileSection {
            offset: 0x0102_0304_0506_0708,
            size: 0x1112_1314_1516_1718,
        },
        data: PerfFileSection {
            offset: 0x2122_2324_2526_2728,
            size: 0x3132_3334_3536_3738,
        },
        event_types: PerfFileSection {
            offset: 0x4142_4344_4546_4748,
            size: 0x5152_5354_5556_5758,
        },
        features: [
            (1 << 3) | (1 << 12),
            0x6162_6364_6566_6768,
            0x7172_7374_7576_7778,
            1 << 63,
        ],
    };
    let be = check_fields(
        "PerfFileHeader",
        &h,
        &[
            (0, 8, PERF_MAGIC, N),
            (8, 8, 104, N),
            (16, 8, 0x90, N),
            (24, 8, h.attrs.offset, N),
            (32, 8, h.attrs.size, N),
            (40, 8, h.data.offset, N),
            (48, 8, h.data.size, N),
            (56, 8, h.event_types.offset, N),
            (64, 8, h.event_types.size, N),
            (72, 8, h.features[0], N),
            (80, 8, h.features[1], N),
            (88, 8, h.features[2], N),
            (96, 8, h.features[3], N),
        ],
    );
    assert_eq!(&be[..8], b"2ELIFREP");
    assert_eq!(&to_vec(&h, Endian::Little).unwrap()[..8], b"PERFILE2");
    // HOSTNAME (bit 3) and EVENT_DESC (bit 12) in the last two bytes of big-endian word 0.
    assert_eq!(be[79], 1 << 3);
    assert_eq!(be[78], 1 << (12 - 8));
}

#[test]
fn small_structs() {
    check_fields(
        "PerfFileSection",
        &PerfFileSection {
            offset: 0x0102_0304_0506_0708,
            size: 0x1112_1314_1516_1718,
        },
        &[
            (0, 8, 0x0102_0304_0506_0708, N),
            (8, 8, 0x1112_1314_1516_1718, N),
        ],
    );
    check_fields(
        "PerfPipeHeader",
        &PerfPipeHeader {
            magic: PERF_MAGIC,
            size: PIPE_HEADER_SIZE,
        },
        &[(0, 8, PERF_MAGIC, N), (8, 8, 16, N)],
    );
    check_fields(
        "PerfEventHeader",
        &PerfEventHeader {
            type_: 0x0102_0304,
            misc: 0x0506,
            size: 0x0708,
        },
        &[(0, 4, 0x0102_0304, N), (4, 2, 0x0506, N), (6, 2, 0x0708, N)],
    );
    check_fields(
        "NrCpus",
        &NrCpus {
            available: 0x0102_0304,
            online: 0x0506_0708,
        },
        &[(0, 4, 0x0102_0304, N), (4, 4, 0x0506_0708, N)],
    );
    check_fields(
        "SampleTime",
        &SampleTime {
            first: 0x0102_0304_0506_0708,
            last: 0x1112_1314_1516_1718,
        },
        &[
            (0, 8, 0x0102_0304_0506_0708, N),
            (8, 8, 0x1112_1314_1516_1718, N),
        ],
    );
    check_fields(
        "ClockData",
        &ClockData {
            version: 1,
            clockid: 0x0102_0304,
            wall_clock_ns: 0x1112_1314_1516_1718,
            clockid_time_ns: 0x2122_2324_2526_2728,
        },
        &[
            (0, 4, 1, N),
            (4, 4, 0x0102_0304, N),
            (8, 8, 0x1112_1314_1516_1718, N),
            (16, 8, 0x2122_2324_2526_2728, N),
        ],
    );
    check_fields(
        "ClockResolution",
        &ClockResolution {
            ns: 0x0102_0304_0506_0708,
        },
        &[(0, 8, 0x0102_0304_0506_0708, N)],
    );
    check_fields(
        "TotalMem",
        &TotalMem {
            kib: 0x0102_0304_0506_0708,
        },
        &[(0, 8, 0x0102_0304_0506_0708, N)],
    );
    check_fields(
        "FinishedRound",
        &FinishedRound,
        &[(0, 4, 68, N), (4, 2, 0, N), (6, 2, 8, N)],
    );
    check_fields(
        "FinishedInit",
        &FinishedInit,
        &[(0, 4, 82, N), (4, 2, 0, N), (6, 2, 8, N)],
    );
}

/// Every field different and no field a byte palindrome.
fn full_attr() -> PerfEventAttr {
    PerfEventAttr {
        type_: 0x0102_0304,
        size: 136,
        config: 0x1112_1314_1516_1718,
        sample_period: 0x2122_2324_2526_2728,
        sample_type: 0x3132_3334_3536_3738,
        read_format: 0x4142_4344_4546_4748,
        flags: 0x0f1e_2d3c_4b5a_6978,
        wakeup_events: 0x5152_5354,
        bp_type: 0x5556_5758,
        config1: 0x6162_6364_6566_6768,
        config2: 0x7172_7374_7576_7778,
        branch_sample_type: 0x8182_8384_8586_8788,
        sample_regs_user: 0x9192_9394_9596_9798,
        sample_stack_user: 0xa1a2_a3a4,
        clockid: -2, // 0xffff_fffe
        sample_regs_intr: 0xb1b2_b3b4_b5b6_b7b8,
        aux_watermark: 0xc1c2_c3c4,
        sample_max_stack: 0xc5c6,
        reserved_2: 0xc7c8,
        aux_sample_size: 0xd1d2_d3d4,
        reserved_3: 0xd5d6_d7d8,
        sig_data: 0xe1e2_e3e4_e5e6_e7e8,
        config3: 0xf1f2_f3f4_f5f6_f7f8,
    }
}

fn attr_fields(a: &PerfEventAttr) -> Vec<Field> {
    vec![
        (0, 4, u64::from(a.type_), N),
        (4, 4, u64::from(a.size), N),
        (8, 8, a.config, N),
        (16, 8, a.sample_period, N),
        (24, 8, a.sample_type, N),
        (32, 8, a.read_format, N),
        (40, 8, a.flags, Kind::Bits),
        (48, 4, u64::from(a.wakeup_events), N),
        (52, 4, u64::from(a.bp_type), N),
        (56, 8, a.config1, N),
        (64, 8, a.config2, N),
        (72, 8, a.branch_sample_type, N),
        (80, 8, a.sample_regs_user, N),
        (88, 4, u64::from(a.sample_stack_user), N),
        (92, 4, u64::from(a.clockid as u32), N),
        (96, 8, a.sample_regs_intr, N),
        (104, 4, u64::from(a.aux_watermark), N),
        (108, 2, u64::from(a.sample_max_stack), N),
        (110, 2, u64::from(a.reserved_2), N),
        (112, 4, u64::from(a.aux_sample_size), N),
        (116, 4, u64::from(a.reserved_3), N),
        (120, 8, a.sig_data, N),
        (128, 8, a.config3, N),
    ]
}

#[test]
fn attr_fields_and_flags_word() {
    let a = full_attr();
    check_fields("PerfEventAttr 136", &a, &attr_fields(&a));
    let a128 = PerfEventAttr {
        size: 128,
        config3: 0,
        ..a
    };
    let mut f = attr_fields(&a128);
    f.pop();
    check_fields("PerfEventAttr 128", &a128, &f);
}

/// The doc's "Other endianness" rule for the bit-field word, on named flags, and perf's own
/// reading of it (`swap_bitfield`: reverse each byte's bits, no byte swap).
#[test]
fn attr_flags_follow_perfs_cross_endian_rule() {
    let flags = attr_flags::DISABLED
        | attr_flags::SAMPLE_ID_ALL
        | attr_flags::EXCLUDE_GUEST
        | attr_flags::MMAP2
        | attr_flags::REMOVE_ON_EXEC;
    let a = PerfEventAttr {
        size: 128,
        flags,
        ..Default::default()
    };
    let le = to_vec(&a, Endian::Little).unwrap();
    let be = to_vec(&a, Endian::Big).unwrap();
    // Bits 0; 18, 20, 23; 36.
    assert_eq!(&le[40..48], &[0x01, 0, 0x94, 0, 0x10, 0, 0, 0]);
    assert_eq!(&be[40..48], &[0x80, 0, 0x29, 0, 0x08, 0, 0, 0]);
    // What perf 6.1 does with a byte-swapped file's flags gives back the flags.
    let mut word: [u8; 8] = be[40..48].try_into().unwrap();
    word.iter_mut().for_each(|b| *b = b.reverse_bits());
    assert_eq!(u64::from_le_bytes(word), flags);
    // And it is not a plain byte swap.
    assert_ne!(&be[40..48], &flags.to_be_bytes());
    assert_eq!(&be[4..8], &128u32.to_be_bytes());
}

#[test]
fn strings_and_records() {
    let s = HeaderString::new(b"vm-host\0junk");
    let le = to_vec(&s, Endian::Little).unwrap();
    let be = to_vec(&s, Endian::Big).unwrap();
    assert_eq!(&le[..4], &64u32.to_le_bytes());
    assert_eq!(&be[..4], &64u32.to_be_bytes());
    assert_eq!(
        &le[4..],
        &be[4..],
        "string bytes do not depend on the order"
    );
    assert_eq!(&be[4..12], b"vm-host\0");
    assert!(be[12..].iter().all(|&b| b == 0));

    let items = ["perf", "record"];
    let l = StringList::new(&items);
    let le = to_vec(&l, Endian::Little).unwrap();
    let be = to_vec(&l, Endian::Big).unwrap();
    assert_eq!(&be[..4], &2u32.to_be_bytes());
    assert_eq!(&le[..4], &2u32.to_le_bytes());
    assert_eq!(&be[4..8], &64u32.to_be_bytes());
    assert_eq!(&be[72..76], &64u32.to_be_bytes());
    assert_eq!(&be[76..82], b"record");
    assert_eq!(&le[8..72], &be[8..72]);
    assert_eq!(&le[76..], &be[76..]);
    assert_eq!(&le[72..76], &64u32.to_le_bytes());

    let payload = [1u8, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    let parts: [&[u8]; 1] = [&payload];
    let r = Record::padded(0x0a0b_0c0d, 0x0102, &parts);
    let le = to_vec(&r, Endian::Little).unwrap();
    let be = to_vec(&r, Endian::Big).unwrap();
    assert_eq!(&be[..8], &[0x0a, 0x0b, 0x0c, 0x0d, 0x01, 0x02, 0, 24]);
    assert_eq!(&le[..8], &[0x0d, 0x0c, 0x0b, 0x0a, 0x02, 0x01, 24, 0]);
    // The payload is written as given, then zero padded.
    assert_eq!(&be[8..18], &payload);
    assert_eq!(&le[8..], &be[8..]);
    assert_eq!(&be[18..], &[0; 6]);
}

#[test]
fn event_desc_numbers_are_in_file_order() {
    let ids_a = [0x0102_0304_0506_0708u64, 0x1112_1314_1516_1718];
    let ids_b = [0x2122_2324_2526_2728u64];
    let a0 = PerfEventAttr {
        size: 0, // ignored: EVENT_DESC writes every attr with the file's attr size
        type_: 2,
        config: 372,
        flags: attr_flags::DISABLED,
        ..Default::default()
    };
    let events = [
        EventEntry {
            attr: a0,
            name: "sched:sched_switch",
            ids: &ids_a,
        },
        EventEntry {
            attr: PerfEventAttr {
                type_: 1,
                config: 9,
                ..a0
            },
            name: "dummy:u",
            ids: &ids_b,
        },
    ];
    let be = to_vec(&EventDescFeature::new(&events), Endian::Big).unwrap();
    let le = to_vec(&EventDescFeature::new(&events), Endian::Little).unwrap();
    assert_eq!(be.len(), le.len());
    assert_eq!(be.len(), 8 + (128 + 4 + 68 + 16) + (128 + 4 + 68 + 8));
    assert_eq!(&be[0..4], &2u32.to_be_bytes());
    assert_eq!(&be[4..8], &128u32.to_be_bytes());
    let mut pos = 8;
    for e in &events {
        let attr_be = to_vec(&e.attr_with_size(128), Endian::Big).unwrap();
        assert_eq!(&be[pos..pos + 128], &attr_be[..]);
        assert_eq!(&be[pos + 4..pos + 8], &128u32.to_be_bytes());
        pos += 128;
        assert_eq!(&be[pos..pos + 4], &(e.ids.len() as u32).to_be_bytes());
        pos += 4;
        assert_eq!(&be[pos..pos + 4], &64u32.to_be_bytes());
        assert_eq!(&be[pos + 4..pos + 4 + e.name.len()], e.name.as_bytes());
        assert!(be[pos + 4 + e.name.len()..pos + 68].iter().all(|&b| b == 0));
        pos += 68;
        for id in e.ids {
            assert_eq!(&be[pos..pos + 8], &id.to_be_bytes());
            assert_eq!(&le[pos..pos + 8], &id.to_le_bytes());
            pos += 8;
        }
    }
    assert_eq!(pos, be.len());

    // config3 makes every attr of the file 136 bytes.
    let v8 = [
        events[0],
        EventEntry {
            attr: PerfEventAttr { config3: 1, ..a0 },
            ..events[1]
        },
    ];
    let be = to_vec(&EventDescFeature::new(&v8), Endian::Big).unwrap();
    assert_eq!(&be[4..8], &136u32.to_be_bytes());
    assert_eq!(&be[12..16], &136u32.to_be_bytes());
    assert_eq!(be.len(), 8 + (136 + 4 + 68 + 16) + (136 + 4 + 68 + 8));
}

#[test]
fn layout_encoders_in_both_orders() {
    let ids_a = [0x0102_0304_0506_0708u64, 2];
    let ids_b = [3u64];
    let a = PerfEventAttr {
        type_: 1,
        size: 128,
        config: 0,
        flags: attr_flags::SAMPLE_ID_ALL,
        ..Default::default()
    };
    let events = [
        EventEntry {
            attr: a,
            name: "a",
            ids: &ids_a,
        },
        EventEntry {
            attr: a,
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
            index: feature::EVENT_DESC,
            len: 0x0102,
        },
    ];
    let l = FileLayout::plan(LayoutInput {
        order: SectionOrder::AttrsFirst,
        events: &events,
        data_size: 0x0100,
        features: &features,
    })
    .unwrap();
    for endian in [Endian::Little, Endian::Big] {
        let u64b = |v: u64| endian.u64_bytes(v);
        let ids = to_vec(&l.ids_encoder(), endian).unwrap();
        let expected: Vec<u8> = [ids_a[0], ids_a[1], ids_b[0]]
            .iter()
            .flat_map(|&v| u64b(v))
            .collect();
        assert_eq!(ids, expected, "{endian:?} ids");

        let attrs = to_vec(&l.attrs_encoder(), endian).unwrap();
        let mut expected = Vec::new();
        for (e, s) in events.iter().zip(l.ids_sections()) {
            expected.extend(to_vec(&e.attr_with_size(128), endian).unwrap());
            expected.extend(u64b(s.offset));
            expected.extend(u64b(s.size));
        }
        assert_eq!(attrs, expected, "{endian:?} attrs");
        // The ids sections point right after the header, 16 then 8 bytes.
        assert_eq!(&attrs[128..144], &[u64b(104), u64b(16)].concat()[..]);
        assert_eq!(&attrs[272..288], &[u64b(120), u64b(8)].concat()[..]);

        let table = to_vec(&l.feature_table_encoder(), endian).unwrap();
        let payloads = l.feature_payloads().offset;
        let expected = [u64b(payloads), u64b(68), u64b(payloads + 68), u64b(0x0102)].concat();
        assert_eq!(table, expected, "{endian:?} feature table");
    }
}

/// A generic-endian reader of the tracing data, to check every number of a big-endian blob.
struct Pieces<'a> {
    big: u8,
    long_size: u8,
    page_size: u32,
    header_page: &'a [u8],
    header_event: &'a [u8],
    ftraces: Vec<&'a [u8]>,
    systems: Vec<(&'a [u8], Vec<&'a [u8]>)>,
    kallsyms: &'a [u8],
    printk: &'a [u8],
    saved_cmdline: &'a [u8],
}

struct Rd<'a> {
    blob: &'a [u8],
    pos: usize,
    e: Endian,
}

impl<'a> Rd<'a> {
    fn take(&mut self, n: usize) -> &'a [u8] {
        let b = &self.blob[self.pos..self.pos + n];
        self.pos += n;
        b
    }

    fn u32(&mut self) -> u32 {
        self.e.read_u32(self.take(4).try_into().unwrap())
    }

    fn len32(&mut self) -> usize {
        self.u32() as usize
    }

    fn len64(&mut self) -> usize {
        usize::try_from(self.e.read_u64(self.take(8).try_into().unwrap())).unwrap()
    }

    fn c_str(&mut self) -> &'a [u8] {
        let n = self.blob[self.pos..].iter().position(|&b| b == 0).unwrap();
        let s = self.take(n);
        self.pos += 1;
        s
    }
}

fn parse_tracing(blob: &[u8], e: Endian) -> Pieces<'_> {
    let mut r = Rd { blob, pos: 0, e };
    assert_eq!(r.take(14), b"\x17\x08\x44tracing0.6\0");
    let big = r.take(1)[0];
    let long_size = r.take(1)[0];
    let page_size = r.u32();
    assert_eq!(r.c_str(), b"header_page");
    let n = r.len64();
    let header_page = r.take(n);
    assert_eq!(r.c_str(), b"header_event");
    let n = r.len64();
    let header_event = r.take(n);
    let ftraces = (0..r.u32())
        .map(|_| {
            let n = r.len64();
            r.take(n)
        })
        .collect();
    let mut systems = Vec::new();
    for _ in 0..r.u32() {
        let name = r.c_str();
        let events = (0..r.u32())
            .map(|_| {
                let n = r.len64();
                r.take(n)
            })
            .collect();
        systems.push((name, events));
    }
    let n = r.len32();
    let kallsyms = r.take(n);
    let n = r.len32();
    let printk = r.take(n);
    let n = r.len64();
    let saved_cmdline = r.take(n);
    assert_eq!(r.pos, blob.len(), "tracing data: trailing bytes");
    Pieces {
        big,
        long_size,
        page_size,
        header_page,
        header_event,
        ftraces,
        systems,
        kallsyms,
        printk,
        saved_cmdline,
    }
}

#[test]
fn tracing_data_flag_and_numbers_follow_the_order() {
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
    let ftraces: [&[u8]; 2] = [b"name: function\nID: 1\n", b"x"];
    let td = TracingData {
        header_page: b"page text",
        ftraces: &ftraces,
        events: &events,
        kallsyms: b"ffffffff81000000 T _text\n",
        printk: b"0x1 : \"x\"\n",
        saved_cmdline: b"1 init\n",
        ..TracingData::new(4, 0x0001_0203)
    };
    let le = to_vec(&td, Endian::Little).unwrap();
    let be = to_vec(&td, Endian::Big).unwrap();
    assert_eq!(le.len(), be.len());
    assert_eq!(le[14], 0);
    assert_eq!(be[14], 1);
    assert_eq!(be[15], 4);
    assert_eq!(&be[16..20], &[0x00, 0x01, 0x02, 0x03]);
    assert_eq!(&be[32..40], &9u64.to_be_bytes(), "header_page length");
    assert_eq!(&le[32..40], &9u64.to_le_bytes());
    for (blob, endian, flag) in [(&le, Endian::Little, 0), (&be, Endian::Big, 1)] {
        let p = parse_tracing(blob, endian);
        assert_eq!(p.big, flag);
        assert_eq!(p.long_size, 4);
        assert_eq!(p.page_size, 0x0001_0203);
        assert_eq!(p.header_page, b"page text");
        assert_eq!(p.header_event, tracing_data::DEFAULT_HEADER_EVENT);
        assert_eq!(p.ftraces, ftraces);
        assert_eq!(p.systems.len(), 2);
        assert_eq!(p.systems[0].0, b"sched");
        assert_eq!(
            p.systems[0].1,
            [
                &b"name: sched_switch\nID: 372\n"[..],
                b"name: sched_wakeup\nID: 373\n"
            ]
        );
        assert_eq!(p.systems[1].0, b"irq");
        assert_eq!(p.systems[1].1, [&b"name: irq_handler_entry\nID: 40\n"[..]]);
        assert_eq!(p.kallsyms, td.kallsyms);
        assert_eq!(p.printk, td.printk);
        assert_eq!(p.saved_cmdline, td.saved_cmdline);
    }
    // The tail, read by hand from the end: u64 saved_cmdlines size, big-endian.
    let tail = be.len() - 7 - 8;
    assert_eq!(&be[tail..tail + 8], &7u64.to_be_bytes());
}

// ---------------------------------------------------------------------------------------------
// Errors.

fn both<E: Encode + ?Sized>(value: &E, err: EncodeError) {
    assert_eq!(encoded_len(value).unwrap_err(), err);
    for endian in [Endian::Little, Endian::Big] {
        assert_eq!(to_vec(value, endian).unwrap_err(), err, "{endian:?}");
    }
}

#[test]
fn long_event_names_are_too_long() {
    let long = "a".repeat(0x10000);
    let events = [EventEntry {
        attr: PerfEventAttr::default(),
        name: &long,
        ids: &[1],
    }];
    let err = EncodeError::TooLong {
        what: "event name",
        len: 0x10000,
        max: MAX_EVENT_NAME_LEN as u64,
    };
    assert_eq!(MAX_EVENT_NAME_LEN, 0xffff);
    assert_eq!(events[0].check(), Err(err));
    both(&EventDescFeature::new(&events), err);
    let plan = FileLayout::plan(LayoutInput {
        order: SectionOrder::AttrsLast,
        events: &events,
        data_size: 0,
        features: &[],
    });
    assert_eq!(plan.unwrap_err(), err);

    // One byte less is accepted: its string is 0xffff bytes, NUL and padding: len 0x10000.
    let ok = [EventEntry {
        name: &long[..0xffff],
        ..events[0]
    }];
    let v = to_vec(&EventDescFeature::new(&ok), Endian::Big).unwrap();
    assert_eq!(&v[140..144], &0x10000u32.to_be_bytes());
    assert_eq!(v.len(), 8 + 128 + 4 + 4 + 0x10000 + 8);
}

#[test]
fn nul_in_names_is_invalid() {
    let events = [EventEntry {
        attr: PerfEventAttr::default(),
        name: "cpu\0clock",
        ids: &[],
    }];
    let err = EncodeError::InvalidValue {
        what: "event name contains a NUL byte",
    };
    assert_eq!(events[0].check(), Err(err));
    both(&EventDescFeature::new(&events), err);
    let plan = FileLayout::plan(LayoutInput {
        order: SectionOrder::AttrsFirst,
        events: &events,
        data_size: 0,
        features: &[],
    });
    assert_eq!(plan.unwrap_err(), err);

    assert!(matches!(
        HeaderString::from_str_strict("a\0b"),
        Err(EncodeError::InvalidValue { .. })
    ));
    let bad_system = [TracepointFormat {
        system: "sch\0ed",
        format: FormatText::Text(b"x"),
    }];
    both(
        &TracingData {
            events: &bad_system,
            ..TracingData::new(8, 4096)
        },
        EncodeError::InvalidValue {
            what: "tracepoint system name contains a NUL byte",
        },
    );
}

#[test]
fn unpublished_attr_sizes_are_invalid() {
    for size in [0u32, 100, 63, 127, 129, 137, 144] {
        let a = PerfEventAttr {
            size,
            config: 1,
            ..Default::default()
        };
        both(&a, EncodeError::InvalidAttrSize { size });
    }
    // A published size too small for a set field would drop it: also refused, before a
    // byte is written. (`encoded_len` alone does not see it: it checks the size only.)
    for (size, a) in [
        (
            128,
            PerfEventAttr {
                size: 128,
                config3: 1,
                ..Default::default()
            },
        ),
        (
            64,
            PerfEventAttr {
                size: 64,
                config2: 1,
                ..Default::default()
            },
        ),
    ] {
        for endian in [Endian::Little, Endian::Big] {
            assert_eq!(
                to_vec(&a, endian).unwrap_err(),
                EncodeError::InvalidAttrSize { size }
            );
            let mut buf = [0xA5u8; 200];
            assert_eq!(
                perf_encode::to_slice(&a, endian, &mut buf).unwrap_err(),
                EncodeError::InvalidAttrSize { size }
            );
            assert!(buf.iter().all(|&b| b == 0xA5));
        }
    }
}

#[test]
fn record_sizes() {
    let three: [&[u8]; 1] = [b"abc"];
    both(
        &Record::new(record_type::SAMPLE, 0, &three),
        EncodeError::InvalidRecordSize { size: 11 },
    );
    let split: [&[u8]; 2] = [b"abc", b"defgh"];
    assert_eq!(
        to_vec(&Record::new(record_type::SAMPLE, 0, &split), Endian::Big).unwrap()[6..8],
        [0, 16]
    );

    assert_eq!(MAX_RECORD_SIZE, 0xfff8);
    let max = vec![0u8; 0xfff8 - 8];
    let parts: [&[u8]; 1] = [&max];
    let v = to_vec(&Record::new(record_type::SAMPLE, 0, &parts), Endian::Big).unwrap();
    assert_eq!(&v[6..8], &[0xff, 0xf8]);

    let over = vec![0u8; 0xfff8 - 8 + 8];
    let parts: [&[u8]; 1] = [&over];
    let too_long = |len| EncodeError::TooLong {
        what: "SAMPLE",
        len,
        max: 0xfff8,
    };
    both(
        &Record::new(record_type::SAMPLE, 0, &parts),
        too_long(0x10000),
    );
    // Padding up past the maximum.
    let odd = vec![0u8; 0xfff8 - 8 + 1];
    let parts: [&[u8]; 1] = [&odd];
    both(
        &Record::padded(record_type::SAMPLE, 0, &parts),
        too_long(0x10000),
    );
    // Not a multiple of 8 and too large at once: too large first.
    let parts: [&[u8]; 1] = [&odd];
    both(
        &Record::new(record_type::SAMPLE, 0, &parts),
        too_long(0xfff9),
    );
}

#[test]
fn tracepoint_systems_must_be_grouped() {
    let t = |system| TracepointFormat {
        system,
        format: FormatText::Text(b"name: x\nID: 1\n"),
    };
    let bad = [t("sched"), t("irq"), t("sched")];
    both(
        &TracingData {
            events: &bad,
            ..TracingData::new(8, 4096)
        },
        EncodeError::Unordered {
            what: "tracepoint formats (group them by system)",
        },
    );
    let ok = [t("sched"), t("sched"), t("irq")];
    let v = to_vec(
        &TracingData {
            events: &ok,
            ..TracingData::new(8, 4096)
        },
        Endian::Big,
    )
    .unwrap();
    let p = parse_tracing(&v, Endian::Big);
    assert_eq!(p.systems.len(), 2);
    assert_eq!(p.systems[0].1.len(), 2);
}
