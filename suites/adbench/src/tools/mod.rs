//! The agent-facing tools of the simulated platform. An episode calls
//! [`Platform::call`] with a tool name and JSON arguments against its own
//! [`EpisodeState`]; the reply is an [`Observation`] whose full text the
//! episode layer cuts to [`OBSERVATION_CHARS`].
//!
//! - `spec`: the published JSON Schemas; `args`: typed argument reading;
//! - `error`: error observations; `episode`: per-episode state and flags;
//! - `platform`: dispatch and the [`ExternalTool`] seam (calculator);
//! - `fields`, `table`: metric columns, ordering and paging;
//! - `accounts`, `reports`, `insight`: the tools themselves.
//!
//! Design decision: the state is a plain value the caller owns, so an
//! episode is a pure function of (world, calls) and replays byte for byte.
//!
//! ```
//! use adfarm_adbench::tools::{Config, EpisodeState, Platform, OBSERVATION_CHARS};
//! use adfarm_adbench::world::{Day, World};
//! use serde_json::json;
//!
//! let world = World::new(7, Day::parse("2026-11-20").unwrap(), 12).unwrap();
//! let user = world.users()[0].id;
//! let platform = Platform::new(world, Config { strict_dependencies: false });
//! let mut episode = EpisodeState::default();
//! let obs = platform.call(&mut episode, "get_user_account_list", &json!({"user_id": user, "page_size": 10}));
//! assert_eq!(obs.result_id.as_deref(), Some("r1"));
//! let shown = obs.cut(OBSERVATION_CHARS); // what the agent reads
//! assert!(shown.contains("Account ID"));
//! ```

pub mod accounts;
pub mod args;
pub mod episode;
pub mod error;
pub mod fields;
pub mod insight;
pub mod platform;
pub mod reports;
pub mod spec;
pub mod table;

pub use episode::{CallRecord, Config, EpisodeState, Flag, FlagKind, Outcome, StoredResult};
pub use error::ToolError;
pub use platform::{Call, ExternalTool, Observation, Platform, OBSERVATION_CHARS};
pub use spec::specs;
