//! Hand-built records for tests, in either byte order, written independently of the
//! workspace's encoder so that the encoder is checked against a second opinion.

use crate::Endian;

/// A record under construction: `perf_event_header` then fields appended in order.
///
/// ```
/// use integration_tests::{records::RecordBuilder, Endian};
/// let r = RecordBuilder::new(Endian::Little, 9, 2).u64(7).finish();
/// assert_eq!(r.len(), 16);
/// assert_eq!(&r[6..8], &[16, 0]);
/// ```
#[derive(Clone, Debug)]
pub struct RecordBuilder {
    endian: Endian,
    bytes: Vec<u8>,
}

impl RecordBuilder {
    /// A record of `record_type` with `misc` bits.
    pub fn new(endian: Endian, record_type: u32, misc: u16) -> Self {
        let mut bytes = Vec::with_capacity(64);
        bytes.extend_from_slice(&endian.u32_bytes(record_type));
        bytes.extend_from_slice(&endian.u16_bytes(misc));
        bytes.extend_from_slice(&[0, 0]);
        RecordBuilder { endian, bytes }
    }

    /// Appends a `u32`.
    pub fn u32(mut self, v: u32) -> Self {
        self.bytes.extend_from_slice(&self.endian.u32_bytes(v));
        self
    }

    /// Appends a `u64`.
    pub fn u64(mut self, v: u64) -> Self {
        let b = match self.endian {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        };
        self.bytes.extend_from_slice(&b);
        self
    }

    /// Appends raw bytes.
    pub fn bytes(mut self, b: &[u8]) -> Self {
        self.bytes.extend_from_slice(b);
        self
    }

    /// Appends a NUL-terminated string padded with NULs to a multiple of 8 bytes of record.
    pub fn c_string(self, s: &str) -> Self {
        self.bytes(s.as_bytes()).bytes(&[0]).pad8()
    }

    /// Zero-pads the record to a multiple of 8 bytes.
    pub fn pad8(mut self) -> Self {
        while self.bytes.len() % 8 != 0 {
            self.bytes.push(0);
        }
        self
    }

    /// The record with its size filled in. Panics above 65535 bytes (a test bug).
    pub fn finish(mut self) -> Vec<u8> {
        let size = u16::try_from(self.bytes.len()).expect("record fits u16");
        let b = self.endian.u16_bytes(size);
        self.bytes[6..8].copy_from_slice(&b);
        self.bytes
    }
}

/// `perf_event_attr.sample_type` bits used by the tests.
pub mod sample {
    /// PERF_SAMPLE_IP
    pub const IP: u64 = 1 << 0;
    /// PERF_SAMPLE_TID
    pub const TID: u64 = 1 << 1;
    /// PERF_SAMPLE_TIME
    pub const TIME: u64 = 1 << 2;
    /// PERF_SAMPLE_CPU
    pub const CPU: u64 = 1 << 7;
    /// PERF_SAMPLE_PERIOD
    pub const PERIOD: u64 = 1 << 8;
    /// PERF_SAMPLE_RAW
    pub const RAW: u64 = 1 << 10;
    /// PERF_SAMPLE_IDENTIFIER
    pub const IDENTIFIER: u64 = 1 << 16;
}

/// A SAMPLE record of layout IDENTIFIER | IP | TID | TIME | CPU | PERIOD [| RAW].
#[derive(Clone, Debug)]
pub struct StdSample<'a> {
    /// IDENTIFIER.
    pub id: u64,
    /// IP.
    pub ip: u64,
    /// pid and tid.
    pub pid: u32,
    /// tid.
    pub tid: u32,
    /// TIME.
    pub time: u64,
    /// CPU.
    pub cpu: u32,
    /// PERIOD.
    pub period: u64,
    /// RAW payload, when the layout has RAW.
    pub raw: Option<&'a [u8]>,
    /// `misc` (cpu mode).
    pub misc: u16,
}

impl StdSample<'_> {
    /// The record bytes.
    pub fn encode(&self, endian: Endian) -> Vec<u8> {
        let mut r = RecordBuilder::new(endian, 9, self.misc)
            .u64(self.id)
            .u64(self.ip)
            .u32(self.pid)
            .u32(self.tid)
            .u64(self.time)
            .u32(self.cpu)
            .u32(0)
            .u64(self.period);
        if let Some(raw) = self.raw {
            r = r.u32(raw.len() as u32).bytes(raw).pad8();
        }
        r.finish()
    }
}

/// A COMM record with the `sample_id` trailer of layout TID | TIME | CPU | IDENTIFIER.
pub fn comm(endian: Endian, pid: u32, tid: u32, name: &str, time: u64, id: u64) -> Vec<u8> {
    RecordBuilder::new(endian, 3, 0)
        .u32(pid)
        .u32(tid)
        .c_string(name)
        .u32(pid)
        .u32(tid)
        .u64(time)
        .u32(0)
        .u32(0)
        .u64(id)
        .finish()
}
