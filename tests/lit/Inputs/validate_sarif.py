"""Checks a SARIF 2.1.0 log for the properties code-review tools require (OASIS SARIF 2.1.0, sections 3.13
sarifLog, 3.14 run, 3.18 toolComponent, 3.27 result, 3.28 location, 3.30 region, 3.49 reportingDescriptor).

usage: validate_sarif.py FILE.sarif [--min-results N]
Prints "ok: N results (rules: ...)" or the first violation (exit 1).
"""
import json
import sys

log = json.load(open(sys.argv[1]))
minimum = int(sys.argv[sys.argv.index("--min-results") + 1]) if "--min-results" in sys.argv else 0


def fail(what):
    print(f"FAIL: {what}")
    sys.exit(1)


if log.get("version") != "2.1.0":
    fail("sarifLog.version must be '2.1.0'")
if not isinstance(log.get("runs"), list) or not log["runs"]:
    fail("sarifLog.runs must be a non-empty array")
count, used = 0, set()
for run in log["runs"]:
    driver = run.get("tool", {}).get("driver")
    if not isinstance(driver, dict) or not isinstance(driver.get("name"), str) or not driver["name"]:
        fail("run.tool.driver.name is required")
    rules = driver.get("rules", [])
    ids = [r.get("id") for r in rules]
    if any(not isinstance(i, str) for i in ids) or len(set(ids)) != len(ids):
        fail("every reportingDescriptor needs a unique string id")
    for rule in rules:
        if not isinstance(rule.get("shortDescription", {}).get("text"), str):
            fail(f"rule {rule['id']}: shortDescription.text is required")
    if not isinstance(run.get("results"), list):
        fail("run.results must be an array")
    for result in run["results"]:
        count += 1
        text = result.get("message", {}).get("text")
        if not isinstance(text, str) or not text:
            fail("result.message.text is required")
        rule = result.get("ruleId")
        if rule not in ids:
            fail(f"result.ruleId {rule!r} names no rule of the driver")
        if "ruleIndex" in result and ids[result["ruleIndex"]] != rule:
            fail("result.ruleIndex must point at the rule of result.ruleId")
        if result.get("level", "warning") not in ("none", "note", "warning", "error"):
            fail("result.level must be none, note, warning or error")
        used.add(rule)
        for key in ("locations", "relatedLocations"):
            for loc in result.get(key, []):
                phys = loc.get("physicalLocation", {})
                if not isinstance(phys.get("artifactLocation", {}).get("uri"), str):
                    fail(f"{key}: physicalLocation.artifactLocation.uri is required")
                region = phys.get("region", {})
                if not isinstance(region.get("startLine"), int) or region["startLine"] < 1:
                    fail(f"{key}: region.startLine must be an integer >= 1")
                if key == "relatedLocations" and not isinstance(loc.get("message", {}).get("text"), str):
                    fail("relatedLocations need message.text")
if count < minimum:
    fail(f"{count} results, expected at least {minimum}")
print(f"ok: {count} results (rules: {', '.join(sorted(used))})")
