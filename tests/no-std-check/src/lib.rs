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
