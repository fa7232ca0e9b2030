//! A Vintner project as it is: template directories whose `config.yaml`
//! lists dependencies kept elsewhere (read in place by every command), and
//! the reference's project commands `v4t template pull|unpull|package|
//! unpackage|stats`.

use std::fs;

use crate::common::{arg, text, v4t, TempDir};

/// Technology rules and types that the template needs: without them
/// `application` is no known node type.
const RULES: &str = "terraform:\n  - component: application\n    hosting: terraform_host\n";
const TYPES: &str = "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  application: {}\n  terraform_host: {}\n";
const TEMPLATE: &str = "tosca_definitions_version: tosca_variability_1_0_rc_3
topology_template:
  variability:
    options: {hosting_stack_constraint: false}
  node_templates:
    app:
      type: application
      anchor: true
      requirements: [{host: vm}]
    vm: {type: terraform_host, managed: false}
";
const EXPECTED: &str = "tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  node_templates:
    app:
      type: application~application::terraform@terraform_host
      requirements:
        - host: vm
    vm:
      type: terraform_host
";

/// A project: `shared/lib` (rules and types) and the template directory
/// `app` with a test, its `config.yaml` naming `../shared/lib`.
fn project() -> TempDir {
    let p = TempDir::new("project");
    p.write("shared/lib/rules.yaml", RULES);
    p.write("shared/lib/types/types.yaml", TYPES);
    p.write("app/template.yaml", TEMPLATE);
    p.write(
        "app/config.yaml",
        "dependencies:\n    - source: ../shared/lib\n",
    );
    p.write("app/tests/default/expected.yaml", EXPECTED);
    p
}

#[test]
fn dependencies_are_read_in_place_by_every_command() {
    let p = project();
    let app = p.path().join("app");
    let template = app.join("template.yaml");
    let out = v4t(&["resolve", arg(&template)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), EXPECTED);
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("note: ")
            && stderr.contains("app/config.yaml:2:15: the dependency is not pulled"),
        "{stderr}"
    );
    // The same through a directory, for tests, and for the other commands.
    let test = v4t(&["test", arg(&app)]);
    assert!(
        test.status.success(),
        "{}{}",
        text(&test.stdout),
        text(&test.stderr)
    );
    assert!(
        text(&test.stdout).ends_with("1 passed, 0 failed\n"),
        "{}",
        text(&test.stdout)
    );
    for args in [
        vec!["resolve", arg(&app)],
        vec!["enrich", arg(&template)],
        vec!["explain", arg(&template)],
        vec!["analyze", arg(&template)],
        vec!["graph", arg(&template)],
    ] {
        let out = v4t(&args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    }
    // Without the dependency the template is broken: the test above can fail.
    fs::remove_file(app.join("config.yaml")).unwrap();
    assert!(!v4t(&["test", arg(&app)]).status.success());
}

#[test]
fn a_pulled_copy_wins_over_the_source() {
    let p = project();
    let app = p.path().join("app");
    // A pulled copy whose rules differ: it is what is read, without a note.
    p.write("app/lib/types.yaml", TYPES);
    let out = v4t(&["resolve", arg(&app.join("template.yaml"))]);
    assert!(
        !out.status.success(),
        "no rules in the copy: {}",
        text(&out.stdout)
    );
    assert!(
        !text(&out.stderr).contains("is read from"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn pull_and_unpull_round_trip() {
    let p = project();
    let app = p.path().join("app");
    let out = v4t(&["template", "pull", "--dir", arg(&app)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        fs::read_to_string(app.join("lib/rules.yaml")).unwrap(),
        RULES
    );
    assert_eq!(
        fs::read_to_string(app.join("lib/types/types.yaml")).unwrap(),
        TYPES
    );
    // Pulled, the tests read the copy (no note) and still pass.
    let test = v4t(&["test", arg(&app)]);
    assert!(test.status.success(), "{}", text(&test.stdout));
    // Pulling again refreshes the copy.
    fs::write(app.join("lib/rules.yaml"), "changed").unwrap();
    assert!(v4t(&["template", "pull", "--dir", arg(&app)])
        .status
        .success());
    assert_eq!(
        fs::read_to_string(app.join("lib/rules.yaml")).unwrap(),
        RULES
    );
    // Unpull removes exactly the copy.
    let out = v4t(&["template", "unpull", "--dir", arg(&app)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!app.join("lib").exists());
    assert!(app.join("template.yaml").exists() && p.path().join("shared/lib/rules.yaml").exists());
    // Unpulling what is not there does nothing.
    assert!(v4t(&["template", "unpull", "--dir", arg(&app)])
        .status
        .success());
}

#[test]
fn unpull_never_removes_what_pull_did_not_create() {
    let p = project();
    let app = p.path().join("app");
    assert!(v4t(&["template", "pull", "--dir", arg(&app)])
        .status
        .success());
    // A file of the user's own in the copy: the copy stays.
    p.write("app/lib/mine.yaml", "mine: 1\n");
    let out = v4t(&["template", "unpull", "--dir", arg(&app)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("\"mine.yaml\" is not in the source"),
        "{}",
        text(&out.stderr)
    );
    assert!(app.join("lib/mine.yaml").exists() && app.join("lib/rules.yaml").exists());
    // A changed file likewise.
    fs::remove_file(app.join("lib/mine.yaml")).unwrap();
    fs::write(app.join("lib/rules.yaml"), "edited").unwrap();
    let out = v4t(&["template", "unpull", "--dir", arg(&app)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("rules.yaml: a file was changed"),
        "{}",
        text(&out.stderr)
    );
    assert!(app.join("lib/rules.yaml").exists());
}

#[cfg(unix)]
#[test]
fn pull_with_link_and_unpull() {
    let p = project();
    let app = p.path().join("app");
    let out = v4t(&["template", "pull", "--dir", arg(&app), "--link"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lib = app.join("lib");
    assert!(fs::symlink_metadata(&lib).unwrap().file_type().is_symlink());
    assert!(v4t(&["test", arg(&app)]).status.success());
    // Linking again is fine; copying over a link is not.
    assert!(v4t(&["template", "pull", "--dir", arg(&app), "--link"])
        .status
        .success());
    assert_eq!(
        v4t(&["template", "pull", "--dir", arg(&app)]).status.code(),
        Some(1)
    );
    assert!(v4t(&["template", "unpull", "--dir", arg(&app)])
        .status
        .success());
    assert!(fs::symlink_metadata(&lib).is_err());
    assert!(
        p.path().join("shared/lib/rules.yaml").exists(),
        "the source stays"
    );
    // A link elsewhere is not removed.
    std::os::unix::fs::symlink(p.path().join("shared"), &lib).unwrap();
    assert_eq!(
        v4t(&["template", "unpull", "--dir", arg(&app)])
            .status
            .code(),
        Some(1)
    );
    assert!(fs::symlink_metadata(&lib).is_ok());
}

#[test]
fn package_and_unpackage_round_trip() {
    let p = project();
    let app = p.path().join("app");
    let csar = p.path().join("app.csar");
    let out = v4t(&[
        "template",
        "package",
        "--template",
        arg(&app),
        "--output",
        arg(&csar),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The archive holds the dependency at its target: it resolves alone.
    let out = v4t(&["resolve", arg(&csar)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), EXPECTED);
    // Packaging is deterministic.
    let again = p.path().join("again.csar");
    assert!(v4t(&[
        "template",
        "package",
        "--template",
        arg(&app),
        "--output",
        arg(&again)
    ])
    .status
    .success());
    assert_eq!(fs::read(&csar).unwrap(), fs::read(&again).unwrap());
    let unpacked = p.path().join("unpacked");
    let out = v4t(&[
        "template",
        "unpackage",
        "--template",
        arg(&csar),
        "--output",
        arg(&unpacked),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        fs::read_to_string(unpacked.join("template.yaml")).unwrap(),
        TEMPLATE
    );
    assert_eq!(
        fs::read_to_string(unpacked.join("lib/rules.yaml")).unwrap(),
        RULES
    );
    assert!(v4t(&["test", arg(&unpacked)]).status.success());
    // Never into a directory that has files.
    let out = v4t(&[
        "template",
        "unpackage",
        "--template",
        arg(&csar),
        "--output",
        arg(&unpacked),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("is not an empty directory"),
        "{}",
        text(&out.stderr)
    );
    // An archive the checks refuse is not unpacked.
    let bad = p.write("bad.csar", b"PK\x03\x04 not really");
    let out = v4t(&[
        "template",
        "unpackage",
        "--template",
        arg(&bad),
        "--output",
        arg(&p.path().join("x")),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!p.path().join("x").exists());
}

#[test]
fn stats_count_per_template_and_in_total() {
    let p = project();
    let template = p.path().join("app/template.yaml");
    let out = v4t(&["template", "stats", "--template", arg(&template)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("nodes: 2\nrelations: 1\n"), "{stdout}");
    let out = v4t(&[
        "template",
        "stats",
        "--experimental",
        "--format",
        "json",
        "--template",
        arg(&template),
        arg(&template),
    ]);
    let json = text(&out.stdout);
    assert!(json.starts_with("{\"templates\":[{\"template\":"), "{json}");
    assert!(
        json.contains("\"total\":{\"nodes\":4,\"relations\":2,"),
        "{json}"
    );
}

/// Runs `v4t resolve` on the project's template after writing `config`.
fn resolve_with_config(p: &TempDir, config: &str) -> (Option<i32>, String) {
    p.write("app/config.yaml", config);
    let out = v4t(&["resolve", arg(&p.path().join("app/template.yaml"))]);
    (out.status.code(), text(&out.stderr))
}

#[test]
fn bad_configs_are_located_errors() {
    let p = project();
    let cases = [
        ("- ../shared/lib\n", "config.yaml:1:1: a map with a list \"dependencies\" expected"),
        ("dependencies: ../shared/lib\n", "config.yaml:1:15: \"dependencies\" must be a list"),
        ("dependencies:\n  - source: ../nowhere\n", "config.yaml:2:13: the dependency \"../nowhere\" cannot be read"),
        (
            "dependencies:\n  - source: ../shared/lib\n    target: ../../lib\n",
            "config.yaml:3:13: the target \"../../lib\" must be a path inside the template directory",
        ),
    ];
    for (config, expected) in cases {
        let (code, stderr) = resolve_with_config(&p, config);
        assert_eq!(code, Some(2), "{config}: {stderr}");
        assert!(stderr.contains(expected), "{config}: {stderr}");
    }
    // Pull refuses the same configs.
    let out = v4t(&["template", "pull", "--dir", arg(&p.path().join("app"))]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

#[cfg(unix)]
#[test]
fn a_source_that_is_a_symlink_loop_is_an_error() {
    let p = project();
    let app = p.path().join("app");
    std::os::unix::fs::symlink(app.join("loop"), app.join("loop")).unwrap();
    let (code, stderr) =
        resolve_with_config(&p, "dependencies:\n  - source: loop\n    target: lib\n");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("config.yaml:2:13: the dependency \"loop\" cannot be read"),
        "{stderr}"
    );
    // A file in the source that links out of it is refused.
    p.write("outside/secret.yaml", "x: 1\n");
    p.write(
        "app/config.yaml",
        "dependencies:\n  - source: ../shared/lib\n",
    );
    std::os::unix::fs::symlink(
        p.path().join("outside/secret.yaml"),
        p.path().join("shared/lib/leak.yaml"),
    )
    .unwrap();
    let out = v4t(&["resolve", arg(&app.join("template.yaml"))]);
    assert!(
        text(&out.stderr).contains("leak.yaml"),
        "{}",
        text(&out.stderr)
    );
}
