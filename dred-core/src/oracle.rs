//! The oracle: plain naive evaluation by ground enumeration, for tests and small inputs.
//!
//! It shares no evaluation code with the other engines — no plans, no indexes, no
//! semi-naive versions. Per stratum, every rule is matched against every fact of its body
//! relations by nested scans, in source order, until a whole pass adds nothing (or the
//! passes reach [`crate::rounds::max_rounds`]). Slow by
//! design: its worth is being obviously right.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::engine::{Batch, BatchReport, Edb, Engine, EngineError, Model};
use crate::program::{AggregateDef, Literal, Program, Rule, Term};
use crate::syntax::ast::{AggFunc, CmpOp};
use crate::value::{Tuple, Value};

/// The naive oracle engine.
#[derive(Debug)]
pub struct Oracle {
    program: Arc<Program>,
    edb: Edb,
    model: Model,
}

impl Oracle {
    /// An oracle for `program`.
    pub fn new(program: Arc<Program>) -> Self {
        Oracle {
            edb: Edb::empty(&program),
            model: Model::empty(&program),
            program,
        }
    }

    /// The least model of the program on `edb`, from scratch.
    pub fn least_model(program: &Program, edb: &Edb) -> Model {
        // All facts, EDB and IDB, per relation.
        let mut db: Vec<BTreeSet<Tuple>> = edb.relations.clone();
        db.resize(program.relations.len(), BTreeSet::new());
        for stratum in &program.strata {
            if let Some(k) = stratum.aggregate {
                let agg = &program.aggregates[k];
                let rows = aggregate(agg, &db[agg.input]);
                db[agg.rel] = rows;
                continue;
            }
            for &f in &stratum.facts {
                let fact = &program.facts[f];
                db[fact.rel].insert(fact.tuple.clone());
            }
            let mut pass = 0;
            loop {
                pass += 1;
                crate::rounds::check(pass, || {
                    crate::rounds::names(program, stratum.relations.iter().copied())
                });
                let mut new = Vec::new();
                for &r in &stratum.rules {
                    let rule = &program.rules[r];
                    let mut binding = vec![None; rule.num_vars()];
                    ground(rule, 0, &db, &mut binding, &mut new);
                }
                let mut changed = false;
                for (rel, t) in new {
                    changed |= db[rel].insert(t);
                }
                if !changed {
                    break;
                }
            }
        }
        let mut model = Model::empty(program);
        for (rel, ts) in db.into_iter().enumerate() {
            if program.is_idb(rel) {
                model.relations[rel] = ts;
            }
        }
        model
    }
}

/// Enumerates the ground instances of `rule` whose body holds in `db`, from body literal `i`.
fn ground(
    rule: &Rule,
    i: usize,
    db: &[BTreeSet<Tuple>],
    binding: &mut Vec<Option<Value>>,
    out: &mut Vec<(usize, Tuple)>,
) {
    if i == rule.body.len() {
        // Assignments, in body order (each after those binding its expression's variables),
        // bind or check their variables once the atoms have bound theirs.
        let mut binding = binding.clone();
        for lit in &rule.body {
            if let Literal::Assign { var, expr } = lit {
                let Some(v) = expr.eval(&|x| binding[x].expect("bound before its assignment"))
                else {
                    return; // no value (a division by zero): no instance
                };
                match binding[*var] {
                    Some(b) if b != v => return,
                    Some(_) => {}
                    None => binding[*var] = Some(v),
                }
            }
        }
        let binding = &binding;
        // Comparisons and negations are tested once everything is bound.
        for lit in &rule.body {
            match lit {
                Literal::Compare { left, op, right } => {
                    let l = value_of(*left, binding);
                    let r = value_of(*right, binding);
                    let holds = match op {
                        CmpOp::Eq => l == r,
                        CmpOp::Ne => l != r,
                        CmpOp::Lt => l < r,
                        CmpOp::Le => l <= r,
                        CmpOp::Gt => l > r,
                        CmpOp::Ge => l >= r,
                    };
                    if !holds {
                        return;
                    }
                }
                Literal::Negative(a) => {
                    let matches_some = db[a.rel].iter().any(|t| {
                        a.args.iter().zip(t).all(|(arg, v)| match arg {
                            Term::Wildcard => true,
                            other => value_of(*other, binding) == *v,
                        })
                    });
                    if matches_some {
                        return;
                    }
                }
                Literal::Positive(_) | Literal::Assign { .. } => {}
            }
        }
        let head = rule
            .head
            .args
            .iter()
            .map(|t| value_of(*t, binding))
            .collect();
        out.push((rule.head.rel, head));
        return;
    }
    let Literal::Positive(atom) = &rule.body[i] else {
        ground(rule, i + 1, db, binding, out);
        return;
    };
    for tuple in &db[atom.rel] {
        let saved = binding.clone();
        let mut ok = true;
        for (arg, &v) in atom.args.iter().zip(tuple) {
            match *arg {
                Term::Wildcard => {}
                Term::Const(c) => ok &= c == v,
                Term::Var(x) => match binding[x] {
                    Some(b) => ok &= b == v,
                    None => binding[x] = Some(v),
                },
            }
            if !ok {
                break;
            }
        }
        if ok {
            ground(rule, i + 1, db, binding, out);
        }
        *binding = saved;
    }
}

/// The rows of an aggregate relation by enumeration: for every group key among the input's
/// rows, a scan of every input row for those of the group, folded here (not with
/// [`crate::program::AggregateDef::fold`], which the other engines share).
fn aggregate(agg: &AggregateDef, input: &BTreeSet<Tuple>) -> BTreeSet<Tuple> {
    let keys: BTreeSet<&[Value]> = input.iter().map(|t| &t[..agg.group]).collect();
    let mut out = BTreeSet::new();
    for key in keys {
        let group: Vec<&Tuple> = input.iter().filter(|t| &t[..agg.group] == key).collect();
        let values = group.iter().map(|t| t[agg.target.unwrap_or(0)]);
        let value = match agg.func {
            AggFunc::Count => group.len() as Value,
            AggFunc::Sum => crate::arith::sum(agg.value_type, values),
            AggFunc::Min => values.min().expect("a key comes from a row"),
            AggFunc::Max => values.max().expect("a key comes from a row"),
        };
        let mut row = key.to_vec();
        row.push(value);
        out.insert(row);
    }
    out
}

fn value_of(t: Term, binding: &[Option<Value>]) -> Value {
    match t {
        Term::Const(c) => c,
        Term::Var(x) => binding[x].expect("range restriction binds every variable"),
        Term::Wildcard => unreachable!("wildcards are never evaluated"),
    }
}

impl Engine for Oracle {
    fn name(&self) -> &str {
        "oracle"
    }

    fn materialise(&mut self, edb: &Edb) -> Result<BatchReport, EngineError> {
        self.edb = edb.clone();
        self.model = Self::least_model(&self.program, &self.edb);
        Ok(BatchReport::default())
    }

    fn apply(&mut self, batch: &Batch) -> Result<BatchReport, EngineError> {
        self.edb.apply(batch);
        self.model = Self::least_model(&self.program, &self.edb);
        Ok(BatchReport::default())
    }

    fn model(&self) -> Model {
        self.model.clone()
    }
}
