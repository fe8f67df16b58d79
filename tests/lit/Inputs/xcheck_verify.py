"""Check an `xcheck --json` output for internal consistency (reads stdin):
every error is (predicted - measured) / measured, every cycles error (predicted us x predicted clock) / (measured
us x measured clock) - 1 (and null without a measured clock; the clock is Nsight's cycles over the time where a record
has them, `ncu.cycles`, else nvidia-smi's mean); the summary's counts, median and p90 |error| and per-kernel
Spearman rho are those of the held-out records, recomputed here independently (numpy-free)."""
import json
import math
import sys

doc = json.load(sys.stdin)
assert doc["schema_version"] == 1 and doc["command"] == "xcheck"
recs = doc["records"]
for r in recs:
    assert math.isclose(r["error"], (r["predicted_us"] - r["measured_us"]) / r["measured_us"], rel_tol=1e-9), r
    clock = r["clock_mhz"]
    assert clock["predicted"] > 0, r
    if clock["measured"] is None:
        assert r["cycles_error"] is None, r
    else:
        expect = r["predicted_us"] * clock["predicted"] / (r["measured_us"] * clock["measured"]) - 1
        assert math.isclose(r["cycles_error"], expect, rel_tol=1e-9, abs_tol=1e-12), r
        # the relation itself: 1 + time error = (1 + cycles error) / (1 + clock error)
        assert math.isclose(1 + r["error"], (1 + r["cycles_error"]) / (clock["predicted"] / clock["measured"]),
                            rel_tol=1e-9), r
ho = [r for r in recs if r["split"] == "heldout"]
errs = sorted(abs(r["error"]) for r in ho)


def quantile(v, q):
    pos = q * (len(v) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (pos - lo) * (v[hi] - v[lo])


def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    out = [0.0] * len(v)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def tie_within(v, tol):
    """Measured times within `tol` of their group's smallest value replaced by the group's mean (xcheck
    --tie-tolerance; groups do not chain)."""
    order = sorted(range(len(v)), key=lambda i: v[i])
    out = list(v)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and v[order[j + 1]] <= v[order[i]] * (1 + tol):
            j += 1
        mean = sum(v[order[k]] for k in range(i, j + 1)) / (j - i + 1)
        for k in range(i, j + 1):
            out[order[k]] = mean
        i = j + 1
    return out


def pearson(x, y):
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    return sxy / math.sqrt(sum((a - mx) ** 2 for a in x) * sum((b - my) ** 2 for b in y))


s = doc["summary"]
assert s["count"] == len(recs) and s["heldout_count"] == len(ho), s
assert math.isclose(s["median_abs_error"], quantile(errs, 0.5)), s
assert math.isclose(s["p90_abs_error"], quantile(errs, 0.9)), s
for kernel, rho in s["spearman"].items():
    k = [r for r in ho if r["kernel"] == kernel]
    measured = tie_within([r["measured_us"] for r in k], s["tie_tolerance"])
    expect = pearson(ranks(measured), ranks([r["predicted_us"] for r in k]))
    assert math.isclose(rho, expect, abs_tol=1e-12), (kernel, rho, expect)
assert doc["pass"] == (not doc["failures"])
print(f"consistent: {len(recs)} records, {len(ho)} held-out")
# the clock each record's split used, and where it came from (Nsight cycles / time, or nvidia-smi's mean)
sources = sorted(f"{r['clock_mhz']['measured_from']}" + (f"@{r['clock_mhz']['measured']:.1f}" if r['clock_mhz'][
    'measured_from'] == "nsight_cycles" else "") for r in recs if r["clock_mhz"]["measured"] is not None)
print("clock sources: " + " ".join(sources))
