//! Who the ads reach, by audience group: the gender and the age range
//! every synthetic searcher carries, the account's exclusions of them, and
//! per group the searches the account was eligible for and the
//! impressions it got.
//!
//! The group is the searcher's [`User::gender`], drawn with the rest of
//! the user from the search's own stream (`r.below(3)` in
//! [`Traffic::generate`](super::traffic::Traffic::generate)): female, male
//! and undetermined, a third each, independent of the query, the vertical,
//! the hour and every other user feature. No new number is drawn for it,
//! so measuring delivery by group changes no episode. Google Ads' gender
//! criterion has the same three values (`FEMALE`, `MALE`, `UNDETERMINED`).
//! The age range is the user's `age` band, drawn the same way
//! (`r.below(6)`): Google's six `AgeRangeType` bands from 18–24 to 65+,
//! a sixth each. Unlike gender, it moves the click logit a little per
//! vertical (the market's response profiles), so delivery may skew by age
//! without any targeting, as real ad delivery does.
//!
//! A search is *eligible* for the account when at least one of its enabled
//! keywords matches the query (negatives applied): the user could have
//! been shown the account's ad had no campaign excluded their group,
//! whatever the budget, pacing or auction then decided. Bot searches (the
//! budget drain) are not users and are not counted.

use serde::{Deserialize, Serialize};

use super::error::MarketError;
use super::traffic::User;

/// A searcher's gender, Google Ads' `GenderType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Gender {
    /// `FEMALE`: a third of searchers.
    Female,
    /// `MALE`: a third of searchers.
    Male,
    /// `UNDETERMINED`: a third of searchers, who did not say.
    Undetermined,
}

impl Gender {
    /// Every group, in the order reports list them.
    pub const ALL: [Gender; 3] = [Gender::Female, Gender::Male, Gender::Undetermined];

    /// The searcher's group.
    #[inline]
    pub fn of(user: &User) -> Gender {
        match user.gender {
            0 => Gender::Female,
            1 => Gender::Male,
            _ => Gender::Undetermined,
        }
    }

    /// Position in [`Gender::ALL`].
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The name scenarios and reports use (`female`, `male`,
    /// `undetermined`).
    pub fn name(self) -> &'static str {
        match self {
            Gender::Female => "female",
            Gender::Male => "male",
            Gender::Undetermined => "undetermined",
        }
    }

    /// The enum name Google Ads uses (`FEMALE`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Gender::Female => "FEMALE",
            Gender::Male => "MALE",
            Gender::Undetermined => "UNDETERMINED",
        }
    }

    /// Google's criterion id for the gender (`gender.type` as a
    /// criterion: 10 male, 11 female, 20 undetermined).
    pub fn criterion_id(self) -> u64 {
        match self {
            Gender::Female => 11,
            Gender::Male => 10,
            Gender::Undetermined => 20,
        }
    }

    /// The gender whose criterion id is `id`.
    pub fn of_criterion_id(id: u64) -> Option<Gender> {
        Gender::ALL.into_iter().find(|g| g.criterion_id() == id)
    }

    /// Parses Google's enum name or the scenario's; the error names `field`.
    ///
    /// # Errors
    /// [`MarketError::Invalid`] for anything but the three groups.
    pub fn parse(field: &str, s: &str) -> Result<Gender, MarketError> {
        Gender::ALL
            .into_iter()
            .find(|g| g.as_str() == s || g.name() == s)
            .ok_or_else(|| {
                MarketError::invalid(field, format!("{s:?} is not FEMALE, MALE or UNDETERMINED"))
            })
    }
}

/// A searcher's age range, Google Ads' `AgeRangeType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum AgeRange {
    #[serde(rename = "18-24")]
    From18To24,
    #[serde(rename = "25-34")]
    From25To34,
    #[serde(rename = "35-44")]
    From35To44,
    #[serde(rename = "45-54")]
    From45To54,
    #[serde(rename = "55-64")]
    From55To64,
    #[serde(rename = "65-up")]
    From65Up,
}

impl AgeRange {
    /// Every range, youngest first.
    pub const ALL: [AgeRange; 6] = [
        AgeRange::From18To24,
        AgeRange::From25To34,
        AgeRange::From35To44,
        AgeRange::From45To54,
        AgeRange::From55To64,
        AgeRange::From65Up,
    ];

    /// The searcher's range.
    #[inline]
    pub fn of(user: &User) -> AgeRange {
        AgeRange::ALL[usize::from(user.age).min(5)]
    }

    /// Position in [`AgeRange::ALL`].
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The name reports use (`18-24` ... `65-up`).
    pub fn name(self) -> &'static str {
        ["18-24", "25-34", "35-44", "45-54", "55-64", "65-up"][self.index()]
    }

    /// The enum name Google Ads uses (`AGE_RANGE_18_24` ...).
    pub fn as_str(self) -> &'static str {
        [
            "AGE_RANGE_18_24",
            "AGE_RANGE_25_34",
            "AGE_RANGE_35_44",
            "AGE_RANGE_45_54",
            "AGE_RANGE_55_64",
            "AGE_RANGE_65_UP",
        ][self.index()]
    }

    /// Google's criterion id for the range (503001 to 503006).
    pub fn criterion_id(self) -> u64 {
        503_001 + self.index() as u64
    }

    /// The range whose criterion id is `id`.
    pub fn of_criterion_id(id: u64) -> Option<AgeRange> {
        AgeRange::ALL.into_iter().find(|a| a.criterion_id() == id)
    }

    /// Parses Google's enum name or the report's; the error names `field`.
    ///
    /// # Errors
    /// [`MarketError::Invalid`] for anything but the six ranges.
    pub fn parse(field: &str, s: &str) -> Result<AgeRange, MarketError> {
        AgeRange::ALL
            .into_iter()
            .find(|a| a.as_str() == s || a.name() == s)
            .ok_or_else(|| {
                MarketError::invalid(
                    field,
                    format!("{s:?} is not one of AGE_RANGE_18_24 ... AGE_RANGE_65_UP"),
                )
            })
    }
}

/// One age range's delivery over the episode so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgeDelivery {
    /// The range.
    pub group: AgeRange,
    /// Searches by the range's users the account was eligible for.
    pub eligible: u64,
    /// Of those, the searches that showed the account's ad.
    pub impressions: u64,
}

/// One group's delivery over the episode so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupDelivery {
    /// The group.
    pub group: Gender,
    /// Searches by the group's users the account was eligible for.
    pub eligible: u64,
    /// Of those, the searches that showed the account's ad.
    pub impressions: u64,
}

/// Delivery per gender, in [`Gender::ALL`] order, and per age range, in
/// [`AgeRange::ALL`] order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AudienceDelivery {
    groups: [GroupDelivery; 3],
    ages: [AgeDelivery; 6],
}

impl Default for AudienceDelivery {
    fn default() -> Self {
        AudienceDelivery {
            groups: Gender::ALL.map(|group| GroupDelivery {
                group,
                eligible: 0,
                impressions: 0,
            }),
            ages: AgeRange::ALL.map(|group| AgeDelivery {
                group,
                eligible: 0,
                impressions: 0,
            }),
        }
    }
}

impl AudienceDelivery {
    /// Counts a search of a searcher in `group` and `age` the account was
    /// eligible for.
    #[inline]
    pub fn record_eligible(&mut self, group: Gender, age: AgeRange) {
        self.groups[group.index()].eligible += 1;
        self.ages[age.index()].eligible += 1;
    }

    /// Counts an impression of the account's ad on a search of a searcher
    /// in `group` and `age`.
    #[inline]
    pub fn record_impression(&mut self, group: Gender, age: AgeRange) {
        self.groups[group.index()].impressions += 1;
        self.ages[age.index()].impressions += 1;
    }

    /// The age ranges' counts, in [`AgeRange::ALL`] order.
    pub fn ages(&self) -> &[AgeDelivery] {
        &self.ages
    }

    /// The groups' counts, in [`Gender::ALL`] order.
    pub fn groups(&self) -> &[GroupDelivery] {
        &self.groups
    }

    /// One group's counts.
    pub fn group(&self, group: Gender) -> GroupDelivery {
        self.groups[group.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::market::traffic::Device;

    #[test]
    fn the_user_gender_code_maps_to_google_s_three_groups() {
        let user = |gender| User {
            age: 0,
            gender,
            device: Device::Mobile,
            interests: 0,
        };
        assert_eq!(Gender::of(&user(0)), Gender::Female);
        assert_eq!(Gender::of(&user(1)), Gender::Male);
        assert_eq!(Gender::of(&user(2)), Gender::Undetermined);
        for g in Gender::ALL {
            assert_eq!(Gender::parse("gender.type", g.as_str()), Ok(g));
            assert_eq!(Gender::parse("gender.type", g.name()), Ok(g));
            assert_eq!(Gender::of_criterion_id(g.criterion_id()), Some(g));
        }
        let e = Gender::parse("gender.type", "Women").unwrap_err();
        assert!(e.to_string().contains("gender.type"), "{e}");
    }

    #[test]
    fn the_user_age_band_maps_to_google_s_six_ranges() {
        let user = |age| User {
            age,
            gender: 0,
            device: Device::Mobile,
            interests: 0,
        };
        assert_eq!(AgeRange::of(&user(0)), AgeRange::From18To24);
        assert_eq!(AgeRange::of(&user(5)), AgeRange::From65Up);
        for a in AgeRange::ALL {
            assert_eq!(AgeRange::parse("age_range.type", a.as_str()), Ok(a));
            assert_eq!(AgeRange::parse("age_range.type", a.name()), Ok(a));
            assert_eq!(AgeRange::of_criterion_id(a.criterion_id()), Some(a));
        }
        assert_eq!(AgeRange::From25To34.criterion_id(), 503_002);
        let e = AgeRange::parse("age_range.type", "AGE_RANGE_UNDETERMINED").unwrap_err();
        assert!(e.to_string().contains("age_range.type"), "{e}");
    }

    #[test]
    fn delivery_counts_per_group() {
        let mut d = AudienceDelivery::default();
        let a = AgeRange::From35To44;
        d.record_eligible(Gender::Male, a);
        d.record_eligible(Gender::Male, a);
        d.record_impression(Gender::Male, a);
        d.record_eligible(Gender::Female, AgeRange::From18To24);
        assert_eq!((d.ages()[2].eligible, d.ages()[2].impressions), (2, 1));
        assert_eq!(d.ages()[0].eligible, 1);
        assert_eq!(
            d.group(Gender::Male),
            GroupDelivery {
                group: Gender::Male,
                eligible: 2,
                impressions: 1
            }
        );
        assert_eq!(d.group(Gender::Female).impressions, 0);
        let order: Vec<Gender> = d.groups().iter().map(|g| g.group).collect();
        assert_eq!(order, Gender::ALL);
    }
}
