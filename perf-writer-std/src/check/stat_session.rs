//! [`StatSession`]: what perf script needs before it can read a STAT or STAT_ROUND record.
//! perf script makes one table of counts per output, from the first CPU_MAP and the first
//! THREAD_MAP (later ones it ignores), for the events it knows when the second of them
//! comes (in a file, all of them; in a pipe stream, those described so far). An event
//! counts on the cpus of that CPU_MAP, or, when an EVENT_UPDATE gave it cpus of its own
//! before then, on those (unless the CPU_MAP's first cpu is -1). perf crashes on a
//! STAT_ROUND before that table exists, and refuses a STAT whose cpu it cannot find among
//! its event's cpus or whose thread index is past the THREAD_MAP.

use crate::check::record_rules::named_ids;
use crate::error::StatProblem;
use crate::model::trace_model::TraceModel;
use crate::RecordProblem;
use perf_abi::field_widths::EVENT_UPDATE_CPUS;
use perf_abi::{record_type, Stat};
use perf_encode::records::{ParseError, ParsedCpuMap};
use std::mem::offset_of;

/// An EVENT_UPDATE's cpu map, given before both maps came: perf's "own cpus" of its event.
#[derive(Debug)]
struct OwnCpus {
    /// The EVENT_UPDATE's id.
    id: u64,
    /// The index of its event, when perf found it as it read the record (pipe mode).
    event: Option<usize>,
    /// The `perf_record_cpu_map_data`.
    data: Vec<u8>,
}

/// The first maps of an output, as far as they came.
#[derive(Debug, Default)]
struct Maps {
    /// The first THREAD_MAP's `nr`.
    threads: Option<u64>,
    /// The first CPU_MAP, as written.
    cpus: Option<Vec<u8>>,
    /// Descriptions there were when both had come.
    descs: Option<usize>,
    /// EVENT_UPDATE cpu maps before both came, the latest per id.
    own: Vec<OwnCpus>,
}

/// The maps of the records written to the output, and those of the call being checked.
#[derive(Debug, Default)]
pub(crate) struct StatSession {
    written: Maps,
    call: Maps,
    /// `call` holds something (kept so that calls without maps cost one test).
    call_kept: bool,
    /// Records of this output went out with strict mode off: maps may have been written
    /// unseen, so perf's table of counts is not known.
    unseen: bool,
}

/// The most event ids whose EVENT_UPDATE cpu maps are kept (given before the maps came).
pub(crate) const MAX_EVENT_CPUS: usize = 4096;

/// Where fields are: a STAT's cpu and thread (its header, then [`Stat`]), a THREAD_MAP's
/// `nr`, an EVENT_UPDATE's kind and the cpu map after its id.
const STAT_CPU: usize = 8 + offset_of!(Stat, cpu);
const STAT_THREAD: usize = 8 + offset_of!(Stat, thread);
const THREAD_MAP_NR: usize = 8;
const EVENT_UPDATE_KIND: usize = 8;
const EVENT_UPDATE_DATA: usize = 24;

impl StatSession {
    /// A new output.
    pub(crate) fn reset(&mut self) {
        *self = StatSession::default();
    }

    /// Records went out unchecked: perf's table of counts is no longer known.
    pub(crate) fn unseen(&mut self) {
        self.unseen = true;
    }

    /// A call starts: nothing of it is kept yet.
    #[inline]
    pub(crate) fn start_call(&mut self) {
        if self.call_kept {
            self.call = Maps::default();
            self.call_kept = false;
        }
    }

    /// The call was written: its maps are the output's.
    #[inline]
    pub(crate) fn call_written(&mut self) {
        if self.call_kept {
            self.keep_call();
        }
    }

    fn keep_call(&mut self) {
        self.call_kept = false;
        let call = std::mem::take(&mut self.call);
        let w = &mut self.written;
        w.threads = w.threads.or(call.threads);
        w.cpus = w.cpus.take().or(call.cpus);
        w.descs = w.descs.or(call.descs);
        for own in call.own {
            w.own.retain(|o| o.id != own.id);
            w.own.push(own);
        }
    }

    /// Checks one whole record of the call (already sized, and its fields walked) and
    /// notes the maps it brings; `pipe`: perf reads the output in order, with the
    /// descriptions there are now.
    pub(crate) fn check(
        &mut self,
        model: &TraceModel,
        record: &[u8],
        type_: u32,
        pipe: bool,
    ) -> Result<(), RecordProblem> {
        let endian = model.endian();
        match type_ {
            record_type::THREAD_MAP if self.threads().is_none() => {
                self.call_kept = true;
                self.call.threads = endian.u64_at(record, THREAD_MAP_NR);
                self.both_came(model);
            }
            record_type::CPU_MAP if self.cpus().is_none() => {
                self.call_kept = true;
                self.call.cpus = Some(record.to_vec());
                self.both_came(model);
            }
            record_type::EVENT_UPDATE
                if self.descs().is_none()
                    && endian.u64_at(record, EVENT_UPDATE_KIND) == Some(EVENT_UPDATE_CPUS) =>
            {
                self.own_cpus(model, record, pipe)?;
            }
            record_type::STAT_ROUND => {
                let descs = self.counted()?;
                if pipe && model.descs().len() > descs {
                    return Err(RecordProblem::Stat(StatProblem::DescribedAfterMaps));
                }
            }
            record_type::STAT => self.check_stat(model, record, pipe)?,
            _ => {}
        }
        Ok(())
    }

    /// Notes an EVENT_UPDATE's cpu map, within the bounds of what strict mode keeps.
    fn own_cpus(
        &mut self,
        model: &TraceModel,
        record: &[u8],
        pipe: bool,
    ) -> Result<(), RecordProblem> {
        let endian = model.endian();
        let Some((id, _)) = named_ids(endian, record_type::EVENT_UPDATE, record).next() else {
            return Ok(());
        };
        // Bounded: each map is one record's (at most 64 KiB).
        let kept = self.written.own.iter().chain(&self.call.own);
        if kept.filter(|o| o.id != id).count() >= MAX_EVENT_CPUS {
            return Err(RecordProblem::Stat(StatProblem::TooManyEventCpus));
        }
        let data = record.get(EVENT_UPDATE_DATA..).unwrap_or_default().to_vec();
        let event = if pipe { model.index_at_read(id) } else { None };
        self.call_kept = true;
        self.call.own.retain(|o| o.id != id);
        self.call.own.push(OwnCpus { id, event, data });
        Ok(())
    }

    /// The descriptions perf made counts for: refused before its table exists, or when
    /// records went out unseen.
    fn counted(&self) -> Result<usize, RecordProblem> {
        if self.unseen {
            return Err(RecordProblem::Stat(StatProblem::Unchecked));
        }
        self.descs().ok_or(RecordProblem::Stat(StatProblem::NoMaps))
    }

    fn check_stat(
        &self,
        model: &TraceModel,
        record: &[u8],
        pipe: bool,
    ) -> Result<(), RecordProblem> {
        let endian = model.endian();
        let stat = |p| RecordProblem::Stat(p);
        let descs = self.counted()?;
        let (Some(threads), Some(cpus)) = (self.threads(), self.cpus()) else {
            return Err(stat(StatProblem::NoMaps));
        };
        let id = named_ids(endian, record_type::STAT, record)
            .next()
            .map_or(0, |(id, _)| id);
        let cpu = endian.u32_at(record, STAT_CPU).unwrap_or(u32::MAX);
        let thread = endian.u32_at(record, STAT_THREAD).unwrap_or(u32::MAX);
        // perf reads the cpu as a signed number (-1: any cpu).
        let found = |map: Result<ParsedCpuMap<'_>, ParseError>| {
            map.ok().and_then(|m| m.perf_position(cpu as i32)).is_some()
        };
        if !found(ParsedCpuMap::parse(cpus, endian)) {
            return Err(stat(StatProblem::Cpu(cpu)));
        }
        // A first cpu of -1 makes every event count on the CPU_MAP's cpus.
        let any_first = ParsedCpuMap::parse(cpus, endian)
            .ok()
            .and_then(|m| m.get(0))
            == Some(-1);
        let index = if pipe { model.index_at_read(id) } else { None };
        if !any_first {
            let own = self.written.own.iter().chain(&self.call.own);
            for o in own {
                let problem = match relation(model, o, id, index) {
                    Relation::Same => StatProblem::EventCpus(cpu),
                    Relation::Unknown => StatProblem::UndescribedEventCpus(cpu),
                    Relation::Different => continue,
                };
                if !found(ParsedCpuMap::parse_data(&o.data, endian)) {
                    return Err(stat(problem));
                }
            }
        }
        if u64::from(thread) >= threads {
            return Err(stat(StatProblem::Thread(thread)));
        }
        if pipe && index.is_some_and(|i| i >= descs) {
            return Err(stat(StatProblem::DescribedAfterMaps));
        }
        Ok(())
    }

    /// Both maps are here now: the descriptions perf makes counts for are those of now.
    fn both_came(&mut self, model: &TraceModel) {
        if self.threads().is_some() && self.cpus().is_some() && self.descs().is_none() {
            self.call_kept = true;
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

/// Whether the EVENT_UPDATE `own` gave the cpus of the event a STAT naming `id` goes to
/// (`index`: that event, when perf found it as it read the STAT).
fn relation(model: &TraceModel, own: &OwnCpus, id: u64, index: Option<usize>) -> Relation {
    if own.id == id {
        return Relation::Same;
    }
    let same = |a: usize, b: usize| match a == b {
        true => Relation::Same,
        false => Relation::Different,
    };
    match (own.event, index) {
        (Some(a), Some(b)) => same(a, b),
        // File mode: perf's rules for one event or no sample_id_all depend on
        // descriptions still to come; the first for id 0 and an id's owner do not.
        _ => match (model.settled_index(own.id), model.settled_index(id)) {
            (Some(a), Some(b)) => same(a, b),
            _ => Relation::Unknown,
        },
    }
}

/// Whether an EVENT_UPDATE and a STAT are of one event.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Relation {
    Same,
    Different,
    /// Descriptions still to come decide: the STAT is held to the EVENT_UPDATE's cpus.
    Unknown,
}
