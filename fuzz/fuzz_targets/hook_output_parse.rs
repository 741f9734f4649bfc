//! A hook's stdout parsed as the JSON output of each event. Invariants: parsing never
//! panics; whatever parses serialises to JSON that parses back to the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde::Serialize;
use serde::de::DeserializeOwned;
use toolgate_hooks::{
    ContextSpecificOutput, HookOutput, NoSpecificOutput, PermissionRequestSpecificOutput, PostToolUseSpecificOutput,
    PreToolUseSpecificOutput, SessionStartSpecificOutput, UserPromptSubmitSpecificOutput,
};

fn round_trip<S: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug>(data: &[u8]) {
    if let Ok(out) = serde_json::from_slice::<HookOutput<S>>(data) {
        let again = serde_json::to_vec(&out).expect("a parsed output serialises");
        let back: HookOutput<S> = serde_json::from_slice(&again).expect("a serialised output parses");
        assert_eq!(back, out);
    }
}

fuzz_target!(|data: &[u8]| {
    round_trip::<PreToolUseSpecificOutput>(data);
    round_trip::<PermissionRequestSpecificOutput>(data);
    round_trip::<PostToolUseSpecificOutput>(data);
    round_trip::<ContextSpecificOutput>(data);
    round_trip::<UserPromptSubmitSpecificOutput>(data);
    round_trip::<SessionStartSpecificOutput>(data);
    round_trip::<NoSpecificOutput>(data);
});
