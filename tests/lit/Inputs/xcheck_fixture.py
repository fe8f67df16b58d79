"""Make a small traces folder for the xcheck tests from the committed traces/h200/tma_scale.json.

usage: xcheck_fixture.py SRC_TRACES OUT_DIR [MUTATION]
MUTATION: none | no-measured | bad-split | no-capture | bad-json | no-clock (record 0 without sm_clock_mhz.mean)
          | ncu-cycles (record 0 with Nsight cycles at 1500 cycles per us; record 1 with them at 1700 and no mean clock)
Keeps the records of config b64x128 (6 shapes: 2 fit, 4 held-out) and copies their capture folders.
"""
import json
import shutil
import sys
from pathlib import Path

src, out = Path(sys.argv[1]), Path(sys.argv[2])
mutation = sys.argv[3] if len(sys.argv) > 3 else "none"
shutil.rmtree(out, ignore_errors=True)
out.mkdir(parents=True)
doc = json.loads((src / "tma_scale.json").read_text())
doc["records"] = [r for r in doc["records"] if r["config"] == "b64x128"]
for r in doc["records"]:
    shutil.copytree(src / r["capture"], out / r["capture"], dirs_exist_ok=True)
if mutation == "no-measured":
    del doc["records"][1]["measured_us"]
elif mutation == "bad-split":
    doc["records"][2]["split"] = "training"
elif mutation == "no-clock":
    doc["records"][0]["sm_clock_mhz"].pop("mean", None)
elif mutation == "ncu-cycles":
    doc["records"][0]["ncu"] = {"cycles": doc["records"][0]["measured_us"] * 1500}
    doc["records"][1]["sm_clock_mhz"].pop("mean", None)
    doc["records"][1]["ncu"] = {"cycles": doc["records"][1]["measured_us"] * 1700}
elif mutation == "no-capture":
    doc["records"][0]["capture"] = "captures/nowhere"
(out / "tma_scale.json").write_text(json.dumps(doc, indent=1) if mutation != "bad-json" else "{\"records\": [")
