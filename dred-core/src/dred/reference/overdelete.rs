//! Phase 1 of the reference: over-delete along old proofs (SPEC §4).
//!
//! Input: the [`InstanceStore`] of the old I ∪ J (with its reverse index from body fact to
//! instance heads) and D-, the EDB facts that really go, as the first [`Frontier`].
//! Output: [`OverDeleted`]: the set D, its successive frontiers, and D ∩ J.
//! Postcondition: D is the least set containing D- such that the head of every old successful
//! instance with some body fact in D is in D — even a head that has another, untouched proof.
//! Equivalently, a fact is in D iff some old proof tree of it has a leaf in D-.
//!
//! D grows as a queue processed in rounds: round 1 is D-; round k + 1 holds the heads newly
//! added while expanding the facts of round k. Only newly added facts are expanded and each
//! fact enters once, so after the store is built the phase costs O(M + G + B + 1): each fact
//! of D reads its reverse-index entries once.

use super::instances::{FactId, FactTable, InstanceStore};

/// The facts that entered D in one round, sorted by value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frontier(pub Vec<FactId>);

/// The result of phase 1: the set D of over-deleted facts (deleted EDB facts and over-deleted
/// IDB facts) with the rounds in which they entered it.
#[derive(Debug, Clone, Default)]
pub struct OverDeleted {
    /// `in_d[f]` is true when fact `f` is in D.
    in_d: Vec<bool>,
    /// D ∩ J, in the order the facts entered D.
    idb: Vec<FactId>,
    /// Non-empty frontiers in order; the first is D- (when D- is not empty).
    frontiers: Vec<Frontier>,
}

impl OverDeleted {
    /// True when `f` is in D.
    pub fn contains(&self, f: FactId) -> bool {
        self.in_d[f as usize]
    }

    /// D ∩ J: the over-deleted IDB facts, in order of entry.
    pub fn idb(&self) -> &[FactId] {
        &self.idb
    }

    /// The successive non-empty frontiers; the first is D-.
    pub fn frontiers(&self) -> &[Frontier] {
        &self.frontiers
    }

    /// |D|, EDB and IDB facts together.
    pub fn len(&self) -> usize {
        self.frontiers.iter().map(|f| f.0.len()).sum()
    }

    /// True when D is empty (D- was).
    pub fn is_empty(&self) -> bool {
        self.frontiers.is_empty()
    }
}

/// Runs phase 1 from `deleted` (D-, facts of `facts`) over the old instances of `store`.
pub fn overdelete(store: &InstanceStore, facts: &FactTable<'_>, deleted: Frontier) -> OverDeleted {
    overdelete_from(store, facts, deleted, false)
}

/// Runs phase 1 from a first frontier: D- at level 0 (`first_is_idb` false), or above, the
/// level's facts that the changes below reach directly (`first_is_idb` true: they are
/// over-deleted IDB facts themselves).
pub fn overdelete_from(
    store: &InstanceStore,
    facts: &FactTable<'_>,
    first: Frontier,
    first_is_idb: bool,
) -> OverDeleted {
    let deleted = first;
    let mut in_d = vec![false; facts.len()];
    let mut idb = Vec::new();
    let mut frontiers = Vec::new();
    let mut frontier: Vec<FactId> = deleted
        .0
        .into_iter()
        .filter(|&f| !in_d_set(&mut in_d, f))
        .collect();
    if first_is_idb {
        idb.extend_from_slice(&frontier);
    }
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for &f in &frontier {
            // For every old instance `h :- …, f, …`: h enters D.
            for &h in store.heads_using(f) {
                if !in_d_set(&mut in_d, h) {
                    next.push(h);
                }
            }
        }
        // Heads of rules are IDB facts; only the first frontier at level 0 (D-) holds EDB
        // facts.
        idb.extend_from_slice(&next);
        frontier.sort_by(|&a, &b| facts.cmp_by_value(a, b));
        frontiers.push(Frontier(std::mem::replace(&mut frontier, next)));
    }
    OverDeleted {
        in_d,
        idb,
        frontiers,
    }
}

/// Marks `f` as in D; returns whether it already was.
fn in_d_set(in_d: &mut [bool], f: FactId) -> bool {
    std::mem::replace(&mut in_d[f as usize], true)
}
