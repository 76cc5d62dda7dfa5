//! Event names (`sched:sched_switch`, `cpu-clock`, …) and the attrs they are opened with.

use crate::call_graph::CallGraph;
use crate::error::CollectError;
use crate::tracefs::{Tracefs, TracepointFormat};
use std::path::Path;
use tracepoint_decode::{
    PerfEventAttr, PerfEventAttrOptions as O, PerfEventAttrReadFormat,
    PerfEventAttrSampleType as S, PerfEventAttrType,
};

/// Software events by their perf names (`PERF_COUNT_SW_*`).
pub const SOFTWARE_EVENTS: [(&str, u64); 11] = [
    ("cpu-clock", 0),
    ("task-clock", 1),
    ("page-faults", 2),
    ("faults", 2),
    ("context-switches", 3),
    ("cs", 3),
    ("cpu-migrations", 4),
    ("migrations", 4),
    ("minor-faults", 5),
    ("major-faults", 6),
    ("alignment-faults", 7),
];

/// Hardware events by their perf names (`PERF_COUNT_HW_*`); many virtual machines have none.
pub const HARDWARE_EVENTS: [(&str, u64); 6] = [
    ("cycles", 0),
    ("instructions", 1),
    ("cache-references", 2),
    ("cache-misses", 3),
    ("branches", 4),
    ("branch-misses", 5),
];

/// What an event is.
#[derive(Clone, Debug)]
pub enum EventKind {
    /// A tracepoint, with its tracefs format.
    Tracepoint(TracepointFormat),
    /// A software or hardware counter, sampled at a frequency.
    Counter {
        /// `PERF_TYPE_SOFTWARE` or `PERF_TYPE_HARDWARE`.
        attr_type: u32,
        /// The counter.
        config: u64,
    },
    /// The dummy event that carries the task records (COMM, FORK, EXIT).
    Tracking,
}

/// One event to record.
#[derive(Clone, Debug)]
pub struct EventSpec {
    /// Its name in the file (`sched:sched_switch`, `cpu-clock`, `dummy:HG`).
    pub name: String,
    /// What it is.
    pub kind: EventKind,
}

/// The `sample_type` of every event: the fields `perf record` gives tracepoints, and
/// IDENTIFIER so each record names its event. Every event has the same `sample_id`
/// fields (TID, TIME, CPU, IDENTIFIER), as perf needs. Tracepoints add RAW, and a call
/// graph adds its fields ([`CallGraph::sample_bits`]): [`SAMPLE_EXTRAS`], all after these.
pub const SAMPLE_TYPE: S = S::Identifier
    .or(S::IP)
    .or(S::Tid)
    .or(S::Time)
    .or(S::Cpu)
    .or(S::Period);

/// The fields a SAMPLE may have besides [`SAMPLE_TYPE`]'s.
pub const SAMPLE_EXTRAS: S = S::Raw.or(S::Callchain).or(S::RegsUser).or(S::StackUser);

/// Name of the tracking event in the file.
pub const TRACKING_EVENT_NAME: &str = "dummy:HG";

/// How the events of a recording are opened, besides what each is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AttrSettings {
    /// The ring's wakeup watermark, in bytes.
    pub wakeup_bytes: u32,
    /// The sampling frequency of counters, in Hz.
    pub freq: u64,
    /// Ask for `PERF_FORMAT_LOST` (kernels since 6.0: `read` tells how many records were
    /// dropped).
    pub read_lost: bool,
    /// Write the ring backward (`write_backward`, for an overwrite ring).
    pub backward: bool,
    /// Inherited by the threads and processes the recorded tasks start.
    pub inherit: bool,
    /// Enabled by the recorded task's exec.
    pub enable_on_exec: bool,
    /// A call stack in each sample.
    pub call_graph: Option<CallGraph>,
}

impl EventSpec {
    /// The attr this event is opened with and described by. The tracking event asks for
    /// the task records (COMM, FORK, EXIT) and the executable mappings (MMAP2) that name
    /// the code of the samples; sampled events (tracepoints, counters) get the call graph's
    /// fields.
    pub fn attr(&self, settings: &AttrSettings) -> PerfEventAttr {
        let mut common = O::SampleIdAll.or(O::Watermark).or(O::Disabled);
        if settings.backward {
            common = common.or(O::WriteBackward);
        }
        if settings.inherit {
            common = common.or(O::Inherit);
        }
        if settings.enable_on_exec {
            common = common.or(O::EnableOnExec);
        }
        let (attr_type, config, sample_type, options, sample_time) = match &self.kind {
            EventKind::Tracepoint(f) => (
                PerfEventAttrType::Tracepoint,
                u64::from(f.id),
                SAMPLE_TYPE.or(S::Raw),
                common,
                1,
            ),
            EventKind::Counter { attr_type, config } => (
                PerfEventAttrType(*attr_type),
                *config,
                SAMPLE_TYPE,
                common.or(O::Freq),
                settings.freq,
            ),
            EventKind::Tracking => (
                PerfEventAttrType::Software,
                perf_abi::attr::SW_DUMMY,
                SAMPLE_TYPE,
                common
                    .or(O::Comm)
                    .or(O::Task)
                    .or(O::CommExec)
                    .or(O::Mmap)
                    .or(O::Mmap2),
                1,
            ),
        };
        let mut attr = PerfEventAttr {
            attr_type,
            config,
            sample_time,
            sample_type,
            read_format: match settings.read_lost {
                true => PerfEventAttrReadFormat::Lost,
                false => PerfEventAttrReadFormat::None,
            },
            options,
            wakeup_value: settings.wakeup_bytes,
            ..Default::default()
        };
        match (settings.call_graph, self.is_tracking()) {
            (Some(graph), false) => {
                attr.sample_type = attr.sample_type.or(graph.sample_bits());
                (attr.sample_regs_user, attr.sample_stack_user) = graph.user_dump();
                if graph.excludes_user_chain() {
                    attr.options = attr.options.or(O::ExcludeCallchainUser);
                }
            }
            // perf's unwinder reads the CFI (`.eh_frame`) from the data mappings.
            (Some(graph), true) if graph.needs_data_mappings() => {
                attr.options = attr.options.or(O::MmapData);
            }
            _ => {}
        }
        attr
    }

    /// True for the tracking event.
    pub fn is_tracking(&self) -> bool {
        matches!(self.kind, EventKind::Tracking)
    }

    /// The tracking event.
    pub fn tracking() -> EventSpec {
        EventSpec {
            name: TRACKING_EVENT_NAME.to_string(),
            kind: EventKind::Tracking,
        }
    }
}

/// The event recorded when none is named: a profile of where the CPU time goes, sampled
/// by the kernel's clock (`perf record` samples `cycles` where the machine has a PMU to
/// count them, and `cpu-clock` where it has none, as in most virtual machines).
pub const DEFAULT_EVENT: &str = "cpu-clock";

/// Splits the `-e` values (each may hold several names separated by commas) and the lines
/// of the event files (`#` starts a comment) into event names, in order, without repeats;
/// [`DEFAULT_EVENT`] when neither names one.
pub fn collect_names(
    values: &[String],
    files: &[impl AsRef<Path>],
) -> Result<Vec<String>, CollectError> {
    let mut names: Vec<String> = Vec::new();
    let mut add = |n: &str| {
        let n = n.trim();
        if !n.is_empty() && !names.iter().any(|m| m == n) {
            names.push(n.to_string());
        }
    };
    for v in values {
        v.split(',').for_each(&mut add);
    }
    for file in files {
        let path = file.as_ref();
        let text = read_event_file(path)?;
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("");
            line.split([',', ' ', '\t']).for_each(&mut add);
        }
    }
    if names.is_empty() && values.is_empty() && files.is_empty() {
        names.push(DEFAULT_EVENT.to_string());
    }
    Ok(names)
}

/// The most an events file may hold: a list of every tracepoint of a kernel is a few
/// tens of KiB.
pub const MAX_EVENT_FILE_BYTES: usize = 1024 * 1024;

/// An events file's text, read up to [`MAX_EVENT_FILE_BYTES`] (`/dev/zero` is refused,
/// not read until memory runs out).
fn read_event_file(path: &Path) -> Result<String, CollectError> {
    let refuse = |source| CollectError::EventFile {
        path: path.to_path_buf(),
        source,
    };
    let bytes = crate::tracefs::read_bounded(path, MAX_EVENT_FILE_BYTES).map_err(refuse)?;
    String::from_utf8(bytes).map_err(|_| {
        refuse(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "not UTF-8 text",
        ))
    })
}

/// Resolves event names: `SYSTEM:EVENT` is a tracepoint (tracefs is looked up once, at
/// `tracefs_dir` or the usual places, when the first tracepoint comes), other names are
/// counters from [`SOFTWARE_EVENTS`] and [`HARDWARE_EVENTS`].
pub fn resolve(
    names: &[String],
    tracefs_dir: Option<&Path>,
) -> Result<(Vec<EventSpec>, Option<Tracefs>), CollectError> {
    let mut tracefs: Option<Tracefs> = None;
    let mut specs = Vec::new();
    for name in names {
        let kind = if let Some((system, event)) = name.split_once(':') {
            let fs = match &tracefs {
                Some(fs) => fs,
                None => tracefs.insert(Tracefs::find(tracefs_dir)?),
            };
            EventKind::Tracepoint(fs.format(system, event, name)?)
        } else if let Some((_, config)) = SOFTWARE_EVENTS.iter().find(|(n, _)| n == name) {
            EventKind::Counter {
                attr_type: perf_abi::attr::TYPE_SOFTWARE,
                config: *config,
            }
        } else if let Some((_, config)) = HARDWARE_EVENTS.iter().find(|(n, _)| n == name) {
            EventKind::Counter {
                attr_type: perf_abi::attr::TYPE_HARDWARE,
                config: *config,
            }
        } else {
            return Err(CollectError::UnknownEvent {
                name: name.clone(),
                why: "not SYSTEM:TRACEPOINT nor a known software or hardware event (cpu-clock, task-clock, page-faults, context-switches, cpu-migrations, cycles, instructions, …)".to_string(),
            });
        };
        specs.push(EventSpec {
            name: name.clone(),
            kind,
        });
    }
    if specs.is_empty() {
        return Err(CollectError::BadArgument(
            "no event to record: give one with -e (for example -e sched:sched_switch)".into(),
        ));
    }
    Ok((specs, tracefs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_options_and_files() {
        let dir = std::env::temp_dir().join(format!("perf-collect-names-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("events.txt");
        std::fs::write(
            &file,
            "# comment\nsched:a, sched:b # trailing\n\n cpu-clock\n",
        )
        .unwrap();
        let names = collect_names(&["sched:a,x:y".to_string()], &[&file]).unwrap();
        assert_eq!(names, ["sched:a", "x:y", "sched:b", "cpu-clock"]);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(matches!(
            collect_names(&[], &[dir.join("missing")]),
            Err(CollectError::EventFile { .. })
        ));
        let none: [&Path; 0] = [];
        assert_eq!(collect_names(&[], &none).unwrap(), [DEFAULT_EVENT]);
        // An -e or a file that names nothing is not taken for no -e at all.
        assert!(collect_names(&[" ".to_string()], &none).unwrap().is_empty());
    }

    #[test]
    fn counters_need_no_tracefs() {
        let (specs, fs) = resolve(
            &["cpu-clock".into(), "cs".into()],
            Some(Path::new("/nonexistent")),
        )
        .unwrap();
        assert!(fs.is_none());
        assert_eq!(specs.len(), 2);
        let settings = AttrSettings {
            wakeup_bytes: 4096,
            freq: 999,
            read_lost: true,
            ..AttrSettings::default()
        };
        let attr = specs[0].attr(&settings);
        assert_eq!(attr.sample_time, 999);
        assert_eq!(attr.sample_type, SAMPLE_TYPE);
        let profiling = AttrSettings {
            inherit: true,
            enable_on_exec: true,
            call_graph: Some(CallGraph::Dwarf { stack_bytes: 4096 }),
            ..settings
        };
        let attr = specs[0].attr(&profiling);
        assert_eq!(
            attr.sample_type,
            SAMPLE_TYPE
                .or(S::Callchain)
                .or(S::RegsUser)
                .or(S::StackUser)
        );
        assert_eq!(attr.sample_stack_user, 4096);
        for bit in [O::Inherit, O::EnableOnExec, O::ExcludeCallchainUser] {
            assert_eq!(attr.options.0 & bit.0, bit.0);
        }
        // The tracking event samples nothing: no call graph, but the mappings.
        let tracking = EventSpec::tracking().attr(&profiling);
        assert_eq!(tracking.sample_type, SAMPLE_TYPE);
        assert_eq!(tracking.options.0 & O::Mmap2.0, O::Mmap2.0);
        assert_eq!(tracking.options.0 & O::MmapData.0, O::MmapData.0);
        assert!(matches!(
            resolve(&["bogus".into()], None),
            Err(CollectError::UnknownEvent { name, .. }) if name == "bogus"
        ));
        assert!(matches!(
            resolve(&[], None),
            Err(CollectError::BadArgument(_))
        ));
        assert!(matches!(
            resolve(&["a:b".into()], Some(Path::new("/nonexistent"))),
            Err(CollectError::TracefsNotFound { .. })
        ));
    }
}
