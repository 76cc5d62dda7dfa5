//! Host headers written by `set_host_headers_from_this_machine` against `perf record` run on
//! the same machine, and the typed feature setters against what perf 6.1 prints.
//!
//! - `host_headers_match_perf_record_on_this_machine`: a `perf record` file and a file of
//!   our writer, made in the same test, print the same host lines in `perf report
//!   --header-only -I` (hostname, os release, arch, nrcpus, cpudesc, cpuid, total memory,
//!   CPU topology, NUMA cpu lists and totals, PMU mappings, caches, memory nodes, PMU
//!   capabilities), carry byte-identical payloads for them (NUMA free memory masked, PMU
//!   mappings as a set), and our file misses no feature perf wrote except BUILD_ID.
//! - `pipe_mode_host_headers_print_the_same`: the same through `PerfPipeWriter`;
//!   `byte_swapped_host_headers_print_the_same`: the same in the other byte order.
//! - `typed_features_print_as_perf_prints_them`: GROUP_DESC, COMPRESSED, CPU_PMU_CAPS,
//!   PMU_CAPS, HYBRID_TOPOLOGY, MEM_TOPOLOGY and BUILD_ID (via `perf buildid-list`) with
//!   values made up here.
//! - `a_host_description_without_sources_sets_only_what_it_has`: a description read from
//!   empty `/sys` and `/proc` trees gives a clean file whose machine features are missing.
//!
//! Every perf run must be clean (`assert_clean`); without perf and with `CI` unset the tests
//! are skipped.

use integration_tests::fixtures::FixtureContent;
use integration_tests::perf_tool::{
    parse_header_only, perf_report_header, require_perf, require_perf_record, run_perf, HeaderInfo,
};
use integration_tests::{feature_name, Endian};
use perf_writer_std::perf_encode::abi::ANON_GROUP_NAME;
use perf_writer_std::perf_encode::abi::{CompressedInfo, COMPRESSED_VERSION, COMPRESSION_ZSTD};
use perf_writer_std::perf_encode::features::{
    BuildIdEntry, CpuPmuCaps, GroupDesc, GroupDescFeature, HybridNode, HybridTopology, MemTopology,
    MemoryNode, PmuCap, PmuCaps, PmuCapsEntry,
};
use perf_writer_std::{FileOutput, HostDescription, PerfPipeWriter, PerfWriter};
use std::collections::BTreeSet;
use std::path::Path;
use tracepoint_decode::{
    PerfEventAttr, PerfEventAttrOptions, PerfEventAttrSampleType, PerfEventAttrType,
};

// Feature bits (perf 6.1 numbering).
const HOSTNAME: u32 = 3;
const OSRELEASE: u32 = 4;
const ARCH: u32 = 6;
const NRCPUS: u32 = 7;
const CPUDESC: u32 = 8;
const CPUID: u32 = 9;
const CPU_TOPOLOGY: u32 = 13;
const NUMA_TOPOLOGY: u32 = 14;
const PMU_MAPPINGS: u32 = 16;
const CACHE: u32 = 20;
const MEM_TOPOLOGY: u32 = 22;
const BPF_PROG_INFO: u32 = 25;
const BPF_BTF: u32 = 26;
const CPU_PMU_CAPS: u32 = 28;
const HYBRID_TOPOLOGY: u32 = 30;
const PMU_CAPS: u32 = 31;

const SAMPLE_ID_ALL: u64 = 1 << 18;
/// IDENTIFIER | IP | TID | TIME | PERIOD.
const SAMPLE_TYPE: u64 = (1 << 16) | 1 | 2 | 4 | (1 << 8);

fn software_attr(config: u64) -> PerfEventAttr {
    PerfEventAttr {
        attr_type: PerfEventAttrType::Software,
        config,
        sample_time: 4000,
        sample_type: PerfEventAttrSampleType(SAMPLE_TYPE),
        options: PerfEventAttrOptions(SAMPLE_ID_ALL),
        ..Default::default()
    }
}

/// A SAMPLE of layout IDENTIFIER | IP | TID | TIME | PERIOD, native byte order.
fn sample(id: u64, time: u64) -> Vec<u8> {
    sample_in(cfg!(target_endian = "big"), id, time)
}

/// [`sample`] in big-endian (`big`) or little-endian byte order.
fn sample_in(big: bool, id: u64, time: u64) -> Vec<u8> {
    let u16b = |v: u16| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let u32b = |v: u32| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let u64b = |v: u64| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let mut r = Vec::new();
    r.extend_from_slice(&u32b(9));
    r.extend_from_slice(&u16b(2)); // user
    r.extend_from_slice(&u16b(48));
    r.extend_from_slice(&u64b(id));
    r.extend_from_slice(&u64b(0x40_1000));
    r.extend_from_slice(&u32b(1));
    r.extend_from_slice(&u32b(1));
    r.extend_from_slice(&u64b(time));
    r.extend_from_slice(&u64b(1));
    r
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

/// `perf record -e cpu-clock` of a short sleep into `path`.
fn perf_record(path: &Path) {
    run_perf(
        &[
            "record",
            "-q",
            "-o",
            path_str(path),
            "-e",
            "cpu-clock",
            "--",
            "sleep",
            "0.05",
        ],
        None,
    )
    .assert_clean();
}

/// One cpu-clock event, one sample, SAMPLE_TIME and this machine's host headers.
fn write_ours(path: &Path) {
    let mut w = PerfWriter::<FileOutput>::new();
    w.create_file(path_str(path)).unwrap();
    w.add_event_desc(&[1], &software_attr(0), "cpu-clock")
        .unwrap();
    w.write_event_data(&sample(1, 1_000_000)).unwrap();
    w.set_sample_time_header(1_000_000, 1_000_000);
    w.set_host_headers_from_this_machine().unwrap();
    w.finalize_and_close().unwrap();
}

fn header(path: &Path) -> HeaderInfo {
    let out = perf_report_header(path, true);
    out.assert_clean();
    parse_header_only(&out.stdout)
}

/// Is this `--header-only -I` key one of the lines that describe the host?
fn is_host_key(key: &str) -> bool {
    const PLAIN: [&str; 8] = [
        "hostname",
        "os release",
        "arch",
        "nrcpus online",
        "nrcpus avail",
        "cpudesc",
        "cpuid",
        "total memory",
    ];
    let numbered = |k: &str, prefix: &str| {
        k.strip_prefix(prefix)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    PLAIN.contains(&key)
        || key.starts_with("sibling ")
        || numbered(key, "CPU ")
        || (key.starts_with("node") && key.ends_with(" cpu list"))
        || key.starts_with("memory nodes (")
        || key.bytes().next().is_some_and(|b| b.is_ascii_digit()) // "0 [24G]" memory rows
        || key.ends_with("pmu capabilities")
        || key == "CPU cache info"
        || key == "hybrid cpu system"
        || (key.starts_with("cpu_") && key.ends_with(" cpu list"))
}

/// The host lines as (key, value), memory figures left to [`node_totals_agree`] (free memory
/// moves, and so do totals a little on a VM whose balloon driver takes or gives memory).
fn host_lines(h: &HeaderInfo) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = h
        .entries
        .iter()
        .filter(|(k, _)| is_host_key(k))
        .map(|(k, v)| match k.as_str() {
            "total memory" => (k.clone(), "(compared apart)".to_string()),
            _ => (k.clone(), v.clone()),
        })
        .collect();
    for (k, _) in &h.entries {
        if k.starts_with("node") && k.ends_with(" meminfo") {
            // A node's total moves between two reads on a VM whose balloon driver gives
            // memory back: compared by [`node_totals_agree`], not here.
            out.push((k.clone(), "total = (compared apart)".to_string()));
        }
    }
    out
}

/// `total memory : T kB` and `nodeN meminfo : total = T kB` of both files: the same lines,
/// totals within 1 % (free memory changes all the time; a ballooned VM's totals a little).
fn node_totals_agree(a: &HeaderInfo, b: &HeaderInfo) {
    let totals = |h: &HeaderInfo| -> Vec<(String, u64)> {
        h.entries
            .iter()
            .filter(|(k, _)| {
                k == "total memory" || (k.starts_with("node") && k.ends_with(" meminfo"))
            })
            .map(|(k, v)| {
                let kb = v
                    .trim_start_matches("total = ")
                    .split_whitespace()
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| panic!("{k}: {v}"));
                (k.clone(), kb)
            })
            .collect()
    };
    let (x, y) = (totals(a), totals(b));
    assert_eq!(x.len(), y.len(), "{x:?} {y:?}");
    for ((kx, tx), (ky, ty)) in x.iter().zip(&y) {
        assert_eq!(kx, ky);
        assert!(
            tx.abs_diff(*ty) * 100 <= (*tx).max(*ty),
            "{kx}: {tx} kB against {ty} kB"
        );
    }
}

/// Cache rows (`L1 Data 32K [0]`), whitespace-normalized, in order.
fn cache_rows(h: &HeaderInfo) -> Vec<String> {
    h.other_lines
        .iter()
        .filter(|l| l.starts_with('L') && l.as_bytes().get(1).is_some_and(u8::is_ascii_digit))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// `software = 1, uprobe = 8, …` as a set.
fn pmu_mapping_set(h: &HeaderInfo) -> BTreeSet<String> {
    h.get("pmu mappings")
        .unwrap_or("")
        .split(", ")
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// NUMA_TOPOLOGY bytes with every node's `mem_free` zeroed.
fn numa_without_memory(payload: &[u8], e: Endian) -> Vec<u8> {
    let mut b = payload.to_vec();
    let nr = e.u32_at(&b, 0).unwrap();
    let mut pos = 4;
    for _ in 0..nr {
        pos += 4; // node
                  // mem_total and mem_free: both move between two reads (node_totals_agree compares
                  // the totals as perf prints them).
        b[pos..pos + 16].fill(0);
        pos += 16;
        pos += 4 + e.u32_at(&b, pos).unwrap() as usize;
    }
    assert_eq!(pos, b.len(), "NUMA_TOPOLOGY parses");
    b
}

/// PMU_MAPPINGS as a set of (type, name).
fn pmu_mapping_payload_set(payload: &[u8], e: Endian) -> BTreeSet<(u32, String)> {
    let nr = e.u32_at(payload, 0).unwrap();
    let mut pos = 4;
    let mut out = BTreeSet::new();
    for _ in 0..nr {
        let type_ = e.u32_at(payload, pos).unwrap();
        let len = e.u32_at(payload, pos + 4).unwrap() as usize;
        let raw = &payload[pos + 8..pos + 8 + len];
        let name = String::from_utf8_lossy(raw.split(|&b| b == 0).next().unwrap()).into_owned();
        out.insert((type_, name));
        pos += 8 + len;
    }
    assert_eq!(pos, payload.len(), "PMU_MAPPINGS parses");
    out
}

#[test]
fn host_headers_match_perf_record_on_this_machine() {
    if !require_perf_record() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("perf-record.data");
    let ours = dir.path().join("ours.data");
    perf_record(&rec);
    write_ours(&ours);

    let (p, o) = (header(&rec), header(&ours));
    let (p_lines, o_lines) = (host_lines(&p), host_lines(&o));
    node_totals_agree(&p, &o);
    // The lines perf prints on every Linux machine, and those it prints when this machine
    // has their source (so that the comparison below is never vacuous where it can be full).
    let has = |path: &str| Path::new(path).exists();
    let mut keys = vec![
        "hostname",
        "os release",
        "arch",
        "nrcpus online",
        "nrcpus avail",
        "total memory",
    ];
    if has("/sys/devices/system/cpu/cpu0/topology") {
        keys.extend(["sibling sockets", "sibling threads", "CPU 0"]);
    }
    if has("/sys/devices/system/node/node0") {
        keys.extend(["node0 cpu list", "node0 meminfo"]);
    }
    if cfg!(target_arch = "x86_64") {
        keys.extend(["cpudesc", "cpuid"]);
    }
    for key in keys {
        assert!(
            p_lines.iter().any(|(k, _)| k == key),
            "perf record printed no {key:?}: {p_lines:?}"
        );
    }
    assert_eq!(
        o_lines, p_lines,
        "host lines of our file (left) and perf record's (right)"
    );
    if has("/sys/devices/system/cpu/cpu0/cache/index0") {
        assert!(!cache_rows(&p).is_empty(), "perf printed caches");
    }
    assert_eq!(cache_rows(&o), cache_rows(&p), "cache rows");
    if has("/sys/bus/event_source/devices/software") {
        assert!(!pmu_mapping_set(&p).is_empty());
    }
    assert_eq!(pmu_mapping_set(&o), pmu_mapping_set(&p), "pmu mappings");
    assert_eq!(
        o.get("perf version"),
        Some(concat!("perf-writer-std ", env!("CARGO_PKG_VERSION")))
    );

    // Nothing perf record writes is missing from our file, but build ids.
    let p_missing: BTreeSet<&str> = p.missing_features.iter().map(String::as_str).collect();
    let extra: Vec<&String> = o
        .missing_features
        .iter()
        .filter(|f| !p_missing.contains(f.as_str()) && f.as_str() != "BUILD_ID")
        .collect();
    assert!(
        extra.is_empty(),
        "missing in our file but written by perf record: {extra:?}"
    );

    // And the payloads are perf's bytes.
    let pc = FixtureContent::from_path(&rec).unwrap();
    let oc = FixtureContent::from_path(&ours).unwrap();
    let p_bits: BTreeSet<u32> = pc.features.keys().copied().collect();
    let o_bits: BTreeSet<u32> = oc.features.keys().copied().collect();
    let not_ours: Vec<&str> = p_bits
        .difference(&o_bits)
        .filter_map(|&b| feature_name(b))
        .filter(|&n| n != "BUILD_ID")
        .collect();
    assert!(
        not_ours.is_empty(),
        "features perf wrote and we did not: {not_ours:?}"
    );
    for bit in [
        HOSTNAME,
        OSRELEASE,
        ARCH,
        NRCPUS,
        CPUDESC,
        CPUID,
        CPU_TOPOLOGY,
        CACHE,
        MEM_TOPOLOGY,
        CPU_PMU_CAPS,
        PMU_CAPS,
        HYBRID_TOPOLOGY,
    ] {
        assert_eq!(
            oc.features.get(&bit),
            pc.features.get(&bit),
            "payload of {}",
            feature_name(bit).unwrap()
        );
    }
    for bit in [BPF_PROG_INFO, BPF_BTF] {
        if pc.features.get(&bit).map(Vec::as_slice) == Some(&[0, 0, 0, 0][..]) {
            assert_eq!(oc.features.get(&bit), pc.features.get(&bit));
        }
    }
    assert_eq!(
        oc.features
            .get(&NUMA_TOPOLOGY)
            .map(|p| numa_without_memory(p, oc.endian)),
        pc.features
            .get(&NUMA_TOPOLOGY)
            .map(|p| numa_without_memory(p, pc.endian)),
        "NUMA_TOPOLOGY but its memory figures"
    );
    assert_eq!(
        oc.features
            .get(&PMU_MAPPINGS)
            .map(|p| pmu_mapping_payload_set(p, oc.endian)),
        pc.features
            .get(&PMU_MAPPINGS)
            .map(|p| pmu_mapping_payload_set(p, pc.endian)),
        "PMU_MAPPINGS entries"
    );
}

#[test]
fn pipe_mode_host_headers_print_the_same() {
    if !require_perf_record() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("perf-record.data");
    let pipe = dir.path().join("ours.pipe");
    perf_record(&rec);
    let mut w = PerfPipeWriter::new();
    w.create_file(path_str(&pipe)).unwrap();
    w.add_event_desc(&[1], &software_attr(0), "cpu-clock")
        .unwrap();
    w.set_host_headers_from_this_machine().unwrap();
    w.write_event_data(&sample(1, 1_000_000)).unwrap();
    w.finalize_and_close().unwrap();

    let (p, o) = (header(&rec), header(&pipe));
    // perf sends no CACHE and no HYBRID_TOPOLOGY in pipe mode, and neither do we.
    let keep = |lines: Vec<(String, String)>| -> Vec<(String, String)> {
        lines
            .into_iter()
            .filter(|(k, _)| k != "CPU cache info" && k != "hybrid cpu system")
            .filter(|(k, _)| !(k.starts_with("cpu_") && k.ends_with(" cpu list")))
            .collect()
    };
    assert_eq!(keep(host_lines(&o)), keep(host_lines(&p)));
    node_totals_agree(&o, &p);
    assert!(cache_rows(&o).is_empty());
    assert_eq!(pmu_mapping_set(&o), pmu_mapping_set(&p));
}

#[test]
fn byte_swapped_host_headers_print_the_same() {
    if !require_perf_record() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("perf-record.data");
    let swapped = dir.path().join("swapped.data");
    perf_record(&rec);
    let other = if cfg!(target_endian = "big") {
        perf_writer_std::Endian::Little
    } else {
        perf_writer_std::Endian::Big
    };
    let mut w = PerfWriter::<FileOutput>::new_with_endian(other);
    w.create_file(path_str(&swapped)).unwrap();
    w.add_event_desc(&[1], &software_attr(0), "cpu-clock")
        .unwrap();
    w.write_event_data(&sample_in(other == perf_writer_std::Endian::Big, 1, 1_000))
        .unwrap();
    w.set_host_headers_from_this_machine().unwrap();
    w.finalize_and_close().unwrap();
    let (p, o) = (header(&rec), header(&swapped));
    assert_eq!(host_lines(&o), host_lines(&p));
    node_totals_agree(&o, &p);
    assert_eq!(cache_rows(&o), cache_rows(&p));
    assert_eq!(pmu_mapping_set(&o), pmu_mapping_set(&p));
    // perf warns about BPF features of the other byte order: the writer leaves them out.
    assert!(o.missing_features.iter().any(|f| f == "BPF_PROG_INFO"));
}

#[test]
fn typed_features_print_as_perf_prints_them() {
    if !require_perf() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("typed.data");
    let mut w = PerfWriter::<FileOutput>::new();
    w.create_file(path_str(&path)).unwrap();
    w.add_event_desc(&[1], &software_attr(0), "cpu-clock")
        .unwrap();
    w.add_event_desc(&[2], &software_attr(1), "task-clock")
        .unwrap();
    w.write_event_data(&sample(1, 1_000)).unwrap();
    w.write_event_data(&sample(2, 2_000)).unwrap();
    w.set_sample_time_header(1_000, 2_000);
    w.set_group_desc_header(&GroupDescFeature {
        groups: &[GroupDesc {
            name: ANON_GROUP_NAME,
            leader_idx: 0,
            nr_members: 2,
        }],
    })
    .unwrap();
    w.set_compressed_header(&CompressedInfo {
        version: COMPRESSED_VERSION,
        type_: COMPRESSION_ZSTD,
        level: 3,
        ratio: 4,
        mmap_len: 528_384,
    })
    .unwrap();
    w.set_cpu_pmu_caps_header(&CpuPmuCaps {
        caps: &[
            PmuCap {
                name: b"branches",
                value: b"32",
            },
            PmuCap {
                name: b"max_precise",
                value: b"3",
            },
        ],
    })
    .unwrap();
    let atom_caps = [PmuCap {
        name: b"max_precise",
        value: b"2",
    }];
    w.set_pmu_caps_header(&PmuCaps {
        pmus: &[PmuCapsEntry {
            pmu: b"cpu_atom",
            caps: &atom_caps,
        }],
    })
    .unwrap();
    w.set_hybrid_topology_header(&HybridTopology {
        nodes: &[
            HybridNode {
                pmu: b"cpu_core",
                cpus: b"0-1",
            },
            HybridNode {
                pmu: b"cpu_atom",
                cpus: b"2-3",
            },
        ],
    })
    .unwrap();
    // Blocks 0-3 and 64 of node 0, block 65 of node 1, 128 MiB blocks.
    w.set_mem_topology_header(&MemTopology {
        block_size: 128 << 20,
        nodes: &[
            MemoryNode {
                node: 0,
                nbits: 65,
                bitmap: &[0b1111, 1],
            },
            MemoryNode {
                node: 1,
                nbits: 66,
                bitmap: &[0, 0b10],
            },
        ],
    })
    .unwrap();
    let kernel_id = [0xabu8; 20];
    let short_id = [0x12u8, 0x34, 0x56, 0x78];
    w.set_build_id_header(&[
        BuildIdEntry {
            misc: perf_writer_std::perf_encode::abi::misc::KERNEL,
            pid: -1,
            build_id: &kernel_id,
            filename: b"[kernel.kallsyms]",
        },
        BuildIdEntry {
            misc: perf_writer_std::perf_encode::abi::misc::USER,
            pid: -1,
            build_id: &short_id,
            filename: b"/opt/made-up/binary",
        },
    ])
    .unwrap();
    w.finalize_and_close().unwrap();

    let out = perf_report_header(&path, true);
    out.assert_clean();
    let lines: Vec<&str> = out.stdout.lines().collect();
    for expected in [
        "# group: {cpu-clock,task-clock}",
        "# compressed : Zstd, level = 3, ratio = 4",
        "# cpu pmu capabilities: branches=32, max_precise=3",
        "# cpu_atom pmu capabilities: max_precise=2",
        "# hybrid cpu system:",
        "# cpu_core cpu list : 0-1",
        "# cpu_atom cpu list : 2-3",
        "# memory nodes (nr 2, block size 0x8000000):",
        "#    0 [640M]: 0-3,64",
        "#    1 [128M]: 65",
    ] {
        assert!(
            lines.contains(&expected),
            "missing {expected:?}\n{}",
            out.stdout
        );
    }

    let ids = run_perf(&["buildid-list", "--force", "-i", path_str(&path)], None);
    ids.assert_clean();
    // perf pads a short build id to 40 columns: compare words.
    let ids: Vec<String> = ids
        .stdout
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert!(
        ids.iter()
            .any(|l| l == "abababababababababababababababababababab [kernel.kallsyms]"),
        "{ids:?}"
    );
    assert!(
        ids.iter().any(|l| l == "12345678 /opt/made-up/binary"),
        "{ids:?}"
    );
}

#[test]
fn a_host_description_without_sources_sets_only_what_it_has() {
    if !require_perf() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bare.data");
    let host = HostDescription::read_from(&dir.path().join("sys"), &dir.path().join("proc"));
    let mut w = PerfWriter::<FileOutput>::new();
    w.create_file(path_str(&path)).unwrap();
    w.add_event_desc(&[1], &software_attr(0), "cpu-clock")
        .unwrap();
    w.write_event_data(&sample(1, 1_000)).unwrap();
    w.set_host_headers(&host).unwrap();
    w.finalize_and_close().unwrap();
    let h = header(&path);
    assert!(h.hostname().is_some() && h.arch().is_some() && h.os_release().is_some());
    for f in [
        "NRCPUS",
        "CPU_TOPOLOGY",
        "NUMA_TOPOLOGY",
        "CACHE",
        "MEM_TOPOLOGY",
        "PMU_MAPPINGS",
    ] {
        assert!(
            h.missing_features.iter().any(|m| m == f),
            "{f} should be missing: {:?}",
            h.missing_features
        );
    }
}
