//! The liveness and initialisation analysis (`datasets/programs/nll_liveness_init.dl`) end to
//! end: on the hand-written `datasets/polonius-mini`, with the accesses it lacks added, every
//! engine agreeing batch by batch (whole models compared) on the fixture's shipped edit stream
//! and on edits of this analysis's own, over a model that is not trivial; and on planted
//! functions in rustc's shape (arguments assigned and every other local moved at the entry
//! point, effects at Mid points), where a moved path read again is a move error, the move found
//! as its origin, and the same functions without the move have none.

mod common;
use common::{dredbench_in_cache, repo, stderr};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const PROGRAM: &str = "datasets/programs/nll_liveness_init.dl";
const MINI: &str = "datasets/polonius-mini";
const EVERY_ENGINE: &str = "dred,bf,reference,recompute,dd,oracle";
const FEW_ENGINES: &str = "dred,bf,recompute";

/// The final model of each `.output` relation: its rows, sorted.
type Model = BTreeMap<String, Vec<String>>;

/// Facts as `(relation, tab-separated row)`.
type Rows = Vec<(String, String)>;

/// A batch of an update stream: rows inserted (`+`) or deleted (`-`).
type Batch<'a> = Vec<(&'a str, Rows)>;

/// The program's `.input` relations.
fn inputs() -> Vec<String> {
    std::fs::read_to_string(repo().join(PROGRAM))
        .expect("program")
        .lines()
        .filter_map(|l| l.strip_prefix(".input "))
        .map(|r| r.trim().to_string())
        .collect()
}

/// Runs the program on `facts` (then `updates`) with `engines`, whole models compared after
/// every batch; the engines must agree. Returns the final model.
fn run(facts: &Path, updates: Option<&Path>, engines: &str) -> Model {
    let cache = tempfile::tempdir().expect("tmp");
    let out = tempfile::tempdir().expect("tmp");
    let facts = facts.display().to_string();
    let out_dir = out.path().display().to_string();
    let mut args = vec![
        "run",
        "--program",
        PROGRAM,
        "--facts",
        &facts,
        "--engines",
        engines,
        "--check",
        "full",
        "--out",
        &out_dir,
    ];
    let updates = updates.map(|u| u.display().to_string());
    if let Some(u) = &updates {
        args.extend(["--updates", u]);
    }
    let o = dredbench_in_cache(cache.path(), &args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{facts} {updates:?}: {err}");
    assert!(err.contains("agree after every batch"), "{err}");
    let mut model = Model::new();
    for entry in std::fs::read_dir(out.path()).expect("out") {
        let path = entry.expect("entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).expect("name");
        let Some(rel) = name.strip_suffix(".csv") else {
            continue;
        };
        let text = std::fs::read_to_string(&path).expect("csv");
        let mut rows: Vec<String> = text.lines().map(str::to_string).collect();
        rows.sort();
        model.insert(rel.to_string(), rows);
    }
    model
}

/// One relation of a model (it must be an `.output` relation).
fn rel<'a>(model: &'a Model, name: &str) -> &'a [String] {
    model
        .get(name)
        .unwrap_or_else(|| panic!("{name} is not written: {:?}", model.keys()))
}

/// Rows of a function written compactly: `relation value value …` per line, values
/// space-separated and without the function's prefix; blank lines and `#` comments skipped.
/// Returns `(relation, tab-separated row with every value prefixed by f::)`.
fn rows(f: &str, text: &str) -> Rows {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut words = l.split_whitespace();
            let relation = words.next().expect("relation").to_string();
            let values: Vec<String> = words.map(|v| format!("{f}::{v}")).collect();
            (relation, values.join("\t"))
        })
        .collect()
}

/// The control flow of `n` statements in one block: `Start(bb0[i])` → `Mid(bb0[i])` →
/// `Start(bb0[i+1])`, as rows for [`rows`].
fn straight(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!("cfg_edge Start(bb0[{i}]) Mid(bb0[{i}])\n"));
        if i + 1 < n {
            s.push_str(&format!("cfg_edge Mid(bb0[{i}]) Start(bb0[{}])\n", i + 1));
        }
    }
    s
}

/// Writes a facts directory: every input relation of the program, empty unless `rows` has
/// some of it.
fn write_facts(dir: &Path, rows: &[(String, String)]) -> PathBuf {
    std::fs::create_dir_all(dir).expect("mkdir");
    let mut files: BTreeMap<String, String> =
        inputs().into_iter().map(|r| (r, String::new())).collect();
    for (relation, row) in rows {
        let text = files
            .get_mut(relation)
            .unwrap_or_else(|| panic!("{relation} is not read by the program"));
        text.push_str(row);
        text.push('\n');
    }
    for (relation, text) in files {
        std::fs::write(dir.join(format!("{relation}.facts")), text).expect("write");
    }
    dir.to_path_buf()
}

/// An update stream of `batches`, each a list of `(sign, rows)`, every batch committed.
fn write_stream(path: &Path, batches: &[Batch]) -> PathBuf {
    let mut s = String::new();
    for batch in batches {
        for (sign, rows) in batch {
            for (relation, row) in rows {
                s.push_str(&format!("{sign}\t{relation}\t{row}\n"));
            }
        }
        s.push_str("commit\n");
    }
    std::fs::write(path, s).expect("write");
    path.to_path_buf()
}

/// The fixture's facts with the accesses rustc would record for the sources its README gives:
/// `let v = w;` in e (moved where read), `&x` and `*r` in f, `&x` in g.
fn mini_with_accesses(dir: &Path) -> PathBuf {
    let facts = dir.join("facts");
    std::fs::create_dir_all(&facts).expect("mkdir");
    for entry in std::fs::read_dir(repo().join(MINI).join("facts")).expect("mini") {
        let path = entry.expect("entry").path();
        std::fs::copy(&path, facts.join(path.file_name().expect("name"))).expect("copy");
    }
    std::fs::write(
        facts.join("path_accessed_at_base.facts"),
        "e::mp2\te::Mid(bb0[1])\nf::mp1\tf::Mid(bb0[1])\nf::mp2\tf::Mid(bb0[3])\n\
         g::mp1\tg::Mid(bb0[1])\n",
    )
    .expect("write");
    facts
}

#[test]
fn mini_fixture_every_engine_agrees_on_edits_and_the_model_is_not_trivial() {
    let tmp = tempfile::tempdir().expect("tmp");
    let facts = mini_with_accesses(tmp.path());
    let initial = run(&facts, None, EVERY_ENGINE);
    for name in [
        "point_reachable",
        "path_maybe_init_on_exit",
        "path_maybe_uninit_on_exit",
        "path_definitely_init_on_entry",
        "var_definitely_init_on_entry",
        "var_live_on_entry",
        "var_drop_live_on_entry",
        "drop_dead",
        "dead_assignment",
    ] {
        assert!(!rel(&initial, name).is_empty(), "{name} is empty");
    }
    // Nothing is read after a move; e's guard is moved out before its drop, which is thus
    // dead; f's x is assigned twice and never read (the fixture records no use of it).
    assert!(rel(&initial, "move_error").is_empty());
    assert!(rel(&initial, "drop_open").is_empty());
    assert!(rel(&initial, "var_conditionally_init_on_entry").is_empty());
    assert_eq!(rel(&initial, "drop_dead"), ["e::_2\te::Mid(bb0[3])"]);
    let dead = rel(&initial, "dead_assignment");
    for row in ["f::_1\tf::Mid(bb0[0])", "f::_1\tf::Mid(bb0[2])"] {
        assert!(dead.iter().any(|r| r == row), "{row} in {dead:?}");
    }
    // e's moved path is initialised (maybe, not definitely) up to the move, then not.
    let uninit = rel(&initial, "path_maybe_uninit_on_exit");
    assert!(uninit.iter().any(|r| r == "e::mp3\te::Mid(bb0[1])"));
    assert!(!uninit.iter().any(|r| r == "e::mp3\te::Mid(bb0[0])"));

    // The fixture's shipped stream, without the relations this program does not read (a
    // batch of loan_killed_at only becomes empty): it ends where it began.
    let read = inputs();
    let shipped = std::fs::read_to_string(repo().join(MINI).join("edits.updates")).expect("edits");
    let kept: String = shipped
        .lines()
        .filter(|l| {
            let mut cols = l.split('\t');
            match (cols.next(), cols.next()) {
                (Some("+" | "-"), Some(r)) => read.iter().any(|x| x == r),
                _ => true,
            }
        })
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(kept.contains("path_moved_at_base") && !kept.contains("loan_killed_at"));
    let shipped = tmp.path().join("shipped.updates");
    std::fs::write(&shipped, kept).expect("write");
    assert_eq!(run(&facts, Some(&shipped), EVERY_ENGINE), initial);

    // Edits of this analysis, each batch checked on its own below, and the whole stream, which
    // ends where it began, by every engine.
    let e = |t: &str| rows("e", t);
    let f = |t: &str| rows("f", t);
    let batches: Vec<Batch> = vec![
        // 1. w's field read after w is moved out: a move error, the move its origin.
        vec![("+", e("path_accessed_at_base mp3 Mid(bb0[2])"))],
        // 2. a way around the move: still an error (maybe moved), and the drop of w, which
        //    may now hold a value on some ways, needs a flag.
        vec![("+", e("cfg_edge Mid(bb0[0]) Start(bb0[2])"))],
        // 3. no move at all: no error, a static drop.
        vec![("-", e("path_moved_at_base mp2 Mid(bb0[1])"))],
        // 4. back to 1.
        vec![
            ("+", e("path_moved_at_base mp2 Mid(bb0[1])")),
            ("-", e("cfg_edge Mid(bb0[0]) Start(bb0[2])")),
        ],
        // 5. f's x read at the end: its second assignment is no longer dead, its first is
        //    (overwritten before any read).
        vec![("+", f("var_used_at _1 Mid(bb0[3])"))],
        // 6. ... nor the first once the second is no definition of it.
        vec![("-", f("var_defined_at _1 Mid(bb0[2])"))],
        // 7. a loop back to f's second statement, and the edge into its last cut: the last
        //    statement becomes an entry of its own (no predecessor), and the loop is no
        //    longer reached.
        vec![
            ("+", f("cfg_edge Mid(bb0[3]) Start(bb0[1])")),
            ("-", f("cfg_edge Mid(bb0[0]) Start(bb0[1])")),
            ("-", f("cfg_edge Mid(bb0[3]) Start(bb0[4])")),
        ],
        // 8. everything undone.
        vec![
            ("-", f("cfg_edge Mid(bb0[3]) Start(bb0[1])")),
            ("+", f("cfg_edge Mid(bb0[0]) Start(bb0[1])")),
            ("+", f("cfg_edge Mid(bb0[3]) Start(bb0[4])")),
            ("+", f("var_defined_at _1 Mid(bb0[2])")),
            ("-", f("var_used_at _1 Mid(bb0[3])")),
            ("-", e("path_accessed_at_base mp3 Mid(bb0[2])")),
        ],
    ];
    let upto = |k: usize| {
        let path = tmp.path().join(format!("own-{k}.updates"));
        run(
            &facts,
            Some(&write_stream(&path, &batches[..k])),
            FEW_ENGINES,
        )
    };
    let error = ["e::mp3\te::Mid(bb0[2])"];
    let origin = ["e::mp3\te::Mid(bb0[1])\te::Mid(bb0[2])"];
    let after1 = upto(1);
    assert_eq!(rel(&after1, "move_error"), error);
    assert_eq!(rel(&after1, "move_error_origin"), origin);
    let after2 = upto(2);
    assert_eq!(rel(&after2, "move_error"), error);
    assert_eq!(rel(&after2, "move_error_origin"), origin);
    assert_eq!(rel(&after2, "drop_open"), ["e::_2\te::Mid(bb0[3])"]);
    assert!(rel(&after2, "drop_dead").is_empty());
    assert!(rel(&after2, "var_conditionally_init_on_entry")
        .iter()
        .any(|r| r == "e::_2\te::Mid(bb0[3])"));
    let after3 = upto(3);
    assert!(rel(&after3, "move_error").is_empty());
    assert!(rel(&after3, "drop_open").is_empty() && rel(&after3, "drop_dead").is_empty());
    assert_eq!(upto(4), after1);
    let dead_f = |m: &Model| -> Vec<String> {
        rel(m, "dead_assignment")
            .iter()
            .filter(|r| r.starts_with("f::_1\t"))
            .cloned()
            .collect()
    };
    assert_eq!(dead_f(&upto(5)), ["f::_1\tf::Mid(bb0[0])"]);
    assert!(dead_f(&upto(6)).is_empty());
    let after7 = upto(7);
    let reached_f: Vec<&String> = rel(&after7, "point_reachable")
        .iter()
        .filter(|r| r.starts_with("f::"))
        .collect();
    assert_eq!(
        reached_f,
        [
            "f::Mid(bb0[0])",
            "f::Mid(bb0[4])",
            "f::Start(bb0[0])",
            "f::Start(bb0[4])"
        ]
    );
    let own = write_stream(&tmp.path().join("own.updates"), &batches);
    assert_eq!(run(&facts, Some(&own), EVERY_ENGINE), initial);
}

/// `fn m(x: String) -> usize { let y = x; let n = x.len(); drop(y); n }` in MIR: x is `_1`,
/// y `_2`, the borrow for `len` `_3`, the return place `_0`; `&x` reads x after the move.
/// The move is the one row marked.
const M: &str = "
    path_is_var mp0 _0
    path_is_var mp1 _1
    path_is_var mp2 _2
    path_is_var mp3 _3
    # entry: the argument is assigned, the other locals moved out
    path_assigned_at_base mp1 Start(bb0[0])
    path_moved_at_base mp0 Start(bb0[0])
    path_moved_at_base mp2 Start(bb0[0])
    path_moved_at_base mp3 Start(bb0[0])
    # bb0[0]: _2 = move _1
    var_used_at _1 Mid(bb0[0])
    var_defined_at _2 Mid(bb0[0])
    path_accessed_at_base mp1 Mid(bb0[0])
    path_assigned_at_base mp2 Mid(bb0[0])
    # bb0[1]: _3 = &_1
    var_used_at _1 Mid(bb0[1])
    var_defined_at _3 Mid(bb0[1])
    path_accessed_at_base mp1 Mid(bb0[1])
    path_assigned_at_base mp3 Mid(bb0[1])
    # bb0[2]: _0 = String::len(move _3)
    var_used_at _3 Mid(bb0[2])
    var_defined_at _0 Mid(bb0[2])
    path_accessed_at_base mp3 Mid(bb0[2])
    path_moved_at_base mp3 Mid(bb0[2])
    path_assigned_at_base mp0 Mid(bb0[2])
    # bb0[3]: drop(_2); bb0[4]: drop(_1); bb0[5]: return
    var_dropped_at _2 Mid(bb0[3])
    var_dropped_at _1 Mid(bb0[4])
    var_used_at _0 Mid(bb0[5])
";
const M_MOVE: &str = "path_moved_at_base mp1 Mid(bb0[0])";

/// `fn c(x: String, b: bool) { if b { consume(x) } let r = &x; }`: x is `_1`, b `_2`, r `_3`;
/// x is moved on one way only, read after the join, and dropped at the end.
const C: &str = "
    cfg_edge Start(bb0[0]) Mid(bb0[0])
    cfg_edge Mid(bb0[0]) Start(bb1[0])
    cfg_edge Mid(bb0[0]) Start(bb2[0])
    cfg_edge Start(bb1[0]) Mid(bb1[0])
    cfg_edge Mid(bb1[0]) Start(bb2[0])
    cfg_edge Start(bb2[0]) Mid(bb2[0])
    cfg_edge Mid(bb2[0]) Start(bb2[1])
    cfg_edge Start(bb2[1]) Mid(bb2[1])
    cfg_edge Mid(bb2[1]) Start(bb2[2])
    cfg_edge Start(bb2[2]) Mid(bb2[2])
    path_is_var mp1 _1
    path_is_var mp2 _2
    path_is_var mp3 _3
    path_assigned_at_base mp1 Start(bb0[0])
    path_assigned_at_base mp2 Start(bb0[0])
    path_moved_at_base mp3 Start(bb0[0])
    # bb0[0]: switchInt(copy _2)
    var_used_at _2 Mid(bb0[0])
    path_accessed_at_base mp2 Mid(bb0[0])
    # bb1[0]: consume(move _1)
    var_used_at _1 Mid(bb1[0])
    path_accessed_at_base mp1 Mid(bb1[0])
    # bb2[0]: _3 = &_1
    var_used_at _1 Mid(bb2[0])
    var_defined_at _3 Mid(bb2[0])
    path_accessed_at_base mp1 Mid(bb2[0])
    path_assigned_at_base mp3 Mid(bb2[0])
    # bb2[1]: drop(_1); bb2[2]: return
    var_dropped_at _1 Mid(bb2[1])
";
const C_MOVE: &str = "path_moved_at_base mp1 Mid(bb1[0])";

/// `fn u() { let z: String; let r = &z; }`: z (`_1`) is never assigned, only moved out at
/// the entry as every local that is not an argument; r is `_2`.
const U: &str = "
    path_is_var mp1 _1
    path_is_var mp2 _2
    path_moved_at_base mp1 Start(bb0[0])
    path_moved_at_base mp2 Start(bb0[0])
    # bb0[0]: _2 = &_1; bb0[1]: return
    var_used_at _1 Mid(bb0[0])
    var_defined_at _2 Mid(bb0[0])
    path_accessed_at_base mp1 Mid(bb0[0])
    path_assigned_at_base mp2 Mid(bb0[0])
";

#[test]
fn a_planted_move_is_a_move_error_and_without_it_there_is_none() {
    let tmp = tempfile::tempdir().expect("tmp");
    let m = |t: &str| rows("m", t);
    let c = |t: &str| rows("c", t);
    let u = |t: &str| rows("u", t);
    let body = [m(&straight(6)), m(M), c(C)].concat();
    let moves = [m(M_MOVE), c(C_MOVE)].concat();

    // With the moves: x read after it is moved (m), and after it may be moved (c), whose drop
    // of x then needs a flag; m's drop of x is dead.
    let with = write_facts(
        &tmp.path().join("with"),
        &[body.clone(), moves.clone()].concat(),
    );
    let model = run(&with, None, EVERY_ENGINE);
    let errors = ["c::mp1\tc::Mid(bb2[0])", "m::mp1\tm::Mid(bb0[1])"];
    let origins = [
        "c::mp1\tc::Mid(bb1[0])\tc::Mid(bb2[0])",
        "m::mp1\tm::Mid(bb0[0])\tm::Mid(bb0[1])",
    ];
    assert_eq!(rel(&model, "move_error"), errors);
    assert_eq!(rel(&model, "move_error_origin"), origins);
    assert_eq!(rel(&model, "drop_open"), ["c::_1\tc::Mid(bb2[1])"]);
    assert_eq!(rel(&model, "drop_dead"), ["m::_1\tm::Mid(bb0[4])"]);
    let conditional = rel(&model, "var_conditionally_init_on_entry");
    for row in ["c::_1\tc::Start(bb2[0])", "c::_1\tc::Mid(bb2[1])"] {
        assert!(conditional.iter().any(|r| r == row), "{row}");
    }
    // c's r is assigned and never read.
    assert_eq!(rel(&model, "dead_assignment"), ["c::_3\tc::Mid(bb2[0])"]);

    // The same without the moves (`let y = x.clone()`, `consume(x.clone())`): no error, and
    // both drops of x static.
    let without = write_facts(&tmp.path().join("without"), &body);
    let clean = run(&without, None, EVERY_ENGINE);
    for name in ["move_error", "move_error_origin", "drop_open", "drop_dead"] {
        assert!(
            rel(&clean, name).is_empty(),
            "{name}: {:?}",
            rel(&clean, name)
        );
    }
    assert!(!rel(&clean, "var_definitely_init_on_entry").is_empty());

    // Incrementally: u, whose z is read and never assigned, added (an error whose origin is
    // the entry); z made an argument; the planted moves removed one by one; then u removed
    // and the moves put back, which is where the stream began.
    let u_all = [u(&straight(2)), u(U)].concat();
    let u_entry_move = u("path_moved_at_base mp1 Start(bb0[0])");
    let u_as_argument = u("path_assigned_at_base mp1 Start(bb0[0])");
    let u_rest: Vec<_> = u_all
        .iter()
        .filter(|r| !u_entry_move.contains(r))
        .cloned()
        .collect();
    let batches: Vec<Batch> = vec![
        vec![("+", u_all.clone())],
        vec![("-", u_entry_move.clone()), ("+", u_as_argument.clone())],
        vec![("-", m(M_MOVE))],
        vec![("-", c(C_MOVE))],
        vec![("-", u_rest), ("-", u_as_argument), ("+", moves.clone())],
    ];
    let upto = |k: usize| {
        let path = tmp.path().join(format!("planted-{k}.updates"));
        run(
            &with,
            Some(&write_stream(&path, &batches[..k])),
            FEW_ENGINES,
        )
    };
    let after1 = upto(1);
    assert_eq!(
        rel(&after1, "move_error"),
        [errors[0], errors[1], "u::mp1\tu::Mid(bb0[0])"]
    );
    assert_eq!(
        rel(&after1, "move_error_origin"),
        [
            origins[0],
            origins[1],
            "u::mp1\tu::Start(bb0[0])\tu::Mid(bb0[0])"
        ]
    );
    assert_eq!(rel(&upto(2), "move_error"), errors);
    assert_eq!(rel(&upto(3), "move_error"), [errors[0]]);
    let after4 = upto(4);
    assert!(rel(&after4, "move_error").is_empty());
    assert!(rel(&after4, "drop_open").is_empty());
    let stream = write_stream(&tmp.path().join("planted.updates"), &batches);
    assert_eq!(run(&with, Some(&stream), EVERY_ENGINE), model);
}
