//! Logic mode: turns condition expressions into SAT literals (part 2, 4.2-4.6).
//!
//! Boolean and presence operators are encoded symbolically; everything else is
//! evaluated eagerly as a value expression and coerced to a constant (4.8).
//!
//! Variables live in per-kind tables indexed by typed ids ([`Literals`]):
//! presence and `manual.<id>` by [`ElementId`], named expressions by
//! [`ExprId`], free variables (terms that name nothing in the template) by
//! [`FreeId`]. A string term of a condition or constraint is parsed into
//! what it names ([`Term`]) once, where a free variable is also tagged with
//! the kind whose uniqueness check compares it. What differs between
//! resolving, the family problem and explanations is the encoder's [`Mode`].

use super::mode::{ElementRead, ExprId, Mode, NamedKey, Part, Requirement};
use crate::document;
use crate::error::{bail, Result};
use crate::graph::{Cond, Constraint, ElementId, Graph, Kind};
use crate::logic::{Arity, LogicOp};
use crate::types::TypeSystem;
use v4t_expr::Evaluator;
use v4t_sat::{Lit, LitTable, Solver};
use v4t_yaml::hash::SeededMap;
use v4t_yaml::json::{to_json, to_json_pretty};
use v4t_yaml::{Map, MapRef, Node, NodeRef, ValueRef};

/// The SAT problem under construction in mode `M`: the graph, the value
/// evaluator, the solver and the literal tables. The graph is borrowed for
/// its own lifetime `'g`, apart from the document's `'a`, so that resolving
/// can let go of it between encoding and solving ([`Encoder::detach`]).
pub(crate) struct Encoder<'a, 'g, M> {
    pub graph: &'g Graph,
    /// The template (a tree or a [`v4t_yaml::Doc`]): its variability
    /// section.
    pub doc: NodeRef<'a>,
    pub types: &'a TypeSystem<'a>,
    pub sat: Solver,
    pub eval: Evaluator<'a>,
    expressions: Option<MapRef<'a>>,
    lits: Literals,
    /// Elements by id: elements sharing an id share the variable it names.
    ids: IdIndex,
    /// Per element, once known: whether its presence condition resolves to
    /// itself ([`Graph::presence_resolves_to_self`]).
    presence_direct: Vec<Option<bool>>,
    /// Current nesting of logic expressions (bounded by [`MAX_LOGIC_DEPTH`]).
    depth: usize,
    /// What the mode adds (see [`super::mode`]).
    pub mode: M,
}

/// An [`Encoder`] that let go of its graph ([`Encoder::detach`]), so that
/// the graph can drop what only encoding reads before the solver runs.
pub(crate) struct Detached<'a, M> {
    doc: NodeRef<'a>,
    types: &'a TypeSystem<'a>,
    sat: Solver,
    eval: Evaluator<'a>,
    expressions: Option<MapRef<'a>>,
    lits: Literals,
    ids: IdIndex,
    presence_direct: Vec<Option<bool>>,
    depth: usize,
    mode: M,
}

impl<'a, M> Detached<'a, M> {
    /// The encoder again, on `graph`: the graph it was detached from, with
    /// the same elements.
    pub(crate) fn attach<'g>(self, graph: &'g Graph) -> Encoder<'a, 'g, M> {
        let Detached {
            doc,
            types,
            sat,
            eval,
            expressions,
            lits,
            ids,
            presence_direct,
            depth,
            mode,
        } = self;
        Encoder {
            graph,
            doc,
            types,
            sat,
            eval,
            expressions,
            lits,
            ids,
            presence_direct,
            depth,
            mode,
        }
    }
}

/// The variables of the problem, per kind.
struct Literals {
    /// Presence by [`ElementId`]: elements sharing an id share the first
    /// one's variable (see [`Encoder::presence`]).
    presence: LitTable,
    /// `manual.<id>` by [`ElementId`]: the conjunction of the element's
    /// manual conditions.
    manual: LitTable,
    /// By the first element with an id: whether the term `manual.<id>`
    /// names a literal yet (a term used it or [`Encoder::manual`] created
    /// it): the first element's `manual`, or its entry in `manual_shared`.
    manual_named: Vec<bool>,
    /// By the first element with an id: the `manual.<id>` variable another
    /// element with the id created last, which the term then names (ids are
    /// shared by few elements; usually empty).
    manual_shared: SeededMap<ElementId, Lit>,
    /// By [`ExprId`]: the variable of the term `expression.<name>` (grown
    /// on first use: few templates name expressions in terms).
    expression_term: Vec<Option<Lit>>,
    /// By [`ExprId`]: the named expression transformed without context
    /// (`Some(None)` while being transformed: cycle detection).
    named: Vec<Option<Option<Lit>>>,
    /// Named expressions that depend on the referencing element
    /// ([`context_dependent`]), per referencing element.
    named_in: SeededMap<(ExprId, ElementId), Option<Lit>>,
    /// A term named `expression.<name>` before the expression was
    /// transformed, so named expressions get the variables of their terms.
    expression_terms_used: bool,
    /// Free variables by [`FreeId`] (creation order).
    free: Vec<FreeVar>,
    /// The one place free variables are known by name: name → id.
    free_ids: SeededMap<Box<str>, FreeId>,
}

/// A free variable: a term that names nothing in the template, numbered in
/// order of first use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FreeId(u32);

/// A free variable's literal, and the kind whose uniqueness check compares
/// it ([`Encoder::unique_vars`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FreeVar {
    lit: Lit,
    kind: Option<Kind>,
}

impl Literals {
    fn new(elements: usize, expressions: usize) -> Literals {
        Literals {
            presence: LitTable::new(elements),
            manual: LitTable::new(elements),
            manual_named: vec![false; elements],
            manual_shared: SeededMap::default(),
            expression_term: Vec::new(),
            named: vec![None; expressions],
            named_in: SeededMap::default(),
            expression_terms_used: false,
            free: Vec::new(),
            free_ids: SeededMap::default(),
        }
    }

    /// The state of named expression `key`: `None` if not transformed
    /// yet, `Some(None)` while being transformed.
    fn named(&self, key: NamedKey) -> Option<Option<Lit>> {
        match key {
            (e, None) => self.named[e.0 as usize],
            (e, Some(c)) => self.named_in.get(&(e, c)).copied(),
        }
    }

    fn set_named(&mut self, key: NamedKey, state: Option<Lit>) {
        match key {
            (e, None) => self.named[e.0 as usize] = Some(state),
            (e, Some(c)) => {
                self.named_in.insert((e, c), state);
            }
        }
    }
}

/// What a string term of a condition or constraint names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Term {
    /// An element id: the presence of the first element with it.
    Presence(ElementId),
    /// `manual.<id>`: the manual conditions of the first element with the id.
    Manual(ElementId),
    /// `expression.<name>` of a named expression in `variability.expressions`.
    Expression(ExprId),
    /// Anything else: a free variable of that name.
    Free,
}

/// The deepest nesting of logic expressions that is encoded; deeper ones fail
/// with a clear error instead of overflowing the stack.
pub(super) const MAX_LOGIC_DEPTH: usize = 128;

impl<'a, 'g, M: Mode> Encoder<'a, 'g, M> {
    /// An encoder for `doc`'s variability input definitions and named
    /// expressions, with the assigned `inputs` and the clock `now_ms`, in
    /// the mode `mode` makes (it may create variables first).
    pub(crate) fn new(
        graph: &'g Graph,
        doc: impl Into<NodeRef<'a>>,
        types: &'a TypeSystem,
        inputs: Map,
        now_ms: f64,
        mode: impl FnOnce(&mut Solver) -> M,
    ) -> Self {
        let doc = doc.into();
        let variability = document::variability_of(doc);
        let section = |key: &str| {
            variability
                .and_then(|v| v.get(key))
                .and_then(NodeRef::as_map)
        };
        let expressions = section("expressions");
        let eval = Evaluator::reading(section("inputs"), expressions, inputs, now_ms);
        let mut sat = Solver::new();
        let mode = mode(&mut sat);
        let n = graph.elements().len();
        Encoder {
            graph,
            doc,
            types,
            sat,
            eval,
            expressions,
            lits: Literals::new(n, expressions.map_or(0, MapRef::len)),
            ids: IdIndex::new(graph),
            presence_direct: vec![None; n],
            depth: 0,
            mode,
        }
    }

    /// The encoder without its graph: everything it has built, which
    /// [`Detached::attach`] gives back to the same graph.
    pub(crate) fn detach(self) -> Detached<'a, M> {
        let Encoder {
            graph: _,
            doc,
            types,
            sat,
            eval,
            expressions,
            lits,
            ids,
            presence_direct,
            depth,
            mode,
        } = self;
        Detached {
            doc,
            types,
            sat,
            eval,
            expressions,
            lits,
            ids,
            presence_direct,
            depth,
            mode,
        }
    }

    /// The elements read since the last call (or the last part required),
    /// each once, when the mode records reads; afterwards reading starts anew.
    pub(crate) fn take_reads(&mut self) -> Vec<ElementRead> {
        self.mode.take_reads()
    }

    #[inline]
    fn record(&mut self, id: ElementId, manual: bool) {
        self.mode.record(ElementRead { id, manual });
    }

    /// Requires `r` for `part`, as the mode does.
    pub(crate) fn require(&mut self, r: Requirement<'_>, part: Part) {
        self.mode.require(&mut self.sat, r, part);
    }

    /// Requires the clause `lits` of `part`.
    pub(crate) fn require_clause(&mut self, lits: &[Lit], part: Part) {
        self.require(Requirement::Clause(lits), part);
    }

    /// Requires `l` for `part`.
    pub(crate) fn require_lit(&mut self, l: Lit, part: Part) {
        self.require(Requirement::Lit(l), part);
    }

    /// Requires at most one of `lits` for `part`.
    fn require_at_most_one(&mut self, lits: &[Lit], part: Part) {
        self.require(Requirement::AtMostOne(lits), part);
    }

    /// Defines `presence`, the literal of `id`, from its condition literals
    /// `all`, each with what it read (see [`Mode::define_presence`]).
    pub(crate) fn define_presence(
        &mut self,
        id: ElementId,
        presence: Lit,
        all: &mut Vec<Lit>,
        reads: Vec<Vec<ElementRead>>,
    ) {
        self.mode
            .define_presence(&mut self.sat, id, presence, all, reads);
    }

    /// What a string term names (see [`Term`]).
    fn parse_term(&mut self, name: &str) -> Term {
        if let Some(id) = self.ids.find(self.graph, name) {
            return Term::Presence(id);
        }
        if let Some(id) = name.strip_prefix("manual.") {
            if let Some(first) = self.ids.find(self.graph, id) {
                return Term::Manual(first);
            }
        }
        if let Some(expression) = name.strip_prefix("expression.") {
            if let Some((i, _)) = self.expressions.and_then(|m| m.get_full(expression)) {
                return Term::Expression(ExprId(i as u32));
            }
        }
        Term::Free
    }

    /// The variable a string term names, created on first use.
    pub(crate) fn var(&mut self, name: &str) -> Lit {
        match self.parse_term(name) {
            Term::Presence(id) => self.presence(id),
            Term::Manual(first) => self.manual_by_term(first),
            Term::Expression(e) => self.expression_term(e),
            Term::Free => self.free(name),
        }
    }

    /// The literal of the term `manual.<id>` (`first`: the first element
    /// with the id): that of [`Encoder::manual`], which usually exists
    /// without a term. Reading it is recorded until a term named it.
    fn manual_by_term(&mut self, first: ElementId) -> Lit {
        let at = first.0 as usize;
        if self.lits.manual_named[at] {
            let shared = (!self.lits.manual_shared.is_empty())
                .then(|| self.lits.manual_shared.get(&first).copied())
                .flatten();
            if let Some(l) = shared.or(self.lits.manual.get(at)) {
                return l;
            }
        }
        self.record(first, true);
        let l = match self.lits.manual.get(at) {
            Some(l) => l,
            None => {
                let l = self.sat.new_var();
                self.lits.manual.set(at, l);
                l
            }
        };
        self.lits.manual_named[at] = true;
        l
    }

    /// The variable of the term `expression.<name>`: the named expression's
    /// once transformed without context, else a variable of its own that
    /// the expression is then defined through.
    fn expression_term(&mut self, e: ExprId) -> Lit {
        if let Some(&Some(l)) = self.lits.expression_term.get(e.0 as usize) {
            return l;
        }
        if let Some(Some(l)) = self.lits.named[e.0 as usize] {
            return l;
        }
        self.lits.expression_terms_used = true;
        let l = self.sat.new_var();
        let at = e.0 as usize;
        if self.lits.expression_term.len() <= at {
            self.lits.expression_term.resize(at + 1, None);
        }
        self.lits.expression_term[at] = Some(l);
        l
    }

    /// The free variable `name`, created on first use.
    fn free(&mut self, name: &str) -> Lit {
        if let Some(&FreeId(i)) = self.lits.free_ids.get(name) {
            return self.lits.free[i as usize].lit;
        }
        let lit = self.sat.new_var();
        let id = FreeId(self.lits.free.len() as u32);
        self.lits.free_ids.insert(name.into(), id);
        self.lits.free.push(FreeVar {
            lit,
            kind: uniqueness_kind(name),
        });
        lit
    }

    /// The presence variable of an element, shared by the elements with its
    /// id (the variable a term naming the id stands for).
    pub(crate) fn presence(&mut self, id: ElementId) -> Lit {
        self.record(id, false);
        if let Some(l) = self.lits.presence.get(id.0 as usize) {
            return l;
        }
        let first = self.ids.first(id);
        let l = if first == id {
            self.sat.new_var()
        } else {
            self.presence(first)
        };
        self.lits.presence.set(id.0 as usize, l);
        l
    }

    /// The variables a uniqueness check over elements of `kind` compares
    /// (5.6): the presence of each distinct id of the kind, in element
    /// order, then the free variables tagged with the kind, in creation
    /// order (the reference checks every variable whose name starts with
    /// `node` or `technology`; see [`uniqueness_kind`]).
    pub(crate) fn unique_vars(&mut self, kind: Kind) -> Vec<Lit> {
        let graph = self.graph;
        let list = match kind {
            Kind::Type => graph.types(),
            Kind::Node => graph.nodes(),
            Kind::Relation => graph.relations(),
            Kind::Property => graph.properties(),
            Kind::Policy => graph.policies(),
            Kind::Group => graph.groups(),
            Kind::Input => graph.inputs(),
            Kind::Artifact => graph.artifacts(),
            Kind::Import => graph.imports(),
            Kind::Technology => graph.technologies(),
            Kind::Output => graph.outputs(),
        };
        let mut lits = Vec::with_capacity(list.len());
        for &e in list {
            if self.ids.first(e) == e {
                lits.push(self.presence(e));
            }
        }
        lits.extend(
            self.lits
                .free
                .iter()
                .filter(|v| v.kind == Some(kind))
                .map(|v| v.lit),
        );
        lits
    }

    /// The `manual.<id>` variable of an element.
    pub(crate) fn manual(&mut self, id: ElementId) -> Lit {
        self.record(id, true);
        if let Some(l) = self.lits.manual.get(id.0 as usize) {
            return l;
        }
        let l = self.sat.new_var();
        self.lits.manual.set(id.0 as usize, l);
        // Created as the variable `manual.<id>` names.
        let first = self.ids.first(id);
        self.lits.manual_named[first.0 as usize] = true;
        if first != id {
            self.lits.manual_shared.insert(first, l);
        } else if !self.lits.manual_shared.is_empty() {
            self.lits.manual_shared.remove(&first);
        }
        l
    }

    /// Defines `manual.<id>` as the conjunction of `lits` (5.2). Unless the
    /// variable was referenced already, the conjunction's own literal (often a
    /// constant) stands for it.
    pub(crate) fn define_manual(&mut self, id: ElementId, lits: &[Lit]) {
        match self.lits.manual.get(id.0 as usize) {
            Some(l) => self.sat.define_and(l, lits),
            None => {
                let l = self.sat.and(lits);
                self.lits.manual.set(id.0 as usize, l);
            }
        }
    }

    /// A string term: a variable name, `-name` negates it.
    fn term(&mut self, s: &str, n: NodeRef<'_>, in_list: bool) -> Result<Lit> {
        let (neg, name) = match s.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, s),
        };
        if name.starts_with('$') {
            bail!(n.span(), "Only generated variable names can start with $");
        }
        if name.is_empty() || looks_numeric(name) {
            if in_list {
                bail!(n.span(), "{s},$T is not an array of a Formula or Term");
            }
            bail!(n.span(), "\"{s}\" is not a Formula or Term");
        }
        let l = self.var(name);
        Ok(if neg { !l } else { l })
    }

    /// Transforms a logic expression with context element `ctx`.
    pub(crate) fn logic<'n>(
        &mut self,
        expr: impl Into<NodeRef<'n>>,
        ctx: Option<ElementId>,
    ) -> Result<Lit> {
        self.logic_in(expr.into(), ctx, false)
    }

    fn logic_list(&mut self, n: NodeRef<'_>, ctx: Option<ElementId>) -> Result<Vec<Lit>> {
        let Some(items) = n.as_seq() else {
            bail!(n.span(), "Element \"{}\" is not an array", to_json(n));
        };
        items.iter().map(|x| self.logic_in(x, ctx, true)).collect()
    }

    fn logic_in(
        &mut self,
        expr: NodeRef<'_>,
        ctx: Option<ElementId>,
        in_list: bool,
    ) -> Result<Lit> {
        self.nested(expr.span(), |enc| enc.logic_at_depth(expr, ctx, in_list))
    }

    /// Runs `f` one level of logic nesting deeper, or fails at `span` where
    /// that would pass [`MAX_LOGIC_DEPTH`].
    fn nested(
        &mut self,
        span: v4t_yaml::Span,
        f: impl FnOnce(&mut Self) -> Result<Lit>,
    ) -> Result<Lit> {
        if self.depth >= MAX_LOGIC_DEPTH {
            bail!(
                span,
                "Logic expression is nested too deeply (more than {MAX_LOGIC_DEPTH} levels)"
            );
        }
        self.depth += 1;
        let result = f(self);
        self.depth -= 1;
        result
    }

    fn logic_at_depth(
        &mut self,
        expr: NodeRef<'_>,
        ctx: Option<ElementId>,
        in_list: bool,
    ) -> Result<Lit> {
        match expr.value() {
            ValueRef::String(s) => return self.term(s, expr, in_list),
            ValueRef::Bool(b) => return Ok(self.sat.constant(b)),
            ValueRef::Map(m) => {
                if let Some((op, arg)) = LogicOp::of_map(m) {
                    return self.operator(op, arg, ctx);
                }
            }
            ValueRef::Null => bail!(expr.span(), "Received undefined condition"),
            _ => {}
        }
        self.mode.value_logic(expr, &mut self.sat, &mut self.eval)
    }

    /// Encodes a condition entry with context element `ctx` (the element
    /// whose list it is): YAML in logic mode, generated terms directly. Each
    /// term level counts as one level of nesting, like the map it stands for.
    pub(crate) fn cond(&mut self, c: &Cond, ctx: Option<ElementId>) -> Result<Lit> {
        self.cond_in(c, ctx, false)
    }

    fn cond_in(&mut self, c: &Cond, ctx: Option<ElementId>, in_list: bool) -> Result<Lit> {
        match c {
            Cond::Yaml(n) => return self.logic_in(NodeRef::Tree(n), ctx, in_list),
            // As `logic_in` encodes the map `w` stands for, without making it.
            Cond::Written(w) => {
                return self.nested(w.span, |enc| enc.operator(w.op, NodeRef::Tree(&w.arg), ctx))
            }
            // The generated map is its inner map with `_generated: true`.
            Cond::Generated(inner, _) => {
                return match &**inner {
                    // `_generated` is no logic key, but a value expression
                    // would see it: evaluate the YAML form as written.
                    Cond::Yaml(n)
                        if n.as_map().and_then(|m| LogicOp::of_map(m.into())).is_none() =>
                    {
                        let node = c.to_node(self.graph);
                        self.logic_in(NodeRef::Tree(&node), ctx, in_list)
                    }
                    inner => self.cond_in(inner, ctx, in_list),
                };
            }
            _ => {}
        }
        self.nested(v4t_yaml::Span::NONE, |enc| enc.cond_at_depth(c, ctx))
    }

    fn cond_at_depth(&mut self, c: &Cond, ctx: Option<ElementId>) -> Result<Lit> {
        let g = self.graph;
        Ok(match c {
            Cond::And(items) => {
                let l = self.cond_list(items, ctx)?;
                self.sat.and(&l)
            }
            Cond::Or(items) => {
                let l = self.cond_list(items, ctx)?;
                self.sat.or(&l)
            }
            Cond::Bratan(set) => {
                // `{not: {or: [...]}}`: the `or` is one level deeper.
                self.depth += 1;
                let mut lits = Vec::with_capacity(set.len());
                let mut result = Ok(());
                for &x in set {
                    match self.cond_in(&Cond::Presence(x), ctx, true) {
                        Ok(l) => lits.push(l),
                        Err(e) => {
                            result = Err(e);
                            break;
                        }
                    }
                }
                self.depth -= 1;
                result?;
                !self.sat.or(&lits)
            }
            Cond::Presence(id) => {
                if self.resolves_to_self(*id) {
                    self.presence(*id)
                } else if g.presence_is_false(*id) {
                    self.sat.constant(false)
                } else {
                    let node = g.presence_condition(*id);
                    self.depth -= 1;
                    let l = self.logic_in(NodeRef::Tree(&node), ctx, true);
                    self.depth += 1;
                    l?
                }
            }
            Cond::Op(op, id) => match self.op_target(*op, *id, ctx) {
                Some(n) => self.element_op(*op, n)?,
                None => {
                    let node = c.to_node(g);
                    self.depth -= 1;
                    let l = self.logic_in(NodeRef::Tree(&node), ctx, true);
                    self.depth += 1;
                    l?
                }
            },
            Cond::Yaml(_) | Cond::Written(_) | Cond::Generated(..) => {
                unreachable!("handled by cond_in")
            }
        })
    }

    fn cond_list(&mut self, items: &[Cond], ctx: Option<ElementId>) -> Result<Vec<Lit>> {
        items.iter().map(|x| self.cond_in(x, ctx, true)).collect()
    }

    /// Whether the presence condition of `id` is looked up as `id` (cached).
    fn resolves_to_self(&mut self, id: ElementId) -> bool {
        let graph = self.graph;
        *self.presence_direct[id.0 as usize]
            .get_or_insert_with(|| graph.presence_resolves_to_self(id))
    }

    /// The element the argument of `{op: ..}` generated for `id` resolves
    /// to in context `ctx`, when that is found without reading YAML.
    fn op_target(&self, op: LogicOp, id: ElementId, ctx: Option<ElementId>) -> Option<ElementId> {
        let g = self.graph;
        let e = g.get(id);
        let at = |list: &[ElementId]| list.get(e.index().unwrap_or(0) as usize).copied();
        match op {
            // `SELF` in the element's own context.
            LogicOp::HostPresence => (ctx == Some(id) && e.kind == Kind::Node).then_some(id),
            LogicOp::IsManaged => (ctx == Some(id) && e.kind == Kind::Artifact).then_some(id),
            LogicOp::IsConsumed => at(g.inputs()),
            LogicOp::IsProduced => at(g.outputs()),
            LogicOp::HasPresentTarget => at(g.policies()),
            LogicOp::HasPresentMember => g.group_by_own_name(id).then_some(id),
            _ => g.node_by_own_name(id).then_some(id),
        }
    }

    /// The operators about one element, once their argument is resolved to
    /// `n`: its presence, or a statement about its neighbours.
    fn element_op(&mut self, op: LogicOp, n: ElementId) -> Result<Lit> {
        let g = self.graph;
        Ok(match op {
            LogicOp::HostPresence => {
                let hosts: Vec<ElementId> = g
                    .get(n)
                    .outgoing()
                    .iter()
                    .filter(|&&r| g.get(r).hosting())
                    .filter_map(|&r| g.get(r).target())
                    .collect();
                self.or_of(&hosts)
            }
            LogicOp::HasSource => {
                let sources: Vec<ElementId> = g
                    .get(n)
                    .incoming()
                    .iter()
                    .filter_map(|&r| g.get(r).source())
                    .collect();
                self.or_of(&sources)
            }
            LogicOp::HasIncomingRelation | LogicOp::HasOutgoingRelation => {
                let incoming = op == LogicOp::HasIncomingRelation;
                let rels = if incoming {
                    g.get(n).incoming()
                } else {
                    g.get(n).outgoing()
                };
                let mut terms = Vec::with_capacity(rels.len());
                for &r in rels {
                    let other = if incoming {
                        g.get(r).source()
                    } else {
                        g.get(r).target()
                    };
                    let m = self.manual(r);
                    let o = match other {
                        Some(o) => self.presence(o),
                        None => self.sat.constant(false),
                    };
                    terms.push(self.sat.and(&[m, o]));
                }
                self.sat.or(&terms)
            }
            LogicOp::HasIncomingRelationNaive => self.or_of(g.get(n).incoming()),
            LogicOp::HasOutgoingRelationNaive => self.or_of(g.get(n).outgoing()),
            LogicOp::HasArtifact => {
                let lits: Vec<Lit> = g
                    .get(n)
                    .artifacts()
                    .iter()
                    .map(|&a| self.manual(a))
                    .collect();
                self.sat.or(&lits)
            }
            LogicOp::HasArtifactNaive => self.or_of(g.get(n).artifacts()),
            LogicOp::IsManaged => {
                let techs = g.managing_technologies(self.types, n)?;
                self.or_of(&techs)
            }
            LogicOp::HasPresentTarget => {
                let mut terms = Vec::new();
                for &t in g.get(n).targets() {
                    if g.get(t).kind == Kind::Group {
                        terms.push(self.or_of(g.get(t).members()));
                    } else {
                        terms.push(self.presence(t));
                    }
                }
                self.sat.or(&terms)
            }
            LogicOp::HasPresentMember => self.or_of(g.get(n).members()),
            LogicOp::IsConsumed => self.or_of(g.get(n).consumers()),
            LogicOp::IsProduced => self.or_of(g.get(n).producers()),
            _ => self.presence(n),
        })
    }

    fn or_of(&mut self, ids: &[ElementId]) -> Lit {
        let lits: Vec<Lit> = ids.iter().map(|&i| self.presence(i)).collect();
        self.sat.or(&lits)
    }

    /// Encodes `{op: arg}` with context element `ctx`.
    fn operator(&mut self, op: LogicOp, arg: NodeRef<'_>, ctx: Option<ElementId>) -> Result<Lit> {
        match op.arity() {
            Arity::Name => self.named_logic(arg, ctx),
            Arity::One => Ok(!self.logic(arg, ctx)?),
            Arity::Pair => {
                let (a, b) = self.implies_args(arg, ctx)?;
                Ok(self.sat.implies(a, b))
            }
            Arity::List => {
                let l = self.logic_list(arg, ctx)?;
                Ok(match op {
                    LogicOp::And => self.sat.and(&l),
                    LogicOp::Or => self.sat.or(&l),
                    LogicOp::Xor => self.sat.xor(&l),
                    LogicOp::Exo => self.sat.exactly_one(&l),
                    _ => self.sat.at_most_one(&l),
                })
            }
            Arity::Element => self.element_operator(op, arg, ctx),
        }
    }

    /// An operator about an element named by `arg` (4.4-4.6): the element
    /// is looked up in context `ctx`, then it is its presence or a
    /// statement about its neighbours ([`Encoder::element_op`]).
    fn element_operator(
        &mut self,
        op: LogicOp,
        arg: NodeRef<'_>,
        ctx: Option<ElementId>,
    ) -> Result<Lit> {
        use LogicOp as L;
        let g = self.graph;
        let about = match op {
            L::NodePresence
            | L::HostPresence
            | L::HasSource
            | L::HasIncomingRelation
            | L::HasOutgoingRelation
            | L::HasIncomingRelationNaive
            | L::HasOutgoingRelationNaive
            | L::HasArtifact
            | L::HasArtifactNaive => g.lookup_node(ctx, arg)?,
            L::RelationPresence | L::SourcePresence | L::TargetPresence => {
                g.lookup_relation(ctx, arg)?
            }
            L::ContainerPresence => match arg.as_str() {
                Some("SELF") => g.lookup_container(ctx, arg)?,
                Some("CONTAINER") => {
                    let c = g.lookup_container(ctx, arg)?;
                    g.lookup_container(Some(c), arg)?
                }
                _ => bail!(arg.span(), "Unexpected error"),
            },
            L::PolicyPresence | L::HasPresentTarget => g.lookup_policy(ctx, arg)?,
            L::GroupPresence | L::HasPresentMember => g.lookup_group(ctx, arg)?,
            L::ArtifactPresence | L::IsManaged => g.lookup_artifact(ctx, arg)?,
            L::InputPresence | L::IsConsumed => g.lookup_input_output(ctx, arg, Kind::Input)?,
            L::OutputPresence | L::IsProduced => g.lookup_input_output(ctx, arg, Kind::Output)?,
            L::ImportPresence => g.lookup_import(ctx, arg)?,
            L::TechnologyPresence => g.lookup_technology(ctx, arg)?,
            _ => self.member(op, arg, ctx)?,
        };
        match op {
            L::SourcePresence | L::TargetPresence => {
                let e = g.get(about);
                let end = if op == L::SourcePresence {
                    e.source()
                } else {
                    e.target()
                };
                Ok(match end {
                    Some(n) => self.presence(n),
                    None => self.sat.constant(false),
                })
            }
            _ => self.element_op(op, about),
        }
    }

    /// The property or type an `*_property_presence` or `*_type_presence`
    /// argument names: `[<container reference...>, <member name or index>]`.
    fn member(&self, op: LogicOp, arg: NodeRef<'_>, ctx: Option<ElementId>) -> Result<ElementId> {
        use LogicOp as L;
        let g = self.graph;
        let is_property = op.is_property_presence();
        let kind = if is_property {
            Kind::Property
        } else {
            Kind::Type
        };
        // Policies are referred to by index, so their property argument
        // lists differ.
        let is_policy_property = op == L::PolicyPropertyPresence;
        let list = Graph::check_args(arg, is_policy_property)?;
        let pair = || Node::seq(list.iter().take(2).map(NodeRef::to_node).collect());
        let first = list.at(0);
        let container = match op {
            L::NodePropertyPresence | L::NodeTypePresence => g.lookup_node(ctx, first)?,
            L::RelationPropertyPresence | L::RelationTypePresence => {
                g.lookup_relation(ctx, NodeRef::Tree(&pair()))?
            }
            L::GroupPropertyPresence | L::GroupTypePresence => g.lookup_group(ctx, first)?,
            L::PolicyPropertyPresence | L::PolicyTypePresence => g.lookup_policy(ctx, first)?,
            _ => g.lookup_artifact(ctx, NodeRef::Tree(&pair()))?,
        };
        // The fallback property of a name (5.3).
        let fallback = |p: ElementId| g.get(p).is_fallback();
        g.lookup_member(container, arg, kind, &fallback)
    }

    /// The two sides of `{implies: [a, b]}`.
    fn implies_args(&mut self, arg: NodeRef<'_>, ctx: Option<ElementId>) -> Result<(Lit, Lit)> {
        let Some(items) = arg.as_seq() else {
            bail!(arg.span(), "Element \"{}\" is not an array", to_json(arg));
        };
        let undefined = Node::null();
        let undefined = NodeRef::Tree(&undefined);
        let a = self.logic_in(items.first().unwrap_or(undefined), ctx, true)?;
        let b = self.logic_in(items.get(1).unwrap_or(undefined), ctx, true)?;
        Ok((a, b))
    }

    /// Requires a constraint, like `require(logic(expr))`: a top-level `amo`
    /// or `implies` becomes clauses directly instead of a gate variable
    /// (templates carry one such constraint per element group).
    pub(crate) fn require_logic<'n>(
        &mut self,
        expr: impl Into<NodeRef<'n>>,
        ctx: Option<ElementId>,
        part: Part,
    ) -> Result<()> {
        let expr = expr.into();
        let op = expr
            .as_map()
            .and_then(LogicOp::of_map)
            .filter(|(op, _)| matches!(op, LogicOp::Amo | LogicOp::Implies));
        let Some((op, arg)) = op.filter(|_| self.depth < MAX_LOGIC_DEPTH) else {
            let l = self.logic(expr, ctx)?;
            self.require_lit(l, part);
            return Ok(());
        };
        // One level of nesting, as `logic_in` counts for the operator.
        self.depth += 1;
        let result = if op == LogicOp::Amo {
            self.logic_list(arg, ctx)
                .map(|lits| self.require_at_most_one(&lits, part))
        } else {
            self.implies_args(arg, ctx)
                .map(|(a, b)| self.require_clause(&[!a, b], part))
        };
        self.depth -= 1;
        result
    }

    /// Requires a generated constraint: the clauses and variables
    /// [`Encoder::require_logic`] makes of its YAML form, without the YAML.
    pub(crate) fn require_constraint(&mut self, c: &Constraint, part: Part) {
        match c {
            Constraint::Amo(items) => {
                let lits = self.constraint_list(items);
                self.require_at_most_one(&lits, part);
            }
            Constraint::Requires(x, y) => {
                let (a, b) = (self.presence(*x), self.presence(*y));
                self.require_clause(&[!a, b], part);
            }
            Constraint::Implies(sides) => {
                let (a, b) = (self.constraint(&sides.0), self.constraint(&sides.1));
                self.require_clause(&[!a, b], part);
            }
            other => {
                let l = self.constraint(other);
                self.require_lit(l, part);
            }
        }
    }

    /// The literal of a generated constraint term (see [`Encoder::logic`]).
    fn constraint(&mut self, c: &Constraint) -> Lit {
        match c {
            // What the id names: the first element with it (see `presence`).
            Constraint::Var(x) => self.presence(*x),
            // As the term `manual.<id>` (the first element with the id).
            Constraint::Manual(x) => self.manual_by_term(self.ids.first(*x)),
            Constraint::And(items) => {
                let l = self.constraint_list(items);
                self.sat.and(&l)
            }
            Constraint::Or(items) => {
                let l = self.constraint_list(items);
                self.sat.or(&l)
            }
            Constraint::Exo(items) => {
                let l = self.constraint_list(items);
                self.sat.exactly_one(&l)
            }
            Constraint::Amo(items) => {
                let l = self.constraint_list(items);
                self.sat.at_most_one(&l)
            }
            Constraint::Requires(x, y) => {
                let (a, b) = (self.presence(*x), self.presence(*y));
                self.sat.implies(a, b)
            }
            Constraint::Implies(sides) => {
                let (a, b) = (self.constraint(&sides.0), self.constraint(&sides.1));
                self.sat.implies(a, b)
            }
        }
    }

    fn constraint_list(&mut self, items: &[Constraint]) -> Vec<Lit> {
        items.iter().map(|c| self.constraint(c)).collect()
    }

    /// `{logic_expression: NAME}`: the first use transforms the named expression
    /// with the referencing element's context; later uses share its variable.
    /// An expression that depends on the context (`SELF`, ...) is transformed
    /// once per referencing element (the reference binds it to its first user).
    fn named_logic(&mut self, arg: NodeRef<'_>, ctx: Option<ElementId>) -> Result<Lit> {
        let Some(name) = arg.as_str() else {
            bail!(arg.span(), "Element \"{}\" is not a string", to_json(arg));
        };
        let Some((position, expr)) = self
            .expressions
            .and_then(|m| m.get_full(name))
            .filter(|(_, n)| n.is_defined())
        else {
            bail!(arg.span(), "Did not find logic expression \"{name}\"");
        };
        if expr.as_str().is_some() {
            let shown = to_json_pretty(&Node::single("logic_expression", Node::string(name)));
            bail!(
                expr.span(),
                "Logic expression \"{shown}\" must not be a string"
            );
        }
        if let Some(b) = expr.as_bool() {
            return Ok(self.sat.constant(b));
        }
        // `Map::get_full` finds the first entry of a name, so its position
        // identifies the named expression.
        let e = ExprId(position as u32);
        // Transformed already without depending on the context, or for
        // this context.
        let mut key: NamedKey = (e, None);
        let mut found = self.lits.named(key);
        if found.is_none() {
            if let Some(c) = ctx.filter(|_| context_dependent(expr, 0)) {
                key = (e, Some(c));
                found = self.lits.named(key);
            }
        }
        match found {
            Some(Some(l)) => {
                self.mode.replay_named(key);
                return Ok(l);
            }
            // Still being transformed: the expression refers to itself.
            Some(None) => bail!(arg.span(), "Logic expression \"{name}\" is cyclic"),
            None => {}
        }
        self.lits.set_named(key, None);
        let mark = self.mode.reads_mark();
        let t = self.logic(expr, ctx)?;
        self.mode.remember_named(key, mark);
        let terms_used = self.lits.expression_terms_used;
        if !terms_used && self.sat.fixed(t).is_some() {
            // Decided (usually by the inputs): the constant names itself.
            self.lits.set_named(key, Some(t));
            return Ok(t);
        }
        // Defined through the variable of its term `expression.<name>` once
        // such terms are in use.
        let var = if terms_used && key.1.is_none() {
            self.expression_term(e)
        } else {
            self.sat.new_var()
        };
        self.sat.define_equal(var, t);
        self.lits.set_named(key, Some(var));
        Ok(var)
    }
}

#[cfg(test)]
impl<M> Encoder<'_, '_, M> {
    /// The variables terms named: `manual.<id>` per element, `expression.<name>`
    /// per named expression, and the free variables with their names.
    #[allow(clippy::type_complexity)]
    fn term_tables(&self) -> (Vec<Option<Lit>>, Vec<Option<Lit>>, Vec<(Box<str>, FreeVar)>) {
        let l = &self.lits;
        let mut free: Vec<(Box<str>, FreeVar)> = l
            .free_ids
            .iter()
            .map(|(name, &FreeId(i))| (name.clone(), l.free[i as usize]))
            .collect();
        free.sort_by_key(|(_, v)| v.lit);
        let manual = (0..l.manual.len())
            .map(|i| {
                let shared = l.manual_shared.get(&ElementId(i as u32)).copied();
                l.manual_named[i]
                    .then(|| shared.or(l.manual.get(i)))
                    .flatten()
            })
            .collect();
        (manual, l.expression_term.clone(), free)
    }
}

/// The kind whose uniqueness check compares a free variable: the kind
/// whose word starts its name (no kind's word starts another's).
fn uniqueness_kind(name: &str) -> Option<Kind> {
    Kind::ALL.into_iter().find(|k| name.starts_with(k.word()))
}

/// Whether a named logic expression may mean something else for each
/// element that uses it: it mentions `SELF`, `CONTAINER`, `SOURCE` or
/// `TARGET`, or another named expression (which might).
fn context_dependent(expr: NodeRef<'_>, depth: usize) -> bool {
    // Deeper than logic expressions may go: assume the worst.
    if depth > MAX_LOGIC_DEPTH {
        return true;
    }
    match expr.value() {
        ValueRef::String(s) => matches!(s, "SELF" | "CONTAINER" | "SOURCE" | "TARGET"),
        ValueRef::Map(m) => {
            m.contains_key("logic_expression")
                || m.iter().any(|(_, v)| context_dependent(v, depth + 1))
        }
        ValueRef::Seq(items) => items.iter().any(|v| context_dependent(v, depth + 1)),
        _ => false,
    }
}

/// Elements by id: which elements share an id with an earlier one, and
/// the table of ids, built when a string term first asks for an element by
/// id. Few templates write such terms, and on a large one the table would
/// be two fifths of the encoder's own tables through encoding (family 1
/// seed 100,000: 9.6 MB), so the one [`IdIndex::new`] builds to find the
/// shared ids goes before encoding starts.
struct IdIndex {
    /// Elements whose id an earlier element (in element order) has, with
    /// that first element; usually empty.
    shared: SeededMap<ElementId, ElementId>,
    /// The table, once [`IdIndex::find`] needed it.
    table: Option<IdTable>,
}

impl IdIndex {
    fn new(graph: &Graph) -> IdIndex {
        let (_, shared) = IdTable::build(graph);
        IdIndex {
            shared,
            table: None,
        }
    }

    /// The first element (in element order) with the id of `e`.
    fn first(&self, e: ElementId) -> ElementId {
        if self.shared.is_empty() {
            return e;
        }
        self.shared.get(&e).copied().unwrap_or(e)
    }

    /// The first element (in element order) whose id is `name`.
    fn find(&mut self, graph: &Graph, name: &str) -> Option<ElementId> {
        self.table
            .get_or_insert_with(|| IdTable::build(graph).0)
            .probe(graph, id_hash(name), name)
            .ok()
    }
}

/// Element ids without a table of strings: an open-addressing table of
/// (hash tag, element) pairs, eight bytes a slot, filled in element order;
/// strings are compared only where tags meet.
struct IdTable {
    /// `(tag, element)`, `EMPTY` elements for free slots; one slot per
    /// distinct id (its first element).
    slots: Vec<(u32, u32)>,
}

/// The element of a free slot.
const EMPTY: u32 = u32::MAX;

impl IdTable {
    /// The table of `graph`'s ids, and the elements whose id an earlier
    /// element has, with that first element.
    fn build(graph: &Graph) -> (IdTable, SeededMap<ElementId, ElementId>) {
        let n = graph.elements().len();
        let mut table = IdTable {
            // At most two thirds full: short probes. Exactly that many
            // slots, not the next power of two (up to a third more).
            slots: vec![(0, EMPTY); (n + n / 2).max(2)],
        };
        let mut shared = SeededMap::default();
        let mut id = String::new();
        for e in graph.ordered() {
            id.clear();
            graph.id(e).push_to(&mut id);
            let h = id_hash(&id);
            match table.probe(graph, h, &id) {
                Ok(first) => {
                    shared.insert(e, first);
                }
                Err(slot) => table.slots[slot] = (tag(h), e.0),
            }
        }
        (table, shared)
    }

    /// The first element with id `name` (`Ok`), or the free slot where it belongs.
    fn probe(&self, graph: &Graph, h: u64, name: &str) -> std::result::Result<ElementId, usize> {
        let len = self.slots.len();
        // The low half of the hash scaled to the table (the high half is the tag).
        let mut slot = (((h & 0xffff_ffff) * len as u64) >> 32) as usize;
        loop {
            match self.slots[slot] {
                (_, EMPTY) => return Err(slot),
                (t, e) if t == tag(h) && graph.id(ElementId(e)) == name => return Ok(ElementId(e)),
                _ => slot = if slot + 1 == len { 0 } else { slot + 1 },
            }
        }
    }
}

/// The bits of a hash not used for the slot position.
fn tag(h: u64) -> u32 {
    (h >> 32) as u32
}

/// The seeded hash of an id ([`v4t_yaml::hash`]: ids are the template's
/// names), with its high half folded into the low bits that pick the slot.
fn id_hash(id: &str) -> u64 {
    let x = v4t_yaml::hash::hash_str(id);
    x ^ (x >> 32)
}

/// Names logic-solver rejects as terms: those that parse as numbers.
fn looks_numeric(s: &str) -> bool {
    s.parse::<f64>().is_ok()
        && !s.eq_ignore_ascii_case("inf")
        && !s.eq_ignore_ascii_case("nan")
        && !s.eq_ignore_ascii_case("infinity")
}

#[cfg(test)]
mod index_tests {
    use super::*;
    use crate::solve::mode::Resolve;
    use crate::testing::build;
    use crate::testing::doc;
    use crate::testing::normalize;

    const TEMPLATE: &str = "
tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs:
      on: {type: boolean, default: true}
    expressions:
      e: {variability_input: on}
      f: {not: {logic_expression: e}}
  node_templates:
    y:
      type: t
      requirements: [{host: vm}]
      artifacts: {'z@0.node.x': {type: a, file: f}}
    vm: {type: t}
    'x@0.node.y':
      type: t
      artifacts: {z: {type: a, file: f}}
";

    fn with_encoder(f: impl FnOnce(&Graph, &mut Encoder<'_, '_, Resolve>)) {
        let mut d = doc(TEMPLATE);
        normalize(&mut d).expect("normalizes");
        let g = build(&d).expect("builds");
        let type_files = crate::testing::type_files(&d);
        let types = type_files.system();
        let mut enc = Encoder::new(&g, &d, &types, Map::new(), 0.0, |_| Resolve);
        f(&g, &mut enc);
    }

    /// A condition written as a map of one logic operator ([`Cond::Written`])
    /// encodes as its YAML form does: the same literal, or the same error at
    /// the same place, at every depth.
    #[test]
    fn written_conditions_encode_as_their_yaml() {
        let deep = format!(
            "{}{{logic_expression: e}}{}",
            "{not: ".repeat(127),
            "}".repeat(127)
        );
        let conditions = [
            "{logic_expression: e}",
            "{logic_expression: f}",
            "{not: {logic_expression: e}}",
            "{and: [{logic_expression: e}, {node_presence: vm}]}",
            "{or: []}",
            "{node_presence: vm}",
            "{host_presence: SELF}",
            "{logic_expression: missing}",
            "{logic_expression: [e]}",
            "{node_presence: nothing}",
            "{implies: [{logic_expression: e}, false]}",
            &deep,
        ];
        with_encoder(|g, enc| {
            let y = g.ordered().find(|&e| g.id(e) == "node.y").expect("y");
            for text in conditions {
                let n = doc(text);
                let written = Cond::yaml(n.clone());
                assert!(matches!(written, Cond::Written(_)), "{text}");
                let as_yaml = Cond::Yaml(Box::new(n));
                for depth in [0, 1, MAX_LOGIC_DEPTH] {
                    enc.depth = depth;
                    let a = enc.cond(&written, Some(y)).map_err(|e| format!("{e:?}"));
                    let b = enc.cond(&as_yaml, Some(y)).map_err(|e| format!("{e:?}"));
                    assert_eq!(a, b, "{text} at depth {depth}");
                }
                enc.depth = 0;
            }
        });
    }

    /// A condition read through a [`v4t_yaml::Doc`] encodes as the same
    /// condition read as a tree: the same literal, or the same error at
    /// the same place (operators, terms, value expressions, element
    /// lookups, named expressions).
    #[test]
    fn conditions_of_a_document_encode_as_trees_do() {
        let conditions = [
            "{logic_expression: e}",
            "{not: {logic_expression: f}}",
            "{and: [{node_presence: vm}, {variability_input: on}]}",
            "{or: [node.vm, -node.y]}",
            "{equal: [{variability_input: on}, true]}",
            "{implies: [{node_presence: y}, {host_presence: SELF}]}",
            "{amo: [node.y, node.vm]}",
            "{artifact_presence: [y, 'z@0.node.x']}",
            "{relation_presence: [y, 0]}",
            "{node_type_presence: [y, 0]}",
            "{logic_expression: missing}",
            "{node_presence: nothing}",
            "{relation_presence: [y, 5]}",
            "'$x'",
            "'1'",
            "{unknown_operator: 1}",
            "null",
            "[a, b]",
        ];
        with_encoder(|g, enc| {
            let y = g.ordered().find(|&e| g.id(e) == "node.y").expect("y");
            for text in conditions {
                let tree = doc(text);
                let read = crate::testing::read_doc(text);
                let a = enc.logic(&tree, Some(y)).map_err(|e| format!("{e:?}"));
                let b = enc
                    .logic(read.root(), Some(y))
                    .map_err(|e| format!("{e:?}"));
                assert_eq!(a, b, "{text}");
                assert_eq!(enc.depth, 0, "{text}");
            }
        });
    }

    /// Elements sharing an id (the two artifacts and their types) share one variable,
    /// and looking an id up finds its first element in element order.
    #[test]
    fn ids_find_their_first_element() {
        with_encoder(|g, enc| {
            let order: Vec<ElementId> = g.ordered().collect();
            for &e in &order {
                let id = g.id(e).to_string();
                let first = *order.iter().find(|&&x| g.id(x) == id).expect("self");
                assert_eq!(enc.ids.find(g, &id), Some(first), "{id}");
                assert_eq!(enc.ids.first(e), first, "{id}");
                assert_eq!(enc.presence(e), enc.presence(first), "{id}");
                assert_eq!(enc.var(&id), enc.presence(first), "{id}");
            }
            let shared = order
                .iter()
                .filter(|&&x| g.id(x) == "artifact.z@0.node.x@0.node.y")
                .count();
            assert_eq!(shared, 2);
            assert_eq!(enc.ids.find(g, "node.nothing"), None);
        });
    }

    /// The table of ids waits for a string term: presence variables and
    /// shared ids need none (the memory of a large encoding), the first
    /// term naming an element by id builds it.
    #[test]
    fn the_id_table_waits_for_a_string_term() {
        with_encoder(|g, enc| {
            assert!(enc.ids.table.is_none());
            assert_eq!(enc.ids.shared.len(), 2, "the artifact and its type");
            for e in g.ordered().collect::<Vec<_>>() {
                enc.presence(e);
            }
            assert!(enc.ids.table.is_none());
            let y = g.node("y").expect("y");
            assert_eq!(enc.var("node.y"), enc.presence(y));
            assert!(enc.ids.table.is_some());
        });
    }

    /// What a lookup finds does not depend on the order of lookups
    /// (forwards, backwards, interleaved, repeated, names that are no id,
    /// the last position).
    #[test]
    fn lookup_order_does_not_change_results() {
        with_encoder(|g, enc| {
            let order: Vec<ElementId> = g.ordered().collect();
            let want = |name: &str| order.iter().copied().find(|&x| g.id(x) == name);
            let mut names: Vec<String> = order.iter().map(|&e| g.id(e).to_string()).collect();
            names.extend(["", "node", "node.nothing", "manual.node.y"].map(String::from));
            let n = names.len();
            let mut sequence: Vec<usize> = (0..n).chain((0..n).rev()).collect();
            // Two interleaved forward walks, and each name twice in a row.
            sequence.extend((0..n).flat_map(|i| [i, (i + n / 2) % n]));
            sequence.extend((0..n).flat_map(|i| [i, i]));
            for i in sequence {
                assert_eq!(enc.ids.find(g, &names[i]), want(&names[i]), "{}", names[i]);
            }
        });
    }

    /// Constraint terms over every element (duplicate ids included) and
    /// their `manual.` variables, of each generated shape plus nested ones.
    fn constraint_fixture(g: &Graph) -> Vec<Constraint> {
        use Constraint::*;
        let order: Vec<ElementId> = g.ordered().collect();
        let mut out = vec![Amo(Constraint::vars(&order)), Or(Constraint::vars(&order))];
        for (i, &e) in order.iter().enumerate() {
            let next = order[(i + 1) % order.len()];
            out.push(Constraint::implies(Var(e), Var(next)));
            out.push(Constraint::implies(
                Var(e),
                Exo(Constraint::vars(&order[i..])),
            ));
            out.push(Constraint::implies(
                Var(e),
                Amo(Constraint::vars(&order[..i])),
            ));
            let or = Or(thin_vec::thin_vec![Manual(next), Manual(e)]);
            let left = And(thin_vec::thin_vec![Var(next), Manual(e), or]);
            out.push(Constraint::implies(left, Var(e)));
        }
        out
    }

    /// Requiring a term makes the same variables (names included), clauses
    /// and literals as requiring its YAML form.
    #[test]
    fn constraint_terms_encode_like_their_yaml() {
        let mut by_yaml = None;
        with_encoder(|g, enc| {
            let mut lits = Vec::new();
            for c in constraint_fixture(g) {
                enc.require_logic(&c.to_node(g), None, Part::Generated(0))
                    .expect("encodes");
                lits.push(enc.logic(&c.to_node(g), None).expect("encodes"));
            }
            let size = (enc.sat.num_vars(), enc.sat.num_clauses());
            by_yaml = Some((lits, enc.term_tables(), size));
        });
        let (lits, names, size) = by_yaml.expect("encoded");
        with_encoder(|g, enc| {
            let mut by_term = Vec::new();
            for c in constraint_fixture(g) {
                enc.require_constraint(&c, Part::Generated(0));
                by_term.push(enc.constraint(&c));
            }
            assert_eq!(by_term, lits);
            assert_eq!(enc.term_tables(), names);
            assert_eq!((enc.sat.num_vars(), enc.sat.num_clauses()), size);
        });
    }

    /// Terms parse into typed ids; a uniqueness check over nodes compares
    /// every distinct node id's presence, then the free variables whose
    /// name starts with `node`, and nothing else.
    #[test]
    fn terms_parse_into_typed_ids() {
        with_encoder(|g, enc| {
            let y = g.node("y").expect("y");
            assert_eq!(enc.parse_term("node.y"), Term::Presence(y));
            assert_eq!(enc.parse_term("manual.node.y"), Term::Manual(y));
            assert_eq!(enc.parse_term("expression.f"), Term::Expression(ExprId(1)));
            assert_eq!(enc.parse_term("expression.nothing"), Term::Free);
            assert_eq!(enc.parse_term("manual.node.nothing"), Term::Free);
            let free_node = enc.var("node_free");
            let other = enc.var("other");
            assert_eq!(enc.var("node_free"), free_node);
            let mut want: Vec<Lit> = g.nodes().iter().map(|&n| enc.presence(n)).collect();
            want.push(free_node);
            assert_eq!(want.len(), 4);
            assert_eq!(enc.unique_vars(Kind::Node), want);
            assert!(!enc.unique_vars(Kind::Technology).contains(&other));
            let tech = enc.var("technology_free");
            assert_eq!(enc.unique_vars(Kind::Technology), vec![tech]);
            assert_eq!(enc.unique_vars(Kind::Node), want);
            // `manual.<id>` as a term and as an element's literal are one.
            assert_eq!(enc.var("manual.node.y"), enc.manual(y));
        });
    }

    /// A free variable is tagged with at most one kind: no kind's word
    /// starts another's, so the first match is the only one.
    #[test]
    fn free_variables_have_one_uniqueness_kind() {
        for a in Kind::ALL {
            for b in Kind::ALL.into_iter().filter(|&b| b != a) {
                assert!(!b.word().starts_with(a.word()), "{a:?} {b:?}");
            }
            assert_eq!(uniqueness_kind(&format!("{}_x", a.word())), Some(a));
        }
        assert_eq!(uniqueness_kind("no"), None);
        assert_eq!(uniqueness_kind("manual.nothing"), None);
    }

    /// `expression.<name>` as a term is the variable of the named
    /// expression, whichever is encoded first.
    #[test]
    fn named_expression_variables_are_shared_with_terms() {
        with_encoder(|_, enc| {
            let f = enc.logic(&doc("{logic_expression: f}"), None).expect("f");
            assert_eq!(enc.var("expression.f"), f);
            assert_eq!(enc.var("expression.e"), enc.var("expression.e"));
            let term = enc.var("expression.e");
            let e = enc.logic(&doc("{logic_expression: e}"), None).expect("e");
            // `f` was transformed first and encoded `e` on the way.
            assert_eq!(term, e);
            let free = enc.var("expression.g");
            assert_eq!(enc.var("expression.g"), free);
        });
        // A term naming the expression before its first use: the
        // expression is then defined through that variable.
        with_encoder(|_, enc| {
            let term = enc.var("expression.e");
            let e = enc.logic(&doc("{logic_expression: e}"), None).expect("e");
            assert_eq!(term, e);
            assert_eq!(enc.sat.fixed(term), Some(true));
        });
    }
}
