"""Proof verdicts of every kernel (issue 18 regression check): tests/inputs/**/launch.json, tests/lit/proof/Inputs/*.mlir,
tests/lit/bugs/*.mlir, each `check --max-ctas 1 --proofs --json`; J=N runs N at once.
usage: baseline.py TLX_SIM OUT.json [extra check args...]"""
import json, pathlib, subprocess, sys, concurrent.futures, time
tlx, out = sys.argv[1], sys.argv[2]
extra = sys.argv[3:]
root = pathlib.Path(__file__).resolve().parents[3]  # the repository
jobs = []
for l in sorted((root / 'tests/inputs').rglob('launch.json')):
    ks = sorted(l.parent.glob('*.ttgir'))
    if len(ks) == 1:
        jobs.append((str(l.parent.relative_to(root)), [str(ks[0]), '--launch', str(l)]))
for m in sorted(list((root / 'tests/lit/proof/Inputs').glob('*.mlir')) + list((root / 'tests/lit/bugs').glob('*.mlir'))):
    jobs.append((str(m.relative_to(root)), [str(m), '--grid', '1', '--arg', 'N=8']))
def one(job):
    name, args = job
    t0 = time.time()
    r = subprocess.run([tlx, 'check', *args, '--max-ctas', '1', '--proofs', '--json', *extra], capture_output=True, text=True)
    dt = time.time() - t0
    try:
        j = json.loads(r.stdout)
        proofs = j.get('proofs', [])
        keep = [dict({k: p.get(k) for k in ('property', 'barrier', 'verdict', 'limit')}, **({'params': p['witness'].get('params'), 'step': p['witness'].get('step')} if isinstance(p.get('witness'), dict) else {})) for p in proofs]
    except Exception:
        keep = 'exit %d: %s' % (r.returncode, (r.stderr or r.stdout)[:200])
    return name, {'proofs': keep, 'wall': round(dt, 2)}
res = {}
with concurrent.futures.ThreadPoolExecutor(int(__import__('os').environ.get('J', '1'))) as ex:
    for name, v in ex.map(one, jobs):
        res[name] = v
        print(name, v['wall'], flush=True)
json.dump(res, open(out, 'w'), indent=1, sort_keys=True)
