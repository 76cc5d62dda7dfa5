//! Calls the encoder from a `#![no_std]` library with its own panic handler.
#![no_std]

use perf_abi::{attr, feature, PerfEventAttr};
use perf_encode::layout::{FeatureLen, FileLayout, LayoutInput, Region, SectionOrder};
use perf_encode::records::{FinishedRound, Record, RecordFramer};
use perf_encode::{encoded_len, to_slice, Endian, EventEntry, HeaderString};

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {}
}

#[cfg(feature = "alloc")]
mod stub_allocator {
    extern crate alloc;
    use core::alloc::{GlobalAlloc, Layout};

    /// An allocator that never has memory: enough to link code that may allocate.
    struct NoMemory;

    // SAFETY: returning null is always a valid answer of `alloc` (allocation failure), and
    // `dealloc` is never given a pointer this allocator returned, because it returns none.
    unsafe impl GlobalAlloc for NoMemory {
        unsafe fn alloc(&self, _: Layout) -> *mut u8 {
            core::ptr::null_mut()
        }
        unsafe fn dealloc(&self, _: *mut u8, _: Layout) {}
    }

    #[global_allocator]
    static ALLOCATOR: NoMemory = NoMemory;

    /// Uses the alloc-only API so that it is linked in.
    #[no_mangle]
    pub extern "C" fn perf_no_std_check_vec_len() -> usize {
        perf_encode::to_vec(&perf_encode::records::FinishedInit, perf_encode::Endian::Big).map_or(0, |v| v.len())
    }
}

/// Writes a complete one-event file into `buf` (of `len` bytes); returns its length, or 0.
#[no_mangle]
pub extern "C" fn perf_no_std_check_write(buf: *mut u8, len: usize) -> usize {
    if buf.is_null() {
        return 0;
    }
    // SAFETY: the C caller promises `buf` points to `len` writable bytes.
    let buf = unsafe { core::slice::from_raw_parts_mut(buf, len) };
    write_file(buf, Endian::Big).unwrap_or(0)
}

fn write_file(buf: &mut [u8], e: Endian) -> Result<usize, perf_encode::EncodeError> {
    let attr = PerfEventAttr { type_: attr::TYPE_SOFTWARE, config: attr::SW_DUMMY, ..Default::default() };
    let events = [EventEntry { attr, name: "dummy", ids: &[1] }];
    let hostname = HeaderString::new(b"device");
    let features = [FeatureLen { index: feature::HOSTNAME, len: encoded_len(&hostname)? as u64 }];
    let sample = Record::new(perf_abi::record_type::SAMPLE, 0, &[&[0u8; 8]]);
    let data_size = (encoded_len(&sample)? + encoded_len(&FinishedRound)?) as u64;
    let layout = FileLayout::plan(LayoutInput { order: SectionOrder::AttrsFirst, events: &events, data_size, features: &features })?;
    for (region, s) in layout.regions() {
        let at = buf.get_mut(s.offset as usize..).ok_or(perf_encode::EncodeError::Overflow { what: "buffer" })?;
        match region {
            Region::Header => drop(to_slice(&layout.header(), e, at)?),
            Region::Ids => drop(to_slice(&layout.ids_encoder(), e, at)?),
            Region::Attrs => drop(to_slice(&layout.attrs_encoder(), e, at)?),
            Region::Data => {
                let n = to_slice(&sample, e, at)?.len();
                let mut framer = RecordFramer::new(e);
                let rest = at.get_mut(n..).ok_or(perf_encode::EncodeError::Overflow { what: "buffer" })?;
                let m = to_slice(&FinishedRound, e, rest)?.len();
                let _ = framer.feed(at.get(..n + m).unwrap_or(&[]));
            }
            Region::FeatureTable => drop(to_slice(&layout.feature_table_encoder(), e, at)?),
            Region::FeaturePayloads => drop(to_slice(&hostname, e, at)?),
        }
    }
    Ok(layout.file_size() as usize)
}

/// Builds a pipe-mode stream with [`perf_encode::stream::PipeStream`] in a 256-byte buffer,
/// draining it into `out` (of `len` bytes) whenever a record does not fit; typed records
/// (COMM, SAMPLE with its layout) and the SAMPLE parser are used along the way. Returns the
/// stream's length, or 0.
#[no_mangle]
pub extern "C" fn perf_no_std_check_pipe(out: *mut u8, len: usize) -> usize {
    if out.is_null() {
        return 0;
    }
    // SAFETY: the C caller promises `out` points to `len` writable bytes.
    let out = unsafe { core::slice::from_raw_parts_mut(out, len) };
    write_pipe(out, Endian::Little).unwrap_or(0)
}

/// Copies the pending bytes of `s` to `out[*at..]`.
fn drain(s: &mut perf_encode::stream::PipeStream<'_>, out: &mut [u8], at: &mut usize) -> Result<(), perf_encode::EncodeError> {
    s.drain_to(|chunk| {
        let dst = out
            .get_mut(*at..at.saturating_add(chunk.len()))
            .ok_or(perf_encode::EncodeError::BufferTooSmall { needed: chunk.len(), available: 0 })?;
        dst.copy_from_slice(chunk);
        *at = at.saturating_add(chunk.len());
        Ok(chunk.len())
    })
    .map(drop)
}

/// Pushes with `f`, draining `s` into `out` and retrying once when the buffer is full.
fn push_or_drain(
    s: &mut perf_encode::stream::PipeStream<'_>,
    out: &mut [u8],
    at: &mut usize,
    mut f: impl FnMut(&mut perf_encode::stream::PipeStream<'_>) -> Result<(), perf_encode::EncodeError>,
) -> Result<(), perf_encode::EncodeError> {
    match f(s) {
        Err(perf_encode::EncodeError::BufferTooSmall { .. }) => {
            drain(s, out, at)?;
            f(s)
        }
        other => other,
    }
}

fn write_pipe(out: &mut [u8], e: Endian) -> Result<usize, perf_encode::EncodeError> {
    use perf_abi::{attr_flags, sample_type};
    use perf_encode::records::{parse_sample, Comm, PidTid, Sample, SampleId, SampleLayout, SampleRecord};
    use perf_encode::stream::PipeStream;

    let attr = PerfEventAttr {
        type_: attr::TYPE_SOFTWARE,
        size: attr::ATTR_SIZE_VER7,
        config: attr::SW_CPU_CLOCK,
        sample_type: sample_type::IDENTIFIER | sample_type::IP | sample_type::TID | sample_type::TIME | sample_type::CALLCHAIN,
        flags: attr_flags::SAMPLE_ID_ALL,
        ..Default::default()
    };
    let layout = SampleLayout::from_attr(&attr);
    let mut buf = [0u8; 256];
    let mut at = 0usize;
    let mut s = PipeStream::new(&mut buf, e)?;
    push_or_drain(&mut s, out, &mut at, |s| s.add_attr(&attr, &[7]))?;
    let mut host = [0u8; 68];
    let host = to_slice(&HeaderString::new(b"device"), e, &mut host)?;
    push_or_drain(&mut s, out, &mut at, |s| s.add_feature(feature::HOSTNAME, host))?;
    let sid = SampleId { tid: Some(PidTid { pid: 1, tid: 1 }), time: Some(10), identifier: Some(7), ..Default::default() };
    push_or_drain(&mut s, out, &mut at, |s| {
        s.push(&Comm { layout: &layout, pid: 1, tid: 1, comm: b"init", exec: true, sample_id: sid })
    })?;
    let ips = [0xffff_ffff_ffff_fe00, 0x1000, 0x2000];
    for i in 0..20u64 {
        let sample = Sample {
            identifier: Some(7),
            ip: Some(0x1000 + i),
            tid: Some(PidTid { pid: 1, tid: 1 }),
            time: Some(100 + i),
            callchain: Some(&ips),
            ..Default::default()
        };
        push_or_drain(&mut s, out, &mut at, |s| s.push(&SampleRecord { layout: &layout, sample: &sample, misc: 2 }))?;
    }
    push_or_drain(&mut s, out, &mut at, |s| s.push(&FinishedRound))?;
    drain(&mut s, out, &mut at)?;
    // The stream ends with the FINISHED_ROUND; the SAMPLE before it parses back.
    // 72 bytes: header, IDENTIFIER, IP, TID, TIME, callchain nr and 3 ips.
    let last_sample = at.saturating_sub(8 + 72);
    let p = parse_sample(&layout, e, out.get(last_sample..at.saturating_sub(8)).unwrap_or(&[]))
        .map_err(|_| perf_encode::EncodeError::InvalidValue { what: "parse" })?;
    if p.time != Some(119) {
        return Ok(0);
    }
    let mut framer = RecordFramer::new(e);
    framer
        .feed(out.get(16..at).unwrap_or(&[]))
        .map_err(|_| perf_encode::EncodeError::InvalidValue { what: "framing" })?;
    Ok(at)
}
