//! Fuzz target: the YAML layer. Parses arbitrary text with the fast path and
//! the saphyr path under both schemas, checks that both agree (complex keys
//! included: the emitted texts must be equal), and emits and re-parses the
//! tree.
//!
//! One disagreement is expected: saphyr rejects a plain scalar that contains
//! ` -` before a flow indicator (`[a -]`), which js-yaml (the reference's
//! parser) reads as `["a -"]`; the fast path follows js-yaml there.
#![no_main]

use libfuzzer_sys::fuzz_target;
use v4t_yaml::parse::{parse_saphyr_with, parse_with, Schema};
use v4t_yaml::{deep_equal, emit_with, SourceId, Style};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for (schema, style) in [(Schema::JsYaml, Style::JsYaml), (Schema::Core, Style::AsWritten)] {
        let fast = parse_with(text, SourceId(0), schema);
        let slow = parse_saphyr_with(text, SourceId(0), schema);
        match (&fast, &slow) {
            (Ok(a), Ok(b)) => {
                assert!(deep_equal(&a.value, &b.value), "fast and saphyr paths differ");
                assert_eq!(emit_with(a, style), emit_with(b, style), "fast and saphyr trees differ");
            }
            (Err(a), Err(b)) => assert_eq!(a.message, b.message, "fast and saphyr errors differ"),
            (Ok(_), Err(e)) if e.message.starts_with("plain scalar cannot start with '-'") => {}
            _ => panic!("fast path: {fast:?}, saphyr path: {slow:?}"),
        }
        if let Ok(node) = fast {
            let out = emit_with(&node, style);
            let _ = v4t_yaml::json::to_json_pretty(&node);
            let again = parse_with(&out, SourceId(1), schema).expect("emitted YAML must parse");
            assert!(deep_equal(&node.value, &again.value), "emit round trip differs:\n{out}");
        }
    }
});
