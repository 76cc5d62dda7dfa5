//! Stack painting: fill the unused stack with a pattern, run, and find the lowest word the
//! pattern no longer holds. The stack is cortex-m-rt's: from `_stack_start` (top of RAM)
//! down to `_stack_end` (the end of the static data).

const PAINT: u32 = 0x5a5a_a5a5;

extern "C" {
    static _stack_start: u32;
    static _stack_end: u32;
}

/// Top of the stack (the initial stack pointer).
pub fn top() -> usize {
    (&raw const _stack_start) as usize
}

/// Lowest address the stack may reach.
pub fn bottom() -> usize {
    (&raw const _stack_end) as usize
}

/// Paints the stack below the current stack pointer (less a margin for this function's
/// own frame) and returns that stack pointer: [`used_below`] measures from it.
#[inline(never)]
pub fn paint() -> usize {
    let sp = cortex_m::register::msp::read() as usize;
    let end = sp.saturating_sub(32) & !3;
    let mut p = bottom();
    while p < end {
        // SAFETY: `p` is a word-aligned address between the end of the static data and
        // 32 bytes below the stack pointer: memory nothing uses (no interrupt is enabled),
        // inside the RAM region of memory.x.
        unsafe { core::ptr::write_volatile(p as *mut u32, PAINT) };
        p += 4;
    }
    sp
}

/// Bytes of stack used below `sp` (a [`paint`] result) since it was painted.
#[inline(never)]
pub fn used_below(sp: usize) -> usize {
    let mut p = bottom();
    // SAFETY: reads word-aligned addresses of the stack region (inside RAM), below `sp`.
    while p < sp && unsafe { core::ptr::read_volatile(p as *const u32) } == PAINT {
        p += 4;
    }
    sp.saturating_sub(p)
}
