//! [`RecordSwapper`]: one record in the other byte order, laid out by the file's events.

use crate::records::SampleLayout;
use crate::swap::cpu_map::swap_cpu_map;
use crate::swap::cursor::Cursor;
use crate::swap::error::SwapError;
use crate::swap::parts::swap_parts;
use crate::swap::sample::swap_sample;
use crate::swap::trailer::swap_trailer;
use crate::Endian;
use perf_abi::field_widths::{self, RecordParts, EVENT_UPDATE_CPUS, EVENT_UPDATE_SCALE};
use perf_abi::record_type;

/// One event of the file: the layout its attr gives its records and the ids they carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwapEvent<'a> {
    /// Its records' layout ([`SampleLayout::from_attr`]).
    pub layout: SampleLayout,
    /// Its ids.
    pub ids: &'a [u64],
}

/// Writes records of byte order `from` in the other one, each laid out by its event (found
/// by its id as perf finds it: the first event's id position, id 0 or a file of one event
/// meaning the first event).
///
/// ```
/// use perf_abi::sample_type::{IP, TID};
/// use perf_encode::records::SampleLayout;
/// use perf_encode::swap::{RecordSwapper, SwapEvent};
/// use perf_encode::Endian;
/// let layout = SampleLayout { sample_type: IP | TID, ..Default::default() };
/// let events = [SwapEvent { layout, ids: &[] }];
/// let mut r = vec![9, 0, 0, 0, 2, 0, 24, 0, 1, 2, 3, 4, 5, 6, 7, 8, 7, 0, 0, 0, 8, 0, 0, 0];
/// RecordSwapper::new(&events, Endian::Little).swap_record(&mut r)?;
/// assert_eq!(r, [0, 0, 0, 9, 0, 2, 0, 24, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0, 7, 0, 0, 0, 8]);
/// # Ok::<(), perf_encode::swap::SwapError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct RecordSwapper<'a> {
    events: &'a [SwapEvent<'a>],
    from: Endian,
}

impl<'a> RecordSwapper<'a> {
    /// A swapper of records in byte order `from`, of a file with `events`.
    pub fn new(events: &'a [SwapEvent<'a>], from: Endian) -> Self {
        RecordSwapper { events, from }
    }

    /// Rewrites `record` (one record: its `header.size` bytes, and for AUXTRACE the trace
    /// data after them, which is kept as stored) in the other byte order, in place.
    ///
    /// # Errors
    ///
    /// [`SwapError`] naming the record type and field: bytes that end inside a field or
    /// follow the last one, a type perf 6.1 does not know, a record that holds others
    /// (COMPRESSED) or whose content is a stream header's, an id of no event. `record` is
    /// then partly swapped.
    pub fn swap_record(&self, record: &mut [u8]) -> Result<(), SwapError> {
        let from = self.from;
        let len = record.len();
        let head = |field| SwapError::Truncated {
            what: "record",
            field,
            offset: 0,
            len,
        };
        let h: [u8; 8] = record
            .get(..8)
            .and_then(|b| b.try_into().ok())
            .ok_or(head("header"))?;
        let type_ = from.read_u32([h[0], h[1], h[2], h[3]]);
        let misc = from.read_u16([h[4], h[5]]);
        let size = usize::from(from.read_u16([h[6], h[7]]));
        let parts = field_widths::record(type_).ok_or(SwapError::UnknownRecord { type_ })?;
        let info = record_type::info(type_).ok_or(SwapError::UnknownRecord { type_ })?;
        let what = info.name;
        let rec = record
            .get_mut(..size)
            .filter(|r| r.len() >= 8)
            .ok_or(head("header.size"))?;
        let layout = if type_ == record_type::SAMPLE || info.sample_id {
            self.layout_of(rec, type_, what)?
        } else {
            None
        };
        match parts {
            RecordParts::Sample => {
                let layout = layout.ok_or(SwapError::NotSwappable {
                    what,
                    why: "no event describes it",
                })?;
                swap_sample(rec, &layout, from)?;
            }
            RecordParts::Container => {
                return Err(SwapError::NotSwappable {
                    what,
                    why: "it holds other records or a stream header's content",
                })
            }
            _ => {
                let trailer = match (info.sample_id, layout) {
                    (true, Some(l)) => l.sample_id_len(),
                    _ => 0,
                };
                let body_end =
                    size.checked_sub(trailer)
                        .filter(|&e| e >= 8)
                        .ok_or(SwapError::Truncated {
                            what,
                            field: "sample_id",
                            offset: 8,
                            len: size,
                        })?;
                let (front, tail) = rec.split_at_mut(body_end);
                if let Some(l) = layout.filter(|_| trailer != 0) {
                    swap_trailer(&mut Cursor::new(tail, from, what, body_end), &l)?;
                }
                let body = front.get_mut(8..).unwrap_or_default();
                swap_body(&mut Cursor::new(body, from, what, 8), parts, type_, misc)?;
            }
        }
        // The header last: the walks above read it in the input's order.
        let mut h = Cursor::new(rec.get_mut(..8).unwrap_or_default(), from, what, 0);
        h.number(4, "header.type")?;
        h.number(2, "header.misc")?;
        h.number(2, "header.size")?;
        Ok(())
    }

    /// The layout of the event `record` belongs to, as perf picks it
    /// (`evlist__event2evsel`): `None` without events.
    fn layout_of(
        &self,
        record: &[u8],
        type_: u32,
        what: &'static str,
    ) -> Result<Option<SampleLayout>, SwapError> {
        let Some(first) = self.events.first() else {
            return Ok(None);
        };
        let sample = type_ == record_type::SAMPLE;
        if self.events.len() == 1 || (!sample && !first.layout.sample_id_all) {
            return Ok(Some(first.layout));
        }
        let at = match sample {
            true => first.layout.sample_id_offset(),
            false => first
                .layout
                .trailer_id_offset_from_end()
                .and_then(|back| record.len().checked_sub(back)),
        };
        let Some(at) = at else {
            return Ok(Some(first.layout));
        };
        let id = record
            .get(at..)
            .and_then(|b| b.first_chunk::<8>())
            .map(|w| self.from.read_u64(*w))
            .ok_or(SwapError::Truncated {
                what,
                field: "id",
                offset: at,
                len: record.len(),
            })?;
        if id == 0 {
            return Ok(Some(first.layout));
        }
        self.events
            .iter()
            .find(|e| e.ids.contains(&id))
            .map(|e| Some(e.layout))
            .ok_or(SwapError::UnknownEvent { what, id })
    }
}

/// Swaps a body (the cursor holds exactly its bytes) laid out by `parts`.
fn swap_body(
    c: &mut Cursor<'_>,
    parts: RecordParts,
    type_: u32,
    misc: u16,
) -> Result<(), SwapError> {
    match parts {
        RecordParts::Fields(p) => swap_parts(c, p, field_widths::may_end_early(type_))?,
        RecordParts::ByMisc(bit, set, clear) => {
            swap_parts(c, if misc & bit != 0 { set } else { clear }, false)?;
        }
        RecordParts::CpuMap => swap_cpu_map(c)?,
        RecordParts::EventUpdate => {
            let kind = c.number(8, "type")?;
            c.number(8, "id")?;
            match kind {
                EVENT_UPDATE_SCALE => {
                    // perf 6.1 sizes the record for a cpu map: zero padding follows.
                    c.number(8, "scale")?;
                    c.keep(c.rest() as u64, "padding")?;
                }
                EVENT_UPDATE_CPUS => swap_cpu_map(c)?,
                _ => c.keep(c.rest() as u64, "name")?,
            }
        }
        RecordParts::Sample | RecordParts::Container => {}
    }
    c.end()
}
