//! The top level of a TOSCA file (§6): keynames, common keynames
//! (`description`, `metadata`, §5.3), DSL definitions, repositories,
//! profiles, imports, function definitions; then each type section and the
//! service template.

use crate::section::Section;
use v4t_source::Code;
use v4t_yaml::{MapRef, NodeRef, Span};

use super::Checker;
use crate::keynames::Entity;
use crate::types::Kind;
use crate::value::{self, Scalar};

impl<'t, 'a> Checker<'t, 'a> {
    pub(super) fn file(&mut self, root: MapRef<'a>) {
        self.keys(root, Entity::File, "a TOSCA file", Section::FileKeynames);
        for (k, v) in root.iter() {
            let key = k.name();
            self.at(key, |c| match key {
                "description" => c.description(v),
                "metadata" => c.metadata(v),
                "dsl_definitions" => c.dsl_definitions(v),
                "repositories" => c.repositories(v),
                "functions" => c.function_definitions(v),
                "profile" | "namespace" => {
                    c.expect_str(v, &format!("`{key}`"), Section::ProfileGrammar);
                }
                "imports" => {
                    if v.is_null() {
                        c.error(
                            Code::InvalidShape,
                            Section::ImportDefinitions,
                            v.span(),
                            "`imports` is empty",
                        );
                        c.note("omit it or list import definitions");
                    } else {
                        c.expect_seq(v, "`imports`", Section::ImportDefinitions);
                    }
                }
                "service_template" | "topology_template" => c.service_template(v),
                _ => {
                    if let Some(kind) = Kind::ALL.into_iter().find(|k| k.section() == key) {
                        c.type_section(kind, v);
                    }
                }
            });
        }
        if let (Some((pk, _)), Some((sk, _))) = (
            root.get_entry("profile"),
            root.get_entry("service_template"),
        ) {
            let _ = pk;
            self.error(
                Code::Definition,
                Section::ProfileGrammar,
                sk.span(),
                "a TOSCA file that defines a profile must not define a service template",
            );
        }
    }

    /// The common keynames `description` and `metadata` of a definition
    /// (§5.3), where it has them.
    pub(super) fn common_keynames(&mut self, map: MapRef<'a>) {
        if let Some(d) = map.get("description") {
            self.description(d);
        }
        if let Some(md) = map.get("metadata") {
            self.metadata(md);
        }
    }

    /// `description`: a string (§5.3.2).
    pub(super) fn description(&mut self, v: NodeRef<'a>) {
        self.expect_str(v, "`description`", Section::Description);
    }

    /// `metadata`: a map of values of the YAML core types (§5.3.1).
    pub(super) fn metadata(&mut self, v: NodeRef<'a>) {
        if v.is_null() {
            return;
        }
        let Some(map) = self.expect_map(v, "`metadata`", Section::Metadata) else {
            return;
        };
        for (k, _) in map.iter() {
            if !self.key_is_string(k) {
                self.error(
                    Code::InvalidShape,
                    Section::Metadata,
                    k.span(),
                    format!("metadata name `{}` must be a string", k.name()),
                );
            }
        }
    }

    /// `dsl_definitions` (§6.3): a map of anchored YAML (`<name>: &<anchor>
    /// <any YAML>`); a scalar or null without an anchor defines nothing
    /// and is an error (blocks without an anchor are accepted). TOSCA 1.3
    /// gives the section no grammar (1.3 §3.10: "DSL-specific definitions
    /// and conventions"): any YAML.
    fn dsl_definitions(&mut self, v: NodeRef<'a>) {
        if self.v13() {
            return;
        }
        let Some(map) = self.named_map(v, "`dsl_definitions`", Section::DslDefinitions) else {
            return;
        };
        for (k, def) in map.iter() {
            let block = matches!(self.classify(def), Scalar::Map(_) | Scalar::Seq(_));
            if !block && !self.anchored(k.span(), def.span()) {
                let got = value::describe(def);
                self.error(
                    Code::InvalidShape,
                    Section::DslDefinitions,
                    def.span().or(k.span()),
                    format!(
                        "DSL definition `{}` has no anchor: {got} without `&<anchor>` defines nothing",
                        k.name()
                    ),
                );
                self.note(format!("write `{}: &{} <value>`", k.name(), k.name()));
            }
        }
    }

    /// Whether the value after the key at `key` carries an anchor
    /// (`&name` between the key and the value, or at the value's start).
    fn anchored(&self, key: Span, value: Span) -> bool {
        let between = Span {
            start: key.end,
            ..value
        };
        let before = value.is_known() && key.source == value.source;
        let text = before
            .then(|| self.written(between))
            .flatten()
            .unwrap_or("");
        let own = self.written(value).unwrap_or("");
        text.contains('&') || own.trim_start().starts_with('&')
    }

    /// `repositories` (§6.5).
    fn repositories(&mut self, v: NodeRef<'a>) {
        let Some(map) = self.named_map(v, "`repositories`", Section::RepositoryDefinitions) else {
            return;
        };
        for (k, def) in map.iter() {
            self.at(k.name(), |c| {
                if value::as_str(def).is_some() {
                    return;
                }
                let Some(m) = c.expect_map(
                    def,
                    "a repository definition",
                    Section::RepositoryDefinitions,
                ) else {
                    return;
                };
                c.keys(
                    m,
                    Entity::Repository,
                    "a repository definition",
                    Section::RepositoryDefinitions,
                );
                match m.get("url") {
                    Some(url) => {
                        c.expect_str(url, "the repository `url`", Section::RepositoryDefinitions);
                    }
                    None => c.error(
                        Code::MissingKeyname,
                        Section::RepositoryDefinitions,
                        def.span().or(k.span()),
                        format!("repository `{}` has no `url`", k.name()),
                    ),
                }
                c.common_keynames(m);
            });
        }
    }

    /// `functions` (§6.6, §10.4), in a file or a service template.
    pub(super) fn function_definitions(&mut self, v: NodeRef<'a>) {
        let Some(map) = self.named_map(v, "`functions`", Section::FunctionDefinitions) else {
            return;
        };
        for (k, def) in map.iter() {
            self.at(k.name(), |c| {
                if k.name().contains('$') {
                    c.error(
                        Code::Definition,
                        Section::FunctionSyntax,
                        k.span(),
                        "function names must not contain `$`",
                    );
                }
                let Some(m) =
                    c.expect_map(def, "a function definition", Section::FunctionDefinitions)
                else {
                    return;
                };
                c.keys(
                    m,
                    Entity::Function,
                    "a function definition",
                    Section::FunctionDefinitions,
                );
                c.common_keynames(m);
                let Some(sigs) = m.get("signatures") else {
                    c.error(
                        Code::MissingKeyname,
                        Section::FunctionDefinitions,
                        def.span(),
                        format!("function `{}` has no `signatures`", k.name()),
                    );
                    return;
                };
                c.at("signatures", |c| {
                    let Some(list) =
                        c.expect_seq(sigs, "`signatures`", Section::FunctionDefinitions)
                    else {
                        return;
                    };
                    if list.is_empty() {
                        c.error(
                            Code::MissingKeyname,
                            Section::FunctionDefinitions,
                            sigs.span(),
                            "`signatures` needs at least one signature definition",
                        );
                    }
                    for (i, sig) in list.iter().enumerate() {
                        c.at_index(i, |c| c.signature(sig));
                    }
                });
            });
        }
    }

    fn signature(&mut self, sig: NodeRef<'a>) {
        // An empty entry stands for an unchanged signature in a refinement.
        if sig.is_null() {
            return;
        }
        let Some(m) = self.expect_map(sig, "a signature definition", Section::FunctionDefinitions)
        else {
            return;
        };
        self.keys(
            m,
            Entity::Signature,
            "a signature definition",
            Section::FunctionDefinitions,
        );
        for key in ["arguments", "optional_arguments"] {
            if let Some(args) = m.get(key) {
                self.at(key, |c| {
                    if let Some(list) =
                        c.expect_seq(args, &format!("`{key}`"), Section::FunctionDefinitions)
                    {
                        for (i, a) in list.iter().enumerate() {
                            c.at_index(i, |c| {
                                c.schema(a, Section::FunctionDefinitions);
                            });
                        }
                    }
                });
            }
        }
        if let Some(v) = m.get("variadic") {
            if !matches!(self.classify(v), Scalar::Bool(_)) {
                self.not_a_boolean(v, "variadic", Section::FunctionDefinitions);
            }
        }
        if let Some(r) = m.get("result") {
            self.at("result", |c| {
                c.schema(r, Section::FunctionDefinitions);
            });
        }
        if let Some(i) = m.get("implementation") {
            self.at("implementation", |c| c.implementation(i, None));
        }
    }
}
