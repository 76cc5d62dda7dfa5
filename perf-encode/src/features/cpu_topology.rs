//! `HEADER_CPU_TOPOLOGY`: which CPUs share a package, a die and a core, and each CPU's ids.

use crate::features::count::count_u32;
use crate::{Encode, EncodeError, Encoder, Output, StringList};

/// The ids of one CPU, as `/sys/devices/system/cpu/cpuN/topology/` gives them: `core_id`,
/// `physical_package_id` and `die_id`. perf writes `-1` for an id it could not read (an
/// offline CPU).
///
/// ```
/// let cpu = perf_encode::features::CpuTopologyEntry { core_id: 1, socket_id: 0, die_id: 0 };
/// assert_eq!(cpu, perf_encode::features::CpuTopologyEntry { core_id: 1, ..Default::default() });
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CpuTopologyEntry {
    /// `core_id`.
    pub core_id: i32,
    /// `physical_package_id` (perf calls it the socket).
    pub socket_id: i32,
    /// `die_id` (written only when the topology has die lists).
    pub die_id: i32,
}

impl CpuTopologyEntry {
    /// The ids of a CPU whose topology could not be read.
    pub const UNKNOWN: CpuTopologyEntry = CpuTopologyEntry {
        core_id: -1,
        socket_id: -1,
        die_id: -1,
    };
}

/// The CPU_TOPOLOGY payload: string list of the distinct `package_cpus_list` values
/// ("sibling sockets"), string list of the distinct `core_cpus_list` values ("sibling
/// threads"), `{i32 core_id, i32 socket_id}` for each CPU, then, when `die_cpus` is not
/// empty, the string list of distinct `die_cpus_list` values ("sibling dies") and `i32
/// die_id` for each CPU.
///
/// perf reads one id pair per CPU of NRCPUS' `available` count, so `cpus` must have that
/// many entries (CPU 0 first). perf 6.1 writes die lists on x86_64 and s390x only.
///
/// ```
/// use perf_encode::features::{CpuTopology, CpuTopologyEntry};
/// let cpus = [
///     CpuTopologyEntry { core_id: 0, socket_id: 0, die_id: 0 },
///     CpuTopologyEntry { core_id: 1, socket_id: 0, die_id: 0 },
/// ];
/// let t = CpuTopology { package_cpus: &["0-1"], core_cpus: &["0", "1"], die_cpus: &["0-1"], cpus: &cpus };
/// let v = perf_encode::to_vec(&t, perf_encode::Endian::Little).unwrap();
/// assert_eq!(v.len(), (4 + 68) + (4 + 2 * 68) + 2 * 8 + (4 + 68) + 2 * 4);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct CpuTopology<'a, S: AsRef<[u8]>> {
    /// Distinct `package_cpus_list` (or `core_siblings_list`) values, in first-seen order.
    pub package_cpus: &'a [S],
    /// Distinct `core_cpus_list` (or `thread_siblings_list`) values, in first-seen order.
    pub core_cpus: &'a [S],
    /// Distinct `die_cpus_list` values; empty writes no die section.
    pub die_cpus: &'a [S],
    /// The ids of CPU 0, 1, … up to NRCPUS' `available`.
    pub cpus: &'a [CpuTopologyEntry],
}

impl<S: AsRef<[u8]>> Encode for CpuTopology<'_, S> {
    fn encode<O: Output + ?Sized>(&self, enc: &mut Encoder<'_, O>) -> Result<(), EncodeError> {
        count_u32("topology CPUs", self.cpus.len())?;
        enc.encode(&StringList::new(self.package_cpus))?;
        enc.encode(&StringList::new(self.core_cpus))?;
        for cpu in self.cpus {
            enc.i32(cpu.core_id)?;
            enc.i32(cpu.socket_id)?;
        }
        if self.die_cpus.is_empty() {
            return Ok(());
        }
        enc.encode(&StringList::new(self.die_cpus))?;
        self.cpus.iter().try_for_each(|cpu| enc.i32(cpu.die_id))
    }
}
