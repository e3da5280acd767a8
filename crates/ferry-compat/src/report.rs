//! The suite's report: a table of scenarios by outcome, then every difference.

use std::fmt::Write;
use std::path::PathBuf;

use crate::compare::{Accepted, Difference, Kind};

#[derive(Debug, Clone)]
pub struct StepRecord {
    pub id: String,
    pub what: String,
    pub note: Option<String>,
    pub diffs: Vec<Difference>,
}

#[derive(Debug, Clone)]
pub struct ScenarioRecord {
    pub name: String,
    pub description: String,
    pub profile: String,
    pub steps: Vec<StepRecord>,
    pub seconds: f64,
}

impl ScenarioRecord {
    fn diffs(&self) -> impl Iterator<Item = (&StepRecord, &Difference)> {
        self.steps
            .iter()
            .flat_map(|s| s.diffs.iter().map(move |d| (s, d)))
    }

    fn count(&self, kind: Kind) -> usize {
        self.diffs().filter(|(_, d)| d.kind == kind).count()
    }

    /// `same`, `accepted` (every difference explained), `DIFFERS` or `BROKEN`.
    pub fn verdict(&self) -> &'static str {
        if self.count(Kind::Broken) > 0 {
            "BROKEN"
        } else if self.diffs().any(|(_, d)| d.accepted.is_none()) {
            "DIFFERS"
        } else if self.diffs().next().is_some() {
            "accepted"
        } else {
            "same"
        }
    }
}

#[derive(Debug, Clone)]
pub struct SuiteReport {
    pub scenarios: Vec<ScenarioRecord>,
    /// Accepted differences of scenarios that ran which no longer occur.
    pub stale: Vec<Accepted>,
    pub startup_seconds: f64,
    pub total_seconds: f64,
    pub work: PathBuf,
}

impl SuiteReport {
    /// Differences the accepted file does not explain (broken steps included).
    pub fn unaccepted(&self) -> Vec<(&str, &StepRecord, &Difference)> {
        self.scenarios
            .iter()
            .flat_map(|sc| sc.diffs().map(move |(st, d)| (sc.name.as_str(), st, d)))
            .filter(|(_, _, d)| d.accepted.is_none())
            .collect()
    }

    pub fn passed(&self) -> bool {
        self.unaccepted().is_empty() && self.stale.is_empty()
    }

    /// One row per scenario: steps, steps with no difference, differences by kind, accepted.
    pub fn table(&self) -> String {
        let total_label = format!("{} scenarios", self.scenarios.len());
        let width = self
            .scenarios
            .iter()
            .map(|s| s.name.len())
            .max()
            .unwrap_or(8)
            .max(total_label.len());
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<width$}  {:>5}  {:>4}  {:>7}  {:>10}  {:>9}  {:>8}  result",
            "scenario", "steps", "same", "differs", "ferry-only", "java-only", "accepted"
        );
        let _ = writeln!(out, "{}", "-".repeat(width + 62));
        let mut totals = [0usize; 6];
        for sc in &self.scenarios {
            let same = sc.steps.iter().filter(|s| s.diffs.is_empty()).count();
            let row = [
                sc.steps.len(),
                same,
                sc.count(Kind::Differs),
                sc.count(Kind::FerryOnly),
                sc.count(Kind::JavaOnly),
                sc.diffs().filter(|(_, d)| d.accepted.is_some()).count(),
            ];
            for (t, r) in totals.iter_mut().zip(row) {
                *t += r;
            }
            let broken = sc.count(Kind::Broken);
            let verdict = if broken > 0 {
                format!("BROKEN ({broken})")
            } else {
                sc.verdict().to_owned()
            };
            let _ = writeln!(
                out,
                "{:<width$}  {:>5}  {:>4}  {:>7}  {:>10}  {:>9}  {:>8}  {verdict}",
                sc.name, row[0], row[1], row[2], row[3], row[4], row[5]
            );
        }
        let _ = writeln!(out, "{}", "-".repeat(width + 62));
        let _ = writeln!(
            out,
            "{:<width$}  {:>5}  {:>4}  {:>7}  {:>10}  {:>9}  {:>8}  {}",
            total_label,
            totals[0],
            totals[1],
            totals[2],
            totals[3],
            totals[4],
            totals[5],
            if self.passed() { "PASS" } else { "FAIL" }
        );
        out
    }

    /// Every difference, unaccepted ones first, then stale accepted entries.
    pub fn details(&self, with_accepted: bool) -> String {
        let mut out = String::new();
        let line = |out: &mut String, sc: &str, st: &StepRecord, d: &Difference| {
            let _ = writeln!(
                out,
                "  {sc} / {} ({}) {} [{}]",
                st.id,
                st.what,
                d.path,
                d.kind.label()
            );
            if let Some(j) = &d.java {
                let _ = writeln!(out, "      java:  {j}");
            }
            if let Some(f) = &d.ferry {
                let _ = writeln!(out, "      ferry: {f}");
            }
        };
        let unaccepted = self.unaccepted();
        if !unaccepted.is_empty() {
            let _ = writeln!(
                out,
                "Differences not in accepted-differences.toml ({}):",
                unaccepted.len()
            );
            for (sc, st, d) in unaccepted {
                line(&mut out, sc, st, d);
            }
        }
        if with_accepted {
            let _ = writeln!(out, "Accepted differences:");
            for sc in &self.scenarios {
                for (st, d) in sc.diffs().filter(|(_, d)| d.accepted.is_some()) {
                    line(&mut out, &sc.name, st, d);
                    let _ = writeln!(out, "      why:   {}", d.accepted.as_deref().unwrap_or(""));
                }
            }
        }
        if !self.stale.is_empty() {
            let _ = writeln!(
                out,
                "Accepted differences that no longer occur (remove them, or mark them occasional):"
            );
            for a in &self.stale {
                let _ = writeln!(
                    out,
                    "  {} / {} / {}: {}",
                    a.scenario, a.step, a.path, a.reason
                );
            }
        }
        out
    }
}
