//! `v4t analyze --write-tests DIR`: one conformance-style test per sampled
//! configuration (`sample-N/test.yaml` naming the template and
//! `inputs.yaml`, and `expected.yaml`, the resolved template, or the
//! error in `test.yaml`), so that `v4t test DIR` keeps the variants pinned.

use std::path::{Component, Path, PathBuf};
use v4t::{ResolveOptions, Sources};
use v4t_yaml::{Map, Node, Span, Value};

use crate::resolve_cmd::now_ms;
use v4t_files::fs_loader::FsLoader;

/// Writes the tests of `sample` for the template file `template` into `dir`.
pub fn write(template: &str, dir: &Path, sample: &[Vec<(String, Value)>]) -> Result<(), String> {
    let path = Path::new(template);
    if !path.is_file() {
        return Err(format!(
            "--write-tests needs a template file, not \"{template}\""
        ));
    }
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("could not read \"{template}\": {e}"))?;
    for (i, config) in sample.iter().enumerate() {
        let test = dir.join(format!("sample-{}", i + 1));
        std::fs::create_dir_all(&test)
            .map_err(|e| format!("could not create \"{}\": {e}", test.display()))?;
        let mut inputs = Map::new();
        for (k, v) in config {
            inputs.insert(k.clone(), Node::new(v.clone(), Span::NONE));
        }
        let inputs = Node::new(Value::Map(inputs), Span::NONE);
        let mut sources = Sources::new();
        let id = sources.add(template, text.clone());
        let mut loader = FsLoader::for_template(path)?;
        let options = ResolveOptions {
            inputs: Some(inputs.clone()),
            now_ms: Some(now_ms()),
            ..ResolveOptions::default()
        };
        let mut settings = Map::new();
        let relative = relative_to(path, &test);
        settings.insert(
            "template",
            Node::string(relative.to_string_lossy().as_ref()),
        );
        settings.insert("inputs", Node::string("inputs.yaml"));
        let mut files: Vec<(&str, String)> = vec![("inputs.yaml", v4t_yaml::emit(&inputs))];
        match v4t::resolve(&mut sources, id, &mut loader, &options) {
            Ok(resolved) => files.push(("expected.yaml", v4t::to_yaml(&resolved.template))),
            Err(e) => settings.insert("error", Node::string(&e.message)),
        }
        files.push((
            "test.yaml",
            v4t_yaml::emit(&Node::new(Value::Map(settings), Span::NONE)),
        ));
        for (name, content) in files {
            let file = test.join(name);
            std::fs::write(&file, content)
                .map_err(|e| format!("could not write \"{}\": {e}", file.display()))?;
        }
    }
    Ok(())
}

/// `path` relative to the directory `from` (both made absolute first).
fn relative_to(path: &Path, from: &Path) -> PathBuf {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (path, from) = (absolute(path), absolute(from));
    let a: Vec<Component> = path.components().collect();
    let b: Vec<Component> = from.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &a[common..] {
        out.push(c);
    }
    out
}
