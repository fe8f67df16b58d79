"""Deterministic IR mutator for tlx-sim's verifier (issue 5, test b).

Applies the listed mutation kinds to every correct project kernel (one capture per kernel under tests/inputs,
the first config without `_bug_` by name, plus the fixed named-barrier, multicast-ring, 2-CTA MMA and DSMEM
reproducers of tests/lit/bugs) and checks
each mutant with `tlx-sim check`. A mutant is *found* when some finding has one of the classes its kind maps to
(design.md's bug families). Equivalent mutants (the mutation cannot change behaviour) are listed in
mutations.json with a justification, and must stay clean.

usage:
  mutate.py list  TLX_SIM ROOT [--corpus tlx]            print the mutants as JSON (what mutations.json records)
  mutate.py check TLX_SIM ROOT [--corpus tlx] [--update] check every mutant against mutations.json; --update
                                          rewrites it (keeping the justifications of mutants still equivalent)
--only SUBSTRING: only the subjects whose path holds it (not compared with mutations.json; --update refreshes
their entries only).
--corpus tlx: the subjects are TLX's own tutorials as captured (tests/inputs/tlx, the first config of each
tutorial and target; the captures that are not clean as they are are left out, TLX_NOT_CLEAN says why), with the
TLX kinds added (TLX_KINDS: a wrong arrival count at init, a dropped tcgen05 commit), against mutations_tlx.json.
Prints one line per mutant that is missed or wrongly classified, and "score: F / N non-equivalent mutants
found with the right class (E equivalent)"; exits 1 unless every non-equivalent mutant is found.
"""
import concurrent.futures
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

# Finding classes that count as detecting each kind (design.md maps bug families to classes by symptom).
KINDS = {
    # (cluster-barrier: in a cluster, a wait passing early can let a CTA exit while a peer still uses its memory)
    "wrong-parity": {"deadlock", "parity-aliasing", "race-raw", "race-war", "arrive-count", "cluster-barrier"},
    "off-by-one-stage": {"race-raw", "race-war", "race-waw", "deadlock", "tx-count"},
    "missing-arrive": {"deadlock", "arrive-count"},
    "extra-arrive": {"arrive-count", "race-raw", "race-war", "parity-aliasing", "deadlock", "barrier-lifecycle"},
    "wrong-expect-bytes": {"tx-count"},
    "release-before-mma-wait": {"race-war"},
    "missing-fence": {"missing-fence"},
    "shallow-wgmma-wait": {"race-raw", "race-war"},
    # (race-waw: in a single-partition pipeline the skipped iterations are the waits of the prologue's TMA loads,
    # which stay in flight while the epilogue refills their stage)
    "early-exit-without-arrive": {"deadlock", "arrive-count", "barrier-lifecycle", "missing-fence", "race-waw"},
    "named-barrier-count": {"named-barrier", "deadlock"},
    # a release or arrive meant for a peer CTA of the cluster sent to the issuer's own CTA (wrong DSMEM rank)
    "remote-rank-to-self": {"deadlock", "arrive-count", "race-war", "race-raw", "cluster-barrier"},
    "async-wait-count": {"race-raw", "race-war", "race-waw"},
}
# Kinds applied to the TLX corpus only (their sites are TLX idioms: per-barrier arrival counts, explicit commits).
TLX_KINDS = {
    # init_barrier's count one too high: the phase never completes (PTX ISA 9.7.13.15.11), or one too low when it
    # is above 1: it completes before the last arriver, which then arrives into the next phase
    "wrong-arrive-count": {"deadlock", "arrive-count", "race-raw", "race-war", "parity-aliasing"},
    # tlx.tcgen05_commit dropped: the barrier it arrives on never completes, or completes on another arrival only
    "missing-commit": {"deadlock", "race-raw", "race-war", "arrive-count"},
}
# Captures of tests/inputs/tlx that are not clean as they are (tests/lit/tlx_inputs.test, tlx_blackwell.test):
# mutants of a kernel with findings cannot be told from it.
TLX_NOT_CLEAN = {
    "amd-gfx950/gfx9_gemm_a16w16_v5_local_prefetch": "a real race of the tutorial (bugs/tlx_amd_local_prefetch.test)",
    "amd-gfx950/gfx9_gemm_a16w16_v6_loop_unroll": "a real race of the tutorial (bugs/tlx_amd_local_prefetch.test)",
    "blackwell/blackwell-triton-addmm-2cta_test": "race-raw on the peer's tiles, undecided without a B200",
}
SITES_PER_KIND = 2  # per subject: the first and the last site of each kind

VALUE = r"%[A-Za-z0-9_#.$-]+"
OP = re.compile(r"^(\s*)(?:(" + VALUE + r")(?::\d+)? = )?(\"?[a-z_]+\.[a-z_0-9.]+\"?)")


def subjects(root: pathlib.Path):
    """(name, ttgir text, launch arguments) of every subject, sorted by name."""
    out = []
    for kernel in sorted(p for p in (root / "tests" / "inputs").glob("*/*") if p.is_dir()):
        configs = sorted(c for c in kernel.iterdir() if c.is_dir() and "_bug_" not in c.name and list(c.glob("*.ttgir")))
        if not configs:
            continue
        c = configs[0]
        ttgir = sorted(c.glob("*.ttgir"))[0]
        out.append((str(ttgir.relative_to(root)), ttgir.read_text(), ["--launch", str(c / "launch.json")]))
    fixed = root / "tests" / "lit" / "bugs" / "named_barrier_collision.mlir"
    text = fixed.read_text().replace("%c7_i32_1 = arith.constant 7", "%c7_i32_1 = arith.constant 8")
    out.append(("tests/lit/bugs/named_barrier_collision.mlir (fixed)", text, ["--grid", "1"]))
    ring = root / "tests" / "lit" / "bugs" / "multicast_unarmed.mlir"  # B09's fixed cluster ring (as its RUN line)
    text = "\n".join(line.replace("// FIXED: ", "") for line in ring.read_text().split("\n") if "BUG-ONLY" not in line)
    out.append(("tests/lit/bugs/multicast_unarmed.mlir (fixed)", text, ["--grid", "2", "--desc", "a_desc=64x256"]))
    pair = root / "tests" / "lit" / "bugs" / "two_cta_mma.mlir"
    text = "\n".join(line.replace("// FIXED: ", "") for line in pair.read_text().split("\n") if "BUG-ONLY" not in line)
    out.append(("tests/lit/bugs/two_cta_mma.mlir (fixed)", text,
                ["--grid", "2", "--desc", "a_desc=128x64", "--desc", "b_desc=64x128"]))
    dsmem = root / "tests" / "lit" / "bugs" / "dsmem_race.mlir"
    text = dsmem.read_text().replace("// SYNC-MBAR: ", "")
    out.append(("tests/lit/bugs/dsmem_race.mlir (fixed, mbarrier)", text, ["--grid", "2"]))
    return out


def subjects_tlx(root: pathlib.Path):
    """(name, ttgir text, launch arguments) of the first config of every TLX tutorial capture, by name."""
    out = []
    for tutorial in sorted(p for p in (root / "tests" / "inputs" / "tlx").glob("*/*") if p.is_dir()):
        if f"{tutorial.parent.name}/{tutorial.name}" in TLX_NOT_CLEAN:
            continue
        configs = sorted(c for c in tutorial.iterdir() if c.is_dir() and list(c.glob("*.ttgir")))
        if not configs:
            continue
        ttgir = sorted(configs[0].glob("*.ttgir"))[0]
        launch = ["--launch", str(configs[0] / "launch.json")]
        # the mutant is checked from a temporary folder: name the capture's metadata and binary (shared memory,
        # registers) as its own companions would be
        for flag, suffix in (("--metadata", ".json"), ("--binary", ".cubin"), ("--binary", ".hsaco")):
            if ttgir.with_suffix(suffix).exists():
                launch += [flag, str(ttgir.with_suffix(suffix))]
        out.append((str(ttgir.relative_to(root)), ttgir.read_text(), launch))
    return out


def op_lines(lines):
    for i, line in enumerate(lines):
        m = OP.match(line)
        if m:
            yield i, m.group(1), m.group(2), m.group(3).strip('"')


def block_end(lines, start, indent):
    """Index of the first line after `start` whose indentation is below `indent` (the block's end)."""
    for j in range(start + 1, len(lines)):
        stripped = lines[j].lstrip()
        if stripped and len(lines[j]) - len(stripped) < len(indent):
            return j
    return len(lines)


def sites(text, tlx=False):
    """Yields (kind, line index, mutated text) for every site of every kind (with `tlx`, also TLX_KINDS), in
    file order."""
    lines = text.split("\n")
    ops = list(op_lines(lines))

    def mutant(i, new_lines):
        return "\n".join(lines[:i] + new_lines + lines[i + 1:])

    for i, indent, result, name in ops:
        line = lines[i]
        if name == "ttng.wait_barrier":
            m = re.match(r"(\s*ttng\.wait_barrier " + VALUE + r", )(" + VALUE + r")(.*)$", line)
            if m:
                yield "wrong-parity", i, mutant(i, [f"{indent}%mut_one = arith.constant 1 : i32",
                                                    f"{indent}%mut_parity = arith.xori {m.group(2)}, %mut_one : i32",
                                                    m.group(1) + "%mut_parity" + m.group(3)])
        if name == "ttg.memdesc_index" and "xi64" not in line.split("->")[0]:
            m = re.match(r"(.*ttg\.memdesc_index " + VALUE + r"\[)(" + VALUE + r")(\].*?!ttg\.memdesc<)(\d+)x(.*)$", line)
            if m and int(m.group(4)) > 1:
                stages = m.group(4)
                yield "off-by-one-stage", i, mutant(i, [
                    f"{indent}%mut_one = arith.constant 1 : i32", f"{indent}%mut_n = arith.constant {stages} : i32",
                    f"{indent}%mut_next = arith.addi {m.group(2)}, %mut_one : i32",
                    f"{indent}%mut_stage = arith.remsi %mut_next, %mut_n : i32",
                    m.group(1) + "%mut_stage" + m.group(3) + m.group(4) + "x" + m.group(5)])
        if name == "ttng.arrive_barrier":
            yield "missing-arrive", i, mutant(i, [])
            yield "extra-arrive", i, mutant(i, [line, line])
        if name == "ttng.barrier_expect":
            m = re.match(r"(.*ttng\.barrier_expect " + VALUE + r", )(\d+)(.*)$", line)
            if m:
                yield "wrong-expect-bytes", i, mutant(i, [m.group(1) + str(int(m.group(2)) + 1024) + m.group(3)])
        if name == "ttng.fence_async_shared":
            yield "missing-fence", i, mutant(i, [])
        if name == "ttng.warp_group_dot_wait":
            m = re.match(r"(.*\{pendings = )(\d+)( : i32\}.*)$", line)
            if m:
                yield "shallow-wgmma-wait", i, mutant(i, [m.group(1) + str(int(m.group(2)) + 1) + m.group(3)])
            # release-before-mma-wait: the ops after the wait up to the block's terminator move before it, if
            # they hold an arrive and do not use the wait's results
            end = block_end(lines, i, indent)
            tail = [j for j in range(i + 1, end) if not re.match(r"\s*(scf\.yield|ttg\.warp_yield|ttg\.warp_return|tt\.return)\b", lines[j]) or len(lines[j]) - len(lines[j].lstrip()) > len(indent)]
            tail = tail[:next((k for k, j in enumerate(tail) if re.match(indent + r"(scf\.yield|ttg\.warp_yield|ttg\.warp_return|tt\.return)\b", lines[j])), len(tail))]
            body = "\n".join(lines[j] for j in tail)
            results = [r.split(":")[0] for r in re.findall(VALUE, line.split("=")[0])] if result else []
            if "ttng.arrive_barrier" in body and tail and not any(re.search(re.escape(r) + r"\b", body) for r in results):
                moved = lines[:i] + [lines[j] for j in tail] + [line] + lines[tail[-1] + 1:]
                yield "release-before-mma-wait", i, "\n".join(moved)
        if name == "scf.for" and " to " in line:
            region_end = block_end(lines, i, indent + " ")
            body = "\n".join(lines[i:region_end])
            if "ttng.arrive_barrier" in body or "ttng.barrier_expect" in body or "tc_gen5" in body:
                m = re.match(r"(.* to )(" + VALUE + r")( step .*: )(i\d+)( \{.*)$", line)
                if m:
                    t = m.group(4)
                    # the role skips its loop (a zero-trip loop: the upper bound becomes the lower bound)
                    lb = re.match(r".* = (" + VALUE + r") to ", line)
                    if lb:
                        yield "early-exit-without-arrive", i, mutant(i, [m.group(1) + lb.group(1) + m.group(3) + m.group(4) + m.group(5)])
        if name == "ttng.map_to_remote_buffer":
            m = re.match(r"(.*ttng\.map_to_remote_buffer " + VALUE + r", )(" + VALUE + r")(.*)$", line)
            if m:
                yield "remote-rank-to-self", i, mutant(i, [f"{indent}%mut_rank = nvgpu.cluster_id",
                                                           m.group(1) + "%mut_rank" + m.group(3)])
        if name in ("ttg.async_wait", "amdg.async_wait"):
            # one more commit group (AMD: direct-to-LDS instruction) may stay in flight: too permissive a count (B08)
            m = re.match(r"(.*\{num(?:_inst)? = )(\d+)( : i32\}.*)$", line)
            if m:
                yield "async-wait-count", i, mutant(i, [m.group(1) + str(int(m.group(2)) + 1) + m.group(3)])
        if tlx and name == "ttng.init_barrier":
            m = re.match(r"(.*ttng\.init_barrier " + VALUE + r", )(\d+)( :.*)$", line)
            if m:
                count = int(m.group(2))
                yield "wrong-arrive-count", i, mutant(i, [m.group(1) + str(count + 1 if count == 1 else count - 1)
                                                         + m.group(3)])
        if tlx and name == "ttng.tc_gen5_commit":
            yield "missing-commit", i, mutant(i, [])
        if name in ("ttng.wait_barrier_named", "ttng.arrive_barrier_named"):
            m = re.match(r"(.*barrier_named " + VALUE + r", )(" + VALUE + r")(.*)$", line)
            if m:
                yield "named-barrier-count", i, mutant(i, [f"{indent}%mut_warp = arith.constant 32 : i32",
                                                           f"{indent}%mut_count = arith.subi {m.group(2)}, %mut_warp : i32",
                                                           m.group(1) + "%mut_count" + m.group(3)])


def mutants(root, tlx=False):
    out = []
    for subject, text, launch in (subjects_tlx(root) if tlx else subjects(root)):
        by_kind = {}
        for kind, line, mutated in sites(text, tlx):
            by_kind.setdefault(kind, []).append((line, mutated))
        for kind in kinds(tlx):
            found = by_kind.get(kind, [])
            picked = found if len(found) <= SITES_PER_KIND else [found[0], found[-1]]
            for line, mutated in picked:
                out.append({"id": f"{subject}:{line + 1}:{kind}", "subject": subject, "line": line + 1, "kind": kind,
                            "text": mutated, "launch": launch})
    return out


def kinds(tlx):
    """The kinds and the finding classes that detect them, of the project corpus or (tlx) the TLX corpus."""
    return {**KINDS, **TLX_KINDS} if tlx else KINDS


def detected(table, m, r):
    """Whether run result `r` has a finding class that mutant `m`'s kind maps to."""
    return bool(set(r["classes"]) & table[m["kind"]])


def run(tlx_sim, root, m, workdir, schedules=1):
    """The finding classes of `check` on mutant `m` (default schedule, or `schedules` schedules)."""
    path = pathlib.Path(workdir) / (re.sub(r"[^A-Za-z0-9_.-]", "_", m["id"]) + ".ttgir")
    path.write_text(m["text"])
    launch = [str(root / a) if a.endswith((".json", ".cubin", ".hsaco")) else a for a in m["launch"]]
    baseline = ["--baseline", str(root / "tests" / "lit" / "bugs" / "accepted_findings.json")]  # justified there
    more = ["--schedules", str(schedules)] if schedules > 1 else []
    # the classes come from the simulation's findings only (counterexamples are in "proofs"): no Z3 per mutant
    proc = subprocess.run([tlx_sim, "check", str(path), *launch, "--max-ctas", "2", "--json"] + more + baseline,
                          capture_output=True, text=True, cwd=root, timeout=300,
                          env={**os.environ, "TLXSIM_NO_PROOFS": "1"})
    try:
        classes = sorted({f["class"] for f in json.loads(proc.stdout)["findings"]})
    except (ValueError, KeyError):
        return {"exit": proc.returncode, "classes": [], "error": proc.stderr.strip()[:300]}
    return {"exit": proc.returncode, "classes": classes}


def main():
    mode, tlx_sim, root = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3]).resolve()
    tlx = "--corpus" in sys.argv and sys.argv[sys.argv.index("--corpus") + 1] == "tlx"
    listed = mutants(root, tlx)
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    if only:  # a subset by subject path (a quick re-check; not compared with mutations.json's list)
        listed = [m for m in listed if only in m["subject"]]
    table = kinds(tlx)
    if mode == "list":
        print(json.dumps([{k: v for k, v in m.items() if k != "text"} for m in listed], indent=1))
        return 0
    db_path = pathlib.Path(__file__).with_name("mutations_tlx.json" if tlx else "mutations.json")
    db = {e["id"]: e for e in json.loads(db_path.read_text())["mutants"]} if db_path.exists() else {}
    with tempfile.TemporaryDirectory() as work, concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda m: run(tlx_sim, root, m, work), listed))
        # A mutant the default schedule misses is run again over 16 schedules, the setting the project's
        # correct-kernel sweep uses: whether an extra arrive laps its waiter or a refill overtakes a read depends on
        # timing, on the GPU as in the simulation (a 25-cycle bar.sync between two arrives moves it).
        retry = [i for i, (m, r) in enumerate(zip(listed, results))
                 if "equivalent" not in db.get(m["id"], {}) and not detected(table, m, r)]
        for i, r in zip(retry, pool.map(lambda i: run(tlx_sim, root, listed[i], work, 16), retry)):
            results[i] = r
    failures, found, equivalent, entries = [], 0, 0, []
    for m, r in zip(listed, results):
        entry = db.get(m["id"], {})
        hit = detected(table, m, r)
        record = {"id": m["id"], "kind": m["kind"], "expected": sorted(table[m["kind"]]), "classes": r["classes"]}
        if "equivalent" in entry:
            record["equivalent"] = entry["equivalent"]
            equivalent += 1
            if r["exit"] != 0:
                failures.append(f"EQUIVALENT BUT FLAGGED {m['id']}: {r['classes']} {r.get('error', '')}")
        elif hit:
            found += 1
        else:
            failures.append(f"MISSED {m['id']}: exit {r['exit']}, classes {r['classes']} {r.get('error', '')}")
        entries.append(record)
    if not only and set(db) != {m["id"] for m in listed} and "--update" not in sys.argv:
        failures.append(f"mutations.json lists {len(db)} mutants, the mutator makes {len(listed)}: run with --update")
    if "--update" in sys.argv:
        if only:  # refresh the subset's entries, keep the others
            fresh = {e["id"]: e for e in entries}
            entries = [fresh.pop(e["id"], e) for e in db.values()] + list(fresh.values())
        db_path.write_text(json.dumps({"comment": "Mutants of tests/mutation/mutate.py; 'equivalent' justifies a "
                                                  "mutant that cannot change behaviour (it must stay clean).",
                                       "mutants": entries}, indent=1) + "\n")
    for line in failures:
        print(line)
    print(f"score: {found} / {len(listed) - equivalent} non-equivalent mutants found with the right class "
          f"({equivalent} equivalent)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
