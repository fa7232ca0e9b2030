//! Hostile files and command lines through the `v4t` binary: FIFOs and
//! devices where files are expected, oversized files, symlinks leaving the
//! template directory or looping in a test tree, planted temporary-file
//! symlinks, outputs that name inputs, hostile zip archives and
//! interruptions. Every case must end with exit 0, 1 or 2 as documented,
//! never hang, never panic, and write nothing outside the output path.

#![cfg(unix)]

use std::fs;
use std::io::Write;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{arg, text, v4t, TempDir};

const HEADER: &str = "tosca_definitions_version: tosca_variability_1_0\n";

/// A small valid template.
const TEMPLATE: &str = "tosca_definitions_version: tosca_variability_1_0
topology_template:
  node_templates:
    a: {type: tosca.nodes.Root}
";

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(arg(path)).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// Waits for `child`, killing it and failing the test if it has not ended
/// after a generous minute (a hang is the bug being tested for).
fn wait_bounded(mut child: Child) -> Output {
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("v4t hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `v4t` with a watchdog.
fn v4t_bounded(args: &[&str]) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_v4t"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_bounded(child)
}

fn assert_clean_exit(out: &Output, code: i32) {
    assert_eq!(out.status.code(), Some(code), "{}", text(&out.stderr));
    assert!(
        !text(&out.stderr).contains("panicked"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn fifos_and_devices_are_refused_without_reading() {
    let dir = TempDir::new("fifo");
    let fifo = dir.path().join("t.yaml");
    mkfifo(&fifo);
    let out = v4t_bounded(&["resolve", arg(&fifo)]);
    assert_clean_exit(&out, 2);
    assert!(
        text(&out.stderr).contains("not a regular file (a FIFO)\n  = code: V4T003\n"),
        "{}",
        text(&out.stderr)
    );
    let out = v4t_bounded(&["resolve", "/dev/zero"]);
    assert_clean_exit(&out, 2);
    assert!(text(&out.stderr).contains("a character device"));
    let template = dir.write("ok.yaml", TEMPLATE);
    let out = v4t_bounded(&["resolve", arg(&template), "--inputs", "/dev/zero"]);
    assert_clean_exit(&out, 2);
    let out = v4t_bounded(&["test", "/dev/zero"]);
    assert_clean_exit(&out, 2);
}

#[test]
fn fifos_beside_the_template_do_not_hang() {
    let dir = TempDir::new("fifo-beside");
    let template = dir.write("t.yaml", TEMPLATE);
    mkfifo(&dir.path().join("qualities.yaml"));
    let out = v4t_bounded(&["resolve", arg(&template)]);
    assert_clean_exit(&out, 1);
    assert!(
        text(&out.stderr).contains("qualities.yaml\": not a regular file (a FIFO)"),
        "{}",
        text(&out.stderr)
    );
    fs::remove_file(dir.path().join("qualities.yaml")).unwrap();

    // In `lib/`, a FIFO is skipped with a warning.
    fs::create_dir_all(dir.path().join("lib")).unwrap();
    mkfifo(&dir.path().join("lib/types.yaml"));
    let out = v4t_bounded(&["resolve", arg(&template)]);
    assert_clean_exit(&out, 0);
    assert!(
        text(&out.stderr).contains("lib/types.yaml\": not a regular file"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn oversized_files_beside_the_template_are_refused() {
    let dir = TempDir::new("oversized");
    let template = dir.write("t.yaml", TEMPLATE);
    // Sparse: 300 MiB on paper, nothing on disk.
    let big = fs::File::create(dir.path().join("lib/big.yaml")).or_else(|_| {
        fs::create_dir_all(dir.path().join("lib"))?;
        fs::File::create(dir.path().join("lib/big.yaml"))
    });
    big.unwrap().set_len(300 * 1024 * 1024).unwrap();
    let out = v4t_bounded(&["resolve", arg(&template)]);
    assert_clean_exit(&out, 1);
    assert!(
        text(&out.stderr).contains("lib/big.yaml\": the file is larger than 256 MiB"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn symlinks_leaving_lib_are_warnings() {
    let outside = TempDir::new("outside");
    let secret = outside.write(
        "secret.yaml",
        "node_types:\n  secret.Type: {derived_from: tosca.nodes.Root}\n",
    );
    let dir = TempDir::new("lib-symlink");
    let template = dir.write("t.yaml", TEMPLATE);
    fs::create_dir_all(dir.path().join("lib")).unwrap();
    symlink(&secret, dir.path().join("lib/secret.yaml")).unwrap();
    let out = v4t_bounded(&["resolve", arg(&template)]);
    assert_clean_exit(&out, 0);
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("warning: Skipping \"")
            && stderr.contains("lib/secret.yaml\": it is a symlink to a place outside"),
        "{stderr}"
    );
    assert!(!text(&out.stdout).contains("secret.Type"));
}

#[test]
fn symlink_loops_in_a_test_tree_end() {
    let dir = TempDir::new("test-loop");
    dir.write("g/t/template.yaml", TEMPLATE);
    dir.write(
        "g/t/expected.yaml",
        "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    a: {type: tosca.nodes.Root}\n",
    );
    symlink(".", dir.path().join("g/self")).unwrap();
    symlink("..", dir.path().join("g/up")).unwrap();
    symlink("../..", dir.path().join("g/t2")).unwrap();
    let out = v4t_bounded(&["test", arg(dir.path())]);
    assert_clean_exit(&out, 0);
    assert_eq!(text(&out.stdout), "1 passed, 0 failed\n");
    assert!(text(&out.stderr).contains("not following the symlinked directory"));
}

#[test]
fn outputs_may_not_be_inputs() {
    let dir = TempDir::new("same-file");
    let template = dir.write("t.yaml", TEMPLATE);
    let inputs = dir.write("i.yaml", "{}\n");
    let link = dir.path().join("link.yaml");
    symlink(&template, &link).unwrap();
    for args in [
        vec!["resolve", arg(&template), "-o", arg(&template)],
        vec!["resolve", arg(&template), "-o", arg(&link)],
        vec![
            "resolve",
            arg(&template),
            "--inputs",
            arg(&inputs),
            "-o",
            arg(&inputs),
        ],
        vec!["resolve", arg(&template), "--report", arg(&template)],
        vec!["enrich", arg(&template), "-o", arg(&template)],
        vec![
            "template",
            "resolve",
            "--template",
            arg(&template),
            "--output",
            arg(&template),
        ],
    ] {
        let out = v4t_bounded(&args);
        assert_clean_exit(&out, 2);
        assert!(
            text(&out.stderr).starts_with("error: refusing to write"),
            "{}",
            text(&out.stderr)
        );
    }
    assert_eq!(fs::read_to_string(&template).unwrap(), TEMPLATE);
    assert_eq!(fs::read_to_string(&inputs).unwrap(), "{}\n");

    let out_path = dir.path().join("out.yaml");
    let out = v4t_bounded(&[
        "resolve",
        arg(&template),
        "-o",
        arg(&out_path),
        "--report",
        arg(&out_path),
    ]);
    assert_clean_exit(&out, 2);
    assert!(!out_path.exists());
    let out = v4t_bounded(&["resolve", arg(&template), "--report", "-"]);
    assert_clean_exit(&out, 2);
    assert_eq!(dir.names(), ["i.yaml", "link.yaml", "t.yaml"]);
}

/// A template big enough that writing its result takes a moment.
fn big_template(nodes: usize) -> String {
    let mut t = String::from(HEADER);
    t.push_str("topology_template:\n  node_templates:\n");
    for i in 0..nodes {
        t.push_str(&format!(
            "    n{i}: {{type: tosca.nodes.Root, properties: {{p: \"{}\"}}}}\n",
            "x".repeat(200)
        ));
    }
    t
}

#[test]
fn planted_temporary_file_symlinks_are_not_followed() {
    let dir = TempDir::new("planted");
    let template = dir.write("t.yaml", big_template(20_000));
    let victim = dir.write("victim.txt", "precious\n");
    let output = dir.path().join("out.yaml");
    let child = Command::new(env!("CARGO_BIN_EXE_v4t"))
        .args(["resolve", arg(&template), "-o", arg(&output)])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The name an attacker could predict from the process id.
    symlink(
        &victim,
        dir.path().join(format!(".out.yaml.{}.v4t-tmp", child.id())),
    )
    .unwrap();
    let out = wait_bounded(child);
    assert_clean_exit(&out, 0);
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
    assert!(fs::read_to_string(&output).unwrap().contains("n19999:"));
}

#[test]
fn interrupted_writes_leave_no_temporary_file() {
    let dir = TempDir::new("interrupt");
    let template = dir.write("t.yaml", big_template(8_000));
    let output = dir.path().join("out.yaml");
    let complete = {
        let out = v4t(&["resolve", arg(&template)]);
        assert_clean_exit(&out, 0);
        out.stdout
    };
    let temp_exists = || dir.names().iter().any(|n| n.ends_with(".v4t-tmp"));
    let mut caught_writing = 0;
    // Four rounds at least (both signals twice); more until one signal
    // lands while the file is written (a loaded machine may finish the
    // write between seeing the temporary file and the signal).
    for round in 0..40 {
        if round >= 4 && caught_writing > 0 {
            break;
        }
        let _ = fs::remove_file(&output);
        let mut child = Command::new(env!("CARGO_BIN_EXE_v4t"))
            .args(["resolve", arg(&template), "-o", arg(&output)])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Interrupt while the temporary file exists (watched for), or
        // otherwise once the process is done with the output.
        while !temp_exists() && child.try_wait().unwrap().is_none() {
            std::hint::spin_loop();
        }
        let signal = if round % 2 == 0 {
            libc::SIGTERM
        } else {
            libc::SIGINT
        };
        // SAFETY: sending a signal to our own child.
        unsafe { libc::kill(child.id() as i32, signal) };
        let status = wait_bounded(child).status;
        if status.code().is_none() {
            caught_writing += 1;
        }
        let leftovers: Vec<_> = dir
            .names()
            .into_iter()
            .filter(|n| n.ends_with(".v4t-tmp"))
            .collect();
        assert!(leftovers.is_empty(), "round {round}: {leftovers:?}");
        // The output is there completely or not at all.
        if let Ok(written) = fs::read(&output) {
            assert_eq!(written, complete, "round {round}");
        }
    }
    // At least one signal arrived while writing (and killed the process).
    assert!(caught_writing > 0);
}

/// A zip archive with one stored entry named exactly `name`.
fn zip_one(name: &str, content: &[u8], declared: Option<u64>, deflate: bool) -> Vec<u8> {
    zip_entry(name, content, declared, deflate, 0o100644)
}

/// [`zip_one`] with the entry's Unix `mode` (file type and permissions).
fn zip_entry(
    name: &str,
    content: &[u8],
    declared: Option<u64>,
    deflate: bool,
    mode: u32,
) -> Vec<u8> {
    let mut out = Vec::new();
    let mut writer = rawzip::ZipArchiveWriter::new(&mut out);
    let method = if deflate {
        rawzip::CompressionMethod::DEFLATE
    } else {
        rawzip::CompressionMethod::STORE
    };
    let (mut entry, _) = writer
        .new_file(rawzip::path::EntryPath::verbatim(name.as_bytes()))
        .compression_method(method)
        .unix_permissions(mode)
        .start()
        .unwrap();
    if deflate {
        entry
            .write_all(&miniz_oxide::deflate::compress_to_vec(content, 9))
            .unwrap();
    } else {
        entry.write_all(content).unwrap();
    }
    let size = declared.unwrap_or(content.len() as u64);
    let crc = rawzip::crc32(content);
    entry
        .finish(rawzip::DataDescriptorOutput::new(crc, size))
        .unwrap();
    writer.finish().unwrap();
    out
}

#[test]
fn hostile_archives_are_refused() {
    let dir = TempDir::new("archives");
    let escaping = dir.write(
        "escape.csar",
        zip_one("../evil.yaml", TEMPLATE.as_bytes(), None, false),
    );
    let out = v4t_bounded(&[
        "resolve",
        arg(&escaping),
        "-o",
        arg(&dir.path().join("out.csar")),
    ]);
    assert_clean_exit(&out, 2);
    assert!(
        text(&out.stderr).contains("entry \"../evil.yaml\" leaves the archive's root"),
        "{}",
        text(&out.stderr)
    );
    let absolute = dir.write(
        "absolute.zip",
        zip_one("/tmp/evil.yaml", TEMPLATE.as_bytes(), None, false),
    );
    let out = v4t_bounded(&["test", arg(&absolute)]);
    assert_clean_exit(&out, 2);
    assert!(
        text(&out.stderr).contains("is an absolute path"),
        "{}",
        text(&out.stderr)
    );

    // Zeros deflate a thousandfold; the archive claims they are few.
    let zeros = vec![0u8; 8 * 1024 * 1024];
    let bomb = dir.write("bomb.csar", zip_one("t.yaml", &zeros, Some(1000), true));
    let out = v4t_bounded(&["resolve", arg(&bomb)]);
    assert_clean_exit(&out, 2);
    assert!(
        text(&out.stderr).contains("larger than declared"),
        "{}",
        text(&out.stderr)
    );
    // One that admits to inflating beyond the limit is refused before
    // anything is inflated.
    let honest = dir.write(
        "honest.csar",
        zip_one("t.yaml", &zeros, Some(300 * 1024 * 1024), true),
    );
    let out = v4t_bounded(&["resolve", arg(&honest)]);
    assert_clean_exit(&out, 2);
    assert!(
        text(&out.stderr).contains("inflates to more than 256 MiB"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        dir.names(),
        ["absolute.zip", "bomb.csar", "escape.csar", "honest.csar"]
    );
}

/// A refused archive (an entry leaving the root, a link entry, a zip bomb)
/// is a file named on the command line that cannot be read: exit 2 in
/// every command that reads archives.
#[test]
fn refused_archives_exit_2_in_every_command() {
    let dir = TempDir::new("refused");
    let zeros = vec![0u8; 8 * 1024 * 1024];
    let archives = [
        (
            dir.write(
                "escape.csar",
                zip_one("../evil.yaml", TEMPLATE.as_bytes(), None, false),
            ),
            "leaves the archive's root",
        ),
        (
            dir.write(
                "link.csar",
                zip_entry("template.yaml", b"/etc/passwd", None, false, 0o120777),
            ),
            "is a symbolic link",
        ),
        (
            dir.write("bomb.csar", zip_one("t.yaml", &zeros, Some(1000), true)),
            "larger than declared",
        ),
    ];
    for (archive, why) in &archives {
        let a = arg(archive);
        let commands: [&[&str]; 10] = [
            &["resolve", a],
            &["enrich", a],
            &["test", a],
            &["analyze", a],
            &["explain", a],
            &["graph", a],
            &["validate", a],
            &["template", "resolve", "--template", a],
            &["template", "enrich", "--template", a],
            &["template", "test", "--path", a],
        ];
        for command in commands {
            let out = v4t_bounded(command);
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{command:?}: {stderr}");
            assert!(stderr.contains(why), "{command:?}: {stderr}");
            assert!(!stderr.contains("panicked"), "{command:?}: {stderr}");
        }
    }
}

#[test]
fn undeclared_inputs_and_warnings_on_failure() {
    let dir = TempDir::new("undeclared");
    let template = dir.write(
        "t.yaml",
        "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      env: {type: string, default: dev}
  node_templates:
    a:
      type: tosca.nodes.Root
      conditions: {equal: [{variability_input: env}, dev]}
      condtions: false
",
    );
    let inputs = dir.write("i.yaml", "evn: prod\n");
    let out = v4t_bounded(&[
        "resolve",
        arg(&template),
        "--inputs",
        arg(&inputs),
        "--input",
        "envv=x",
    ]);
    assert_clean_exit(&out, 0);
    let stderr = text(&out.stderr);
    let warnings: Vec<_> = stderr
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .collect();
    assert_eq!(
        warnings,
        [
            "warning: Unknown key \"condtions\" in node template \"a\"; did you mean \"conditions\"?",
            "warning: Variability input \"evn\" is assigned but not declared; did you mean \"env\"?",
            "warning: Variability input \"envv\" is assigned but not declared; did you mean \"env\"?",
        ],
        "{stderr}"
    );
    assert!(stderr.contains("i.yaml:1:1"), "{stderr}");
    let out = v4t_bounded(&["resolve", arg(&template), "--quiet"]);
    assert_clean_exit(&out, 0);
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));

    // When resolution fails, the warnings come first, then the error.
    let failing = dir.write(
        "f.yaml",
        "tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    constraints: [{node_presence: a}]
  node_templates:
    a: {type: tosca.nodes.Root, condtions: true, conditions: false}
",
    );
    let out = v4t_bounded(&["resolve", arg(&failing)]);
    assert_clean_exit(&out, 1);
    let stderr = text(&out.stderr);
    let first = stderr
        .find("warning: Unknown key \"condtions\"")
        .expect(&stderr);
    let error = stderr.find("error: Could not solve").expect(&stderr);
    assert!(first < error, "{stderr}");
}

#[test]
fn escape_sequences_never_reach_the_terminal() {
    let dir = TempDir::new("escapes");
    // Escapes written as YAML escapes end up raw in the parsed strings.
    let template = dir.write(
        "t.yaml",
        "tosca_definitions_version: tosca_variability_1_0
topology_template:
  node_templates:
    a:
      type: tosca.nodes.Root
      requirements:
        - dependency: \"\\e]0;pwned\\a\\e[2J\\u202e\"
      \"\\e[31mcolour\": x
",
    );
    let raw = |s: &str| {
        s.chars()
            .any(|c| c.is_control() && c != '\n' || c == '\u{202e}')
    };
    for color in ["never", "auto"] {
        let out = v4t_bounded(&["resolve", arg(&template), "--color", color]);
        assert_clean_exit(&out, 1);
        let stderr = text(&out.stderr);
        assert!(!raw(&stderr), "{stderr:?}");
        assert!(
            stderr.contains("\\u{1b}]0;pwned\\u{7}\\u{1b}[2J\\u{202e}"),
            "{stderr}"
        );
        assert!(
            stderr.contains("Unknown key \"\\u{1b}[31mcolour\""),
            "{stderr}"
        );
    }
    // Through `v4t test`, where the message is part of a failure report.
    dir.write("suite/case/template.yaml", fs::read(&template).unwrap());
    dir.write("suite/case/test.yaml", "error: nothing\n");
    let out = v4t_bounded(&["test", arg(&dir.path().join("suite"))]);
    assert_clean_exit(&out, 1);
    assert!(!raw(&text(&out.stdout)), "{:?}", text(&out.stdout));
    // A raw control character in the source line (refused by the YAML
    // reader) is shown as a visible character.
    let bell = dir.write("bell.yaml", "description: a\u{7}b\u{1b}[2J\n");
    let out = v4t_bounded(&["resolve", arg(&bell)]);
    assert_clean_exit(&out, 1);
    let stderr = text(&out.stderr);
    assert!(!raw(&stderr), "{stderr:?}");
    assert!(
        stderr.contains("description: a\u{2407}b\u{241b}[2J"),
        "{stderr}"
    );
}
