//! Values against their data types (§9.1, §9.2, §9.3): built-in types
//! without implicit coercion, scalars, timestamps, versions, bytes, lists
//! and maps with their entry and key schemas, complex data types with
//! their properties, and every validation clause that applies (the data
//! type's and its ancestors', the schema's and the definition's).

use crate::section::Section;
use v4t_source::Code;
use v4t_yaml::hash::ByName;
use v4t_yaml::{KeyRef, Node, NodeRef, SeqRef, Span, Value, ValueRef};

use super::defs::{DefNode, Schema, MAX_NESTING};
use super::funcs::{Call, Returns};
use super::literals::{is_base64, parse_timestamp, parse_version};
use super::Checker;
use crate::load::Grammar;
use crate::types::{Builtin, Kind, TypeId};
use crate::value::{self, Scalar};

impl<'t, 'a> Checker<'t, 'a> {
    /// Checks a value (possibly containing function calls) against a schema.
    pub fn check_value(&mut self, v: NodeRef<'a>, s: &Schema<'a>, section: Section) {
        self.value_at(v, s, section, 0, true);
    }

    /// Checks a value against a data type the grammar names (a built-in
    /// or normative type, such as a trigger's `schedule`, a
    /// `tosca.datatypes.TimeInterval`).
    pub fn check_value_of(&mut self, v: NodeRef<'a>, type_name: &str, section: Section) {
        if let Ok(ty) = self.ts.resolve_type(self.doc, Kind::Data, type_name) {
            self.check_value(v, &Schema::of_type(ty), section);
        }
    }

    /// Whether a value fits a schema, without reporting (signature matching).
    pub fn value_fits(&mut self, v: NodeRef<'a>, s: &Schema<'a>) -> bool {
        let before = self.diags.len();
        self.value_at(v, s, Section::FunctionDefinitions, 0, true);
        let fits = self.diags.len() == before;
        self.diags.truncate(before);
        fits
    }

    fn value_at(
        &mut self,
        v: NodeRef<'a>,
        s: &Schema<'a>,
        section: Section,
        depth: usize,
        validate: bool,
    ) {
        if depth > MAX_NESTING * 4 {
            self.error(
                Code::InvalidShape,
                section,
                v.span(),
                "value nested too deeply to validate",
            );
            return;
        }
        match self.call_of(v) {
            Call::Yes(name, args) => {
                let returns = self.call(name, args, v);
                self.check_returns(v, &returns, s);
                return;
            }
            Call::Malformed => return,
            Call::No => {}
        }
        if v.form().tag() == Some(v4t_yaml::Tag::Binary) {
            self.error(
                Code::TypeMismatch,
                Section::Bytes,
                v.span(),
                "YAML `!!binary` values are not TOSCA values",
            );
            self.note("write bytes as a Base64 string");
            return;
        }
        let ty = s.ty;
        let got = self.classify(v);
        let ok = match self.ts.builtin_base(ty) {
            None => self.complex_value(v, ty, section, depth),
            Some(Builtin::String) => {
                let fits = matches!(got, Scalar::Str(_))
                    || (self.v13() && matches!(got, Scalar::Timestamp));
                self.kind_fits(v, ty, fits, "a string")
            }
            Some(Builtin::Integer) => {
                self.kind_fits(v, ty, matches!(got, Scalar::Int(_)), "an integer")
            }
            // An integer is read as a float here, and only here (§9.1.1.3).
            Some(Builtin::Float) => {
                let fits = matches!(got, Scalar::Int(_) | Scalar::Float(_));
                self.kind_fits(v, ty, fits, "a float")
            }
            Some(Builtin::Boolean) => self.boolean_value(v, ty, got),
            Some(Builtin::Bytes) => self.bytes_value(v, ty, got),
            Some(Builtin::Nil) => self.kind_fits(v, ty, matches!(got, Scalar::Null), "null"),
            Some(Builtin::Timestamp) => self.timestamp_value(v, ty, got),
            Some(Builtin::Version) => self.version_value(v, ty, got),
            Some(Builtin::Scalar | Builtin::ScalarUnit(_)) => self.scalar_value(v, ty, got),
            Some(Builtin::List) => self.list_value(v, s, got, section, depth, validate),
            Some(Builtin::Map) => self.map_value(v, s, got, section, depth, validate),
            Some(Builtin::Range) => {
                // TOSCA 1.3 §3.3.3: integers, `UNBOUNDED` as the upper
                // bound, the lower bound not above the upper.
                let bound = |n: NodeRef<'_>| match self.classify(n) {
                    Scalar::Int(i) => Some(Some(i)),
                    Scalar::Str("UNBOUNDED") => Some(None),
                    _ => None,
                };
                let fits = match got {
                    Scalar::Seq(s) if s.len() == 2 => match (bound(s.at(0)), bound(s.at(1))) {
                        (Some(Some(lo)), Some(Some(hi))) => lo <= hi,
                        (Some(Some(_)), Some(None)) => true,
                        _ => false,
                    },
                    _ => false,
                };
                let expected = "a range `[min, max]` of integers with min <= max";
                self.kind_fits(v, ty, fits, expected)
            }
        };
        if ok && validate {
            self.validations(v, s);
        }
    }

    /// Whether a value of a built-in type is of the kind the type needs
    /// (`fits`); reports it as `expected` otherwise.
    fn kind_fits(&mut self, v: NodeRef<'a>, ty: TypeId, fits: bool, expected: &str) -> bool {
        if !fits {
            // The type only where it says more than `expected` does.
            let of_type = if self.ts.get(ty).builtin.is_some() {
                String::new()
            } else {
                format!(" (type `{}`)", self.type_name(ty))
            };
            let message = format!("expected {expected}{of_type}, got {}", self.got(v));
            self.error(Code::TypeMismatch, Section::BuiltInTypes, v.span(), message);
        }
        fits
    }

    /// A `boolean` (§9.1.1.4): TOSCA 2.0 spells it in lowercase.
    fn boolean_value(&mut self, v: NodeRef<'a>, ty: TypeId, got: Scalar<'a>) -> bool {
        if !matches!(got, Scalar::Bool(_)) {
            self.kind_fits(v, ty, false, "a boolean (`true` or `false`)");
            self.yaml11_boolean_note(v);
            return false;
        }
        if !self.v13() && value::bool_written_lowercase(self.written(v.span())) == Some(false) {
            self.error(
                Code::TypeMismatch,
                Section::Boolean,
                v.span(),
                "TOSCA booleans are written `true` or `false` (lowercase)",
            );
            return false;
        }
        true
    }

    /// `bytes` (§9.1.1.5): a Base64 string.
    fn bytes_value(&mut self, v: NodeRef<'a>, ty: TypeId, got: Scalar<'a>) -> bool {
        match got {
            Scalar::Str(st) if is_base64(st) => true,
            Scalar::Str(_) => {
                self.error(
                    Code::TypeMismatch,
                    Section::Bytes,
                    v.span(),
                    "bytes must be a Base64 string",
                );
                false
            }
            _ => self.kind_fits(v, ty, false, "a Base64 string"),
        }
    }

    /// A `timestamp` (§9.1.2.1): an RFC 3339 string (TOSCA 1.3 also takes
    /// YAML timestamps).
    fn timestamp_value(&mut self, v: NodeRef<'a>, ty: TypeId, got: Scalar<'a>) -> bool {
        match got {
            Scalar::Str(st) if parse_timestamp(st).is_some() => true,
            Scalar::Str(st) if self.v13() && yaml_timestamp(st) => true,
            Scalar::Timestamp if self.v13() => true,
            Scalar::Timestamp => {
                self.error(
                    Code::TypeMismatch,
                    Section::Timestamp,
                    v.span(),
                    "YAML `!!timestamp` values are not TOSCA values",
                );
                self.note("write timestamps as RFC 3339 strings");
                false
            }
            Scalar::Str(_) => {
                self.error(
                    Code::TypeMismatch,
                    Section::Timestamp,
                    v.span(),
                    format!("{} is not an RFC 3339 timestamp", value::show(v)),
                );
                false
            }
            _ => self.kind_fits(v, ty, false, "an RFC 3339 timestamp string"),
        }
    }

    /// A `version` (§9.1.2.3): `major.minor[.fix[.qualifier[-build]]]`
    /// (TOSCA 1.3 also takes numbers).
    fn version_value(&mut self, v: NodeRef<'a>, ty: TypeId, got: Scalar<'a>) -> bool {
        match got {
            Scalar::Str(st) if parse_version(st).is_some() => true,
            Scalar::Str(_) => {
                self.error(
                    Code::TypeMismatch,
                    Section::Version,
                    v.span(),
                    format!(
                        "{} is not a version (`major.minor[.fix[.qualifier[-build]]]`)",
                        value::show(v)
                    ),
                );
                false
            }
            Scalar::Int(_) | Scalar::Float(_) if self.v13() => true,
            _ => self.kind_fits(
                v,
                ty,
                false,
                "a version string (quote `major.minor` versions)",
            ),
        }
    }

    /// A `list` (§9.1.3.1): every entry against the entry schema.
    fn list_value(
        &mut self,
        v: NodeRef<'a>,
        s: &Schema<'a>,
        got: Scalar<'a>,
        section: Section,
        depth: usize,
        validate: bool,
    ) -> bool {
        let Scalar::Seq(items) = got else {
            return self.kind_fits(v, s.ty, false, "a list");
        };
        if let Some(entry) = self.entry_schema(s) {
            for (i, item) in items.iter().enumerate() {
                self.at_index(i, |c| {
                    c.value_at(item, &entry, section, depth + 1, validate)
                });
            }
        } else {
            for item in items {
                self.check_functions(item);
            }
        }
        true
    }

    /// A `map` (§9.1.3.2): string keys (or keys of the key schema), every
    /// entry against the entry schema.
    fn map_value(
        &mut self,
        v: NodeRef<'a>,
        s: &Schema<'a>,
        got: Scalar<'a>,
        section: Section,
        depth: usize,
        validate: bool,
    ) -> bool {
        let Scalar::Map(m) = got else {
            return self.kind_fits(v, s.ty, false, "a map");
        };
        let entry = self.entry_schema(s);
        let key = self.key_schema(s);
        for (k, item) in m.iter() {
            if self.key_call(k) {
                // A key computed when the function is
                // evaluated (§10.1): nothing to check now.
            } else if let Some(ks) = &key {
                self.map_key(k, ks, section);
            } else if !self.key_is_string(k) {
                let message = format!("map key `{}` must be a string (quote it)", k.name());
                self.error(Code::TypeMismatch, Section::Map, k.span(), message);
            }
            self.at(k.name(), |c| match &entry {
                Some(e) => c.value_at(item, e, section, depth + 1, validate),
                None => c.check_functions(item),
            });
        }
        true
    }

    /// A function's static result against the expected schema.
    fn check_returns(&mut self, v: NodeRef<'a>, r: &Returns<'a>, s: &Schema<'a>) {
        let got = match r {
            Returns::Unknown => return,
            Returns::Builtin(b) => *b,
            Returns::Schema(rs) => {
                if self.compatible(rs.ty, s.ty) {
                    return;
                }
                match self.ts.builtin_base(rs.ty) {
                    Some(b) => b,
                    None => {
                        let message = format!(
                            "the function returns `{}`, which is not compatible with `{}`",
                            self.type_name(rs.ty),
                            self.type_name(s.ty)
                        );
                        self.error(
                            Code::TypeMismatch,
                            Section::BuiltInFunctions,
                            v.span(),
                            message,
                        );
                        return;
                    }
                }
            }
        };
        let want = self.ts.builtin_base(s.ty);
        let ok = match (got, want) {
            (_, None) => !matches!(got, Builtin::Boolean | Builtin::String | Builtin::Integer),
            (g, Some(w)) if g == w => true,
            (Builtin::Integer, Some(Builtin::Float)) => true,
            (Builtin::String, Some(w)) => !matches!(
                w,
                Builtin::Integer
                    | Builtin::Float
                    | Builtin::Boolean
                    | Builtin::List
                    | Builtin::Map
                    | Builtin::Nil
            ),
            (_, Some(_)) => false,
        };
        if !ok {
            let message = format!(
                "the function returns {}, which does not fit type `{}`",
                builtin_noun(got),
                self.type_name(s.ty)
            );
            self.error(
                Code::TypeMismatch,
                Section::BuiltInFunctions,
                v.span(),
                message,
            );
        }
    }

    /// Whether values of type `a` can stand where type `b` is expected:
    /// `a` derives from `b`, or both are built on the same built-in type
    /// (an integer also fits a float).
    pub fn compatible(&self, a: TypeId, b: TypeId) -> bool {
        if self.ts.is_a(a, b) {
            return true;
        }
        match (self.ts.builtin_base(a), self.ts.builtin_base(b)) {
            (Some(x), Some(y)) => x == y || (x == Builtin::Integer && y == Builtin::Float),
            _ => false,
        }
    }

    /// A map key against the key schema (map keys are strings, §9.1.3.2).
    fn map_key(&mut self, k: KeyRef<'a>, ks: &Schema<'a>, section: Section) {
        let base = self.ts.builtin_base(ks.ty);
        let written_as_string = self.key_is_string(k);
        let fits = match base {
            Some(Builtin::String) => written_as_string,
            Some(Builtin::Integer) => !written_as_string && k.name().parse::<i64>().is_ok(),
            _ => true,
        };
        if !fits {
            let message = format!(
                "map key `{}` does not fit the key schema `{}`",
                k.name(),
                self.type_name(ks.ty)
            );
            self.error(Code::TypeMismatch, section, k.span(), message);
            return;
        }
        // Validation clauses of the key schema, on the key as a string.
        let key_node = Node::new(Value::String(k.name().to_string()), k.span());
        for clause in self.all_validations(ks) {
            if self.eval_validation(clause, NodeRef::from(&key_node), ks) == Some(false) {
                let message = format!(
                    "map key `{}` does not satisfy its key schema's validation",
                    k.name()
                );
                self.error(
                    Code::Validation,
                    Section::ValidationClause,
                    k.span(),
                    message,
                );
                return;
            }
        }
    }

    /// A complex data type value: a map of its properties (§9.2).
    fn complex_value(
        &mut self,
        v: NodeRef<'a>,
        ty: TypeId,
        section: Section,
        depth: usize,
    ) -> bool {
        let Scalar::Map(m) = self.classify(v) else {
            let message = format!(
                "expected a map of the properties of `{}`, got {}",
                self.type_name(ty),
                value::describe(v)
            );
            self.error(Code::TypeMismatch, Section::DataType, v.span(), message);
            return false;
        };
        let props = self.type_entries(ty, "properties");
        let props_by_name = ByName::new(&props);
        for (k, item) in m.iter() {
            match props_by_name.get(k.name()) {
                Some(p) => {
                    if p.fixed().is_some() {
                        self.error(
                            Code::Definition,
                            Section::PropertyAssignment,
                            k.span(),
                            format!(
                                "property `{}` of `{}` has a fixed value",
                                k.name(),
                                self.type_name(ty)
                            ),
                        );
                        continue;
                    }
                    if let Some(ps) = self.param_schema(p) {
                        self.at(k.name(), |c| {
                            c.value_at(item, &ps, section, depth + 1, true)
                        });
                    }
                }
                None => {
                    let message =
                        format!("`{}` has no property `{}`", self.type_name(ty), k.name());
                    let span = k.span();
                    if self.undefined_in(
                        ty,
                        Code::UndefinedReference,
                        Section::DataType,
                        span,
                        message,
                    ) {
                        self.defined_names(k.name(), props.iter().map(|(n, _)| *n), "property");
                    }
                }
            }
        }
        for (name, p) in &props {
            if p.required() && !m.contains_key(name) && p.default().is_none() && p.fixed().is_none()
            {
                let message = format!(
                    "required property `{name}` of `{}` has no value",
                    self.type_name(ty)
                );
                self.error(Code::MissingValue, Section::DataType, v.span(), message);
            }
        }
        true
    }

    /// A scalar value `<number> <unit>` of scalar type `ty` (§9.1.2.2).
    fn scalar_value(&mut self, v: NodeRef<'a>, ty: TypeId, got: Scalar<'a>) -> bool {
        let Scalar::Str(st) = got else {
            let message = format!(
                "a value of the scalar type `{}` is a string `<number> <unit>`, not {}",
                self.type_name(ty),
                value::describe(v)
            );
            self.error(Code::TypeMismatch, Section::Scalar, v.span(), message);
            return false;
        };
        let Some(info) = self.scalar_info(ty) else {
            return true;
        };
        let Some(lit) = info.literal(st) else {
            let message = format!(
                "{} is not a scalar `<number> <unit>` of `{}`",
                value::show(v),
                self.type_name(ty)
            );
            self.error(Code::TypeMismatch, Section::Scalar, v.span(), message);
            return false;
        };
        if info.multiplier(lit.unit).is_none() {
            let units: Vec<&str> = info.units.iter().map(|(u, _)| u.as_str()).collect();
            let message = format!(
                "unknown unit `{}` for the scalar type `{}` (units: {})",
                lit.unit,
                self.type_name(ty),
                units.join(", ")
            );
            self.error(Code::TypeMismatch, Section::Scalar, v.span(), message);
            return false;
        }
        // The number is a value of the scalar type's data type.
        let data_type = info.data_type;
        let integer = data_type.is_some_and(|d| self.ts.builtin_base(d) == Some(Builtin::Integer));
        if integer && !lit.integer {
            let message = format!(
                "the number of a `{}` scalar must be an integer",
                self.type_name(ty)
            );
            self.error(Code::TypeMismatch, Section::Scalar, v.span(), message);
            return false;
        }
        if let Some(d) = data_type {
            // Synthesized: its kind comes from the value, not from a source.
            let number = Node::new(Value::Number(lit.number), v4t_yaml::Span::NONE);
            let ds = Schema::of_type(d);
            for clause in self.all_validations(&ds) {
                if self.eval_validation(clause, NodeRef::from(&number), &ds) == Some(false) {
                    let message = format!(
                        "the number of {} does not satisfy the validation of `{}`",
                        value::show(v),
                        self.type_name(d)
                    );
                    self.error(Code::Validation, Section::Scalar, v.span(), message);
                    return false;
                }
            }
        }
        true
    }

    /// The validation clauses that apply to values of a schema: the data
    /// type's and its ancestors' (root-most first), then the schema's.
    pub fn all_validations(&self, s: &Schema<'a>) -> Vec<DefNode<'a>> {
        let mut out: Vec<DefNode<'a>> = Vec::new();
        for d in self.chain_defs(s.ty) {
            for key in ["validation", "constraints"] {
                if let Some(c) = d.node.get(key) {
                    out.push(DefNode {
                        node: c,
                        doc: d.doc,
                    });
                }
            }
        }
        out.extend(s.validations.iter().copied());
        out
    }

    /// The validation clauses (TOSCA 1.3: constraints) that apply to a
    /// value; the first that fails is reported, with a note at the clause.
    fn validations(&mut self, v: NodeRef<'a>, s: &Schema<'a>) {
        for clause in self.all_validations(s) {
            if self.eval_validation(clause, v, s) == Some(false) {
                let constraints = self.loaded.doc(clause.doc).grammar == Some(Grammar::Tosca13);
                let (what, at) = if constraints {
                    ("its constraints", "the constraints")
                } else {
                    ("its validation clause", "the validation clause")
                };
                let message = format!("{} does not satisfy {what}", value::show(v));
                self.error(
                    Code::Validation,
                    Section::ValidationClause,
                    v.span(),
                    message,
                );
                self.note_at(at, clause.node.span());
                return;
            }
        }
    }

    /// A validation clause (§9.11): a Boolean expression; comparisons of
    /// `$value` with a literal must be type-compatible with the value's type
    /// (§9.2).
    pub fn validation_clause(&mut self, v: NodeRef<'a>, s: Option<&Schema<'a>>) {
        if self.v13() {
            // 1.3 constraint clauses: a list of single-key operator maps.
            return;
        }
        match self.call_of(v) {
            Call::Yes(name, args) => {
                let r = self.call(name, args, v);
                if let Returns::Builtin(b) = r {
                    if b != Builtin::Boolean {
                        self.error(
                            Code::Validation,
                            Section::ValidationClause,
                            v.span(),
                            format!(
                                "a validation clause is a Boolean expression; `${name}` is not one"
                            ),
                        );
                    }
                }
                if let Some(s) = s {
                    self.comparison_types(v, s, 0);
                }
            }
            Call::Malformed => {}
            Call::No => {
                if !matches!(self.classify(v), Scalar::Bool(_)) {
                    self.error(
                        Code::Validation,
                        Section::ValidationClause,
                        v.span(),
                        "a validation clause must be a Boolean expression (a function call such as `$greater_or_equal`)",
                    );
                }
            }
        }
    }

    /// TOSCA 1.3 constraint clauses (1.3 §3.6.3): a list of single-key maps
    /// naming one of the operators, with operands of the operator's shape
    /// and, for primitive types, values of the constrained type ("values
    /// provided by the operands SHALL be type-compatible"). A single clause
    /// written without the list is accepted (lenient), and a simple scalar
    /// value without an operator is an `equal` clause (§3.6.3.3).
    pub fn constraint_clauses(&mut self, v: NodeRef<'a>, s: Option<&Schema<'a>>) {
        const SECTION: Section = Section::V13ConstraintClause;
        let clauses: SeqRef<'a> = match v.value() {
            ValueRef::Seq(items) => items,
            ValueRef::Map(_) => SeqRef::one(v),
            _ if is_scalar_clause(v) => SeqRef::one(v),
            _ => {
                let message = format!(
                    "`constraints` is a list of constraint clauses, not {}",
                    value::describe(v)
                );
                self.error(Code::Validation, SECTION, v.span(), message);
                return;
            }
        };
        let base = s.and_then(|s| self.ts.builtin_base(s.ty));
        // Operands are checked against built-in types only (a list's or
        // map's by their shape, without entry schemas): the clauses of
        // complex types are left to evaluation.
        let typed = s.filter(|_| base.is_some_and(|b| b != Builtin::Scalar));
        let constrained = s.map(|s| s.ty).zip(base);
        for (i, clause) in clauses.iter().enumerate() {
            self.at_index(i, |c| c.constraint_clause(clause, constrained, typed));
        }
    }

    /// One TOSCA 1.3 constraint clause (see [`Checker::constraint_clauses`])
    /// on values of the `constrained` type (with its built-in base).
    fn constraint_clause(
        &mut self,
        clause: NodeRef<'a>,
        constrained: Option<(TypeId, Builtin)>,
        typed: Option<&Schema<'a>>,
    ) {
        const SECTION: Section = Section::V13ConstraintClause;
        let Some((name, op_span, arg)) = clause_operator(clause) else {
            self.error(
                Code::Validation,
                SECTION,
                clause.span(),
                "a constraint clause is a map with one operator, e.g. `- greater_or_equal: 1`",
            );
            return;
        };
        if let Some((ty, base)) = constrained {
            if let Some(applies_to) = operator_value_types_13(name, base) {
                let message = format!(
                    "`{name}` constrains {applies_to}, not values of `{}`",
                    self.type_name(ty)
                );
                self.error(Code::Validation, SECTION, op_span, message);
                return;
            }
        }
        let operand = |c: &mut Self, n: NodeRef<'a>| {
            if let Some(s) = typed {
                if !matches!(c.call_of_quiet(n), Call::No) {
                    return;
                }
                let before = c.diags.len();
                c.value_at(n, &Schema::of_type(s.ty), SECTION, 0, false);
                if c.diags.len() > before {
                    c.note(format!(
                        "the operands of `{name}` must be values of the constrained type `{}`",
                        c.type_name(s.ty)
                    ));
                }
            }
        };
        let shape_error = |c: &mut Self, expected: &str| {
            let message = format!("`{name}` takes {expected}, not {}", value::describe(arg));
            c.error(Code::Validation, SECTION, arg.span(), message);
        };
        match name {
            "equal" | "greater_than" | "greater_or_equal" | "less_than" | "less_or_equal" => {
                operand(self, arg)
            }
            // The bounds of a range's range are integers (1.3 §3.3.3).
            "in_range" => match arg.as_seq().and_then(SeqRef::array) {
                Some([lo, hi]) if constrained.is_some_and(|(_, b)| b == Builtin::Range) => {
                    for bound in [lo, hi] {
                        let unbounded = bound.as_str() == Some("UNBOUNDED");
                        if !unbounded && !matches!(self.classify(bound), Scalar::Int(_)) {
                            let message = format!(
                                "the bounds of `in_range` on a range are integers or `UNBOUNDED`, not {} {}",
                                value::describe(bound),
                                value::show(bound)
                            );
                            self.error(Code::Validation, SECTION, bound.span(), message);
                        }
                    }
                }
                Some([lo, hi]) => {
                    operand(self, lo);
                    if hi.as_str() != Some("UNBOUNDED") {
                        operand(self, hi);
                    }
                }
                _ => shape_error(self, "a list of two values `[lower, upper]`"),
            },
            "valid_values" => match arg.as_seq() {
                Some(items) => {
                    for item in items {
                        operand(self, item);
                    }
                }
                None => shape_error(self, "a list of values"),
            },
            "length" | "min_length" | "max_length" => {
                if !matches!(self.classify(arg), Scalar::Int(n) if n >= 0) {
                    shape_error(self, "a non-negative integer");
                }
            }
            "pattern" => match arg.as_str().map(regex_lite::Regex::new) {
                Some(Err(e)) => {
                    // TOSCA names no regular expression grammar; look-around
                    // and backreferences (written in Python's, JavaScript's
                    // and Java's) are valid there, but `regex-lite` has none.
                    let why = e.to_string();
                    let unsupported = (why.strip_suffix(" is not supported"))
                        .or_else(|| why.strip_suffix(" are not supported"));
                    let shown = value::show(arg);
                    match unsupported {
                        Some(what) => {
                            let message = format!(
                                "`pattern` {shown} is not checked: v4t does not evaluate {what}"
                            );
                            self.warning(Code::Unsupported, SECTION, arg.span(), message);
                        }
                        None => {
                            let message =
                                format!("`pattern` {shown} is not a valid regular expression");
                            self.error(Code::Validation, SECTION, arg.span(), message);
                        }
                    }
                }
                Some(Ok(_)) => {}
                None => shape_error(self, "a regular expression string"),
            },
            // The schema language is the processor's choice (1.3 §3.6.3).
            "schema" => {}
            _ => {
                let message = format!("unknown constraint operator `{name}`");
                self.error(Code::Validation, SECTION, op_span, message);
                self.note("the operators are equal, greater_than, greater_or_equal, less_than, less_or_equal, in_range, valid_values, length, min_length, max_length, pattern and schema");
            }
        }
    }

    /// Comparisons between `$value` and a literal whose kind can never match
    /// the value's type (`$greater_or_equal: [ $value, 9 ]` on a string).
    fn comparison_types(&mut self, v: NodeRef<'a>, s: &Schema<'a>, depth: usize) {
        if depth > MAX_NESTING {
            return;
        }
        let Call::Yes(name, Some(args)) = self.call_of_quiet(v) else {
            return;
        };
        let Some(list) = args.as_seq() else { return };
        match name {
            "and" | "or" | "not" | "xor" => {
                for a in list {
                    self.comparison_types(a, s, depth + 1);
                }
            }
            "equal" | "greater_than" | "greater_or_equal" | "less_than" | "less_or_equal"
                if list.len() == 2 =>
            {
                let is_value = |c: &Self, n: NodeRef<'a>| match c.call_of_quiet(n) {
                    Call::Yes("value", a) => {
                        a.is_none_or(|a| a.is_null() || a.as_seq().is_some_and(SeqRef::is_empty))
                    }
                    _ => false,
                };
                let literal = if is_value(self, list.at(0)) {
                    list.at(1)
                } else if is_value(self, list.at(1)) {
                    list.at(0)
                } else {
                    return;
                };
                if !matches!(self.call_of_quiet(literal), Call::No) {
                    return;
                }
                let base = self.ts.builtin_base(s.ty);
                let lit = self.classify(literal);
                let numeric = matches!(lit, Scalar::Int(_) | Scalar::Float(_));
                let incompatible = match base {
                    Some(Builtin::String | Builtin::Timestamp | Builtin::Version) => numeric,
                    Some(Builtin::Integer | Builtin::Float) => {
                        matches!(lit, Scalar::Str(_) | Scalar::Bool(_))
                    }
                    Some(Builtin::Scalar | Builtin::ScalarUnit(_)) => match lit {
                        Scalar::Str(st) => {
                            let info = self.scalar_info(s.ty);
                            match info.as_ref().and_then(|i| Some((i, i.literal(st)?))) {
                                Some((i, p)) => i.multiplier(p.unit).is_none(),
                                None => true,
                            }
                        }
                        _ => numeric,
                    },
                    _ => false,
                };
                if incompatible {
                    let message = format!(
                        "`${name}` compares a value of type `{}` with {} {}",
                        self.type_name(s.ty),
                        value::describe(literal),
                        value::show(literal)
                    );
                    self.error(Code::Validation, Section::DataType, literal.span(), message);
                }
            }
            _ => {}
        }
    }
}

/// A timestamp as YAML 1.1 writes it (TOSCA 1.3 accepts these).
fn yaml_timestamp(s: &str) -> bool {
    v4t_yaml::timestamp::parse_yaml_timestamp(s).is_some()
}

fn builtin_noun(b: Builtin) -> &'static str {
    match b {
        Builtin::String => "a string",
        Builtin::Integer => "an integer",
        Builtin::Float => "a float",
        Builtin::Boolean => "a boolean",
        Builtin::List => "a list",
        Builtin::Map => "a map",
        _ => "a value",
    }
}

/// A TOSCA 1.3 constraint clause written as a simple scalar value, which
/// means `equal` to it (1.3 §3.6.3.3): not a collection, not null.
fn is_scalar_clause(clause: NodeRef<'_>) -> bool {
    !clause.is_null() && clause.as_map().is_none() && clause.as_seq().is_none()
}

/// What the values an operator constrains must be, where values of `base`
/// are not (1.3 §3.6.3.1, the "Value Type" column: "comparable" is integer,
/// float, timestamp, string, version and scalar-unit; `equal` and
/// `valid_values` take any).
fn operator_value_types_13(operator: &str, base: Builtin) -> Option<&'static str> {
    use Builtin::*;
    let comparable = matches!(
        base,
        Integer | Float | Timestamp | String | Version | ScalarUnit(_)
    );
    let (applies, types) = match operator {
        "greater_than" | "greater_or_equal" | "less_than" | "less_or_equal" => (
            comparable,
            "comparable values (integers, floats, timestamps, strings, versions, scalar-units)",
        ),
        "in_range" => (
            comparable || base == Range,
            "comparable values (integers, floats, timestamps, strings, versions, scalar-units) and ranges",
        ),
        "length" | "min_length" | "max_length" => {
            (matches!(base, String | List | Map), "strings, lists and maps")
        }
        "pattern" | "schema" => (base == String, "strings"),
        _ => (true, ""),
    };
    (!applies).then_some(types)
}

/// The operator of a TOSCA 1.3 constraint clause, where it is written, and
/// its operand: a map's one entry, or `equal` for a simple scalar value ("if
/// no operator is present for a simple scalar-value on a constraint clause,
/// it SHALL be interpreted as being equivalent to having the equal
/// operator", §3.6.3.3).
pub(crate) fn clause_operator(clause: NodeRef<'_>) -> Option<(&str, Span, NodeRef<'_>)> {
    match clause.as_map() {
        Some(m) if m.len() == 1 => m.first().map(|(op, arg)| (op.name(), op.span(), arg)),
        None if is_scalar_clause(clause) => Some(("equal", clause.span(), clause)),
        _ => None,
    }
}
