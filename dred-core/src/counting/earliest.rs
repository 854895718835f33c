//! The first round of a recursive stratum that a batch's changed input facts reach: k₀ of
//! `counting::rounds`' replay.
//!
//! Why over the old and the new input together: a round below k₀ must have no instance
//! that uses a changed input fact, neither an old one (a deleted fact in it) nor a new one
//! (an inserted fact in it); with the deleted facts put back for the search, every instance
//! of either kind is found. Its round is computed from the stratum's old rounds: that is
//! exact for the instances of rounds below k₀ (whose facts keep their rounds) and only makes
//! k₀ smaller otherwise, which is safe. A rule reading a changed fact under negation would
//! need the instances its absence made true: that case replays from round 1, simply.

use std::collections::HashMap;

use super::events::Database;
use super::plans::ReplayPlans;
use super::rounds::RoundCounts;
use crate::exec::{Matcher, Versions, WorkCounter};
use crate::program::{Literal, RelId, Term};
use crate::value::{Tuple, Value};

impl Database<'_> {
    /// The least round (from 1) of an instance of stratum `s`'s rules using one of the
    /// `changed` input facts (entered: true; left: false), with the stratum's old `counts`
    /// (per relation of the stratum, in order) giving its facts' rounds; `None` when no
    /// instance uses one: the stratum is unchanged.
    pub(crate) fn earliest_round(
        &mut self,
        s: usize,
        plans: &ReplayPlans,
        counts: &[HashMap<Tuple, RoundCounts>],
        changed: &[(RelId, Tuple, bool)],
        work: &WorkCounter,
    ) -> Option<u32> {
        if changed
            .iter()
            .any(|(rel, _, _)| plans.negated_inputs.contains(rel))
        {
            return Some(1);
        }
        let program = self.program;
        let stratum = &program.strata[s];
        // The deleted facts are back for the search only.
        for (rel, t, entered) in changed {
            if !entered {
                self.relations[*rel].insert(t);
            }
        }
        let versions: Vec<Versions> = self.relations.iter().map(Versions::complete).collect();
        let matcher = Matcher {
            relations: &self.relations[..],
            versions: &versions,
            work,
        };
        let mut earliest: Option<u32> = None;
        'facts: for (rel, t, _) in changed {
            for (seeded_rel, seeded) in &plans.seeded {
                if seeded_rel != rel {
                    continue;
                }
                let rule = &program.rules[seeded.rule];
                matcher.for_each_seeded(&seeded.plan, t, &mut |vars: &[Value]| {
                    // 1 + the latest round of the instance's facts of the stratum.
                    let mut round = 1;
                    for lit in &rule.body {
                        let Literal::Positive(a) = lit else { continue };
                        let Some(slot) = stratum.relations.iter().position(|&r| r == a.rel) else {
                            continue;
                        };
                        let fact: Tuple = a
                            .args
                            .iter()
                            .map(|t| match *t {
                                Term::Var(x) => vars[x],
                                Term::Const(c) => c,
                                Term::Wildcard => unreachable!("positive wildcards are named"),
                            })
                            .collect();
                        // A fact of the model has counts; were one missing, round 0 would
                        // only make k₀ smaller.
                        let of_fact = counts[slot].get(&fact).map_or(0, |rc| rc[0].0);
                        round = round.max(of_fact + 1);
                    }
                    earliest = Some(earliest.map_or(round, |e| e.min(round)));
                });
                if earliest == Some(1) {
                    break 'facts;
                }
            }
        }
        for (rel, t, entered) in changed {
            if !entered {
                self.relations[*rel].remove(t);
            }
        }
        earliest
    }
}
