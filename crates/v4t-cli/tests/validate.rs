//! `v4t validate` as a process: exit codes, output formats, CSARs, and the
//! hostile-input cases of the TOSCA layer (long import cycles, self-derived and
//! deeply derived types, recursive data types, huge counts, remote imports),
//! each of which must end with a clear error (or success) and never hang
//! or crash.
//!
//! Every `tests/validate/*.yaml` (or `*/main.yaml`) starts with its
//! expectation: `# error: [FILE:]LINE:COLUMN <part of the message>` (FILE
//! relative to the case, when the error is in another file), the same
//! with `# not checked:` (exit code 3: remote imports only) or `# ok`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::v4t;

fn validate(path: &Path) -> Output {
    v4t(&["validate", path.to_str().unwrap()])
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn cases() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/validate")
}

/// A fresh directory under the system temp dir.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("v4t-validate-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn hostile_cases_end_with_their_expected_error() {
    let mut checked = 0;
    let mut entries: Vec<_> = fs::read_dir(cases())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let file = if path.is_dir() {
            path.join("main.yaml")
        } else {
            path.clone()
        };
        if !file.is_file() {
            continue;
        }
        let text = fs::read_to_string(&file).unwrap();
        let header = text.lines().next().unwrap_or_default();
        let out = validate(&file);
        let err = stderr(&out);
        if header == "# ok" {
            assert_eq!(out.status.code(), Some(0), "{}: {err}", file.display());
        } else {
            // `# not checked:` (exit 3, remote imports) or `# error:` (exit 1).
            let (spec, code) = match header.strip_prefix("# not checked: ") {
                Some(spec) => (spec, 3),
                None => (
                    header
                        .strip_prefix("# error: ")
                        .expect("header `# error: L:C message`, `# not checked: ...` or `# ok`"),
                    1,
                ),
            };
            let (at, message) = spec.split_once(' ').unwrap();
            let location = match at.split_once(".yaml:") {
                Some((other, lc)) => format!(
                    "{}:{lc}",
                    file.with_file_name(format!("{other}.yaml")).display()
                ),
                None => format!("{}:{at}", file.display()),
            };
            assert_eq!(out.status.code(), Some(code), "{}: {err}", file.display());
            assert!(
                err.contains(message),
                "{}: expected {message:?} in\n{err}",
                file.display()
            );
            assert!(
                err.contains(&location),
                "{}: expected {location} in\n{err}",
                file.display()
            );
        }
        checked += 1;
    }
    assert!(checked >= 7, "only {checked} cases found");
}

#[test]
fn exit_codes_tell_valid_invalid_and_unreadable_apart() {
    let dir = temp_dir("exit");
    let ok = dir.join("ok.yaml");
    fs::write(
        &ok,
        "tosca_definitions_version: tosca_2_0\nnode_types:\n  N: {}\n",
    )
    .unwrap();
    assert_eq!(validate(&ok).status.code(), Some(0));
    let bad = dir.join("bad.yaml");
    fs::write(
        &bad,
        "tosca_definitions_version: tosca_2_0\nnode_types:\n  N: {derived_from: M}\n",
    )
    .unwrap();
    let out = validate(&bad);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("error: unknown node type `M`"), "{err}");
    assert!(err.contains("bad.yaml:3:21"), "{err}");
    assert!(
        err.contains("= note: in element node_types.N.derived_from"),
        "{err}"
    );
    assert!(err.contains("= note: TOSCA 2.0 §7.1"), "{err}");
    assert!(err.contains("= code: V4T140"), "{err}");
    assert_eq!(validate(&dir.join("missing.yaml")).status.code(), Some(2));
}

#[test]
fn json_lines_carry_location_path_code_and_section() {
    let dir = temp_dir("json");
    let bad = dir.join("bad.yaml");
    fs::write(
        &bad,
        "tosca_definitions_version: tosca_2_0\nnode_types:\n  N:\n    properties:\n      port: {type: integer}\nservice_template:\n  node_templates:\n    db:\n      type: N\n      properties:\n        port: eighty\n",
    )
    .unwrap();
    let out = v4t(&["validate", bad.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    let line = err.lines().next().unwrap();
    assert!(
        line.starts_with(
            "{\"severity\":\"error\",\"code\":\"V4T104\",\"message\":\"expected an integer"
        ),
        "{line}"
    );
    assert!(
        line.contains("\"line\":11,\"column\":15,\"end_line\":11,\"end_column\":21"),
        "{line}"
    );
    assert!(
        line.contains("\"element\":\"service_template.node_templates.db.properties.port\""),
        "{line}"
    );
    assert!(
        line.contains("\"notes\":[{\"message\":\"TOSCA 2.0 §9.1\"}]"),
        "{line}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn csar_directories_use_their_tosca_meta_entry() {
    let out = validate(&cases().join("csar"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let dir = temp_dir("csar-without-meta");
    fs::write(dir.join("a.yaml"), "tosca_definitions_version: tosca_2_0\n").unwrap();
    fs::write(dir.join("b.yaml"), "tosca_definitions_version: tosca_2_0\n").unwrap();
    let out = validate(&dir);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("exactly one"), "{}", stderr(&out));
    fs::remove_file(dir.join("b.yaml")).unwrap();
    assert_eq!(validate(&dir).status.code(), Some(0));
}

/// A zip archive (deflated) of `files`.
fn zip(files: &[(&str, &str)]) -> Vec<u8> {
    use std::io::Write;
    let mut out = Vec::new();
    let mut writer = rawzip::ZipArchiveWriter::new(&mut out);
    for (path, content) in files {
        let (mut entry, _) = writer
            .new_file(path)
            .compression_method(rawzip::CompressionMethod::DEFLATE)
            .start()
            .unwrap();
        entry
            .write_all(&miniz_oxide::deflate::compress_to_vec(
                content.as_bytes(),
                6,
            ))
            .unwrap();
        entry
            .finish(rawzip::DataDescriptorOutput::new(
                rawzip::crc32(content.as_bytes()),
                content.len() as u64,
            ))
            .unwrap();
    }
    writer.finish().unwrap();
    out
}

#[test]
fn zipped_csars_are_validated_with_their_files_and_profiles() {
    let dir = temp_dir("zip");
    let meta = "CSAR-Version: 2.0\nEntry-Definitions: service.yaml\n";
    let service = "tosca_definitions_version: tosca_2_0\nimports:\n  - profile: example.base:1.0\n    namespace: b\n  - types/extra.yaml\nservice_template:\n  node_templates:\n    web: {type: b:Server}\n    db: {type: Database}\n";
    let profile = "tosca_definitions_version: tosca_2_0\nprofile: example.base:1.0\nnode_types:\n  Server: {}\n";
    let extra = "tosca_definitions_version: tosca_2_0\nnode_types:\n  Database: {}\n";
    let good = dir.join("good.csar");
    fs::write(
        &good,
        zip(&[
            ("TOSCA-Metadata/TOSCA.meta", meta),
            ("service.yaml", service),
            ("profiles/base.yaml", profile),
            ("types/extra.yaml", extra),
        ]),
    )
    .unwrap();
    let out = validate(&good);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let bad = dir.join("bad.zip");
    fs::write(
        &bad,
        zip(&[
            ("TOSCA-Metadata/TOSCA.meta", meta),
            ("service.yaml", service),
            ("types/extra.yaml", extra),
        ]),
    )
    .unwrap();
    let out = validate(&bad);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("unknown profile `example.base:1.0`"), "{err}");
    assert!(err.contains("bad.zip/service.yaml:3:5"), "{err}");
    let broken = dir.join("broken.csar");
    fs::write(&broken, b"PK\x03\x04 not really a zip").unwrap();
    let out = validate(&broken);
    // An archive that cannot be read is a usage error, as in every command.
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot read the CSAR"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn generated_hostile_inputs_end_with_an_error_or_success() {
    let dir = temp_dir("generated");
    // 20,000 types in one derivation chain: valid, and no deep recursion.
    let mut chain = String::from("tosca_definitions_version: tosca_2_0\nnode_types:\n  T0: {}\n");
    for i in 1..20_000 {
        chain.push_str(&format!("  T{i}: {{derived_from: T{}}}\n", i - 1));
    }
    chain.push_str("service_template:\n  node_templates:\n    n: {type: T19999}\n");
    let path = dir.join("chain.yaml");
    fs::write(&path, chain).unwrap();
    let out = validate(&path);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // A value nested 100,000 levels deep: refused by the YAML layer.
    let deep = format!(
        "tosca_definitions_version: tosca_2_0\nmetadata:\n  x: {}{}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let path = dir.join("deep.yaml");
    fs::write(&path, deep).unwrap();
    let out = validate(&path);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("invalid YAML"), "{}", stderr(&out));
    // A chain of 500 files importing each other, the last one back to the
    // first: each is loaded once, and the first sees the last one's type.
    let files = dir.join("files");
    fs::create_dir_all(&files).unwrap();
    for i in 0..500 {
        let parent = if i == 0 { "{derived_from: T499}" } else { "{}" };
        fs::write(
            files.join(format!("f{i}.yaml")),
            format!("tosca_definitions_version: tosca_2_0\nimports: [f{}.yaml]\nnode_types:\n  T{i}: {parent}\n", (i + 1) % 500),
        )
        .unwrap();
    }
    let out = validate(&files.join("f0.yaml"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn resolved_outputs_of_valid_templates_validate() {
    let dir = temp_dir("resolved");
    let template = dir.join("template.yaml");
    fs::write(
        &template,
        "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      big: {type: boolean, default: false}
    expressions:
      is_big: {variability_input: big}
    options:
      mode: semantic-loose
  node_templates:
    app:
      type: tosca.nodes.WebApplication
      properties:
        - context_root: /shop
      requirements:
        - host: server
    server:
      type: tosca.nodes.WebServer
      requirements:
        - host: vm
    vm:
      type: tosca.nodes.Compute
      capabilities:
        host:
          properties:
            num_cpus: 2
            mem_size: 4 GB
    backup:
      type: tosca.nodes.Storage.BlockStorage
      conditions: {logic_expression: is_big}
      properties:
        name: backup
        size: 100 GB
",
    )
    .unwrap();
    for big in ["false", "true"] {
        let out_file = dir.join(format!("resolved-{big}.yaml"));
        let out = v4t(&[
            "resolve",
            template.to_str().unwrap(),
            "--input",
            &format!("big={big}"),
            "-o",
            out_file.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let out = validate(&out_file);
        assert_eq!(out.status.code(), Some(0), "big={big}: {}", stderr(&out));
    }
}

/// The bundled example resolves, for every preset, to valid TOSCA 1.3.
#[test]
fn bundled_example_resolves_to_valid_tosca_for_every_preset() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/web-app");
    let dir = temp_dir("example");
    for preset in ["dev", "prod"] {
        let out_file = dir.join(format!("{preset}.yaml"));
        let out = v4t(&[
            "resolve",
            example.join("template.yaml").to_str().unwrap(),
            "--presets",
            preset,
            "-o",
            out_file.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let out = validate(&out_file);
        assert_eq!(out.status.code(), Some(0), "{preset}: {}", stderr(&out));
    }
}
