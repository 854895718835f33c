//! Derivations recorded while an engine runs: for each fact that enters a phase's round, the
//! first rule instance the engine met that put it there, as the rule's index and the binding
//! of the rule's variables — no instance store, one entry per fact and phase.
//!
//! Recording is off unless asked ([`crate::Dred::set_recording`]); then the engines look up
//! each head at once instead of in batches, so that the instance which reached a fact first
//! is known when the fact is found new. Off, their loops pay one test of a flag.
//! [`crate::explain::BatchExplanation::of`] turns recorded derivations into explanations and
//! [`crate::explain::BatchExplanation::verify`] checks them.

use crate::engine::{Fact, Phase};
use crate::program::RelId;
use crate::value::Value;

/// The first derivation of a fact in one round of one phase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Derivation {
    /// The DRed level.
    pub stratum: usize,
    /// The phase.
    pub phase: Phase,
    /// The round, from 1.
    pub round: usize,
    /// The fact.
    pub fact: Fact,
    /// The rule whose instance put the fact there, by index in
    /// [`crate::Program::rules`]; `None` for a fact that entered outright (a fact of the
    /// batch, a program fact, an aggregate row of a group that changed below).
    pub rule: Option<usize>,
    /// The rule's variables as the instance bound them (by [`crate::program::VarId`]);
    /// empty when `rule` is `None`. A wildcard binds nothing, so its value is not here.
    pub binding: Vec<Value>,
}

/// The derivations of one batch, in the order the engine found them.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    /// What was recorded.
    pub derivations: Vec<Derivation>,
}

impl Recorder {
    /// Records that `tuple` of `rel` entered `round` of `phase` at `stratum`, by `rule`'s
    /// instance under `vars` (ignored without a rule).
    #[allow(clippy::too_many_arguments)]
    #[cold]
    pub(crate) fn note(
        &mut self,
        stratum: usize,
        phase: Phase,
        round: usize,
        rel: RelId,
        tuple: &[Value],
        rule: Option<usize>,
        vars: &[Value],
    ) {
        self.derivations.push(Derivation {
            stratum,
            phase,
            round,
            fact: Fact::new(rel, tuple.to_vec()),
            rule,
            binding: if rule.is_some() {
                vars.to_vec()
            } else {
                Vec::new()
            },
        });
    }
}
