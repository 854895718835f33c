#!/usr/bin/env python3
"""Paired timings of the refactoring of issue 27: the same sweep run alternately by the build
before it (`before-N.csv.gz`, 3521b28) and after it (`after-N.csv.gz`), three pairs. Prints, per
case, the ratio after / before of the median per-batch time of `dred` and of `recompute`, and
the ratio after / before of `dred / recompute` within each run (side by side), with geometric
means."""
import os
HERE = os.path.dirname(os.path.abspath(__file__))
import csv, statistics, math, sys
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # results/
from report_times import open_report  # noqa: E402
def meds(path, eng):
    d={}
    for r in csv.DictReader(open_report(path)):
        if int(r["batch"])==0 or r["engine"]!=eng: continue
        k=(r["dataset"].split("?")[0], r["program"], r["size"])
        d.setdefault(k,[]).append(int(r["time_us"]))
    return {k: statistics.median(v) for k,v in d.items()}
for eng in ["dred","recompute"]:
    ratios={}
    for i in (1,2,3):
        o=meds(f"{HERE}/before-{i}.csv.gz",eng); n=meds(f"{HERE}/after-{i}.csv.gz",eng)
        for k in o:
            ratios.setdefault(k,[]).append(n[k]/max(o[k],1))
    print(f"{eng}: new/old median per-batch time, runs 1-3")
    allr=[]
    for k,v in sorted(ratios.items()):
        print(" ", k, " ".join(f"{x:.2f}" for x in v)); allr+=v
    print(f"  geomean over {len(allr)} pairs: {math.exp(sum(map(math.log,allr))/len(allr)):.3f}")
print("dred / recompute within each run (side by side), new over old:")
allr=[]
for i in (1,2,3):
    od=meds(f"{HERE}/before-{i}.csv.gz","dred"); orc=meds(f"{HERE}/before-{i}.csv.gz","recompute")
    nd=meds(f"{HERE}/after-{i}.csv.gz","dred"); nrc=meds(f"{HERE}/after-{i}.csv.gz","recompute")
    rs=[(nd[k]/nrc[k])/(od[k]/orc[k]) for k in od]
    allr+=rs
    print(f"  run {i}: "+" ".join(f"{x:.2f}" for x in rs))
print(f"  geomean over {len(allr)}: {math.exp(sum(map(math.log,allr))/len(allr)):.3f}")
