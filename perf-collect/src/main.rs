//! `perf-collect`: the command line. See the library's documentation.
#![forbid(unsafe_code)]

#[cfg(target_os = "linux")]
mod cli {
    use super::seconds;
    use perf_collect::cli::{parse, Parsed};
    use perf_collect::{record, say, CollectError, StopReason, Summary};
    use std::io::Write;
    use std::process::ExitCode;

    /// The recording was written, but its output filled up: the file holds its first part.
    const EXIT_TRUNCATED: u8 = 3;
    /// The command line is wrong.
    const EXIT_USAGE: u8 = 2;

    pub fn main() -> ExitCode {
        let cli = match parse(std::env::args_os()) {
            Ok(Parsed::Record(cli)) => cli,
            Ok(Parsed::Print(text)) => {
                // A closed stdout is not worth a panic.
                let _ = std::io::stdout().write_all(text.as_bytes());
                return ExitCode::SUCCESS;
            }
            Err(e) => {
                say!("perf-collect: {e}");
                return ExitCode::from(EXIT_USAGE);
            }
        };
        let opts = &cli.options;
        match record(opts) {
            Ok(summary) => {
                report(&summary, &opts.output.display().to_string(), cli.quiet);
                match summary.truncated {
                    Some(_) => ExitCode::from(EXIT_TRUNCATED),
                    None => ExitCode::SUCCESS,
                }
            }
            Err(e) => {
                say!("perf-collect: {e}");
                match e {
                    CollectError::BadArgument(_) => ExitCode::from(EXIT_USAGE),
                    _ => ExitCode::FAILURE,
                }
            }
        }
    }

    /// The lines on stderr that say what was recorded and what went wrong.
    fn report(summary: &Summary, output: &str, quiet: bool) {
        for w in &summary.warnings {
            say!("perf-collect: warning: {w}");
        }
        let s = &summary.stats;
        let cut = summary.truncated.is_some() || summary.reader_closed || summary.stalled;
        if !quiet {
            let target = match output {
                "-" => "stdout".to_string(),
                p => p.to_string(),
            };
            let why = match summary.stop {
                StopReason::CommandExited => "the command exited".to_string(),
                StopReason::Signal(n) => format!("signal {n}"),
                StopReason::Duration => "the duration passed".to_string(),
                StopReason::TasksExited => "the recorded tasks exited".to_string(),
                StopReason::OutputClosed => "the output was closed".to_string(),
                StopReason::OutputFull => "the output is full".to_string(),
            };
            let verb = match cut {
                true => "read",
                false => "wrote",
            };
            say!(
                "perf-collect: {verb} {} events ({} records, {} bytes) from {} CPUs for {target}; stopped: {why}",
                s.samples, s.records, s.bytes, summary.cpus
            );
        }
        if let Some(t) = &summary.truncated {
            match t.kept_records {
                Some(records) => say!(
                    "perf-collect: the output filled up ({}): {output} is a valid perf.data that ends early, with the first {} bytes of the recording's records ({records} records as stored); the rest is lost",
                    t.error, t.kept_bytes
                ),
                None => say!(
                    "perf-collect: the output filled up ({}) after {} bytes of the stream: it ends there, its last record maybe cut short; the rest is lost",
                    t.error, t.kept_bytes
                ),
            }
        }
        let taken = summary.delivered.unwrap_or(0);
        if summary.reader_closed {
            say!(
                "perf-collect: the pipe's reader closed it after {taken} bytes of the stream had been written into it (it may not have read them all); the records after them were not delivered"
            );
        }
        if summary.stalled {
            say!(
                "perf-collect: the pipe's reader took nothing for a while after the recording stopped: the stream ends after {taken} bytes, its last record maybe cut short"
            );
        }
        if summary.unsaved_bytes > 0 {
            say!(
                "perf-collect: saving was cut short: {} bytes of records the ring buffers held were left out",
                summary.unsaved_bytes
            );
        }
        if let Some(fw) = &summary.flight_window {
            let more = match fw.pages_needed {
                Some(pages) => format!("-m {pages} would hold it at this rate"),
                None => "more than the largest -m would be needed at this rate; use a shorter -c"
                    .to_string(),
            };
            say!(
                "perf-collect: the ring buffers held only the last {} of the {} asked (-c): older records had been overwritten; {more}",
                seconds(fw.kept),
                seconds(fw.asked)
            );
        }
        // Losses are always reported, even with -q.
        if s.lost_events > 0 || s.lost_records > 0 || s.lost_samples > 0 {
            let late = match s.lost_added {
                0 => String::new(),
                n => format!(", {n} of them counted when the recording stopped"),
            };
            say!(
                "perf-collect: the kernel lost {} events ({} LOST records{late}) and {} samples: the ring buffers filled up; try a larger -m",
                s.lost_events, s.lost_records, s.lost_samples
            );
        } else if !quiet {
            say!("perf-collect: lost 0 events");
        }
        if let Some(ended) = summary.command {
            if ended.killed {
                say!(
                    "perf-collect: the command did not exit after SIGTERM and was killed (SIGKILL)"
                );
            } else if ended.terminated {
                say!(
                    "perf-collect: the recording stopped first: the command was sent SIGTERM and ended with {}",
                    ended.status
                );
            } else if !ended.status.success() {
                say!("perf-collect: the command ended with {}", ended.status);
            }
        }
        if s.refused > 0 {
            say!(
                "perf-collect: {} records were refused by the writer and left out; the first: {}",
                s.refused,
                s.first_refusal.as_deref().unwrap_or("?")
            );
        }
    }
}

/// A duration for a person: milliseconds under a second, else seconds.
#[cfg(target_os = "linux")]
fn seconds(d: std::time::Duration) -> String {
    match d.as_secs() {
        0 => format!("{:.3} ms", d.as_secs_f64() * 1e3),
        _ => format!("{:.3} s", d.as_secs_f64()),
    }
}

#[cfg(target_os = "linux")]
fn main() -> std::process::ExitCode {
    cli::main()
}

#[cfg(not(target_os = "linux"))]
fn main() -> std::process::ExitCode {
    let _ = std::io::Write::write_all(&mut std::io::stderr(), b"perf-collect: Linux only\n");
    std::process::ExitCode::FAILURE
}
