//! `struct read_format`: counter values of SAMPLE's READ field and of READ records.

use crate::records::wire::error::ParseError;
use crate::records::wire::presence::{field, present};
use crate::records::wire::reader::Reader;
use crate::records::wire::reader::U64Array;
use crate::{EncodeError, Encoder, Output};
use perf_abi::read_format;

/// One counter: its value, and its id and lost count when `read_format` has
/// `ID` / `LOST`.
///
/// ```
/// use perf_encode::records::ReadValue;
/// // read_format = ID: the id is present, the lost count is not.
/// let v = ReadValue { value: 1000, id: Some(5), lost: None };
/// assert_eq!(v.id, Some(5));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ReadValue {
    /// The counter value.
    pub value: u64,
    /// `read_format::ID`.
    pub id: Option<u64>,
    /// `read_format::LOST` (kernel 6.0 and later).
    pub lost: Option<u64>,
}

/// The counters: one, or a group (`read_format::GROUP`).
///
/// ```
/// use perf_encode::records::{ReadCounters, ReadValue};
/// let members = [ReadValue::default(); 2];
/// assert_ne!(ReadCounters::Group(&members), ReadCounters::One(ReadValue::default()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReadCounters<'a> {
    /// Without `read_format::GROUP`.
    One(ReadValue),
    /// With `read_format::GROUP`: every member of the group.
    Group(&'a [ReadValue]),
}

/// The values of `struct read_format`, laid out by `read_format`:
/// single `{value, [time_enabled], [time_running], [id], [lost]}`, group
/// `{nr, [time_enabled], [time_running], {value, [id], [lost]}[nr]}`.
///
/// ```
/// use perf_abi::{read_format, sample_type};
/// use perf_encode::records::{ReadCounters, ReadValue, ReadValues, Sample, SampleLayout, SampleRecord};
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout { sample_type: sample_type::READ, read_format: read_format::GROUP | read_format::ID, ..Default::default() };
/// let members = [ReadValue { value: 10, id: Some(1), lost: None }, ReadValue { value: 20, id: Some(2), lost: None }];
/// let read = ReadValues { time_enabled: None, time_running: None, counters: ReadCounters::Group(&members) };
/// let sample = Sample { read: Some(read), ..Default::default() };
/// let v = to_vec(&SampleRecord { layout: &layout, sample: &sample, misc: 0 }, Endian::Little).unwrap();
/// assert_eq!(v.len(), 8 + 8 + 2 * 16);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReadValues<'a> {
    /// `read_format::TOTAL_TIME_ENABLED`.
    pub time_enabled: Option<u64>,
    /// `read_format::TOTAL_TIME_RUNNING`.
    pub time_running: Option<u64>,
    /// The counter or the group's counters.
    pub counters: ReadCounters<'a>,
}

/// The `u64`s one [`ReadValue`] takes: the value, and the id and lost count `rf` asks for.
const fn value_words(rf: u64) -> usize {
    1usize
        .saturating_add((rf & read_format::ID != 0) as usize)
        .saturating_add((rf & read_format::LOST != 0) as usize)
}

/// Checks that `v` has the id and lost count `rf` asks for, and no other.
fn check_id_lost(rf: u64, v: &ReadValue, record: &'static str) -> Result<(), EncodeError> {
    field(record, "read.id", rf & read_format::ID != 0, v.id)?;
    field(record, "read.lost", rf & read_format::LOST != 0, v.lost)?;
    Ok(())
}

/// Writes the id and lost count `rf` asks for (`ReadValues::len` checked they are there).
#[inline]
fn write_id_lost<O: Output + ?Sized>(
    enc: &mut Encoder<'_, O>,
    rf: u64,
    v: &ReadValue,
    record: &'static str,
) -> Result<(), EncodeError> {
    if rf & read_format::ID != 0 {
        enc.u64(present(record, "read.id", v.id)?)?;
    }
    if rf & read_format::LOST != 0 {
        enc.u64(present(record, "read.lost", v.lost)?)?;
    }
    Ok(())
}

impl ReadValues<'_> {
    /// Bytes the values take as `read_format` lays them out, after checking that they have
    /// every field it asks for and no other (errors name `record`): the `nr` or `value`
    /// word, the times, then one counter or the group's counters.
    pub(crate) fn len(&self, rf: u64, record: &'static str) -> Result<usize, EncodeError> {
        let enabled = field(
            record,
            "read.time_enabled",
            rf & read_format::TOTAL_TIME_ENABLED != 0,
            self.time_enabled,
        )?;
        let running = field(
            record,
            "read.time_running",
            rf & read_format::TOTAL_TIME_RUNNING != 0,
            self.time_running,
        )?;
        let head = 1usize
            .saturating_add(usize::from(enabled.is_some()))
            .saturating_add(usize::from(running.is_some()));
        let group = rf & read_format::GROUP != 0;
        let counter_words = match (group, self.counters) {
            (false, ReadCounters::One(v)) => {
                check_id_lost(rf, &v, record)?;
                value_words(rf).saturating_sub(1)
            }
            (true, ReadCounters::Group([])) => {
                return Err(EncodeError::InvalidValue {
                    what: "read: a group of no counter (a group has its leader at least)",
                })
            }
            (true, ReadCounters::Group(values)) => {
                values
                    .iter()
                    .try_for_each(|v| check_id_lost(rf, v, record))?;
                values
                    .len()
                    .checked_mul(value_words(rf))
                    .ok_or(EncodeError::Overflow {
                        what: "encoded length",
                    })?
            }
            (false, ReadCounters::Group(_)) => {
                return Err(EncodeError::UnexpectedField {
                    record,
                    field: "read (a group; read_format has no GROUP)",
                })
            }
            (true, ReadCounters::One(_)) => {
                return Err(EncodeError::MissingField {
                    record,
                    field: "read (a group: read_format has GROUP)",
                })
            }
        };
        head.checked_add(counter_words)
            .and_then(|w| w.checked_mul(8))
            .ok_or(EncodeError::Overflow {
                what: "encoded length",
            })
    }

    /// Writes the values as `read_format` lays them out, once [`Self::len`] accepted them
    /// (a field `rf` asks for and the values lack is still an error; one it does not ask
    /// for is not written).
    #[inline]
    pub(crate) fn write<O: Output + ?Sized>(
        &self,
        enc: &mut Encoder<'_, O>,
        rf: u64,
        record: &'static str,
    ) -> Result<(), EncodeError> {
        let first = match self.counters {
            ReadCounters::One(v) => v.value,
            ReadCounters::Group(values) => values.len() as u64,
        };
        enc.u64(first)?;
        if rf & read_format::TOTAL_TIME_ENABLED != 0 {
            enc.u64(present(record, "read.time_enabled", self.time_enabled)?)?;
        }
        if rf & read_format::TOTAL_TIME_RUNNING != 0 {
            enc.u64(present(record, "read.time_running", self.time_running)?)?;
        }
        match self.counters {
            ReadCounters::One(v) => write_id_lost(enc, rf, &v, record),
            ReadCounters::Group(values) => values.iter().try_for_each(|v| {
                enc.u64(v.value)?;
                write_id_lost(enc, rf, v, record)
            }),
        }
    }
}

/// The members of a group as read from a record, without copying: iterate or index them.
///
/// ```
/// use perf_abi::{read_format, sample_type};
/// use perf_encode::records::*;
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout { sample_type: sample_type::READ, read_format: read_format::GROUP | read_format::ID, ..Default::default() };
/// let members = [ReadValue { value: 1, id: Some(10), lost: None }, ReadValue { value: 2, id: Some(20), lost: None }];
/// let read = ReadValues { time_enabled: None, time_running: None, counters: ReadCounters::Group(&members) };
/// let bytes = to_vec(&SampleRecord { layout: &layout, sample: &Sample { read: Some(read), ..Default::default() }, misc: 0 }, Endian::Big).unwrap();
/// let parsed = parse_sample(&layout, Endian::Big, &bytes).unwrap();
/// let Some(ParsedReadValues { counters: ParsedReadCounters::Group(g), .. }) = parsed.read else { panic!() };
/// assert_eq!(g.iter().collect::<Vec<_>>(), members);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadGroup<'a> {
    words: U64Array<'a>,
    has_id: bool,
    has_lost: bool,
}

impl<'a> ReadGroup<'a> {
    fn stride(&self) -> usize {
        1usize
            .saturating_add(usize::from(self.has_id))
            .saturating_add(usize::from(self.has_lost))
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        self.words.len().checked_div(self.stride()).unwrap_or(0)
    }

    /// True when the group has no member.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Member `i`.
    pub fn get(&self, i: usize) -> Option<ReadValue> {
        let at = i.checked_mul(self.stride())?;
        let value = self.words.get(at)?;
        let mut next = at.checked_add(1)?;
        let id = if self.has_id {
            let v = self.words.get(next)?;
            next = next.checked_add(1)?;
            Some(v)
        } else {
            None
        };
        let lost = if self.has_lost {
            Some(self.words.get(next)?)
        } else {
            None
        };
        Some(ReadValue { value, id, lost })
    }

    /// The members in order.
    pub fn iter(&self) -> impl Iterator<Item = ReadValue> + 'a {
        let g = *self;
        (0..g.len()).filter_map(move |i| g.get(i))
    }
}

/// Counters as read from a record.
///
/// ```
/// use perf_encode::records::{ParsedReadCounters, ReadValue};
/// let one = ParsedReadCounters::One(ReadValue { value: 3, id: None, lost: None });
/// assert!(matches!(one, ParsedReadCounters::One(v) if v.value == 3));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParsedReadCounters<'a> {
    /// Without `read_format::GROUP`.
    One(ReadValue),
    /// With `read_format::GROUP`.
    Group(ReadGroup<'a>),
}

/// [`ReadValues`] as read from a record.
///
/// ```
/// use perf_abi::{read_format, sample_type};
/// use perf_encode::records::*;
/// use perf_encode::{to_vec, Endian};
/// let layout = SampleLayout { sample_type: sample_type::READ, read_format: read_format::TOTAL_TIME_ENABLED, ..Default::default() };
/// let read = ReadValues { time_enabled: Some(9), time_running: None, counters: ReadCounters::One(ReadValue { value: 4, id: None, lost: None }) };
/// let bytes = to_vec(&SampleRecord { layout: &layout, sample: &Sample { read: Some(read), ..Default::default() }, misc: 0 }, Endian::Little).unwrap();
/// let p = parse_sample(&layout, Endian::Little, &bytes).unwrap().read.unwrap();
/// assert_eq!(p.time_enabled, Some(9));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedReadValues<'a> {
    /// `read_format::TOTAL_TIME_ENABLED`.
    pub time_enabled: Option<u64>,
    /// `read_format::TOTAL_TIME_RUNNING`.
    pub time_running: Option<u64>,
    /// The counters.
    pub counters: ParsedReadCounters<'a>,
}

/// Reads `struct read_format` laid out by `rf`.
pub(crate) fn parse_read<'a>(
    r: &mut Reader<'a>,
    rf: u64,
) -> Result<ParsedReadValues<'a>, ParseError> {
    let group = rf & read_format::GROUP != 0;
    let first = r.u64(if group { "read.nr" } else { "read.value" })?;
    let time_enabled = if rf & read_format::TOTAL_TIME_ENABLED != 0 {
        Some(r.u64("read.time_enabled")?)
    } else {
        None
    };
    let time_running = if rf & read_format::TOTAL_TIME_RUNNING != 0 {
        Some(r.u64("read.time_running")?)
    } else {
        None
    };
    let has_id = rf & read_format::ID != 0;
    let has_lost = rf & read_format::LOST != 0;
    if group && first == 0 {
        return Err(ParseError::EmptyReadGroup);
    }
    let counters = if group {
        let stride = 1u64
            .saturating_add(u64::from(has_id))
            .saturating_add(u64::from(has_lost));
        let words = r.u64s(first.saturating_mul(stride), "read.values")?;
        ParsedReadCounters::Group(ReadGroup {
            words,
            has_id,
            has_lost,
        })
    } else {
        let id = if has_id {
            Some(r.u64("read.id")?)
        } else {
            None
        };
        let lost = if has_lost {
            Some(r.u64("read.lost")?)
        } else {
            None
        };
        ParsedReadCounters::One(ReadValue {
            value: first,
            id,
            lost,
        })
    };
    Ok(ParsedReadValues {
        time_enabled,
        time_running,
        counters,
    })
}
