//! Coverage rules over a whole task set: every tool in at least 3 tasks,
//! every group_by_type in at least 1, at least 10 tasks that need search,
//! at least 5 that expect Unresolved. Counts are reported, so a test can
//! print them and a smaller set can say how far it falls short.

use std::collections::BTreeMap;

use super::check::all_specs;
use super::Task;
use crate::tools::spec;
use crate::tools::Outcome;
use crate::world::{DailyGrouping, HourlyGrouping};

/// The minimums the rules ask for.
pub const MIN_TASKS_PER_TOOL: usize = 3;
/// Tasks that must need `search`.
pub const MIN_SEARCH_TASKS: usize = 10;
/// Tasks that must expect Unresolved.
pub const MIN_UNRESOLVED_TASKS: usize = 5;

/// Counts over a task set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage {
    /// Tasks using each tool (every offered tool listed, 0 included).
    pub tools: BTreeMap<String, usize>,
    /// Tasks using each grouping, `daily:SUM`, `hourly:HOUR`... (all listed).
    pub groupings: BTreeMap<String, usize>,
    /// Tasks with a search step.
    pub search: usize,
    /// Tasks whose reference ends Unresolved.
    pub unresolved: usize,
}

impl Coverage {
    /// Counts `tasks`.
    pub fn of(tasks: &[Task]) -> Coverage {
        let mut tools: BTreeMap<String, usize> =
            all_specs().into_iter().map(|s| (s.name, 0)).collect();
        let mut groupings: BTreeMap<String, usize> = DailyGrouping::ALL
            .iter()
            .map(|(_, n)| (format!("daily:{n}"), 0))
            .chain(
                HourlyGrouping::ALL
                    .iter()
                    .map(|(_, n)| (format!("hourly:{n}"), 0)),
            )
            .collect();
        for t in tasks {
            let mut used_tools: Vec<&str> = t.steps.iter().map(|s| s.tool.as_str()).collect();
            used_tools.sort_unstable();
            used_tools.dedup();
            for u in used_tools {
                *tools.entry(u.to_string()).or_default() += 1;
            }
            let mut used: Vec<String> = t
                .steps
                .iter()
                .filter_map(|s| {
                    let g = s.args.get("group_by_type")?.as_str()?;
                    let kind = if s.tool == spec::HOURLY_DATA {
                        "hourly"
                    } else {
                        "daily"
                    };
                    Some(format!("{kind}:{g}"))
                })
                .collect();
            used.sort_unstable();
            used.dedup();
            for g in used {
                *groupings.entry(g).or_default() += 1;
            }
        }
        Coverage {
            tools,
            groupings,
            search: tasks
                .iter()
                .filter(|t| t.steps.iter().any(|s| s.tool == spec::SEARCH))
                .count(),
            unresolved: tasks
                .iter()
                .filter(|t| t.outcome == Outcome::Unresolved)
                .count(),
        }
    }

    /// The rules not met, described; empty when all hold.
    pub fn shortfalls(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (t, n) in &self.tools {
            if *n < MIN_TASKS_PER_TOOL {
                out.push(format!(
                    "tool {t} is in {n} tasks, fewer than {MIN_TASKS_PER_TOOL}"
                ));
            }
        }
        for (g, n) in &self.groupings {
            if *n == 0 {
                out.push(format!("grouping {g} is in no task"));
            }
        }
        if self.search < MIN_SEARCH_TASKS {
            out.push(format!(
                "{} tasks need search, fewer than {MIN_SEARCH_TASKS}",
                self.search
            ));
        }
        if self.unresolved < MIN_UNRESOLVED_TASKS {
            out.push(format!(
                "{} tasks expect Unresolved, fewer than {MIN_UNRESOLVED_TASKS}",
                self.unresolved
            ));
        }
        out
    }
}
