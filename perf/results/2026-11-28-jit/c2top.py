import json,collections,datetime,sys
d=json.load(open(sys.argv[1]))['recording']['events']
rows=[]
for e in d:
    v=e['values']
    st=datetime.datetime.fromisoformat(v['startTime'][:26].rstrip('Z'))
    dur=v['duration']; ds=float(dur[2:-1]) if dur.endswith('S') and 'M' not in dur else 0
    m=v['method']; name=m['type']['name']+'.'+m['name']
    rows.append((st,ds,v['compiler'],name,v.get('inlinedBytes',0)))
t0=min(r[0] for r in rows)
c2=[r for r in rows if r[2]=='c2' and 'jdk/jfr' not in r[3]]
print('c2 total (no jfr)', round(sum(r[1] for r in c2),3), 'n', len(c2), ' by 6 s:', round(sum(r[1] for r in c2 if (r[0]-t0).total_seconds()<6),3))
for r in sorted(c2,key=lambda r:-r[1])[:int(sys.argv[2]) if len(sys.argv)>2 else 25]:
    print(f"{(r[0]-t0).total_seconds():6.2f} {r[1]*1000:7.1f} ms {r[4]:>6} {r[3]}")
