#!/usr/bin/env python3
# Medians of the dd_vs_hand criterion benchmarks (dd-baseline/benches/handwritten.rs) from
# target/criterion/*/new/estimates.json: compiled dd against the hand-written DD program, per
# dataset, program and phase, with their ratio. Run after `cargo bench -p dd-baseline --bench handwritten`.
import json,glob,os,sys
base=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'target', 'criterion')
rows={}
for f in glob.glob(base+'/*/*/*/new/estimates.json'):
    parts=f.split('/')
    group, fn, prog = parts[-5], parts[-4], parts[-3]
    e=json.load(open(f))
    rows[(group,fn,prog)]=e['median']['point_estimate']
groups=sorted(set(k[0] for k in rows))
for g in groups:
    for prog in ['tc_linear','reach']:
        for phase in ['materialise','delete','insert']:
            dd=rows.get((g,phase+'_dd',prog)); hand=rows.get((g,phase+'_hand',prog))
            row=rows.get((g,phase+'_hand-row',prog))
            if dd and hand:
                extra = f", hand-row {row/1e3:.1f} us, hand-row/hand {row/hand:.2f}, dd/hand-row {dd/row:.2f}" if row else ""
                print(f"{g} {prog} {phase}: dd {dd/1e3:.1f} us, hand {hand/1e3:.1f} us, dd/hand {dd/hand:.2f}{extra}")
