//! Family mode: one SAT problem for every configuration at once (issue 16).
//!
//! Resolving encodes the conditions under one input assignment: value
//! expressions are evaluated to constants. To ask questions about all
//! configurations (how many there are, which elements are dead or core),
//! the inputs become variables instead. Each variability input gets a
//! finite *domain* with one literal per value (exactly one of them true),
//! and a value expression that reads inputs becomes the disjunction of the
//! combinations of their values under which it evaluates to true, found by
//! evaluating it under each combination. Everything else is the resolver's
//! encoding ([`super::family_problem`]).
//!
//! **Domains.** A `boolean` input: `false`, `true`. Any other input: the
//! values the template mentions for it (its `default`, its value in every
//! preset, and every scalar written next to `{variability_input: NAME}` in
//! a list, such as the other side of an `equal` or the list of a
//! `valid_values`), plus representatives of the values it does not mention:
//! for numbers, one below the smallest, one between each two neighbours
//! and one above the largest (with `0` and `1` always mentioned, the
//! boundary of truthiness); for strings, one string not mentioned; an input
//! with neither (no type, nothing mentioned) gets `false` and `true`. Every
//! comparison with a constant then behaves on the domain as on all values.
//! Values the input's declared `type` or `constraints` reject are left out
//! (resolving rejects them as wrong inputs, not as a failing variant).
//!
//! A combination under which a value expression fails (an error) is a
//! failing configuration: [`FamilyProblem::failures`] lists them by message,
//! and the expression's literal is false there.

use crate::error::{bail, Error, Result};
use crate::graph::{Cond, Graph};
use crate::logic::NameRef;
use crate::types::TypeSystem;
use v4t_expr::{Evaluator, ValueOp};
use v4t_sat::{Lit, Solver};
use v4t_yaml::hash::{SeededMap, SeededSet};
use v4t_yaml::{Map, MapRef, Node, NodeRef, Value, ValueRef};

/// The longest chain of named expressions followed to find the inputs an
/// expression reads (evaluation itself stops at 256 levels).
const MAX_EXPRESSION_CHAIN: usize = 256;

/// The most value combinations one value expression is evaluated under.
pub(crate) const MAX_COMBINATIONS: usize = 4096;

/// One variability input's finite domain.
#[derive(Clone, Debug)]
pub(crate) struct InputDomain {
    pub name: String,
    /// The values, in domain order (see the module documentation).
    pub values: Vec<Value>,
    /// The literal of "the input has this value", per value; exactly one is true.
    pub lits: Vec<Lit>,
    /// Per value: whether it stands for values the template neither
    /// mentions nor declares (the input has no `constraints` or
    /// `validation` and is no `boolean`, and the value was synthesised).
    pub undeclared: Vec<bool>,
}

/// Configurations in which evaluating a value expression fails.
#[derive(Clone, Debug)]
pub(crate) struct Failure {
    /// The error resolution reports for them.
    pub error: Error,
    /// Each entry: (input, value index) pairs; a configuration fails if it
    /// agrees with one entry.
    pub combinations: Vec<Vec<(usize, usize)>>,
}

/// The inputs as variables, for the encoder's value expressions.
pub(crate) struct FamilyInputs<'a> {
    definitions: Option<MapRef<'a>>,
    expressions: Option<MapRef<'a>>,
    now_ms: f64,
    domains: Vec<InputDomain>,
    by_name: SeededMap<String, usize>,
    /// Every input at its first value: the assignment each evaluation starts from.
    base: Map,
    /// The inputs a named value expression may read (by name).
    expression_reads: SeededMap<String, Vec<usize>>,
    /// The literal of each value expression encoded (by [`identity`]).
    encoded: SeededMap<(usize, u32), Lit>,
    /// Per domain, its values' positions by value, built on first use
    /// ([`Self::value_literal`]).
    value_index: Vec<Option<SeededMap<ValueKey, usize>>>,
    failures: Vec<Failure>,
}

impl<'a> FamilyInputs<'a> {
    /// The input domains and the failing combinations found while encoding.
    pub(crate) fn into_parts(self) -> (Vec<InputDomain>, Vec<Failure>) {
        (self.domains, self.failures)
    }

    /// The domains of `doc`'s variability inputs, with their literals in `sat`.
    pub(crate) fn new(
        doc: NodeRef<'a>,
        graph: &Graph,
        types: &TypeSystem<'_>,
        sat: &mut Solver,
        now_ms: f64,
    ) -> FamilyInputs<'a> {
        let variability = crate::document::variability_of(doc);
        let section = |key: &str| {
            variability
                .and_then(|v| v.get(key))
                .and_then(NodeRef::as_map)
        };
        let definitions = section("inputs");
        let mut mentioned: SeededMap<String, Mentioned> = SeededMap::default();
        let names: Vec<&str> = definitions.map(|d| d.keys().collect()).unwrap_or_default();
        for &name in &names {
            let def = definitions.and_then(|d| d.get(name));
            let list = mentioned.entry(name.to_string()).or_default();
            if let Some(v) = def
                .and_then(|d| d.get("default"))
                .filter(|v| v.is_defined())
                .and_then(|v| scalar(v.value()))
            {
                mention(list, &v);
            }
            for (_, preset) in section("presets").into_iter().flat_map(MapRef::iter) {
                let value = preset.get("inputs").and_then(|i| i.get(name));
                if let Some(v) = value.and_then(|v| scalar(v.value())) {
                    mention(list, &v);
                }
            }
        }
        scan_comparisons(doc, &mut mentioned);
        let mut scan = |n: &Node| scan_comparisons(n.into(), &mut mentioned);
        for e in graph.elements() {
            for c in &e.conditions {
                for_each_yaml(c, &mut scan);
            }
        }
        let mut domains = Vec::with_capacity(names.len());
        let mut by_name = SeededMap::default();
        // Synthesised values: no text to read how they were written.
        let no_texts = v4t_source::Sources::new();
        let mut base = Map::new();
        for &name in &names {
            let ty = definitions
                .and_then(|d| d.get(name))
                .and_then(|d| d.get("type"))
                .and_then(NodeRef::as_str);
            let def = definitions.and_then(|d| d.get(name));
            // Values the input's declared type and constraints reject are
            // no configuration: resolving rejects them as wrong inputs.
            let (values, synthesised): (Vec<Value>, Vec<bool>) =
                domain(ty, mentioned.remove(name).unwrap_or_default().values)
                    .into_iter()
                    .filter(|(v, _)| {
                        def.is_none_or(|d| {
                            let value = Node::new(v.clone(), v4t_yaml::Span::NONE);
                            types.input_violation(&no_texts, d, &value).is_none()
                        })
                    })
                    .unzip();
            let declared = def.is_some_and(|d| {
                ["constraints", "validation"]
                    .iter()
                    .any(|k| d.get(k).is_some_and(NodeRef::is_defined))
            });
            let undeclared = synthesised.into_iter().map(|s| s && !declared).collect();
            let lits: Vec<Lit> = values.iter().map(|_| sat.new_var()).collect();
            let one = sat.exactly_one(&lits);
            sat.require(one);
            if let Some(first) = values.first() {
                base.insert(name, Node::new(first.clone(), v4t_yaml::Span::NONE));
            }
            by_name.insert(name.to_string(), domains.len());
            domains.push(InputDomain {
                name: name.to_string(),
                values,
                lits,
                undeclared,
            });
        }
        let value_index = vec![None; domains.len()];
        FamilyInputs {
            definitions,
            expressions: section("expressions"),
            now_ms,
            domains,
            by_name,
            base,
            expression_reads: SeededMap::default(),
            encoded: SeededMap::default(),
            value_index,
            failures: Vec::new(),
        }
    }

    /// The literal of a value expression coerced to logic: true exactly in
    /// the combinations of the inputs it reads under which it is true.
    pub(crate) fn encode(&mut self, expr: NodeRef<'_>, sat: &mut Solver) -> Result<Lit> {
        let key = identity(expr);
        if let Some(&l) = self.encoded.get(&key) {
            return Ok(l);
        }
        let l = match self.input_equal_to_constant(expr) {
            Some((input, constant)) => self.value_literal(input, &constant, sat),
            None => self.by_evaluation(expr, sat)?,
        };
        self.encoded.insert(key, l);
        Ok(l)
    }

    /// [`Self::encode`] by evaluating `expr` under every combination of the
    /// values of the inputs it reads.
    fn by_evaluation(&mut self, expr: NodeRef<'_>, sat: &mut Solver) -> Result<Lit> {
        let mut true_terms = Vec::new();
        let mut failed = Vec::new();
        self.each_combination(expr, |evaluator, combination| {
            match evaluator.evaluate_as_logic(expr) {
                Ok(true) => true_terms.push(combination),
                Ok(false) => {}
                Err(e) => failed.push((Error::from(e), combination)),
            }
        })?;
        for (error, combination) in failed {
            self.fail(error, combination);
        }
        let domains = &self.domains;
        Ok(any_of(sat, |i, v| domains[i].lits[v], &true_terms))
    }

    /// The combinations of the inputs a property's `expression` reads under
    /// which resolving fails once the property is present: evaluating it
    /// fails (the error, in element `id`) or gives no value (`no_value`).
    /// Consecutive combinations with one message share an entry.
    pub(crate) fn value_failures(
        &mut self,
        expr: NodeRef<'_>,
        id: &dyn std::fmt::Display,
        no_value: &dyn Fn() -> Error,
    ) -> Result<Vec<Failure>> {
        let mut failures = Vec::new();
        self.each_combination(expr, |evaluator, combination| {
            let error = match evaluator.evaluate(expr) {
                Ok(Value::Null) => no_value(),
                Ok(_) => return,
                Err(e) => Error::from(e).in_element(id),
            };
            push_failure(&mut failures, error, combination);
        })?;
        Ok(failures)
    }

    /// Calls `visit` with an evaluator over each combination of the values
    /// of the inputs `expr` reads (the last read input counting fastest)
    /// and the combination as (input, value index) pairs; an error if there
    /// are more than [`MAX_COMBINATIONS`].
    fn each_combination(
        &mut self,
        expr: NodeRef<'_>,
        mut visit: impl FnMut(&mut Evaluator<'_>, Vec<(usize, usize)>),
    ) -> Result<()> {
        let mut reads = Vec::new();
        self.reads(expr, &mut reads, &mut Vec::new());
        reads.sort_unstable();
        reads.dedup();
        let sizes: Vec<usize> = reads
            .iter()
            .map(|&i| self.domains[i].values.len())
            .collect();
        let combinations = sizes
            .iter()
            .try_fold(1usize, |acc, &s| acc.checked_mul(s))
            .filter(|&c| c <= MAX_COMBINATIONS);
        let Some(combinations) = combinations else {
            bail!(
                expr.span(),
                "Value expression reads too many combinations of variability inputs for analysis (more than {MAX_COMBINATIONS})"
            );
        };
        let mut choice = vec![0usize; reads.len()];
        for _ in 0..combinations {
            let mut assigned = Map::new();
            for (&i, &v) in reads.iter().zip(&choice) {
                let d = &self.domains[i];
                assigned.insert(
                    &d.name,
                    Node::new(d.values[v].clone(), v4t_yaml::Span::NONE),
                );
            }
            let mut evaluator =
                Evaluator::reading(self.definitions, self.expressions, assigned, self.now_ms)
                    .over(&self.base);
            visit(
                &mut evaluator,
                reads.iter().copied().zip(choice.iter().copied()).collect(),
            );
            // Next combination (the last read input counts fastest).
            for (c, &s) in choice.iter_mut().zip(&sizes).rev() {
                *c += 1;
                if *c < s {
                    break;
                }
                *c = 0;
            }
        }
        Ok(())
    }

    /// The input and the constant of `{equal: [{variability_input: NAME},
    /// c]}` (either way round) for a declared input and a constant `c`
    /// that can be mentioned (see [`scalar`]). Such a comparison is true
    /// exactly at the domain value equal to `c`, strictly as `equal`
    /// compares scalars, and never fails; finding that value by a lookup
    /// instead of evaluating at each value keeps an input of many values,
    /// one condition per value, linear to encode.
    fn input_equal_to_constant(&self, expr: NodeRef<'_>) -> Option<(usize, Value)> {
        let map = expr.as_map().filter(|m| m.len() == 1)?;
        let (op, arg) = map.iter().next()?;
        if ValueOp::parse(op.name()) != Some(ValueOp::Equal) {
            return None;
        }
        let ValueRef::Seq(items) = arg.value() else {
            return None;
        };
        if items.len() != 2 {
            return None;
        }
        let [a, b] = [items.get(0)?, items.get(1)?];
        let input = |n: NodeRef<'_>| {
            let m = n.as_map().filter(|m| m.len() == 1)?;
            let name = m.get(ValueOp::VariabilityInput.name())?.as_str()?;
            self.definitions?.get(name).filter(|d| d.is_defined())?;
            self.by_name.get(name).copied()
        };
        match (input(a), input(b)) {
            (Some(i), None) => Some((i, scalar(b.value())?)),
            (None, Some(i)) => Some((i, scalar(a.value())?)),
            _ => None,
        }
    }

    /// The literal of "input `i` has the value `constant`": its domain
    /// value's literal, false if the domain has none (its type or
    /// constraints reject the constant). Domains index their values on
    /// first use.
    fn value_literal(&mut self, i: usize, constant: &Value, sat: &mut Solver) -> Lit {
        let domain = &self.domains[i];
        let index = self.value_index[i].get_or_insert_with(|| {
            (domain.values.iter().enumerate())
                .filter_map(|(at, v)| Some((ValueKey::of(v)?, at)))
                .collect()
        });
        match ValueKey::of(constant).and_then(|k| index.get(&k)) {
            Some(&at) => domain.lits[at],
            None => sat.constant(false),
        }
    }

    /// Records a failing combination, after those found before it: a
    /// configuration fails with the first error resolving meets, and
    /// expressions are encoded in resolving's order.
    fn fail(&mut self, error: Error, combination: Vec<(usize, usize)>) {
        push_failure(&mut self.failures, error, combination);
    }

    /// Adds the inputs `expr` may read to `out`: `variability_input`
    /// operators, also through named expressions (every input has a scalar
    /// value, so no default expression is read). A name that is not a plain
    /// string may be any input. `active` guards against cycles.
    fn reads(&mut self, expr: NodeRef<'_>, out: &mut Vec<usize>, active: &mut Vec<String>) {
        let mut stack = vec![expr];
        while let Some(n) = stack.pop() {
            match n.value() {
                ValueRef::Seq(items) => stack.extend(items.iter()),
                ValueRef::Map(m) => {
                    for (k, v) in m.iter() {
                        match (NameRef::of_key(k.name()), v.as_str()) {
                            (Some(NameRef::Input), Some(name)) => {
                                if let Some(&i) = self.by_name.get(name) {
                                    if !out.contains(&i) {
                                        out.push(i);
                                    }
                                }
                            }
                            (Some(NameRef::Expression), Some(name)) => {
                                self.expression_reads_into(name, out, active);
                            }
                            (Some(NameRef::Input), None) => out.extend(0..self.domains.len()),
                            (Some(NameRef::Expression), None) => {
                                let all: Vec<String> = self
                                    .expressions
                                    .map(|m| m.keys().map(str::to_string).collect())
                                    .unwrap_or_default();
                                for name in all {
                                    self.expression_reads_into(&name, out, active);
                                }
                                stack.push(v);
                            }
                            _ => stack.push(v),
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn expression_reads_into(
        &mut self,
        name: &str,
        out: &mut Vec<usize>,
        active: &mut Vec<String>,
    ) {
        if let Some(found) = self.expression_reads.get(name) {
            out.extend_from_slice(found);
            return;
        }
        if active.iter().any(|a| a == name) {
            return;
        }
        if active.len() >= MAX_EXPRESSION_CHAIN {
            // Deeper than evaluation goes: any input, to be safe.
            out.extend(0..self.domains.len());
            return;
        }
        let Some(def) = self.expressions.and_then(|m| m.get(name)) else {
            return;
        };
        active.push(name.to_string());
        let mut mine = Vec::new();
        self.reads(def, &mut mine, active);
        active.pop();
        out.extend_from_slice(&mine);
        if active.is_empty() {
            // Complete only outside a cycle.
            self.expression_reads.insert(name.to_string(), mine);
        }
    }
}

/// Adds a failing combination to `failures`: to the last entry if it has
/// the same message, else as a new entry.
fn push_failure(failures: &mut Vec<Failure>, error: Error, combination: Vec<(usize, usize)>) {
    match failures.last_mut() {
        Some(f) if f.error.message == error.message => f.combinations.push(combination),
        _ => failures.push(Failure {
            error,
            combinations: vec![combination],
        }),
    }
}

/// A literal true exactly in the configurations that agree with one of
/// `combinations` ((input, value index) pairs), where `lit(i, v)` is the
/// literal of "input `i` has its value `v`".
pub(crate) fn any_of(
    sat: &mut Solver,
    lit: impl Fn(usize, usize) -> Lit,
    combinations: &[Vec<(usize, usize)>],
) -> Lit {
    let terms: Vec<Lit> = combinations
        .iter()
        .map(|c| {
            let lits: Vec<Lit> = c.iter().map(|&(i, v)| lit(i, v)).collect();
            sat.and(&lits)
        })
        .collect();
    sat.or(&terms)
}

/// Which node a value expression is, for the encoded ones' cache: the
/// address of a tree's node, or a document's and the node's position in it.
fn identity(n: NodeRef<'_>) -> (usize, u32) {
    match n {
        NodeRef::Tree(n) => (std::ptr::from_ref(n) as usize, u32::MAX),
        NodeRef::Doc(d, id) => (std::ptr::from_ref(d) as usize, id),
    }
}

/// Calls `f` on every YAML node of a condition term.
fn for_each_yaml(c: &Cond, f: &mut impl FnMut(&Node)) {
    match c {
        Cond::Yaml(n) => f(n),
        Cond::Written(w) => f(&w.to_node()),
        Cond::And(items) | Cond::Or(items) => items.iter().for_each(|i| for_each_yaml(i, f)),
        Cond::Generated(inner, _) => for_each_yaml(inner, f),
        Cond::Presence(_) | Cond::Bratan(_) | Cond::Op(..) => {}
    }
}

/// Records the scalars written next to `{variability_input: NAME}` in a
/// list (one level into nested lists, as for `valid_values`).
fn scan_comparisons(root: NodeRef<'_>, mentioned: &mut SeededMap<String, Mentioned>) {
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        match n.value() {
            ValueRef::Map(m) => stack.extend(m.values()),
            ValueRef::Seq(items) => {
                stack.extend(items.iter());
                // The declared inputs the list names, then its values,
                // gathered once (and only for such a list): a long `and`
                // of inputs has none, and scanning it once per input would
                // be quadratic.
                let names: Vec<&str> = (items.iter())
                    .filter_map(|item| {
                        let m = item.as_map().filter(|m| m.len() == 1)?;
                        m.get(ValueOp::VariabilityInput.name())?.as_str()
                    })
                    .filter(|name| mentioned.contains_key(*name))
                    .collect();
                if names.is_empty() {
                    continue;
                }
                let mut values: Vec<Value> = Vec::new();
                for other in items {
                    match other.value() {
                        ValueRef::Seq(inner) => {
                            values.extend(inner.iter().filter_map(|i| scalar(i.value())))
                        }
                        v => values.extend(scalar(v)),
                    }
                }
                for name in names {
                    if let Some(list) = mentioned.get_mut(name) {
                        values.iter().for_each(|v| mention(list, v));
                    }
                }
            }
            _ => {}
        }
    }
}

/// A value that can be mentioned: a boolean, a string or a finite number.
fn scalar(v: ValueRef<'_>) -> Option<Value> {
    match v {
        ValueRef::Bool(b) => Some(Value::Bool(b)),
        ValueRef::String(s) => Some(Value::String(s.to_string())),
        ValueRef::Number(n) if n.is_finite() => Some(Value::Number(n)),
        _ => None,
    }
}

/// The values mentioned for an input, in the order first mentioned, each
/// once (by [`ValueKey`]: an input compared with thousands of values is
/// not scanned once per mention).
#[derive(Default)]
struct Mentioned {
    values: Vec<Value>,
    keys: SeededSet<ValueKey>,
}

/// Adds a scalar to the mentioned values (once).
fn mention(list: &mut Mentioned, v: &Value) {
    let fresh = match ValueKey::of(v) {
        Some(key) => list.keys.insert(key),
        None => !list.values.iter().any(|m| same(m, v)),
    };
    if fresh {
        list.values.push(v.clone());
    }
}

/// A mentionable value as a key that is equal exactly where [`same`] is
/// (a number by its bits, with `-0` as `0`).
#[derive(Clone, PartialEq, Eq, Hash)]
enum ValueKey {
    Bool(bool),
    Number(u64),
    String(String),
}

impl ValueKey {
    fn of(v: &Value) -> Option<ValueKey> {
        match v {
            Value::Bool(b) => Some(ValueKey::Bool(*b)),
            Value::Number(n) if !n.is_nan() => Some(ValueKey::Number((n + 0.0).to_bits())),
            Value::String(s) => Some(ValueKey::String(s.clone())),
            _ => None,
        }
    }
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        _ => false,
    }
}

/// An input's domain from its type and the values mentioned for it (see the
/// module documentation), each value with whether it was synthesised (a
/// representative of values the template does not mention).
fn domain(ty: Option<&str>, mentioned: Vec<Value>) -> Vec<(Value, bool)> {
    if ty == Some("boolean") {
        return vec![(Value::Bool(false), false), (Value::Bool(true), false)];
    }
    let mut numbers: Vec<f64> = Vec::new();
    let mut strings: Vec<String> = Vec::new();
    let mut booleans = [false; 2];
    for v in mentioned {
        match v {
            Value::Number(n) => numbers.push(n),
            Value::String(s) => strings.push(s),
            Value::Bool(b) => booleans[usize::from(b)] = true,
            _ => {}
        }
    }
    let numeric = matches!(ty, Some("integer" | "float")) || !numbers.is_empty();
    let stringy = matches!(ty, Some("string")) || !strings.is_empty();
    let mut values = Vec::new();
    if booleans.iter().any(|&b| b) || (!numeric && !stringy) {
        // Truthy and falsy: what a condition can tell of any value.
        values.extend([(Value::Bool(false), false), (Value::Bool(true), false)]);
    }
    if numeric {
        let written = numbers.clone();
        numbers.extend([0.0, 1.0]);
        numbers.sort_by(f64::total_cmp);
        numbers.dedup();
        let mut all = vec![numbers[0] - 1.0];
        for w in numbers.windows(2) {
            all.push(w[0]);
            all.push((w[0] + w[1]) / 2.0);
        }
        let last = numbers[numbers.len() - 1];
        all.extend([last, last + 1.0]);
        values.extend(
            all.into_iter()
                .map(|n| (Value::Number(n), !written.contains(&n))),
        );
    }
    if stringy {
        let mut other = "other".to_string();
        let mut i = 1;
        while strings.contains(&other) {
            other = format!("other_{i}");
            i += 1;
        }
        values.extend(strings.into_iter().map(|s| (Value::String(s), false)));
        values.push((Value::String(other), true));
    }
    values
}

#[cfg(test)]
mod tests {
    use super::FamilyInputs;
    use v4t_sat::Solver;
    use v4t_yaml::{Node, NodeRef};

    /// Inputs of every kind of domain; the conditions mention values so
    /// that the domains hold them, and `size`'s constraint rejects one.
    const TEMPLATE: &str = "\
tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      mode: {type: string, default: b}
      size: {type: integer, constraints: [{less_than: 3}]}
      ratio: {type: float}
      flag: {type: boolean}
      any: {}
      unset: {type: string}
  node_templates:
    a:
      type: tosca.nodes.Root
      conditions:
        - {equal: [{variability_input: mode}, a]}
        - {equal: [{variability_input: size}, 2]}
        - {equal: [5, {variability_input: size}]}
        - {equal: [{variability_input: ratio}, -0.5]}
        - {equal: [{variability_input: any}, '1']}
        - {equal: [{variability_input: any}, 1]}
";

    /// `{equal: [input, constant]}` (either way round) comes out of the
    /// lookup exactly as out of evaluating it at each domain value: for
    /// every input, constants of each kind, in the domain or not.
    #[test]
    fn comparisons_with_a_constant_match_their_evaluation() {
        let mut sources = crate::Sources::new();
        let prepared = crate::testing::prepare(&mut sources, TEMPLATE).expect("prepares");
        let types = prepared.files.system();
        let doc = NodeRef::from(&prepared.doc);
        let mut sat = Solver::new();
        let mut inputs = FamilyInputs::new(doc, &prepared.graph, &types, &mut sat, 0.0);
        let constants = [
            "a", "b", "other", "''", "'1'", "'2'", "0", "-0.0", "1", "2", "5", "-0.5", "2.5",
            "1e300", "true", "false",
        ];
        // All kept alive: encoded expressions are cached by address.
        let mut exprs = Vec::new();
        for input in ["mode", "size", "ratio", "flag", "any", "unset"] {
            for constant in constants {
                for text in [
                    format!("{{equal: [{{variability_input: {input}}}, {constant}]}}"),
                    format!("{{equal: [{constant}, {{variability_input: {input}}}]}}"),
                ] {
                    let expr: Node = v4t_yaml::parse(&text, v4t_yaml::SourceId(0)).expect("parses");
                    exprs.push((input, text, expr));
                }
            }
        }
        let mut compared = 0;
        for (input, text, expr) in &exprs {
            let expr = NodeRef::from(expr);
            assert!(inputs.input_equal_to_constant(expr).is_some(), "{text}");
            let looked_up = inputs.encode(expr, &mut sat).expect("encodes");
            let evaluated = inputs.by_evaluation(expr, &mut sat).expect("evaluates");
            let domain = &inputs.domains[inputs.by_name[*input]];
            for (value, &lit) in domain.values.iter().zip(&domain.lits) {
                assert!(sat.solve(&[lit]), "{text} at {value:?}");
                let (a, b) = (sat.value(looked_up), sat.value(evaluated));
                assert_eq!(a, b, "{text} at {value:?}");
                compared += usize::from(a);
            }
        }
        // Some comparisons hold somewhere: the domains hold the constants.
        assert!(compared >= 20, "{compared} true comparisons");
    }

    /// A mentioned value counts once, by the equality of `same` (`-0` is
    /// `0`, a string is not a number or a boolean), in the order first
    /// mentioned.
    #[test]
    fn values_are_mentioned_once_in_order() {
        use super::{mention, same, Mentioned};
        use v4t_yaml::Value;
        let written = [
            Value::String("a".into()),
            Value::Number(0.0),
            Value::Number(-0.0),
            Value::String("0".into()),
            Value::Bool(false),
            Value::String("a".into()),
            Value::Number(1.5),
            Value::Bool(false),
            Value::Number(0.0),
        ];
        let mut list = Mentioned::default();
        for v in &written {
            mention(&mut list, v);
        }
        let mut want: Vec<Value> = Vec::new();
        for v in &written {
            if !want.iter().any(|w| same(w, v)) {
                want.push(v.clone());
            }
        }
        assert_eq!(list.values.len(), 5);
        assert!(list.values.iter().zip(&want).all(|(a, b)| same(a, b)));
    }

    /// Other expressions are evaluated: more than two items, an operator
    /// other than `equal`, an undeclared input, a constant that is a list.
    #[test]
    fn other_comparisons_are_evaluated() {
        let mut sources = crate::Sources::new();
        let prepared = crate::testing::prepare(&mut sources, TEMPLATE).expect("prepares");
        let types = prepared.files.system();
        let mut sat = Solver::new();
        let inputs = FamilyInputs::new(
            (&prepared.doc).into(),
            &prepared.graph,
            &types,
            &mut sat,
            0.0,
        );
        for text in [
            "{equal: [{variability_input: mode}, a, a]}",
            "{greater: [{variability_input: size}, 2]}",
            "{equal: [{variability_input: nothing}, a]}",
            "{equal: [{variability_input: mode}, [a]]}",
            "{equal: [{variability_input: mode}, {variability_input: any}]}",
            "{equal: [{variability_input: mode}, a], not: true}",
        ] {
            let expr: Node = v4t_yaml::parse(text, v4t_yaml::SourceId(0)).expect("parses");
            assert!(
                inputs.input_equal_to_constant((&expr).into()).is_none(),
                "{text}"
            );
        }
    }
}
