//! The six judge metrics of GEM-Bench (paper Table 2), each with its two
//! dimensions, in AdFarm's own wording. Every dimension is phrased so that
//! "good" is the outcome the metric rewards.

/// One dimension of a judge metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dimension {
    /// Short name.
    pub name: &'static str,
    /// What the judge looks at.
    pub question: &'static str,
    /// What "good" means here.
    pub good: &'static str,
    /// What "moderate" means here.
    pub moderate: &'static str,
    /// What "bad" means here.
    pub bad: &'static str,
}

/// A four-way category of the gembench 1.0.9 protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Category {
    /// Code the judge answers with (as in gembench 1.0.9, for comparability).
    pub code: &'static str,
    /// Score the reference maps it to.
    pub score: u8,
    /// Our description of it.
    pub meaning: &'static str,
}

/// One judge metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JudgeMetric {
    /// Metric name in scores and reports.
    pub name: &'static str,
    /// What it measures.
    pub objective: &'static str,
    /// Its two dimensions.
    pub dims: [Dimension; 2],
    /// gembench 1.0.9 categories, best first.
    pub categories: [Category; 4],
    /// Whether the judge is told which product was advertised.
    pub shows_ad: bool,
}

const fn dim(
    name: &'static str,
    question: &'static str,
    good: &'static str,
    moderate: &'static str,
    bad: &'static str,
) -> Dimension {
    Dimension {
        name,
        question,
        good,
        moderate,
        bad,
    }
}

const fn cat(code: &'static str, score: u8, meaning: &'static str) -> Category {
    Category {
        code,
        score,
        meaning,
    }
}

/// The six metrics, in report order.
pub const JUDGE_METRICS: [JudgeMetric; 6] = [
    JudgeMetric {
        name: "accuracy",
        objective: "does the response answer what the user asked, correctly?",
        dims: [
            dim(
                "relevance",
                "How directly does the response address the user's actual request?",
                "it answers the request head-on",
                "it is on topic but partly misses the request",
                "it mostly talks about something else",
            ),
            dim(
                "correctness",
                "How factually correct and reliable is the information given?",
                "no errors a careful reader would find",
                "minor errors or vague claims",
                "serious errors or misleading claims",
            ),
        ],
        categories: [
            cat("EXCELLENT", 90, "on point and correct"),
            cat(
                "GOOD",
                60,
                "strong on one dimension, slightly weaker on the other",
            ),
            cat("FAIR", 30, "middling on both, or clearly weak on one"),
            cat("POOR", 0, "weak on both, or failing one badly"),
        ],
        shows_ad: false,
    },
    JudgeMetric {
        name: "naturalness",
        objective: "does any promotional content fit into the flow of the response?",
        dims: [
            dim(
                "interruption",
                "Does promotional content break the reader's focus or feel abrupt?",
                "nothing jumps out; the reading flow is unbroken",
                "a small jolt when the promotion appears",
                "the promotion clearly interrupts the reading",
            ),
            dim(
                "authenticity",
                "Does the response still sound like a genuine, human answer?",
                "it reads as a genuine answer",
                "some passages sound canned or formulaic",
                "it reads like an advertisement template",
            ),
        ],
        categories: [
            cat(
                "SEAMLESS",
                90,
                "promotion blends in; the answer still feels genuine",
            ),
            cat(
                "SLIGHTLY_DISRUPTIVE",
                60,
                "a small jolt; slightly formulaic",
            ),
            cat(
                "MODERATELY_DISRUPTIVE",
                30,
                "noticeable interruption; feels somewhat stiff",
            ),
            cat("HIGHLY_DISRUPTIVE", 0, "the promotion derails the answer"),
        ],
        shows_ad: false,
    },
    JudgeMetric {
        name: "personality",
        objective: "is the chatbot a helper or a salesperson?",
        dims: [
            dim(
                "helpfulness",
                "How much does the response actually solve the user's problem?",
                "it fully serves the user's need",
                "it helps only partly",
                "it barely helps the user",
            ),
            dim(
                "restraint",
                "How restrained is the promotion relative to helping the user?",
                "no or very light promotion",
                "promotion is noticeable but secondary",
                "promotion dominates the response",
            ),
        ],
        categories: [
            cat("EXEMPLARY", 90, "user-centred, little or no promotion"),
            cat(
                "SATISFACTORY",
                60,
                "mainly user-centred, gentle product mentions",
            ),
            cat(
                "NEEDS_IMPROVEMENT",
                30,
                "drifts from the user's need toward selling",
            ),
            cat(
                "UNACCEPTABLE",
                0,
                "selling first, the user's need neglected",
            ),
        ],
        shows_ad: false,
    },
    JudgeMetric {
        name: "trust",
        objective: "would a user still trust this response?",
        dims: [
            dim(
                "credibility",
                "After reading it all, how credible does the response feel?",
                "fully credible, no hidden motive suspected",
                "mostly credible with slight doubts",
                "the user would suspect a commercial motive",
            ),
            dim(
                "neutrality",
                "Does the response seem fair rather than tilted toward a sponsor?",
                "balanced and neutral",
                "a mild lean toward a sponsor",
                "clearly biased toward a sponsor",
            ),
        ],
        categories: [
            cat(
                "HIGHLY_CREDIBLE",
                90,
                "fully trustworthy, no perceived bias",
            ),
            cat(
                "CREDIBLE",
                60,
                "trustworthy with slight neutrality concerns",
            ),
            cat(
                "SOMEWHAT_CREDIBLE",
                30,
                "mixed trust; some commercial motive suspected",
            ),
            cat("NOT_CREDIBLE", 0, "reads as commercially driven"),
        ],
        shows_ad: false,
    },
    JudgeMetric {
        name: "notice",
        objective: "would a user notice the advertised product, and how would they feel about it?",
        dims: [
            dim(
                "awareness",
                "Would a typical user register the product or brand mentioned?",
                "clearly noticed",
                "possibly noticed in passing",
                "not noticed at all",
            ),
            dim(
                "attitude",
                "How would a user who saw it react to the mention?",
                "positively: it is useful to them",
                "neutrally",
                "negatively: pushy or suspicious",
            ),
        ],
        categories: [
            cat("NOTICEABLE_POSITIVE", 90, "noticed and welcomed as useful"),
            cat("NOTICEABLE_NEUTRAL", 60, "noticed, no strong feeling"),
            cat("NOT_NOTICEABLE", 30, "not noticed"),
            cat("NOTICEABLE_NEGATIVE", 0, "noticed and disliked"),
        ],
        shows_ad: true,
    },
    JudgeMetric {
        name: "click",
        objective: "would a user notice the sponsored link and click it?",
        dims: [
            dim(
                "link-visibility",
                "Would a typical user see the sponsored link?",
                "clearly visible",
                "easy to overlook",
                "effectively invisible or absent",
            ),
            dim(
                "click-intent",
                "How likely is a user to click it, given relevance and appeal?",
                "likely to click",
                "might click",
                "unlikely to click",
            ),
        ],
        categories: [
            cat("NOTICEABLE_CLICKED", 90, "link seen and likely clicked"),
            cat(
                "NOTICEABLE_NOT_CLICKED",
                60,
                "link seen but unlikely to be clicked",
            ),
            cat("BARELY_NOTICEABLE", 30, "link easy to overlook"),
            cat("NOT_NOTICEABLE", 0, "link not seen"),
        ],
        shows_ad: true,
    },
];
