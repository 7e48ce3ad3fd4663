#!/usr/bin/env python3
"""Writes the Grafana dashboards in this folder: python3 dashboards/generate.py

The JSON files are the artefact Grafana loads; this script is how they are
kept consistent (one data-source variable, one panel style). Every query uses
only metrics from backbone/src/metrics.rs, catalogued in docs/metrics.md.
"""
import json
import os

DS = {"type": "prometheus", "uid": "${datasource}"}
HERE = os.path.dirname(os.path.abspath(__file__))


def var_query(name, label, query, multi=True):
    return {
        "name": name,
        "label": label,
        "type": "query",
        "datasource": DS,
        "query": {"query": query, "refId": f"{name}-var"},
        "definition": query,
        "refresh": 2,
        "includeAll": multi,
        "multi": multi,
        "allValue": ".*",
        "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
        "sort": 1,
    }


def templating(extra):
    return {
        "list": [
            {
                "name": "datasource",
                "label": "Data source",
                "type": "datasource",
                "query": "prometheus",
                "current": {},
                "hide": 0,
                "refresh": 1,
            }
        ]
        + extra
    }


SWEEP = var_query("sweep", "Sweep", "label_values(adfarm_sweep_cost_usd, sweep)")
MODEL = var_query("model", "Model", "label_values(adfarm_llm_requests_total, model)")
KIND = var_query("kind", "Job kind", "label_values(adfarm_jobs_total, kind)")
JUDGE = var_query("judge", "Judge model", "label_values(adfarm_judge_verdicts_total, model)")


class Board:
    def __init__(self, uid, title, variables):
        self.uid, self.title, self.variables = uid, title, variables
        self.panels, self.x, self.y, self.row_h = [], 0, 0, 0

    def panel(self, title, targets, kind="timeseries", unit="short", w=12, h=8, desc=""):
        if self.x + w > 24:
            self.x, self.y = 0, self.y + self.row_h
            self.row_h = 0
        pid = len(self.panels) + 1
        p = {
            "id": pid,
            "type": kind,
            "title": title,
            "description": desc,
            "datasource": DS,
            "gridPos": {"x": self.x, "y": self.y, "w": w, "h": h},
            "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
            "options": {"legend": {"displayMode": "table", "placement": "bottom", "calcs": ["lastNotNull"]}}
            if kind == "timeseries"
            else {"reduceOptions": {"calcs": ["lastNotNull"]}},
            "targets": [
                {"refId": chr(ord("A") + i), "datasource": DS, "expr": expr, "legendFormat": legend,
                 **({"instant": True, "format": "table"} if kind in ("table", "bargauge") else {})}
                for i, (expr, legend) in enumerate(targets)
            ],
        }
        self.panels.append(p)
        self.x += w
        self.row_h = max(self.row_h, h)

    def write(self, filename):
        doc = {
            "uid": self.uid,
            "title": self.title,
            "tags": ["adfarm"],
            "editable": True,
            "schemaVersion": 39,
            "version": 1,
            "refresh": "30s",
            "time": {"from": "now-6h", "to": "now"},
            "timezone": "browser",
            "graphTooltip": 1,
            "templating": templating(self.variables),
            "annotations": {"list": []},
            "links": [{"type": "dashboards", "tags": ["adfarm"], "asDropdown": True, "title": "AdFarm"}],
            "panels": self.panels,
        }
        with open(os.path.join(HERE, filename), "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")


RI = "$__rate_interval"
S = 'sweep=~"$sweep"'
M = 'model=~"$model"'
SPENT = f'max by (sweep) (adfarm_sweep_cost_usd{{state="spent",{S}}})'


def settled(sel=""):
    return (f'sum by (sweep) (max by (sweep, kind, state) '
            f'(adfarm_sweep_jobs{{state=~"completed|failed|skipped",{S}{sel}}}))')


PLANNED = f'sum by (sweep) (max by (sweep, kind, state) (adfarm_sweep_jobs{{state="planned",{S}}}))'

# 1. Cost
b = Board("adfarm-cost", "AdFarm / Cost", [SWEEP, MODEL])
b.panel("Spent per sweep", [(SPENT, "{{sweep}}")], kind="stat", unit="currencyUSD", w=6, h=5)
b.panel("Budget used per sweep",
        [(f'{SPENT} / max by (sweep) (adfarm_sweep_cost_usd{{state="budget",{S}}} > 0)', "{{sweep}}")],
        kind="gauge", unit="percentunit", w=6, h=5,
        desc="Sweeps without a budget are not shown.")
b.panel("Projected sweep cost (spent + remaining estimate)",
        [(f'{SPENT} + max by (sweep) (adfarm_sweep_cost_usd{{state="remaining-estimate",{S}}})', "{{sweep}} projected"),
         (f'max by (sweep) (adfarm_sweep_cost_usd{{state="budget",{S}}})', "{{sweep}} budget")],
        kind="stat", unit="currencyUSD", w=6, h=5)
b.panel("Cached share of tokens",
        [(f'sum(rate(adfarm_llm_tokens_total{{cached="true",{M}}}[{RI}])) / sum(rate(adfarm_llm_tokens_total{{{M}}}[{RI}]))', "cached")],
        kind="stat", unit="percentunit", w=6, h=5,
        desc="Tokens served from the request cache; they cost nothing.")
b.panel("Spend rate by model",
        [(f'sum by (model) (rate(adfarm_llm_cost_usd_total{{{S},{M}}}[{RI}])) * 3600', "{{model}}")],
        unit="currencyUSD", desc="USD per hour.")
b.panel("Spend rate by role",
        [(f'sum by (role) (rate(adfarm_llm_cost_usd_total{{{S},{M}}}[{RI}])) * 3600', "{{role}}")],
        unit="currencyUSD", desc="USD per hour: generation, judge, embedding.")
b.panel("Spend in range by model and role",
        [(f'sum by (model, role) (increase(adfarm_llm_cost_usd_total{{{S},{M}}}[$__range]))', "{{model}} {{role}}")],
        kind="table", unit="currencyUSD")
b.panel("Spend in range by sweep",
        [(f'sum by (sweep) (increase(adfarm_llm_cost_usd_total{{{S},{M}}}[$__range]))', "{{sweep}}")],
        kind="table", unit="currencyUSD")
b.panel("Cost per completed generation job",
        [(f'{SPENT} / sum by (sweep) (max by (sweep, kind, state) (adfarm_sweep_jobs{{kind="solve",state="completed",{S}}}) > 0)', "{{sweep}}")],
        unit="currencyUSD", desc="All spend of the sweep (generation, judging, embedding) over completed items.")
b.panel("Budget burn rate",
        [(f'max by (sweep) (deriv(adfarm_sweep_cost_usd{{state="spent",{S}}}[15m])) * 3600', "{{sweep}} USD/h"),
         (f'(max by (sweep) (adfarm_sweep_cost_usd{{state="budget",{S}}}) - {SPENT}) / (max by (sweep) (deriv(adfarm_sweep_cost_usd{{state="spent",{S}}}[15m])) > 0)', "{{sweep}} time to budget")],
        unit="short", desc="USD per hour, and seconds until the budget is spent at this rate.")
b.panel("Tokens per second by direction and cache",
        [(f'sum by (direction, cached) (rate(adfarm_llm_tokens_total{{{M}}}[{RI}]))', "{{direction}} cached={{cached}}")],
        unit="short", w=24)
b.write("cost.json")

# 2. Latency and throughput
b = Board("adfarm-latency", "AdFarm / Latency and throughput", [SWEEP, MODEL, KIND])
for q in ("0.5", "0.95", "0.99"):
    b.panel(f"LLM latency p{int(float(q) * 100)} by model",
            [(f'histogram_quantile({q}, sum by (model, le) (rate(adfarm_llm_request_duration_seconds_bucket{{{M}}}[{RI}])))', "{{model}}")],
            unit="s", w=8)
b.panel("LLM latency p95 by role",
        [(f'histogram_quantile(0.95, sum by (role, le) (rate(adfarm_llm_request_duration_seconds_bucket{{{M}}}[{RI}])))', "{{role}}")],
        unit="s", w=24, desc="Generation, judge and embedding calls.")
b.panel("Jobs completed per second by kind",
        [(f'sum by (kind) (rate(adfarm_jobs_total{{outcome="completed",kind=~"$kind"}}[{RI}]))', "{{kind}}")],
        unit="reqps")
b.panel("Jobs settled per second by outcome",
        [(f'sum by (outcome) (rate(adfarm_jobs_total{{kind=~"$kind"}}[{RI}]))', "{{outcome}}")],
        unit="reqps")
b.panel("Job duration p95 by kind",
        [(f'histogram_quantile(0.95, sum by (kind, le) (rate(adfarm_job_duration_seconds_bucket{{kind=~"$kind"}}[{RI}])))', "{{kind}}")],
        unit="s")
b.panel("LLM requests per second by model and outcome",
        [(f'sum by (model, outcome) (rate(adfarm_llm_requests_total{{{M}}}[{RI}]))', "{{model}} {{outcome}}")],
        unit="reqps")
b.panel("Queue backlog (ready messages)",
        [('max by (queue) (adfarm_queue_depth_messages{queue=~"$kind"})', "{{queue}}")], unit="short")
b.panel("Sweep progress",
        [(f'{settled()} / {PLANNED}', "{{sweep}}")], kind="bargauge", unit="percentunit")
b.panel("Sweep backlog (planned minus settled)",
        [(f'{PLANNED} - {settled()}', "{{sweep}}")], unit="short")
b.panel("Sweep ETA",
        [(f'({PLANNED} - {settled()}) / (sum by (sweep) (max by (sweep, kind, state) (deriv(adfarm_sweep_jobs{{state=~"completed|failed|skipped",{S}}}[15m]))) > 0)', "{{sweep}}")],
        kind="stat", unit="s", desc="Unsettled jobs over the settle rate of the last 15 minutes.")
b.write("latency-throughput.json")

# 3. Reliability
b = Board("adfarm-reliability", "AdFarm / Reliability", [MODEL, KIND])
b.panel("Retries per second by reason",
        [(f'sum by (reason) (rate(adfarm_llm_retries_total{{{M}}}[{RI}]))', "{{reason}}")], unit="reqps")
b.panel("429s per second by model",
        [(f'sum by (model) (rate(adfarm_llm_rate_limited_total{{{M}}}[{RI}]))', "{{model}}")], unit="reqps")
b.panel("Dead-lettered jobs in range by kind",
        [('sum by (kind) (increase(adfarm_jobs_total{outcome="failed",kind=~"$kind"}[$__range]))', "{{kind}}")],
        kind="bargauge", unit="short")
b.panel("Failed jobs per sweep",
        [('sum by (sweep) (max by (sweep, kind, state) (adfarm_sweep_jobs{state="failed",kind=~"$kind"}))', "{{sweep}}")],
        unit="short", desc="Dead-lettered jobs as the coordinator counts them.")
b.panel("Rate-limiter wait p95 by model",
        [(f'histogram_quantile(0.95, sum by (model, le) (rate(adfarm_ratelimit_wait_seconds_bucket{{{M}}}[{RI}])))', "{{model}}")],
        unit="s")
b.panel("Rate-limiter saturation (calls waiting)",
        [(f'sum by (model) (rate(adfarm_ratelimit_wait_seconds_sum{{{M}}}[{RI}]))', "{{model}}")],
        unit="short", desc="Seconds spent waiting per second: the average number of calls held by the limiter.")
b.panel("Workers (consumers per queue)",
        [('max by (queue) (adfarm_queue_consumers{queue=~"$kind"})', "{{queue}}")], unit="short",
        desc="As RabbitMQ counts them, reported by the coordinator while it follows a sweep.")
b.panel("Worker processes by kind",
        [('sum by (kind) (adfarm_workers{kind=~"$kind"})', "{{kind}}")], unit="short",
        desc="Worker processes Prometheus scrapes, by the job kinds they consume.")
b.panel("LLM errors and rate-limited calls",
        [(f'sum by (model, outcome) (rate(adfarm_llm_requests_total{{outcome=~"error|rate-limited",{M}}}[{RI}]))', "{{model}} {{outcome}}")],
        unit="reqps", desc="Calls that failed after all retries.")
b.panel("Queue-level retries and requeues by kind",
        [('sum by (kind, outcome) (rate(adfarm_jobs_total{outcome=~"retried|requeued",kind=~"$kind"}[$__rate_interval]))', "{{kind}} {{outcome}}")],
        unit="reqps", w=24)
b.write("reliability.json")

# 4. Judges
J = 'model=~"$judge"'
b = Board("adfarm-judges", "AdFarm / Judges", [JUDGE])
b.panel("Verdicts per second by judge and verdict",
        [(f'sum by (model, verdict) (rate(adfarm_judge_verdicts_total{{{J}}}[{RI}]))', "{{model}} {{verdict}}")],
        unit="reqps")
b.panel("Parse-failure share per judge and metric",
        [(f'sum by (model, metric) (rate(adfarm_judge_verdicts_total{{verdict="unscored",{J}}}[{RI}])) / sum by (model, metric) (rate(adfarm_judge_verdicts_total{{{J}}}[{RI}]))', "{{model}} {{metric}}")],
        unit="percentunit", desc="Unscored verdicts: the reply could not be parsed. They are counted, never read as 0.")
b.panel("Verdict distribution in range",
        [(f'sum by (model, metric, verdict) (increase(adfarm_judge_verdicts_total{{{J}}}[$__range]))', "{{model}} {{metric}} {{verdict}}")],
        kind="table", unit="short", w=24)
b.panel("Judge spend rate by model",
        [(f'sum by (model) (rate(adfarm_llm_cost_usd_total{{role="judge",{J}}}[{RI}])) * 3600', "{{model}}")],
        unit="currencyUSD", desc="USD per hour.")
b.panel("Judge calls by outcome",
        [(f'sum by (model, outcome) (rate(adfarm_llm_requests_total{{role="judge",{J}}}[{RI}]))', "{{model}} {{outcome}}")],
        unit="reqps")
b.write("judges.json")
