//! [`StatSession`]: what perf script needs before it can read a STAT or STAT_ROUND record.
//! perf script makes one table of counts per output, from the first CPU_MAP and the first
//! THREAD_MAP (later ones it ignores), for the events it knows when the second of them
//! comes (in a file, all of them; in a pipe stream, those described so far). An event
//! counts on the cpus of that CPU_MAP, or, when an EVENT_UPDATE gave it cpus of its own
//! before then, on those (the last it gave, whichever of the event's ids it names) (unless the CPU_MAP's first cpu is -1). perf crashes on a
//! STAT_ROUND before that table exists, and refuses a STAT whose cpu it cannot find among
//! its event's cpus or whose thread index is past the THREAD_MAP. A second CPU_MAP or
//! THREAD_MAP is refused: perf ignores it.

use crate::check::record_rules::{event_update_cpus, named_ids};
use crate::check::record_summary::FirstRecord;
use crate::check::refusal::Contradiction;
use crate::error::{EventError, StatProblem};
use crate::model::trace_model::NewDesc;
use crate::model::trace_model::TraceModel;
use crate::RecordProblem;
use crate::WriterError;
use perf_abi::{record_type, Stat};
use perf_encode::records::{ParseError, ParsedCpuMap};
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;
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
    /// STATs held (see [`StatSession::held`]): id, cpu and place.
    held: Vec<(u64, u32, FirstRecord)>,
}

/// File mode: STATs of one id whose cpu is not among the cpus an EVENT_UPDATE gave an
/// event that the descriptions still to come may make theirs.
#[derive(Debug)]
struct HeldStats {
    cpus: BTreeSet<u32>,
    first: FirstRecord,
    records: u64,
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
    /// File mode: STATs held to the cpus of EVENT_UPDATEs of events not told apart from
    /// theirs yet, by STAT id; judged when descriptions settle which events they are, and
    /// at finish by perf's rule.
    held: FxHashMap<u64, HeldStats>,
    /// (STAT id, cpu) pairs in `held`.
    held_pairs: usize,
    /// The STAT just checked was held: its id and cpu, for the caller to place.
    just_held: Option<(u64, u32)>,
}

/// STATs held, taken away while strict mode is off (see [`StatSession::take_held`]).
#[derive(Debug, Default)]
pub(crate) struct Held(FxHashMap<u64, HeldStats>, usize);

/// The most (STAT id, cpu) pairs held: past it, such a STAT is refused
/// ([`StatProblem::UndescribedEventCpus`]).
const MAX_HELD: usize = 1 << 20;

/// The most event ids whose EVENT_UPDATE cpu maps are kept (given before the maps came).
pub(crate) const MAX_EVENT_CPUS: usize = 4096;

/// Where fields are: a STAT's cpu and thread (its header, then [`Stat`]), a THREAD_MAP's
/// `nr`.
const STAT_CPU: usize = 8 + offset_of!(Stat, cpu);
const STAT_THREAD: usize = 8 + offset_of!(Stat, thread);
const THREAD_MAP_NR: usize = 8;

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
        self.just_held = None;
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
        for (id, cpu, first) in call.held {
            let h = self.held.entry(id).or_insert(HeldStats {
                cpus: BTreeSet::new(),
                first,
                records: 0,
            });
            h.records = h.records.saturating_add(1);
            if h.cpus.insert(cpu) {
                self.held_pairs = self.held_pairs.saturating_add(1);
            }
        }
    }

    /// [`check`](Self::check) just held a STAT, for [`place_held`](Self::place_held).
    #[inline]
    pub(crate) fn holds_one(&self) -> bool {
        self.just_held.is_some()
    }

    /// Places the STAT [`check`](Self::check) just held (it passed): `first` says where it
    /// is.
    #[inline]
    pub(crate) fn place_held(&mut self, first: FirstRecord) {
        if let Some((id, cpu)) = self.just_held.take() {
            self.call_kept = true;
            self.call.held.push((id, cpu, first));
        }
    }

    /// Checks one whole record of the call (already sized, and its fields walked) and
    /// notes the maps it brings; `mode` says how perf reads the output.
    pub(crate) fn check(
        &mut self,
        model: &TraceModel,
        record: &[u8],
        type_: u32,
        mode: StatMode,
    ) -> Result<(), RecordProblem> {
        self.just_held = None;
        let pipe = mode == StatMode::Pipe;
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
            // perf reads the first of each and ignores the others, with a warning.
            record_type::THREAD_MAP | record_type::CPU_MAP if !self.unseen => {
                return Err(RecordProblem::Stat(StatProblem::ExtraMap));
            }
            record_type::EVENT_UPDATE if self.descs().is_none() => {
                if let Some(data) = event_update_cpus(endian, record) {
                    self.own_cpus(model, record, data, pipe)?;
                }
            }
            record_type::STAT_ROUND => {
                let descs = self.counted()?;
                if pipe && model.descs().len() > descs {
                    return Err(RecordProblem::Stat(StatProblem::DescribedAfterMaps));
                }
            }
            record_type::STAT => self.check_stat(model, record, mode)?,
            _ => {}
        }
        Ok(())
    }

    /// Notes an EVENT_UPDATE's cpu map, within the bounds of what strict mode keeps.
    fn own_cpus(
        &mut self,
        model: &TraceModel,
        record: &[u8],
        data: &[u8],
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
        let event = if pipe { model.index_at_read(id) } else { None };
        self.call_kept = true;
        self.call.own.retain(|o| o.id != id);
        self.call.own.push(OwnCpus {
            id,
            event,
            data: data.to_vec(),
        });
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
        &mut self,
        model: &TraceModel,
        record: &[u8],
        mode: StatMode,
    ) -> Result<(), RecordProblem> {
        let pipe = mode == StatMode::Pipe;
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
        let map = ParsedCpuMap::parse(cpus, endian);
        // A first cpu of -1 makes every event count on the CPU_MAP's cpus.
        let any_first = map.as_ref().ok().and_then(|m| m.get(0)) == Some(-1);
        if !found(map) {
            return Err(stat(StatProblem::Cpu(cpu)));
        }
        let index = if pipe { model.index_at_read(id) } else { None };
        let mut hold = false;
        if !any_first {
            let own = || self.written.own.iter().chain(&self.call.own);
            for (i, o) in own().enumerate() {
                let relation = relation(model, o, id, index);
                if relation == Relation::Different
                    || found(ParsedCpuMap::parse_data(&o.data, endian))
                {
                    continue;
                }
                // perf keeps an event's last EVENT_UPDATE cpus: a later one of the same
                // event replaces these, one that may be of it leaves them undecided.
                let later = own().skip(i + 1).map(|l| own_relation(model, o, l));
                let relation = match later.fold(Relation::Different, Relation::strongest) {
                    Relation::Same => continue,
                    Relation::Unknown => Relation::Unknown,
                    Relation::Different => relation,
                };
                match relation {
                    Relation::Unknown if mode == StatMode::FileHolding => hold = true,
                    Relation::Unknown => return Err(stat(StatProblem::UndescribedEventCpus(cpu))),
                    _ => return Err(stat(StatProblem::EventCpus(cpu))),
                }
            }
        }
        if u64::from(thread) >= threads {
            return Err(stat(StatProblem::Thread(thread)));
        }
        if pipe && index.is_some_and(|i| i >= descs) {
            return Err(stat(StatProblem::DescribedAfterMaps));
        }
        if hold {
            let pairs = self.held_pairs.saturating_add(self.call.held.len());
            if pairs >= MAX_HELD {
                return Err(stat(StatProblem::UndescribedEventCpus(cpu)));
            }
            self.just_held = Some((id, cpu));
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

/// How the output is read, for [`StatSession::check`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StatMode {
    /// In order, with the descriptions before each record.
    Pipe,
    /// With all descriptions; a STAT whose event the descriptions still to come decide is
    /// held until they do.
    FileHolding,
    /// With all descriptions, but records are judged as they come (the writer compresses
    /// them): such a STAT is refused.
    File,
}

impl StatSession {
    /// Checks a description about to be added (`new`) against the STATs held: refused
    /// when it makes a held STAT's event one an EVENT_UPDATE gave cpus its cpu is not
    /// among, naming those STATs.
    pub(crate) fn check_description(
        &self,
        model: &TraceModel,
        new: &NewDesc<'_>,
    ) -> Result<(), WriterError> {
        let index = model.descs().len();
        let settled = |id: u64| {
            model
                .settled_index(id)
                .or_else(|| new.ids.contains(&id).then_some(index))
        };
        let same = |a, b| match (settled(a), settled(b)) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        };
        self.contradicting(model, &same)
            .first()
            .map_or(Ok(()), |&(id, h)| {
                Err(WriterError::Event(EventError::ContradictsRecords {
                    records: h.records,
                    offset: h.first.pos,
                    type_: h.first.type_,
                    id: Some(id),
                    problem: Contradiction::StatCpus,
                }))
            })
    }

    /// A description was added: the held STATs whose relation to every EVENT_UPDATE is
    /// settled now passed ([`check_description`](Self::check_description)) and are let go.
    pub(crate) fn description_added(&mut self, model: &TraceModel) {
        let own = &self.written.own;
        let before = self.held.len();
        self.held.retain(|&id, _| {
            let settled = model.settled_index(id);
            own.iter()
                .any(|o| settled.is_none() || model.settled_index(o.id).is_none())
        });
        if self.held.len() != before {
            self.held_pairs = self.held.values().map(|h| h.cpus.len()).sum();
        }
    }

    /// The held STATs perf would refuse, were the file read with the descriptions of
    /// `model` (perf's rule, [`TraceModel::index_at_read`]): their count, their ids and
    /// where the first is.
    pub(crate) fn waiting(&self, model: &TraceModel) -> Option<(u64, u64, FirstRecord)> {
        let same = |a: u64, b: u64| match (model.index_at_read(a), model.index_at_read(b)) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        };
        let mut out: Option<(u64, u64, FirstRecord)> = None;
        for (_, h) in self.contradicting(model, &same) {
            out = Some(match out {
                None => (h.records, 1, h.first),
                Some((records, ids, first)) => (
                    records.saturating_add(h.records),
                    ids.saturating_add(1),
                    if h.first.pos < first.pos {
                        h.first
                    } else {
                        first
                    },
                ),
            });
        }
        out
    }

    /// Forgets the held STATs (their records are dropped, or strict mode is off).
    pub(crate) fn forget_held(&mut self) {
        self.held.clear();
        self.held_pairs = 0;
    }

    /// Takes the held STATs away (strict mode goes off), to be given back by
    /// [`give_back_held`](Self::give_back_held).
    pub(crate) fn take_held(&mut self) -> Held {
        let held = Held(std::mem::take(&mut self.held), self.held_pairs);
        self.held_pairs = 0;
        held
    }

    /// Gives back what [`take_held`](Self::take_held) took.
    pub(crate) fn give_back_held(&mut self, held: Held) {
        (self.held, self.held_pairs) = (held.0, held.1);
    }

    /// The held groups that `same` (two ids perf gives one event: an EVENT_UPDATE's and a
    /// STAT's, or two EVENT_UPDATEs') makes contradict the last cpus an EVENT_UPDATE gave
    /// their event, the earliest first.
    fn contradicting(
        &self,
        model: &TraceModel,
        same: &dyn Fn(u64, u64) -> bool,
    ) -> Vec<(u64, &HeldStats)> {
        let endian = model.endian();
        let mut found: Vec<(u64, &HeldStats)> = self
            .held
            .iter()
            .filter(|&(&id, h)| {
                let own = &self.written.own;
                own.iter().enumerate().any(|(i, o)| {
                    // perf keeps an event's last EVENT_UPDATE cpus.
                    let replaced = || own.iter().skip(i + 1).any(|l| same(o.id, l.id));
                    same(o.id, id)
                        && !replaced()
                        && ParsedCpuMap::parse_data(&o.data, endian).is_ok_and(|map| {
                            h.cpus
                                .iter()
                                .any(|&cpu| map.perf_position(cpu as i32).is_none())
                        })
                })
            })
            .map(|(&id, h)| (id, h))
            .collect();
        found.sort_by_key(|(_, h)| h.first.pos);
        found
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

/// Whether two EVENT_UPDATEs give cpus to one event.
fn own_relation(model: &TraceModel, a: &OwnCpus, b: &OwnCpus) -> Relation {
    match b.event {
        Some(index) => relation(model, a, b.id, Some(index)),
        None => relation(model, a, b.id, model.settled_index(b.id)),
    }
}

/// Whether an EVENT_UPDATE and a STAT (or another EVENT_UPDATE) are of one event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Relation {
    Same,
    Different,
    /// Descriptions still to come decide: the STAT is held to the EVENT_UPDATE's cpus.
    Unknown,
}

impl Relation {
    /// Of the relations of an EVENT_UPDATE to those after it: one of the same event
    /// replaces its cpus, one that may be leaves that open.
    fn strongest(self, other: Relation) -> Relation {
        match (self, other) {
            (Relation::Same, _) | (_, Relation::Same) => Relation::Same,
            (Relation::Unknown, _) | (_, Relation::Unknown) => Relation::Unknown,
            _ => Relation::Different,
        }
    }
}
