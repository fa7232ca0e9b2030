//! Every command finds the files a template imports relative to the
//! template, wherever it is run from: the template named by a relative
//! path from another working directory (also through `..`), as a file and
//! as a CSAR directory, with the resolved template validated where the
//! command can (`--validate`).

use crate::common::{text, v4t_in, TempDir};

/// A CSAR whose template imports `types/app.yaml`, which imports
/// `base.yaml` beside it; a plain TOSCA file with the same import; one test.
fn csar(dir: &TempDir) {
    dir.write(
        "csar/TOSCA-Metadata/TOSCA.meta",
        "CSAR-Version: 2.0\nEntry-Definitions: service-template.yaml\n",
    );
    dir.write(
        "csar/types/base.yaml",
        "tosca_definitions_version: tosca_2_0
node_types:
  Base:
    properties:
      port: {type: integer}
",
    );
    dir.write(
        "csar/types/app.yaml",
        "tosca_definitions_version: tosca_2_0
imports:
  - url: base.yaml
node_types:
  App:
    derived_from: Base
",
    );
    dir.write(
        "csar/service-template.yaml",
        "tosca_definitions_version: tosca_2_0
imports:
  - url: types/app.yaml
service_template:
  variability:
    inputs:
      big: {type: boolean, default: false}
  node_templates:
    app:
      type: App
      properties:
        port: 80
    extra:
      type: App
      conditions: {variability_input: big}
      properties:
        port: 81
",
    );
    dir.write(
        "csar/plain.yaml",
        "tosca_definitions_version: tosca_2_0
imports:
  - url: types/app.yaml
service_template:
  node_templates:
    app:
      type: App
      properties:
        port: 80
",
    );
    dir.write(
        "csar/tests/small/expected.yaml",
        "tosca_definitions_version: tosca_2_0
imports:
  - url: types/app.yaml
service_template:
  node_templates:
    app:
      type: App
      properties:
        port: 80
",
    );
}

#[test]
fn every_command_reads_relative_imports_from_another_directory() {
    let dir = TempDir::new("paths");
    csar(&dir);
    std::fs::create_dir_all(dir.path().join("elsewhere")).unwrap();
    for (cwd, csar) in [
        (dir.path(), "csar"),
        (&dir.path().join("elsewhere"), "../csar"),
    ] {
        let template = format!("{csar}/service-template.yaml");
        let plain = format!("{csar}/plain.yaml");
        let runs: Vec<Vec<&str>> = vec![
            vec!["resolve", "--validate", &template],
            vec!["resolve", "--validate", "--input", "big=true", csar],
            vec!["enrich", &template],
            vec!["test", "--validate", csar],
            vec!["analyze", "--validate", &template],
            vec!["analyze", "--validate", csar],
            vec!["explain", "--input", "big=true", &template],
            vec!["graph", &template],
            vec!["graph", "--input", "big=true", csar],
            vec!["validate", &plain],
        ];
        for args in runs {
            let out = v4t_in(cwd, &args, &[]);
            let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
            let shown = format!("{} in {}:\n{stdout}{stderr}", args.join(" "), cwd.display());
            assert_eq!(out.status.code(), Some(0), "{shown}");
            assert!(!stderr.contains("warning"), "{shown}");
            for said in [&stdout, &stderr] {
                assert!(!said.contains("does not exist"), "{shown}");
                assert!(!said.contains("failing configurations:\n"), "{shown}");
            }
            if args[0] == "analyze" {
                assert!(
                    stdout.contains("validated: 2 topologies, one configuration each"),
                    "{shown}"
                );
            }
        }
    }
}
