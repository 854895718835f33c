//! The model the harness keeps for an external engine: what the engine's answers said, each
//! answer read and checked line by line (a fact added while present, or removed while absent,
//! is refused), so that the engine's model, digest and net change are exactly its words.

use dred_core::{ModelDigest, NetChange, Program, Tuple};

use super::wire::{self, Level};

/// An answer read but not yet folded into the model kept for the engine: reading and
/// checking its lines is the harness's bookkeeping, done in `Engine::settle` after the
/// exchange is timed (as the built-in engines' copies of their models are).
#[derive(Debug)]
pub(super) struct PendingAnswer {
    /// The fact lines.
    pub(super) facts: String,
    /// True for the answer to the program (a whole model at either level).
    pub(super) whole: bool,
    /// The batch it answers (0: materialisation), for messages.
    pub(super) batch: usize,
}

/// What the engine said its IDB is, kept by the harness.
#[derive(Clone, Debug)]
pub(super) struct Held {
    /// Per relation (hashed: an answer's facts are applied one by one, and the sorted
    /// `Model` is built only when asked for).
    pub(super) model: Vec<hashbrown::HashSet<Tuple>>,
    pub(super) digest: ModelDigest,
    pub(super) last_change: NetChange,
}

impl Held {
    pub(super) fn empty(program: &Program) -> Self {
        Held {
            model: vec![hashbrown::HashSet::new(); program.relations.len()],
            digest: ModelDigest::empty(program),
            last_change: NetChange::default(),
        }
    }

    pub(super) fn fold(
        &mut self,
        answer: &PendingAnswer,
        level: Level,
        program: &Program,
        index: &wire::SymbolIndex,
    ) -> Result<(), String> {
        if answer.whole || level == Level::Model {
            self.replace_model(&answer.facts, program, index)
        } else {
            self.apply_changes(&answer.facts, program, index)
        }
    }

    fn apply_changes(
        &mut self,
        facts: &str,
        program: &Program,
        index: &wire::SymbolIndex,
    ) -> Result<(), String> {
        let mut change = NetChange::default();
        let mut tuple = Tuple::new();
        for line in facts.lines() {
            let (sign, rel) = wire::parse_fact(line, program, index, &mut tuple)?;
            if sign == '+' {
                self.digest.add(rel, &tuple);
                if !self.model[rel].insert(tuple.clone()) {
                    return Err(format!("{line:?} adds a fact already in its model"));
                }
                change.added += 1;
            } else {
                self.digest.remove(rel, &tuple);
                if !self.model[rel].remove(tuple.as_slice()) {
                    return Err(format!("{line:?} removes a fact not in its model"));
                }
                change.removed += 1;
            }
        }
        self.last_change = change;
        Ok(())
    }

    fn replace_model(
        &mut self,
        facts: &str,
        program: &Program,
        index: &wire::SymbolIndex,
    ) -> Result<(), String> {
        let mut model = vec![hashbrown::HashSet::new(); program.relations.len()];
        let mut tuple = Tuple::new();
        for line in facts.lines() {
            let (sign, rel) = wire::parse_fact(line, program, index, &mut tuple)?;
            if sign != '+' {
                return Err(format!(
                    "{line:?}: a whole model is given as `+` lines only"
                ));
            }
            if !model[rel].insert(tuple.clone()) {
                return Err(format!("{line:?} is given twice"));
            }
        }
        let mut change = NetChange::default();
        let mut digest = ModelDigest::empty(program);
        for (rel, (old, new)) in self.model.iter().zip(&model).enumerate() {
            change.removed += old.iter().filter(|t| !new.contains(*t)).count();
            change.added += new.iter().filter(|t| !old.contains(*t)).count();
            for t in new {
                digest.add(rel, t);
            }
        }
        self.last_change = change;
        self.digest = digest;
        self.model = model;
        Ok(())
    }
}
