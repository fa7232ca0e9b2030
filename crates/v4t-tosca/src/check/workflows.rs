//! Workflows of a service template (§13): declarative and imperative
//! workflows, their inputs, preconditions, steps and outputs, and the
//! activities of steps and policy triggers (delegating to, setting the state
//! of, calling an operation of, or inlining another workflow).

use crate::keynames::Entity;
use crate::section::Section;
use v4t_source::Code;
use v4t_yaml::{MapRef, NodeRef, Span};

use super::defs::{Param, Place, Role};
use super::template::{Index, Tpl};
use super::Checker;
use crate::types::TypeId;
use crate::value;

impl<'t, 'a> Checker<'t, 'a> {
    /// A list of activity definitions (§13.2.3); with a known target node
    /// template and the service template's workflows.
    pub(super) fn activities(
        &mut self,
        a: NodeRef<'a>,
        target: Option<(TypeId, Tpl<'a>)>,
        idx: Option<&Index<'a>>,
    ) {
        let Some(list) = self.expect_seq(a, "a list of activities", Section::Activity) else {
            return;
        };
        for (i, item) in list.iter().enumerate() {
            self.at_index(i, |c| {
                let Some(m) = c.expect_map(item, "an activity definition", Section::Activity) else { return };
                if m.len() != 1 {
                    c.error(Code::InvalidShape, Section::Activity, item.span(), "an activity is a single-key map (delegate, set_state, call_operation or inline)");
                    return;
                }
                let (k, v) = m.first().expect("one entry");
                let kind = k.name();
                c.at(kind, |c| match kind {
                    "set_state" => {
                        c.expect_str(v, "`set_state`", Section::SetStateActivity);
                    }
                    "delegate" | "inline" => c.workflow_activity(kind, v, idx),
                    "call_operation" => c.call_operation(v, target),
                    _ => c.error(
                        Code::Template,
                        Section::Activity,
                        k.span(),
                        format!("unknown activity `{kind}` (delegate, set_state, call_operation or inline)"),
                    ),
                });
            });
        }
    }

    /// A `delegate` or `inline` activity (§13.2.3.1, §13.2.3.4): a
    /// workflow name, or a map with `workflow` and `inputs`. An inlined
    /// workflow is one of the service template's, and gets a value for
    /// each input it requires.
    fn workflow_activity(&mut self, kind: &str, v: NodeRef<'a>, idx: Option<&Index<'a>>) {
        let (name, inputs) = match value::as_str(v) {
            Some(s) => ((s, v.span()), None),
            None => {
                let Some(vm) = self.expect_map(v, &format!("`{kind}`"), Section::Activity) else {
                    return;
                };
                let what = format!("a `{kind}` activity");
                self.keys(vm, Entity::WorkflowActivity, &what, Section::Activity);
                let Some(w) = vm.get("workflow") else {
                    let message = format!("`{kind}` needs a `workflow`");
                    self.error(Code::MissingKeyname, Section::Activity, v.span(), message);
                    return;
                };
                let Some(s) = self.expect_str(w, "`workflow`", Section::Activity) else {
                    return;
                };
                ((s, w.span()), vm.get("inputs"))
            }
        };
        // A delegate workflow is "provided by the TOSCA orchestrator".
        let inlined = idx
            .filter(|_| kind == "inline")
            .map(|i| i.workflows.get(name.0));
        let Some(Some(&workflow)) = inlined else {
            if let Some(i) = inputs {
                self.check_functions(i);
            }
            // TOSCA 1.3's normative workflows exist unwritten: "reserved
            // names of workflows ... deploy ... undeploy" (§7.1); the
            // orchestrator generates them.
            let normative = self.v13() && matches!(name.0, "deploy" | "undeploy");
            if inlined.is_some() && !normative {
                let message = format!("workflow `{}` is not defined", name.0);
                self.error(
                    Code::UndefinedReference,
                    Section::InlineWorkflowActivity,
                    name.1,
                    message,
                );
            }
            return;
        };
        let defined = super::defs::collect_section(
            &[super::defs::DefNode {
                node: workflow,
                doc: self.doc,
            }],
            "inputs",
        );
        let called = format!("workflow `{}`", name.0);
        if let Some(i) = inputs {
            self.at("inputs", |c| {
                c.input_assignments(
                    i,
                    &defined,
                    Some((&called, Section::InlineWorkflowActivity)),
                )
            });
        }
        let given = inputs.and_then(NodeRef::as_map);
        let assigned = |name: &str| given.is_some_and(|g| g.contains_key(name));
        let section = Section::InlineWorkflowActivity;
        self.required_inputs_given(&defined, assigned, (&called, section), v.span());
    }

    /// `call_operation` (§13.2.3.3): `<interface>.<operation>` of the target
    /// node, with inputs that the operation defines; every required input
    /// ends up with a value.
    fn call_operation(&mut self, v: NodeRef<'a>, target: Option<(TypeId, Tpl<'a>)>) {
        let (op_node, inputs) = match value::as_str(v) {
            Some(_) => (v, None),
            None => {
                let Some(m) =
                    self.expect_map(v, "`call_operation`", Section::CallOperationActivity)
                else {
                    return;
                };
                self.keys(
                    m,
                    Entity::CallOperation,
                    "a `call_operation` activity",
                    Section::CallOperationActivity,
                );
                let Some(op) = m.get("operation") else {
                    self.error(
                        Code::MissingKeyname,
                        Section::CallOperationActivity,
                        v.span(),
                        "`call_operation` needs an `operation`",
                    );
                    return;
                };
                (op, m.get("inputs"))
            }
        };
        let Some(op) = self.expect_str(
            op_node,
            "the operation name",
            Section::CallOperationActivity,
        ) else {
            return;
        };
        let Some((iface, opname)) = op.split_once('.') else {
            self.error(
                Code::Template,
                Section::CallOperationActivity,
                op_node.span(),
                format!("`{op}` is not `<interface_name>.<operation_name>`"),
            );
            return;
        };
        let Some((ty, tpl)) = target else {
            if let Some(i) = inputs {
                self.check_functions(i);
            }
            return;
        };
        let ifaces = self.type_entries(ty, "interfaces");
        let Some((_, idef)) = ifaces.iter().find(|(n, _)| *n == iface) else {
            let message = format!(
                "the target's type `{}` has no interface `{iface}`",
                self.type_name(ty)
            );
            self.error(
                Code::Template,
                Section::CallOperationActivity,
                op_node.span(),
                message,
            );
            return;
        };
        let ops = self.interface_parts(idef, "operations");
        let Some((_, odef)) = ops.iter().find(|(n, _)| *n == opname) else {
            self.error(
                Code::Template,
                Section::CallOperationActivity,
                op_node.span(),
                format!("interface `{iface}` has no operation `{opname}`"),
            );
            return;
        };
        let mut defined = self.interface_parts(idef, "inputs");
        for (n, p) in super::defs::collect_section(&odef.defs, "inputs") {
            match defined.iter_mut().find(|(d, _)| *d == n) {
                Some((_, q)) => q.defs.extend(p.defs),
                None => defined.push((n, p)),
            }
        }
        let given = inputs.and_then(NodeRef::as_map);
        if let Some(i) = inputs {
            self.at("inputs", |c| {
                c.input_assignments(
                    i,
                    &defined,
                    Some(("the operation", Section::CallOperationActivity)),
                )
            });
        }
        // Values assigned by the node template's interface assignment.
        let tpl_iface = tpl.get("interfaces").and_then(|i| i.get(iface));
        let tpl_inputs = tpl_iface
            .and_then(|i| i.get("inputs"))
            .and_then(NodeRef::as_map);
        let tpl_op_inputs = tpl_iface
            .and_then(|i| i.get("operations"))
            .and_then(|o| o.get(opname))
            .and_then(|o| o.get("inputs"))
            .and_then(NodeRef::as_map);
        let assigned = |name: &str| {
            [given, tpl_inputs, tpl_op_inputs]
                .iter()
                .any(|m| m.is_some_and(|g| g.contains_key(name)))
        };
        let called = format!("operation `{op}`");
        let section = Section::CallOperationActivity;
        self.required_inputs_given(&defined, assigned, (&called, section), v.span());
    }

    /// Each required input of the operation or workflow `called` (with the
    /// section of its call) without a default or fixed value is `assigned`.
    fn required_inputs_given(
        &mut self,
        defined: &[(&'a str, Param<'a>)],
        assigned: impl Fn(&str) -> bool,
        (called, section): (&str, Section),
        span: Span,
    ) {
        for (name, p) in defined {
            let has_value = assigned(name) || p.default().is_some() || p.fixed().is_some();
            if p.required() && !has_value {
                let message = format!("required input `{name}` of {called} gets no value");
                self.error(Code::MissingValue, section, span, message);
            }
        }
    }

    /// The workflow definitions of a service template (§13.2).
    pub(super) fn workflows(&mut self, node: NodeRef<'a>, idx: &Index<'a>) {
        let Some(map) = self.named_map(node, "`workflows`", Section::ImperativeWorkflows) else {
            return;
        };
        for (k, v) in map.iter() {
            self.at(k.name(), |c| c.workflow(v, idx));
        }
    }

    /// One workflow definition: inputs, precondition, steps, outputs.
    fn workflow(&mut self, v: NodeRef<'a>, idx: &Index<'a>) {
        let Some(m) = self.expect_map(v, "a workflow definition", Section::ImperativeWorkflows)
        else {
            return;
        };
        self.keys(
            m,
            Entity::Workflow,
            "a workflow definition",
            Section::ImperativeWorkflows,
        );
        if m.contains_key("steps") && m.contains_key("implementation") {
            self.error(
                Code::Template,
                Section::ImperativeWorkflows,
                v.span(),
                "`steps` and `implementation` are mutually exclusive",
            );
        }
        if let Some(i) = m.get("inputs") {
            self.at("inputs", |c| {
                c.param_defs(
                    i,
                    Role::Incoming,
                    Place::Template,
                    &[],
                    (Section::ImperativeWorkflows, "workflow `inputs`"),
                    true,
                )
            });
        }
        let saved_inputs = self.fctx.inputs.clone();
        if let Some(wi) = m.get("inputs").and_then(NodeRef::as_map) {
            self.fctx.inputs.insert(0, wi);
        }
        if let Some(p) = m.get("precondition") {
            self.at("precondition", |c| {
                c.condition(p, Section::WorkflowPrecondition)
            });
        }
        if let Some(p) = m.get("preconditions").filter(|_| self.v13()) {
            self.at("preconditions", |c| c.preconditions_13(p, idx));
        }
        if let Some(i) = m.get("implementation") {
            self.at("implementation", |c| c.implementation(i, None));
        }
        if let Some(o) = m.get("outputs") {
            self.at("outputs", |c| {
                if let Some(om) = c.named_map(o, "workflow `outputs`", Section::ImperativeWorkflows)
                {
                    for (k, mv) in om.iter() {
                        c.at(k.name(), |c| c.attribute_selection(mv));
                    }
                }
            });
        }
        if let Some(steps) = m.get("steps") {
            self.at("steps", |c| {
                let Some(sm) = c.named_map(steps, "`steps`", Section::WorkflowStep) else {
                    return;
                };
                for (k, s) in sm.iter() {
                    c.at(k.name(), |c| c.step(s, idx, sm));
                }
            });
        }
        self.fctx.inputs = saved_inputs;
    }

    /// One workflow step (§13.2.2): target, filter, activities and the
    /// steps it continues with (`on_success`, `on_failure`, names of steps
    /// of this workflow, `steps`).
    fn step(&mut self, s: NodeRef<'a>, idx: &Index<'a>, steps: MapRef<'a>) {
        let Some(m) = self.expect_map(s, "a workflow step", Section::WorkflowStep) else {
            return;
        };
        self.keys(
            m,
            Entity::WorkflowStep,
            "a workflow step",
            Section::WorkflowStep,
        );
        let (target, subject) =
            self.workflow_target(m, s.span(), idx, "step", Section::WorkflowStep);
        if let Some(f) = m.get("filter") {
            self.at("filter", |c| {
                if let Some(list) = c.expect_seq(f, "`filter`", Section::WorkflowStep) {
                    for (i, clause) in list.iter().enumerate() {
                        c.at_index(i, |c| {
                            c.condition_on(clause, Section::WorkflowStep, subject)
                        });
                    }
                }
            });
        }
        let saved = self.fctx.self_node;
        self.fctx.self_node = target.map(|(t, _)| t);
        match m.get("activities") {
            Some(a) => self.at("activities", |c| c.activities(a, target, Some(idx))),
            None => self.error(
                Code::MissingKeyname,
                Section::WorkflowStep,
                s.span(),
                "a workflow step needs `activities`",
            ),
        }
        self.fctx.self_node = saved;
        for key in ["on_success", "on_failure"] {
            let Some(n) = m.get(key) else { continue };
            let names: Vec<(&str, Span)> = match value::as_str(n) {
                Some(s) => vec![(s, n.span())],
                None => self.at(key, |c| {
                    c.expect_str_list(n, &format!("`{key}`"), Section::WorkflowStep)
                }),
            };
            for (name, span) in names {
                if !steps.contains_key(name) {
                    self.error(
                        Code::UndefinedReference,
                        Section::WorkflowStep,
                        span,
                        format!("`{key}` names `{name}`, which is not a step of this workflow"),
                    );
                }
            }
        }
    }

    /// TOSCA 1.3 workflow `preconditions` (1.3 §3.6.26): each a target
    /// node template or group, a requirement of a node target, and
    /// condition clauses on that target.
    fn preconditions_13(&mut self, v: NodeRef<'a>, idx: &Index<'a>) {
        const SECTION: Section = Section::WorkflowPrecondition;
        let Some(list) = self.expect_seq(v, "`preconditions`", SECTION) else {
            return;
        };
        for (i, item) in list.iter().enumerate() {
            self.at_index(i, |c| {
                let Some(m) = c.expect_map(item, "a workflow precondition", SECTION) else {
                    return;
                };
                c.keys(
                    m,
                    Entity::Precondition13,
                    "a workflow precondition",
                    SECTION,
                );
                let (_, subject) = c.workflow_target(m, item.span(), idx, "precondition", SECTION);
                if let Some(cond) = m.get("condition") {
                    c.at("condition", |c| c.condition_on(cond, SECTION, subject));
                }
            });
        }
    }

    /// The `target` of a workflow step or precondition (`what`), a node
    /// template or group, and its `target_relationship`, a requirement of a
    /// node target (§13.2.2; 1.3 §3.6.26, §3.6.27). Returns the node
    /// target, and the type whose attributes the conditions there test:
    /// the node's, or with `target_relationship` the relationship's (where
    /// its type is known).
    fn workflow_target(
        &mut self,
        m: MapRef<'a>,
        span: Span,
        idx: &Index<'a>,
        what: &str,
        section: Section,
    ) -> (Option<(TypeId, Tpl<'a>)>, Option<TypeId>) {
        let mut target = None;
        let mut group_target = None;
        match m.get("target") {
            Some(t) => {
                if let Some(name) = self.expect_str(t, &format!("the {what} `target`"), section) {
                    match idx.node(name) {
                        Some((Some(ty), tpl)) => target = Some((ty, tpl)),
                        Some(_) => {}
                        None if idx.groups.contains_key(name) => group_target = Some(name),
                        None => self.error(
                            Code::UndefinedReference,
                            section,
                            t.span(),
                            format!(
                                "{what} target `{name}` is neither a node template nor a group"
                            ),
                        ),
                    }
                }
            }
            None => self.error(
                Code::MissingKeyname,
                section,
                span,
                format!("a workflow {what} needs a `target`"),
            ),
        }
        let Some(tr) = m.get("target_relationship") else {
            return (target, target.map(|(t, _)| t));
        };
        if let Some(group) = group_target {
            let message = format!(
                "`target_relationship` applies only to node targets, and `{group}` is a group"
            );
            self.error(Code::Template, section, tr.span(), message);
        }
        let name = self.expect_str(tr, "`target_relationship`", section);
        let (Some(name), Some((ty, tpl))) = (name, target) else {
            return (target, None);
        };
        let requirements = self.node_requirements(ty);
        let Some((_, def)) = requirements.iter().find(|(n, _)| *n == name) else {
            let message = format!(
                "the target's type `{}` has no requirement `{name}`",
                self.type_name(ty)
            );
            self.error(Code::UndefinedReference, section, tr.span(), message);
            return (target, None);
        };
        (
            target,
            self.requirement_relationship_type(def, tpl, name, idx),
        )
    }
}
