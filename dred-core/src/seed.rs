//! The seed example's fixture (SPEC §6) for the engines' unit tests, so that the example has
//! one copy and no engine's tests import another engine's module.

/// The seed's `edge` facts (SPEC §6), as shipped in `datasets/seed/facts/edge.facts`: shared by
/// the engines' unit tests, so that the example has one copy.
pub(crate) fn seed_edges() -> Vec<(&'static str, &'static str)> {
    include_str!("../../datasets/seed/facts/edge.facts")
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .collect()
}

/// A checked program over the seed's `edge` facts, with its symbols and EDB: the setup of the
/// engines' seed tests.
pub(crate) fn seed_setup(
    src: &str,
) -> (
    std::sync::Arc<crate::Program>,
    crate::Symbols,
    crate::engine::Edb,
) {
    let mut symbols = crate::Symbols::new();
    let program = std::sync::Arc::new(
        crate::load_program(&crate::SourceFile::new("p.dl", src), &mut symbols).expect("program"),
    );
    let edge = program.relation_id("edge").expect("edge");
    let mut edb = crate::engine::Edb::empty(&program);
    for (a, b) in seed_edges() {
        edb.insert(crate::engine::Fact::new(
            edge,
            vec![symbols.intern(a), symbols.intern(b)],
        ));
    }
    (program, symbols, edb)
}
