//! What scoring reads of an agent's episode: its calls and observations,
//! dependency flags, declared outcome, final text, tool-less turns and
//! whether the context overflowed. [`Episode::play`] builds one from
//! plain calls, for scripted agents and tests.

use serde::{Deserialize, Serialize};

use crate::tools::{Call, EpisodeState, Flag, Observation, Outcome, Platform};

/// One agent episode. Serialisable: a solve job stores it and a later
/// scoring job reads it back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Episode {
    /// Calls in order.
    pub calls: Vec<Call>,
    /// One observation per call.
    pub observations: Vec<Observation>,
    /// Dependency violations the platform flagged.
    pub flags: Vec<Flag>,
    /// What `summarize_results` declared, if called.
    pub outcome: Option<Outcome>,
    /// The agent's final reply.
    pub final_text: String,
    /// Turns in which the agent called no tool (before the end).
    pub toolless_turns: u32,
    /// The conversation ran past the model's context.
    pub context_overflow: bool,
}

impl Episode {
    /// Plays `calls` on `platform` in a fresh episode.
    pub fn play(
        platform: &Platform,
        calls: Vec<Call>,
        final_text: &str,
        toolless_turns: u32,
    ) -> Episode {
        let mut state = EpisodeState::default();
        let observations = calls
            .iter()
            .map(|c| platform.call(&mut state, &c.tool, &c.args))
            .collect();
        Episode {
            calls,
            observations,
            flags: state.flags,
            outcome: state.outcome,
            final_text: final_text.to_string(),
            toolless_turns,
            context_overflow: false,
        }
    }
}
