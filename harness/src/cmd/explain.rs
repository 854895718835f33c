//! `dredbench explain`: why each fact of one batch was over-deleted, rederived or inserted, by
//! `dred`, `reference` or `bf` ([`dred_core::explain`]).
//!
//! With `--fact`, that fact's entries in the batch: for each phase, the rule instance that puts
//! it in its round, the place of every body fact, and the chain of triggers down to the update
//! that caused it. Without, a summary: the over-deleted facts grouped by the update their chain
//! starts from, largest groups first. `--json` writes the same as JSON. Every explanation is
//! checked again ([`BatchExplanation::verify`]) before it is printed.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use dred_core::explain::{parse_fact, BatchExplanation, BatchStates, Entry, Place, Source};
use dred_core::program::{Literal, Term};
use dred_core::record::Derivation;
use dred_core::{Batch, Bf, Dred, Engine, Fact, Phase, Program, Reference, Symbols};
use serde_json::{json, Value as Json};

use crate::inputs::read_inputs;
use crate::{BadInput, Outcome};

/// The engines whose batches can be explained: those with DRed's phases and rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExplainEngine {
    /// Production DRed.
    Dred,
    /// DRed over the instance store.
    Reference,
    /// Backward/Forward.
    Bf,
}

/// Arguments of `dredbench explain`.
#[derive(Debug, Clone, Args)]
pub struct ExplainArgs {
    /// The Datalog program (Soufflé subset).
    #[arg(long)]
    pub program: PathBuf,
    /// Directory with one `<relation>.facts` per `.input` relation.
    #[arg(long)]
    pub facts: PathBuf,
    /// The update stream.
    #[arg(long)]
    pub updates: PathBuf,
    /// The batch to explain, from 1 (the batches before it are applied first).
    #[arg(long)]
    pub batch: usize,
    /// A ground fact, e.g. `path("a", "d")`; without it, a summary of the batch.
    #[arg(long)]
    pub fact: Option<String>,
    /// The engine whose phases are explained.
    #[arg(long, value_enum, default_value = "dred")]
    pub engine: ExplainEngine,
    /// Write JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Groups shown by the summary.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
}

/// Runs the engine up to the batch, explains it, prints the explanation.
pub fn run(args: &ExplainArgs) -> anyhow::Result<Outcome> {
    let mut inputs = read_inputs(&args.program, &args.facts, Some(&args.updates), None)?;
    let program = inputs.program.clone();
    let batches = inputs.batches.len();
    if args.batch == 0 || args.batch > batches {
        return Err(BadInput::Other(format!(
            "--batch {}: {} has {batches} batch(es); give one of 1..={batches}",
            args.batch,
            args.updates.display()
        ))
        .into());
    }
    let fact = match &args.fact {
        Some(text) => Some(
            parse_fact(text, &program, &mut inputs.symbols)
                .map_err(|d| BadInput::Located(d.render()))?,
        ),
        None => None,
    };
    let mut checks: Vec<(Fact, bool)> = Vec::new();
    // Each engine records, while it runs the batch, the instance that put each fact into
    // each round; the explanation checks them (`BatchExplanation::verify`).
    let (ran, recorded): (_, Option<Vec<Derivation>>) = match args.engine {
        ExplainEngine::Dred => {
            let mut dred = Dred::new(program.clone());
            // An explanation shows DRed's own frontiers, instance by instance.
            dred.set_saturation(dred_core::dred::production::overdelete::Saturation::Never);
            let ran = drive(&mut dred, &inputs, args.batch, |e, b| {
                record_after_timing(e, b, |e| e.set_recording(true))
            });
            (ran, dred.last_derivations().map(<[Derivation]>::to_vec))
        }
        ExplainEngine::Reference => {
            // The reference records from its instance store; it cannot be copied, so the
            // cost of recording is not measured for it.
            let mut reference = Reference::new(program.clone());
            let ran = drive(&mut reference, &inputs, args.batch, |e, _| {
                e.set_recording(true);
                None
            });
            (
                ran,
                reference.last_derivations().map(<[Derivation]>::to_vec),
            )
        }
        ExplainEngine::Bf => {
            let mut bf = Bf::new(program.clone());
            let ran = drive(&mut bf, &inputs, args.batch, |e, b| {
                record_after_timing(e, b, |e| e.set_recording(true))
            });
            checks = bf.last_checks().to_vec();
            (ran, bf.last_derivations().map(<[Derivation]>::to_vec))
        }
    };
    let (edb, batch, old_model, report, new_model, times) = match ran {
        Ok(r) => r,
        Err(why) => {
            eprintln!("error: engine `{}`: {why}", engine_name(args.engine));
            return Ok(Outcome::EngineFailed);
        }
    };
    let states = BatchStates {
        program: &program,
        old_edb: &edb,
        batch: &batch,
        old_model: &old_model,
        new_model: &new_model,
        rounds: &report.rounds,
        recorded: recorded.as_deref(),
    };
    let x = match BatchExplanation::of(&states).and_then(|x| {
        x.verify(&program, &batch)?;
        Ok(x)
    }) {
        Ok(x) => x,
        Err(why) => {
            eprintln!(
                "error: engine `{}`: batch {}: {why}",
                engine_name(args.engine),
                args.batch
            );
            return Ok(Outcome::EngineFailed);
        }
    };
    let show = Show {
        program: &program,
        symbols: &inputs.symbols,
    };
    let header = Header {
        batch: args.batch,
        engine: engine_name(args.engine),
        recorded: recorded.is_some(),
        times,
    };
    let out = match (&fact, args.json) {
        (Some(f), false) => show.fact_text(&header, &x, f, &checks),
        (Some(f), true) => format!("{:#}\n", show.fact_json(&header, &x, f, &checks)),
        (None, false) => show.summary_text(&header, &x, &batch, &report, args.top),
        (None, true) => format!(
            "{:#}\n",
            show.summary_json(&header, &x, &batch, &report, args.top)
        ),
    };
    // A reader that stops early (`| head`) is not an error.
    use std::io::Write as _;
    match std::io::stdout().lock().write_all(out.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
        _ => {}
    }
    Ok(Outcome::Agree)
}

/// What [`drive`] gives: the EDB before the batch, the batch, the model before it, the
/// engine's report of it and the model after it.
type Driven = (
    dred_core::Edb,
    Batch,
    dred_core::Model,
    dred_core::BatchReport,
    dred_core::Model,
    Option<BatchTimes>,
);

/// The explained batch's time, ns, for an engine that records: on copies of the engine, the
/// best of two runs without recording and of two with, in the order without, with, with,
/// without (so that neither goes first only) — what the recording cost.
#[derive(Clone, Copy, Debug)]
struct BatchTimes {
    recording_ns: u64,
    unrecorded_ns: u64,
}

/// For `dred` and `bf`: times `batch` on copies of the engine without and with recording
/// ([`BatchTimes`]), then turns recording on in the engine itself.
fn record_after_timing<E: Engine + Clone>(
    engine: &mut E,
    batch: &Batch,
    start: impl Fn(&mut E),
) -> Option<BatchTimes> {
    let run = |recording: bool| -> Option<u64> {
        let mut copy = engine.clone();
        if recording {
            start(&mut copy);
        }
        let t = std::time::Instant::now();
        copy.apply(batch).ok()?;
        Some(u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX))
    };
    let (without1, with1, with2, without2) = (run(false)?, run(true)?, run(true)?, run(false)?);
    start(engine);
    Some(BatchTimes {
        recording_ns: with1.min(with2),
        unrecorded_ns: without1.min(without2),
    })
}

/// Materialises, applies the batches before `batch` (from 1), then `batch`, with facts traced.
/// Runs `engine` up to batch `batch`, calling `before` just before that batch (to start
/// recording: the batches before it run as usual); `before` returns the batch's times with
/// and without recording, when it measured them.
fn drive<E: Engine>(
    engine: &mut E,
    inputs: &crate::inputs::Inputs,
    batch: usize,
    before: impl FnOnce(&mut E, &Batch) -> Option<BatchTimes>,
) -> Result<Driven, String> {
    engine.set_trace_facts(true);
    let mut edb = inputs.edb.clone();
    engine.materialise(&edb).map_err(|e| e.to_string())?;
    for requested in &inputs.batches[..batch - 1] {
        let b = Batch::normalise(requested, &edb);
        engine.apply(&b).map_err(|e| e.to_string())?;
        edb.apply(&b);
    }
    let b = Batch::normalise(&inputs.batches[batch - 1], &edb);
    let old_model = engine.model();
    let times = before(engine, &b);
    let report = engine.apply(&b).map_err(|e| e.to_string())?;
    let new_model = engine.model();
    Ok((edb, b, old_model, report, new_model, times))
}

fn engine_name(e: ExplainEngine) -> &'static str {
    match e {
        ExplainEngine::Dred => "dred",
        ExplainEngine::Reference => "reference",
        ExplainEngine::Bf => "bf",
    }
}

struct Header {
    batch: usize,
    engine: &'static str,
    /// The instances are those the engine recorded while it ran (else found after).
    recorded: bool,
    times: Option<BatchTimes>,
}

impl Header {
    /// What recording cost the batch, when measured.
    fn timing(&self) -> String {
        match self.times {
            Some(t) => format!(
                "; the batch took {:.1} µs recording and {:.1} µs without (best of two runs \
                 each, on copies of the engine)",
                t.recording_ns as f64 / 1e3,
                t.unrecorded_ns as f64 / 1e3
            ),
            None => String::new(),
        }
    }

    /// How the instances shown were obtained.
    fn how(&self) -> &'static str {
        match (self.recorded, self.engine) {
            (true, "reference") => {
                "recorded: an instance of the engine's instance store, while it ran the batch"
            }
            (true, _) => "recorded: the first instance the engine found, while it ran the batch",
            (false, _) => "searched: an instance found after the batch (this engine records none)",
        }
    }
}

/// How facts, rules and places are written.
struct Show<'a> {
    program: &'a Program,
    symbols: &'a Symbols,
}

/// The verb of a phase's set.
fn verb(phase: Phase) -> &'static str {
    match phase {
        Phase::Overdelete => "over-deleted",
        Phase::Delete => "deleted",
        Phase::Rederive => "rederived",
        Phase::Insert => "inserted",
    }
}

impl Show<'_> {
    fn fact(&self, f: &Fact) -> String {
        self.program.fact_to_string(self.symbols, f.rel, &f.tuple)
    }

    fn term(
        &self,
        rule: &dred_core::program::Rule,
        t: &Term,
        ty: dred_core::syntax::ast::Type,
    ) -> String {
        match t {
            Term::Var(x) => rule.var_names[*x].clone(),
            Term::Const(c) => self.symbols.display(ty, *c),
            Term::Wildcard => "_".into(),
        }
    }

    fn atom(&self, rule: &dred_core::program::Rule, a: &dred_core::program::Atom) -> String {
        let types = &self.program.relations[a.rel].types;
        let args: Vec<String> = a
            .args
            .iter()
            .zip(types)
            .map(|(t, &ty)| self.term(rule, t, ty))
            .collect();
        format!(
            "{}({})",
            self.program.relations[a.rel].name,
            args.join(", ")
        )
    }

    /// The rule as the checked program has it (aggregates rewritten, `@agg` relations named).
    fn rule(&self, ri: usize) -> String {
        let rule = &self.program.rules[ri];
        let body: Vec<String> = rule
            .body
            .iter()
            .map(|l| match l {
                Literal::Positive(a) => self.atom(rule, a),
                Literal::Negative(a) => format!("!{}", self.atom(rule, a)),
                Literal::Compare { left, op, right } => {
                    let ty = [left, right]
                        .into_iter()
                        .find_map(|t| match t {
                            Term::Var(v) => rule.var_types.get(*v).copied(),
                            _ => None,
                        })
                        .unwrap_or(dred_core::syntax::ast::Type::Number);
                    format!(
                        "{} {} {}",
                        self.term(rule, left, ty),
                        op.symbol(),
                        self.term(rule, right, ty)
                    )
                }
                Literal::Assign { var, expr } => {
                    // The constants of an expression have its variable's type (but those
                    // under a conversion, which have the operand's).
                    let ty = rule.var_types[*var];
                    format!(
                        "{} = {}",
                        self.term(rule, &Term::Var(*var), ty),
                        expr.display(&|t| self.term(rule, &t, ty))
                    )
                }
            })
            .collect();
        format!("{} :- {}.", self.atom(rule, &rule.head), body.join(", "))
    }

    fn place(&self, place: Place, phase: Phase) -> String {
        match (place, phase) {
            (Place::Round(k), p) => format!("{} in round {k}", verb(p)),
            (Place::LostBelow, _) => "lost by a level below".into(),
            (Place::GainedBelow, _) => "gained by a level below".into(),
            (Place::Held, Phase::Overdelete | Phase::Delete) => "in the old model".into(),
            (Place::Held, Phase::Rederive) => "kept (not over-deleted, or below)".into(),
            (Place::Held, Phase::Insert) => "in the model".into(),
        }
    }

    /// One step: `round k  fact  by  rule` and its body, or why it needs no rule.
    fn step_text(&self, f: &Fact, e: &Entry) -> String {
        match &e.source {
            Source::Update => format!(
                "round {}  {}  {} by the batch ({})\n",
                e.round,
                self.fact(f),
                if e.phase == Phase::Insert {
                    "inserted"
                } else {
                    "deleted"
                },
                if e.phase == Phase::Insert { "A+" } else { "D-" }
            ),
            Source::ProgramFact => format!(
                "round {}  {}  a fact of the program\n",
                e.round,
                self.fact(f)
            ),
            Source::AggregateGroup => format!(
                "round {}  {}  an aggregate row of a group whose input changed below\n",
                e.round,
                self.fact(f)
            ),
            Source::Instance(i) => {
                let mut s = format!(
                    "round {}  {}  by  {}\n",
                    e.round,
                    self.fact(f),
                    self.rule(i.rule)
                );
                let body: Vec<String> = i
                    .body
                    .iter()
                    .map(|b| format!("{} [{}]", self.fact(&b.fact), self.place(b.place, e.phase)))
                    .collect();
                s.push_str(&format!("           body: {}\n", body.join(", ")));
                if let Some(t) = &i.trigger {
                    if !i.body.iter().any(|b| b.fact == t.fact) {
                        s.push_str(&format!(
                            "           through a negated atom: {} [{}]\n",
                            self.fact(&t.fact),
                            self.place(t.place, e.phase)
                        ));
                    }
                }
                s
            }
        }
    }

    fn fact_text(
        &self,
        h: &Header,
        x: &BatchExplanation,
        f: &Fact,
        checks: &[(Fact, bool)],
    ) -> String {
        let mut s = format!(
            "{}, batch {}, engine {}: {}\ninstances {}\n",
            self.fact(f),
            h.batch,
            h.engine,
            presence(x, f),
            h.how()
        );
        if let Some((_, proved)) = checks.iter().find(|(c, _)| c == f) {
            s.push_str(if *proved {
                "checked by bf: a derivation from facts still proved was found, so it was kept\n"
            } else {
                "checked by bf: no derivation from facts still proved, so it was deleted\n"
            });
        }
        let entries = x.of_fact(f);
        if entries.is_empty() {
            s.push_str(if x.was_present(f) && x.is_present(f) {
                "unchanged: the batch did not touch it\n"
            } else if x.was_present(f) || x.is_present(f) {
                "not in a round of this engine\n"
            } else {
                "not in the model\n"
            });
            return s;
        }
        for e in entries {
            s.push_str(&format!(
                "{} in round {} of level {} ({}):\n",
                verb(e.phase),
                e.round,
                e.stratum,
                e.phase.name()
            ));
            let mut at = (e.stratum, e.phase);
            for (g, step) in x.chain(f, e) {
                if (step.stratum, step.phase) != at {
                    at = (step.stratum, step.phase);
                    // The chain went on below, through the change that seeded this level.
                    s.push_str(&format!(
                        "  {} at level {} ({}):\n",
                        verb(step.phase),
                        step.stratum,
                        step.phase.name()
                    ));
                }
                s.push_str("  ");
                s.push_str(&self.step_text(g, step));
            }
        }
        s
    }

    fn entry_json(&self, f: &Fact, e: &Entry) -> Json {
        let mut j = json!({
            "fact": self.fact(f),
            "phase": e.phase.name(),
            "stratum": e.stratum,
            "round": e.round,
        });
        match &e.source {
            Source::Update => j["source"] = json!("update"),
            Source::ProgramFact => j["source"] = json!("program fact"),
            Source::AggregateGroup => j["source"] = json!("aggregate group"),
            Source::Instance(i) => {
                j["source"] = json!("instance");
                j["rule"] = json!(self.rule(i.rule));
                j["body"] = Json::Array(
                    i.body
                        .iter()
                        .map(|b| json!({"fact": self.fact(&b.fact), "place": place_key(b.place)}))
                        .collect(),
                );
                if let Some(t) = &i.trigger {
                    j["trigger"] = json!({"fact": self.fact(&t.fact), "place": place_key(t.place)});
                }
            }
        }
        j
    }

    fn fact_json(
        &self,
        h: &Header,
        x: &BatchExplanation,
        f: &Fact,
        checks: &[(Fact, bool)],
    ) -> Json {
        let checked = checks
            .iter()
            .find(|(c, _)| c == f)
            .map(|(_, proved)| *proved);
        let entries: Vec<Json> = x
            .of_fact(f)
            .iter()
            .map(|e| {
                let chain: Vec<Json> = x
                    .chain(f, e)
                    .into_iter()
                    .map(|(g, step)| self.entry_json(g, step))
                    .collect();
                json!({"phase": e.phase.name(), "stratum": e.stratum, "round": e.round, "chain": chain})
            })
            .collect();
        json!({
            "fact": self.fact(f),
            "batch": h.batch,
            "engine": h.engine,
            "recorded": h.recorded,
            "before": x.was_present(f),
            "after": x.is_present(f),
            "entries": entries,
            "bf_check": checked.map(|p| if p { "proved" } else { "disproved" }),
        })
    }

    fn counts(&self, x: &BatchExplanation) -> [usize; 3] {
        let mut n = [0; 3];
        for (f, es) in &x.entries {
            if !self.program.is_idb(f.rel) {
                continue;
            }
            for e in es {
                n[match e.phase {
                    Phase::Overdelete | Phase::Delete => 0,
                    Phase::Rederive => 1,
                    Phase::Insert => 2,
                }] += 1;
            }
        }
        n
    }

    fn summary_text(
        &self,
        h: &Header,
        x: &BatchExplanation,
        batch: &Batch,
        report: &dred_core::BatchReport,
        top: usize,
    ) -> String {
        let [over, re, ins] = self.counts(x);
        let mut s = format!(
            "batch {}, engine {}: D- {} fact(s), A+ {}; {} {over} derived fact(s), rederived \
             {re}, inserted {ins}; {} round(s)\ninstances {}{}\n",
            h.batch,
            h.engine,
            batch.deletions.len(),
            batch.insertions.len(),
            if h.engine == "bf" {
                "deleted"
            } else {
                "over-deleted"
            },
            report.rounds.len(),
            h.how(),
            h.timing()
        );
        let groups = x.overdeletion_groups(self.program);
        if groups.is_empty() {
            s.push_str("nothing over-deleted\n");
            return s;
        }
        s.push_str("over-deleted facts by the change their chain starts from, largest first:\n");
        for (root, facts) in groups.iter().take(top) {
            let examples: Vec<String> = facts.iter().take(4).map(|f| self.fact(f)).collect();
            s.push_str(&format!(
                "  {:>8}  {}  e.g. {}{}\n",
                facts.len(),
                self.fact(root),
                examples.join(", "),
                if facts.len() > 4 { ", …" } else { "" }
            ));
        }
        if groups.len() > top {
            s.push_str(&format!(
                "  … {} more group(s) (--top)\n",
                groups.len() - top
            ));
        }
        s
    }

    fn summary_json(
        &self,
        h: &Header,
        x: &BatchExplanation,
        batch: &Batch,
        report: &dred_core::BatchReport,
        top: usize,
    ) -> Json {
        let [over, re, ins] = self.counts(x);
        let groups: Vec<Json> = x
            .overdeletion_groups(self.program)
            .iter()
            .take(top)
            .map(|(root, facts)| {
                json!({
                    "root": self.fact(root),
                    "count": facts.len(),
                    "facts": facts.iter().map(|f| self.fact(f)).collect::<Vec<_>>(),
                })
            })
            .collect();
        json!({
            "batch": h.batch,
            "engine": h.engine,
            "recorded": h.recorded,
            "batch_ns_recording": h.times.map(|t| t.recording_ns),
            "batch_ns_unrecorded": h.times.map(|t| t.unrecorded_ns),
            "deletions": batch.deletions.len(),
            "insertions": batch.insertions.len(),
            "overdeleted": over,
            "rederived": re,
            "inserted": ins,
            "rounds": report.rounds.len(),
            "groups": groups,
        })
    }
}

fn presence(x: &BatchExplanation, f: &Fact) -> &'static str {
    match (x.was_present(f), x.is_present(f)) {
        (true, true) => "in the model before the batch and after it",
        (true, false) => "in the model before the batch, not after it",
        (false, true) => "not in the model before the batch, in it after",
        (false, false) => "in the model neither before nor after the batch",
    }
}

fn place_key(p: Place) -> Json {
    match p {
        Place::Round(k) => json!({"round": k}),
        Place::LostBelow => json!("lost below"),
        Place::GainedBelow => json!("gained below"),
        Place::Held => json!("held"),
    }
}
