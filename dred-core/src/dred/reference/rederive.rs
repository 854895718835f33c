//! Phase 2 of the reference: rederive from the survivors (SPEC §4).
//!
//! Input: the [`InstanceStore`] of the old I ∪ J, the [`OverDeleted`] set D of phase 1, and
//! the [`Survivors`] S = (I ∪ J) \ D.
//! Output: the facts of D ∩ J put back, round by round ([`Rederived`]), and S grown by them.
//! Postcondition: S is the least model of the program on I \ D- (A+ not yet added): a fact of
//! D ∩ J is back iff it has a finite proof from surviving facts and program facts.
//!
//! Each round scans the old instances whose head is in D ∩ J and not yet back, and restores a
//! head when its whole body is in S *as it was when the round began*: a fact still in D and
//! not yet rederived is never evidence, and a fact restored in a round is evidence from the
//! next round on. An empty-body instance (a program fact) restores its head in round 1. Purely
//! cyclic support restores nothing: if p(a) is supported only by q(a) and q(a) only by p(a),
//! neither is ever the first to come back.
//!
//! Reusing old instances suffices because, with only EDB deletions, the new least model is
//! contained in the old one, so every new proof uses instances that succeeded before. Above
//! DRed level 0 it does not (a lower level may have gained facts, or lost one a negation
//! needed absent): there the store passed is of the instances over the new relations below
//! and the level's old facts ([`rederive_pending`]).
//!
//! Rounds: every scan is a round, including the last one when it restores nothing; the phase
//! stops after a round that restores nothing or when every over-deleted fact is back. With
//! d = |D ∩ J| there are at most d + 1 rounds, each O(G + B + 1): O((d + 1)(G + B + 1)) in
//! all. Membership tests are counted as made: body facts in order, stopping at the first one
//! not in S, and no further instance of a head once it is restored in the round.

use super::instances::{FactId, FactTable, InstanceId, InstanceStore};
use super::overdelete::OverDeleted;

/// S: the facts of the old I ∪ J that currently hold — initially (I ∪ J) \ D, growing as
/// phase 2 restores facts. Indexed by [`FactId`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Survivors {
    present: Vec<bool>,
}

impl Survivors {
    /// Every fact of `facts`: the old I ∪ J.
    pub fn all(facts: &FactTable<'_>) -> Self {
        Survivors {
            present: vec![true; facts.len()],
        }
    }

    /// S = (I ∪ J) \ D: every fact of `facts` that is not in `d` (phase 1's result on the
    /// same facts).
    pub fn after(facts: &FactTable<'_>, d: &OverDeleted) -> Self {
        Survivors {
            present: (0..facts.len()).map(|f| !d.contains(f as FactId)).collect(),
        }
    }

    /// True when `f` currently holds.
    pub fn contains(&self, f: FactId) -> bool {
        self.present[f as usize]
    }

    /// Adds `f` to S.
    pub fn insert(&mut self, f: FactId) {
        self.present[f as usize] = true;
    }

    /// Removes `f` from S.
    pub fn remove(&mut self, f: FactId) {
        self.present[f as usize] = false;
    }

    /// The facts in S, by id.
    pub fn iter(&self) -> impl Iterator<Item = FactId> + '_ {
        self.present
            .iter()
            .enumerate()
            .filter(|(_, &p)| p)
            .map(|(f, _)| f as FactId)
    }
}

/// The result of phase 2.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rederived {
    /// The facts restored in each scan round, sorted by value; the last may be empty.
    pub rounds: Vec<Vec<FactId>>,
    /// Body-membership tests made.
    pub membership_tests: u64,
    /// Per fact restored, in the order restored: the instance whose body held (`None`: a
    /// fact of `given`). Empty unless asked ([`rederive_pending`]'s `proofs`).
    pub proofs: Vec<(FactId, Option<InstanceId>)>,
}

impl Rederived {
    /// Number of facts put back.
    pub fn len(&self) -> usize {
        self.rounds.iter().map(Vec::len).sum()
    }

    /// True when nothing was put back.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Runs phase 2: restores into `survivors` every fact of D ∩ J that the survivors rederive
/// (with `proofs`, keeping the instance that restored each, [`Rederived::proofs`]).
pub fn rederive(
    store: &InstanceStore,
    facts: &FactTable<'_>,
    overdeleted: &OverDeleted,
    survivors: &mut Survivors,
    proofs: bool,
) -> Rederived {
    rederive_pending(
        store,
        facts,
        overdeleted.idb().to_vec(),
        &[],
        survivors,
        proofs,
    )
}

/// [`rederive`] of the facts `pending` (ids of `facts`, none of them in `survivors`): at a
/// level above 0, the level's over-deleted facts, with `store` the instances over the new
/// relations below and the level's old facts. The facts of `given` (aggregate rows whose
/// group kept its value) are restored in round 1 without an instance. With `proofs`, the
/// instance that restored each fact is kept ([`Rederived::proofs`]).
pub fn rederive_pending(
    store: &InstanceStore,
    facts: &FactTable<'_>,
    mut pending: Vec<FactId>,
    given: &[FactId],
    survivors: &mut Survivors,
    proofs: bool,
) -> Rederived {
    pending.sort_by(|&a, &b| facts.cmp_by_value(a, b));
    let mut result = Rederived::default();
    while !pending.is_empty() {
        let mut restored = Vec::new();
        let mut still = Vec::new();
        let round1 = result.rounds.is_empty();
        for &h in &pending {
            let mut back = round1 && given.contains(&h);
            let mut proof = None;
            for i in store.of_head(h).filter(|_| !back) {
                // h :- b1, …, bn: back when every bi is in S (as at the start of the round).
                let mut holds = true;
                for &b in store.body(i) {
                    result.membership_tests += 1;
                    if !survivors.contains(b) {
                        holds = false;
                        break;
                    }
                }
                if holds {
                    back = true;
                    proof = Some(i);
                    break;
                }
            }
            if back {
                restored.push(h);
                if proofs {
                    result.proofs.push((h, proof));
                }
            } else {
                still.push(h);
            }
        }
        for &h in &restored {
            survivors.insert(h);
        }
        let done = restored.is_empty();
        result.rounds.push(restored);
        pending = still;
        if done {
            break;
        }
    }
    result
}
