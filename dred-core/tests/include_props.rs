//! `.include` and `#include` splice files in place: a random case whose program is split
//! into files (the declarations in one, included with `.include`; the first half of the
//! rules in the main file; the second half in a file of a subdirectory, included with
//! `#include`, which includes the last rule from a file beside it with a relative name) has,
//! after every batch, the models of the same case written in one file: the oracle on the one
//! file against the oracle and `dred` on the split files (negation and aggregates included).

use std::collections::BTreeSet;
use std::path::Path;

use dred_core::testing::{models_as_text, random_case_with, LoadedCase, RandomCase};
use dred_core::{Dred, Engine, Oracle, SourceFile};
use proptest::prelude::*;

/// Every relation's facts after materialisation and after every batch, as text.
fn models(case: &LoadedCase, engine: &mut dyn Engine) -> Vec<BTreeSet<String>> {
    models_as_text(case, engine, |_, fact| Some(fact))
}

/// Writes `case`'s program split into files under `dir`; the main file's name.
fn write_split(case: &RandomCase, dir: &Path) -> String {
    let write = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text).expect("write");
    };
    std::fs::create_dir_all(dir.join("rules")).expect("mkdir");
    let half = case.rules.len() / 2;
    let (first, second) = case.rules.split_at(half);
    let (middle, last) = second.split_at(second.len().saturating_sub(1));
    write("decls.dl", &case.header);
    write("rules/last.dl", &last.join("\n"));
    write(
        "rules/more.dl",
        &format!("{}\n.include \"last.dl\"\n", middle.join("\n")),
    );
    let main = format!(
        ".include \"decls.dl\"\n{}\n#include \"rules/more.dl\"\n",
        first.join("\n")
    );
    write("main.dl", &main);
    dir.join("main.dl").display().to_string()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, ..ProptestConfig::default() })]

    #[test]
    fn a_program_split_into_included_files_has_the_one_file_s_models(
        case in random_case_with(true, true)
    ) {
        let tmp = std::env::temp_dir().join(format!("dred-include-props-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).expect("mkdir");
        let main = write_split(&case, &tmp);
        let text = std::fs::read_to_string(&main).expect("read");
        let split = case
            .load_program_file(&SourceFile::new(main, text))
            .map_err(TestCaseError::fail)?;
        let whole = case.load().map_err(TestCaseError::fail)?;
        let _ = std::fs::remove_dir_all(&tmp);
        prop_assert_eq!(split.program.rules.len(), whole.program.rules.len());
        let expected = models(&whole, &mut Oracle::new(whole.program.clone()));
        let engines: Vec<Box<dyn Engine>> = vec![
            Box::new(Oracle::new(split.program.clone())),
            Box::new(Dred::new(split.program.clone())),
        ];
        for mut engine in engines {
            let got = models(&split, engine.as_mut());
            prop_assert_eq!(&got, &expected, "{}", engine.name());
        }
    }
}
