//! Function calls (§10): detecting them in values (§10.1, `$$` escapes,
//! malformed calls), the argument shapes of every built-in function
//! (§10.2), TOSCA paths (§10.3) and calls of `functions` definitions
//! matched against their signatures (§10.4).
//!
//! TOSCA 1.3 functions (`get_input: x`, no `$`) are checked for the names
//! and argument shapes of TOSCA 1.3 §4.

use crate::section::Section;
use std::rc::Rc;
use v4t_source::Code;
use v4t_yaml::hash::{SeededMap, SeededSet};

use v4t_yaml::{KeyRef, MapRef, NodeRef, SeqRef, ValueRef};

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
    Yes(&'a str, Option<NodeRef<'a>>),
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

/// The built-in functions of one argument (§10.2: `$not`, `$length`,
/// `$round`, `$floor`, `$ceil`): no MUST requires the list brackets, so a
/// value that is not a list is the single argument (`{ $length: $value }`).
const ONE_ARGUMENT: &[&str] = &["not", "length", "round", "floor", "ceil"];

/// The arguments of a call of built-in function `name` as a list: the
/// list as written, or the bare argument of a one-argument function
/// ([`ONE_ARGUMENT`]); `None` if they are neither.
pub fn arg_list<'a>(name: &str, args: Option<NodeRef<'a>>) -> Option<SeqRef<'a>> {
    let args = args?;
    match args.value() {
        ValueRef::Seq(items) => Some(items),
        ValueRef::Null => None,
        _ if ONE_ARGUMENT.contains(&name) => Some(SeqRef::one(args)),
        _ => None,
    }
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

/// The built-in functions of TOSCA 2.0 (§10.2).
pub const BUILT_IN: &[&str] = &[
    "get_input",
    "get_property",
    "get_attribute",
    "get_artifact",
    "value",
    "node_index",
    "relationship_index",
    "available_allocation",
    "and",
    "or",
    "not",
    "xor",
    "equal",
    "greater_than",
    "greater_or_equal",
    "less_than",
    "less_or_equal",
    "valid_values",
    "matches",
    "has_suffix",
    "has_prefix",
    "contains",
    "has_entry",
    "has_key",
    "has_all_entries",
    "has_all_keys",
    "has_any_entry",
    "has_any_key",
    "length",
    "concat",
    "join",
    "token",
    "union",
    "intersection",
    "sum",
    "difference",
    "product",
    "quotient",
    "remainder",
    "round",
    "floor",
    "ceil",
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
    pub nodes: Option<Rc<SeededMap<&'a str, Option<TypeId>>>>,
    pub relationships: Option<Rc<SeededSet<&'a str>>>,
    /// Inputs visible to `$get_input`: a workflow's, then the template's.
    pub inputs: Vec<MapRef<'a>>,
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

/// A call of a built-in function being checked.
struct CallArgs<'a> {
    /// The function's name without `$`.
    name: &'a str,
    /// The arguments as written (`None` for the bare-string form `$name`).
    args: Option<NodeRef<'a>>,
    /// The arguments if they are a list.
    list: Option<SeqRef<'a>>,
    /// The call.
    span: v4t_yaml::Span,
}

impl CallArgs<'_> {
    /// Where argument errors point: the arguments, or the call without any.
    fn args_span(&self) -> v4t_yaml::Span {
        self.args.map(|a| a.span()).unwrap_or(self.span)
    }

    /// An argument-less call: bare `$name`, `{ $name: [] }` or null.
    fn no_args(&self) -> bool {
        self.args
            .is_none_or(|a| a.is_null() || self.list.is_some_and(SeqRef::is_empty))
    }
}

/// The arity (least, most) and static result of the built-in functions on
/// plain values (§10.2.2.2 to §10.2.5; `$concat` aside); `None` for other
/// names.
fn value_function(name: &str) -> Option<(usize, Option<usize>, Option<Builtin>)> {
    Some(match name {
        "equal" | "greater_than" | "greater_or_equal" | "less_than" | "less_or_equal"
        | "valid_values" | "matches" | "has_suffix" | "has_prefix" | "contains" | "has_entry"
        | "has_key" | "has_all_entries" | "has_all_keys" | "has_any_entry" | "has_any_key" => {
            (2, Some(2), Some(Builtin::Boolean))
        }
        "length" => (1, Some(1), Some(Builtin::Integer)),
        "join" => (1, Some(2), Some(Builtin::String)),
        "token" => (3, Some(3), Some(Builtin::String)),
        "union" | "intersection" => (1, None, Some(Builtin::List)),
        "sum" => (1, None, None),
        "product" => (2, None, None),
        "difference" | "quotient" | "remainder" => (2, Some(2), None),
        "round" | "floor" | "ceil" => (1, Some(1), Some(Builtin::Integer)),
        _ => return None,
    })
}

impl<'t, 'a> Checker<'t, 'a> {
    /// Classifies a value per §10.1 (reporting malformed calls).
    pub fn call_of(&mut self, v: NodeRef<'a>) -> Call<'a> {
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
                    .filter(|(k, _)| call_name(k.name()).is_some())
                    .count();
                if calls == 0 {
                    return Call::No;
                }
                if m.len() > 1 {
                    let span = m
                        .iter()
                        .find(|(k, _)| call_name(k.name()).is_some())
                        .map(|(k, _)| k.span());
                    self.error(
                        Code::Function,
                        Section::FunctionSyntax,
                        span.unwrap_or(v.span()),
                        "malformed function: a map with a `$` key has other keys",
                    );
                    self.note(
                        "a function call is a map with one key; a literal `$` is written `$$`",
                    );
                    return Call::Malformed;
                }
                let (k, args) = m.first().expect("one entry");
                Call::Yes(call_name(k.name()).expect("a call key"), Some(args))
            }
            _ => Call::No,
        }
    }

    fn call_of_13(&mut self, v: NodeRef<'a>) -> Call<'a> {
        match v.as_map() {
            Some(m) if m.len() == 1 => {
                let (k, args) = m.first().expect("one entry");
                if FUNCTIONS_13.contains(&k.name()) {
                    Call::Yes(k.name(), Some(args))
                } else {
                    Call::No
                }
            }
            _ => Call::No,
        }
    }

    /// Checks every function call inside a value (which has no data type
    /// to check against).
    pub fn check_functions(&mut self, v: NodeRef<'a>) {
        self.functions_at(v, 0);
    }

    fn functions_at(&mut self, v: NodeRef<'a>, depth: usize) {
        if depth > MAX_NESTING * 4 {
            return;
        }
        match self.call_of(v) {
            Call::Yes(name, args) => {
                self.call(name, args, v);
            }
            Call::Malformed => {}
            Call::No => match v.value() {
                ValueRef::Seq(items) => {
                    for (i, item) in items.iter().enumerate() {
                        self.at_index(i, |c| c.functions_at(item, depth + 1));
                    }
                }
                ValueRef::Map(m) => {
                    for (k, item) in m.iter() {
                        self.key_call(k);
                        self.at(k.name(), |c| c.functions_at(item, depth + 1));
                    }
                }
                _ => {}
            },
        }
    }

    /// Whether a map key is a function call (`{ $keygen: [ UUID ] }: 34`,
    /// §10.1: a YAML complex key); checks the call.
    pub fn key_call(&mut self, k: KeyRef<'a>) -> bool {
        let Some(tree) = k.tree() else {
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
    pub fn call(
        &mut self,
        name: &'a str,
        args: Option<NodeRef<'a>>,
        at: NodeRef<'a>,
    ) -> Returns<'a> {
        if self.call_depth >= MAX_NESTING {
            self.error(
                Code::Function,
                Section::FunctionSyntax,
                at.span(),
                "function calls nested too deeply to check",
            );
            return Returns::Unknown;
        }
        self.call_depth += 1;
        let r = self.call_checked(name, args, at);
        self.call_depth -= 1;
        r
    }

    fn call_checked(
        &mut self,
        name: &'a str,
        args: Option<NodeRef<'a>>,
        at: NodeRef<'a>,
    ) -> Returns<'a> {
        if self.v13() {
            self.call_13(name, args, at);
            return Returns::Unknown;
        }
        let call = CallArgs {
            name,
            args,
            list: arg_list(name, args),
            span: at.span(),
        };
        match name {
            "get_input" => self.get_input(args, at.span()),
            "get_property"
            | "get_attribute"
            | "get_artifact"
            | "available_allocation"
            | "value"
            | "node_index"
            | "relationship_index" => self.graph_query_call(&call),
            "and" | "or" | "not" | "xor" => {
                let (min, max) = match name {
                    "not" => (1, Some(1)),
                    "xor" => (2, Some(2)),
                    _ => (2, None),
                };
                if let Some(l) = self.arity(&call, min, max) {
                    self.boolean_args(name, l);
                }
                Returns::Builtin(Builtin::Boolean)
            }
            "concat" => self.concat_call(&call),
            _ => match value_function(name) {
                Some((min, max, returns)) => {
                    if let Some(l) = self.arity(&call, min, max) {
                        self.args(l);
                        self.literal_arg_shapes(name, l);
                        if returns == Some(Builtin::Boolean) {
                            self.literal_comparison(name, l);
                        }
                    }
                    returns.map_or(Returns::Unknown, Returns::Builtin)
                }
                None => self.custom_call(name, args, at.span()),
            },
        }
    }

    /// The arguments of a built-in call as a list, or an error.
    fn need_list(&mut self, call: &CallArgs<'a>) -> Option<SeqRef<'a>> {
        if call.list.is_none() {
            self.error(
                Code::Function,
                Section::BuiltInFunctions,
                call.args_span(),
                format!("`${}` takes a list of arguments", call.name),
            );
        }
        call.list
    }

    /// The arguments of a built-in call as a list of `min` to `max` (`None`:
    /// any number of) entries, or an error.
    fn arity(&mut self, call: &CallArgs<'a>, min: usize, max: Option<usize>) -> Option<SeqRef<'a>> {
        let l = self.need_list(call)?;
        let ok = l.len() >= min && max.is_none_or(|m| l.len() <= m);
        if !ok {
            let expected = match max {
                Some(m) if m == min => format!("{min}"),
                Some(m) => format!("{min} to {m}"),
                None => format!("at least {min}"),
            };
            self.error(
                Code::Function,
                Section::BuiltInFunctions,
                call.args_span(),
                format!(
                    "`${}` takes {expected} argument(s), not {}",
                    call.name,
                    l.len()
                ),
            );
            return None;
        }
        Some(l)
    }

    /// The representation graph query functions but `$get_input`
    /// (§10.2.1): TOSCA paths, `$value`'s nested names, the index functions.
    fn graph_query_call(&mut self, call: &CallArgs<'a>) -> Returns<'a> {
        let name = call.name;
        match name {
            "get_property" | "get_attribute" if self.fctx.in_interface_type => {
                self.error(
                    Code::Function,
                    Section::OperationDefinition,
                    call.span,
                    format!("`${name}` cannot be used in an interface type definition"),
                );
                self.note("an interface type has no node or relationship to read from");
                Returns::Unknown
            }
            "get_property" | "get_attribute" | "get_artifact" | "available_allocation" => {
                if let Some(l) = self.arity(call, 2, None) {
                    let nested = matches!(name, "get_property" | "get_attribute");
                    self.tosca_path(name, l, call.args_span(), nested);
                }
                if name == "get_artifact" {
                    Returns::Builtin(Builtin::String)
                } else {
                    Returns::Unknown
                }
            }
            "value" => {
                if !call.no_args() {
                    if let Some(l) = self.need_list(call) {
                        self.nested_names(l);
                    }
                }
                Returns::Unknown
            }
            _ => {
                if !call.no_args() {
                    self.error(
                        Code::Function,
                        Section::GraphQueryFunctions,
                        call.args_span(),
                        format!("`${name}` takes no arguments"),
                    );
                }
                Returns::Builtin(Builtin::Integer)
            }
        }
    }

    /// `$concat` (§10.2.3.2): a string, or a list if every argument is one.
    fn concat_call(&mut self, call: &CallArgs<'a>) -> Returns<'a> {
        let Some(l) = self.arity(call, 1, None) else {
            return Returns::Unknown;
        };
        self.args(l);
        let lists = l
            .iter()
            .filter(|&a| matches!(self.classify(a), Scalar::Seq(_)))
            .count();
        if lists == 0 {
            Returns::Builtin(Builtin::String)
        } else if lists == l.len() {
            Returns::Builtin(Builtin::List)
        } else {
            Returns::Unknown
        }
    }

    /// Checks the calls nested in arguments.
    fn args(&mut self, l: SeqRef<'a>) {
        for a in l {
            self.check_functions(a);
        }
    }

    /// Boolean logic arguments: calls, or literal booleans.
    fn boolean_args(&mut self, name: &str, l: SeqRef<'a>) {
        for a in l {
            match self.call_of(a) {
                Call::Yes(n, args) => {
                    let r = self.call(n, args, a);
                    if let Returns::Builtin(b) = r {
                        if b != Builtin::Boolean {
                            self.error(
                                Code::Function,
                                Section::BooleanLogicFunctions,
                                a.span(),
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
                            Section::BooleanLogicFunctions,
                            a.span(),
                            format!("the arguments of `${name}` must be Boolean expressions"),
                        );
                    }
                }
            }
        }
    }

    /// Checks the shapes of literal arguments where a function requires
    /// lists, strings or numbers (calls are not checked here).
    fn literal_arg_shapes(&mut self, name: &str, l: SeqRef<'a>) {
        let is_scalar = |k: Scalar<'_>| matches!(k, Scalar::Str(s) if super::literals::parse_scalar_literal(s).is_some());
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
                // A string is a scalar `<number> <unit>` (§9.1.2.2).
                ("sum" | "difference" | "product" | "quotient", _) => (
                    "a number or a scalar",
                    matches!(k, Scalar::Int(_) | Scalar::Float(_)) || is_scalar(k),
                ),
                ("remainder", 1) => ("an integer", matches!(k, Scalar::Int(_))),
                ("remainder", 0) => (
                    "an integer or a scalar",
                    matches!(k, Scalar::Int(_)) || is_scalar(k),
                ),
                ("round" | "floor" | "ceil", _) => {
                    ("a number", matches!(k, Scalar::Int(_) | Scalar::Float(_)))
                }
                _ => continue,
            };
            if !ok {
                self.error(
                    Code::Function,
                    Section::BuiltInFunctions,
                    a.span(),
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
    fn literal_comparison(&mut self, name: &str, l: SeqRef<'a>) {
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
        let (a, b) = (kind(self.classify(l.at(0))), kind(self.classify(l.at(1))));
        if a != b {
            self.error(
                Code::Function,
                Section::ComparisonFunctions,
                l.at(1).span(),
                format!("`${name}` compares {a} with {b}: its arguments must have the same type"),
            );
        } else if ordering && !matches!(a, "a number" | "a string") {
            self.error(
                Code::Function,
                Section::ComparisonFunctions,
                l.at(0).span(),
                format!("`${name}` cannot order {a}s"),
            );
        }
    }

    /// Whether a value is a function call (or a malformed one).
    pub fn is_call(&self, v: NodeRef<'_>) -> bool {
        if self.v13() {
            return v.as_map().is_some_and(|m| {
                m.len() == 1 && FUNCTIONS_13.contains(&m.first().expect("one").0.name())
            });
        }
        match v.value() {
            ValueRef::String(s) => call_name(s).is_some(),
            ValueRef::Map(m) => m.iter().any(|(k, _)| call_name(k.name()).is_some()),
            _ => false,
        }
    }

    /// [`Checker::call_of`] without reporting.
    pub fn call_of_quiet(&self, v: NodeRef<'a>) -> Call<'a> {
        if self.v13() {
            return match v.as_map() {
                Some(m)
                    if m.len() == 1 && FUNCTIONS_13.contains(&m.first().expect("one").0.name()) =>
                {
                    let (k, a) = m.first().expect("one entry");
                    Call::Yes(k.name(), Some(a))
                }
                _ => Call::No,
            };
        }
        match v.value() {
            ValueRef::String(s) => call_name(s).map_or(Call::No, |n| Call::Yes(n, None)),
            ValueRef::Map(m) => {
                if !m.iter().any(|(k, _)| call_name(k.name()).is_some()) {
                    Call::No
                } else if m.len() > 1 {
                    Call::Malformed
                } else {
                    let (k, a) = m.first().expect("one entry");
                    Call::Yes(call_name(k.name()).expect("call key"), Some(a))
                }
            }
            _ => Call::No,
        }
    }

    /// Nested names and indices (`$value`, `$get_input`, after a path).
    pub(super) fn nested_names(&mut self, l: SeqRef<'a>) {
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
                            Section::GraphQueryFunctions,
                            a.span(),
                            "nested names are strings and indices are non-negative integers",
                        );
                    }
                }
            }
        }
    }

    /// `$get_input` (§10.2.1.1): the input must be declared.
    fn get_input(&mut self, args: Option<NodeRef<'a>>, span: v4t_yaml::Span) -> Returns<'a> {
        let Some(args) = args else {
            self.error(
                Code::Function,
                Section::GetInput,
                span,
                format!("`{}get_input` needs the name of an input", self.sigil()),
            );
            return Returns::Unknown;
        };
        let (name_node, nested): (NodeRef<'a>, SeqRef<'a>) = match args.as_seq() {
            Some(l) if !l.is_empty() => (l.at(0), l.slice(1..)),
            Some(_) => {
                self.error(
                    Code::Function,
                    Section::GetInput,
                    args.span(),
                    format!("`{}get_input` needs the name of an input", self.sigil()),
                );
                return Returns::Unknown;
            }
            None => (args, SeqRef::EMPTY),
        };
        self.nested_names(nested);
        let Some(name) = value::as_str(name_node) else {
            if !matches!(self.call_of(name_node), Call::Yes(..)) {
                self.error(
                    Code::Function,
                    Section::GetInput,
                    name_node.span(),
                    format!(
                        "the input name of `{}get_input` must be a string",
                        self.sigil()
                    ),
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
                Section::GetInput,
                name_node.span(),
                format!(
                    "`{}get_input` names `{name}`, which is not a declared input",
                    self.sigil()
                ),
            );
            let inputs: Vec<&str> = (self.fctx.inputs.iter()).flat_map(|m| m.keys()).collect();
            self.defined_names(name, inputs, "input");
            return Returns::Unknown;
        };
        let view = super::defs::Param {
            defs: vec![DefNode {
                node: def,
                doc: self.doc,
            }],
        };
        let schema = self.param_schema(&view);
        if !nested.is_empty() {
            if let Some(s) = schema {
                self.nested_into(s, nested, Section::GetInput);
            }
            return Returns::Unknown;
        }
        schema.map_or(Returns::Unknown, Returns::Schema)
    }

    /// Whether a `$get_input` call may yield nothing: it names an input
    /// that is not required and has no default.
    pub fn optional_input(&self, v: NodeRef<'a>) -> Option<&'a str> {
        let Call::Yes("get_input", Some(args)) = self.call_of_quiet(v) else {
            return None;
        };
        let name = value::as_str(args)?;
        let def = self.fctx.inputs.iter().find_map(|m| m.get(name))?;
        let required = def
            .get("required")
            .and_then(NodeRef::as_bool)
            .unwrap_or(true);
        (!required && def.get("default").is_none()).then_some(name)
    }

    /// A call of a `functions` definition (§10.4): the arguments must match
    /// one of its signatures.
    fn custom_call(
        &mut self,
        name: &'a str,
        args: Option<NodeRef<'a>>,
        span: v4t_yaml::Span,
    ) -> Returns<'a> {
        let entry = match self.ts.resolve(self.doc, Space::Function, name) {
            Ok(e) => e,
            Err(_) => {
                self.error(
                    Code::Function,
                    Section::FunctionDefinitions,
                    span,
                    format!("unknown function `${name}`"),
                );
                if !self.did_you_mean_name(name, Space::Function) {
                    self.note(
                        "it is neither a TOSCA built-in function nor defined under `functions`",
                    );
                }
                if let Some(a) = args {
                    self.check_functions(a);
                }
                return Returns::Unknown;
            }
        };
        let def = self.ts.functions[entry as usize].clone();
        let list: SeqRef<'a> = match args.map(|a| a.value()) {
            None | Some(ValueRef::Null) => SeqRef::EMPTY,
            Some(ValueRef::Seq(items)) => items,
            Some(_) => {
                self.error(
                    Code::Function,
                    Section::FunctionDefinitions,
                    args.map(|a| a.span()).unwrap_or(span),
                    format!("the arguments of `${name}` must be a list"),
                );
                return Returns::Unknown;
            }
        };
        self.args(list);
        let Some(sigs) = def.def.get("signatures").and_then(NodeRef::as_seq) else {
            return Returns::Unknown;
        };
        for sig in sigs {
            if let Some(result) = self.in_doc(def.doc, |c| c.signature_matches(sig, list)) {
                return result;
            }
        }
        self.error(
            Code::Function,
            Section::FunctionDefinitions,
            span,
            format!("the arguments of `${name}` match none of its signatures"),
        );
        Returns::Unknown
    }

    /// `Some(result)` if `args` fit signature `sig`.
    fn signature_matches(&mut self, sig: NodeRef<'a>, args: SeqRef<'a>) -> Option<Returns<'a>> {
        let doc = self.doc;
        let schemas = |key: &str| -> Vec<NodeRef<'a>> {
            sig.get(key)
                .and_then(NodeRef::as_seq)
                .map(|l| l.iter().collect())
                .unwrap_or_default()
        };
        let (required, optional) = (schemas("arguments"), schemas("optional_arguments"));
        let variadic = sig
            .get("variadic")
            .and_then(NodeRef::as_bool)
            .unwrap_or(false);
        let min = required.len();
        let all: Vec<NodeRef<'a>> = required.iter().chain(optional.iter()).copied().collect();
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
            let Some(s) = self.merge_schema(&[DefNode { node: *def, doc }], 1) else {
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

    /// How function names are written in the file's grammar: `$get_input`
    /// (TOSCA 2.0) or `get_input` (TOSCA 1.3).
    pub fn sigil(&self) -> &'static str {
        if self.v13() {
            ""
        } else {
            "$"
        }
    }

    /// TOSCA 1.3 functions (1.3 §4.3-§4.8): names and argument shapes;
    /// `get_input` names a declared input (1.3 §4.4.1).
    fn call_13(&mut self, name: &'a str, args: Option<NodeRef<'a>>, at: NodeRef<'a>) {
        let Some(args) = args else { return };
        if name == "get_input" {
            self.get_input(Some(args), at.span());
            return;
        }
        let list = args.as_seq();
        let len = list.map(SeqRef::len);
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
            self.error(
                Code::Function,
                Section::V13Functions,
                at.span(),
                format!("`{name}` {what}"),
            );
        } else if name == "concat" && len == Some(0) {
            let message = "`concat` takes at least one argument";
            self.error(Code::Function, Section::V13Concat, args.span(), message);
        }
        if let Some(l) = list {
            for a in l {
                self.check_functions(a);
            }
            if problem.is_none() && matches!(name, "get_property" | "get_attribute") {
                self.property_function_13(name, l);
            }
        }
    }

    /// The target of a TOSCA 1.3 `get_property` or `get_attribute` (1.3
    /// §4.4.2, §4.5.1): `[ <entity>, [<requirement or capability>,]
    /// <name>, <nested names and indices> ]`. The entity is `SELF`,
    /// `SOURCE`, `TARGET`, `HOST` or a node or relationship template; where
    /// it is `SELF` or a node template of a known type, the names are
    /// checked against the type (attributes include the properties, as 1.3
    /// reflects them), and nested names against the named value's schema.
    fn property_function_13(&mut self, function: &str, l: SeqRef<'a>) {
        let section = if function == "get_property" {
            Section::V13PropertyFunctions
        } else {
            Section::V13AttributeFunctions
        };
        let Some(entity) = value::as_str(l.at(0)) else {
            return;
        };
        let t = match entity {
            "SELF" => self.fctx.self_node,
            "SOURCE" | "TARGET" | "HOST" => None,
            _ if !self.fctx.in_template => None,
            _ => {
                let node = self
                    .fctx
                    .nodes
                    .as_ref()
                    .and_then(|ns| ns.get(entity))
                    .copied();
                let relationship =
                    (self.fctx.relationships.as_ref()).is_some_and(|rs| rs.contains(entity));
                match node {
                    Some(t) => t,
                    None if relationship => None,
                    None => {
                        let message = format!(
                            "`{function}` names `{entity}`, which is neither SELF, SOURCE, TARGET, HOST nor a node or relationship template"
                        );
                        self.error(Code::Function, section, l.at(0).span(), message);
                        let nodes = self.fctx.nodes.clone();
                        let relationships = self.fctx.relationships.clone();
                        let names = (nodes.iter().flat_map(|ns| ns.keys()))
                            .chain(relationships.iter().flat_map(|rs| rs.iter()))
                            .copied();
                        self.did_you_mean(entity, names);
                        None
                    }
                }
            }
        };
        let Some(t) = t else { return };
        let what = if function == "get_property" {
            "property"
        } else {
            "attribute"
        };
        let own = |c: &Self, t: TypeId| {
            if function == "get_property" {
                c.type_entries(t, "properties")
            } else {
                c.type_attributes(t)
            }
        };
        let Some(first) = value::as_str(l.at(1)) else {
            return;
        };
        // `[ <entity>, <requirement or capability>, <name>, ... ]`.
        if l.len() >= 3 {
            let requirement = self.node_requirements(t).iter().any(|(n, _)| *n == first);
            if let Some((_, cap)) = self
                .node_capabilities(t)
                .into_iter()
                .find(|(n, _)| *n == first)
            {
                let key = if function == "get_property" {
                    "properties"
                } else {
                    "attributes"
                };
                let mut defined = self.capability_properties(&cap, key);
                if function == "get_attribute" {
                    defined.extend(self.capability_properties(&cap, "properties"));
                }
                let name = value::as_str(l.at(2));
                let incomplete = requirement || self.def_type_unknown(&cap, Kind::Capability);
                if incomplete && !defined.iter().any(|(n, _)| Some(*n) == name) {
                    // A requirement of the same name (`host` of a Compute
                    // hosted on a provider), whose target may define it, or
                    // a capability type not fully known.
                    return;
                }
                let subject = format!("capability `{first}`");
                self.named_value_13(&defined, l.slice(2..), &subject, what, section);
                return;
            }
            if requirement {
                return; // the target is known only when the requirement is fulfilled
            }
        }
        let defined = own(self, t);
        if !defined.iter().any(|(n, _)| *n == first) && self.ts.inherits_unknown(t) {
            return; // the type inherits from a name that is no type
        }
        if !defined.iter().any(|(n, _)| *n == first) && l.len() >= 3 {
            let message = format!(
                "`{}` has no {what}, requirement or capability `{first}`",
                self.type_name(t)
            );
            self.error(Code::Function, section, l.at(1).span(), message);
            let (reqs, caps) = (self.node_requirements(t), self.node_capabilities(t));
            let names = (defined.iter().chain(&reqs).chain(&caps)).map(|(n, _)| *n);
            self.did_you_mean(first, names);
            return;
        }
        let subject = format!("`{}`", self.type_name(t));
        self.named_value_13(&defined, l.slice(1..), &subject, what, section);
    }

    /// `rest[0]`, a property or attribute among `defined` (of `subject`),
    /// and the nested names after it.
    fn named_value_13(
        &mut self,
        defined: &[(&'a str, super::defs::Param<'a>)],
        rest: SeqRef<'a>,
        subject: &str,
        what: &str,
        section: Section,
    ) {
        let Some(name) = value::as_str(rest.at(0)) else {
            return;
        };
        match defined.iter().find(|(n, _)| *n == name) {
            Some((_, p)) => {
                if let Some(s) = self.param_schema(p) {
                    self.nested_into(s, rest.slice(1..), section);
                }
            }
            None => {
                let message = format!("{subject} has no {what} `{name}`");
                self.error(Code::ToscaPath, section, rest.at(0).span(), message);
                self.defined_names(name, defined.iter().map(|(n, _)| *n), what);
            }
        }
    }

    /// Follows nested names and indices into a value of schema `s` (after
    /// `$get_property`, `$get_attribute` or `$get_input`): an index into a
    /// list, a key into a map, a property of a data type. Reports the
    /// first step into a value that has no nested values or an undefined
    /// property; calls and unknown schemas end the walk.
    pub(super) fn nested_into(&mut self, mut s: Schema<'a>, nested: SeqRef<'a>, section: Section) {
        for n in nested {
            if !matches!(self.call_of_quiet(n), Call::No) {
                return;
            }
            let next = match self.ts.builtin_base(s.ty) {
                Some(Builtin::List) => {
                    if !matches!(self.classify(n), Scalar::Int(i) if i >= 0) {
                        let message = format!(
                            "a list is indexed by a non-negative integer, not {}",
                            self.got(n)
                        );
                        self.error(Code::ToscaPath, section, n.span(), message);
                        if self.v13() && value::as_str(n) == Some("INDEX") {
                            self.note(
                                "TOSCA 1.3 names `INDEX` (the index of a node template's \
                                 instances) only in the non-normative example of §2.20; the \
                                 functions of §4 have no such keyword",
                            );
                        }
                        return;
                    }
                    self.entry_schema(&s)
                }
                Some(Builtin::Map) => self.entry_schema(&s),
                None => {
                    let Some(name) = value::as_str(n) else { return };
                    let props = self.type_entries(s.ty, "properties");
                    match props.iter().find(|(p, _)| *p == name) {
                        Some((_, p)) => self.param_schema(p),
                        None => {
                            let message =
                                format!("`{}` has no property `{name}`", self.type_name(s.ty));
                            self.error(Code::ToscaPath, section, n.span(), message);
                            self.defined_names(name, props.iter().map(|(p, _)| *p), "property");
                            return;
                        }
                    }
                }
                Some(Builtin::Range) => return,
                Some(_) => {
                    let message = format!(
                        "a value of type `{}` has no nested values to select with {}",
                        self.type_name(s.ty),
                        self.got(n)
                    );
                    self.error(Code::ToscaPath, section, n.span(), message);
                    self.note("only lists, maps and data types with properties have nested values");
                    return;
                }
            };
            let Some(next) = next else { return };
            s = next;
        }
    }

    /// The requirement names of a node type (along its derivation chain).
    /// In a TOSCA 1.3 file, a requirement redefined in a derived type is
    /// the derived definition alone (1.3 has no refinement rules).
    pub fn node_requirements(&self, t: TypeId) -> Vec<(&'a str, super::defs::Param<'a>)> {
        let mut reqs = super::defs::collect_requirements(&self.chain_defs(t));
        if self.v13() {
            for (_, p) in &mut reqs {
                let last = p.defs.len().saturating_sub(1);
                p.defs.drain(..last);
            }
        }
        reqs
    }

    /// The capability definitions of a node type.
    pub fn node_capabilities(&self, t: TypeId) -> Vec<(&'a str, super::defs::Param<'a>)> {
        self.type_entries(t, "capabilities")
    }

    /// The capability type of a capability definition view (its nearest
    /// `type`, or the short form).
    pub fn capability_type_of(&self, v: &super::defs::Param<'a>) -> Option<TypeId> {
        v.defs.iter().rev().find_map(|d| {
            let name = super::defs::def_type_name(d.node)?;
            self.ts.resolve_type(d.doc, Kind::Capability, name).ok()
        })
    }
}
