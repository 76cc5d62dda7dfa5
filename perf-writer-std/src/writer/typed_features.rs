//! Typed setters of the feature headers that have a structure (topologies, PMUs, caches,
//! build ids, …), and [`PerfWriter::set_host_headers`], which fills the headers that
//! describe the machine the way `perf record` fills them.

use crate::error::FeatureError;
use crate::host::description::HostDescription;
use crate::model::feature_slot::{FeatureSlot, FixedPayload};
use crate::{OutputMode, PerfWriter, WriterError};
use perf_abi::{feature, CompressedInfo, NrCpus};
use perf_encode::features::{
    BuildIdEntry, BuildIdFeature, CpuCaches, CpuPmuCaps, CpuTopology, DirFormat, EmptyBpfList,
    EmptyFeature, GroupDescFeature, HybridTopology, MemTopology, NumaTopology, PmuCaps,
    PmuMappings,
};
use perf_encode::Endian;

impl<O: OutputMode> PerfWriter<O> {
    /// Sets BUILD_ID: the build ids of the binaries the samples hit (what `perf buildid-list`
    /// prints).
    ///
    /// An empty list clears the feature. perf does not read BUILD_ID from a pipe, so a
    /// pipe-mode writer does not send it.
    ///
    /// # Errors
    ///
    /// Nothing changes on error: [`WriterError::Encode`] for a value the feature's format
    /// cannot carry; [`FeatureError::TooLargeForPipe`] for a payload too long for a
    /// pipe-mode record.
    ///
    /// ```
    /// use perf_writer_std::{FileOutput, PerfWriter};
    /// use perf_writer_std::perf_encode::features::BuildIdEntry;
    /// let mut w = PerfWriter::<FileOutput>::new();
    /// let kernel = BuildIdEntry { misc: perf_abi::misc::KERNEL, pid: -1, build_id: &[0xab; 20], filename: b"[kernel.kallsyms]" };
    /// w.set_build_id_header(&[kernel])?;
    /// assert_eq!(w.get_header(perf_writer_std::PerfHeaderIndex::BuildId).len(), 100);
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn set_build_id_header(&mut self, entries: &[BuildIdEntry<'_>]) -> Result<(), WriterError> {
        self.model
            .set_encoded(feature::BUILD_ID, &BuildIdFeature::new(entries))
    }

    /// Sets CPU_TOPOLOGY.
    ///
    /// `topology.cpus` needs one entry per CPU of NRCPUS' `available` count (perf reads that
    /// many).
    ///
    /// # Errors
    ///
    /// Nothing changes on error: [`WriterError::Encode`] for a value the feature's format
    /// cannot carry; [`FeatureError::TooLargeForPipe`] for a payload too long for a
    /// pipe-mode record. [`WriterError::Encode`] also when NRCPUS is set and `topology.cpus`
    /// does not have its `available` count of entries.
    ///
    /// ```
    /// use perf_writer_std::{FileOutput, PerfWriter};
    /// use perf_writer_std::perf_encode::features::{CpuTopology, CpuTopologyEntry};
    /// let mut w = PerfWriter::<FileOutput>::new();
    /// w.set_nr_cpus_header(2, 2);
    /// let cpus = [CpuTopologyEntry { core_id: 0, socket_id: 0, die_id: 0 }, CpuTopologyEntry { core_id: 1, socket_id: 0, die_id: 0 }];
    /// w.set_cpu_topology_header(&CpuTopology { package_cpus: &["0-1"], core_cpus: &["0", "1"], die_cpus: &["0-1"], cpus: &cpus })?;
    /// assert!(w.set_cpu_topology_header(&CpuTopology { cpus: &cpus[..1], package_cpus: &["0"], core_cpus: &["0"], die_cpus: &[] }).is_err());
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn set_cpu_topology_header<S: AsRef<[u8]>>(
        &mut self,
        topology: &CpuTopology<'_, S>,
    ) -> Result<(), WriterError> {
        if let Some(nr) = self.nr_cpus_set() {
            if usize::try_from(nr.available).ok() != Some(topology.cpus.len()) {
                return Err(WriterError::Encode(
                    perf_encode::EncodeError::InvalidValue {
                        what: "CPU_TOPOLOGY needs one entry per CPU of NRCPUS' available count",
                    },
                ));
            }
        }
        self.model.set_encoded(feature::CPU_TOPOLOGY, topology)
    }

    /// Sets NUMA_TOPOLOGY.
    ///
    /// # Errors
    ///
    /// Nothing changes on error: [`WriterError::Encode`] for a value the feature's format
    /// cannot carry; [`FeatureError::TooLargeForPipe`] for a payload too long for a
    /// pipe-mode record.
    ///
    /// ```
    /// use perf_writer_std::{FileOutput, PerfWriter};
    /// use perf_writer_std::perf_encode::features::{NumaNode, NumaTopology};
    /// let mut w = PerfWriter::<FileOutput>::new();
    /// let nodes = [NumaNode { node: 0, mem_total_kib: 8 << 20, mem_free_kib: 4 << 20, cpus: b"0-1" }];
    /// w.set_numa_topology_header(&NumaTopology { nodes: &nodes })?;
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn set_numa_topology_header(
        &mut self,
        topology: &NumaTopology<'_>,
    ) -> Result<(), WriterError> {
        self.model.set_encoded(feature::NUMA_TOPOLOGY, topology)
    }

    /// Sets PMU_MAPPINGS: the PMU names and their attr `type` (perf uses them to name the
    /// events of dynamic PMUs).
    ///
    /// # Errors
    ///
    /// Nothing changes on error: [`WriterError::Encode`] for a value the feature's format
    /// cannot carry; [`FeatureError::TooLargeForPipe`] for a payload too long for a
    /// pipe-mode record.
    ///
    /// ```
    /// use perf_writer_std::{FileOutput, PerfWriter};
    /// use perf_writer_std::perf_encode::features::{PmuMapping, PmuMappings};
    /// let mut w = PerfWriter::<FileOutput>::new();
    /// w.set_pmu_mappings_header(&PmuMappings { pmus: &[PmuMapping { type_: 1, name: b"software" }] })?;
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn set_pmu_mappings_header(&mut self, pmus: &PmuMappings<'_>) -> Result<(), WriterError> {
        self.model.set_encoded(feature::PMU_MAPPINGS, pmus)
    }

    /// Sets GROUP_DESC: which events (by index in the order they were added) form groups.
    ///
    /// # Errors
    ///
    /// Nothing changes on error: [`WriterError::Encode`] for a value the feature's format
    /// cannot carry; [`FeatureError::TooLargeForPipe`] for a payload too long for a
    /// pipe-mode record. Overlapping groups, or groups not by ascending leader, are
    /// [`WriterError::Encode`].
    ///
    /// ```
    /// use perf_writer_std::{FileOutput, PerfWriter};
    /// use perf_writer_std::perf_encode::abi::ANON_GROUP_NAME;
    /// use perf_writer_std::perf_encode::features::{GroupDesc, GroupDescFeature};
    /// let mut w = PerfWriter::<FileOutput>::new();
    /// let groups = [GroupDesc { name: ANON_GROUP_NAME, leader_idx: 0, nr_members: 2 }];
    /// w.set_group_desc_header(&GroupDescFeature { groups: &groups })?;
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn set_group_desc_header(
        &mut self,
        groups: &GroupDescFeature<'_>,
    ) -> Result<(), WriterError> {
        self.model.set_encoded(feature::GROUP_DESC, groups)
    }

    /// Sets CACHE: the CPU caches. Not sent in pipe mode (perf does not either).
    ///
    /// # Errors
    ///
    /// Nothing changes on error: [`WriterError::Encode`] for a value the feature's format
    /// cannot carry; [`FeatureError::TooLargeForPipe`] for a payload too long for a
    /// pipe-mode record.
    ///
    /// ```
    /// use perf_writer_std::{FileOutput, PerfWriter};
    /// use perf_writer_std::perf_encode::features::{CacheLevel, CpuCaches};
    /// let mut w = PerfWriter::<FileOutput>::new();
    /// let l1d = CacheLevel { level: 1, line_size: 64, sets: 64, ways: 8, type_: b"Data", size: b"32K", map: b"0" };
    /// w.set_cache_header(&CpuCaches { caches: &[l1d] })?;
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn set_cache_header(&mut self, caches: &CpuCaches<'_>) -> Result<(), WriterError> {
        self.model.set_encoded(feature::CACHE, caches)
    }

    /// Sets MEM_TOPOLOGY: the memory blocks of each node.
    ///
    /// # Errors
    ///
    /// Nothing changes on error: [`WriterError::Encode`] for a value the feature's format
    /// cannot carry; [`FeatureError::TooLargeForPipe`] for a payload too long for a
    /// pipe-mode record. A node's bitmap without `ceil(nbits / 64)` words is
    /// [`WriterError::Encode`].
    ///
    /// ```
    /// use perf_writer_std::{FileOutput, PerfWriter};
    /// use perf_writer_std::perf_encode::features::{MemTopology, MemoryNode};
    /// let mut w = PerfWriter::<FileOutput>::new();
    /// let nodes = [MemoryNode { node: 0, nbits: 8, bitmap: &[0xff] }];
    /// w.set_mem_topology_header(&MemTopology { block_size: 128 << 20, nodes: &nodes })?;
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn set_mem_topology_header(
        &mut self,
        topology: &MemTopology<'_>,
    ) -> Result<(), WriterError> {
        self.model.set_encoded(feature::MEM_TOPOLOGY, topology)
    }

    /// Sets DIR_FORMAT. perf writes it only in the `data` file of a directory recording
    /// (`perf record --threads`); perf 6.1 finding it in a plain file prints `assertion
    /// failed at util/header.c:…` (a `WARN_ON`), so set it only when writing such a
    /// directory's `data` file.
    ///
    /// ```
    /// let mut w = perf_writer_std::PerfWriter::<perf_writer_std::FileOutput>::new();
    /// w.set_dir_format_header(perf_writer_std::perf_encode::abi::DIR_FORMAT_VERSION);
    /// ```
    pub fn set_dir_format_header(&mut self, version: u64) {
        self.model
            .set_fixed(FeatureSlot::DIR_FORMAT, &DirFormat { version });
    }

    /// Sets BRANCH_STACK: a flag feature (no payload) saying the samples carry branch stacks;
    /// `perf report` then offers its branch view.
    ///
    /// Clear it with `set_header(BranchStack, &[])`.
    ///
    /// ```
    /// use perf_writer_std::{PerfHeaderIndex, FileOutput, PerfWriter};
    /// let mut w = PerfWriter::<FileOutput>::new();
    /// w.set_branch_stack_header();
    /// assert!(w.has_header(PerfHeaderIndex::BranchStack));
    /// assert!(w.get_header(PerfHeaderIndex::BranchStack).is_empty());
    /// ```
    pub fn set_branch_stack_header(&mut self) {
        self.model
            .set_fixed(FeatureSlot::BRANCH_STACK, &EmptyFeature);
    }

    /// Sets STAT: a flag feature (no payload) saying the file holds `perf stat record` data
    /// (STAT_CONFIG, STAT, STAT_ROUND records), so `perf report` hands it to `perf stat
    /// report`.
    ///
    /// ```
    /// use perf_writer_std::{PerfHeaderIndex, FileOutput, PerfWriter};
    /// let mut w = PerfWriter::<FileOutput>::new();
    /// w.set_stat_header();
    /// assert!(w.has_header(PerfHeaderIndex::Stat));
    /// ```
    pub fn set_stat_header(&mut self) {
        self.model.set_fixed(FeatureSlot::STAT, &EmptyFeature);
    }

    /// True when feature `index` is set, including the flag features whose payload is
    /// empty (EVENT_DESC and TRACING_DATA synthesized at finalize do not count).
    pub fn has_header(&self, index: crate::PerfHeaderIndex) -> bool {
        self.model.header_if_set(index.0).is_some()
    }

    /// Sets COMPRESSED: how the caller's PERF_RECORD_COMPRESSED records are compressed.
    ///
    /// perf needs it to decompress them. The records themselves are the caller's (the
    /// writer's own compression, [`set_compression`](Self::set_compression), sets it
    /// itself).
    ///
    /// # Errors
    ///
    /// As [`set_header`](Self::set_header) for COMPRESSED: in strict mode,
    /// [`EventError::ContradictsRecords`](crate::EventError::ContradictsRecords) when COMPRESSED records written before it could not
    /// be decompressed with it (nothing changes).
    ///
    /// ```
    /// use perf_abi::{CompressedInfo, COMPRESSED_VERSION, COMPRESSION_ZSTD};
    /// let mut w = perf_writer_std::PerfWriter::<perf_writer_std::FileOutput>::new();
    /// w.set_compressed_header(&CompressedInfo { version: COMPRESSED_VERSION, type_: COMPRESSION_ZSTD, level: 1, ratio: 3, mmap_len: 528384 })?;
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn set_compressed_header(&mut self, info: &CompressedInfo) -> Result<(), WriterError> {
        let bytes = info.fixed_bytes(self.model.endian());
        self.set_header(crate::PerfHeaderIndex(feature::COMPRESSED), &bytes)
    }

    /// Sets CPU_PMU_CAPS: the capabilities of the `cpu` PMU (`branches`, `max_precise`, …).
    ///
    /// # Errors
    ///
    /// Nothing changes on error: [`WriterError::Encode`] for a value the feature's format
    /// cannot carry; [`FeatureError::TooLargeForPipe`] for a payload too long for a
    /// pipe-mode record.
    ///
    /// ```
    /// use perf_writer_std::perf_encode::features::{CpuPmuCaps, PmuCap};
    /// let mut w = perf_writer_std::PerfWriter::<perf_writer_std::FileOutput>::new();
    /// w.set_cpu_pmu_caps_header(&CpuPmuCaps { caps: &[PmuCap { name: b"branches", value: b"32" }] })?;
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn set_cpu_pmu_caps_header(&mut self, caps: &CpuPmuCaps<'_>) -> Result<(), WriterError> {
        self.model.set_encoded(feature::CPU_PMU_CAPS, caps)
    }

    /// Sets PMU_CAPS: the capabilities of the other PMUs (an empty list is the 4-byte
    /// payload perf writes when no PMU has any).
    ///
    /// # Errors
    ///
    /// Nothing changes on error: [`WriterError::Encode`] for a value the feature's format
    /// cannot carry; [`FeatureError::TooLargeForPipe`] for a payload too long for a
    /// pipe-mode record.
    ///
    /// ```
    /// use perf_writer_std::perf_encode::features::{PmuCap, PmuCaps, PmuCapsEntry};
    /// let mut w = perf_writer_std::PerfWriter::<perf_writer_std::FileOutput>::new();
    /// let caps = [PmuCap { name: b"max_precise", value: b"3" }];
    /// w.set_pmu_caps_header(&PmuCaps { pmus: &[PmuCapsEntry { pmu: b"cpu_atom", caps: &caps }] })?;
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn set_pmu_caps_header(&mut self, pmus: &PmuCaps<'_>) -> Result<(), WriterError> {
        self.model.set_encoded(feature::PMU_CAPS, pmus)
    }

    /// Sets HYBRID_TOPOLOGY: the core types of a hybrid CPU and their CPUs.
    ///
    /// Not sent in pipe mode (perf does not either).
    ///
    /// # Errors
    ///
    /// Nothing changes on error: [`WriterError::Encode`] for a value the feature's format
    /// cannot carry; [`FeatureError::TooLargeForPipe`] for a payload too long for a
    /// pipe-mode record.
    ///
    /// ```
    /// use perf_writer_std::perf_encode::features::{HybridNode, HybridTopology};
    /// let mut w = perf_writer_std::PerfWriter::<perf_writer_std::FileOutput>::new();
    /// w.set_hybrid_topology_header(&HybridTopology { nodes: &[HybridNode { pmu: b"cpu_core", cpus: b"0-7" }] })?;
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn set_hybrid_topology_header(
        &mut self,
        topology: &HybridTopology<'_>,
    ) -> Result<(), WriterError> {
        self.model.set_encoded(feature::HYBRID_TOPOLOGY, topology)
    }

    /// Sets BPF_PROG_INFO and BPF_BTF to empty lists, what `perf record` writes when it saw
    /// no BPF program. perf 6.1 warns when it reads them from a file of the other byte
    /// order, so a writer whose byte order is not this machine's refuses
    /// ([`FeatureError::ForeignByteOrder`]) and leaves them unset.
    ///
    /// # Errors
    ///
    /// [`FeatureError::ForeignByteOrder`] when the writer's byte order is not this machine's
    /// (nothing is set).
    ///
    /// ```
    /// use perf_writer_std::{perf_encode::Endian, PerfHeaderIndex, WriterError, FileOutput, PerfWriter};
    /// let mut w = PerfWriter::<FileOutput>::new();
    /// w.set_empty_bpf_headers()?;
    /// assert_eq!(w.get_header(PerfHeaderIndex::BpfProgInfo), [0; 4]);
    /// let foreign = if Endian::NATIVE == Endian::Little { Endian::Big } else { Endian::Little };
    /// let mut swapped = PerfWriter::<FileOutput>::new_with_endian(foreign);
    /// assert!(matches!(swapped.set_empty_bpf_headers(), Err(WriterError::Feature(perf_writer_std::FeatureError::ForeignByteOrder(_)))));
    /// assert!(swapped.get_header(PerfHeaderIndex::BpfBtf).is_empty());
    /// # Ok::<(), WriterError>(())
    /// ```
    pub fn set_empty_bpf_headers(&mut self) -> Result<(), WriterError> {
        if self.model.endian() != Endian::NATIVE {
            return Err(WriterError::Feature(FeatureError::ForeignByteOrder(
                feature::BPF_PROG_INFO,
            )));
        }
        self.model
            .set_fixed(FeatureSlot::BPF_PROG_INFO, &EmptyBpfList);
        self.model.set_fixed(FeatureSlot::BPF_BTF, &EmptyBpfList);
        Ok(())
    }

    /// Sets every header `host` knows, as `perf record` fills them: HOSTNAME, OSRELEASE, ARCH,
    /// VERSION, NRCPUS, CPUDESC, CPUID, TOTAL_MEM, CMDLINE, CPU_TOPOLOGY, NUMA_TOPOLOGY,
    /// PMU_MAPPINGS, CACHE, MEM_TOPOLOGY, CPU_PMU_CAPS, PMU_CAPS and HYBRID_TOPOLOGY; a field
    /// that is `None` leaves its header as it was.
    ///
    /// BPF_PROG_INFO and BPF_BTF get empty lists unless already set, in this machine's byte
    /// order only (see [`set_empty_bpf_headers`](Self::set_empty_bpf_headers)).
    ///
    /// Not touched: the headers that describe the recording rather than the machine
    /// (EVENT_DESC, SAMPLE_TIME, BUILD_ID, GROUP_DESC, CLOCKID, CLOCK_DATA, COMPRESSED,
    /// TRACING_DATA). Every header is tried; the first refusal (a value the format cannot
    /// carry) is returned after the others were set.
    ///
    /// # Errors
    ///
    /// The first refusal of the setters above (a value the format cannot carry), returned after
    /// every other header was set.
    ///
    /// ```
    /// use perf_writer_std::{HostDescription, PerfHeaderIndex, FileOutput, PerfWriter};
    /// let host = HostDescription { hostname: Some("vm".into()), total_mem_kib: Some(1 << 20), ..Default::default() };
    /// let mut w = PerfWriter::<FileOutput>::new();
    /// w.set_host_headers(&host)?;
    /// assert_eq!(w.get_header(PerfHeaderIndex::TotalMem), (1u64 << 20).to_ne_bytes());
    /// assert!(w.get_header(PerfHeaderIndex::Arch).is_empty());
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn set_host_headers(&mut self, host: &HostDescription) -> Result<(), WriterError> {
        // One entry per step, in this order (NRCPUS before the CPU_TOPOLOGY it checks):
        // `None` where `host` lacks the feature or the step cannot fail. All run before the
        // first refusal is picked.
        let results = [
            self.set_host_strings(host),
            self.set_host_counts(host),
            host.cmdline_list()
                .map(|args| self.model.set_encoded(feature::CMDLINE, &args)),
            host.cpu_topology_view()
                .map(|t| self.set_cpu_topology_header(&t)),
            host.with_numa_topology(|t| self.set_numa_topology_header(t)),
            host.with_pmu_mappings(|p| self.set_pmu_mappings_header(p)),
            host.with_caches(|c| self.set_cache_header(c)),
            host.with_mem_topology(|t| self.set_mem_topology_header(t)),
            host.with_cpu_pmu_caps(|c| self.set_cpu_pmu_caps_header(c)),
            host.with_pmu_caps(|p| self.set_pmu_caps_header(p)),
            host.with_hybrid_topology(|t| self.set_hybrid_topology_header(t)),
            self.set_empty_bpf_headers_unless_set(),
        ];
        first_error(results.into_iter().flatten())
    }

    /// The string features `host` knows (each is tried).
    fn set_host_strings(&mut self, host: &HostDescription) -> Option<Result<(), WriterError>> {
        let results = host
            .string_features()
            .map(|(index, value)| self.model.set_encoded(index, &value));
        Some(first_error(results))
    }

    /// NRCPUS and TOTAL_MEM, which cannot be refused.
    fn set_host_counts(&mut self, host: &HostDescription) -> Option<Result<(), WriterError>> {
        if let Some(nr) = host.nr_cpus {
            self.model.set_fixed(FeatureSlot::NRCPUS, &nr);
        }
        if let Some(mem) = host.total_mem() {
            self.model.set_fixed(FeatureSlot::TOTAL_MEM, &mem);
        }
        None
    }

    /// BPF_PROG_INFO and BPF_BTF as `perf record` writes them, unless the caller set either;
    /// left out in the other byte order, where perf would warn about them.
    fn set_empty_bpf_headers_unless_set(&mut self) -> Option<Result<(), WriterError>> {
        let unset = self.model.header(feature::BPF_PROG_INFO).is_empty()
            && self.model.header(feature::BPF_BTF).is_empty();
        (unset && self.model.endian() == Endian::NATIVE).then(|| self.set_empty_bpf_headers())
    }

    /// Reads this machine's description ([`HostDescription::read`]) and sets its headers
    /// ([`set_host_headers`](Self::set_host_headers)).
    ///
    /// What cannot be read (a container without `/sys`) is left unset, never an error.
    ///
    /// # Errors
    ///
    /// As [`set_host_headers`](Self::set_host_headers).
    ///
    /// ```
    /// let mut w = perf_writer_std::PerfWriter::<perf_writer_std::FileOutput>::new();
    /// w.set_host_headers_from_this_machine()?;
    /// // Which headers are set depends on the machine; VERSION is the writer's on every one.
    /// assert!(!w.get_header(perf_writer_std::PerfHeaderIndex::Version).is_empty());
    /// # Ok::<(), perf_writer_std::WriterError>(())
    /// ```
    pub fn set_host_headers_from_this_machine(&mut self) -> Result<(), WriterError> {
        self.set_host_headers(&HostDescription::read())
    }

    /// NRCPUS as set, if it was set by a typed setter (decoded in the writer's byte order).
    fn nr_cpus_set(&self) -> Option<NrCpus> {
        let raw: [u8; 8] = self.model.header(feature::NRCPUS).try_into().ok()?;
        let endian = self.model.endian();
        let word = |b: &[u8]| -> Option<u32> {
            let b: [u8; 4] = b.try_into().ok()?;
            Some(match endian {
                Endian::Little => u32::from_le_bytes(b),
                Endian::Big => u32::from_be_bytes(b),
            })
        };
        Some(NrCpus {
            available: word(raw.get(..4)?)?,
            online: word(raw.get(4..)?)?,
        })
    }
}

/// The first error of `results`, all of them consumed (every header is tried).
fn first_error(
    results: impl IntoIterator<Item = Result<(), WriterError>>,
) -> Result<(), WriterError> {
    results.into_iter().fold(Ok(()), Result::and)
}
