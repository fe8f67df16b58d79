"""Every entry of ir/OpTable.cpp is exercised by the tests of this folder.

Usage: check_table_coverage.py TLX_SIM SRC_DIR TEST_DIR. Reads the op names of the table,
runs `TLX_SIM ir` on every .test file of TEST_DIR and prints `missing: NAME` for each op
that no output mentions (besides the listed exceptions), then `covered: N of M`.
"""
import glob, os, re, subprocess, sys

# Ops that cannot be written in a test here, and why.
EXCEPTIONS = {
    # NVWS ops take !nvws.aref / !nvws.token values, types the shim dialects do not
    # register; NVWS is lowered away before Triton writes the .ttgir.
    "nvws.aref.create", "nvws.aref.buffer", "nvws.aref.get.enter", "nvws.aref.get.exit",
    "nvws.aref.put.enter", "nvws.aref.put.exit", "nvws.warp_group", "nvws.warp_group.yield",
    "nvws.warp_group.return", "nvws.create_token", "nvws.producer_acquire", "nvws.producer_commit",
    "nvws.consumer_wait", "nvws.consumer_release", "nvws.descriptor_load", "nvws.descriptor_gather",
}

tlx_sim, src, tests = sys.argv[1:4]
table = open(os.path.join(src, "ir", "OpTable.cpp")).read()
names = sorted(set(re.findall(r'^\s*\{"([a-z_]+\.[a-z_0-9.]+)"', table, re.M)))
seen = set()
for path in sorted(glob.glob(os.path.join(tests, "*.test"))):
    out = subprocess.run([tlx_sim, "ir", path], capture_output=True, text=True).stdout
    seen.update(re.findall(r'"([a-z_]+\.[a-z_0-9.]+)"\(', out))
missing = [n for n in names if n not in seen and n not in EXCEPTIONS]
for name in missing:
    print("missing:", name)
print("covered: %d of %d (%d exceptions)" % (len(names) - len(missing) - len(EXCEPTIONS & set(names)), len(names),
                                             len(EXCEPTIONS & set(names))))
