//! What a file will describe besides its records: event descriptions, feature headers and
//! the tracing-data settings. Shared by every output mode; holds no I/O.

use crate::error::{EventError, FeatureError, RecordError, TracingError};
use crate::host::this_machine;
use crate::model::feature_slot::{sent_in_pipe, FeatureSlot, FixedPayload, FEATURE_SLOTS};
use crate::model::id_index::IdIndex;
use crate::model::raw_rule::RawRule;
use crate::model::stable_storage::{ArenaSlice, ChunkedVec, SliceArena};
use crate::WriterError;
use perf_abi::{attr, feature, record_type, PerfEventAttr};
use perf_encode::features::{
    check_feature_payload, check_format_text, check_parsed_format, event_desc_names,
    EventDescFeature, FormatText, TracepointFormat, TracepointRawRule, TracingData,
};
use perf_encode::records::SampleLayout;
use perf_encode::records::{EventUpdateName, HeaderAttr, SwitchEvent};
use perf_encode::{Encode, Endian, EventEntry};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;
use tracepoint_decode::PerfEventFormat;

/// A description about to be added, as strict mode checks it before it is added.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NewDesc<'a> {
    pub(crate) ids: &'a [u64],
    pub(crate) name: &'a str,
    pub(crate) attr_type: u32,
    pub(crate) sample_id_all: bool,
    pub(crate) layout: &'a SampleLayout,
    /// Its RAW rule, when it brings its tracepoint's format.
    pub(crate) rule: Option<&'a RawRule>,
    /// `attr.config` of a tracepoint whose format is still unknown after it.
    pub(crate) format_pending: Option<u32>,
}

/// The name of the placeholder event a file with no event descriptions gets, so that every
/// reader can open it (readers refuse a file without attrs).
pub const PLACEHOLDER_EVENT_NAME: &str = "dummy:u";

/// One event description. Its name and ids are kept by the model
/// ([`TraceModel::entry`] reaches them).
#[derive(Debug, Clone)]
pub(crate) struct EventDescData {
    name: ArenaSlice,
    ids: ArenaSlice,
    pub(crate) attr: PerfEventAttr,
    /// How the attr lays out its records.
    pub(crate) layout: SampleLayout,
}

/// A tracepoint's format, the caller's original tracefs text if there was one, and the rule
/// its records' RAW payloads follow.
#[derive(Debug)]
struct Tracepoint {
    format: Arc<PerfEventFormat>,
    /// The caller's tracefs text; `None`: the format is written as `write_to` renders it.
    text: Option<Vec<u8>>,
    raw_rule: RawRule,
}

/// Settings of the synthesized TRACING_DATA.
#[derive(Debug, Default)]
pub(crate) struct TracingSettings {
    pub(crate) long_size: u8,
    pub(crate) page_size: u32,
    pub(crate) header_page: Vec<u8>,
    pub(crate) header_event: Vec<u8>,
    pub(crate) ftraces: Vec<Vec<u8>>,
    pub(crate) kallsyms: Vec<u8>,
    pub(crate) printk: Vec<u8>,
    pub(crate) saved_cmdline: Vec<u8>,
}

/// A feature index and its payload.
pub(crate) type FeaturePayload<'a> = (u8, Payload<'a>);

/// A feature payload: bytes, or the synthesized EVENT_DESC, encoded straight to the output
/// (it can be megabytes).
#[derive(Debug)]
pub(crate) enum Payload<'a> {
    Bytes(Cow<'a, [u8]>),
    EventDesc(EventDescFeature<'a>),
}

impl Payload<'_> {
    /// The payload as bytes (copied for EVENT_DESC).
    pub(crate) fn bytes(&self, endian: Endian) -> Result<Cow<'_, [u8]>, WriterError> {
        match self {
            Payload::Bytes(b) => Ok(Cow::Borrowed(b)),
            Payload::EventDesc(e) => Ok(Cow::Owned(perf_encode::to_vec(e, endian)?)),
        }
    }
}

impl Encode for Payload<'_> {
    fn encode<O: perf_encode::Output + ?Sized>(
        &self,
        enc: &mut perf_encode::Encoder<'_, O>,
    ) -> Result<(), perf_encode::EncodeError> {
        match self {
            Payload::Bytes(b) => enc.bytes(b),
            Payload::EventDesc(e) => e.encode(enc),
        }
    }

    fn encoded_len(&self) -> Result<usize, perf_encode::EncodeError> {
        match self {
            Payload::Bytes(b) => Ok(b.len()),
            Payload::EventDesc(e) => e.encoded_len(),
        }
    }
}

/// The description of one file.
#[derive(Debug)]
pub(crate) struct TraceModel {
    endian: Endian,
    /// The output is pipe mode: descriptions and features must fit its records.
    pipe: bool,
    /// Bumped by every change, so an output can tell cheaply whether anything is new.
    revision: u64,
    /// The revision at which each feature last changed.
    feature_revision: [u64; FEATURE_SLOTS],
    descs: ChunkedVec<EventDescData>,
    /// The names of the descriptions.
    names: SliceArena<String>,
    /// The sample ids of the descriptions.
    id_lists: SliceArena<Vec<u64>>,
    /// Every sample id, to the index of the description that owns it.
    ids: IdIndex,
    tracepoints: BTreeMap<u32, Tracepoint>,
    /// The RAW rules of the formats in the caller's TRACING_DATA, by id: perf reads
    /// those, not the descriptions' own.
    given_rules: BTreeMap<u32, RawRule>,
    /// The byte order of the caller's TRACING_DATA (its RAW rules').
    given_order: Endian,
    /// The ids of the event formats in the caller's TRACING_DATA (strict mode).
    given_formats: Option<std::collections::BTreeSet<u32>>,
    /// A description was added without ids (then it stays the only one, but for events
    /// perf cannot tell apart: `untold`).
    desc_without_ids: bool,
    /// Events perf cannot tell apart were described (several events, one without ids, or
    /// whose sample id is elsewhere than the first's): taken only in strict mode, with
    /// HEADER_STAT set and before any record, for a perf stat session, whose records name
    /// their event themselves. perf
    /// reads such a file only with HEADER_STAT (it skips its sample_type checks then) and a
    /// pipe stream always; a SAMPLE or kernel record of them it would attribute by an id it
    /// cannot find ([`TraceModel::untold_refuses`]).
    untold: bool,
    /// Descriptions with sample_id_all whose records carry a time (TIME), and those whose
    /// records do not (see [`TraceModel::keep_rounds`]).
    timed_descs: usize,
    untimed_descs: usize,
    /// Feature payloads; `None` is unset (an empty payload is a feature that is present with
    /// no bytes, as BRANCH_STACK and STAT are).
    headers: [Option<Vec<u8>>; FEATURE_SLOTS],
    /// Features whose payload the writer derived from the events (bit per index): the
    /// caller's own value always wins over them.
    derived: u32,
    pub(crate) tracing: TracingSettings,
    /// The writer compresses the records (`PerfWriter::set_compression`).
    pub(crate) compression: Option<crate::Compression>,
    /// HEADER_COMPRESSED before compression first set it (`None`: not set yet), and the
    /// feature revision of the value compression last gave it: a file in which compression
    /// wrote no COMPRESSED record gets the old one back.
    pub(crate) compressed_before: Option<Option<Vec<u8>>>,
    pub(crate) compressed_revision: u64,
}

/// The placeholder event: a software dummy event with no ids.
fn placeholder_attr() -> PerfEventAttr {
    PerfEventAttr {
        type_: attr::TYPE_SOFTWARE,
        size: attr::ATTR_SIZE_VER7,
        config: attr::SW_DUMMY,
        sample_period: 1,
        flags: perf_abi::attr_flags::EXCLUDE_KERNEL | perf_abi::attr_flags::EXCLUDE_HV,
        ..Default::default()
    }
}

impl TraceModel {
    /// A model for an output in `endian`; `pipe`: pipe mode (its limits apply).
    pub(crate) fn new(endian: Endian, pipe: bool) -> Self {
        TraceModel {
            endian,
            pipe,
            revision: 0,
            feature_revision: [0; FEATURE_SLOTS],
            descs: ChunkedVec::default(),
            names: SliceArena::default(),
            id_lists: SliceArena::default(),
            ids: IdIndex::default(),
            tracepoints: BTreeMap::new(),
            given_rules: BTreeMap::new(),
            given_order: endian,
            given_formats: None,
            desc_without_ids: false,
            untold: false,
            timed_descs: 0,
            untimed_descs: 0,
            headers: Default::default(),
            derived: 0,
            tracing: TracingSettings::default(),
            compression: None,
            compressed_before: None,
            compressed_revision: 0,
        }
    }

    pub(crate) fn endian(&self) -> Endian {
        self.endian
    }

    /// Forgets everything but the byte order.
    pub(crate) fn reset(&mut self) {
        *self = TraceModel::new(self.endian, self.pipe);
    }

    /// Events perf cannot tell apart were described (see the field `untold`).
    #[inline]
    pub(crate) fn untold(&self) -> bool {
        self.untold
    }

    /// A record of type `type_` perf would look for its event for by an id it cannot find,
    /// the events being ones it cannot tell apart (see the field `untold`): a SAMPLE, and
    /// a kernel record when the first event has `sample_id_all` (without, perf gives kernel
    /// records to the first event, as it does those of a perf stat session).
    #[inline]
    pub(crate) fn untold_refuses(&self, type_: u32) -> bool {
        self.untold
            && (type_ == record_type::SAMPLE
                || (!record_type::is_user(type_)
                    && self.descs.first().is_some_and(|d| d.layout.sample_id_all)))
    }

    /// The file cannot be read by perf as it stands: events perf cannot tell apart, and no
    /// HEADER_STAT.
    pub(crate) fn check_told_apart(&self) -> Result<(), WriterError> {
        match self.untold && !self.pipe && !self.is_stat_session() {
            true => Err(WriterError::Event(EventError::Indistinguishable(
                "HEADER_STAT was cleared after events perf cannot tell apart were taken for a perf stat session: perf reads such a file only as a stat file (set_stat_header)",
            ))),
            false => Ok(()),
        }
    }

    /// HEADER_STAT is set: the output is a perf stat session's, whose events perf may not
    /// tell apart (see the field `untold`).
    pub(crate) fn is_stat_session(&self) -> bool {
        self.header_if_set(feature::STAT).is_some()
    }

    /// Sets HEADER_STAT when [`check_told_apart`](Self::check_told_apart) would refuse the
    /// file: what a dropped writer does (no record of such events needs telling them apart).
    pub(crate) fn mark_untold_as_stat(&mut self) {
        if self.check_told_apart().is_err() {
            self.set_fixed(FeatureSlot::STAT, &perf_encode::features::EmptyFeature);
        }
    }

    /// The event descriptions, in the order they were added.
    pub(crate) fn descs(&self) -> &ChunkedVec<EventDescData> {
        &self.descs
    }

    /// The payload of feature `index` (empty when unset).
    pub(crate) fn header(&self, index: u8) -> &[u8] {
        self.header_if_set(index).unwrap_or(&[])
    }

    /// The payload of feature `index`, `None` when unset.
    pub(crate) fn header_if_set(&self, index: u8) -> Option<&[u8]> {
        self.headers
            .get(usize::from(index))
            .and_then(Option::as_deref)
    }

    /// The description that owns sample id `id`.
    /// No description has an id.
    pub(crate) fn has_no_ids(&self) -> bool {
        self.ids.is_empty()
    }

    pub(crate) fn desc_of_id(&self, id: u64) -> Option<&EventDescData> {
        let index = self.ids.get(id)?;
        self.descs.get(usize::try_from(index).ok()?)
    }

    /// The description whose layout applies to a record naming event `id`: the owner of
    /// `id`; the first for no id or id 0; the only one when no description has ids. `Err`
    /// when there is none, or the id belongs to no description.
    pub(crate) fn desc_for(&self, id: Option<u64>) -> Result<&EventDescData, WriterError> {
        let first = self
            .descs
            .first()
            .ok_or(WriterError::Record(RecordError::NoEventDescription))?;
        match id {
            // perf gives every record of a one-event file to that event, and a record
            // with id 0 (perf's synthesized records) to the first.
            None | Some(0) => Ok(first),
            // One event and no ids: perf's rule. With ids, a record naming none of them is
            // refused even with one event: an event added later would leave it to none.
            Some(_) if self.ids.is_empty() => Ok(first),
            Some(id) => self
                .desc_of_id(id)
                .ok_or(WriterError::Record(RecordError::UnknownEventId(id))),
        }
    }

    /// The index of the description perf 6.1 gives one of its own records (EVENT_UPDATE,
    /// STAT) naming event `id`, reading a file with these descriptions
    /// (`evlist__id2evsel`): the first when there is one description or the id is 0; else
    /// the owner of `id`; else, when the events have no `sample_id_all`, the first. Unlike
    /// [`desc_for`](Self::desc_for), which must hold whatever descriptions come later, this
    /// is the answer for now.
    pub(crate) fn index_at_read(&self, id: u64) -> Option<usize> {
        let first = self.descs.first()?;
        if self.descs.len() == 1 || id == 0 {
            return Some(0);
        }
        match self.ids.get(id) {
            Some(index) => usize::try_from(index).ok(),
            None => (!first.layout.sample_id_all).then_some(0),
        }
    }

    /// The index [`index_at_read`](Self::index_at_read) gives `id` whatever descriptions
    /// come later, when that is settled already: the first for id 0, else the owner of
    /// the id once one owns it. `None`: it depends on descriptions still to come.
    pub(crate) fn settled_index(&self, id: u64) -> Option<usize> {
        match id {
            0 => Some(0),
            id => usize::try_from(self.ids.get(id)?).ok(),
        }
    }

    /// FINISHED_ROUND records must stay where the caller wrote them, compressed or not: some
    /// events' records carry a time and others' do not (under sample_id_all, when perf sorts
    /// records by time), and perf hands an untimed record on as it reads it, so its place
    /// among the timed ones depends on the rounds.
    pub(crate) fn keep_rounds(&self) -> bool {
        self.timed_descs > 0 && self.untimed_descs > 0
    }

    /// Records a change.
    pub(crate) fn touch(&mut self) {
        self.revision = self.revision.wrapping_add(1);
    }

    /// Changes so far (see [`TraceModel::touch`]).
    pub(crate) fn revision(&self) -> u64 {
        self.revision
    }

    /// HEADER_COMPRESSED holds what the writer's compression gave it, and the caller has
    /// not set it since: it goes back to what it was if the writer compresses nothing.
    pub(crate) fn compressed_header_is_writers(&self) -> bool {
        self.compressed_before.is_some()
            && self.feature_revision(feature::COMPRESSED) == self.compressed_revision
    }

    /// The revision at which feature `index` last changed (0: never).
    pub(crate) fn feature_revision(&self, index: u8) -> u64 {
        self.feature_revision
            .get(usize::from(index))
            .copied()
            .unwrap_or(0)
    }

    /// The tracing-data settings, for a change.
    pub(crate) fn tracing_mut(&mut self) -> &mut TracingSettings {
        self.touch();
        &mut self.tracing
    }

    /// The slot of a feature, for a change by the caller.
    fn slot(&mut self, slot: FeatureSlot) -> &mut Option<Vec<u8>> {
        self.touch();
        let i = slot.position();
        self.feature_revision[i] = self.revision;
        self.derived &= !(1u32 << (i & 31));
        &mut self.headers[i]
    }

    /// Sets the raw payload of feature `index` (empty clears it).
    pub(crate) fn set_header(&mut self, index: u8, data: &[u8]) -> Result<(), WriterError> {
        let slot = self.check_header(index, data)?;
        *self.slot(slot) = (!data.is_empty()).then(|| data.to_vec());
        Ok(())
    }

    /// What [`set_header`](Self::set_header) would refuse of `data` for feature `index`,
    /// without setting it; the feature's slot when it would take it.
    pub(crate) fn check_header(&self, index: u8, data: &[u8]) -> Result<FeatureSlot, WriterError> {
        let slot = FeatureSlot::checked(index)?;
        self.check_feature_len(index, data.len())?;
        if !data.is_empty() {
            check_feature_payload(index, self.endian, data).map_err(FeatureError::BadPayload)?;
        }
        Ok(slot)
    }

    /// In pipe mode a feature travels in one HEADER_FEATURE record: its payload must fit
    /// [`MAX_FEATURE_PAYLOAD`](perf_abi::MAX_FEATURE_PAYLOAD) (TRACING_DATA and the features
    /// perf does not read from a pipe are not sent that way).
    fn check_feature_len(&self, index: u8, len: usize) -> Result<(), WriterError> {
        if self.pipe && len > perf_abi::MAX_FEATURE_PAYLOAD && sent_in_pipe(index) {
            return Err(WriterError::Feature(FeatureError::TooLargeForPipe(index)));
        }
        Ok(())
    }

    /// Sets feature `index` to the encoding of `value` (present even when that is no
    /// bytes); on error the feature keeps its old value.
    pub(crate) fn set_encoded<E: Encode + ?Sized>(
        &mut self,
        index: u8,
        value: &E,
    ) -> Result<(), WriterError> {
        let slot = FeatureSlot::checked(index)?;
        let bytes = perf_encode::to_vec(value, self.endian)?;
        self.check_feature_len(index, bytes.len())?;
        *self.slot(slot) = Some(bytes);
        Ok(())
    }

    /// Sets a feature to a payload whose encoding cannot be refused.
    pub(crate) fn set_fixed<P: FixedPayload>(&mut self, slot: FeatureSlot, value: &P) {
        *self.slot(slot) = Some(value.fixed_bytes(self.endian));
    }

    /// Sets a feature the writer derived from the events, unless the caller set it.
    pub(crate) fn set_derived<P: FixedPayload>(&mut self, slot: FeatureSlot, value: &P) {
        let bit = 1u32 << (slot.position() & 31);
        if self.header_if_set(slot.index()).is_some() && self.derived & bit == 0 {
            return;
        }
        let bytes = value.fixed_bytes(self.endian);
        let payload = self.slot(slot);
        if payload.as_deref() != Some(bytes.as_slice()) {
            *payload = Some(bytes);
        }
        self.derived |= bit;
    }

    pub(crate) fn clear_header(&mut self, slot: FeatureSlot) {
        *self.slot(slot) = None;
    }

    pub(crate) fn has_tracepoint(&self, common_type: u32) -> bool {
        self.tracepoints.contains_key(&common_type)
    }

    /// perf 6.1, given the caller's EVENT_DESC `event_desc`, would name the event at
    /// `place` `sched:sched_switch` where its description does not, or not where it does
    /// (a name perf's of is not known counts): a rename of Intel PT's switch event (see
    /// [`perf_names_sched_switch`](Self::perf_names_sched_switch)).
    pub(crate) fn renames_switch_event(
        &self,
        event_desc: Option<&[u8]>,
        place: usize,
        event: (&str, &PerfEventAttr, Option<&PerfEventFormat>),
    ) -> bool {
        let own = event.0 == SwitchEvent::SCHED_SWITCH_NAME;
        self.perf_names_sched_switch(event_desc, place, event) != Some(own)
    }

    /// Whether perf 6.1 names the event at `place` (named `name` by its description, of
    /// `attr`) `sched:sched_switch`, given the caller's EVENT_DESC `event_desc`: by the
    /// EVENT_DESC's name there; a place it names not gets a tracepoint's `system:name`
    /// from the tracing data, and other events a name of their attr (never that one).
    /// `None`: perf's name is not known (a tracepoint whose format is the caller's
    /// TRACING_DATA). Without a caller's EVENT_DESC, perf takes the descriptions' names.
    /// `format`: the event's format when it is being added with it.
    fn perf_names_sched_switch(
        &self,
        event_desc: Option<&[u8]>,
        place: usize,
        (name, attr, format): (&str, &PerfEventAttr, Option<&PerfEventFormat>),
    ) -> Option<bool> {
        const SCHED_SWITCH: &str = SwitchEvent::SCHED_SWITCH_NAME;
        let Some(data) = event_desc else {
            return Some(name == SCHED_SWITCH);
        };
        if let Some(given) = event_desc_names(data, self.endian).nth(place) {
            return Some(given == SCHED_SWITCH.as_bytes());
        }
        if attr.type_ != attr::TYPE_TRACEPOINT {
            return Some(false);
        }
        if self.has_own_tracing_data() {
            return None;
        }
        let known = || {
            let config = u32::try_from(attr.config).ok()?;
            self.tracepoints.get(&config).map(|t| &*t.format)
        };
        let f = format.or_else(known)?;
        let system = f.system_name();
        Some(
            SCHED_SWITCH
                .strip_prefix(system)
                .and_then(|n| n.strip_prefix(':'))
                == Some(f.name()),
        )
    }

    /// Adds an event description after checking everything that could make the file wrong;
    /// `also` is the caller's last check, given the model before and the description (its
    /// result is returned; an error adds nothing).
    pub(crate) fn add_desc<T>(
        &mut self,
        ids: &[u64],
        attr: PerfEventAttr,
        name: &str,
        tracepoint: Option<(&Arc<PerfEventFormat>, Option<&[u8]>)>,
        untold_allowed: bool,
        also: impl FnOnce(&TraceModel, &NewDesc<'_>) -> Result<T, WriterError>,
    ) -> Result<T, WriterError> {
        let entry = EventEntry { attr, name, ids };
        entry.check()?;
        self.check_pipe_limits(&entry)?;
        let checked = match tracepoint {
            Some((format, text)) => {
                let (rule, text) = check_tracepoint(format, text)?;
                self.check_common_type_offset(&rule)?;
                // The synthesized TRACING_DATA is in the output's byte order.
                let rule = RawRule {
                    rule,
                    order: self.endian,
                };
                Some((format, text, rule))
            }
            None => None,
        };
        if u32::try_from(self.descs.len()).map_or(true, |n| n == u32::MAX) {
            return Err(WriterError::Event(EventError::TooMany));
        }
        let index =
            u32::try_from(self.descs.len()).map_err(|_| WriterError::Event(EventError::TooMany))?;
        // Claim the ids (a duplicate is the first refusal), then check the rest; a refusal
        // gives back the ids this call claimed.
        let claimed = self
            .ids
            .claim(ids, index)
            .map_err(EventError::DuplicateId)?;
        // With several events perf finds a record's event by its id alone.
        let several_need_ids = || {
            match (self.descs.is_empty(), self.desc_without_ids) {
            (true, _) => Ok(()),
            (false, true) => Err(WriterError::Event(EventError::Indistinguishable(
                "an event added before has no sample id: with several events every event needs one (a perf stat session's are taken after set_stat_header, before any record)",
            ))),
            (false, false) if ids.is_empty() => {
                Err(WriterError::Event(EventError::Indistinguishable(
                    "this event has no sample id: with several events every event needs one (a perf stat session's are taken after set_stat_header, before any record)",
                )))
            }
            (false, false) => Ok(()),
        }
        };
        let layout = SampleLayout::from_attr(&attr);
        let config = u32::try_from(attr.config).ok();
        let tracepoint_attr = attr.type_ == attr::TYPE_TRACEPOINT;
        let known_rule = match (tracepoint_attr, config) {
            (true, Some(c)) => self.rule_of_format(c),
            _ => None,
        };
        // With the caller's TRACING_DATA perf reads its format, not the description's.
        let own = checked
            .as_ref()
            .map(|(_, _, r)| r)
            .filter(|_| !self.has_own_tracing_data());
        let rule = own.or(known_rule);
        let new = NewDesc {
            ids,
            name,
            attr_type: attr.type_,
            sample_id_all: attr.has_flag(perf_abi::attr_flags::SAMPLE_ID_ALL),
            layout: &layout,
            rule,
            format_pending: config
                .filter(|_| tracepoint_attr && rule.is_none() && !self.has_own_tracing_data()),
        };
        let told_apart = several_need_ids().and_then(|()| match self.descs.first() {
            Some(first) => check_distinguishable(&first.layout, &layout),
            None => Ok(()),
        });
        let untold = match told_apart {
            Ok(()) => Ok(false),
            Err(_) if untold_allowed => Ok(true),
            Err(e) => Err(e),
        };
        let also = untold.and_then(|untold| {
            self.check_new_desc(&attr, tracepoint)?;
            also(self, &new).map(|v| (v, untold))
        });
        let (also, untold) = match also {
            Ok(v) => v,
            Err(e) => {
                self.ids.release(claimed, ids);
                return Err(e);
            }
        };
        if let Some((format, text, raw_rule)) = checked {
            self.tracepoints.insert(
                format.id(),
                Tracepoint {
                    format: format.clone(),
                    text,
                    raw_rule,
                },
            );
        }
        self.touch();
        self.desc_without_ids |= ids.is_empty();
        self.untold |= untold;
        if attr.has_flag(perf_abi::attr_flags::SAMPLE_ID_ALL) {
            match attr.sample_type & perf_abi::sample_type::TIME {
                0 => self.untimed_descs = self.untimed_descs.saturating_add(1),
                _ => self.timed_descs = self.timed_descs.saturating_add(1),
            }
        }
        self.descs.push(EventDescData {
            name: self.names.push(name),
            ids: self.id_lists.push(ids),
            attr,
            layout,
        });
        Ok(also)
    }

    /// In pipe mode an event's attr and ids travel in one HEADER_ATTR record and its name in
    /// one EVENT_UPDATE record: both must fit.
    fn check_pipe_limits(&self, entry: &EventEntry<'_>) -> Result<(), WriterError> {
        if !self.pipe {
            return Ok(());
        }
        if entry.name.len() > EventUpdateName::MAX_NAME_LEN {
            return Err(WriterError::Event(EventError::NameTooLongForPipe {
                len: entry.name.len(),
                max: EventUpdateName::MAX_NAME_LEN,
            }));
        }
        let max = HeaderAttr::max_ids(entry.attr.minimal_file_size());
        if entry.ids.len() > max {
            return Err(WriterError::Event(EventError::TooManyIdsForPipe {
                ids: entry.ids.len(),
                max,
            }));
        }
        Ok(())
    }

    /// The rule the RAW payloads of the event that owns sample id `id` follow (resolved as
    /// [`TraceModel::desc_for`] does): `None` when that event is no tracepoint or its format is
    /// not known (the caller set TRACING_DATA itself).
    #[inline]
    pub fn tracepoint_raw_rule(&self, id: Option<u64>) -> Option<RawRule> {
        self.raw_rule_of(self.desc_for(id).ok()?).copied()
    }

    /// [`TraceModel::tracepoint_raw_rule`] of a description already found, where it is kept
    /// (the per-event checks read it without copying its dynamic fields).
    #[inline]
    pub(crate) fn raw_rule_of(&self, desc: &EventDescData) -> Option<&RawRule> {
        if desc.attr.type_ != attr::TYPE_TRACEPOINT {
            return None;
        }
        self.rule_of_format(u32::try_from(desc.attr.config).ok()?)
    }

    /// The RAW rule of the format with id `common_type` that perf reads: the caller's
    /// TRACING_DATA's when it set one, else the one a description brought.
    fn rule_of_format(&self, common_type: u32) -> Option<&RawRule> {
        let given = self.has_own_tracing_data().then_some(&self.given_rules);
        self.rule_under(given, common_type)
    }

    /// The RAW rule of the format with id `common_type` under a caller's TRACING_DATA of
    /// `given` rules, or (`None`) under the synthesized one.
    fn rule_under<'a>(
        &'a self,
        given: Option<&'a BTreeMap<u32, RawRule>>,
        common_type: u32,
    ) -> Option<&'a RawRule> {
        match given {
            Some(rules) => rules.get(&common_type),
            None => self.tracepoints.get(&common_type).map(|t| &t.raw_rule),
        }
    }

    /// The caller's TRACING_DATA was set, with formats of these RAW rules (in its byte
    /// order), and (read in strict mode) of these ids.
    pub(crate) fn set_given_rules(
        &mut self,
        rules: BTreeMap<u32, RawRule>,
        formats: Option<std::collections::BTreeSet<u32>>,
        order: Endian,
    ) {
        self.given_rules = rules;
        self.given_order = order;
        self.given_formats = formats;
        self.touch();
    }

    /// The first tracepoint event whose RAW rule a caller's TRACING_DATA of `rules` (by id;
    /// `None`: cleared, so the descriptions' formats are perf's again) changes, by its
    /// format's id: one it had a rule before and has another after. One without a rule
    /// after is [`check_given_format`](Self::check_given_format)'s and finalize's to refuse.
    pub(crate) fn raw_rule_changed(&self, rules: Option<&BTreeMap<u32, RawRule>>) -> Option<u32> {
        self.descs.iter().find_map(|d| {
            let before = self.raw_rule_of(d)?;
            let config = u32::try_from(d.attr.config).ok()?;
            let after = self.rule_under(rules, config);
            after.filter(|a| *a != before).map(|_| config)
        })
    }

    /// A tracepoint event of `attr` has its format in the caller's TRACING_DATA, when it
    /// was read (strict mode): perf refuses the file, or crashes on a pipe stream, when one
    /// lacks it.
    pub(crate) fn check_given_format(&self, attr: &PerfEventAttr) -> Result<(), WriterError> {
        match self
            .given_formats
            .as_ref()
            .filter(|_| self.has_own_tracing_data())
        {
            Some(ids) => check_format_among(ids, attr),
            None => Ok(()),
        }
    }

    /// Every tracepoint event has its format among `ids` (see
    /// [`check_given_format`](Self::check_given_format)).
    pub(crate) fn check_formats_among(
        &self,
        ids: &std::collections::BTreeSet<u32>,
    ) -> Result<(), WriterError> {
        self.descs
            .iter()
            .try_for_each(|d| check_format_among(ids, &d.attr))
    }

    /// True when `desc` is a tracepoint whose format is not known yet (no description with
    /// its format was added, and the caller set no TRACING_DATA): the RAW payloads of its
    /// SAMPLEs cannot be checked until it is.
    pub(crate) fn format_pending(&self, desc: &EventDescData) -> bool {
        desc.attr.type_ == attr::TYPE_TRACEPOINT
            && self.raw_rule_of(desc).is_none()
            && !self.has_own_tracing_data()
    }

    /// The byte order perf reads RAW payloads in: the caller's TRACING_DATA's when it set
    /// one (see [`RawRule`]), else the output's.
    pub(crate) fn raw_order(&self) -> Endian {
        match self.has_own_tracing_data() {
            true => self.given_order,
            false => self.endian,
        }
    }

    /// True when the caller set TRACING_DATA itself.
    pub(crate) fn has_own_tracing_data(&self) -> bool {
        self.header_if_set(feature::TRACING_DATA).is_some()
    }

    /// perf reads every record's `common_type` where the first format it parsed has it:
    /// every format of a file must have it at the same offset.
    fn check_common_type_offset(&self, rule: &TracepointRawRule) -> Result<(), WriterError> {
        match self.tracepoints.values().next() {
            Some(t) if t.raw_rule.rule.common_type_offset != rule.common_type_offset => {
                Err(WriterError::Tracing(TracingError::CommonTypeOffset {
                    offset: rule.common_type_offset,
                    expected: t.raw_rule.rule.common_type_offset,
                }))
            }
            _ => Ok(()),
        }
    }

    /// The checks of a new description besides its ids.
    fn check_new_desc(
        &self,
        attr: &PerfEventAttr,
        tracepoint: Option<(&Arc<PerfEventFormat>, Option<&[u8]>)>,
    ) -> Result<(), WriterError> {
        if let Some((format, _)) = tracepoint {
            let id = format.id();
            if self.tracepoints.contains_key(&id) {
                return Err(WriterError::Tracing(TracingError::DuplicateFormat(id)));
            }
            if attr.type_ == attr::TYPE_TRACEPOINT && attr.config != u64::from(id) {
                return Err(WriterError::Event(EventError::TracepointConfigMismatch {
                    config: attr.config,
                    format_id: id,
                }));
            }
        }
        Ok(())
    }

    /// The events the file lists: the descriptions, or the placeholder when there are none.
    pub(crate) fn event_entries(&self) -> Vec<EventEntry<'_>> {
        if self.descs.is_empty() {
            return vec![EventEntry {
                attr: placeholder_attr(),
                name: PLACEHOLDER_EVENT_NAME,
                ids: &[],
            }];
        }
        let mut entries = Vec::with_capacity(self.descs.len());
        entries.extend(self.descs.iter().map(|d| self.entry(d)));
        entries
    }

    /// The description `d` with its name and ids (`d` is one of this model's
    /// descriptions, so both are always found).
    pub(crate) fn entry<'s>(&'s self, d: &EventDescData) -> EventEntry<'s> {
        EventEntry {
            attr: d.attr,
            name: self.names.get(d.name).unwrap_or_default(),
            ids: self.id_lists.get(d.ids).unwrap_or_default(),
        }
    }

    /// The TRACING_DATA blob: the caller's, else synthesized when the events need one.
    pub(crate) fn tracing_data(&self) -> Result<Option<Cow<'_, [u8]>>, WriterError> {
        if let Some(own) = self.header_if_set(feature::TRACING_DATA) {
            return Ok(Some(Cow::Borrowed(own)));
        }
        if self.needs_tracing_data() {
            return Ok(Some(Cow::Owned(self.synthesize_tracing_data()?)));
        }
        Ok(None)
    }

    /// perf refuses a file that has a tracepoint attr and no TRACING_DATA.
    fn needs_tracing_data(&self) -> bool {
        !self.tracepoints.is_empty()
            || self.tracing.long_size != 0
            || self
                .descs
                .iter()
                .any(|d| d.attr.type_ == attr::TYPE_TRACEPOINT)
    }

    fn synthesize_tracing_data(&self) -> Result<Vec<u8>, WriterError> {
        let mut formats: Vec<&Tracepoint> = self.tracepoints.values().collect();
        formats.sort_by(|a, b| {
            a.format
                .system_name()
                .cmp(b.format.system_name())
                .then(a.format.id().cmp(&b.format.id()))
        });
        // The parsed formats rendered once, one after another, for the encoder to copy;
        // `spans[k]`: where format `k`'s text is (`None`: the caller's own text is kept).
        let mut rendered = String::new();
        let mut spans = Vec::with_capacity(formats.len());
        for t in &formats {
            let span = if t.text.is_none() {
                let start = rendered.len();
                t.format
                    .write_to(&mut rendered)
                    .map_err(|_| WriterError::Encode(perf_encode::EncodeError::Format))?;
                // Checked when added, without rendering (`check_parsed_format`): the text
                // must pass the text's check too; every debug build's test asserts it.
                debug_assert!(
                    check_format_text(rendered.as_bytes().get(start..).unwrap_or_default()).is_ok(),
                    "a format passed check_parsed_format and its text fails"
                );
                Some(start..rendered.len())
            } else {
                None
            };
            spans.push(span);
        }
        let events: Vec<TracepointFormat<'_>> = formats
            .iter()
            .zip(spans)
            .map(|(t, span)| TracepointFormat {
                system: t.format.system_name(),
                format: FormatText::Text(match (&t.text, span) {
                    (Some(own), _) => own.as_slice(),
                    (None, span) => span
                        .and_then(|r| rendered.as_bytes().get(r))
                        .unwrap_or_default(),
                }),
            })
            .collect();
        let ftraces: Vec<&[u8]> = self.tracing.ftraces.iter().map(Vec::as_slice).collect();
        let s = &self.tracing;
        let td = TracingData {
            long_size: if s.long_size == 0 {
                this_machine::long_size()
            } else {
                s.long_size
            },
            page_size: if s.page_size == 0 {
                this_machine::page_size()
            } else {
                s.page_size
            },
            header_page: &s.header_page,
            header_event: &s.header_event,
            ftraces: &ftraces,
            events: &events,
            kallsyms: &s.kallsyms,
            printk: &s.printk,
            saved_cmdline: &s.saved_cmdline,
        };
        Ok(perf_encode::to_vec(&td, self.endian)?)
    }

    /// perf refuses a file with a tracepoint attr whose format is not in TRACING_DATA. The
    /// formats are known for descs added with one; a caller's own TRACING_DATA is trusted.
    pub(crate) fn check_tracepoint_formats(&self) -> Result<(), WriterError> {
        if self.header_if_set(feature::TRACING_DATA).is_some() {
            return Ok(());
        }
        let missing = self.descs.iter().find(|d| {
            d.attr.type_ == attr::TYPE_TRACEPOINT
                && !u32::try_from(d.attr.config).is_ok_and(|id| self.tracepoints.contains_key(&id))
        });
        match missing {
            Some(d) => Err(WriterError::Event(EventError::MissingTracepointFormat {
                config: d.attr.config,
            })),
            None => Ok(()),
        }
    }

    /// Makes each tracepoint event whose format never came a software event with the same
    /// name, ids and record layout, so that the file can be written (perf refuses a
    /// tracepoint attr without its format): what a dropped or salvaged writer keeps of it.
    /// Returns how many changed.
    pub(crate) fn demote_formatless_tracepoints(&mut self) -> usize {
        if self.header_if_set(feature::TRACING_DATA).is_some() {
            return 0;
        }
        let tracepoints = &self.tracepoints;
        let mut changed = 0;
        for d in self.descs.iter_mut() {
            let known = u32::try_from(d.attr.config).is_ok_and(|id| tracepoints.contains_key(&id));
            if d.attr.type_ == attr::TYPE_TRACEPOINT && !known {
                d.attr.type_ = attr::TYPE_SOFTWARE;
                d.attr.config = attr::SW_DUMMY;
                changed += 1;
            }
        }
        if changed != 0 {
            self.touch();
        }
        changed
    }

    /// Every feature payload of the file, ascending: the caller's, plus the synthesized
    /// EVENT_DESC and TRACING_DATA where the caller set none, plus HOSTNAME in a big-endian
    /// file (perf drops the features of a byte-swapped file without it).
    pub(crate) fn feature_payloads<'a>(
        &'a self,
        events: &'a [EventEntry<'a>],
    ) -> Result<Vec<FeaturePayload<'a>>, WriterError> {
        let mut out = Vec::new();
        for (index, data) in self.headers.iter().enumerate() {
            let index = u8::try_from(index)
                .map_err(|_| WriterError::Feature(FeatureError::BadIndex(u8::MAX)))?;
            let payload = if index == feature::TRACING_DATA {
                self.tracing_data()?.map(Payload::Bytes)
            } else if let Some(data) = data {
                Some(Payload::Bytes(Cow::Borrowed(data.as_slice())))
            } else if index == feature::EVENT_DESC {
                Some(Payload::EventDesc(EventDescFeature::new(events)))
            } else if index == feature::SWAPPED_FILE_NEEDS && self.endian == Endian::Big {
                let name = this_machine::hostname().unwrap_or_default();
                let bytes =
                    perf_encode::to_vec(&perf_encode::HeaderString::new(&name), self.endian)?;
                Some(Payload::Bytes(Cow::Owned(bytes)))
            } else {
                None
            };
            if let Some(p) = payload {
                out.push((index, p));
            }
        }
        Ok(out)
    }
}

/// Checks a tracepoint's system name and format (the caller's text, or the parsed format
/// as the text `write_to` renders of it) as perf will read them; returns the rule of its
/// RAW payloads and the caller's text to keep.
fn check_tracepoint(
    format: &PerfEventFormat,
    text: Option<&[u8]>,
) -> Result<(TracepointRawRule, Option<Vec<u8>>), WriterError> {
    check_system_name(format.system_name())?;
    let summary = match text {
        Some(t) => check_format_text(t),
        None => check_parsed_format(format),
    }
    .map_err(TracingError::FormatText)?;
    if u32::from(summary.id) != format.id() {
        return Err(WriterError::Tracing(TracingError::BadFormatText));
    }
    Ok((
        TracepointRawRule::from_summary(&summary),
        text.map(<[u8]>::to_vec),
    ))
}

/// A tracepoint system name perf reads: the name of a directory under `events/`, written
/// as a C string (no NUL, not empty, no `/`).
pub(crate) fn check_system_name(system: &str) -> Result<(), WriterError> {
    let problem = if system.is_empty() {
        "it is empty"
    } else if system.contains('\0') {
        "it contains a NUL byte"
    } else if system.contains('/') || system.chars().any(char::is_whitespace) {
        "it contains a `/` or white space"
    } else {
        return Ok(());
    };
    Err(WriterError::Tracing(TracingError::BadSystemName(problem)))
}

/// perf reads a file with several events only if it can tell their records apart: every
/// attr must put the sample id at the same place in samples and in `sample_id` trailers, and
/// agree on `sample_id_all` (`evlist__valid_sample_type`, `evlist__valid_sample_id_all`).
/// `first` is the layout of the first event of the file; `new` another one's.
fn check_distinguishable(first: &SampleLayout, new: &SampleLayout) -> Result<(), WriterError> {
    if first.sample_id_all != new.sample_id_all {
        return Err(WriterError::Event(EventError::Indistinguishable(
            "sample_id_all differs from the first event's",
        )));
    }
    // perf's id_pos and is_pos (where it reads the id in samples and in trailers).
    match (first.id_offsets(), new.id_offsets()) {
        (Some(a), Some(b)) if a == b => Ok(()),
        (None, _) | (_, None) => Err(WriterError::Event(EventError::Indistinguishable(
            "with several events every sample_type needs IDENTIFIER (or ID) (a perf stat session's are taken after set_stat_header, before any record)",
        ))),
        _ => Err(WriterError::Event(EventError::Indistinguishable(
            "the sample id is not at the same place as in the first event (add IDENTIFIER)",
        ))),
    }
}

/// A tracepoint event of `attr` has its format among the format ids `ids`: perf refuses
/// the file otherwise.
fn check_format_among(
    ids: &std::collections::BTreeSet<u32>,
    attr: &PerfEventAttr,
) -> Result<(), WriterError> {
    let has = u32::try_from(attr.config).is_ok_and(|c| ids.contains(&c));
    match attr.type_ != attr::TYPE_TRACEPOINT || has {
        true => Ok(()),
        false => Err(WriterError::Event(EventError::MissingTracepointFormat {
            config: attr.config,
        })),
    }
}
