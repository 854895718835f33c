//! End-to-end tests of arithmetic through `dredbench run`: a program computing distances,
//! residues and a filter over expressions, maintained by every engine under deletions and
//! insertions, its outputs worked out by hand; located errors for what the checker refuses;
//! and the round guard (`--max-rounds`) on a recursion that never ends.

mod common;
use common::{dredbench, scratch_with_facts, stderr, write};

/// Every engine, the oracle first.
const ENGINES: &str = "oracle,dred,bf,reference,dd,recompute,recompute-levels,rotate,auto,counting";

const PROGRAM: &str = "\
.decl e(x: number, y: number)
.input e
.decl dist(x: number, d: number)
.output dist
.decl far(x: number)
.output far
.decl res(x: number, r: number)
.output res
dist(1, 0).
dist(y, d + 1) :- dist(x, d), e(x, y), d < 4.
far(x) :- dist(x, d), d * 2 >= 3 + 1, !e(x, x + 1).
res(x, r) :- e(x, y), r = (x * 10 + y) % 7, r != y / 0.
res(x, r) :- e(x, _), r = x / 0.
";

#[test]
fn every_engine_maintains_arithmetic_and_gives_the_hand_worked_model() {
    let (tmp, facts) = scratch_with_facts();
    write(&facts, "e.facts", "1\t2\n2\t3\n3\t4\n4\t9\n");
    let program = write(tmp.path(), "p.dl", PROGRAM);
    // The chain 1 → 2 → 3 → 4 loses 2 → 3, then gets it back with a shortcut 1 → 3.
    let updates = write(
        tmp.path(),
        "u.updates",
        "-\te\t2\t3\ncommit\n+\te\t2\t3\n+\te\t1\t3\ncommit\n",
    );
    let out = tmp.path().join("out");
    let o = dredbench(&[
        "run",
        "--program",
        &program,
        "--facts",
        facts.to_str().expect("utf-8"),
        "--updates",
        &updates,
        "--engines",
        ENGINES,
        "--check",
        "full",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("2 batch(es); engines oracle, dred"),
        "{}",
        stderr(&o)
    );
    let read = |name: &str| std::fs::read_to_string(out.join(name)).expect(name);
    // Edges 1→2, 2→3, 3→4, 4→9, 1→3. Distances (d < 4 bounds the recursion): 1 at 0;
    // 2 at 1; 3 at 1 and 2; 4 at 2 and 3; 9 at 3 and 4.
    assert_eq!(
        read("dist.csv"),
        "1\t0\n2\t1\n3\t1\n3\t2\n4\t2\n4\t3\n9\t3\n9\t4\n"
    );
    // d ≥ 2, and no edge x → x + 1: 3 (3→4 is one) is out; 4 (4→9 is not) and 9 are in.
    assert_eq!(read("far.csv"), "4\n9\n");
    // r = (10x + y) % 7 for each edge; the comparison with y / 0 and the assignment of
    // x / 0 have no value, so those instances derive nothing.
    assert_eq!(read("res.csv"), "");
}

#[test]
fn the_round_guard_stops_a_recursion_that_never_ends() {
    let (tmp, facts) = scratch_with_facts();
    write(&facts, "n.facts", "0\n");
    let program = write(
        tmp.path(),
        "p.dl",
        ".decl n(x: number)\n.input n\n.decl up(x: number)\n.output up\n\
         up(x) :- n(x).\nup(x + 1) :- up(x).\n",
    );
    for engine in ENGINES.split(',') {
        let o = dredbench(&[
            "run",
            "--program",
            &program,
            "--facts",
            facts.to_str().expect("utf-8"),
            "--engines",
            engine,
            "--max-rounds",
            "100",
        ]);
        assert_eq!(o.status.code(), Some(1), "{engine}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains(&format!("engine `{engine}` failed in batch 0"))
                && err.contains("the fixpoint of `up` did not end within 100 rounds"),
            "{engine}: {err}"
        );
        assert!(!err.contains("panicked"), "{engine}: {err}");
    }
    // A bounded recursion of 150 rounds needs a limit above 150.
    let bounded = write(
        tmp.path(),
        "b.dl",
        ".decl n(x: number)\n.input n\n.decl up(x: number)\n.output up\n\
         up(x) :- n(x).\nup(x + 1) :- up(x), x < 150.\n",
    );
    let run = |limit: &str| {
        dredbench(&[
            "run",
            "--program",
            &bounded,
            "--facts",
            facts.to_str().expect("utf-8"),
            "--engines",
            "dred,recompute,oracle",
            "--max-rounds",
            limit,
        ])
    };
    assert_eq!(run("100").status.code(), Some(1));
    let o = run("200");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("up: 151"), "{}", stderr(&o));
}

#[test]
fn refused_arithmetic_is_a_located_error() {
    let (tmp, facts) = scratch_with_facts();
    write(&facts, "s.facts", "a\n");
    for (rule, at) in [
        // A variable no atom or equality binds.
        ("r(x + 1) :- s(y).", "p.dl:5:3"),
        // Arithmetic on a symbol.
        ("r(y) :- s(x), y = x * 2.", "p.dl:5:19"),
        // Inside an aggregate's braces.
        ("r(c) :- c = sum y + 1 : { s(y) }.", "p.dl:5:17"),
        // A symbol where a string functor's number is wanted.
        ("r(y) :- s(x), y = strlen(x) + x.", "p.dl:5:31"),
        // A symbol as a bound of `range`.
        ("r(y) :- s(x), y = range(x, 3).", "p.dl:5:25"),
    ] {
        let program = write(
            tmp.path(),
            "p.dl",
            &format!(".decl s(x: symbol)\n.input s\n.decl r(x: number)\n.output r\n{rule}\n"),
        );
        let o = dredbench(&[
            "run",
            "--program",
            &program,
            "--facts",
            facts.to_str().expect("utf-8"),
        ]);
        assert_eq!(o.status.code(), Some(2), "{rule}: {}", stderr(&o));
        assert!(stderr(&o).contains(at), "{rule}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{rule}");
    }
}
