//! The reference's project commands: `v4t template pull|unpull` (a
//! directory's `config.yaml` dependencies copied or linked into place, and
//! removed again), `package|unpackage` (a directory as a zipped CSAR, and
//! back) and `stats` (what templates consist of).
//!
//! Every command reads and writes with the limits and checks of the rest of
//! the tool: archives are checked as when they are resolved, written files
//! never replace what is there, and `unpull` removes only what is exactly
//! what `pull` put there.

use std::fs;
use std::path::{Path, PathBuf};

use v4t::{Loader, Sources};

use crate::csar::Archive;
use crate::dependencies::{self, Dependency};
use crate::diagnostics::{ColorChoice, Format, Reporter};
use crate::files::{read_bytes, write_atomically, MAX_INPUT_BYTES};
use crate::fs_loader::{AnyLoader, FsLoader, MAX_BESIDE_BYTES};
use crate::resolve_cmd::{finish, open_template, print_notes};
use crate::{EXIT_FAILURE, EXIT_OK, EXIT_USAGE};

/// Arguments of `v4t template pull`.
#[derive(clap::Args, Debug)]
pub struct PullArgs {
    /// The template directory whose `config.yaml` lists the dependencies.
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// Create symbolic links to the sources instead of copies.
    #[arg(long)]
    pub link: bool,
}

/// Arguments of `v4t template unpull`.
#[derive(clap::Args, Debug)]
pub struct UnpullArgs {
    /// The template directory whose `config.yaml` lists the dependencies.
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
}

/// Arguments of `v4t template package`.
#[derive(clap::Args, Debug)]
pub struct PackageArgs {
    /// The directory to package (dependencies that are not pulled are
    /// packaged at their targets).
    #[arg(long, value_name = "DIR")]
    pub template: PathBuf,
    /// The zipped CSAR to write.
    #[arg(long, value_name = "FILE")]
    pub output: PathBuf,
}

/// Arguments of `v4t template unpackage`.
#[derive(clap::Args, Debug)]
pub struct UnpackageArgs {
    /// The zipped CSAR (or tarball) to unpack.
    #[arg(long, value_name = "FILE")]
    pub template: PathBuf,
    /// The directory to create (it must not exist or be empty).
    #[arg(long, value_name = "DIR")]
    pub output: PathBuf,
}

/// Arguments of `v4t template stats`.
#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    /// The variable service templates (files, CSAR directories or archives).
    #[arg(long, value_name = "TEMPLATE", num_args = 1.., required = true)]
    pub template: Vec<String>,
    /// Accepted for the reference's command line (stats are not experimental here).
    #[arg(long, hide = true)]
    pub experimental: bool,
    /// `text` (one `name: count` line each) or `json`.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// The dependencies of `dir`, or the exit code after saying why not.
fn dependencies_of(dir: &Path) -> Result<Vec<Dependency>, u8> {
    if !dir.is_dir() {
        eprintln!("error: \"{}\" is not a directory", dir.display());
        return Err(EXIT_USAGE);
    }
    match dependencies::read(dir) {
        Ok(deps) if deps.is_empty() => {
            eprintln!(
                "error: \"{}\" declares no dependencies (no {} with entries)",
                dir.display(),
                dependencies::CONFIG_FILE
            );
            Err(EXIT_USAGE)
        }
        Ok(deps) => Ok(deps),
        Err(e) => {
            eprintln!("error: {e}");
            Err(EXIT_USAGE)
        }
    }
}

/// Where `dependency` goes in `dir`, checked: its parent folders must stay
/// inside the directory (no symlinked folder leading out).
fn target_of(dir: &Path, dependency: &Dependency) -> Result<PathBuf, String> {
    let target = dir.join(&dependency.target);
    let root = fs::canonicalize(dir).map_err(|e| format!("\"{}\": {e}", dir.display()))?;
    let mut parent = target.parent().map(Path::to_path_buf);
    // The nearest existing ancestor decides where the target really is.
    while let Some(p) = parent {
        if let Ok(real) = fs::canonicalize(&p) {
            if !real.starts_with(&root) {
                return Err(format!(
                    "{}: the target \"{}\" leads outside of \"{}\" through a symbolic link",
                    dependency.at,
                    dependency.target,
                    dir.display()
                ));
            }
            return Ok(target);
        }
        parent = p.parent().map(Path::to_path_buf);
    }
    Ok(target)
}

/// `v4t template pull`: copies (or links) every dependency's source to its
/// target. A target that is already there is refreshed: a copy gets the
/// source's files again, a link to the source stays; anything else at a
/// target is an error.
pub fn pull(args: &PullArgs) -> u8 {
    let deps = match dependencies_of(&args.dir) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let mut failed = false;
    for dependency in &deps {
        match pull_one(&args.dir, dependency, args.link) {
            Ok(()) => eprintln!(
                "pulled \"{}\" to \"{}\"",
                dependency.source.display(),
                args.dir.join(&dependency.target).display()
            ),
            Err(e) => {
                eprintln!("error: {e}");
                failed = true;
            }
        }
    }
    if failed {
        EXIT_FAILURE
    } else {
        EXIT_OK
    }
}

fn pull_one(dir: &Path, dependency: &Dependency, link: bool) -> Result<(), String> {
    let target = target_of(dir, dependency)?;
    let source = fs::canonicalize(&dependency.source).map_err(|e| {
        format!(
            "{}: the source \"{}\" cannot be read: {e}",
            dependency.at,
            dependency.source.display()
        )
    })?;
    let existing = fs::symlink_metadata(&target).ok();
    let is_link = existing
        .as_ref()
        .is_some_and(|m| m.file_type().is_symlink());
    let parent = fs::canonicalize(target.parent().unwrap_or(dir)).ok();
    let copy_over = (!is_link).then(|| fs::canonicalize(&target).ok()).flatten();
    if parent.is_some_and(|p| p.starts_with(&source))
        || copy_over.is_some_and(|t| source.starts_with(t))
    {
        return Err(format!(
            "{}: the source \"{}\" and the target \"{}\" overlap",
            dependency.at,
            dependency.source.display(),
            target.display()
        ));
    }
    if link {
        return match existing {
            Some(m) if m.file_type().is_symlink() && links_to(&target, &source) => Ok(()),
            Some(_) => Err(format!(
                "\"{}\" exists and is not a link to \"{}\": remove it (or `v4t template unpull`) first",
                target.display(),
                source.display()
            )),
            None => {
                create_parent(&target)?;
                symlink(&source, &target)
                    .map_err(|e| format!("could not link \"{}\": {e}", target.display()))
            }
        };
    }
    if is_link {
        return Err(format!(
            "\"{}\" is a symbolic link: remove it (or `v4t template unpull`) before copying",
            target.display()
        ));
    }
    let files = Tree::read(&source)?;
    create_parent(&target)?;
    files.write(&target, true)
}

/// Whether the symbolic link `link` resolves to `source` (canonical).
fn links_to(link: &Path, source: &Path) -> bool {
    fs::canonicalize(link).is_ok_and(|real| real == source)
}

#[cfg(unix)]
fn symlink(source: &Path, target: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(source, target)
}

#[cfg(not(unix))]
fn symlink(_source: &Path, _target: &Path) -> std::io::Result<()> {
    Err(std::io::Error::other(
        "symbolic links are not supported here; pull without --link",
    ))
}

/// Creates the folders above `path`.
fn create_parent(path: &Path) -> Result<(), String> {
    match path.parent() {
        Some(parent) => fs::create_dir_all(parent)
            .map_err(|e| format!("could not create \"{}\": {e}", parent.display())),
        None => Ok(()),
    }
}

/// `v4t template unpull`: removes what `pull` put at each target: a link
/// to the source, or a copy whose every file is the source's. Anything
/// else (a changed copy, a file of someone's own) stays, with an error.
pub fn unpull(args: &UnpullArgs) -> u8 {
    let deps = match dependencies_of(&args.dir) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let mut failed = false;
    for dependency in &deps {
        match unpull_one(&args.dir, dependency) {
            Ok(true) => eprintln!(
                "removed \"{}\"",
                args.dir.join(&dependency.target).display()
            ),
            Ok(false) => {}
            Err(e) => {
                eprintln!("error: {e}");
                failed = true;
            }
        }
    }
    if failed {
        EXIT_FAILURE
    } else {
        EXIT_OK
    }
}

/// Removes the pulled `dependency`; `false` if it was not there.
fn unpull_one(dir: &Path, dependency: &Dependency) -> Result<bool, String> {
    let target = target_of(dir, dependency)?;
    let Ok(meta) = fs::symlink_metadata(&target) else {
        return Ok(false);
    };
    let keep = |why: &str| Err(format!("not removing \"{}\": {why}", target.display()));
    let Ok(source) = fs::canonicalize(&dependency.source) else {
        return keep("its source cannot be read, so it cannot be told to be a pulled copy");
    };
    if meta.file_type().is_symlink() {
        if !links_to(&target, &source) {
            return keep("it is a symbolic link, but not to the dependency's source");
        }
        return fs::remove_file(&target)
            .map(|()| true)
            .map_err(|e| format!("could not remove \"{}\": {e}", target.display()));
    }
    let pulled = Tree::read(&target)?;
    let original = Tree::read(&source)?;
    if let Some(why) = pulled.differs(&original) {
        return keep(&format!(
            "it is not what `pull` copied from \"{}\" ({why})",
            source.display()
        ));
    }
    let removed = if meta.is_dir() {
        fs::remove_dir_all(&target)
    } else {
        fs::remove_file(&target)
    };
    removed
        .map(|()| true)
        .map_err(|e| format!("could not remove \"{}\": {e}", target.display()))
}

/// A file or a folder of files read into memory (bounded like the files
/// beside a template), symbolic links not followed.
#[derive(Debug, PartialEq, Eq)]
enum Tree {
    File(Vec<u8>),
    /// Entries sorted by name.
    Dir(Vec<(String, Tree)>),
}

/// The most files a [`Tree`] holds.
const MAX_TREE_FILES: usize = 20_000;

impl Tree {
    /// Reads `path`.
    fn read(path: &Path) -> Result<Tree, String> {
        let mut budget = (MAX_TREE_FILES, MAX_BESIDE_BYTES);
        Tree::read_within(path, &mut budget, 0)
    }

    fn read_within(path: &Path, budget: &mut (usize, u64), depth: usize) -> Result<Tree, String> {
        let meta = fs::symlink_metadata(path)
            .map_err(|e| format!("could not read \"{}\": {e}", path.display()))?;
        if meta.file_type().is_symlink() {
            return Err(format!(
                "\"{}\" is a symbolic link (links inside a dependency are not copied)",
                path.display()
            ));
        }
        if meta.is_file() {
            if budget.0 == 0 {
                return Err(format!(
                    "more than {MAX_TREE_FILES} files below \"{}\"",
                    path.display()
                ));
            }
            let bytes = read_bytes(path, budget.1)
                .map_err(|e| format!("could not read \"{}\": {e}", path.display()))?;
            budget.0 -= 1;
            budget.1 -= bytes.len() as u64;
            return Ok(Tree::File(bytes));
        }
        if !meta.is_dir() {
            return Err(format!(
                "\"{}\" is not a regular file or folder",
                path.display()
            ));
        }
        if depth > 32 {
            return Err(format!("\"{}\" is nested too deeply", path.display()));
        }
        let entries = fs::read_dir(path)
            .map_err(|e| format!("could not read \"{}\": {e}", path.display()))?;
        let mut children = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| format!("could not read \"{}\": {e}", path.display()))?;
            let name = entry.file_name().into_string().map_err(|n| {
                format!("\"{}\" has a name that is not UTF-8: {n:?}", path.display())
            })?;
            children.push((name, Tree::read_within(&entry.path(), budget, depth + 1)?));
        }
        children.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Tree::Dir(children))
    }

    /// Writes the tree to `path`; with `replace`, files there are
    /// overwritten (a refreshed pull), else nothing is.
    fn write(&self, path: &Path, replace: bool) -> Result<(), String> {
        match self {
            Tree::File(bytes) => {
                if !replace && fs::symlink_metadata(path).is_ok() {
                    return Err(format!("\"{}\" exists", path.display()));
                }
                write_atomically(path, bytes)
                    .map_err(|e| format!("could not write \"{}\": {e}", path.display()))
            }
            Tree::Dir(children) => {
                if fs::symlink_metadata(path).is_err() {
                    fs::create_dir(path)
                        .map_err(|e| format!("could not create \"{}\": {e}", path.display()))?;
                } else if !path.is_dir()
                    || fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
                {
                    return Err(format!("\"{}\" exists and is not a folder", path.display()));
                }
                children
                    .iter()
                    .try_for_each(|(name, child)| child.write(&path.join(name), replace))
            }
        }
    }

    /// Why `self` is not the same as `other`, if it is not.
    fn differs(&self, other: &Tree) -> Option<String> {
        match (self, other) {
            (Tree::File(a), Tree::File(b)) => (a != b).then(|| "a file was changed".to_string()),
            (Tree::Dir(a), Tree::Dir(b)) => {
                let names =
                    |t: &[(String, Tree)]| t.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
                if names(a) != names(b) {
                    let extra = a.iter().find(|(n, _)| !b.iter().any(|(m, _)| m == n));
                    return Some(match extra {
                        Some((n, _)) => format!("\"{n}\" is not in the source"),
                        None => "a file of the source is missing".to_string(),
                    });
                }
                a.iter().zip(b).find_map(|((name, x), (_, y))| {
                    x.differs(y).map(|why| format!("{name}: {why}"))
                })
            }
            _ => Some("a file is a folder in the source, or the other way round".to_string()),
        }
    }
}

/// `v4t template package`: the directory as a zipped CSAR, with what v4t
/// reads of it (dependencies not pulled at their targets; hidden entries
/// and symbolic links to folders left out).
pub fn package(args: &PackageArgs) -> u8 {
    if !args.template.is_dir() {
        eprintln!("error: \"{}\" is not a directory", args.template.display());
        return EXIT_USAGE;
    }
    let mut loader = match FsLoader::new(&args.template) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let output = std::path::absolute(&args.output).unwrap_or_else(|_| args.output.clone());
    let mut archive = Archive::default();
    for path in loader.files() {
        if crate::files::same_file(&args.template.join(&path), &output) {
            continue;
        }
        let bytes = match loader.read_bytes(&path) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => continue,
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_FAILURE;
            }
        };
        archive.set(&path, bytes);
    }
    for note in &loader.notes {
        eprintln!("note: {note}");
    }
    let written = archive
        .to_zip()
        .and_then(|zip| write_atomically(&args.output, &zip).map_err(|e| e.to_string()));
    match written {
        Ok(()) => EXIT_OK,
        Err(e) => {
            eprintln!("error: could not write \"{}\": {e}", args.output.display());
            EXIT_USAGE
        }
    }
}

/// `v4t template unpackage`: the files of a CSAR written below a new
/// directory (entries checked as when the archive is resolved).
pub fn unpackage(args: &UnpackageArgs) -> u8 {
    let archive = read_bytes(&args.template, MAX_INPUT_BYTES).and_then(|b| Archive::read(&b));
    let archive = match archive {
        Ok(a) => a,
        Err(e) => {
            eprintln!(
                "error: cannot read the CSAR \"{}\": {e}",
                args.template.display()
            );
            return EXIT_USAGE;
        }
    };
    let empty = match fs::read_dir(&args.output) {
        Ok(mut entries) => entries.next().is_none(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
        Err(_) => false,
    };
    if !empty || fs::symlink_metadata(&args.output).is_ok_and(|m| m.file_type().is_symlink()) {
        eprintln!(
            "error: \"{}\" exists and is not an empty directory",
            args.output.display()
        );
        return EXIT_USAGE;
    }
    for (path, bytes) in archive.files() {
        let file = args.output.join(path);
        let written = create_parent(&file).and_then(|()| {
            write_atomically(&file, bytes)
                .map_err(|e| format!("could not write \"{}\": {e}", file.display()))
        });
        if let Err(e) = written {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    }
    EXIT_OK
}

/// `v4t template stats`: per template and in total.
pub fn stats(args: &StatsArgs, color: ColorChoice) -> u8 {
    let reporter = Reporter::to_stderr(args.format, color, false);
    let mut all = Vec::new();
    for template in &args.template {
        let (mut sources, id, mut loader): (Sources, _, AnyLoader) =
            match open_template(&reporter, template) {
                Ok(t) => t,
                Err(code) => return code,
            };
        let outcome = crate::diagnostics::catch_panic(|| v4t::stats(&mut sources, id, &mut loader));
        print_notes(&reporter, &loader);
        match finish(outcome, &sources, &reporter) {
            Ok(stats) => all.push((template.as_str(), stats)),
            Err(code) => return code,
        }
    }
    let total = all
        .iter()
        .fold(v4t::Stats::default(), |sum, (_, s)| sum.add(s));
    let text = match args.format {
        Format::Json => stats_json(&all, &total),
        Format::Text => stats_text(&all, &total),
    };
    print!("{text}");
    EXIT_OK
}

fn stats_text(all: &[(&str, v4t::Stats)], total: &v4t::Stats) -> String {
    let mut out = String::new();
    let block = |out: &mut String, stats: &v4t::Stats, indent: &str| {
        for (name, value) in stats.fields() {
            out.push_str(&format!("{indent}{name}: {value}\n"));
        }
    };
    if let [(_, only)] = all {
        block(&mut out, only, "");
        return out;
    }
    for (template, stats) in all {
        out.push_str(&format!("{}:\n", crate::diagnostics::escape(template)));
        block(&mut out, stats, "  ");
    }
    out.push_str("total:\n");
    block(&mut out, total, "  ");
    out
}

fn stats_json(all: &[(&str, v4t::Stats)], total: &v4t::Stats) -> String {
    use v4t_yaml::json::write_json_string as string;
    let object = |out: &mut String, stats: &v4t::Stats| {
        out.push('{');
        for (i, (name, value)) in stats.fields().iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&format!("\"{name}\":{value}"));
        }
        out.push('}');
    };
    let mut out = String::from("{\"templates\":[");
    for (i, (template, stats)) in all.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"template\":");
        string(&mut out, template);
        out.push_str(",\"stats\":");
        object(&mut out, stats);
        out.push('}');
    }
    out.push_str("],\"total\":");
    object(&mut out, total);
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trees_tell_what_differs() {
        let dir = |entries: Vec<(&str, Tree)>| {
            Tree::Dir(
                entries
                    .into_iter()
                    .map(|(n, t)| (n.to_string(), t))
                    .collect(),
            )
        };
        let a = dir(vec![("x.yaml", Tree::File(b"x".to_vec()))]);
        let same = dir(vec![("x.yaml", Tree::File(b"x".to_vec()))]);
        let changed = dir(vec![("x.yaml", Tree::File(b"y".to_vec()))]);
        let extra = dir(vec![
            ("x.yaml", Tree::File(b"x".to_vec())),
            ("mine.yaml", Tree::File(b"m".to_vec())),
        ]);
        assert_eq!(a.differs(&same), None);
        assert_eq!(
            changed.differs(&a).as_deref(),
            Some("x.yaml: a file was changed")
        );
        assert_eq!(
            extra.differs(&a).as_deref(),
            Some("\"mine.yaml\" is not in the source")
        );
        assert!(a.differs(&extra).is_some());
        assert!(Tree::File(vec![]).differs(&a).is_some());
    }
}
