//! The kernel interface, and the only module of the workspace with `unsafe`: the
//! `perf_event_open` system call and its ioctls ([`EventFd`]), and the ring buffer a perf
//! event shares with the kernel through `mmap` ([`Ring`]).
//!
//! Bindings: `perf-event-open-sys` gives the system call, the ioctl numbers and the
//! kernel's `perf_event_attr` / `perf_event_mmap_page` layouts (generated from the kernel
//! headers for each architecture; the crate behind `perf-event`, kept up with new kernels).
//! `nix` gives `mmap`/`munmap` (the rest of the collector uses its safe `poll`, `signalfd`
//! and `kill`); it is the `nix` the writer already builds. Everything else the collector
//! does is safe code over the two types below.
#![allow(unsafe_code)] // the one module allowed (the crate denies it)

use perf_event_open_sys::bindings::{perf_event_attr, perf_event_mmap_page, PERF_FLAG_FD_CLOEXEC};
use perf_event_open_sys::{ioctls, perf_event_open};
use std::io;
use std::num::NonZeroUsize;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::ptr::{addr_of_mut, NonNull};
use std::sync::atomic::{AtomicU64, Ordering};
use zerocopy::IntoBytes;

/// The attr size given to the kernel: `PERF_ATTR_SIZE_VER7` (kernels since 5.13 know all
/// of it; older kernels accept it as long as the bytes they do not know are zero).
pub const SYSCALL_ATTR_SIZE: u32 = perf_abi::attr::ATTR_SIZE_VER7;

// The kernel's struct is at least as long as what we copy into it.
const _: () = assert!(std::mem::size_of::<perf_event_attr>() >= SYSCALL_ATTR_SIZE as usize);
const _: () = assert!(std::mem::size_of::<perf_abi::PerfEventAttr>() >= SYSCALL_ATTR_SIZE as usize);

/// An open perf event (`perf_event_open`'s descriptor), closed on drop.
#[derive(Debug)]
pub struct EventFd {
    fd: OwnedFd,
}

impl EventFd {
    /// Opens `attr` for `pid` (-1: every task) on `cpu` (-1: any CPU), close-on-exec.
    pub fn open(attr: &perf_abi::PerfEventAttr, pid: i32, cpu: i32) -> io::Result<EventFd> {
        let mut attr = *attr;
        attr.size = SYSCALL_ATTR_SIZE;
        let bytes = attr.as_bytes();
        let len = SYSCALL_ATTR_SIZE as usize;
        let mut raw = perf_event_attr::default();
        // SAFETY: `perf_event_attr` is a plain C struct of integers and unions of integers
        // (every byte pattern is a valid value), `raw` is a local we own, `bytes` holds at
        // least `len` bytes (perf_abi's attr is the same kernel layout and at least that
        // long, asserted above), and the two do not overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                (&mut raw as *mut perf_event_attr).cast::<u8>(),
                len,
            );
        }
        // SAFETY: `raw` is a valid attr that lives across the call; the kernel reads
        // `raw.size` bytes of it (within the struct) and may write `size` back on E2BIG.
        let fd =
            unsafe { perf_event_open(&mut raw, pid, cpu, -1, libc_ulong(PERF_FLAG_FD_CLOEXEC)) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the kernel just returned `fd`, a new descriptor nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        Ok(EventFd { fd })
    }

    /// The event's id, as the kernel writes it in the IDENTIFIER field of its records.
    pub fn id(&self) -> io::Result<u64> {
        let mut id = 0u64;
        // SAFETY: PERF_EVENT_IOC_ID writes one u64 through the pointer, which points to
        // `id`, alive for the call; the descriptor is open (owned by `self`).
        let rc = unsafe { ioctls::ID(self.fd.as_raw_fd(), &mut id) };
        check(rc).map(|()| id)
    }

    /// Sends this event's records into `target`'s ring buffer (same CPU).
    pub fn set_output(&self, target: &EventFd) -> io::Result<()> {
        // SAFETY: PERF_EVENT_IOC_SET_OUTPUT takes a descriptor number by value; both
        // descriptors are open for the call.
        let rc = unsafe { ioctls::SET_OUTPUT(self.fd.as_raw_fd(), target.fd.as_raw_fd()) };
        check(rc)
    }

    /// The number of records the kernel dropped because the ring was full while this
    /// event wrote to it (`read` with `PERF_FORMAT_LOST`, the only read format it is
    /// opened with: `{u64 value, u64 lost}`).
    pub fn read_lost(&self) -> io::Result<u64> {
        let mut buf = [0u8; 16];
        let n = nix::unistd::read(self.fd.as_raw_fd(), &mut buf).map_err(io::Error::from)?;
        match (n, buf.get(8..16).and_then(|b| <[u8; 8]>::try_from(b).ok())) {
            (16, Some(lost)) => Ok(u64::from_ne_bytes(lost)),
            _ => Err(io::Error::from(io::ErrorKind::UnexpectedEof)),
        }
    }

    /// Starts counting.
    pub fn enable(&self) -> io::Result<()> {
        // SAFETY: PERF_EVENT_IOC_ENABLE takes an integer flag by value; the descriptor is
        // open.
        check(unsafe { ioctls::ENABLE(self.fd.as_raw_fd(), 0) })
    }

    /// Stops counting: no record is added to the ring after this returns.
    pub fn disable(&self) -> io::Result<()> {
        // SAFETY: as for `enable`.
        check(unsafe { ioctls::DISABLE(self.fd.as_raw_fd(), 0) })
    }
}

impl AsFd for EventFd {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

fn libc_ulong(v: u32) -> std::os::raw::c_ulong {
    std::os::raw::c_ulong::from(v)
}

fn check(rc: i32) -> io::Result<()> {
    match rc {
        -1 => Err(io::Error::last_os_error()),
        _ => Ok(()),
    }
}

/// Gives `sig` its default disposition. A signal set to be ignored (a shell starts
/// background jobs with SIGINT ignored) is discarded even while blocked, so it would never
/// reach the signalfd that waits for it.
pub fn default_disposition(sig: nix::sys::signal::Signal) -> io::Result<()> {
    // SAFETY: SIG_DFL installs no handler: no code of ours runs in signal context, so
    // there is no async-signal-safety to break; the previous disposition is dropped.
    unsafe { nix::sys::signal::signal(sig, nix::sys::signal::SigHandler::SigDfl) }
        .map(drop)
        .map_err(io::Error::from)
}

/// The signals perf-collect blocks (to read them from a signalfd) or whose disposition it
/// sets: a command it starts gets all of them back at their defaults.
pub const HANDLED_SIGNALS: [nix::sys::signal::Signal; 6] = [
    nix::sys::signal::Signal::SIGINT,
    nix::sys::signal::Signal::SIGTERM,
    nix::sys::signal::Signal::SIGHUP,
    nix::sys::signal::Signal::SIGCHLD,
    nix::sys::signal::Signal::SIGPIPE,
    nix::sys::signal::Signal::SIGXFSZ,
];

/// Ignores `sig` (for SIGXFSZ: a write past the file size limit then fails with
/// `EFBIG`, which the writer handles as a full output, instead of killing the process).
pub fn ignore(sig: nix::sys::signal::Signal) -> io::Result<()> {
    // SAFETY: SIG_IGN installs no handler: no code of ours runs in signal context.
    unsafe { nix::sys::signal::signal(sig, nix::sys::signal::SigHandler::SigIgn) }
        .map(drop)
        .map_err(io::Error::from)
}

/// Makes `cmd` start as a shell starts a command: between fork and exec the child unblocks
/// every signal (it inherits perf-collect's mask, in which SIGINT, SIGTERM and SIGCHLD are
/// blocked) and puts [`HANDLED_SIGNALS`] back to their default disposition.
pub fn start_with_default_signals(cmd: &mut std::process::Command) {
    use nix::sys::signal::{SigHandler, SigSet};
    use std::os::unix::process::CommandExt;
    let hook = || -> io::Result<()> {
        for sig in HANDLED_SIGNALS {
            // SAFETY: SIG_DFL installs no handler, so no code runs in signal context.
            // `signal` (sigaction) is async-signal-safe, as the child of a fork requires
            // until exec; nothing here allocates or takes a lock (an `Errno` converts to
            // `io::Error` without allocating).
            unsafe { nix::sys::signal::signal(sig, SigHandler::SigDfl) }
                .map_err(io::Error::from)?;
        }
        SigSet::empty().thread_set_mask().map_err(io::Error::from)
    };
    // SAFETY: `pre_exec` runs `hook` in the forked child before exec, where only
    // async-signal-safe calls are allowed: `hook` makes only `sigaction` and
    // `pthread_sigmask` calls (see above) and touches no state shared with the parent.
    unsafe {
        cmd.pre_exec(hook);
    }
}

/// Holds `cmd`'s child between fork and exec until its parent says go: the child closes
/// its copy of `go_writer` (the parent's end of the go pipe, so that the parent closing
/// it is seen), writes its pid (4 bytes, this machine's byte order) to `pid_to`, and
/// reads one byte from `go_from`; it goes on to exec once the byte came, and exits
/// without exec (spawn then fails) when the pipe is closed without one.
///
/// The caller spawns `cmd` on another thread (`spawn` returns only after the exec), reads
/// the pid, prepares what needs the process to exist before its exec (perf events opened
/// with `enable_on_exec`), and then writes the byte.
pub fn hold_before_exec(
    cmd: &mut std::process::Command,
    pid_to: std::os::fd::RawFd,
    go_from: std::os::fd::RawFd,
    go_writer: std::os::fd::RawFd,
) {
    use nix::libc;
    use std::os::unix::process::CommandExt;
    let hook = move || -> io::Result<()> {
        let pid = nix::unistd::getpid().as_raw().to_ne_bytes();
        let mut go = [0u8; 1];
        // SAFETY: runs in the forked child before exec, where only async-signal-safe calls
        // are allowed: `close`, `write` and `read` are (getpid above too), nothing here
        // allocates or takes a lock, and an `io::Error` made from an errno does not
        // allocate. The three descriptors were open in the parent when it forked, so they
        // are open here (`go_writer` is closed once, before the loops); `pid` and `go` are
        // locals that outlive the calls, and each call is given its buffer's length.
        unsafe {
            libc::close(go_writer);
            let mut sent = 0usize;
            while sent < pid.len() {
                let n = libc::write(pid_to, pid.as_ptr().add(sent).cast(), pid.len() - sent);
                match n {
                    n if n > 0 => sent += n as usize,
                    -1 if io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) => {}
                    _ => return Err(io::Error::from_raw_os_error(libc::EPIPE)),
                }
            }
            loop {
                match libc::read(go_from, go.as_mut_ptr().cast(), go.len()) {
                    1 => return Ok(()),
                    -1 if io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) => {}
                    _ => return Err(io::Error::from_raw_os_error(libc::ECANCELED)),
                }
            }
        }
    };
    // SAFETY: `pre_exec` runs `hook` in the forked child before exec; `hook` makes only
    // async-signal-safe calls and touches no state shared with the parent (see above).
    unsafe {
        cmd.pre_exec(hook);
    }
}

/// This machine's page size.
pub fn page_size() -> usize {
    nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
        .ok()
        .flatten()
        .and_then(|n| usize::try_from(n).ok())
        .filter(|n| n.is_power_of_two())
        .unwrap_or(4096)
}

/// A perf event's ring buffer, mapped read-write: one metadata page (`data_head`,
/// `data_tail`, …), then `data_pages` pages of records the kernel appends at `data_head`
/// and this reader consumes up to `data_tail`. Unmapped on drop.
///
/// The kernel writes only between `data_head` and `data_tail + size`; the bytes from
/// `data_tail` to `data_head` are whole records it will not touch until the tail moves.
/// [`Ring::pending`] lends exactly those bytes, and [`Ring::consume`] (which needs the
/// loan back) moves the tail.
#[derive(Debug)]
pub struct Ring {
    base: NonNull<u8>,
    map_len: usize,
    data_offset: usize,
    data_size: usize,
}

// SAFETY: the mapping is owned by the Ring (no other Rust value points into it); moving it
// to another thread moves that ownership. The kernel's side is synchronized through the
// atomics on data_head / data_tail.
unsafe impl Send for Ring {}

/// Bytes of the ring from the tail to the head: `first`, then `second` when they wrap
/// around the end of the ring (empty otherwise).
#[derive(Debug, Clone, Copy)]
pub struct Pending<'a> {
    /// From the tail on.
    pub first: &'a [u8],
    /// From the start of the ring, when the pending bytes wrap.
    pub second: &'a [u8],
    /// The tail these bytes start at.
    pub tail: u64,
    /// The head these bytes end at (give it to [`Ring::consume`]).
    pub head: u64,
}

/// A copy of a flight-recorder ring ([`Ring::snapshot`]).
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Its records, newest first (the oldest may be torn).
    pub bytes: Vec<u8>,
    /// The kernel wrote more than the ring holds: records older than these were
    /// overwritten.
    pub overwritten: bool,
}

impl Ring {
    /// Maps the ring buffer of `fd` with `data_pages` pages of data (a power of two).
    /// `overwrite`: mapped read-only, which tells the kernel to overwrite the oldest
    /// records instead of stopping at `data_tail` (flight-recorder mode; the events must be
    /// opened with `write_backward`, see [`Ring::snapshot`]).
    pub fn map(fd: &EventFd, data_pages: usize, overwrite: bool) -> io::Result<Ring> {
        let page = page_size();
        let map_len = data_pages
            .checked_add(1)
            .and_then(|n| n.checked_mul(page))
            .and_then(NonZeroUsize::new)
            .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
        if !data_pages.is_power_of_two() {
            return Err(io::Error::from(io::ErrorKind::InvalidInput));
        }
        use nix::sys::mman::{mmap, MapFlags, ProtFlags};
        // SAFETY: a new shared mapping of a perf event descriptor, at an address the kernel
        // picks: it aliases no Rust object. It stays valid until `Drop` unmaps it.
        let base = unsafe {
            mmap(
                None,
                map_len,
                match overwrite {
                    true => ProtFlags::PROT_READ,
                    false => ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
                },
                MapFlags::MAP_SHARED,
                fd.as_fd(),
                0,
            )
        }
        .map_err(io::Error::from)?
        .cast::<u8>();
        let mut ring = Ring {
            base,
            map_len: map_len.get(),
            data_offset: page,
            data_size: data_pages * page,
        };
        // Kernels since 4.1 say where the data is; older ones put it right after the
        // first page, as assumed above.
        let meta = ring.meta();
        // SAFETY: `meta` points to the metadata page of the live mapping; `data_offset` and
        // `data_size` are set by the kernel before mmap returns and never change.
        let (offset, size) = unsafe {
            (
                std::ptr::read_volatile(addr_of_mut!((*meta).data_offset)),
                std::ptr::read_volatile(addr_of_mut!((*meta).data_size)),
            )
        };
        if offset != 0 && size != 0 {
            match (usize::try_from(offset), usize::try_from(size)) {
                (Ok(o), Ok(s)) if o.checked_add(s).is_some_and(|end| end <= ring.map_len) => {
                    ring.data_offset = o;
                    ring.data_size = s;
                }
                _ => return Err(io::Error::from(io::ErrorKind::InvalidData)),
            }
        }
        Ok(ring)
    }

    fn meta(&self) -> *mut perf_event_mmap_page {
        self.base.as_ptr().cast::<perf_event_mmap_page>()
    }

    fn head_atomic(&self) -> &AtomicU64 {
        // SAFETY: `data_head` is an 8-aligned u64 inside the live mapping (the page is
        // page-aligned and the field's offset, 1024, is a multiple of 8). The kernel
        // writes it concurrently, so it is only read through an atomic.
        unsafe { AtomicU64::from_ptr(addr_of_mut!((*self.meta()).data_head)) }
    }

    fn tail_atomic(&self) -> &AtomicU64 {
        // SAFETY: as for `head_atomic`; `data_tail` is written by this reader and read by
        // the kernel.
        unsafe { AtomicU64::from_ptr(addr_of_mut!((*self.meta()).data_tail)) }
    }

    /// Size of the data area in bytes.
    pub fn data_size(&self) -> usize {
        self.data_size
    }

    /// The whole records the kernel has written and this reader has not consumed.
    pub fn pending(&self) -> Pending<'_> {
        // Acquire: the records before `head` are visible once `head` is.
        let head = self.head_atomic().load(Ordering::Acquire);
        let tail = self.tail_atomic().load(Ordering::Relaxed);
        let size = self.data_size as u64;
        let len = head.wrapping_sub(tail).min(size);
        let start = (tail % size) as usize;
        let len = len as usize;
        // SAFETY: the data area [data_offset, data_offset + data_size) lies in the live
        // mapping (checked in `map`). Of it, only the `len` bytes from the tail on (wrapping)
        // are lent out: the kernel does not write them until the tail moves past them, which
        // needs `consume(&mut self)`, so no write happens while the loan lives.
        let data = unsafe { self.base.as_ptr().add(self.data_offset) };
        let first_len = len.min(self.data_size - start);
        // SAFETY: see above; `start + first_len <= data_size`.
        let first = unsafe { std::slice::from_raw_parts(data.add(start), first_len) };
        // SAFETY: see above; `len - first_len <= start <= data_size`.
        let second = unsafe { std::slice::from_raw_parts(data, len - first_len) };
        Pending {
            first,
            second,
            tail,
            head: tail.wrapping_add(len as u64),
        }
    }

    /// Flight-recorder mode: a copy of the records of an overwrite ring written backward
    /// (`write_backward`), newest first, from `data_head` on as far as they are whole: up
    /// to the ring's size, or to where the kernel started when it has not gone round yet.
    /// Call it once the ring's events are disabled (the kernel then writes nothing more to
    /// it); while they run, the copy may hold a record being overwritten, which the walk
    /// over it then stops at or misreads, but no memory error follows: the bytes are copied
    /// with volatile reads into memory of our own.
    pub fn snapshot(&self) -> Snapshot {
        let head = self.head_atomic().load(Ordering::Acquire);
        let size = self.data_size as u64;
        // Backward: head starts at 0 and goes down; -head bytes have been written.
        let written = 0u64.wrapping_sub(head);
        let len = written.min(size) as usize;
        let start = (head % size) as usize;
        let mut out = Vec::with_capacity(len);
        // SAFETY: the data area lies in the live mapping (checked in `map`); every index
        // read is `(start + i) % data_size < data_size`. The reads are volatile because the
        // kernel may write the area at any time; the values land in `out`, our own memory.
        let data = unsafe { self.base.as_ptr().add(self.data_offset) };
        for i in 0..len {
            let at = (start + i) % self.data_size;
            // SAFETY: see above.
            out.push(unsafe { std::ptr::read_volatile(data.add(at)) });
        }
        Snapshot {
            bytes: out,
            overwritten: written > size,
        }
    }

    /// Gives the bytes up to `head` (a position between the pending bytes' tail and head)
    /// back to the kernel.
    pub fn consume(&mut self, head: u64) {
        // Release: our reads of the records happen before the kernel may overwrite them.
        self.tail_atomic().store(head, Ordering::Release);
    }
}

impl Drop for Ring {
    fn drop(&mut self) {
        // SAFETY: `base`/`map_len` are the mapping made in `map`, unmapped only here; no
        // loan from `pending` outlives `&self`.
        let _ = unsafe { nix::sys::mman::munmap(self.base.cast(), self.map_len) };
    }
}
