//! One value against one parameter definition, outside a walk over a
//! template: for processors that hold values a TOSCA file does not (the
//! variability inputs of a Variability4TOSCA template are parameters whose
//! values come from presets and the command line).

use v4t_source::Sources;
use v4t_yaml::{NodeRef, ValueRef};

use super::defs::{DefNode, Schema};
use super::Checker;
use crate::load::DocId;
use crate::types::TypeSystem;
use crate::value::Scalar;

/// The rule of a parameter definition a value breaks.
#[derive(Clone, Debug)]
pub enum Broken<'a> {
    /// The value is not of the definition's `type` (the `type` node).
    Type(NodeRef<'a>),
    /// An entry of the list or map value breaks the `entry_schema`.
    EntrySchema(Box<Broken<'a>>),
    /// The value does not satisfy this clause of `constraints` (TOSCA 1.3
    /// clauses) or `validation` (a TOSCA 2.0 Boolean expression).
    Clause(NodeRef<'a>),
}

/// The first rule of the parameter definition `definition` (written in
/// document `doc` of `ts`, whose names it uses) that `value` breaks: its
/// `type` (with the data type's own validation), its `entry_schema`, its
/// `constraints` or `validation`; `None` if it breaks none, also where the
/// type does not resolve or a clause cannot be decided (the validator
/// reports those where the definition is).
pub fn parameter_violation<'a>(
    ts: &TypeSystem<'a>,
    sources: &Sources,
    doc: DocId,
    definition: NodeRef<'a>,
    value: NodeRef<'a>,
) -> Option<Broken<'a>> {
    let mut c = Checker::new(ts, sources);
    c.doc = doc;
    c.grammar = ts.loaded.doc(doc).grammar?;
    c.violation(
        DefNode {
            node: definition,
            doc,
        },
        value,
        0,
    )
}

impl<'a> Checker<'_, 'a> {
    /// The built-in data type of a value without a declared type.
    fn type_of(&self, value: NodeRef<'_>) -> Option<crate::types::TypeId> {
        let name = match crate::value::classify(value) {
            Scalar::Bool(_) => "boolean",
            Scalar::Int(_) => "integer",
            Scalar::Float(_) => "float",
            Scalar::Str(_) => "string",
            Scalar::Seq(_) => "list",
            Scalar::Map(_) => "map",
            Scalar::Null | Scalar::Timestamp => return None,
        };
        self.ts.builtin(self.grammar, name)
    }

    fn violation(
        &mut self,
        def: DefNode<'a>,
        value: NodeRef<'a>,
        depth: usize,
    ) -> Option<Broken<'a>> {
        if depth > super::defs::MAX_NESTING {
            return None;
        }
        let schema = match self.merge_schema(&[def], 0) {
            Some(schema) => {
                let type_node = def.node.get("type").unwrap_or(def.node);
                if !self.value_fits(value, &Schema::of_type(schema.ty)) {
                    return Some(Broken::Type(type_node));
                }
                schema
            }
            // No (known) type: clauses see the value as what it is.
            None if def.node.get("type").is_none() => Schema::of_type(self.type_of(value)?),
            None => return None,
        };
        if let Some(entry) = def.node.get("entry_schema") {
            let entries: Vec<NodeRef<'a>> = match value.value() {
                ValueRef::Seq(items) => items.iter().collect(),
                ValueRef::Map(m) => m.iter().map(|(_, v)| v).collect(),
                _ => Vec::new(),
            };
            let entry = DefNode {
                node: entry,
                doc: def.doc,
            };
            for v in entries {
                if let Some(broken) = self.violation(entry, v, depth + 1) {
                    return Some(Broken::EntrySchema(Box::new(broken)));
                }
            }
        }
        let clauses = def
            .node
            .get("constraints")
            .map(|c| (c, true))
            .into_iter()
            .chain(def.node.get("validation").map(|v| (v, false)));
        for (clauses, v13) in clauses {
            let list: Vec<NodeRef<'a>> = match (clauses.value(), v13) {
                (ValueRef::Seq(items), true) => items.iter().collect(),
                _ => vec![clauses],
            };
            for clause in list {
                let clause_def = DefNode {
                    node: clause,
                    doc: def.doc,
                };
                if self.decide(clause_def, v13, value, &schema) == Some(false) {
                    return Some(Broken::Clause(clause));
                }
            }
        }
        None
    }
}
