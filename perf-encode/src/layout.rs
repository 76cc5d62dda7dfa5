//! The layout planner: where every section of a file goes. Pure arithmetic, no I/O; every sum
//! is checked, so a layout that exists fits in `u64`.

use crate::event::events_attr_size;
use crate::{Encode, EncodeError, Encoder, EventEntry, Output};
use perf_abi::{PerfFileHeader, PerfFileSection, FILE_HEADER_SIZE, PERF_MAGIC};

/// Order of the sections after the 104-byte file header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SectionOrder {
    /// perf's order: ids, attrs, data, feature table, feature payloads. The events must be
    /// known before the first record; the data offset does not depend on the data size.
    AttrsFirst,
    /// Data, feature table, feature payloads, ids, attrs: events may be added until the end.
    /// The attrs come last so that an event without ids still has its (empty) ids section
    /// inside the file, which `tracepoint_perf`'s reader requires of every section.
    AttrsLast,
}

/// A feature section to place: its index (bit of the bitmap) and payload length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureLen {
    /// Feature index, 1..=255 (`perf_abi::feature::*`).
    pub index: u8,
    /// Payload length in bytes.
    pub len: u64,
}

/// What the planner needs to know.
#[derive(Clone, Copy, Debug)]
pub struct LayoutInput<'a> {
    /// Section order.
    pub order: SectionOrder,
    /// The events (their attrs' sizes and id counts are used).
    pub events: &'a [EventEntry<'a>],
    /// Length of the data section.
    pub data_size: u64,
    /// Feature payloads present, in strictly ascending index order.
    pub features: &'a [FeatureLen],
}

/// Offsets and sizes of every section of a file.
///
/// ```
/// use perf_encode::layout::{FeatureLen, FileLayout, LayoutInput, SectionOrder};
/// use perf_encode::EventEntry;
/// let events = [EventEntry { attr: Default::default(), name: "e", ids: &[1, 2] }];
/// let features = [FeatureLen { index: perf_abi::feature::HOSTNAME, len: 68 }];
/// let l = FileLayout::plan(LayoutInput { order: SectionOrder::AttrsLast, events: &events, data_size: 64, features: &features }).unwrap();
/// assert_eq!(l.header().data.offset, 104);
/// assert_eq!(l.feature_table().offset, 104 + 64);
/// assert_eq!(l.ids().offset, 168 + 16 + 68);
/// assert_eq!(l.ids_sections().next().unwrap().size, 16);
/// assert_eq!(l.attrs().offset, l.ids().offset + 16);
/// assert_eq!(l.file_size(), l.attrs().offset + 144);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct FileLayout<'a> {
    input: LayoutInput<'a>,
    attr_size: u32,
    header: PerfFileHeader,
    feature_table: PerfFileSection,
    feature_payloads: PerfFileSection,
    ids: PerfFileSection,
}

fn add(a: u64, b: u64, what: &'static str) -> Result<u64, EncodeError> {
    a.checked_add(b).ok_or(EncodeError::Overflow { what })
}

fn mul(a: u64, b: u64, what: &'static str) -> Result<u64, EncodeError> {
    a.checked_mul(b).ok_or(EncodeError::Overflow { what })
}

fn len64(n: usize, what: &'static str) -> Result<u64, EncodeError> {
    u64::try_from(n).map_err(|_| EncodeError::Overflow { what })
}

impl<'a> FileLayout<'a> {
    /// Plans the file: the offset and size of every section.
    ///
    /// # Errors
    ///
    /// - [`EncodeError::InvalidFeature`] `{ index: 0 }` when a feature uses the reserved
    ///   bit 0;
    /// - [`EncodeError::Unordered`] when the feature indexes are not strictly ascending (a
    ///   repeated index included);
    /// - the errors of [`EventEntry::check`] for an event over the format's limits;
    /// - [`EncodeError::Overflow`] when the sections' sizes, or the offsets they add up to,
    ///   pass `u64::MAX` (`what` names the section).
    pub fn plan(input: LayoutInput<'a>) -> Result<Self, EncodeError> {
        let mut prev: Option<u8> = None;
        let mut payload_len = 0u64;
        for f in input.features {
            if f.index == perf_abi::feature::RESERVED {
                return Err(EncodeError::InvalidFeature { index: 0 });
            }
            if prev.is_some_and(|p| p >= f.index) {
                return Err(EncodeError::Unordered {
                    what: "feature sections (ascending index)",
                });
            }
            prev = Some(f.index);
            payload_len = add(payload_len, f.len, "feature payloads")?;
        }
        let table_len = mul(
            len64(input.features.len(), "feature table")?,
            16,
            "feature table",
        )?;

        let attr_size = events_attr_size(input.events);
        let entry = add(u64::from(attr_size), 16, "attr entry")?;
        let attrs_len = mul(len64(input.events.len(), "attrs")?, entry, "attrs section")?;
        let mut id_count = 0u64;
        for e in input.events {
            e.check()?;
            id_count = add(id_count, len64(e.ids.len(), "ids")?, "ids")?;
        }
        let ids_len = mul(id_count, 8, "ids")?;

        let start = FILE_HEADER_SIZE;
        let (ids_off, attrs_off, data_off, table_off, payload_off);
        match input.order {
            SectionOrder::AttrsFirst => {
                ids_off = start;
                attrs_off = add(ids_off, ids_len, "ids section")?;
                data_off = add(attrs_off, attrs_len, "attrs section")?;
                table_off = add(data_off, input.data_size, "data section")?;
                payload_off = add(table_off, table_len, "feature table")?;
                add(payload_off, payload_len, "feature payloads")?;
            }
            SectionOrder::AttrsLast => {
                data_off = start;
                table_off = add(data_off, input.data_size, "data section")?;
                payload_off = add(table_off, table_len, "feature table")?;
                ids_off = add(payload_off, payload_len, "feature payloads")?;
                attrs_off = add(ids_off, ids_len, "ids section")?;
                add(attrs_off, attrs_len, "attrs section")?;
            }
        }

        let mut features = [0u64; 4];
        for f in input.features {
            let word =
                features
                    .get_mut(usize::from(f.index / 64))
                    .ok_or(EncodeError::InvalidFeature {
                        index: u32::from(f.index),
                    })?;
            *word |= 1u64 << (f.index % 64);
        }
        let header = PerfFileHeader {
            magic: PERF_MAGIC,
            size: FILE_HEADER_SIZE,
            attr_size: entry,
            attrs: PerfFileSection {
                offset: attrs_off,
                size: attrs_len,
            },
            data: PerfFileSection {
                offset: data_off,
                size: input.data_size,
            },
            event_types: PerfFileSection::default(),
            features,
        };
        Ok(FileLayout {
            input,
            attr_size,
            header,
            feature_table: PerfFileSection {
                offset: table_off,
                size: table_len,
            },
            feature_payloads: PerfFileSection {
                offset: payload_off,
                size: payload_len,
            },
            ids: PerfFileSection {
                offset: ids_off,
                size: ids_len,
            },
        })
    }

    /// The complete file header.
    pub fn header(&self) -> PerfFileHeader {
        self.header
    }

    /// The size every attr is written with (`header.attr_size - 16`).
    pub fn attr_size(&self) -> u32 {
        self.attr_size
    }

    /// The data section.
    pub fn data(&self) -> PerfFileSection {
        self.header.data
    }

    /// The attrs section.
    pub fn attrs(&self) -> PerfFileSection {
        self.header.attrs
    }

    /// The ids of all events, one after the other.
    pub fn ids(&self) -> PerfFileSection {
        self.ids
    }

    /// The feature section table (starts where the data ends).
    pub fn feature_table(&self) -> PerfFileSection {
        self.feature_table
    }

    /// All feature payloads, one after the other.
    pub fn feature_payloads(&self) -> PerfFileSection {
        self.feature_payloads
    }

    /// Length of the whole file.
    pub fn file_size(&self) -> u64 {
        [
            self.header.attrs,
            self.header.data,
            self.ids,
            self.feature_table,
            self.feature_payloads,
        ]
        .iter()
        .map(|s| s.offset.saturating_add(s.size))
        .fold(FILE_HEADER_SIZE, u64::max)
    }

    /// The regions of the file in file order (header first), for writing them in order.
    pub fn regions(&self) -> [(Region, PerfFileSection); 6] {
        let header = PerfFileSection {
            offset: 0,
            size: FILE_HEADER_SIZE,
        };
        let mut r = [
            (Region::Header, header),
            (Region::Ids, self.ids),
            (Region::Attrs, self.header.attrs),
            (Region::Data, self.header.data),
            (Region::FeatureTable, self.feature_table),
            (Region::FeaturePayloads, self.feature_payloads),
        ];
        if self.input.order == SectionOrder::AttrsLast {
            r = [r[0], r[3], r[4], r[5], r[1], r[2]];
        }
        r
    }

    /// Each feature's index and section, ascending.
    pub fn feature_sections(&self) -> impl Iterator<Item = (u8, PerfFileSection)> + 'a {
        let mut offset = self.feature_payloads.offset;
        self.input.features.iter().map(move |f| {
            let s = PerfFileSection {
                offset,
                size: f.len,
            };
            offset = offset.saturating_add(f.len);
            (f.index, s)
        })
    }

    /// Each event's ids section, in event order.
    pub fn ids_sections(&self) -> impl Iterator<Item = PerfFileSection> + 'a {
        let mut offset = self.ids.offset;
        self.input.events.iter().map(move |e| {
            let size = (e.ids.len() as u64).saturating_mul(8);
            let s = PerfFileSection { offset, size };
            offset = offset.saturating_add(size);
            s
        })
    }

    /// Encoder of the feature section table.
    pub fn feature_table_encoder(&self) -> FeatureTable<'_, 'a> {
        FeatureTable { layout: self }
    }

    /// Encoder of the attrs section.
    pub fn attrs_encoder(&self) -> AttrsSection<'_, 'a> {
        AttrsSection { layout: self }
    }

    /// Encoder of every event's ids, one after the other.
    pub fn ids_encoder(&self) -> IdsArrays<'a> {
        IdsArrays {
            events: self.input.events,
        }
    }
}

/// A region of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// The 104-byte header.
    Header,
    /// The events' ids.
    Ids,
    /// The attrs section.
    Attrs,
    /// The data section.
    Data,
    /// The feature section table.
    FeatureTable,
    /// The feature payloads.
    FeaturePayloads,
}

/// The feature section table: one `{offset, size}` per feature, ascending.
#[derive(Clone, Copy, Debug)]
pub struct FeatureTable<'l, 'a> {
    layout: &'l FileLayout<'a>,
}

impl Encode for FeatureTable<'_, '_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        self.layout
            .feature_sections()
            .try_for_each(|(_, s)| enc.encode(&s))
    }
    fn encoded_len(&self) -> Result<usize, EncodeError> {
        usize::try_from(self.layout.feature_table.size).map_err(|_| EncodeError::Overflow {
            what: "feature table",
        })
    }
}

/// The attrs section: per event, its attr (in the layout's attr size) and its ids section.
#[derive(Clone, Copy, Debug)]
pub struct AttrsSection<'l, 'a> {
    layout: &'l FileLayout<'a>,
}

impl Encode for AttrsSection<'_, '_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        let size = self.layout.attr_size;
        for (e, ids) in self
            .layout
            .input
            .events
            .iter()
            .zip(self.layout.ids_sections())
        {
            enc.encode(&e.attr_with_size(size))?;
            enc.encode(&ids)?;
        }
        Ok(())
    }
    /// The planner sized the section and checked the events; their attrs are written in the
    /// size that holds all of them, which cannot fail.
    fn encoded_len(&self) -> Result<usize, EncodeError> {
        usize::try_from(self.layout.header.attrs.size).map_err(|_| EncodeError::Overflow {
            what: "attrs section",
        })
    }
}

/// All events' ids, one after the other.
#[derive(Clone, Copy, Debug)]
pub struct IdsArrays<'a> {
    events: &'a [EventEntry<'a>],
}

impl Encode for IdsArrays<'_> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        self.events.iter().try_for_each(|e| enc.u64s(e.ids))
    }
    fn encoded_len(&self) -> Result<usize, EncodeError> {
        self.events
            .iter()
            .try_fold(0usize, |n, e| {
                e.ids.len().checked_mul(8).and_then(|b| n.checked_add(b))
            })
            .ok_or(EncodeError::Overflow { what: "ids" })
    }
}

#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small known values
#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use crate::{to_vec, Endian};
    use perf_abi::PerfEventAttr;

    fn check_no_overlap(l: &FileLayout<'_>) {
        let regions = l.regions();
        let mut end = 0u64;
        for (name, s) in regions {
            assert!(
                s.offset >= end || s.size == 0,
                "{name:?} at {} overlaps previous end {end}",
                s.offset
            );
            end = end.max(s.offset + s.size);
        }
        assert_eq!(end, l.file_size());
    }

    #[test]
    fn both_orders_place_everything_without_overlap() {
        let ids_a = [1u64, 2, 3];
        let ids_b = [4u64];
        let events = [
            EventEntry {
                attr: PerfEventAttr::default(),
                name: "a",
                ids: &ids_a,
            },
            EventEntry {
                attr: PerfEventAttr::default(),
                name: "b",
                ids: &ids_b,
            },
        ];
        let features = [
            FeatureLen { index: 3, len: 68 },
            FeatureLen {
                index: 12,
                len: 300,
            },
        ];
        for order in [SectionOrder::AttrsFirst, SectionOrder::AttrsLast] {
            let l = FileLayout::plan(LayoutInput {
                order,
                events: &events,
                data_size: 800,
                features: &features,
            })
            .unwrap();
            check_no_overlap(&l);
            let h = l.header();
            assert_eq!(h.attr_size, 144);
            assert_eq!(h.attrs.size, 288);
            assert_eq!(h.features[0], (1 << 3) | (1 << 12));
            assert_eq!(l.feature_table().offset, h.data.offset + 800);
            let secs: alloc::vec::Vec<_> = l.feature_sections().collect();
            assert_eq!(secs[0].1.offset, l.feature_table().offset + 32);
            assert_eq!(secs[1].1.offset, secs[0].1.offset + 68);
            let ids: alloc::vec::Vec<_> = l.ids_sections().collect();
            assert_eq!(ids[1].offset, ids[0].offset + 24);
            assert_eq!(
                to_vec(&l.attrs_encoder(), Endian::Little).unwrap().len() as u64,
                h.attrs.size
            );
            assert_eq!(
                to_vec(&l.ids_encoder(), Endian::Little).unwrap().len() as u64,
                l.ids().size
            );
            assert_eq!(
                to_vec(&l.feature_table_encoder(), Endian::Little)
                    .unwrap()
                    .len(),
                32
            );
        }
    }

    #[test]
    fn perf_order_data_offset_is_independent_of_data_size() {
        let ids = [1u64];
        let events = [EventEntry {
            attr: PerfEventAttr::default(),
            name: "a",
            ids: &ids,
        }];
        let a = FileLayout::plan(LayoutInput {
            order: SectionOrder::AttrsFirst,
            events: &events,
            data_size: 0,
            features: &[],
        })
        .unwrap();
        let b = FileLayout::plan(LayoutInput {
            order: SectionOrder::AttrsFirst,
            events: &events,
            data_size: 1 << 40,
            features: &[],
        })
        .unwrap();
        assert_eq!(a.data().offset, b.data().offset);
        assert_eq!(a.data().offset, 104 + 8 + 144);
    }

    #[test]
    fn errors_instead_of_overflow_or_disorder() {
        let big = [FeatureLen {
            index: 3,
            len: u64::MAX,
        }];
        for order in [SectionOrder::AttrsFirst, SectionOrder::AttrsLast] {
            let r = FileLayout::plan(LayoutInput {
                order,
                events: &[],
                data_size: 1,
                features: &big,
            });
            assert!(matches!(r, Err(EncodeError::Overflow { .. })));
            let r = FileLayout::plan(LayoutInput {
                order,
                events: &[],
                data_size: u64::MAX - 104,
                features: &[],
            });
            assert!(r.is_ok());
            let r = FileLayout::plan(LayoutInput {
                order,
                events: &[],
                data_size: u64::MAX - 103,
                features: &[],
            });
            assert!(matches!(r, Err(EncodeError::Overflow { .. })));
        }
        let unordered = [
            FeatureLen { index: 5, len: 1 },
            FeatureLen { index: 5, len: 1 },
        ];
        let r = FileLayout::plan(LayoutInput {
            order: SectionOrder::AttrsLast,
            events: &[],
            data_size: 0,
            features: &unordered,
        });
        assert!(matches!(r, Err(EncodeError::Unordered { .. })));
        let reserved = [FeatureLen { index: 0, len: 1 }];
        let r = FileLayout::plan(LayoutInput {
            order: SectionOrder::AttrsLast,
            events: &[],
            data_size: 0,
            features: &reserved,
        });
        assert_eq!(r.unwrap_err(), EncodeError::InvalidFeature { index: 0 });
    }
}
