//! One loop for the commonest plan of a whole-relation round: a scanned atom, then one atom
//! walked through an index on values the scan bound, and nothing else — the recursive rule
//! of linear recursion with its delta first (`path(x, z) :- path(x, y), edge(y, z)`: scan the
//! new paths, walk the edges out of each one's end), and two-atom base rules.
//!
//! Why: with the heads' insertion no longer waiting on memory ([`Relation::insert_flat`]),
//! the interpreter ([`Matcher`]) was the next cost on linear TC: `Matcher::step`, its
//! closures and the head's `extend` were 27% of the samples (2,000 nodes, 5,000 edges),
//! about 19 ns an instance for a join whose index and rows stay in the cache.
//!
//! It finds the same instances as [`Matcher::run`] on such a plan, with the same work
//! counts (one row touched per scanned row, one probe per lookup made, one row touched per
//! group row visited; no lookup when the walked atom shows no rows), in the same order, and
//! appends their heads in that order. Tested against the interpreter below.

use crate::exec::{Matcher, Versions, WorkCounter};
use crate::plan::{AtomStep, RulePlan, Step};
use crate::storage::{IndexId, Relation};
use crate::value::Value;

/// The two atoms of a plan this loop runs, and the walked atom's index; `None` for any other
/// plan (also a walked key of more than 8 values, which this loop does not build).
fn shape(plan: &RulePlan) -> Option<(&AtomStep, &AtomStep, IndexId)> {
    let [Step::Atom(scan), Step::Atom(walk)] = plan.steps.as_slice() else {
        return None;
    };
    let plain = plan.seed_step.is_none() && plan.adaptive.is_none();
    let scanned = scan.index.is_none() && !scan.membership;
    match walk.index {
        Some(ix) if plain && scanned && !walk.membership && walk.key.len() <= 8 => {
            Some((scan, walk, ix))
        }
        _ => None,
    }
}

/// Runs `plan` as [`Matcher::run`] does, through this module's loop when the plan has its
/// shape: appends the head of every instance to `out`, returns how many there were.
pub(crate) fn run(
    relations: &[Relation],
    versions: &[Versions],
    work: &WorkCounter,
    plan: &RulePlan,
    out: &mut Vec<Value>,
) -> u64 {
    let Some((scan, walk, ix)) = shape(plan) else {
        return Matcher {
            relations,
            versions,
            work,
        }
        .run(plan, out);
    };
    let range = versions[scan.rel].range(scan.version);
    if range.is_empty() {
        return 0;
    }
    let walk_range = versions[walk.rel].range(walk.version);
    let (scanned, walked) = (&relations[scan.rel], &relations[walk.rel]);
    let (scan_dead, walk_dead) = (scanned.has_dead(), walked.has_dead());
    let mut vars = vec![0; plan.num_vars];
    let mut key = [0; 8];
    let key_len = walk.key.len();
    let (mut count, mut probes) = (0u64, 0u64);
    // Every scanned row is touched, as the interpreter counts a scan.
    let mut touched = u64::from(range.hi - range.lo);
    for r in range.lo..range.hi {
        if scan_dead && !scanned.is_live(r) {
            continue;
        }
        let row = scanned.row(r);
        // Bind first: a check may compare with a variable bound in this atom.
        for &(c, v) in &scan.binds {
            vars[v] = row[c];
        }
        if scan.checks.iter().any(|&(c, op)| row[c] != op.get(&vars)) || walk_range.is_empty() {
            continue;
        }
        for (slot, op) in key.iter_mut().zip(&walk.key) {
            *slot = op.get(&vars);
        }
        probes += 1;
        let group = walked.lookup(ix, &key[..key_len]);
        let from = if walk_range.lo == 0 {
            0
        } else {
            group.partition_point(|&g| g < walk_range.lo)
        };
        for &g in &group[from..] {
            if g >= walk_range.hi {
                break;
            }
            touched += 1;
            if walk_dead && !walked.is_live(g) {
                continue;
            }
            let row = walked.row(g);
            for &(c, v) in &walk.binds {
                vars[v] = row[c];
            }
            if walk.checks.iter().all(|&(c, op)| row[c] == op.get(&vars)) {
                count += 1;
                for o in &plan.head {
                    out.push(o.get(&vars));
                }
            }
        }
    }
    work.probe(probes);
    work.touch(touched);
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{plan_rule, Version};
    use crate::{load_program, SourceFile, Symbols};

    /// Rules over EDB relations of arity 0 to 3: constants in the scanned and the walked atom,
    /// repeated variables in each, wildcards, heads of arity 0 to 3, and plans of other shapes
    /// (a membership test, two scans), which go to the interpreter.
    const PROGRAM: &str = "
        .decl z()
        .decl u(x: number)
        .decl a(x: number, y: number)
        .decl b(x: number, y: number)
        .decl c(x: number, y: number, z: number)
        .input z
        .input u
        .input a
        .input b
        .input c
        .decl h0()
        .decl h1(x: number)
        .decl h2(x: number, y: number)
        .decl h3(x: number, y: number, z: number)
        h2(x, z) :- a(x, y), b(y, z).
        h2(x, z) :- a(x, y), c(y, 3, z).
        h2(x, x) :- a(x, x), b(x, y).
        h2(x, y) :- b(x, y), c(y, z, z).
        h2(x, y) :- a(x, 1), b(1, y).
        h3(x, y, w) :- c(x, y, z), b(z, w).
        h3(x, y, z) :- c(x, y, z), a(z, 2).
        h0() :- u(x), a(x, _).
        h1(y) :- u(x), c(x, _, y).
        h1(x) :- z(), u(x).
        h1(x) :- u(x), z().
    ";

    /// SplitMix64, seeded.
    fn stream(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
    }

    /// Every rule planned with its first atom first, over random EDBs (some rows removed, so
    /// that tombstones are skipped) and random versions: the loop and the interpreter give
    /// the same heads in the same order, the same count and the same work.
    #[test]
    fn same_instances_order_and_work_as_the_interpreter() {
        let mut symbols = Symbols::new();
        let program = load_program(&SourceFile::new("t.dl", PROGRAM), &mut symbols)
            .expect("the test program is valid");
        let mut fused = 0;
        for seed in 0..40 {
            let mut next = stream(seed);
            let mut relations: Vec<Relation> = program
                .relations
                .iter()
                .map(|d| Relation::new(d.arity()))
                .collect();
            let mut plans = Vec::new();
            for (r, rule) in program.rules.iter().enumerate() {
                let atoms = rule.positive_atoms().count();
                let versions: Vec<Version> = (0..atoms)
                    .map(|_| [Version::Old, Version::Delta, Version::Full][next() as usize % 3])
                    .collect();
                plans.push(plan_rule(&program, r, &versions, Some(0), &mut relations));
            }
            for (rel, d) in program.relations.iter().enumerate() {
                if !d.input {
                    continue;
                }
                let range = 2 + seed % 5;
                for _ in 0..next() % 40 {
                    let row: Vec<Value> =
                        (0..d.arity()).map(|_| (next() % range) as Value).collect();
                    relations[rel].insert(&row);
                }
                if seed.is_multiple_of(3) {
                    let doomed: Vec<Vec<Value>> = relations[rel]
                        .rows(relations[rel].all())
                        .filter(|_| next().is_multiple_of(4))
                        .map(<[Value]>::to_vec)
                        .collect();
                    for row in doomed {
                        relations[rel].remove(&row);
                    }
                }
            }
            let versions: Vec<Versions> = relations
                .iter()
                .map(|r| {
                    let end = r.end();
                    let old_end = if end == 0 {
                        0
                    } else {
                        next() as u32 % (end + 1)
                    };
                    Versions {
                        old_end,
                        delta_end: old_end + (next() as u32 % (end - old_end + 1)),
                    }
                })
                .collect();
            for plan in &plans {
                fused += usize::from(shape(plan).is_some());
                let (ours, theirs) = (WorkCounter::default(), WorkCounter::default());
                let (mut out, mut expected) = (Vec::new(), Vec::new());
                let n = run(&relations, &versions, &ours, plan, &mut out);
                let m = Matcher {
                    relations: &relations,
                    versions: &versions,
                    work: &theirs,
                }
                .run(plan, &mut expected);
                let what = format!("rule {} seed {seed}", plan.rule);
                assert_eq!(n, m, "instances of {what}");
                assert_eq!(out, expected, "heads of {what}");
                assert_eq!(ours.total(), theirs.total(), "work of {what}");
            }
        }
        // The planner scans a delta atom wherever it stands, and a walked atom read as delta
        // is scanned too: about half the plans have the loop's shape (198 of 440).
        assert!(
            (100..400).contains(&fused),
            "plans of both kinds ({fused} of 440 in the loop)"
        );
    }
}
