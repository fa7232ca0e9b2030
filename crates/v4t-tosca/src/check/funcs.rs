//! Function calls (§10): detecting them in values (§10.1, `$$` escapes,
//! malformed calls), the argument shapes of every built-in function
//! (§10.2), TOSCA paths (§10.3) and calls of `functions` definitions
//! matched against their signatures (§10.4).
//!
//! TOSCA 1.3 functions (`get_input: x`, no `$`) are checked for the names
//! and argument shapes of TOSCA 1.3 §4.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use v4t_source::Code;

use v4t_yaml::{Map, Node};

use super::defs::{DefNode, Schema, MAX_NESTING};
use super::Checker;
use crate::types::{Builtin, Kind, Space, TypeId};
use crate::value::{self, Scalar};

/// What a value is, function-wise.
#[derive(Clone, Copy, Debug)]
pub enum Call<'a> {
    /// Not a function call.
    No,
    /// A call: function name (without `$` and suffix), arguments (`None`
    /// for the bare-string form `$name`).
    Yes(&'a str, Option<&'a Node>),
    /// A map with a `$` key among other keys (reported).
    Malformed,
}

/// The function name of a call key `$name` or `$name$suffix` (§10.1).
fn call_name(key: &str) -> Option<&str> {
    let rest = key.strip_prefix('$')?;
    if rest.starts_with('$') {
        return None; // `$$`: an escaped literal
    }
    Some(rest.split('$').next().unwrap_or(rest))
}

/// The TOSCA 1.3 intrinsic and constraint-free functions (1.3 §4).
const FUNCTIONS_13: &[&str] = &[
    "concat",
    "join",
    "token",
    "get_input",
    "get_property",
    "get_attribute",
    "get_operation_output",
    "get_nodes_of_type",
    "get_artifact",
];

/// Where a function is evaluated (what `SELF` and `$get_input` mean).
#[derive(Clone, Debug, Default)]
pub struct FnCtx<'a> {
    /// `SELF` is a node of this type.
    pub self_node: Option<TypeId>,
    /// `SELF` is a relationship.
    pub self_relationship: bool,
    /// The service template's node templates (with their types) and
    /// relationship templates.
    pub nodes: Option<Rc<HashMap<&'a str, Option<TypeId>>>>,
    pub relationships: Option<Rc<HashSet<&'a str>>>,
    /// Inputs visible to `$get_input`: a workflow's, then the template's.
    pub inputs: Vec<&'a Map>,
    /// In a service template (names of templates and inputs are known).
    pub in_template: bool,
    /// In an interface type: `$get_property` and `$get_attribute` have no
    /// entity to read from (§11.4).
    pub in_interface_type: bool,
}

/// The static result of a function, where known.
#[derive(Clone, Debug)]
pub enum Returns<'a> {
    Unknown,
    Builtin(Builtin),
    Schema(Schema<'a>),
}

impl<'t, 'a> Checker<'t, 'a> {
    /// Classifies a value per §10.1 (reporting malformed calls).
    pub fn call_of(&mut self, v: &'a Node) -> Call<'a> {
        if self.v13() {
            return self.call_of_13(v);
        }
        match self.classify(v) {
            Scalar::Str(s) => match call_name(s) {
                Some(name) => Call::Yes(name, None),
                None => Call::No,
            },
            Scalar::Map(m) => {
                let calls = m
                    .iter()
                    .filter(|(k, _)| call_name(&k.name).is_some())
                    .count();
                if calls == 0 {
                    return Call::No;
                }
                if m.len() > 1 {
                    let span = m
                        .iter()
                        .find(|(k, _)| call_name(&k.name).is_some())
                        .map(|(k, _)| k.span);
                    self.error(
                        Code::Function,
                        "10.1",
                        span.unwrap_or(v.span),
                        "malformed function: a map with a `$` key must have exactly one key (escape literal `$` as `$$`)",
                    );
                    return Call::Malformed;
                }
                let (k, args) = m.first().expect("one entry");
                Call::Yes(call_name(&k.name).expect("a call key"), Some(args))
            }
            _ => Call::No,
        }
    }

    fn call_of_13(&mut self, v: &'a Node) -> Call<'a> {
        match v.as_map() {
            Some(m) if m.len() == 1 => {
                let (k, args) = m.first().expect("one entry");
                if FUNCTIONS_13.contains(&k.name.as_str()) {
                    Call::Yes(k.name.as_str(), Some(args))
                } else {
                    Call::No
                }
            }
            _ => Call::No,
        }
    }

    /// Checks every function call inside a value (which has no data type
    /// to check against).
    pub fn check_functions(&mut self, v: &'a Node) {
        self.functions_at(v, 0);
    }

    fn functions_at(&mut self, v: &'a Node, depth: usize) {
        if depth > MAX_NESTING * 4 {
            return;
        }
        match self.call_of(v) {
            Call::Yes(name, args) => {
                self.call(name, args, v);
            }
            Call::Malformed => {}
            Call::No => match &v.value {
                v4t_yaml::Value::Seq(items) => {
                    for (i, item) in items.iter().enumerate() {
                        self.at_index(i, |c| c.functions_at(item, depth + 1));
                    }
                }
                v4t_yaml::Value::Map(m) => {
                    for (k, item) in m.iter() {
                        self.key_call(k);
                        self.at(k.name.as_str(), |c| c.functions_at(item, depth + 1));
                    }
                }
                _ => {}
            },
        }
    }

    /// Whether a map key is a function call (`{ $keygen: [ UUID ] }: 34`,
    /// §10.1: a YAML complex key); checks the call.
    pub fn key_call(&mut self, k: &'a v4t_yaml::Key) -> bool {
        let Some(tree) = k.complex.as_deref() else {
            return false;
        };
        match self.call_of(tree) {
            Call::Yes(name, args) => {
                self.call(name, args, tree);
                true
            }
            Call::Malformed => true,
            Call::No => false,
        }
    }

    /// Checks one call and returns what it statically returns.
    pub fn call(&mut self, name: &'a str, args: Option<&'a Node>, at: &'a Node) -> Returns<'a> {
        if self.call_depth >= MAX_NESTING {
            self.error(
                Code::Function,
                "10.1",
                at.span,
                "function calls nested too deeply to check",
            );
            return Returns::Unknown;
        }
        self.call_depth += 1;
        let r = self.call_checked(name, args, at);
        self.call_depth -= 1;
        r
    }

    fn call_checked(&mut self, name: &'a str, args: Option<&'a Node>, at: &'a Node) -> Returns<'a> {
        if self.v13() {
            self.call_13(name, args, at);
            return Returns::Unknown;
        }
        let list: Option<&'a [Node]> = args.and_then(|a| a.as_seq()).map(Vec::as_slice);
        let span = at.span;
        let args_span = args.map(|a| a.span).unwrap_or(span);
        // Argument-less functions (bare `$name`, `{ $name: [] }` or null).
        let no_args = args.is_none_or(|a| a.is_null() || list.is_some_and(<[Node]>::is_empty));
        let need_list = |c: &mut Self| -> Option<&'a [Node]> {
            match list {
                Some(l) => Some(l),
                None => {
                    c.error(
                        Code::Function,
                        "10.2",
                        args_span,
                        format!("`${name}` takes a list of arguments"),
                    );
                    None
                }
            }
        };
        let arity = |c: &mut Self, min: usize, max: Option<usize>| -> Option<&'a [Node]> {
            let l = need_list(c)?;
            let ok = l.len() >= min && max.is_none_or(|m| l.len() <= m);
            if !ok {
                let expected = match max {
                    Some(m) if m == min => format!("{min}"),
                    Some(m) => format!("{min} to {m}"),
                    None => format!("at least {min}"),
                };
                c.error(
                    Code::Function,
                    "10.2",
                    args_span,
                    format!("`${name}` takes {expected} argument(s), not {}", l.len()),
                );
                return None;
            }
            Some(l)
        };
        let returns = match name {
            "get_input" => return self.get_input(args, span),
            "get_property" | "get_attribute" if self.fctx.in_interface_type => {
                self.error(
                    Code::Function,
                    "11.4",
                    span,
                    format!("`${name}` cannot be used in an interface type definition: there is no node or relationship to read from"),
                );
                Returns::Unknown
            }
            "get_property" | "get_attribute" => {
                if let Some(l) = arity(self, 2, None) {
                    self.tosca_path(name, l, args_span, true);
                }
                Returns::Unknown
            }
            "get_artifact" => {
                if let Some(l) = arity(self, 2, None) {
                    self.tosca_path(name, l, args_span, false);
                }
                Returns::Builtin(Builtin::String)
            }
            "available_allocation" => {
                if let Some(l) = arity(self, 2, None) {
                    self.tosca_path(name, l, args_span, false);
                }
                Returns::Unknown
            }
            "value" => {
                if !no_args {
                    if let Some(l) = need_list(self) {
                        self.nested_names(l);
                    }
                }
                Returns::Unknown
            }
            "node_index" | "relationship_index" => {
                if !no_args {
                    self.error(
                        Code::Function,
                        "10.2.1",
                        args_span,
                        format!("`${name}` takes no arguments"),
                    );
                }
                Returns::Builtin(Builtin::Integer)
            }
            "and" | "or" => {
                if let Some(l) = arity(self, 2, None) {
                    self.boolean_args(name, l);
                }
                Returns::Builtin(Builtin::Boolean)
            }
            "not" => {
                if let Some(l) = arity(self, 1, Some(1)) {
                    self.boolean_args(name, l);
                }
                Returns::Builtin(Builtin::Boolean)
            }
            "xor" => {
                if let Some(l) = arity(self, 2, Some(2)) {
                    self.boolean_args(name, l);
                }
                Returns::Builtin(Builtin::Boolean)
            }
            "equal" | "greater_than" | "greater_or_equal" | "less_than" | "less_or_equal"
            | "valid_values" | "matches" | "has_suffix" | "has_prefix" | "contains"
            | "has_entry" | "has_key" | "has_all_entries" | "has_all_keys" | "has_any_entry"
            | "has_any_key" => {
                if let Some(l) = arity(self, 2, Some(2)) {
                    self.args(l);
                    self.literal_arg_shapes(name, l);
                    self.literal_comparison(name, l);
                }
                Returns::Builtin(Builtin::Boolean)
            }
            "length" => {
                if let Some(l) = arity(self, 1, Some(1)) {
                    self.args(l);
                    self.literal_arg_shapes(name, l);
                }
                Returns::Builtin(Builtin::Integer)
            }
            "concat" => {
                if let Some(l) = arity(self, 1, None) {
                    self.args(l);
                    let lists = l
                        .iter()
                        .filter(|a| matches!(self.classify(a), Scalar::Seq(_)))
                        .count();
                    if lists == 0 {
                        return Returns::Builtin(Builtin::String);
                    }
                    return if lists == l.len() {
                        Returns::Builtin(Builtin::List)
                    } else {
                        Returns::Unknown
                    };
                }
                Returns::Unknown
            }
            "join" => {
                if let Some(l) = arity(self, 1, Some(2)) {
                    self.args(l);
                    self.literal_arg_shapes(name, l);
                }
                Returns::Builtin(Builtin::String)
            }
            "token" => {
                if let Some(l) = arity(self, 3, Some(3)) {
                    self.args(l);
                    self.literal_arg_shapes(name, l);
                }
                Returns::Builtin(Builtin::String)
            }
            "union" | "intersection" => {
                if let Some(l) = arity(self, 1, None) {
                    self.args(l);
                    self.literal_arg_shapes(name, l);
                }
                Returns::Builtin(Builtin::List)
            }
            "sum" | "product" => {
                if let Some(l) = arity(self, if name == "sum" { 1 } else { 2 }, None) {
                    self.args(l);
                    self.literal_arg_shapes(name, l);
                }
                Returns::Unknown
            }
            "difference" | "quotient" | "remainder" => {
                if let Some(l) = arity(self, 2, Some(2)) {
                    self.args(l);
                    self.literal_arg_shapes(name, l);
                }
                Returns::Unknown
            }
            "round" | "floor" | "ceil" => {
                if let Some(l) = arity(self, 1, Some(1)) {
                    self.args(l);
                    self.literal_arg_shapes(name, l);
                }
                Returns::Builtin(Builtin::Integer)
            }
            _ => return self.custom_call(name, args, span),
        };
        returns
    }

    /// Checks the calls nested in arguments.
    fn args(&mut self, l: &'a [Node]) {
        for a in l {
            self.check_functions(a);
        }
    }

    /// Boolean logic arguments: calls, or literal booleans.
    fn boolean_args(&mut self, name: &str, l: &'a [Node]) {
        for a in l {
            match self.call_of(a) {
                Call::Yes(n, args) => {
                    let r = self.call(n, args, a);
                    if let Returns::Builtin(b) = r {
                        if b != Builtin::Boolean {
                            self.error(
                                Code::Function,
                                "10.2.2.1",
                                a.span,
                                format!(
                                    "the arguments of `${name}` must be Boolean, `${n}` is not"
                                ),
                            );
                        }
                    }
                }
                Call::Malformed => {}
                Call::No => {
                    if !matches!(self.classify(a), Scalar::Bool(_)) {
                        self.error(
                            Code::Function,
                            "10.2.2.1",
                            a.span,
                            format!("the arguments of `${name}` must be Boolean expressions"),
                        );
                    }
                }
            }
        }
    }

    /// Checks the shapes of literal arguments where a function requires
    /// lists, strings or numbers (calls are not checked here).
    fn literal_arg_shapes(&mut self, name: &str, l: &'a [Node]) {
        for (i, a) in l.iter().enumerate() {
            if !matches!(self.call_of_quiet(a), Call::No) {
                continue;
            }
            let k = self.classify(a);
            let (what, ok) = match (name, i) {
                ("valid_values", 1)
                | ("has_all_entries" | "has_all_keys" | "has_any_entry" | "has_any_key", 1) => {
                    ("a list", matches!(k, Scalar::Seq(_)))
                }
                ("has_key" | "has_all_keys" | "has_any_key", 0) => {
                    ("a map", matches!(k, Scalar::Map(_)))
                }
                ("has_entry" | "has_all_entries" | "has_any_entry", 0) => (
                    "a list or a map",
                    matches!(k, Scalar::Map(_) | Scalar::Seq(_)),
                ),
                ("has_suffix" | "has_prefix" | "contains", _) => (
                    "a string or a list",
                    matches!(k, Scalar::Str(_) | Scalar::Seq(_)),
                ),
                ("matches", _) | ("token", 0 | 1) | ("join", 1) => {
                    ("a string", matches!(k, Scalar::Str(_)))
                }
                ("token", 2) => (
                    "a non-negative integer",
                    matches!(k, Scalar::Int(i) if i >= 0),
                ),
                ("join", 0) | ("union" | "intersection", _) => {
                    ("a list", matches!(k, Scalar::Seq(_)))
                }
                ("length", _) => (
                    "a string, a list or a map",
                    matches!(k, Scalar::Str(_) | Scalar::Seq(_) | Scalar::Map(_)),
                ),
                ("sum" | "difference" | "product" | "quotient", _) => (
                    "a number or a scalar",
                    matches!(k, Scalar::Int(_) | Scalar::Float(_) | Scalar::Str(_)),
                ),
                ("remainder", 1) => ("an integer", matches!(k, Scalar::Int(_))),
                ("remainder", 0) => (
                    "an integer or a scalar",
                    matches!(k, Scalar::Int(_) | Scalar::Str(_)),
                ),
                ("round" | "floor" | "ceil", _) => {
                    ("a number", matches!(k, Scalar::Int(_) | Scalar::Float(_)))
                }
                _ => continue,
            };
            if !ok {
                self.error(
                    Code::Function,
                    "10.2",
                    a.span,
                    format!(
                        "argument of `${name}` must be {what}, not {}",
                        value::describe(a)
                    ),
                );
            }
        }
    }

    /// Comparisons of two literals of different types (§10.2.2.2: `$equal`
    /// of different types SHOULD be flagged; ordering needs comparable
    /// values of one type).
    fn literal_comparison(&mut self, name: &str, l: &'a [Node]) {
        let ordering = matches!(
            name,
            "greater_than" | "greater_or_equal" | "less_than" | "less_or_equal"
        );
        if !(ordering || name == "equal") || l.len() != 2 {
            return;
        }
        if l.iter().any(|a| !matches!(self.call_of_quiet(a), Call::No)) {
            return;
        }
        let kind = |k: Scalar<'_>| match k {
            Scalar::Int(_) | Scalar::Float(_) => "a number",
            Scalar::Str(_) | Scalar::Timestamp => "a string",
            Scalar::Bool(_) => "a boolean",
            Scalar::Null => "null",
            Scalar::Seq(_) => "a list",
            Scalar::Map(_) => "a map",
        };
        let (a, b) = (kind(self.classify(&l[0])), kind(self.classify(&l[1])));
        if a != b {
            self.error(
                Code::Function,
                "10.2.2.2",
                l[1].span,
                format!("`${name}` compares {a} with {b}: its arguments must have the same type"),
            );
        } else if ordering && !matches!(a, "a number" | "a string") {
            self.error(
                Code::Function,
                "10.2.2.2",
                l[0].span,
                format!("`${name}` cannot order {a}s"),
            );
        }
    }

    /// Whether a value is a function call (or a malformed one).
    pub fn is_call(&self, v: &Node) -> bool {
        if self.v13() {
            return v.as_map().is_some_and(|m| {
                m.len() == 1 && FUNCTIONS_13.contains(&m.first().expect("one").0.name.as_str())
            });
        }
        match &v.value {
            v4t_yaml::Value::String(s) => call_name(s).is_some(),
            v4t_yaml::Value::Map(m) => m.iter().any(|(k, _)| call_name(&k.name).is_some()),
            _ => false,
        }
    }

    /// [`Checker::call_of`] without reporting.
    pub fn call_of_quiet(&self, v: &'a Node) -> Call<'a> {
        if self.v13() {
            return match v.as_map() {
                Some(m)
                    if m.len() == 1
                        && FUNCTIONS_13.contains(&m.first().expect("one").0.name.as_str()) =>
                {
                    let (k, a) = m.first().expect("one entry");
                    Call::Yes(k.name.as_str(), Some(a))
                }
                _ => Call::No,
            };
        }
        match &v.value {
            v4t_yaml::Value::String(s) => call_name(s).map_or(Call::No, |n| Call::Yes(n, None)),
            v4t_yaml::Value::Map(m) => {
                if !m.iter().any(|(k, _)| call_name(&k.name).is_some()) {
                    Call::No
                } else if m.len() > 1 {
                    Call::Malformed
                } else {
                    let (k, a) = m.first().expect("one entry");
                    Call::Yes(call_name(&k.name).expect("call key"), Some(a))
                }
            }
            _ => Call::No,
        }
    }

    /// Nested names and indices (`$value`, `$get_input`, after a path).
    fn nested_names(&mut self, l: &'a [Node]) {
        for a in l {
            match self.call_of(a) {
                Call::Yes(n, args) => {
                    self.call(n, args, a);
                }
                Call::Malformed => {}
                Call::No => {
                    if !matches!(self.classify(a), Scalar::Str(_) | Scalar::Int(_)) {
                        self.error(
                            Code::Function,
                            "10.2.1",
                            a.span,
                            "nested names are strings and indices are non-negative integers",
                        );
                    }
                }
            }
        }
    }

    /// `$get_input` (§10.2.1.1): the input must be declared.
    fn get_input(&mut self, args: Option<&'a Node>, span: v4t_yaml::Span) -> Returns<'a> {
        let Some(args) = args else {
            self.error(
                Code::Function,
                "10.2.1.1",
                span,
                "`$get_input` needs the name of an input",
            );
            return Returns::Unknown;
        };
        let (name_node, nested): (&'a Node, &'a [Node]) = match args.as_seq() {
            Some(l) if !l.is_empty() => (&l[0], &l[1..]),
            Some(_) => {
                self.error(
                    Code::Function,
                    "10.2.1.1",
                    args.span,
                    "`$get_input` needs the name of an input",
                );
                return Returns::Unknown;
            }
            None => (args, &[]),
        };
        self.nested_names(nested);
        let Some(name) = value::as_str(name_node) else {
            if !matches!(self.call_of(name_node), Call::Yes(..)) {
                self.error(
                    Code::Function,
                    "10.2.1.1",
                    name_node.span,
                    "the input name of `$get_input` must be a string",
                );
            }
            return Returns::Unknown;
        };
        if !self.fctx.in_template {
            return Returns::Unknown;
        }
        let def = self.fctx.inputs.iter().find_map(|m| m.get(name));
        let Some(def) = def else {
            self.error(
                Code::UndefinedReference,
                "10.2.1.1",
                name_node.span,
                format!("`$get_input` names `{name}`, which is not a declared input"),
            );
            return Returns::Unknown;
        };
        if !nested.is_empty() {
            return Returns::Unknown;
        }
        let view = super::defs::Param {
            defs: vec![DefNode {
                node: def,
                doc: self.doc,
            }],
        };
        match self.param_schema(&view) {
            Some(s) => Returns::Schema(s),
            None => Returns::Unknown,
        }
    }

    /// Whether a `$get_input` call may yield nothing: it names an input
    /// that is not required and has no default.
    pub fn optional_input(&self, v: &'a Node) -> Option<&'a str> {
        let Call::Yes("get_input", Some(args)) = self.call_of_quiet(v) else {
            return None;
        };
        let name = value::as_str(args)?;
        let def = self.fctx.inputs.iter().find_map(|m| m.get(name))?;
        let required = def.get("required").and_then(Node::as_bool).unwrap_or(true);
        (!required && def.get("default").is_none()).then_some(name)
    }

    /// A TOSCA path (§10.3) followed by a name and nested names (for
    /// `$get_property`/`$get_attribute` when `nested` is true).
    fn tosca_path(&mut self, function: &str, l: &'a [Node], span: v4t_yaml::Span, nested: bool) {
        #[derive(Clone, Copy, PartialEq)]
        enum Ctx {
            Node(Option<TypeId>),
            Capability(Option<TypeId>),
            Relationship,
            Unknown,
        }
        let word = |c: &Self, i: usize| -> Option<&'a str> {
            l.get(i)
                .and_then(|n| value::as_str(n))
                .filter(|_| !matches!(c.call_of_quiet(&l[i]), Call::Yes(..)))
        };
        let is_idx = |c: &Self, i: usize| -> bool {
            l.get(i).is_some_and(|n| {
                matches!(c.classify(n), Scalar::Int(x) if x >= 0)
                    || value::as_str(n) == Some("ALL")
                    || matches!(c.call_of_quiet(n), Call::Yes(..))
            })
        };
        for a in l {
            if let Call::Yes(n, args) = self.call_of(a) {
                self.call(n, args, a);
            }
        }
        let Some(first) = word(self, 0) else {
            self.error(
                Code::Function,
                "10.3",
                l.first().map(|n| n.span).unwrap_or(span),
                format!("the TOSCA path of `${function}` starts with SELF or a template name"),
            );
            return;
        };
        let mut i = 1;
        let mut ctx = if first == "SELF" {
            if let Some(t) = self.fctx.self_node {
                Ctx::Node(Some(t))
            } else if self.fctx.self_relationship {
                Ctx::Relationship
            } else {
                Ctx::Unknown
            }
        } else {
            let node = self
                .fctx
                .nodes
                .as_ref()
                .and_then(|ns| ns.get(first))
                .copied();
            let relationship = self
                .fctx
                .relationships
                .as_ref()
                .is_some_and(|rs| rs.contains(first));
            match (node, relationship) {
                (Some(t), _) => {
                    if is_idx(self, i) {
                        i += 1;
                    }
                    Ctx::Node(t)
                }
                (None, true) => Ctx::Relationship,
                (None, false) => {
                    if self.fctx.in_template {
                        self.error(
                            Code::Function,
                            "10.3",
                            l[0].span,
                            format!("`${function}` names `{first}`, which is neither SELF nor a node or relationship template"),
                        );
                    } else {
                        self.error(
                            Code::Function,
                            "11.4",
                            l[0].span,
                            format!("outside a service template, `${function}` can only start at SELF, not `{first}`"),
                        );
                    }
                    return;
                }
            }
        };
        // Walk the contexts.
        let mut bad = false;
        while let Some(w) = word(self, i) {
            let node_ctx = matches!(ctx, Ctx::Node(_)) || ctx == Ctx::Unknown;
            let rel_ctx = ctx == Ctx::Relationship || ctx == Ctx::Unknown;
            match w {
                "RELATIONSHIP" if node_ctx => {
                    let Some(req) = word(self, i + 1) else {
                        bad = true;
                        break;
                    };
                    if let Ctx::Node(Some(t)) = ctx {
                        if !self.node_requirements(t).iter().any(|(n, _)| *n == req) {
                            let message = format!(
                                "node type `{}` has no requirement `{req}`",
                                self.type_name(t)
                            );
                            self.error(Code::Function, "10.3", l[i + 1].span, message);
                            return;
                        }
                    }
                    i += 2;
                    if is_idx(self, i) {
                        i += 1;
                    }
                    ctx = Ctx::Relationship;
                }
                "CAPABILITY"
                    if node_ctx && word(self, i + 1).is_some_and(|w| w != "RELATIONSHIP") =>
                {
                    let cap = word(self, i + 1).expect("checked");
                    let mut cap_type = None;
                    if let Ctx::Node(Some(t)) = ctx {
                        match self
                            .node_capabilities(t)
                            .into_iter()
                            .find(|(n, _)| *n == cap)
                        {
                            Some((_, v)) => cap_type = self.capability_type_of(&v),
                            None => {
                                let message = format!(
                                    "node type `{}` has no capability `{cap}`",
                                    self.type_name(t)
                                );
                                self.error(Code::Function, "10.3", l[i + 1].span, message);
                                return;
                            }
                        }
                    }
                    i += 2;
                    if word(self, i) == Some("RELATIONSHIP") {
                        i += 1;
                        if is_idx(self, i) {
                            i += 1;
                        }
                        ctx = Ctx::Relationship;
                    } else {
                        ctx = Ctx::Capability(cap_type);
                    }
                }
                "SOURCE" | "TARGET" if rel_ctx => {
                    i += 1;
                    ctx = Ctx::Node(None);
                }
                "CAPABILITY" if rel_ctx => {
                    i += 1;
                    if word(self, i) == Some("RELATIONSHIP") {
                        i += 1;
                        if is_idx(self, i) {
                            i += 1;
                        }
                        ctx = Ctx::Relationship;
                    } else {
                        ctx = Ctx::Capability(None);
                    }
                }
                _ => break,
            }
        }
        if bad {
            self.error(
                Code::Function,
                "10.3",
                span,
                format!("malformed TOSCA path in `${function}`"),
            );
            return;
        }
        let rest = &l[i.min(l.len())..];
        if rest.is_empty() {
            self.error(
                Code::Function,
                "10.2.1",
                span,
                format!("`${function}` needs a name after its TOSCA path"),
            );
            return;
        }
        if !nested && rest.len() > 1 {
            self.error(
                Code::Function,
                "10.2.1",
                rest[1].span,
                format!("`${function}` takes a TOSCA path and one name"),
            );
        }
        self.nested_names(&rest[1..]);
        let Some(name) = value::as_str(&rest[0]) else {
            if !matches!(self.call_of_quiet(&rest[0]), Call::Yes(..)) {
                self.error(
                    Code::Function,
                    "10.2.1",
                    rest[0].span,
                    "the name after a TOSCA path must be a string",
                );
            }
            return;
        };
        // Names that are statically known to be wrong.
        let (entity, attrs) = match ctx {
            Ctx::Node(Some(t)) => (Some(t), function != "get_property"),
            Ctx::Capability(Some(t)) => (Some(t), function != "get_property"),
            _ => (None, false),
        };
        let Some(t) = entity else { return };
        let known = match function {
            // Templates may add artifacts to their type's.
            "get_artifact" => true,
            _ if attrs => self.type_attributes(t).iter().any(|(n, _)| *n == name),
            _ => self
                .type_entries(t, "properties")
                .iter()
                .any(|(n, _)| *n == name),
        };
        if !known {
            let what = match function {
                "get_artifact" => "artifact",
                _ if attrs => "attribute",
                _ => "property",
            };
            let message = format!("`{}` has no {what} `{name}`", self.type_name(t));
            self.error(Code::Function, "10.2.1", rest[0].span, message);
        }
    }

    /// A call of a `functions` definition (§10.4): the arguments must match
    /// one of its signatures.
    fn custom_call(
        &mut self,
        name: &'a str,
        args: Option<&'a Node>,
        span: v4t_yaml::Span,
    ) -> Returns<'a> {
        let entry = match self.ts.resolve(self.doc, Space::Function, name) {
            Ok(e) => e,
            Err(_) => {
                self.error(
                    Code::Function,
                    "10.4",
                    span,
                    format!(
                        "unknown function `${name}`: it is not a TOSCA built-in function and no `functions` definition of that name is in scope"
                    ),
                );
                if let Some(a) = args {
                    self.check_functions(a);
                }
                return Returns::Unknown;
            }
        };
        let def = self.ts.functions[entry as usize].clone();
        let list: &'a [Node] = match args.map(|a| &a.value) {
            None | Some(v4t_yaml::Value::Null) => &[],
            Some(v4t_yaml::Value::Seq(items)) => items.as_slice(),
            Some(_) => {
                self.error(
                    Code::Function,
                    "10.4",
                    args.map(|a| a.span).unwrap_or(span),
                    format!("the arguments of `${name}` must be a list"),
                );
                return Returns::Unknown;
            }
        };
        self.args(list);
        let Some(sigs) = def.def.get("signatures").and_then(Node::as_seq) else {
            return Returns::Unknown;
        };
        for sig in sigs {
            if let Some(result) = self.in_doc(def.doc, |c| c.signature_matches(sig, list)) {
                return result;
            }
        }
        self.error(
            Code::Function,
            "10.4",
            span,
            format!("the arguments of `${name}` match none of its signatures"),
        );
        Returns::Unknown
    }

    /// `Some(result)` if `args` fit signature `sig`.
    fn signature_matches(&mut self, sig: &'a Node, args: &'a [Node]) -> Option<Returns<'a>> {
        let doc = self.doc;
        let schemas = |key: &str| -> Vec<&'a Node> {
            sig.get(key)
                .and_then(Node::as_seq)
                .map(|l| l.iter().collect())
                .unwrap_or_default()
        };
        let (required, optional) = (schemas("arguments"), schemas("optional_arguments"));
        let variadic = sig.get("variadic").and_then(Node::as_bool).unwrap_or(false);
        let min = required.len();
        let all: Vec<&'a Node> = required.iter().chain(optional.iter()).copied().collect();
        if all.is_empty() {
            if !variadic && !args.is_empty() {
                return None;
            }
        } else if args.len() < min || (!variadic && args.len() > all.len()) {
            return None;
        }
        for (i, a) in args.iter().enumerate() {
            let Some(def) = all.get(i).or(all.last().filter(|_| variadic)) else {
                break;
            };
            let Some(s) = self.merge_schema(&[DefNode { node: def, doc }], 1) else {
                continue;
            };
            if !self.value_fits(a, &s) {
                return None;
            }
        }
        let result = sig
            .get("result")
            .and_then(|r| self.merge_schema(&[DefNode { node: r, doc }], 1));
        Some(result.map_or(Returns::Unknown, Returns::Schema))
    }

    /// TOSCA 1.3 functions (1.3 §4.3-§4.8): names and argument shapes.
    fn call_13(&mut self, name: &'a str, args: Option<&'a Node>, at: &'a Node) {
        let Some(args) = args else { return };
        let list = args.as_seq();
        let len = list.map(Vec::len);
        let problem = match name {
            "get_input" if !(value::as_str(args).is_some() || len.is_some_and(|n| n > 0)) => {
                Some("takes an input name or a list starting with one")
            }
            "get_property" | "get_attribute" if len.is_none_or(|n| n < 2) => {
                Some("takes a list: [ <entity>, [<capability or requirement>,] <name>, ... ]")
            }
            "get_operation_output" if len != Some(4) => Some("takes four arguments"),
            "get_artifact" if len.is_none_or(|n| !(2..=4).contains(&n)) => {
                Some("takes two to four arguments")
            }
            "concat" | "join" if len.is_none() => Some("takes a list"),
            "token" if len != Some(3) => Some("takes three arguments"),
            _ => None,
        };
        if let Some(what) = problem {
            self.error(Code::Function, "1.3 4", at.span, format!("`{name}` {what}"));
        }
        if let Some(l) = list {
            for a in l {
                self.check_functions(a);
            }
        }
    }

    /// The requirement names of a node type (along its derivation chain).
    pub fn node_requirements(&self, t: TypeId) -> Vec<(&'a str, super::defs::Param<'a>)> {
        super::defs::collect_requirements(&self.chain_defs(t))
    }

    /// The capability definitions of a node type.
    pub fn node_capabilities(&self, t: TypeId) -> Vec<(&'a str, super::defs::Param<'a>)> {
        self.type_entries(t, "capabilities")
    }

    /// The capability type of a capability definition view (its nearest
    /// `type`, or the short form).
    pub fn capability_type_of(&self, v: &super::defs::Param<'a>) -> Option<TypeId> {
        v.defs.iter().rev().find_map(|d| {
            let name = match value::as_str(d.node) {
                Some(s) => s,
                None => value::as_str(d.node.get("type")?)?,
            };
            self.ts.resolve_type(d.doc, Kind::Capability, name).ok()
        })
    }
}
