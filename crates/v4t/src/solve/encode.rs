//! Logic mode: turns condition expressions into SAT literals (part 2, 4.2-4.6).
//!
//! Boolean and presence operators are encoded symbolically; everything else is
//! evaluated eagerly as a value expression and coerced to a constant (4.8).

use crate::document;
use crate::error::{bail, Error, Result};
use crate::graph::{Cond, Constraint, ElementId, Graph, Kind};
use crate::logic::{Arity, LogicOp};
use crate::types::TypeSystem;
use crate::version::Grammar;
use v4t_expr::Evaluator;
use v4t_sat::{Lit, Solver};
use v4t_yaml::hash::SeededMap;
use v4t_yaml::json::{to_json, to_json_pretty};
use v4t_yaml::{Map, Node, Value};

/// The SAT problem under construction: named variables, the graph and the
/// value evaluator.
pub(crate) struct Encoder<'a> {
    pub graph: &'a Graph,
    pub doc: &'a Node,
    pub types: &'a TypeSystem<'a>,
    pub sat: Solver,
    pub eval: Evaluator<'a>,
    expressions: Option<&'a Map>,
    /// Named variables other than presence variables: free variables,
    /// `manual.<id>` and `expression.<name>`.
    names: SeededMap<String, Lit>,
    /// The names of `names` in creation order (for prefixes).
    pub order: Vec<(String, Lit)>,
    /// Named logic expressions by the address of their definition in
    /// `variability.expressions` (no name hashing): `None` while being
    /// transformed (cycle detection), then their `expression.<name>` variable.
    /// Keyed also by the referencing element for expressions that depend
    /// on it ([`context_dependent`]).
    named_expressions: SeededMap<(usize, Option<u32>), Option<Lit>>,
    /// A free variable named `expression.<name>` exists in `names`, so the
    /// variable of a named expression must be looked up there.
    free_expression_names: bool,
    /// Presence variables by [`ElementId`]: the variable named by the element's
    /// id, found without a name table (see [`Encoder::presence`]).
    presence_lits: Vec<Option<Lit>>,
    manual_lits: Vec<Option<Lit>>,
    /// Elements by id: elements sharing an id share the variable it names.
    ids: IdIndex,
    /// Per element, once known: whether its presence condition resolves to
    /// itself ([`Graph::presence_resolves_to_self`]).
    presence_direct: Vec<Option<bool>>,
    /// Current nesting of logic expressions (bounded by [`MAX_LOGIC_DEPTH`]).
    depth: usize,
    /// Family mode ([`super::family`]): inputs are variables, and value
    /// expressions become literals over them instead of constants.
    pub(crate) family: Option<Box<super::family::FamilyInputs<'a>>>,
    /// Family mode: the declared `variability.constraints` are not
    /// required but collected, one literal per requirement with the index
    /// of its constraint, so that `analyze` tells the configurations they
    /// exclude from those that fail.
    pub(crate) declared: Option<Vec<(u32, Lit)>>,
    /// Explaining mode ([`super::explain`]): every requirement of a part
    /// holds only under that part's guard literal.
    pub(crate) guards: Option<Vec<Guard>>,
    /// Explaining mode: the elements read since the last part was
    /// required (see [`Encoder::take_reads`]).
    reads: Option<Vec<ElementRead>>,
    /// Explaining mode: what each named expression read when it was
    /// encoded (later uses share its variable and read the same).
    named_reads: SeededMap<(usize, Option<u32>), Vec<ElementRead>>,
}

/// A read of an element while encoding a part: its presence, or its
/// manual conditions (`manual.<id>`, which pruning conditions read).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ElementRead {
    pub id: ElementId,
    pub manual: bool,
}

/// A guarded part (explaining mode).
#[derive(Clone, Debug)]
pub(crate) struct Guard {
    /// The literal that switches the part on.
    pub lit: Lit,
    pub part: Part,
    /// The literal the part is about, where it has one (a condition's).
    pub about: Option<Lit>,
    /// The elements the part reads, each once, in order of first reading.
    pub reads: Vec<ElementRead>,
}

/// A part of the problem an explanation of "Could not solve" can name.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Part {
    /// A present element satisfies entry `index` of its condition list
    /// (`constant`: the entry's value where it does not depend on presence).
    Condition {
        id: ElementId,
        index: u32,
        constant: Option<bool>,
    },
    /// An element is present when all its conditions hold (always, if it
    /// has none).
    Presence(ElementId),
    /// Entry `index` of `variability.constraints`.
    Constraint(u32),
    /// Generated constraint `index` ([`Graph::constraints`]).
    Generated(u32),
    /// Entry `index` of the element's `implies`.
    Implies(ElementId, u32),
}

/// The deepest nesting of logic expressions that is encoded; deeper ones fail
/// with a clear error instead of overflowing the stack.
pub(super) const MAX_LOGIC_DEPTH: usize = 128;

impl<'a> Encoder<'a> {
    /// An encoder for `doc`'s variability input definitions and named
    /// expressions, with the assigned `inputs` and the clock `now_ms`.
    pub(crate) fn new(
        graph: &'a Graph,
        doc: &'a Node,
        types: &'a TypeSystem,
        inputs: Map,
        now_ms: f64,
    ) -> Self {
        let variability = document::variability(doc);
        let section = |key: &str| variability.and_then(|v| v.get(key)).and_then(Node::as_map);
        let expressions = section("expressions");
        let eval = Evaluator::new(section("inputs"), expressions, inputs, now_ms);
        Encoder {
            graph,
            doc,
            types,
            sat: Solver::new(),
            eval,
            expressions,
            names: SeededMap::default(),
            order: Vec::new(),
            named_expressions: SeededMap::default(),
            free_expression_names: false,
            presence_lits: vec![None; graph.elements().len()],
            manual_lits: vec![None; graph.elements().len()],
            ids: IdIndex::new(graph),
            presence_direct: vec![None; graph.elements().len()],
            depth: 0,
            family: None,
            declared: None,
            guards: None,
            reads: None,
            named_reads: SeededMap::default(),
        }
    }

    /// Switches explaining mode on: every part gets a guard literal.
    pub(crate) fn explaining(mut self) -> Self {
        self.guards = Some(Vec::new());
        self.reads = Some(Vec::new());
        self
    }

    /// Explaining mode: the elements read since the last call (or the last
    /// part required), each once; afterwards reading starts anew.
    pub(crate) fn take_reads(&mut self) -> Vec<ElementRead> {
        let Some(reads) = &mut self.reads else {
            return Vec::new();
        };
        let mut taken = std::mem::take(reads);
        first_reads(&mut taken);
        taken
    }

    fn record(&mut self, id: ElementId, manual: bool) {
        if let Some(reads) = &mut self.reads {
            reads.push(ElementRead { id, manual });
        }
    }

    /// Requires the clause `lits` of `part`; when explaining, only under a
    /// new guard literal of the part, which reads what was read since the
    /// last part.
    pub(crate) fn require_clause(&mut self, lits: &[Lit], part: Part) {
        if self.collect_declared(part, |sat| sat.or(lits)) {
            return;
        }
        if self.guards.is_none() {
            self.sat.add_clause(lits);
            return;
        }
        let reads = self.take_reads();
        self.require_guarded(lits, part, None, reads);
    }

    /// Explaining mode: requires the clause `lits` of `part` under a new
    /// guard literal, with what the part is about and reads.
    pub(crate) fn require_guarded(
        &mut self,
        lits: &[Lit],
        part: Part,
        about: Option<Lit>,
        reads: Vec<ElementRead>,
    ) {
        let guard = self.sat.new_var();
        let mut clause = Vec::with_capacity(lits.len() + 1);
        clause.push(!guard);
        clause.extend_from_slice(lits);
        self.sat.add_clause(&clause);
        if let Some(guards) = &mut self.guards {
            guards.push(Guard {
                lit: guard,
                part,
                about,
                reads,
            });
        }
    }

    /// Family mode: collects the requirement `lit` of a declared constraint
    /// instead of requiring it (see [`Encoder::declared`]); false if `part`
    /// is required as usual.
    fn collect_declared(&mut self, part: Part, lit: impl FnOnce(&mut Solver) -> Lit) -> bool {
        let (Part::Constraint(index), Some(declared)) = (part, self.declared.as_mut()) else {
            return false;
        };
        declared.push((index, lit(&mut self.sat)));
        true
    }

    /// Requires `l` for `part` (see [`Encoder::require_clause`]).
    pub(crate) fn require_lit(&mut self, l: Lit, part: Part) {
        if self.collect_declared(part, |_| l) {
            return;
        }
        match self.guards {
            None => self.sat.require(l),
            Some(_) => self.require_clause(&[l], part),
        }
    }

    /// Requires at most one of `lits` for `part`.
    fn require_at_most_one(&mut self, lits: &[Lit], part: Part) {
        if self.collect_declared(part, |sat| sat.at_most_one(lits)) {
            return;
        }
        match self.guards {
            None => self.sat.require_at_most_one(lits),
            Some(_) => {
                let l = self.sat.at_most_one(lits);
                self.require_clause(&[l], part);
            }
        }
    }

    /// The value of `l` if it is a constant.
    pub(crate) fn constant_of(&self, l: Lit) -> Option<bool> {
        let truth = self.sat.truth();
        (l == truth || l == !truth).then_some(l == truth)
    }

    /// The variable called `name`, created on first use.
    ///
    /// `manual.<id>` names the literal of [`Encoder::manual`], which usually
    /// exists without a name (see there).
    pub(crate) fn var(&mut self, name: &str) -> Lit {
        // Element ids never name anything in `names` (see `presence`), and
        // most terms are ids.
        if let Some(id) = self.ids.find(self.graph, name) {
            return self.presence(id);
        }
        if let Some(&l) = self.names.get(name) {
            return l;
        }
        if let Some(id) = self.manual_element(name) {
            self.record(id, true);
            if let Some(l) = self.manual_lits[id.0 as usize] {
                self.name(name, l);
                return l;
            }
            let l = self.new_named(name);
            self.manual_lits[id.0 as usize] = Some(l);
            return l;
        }
        if let Some(expression) = name.strip_prefix("expression.") {
            // The variable of a named expression transformed already.
            let key = self
                .expressions
                .and_then(|m| m.get(expression))
                .map(|n| std::ptr::from_ref(n) as usize);
            if let Some(&Some(l)) = key.and_then(|k| self.named_expressions.get(&(k, None))) {
                return l;
            }
            self.free_expression_names = true;
        }
        self.new_named(name)
    }

    fn new_named(&mut self, name: &str) -> Lit {
        let l = self.sat.new_var();
        self.name(name, l);
        l
    }

    fn name(&mut self, name: &str, l: Lit) {
        self.names.insert(name.to_string(), l);
        self.order.push((name.to_string(), l));
    }

    /// The element whose `manual.<id>` variable `name` is, if any.
    fn manual_element(&self, name: &str) -> Option<ElementId> {
        let id = name.strip_prefix("manual.")?;
        self.ids.find(self.graph, id)
    }

    /// The presence variable of an element: the variable named by its id.
    ///
    /// Element ids start with a kind word (`node.`, `relation.`, ...), so they
    /// never collide with `manual.` or `expression.` names, and [`Encoder::var`]
    /// resolves a term naming an element to this variable before looking for a
    /// free variable; presence variables therefore need no name table.
    pub(crate) fn presence(&mut self, id: ElementId) -> Lit {
        self.record(id, false);
        if let Some(l) = self.presence_lits[id.0 as usize] {
            return l;
        }
        let first = self.ids.first[id.0 as usize];
        let l = if first == id {
            self.sat.new_var()
        } else {
            self.presence(first)
        };
        self.presence_lits[id.0 as usize] = Some(l);
        l
    }

    /// The presence variables of the elements whose id starts with `prefix`,
    /// followed by the other named variables whose name does (element order,
    /// then creation order; each variable once). Named expression variables
    /// are only listed if a term named them (no caller asks for them).
    pub(crate) fn vars_with_prefix(&mut self, prefix: &str) -> Vec<Lit> {
        let graph = self.graph;
        let mut lits = Vec::new();
        let lists: [&[ElementId]; 11] = [
            graph.types(),
            graph.nodes(),
            graph.relations(),
            graph.properties(),
            graph.policies(),
            graph.groups(),
            graph.inputs(),
            graph.artifacts(),
            graph.imports(),
            graph.technologies(),
            graph.outputs(),
        ];
        for list in lists {
            // Ids are `<kind word>.<rest>`: the word alone often decides
            // (not among TOSCA 2.0 properties, where attributes have their
            // own word).
            let Some(&head) = list.first() else { continue };
            if graph.grammar() == Grammar::Tosca2 && std::ptr::eq(list, graph.properties()) {
                for &e in list {
                    if self.ids.first[e.0 as usize] == e && graph.id(e).starts_with(prefix) {
                        lits.push(self.presence(e));
                    }
                }
                continue;
            }
            let word = graph.get(head).kind.word();
            let every = if prefix.len() <= word.len() {
                if !word.starts_with(prefix) {
                    continue;
                }
                true
            } else if prefix.starts_with(word) && prefix.as_bytes()[word.len()] == b'.' {
                false
            } else {
                continue;
            };
            for &e in list {
                let first = self.ids.first[e.0 as usize] == e;
                if first && (every || graph.id(e).starts_with(prefix)) {
                    lits.push(self.presence(e));
                }
            }
        }
        lits.extend(
            self.order
                .iter()
                .filter(|(n, _)| n.starts_with(prefix))
                .map(|(_, l)| *l),
        );
        lits
    }

    /// The `manual.<id>` variable of an element.
    pub(crate) fn manual(&mut self, id: ElementId) -> Lit {
        self.record(id, true);
        if let Some(l) = self.manual_lits[id.0 as usize] {
            return l;
        }
        let name = format!("manual.{}", self.graph.id(id));
        let l = self.new_named(&name);
        self.manual_lits[id.0 as usize] = Some(l);
        l
    }

    /// Defines `manual.<id>` as the conjunction of `lits` (5.2). Unless the
    /// variable was referenced already, the conjunction's own literal (often a
    /// constant) stands for it, unnamed: [`Encoder::var`] finds it by name.
    pub(crate) fn define_manual(&mut self, id: ElementId, lits: &[Lit]) {
        match self.manual_lits[id.0 as usize] {
            Some(l) => self.sat.define_and(l, lits),
            None => {
                let l = self.sat.and(lits);
                self.manual_lits[id.0 as usize] = Some(l);
            }
        }
    }

    /// A string term: a variable name, `-name` negates it.
    fn term(&mut self, s: &str, n: &Node, in_list: bool) -> Result<Lit> {
        let (neg, name) = match s.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, s),
        };
        if name.starts_with('$') {
            bail!(n.span, "Only generated variable names can start with $");
        }
        if name.is_empty() || looks_numeric(name) {
            if in_list {
                bail!(n.span, "{s},$T is not an array of a Formula or Term");
            }
            bail!(n.span, "\"{s}\" is not a Formula or Term");
        }
        let l = self.var(name);
        Ok(if neg { !l } else { l })
    }

    /// Transforms a logic expression with context element `ctx`.
    pub(crate) fn logic(&mut self, expr: &Node, ctx: Option<ElementId>) -> Result<Lit> {
        self.logic_in(expr, ctx, false)
    }

    fn logic_list(&mut self, n: &Node, ctx: Option<ElementId>) -> Result<Vec<Lit>> {
        let Some(items) = n.as_seq() else {
            bail!(n.span, "Element \"{}\" is not an array", to_json(n));
        };
        items.iter().map(|x| self.logic_in(x, ctx, true)).collect()
    }

    fn logic_in(&mut self, expr: &Node, ctx: Option<ElementId>, in_list: bool) -> Result<Lit> {
        if self.depth >= MAX_LOGIC_DEPTH {
            bail!(
                expr.span,
                "Logic expression is nested too deeply (more than {MAX_LOGIC_DEPTH} levels)"
            );
        }
        self.depth += 1;
        let result = self.logic_at_depth(expr, ctx, in_list);
        self.depth -= 1;
        result
    }

    fn logic_at_depth(
        &mut self,
        expr: &Node,
        ctx: Option<ElementId>,
        in_list: bool,
    ) -> Result<Lit> {
        match &expr.value {
            Value::String(s) => return self.term(s, expr, in_list),
            Value::Bool(b) => return Ok(self.sat.constant(*b)),
            Value::Map(m) => {
                if let Some((op, arg)) = LogicOp::of_map(m) {
                    return self.operator(op, arg, ctx);
                }
            }
            Value::Null => bail!(expr.span, "Received undefined condition"),
            _ => {}
        }
        if let Some(family) = &mut self.family {
            return family.encode(expr, &mut self.sat);
        }
        let b = self
            .eval
            .evaluate_as_logic(expr)
            .map_err(|e| Error::from_eval(e, true))?;
        Ok(self.sat.constant(b))
    }

    /// Encodes a condition entry with context element `ctx` (the element
    /// whose list it is): YAML in logic mode, generated terms directly. Each
    /// term level counts as one level of nesting, like the map it stands for.
    pub(crate) fn cond(&mut self, c: &Cond, ctx: Option<ElementId>) -> Result<Lit> {
        self.cond_in(c, ctx, false)
    }

    fn cond_in(&mut self, c: &Cond, ctx: Option<ElementId>, in_list: bool) -> Result<Lit> {
        match c {
            Cond::Yaml(n) => return self.logic_in(n, ctx, in_list),
            // The generated map is its inner map with `_generated: true`.
            Cond::Generated(inner, _) => {
                return match &**inner {
                    // `_generated` is no logic key, but a value expression
                    // would see it: evaluate the YAML form as written.
                    Cond::Yaml(n) if n.as_map().and_then(LogicOp::of_map).is_none() => {
                        let node = c.to_node(self.graph);
                        self.logic_in(&node, ctx, in_list)
                    }
                    inner => self.cond_in(inner, ctx, in_list),
                };
            }
            _ => {}
        }
        if self.depth >= MAX_LOGIC_DEPTH {
            bail!(
                v4t_yaml::Span::NONE,
                "Logic expression is nested too deeply (more than {MAX_LOGIC_DEPTH} levels)"
            );
        }
        self.depth += 1;
        let result = self.cond_at_depth(c, ctx);
        self.depth -= 1;
        result
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
                    let l = self.logic_in(&node, ctx, true);
                    self.depth += 1;
                    l?
                }
            }
            Cond::Op(op, id) => match self.op_target(*op, *id, ctx) {
                Some(n) => self.element_op(*op, n)?,
                None => {
                    let node = c.to_node(g);
                    self.depth -= 1;
                    let l = self.logic_in(&node, ctx, true);
                    self.depth += 1;
                    l?
                }
            },
            Cond::Yaml(_) | Cond::Generated(..) => unreachable!("handled by cond_in"),
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
        let at = |list: &[ElementId]| list.get(e.index.unwrap_or(0) as usize).copied();
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
                let techs = g.managing_technologies(self.types, self.doc, n)?;
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
    fn operator(&mut self, op: LogicOp, arg: &Node, ctx: Option<ElementId>) -> Result<Lit> {
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
    fn element_operator(&mut self, op: LogicOp, arg: &Node, ctx: Option<ElementId>) -> Result<Lit> {
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
                _ => bail!(arg.span, "Unexpected error"),
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
    fn member(&self, op: LogicOp, arg: &Node, ctx: Option<ElementId>) -> Result<ElementId> {
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
        let pair = || Node::seq(list.iter().take(2).cloned().collect());
        let container = match op {
            L::NodePropertyPresence | L::NodeTypePresence => g.lookup_node(ctx, &list[0])?,
            L::RelationPropertyPresence | L::RelationTypePresence => {
                g.lookup_relation(ctx, &pair())?
            }
            L::GroupPropertyPresence | L::GroupTypePresence => g.lookup_group(ctx, &list[0])?,
            L::PolicyPropertyPresence | L::PolicyTypePresence => g.lookup_policy(ctx, &list[0])?,
            _ => g.lookup_artifact(ctx, &pair())?,
        };
        // The fallback property of a name (5.3).
        let fallback = |p: ElementId| g.get(p).fallback;
        g.lookup_member(container, arg, kind, &fallback)
    }

    /// The two sides of `{implies: [a, b]}`.
    fn implies_args(&mut self, arg: &Node, ctx: Option<ElementId>) -> Result<(Lit, Lit)> {
        let Some(items) = arg.as_seq() else {
            bail!(arg.span, "Element \"{}\" is not an array", to_json(arg));
        };
        let undefined = Node::null();
        let a = self.logic_in(items.first().unwrap_or(&undefined), ctx, true)?;
        let b = self.logic_in(items.get(1).unwrap_or(&undefined), ctx, true)?;
        Ok((a, b))
    }

    /// Requires a constraint, like `require(logic(expr))`: a top-level `amo`
    /// or `implies` becomes clauses directly instead of a gate variable
    /// (templates carry one such constraint per element group).
    pub(crate) fn require_logic(
        &mut self,
        expr: &Node,
        ctx: Option<ElementId>,
        part: Part,
    ) -> Result<()> {
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
            Constraint::Implies(a, b) => {
                let (a, b) = (self.constraint(a), self.constraint(b));
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
            // Rare next to ids; by name, as `manual.<id>` may already be named.
            Constraint::Manual(x) => {
                let name = format!("manual.{}", self.graph.id(*x));
                self.var(&name)
            }
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
            Constraint::Implies(a, b) => {
                let (a, b) = (self.constraint(a), self.constraint(b));
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
    fn named_logic(&mut self, arg: &Node, ctx: Option<ElementId>) -> Result<Lit> {
        let Some(name) = arg.as_str() else {
            bail!(arg.span, "Element \"{}\" is not a string", to_json(arg));
        };
        let Some(expr) = self
            .expressions
            .and_then(|m| m.get(name))
            .filter(|n| n.is_defined())
        else {
            bail!(arg.span, "Did not find logic expression \"{name}\"");
        };
        if expr.as_str().is_some() {
            let shown = to_json_pretty(&Node::single("logic_expression", Node::string(name)));
            bail!(
                expr.span,
                "Logic expression \"{shown}\" must not be a string"
            );
        }
        if let Some(b) = expr.as_bool() {
            return Ok(self.sat.constant(b));
        }
        // `Map::get` finds the first entry of a name, so the address
        // identifies the named expression.
        let address = std::ptr::from_ref(expr) as usize;
        // Transformed already without depending on the context, or for
        // this context.
        let mut key = (address, None);
        let mut found = self.named_expressions.get(&key);
        if found.is_none() {
            if let Some(c) = ctx.filter(|_| context_dependent(expr, 0)) {
                key = (address, Some(c.0));
                found = self.named_expressions.get(&key);
            }
        }
        match found {
            Some(Some(l)) => {
                let l = *l;
                if let (Some(reads), Some(known)) = (&mut self.reads, self.named_reads.get(&key)) {
                    reads.extend_from_slice(known);
                }
                return Ok(l);
            }
            // Still being transformed: the expression refers to itself.
            Some(None) => bail!(arg.span, "Logic expression \"{name}\" is cyclic"),
            None => {}
        }
        self.named_expressions.insert(key, None);
        let start = self.reads.as_ref().map(Vec::len);
        let t = self.logic(expr, ctx)?;
        if let (Some(reads), Some(start)) = (&self.reads, start) {
            let read = reads[start..].to_vec();
            self.named_reads.insert(key, read);
        }
        if !self.free_expression_names && self.sat.fixed(t).is_some() {
            // Decided (usually by the inputs): the constant names itself.
            self.named_expressions.insert(key, Some(t));
            return Ok(t);
        }
        // `expression.<name>` is only in `names` if a term used it; element
        // ids and `manual.` names never start with `expression.`.
        let var = if self.free_expression_names && key.1.is_none() {
            self.var(&format!("expression.{name}"))
        } else {
            self.sat.new_var()
        };
        self.sat.require_equal(var, t);
        self.named_expressions.insert(key, Some(var));
        Ok(var)
    }
}

/// Keeps the first of equal reads (a part reads few elements).
pub(crate) fn first_reads(reads: &mut Vec<ElementRead>) {
    let mut seen = std::collections::HashSet::with_capacity(reads.len());
    reads.retain(|r| seen.insert(*r));
}

/// Whether a named logic expression may mean something else for each
/// element that uses it: it mentions `SELF`, `CONTAINER`, `SOURCE` or
/// `TARGET`, or another named expression (which might).
fn context_dependent(expr: &Node, depth: usize) -> bool {
    // Deeper than logic expressions may go: assume the worst.
    if depth > MAX_LOGIC_DEPTH {
        return true;
    }
    match &expr.value {
        Value::String(s) => matches!(s.as_str(), "SELF" | "CONTAINER" | "SOURCE" | "TARGET"),
        Value::Map(m) => {
            m.contains_key("logic_expression")
                || m.iter().any(|(_, v)| context_dependent(v, depth + 1))
        }
        Value::Seq(items) => items.iter().any(|v| context_dependent(v, depth + 1)),
        _ => false,
    }
}

/// Element ids without a table of strings: an open-addressing table of
/// (hash tag, element) pairs, eight bytes a slot, filled in element order;
/// strings are compared only where tags meet.
struct IdIndex {
    /// `(tag, element)`, `EMPTY` elements for free slots; one slot per
    /// distinct id (its first element).
    slots: Vec<(u32, u32)>,
    /// Per element: the first element in element order with the same id.
    first: Vec<ElementId>,
}

/// The element of a free slot.
const EMPTY: u32 = u32::MAX;

impl IdIndex {
    fn new(graph: &Graph) -> IdIndex {
        let n = graph.elements().len();
        let mut index = IdIndex {
            // At most two thirds full: short probes, half the memory of 2n slots.
            slots: vec![(0, EMPTY); (n + n / 2).next_power_of_two().max(2)],
            first: (0..n as u32).map(ElementId).collect(),
        };
        for e in graph.ordered() {
            let id = graph.id(e);
            let h = id_hash(id);
            match index.probe(graph, h, id) {
                Ok(first) => index.first[e.0 as usize] = first,
                Err(slot) => index.slots[slot] = (tag(h), e.0),
            }
        }
        index
    }

    /// The first element with id `name` (`Ok`), or the free slot where it belongs.
    fn probe(&self, graph: &Graph, h: u64, name: &str) -> std::result::Result<ElementId, usize> {
        let mask = self.slots.len() - 1;
        let mut slot = h as usize & mask;
        loop {
            match self.slots[slot] {
                (_, EMPTY) => return Err(slot),
                (t, e) if t == tag(h) && graph.id(ElementId(e)) == name => return Ok(ElementId(e)),
                _ => slot = (slot + 1) & mask,
            }
        }
    }

    /// The first element (in element order) whose id is `name`.
    fn find(&self, graph: &Graph, name: &str) -> Option<ElementId> {
        self.probe(graph, id_hash(name), name).ok()
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

    fn with_encoder(f: impl FnOnce(&Graph, &mut Encoder<'_>)) {
        let mut d = doc(TEMPLATE);
        normalize(&mut d).expect("normalizes");
        let g = build(&d).expect("builds");
        let type_files = crate::testing::type_files(&d);
        let types = type_files.system();
        let mut enc = Encoder::new(&g, &d, &types, Map::new(), 0.0);
        f(&g, &mut enc);
    }

    /// Elements sharing an id (the two artifacts and their types) share one variable,
    /// and looking an id up finds its first element in element order.
    #[test]
    fn ids_find_their_first_element() {
        with_encoder(|g, enc| {
            let order: Vec<ElementId> = g.ordered().collect();
            for &e in &order {
                let id = g.id(e);
                let first = *order.iter().find(|&&x| g.id(x) == id).expect("self");
                assert_eq!(enc.ids.find(g, id), Some(first), "{id}");
                assert_eq!(enc.ids.first[e.0 as usize], first, "{id}");
                assert_eq!(enc.presence(e), enc.presence(first), "{id}");
                assert_eq!(enc.var(id), enc.presence(first), "{id}");
            }
            let shared = order
                .iter()
                .filter(|&&x| g.id(x) == "artifact.z@0.node.x@0.node.y")
                .count();
            assert_eq!(shared, 2);
            assert_eq!(enc.ids.find(g, "node.nothing"), None);
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
            let or = Or(vec![Manual(next), Manual(e)]);
            let left = And(vec![Var(next), Manual(e), or]);
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
            by_yaml = Some((lits, enc.order.clone(), size));
        });
        let (lits, names, size) = by_yaml.expect("encoded");
        with_encoder(|g, enc| {
            let mut by_term = Vec::new();
            for c in constraint_fixture(g) {
                enc.require_constraint(&c, Part::Generated(0));
                by_term.push(enc.constraint(&c));
            }
            assert_eq!(by_term, lits);
            assert_eq!(enc.order, names);
            assert_eq!((enc.sat.num_vars(), enc.sat.num_clauses()), size);
        });
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
