//! Update streams generated from a dataset: random or targeted changes of one EDB relation,
//! in batches, seeded and reproducible (the protocol is in `results/METHODOLOGY.md`).
//!
//! The generator keeps the current EDB as the stream goes: batch *i* is drawn from the state
//! after batches 1 … *i*−1, so every requested deletion names a present fact and every
//! requested insertion an absent one — each request is effective (`eff_del = req_del`,
//! `eff_ins = req_ins` in reports). With `revert`, every batch is followed by its inverse, so
//! each odd batch starts from the original EDB.
//!
//! Reproducibility: the facts of the relation are first put in output order (column by
//! column, symbols by text, numbers numerically), never in hash or interning order, and all
//! draws come from [`SplitMix64`] seeded with the stream's seed. The same `.facts` files and
//! the same [`StreamSpec`] therefore give the same stream, byte for byte, on every platform.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;

use clap::ValueEnum;
use dred_core::io::{format_tuple_raw, sorted_for_output};
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
    /// only `.input` relation.
    pub relation: Option<String>,
    /// Follow every batch by its inverse.
    pub revert: bool,
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
}

/// One generated batch: facts of the chosen relation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GenBatch {
    /// Facts to delete (all present before the batch), in output order.
    pub deletions: Vec<Tuple>,
    /// Facts to insert (all absent before the batch), in output order.
    pub insertions: Vec<Tuple>,
    /// A remark written as a comment before the batch (what was targeted, shortfalls).
    pub note: String,
}

/// A generated stream.
#[derive(Clone, Debug)]
pub struct Stream {
    /// The relation changed.
    pub relation: RelId,
    /// The batches in order (with reverts interleaved when asked).
    pub batches: Vec<GenBatch>,
}

impl Stream {
    /// The batches as requests of facts of [`Stream::relation`], in order, for
    /// [`dred_core::Batch::normalise`].
    pub fn requested_batches(&self) -> Vec<RequestedBatch> {
        let facts = |ts: &[Tuple]| -> Vec<Fact> {
            ts.iter()
                .map(|t| Fact::new(self.relation, t.clone()))
                .collect()
        };
        self.batches
            .iter()
            .map(|b| RequestedBatch {
                deletions: facts(&b.deletions),
                insertions: facts(&b.insertions),
            })
            .collect()
    }
}

/// Picks the relation a stream changes (see [`StreamSpec::relation`]).
pub fn choose_relation(program: &Program, wanted: Option<&str>) -> Result<RelId, UpdateError> {
    if let Some(name) = wanted {
        let rel = program.relation_id(name).ok_or_else(|| {
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
            Type::Number => v.sort_unstable(),
            Type::Symbol => v.sort_by(|a, b| symbols.name(*a).cmp(&symbols.name(*b))),
        }
        domains.insert(ty, v);
    }
    let mut state = State {
        present: ordered.iter().cloned().collect(),
        facts: ordered,
    };
    let mut rng = SplitMix64::new(spec.seed);
    let mut batches = Vec::new();
    for b in 1..=spec.batches {
        let mut batch = GenBatch::default();
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
        }
        batch.deletions = sorted_for_output(&types, batch.deletions.iter(), symbols)
            .into_iter()
            .cloned()
            .collect();
        batch.insertions = sorted_for_output(&types, batch.insertions.iter(), symbols)
            .into_iter()
            .cloned()
            .collect();
        let inverse = spec.revert.then(|| GenBatch {
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
    Ok(Stream {
        relation: rel,
        batches,
    })
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
    let mut least: Vec<Option<&str>> = vec![None; ncomp];
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
        symbols.name(g.nodes[first]).unwrap_or("?"),
        degree[first],
        pool.len()
    );
    Ok(delete_sample(state, rng, &pool, k, note))
}

/// Renders a stream in the update-stream format of SPEC §2: `header` lines as `#` comments,
/// then per batch its note as a comment, `-` lines, `+` lines and `commit`.
pub fn render(stream: &Stream, program: &Program, symbols: &Symbols, header: &[String]) -> String {
    let decl = &program.relations[stream.relation];
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
            for t in facts {
                let _ = writeln!(
                    s,
                    "{sign}\t{}\t{}",
                    decl.name,
                    format_tuple_raw(&decl.types, t, symbols)
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
        for t in &s.batches[0].deletions {
            let name = symbols.name(t[0]).expect("sym");
            assert!(["u", "v", "w"].contains(&name), "{text}");
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
        assert!(["b", "c"].contains(&symbols.name(second[0]).expect("sym")));
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
        let at_h = |t: &Tuple| symbols.name(t[0]) == Some("h") || symbols.name(t[1]) == Some("h");
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
        assert!(!dels.contains(&ad));
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
            for t in &b.deletions {
                cur.relations[0].remove(t);
            }
            for t in &b.insertions {
                cur.relations[0].insert(t.clone());
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

    #[test]
    fn sample_indices_are_distinct_and_in_range() {
        let mut rng = SplitMix64::new(3);
        let v = sample_indices(&mut rng, 10, 10);
        let set: BTreeSet<usize> = v.iter().copied().collect();
        assert_eq!(set.len(), 10);
        assert!(set.iter().all(|&i| i < 10));
    }
}
