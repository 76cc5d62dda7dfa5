//! The command line's parser over generated command lines: it never panics, every value it
//! accepts is in its option's range, and it accepts every value in range.

use perf_collect::cli::{parse, ArgError, Parsed, MAX_MMAP_PAGES, MAX_SECONDS};
use proptest::prelude::*;
use std::time::Duration;

/// Values an option may be given: numbers of every shape and size, and words.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<u64>().prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|x| x.to_string()),
        (0u32..64).prop_map(|e| format!("1e{e}")),
        (0u32..400).prop_map(|e| format!("-1e{e}")),
        (0u32..32).prop_map(|s| (1u64 << s).to_string()),
        Just(String::new()),
        "[ -~]{0,12}",
        Just("inf".to_string()),
        Just("NaN".to_string()),
    ]
}

/// A command line: options (some with values), words, and `--` with a command.
fn command_line() -> impl Strategy<Value = Vec<String>> {
    let option = prop_oneof![
        Just("-d"),
        Just("-c"),
        Just("-F"),
        Just("-m"),
        Just("-z"),
        Just("-e"),
        Just("-o"),
        Just("-q"),
        Just("--unchecked"),
        Just("--events-file"),
        Just("--tracefs"),
        Just("--"),
        Just("--duration"),
        Just("--bogus"),
    ];
    proptest::collection::vec(
        (option, proptest::option::of(value())).prop_map(|(o, v)| {
            let mut words = vec![o.to_string()];
            words.extend(v);
            words
        }),
        0..6,
    )
    .prop_map(|parts| {
        let mut all = vec!["perf-collect".to_string()];
        all.extend(parts.into_iter().flatten());
        all
    })
}

/// What `value` is worth as a duration, when it is one `-d` and `-c` take.
fn as_seconds(value: &str) -> Option<f64> {
    let s: f64 = value.trim().parse().ok()?;
    (s > 0.0 && s <= MAX_SECONDS as f64 && !Duration::from_secs_f64(s).is_zero()).then_some(s)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 4000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn never_panics_and_keeps_every_value_in_range(args in command_line()) {
        match parse(&args) {
            Ok(Parsed::Record(cli)) => {
                let o = cli.options;
                prop_assert!(o.freq.is_none_or(|hz| hz >= 1));
                prop_assert!(o.mmap_pages.is_power_of_two() && o.mmap_pages <= MAX_MMAP_PAGES);
                for d in [o.duration, o.flight_recorder].into_iter().flatten() {
                    prop_assert!(!d.is_zero() && d <= Duration::from_secs(MAX_SECONDS));
                }
                if let Some(level) = o.compression_level {
                    prop_assert!((1..=22).contains(&level));
                }
            }
            Ok(Parsed::Print(text)) => prop_assert!(!text.is_empty()),
            Err(ArgError(line)) => {
                prop_assert!(!line.is_empty() && !line.contains('\n'), "{:?}", line);
            }
        }
    }

    #[test]
    fn a_duration_is_taken_exactly_when_it_is_in_range(v in value()) {
        for opt in ["-d", "-c"] {
            let parsed = parse(["perf-collect", opt, &v]);
            match (as_seconds(&v), parsed) {
                (Some(s), Ok(Parsed::Record(cli))) => {
                    let d = match opt {
                        "-d" => cli.options.duration,
                        _ => cli.options.flight_recorder,
                    };
                    prop_assert_eq!(d, Some(Duration::from_secs_f64(s)));
                }
                (None, Err(ArgError(line))) => {
                    prop_assert!(line.contains("positive number of seconds"), "{}", line);
                }
                (expected, got) => prop_assert!(false, "{opt} {v:?}: {expected:?} but {got:?}"),
            }
        }
    }

    #[test]
    fn frequency_and_ring_size_are_taken_exactly_when_in_range(n in any::<u64>(), shift in 0u32..64) {
        let freq = parse(["perf-collect", "-F", &n.to_string()]);
        match (n, freq) {
            (0, Err(_)) => {}
            (n, Ok(Parsed::Record(cli))) if n > 0 => prop_assert_eq!(cli.options.freq, Some(n)),
            (n, other) => prop_assert!(false, "-F {n}: {other:?}"),
        }
        let pages = 1u64 << shift;
        let in_range = usize::try_from(pages).is_ok_and(|p| p <= MAX_MMAP_PAGES);
        let ring = parse(["perf-collect", "-m", &pages.to_string()]);
        prop_assert_eq!(ring.is_ok(), in_range, "-m {}", pages);
        if pages > 2 {
            prop_assert!(parse(["perf-collect", "-m", &(pages - 1).to_string()]).is_err());
        }
    }
}
