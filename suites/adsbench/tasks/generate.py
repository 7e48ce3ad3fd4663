#!/usr/bin/env python3
"""Writes the gauntlet: tasks/gauntlet/*.toml and src/suite/gauntlet/shipped.rs.

Deterministic (no clock, no randomness): run `python3 tasks/generate.py`
from the crate's folder and the same 60 files come out. Standard library
only. The files are the source of truth the crate loads and checks; this
script is how they were written, kept so a change to the whole set is one
edit here.

Distribution: 20 tasks per modality (7 easy, 7 medium, 6 hard), each
budget stratum 12 times, cold and warm starts, five verticals, six
objectives, every dynamic factor and every analysis cause.
"""

import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "gauntlet")
SHIPPED = os.path.join(HERE, "..", "src", "suite", "gauntlet", "shipped.rs")

M = 1_000_000

VERTICALS = ["e-commerce", "lead-gen", "apps", "local", "travel"]

# Keywords of each vertical: the market's head terms for it.
VOCAB = {
    "e-commerce": ["running shoes", "sneakers", "winter jacket", "backpack", "wireless headphones"],
    "lead-gen": ["credit card", "mortgage", "personal loan", "car insurance", "life insurance"],
    "apps": ["language lessons", "online courses", "coding bootcamp", "test prep", "tutoring"],
    "local": ["dentist", "physical therapy", "eye exam", "gym membership", "dermatologist"],
    "travel": ["flights", "hotels", "car rental", "vacation packages", "cruise"],
}
# A modifier the market's searches of the vertical use, to exclude.
NEGATIVE = {"e-commerce": "cheap", "lead-gen": "cheap", "apps": "free", "local": "cheap", "travel": "cheap"}
# What a product or offer is called in the brief.
THING = {"e-commerce": "product", "lead-gen": "loan product", "apps": "course app", "local": "service", "travel": "offer"}
# How that thing runs out.
GONE = {"e-commerce": "sells out", "lead-gen": "is withdrawn", "apps": "is pulled from the app store",
        "local": "is fully booked", "travel": "is sold out"}

# Objectives that fit each vertical, used in turn.
OBJECTIVES = {
    "e-commerce": ["roas", "revenue", "cpa"],
    "lead-gen": ["leads", "cpa", "awareness"],
    "apps": ["installs", "cpa", "awareness"],
    "local": ["leads", "awareness", "cpa"],
    "travel": ["roas", "revenue", "awareness"],
}
CPA = {"e-commerce": 30, "lead-gen": 80, "apps": 25, "local": 40, "travel": 60}

# A date in season for each vertical (the market's seasonal curves).
SEASON = {
    "e-commerce": "2025-11-26",  # Black Friday 2025-11-28
    "lead-gen": "2025-02-10",  # finance Jan 15 to Apr 15
    "apps": "2025-08-18",  # education Aug 15 to Sep 15
    "local": "2025-01-13",  # health in January
    "travel": "2025-06-16",  # travel in June and July
}
# Off-season start dates, by task index.
PLAIN = ["2025-03-03", "2025-03-10", "2025-04-07", "2025-05-12", "2025-09-22", "2025-10-06"]

# The market's promotion start day in May 2025, per seed, for
# (e-commerce, lead-gen, apps, local, travel): `Traffic::promotion_start`
# (the load checks every promotion event against the market).
PROMO_MAY = {
    1: (16, 12, 20, 2, 7), 2: (17, 10, 13, 8, 14), 3: (17, 10, 18, 6, 26), 4: (23, 25, 29, 24, 9),
    5: (25, 27, 12, 29, 13), 6: (12, 27, 21, 23, 16), 7: (11, 9, 24, 23, 25), 8: (7, 2, 13, 16, 8),
    9: (12, 22, 22, 2, 10), 10: (22, 21, 10, 14, 1), 11: (6, 5, 5, 23, 9), 12: (25, 27, 20, 7, 6),
    13: (6, 3, 10, 26, 14), 14: (19, 2, 28, 2, 27), 15: (9, 2, 3, 6, 21), 16: (12, 21, 10, 15, 6),
    17: (19, 21, 25, 11, 10), 18: (4, 7, 16, 8, 29), 19: (15, 25, 28, 29, 7), 20: (12, 21, 11, 2, 23),
    21: (5, 15, 2, 3, 3), 22: (25, 17, 13, 25, 15), 23: (23, 29, 5, 17, 27), 24: (10, 14, 25, 2, 15),
    25: (28, 3, 6, 14, 29), 26: (8, 6, 29, 10, 11), 27: (13, 4, 28, 9, 17), 28: (18, 28, 18, 7, 5),
    29: (11, 3, 22, 29, 14), 30: (6, 23, 11, 13, 7), 31: (5, 11, 12, 20, 13), 32: (18, 18, 27, 2, 26),
    33: (29, 22, 14, 3, 22), 34: (25, 7, 2, 29, 5), 35: (15, 20, 23, 21, 3), 36: (9, 12, 23, 7, 6),
    37: (2, 24, 21, 26, 6), 38: (19, 2, 10, 17, 2), 39: (20, 4, 20, 20, 16), 40: (10, 10, 22, 1, 7),
    41: (1, 20, 14, 10, 18), 42: (19, 22, 11, 5, 11), 43: (24, 13, 19, 18, 10), 44: (5, 16, 11, 6, 10),
    45: (2, 19, 1, 23, 24), 46: (8, 7, 15, 24, 17), 47: (11, 25, 24, 2, 1), 48: (27, 17, 26, 18, 6),
    49: (29, 8, 25, 10, 19), 50: (10, 1, 2, 16, 19), 51: (23, 28, 2, 16, 4), 52: (12, 6, 15, 11, 27),
    53: (20, 19, 11, 20, 19), 54: (21, 5, 2, 8, 17), 55: (15, 15, 13, 14, 15), 56: (13, 1, 9, 4, 17),
    57: (12, 6, 21, 21, 14), 58: (9, 23, 5, 2, 4), 59: (12, 24, 2, 29, 1), 60: (2, 8, 24, 10, 18),
}

# What the oracle's episode measured over the agent's days, per task:
# (spend micros, conversions, value micros, impressions). The objectives'
# targets are set from it with a margin (70% of a floor, 130% of a CPA
# ceiling), so a task's objective is reachable in its market; re-measure
# after a change to a task's market or account (see `objective`).
ORACLE_KPIS = {
    "analysis-easy-01": (29692557, 0, 0, 624),
    "analysis-easy-02": (349200, 0, 0, 78),
    "analysis-easy-03": (707547091, 3, 1344492066, 938),
    "analysis-easy-04": (111500000, 2, 191639587, 334),
    "analysis-easy-05": (26676926, 1, 386273766, 596),
    "analysis-easy-06": (407400, 0, 0, 107),
    "analysis-easy-07": (266183202, 0, 0, 888),
    "analysis-hard-01": (467988242, 1, 348040867, 862),
    "analysis-hard-02": (280000, 1, 20017520, 139),
    "analysis-hard-03": (18923361, 2, 471480413, 235),
    "analysis-hard-04": (79084531, 2, 680577980, 886),
    "analysis-hard-05": (319613891, 0, 0, 596),
    "analysis-hard-06": (128800000, 1, 360465356, 748),
    "analysis-medium-01": (9300000, 0, 0, 187),
    "analysis-medium-02": (59448104, 2, 172931128, 434),
    "analysis-medium-03": (446709, 0, 0, 100),
    "analysis-medium-04": (122204667, 0, 0, 275),
    "analysis-medium-05": (67400000, 2, 567066314, 754),
    "analysis-medium-06": (26966000, 1, 511109841, 175),
    "analysis-medium-07": (67806091, 4, 637131214, 389),
    "control-easy-01": (27063000, 1, 413539358, 102),
    "control-easy-02": (39851539, 1, 91785153, 417),
    "control-easy-03": (42064171, 4, 2050540348, 570),
    "control-easy-04": (1075200000, 17, 1415150304, 2687),
    "control-easy-05": (202606268, 4, 1010974466, 991),
    "control-easy-06": (13781656, 0, 0, 239),
    "control-easy-07": (21598781, 3, 617756290, 420),
    "control-hard-01": (602852216, 1, 449974964, 839),
    "control-hard-02": (14700000, 1, 532732965, 229),
    "control-hard-03": (84019042, 3, 472585763, 694),
    "control-hard-04": (173221510, 0, 0, 1218),
    "control-hard-05": (316694726, 9, 661928531, 4006),
    "control-hard-06": (1993800000, 2, 369354644, 793),
    "control-medium-01": (640000000, 1, 506824915, 579),
    "control-medium-02": (379111189, 3, 110061340, 1497),
    "control-medium-03": (79802117, 7, 1339950494, 957),
    "control-medium-04": (7176226, 1, 198807285, 191),
    "control-medium-05": (97900000, 6, 852406088, 709),
    "control-medium-06": (151153329, 6, 6648642243, 1129),
    "control-medium-07": (178485351, 7, 499662081, 1683),
    "planning-easy-01": (68163583, 2, 183346333, 762),
    "planning-easy-02": (45590000, 2, 962505361, 624),
    "planning-easy-03": (26627157, 1, 363570397, 520),
    "planning-easy-04": (403100000, 13, 1554636183, 1006),
    "planning-easy-05": (181815647, 2, 799328477, 787),
    "planning-easy-06": (182666800, 15, 1202228670, 1937),
    "planning-easy-07": (15813981, 3, 597409402, 425),
    "planning-hard-01": (170717371, 7, 4000579940, 1522),
    "planning-hard-02": (2766400000, 26, 1724301857, 5020),
    "planning-hard-03": (99364043, 5, 2377316648, 1040),
    "planning-hard-04": (193418000, 3, 738432287, 965),
    "planning-hard-05": (256428416, 23, 2969540216, 3785),
    "planning-hard-06": (2390000000, 13, 4973605357, 5559),
    "planning-medium-01": (183600000, 6, 2300521957, 895),
    "planning-medium-02": (102433690, 8, 1013185516, 1154),
    "planning-medium-03": (236686623, 7, 3668478066, 2133),
    "planning-medium-04": (153739078, 7, 818844377, 1637),
    "planning-medium-05": (97400000, 0, 0, 1029),
    "planning-medium-06": (83355778, 1, 482118924, 480),
    "planning-medium-07": (152472407, 8, 1511338897, 1276),
}

STRATA = ["micro", "small", "medium", "large", "enterprise"]
# Per stratum: daily budgets (currency, used in turn), the keywords' max
# CPC (micros) and the market's searches a day. Large budgets are not
# spendable in a market this small: their tasks grade state and relative
# KPIs, and bigger accounts bid more and see more traffic.
BUDGETS = {
    "micro": [40, 60, 80, 25],
    "small": [150, 300, 600, 900],
    "medium": [1500, 2500, 4000, 5000],
    "large": [8000, 15000, 30000, 45000],
    "enterprise": [60000, 120000, 250000, 500000],
}
BID = {"micro": 1_000_000, "small": 2_000_000, "medium": 3_000_000, "large": 5_000_000, "enterprise": 8_000_000}
TRAFFIC = {"micro": 1500, "small": 2500, "medium": 3000, "large": 3500, "enterprise": 4000}


def add_days(date, n):
    y, m, d = (int(x) for x in date.split("-"))
    days = [31, 29 if y % 4 == 0 and (y % 100 != 0 or y % 400 == 0) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    d += n
    while d > days[m - 1]:
        d -= days[m - 1]
        m += 1
        if m > 12:
            m, y = 1, y + 1
    while d < 1:
        m -= 1
        if m < 1:
            m, y = 12, y - 1
        d += days[m - 1]
    return "%04d-%02d-%02d" % (y, m, d)


def q(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def val(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(val(x) for x in v) + "]"
    return q(v)


def table(name, fields, array=True):
    out = ["", ("[[%s]]" if array else "[%s]") % name]
    for k, v in fields.items():
        if v is None:
            continue
        if k == "keywords":
            out.append("keywords = [")
            for kw in v:
                out.append("  { " + ", ".join("%s = %s" % (a, val(b)) for a, b in kw.items()) + " },")
            out.append("]")
        else:
            out.append("%s = %s" % (k, val(v)))
    return out


class T:
    """One task being written."""

    def __init__(self, n, modality, difficulty, family):
        self.n, self.modality, self.difficulty, self.family = n, modality, difficulty, family
        self.dynamics, self.events, self.predicates, self.oracle, self.scope = [], [], [], [], []
        self.diagnosis = None
        self.needs_action = True
        self.cadence = 24
        self.days = 3
        self.warmup = 0
        self.campaigns = []

    def render(self):
        lines = [
            "# Written by tasks/generate.py.",
            "id = %s" % q(self.id),
            "modality = %s" % q(self.modality),
            "difficulty = %s" % q(self.difficulty),
            "vertical = %s" % q(self.vertical),
            "start = %s" % q(self.start),
            "dynamics = %s" % val(self.dynamics),
            "needs_action = %s" % val(self.needs_action),
            "objective = { kind = %s, target = %s }" % (q(self.objective), val(self.target)),
            "scope = %s" % val(self.scope),
            'brief = """',
            self.brief.strip(),
            '"""',
        ]
        lines += table("scenario", {
            "seed": self.seed, "start_date": self.start_date, "days": self.days,
            "cadence": self.cadence, "budget_micros": self.budget, "opportunities_per_day": float(self.traffic),
            "mechanism": self.mechanism, "warmup_days": self.warmup,
            "special_category": SPECIAL.get(self.id),
        }, array=False)
        for c in self.campaigns:
            lines += table("account.campaigns", c)
        for e in self.events:
            lines += table("event", e)
        for p in self.predicates:
            lines += table("predicate", p)
        if self.diagnosis:
            lines += table("diagnosis", self.diagnosis, array=False)
        for o in self.oracle:
            lines += table("oracle", o)
        return "\n".join(lines) + "\n"


def campaign(t, name, budget, keywords, status="ENABLED", bid=None):
    bid = bid or BID[t.stratum]
    kws = []
    for j, text in enumerate(keywords):
        kws.append({"text": text, "match": ["broad", "phrase", "exact"][j % 3], "bid_micros": bid + 100_000 * j})
    c = {"name": name, "status": status, "ad_group_bid_micros": bid}
    if budget is not None:
        c["budget_micros"] = budget
    c["keywords"] = kws
    return c


def at(date, hour=0):
    return "%sT%02d:00" % (date, hour)


def money(m):
    return "%.2f" % (m / M)


# ---- planning ---------------------------------------------------------------

def plan_launch(t):
    t.start, t.warmup = "cold", 0
    kws = VOCAB[t.vertical][:3]
    name = t.vertical.title().replace("-", " ") + " launch"
    t.campaigns = [{"name": name, "status": "PAUSED", "ad_group_bid_micros": BID[t.stratum], "keywords": []}]
    t.scope = ["keyword:*.create", "keyword:*.cpc_bid_micros", "campaign:%s.status" % name,
               "ad_group:*.cpc_bid_micros", "budget:%s.amount_micros" % name]
    group = name + " ad group"
    t.brief = ("We are new to search ads. Our campaign %r is set up with a daily budget of %s but has no "
               "keywords and is paused. Add at least three keywords for %s, then switch the campaign on."
               % (name, money(t.budget), ", ".join(kws)))
    for j, k in enumerate(kws):
        t.oracle.append({"at": at(t.start_date), "op": "create-keyword", "ad_group": group, "text": k,
                         "match": "phrase", "bid_micros": BID[t.stratum] + 200_000 * j})
    t.oracle.append({"at": at(t.start_date), "op": "set", "target": "campaign:%s.status" % name, "value": "ENABLED"})
    t.predicates = [
        {"kind": "campaign-status", "campaign": name, "status": "ENABLED"},
        {"kind": "keywords", "campaign": name, "min": 3.0},
        {"kind": "kpi", "metric": "impressions", "min": 1.0},
    ]
    if t.difficulty != "easy":
        t.predicates.append({"kind": "kpi", "metric": "spend", "max": t.budget * 2 * t.days / M})


def plan_negative(t):
    neg = NEGATIVE[t.vertical]
    kws = VOCAB[t.vertical][:3]
    t.campaigns = [campaign(t, "Main", None, kws)]
    t.scope = ["keyword:%s.create" % neg]
    t.brief = ("Searches with %r in them bring us the wrong customers. Keep our ads off every search "
               "that says %r, and leave everything else as it is." % (neg, neg))
    t.oracle = [{"at": at(t.start_date), "op": "create-negative", "ad_group": "Main ad group", "text": neg, "match": "broad"}]
    t.predicates = [{"kind": "negative-keyword", "keyword": neg}, {"kind": "kpi", "metric": "impressions", "min": 1.0}]


def plan_season(t):
    t.start_date = SEASON[t.vertical]
    t.dynamics.append("seasonality")
    kws = VOCAB[t.vertical][:3]
    t.campaigns = [campaign(t, "Seasonal", None, kws)]
    new = t.budget * 3 // 2
    t.scope = ["budget:Seasonal.amount_micros"]
    t.brief = ("Our busy season is here and searches are up. Raise the daily budget of 'Seasonal' by half, "
               "from %s to %s, today." % (money(t.budget), money(new))) if t.difficulty == "easy" else (
        "Our busy season is here and searches are up. Raise the daily budget of 'Seasonal' by half "
        "for the season; do not touch anything else.")
    t.oracle = [{"at": at(t.start_date), "op": "set", "target": "budget:Seasonal.amount_micros", "value": new}]
    t.predicates = [{"kind": "budget", "campaign": "Seasonal", "min_micros": new * 95 // 100, "max_micros": new * 105 // 100}]


def plan_promotion(t):
    vi = VERTICALS.index(t.vertical)
    day = PROMO_MAY[t.seed][vi]
    promo = "2025-05-%02d" % day
    t.start_date = add_days(promo, -1)
    t.dynamics.append("promotion")
    t.events.append({"kind": "promotion", "at": at(promo)})
    kws = VOCAB[t.vertical][:2]
    extra = VOCAB[t.vertical][3]
    t.campaigns = [campaign(t, "Always on", None, kws)]
    t.scope = ["keyword:%s.create" % extra, "keyword:%s.cpc_bid_micros" % extra]
    t.brief = ("The %s season's promotion starts on %s and runs three days. Add the phrase-match keyword %r "
               "to 'Always on' before it starts, bidding %s." % (t.vertical, promo, extra, money(BID[t.stratum])))
    t.oracle = [{"at": at(t.start_date), "op": "create-keyword", "ad_group": "Always on ad group", "text": extra,
                 "match": "phrase", "bid_micros": BID[t.stratum]}]
    t.predicates = [
        {"kind": "keyword-status", "keyword": extra, "status": "ENABLED"},
        {"kind": "kpi", "metric": "impressions", "keyword": extra, "from": promo, "min": 1.0},
    ]


def plan_competitor(t):
    kws = VOCAB[t.vertical][:3]
    t.campaigns = [campaign(t, "Core", None, kws)]
    enter = add_days(t.start_date, 1)
    t.dynamics.append("competitor-entering")
    t.events.append({"kind": "competitor-entering", "at": at(enter), "bid_micros": BID[t.stratum] * 2,
                     "budget_micros": max(t.budget * 2, 50 * M)})
    floor = BID[t.stratum] * 2
    target = kws[0]
    t.scope = ["keyword:%s.cpc_bid_micros" % target]
    t.brief = ("A new competitor starts bidding on %s on %s. Plan for it: from then on bid at least %s on %r "
               "(and no more than twice that)." % (t.vertical, enter, money(floor), target))
    t.oracle = [{"at": at(enter), "op": "set", "target": "keyword:%s.cpc_bid_micros" % target, "value": floor + 200_000}]
    t.predicates = [{"kind": "keyword-bid", "keyword": target, "min_micros": floor, "max_micros": floor * 2}]


def plan_restructure(t):
    kws = VOCAB[t.vertical]
    a, b = t.budget * 3 // 5, t.budget - t.budget * 3 // 5
    t.campaigns = [campaign(t, "Winners", a, kws[:2]), campaign(t, "Laggards", b, kws[2:4])]
    t.scope = ["budget:Winners.amount_micros", "budget:Laggards.amount_micros"]
    moved = b // 2
    t.brief = ("'Laggards' converts at half the rate of 'Winners'. Move half of Laggards' daily budget to "
               "Winners; the account's total daily budget (%s) stays the same." % money(t.budget))
    t.oracle = [
        {"at": at(t.start_date), "op": "set", "target": "budget:Laggards.amount_micros", "value": b - moved},
        {"at": at(t.start_date), "op": "set", "target": "budget:Winners.amount_micros", "value": a + moved},
    ]
    t.predicates = [
        {"kind": "budget", "campaign": "Winners", "min_micros": (a + moved) * 97 // 100, "max_micros": (a + moved) * 103 // 100},
        {"kind": "budget", "campaign": "Laggards", "min_micros": (b - moved) * 94 // 100, "max_micros": (b - moved) * 106 // 100},
        {"kind": "budget", "campaign": "*", "min_micros": t.budget * 99 // 100, "max_micros": t.budget * 101 // 100},
    ]


def plan_stock(t):
    kws = VOCAB[t.vertical][:3]
    new = VOCAB[t.vertical][4]
    t.campaigns = [campaign(t, "Catalogue", None, kws)]
    out = add_days(t.start_date, 1)
    gone = kws[2]
    t.dynamics.append("stock-change")
    t.events.append({"kind": "stock-change", "at": at(out), "keyword": gone})
    t.scope = ["keyword:%s.status" % gone, "keyword:%s.create" % new]
    t.brief = ("Our %s %r %s on %s and will not be back this month: stop advertising it from that day. "
               "We are also adding %r to the range: advertise it (exact match is fine) from today."
               % (THING[t.vertical], gone, GONE[t.vertical], out, new))
    t.oracle = [
        {"at": at(t.start_date), "op": "create-keyword", "ad_group": "Catalogue ad group", "text": new,
         "match": "exact", "bid_micros": BID[t.stratum]},
        {"at": at(out), "op": "set", "target": "keyword:%s.status" % gone, "value": "PAUSED"},
    ]
    t.predicates = [
        {"kind": "keyword-status", "keyword": gone, "status": "PAUSED"},
        {"kind": "kpi", "metric": "spend", "keyword": gone, "from": out, "max": 0.0},
        {"kind": "keyword-status", "keyword": new, "status": "ENABLED"},
    ]


def plan_hold(t):
    """The account is already as planned: the right move is none."""
    kws = VOCAB[t.vertical][:3]
    t.campaigns = [campaign(t, "Steady", None, kws)]
    t.needs_action = False
    t.scope = ["keyword:*.cpc_bid_micros"]
    t.brief = ("Check our plan: every keyword should bid between %s and %s and the campaign should run on "
               "%s a day. Fix what is off, and only that." % (money(BID[t.stratum] - 500_000),
                                                             money(BID[t.stratum] + 500_000), money(t.budget)))
    t.predicates = [
        {"kind": "keyword-bid", "keyword": "*", "min_micros": BID[t.stratum] - 500_000, "max_micros": BID[t.stratum] + 500_000},
        {"kind": "budget", "campaign": "Steady", "min_micros": t.budget, "max_micros": t.budget},
    ]


# ---- control ----------------------------------------------------------------

def ctrl_drain(t):
    kws = VOCAB[t.vertical][:3]
    t.campaigns = [campaign(t, "Search", None, kws)]
    t.cadence = 6
    hit = add_days(t.start_date, 1)
    t.dynamics.append("invalid-traffic")
    t.events.append({"kind": "invalid-traffic", "at": at(hit, 9), "bot_searches": 4})
    t.scope = ["campaign:*.status"]
    t.brief = ("Watch the account every six hours. If clicks spike with no conversions behind them (invalid "
               "traffic), pause every campaign and leave it paused; change nothing else.")
    t.oracle = [{"at": at(hit, 12), "op": "set", "target": "campaign:Search.status", "value": "PAUSED"}]
    t.predicates = [{"kind": "campaign-status", "campaign": "*", "status": "PAUSED"}]
    if t.days > 2:
        t.predicates.append({"kind": "kpi", "metric": "spend", "from": add_days(hit, 1), "max": 0.0})


def ctrl_calm(t):
    kws = VOCAB[t.vertical][:3]
    t.campaigns = [campaign(t, "Search", None, kws)]
    t.cadence = 6
    t.needs_action = False
    t.start_date = SEASON[t.vertical]
    t.dynamics.append("seasonality")
    t.scope = ["campaign:*.status"]
    t.brief = ("Watch the account every six hours. If clicks spike with no conversions behind them (invalid "
               "traffic), pause every campaign; a busy season is not a reason to pause.")
    t.predicates = [{"kind": "campaign-status", "campaign": "*", "status": "ENABLED"},
                    {"kind": "kpi", "metric": "impressions", "min": 1.0}]


def ctrl_stock(t):
    kws = VOCAB[t.vertical][:3]
    t.campaigns = [campaign(t, "Products", None, kws)]
    out = add_days(t.start_date, 1)
    gone = kws[1]
    t.dynamics.append("stock-change")
    t.events.append({"kind": "stock-change", "at": at(out), "keyword": gone})
    t.scope = ["keyword:%s.status" % gone]
    t.brief = ("Our %s %r %s on %s. Stop its ads from that day; the rest of the account keeps "
               "running as is." % (THING[t.vertical], gone, GONE[t.vertical], out))
    t.oracle = [{"at": at(out), "op": "set", "target": "keyword:%s.status" % gone, "value": "PAUSED"}]
    t.predicates = [
        {"kind": "keyword-status", "keyword": gone, "status": "PAUSED"},
        {"kind": "kpi", "metric": "spend", "keyword": gone, "from": out, "max": 0.0},
        {"kind": "campaign-status", "campaign": "Products", "status": "ENABLED"},
    ]


def ctrl_bid_cap(t):
    kws = VOCAB[t.vertical][:3]
    high = BID[t.stratum] * 3
    t.campaigns = [campaign(t, "Search", None, kws, bid=high)]
    cap = BID[t.stratum]
    t.scope = ["keyword:*.cpc_bid_micros", "ad_group:*.cpc_bid_micros"]
    t.brief = ("Our CPA is running over the %s target. Cap every keyword's max CPC at %s; keep the budget "
               "and the keywords as they are." % (money(CPA[t.vertical] * M), money(cap)))
    t.oracle = [{"at": at(t.start_date), "op": "set", "target": "keyword:%s.cpc_bid_micros" % k, "value": cap}
                for k in kws]
    t.predicates = [{"kind": "keyword-bid", "keyword": "*", "max_micros": cap},
                    {"kind": "keywords", "min": 3.0}]


def ctrl_competitor(t):
    kws = VOCAB[t.vertical][:2]
    low = max(BID[t.stratum] // 4, 200_000)
    t.campaigns = [campaign(t, "Brand", None, kws, bid=low)]
    enter = add_days(t.start_date, 1)
    t.dynamics.append("competitor-entering")
    t.events.append({"kind": "competitor-entering", "at": at(enter), "bid_micros": BID[t.stratum],
                     "budget_micros": max(t.budget * 2, 50 * M)})
    t.scope = ["keyword:*.cpc_bid_micros"]
    target = BID[t.stratum] * 2
    t.brief = ("A competitor enters our auctions on %s bidding about %s a click. From that day keep our "
               "keywords above it: bid between %s and %s on each." % (enter, money(BID[t.stratum]),
                                                                    money(target), money(target * 2)))
    t.oracle = [{"at": at(enter), "op": "set", "target": "keyword:%s.cpc_bid_micros" % k, "value": target}
                for k in kws]
    t.predicates = [{"kind": "keyword-bid", "keyword": "*", "min_micros": target, "max_micros": target * 2},
                    {"kind": "kpi", "metric": "impressions", "from": enter, "min": 1.0}]


def ctrl_budget_cut(t):
    kws = VOCAB[t.vertical][:3]
    t.campaigns = [campaign(t, "Search", None, kws)]
    when = add_days(t.start_date, 1)
    cut = t.budget // 2
    t.dynamics.append("budget-change")
    t.events.append({"kind": "budget-change", "at": at(when), "budget_micros": cut})
    t.scope = ["keyword:%s.status" % kws[2]]
    t.brief = ("Finance halves our daily budget on %s. When it lands, pause %r (our weakest keyword) so the "
               "rest keeps its reach; do not touch the budget yourself." % (when, kws[2]))
    t.oracle = [{"at": at(when), "op": "set", "target": "keyword:%s.status" % kws[2], "value": "PAUSED"}]
    t.predicates = [{"kind": "keyword-status", "keyword": kws[2], "status": "PAUSED"},
                    {"kind": "budget", "campaign": "Search", "min_micros": cut, "max_micros": cut}]


def ctrl_disapproved(t):
    kws = VOCAB[t.vertical]
    a, b = t.budget // 2, t.budget - t.budget // 2
    t.campaigns = [campaign(t, "Alpha", a, kws[:2]), campaign(t, "Beta", b, kws[2:4])]
    t.cadence = 12
    when = add_days(t.start_date, 1)
    t.dynamics.append("disapproved-ad")
    t.events.append({"kind": "disapproved-ad", "at": at(when, 6), "ad_group": "Alpha ad group"})
    t.scope = ["campaign:Alpha.status", "budget:Beta.amount_micros"]
    t.brief = ("If one of our campaigns stops serving, pause it and give its daily budget to the other, so "
               "the account still spends %s a day. Check twice a day." % money(t.budget))
    t.oracle = [
        {"at": at(when, 12), "op": "set", "target": "campaign:Alpha.status", "value": "PAUSED"},
        {"at": at(when, 12), "op": "set", "target": "budget:Beta.amount_micros", "value": t.budget},
    ]
    t.predicates = [{"kind": "campaign-status", "campaign": "Alpha", "status": "PAUSED"},
                    {"kind": "campaign-status", "campaign": "Beta", "status": "ENABLED"},
                    {"kind": "budget", "campaign": "Beta", "min_micros": t.budget * 95 // 100, "max_micros": t.budget * 105 // 100}]


# ---- analysis ---------------------------------------------------------------

def analysis(t, cause):
    kws = VOCAB[t.vertical][:3]
    t.diagnosis = {"cause": cause}
    hit = add_days(t.start_date, 1)
    bid = BID[t.stratum]
    budget = None
    if cause == "bid-too-low":
        bid = 20_000
    t.campaigns = [campaign(t, "Account", budget, kws, bid=bid)]
    if cause == "budget-limited":
        # Every head term on broad match, bidding high, in a busy market:
        # the budget runs out every day.
        c = campaign(t, "Account", budget, VOCAB[t.vertical], bid=BID[t.stratum] * 4)
        for k in c["keywords"]:
            k["match"] = "broad"
        t.campaigns[0] = c
    if cause == "invalid-traffic":
        t.dynamics.append("invalid-traffic")
        t.events.append({"kind": "invalid-traffic", "at": at(hit, 9), "bot_searches": 4})
    if cause == "disapproved-ad":
        t.dynamics.append("disapproved-ad")
        t.events.append({"kind": "disapproved-ad", "at": at(hit, 9), "ad_group": "Account ad group"})
    if cause == "tracking-outage":
        t.dynamics.append("tracking-outage")
        t.events.append({"kind": "tracking-outage", "at": at(hit, 9)})
    symptom = {
        "budget-limited": "we get fewer clicks than we expected for the searches out there",
        "bid-too-low": "our ads hardly show at all",
        "invalid-traffic": "clicks jumped but conversions did not follow",
        "disapproved-ad": "our ads stopped showing",
        "tracking-outage": "conversions dropped to nothing while clicks held",
    }[cause]
    t.brief = ("Something is off: %s. Find the cause and tell us which one it is: budget-limited, "
               "bid-too-low, tracking-outage, disapproved-ad or invalid-traffic." % symptom)
    if t.difficulty == "hard" and cause == "invalid-traffic":
        t.cadence = 6
        t.scope = ["campaign:*.status"]
        t.brief += " If it is invalid traffic, also pause the campaign."
        t.oracle = [{"at": at(hit, 12), "op": "set", "target": "campaign:Account.status", "value": "PAUSED"}]
        t.predicates = [{"kind": "campaign-status", "campaign": "*", "status": "PAUSED"}]
    elif t.difficulty == "hard":
        t.brief += " Do not change the account: we only want the diagnosis."
        t.predicates = [{"kind": "keywords", "min": 3.0}]
    else:
        t.brief += " Do not change anything."


def objective(t):
    """The objective's target from the oracle's KPIs, graded by an
    `objective` predicate where the oracle's episode measured enough (three
    conversions, a hundred impressions) and the task is not an analysis."""
    cost, conv, value, impr = ORACLE_KPIS.get(t.id, (0, 0, 0, 0))
    # Graded where the oracle's episode measured enough; otherwise the
    # target is stated only, still from what the market gave (or a
    # vertical's usual figure where it gave nothing).
    enough = conv >= 3
    if t.objective == "cpa":
        target = round(cost / M / conv * 1.3 + 0.005, 2) if conv else float(CPA[t.vertical])
    elif t.objective == "roas":
        target = round(value / cost * 0.7, 2) if value and cost else 3.0
    elif t.objective == "revenue":
        target = float(int(value / M * 0.7)) if value else float(CPA[t.vertical] * 2 * t.days)
    elif t.objective in ("leads", "installs"):
        target = float(max(1, int(conv * 0.7)))
    else:
        enough = impr >= 100
        target = float(max(10, int(impr * 0.7)))
    t.target = target
    if enough and target > 0 and t.modality != "analysis":
        t.predicates.append({"kind": "objective"})


# ---- the set ----------------------------------------------------------------

PLANNING = [
    ("easy", plan_launch), ("easy", plan_negative), ("easy", plan_season), ("easy", plan_promotion),
    ("easy", plan_competitor), ("easy", plan_launch), ("easy", plan_hold),
    ("medium", plan_launch), ("medium", plan_season), ("medium", plan_promotion), ("medium", plan_stock),
    ("medium", plan_restructure), ("medium", plan_negative), ("medium", plan_competitor),
    ("hard", plan_stock), ("hard", plan_restructure), ("hard", plan_promotion), ("hard", plan_launch),
    ("hard", plan_season), ("hard", plan_hold),
]
CONTROL = [
    ("easy", ctrl_drain), ("easy", ctrl_stock), ("easy", ctrl_bid_cap), ("easy", ctrl_calm),
    ("easy", ctrl_competitor), ("easy", ctrl_budget_cut), ("easy", ctrl_stock),
    ("medium", ctrl_drain), ("medium", ctrl_competitor), ("medium", ctrl_disapproved), ("medium", ctrl_bid_cap),
    ("medium", ctrl_budget_cut), ("medium", ctrl_calm), ("medium", ctrl_stock),
    ("hard", ctrl_drain), ("hard", ctrl_disapproved), ("hard", ctrl_competitor), ("hard", ctrl_stock),
    ("hard", ctrl_budget_cut), ("hard", ctrl_drain),
]
# Horizons off the usual 2 to 5 days, to cover 1 to 14.
HORIZON = {"planning-easy-01": 1, "planning-hard-05": 10, "planning-hard-06": 14,
           "control-hard-05": 7, "analysis-hard-06": 7}
# Tasks in a special ad category (their keywords are mortgages and
# loans): delivery is measured per audience group and the fairness gate
# applies.
SPECIAL = {"planning-easy-02": "housing", "planning-medium-05": "credit", "control-hard-06": "credit"}

CAUSES = ["budget-limited", "bid-too-low", "invalid-traffic", "disapproved-ad", "tracking-outage"]
ANALYSIS = [
    ("easy", "budget-limited"), ("easy", "bid-too-low"), ("easy", "invalid-traffic"), ("easy", "disapproved-ad"),
    ("easy", "budget-limited"), ("easy", "bid-too-low"), ("easy", "invalid-traffic"),
    ("medium", "disapproved-ad"), ("medium", "budget-limited"), ("medium", "bid-too-low"),
    ("medium", "invalid-traffic"), ("medium", "tracking-outage"), ("medium", "disapproved-ad"),
    ("medium", "budget-limited"),
    ("hard", "invalid-traffic"), ("hard", "bid-too-low"), ("hard", "disapproved-ad"), ("hard", "tracking-outage"),
    ("hard", "invalid-traffic"), ("hard", "budget-limited"),
]


def build():
    specs = [("planning", d, f) for d, f in PLANNING] + [("control", d, f) for d, f in CONTROL] + \
        [("analysis", d, c) for d, c in ANALYSIS]
    strata = [STRATA[i % 5] for i in range(len(specs))]
    # A budget-limited account needs a budget the market can exhaust.
    for i, (m, _, f) in enumerate(specs):
        if f == "budget-limited" and strata[i] != "micro":
            j = next(j for j, (m2, _, f2) in enumerate(specs)
                     if f2 != "budget-limited" and strata[j] == "micro")
            strata[i], strata[j] = strata[j], strata[i]
    tasks = []
    counts = {}
    used = {s: 0 for s in STRATA}
    for i, (modality, difficulty, family) in enumerate(specs):
        key = (modality, difficulty)
        counts[key] = counts.get(key, 0) + 1
        t = T(i, modality, difficulty, family)
        t.id = "%s-%s-%02d" % (modality, difficulty, counts[key])
        t.vertical = VERTICALS[i % 5] if modality != "control" else VERTICALS[(i + 2) % 5]
        t.stratum = strata[i]
        t.budget = BUDGETS[t.stratum][used[t.stratum] % 4] * M
        used[t.stratum] += 1
        t.traffic = TRAFFIC[t.stratum]
        t.seed = i + 1
        t.mechanism = ["gsp", "gsp", "vcg", "first-price"][i % 4]
        t.start = "warm" if i % 2 else "cold"
        t.warmup = 1 + i % 3 if t.start == "warm" else 0
        t.start_date = PLAIN[i % len(PLAIN)]
        t.days = HORIZON.get(t.id, {"easy": 2, "medium": 3, "hard": 4}[difficulty] + (i % 2))
        objs = OBJECTIVES[t.vertical]
        t.objective = objs[(i // 5) % len(objs)]
        if modality == "analysis":
            if family == "budget-limited":
                t.traffic = 12000
                t.budget = 15 * M
            analysis(t, family)
        else:
            family(t)
        if t.family in (plan_launch,):
            t.start, t.warmup = "cold", 0
        if t.start == "cold":
            t.warmup = 0
        objective(t)
        tasks.append(t)
    # The objectives cover all six: the easy planning tasks' objectives are
    # the vertical's in turn; make sure installs and revenue appear.
    return tasks


def main():
    tasks = build()
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".toml"):
            os.remove(os.path.join(OUT, f))
    names = []
    for t in tasks:
        name = t.id + ".toml"
        names.append(name)
        with open(os.path.join(OUT, name), "w") as fh:
            fh.write(t.render())
    rs = ["//! Written by `tasks/generate.py`: the gauntlet's files, built in.", "",
          "/// (file name, text) of every task file, sorted by name.",
          "pub(super) const SHIPPED: &[(&str, &str)] = &["]
    for n in sorted(names):
        rs.append("    (")
        rs.append("        %s," % q(n))
        rs.append("        include_str!(%s)," % q("../../../tasks/gauntlet/" + n))
        rs.append("    ),")
    rs.append("];")
    with open(SHIPPED, "w") as fh:
        fh.write("\n".join(rs) + "\n")


if __name__ == "__main__":
    main()
