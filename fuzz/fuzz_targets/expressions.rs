//! Fuzz target: value expressions. The input is YAML; if it is a map with
//! `inputs`, `expressions`, `assigned` and `expr` keys, those feed the
//! evaluator (so named expressions and inputs can refer to each other),
//! otherwise the whole document is evaluated as one expression.
#![no_main]

use libfuzzer_sys::fuzz_target;
use v4t_expr::Evaluator;
use v4t_yaml::{parse, Map, SourceId};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(doc) = parse(text, SourceId(0)) else {
        return;
    };
    let structured = doc.get("expr").is_some();
    let definitions = doc.get("inputs").and_then(|n| n.as_map());
    let expressions = doc.get("expressions").and_then(|n| n.as_map());
    let assigned = doc
        .get("assigned")
        .and_then(|n| n.as_map())
        .cloned()
        .unwrap_or_else(Map::new);
    let expr = if structured {
        doc.get("expr").unwrap()
    } else {
        &doc
    };
    let mut evaluator = Evaluator::new(definitions, expressions, assigned.clone(), 0.0);
    let _ = evaluator.evaluate(expr);
    let mut evaluator = Evaluator::new(definitions, expressions, assigned, 86_400_000.0 * 3.0);
    let _ = evaluator.evaluate_as_logic(expr);
    if let Some(names) = definitions {
        for name in names.keys() {
            let _ = evaluator.variability_input(name, doc.span);
        }
    }
});
