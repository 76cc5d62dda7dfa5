//! Records before their descriptions, at the edges of how strict mode groups them: the
//! verdict of a description that comes after its records is the verdict its records would
//! have had after it.

use super::*;

/// Writes `records` (each must be taken) in one call, or one call each.
fn write_records(
    w: &mut PerfWriter<FileOutput<Cursor<Vec<u8>>>>,
    records: &[Vec<u8>],
    one_call: bool,
) {
    match one_call {
        true => {
            w.write_event_data(&records.concat()).unwrap();
        }
        false => {
            for r in records {
                w.write_event_data(r).unwrap();
            }
        }
    }
}

/// sched_switch's payload with `extra` bytes of padding after its fields (a payload longer
/// than the format's fields is right).
fn padded_switch_sample(id: u64, time: u64, extra: usize) -> Vec<u8> {
    let mut raw = switch_raw(372, "worker", "idle");
    raw.resize(raw.len() + extra, 0);
    tracepoint_sample(&switch_attr(), id, time, 0, &raw)
}

/// A group's records of many lengths (more than the traces it keeps), then, in one call, a
/// record of a new length and one of a length seen before: every payload is right, and the
/// format that comes after them takes them, as it takes them before them.
#[test]
fn records_of_many_lengths_in_one_call_keep_their_payloads_apart() {
    let calls: Vec<Vec<u8>> = (0..9)
        .map(|k| padded_switch_sample(SWITCH_IDS[0], T0, 8 * k))
        .chain([[
            padded_switch_sample(SWITCH_IDS[0], T0, 8 * 9),
            padded_switch_sample(SWITCH_IDS[0], T0, 8),
        ]
        .concat()])
        .collect();
    // Described first: every record is taken.
    let mut first = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    first
        .add_tracepoint_event_desc(
            &SWITCH_IDS,
            &switch_attr(),
            "sched:sched_switch",
            &switch_format(),
        )
        .unwrap();
    for c in &calls {
        first.write_event_data(c).unwrap();
    }
    let expected = first.finish().unwrap().into_inner();
    // Records first, before any description and after another's.
    for other_first in [false, true] {
        let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
        if other_first {
            w.add_event_desc(&CLOCK_IDS, &clock_attr(COMMON), "cpu-clock")
                .unwrap();
        }
        for c in &calls {
            w.write_event_data(c).unwrap();
        }
        w.add_tracepoint_event_desc(
            &SWITCH_IDS,
            &switch_attr(),
            "sched:sched_switch",
            &switch_format(),
        )
        .unwrap_or_else(|e| panic!("other first: {other_first}: {e}"));
        let bytes = w.finish().unwrap().into_inner();
        if !other_first {
            assert_eq!(lpd_records(&bytes), lpd_records(&expected));
        }
        read_back(&bytes, 11, &["sched:sched_switch"]);
    }
}

/// sched_switch SAMPLEs of one id in one call, of `lengths` payload lengths in turn, the
/// one at `bad` (if any) with another common_type.
fn switch_call(n: usize, lengths: usize, bad: Option<usize>) -> Vec<u8> {
    let records = (0..n).map(|k| {
        let mut raw = switch_raw(if Some(k) == bad { 371 } else { 372 }, "worker", "idle");
        raw.resize(raw.len() + 8 * (k % lengths), 0);
        tracepoint_sample(&switch_attr(), SWITCH_IDS[0], T0 + k as u64, 0, &raw)
    });
    records.collect::<Vec<_>>().concat()
}

/// One call whose records narrow their group many times (more payload lengths than the
/// traces a group keeps), one of them wrong or none: the format that comes after them is
/// refused exactly when, described first, the call is.
#[test]
fn a_call_that_narrows_a_group_many_times_gets_the_verdict_of_its_records() {
    for (n, lengths) in [(40, 12), (200, 30), (64, 3)] {
        for bad in [None, Some(0), Some(n / 2), Some(n - 1)] {
            let call = switch_call(n, lengths, bad);
            let mut first =
                PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
            first
                .add_tracepoint_event_desc(
                    &SWITCH_IDS,
                    &switch_attr(),
                    "sched:sched_switch",
                    &switch_format(),
                )
                .unwrap();
            let after = first.write_event_data(&call);
            assert_eq!(after.is_err(), bad.is_some(), "{n} {lengths} {bad:?}");
            // Records first, after another event's description (grouped by their id).
            let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
            w.add_event_desc(&CLOCK_IDS, &clock_attr(COMMON), "cpu-clock")
                .unwrap();
            w.write_event_data(&call).unwrap();
            let r = w.add_tracepoint_event_desc(
                &SWITCH_IDS,
                &switch_attr(),
                "sched:sched_switch",
                &switch_format(),
            );
            match bad {
                Some(_) => {
                    let (count, _, _, id, problem) = contradiction(r.unwrap_err());
                    assert_eq!((count, id), (n as u64, Some(SWITCH_IDS[0])));
                    assert!(matches!(problem, Contradiction::CommonTypes), "{problem:?}");
                }
                None => {
                    r.unwrap();
                    let bytes = w.finish().unwrap().into_inner();
                    read_back(&bytes, n, &["sched:sched_switch"]);
                }
            }
        }
    }
}

/// A clock SAMPLE whose words at the five id places are from `k` (64 values each at IP,
/// TID, TIME).
fn spread_sample(k: u64) -> Vec<u8> {
    let s = Sample {
        identifier: Some(CLOCK_IDS[(k & 1) as usize]),
        ip: Some(0x40_1000 + (k >> 1 & 63)),
        tid: Some(PidTid {
            pid: 300,
            tid: 300 + (k >> 7 & 63) as u32,
        }),
        time: Some(T0 + (k >> 13 & 63)),
        cpu: Some(SampleCpu::new((k >> 19 & 1) as u32)),
        period: Some(1),
        ..Default::default()
    };
    clock_record(&s)
}

/// Records of two ids before any description, two alike of each combination of the words
/// at the id places (no place with more than 64 words, no group of one record): `pairs`.
fn pairs(pairs: u64) -> Vec<Vec<u8>> {
    (0..pairs)
        .flat_map(|k| [spread_sample(k), spread_sample(k)])
        .collect()
}

fn too_many_pending_bytes(e: &WriterError) -> bool {
    matches!(
        e,
        WriterError::Record(RecordError::Refused {
            problem: RecordProblem::TooManyPendingBytes,
            ..
        })
    )
}

/// The memory bound of what waits holds within one call: records whose summaries, one call
/// each, pass it (pairs of 60 KB tracepoint SAMPLEs, one pair per id: the facts of their
/// RAW payloads take about three bytes per payload byte) are refused in one call too (naming
/// the bound), and nothing of that call is kept.
#[test]
fn one_call_is_held_to_the_memory_bound_of_what_waits() {
    let pair = |id: u64| {
        let r = padded_switch_sample(1000 + id, T0 + id, 60_000);
        [r.clone(), r]
    };
    let mut per_record = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    let mut taken = 0u64;
    let refused = loop {
        assert!(
            taken < MAX_PENDING_IDS as u64,
            "the bound was never reached"
        );
        let [a, b] = pair(taken);
        if let Some(e) = [a, b]
            .iter()
            .find_map(|r| per_record.write_event_data(r).err())
        {
            break e;
        }
        taken += 1;
    };
    assert!(too_many_pending_bytes(&refused), "{refused}");
    let bound = format!("{} MiB", MAX_PENDING_BYTES >> 20);
    assert!(refused.to_string().contains(&bound), "{refused}");
    // Past the bound, a record like those before it is refused as well, alone or in a
    // call (a third of the first pair: its group already holds two like it).
    let [like, _] = pair(0);
    let err = per_record.write_event_data(&like).unwrap_err();
    assert!(too_many_pending_bytes(&err), "{err}");
    let err = per_record
        .write_event_data(&[like.clone(), like].concat())
        .unwrap_err();
    assert!(too_many_pending_bytes(&err), "{err}");
    drop(per_record);
    let call: Vec<u8> = (0..=taken).flat_map(pair).flatten().collect();
    let mut one_call = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    let err = one_call.write_event_data(&call).unwrap_err();
    assert!(too_many_pending_bytes(&err), "{err}");
    drop(call);
    // Nothing of the call was written; what comes after it is taken.
    let [first, _] = pair(0);
    one_call.write_event_data(&first).unwrap();
    one_call
        .add_tracepoint_event_desc(
            &[1000],
            &switch_attr(),
            "sched:sched_switch",
            &switch_format(),
        )
        .unwrap();
    let bytes = one_call.finish().unwrap().into_inner();
    read_back(&bytes, 1, &["sched:sched_switch"]);
}

/// Two events, 100,000 SAMPLEs (5 MB) before their descriptions, in groups of two records
/// (every combination of 64 IPs, 64 tids, 64 times): described first they are all taken.
#[test]
fn records_in_groups_of_two_do_not_reach_the_memory_bound() {
    let records = pairs(50_000);
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    let refused = records
        .iter()
        .filter(|r| w.write_event_data(r).is_err())
        .count();
    assert_eq!(refused, 0);
    w.add_event_desc(&CLOCK_IDS, &clock_attr(COMMON), "cpu-clock")
        .unwrap();
    let bytes = w.finish().unwrap().into_inner();
    read_back(&bytes, records.len(), &["cpu-clock"]);
}

/// A clock SAMPLE of a recording of 2,048 per-CPU ids (8 events on 256 CPUs), 300 threads:
/// record `k`.
fn per_cpu_sample(k: u64) -> Vec<u8> {
    let id = 1000 + k * 7 % 2048;
    let s = Sample {
        identifier: Some(id),
        ip: Some(0x40_1000 + k * 16),
        tid: Some(PidTid {
            pid: 300,
            tid: 300 + (k % 300) as u32,
        }),
        time: Some(T0 + k),
        cpu: Some(SampleCpu::new((id % 256) as u32)),
        period: Some(1),
        ..Default::default()
    };
    clock_record(&s)
}

/// 100,000 SAMPLEs of 2,048 ids (fewer than the ids that may wait) and 300 threads, each
/// at its own time and address, in one call before their descriptions: the places of the
/// times and addresses are given up, not the ids'.
#[test]
fn the_single_records_bound_does_not_give_up_the_place_of_the_ids() {
    let records: Vec<Vec<u8>> = (0..100_000).map(per_cpu_sample).collect();
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    w.write_event_data(&records.concat()).unwrap();
    let ids: Vec<u64> = (1000..1000 + 2048).collect();
    w.add_event_desc(&ids, &clock_attr(COMMON), "cpu-clock")
        .unwrap();
    let bytes = w.finish().unwrap().into_inner();
    read_back(&bytes, records.len(), &["cpu-clock"]);
}

/// The records of the test above, one of them late in the call (when the place of the ids
/// is grouped alone) without its PERIOD: the description is refused, naming its id, and
/// one without PERIOD is refused for the others (the test above takes them without it).
#[test]
fn a_record_grouped_by_its_id_alone_is_checked_by_the_description() {
    let mut records: Vec<Vec<u8>> = (0..100_000).map(per_cpu_sample).collect();
    let bad_at = 90_000u64;
    let short = {
        let mut r = records[bad_at as usize].clone();
        // PERIOD is the last word: cut it, and say so in the header's size.
        r.truncate(r.len() - 8);
        let size = u16::try_from(r.len()).unwrap();
        r[6..8].copy_from_slice(&size.to_le_bytes());
        r
    };
    records[bad_at as usize] = short;
    let bad_id = 1000 + bad_at * 7 % 2048;
    let ids: Vec<u64> = (1000..1000 + 2048).collect();
    let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    w.write_event_data(&records.concat()).unwrap();
    let err = w
        .add_event_desc(&ids, &clock_attr(COMMON), "cpu-clock")
        .unwrap_err();
    let (n, _, type_, id, problem) = contradiction(err);
    // The group of its id it is in: some of the id's 49 records.
    assert_eq!((type_, id), (9, Some(bad_id)));
    assert!((1..=49).contains(&n), "{n}");
    // Its group holds records of 56 bytes and it, of 48.
    assert_eq!(problem, Contradiction::SampleLength { min: 48, max: 56 });
    // Described without PERIOD, the other records of the ids contradict it.
    let err = w
        .add_event_desc(&ids, &clock_attr(COMMON & !st::PERIOD), "cpu-clock")
        .unwrap_err();
    let (_, offset, _, _, _) = contradiction(err);
    assert_eq!(offset, 104);
}

/// sched_switch SAMPLEs in many groups before any description (each at its own time, of
/// `lengths` payload lengths in turn, one wrong or none), then the event described without
/// its format, then the format with another id: the format is refused exactly when one is
/// wrong, whichever calls carried them.
#[test]
fn a_format_after_samples_in_many_groups_is_checked_against_each() {
    let n = 150;
    for bad in [None, Some(0), Some(7), Some(n - 1)] {
        let records: Vec<Vec<u8>> = (0..n)
            .map(|k| {
                let ct = if Some(k) == bad { 371 } else { 372 };
                let mut raw = switch_raw(ct, "worker", "idle");
                raw.resize(raw.len() + 8 * (k % 11), 0);
                // Times repeat: groups of one and of several records.
                let t = T0 + (k % 97) as u64;
                tracepoint_sample(&switch_attr(), SWITCH_IDS[k % 2], t, 0, &raw)
            })
            .collect();
        let all = records.concat();
        let ways: [Vec<&[u8]>; 2] = [records.iter().map(|r| &r[..]).collect(), vec![&all[..]]];
        for calls in ways {
            let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
            for c in &calls {
                w.write_event_data(c).unwrap();
            }
            w.add_event_desc(&SWITCH_IDS[..1], &switch_attr(), "sched:sched_switch")
                .unwrap();
            let r = w.add_tracepoint_event_desc(
                &SWITCH_IDS[1..],
                &switch_attr(),
                "sched:sched_switch",
                &switch_format(),
            );
            match bad {
                None => {
                    r.unwrap();
                    let bytes = w.finish().unwrap().into_inner();
                    read_back(&bytes, n, &["sched:sched_switch"]);
                }
                Some(_) => {
                    let (_, _, _, _, problem) = contradiction(r.unwrap_err());
                    assert!(
                        matches!(problem, Contradiction::CommonTypes | Contradiction::Raw(_)),
                        "{problem:?}"
                    );
                }
            }
        }
    }
}

/// Two events' SAMPLEs before any description, the second's with a field more (ADDR after
/// TIME): the first event's description leaves the second's records waiting; a description
/// of the second with the first's layout is refused naming them (as each would be, written
/// after it); its right description, made again, takes them.
#[test]
fn records_left_waiting_by_the_first_description_are_checked_by_their_own() {
    let with_addr = clock_attr(COMMON | st::ADDR);
    let addr_sample = |k: u64| {
        let s = Sample {
            identifier: Some(CLOCK_IDS[1]),
            ip: Some(0x40_1000),
            tid: Some(PidTid { pid: 300, tid: 300 }),
            time: Some(T0 + k),
            addr: Some(0x1000 * k),
            cpu: Some(SampleCpu::new(0)),
            period: Some(1),
            ..Default::default()
        };
        to_vec(
            &SampleRecord {
                layout: &layout_of(&with_addr),
                sample: &s,
                misc: misc::USER,
            },
            Endian::Little,
        )
        .unwrap()
    };
    let records: Vec<Vec<u8>> = (0..40)
        .map(|k| match k % 3 {
            0 => addr_sample(k),
            _ => clock_sample(CLOCK_IDS[0], T0 + k),
        })
        .collect();
    // Described first: the second event's records are refused under the first's layout.
    let mut first = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    first
        .add_event_desc(&CLOCK_IDS[..1], &clock_attr(COMMON), "one")
        .unwrap();
    first
        .add_event_desc(&CLOCK_IDS[1..], &clock_attr(COMMON), "two")
        .unwrap();
    assert!(first.write_event_data(&records[0]).is_err());
    for all_in_one in [false, true] {
        let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
        write_records(&mut w, &records, all_in_one);
        // The first event's description, wrong (ADDR) then right.
        let err = w
            .add_event_desc(&CLOCK_IDS[..1], &with_addr, "one")
            .unwrap_err();
        let (count, offset, _, id, _) = contradiction(err);
        assert_eq!(
            (count, offset, id),
            (26, 104 + records[0].len() as u64, Some(CLOCK_IDS[0]))
        );
        w.add_event_desc(&CLOCK_IDS[..1], &clock_attr(COMMON), "one")
            .unwrap();
        let err = w
            .add_event_desc(&CLOCK_IDS[1..], &clock_attr(COMMON), "two")
            .unwrap_err();
        let (count, offset, _, id, _) = contradiction(err);
        assert_eq!((count, offset, id), (14, 104, Some(CLOCK_IDS[1])));
        let waits = w.finish().unwrap_err();
        assert!(waits.to_string().contains("14"), "{waits}");
        w.add_event_desc(&CLOCK_IDS[1..], &with_addr, "two")
            .unwrap();
        // perf 6.1 reads events of different layouts with IDENTIFIER.
        let bytes = w.finish().unwrap().into_inner();
        read_back(&bytes, records.len(), &["one", "two"]);
    }
}

/// 4,000 ids, two alike SAMPLEs of 1.2 KiB each after the other, before any description: in
/// one call or one call each, the description of the ids takes them (no group holds one
/// record once its call is written, however many first records the call had).
#[test]
fn a_call_of_records_in_pairs_is_grouped_as_its_records_one_call_each() {
    let ids: Vec<u64> = (1000..5000).collect();
    let records: Vec<Vec<u8>> = ids
        .iter()
        .flat_map(|&id| {
            let r = padded_switch_sample(id, T0, 1136);
            [r.clone(), r]
        })
        .collect();
    for one_call in [false, true] {
        let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
        write_records(&mut w, &records, one_call);
        w.add_tracepoint_event_desc(&ids, &switch_attr(), "sched:sched_switch", &switch_format())
            .unwrap_or_else(|e| panic!("one call: {one_call}: {e}"));
        let bytes = w.finish().unwrap().into_inner();
        read_back(&bytes, records.len(), &["sched:sched_switch"]);
    }
}

/// A clock SAMPLE of id `id` by thread `tid` at `time`; `extra`: a word more than its
/// layout has.
fn thread_sample(id: u64, tid: u32, time: u64, extra: bool) -> Vec<u8> {
    let s = Sample {
        identifier: Some(id),
        ip: Some(0x40_1000),
        tid: Some(PidTid { pid: 300, tid }),
        time: Some(time),
        cpu: Some(SampleCpu::new(0)),
        period: Some(1),
        ..Default::default()
    };
    let layout = layout_of(&clock_attr(COMMON));
    let mut r = to_vec(
        &SampleRecord {
            layout: &layout,
            sample: &s,
            misc: misc::USER,
        },
        Endian::Little,
    )
    .unwrap();
    if extra {
        r.extend_from_slice(&[0; 8]);
        let size = r.len() as u16;
        r[6..8].copy_from_slice(&size.to_le_bytes());
    }
    r
}

/// The verdict of `describe` after `records`: it is refused, naming `bad_id`, exactly when
/// a record (the one of `bad_id`), written after it, is; else the records are taken and read
/// back as events named `name`. In one call or one call each.
fn described_after_as_before(
    records: &[Vec<u8>],
    bad_id: Option<u64>,
    describe: impl Fn(&mut PerfWriter<FileOutput<Cursor<Vec<u8>>>>) -> Result<(), WriterError>,
    name: &str,
) {
    let mut first = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
    describe(&mut first).unwrap();
    let refused = records
        .iter()
        .filter(|r| first.write_event_data(r).is_err())
        .count();
    assert_eq!(refused, usize::from(bad_id.is_some()));
    for one_call in [false, true] {
        let mut w = PerfWriter::<FileOutput<_>>::from_writer(Cursor::new(Vec::new())).unwrap();
        write_records(&mut w, records, one_call);
        let r = describe(&mut w);
        match bad_id {
            Some(bad_id) => {
                let (_, _, _, id, _) = contradiction(r.unwrap_err());
                assert_eq!(id, Some(bad_id), "one call: {one_call}");
            }
            None => {
                r.unwrap_or_else(|e| panic!("one call: {one_call}: {e}"));
                let bytes = w.finish().unwrap().into_inner();
                read_back(&bytes, records.len(), &[name]);
            }
        }
    }
}

/// 3,000 ids on 3 threads before any description (past the groups the key places may
/// make: the ids' place is grouped alone), one record of them a word too long, early or
/// late, or none: the description of the ids is refused exactly when that record, written
/// after it, is; in one call or one call each.
#[test]
fn a_wrong_record_is_found_after_the_place_of_the_ids_is_grouped_alone() {
    let n = 9_000u64;
    let ids: Vec<u64> = (1000..4000).collect();
    for bad in [None, Some(10), Some(n - 1)] {
        let records: Vec<Vec<u8>> = (0..n)
            .map(|k| thread_sample(1000 + k % 3000, 300 + (k / 3000) as u32, T0, Some(k) == bad))
            .collect();
        let describe = |w: &mut PerfWriter<FileOutput<Cursor<Vec<u8>>>>| {
            w.add_event_desc(&ids, &clock_attr(COMMON), "cpu-clock")
        };
        described_after_as_before(
            &records,
            bad.map(|k| 1000 + k % 3000),
            describe,
            "cpu-clock",
        );
    }
}

/// 3,000 tracepoint ids on 3 CPUs before any description (the ids' place is grouped alone),
/// one late record like the others but for its RAW payload's common_type, or none: the
/// description is refused exactly when that record, written after it, is, naming its id;
/// in one call or one call each. (The late record is like its group's records before it in
/// every word a layout reads: only the group of its id tells its payload apart.)
#[test]
fn a_wrong_payload_is_found_after_the_place_of_the_ids_is_grouped_alone() {
    let n = 9_000u64;
    let ids: Vec<u64> = (1000..4000).collect();
    let record = |k: u64, ct: u16| {
        let raw = switch_raw(ct, "worker", "idle");
        tracepoint_sample(&switch_attr(), 1000 + k % 3000, T0, (k / 3000) as u32, &raw)
    };
    for bad in [None, Some(n - 1)] {
        let records: Vec<Vec<u8>> = (0..n)
            .map(|k| record(k, if Some(k) == bad { 373 } else { 372 }))
            .collect();
        let name = "sched:sched_switch";
        let describe = |w: &mut PerfWriter<FileOutput<Cursor<Vec<u8>>>>| {
            w.add_tracepoint_event_desc(&ids, &switch_attr(), name, &switch_format())
        };
        described_after_as_before(&records, bad.map(|k| 1000 + k % 3000), describe, name);
    }
}
