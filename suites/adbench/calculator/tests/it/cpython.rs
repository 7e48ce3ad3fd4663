//! Agent-style snippets whose printed output must equal CPython's, byte
//! for byte. Each expected string was produced by running the same snippet
//! under CPython 3.11.7 with `r1`/`r2` bound to the same JSON.
//!
//! Deliberate differences from CPython are not exercised here (see the
//! crate's doc), such as ints past 4300 digits.

use adfarm_calculator::Request;

use crate::calculator;

/// A tool result as agents see it: campaign rows.
const R1: &str = r##"[
 {"campaign": "Spring Sale", "channel": "search", "date": "2024-03-01", "impressions": 120500, "clicks": 3412, "cost": 1875.40, "conversions": 142, "revenue": 9120.55},
 {"campaign": "Spring Sale", "channel": "display", "date": "2024-03-01", "impressions": 340210, "clicks": 1210, "cost": 964.10, "conversions": 31, "revenue": 1840.00},
 {"campaign": "Brand Always-On", "channel": "search", "date": "2024-03-01", "impressions": 56000, "clicks": 4890, "cost": 1220.75, "conversions": 301, "revenue": 15333.20},
 {"campaign": "Retargeting Q1", "channel": "social", "date": "2024-03-02", "impressions": 88750, "clicks": 2107, "cost": 733.33, "conversions": 88, "revenue": 4410.90},
 {"campaign": "Spring Sale", "channel": "social", "date": "2024-03-02", "impressions": 150300, "clicks": 2950, "cost": 1402.00, "conversions": 97, "revenue": 5200.00},
 {"campaign": "Brand Always-On", "channel": "display", "date": "2024-03-02", "impressions": 410000, "clicks": 980, "cost": 512.60, "conversions": 12, "revenue": 610.40},
 {"campaign": "Retargeting Q1", "channel": "search", "date": "2024-03-03", "impressions": 23100, "clicks": 1502, "cost": 601.15, "conversions": 77, "revenue": 3990.00},
 {"campaign": "Video Launch", "channel": "video", "date": "2024-03-03", "impressions": 512000, "clicks": 0, "cost": 2500.00, "conversions": 0, "revenue": 0}
]"##;

/// A second tool result: an account summary object.
const R2: &str = r##"{"account": "acme-shop", "currency": "USD", "budget": 12000, "spend_to_date": 9809.33,
 "daily": {"2024-03-01": 4060.25, "2024-03-02": 2647.93, "2024-03-03": 3101.15},
 "targets": {"cpa": 25.0, "roas": 4.0}}"##;

/// (name, snippet, what CPython prints).
const CASES: &[(&str, &str, &str)] = &[
    (
        "total_spend",
        r##"total = sum(r["cost"] for r in r1)
print(total)
print(round(total, 2))"##,
        r##"9809.33
9809.33
"##,
    ),
    (
        "ctr_per_row",
        r##"for r in r1:
    ctr = r["clicks"] / r["impressions"] * 100
    print(f"{r['campaign']} / {r['channel']}: CTR {ctr:.2f}%")"##,
        r##"Spring Sale / search: CTR 2.83%
Spring Sale / display: CTR 0.36%
Brand Always-On / search: CTR 8.73%
Retargeting Q1 / social: CTR 2.37%
Spring Sale / social: CTR 1.96%
Brand Always-On / display: CTR 0.24%
Retargeting Q1 / search: CTR 6.50%
Video Launch / video: CTR 0.00%
"##,
    ),
    (
        "cpc_guarded",
        r##"for r in r1:
    cpc = r["cost"] / r["clicks"] if r["clicks"] else None
    print(r["campaign"], r["channel"], cpc if cpc is None else round(cpc, 3))"##,
        r##"Spring Sale search 0.55
Spring Sale display 0.797
Brand Always-On search 0.25
Retargeting Q1 social 0.348
Spring Sale social 0.475
Brand Always-On display 0.523
Retargeting Q1 search 0.4
Video Launch video None
"##,
    ),
    (
        "group_by_campaign",
        r##"by = {}
for r in r1:
    by.setdefault(r["campaign"], {"cost": 0, "revenue": 0})
    by[r["campaign"]]["cost"] += r["cost"]
    by[r["campaign"]]["revenue"] += r["revenue"]
for name, v in by.items():
    print(name, round(v["cost"], 2), round(v["revenue"], 2), f"ROAS={v['revenue'] / v['cost']:.2f}")"##,
        r##"Spring Sale 4241.5 16160.55 ROAS=3.81
Brand Always-On 1733.35 15943.6 ROAS=9.20
Retargeting Q1 1334.48 8400.9 ROAS=6.30
Video Launch 2500.0 0 ROAS=0.00
"##,
    ),
    (
        "top3_by_revenue",
        r##"top = sorted(r1, key=lambda r: r["revenue"], reverse=True)[:3]
for i, r in enumerate(top, 1):
    print(i, r["campaign"], r["channel"], r["revenue"])"##,
        r##"1 Brand Always-On search 15333.2
2 Spring Sale search 9120.55
3 Spring Sale social 5200.0
"##,
    ),
    (
        "share_of_spend",
        r##"total = sum(r["cost"] for r in r1)
shares = {r["channel"]: 0.0 for r in r1}
for r in r1:
    shares[r["channel"]] += r["cost"] / total
for ch, s in sorted(shares.items(), key=lambda kv: -kv[1]):
    print(f"{ch:<8}{s:>8.2%}")"##,
        r##"search    37.69%
video     25.49%
social    21.77%
display   15.05%
"##,
    ),
    (
        "cpa_vs_target",
        r##"target = r2["targets"]["cpa"]
for r in r1:
    if r["conversions"] == 0:
        print(r["campaign"], "no conversions")
        continue
    cpa = r["cost"] / r["conversions"]
    status = "OK" if cpa <= target else "OVER"
    print("%-16s %-8s CPA=%.2f %s" % (r["campaign"], r["channel"], cpa, status))"##,
        r##"Spring Sale      search   CPA=13.21 OK
Spring Sale      display  CPA=31.10 OVER
Brand Always-On  search   CPA=4.06 OK
Retargeting Q1   social   CPA=8.33 OK
Spring Sale      social   CPA=14.45 OK
Brand Always-On  display  CPA=42.72 OVER
Retargeting Q1   search   CPA=7.81 OK
Video Launch no conversions
"##,
    ),
    (
        "budget_pacing",
        r##"remaining = r2["budget"] - r2["spend_to_date"]
pct = r2["spend_to_date"] / r2["budget"] * 100
print(f"Spent {pct:.1f}% of budget; {remaining:,.2f} {r2['currency']} left")"##,
        r##"Spent 81.7% of budget; 2,190.67 USD left
"##,
    ),
    (
        "daily_growth",
        r##"days = sorted(r2["daily"])
for prev, cur in zip(days, days[1:]):
    a, b = r2["daily"][prev], r2["daily"][cur]
    print(f"{cur}: {b - a:+.2f} ({(b - a) / a * 100:+.1f}%)")"##,
        r##"2024-03-02: -1412.32 (-34.8%)
2024-03-03: +453.22 (+17.1%)
"##,
    ),
    (
        "mean_median_stdev",
        r##"import statistics
costs = [r["cost"] for r in r1]
print(statistics.mean(costs))
print(statistics.median(costs))
print(statistics.stdev(costs))
print(statistics.pstdev(costs))"##,
        r##"1226.16625
1092.425
685.1998793665456
640.9457975121122
"##,
    ),
    (
        "variance_ints",
        r##"import statistics
clicks = [r["clicks"] for r in r1]
print(statistics.variance(clicks), statistics.pvariance(clicks))
print(statistics.mean(clicks), statistics.median(clicks))"##,
        r##"2433460.2678571427 2129277.734375
2131.375 1804.5
"##,
    ),
    (
        "quantiles",
        r##"import statistics
rev = sorted(r["revenue"] for r in r1)
print(statistics.quantiles(rev, n=4))
print(statistics.quantiles(rev, n=10, method="inclusive"))"##,
        r##"[917.8, 4200.45, 8140.412499999999]
[427.28000000000003, 1102.24, 2055.0, 3560.0, 4200.45, 4568.719999999999, 5121.09, 7552.329999999999, 10984.345]
"##,
    ),
    (
        "math_functions",
        r##"import math
print(math.sqrt(2), math.log(100, 10), math.log10(1000), math.exp(1))
print(math.floor(-2.5), math.ceil(2.1), math.fabs(-3), math.pow(2, 10))
print(math.isclose(0.1 + 0.2, 0.3), math.pi, math.e, math.log2(8))"##,
        r##"1.4142135623730951 2.0 3.0 2.718281828459045
-3 3 3.0 1024.0
True 3.141592653589793 2.718281828459045 3.0
"##,
    ),
    (
        "from_import",
        r##"from statistics import mean, median as med
from math import sqrt, floor
vals = [r["conversions"] for r in r1]
print(mean(vals), med(vals), sqrt(mean(vals)), floor(mean(vals)))"##,
        r##"93.5 82.5 9.669539802906858 93
"##,
    ),
    (
        "conversion_rate_table",
        r##"print("campaign".ljust(18) + "conv%".rjust(8))
for r in r1:
    rate = r["conversions"] / r["clicks"] * 100 if r["clicks"] else 0.0
    print(r["campaign"].ljust(18) + f"{rate:.2f}".rjust(8))"##,
        r##"campaign             conv%
Spring Sale           4.16
Spring Sale           2.56
Brand Always-On       6.16
Retargeting Q1        4.18
Spring Sale           3.29
Brand Always-On       1.22
Retargeting Q1        5.13
Video Launch          0.00
"##,
    ),
    (
        "dict_comprehension_roas",
        r##"roas = {f"{r['campaign']}|{r['channel']}": round(r["revenue"] / r["cost"], 2) for r in r1 if r["cost"] > 0}
print(roas)
best = max(roas, key=roas.get)
print(best, roas[best])"##,
        r##"{'Spring Sale|search': 4.86, 'Spring Sale|display': 1.91, 'Brand Always-On|search': 12.56, 'Retargeting Q1|social': 6.01, 'Spring Sale|social': 3.71, 'Brand Always-On|display': 1.19, 'Retargeting Q1|search': 6.64, 'Video Launch|video': 0.0}
Brand Always-On|search 12.56
"##,
    ),
    (
        "list_comprehension_filter",
        r##"low = [r["campaign"] + "/" + r["channel"] for r in r1 if r["clicks"] and r["conversions"] / r["clicks"] < 0.03]
print(low)
print(len(low))"##,
        r##"['Spring Sale/display', 'Brand Always-On/display']
2
"##,
    ),
    (
        "nested_comprehension",
        r##"matrix = [[r["clicks"], r["conversions"]] for r in r1[:3]]
flat = [x for row in matrix for x in row]
print(matrix)
print(flat, sum(flat))"##,
        r##"[[3412, 142], [1210, 31], [4890, 301]]
[3412, 142, 1210, 31, 4890, 301] 9986
"##,
    ),
    (
        "float_repr_cases",
        r##"print(0.1 + 0.2, 1 / 3, 2 / 3, 10 / 4, 1e-5, 1e16, 123456789012345678.0)
print(1.0, -0.0, 3.14, 100.0 / 7, 2 ** 0.5, 1e300 * 10)
print([0.1, 0.25, 1 / 7])"##,
        r##"0.30000000000000004 0.3333333333333333 0.6666666666666666 2.5 1e-05 1e+16 1.2345678901234568e+17
1.0 -0.0 3.14 14.285714285714286 1.4142135623730951 1e+301
[0.1, 0.25, 0.14285714285714285]
"##,
    ),
    (
        "integer_division_modulo",
        r##"print(7 // 2, -7 // 2, 7 % 3, -7 % 3, 7.5 // 2, -7.5 % 2)
print(divmod(17, 5), divmod(-17, 5), 2 ** 10, 2 ** -1, (-2) ** 3)
total_minutes = 12345
h, m = divmod(total_minutes, 60)
print(f"{h}h {m:02d}m")"##,
        r##"3 -4 1 2 3.0 0.5
(3, 2) (-4, 3) 1024 0.5 -8
205h 45m
"##,
    ),
    (
        "round_cases",
        r##"print(round(2.5), round(3.5), round(-2.5), round(0.125, 2), round(2.675, 2))
print(round(1234.5678, -2), round(1234, -2), round(15, -1), round(25, -1), round(1.0005, 3))
print(round(7 / 3, 4), round(100 * 142 / 3412, 2))"##,
        r##"2 4 -2 0.12 2.67
1200.0 1200 20 20 1.0
2.3333 4.16
"##,
    ),
    (
        "percent_formatting",
        r##"x = 0.123456
print("%d%%" % 50, "%.1f%%" % (x * 100), "%5.2f|" % 3.14159, "%-6s|" % "ab", "%06.2f" % 3.14159)
print("%s and %r" % ("a", "a"), "%x %X %o" % (255, 255, 8), "%e" % 12345.678, "%g" % 0.0001234)
print("%(name)s spent %(cost).2f" % {"name": "Spring", "cost": 1875.4})"##,
        r##"50% 12.3%  3.14| ab    | 003.14
a and 'a' ff FF 10 1.234568e+04 0.0001234
Spring spent 1875.40
"##,
    ),
    (
        "str_format_method",
        r##"print("{} {}".format("a", 1), "{0}{1}{0}".format("x", "y"), "{name}={value:.3f}".format(name="ctr", value=0.034567))
print("{:>10}|{:<6}|{:^7}|".format("right", "left", "mid"), "{:,}".format(1234567), "{:08.3f}".format(-3.14159))
print("{:.1%}".format(0.2567), "{:+d}".format(5), "{0[0]}-{0[1]}".format(["a", "b"]), "{:e}".format(0.000123))"##,
        r##"a 1 xyx ctr=0.035
     right|left  |  mid  | 1,234,567 -003.142
25.7% +5 a-b 1.230000e-04
"##,
    ),
    (
        "fstring_specs",
        r##"v = 1234567.891
n = 42
print(f"{v:,.2f}|{v:.0f}|{v:e}|{v:.3g}|{n:05d}|{n:x}|{n:#b}|{n:>6}|{n:<6}|{n:^6}|")
print(f"{0.5:.0%}|{-0.05:.1%}|{1/3:.4}|{2.0:g}|{1e-7:g}|{123456789:,}|{True}|{None}")
w = 10
print(f"{'pad':>{w}}|{3.14159:.{2}f}|{n!r}|{'q'!r}|{n = }")"##,
        r##"1,234,567.89|1234568|1.234568e+06|1.23e+06|00042|2a|0b101010|    42|42    |  42  |
50%|-5.0%|0.3333|2|1e-07|123,456,789|True|None
       pad|3.14|42|'q'|n = 42
"##,
    ),
    (
        "print_sep_end",
        r##"print("a", "b", "c", sep="-")
print("no newline", end="")
print(" continued")
print(1, 2.5, None, True, [1, "x"], sep=" | ", end="!\n")
print()
print("last")"##,
        r##"a-b-c
no newline continued
1 | 2.5 | None | True | [1, 'x']!

last
"##,
    ),
    (
        "while_loop_compound",
        r##"budget = 1000.0
days = 0
while budget > 0:
    budget -= 137.5
    days += 1
print(days, budget)
n = 0
while True:
    n += 1
    if n * n > 50:
        break
print(n)"##,
        r##"8 -100.0
8
"##,
    ),
    (
        "try_except",
        r##"results = []
for r in r1:
    try:
        results.append(round(r["revenue"] / r["conversions"], 2))
    except ZeroDivisionError:
        results.append(None)
print(results)
try:
    r1[0]["missing"]
except KeyError as e:
    print("missing key:", e)
try:
    int("12a")
except ValueError as e:
    print("bad:", e)
finally:
    print("done")"##,
        r##"[64.23, 59.35, 50.94, 50.12, 53.61, 50.87, 51.82, None]
missing key: 'missing'
bad: invalid literal for int() with base 10: '12a'
done
"##,
    ),
    (
        "functions_and_defaults",
        r##"def roas(row, digits=2):
    if not row["cost"]:
        return 0.0
    return round(row["revenue"] / row["cost"], digits)

def summarize(rows, key="channel"):
    out = {}
    for row in rows:
        out.setdefault(row[key], []).append(roas(row))
    return out

print(summarize(r1))
print(summarize(r1, key="campaign"))
print(roas(r1[0], digits=4))"##,
        r##"{'search': [4.86, 12.56, 6.64], 'display': [1.91, 1.19], 'social': [6.01, 3.71], 'video': [0.0]}
{'Spring Sale': [4.86, 1.91, 3.71], 'Brand Always-On': [12.56, 1.19], 'Retargeting Q1': [6.01, 6.64], 'Video Launch': [0.0]}
4.8633
"##,
    ),
    (
        "recursion",
        r##"def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
print([fib(i) for i in range(15)])
def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)
print(fact(20))"##,
        r##"[0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377]
2432902008176640000
"##,
    ),
    (
        "sorting_multi_key",
        r##"rows = sorted(r1, key=lambda r: (r["channel"], -r["cost"]))
for r in rows:
    print(r["channel"], r["campaign"], r["cost"])"##,
        r##"display Spring Sale 964.1
display Brand Always-On 512.6
search Spring Sale 1875.4
search Brand Always-On 1220.75
search Retargeting Q1 601.15
social Spring Sale 1402.0
social Retargeting Q1 733.33
video Video Launch 2500.0
"##,
    ),
    (
        "min_max_key",
        r##"cheapest = min((r for r in r1 if r["conversions"]), key=lambda r: r["cost"] / r["conversions"])
print(cheapest["campaign"], cheapest["channel"])
print(max(r["clicks"] for r in r1), min(r1, key=lambda r: r["impressions"])["campaign"])
print(max([], default="none"), max(3, 9, 4), min("campaign"))"##,
        r##"Brand Always-On search
4890 Retargeting Q1
none 9 a
"##,
    ),
    (
        "set_operations",
        r##"channels = {r["channel"] for r in r1}
campaigns = set(r["campaign"] for r in r1)
print(sorted(channels), len(campaigns))
search = {r["campaign"] for r in r1 if r["channel"] == "search"}
social = {r["campaign"] for r in r1 if r["channel"] == "social"}
print(sorted(search & social), sorted(search | social), sorted(search - social))"##,
        r##"['display', 'search', 'social', 'video'] 4
['Retargeting Q1', 'Spring Sale'] ['Brand Always-On', 'Retargeting Q1', 'Spring Sale'] ['Brand Always-On']
"##,
    ),
    (
        "string_methods",
        r##"name = "  Spring Sale 2024  "
print(name.strip().lower().replace(" ", "_"), name.split(), name.strip().startswith("Spring"))
print("a,b;c".replace(";", ",").split(","), "-".join(["x", "y", "z"]), "abc".find("c"), "abcabc".count("bc"))
print("2024-03-01".split("-")[1], "campaign".title(), "ROAS".lower(), "x=1".partition("="), "42".isdigit())"##,
        r##"spring_sale_2024 ['Spring', 'Sale', '2024'] True
['a', 'b', 'c'] x-y-z 2 2
03 Campaign roas ('x', '=', '1') True
"##,
    ),
    (
        "slicing",
        r##"data = [r["clicks"] for r in r1]
print(data[:3], data[-2:], data[::2], data[::-1], data[1:-1:3])
s = "2024-03-01"
print(s[:4], s[5:7], s[-2:], s[::-1])"##,
        r##"[3412, 1210, 4890] [1502, 0] [3412, 4890, 2950, 1502] [0, 1502, 980, 2950, 2107, 4890, 1210, 3412] [1210, 2950]
2024 03 01 10-30-4202
"##,
    ),
    (
        "tuple_unpacking",
        r##"pairs = [(r["campaign"], r["cost"]) for r in r1[:3]]
for name, cost in pairs:
    print(name, cost)
first, *rest = [r["clicks"] for r in r1]
print(first, rest)
a, b = b, a = 1, 2
print(a, b)"##,
        r##"Spring Sale 1875.4
Spring Sale 964.1
Brand Always-On 1220.75
3412 [1210, 4890, 2107, 2950, 980, 1502, 0]
2 1
"##,
    ),
    (
        "enumerate_zip",
        r##"names = [r["campaign"] for r in r1[:4]]
costs = [r["cost"] for r in r1[:4]]
for i, (n, c) in enumerate(zip(names, costs), start=1):
    print(f"{i}. {n}: ${c:,.2f}")
print(list(zip([1, 2, 3], "ab")))"##,
        r##"1. Spring Sale: $1,875.40
2. Spring Sale: $964.10
3. Brand Always-On: $1,220.75
4. Retargeting Q1: $733.33
[(1, 'a'), (2, 'b')]
"##,
    ),
    (
        "weighted_average",
        r##"total_clicks = sum(r["clicks"] for r in r1)
avg_cpc = sum(r["cost"] for r in r1 if r["clicks"]) / total_clicks
weighted_ctr = sum(r["clicks"] for r in r1) / sum(r["impressions"] for r in r1)
print(f"avg CPC {avg_cpc:.4f}, weighted CTR {weighted_ctr:.4%}")
print(avg_cpc, weighted_ctr)"##,
        r##"avg CPC 0.4287, weighted CTR 1.0025%
0.4286745645416691 0.010024928565549193
"##,
    ),
    (
        "counter_by_hand",
        r##"counts = {}
for r in r1:
    counts[r["channel"]] = counts.get(r["channel"], 0) + 1
print(counts)
print(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))"##,
        r##"{'search': 3, 'display': 2, 'social': 2, 'video': 1}
[('search', 3), ('display', 2), ('social', 2), ('video', 1)]
"##,
    ),
    (
        "bool_and_none_logic",
        r##"flags = [r["conversions"] > 50 for r in r1]
print(flags, any(flags), all(flags), sum(flags))
x = None
print(x is None, x is not None, x or "default", 0 or [] or "fallback", 1 and 2)
print(not flags, 1 < 2 < 3, 3 > 2 > 5, "a" < "b")"##,
        r##"[True, False, True, True, True, False, True, False] True False 5
True False default fallback 2
False True False True
"##,
    ),
    (
        "type_conversions",
        r##"print(int("42") + 1, float("3.5") * 2, str(12) + "px", int(3.99), int(-3.99), float(2))
print(bool(0), bool(""), bool([0]), list("abc"), tuple([1, 2]), int("  7 "), float("1e3"))
print(abs(-5), abs(-2.5), isinstance(3, int), isinstance(3.0, (int, float)), isinstance(True, int), type(1.5) == float)"##,
        r##"43 7.0 12px 3 -3 2.0
False False True ['a', 'b', 'c'] (1, 2) 7 1000.0
5 2.5 True True True True
"##,
    ),
    (
        "dict_methods",
        r##"d = dict(r2["targets"])
d.update({"ctr": 0.02}, cpc=1.5)
print(d, list(d.keys()), list(d.values()))
print(d.pop("cpc"), d.get("missing", 0), "roas" in d, len(d))
print(r2["daily"].items())
del d["ctr"]
print(d)"##,
        r##"{'cpa': 25.0, 'roas': 4.0, 'ctr': 0.02, 'cpc': 1.5} ['cpa', 'roas', 'ctr', 'cpc'] [25.0, 4.0, 0.02, 1.5]
1.5 0 True 3
dict_items([('2024-03-01', 4060.25), ('2024-03-02', 2647.93), ('2024-03-03', 3101.15)])
{'cpa': 25.0, 'roas': 4.0}
"##,
    ),
    (
        "list_methods",
        r##"xs = [5, 3, 8]
xs.append(1)
xs.extend([9, 2])
xs.insert(0, 7)
xs.remove(8)
print(xs, xs.pop(), xs.index(3), xs.count(5))
xs.sort()
print(xs)
xs.sort(reverse=True)
print(xs, sorted(["b", "A", "c"]), sorted(["b", "A", "c"], key=str.lower))"##,
        r##"[7, 5, 3, 1, 9] 2 2 1
[1, 3, 5, 7, 9]
[9, 7, 5, 3, 1] ['A', 'b', 'c'] ['A', 'b', 'c']
"##,
    ),
    (
        "running_total",
        r##"running = 0
out = []
for r in sorted(r1, key=lambda r: r["date"]):
    running += r["cost"]
    out.append(round(running, 2))
print(out)
print(f"{running:.2f}")"##,
        r##"[1875.4, 2839.5, 4060.25, 4793.58, 6195.58, 6708.18, 7309.33, 9809.33]
9809.33
"##,
    ),
    (
        "percentage_change_table",
        r##"vals = list(r2["daily"].values())
changes = [(b - a) / a * 100 for a, b in zip(vals, vals[1:])]
print([f"{c:.2f}%" for c in changes])
print(", ".join("%.1f" % c for c in changes))"##,
        r##"['-34.78%', '17.12%']
-34.8, 17.1
"##,
    ),
    (
        "statistics_mode_median_low",
        r##"import statistics
ch = [r["channel"] for r in r1]
print(statistics.mode(ch), statistics.multimode(ch))
print(statistics.median_low([1, 3, 5, 7]), statistics.median_high([1, 3, 5, 7]), statistics.median([3, 1, 2]))
print(statistics.fmean([r["cost"] for r in r1]), statistics.mean([1, 2, 3, 4]))"##,
        r##"search ['search']
3 5 2
1226.16625 2.5
"##,
    ),
    (
        "stdev_small_lists",
        r##"import statistics
print(statistics.stdev([1.5, 2.5, 2.5, 2.75, 3.25, 4.75]))
print(statistics.pstdev([1.5, 2.5, 2.5, 2.75, 3.25, 4.75]))
print(statistics.variance([2.75, 1.75, 1.25, 0.25, 0.5, 1.25, 3.5]))
print(statistics.stdev([10, 12, 23, 23, 16, 23, 21, 16]), statistics.mean([0.1, 0.2, 0.3]))"##,
        r##"1.0810874155219827
0.986893273527251
1.3720238095238095
5.237229365663818 0.2
"##,
    ),
    (
        "zscore_outliers",
        r##"import statistics
cpcs = [r["cost"] / r["clicks"] for r in r1 if r["clicks"]]
mu = statistics.mean(cpcs)
sd = statistics.stdev(cpcs)
for c in cpcs:
    z = (c - mu) / sd
    print(f"{c:.3f} z={z:+.2f}", "outlier" if abs(z) > 1.5 else "")"##,
        r##"0.550 z=+0.41 
0.797 z=+1.82 outlier
0.250 z=-1.30 
0.348 z=-0.74 
0.475 z=-0.01 
0.523 z=+0.26 
0.400 z=-0.44 
"##,
    ),
    (
        "math_rounding_helpers",
        r##"import math
print(math.floor(3.7), math.ceil(3.2), math.trunc(-3.7), math.floor(5), math.fsum([0.1] * 10), sum([0.1] * 10))
print(math.factorial(10), math.gcd(12, 18), math.isqrt(99), math.comb(5, 2), math.prod([1, 2, 3, 4]))
print(math.inf > 1e308, math.isnan(float("nan")), math.hypot(3, 4), math.degrees(math.pi), math.radians(180))"##,
        r##"3 4 -3 5 1.0 0.9999999999999999
3628800 6 9 10 24
True True 5.0 180.0 3.141592653589793
"##,
    ),
    (
        "compound_interest_loop",
        r##"balance = 1000.0
rate = 0.05
for year in range(1, 6):
    balance *= 1 + rate
    print(year, round(balance, 2))
print(f"{balance:.10f}")"##,
        r##"1 1050.0
2 1102.5
3 1157.62
4 1215.51
5 1276.28
1276.2815625000
"##,
    ),
    (
        "nested_data_access",
        r##"print(r2["account"], r2["targets"]["roas"], r2["daily"]["2024-03-02"])
best_day = max(r2["daily"], key=lambda d: r2["daily"][d])
print(best_day, r2["daily"][best_day])
print(sum(r2["daily"].values()), round(sum(r2["daily"].values()), 2) == round(r2["spend_to_date"], 2))"##,
        r##"acme-shop 4.0 2647.93
2024-03-01 4060.25
9809.33 True
"##,
    ),
    (
        "string_building_report",
        r##"lines = []
for r in r1[:3]:
    lines.append(f"- {r['campaign']} ({r['channel']}): {r['clicks']:,} clicks, ${r['cost']:,.2f}")
report = "\n".join(lines)
print(report)
print(len(report), report.count("\n"))"##,
        r##"- Spring Sale (search): 3,412 clicks, $1,875.40
- Spring Sale (display): 1,210 clicks, $964.10
- Brand Always-On (search): 4,890 clicks, $1,220.75
146 2
"##,
    ),
    (
        "ternary_and_chained",
        r##"for r in r1:
    cpc = r["cost"] / r["clicks"] if r["clicks"] else float("inf")
    tier = "cheap" if cpc < 0.3 else "mid" if cpc < 0.6 else "pricey"
    print(r["channel"], tier, 0.2 <= cpc < 1)"##,
        r##"search mid True
display pricey True
search cheap True
social mid True
social mid True
display mid True
search mid True
video pricey False
"##,
    ),
    (
        "global_and_closure",
        r##"count = 0
def bump(n=1):
    global count
    count += n
    return count
bump(); bump(5)
print(count)
def make_scaler(k):
    return lambda x: x * k
double = make_scaler(2)
print(double(21), list(map(make_scaler(10), [1, 2, 3])), list(filter(lambda x: x % 2, range(7))))"##,
        r##"6
42 [10, 20, 30] [1, 3, 5]
"##,
    ),
    (
        "int_float_mixing",
        r##"print(1 + 2.0, 3 * 1.5, 10 / 5, 10 // 5, 2 ** 3, 2.0 ** 3, 9 ** 0.5, -8 // 3, 8 % -3)
print(True + True, 5 * True, 1e3 == 1000, 0.1 * 3 == 0.3, 7 / 7)
print(sum([1, 2, 3]) / len([1, 2, 3]), sum([1.5, 2.5]), sum([[1], [2]], []))"##,
        r##"3.0 4.5 2.0 2 8 8.0 3.0 -3 -1
2 5 True False 1.0
2.0 4.0 [1, 2]
"##,
    ),
    (
        "aggregate_by_date_and_channel",
        r##"agg = {}
for r in r1:
    key = (r["date"], r["channel"])
    agg[key] = agg.get(key, 0) + r["clicks"]
for (date, ch), clicks in sorted(agg.items()):
    print(date, ch, clicks)
print(len(agg))"##,
        r##"2024-03-01 display 1210
2024-03-01 search 8302
2024-03-02 display 980
2024-03-02 social 5057
2024-03-03 search 1502
2024-03-03 video 0
6
"##,
    ),
    (
        "efficiency_ranking",
        r##"scored = []
for r in r1:
    if r["cost"] == 0:
        continue
    scored.append((round(r["revenue"] / r["cost"], 3), r["campaign"], r["channel"]))
scored.sort(reverse=True)
for rank, (score, camp, ch) in enumerate(scored, 1):
    print(f"#{rank:<2} {camp:<16} {ch:<8} {score:>6.3f}")"##,
        r##"#1  Brand Always-On  search   12.560
#2  Retargeting Q1   search    6.637
#3  Retargeting Q1   social    6.015
#4  Spring Sale      search    4.863
#5  Spring Sale      social    3.709
#6  Spring Sale      display   1.909
#7  Brand Always-On  display   1.191
#8  Video Launch     video     0.000
"##,
    ),
    (
        "repr_of_containers",
        r##"print(repr("it's"), repr('say "hi"'), repr("tab\tnew\nline"), str(["a", 'b"c', "d'e"]))
print({"k": (1,), "t": (), "n": None, "f": 1.0, "s": {3}}, [[], {}, set()])
print(tuple(r["clicks"] for r in r1[:2]), (1, 2) + (3,), [1] * 3, "ab" * 2)"##,
        r##""it's" 'say "hi"' 'tab\tnew\nline' ['a', 'b"c', "d'e"]
{'k': (1,), 't': (), 'n': None, 'f': 1.0, 's': {3}} [[], {}, set()]
(3412, 1210) (1, 2, 3) [1, 1, 1] abab
"##,
    ),
    (
        "pct_of_total_by_campaign",
        r##"rev_total = sum(r["revenue"] for r in r1)
camp = {}
for r in r1:
    camp[r["campaign"]] = camp.get(r["campaign"], 0) + r["revenue"]
for k in sorted(camp, key=camp.get, reverse=True):
    print(f"{k}: {camp[k] / rev_total * 100:.2f}% ({camp[k]:.2f})")"##,
        r##"Spring Sale: 39.90% (16160.55)
Brand Always-On: 39.36% (15943.60)
Retargeting Q1: 20.74% (8400.90)
Video Launch: 0.00% (0.00)
"##,
    ),
    (
        "for_else_break_continue",
        r##"for r in r1:
    if r["channel"] == "video":
        print("found video:", r["campaign"])
        break
else:
    print("no video")
for i in range(10):
    if i % 3:
        continue
    print(i, end=" ")
print()"##,
        r##"found video: Video Launch
0 3 6 9 
"##,
    ),
    (
        "large_numbers_and_grouping",
        r##"total_impr = sum(r["impressions"] for r in r1)
print(total_impr, f"{total_impr:,}", f"{total_impr:_}", f"{total_impr / 1e6:.2f}M")
print(2 ** 62, 10 ** 18, -(2 ** 40), 1_000_000 * 3, f"{10**9:,.1f}")"##,
        r##"1700860 1,700,860 1_700_860 1.70M
4611686018427387904 1000000000000000000 -1099511627776 3000000 1,000,000,000.0
"##,
    ),
    (
        "range_and_accumulate",
        r##"print(list(range(5)), list(range(2, 10, 3)), list(range(10, 0, -3)), len(range(0, 100, 7)))
squares = {n: n * n for n in range(1, 6)}
print(squares, sum(squares.values()), 49 in squares.values(), 3 in squares)"##,
        r##"[0, 1, 2, 3, 4] [2, 5, 8] [10, 7, 4, 1] 15
{1: 1, 2: 4, 3: 9, 4: 16, 5: 25} 55 False True
"##,
    ),
    (
        "assert_and_raise_caught",
        r##"def safe_div(a, b):
    if b == 0:
        raise ValueError("division by zero requested")
    return a / b
try:
    safe_div(1, 0)
except ValueError as e:
    print("caught:", e)
try:
    assert len(r1) == 8, "row count"
    print("rows ok")
except AssertionError:
    print("bad rows")"##,
        r##"caught: division by zero requested
rows ok
"##,
    ),
    (
        "views_and_spread",
        r##"d = {"a": 1, "b": 2}
print(d.keys(), d.values(), d.items())
merged = {**d, "c": 3, **{"a": 9}}
print(merged, [*d, *"xy"], len(merged))"##,
        r##"dict_keys(['a', 'b']) dict_values([1, 2]) dict_items([('a', 1), ('b', 2)])
{'a': 9, 'b': 2, 'c': 3} ['a', 'b', 'x', 'y'] 3
"##,
    ),
    (
        "correlation",
        r##"import statistics
x = [r["clicks"] for r in r1]
y = [r["revenue"] for r in r1]
print(statistics.correlation(x, y))
print(statistics.covariance(x, y))
print(round(statistics.correlation(x, y), 4))"##,
        r##"0.9627439131400646
7602650.279464285
0.9627
"##,
    ),
    (
        "format_widths",
        r##"for r in r1[:3]:
    print(f"{r['campaign']:<20}{r['cost']:>10.2f}{r['clicks']:>8,}{r['conversions'] / r['clicks']:>9.2%}")
print("=" * 47)
print(f"{'TOTAL':<20}{sum(r['cost'] for r in r1[:3]):>10.2f}")"##,
        r##"Spring Sale            1875.40   3,412    4.16%
Spring Sale             964.10   1,210    2.56%
Brand Always-On        1220.75   4,890    6.16%
===============================================
TOTAL                  4060.25
"##,
    ),
    (
        "misc_floats",
        r##"print(float("inf"), -float("inf"), 1e100, 1.5e300 * 1e10, 2.5e-10, 0.000123, 123e-7)
print(3.0 * 1.1, 1.1 + 2.2, 100 * 1.1, 0.1 * 3, 4.35 * 100, 1 - 0.9)
print(str(1/3), repr(2/3), f"{1/3}", format(2/3), format(2/3, ".3"), format(1234.5, ",.1f"))"##,
        r##"inf -inf 1e+100 inf 2.5e-10 0.000123 1.23e-05
3.3000000000000003 3.3000000000000003 110.00000000000001 0.30000000000000004 434.99999999999994 0.09999999999999998
0.3333333333333333 0.6666666666666666 0.3333333333333333 0.6666666666666666 0.667 1,234.5
"##,
    ),
    (
        "sum_of_squares_math",
        r##"import math
vals = [r["cost"] for r in r1]
mean = sum(vals) / len(vals)
var = sum((v - mean) ** 2 for v in vals) / (len(vals) - 1)
print(mean, var, math.sqrt(var))"##,
        r##"1226.16625 469498.8746839286 685.1998793665456
"##,
    ),
    (
        "sorted_dict_output",
        r##"by_channel = {}
for r in r1:
    by_channel[r["channel"]] = by_channel.get(r["channel"], 0) + r["cost"]
print(dict(sorted(by_channel.items(), key=lambda x: x[1], reverse=True)))
for k, v in sorted(by_channel.items()):
    print(f"{k}: {v:.2f} ({v / sum(by_channel.values()):.1%})")"##,
        r##"{'search': 3697.3, 'video': 2500.0, 'social': 2135.33, 'display': 1476.7}
display: 1476.70 (15.1%)
search: 3697.30 (37.7%)
social: 2135.33 (21.8%)
video: 2500.00 (25.5%)
"##,
    ),
    (
        "string_ops_2",
        r##"s = "Spring Sale | search | 2024-03-01"
parts = [p.strip() for p in s.split("|")]
print(parts, s.upper(), s.lower().count("s"), s.index("|"), s.rsplit("|", 1))
print("  x  ".lstrip(), "|", "xxhixx".strip("x"), "a-b-c".split("-", 1), "%s" % [1, 2])
print("abc" < "abd", "Z" < "a", "10" < "9", sorted(["10", "9", "1"]), ",".join(str(i) for i in range(5)))"##,
        r##"['Spring Sale', 'search', '2024-03-01'] SPRING SALE | SEARCH | 2024-03-01 3 12 ['Spring Sale | search ', ' 2024-03-01']
x   | hi ['a', 'b-c'] [1, 2]
True True True ['1', '10', '9'] 0,1,2,3,4
"##,
    ),
    (
        "nested_functions_lambda",
        r##"def apply(rows, fn):
    return [fn(r) for r in rows]
ctrs = apply(r1, lambda r: round(r["clicks"] / r["impressions"], 4))
print(ctrs)
key = lambda kv: kv[1]
print(sorted({"a": 3, "b": 1, "c": 2}.items(), key=key))"##,
        r##"[0.0283, 0.0036, 0.0873, 0.0237, 0.0196, 0.0024, 0.065, 0.0]
[('b', 1), ('c', 2), ('a', 3)]
"##,
    ),
    (
        "integer_ops",
        r##"print(17 // 5, 17 % 5, -17 // 5, -17 % 5, 17 // -5, 2 ** 31, 7 ** 0, 0 ** 0)
print(abs(-7), pow(2, 8), pow(2, 8, 5), pow(2, -2), 10 ** -2, 1 << 10, 255 >> 4, 6 & 3, 6 | 3, 6 ^ 3, ~5)
print(int("ff", 16), int("0b101", 0) if False else int("101", 2), hex(255), bin(5), oct(8))"##,
        r##"3 2 -4 3 -4 2147483648 1 1
7 256 1 0.25 0.01 1024 15 2 7 5 -6
255 5 0xff 0b101 0o10
"##,
    ),
    (
        "average_order_value",
        r##"aov = {}
for r in r1:
    if r["conversions"]:
        aov.setdefault(r["campaign"], []).append(r["revenue"] / r["conversions"])
for k, v in aov.items():
    print(k, [round(x, 2) for x in v], round(sum(v) / len(v), 2))"##,
        r##"Spring Sale [64.23, 59.35, 53.61] 59.06
Brand Always-On [50.94, 50.87] 50.9
Retargeting Q1 [50.12, 51.82] 50.97
"##,
    ),
    (
        "isinstance_and_types",
        r##"vals = [1, 2.5, "3", None, True, [1], {"a": 1}]
for v in vals:
    print(type(v).__name__, isinstance(v, (int, float)) and not isinstance(v, bool))
print(type(1), type("x"), type([]) is list)"##,
        r##"int True
float True
str False
NoneType False
bool False
list False
dict False
<class 'int'> <class 'str'> True
"##,
    ),
    (
        "while_with_else_and_nested_break",
        r##"i = 0
while i < 3:
    i += 1
else:
    print("loop done", i)
found = None
for r in r1:
    for k in ("clicks", "conversions"):
        if r[k] == 0:
            found = (r["campaign"], k)
            break
    if found:
        break
print(found)"##,
        r##"loop done 3
('Video Launch', 'clicks')
"##,
    ),
    (
        "except_tuple_and_reraise",
        r##"def parse(x):
    try:
        return float(x)
    except (TypeError, ValueError) as e:
        return f"bad: {e}"
print(parse("1.5"), parse("abc"), parse(None))
try:
    try:
        {}["k"]
    except KeyError:
        raise
except LookupError as e:
    print("outer caught", repr(e), type(e).__name__)"##,
        r##"1.5 bad: could not convert string to float: 'abc' bad: float() argument must be a string or a real number, not 'NoneType'
outer caught KeyError('k') KeyError
"##,
    ),
    (
        "percent_format_tuple_width",
        r##"rows = [("search", 0.12345), ("display", 0.0123), ("video", 0.0)]
for name, rate in rows:
    print("%-10s|%8.3f%%|%+.1e" % (name, rate * 100, rate))
print("%5d|%-5d|%05d|%x" % (42, 42, 42, 42), "%s" % (1,), "%.3s" % "abcdef", "%c" % 65)"##,
        r##"search    |  12.345%|+1.2e-01
display   |   1.230%|+1.2e-02
video     |   0.000%|+0.0e+00
   42|42   |00042|2a 1 abc A
"##,
    ),
    (
        "statistics_on_ints_exact",
        r##"import statistics
print(statistics.mean([1, 2, 3, 4, 4]), statistics.mean([1, 2]), statistics.median([1, 2, 3, 4]))
print(statistics.variance([1, 2, 3, 4]), statistics.pvariance([1, 2, 3, 4]), statistics.stdev([2, 4, 4, 4, 5, 5, 7, 9]))
print(statistics.mean([0.5, 0.25, 0.125]), statistics.mean([1e50, 1, -1e50]), statistics.geometric_mean([1, 4, 16]))"##,
        r##"2.8 1.5 2.5
1.6666666666666667 1.25 2.138089935299395
0.2916666666666667 0.3333333333333333 4.0
"##,
    ),
    (
        "comprehension_scoping",
        r##"x = "outer"
squares = [x * x for x in range(4)]
print(x, squares)
pairs = [(i, j) for i in range(3) for j in range(i)]
print(pairs)
print({k: [v for v in range(k)] for k in range(3)})"##,
        r##"outer [0, 1, 4, 9]
[(1, 0), (2, 0), (2, 1)]
{0: [], 1: [0], 2: [0, 1]}
"##,
    ),
    (
        "round_to_int_display",
        r##"for v in [0.5, 1.5, 2.5, -1.5, 1234.5, 0.49999999999999994]:
    print(v, round(v), round(v, 0), int(v))"##,
        r##"0.5 0 0.0 0
1.5 2 2.0 1
2.5 2 2.0 2
-1.5 -2 -2.0 -1
1234.5 1234 1234.0 1234
0.49999999999999994 0 0.0 0
"##,
    ),
    (
        "growth_rates",
        r##"series = [100, 120, 90, 135, 135]
for a, b in zip(series, series[1:]):
    g = (b - a) / a
    print(f"{a}->{b}: {g:+.1%}", "up" if g > 0 else "down" if g < 0 else "flat")
cagr = (series[-1] / series[0]) ** (1 / (len(series) - 1)) - 1
print(f"CAGR {cagr:.4%}", cagr)"##,
        r##"100->120: +20.0% up
120->90: -25.0% down
90->135: +50.0% up
135->135: +0.0% flat
CAGR 7.7912% 0.07791233588925262
"##,
    ),
    (
        "next_and_generators",
        r##"first_video = next((r for r in r1 if r["channel"] == "video"), None)
print(first_video["campaign"] if first_video else "none")
missing = next((r for r in r1 if r["channel"] == "tv"), None)
print(missing)
it = iter(r2["daily"])
print(next(it), next(it))
gen = (r["clicks"] for r in r1)
print(sum(gen), sum(gen))
z = zip([1, 2], "ab")
print(list(z), list(z))"##,
        r##"Video Launch
None
2024-03-01 2024-03-02
17051 0
[(1, 'a'), (2, 'b')] []
"##,
    ),
    (
        "iterator_consumers",
        r##"print(list(enumerate("ab", 1)), dict(enumerate("xy")), list(reversed(range(4))))
print(list(map(str, [1, 2])), list(filter(None, [0, 1, "", "a"])), sorted(map(abs, [-3, 1, -2])))
print(max(zip([1, 3, 2], "abc")), tuple(x * 2 for x in range(3)), set(x % 3 for x in range(10)))"##,
        r##"[(1, 'a'), (2, 'b')] {0: 'x', 1: 'y'} [3, 2, 1, 0]
['1', '2'] [1, 'a'] [1, 2, 3]
(3, 'b') (0, 2, 4) {0, 1, 2}
"##,
    ),
    (
        "script_style_main",
        r##"def main():
    totals = dict.fromkeys(["search", "social"], 0)
    for r in r1:
        if r["channel"] in totals:
            totals[r["channel"]] += r["clicks"]
    print(totals)
    print("{:>{}}|{:<{w}}|".format("x", 5, "y", w=3))

if __name__ == "__main__":
    main()"##,
        r##"{'search': 9804, 'social': 5057}
    x|y  |
"##,
    ),
    (
        "full_channel_report",
        r##"import statistics
channels = sorted({r["channel"] for r in r1})
print(f"{'Channel':<10}{'Spend':>12}{'Clicks':>8}{'CTR':>8}{'CPC':>8}{'ROAS':>7}")
print("-" * 53)
for ch in channels:
    rows = [r for r in r1 if r["channel"] == ch]
    spend = sum(r["cost"] for r in rows)
    clicks = sum(r["clicks"] for r in rows)
    impr = sum(r["impressions"] for r in rows)
    rev = sum(r["revenue"] for r in rows)
    ctr = clicks / impr if impr else 0
    cpc = spend / clicks if clicks else float("nan")
    print(f"{ch:<10}{spend:>12,.2f}{clicks:>8,}{ctr:>8.2%}{cpc:>8.2f}{rev / spend:>7.2f}")
print("-" * 53)
print("median spend per row:", statistics.median(r["cost"] for r in r1))"##,
        r##"Channel          Spend  Clicks     CTR     CPC   ROAS
-----------------------------------------------------
display       1,476.70   2,190   0.29%    0.67   1.66
search        3,697.30   9,804   4.91%    0.38   7.69
social        2,135.33   5,057   2.12%    0.42   4.50
video         2,500.00       0   0.00%     nan   0.00
-----------------------------------------------------
median spend per row: 1092.425
"##,
    ),
    (
        "anomaly_detection_iqr",
        r##"import statistics
vals = sorted(r["cost"] for r in r1)
q1, q2, q3 = statistics.quantiles(vals, n=4)
iqr = q3 - q1
lo, hi = q1 - 1.5 * iqr, q3 + 1.5 * iqr
print(q1, q2, q3, iqr)
print([v for v in vals if v < lo or v > hi], round(lo, 3), round(hi, 3))"##,
        r##"634.1949999999999 1092.425 1757.0500000000002 1122.8550000000002
[] -1050.088 3441.333
"##,
    ),
    (
        "budget_allocation",
        r##"budget = r2["budget"]
roas = {}
for r in r1:
    if r["cost"]:
        roas[r["campaign"]] = roas.get(r["campaign"], 0) + r["revenue"] / r["cost"]
total = sum(roas.values())
alloc = {k: budget * v / total for k, v in roas.items()}
for k, v in sorted(alloc.items(), key=lambda kv: kv[1], reverse=True):
    print(f"{k:<18} ${v:>10,.2f}  ({v / budget:.1%})")
print(round(sum(alloc.values()), 6))"##,
        r##"Brand Always-On    $  4,473.87  (37.3%)
Retargeting Q1     $  4,116.29  (34.3%)
Spring Sale        $  3,409.84  (28.4%)
Video Launch       $      0.00  (0.0%)
12000.0
"##,
    ),
    (
        "date_string_handling",
        r##"dates = sorted({r["date"] for r in r1})
print(dates, dates[0][:7], [d.replace("-", "") for d in dates])
y, m, d = map(int, dates[-1].split("-"))
print(y, m, d, f"{y}/{m:02d}/{d:02d}", y * 10000 + m * 100 + d)
per_day = {d: round(sum(r["cost"] for r in r1 if r["date"] == d), 2) for d in dates}
print(per_day)"##,
        r##"['2024-03-01', '2024-03-02', '2024-03-03'] 2024-03 ['20240301', '20240302', '20240303']
2024 3 3 2024/03/03 20240303
{'2024-03-01': 4060.25, '2024-03-02': 2647.93, '2024-03-03': 3101.15}
"##,
    ),
    (
        "cumulative_share_pareto",
        r##"rev = sorted((r["revenue"] for r in r1), reverse=True)
total = sum(rev)
cum = 0
for i, v in enumerate(rev, 1):
    cum += v
    print(f"top {i}: {cum / total:6.1%}")
    if cum / total >= 0.8:
        break"##,
        r##"top 1:  37.9%
top 2:  60.4%
top 3:  73.2%
top 4:  84.1%
"##,
    ),
    (
        "hypothesis_like_math",
        r##"import math
p1, n1 = 142 / 3412, 3412
p2, n2 = 31 / 1210, 1210
p = (142 + 31) / (n1 + n2)
se = math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
z = (p1 - p2) / se
print(f"p1={p1:.4f} p2={p2:.4f} z={z:.3f}")
print(round(0.5 * (1 + math.erf(z / math.sqrt(2))), 6), math.erf(0.5), math.erfc(1.7812))"##,
        r##"p1=0.0416 p2=0.0256 z=2.519
0.994115 0.5204998778130465 0.011768959349410508
"##,
    ),
    (
        "text_histogram",
        r##"clicks = {r["campaign"] + "/" + r["channel"]: r["clicks"] for r in r1}
scale = max(clicks.values()) / 30
for k, v in clicks.items():
    print(f"{k[:22]:<22} {'#' * int(v / scale):<30} {v}")"##,
        r##"Spring Sale/search     ####################           3412
Spring Sale/display    #######                        1210
Brand Always-On/search ############################## 4890
Retargeting Q1/social  ############                   2107
Spring Sale/social     ##################             2950
Brand Always-On/displa ######                         980
Retargeting Q1/search  #########                      1502
Video Launch/video                                    0
"##,
    ),
    (
        "string_formatting_money",
        r##"def money(x):
    return f"${x:,.2f}" if x >= 0 else f"-${-x:,.2f}"
print(money(1234567.891), money(-42.5), money(0), money(0.005), money(0.015))
print("{:.2f}".format(0.125), "{:.2f}".format(0.375), "{:.1f}".format(0.25), "{:.0f}".format(2.5), "{:.0f}".format(3.5))"##,
        r##"$1,234,567.89 -$42.50 $0.00 $0.01 $0.01
0.12 0.38 0.2 2 4
"##,
    ),
    (
        "nested_dict_update",
        r##"summary = {}
for r in r1:
    c = summary.setdefault(r["campaign"], {"rows": 0, "channels": set(), "spend": 0.0})
    c["rows"] += 1
    c["channels"].add(r["channel"])
    c["spend"] += r["cost"]
for name in sorted(summary):
    s = summary[name]
    print(name, s["rows"], sorted(s["channels"]), f"{s['spend']:.2f}")"##,
        r##"Brand Always-On 2 ['display', 'search'] 1733.35
Retargeting Q1 2 ['search', 'social'] 1334.48
Spring Sale 3 ['display', 'search', 'social'] 4241.50
Video Launch 1 ['video'] 2500.00
"##,
    ),
    (
        "ratio_edge_cases",
        r##"def safe_ratio(a, b, default=0.0):
    try:
        return a / b
    except ZeroDivisionError:
        return default
print([round(safe_ratio(r["revenue"], r["cost"]), 3) for r in r1])
print([safe_ratio(r["conversions"], r["clicks"], None) for r in r1][-1])
print(float("inf") > 10 ** 18, -float("inf") < -1e308, float("nan") == float("nan"))"##,
        r##"[4.863, 1.909, 12.56, 6.015, 3.709, 1.191, 6.637, 0.0]
None
True True False
"##,
    ),
    (
        "big_integers",
        r##"import math, statistics
print(2 ** 64, 2 ** 100, -2 ** 63, (-2) ** 63 - 1, 10 ** 30 // 7, 10 ** 30 % 7, -(10 ** 20) // 3, 10 ** 20 / 3)
x = 9223372036854775807
x += 1
print(x, x * x, x - 1, type(x).__name__, x > 2 ** 62, x == 2 ** 63)
print(math.factorial(30), math.comb(100, 50), math.perm(30, 20), int("123456789012345678901234567890"))
print(f"{2**70:,}", f"{2**70:x}", f"{2**70:e}", "%d" % 2 ** 70, format(-2**65, "_"), hex(2**70), str(3**50)[:10])
print(float(2 ** 70), int(1e20), int(1e300) % 1000, round(1e20), 2 ** 70 + 0.5, 2 ** 64 / 2 ** 62, abs(-2**70))
print(statistics.mean([2 ** 64, 2 ** 64 + 2]), statistics.median([2 ** 64, 1, 3]), sum([2 ** 63, 2 ** 63]), max(2 ** 70, 5))
print({2 ** 64: "big"}[2 ** 64], 2 ** 64 in {2 ** 64}, sorted([2 ** 65, 3, -2 ** 66]), 1 << 70, (2 ** 70) >> 65, 7 * 2 ** 61)
print(divmod(2 ** 70, 10 ** 9), pow(2, 100), (2 ** 100) ** 0.5, -(2 ** 63), -(-(2 ** 63)))"##,
        r##"18446744073709551616 1267650600228229401496703205376 -9223372036854775808 -9223372036854775809 142857142857142857142857142857 1 -33333333333333333334 3.333333333333333e+19
9223372036854775808 85070591730234615865843651857942052864 9223372036854775807 int True True
265252859812191058636308480000000 100891344545564193334812497256 73096577329197271449600000 123456789012345678901234567890
1,180,591,620,717,411,303,424 400000000000000000 1.180592e+21 1180591620717411303424 -36_893_488_147_419_103_232 0x400000000000000000 7178979876
1.1805916207174113e+21 100000000000000000000 160 100000000000000000000 1.1805916207174113e+21 4.0 1180591620717411303424
18446744073709551617 3 18446744073709551616 1180591620717411303424
big True [-73786976294838206464, 3, 36893488147419103232] 1180591620717411303424 32 16140901064495857664
(1180591620717, 411303424) 1267650600228229401496703205376 1125899906842624.0 -9223372036854775808 9223372036854775808
"##,
    ),
    (
        "impression_totals_large",
        r##"total = sum(r["impressions"] for r in r1) * 10 ** 12
print(total, f"{total:,}", total / 10 ** 12, total // 7, total % 1000)
print(sum(r["impressions"] ** 3 for r in r1))"##,
        r##"1700860000000000000 1,700,860,000,000,000,000 1700860.0 242980000000000000 0
248547568956136000
"##,
    ),
    (
        "error_messages_when_caught",
        r##"tests = [
    lambda: 1 / 0, lambda: 1.0 / 0, lambda: 1 // 0, lambda: 1 % 0, lambda: 1.5 // 0,
    lambda: [1][5], lambda: {"a": 1}["b"], lambda: {}[1], lambda: int("x1"), lambda: float("abc"),
    lambda: undefined_var, lambda: 1 + "a", lambda: "a" + 1, lambda: [1] + (1,), lambda: None + 1,
    lambda: None.x, lambda: "abc".nope, lambda: len(5), lambda: [1, 2].index(3), lambda: "abc".index("z"),
    lambda: sorted([1, "a"]), lambda: 1 < "a", lambda: max([]), lambda: int(None), lambda: [].pop(),
    lambda: {}.pop("k"), lambda: (1, 2)[9], lambda: "abc"[10], lambda: None[0], lambda: 5(),
    lambda: dict([1, 2]), lambda: abs("x"), lambda: round("x"), lambda: sum(["a", "b"]), lambda: -"a",
    lambda: [1, 2, 3].remove(9), lambda: chr(-1), lambda: "x" * "y", lambda: {[1]: 2}, lambda: set([[1]]),
]
for t in tests:
    try:
        t()
        print("no error")
    except Exception as e:
        print(type(e).__name__, "|", e)"##,
        r##"ZeroDivisionError | division by zero
ZeroDivisionError | float division by zero
ZeroDivisionError | integer division or modulo by zero
ZeroDivisionError | integer modulo by zero
ZeroDivisionError | float floor division by zero
IndexError | list index out of range
KeyError | 'b'
KeyError | 1
ValueError | invalid literal for int() with base 10: 'x1'
ValueError | could not convert string to float: 'abc'
NameError | name 'undefined_var' is not defined
TypeError | unsupported operand type(s) for +: 'int' and 'str'
TypeError | can only concatenate str (not "int") to str
TypeError | can only concatenate list (not "tuple") to list
TypeError | unsupported operand type(s) for +: 'NoneType' and 'int'
AttributeError | 'NoneType' object has no attribute 'x'
AttributeError | 'str' object has no attribute 'nope'
TypeError | object of type 'int' has no len()
ValueError | 3 is not in list
ValueError | substring not found
TypeError | '<' not supported between instances of 'str' and 'int'
TypeError | '<' not supported between instances of 'int' and 'str'
ValueError | max() arg is an empty sequence
TypeError | int() argument must be a string, a bytes-like object or a real number, not 'NoneType'
IndexError | pop from empty list
KeyError | 'k'
IndexError | tuple index out of range
IndexError | string index out of range
TypeError | 'NoneType' object is not subscriptable
TypeError | 'int' object is not callable
TypeError | cannot convert dictionary update sequence element #0 to a sequence
TypeError | bad operand type for abs(): 'str'
TypeError | type str doesn't define __round__ method
TypeError | unsupported operand type(s) for +: 'int' and 'str'
TypeError | bad operand type for unary -: 'str'
ValueError | list.remove(x): x not in list
ValueError | chr() arg not in range(0x110000)
TypeError | can't multiply sequence by non-int of type 'str'
TypeError | unhashable type: 'list'
TypeError | unhashable type: 'list'
"##,
    ),
    (
        "syntax_variety",
        r##"def stats(rows):
    """Return (count, total) of clicks."""
    total = 0  # running total
    for r in rows: total += r["clicks"]
    return len(rows), total

n, total = stats(r1)
x, = [n]
a = b = []
a.append(1)
print(n, total, x, b, "#not a comment", 'it\'s')
if total > 0: print("positive")
report = {
    "rows": n,
    "avg": round(total / n, 1),
}
value = (1 +
         2) \
    * 3
print(report, value)
result = (
    "  Multi  "
    .strip()
    .lower()
)
print(result, [r["campaign"] for r in r1
               if r["clicks"] > 3000])
f = lambda *args, **kw: (sum(args), sorted(kw))
print(f(1, 2, 3, z=1, a=2))
def g(x, *, scale=2, offset=0):
    return x * scale + offset
print(g(5), g(5, scale=3), g(5, offset=1))
print(None is not None, 3 not in [1, 2], not 0)
"##,
        r##"8 17051 8 [1] #not a comment it's
positive
{'rows': 8, 'avg': 2131.4} 9
multi ['Spring Sale', 'Brand Always-On']
(6, ['a', 'z'])
10 15 11
False True True
"##,
    ),
    (
        "format_and_repr_edges",
        r##"cases = [
 lambda: "{:,d}".format(-1234567), lambda: format(5, "=+10"), lambda: format(-5, "010"), lambda: format(3.14159, "010.3f"),
 lambda: format(1234567.891, ",.1f"), lambda: format(0.000012345, ".3g"), lambda: format(123456789.0, ".3g"), lambda: format(1e-10, "f"),
 lambda: format(2.5, ".0f"), lambda: format(-0.0, ".1f"), lambda: format(float("nan"), ".2f"), lambda: format(float("inf"), ">8"),
 lambda: format(12, "b"), lambda: format(255, "#06x"), lambda: format(-255, "#x"), lambda: format(65, "c"),
 lambda: format("abc", ">6"), lambda: format("abc", "*^7"), lambda: format("abcdef", ".2"), lambda: format(True, ">6"),
 lambda: format(1.5, "%"), lambda: format(0.123456, ".2%"), lambda: format(1234.5, ","), lambda: format(1e20, ","),
 lambda: format(12345.6789, "e"), lambda: format(12345.6789, ".2E"), lambda: format(0.0, "e"), lambda: format(1e16, ""),
 lambda: format(123.456, ".10g"), lambda: format(100000.0, "g"), lambda: format(1000000.0, "g"), lambda: format(1e-5, "g"),
 lambda: format(0.0001, "g"), lambda: format(1.0, "#g"), lambda: format(123.0, ".2"), lambda: format(0.5, ".1"),
 lambda: "%5.1f|%-8.3e|%+d|% d|%05.1f|%.0f|%#x|%o" % (3.14159, 1234.5, 5, 7, -2.5, 0.5, 255, 8),
 lambda: "%s %s" % ("a", [1, 2]), lambda: "%r" % "x", lambda: "%3s|%-3s|" % ("a", "b"), lambda: "%.2s" % "xyz",
 lambda: "%i%%" % 42.9, lambda: "%(x)05.1f" % {"x": 2.25}, lambda: "{0:{1}}".format(3.14159, ".2f"),
 lambda: "{:{fill}>{w}}".format("x", fill="*", w=4), lambda: "{!r:>6}".format("a"), lambda: f"{3.14159:{'.3f'}}",
 lambda: f"{'nested'!s:^12}", lambda: f"{12345:_}", lambda: f"{-12345.678:+,.2f}", lambda: f"{0.1 + 0.2!r}",
 lambda: f"{1_000_000:,}", lambda: f"{42:+05d}", lambda: f"{2/3:.{3}f}", lambda: f"{'a' 'b'}",
 lambda: round(0.285, 2), lambda: round(1.005, 2), lambda: round(-1.5), lambda: round(5e-324, 300), lambda: round(123.456, -1),
 lambda: str(123456789.123456789), lambda: str(0.1 * 0.1), lambda: str(1/9e10), lambda: repr(1e-7), lambda: 1e22, lambda: 1.0e15 + 0.3,
]
for c in cases:
    try:
        print(repr(c()))
    except Exception as e:
        print("ERR", type(e).__name__, e)"##,
        r##"'-1,234,567'
'+        5'
'-000000005'
'000003.142'
'1,234,567.9'
'1.23e-05'
'1.23e+08'
'0.000000'
'2'
'-0.0'
'nan'
'     inf'
'1100'
'0x00ff'
'-0xff'
'A'
'   abc'
'**abc**'
'ab'
'     1'
'150.000000%'
'12.35%'
'1,234.5'
'1e+20'
'1.234568e+04'
'1.23E+04'
'0.000000e+00'
'1e+16'
'123.456'
'100000'
'1e+06'
'1e-05'
'0.0001'
'1.00000'
'1.2e+02'
'0.5'
'  3.1|1.234e+03|+5| 7|-02.5|0|0xff|10'
'a [1, 2]'
"'x'"
'  a|b  |'
'xy'
'42%'
'002.2'
'3.14'
'***x'
"   'a'"
'3.142'
'   nested   '
'12_345'
'-12,345.68'
'0.30000000000000004'
'1,000,000'
'+0042'
'0.667'
'ab'
0.28
1.0
-2
0.0
120.0
'123456789.12345679'
'0.010000000000000002'
'1.1111111111111111e-11'
'1e-07'
1e+22
1000000000000000.2
"##,
    ),
    (
        "set_iteration_order",
        r##"seed = 12345
def rnd(lo, hi):
    global seed
    seed = (seed * 1103515245 + 12345) % 2147483648
    return lo + seed % (hi - lo + 1)
print({3, 1, 2}, set([10, 5, 8, 100, 7, 64]), {-1, -2, 0, 1}, {True, 2, 1.0}, set(range(20, 0, -1)))
for n in (5, 12, 30, 70, 200, 1000):
    xs = [rnd(-1000, 100000) for _ in range(n)]
    print(list(set(xs))[:12])
print({2**40, 2**61, 2**61 - 1, -2**61, 2**64 + 5, 7})
s = {5, 3, 9}
print(s.pop(), s, {x % 10 for x in range(95, 120)}, {1, 2} | {9, 0}, {1, 2, 3, 40} - {2})
for x in {33, 1, 17}:
    print(x, end=" ")
print()"##,
        r##"{1, 2, 3} {64, 100, 5, 7, 8, 10} {0, 1, -1, -2} {True, 2} {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
[40195, 88677, 96295, 573, 10303]
[73825, 58691, 86212, 84583, 97928, 74889, 64139, 36525, 28048, 24853, 6750, 76383]
[15361, 2694, 60681, 12815, 18320, 72351, 57896, 63914, 559, 65715, 47925, 33722]
[4737, 20994, 88707, 92550, 39048, 33289, 80266, 49803, 52746, 95496, 34703, 84753]
[36864, 55296, 85506, 43014, 35342, 22031, 24081, 77843, 30740, 36375, 26135, 16410]
[10243, 3, 2052, 36870, 69639, 34824, 88073, 20487, 18443, 57355, 20492, 45061]
{1099511627776, 2305843009213693952, 2305843009213693951, 7, 18446744073709551621, -2305843009213693952}
9 {3, 5} {0, 1, 2, 3, 4, 5, 6, 7, 8, 9} {0, 1, 2, 9} {40, 1, 3}
33 1 17 
"##,
    ),
    (
        "int_parsing_bases",
        r##"cases = ["0x1f", "0X1F", "1f", "0o17", "0b101", "010", "0", "00", "-0x10", " +42 ", "1_000", "0x_ff", "12a", "", "1__0"]
for base in (0, 2, 8, 10, 16, 36):
    out = []
    for c in cases:
        try:
            out.append(int(c, base))
        except ValueError as e:
            out.append("E")
    print(base, out)
print(int("42"), int("-7"), int("  9 "), int("10", 2), int("z", 36))"##,
        r##"0 [31, 31, 'E', 15, 5, 'E', 0, 0, -16, 42, 1000, 255, 'E', 'E', 'E']
2 ['E', 'E', 'E', 'E', 5, 2, 0, 0, 'E', 'E', 8, 'E', 'E', 'E', 'E']
8 ['E', 'E', 'E', 15, 'E', 8, 0, 0, 'E', 34, 512, 'E', 'E', 'E', 'E']
10 ['E', 'E', 'E', 'E', 'E', 10, 0, 0, 'E', 42, 1000, 'E', 'E', 'E', 'E']
16 [31, 31, 31, 'E', 45313, 16, 0, 0, -16, 66, 4096, 255, 298, 'E', 'E']
36 [42819, 42819, 51, 31147, 514513, 36, 0, 0, -42804, 146, 46656, 43323, 1378, 'E', 'E']
42 -7 9 2 35
"##,
    ),
    (
        "fstring_debug_specs",
        r##"x = 3.14159
name = "ctr"
print(f"{x=}", f"{x = :.2f}", f"{name=}", f"{name=!s}", f"{x*2=:>10.1f}|", f"{len(name) = }")"##,
        r##"x=3.14159 x = 3.14 name='ctr' name=ctr x*2=       6.3| len(name) = 3
"##,
    ),
    (
        "star_imports",
        r##"from math import *
from statistics import *
print(sqrt(16), floor(pi * 100) / 100, mean([1, 2, 3, 4]), stdev([2, 4, 4, 4, 5, 5, 7, 9]), e, isclose(0.1 + 0.2, 0.3))
print(exp2(10), fsum([0.1] * 10), median([5, 1, 3]), inf > 1e308)"##,
        r##"4.0 3.14 2.5 2.138089935299395 2.718281828459045 True
1024.0 1.0 3 True
"##,
    ),
    (
        "linear_regression_trend",
        r##"import statistics
days = [1, 2, 3, 4, 5, 6, 7]
spend = [4060.25, 2647.93, 3101.15, 3500.0, 3720.5, 3999.99, 4210.0]
fit = statistics.linear_regression(days, spend)
print(fit)
print(fit.slope, fit.intercept, round(fit.slope * 8 + fit.intercept, 2))
slope, intercept = statistics.linear_regression(days, spend, proportional=True)
print(slope, intercept, fit[0] == fit.slope, len(fit))"##,
        r##"LinearRegression(slope=134.73999999999998, intercept=3066.7285714285713)
134.73999999999998 3066.7285714285713 4144.65
748.0857142857143 0.0 True 2
"##,
    ),
    (
        "python_semantics_aliasing_closures",
        r##"def f(x, acc=[]):
    acc.append(x)
    return acc
f(1); print(f(2))
grid = [[0] * 3] * 2
grid[0][0] = 1
print(grid)
fs = [lambda: i for i in range(3)]
print([g() for g in fs])
a = [1, 2]; b = a; b += [3]; print(a)
t = (1,); u = t; u += (2,); print(t, u)
d = {"k": 1}; d["k"] += 1; print(d)
xs = [1, 2, 3]
for i in range(len(xs)): xs[i] *= 2
print(xs, -2 ** 2, not 1 == 2, .1 + .2, 1_000.5, 2 ** -1, *[1, 2, 3])
print(10 / 3 * 3, True + 1, "b" > "a" > "A", [1, 2] < [1, 3], (1, "a") < (1, "b"))
x = 5
def show():
    print(x)
x = 6
show()
def counter():
    count = [0]
    def inc():
        count[0] += 1
        return count[0]
    return inc
c = counter(); c(); print(c())"##,
        r##"[1, 2]
[[1, 0, 0], [1, 0, 0]]
[2, 2, 2]
[1, 2, 3]
(1,) (1, 2)
{'k': 2}
[2, 4, 6] -4 True 0.30000000000000004 1000.5 0.5 1 2 3
10.0 2 True True True
6
2
"##,
    ),
    (
        "normal_dist_ab_test",
        r##"from statistics import NormalDist
import statistics
z = NormalDist()
print(z, z.mean, z.stdev, z.variance)
print(z.inv_cdf(0.975), z.inv_cdf(0.95), z.inv_cdf(0.5), z.inv_cdf(0.001), z.inv_cdf(1e-10), z.inv_cdf(0.999999))
print([round(z.cdf(x), 6) for x in (-3, -1.96, -1, 0, 0.5, 1.645, 2.576)])
print(z.pdf(0), z.pdf(1.5), z.zscore(2.5), z.quantiles(), NormalDist(100, 15).quantiles(10)[:3])
ctr_a, n_a = 142 / 3412, 3412
ctr_b, n_b = 97 / 2950, 2950
pooled = (142 + 97) / (n_a + n_b)
se = (pooled * (1 - pooled) * (1 / n_a + 1 / n_b)) ** 0.5
zstat = (ctr_a - ctr_b) / se
p = 2 * (1 - NormalDist().cdf(abs(zstat)))
print(f"z={zstat:.3f} p={p:.4f} significant={p < 0.05}")
d = NormalDist.from_samples([r for r in [2.5, 3.1, 2.9, 3.6, 3.3, 2.8]])
print(d, round(d.cdf(3.0), 4))
lo, hi = NormalDist(mu=0.05, sigma=0.01).inv_cdf(0.025), NormalDist(mu=0.05, sigma=0.01).inv_cdf(0.975)
print(f"95% CI: [{lo:.4f}, {hi:.4f}]")"##,
        r##"NormalDist(mu=0.0, sigma=1.0) 0.0 1.0 1.0
1.9599639845400536 1.6448536269514715 0.0 -3.090232306167813 -6.361340902404056 4.753424308817089
[0.00135, 0.024998, 0.158655, 0.5, 0.691462, 0.950015, 0.995002]
0.3989422804014327 0.12951759566589174 2.5 [-0.6744897501960817, 0.0, 0.6744897501960817] [80.77672651683099, 87.37568149640629, 92.1339923093794]
z=1.828 p=0.0676 significant=False
NormalDist(mu=3.033333333333333, sigma=0.38815804341359034) 0.4658
95% CI: [0.0304, 0.0696]
"##,
    ),
    (
        "string_search_ranges",
        r##"s = "campaign,channel,date,cost"
print(s.find(","), s.find(",", 9), s.find(",", 9, 12), s.rfind(","), s.rfind(",", 0, 10), s.find("x"), s.count(","), s.count(",", 10), s.count("", 3, 6))
print(s.index("date"), s.find(",", -5), s.find("", 100), s.count(",", 5, 2), "héllo wörld".find("ö"), "aaa".count("aa"))
parts, pos = [], 0
while True:
    nxt = s.find(",", pos)
    if nxt == -1:
        parts.append(s[pos:])
        break
    parts.append(s[pos:nxt])
    pos = nxt + 1
print(parts)"##,
        r##"8 16 -1 21 8 -1 3 2 4
17 21 -1 0 7 1
['campaign', 'channel', 'date', 'cost']
"##,
    ),
    (
        "harmonic_mean_and_module_exceptions",
        r##"import statistics
print(statistics.harmonic_mean([40, 60]), statistics.harmonic_mean([2.5, 3, 10]), statistics.harmonic_mean([1, 0, 3]), statistics.harmonic_mean([7]))
cpcs = [r / c for r, c in [(1875.4, 3412), (964.1, 1210), (1220.75, 4890)]]
print(statistics.harmonic_mean(cpcs), statistics.geometric_mean(cpcs))
try:
    statistics.harmonic_mean([1, -2])
except statistics.StatisticsError as e:
    print("error:", e)"##,
        r##"48.0 3.6 0 7
0.42372067934501584 0.47816724725903187
error: harmonic mean does not support negative values
"##,
    ),
    (
        "report_table_transpose_counting",
        r##"rows = [("search", 3412, 1875.4), ("display", 1210, 964.1), ("social", 2950, 1402.0), ("video", 0, 2500.0)]
names, clicks, costs = zip(*rows)
print(names, sum(clicks), max(costs))
print("\n".join(f"{n:>8}: {c:>6,} clicks, ${k:>9,.2f}" for n, c, k in rows))
inverse = {v: k for k, v in {"a": 1, "b": 2}.items()}
print(inverse, sum(1 for r in rows if r[1] > 1000), any(c == 0 for _, c, _ in rows), all(k > 500 for *_, k in rows))
matrix = [[1, 2, 3], [4, 5, 6]]
print([list(col) for col in zip(*matrix)], [x for row in matrix for x in row if x % 2], matrix[1][::-1])
dates = ["2024-03-03", "2024-03-01", "2024-03-02"]
print(min(dates), max(dates), sorted(dates, reverse=True)[0], "2024-03-02" in dates)
words = "the quick brown fox jumps over the lazy dog the end".split()
freq = {}
for w in words:
    freq[w] = freq.get(w, 0) + 1
top = sorted(freq.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
print(top, "|".join(w.upper() for w, _ in top), len(set(words)))
table = [["Channel", "CPC"]] + [[n, f"{k / c:.3f}" if c else "n/a"] for n, c, k in rows]
widths = [max(len(str(r[i])) for r in table) for i in range(2)]
for r in table:
    print("  ".join(str(cell).ljust(w) for cell, w in zip(r, widths)).rstrip())"##,
        r##"('search', 'display', 'social', 'video') 7572 2500.0
  search:  3,412 clicks, $ 1,875.40
 display:  1,210 clicks, $   964.10
  social:  2,950 clicks, $ 1,402.00
   video:      0 clicks, $ 2,500.00
{1: 'a', 2: 'b'} 3 True True
[[1, 4], [2, 5], [3, 6]] [1, 3, 5] [6, 5, 4]
2024-03-01 2024-03-03 2024-03-03 True
[('the', 3), ('brown', 1), ('dog', 1)] THE|BROWN|DOG 9
Channel  CPC
search   0.550
display  0.797
social   0.475
video    n/a
"##,
    ),
];

#[test]
fn snippets_print_exactly_what_cpython_prints() {
    assert!(
        CASES.len() >= 50,
        "the corpus must stay at 50 snippets or more"
    );
    let calc = calculator();
    let mut mismatches = Vec::new();
    for (name, code, expected) in CASES {
        let reply = calc.run_request(&Request {
            code: code.to_string(),
            variables: vec![("r1".into(), R1.into()), ("r2".into(), R2.into())],
        });
        if reply.error.is_some() || reply.output != *expected {
            mismatches.push(format!(
                "{name}:\n--- expected\n{expected}--- got\n{}\n--- error {:?}",
                reply.output, reply.error
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} snippets differ:\n{}",
        mismatches.len(),
        CASES.len(),
        mismatches.join("\n")
    );
}

#[test]
fn a_run_is_deterministic() {
    let calc = calculator();
    let request = Request {
        code: CASES
            .iter()
            .map(|(_, code, _)| *code)
            .take(12)
            .collect::<Vec<_>>()
            .join("\n"),
        variables: vec![("r1".into(), R1.into()), ("r2".into(), R2.into())],
    };
    let first = calc.run_request(&request);
    assert!(first.error.is_none(), "{:?}", first.error);
    assert!(first.output.lines().count() > 20);
    for _ in 0..3 {
        assert_eq!(calc.run_request(&request), first);
    }
}
