//! Reading a perf.data file or stream into a [`Trace`].
//!
//! linux-perf-data reads a file's feature sections and its event descriptions (names and
//! ids, from EVENT_DESC), in either byte order. The attrs are read from their raw bytes
//! (the attrs section, or a stream's HEADER_ATTR records) so that every field is kept, and
//! the records are walked here in stored order with perf-encode's framing rule:
//! linux-perf-data's record iterator delivers records sorted by time, without the
//! FINISHED_ROUND markers and with COMPRESSED records already expanded, which a converter
//! must not do behind the caller's back.

use crate::attr_bytes::attr_from_bytes;
use crate::error::DataError;
use crate::trace::{Event, Mode, RecordRef, Trace};
use linux_perf_data::{AttributeDescription, PerfFileReader};
use perf_abi::{feature, record_type};
use perf_writer_std::perf_encode::records::{
    header_type_and_size, payload_len, record_extent, RecordExtent,
};
use perf_writer_std::perf_encode::Endian;
use std::collections::{BTreeMap, HashMap};
use std::io::{Cursor, Read};
use std::ops::Range;
use std::path::Path;

/// The file header's size in file mode.
const FILE_HEADER_LEN: u64 = 104;
/// The stream header's size in pipe mode.
const PIPE_HEADER_LEN: u64 = 16;
/// EVENT_UPDATE's type for a name.
const EVENT_UPDATE_NAME: u64 = 2;

/// Reads `path` (`-` for stdin) whole.
///
/// # Errors
///
/// [`DataError::ReadInput`] when it cannot be read.
pub fn read_input(path: &Path) -> Result<Vec<u8>, DataError> {
    let read = if path == Path::new("-") {
        let mut v = Vec::new();
        std::io::stdin().lock().read_to_end(&mut v).map(|_| v)
    } else {
        std::fs::read(path)
    };
    read.map_err(|source| DataError::ReadInput {
        path: path.to_path_buf(),
        source,
    })
}

/// The byte order the first 8 bytes say, if they are perf's magic.
pub fn endian_of_magic(bytes: &[u8]) -> Option<Endian> {
    match bytes.get(..8)? {
        b"PERFILE2" => Some(Endian::Little),
        b"2ELIFREP" => Some(Endian::Big),
        _ => None,
    }
}

/// A `u64` at `pos` in `endian`, if the bytes are there.
pub fn u64_at(bytes: &[u8], pos: usize, endian: Endian) -> Option<u64> {
    let w: [u8; 8] = bytes.get(pos..pos.checked_add(8)?)?.try_into().ok()?;
    Some(endian.read_u64(w))
}

/// A `u32` at `pos` in `endian`, if the bytes are there.
pub fn u32_at(bytes: &[u8], pos: usize, endian: Endian) -> Option<u32> {
    let w: [u8; 4] = bytes.get(pos..pos.checked_add(4)?)?.try_into().ok()?;
    Some(endian.read_u32(w))
}

/// Takes `bytes` (read from `path`) apart.
///
/// # Errors
///
/// [`DataError::NotPerfData`] without perf's magic; [`DataError::BadInput`] for a file whose
/// header, attrs, feature sections or records cannot be read, naming what and where.
pub fn parse(path: &Path, bytes: Vec<u8>) -> Result<Trace, DataError> {
    let Some(endian) = endian_of_magic(&bytes) else {
        return Err(DataError::NotPerfData {
            path: path.to_path_buf(),
            magic: bytes.iter().take(8).copied().collect(),
        });
    };
    match u64_at(&bytes, 8, endian) {
        Some(FILE_HEADER_LEN) => parse_file(path, bytes, endian),
        Some(PIPE_HEADER_LEN) => parse_pipe(path, bytes, endian),
        Some(n) => Err(DataError::bad(
            path,
            format!("header size {n}: neither a file (104) nor a stream (16)"),
        )),
        None => Err(DataError::bad(path, "cut inside its header")),
    }
}

/// A `{offset, size}` section at `pos` of the file header, checked to lie in the file.
fn section(
    path: &Path,
    bytes: &[u8],
    pos: usize,
    endian: Endian,
    what: &str,
) -> Result<Range<usize>, DataError> {
    let (Some(offset), Some(size)) = (u64_at(bytes, pos, endian), u64_at(bytes, pos + 8, endian))
    else {
        return Err(DataError::bad(path, "cut inside its header"));
    };
    let end = offset.checked_add(size);
    match end {
        Some(end) if end <= bytes.len() as u64 => Ok(offset as usize..end as usize),
        _ => Err(DataError::bad(
            path,
            format!(
                "the {what} section ({size} bytes at {offset}) runs past the end of the file ({} bytes): cut short?",
                bytes.len()
            ),
        )),
    }
}

fn parse_file(path: &Path, bytes: Vec<u8>, endian: Endian) -> Result<Trace, DataError> {
    let attr_size = u64_at(&bytes, 16, endian).unwrap_or(0) as usize;
    let attrs = section(path, &bytes, 24, endian, "attrs")?;
    let data = section(path, &bytes, 40, endian, "data")?;
    // Unused by perf, but linux-perf-data sizes a list by it when it is not empty.
    let event_types = section(path, &bytes, 56, endian, "event_types")?;
    // An attr longer than the file cannot be in it (linux-perf-data adds 16 to it unchecked).
    if attr_size <= 16 || attr_size > bytes.len() {
        return Err(DataError::bad(
            path,
            format!("attr_size {attr_size} in the header"),
        ));
    }
    // Without EVENT_DESC, linux-perf-data sizes a list by each ids section of event_types
    // (an attr, then the section): one past the end of the file is refused here, not
    // allocated. (perf itself never reads event_types.)
    let has_event_desc =
        u64_at(&bytes, 72, endian).is_some_and(|w| w >> feature::EVENT_DESC & 1 != 0);
    let event_types = if has_event_desc { 0..0 } else { event_types };
    for entry in bytes[event_types].chunks(attr_size.saturating_add(16)) {
        let ids_off = u64_at(entry, attr_size, endian).unwrap_or(0);
        let ids_len = u64_at(entry, attr_size.saturating_add(8), endian).unwrap_or(0);
        if ids_off
            .checked_add(ids_len)
            .is_none_or(|end| end > bytes.len() as u64)
        {
            return Err(DataError::bad(
                path,
                "an event_types entry's ids lie past the end of the file",
            ));
        }
    }
    check_feature_sections(path, &bytes, data.end, endian)?;

    // The attrs section: per event, the attr and an {offset, size} section of its ids.
    let mut raw_attrs: Vec<(&[u8], Vec<u64>)> = Vec::new();
    for entry in bytes[attrs].chunks(attr_size) {
        if entry.len() < attr_size {
            return Err(DataError::bad(
                path,
                "the attrs section ends inside an attr",
            ));
        }
        let attr = &entry[..attr_size - 16];
        let at = attr_size - 16;
        let ids_off = u64_at(entry, at, endian).unwrap_or(0) as usize;
        let ids_len = u64_at(entry, at + 8, endian).unwrap_or(0) as usize;
        let ids = bytes
            .get(ids_off..ids_off.saturating_add(ids_len))
            .ok_or_else(|| DataError::bad(path, "an attr's ids lie past the end of the file"))?
            .chunks_exact(8)
            .map(|w| endian.read_u64(w.try_into().unwrap_or_default()))
            .collect();
        raw_attrs.push((attr, ids));
    }
    // After the ids sections are checked: for simpleperf's files linux-perf-data reads them.
    let reader = PerfFileReader::parse_file(Cursor::new(&bytes[..]))
        .map_err(|e| DataError::bad(path, format!("linux-perf-data: {e}")))?;
    let perf_file = reader.perf_file;
    let events = events_of(path, endian, perf_file.event_attributes(), &raw_attrs)?;

    let mut features = BTreeMap::new();
    for f in perf_file.features().iter() {
        if let (Ok(bit), Some(payload)) = (u8::try_from(f.0), perf_file.feature_section_data(f)) {
            features.insert(bit, payload.to_vec());
        }
    }
    let (records, cut_tail) = walk(path, &bytes, data.clone(), endian)?;
    if cut_tail != 0 {
        return Err(DataError::bad(
            path,
            format!(
                "the data section ends inside a record (its last {cut_tail} bytes at {})",
                data.end - cut_tail
            ),
        ));
    }
    Ok(Trace {
        path: path.to_path_buf(),
        bytes,
        endian,
        mode: Mode::File,
        events,
        features,
        records,
        cut_tail,
    })
}

/// The header's feature bitmap (256 bits at byte 72).
const FEATURE_BITMAP_AT: usize = 72;

/// Checks what linux-perf-data trusts when it allocates: every feature section the
/// bitmap announces lies in the file, and EVENT_DESC's event count fits its payload.
fn check_feature_sections(
    path: &Path,
    bytes: &[u8],
    table_at: usize,
    endian: Endian,
) -> Result<(), DataError> {
    let mut pos = table_at;
    for word in 0..4 {
        let bits = u64_at(bytes, FEATURE_BITMAP_AT + 8 * word, endian).unwrap_or(0);
        for bit in (0..64).filter(|b| bits & (1u64 << b) != 0) {
            let feature = (word * 64 + bit) as u8;
            let section = section(path, bytes, pos, endian, "feature")?;
            if feature == feature::EVENT_DESC {
                check_event_desc(path, &bytes[section], endian)?;
            }
            pos += 16;
        }
    }
    Ok(())
}

/// The sizes of `perf_event_attr`'s versions 0 to 6 (version 7 and later: 128 bytes and up).
const ATTR_VERSION_SIZES: [usize; 7] = [64, 72, 80, 96, 104, 112, 120];

/// EVENT_DESC's events (`nr` of them, each an attr of `attr_size` bytes, `u32 nr_ids`, a
/// header string and `nr_ids` ids) lie in its payload, so that a reader sizing its lists by
/// `nr` and `nr_ids` allocates no more than the payload justifies.
fn check_event_desc(path: &Path, payload: &[u8], endian: Endian) -> Result<(), DataError> {
    let bad = || DataError::bad(path, "EVENT_DESC: its events run past its payload");
    let nr = u32_at(payload, 0, endian).ok_or_else(bad)?;
    let attr_size = u32_at(payload, 4, endian).ok_or_else(bad)? as usize;
    let mut pos = 8usize;
    for _ in 0..nr {
        // linux-perf-data reads an attr by the versions its own size reaches, then skips
        // to `attr_size`: a size between two versions would shift every later field.
        let own_size = u32_at(payload, pos + 4, endian).ok_or_else(bad)? as usize;
        if own_size > attr_size || !(ATTR_VERSION_SIZES.contains(&own_size) || own_size >= 128) {
            return Err(DataError::bad(
                path,
                format!("EVENT_DESC: an attr of size {own_size} (attr_size {attr_size})"),
            ));
        }
        pos = pos.checked_add(attr_size).ok_or_else(bad)?;
        let nr_ids = u32_at(payload, pos, endian).ok_or_else(bad)? as usize;
        let name_len = u32_at(payload, pos + 4, endian).ok_or_else(bad)? as usize;
        pos = pos
            .checked_add(8 + name_len)
            .and_then(|p| p.checked_add(nr_ids.checked_mul(8)?))
            .filter(|&p| p <= payload.len())
            .ok_or_else(bad)?;
    }
    Ok(())
}

/// The events: names and ids as linux-perf-data read them (EVENT_DESC), each with the raw
/// attr of the same ids (or at the same place, for a file whose descriptions have none).
fn events_of(
    path: &Path,
    endian: Endian,
    described: &[AttributeDescription],
    raw_attrs: &[(&[u8], Vec<u64>)],
) -> Result<Vec<Event>, DataError> {
    described
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let raw = raw_attrs
                .iter()
                .find(|(_, ids)| !ids.is_empty() && ids.as_slice() == d.ids())
                .or_else(|| raw_attrs.get(i))
                .ok_or_else(|| DataError::bad(path, format!("event {i} has no attr")))?;
            let attr = attr_from_bytes(raw.0, endian)
                .map_err(|e| DataError::bad(path, format!("event {i}: {e}")))?;
            Ok(Event {
                attr,
                name: d.name().map_or_else(|| format!("event{i}"), str::to_string),
                ids: d.ids().to_vec(),
            })
        })
        .collect()
}

/// Walks the records in `range` of `bytes`: every whole record, and how many bytes at the
/// end make no whole record.
///
/// # Errors
///
/// A record whose size does not fit its type (the bytes after it cannot be framed).
pub fn walk(
    path: &Path,
    bytes: &[u8],
    range: Range<usize>,
    endian: Endian,
) -> Result<(Vec<RecordRef>, usize), DataError> {
    let mut records = Vec::new();
    let mut pos = range.start;
    while pos < range.end {
        match record_at(bytes, pos, range.end, endian) {
            Ok(Some(r)) => {
                pos = r.range.end;
                records.push(r);
            }
            Ok(None) => return Ok((records, range.end - pos)),
            Err(what) => return Err(DataError::bad(path, what)),
        }
    }
    Ok((records, 0))
}

/// The whole record at `pos` (ending by `end`), `None` when it is cut by `end`.
///
/// # Errors
///
/// A string naming the record when its size does not fit its type.
pub fn record_at(
    bytes: &[u8],
    pos: usize,
    end: usize,
    endian: Endian,
) -> Result<Option<RecordRef>, String> {
    let Some(head) = bytes.get(pos..end).and_then(|b| b.first_chunk::<8>()) else {
        return Ok(None);
    };
    let (type_, size) = header_type_and_size(endian, head);
    let extent = record_extent(type_, size).map_err(|fault| {
        format!("record at byte {pos} (type {type_}) has size {size}, which its type cannot have ({fault:?})")
    })?;
    let len = match extent {
        RecordExtent::Sized => u64::from(size),
        RecordExtent::WithPayload(how) => {
            let Some(word) = bytes.get(pos + 8..end).and_then(|b| b.first_chunk::<8>()) else {
                return Ok(None);
            };
            u64::from(size).saturating_add(payload_len(how, endian, *word))
        }
    };
    match (pos as u64).checked_add(len) {
        Some(stop) if stop <= end as u64 => Ok(Some(RecordRef {
            type_,
            range: pos..stop as usize,
        })),
        _ => Ok(None),
    }
}

fn parse_pipe(path: &Path, bytes: Vec<u8>, endian: Endian) -> Result<Trace, DataError> {
    let (records, cut_tail) = walk(path, &bytes, PIPE_HEADER_LEN as usize..bytes.len(), endian)?;
    let mut raw_attrs: Vec<(&[u8], Vec<u64>)> = Vec::new();
    let mut features = BTreeMap::new();
    let mut update_names: HashMap<u64, String> = HashMap::new();
    for r in &records {
        let b = &bytes[r.range.clone()];
        match r.type_ {
            record_type::HEADER_ATTR => {
                let attr_len = u32_at(b, 8 + 4, endian).unwrap_or(0) as usize;
                let attr_len = if attr_len == 0 { 64 } else { attr_len };
                let Some(attr) = b.get(8..8 + attr_len) else {
                    return Err(DataError::bad(
                        path,
                        format!(
                            "HEADER_ATTR at byte {} is shorter than its attr",
                            r.range.start
                        ),
                    ));
                };
                let ids = b[8 + attr_len..]
                    .chunks_exact(8)
                    .map(|w| endian.read_u64(w.try_into().unwrap_or_default()))
                    .collect();
                raw_attrs.push((attr, ids));
            }
            record_type::HEADER_FEATURE => {
                let id = u64_at(b, 8, endian).unwrap_or(u64::MAX);
                let payload = b.get(16..).unwrap_or_default();
                let end_marker = payload.is_empty() && id >= u64::from(feature::LAST_FEATURE);
                match u8::try_from(id) {
                    Ok(bit) if !end_marker => {
                        features.insert(bit, payload.to_vec());
                    }
                    _ => {}
                }
            }
            record_type::HEADER_TRACING_DATA => {
                let size = u32_at(b, 8, endian).unwrap_or(0) as usize;
                let head =
                    usize::from(header_type_and_size(endian, b.first_chunk().unwrap_or(&[0; 8])).1);
                if let Some(blob) = b.get(head..head + size) {
                    features.insert(feature::TRACING_DATA, blob.to_vec());
                }
            }
            record_type::EVENT_UPDATE if u64_at(b, 8, endian) == Some(EVENT_UPDATE_NAME) => {
                if let Some(id) = u64_at(b, 16, endian) {
                    let name = b[24.min(b.len())..]
                        .split(|&c| c == 0)
                        .next()
                        .unwrap_or_default();
                    update_names.insert(id, String::from_utf8_lossy(name).into_owned());
                }
            }
            _ => {}
        }
    }
    let events = match features.get(&feature::EVENT_DESC) {
        Some(desc) => {
            check_event_desc(path, desc, endian)?;
            let described = match endian {
                Endian::Little => AttributeDescription::parse_event_desc_section::<
                    _,
                    byteorder::LittleEndian,
                >(Cursor::new(&desc[..])),
                Endian::Big => AttributeDescription::parse_event_desc_section::<
                    _,
                    byteorder::BigEndian,
                >(Cursor::new(&desc[..])),
            }
            .map_err(|e| DataError::bad(path, format!("EVENT_DESC: linux-perf-data: {e}")))?;
            events_of(path, endian, &described, &raw_attrs)?
        }
        None => raw_attrs
            .iter()
            .enumerate()
            .map(|(i, (raw, ids))| {
                let attr = attr_from_bytes(raw, endian)
                    .map_err(|e| DataError::bad(path, format!("HEADER_ATTR {i}: {e}")))?;
                let name = ids
                    .iter()
                    .find_map(|id| update_names.get(id).cloned())
                    .unwrap_or_else(|| default_name(&attr, i));
                Ok(Event {
                    attr,
                    name,
                    ids: ids.clone(),
                })
            })
            .collect::<Result<_, DataError>>()?,
    };
    if events.is_empty() {
        return Err(DataError::bad(
            path,
            "a stream without HEADER_ATTR records (no events)",
        ));
    }
    Ok(Trace {
        path: path.to_path_buf(),
        bytes,
        endian,
        mode: Mode::Pipe,
        events,
        features,
        records,
        cut_tail,
    })
}

/// The name perf 6.1 shows for event `i` of a stream that names it nowhere (an event
/// without ids gets no EVENT_UPDATE): a hardware or software event's generic name
/// (`evsel__name`, without modifiers), else `event{i}`.
fn default_name(attr: &tracepoint_decode::PerfEventAttr, i: usize) -> String {
    const HARDWARE: [&str; 10] = [
        "cycles",
        "instructions",
        "cache-references",
        "cache-misses",
        "branches",
        "branch-misses",
        "bus-cycles",
        "stalled-cycles-frontend",
        "stalled-cycles-backend",
        "ref-cycles",
    ];
    const SOFTWARE: [&str; 10] = [
        "cpu-clock",
        "task-clock",
        "page-faults",
        "context-switches",
        "cpu-migrations",
        "minor-faults",
        "major-faults",
        "alignment-faults",
        "emulation-faults",
        "dummy",
    ];
    let names: &[&str] = match attr.attr_type.0 {
        perf_abi::attr::TYPE_HARDWARE => &HARDWARE,
        perf_abi::attr::TYPE_SOFTWARE => &SOFTWARE,
        _ => &[],
    };
    usize::try_from(attr.config)
        .ok()
        .and_then(|c| names.get(c))
        .map_or_else(|| format!("event{i}"), |n| (*n).to_string())
}
