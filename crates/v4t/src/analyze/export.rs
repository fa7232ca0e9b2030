//! The variability model for other tools (issue 27): the valid
//! configurations as a CNF in DIMACS, or as a feature model in UVL
//! (Universal Variability Language), for FeatureIDE, flamapy and model
//! counters.
//!
//! Both are the family problem after every question (input domains, input
//! feature model, declared constraints, conditions, the configurations
//! failing evaluation or a check excluded): each input is a group of
//! exactly one of its domain values (one variable per value, also for
//! booleans), and the element presences and gate variables of the encoding
//! are further variables. Their models are the valid configurations
//! exactly when every further variable is determined by the inputs, so
//! the export checks that (Padoa's method) and refuses otherwise: then the
//! optimiser, not the inputs, would decide some presence.

use super::Family;
use crate::error::{bail, Result};
use v4t_sat::Lit;
use v4t_yaml::hash::SeededMap;

/// The formats of [`super::AnalyzeOptions::export`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// DIMACS CNF, with the input values named in comments and a
    /// `c p show` line projecting on them.
    Dimacs,
    /// Universal Variability Language.
    Uvl,
}

/// The clauses renumbered densely: the input value variables first (1, 2,
/// ... in input and domain order), then every other variable that occurs.
struct Cnf {
    vars: usize,
    clauses: Vec<Vec<i64>>,
}

impl Family<'_> {
    /// The valid configurations in `format`.
    pub(super) fn export(&mut self, format: ExportFormat) -> Result<String> {
        let cnf = self.cnf()?;
        Ok(match format {
            ExportFormat::Dimacs => self.dimacs(&cnf),
            ExportFormat::Uvl => self.uvl(&cnf),
        })
    }

    fn cnf(&mut self) -> Result<Cnf> {
        let mut number: SeededMap<u32, i64> = SeededMap::default();
        for &l in &self.input_lits {
            let next = number.len() as i64 + 1;
            number.entry(l.var_index()).or_insert(next);
        }
        let mut others: Vec<Lit> = Vec::new();
        let mut clauses = Vec::new();
        let stored: Vec<Vec<Lit>> = self.sat.clauses().map(<[Lit]>::to_vec).collect();
        for clause in stored {
            let mut out = Vec::with_capacity(clause.len());
            for l in clause {
                let next = number.len() as i64 + 1;
                let n = *number.entry(l.var_index()).or_insert_with(|| {
                    others.push(if l.is_negated() { !l } else { l });
                    next
                });
                out.push(if l.is_negated() { -n } else { n });
            }
            clauses.push(out);
        }
        if self.sat.can_differ(&self.input_lits, &others) {
            bail!(
                Default::default(),
                "The variability model cannot be exported: the inputs leave some element's presence to the optimiser"
            );
        }
        Ok(Cnf {
            vars: number.len(),
            clauses,
        })
    }

    fn dimacs(&self, cnf: &Cnf) -> String {
        let mut out = String::from("c v4t variability model: the valid configurations\n");
        let mut var = 1;
        for d in &self.inputs {
            for v in &d.values {
                out.push_str(&format!(
                    "c input {} = {} is variable {var}\n",
                    d.name,
                    super::show_value(v)
                ));
                var += 1;
            }
        }
        let shown: Vec<String> = (1..var).map(|v| v.to_string()).collect();
        out.push_str(&format!("c p show {} 0\n", shown.join(" ")));
        out.push_str(&format!("p cnf {} {}\n", cnf.vars, cnf.clauses.len()));
        for c in &cnf.clauses {
            for l in c {
                out.push_str(&l.to_string());
                out.push(' ');
            }
            out.push_str("0\n");
        }
        out
    }

    fn uvl(&self, cnf: &Cnf) -> String {
        let mut names: Vec<String> = Vec::with_capacity(cnf.vars);
        let mut out = String::from("features\n    Configuration {abstract}\n");
        if !self.inputs.is_empty() {
            out.push_str("        mandatory\n");
        }
        let mut taken = std::collections::HashSet::new();
        for d in &self.inputs {
            let input = unique(&mut taken, &identifier(&d.name));
            out.push_str(&format!("            \"{input}\" {{abstract}}\n"));
            out.push_str("                alternative\n");
            for v in &d.values {
                let value = identifier(&super::show_value(v));
                let name = unique(&mut taken, &format!("{input}_{value}"));
                out.push_str(&format!("                    \"{name}\"\n"));
                names.push(name);
            }
        }
        if names.len() < cnf.vars {
            out.push_str(
                "        optional\n            \"encoding\" {abstract}\n                optional\n",
            );
            for v in names.len() + 1..=cnf.vars {
                let name = unique(&mut taken, &format!("v{v}"));
                out.push_str(&format!("                    \"{name}\" {{abstract}}\n"));
                names.push(name);
            }
        }
        out.push_str("\nconstraints\n");
        // Every auxiliary variable implies its parent (UVL's tree), which
        // the clauses do not: true auxiliaries need "encoding" selected.
        if names.len() > self.input_lits.len() {
            out.push_str("    \"encoding\"\n");
        }
        for c in &cnf.clauses {
            let lits: Vec<String> = c
                .iter()
                .map(|&l| {
                    let name = &names[(l.unsigned_abs() - 1) as usize];
                    if l < 0 {
                        format!("!\"{name}\"")
                    } else {
                        format!("\"{name}\"")
                    }
                })
                .collect();
            out.push_str(&format!("    {}\n", lits.join(" | ")));
        }
        out
    }
}

/// A feature name from `s`: letters, digits and `_` kept, anything else `_`.
fn identifier(s: &str) -> String {
    let id: String = s
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let id = id.trim_matches('_').to_string();
    if id.is_empty() {
        "value".to_string()
    } else {
        id
    }
}

/// `name`, or `name_2`, `name_3`, ... if taken; recorded as taken.
fn unique(taken: &mut std::collections::HashSet<String>, name: &str) -> String {
    let mut candidate = name.to_string();
    let mut i = 2;
    while taken.contains(&candidate) {
        candidate = format!("{name}_{i}");
        i += 1;
    }
    taken.insert(candidate.clone());
    candidate
}
