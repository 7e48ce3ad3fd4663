//! Tool dispatch for one world: a call (tool name + JSON arguments) against
//! the episode state gives an [`Observation`]. Arguments are checked first,
//! then dependencies (flagged, or errors under strict dependencies), then
//! the tool runs. Other tools (the calculator) plug in as [`ExternalTool`]s.

use adfarm_llm::Tool;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::args::Args;
use super::episode::{CallRecord, Config, EpisodeState, Flag, FlagKind, Outcome};
use super::error::ToolError;
use super::spec::{self, argument_names};
use crate::world::World;

/// Longest observation shown to the agent, in characters.
pub const OBSERVATION_CHARS: usize = 6000;

/// A tool that is not part of the platform but runs inside its episodes
/// (the calculator): it sees the episode's stored results by id.
pub trait ExternalTool: Send + Sync {
    /// Its schema.
    fn spec(&self) -> Tool;

    /// The argument that reads fetched data, when calling the tool before
    /// any data was fetched is a dependency violation.
    fn data_argument(&self) -> Option<&str>;

    /// Runs the call; the value is stored as the next `rN`.
    ///
    /// # Errors
    /// A [`ToolError`] naming the bad argument, or `Failed` when the tool ran and failed.
    fn run(&self, args: &Value, state: &EpisodeState) -> Result<Value, ToolError>;
}

/// What the agent sees after a call, plus what the episode layer records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// Tool called.
    pub tool: String,
    /// Id of the stored result (`r3`) when the call succeeded with data.
    pub result_id: Option<String>,
    /// The full observation text (JSON); cut it with [`Observation::cut`].
    pub text: String,
    /// Error code when the call was rejected ([`ToolError::code`]).
    pub error_code: Option<String>,
    /// Dependency flags this call raised.
    pub flags: Vec<Flag>,
    /// True when this call ended the episode.
    pub ended: bool,
}

impl Observation {
    /// True when the call succeeded.
    pub fn ok(&self) -> bool {
        self.error_code.is_none()
    }

    /// The text as shown to the agent: at most `max_chars` characters, with
    /// a note saying how to read the rest when cut. The note fits inside
    /// `max_chars`; an error's text also keeps its end, where a tool puts
    /// the reason it failed (the calculator's `[output cut]`), so the
    /// reason survives the cut.
    pub fn cut(&self, max_chars: usize) -> String {
        const NOTE: &str = "\n...[observation cut; ask for a smaller page_size or the next page]";
        const ERROR_NOTE: &str = "\n...[observation cut]...\n";
        let chars = self.text.chars().count();
        if chars <= max_chars {
            return self.text.clone();
        }
        if self.error_code.is_none() {
            let keep = max_chars.saturating_sub(NOTE.chars().count());
            let mut out: String = self.text.chars().take(keep).collect();
            out.push_str(NOTE);
            return out;
        }
        let room = max_chars.saturating_sub(ERROR_NOTE.chars().count());
        let tail = (room / 2).min(ERROR_TAIL_CHARS);
        let mut out: String = self.text.chars().take(room - tail).collect();
        out.push_str(ERROR_NOTE);
        out.extend(self.text.chars().skip(chars - tail));
        out
    }
}

/// Characters of an error's end kept when its observation is cut.
const ERROR_TAIL_CHARS: usize = 400;

/// One recorded tool call, as a trajectory stores it: the agent loop's.
pub use adfarm_agent::Call;

/// Dependency bookkeeping for the call being run.
pub struct Ctx<'s> {
    /// The episode so far.
    pub state: &'s mut EpisodeState,
    strict: bool,
    tool: String,
    raised: Vec<Flag>,
}

impl Ctx<'_> {
    /// Records a dependency violation, or fails under strict dependencies.
    ///
    /// # Errors
    /// [`ToolError::Dependency`] when strict.
    pub fn violation(
        &mut self,
        arg: &str,
        kind: FlagKind,
        detail: String,
    ) -> Result<(), ToolError> {
        if self.strict {
            return Err(ToolError::Dependency {
                arg: arg.to_string(),
                reason: detail,
            });
        }
        let flag = Flag {
            call: self.state.calls,
            tool: self.tool.clone(),
            argument: arg.to_string(),
            kind,
            detail,
        };
        self.state.flags.push(flag.clone());
        self.raised.push(flag);
        Ok(())
    }

    /// Checks that `account_id` came from an earlier `get_user_account_list`.
    ///
    /// # Errors
    /// [`ToolError::Dependency`] when strict and it did not.
    pub fn require_listed(&mut self, arg: &str, account_id: u64) -> Result<(), ToolError> {
        if self.state.listed_accounts.contains(&account_id) {
            return Ok(());
        }
        let detail = format!(
            "account {account_id} was not obtained from {} earlier in this episode",
            spec::GET_USER_ACCOUNT_LIST
        );
        self.violation(arg, FlagKind::UnlistedAccount, detail)
    }
}

/// The tools of one world, for any number of episodes.
pub struct Platform {
    world: World,
    config: Config,
    specs: Vec<Tool>,
    allowed: Vec<Vec<String>>,
    builtins: usize,
    external: Vec<Box<dyn ExternalTool>>,
}

impl Platform {
    /// The platform's tools over `world`.
    pub fn new(world: World, config: Config) -> Platform {
        let specs = spec::specs();
        let allowed = specs.iter().map(argument_names).collect();
        let builtins = specs.len();
        Platform {
            world,
            config,
            specs,
            allowed,
            builtins,
            external: Vec::new(),
        }
    }

    /// Adds a tool such as the calculator.
    pub fn with_tool(mut self, tool: Box<dyn ExternalTool>) -> Platform {
        let s = tool.spec();
        self.allowed.push(argument_names(&s));
        self.specs.push(s);
        self.external.push(tool);
        self
    }

    /// The world behind the tools.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The options in force.
    pub fn config(&self) -> Config {
        self.config
    }

    /// Schemas of every tool offered, platform tools first.
    pub fn specs(&self) -> &[Tool] {
        &self.specs
    }

    /// Runs `calls` in order in a fresh episode: how an expert trajectory is
    /// replayed against today's world to regenerate its ground truth.
    pub fn replay(&self, calls: &[Call]) -> (EpisodeState, Vec<Observation>) {
        let mut state = EpisodeState::default();
        let observations = calls
            .iter()
            .map(|c| self.call(&mut state, &c.tool, &c.args))
            .collect();
        (state, observations)
    }

    /// Runs one call of the episode whose state is `state`.
    pub fn call(&self, state: &mut EpisodeState, name: &str, args: &Value) -> Observation {
        let obs = self.run_call(state, name, args);
        state.trajectory.push(CallRecord {
            tool: name.to_string(),
            args: args.clone(),
            result_id: obs.result_id.clone(),
            error_code: obs.error_code.clone(),
        });
        obs
    }

    fn run_call(&self, state: &mut EpisodeState, name: &str, args: &Value) -> Observation {
        state.calls += 1;
        let mut ctx = Ctx {
            state,
            strict: self.config.strict_dependencies,
            tool: name.to_string(),
            raised: Vec::new(),
        };
        let result = self.dispatch(&mut ctx, name, args);
        let raised = std::mem::take(&mut ctx.raised);
        let state = ctx.state;
        match result {
            Ok(Reply::Data(mut value)) => {
                let id = format!("r{}", state.results.len() + 1);
                // Show the id inside the result, but store it without: the
                // stored value is the data the calculator reads.
                if let Value::Object(m) = &mut value {
                    m.insert("result_id".into(), Value::String(id.clone()));
                }
                let text = value.to_string();
                if let Value::Object(m) = &mut value {
                    m.remove("result_id");
                }
                let stored = state.store(name, value);
                debug_assert_eq!(stored, id);
                Observation {
                    tool: name.into(),
                    result_id: Some(id),
                    text,
                    error_code: None,
                    flags: raised,
                    ended: false,
                }
            }
            Ok(Reply::End(outcome, value)) => {
                state.outcome = Some(outcome);
                Observation {
                    tool: name.into(),
                    result_id: None,
                    text: value.to_string(),
                    error_code: None,
                    flags: raised,
                    ended: true,
                }
            }
            Err(e) => {
                let mut m = serde_json::Map::new();
                m.insert("error".into(), Value::String(e.to_string()));
                m.insert("code".into(), Value::String(e.code().into()));
                if let Some(a) = e.argument() {
                    m.insert("argument".into(), Value::String(a.into()));
                }
                Observation {
                    tool: name.into(),
                    result_id: None,
                    text: Value::Object(m).to_string(),
                    error_code: Some(e.code().to_string()),
                    flags: raised,
                    ended: false,
                }
            }
        }
    }

    fn dispatch(&self, ctx: &mut Ctx<'_>, name: &str, args: &Value) -> Result<Reply, ToolError> {
        if ctx.state.ended() {
            return Err(ToolError::Ended);
        }
        let pos = self
            .specs
            .iter()
            .position(|s| s.name == name)
            .ok_or_else(|| ToolError::UnknownTool(name.to_string()))?;
        let a = Args::new(args, &self.allowed[pos])?;
        let w = &self.world;
        let data = match name {
            spec::GET_USER_ACCOUNT_LIST => super::accounts::user_account_list(w, ctx, &a)?,
            spec::GET_ACCOUNT_INFO => super::accounts::account_info(w, ctx, &a)?,
            spec::GET_ACCOUNT_ADGROUP_INFO => super::accounts::adgroup_info(w, ctx, &a)?,
            spec::DAILY_DATA => super::reports::daily(w, ctx, &a)?,
            spec::HOURLY_DATA => super::reports::hourly(w, ctx, &a)?,
            spec::SEARCH => super::insight::search(w, &a)?,
            spec::GET_TOP_GOOD_CREATIVE => super::insight::top_good_creative(w, &a)?,
            spec::SUMMARIZE_RESULTS => {
                let (outcome, value) = super::insight::summarize(&a)?;
                return Ok(Reply::End(outcome, value));
            }
            _ => {
                let tool = &self.external[pos - self.builtins];
                if let Some(arg) = tool.data_argument() {
                    if !ctx.state.has_data() {
                        ctx.violation(
                            arg,
                            FlagKind::NoDataFetched,
                            format!("{name} ran before any data was fetched"),
                        )?;
                    }
                }
                tool.run(args, ctx.state)?
            }
        };
        Ok(Reply::Data(data))
    }
}

/// What a tool hands back to dispatch.
enum Reply {
    /// A result to store and show.
    Data(Value),
    /// The episode's end.
    End(Outcome, Value),
}
