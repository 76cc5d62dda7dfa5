//! The host side of ARM semihosting (QEMU `-semihosting-config enable=on,target=native`):
//! the command line, files, the console and the exit status. Each call is a `bkpt 0xab`
//! that QEMU answers; nothing else in the firmware talks to the host.

use cortex_m_semihosting::{debug, nr, syscall1};

/// A host file descriptor.
#[derive(Clone, Copy)]
pub struct HostFile(usize);

/// The host refused a call (open, write).
#[derive(Clone, Copy, Debug)]
pub struct HostError;

/// Opens `path` (NUL-terminated) on the host with semihosting mode `mode` (`nr::open::*`).
pub fn open(path: &[u8], mode: usize) -> Result<HostFile, HostError> {
    let Some((&0, name)) = path.split_last() else {
        return Err(HostError);
    };
    let block = [path.as_ptr() as usize, mode, name.len()];
    // SAFETY: SYS_OPEN reads the three words of `block` and the `name.len() + 1` bytes of
    // `path` (NUL included) they point to; both live until the call returns.
    let fd = unsafe { syscall1(nr::OPEN, block.as_ptr() as usize) };
    match fd as isize {
        -1 => Err(HostError),
        _ => Ok(HostFile(fd)),
    }
}

/// The console (QEMU's semihosting output).
pub fn console() -> Result<HostFile, HostError> {
    open(b":tt\0", nr::open::W_APPEND)
}

impl HostFile {
    /// Writes all of `bytes`, or fails.
    pub fn write_all(self, mut bytes: &[u8]) -> Result<(), HostError> {
        while !bytes.is_empty() {
            let block = [self.0, bytes.as_ptr() as usize, bytes.len()];
            // SAFETY: SYS_WRITE reads the three words of `block` and `bytes.len()` bytes
            // at `bytes`, which live until the call returns; it writes nothing here.
            let not_written = unsafe { syscall1(nr::WRITE, block.as_ptr() as usize) };
            let done = bytes
                .len()
                .checked_sub(not_written)
                .filter(|&d| d > 0)
                .ok_or(HostError)?;
            bytes = bytes.get(done..).ok_or(HostError)?;
        }
        Ok(())
    }

    /// Closes the file.
    pub fn close(self) -> Result<(), HostError> {
        let block = [self.0];
        // SAFETY: SYS_CLOSE reads the one word of `block`.
        match unsafe { syscall1(nr::CLOSE, block.as_ptr() as usize) } {
            0 => Ok(()),
            _ => Err(HostError),
        }
    }
}

/// The command line QEMU was given (`-semihosting-config ...,arg=A,arg=B`: `"A B"`), read
/// into `buf`.
pub fn cmdline(buf: &mut [u8]) -> Result<&[u8], HostError> {
    let mut block = [buf.as_mut_ptr() as usize, buf.len()];
    // SAFETY: SYS_GET_CMDLINE writes at most `buf.len()` bytes (NUL included) into `buf`
    // and the length into `block[1]`; both are exclusively borrowed for the call, and the
    // asm has no `nomem`, so the compiler reloads them afterwards.
    let r = unsafe { syscall1(nr::GET_CMDLINE, block.as_mut_ptr() as usize) };
    if r != 0 {
        return Err(HostError);
    }
    let len = block[1].min(buf.len());
    let line = buf.get(..len).ok_or(HostError)?;
    Ok(line.split(|&b| b == 0).next().unwrap_or(&[]))
}

/// Ends the emulation: QEMU exits 0 on success, 1 on failure.
pub fn exit(success: bool) -> ! {
    debug::exit(if success {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    // QEMU does not come back from the exit call; a debugger could.
    loop {
        cortex_m::asm::bkpt();
    }
}

/// Text lines to the console, numbers formatted by hand (no `core::fmt` in the image).
pub struct Line {
    buf: [u8; 96],
    len: usize,
}

impl Line {
    /// A line that starts with `agent: `.
    pub fn new() -> Self {
        let mut l = Line {
            buf: [0; 96],
            len: 0,
        };
        l.str("agent: ");
        l
    }

    /// Appends text (cut at the line's capacity).
    pub fn str(&mut self, s: &str) -> &mut Self {
        self.bytes(s.as_bytes())
    }

    /// Appends bytes (cut at the line's capacity).
    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        for &c in b {
            if let Some(slot) = self.buf.get_mut(self.len) {
                *slot = c;
                self.len += 1;
            }
        }
        self
    }

    /// Appends `v` in decimal (32-bit: no 64-bit division routine in the image).
    pub fn dec(&mut self, mut v: u32) -> &mut Self {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        for d in digits.iter_mut().rev() {
            *d = b'0' + (v % 10) as u8;
            i -= 1;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.bytes(digits.get(i..).unwrap_or(&[]))
    }

    /// Appends `v` as `0x` and lowercase hex.
    pub fn hex(&mut self, v: u64) -> &mut Self {
        self.str("0x");
        let mut started = false;
        for shift in (0..16).rev() {
            let d = ((v >> (shift * 4)) & 0xf) as u8;
            if d != 0 || started || shift == 0 {
                started = true;
                self.bytes(&[if d < 10 { b'0' + d } else { b'a' + d - 10 }]);
            }
        }
        self
    }

    /// Writes the line and a newline to the console; a console that fails is ignored
    /// (the exit status still tells the host).
    pub fn print(&mut self) {
        self.bytes(b"\n");
        if let Ok(c) = console() {
            let _ = c.write_all(self.buf.get(..self.len).unwrap_or(&[]));
        }
    }
}
