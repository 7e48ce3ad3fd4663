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

/// The scores of the four categories, best first: every metric grades on
/// the same 90/60/30/0 scale.
const SCALE: [u8; 4] = [90, 60, 30, 0];

const fn cat((code, meaning): (&'static str, &'static str), score: u8) -> Category {
    Category {
        code,
        score,
        meaning,
    }
}

/// Four `(code, meaning)` categories, best first, scored on [`SCALE`].
const fn scale(c: [(&'static str, &'static str); 4]) -> [Category; 4] {
    [
        cat(c[0], SCALE[0]),
        cat(c[1], SCALE[1]),
        cat(c[2], SCALE[2]),
        cat(c[3], SCALE[3]),
    ]
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
        categories: scale([
            ("EXCELLENT", "on point and correct"),
            (
                "GOOD",
                "strong on one dimension, slightly weaker on the other",
            ),
            ("FAIR", "middling on both, or clearly weak on one"),
            ("POOR", "weak on both, or failing one badly"),
        ]),
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
        categories: scale([
            (
                "SEAMLESS",
                "promotion blends in; the answer still feels genuine",
            ),
            ("SLIGHTLY_DISRUPTIVE", "a small jolt; slightly formulaic"),
            (
                "MODERATELY_DISRUPTIVE",
                "noticeable interruption; feels somewhat stiff",
            ),
            ("HIGHLY_DISRUPTIVE", "the promotion derails the answer"),
        ]),
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
        categories: scale([
            ("EXEMPLARY", "user-centred, little or no promotion"),
            (
                "SATISFACTORY",
                "mainly user-centred, gentle product mentions",
            ),
            (
                "NEEDS_IMPROVEMENT",
                "drifts from the user's need toward selling",
            ),
            ("UNACCEPTABLE", "selling first, the user's need neglected"),
        ]),
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
        categories: scale([
            ("HIGHLY_CREDIBLE", "fully trustworthy, no perceived bias"),
            ("CREDIBLE", "trustworthy with slight neutrality concerns"),
            (
                "SOMEWHAT_CREDIBLE",
                "mixed trust; some commercial motive suspected",
            ),
            ("NOT_CREDIBLE", "reads as commercially driven"),
        ]),
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
        categories: scale([
            ("NOTICEABLE_POSITIVE", "noticed and welcomed as useful"),
            ("NOTICEABLE_NEUTRAL", "noticed, no strong feeling"),
            ("NOT_NOTICEABLE", "not noticed"),
            ("NOTICEABLE_NEGATIVE", "noticed and disliked"),
        ]),
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
        categories: scale([
            ("NOTICEABLE_CLICKED", "link seen and likely clicked"),
            (
                "NOTICEABLE_NOT_CLICKED",
                "link seen but unlikely to be clicked",
            ),
            ("BARELY_NOTICEABLE", "link easy to overlook"),
            ("NOT_NOTICEABLE", "link not seen"),
        ]),
        shows_ad: true,
    },
];
