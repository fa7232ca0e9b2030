//! The command forms users of the neighbouring tools expect: the
//! reference's `v4t template ...` command lines, zipped CSARs in and out,
//! output formats, `-` for standard output, `v4t test` reports (JSON,
//! JUnit, quiet), shell completions and the manual page.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::Path;

use crate::common::{arg, example_dir as example, text, v4t, v4t_in, TempDir};

/// Every file below `dir`, by `/`-separated relative path.
fn files_below(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap();
                let rel: Vec<_> = rel.iter().map(|c| c.to_str().unwrap()).collect();
                out.insert(rel.join("/"), fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// A zip archive of `files` (deflated), written with the same crates a
/// user's zip tool would be replaced by here.
fn zip(files: &BTreeMap<String, Vec<u8>>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut writer = rawzip::ZipArchiveWriter::new(&mut out);
    for (path, content) in files {
        let (mut entry, _) = writer
            .new_file(path.as_str())
            .compression_method(rawzip::CompressionMethod::DEFLATE)
            .start()
            .unwrap();
        entry
            .write_all(&miniz_oxide::deflate::compress_to_vec(content, 6))
            .unwrap();
        entry
            .finish(rawzip::DataDescriptorOutput::new(
                rawzip::crc32(content),
                content.len() as u64,
            ))
            .unwrap();
    }
    writer.finish().unwrap();
    out
}

/// The files of a zip archive.
fn unzip(bytes: &[u8]) -> BTreeMap<String, Vec<u8>> {
    let archive = rawzip::ZipArchive::from_slice(bytes).unwrap();
    let mut entries = archive.entries();
    let mut out = BTreeMap::new();
    while let Some(entry) = entries.next_entry().unwrap() {
        let name = std::str::from_utf8(entry.file_path().as_bytes())
            .unwrap()
            .to_string();
        let local = archive.get_entry(entry.wayfinder()).unwrap();
        let content = match entry.compression_method() {
            rawzip::CompressionMethod::DEFLATE => {
                miniz_oxide::inflate::decompress_to_vec(local.data()).unwrap()
            }
            _ => local.data().to_vec(),
        };
        out.insert(name, content);
    }
    out
}

#[test]
fn the_reference_command_line_gives_the_same_bytes() {
    let dir = TempDir::new("reference-form");
    let template = example().join("template.yaml");
    let inputs = dir.write("inputs.yaml", "env: prod\n");
    let short = dir.path().join("short.yaml");
    let long = dir.path().join("long.yaml");
    let out = v4t(&[
        "resolve",
        arg(&template),
        "--inputs",
        arg(&inputs),
        "--presets",
        "dev,prod",
        "--output",
        arg(&short),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = v4t(&[
        "template",
        "resolve",
        "--template",
        arg(&template),
        "--inputs",
        arg(&inputs),
        "--presets",
        "dev",
        "prod",
        "--output",
        arg(&long),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(fs::read(&short).unwrap(), fs::read(&long).unwrap());
    assert!(text(&fs::read(&long).unwrap()).contains("tosca_definitions_version"));

    // `template enrich` and `template test` likewise.
    let a = v4t(&["enrich", arg(&template)]);
    let b = v4t(&["template", "enrich", "--template", arg(&template)]);
    assert_eq!(a.status.code(), Some(0));
    assert_eq!(a.stdout, b.stdout);
    let out = v4t(&["template", "test", "--path", arg(&example())]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert_eq!(text(&out.stdout).lines().last(), Some("2 passed, 0 failed"));
}

#[test]
fn csar_round_trip() {
    let dir = TempDir::new("csar");
    let files = files_below(&example());
    let csar = dir.write("app.csar", zip(&files));

    // The zipped CSAR's tests run like the directory's.
    let out = v4t(&["test", arg(&csar)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert_eq!(text(&out.stdout).lines().last(), Some("2 passed, 0 failed"));

    // Resolving it to a CSAR replaces the template and keeps the rest.
    let resolved = dir.path().join("resolved.csar");
    let out = v4t(&[
        "resolve",
        arg(&csar),
        "--presets",
        "prod",
        "-o",
        arg(&resolved),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let unzipped = unzip(&fs::read(&resolved).unwrap());
    let expected = v4t(&[
        "resolve",
        arg(&example().join("template.yaml")),
        "--presets",
        "prod",
    ]);
    assert_eq!(unzipped["template.yaml"], expected.stdout);
    for (path, content) in &files {
        if path != "template.yaml" {
            assert_eq!(&unzipped[path], content, "{path}");
        }
    }
    assert_eq!(unzipped.len(), files.len());

    // The same archive resolves to the same bytes (no timestamps).
    let again = dir.path().join("again.csar");
    let out = v4t(&[
        "resolve",
        arg(&csar),
        "--presets",
        "prod",
        "-o",
        arg(&again),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(fs::read(&resolved).unwrap(), fs::read(&again).unwrap());

    // A zip without the .csar extension is recognised by its content, on
    // standard input too.
    let renamed = dir.write("app.bin", zip(&files));
    let out = v4t(&["resolve", arg(&renamed), "--presets", "prod"]);
    assert_eq!(out.stdout, expected.stdout, "{}", text(&out.stderr));
}

#[test]
fn csar_entry_definitions_and_files_beside_the_template() {
    let dir = TempDir::new("csar-meta");
    let mut files = BTreeMap::new();
    files.insert(
        "TOSCA-Metadata/TOSCA.meta".to_string(),
        b"TOSCA-Meta-File-Version: 1.1\nCSAR-Version: 1.1\nEntry-Definitions: defs/main.yaml\n"
            .to_vec(),
    );
    files.insert(
        "defs/main.yaml".to_string(),
        b"tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n  node_templates:\n    a: {type: lib.A}\n".to_vec(),
    );
    files.insert(
        "defs/lib/types.yaml".to_string(),
        b"tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  lib.A: {derived_from: tosca.nodes.Root}\n".to_vec(),
    );
    let csar = dir.write("app.csar", zip(&files));
    let out = v4t(&["resolve", arg(&csar)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("type: lib.A"),
        "{}",
        text(&out.stdout)
    );

    // Errors point into the archive.
    files.insert("defs/main.yaml".to_string(), b"a: 1\na: 2\n".to_vec());
    let csar = dir.write("broken.csar", zip(&files));
    let out = v4t(&["resolve", arg(&csar)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("broken.csar!/defs/main.yaml:2:1"),
        "{}",
        text(&out.stderr)
    );
}

/// A CSAR whose template `main.yaml` is named only by `TOSCA.meta` (no
/// default name, and not the only YAML file at its root), with one test.
fn csar_named_by_meta() -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut add = |path: &str, text: &str| files.insert(path.to_string(), text.as_bytes().to_vec());
    add(
        "TOSCA-Metadata/TOSCA.meta",
        "TOSCA-Meta-File-Version: 1.1\nCSAR-Version: 1.1\nEntry-Definitions: main.yaml\n",
    );
    add(
        "main.yaml",
        "tosca_definitions_version: tosca_variability_1_0\n\
         topology_template:\n\
         \x20 variability:\n\
         \x20   inputs:\n\
         \x20     on: {type: boolean, default: false}\n\
         \x20   presets:\n\
         \x20     up: {inputs: {on: true}}\n\
         \x20 node_templates:\n\
         \x20   kept: {type: tosca.nodes.Root, conditions: {variability_input: on}}\n\
         \x20   dropped: {type: tosca.nodes.Root, conditions: {not: {variability_input: on}}}\n",
    );
    add("notes.yaml", "not: the template\n");
    add("tests/up/test.yaml", "presets: [up]\n");
    add(
        "tests/up/expected.yaml",
        "tosca_definitions_version: tosca_simple_yaml_1_3\n\
         topology_template:\n\
         \x20 node_templates:\n\
         \x20   kept:\n\
         \x20     type: tosca.nodes.Root\n",
    );
    files
}

#[test]
fn a_csar_reads_the_same_unzipped_and_zipped() {
    let dir = TempDir::new("csar-both");
    let files = csar_named_by_meta();
    for (path, content) in &files {
        dir.write(&format!("c/{path}"), content);
    }
    let unzipped = dir.path().join("c");
    let zipped = dir.write("c.csar", zip(&files));

    for csar in [&unzipped, &zipped] {
        let out = v4t(&["test", arg(csar)]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
        assert_eq!(text(&out.stdout).lines().last(), Some("1 passed, 0 failed"));
    }
    // Every command that takes a template finds the same one in both.
    let resolve = |csar: &Path| v4t(&["resolve", arg(csar), "--presets", "up"]);
    let (a, b) = (resolve(&unzipped), resolve(&zipped));
    assert_eq!(a.status.code(), Some(0), "{}", text(&a.stderr));
    assert_eq!(a.stdout, b.stdout);
    assert!(text(&a.stdout).contains("kept:") && !text(&a.stdout).contains("dropped"));
    for command in [
        &["enrich"][..],
        &["analyze"],
        &["explain"],
        &["graph"],
        &["template", "resolve", "--presets", "up", "--template"],
        &["template", "enrich", "--template"],
    ] {
        let run = |csar: &Path| v4t(&[command, &[arg(csar)]].concat());
        let (a, b) = (run(&unzipped), run(&zipped));
        assert_eq!(a.status.code(), Some(0), "{command:?}: {}", text(&a.stderr));
        assert_eq!(b.status.code(), Some(0), "{command:?}: {}", text(&b.stderr));
        assert!(!a.stdout.is_empty(), "{command:?}");
    }
    let validate = |csar: &Path| v4t(&["validate", arg(csar)]).status.code();
    assert_eq!(validate(&unzipped), validate(&zipped));

    // A TOSCA.meta naming a missing file fails alike.
    let mut broken = files.clone();
    broken.remove("main.yaml");
    fs::remove_file(unzipped.join("main.yaml")).unwrap();
    let zipped = dir.write("broken.csar", zip(&broken));
    for csar in [&unzipped, &zipped] {
        let out = v4t(&["resolve", arg(csar)]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("`main.yaml` is not in the archive"),
            "{}",
            text(&out.stderr)
        );
        let out = v4t(&["test", arg(csar)]);
        assert!(
            text(&out.stdout).contains("is not a valid CSAR"),
            "{}",
            text(&out.stdout)
        );
    }
}

/// `files` as a tarball as `tar -C dir .` writes it, Gzip-compressed if
/// `gzip`.
fn tarball(files: &BTreeMap<String, Vec<u8>>, gzip: bool) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (path, content) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(content.len() as u64);
        header.set_mode(0o644);
        builder
            .append_data(&mut header, format!("./{path}"), &content[..])
            .unwrap();
    }
    let tar = builder.into_inner().unwrap();
    if !gzip {
        return tar;
    }
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&tar).unwrap();
    encoder.finish().unwrap()
}

/// A tarball CSAR (TOSCA 2.0 §17.1.1.1), plain or Gzip-compressed, reads
/// like the zip archive of the same files.
#[test]
fn a_tarball_csar_reads_like_a_zipped_one() {
    let dir = TempDir::new("csar-tar");
    let files = csar_named_by_meta();
    let zipped = dir.write("c.csar", zip(&files));
    let resolved = v4t(&["resolve", arg(&zipped), "--presets", "up"]);
    assert_eq!(
        resolved.status.code(),
        Some(0),
        "{}",
        text(&resolved.stderr)
    );
    for (name, gzip) in [("c.tar", false), ("c.tar.gz", true), ("c.tgz", true)] {
        let csar = dir.write(name, tarball(&files, gzip));
        let out = v4t(&["test", arg(&csar)]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stdout));
        assert_eq!(text(&out.stdout).lines().last(), Some("1 passed, 0 failed"));
        let out = v4t(&["resolve", arg(&csar), "--presets", "up"]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stderr));
        assert_eq!(out.stdout, resolved.stdout, "{name}");
        let out = v4t(&["validate", arg(&csar)]);
        assert_eq!(
            out.status.code(),
            v4t(&["validate", arg(&zipped)]).status.code(),
            "{name}: {}",
            text(&out.stderr)
        );
    }
}

/// `v4t validate` is a TOSCA processor: without `TOSCA.meta` a CSAR must
/// have a single YAML file at its root (TOSCA 2.0 §17.3); the default
/// template names of the resolving commands do not apply.
#[test]
fn validate_requires_one_root_yaml_file_without_tosca_meta() {
    let dir = TempDir::new("csar-strict");
    let files: BTreeMap<String, Vec<u8>> = [
        ("template.yaml", "tosca_definitions_version: tosca_2_0\n"),
        ("types.yaml", "tosca_definitions_version: tosca_2_0\n"),
    ]
    .into_iter()
    .map(|(p, c)| (p.to_string(), c.as_bytes().to_vec()))
    .collect();
    for (path, content) in &files {
        dir.write(&format!("c/{path}"), content);
    }
    let zipped = dir.write("c.csar", zip(&files));
    for csar in [&dir.path().join("c"), &zipped] {
        let out = v4t(&["validate", arg(csar)]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("is not a valid CSAR"),
            "{}",
            text(&out.stderr)
        );
    }
    fs::remove_file(dir.path().join("c/types.yaml")).unwrap();
    let out = v4t(&["validate", arg(&dir.path().join("c"))]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn output_formats_and_standard_output() {
    let dir = TempDir::new("formats");
    let template = example().join("template.yaml");
    let yaml = v4t(&["resolve", arg(&template), "--presets", "prod"]);
    assert_eq!(yaml.status.code(), Some(0));

    // `-o -` is standard output, not a file named `-`.
    let out = v4t_in(
        dir.path(),
        &["resolve", arg(&template), "--presets", "prod", "-o", "-"],
        &[],
    );
    assert_eq!(out.stdout, yaml.stdout);
    assert!(dir.names().is_empty(), "{:?}", dir.names());

    // JSON by extension and by flag.
    let json = dir.path().join("out.json");
    let out = v4t(&[
        "resolve",
        arg(&template),
        "--presets",
        "prod",
        "-o",
        arg(&json),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let by_extension = fs::read_to_string(&json).unwrap();
    assert!(by_extension
        .starts_with("{\n    \"tosca_definitions_version\": \"tosca_simple_yaml_1_3\","));
    let out = v4t(&[
        "resolve",
        arg(&template),
        "--presets",
        "prod",
        "--output-format",
        "json",
    ]);
    assert_eq!(text(&out.stdout), by_extension);

    // `--report -` writes the report to standard output when the result
    // goes to a file.
    let result = dir.path().join("result.yaml");
    let out = v4t(&[
        "resolve",
        arg(&template),
        "--presets",
        "prod",
        "-o",
        arg(&result),
        "--report",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("id: node.shop"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(fs::read(&result).unwrap(), yaml.stdout);
}

#[test]
fn test_reports_as_json_junit_and_quiet() {
    let dir = TempDir::new("reports");
    dir.write(
        "group/ok/template.yaml",
        "tosca_definitions_version: tosca_variability_1_0\ntopology_template: {node_templates: {a: {type: t}}}\n",
    );
    dir.write(
        "group/ok/expected.yaml",
        "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template: {node_templates: {a: {type: t}}}\n",
    );
    dir.write("group/bad<&>/template.yaml", "a: [\n");
    dir.write("group/bad<&>/test.yaml", "error: \"x\\u001b[31m\"\n");
    dir.write("group/off---disabled/template.yaml", "");
    dir.write("group/off---disabled/expected.yaml", "");
    let root = dir.path().join("group");

    let out = v4t(&["test", arg(&root), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let json = text(&out.stdout);
    assert!(json.contains("\"outcome\": \"failed\""), "{json}");
    assert!(json.contains("\"outcome\": \"skipped\""), "{json}");
    assert!(
        json.ends_with("\"passed\": 1,\n    \"failed\": 1,\n    \"skipped\": 1\n}\n"),
        "{json}"
    );

    let junit = dir.path().join("junit.xml");
    let out = v4t(&["test", arg(&root), "--quiet", "--junit", arg(&junit)]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "1 passed, 1 failed, 1 skipped\n");
    let xml = fs::read_to_string(&junit).unwrap();
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"v4t\" tests=\"3\" failures=\"1\" skipped=\"1\">"), "{xml}");
    assert!(xml.contains("bad&lt;&amp;&gt;"), "{xml}");
    assert!(
        xml.contains("<failure message=\"expected error &quot;x\\u{1b}[31m&quot;"),
        "{xml}"
    );
    assert!(xml.contains("<skipped/>"), "{xml}");
    assert!(!xml.contains('\u{1b}'), "{xml}");
}

/// A template without tests (a template meant for swapping: no `tests/`,
/// no expected file; a CSAR with an empty `tests/`) is reported, not
/// counted; a run that finds no test at all fails.
#[test]
fn templates_without_tests_are_reported_not_counted() {
    let dir = TempDir::new("untested");
    let template = "tosca_definitions_version: tosca_variability_1_0\ntopology_template: {node_templates: {a: {type: t}}}\n";
    let expected = "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template: {node_templates: {a: {type: t}}}\n";
    dir.write("all/tested/template.yaml", template);
    dir.write("all/tested/tests/one/expected.yaml", expected);
    dir.write("all/swap/service-template.yaml", template);
    dir.write("all/empty/template.yaml", template);
    fs::create_dir_all(dir.path().join("all/empty/tests")).unwrap();
    dir.write(
        "all/meta/TOSCA-Metadata/TOSCA.meta",
        "CSAR-Version: 1.1\nEntry-Definitions: main.yaml\n",
    );
    dir.write("all/meta/main.yaml", template);
    dir.write("all/group/notes/readme.txt", "not a template");

    let root = dir.path().join("all");
    let out = v4t(&["test", arg(&root)]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    for name in ["empty", "meta", "swap"] {
        let line = format!("none {}: a template without tests\n", arg(&root.join(name)));
        assert!(stdout.contains(&line), "{name}: {stdout}");
    }
    assert!(!stdout.contains("group"), "{stdout}");
    assert!(stdout.ends_with("\n1 passed, 0 failed\n"), "{stdout}");

    let out = v4t(&["test", arg(&root), "--format", "json"]);
    let json = text(&out.stdout);
    assert!(json.contains("\"untested\": [\n"), "{json}");
    assert!(json.contains("\"failed\": 0"), "{json}");

    // Nothing to test: a failure, not a pass.
    let out = v4t(&["test", arg(&root.join("swap"))]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no tests found"),
        "{}",
        text(&out.stderr)
    );
    assert!(text(&out.stdout).ends_with("0 passed, 0 failed\n"));
}

#[test]
fn completions_and_man_pages() {
    for shell in ["bash", "zsh", "fish"] {
        let out = v4t(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = text(&out.stdout);
        assert!(
            script.contains("resolve") && script.contains("output-format"),
            "{shell}"
        );
    }
    let out = v4t(&["man"]);
    assert_eq!(out.status.code(), Some(0));
    let page = text(&out.stdout);
    assert!(page.contains(".TH v4t"), "{page}");
    assert!(page.contains("resolve"), "{page}");

    let dir = TempDir::new("man");
    let out = v4t(&["man", "--output-dir", arg(dir.path())]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let names = dir.names();
    assert!(names.contains(&"v4t.1".to_string()), "{names:?}");
    assert!(names.contains(&"v4t-resolve.1".to_string()), "{names:?}");
}

#[test]
fn help_names_every_input_form() {
    let out = v4t(&["resolve", "--help"]);
    let help = text(&out.stdout);
    for form in [
        "standard input",
        "zipped CSAR",
        "Entry-Definitions",
        "FeatureIDE",
        ".xml",
        "OPENTOSCA_VINTNER_VARIABILITY_INPUT_",
        "OPENTOSCA_VINTNER_VARIABILITY_PRESETS",
        "--input NAME=VALUE",
        "--output-format",
    ] {
        assert!(help.contains(form), "{form} missing in {help}");
    }
    let help = text(&v4t(&["test", "--help"]).stdout);
    for form in [
        "zipped CSAR",
        "--junit",
        "--format",
        "--quiet",
        "symlinked directories",
    ] {
        assert!(help.contains(form), "{form} missing in {help}");
    }
}
