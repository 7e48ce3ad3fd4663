//! The platform's fixed vocabularies: industries, site sets, creative
//! types, objectives, statuses and the audience dimensions. Each carries the
//! domain constants that shape delivery, so the generators stay tables-free.

use serde::{Deserialize, Serialize};

/// Advertiser industry; sets base rates and calendar sensitivity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Industry {
    /// Mobile and web games.
    Game,
    /// Online retail and brand stores.
    Ecommerce,
    /// Courses, tutoring and training.
    Education,
    /// Banks, insurance and lending.
    Finance,
    /// Restaurants, travel and local services.
    LocalServices,
    /// Cars and dealerships.
    Automotive,
}

impl Industry {
    /// All industries, in id order.
    pub const ALL: [Industry; 6] = [
        Industry::Game,
        Industry::Ecommerce,
        Industry::Education,
        Industry::Finance,
        Industry::LocalServices,
        Industry::Automotive,
    ];

    /// Name used in tool arguments and rows.
    pub fn name(self) -> &'static str {
        match self {
            Industry::Game => "GAME",
            Industry::Ecommerce => "ECOMMERCE",
            Industry::Education => "EDUCATION",
            Industry::Finance => "FINANCE",
            Industry::LocalServices => "LOCAL_SERVICES",
            Industry::Automotive => "AUTOMOTIVE",
        }
    }

    /// Parses a name as written by [`Industry::name`].
    pub fn parse(s: &str) -> Option<Industry> {
        Industry::ALL
            .into_iter()
            .find(|i| i.name().eq_ignore_ascii_case(s))
    }

    /// Typical click-through rate of the industry's image ads.
    pub fn base_ctr(self) -> f64 {
        match self {
            Industry::Game => 0.021,
            Industry::Ecommerce => 0.016,
            Industry::Education => 0.011,
            Industry::Finance => 0.008,
            Industry::LocalServices => 0.014,
            Industry::Automotive => 0.009,
        }
    }

    /// Typical conversions per click.
    pub fn base_cvr(self) -> f64 {
        match self {
            Industry::Game => 0.12,
            Industry::Ecommerce => 0.045,
            Industry::Education => 0.06,
            Industry::Finance => 0.035,
            Industry::LocalServices => 0.08,
            Industry::Automotive => 0.025,
        }
    }

    /// Share of conversions that reach the deep goal (pay, enrol, loan, visit).
    pub fn deep_rate(self) -> f64 {
        match self {
            Industry::Game => 0.18,
            Industry::Ecommerce => 0.35,
            Industry::Education => 0.22,
            Industry::Finance => 0.15,
            Industry::LocalServices => 0.4,
            Industry::Automotive => 0.1,
        }
    }

    /// How strongly sales peaks lift demand (e-commerce most).
    pub fn peak_sensitivity(self) -> f64 {
        match self {
            Industry::Game => 0.3,
            Industry::Ecommerce => 1.0,
            Industry::Education => 0.2,
            Industry::Finance => 0.1,
            Industry::LocalServices => 0.6,
            Industry::Automotive => 0.4,
        }
    }

    /// 1 = consumer weekday pattern (weekend up), 0 = business pattern.
    pub fn weekend_tilt(self) -> f64 {
        match self {
            Industry::Game => 1.0,
            Industry::Ecommerce => 0.8,
            Industry::Education => 0.3,
            Industry::Finance => 0.0,
            Industry::LocalServices => 1.0,
            Industry::Automotive => 0.6,
        }
    }
}

/// Where ads are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum SiteSet {
    /// Social feed ads.
    WechatMoments,
    /// Official-account article ads.
    WechatOfficial,
    /// QQ and QQ browser feeds.
    Qq,
    /// News app feeds.
    TencentNews,
    /// Video app pre-roll and feed.
    TencentVideo,
    /// Third-party apps of the ad network.
    Union,
}

impl SiteSet {
    /// All site sets, in id order.
    pub const ALL: [SiteSet; 6] = [
        SiteSet::WechatMoments,
        SiteSet::WechatOfficial,
        SiteSet::Qq,
        SiteSet::TencentNews,
        SiteSet::TencentVideo,
        SiteSet::Union,
    ];

    /// Name used in tool arguments and rows.
    pub fn name(self) -> &'static str {
        match self {
            SiteSet::WechatMoments => "SITE_SET_MOMENTS",
            SiteSet::WechatOfficial => "SITE_SET_WECHAT",
            SiteSet::Qq => "SITE_SET_QQ",
            SiteSet::TencentNews => "SITE_SET_TENCENT_NEWS",
            SiteSet::TencentVideo => "SITE_SET_TENCENT_VIDEO",
            SiteSet::Union => "SITE_SET_UNION",
        }
    }

    /// Parses a name as written by [`SiteSet::name`].
    pub fn parse(s: &str) -> Option<SiteSet> {
        SiteSet::ALL
            .into_iter()
            .find(|x| x.name().eq_ignore_ascii_case(s))
    }

    /// Index in [`SiteSet::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// CTR relative to the industry base (feeds engage more than the network).
    pub fn ctr_factor(self) -> f64 {
        [1.25, 0.9, 1.0, 0.85, 1.1, 0.7][self as usize]
    }

    /// Price per click relative to the bid (premium inventory clears higher).
    pub fn cpc_factor(self) -> f64 {
        [1.2, 1.05, 0.9, 0.85, 1.0, 0.6][self as usize]
    }

    /// Conversion rate relative to the industry base.
    pub fn cvr_factor(self) -> f64 {
        [1.1, 1.15, 0.95, 0.8, 0.9, 0.75][self as usize]
    }

    /// Relative traffic by hour of day (0..24); evenings peak on social,
    /// mornings on news, late nights on video.
    pub fn hour_curve(self) -> &'static [f64; 24] {
        const SOCIAL: [f64; 24] = [
            0.5, 0.3, 0.2, 0.15, 0.15, 0.25, 0.6, 1.0, 1.3, 1.2, 1.15, 1.2, 1.5, 1.3, 1.1, 1.1,
            1.15, 1.3, 1.5, 1.7, 1.9, 2.0, 1.7, 1.0,
        ];
        const NEWS: [f64; 24] = [
            0.4, 0.25, 0.15, 0.12, 0.15, 0.4, 1.0, 1.8, 2.0, 1.6, 1.3, 1.2, 1.4, 1.2, 1.0, 1.0,
            1.0, 1.1, 1.3, 1.3, 1.3, 1.2, 0.9, 0.6,
        ];
        const VIDEO: [f64; 24] = [
            1.0, 0.7, 0.45, 0.3, 0.2, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 1.0, 1.2, 1.1, 1.0, 1.0, 1.1,
            1.2, 1.5, 1.9, 2.2, 2.4, 2.1, 1.5,
        ];
        match self {
            SiteSet::WechatMoments | SiteSet::WechatOfficial | SiteSet::Qq => &SOCIAL,
            SiteSet::TencentNews => &NEWS,
            SiteSet::TencentVideo | SiteSet::Union => &VIDEO,
        }
    }
}

/// Creative format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum CreativeType {
    /// Still image (single or multi-image).
    Image,
    /// Short video.
    Video,
}

impl CreativeType {
    /// Name used in tool arguments and rows.
    pub fn name(self) -> &'static str {
        match self {
            CreativeType::Image => "IMAGE",
            CreativeType::Video => "VIDEO",
        }
    }

    /// Parses a name as written by [`CreativeType::name`].
    pub fn parse(s: &str) -> Option<CreativeType> {
        [CreativeType::Image, CreativeType::Video]
            .into_iter()
            .find(|x| x.name().eq_ignore_ascii_case(s))
    }

    /// CTR relative to images.
    pub fn ctr_factor(self) -> f64 {
        match self {
            CreativeType::Image => 1.0,
            CreativeType::Video => 1.3,
        }
    }
}

/// What an ad group optimises for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Objective {
    /// App downloads and activations.
    AppInstall,
    /// Form submissions.
    Leads,
    /// Orders.
    Purchase,
    /// Follows of an official account.
    Follow,
    /// Store or showroom visits.
    StoreVisit,
}

impl Objective {
    /// Name shown in rows.
    pub fn name(self) -> &'static str {
        match self {
            Objective::AppInstall => "APP_INSTALL",
            Objective::Leads => "LEADS",
            Objective::Purchase => "PURCHASE",
            Objective::Follow => "FOLLOW",
            Objective::StoreVisit => "STORE_VISIT",
        }
    }

    /// The objectives an industry uses.
    pub fn for_industry(i: Industry) -> &'static [Objective] {
        match i {
            Industry::Game => &[Objective::AppInstall, Objective::Purchase],
            Industry::Ecommerce => &[Objective::Purchase, Objective::Follow],
            Industry::Education => &[Objective::Leads, Objective::Follow],
            Industry::Finance => &[Objective::Leads, Objective::AppInstall],
            Industry::LocalServices => &[Objective::StoreVisit, Objective::Leads],
            Industry::Automotive => &[Objective::Leads, Objective::StoreVisit],
        }
    }
}

/// Audit state of an account, ad group or creative.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Audit {
    /// Approved; may deliver.
    Approved,
    /// Waiting for review; does not deliver.
    Pending,
    /// Rejected; does not deliver.
    Rejected,
}

impl Audit {
    /// Name shown in rows.
    pub fn name(self) -> &'static str {
        match self {
            Audit::Approved => "APPROVED",
            Audit::Pending => "PENDING",
            Audit::Rejected => "REJECTED",
        }
    }
}

/// Audience genders as the platform reports them.
pub const GENDERS: [&str; 3] = ["MALE", "FEMALE", "UNKNOWN"];

/// Age bands as the platform reports them.
pub const AGES: [&str; 6] = ["18-23", "24-30", "31-40", "41-50", "51-60", "UNKNOWN"];

/// Regions (provinces) and their three reported cities; the region index is
/// `city / 3`.
pub const REGIONS: [&str; 8] = [
    "Guangdong",
    "Zhejiang",
    "Jiangsu",
    "Shandong",
    "Sichuan",
    "Hubei",
    "Henan",
    "Fujian",
];

/// Cities, three per region in [`REGIONS`] order.
pub const CITIES: [&str; 24] = [
    "Guangzhou",
    "Shenzhen",
    "Dongguan",
    "Hangzhou",
    "Ningbo",
    "Wenzhou",
    "Nanjing",
    "Suzhou",
    "Wuxi",
    "Jinan",
    "Qingdao",
    "Yantai",
    "Chengdu",
    "Mianyang",
    "Yibin",
    "Wuhan",
    "Yichang",
    "Xiangyang",
    "Zhengzhou",
    "Luoyang",
    "Kaifeng",
    "Fuzhou",
    "Xiamen",
    "Quanzhou",
];

/// Relative population of each region, for audience weights.
pub const REGION_WEIGHTS: [f64; 8] = [1.6, 1.1, 1.2, 1.3, 1.1, 0.8, 1.3, 0.6];

/// Relative size of each city within its region.
pub const CITY_WEIGHTS: [f64; 24] = [
    1.3, 1.4, 0.7, 1.4, 0.7, 0.5, 1.0, 1.1, 0.5, 0.8, 1.0, 0.4, 1.8, 0.3, 0.2, 1.5, 0.3, 0.3, 1.2,
    0.5, 0.3, 0.7, 0.8, 0.7,
];
