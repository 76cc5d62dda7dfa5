//! Real recordings made by `perf record` 6.1 (`tests/data/perf-6.1/*.data`) and a
//! plain-bytes parser that returns what a perf.data file holds exactly as stored.
//!
//! [`FixtureContent::from_bytes`] works on any perf.data bytes (file or pipe mode, either
//! byte order), so tests can take a recording apart, write it again with the workspace's
//! writer, and compare both files with [`FixtureContent`] and `perf script`.
//!
//! File mode: the attrs come from the attrs section (raw `perf_event_attr` bytes as stored,
//! plus the ids their `{offset, size}` section points at), names from the EVENT_DESC
//! feature, every feature section's raw bytes from the feature table at
//! `data.offset + data.size`, and the data section is walked record by record IN FILE ORDER
//! (no sorting; FINISHED_ROUND records included). Pipe mode: every record of the stream in
//! order; HEADER_ATTR, HEADER_FEATURE and HEADER_TRACING_DATA records also fill
//! [`FixtureContent::attrs`], [`FixtureContent::features`] and
//! [`FixtureContent::tracing_data`].
//!
//! Payloads outside `header.size` are kept in [`RawRecord::extra`]: HEADER_TRACING_DATA
//! (66) is followed by its `size` bytes of tracing data padded to 8, AUXTRACE (71) by its
//! `size` bytes of aux data.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::Endian;

/// The directory holding the perf 6.1 recordings: `tests/data/perf-6.1` in this repository
/// (its README says how each was made). Tests read nothing outside the repository.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join("perf-6.1")
}

/// Path of fixture `name` (e.g. `"sched_switch.data"`); not checked for existence.
pub fn fixture_path(name: &str) -> PathBuf {
    fixtures_dir().join(name)
}

/// All `*.data` fixtures, sorted by name (empty if the directory is missing).
pub fn list_fixtures() -> Vec<PathBuf> {
    let mut list: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "data") && p.is_file())
                .collect()
        })
        .unwrap_or_default();
    list.sort();
    list
}

/// The bytes of fixture `name`; panics with the path when it cannot be read.
pub fn read_fixture(name: &str) -> Vec<u8> {
    let path = fixture_path(name);
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read fixture {} ({e}): the recordings live in the repository",
            path.display()
        )
    })
}

/// File mode (seekable, header + sections) or pipe mode (16-byte header + records).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataMode {
    /// 104-byte `perf_file_header`.
    File,
    /// 16-byte `perf_pipe_file_header`.
    Pipe,
}

/// A `{u64 offset, u64 size}` section pointer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Section {
    /// Absolute file offset.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
}

/// The file-mode `perf_file_header`, field by field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileHeader {
    /// `size` field (104).
    pub size: u64,
    /// `attr_size` field (`attr.size + 16`).
    pub attr_size: u64,
    /// Attrs section.
    pub attrs: Section,
    /// Data section.
    pub data: Section,
    /// event_types section (unused by perf: zeros).
    pub event_types: Section,
    /// The 256-bit feature bitmap as four u64 words.
    pub features: [u64; 4],
}

impl FileHeader {
    /// Feature bits set in the bitmap, ascending.
    pub fn feature_bits(&self) -> Vec<u32> {
        (0..256u32)
            .filter(|b| self.features[(b / 64) as usize] & (1u64 << (b % 64)) != 0)
            .collect()
    }
}

/// One event's attr as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawAttr {
    /// The `perf_event_attr` bytes as stored (file mode: `attr_size - 16` bytes; pipe mode:
    /// `attr.size` bytes from the HEADER_ATTR record), in the file's byte order.
    pub bytes: Vec<u8>,
    /// The event's sample ids.
    pub ids: Vec<u64>,
    /// Name from EVENT_DESC (matched by first id, else by position), if any.
    pub name: Option<String>,
    /// `type`.
    pub attr_type: u32,
    /// `size` (as written in the attr).
    pub attr_size: u32,
    /// `config`.
    pub config: u64,
    /// `sample_period` / `sample_freq` union.
    pub sample_period_or_freq: u64,
    /// `sample_type`.
    pub sample_type: u64,
    /// `read_format`.
    pub read_format: u64,
    /// The flags word (disabled, inherit, ..., sample_id_all = bit 18, ...).
    pub flags: u64,
}

impl RawAttr {
    /// Decodes the leading fields of attr `bytes` (needs at least 48 bytes).
    pub fn decode(bytes: &[u8], ids: Vec<u64>, endian: Endian) -> Result<RawAttr, String> {
        if bytes.len() < 48 {
            return Err(format!("attr of {} bytes is too short", bytes.len()));
        }
        let u64_at = |p| endian.u64_at(bytes, p).unwrap_or(0);
        Ok(RawAttr {
            bytes: bytes.to_vec(),
            ids,
            name: None,
            attr_type: endian.u32_at(bytes, 0).unwrap_or(0),
            attr_size: endian.u32_at(bytes, 4).unwrap_or(0),
            config: u64_at(8),
            sample_period_or_freq: u64_at(16),
            sample_type: u64_at(24),
            read_format: u64_at(32),
            flags: u64_at(40),
        })
    }

    /// `attr.sample_id_all` (flags bit 18).
    pub fn sample_id_all(&self) -> bool {
        self.flags & (1 << 18) != 0
    }

    /// `attr.freq` (flags bit 10).
    pub fn freq(&self) -> bool {
        self.flags & (1 << 10) != 0
    }
}

/// One EVENT_DESC entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventDescEntry {
    /// The attr bytes (`attr_size` of the section).
    pub attr: Vec<u8>,
    /// Event name.
    pub name: String,
    /// Sample ids.
    pub ids: Vec<u64>,
}

/// Reads a `perf_header_string` at `pos`: `u32 len` then `len` bytes, NUL padded.
/// Returns the string (up to the first NUL, lossy UTF-8) and the position after it.
pub fn read_header_string(bytes: &[u8], pos: usize, endian: Endian) -> Option<(String, usize)> {
    let len = endian.u32_at(bytes, pos)? as usize;
    let start = pos + 4;
    let raw = bytes.get(start..start.checked_add(len)?)?;
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    Some((
        String::from_utf8_lossy(&raw[..end]).into_owned(),
        start + len,
    ))
}

/// Parses an EVENT_DESC feature payload: `u32 nr, u32 attr_size`, then per event
/// `{attr, u32 nr_ids, string name, u64 ids[nr_ids]}`.
pub fn parse_event_desc(bytes: &[u8], endian: Endian) -> Result<Vec<EventDescEntry>, String> {
    let err = |what: &str| format!("EVENT_DESC: truncated at {what}");
    let nr = endian.u32_at(bytes, 0).ok_or_else(|| err("nr"))? as usize;
    let attr_size = endian.u32_at(bytes, 4).ok_or_else(|| err("attr_size"))? as usize;
    let mut pos = 8usize;
    let mut out = Vec::new();
    for _ in 0..nr {
        let attr = bytes
            .get(pos..pos + attr_size)
            .ok_or_else(|| err("attr"))?
            .to_vec();
        pos += attr_size;
        let nr_ids = endian.u32_at(bytes, pos).ok_or_else(|| err("nr_ids"))? as usize;
        pos += 4;
        let (name, next) = read_header_string(bytes, pos, endian).ok_or_else(|| err("name"))?;
        pos = next;
        let mut ids = Vec::with_capacity(nr_ids);
        for _ in 0..nr_ids {
            ids.push(endian.u64_at(bytes, pos).ok_or_else(|| err("ids"))?);
            pos += 8;
        }
        out.push(EventDescEntry { attr, name, ids });
    }
    Ok(out)
}

/// One record exactly as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawRecord {
    /// Absolute offset of the record in the file / stream.
    pub offset: u64,
    /// `header.type`.
    pub record_type: u32,
    /// `header.misc`.
    pub misc: u16,
    /// `header.size`.
    pub size: u16,
    /// The `header.size` bytes of the record, header included.
    pub bytes: Vec<u8>,
    /// Bytes that belong to the record but follow outside `header.size`
    /// (HEADER_TRACING_DATA payload with its padding, AUXTRACE data); usually empty.
    pub extra: Vec<u8>,
}

impl RawRecord {
    /// The record body after the 8-byte header (within `header.size`).
    pub fn payload(&self) -> &[u8] {
        &self.bytes[8.min(self.bytes.len())..]
    }

    /// `bytes` followed by `extra`: what a writer has to emit for this record.
    pub fn full_bytes(&self) -> Vec<u8> {
        let mut v = self.bytes.clone();
        v.extend_from_slice(&self.extra);
        v
    }

    /// perf's name for the record type (see [`crate::record_type_name`]).
    pub fn type_name(&self) -> &'static str {
        crate::record_type_name(self.record_type)
    }

    /// Decodes user records the harness knows about.
    pub fn body(&self, endian: Endian) -> RecordBody<'_> {
        let p = self.payload();
        match self.record_type {
            64 => {
                let size = endian.u32_at(p, 4).unwrap_or(0) as usize;
                let size = if size == 0 { 64 } else { size };
                let (attr, ids) = p.split_at(size.min(p.len()));
                RecordBody::HeaderAttr {
                    attr,
                    ids: ids
                        .chunks_exact(8)
                        .map(|c| endian.u64_at(c, 0).unwrap_or(0))
                        .collect(),
                }
            }
            80 => RecordBody::HeaderFeature {
                feat_id: endian.u64_at(p, 0).unwrap_or(0),
                payload: p.get(8..).unwrap_or(&[]),
            },
            66 => RecordBody::TracingData {
                size: endian.u32_at(p, 0).unwrap_or(0),
                payload: &self.extra,
            },
            71 => RecordBody::Auxtrace { data: &self.extra },
            _ => RecordBody::Other,
        }
    }
}

/// A decoded view of a [`RawRecord`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordBody<'a> {
    /// HEADER_ATTR (64): the attr (`attr.size` bytes) and the ids after it.
    HeaderAttr {
        /// Attr bytes.
        attr: &'a [u8],
        /// Sample ids.
        ids: Vec<u64>,
    },
    /// HEADER_FEATURE (80): feature id and payload.
    HeaderFeature {
        /// Feature bit (HEADER_LAST_FEATURE = end marker).
        feat_id: u64,
        /// Payload (empty for the end marker).
        payload: &'a [u8],
    },
    /// HEADER_TRACING_DATA (66): the declared size and the payload that followed the
    /// record (padded to 8).
    TracingData {
        /// `size` field.
        size: u32,
        /// The bytes after the record (`size` rounded up to 8).
        payload: &'a [u8],
    },
    /// AUXTRACE (71) and its trailing aux data.
    Auxtrace {
        /// The aux data.
        data: &'a [u8],
    },
    /// Anything else.
    Other,
}

/// Walks records in `bytes[start..end]` in stored order. HEADER_TRACING_DATA and AUXTRACE
/// payloads outside `header.size` go to [`RawRecord::extra`]. Errors on a record smaller
/// than 8 bytes or one that runs past `end`.
pub fn walk_records(
    bytes: &[u8],
    start: usize,
    end: usize,
    endian: Endian,
) -> Result<Vec<RawRecord>, String> {
    let mut out = Vec::new();
    let mut pos = start;
    if end > bytes.len() {
        return Err(format!(
            "data ends at {end} but the file has only {} bytes",
            bytes.len()
        ));
    }
    while pos < end {
        if end - pos < 8 {
            return Err(format!(
                "{} stray bytes at offset {pos}: not a record header",
                end - pos
            ));
        }
        let record_type = endian.u32_at(bytes, pos).unwrap();
        let misc = endian.u16_at(bytes, pos + 4).unwrap();
        let size = endian.u16_at(bytes, pos + 6).unwrap();
        if (size as usize) < 8 {
            return Err(format!(
                "record at offset {pos} (type {record_type}) has size {size} < 8"
            ));
        }
        let rec_end = pos + size as usize;
        if rec_end > end {
            return Err(format!(
                "record at offset {pos} (type {record_type}, size {size}) runs past the data end {end}"
            ));
        }
        let extra_len = match record_type {
            66 => {
                let sz = endian.u32_at(bytes, pos + 8).ok_or_else(|| {
                    format!("HEADER_TRACING_DATA at {pos} too short for its size field")
                })? as usize;
                sz.div_ceil(8) * 8
            }
            71 => endian
                .u64_at(bytes, pos + 8)
                .ok_or_else(|| format!("AUXTRACE at {pos} too short for its size field"))?
                as usize,
            _ => 0,
        };
        let extra_end = rec_end
            .checked_add(extra_len)
            .filter(|&e| e <= end)
            .ok_or_else(|| {
                format!(
                    "record at offset {pos} (type {record_type}) announces {extra_len} trailing bytes past the data end {end}"
                )
            })?;
        out.push(RawRecord {
            offset: pos as u64,
            record_type,
            misc,
            size,
            bytes: bytes[pos..rec_end].to_vec(),
            extra: bytes[rec_end..extra_end].to_vec(),
        });
        pos = extra_end;
    }
    Ok(out)
}

/// Everything a perf.data file holds, as stored.
#[derive(Clone, Debug)]
pub struct FixtureContent {
    /// File or pipe mode.
    pub mode: DataMode,
    /// Byte order.
    pub endian: Endian,
    /// The file header (file mode only).
    pub header: Option<FileHeader>,
    /// Attrs in stored order (file: attrs section; pipe: HEADER_ATTR records), with ids
    /// and EVENT_DESC names.
    pub attrs: Vec<RawAttr>,
    /// Feature bit → raw payload (file: feature sections; pipe: HEADER_FEATURE payloads,
    /// the end marker excluded).
    pub features: BTreeMap<u32, Vec<u8>>,
    /// EVENT_DESC entries, if the feature is present and parses.
    pub event_desc: Vec<EventDescEntry>,
    /// Pipe mode: the HEADER_TRACING_DATA payload (unpadded, `size` bytes).
    /// File mode: the TRACING_DATA feature payload. `None` if absent.
    pub tracing_data: Option<Vec<u8>>,
    /// Pipe mode: feat_id of the HEADER_FEATURE end marker (no payload), if seen.
    pub pipe_feature_end_marker: Option<u64>,
    /// Records in stored order (file: data section; pipe: the whole stream after the
    /// 16-byte header, HEADER_ATTR/FEATURE/TRACING_DATA included).
    pub records: Vec<RawRecord>,
}

impl FixtureContent {
    /// Loads fixture `name` (panics if unreadable or unparsable).
    pub fn load(name: &str) -> FixtureContent {
        let bytes = read_fixture(name);
        FixtureContent::from_bytes(&bytes)
            .unwrap_or_else(|e| panic!("cannot parse fixture {name}: {e}"))
    }

    /// Reads and parses the file at `path`.
    pub fn from_path(path: impl AsRef<Path>) -> Result<FixtureContent, String> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        FixtureContent::from_bytes(&bytes)
    }

    /// Parses perf.data bytes (file or pipe mode, detected from the header size field).
    pub fn from_bytes(bytes: &[u8]) -> Result<FixtureContent, String> {
        let endian = Endian::from_magic(bytes)
            .ok_or_else(|| "no PERFILE2 magic: not a perf.data file".to_string())?;
        let header_size = endian
            .u64_at(bytes, 8)
            .ok_or_else(|| "file shorter than 16 bytes".to_string())?;
        match header_size {
            16 => Self::parse_pipe(bytes, endian),
            104 => Self::parse_file(bytes, endian),
            other => Err(format!("header size {other} is neither 104 nor 16")),
        }
    }

    fn parse_file(bytes: &[u8], endian: Endian) -> Result<FixtureContent, String> {
        if bytes.len() < 104 {
            return Err(format!("file of {} bytes has no full header", bytes.len()));
        }
        let u = |p| endian.u64_at(bytes, p).unwrap();
        let sec = |p| Section {
            offset: u(p),
            size: u(p + 8),
        };
        let header = FileHeader {
            size: u(8),
            attr_size: u(16),
            attrs: sec(24),
            data: sec(40),
            event_types: sec(56),
            features: [u(72), u(80), u(88), u(96)],
        };
        let slice = |s: Section, what: &str| -> Result<&[u8], String> {
            let start = usize::try_from(s.offset).map_err(|_| format!("{what} offset too big"))?;
            let len = usize::try_from(s.size).map_err(|_| format!("{what} size too big"))?;
            start
                .checked_add(len)
                .and_then(|end| bytes.get(start..end))
                .ok_or_else(|| {
                    format!(
                        "{what} section {}+{} is outside the file ({} bytes)",
                        s.offset,
                        s.size,
                        bytes.len()
                    )
                })
        };

        // Attrs section: attr_size bytes each = attr + {offset,size} of its ids.
        let mut attrs = Vec::new();
        let attr_section = slice(header.attrs, "attrs")?;
        if header.attrs.size > 0 {
            let entry = usize::try_from(header.attr_size).unwrap_or(0);
            if entry <= 16 {
                return Err(format!("attr_size {} is too small", header.attr_size));
            }
            if attr_section.len() % entry != 0 {
                return Err(format!(
                    "attrs section size {} is not a multiple of attr_size {entry}",
                    attr_section.len()
                ));
            }
            for chunk in attr_section.chunks_exact(entry) {
                let attr_bytes = &chunk[..entry - 16];
                let ids_sec = Section {
                    offset: endian.u64_at(chunk, entry - 16).unwrap(),
                    size: endian.u64_at(chunk, entry - 8).unwrap(),
                };
                let ids = slice(ids_sec, "ids")?
                    .chunks_exact(8)
                    .map(|c| endian.u64_at(c, 0).unwrap())
                    .collect();
                attrs.push(RawAttr::decode(attr_bytes, ids, endian)?);
            }
        }

        // Feature table right after the data section.
        let mut features = BTreeMap::new();
        let table = header
            .data
            .offset
            .checked_add(header.data.size)
            .ok_or("data section overflows")?;
        for (i, bit) in header.feature_bits().into_iter().enumerate() {
            let p = usize::try_from(table).map_err(|_| "feature table offset too big")? + i * 16;
            let s = Section {
                offset: endian.u64_at(bytes, p).ok_or_else(|| {
                    format!("feature table entry {i} (bit {bit}) is past the end")
                })?,
                size: endian.u64_at(bytes, p + 8).ok_or_else(|| {
                    format!("feature table entry {i} (bit {bit}) is past the end")
                })?,
            };
            features.insert(bit, slice(s, &format!("feature {bit}"))?.to_vec());
        }

        let data_start = usize::try_from(header.data.offset).map_err(|_| "data offset too big")?;
        let data_end = usize::try_from(table).map_err(|_| "data end too big")?;
        let records = walk_records(bytes, data_start, data_end, endian)?;
        let tracing_data = features.get(&1).cloned();

        let mut content = FixtureContent {
            mode: DataMode::File,
            endian,
            header: Some(header),
            attrs,
            features,
            event_desc: Vec::new(),
            tracing_data,
            pipe_feature_end_marker: None,
            records,
        };
        content.apply_event_desc();
        Ok(content)
    }

    fn parse_pipe(bytes: &[u8], endian: Endian) -> Result<FixtureContent, String> {
        let records = walk_records(bytes, 16, bytes.len(), endian)?;
        let mut attrs = Vec::new();
        let mut features = BTreeMap::new();
        let mut tracing_data = None;
        let mut end_marker = None;
        for rec in &records {
            match rec.body(endian) {
                RecordBody::HeaderAttr { attr, ids } => {
                    attrs.push(RawAttr::decode(attr, ids, endian)?);
                }
                RecordBody::HeaderFeature { feat_id, payload } => {
                    if payload.is_empty() && rec.size == 16 {
                        end_marker = Some(feat_id);
                    } else {
                        features.insert(feat_id as u32, payload.to_vec());
                    }
                }
                RecordBody::TracingData { size, payload } => {
                    tracing_data = Some(payload[..(size as usize).min(payload.len())].to_vec());
                }
                _ => {}
            }
        }
        let mut content = FixtureContent {
            mode: DataMode::Pipe,
            endian,
            header: None,
            attrs,
            features,
            event_desc: Vec::new(),
            tracing_data,
            pipe_feature_end_marker: end_marker,
            records,
        };
        content.apply_event_desc();
        Ok(content)
    }

    fn apply_event_desc(&mut self) {
        let Some(desc) = self.features.get(&12) else {
            return;
        };
        let Ok(entries) = parse_event_desc(desc, self.endian) else {
            return;
        };
        let count = self.attrs.len();
        for (i, attr) in self.attrs.iter_mut().enumerate() {
            let by_id = entries
                .iter()
                .find(|e| !e.ids.is_empty() && attr.ids.first() == e.ids.first());
            let by_pos = (entries.len() == count).then(|| &entries[i]);
            attr.name = by_id.or(by_pos).map(|e| e.name.clone());
        }
        self.event_desc = entries;
    }

    /// Event names per attr (EVENT_DESC), `None` where unknown.
    pub fn event_names(&self) -> Vec<Option<String>> {
        self.attrs.iter().map(|a| a.name.clone()).collect()
    }

    /// Record counts by `header.type`.
    pub fn counts_by_type(&self) -> BTreeMap<u32, u64> {
        let mut m = BTreeMap::new();
        for r in &self.records {
            *m.entry(r.record_type).or_insert(0) += 1;
        }
        m
    }

    /// Record counts the way `perf report --stats` prints them: perf's type names
    /// ([`crate::record_type_name`]) plus `TOTAL`. Pipe mode counts every record of the
    /// stream (perf shows them as ATTR, FEATURE, TRACING_DATA, ...).
    pub fn perf_stats(&self) -> BTreeMap<String, u64> {
        let mut m = BTreeMap::new();
        for (t, n) in self.counts_by_type() {
            *m.entry(crate::record_type_name(t).to_string()).or_insert(0) += n;
        }
        m.insert("TOTAL".to_string(), self.records.len() as u64);
        m
    }

    /// Records of one type, in stored order.
    pub fn records_of_type(&self, record_type: u32) -> Vec<&RawRecord> {
        self.records
            .iter()
            .filter(|r| r.record_type == record_type)
            .collect()
    }

    /// Kernel records (type < 64), in stored order.
    pub fn kernel_records(&self) -> Vec<&RawRecord> {
        self.records.iter().filter(|r| r.record_type < 64).collect()
    }

    /// The attr that owns sample id `id`, with its index.
    pub fn attr_for_id(&self, id: u64) -> Option<(usize, &RawAttr)> {
        self.attrs
            .iter()
            .enumerate()
            .find(|(_, a)| a.ids.contains(&id))
    }

    /// Feature bits present, ascending.
    pub fn feature_bits(&self) -> Vec<u32> {
        self.features.keys().copied().collect()
    }
}
