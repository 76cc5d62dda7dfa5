//! Records before their descriptions, at the edges of how strict mode groups them: the
//! verdict of a description that comes after its records is the verdict its records would
//! have had after it.

use super::*;

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
