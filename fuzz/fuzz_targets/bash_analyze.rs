//! The Bash analyser on any text. Invariants: it never panics; a command with an output
//! redirection to a file is never read-only, however the text before it is written
//! (wrapped in a group or a subshell with `> out.txt` after it); whatever it reports as a
//! write makes the whole command not read-only.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolgate_shell::{analyze, is_read_only};

fuzz_target!(|data: &[u8]| {
    let Ok(command) = std::str::from_utf8(data) else { return };
    let analysis = analyze(command);
    if !analysis.writes.is_empty() {
        assert!(!is_read_only(&analysis), "a write was found but the command is read-only: {command:?}");
    }
    for wrapped in [format!("{{ {command}\n}} > out.txt"), format!("( {command}\n) > out.txt")] {
        let analysis = analyze(&wrapped);
        assert!(!is_read_only(&analysis), "a redirection to out.txt was judged read-only: {wrapped:?}");
    }
});
