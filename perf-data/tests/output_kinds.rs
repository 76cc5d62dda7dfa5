//! What OUT is: a symbolic link names the file written (the link stays), an existing OUT
//! keeps its permissions, and a FIFO or device is written to, never replaced.

mod common;

use common::{fixture, run_ok, s};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::process::Command;

/// The bytes `convert` writes for the cpu_clock recording to a plain new file.
fn plain_output(dir: &std::path::Path) -> Vec<u8> {
    let (input, _) = fixture("cpu_clock.data");
    let out = dir.join("plain.data");
    run_ok(&["convert", s(&input), s(&out)], None);
    std::fs::read(&out).unwrap()
}

#[test]
fn a_link_stays_a_link_and_its_file_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let expected = plain_output(dir.path());
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let target = sub.join("target.data");
    std::fs::write(&target, b"old").unwrap();
    let link = dir.path().join("link.data");
    std::os::unix::fs::symlink("sub/target.data", &link).unwrap();
    let (input, _) = fixture("cpu_clock.data");
    run_ok(&["convert", s(&input), s(&link)], None);
    let meta = std::fs::symlink_metadata(&link).unwrap();
    assert!(meta.file_type().is_symlink(), "the link was replaced");
    assert_eq!(std::fs::read(&target).unwrap(), expected);
    // A link to a file that does not exist yet makes that file.
    std::fs::remove_file(&target).unwrap();
    run_ok(&["convert", s(&input), s(&link)], None);
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(&target).unwrap(), expected);
}

#[test]
fn an_existing_out_keeps_its_permissions() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.data");
    std::fs::write(&out, b"old").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o640)).unwrap();
    let (input, _) = fixture("cpu_clock.data");
    run_ok(&["convert", s(&input), s(&out)], None);
    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o640);
    assert_eq!(&std::fs::read(&out).unwrap()[..8], b"PERFILE2");
}

#[test]
fn a_fifo_is_written_to_and_stays_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let expected = plain_output(dir.path());
    let fifo = dir.path().join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let (input, _) = fixture("cpu_clock.data");
    run_ok(&["convert", s(&input), s(&fifo)], None);
    assert_eq!(reader.join().unwrap(), expected);
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    // Nothing was left beside it.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}
