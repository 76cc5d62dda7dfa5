//! What a recording covers, as `perf record` has it: [`Scope`], and the CPUs and tasks its
//! events are opened for ([`Plan`]).
//!
//! - A command after `--`, and nothing else asked: that command and what it starts. Its
//!   events are opened on its process before it execs (`enable_on_exec`: they start at the
//!   exec) and inherited by its children (`inherit`), one per CPU.
//! - `-p PID` / `-t TID`: processes (each of their threads) or threads already running,
//!   and what they start from then on; the recording stops when they have all exited.
//! - `-a`, `-C CPUS`, or no command: every task on every online CPU (or those of `-C`).
//!   A command then only says when to stop.

use crate::error::CollectError;
use crate::options::Options;
use std::collections::BTreeSet;

/// A thread: its process and itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Task {
    /// The process (thread group) id.
    pub pid: u32,
    /// The thread id.
    pub tid: u32,
}

/// What a recording covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The command after `--` and everything it starts.
    Command,
    /// Every task on the recorded CPUs.
    AllTasks,
    /// These threads, and every thread and process they start.
    Tasks(Vec<Task>),
}

/// The CPUs and tasks the events are opened for, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// One ring per CPU.
    pub cpus: Vec<u32>,
    /// The threads each event is opened for on each CPU; `None`: every task (`pid = -1`).
    pub tasks: Option<Vec<Task>>,
    /// The events are inherited by the threads and processes the tasks start.
    pub inherit: bool,
    /// The events start at the tasks' next exec, not when enabled.
    pub enable_on_exec: bool,
}

/// The highest CPU number `-C` takes (Linux's largest `NR_CPUS` is 8192).
pub const MAX_CPU: u32 = 8191;

/// Refuses targets that cannot go together: `-p` / `-t` with `-a` or `-C` (`perf record`
/// lets the tasks win and ignores the CPUs; here it is said).
///
/// # Errors
/// The options that clash, in words.
pub fn check_combination(all_cpus: bool, cpu_list: bool, tasks: bool) -> Result<(), &'static str> {
    match (tasks, all_cpus || cpu_list) {
        (true, true) => Err(
            "-p / -t record those tasks on every CPU; they do not combine with -a or -C (which record every task on the CPUs)",
        ),
        _ => Ok(()),
    }
}

impl Scope {
    /// The scope `opts` asks for. Processes of `-p` are looked up in `/proc` (each of
    /// their threads), threads of `-t` too (their process).
    ///
    /// # Errors
    /// [`CollectError::BadArgument`] for clashing targets or a process or thread that does
    /// not exist.
    pub fn of(opts: &Options) -> Result<Scope, CollectError> {
        let has_tasks = !opts.pids.is_empty() || !opts.tids.is_empty();
        check_combination(opts.all_cpus, opts.cpu_list.is_some(), has_tasks)
            .map_err(|why| CollectError::BadArgument(why.to_string()))?;
        if has_tasks {
            let mut tasks = BTreeSet::new();
            for &pid in &opts.pids {
                let threads = threads_of(pid).ok_or_else(|| {
                    CollectError::BadArgument(format!("-p {pid}: no such process"))
                })?;
                tasks.extend(threads.into_iter().map(|tid| Task { pid, tid }));
            }
            for &tid in &opts.tids {
                let pid = process_of(tid).ok_or_else(|| {
                    CollectError::BadArgument(format!("-t {tid}: no such thread"))
                })?;
                tasks.insert(Task { pid, tid });
            }
            return Ok(Scope::Tasks(tasks.into_iter().collect()));
        }
        match (
            opts.all_cpus || opts.cpu_list.is_some(),
            opts.command.is_empty(),
        ) {
            (false, false) => Ok(Scope::Command),
            _ => Ok(Scope::AllTasks),
        }
    }

    /// The plan for this scope on `cpus`; `command` is the pid of the command held before
    /// its exec ([`Scope::Command`] needs it).
    pub fn plan(&self, cpus: Vec<u32>, command: Option<u32>) -> Plan {
        match self {
            Scope::Command => Plan {
                cpus,
                tasks: Some(
                    command
                        .map(|pid| Task { pid, tid: pid })
                        .into_iter()
                        .collect(),
                ),
                inherit: true,
                enable_on_exec: true,
            },
            Scope::AllTasks => Plan {
                cpus,
                tasks: None,
                inherit: false,
                enable_on_exec: false,
            },
            Scope::Tasks(tasks) => Plan {
                cpus,
                tasks: Some(tasks.clone()),
                inherit: true,
                enable_on_exec: false,
            },
        }
    }
}

/// The CPUs to record: `-C`'s, each of which must be online, or every online CPU.
///
/// # Errors
/// [`CollectError::BadArgument`] naming a CPU of `-C` that is not online.
pub fn cpus(opts: &Options, online: &[u32]) -> Result<Vec<u32>, CollectError> {
    let Some(asked) = &opts.cpu_list else {
        return Ok(online.to_vec());
    };
    if let Some(cpu) = asked.iter().find(|c| !online.contains(c)) {
        let online: Vec<String> = online.iter().map(u32::to_string).collect();
        return Err(CollectError::BadArgument(format!(
            "-C: CPU {cpu} is not online (online: {})",
            online.join(",")
        )));
    }
    Ok(asked.clone())
}

/// The threads of process `pid` (`/proc/PID/task`); `None` when it does not exist.
pub fn threads_of(pid: u32) -> Option<Vec<u32>> {
    let dir = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut tids: Vec<u32> = dir
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect();
    tids.sort_unstable();
    (!tids.is_empty()).then_some(tids)
}

/// The process of thread `tid` (`Tgid:` of `/proc/TID/status`).
pub fn process_of(tid: u32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{tid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Tgid:"))?
        .trim()
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    fn opts() -> Options {
        Options::default()
    }

    #[test]
    fn the_default_follows_a_command_or_records_every_cpu() {
        assert_eq!(Scope::of(&opts()).unwrap(), Scope::AllTasks);
        let with_command = Options {
            command: vec![OsString::from("true")],
            ..opts()
        };
        assert_eq!(Scope::of(&with_command).unwrap(), Scope::Command);
        let all = Options {
            all_cpus: true,
            ..with_command.clone()
        };
        assert_eq!(Scope::of(&all).unwrap(), Scope::AllTasks);
        let some_cpus = Options {
            cpu_list: Some(vec![0]),
            ..with_command
        };
        assert_eq!(Scope::of(&some_cpus).unwrap(), Scope::AllTasks);
        let plan = Scope::Command.plan(vec![0, 1], Some(42));
        assert_eq!(plan.tasks, Some(vec![Task { pid: 42, tid: 42 }]));
        assert!(plan.inherit && plan.enable_on_exec);
        assert!(!Scope::AllTasks.plan(vec![0], None).inherit);
    }

    #[test]
    fn tasks_are_looked_up() {
        let me = std::process::id();
        let p = Options {
            pids: vec![me],
            ..opts()
        };
        let Scope::Tasks(tasks) = Scope::of(&p).unwrap() else {
            panic!()
        };
        assert!(tasks.contains(&Task { pid: me, tid: me }));
        assert!(tasks.iter().all(|t| t.pid == me));
        assert_eq!(process_of(me), Some(me));
        let t = Options {
            tids: vec![me],
            ..opts()
        };
        assert_eq!(
            Scope::of(&t).unwrap(),
            Scope::Tasks(vec![Task { pid: me, tid: me }])
        );
        let gone = Options {
            pids: vec![u32::MAX],
            ..opts()
        };
        assert!(matches!(
            Scope::of(&gone),
            Err(CollectError::BadArgument(m)) if m.contains("no such process")
        ));
        let clash = Options {
            pids: vec![me],
            all_cpus: true,
            ..opts()
        };
        assert!(matches!(
            Scope::of(&clash),
            Err(CollectError::BadArgument(_))
        ));
    }

    #[test]
    fn cpus_must_be_online() {
        let c = Options {
            cpu_list: Some(vec![1]),
            ..opts()
        };
        assert_eq!(cpus(&c, &[0, 1]).unwrap(), [1]);
        assert!(
            matches!(cpus(&c, &[0]), Err(CollectError::BadArgument(m)) if m.contains("CPU 1 is not online"))
        );
        assert_eq!(cpus(&opts(), &[0, 3]).unwrap(), [0, 3]);
    }
}
