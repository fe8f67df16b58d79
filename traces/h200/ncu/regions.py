import csv,sys
rows=list(csv.reader(open(sys.argv[1])))
hdr=rows[1]; data=rows[2:]
ia=hdr.index('Address'); isamp=hdr.index('Warp Stall Sampling (All Samples)')
stalls=[i for i,h in enumerate(hdr) if h.startswith('stall_') and '(Not Issued)' not in h]
base=int(data[0][ia],16)
regions=[tuple(x.split(':')) for x in sys.argv[2:]]
sums={}
import collections
for r in data:
    off=int(r[ia],16)-base
    for name,lo,hi in regions:
        if int(lo,16)<=off<=int(hi,16):
            s=sums.setdefault(name,[0,collections.Counter()])
            s[0]+=int(r[isamp] or 0)
            for i in stalls: s[1][hdr[i][6:]]+=int(r[i] or 0)
tot=sum(v[0] for v in sums.values())
for name,_,_ in regions:
    v=sums.get(name,[0,collections.Counter()])
    print('%-12s %6d %5.1f%%  %s'%(name,v[0],100*v[0]/tot,' '.join('%s:%d'%kv for kv in v[1].most_common(4))))
