# lit configuration for tlx-sim's end-to-end tests. Run through ctest (tests/CMakeLists.txt
# passes the paths as --param), or by hand:
#   lit -sv tests/lit --param tlx_sim=build/tools/tlx-sim
import glob
import os
import re
import shutil
import subprocess

import lit.formats

config.name = "tlx-sim"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".test"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["Inputs"]

params = lit_config.params
source_dir = os.path.abspath(params.get("source_dir", os.path.join(os.path.dirname(__file__), "..", "..")))
tlx_sim = os.path.abspath(params.get("tlx_sim", os.path.join(source_dir, "build", "tools", "tlx-sim")))
filecheck = params.get("filecheck", shutil.which("FileCheck") or "/usr/lib/llvm-22/bin/FileCheck")
python = params.get("python", shutil.which("python3") or "python3")

llvm_bin = os.path.dirname(filecheck)
config.environment["PATH"] = os.pathsep.join([llvm_bin, os.environ.get("PATH", "")])
config.environment["TLXSIM_MODELS"] = os.path.join(source_dir, "models")
# Tests about dynamic findings skip the Z3 prover (seconds per kernel); the proof tests pass --proofs.
config.environment["TLXSIM_NO_PROOFS"] = "1"

# Longer keys first: lit applies substitutions in order.
config.substitutions.append(("%tlx-sim", tlx_sim))
config.substitutions.append(("%inputs", os.path.join(source_dir, "tests", "inputs")))
config.substitutions.append(("%schema", os.path.join(source_dir, "tests", "schema")))
config.substitutions.append(("%litinputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%python", python))
config.substitutions.append(("%src", source_dir))

# %bugline(<slug>): the line of the `# BUG: <slug>:` comment in the project's kernels, so
# tests name the seeded line without hard-coding it.
for path in glob.glob(os.path.join(source_dir, "kernels", "**", "*.py"), recursive=True):
    with open(path) as f:
        for number, line in enumerate(f, 1):
            match = re.search(r"# BUG: ([a-z0-9-]+):", line)
            if match:
                config.substitutions.insert(0, (re.escape("%bugline(" + match.group(1) + ")"), str(number)))

# cuobjdump from Triton's wheel, to cross-check what tlx-sim reads from cubins.
try:
    bin_dir = subprocess.run(
        [python, "-c", "import os, triton; print(os.path.join(os.path.dirname(triton.__file__), 'backends/nvidia/bin'))"],
        capture_output=True, text=True, check=True).stdout.strip()
    cuobjdump = os.path.join(bin_dir, "cuobjdump")
    if os.access(cuobjdump, os.X_OK):
        config.available_features.add("cuobjdump")
        config.substitutions.append(("%cuobjdump", cuobjdump))
except (OSError, subprocess.CalledProcessError):
    pass
try:
    subprocess.run([python, "-c", "import jsonschema"], check=True, capture_output=True)
    config.available_features.add("jsonschema")
except (OSError, subprocess.CalledProcessError):
    pass
