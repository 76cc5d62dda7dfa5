//! AUXTRACE_INFO records read as perf 6.1's trace decoders read them at setup: the values
//! in their private words that make perf refuse the file, read outside the record, or
//! divide by zero.

use crate::records::framing::header_type_and_size;
use crate::records::wire::error::ParseError;
use crate::Endian;
use perf_abi::auxtrace_priv as p;
use perf_abi::record_fields::{
    auxtrace_type_decoded, AUXTRACE_ARM_SPE, AUXTRACE_CS_ETM, AUXTRACE_HISI_PTT,
    AUXTRACE_INTEL_BTS, AUXTRACE_INTEL_PT,
};
use perf_abi::record_type;

const RECORD: &str = "AUXTRACE_INFO";

/// Where the private words start: the header, `u32 type`, `u32 reserved`.
const PRIV: usize = 16;

/// A value perf refuses the record for, or crashes on.
fn bad(field: &'static str, value: u64) -> ParseError {
    ParseError::BadValue {
        record: RECORD,
        field,
        value,
    }
}

/// A `PERF_RECORD_AUXTRACE_INFO` record whose settings perf 6.1's decoder for its trace
/// type reads without refusing the file or crashing, as far as the record alone says.
/// What it needs of the rest of the session is left to the caller:
/// [`pmu_type`](Self::pmu_type), [`needs_event`](Self::needs_event),
/// [`needs_event_ids`](Self::needs_event_ids), [`needs_time_conv`](Self::needs_time_conv).
///
/// ```
/// use perf_encode::records::ParsedAuxtraceInfo;
/// use perf_encode::Endian;
/// // An Arm SPE record: header, type 4, reserved, the PMU type and a word perf ignores.
/// let mut record = vec![70, 0, 0, 0, 0, 0, 32, 0, 4, 0, 0, 0, 0, 0, 0, 0];
/// record.extend_from_slice(&[8, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]);
/// let info = ParsedAuxtraceInfo::parse(&record, Endian::Little).unwrap();
/// assert_eq!((info.pmu_type(), info.needs_time_conv()), (Some(8), true));
/// // One word is too few for SPE.
/// record.truncate(24);
/// record[6] = 24;
/// assert!(ParsedAuxtraceInfo::parse(&record, Endian::Little).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedAuxtraceInfo<'a> {
    trace_type: u32,
    words: &'a [u8],
    endian: Endian,
}

impl<'a> ParsedAuxtraceInfo<'a> {
    /// Reads the AUXTRACE_INFO record `record` (its header first, `header.size` bytes of
    /// it) and checks what perf 6.1 reads of its private words at setup.
    ///
    /// # Errors
    ///
    /// [`ParseError::WrongType`] for another record type; [`ParseError::Truncated`] when
    /// `header.size` runs past the bytes, or the record has fewer private words than its
    /// trace type's decoder takes; [`ParseError::BadValue`] naming the field for a trace
    /// type perf has no decoder for and for a value perf refuses or divides by zero with
    /// (Intel PT and BTS: a time multiplier of 0 where perf divides by it, a maximum
    /// non-turbo ratio perf works out as 0; Intel PT: an address filter string perf
    /// refuses; CoreSight: a header or cpu block perf refuses or reads outside the
    /// record).
    pub fn parse(record: &'a [u8], endian: Endian) -> Result<Self, ParseError> {
        let truncated = |field, offset, available| ParseError::Truncated {
            record: RECORD,
            field,
            offset,
            available,
        };
        let head = record
            .first_chunk::<8>()
            .ok_or(truncated("header", 0, record.len()))?;
        let (type_, size) = header_type_and_size(endian, head);
        if type_ != record_type::AUXTRACE_INFO {
            return Err(ParseError::WrongType {
                expected: record_type::AUXTRACE_INFO,
                found: type_,
            });
        }
        let record =
            record
                .get(..usize::from(size))
                .ok_or(truncated("header.size", 0, record.len()))?;
        let trace_type = endian
            .u32_at(record, 8)
            .ok_or(truncated("type", 8, record.len()))?;
        let min = p::min_words(trace_type)
            .filter(|_| auxtrace_type_decoded(trace_type))
            .ok_or(bad("type", u64::from(trace_type)))?;
        let words = record
            .get(PRIV..)
            .ok_or(truncated("reserved", 12, record.len()))?;
        let info = ParsedAuxtraceInfo {
            trace_type,
            words,
            endian,
        };
        if info.word_count() < min {
            return Err(truncated("priv", PRIV, record.len()));
        }
        match trace_type {
            AUXTRACE_INTEL_PT => info.check_intel_pt()?,
            AUXTRACE_INTEL_BTS if info.low32(p::BTS_TIME_MULT) == 0 => {
                return Err(bad("priv: time_mult", info.word(p::BTS_TIME_MULT)));
            }
            AUXTRACE_CS_ETM => info.check_cs_etm()?,
            _ => {}
        }
        Ok(info)
    }

    /// The trace type (`PERF_AUXTRACE_*`).
    pub fn trace_type(&self) -> u32 {
        self.trace_type
    }

    /// Private words (whole `u64`s).
    pub fn word_count(&self) -> usize {
        self.words.len() / 8
    }

    /// Private word `i` (0 past the last).
    pub fn word(&self, i: usize) -> u64 {
        i.checked_mul(8)
            .and_then(|at| self.endian.u64_at(self.words, at))
            .unwrap_or(0)
    }

    fn low32(&self, i: usize) -> u32 {
        self.word(i) as u32
    }

    /// The `attr.type` of the events the decoder takes as the trace's (`None` for s390
    /// CPU-MF, which names none).
    pub fn pmu_type(&self) -> Option<u32> {
        match self.trace_type {
            AUXTRACE_INTEL_PT => Some(self.low32(p::PT_PMU_TYPE)),
            AUXTRACE_INTEL_BTS | AUXTRACE_ARM_SPE | AUXTRACE_HISI_PTT => {
                Some(self.low32(p::PMU_TYPE))
            }
            AUXTRACE_CS_ETM => Some((self.word(p::CS_ETM_PMU_TYPE_CPUS) >> 32) as u32),
            _ => None,
        }
    }

    /// perf refuses the file unless an event of [`pmu_type`](Self::pmu_type) is described
    /// (CoreSight).
    pub fn needs_event(&self) -> bool {
        self.trace_type == AUXTRACE_CS_ETM
    }

    /// perf crashes unless the first event of [`pmu_type`](Self::pmu_type), when there is
    /// one, has ids (Arm SPE, CoreSight: it reads the first).
    pub fn needs_event_ids(&self) -> bool {
        matches!(self.trace_type, AUXTRACE_ARM_SPE | AUXTRACE_CS_ETM)
    }

    /// perf's decoder fails unless it reads the file in time order: in a file, only when
    /// the first event has `sample_id_all` (every decoder but HiSilicon PTT's).
    pub fn needs_ordered(&self) -> bool {
        self.trace_type != AUXTRACE_HISI_PTT
    }

    /// perf gives the events it synthesizes from the trace the ids from the first id of
    /// the first event of [`pmu_type`](Self::pmu_type) with ids, plus
    /// [`SYNTH_ID_OFFSET`](perf_abi::auxtrace_priv::SYNTH_ID_OFFSET) (Intel PT and BTS, Arm
    /// SPE, CoreSight): an event with one of those ids is taken for one of them.
    pub fn synthesizes(&self) -> bool {
        matches!(
            self.trace_type,
            AUXTRACE_INTEL_PT | AUXTRACE_INTEL_BTS | AUXTRACE_ARM_SPE | AUXTRACE_CS_ETM
        )
    }

    /// The context switch records (SWITCH, SWITCH_CPU_WIDE) perf's decoder keeps a cpu's
    /// current thread from, and so refuses without a cpu: Intel PT a host's switch in (and
    /// out, when its switches were recorded CPU-wide, `have_sched_switch` 3); Arm SPE a
    /// switch out, a guest's too (when it decodes with timestamps). The others it ignores.
    pub fn switches_needing_cpu(&self) -> SwitchesNeedingCpu {
        match self.trace_type {
            AUXTRACE_INTEL_PT => SwitchesNeedingCpu {
                host_in: true,
                host_out: self.needs_cpu_wide_switches(),
                guest_out: false,
            },
            AUXTRACE_ARM_SPE => SwitchesNeedingCpu {
                host_in: false,
                host_out: true,
                guest_out: true,
            },
            _ => SwitchesNeedingCpu::default(),
        }
    }

    /// perf's decoder also keeps each cpu's current thread from ITRACE_START records, and
    /// refuses one without a cpu (Intel PT recorded with one mmap per cpu; perf reads that
    /// word past a record of nine, so such a record counts as one).
    pub fn needs_itrace_start_cpu(&self) -> bool {
        self.trace_type == AUXTRACE_INTEL_PT
            && (self.word_count() <= p::PT_PER_CPU_MMAPS || self.word(p::PT_PER_CPU_MMAPS) != 0)
    }

    /// Intel PT recorded context switches from CPU-wide switch events (`have_sched_switch`
    /// 3): perf refuses a per-cpu SWITCH out.
    pub fn needs_cpu_wide_switches(&self) -> bool {
        self.trace_type == AUXTRACE_INTEL_PT && self.low32(p::PT_HAVE_SCHED_SWITCH) as i32 == 3
    }

    /// Intel PT: perf's decoder takes every AUX_OUTPUT_HW_ID record into the AUXTRACE queue
    /// of its sample id, and fails on one whose queue holds no trace (or whose hardware id
    /// it keeps no place for).
    pub fn takes_aux_output_hw_id(&self) -> bool {
        self.trace_type == AUXTRACE_INTEL_PT
    }

    /// Intel PT: perf keeps a guest's current thread by its virtual cpu, which a record
    /// never has, and refuses a guest's context switch in.
    pub fn refuses_guest_switch_in(&self) -> bool {
        self.trace_type == AUXTRACE_INTEL_PT
    }

    /// The event an Intel PT trace's context switches need (its `have_sched_switch`, a C
    /// `int`): perf refuses the file without one.
    pub fn needs_switch_event(&self) -> Option<SwitchEvent> {
        if self.trace_type != AUXTRACE_INTEL_PT {
            return None;
        }
        match self.low32(p::PT_HAVE_SCHED_SWITCH) as i32 {
            1 => Some(SwitchEvent::SchedSwitch),
            2 => Some(SwitchEvent::ContextSwitch),
            _ => None,
        }
    }

    /// perf takes its time conversion from the last TIME_CONV record before this one, and
    /// divides by its multiplier once a record has a time (Arm SPE).
    pub fn needs_time_conv(&self) -> bool {
        self.trace_type == AUXTRACE_ARM_SPE
    }

    fn check_intel_pt(&self) -> Result<(), ParseError> {
        let mult = self.low32(p::PT_TIME_MULT);
        if mult == 0 && self.word(p::PT_CAP_USER_TIME_ZERO) != 0 && self.word(p::PT_TSC_BIT) != 0 {
            // Decoded with timestamps (as its events may be), perf divides by it.
            return Err(bad("priv: time_mult", self.word(p::PT_TIME_MULT)));
        }
        // Without a ratio of its own, perf works out the maximum non-turbo ratio from the
        // time conversion (a multiplier of 0 is taken as 1), and divides by it.
        let has_ratio = self.word_count() > p::PT_MAX_NON_TURBO_RATIO
            && self.low32(p::PT_MAX_NON_TURBO_RATIO) != 0;
        if !has_ratio && pt_non_turbo_ratio(mult.max(1), self.word(p::PT_TIME_SHIFT)) == 0 {
            let field = "priv: time_mult (with time_shift, a TSC under 50 MHz)";
            return Err(bad(field, self.word(p::PT_TIME_MULT)));
        }
        if self.word_count() <= p::PT_FILTER_STR_LEN {
            return Ok(());
        }
        let len = self.word(p::PT_FILTER_STR_LEN);
        if len == 0 {
            return Ok(());
        }
        let bad_filter = bad("priv: filter string (its length)", len);
        // perf reads the string padded with NULs to a multiple of 8 bytes.
        let padded = len
            .checked_add(1)
            .and_then(|n| n.checked_next_multiple_of(8))
            .and_then(|n| usize::try_from(n).ok())
            .ok_or(bad_filter)?;
        let start = (p::PT_FILTER_STR_LEN + 1) * 8;
        let text = self
            .words
            .get(start..)
            .and_then(|rest| rest.get(..padded))
            .ok_or(bad_filter)?;
        match text.split_last() {
            Some((0, _)) => {}
            _ => return Err(bad_filter),
        }
        // perf on a little-endian machine swaps every private word of a big-endian file,
        // then its copy of the string back, but parses the string it swapped.
        let text = FilterText {
            bytes: text,
            swapped: self.endian == Endian::Big,
        };
        match address_filters_parse(text) {
            true => Ok(()),
            false => Err(bad_filter),
        }
    }

    fn check_cs_etm(&self) -> Result<(), ParseError> {
        let version = self.word(p::CS_ETM_HEADER_VERSION);
        if version > p::CS_ETM_HEADER_VERSION_MAX {
            return Err(bad("priv: header version", version));
        }
        // perf reads the count as a C int, and needs every private word in a block.
        if self.words.len() % 8 != 0 {
            return Err(bad("size", self.words.len() as u64));
        }
        let count = self.word(p::CS_ETM_PMU_TYPE_CPUS) as u32;
        let cpus = usize::try_from(count as i32)
            .ok()
            .filter(|&n| n <= self.word_count())
            .ok_or(bad("priv: cpus", u64::from(count)))?;
        let mut at = p::CS_ETM_HEADER_WORDS;
        for j in 0..cpus {
            let (len, trace_id) = self.cs_etm_block(version, at)?;
            let end = at
                .checked_add(len)
                .filter(|&e| e <= self.word_count())
                .ok_or(bad(
                    "priv: cpu block running past the record (its words)",
                    len as u64,
                ))?;
            // Each block's trace id (a C int) must be its own.
            let mut earlier = p::CS_ETM_HEADER_WORDS;
            for _ in 0..j {
                let (len, id) = self.cs_etm_block(version, earlier)?;
                if id as i32 == trace_id as i32 {
                    return Err(bad("priv: cpu block trace id", trace_id));
                }
                earlier = earlier.saturating_add(len);
            }
            at = end;
        }
        if at != self.word_count() {
            let extra = self.word_count().saturating_sub(at) as u64;
            return Err(bad("priv: words after the cpu blocks", extra));
        }
        Ok(())
    }

    /// The CoreSight cpu block at word `at` of a header of `version`: its words and its
    /// trace id.
    fn cs_etm_block(&self, version: u64, at: usize) -> Result<(usize, u64), ParseError> {
        let magic = self.word(at.saturating_add(p::CS_ETM_BLOCK_MAGIC));
        let word = |i: usize| self.word(at.saturating_add(i));
        match (version, magic) {
            // Version 0 has no parameter count: the trace id is a word earlier.
            (0, p::CS_ETM_MAGIC_ETMV3) => {
                Ok((p::CS_ETM_V0_ETMV3_WORDS, word(p::CS_ETM_BLOCK_TRACE_ID - 1)))
            }
            (0, p::CS_ETM_MAGIC_ETMV4) => {
                Ok((p::CS_ETM_V0_ETMV4_WORDS, word(p::CS_ETM_BLOCK_TRACE_ID - 1)))
            }
            // perf takes a version 0 ETE block as its magic alone, of trace id 0.
            (0, p::CS_ETM_MAGIC_ETE) => Ok((1, 0)),
            (1, p::CS_ETM_MAGIC_ETMV3 | p::CS_ETM_MAGIC_ETMV4 | p::CS_ETM_MAGIC_ETE) => {
                let nr = word(p::CS_ETM_BLOCK_NR_TRC_PARAMS) as u32;
                // perf reads it as a C int: a negative count reads before the block.
                let nr = usize::try_from(nr as i32)
                    .map_err(|_| bad("priv: cpu block parameters", u64::from(nr)))?;
                let len = p::CS_ETM_V1_COMMON_WORDS.saturating_add(nr);
                let id = match len > p::CS_ETM_BLOCK_TRACE_ID {
                    true => word(p::CS_ETM_BLOCK_TRACE_ID),
                    false => 0,
                };
                Ok((len, id))
            }
            _ => Err(bad("priv: cpu block magic", magic)),
        }
    }
}

/// Which context switch records a trace decoder keeps a cpu's current thread from
/// ([`ParsedAuxtraceInfo::switches_needing_cpu`]): each needs a cpu.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SwitchesNeedingCpu {
    /// A host's switch in.
    pub host_in: bool,
    /// A host's switch out.
    pub host_out: bool,
    /// A guest's switch out (a guest's switch in is judged apart:
    /// [`ParsedAuxtraceInfo::refuses_guest_switch_in`]).
    pub guest_out: bool,
}

/// The event an Intel PT trace needs for the context switches it recorded (see
/// [`ParsedAuxtraceInfo::needs_switch_event`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwitchEvent {
    /// A tracepoint named `sched:sched_switch`.
    SchedSwitch,
    /// An event with `context_switch` in its attr.
    ContextSwitch,
}

impl SwitchEvent {
    /// The name of the tracepoint of [`SwitchEvent::SchedSwitch`]: perf takes the last
    /// event of this name.
    pub const SCHED_SWITCH_NAME: &'static str = "sched:sched_switch";
}

/// perf's maximum non-turbo ratio from a time conversion (`mult` not 0): the TSC
/// frequency (1 s in TSC ticks) over 100 MHz, rounded, as perf's `unsigned int` (x86
/// shifts by the shift's low 6 bits).
fn pt_non_turbo_ratio(mult: u32, shift: u64) -> u32 {
    let mult = u64::from(mult);
    let shift = (shift as u16 % 64) as u32;
    let second: u64 = 1_000_000_000;
    let (quot, rem) = (
        second.checked_div(mult).unwrap_or(0),
        second.checked_rem(mult).unwrap_or(0),
    );
    let tsc = quot
        .wrapping_shl(shift)
        .wrapping_add(rem.wrapping_shl(shift).checked_div(mult).unwrap_or(0));
    (tsc.wrapping_add(50_000_000) / 100_000_000) as u32
}

/// perf reads `text` as address filters: each an action (`filter`, `start`, `stop`,
/// `tracestop`), an address or symbol (a symbol may take `#` and an index, or `#g`), an
/// optional `/` and size or symbol, and an optional `@` and file name, separated by spaces
/// and commas. Numbers are read as C's `strtoull` reads them (decimal, `0x` hex, `0` octal),
/// and where one ends the next part starts, as in perf.
fn address_filters_parse(text: FilterText<'_>) -> bool {
    let mut s = Cursor { text, at: 0 };
    while s.peek().is_some() {
        if !one_filter(&mut s) {
            return false;
        }
    }
    true
}

/// A filter string as perf parses it: its bytes, each 8 reversed when `swapped`, up to
/// the first NUL.
#[derive(Clone, Copy)]
struct FilterText<'a> {
    bytes: &'a [u8],
    swapped: bool,
}

impl FilterText<'_> {
    fn get(&self, i: usize) -> Option<u8> {
        let at = match self.swapped {
            true => i ^ 7,
            false => i,
        };
        self.bytes.get(at).copied().filter(|&b| b != 0)
    }

    /// Bytes `start..end` of the string are `want`.
    fn is(&self, start: usize, end: usize, want: &[u8]) -> bool {
        end.checked_sub(start) == Some(want.len())
            && want
                .iter()
                .enumerate()
                .all(|(k, &c)| self.get(start.saturating_add(k)) == Some(c))
    }
}

struct Cursor<'a> {
    text: FilterText<'a>,
    at: usize,
}

impl Cursor<'_> {
    fn advance(&mut self, n: usize) {
        self.at = self.at.saturating_add(n);
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at)
    }

    fn skip(&mut self, set: &[u8]) {
        while self.peek().is_some_and(|c| set.contains(&c)) {
            self.advance(1);
        }
    }

    /// A word ending at one of `delims` (or the end), and the delimiter after it: where it
    /// starts and ends.
    fn word(&mut self, delims: &[u8]) -> Option<(usize, usize)> {
        let start = self.at;
        while self.peek().is_some_and(|c| !delims.contains(&c)) {
            self.advance(1);
        }
        let end = self.at;
        if self.peek().is_some() {
            self.advance(1);
        }
        (end > start).then_some((start, end))
    }

    /// C's `strtoull` (or, `signed`, `strtoul` after the whitespace and sign it takes) in
    /// base 0 from the cursor: the value (wrapped when negative), `None` without digits or
    /// past `u64` (perf refuses both).
    fn c_number(&mut self, signed: bool) -> Option<u64> {
        let mut negative = false;
        if signed {
            self.skip(b" \t\n\x0b\x0c\r");
            match self.peek() {
                Some(b'-') => {
                    negative = true;
                    self.advance(1);
                }
                Some(b'+') => self.advance(1),
                _ => {}
            }
        }
        let at = |k: usize| self.text.get(self.at.saturating_add(k));
        let (radix, skip) = match (at(0), at(1), at(2)) {
            (Some(b'0'), Some(b'x' | b'X'), Some(d)) if d.is_ascii_hexdigit() => (16, 2),
            // "0x" without a hex digit is the number 0, then the "x".
            (Some(b'0'), _, _) => (8, 1),
            (Some(d), _, _) if d.is_ascii_digit() => (10, 0),
            _ => return None,
        };
        self.advance(skip);
        let mut value: u64 = 0;
        while let Some(d) = self.peek().and_then(|c| (c as char).to_digit(radix)) {
            value = value
                .checked_mul(u64::from(radix))?
                .checked_add(u64::from(d))?;
            self.advance(1);
        }
        Some(match negative {
            true => value.wrapping_neg(),
            false => value,
        })
    }
}

fn one_filter(s: &mut Cursor<'_>) -> bool {
    s.skip(b" ");
    if s.peek().is_some_and(|c| c.is_ascii_digit()) {
        return false;
    }
    let Some((start, end)) = s.word(b" ") else {
        return false;
    };
    let actions: [&[u8]; 4] = [b"filter", b"start", b"stop", b"tracestop"];
    if !actions.iter().any(|a| s.text.is(start, end, a)) {
        return false;
    }
    if !address(s) {
        return false;
    }
    s.skip(b" ");
    if s.peek() == Some(b'/') {
        s.advance(1);
        if !address(s) {
            return false;
        }
    }
    s.skip(b" ");
    if s.peek() == Some(b'@') {
        s.advance(1);
        s.skip(b" ");
        if s.peek().is_some_and(|c| c.is_ascii_digit()) || s.word(b" ,").is_none() {
            return false;
        }
    }
    s.skip(b" ,");
    true
}

/// An address or size: a number, or a symbol (a word to the next space) with an optional
/// `#` index (`g`, or a number up to `INT_MAX`).
fn address(s: &mut Cursor<'_>) -> bool {
    s.skip(b" ");
    if s.peek().is_some_and(|c| c.is_ascii_digit()) {
        return s.c_number(false).is_some();
    }
    if s.word(b" ").is_none() {
        return false;
    }
    s.skip(b" ");
    if s.peek() != Some(b'#') {
        return true;
    }
    s.advance(1);
    if matches!(s.peek(), Some(b'g' | b'G')) {
        s.advance(1);
        return true;
    }
    s.c_number(true).is_some_and(|v| v <= i32::MAX as u64)
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // test arithmetic on small known values
mod tests {
    use super::*;

    fn info(trace_type: u32, words: &[u64]) -> [u8; 512] {
        let mut r = [0u8; 512];
        let len = 16 + words.len() * 8;
        r[..4].copy_from_slice(&70u32.to_le_bytes());
        r[6..8].copy_from_slice(&(len as u16).to_le_bytes());
        r[8..12].copy_from_slice(&trace_type.to_le_bytes());
        for (i, w) in words.iter().enumerate() {
            r[16 + i * 8..24 + i * 8].copy_from_slice(&w.to_le_bytes());
        }
        r
    }

    fn parses(trace_type: u32, words: &[u64]) -> bool {
        ParsedAuxtraceInfo::parse(&info(trace_type, words), Endian::Little).is_ok()
    }

    #[test]
    fn pt_settings_perf_divides_by() {
        // All zero: decoded without timestamps, the multiplier taken as 1.
        assert!(parses(1, &[0; 9]));
        // perf's own values.
        let real = [
            8,
            31,
            858_993_459,
            0x0fff_e123_4567,
            1,
            0x400,
            0x800,
            0,
            0,
            1,
        ];
        assert!(parses(1, &real));
        // A multiplier of 0 with timestamps on.
        let mut w = real;
        w[2] = 0;
        assert!(!parses(1, &w));
        // A ratio worked out as 0 (a TSC under 50 MHz), unless the record gives one.
        assert!(!parses(1, &[0, 0, 21, 0, 0, 0, 0, 0, 0]));
        assert!(parses(1, &[0, 0, 20, 0, 0, 0, 0, 0, 0]));
        let mut w = [0u64; 16];
        w[2] = 100;
        assert!(!parses(1, &w));
        w[15] = 25;
        assert!(parses(1, &w));
        // Shifts by their low 6 bits: 55 with the multiplier 1 makes the TSC wrap to 0.
        assert!(!parses(1, &[0, 119, 0, 0, 0, 0, 0, 0, 0]));
        assert!(parses(1, &[0, 54, 0, 0, 0, 0, 0, 0, 0]));
        // Too few words.
        assert!(!parses(1, &[0; 8]));
    }

    #[test]
    fn pt_filter_strings() {
        let with_filter = |text: &[u8], len: u64| {
            let mut w = [0u64; 17 + 8].to_vec();
            w[16] = len;
            let mut bytes = [0u8; 64];
            bytes[..text.len()].copy_from_slice(text);
            for (i, c) in bytes.chunks(8).enumerate() {
                w[17 + i] = u64::from_le_bytes(c.try_into().unwrap());
            }
            parses(1, &w)
        };
        assert!(with_filter(b"filter 0x1000/0x100", 19));
        assert!(with_filter(b"start main @ /bin/ls, stop exit", 31));
        assert!(with_filter(b"filter func #2/0x20", 19));
        // C's strtoul for an index: whitespace, a sign, any base; a number's end starts
        // the next part.
        assert!(with_filter(b"filter f # +0x10", 16));
        assert!(with_filter(b"filter f #0", 11));
        assert!(!with_filter(b"filter f #-1", 12));
        assert!(!with_filter(b"filter f #", 10));
        assert!(with_filter(b"filter 10start 0x10", 19));
        assert!(!with_filter(b"filter 08", 9));
        assert!(!with_filter(b"filter 99999999999999999999", 27));
        assert!(with_filter(b"", 0));
        assert!(!with_filter(b"filter", 6));
        assert!(!with_filter(b"jump 0x10", 9));
        assert!(!with_filter(b"filter 0x", 9));
        assert!(!with_filter(b"filter 0x10 @ 5", 15));
        // Past the record, and the length that wraps.
        assert!(!with_filter(b"filter 0x10", 64));
        assert!(!with_filter(b"filter 0x10", u64::MAX));
        // Not NUL-terminated within its padding.
        assert!(!with_filter(b"filter 0x1000/0x100 12345", 15));
    }

    #[test]
    fn bts_and_the_types_of_one_word() {
        assert!(!parses(2, &[0; 5]));
        assert!(parses(2, &[7, 31, 1, 0, 1]));
        assert!(!parses(2, &[7, 31, 1, 0]));
        assert!(parses(4, &[8, 0]));
        assert!(!parses(4, &[8]));
        assert!(parses(5, &[]));
        assert!(parses(6, &[1]));
        assert!(!parses(6, &[]));
        assert!(!parses(0, &[0; 9]));
        assert!(!parses(7, &[0; 9]));
    }

    #[test]
    fn cs_etm_blocks() {
        const V4: u64 = p::CS_ETM_MAGIC_ETMV4;
        let one_cpu = 1 << 32 | 1;
        let block = |id| [V4, 0, 7, 0x1000, id, 0x28000ea1, 0x4100f403, 0x88, 0, 0];
        assert!(parses(3, &[1, 1 << 32, 0]));
        let mut w = alloc::vec![1, one_cpu, 0];
        w.extend(block(0x10));
        assert!(parses(3, &w));
        // Two cpus: their trace ids must differ.
        let mut two = alloc::vec![1, 1 << 32 | 2, 0];
        two.extend(block(0x10));
        two.extend(block(0x12));
        assert!(parses(3, &two));
        two[3 + 10 + 4] = 0x10;
        assert!(!parses(3, &two));
        // A word past the blocks, a block cut short, a count past them, a bad magic.
        let mut extra = w.clone();
        extra.push(0);
        assert!(!parses(3, &extra));
        assert!(!parses(3, &w[..w.len() - 1]));
        let mut many = w.clone();
        many[1] = 1 << 32 | 0x7fff_ffff;
        assert!(!parses(3, &many));
        let mut bad = w.clone();
        bad[3] = 0x6060_6060_6060_6060;
        assert!(!parses(3, &bad));
        // A parameter count that reads far outside, or before, the record.
        let mut far = w.clone();
        far[5] = 0x1000_0000;
        assert!(!parses(3, &far));
        far[5] = u64::from(u32::MAX);
        assert!(!parses(3, &far));
        // Version 0: blocks of fixed length; no ETE.
        let v0 = [0, one_cpu, 0, V4, 0, 0x1000, 0x10, 1, 2, 3, 4, 5];
        assert!(parses(3, &v0));
        assert!(parses(3, &[0, one_cpu, 0, p::CS_ETM_MAGIC_ETE]));
        assert!(!parses(3, &[2, 1 << 32, 0]));
    }

    #[test]
    fn never_panics_on_cut_or_wrong_records() {
        let r = info(3, &[1, 1 << 32 | 3, 0, 0x4040_4040_4040_4040, 0, u64::MAX]);
        for len in 0..r.len() {
            let _ = ParsedAuxtraceInfo::parse(&r[..len], Endian::Little);
            let _ = ParsedAuxtraceInfo::parse(&r[..len], Endian::Big);
        }
    }
}
