//! Conditions as people read them: `is_dev`, `env = "prod"`, `not is_dev`,
//! `has_incoming_relation(dev_vm)` instead of the JSON of the YAML maps.
//! Used wherever a condition or constraint is shown to a person (the
//! drawings of `v4t graph`, `v4t explain`, the notes of "Could not solve").
//!
//! The rendering is a function of the expression alone (deterministic) and
//! never evaluates anything. Logic operators become words (`and`, `or`,
//! `not`, `implies`, `exactly one of`), comparisons and arithmetic become
//! infix operators, named expressions and variability inputs their bare
//! names, and every other operator a call `key(arguments)`. Parentheses are
//! added where precedence needs them. A map that is no expression is shown
//! as JSON.

use crate::graph::{Cond, Constraint, Graph};
use crate::logic::{Arity, LogicOp};
use v4t_expr::ValueOp;
use v4t_yaml::json::to_json;
use v4t_yaml::number::format_js;
use v4t_yaml::{NodeRef, ValueRef};

/// How tightly a rendered expression binds: an operand binding less
/// tightly than its operator gets parentheses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    Implies,
    Or,
    Xor,
    And,
    Not,
    Compare,
    Sum,
    Product,
    Atom,
}

/// An operator shown between its operands: a logic operator by its key
/// (`and`, `implies`), a value operator by its symbol (`=`, `+`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Infix {
    Logic(LogicOp),
    Value(ValueOp, &'static str),
}

impl Infix {
    fn text(self) -> &'static str {
        match self {
            Infix::Logic(op) => op.key(),
            Infix::Value(_, symbol) => symbol,
        }
    }
}

/// A rendered expression with its precedence and, for infix operators,
/// the operator (so that `a and b and c` needs no parentheses).
struct Shown {
    text: String,
    prec: Prec,
    op: Option<Infix>,
}

impl Shown {
    fn atom(text: String) -> Shown {
        Shown {
            text,
            prec: Prec::Atom,
            op: None,
        }
    }

    /// The text as an operand of `op` at `prec`.
    fn operand(self, prec: Prec, op: Infix, associative: bool) -> String {
        let same = associative && self.op == Some(op);
        if self.prec > prec || (self.prec == prec && same) {
            self.text
        } else {
            format!("({})", self.text)
        }
    }
}

/// A logic expression (a condition or constraint as written), as people
/// read it (`is_dev`, `env = "prod"`, `node_presence(db)`).
pub fn logic<'a>(n: impl Into<NodeRef<'a>>) -> String {
    logic_shown(n.into(), 0).text
}

/// A condition-list entry: written YAML as [`logic`], generated terms by
/// their YAML form, without the `_generated` and `_bratan` markers.
pub(crate) fn cond(c: &Cond, g: &Graph) -> String {
    match c {
        Cond::Yaml(n) => logic(&**n),
        other => logic(&other.to_node(g)),
    }
}

/// Several condition-list entries that must all hold, as one `and`.
pub(crate) fn all_of(list: &[&Cond], g: &Graph) -> String {
    let items = list
        .iter()
        .map(|c| match c {
            Cond::Yaml(n) => logic_shown((&**n).into(), 0),
            other => logic_shown((&other.to_node(g)).into(), 0),
        })
        .collect();
    infix(items, Infix::Logic(LogicOp::And), Prec::And, true).text
}

/// A generated constraint (elements by their ids).
pub(crate) fn constraint(c: &Constraint, g: &Graph) -> String {
    logic(&c.to_node(g))
}

/// Deeper than this, the rest of an expression is shown as `…`.
const MAX_DEPTH: usize = 32;

fn logic_shown(n: NodeRef<'_>, depth: usize) -> Shown {
    if depth > MAX_DEPTH {
        return Shown::atom("…".to_string());
    }
    match n.value() {
        // A term: a variable (an element id, `manual.<id>`, a free name).
        ValueRef::String(s) => match s.strip_prefix('-') {
            Some(name) => not(Shown::atom(name.to_string())),
            None => Shown::atom(s.to_string()),
        },
        ValueRef::Map(m) => match LogicOp::of_map(m) {
            Some((op, arg)) => logic_op(op, arg, depth),
            None => value_shown(n, depth),
        },
        _ => value_shown(n, depth),
    }
}

fn not(inner: Shown) -> Shown {
    let text = if inner.prec == Prec::Atom || inner.prec == Prec::Not {
        inner.text
    } else {
        format!("({})", inner.text)
    };
    Shown {
        text: format!("not {text}"),
        prec: Prec::Not,
        op: None,
    }
}

/// `a op b op c` with each operand parenthesised as needed.
fn infix(items: Vec<Shown>, op: Infix, prec: Prec, associative: bool) -> Shown {
    let parts: Vec<String> = items
        .into_iter()
        .map(|s| s.operand(prec, op, associative))
        .collect();
    Shown {
        text: parts.join(&format!(" {} ", op.text())),
        prec,
        op: Some(op),
    }
}

fn logic_op(op: LogicOp, arg: NodeRef<'_>, depth: usize) -> Shown {
    let list = |arg: NodeRef<'_>| -> Vec<Shown> {
        match arg.as_seq() {
            Some(items) => items.iter().map(|i| logic_shown(i, depth + 1)).collect(),
            None => vec![logic_shown(arg, depth + 1)],
        }
    };
    match op.arity() {
        Arity::Name => Shown::atom(arg.as_str().map_or_else(|| to_json(arg), str::to_string)),
        Arity::One => not(logic_shown(arg, depth + 1)),
        Arity::Pair => {
            let mut items = list(arg);
            items.truncate(2);
            infix(items, Infix::Logic(op), Prec::Implies, false)
        }
        Arity::List => {
            let items = list(arg);
            match (op, items.len()) {
                (LogicOp::And, 0) => Shown::atom("true".to_string()),
                (LogicOp::Or, 0) => Shown::atom("false".to_string()),
                (LogicOp::And, _) => infix(items, Infix::Logic(op), Prec::And, true),
                (LogicOp::Or, _) => infix(items, Infix::Logic(op), Prec::Or, true),
                (LogicOp::Xor, _) => infix(items, Infix::Logic(op), Prec::Xor, true),
                _ => {
                    let what = if op == LogicOp::Exo {
                        "exactly one of"
                    } else {
                        "at most one of"
                    };
                    let texts: Vec<String> = items.into_iter().map(|s| s.text).collect();
                    Shown::atom(format!("{what} ({})", texts.join(", ")))
                }
            }
        }
        Arity::Element => call(op.key(), arg, depth, &|n, d| element_arg(n, d)),
    }
}

/// An element reference as written: names bare, indices as numbers.
fn element_arg(n: NodeRef<'_>, depth: usize) -> Shown {
    match n.value() {
        ValueRef::String(s) => Shown::atom(s.to_string()),
        _ => value_shown(n, depth),
    }
}

/// `key(a, b)`: a list argument spread, any other argument as the one.
fn call(
    key: &str,
    arg: NodeRef<'_>,
    depth: usize,
    show: &dyn Fn(NodeRef<'_>, usize) -> Shown,
) -> Shown {
    let args: Vec<String> = match arg.as_seq() {
        Some(items) => items.iter().map(|i| show(i, depth + 1).text).collect(),
        None => vec![show(arg, depth + 1).text],
    };
    Shown::atom(format!("{key}({})", args.join(", ")))
}

/// The infix form of a value operator, its precedence and whether it is
/// associative.
fn infix_of(op: ValueOp) -> Option<(Infix, Prec, bool)> {
    use ValueOp as V;
    let (symbol, prec, associative) = match op {
        V::Equal => ("=", Prec::Compare, false),
        V::Greater => (">", Prec::Compare, false),
        V::GreaterOrEqual => (">=", Prec::Compare, false),
        V::Less => ("<", Prec::Compare, false),
        V::LessOrEqual => ("<=", Prec::Compare, false),
        V::Add => ("+", Prec::Sum, true),
        V::Sub => ("-", Prec::Sum, false),
        V::Mul => ("*", Prec::Product, true),
        V::Div => ("/", Prec::Product, false),
        V::Mod => ("%", Prec::Product, false),
        _ => return None,
    };
    Some((Infix::Value(op, symbol), prec, associative))
}

fn value_shown(n: NodeRef<'_>, depth: usize) -> Shown {
    if depth > MAX_DEPTH {
        return Shown::atom("…".to_string());
    }
    match n.value() {
        ValueRef::Null => Shown::atom("null".to_string()),
        ValueRef::Bool(b) => Shown::atom(b.to_string()),
        ValueRef::Number(x) => Shown::atom(format_js(x)),
        ValueRef::String(_) | ValueRef::Timestamp(_) => Shown::atom(to_json(n)),
        ValueRef::Seq(items) => {
            let texts: Vec<String> = items
                .iter()
                .map(|i| value_shown(i, depth + 1).text)
                .collect();
            Shown::atom(format!("[{}]", texts.join(", ")))
        }
        ValueRef::Map(m) => {
            if let Some((op, arg)) = LogicOp::of_map(m) {
                return logic_op(op, arg, depth);
            }
            // A value operator is a map of one key (markers aside).
            let mut keys = m
                .iter()
                .filter(|(k, _)| !matches!(k.name(), "_generated" | "_bratan"));
            let (Some((key, arg)), None) = (keys.next(), keys.next()) else {
                return Shown::atom(to_json(n));
            };
            let key = key.name();
            let op = ValueOp::parse(key);
            if let (Some(ValueOp::VariabilityInput | ValueOp::ValueExpression), Some(name)) =
                (op, arg.as_str())
            {
                return Shown::atom(name.to_string());
            }
            match (op.and_then(infix_of), arg.as_seq()) {
                (Some((op, prec, associative)), Some(items)) if items.len() == 2 => {
                    let items = items.iter().map(|i| value_shown(i, depth + 1)).collect();
                    infix(items, op, prec, associative)
                }
                _ => call(key, arg, depth, &value_shown),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{logic, value_shown};
    use crate::testing::doc;

    /// `yaml` as people read it; read as a [`v4t_yaml::Doc`], the same.
    fn shown(yaml: &str) -> String {
        let tree = logic(&doc(yaml));
        assert_eq!(tree, logic(crate::testing::read_doc(yaml).root()), "{yaml}");
        tree
    }

    fn value(n: &v4t_yaml::Node) -> String {
        value_shown(n.into(), 0).text
    }

    #[test]
    fn conditions_read_like_the_spec_says_them() {
        assert_eq!(shown("{logic_expression: is_dev}"), "is_dev");
        assert_eq!(shown("{variability_input: big}"), "big");
        assert_eq!(
            shown("{equal: [{variability_input: env}, prod]}"),
            "env = \"prod\""
        );
        assert_eq!(shown("{not: {logic_expression: is_dev}}"), "not is_dev");
        assert_eq!(
            shown("{not: {equal: [{variability_input: env}, dev]}}"),
            "not (env = \"dev\")"
        );
        assert_eq!(shown("{node_presence: db}"), "node_presence(db)");
        assert_eq!(
            shown("{relation_presence: [web, 0]}"),
            "relation_presence(web, 0)"
        );
        assert_eq!(shown("-node.a"), "not node.a");
        assert_eq!(shown("true"), "true");
        assert_eq!(shown("{and: []}"), "true");
        assert_eq!(shown("{or: []}"), "false");
        assert_eq!(
            shown("{exo: [a, b, {not: c}]}"),
            "exactly one of (a, b, not c)"
        );
        assert_eq!(
            shown("{has_incoming_relation: dev_vm, _generated: true}"),
            "has_incoming_relation(dev_vm)"
        );
    }

    #[test]
    fn parentheses_follow_precedence() {
        assert_eq!(shown("{and: [a, {and: [b, c]}]}"), "a and b and c");
        assert_eq!(shown("{and: [a, {or: [b, c]}]}"), "a and (b or c)");
        assert_eq!(shown("{or: [a, {and: [b, c]}]}"), "a or b and c");
        assert_eq!(
            shown("{implies: [{or: [a, b]}, {implies: [c, d]}]}"),
            "a or b implies (c implies d)"
        );
        assert_eq!(value(&doc("{mul: [{add: [1, 2]}, 3]}")), "(1 + 2) * 3");
        assert_eq!(value(&doc("{sub: [1, {sub: [2, 3]}]}")), "1 - (2 - 3)");
        assert_eq!(
            shown("{greater: [{variability_input: n}, {add: [1, 2]}]}"),
            "n > 1 + 2"
        );
    }

    #[test]
    fn other_operators_are_calls_and_unknown_maps_json() {
        assert_eq!(
            shown("{concat: [a, {variability_input: x}]}"),
            "concat(\"a\", x)"
        );
        assert_eq!(
            shown("{valid_values: [{variability_input: x}, [1, 2]]}"),
            "valid_values(x, [1, 2])"
        );
        assert_eq!(shown("{a: 1, b: 2}"), "{\"a\":1,\"b\":2}");
        // Deterministic: the same input, the same text.
        let deep = "{not: ".repeat(40) + "x" + &"}".repeat(40);
        assert_eq!(shown(&deep), shown(&deep));
        assert!(shown(&deep).contains('…'));
    }
}
