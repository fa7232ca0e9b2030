//! The encoder's modes: what differs between resolving, the family problem
//! of `v4t analyze` and the guarded problem of explanations, over the one
//! encoder ([`super::encode::Encoder`]) they share.
//!
//! * [`Resolve`]: every requirement is a clause; value expressions are
//!   evaluated under the assigned inputs.
//! * [`Family`]: inputs are variables ([`FamilyInputs`]), value expressions
//!   literals over them; the declared `variability.constraints` are
//!   collected instead of required.
//! * [`Guarding`]: every requirement holds only under a guard literal of its
//!   part, which remembers the elements it read.
//! * [`GuardedFamily`]: the family problem with every part guarded (the
//!   declared constraints too), for `v4t analyze --why`.

use super::family::FamilyInputs;
use crate::error::{Error, Result};
use crate::graph::ElementId;
use v4t_expr::Evaluator;
use v4t_sat::{Lit, Solver};
use v4t_yaml::hash::SeededMap;
use v4t_yaml::NodeRef;

/// A named logic expression: the position of its (first) entry in
/// `variability.expressions`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ExprId(pub u32);

/// A named expression as encoded for one use: without context, or for the
/// element that refers to it (an expression that depends on `SELF`, ...).
pub(crate) type NamedKey = (ExprId, Option<ElementId>);

/// A read of an element while encoding a part: its presence, or its
/// manual conditions (`manual.<id>`, which pruning conditions read).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ElementRead {
    pub id: ElementId,
    pub manual: bool,
}

/// A guarded part ([`Guarding`]).
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
    /// Generated constraint `index` ([`crate::graph::Graph::constraints`]).
    Generated(u32),
    /// Entry `index` of the element's `implies`.
    Implies(ElementId, u32),
}

/// What a part requires.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Requirement<'l> {
    /// One of the literals.
    Clause(&'l [Lit]),
    /// The literal.
    Lit(Lit),
    /// At most one of the literals.
    AtMostOne(&'l [Lit]),
}

impl Requirement<'_> {
    /// Adds the requirement to `sat` as clauses.
    fn add_to(self, sat: &mut Solver) {
        match self {
            Requirement::Clause(lits) => sat.add_clause(lits),
            Requirement::Lit(l) => sat.require(l),
            Requirement::AtMostOne(lits) => sat.require_at_most_one(lits),
        }
    }

    /// One literal that stands for the requirement.
    fn lit(self, sat: &mut Solver) -> Lit {
        match self {
            Requirement::Clause(lits) => sat.or(lits),
            Requirement::Lit(l) => l,
            Requirement::AtMostOne(lits) => sat.at_most_one(lits),
        }
    }
}

/// What the encoder does differently per mode; the defaults are resolving's.
pub(crate) trait Mode {
    /// Whether parts are guarded and record what they read.
    const GUARDED: bool = false;

    /// Requires `r` for `part`.
    fn require(&mut self, sat: &mut Solver, r: Requirement<'_>, part: Part) {
        let _ = part;
        r.add_to(sat);
    }

    /// Defines `presence` as the conjunction of an element's condition
    /// literals `all` (each with what it read, when [`Mode::GUARDED`]).
    fn define_presence(
        &mut self,
        sat: &mut Solver,
        id: ElementId,
        presence: Lit,
        all: &mut Vec<Lit>,
        reads: Vec<Vec<ElementRead>>,
    ) {
        let _ = (id, reads);
        sat.define_and(presence, all);
    }

    /// The literal of a value expression coerced to logic (4.8).
    fn value_logic(
        &mut self,
        expr: NodeRef<'_>,
        sat: &mut Solver,
        eval: &mut Evaluator,
    ) -> Result<Lit> {
        let b = eval
            .evaluate_as_logic(expr)
            .map_err(|e| Error::from_eval(e, true))?;
        Ok(sat.constant(b))
    }

    /// Records that the part being encoded reads an element.
    #[inline]
    fn record(&mut self, read: ElementRead) {
        let _ = read;
    }

    /// The elements read since the last call, each once.
    fn take_reads(&mut self) -> Vec<ElementRead> {
        Vec::new()
    }

    /// How many reads are recorded (a mark for [`Mode::remember_named`]).
    fn reads_mark(&self) -> usize {
        0
    }

    /// Remembers what named expression `key` read since `mark`.
    fn remember_named(&mut self, key: NamedKey, mark: usize) {
        let _ = (key, mark);
    }

    /// Records again what named expression `key` read when it was encoded
    /// (a later use shares its variable and reads the same).
    fn replay_named(&mut self, key: NamedKey) {
        let _ = key;
    }
}

/// Resolving under one input assignment.
pub(crate) struct Resolve;

impl Mode for Resolve {}

/// The family problem: inputs are variables; the declared constraints are
/// collected, one literal per requirement with the index of its
/// constraint, so that `analyze` tells the configurations they exclude
/// from those that fail.
pub(crate) struct Family<'a> {
    pub inputs: FamilyInputs<'a>,
    pub declared: Vec<(u32, Lit)>,
}

impl Mode for Family<'_> {
    fn require(&mut self, sat: &mut Solver, r: Requirement<'_>, part: Part) {
        match part {
            Part::Constraint(index) => self.declared.push((index, r.lit(sat))),
            _ => r.add_to(sat),
        }
    }

    fn value_logic(
        &mut self,
        expr: NodeRef<'_>,
        sat: &mut Solver,
        _: &mut Evaluator,
    ) -> Result<Lit> {
        self.inputs.encode(expr, sat)
    }
}

/// Explaining: every part holds only under a guard literal of its own.
#[derive(Default)]
pub(crate) struct Guarding {
    pub guards: Vec<Guard>,
    /// The elements read since the last part was required.
    reads: Vec<ElementRead>,
    /// What each named expression read when it was encoded.
    named_reads: SeededMap<NamedKey, Vec<ElementRead>>,
}

impl Guarding {
    /// Requires the clause `lits` of `part` under a new guard literal, with
    /// what the part is about and what it reads.
    fn require_guarded(
        &mut self,
        sat: &mut Solver,
        lits: &[Lit],
        part: Part,
        about: Option<Lit>,
        reads: Vec<ElementRead>,
    ) {
        let guard = sat.new_var();
        let mut clause = Vec::with_capacity(lits.len() + 1);
        clause.push(!guard);
        clause.extend_from_slice(lits);
        sat.add_clause(&clause);
        self.guards.push(Guard {
            lit: guard,
            part,
            about,
            reads,
        });
    }
}

impl Mode for Guarding {
    const GUARDED: bool = true;

    fn require(&mut self, sat: &mut Solver, r: Requirement<'_>, part: Part) {
        let l = match r {
            Requirement::Clause(lits) => {
                let reads = self.take_reads();
                return self.require_guarded(sat, lits, part, None, reads);
            }
            Requirement::Lit(l) => l,
            Requirement::AtMostOne(lits) => sat.at_most_one(lits),
        };
        let reads = self.take_reads();
        self.require_guarded(sat, &[l], part, None, reads);
    }

    /// Each condition, and presence where all hold, as parts.
    fn define_presence(
        &mut self,
        sat: &mut Solver,
        id: ElementId,
        presence: Lit,
        all: &mut Vec<Lit>,
        reads: Vec<Vec<ElementRead>>,
    ) {
        let truth = sat.truth();
        let mut every = Vec::new();
        for (i, (&l, reads)) in all.iter().zip(reads).enumerate() {
            let constant = (l == truth || l == !truth).then_some(l == truth);
            every.extend_from_slice(&reads);
            let part = Part::Condition {
                id,
                index: i as u32,
                constant,
            };
            self.require_guarded(sat, &[!presence, l], part, Some(l), reads);
        }
        first_reads(&mut every);
        all.iter_mut().for_each(|l| *l = !*l);
        all.push(presence);
        self.require_guarded(sat, all, Part::Presence(id), None, every);
    }

    fn record(&mut self, read: ElementRead) {
        self.reads.push(read);
    }

    fn take_reads(&mut self) -> Vec<ElementRead> {
        let mut taken = std::mem::take(&mut self.reads);
        first_reads(&mut taken);
        taken
    }

    fn reads_mark(&self) -> usize {
        self.reads.len()
    }

    fn remember_named(&mut self, key: NamedKey, mark: usize) {
        let read = self.reads[mark..].to_vec();
        self.named_reads.insert(key, read);
    }

    fn replay_named(&mut self, key: NamedKey) {
        if let Some(known) = self.named_reads.get(&key) {
            self.reads.extend_from_slice(known);
        }
    }
}

/// The family problem with every part guarded: [`Guarding`]'s parts over
/// [`Family`]'s input variables. The declared constraints are guarded like
/// the other parts instead of collected.
pub(crate) struct GuardedFamily<'a> {
    pub inputs: FamilyInputs<'a>,
    pub guarding: Guarding,
}

impl Mode for GuardedFamily<'_> {
    const GUARDED: bool = true;

    fn require(&mut self, sat: &mut Solver, r: Requirement<'_>, part: Part) {
        self.guarding.require(sat, r, part);
    }

    fn define_presence(
        &mut self,
        sat: &mut Solver,
        id: ElementId,
        presence: Lit,
        all: &mut Vec<Lit>,
        reads: Vec<Vec<ElementRead>>,
    ) {
        self.guarding.define_presence(sat, id, presence, all, reads);
    }

    fn value_logic(
        &mut self,
        expr: NodeRef<'_>,
        sat: &mut Solver,
        _: &mut Evaluator,
    ) -> Result<Lit> {
        self.inputs.encode(expr, sat)
    }

    fn record(&mut self, read: ElementRead) {
        self.guarding.record(read);
    }

    fn take_reads(&mut self) -> Vec<ElementRead> {
        self.guarding.take_reads()
    }

    fn reads_mark(&self) -> usize {
        self.guarding.reads_mark()
    }

    fn remember_named(&mut self, key: NamedKey, mark: usize) {
        self.guarding.remember_named(key, mark);
    }

    fn replay_named(&mut self, key: NamedKey) {
        self.guarding.replay_named(key);
    }
}

/// Keeps the first of equal reads (a part reads few elements).
pub(crate) fn first_reads(reads: &mut Vec<ElementRead>) {
    let mut seen = std::collections::HashSet::with_capacity(reads.len());
    reads.retain(|r| seen.insert(*r));
}
