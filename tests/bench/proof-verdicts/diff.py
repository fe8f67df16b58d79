import json, sys, collections
b = json.load(open(sys.argv[1])); n = json.load(open(sys.argv[2]))
cnt = collections.Counter(); rows = []
cal = []
for k in sorted(set(b) | set(n)):
    bv, nv = b.get(k), n.get(k)
    if not bv or not nv: print('missing', k); continue
    bp, np_ = bv['proofs'], nv['proofs']
    if isinstance(bp, str) or isinstance(np_, str):
        if bp != np_: print('ERR', k, str(bp)[:100], '|', str(np_)[:100])
        continue
    bm = {(p['property'], p['barrier']): p for p in bp}
    for p in np_:
        key = (p['property'], p['barrier']); q = bm.get(key)
        bvv = q['verdict'] if q else None
        cnt[(bvv, p['verdict'])] += 1
        if bvv != p['verdict'] or (p['verdict'] == 'counterexample' and (q.get('params'), q.get('step')) != (p.get('params'), p.get('step'))):
            rows.append((k, key, bvv, p['verdict'], q.get('params') if q else None, p.get('params'), p.get('limit')))
    qs = nv.get('queries', [])
    if qs:
        verdicts = collections.Counter(p['verdict'] for p in np_)
        big = max(qs, key=lambda x: x[2])
        cal.append((k, len(qs), big[2], big[0], round(big[1], 2), sum(x[2] for x in qs), round(sum(x[1] for x in qs), 2), dict(verdicts), nv['wall']))
print('transitions (baseline -> new):')
for (a, c), v in sorted(cnt.items(), key=lambda x: str(x)): print(f'  {a} -> {c}: {v}')
print('changes:')
for r in rows: print(' ', r)
print('calibration: kernel, queries, max units, its answer, its cpu s, total units, total cpu s, verdicts, wall')
for c in sorted(cal, key=lambda x: -x[2])[:25]: print(' ', c)
allproved = [c for c in cal if set(c[7]) <= {'proved'} and c[7]]
if allproved:
    m = max(allproved, key=lambda x: x[2]); t = max(allproved, key=lambda x: x[5])
    print('max query units on an all-proved kernel:', m[2], m[0]); print('max kernel units (all proved):', t[5], t[0])
pq = [x for c in cal for x in []]
