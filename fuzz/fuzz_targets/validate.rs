//! Fuzz target: `v4t validate`'s pipeline (load with imports, type system,
//! checks) on arbitrary text. The input is split at lines `#file NAME` into
//! several files of one in-memory repository (the first part is
//! `main.yaml`), so imports, namespaces, profiles and cycles are explored too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use v4t_source::Sources;
use v4t_tosca::{MemoryFiles, TypeSystem};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut files = MemoryFiles::new();
    let mut name = "main.yaml".to_string();
    let mut part = String::new();
    for line in text.split_inclusive('\n') {
        match line.strip_prefix("#file ") {
            Some(next) => {
                files = files.with(&name, &part);
                name = next.trim().to_string();
                part.clear();
            }
            None => part.push_str(line),
        }
    }
    files = files.with(&name, &part);
    let mut sources = Sources::new();
    let loaded = v4t_tosca::load(&mut sources, &mut files, "main.yaml");
    let ts = TypeSystem::build(&loaded);
    let diagnostics = v4t_tosca::validate(&ts, &sources);
    let _ = diagnostics.into_sorted();
});
