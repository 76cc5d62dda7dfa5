//! HEADER_BUILD_ID, as `perf record` writes it: the build id of each object the samples
//! hit, so that perf finds the very binary they ran (in its build-id cache, or checked
//! against the file at the path). [`Hits`] notes where each SAMPLE's ip was and which
//! files the processes mapped, as the records go into the file; once the recording
//! stopped, [`Hits::build_ids`] resolves the places to files and reads their ids from the
//! ELF notes (`object`), the kernel's from `/sys/kernel/notes` and a module's from
//! `/sys/module/NAME/notes`.

use crate::kernel_maps::{KernelMaps, KERNEL_NAME};
use object::read::elf::{FileHeader, NoteIterator, ProgramHeader, SectionHeader};
use object::{elf, Endianness, FileKind, NativeEndian, ReadRef};
use perf_abi::misc;
use rustc_hash::FxHashSet;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

/// Where a sample's code was: its record's cpu mode, its process (0 for the kernel) and
/// the page of its ip (mappings start on pages).
type Place = (u16, u32, u64);

/// The page of an address.
const PAGE_MASK: u64 = !0xfff;

/// A file mapped by a process: its first address, the address after it, and its path.
type MappedFile = (u64, u64, Arc<[u8]>);

/// The places of the samples and the mappings they may fall in.
#[derive(Debug, Default)]
pub struct Hits {
    /// Off (a pipe-mode stream, which carries no build ids): nothing is noted.
    on: bool,
    /// The place noted last: consecutive samples of one loop are noted once.
    last: Option<Place>,
    places: FxHashSet<Place>,
    /// Each process's mappings of files, in the order they came (a later one wins).
    user: HashMap<u32, Vec<MappedFile>>,
    kernel: KernelMaps,
}

/// One object of HEADER_BUILD_ID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectBuildId {
    /// `misc::KERNEL` or `misc::USER`.
    pub cpumode: u16,
    /// Its path (`[kernel.kallsyms]` for the kernel).
    pub path: Vec<u8>,
    /// Its build id.
    pub build_id: Vec<u8>,
}

impl Hits {
    /// Notes nothing when `on` is false.
    pub fn new(on: bool) -> Hits {
        Hits {
            on,
            ..Hits::default()
        }
    }

    /// True when places are noted.
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// The kernel's text and modules, where kernel samples fall.
    pub fn set_kernel(&mut self, kernel: KernelMaps) {
        self.kernel = kernel;
    }

    /// A SAMPLE of cpu mode `misc` (its header's), process `pid`, at `ip`.
    #[inline]
    pub fn note_sample(&mut self, misc: u16, pid: u32, ip: u64) {
        let mode = misc & misc::CPUMODE_MASK;
        let pid = if mode == misc::KERNEL { 0 } else { pid };
        let place = (mode, pid, ip & PAGE_MASK);
        if self.on && self.last != Some(place) {
            self.last = Some(place);
            self.places.insert(place);
        }
    }

    /// Process `pid` mapped `len` bytes of `path` at `start` (an MMAP or MMAP2 record).
    pub fn note_mapping(&mut self, pid: u32, start: u64, len: u64, path: &[u8]) {
        if self.on && is_file(path) {
            self.user.entry(pid).or_default().push((
                start,
                start.saturating_add(len),
                Arc::from(path),
            ));
        }
    }

    /// The objects the samples hit (cpu mode and path), each once.
    pub fn objects(&self) -> BTreeMap<Vec<u8>, u16> {
        let mut objects = BTreeMap::new();
        for &(mode, pid, page) in &self.places {
            match mode {
                misc::KERNEL => {
                    let path = self
                        .kernel
                        .modules
                        .iter()
                        .find(|m| m.start <= page && page < m.start.saturating_add(m.size))
                        .map_or(KERNEL_NAME, |m| m.path.as_slice());
                    objects.insert(path.to_vec(), misc::KERNEL);
                }
                misc::USER => {
                    let hit = self.user.get(&pid).and_then(|maps| {
                        maps.iter()
                            .rev()
                            .find(|(start, end, _)| *start <= page && page < *end)
                    });
                    if let Some((.., path)) = hit {
                        objects.insert(path.to_vec(), misc::USER);
                    }
                }
                _ => {}
            }
        }
        objects
    }

    /// The build ids of the objects the samples hit, those that have one that can be read.
    pub fn build_ids(&self) -> Vec<ObjectBuildId> {
        self.objects()
            .into_iter()
            .filter_map(|(path, cpumode)| {
                let build_id = match cpumode {
                    misc::KERNEL if path == KERNEL_NAME => {
                        notes_build_id(&std::fs::read("/sys/kernel/notes").ok()?)
                    }
                    misc::KERNEL => {
                        let m = self.kernel.modules.iter().find(|m| m.path == path)?;
                        let notes = Path::new("/sys/module")
                            .join(&m.name)
                            .join("notes/.note.gnu.build-id");
                        notes_build_id(&std::fs::read(notes).ok()?)
                    }
                    _ => file_build_id(&path),
                }?;
                Some(ObjectBuildId {
                    cpumode,
                    path,
                    build_id,
                })
            })
            .collect()
    }
}

/// A mapping of a file, not of memory perf names in brackets (`[vdso]`, `[stack]`) or
/// anonymous memory (`//anon`).
fn is_file(path: &[u8]) -> bool {
    path.first() == Some(&b'/') && !path.starts_with(b"//")
}

/// The GNU build id of an ELF notes section's bytes (`/sys/kernel/notes`).
pub fn notes_build_id(data: &[u8]) -> Option<Vec<u8>> {
    type Header = elf::FileHeader64<NativeEndian>;
    let mut notes = NoteIterator::<Header>::new(NativeEndian, 4, data).ok()?;
    while let Ok(Some(note)) = notes.next() {
        if note.name() == elf::ELF_NOTE_GNU && note.n_type(NativeEndian) == elf::NT_GNU_BUILD_ID {
            return Some(note.desc().to_vec());
        }
    }
    None
}

/// The GNU build id of the ELF file at `path`, read from its note sections (or note
/// segments) without reading the rest of the file.
pub fn file_build_id(path: &[u8]) -> Option<Vec<u8>> {
    use std::os::unix::ffi::OsStrExt;
    let file = std::fs::File::open(std::ffi::OsStr::from_bytes(path)).ok()?;
    let cache = object::ReadCache::new(file);
    match FileKind::parse(&cache).ok()? {
        FileKind::Elf64 => elf_build_id::<elf::FileHeader64<Endianness>, _>(&cache),
        FileKind::Elf32 => elf_build_id::<elf::FileHeader32<Endianness>, _>(&cache),
        _ => None,
    }
}

/// The GNU build id of the ELF file in `data`, of header type `Elf`.
fn elf_build_id<'data, Elf: FileHeader<Endian = Endianness>, R: ReadRef<'data>>(
    data: R,
) -> Option<Vec<u8>> {
    let header = Elf::parse(data).ok()?;
    let endian = header.endian().ok()?;
    let gnu_id = |mut notes: NoteIterator<'data, Elf>| {
        while let Ok(Some(note)) = notes.next() {
            if note.name() == elf::ELF_NOTE_GNU && note.n_type(endian) == elf::NT_GNU_BUILD_ID {
                return Some(note.desc().to_vec());
            }
        }
        None
    };
    let sections = header.section_headers(endian, data).ok()?;
    let in_sections = sections
        .iter()
        .filter_map(|s| s.notes(endian, data).ok().flatten())
        .find_map(gnu_id);
    in_sections.or_else(|| {
        header
            .program_headers(endian, data)
            .ok()?
            .iter()
            .filter_map(|p| p.notes(endian, data).ok().flatten())
            .find_map(gnu_id)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel_maps::Module;

    #[test]
    fn samples_resolve_to_the_files_and_modules_they_hit() {
        let mut hits = Hits::new(true);
        hits.set_kernel(KernelMaps {
            text: None,
            modules: vec![Module {
                name: "m".into(),
                start: 0xffff_0000,
                size: 0x2000,
                path: b"/lib/modules/m.ko".to_vec(),
            }],
        });
        hits.note_mapping(7, 0x1000, 0x2000, b"/bin/a");
        hits.note_mapping(7, 0x5000, 0x1000, b"[vdso]");
        hits.note_mapping(8, 0x1000, 0x1000, b"/bin/b");
        // A later mapping of the same range wins (an exec replaced the process's image).
        hits.note_mapping(9, 0x1000, 0x1000, b"/bin/old");
        hits.note_mapping(9, 0x1000, 0x1000, b"/bin/new");
        for (mode, pid, ip) in [
            (misc::USER, 7, 0x2abc),
            (misc::USER, 7, 0x5010),
            (misc::USER, 7, 0x9000),
            (misc::USER, 9, 0x1001),
            (misc::KERNEL, 7, 0xffff_1000),
            (misc::KERNEL, 8, 0xffff_ffff_8100_0000),
        ] {
            hits.note_sample(mode, pid, ip);
        }
        let objects: Vec<(Vec<u8>, u16)> = hits.objects().into_iter().collect();
        assert_eq!(
            objects,
            [
                (b"/bin/a".to_vec(), misc::USER),
                (b"/bin/new".to_vec(), misc::USER),
                (b"/lib/modules/m.ko".to_vec(), misc::KERNEL),
                (KERNEL_NAME.to_vec(), misc::KERNEL),
            ]
        );
        let mut off = Hits::new(false);
        off.note_mapping(7, 0x1000, 0x2000, b"/bin/a");
        off.note_sample(misc::USER, 7, 0x1000);
        assert!(off.objects().is_empty());
    }

    #[test]
    fn build_ids_from_notes_and_files() {
        // A note: namesz 4, descsz 4, type 3 (NT_GNU_BUILD_ID), "GNU\0", the id.
        let mut note = Vec::new();
        for word in [4u32, 4, 3] {
            note.extend_from_slice(&word.to_ne_bytes());
        }
        note.extend_from_slice(b"GNU\0\x01\x02\x03\x04");
        assert_eq!(notes_build_id(&note), Some(vec![1, 2, 3, 4]));
        assert_eq!(notes_build_id(&note[..12]), None);
        // This test program: the notes found as `object`'s whole-file parse finds them.
        use object::Object;
        use std::os::unix::ffi::OsStrExt;
        let exe = std::env::current_exe().unwrap();
        let bytes = std::fs::read(&exe).unwrap();
        let parsed = object::File::parse(&*bytes).unwrap();
        let expected = parsed.build_id().unwrap().map(<[u8]>::to_vec);
        assert!(
            expected.is_some(),
            "the test program has no build id to compare"
        );
        assert_eq!(file_build_id(exe.as_os_str().as_bytes()), expected);
        assert_eq!(file_build_id(b"/nonexistent"), None);
        assert_eq!(file_build_id(b"/proc/self/status"), None);
    }
}
