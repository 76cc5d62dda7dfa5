//! The parts of the synthesized TRACING_DATA the caller may set: `sizeof(long)` and the
//! page size, the header texts, kallsyms, printk formats, saved cmdlines and ftrace formats.

use crate::output::OutputMode;
use crate::{PerfWriter, WriterError};
use perf_encode::features::{
    check_format_text, check_header_event, check_header_page, check_kallsyms, check_printk,
    check_saved_cmdlines, FormatTextError,
};

/// Largest blob the tracing-data setters accept (below 2 GiB, as perf reads sizes as `int`).
const MAX_BLOB: usize = perf_encode::features::tracing_data::MAX_BLOB_LEN;

impl<O: OutputMode> PerfWriter<O> {
    /// Sets `sizeof(long)` and the page size of the traced machine for the synthesized
    /// TRACING_DATA, and asks for TRACING_DATA even without tracepoint events. Zeros mean
    /// "this machine's" (the default whenever a tracepoint event exists). Values
    /// [`try_set_tracing_data_required`](Self::try_set_tracing_data_required) refuses are
    /// ignored (nothing changes).
    pub fn set_tracing_data_required(&mut self, long_size: u8, page_size: u32) {
        let _ = self.try_set_tracing_data_required(long_size, page_size);
    }

    /// [`set_tracing_data_required`](Self::set_tracing_data_required) with the reason of a
    /// refusal: a `long_size` other than 0, 4 or 8 (perf reads `long` fields of no other
    /// size), a `page_size` other than 0 or a power of two of at least 4096.
    ///
    /// ```
    /// use perf_writer_std::{PerfDataFileWriter, WriterError};
    /// let mut w = PerfDataFileWriter::new();
    /// assert!(w.try_set_tracing_data_required(8, 16384).is_ok());
    /// assert!(matches!(w.try_set_tracing_data_required(3, 4096), Err(WriterError::BadTracingDataSetting(_))));
    /// ```
    pub fn try_set_tracing_data_required(
        &mut self,
        long_size: u8,
        page_size: u32,
    ) -> Result<(), WriterError> {
        if !matches!(long_size, 0 | 4 | 8) {
            return Err(WriterError::BadTracingDataSetting(
                "sizeof(long) must be 4 or 8 (0: this machine's)",
            ));
        }
        if page_size != 0 && (!page_size.is_power_of_two() || page_size < 4096) {
            return Err(WriterError::BadTracingDataSetting(
                "the page size must be a power of two of at least 4096 (0: this machine's)",
            ));
        }
        let t = self.session.tracing_mut();
        t.long_size = long_size;
        t.page_size = page_size;
        Ok(())
    }

    /// Sets the `events/header_page` text of the synthesized TRACING_DATA (empty: the
    /// default of a 64-bit kernel). False, keeping the old text, for a text
    /// [`try_set_tracing_data_header_page`](Self::try_set_tracing_data_header_page) refuses.
    pub fn set_tracing_data_header_page(&mut self, data: &[u8]) -> bool {
        self.try_set_tracing_data_header_page(data).is_ok()
    }

    /// [`set_tracing_data_header_page`](Self::set_tracing_data_header_page) with the reason
    /// of a refusal: 2 GiB or more, or not the field lines perf reads (`timestamp`,
    /// `commit`, optionally `overwrite`, then `data`; perf 6.1 loops forever on others).
    ///
    /// ```
    /// use perf_writer_std::{PerfDataFileWriter, WriterError};
    /// let mut w = PerfDataFileWriter::new();
    /// let err = w.try_set_tracing_data_header_page(b"0123456789").unwrap_err();
    /// assert!(matches!(err, WriterError::TracingDataText { part: "header_page", .. }));
    /// ```
    pub fn try_set_tracing_data_header_page(&mut self, data: &[u8]) -> Result<(), WriterError> {
        blob_len("header_page", data)?;
        if !data.is_empty() {
            check_header_page(data).map_err(text_err("header_page"))?;
        }
        set_blob(&mut self.session.tracing_mut().header_page, data);
        Ok(())
    }

    /// Sets the `events/header_event` text (empty: the default). False, keeping the old
    /// text, for a text [`try_set_tracing_data_header_event`](Self::try_set_tracing_data_header_event)
    /// refuses.
    pub fn set_tracing_data_header_event(&mut self, data: &[u8]) -> bool {
        self.try_set_tracing_data_header_event(data).is_ok()
    }

    /// [`set_tracing_data_header_event`](Self::set_tracing_data_header_event) with the
    /// reason of a refusal: 2 GiB or more, or a NUL or control byte other than tab and
    /// newline (perf reads the text and skips it).
    pub fn try_set_tracing_data_header_event(&mut self, data: &[u8]) -> Result<(), WriterError> {
        blob_len("header_event", data)?;
        check_header_event(data).map_err(text_err("header_event"))?;
        set_blob(&mut self.session.tracing_mut().header_event, data);
        Ok(())
    }

    /// Sets the kallsyms of the synthesized TRACING_DATA. False, keeping the old text, for
    /// a text [`try_set_tracing_data_kallsyms`](Self::try_set_tracing_data_kallsyms) refuses.
    pub fn set_tracing_data_kallsyms(&mut self, data: &[u8]) -> bool {
        self.try_set_tracing_data_kallsyms(data).is_ok()
    }

    /// [`set_tracing_data_kallsyms`](Self::set_tracing_data_kallsyms) with the reason of a
    /// refusal: 2 GiB or more, or lines not `ADDR TYPE NAME` as in `/proc/kallsyms`.
    pub fn try_set_tracing_data_kallsyms(&mut self, data: &[u8]) -> Result<(), WriterError> {
        blob_len("kallsyms", data)?;
        check_kallsyms(data).map_err(text_err("kallsyms"))?;
        set_blob(&mut self.session.tracing_mut().kallsyms, data);
        Ok(())
    }

    /// Sets the printk formats of the synthesized TRACING_DATA. False, keeping the old
    /// text, for a text [`try_set_tracing_data_printk`](Self::try_set_tracing_data_printk)
    /// refuses.
    pub fn set_tracing_data_printk(&mut self, data: &[u8]) -> bool {
        self.try_set_tracing_data_printk(data).is_ok()
    }

    /// [`set_tracing_data_printk`](Self::set_tracing_data_printk) with the reason of a
    /// refusal: 2 GiB or more, or lines not `ADDR : "FORMAT"` as in `printk_formats`.
    pub fn try_set_tracing_data_printk(&mut self, data: &[u8]) -> Result<(), WriterError> {
        blob_len("printk", data)?;
        check_printk(data).map_err(text_err("printk"))?;
        set_blob(&mut self.session.tracing_mut().printk, data);
        Ok(())
    }

    /// Sets the saved cmdlines of the synthesized TRACING_DATA. False, keeping the old
    /// text, for a text
    /// [`try_set_tracing_data_saved_cmd_line`](Self::try_set_tracing_data_saved_cmd_line)
    /// refuses.
    pub fn set_tracing_data_saved_cmd_line(&mut self, data: &[u8]) -> bool {
        self.try_set_tracing_data_saved_cmd_line(data).is_ok()
    }

    /// [`set_tracing_data_saved_cmd_line`](Self::set_tracing_data_saved_cmd_line) with the
    /// reason of a refusal: 2 GiB or more, or lines not `PID COMM` as in `saved_cmdlines`.
    pub fn try_set_tracing_data_saved_cmd_line(&mut self, data: &[u8]) -> Result<(), WriterError> {
        blob_len("saved_cmdline", data)?;
        check_saved_cmdlines(data).map_err(text_err("saved_cmdline"))?;
        set_blob(&mut self.session.tracing_mut().saved_cmdline, data);
        Ok(())
    }

    /// Removes the ftrace formats of the synthesized TRACING_DATA.
    pub fn set_tracing_data_clear_ftraces(&mut self) {
        self.session.tracing_mut().ftraces.clear();
    }

    /// Adds an ftrace format (`events/ftrace/*/format`) to the synthesized TRACING_DATA.
    /// False, adding nothing, for a format
    /// [`try_set_tracing_data_add_ftrace`](Self::try_set_tracing_data_add_ftrace) refuses.
    pub fn set_tracing_data_add_ftrace(&mut self, ftrace: &[u8]) -> bool {
        self.try_set_tracing_data_add_ftrace(ftrace).is_ok()
    }

    /// [`set_tracing_data_add_ftrace`](Self::set_tracing_data_add_ftrace) with the reason
    /// of a refusal: 2 GiB or more, past 2^31 formats, or a format text
    /// [`check_format_text`](perf_encode::features::check_format_text) refuses.
    pub fn try_set_tracing_data_add_ftrace(&mut self, ftrace: &[u8]) -> Result<(), WriterError> {
        blob_len("ftrace format", ftrace)?;
        if self.session.tracing.ftraces.len() >= i32::MAX as usize {
            return Err(WriterError::Encode(perf_encode::EncodeError::TooLong {
                what: "ftrace formats",
                len: self.session.tracing.ftraces.len() as u64,
                max: i32::MAX as u64,
            }));
        }
        check_format_text(ftrace).map_err(text_err("ftrace format"))?;
        self.session.tracing_mut().ftraces.push(ftrace.to_vec());
        Ok(())
    }
}

/// Refuses a tracing-data text of 2 GiB or more (perf reads sizes as `int`).
fn blob_len(what: &'static str, data: &[u8]) -> Result<(), WriterError> {
    if data.len() > MAX_BLOB {
        return Err(WriterError::Encode(perf_encode::EncodeError::TooLong {
            what,
            len: data.len() as u64,
            max: MAX_BLOB as u64,
        }));
    }
    Ok(())
}

/// The error of a refused tracing-data text.
fn text_err(part: &'static str) -> impl Fn(FormatTextError) -> WriterError {
    move |error| WriterError::TracingDataText { part, error }
}

fn set_blob(dst: &mut Vec<u8>, data: &[u8]) {
    dst.clear();
    dst.extend_from_slice(data);
}
