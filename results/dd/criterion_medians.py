#!/usr/bin/env python3
# Medians of the dd_vs_hand criterion benchmarks (dd-baseline/benches/handwritten.rs) from
# target/criterion/*/new/estimates.json: compiled dd against the hand-written DD program, per
# dataset, program and phase, with their ratio. Run after `cargo bench -p dd-baseline --bench handwritten`.
import json,glob,os,sys
base='/work/main/target/criterion'
rows={}
for f in glob.glob(base+'/*/*/*/new/estimates.json'):
    parts=f.split('/')
    group, fn, prog = parts[-5], parts[-4], parts[-3]
    e=json.load(open(f))
    rows[(group,fn,prog)]=e['median']['point_estimate']
for f in glob.glob(base+'/*/*/new/estimates.json'):
    pass
groups=sorted(set(k[0] for k in rows))
for g in groups:
    for prog in ['tc_linear','reach']:
        for phase in ['materialise','delete','insert']:
            dd=rows.get((g,phase+'_dd',prog)); hand=rows.get((g,phase+'_hand',prog))
            if dd and hand:
                print(f"{g} {prog} {phase}: dd {dd/1e3:.1f} us, hand {hand/1e3:.1f} us, dd/hand {dd/hand:.2f}")
