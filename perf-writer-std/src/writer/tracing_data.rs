//! The parts of the synthesized TRACING_DATA the caller may set: `sizeof(long)` and the
//! page size, the header texts, kallsyms, printk formats, saved cmdlines and ftrace formats.
//!
//! Each text is checked before it is kept, against what perf 6.1 reads: a text it would
//! misread, crash or hang on is refused with [`TracingError::DataText`], naming the
//! part, the line and the problem, and the text set before stays. A pipe-mode stream sends
//! its tracing data once, when it starts: every setter here is refused after that
//! ([`TracingError::AfterStart`]).

use crate::error::TracingError;
use crate::model::trace_model::TracingSettings;
use crate::output::OutputMode;
use crate::{PerfWriter, WriterError};
use perf_encode::features::{
    check_format_text, check_header_event, check_header_page, check_kallsyms, check_printk,
    check_saved_cmdlines, FormatTextError,
};

/// Largest text the tracing-data setters accept (below 2 GiB, as perf reads sizes as `int`).
const MAX_BLOB: usize = perf_encode::features::tracing_data::MAX_BLOB_LEN;

impl<O: OutputMode> PerfWriter<O> {
    /// Sets `sizeof(long)` and the page size of the traced machine for the synthesized
    /// TRACING_DATA, and asks for TRACING_DATA even without tracepoint events.
    ///
    /// Zeros mean "this machine's" (the default whenever a tracepoint event exists).
    ///
    /// # Errors
    ///
    /// Nothing changes on error: [`TracingError::BadSetting`] for a `long_size` other
    /// than 0, 4 or 8 (perf reads `long` fields of no other size), or a `page_size` other than
    /// 0 or a power of two of at least 4096; [`TracingError::AfterStart`] in pipe mode
    /// once the stream started.
    ///
    /// ```
    /// use perf_writer_std::{FileOutput, PerfWriter, WriterError};
    /// let mut w = PerfWriter::<FileOutput>::new();
    /// w.set_tracing_data_required(8, 16384)?;
    /// let err = w.set_tracing_data_required(3, 4096).unwrap_err();
    /// assert!(matches!(err, WriterError::Tracing(perf_writer_std::TracingError::BadSetting(_))));
    /// # Ok::<(), WriterError>(())
    /// ```
    pub fn set_tracing_data_required(
        &mut self,
        long_size: u8,
        page_size: u32,
    ) -> Result<(), WriterError> {
        self.check_formats_accepted()?;
        if !matches!(long_size, 0 | 4 | 8) {
            return Err(WriterError::Tracing(TracingError::BadSetting(
                "sizeof(long) must be 4 or 8 (0: this machine's)",
            )));
        }
        if page_size != 0 && (!page_size.is_power_of_two() || page_size < 4096) {
            return Err(WriterError::Tracing(TracingError::BadSetting(
                "the page size must be a power of two of at least 4096 (0: this machine's)",
            )));
        }
        let t = self.model.tracing_mut();
        t.long_size = long_size;
        t.page_size = page_size;
        Ok(())
    }

    /// Sets the `events/header_page` text (empty: the default of a 64-bit kernel).
    ///
    /// # Errors
    ///
    /// [`WriterError::Encode`] for 2 GiB or more; [`TracingError::DataText`] for a text
    /// that is not the field lines perf reads (`timestamp`, `commit`, optionally `overwrite`,
    /// then `data`; perf 6.1 loops forever on others); [`TracingError::AfterStart`] in
    /// pipe mode once the stream started. The old text stays.
    ///
    /// ```
    /// use perf_writer_std::{FileOutput, PerfWriter, WriterError};
    /// let mut w = PerfWriter::<FileOutput>::new();
    /// let err = w.set_tracing_data_header_page(b"0123456789").unwrap_err();
    /// assert!(matches!(err, WriterError::Tracing(perf_writer_std::TracingError::DataText { part: "header_page", .. })));
    /// ```
    pub fn set_tracing_data_header_page(&mut self, data: &[u8]) -> Result<(), WriterError> {
        let check = |d: &[u8]| {
            if d.is_empty() {
                Ok(())
            } else {
                check_header_page(d)
            }
        };
        self.set_text("header_page", data, check, |t| &mut t.header_page)
    }

    /// Sets the `events/header_event` text (empty: the default).
    ///
    /// # Errors
    ///
    /// [`WriterError::Encode`] for 2 GiB or more; [`TracingError::DataText`] for a NUL or
    /// a control byte other than tab and newline; [`TracingError::AfterStart`] in pipe
    /// mode once the stream started. The old text stays.
    pub fn set_tracing_data_header_event(&mut self, data: &[u8]) -> Result<(), WriterError> {
        self.set_text("header_event", data, check_header_event, |t| {
            &mut t.header_event
        })
    }

    /// Sets the kallsyms text.
    ///
    /// # Errors
    ///
    /// [`WriterError::Encode`] for 2 GiB or more; [`TracingError::DataText`] for lines
    /// not `ADDR TYPE NAME` as in `/proc/kallsyms`; [`TracingError::AfterStart`] in pipe
    /// mode once the stream started. The old text stays.
    pub fn set_tracing_data_kallsyms(&mut self, data: &[u8]) -> Result<(), WriterError> {
        self.set_text("kallsyms", data, check_kallsyms, |t| &mut t.kallsyms)
    }

    /// Sets the printk formats.
    ///
    /// # Errors
    ///
    /// [`WriterError::Encode`] for 2 GiB or more; [`TracingError::DataText`] for lines
    /// not `ADDR : "FORMAT"` as in `printk_formats`; [`TracingError::AfterStart`] in pipe
    /// mode once the stream started. The old text stays.
    pub fn set_tracing_data_printk(&mut self, data: &[u8]) -> Result<(), WriterError> {
        self.set_text("printk", data, check_printk, |t| &mut t.printk)
    }

    /// Sets the saved cmdlines.
    ///
    /// # Errors
    ///
    /// [`WriterError::Encode`] for 2 GiB or more; [`TracingError::DataText`] for lines
    /// not `PID COMM` as in `saved_cmdlines`; [`TracingError::AfterStart`] in pipe mode
    /// once the stream started. The old text stays.
    pub fn set_tracing_data_saved_cmd_line(&mut self, data: &[u8]) -> Result<(), WriterError> {
        self.set_text("saved_cmdline", data, check_saved_cmdlines, |t| {
            &mut t.saved_cmdline
        })
    }

    /// Removes the ftrace formats.
    ///
    /// # Errors
    ///
    /// [`TracingError::AfterStart`] in pipe mode once the stream started.
    pub fn set_tracing_data_clear_ftraces(&mut self) -> Result<(), WriterError> {
        self.check_formats_accepted()?;
        self.model.tracing_mut().ftraces.clear();
        Ok(())
    }

    /// Adds an ftrace format (`events/ftrace/*/format`).
    ///
    /// # Errors
    ///
    /// Nothing is added on error: [`WriterError::Encode`] for 2 GiB or more, or past 2^31
    /// formats; [`TracingError::DataText`] for a format text
    /// [`check_format_text`] refuses;
    /// [`TracingError::AfterStart`] in pipe mode once the stream started.
    pub fn set_tracing_data_add_ftrace(&mut self, ftrace: &[u8]) -> Result<(), WriterError> {
        self.check_formats_accepted()?;
        blob_len("ftrace format", ftrace)?;
        let count = self.model.tracing.ftraces.len();
        if count >= i32::MAX as usize {
            return Err(WriterError::Encode(perf_encode::EncodeError::TooLong {
                what: "ftrace formats",
                len: count as u64,
                max: i32::MAX as u64,
            }));
        }
        check_format_text(ftrace).map_err(text_err("ftrace format"))?;
        self.model.tracing_mut().ftraces.push(ftrace.to_vec());
        Ok(())
    }

    /// Replaces the text `field` selects once `check` and the size limit accept `data`.
    fn set_text(
        &mut self,
        part: &'static str,
        data: &[u8],
        check: impl Fn(&[u8]) -> Result<(), FormatTextError>,
        field: impl Fn(&mut TracingSettings) -> &mut Vec<u8>,
    ) -> Result<(), WriterError> {
        self.check_formats_accepted()?;
        blob_len(part, data)?;
        check(data).map_err(text_err(part))?;
        let dst = field(self.model.tracing_mut());
        dst.clear();
        dst.extend_from_slice(data);
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
    move |error| WriterError::Tracing(TracingError::DataText { part, error })
}
