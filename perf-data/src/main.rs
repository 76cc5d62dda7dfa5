//! `perf-data`: convert, inspect and recover perf.data files without perf (the command
//! line; the commands are in the library).
#![forbid(unsafe_code)]

use clap::{Parser, Subcommand, ValueEnum};
use perf_data::convert::{self, ConvertOptions};
use perf_data::error::DataError;
use perf_data::trace::Mode;
use perf_data::{info, output, read, recover};
use perf_writer_std::perf_encode::Endian;
use perf_writer_std::{Compression, CompressionForm};
use std::path::PathBuf;
use std::process::ExitCode;

/// Convert, inspect and recover Linux perf.data files, without perf.
#[derive(Parser, Debug)]
#[command(name = "perf-data", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Write IN again as OUT: file or pipe mode, compressed or not, either byte order.
    Convert {
        /// The input perf.data (`-` for stdin).
        input: PathBuf,
        /// The output (`-` for stdout); written to a new file beside it and renamed.
        output: PathBuf,
        /// File or pipe mode (default: the input's).
        #[arg(long, value_enum)]
        to: Option<ToMode>,
        /// Compress the records with zstd at LEVEL (1 to 22; 1 without a value).
        #[arg(long, value_name = "LEVEL", num_args = 0..=1, default_missing_value = "1",
              value_parser = clap::value_parser!(i32).range(1..=22), conflicts_with = "decompress")]
        compress: Option<i32>,
        /// The form of the COMPRESSED records: `aligned` (every record 8-aligned) or
        /// `perf` (one zstd stream, as `perf record -z` writes).
        #[arg(long, value_enum, default_value = "aligned", requires = "compress")]
        form: Form,
        /// Expand the input's COMPRESSED records.
        #[arg(long)]
        decompress: bool,
        /// The output's byte order (default: the input's). In the other one every record
        /// and feature is byte-swapped field by field; a stream (`--to pipe`) must be in
        /// this machine's, which perf 6.1 alone reads right.
        #[arg(long, value_enum)]
        endian: Option<EndianArg>,
    },
    /// Write a file-mode perf.data whose writer died before finalize as a whole file, with
    /// every whole record that reached it (a whole file is written again as it is).
    Recover {
        /// The file left by the writer (`-` for stdin).
        input: PathBuf,
        /// The recovered file (`-` for stdout); written to a new file beside it and renamed.
        output: PathBuf,
    },
    /// Say what `perf report --header-only` and `perf report --stats` would say of FILE.
    Info {
        /// The perf.data file or stream (`-` for stdin).
        file: PathBuf,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ToMode {
    File,
    Pipe,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Form {
    Aligned,
    Perf,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum EndianArg {
    Little,
    Big,
}

fn run(cli: Cli) -> Result<(), DataError> {
    match cli.command {
        Command::Convert {
            input,
            output,
            to,
            compress,
            form,
            decompress,
            endian,
        } => {
            let opts = ConvertOptions {
                to: to.map(|t| match t {
                    ToMode::File => Mode::File,
                    ToMode::Pipe => Mode::Pipe,
                }),
                compress: compress.map(|level| Compression {
                    level,
                    form: match form {
                        Form::Aligned => CompressionForm::Aligned,
                        Form::Perf => CompressionForm::PerfStream,
                    },
                }),
                decompress,
                endian: endian.map(|e| match e {
                    EndianArg::Little => Endian::Little,
                    EndianArg::Big => Endian::Big,
                }),
            };
            let trace = read::parse(&input, read::read_input(&input)?)?;
            convert::convert(&trace, &output, &opts)?;
            if trace.cut_tail != 0 {
                // A stream cut short (its writer was killed) keeps its whole records; said
                // once the output is written, so that a refusal stays the one line.
                let _ = std::io::Write::write_all(
                    &mut std::io::stderr(),
                    format!(
                        "perf-data: {}: the last {} bytes are a record cut short; left out\n",
                        input.display(),
                        trace.cut_tail
                    )
                    .as_bytes(),
                );
            }
            Ok(())
        }
        Command::Recover { input, output } => {
            let done = recover::recover(&input, read::read_input(&input)?, &output)?;
            let what = if done.already_whole {
                "already a whole perf.data: written again"
            } else {
                "recovered"
            };
            let mut tail = match done.cut_tail {
                0 => String::new(),
                n => format!("; the last {n} bytes make no whole record: left out"),
            };
            if done.undescribed != 0 {
                tail += &format!(
                    "; {} records of events the recovery block does not describe: left out",
                    done.undescribed
                );
            }
            let _ = std::io::Write::write_all(
                &mut std::io::stderr(),
                format!(
                    "perf-data: {}: {what}, {} records{tail}\n",
                    input.display(),
                    done.records
                )
                .as_bytes(),
            );
            Ok(())
        }
        Command::Info { file } => {
            let trace = read::parse(&file, read::read_input(&file)?)?;
            output::to_stdout(info::report(&trace)?.as_bytes())
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // A closed stderr is not worth a panic.
            let _ = std::io::Write::write_all(
                &mut std::io::stderr(),
                format!("perf-data: {e}\n").as_bytes(),
            );
            ExitCode::FAILURE
        }
    }
}
