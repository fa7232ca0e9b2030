//! Fuzz target: the whole pipeline (load, normalize, graph, enrich, inputs,
//! solve, check, transform, emit) on arbitrary text, without files beside it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use v4t::{NoFiles, ResolveOptions, Sources};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut sources = Sources::new();
    let id = sources.add("fuzz.yaml", text);
    if let Ok(resolved) = v4t::resolve(&mut sources, id, &mut NoFiles, &ResolveOptions::default()) {
        let _ = v4t_yaml::emit(&resolved.template);
        let _ = resolved.report.to_node();
    }
    let mut sources = Sources::new();
    let id = sources.add("fuzz.yaml", text);
    if let Ok(doc) = v4t::enrich(&mut sources, id, &mut NoFiles) {
        let _ = v4t_yaml::emit(&doc);
    }
});
