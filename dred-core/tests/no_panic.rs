//! Bad input never panics: arbitrary text, and mutations of a valid program, fact file and
//! update stream, either load or give a located error.

use dred_core::{io::parse_updates, load_program, SourceFile, Symbols};
use proptest::prelude::*;

const PROGRAM: &str = ".decl edge(x: symbol, y: number)\n.decl path(x: symbol, y: number)\n\
.decl ready()\n.input edge\n.output path\npath(x, y) :- edge(x, y), y > -2.\n\
path(x, z) :- path(x, y), edge(_, z), !edge(x, y), x != \"q\".\nready().\n";

/// Components: a parameterised base with an overridable relation, a derived component, a
/// nested one, instances used by qualified names.
const COMPONENTS: &str = ".comp G<N> {\n.decl e(x: N, y: N)\n.decl r(x: N, y: N) overridable\n\
.input e\nr(x, y) :- e(x, y).\n}\n.comp D<N> : G<N> {\n.override r\nr(x, y) :- e(y, x).\n\
.comp I { .decl c(x: N) c(x) :- r(x, x). }\n.init i = I\n}\n.init g = G<number>\n\
.init d = D<symbol>\n.decl t(x: symbol)\n.output t\nt(x) :- d.i.c(x), !d.e(x, _), g.r(1, 2).\n";

const UPDATES: &str = "# c\n-\tedge\ta\t1\n+\tedge\tb\t2\ncommit\n+\tedge\tc\t3\n";

/// Records, an ADT, an aggregate term and the preprocessor.
const RECORDS: &str = "#define PAIR(a, b) [a, b]\n#ifdef PAIR\n.type P = [n: number, s: symbol]\n\
#else\n#error no\n#endif\n.type E = Num {n: number} | Add {l: E, r: E} | Zero {}\n\
.type L = [h: P, t: L]\n.decl p(x: P)\n.decl e(x: E, l: L)\n.input p\n.input e\n\
.decl o(x: number, y: E)\no(n, $Add($Num(n), y)) :- p(PAIR(n, _)), e(y, [[n, s], nil]), \
s != \"a\", n < count : { e($Zero, _) }.\n";

/// A record facts line of `L` (see [`RECORDS`]).
const RECORD_FACT: &str = "[[1, a], [[2, \"b, c\"], nil]]";

/// Replaces, inserts or deletes characters at random positions.
fn mutate(base: &'static str) -> impl Strategy<Value = String> {
    let alphabet: Vec<char> = "(),.:-!_\"\t\n /*xyz0129edgepath<>=;{}#+é[]$"
        .chars()
        .collect();
    prop::collection::vec(
        (
            any::<prop::sample::Index>(),
            0u8..3,
            prop::sample::select(alphabet),
        ),
        1..6,
    )
    .prop_map(move |edits| {
        let mut chars: Vec<char> = base.chars().collect();
        for (ix, kind, c) in edits {
            let i = ix.index(chars.len() + 1);
            match kind {
                0 if i < chars.len() => chars[i] = c,
                1 => chars.insert(i, c),
                _ if i < chars.len() => {
                    chars.remove(i);
                }
                _ => chars.push(c),
            }
        }
        chars.into_iter().collect()
    })
}

fn check_located(e: &dred_core::Diagnostic) {
    assert!(e.line() >= 1 && e.column() >= 1);
    let r = e.render();
    assert!(r.contains(&format!(":{}:{}:", e.line(), e.column())), "{r}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_program_text(text in ".{0,80}") {
        if let Err(e) = load_program(&SourceFile::new("f.dl", text), &mut Symbols::new()) {
            check_located(&e);
        }
    }

    #[test]
    fn mutated_component_program(text in mutate(COMPONENTS)) {
        if let Err(e) = load_program(&SourceFile::new("f.dl", text), &mut Symbols::new()) {
            check_located(&e);
        }
    }

    #[test]
    fn mutated_program(text in mutate(PROGRAM)) {
        if let Err(e) = load_program(&SourceFile::new("f.dl", text), &mut Symbols::new()) {
            check_located(&e);
        }
    }

    #[test]
    fn mutated_record_program(text in mutate(RECORDS)) {
        if let Err(e) = load_program(&SourceFile::new("f.dl", text), &mut Symbols::new()) {
            check_located(&e);
        }
    }

    #[test]
    fn mutated_record_value(text in mutate(RECORD_FACT)) {
        let mut symbols = Symbols::new();
        let program = load_program(&SourceFile::new("f.dl", RECORDS), &mut symbols).expect("valid");
        let l = program.relations[program.relation_id("e").expect("e")].types[1];
        // An error is a reason, never a panic; a value read is written back readably.
        if let Ok(v) = dred_core::io::parse_value(&text, l, &mut symbols) {
            let again = dred_core::io::parse_value(&symbols.raw(l, v), l, &mut symbols);
            prop_assert_eq!(again, Ok(v));
        }
    }

    #[test]
    fn mutated_updates(text in mutate(UPDATES)) {
        let mut symbols = Symbols::new();
        let program = load_program(&SourceFile::new("f.dl", PROGRAM), &mut symbols).expect("valid");
        if let Err(e) = parse_updates(&SourceFile::new("u.updates", text), &program, &mut symbols) {
            check_located(&e);
        }
    }
}

/// The programs the mutations start from are valid, so they reach past the parser.
#[test]
fn the_component_and_record_programs_load() {
    load_program(&SourceFile::new("c.dl", COMPONENTS), &mut Symbols::new()).expect("valid");
    load_program(&SourceFile::new("r.dl", RECORDS), &mut Symbols::new()).expect("valid");
}
