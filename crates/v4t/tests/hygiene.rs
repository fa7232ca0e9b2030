//! Hygiene of the workspace's sources, checked on every `cargo test`:
//!
//! * no function in library code is longer than 120 lines;
//! * no two files of a crate import each other (`crate::`/`super::` paths);
//! * the processor spells the topology's key in one place (at most three
//!   lines of `crates/v4t/src` outside tests mention it);
//! * the modules of `crates/v4t` follow the pipeline: each has a declared
//!   rank ([`V4T_RANKS`]) and imports (`crate::`/`super::`) only modules of a
//!   lower or the same rank, so data flows one way (like rust-analyzer's
//!   tidy checks).
//!
//! Test code (`#[cfg(test)]` modules, `tests.rs`, `tests/`) is exempt.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The longest function allowed in library code.
const MAX_FUNCTION_LINES: usize = 120;

/// The library crates (the CLI is a binary).
const LIBRARIES: [&str; 8] = [
    "v4t",
    "v4t-alloc",
    "v4t-yaml",
    "v4t-tosca",
    "v4t-expr",
    "v4t-sat",
    "v4t-source",
    "v4t-bench",
];

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `.rs` files below `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Whether a source file is test code as a whole.
fn is_test_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "tests.rs"
        || name.ends_with("_tests.rs")
        || matches!(name, "testing.rs" | "testutil.rs")
        || path.components().any(|c| c.as_os_str() == "tests")
}

/// `text` with the contents of comments, strings and character literals
/// blanked out (newlines kept), so that braces and paths are code.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let blank = |c: u8| if c == b'\n' { b'\n' } else { b' ' };
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    out.extend(b"  ");
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    out.extend(b"  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(b[i]));
                    i += 1;
                }
            }
        } else if let Some(hashes) = raw_string_start(rest) {
            // r#"..."#: skip to the quote and hashes that close it.
            let open = 1 + hashes + 1 + usize::from(rest[0] == b'b');
            out.extend(std::iter::repeat_n(b' ', open));
            i += open;
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            while i < b.len() && !b[i..].starts_with(&close) {
                out.push(blank(b[i]));
                i += 1;
            }
            out.extend(std::iter::repeat_n(b' ', close.len().min(b.len() - i)));
            i += close.len();
        } else if rest[0] == b'"' {
            out.push(b' ');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                let n = if b[i] == b'\\' { 2 } else { 1 };
                for k in 0..n {
                    if let Some(&c) = b.get(i + k) {
                        out.push(blank(c));
                    }
                }
                i += n;
            }
            out.push(b' ');
            i += 1;
        } else if rest[0] == b'\'' && char_literal_len(rest).is_some() {
            let n = char_literal_len(rest).unwrap_or(1);
            out.extend(std::iter::repeat_n(b' ', n));
            i += n;
        } else {
            out.push(rest[0]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The number of `#`s of a raw string literal starting at `s` (`r"`, `r#"`, `br"`).
fn raw_string_start(s: &[u8]) -> Option<usize> {
    let s = s.strip_prefix(b"b").unwrap_or(s);
    let s = s.strip_prefix(b"r")?;
    let hashes = s.iter().take_while(|&&c| c == b'#').count();
    (s.get(hashes) == Some(&b'"')).then_some(hashes)
}

/// The length of a character literal at `s` (`'x'`, `'\n'`, `'\u{1F}'`), if
/// it is one rather than a lifetime.
fn char_literal_len(s: &[u8]) -> Option<usize> {
    if s.get(1) == Some(&b'\\') {
        let end = s.iter().skip(2).position(|&c| c == b'\'')?;
        return Some(end + 3);
    }
    let text = std::str::from_utf8(s).ok()?;
    let c = text.get(1..)?.chars().next()?;
    let len = c.len_utf8();
    (s.get(1 + len) == Some(&b'\'')).then_some(len + 2)
}

/// The line ranges (0-based, inclusive) of `#[cfg(test)]` modules in `code`.
fn test_modules(lines: &[&str]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() == "#[cfg(test)]"
            && lines
                .get(i + 1)
                .is_some_and(|l| l.trim_start().starts_with("mod ") && l.contains('{'))
        {
            let end = block_end(lines, i + 1).unwrap_or(lines.len() - 1);
            out.push((i, end));
            i = end + 1;
        } else {
            i += 1;
        }
    }
    out
}

/// The line where the block opened on line `start` closes (`None` for a
/// declaration without a body).
fn block_end(lines: &[&str], start: usize) -> Option<usize> {
    let mut depth = 0i64;
    let mut opened = false;
    for (i, line) in lines.iter().enumerate().skip(start) {
        for c in line.chars() {
            match c {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => depth -= 1,
                ';' if !opened && depth == 0 => return None,
                _ => {}
            }
        }
        if opened && depth <= 0 {
            return Some(i);
        }
    }
    None
}

/// Whether a code line starts a function item, and its name.
fn function_name(line: &str) -> Option<&str> {
    let mut words = line.split_whitespace().peekable();
    while let Some(w) = words.next() {
        match w {
            "pub" | "const" | "async" | "unsafe" | "extern" => continue,
            w if w.starts_with("pub(") => continue,
            "fn" => {
                let name = words.next()?;
                return Some(name.split(['(', '<']).next().unwrap_or(name));
            }
            _ => return None,
        }
    }
    None
}

/// A source file's code lines outside test modules (test lines blanked).
fn library_code(text: &str) -> Vec<String> {
    let code = code_only(text);
    let lines: Vec<&str> = code.lines().collect();
    let tests = test_modules(&lines);
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if tests.iter().any(|&(a, b)| (a..=b).contains(&i)) {
                String::new()
            } else {
                l.to_string()
            }
        })
        .collect()
}

#[test]
fn library_functions_are_at_most_120_lines() {
    let mut long = Vec::new();
    for krate in LIBRARIES {
        let src = crates_dir().join(krate).join("src");
        for file in rust_files(&src) {
            if is_test_file(&file) || file.ends_with("main.rs") {
                continue;
            }
            let text = fs::read_to_string(&file).unwrap_or_default();
            let code = library_code(&text);
            let lines: Vec<&str> = code.iter().map(String::as_str).collect();
            for (i, line) in lines.iter().enumerate() {
                let Some(name) = function_name(line) else {
                    continue;
                };
                let Some(end) = block_end(&lines, i) else {
                    continue;
                };
                if end - i + 1 > MAX_FUNCTION_LINES {
                    long.push(format!(
                        "{}:{} {name}: {} lines",
                        file.display(),
                        i + 1,
                        end - i + 1
                    ));
                }
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines:\n{}",
        long.join("\n")
    );
}

/// The file of module path `path` (relative to the crate's `src`), if any.
fn module_file(src: &Path, path: &[&str]) -> Option<PathBuf> {
    (1..=path.len()).rev().find_map(|n| {
        let base: PathBuf = path[..n].iter().collect();
        [
            src.join(&base).with_extension("rs"),
            src.join(&base).join("mod.rs"),
        ]
        .into_iter()
        .find(|f| f.is_file())
    })
}

/// The module path of a source file (`graph/build.rs` → `[graph, build]`).
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap_or(file).with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The files each file of the crate at `src` refers to with `crate::` or
/// `super::` paths, outside tests.
fn imports(src: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let mut edges = BTreeMap::new();
    for file in rust_files(src) {
        if is_test_file(&file) {
            continue;
        }
        let me = module_path(src, &file);
        let code = library_code(&fs::read_to_string(&file).unwrap_or_default()).join("\n");
        let mut deps = BTreeSet::new();
        for (start, root) in code
            .match_indices("crate::")
            .map(|(i, _)| (i, "crate"))
            .chain(code.match_indices("super::").map(|(i, _)| (i, "super")))
        {
            let before = code[..start].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let tail = &code[start + root.len() + 2..];
            let segments: Vec<&str> = tail
                .split("::")
                .map(|s| {
                    s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .next()
                        .unwrap_or("")
                })
                .take_while(|s| !s.is_empty())
                .collect();
            let mut path: Vec<&str> = Vec::new();
            if root == "super" {
                // `super` of `a/b.rs` is `a`; of `a/mod.rs` (module `a`), the root.
                let parent = me.len().saturating_sub(1);
                path.extend(me[..parent].iter().map(String::as_str));
            }
            path.extend(segments);
            if let Some(target) = module_file(src, &path) {
                if target != file {
                    deps.insert(target);
                }
            }
        }
        edges.insert(file, deps);
    }
    edges
}

#[test]
fn no_two_files_of_a_crate_import_each_other() {
    let mut cycles = Vec::new();
    for entry in fs::read_dir(crates_dir()).into_iter().flatten().flatten() {
        let src = entry.path().join("src");
        if !src.is_dir() {
            continue;
        }
        let edges = imports(&src);
        for (a, deps) in &edges {
            for b in deps {
                if a < b && edges.get(b).is_some_and(|d| d.contains(a)) {
                    cycles.push(format!("{} <-> {}", a.display(), b.display()));
                }
            }
        }
    }
    assert!(
        cycles.is_empty(),
        "files importing each other:\n{}",
        cycles.join("\n")
    );
}

/// The top-level modules of `crates/v4t/src` by rank, lowest first: a
/// module may import modules of its own rank or below, never above. The
/// ranks follow the pipeline (ARCHITECTURE.md): shared vocabulary, loading
/// and configuration, the element graph, enrichment and inputs, solving,
/// checks, output, and the commands built on all of it.
const V4T_RANKS: &[&[&str]] = &[
    // Vocabulary every stage shares.
    &[
        "error",
        "suggest",
        "kind",
        "document",
        "version",
        "logic",
        "functions",
        "reason",
        "texts",
    ],
    // Loading the template, its types and its configuration.
    &[
        "load",
        "validate",
        "types",
        "normalize",
        "options",
        "config",
        "inputs",
        "lint",
    ],
    // The element graph.
    &["graph"],
    // Enrichment (generated conditions and constraints).
    &["enrich"],
    // Solving.
    &["readable", "solve"],
    // Checks of a solution.
    &["check", "references"],
    // Output.
    &["report", "transform", "verify"],
    // What is built on the whole pipeline.
    &["explain", "analyze", "draw", "stats"],
];

/// The rank of top-level module `name` in [`V4T_RANKS`].
fn rank(name: &str) -> Option<usize> {
    V4T_RANKS.iter().position(|r| r.contains(&name))
}

#[test]
fn the_modules_of_v4t_import_only_lower_ranks() {
    let src = crates_dir().join("v4t").join("src");
    let top = |file: &Path| module_path(&src, file).first().cloned();
    let mut unranked = BTreeSet::new();
    let mut upward = Vec::new();
    for (file, deps) in imports(&src) {
        let Some(me) = top(&file) else { continue }; // lib.rs wires the stages
        let Some(my_rank) = rank(&me) else {
            unranked.insert(me);
            continue;
        };
        for dep in deps {
            let Some(other) = top(&dep) else { continue };
            match rank(&other) {
                None => {
                    unranked.insert(other);
                }
                Some(r) if r > my_rank => upward.push(format!(
                    "{} imports {} (rank {my_rank} -> {r})",
                    file.display(),
                    dep.display()
                )),
                Some(_) => {}
            }
        }
    }
    assert!(
        unranked.is_empty(),
        "modules without a rank in V4T_RANKS (add them where they belong in the pipeline): {unranked:?}"
    );
    assert!(
        upward.is_empty(),
        "imports against the pipeline's direction:\n{}",
        upward.join("\n")
    );
}

#[test]
fn the_topology_key_is_spelled_in_one_place() {
    let src = crates_dir().join("v4t").join("src");
    let mut found = Vec::new();
    for file in rust_files(&src) {
        if is_test_file(&file) {
            continue;
        }
        let text = fs::read_to_string(&file).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let code = code_only(&text);
        let code_lines: Vec<&str> = code.lines().collect();
        let tests = test_modules(&code_lines);
        for (i, line) in lines.iter().enumerate() {
            if line.contains("topology_template")
                && !tests.iter().any(|&(a, b)| (a..=b).contains(&i))
            {
                found.push(format!("{}:{}", file.display(), i + 1));
            }
        }
    }
    assert!(
        found.len() <= 3,
        "`topology_template` on {} lines:\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_checks_see_what_they_check() {
    // A long function, a string with braces and a test module are told apart.
    let body = "    let x = 1;\n".repeat(130);
    let text = format!(
        "fn short() {{\n    let s = \"}}}}{{\";\n    let c = '}}';\n}}\n\nfn long() {{\n{body}}}\n\n#[cfg(test)]\nmod tests {{\n    fn in_test() {{\n{body}    }}\n}}\n"
    );
    let code = library_code(&text);
    let lines: Vec<&str> = code.iter().map(String::as_str).collect();
    let lengths: Vec<(String, usize)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| Some((function_name(l)?.to_string(), block_end(&lines, i)? - i + 1)))
        .collect();
    assert_eq!(
        lengths,
        [("short".to_string(), 4), ("long".to_string(), 132)]
    );
    assert_eq!(
        function_name("    pub(crate) fn read(&self) -> u8;"),
        Some("read")
    );
    assert_eq!(block_end(&["    fn read(&self) -> u8;"], 0), None);
    assert!(code_only("let r = r#\"a { \"b\" }\"#; x").ends_with("; x"));
}
