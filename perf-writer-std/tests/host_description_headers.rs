//! `set_host_headers` writes, for every field of a `HostDescription`, the bytes of the typed
//! setter given the same values (independent of the machine the test runs on).

use perf_writer_std::perf_encode::features::{
    CacheLevel, CpuCaches, CpuPmuCaps, CpuTopology, CpuTopologyEntry, HybridNode, HybridTopology,
    MemTopology, MemoryNode, NumaNode, NumaTopology, PmuCap, PmuCaps, PmuCapsEntry, PmuMapping,
    PmuMappings,
};
use perf_writer_std::perf_encode::Endian;
use perf_writer_std::FeatureError;
use perf_writer_std::{
    CacheInfo, CpuTopologyInfo, FileOutput, HostDescription, HybridNodeInfo, MemTopologyInfo,
    MemoryNodeInfo, NumaNodeInfo, PerfHeaderIndex, PerfWriter, PmuCapInfo, PmuCapsInfo, PmuInfo,
    WriterError,
};

fn cap(name: &str, value: &str) -> PmuCapInfo {
    PmuCapInfo {
        name: name.into(),
        value: value.into(),
    }
}

/// A description with every field set, two entries where a field is a list.
fn full_host() -> HostDescription {
    HostDescription {
        hostname: Some("host".into()),
        os_release: Some("6.1.0-test".into()),
        arch: Some("x86_64".into()),
        version: Some("writer 1.0".into()),
        cmdline: Some(vec!["/usr/bin/app".into(), "--flag".into()]),
        nr_cpus: Some(perf_writer_std::perf_encode::abi::NrCpus {
            available: 2,
            online: 2,
        }),
        cpu_desc: Some("Test CPU @ 1.00GHz".into()),
        cpuid: Some("GenuineTest,6,1,2".into()),
        total_mem_kib: Some(8 << 20),
        cpu_topology: Some(CpuTopologyInfo {
            package_cpus: vec!["0-1".into()],
            die_cpus: vec!["0-1".into()],
            core_cpus: vec!["0".into(), "1".into()],
            cpus: vec![
                CpuTopologyEntry {
                    core_id: 0,
                    socket_id: 0,
                    die_id: 0,
                },
                CpuTopologyEntry {
                    core_id: 1,
                    socket_id: 0,
                    die_id: 0,
                },
            ],
        }),
        numa_nodes: Some(vec![
            NumaNodeInfo {
                node: 0,
                mem_total_kib: 4 << 20,
                mem_free_kib: 1 << 20,
                cpus: "0".into(),
            },
            NumaNodeInfo {
                node: 1,
                mem_total_kib: 4 << 20,
                mem_free_kib: 2 << 20,
                cpus: "1".into(),
            },
        ]),
        pmu_mappings: Some(vec![
            PmuInfo {
                name: "cpu".into(),
                type_: 4,
            },
            PmuInfo {
                name: "software".into(),
                type_: 1,
            },
        ]),
        caches: Some(vec![
            CacheInfo {
                level: 1,
                line_size: 64,
                sets: 64,
                ways: 8,
                type_: "Data".into(),
                size: "32K".into(),
                shared_cpu_list: "0".into(),
            },
            CacheInfo {
                level: 2,
                line_size: 64,
                sets: 1024,
                ways: 16,
                type_: "Unified".into(),
                size: "1024K".into(),
                shared_cpu_list: "0-1".into(),
            },
        ]),
        mem_topology: Some(MemTopologyInfo {
            block_size: 128 << 20,
            nodes: vec![
                MemoryNodeInfo {
                    node: 0,
                    nbits: 8,
                    bitmap: vec![0x0f],
                },
                MemoryNodeInfo {
                    node: 1,
                    nbits: 8,
                    bitmap: vec![0xf0],
                },
            ],
        }),
        cpu_pmu_caps: Some(vec![cap("branches", "32"), cap("max_precise", "3")]),
        pmu_caps: Some(vec![
            PmuCapsInfo {
                pmu: "cpu_atom".into(),
                caps: vec![cap("branches", "32")],
            },
            PmuCapsInfo {
                pmu: "cpu_core".into(),
                caps: vec![cap("branches", "32"), cap("max_precise", "3")],
            },
        ]),
        hybrid_topology: Some(vec![
            HybridNodeInfo {
                pmu: "cpu_atom".into(),
                cpus: "1".into(),
            },
            HybridNodeInfo {
                pmu: "cpu_core".into(),
                cpus: "0".into(),
            },
        ]),
    }
}

/// The same headers through the typed setters, the values written out by hand.
fn by_hand(w: &mut PerfWriter<FileOutput>) -> Result<(), WriterError> {
    let h = full_host();
    for (index, value) in [
        (PerfHeaderIndex::Hostname, "host"),
        (PerfHeaderIndex::OSRelease, "6.1.0-test"),
        (PerfHeaderIndex::Arch, "x86_64"),
        (PerfHeaderIndex::Version, "writer 1.0"),
        (PerfHeaderIndex::CpuDesc, "Test CPU @ 1.00GHz"),
        (PerfHeaderIndex::CpuId, "GenuineTest,6,1,2"),
    ] {
        w.set_string_header(index, value.as_bytes())?;
    }
    w.set_nr_cpus_header(2, 2);
    w.set_total_mem_header(8 << 20);
    w.set_cmdline_header(&["/usr/bin/app", "--flag"])?;
    let t = h.cpu_topology.as_ref().unwrap();
    w.set_cpu_topology_header(&CpuTopology {
        package_cpus: &["0-1"],
        core_cpus: &["0", "1"],
        die_cpus: &["0-1"],
        cpus: &t.cpus,
    })?;
    let nodes = [
        NumaNode {
            node: 0,
            mem_total_kib: 4 << 20,
            mem_free_kib: 1 << 20,
            cpus: b"0",
        },
        NumaNode {
            node: 1,
            mem_total_kib: 4 << 20,
            mem_free_kib: 2 << 20,
            cpus: b"1",
        },
    ];
    w.set_numa_topology_header(&NumaTopology { nodes: &nodes })?;
    let pmus = [
        PmuMapping {
            type_: 4,
            name: b"cpu",
        },
        PmuMapping {
            type_: 1,
            name: b"software",
        },
    ];
    w.set_pmu_mappings_header(&PmuMappings { pmus: &pmus })?;
    let caches = [
        CacheLevel {
            level: 1,
            line_size: 64,
            sets: 64,
            ways: 8,
            type_: b"Data",
            size: b"32K",
            map: b"0",
        },
        CacheLevel {
            level: 2,
            line_size: 64,
            sets: 1024,
            ways: 16,
            type_: b"Unified",
            size: b"1024K",
            map: b"0-1",
        },
    ];
    w.set_cache_header(&CpuCaches { caches: &caches })?;
    let mem = [
        MemoryNode {
            node: 0,
            nbits: 8,
            bitmap: &[0x0f],
        },
        MemoryNode {
            node: 1,
            nbits: 8,
            bitmap: &[0xf0],
        },
    ];
    w.set_mem_topology_header(&MemTopology {
        block_size: 128 << 20,
        nodes: &mem,
    })?;
    let branches = PmuCap {
        name: b"branches",
        value: b"32",
    };
    let precise = PmuCap {
        name: b"max_precise",
        value: b"3",
    };
    w.set_cpu_pmu_caps_header(&CpuPmuCaps {
        caps: &[branches, precise],
    })?;
    w.set_pmu_caps_header(&PmuCaps {
        pmus: &[
            PmuCapsEntry {
                pmu: b"cpu_atom",
                caps: &[branches],
            },
            PmuCapsEntry {
                pmu: b"cpu_core",
                caps: &[branches, precise],
            },
        ],
    })?;
    w.set_hybrid_topology_header(&HybridTopology {
        nodes: &[
            HybridNode {
                pmu: b"cpu_atom",
                cpus: b"1",
            },
            HybridNode {
                pmu: b"cpu_core",
                cpus: b"0",
            },
        ],
    })?;
    w.set_empty_bpf_headers()
}

#[test]
fn set_host_headers_writes_what_the_typed_setters_write() {
    for endian in [Endian::Little, Endian::Big] {
        let mut from_host = PerfWriter::<FileOutput>::new_with_endian(endian);
        from_host.set_host_headers(&full_host()).unwrap();
        let mut manual = PerfWriter::<FileOutput>::new_with_endian(endian);
        let r = by_hand(&mut manual);
        if endian == Endian::NATIVE {
            r.unwrap();
        } else {
            assert!(matches!(
                r,
                Err(WriterError::Feature(FeatureError::ForeignByteOrder(_)))
            ));
        }
        for index in 1..32u8 {
            let index = PerfHeaderIndex(index);
            assert_eq!(
                from_host.get_header(index),
                manual.get_header(index),
                "{index:?} {endian:?}"
            );
            assert_eq!(from_host.has_header(index), manual.has_header(index));
        }
        assert!(from_host.has_header(PerfHeaderIndex::HybridTopology));
    }
}

#[test]
fn every_header_is_tried_and_the_first_refusal_returned() {
    // NRCPUS says 3 CPUs and the topology lists 2: CPU_TOPOLOGY is refused. A bitmap of two
    // words for 8 bits: MEM_TOPOLOGY is refused too, later. The rest is set.
    let mut host = full_host();
    host.nr_cpus = Some(perf_writer_std::perf_encode::abi::NrCpus {
        available: 3,
        online: 3,
    });
    host.mem_topology.as_mut().unwrap().nodes[0].bitmap = vec![0x0f, 0];
    let mut w = PerfWriter::<FileOutput>::new();
    let err = w.set_host_headers(&host).unwrap_err();
    assert!(err.to_string().contains("CPU_TOPOLOGY"), "the first: {err}");
    assert!(!w.has_header(PerfHeaderIndex::CpuTopology));
    assert!(!w.has_header(PerfHeaderIndex::MemTopology));
    for set in [
        PerfHeaderIndex::Hostname,
        PerfHeaderIndex::NrCpus,
        PerfHeaderIndex::NumaTopology,
        PerfHeaderIndex::Cache,
        PerfHeaderIndex::HybridTopology,
        PerfHeaderIndex::BpfBtf,
    ] {
        assert!(w.has_header(set), "{set:?}");
    }
}
