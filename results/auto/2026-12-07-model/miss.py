"""Where auto lost: per deleting batch of a regret-workloads report past 1.25x the best of
dred, bf and recompute, the choice (! abandoned) against the best, counted and summed as log
regret. `python3 miss.py REPORT.csv.gz [v]` (v: print each such batch)."""
import csv,gzip,collections,sys,math
rows=list(csv.DictReader(gzip.open(sys.argv[1],'rt')))
by=collections.defaultdict(dict)
for r in rows:
    if r['batch']=='0' or r['error']: continue
    by[(r['dataset'][:10],r['program'],r['size'],r['stream'],int(r['batch']))][r['engine']]=r
miss=collections.Counter(); lost=collections.Counter(); n=0
for k,e in sorted(by.items()):
    if 'auto' not in e or int(e['auto']['eff_del'])==0: continue
    n+=1
    t={x:int(e[x]['time_ns']) for x in ('dred','bf','recompute')}
    best=min(t,key=t.get); a=int(e['auto']['time_ns']); ratio=a/t[best]
    ch=e['auto']['chosen']+('!' if e['auto']['abandoned'] not in ('0','') else '')
    if ratio>1.25:
        miss[(ch,best)]+=1; lost[(ch,best)]+=math.log(ratio)
        if len(sys.argv)>2: print(k, ch, 'best',best, {x:round(t[x]/1e3) for x in t}, 'auto',round(a/1e3), 'pred',[round(int(e['auto'][p])/1e3) for p in ('predicted_dred_ns','predicted_bf_ns','predicted_recompute_ns')])
print(n)
for k,v in miss.most_common(): print(k,v,round(lost[k],1))
