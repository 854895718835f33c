//! Update streams generated from a dataset: random or targeted changes of one EDB relation,
//! edits of whole functions across every EDB relation of a program-analysis dataset
//! ([`UpdateKind::FunctionEdit`]), or the upgrade of a crate from one version to another,
//! function by function ([`UpdateKind::VersionEdit`]), in batches, seeded and reproducible
//! (the protocol is in `results/METHODOLOGY.md`).
//!
//! The generator keeps the current EDB as the stream goes: batch *i* is drawn from the state
//! after batches 1 … *i*−1, so every requested deletion names a present fact and every
//! requested insertion an absent one — each request is effective (`eff_del = req_del`,
//! `eff_ins = req_ins` in reports). With `revert`, every batch is followed by its inverse, so
//! each odd batch starts from the original EDB.
//!
//! A version edit needs a second EDB, the other version's, read against the same program
//! into the same symbol table: [`version_edit_stream`] takes it, [`generate_stream_reading`]
//! reads it from the dataset [`StreamSpec::to`] names (what `sweep` does), and
//! [`generate_stream`] refuses the kind.
//!
//! Reproducibility: the facts of the relation are first put in output order (column by
//! column, symbols by text, numbers numerically; functions by name), never in hash or
//! interning order, and all draws come from [`SplitMix64`] seeded with the stream's seed. The
//! same `.facts` files and the same [`StreamSpec`] therefore give the same stream, byte for
//! byte, on every platform.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::ValueEnum;
use dred_core::io::{self, format_tuple_raw, sorted_for_output};
use dred_core::syntax::ast::Type;
use dred_core::{Edb, Fact, Program, RelId, RequestedBatch, Symbols, Tuple, Value};

use crate::datasets::graph::Adjacency;
use crate::datasets::rng::SplitMix64;

/// What each batch of a stream changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ValueEnum)]
pub enum UpdateKind {
    /// Delete `size` facts drawn uniformly without replacement from the current facts.
    Delete,
    /// Insert `size` new facts: each column drawn uniformly from the values of its type in
    /// the relation's original facts, redrawn while the fact is present (or, for a binary
    /// relation over one type, a self-loop).
    Insert,
    /// `⌊size/2⌋` deletions and `⌈size/2⌉` insertions, drawn as above; an insertion never
    /// names a fact deleted in the same batch.
    Mixed,
    /// Delete `size` edges drawn uniformly from the edges inside the largest strongly
    /// connected component of the current graph (ties: the component whose smallest node
    /// name is smallest): cyclic support, DRed's worst case.
    SccDelete,
    /// Delete `size` edges x → y that are the only path from x to y in the current graph
    /// (no alternative route), so each deletion shrinks the transitive closure. Edges are
    /// tried in a seeded random order; at most `max(1000, 50 × size)` are tested per batch.
    BridgeDelete,
    /// Delete `size` edges drawn uniformly from the edges at the hubs of the current graph:
    /// nodes are ranked by degree (in plus out; ties: the smallest name first) and taken in
    /// that order until the edges at them number at least `size`. A hub's edges carry many
    /// paths, so DRed's over-deletion from each is large.
    HubDelete,
    /// An edit of `size` functions of a program-analysis dataset: each batch deletes every
    /// fact of `size` functions drawn uniformly without replacement, across every `.input`
    /// relation of the program (or only the one named by [`StreamSpec::relation`]). A fact
    /// belongs to function `F` when the value of its first `symbol` column is `F::…` (`F`
    /// non-empty, up to the first `::`), as `rust-nll:` datasets prefix every value; the
    /// functions are the prefixes found in the facts, so only functions with at least one
    /// fact in the relations read are drawn and no edit is empty. Without `revert` no
    /// function is drawn twice in a stream; with it, each edit is followed by its inverse
    /// (the function put back: an edit that changes nothing, whose cost is the function's).
    /// A dataset whose values carry no such prefix is an error.
    FunctionEdit,
    /// The upgrade of a program-analysis dataset to another version of it
    /// ([`StreamSpec::to`]: the run's dataset is the old version), `size` functions per
    /// batch. Functions are found as for [`UpdateKind::FunctionEdit`], in every `.input`
    /// relation (or the one named), in both versions. A function whose facts differ between
    /// the versions is *changed*: its batch deletes the facts only the old version has and
    /// inserts those only the new one has (a fact of both stays: deleting and inserting it in
    /// one batch would not be an effective request, and changes nothing); a function only in
    /// the old version is *removed* (all its facts deleted), one only in the new *added* (all
    /// its facts inserted); unchanged functions are never touched. Facts of no function, if
    /// they differ, are edited as one more unit, `(no function)`. The edited functions are
    /// put in a seeded random order and taken `size` at a time, each once, so the batches
    /// walk from the old version to the new and the last reaches exactly the new version's
    /// facts in the relations read; `batches` caps the walk (a size above the number of
    /// edited functions gives one batch, the whole upgrade). With `revert`, each batch is
    /// followed by its inverse (the functions put back to the old version), so every batch
    /// starts from the old version. Two versions whose facts carry no function prefix, or
    /// that hold the same facts, are an error.
    VersionEdit,
}

impl UpdateKind {
    /// The name used on the command line and in stream headers.
    pub fn name(self) -> &'static str {
        match self {
            UpdateKind::Delete => "delete",
            UpdateKind::Insert => "insert",
            UpdateKind::Mixed => "mixed",
            UpdateKind::SccDelete => "scc-delete",
            UpdateKind::BridgeDelete => "bridge-delete",
            UpdateKind::HubDelete => "hub-delete",
            UpdateKind::FunctionEdit => "function-edit",
            UpdateKind::VersionEdit => "version-edit",
        }
    }
}

/// What stream to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamSpec {
    /// The kind of change.
    pub kind: UpdateKind,
    /// Changes per batch (k).
    pub size: usize,
    /// Number of batches (before reverts).
    pub batches: usize,
    /// The seed.
    pub seed: u64,
    /// The `.input` relation to change; `None` means `edge` if the program has it, else its
    /// only `.input` relation — and, for [`UpdateKind::FunctionEdit`], every `.input`
    /// relation (a name restricts the edits to that relation).
    pub relation: Option<String>,
    /// Follow every batch by its inverse.
    pub revert: bool,
    /// For [`UpdateKind::VersionEdit`]: the dataset of the version to upgrade to (a name or
    /// a directory, as the run's dataset, which is the version upgraded from); `None` for
    /// the other kinds.
    pub to: Option<String>,
}

/// Why no stream could be generated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UpdateError {
    /// The relation to change is missing, not an input, or of the wrong shape for the kind.
    #[error("{0}")]
    Relation(String),
    /// The dataset cannot supply the requested changes.
    #[error("{0}")]
    Exhausted(String),
    /// The other version of a version edit is missing, unreadable or unlike the first.
    #[error("{0}")]
    Target(String),
}

/// One generated batch: facts of the stream's relations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GenBatch {
    /// Facts to delete (all present before the batch), by relation in program order, each
    /// relation's in output order.
    pub deletions: Vec<Fact>,
    /// Facts to insert (all absent before the batch), ordered as the deletions.
    pub insertions: Vec<Fact>,
    /// A remark written as a comment before the batch (what was targeted, shortfalls).
    pub note: String,
}

/// A generated stream.
#[derive(Clone, Debug)]
pub struct Stream {
    /// The relations the stream was drawn from, in program order: the one relation changed,
    /// or for [`UpdateKind::FunctionEdit`] every relation whose facts were searched for
    /// functions. Every fact of every batch is of one of them.
    pub relations: Vec<RelId>,
    /// The batches in order (with reverts interleaved when asked).
    pub batches: Vec<GenBatch>,
    /// What the stream was drawn from, beyond the relations (for function edits: how many
    /// functions, and the facts that belong to none), for the stream's header; may be empty.
    pub source: String,
}

impl Stream {
    /// The batches as requests, in order, for [`dred_core::Batch::normalise`].
    pub fn requested_batches(&self) -> Vec<RequestedBatch> {
        self.batches
            .iter()
            .map(|b| RequestedBatch {
                deletions: b.deletions.clone(),
                insertions: b.insertions.clone(),
            })
            .collect()
    }
}

/// Picks the relation a stream changes (see [`StreamSpec::relation`]).
pub fn choose_relation(program: &Program, wanted: Option<&str>) -> Result<RelId, UpdateError> {
    if let Some(name) = wanted {
        let rel = program.input_id(name).ok_or_else(|| {
            UpdateError::Relation(format!("the program declares no relation `{name}`"))
        })?;
        if !program.relations[rel].input {
            return Err(UpdateError::Relation(format!(
                "`{name}` is not an `.input` relation; only EDB facts can be updated"
            )));
        }
        return Ok(rel);
    }
    if let Some(rel) = program.relation_id("edge") {
        if program.relations[rel].input {
            return Ok(rel);
        }
    }
    let inputs: Vec<RelId> = (0..program.relations.len())
        .filter(|&r| program.relations[r].input)
        .collect();
    match inputs.as_slice() {
        [one] => Ok(*one),
        [] => Err(UpdateError::Relation("the program has no `.input` relation".into())),
        _ => Err(UpdateError::Relation(
            "the program has several `.input` relations and none is `edge`: name one with --relation"
                .into(),
        )),
    }
}

/// The current facts of the relation while a stream is generated.
struct State {
    facts: Vec<Tuple>,
    present: HashSet<Tuple>,
}

impl State {
    fn remove_indices(&mut self, mut idx: Vec<usize>) -> Vec<Tuple> {
        // Descending, so that swap_remove never moves a fact still to be removed.
        idx.sort_unstable_by(|a, b| b.cmp(a));
        idx.dedup();
        let mut out = Vec::with_capacity(idx.len());
        for i in idx {
            let t = self.facts.swap_remove(i);
            self.present.remove(&t);
            out.push(t);
        }
        out
    }

    fn insert(&mut self, t: Tuple) {
        self.present.insert(t.clone());
        self.facts.push(t);
    }
}

/// Generates a stream from the EDB of a checked program.
pub fn generate_stream(
    program: &Program,
    symbols: &Symbols,
    edb: &Edb,
    spec: &StreamSpec,
) -> Result<Stream, UpdateError> {
    match spec.kind {
        UpdateKind::FunctionEdit => return function_edit_stream(program, symbols, edb, spec),
        UpdateKind::VersionEdit => {
            return Err(UpdateError::Target(
                "--kind version-edit needs the facts of the version to upgrade to (--to \
                 OTHER_DATASET), read with the dataset's symbols"
                    .into(),
            ))
        }
        _ => {}
    }
    let rel = choose_relation(program, spec.relation.as_deref())?;
    let decl = &program.relations[rel];
    let types = decl.types.clone();
    let graph_like = types.len() == 2 && types[0] == types[1];
    if matches!(
        spec.kind,
        UpdateKind::SccDelete | UpdateKind::BridgeDelete | UpdateKind::HubDelete
    ) && !graph_like
    {
        return Err(UpdateError::Relation(format!(
            "--kind {} needs a binary relation with both columns of one type (a graph); `{}` is not",
            spec.kind.name(),
            decl.name
        )));
    }
    if types.is_empty() && matches!(spec.kind, UpdateKind::Insert | UpdateKind::Mixed) {
        return Err(UpdateError::Relation(format!(
            "`{}` has no columns: there is at most one fact to insert",
            decl.name
        )));
    }
    let ordered: Vec<Tuple> = sorted_for_output(&types, edb.relations[rel].iter(), symbols)
        .into_iter()
        .cloned()
        .collect();
    // The values of each column type, in output order: the domain of new facts.
    let mut domains: HashMap<Type, Vec<Value>> = HashMap::new();
    for &ty in &types {
        if domains.contains_key(&ty) {
            continue;
        }
        let mut vals: BTreeSet<Value> = BTreeSet::new();
        for t in &ordered {
            for (c, &cty) in types.iter().enumerate() {
                if cty == ty {
                    vals.insert(t[c]);
                }
            }
        }
        let mut v: Vec<Value> = vals.into_iter().collect();
        match ty {
            Type::Symbol => v.sort_by_key(|a| symbols.name(*a)),
            // The numeric encodings keep order (`dred_core::value::encode_float`).
            _ => v.sort_unstable(),
        }
        domains.insert(ty, v);
    }
    let mut state = State {
        present: ordered.iter().cloned().collect(),
        facts: ordered,
    };
    let mut rng = SplitMix64::new(spec.seed);
    // The batches as tuples of `rel` while drawing; made facts at the end.
    let mut batches: Vec<TupleBatch> = Vec::new();
    for b in 1..=spec.batches {
        let mut batch = TupleBatch::default();
        match spec.kind {
            UpdateKind::Delete => {
                batch.deletions = delete_uniform(&mut state, &mut rng, spec.size, b)?;
            }
            UpdateKind::Insert => {
                batch.insertions = insert_new(
                    &mut state,
                    &mut rng,
                    spec.size,
                    &types,
                    &domains,
                    &HashSet::new(),
                    b,
                )?;
            }
            UpdateKind::Mixed => {
                let d = spec.size / 2;
                batch.deletions = delete_uniform(&mut state, &mut rng, d, b)?;
                let gone: HashSet<Tuple> = batch.deletions.iter().cloned().collect();
                batch.insertions = insert_new(
                    &mut state,
                    &mut rng,
                    spec.size - d,
                    &types,
                    &domains,
                    &gone,
                    b,
                )?;
            }
            UpdateKind::SccDelete => {
                let (dels, note) =
                    delete_in_largest_scc(&mut state, &mut rng, spec.size, symbols, b)?;
                batch.deletions = dels;
                batch.note = note;
            }
            UpdateKind::BridgeDelete => {
                let (dels, note) = delete_bridges(&mut state, &mut rng, spec.size, b)?;
                batch.deletions = dels;
                batch.note = note;
            }
            UpdateKind::HubDelete => {
                let (dels, note) = delete_at_hubs(&mut state, &mut rng, spec.size, symbols, b)?;
                batch.deletions = dels;
                batch.note = note;
            }
            UpdateKind::FunctionEdit | UpdateKind::VersionEdit => {
                unreachable!("function and version edits are drawn above")
            }
        }
        batch.deletions = sorted_for_output(&types, batch.deletions.iter(), symbols)
            .into_iter()
            .cloned()
            .collect();
        batch.insertions = sorted_for_output(&types, batch.insertions.iter(), symbols)
            .into_iter()
            .cloned()
            .collect();
        let inverse = spec.revert.then(|| TupleBatch {
            deletions: batch.insertions.clone(),
            insertions: batch.deletions.clone(),
            note: format!("revert batch {}", batches.len() + 1),
        });
        batches.push(batch);
        if let Some(inv) = inverse {
            // Restore the state: what was deleted comes back, what was inserted goes.
            let drop: HashSet<&Tuple> = inv.deletions.iter().collect();
            let idx: Vec<usize> = (0..state.facts.len())
                .filter(|&i| drop.contains(&state.facts[i]))
                .collect();
            state.remove_indices(idx);
            for t in &inv.insertions {
                state.insert(t.clone());
            }
            batches.push(inv);
        }
    }
    let facts =
        |ts: Vec<Tuple>| -> Vec<Fact> { ts.into_iter().map(|t| Fact::new(rel, t)).collect() };
    Ok(Stream {
        relations: vec![rel],
        batches: batches
            .into_iter()
            .map(|b| GenBatch {
                deletions: facts(b.deletions),
                insertions: facts(b.insertions),
                note: b.note,
            })
            .collect(),
        source: String::new(),
    })
}

/// One batch of a single-relation stream while it is drawn.
#[derive(Default)]
struct TupleBatch {
    deletions: Vec<Tuple>,
    insertions: Vec<Tuple>,
    note: String,
}

/// Draws `k` distinct indices of `0..n` uniformly (partial Fisher–Yates over a sparse map).
fn sample_indices(rng: &mut SplitMix64, n: usize, k: usize) -> Vec<usize> {
    let mut swapped: HashMap<usize, usize> = HashMap::new();
    let mut out = Vec::with_capacity(k);
    for i in 0..k.min(n) {
        let j = i + rng.index(n - i);
        let vj = *swapped.get(&j).unwrap_or(&j);
        let vi = *swapped.get(&i).unwrap_or(&i);
        swapped.insert(j, vi);
        out.push(vj);
    }
    out
}

fn delete_uniform(
    state: &mut State,
    rng: &mut SplitMix64,
    k: usize,
    batch: usize,
) -> Result<Vec<Tuple>, UpdateError> {
    if k > state.facts.len() {
        return Err(UpdateError::Exhausted(format!(
            "batch {batch}: cannot delete {k} facts, only {} are left",
            state.facts.len()
        )));
    }
    let idx = sample_indices(rng, state.facts.len(), k);
    Ok(state.remove_indices(idx))
}

fn insert_new(
    state: &mut State,
    rng: &mut SplitMix64,
    k: usize,
    types: &[Type],
    domains: &HashMap<Type, Vec<Value>>,
    excluded: &HashSet<Tuple>,
    batch: usize,
) -> Result<Vec<Tuple>, UpdateError> {
    let graph_like = types.len() == 2 && types[0] == types[1];
    let mut out = Vec::with_capacity(k);
    let budget = 1000 + 100 * k;
    let mut tries = 0;
    while out.len() < k {
        tries += 1;
        if tries > budget {
            return Err(UpdateError::Exhausted(format!(
                "batch {batch}: found only {} new facts in {budget} draws; the relation is \
                 (nearly) complete over its values",
                out.len()
            )));
        }
        let mut t = Vec::with_capacity(types.len());
        for ty in types {
            let d = &domains[ty];
            if d.is_empty() {
                return Err(UpdateError::Exhausted(format!(
                    "batch {batch}: the relation has no facts, so no values to build new ones from"
                )));
            }
            t.push(d[rng.index(d.len())]);
        }
        if (graph_like && t[0] == t[1]) || state.present.contains(&t) || excluded.contains(&t) {
            continue;
        }
        state.insert(t.clone());
        out.push(t);
    }
    Ok(out)
}

/// Dense node numbers for the current edges, with the names used for tie-breaks.
struct CurrentGraph {
    nodes: Vec<Value>,
    edges: Vec<(u32, u32)>,
    adj: Adjacency,
}

fn current_graph(state: &State) -> CurrentGraph {
    let mut ids: HashMap<Value, u32> = HashMap::new();
    let mut nodes = Vec::new();
    let mut id = |v: Value, nodes: &mut Vec<Value>| {
        *ids.entry(v).or_insert_with(|| {
            nodes.push(v);
            (nodes.len() - 1) as u32
        })
    };
    let edges: Vec<(u32, u32)> = state
        .facts
        .iter()
        .map(|t| (id(t[0], &mut nodes), id(t[1], &mut nodes)))
        .collect();
    let adj = Adjacency::new(nodes.len(), edges.iter().copied());
    CurrentGraph { nodes, edges, adj }
}

fn delete_in_largest_scc(
    state: &mut State,
    rng: &mut SplitMix64,
    k: usize,
    symbols: &Symbols,
    batch: usize,
) -> Result<(Vec<Tuple>, String), UpdateError> {
    let g = current_graph(state);
    let comp = g.adj.scc();
    let ncomp = comp.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
    let mut size = vec![0usize; ncomp];
    let mut least: Vec<Option<std::sync::Arc<str>>> = vec![None; ncomp];
    for (v, &c) in comp.iter().enumerate() {
        size[c as usize] += 1;
        let name = symbols.name(g.nodes[v]);
        let slot = &mut least[c as usize];
        if slot.is_none() || name < *slot {
            *slot = name;
        }
    }
    let best = (0..ncomp).min_by(|&a, &b| size[b].cmp(&size[a]).then(least[a].cmp(&least[b])));
    let Some(best) = best.filter(|&c| size[c] > 1) else {
        return Err(UpdateError::Exhausted(format!(
            "batch {batch}: the graph has no cycle (every strongly connected component is a single node), so there is no edge inside one to delete"
        )));
    };
    let candidates: Vec<usize> = g
        .edges
        .iter()
        .enumerate()
        .filter(|(_, &(a, b))| {
            a != b && comp[a as usize] == best as u32 && comp[b as usize] == best as u32
        })
        .map(|(i, _)| i)
        .collect();
    let note = format!(
        "largest strongly connected component: {} nodes, {} edges inside",
        size[best],
        candidates.len()
    );
    Ok(delete_sample(state, rng, &candidates, k, note))
}

/// Deletes `k` of the facts at `candidates` (indices into the state's facts), drawn
/// uniformly, or all of them when there are fewer; `note` then says so.
fn delete_sample(
    state: &mut State,
    rng: &mut SplitMix64,
    candidates: &[usize],
    k: usize,
    mut note: String,
) -> (Vec<Tuple>, String) {
    let take = k.min(candidates.len());
    if take < k {
        let _ = write!(
            note,
            "; only {take} of the {k} deletions asked for are possible"
        );
    }
    let idx: Vec<usize> = sample_indices(rng, candidates.len(), take)
        .into_iter()
        .map(|i| candidates[i])
        .collect();
    (state.remove_indices(idx), note)
}

fn delete_bridges(
    state: &mut State,
    rng: &mut SplitMix64,
    k: usize,
    batch: usize,
) -> Result<(Vec<Tuple>, String), UpdateError> {
    let g = current_graph(state);
    let mut order: Vec<usize> = (0..g.edges.len()).collect();
    rng.shuffle(&mut order);
    let budget = (50 * k).max(1000);
    let mut seen = Vec::new();
    let mut chosen = Vec::new();
    let mut tested = 0;
    for &i in &order {
        if chosen.len() == k || tested == budget {
            break;
        }
        let (a, b) = g.edges[i];
        if a == b {
            continue;
        }
        tested += 1;
        if !g.adj.other_path(a, b, &mut seen) {
            chosen.push(i);
        }
    }
    if chosen.is_empty() {
        return Err(UpdateError::Exhausted(format!(
            "batch {batch}: none of the {tested} edges tested is the only path between its ends"
        )));
    }
    let mut note = format!(
        "{} of {tested} edges tested are the only path between their ends",
        chosen.len()
    );
    if chosen.len() < k {
        let _ = write!(
            note,
            "; only {} of the {k} deletions asked for found",
            chosen.len()
        );
    }
    Ok((state.remove_indices(chosen), note))
}

fn delete_at_hubs(
    state: &mut State,
    rng: &mut SplitMix64,
    k: usize,
    symbols: &Symbols,
    batch: usize,
) -> Result<(Vec<Tuple>, String), UpdateError> {
    let g = current_graph(state);
    let mut degree = vec![0usize; g.nodes.len()];
    let mut at: Vec<Vec<usize>> = vec![Vec::new(); g.nodes.len()];
    for (i, &(a, b)) in g.edges.iter().enumerate() {
        degree[a as usize] += 1;
        at[a as usize].push(i);
        if a != b {
            degree[b as usize] += 1;
            at[b as usize].push(i);
        }
    }
    let mut ranked: Vec<usize> = (0..g.nodes.len()).collect();
    ranked.sort_by(|&x, &y| {
        degree[y]
            .cmp(&degree[x])
            .then_with(|| symbols.name(g.nodes[x]).cmp(&symbols.name(g.nodes[y])))
    });
    let mut pool: BTreeSet<usize> = BTreeSet::new();
    let mut hubs = Vec::new();
    for &v in &ranked {
        if pool.len() >= k {
            break;
        }
        hubs.push(v);
        pool.extend(at[v].iter().copied());
    }
    if pool.is_empty() {
        return Err(UpdateError::Exhausted(format!(
            "batch {batch}: the graph has no edges left"
        )));
    }
    let pool: Vec<usize> = pool.into_iter().collect();
    let first = hubs[0];
    let note = format!(
        "{} hub(s), the first {} of degree {}; {} edges at them",
        hubs.len(),
        symbols.name(g.nodes[first]).as_deref().unwrap_or("?"),
        degree[first],
        pool.len()
    );
    Ok(delete_sample(state, rng, &pool, k, note))
}

/// The functions of a program-analysis dataset: every fact of the searched relations whose
/// first `symbol` value is `F::…` filed under `F`.
struct FunctionIndex {
    /// Function names in byte order, each with its facts (by relation in program order, each
    /// relation's in output order).
    functions: Vec<(String, Vec<Fact>)>,
    /// Facts searched.
    facts: usize,
    /// Facts without a `symbol` column or whose first `symbol` value has no `F::` prefix
    /// (never deleted by a function edit), ordered as a function's.
    unowned: Vec<Fact>,
    /// Facts filed under a function although another of their `symbol` values has no prefix
    /// or another one (none in `rust-nll:` datasets, where every value of a fact carries its
    /// function's prefix).
    mixed: usize,
}

/// The function a value belongs to: its text up to the first `::`, if that is non-empty.
/// The first `::` because `rust-nll:` prefixes never contain `::` (names are rustc's
/// directory names with `:` replaced) while the rest of a value may.
fn function_of(value: &str) -> Option<&str> {
    value
        .split_once("::")
        .map(|(f, _)| f)
        .filter(|f| !f.is_empty())
}

impl FunctionIndex {
    fn build(program: &Program, symbols: &Symbols, edb: &Edb, relations: &[RelId]) -> Self {
        let mut by_function: BTreeMap<String, Vec<Fact>> = BTreeMap::new();
        let (mut facts, mut unowned, mut mixed) = (0, Vec::new(), 0);
        for &rel in relations {
            let types = &program.relations[rel].types;
            let symbol_cols: Vec<usize> = (0..types.len())
                .filter(|&c| types[c] == Type::Symbol)
                .collect();
            // Output order within each relation, so each function's list is in output order
            // too, whatever the interning order.
            for t in sorted_for_output(types, edb.relations[rel].iter(), symbols) {
                facts += 1;
                let names: Vec<std::sync::Arc<str>> = symbol_cols
                    .iter()
                    .map(|&c| symbols.name(t[c]).unwrap_or_default())
                    .collect();
                let Some(f) = names.first().and_then(|n| function_of(n)) else {
                    unowned.push(Fact::new(rel, t.clone()));
                    continue;
                };
                if names[1..].iter().any(|n| function_of(n) != Some(f)) {
                    mixed += 1;
                }
                by_function
                    .entry(f.to_string())
                    .or_default()
                    .push(Fact::new(rel, t.clone()));
            }
        }
        FunctionIndex {
            functions: by_function.into_iter().collect(),
            facts,
            unowned,
            mixed,
        }
    }
}

/// Sorts facts by relation (program order), each relation's in output order.
fn sort_facts(program: &Program, symbols: &Symbols, mut facts: Vec<Fact>) -> Vec<Fact> {
    facts.sort_by_key(|f| f.rel);
    let mut out = Vec::with_capacity(facts.len());
    for group in facts.chunk_by(|a, b| a.rel == b.rel) {
        let rel = group[0].rel;
        let tuples: Vec<&Tuple> = group.iter().map(|f| &f.tuple).collect();
        for t in sorted_for_output(&program.relations[rel].types, tuples, symbols) {
            out.push(Fact::new(rel, t.clone()));
        }
    }
    out
}

/// The relations a function or version edit reads: the one named by
/// [`StreamSpec::relation`], else every `.input` relation in program order; with their names
/// quoted, for messages.
fn edited_relations(
    program: &Program,
    spec: &StreamSpec,
) -> Result<(Vec<RelId>, String), UpdateError> {
    let relations: Vec<RelId> = match spec.relation.as_deref() {
        Some(name) => vec![choose_relation(program, Some(name))?],
        None => (0..program.relations.len())
            .filter(|&r| program.relations[r].input)
            .collect(),
    };
    if relations.is_empty() {
        return Err(UpdateError::Relation(format!(
            "--kind {}: the program has no `.input` relation",
            spec.kind.name()
        )));
    }
    let names = relations
        .iter()
        .map(|&r| format!("`{}`", program.relations[r].name))
        .collect::<Vec<_>>()
        .join(", ");
    Ok((relations, names))
}

/// [`UpdateKind::FunctionEdit`]: see there.
fn function_edit_stream(
    program: &Program,
    symbols: &Symbols,
    edb: &Edb,
    spec: &StreamSpec,
) -> Result<Stream, UpdateError> {
    let (relations, names) = edited_relations(program, spec)?;
    let index = FunctionIndex::build(program, symbols, edb, &relations);
    if index.functions.is_empty() {
        return Err(UpdateError::Relation(format!(
            "--kind function-edit needs facts prefixed by their function (a first symbol value \
             `FUNCTION::…`, as in `rust-nll:` datasets), and none of the {} fact(s) of {names} \
             has one",
            index.facts
        )));
    }
    let mut source = format!(
        "{} function(s) (the prefix `FUNCTION::` of a fact's first symbol value) hold {} of \
         the {} facts",
        index.functions.len(),
        index.facts - index.unowned.len(),
        index.facts
    );
    if !index.unowned.is_empty() {
        let _ = write!(
            source,
            "; {} fact(s) of no function, never edited",
            index.unowned.len()
        );
    }
    if index.mixed > 0 {
        let _ = write!(
            source,
            "; {} fact(s) with values of several functions, filed under their first value's",
            index.mixed
        );
    }
    // The functions not yet edited: all of them again after each revert.
    let mut pool: Vec<usize> = (0..index.functions.len()).collect();
    let mut rng = SplitMix64::new(spec.seed);
    let mut batches = Vec::new();
    for b in 1..=spec.batches {
        if spec.size > pool.len() {
            return Err(UpdateError::Exhausted(format!(
                "batch {b}: cannot edit {} function(s), only {} {}",
                spec.size,
                pool.len(),
                if spec.revert {
                    "have facts in the relations read"
                } else {
                    "are left (without --revert a function is edited once)"
                }
            )));
        }
        let mut picked = sample_indices(&mut rng, pool.len(), spec.size);
        let mut chosen: Vec<usize> = picked.iter().map(|&i| pool[i]).collect();
        if !spec.revert {
            // Descending, so that swap_remove never moves a function still to be removed.
            picked.sort_unstable_by(|a, b| b.cmp(a));
            for i in picked {
                pool.swap_remove(i);
            }
        }
        chosen.sort_unstable();
        let deletions: Vec<Fact> = chosen
            .iter()
            .flat_map(|&f| index.functions[f].1.iter().cloned())
            .collect();
        let note = format!(
            "function edit: {} fact(s) of {}",
            deletions.len(),
            chosen
                .iter()
                .map(|&f| index.functions[f].0.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let deletions = sort_facts(program, symbols, deletions);
        if spec.revert {
            batches.push(GenBatch {
                deletions: deletions.clone(),
                insertions: Vec::new(),
                note,
            });
            batches.push(GenBatch {
                deletions: Vec::new(),
                insertions: deletions,
                note: format!("revert batch {}", batches.len()),
            });
        } else {
            batches.push(GenBatch {
                deletions,
                insertions: Vec::new(),
                note,
            });
        }
    }
    Ok(Stream {
        relations,
        batches,
        source,
    })
}

/// How a function differs between the two versions of a version edit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Change {
    /// In both versions, with other facts.
    Changed,
    /// Only in the new version.
    Added,
    /// Only in the old version.
    Removed,
}

/// What a version edit does to one function: the facts only the old version has, deleted,
/// and those only the new one has, inserted (each ordered as a function's facts).
struct FunctionChange {
    name: String,
    change: Change,
    deletions: Vec<Fact>,
    insertions: Vec<Fact>,
}

/// The unit under which a version edit edits the facts of no function, when they differ.
const NO_FUNCTION: &str = "(no function)";

/// The facts only in `old` and those only in `new`, each in its list's order.
fn fact_diff(old: &[Fact], new: &[Fact]) -> (Vec<Fact>, Vec<Fact>) {
    let in_old: HashSet<&Fact> = old.iter().collect();
    let in_new: HashSet<&Fact> = new.iter().collect();
    (
        old.iter()
            .filter(|f| !in_new.contains(f))
            .cloned()
            .collect(),
        new.iter()
            .filter(|f| !in_old.contains(f))
            .cloned()
            .collect(),
    )
}

/// The functions that differ between the two versions, by name (byte order), then the facts
/// of no function if they differ; and the number of functions equal in both.
fn function_changes(before: &FunctionIndex, after: &FunctionIndex) -> (Vec<FunctionChange>, usize) {
    // Each function's facts in the old version and in the new.
    type Versions<'a> = (Option<&'a [Fact]>, Option<&'a [Fact]>);
    let mut both: BTreeMap<&str, Versions> = BTreeMap::new();
    for (name, facts) in &before.functions {
        both.entry(name).or_default().0 = Some(facts.as_slice());
    }
    for (name, facts) in &after.functions {
        both.entry(name).or_default().1 = Some(facts.as_slice());
    }
    let mut changes = Vec::new();
    let mut unchanged = 0;
    for (name, (old, new)) in both {
        let change = match (old, new) {
            (Some(o), Some(n)) if o == n => {
                // Both lists are in output order, so equal sets are equal lists.
                unchanged += 1;
                continue;
            }
            (Some(_), Some(_)) => Change::Changed,
            (Some(_), None) => Change::Removed,
            (None, _) => Change::Added,
        };
        let (deletions, insertions) = fact_diff(old.unwrap_or_default(), new.unwrap_or_default());
        changes.push(FunctionChange {
            name: name.to_string(),
            change,
            deletions,
            insertions,
        });
    }
    let (deletions, insertions) = fact_diff(&before.unowned, &after.unowned);
    if !deletions.is_empty() || !insertions.is_empty() {
        changes.push(FunctionChange {
            name: NO_FUNCTION.to_string(),
            change: Change::Changed,
            deletions,
            insertions,
        });
    }
    (changes, unchanged)
}

/// `changed f, g; added h` for the changes at `chosen`, at most ten names of each class.
fn describe_changes(changes: &[FunctionChange], chosen: &[usize]) -> String {
    let mut parts = Vec::new();
    for (class, label) in [
        (Change::Changed, "changed"),
        (Change::Added, "added"),
        (Change::Removed, "removed"),
    ] {
        let names: Vec<&str> = chosen
            .iter()
            .map(|&i| &changes[i])
            .filter(|c| c.change == class)
            .map(|c| c.name.as_str())
            .collect();
        if names.is_empty() {
            continue;
        }
        let mut part = format!("{label} {}", names[..names.len().min(10)].join(", "));
        if names.len() > 10 {
            let _ = write!(part, " and {} more", names.len() - 10);
        }
        parts.push(part);
    }
    parts.join("; ")
}

/// [`UpdateKind::VersionEdit`] (see there): the stream that upgrades `old`, the run's EDB,
/// to `new`, the other version's, both read against `program` into `symbols`.
pub fn version_edit_stream(
    program: &Program,
    symbols: &Symbols,
    old: &Edb,
    new: &Edb,
    spec: &StreamSpec,
) -> Result<Stream, UpdateError> {
    let (relations, names) = edited_relations(program, spec)?;
    if spec.size == 0 {
        return Err(UpdateError::Exhausted(
            "--kind version-edit: the size (functions per batch) must be at least 1".into(),
        ));
    }
    let before = FunctionIndex::build(program, symbols, old, &relations);
    let after = FunctionIndex::build(program, symbols, new, &relations);
    if before.functions.is_empty() && after.functions.is_empty() {
        return Err(UpdateError::Relation(format!(
            "--kind version-edit needs facts prefixed by their function (a first symbol value \
             `FUNCTION::…`, as in `rust-nll:` datasets), and none of the {} and {} fact(s) of \
             {names} in the two versions has one",
            before.facts, after.facts
        )));
    }
    let (changes, unchanged) = function_changes(&before, &after);
    if changes.is_empty() {
        return Err(UpdateError::Exhausted(format!(
            "--kind version-edit: the two versions hold the same facts in {names} ({} \
             function(s), none changed, added or removed): there is nothing to upgrade",
            before.functions.len()
        )));
    }
    let count = |class: Change| changes.iter().filter(|c| c.change == class).count();
    let deleted: usize = changes.iter().map(|c| c.deletions.len()).sum();
    let inserted: usize = changes.iter().map(|c| c.insertions.len()).sum();
    // Facts of changed functions in both versions: never in a batch.
    let kept: usize = changes
        .iter()
        .filter(|c| c.change == Change::Changed)
        .map(|c| {
            let old_facts = if c.name == NO_FUNCTION {
                before.unowned.len()
            } else {
                before
                    .functions
                    .binary_search_by(|(n, _)| n.as_str().cmp(&c.name))
                    .map_or(0, |i| before.functions[i].1.len())
            };
            old_facts - c.deletions.len()
        })
        .sum();
    let walk = changes.len().div_ceil(spec.size);
    let take = walk.min(spec.batches);
    let mut source = format!(
        "version edit: {} function(s) before, {} after; {} changed, {} added, {} \
         removed, {unchanged} unchanged; the whole upgrade deletes {deleted} and inserts \
         {inserted} fact(s) ({kept} fact(s) of the changed functions are in both versions \
         and stay); {} edited function(s), {} per batch: {walk} batch(es)",
        before.functions.len(),
        after.functions.len(),
        count(Change::Changed) - usize::from(changes.iter().any(|c| c.name == NO_FUNCTION)),
        count(Change::Added),
        count(Change::Removed),
        changes.len(),
        spec.size,
    );
    if changes.iter().any(|c| c.name == NO_FUNCTION) {
        let _ = write!(
            source,
            "; the facts of no function differ and are edited as one more function, \
             `{NO_FUNCTION}`"
        );
    }
    let mixed = before.mixed + after.mixed;
    if mixed > 0 {
        let _ = write!(
            source,
            "; {mixed} fact(s) with values of several functions, filed under their first \
             value's"
        );
    }
    if take < walk {
        let _ = write!(
            source,
            "; the stream takes the first {take}, so it stops short of the new version"
        );
    }
    let mut order: Vec<usize> = (0..changes.len()).collect();
    let mut rng = SplitMix64::new(spec.seed);
    rng.shuffle(&mut order);
    let mut batches = Vec::new();
    for (i, chunk) in order.chunks(spec.size).take(take).enumerate() {
        let mut chosen = chunk.to_vec();
        chosen.sort_unstable();
        let gather = |side: fn(&FunctionChange) -> &Vec<Fact>| {
            let facts: Vec<Fact> = chosen
                .iter()
                .flat_map(|&c| side(&changes[c]).iter().cloned())
                .collect();
            sort_facts(program, symbols, facts)
        };
        let deletions = gather(|c| &c.deletions);
        let insertions = gather(|c| &c.insertions);
        let note = format!(
            "version edit {} of {walk}: {}",
            i + 1,
            describe_changes(&changes, &chosen)
        );
        if spec.revert {
            batches.push(GenBatch {
                deletions: deletions.clone(),
                insertions: insertions.clone(),
                note,
            });
            batches.push(GenBatch {
                deletions: insertions,
                insertions: deletions,
                note: format!("revert batch {}", batches.len()),
            });
        } else {
            batches.push(GenBatch {
                deletions,
                insertions,
                note,
            });
        }
    }
    Ok(Stream {
        relations,
        batches,
        source,
    })
}

/// Reads the facts of the version a version edit upgrades to from `dir` (the dataset named
/// `name`) against `program`, interning their values into `symbols`. Every `.input` relation
/// of the program must have its `.facts` file there, as in the run's dataset.
pub fn read_version(
    dir: &Path,
    name: &str,
    program: &Program,
    symbols: &mut Symbols,
) -> Result<Edb, UpdateError> {
    for decl in program.relations.iter().filter(|d| d.input) {
        if !dir.join(format!("{}.facts", decl.facts_name())).is_file() {
            return Err(UpdateError::Target(format!(
                "--to {name}: {} has no `{}.facts`, which the program reads: the two \
                 datasets' relations differ",
                dir.display(),
                decl.facts_name()
            )));
        }
    }
    io::read_facts_dir(dir, program, symbols)
        .map_err(|e| UpdateError::Target(format!("--to {name}: {e}")))
}

/// [`generate_stream`] for a case read from files: a version edit's other version
/// ([`StreamSpec::to`]) is resolved to a facts directory by `resolve` and read with
/// [`read_version`], its values interned into `symbols` (which the run must then use).
pub fn generate_stream_reading(
    program: &Program,
    symbols: &mut Symbols,
    edb: &Edb,
    spec: &StreamSpec,
    resolve: &dyn Fn(&str) -> Result<PathBuf, String>,
) -> Result<Stream, UpdateError> {
    if spec.kind != UpdateKind::VersionEdit {
        return generate_stream(program, symbols, edb, spec);
    }
    let Some(to) = spec.to.as_deref() else {
        return Err(UpdateError::Target(
            "--kind version-edit needs --to OTHER_DATASET, the version to upgrade to".into(),
        ));
    };
    let dir = resolve(to).map_err(|e| UpdateError::Target(format!("--to {to}: {e}")))?;
    let new = read_version(&dir, to, program, symbols)?;
    version_edit_stream(program, symbols, edb, &new, spec)
}

/// Renders a stream in the update-stream format of SPEC §2: `header` lines as `#` comments,
/// then per batch its note as a comment, `-` lines, `+` lines and `commit`.
pub fn render(stream: &Stream, program: &Program, symbols: &Symbols, header: &[String]) -> String {
    let mut s = String::new();
    for h in header {
        let _ = writeln!(s, "# {h}");
    }
    for (i, b) in stream.batches.iter().enumerate() {
        let _ = write!(
            s,
            "# batch {}: {} deletion(s), {} insertion(s)",
            i + 1,
            b.deletions.len(),
            b.insertions.len()
        );
        if !b.note.is_empty() {
            let _ = write!(s, "; {}", b.note);
        }
        s.push('\n');
        for (sign, facts) in [('-', &b.deletions), ('+', &b.insertions)] {
            for f in facts {
                let decl = &program.relations[f.rel];
                let _ = writeln!(
                    s,
                    "{sign}\t{}\t{}",
                    decl.facts_name(),
                    format_tuple_raw(&decl.types, &f.tuple, symbols)
                );
            }
        }
        s.push_str("commit\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use dred_core::{load_program, Batch, SourceFile};

    const PROGRAM: &str = ".decl edge(x: symbol, y: symbol)\n.input edge\n";

    fn setup(edges: &[(&str, &str)]) -> (Program, Symbols, Edb) {
        let mut symbols = Symbols::new();
        let program =
            load_program(&SourceFile::new("p.dl", PROGRAM), &mut symbols).expect("program");
        let mut edb = Edb::empty(&program);
        for (a, b) in edges {
            let t = vec![symbols.intern(a), symbols.intern(b)];
            edb.insert(dred_core::Fact::new(0, t));
        }
        (program, symbols, edb)
    }

    fn spec(kind: UpdateKind, size: usize, batches: usize, seed: u64) -> StreamSpec {
        StreamSpec {
            kind,
            size,
            batches,
            seed,
            relation: None,
            revert: false,
            to: None,
        }
    }

    fn seed_graph() -> Vec<(&'static str, &'static str)> {
        crate::seed_edges()
    }

    /// Applies the stream through dred-core's normalisation: every request must be effective.
    fn check_effective(program: &Program, edb: &Edb, stream: &Stream) {
        let mut edb = edb.clone();
        for (b, requested) in stream.batches.iter().zip(stream.requested_batches()) {
            let n = Batch::normalise(&requested, &edb);
            assert_eq!(
                n.deletions.len(),
                b.deletions.len(),
                "every deletion effective"
            );
            assert_eq!(
                n.insertions.len(),
                b.insertions.len(),
                "every insertion effective"
            );
            edb.apply(&n);
        }
        let _ = program;
    }

    #[test]
    fn streams_are_reproducible_and_effective() {
        let (program, symbols, edb) = setup(&seed_graph());
        for kind in [UpdateKind::Delete, UpdateKind::Insert, UpdateKind::Mixed] {
            let a =
                generate_stream(&program, &symbols, &edb, &spec(kind, 2, 3, 9)).expect("stream");
            let b =
                generate_stream(&program, &symbols, &edb, &spec(kind, 2, 3, 9)).expect("stream");
            assert_eq!(
                render(&a, &program, &symbols, &[]),
                render(&b, &program, &symbols, &[])
            );
            check_effective(&program, &edb, &a);
            for batch in &a.batches {
                assert_eq!(batch.deletions.len() + batch.insertions.len(), 2);
            }
        }
        let a = generate_stream(&program, &symbols, &edb, &spec(UpdateKind::Delete, 3, 1, 1))
            .expect("s");
        let b = generate_stream(&program, &symbols, &edb, &spec(UpdateKind::Delete, 3, 1, 2))
            .expect("s");
        assert_ne!(a.batches, b.batches, "another seed, another sample");
    }

    #[test]
    fn stream_does_not_depend_on_interning_order() {
        let (program, symbols, edb) = setup(&seed_graph());
        let mut reversed = seed_graph();
        reversed.reverse();
        let (program2, symbols2, edb2) = setup(&reversed);
        let s = spec(UpdateKind::Mixed, 4, 2, 5);
        let a = generate_stream(&program, &symbols, &edb, &s).expect("a");
        let b = generate_stream(&program2, &symbols2, &edb2, &s).expect("b");
        assert_eq!(
            render(&a, &program, &symbols, &[]),
            render(&b, &program2, &symbols2, &[])
        );
    }

    #[test]
    fn scc_deletions_stay_inside_the_largest_component() {
        // b↔c (2 nodes) and u→v→w→u (3 nodes): the 3-cycle is largest.
        let (program, symbols, edb) = setup(&seed_graph());
        let s = generate_stream(
            &program,
            &symbols,
            &edb,
            &spec(UpdateKind::SccDelete, 2, 1, 4),
        )
        .expect("s");
        let text = render(&s, &program, &symbols, &[]);
        assert!(text.contains("3 nodes, 3 edges inside"), "{text}");
        for f in &s.batches[0].deletions {
            let name = symbols.name(f.tuple[0]).expect("sym");
            assert!(["u", "v", "w"].contains(&&*name), "{text}");
        }
        // After cutting the 3-cycle, the next batch targets b↔c.
        let s = generate_stream(
            &program,
            &symbols,
            &edb,
            &spec(UpdateKind::SccDelete, 1, 2, 4),
        )
        .expect("s");
        let second = &s.batches[1].deletions[0];
        assert!(["b", "c"].contains(&&*symbols.name(second.tuple[0]).expect("sym")));
        // A DAG has nothing to offer.
        let (p, sy, e) = setup(&[("a", "b"), ("b", "c")]);
        let err =
            generate_stream(&p, &sy, &e, &spec(UpdateKind::SccDelete, 1, 1, 1)).expect_err("dag");
        assert!(err.to_string().contains("no cycle"), "{err}");
    }

    #[test]
    fn hub_deletions_take_the_edges_at_the_highest_degree_nodes() {
        // h has degree 5 (in 2, out 3); x has degree 2; the others 1 or 2 by name order.
        let edges = [
            ("a", "h"),
            ("b", "h"),
            ("h", "c"),
            ("h", "d"),
            ("h", "x"),
            ("x", "y"),
            ("p", "q"),
        ];
        let (program, symbols, edb) = setup(&edges);
        let s = generate_stream(
            &program,
            &symbols,
            &edb,
            &spec(UpdateKind::HubDelete, 3, 2, 7),
        )
        .expect("s");
        let text = render(&s, &program, &symbols, &[]);
        assert!(
            text.contains("1 hub(s), the first h of degree 5; 5 edges at them"),
            "{text}"
        );
        let at_h = |f: &Fact| {
            symbols.name(f.tuple[0]).as_deref() == Some("h")
                || symbols.name(f.tuple[1]).as_deref() == Some("h")
        };
        assert_eq!(s.batches[0].deletions.len(), 3, "{text}");
        assert!(s.batches[0].deletions.iter().all(at_h), "{text}");
        // h keeps 2 edges, so x (now degree 2 or 1) joins it in the second batch's pool.
        assert_eq!(s.batches[1].deletions.len(), 3, "{text}");
        assert!(
            text.contains("2 hub(s)") || text.contains("3 hub(s)"),
            "{text}"
        );
        // A graph with fewer edges than asked deletes what there is and says so.
        let (p, sy, e) = setup(&[("a", "b")]);
        let s = generate_stream(&p, &sy, &e, &spec(UpdateKind::HubDelete, 4, 1, 1)).expect("s");
        assert_eq!(s.batches[0].deletions.len(), 1);
        assert!(render(&s, &p, &sy, &[]).contains("only 1 of the 4"));
    }

    #[test]
    fn bridge_deletions_have_no_alternative_path() {
        // a→b→d, a→c→d, a→d: a→d has alternatives; the four others do not.
        let (program, symbols, edb) =
            setup(&[("a", "b"), ("b", "d"), ("a", "c"), ("c", "d"), ("a", "d")]);
        let s = generate_stream(
            &program,
            &symbols,
            &edb,
            &spec(UpdateKind::BridgeDelete, 10, 1, 3),
        )
        .expect("s");
        let dels = &s.batches[0].deletions;
        assert_eq!(dels.len(), 4, "a→d is never chosen");
        let ad = vec![symbols.get("a").expect("a"), symbols.get("d").expect("d")];
        assert!(!dels.contains(&Fact::new(0, ad)));
        let text = render(&s, &program, &symbols, &[]);
        assert!(text.contains("only 4 of the 10"), "{text}");
    }

    #[test]
    fn revert_restores_the_original_edb() {
        let (program, symbols, edb) = setup(&seed_graph());
        let mut sp = spec(UpdateKind::Mixed, 4, 3, 11);
        sp.revert = true;
        let s = generate_stream(&program, &symbols, &edb, &sp).expect("s");
        assert_eq!(s.batches.len(), 6);
        check_effective(&program, &edb, &s);
        let mut cur = edb.clone();
        for (i, b) in s.batches.iter().enumerate() {
            for f in &b.deletions {
                cur.relations[f.rel].remove(&f.tuple);
            }
            for f in &b.insertions {
                cur.relations[f.rel].insert(f.tuple.clone());
            }
            if i % 2 == 1 {
                assert_eq!(cur, edb, "after revert {i}");
            }
        }
    }

    #[test]
    fn impossible_requests_are_errors() {
        let (program, symbols, edb) = setup(&[("a", "b")]);
        let e = generate_stream(&program, &symbols, &edb, &spec(UpdateKind::Delete, 2, 1, 1))
            .expect_err("too many");
        assert!(e.to_string().contains("only 1 are left"), "{e}");
        // Two nodes: a→b present, b→a is the only new edge; the second insertion cannot exist.
        let e = generate_stream(&program, &symbols, &edb, &spec(UpdateKind::Insert, 2, 1, 1))
            .expect_err("full");
        assert!(e.to_string().contains("complete"), "{e}");
        let mut sp = spec(UpdateKind::Delete, 1, 1, 1);
        sp.relation = Some("nope".into());
        assert!(generate_stream(&program, &symbols, &edb, &sp).is_err());
    }

    /// Two relations (the second with a number column first) over three functions `f`, `g`,
    /// `h`, and facts of no function: `f` has facts in both relations, `g` in `a` only, `h`
    /// in `b` only.
    const FUNCTIONS: &str = "\
.decl a(x: symbol, y: symbol)
.decl b(n: number, x: symbol, y: symbol)
.decl r(x: symbol)
.input a
.input b
r(x) :- a(x, _).
";

    fn setup_functions(extra_a: &[(&str, &str)]) -> (Program, Symbols, Edb) {
        setup_functions_interned(&[], extra_a)
    }

    /// As [`setup_functions`], with the symbols `first` interned before any other.
    fn setup_functions_interned(
        first: &[&str],
        extra_a: &[(&str, &str)],
    ) -> (Program, Symbols, Edb) {
        let mut symbols = Symbols::new();
        for v in first {
            symbols.intern(v);
        }
        let program =
            load_program(&SourceFile::new("f.dl", FUNCTIONS), &mut symbols).expect("program");
        let mut edb = Edb::empty(&program);
        let a = [
            ("f::x", "f::y"),
            ("f::y", "f::z"),
            ("g::p", "g::q"),
            ("g::q", "g::p"),
        ];
        for (x, y) in a.iter().chain(extra_a) {
            edb.insert(Fact::new(0, vec![symbols.intern(x), symbols.intern(y)]));
        }
        for (n, x, y) in [
            (1, "f::x", "f::z"),
            (2, "h::u", "h::v"),
            (3, "h::v", "h::u"),
        ] {
            let t = vec![Value::from(n), symbols.intern(x), symbols.intern(y)];
            edb.insert(Fact::new(1, t));
        }
        (program, symbols, edb)
    }

    /// The function whose facts a batch deletes, checked to be every fact of it and nothing
    /// else, in both relations.
    fn edited(
        program: &Program,
        symbols: &Symbols,
        edb: &Edb,
        batch: &GenBatch,
    ) -> BTreeSet<String> {
        // The first symbol value of a fact.
        let first = |f: &Fact| {
            let types = &program.relations[f.rel].types;
            let c = types.iter().position(|&t| t == Type::Symbol)?;
            symbols.name(f.tuple[c])
        };
        let owner = |f: &Fact| {
            function_of(&first(f).expect("a symbol"))
                .expect("prefixed")
                .to_string()
        };
        let functions: BTreeSet<String> = batch.deletions.iter().map(owner).collect();
        let expected: BTreeSet<Fact> = (0..edb.relations.len())
            .flat_map(|r| {
                edb.relations[r]
                    .iter()
                    .map(move |t| Fact::new(r, t.clone()))
            })
            .filter(|f| {
                first(f).is_some_and(|name| {
                    function_of(&name).is_some_and(|fun| functions.contains(fun))
                })
            })
            .collect();
        let got: BTreeSet<Fact> = batch.deletions.iter().cloned().collect();
        assert_eq!(got.len(), batch.deletions.len(), "no fact twice");
        assert_eq!(got, expected, "exactly the facts of {functions:?}");
        functions
    }

    #[test]
    fn function_edits_delete_every_fact_of_the_drawn_functions() {
        let (program, symbols, edb) = setup_functions(&[]);
        let s = generate_stream(
            &program,
            &symbols,
            &edb,
            &spec(UpdateKind::FunctionEdit, 1, 3, 1),
        )
        .expect("s");
        assert_eq!(s.relations, vec![0, 1], "every input relation");
        assert!(s.source.starts_with("3 function(s)"), "{}", s.source);
        check_effective(&program, &edb, &s);
        let mut seen = BTreeSet::new();
        for b in &s.batches {
            assert!(b.insertions.is_empty());
            let fs = edited(&program, &symbols, &edb, b);
            assert_eq!(fs.len(), 1);
            assert!(
                seen.is_disjoint(&fs),
                "no function edited twice: {seen:?} {fs:?}"
            );
            seen.extend(fs);
        }
        // f's batch spans both relations.
        let f = s
            .batches
            .iter()
            .find(|b| b.note.ends_with(" of f"))
            .expect("f drawn");
        assert_eq!(f.deletions.len(), 3);
        assert_eq!(
            f.deletions.iter().map(|d| d.rel).collect::<BTreeSet<_>>(),
            BTreeSet::from([0, 1])
        );
        // Three functions, each edited once: a fourth batch has none left.
        let e = generate_stream(
            &program,
            &symbols,
            &edb,
            &spec(UpdateKind::FunctionEdit, 1, 4, 1),
        )
        .expect_err("exhausted");
        assert!(e.to_string().contains("only 0 are left"), "{e}");
        let e = generate_stream(
            &program,
            &symbols,
            &edb,
            &spec(UpdateKind::FunctionEdit, 4, 1, 1),
        )
        .expect_err("too many");
        assert!(e.to_string().contains("cannot edit 4"), "{e}");
    }

    #[test]
    fn function_edits_are_seeded_and_reverted() {
        let (program, symbols, edb) = setup_functions(&[]);
        let draw = |seed: u64, revert: bool| {
            let mut sp = spec(UpdateKind::FunctionEdit, 2, 3, seed);
            sp.revert = revert;
            generate_stream(&program, &symbols, &edb, &sp).expect("s")
        };
        let text = |s: &Stream| render(s, &program, &symbols, &[]);
        assert_eq!(
            text(&draw(5, true)),
            text(&draw(5, true)),
            "same seed, same stream"
        );
        let firsts: BTreeSet<String> = (0..20)
            .map(|seed| draw(seed, true).batches[0].note.clone())
            .collect();
        assert!(firsts.len() > 1, "the seed decides the draw: {firsts:?}");
        // With revert a function may come back, each edit is undone, and two functions are
        // edited per batch.
        let s = draw(5, true);
        assert_eq!(s.batches.len(), 6);
        check_effective(&program, &edb, &s);
        let mut cur = edb.clone();
        for (i, b) in s.batches.iter().enumerate() {
            if i % 2 == 0 {
                assert_eq!(edited(&program, &symbols, &cur, b).len(), 2);
            } else {
                assert_eq!(b.insertions, s.batches[i - 1].deletions, "the inverse");
            }
            for f in &b.deletions {
                cur.relations[f.rel].remove(&f.tuple);
            }
            for f in &b.insertions {
                cur.relations[f.rel].insert(f.tuple.clone());
            }
            if i % 2 == 1 {
                assert_eq!(cur, edb, "after revert {i}");
            }
        }
        // Interning order does not matter.
        let (p2, sy2, e2) = setup_functions_interned(&["h::v", "g::q", "f::z", "h::u"], &[]);
        let other = generate_stream(&p2, &sy2, &e2, &{
            let mut sp = spec(UpdateKind::FunctionEdit, 2, 3, 5);
            sp.revert = true;
            sp
        })
        .expect("s");
        assert_eq!(text(&s), render(&other, &p2, &sy2, &[]));
    }

    #[test]
    fn function_edits_need_prefixed_facts_and_keep_to_a_named_relation() {
        // Facts of no function (no prefix, an empty one) are counted and never edited.
        let (program, symbols, edb) = setup_functions(&[("plain", "f::x"), ("::y", "g::p")]);
        let s = generate_stream(
            &program,
            &symbols,
            &edb,
            &spec(UpdateKind::FunctionEdit, 1, 3, 2),
        )
        .expect("s");
        assert!(
            s.source
                .contains("hold 7 of the 9 facts; 2 fact(s) of no function"),
            "{}",
            s.source
        );
        let deleted: usize = s.batches.iter().map(|b| b.deletions.len()).sum();
        assert_eq!(deleted, 7);
        // A fact filed under its first value's function although another value is not its.
        let (p, sy, e) = setup_functions(&[("g::x", "f::y")]);
        let s = generate_stream(&p, &sy, &e, &spec(UpdateKind::FunctionEdit, 3, 1, 2)).expect("s");
        assert!(
            s.source.contains("1 fact(s) with values of several"),
            "{}",
            s.source
        );
        assert_eq!(s.batches[0].deletions.len(), 8);
        // --relation b: only b's facts, so only f and h (g has none in b).
        let mut sp = spec(UpdateKind::FunctionEdit, 1, 2, 3);
        sp.relation = Some("b".into());
        let s = generate_stream(&program, &symbols, &edb, &sp).expect("s");
        assert_eq!(s.relations, vec![1]);
        let text = render(&s, &program, &symbols, &[]);
        assert!(!text.contains("\ta\t") && !text.contains("g::"), "{text}");
        assert!(text.contains(" of f") && text.contains(" of h"), "{text}");
        // Unprefixed data is an error naming the kind; so is a program without inputs.
        let (p, sy, e) = setup(&seed_graph());
        let err = generate_stream(&p, &sy, &e, &spec(UpdateKind::FunctionEdit, 1, 1, 1))
            .expect_err("no prefixes");
        let msg = err.to_string();
        assert!(
            msg.contains("--kind function-edit") && msg.contains("none of the 9 fact(s) of `edge`"),
            "{msg}"
        );
        let mut sy = Symbols::new();
        let p = load_program(
            &SourceFile::new("e.dl", ".decl r(x: symbol)\nr(\"a\").\n"),
            &mut sy,
        )
        .expect("p");
        let e = Edb::empty(&p);
        let err = generate_stream(&p, &sy, &e, &spec(UpdateKind::FunctionEdit, 1, 1, 1))
            .expect_err("no inputs");
        assert!(err.to_string().contains("no `.input` relation"), "{err}");
    }

    /// An EDB of [`FUNCTIONS`]' relations `a` and `b`, its values interned into `symbols`.
    fn functions_edb(
        program: &Program,
        symbols: &mut Symbols,
        a: &[(&str, &str)],
        b: &[(i64, &str, &str)],
    ) -> Edb {
        let mut edb = Edb::empty(program);
        for (x, y) in a {
            edb.insert(Fact::new(0, vec![symbols.intern(x), symbols.intern(y)]));
        }
        for (n, x, y) in b {
            let t = vec![Value::from(*n), symbols.intern(x), symbols.intern(y)];
            edb.insert(Fact::new(1, t));
        }
        edb
    }

    /// The new version of [`setup_functions`]' EDB: `f` changed (one fact of `a` replaced,
    /// the others kept), `g` removed, `h` unchanged, `k` added (in both relations).
    fn new_version(program: &Program, symbols: &mut Symbols) -> Edb {
        functions_edb(
            program,
            symbols,
            &[("f::x", "f::y"), ("f::y", "f::w"), ("k::a", "k::b")],
            &[
                (1, "f::x", "f::z"),
                (2, "h::u", "h::v"),
                (3, "h::v", "h::u"),
                (4, "k::a", "k::a"),
            ],
        )
    }

    fn version_spec(size: usize, seed: u64) -> StreamSpec {
        StreamSpec {
            to: Some("new".into()),
            ..spec(UpdateKind::VersionEdit, size, usize::MAX, seed)
        }
    }

    /// Applies the batches to `edb` in order.
    fn applied(edb: &Edb, batches: &[GenBatch]) -> Edb {
        let mut cur = edb.clone();
        for b in batches {
            for f in &b.deletions {
                cur.relations[f.rel].remove(&f.tuple);
            }
            for f in &b.insertions {
                cur.relations[f.rel].insert(f.tuple.clone());
            }
        }
        cur
    }

    #[test]
    fn version_edits_walk_from_the_old_version_to_the_new() {
        let (program, mut symbols, old) = setup_functions(&[]);
        let new = new_version(&program, &mut symbols);
        let fact = |symbols: &Symbols, x: &str, y: &str| {
            Fact::new(
                0,
                vec![symbols.get(x).expect("x"), symbols.get(y).expect("y")],
            )
        };
        for (size, walk) in [(1, 3), (2, 2), (3, 1), (10, 1)] {
            let s = version_edit_stream(&program, &symbols, &old, &new, &version_spec(size, 7))
                .expect("s");
            assert_eq!(s.relations, vec![0, 1], "every input relation");
            assert_eq!(s.batches.len(), walk, "size {size}");
            assert!(
                s.source.contains(
                    "3 function(s) before, 3 after; 1 changed, 1 added, 1 removed, 1 unchanged; \
                     the whole upgrade deletes 3 and inserts 3 fact(s) (2 fact(s) of the \
                     changed functions are in both versions and stay); 3 edited function(s)"
                ),
                "{}",
                s.source
            );
            // Every batch is effective on the state the previous ones left; the last reaches
            // the new version exactly.
            check_effective(&program, &old, &s);
            assert_eq!(applied(&old, &s.batches), new, "size {size}");
            // Each function is edited in one batch, named in its note; h never.
            let text = render(&s, &program, &symbols, &[]);
            assert!(!text.contains("h::"), "{text}");
            let mut named: Vec<String> = s
                .batches
                .iter()
                .flat_map(|b| {
                    let (_, list) = b.note.split_once(": ").expect("note");
                    list.split("; ")
                        .flat_map(|part| {
                            let (class, names) = part.split_once(' ').expect("class");
                            names.split(", ").map(move |n| format!("{class} {n}"))
                        })
                        .collect::<Vec<_>>()
                })
                .collect();
            named.sort();
            assert_eq!(named, ["added k", "changed f", "removed g"], "{text}");
        }
        // f's edit replaces one fact of `a` and keeps the two others; g's deletes all of g;
        // k's inserts all of k.
        let s =
            version_edit_stream(&program, &symbols, &old, &new, &version_spec(1, 7)).expect("s");
        let of = |note: &str| {
            s.batches
                .iter()
                .find(|b| b.note.ends_with(note))
                .unwrap_or_else(|| panic!("{note}"))
        };
        let f = of(": changed f");
        assert_eq!(f.deletions, vec![fact(&symbols, "f::y", "f::z")]);
        assert_eq!(f.insertions, vec![fact(&symbols, "f::y", "f::w")]);
        let g = of(": removed g");
        assert_eq!(g.deletions.len(), 2);
        assert!(g.insertions.is_empty());
        let k = of(": added k");
        assert!(k.deletions.is_empty());
        assert_eq!(
            k.insertions.iter().map(|f| f.rel).collect::<Vec<_>>(),
            vec![0, 1],
            "by relation in program order"
        );
        assert!(
            s.batches[0].note.starts_with("version edit 1 of 3: "),
            "{}",
            s.batches[0].note
        );
    }

    #[test]
    fn version_edits_are_seeded_reverted_and_capped() {
        let (program, mut symbols, old) = setup_functions(&[]);
        let new = new_version(&program, &mut symbols);
        let draw = |seed: u64, revert: bool| {
            let mut sp = version_spec(1, seed);
            sp.revert = revert;
            version_edit_stream(&program, &symbols, &old, &new, &sp).expect("s")
        };
        let text = |s: &Stream| render(s, &program, &symbols, &[]);
        assert_eq!(text(&draw(5, false)), text(&draw(5, false)), "same seed");
        let orders: BTreeSet<Vec<String>> = (0..20)
            .map(|seed| {
                draw(seed, false)
                    .batches
                    .iter()
                    .map(|b| b.note.clone())
                    .collect()
            })
            .collect();
        assert!(orders.len() > 1, "the seed decides the order: {orders:?}");
        // Interning order does not matter.
        let (p2, mut sy2, old2) = setup_functions_interned(&["k::b", "h::v", "f::w", "g::q"], &[]);
        let new2 = new_version(&p2, &mut sy2);
        let other = version_edit_stream(&p2, &sy2, &old2, &new2, &version_spec(1, 5)).expect("s");
        assert_eq!(text(&draw(5, false)), render(&other, &p2, &sy2, &[]));
        // With revert each edit is undone: every odd batch leaves the old version, and the
        // three edits are those of the walk without revert, in the same order.
        let s = draw(5, true);
        assert_eq!(s.batches.len(), 6);
        check_effective(&program, &old, &s);
        let forward = draw(5, false);
        for (i, pair) in s.batches.chunks(2).enumerate() {
            assert_eq!(pair[0], forward.batches[i]);
            assert_eq!(pair[1].deletions, pair[0].insertions);
            assert_eq!(pair[1].insertions, pair[0].deletions);
            assert_eq!(pair[1].note, format!("revert batch {}", 2 * i + 1));
            assert_eq!(
                applied(&old, &s.batches[..2 * i + 2]),
                old,
                "after revert {i}"
            );
        }
        // `batches` caps the walk, which then stops short of the new version.
        let mut sp = version_spec(1, 5);
        sp.batches = 2;
        let s = version_edit_stream(&program, &symbols, &old, &new, &sp).expect("s");
        assert_eq!(s.batches, forward.batches[..2]);
        assert!(
            s.source
                .ends_with("; the stream takes the first 2, so it stops short of the new version"),
            "{}",
            s.source
        );
    }

    #[test]
    fn version_edits_keep_to_a_relation_and_edit_the_facts_of_no_function() {
        let (program, mut symbols, old) = setup_functions(&[("plain", "f::x")]);
        let mut new = new_version(&program, &mut symbols);
        new.insert(Fact::new(
            0,
            vec![symbols.intern("other"), symbols.intern("k::a")],
        ));
        let s =
            version_edit_stream(&program, &symbols, &old, &new, &version_spec(1, 3)).expect("s");
        assert_eq!(s.batches.len(), 4);
        assert!(
            s.source
                .contains("edited as one more function, `(no function)`"),
            "{}",
            s.source
        );
        check_effective(&program, &old, &s);
        assert_eq!(applied(&old, &s.batches), new);
        let none = s
            .batches
            .iter()
            .find(|b| b.note.ends_with(": changed (no function)"))
            .expect("the facts of no function");
        assert_eq!((none.deletions.len(), none.insertions.len()), (1, 1));
        // --relation a: b's facts are never touched (k's fact of b is not inserted).
        let (program, mut symbols, old) = setup_functions(&[]);
        let new = new_version(&program, &mut symbols);
        let mut sp = version_spec(10, 3);
        sp.relation = Some("a".into());
        let s = version_edit_stream(&program, &symbols, &old, &new, &sp).expect("s");
        assert_eq!(s.relations, vec![0]);
        assert_eq!(s.batches.len(), 1);
        let b = &s.batches[0];
        assert!(b.deletions.iter().chain(&b.insertions).all(|f| f.rel == 0));
        assert_eq!((b.deletions.len(), b.insertions.len()), (3, 2));
        // In b only k differs.
        sp.relation = Some("b".into());
        let s = version_edit_stream(&program, &symbols, &old, &new, &sp).expect("s");
        assert!(
            s.source
                .contains("0 changed, 1 added, 0 removed, 2 unchanged"),
            "{}",
            s.source
        );
    }

    #[test]
    fn version_edits_refuse_what_cannot_be_upgraded() {
        let (program, mut symbols, old) = setup_functions(&[]);
        let new = new_version(&program, &mut symbols);
        let err = |r: Result<Stream, UpdateError>| r.expect_err("refused").to_string();
        // The same facts: nothing to upgrade.
        let e = err(version_edit_stream(
            &program,
            &symbols,
            &old,
            &old,
            &version_spec(1, 1),
        ));
        assert!(
            e.contains("the two versions hold the same facts in `a`, `b` (3 function(s)"),
            "{e}"
        );
        assert!(e.contains("nothing to upgrade"), "{e}");
        // Size 0, and generate_stream without the other version.
        let e = err(version_edit_stream(
            &program,
            &symbols,
            &old,
            &new,
            &version_spec(0, 1),
        ));
        assert!(e.contains("at least 1"), "{e}");
        let e = err(generate_stream(
            &program,
            &symbols,
            &old,
            &version_spec(1, 1),
        ));
        assert!(e.contains("--to OTHER_DATASET"), "{e}");
        // Unprefixed data.
        let (p, sy, e1) = setup(&seed_graph());
        let (_, _, e2) = setup(&[("a", "b")]);
        let e = err(version_edit_stream(&p, &sy, &e1, &e2, &version_spec(1, 1)));
        assert!(
            e.contains("--kind version-edit needs facts prefixed by their function")
                && e.contains("none of the 9 and 1 fact(s) of `edge`"),
            "{e}"
        );
        // Reading the other version: through a resolver, from a facts directory that must
        // have every relation the program reads.
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::write(dir.path().join("a.facts"), "f::x\tf::y\nk::a\tk::b\n").expect("w");
        let resolve = |name: &str| -> Result<PathBuf, String> {
            match name {
                "new" => Ok(dir.path().to_path_buf()),
                other => Err(format!("unknown dataset `{other}`")),
            }
        };
        let (program, mut symbols, old) = setup_functions(&[]);
        let e = err(generate_stream_reading(
            &program,
            &mut symbols,
            &old,
            &version_spec(1, 1),
            &resolve,
        ));
        assert!(
            e.contains("--to new: ") && e.contains("has no `b.facts`") && e.contains("differ"),
            "{e}"
        );
        let mut sp = version_spec(1, 1);
        sp.to = Some("nope".into());
        let e = err(generate_stream_reading(
            &program,
            &mut symbols,
            &old,
            &sp,
            &resolve,
        ));
        assert_eq!(e, "--to nope: unknown dataset `nope`");
        sp.to = None;
        let e = err(generate_stream_reading(
            &program,
            &mut symbols,
            &old,
            &sp,
            &resolve,
        ));
        assert!(e.contains("needs --to OTHER_DATASET"), "{e}");
        std::fs::write(dir.path().join("b.facts"), "2\th::u\th::v\n3\th::v\th::u\n").expect("w");
        let s =
            generate_stream_reading(&program, &mut symbols, &old, &version_spec(5, 1), &resolve)
                .expect("s");
        // f loses f::y→f::z and f::x→f::z (b), g goes, k comes (a only); h is unchanged.
        assert!(
            s.source.contains(
                "1 changed, 1 added, 1 removed, 1 unchanged; the whole upgrade \
                           deletes 4 and inserts 1 fact(s)"
            ),
            "{}",
            s.source
        );
        let mut sy = symbols.clone();
        let expected = read_version(dir.path(), "new", &program, &mut sy).expect("new");
        assert_eq!(applied(&old, &s.batches), expected);
        // Other kinds go through as generate_stream draws them.
        let sp = spec(UpdateKind::FunctionEdit, 1, 1, 1);
        assert_eq!(
            generate_stream_reading(&program, &mut symbols, &old, &sp, &resolve)
                .expect("s")
                .batches,
            generate_stream(&program, &symbols, &old, &sp)
                .expect("s")
                .batches
        );
    }

    #[test]
    fn version_edit_notes_name_ten_functions_of_each_class_at_most() {
        let change = |name: &str, change| FunctionChange {
            name: name.into(),
            change,
            deletions: Vec::new(),
            insertions: Vec::new(),
        };
        let mut changes: Vec<FunctionChange> = (0..12)
            .map(|i| change(&format!("a{i:02}"), Change::Added))
            .collect();
        changes.push(change("c", Change::Changed));
        changes.push(change("r", Change::Removed));
        let all: Vec<usize> = (0..changes.len()).collect();
        assert_eq!(
            describe_changes(&changes, &all),
            "changed c; added a00, a01, a02, a03, a04, a05, a06, a07, a08, a09 and 2 more; \
             removed r"
        );
        assert_eq!(describe_changes(&changes, &[13]), "removed r");
    }

    #[test]
    fn functions_are_named_up_to_the_first_double_colon() {
        assert_eq!(function_of("f::x"), Some("f"));
        assert_eq!(
            function_of("m-f-{closure#0}::a::b"),
            Some("m-f-{closure#0}")
        );
        assert_eq!(function_of("::x"), None);
        assert_eq!(function_of("GO:0005575"), None);
        assert_eq!(function_of("plain"), None);
    }

    #[test]
    fn sample_indices_are_distinct_and_in_range() {
        let mut rng = SplitMix64::new(3);
        let v = sample_indices(&mut rng, 10, 10);
        let set: BTreeSet<usize> = v.iter().copied().collect();
        assert_eq!(set.len(), 10);
        assert!(set.iter().all(|&i| i < 10));
    }
}
