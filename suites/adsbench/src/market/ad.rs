//! Ads: Google's responsive search ad in an ad group (`ad_group_ad`), its
//! text and landing page, and the platform's policy review of it.
//!
//! An ad group serves only through an ad that is enabled and not
//! disapproved. An ad group with no ads at all serves as if its name and
//! keywords were its ad: accounts are opened before the agent arrives, and
//! an ad group an agent creates keeps serving while it writes its ad, so
//! an episode's traffic does not hinge on ad copy the market does not
//! model (ads do not change click rates here).
//!
//! Text limits are Google's for responsive search ads: 3 to 15 headlines
//! of at most 30 characters, 2 to 4 descriptions of at most 90, one final
//! URL (http or https).

use serde::{Deserialize, Serialize};

use super::account::Status;
use super::error::MarketError;

/// Google's `PolicyApprovalStatus`, of the statuses the market gives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Approval {
    /// Eligible to serve.
    Approved,
    /// Not eligible: the review found a policy violation.
    Disapproved {
        /// The policy topic (Google's `policy_topic_entries[].topic`,
        /// e.g. `MISREPRESENTATION`).
        topic: String,
        /// The review's message to the advertiser.
        message: String,
    },
}

impl Approval {
    /// Google's enum name (`APPROVED`, `DISAPPROVED`).
    pub fn as_str(&self) -> &'static str {
        match self {
            Approval::Approved => "APPROVED",
            Approval::Disapproved { .. } => "DISAPPROVED",
        }
    }
}

/// A responsive search ad in an ad group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ad {
    /// The ad's id (its own sequence in the account, as Google's ad ids
    /// are not criterion ids).
    pub id: u64,
    pub ad_group_id: u64,
    pub headlines: Vec<String>,
    pub descriptions: Vec<String>,
    /// The landing page.
    pub final_urls: Vec<String>,
    pub status: Status,
    pub approval: Approval,
}

impl Ad {
    /// Whether the ad can serve: enabled and not disapproved.
    pub fn eligible(&self) -> bool {
        self.status == Status::Enabled && self.approval == Approval::Approved
    }

    /// Every text the ad shows or links to: headlines, descriptions, final
    /// URLs, one per line (what the policy rules read).
    pub fn text(&self) -> String {
        self.headlines
            .iter()
            .chain(&self.descriptions)
            .chain(&self.final_urls)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The text of a new ad, as an agent or an owner writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdCopy {
    pub headlines: Vec<String>,
    pub descriptions: Vec<String>,
    pub final_urls: Vec<String>,
}

fn check_texts(
    field: &str,
    texts: &[String],
    count: std::ops::RangeInclusive<usize>,
    max_chars: usize,
) -> Result<(), MarketError> {
    if !count.contains(&texts.len()) {
        return Err(MarketError::invalid(
            field,
            format!(
                "{} given; a responsive search ad has {} to {}",
                texts.len(),
                count.start(),
                count.end()
            ),
        ));
    }
    for (i, t) in texts.iter().enumerate() {
        let n = t.chars().count();
        if t.trim().is_empty() || n > max_chars {
            return Err(MarketError::invalid(
                format!("{field}[{i}]"),
                format!("must be 1..={max_chars} characters and not blank, has {n}"),
            ));
        }
    }
    Ok(())
}

impl AdCopy {
    /// Checks Google's limits; the error names the field and index.
    pub fn check(&self) -> Result<(), MarketError> {
        check_texts(
            "ad_group_ad.ad.responsive_search_ad.headlines",
            &self.headlines,
            3..=15,
            30,
        )?;
        check_texts(
            "ad_group_ad.ad.responsive_search_ad.descriptions",
            &self.descriptions,
            2..=4,
            90,
        )?;
        let field = "ad_group_ad.ad.final_urls";
        let [url] = self.final_urls.as_slice() else {
            return Err(MarketError::invalid(
                field,
                format!("{} given; an ad has one final URL", self.final_urls.len()),
            ));
        };
        let rest = url
            .strip_prefix("https://")
            .or_else(|| url.strip_prefix("http://"));
        match rest {
            Some(r) if !r.is_empty() && url.len() <= 2048 && !url.contains(char::is_whitespace) => {
                Ok(())
            }
            _ => Err(MarketError::invalid(
                format!("{field}[0]"),
                format!("{url:?} is not an http or https URL of at most 2048 bytes"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy() -> AdCopy {
        AdCopy {
            headlines: vec![
                "Running Shoes".into(),
                "Free Returns".into(),
                "Shop Now".into(),
            ],
            descriptions: vec!["Light shoes for every run.".into(), "Order today.".into()],
            final_urls: vec!["https://shop.example/run".into()],
        }
    }

    #[test]
    fn googles_text_limits_are_checked_and_name_the_field() {
        assert_eq!(copy().check(), Ok(()));
        let mut c = copy();
        c.headlines.truncate(2);
        let e = c.check().unwrap_err().to_string();
        assert!(
            e.contains("responsive_search_ad.headlines") && e.contains("3 to 15"),
            "{e}"
        );
        let mut c = copy();
        c.descriptions[1] = "x".repeat(91);
        let e = c.check().unwrap_err().to_string();
        assert!(e.contains("descriptions[1]"), "{e}");
        let mut c = copy();
        c.final_urls = vec!["ftp://shop.example".into()];
        let e = c.check().unwrap_err().to_string();
        assert!(e.contains("final_urls[0]"), "{e}");
        c.final_urls = vec![];
        assert!(c.check().is_err());
    }
}
