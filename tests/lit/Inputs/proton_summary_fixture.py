"""Make a folder of one native Proton summary for the xcheck --proton tests.

usage: proton_summary_fixture.py SRC_ROOT OUT_DIR NAME [MUTATION]
Copies traces/h200/proton-native/NAME.summary.json to OUT_DIR and its capture folder to OUT_DIR/<capture> (the
summary names the capture relative to the repository root; xcheck resolves it against the folders above the
summary). MUTATION: none | no-capture (the summary names a capture folder that does not exist).
"""
import json
import shutil
import sys
from pathlib import Path

src, out, name = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
mutation = sys.argv[4] if len(sys.argv) > 4 else "none"
shutil.rmtree(out, ignore_errors=True)
out.mkdir(parents=True)
doc = json.loads((src / "traces/h200/proton-native" / f"{name}.summary.json").read_text())
shutil.copytree(src / doc["capture"], out / doc["capture"])
if mutation == "no-capture":
    doc["capture"] = "traces/h200/proton-captures/nowhere"
(out / f"{name}.summary.json").write_text(json.dumps(doc, indent=1))
