//! The knowledge base text: metric definitions, platform rules and
//! optimisation guidance, written for this benchmark. Some rules carry an
//! effective date range; a search on a given date sees only rules in force.

/// One passage of the knowledge base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// Stable id, shown with search results.
    pub id: &'static str,
    /// Short title.
    pub title: &'static str,
    /// The passage.
    pub text: &'static str,
    /// First day in force (`YYYY-MM-DD`), if the rule has one.
    pub from: Option<&'static str>,
    /// First day no longer in force, if the rule was replaced.
    pub until: Option<&'static str>,
}

const fn e(id: &'static str, title: &'static str, text: &'static str) -> Entry {
    Entry {
        id,
        title,
        text,
        from: None,
        until: None,
    }
}

const fn dated(
    id: &'static str,
    title: &'static str,
    text: &'static str,
    from: Option<&'static str>,
    until: Option<&'static str>,
) -> Entry {
    Entry {
        id,
        title,
        text,
        from,
        until,
    }
}

/// Every handwritten entry.
pub const ENTRIES: &[Entry] = &[
    // Metric definitions.
    e("M01", "Cost (CNY)", "Cost is the amount charged for delivery in the period, in CNY, summed over the rows of the report. Field: cost."),
    e("M02", "Impressions (view_count)", "Impressions (view_count) count how many times an ad was shown. An impression counts once the ad is at least half visible."),
    e("M03", "Valid clicks", "Valid clicks (valid_click_count) are clicks after invalid-traffic filtering; repeated clicks by one user within seconds count once."),
    e("M04", "CTR", "Click-through rate CTR = valid clicks / impressions x 100%. Compute CTR from summed clicks and impressions, never by averaging daily CTRs. Field: ctr."),
    e("M05", "CPC", "Cost per click CPC = cost / valid clicks, in CNY. For a period, divide total cost by total clicks. Field: cpc."),
    e("M06", "Conversions", "Conversions (conversions_count) count the optimisation goal events attributed to ads: installs, forms, orders, follows or visits, depending on the ad group objective."),
    e("M07", "Conversion rate", "Conversion rate (conversions_rate) = conversions / valid clicks x 100%. Computed from summed counts."),
    e("M08", "Conversion cost", "Conversion cost (conversions_cost), also cost per action CPA = cost / conversions, in CNY. Undefined when there are no conversions."),
    e("M09", "Deep conversions", "Deep conversions (deep_conversions_count) are events deeper in the funnel than the optimisation goal: first payment, enrolment, loan approval, test drive."),
    e("M10", "Deep conversion rate", "Deep conversion rate (deep_conversions_rate) = deep conversions / conversions x 100%."),
    e("M11", "Deep conversion cost", "Deep conversion cost (deep_conversions_cost) = cost / deep conversions, in CNY."),
    e("M12", "CPM", "CPM, cost per mille = cost / impressions x 1000, in CNY. Not a report field; compute it with the calculator from cost and view_count."),
    e("M13", "ROI and ROAS", "ROAS = revenue / cost. The platform does not report revenue; advertisers supply order value. ROI = (revenue - cost) / cost."),
    e("M14", "Week and month grouping", "WEEK groups by ISO week (Monday to Sunday, labelled YYYY-Www). MONTH groups by calendar month (YYYY-MM). Partial weeks at the edges of the range are included as they are."),
    e("M15", "Data freshness", "Daily reports cover full days up to yesterday. Today's figures cover only the hours completed so far and change during the day."),
    e("M16", "Hourly data", "Hourly reports give one day split by hour 0-23 in Beijing time. The hours of a day sum to that day's daily figures."),
    e("M17", "Day-over-day change", "Day-over-day change = (today - yesterday) / yesterday x 100%. Week-over-week compares with the same weekday one week earlier."),
    e("M18", "Budget utilisation", "Budget utilisation = cost / daily budget x 100%. Above 95% the account is budget-limited and may miss traffic late in the day."),
    // Accounts, audit and budget rules.
    e("R01", "Account audit", "New accounts and changed qualifications are audited. While an account is PENDING or REJECTED none of its ad groups deliver."),
    e("R02", "Account suspension", "Accounts with repeated policy violations are suspended for 1-4 days. Delivery stops during suspension and resumes automatically."),
    dated("R03", "Minimum daily budget", "The minimum account daily budget is 50 CNY. Budgets below it are rejected.", None, Some("2026-01-01")),
    dated("R04", "Minimum daily budget (revised)", "From 2026-01-01 the minimum account daily budget is 100 CNY; budgets set below it are raised to 100 CNY.", Some("2026-01-01"), None),
    e("R05", "Budget changes", "A daily budget change takes effect immediately. Lowering the budget below today's spend stops delivery for the rest of the day."),
    dated("R06", "Budget change limit", "An account's daily budget may be changed at most 10 times a day.", None, Some("2026-04-01")),
    dated("R07", "Budget change limit (revised)", "From 2026-04-01 an account's daily budget may be changed at most 5 times a day, and each change must differ by at least 50 CNY.", Some("2026-04-01"), None),
    e("R08", "Overspend", "Daily cost may exceed the daily budget by up to 10% because of delayed billing; the excess is not charged to the advertiser."),
    e("R09", "Ad group statuses", "Ad group status is one of ACTIVE, PAUSED, ENDED, PENDING_AUDIT or REJECTED. Only ACTIVE ad groups deliver."),
    e("R10", "Ad group audit", "A new ad group is audited before delivery, usually within 1-5 days. Rejected ad groups must be edited and resubmitted."),
    e("R11", "Creative audit", "Every creative is audited. Rejected creatives never deliver; common reasons are exaggerated claims, low image quality and missing licences."),
    e("R12", "Creative limit", "An ad group holds up to 6 creatives. Adding fresh creatives to a fatigued ad group is the usual way to recover CTR."),
    e("R13", "Creative fatigue", "Creative fatigue: CTR of a creative declines as the same audience sees it repeatedly, typically by 30-45% over 3-8 weeks. Compare each creative's CTR week over week: the one whose CTR fell most relative to the week before is the most fatigued, and a creative whose CTR is 20% or more below the previous week's should be refreshed."),
    dated("R14", "Learning phase", "An ad group is in the learning phase until it reaches 20 conversions within 3 days. Avoid large bid or targeting changes while learning.", None, Some("2026-04-01")),
    dated("R15", "Learning phase (revised)", "From 2026-04-01 an ad group leaves the learning phase after 10 conversions within 7 days. Avoid large bid or targeting changes while learning.", Some("2026-04-01"), None),
    e("R16", "Bid adjustment", "Change bids by at most 20% at a time; larger jumps reset learning and make cost volatile for several days."),
    dated("R17", "Bid change frequency", "Bids may be changed at most 3 times per ad group per day.", Some("2025-09-01"), None),
    e("R18", "Delivery schedule", "An ad group's schedule sets the hours it may serve. Hours outside the schedule show no impressions in the hourly report."),
    e("R19", "Targeting", "Targeting restricts gender, age band and region. Narrow targeting raises CPC and may limit reach; UNKNOWN gender and age are always served."),
    e("R20", "Site sets", "Site sets: SITE_SET_MOMENTS (social feed), SITE_SET_WECHAT (articles), SITE_SET_QQ, SITE_SET_TENCENT_NEWS, SITE_SET_TENCENT_VIDEO and SITE_SET_UNION (partner apps)."),
    e("R21", "Union network traffic", "SITE_SET_UNION is cheapest per click but converts less; monitor its conversion cost separately from feed site sets."),
    e("R22", "Objectives", "Ad group objectives: APP_INSTALL, LEADS, PURCHASE, FOLLOW and STORE_VISIT. The objective decides what counts as a conversion."),
    e("R23", "Attribution window", "Conversions are attributed to the last click within 7 days, and reported on the day of the click."),
    dated("R24", "Attribution window (revised)", "From 2026-09-01 conversions are attributed to the last click within 1 day for APP_INSTALL and 7 days otherwise.", Some("2026-09-01"), None),
    e("R25", "Marketing assets", "A marketing asset is the promoted product, store or app. Group by MARKETING_ASSET to compare products across ad groups."),
    e("R26", "Materials", "A material is an uploaded image or video. One material can back several creatives; MATERIAL_IMAGE and MATERIAL_VIDEO reports sum the creatives that use it."),
    e("R27", "Pausing", "Pausing an ad group stops delivery from the next minute; its history is kept. Resuming restarts delivery without a new audit."),
    e("R28", "Ending", "An ad group ends on its planned end date and cannot be resumed; copy it to continue delivery."),
    e("R29", "Invalid traffic", "Clicks judged invalid are removed from valid_click_count and not charged. Refunds appear as lower cost on the original day."),
    e("R30", "Report limits", "Reports return at most 100 rows per page; use page to read further rows. Data is kept for 400 days."),
    dated("R31", "Low-quality creative penalty", "From 2026-05-15 creatives whose CTR stays below half of the industry benchmark for 7 days get reduced traffic.", Some("2026-05-15"), None),
    e("R32", "Peak seasons", "Traffic and prices rise around the 618 sale (June 18), Double 11 (November 11) and Double 12 (December 12). Raise budgets ahead of the peak."),
    e("R33", "Weekday pattern", "Consumer industries (games, e-commerce, local services) peak at weekends; finance and education peak on weekdays."),
    e("R34", "Hour-of-day pattern", "Feed traffic peaks 19:00-22:00; news peaks 07:00-09:00; video peaks late evening. Conversions from 01:00-05:00 clicks are rarer."),
    // Diagnosis guidance.
    e("G01", "Cost dropped", "When cost drops, check in order: account audit and budget, ad group status changes (paused, ended, rejected), bid cuts, creative rejections, then CTR decline from fatigue."),
    e("G02", "Cost rose", "When cost rises, look for budget or bid increases, new ad groups or creatives, and peak-season demand; check whether conversion cost rose with it."),
    e("G03", "CTR dropped", "A CTR drop usually means creative fatigue or a shift in site set mix toward low-CTR inventory such as SITE_SET_UNION. Compare CTR by CREATIVE_ID and SITE_SET."),
    e("G04", "Conversion cost rose", "If conversion cost rises, split by SITE_SET, AGE and REGION to find the segment whose conversion rate fell, and by HOUR to check late-night traffic."),
    e("G05", "Underdelivery", "An ad group that spends little may be bidding too low, targeting too narrowly, or have only rejected creatives. Compare its bid with the industry range."),
    e("G06", "Finding best creatives", "Rank creatives by conversions, then check CTR and conversion rate against the industry benchmark. Ignore creatives with little spend."),
    e("G07", "Comparing periods", "Compare equal-length periods with the same weekday mix, e.g. last 7 days vs the 7 days before, to avoid weekday bias."),
    e("G08", "Budget-limited accounts", "If daily cost is close to the budget every day, delivery stops early; the hourly report shows cost falling to zero in the evening."),
    e("G09", "Audience analysis", "GENDER, AGE, REGION and CITY reports show where conversions come from; shift budget toward segments with lower conversion cost."),
    e("G10", "Good creative benchmark", "A good creative reaches the industry benchmark CTR and conversion rate for its creative type with enough spend; see the benchmark table for your industry."),
    e("G11", "Learning from peers", "get_top_good_creative lists well-performing creatives of other advertisers in the same industry and site set over the last 3 days."),
    e("G12", "Video vs image", "Video creatives usually earn 20-40% higher CTR than images but cost more to produce; test both formats."),
    e("G13", "Deep conversion optimisation", "Optimise for deep conversions only after the ad group has stable conversions; deep goals need more data to learn."),
    e("G14", "Account comparison", "Group by ACCOUNT_ID to compare accounts of one user; compare ratios from summed counts, not averages of daily ratios."),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_dates_valid() {
        let mut ids: Vec<&str> = ENTRIES.iter().map(|e| e.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), ENTRIES.len());
        assert!(ENTRIES.len() >= 60);
        for e in ENTRIES {
            for d in [e.from, e.until].into_iter().flatten() {
                assert!(crate::world::Day::parse(d).is_some(), "{}", e.id);
            }
        }
    }
}
