//! DRed (Delete and Rederive) maintenance engines for recursive Datalog with stratified
//! negation and aggregates (SPEC §4–5, §8).
//!
//! Positive programs are maintained in the seed's three phases. A program with negation is
//! maintained one *level* after another ([`crate::program::Stratum::level`], the coarsest
//! stratification): level 0 from D- and A+ as the seed says; each level above from the net
//! changes of the relations below it — a lost fact seeds over-deletion through positive atoms
//! and insertion through negated ones, a gained fact the reverse. Phase 1 of a level matches
//! the relations as they were before the batch; phases 2 and 3 the new relations below.
//! An aggregate relation ([`crate::program::AggregateDef`]) is maintained per group: a group
//! whose input lost or gained a row has its old row over-deleted in round 1, restored in round
//! 1 of rederivation when its value over the new input is unchanged, replaced in round 1 of
//! insertion otherwise. Rounds carry their level (`stratum` in traces); report counters are
//! sums over levels.
//! `results/METHODOLOGY.md` ("DRed across strata") states it in full.
//!
//! - [`reference`](mod@reference): the three phases exactly as the seed specifies, over a
//!   store of every old successful ground instance; slow, exact, and instrumented
//!   (frontiers, G, B, membership tests). See its docs for its cost and why it is not for
//!   large inputs.
//! - [`production`]: the engine to run on real data (`dred`): the same three phases and the
//!   same frontiers, by delta rules over indexed relations, with no instance store.
//! - [`wrong_support`]: the negative control that keeps cyclically self-supporting facts, so
//!   that the harness's model check is seen to fail.

pub mod production;
pub mod reference;
pub mod wrong_support;

pub use production::Dred;
pub use reference::Reference;
pub use wrong_support::WrongSupport;
