//! Fuzz target: the YAML layer. Parses arbitrary text with the fast path and
//! the saphyr path, checks that both agree, and emits and re-parses the tree.
//!
//! One disagreement is expected: saphyr rejects a plain scalar that contains
//! ` -` before a flow indicator (`[a -]`), which js-yaml (the reference's
//! parser) reads as `["a -"]`; the fast path follows js-yaml there.
#![no_main]

use libfuzzer_sys::fuzz_target;
use v4t_yaml::{deep_equal, emit, parse, parse::parse_saphyr, SourceId};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let fast = parse(text, SourceId(0));
    let slow = parse_saphyr(text, SourceId(0));
    match (&fast, &slow) {
        (Ok(a), Ok(b)) => assert!(deep_equal(&a.value, &b.value), "fast and saphyr paths differ"),
        (Err(a), Err(b)) => assert_eq!(a.message, b.message, "fast and saphyr errors differ"),
        (Ok(_), Err(e)) if e.message.starts_with("plain scalar cannot start with '-'") => {}
        _ => panic!("fast path: {fast:?}, saphyr path: {slow:?}"),
    }
    if let Ok(node) = fast {
        let out = emit(&node);
        let _ = v4t_yaml::json::to_json_pretty(&node);
        let again = parse(&out, SourceId(1)).expect("emitted YAML must parse");
        assert!(deep_equal(&node.value, &again.value), "emit round trip differs:\n{out}");
    }
});
