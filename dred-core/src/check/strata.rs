//! Stratification: strongly connected components of the relation dependency graph.
//!
//! An edge runs from every body relation to the head relation. Each component of derived
//! relations is one stratum; strata come in dependency order. A negated atom whose relation
//! is in the same component as the head makes the program non-stratifiable.

use crate::diagnostic::{Diagnostic, SourceFile};
use crate::program::{AggregateDef, Literal, ProgramFact, RelId, RelationDecl, Rule, Stratum};

pub(super) fn stratify(
    file: &SourceFile,
    relations: &[RelationDecl],
    rules: &[Rule],
    facts: &[ProgramFact],
    aggregates: &[AggregateDef],
) -> Result<(Vec<Stratum>, Vec<Option<usize>>), Diagnostic> {
    let n = relations.len();
    let mut succ: Vec<Vec<RelId>> = vec![Vec::new(); n];
    for a in aggregates {
        succ[a.input].push(a.rel);
    }
    for rule in rules {
        for lit in &rule.body {
            if let Literal::Positive(a) | Literal::Negative(a) = lit {
                succ[a.rel].push(rule.head.rel);
            }
        }
    }
    let components = tarjan(&succ);
    // Tarjan emits a component after everything reachable from it, i.e. dependents first.
    let mut stratum_of: Vec<Option<usize>> = vec![None; n];
    let mut strata = Vec::new();
    for comp in components.into_iter().rev() {
        if comp.iter().all(|&r| relations[r].input) {
            continue;
        }
        debug_assert!(comp.iter().all(|&r| !relations[r].input));
        let idx = strata.len();
        for &r in &comp {
            stratum_of[r] = Some(idx);
        }
        let mut relations_here = comp;
        relations_here.sort_unstable();
        strata.push(Stratum {
            relations: relations_here,
            ..Stratum::default()
        });
    }
    for (k, a) in aggregates.iter().enumerate() {
        let s = stratum_of[a.rel].expect("aggregate relations are derived");
        if stratum_of[a.input] == Some(s) {
            return Err(Diagnostic::new(
                file,
                a.span,
                "aggregate in recursion: the rule's head is used, directly or not, inside this aggregate's braces \
                 (or, for a variable the braces take from outside, by the literals binding it)",
                "aggregates must read relations of lower strata",
            ));
        }
        strata[s].aggregate = Some(k);
    }
    for (i, rule) in rules.iter().enumerate() {
        let Some(s) = stratum_of[rule.head.rel] else {
            unreachable!("rule heads are never input relations")
        };
        for lit in &rule.body {
            match lit {
                Literal::Positive(a) if stratum_of[a.rel] == Some(s) => strata[s].recursive = true,
                Literal::Negative(a) if stratum_of[a.rel] == Some(s) => {
                    return Err(Diagnostic::new(
                        file,
                        rule.span,
                        format!(
                            "program is not stratifiable: `{}` depends negatively on `{}`, which depends on `{}`",
                            relations[rule.head.rel].name,
                            relations[a.rel].name,
                            relations[rule.head.rel].name
                        ),
                        "negation through recursion",
                    ))
                }
                _ => {}
            }
        }
        strata[s].rules.push(i);
    }
    let aggregate = |rel: RelId| aggregates.iter().any(|a| a.rel == rel);
    // Levels in dependency order: a positive atom keeps the level, a negated one adds one,
    // and so does an aggregate relation over its input and a positive atom over it (an
    // aggregate relation's level holds no rule that reads one).
    for s in 0..strata.len() {
        if let Some(k) = strata[s].aggregate {
            let input = aggregates[k].input;
            strata[s].level = stratum_of[input].map_or(0, |t| strata[t].level) + 1;
            continue;
        }
        let mut level = 0;
        for &i in &strata[s].rules {
            for lit in &rules[i].body {
                let (a, step) = match lit {
                    Literal::Positive(a) if aggregate(a.rel) => (a, 1),
                    Literal::Positive(a) => (a, 0),
                    Literal::Negative(a) => (a, 1),
                    Literal::Compare { .. } | Literal::Assign { .. } => continue,
                };
                let below = match stratum_of[a.rel] {
                    Some(t) if t == s => continue,
                    Some(t) => strata[t].level,
                    None => 0,
                };
                level = level.max(below + step);
            }
        }
        strata[s].level = level;
    }
    for (i, fact) in facts.iter().enumerate() {
        if let Some(s) = stratum_of[fact.rel] {
            strata[s].facts.push(i);
        }
    }
    Ok((strata, stratum_of))
}

/// Strongly connected components, each emitted after every component reachable from it.
fn tarjan(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        succ: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for k in 0..s.succ[v].len() {
            let w = s.succ[v][k];
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            s.out.push(comp);
        }
    }
    let n = succ.len();
    let mut s = State {
        succ,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}
