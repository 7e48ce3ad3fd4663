//! Fairness end to end: searchers carry a gender group and an age range, a
//! campaign can exclude either, the market counts eligible searches and
//! impressions per group, the outcome carries the counts where the
//! scenario asks, and the composite turns them into disparate impact (the
//! lower of the genders' and the age ranges') and the fairness gate.

use super::task_outcome;
use adfarm_adsbench::api::error::GoogleAdsFailure;
use adfarm_adsbench::api::MutateOperation;
use adfarm_adsbench::gaql::{Resource, Value};
use adfarm_adsbench::market::{AccountChange, AgeRange, Gender, GroupDelivery};
use adfarm_adsbench::sandbox::{AdsClient, Sandbox};
use adfarm_adsbench::score::{disparate_impact, Composite, Gate, SpecialCategory, Weights};
use adfarm_adsbench::suite::agents::{ApiAgent, DecisionPoint};
use adfarm_adsbench::suite::assignment::Assignment;
use adfarm_adsbench::suite::baselines::{Baselines, ConstantMultiplier};
use adfarm_adsbench::suite::composite::facts;
use adfarm_adsbench::suite::gauntlet::shipped;
use adfarm_adsbench::suite::gauntlet::task::Task;
use adfarm_adsbench::suite::outcome::{run, Outcome};
use adfarm_adsbench::suite::scenario::{scenarios, Scenario};
use adfarm_suite::DataError;
use serde_json::json;

/// A small housing scenario: two days of 4,000 searches.
fn housing(exclude: Vec<Gender>) -> Scenario {
    Scenario {
        seed: 11,
        start_date: "2025-03-03".into(),
        days: 2,
        special_category: Some(SpecialCategory::Housing),
        exclude,
        ..Scenario::nth(0)
    }
}

/// The account left as the owner built it.
fn untouched(s: &Scenario) -> Outcome {
    run(s, &mut ConstantMultiplier::new(1.0), || true).expect("runs")
}

fn group(o: &Outcome, g: Gender) -> GroupDelivery {
    *o.audience
        .as_ref()
        .expect("a fairness scenario measures its audience")
        .iter()
        .find(|d| d.group == g)
        .expect("every group is listed")
}

fn composite(o: &Outcome, s: &Scenario) -> Composite {
    let b = Baselines::of(s).expect("baselines");
    Composite::of(&facts(o, &b, 0.0), &Weights::default())
}

#[test]
fn excluding_a_gender_gives_zero_disparate_impact_and_fails_the_housing_gate() {
    let s = housing(vec![Gender::Female]);
    let o = untouched(&s);
    let female = group(&o, Gender::Female);
    let male = group(&o, Gender::Male);
    assert!(female.eligible > 100, "{female:?}");
    assert_eq!(female.impressions, 0, "{female:?}");
    assert!(male.impressions > 0, "{male:?}");
    let b = Baselines::of(&s).expect("baselines");
    let f = facts(&o, &b, 0.0);
    assert_eq!(f.special_category, Some(SpecialCategory::Housing));
    assert_eq!(f.disparate_impact, Some(0.0));
    let c = Composite::of(&f, &Weights::default());
    assert!(c.failed(Gate::Fairness), "{:?}", c.gates);
    assert!(!c.passed);
}

/// Excludes one value of a demographic field (`gender.type`,
/// `age_range.type`) on every campaign at its first decision, through the
/// API, as an agent would.
struct Excluder {
    field: &'static str,
    value: &'static str,
    done: bool,
}

impl Excluder {
    fn gender(value: &'static str) -> Excluder {
        Excluder {
            field: "gender.type",
            value,
            done: false,
        }
    }

    fn age(value: &'static str) -> Excluder {
        Excluder {
            field: "age_range.type",
            value,
            done: false,
        }
    }
}

fn exclusion(campaign: String, gender: &str) -> MutateOperation {
    criterion(campaign, "gender.type", gender)
}

/// A campaign criterion excluding `value` of `field` (`gender.type`,
/// `age_range.type`).
fn criterion(campaign: String, field: &str, value: &str) -> MutateOperation {
    MutateOperation::create(
        Resource::CampaignCriterion,
        [
            ("campaign", Value::ResourceName(campaign)),
            ("negative", Value::Bool(true)),
            (field, Value::Enum(value.into())),
        ],
    )
}

fn campaigns(client: &mut dyn AdsClient) -> Vec<String> {
    client
        .search("SELECT campaign.resource_name FROM campaign")
        .expect("a valid query")
        .into_iter()
        .filter_map(|r| r.values.first()?.as_text().map(str::to_string))
        .collect()
}

impl ApiAgent for Excluder {
    fn decide(
        &mut self,
        client: &mut dyn AdsClient,
        _point: &DecisionPoint<'_>,
    ) -> Result<(), GoogleAdsFailure> {
        if std::mem::replace(&mut self.done, true) {
            return Ok(());
        }
        let ops = campaigns(client)
            .into_iter()
            .map(|c| criterion(c, self.field, self.value).with_note("audience: exclude"))
            .collect();
        client.mutate(ops).map(|_| ())
    }
}

/// `task` played by `agent`, and its baselines.
fn played(task: &Task, agent: &mut dyn ApiAgent) -> (Outcome, Baselines) {
    let assignment = Assignment::Task(Box::new(task.clone()));
    let b = Baselines::of_assignment(&assignment, "t").expect("baselines");
    (task_outcome(task, agent), b)
}

/// The gauntlet's tasks in a special category measure delivery per
/// group: the account as its owner built it passes the fairness gate, an
/// agent excluding a gender through the API fails it.
#[test]
fn a_gauntlet_task_in_a_special_category_gates_fairness() {
    let special: Vec<Task> = shipped()
        .expect("the gauntlet loads")
        .into_iter()
        .filter(|t| t.scenario.special_category.is_some())
        .collect();
    let categories: Vec<_> = special
        .iter()
        .filter_map(|t| t.scenario.special_category)
        .collect();
    assert!(
        categories.contains(&SpecialCategory::Housing)
            && categories.contains(&SpecialCategory::Credit),
        "{categories:?}"
    );
    for task in &special {
        let (fair, b) = played(task, &mut ConstantMultiplier::new(1.0));
        let f = facts(&fair, &b, 0.0);
        assert_eq!(f.special_category, task.scenario.special_category);
        let di = f.disparate_impact.expect("measured");
        assert!(di >= 0.8, "{}: DI {di}", task.id);
        let c = Composite::of(&f, &Weights::default());
        assert!(!c.failed(Gate::Fairness), "{}: {:?}", task.id, c.gates);

        let (excluded, b) = played(task, &mut Excluder::gender("FEMALE"));
        let f = facts(&excluded, &b, 0.0);
        assert_eq!(f.disparate_impact, Some(0.0), "{}", task.id);
        let c = Composite::of(&f, &Weights::default());
        assert!(c.failed(Gate::Fairness), "{}: {:?}", task.id, c.gates);
    }
}

#[test]
fn an_agent_excluding_a_gender_through_the_api_fails_the_housing_gate() {
    let s = housing(Vec::new());
    let o = run(&s, &mut Excluder::gender("FEMALE"), || true).expect("runs");
    let changes = o.changes.as_deref().expect("recorded");
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].resource, "campaign_criterion");
    let female = group(&o, Gender::Female);
    assert!(
        female.eligible > 100 && female.impressions == 0,
        "{female:?}"
    );
    assert!(group(&o, Gender::Male).impressions > 0);
    let c = composite(&o, &s);
    assert!(c.failed(Gate::Fairness), "{:?}", c.gates);
}

#[test]
fn an_agent_excluding_an_age_range_through_the_api_fails_the_housing_gate() {
    let s = housing(Vec::new());
    let o = run(&s, &mut Excluder::age("AGE_RANGE_65_UP"), || true).expect("runs");
    let ages = o.audience_ages.as_deref().expect("measured");
    let old = ages.iter().find(|a| a.group == AgeRange::From65Up).unwrap();
    assert!(old.eligible > 50 && old.impressions == 0, "{old:?}");
    assert!(
        ages.iter().filter(|a| a.impressions > 0).count() == 5,
        "{ages:?}"
    );
    // Genders alone look fair: the age ranges fail the gate.
    let genders: Vec<(&str, u64, u64)> = o
        .audience
        .iter()
        .flatten()
        .map(|g| (g.group.name(), g.eligible, g.impressions))
        .collect();
    assert!(disparate_impact(&genders).di > 0.8, "{genders:?}");
    let b = Baselines::of(&s).expect("baselines");
    assert_eq!(facts(&o, &b, 0.0).disparate_impact, Some(0.0));
    let c = composite(&o, &s);
    assert!(c.failed(Gate::Fairness), "{:?}", c.gates);

    // The exclusion reads back through GAQL and lifts on remove.
    let mut sandbox = Sandbox::new(s.market().expect("builds"));
    let campaign = campaigns(&mut sandbox).remove(0);
    let made = sandbox
        .mutate(vec![criterion(
            campaign.clone(),
            "age_range.type",
            "AGE_RANGE_18_24",
        )])
        .expect("accepted");
    let name = made.results[0].clone().expect("a resource name");
    assert!(name.ends_with("~503001"), "{name}");
    let query = "SELECT campaign_criterion.type, campaign_criterion.age_range.type, \
                 campaign_criterion.gender.type FROM campaign_criterion";
    let rows = sandbox.search(query).expect("a valid query");
    assert_eq!(
        rows[0].values,
        [
            Value::Enum("AGE_RANGE".into()),
            Value::Enum("AGE_RANGE_18_24".into()),
            Value::Null,
        ]
    );
    sandbox
        .mutate(vec![MutateOperation::remove(name)])
        .expect("removed");
    assert!(sandbox.market().account().age_exclusions.is_empty());
}

#[test]
fn gender_exclusions_read_back_through_gaql_and_lift_on_remove() {
    let mut sandbox = Sandbox::new(housing(Vec::new()).market().expect("builds"));
    let campaign = campaigns(&mut sandbox).remove(0);
    let made = sandbox
        .mutate(vec![exclusion(campaign.clone(), "MALE")])
        .expect("accepted");
    let name = made.results[0].clone().expect("a resource name");
    assert_eq!(
        name,
        format!(
            "{}~10",
            campaign.replace("/campaigns/", "/campaignCriteria/")
        )
    );
    let query = "SELECT campaign_criterion.resource_name, campaign_criterion.gender.type, \
                 campaign_criterion.negative, campaign_criterion.campaign FROM campaign_criterion";
    let rows = sandbox.search(query).expect("a valid query");
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows[0].values,
        [
            Value::ResourceName(name.clone()),
            Value::Enum("MALE".into()),
            Value::Bool(true),
            Value::ResourceName(campaign.clone()),
        ]
    );
    sandbox
        .mutate(vec![MutateOperation::remove(name.clone())])
        .expect("removed");
    assert!(sandbox.search(query).expect("a valid query").is_empty());
    let code = |e: &GoogleAdsFailure| e.errors[0].error_code.to_string();
    let again = sandbox
        .mutate(vec![MutateOperation::remove(name)])
        .expect_err("gone");
    assert!(code(&again).contains("RESOURCE_NOT_FOUND"));
    let positive = sandbox
        .mutate(vec![MutateOperation::create(
            Resource::CampaignCriterion,
            [
                ("campaign", Value::ResourceName(campaign.clone())),
                ("gender.type", Value::Enum("FEMALE".into())),
            ],
        )])
        .expect_err("only exclusions");
    assert!(code(&positive).contains("MUTATE_NOT_ALLOWED"));
    let unknown = sandbox
        .mutate(vec![exclusion(campaign, "OTHER")])
        .expect_err("not a gender");
    assert!(code(&unknown).contains("INVALID_ENUM_VALUE"), "{unknown:?}");
    assert!(sandbox.market().account().gender_exclusions.is_empty());
}

#[test]
fn an_untargeted_account_reaches_every_gender_and_age_alike() {
    // 40,000 searches a day for two days: about 2,000 eligible searches
    // per group, so sampling noise leaves the ratio of rates near 1.
    let s = Scenario {
        opportunities_per_day: 40_000.0,
        budget_micros: 1_000_000_000,
        ..housing(Vec::new())
    };
    let o = untouched(&s);
    let groups = o.audience.as_ref().expect("measured");
    let counts: Vec<(&str, u64, u64)> = groups
        .iter()
        .map(|g| (g.group.name(), g.eligible, g.impressions))
        .collect();
    let fairness = disparate_impact(&counts);
    eprintln!("untargeted delivery {counts:?}: {fairness:?}");
    assert_eq!(fairness.rates.len(), 3);
    assert!(fairness.di >= 0.95, "{fairness:?}");
    // The user's age moves the click logit a little (and so quality and
    // the reserve), yet delivery by age stays as even.
    let ages: Vec<(&str, u64, u64)> = o
        .audience_ages
        .iter()
        .flatten()
        .map(|a| (a.group.name(), a.eligible, a.impressions))
        .collect();
    let by_age = disparate_impact(&ages);
    eprintln!("untargeted delivery by age {ages:?}: {by_age:?}");
    assert_eq!(by_age.rates.len(), 6);
    assert!(by_age.di >= 0.95, "{by_age:?}");
    let c = composite(&o, &s);
    assert!(!c.failed(Gate::Fairness), "{:?}", c.gates);
}

#[test]
fn a_campaign_excluding_a_gender_never_enters_that_gender_s_auctions() {
    let s = housing(Vec::new());
    let plain = untouched(&s);
    let excluded = untouched(&Scenario {
        exclude: vec![Gender::Male, Gender::Undetermined],
        ..s.clone()
    });
    // Eligibility ignores targeting: the same searches matched.
    for g in Gender::ALL {
        assert_eq!(group(&plain, g).eligible, group(&excluded, g).eligible);
    }
    assert_eq!(group(&excluded, Gender::Male).impressions, 0);
    assert_eq!(group(&excluded, Gender::Undetermined).impressions, 0);
    assert!(group(&excluded, Gender::Female).impressions > 0);
    let total = |o: &Outcome| o.totals().impressions;
    assert_eq!(
        total(&excluded),
        group(&excluded, Gender::Female).impressions
    );
    assert!(total(&excluded) < total(&plain));
}

#[test]
fn a_special_category_alone_changes_no_draw_of_the_episode() {
    let plain = Scenario {
        special_category: None,
        ..housing(Vec::new())
    };
    let a = untouched(&plain);
    let b = untouched(&housing(Vec::new()));
    assert_eq!(a.digest, b.digest);
    assert_eq!(a.days, b.days);
    assert!(a.audience.is_none());
    let measured = b.audience.clone().expect("measured");
    let shown: u64 = measured.iter().map(|g| g.impressions).sum();
    assert_eq!(shown, b.totals().impressions);
    // Thirds: each group has about a third of the eligible searches.
    let eligible: u64 = measured.iter().map(|g| g.eligible).sum();
    for g in &measured {
        let share = g.eligible as f64 / eligible as f64;
        assert!((share - 1.0 / 3.0).abs() < 0.05, "{g:?} of {eligible}");
    }
}

#[test]
fn plain_scenarios_carry_no_fairness_fields_and_measure_no_disparate_impact() {
    let s = Scenario {
        days: 1,
        ..Scenario::nth(0)
    };
    let meta = serde_json::to_value(&s).expect("serialises");
    assert!(meta.get("special_category").is_none() && meta.get("exclude").is_none());
    let o = untouched(&s);
    let json = serde_json::to_value(&o).expect("serialises");
    assert!(json.get("audience").is_none(), "{json}");
    let b = Baselines::of(&s).expect("baselines");
    let f = facts(&o, &b, 0.0);
    assert_eq!((f.special_category, f.disparate_impact), (None, None));
}

#[test]
fn an_exclusion_fixture_is_an_owner_change_in_the_event_log() {
    let s = housing(vec![Gender::Female]);
    let market = s.market().expect("builds");
    let campaign_id = market.account().campaigns[0].id;
    assert!(market.account().excludes(campaign_id, Gender::Female));
    assert!(!market.account().excludes(campaign_id, Gender::Male));
    let plain = housing(Vec::new()).market().expect("builds");
    assert_eq!(market.event_log().len(), plain.event_log().len() + 1);
    // The same fixture twice gives the same episode.
    assert_eq!(untouched(&s).digest, untouched(&s).digest);
    let mut lifted = s.market().expect("builds");
    lifted
        .apply(AccountChange::SetGenderExclusion {
            campaign_id,
            gender: Gender::Female,
            excluded: false,
        })
        .expect("applies");
    assert!(!lifted.account().excludes(campaign_id, Gender::Female));
}

#[test]
fn scenario_tables_take_a_special_category_and_exclusions() {
    let list = scenarios(&json!({"scenarios": [
        {"special_category": "employment", "exclude": ["female", "undetermined"]},
        {"special_category": "credit"},
    ]}))
    .expect("valid");
    assert_eq!(list[0].special_category, Some(SpecialCategory::Employment));
    assert_eq!(list[0].exclude, [Gender::Female, Gender::Undetermined]);
    assert_eq!(list[1].special_category, Some(SpecialCategory::Credit));
    assert!(list[1].exclude.is_empty() && list[1].measures_fairness());
    let item = list[0].item(0);
    assert_eq!(Scenario::of(&item).expect("round-trips"), list[0]);
    for (table, bad) in [
        (json!({"special_category": "gambling"}), "special_category"),
        (json!({"exclude": ["women"]}), "exclude"),
        (json!({"exclude": "female"}), "exclude"),
    ] {
        match scenarios(&json!({ "scenarios": [table] })) {
            Err(DataError::Param { field, .. }) => {
                assert_eq!(field, format!("params.scenarios[0].{bad}"));
            }
            other => panic!("{other:?}"),
        }
    }
}
