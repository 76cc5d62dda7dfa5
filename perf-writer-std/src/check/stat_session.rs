//! [`StatSession`]: what perf script needs before it can read a STAT or STAT_ROUND record.
//! perf script makes one table of counts per output, from the first CPU_MAP and the first
//! THREAD_MAP (later ones it ignores), for the events it knows when the second of them
//! comes (in a file, all of them; in a pipe stream, those described so far). It crashes
//! on a STAT_ROUND before that table exists, and refuses a STAT whose cpu it cannot find in
//! the map or whose thread index is past it.

use crate::check::record_rules::named_ids;
use crate::error::StatProblem;
use crate::model::trace_model::TraceModel;
use crate::RecordProblem;
use perf_abi::{record_type, Stat};
use perf_encode::records::ParsedCpuMap;
use perf_encode::Endian;
use std::mem::offset_of;

/// The first maps of an output, as far as they came.
#[derive(Debug, Default)]
struct Maps {
    /// The first THREAD_MAP's `nr`.
    threads: Option<u64>,
    /// The first CPU_MAP, as written.
    cpus: Option<Vec<u8>>,
    /// Descriptions there were when both had come.
    descs: Option<usize>,
}

/// The maps of the records written to the output, and those of the call being checked.
#[derive(Debug, Default)]
pub(crate) struct StatSession {
    written: Maps,
    call: Maps,
    /// Every record of the output went through the check (strict mode from its start):
    /// else maps may have been written unseen, and STATs are not judged by them.
    seen_all: bool,
}

/// Where a STAT record's fields are (its header, then [`Stat`]).
const STAT_CPU: usize = 8 + offset_of!(Stat, cpu);
const STAT_THREAD: usize = 8 + offset_of!(Stat, thread);
/// A THREAD_MAP's `nr`: its body's first word.
const THREAD_MAP_NR: usize = 8;

impl StatSession {
    /// A new output: `checked` when every record of it will be checked.
    pub(crate) fn reset(&mut self, checked: bool) {
        *self = StatSession {
            seen_all: checked,
            ..StatSession::default()
        };
    }

    /// Records are written unchecked from now on (strict mode off): later maps are unseen.
    pub(crate) fn unseen(&mut self) {
        self.reset(false);
    }

    /// A call starts: nothing of it is kept yet.
    pub(crate) fn start_call(&mut self) {
        if self.call.threads.is_some() || self.call.cpus.is_some() || self.call.descs.is_some() {
            self.call = Maps::default();
        }
    }

    /// The call was written: its maps are the output's.
    pub(crate) fn call_written(&mut self) {
        let call = std::mem::take(&mut self.call);
        let w = &mut self.written;
        w.threads = w.threads.or(call.threads);
        w.cpus = w.cpus.take().or(call.cpus);
        w.descs = w.descs.or(call.descs);
    }

    /// Checks one whole record of the call (already sized and walked by its fields) and
    /// notes the maps it brings. `event_index`: the index of the description a STAT's id
    /// goes to, when it has one now.
    pub(crate) fn check(
        &mut self,
        model: &TraceModel,
        record: &[u8],
        type_: u32,
        event_index: impl Fn(u64) -> Option<usize>,
        pipe: bool,
    ) -> Result<(), RecordProblem> {
        let endian = model.endian();
        match type_ {
            record_type::THREAD_MAP if self.threads().is_none() => {
                self.call.threads = word(record, THREAD_MAP_NR, endian);
                self.both_came(model);
            }
            record_type::CPU_MAP if self.cpus().is_none() => {
                self.call.cpus = Some(record.to_vec());
                self.both_came(model);
            }
            record_type::STAT_ROUND if self.seen_all => {
                let descs = self
                    .descs()
                    .ok_or(RecordProblem::Stat(StatProblem::NoMaps))?;
                if pipe && model.descs().len() > descs {
                    return Err(RecordProblem::Stat(StatProblem::DescribedAfterMaps));
                }
            }
            record_type::STAT if self.seen_all => {
                self.check_stat(record, endian, event_index, pipe)?
            }
            _ => {}
        }
        Ok(())
    }

    fn check_stat(
        &self,
        record: &[u8],
        endian: Endian,
        event_index: impl Fn(u64) -> Option<usize>,
        pipe: bool,
    ) -> Result<(), RecordProblem> {
        let stat = |p| RecordProblem::Stat(p);
        let (Some(threads), Some(cpus), Some(descs)) = (self.threads(), self.cpus(), self.descs())
        else {
            return Err(stat(StatProblem::NoMaps));
        };
        let (cpu, thread) = (
            half(record, STAT_CPU, endian).unwrap_or(u32::MAX),
            half(record, STAT_THREAD, endian).unwrap_or(u32::MAX),
        );
        // perf reads the cpu as a signed number (-1: any cpu).
        let found = ParsedCpuMap::parse(cpus, endian)
            .ok()
            .and_then(|map| map.perf_position(cpu as i32));
        if found.is_none() {
            return Err(stat(StatProblem::Cpu(cpu)));
        }
        if u64::from(thread) >= threads {
            return Err(stat(StatProblem::Thread(thread)));
        }
        if pipe {
            let id = named_ids(endian, record_type::STAT, record).next();
            if id
                .and_then(|(id, _)| event_index(id))
                .is_some_and(|i| i >= descs)
            {
                return Err(stat(StatProblem::DescribedAfterMaps));
            }
        }
        Ok(())
    }

    /// Both maps are here now: the descriptions perf makes counts for are those of now.
    fn both_came(&mut self, model: &TraceModel) {
        if self.threads().is_some() && self.cpus().is_some() && self.descs().is_none() {
            self.call.descs = Some(model.descs().len());
        }
    }

    fn threads(&self) -> Option<u64> {
        self.written.threads.or(self.call.threads)
    }

    fn cpus(&self) -> Option<&[u8]> {
        self.written.cpus.as_deref().or(self.call.cpus.as_deref())
    }

    fn descs(&self) -> Option<usize> {
        self.written.descs.or(self.call.descs)
    }
}

fn word(record: &[u8], at: usize, endian: Endian) -> Option<u64> {
    let b = record.get(at..)?.first_chunk::<8>()?;
    Some(endian.read_u64(*b))
}

fn half(record: &[u8], at: usize, endian: Endian) -> Option<u32> {
    let b = record.get(at..)?.first_chunk::<4>()?;
    Some(endian.read_u32(*b))
}
