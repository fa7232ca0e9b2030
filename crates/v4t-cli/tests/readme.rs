//! The README shows what the commands print: every `$ v4t ...` block of
//! `README.md` is run from the repository root and must print exactly the
//! lines that follow it (up to the end of the block).

use crate::common::{text, v4t_in};
use std::path::PathBuf;

#[test]
fn readme_examples_print_what_they_show() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let mut checked = 0;
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        let Some(command) = line.strip_prefix("$ v4t ") else {
            continue;
        };
        let shown: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
        let mut args: Vec<&str> = command.split_whitespace().collect();
        args.extend(["--color", "never"]);
        let out = v4t_in(&root, &args, &[]);
        let printed = text(&out.stdout);
        let printed: Vec<&str> = printed.lines().collect();
        assert_eq!(printed, shown, "README example `v4t {command}` is stale");
        checked += 1;
    }
    assert!(checked >= 3, "{checked} examples found");
}
