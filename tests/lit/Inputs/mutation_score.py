"""Reads `mutate.py check --corpus tlx` output on stdin and checks the TLX mutation gate (issue 16): the score
F / N is at least --min (0.95) and every mutant it misses is one tests/mutation/mutations_tlx.json records as
missed (a mutant found before and missed now is a regression, even above the threshold). Prints "gate: F / N".
"""
import json
import re
import sys

db_path, minimum = sys.argv[1], float(sys.argv[2])
text = sys.stdin.read()
m = re.search(r"score: (\d+) / (\d+) non-equivalent", text)
assert m, "no score line in mutate.py's output:\n" + text[-2000:]
found, total = int(m.group(1)), int(m.group(2))
recorded = {e["id"]: e for e in json.load(open(db_path))["mutants"]}
missed_before = {i for i, e in recorded.items()
                 if "equivalent" not in e and not set(e["classes"]) & set(e["expected"])}
regressions = []
for line in text.splitlines():
    if line.startswith("MISSED "):
        if line[len("MISSED "):].split(": exit ")[0] not in missed_before:
            regressions.append(line)
    elif line.startswith(("EQUIVALENT BUT FLAGGED", "mutations.json lists")):
        regressions.append(line)
assert not regressions, "newly missed or flagged:\n" + "\n".join(regressions)
assert found / total >= minimum, f"score {found} / {total} = {found / total:.3f} below {minimum}"
print(f"gate: {found} / {total} ({100 * found / total:.1f} %)")
