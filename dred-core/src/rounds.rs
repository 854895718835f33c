//! The guard on fixpoint rounds: arithmetic in a recursive rule can derive new values forever
//! (`p(x + 1) :- p(x).`), as in Soufflé. Every set-based engine's semi-naive loop (and the
//! oracle's naive one) counts its rounds and stops after [`max_rounds`] in one fixpoint, by a
//! panic whose payload is a [`RoundLimitExceeded`] rather than a hang; the harness
//! (`dredbench`) catches it and reports the engine's failure with this message (exit 1), and
//! sets the limit from `--max-rounds`.
//!
//! Why a panic and a process-wide limit: the loops sit deep in every engine's batch
//! (materialisation, insertion at each level, rederivation's levels), below functions that
//! return no error, and no program that terminates comes near the limit: the guard is a
//! way out of a non-terminating evaluation, not a result.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The limit when none is set: far above any terminating program's depth here (the deepest
/// shipped recursion, `gen:chain`'s 70,000-node path, takes 70,000 rounds).
pub const DEFAULT_MAX_ROUNDS: usize = 1_000_000;

static MAX_ROUNDS: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_ROUNDS);

/// Sets the most rounds one fixpoint may take, for every engine of the process (at least 1).
pub fn set_max_rounds(rounds: usize) {
    MAX_ROUNDS.store(rounds.max(1), Ordering::Relaxed);
}

/// The most rounds one fixpoint may take ([`DEFAULT_MAX_ROUNDS`] unless set).
pub fn max_rounds() -> usize {
    MAX_ROUNDS.load(Ordering::Relaxed)
}

/// The payload of the panic that ends a fixpoint past [`max_rounds`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the fixpoint of {relations} did not end within {rounds} rounds (--max-rounds): \
     arithmetic in a recursive rule may derive new values without end"
)]
pub struct RoundLimitExceeded {
    /// The limit passed.
    pub rounds: usize,
    /// The relations being evaluated, named for the message.
    pub relations: String,
}

/// Called with the number of a round about to run: ends the evaluation when it passes the
/// limit. `relations` names what is being evaluated, computed only then.
#[inline]
pub fn check(round: usize, relations: impl FnOnce() -> String) {
    let limit = max_rounds();
    if round > limit {
        std::panic::panic_any(RoundLimitExceeded {
            rounds: limit,
            relations: relations(),
        });
    }
}

/// The names of `rels` in `program`, for [`check`]'s message.
pub fn names(program: &crate::Program, rels: impl IntoIterator<Item = crate::RelId>) -> String {
    let names: Vec<&str> = rels
        .into_iter()
        .map(|r| program.relations[r].name.as_str())
        .collect();
    format!("`{}`", names.join("`, `"))
}
