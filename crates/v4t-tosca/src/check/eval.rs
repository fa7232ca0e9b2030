//! Evaluation of validation clauses on constant values (§9.11, §10.2.2 to
//! §10.2.5), and of TOSCA 1.3 constraint clauses (1.3 §3.6.3).
//!
//! `$value` is bound to the value being validated, typed by its schema, so
//! that scalars, timestamps and versions compare by magnitude. Anything
//! that depends on the deployment (`$get_input`, `$get_property`, custom
//! functions) makes the result unknown, and unknown results are not
//! reported: only clauses that certainly fail on a written value are.

use std::cmp::Ordering;

use v4t_yaml::{NodeRef, SeqRef, ValueRef};

use super::defs::{DefNode, Schema, MAX_NESTING};
use super::funcs::Call;
use super::literals::{
    parse_scalar_literal, parse_scalar_literal_13, parse_timestamp, parse_version, ScalarLiteral,
    TimestampValue, VersionValue,
};
use super::Checker;
use crate::types::{Builtin, TypeId};
use crate::value::Scalar;

/// A value during evaluation.
#[derive(Clone, Debug)]
pub enum V {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<V>),
    Map(Vec<(String, V)>),
    /// A scalar in its canonical unit, with its scalar type.
    Scalar(f64, TypeId),
    Time(TimestampValue),
    Version(VersionValue),
}

/// Why evaluation stopped without a value.
#[derive(Clone, Debug)]
pub enum Stop {
    /// Depends on the deployment or on something v4t does not evaluate.
    Unknown,
}

type R = Result<V, Stop>;

/// Scalar type facts merged along its derivation chain (§9.1.2.2).
#[derive(Clone, Debug, Default)]
pub struct ScalarInfo {
    pub units: Vec<(String, f64)>,
    pub prefixes: Vec<(String, f64)>,
    pub data_type: Option<TypeId>,
    pub case_insensitive: bool,
    /// TOSCA 1.3 scalar-unit types: the unit may follow the number without
    /// whitespace (1.3 §3.3.6.2).
    pub unspaced: bool,
}

impl ScalarInfo {
    /// Splits a literal of this scalar type into number and unit.
    pub fn literal<'s>(&self, s: &'s str) -> Option<ScalarLiteral<'s>> {
        if self.unspaced {
            parse_scalar_literal_13(s)
        } else {
            parse_scalar_literal(s)
        }
    }

    /// The multiplier of a unit (with a prefix if prefixes are defined).
    pub fn multiplier(&self, unit: &str) -> Option<f64> {
        let eq = |a: &str, b: &str| {
            if self.case_insensitive {
                a.eq_ignore_ascii_case(b)
            } else {
                a == b
            }
        };
        if let Some((_, m)) = self.units.iter().find(|(u, _)| eq(u, unit)) {
            return Some(*m);
        }
        if self.prefixes.is_empty() {
            return None;
        }
        for (base, m) in &self.units {
            for (p, pm) in &self.prefixes {
                if unit.len() == p.len() + base.len()
                    && unit.starts_with(p.as_str())
                    && eq(&unit[p.len()..], base)
                {
                    return Some(m * pm);
                }
            }
        }
        None
    }
}

fn units_13(u: crate::types::ScalarUnit13) -> &'static [(&'static str, f64)] {
    use crate::types::ScalarUnit13::*;
    match u {
        Size => &[
            ("B", 1.0),
            ("kB", 1e3),
            ("KiB", 1024.0),
            ("MB", 1e6),
            ("MiB", 1_048_576.0),
            ("GB", 1e9),
            ("GiB", 1_073_741_824.0),
            ("TB", 1e12),
            ("TiB", 1_099_511_627_776.0),
        ],
        Time => &[
            ("d", 86_400.0),
            ("h", 3600.0),
            ("m", 60.0),
            ("s", 1.0),
            ("ms", 1e-3),
            ("us", 1e-6),
            ("ns", 1e-9),
        ],
        Frequency => &[("Hz", 1.0), ("kHz", 1e3), ("MHz", 1e6), ("GHz", 1e9)],
        Bitrate => &[
            ("bps", 1.0),
            ("Kbps", 1e3),
            ("Kibps", 1024.0),
            ("Mbps", 1e6),
            ("Mibps", 1_048_576.0),
            ("Gbps", 1e9),
            ("Gibps", 1_073_741_824.0),
            ("Tbps", 1e12),
            ("Tibps", 1_099_511_627_776.0),
            ("Bps", 8.0),
            ("KBps", 8e3),
            ("KiBps", 8192.0),
            ("MBps", 8e6),
            ("MiBps", 8_388_608.0),
            ("GBps", 8e9),
            ("GiBps", 8_589_934_592.0),
            ("TBps", 8e12),
            ("TiBps", 8_796_093_022_208.0),
        ],
    }
}

impl<'t, 'a> Checker<'t, 'a> {
    /// The units of a scalar type (2.0: `units`/`prefixes` merged along the
    /// chain; 1.3: the built-in scalar-unit tables). `None` if `t` is not a
    /// scalar type.
    pub fn scalar_info(&self, t: TypeId) -> Option<ScalarInfo> {
        match self.ts.builtin_base(t)? {
            Builtin::ScalarUnit(u) => Some(ScalarInfo {
                units: units_13(u)
                    .iter()
                    .map(|(n, m)| (n.to_string(), *m))
                    .collect(),
                prefixes: Vec::new(),
                data_type: None,
                case_insensitive: true,
                unspaced: true,
            }),
            Builtin::Scalar => {
                let mut info = ScalarInfo::default();
                for d in self.chain_defs(t) {
                    let read = |key: &str| -> Vec<(String, f64)> {
                        d.node
                            .get(key)
                            .and_then(NodeRef::as_map)
                            .map(|m| {
                                m.iter()
                                    .filter_map(|(k, v)| Some((k.name().to_string(), v.as_f64()?)))
                                    .collect()
                            })
                            .unwrap_or_default()
                    };
                    for (n, m) in read("units") {
                        info.units.retain(|(u, _)| *u != n);
                        info.units.push((n, m));
                    }
                    for (n, m) in read("prefixes") {
                        info.prefixes.retain(|(u, _)| *u != n);
                        info.prefixes.push((n, m));
                    }
                    if let Some(dt) = d.node.get("data_type").and_then(|n| n.as_str()) {
                        info.data_type = self
                            .ts
                            .resolve_type(d.doc, crate::types::Kind::Data, dt)
                            .ok();
                    }
                }
                Some(info)
            }
            _ => None,
        }
    }

    /// A literal as a typed value of `ty` (scalars, timestamps and versions
    /// from their string forms), `None` if it does not parse as one.
    fn typed(&self, v: &V, ty: TypeId) -> Option<V> {
        let s = match v {
            V::Str(s) => s.as_str(),
            V::Scalar(..) | V::Time(_) | V::Version(_) => return Some(v.clone()),
            _ => return None,
        };
        match self.ts.builtin_base(ty)? {
            Builtin::Timestamp => parse_timestamp(s).map(V::Time),
            Builtin::Version => parse_version(s).map(V::Version),
            Builtin::Scalar | Builtin::ScalarUnit(_) => {
                let info = self.scalar_info(ty)?;
                let lit = info.literal(s)?;
                let m = info.multiplier(lit.unit)?;
                Some(V::Scalar(lit.number * m, ty))
            }
            _ => None,
        }
    }

    /// A YAML value as an evaluation value (calls inside make it unknown).
    fn constant(&self, n: NodeRef<'_>, depth: usize) -> R {
        if depth > MAX_NESTING * 4 {
            return Err(Stop::Unknown);
        }
        if self.is_call(n) {
            return Err(Stop::Unknown);
        }
        Ok(match self.classify(n) {
            Scalar::Null => V::Null,
            Scalar::Bool(b) => V::Bool(b),
            Scalar::Int(i) => V::Int(i),
            Scalar::Float(f) => V::Float(f),
            Scalar::Str(s) => V::Str(unescape(s).to_string()),
            Scalar::Timestamp => match n.value() {
                ValueRef::Timestamp(ms) => V::Time(TimestampValue((ms as i128) * 1_000_000)),
                _ => return Err(Stop::Unknown),
            },
            Scalar::Seq(items) => V::List(
                items
                    .iter()
                    .map(|i| self.constant(i, depth + 1))
                    .collect::<Result<_, _>>()?,
            ),
            Scalar::Map(m) => V::Map(
                m.iter()
                    .map(|(k, v)| {
                        Ok((unescape(k.name()).to_string(), self.constant(v, depth + 1)?))
                    })
                    .collect::<Result<_, _>>()?,
            ),
        })
    }

    /// Evaluates a validation clause with `$value` bound to `value` (typed
    /// by `schema`): `Some(true/false)`, or `None` when not decidable.
    pub fn eval_validation(
        &self,
        clause: DefNode<'a>,
        value: NodeRef<'_>,
        schema: &Schema<'a>,
    ) -> Option<bool> {
        let v13 = self.loaded.doc(clause.doc).grammar == Some(crate::load::Grammar::Tosca13);
        self.decide(clause, v13, value, schema)
    }

    /// [`Checker::eval_validation`] of a TOSCA 1.3 constraint clause (`v13`)
    /// or a TOSCA 2.0 validation clause, whatever the grammar of the file.
    pub fn decide(
        &self,
        clause: DefNode<'a>,
        v13: bool,
        value: NodeRef<'_>,
        schema: &Schema<'a>,
    ) -> Option<bool> {
        let bound = self.constant(value, 0).ok()?;
        let bound = self.typed(&bound, schema.ty).unwrap_or(bound);
        let env = Env {
            value: bound,
            ty: Some(schema.ty),
        };
        if v13 {
            return self.eval_constraints(clause.node, &env);
        }
        match self.eval(clause.node, &env, 0) {
            Ok(V::Bool(b)) => Some(b),
            _ => None,
        }
    }

    /// Evaluates a value or function call: constants as they are, calls of
    /// the built-in functions by their group (§10.2).
    fn eval(&self, n: NodeRef<'a>, env: &Env, depth: usize) -> R {
        if depth > MAX_NESTING * 4 {
            return Err(Stop::Unknown);
        }
        let (name, args) = match self.call_of_quiet(n) {
            Call::No => return self.constant(n, depth),
            Call::Malformed => return Err(Stop::Unknown),
            Call::Yes(name, args) => (name, args),
        };
        let list: SeqRef<'a> = super::funcs::arg_list(name, args).unwrap_or(SeqRef::EMPTY);
        let a = Args {
            c: self,
            list,
            env,
            depth,
        };
        match name {
            "value" => a.value_path(),
            "and" | "or" | "not" | "xor" => a.logic(name),
            "equal" | "greater_than" | "greater_or_equal" | "less_than" | "less_or_equal"
            | "valid_values" | "matches" => a.comparison(name),
            "has_suffix" | "has_prefix" | "contains" => a.affix(name),
            "has_entry" | "has_all_entries" | "has_any_entry" | "has_key" | "has_all_keys"
            | "has_any_key" => a.entries(name),
            "length" | "concat" | "join" | "token" => a.string_list(name),
            "union" | "intersection" => a.set(name),
            "sum" | "product" | "difference" | "quotient" | "remainder" => {
                arithmetic(name, &a.all()?).ok_or(Stop::Unknown)
            }
            "round" | "floor" | "ceil" => a.rounding(name),
            _ => Err(Stop::Unknown),
        }
    }

    /// Brings two compared values to one type: a string literal compared
    /// with a scalar, timestamp or version is read as one.
    fn pair(&self, a: V, b: V, env: &Env) -> (V, V) {
        let ty = match (&a, &b) {
            (V::Scalar(_, t), _) | (_, V::Scalar(_, t)) => Some(*t),
            (V::Time(_), _) | (_, V::Time(_)) | (V::Version(_), _) | (_, V::Version(_)) => env.ty,
            _ => None,
        };
        match ty {
            Some(t) => {
                let a2 = self.typed(&a, t).unwrap_or(a);
                let b2 = self.typed(&b, t).unwrap_or(b);
                (a2, b2)
            }
            None => (a, b),
        }
    }

    /// TOSCA 1.3 constraint clauses: a list of single-key maps, or simple
    /// scalar values, which mean `equal` (1.3 §3.6.3.3).
    fn eval_constraints(&self, clauses: NodeRef<'a>, env: &Env) -> Option<bool> {
        let list: Vec<NodeRef<'a>> = match clauses.as_seq() {
            Some(l) => l.iter().collect(),
            None => vec![clauses],
        };
        for c in list {
            let (op, _, arg) = super::data::clause_operator(c)?;
            let x = env.value.clone();
            let a = self.constant(arg, 0).ok()?;
            let ok = match op {
                "equal" => {
                    let (x, a) = self.pair(x, a, env);
                    equal(&x, &a)
                }
                "greater_than" | "greater_or_equal" | "less_than" | "less_or_equal" => {
                    let (x, a) = self.pair(x, a, env);
                    match (op, compare(&x, &a)?) {
                        ("greater_than", o) => o == Ordering::Greater,
                        ("greater_or_equal", o) => o != Ordering::Less,
                        ("less_than", o) => o == Ordering::Less,
                        (_, o) => o != Ordering::Greater,
                    }
                }
                "in_range" => {
                    let V::List(r) = a else { return None };
                    let (lo, hi) = (r.first()?.clone(), r.get(1)?.clone());
                    let (x1, lo) = self.pair(x.clone(), lo, env);
                    let lo_ok = compare(&x1, &lo)? != Ordering::Less;
                    let hi_ok = match &hi {
                        V::Str(s) if s == "UNBOUNDED" => true,
                        _ => {
                            let (x2, hi) = self.pair(x, hi, env);
                            compare(&x2, &hi)? != Ordering::Greater
                        }
                    };
                    lo_ok && hi_ok
                }
                "valid_values" => {
                    let V::List(opts) = a else { return None };
                    opts.into_iter().any(|o| {
                        let (x, o) = self.pair(x.clone(), o, env);
                        equal(&x, &o)
                    })
                }
                "length" | "min_length" | "max_length" => {
                    let len = match &x {
                        V::Str(s) => s.chars().count() as i64,
                        V::List(l) => l.len() as i64,
                        V::Map(m) => m.len() as i64,
                        _ => return None,
                    };
                    let V::Int(n) = a else { return None };
                    match op {
                        "length" => len == n,
                        "min_length" => len >= n,
                        _ => len <= n,
                    }
                }
                "pattern" => {
                    let (V::Str(s), V::Str(p)) = (&x, &a) else {
                        return None;
                    };
                    let re = regex_lite::Regex::new(&format!("^(?:{p})$")).ok()?;
                    re.is_match(s)
                }
                _ => return None,
            };
            if !ok {
                return Some(false);
            }
        }
        Some(true)
    }
}

/// The arguments of a built-in function call being evaluated, one method
/// per group of functions of §10.2.
struct Args<'c, 't, 'a> {
    c: &'c Checker<'t, 'a>,
    list: SeqRef<'a>,
    env: &'c Env,
    /// The depth of the call (its arguments are one deeper).
    depth: usize,
}

impl<'a> Args<'_, '_, 'a> {
    /// Argument `i`, evaluated.
    fn arg(&self, i: usize) -> R {
        let n = self.list.get(i).ok_or(Stop::Unknown)?;
        self.c.eval(n, self.env, self.depth + 1)
    }

    /// Every argument, evaluated.
    fn all(&self) -> Result<Vec<V>, Stop> {
        (0..self.list.len()).map(|i| self.arg(i)).collect()
    }

    /// Argument `i` as a Boolean.
    fn boolean(&self, i: usize) -> Result<bool, Stop> {
        match self.arg(i)? {
            V::Bool(b) => Ok(b),
            _ => Err(Stop::Unknown),
        }
    }

    /// `$value` with an optional path of keys and indices (§10.2.1.5).
    fn value_path(&self) -> R {
        let mut cur = self.env.value.clone();
        for i in 0..self.list.len() {
            let key = self.arg(i)?;
            cur = match (cur, key) {
                (V::Map(m), V::Str(k)) => m
                    .into_iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v)
                    .ok_or(Stop::Unknown)?,
                (V::List(l), V::Int(i)) if i >= 0 => {
                    l.into_iter().nth(i as usize).ok_or(Stop::Unknown)?
                }
                _ => return Err(Stop::Unknown),
            };
        }
        Ok(cur)
    }

    /// `$and`, `$or` (short-circuiting), `$not`, `$xor` (§10.2.2.1).
    fn logic(&self, name: &str) -> R {
        Ok(V::Bool(match name {
            "and" => {
                for i in 0..self.list.len() {
                    if !self.boolean(i)? {
                        return Ok(V::Bool(false));
                    }
                }
                true
            }
            "or" => {
                for i in 0..self.list.len() {
                    if self.boolean(i)? {
                        return Ok(V::Bool(true));
                    }
                }
                false
            }
            "not" => !self.boolean(0)?,
            _ => self.boolean(0)? != self.boolean(1)?,
        }))
    }

    /// The comparison functions (§10.2.2.2).
    fn comparison(&self, name: &str) -> R {
        let (c, env) = (self.c, self.env);
        Ok(V::Bool(match name {
            "equal" => {
                let (a, b) = c.pair(self.arg(0)?, self.arg(1)?, env);
                equal(&a, &b)
            }
            "valid_values" => {
                let a = self.arg(0)?;
                let V::List(options) = self.arg(1)? else {
                    return Err(Stop::Unknown);
                };
                options.into_iter().any(|o| {
                    let (x, y) = c.pair(a.clone(), o, env);
                    equal(&x, &y)
                })
            }
            "matches" => {
                let (V::Str(s), V::Str(p)) = (self.arg(0)?, self.arg(1)?) else {
                    return Err(Stop::Unknown);
                };
                let re = regex_lite::Regex::new(&p).map_err(|_| Stop::Unknown)?;
                re.is_match(&s)
            }
            _ => {
                let (a, b) = c.pair(self.arg(0)?, self.arg(1)?, env);
                match (name, compare(&a, &b)) {
                    (_, None) => false,
                    ("greater_than", Some(o)) => o == Ordering::Greater,
                    ("greater_or_equal", Some(o)) => o != Ordering::Less,
                    ("less_than", Some(o)) => o == Ordering::Less,
                    (_, Some(o)) => o != Ordering::Greater,
                }
            }
        }))
    }

    /// `$has_suffix`, `$has_prefix`, `$contains` on strings and lists
    /// (§10.2.2.3).
    fn affix(&self, name: &str) -> R {
        let r = match (self.arg(0)?, self.arg(1)?) {
            (V::Str(a), V::Str(b)) => match name {
                "has_suffix" => a.ends_with(&b),
                "has_prefix" => a.starts_with(&b),
                _ => a.contains(&b),
            },
            (V::List(a), V::List(b)) => match name {
                "has_suffix" => a.len() >= b.len() && list_eq(&a[a.len() - b.len()..], &b),
                "has_prefix" => a.len() >= b.len() && list_eq(&a[..b.len()], &b),
                _ => b.is_empty() || a.windows(b.len()).any(|w| list_eq(w, &b)),
            },
            _ => false,
        };
        Ok(V::Bool(r))
    }

    /// `$has_entry`, `$has_key` and their `all`/`any` forms (§10.2.2.3).
    fn entries(&self, name: &str) -> R {
        if name.ends_with("key") || name.ends_with("keys") {
            let V::Map(m) = self.arg(0)? else {
                return Ok(V::Bool(false));
            };
            let has = |x: &V| matches!(x, V::Str(s) if m.iter().any(|(k, _)| k == s));
            return Ok(V::Bool(match (name, self.arg(1)?) {
                ("has_key", x) => has(&x),
                ("has_all_keys", V::List(xs)) => xs.iter().all(has),
                ("has_any_key", V::List(xs)) => xs.iter().any(has),
                _ => false,
            }));
        }
        let entries: Vec<V> = match self.arg(0)? {
            V::List(l) => l,
            V::Map(m) => m.into_iter().map(|(_, v)| v).collect(),
            _ => return Ok(V::Bool(false)),
        };
        let has = |x: &V| entries.iter().any(|e| equal(e, x));
        Ok(V::Bool(match (name, self.arg(1)?) {
            ("has_entry", x) => has(&x),
            ("has_all_entries", V::List(xs)) => xs.iter().all(has),
            ("has_any_entry", V::List(xs)) => xs.iter().any(has),
            _ => false,
        }))
    }

    /// `$length`, `$concat`, `$join`, `$token` (§10.2.3).
    fn string_list(&self, name: &str) -> R {
        Ok(match name {
            "length" => match self.arg(0)? {
                V::Str(s) => V::Int(s.chars().count() as i64),
                V::List(l) => V::Int(l.len() as i64),
                V::Map(m) => V::Int(m.len() as i64),
                _ => return Err(Stop::Unknown),
            },
            "concat" => {
                let parts = self.all()?;
                if parts.iter().all(|p| matches!(p, V::List(_))) {
                    V::List(
                        parts
                            .into_iter()
                            .flat_map(|p| if let V::List(l) = p { l } else { Vec::new() })
                            .collect(),
                    )
                } else {
                    let mut s = String::new();
                    for p in parts {
                        s.push_str(&text(&p).ok_or(Stop::Unknown)?);
                    }
                    V::Str(s)
                }
            }
            "join" => {
                let V::List(items) = self.arg(0)? else {
                    return Err(Stop::Unknown);
                };
                let sep = if self.list.len() > 1 {
                    text(&self.arg(1)?).ok_or(Stop::Unknown)?
                } else {
                    String::new()
                };
                let parts: Option<Vec<String>> = items.iter().map(text).collect();
                V::Str(parts.ok_or(Stop::Unknown)?.join(&sep))
            }
            _ => {
                let (V::Str(s), V::Str(chars), V::Int(i)) =
                    (self.arg(0)?, self.arg(1)?, self.arg(2)?)
                else {
                    return Err(Stop::Unknown);
                };
                let token = s
                    .split(|c| chars.contains(c))
                    .filter(|t| !t.is_empty())
                    .nth(i.max(0) as usize);
                V::Str(token.ok_or(Stop::Unknown)?.to_string())
            }
        })
    }

    /// `$union` and `$intersection` (§10.2.4): entries without duplicates,
    /// in the order of their first occurrence.
    fn set(&self, name: &str) -> R {
        let lists = self.all()?;
        let first: Vec<V> = match lists.first() {
            Some(V::List(l)) => l.clone(),
            _ => return Err(Stop::Unknown),
        };
        let pool: Vec<V> = if name == "union" {
            lists
                .iter()
                .flat_map(|l| {
                    if let V::List(l) = l {
                        l.clone()
                    } else {
                        Vec::new()
                    }
                })
                .collect()
        } else {
            first
                .into_iter()
                .filter(|x| {
                    lists
                        .iter()
                        .all(|l| matches!(l, V::List(l) if l.iter().any(|y| equal(x, y))))
                })
                .collect()
        };
        let mut out: Vec<V> = Vec::new();
        for x in pool {
            if !out.iter().any(|y| equal(&x, y)) {
                out.push(x);
            }
        }
        Ok(V::List(out))
    }

    /// `$round` (ties round down, §10.2.5.6), `$floor`, `$ceil`.
    fn rounding(&self, name: &str) -> R {
        let x = match self.arg(0)? {
            V::Int(i) => i as f64,
            V::Float(f) => f,
            _ => return Err(Stop::Unknown),
        };
        let r = match name {
            "round" => {
                let f = x.floor();
                if x - f > 0.5 {
                    f + 1.0
                } else {
                    f
                }
            }
            "floor" => x.floor(),
            _ => x.ceil(),
        };
        Ok(V::Int(r as i64))
    }
}

/// The binding of `$value`.
struct Env {
    value: V,
    ty: Option<TypeId>,
}

/// `$$x` is the literal `$x` (§10.1).
fn unescape(s: &str) -> &str {
    if s.starts_with("$$") {
        &s[1..]
    } else {
        s
    }
}

fn text(v: &V) -> Option<String> {
    match v {
        V::Str(s) => Some(s.clone()),
        V::Int(i) => Some(i.to_string()),
        V::Float(f) => Some(v4t_yaml::number::format_js(*f)),
        V::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn list_eq(a: &[V], b: &[V]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| equal(x, y))
}

/// Equality of two values of the same type (numbers compare numerically).
pub fn equal(a: &V, b: &V) -> bool {
    match (a, b) {
        (V::Null, V::Null) => true,
        (V::Bool(x), V::Bool(y)) => x == y,
        (V::Str(x), V::Str(y)) => x == y,
        (V::List(x), V::List(y)) => list_eq(x, y),
        (V::Map(x), V::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().any(|(k2, v2)| k == k2 && equal(v, v2)))
        }
        (V::Time(x), V::Time(y)) => x == y,
        (V::Version(x), V::Version(y)) => x.partial_cmp(y) == Some(Ordering::Equal),
        _ => compare(a, b) == Some(Ordering::Equal),
    }
}

/// The order of two comparable values of the same type, `None` otherwise.
pub fn compare(a: &V, b: &V) -> Option<Ordering> {
    let num = |v: &V| match v {
        V::Int(i) => Some(*i as f64),
        V::Float(f) => Some(*f),
        _ => None,
    };
    match (a, b) {
        (V::Str(x), V::Str(y)) => Some(x.cmp(y)),
        (V::Scalar(x, _), V::Scalar(y, _)) => x.partial_cmp(y),
        (V::Time(x), V::Time(y)) => Some(x.cmp(y)),
        (V::Version(x), V::Version(y)) => x.partial_cmp(y),
        (V::Int(x), V::Int(y)) => Some(x.cmp(y)),
        _ => num(a)?.partial_cmp(&num(b)?),
    }
}

fn arithmetic(name: &str, nums: &[V]) -> Option<V> {
    let as_f = |v: &V| match v {
        V::Int(i) => Some(*i as f64),
        V::Float(f) => Some(*f),
        _ => None,
    };
    let all_int = nums.iter().all(|v| matches!(v, V::Int(_)));
    let scalar_ty = nums.iter().find_map(|v| {
        if let V::Scalar(_, t) = v {
            Some(*t)
        } else {
            None
        }
    });
    let f = |v: &V| match v {
        V::Scalar(x, _) => Some(*x),
        _ => as_f(v),
    };
    let values: Option<Vec<f64>> = nums.iter().map(f).collect();
    let values = values?;
    let result = match name {
        "sum" => values.iter().sum(),
        "product" => values.iter().product(),
        "difference" => values.first()? - values.get(1)?,
        "quotient" => {
            let d = *values.get(1)?;
            if d == 0.0 {
                return None;
            }
            let q = values.first()? / d;
            return Some(match scalar_ty {
                Some(t) => V::Scalar(q, t),
                None => V::Float(q),
            });
        }
        _ => {
            let (a, b) = (*values.first()?, *values.get(1)?);
            if b == 0.0 {
                return None;
            }
            a % b
        }
    };
    Some(match scalar_ty {
        Some(t) => V::Scalar(result, t),
        None if all_int && result.abs() < 9.2e18 => V::Int(result as i64),
        None => V::Float(result),
    })
}
