"""Reading a Prometheus scrape: the samples of a metric, a gauge's sum, a histogram's
buckets and Prometheus's ``histogram_quantile`` over the difference of two scrapes."""

from __future__ import annotations

import math
from collections import defaultdict

from prometheus_client.parser import text_string_to_metric_families


def samples(text: str, metric: str) -> list[tuple[dict[str, str], float]]:
    """Every sample of ``metric`` (a sample name, e.g. ``x_bucket``) in a scrape."""
    out = []
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == metric:
                out.append((s.labels, s.value))
    return out


def gauge_sum(text: str, metric: str, **match: str) -> float:
    return sum(
        v
        for labels, v in samples(text, metric)
        if all(labels.get(k) == x for k, x in match.items())
    )


def buckets(text: str, metric: str, **match: str) -> dict[float, float]:
    """Cumulative bucket counts of a histogram, summed over the series that match."""
    out: dict[float, float] = defaultdict(float)
    for labels, value in samples(text, metric + "_bucket"):
        if all(labels.get(k) == v for k, v in match.items()):
            out[float(labels["le"])] += value
    return dict(out)


def bucket_delta(after: dict[float, float], before: dict[float, float]) -> dict[float, float]:
    return {le: n - before.get(le, 0.0) for le, n in after.items()}


def histogram_quantile(q: float, cumulative: dict[float, float]) -> float:
    """Prometheus's histogram_quantile: linear within the bucket that holds the rank."""
    bounds = sorted(cumulative)
    total = cumulative.get(math.inf, 0.0)
    if total <= 0:
        return math.nan
    rank = q * total
    lower, below = 0.0, 0.0
    for le in bounds:
        count = cumulative[le]
        if count >= rank:
            if math.isinf(le):
                return lower
            return lower + (le - lower) * (rank - below) / max(count - below, 1e-12)
        lower, below = le, count
    return lower
