#!/usr/bin/env python3
"""IR-only occupancy equals the binary's, over every capture with Triton's metadata (tlx-sim issue 17).

For each `*.ttgir` under tests/inputs and traces/ whose metadata JSON (same stem, next to it) has `shared`:
  - `tlx-sim predict --ir-only` (metadata and binary hidden) must report `shared_bytes_per_cta` equal to the
    metadata's `shared`: Triton's allocation reproduced from the TTGIR (sim/SharedAllocation.cpp);
  - its `ctas_per_sm` must equal the one `predict` reports with the metadata and the binary (cubin registers).
A capture whose CTA fits on no SM either way (both runs refuse it: 0 CTAs/SM) compares the shared memory the IR-only
refusal names with the metadata's.
Known differences are listed in KNOWN with the reason; a known one that starts to match fails too (so the list
stays true). Prints the table captures matched / total.

Usage: test_ir_occupancy.py TLX_SIM SOURCE_DIR [-v]
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

# capture path (relative to the source dir) -> why the IR-only result differs from the binary's (none today: every
# capture's shared memory and CTAs/SM match; add an entry with its reason only for a difference understood and accepted)
KNOWN = {}


# The counts this run must give (asserted, so that a change of either shows up here and in the READMEs that quote them)
EXPECTED_SHARED_EQUAL = 249
EXPECTED_OCC_EQUAL = 249
EXPECTED_TOTAL = 249


def known_reason(rel):
    """Why this capture's IR-only result is known to differ, or None."""
    return KNOWN.get(rel)


def does_not_fit(error):
    """The shared memory a `predict` error says one CTA needs when it does not fit on an SM, else None."""
    match = re.search(r"one CTA does not fit on an SM .*? it needs (\d+) bytes of shared memory", error or "")
    return int(match.group(1)) if match else None


def launch_for(ttgir, source):
    """The launch.json next to the capture, else the launch of a hardware record of the same kernel and config
    (traces/<gpu>/[tlx/]<kernel>.json, whose captures live under captures/<kernel>/<config>-<hash>/)."""
    here = os.path.join(os.path.dirname(ttgir), "launch.json")
    if os.path.exists(here):
        return here, None
    parts = os.path.relpath(ttgir, source).split(os.sep)
    if "captures" not in parts:
        return None, None
    root = os.path.join(source, *parts[: parts.index("captures")])
    config = os.path.basename(os.path.dirname(ttgir)).rsplit("-", 1)[0]
    stem = os.path.splitext(os.path.basename(ttgir))[0]
    for records in sorted(glob.glob(os.path.join(root, "*.json"))):
        try:
            data = json.load(open(records))
        except (OSError, ValueError):
            continue
        for record in data.get("records", []) if isinstance(data, dict) else []:
            launch = record.get("launch", {})
            if launch.get("kernel") == stem and launch.get("config") == config:
                tmp = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
                json.dump(launch, tmp)
                tmp.close()
                return tmp.name, tmp.name
    return None, None


def predict(tlx_sim, ttgir, launch, ir_only):
    cmd = [tlx_sim, "predict", "--json", "--max-ctas", "1", ttgir]
    if launch:
        cmd += ["--launch", launch]
    if ir_only:
        cmd.append("--ir-only")
    run = subprocess.run(cmd, capture_output=True, text=True)
    try:
        out = json.loads(run.stdout)
    except ValueError:
        return None, run.stderr.strip() or run.stdout.strip()
    if "error" in out:  # exit 2 / 3 with --json: the error object (tests/schema/error.schema.json)
        return None, run.stderr.strip() or out["error"]["message"]
    return out, run.stderr


def main():
    tlx_sim, source = sys.argv[1], sys.argv[2]
    verbose = "-v" in sys.argv
    ttgirs = sorted(glob.glob(os.path.join(source, "tests/inputs/**/*.ttgir"), recursive=True) +
                    glob.glob(os.path.join(source, "traces/**/*.ttgir"), recursive=True))
    total = shared_ok = occ_ok = proton = proton_ok = 0
    failures = []
    for ttgir in ttgirs:
        meta = os.path.splitext(ttgir)[0] + ".json"
        if not os.path.exists(meta):
            continue
        shared = json.load(open(meta)).get("shared")
        if shared is None:
            continue
        rel = os.path.relpath(ttgir, source)
        total += 1
        launch, tmp = launch_for(ttgir, source)
        ir, err = predict(tlx_sim, ttgir, launch, True)
        binary, err2 = predict(tlx_sim, ttgir, launch, False)
        if tmp:
            os.unlink(tmp)
        too_large = does_not_fit(err) if ir is None else None
        if too_large is not None and binary is None and does_not_fit(err2) is not None:
            # one CTA fits neither way (0 CTAs/SM): the shared memory is the one the error names
            same_shared, same_occ = too_large == shared, True
            problem = "does not fit on an SM either way; shared %d (metadata %d)" % (too_large, shared)
        elif ir is None or binary is None or "ctas_per_sm" not in ir or "ctas_per_sm" not in binary:
            problem = "predict failed: " + (err if ir is None else err2)[:300]
            if ir is not None and binary is not None:
                problem = "predict gave no occupancy: " + json.dumps(ir)[:300]
            same_shared = same_occ = False
        else:
            same_shared = ir["shared_bytes_per_cta"] == shared
            same_occ = ir["ctas_per_sm"] == binary["ctas_per_sm"]
            problem = "shared %s (metadata %d), CTAs/SM %s (binary %s, %s regs)" % (
                ir["shared_bytes_per_cta"], shared, ir["ctas_per_sm"], binary["ctas_per_sm"],
                binary.get("registers_per_thread"))
        shared_ok += same_shared
        occ_ok += same_occ
        ok = same_shared and same_occ
        known = known_reason(rel)
        if os.path.exists(os.path.splitext(ttgir)[0] + ".proton.json"):
            proton += 1  # compiled under Proton's instrumentation: `shared` holds its profile buffer
            proton_ok += ok
        if verbose or (ok == (known is not None)):
            print(("ok      " if ok else "DIFFERS ") + rel + ": " + problem)
        if ok and known is not None:
            failures.append(rel + ": listed as known (" + known + ") but matches now; remove it")
        elif not ok and known is None:
            failures.append(rel + ": " + problem)
    print("shared bytes equal to the metadata: %d / %d; CTAs/SM equal to the binary's: %d / %d "
          "(of them %d Proton-instrumented captures, both equal on %d)" %
          (shared_ok, total, occ_ok, total, proton, proton_ok))
    if (shared_ok, occ_ok, total) != (EXPECTED_SHARED_EQUAL, EXPECTED_OCC_EQUAL, EXPECTED_TOTAL):
        failures.append("expected shared equal on %d / %d and CTAs/SM on %d / %d; got %d, %d / %d (update "
                        "EXPECTED_* and the READMEs' numbers)" % (EXPECTED_SHARED_EQUAL, EXPECTED_TOTAL,
                                                                  EXPECTED_OCC_EQUAL, EXPECTED_TOTAL, shared_ok,
                                                                  occ_ok, total))
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
