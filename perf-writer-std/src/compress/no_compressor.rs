//! Without the `zstd` feature no compressor exists: [`Compressor`] has no value.

use crate::compress::{Compression, CompressionStats};
use crate::error::CompressionError;
use crate::WriterError;
use perf_encode::Endian;
use std::io;

pub(crate) enum Compressor {}

impl Compressor {
    pub(crate) fn new(_: Compression, _: Endian) -> Result<Self, WriterError> {
        Err(WriterError::Compression(CompressionError::Zstd(
            "this build of perf-writer-std has no `zstd` feature",
        )))
    }
    pub(crate) fn stats(&self) -> CompressionStats {
        match *self {}
    }
    pub(crate) fn push(&mut self, _: &[u8], _: &mut Vec<u8>) -> io::Result<u64> {
        match *self {}
    }
    pub(crate) fn take_whole_record(&mut self, _: u32, _: &[u8]) -> bool {
        match *self {}
    }
    pub(crate) fn take_round(&mut self, _: u32, _: &[u8]) -> bool {
        match *self {}
    }

    pub(crate) fn flush_chunk(&mut self, _: &mut Vec<u8>) -> io::Result<u64> {
        match *self {}
    }
    pub(crate) fn keep_rounds(&mut self, _: bool) {
        match *self {}
    }
    pub(crate) fn open_frame(&self) -> bool {
        match *self {}
    }
    pub(crate) fn waiting(&self) -> bool {
        match *self {}
    }
    pub(crate) fn set_level(&mut self, _: i32) -> Result<(), WriterError> {
        match *self {}
    }
    pub(crate) fn started(&self) -> bool {
        match *self {}
    }
    pub(crate) fn start(&mut self) {
        match *self {}
    }
}
