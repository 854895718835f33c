//! The C preprocessor's macros and conditionals mean what they expand to: a random case whose
//! rules name every relation through a macro (`#define REL_p p`, defined in an included
//! file, with a function-like macro for the binary relations: `EDGE(e, x, y)`), whose rules
//! stand inside conditionals that hold (`#ifdef`, `#if defined(..) && ..`, an `#else`
//! branch), beside branches that do not and would fail if read (an `#include` of a file that
//! does not exist, text that does not parse), has after every batch the models of the case
//! as written: the oracle on the plain text against the oracle and `dred` on the
//! preprocessed one (negation and aggregates included).

use std::collections::BTreeSet;
use std::path::Path;

use dred_core::testing::{models_as_text, random_case_with, LoadedCase, RandomCase, EDB, IDB};
use dred_core::{Dred, Engine, Oracle, SourceFile};
use proptest::prelude::*;

fn models(case: &LoadedCase, engine: &mut dyn Engine) -> Vec<BTreeSet<String>> {
    models_as_text(case, engine, |_, fact| Some(fact))
}

/// `rule` with every relation `n` written `REL_n` (`EDGE(n, a, b)` for the first binary atom
/// of a relation of arity 2 in the rule, through the function-like macro, its arguments over
/// two lines with a comment between them).
fn through_macros(rule: &str) -> String {
    let mut out = rule.to_string();
    for (name, arity) in EDB.iter().chain(IDB) {
        let call = format!("{name}(");
        let mut rewritten = String::new();
        let mut rest = out.as_str();
        let mut edge_used = false;
        while let Some(k) = rest.find(&call) {
            let before_ok = k == 0
                || !rest.as_bytes()[k - 1].is_ascii_alphanumeric()
                    && rest.as_bytes()[k - 1] != b'_';
            rewritten.push_str(&rest[..k]);
            let after = &rest[k + call.len()..];
            if !before_ok {
                rewritten.push_str(&call);
                rest = after;
                continue;
            }
            // `e(x, y)` with simple arguments becomes `EDGE(e, x, y)` once per rule.
            let close = after.find(')');
            let args = close.map(|c| &after[..c]);
            match args {
                Some(a) if *arity == 2 && !edge_used && !a.contains('(') && !a.contains('"') => {
                    // Over two lines, a comment between the arguments.
                    rewritten.push_str(&format!("EDGE(REL_{name}, // {name}\n    {a})"));
                    rest = &after[close.expect("found") + 1..];
                    edge_used = true;
                }
                _ => {
                    rewritten.push_str(&format!("REL_{name}("));
                    rest = after;
                }
            }
        }
        rewritten.push_str(rest);
        out = rewritten;
    }
    out
}

/// Writes `case`'s program through the preprocessor under `dir`; the main file's name.
fn write_preprocessed(case: &RandomCase, dir: &Path) -> String {
    let mut macros = String::from("#define KEEP\n#define LEVEL 2\n#define EDGE(r, a, b) r(a, b)\n");
    for (name, _) in EDB.iter().chain(IDB) {
        macros.push_str(&format!("#define REL_{name} {name}\n"));
    }
    std::fs::write(dir.join("macros.dl"), macros).expect("write");
    let rules: Vec<String> = case.rules.iter().map(|r| through_macros(r)).collect();
    let half = rules.len() / 2;
    let main = format!(
        "#include \"macros.dl\"\n{header}\
         #ifdef KEEP\n{first}\n#else\n#include \"nowhere.dl\"\n#endif\n\
         #if defined(KEEP) && LEVEL > 1\n{second}\n#elif 1\nthis does not parse\n#endif\n\
         #ifndef KEEP\nneither does this\n#endif\n",
        header = case.header,
        first = rules[..half].join("\n"),
        second = rules[half..].join("\n"),
    );
    let path = dir.join("main.dl");
    std::fs::write(&path, main).expect("write");
    path.display().to_string()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, ..ProptestConfig::default() })]

    #[test]
    fn a_program_through_macros_and_conditionals_has_the_plain_program_s_models(
        case in random_case_with(true, true)
    ) {
        let tmp = std::env::temp_dir().join(format!("dred-preprocess-props-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).expect("mkdir");
        let main = write_preprocessed(&case, &tmp);
        let text = std::fs::read_to_string(&main).expect("read");
        let preprocessed = case
            .load_program_file(&SourceFile::new(main, text.clone()))
            .map_err(TestCaseError::fail)?;
        let plain = case.load().map_err(TestCaseError::fail)?;
        let _ = std::fs::remove_dir_all(&tmp);
        prop_assert_eq!(preprocessed.program.rules.len(), plain.program.rules.len());
        prop_assert!(
            case.rules.is_empty() || text.contains("REL_"),
            "the rules use the macros:\n{}",
            text
        );
        let expected = models(&plain, &mut Oracle::new(plain.program.clone()));
        let engines: Vec<Box<dyn Engine>> = vec![
            Box::new(Oracle::new(preprocessed.program.clone())),
            Box::new(Dred::new(preprocessed.program.clone())),
        ];
        for mut engine in engines {
            let got = models(&preprocessed, engine.as_mut());
            prop_assert_eq!(&got, &expected, "{}\n{}", engine.name(), text);
        }
    }
}
