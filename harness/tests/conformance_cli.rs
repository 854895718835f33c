//! The Soufflé constructs the front end rewrites into the core (declared types, hexadecimal
//! and binary literals, `.printsize`, disjunction, several heads, rules without a positive
//! atom, components, `.include`, `eqrel` with its expected outputs computed by its
//! `expect.py`), arithmetic (`datasets/conformance/arithmetic/`: every operator,
//! precedence, binding, recursion), string functors (`strings/`: every functor and
//! constraint in every place arithmetic takes, and in recursion; expected outputs by
//! `expect.py`), `unsigned` and `float` columns (`numeric/`: literals typed by context,
//! each type's operators, conversions, aggregates, recursion; expected outputs by
//! `expect.py`) and aggregates beyond plain grouping (`aggregates/`:
//! arithmetic inside the braces and in the target, correlated and nested aggregates, its
//! expected outputs computed by its `expect.py` in plain Python), one conformance case each
//! in `datasets/conformance/`: from scratch every engine gives the model worked out by hand
//! or by script (`expected/`), and under a churn stream every engine agrees with the oracle
//! after every batch, whole models compared.

mod common;
use common::{dredbench, repo, stderr};

use std::collections::BTreeMap;
use std::path::Path;

const CASES: [&str; 19] = [
    "types",
    "disjunction",
    "ground",
    "components",
    "arithmetic/operators",
    "arithmetic/precedence",
    "arithmetic/binding",
    "arithmetic/recursion",
    "strings/functors",
    "strings/recursion",
    "numeric",
    "aggregates",
    "include",
    "eqrel",
    "records",
    "adts",
    "aggregate-terms",
    "preprocessor",
    "range",
];

/// Every engine that evaluates programs with negation, the oracle first.
const ENGINES: &str = "oracle,dred,bf,reference,dd,recompute,recompute-levels,rotate,auto,counting";

fn csvs(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .map(|p| {
            let name = p.file_name().expect("name").to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).expect("read"))
        })
        .collect()
}

/// `dredbench run` of the program `src`, written as `p.dl` in `dir`, on the facts in `facts`.
fn run_program(dir: &Path, src: &str, facts: &Path) -> std::process::Output {
    let prog = dir.join("p.dl");
    std::fs::write(&prog, src).expect("write");
    dredbench(&[
        "run",
        "--program",
        prog.to_str().expect("utf-8"),
        "--facts",
        facts.to_str().expect("utf-8"),
    ])
}

/// `dredbench run` on a conformance case's program and facts, with these further arguments.
fn run_case(case: &str, extra: &[&str]) -> std::process::Output {
    let dir = format!("datasets/conformance/{case}");
    let program = format!("{dir}/program.dl");
    let facts = format!("{dir}/facts");
    let mut args = vec!["run", "--program", &program, "--facts", &facts];
    args.extend_from_slice(extra);
    dredbench(&args)
}

#[test]
fn every_engine_gives_the_hand_worked_model_from_scratch() {
    for case in CASES {
        let tmp = tempfile::tempdir().expect("tmp");
        let out = tmp.path().join("out");
        let o = run_case(
            case,
            &["--engines", ENGINES, "--out", out.to_str().expect("utf-8")],
        );
        assert_eq!(o.status.code(), Some(0), "{case}: {}", stderr(&o));
        let expected = csvs(
            &repo()
                .join("datasets/conformance")
                .join(case)
                .join("expected"),
        );
        assert!(!expected.is_empty(), "{case}: no expected outputs");
        assert_eq!(csvs(&out), expected, "{case}");
    }
}

#[test]
fn every_engine_agrees_with_the_oracle_under_churn() {
    for case in CASES {
        let churn = format!("datasets/conformance/{case}/churn.updates");
        let o = run_case(
            case,
            &["--updates", &churn, "--check", "full", "--engines", ENGINES],
        );
        assert_eq!(o.status.code(), Some(0), "{case}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("4 batch(es); engines oracle, dred, bf, reference, dd"),
            "{case}: {}",
            stderr(&o)
        );
    }
}

/// Maintained query-driven (`--query`, the magic-set rewrite renders the checked program
/// as text again), each case answers its query as the full program does.
#[test]
fn the_magic_set_rewrite_keeps_the_rewritten_constructs() {
    for (case, query, relation) in [
        ("types", "adult(x)", "adult"),
        ("disjunction", "reach(\"a\", y)", "reach"),
        ("ground", "status(x)", "status"),
        ("components", "visits(x, y)", "visits"),
    ] {
        let churn = format!("datasets/conformance/{case}/churn.updates");
        let tmp = tempfile::tempdir().expect("tmp");
        let out = tmp.path().join("out");
        let o = run_case(
            case,
            &[
                "--updates",
                &churn,
                "--query",
                query,
                "--out",
                out.to_str().expect("utf-8"),
            ],
        );
        assert_eq!(o.status.code(), Some(0), "{case}: {}", stderr(&o));
        // The stream ends where it began but for what it added, so the answers after it
        // are those of the full program on the final facts.
        let full = tmp.path().join("full");
        let o = run_case(
            case,
            &[
                "--updates",
                &churn,
                "--engines",
                "oracle",
                "--out",
                full.to_str().expect("utf-8"),
            ],
        );
        assert_eq!(o.status.code(), Some(0), "{case}: {}", stderr(&o));
        let answers = std::fs::read_to_string(out.join("answers.csv")).expect("answers");
        let whole =
            std::fs::read_to_string(full.join(format!("{relation}.csv"))).expect("relation");
        // Answers are the relation's rows that match the query (its first column bound).
        let expected: String = whole
            .lines()
            .filter(|l| !query.contains('"') || l.starts_with("a\t"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(!expected.is_empty(), "{case}: no answers to compare");
        assert_eq!(answers, expected, "{case}");
    }
}

/// `--query` refuses a program with arithmetic, at its first rule that computes a value.
#[test]
fn the_magic_set_rewrite_refuses_arithmetic() {
    let o = run_case(
        "arithmetic/binding",
        &["--query", "twice(1, y)", "--engines", "dred"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("does not rewrite programs with arithmetic")
            && stderr(&o).contains("program.dl:23:1"),
        "{}",
        stderr(&o)
    );
}

/// What the front end still refuses is a located error, exit 2, never a panic.
#[test]
fn refused_constructs_are_located_errors() {
    let tmp = tempfile::tempdir().expect("tmp");
    let facts = tmp.path().join("facts");
    std::fs::create_dir(&facts).expect("mkdir");
    for (src, at) in [
        // Numeric types: mixing them without a conversion, an operator a type lacks, a
        // negative `unsigned`.
        (
            ".decl r(x: float)\n.decl n(x: number)\nr(x + y) :- r(x), n(y).\n",
            "p.dl:3:7",
        ),
        (".decl r(x: float)\nr(x % 2) :- r(x).\n", "p.dl:2:3"),
        (".decl r(x: unsigned)\nr(-1).\n", "p.dl:2:3"),
        (
            ".type T = A | B\n.type A <: symbol\n.type B <: number\n.decl r(x: T)\n",
            "p.dl:1:15",
        ),
        (".decl r(x: number)\n.printsize q\n", "p.dl:2:12"),
        (
            ".decl r(x: number)\n.decl a(x: number)\nr(x) :- !a(x).\n",
            "p.dl:3:12",
        ),
        // A string functor given a number; `range` over symbols, with a bound bound only
        // through its own values, with one argument.
        (
            ".decl r(x: number)\nr(x) :- r(y), x = cat(y, y).\n",
            "p.dl:2:23",
        ),
        (
            ".decl r(x: symbol)\nr(x) :- x = range(1, 3).\n",
            "p.dl:2:13",
        ),
        (
            ".decl r(x: number)\n.decl q(x: number)\nr(x) :- q(y), x = range(y, z), z = x + 1.\n",
            "p.dl:3:28",
        ),
        (".decl r(x: number)\nr(x) :- x = range(1).\n", "p.dl:2:13"),
        // Components: an undeclared one, a wrong number of type arguments, an error in an
        // instance's rule (located in the component's body).
        (".init x = Nope\n", "p.dl:1:11"),
        (".comp G<N> { .decl e(x: N) }\n.init g = G\n", "p.dl:2:11"),
        (
            ".comp C {\n  .decl r(x: number)\n  r(x) :- s(x).\n}\n.init c = C\n",
            "p.dl:3:11",
        ),
    ] {
        let o = run_program(tmp.path(), src, &facts);
        assert_eq!(o.status.code(), Some(2), "{src}: {}", stderr(&o));
        assert!(stderr(&o).contains(at), "{src}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{src}");
    }
}

/// Includes: a missing file is an error at its name in the directive, a cycle at the
/// directive that closes it, and an error inside an included file names that file, its line
/// and its column; all exit 2.
#[test]
fn include_errors_name_the_file_that_has_them() {
    let tmp = tempfile::tempdir().expect("tmp");
    let facts = tmp.path().join("facts");
    std::fs::create_dir(&facts).expect("mkdir");
    std::fs::create_dir(tmp.path().join("lib")).expect("mkdir");
    let write =
        |name: &str, text: &str| std::fs::write(tmp.path().join(name), text).expect("write");
    write("lib/bad.dl", "// bad\nr(x) :- s(x).\n");
    write("lib/loop.dl", "#include \"../p.dl\"\n");
    for (src, at, what) in [
        (
            ".decl r(x: number)\n.include \"gone.dl\"\n",
            "p.dl:2:10",
            "cannot read included file",
        ),
        (
            ".decl r(x: number)\n.include \"lib/bad.dl\"\n",
            "bad.dl:2:9",
            "relation `s` is not declared",
        ),
        (
            ".decl r(x: number)\n.include \"lib/loop.dl\"\n",
            "loop.dl:1:1",
            "include cycle",
        ),
    ] {
        let o = run_program(tmp.path(), src, &facts);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{src}: {err}");
        assert!(err.contains(at) && err.contains(what), "{src}: {err}");
        assert!(!err.contains("panicked"), "{src}");
    }
}

/// `--query` refuses a program with an `.input` `eqrel` relation, at its declaration (its EDB
/// part has no spelling in the rewritten program).
#[test]
fn the_magic_set_rewrite_refuses_an_input_eqrel() {
    let o = run_case("eqrel", &["--query", "same(\"a\", y)", "--engines", "dred"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("`.input` `eqrel` relation (`same`)")
            && stderr(&o).contains("program.dl:3:7"),
        "{}",
        stderr(&o)
    );
}

/// `-M` defines macros before every program is read, as Soufflé's: `NAME` as 1, `NAME=VALUE`,
/// `NAME(params)=BODY` (a body with spaces); a definition that does not read exits 2 before
/// anything runs.
#[test]
fn command_line_macros_are_defined_before_the_program() {
    let tmp = tempfile::tempdir().expect("tmp");
    let facts = tmp.path().join("facts");
    std::fs::create_dir(&facts).expect("mkdir");
    let program = tmp.path().join("p.dl");
    std::fs::write(
        &program,
        ".decl r(x: number)\n.output r\n#ifdef DEBUG\nr(LIMIT).\n#endif\nr(TWICE(4)).\n",
    )
    .expect("write");
    let out = tmp.path().join("out");
    let o = dredbench(&[
        "run",
        "--program",
        program.to_str().expect("utf-8"),
        "--facts",
        facts.to_str().expect("utf-8"),
        "--engines",
        "oracle,dred,dd",
        "-M",
        "DEBUG",
        "-M",
        "LIMIT=3",
        "--macro",
        "TWICE(x)=x * 2",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(out.join("r.csv")).expect("r.csv"),
        "3\n8\n"
    );
    for bad in ["3X=1", "F(=1"] {
        let o = dredbench(&[
            "run",
            "--program",
            program.to_str().expect("utf-8"),
            "--facts",
            facts.to_str().expect("utf-8"),
            "-M",
            bad,
        ]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("macro `{bad}`")),
            "{}",
            stderr(&o)
        );
    }
}
