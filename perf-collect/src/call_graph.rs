//! Call stacks, as `perf record -g` and `--call-graph dwarf` take them: [`CallGraph`].
//!
//! With frame pointers (`-g`, `--call-graph fp`) the kernel walks the stack itself and
//! writes the return addresses in each SAMPLE (`PERF_SAMPLE_CALLCHAIN`): cheap, and right
//! for code built with frame pointers. With `dwarf` it copies the user registers and the
//! top of the user stack into each SAMPLE (`PERF_SAMPLE_REGS_USER`, `PERF_SAMPLE_STACK_USER`)
//! for perf to unwind afterwards with the binaries' CFI (code without frame pointers), and
//! walks only the kernel's part itself (`exclude_callchain_user`).

use tracepoint_decode::PerfEventAttrSampleType as S;

/// User stack bytes copied per sample by `--call-graph dwarf` without a size (perf's
/// default).
pub const DEFAULT_DWARF_STACK: u32 = 8192;

/// The most user stack bytes a sample may copy: a record's size is a `u16`, and the kernel
/// takes only multiples of 8 below `u16::MAX` (perf's limit too).
pub const MAX_DWARF_STACK: u32 = 65528;

/// How call stacks are recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallGraph {
    /// The kernel follows the frame pointers (`-g`).
    FramePointer,
    /// The user registers and `stack_bytes` of the user stack go into each sample, for
    /// perf to unwind with DWARF CFI.
    Dwarf {
        /// Bytes of user stack per sample (a multiple of 8).
        stack_bytes: u32,
    },
}

/// The user registers `--call-graph dwarf` asks for: the ones perf's unwinder reads on this
/// architecture (`PERF_REGS_MASK` of perf's `arch/*/include/perf_regs.h`), `None` where
/// perf-collect does not know them.
#[cfg(target_arch = "x86_64")]
pub const USER_REGS: Option<u64> = Some(0x00ff_0fff); // AX..SS (0-11) and R8..R15 (16-23)
/// See the x86-64 definition.
#[cfg(target_arch = "aarch64")]
pub const USER_REGS: Option<u64> = Some((1 << 33) - 1); // X0..X30, SP, PC
/// See the x86-64 definition.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub const USER_REGS: Option<u64> = None;

impl CallGraph {
    /// Parses `--call-graph`'s value: `fp`, `dwarf` or `dwarf,SIZE` (bytes, rounded up to a
    /// multiple of 8, from 8 to [`MAX_DWARF_STACK`]).
    ///
    /// # Errors
    /// What the option takes, in words.
    ///
    /// ```
    /// use perf_collect::call_graph::CallGraph;
    /// assert_eq!(CallGraph::parse("dwarf,1000"), Ok(CallGraph::Dwarf { stack_bytes: 1000 }));
    /// assert_eq!(CallGraph::parse("dwarf,1001"), Ok(CallGraph::Dwarf { stack_bytes: 1008 }));
    /// assert!(CallGraph::parse("lbr").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<CallGraph, String> {
        let refuse = || {
            format!(
                "give fp, dwarf or dwarf,SIZE (SIZE: bytes of user stack per sample, 8 to {MAX_DWARF_STACK})"
            )
        };
        let (mode, size) = match text.trim().split_once(',') {
            Some((mode, size)) => (mode, Some(size)),
            None => (text.trim(), None),
        };
        match (mode, size) {
            ("fp", None) => Ok(CallGraph::FramePointer),
            ("dwarf", None) => Ok(CallGraph::Dwarf {
                stack_bytes: DEFAULT_DWARF_STACK,
            }),
            ("dwarf", Some(size)) => {
                let bytes: u32 = size.trim().parse().map_err(|_| refuse())?;
                let rounded = bytes.checked_next_multiple_of(8).ok_or_else(refuse)?;
                match (8..=MAX_DWARF_STACK).contains(&rounded) {
                    true => Ok(CallGraph::Dwarf {
                        stack_bytes: rounded,
                    }),
                    false => Err(refuse()),
                }
            }
            _ => Err(refuse()),
        }
    }

    /// The `sample_type` bits a sampled event gets.
    pub fn sample_bits(self) -> S {
        match self {
            CallGraph::FramePointer => S::Callchain,
            CallGraph::Dwarf { .. } => S::Callchain.or(S::RegsUser).or(S::StackUser),
        }
    }

    /// `sample_regs_user` and `sample_stack_user` (zero with frame pointers).
    pub fn user_dump(self) -> (u64, u32) {
        match self {
            CallGraph::FramePointer => (0, 0),
            CallGraph::Dwarf { stack_bytes } => (USER_REGS.unwrap_or(0), stack_bytes),
        }
    }

    /// True when the kernel leaves the user part of the call chain out (perf unwinds it).
    pub fn excludes_user_chain(self) -> bool {
        matches!(self, CallGraph::Dwarf { .. })
    }

    /// True when perf needs the processes' readable data mappings too: its DWARF
    /// unwinder reads the CFI (`.eh_frame`, `.eh_frame_hdr`) from the read-only segment,
    /// not the executable one.
    pub fn needs_data_mappings(self) -> bool {
        matches!(self, CallGraph::Dwarf { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_and_sizes() {
        assert_eq!(CallGraph::parse("fp"), Ok(CallGraph::FramePointer));
        assert_eq!(
            CallGraph::parse("dwarf"),
            Ok(CallGraph::Dwarf {
                stack_bytes: DEFAULT_DWARF_STACK
            })
        );
        assert_eq!(
            CallGraph::parse("dwarf,65528"),
            Ok(CallGraph::Dwarf {
                stack_bytes: MAX_DWARF_STACK
            })
        );
        assert_eq!(
            CallGraph::parse("dwarf,1"),
            Ok(CallGraph::Dwarf { stack_bytes: 8 })
        );
        for bad in [
            "",
            "dwarf,",
            "dwarf,0",
            "dwarf,65529",
            "dwarf,-8",
            "dwarf,x",
            "fp,8",
            "lbr",
        ] {
            assert!(
                CallGraph::parse(bad).unwrap_err().contains("fp, dwarf"),
                "{bad}"
            );
        }
        let dwarf = CallGraph::Dwarf { stack_bytes: 4096 };
        assert_eq!(dwarf.user_dump().1, 4096);
        assert!(dwarf.excludes_user_chain() && !CallGraph::FramePointer.excludes_user_chain());
        assert_eq!(CallGraph::FramePointer.sample_bits(), S::Callchain);
    }
}
