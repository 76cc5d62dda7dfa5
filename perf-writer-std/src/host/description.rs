//! [`HostDescription`]: what `perf record` says about the machine (uname, `/proc`, `/sys`),
//! read the way perf 6.1 reads it.

use perf_abi::{feature, NrCpus};
use perf_encode::features::{
    CacheLevel, CpuCaches, CpuPmuCaps, CpuTopology, CpuTopologyEntry, HybridNode, HybridTopology,
    MemTopology, MemoryNode, NumaNode, NumaTopology, PmuCap, PmuCaps, PmuCapsEntry, PmuMapping,
    PmuMappings, TotalMem,
};
use perf_encode::{HeaderString, StringList};
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// How many `cpuN/cache/indexM` directories perf looks at per CPU (`MAX_CACHE_LVL`).
const MAX_CACHE_INDEX: u32 = 4;

/// The longest capability line perf reads (`fgets` into 128 bytes).
const MAX_CAP_LINE: usize = 127;

/// The machine's CPU topology, as CPU_TOPOLOGY carries it.
///
/// ```
/// use perf_writer_std::{CpuTopologyInfo, perf_encode::features::CpuTopologyEntry};
/// let t = CpuTopologyInfo {
///     package_cpus: vec!["0-1".into()],
///     die_cpus: vec!["0-1".into()],
///     core_cpus: vec!["0".into(), "1".into()],
///     cpus: vec![CpuTopologyEntry { core_id: 0, ..Default::default() }, CpuTopologyEntry { core_id: 1, ..Default::default() }],
/// };
/// assert_eq!(t.cpus.len(), 2);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpuTopologyInfo {
    /// Distinct `package_cpus_list` values of the online CPUs ("sibling sockets").
    pub package_cpus: Vec<String>,
    /// Distinct `die_cpus_list` values (x86_64 and s390x only, as perf; else empty).
    pub die_cpus: Vec<String>,
    /// Distinct `core_cpus_list` values ("sibling threads").
    pub core_cpus: Vec<String>,
    /// Ids of CPU 0, 1, … up to NRCPUS' `available` (`-1` where unreadable).
    pub cpus: Vec<CpuTopologyEntry>,
}

/// One NUMA node (`/sys/devices/system/node/nodeN`).
///
/// ```
/// let n = perf_writer_std::NumaNodeInfo { node: 0, mem_total_kib: 1 << 20, mem_free_kib: 1 << 19, cpus: "0-1".into() };
/// assert_eq!(n.cpus, "0-1");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NumaNodeInfo {
    /// Node number.
    pub node: u32,
    /// `MemTotal`, kB.
    pub mem_total_kib: u64,
    /// `MemFree`, kB (changes from one reading to the next).
    pub mem_free_kib: u64,
    /// `cpulist`.
    pub cpus: String,
}

/// One PMU of `/sys/bus/event_source/devices` and its attr type.
///
/// ```
/// let p = perf_writer_std::PmuInfo { name: "software".into(), type_: 1 };
/// assert_eq!(p.type_, 1);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PmuInfo {
    /// Directory name.
    pub name: String,
    /// Content of its `type` file.
    pub type_: u32,
}

/// One CPU cache (`/sys/devices/system/cpu/cpuN/cache/indexM`).
///
/// ```
/// let c = perf_writer_std::CacheInfo {
///     level: 1, line_size: 64, sets: 64, ways: 8,
///     type_: "Data".into(), size: "32K".into(), shared_cpu_list: "0".into(),
/// };
/// assert_eq!(c.level, 1);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheInfo {
    /// `level`.
    pub level: u32,
    /// `coherency_line_size`.
    pub line_size: u32,
    /// `number_of_sets`.
    pub sets: u32,
    /// `ways_of_associativity`.
    pub ways: u32,
    /// `type`.
    pub type_: String,
    /// `size` (`32K`).
    pub size: String,
    /// `shared_cpu_list`.
    pub shared_cpu_list: String,
}

/// The memory blocks of one NUMA node, as a bitmap (bit `i` = `memoryI`).
///
/// ```
/// let n = perf_writer_std::MemoryNodeInfo::from_blocks(0, &[0, 1, 3]);
/// assert_eq!((n.nbits, n.bitmap.as_slice()), (4, &[0b1011u64][..]));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryNodeInfo {
    /// Node number.
    pub node: u64,
    /// Bits of the bitmap: the highest block number plus one (1 for a node with no block).
    pub nbits: u64,
    /// `ceil(nbits / 64)` words.
    pub bitmap: Vec<u64>,
}

impl MemoryNodeInfo {
    /// The node holding memory blocks `blocks`, sized as perf sizes it.
    pub fn from_blocks(node: u64, blocks: &[u32]) -> Self {
        let nbits = blocks
            .iter()
            .max()
            .map_or(1, |&m| u64::from(m).saturating_add(1));
        let words = usize::try_from(nbits.div_ceil(64)).unwrap_or(0);
        let mut bitmap = vec![0u64; words];
        for &b in blocks {
            if let Some(w) = bitmap.get_mut(usize::try_from(b / 64).unwrap_or(usize::MAX)) {
                *w |= 1u64 << (b % 64);
            }
        }
        MemoryNodeInfo {
            node,
            nbits,
            bitmap,
        }
    }
}

/// The memory layout of MEM_TOPOLOGY.
///
/// ```
/// let m = perf_writer_std::MemTopologyInfo { block_size: 128 << 20, nodes: vec![perf_writer_std::MemoryNodeInfo::from_blocks(0, &[0, 1])] };
/// assert_eq!(m.nodes[0].nbits, 2);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemTopologyInfo {
    /// `/sys/devices/system/memory/block_size_bytes`.
    pub block_size: u64,
    /// Nodes, ascending.
    pub nodes: Vec<MemoryNodeInfo>,
}

/// One PMU capability: a file of `caps/` and its first line.
///
/// ```
/// let c = perf_writer_std::PmuCapInfo { name: "branches".into(), value: "32".into() };
/// assert_eq!(c.value, "32");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PmuCapInfo {
    /// The file name.
    pub name: String,
    /// Its value.
    pub value: String,
}

/// The capabilities of a PMU other than `cpu` (PMU_CAPS).
///
/// ```
/// let p = perf_writer_std::PmuCapsInfo { pmu: "cpu_atom".into(), caps: vec![] };
/// assert!(p.caps.is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PmuCapsInfo {
    /// PMU name.
    pub pmu: String,
    /// Its capabilities, in directory order.
    pub caps: Vec<PmuCapInfo>,
}

/// One core type of a hybrid CPU (a `cpu_*` PMU and its `cpus`).
///
/// ```
/// let n = perf_writer_std::HybridNodeInfo { pmu: "cpu_core".into(), cpus: "0-7".into() };
/// assert_eq!(n.pmu, "cpu_core");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HybridNodeInfo {
    /// PMU name.
    pub pmu: String,
    /// Its CPU list.
    pub cpus: String,
}

/// What `perf record` writes about the machine: every field is one feature header, `None`
/// when its source could not be read (a container without `/sys` gives fewer headers, never
/// an error). Fill it with [`HostDescription::read`], adjust any field, and give it to
/// [`PerfWriter::set_host_headers`](crate::PerfWriter::set_host_headers).
///
/// Sources, as perf 6.1 reads them:
/// - HOSTNAME, OSRELEASE, ARCH: `uname` (`nodename`, `release`, `machine`), or the
///   [`UnameInfo`] given to [`HostDescription::read_from_with_uname`]. Its `machine` also
///   chooses what perf does per architecture: the die topology (x86_64 and s390x), the
///   CPUDESC key and how CPUID is built.
/// - VERSION: perf writes its own version; this is the writer's, `"perf-writer-std X.Y.Z"`
///   (perf prints it as `# perf version :`; set the field to name your program instead).
/// - CMDLINE: this program's path (`/proc/self/exe`) and its arguments, as perf writes its
///   own path and arguments.
/// - NRCPUS: the highest CPU of `/sys/devices/system/cpu/present` plus one, and the number
///   of CPUs in `online`.
/// - CPUDESC: the first `model name` line of `/proc/cpuinfo` (`cpu` on powerpc, `vendor_id`
///   on s390, …), blanks squeezed. CPUID: on x86 (`x86_64`, `i386`…`i686`)
///   `vendor,family,model,stepping` from the first CPU of `/proc/cpuinfo` (perf reads the
///   `cpuid` instruction; the kernel derives these fields from it the same way), on aarch64
///   `midr_el1` (`cpuN/regs/identification/midr_el1`) of the first online CPU that has it;
///   `None` on other architectures (32-bit arm included).
/// - TOTAL_MEM: `MemTotal` of `/proc/meminfo`.
/// - CPU_TOPOLOGY, CACHE: `/sys/devices/system/cpu/cpuN/topology` and `cache/index0..3`.
/// - NUMA_TOPOLOGY: `/sys/devices/system/node/online`, `nodeN/meminfo`, `nodeN/cpulist`;
///   MEM_TOPOLOGY: `/sys/devices/system/memory/block_size_bytes` and `nodeN/memoryM`.
/// - PMU_MAPPINGS, CPU_PMU_CAPS, PMU_CAPS, HYBRID_TOPOLOGY:
///   `/sys/bus/event_source/devices/*/{type,caps/*,cpus}` in directory order.
///
/// CLOCKID is not here: perf writes it only for `-k`, and so does
/// [`PerfWriter::set_clockid_header`](crate::PerfWriter::set_clockid_header).
///
/// ```
/// use perf_writer_std::{HostDescription, UnameInfo};
/// // This machine: what is found depends on it; VERSION and CMDLINE are always there.
/// let host = HostDescription::read();
/// assert!(host.version.is_some() && host.cmdline.is_some());
/// // Another machine's files (here none), read as perf on that machine reads them.
/// let uname = UnameInfo {
///     sysname: "Linux".into(),
///     nodename: "vm".into(),
///     release: "6.1.0".into(),
///     machine: "aarch64".into(),
/// };
/// let none = HostDescription::read_from_with_uname("/nonexistent".as_ref(), "/nonexistent".as_ref(), Some(&uname));
/// assert_eq!((none.hostname.as_deref(), none.arch.as_deref()), (Some("vm"), Some("aarch64")));
/// assert!(none.total_mem_kib.is_none() && none.cpu_topology.is_none());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostDescription {
    /// HOSTNAME.
    pub hostname: Option<String>,
    /// OSRELEASE.
    pub os_release: Option<String>,
    /// ARCH.
    pub arch: Option<String>,
    /// VERSION.
    pub version: Option<String>,
    /// CMDLINE: program path, then its arguments.
    pub cmdline: Option<Vec<String>>,
    /// NRCPUS.
    pub nr_cpus: Option<NrCpus>,
    /// CPUDESC.
    pub cpu_desc: Option<String>,
    /// CPUID.
    pub cpuid: Option<String>,
    /// TOTAL_MEM, kB.
    pub total_mem_kib: Option<u64>,
    /// CPU_TOPOLOGY.
    pub cpu_topology: Option<CpuTopologyInfo>,
    /// NUMA_TOPOLOGY.
    pub numa_nodes: Option<Vec<NumaNodeInfo>>,
    /// PMU_MAPPINGS.
    pub pmu_mappings: Option<Vec<PmuInfo>>,
    /// CACHE, sorted by level.
    pub caches: Option<Vec<CacheInfo>>,
    /// MEM_TOPOLOGY.
    pub mem_topology: Option<MemTopologyInfo>,
    /// CPU_PMU_CAPS: present when the machine has a `cpu` PMU.
    pub cpu_pmu_caps: Option<Vec<PmuCapInfo>>,
    /// PMU_CAPS: the PMUs other than `cpu` with at least one capability.
    pub pmu_caps: Option<Vec<PmuCapsInfo>>,
    /// HYBRID_TOPOLOGY: present on hybrid machines only.
    pub hybrid_topology: Option<Vec<HybridNodeInfo>>,
}

/// What `uname(2)` says about a machine: the source of HOSTNAME, OSRELEASE and ARCH, and of
/// what perf does differently per architecture (see [`HostDescription`]).
///
/// ```
/// let u = perf_writer_std::UnameInfo {
///     sysname: "Linux".into(),
///     nodename: "vm".into(),
///     release: "6.1.0".into(),
///     machine: "x86_64".into(),
/// };
/// assert_eq!(u.machine, "x86_64");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UnameInfo {
    /// `sysname` (`Linux`).
    pub sysname: String,
    /// `nodename`: HOSTNAME.
    pub nodename: String,
    /// `release`: OSRELEASE.
    pub release: String,
    /// `machine` (`x86_64`, `aarch64`, …): ARCH.
    pub machine: String,
}

impl UnameInfo {
    /// This machine's, or `None` when `uname` fails.
    pub fn current() -> Option<Self> {
        let u = nix::sys::utsname::uname().ok()?;
        let text = |s: &std::ffi::OsStr| s.to_string_lossy().into_owned();
        Some(UnameInfo {
            sysname: text(u.sysname()),
            nodename: text(u.nodename()),
            release: text(u.release()),
            machine: text(u.machine()),
        })
    }
}

impl HostDescription {
    /// This machine's description, from `uname`, `/proc` and `/sys`.
    pub fn read() -> Self {
        Self::read_from(Path::new("/sys"), Path::new("/proc"))
    }

    /// The description with `sysfs` and `procfs` as the mount points of `/sys` and `/proc`
    /// (a copy of another machine's files, or a test tree). `uname`, VERSION and CMDLINE
    /// still come from this process; [`read_from_with_uname`](Self::read_from_with_uname)
    /// takes the `uname` of the machine the files come from.
    pub fn read_from(sysfs: &Path, procfs: &Path) -> Self {
        Self::read_from_with_uname(sysfs, procfs, UnameInfo::current().as_ref())
    }

    /// The description of the machine whose `/sys` and `/proc` are at `sysfs` and `procfs`
    /// and whose `uname` is `uname` (`None`: unknown, as when `uname` fails: no HOSTNAME,
    /// OSRELEASE and ARCH, no die topology, and CPUDESC and CPUID read as for the
    /// architecture this program was built for). VERSION and CMDLINE come from this process.
    pub fn read_from_with_uname(sysfs: &Path, procfs: &Path, uname: Option<&UnameInfo>) -> Self {
        let hostname = uname.map(|u| u.nodename.clone());
        let os_release = uname.map(|u| u.release.clone());
        let arch = uname.map(|u| u.machine.clone());
        let family = arch
            .as_deref()
            .map_or_else(ArchFamily::native, ArchFamily::from_machine);
        let cpuinfo = std::fs::read_to_string(procfs.join("cpuinfo")).ok();
        let cpu = sysfs.join("devices/system/cpu");
        let nr_cpus = read_nr_cpus(&cpu);
        let cpu_topology = nr_cpus.and_then(|nr| read_cpu_topology(&cpu, nr, arch.as_deref()));
        let (pmu_mappings, cpu_pmu_caps, pmu_caps, hybrid_topology) =
            read_pmus(&sysfs.join("bus/event_source/devices"));
        HostDescription {
            hostname,
            os_release,
            version: Some(format!(
                "{} {}",
                env!("CARGO_PKG_NAME"),
                env!("CARGO_PKG_VERSION")
            )),
            cmdline: Some(cmdline()),
            nr_cpus,
            cpu_desc: cpuinfo.as_deref().and_then(|c| cpu_desc(family, c)),
            cpuid: cpuinfo.as_deref().and_then(|c| cpuid(family, c, &cpu)),
            total_mem_kib: read_total_mem(&procfs.join("meminfo")),
            cpu_topology,
            numa_nodes: read_numa(&sysfs.join("devices/system/node")),
            pmu_mappings,
            caches: read_caches(&cpu),
            mem_topology: read_mem_topology(sysfs),
            cpu_pmu_caps,
            pmu_caps,
            hybrid_topology,
            arch,
        }
    }
}

/// The features a [`HostDescription`] fills, as perf-encode's typed values (views that
/// borrow the description), one function per feature: `None` where the description does
/// not know it. A feature made of a list of views is handed to `f`, which the views outlive.
impl HostDescription {
    /// HOSTNAME, OSRELEASE, ARCH, VERSION, CPUDESC and CPUID, those that are known.
    pub(crate) fn string_features(&self) -> impl Iterator<Item = (u8, HeaderString<'_>)> {
        [
            (feature::HOSTNAME, &self.hostname),
            (feature::OSRELEASE, &self.os_release),
            (feature::ARCH, &self.arch),
            (feature::VERSION, &self.version),
            (feature::CPUDESC, &self.cpu_desc),
            (feature::CPUID, &self.cpuid),
        ]
        .into_iter()
        .filter_map(|(index, value)| Some((index, HeaderString::new(value.as_ref()?.as_bytes()))))
    }

    /// TOTAL_MEM.
    pub(crate) fn total_mem(&self) -> Option<TotalMem> {
        self.total_mem_kib.map(|kib| TotalMem { kib })
    }

    /// CMDLINE.
    pub(crate) fn cmdline_list(&self) -> Option<StringList<'_, String>> {
        self.cmdline.as_deref().map(StringList::new)
    }

    /// CPU_TOPOLOGY.
    pub(crate) fn cpu_topology_view(&self) -> Option<CpuTopology<'_, String>> {
        let t = self.cpu_topology.as_ref()?;
        Some(CpuTopology {
            package_cpus: &t.package_cpus,
            core_cpus: &t.core_cpus,
            die_cpus: &t.die_cpus,
            cpus: &t.cpus,
        })
    }

    /// NUMA_TOPOLOGY, handed to `f`.
    pub(crate) fn with_numa_topology<R>(
        &self,
        f: impl FnOnce(&NumaTopology<'_>) -> R,
    ) -> Option<R> {
        let nodes = views(self.numa_nodes.as_deref()?, NumaNodeInfo::view);
        Some(f(&NumaTopology { nodes: &nodes }))
    }

    /// PMU_MAPPINGS, handed to `f`.
    pub(crate) fn with_pmu_mappings<R>(&self, f: impl FnOnce(&PmuMappings<'_>) -> R) -> Option<R> {
        let pmus = views(self.pmu_mappings.as_deref()?, PmuInfo::view);
        Some(f(&PmuMappings { pmus: &pmus }))
    }

    /// CACHE, handed to `f`.
    pub(crate) fn with_caches<R>(&self, f: impl FnOnce(&CpuCaches<'_>) -> R) -> Option<R> {
        let caches = views(self.caches.as_deref()?, CacheInfo::view);
        Some(f(&CpuCaches { caches: &caches }))
    }

    /// MEM_TOPOLOGY, handed to `f`.
    pub(crate) fn with_mem_topology<R>(&self, f: impl FnOnce(&MemTopology<'_>) -> R) -> Option<R> {
        let m = self.mem_topology.as_ref()?;
        let nodes = views(&m.nodes, MemoryNodeInfo::view);
        Some(f(&MemTopology {
            block_size: m.block_size,
            nodes: &nodes,
        }))
    }

    /// CPU_PMU_CAPS, handed to `f`.
    pub(crate) fn with_cpu_pmu_caps<R>(&self, f: impl FnOnce(&CpuPmuCaps<'_>) -> R) -> Option<R> {
        let caps = views(self.cpu_pmu_caps.as_deref()?, PmuCapInfo::view);
        Some(f(&CpuPmuCaps { caps: &caps }))
    }

    /// PMU_CAPS, handed to `f`.
    pub(crate) fn with_pmu_caps<R>(&self, f: impl FnOnce(&PmuCaps<'_>) -> R) -> Option<R> {
        let pmus = self.pmu_caps.as_deref()?;
        let caps: Vec<Vec<PmuCap<'_>>> = pmus
            .iter()
            .map(|p| views(&p.caps, PmuCapInfo::view))
            .collect();
        let entries: Vec<PmuCapsEntry<'_>> = pmus
            .iter()
            .zip(&caps)
            .map(|(p, caps)| PmuCapsEntry {
                pmu: p.pmu.as_bytes(),
                caps,
            })
            .collect();
        Some(f(&PmuCaps { pmus: &entries }))
    }

    /// HYBRID_TOPOLOGY, handed to `f`.
    pub(crate) fn with_hybrid_topology<R>(
        &self,
        f: impl FnOnce(&HybridTopology<'_>) -> R,
    ) -> Option<R> {
        let nodes = views(self.hybrid_topology.as_deref()?, HybridNodeInfo::view);
        Some(f(&HybridTopology { nodes: &nodes }))
    }
}

/// The view of each item.
fn views<'a, T, V>(items: &'a [T], view: impl Fn(&'a T) -> V) -> Vec<V> {
    items.iter().map(view).collect()
}

impl NumaNodeInfo {
    fn view(&self) -> NumaNode<'_> {
        NumaNode {
            node: self.node,
            mem_total_kib: self.mem_total_kib,
            mem_free_kib: self.mem_free_kib,
            cpus: self.cpus.as_bytes(),
        }
    }
}

impl PmuInfo {
    fn view(&self) -> PmuMapping<'_> {
        PmuMapping {
            type_: self.type_,
            name: self.name.as_bytes(),
        }
    }
}

impl CacheInfo {
    fn view(&self) -> CacheLevel<'_> {
        CacheLevel {
            level: self.level,
            line_size: self.line_size,
            sets: self.sets,
            ways: self.ways,
            type_: self.type_.as_bytes(),
            size: self.size.as_bytes(),
            map: self.shared_cpu_list.as_bytes(),
        }
    }
}

impl MemoryNodeInfo {
    fn view(&self) -> MemoryNode<'_> {
        MemoryNode {
            node: self.node,
            nbits: self.nbits,
            bitmap: &self.bitmap,
        }
    }
}

impl PmuCapInfo {
    fn view(&self) -> PmuCap<'_> {
        PmuCap {
            name: self.name.as_bytes(),
            value: self.value.as_bytes(),
        }
    }
}

impl HybridNodeInfo {
    fn view(&self) -> HybridNode<'_> {
        HybridNode {
            pmu: self.pmu.as_bytes(),
            cpus: self.cpus.as_bytes(),
        }
    }
}

/// The architectures whose perf reads CPUDESC or CPUID its own way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ArchFamily {
    X86,
    Aarch64,
    Arm,
    PowerPc,
    Sparc,
    S390,
    Mips,
    LoongArch,
    Other,
}

impl ArchFamily {
    /// The architecture of a `uname` `machine`, as perf's `normalize_arch` names it.
    fn from_machine(machine: &str) -> Self {
        let m = machine.as_bytes();
        if machine == "x86_64"
            || (m.first() == Some(&b'i') && m.get(2) == Some(&b'8') && m.get(3) == Some(&b'6'))
        {
            ArchFamily::X86
        } else if machine == "sun4u" || machine.starts_with("sparc") {
            ArchFamily::Sparc
        } else if machine.starts_with("aarch64") || machine.starts_with("arm64") {
            ArchFamily::Aarch64
        } else if machine.starts_with("arm") || machine == "sa110" {
            ArchFamily::Arm
        } else if machine.starts_with("s390") {
            ArchFamily::S390
        } else if machine.starts_with("powerpc") || machine.starts_with("ppc") {
            ArchFamily::PowerPc
        } else if machine.starts_with("mips") {
            ArchFamily::Mips
        } else if machine.starts_with("loongarch") {
            ArchFamily::LoongArch
        } else {
            ArchFamily::Other
        }
    }

    /// The architecture this program was built for (perf's CPUDESC and CPUID code is the
    /// one it was built with).
    fn native() -> Self {
        if cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
            ArchFamily::X86
        } else if cfg!(target_arch = "aarch64") {
            ArchFamily::Aarch64
        } else if cfg!(target_arch = "arm") {
            ArchFamily::Arm
        } else if cfg!(any(target_arch = "powerpc", target_arch = "powerpc64")) {
            ArchFamily::PowerPc
        } else if cfg!(any(target_arch = "sparc", target_arch = "sparc64")) {
            ArchFamily::Sparc
        } else if cfg!(target_arch = "s390x") {
            ArchFamily::S390
        } else if cfg!(any(target_arch = "mips", target_arch = "mips64")) {
            ArchFamily::Mips
        } else if cfg!(target_arch = "loongarch64") {
            ArchFamily::LoongArch
        } else {
            ArchFamily::Other
        }
    }
}

/// The program's real path, then its arguments (perf writes its own path from
/// `/proc/self/exe`, then its arguments after `perf`).
fn cmdline() -> Vec<String> {
    let mut args = std::env::args_os();
    let argv0 = args.next().unwrap_or_default();
    let exe: OsString = std::env::current_exe()
        .map(PathBuf::into_os_string)
        .unwrap_or(argv0);
    std::iter::once(exe)
        .chain(args)
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// The first line of `path` without its newline (how perf reads one-line sysfs files).
fn first_line(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(text.split('\n').next().unwrap_or("").to_owned())
}

/// A number file (perf's `sysfs__read_int`/`fscanf("%u")`).
fn read_number<T: std::str::FromStr>(path: &Path) -> Option<T> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// Parses a kernel CPU list (`0-3,8,10-11`, as in `/sys/devices/system/cpu/online`);
/// `None` for malformed text (a range whose end is below its start included).
///
/// ```
/// use perf_writer_std::parse_cpu_list;
/// let cpus = parse_cpu_list("0-2,5\n").unwrap();
/// assert_eq!(cpus.into_iter().collect::<Vec<_>>(), [0, 1, 2, 5]);
/// assert!(parse_cpu_list("5-3").is_none());
/// ```
pub fn parse_cpu_list(list: &str) -> Option<BTreeSet<u32>> {
    let mut cpus = BTreeSet::new();
    for part in list.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
                if a > b {
                    return None;
                }
                cpus.extend(a..=b);
            }
            None => {
                cpus.insert(part.trim().parse().ok()?);
            }
        }
    }
    Some(cpus)
}

fn read_cpu_list(path: &Path) -> Option<BTreeSet<u32>> {
    parse_cpu_list(&first_line(path)?)
}

/// The highest CPU of a list file plus one.
fn max_cpu_plus_one(path: &Path) -> Option<u32> {
    read_cpu_list(path)?.last()?.checked_add(1)
}

/// NRCPUS as perf writes it: `cpu__max_present_cpu()` and `sysconf(_SC_NPROCESSORS_ONLN)`
/// (which glibc reads from `online`).
fn read_nr_cpus(cpu: &Path) -> Option<NrCpus> {
    let online = read_cpu_list(&cpu.join("online"))?;
    let available = max_cpu_plus_one(&cpu.join("present"))
        .or_else(|| max_cpu_plus_one(&cpu.join("possible")))
        .or_else(|| online.last()?.checked_add(1))?;
    Some(NrCpus {
        available,
        online: u32::try_from(online.len()).ok()?,
    })
}

/// The value of `line` after `key :` as perf's `__write_cpudesc` takes it.
fn cpuinfo_value(line: &str) -> &str {
    match line.find(':') {
        Some(p) if line.get(p + 1..p + 2) == Some(" ") && line.len() > p + 2 => {
            line.get(p + 2..).unwrap_or(line)
        }
        _ => line,
    }
}

/// Every run of C `isspace` characters becomes one space.
fn squeeze_blanks(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_run = false;
    for c in s.chars() {
        if matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r') {
            if !in_run {
                out.push(' ');
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    out
}

/// The `/proc/cpuinfo` keys perf's CPUDESC looks for on architecture `family`, in order.
fn cpudesc_keys(family: ArchFamily) -> &'static [&'static str] {
    match family {
        ArchFamily::PowerPc | ArchFamily::Sparc => &["cpu"],
        ArchFamily::S390 => &["vendor_id"],
        ArchFamily::Mips => &["cpu model"],
        ArchFamily::Arm => &["model name", "Processor"],
        ArchFamily::LoongArch => &["Model Name"],
        ArchFamily::X86 | ArchFamily::Aarch64 | ArchFamily::Other => &["model name"],
    }
}

/// CPUDESC: the first line that starts with the key, its value with blanks squeezed.
fn cpu_desc(family: ArchFamily, cpuinfo: &str) -> Option<String> {
    cpudesc_keys(family).iter().find_map(|key| {
        let line = cpuinfo.lines().find(|l| l.starts_with(key))?;
        Some(squeeze_blanks(cpuinfo_value(line)))
    })
}

/// The `key : value` fields of the first processor of `/proc/cpuinfo`.
fn first_cpu_field<'c>(cpuinfo: &'c str, key: &str) -> Option<&'c str> {
    cpuinfo
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key).then(|| v.trim())
        })
}

/// CPUID as perf's code for architecture `arch` builds it.
fn cpuid(arch: ArchFamily, cpuinfo: &str, cpu: &Path) -> Option<String> {
    match arch {
        ArchFamily::X86 => {
            let vendor = first_cpu_field(cpuinfo, "vendor_id")?;
            let number = |key| first_cpu_field(cpuinfo, key)?.parse::<u32>().ok();
            let (family, model, stepping) =
                (number("cpu family")?, number("model")?, number("stepping")?);
            Some(format!("{vendor},{family},{model},{stepping}"))
        }
        ArchFamily::Aarch64 => {
            let online = read_cpu_list(&cpu.join("online"))?;
            online.iter().find_map(|n| {
                let text = first_line(&cpu.join(format!("cpu{n}/regs/identification/midr_el1")))?;
                let hex = text.trim().trim_start_matches("0x");
                let midr = u64::from_str_radix(hex, 16).ok()?;
                Some(format!("0x{midr:016x}"))
            })
        }
        _ => None,
    }
}

fn read_total_mem(meminfo: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(meminfo).ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `path`, or `fallback` when `path` does not exist (perf's `access(F_OK)` test).
fn existing_or(path: PathBuf, fallback: PathBuf) -> PathBuf {
    if path.exists() {
        path
    } else {
        fallback
    }
}

fn push_distinct(list: &mut Vec<String>, value: Option<String>) -> bool {
    match value {
        Some(v) => {
            if !list.contains(&v) {
                list.push(v);
            }
            true
        }
        None => false,
    }
}

/// CPU_TOPOLOGY as perf's `cpu_topology__new` and `perf_env__read_cpu_topology_map` build it.
fn read_cpu_topology(cpu: &Path, nr: NrCpus, arch: Option<&str>) -> Option<CpuTopologyInfo> {
    let online = read_cpu_list(&cpu.join("online"))?;
    let has_die = arch.is_some_and(|a| a.starts_with("x86_64") || a.starts_with("s390x"))
        && cpu.join("cpu0/topology/die_cpus_list").exists();
    let mut t = CpuTopologyInfo::default();
    let mut any = false;
    for n in (0..nr.available).filter(|n| online.contains(n)) {
        let topo = cpu.join(format!("cpu{n}/topology"));
        let package = existing_or(
            topo.join("package_cpus_list"),
            topo.join("core_siblings_list"),
        );
        any |= push_distinct(&mut t.package_cpus, first_line(&package));
        if has_die {
            any |= push_distinct(&mut t.die_cpus, first_line(&topo.join("die_cpus_list")));
        }
        let core = existing_or(
            topo.join("core_cpus_list"),
            topo.join("thread_siblings_list"),
        );
        any |= push_distinct(&mut t.core_cpus, first_line(&core));
    }
    if !any {
        return None;
    }
    t.cpus = (0..nr.available)
        .map(|n| {
            let topo = cpu.join(format!("cpu{n}/topology"));
            let id = |name: &str| read_number::<i32>(&topo.join(name)).unwrap_or(-1);
            CpuTopologyEntry {
                core_id: id("core_id"),
                socket_id: id("physical_package_id"),
                die_id: id("die_id"),
            }
        })
        .collect();
    Some(t)
}

/// NUMA_TOPOLOGY as perf's `numa_topology__new` builds it: every node of `online`, or none
/// at all when one cannot be read.
fn read_numa(node: &Path) -> Option<Vec<NumaNodeInfo>> {
    let online = read_cpu_list(&node.join("online"))?;
    online
        .iter()
        .map(|&n| {
            let dir = node.join(format!("node{n}"));
            let meminfo = std::fs::read_to_string(dir.join("meminfo")).ok()?;
            let (mut total, mut free) = (0u64, 0u64);
            for line in meminfo.lines().filter(|l| l.contains(':')) {
                // "Node 0 MemTotal:       6776552 kB"
                let mut words = line.split_whitespace().skip(2);
                let (Some(field), Some(value)) = (words.next(), words.next()) else {
                    continue;
                };
                let Ok(value) = value.parse::<u64>() else {
                    continue;
                };
                match field {
                    "MemTotal:" if total == 0 => total = value,
                    "MemFree:" if free == 0 => free = value,
                    _ => {}
                }
                if total != 0 && free != 0 {
                    break;
                }
            }
            Some(NumaNodeInfo {
                node: n,
                mem_total_kib: total,
                mem_free_kib: free,
                cpus: first_line(&dir.join("cpulist"))?,
            })
        })
        .collect()
}

/// The numbers `N` of the entries `PREFIXN` of `dir`, in directory order.
fn numbered_entries(dir: &Path, prefix: &str) -> Option<Vec<u32>> {
    let entries = std::fs::read_dir(dir).ok()?;
    Some(
        entries
            .filter_map(|e| {
                let name = e.ok()?.file_name();
                let digits = name.to_str()?.strip_prefix(prefix)?;
                let end = digits
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(digits.len());
                digits.get(..end)?.parse().ok()
            })
            .collect(),
    )
}

/// MEM_TOPOLOGY as perf's `build_mem_topology` builds it.
fn read_mem_topology(sysfs: &Path) -> Option<MemTopologyInfo> {
    let text = first_line(&sysfs.join("devices/system/memory/block_size_bytes"))?;
    let hex = text.trim();
    let hex = hex
        .strip_prefix("0x")
        .or_else(|| hex.strip_prefix("0X"))
        .unwrap_or(hex);
    let block_size = u64::from_str_radix(hex, 16).ok()?;
    let node_dir = sysfs.join("devices/system/node");
    let mut nodes = numbered_entries(&node_dir, "node")?
        .into_iter()
        .map(|n| {
            let blocks = numbered_entries(&node_dir.join(format!("node{n}")), "memory")?;
            Some(MemoryNodeInfo::from_blocks(u64::from(n), &blocks))
        })
        .collect::<Option<Vec<_>>>()?;
    nodes.sort_by_key(|n| n.node);
    Some(MemTopologyInfo { block_size, nodes })
}

/// A capability value as perf reads it: `fgets` of at most 127 bytes, then its last
/// character (the newline) dropped.
fn cap_value(bytes: &[u8]) -> Option<String> {
    let cut = bytes.len().min(MAX_CAP_LINE);
    let head = bytes.get(..cut)?;
    let line = match head.iter().position(|&b| b == b'\n') {
        Some(nl) => head.get(..=nl)?,
        None => head,
    };
    let (_, value) = line.split_last()?;
    Some(String::from_utf8_lossy(value).into_owned())
}

/// The capabilities in `pmu/caps`, in directory order (empty without a `caps` directory).
fn read_caps(pmu: &Path) -> Vec<PmuCapInfo> {
    let Ok(entries) = std::fs::read_dir(pmu.join("caps")) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| {
            let e = e.ok()?;
            let value = cap_value(&std::fs::read(e.path()).ok()?)?;
            Some(PmuCapInfo {
                name: e.file_name().to_string_lossy().into_owned(),
                value,
            })
        })
        .collect()
}

type PmuHeaders = (
    Option<Vec<PmuInfo>>,
    Option<Vec<PmuCapInfo>>,
    Option<Vec<PmuCapsInfo>>,
    Option<Vec<HybridNodeInfo>>,
);

/// PMU_MAPPINGS, CPU_PMU_CAPS, PMU_CAPS and HYBRID_TOPOLOGY from the PMU directories, in
/// directory order (perf 6.1's `perf_pmu__scan` order when nothing looked a PMU up first).
fn read_pmus(devices: &Path) -> PmuHeaders {
    let Ok(entries) = std::fs::read_dir(devices) else {
        return (None, None, None, None);
    };
    let mut mappings = Vec::new();
    let mut cpu_caps = None;
    let mut other_caps = Vec::new();
    let mut hybrid = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let dir = e.path();
        let Some(type_) = read_number::<u32>(&dir.join("type")) else {
            continue; // perf cannot look up a PMU without a type
        };
        mappings.push(PmuInfo {
            name: name.clone(),
            type_,
        });
        let caps = read_caps(&dir);
        if name == "cpu" {
            cpu_caps = Some(caps);
        } else if !caps.is_empty() {
            other_caps.push(PmuCapsInfo {
                pmu: name.clone(),
                caps,
            });
        }
        if name.starts_with("cpu_") {
            if let Some(cpus) = first_line(&dir.join("cpus")) {
                hybrid.push(HybridNodeInfo { pmu: name, cpus });
            }
        }
    }
    (
        Some(mappings),
        cpu_caps,
        Some(other_caps),
        (!hybrid.is_empty()).then_some(hybrid),
    )
}

/// One `cpuN/cache/indexM` directory; `None` when a file cannot be read.
fn read_cache(dir: &Path) -> Option<CacheInfo> {
    // perf's sysfs__read_int is atoi: garbage reads as 0.
    let int = |name: &str| -> Option<u32> {
        let text = std::fs::read_to_string(dir.join(name)).ok()?;
        Some(text.trim().parse().unwrap_or(0))
    };
    let text = |name: &str| -> Option<String> {
        Some(
            std::fs::read_to_string(dir.join(name))
                .ok()?
                .trim()
                .to_owned(),
        )
    };
    Some(CacheInfo {
        level: int("level")?,
        line_size: int("coherency_line_size")?,
        sets: int("number_of_sets")?,
        ways: int("ways_of_associativity")?,
        type_: text("type")?,
        size: text("size")?,
        shared_cpu_list: text("shared_cpu_list")?,
    })
}

/// CACHE as perf's `build_caches` builds it: the distinct caches of CPUs 0 up to the
/// highest possible CPU, stably sorted by level; `None` when a cache cannot be read.
fn read_caches(cpu: &Path) -> Option<Vec<CacheInfo>> {
    let max = max_cpu_plus_one(&cpu.join("possible"))
        .or_else(|| max_cpu_plus_one(&cpu.join("present")))?;
    let mut caches: Vec<CacheInfo> = Vec::new();
    for n in 0..max {
        for index in 0..MAX_CACHE_INDEX {
            let dir = cpu.join(format!("cpu{n}/cache/index{index}"));
            if !dir.exists() {
                break;
            }
            let c = read_cache(&dir)?;
            if !caches.contains(&c) {
                caches.push(c);
            }
        }
    }
    if caches.is_empty() {
        return None;
    }
    caches.sort_by_key(|c| c.level);
    Some(caches)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn put(root: &Path, path: &str, content: &str) {
        let p = root.join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, content).unwrap();
    }

    fn uname(machine: &str) -> UnameInfo {
        UnameInfo {
            sysname: "Linux".into(),
            nodename: "testhost".into(),
            release: "6.1.0-test".into(),
            machine: machine.into(),
        }
    }

    /// The fake tree `t` read as the machine `machine` (`None`: `uname` unknown).
    fn read_as(t: &tempfile::TempDir, machine: Option<&str>) -> HostDescription {
        let u = machine.map(uname);
        HostDescription::read_from_with_uname(
            &t.path().join("sys"),
            &t.path().join("proc"),
            u.as_ref(),
        )
    }

    /// A two-CPU machine: one package, one die, two cores; CPU 2 possible but offline. Its
    /// `/proc/cpuinfo` is an x86 one, its CPUs also have an aarch64 `midr_el1`.
    fn fake_tree() -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        put(
            r,
            "proc/meminfo",
            "MemTotal:       24683568 kB\nMemFree: 1 kB\n",
        );
        put(
            r,
            "proc/cpuinfo",
            "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 167\n\
             model name\t: Intel(R)  Core(TM)   i7\nstepping\t: 1\n\nprocessor\t: 1\n\
             vendor_id\t: Other\n",
        );
        put(r, "sys/devices/system/cpu/online", "0-1\n");
        put(r, "sys/devices/system/cpu/present", "0-1\n");
        put(r, "sys/devices/system/cpu/possible", "0-2\n");
        for n in 0..2 {
            let topo = format!("sys/devices/system/cpu/cpu{n}/topology");
            put(r, &format!("{topo}/package_cpus_list"), "0-1\n");
            put(r, &format!("{topo}/die_cpus_list"), "0-1\n");
            put(r, &format!("{topo}/core_cpus_list"), &format!("{n}\n"));
            put(r, &format!("{topo}/core_id"), &format!("{n}\n"));
            put(r, &format!("{topo}/physical_package_id"), "0\n");
            put(r, &format!("{topo}/die_id"), "0\n");
            // CPU 0 in the kernel's format, CPU 1 without the leading zeros.
            put(
                r,
                &format!("sys/devices/system/cpu/cpu{n}/regs/identification/midr_el1"),
                ["0x00000000410fd083\n", "0x410fd0c1\n"][n],
            );
            let cache = format!("sys/devices/system/cpu/cpu{n}/cache");
            for (i, (level, type_, size, map)) in [
                (1, "Data", "32K", n.to_string()),
                (2, "Unified", "1024K", n.to_string()),
                (3, "Unified", "32768K", "0-1".to_string()),
            ]
            .into_iter()
            .enumerate()
            {
                let d = format!("{cache}/index{i}");
                put(r, &format!("{d}/level"), &format!("{level}\n"));
                put(r, &format!("{d}/coherency_line_size"), "64\n");
                put(r, &format!("{d}/number_of_sets"), "64\n");
                put(r, &format!("{d}/ways_of_associativity"), "8\n");
                put(r, &format!("{d}/type"), &format!("{type_}\n"));
                put(r, &format!("{d}/size"), &format!("{size}\n"));
                put(r, &format!("{d}/shared_cpu_list"), &format!("{map}\n"));
            }
        }
        put(r, "sys/devices/system/node/online", "0\n");
        put(
            r,
            "sys/devices/system/node/node0/meminfo",
            "Node 0 MemTotal:        6776552 kB\nNode 0 MemFree:         4602792 kB\n",
        );
        put(r, "sys/devices/system/node/node0/cpulist", "0-1\n");
        for m in [0, 1, 3, 70] {
            fs::create_dir_all(r.join(format!("sys/devices/system/node/node0/memory{m}"))).unwrap();
        }
        put(r, "sys/devices/system/memory/block_size_bytes", "8000000\n");
        let dev = "sys/bus/event_source/devices";
        put(r, &format!("{dev}/software/type"), "1\n");
        put(r, &format!("{dev}/cpu/type"), "4\n");
        put(r, &format!("{dev}/cpu/caps/branches"), "32\n");
        put(r, &format!("{dev}/cpu_atom/type"), "10\n");
        put(r, &format!("{dev}/cpu_atom/cpus"), "2-3\n");
        put(r, &format!("{dev}/cpu_atom/caps/max_precise"), "3\n");
        fs::create_dir_all(r.join(format!("{dev}/notype"))).unwrap();
        t
    }

    #[test]
    fn reads_a_machine_tree_as_perf_does() {
        let t = fake_tree();
        let h = read_as(&t, Some("x86_64"));
        assert_eq!(
            (
                h.hostname.as_deref(),
                h.os_release.as_deref(),
                h.arch.as_deref()
            ),
            (Some("testhost"), Some("6.1.0-test"), Some("x86_64"))
        );
        assert_eq!(h.total_mem_kib, Some(24683568));
        assert_eq!(
            h.nr_cpus,
            Some(NrCpus {
                available: 2,
                online: 2
            })
        );
        assert_eq!(h.cpu_desc.as_deref(), Some("Intel(R) Core(TM) i7"));
        assert_eq!(h.cpuid.as_deref(), Some("GenuineIntel,6,167,1"));
        let topo = h.cpu_topology.unwrap();
        assert_eq!(topo.package_cpus, ["0-1"]);
        assert_eq!(topo.die_cpus, ["0-1"]);
        assert_eq!(topo.core_cpus, ["0", "1"]);
        assert_eq!(topo.cpus.len(), 2);
        assert_eq!(topo.cpus[1].core_id, 1);
        let numa = h.numa_nodes.unwrap();
        assert_eq!(numa.len(), 1);
        assert_eq!(
            (
                numa[0].mem_total_kib,
                numa[0].mem_free_kib,
                numa[0].cpus.as_str()
            ),
            (6776552, 4602792, "0-1")
        );
        let mem = h.mem_topology.unwrap();
        assert_eq!(mem.block_size, 0x800_0000);
        assert_eq!(mem.nodes.len(), 1);
        assert_eq!(mem.nodes[0].nbits, 71);
        assert_eq!(mem.nodes[0].bitmap, [0b1011, 1 << 6]);
        let caches = h.caches.unwrap();
        let levels: Vec<(u32, &str)> = caches
            .iter()
            .map(|c| (c.level, c.shared_cpu_list.as_str()))
            .collect();
        assert_eq!(
            levels,
            [(1, "0"), (1, "1"), (2, "0"), (2, "1"), (3, "0-1")],
            "distinct caches, stably sorted by level"
        );
        let mut pmus: Vec<(String, u32)> = h
            .pmu_mappings
            .unwrap()
            .into_iter()
            .map(|p| (p.name, p.type_))
            .collect();
        pmus.sort();
        assert_eq!(
            pmus,
            [
                ("cpu".to_string(), 4),
                ("cpu_atom".to_string(), 10),
                ("software".to_string(), 1)
            ]
        );
        assert_eq!(
            h.cpu_pmu_caps.unwrap(),
            [PmuCapInfo {
                name: "branches".into(),
                value: "32".into()
            }]
        );
        let other = h.pmu_caps.unwrap();
        assert_eq!(other.len(), 1);
        assert_eq!(other[0].pmu, "cpu_atom");
        assert_eq!(
            h.hybrid_topology.unwrap(),
            [HybridNodeInfo {
                pmu: "cpu_atom".into(),
                cpus: "2-3".into()
            }]
        );
    }

    /// The die topology as perf's `has_die_topology`: only when `uname` says x86_64 or
    /// s390x and CPU 0 has a `die_cpus_list`.
    #[test]
    fn dies_are_read_on_x86_64_and_s390x_only() {
        let t = fake_tree();
        let dies = |t: &tempfile::TempDir, machine: Option<&str>| {
            let topo = read_as(t, machine).cpu_topology.unwrap();
            assert_eq!(
                (topo.package_cpus, topo.core_cpus),
                (
                    vec!["0-1".to_string()],
                    vec!["0".to_string(), "1".to_string()]
                ),
                "{machine:?}: the other lists do not depend on the machine"
            );
            topo.die_cpus
        };
        for machine in ["x86_64", "s390x"] {
            assert_eq!(dies(&t, Some(machine)), ["0-1"], "{machine}");
        }
        for machine in ["aarch64", "i686", "ppc64le", "riscv64"] {
            assert!(dies(&t, Some(machine)).is_empty(), "{machine}");
        }
        assert!(dies(&t, None).is_empty(), "no uname");
        // No die_cpus_list on CPU 0 (a kernel before 5.2): no dies, even on x86_64.
        fs::remove_file(
            t.path()
                .join("sys/devices/system/cpu/cpu0/topology/die_cpus_list"),
        )
        .unwrap();
        assert!(dies(&t, Some("x86_64")).is_empty());
    }

    #[test]
    fn cpuid_is_built_as_perf_for_the_machine_builds_it() {
        let t = fake_tree();
        let cpuid = |machine: &str| read_as(&t, Some(machine)).cpuid;
        // x86: vendor,family,model,stepping of the first processor of /proc/cpuinfo.
        for machine in ["x86_64", "i686", "i386"] {
            assert_eq!(
                cpuid(machine).as_deref(),
                Some("GenuineIntel,6,167,1"),
                "{machine}"
            );
        }
        // aarch64: midr_el1 of the first online CPU that has it, as 16 hex digits.
        assert_eq!(cpuid("aarch64").as_deref(), Some("0x00000000410fd083"));
        // perf's other architectures (32-bit arm included) write no CPUID.
        for machine in ["armv7l", "ppc64le", "s390x", "riscv64"] {
            assert_eq!(cpuid(machine), None, "{machine}");
        }
        fs::remove_file(
            t.path()
                .join("sys/devices/system/cpu/cpu0/regs/identification/midr_el1"),
        )
        .unwrap();
        assert_eq!(cpuid("aarch64").as_deref(), Some("0x00000000410fd0c1"));
        fs::write(
            t.path()
                .join("sys/devices/system/cpu/cpu1/regs/identification/midr_el1"),
            "garbage\n",
        )
        .unwrap();
        assert_eq!(cpuid("aarch64"), None);
        // An x86 /proc/cpuinfo without a stepping gives none.
        let cpu = t.path().join("sys/devices/system/cpu");
        assert_eq!(
            super::cpuid(
                ArchFamily::X86,
                "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 33\n",
                &cpu
            ),
            None
        );
    }

    #[test]
    fn cpudesc_key_follows_the_machine() {
        let t = fake_tree();
        let desc = |machine: &str| read_as(&t, Some(machine)).cpu_desc;
        for machine in ["x86_64", "aarch64", "armv7l", "riscv64"] {
            assert_eq!(
                desc(machine).as_deref(),
                Some("Intel(R) Core(TM) i7"),
                "{machine}"
            );
        }
        // s390 takes vendor_id; powerpc the first line starting with "cpu", as perf's
        // strncmp does ("cpu family" here).
        assert_eq!(desc("s390x").as_deref(), Some("GenuineIntel"));
        assert_eq!(desc("ppc64le").as_deref(), Some("6"));
        let cpuinfo = "processor\t: 0\ncpu\t\t: POWER9 (architected)\n\
                       Model Name\t: Loongson-3A5000\ncpu model\t: MIPS 24Kc\n\
                       Processor\t: ARMv7  rev 4\n";
        let by = |f| cpu_desc(f, cpuinfo);
        assert_eq!(
            by(ArchFamily::PowerPc).as_deref(),
            Some("POWER9 (architected)")
        );
        assert_eq!(
            by(ArchFamily::Sparc).as_deref(),
            Some("POWER9 (architected)")
        );
        assert_eq!(
            by(ArchFamily::LoongArch).as_deref(),
            Some("Loongson-3A5000")
        );
        assert_eq!(by(ArchFamily::Mips).as_deref(), Some("MIPS 24Kc"));
        assert_eq!(
            by(ArchFamily::Arm).as_deref(),
            Some("ARMv7 rev 4"),
            "second key"
        );
        assert_eq!(by(ArchFamily::X86), None);
        assert_eq!(by(ArchFamily::S390), None);
    }

    #[test]
    fn machines_are_named_as_perf_normalizes_them() {
        use ArchFamily::*;
        for (machine, family) in [
            ("x86_64", X86),
            ("i386", X86),
            ("i686", X86),
            ("x86", Other),
            ("aarch64", Aarch64),
            ("aarch64_be", Aarch64),
            ("arm64", Aarch64),
            ("armv7l", Arm),
            ("armv8l", Arm),
            ("sa110", Arm),
            ("ppc64le", PowerPc),
            ("ppc", PowerPc),
            ("powerpc", PowerPc),
            ("sparc64", Sparc),
            ("sun4u", Sparc),
            ("s390x", S390),
            ("s390", S390),
            ("mips64", Mips),
            ("loongarch64", LoongArch),
            ("riscv64", Other),
            ("", Other),
        ] {
            assert_eq!(ArchFamily::from_machine(machine), family, "{machine:?}");
        }
    }

    /// Without `uname`: no HOSTNAME, OSRELEASE, ARCH or dies; CPUDESC and CPUID as perf built
    /// for this program's architecture reads them.
    #[test]
    fn an_unknown_uname_falls_back_to_the_built_architecture() {
        let t = fake_tree();
        let h = read_as(&t, None);
        assert_eq!((h.hostname, h.os_release, h.arch), (None, None, None));
        let cpuinfo = fs::read_to_string(t.path().join("proc/cpuinfo")).unwrap();
        let cpu = t.path().join("sys/devices/system/cpu");
        let native = ArchFamily::native();
        assert_eq!(h.cpu_desc, cpu_desc(native, &cpuinfo));
        assert_eq!(h.cpuid, cpuid(native, &cpuinfo, &cpu));
        assert!(h.cpu_topology.unwrap().die_cpus.is_empty());
    }

    #[test]
    fn a_machine_without_proc_and_sys_gives_fewer_headers() {
        let t = tempfile::tempdir().unwrap();
        // read_from is read_from_with_uname with this machine's uname.
        assert_eq!(
            HostDescription::read_from(&t.path().join("sys"), &t.path().join("proc")),
            HostDescription::read_from_with_uname(
                &t.path().join("sys"),
                &t.path().join("proc"),
                UnameInfo::current().as_ref()
            )
        );
        for machine in ["x86_64", "aarch64"] {
            let h = read_as(&t, Some(machine));
            assert_eq!(h.hostname.as_deref(), Some("testhost"));
            assert_eq!(h.arch.as_deref(), Some(machine));
            assert!(h.version.is_some() && h.cmdline.is_some());
            assert_eq!(
                (
                    h.nr_cpus,
                    h.total_mem_kib,
                    h.cpu_desc,
                    h.cpuid,
                    h.cpu_topology,
                    h.numa_nodes,
                    h.caches,
                    h.mem_topology,
                    h.pmu_mappings,
                    h.cpu_pmu_caps,
                    h.pmu_caps,
                    h.hybrid_topology
                ),
                (None, None, None, None, None, None, None, None, None, None, None, None)
            );
        }
    }

    #[test]
    fn small_parsers() {
        assert_eq!(
            parse_cpu_list("0-2,5\n")
                .unwrap()
                .into_iter()
                .collect::<Vec<_>>(),
            [0, 1, 2, 5]
        );
        assert!(parse_cpu_list("3-1").is_none());
        assert!(parse_cpu_list("").unwrap().is_empty());
        assert_eq!(squeeze_blanks("a  b\t\tc "), "a b c ");
        assert_eq!(cpuinfo_value("model name\t: AMD EPYC"), "AMD EPYC");
        assert_eq!(cpuinfo_value("model name\t:"), "model name\t:");
        assert_eq!(cap_value(b"32\n").as_deref(), Some("32"));
        assert_eq!(
            cap_value(b"32").as_deref(),
            Some("3"),
            "perf drops the last byte"
        );
        assert_eq!(cap_value(b""), None);
        let long = vec![b'x'; 200];
        assert_eq!(cap_value(&long).map(|v| v.len()), Some(126));
        let n = MemoryNodeInfo::from_blocks(1, &[]);
        assert_eq!((n.nbits, n.bitmap), (1, vec![0]));
    }
}
