//! Tracefs format texts the tests describe events with.

/// A tracepoint `tick` (id 7) with one field of its own, `value` (an `int` at offset 8),
/// printed as `value=N`; system of the caller's choice.
pub const TICK: &str = "name: tick\nID: 7\nformat:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\
\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n\n\
print fmt: \"value=%d\", REC->value\n";

/// [`TICK`] as an ftrace format (`events/ftrace/function/format`, id 1).
pub fn tick_as_ftrace() -> String {
    TICK.replace("name: tick", "name: function")
        .replace("ID: 7", "ID: 1")
}
