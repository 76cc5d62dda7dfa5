#!/usr/bin/env bash
# Measures the agent: builds it (release, or PROFILE=release-z), prints its sections (llvm-size), the flash of its
# code and read-only data by owner (llvm-nm symbol sizes), then runs it under QEMU with
# -icount shift=0 and prints what it measured on itself (stack, encoding cost).
# Needs: rustup target add thumbv7m-none-eabi; rustup component add llvm-tools;
# qemu-system-arm.
set -euo pipefail
cd "$(dirname "$0")"
export CARGO_TARGET_DIR="$PWD/target"
profile="${PROFILE:-release}" # or release-z (opt-level "z")
cargo build --profile "$profile" --locked --quiet
elf="target/thumbv7m-none-eabi/$profile/qemu-agent"
bin="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin"

echo "== sections (llvm-size -A)"
"$bin/llvm-size" -A "$elf" | grep -E '^(section|\.vector_table|\.text|\.rodata|\.data|\.bss|\.uninit) '

flash="$("$bin/llvm-size" -A "$elf" | awk '$1 ~ /^\.(vector_table|text|rodata|data)$/ { n += $2 } END { print n }')"
echo "flash (vector table, text, read-only data, .data image): $flash bytes"

echo "== flash by owner (text and rodata symbols, bytes)"
# `qemu_agent::agent::Sink::push::{{closure}}` is `|s| s.push(record)`: its body is the
# encoder's PipeStream::push, inlined there, so it counts as the encoder.
"$bin/llvm-nm" -S -C --size-sort --radix=d "$elf" | awk '
  $3 ~ /^[tTrR]$/ {
    size = $2 + 0; name = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", name)
    if (name ~ /perf_encode|perf_abi|Sink::push::.*closure/) o = "encoder (perf-encode, perf-abi)"
    else if (name ~ /^(qemu_agent|__cortex_m_rt_main|main$|HardFault|__cortex_m_rt)/) o = "agent (firmware code)"
    else if (name ~ /compiler_builtins|^__aeabi|^__udiv|^__mem/) o = "compiler-builtins (memcpy, division)"
    else if (name ~ /^(core|<core|<usize|<\*)/ || name ~ /core::/) o = "core (panics, formatting)"
    else if (name ~ /cortex_m|Reset|DefaultHandler|__INTERRUPTS|__RESET_VECTOR|__EXCEPTIONS|^[A-Z][A-Za-z]*$/) o = "cortex-m-rt (vectors, reset)"
    else o = "other (string constants: the format text, names)"
    total[o] += size; all += size
  }
  END { for (o in total) printf "%7d  %s\n", total[o], o; printf "%7d  total of the sized symbols\n", all }' | sort -rn
echo "(the rest of the $flash bytes: read-only data without a sized symbol, mostly merged string constants, and alignment)"

echo "== run (qemu-system-arm -machine lm3s6965evb -icount shift=0)"
out="$(mktemp -d)"
qemu-system-arm -cpu cortex-m3 -machine lm3s6965evb -display none -monitor none -serial none \
  -icount shift=0 -semihosting-config "enable=on,target=native,arg=qemu-agent,arg=$out/agent.data" \
  -kernel "$elf" 2>&1 | grep '^agent: '
ls -l "$out/agent.data" | awk '{print "stream file: " $5 " bytes"}'
rm -rf "$out"
