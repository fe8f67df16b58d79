"""Check xcheck's predicted partition waits against predict's per-scope shares (xcheck_proton.test).

usage: xcheck_proton_scopes.py XCHECK_JSON PREDICT_JSON SUMMARY_JSON
For each partition of the one Proton summary: the predicted wait xcheck reports must equal the sum of predict's
`proton_scopes` over the scopes the summary lists for that partition. Prints, per partition, the scopes summed,
the model's scopes left out, and "consistent" or the two numbers.
"""
import json
import sys

xcheck = json.load(open(sys.argv[1]))
predict = json.load(open(sys.argv[2]))
summary = json.load(open(sys.argv[3]))["proton"]["summary"]["partitions"]
model = {p["name"]: p.get("proton_scopes", {}) for p in predict["partitions"]}
for part in xcheck["proton_summaries"][0]["partitions"]:
    name = part["name"]
    measured = sorted(summary[name]["scopes"])
    expected = sum(model[name].get(s, 0.0) for s in measured)
    left_out = sorted(set(model[name]) - set(measured))
    ok = abs(part["predicted_wait_frac"] - expected) < 1e-9
    print(f"{name}: sum over {', '.join(measured)}; left out: {', '.join(left_out) or 'none'}; "
          + ("consistent" if ok else f"xcheck {part['predicted_wait_frac']} vs {expected}"))
