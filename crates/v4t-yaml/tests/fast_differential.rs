//! Differential tests: the fast path of `parse` must build exactly the tree
//! (values, key order, spans of every node and key) that the saphyr path
//! builds, or give up. Checked on hand-written fixtures, on thousands of
//! random documents (and random mutations of them), and on the conformance
//! templates when they are present.

use v4t_yaml::fast::{parse_fast, parse_fast_doc, parse_fast_with};
use v4t_yaml::parse::{parse_saphyr, parse_saphyr_with, parse_with, ParseError, Schema};
use v4t_yaml::{js_yaml_reads_alike, parse_doc_reporting_duplicates, parse_reporting_duplicates};
use v4t_yaml::{Doc, Node, NodeRef, SourceId, Value, ValueRef};

/// Describes the first difference between a tree and a document read
/// through the view (spans, forms, values, keys and lookups).
fn diff_view(a: NodeRef<'_>, b: NodeRef<'_>, path: &str) -> Option<String> {
    if (a.span(), a.form()) != (b.span(), b.form()) {
        return Some(format!(
            "{path}: {:?} {:?} vs {:?} {:?}",
            a.span(),
            a.form(),
            b.span(),
            b.form()
        ));
    }
    match (a.value(), b.value()) {
        (ValueRef::Seq(x), ValueRef::Seq(y)) => {
            if x.len() != y.len() {
                return Some(format!("{path}: {} vs {} items", x.len(), y.len()));
            }
            x.iter()
                .zip(y.iter())
                .enumerate()
                .find_map(|(i, (p, q))| diff_view(p, q, &format!("{path}[{i}]")))
        }
        (ValueRef::Map(x), ValueRef::Map(y)) => {
            if x.len() != y.len() {
                return Some(format!("{path}: {} vs {} entries", x.len(), y.len()));
            }
            for ((k1, v1), (k2, v2)) in x.iter().zip(y.iter()) {
                if (k1.name(), k1.span()) != (k2.name(), k2.span()) {
                    return Some(format!("{path}: key {:?} vs {:?}", k1.name(), k2.name()));
                }
                if let (Some(c1), Some(c2)) = (k1.tree(), k2.tree()) {
                    if let Some(d) = diff_view(c1, c2, &format!("{path}.<key>")) {
                        return Some(d);
                    }
                } else if k1.tree().is_some() != k2.tree().is_some() {
                    return Some(format!("{path}: key {:?} complex on one side", k1.name()));
                }
                if x.get(k1.name()).map(NodeRef::span) != y.get(k1.name()).map(NodeRef::span) {
                    return Some(format!("{path}: lookup of {:?} differs", k1.name()));
                }
                if let Some(d) = diff_view(v1, v2, &format!("{path}.{}", k1.name())) {
                    return Some(d);
                }
            }
            None
        }
        (x, y) => {
            let same = match (x, y) {
                (ValueRef::Number(p), ValueRef::Number(q))
                | (ValueRef::Timestamp(p), ValueRef::Timestamp(q)) => p.to_bits() == q.to_bits(),
                (x, y) => format!("{x:?}") == format!("{y:?}"),
            };
            (!same).then(|| format!("{path}: {x:?} vs {y:?}"))
        }
    }
}

/// The document reading of `text` reads exactly as the tree reading: the
/// fast path into a `Doc` as `fast` (the fast path's tree, if it took the
/// text), else `full` (the saphyr path's tree) copied into a `Doc`, as
/// `parse_doc_reporting_duplicates` copies it.
fn check_doc(text: &str, schema: Schema, fast: Option<&Node>, full: Option<&Node>) {
    let src = SourceId(3);
    let doc = parse_fast_doc(text, src, schema);
    assert_eq!(fast.is_some(), doc.is_some(), "{text:?}");
    let (tree, doc) = match (fast, doc, full) {
        (Some(tree), Some(doc), _) => (tree, doc),
        (None, None, Some(tree)) => (tree, Doc::from_node(tree, src)),
        _ => return,
    };
    if let Some(d) = diff_view(NodeRef::from(tree), doc.root(), "$") {
        panic!("document differs on {text:?}: {d}");
    }
}

/// `parse_doc_reporting_duplicates` returns what `parse_reporting_duplicates`
/// returns, as a `Doc`: the same tree, the same duplicates, the same error.
fn check_doc_api(text: &str, schema: Schema) {
    let src = SourceId(3);
    match (
        parse_reporting_duplicates(text, src, schema),
        parse_doc_reporting_duplicates(text, src, schema),
    ) {
        (Ok((tree, e1)), Ok((doc, e2))) => {
            assert_eq!(e1, e2, "{text:?}");
            if let Some(d) = diff_view(NodeRef::from(&tree), doc.root(), "$") {
                panic!("document differs on {text:?}: {d}");
            }
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "{text:?}"),
        (a, b) => panic!("{text:?}: tree {:?} vs document {:?}", a.is_ok(), b.is_ok()),
    }
}

/// Describes the first difference between two trees (spans included).
fn diff(a: &Node, b: &Node, path: &str) -> Option<String> {
    if a.span != b.span {
        return Some(format!("{path}: span {:?} vs {:?}", a.span, b.span));
    }
    if a.form != b.form {
        return Some(format!("{path}: form {:?} vs {:?}", a.form, b.form));
    }
    let same_scalar = match (&a.value, &b.value) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) | (Value::Timestamp(x), Value::Timestamp(y)) => {
            x.to_bits() == y.to_bits()
        }
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Seq(x), Value::Seq(y)) => {
            if x.len() != y.len() {
                return Some(format!("{path}: {} vs {} items", x.len(), y.len()));
            }
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                if let Some(d) = diff(p, q, &format!("{path}[{i}]")) {
                    return Some(d);
                }
            }
            true
        }
        (Value::Map(x), Value::Map(y)) => {
            if x.len() != y.len() {
                return Some(format!("{path}: {} vs {} entries", x.len(), y.len()));
            }
            for ((k1, v1), (k2, v2)) in x.iter().zip(y.iter()) {
                if k1.name != k2.name || k1.span != k2.span {
                    return Some(format!(
                        "{path}: key {:?}@{:?} vs {:?}@{:?}",
                        k1.name, k1.span, k2.name, k2.span
                    ));
                }
                match (k1.tree(), k2.tree()) {
                    (None, None) => {}
                    (Some(c1), Some(c2)) => {
                        if let Some(d) = diff(c1, c2, &format!("{path}.<key {}>", k1.name)) {
                            return Some(d);
                        }
                    }
                    _ => {
                        return Some(format!(
                            "{path}: key {:?} complex on one side only",
                            k1.name
                        ))
                    }
                }
                if x.get(&k1.name).map(|n| n.span) != y.get(&k2.name).map(|n| n.span) {
                    return Some(format!("{path}: lookup of {:?} differs", k1.name));
                }
                if let Some(d) = diff(v1, v2, &format!("{path}.{}", k1.name)) {
                    return Some(d);
                }
            }
            true
        }
        _ => false,
    };
    (!same_scalar).then(|| format!("{path}: {:?} vs {:?}", a.value, b.value))
}

/// Compares `parse` (fast path first) with the saphyr path, under both
/// schemas; returns whether the fast path accepted the text.
fn check(text: &str) -> bool {
    let accepted = check_with(text, Schema::JsYaml);
    assert_eq!(check_with(text, Schema::Core), accepted, "{text:?}");
    accepted
}

fn check_with(text: &str, schema: Schema) -> bool {
    let src = SourceId(3);
    let fast = parse_fast_with(text, src, schema);
    let reference: Result<Node, ParseError> = parse_saphyr_with(text, src, schema);
    if let Some(fast) = &fast {
        match &reference {
            Ok(r) => {
                if let Some(d) = diff(fast, r, "$") {
                    panic!("fast path differs on {text:?}: {d}");
                }
            }
            Err(e) => panic!("fast path accepted {text:?}, saphyr says {e}"),
        }
    }
    let full = parse_with(text, src, schema);
    match (&full, &reference) {
        (Ok(a), Ok(b)) => {
            if let Some(d) = diff(a, b, "$") {
                panic!("parse differs on {text:?}: {d}");
            }
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "errors differ on {text:?}"),
        _ => panic!("parse {full:?} vs saphyr {reference:?} on {text:?}"),
    }
    check_doc(text, schema, fast.as_ref(), full.as_ref().ok());
    fast.is_some()
}

const FIXTURES: &[&str] = &[
    "a: 1\n",
    "a: 1\nb: two\nc: 3.5\n",
    "a:\nb: 1\n",
    "a:   # c\n\n  # x\nb:\n",
    "a:",
    "- \n- x\n-",
    "-   # c\n- x",
    "a:\n  - \n  -\nb:\n- \n-\n",
    "k:\n  b: \nc: 1\n",
    "- a:\n  - x\n",
    "a: {x: 1,y: 2}\n",
    "a: [a:1, b]\n",
    "{a:1}\n",
    "a: b #c\n",
    "x: y\n...\n# c\n",
    "x: y\n...\n",
    "x: y\n... # end\n\n",
    "x: y\n...\nz: 1\n",
    "---\na: 1\n",
    "--- # c\na: 1\n",
    "# head\n---\na: 1\n",
    "---\n---\n",
    "--- 5\n",
    "a: [ ]\n",
    "a: {x: [1,2],}\n",
    "a: [1, 2,]\n",
    "a: 'b''c' # x\n",
    "a: \"x\\ty\\u00e9\\x41\\U0001F600\\\\ \\\" \\/ \\0 \\a\\b\\e\\f\\n\\r\\v\\N\\_\\L\\P\\ \"\n",
    "a: \"bad \\q escape\"\n",
    " a: 1\n b: 2\n",
    "-\n\n- x\n",
    "-\n  # c\n- x\n",
    "- # c\n  # d\n- x\n",
    "- \n",
    "a:\n  # c\n\nb: 1\n",
    "a: # c\n",
    "-\n  x\n",
    "- - a\n  - b\n- c\n",
    "- - - a\n    - b\n  - c\n- d\n",
    "a:\n  x\n",
    "a:\n  x\nb: 2\n",
    "a:\n  x\n  y\n",
    "a: [1,\n  2]\n",
    "a: {b: 1,\n  c: 2}\n",
    "- [a, {b: c}]\n",
    "a :  b\n",
    "\"a\" : b\n",
    "'a': b\n",
    "\"a\":b\n",
    "a: b  \n",
    "a: x:y\n",
    "a: \"x\" #c\n",
    "a: \"x\"#c\n",
    "é: [ü, x]\n",
    "é: ü\nk: [ä, ö]\n",
    "ключ: значение\n日本: {語: 文}\n",
    "a: 'é' # ☃\nb: \"𝄞\"\n",
    "a: ''\n",
    "a: \"\"\n",
    "- -1\n",
    "a: -\n",
    "a: - b\n",
    "[a, b]\n",
    "\"x\"\n",
    "{}\n",
    "[]\n",
    "x\n",
    "x\ny\n",
    "",
    "# only\n",
    "\n\n",
    "a: 1\na: 2\n",
    "a: {x: 1, x: 2}\n",
    "1: a\n1.0: b\n",
    "null: a\n~: b\n",
    "1: a\ntrue: b\nnull: c\n0x10: e\n1.50: f\n'x': g\n.inf: h\n2023-01-01: i\n",
    "a: &x 1\nb: *x\n",
    "a: !!str 1\n",
    "a: |\n  x\n",
    "a: >\n  x\n",
    "? a\n: b\n",
    "<<: {a: 1}\n",
    "m:\n  <<: {a: 1}\n  b: 2\n",
    "'<<': 1\n",
    "%YAML 1.2\n---\na: 1\n",
    "a:\n\t- b\n",
    "a:\tb\n",
    "a: b\t\n",
    "a: b\r\nc: d\r\n",
    "a: 1\n---\nb: 2\n",
    "a: 'multi\n  line'\n",
    "a: \"multi\n  line\"\n",
    "a: \"x\\\n  y\"\n",
    "a: plain\n  continued\n",
    "a: b\n  # c\nd: e\n",
    "a: b: c\n",
    "a: b:\n",
    "a: [b]: c\n",
    "[a]: b\n",
    "{a: b}: c\n",
    "a: [b] c\n",
    "a: ,b\n",
    "a: ]b\n",
    "a: b,c\n",
    "a: b]c\n",
    "a: {b: [c, {d: e}], f: 'g', h: \"i\"}\n",
    "a: [{b: c}, [d, [e, []]], {}]\n",
    "a: [b, ]\n",
    "a: [, b]\n",
    "a: {b, c}\n",
    "a: {b: }\n",
    "a: [b: c]\n",
    "a: {? b: c}\n",
    "a: [-1, -x, - , -]\n",
    "a: {-1: x}\n",
    "-a: b\n",
    "a: http://example.com/x#y\n",
    "a: b #c #d\n",
    "a: b#c\n",
    "a: 'b' 'c'\n",
    "a: @x\n",
    "a: `x\n",
    "a: %x\n",
    "a: =\n",
    "a: ~\nb: null\nc: Null\nd: NULL\ne: nULL\n",
    "a: true\nb: True\nc: TRUE\nd: false\ne: tRUE\nf: yes\ng: on\n",
    "a: 1_000\nb: 0x1F\nc: 0o17\nd: 0b101\ne: -0x10\nf: 012\ng: 0X1F\nh: 1_\n",
    "a: 1.5\nb: -1.5e3\nc: 1e3\nd: 1.\ne: .5\nf: -.5\ng: .inf\nh: -.Inf\ni: .nan\nj: 1:20\n",
    "a: 2023-01-01\nb: 2023-01-01T10:00:00Z\nc: 2023-01-01 10:00:00 +01:00\nd: 2023-1-1\n",
    "a: 2001-12-14t21:59:43.10-05:00\n",
    "list:\n- a\n- b\nnext: 1\n",
    "list:\n- a\n-\n- - x\n  - y\n- k: v\n  l: w\nnext: 1\n",
    "a:\n  b:\n    c:\n      d: [1, 2]\n  e: f\ng: h\n",
    "a:\n    - b\n    -   c: d\n        e: f\n",
    "a:\n  - b\n  c: d\n",
    "a:\n  b: 1\n   c: 2\n",
    "a:\n  b: 1\n c: 2\n",
    "- a\n - b\n",
    "- a\n  - b\n",
    "- a: 1\n  b: 2\n- c: 3\n",
    "- a: 1\n   b: 2\n",
    "  - a\n  - b\n",
    "a: 1\n- b\n",
    "a:\n- b\n- c:\n  - d\n",
    "key with spaces: value with spaces\n",
    "a b: c d e   \n",
    "...: x\n",
    "...\n",
    "---x: 1\n",
    "--- \n a: 1\n",
    "a: ---\n",
    "a:\n---\n",
    "a:\n...\n",
    "a: 'it''s'\n'k''s': v\n",
    "\u{feff}a: 1\n",
    "a: b\u{a0}c\n",
    "a: b\u{85}c\n",
    "a: \u{2028}\n",
    "a: \"\\uD800\"\n",
    "a: \"\\x4\"\n",
    "a: [\"x\", 'y', z]\n",
    "a: {\"x\": 1, 'y': 2}\n",
    "a: {\"x\":1}\n",
    "a:\n  - [1, 2]\n  - {b: c}\n",
    "? \n",
    ":\n",
    ": a\n",
    "a: :\n",
    "a: ?\n",
    "a: ?b\n",
    "a: :b\n",
    "a: b?\n",
    "a: -.inf\n",
    "a: +1\n",
    "a: [+1, .5, 1e3, 0x10, ~, null, true]\n",
    "a: {1: x, 2.0: y, true: z, ~: w}\n",
    "a: {1: x, 1.0: y}\n",
    "a\n",
    "a: b\nc\n",
    "a: 1 # c\n# d\n  # e\nb: 2\n",
    "a:\n  # c\n  b: 1\n",
    "a:\n\n\n  b: 1\n\n\n",
    "a: 1\n\n\n",
    "a: 1",
    "a:\n  b: 1",
    "- a\n- b",
    "- [a]\n- {b: c}",
    // Quoted scalars over several lines, continuation lines in any column.
    "description: \"A multiline description \nusing a quoted string\"\n",
    "a:\n  b: \"x\ny\"\n  c: 'p\n\n q'\n",
    "a:\n  b: \"x  \n bar\\\n   baz\n\n\n   qux \n\"\n  c: 1\n",
    "p: \"\\\nR0lG\\\nOTk6\\\n+f/+\"\n",
    "- \"a\n b\"\n- 'c\nd'\n",
    "a: \"x\n\"\n",
    "a: \"\nx\"\n",
    "a: \" \n \n x \"\n",
    "a: \"x\\\n\n\ny\"\n",
    "a: \"x\\\\\ny\"\n",
    "a: \"x \\\n  y\"\n",
    "a: 'it''s\n''quoted'''\n",
    "a: \"x\n# not a comment\"\n",
    "a: \"x\n---\ny\"\n",
    "a: \"x\n...\"\n",
    "a: \"x\n---y\"\n",
    "a: \"x\n\ty\"\n",
    "a: \"x\ny\" z\n",
    "a: \"x\ny\" # c\nb: 1\n",
    "a: \"x\ny\"\n  b: 1\n",
    "\"a\nb\": 1\n",
    "a:\n  \"b\nc\": 1\n",
    "\"x\ny\"\n",
    "a: [\"x\ny\", z]\n",
    "a: {k: \"x\ny\"}\n",
    "a: \"é\n☃ x\"\nb: ü\n",
    "a: \"unterminated\nb: 1\n",
    // Complex keys (the saphyr path).
    "- [ service, 2 ]: [ software, service ]\n",
    "? [a, [b]]\n: x\n",
    "{a: 1}: x\n{b: 1}: y\n",
    "x: {[a, b]: 1, c: 2}\n",
    // A `-` after blanks inside a flow plain scalar, before `,[]{}`
    // (saphyr stopped there; found by the random documents under other
    // seeds).
    "{k0: [a:b -]}\n",
    "{~: {k1: {k4: [~ -,on]}}, \"a\\tb\": {k6: [{k1: +1}]},.inf: a`b}\n",
    "k: [0.50 -,.7]\n",
    "k: {a -: 1, b -}\n",
];

#[test]
fn fixtures_agree() {
    let mut fast = 0;
    for text in FIXTURES {
        if check(text) {
            fast += 1;
        }
        check_doc_api(text, Schema::JsYaml);
        check_doc_api(text, Schema::Core);
    }
    // Duplicated keys: collected beside either reading.
    for text in ["a: 1\na: 2\n", "x: {k: 1, k: 2}\nx: 3\n"] {
        check_doc_api(text, Schema::Core);
    }
    println!("fixtures: {} ({} on the fast path)", FIXTURES.len(), fast);
    assert!(fast > FIXTURES.len() / 3);
}

/// Maps of up to 24 entries check duplicate keys as they are read, larger
/// ones while building their index: both give up on every duplicate.
#[test]
fn duplicates_on_both_sides_of_the_index_threshold_give_up() {
    for n in [2, 23, 24, 25, 26, 40] {
        for (first, second) in [(0, n - 1), (n - 2, n - 1), (0, 1)] {
            let names: Vec<String> = (0..n)
                .map(|i| {
                    if i == second {
                        format!("k{first}")
                    } else {
                        format!("k{i}")
                    }
                })
                .collect();
            let block: String = names.iter().map(|k| format!("{k}: 1\n")).collect();
            let flow = format!("a: {{{}}}\n", names.join(": 1, ") + ": 1");
            for text in [block, flow] {
                assert!(parse_fast(&text, SourceId(0)).is_none(), "{text}");
                check(&text);
            }
            let unique: String = (0..n).map(|i| format!("k{i}: 1\n")).collect();
            assert!(check(&unique));
        }
    }
}

/// xorshift64*.
struct Rng(u64);

impl Rng {
    /// A generator from `seed` mixed with `V4T_TEST_SEED` (0 when unset):
    /// other documents under another value.
    fn new(seed: u64) -> Rng {
        let extra: u64 = std::env::var("V4T_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let mixed = seed ^ extra.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Rng(if mixed == 0 { seed } else { mixed })
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items.get(self.below(items.len())).copied().unwrap_or("")
    }
}

const PLAIN: &[&str] = &[
    "a",
    "x",
    "hello",
    "hello world",
    "tosca.nodes.Compute",
    "component_1_present",
    "a:b",
    "http://x.org/a?b=c",
    "a#b",
    "-x",
    "-1",
    "+1",
    "1",
    "0",
    "012",
    "1_000",
    "0x1F",
    "0o17",
    "0b101",
    "1.5",
    "-1.5e3",
    "1e3",
    "1.",
    ".5",
    "-.5",
    ".inf",
    "-.Inf",
    ".nan",
    "1:20",
    "1.2.3",
    "~",
    "null",
    "Null",
    "NULL",
    "nULL",
    "true",
    "True",
    "FALSE",
    "yes",
    "no",
    "on",
    "y",
    "2023-01-01",
    "2023-01-01T10:00:00Z",
    "2023-01-01 10:00:00 +01:00",
    "2001-12-14t21:59:43.10-05:00",
    "2023-1-1",
    "é",
    "naïve café",
    "☃ snow",
    "𝄞",
    "a'b",
    "a\"b",
    "a\\b",
    "<<x",
    "=",
    "a=b",
    "x%y",
    "a!b",
    "a&b",
    "a*b",
    "a|b",
    "a>b",
    "a[b",
    "a]b",
    "a{b",
    "a,b",
    "a}b",
    "a  b",
    "a@b",
    "a`b",
    "...x",
    "--x",
    "-",
    "?x",
    "::",
];

const SINGLE: &[&str] = &[
    "''",
    "'x'",
    "'it''s'",
    "' lead'",
    "'trail '",
    "'a: b'",
    "'# no comment'",
    "'1'",
    "'null'",
    "'é☃'",
    "'a\\nb'",
    "'\"'",
    "'[x]'",
    "'a\tb'",
];

const DOUBLE: &[&str] = &[
    "\"\"",
    "\"x\"",
    "\"a\\tb\"",
    "\"a\\nb\"",
    "\"\\\"q\\\"\"",
    "\"\\\\\"",
    "\"\\u00e9\\x41\\U0001F600\"",
    "\"\\0\\a\\b\\e\\f\\r\\v\\N\\_\\L\\P\\/\\ \"",
    "\"true\"",
    "\"1.5\"",
    "\"a: b # c\"",
    "\"é ☃\"",
    "\"'\"",
    "\"{x}\"",
    "\"\\q\"",
    "\"\\x4\"",
    "\"\\uD800\"",
    "\"a\tb\"",
];

const KEYS: &[&str] = &[
    "a",
    "b",
    "type",
    "node",
    "properties",
    "a b",
    "1",
    "1.0",
    "0x10",
    "true",
    "null",
    "~",
    "2023-01-01",
    ".inf",
    "é",
    "k:v",
    "'q'",
    "'1'",
    "\"dq\"",
    "\"a\\tb\"",
    "'<<'",
    "-k",
    "x#y",
];

fn scalar(rng: &mut Rng, flow: bool) -> String {
    let s = match rng.below(10) {
        0..=5 => rng.pick(PLAIN),
        6 | 7 => rng.pick(SINGLE),
        _ => rng.pick(DOUBLE),
    };
    if flow && s.bytes().any(|c| b",[]{}#".contains(&c)) && !s.starts_with(['\'', '"']) {
        return "f".to_string();
    }
    s.to_string()
}

/// A quoted scalar over several lines, its continuation lines in any
/// column (js-yaml and the parser accept them all), with empty lines,
/// trailing spaces, escapes and escaped line breaks.
fn multi_line_quoted(rng: &mut Rng) -> String {
    const DOUBLE_WORDS: &[&str] = &[
        "x", "a b", "\\t", "\\\"", "\\\\", "é☃", "#c", "-", "'", "--- x", "k: v",
    ];
    const SINGLE_WORDS: &[&str] = &[
        "x", "a b", "''", "\\", "é☃", "#c", "-", "\"", "... y", "k: v",
    ];
    let double = rng.chance(50);
    let mut out = String::from(if double { "\"" } else { "'" });
    let lines = 2 + rng.below(3);
    for l in 0..lines {
        if l > 0 {
            if double && rng.chance(15) {
                out.push('\\');
            }
            out.push('\n');
            if rng.chance(20) {
                out.push('\n');
            }
            if rng.chance(10) {
                out.push_str("   \n");
            }
            out.push_str(&" ".repeat(rng.below(6)));
        } else if rng.chance(20) {
            out.push(' ');
        }
        for w in 0..1 + rng.below(3) {
            if w > 0 {
                out.push(' ');
            }
            out.push_str(rng.pick(if double { DOUBLE_WORDS } else { SINGLE_WORDS }));
        }
        if rng.chance(20) {
            out.push_str("  ");
        }
    }
    out.push_str(if double { "\"" } else { "'" });
    out
}

fn key(rng: &mut Rng) -> String {
    if rng.chance(60) {
        format!("k{}", rng.below(8))
    } else {
        rng.pick(KEYS).to_string()
    }
}

fn flow(rng: &mut Rng, depth: usize, out: &mut String) {
    let sp = |rng: &mut Rng| if rng.chance(20) { "" } else { " " };
    match rng.below(if depth > 3 { 1 } else { 4 }) {
        0 => out.push_str(&scalar(rng, true)),
        1 => {
            out.push('[');
            let n = rng.below(4);
            for i in 0..n {
                if i > 0 {
                    out.push(',');
                    out.push_str(sp(rng));
                }
                flow(rng, depth + 1, out);
            }
            if n > 0 && rng.chance(5) {
                out.push(',');
            }
            out.push(']');
        }
        _ => {
            out.push('{');
            let n = rng.below(4);
            for i in 0..n {
                if i > 0 {
                    out.push(',');
                    out.push_str(sp(rng));
                }
                let k = key(rng);
                let k = if k.contains('#') { "h".to_string() } else { k };
                out.push_str(&k);
                out.push_str(": ");
                flow(rng, depth + 1, out);
            }
            out.push('}');
        }
    }
}

fn trailer(rng: &mut Rng, out: &mut String) {
    if rng.chance(10) {
        out.push_str(" # comment");
    } else if rng.chance(5) {
        out.push_str("  ");
    }
    out.push('\n');
    if rng.chance(8) {
        out.push('\n');
    }
    if rng.chance(5) {
        out.push_str(&" ".repeat(rng.below(6)));
        out.push_str("# note\n");
    }
}

/// A value after `key:` or `- `, at nesting `indent` (column of the key or dash).
fn value(rng: &mut Rng, indent: usize, depth: usize, out: &mut String, after_dash: bool) {
    let step = 1 + rng.below(4);
    let choice = rng.below(if depth > 4 { 3 } else { 8 });
    match choice {
        0 | 1 => {
            out.push(' ');
            if rng.chance(10) {
                out.push_str(&multi_line_quoted(rng));
            } else {
                out.push_str(&scalar(rng, false));
            }
            trailer(rng, out);
        }
        2 => {
            out.push(' ');
            flow(rng, 0, out);
            trailer(rng, out);
        }
        3 => {
            // Empty value.
            if rng.chance(50) {
                out.push(' ');
            }
            trailer(rng, out);
        }
        4 | 5 => {
            // Block map on the next lines (or inline after a dash).
            if after_dash && rng.chance(50) {
                out.push(' ');
                block_map(rng, indent + 2, depth + 1, out, true);
            } else {
                trailer(rng, out);
                block_map(rng, indent + step, depth + 1, out, false);
            }
        }
        _ => {
            if after_dash && rng.chance(40) {
                out.push(' ');
                block_seq(rng, indent + 2, depth + 1, out, true);
            } else {
                trailer(rng, out);
                // Unindented sequences under keys.
                let at = if !after_dash && rng.chance(40) {
                    indent
                } else {
                    indent + step
                };
                block_seq(rng, at, depth + 1, out, false);
            }
        }
    }
}

fn block_map(rng: &mut Rng, indent: usize, depth: usize, out: &mut String, inline: bool) {
    let n = 1 + rng.below(4);
    let mut used = Vec::new();
    for i in 0..n {
        if i > 0 || !inline {
            out.push_str(&" ".repeat(indent));
        }
        let mut k = key(rng);
        if used.contains(&k) && !rng.chance(3) {
            k = format!("u{i}");
        }
        if rng.chance(3) {
            // A complex key.
            k.clear();
            flow(rng, 2, &mut k);
        }
        used.push(k.clone());
        out.push_str(&k);
        if rng.chance(5) {
            out.push(' ');
        }
        out.push(':');
        value(rng, indent, depth, out, false);
    }
}

fn block_seq(rng: &mut Rng, indent: usize, depth: usize, out: &mut String, inline: bool) {
    let n = 1 + rng.below(4);
    for i in 0..n {
        if i > 0 || !inline {
            out.push_str(&" ".repeat(indent));
        }
        out.push('-');
        value(rng, indent, depth, out, true);
    }
}

fn document(rng: &mut Rng) -> String {
    let mut out = String::new();
    if rng.chance(10) {
        out.push_str("# header\n");
    }
    if rng.chance(10) {
        out.push_str("---\n");
    }
    let indent = rng.below(2);
    match rng.below(10) {
        0 => {
            block_seq(rng, indent, 0, &mut out, false);
        }
        1 => {
            flow(rng, 0, &mut out);
            out.push('\n');
        }
        _ => block_map(rng, indent, 0, &mut out, false),
    }
    if rng.chance(5) {
        out.push_str("...\n");
    }
    if rng.chance(10) && out.ends_with('\n') {
        out.pop();
    }
    out
}

const MUTATIONS: &[&str] = &[
    " ", "\n", "-", "- ", ":", ": ", "#", " #", "'", "\"", "[", "]", "{", "}", ",", "&a ", "*a",
    "!", "|", ">", "?", "\t", "\\", "<<", "---", "...", "é", "\r",
];

#[test]
fn random_documents_agree() {
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let (mut total, mut fast, mut originals_fast, mut originals_valid) = (0, 0, 0, 0);
    let originals = 10_000;
    for _ in 0..originals {
        let text = document(&mut rng);
        total += 1;
        if check(&text) {
            fast += 1;
            originals_fast += 1;
        }
        if parse_saphyr(&text, SourceId(0)).is_ok() {
            originals_valid += 1;
        }
        // A few random mutations of each document.
        for _ in 0..2 {
            let mut bytes: Vec<char> = text.chars().collect();
            let at = rng.below(bytes.len() + 1);
            match rng.below(3) {
                0 if at < bytes.len() => {
                    bytes.remove(at);
                }
                _ => {
                    let m = rng.pick(MUTATIONS);
                    for (i, c) in m.chars().enumerate() {
                        bytes.insert((at + i).min(bytes.len()), c);
                    }
                }
            }
            let mutated: String = bytes.into_iter().collect();
            total += 1;
            if check(&mutated) {
                fast += 1;
            }
        }
    }
    println!(
        "random documents: {originals} generated ({originals_valid} valid, {originals_fast} on the fast path), {total} with mutations ({fast} on the fast path)"
    );
    assert!(originals_fast > originals / 3);
}

/// The `.yaml` files under `dir` (recursively), sorted.
fn yaml_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut stack = vec![dir.to_path_buf()];
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The reference's conformance templates and the TOSCA 2.0 suite's files
/// (`../shared`, skipped if absent, a failure under CI).
#[test]
fn shared_templates_agree() {
    let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    for dir in ["conformance", "tosca-2.0-suite/tests"] {
        let root = shared.join(dir);
        if !root.is_dir() {
            // CI always has ../shared: missing data there is a failure.
            assert!(
                std::env::var_os("CI").is_none(),
                "{} is missing under CI",
                root.display()
            );
            println!("skipped: {} is absent", root.display());
            continue;
        }
        let (mut total, mut fast) = (0, 0);
        let mut bailed = Vec::new();
        for path in yaml_files(&root) {
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            total += 1;
            if check(&text) {
                fast += 1;
            } else {
                bailed.push(path.display().to_string());
            }
        }
        println!("{dir}: {total} files ({fast} on the fast path)");
        for b in bailed.iter().take(15) {
            println!("  saphyr path: {b}");
        }
    }
}

#[test]
fn benchmark_shape_takes_the_fast_path() {
    let mut text = String::from(
        "tosca_definitions_version: tosca_variability_1_0\ntopology_template:\n    variability:\n        inputs:\n            mode: {type: string}\n        expressions:\n",
    );
    for i in 0..50 {
        text.push_str(&format!("            condition_{i}_present: {{equal: [{{variability_input: mode}}, present]}}\n"));
    }
    text.push_str("    node_templates:\n");
    for i in 0..50 {
        text.push_str(&format!(
            "        component_{i}:\n            type: t_{i}\n            requirements:\n                - relation_present:\n                      node: component_{i}\n                      conditions: {{logic_expression: condition_{i}_present}}\n"
        ));
    }
    assert!(check(&text));
}

/// Quoted scalars over several lines (also with continuation lines in
/// column 1, which js-yaml accepts) are read by both paths, with the same
/// trees.
#[test]
fn multi_line_quoted_scalars_take_the_fast_path() {
    for text in [
        "description: \"A multiline description \nusing a quoted string\"\n",
        "a:\n  b: \"x  \n bar\\\n   baz\n\n\n   qux \n\"\n  c: 1\n",
        "n:\n  p:\n    preamble: \"\\\nR0lG\\\n+f/+\"\n",
        "- 'it''s\n\n x'\n- y\n",
    ] {
        assert!(parse_fast(text, SourceId(0)).is_some(), "{text:?}");
        assert!(check(text), "{text:?}");
    }
    // Keys over several lines, document markers and tabs stay with saphyr.
    for text in [
        "\"a\nb\": 1\n",
        "a: \"x\n---\ny\"\n",
        "a: \"x\n\ty\"\n",
        "a: [\"x\ny\"]\n",
    ] {
        assert!(parse_fast(text, SourceId(0)).is_none(), "{text:?}");
        check(text);
    }
}

/// The first place where `a` and `b` differ in shape or key names (their
/// scalars may differ: the schemas read values differently).
fn same_keys(a: &Node, b: &Node, path: &str) -> Option<String> {
    match (&a.value, &b.value) {
        (Value::Map(x), Value::Map(y)) => {
            let (kx, ky): (Vec<&str>, Vec<&str>) = (x.keys().collect(), y.keys().collect());
            if kx != ky {
                return Some(format!("{path}: keys {kx:?} and {ky:?}"));
            }
            x.iter()
                .zip(y.iter())
                .find_map(|((k, v), (_, w))| same_keys(v, w, &format!("{path}.{}", k.name)))
        }
        (Value::Seq(x), Value::Seq(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (v, w))| same_keys(v, w, &format!("{path}[{i}]"))),
        (Value::Seq(_) | Value::Map(_), _) | (_, Value::Seq(_) | Value::Map(_)) => {
            Some(format!("{path}: a collection and something else"))
        }
        _ => None,
    }
}

/// `js_yaml_reads_alike` on `text`: where it says yes, js-yaml's schema
/// reads the text with the same keys as the core schema. Counts (alike,
/// not alike) of the texts the core schema reads.
fn reads_alike_holds(text: &str, counts: &mut (usize, usize)) {
    let Ok(core) = parse_with(text, SourceId(0), Schema::Core) else {
        return;
    };
    if !js_yaml_reads_alike(&core, text) {
        counts.1 += 1;
        return;
    }
    counts.0 += 1;
    let js = parse_with(text, SourceId(0), Schema::JsYaml)
        .unwrap_or_else(|e| panic!("{text:?}: js-yaml's schema fails: {}", e.message));
    if let Some(d) = same_keys(&core, &js, "") {
        panic!("{text:?}: {d}");
    }
}

#[test]
fn js_yaml_reads_alike_keeps_its_promise() {
    let mut counts = (0, 0);
    for text in FIXTURES {
        reads_alike_holds(text, &mut counts);
    }
    for text in [
        "v: !!binary aGVsbG8=\n",
        "v: !!int 1_0\n",
        "2023-01-01: a\n2023-01-01T00:00:00Z: b\n",
        "0b1: a\n1: b\n",
        "m: {a: 1}\nn:\n  <<: *x\n",
        "[a, b]: 1\na,b: 2\n",
    ] {
        reads_alike_holds(text, &mut counts);
    }
    let mut rng = Rng::new(0x51ed_2701_a3c4_9b3d);
    for _ in 0..10_000 {
        let text = document(&mut rng);
        reads_alike_holds(&text, &mut counts);
        let mut chars: Vec<char> = text.chars().collect();
        let at = rng.below(chars.len() + 1);
        for (i, c) in rng.pick(MUTATIONS).chars().enumerate() {
            chars.insert((at + i).min(chars.len()), c);
        }
        reads_alike_holds(&chars.into_iter().collect::<String>(), &mut counts);
    }
    // The conformance templates and the TOSCA 2.0 suite's files, where
    // present (`shared_templates_agree` requires them under CI).
    let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    for dir in ["conformance", "tosca-2.0-suite/tests"] {
        for path in yaml_files(&shared.join(dir)) {
            if let Ok(text) = std::fs::read_to_string(&path) {
                reads_alike_holds(&text, &mut counts);
            }
        }
    }
    println!("reads alike: {} yes, {} no", counts.0, counts.1);
    // Both answers were given many times: the promise was put to the test.
    assert!(counts.0 > 1_000 && counts.1 > 100, "{counts:?}");
}
