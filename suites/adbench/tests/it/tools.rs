//! The tools as an agent sees them: published schemas, happy paths, every
//! bad argument rejected by name, dependency flags (and errors under strict
//! dependencies), result ids, the episode's end, and byte-identical replays.

use adfarm_adbench::tools::{
    Call, Config, EpisodeState, ExternalTool, FlagKind, Observation, Outcome, Platform, ToolError,
    OBSERVATION_CHARS,
};
use adfarm_adbench::world::{Day, World};
use adfarm_llm::Tool;
use serde_json::{json, Value};

const D: &str = "2026-11-20";

fn platform(strict: bool) -> Platform {
    let w = World::new(2026, Day::parse(D).expect("date"), 12).expect("world");
    Platform::new(
        w,
        Config {
            strict_dependencies: strict,
        },
    )
}

fn parse(o: &Observation) -> Value {
    serde_json::from_str(&o.text).expect("observations are JSON")
}

/// The largest user's id and account ids.
fn largest(p: &Platform) -> (u64, Vec<u64>) {
    let w = p.world();
    let u = w.largest_user();
    (
        w.users()[u].id,
        w.users()[u]
            .accounts
            .iter()
            .map(|&a| w.accounts()[a].id)
            .collect(),
    )
}

/// An episode that has listed the largest user's accounts.
fn listed(p: &Platform) -> (EpisodeState, u64, Vec<u64>) {
    let (user, accounts) = largest(p);
    let mut st = EpisodeState::default();
    let o = p.call(
        &mut st,
        "get_user_account_list",
        &json!({"user_id": user, "page_size": 100}),
    );
    assert!(o.ok(), "{}", o.text);
    (st, user, accounts)
}

fn daily_args(user: u64, accounts: &[u64], group: &str) -> Value {
    json!({
        "user_id": user, "begin": "2026-11-01", "end": "2026-11-19", "group_by_type": group,
        "fields": ["cost", "view_count", "valid_click_count", "ctr", "cpc", "conversions_count", "conversions_rate", "conversions_cost"],
        "account_id_list": accounts, "page_size": 100,
    })
}

#[test]
fn schemas_are_published_for_every_tool() {
    let p = platform(false);
    let names: Vec<&str> = p.specs().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "get_user_account_list",
            "get_account_info",
            "get_account_adgroup_info",
            "daily_data_by_group_and_field",
            "hourly_data_by_group_and_field",
            "search",
            "get_top_good_creative",
            "summarize_results"
        ]
    );
    for t in p.specs() {
        assert_eq!(t.parameters["type"], "object", "{}", t.name);
        assert_eq!(t.parameters["additionalProperties"], false, "{}", t.name);
        let props = t.parameters["properties"].as_object().expect("properties");
        for r in t.parameters["required"].as_array().expect("required") {
            assert!(
                props.contains_key(r.as_str().expect("name")),
                "{} requires undeclared {r}",
                t.name
            );
        }
        assert!(!t.description.is_empty());
    }
    let daily = &p.specs()[3].parameters["properties"];
    assert_eq!(
        daily["group_by_type"]["enum"].as_array().map(Vec::len),
        Some(15)
    );
    assert_eq!(
        daily["fields"]["items"]["enum"].as_array().map(Vec::len),
        Some(11)
    );
    assert_eq!(
        p.specs()[4].parameters["properties"]["group_by_type"]["enum"]
            .as_array()
            .map(Vec::len),
        Some(7)
    );
}

#[test]
fn happy_path_through_every_tool() {
    let p = platform(false);
    let (mut st, user, accounts) = listed(&p);
    let listing = parse(&p.call(
        &mut EpisodeState::default(),
        "get_user_account_list",
        &json!({"user_id": user, "page_size": 100}),
    ));
    assert_eq!(listing["total_rows"], accounts.len());
    assert_eq!(listing["rows"][0]["Account ID"], accounts[0]);

    let info = p.call(
        &mut st,
        "get_account_info",
        &json!({"user_id": user, "account_id_list": accounts}),
    );
    assert!(info.ok(), "{}", info.text);
    let info = parse(&info);
    assert_eq!(info["rows"].as_array().map(Vec::len), Some(accounts.len()));
    assert!(info["rows"][0]["Daily budget (CNY)"]
        .as_f64()
        .is_some_and(|b| b > 0.0));

    let groups = p.call(
        &mut st,
        "get_account_adgroup_info",
        &json!({"user_id": user, "account_id": accounts[0].to_string()}),
    );
    assert!(groups.ok(), "{}", groups.text);
    let groups = parse(&groups);
    let first = &groups["rows"][0];
    assert!(first["Ad group ID"].as_u64().is_some());
    assert!(first["Creatives"].is_array());
    let gid = first["Ad group ID"].as_u64().expect("id");
    let one = parse(&p.call(
        &mut st,
        "get_account_adgroup_info",
        &json!({"user_id": user, "account_id": accounts[0], "adgroup_id_list": [gid]}),
    ));
    assert_eq!(one["total_rows"], 1);

    let daily = p.call(
        &mut st,
        "daily_data_by_group_and_field",
        &daily_args(user, &accounts, "DATE"),
    );
    assert!(daily.ok(), "{}", daily.text);
    let daily = parse(&daily);
    assert_eq!(daily["total_rows"], 19);
    assert_eq!(daily["rows"][0]["Date"], "2026-11-01");
    assert!(daily["rows"][0]["Cost (CNY)"].as_f64().is_some());
    assert_eq!(daily["columns"][0], "Date");

    let ordered = parse(&p.call(&mut st, "daily_data_by_group_and_field", &{
        let mut a = daily_args(user, &accounts, "ADGROUP_ID");
        a["order_by"] = json!("cost desc");
        a["page_size"] = json!(5);
        a
    }));
    let costs: Vec<f64> = ordered["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["Cost (CNY)"].as_f64().expect("cost"))
        .collect();
    assert_eq!(costs.len(), 5);
    assert!(costs.windows(2).all(|w| w[0] >= w[1]), "{costs:?}");
    let page2 = parse(&p.call(&mut st, "daily_data_by_group_and_field", &{
        let mut a = daily_args(user, &accounts, "ADGROUP_ID");
        a["order_by"] = json!("cost desc");
        a["page_size"] = json!(5);
        a["page"] = json!(2);
        a
    }));
    assert!(page2["rows"][0]["Cost (CNY)"].as_f64().expect("cost") <= costs[4]);

    let hourly = p.call(
        &mut st,
        "hourly_data_by_group_and_field",
        &json!({"user_id": user, "date": D, "group_by_type": "HOUR", "fields": ["cost", "ctr"], "page_size": 24}),
    );
    assert!(hourly.ok(), "{}", hourly.text);
    let hourly = parse(&hourly);
    assert!(hourly["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .all(|r| r["Hour"].as_u64().expect("hour") < 12));

    let search = parse(&p.call(&mut st, "search", &json!({"query": "conversion cost"})));
    assert_eq!(search["rows"].as_array().map(Vec::len), Some(3));
    assert!(search["rows"].to_string().contains("conversion"));

    let top = p.call(
        &mut st,
        "get_top_good_creative",
        &json!({"industry": "GAME", "site_set": "SITE_SET_MOMENTS", "creative_type": "VIDEO"}),
    );
    assert!(top.ok(), "{}", top.text);
    let top = parse(&top);
    let bench = top["benchmark"]["CTR (%)"].as_f64().expect("benchmark");
    let rows = top["rows"].as_array().expect("rows");
    assert!(!rows.is_empty() && rows.len() <= 5);
    assert!(rows
        .iter()
        .all(|r| r["CTR (%)"].as_f64().expect("ctr") >= bench));

    assert!(st.flags.is_empty(), "{:?}", st.flags);
    let n = st.results.len();
    assert_eq!(
        st.results.last().map(|r| r.id.clone()),
        Some(format!("r{n}"))
    );
    let end = p.call(&mut st, "summarize_results", &json!({"query": "Resolved"}));
    assert!(end.ended && end.ok());
    assert_eq!(st.outcome, Some(Outcome::Resolved));
    let after = p.call(&mut st, "search", &json!({"query": "ctr"}));
    assert_eq!(after.error_code.as_deref(), Some("episode-ended"));
}

#[test]
fn the_account_list_shows_the_last_day_each_account_spent() {
    // D0+9, a date the suite replays on, where an account had stopped
    // spending before yesterday.
    let d = Day::parse("2026-08-03").expect("date");
    let p = Platform::new(World::new(2026, d, 12).expect("world"), Config::default());
    let (mut before_yesterday, mut never) = (0, 0);
    for u in p.world().users() {
        let mut st = EpisodeState::default();
        let list = parse(&p.call(
            &mut st,
            "get_user_account_list",
            &json!({"user_id": u.id, "page_size": 100}),
        ));
        for row in list["rows"].as_array().expect("rows") {
            let id = row["Account ID"].as_u64().expect("id");
            let Some(last) = row["Last consumption date"].as_str() else {
                assert!(row["Last consumption date"].is_null(), "{row}");
                never += 1;
                continue;
            };
            let last = Day::parse(last).expect("a date");
            assert!(last < d, "{id}: {last} is not before {d}");
            if last < d.plus(-1) {
                before_yesterday += 1;
            }
            // It spent on that day and on none after it, up to yesterday.
            let r = parse(&p.call(
                &mut st,
                "daily_data_by_group_and_field",
                &json!({
                    "user_id": u.id, "begin": last.to_string(), "end": d.plus(-1).to_string(),
                    "group_by_type": "DATE", "fields": ["cost"], "account_id_list": [id],
                    "page_size": 100,
                }),
            ));
            for day in r["rows"].as_array().expect("rows") {
                let cost = day["Cost (CNY)"].as_f64().expect("cost");
                if day["Date"] == last.to_string() {
                    assert!(cost > 0.0, "{id} on {last}: {day}");
                } else {
                    assert_eq!(cost, 0.0, "{id}, last spent {last}: {day}");
                }
            }
            assert!(
                r["rows"]
                    .as_array()
                    .expect("rows")
                    .iter()
                    .any(|day| day["Date"] == last.to_string()),
                "{id}: no row for {last}: {r}"
            );
        }
    }
    eprintln!(
        "{} accounts: {before_yesterday} last spent before yesterday, {never} never",
        p.world().accounts().len()
    );
    assert!(before_yesterday > 0);
}

#[test]
fn ratios_in_rows_come_from_the_rows_counts_and_groupings_add_up() {
    let p = platform(false);
    let (mut st, user, accounts) = listed(&p);
    let sum = parse(&p.call(
        &mut st,
        "daily_data_by_group_and_field",
        &daily_args(user, &accounts, "SUM"),
    ));
    let sum = &sum["rows"][0];
    for group in ["DATE", "SITE_SET", "ADGROUP_ID", "GENDER", "CITY"] {
        let r = parse(&p.call(
            &mut st,
            "daily_data_by_group_and_field",
            &daily_args(user, &accounts, group),
        ));
        let rows = r["rows"].as_array().expect("rows");
        let views: u64 = rows
            .iter()
            .map(|x| x["Impressions"].as_u64().expect("views"))
            .sum();
        let clicks: u64 = rows
            .iter()
            .map(|x| x["Valid clicks"].as_u64().expect("clicks"))
            .sum();
        assert_eq!(
            views,
            sum["Impressions"].as_u64().expect("views"),
            "{group}"
        );
        assert_eq!(
            clicks,
            sum["Valid clicks"].as_u64().expect("clicks"),
            "{group}"
        );
        for x in rows {
            let v = x["Impressions"].as_f64().expect("views");
            let c = x["Valid clicks"].as_f64().expect("clicks");
            let ctr = (c / v * 10_000.0).round() / 100.0;
            assert_eq!(x["CTR (%)"].as_f64(), Some(ctr), "{group}: {x}");
            if c > 0.0 {
                let cpc = (x["Cost (CNY)"].as_f64().expect("cost") / c * 100.0).round() / 100.0;
                assert!(
                    (x["CPC (CNY)"].as_f64().expect("cpc") - cpc).abs() <= 0.011,
                    "{group}: {x}"
                );
            }
        }
    }
    let ctr = (sum["Valid clicks"].as_f64().expect("c") / sum["Impressions"].as_f64().expect("v")
        * 10_000.0)
        .round()
        / 100.0;
    assert_eq!(sum["CTR (%)"].as_f64(), Some(ctr));
}

/// Calls `tool` with `args` and expects an error naming `arg`.
fn rejects(p: &Platform, st: &mut EpisodeState, tool: &str, args: Value, arg: &str) {
    let o = p.call(st, tool, &args);
    assert!(!o.ok(), "{tool} accepted {args}");
    let v = parse(&o);
    assert_eq!(v["argument"], arg, "{tool} {args}: {}", o.text);
    assert!(
        v["error"].as_str().expect("message").contains(arg),
        "{}",
        o.text
    );
    assert!(o.result_id.is_none());
}

/// `base` with `key` set to `value` (or removed when `value` is null).
fn with(base: &Value, key: &str, value: Value) -> Value {
    let mut v = base.clone();
    if value.is_null() {
        v.as_object_mut().expect("object").remove(key);
    } else {
        v[key] = value;
    }
    v
}

#[test]
fn each_bad_argument_is_rejected_by_name() {
    let p = platform(false);
    let (mut st, user, accounts) = listed(&p);
    let other_user = p
        .world()
        .users()
        .iter()
        .map(|u| u.id)
        .find(|&u| u != user)
        .expect("two users");
    let st = &mut st;
    let list = json!({"user_id": user, "page_size": 10});
    rejects(
        &p,
        st,
        "get_user_account_list",
        with(&list, "user_id", json!(1)),
        "user_id",
    );
    rejects(
        &p,
        st,
        "get_user_account_list",
        with(&list, "user_id", json!("abc")),
        "user_id",
    );
    rejects(
        &p,
        st,
        "get_user_account_list",
        with(&list, "user_id", Value::Null),
        "user_id",
    );
    rejects(
        &p,
        st,
        "get_user_account_list",
        with(&list, "page_size", json!(0)),
        "page_size",
    );
    rejects(
        &p,
        st,
        "get_user_account_list",
        with(&list, "page_size", json!(101)),
        "page_size",
    );
    rejects(
        &p,
        st,
        "get_user_account_list",
        with(&list, "page", json!(99)),
        "page",
    );
    rejects(
        &p,
        st,
        "get_user_account_list",
        with(&list, "colour", json!("red")),
        "colour",
    );

    let info = json!({"user_id": user, "account_id_list": accounts});
    rejects(
        &p,
        st,
        "get_account_info",
        with(&info, "account_id_list", json!([])),
        "account_id_list",
    );
    rejects(
        &p,
        st,
        "get_account_info",
        with(&info, "account_id_list", json!([123])),
        "account_id_list",
    );
    rejects(
        &p,
        st,
        "get_account_info",
        with(&info, "account_id_list", json!([accounts[0], accounts[0]])),
        "account_id_list",
    );
    rejects(
        &p,
        st,
        "get_account_info",
        with(&info, "user_id", json!(other_user)),
        "account_id_list",
    );

    let groups = json!({"user_id": user, "account_id": accounts[0]});
    rejects(
        &p,
        st,
        "get_account_adgroup_info",
        with(&groups, "account_id", json!(5)),
        "account_id",
    );
    rejects(
        &p,
        st,
        "get_account_adgroup_info",
        with(&groups, "adgroup_id_list", json!([42])),
        "adgroup_id_list",
    );
    rejects(
        &p,
        st,
        "get_account_adgroup_info",
        with(&groups, "page_size", json!(-3)),
        "page_size",
    );

    let daily = daily_args(user, &accounts, "DATE");
    let tool = "daily_data_by_group_and_field";
    rejects(
        &p,
        st,
        tool,
        with(&daily, "begin", json!("2026-13-01")),
        "begin",
    );
    rejects(
        &p,
        st,
        tool,
        with(&daily, "begin", json!("2024-01-01")),
        "begin",
    );
    rejects(
        &p,
        st,
        tool,
        with(&daily, "end", json!("2026-11-21")),
        "end",
    );
    rejects(
        &p,
        st,
        tool,
        with(&daily, "end", json!("2026-10-01")),
        "end",
    );
    rejects(
        &p,
        st,
        tool,
        with(&daily, "group_by_type", json!("HOUR")),
        "group_by_type",
    );
    rejects(
        &p,
        st,
        tool,
        with(&daily, "fields", json!(["cost", "roi"])),
        "fields",
    );
    rejects(&p, st, tool, with(&daily, "fields", json!([])), "fields");
    rejects(
        &p,
        st,
        tool,
        with(&daily, "fields", json!(["cost", "cost"])),
        "fields",
    );
    rejects(
        &p,
        st,
        tool,
        with(&daily, "account_id_list", Value::Null),
        "account_id_list",
    );
    rejects(
        &p,
        st,
        tool,
        with(&daily, "page_size", Value::Null),
        "page_size",
    );
    rejects(
        &p,
        st,
        tool,
        with(&daily, "adgroup_id", json!(77)),
        "adgroup_id",
    );
    rejects(
        &p,
        st,
        tool,
        with(&daily, "order_by", json!("cpm desc")),
        "order_by",
    );
    rejects(
        &p,
        st,
        tool,
        with(&daily, "order_by", json!("deep_conversions_count")),
        "order_by",
    );
    rejects(
        &p,
        st,
        tool,
        with(&daily, "order_by", json!("cost sideways")),
        "order_by",
    );

    let hourly = json!({"user_id": user, "date": "2026-11-19", "group_by_type": "HOUR", "fields": ["cost"], "page_size": 24});
    let tool = "hourly_data_by_group_and_field";
    rejects(
        &p,
        st,
        tool,
        with(&hourly, "date", json!("2026-11-21")),
        "date",
    );
    rejects(
        &p,
        st,
        tool,
        with(&hourly, "date", json!("19/11/2026")),
        "date",
    );
    rejects(
        &p,
        st,
        tool,
        with(&hourly, "group_by_type", json!("DATE")),
        "group_by_type",
    );
    rejects(
        &p,
        st,
        tool,
        with(&hourly, "fields", json!("clicks")),
        "fields",
    );
    rejects(
        &p,
        st,
        tool,
        with(&hourly, "account_id_list", json!([1, 2])),
        "account_id_list",
    );

    rejects(
        &p,
        st,
        "search",
        json!({"query": "a query that is far too long"}),
        "query",
    );
    rejects(&p, st, "search", json!({"query": "  "}), "query");
    rejects(&p, st, "search", json!({"query": 5}), "query");
    let top = json!({"industry": "GAME", "site_set": "SITE_SET_QQ", "creative_type": "IMAGE"});
    rejects(
        &p,
        st,
        "get_top_good_creative",
        with(&top, "industry", json!("MINING")),
        "industry",
    );
    rejects(
        &p,
        st,
        "get_top_good_creative",
        with(&top, "site_set", json!("TV")),
        "site_set",
    );
    rejects(
        &p,
        st,
        "get_top_good_creative",
        with(&top, "creative_type", json!("AUDIO")),
        "creative_type",
    );
    rejects(
        &p,
        st,
        "summarize_results",
        json!({"query": "Done"}),
        "query",
    );

    assert!(!st.ended());
    assert_eq!(st.trajectory.len() as u32, st.calls);
    assert!(st.trajectory[1..]
        .iter()
        .all(|c| c.result_id.is_none() && c.error_code.is_some()));
    let o = p.call(st, "no_such_tool", &json!({}));
    assert_eq!(o.error_code.as_deref(), Some("unknown-tool"));
    let o = p.call(st, "search", &json!(["ctr"]));
    assert_eq!(o.error_code.as_deref(), Some("not-an-object"));
    assert!(
        st.flags.is_empty(),
        "bad calls raise no dependency flags: {:?}",
        st.flags
    );
    assert_eq!(st.results.len(), 1, "only the listing was stored");
}

#[test]
fn unlisted_accounts_are_answered_and_flagged_or_refused_when_strict() {
    for strict in [false, true] {
        let p = platform(strict);
        let (user, accounts) = largest(&p);
        let mut st = EpisodeState::default();
        let calls = [
            (
                "get_account_info",
                json!({"user_id": user, "account_id_list": [accounts[0]]}),
                "account_id_list",
            ),
            (
                "get_account_adgroup_info",
                json!({"user_id": user, "account_id": accounts[0]}),
                "account_id",
            ),
            (
                "daily_data_by_group_and_field",
                daily_args(user, &accounts, "SUM"),
                "account_id_list",
            ),
            (
                "hourly_data_by_group_and_field",
                json!({"user_id": user, "date": "2026-11-19", "group_by_type": "SUM", "fields": ["cost"], "page_size": 1, "account_id_list": accounts}),
                "account_id_list",
            ),
        ];
        for (i, (tool, args, arg)) in calls.iter().enumerate() {
            let o = p.call(&mut st, tool, args);
            if strict {
                assert_eq!(o.error_code.as_deref(), Some("dependency"), "{tool}");
                assert_eq!(parse(&o)["argument"], *arg);
            } else {
                assert!(o.ok(), "{tool}: {}", o.text);
                assert!(!o.flags.is_empty(), "{tool} raised no flag");
                assert_eq!(o.flags[0].kind, FlagKind::UnlistedAccount);
                assert_eq!(o.flags[0].argument, *arg);
                assert_eq!(o.flags[0].call, i as u32 + 1);
            }
        }
        // Once listed, the same calls are clean.
        let o = p.call(
            &mut st,
            "get_user_account_list",
            &json!({"user_id": user, "page_size": 100}),
        );
        assert!(o.ok());
        let flags_before = st.flags.len();
        for (tool, args, _) in &calls {
            let o = p.call(&mut st, tool, args);
            assert!(o.ok() && o.flags.is_empty(), "{tool}: {}", o.text);
        }
        assert_eq!(st.flags.len(), flags_before);
        assert_eq!(st.flags.is_empty(), strict);
    }
}

#[test]
fn only_the_listed_page_counts_as_obtained() {
    let p = platform(false);
    let (user, accounts) = largest(&p);
    assert!(accounts.len() >= 2, "the largest user has several accounts");
    let mut st = EpisodeState::default();
    p.call(
        &mut st,
        "get_user_account_list",
        &json!({"user_id": user, "page_size": 1}),
    );
    let o = p.call(
        &mut st,
        "get_account_info",
        &json!({"user_id": user, "account_id_list": [accounts[1]]}),
    );
    assert_eq!(o.flags.len(), 1);
    let o = p.call(
        &mut st,
        "get_account_info",
        &json!({"user_id": user, "account_id_list": [accounts[0]]}),
    );
    assert!(o.flags.is_empty());
}

/// A stand-in for the calculator: sums a column of a stored result.
struct SumColumn;

impl ExternalTool for SumColumn {
    fn spec(&self) -> Tool {
        Tool {
            name: "sum_column".into(),
            description: "Sums a column of an earlier result.".into(),
            parameters: json!({"type": "object", "properties": {"result": {"type": "string"}, "column": {"type": "string"}}, "required": ["result", "column"], "additionalProperties": false}),
        }
    }

    fn data_argument(&self) -> Option<&str> {
        Some("result")
    }

    fn run(&self, args: &Value, state: &EpisodeState) -> Result<Value, ToolError> {
        let id = args["result"]
            .as_str()
            .ok_or_else(|| ToolError::bad("result", "must be a result id"))?;
        let r = state
            .result(id)
            .ok_or_else(|| ToolError::bad("result", format!("no result {id}")))?;
        let col = args["column"].as_str().unwrap_or_default();
        let rows = r.value["rows"]
            .as_array()
            .ok_or_else(|| ToolError::Failed(format!("{id} has no rows")))?;
        Ok(json!({"sum": rows.iter().filter_map(|x| x[col].as_f64()).sum::<f64>()}))
    }
}

#[test]
fn an_external_tool_reads_results_by_id_and_is_flagged_before_any_data() {
    for strict in [false, true] {
        let p = platform(strict).with_tool(Box::new(SumColumn));
        assert_eq!(
            p.specs().last().map(|t| t.name.as_str()),
            Some("sum_column")
        );
        let mut st = EpisodeState::default();
        let early = p.call(
            &mut st,
            "sum_column",
            &json!({"result": "r1", "column": "x"}),
        );
        if strict {
            assert_eq!(early.error_code.as_deref(), Some("dependency"));
        } else {
            assert_eq!(early.flags[0].kind, FlagKind::NoDataFetched);
            assert_eq!(
                early.error_code.as_deref(),
                Some("bad-argument"),
                "r1 does not exist yet"
            );
        }
        let (user, accounts) = largest(&p);
        p.call(
            &mut st,
            "get_user_account_list",
            &json!({"user_id": user, "page_size": 100}),
        );
        let daily = p.call(
            &mut st,
            "daily_data_by_group_and_field",
            &daily_args(user, &accounts, "DATE"),
        );
        let rid = daily.result_id.clone().expect("stored");
        assert_eq!(rid, "r2");
        let sum = p.call(
            &mut st,
            "sum_column",
            &json!({"result": rid, "column": "Valid clicks"}),
        );
        assert_eq!(sum.result_id.as_deref(), Some("r3"));
        let expected: f64 = parse(&daily)["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|r| r["Valid clicks"].as_f64().expect("clicks"))
            .sum();
        assert_eq!(parse(&sum)["sum"].as_f64(), Some(expected));
        let bad = p.call(
            &mut st,
            "sum_column",
            &json!({"result": "r2", "colour": "x"}),
        );
        assert_eq!(parse(&bad)["argument"], "colour");
    }
}

#[test]
fn stored_results_are_what_the_agent_saw_and_long_ones_are_cut() {
    let p = platform(false);
    let (mut st, user, accounts) = listed(&p);
    let o = p.call(
        &mut st,
        "daily_data_by_group_and_field",
        &daily_args(user, &accounts, "CREATIVE_ID"),
    );
    let mut seen = parse(&o);
    assert_eq!(seen["result_id"], "r2");
    seen.as_object_mut().expect("object").remove("result_id");
    assert_eq!(st.result("r2").map(|r| &r.value), Some(&seen));
    assert_eq!(st.bindings().get("r2"), Some(&&seen));
    assert_eq!(st.bindings().len(), 2);
    assert!(
        o.text.chars().count() > OBSERVATION_CHARS,
        "a 100-row page is long"
    );
    let cut = o.cut(OBSERVATION_CHARS);
    assert_eq!(cut.chars().count(), OBSERVATION_CHARS);
    assert!(cut.contains("page"));
    let short = p.call(&mut st, "search", &json!({"query": "ctr"}));
    assert_eq!(short.cut(OBSERVATION_CHARS), short.text);
}

/// A representative episode: listing, info, reports over relative windows.
fn representative(p: &Platform) -> Vec<String> {
    let w = p.world();
    let d = w.today();
    let mut st = EpisodeState::default();
    let mut out = Vec::new();
    for u in 0..w.users().len() {
        let user = w.users()[u].id;
        let accounts: Vec<u64> = w.users()[u]
            .accounts
            .iter()
            .map(|&a| w.accounts()[a].id)
            .collect();
        out.push(
            p.call(
                &mut st,
                "get_user_account_list",
                &json!({"user_id": user, "page_size": 10}),
            )
            .text,
        );
        for (group, back) in [
            ("SUM", 7),
            ("ADGROUP_ID", 7),
            ("DATE", 30),
            ("SITE_SET", 14),
            ("AGE", 30),
        ] {
            let args = json!({
                "user_id": user, "begin": d.plus(-back).to_string(), "end": d.plus(-1).to_string(), "group_by_type": group,
                "fields": ["cost", "ctr", "conversions_count"], "account_id_list": accounts, "page_size": 20,
            });
            out.push(p.call(&mut st, "daily_data_by_group_and_field", &args).text);
        }
        let args = json!({"user_id": user, "date": d.plus(-1).to_string(), "group_by_type": "HOUR", "fields": ["cost"], "page_size": 24});
        out.push(
            p.call(&mut st, "hourly_data_by_group_and_field", &args)
                .text,
        );
    }
    out
}

#[test]
fn replays_are_byte_identical_and_moving_the_date_changes_the_answers() {
    let base = representative(&platform(false));
    assert_eq!(base, representative(&platform(false)));
    for shift in [9, 45] {
        let d = Day::parse(D).expect("date").plus(shift);
        let moved = Platform::new(World::new(2026, d, 12).expect("world"), Config::default());
        let other = representative(&moved);
        // Listing calls carry no dated numbers; count the numeric queries.
        let numeric: Vec<(&String, &String)> = base
            .iter()
            .zip(&other)
            .filter(|(a, _)| !a.contains("Account name"))
            .collect();
        let changed = numeric.iter().filter(|(a, b)| a != b).count();
        eprintln!(
            "shift {shift} days: {changed}/{} numeric answers changed",
            numeric.len()
        );
        assert!(
            changed * 100 >= numeric.len() * 80,
            "shift {shift}: {changed}/{} changed",
            numeric.len()
        );
    }
}

#[test]
fn a_replayed_trajectory_regenerates_its_answer_for_the_date() {
    let p = platform(false);
    let (user, accounts) = largest(&p);
    let d = p.world().today();
    let trajectory = vec![
        Call {
            tool: "get_user_account_list".into(),
            args: json!({"user_id": user, "page_size": 10}),
        },
        Call {
            tool: "daily_data_by_group_and_field".into(),
            args: json!({
                "user_id": user, "begin": d.plus(-7).to_string(), "end": d.plus(-1).to_string(),
                "group_by_type": "SUM", "fields": ["cost"], "account_id_list": accounts, "page_size": 1,
            }),
        },
        Call {
            tool: "summarize_results".into(),
            args: json!({"query": "Resolved"}),
        },
    ];
    let (state, obs) = p.replay(&trajectory);
    assert_eq!(obs.len(), 3);
    assert!(obs.iter().all(Observation::ok), "{obs:?}");
    assert_eq!(state.outcome, Some(Outcome::Resolved));
    assert!(state.flags.is_empty());
    // The state records the trajectory, for coverage scoring.
    let tools: Vec<&str> = state.trajectory.iter().map(|c| c.tool.as_str()).collect();
    let expected: Vec<&str> = trajectory.iter().map(|c| c.tool.as_str()).collect();
    assert_eq!(tools, expected);
    assert_eq!(state.trajectory[1].args, trajectory[1].args);
    assert_eq!(state.trajectory[1].result_id.as_deref(), Some("r2"));
    let (_, again) = platform(false).replay(&trajectory);
    assert_eq!(obs, again);
    // With absolute dates the replay on a later world reads the same past
    // (the world does not rewrite history); relative windows move with D,
    // see `replays_are_byte_identical_and_moving_the_date_changes_the_answers`.
    let later = Platform::new(
        World::new(2026, d.plus(9), 12).expect("world"),
        Config::default(),
    );
    let (_, moved) = later.replay(&trajectory);
    assert!(moved[1].ok());
    assert_eq!(
        parse(&moved[1])["rows"],
        parse(&obs[1])["rows"],
        "the past does not change"
    );
    assert_ne!(
        moved[1].text, obs[1].text,
        "the observation says how far the data goes"
    );
}

#[test]
fn an_ad_group_of_an_unlisted_account_is_flagged_by_its_argument() {
    let p = platform(false);
    let (user, accounts) = largest(&p);
    let w = p.world();
    let a = w.account_by_id(accounts[0]).expect("account");
    let gid = w.groups()[w.accounts()[a].groups[0]].id;
    let args = json!({
        "user_id": user, "date": "2026-11-19", "group_by_type": "HOUR", "fields": ["cost"],
        "page_size": 24, "adgroup_id": gid,
    });
    let mut fresh = EpisodeState::default();
    let o = p.call(&mut fresh, "hourly_data_by_group_and_field", &args);
    assert!(o.ok(), "{}", o.text);
    assert_eq!(o.flags.len(), 1);
    assert_eq!(o.flags[0].argument, "adgroup_id");
    let (mut st, _, _) = listed(&p);
    let o = p.call(&mut st, "hourly_data_by_group_and_field", &args);
    assert!(o.ok() && o.flags.is_empty(), "{}", o.text);
    let strict = platform(true);
    let o = strict.call(
        &mut EpisodeState::default(),
        "hourly_data_by_group_and_field",
        &args,
    );
    assert_eq!(o.error_code.as_deref(), Some("dependency"));
    assert_eq!(parse(&o)["argument"], "adgroup_id");
}

#[test]
fn searching_a_field_name_finds_its_definition() {
    let p = platform(false);
    let mut st = EpisodeState::default();
    for field in p.specs()[3].parameters["properties"]["fields"]["items"]["enum"]
        .as_array()
        .expect("fields")
    {
        let name = field.as_str().expect("name");
        // Queries are at most 20 characters; long names are cut as an agent would.
        let query: String = name.replace('_', " ").chars().take(20).collect();
        let o = p.call(&mut st, "search", &json!({"query": query}));
        let rows = parse(&o)["rows"].clone();
        assert!(rows.to_string().contains(name), "{name}: {rows}");
    }
}

#[test]
fn a_platform_can_be_shared_between_threads() {
    fn shared<T: Send + Sync>(_: &T) {}
    let p = platform(false);
    shared(&p);
    let (user, accounts) = largest(&p);
    let args = daily_args(user, &accounts, "ADGROUP_ID");
    // Two episodes on one platform (one memo) in parallel give one answer.
    let texts: Vec<String> = std::thread::scope(|s| {
        let runs: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut st = EpisodeState::default();
                    p.call(
                        &mut st,
                        "get_user_account_list",
                        &json!({"user_id": user, "page_size": 100}),
                    );
                    p.call(&mut st, "daily_data_by_group_and_field", &args).text
                })
            })
            .collect();
        runs.into_iter()
            .map(|h| h.join().expect("episode thread"))
            .collect()
    });
    assert_eq!(texts[0], texts[1]);
    assert!(texts[0].contains("Ad group ID"));
}
