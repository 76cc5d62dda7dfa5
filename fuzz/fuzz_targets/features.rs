//! Every encoder of perf-encode with arbitrary values, byte order and buffer length: the
//! promises of `check_encoder` (exact length, untouched buffer on BufferTooSmall, to_vec ==
//! to_slice) plus the exact bytes, from reference encodings written here.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use perf_abi::record_fields::{EVENT_UPDATE_NAME, MAX_RECORD_SIZE};
use perf_abi::{
    ClockData, CompressedInfo, IdIndexEntry, NrCpus, PerfEventHeader, PerfFileHeader,
    PerfFileSection, PerfPipeHeader, SampleTime, TimeConv, MAX_FEATURE_PAYLOAD,
};
use perf_data_fuzz::{
    check_encoder, ref_attr, ref_header_string, ref_u16, ref_u32, ref_u64, ArbAttr, ArbEndian,
    BufLen, Name,
};
use perf_encode::features::{
    check_feature_payload, event_desc_names, ClockResolution, EventDescFeature, FormatText,
    TotalMem, TracepointFormat, TracingData,
};
use perf_encode::records::{
    Compressed, EventUpdateName, FinishedInit, FinishedRound, HeaderAttr, HeaderFeature,
    HeaderTracingData, IdIndex, Record, RecordFramer,
};
use perf_encode::{
    attr, c_str_prefix, events_attr_size, CountingOutput, EncodeError, Encoder, Endian, EventEntry,
    HeaderString, Output, SliceOutput, StringList, MAX_EVENT_NAME_LEN,
};

#[derive(Arbitrary, Debug)]
struct ArbEvent {
    attr: ArbAttr,
    name: Name,
    ids: Vec<u64>,
}

#[derive(Arbitrary, Debug)]
enum ArbFormat {
    Text(Vec<u8>),
    /// A tracefs format text parsed by tracepoint_decode (used as `Parsed` when it parses).
    Parsed {
        long_is_64: bool,
        text: String,
    },
}

#[derive(Arbitrary, Debug)]
struct ArbTracepoint {
    system: String,
    format: ArbFormat,
}

#[derive(Arbitrary, Debug)]
struct ArbTracingData {
    long_size: u8,
    page_size: u32,
    header_page: Vec<u8>,
    header_event: Vec<u8>,
    ftraces: Vec<Vec<u8>>,
    events: Vec<ArbTracepoint>,
    sort_by_system: bool,
    kallsyms: Vec<u8>,
    printk: Vec<u8>,
    saved_cmdline: Vec<u8>,
}

#[derive(Arbitrary, Debug)]
enum Op {
    U8(u8),
    U16(u16),
    U32(u32),
    I32(i32),
    U64(u64),
    U64s(Vec<u64>),
    Bytes(Vec<u8>),
    Zeros(u16),
    Encode(Box<Item>),
}

#[derive(Arbitrary, Debug)]
enum Item {
    HeaderString(Vec<u8>),
    /// Any bytes as any feature's raw payload: the check never panics and never reads past
    /// them.
    RawPayload(u8, Vec<u8>),
    HeaderStringStrict(String),
    StringList(Vec<Vec<u8>>),
    NrCpus(u32, u32),
    SampleTime(u64, u64),
    ClockData(u32, u32, u64, u64),
    ClockResolution(u64),
    TotalMem(u64),
    EventDesc(Vec<ArbEvent>),
    TracingData(Box<ArbTracingData>),
    Record {
        type_: u32,
        misc: u16,
        parts: Vec<Vec<u8>>,
        /// Extra zero payload (to reach the 0xfff8 limit), mod 0x10000.
        zeros: u16,
        pad: bool,
    },
    Attr(ArbAttr),
    FileHeader([u64; 13]),
    FileSection(u64, u64),
    EventHeader(u32, u16, u16),
    PipeHeader(u64, u64),
    FinishedRound,
    FinishedInit,
    /// Pipe mode's HEADER_ATTR: an attr and its ids (`extra_ids` more, all 0x11, mod 9000).
    HeaderAttr {
        attr: ArbAttr,
        ids: Vec<u64>,
        extra_ids: u16,
    },
    /// HEADER_FEATURE with a payload of the bytes plus `extra` (mod 0x10010) zeros.
    HeaderFeature {
        index: u8,
        payload: Vec<u8>,
        extra: u32,
        end: bool,
    },
    HeaderTracingData {
        data: Vec<u8>,
    },
    /// COMPRESSED around the bytes plus `extra` (mod 0x10010) bytes of 0x5a, padded or not.
    Compressed {
        data: Vec<u8>,
        extra: u32,
        pad: bool,
    },
    /// HEADER_COMPRESSED's payload.
    CompressedInfo([u32; 5]),
    IdIndex {
        entries: Vec<(u64, u64, u64, u64)>,
        /// More entries (mod 2100), to cross the 2047-entry limit.
        extra: u16,
    },
    TimeConv([u64; 5], u8, u8, [u8; 6]),
    EventUpdateName {
        id: u64,
        name: Name,
    },
    /// Primitive writes through an `Encoder` into a `SliceOutput` of `cap` bytes.
    Ops {
        cap: u16,
        ops: Vec<Op>,
    },
}

#[derive(Arbitrary, Debug)]
struct Input {
    endian: ArbEndian,
    buf_len: BufLen,
    fill: u8,
    item: Item,
}

fuzz_target!(|input: Input| {
    let e = input.endian.endian();
    run(&input.item, e, input.buf_len, input.fill);
});

fn run(item: &Item, e: Endian, buf_len: BufLen, fill: u8) {
    match item {
        Item::HeaderString(v) => {
            let s = HeaderString::new(v);
            let content = c_str_prefix(v);
            assert!(!content.contains(&0));
            assert_eq!(content, &v[..content.len()]);
            assert!(content.len() == v.len() || v[content.len()] == 0);
            assert_eq!(s.content(), content);
            let padded = s.padded_len().expect("short strings fit");
            assert_eq!(padded % 64, 0);
            assert!(padded as usize > content.len() && padded as usize <= content.len() + 64);
            let got = check_encoder(&s, e, buf_len, fill).expect("short strings encode");
            assert_eq!(got, ref_header_string(content, e));
            // What the encoder writes, the raw payload check takes.
            check_feature_payload(perf_abi::feature::HOSTNAME, e, &got).expect("payload check");
        }
        Item::RawPayload(index, bytes) => {
            // Any bytes: the names end where an event does not fit, each within the bytes.
            assert!(event_desc_names(bytes, e).count() <= bytes.len());
            // Read as TRACING_DATA: what is read lies within the bytes.
            if let Ok(t) = perf_encode::features::TracingDataParts::parse(bytes) {
                assert!(t.len <= bytes.len());
                assert!(t.events().count() + t.ftraces().count() <= bytes.len());
            }
            let r = check_feature_payload(*index, e, bytes);
            if let Err(err) = r {
                assert_eq!(err.feature, *index);
                assert!(err.at <= bytes.len(), "{err:?}");
            }
        }
        Item::HeaderStringStrict(text) => match HeaderString::from_str_strict(text) {
            Ok(s) => {
                assert!(!text.as_bytes().contains(&0));
                assert_eq!(s.content(), text.as_bytes());
                let got = check_encoder(&s, e, buf_len, fill).expect("encodes");
                assert_eq!(got, ref_header_string(text.as_bytes(), e));
            }
            Err(err) => {
                assert!(text.as_bytes().contains(&0));
                assert!(matches!(err, EncodeError::InvalidValue { .. }));
            }
        },
        Item::StringList(items) => {
            let list = StringList::new(items);
            let got = check_encoder(&list, e, buf_len, fill).expect("short lists encode");
            let mut want = ref_u32(items.len() as u32, e).to_vec();
            for s in items {
                want.extend_from_slice(&ref_header_string(c_str_prefix(s), e));
            }
            assert_eq!(got, want);
            check_feature_payload(perf_abi::feature::CMDLINE, e, &got).expect("payload check");
        }
        &Item::NrCpus(available, online) => {
            let got = check_encoder(&NrCpus { available, online }, e, buf_len, fill).unwrap();
            assert_eq!(got, [ref_u32(available, e), ref_u32(online, e)].concat());
        }
        &Item::SampleTime(first, last) => {
            let got = check_encoder(&SampleTime { first, last }, e, buf_len, fill).unwrap();
            assert_eq!(got, [ref_u64(first, e), ref_u64(last, e)].concat());
        }
        &Item::ClockData(version, clockid, wall_clock_ns, clockid_time_ns) => {
            let c = ClockData {
                version,
                clockid,
                wall_clock_ns,
                clockid_time_ns,
            };
            let got = check_encoder(&c, e, buf_len, fill).unwrap();
            let want = [
                &ref_u32(version, e)[..],
                &ref_u32(clockid, e),
                &ref_u64(wall_clock_ns, e),
                &ref_u64(clockid_time_ns, e),
            ]
            .concat();
            assert_eq!(got, want);
        }
        &Item::ClockResolution(ns) => {
            let got = check_encoder(&ClockResolution { ns }, e, buf_len, fill).unwrap();
            assert_eq!(got, ref_u64(ns, e));
        }
        &Item::TotalMem(kib) => {
            let got = check_encoder(&TotalMem { kib }, e, buf_len, fill).unwrap();
            assert_eq!(got, ref_u64(kib, e));
        }
        Item::EventDesc(events) => event_desc(events, e, buf_len, fill),
        Item::TracingData(td) => tracing_data(td, e, buf_len, fill),
        Item::Record {
            type_,
            misc,
            parts,
            zeros,
            pad,
        } => record(*type_, *misc, parts, *zeros, *pad, e, buf_len, fill),
        Item::Attr(a) => {
            let a = a.attr();
            let want = ref_attr(&a, e);
            let got = check_encoder(&a, e, buf_len, fill);
            match (&want, &got) {
                (Ok(w), Some(g)) => assert_eq!(w, g),
                (Err(_), None) => {
                    assert_eq!(perf_encode::to_vec(&a, e), want.clone().map(|_| Vec::new()))
                }
                _ => panic!("attr {a:?}: expected {want:?}, got {got:?}"),
            }
            assert_eq!(
                attr::is_published_size(a.size),
                perf_abi::attr::ATTR_SIZES.contains(&a.size)
            );
            let flags = attr::flags_bytes(a.flags, e);
            let mut back = flags;
            if e.is_big() {
                back.iter_mut().for_each(|b| *b = b.reverse_bits());
            }
            assert_eq!(u64::from_le_bytes(back), a.flags);
        }
        Item::FileHeader(w) => {
            let h = PerfFileHeader {
                magic: w[0],
                size: w[1],
                attr_size: w[2],
                attrs: PerfFileSection {
                    offset: w[3],
                    size: w[4],
                },
                data: PerfFileSection {
                    offset: w[5],
                    size: w[6],
                },
                event_types: PerfFileSection {
                    offset: w[7],
                    size: w[8],
                },
                features: [w[9], w[10], w[11], w[12]],
            };
            let got = check_encoder(&h, e, buf_len, fill).unwrap();
            let want: Vec<u8> = w.iter().flat_map(|&x| ref_u64(x, e)).collect();
            assert_eq!(got, want);
        }
        &Item::FileSection(offset, size) => {
            let got = check_encoder(&PerfFileSection { offset, size }, e, buf_len, fill).unwrap();
            assert_eq!(got, [ref_u64(offset, e), ref_u64(size, e)].concat());
        }
        &Item::EventHeader(type_, misc, size) => {
            let h = PerfEventHeader { type_, misc, size };
            let got = check_encoder(&h, e, buf_len, fill).unwrap();
            let want = [&ref_u32(type_, e)[..], &ref_u16(misc, e), &ref_u16(size, e)].concat();
            assert_eq!(got, want);
        }
        &Item::PipeHeader(magic, size) => {
            let got = check_encoder(&PerfPipeHeader { magic, size }, e, buf_len, fill).unwrap();
            assert_eq!(got, [ref_u64(magic, e), ref_u64(size, e)].concat());
        }
        Item::FinishedRound => {
            let got = check_encoder(&FinishedRound, e, buf_len, fill).unwrap();
            assert_eq!(got, [&ref_u32(68, e)[..], &[0, 0], &ref_u16(8, e)].concat());
        }
        Item::FinishedInit => {
            let got = check_encoder(&FinishedInit, e, buf_len, fill).unwrap();
            assert_eq!(got, [&ref_u32(82, e)[..], &[0, 0], &ref_u16(8, e)].concat());
        }
        Item::Ops { cap, ops } => encoder_ops(usize::from(*cap), ops, e, fill),
        Item::HeaderAttr {
            attr,
            ids,
            extra_ids,
        } => {
            let a = attr.attr();
            let mut ids = ids.clone();
            ids.extend(std::iter::repeat_n(0x11, usize::from(extra_ids % 9000)));
            let got = check_encoder(
                &HeaderAttr {
                    attr: &a,
                    ids: &ids,
                },
                e,
                buf_len,
                fill,
            );
            let want = ref_attr(&a, e).ok().and_then(|attr_bytes| {
                let size = 8 + attr_bytes.len() + 8 * ids.len();
                let size = u16::try_from(size).ok()?;
                let mut v = [&ref_u32(64, e)[..], &[0, 0], &ref_u16(size, e)].concat();
                v.extend(attr_bytes);
                ids.iter().for_each(|&id| v.extend(ref_u64(id, e)));
                Some(v)
            });
            assert_eq!(got, want, "HEADER_ATTR");
            if let Some(v) = got {
                assert_eq!(v.len() % 8, 0);
                frames_as_one(&v, e);
            }
        }
        Item::HeaderFeature {
            index,
            payload,
            extra,
            end,
        } => {
            let mut payload = payload.clone();
            payload.resize(payload.len() + (*extra % 0x10010) as usize, 0);
            let hf = if *end {
                HeaderFeature::END
            } else {
                HeaderFeature {
                    index: *index,
                    payload: &payload,
                }
            };
            let got = check_encoder(&hf, e, buf_len, fill);
            let want = (hf.payload.len() <= MAX_FEATURE_PAYLOAD).then(|| {
                let size = (16 + hf.payload.len()) as u16;
                let mut v = [&ref_u32(80, e)[..], &[0, 0], &ref_u16(size, e)].concat();
                v.extend(ref_u64(u64::from(hf.index), e));
                v.extend_from_slice(hf.payload);
                v
            });
            assert_eq!(got, want, "HEADER_FEATURE");
            if *end {
                assert_eq!(hf.index, perf_abi::feature::LAST_FEATURE);
            }
            if let Some(v) = got {
                frames_as_one(&v, e);
            }
        }
        Item::HeaderTracingData { data } => {
            let got = check_encoder(&HeaderTracingData { data }, e, buf_len, fill)
                .expect("small tracing data encodes");
            let padded = data.len().div_ceil(8) * 8;
            let mut want = [&ref_u32(66, e)[..], &[0, 0], &ref_u16(16, e)].concat();
            want.extend(ref_u32(padded as u32, e));
            want.extend([0; 4]);
            want.extend_from_slice(data);
            want.resize(16 + padded, 0);
            assert_eq!(got, want, "HEADER_TRACING_DATA");
            // The framer skips the payload that follows the 16-byte record.
            frames_as_one(&got, e);
        }
        Item::Compressed { data, extra, pad } => {
            let mut data = data.clone();
            data.resize(data.len() + (*extra % 0x10010) as usize, 0x5a);
            let r = Compressed {
                data: &data,
                pad: *pad,
            };
            let got = check_encoder(&r, e, buf_len, fill);
            // Padded: a zstd skippable frame (magic, u32 length, zeros; little-endian
            // whatever the file's order) of 8..=15 bytes ends the record on a multiple of 8.
            let pad_len = if *pad {
                8 + (8 - data.len() % 8) % 8
            } else {
                0
            };
            let size = 8 + data.len() + pad_len;
            let max = if *pad { 65_528 } else { 65_535 };
            let want = (size <= max).then(|| {
                let mut v = [&ref_u32(81, e)[..], &[0, 0], &ref_u16(size as u16, e)].concat();
                v.extend_from_slice(&data);
                if *pad {
                    v.extend(0x184D_2A50u32.to_le_bytes());
                    v.extend((pad_len as u32 - 8).to_le_bytes());
                    v.resize(size, 0);
                }
                v
            });
            assert_eq!(got, want, "COMPRESSED");
            if let Some(v) = got {
                if *pad {
                    assert_eq!(v.len() % 8, 0, "a padded COMPRESSED record is aligned");
                }
                frames_as_one(&v, e);
            }
        }
        &Item::CompressedInfo(w) => {
            let c = CompressedInfo {
                version: w[0],
                type_: w[1],
                level: w[2],
                ratio: w[3],
                mmap_len: w[4],
            };
            let got = check_encoder(&c, e, buf_len, fill).expect("HEADER_COMPRESSED encodes");
            let want: Vec<u8> = w.iter().flat_map(|&x| ref_u32(x, e)).collect();
            assert_eq!(got, want, "HEADER_COMPRESSED");
        }
        Item::IdIndex { entries, extra } => {
            let mut entries: Vec<IdIndexEntry> = entries
                .iter()
                .map(|&(id, idx, cpu, tid)| IdIndexEntry { id, idx, cpu, tid })
                .collect();
            entries.extend(std::iter::repeat_n(
                IdIndexEntry::default(),
                usize::from(extra % 2100),
            ));
            let got = check_encoder(&IdIndex { entries: &entries }, e, buf_len, fill);
            let want = (entries.len() <= IdIndex::MAX_ENTRIES).then(|| {
                let size = (16 + 32 * entries.len()) as u16;
                let mut v = [&ref_u32(69, e)[..], &[0, 0], &ref_u16(size, e)].concat();
                v.extend(ref_u64(entries.len() as u64, e));
                for x in &entries {
                    for f in [x.id, x.idx, x.cpu, x.tid] {
                        v.extend(ref_u64(f, e));
                    }
                }
                v
            });
            assert_eq!(got, want, "ID_INDEX");
            if let Some(v) = got {
                frames_as_one(&v, e);
            }
        }
        Item::TimeConv(w, zero, short, reserved) => {
            let t = TimeConv {
                time_shift: w[0],
                time_mult: w[1],
                time_zero: w[2],
                time_cycles: w[3],
                time_mask: w[4],
                cap_user_time_zero: *zero,
                cap_user_time_short: *short,
                reserved: *reserved,
            };
            let got = check_encoder(&t, e, buf_len, fill).expect("TIME_CONV encodes");
            let mut want = [&ref_u32(79, e)[..], &[0, 0], &ref_u16(56, e)].concat();
            w.iter().for_each(|&x| want.extend(ref_u64(x, e)));
            want.extend([*zero, *short]);
            want.extend_from_slice(reserved);
            assert_eq!(got, want, "TIME_CONV");
            frames_as_one(&got, e);
        }
        Item::EventUpdateName { id, name } => {
            let name = name.text();
            let got = check_encoder(
                &EventUpdateName {
                    id: *id,
                    name: &name,
                },
                e,
                buf_len,
                fill,
            );
            let size = (name.len() + 1).div_ceil(8) * 8 + 24;
            let want = (!name.contains('\0') && size <= 0xffff).then(|| {
                let mut v = [&ref_u32(78, e)[..], &[0, 0], &ref_u16(size as u16, e)].concat();
                v.extend(ref_u64(EVENT_UPDATE_NAME, e));
                v.extend(ref_u64(*id, e));
                v.extend_from_slice(name.as_bytes());
                v.resize(size, 0);
                v
            });
            assert_eq!(got, want, "EVENT_UPDATE name");
            if let Some(v) = got {
                frames_as_one(&v, e);
            }
        }
    }
}

/// `bytes` is exactly one record for the framer.
fn frames_as_one(bytes: &[u8], e: Endian) {
    let mut f = RecordFramer::new(e);
    f.feed(bytes).expect("an encoded record frames");
    assert!(f.at_boundary(), "an encoded record ends on a boundary");
    assert_eq!(f.records(), 1);
}

fn event_desc(events: &[ArbEvent], e: Endian, buf_len: BufLen, fill: u8) {
    let names: Vec<String> = events.iter().map(|ev| ev.name.text()).collect();
    let entries: Vec<EventEntry<'_>> = events
        .iter()
        .zip(&names)
        .map(|(ev, name)| EventEntry {
            attr: ev.attr.attr(),
            name,
            ids: &ev.ids,
        })
        .collect();
    let attr_size = if entries.iter().any(|x| x.attr.config3 != 0) {
        136
    } else {
        128
    };
    assert_eq!(events_attr_size(&entries), attr_size);
    for x in &entries {
        let read_without_id = x.attr.sample_type & perf_abi::sample_type::READ != 0
            && x.attr.read_format & perf_abi::read_format::ID == 0;
        let ok = x.name.len() <= MAX_EVENT_NAME_LEN
            && !x.name.as_bytes().contains(&0)
            && x.attr.sample_type < perf_abi::sample_type::MAX
            && !read_without_id;
        assert_eq!(
            x.check().is_ok(),
            ok,
            "EventEntry::check for {:?} (sample_type {:#x})",
            x.name.len(),
            x.attr.sample_type
        );
        assert_eq!(x.attr_with_size(attr_size).size, attr_size);
    }
    let valid = entries.iter().all(|x| x.check().is_ok());
    let got = check_encoder(&EventDescFeature::new(&entries), e, buf_len, fill);
    if !valid {
        assert!(got.is_none(), "EVENT_DESC with an invalid entry encoded");
        return;
    }
    let mut want = Vec::new();
    want.extend_from_slice(&ref_u32(entries.len() as u32, e));
    want.extend_from_slice(&ref_u32(attr_size, e));
    for x in &entries {
        let a = x.attr_with_size(attr_size);
        want.extend_from_slice(&ref_attr(&a, e).expect("the file attr size holds every field"));
        want.extend_from_slice(&ref_u32(x.ids.len() as u32, e));
        want.extend_from_slice(&ref_header_string(x.name.as_bytes(), e));
        for &id in x.ids {
            want.extend_from_slice(&ref_u64(id, e));
        }
    }
    assert_eq!(got.expect("valid events encode"), want);
    check_feature_payload(perf_abi::feature::EVENT_DESC, e, &want).expect("payload check");
    // Its names, in order, each to its first NUL.
    let names: Vec<&[u8]> = event_desc_names(&want, e).collect();
    let expected: Vec<&[u8]> = entries
        .iter()
        .map(|x| {
            x.name
                .as_bytes()
                .split(|&b| b == 0)
                .next()
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(names, expected);
}

fn tracing_data(td: &ArbTracingData, e: Endian, buf_len: BufLen, fill: u8) {
    let parsed: Vec<Option<tracepoint_decode::PerfEventFormat>> = td
        .events
        .iter()
        .map(|t| match &t.format {
            ArbFormat::Text(_) => None,
            ArbFormat::Parsed { long_is_64, text } => {
                tracepoint_decode::PerfEventFormat::parse(*long_is_64, &t.system, text)
            }
        })
        .collect();
    let mut events: Vec<TracepointFormat<'_>> = td
        .events
        .iter()
        .zip(&parsed)
        .map(|(t, p)| TracepointFormat {
            system: &t.system,
            format: match (&t.format, p) {
                (_, Some(p)) => FormatText::Parsed(p),
                (ArbFormat::Text(b), None) => FormatText::Text(b),
                (ArbFormat::Parsed { text, .. }, None) => FormatText::Text(text.as_bytes()),
            },
        })
        .collect();
    if td.sort_by_system {
        events.sort_by(|a, b| a.system.cmp(b.system));
    }
    let ftraces: Vec<&[u8]> = td.ftraces.iter().map(Vec::as_slice).collect();
    let value = TracingData {
        long_size: td.long_size,
        page_size: td.page_size,
        header_page: &td.header_page,
        header_event: &td.header_event,
        ftraces: &ftraces,
        events: &events,
        kallsyms: &td.kallsyms,
        printk: &td.printk,
        saved_cmdline: &td.saved_cmdline,
    };
    let got = check_encoder(&value, e, buf_len, fill);

    // The first problem in event order decides the error.
    let mut problem = None;
    for (i, t) in events.iter().enumerate() {
        if t.system.as_bytes().contains(&0) {
            problem = Some(EncodeError::InvalidValue {
                what: "tracepoint system name contains a NUL byte",
            });
            break;
        }
        if i > 0 && events[i - 1].system == t.system {
            continue;
        }
        if events[..i].iter().any(|p| p.system == t.system) {
            problem = Some(EncodeError::Unordered {
                what: "tracepoint formats (group them by system)",
            });
            break;
        }
    }
    if let Some(p) = problem {
        assert!(got.is_none());
        assert_eq!(perf_encode::to_vec(&value, e), Err(p));
        return;
    }

    let text64 = |name: &[u8], text: &[u8], default: &[u8]| {
        let t = if text.is_empty() { default } else { text };
        let mut v = name.to_vec();
        v.push(0);
        v.extend_from_slice(&ref_u64(t.len() as u64, e));
        v.extend_from_slice(t);
        v
    };
    let format_text = |f: &FormatText<'_>| -> Vec<u8> {
        match f {
            FormatText::Text(t) => t.to_vec(),
            FormatText::Parsed(p) => {
                let mut s = String::new();
                p.write_to(&mut s).expect("formats");
                s.into_bytes()
            }
        }
    };
    let mut want = b"\x17\x08\x44tracing0.6\0".to_vec();
    want.push(u8::from(e.is_big()));
    want.push(td.long_size);
    want.extend_from_slice(&ref_u32(td.page_size, e));
    want.extend(text64(
        b"header_page",
        &td.header_page,
        perf_encode::features::tracing_data::DEFAULT_HEADER_PAGE,
    ));
    want.extend(text64(
        b"header_event",
        &td.header_event,
        perf_encode::features::tracing_data::DEFAULT_HEADER_EVENT,
    ));
    want.extend_from_slice(&ref_u32(ftraces.len() as u32, e));
    for f in &ftraces {
        want.extend_from_slice(&ref_u64(f.len() as u64, e));
        want.extend_from_slice(f);
    }
    let mut groups: Vec<(&str, Vec<Vec<u8>>)> = Vec::new();
    for t in &events {
        match groups.last_mut() {
            Some((s, v)) if *s == t.system => v.push(format_text(&t.format)),
            _ => groups.push((t.system, vec![format_text(&t.format)])),
        }
    }
    want.extend_from_slice(&ref_u32(groups.len() as u32, e));
    for (system, formats) in &groups {
        want.extend_from_slice(system.as_bytes());
        want.push(0);
        want.extend_from_slice(&ref_u32(formats.len() as u32, e));
        for f in formats {
            want.extend_from_slice(&ref_u64(f.len() as u64, e));
            want.extend_from_slice(f);
        }
    }
    want.extend_from_slice(&ref_u32(td.kallsyms.len() as u32, e));
    want.extend_from_slice(&td.kallsyms);
    want.extend_from_slice(&ref_u32(td.printk.len() as u32, e));
    want.extend_from_slice(&td.printk);
    want.extend_from_slice(&ref_u64(td.saved_cmdline.len() as u64, e));
    want.extend_from_slice(&td.saved_cmdline);
    assert_eq!(got.expect("grouped tracing data encodes"), want);
}

#[allow(clippy::too_many_arguments)]
fn record(
    type_: u32,
    misc: u16,
    parts: &[Vec<u8>],
    zeros: u16,
    pad: bool,
    e: Endian,
    buf_len: BufLen,
    fill: u8,
) {
    let zero_part = vec![0u8; usize::from(zeros)];
    let mut slices: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    slices.push(&zero_part);
    let r = Record {
        type_,
        misc,
        parts: &slices,
        pad,
    };
    assert!(
        !Record::new(type_, misc, &slices).pad,
        "Record::new does not pad"
    );
    assert!(Record::padded(type_, misc, &slices).pad);
    let payload: usize = slices.iter().map(|p| p.len()).sum();
    let unpadded = 8 + payload;
    let size = if pad {
        unpadded.div_ceil(8) * 8
    } else {
        unpadded
    };
    // Types perf writes unpadded (HEADER_FEATURE, HEADER_BUILD_ID, COMPRESSED; perf-abi's
    // table says which): any size up to the u16 limit.
    let unpadded = perf_abi::record_type::info(type_)
        .is_some_and(|i| i.framing == perf_abi::record_type::Framing::Unpadded);
    let max = if unpadded {
        usize::from(u16::MAX)
    } else {
        MAX_RECORD_SIZE
    };
    let expected_err = if size > max {
        Some(EncodeError::TooLong {
            what: perf_abi::record_type::name(type_).unwrap_or("record"),
            len: size as u64,
            max: max as u64,
        })
    } else if !unpadded && size % 8 != 0 {
        Some(EncodeError::InvalidRecordSize { size: size as u64 })
    } else {
        None
    };
    let got = check_encoder(&r, e, buf_len, fill);
    if let Some(err) = expected_err {
        assert!(
            got.is_none(),
            "type {type_} of {size} bytes (pad {pad}) encoded; expected {err:?}"
        );
        assert_eq!(perf_encode::to_vec(&r, e), Err(err));
        return;
    }
    assert_eq!(perf_encode::encoded_len(&r), Ok(size));
    let mut want = [
        &ref_u32(type_, e)[..],
        &ref_u16(misc, e),
        &ref_u16(size as u16, e),
    ]
    .concat();
    for p in &slices {
        want.extend_from_slice(p);
    }
    want.resize(size, 0);
    let got = got.expect("valid record encodes");
    assert_eq!(got, want);
    // A record is exactly one framed record (trailer-carrying types aside).
    let mut framer = RecordFramer::new(e);
    let fed = framer.feed(&got);
    if type_ != perf_abi::record_type::HEADER_TRACING_DATA
        && type_ != perf_abi::record_type::AUXTRACE
    {
        fed.expect("a valid record frames");
        assert!(framer.at_boundary());
        assert_eq!(framer.records(), 1);
    }
}

fn encoder_ops(cap: usize, ops: &[Op], e: Endian, fill: u8) {
    let mut buf = vec![fill; cap];
    let mut want: Vec<u8> = Vec::new();
    let mut vec_out: Vec<u8> = Vec::new();
    let mut counter = CountingOutput::new();
    {
        let mut out = SliceOutput::new(&mut buf);
        for op in ops {
            let bytes: Vec<u8> = match op {
                Op::U8(v) => vec![*v],
                Op::U16(v) => ref_u16(*v, e).to_vec(),
                Op::U32(v) => ref_u32(*v, e).to_vec(),
                Op::I32(v) => ref_u32(*v as u32, e).to_vec(),
                Op::U64(v) => ref_u64(*v, e).to_vec(),
                Op::U64s(v) => v.iter().flat_map(|&x| ref_u64(x, e)).collect(),
                Op::Bytes(b) => b.clone(),
                Op::Zeros(n) => vec![0; usize::from(*n)],
                Op::Encode(item) => match encodable_bytes(item, e) {
                    Some(b) => b,
                    None => continue,
                },
            };
            let before = out.written();
            let r = {
                let mut enc = Encoder::new(&mut out, e);
                assert_eq!(enc.endian(), e);
                apply(op, &mut enc, e)
            };
            {
                let mut venc = Encoder::new(&mut vec_out, e);
                apply(op, &mut venc, e).expect("Vec output never fails");
                let mut cenc = Encoder::new(&mut counter, e);
                apply(op, &mut cenc, e).expect("counting never fails");
            }
            let fits = before + bytes.len() <= cap;
            match r {
                Ok(()) => {
                    assert!(fits, "SliceOutput passed its end");
                    assert_eq!(out.written(), before + bytes.len());
                    want.extend_from_slice(&bytes);
                }
                Err(EncodeError::BufferTooSmall { .. }) => {
                    // One put is all-or-nothing; composite writes (several puts) may leave
                    // a prefix.
                    let composite = matches!(op, Op::Encode(_) | Op::U64s(_) | Op::Zeros(_));
                    assert!(!fits, "refused a write that fits");
                    if !composite {
                        assert_eq!(out.written(), before, "a refused put wrote");
                    }
                    break;
                }
                Err(err) => panic!("primitive write failed: {err:?}"),
            }
        }
        let written = out.into_written();
        assert_eq!(&written[..want.len()], want.as_slice());
    }
    assert_eq!(&vec_out[..want.len()], want.as_slice());
    assert_eq!(counter.len(), vec_out.len());
    assert_eq!(counter.is_empty(), vec_out.is_empty());
}

/// The bytes of the encodable items used inside `Ops` (small fixed ones), or `None`.
fn encodable_bytes(item: &Item, e: Endian) -> Option<Vec<u8>> {
    match item {
        &Item::NrCpus(available, online) => {
            Some([ref_u32(available, e), ref_u32(online, e)].concat())
        }
        Item::HeaderString(v) => Some(ref_header_string(c_str_prefix(v), e)),
        &Item::FileSection(offset, size) => Some([ref_u64(offset, e), ref_u64(size, e)].concat()),
        _ => None,
    }
}

fn apply<O: Output + ?Sized>(
    op: &Op,
    enc: &mut Encoder<'_, O>,
    e: Endian,
) -> Result<(), EncodeError> {
    let _ = enc.output();
    match op {
        Op::U8(v) => enc.u8(*v),
        Op::U16(v) => enc.u16(*v),
        Op::U32(v) => enc.u32(*v),
        Op::I32(v) => enc.i32(*v),
        Op::U64(v) => enc.u64(*v),
        Op::U64s(v) => enc.u64s(v),
        Op::Bytes(b) => enc.bytes(b),
        Op::Zeros(n) => enc.zeros(usize::from(*n)),
        Op::Encode(item) => match item.as_ref() {
            &Item::NrCpus(available, online) => enc.encode(&NrCpus { available, online }),
            Item::HeaderString(v) => enc.encode(&HeaderString::new(v)),
            &Item::FileSection(offset, size) => enc.encode(&PerfFileSection { offset, size }),
            _ => {
                let _ = e;
                Ok(())
            }
        },
    }
}
