//! Random programs, EDBs and update streams for property tests and `dredbench fuzz`
//! (feature `testing`).
//!
//! A [`RandomCase`] is what a user writes: program text, facts and an update stream, loaded
//! through the real parser, checker and update reader. The generator reaches the program
//! classes that broke engines before (issue 22):
//! - arities 0 to 3, input and derived, the zero-arity ones in heads and bodies;
//! - 6 derived relations, free to recurse through each other (mutual recursion);
//! - 1 to 4 positive body atoms, variables repeated inside one atom and across atoms,
//!   constants in heads and bodies, wildcards, comparisons, program facts;
//! - in `number` cases, arithmetic in half of the random rules ([`Draw::arithmetic`]):
//!   computed head arguments, assignments, comparisons of expressions, in recursive rules
//!   too, every value a head receives from arithmetic taken modulo 3 so that evaluation ends;
//! - in `symbol` cases, string functors in half of the random rules (the same draw as
//!   arithmetic, [`Draw::arithmetic`]): `cat`, `+`, `substr`, `to_string`, `strlen`,
//!   `to_number`, `ord` nested in each other, in heads, assignments, lookups, negated atoms
//!   and comparisons, the constraints `contains` and `match` (negated or not), in recursive
//!   rules too, every string a head receives from them cut to 2 bytes so that evaluation
//!   ends (`STR_BOUND`); in aggregates' targets and braces with negation;
//! - with negation, one negated atom per rule at most, stratified by construction: every
//!   derived relation has a level, a rule reads positively at most its head's level and
//!   negates only strictly lower ones; and aggregates over lower levels in 30% of the random
//!   rules ([`random_case_with`]), some with arithmetic in their target or braces, some
//!   correlated (a comparison with a variable from outside the braces, when the rule's
//!   atoms all read lower levels), some with an aggregate nested in their braces;
//! - 7 constants, and 3 fresh ones that only update streams bring;
//! - streams that delete present facts, re-insert what an earlier batch deleted, insert
//!   present facts, delete and insert one fact in the same batch, delete absent facts, and
//!   commit empty batches.
//!
//! Each case is either all `number` or all `symbol` columns (order comparisons only with
//! numbers, as the checker requires). Strategies shrink toward fewer rules, shorter bodies,
//! fewer facts and fewer updates; [`shrink`] shrinks a failing case further by delta
//! debugging on its text.
//!
//! [`check_case`] runs engines through a case and compares every model with the first
//! engine's after every batch; [`NonTriviality`] says how many cases exercised what.
//!
//! For the magic-set rewrite, [`random_query`] draws queries over the derived relations and
//! [`LoadedCase::magic`] turns a case and a query into a [`MagicCase`]: the generated program,
//! the case's stream in its relation ids, and the answers the full program gives after every
//! batch, which any engine running the generated program must reproduce.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::Arc;

use proptest::prelude::*;

use crate::check::load_program;
use crate::diagnostic::SourceFile;
use crate::engine::{
    Batch, BatchReport, Edb, Engine, Fact, Model, ModelDigest, Phase, RequestedBatch,
};
use crate::io::{parse_updates, parse_value};
use crate::magic::{parse_query, rewrite, MagicProgram, Query};
use crate::oracle::Oracle;
use crate::program::{Expr, Literal, Program, Term};
use crate::value::{Symbols, Tuple};

/// Input relations: name and arity.
pub const EDB: &[(&str, usize)] = &[("e", 2), ("f", 2), ("g", 1), ("h", 0), ("k", 3)];
/// Derived relations: name and arity.
pub const IDB: &[(&str, usize)] = &[("p", 2), ("q", 1), ("r", 2), ("s", 0), ("t", 3), ("u", 1)];
/// Constants of programs and EDBs: `c0`..`c6` (symbols) or [`NUMBERS`] (numbers).
pub const CONSTANTS: usize = 7;
/// Fresh constants, only in update streams: `fresh0`..`fresh2` or [`FRESH_NUMBERS`].
pub const FRESH: usize = 3;
/// The number constants: small naturals, a negative number and 2^31, so that engines packing
/// values into narrower words (`dd`'s 32-bit codes) meet values outside their direct range.
pub const NUMBERS: [i64; CONSTANTS] = [0, 1, 2, -3, 4, 1 << 31, 6];
/// The fresh number constants, one of them beyond 32 bits and one negative.
pub const FRESH_NUMBERS: [i64; FRESH] = [100, -101, 9_000_000_000];
/// The `unsigned` constants: those of [`NUMBERS`] but with 2^64 - 1 for the negative one,
/// the largest `unsigned` (whose stored word is the largest `Value`); then the fresh ones.
pub const UNSIGNEDS: [&str; CONSTANTS + FRESH] = [
    "0",
    "1",
    "2",
    "18446744073709551615",
    "4",
    "2147483648",
    "6",
    "100",
    "101",
    "9000000000",
];
/// The `float` constants, fractions and negatives among them; then the fresh ones.
pub const FLOATS: [&str; CONSTANTS + FRESH] = [
    "0",
    "1.5",
    "2",
    "-3.25",
    "4",
    "2147483648.5",
    "6",
    "100",
    "-101.5",
    "9000000000.25",
];
/// Rule variables.
const VARS: &[&str] = &["x", "y", "z", "w"];
/// Levels of derived relations under negation (a rule negates only lower levels).
const LEVELS: u8 = 3;

/// The column type of every relation of a case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    /// `number` columns: constants [`NUMBERS`], fresh [`FRESH_NUMBERS`].
    Number,
    /// `symbol` columns: constants `c0`..`c6`, fresh `fresh0`..`fresh2`.
    Symbol,
    /// `unsigned` columns: constants and fresh ones [`UNSIGNEDS`].
    Unsigned,
    /// `float` columns: constants and fresh ones [`FLOATS`].
    Float,
}

impl ColumnType {
    /// The value of constant `k` (fresh from [`CONSTANTS`] on) as a `.facts` field.
    pub fn field(self, k: usize) -> String {
        match (self, k < CONSTANTS) {
            (ColumnType::Number, true) => NUMBERS[k].to_string(),
            (ColumnType::Number, false) => FRESH_NUMBERS[k - CONSTANTS].to_string(),
            (ColumnType::Symbol, true) => format!("c{k}"),
            (ColumnType::Symbol, false) => format!("fresh{}", k - CONSTANTS),
            (ColumnType::Unsigned, _) => UNSIGNEDS[k].to_string(),
            (ColumnType::Float, _) => FLOATS[k].to_string(),
        }
    }

    /// Constant `k` as a program writes it.
    pub fn literal(self, k: usize) -> String {
        match self {
            ColumnType::Symbol => format!("\"{}\"", self.field(k)),
            _ => self.field(k),
        }
    }

    /// The type's keyword, as the case's declarations write it.
    pub fn name(self) -> &'static str {
        match self {
            ColumnType::Number => "number",
            ColumnType::Symbol => "symbol",
            ColumnType::Unsigned => "unsigned",
            ColumnType::Float => "float",
        }
    }
}

/// One requested update of a stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Update {
    /// `true` for `+`, `false` for `-`.
    pub insert: bool,
    /// The input relation.
    pub rel: String,
    /// Its values as `.facts` fields.
    pub values: Vec<String>,
}

/// One generated test case, as files a user would write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RandomCase {
    /// The column type of every relation.
    pub ty: ColumnType,
    /// Declarations, `.input` and `.output` lines.
    pub header: String,
    /// Program facts and rules, one per line.
    pub rules: Vec<String>,
    /// Initial EDB facts: relation name and values as `.facts` fields.
    pub edb: Vec<(String, Vec<String>)>,
    /// Batches of requested updates, in order (a batch may be empty).
    pub batches: Vec<Vec<Update>>,
}

/// A case loaded through the real parser, checker and update reader.
#[derive(Debug)]
pub struct LoadedCase {
    /// The checked program.
    pub program: Arc<Program>,
    /// Symbols of program, facts and updates.
    pub symbols: Symbols,
    /// The initial EDB.
    pub edb: Edb,
    /// Requested batches, not yet normalised.
    pub batches: Vec<RequestedBatch>,
}

/// The prefix of the relations of [`RandomCase::componentised`]: those of its one instance.
pub const COMPONENT_PREFIX: &str = "case.";

/// True when `text` mentions relation `name` as an atom (`name(` not preceded by a letter,
/// digit or `_`).
fn mentions(text: &str, name: &str) -> bool {
    let call = format!("{name}(");
    text.match_indices(&call).any(|(i, _)| {
        !text[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

impl RandomCase {
    /// The same case with each batch split in two, its deletions then its insertions: a
    /// stream of batches that only delete or only insert, where a change below a negation is
    /// the only way a level above can gain facts on a deletion (or lose them on an insertion).
    pub fn split_batches(&self) -> RandomCase {
        let mut case = self.clone();
        case.batches = self
            .batches
            .iter()
            .flat_map(|b| {
                let (ins, del): (Vec<Update>, Vec<Update>) =
                    b.iter().cloned().partition(|u| u.insert);
                [del, ins]
            })
            .collect();
        case
    }

    /// The case over at most binary relations: the ternary relations' declarations, and the
    /// rules, facts and updates that mention them, dropped. What remains is still a valid,
    /// stratified case (a subset of its rules); engines that pick narrower representations
    /// for narrow programs (`dd`'s two-word rows) meet such programs only this way.
    pub fn narrowed(&self) -> RandomCase {
        let ternary: Vec<&str> = EDB
            .iter()
            .chain(IDB)
            .filter(|(_, arity)| *arity > 2)
            .map(|(name, _)| *name)
            .collect();
        let keep = |text: &str| !ternary.iter().any(|name| mentions(text, name));
        let header = self
            .header
            .lines()
            .filter(|line| {
                let name = line.split_whitespace().nth(1).unwrap_or("");
                keep(line) && !ternary.contains(&name)
            })
            .map(|line| format!("{line}\n"))
            .collect();
        let rules = self.rules.iter().filter(|r| keep(r)).cloned().collect();
        self.with_facts_renamed(header, rules, |rel| {
            (!ternary.contains(&rel)).then(|| rel.to_string())
        })
    }

    /// A case of `header` and `rules` with this case's EDB and batches, each fact's and
    /// update's relation renamed by `rename`; those it maps to `None` are left out.
    fn with_facts_renamed(
        &self,
        header: String,
        rules: Vec<String>,
        rename: impl Fn(&str) -> Option<String>,
    ) -> RandomCase {
        let edb = self
            .edb
            .iter()
            .filter_map(|(rel, vals)| Some((rename(rel)?, vals.clone())))
            .collect();
        let batches = self
            .batches
            .iter()
            .map(|b| {
                b.iter()
                    .filter_map(|u| {
                        Some(Update {
                            rel: rename(&u.rel)?,
                            ..u.clone()
                        })
                    })
                    .collect()
            })
            .collect();
        RandomCase {
            ty: self.ty,
            header,
            rules,
            edb,
            batches,
        }
    }

    /// The same case written with Soufflé's sugar, which the front end rewrites back into
    /// the plain case's rules: columns of declared types (a subtype, an alias of it and a
    /// union of the two, declared after their use); the rules of one head joined into one
    /// disjunctive rule (`h :- (b1) ; b2.`, every other alternative in parentheses); rules
    /// whose bodies are then equal joined into one rule with several heads, and every other
    /// rule left with one head given it twice. Its model must equal the plain case's after
    /// every batch (but for the names of the relations the checker adds for aggregates,
    /// numbered in rule order).
    pub fn sugared(&self) -> RandomCase {
        const TYPES: [&str; 3] = ["Base", "Alias", "Either"];
        let base = format!(": {}", self.ty.name());
        let mut header = String::new();
        let mut k = 0;
        for line in self.header.lines() {
            let mut parts = line.split(base.as_str());
            header.push_str(parts.next().unwrap_or_default());
            for rest in parts {
                let _ = write!(header, ": {}{rest}", TYPES[k % TYPES.len()]);
                k += 1;
            }
            header.push('\n');
        }
        let _ = write!(
            header,
            ".type Either = Base | Alias\n.type Alias = Base\n.type Base <: {}\n",
            self.ty.name()
        );
        let mut facts = Vec::new();
        let mut by_head: Vec<(String, Vec<String>)> = Vec::new();
        for rule in &self.rules {
            let Some((head, body)) = rule.split_once(" :- ") else {
                facts.push(rule.clone());
                continue;
            };
            let body = body.trim_end_matches('.').to_string();
            match by_head.iter_mut().find(|(h, _)| h == head) {
                Some((_, bodies)) => bodies.push(body),
                None => by_head.push((head.to_string(), vec![body])),
            }
        }
        let mut by_body: Vec<(String, Vec<String>)> = Vec::new();
        for (head, bodies) in by_head {
            let body = bodies
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    if i % 2 == 0 {
                        format!("({b})")
                    } else {
                        b.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(" ; ");
            match by_body.iter_mut().find(|(b, _)| *b == body) {
                Some((_, heads)) => heads.push(head),
                None => by_body.push((body, vec![head])),
            }
        }
        let mut rules = facts;
        rules.extend(
            by_body
                .into_iter()
                .enumerate()
                .map(|(i, (body, mut heads))| {
                    // Bodies rarely coincide in random programs: every other single head is written
                    // twice (`h, h :- b.`, the same rule twice), so that several heads are drawn.
                    if heads.len() == 1 && i % 2 == 0 {
                        heads.push(heads[0].clone());
                    }
                    format!("{} :- {body}.", heads.join(", "))
                }),
        );
        RandomCase {
            header,
            rules,
            ..self.clone()
        }
    }

    /// The same case written with Soufflé components: its declarations in a component
    /// `Decls<T>` whose parameter `T` is the column type, its directives (and any `.type`s)
    /// and rules in `Case<T> : Decls<T>`, instantiated once as `.init case = Case<ty>`. The
    /// relations are then `case.e1`, `case.p1`, ...: the facts and updates name them so. The
    /// component's closing brace and the `.init` are the last two lines of `rules`. Its model,
    /// each relation's name read without the prefix [`COMPONENT_PREFIX`], is the case's.
    pub fn componentised(&self) -> RandomCase {
        let column = format!(": {}", self.ty.name());
        let parameterised = |line: &str| format!("  {}\n", line.replace(&column, ": T"));
        let (decls, directives): (Vec<&str>, Vec<&str>) =
            self.header.lines().partition(|l| l.starts_with(".decl"));
        let mut header = String::from(".comp Decls<T> {\n");
        header.extend(decls.into_iter().map(parameterised));
        header.push_str("}\n.comp Case<T> : Decls<T> {\n");
        header.extend(directives.into_iter().map(parameterised));
        let mut rules: Vec<String> = self.rules.iter().map(|r| format!("  {r}")).collect();
        rules.push("}".into());
        rules.push(format!(".init case = Case<{}>", self.ty.name()));
        self.with_facts_renamed(header, rules, |rel| {
            Some(format!("{COMPONENT_PREFIX}{rel}"))
        })
    }

    /// The program text: header, then rules.
    pub fn program(&self) -> String {
        let mut s = self.header.clone();
        for r in &self.rules {
            s.push_str(r);
            s.push('\n');
        }
        s
    }

    /// The `.facts` text of input relation `rel` (a zero-arity fact is the line `()`).
    pub fn facts_text(&self, rel: &str) -> String {
        let mut s = String::new();
        for (r, vals) in &self.edb {
            if r == rel {
                if vals.is_empty() {
                    s.push_str("()");
                } else {
                    s.push_str(&vals.join("\t"));
                }
                s.push('\n');
            }
        }
        s
    }

    /// The update stream's text: `+`/`-` lines, `commit` after every batch.
    pub fn updates_text(&self) -> String {
        let mut s = String::new();
        for batch in &self.batches {
            for u in batch {
                s.push(if u.insert { '+' } else { '-' });
                s.push('\t');
                s.push_str(&u.rel);
                for v in &u.values {
                    s.push('\t');
                    s.push_str(v);
                }
                s.push('\n');
            }
            s.push_str("commit\n");
        }
        s
    }

    /// Writes the case as `p.dl`, `facts/<rel>.facts` and `u.updates` under `dir`, the
    /// files `dredbench run --program p.dl --facts facts --updates u.updates` reads.
    pub fn write_to(&self, dir: &Path) -> std::io::Result<()> {
        let facts = dir.join("facts");
        std::fs::create_dir_all(&facts)?;
        crate::io::write_atomic(&dir.join("p.dl"), self.program().as_bytes())?;
        let prefix = if self.header.starts_with(".comp") {
            COMPONENT_PREFIX
        } else {
            ""
        };
        for (rel, _) in EDB {
            let rel = format!("{prefix}{rel}");
            crate::io::write_atomic(
                &facts.join(format!("{rel}.facts")),
                self.facts_text(&rel).as_bytes(),
            )?;
        }
        crate::io::write_atomic(&dir.join("u.updates"), self.updates_text().as_bytes())
    }

    /// Parses and checks the case. An error means the generator built something the checker
    /// refuses, a bug of the generator: cases are valid by construction.
    pub fn load(&self) -> Result<LoadedCase, String> {
        self.load_program_file(&SourceFile::new("p.dl", self.program()))
    }

    /// [`RandomCase::load`] with the program read from `file` instead of
    /// [`RandomCase::program`]'s text (the same program written otherwise, split into included
    /// files say), the case's facts and stream as they are.
    pub fn load_program_file(&self, file: &SourceFile) -> Result<LoadedCase, String> {
        let mut symbols = Symbols::new();
        let text = &file.text;
        let program = load_program(file, &mut symbols)
            .map_err(|d| format!("generated program rejected:\n{}\n{text}", d.render()))?;
        let program = Arc::new(program);
        let mut edb = Edb::empty(&program);
        for (rel, vals) in &self.edb {
            let id = program
                .input_id(rel)
                .ok_or_else(|| format!("no relation `{rel}`"))?;
            let types = &program.relations[id].types;
            let tuple = vals
                .iter()
                .zip(types)
                .map(|(v, &ty)| parse_value(v, ty, &mut symbols))
                .collect::<Result<Tuple, String>>()?;
            edb.insert(Fact::new(id, tuple));
        }
        let updates = SourceFile::new("u.updates", self.updates_text());
        let batches = parse_updates(&updates, &program, &mut symbols)
            .map_err(|d| format!("generated updates rejected:\n{}", d.render()))?;
        Ok(LoadedCase {
            program,
            symbols,
            edb,
            batches,
        })
    }

    /// The text of query `q` in this case's column type.
    pub fn query_text(&self, q: &QuerySpec) -> String {
        let (name, arity) = IDB[q.rel % IDB.len()];
        let args: Vec<String> = q
            .args
            .iter()
            .take(arity)
            .map(|a| match a {
                QueryArg::Const(k) => self.ty.literal(*k % CONSTANTS),
                QueryArg::Var(v) => ["a", "b"][*v as usize % 2].to_string(),
                QueryArg::Wild => "_".to_string(),
            })
            .collect();
        format!("{name}({})", args.join(", "))
    }

    /// Number of rules, program facts, EDB facts and updates: the size [`shrink`] reduces.
    pub fn size(&self) -> usize {
        self.rules.len() + self.edb.len() + self.batches.iter().map(Vec::len).sum::<usize>()
    }
}

/// Syntactic features of a case's program and stream, for [`NonTriviality`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// A stratum whose rules read its own relations.
    pub recursive: bool,
    /// A recursive stratum of two or more relations.
    pub mutual_recursion: bool,
    /// A variable repeated inside one atom (head or body).
    pub repeated_in_atom: bool,
    /// A constant in a rule's body atom.
    pub constant_in_body: bool,
    /// A constant in a rule's head.
    pub constant_in_head: bool,
    /// A zero-arity atom in a rule's body.
    pub zero_arity_body: bool,
    /// A ternary atom in a rule.
    pub ternary: bool,
    /// A rule with four positive body atoms.
    pub four_atoms: bool,
    /// A comparison.
    pub comparison: bool,
    /// A negated atom.
    pub negation: bool,
    /// Arithmetic: an expression computed into a variable ([`Literal::Assign`]).
    pub arithmetic: bool,
    /// Arithmetic in a recursive rule.
    pub recursive_arithmetic: bool,
    /// A head value that a check of a given head solves for a body variable
    /// ([`crate::program::Expr::solve`]: `p(x + 1) :- p(x), ...`).
    pub solvable_head: bool,
    /// A string functor or constraint ([`crate::program::Expr::Str`]).
    pub strings: bool,
    /// A string functor in a recursive rule.
    pub recursive_strings: bool,
    /// A string functor in a rule of an aggregate's input relation (braces or target).
    pub aggregate_strings: bool,
    /// Rules with a string functor.
    pub string_rules: usize,
    /// Derived facts of the initial model that need string functors: absent from the
    /// initial model of the program whose rules with string functors never fire.
    pub string_facts: usize,
    /// Rules of the checked program (aggregates' rewritten rules included).
    pub rules: usize,
    /// Those with arithmetic.
    pub arithmetic_rules: usize,
    /// Derived facts of the initial model.
    pub derived_facts: usize,
    /// Those that need arithmetic: absent from the initial model of the program whose rules
    /// with arithmetic never fire.
    pub arithmetic_facts: usize,
    /// An aggregate (count, sum, min or max).
    pub aggregate: bool,
    /// Arithmetic inside an aggregate's braces or target (an assignment in a rule of an
    /// aggregate's input relation).
    pub aggregate_arithmetic: bool,
    /// A correlated aggregate (one that takes a variable from outside its braces: a context
    /// relation `@ctxK`).
    pub correlated_aggregate: bool,
    /// An aggregate nested in another's braces (a rule of an aggregate's input relation reads
    /// an aggregate relation).
    pub nested_aggregate: bool,
    /// An update brings a fresh constant.
    pub fresh_constant: bool,
    /// The case's columns are `symbol`s.
    pub symbol: bool,
    /// The case's columns are `unsigned`s.
    pub unsigned: bool,
    /// The case's columns are `float`s.
    pub float: bool,
    /// An empty batch.
    pub empty_batch: bool,
}

impl Features {
    /// The features of `case`, loaded as `loaded`.
    pub fn of(case: &RandomCase, loaded: &LoadedCase) -> Self {
        let p = &loaded.program;
        let mut f = Features {
            recursive: p.strata.iter().any(|s| s.recursive),
            mutual_recursion: p
                .strata
                .iter()
                .any(|s| s.recursive && s.relations.len() > 1),
            fresh_constant: {
                let fresh: Vec<String> = (CONSTANTS..CONSTANTS + FRESH)
                    .map(|k| case.ty.field(k))
                    .collect();
                case.batches
                    .iter()
                    .flatten()
                    .any(|u| u.values.iter().any(|v| fresh.contains(v)))
            },
            empty_batch: case.batches.iter().any(Vec::is_empty),
            symbol: case.ty == ColumnType::Symbol,
            unsigned: case.ty == ColumnType::Unsigned,
            float: case.ty == ColumnType::Float,
            ..Features::default()
        };
        let repeated = |args: &[Term]| {
            args.iter()
                .enumerate()
                .any(|(i, t)| matches!(t, Term::Var(_)) && args[..i].contains(t))
        };
        for rule in &p.rules {
            f.repeated_in_atom |= repeated(&rule.head.args);
            f.constant_in_head |= rule.head.args.iter().any(|t| matches!(t, Term::Const(_)));
            f.ternary |= rule.head.args.len() == 3;
            f.four_atoms |= rule.positive_atoms().count() >= 4;
            for lit in &rule.body {
                match lit {
                    Literal::Positive(a) => {
                        f.repeated_in_atom |= repeated(&a.args);
                        f.constant_in_body |= a.args.iter().any(|t| matches!(t, Term::Const(_)));
                        f.zero_arity_body |= a.args.is_empty();
                        f.ternary |= a.args.len() == 3;
                    }
                    Literal::Negative(_) => f.negation = true,
                    Literal::Compare { .. } => f.comparison = true,
                    Literal::Assign { var, expr } => {
                        f.arithmetic = true;
                        let recursive =
                            p.stratum_of[rule.head.rel].is_some_and(|s| p.strata[s].recursive);
                        f.recursive_arithmetic |= recursive;
                        let mut head_bound = vec![false; rule.num_vars()];
                        for v in rule.head_vars() {
                            head_bound[v] = true;
                        }
                        f.solvable_head |= head_bound[*var]
                            && expr
                                .solve(Expr::Term(Term::Var(*var)), &head_bound)
                                .is_some();
                    }
                }
            }
        }
        f.aggregate = !loaded.program.aggregates.is_empty();
        f.aggregate_arithmetic = p.rules.iter().any(|r| {
            p.aggregates.iter().any(|a| a.input == r.head.rel)
                && r.body.iter().any(|l| matches!(l, Literal::Assign { .. }))
        });
        f.correlated_aggregate = p.relations.iter().any(|r| r.name.starts_with("@ctx"));
        f.nested_aggregate = p.rules.iter().any(|r| {
            p.aggregates.iter().any(|a| a.input == r.head.rel)
                && r.body.iter().any(|l| match l {
                    Literal::Positive(a) | Literal::Negative(a) => {
                        p.aggregates.iter().any(|g| g.rel == a.rel)
                    }
                    _ => false,
                })
        });
        f.rules = p.rules.len();
        let with_arith =
            |r: &crate::program::Rule| r.body.iter().any(|l| matches!(l, Literal::Assign { .. }));
        let with_strings = |r: &crate::program::Rule| {
            r.body
                .iter()
                .any(|l| matches!(l, Literal::Assign { expr, .. } if expr.has_string_functor()))
        };
        f.arithmetic_rules = p.rules.iter().filter(|r| with_arith(r)).count();
        f.string_rules = p.rules.iter().filter(|r| with_strings(r)).count();
        f.strings = f.string_rules > 0;
        f.recursive_strings = p.rules.iter().any(|r| {
            with_strings(r) && p.stratum_of[r.head.rel].is_some_and(|s| p.strata[s].recursive)
        });
        f.aggregate_strings = p
            .rules
            .iter()
            .any(|r| with_strings(r) && p.aggregates.iter().any(|a| a.input == r.head.rel));
        let model = Oracle::least_model(p, &loaded.edb);
        f.derived_facts = model.len();
        // The facts that need the rules `which` picks: those of the model missing from the
        // model of the same program with each such rule made false (`0 != 0`; rule indices and strata
        // stay as they are).
        let needing = |which: &dyn Fn(&crate::program::Rule) -> bool| {
            let mut without = (**p).clone();
            for r in without.rules.iter_mut().filter(|r| which(r)) {
                r.body.push(Literal::Compare {
                    left: Term::Const(0),
                    op: crate::syntax::ast::CmpOp::Ne,
                    right: Term::Const(0),
                });
            }
            // Not a difference of sizes: under negation or an aggregate, a rule made false
            // can add facts elsewhere.
            model
                .minus(&Oracle::least_model(&without, &loaded.edb))
                .values()
                .map(Vec::len)
                .sum()
        };
        if f.arithmetic_rules > 0 {
            f.arithmetic_facts = needing(&with_arith);
        }
        if f.string_rules > 0 {
            f.string_facts = needing(&with_strings);
        }
        f
    }
}

/// What running a case showed, beyond agreement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Observed {
    /// Batches applied.
    pub batches: usize,
    /// Some batch changed the IDB.
    pub idb_changed: bool,
    /// Some batch over-deleted an IDB fact (by an engine that reports it).
    pub overdeleted: bool,
    /// Some batch rederived an IDB fact (by an engine that reports it).
    pub rederived: bool,
    /// The initial model is not empty.
    pub nonempty_model: bool,
    /// Some batch over-deleted at a DRed level above 0 (a negation program's upper level).
    pub upper_overdeleted: bool,
    /// Some batch rederived at a level above 0.
    pub upper_rederived: bool,
    /// Some batch without deletions over-deleted at a level above 0: an insertion below a
    /// negation deleted facts.
    pub insertion_deleted: bool,
    /// Some batch without insertions inserted at a level above 0: a deletion below a
    /// negation added facts (the seed's open question).
    pub deletion_inserted: bool,
}

/// Shares of cases that exercised each feature and behaviour: a property that passes on
/// cases that never over-delete proves nothing about over-deletion.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NonTriviality {
    /// Cases counted.
    pub cases: usize,
    /// Cases run by an engine that reports over-deletion (`dred`, `reference`).
    pub dred_cases: usize,
    /// Per feature of [`Features`], the cases that have it.
    pub features: Vec<(&'static str, usize)>,
    /// Rules, rules with arithmetic and rules with string functors, over all cases.
    pub rules: [usize; 3],
    /// Derived facts of the initial models, those that need arithmetic and those that need
    /// string functors, over all cases.
    pub derived_facts: [usize; 3],
    /// Cases of `symbol` columns (where string functors are drawn).
    pub symbol_cases: usize,
    /// Cases with a non-empty initial model.
    pub nonempty_model: usize,
    /// Cases where some batch changed the IDB.
    pub idb_changed: usize,
    /// Cases where some batch over-deleted.
    pub overdeleted: usize,
    /// Cases where some batch rederived.
    pub rederived: usize,
    /// Cases where, above DRed level 0: some batch over-deleted, rederived; a batch without
    /// deletions over-deleted; a batch without insertions inserted (see [`Observed`]).
    pub upper: [usize; 4],
}

impl NonTriviality {
    /// Counts one case.
    pub fn add(&mut self, features: &Features, observed: &Observed, dred_ran: bool) {
        let named = [
            ("recursive", features.recursive),
            ("mutual recursion", features.mutual_recursion),
            ("repeated variable in an atom", features.repeated_in_atom),
            ("constant in a body", features.constant_in_body),
            ("constant in a head", features.constant_in_head),
            ("zero-arity body atom", features.zero_arity_body),
            ("ternary atom", features.ternary),
            ("four body atoms", features.four_atoms),
            ("comparison", features.comparison),
            ("negation", features.negation),
            ("arithmetic", features.arithmetic),
            ("arithmetic in recursion", features.recursive_arithmetic),
            ("head solved for a body variable", features.solvable_head),
            ("aggregate", features.aggregate),
            ("arithmetic in an aggregate", features.aggregate_arithmetic),
            ("string functors", features.strings),
            ("string functors in recursion", features.recursive_strings),
            (
                "string functors in an aggregate",
                features.aggregate_strings,
            ),
            ("correlated aggregate", features.correlated_aggregate),
            ("nested aggregate", features.nested_aggregate),
            ("fresh constant in updates", features.fresh_constant),
            ("empty batch", features.empty_batch),
            ("unsigned columns", features.unsigned),
            ("float columns", features.float),
        ];
        if self.features.is_empty() {
            self.features = named.iter().map(|&(n, _)| (n, 0)).collect();
        }
        for (slot, (_, has)) in self.features.iter_mut().zip(named) {
            slot.1 += usize::from(has);
        }
        self.cases += 1;
        self.rules[0] += features.rules;
        self.rules[1] += features.arithmetic_rules;
        self.rules[2] += features.string_rules;
        self.derived_facts[0] += features.derived_facts;
        self.derived_facts[1] += features.arithmetic_facts;
        self.derived_facts[2] += features.string_facts;
        self.symbol_cases += usize::from(features.symbol);
        self.dred_cases += usize::from(dred_ran);
        self.nonempty_model += usize::from(observed.nonempty_model);
        self.idb_changed += usize::from(observed.idb_changed);
        self.overdeleted += usize::from(observed.overdeleted);
        self.rederived += usize::from(observed.rederived);
        for (slot, seen) in self.upper.iter_mut().zip([
            observed.upper_overdeleted,
            observed.upper_rederived,
            observed.insertion_deleted,
            observed.deletion_inserted,
        ]) {
            *slot += usize::from(seen);
        }
    }

    /// The cases with feature `name`.
    pub fn feature(&self, name: &str) -> usize {
        self.features
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(0, |&(_, c)| c)
    }

    fn pct(part: usize, whole: usize) -> String {
        if whole == 0 {
            "-".into()
        } else {
            format!("{:.0}%", 100.0 * part as f64 / whole as f64)
        }
    }
}

impl std::fmt::Display for NonTriviality {
    /// One line of behaviour shares, one of feature shares.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.cases;
        writeln!(
            f,
            "non-empty model {}, IDB changed {}, over-deleted {} and rederived {} (of {} cases run by dred or reference)",
            Self::pct(self.nonempty_model, n),
            Self::pct(self.idb_changed, n),
            Self::pct(self.overdeleted, self.dred_cases),
            Self::pct(self.rederived, self.dred_cases),
            self.dred_cases
        )?;
        writeln!(
            f,
            "above level 0: over-deleted {}, rederived {}, over-deleted by insertions only {}, inserted by deletions only {}",
            Self::pct(self.upper[0], self.dred_cases),
            Self::pct(self.upper[1], self.dred_cases),
            Self::pct(self.upper[2], self.dred_cases),
            Self::pct(self.upper[3], self.dred_cases),
        )?;
        writeln!(
            f,
            "arithmetic: in {} of {} rules; {} of {} derived facts of initial models need it",
            Self::pct(self.rules[1], self.rules[0]),
            self.rules[0],
            Self::pct(self.derived_facts[1], self.derived_facts[0]),
            self.derived_facts[0]
        )?;
        writeln!(
            f,
            "string functors: in {} of {} symbol cases, {} of {} rules; {} of {} derived facts of initial models need them",
            Self::pct(self.feature("string functors"), self.symbol_cases),
            self.symbol_cases,
            Self::pct(self.rules[2], self.rules[0]),
            self.rules[0],
            Self::pct(self.derived_facts[2], self.derived_facts[0]),
            self.derived_facts[0]
        )?;
        let parts: Vec<String> = self
            .features
            .iter()
            .map(|(name, c)| format!("{name} {}", Self::pct(*c, n)))
            .collect();
        write!(f, "features: {}", parts.join(", "))
    }
}

/// Why a case failed: which engine, which batch (0 is materialisation), and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The batch: 0 for materialisation, i for the i-th batch.
    pub batch: usize,
    /// The engine at fault, or the second of two that disagree.
    pub engine: String,
    /// What happened.
    pub kind: FailureKind,
    /// The description: differing facts, the error, or the panic's message.
    pub message: String,
}

/// The kinds of [`Failure`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// Two engines' models (or an engine's digest or net change) differ.
    Disagreement,
    /// An engine returned an error.
    Error,
    /// An engine panicked.
    Panic,
    /// An engine refused the case as beyond what it supports
    /// ([`crate::EngineError::Unsupported`]): not a wrong answer; a fuzzer skips the case.
    Unsupported,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.kind {
            FailureKind::Disagreement => "disagreement",
            FailureKind::Error => "error",
            FailureKind::Panic => "panic",
            FailureKind::Unsupported => "refusal",
        };
        write!(
            f,
            "{what} of engine `{}` in batch {}: {}",
            self.engine, self.batch, self.message
        )
    }
}

/// The text of a panic's payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic without a message)".to_string()
    }
}

/// Runs every engine through the case — materialisation, then every batch, normalised
/// against the evolving EDB — and compares each engine's model with the first engine's after
/// every batch; also that each digest is its model's and each reported net change the
/// difference from the model before. Stops at the first failure, an engine's error or panic
/// included (caught, so that a fuzzer can report it).
pub fn check_case(case: &LoadedCase, engines: &mut [Box<dyn Engine>]) -> Result<Observed, Failure> {
    let mut edb = case.edb.clone();
    let mut observed = Observed::default();
    let program_text = &case.program.source.text;
    let check = |engines: &[Box<dyn Engine>],
                 before: &[Model],
                 batch: usize|
     -> Result<Vec<Model>, Failure> {
        let models: Vec<Model> = engines.iter().map(|e| e.model()).collect();
        let first = &models[0];
        for (e, m) in engines.iter().zip(&models) {
            let fail = |message: String| Failure {
                batch,
                engine: e.name().to_string(),
                kind: FailureKind::Disagreement,
                message,
            };
            if m != first {
                return Err(fail(format!(
                    "in {} not {}: {}; in {} not {}: {}\nprogram:\n{program_text}",
                    engines[0].name(),
                    e.name(),
                    show(&case.program, &case.symbols, first, m),
                    e.name(),
                    engines[0].name(),
                    show(&case.program, &case.symbols, m, first),
                )));
            }
            if e.digest() != ModelDigest::of_model(m) {
                return Err(fail("its digest is not its model's".into()));
            }
        }
        for (e, old) in engines.iter().zip(before) {
            if let Some(change) = e.net_change() {
                let want = old.change_to(first);
                if change != want {
                    return Err(Failure {
                        batch,
                        engine: e.name().to_string(),
                        kind: FailureKind::Disagreement,
                        message: format!("net change {change:?}, the models' {want:?}"),
                    });
                }
            }
        }
        Ok(models)
    };
    for e in engines.iter_mut() {
        // `settle` as the harness calls it: an engine that checks what it folds in there
        // (an external engine reading its answer) fails the batch it belongs to.
        guarded(e.as_mut(), 0, |e| {
            let rep = e.materialise(&edb)?;
            e.settle()?;
            Ok(rep)
        })?;
    }
    let empty = vec![Model::empty(&case.program); engines.len()];
    let mut models = check(engines, &empty, 0)?;
    observed.nonempty_model = !models[0].is_empty();
    for (i, requested) in case.batches.iter().enumerate() {
        let batch = Batch::normalise(requested, &edb);
        edb.apply(&batch);
        for e in engines.iter_mut() {
            let rep = guarded(e.as_mut(), i + 1, |e| {
                let rep = e.apply(&batch)?;
                e.settle()?;
                Ok(rep)
            })?;
            observed.overdeleted |= rep.overdeleted.is_some_and(|n| n > 0);
            observed.rederived |= rep.rederived.is_some_and(|n| n > 0);
            for round in rep.rounds.iter().filter(|r| r.stratum > 0 && r.size > 0) {
                match round.phase {
                    Phase::Overdelete | Phase::Delete => {
                        observed.upper_overdeleted = true;
                        observed.insertion_deleted |= batch.deletions.is_empty();
                    }
                    Phase::Rederive => observed.upper_rederived = true,
                    Phase::Insert => observed.deletion_inserted |= batch.insertions.is_empty(),
                }
            }
        }
        let after = check(engines, &models, i + 1)?;
        observed.idb_changed |= after[0] != models[0];
        models = after;
        observed.batches += 1;
    }
    Ok(observed)
}

/// Calls `f` on `engine`, turning its error or panic into a [`Failure`] of batch `batch`.
fn guarded(
    engine: &mut dyn Engine,
    batch: usize,
    f: impl FnOnce(&mut dyn Engine) -> Result<BatchReport, crate::EngineError>,
) -> Result<BatchReport, Failure> {
    let name = engine.name().to_string();
    let failure = |kind, message| Failure {
        batch,
        engine: name.clone(),
        kind,
        message,
    };
    match catch_unwind(AssertUnwindSafe(|| f(engine))) {
        Ok(Ok(rep)) => Ok(rep),
        Ok(Err(err)) if err.is_unsupported() => {
            Err(failure(FailureKind::Unsupported, err.to_string()))
        }
        Ok(Err(err)) => Err(failure(FailureKind::Error, err.to_string())),
        Err(payload) => Err(failure(FailureKind::Panic, panic_message(payload.as_ref()))),
    }
}

/// Runs `n` cases of [`random_case`] from proptest's deterministic runner through the engines
/// `engines` builds for each, panicking at the first failure; returns the shares of features
/// and behaviours they exercised (over-deletion counted when `dred` or `reference` ran).
pub fn sample_shares(
    negation: bool,
    n: usize,
    engines: impl Fn(&LoadedCase) -> Vec<Box<dyn Engine>>,
) -> NonTriviality {
    sample_shares_of(random_case(negation), n, engines)
}

/// [`sample_shares`] of the cases of `strategy`.
pub fn sample_shares_of(
    strategy: impl Strategy<Value = RandomCase>,
    n: usize,
    engines: impl Fn(&LoadedCase) -> Vec<Box<dyn Engine>>,
) -> NonTriviality {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut shares = NonTriviality::default();
    for _ in 0..n {
        let case = strategy.new_tree(&mut runner).expect("a case").current();
        let loaded = case.load().unwrap_or_else(|e| panic!("{e}"));
        let mut engines = engines(&loaded);
        let dred_ran = engines
            .iter()
            .any(|e| matches!(e.name(), "dred" | "reference"));
        let observed = check_case(&loaded, &mut engines).unwrap_or_else(|f| panic!("{f}"));
        shares.add(&Features::of(&case, &loaded), &observed, dred_ran);
    }
    shares
}

/// Facts of `a` missing from `b`, as a program writes them.
fn show(program: &Program, symbols: &Symbols, a: &Model, b: &Model) -> String {
    let facts: Vec<String> = a
        .minus(b)
        .into_iter()
        .flat_map(|(rel, tuples)| {
            tuples
                .into_iter()
                .map(move |t| program.fact_to_string(symbols, rel, &t))
        })
        .collect();
    format!("[{}]", facts.join(", "))
}

/// The models `engine` holds over `case`, materialised and after each batch, as sets of fact
/// text (`Program::fact_to_string`): each fact of relation `rel` is kept as what `text`
/// returns for it (`None` drops it). For tests that compare a program written one way with
/// the same program written another, whose relation ids and generated relations differ.
pub fn models_as_text(
    case: &LoadedCase,
    engine: &mut dyn Engine,
    text: impl Fn(&str, String) -> Option<String>,
) -> Vec<BTreeSet<String>> {
    let program = &case.program;
    let model_text = |engine: &dyn Engine| -> BTreeSet<String> {
        let model = engine.model();
        model
            .relations
            .iter()
            .enumerate()
            .flat_map(|(rel, tuples)| {
                let name = &program.relations[rel].name;
                let text = &text;
                tuples
                    .iter()
                    .filter_map(move |t| text(name, program.fact_to_string(&case.symbols, rel, t)))
            })
            .collect()
    };
    let mut edb = case.edb.clone();
    engine.materialise(&edb).expect("materialises");
    let mut out = vec![model_text(engine)];
    for requested in &case.batches {
        let batch = Batch::normalise(requested, &edb);
        engine.apply(&batch).expect("applies");
        edb.apply(&batch);
        out.push(model_text(engine));
    }
    out
}

/// [`check_case`], panicking with the failure. Returns the number of batches checked.
pub fn assert_engines_agree(case: &LoadedCase, engines: &mut [Box<dyn Engine>]) -> usize {
    match check_case(case, engines) {
        Ok(observed) => observed.batches,
        Err(f) => panic!("{f}\nprogram:\n{}", case.program.source.text),
    }
}

/// Shrinks a failing case by delta debugging: drops batches, rules, EDB facts and updates —
/// halves first, then smaller chunks, down to single items — while `fails` still holds, until
/// no single item can go. `fails(case)` must hold on entry; the result fails too and has no
/// item whose removal keeps it failing.
pub fn shrink(case: &RandomCase, mut fails: impl FnMut(&RandomCase) -> bool) -> RandomCase {
    let mut best = case.clone();
    loop {
        let before = best.size() + best.batches.len();
        best = shrink_items(best, &mut fails, |c| &mut c.batches);
        best = shrink_items(best, &mut fails, |c| &mut c.rules);
        best = shrink_items(best, &mut fails, |c| &mut c.edb);
        for b in 0..best.batches.len() {
            best = shrink_items(best, &mut fails, |c| &mut c.batches[b]);
        }
        if best.size() + best.batches.len() == before {
            return best;
        }
    }
}

/// One pass of ddmin over the list `items` picks out of a case: removes chunks of halving
/// size while the case still fails.
fn shrink_items<T: Clone>(
    mut best: RandomCase,
    fails: &mut impl FnMut(&RandomCase) -> bool,
    items: impl Fn(&mut RandomCase) -> &mut Vec<T>,
) -> RandomCase {
    let mut chunk = items(&mut best).len().div_ceil(2).max(1);
    loop {
        let mut start = 0;
        while start < items(&mut best).len() {
            let mut trial = best.clone();
            let list = items(&mut trial);
            let end = (start + chunk).min(list.len());
            list.drain(start..end);
            if fails(&trial) {
                best = trial;
            } else {
                start += chunk;
            }
        }
        if chunk == 1 {
            return best;
        }
        chunk = chunk.div_ceil(2);
    }
}

/// A term of a generated atom before it is made valid.
#[derive(Clone, Copy, Debug)]
enum TermCode {
    Var(u8),
    Const(u8),
    Wild,
}

fn term_code() -> impl Strategy<Value = TermCode> {
    prop_oneof![
        // x, y, z, w as 4 : 3 : 2 : 1, so that atoms share variables and repeat them.
        14 => prop_oneof![4 => Just(0u8), 3 => Just(1u8), 2 => Just(2u8), 1 => Just(3u8)]
            .prop_map(TermCode::Var),
        3 => constant().prop_map(TermCode::Const),
        2 => Just(TermCode::Wild),
    ]
}

/// A generated atom: a relation pick (resolved against the relations the rule may read) and
/// three terms, of which the relation's arity are used.
#[derive(Clone, Debug)]
struct AtomCode {
    rel: u8,
    terms: [TermCode; 3],
}

fn atom_code() -> impl Strategy<Value = AtomCode> {
    (any::<u8>(), [term_code(), term_code(), term_code()])
        .prop_map(|(rel, terms)| AtomCode { rel, terms })
}

#[derive(Clone, Debug)]
struct RuleCode {
    head: u8,
    head_terms: [TermCode; 3],
    body: Vec<AtomCode>,
    compare: Option<(u8, TermCode, TermCode)>,
    negated: Option<AtomCode>,
    aggregate: Option<AggCode>,
    arith: Option<ArithCode>,
}

/// A generated expression: an operator over two terms (the first of [`BINARY`], then the
/// prefix operators and functors), and when `nested` a second operator applying it to a
/// third term.
#[derive(Clone, Debug)]
struct ExprCode {
    ops: [u8; 2],
    terms: [TermCode; 3],
    nested: bool,
}

/// Where a rule of a `number` case uses arithmetic ([`render_arith`]).
#[derive(Clone, Debug)]
struct ArithCode {
    kind: u8,
    exprs: [ExprCode; 2],
    cmp: u8,
    pos: u8,
}

/// The binary operators drawn on `float`s (the others do not apply to them).
const FLOAT_BINARY: [&str; 5] = ["+", "-", "*", "/", "^"];

/// The binary operators drawn.
const BINARY: [&str; 15] = [
    "+", "-", "*", "/", "%", "^", "band", "bor", "bxor", "bshl", "bshr", "bshru", "land", "lor",
    "lxor",
];

/// The modulus that bounds every value a generated rule derives by arithmetic, so that
/// recursion through arithmetic reaches a fixpoint: such values lie in `-2..=2`.
const BOUND: i64 = 3;

fn expr_code() -> impl Strategy<Value = ExprCode> {
    (
        [any::<u8>(), any::<u8>()],
        [term_code(), term_code(), term_code()],
        prop::bool::weighted(0.3),
    )
        .prop_map(|(ops, terms, nested)| ExprCode { ops, terms, nested })
}

fn arith_code() -> impl Strategy<Value = ArithCode> {
    (0u8..6, [expr_code(), expr_code()], 0u8..6, any::<u8>()).prop_map(|(kind, exprs, cmp, pos)| {
        ArithCode {
            kind,
            exprs,
            cmp,
            pos,
        }
    })
}

/// A generated aggregate: the function (count, sum, min, max), its one atom, whether the
/// head takes its result, and what more its braces and target hold ([`render_agg_extra`]):
/// `extra` picks the form, `var` the variable from outside a correlated one uses.
#[derive(Clone, Debug)]
struct AggCode {
    func: u8,
    atom: AtomCode,
    in_head: bool,
    extra: u8,
    var: u8,
}

fn rule_code(negation: bool, aggregates: bool, arithmetic: bool) -> BoxedStrategy<RuleCode> {
    let plain = plain_rule_code(negation, arithmetic);
    if !negation || !aggregates {
        return plain.boxed();
    }
    // Cases with negation also draw aggregates (positive cases keep their stream of cases).
    (
        plain,
        // One draw gives the function, the form and the variable, so that the cases after an
        // aggregate are those drawn before the forms beyond plain grouping were added.
        prop::option::weighted(0.3, (any::<u8>(), atom_code(), any::<bool>())),
    )
        .prop_map(|(mut rule, agg)| {
            rule.aggregate = agg.map(|(code, atom, in_head)| AggCode {
                func: code % 4,
                atom,
                in_head,
                extra: (code / 4) % 6,
                var: code / 24,
            });
            rule
        })
        .boxed()
}

fn plain_rule_code(negation: bool, arithmetic: bool) -> impl Strategy<Value = RuleCode> {
    // Without arithmetic nothing is drawn for it (`Just` takes no randomness), so such cases
    // are those the generator drew before it had arithmetic.
    let arith = if arithmetic {
        prop::option::weighted(0.5, arith_code()).boxed()
    } else {
        Just(None).boxed()
    };
    (
        any::<u8>(),
        [term_code(), term_code(), term_code()],
        prop_oneof![4 => 1usize..=2, 3 => 3usize..=3, 1 => 4usize..=4]
            .prop_flat_map(|n| prop::collection::vec(atom_code(), n)),
        prop::option::weighted(0.25, (0u8..6, term_code(), term_code())),
        // A weight must be above 0: positive cases draw and drop the rare negated atom.
        prop::option::weighted(if negation { 0.4 } else { 0.001 }, atom_code())
            .prop_map(move |a| a.filter(|_| negation)),
        arith,
    )
        .prop_map(
            |(head, head_terms, body, compare, negated, arith)| RuleCode {
                head,
                head_terms,
                body,
                compare,
                negated,
                aggregate: None,
                arith,
            },
        )
}

/// Rule shapes that make recursion, long derivations and alternative proofs likely, mixed
/// into the random rules (in symbol form: `{0}` is a constant).
const TEMPLATES: &[&str] = &[
    "p(x, y) :- e(x, y).",
    "p(x, z) :- p(x, y), p(y, z).",
    "p(x, z) :- p(x, y), e(y, z).",
    "r(x, y) :- p(y, x), q(x).",
    "q(y) :- q(x), f(x, y).",
    "q(x) :- g(x).",
    "t(x, y, x) :- r(x, y), q(y).",
    "r(x, z) :- t(x, y, z), p(y, z).",
    "u(x) :- t(x, x, y).",
    "s() :- p(x, x).",
    "q(x) :- s(), g(x).",
    "u(y) :- u(x), r(x, y).",
    "t(x, y, z) :- e(x, y), f(y, z), h().",
];

#[derive(Clone, Debug)]
enum RuleChoice {
    Random(RuleCode),
    Template(usize),
}

/// A requested update before it is resolved against the evolving EDB.
#[derive(Clone, Debug)]
enum UpdateCode {
    /// Delete a present fact (the i-th).
    DeletePresent(prop::sample::Index),
    /// Delete any fact over the EDB's constants, usually absent.
    DeleteAny(u8, [u8; 3]),
    /// Insert any fact, fresh constants included.
    InsertAny(u8, [u8; 3]),
    /// Insert again a fact an earlier batch deleted.
    Reinsert(prop::sample::Index),
    /// Insert a present fact (changes nothing).
    InsertPresent(prop::sample::Index),
    /// Delete and insert a present fact in the same batch (changes nothing).
    DeleteAndInsert(prop::sample::Index),
}

/// A constant of programs and EDBs, the first four three times as likely as the others, so
/// that joins and constants in rules meet facts often while every constant occurs.
fn constant() -> impl Strategy<Value = u8> + Clone {
    prop_oneof![3 => 0u8..4, 1 => 0u8..CONSTANTS as u8]
}

/// `N` constants of programs and EDBs.
fn constants<const N: usize>() -> [impl Strategy<Value = u8> + Clone; N] {
    std::array::from_fn(|_| constant())
}

/// The values of a fact (as many as its relation's arity are used), each a copy of the one
/// before a quarter of the time: facts such as `k(1, 2, 2)` or `e(3, 3)` are what atoms
/// with a repeated variable (`k(x, y, y)`, `e(x, x)`) match.
fn repeating(
    values: [impl Strategy<Value = u8> + Clone; 3],
) -> impl Strategy<Value = [u8; 3]> + Clone {
    (
        values,
        [prop::bool::weighted(0.25), prop::bool::weighted(0.25)],
    )
        .prop_map(|(mut v, copy)| {
            for i in 1..3 {
                if copy[i - 1] {
                    v[i] = v[i - 1];
                }
            }
            v
        })
}

/// The values of an EDB fact over the programs' constants.
fn fact_values() -> impl Strategy<Value = [u8; 3]> + Clone {
    repeating(constants::<3>())
}

fn update_code() -> impl Strategy<Value = UpdateCode> {
    // Inserted values: the EDB's constants, or one of the fresh ones a fifth of the time.
    let vals = repeating(std::array::from_fn(
        |_| prop_oneof![4 => constant(), 1 => CONSTANTS as u8..(CONSTANTS + FRESH) as u8],
    ));
    let old = fact_values();
    prop_oneof![
        5 => any::<prop::sample::Index>().prop_map(UpdateCode::DeletePresent),
        1 => (any::<u8>(), old).prop_map(|(r, v)| UpdateCode::DeleteAny(r, v)),
        4 => (any::<u8>(), vals).prop_map(|(r, v)| UpdateCode::InsertAny(r, v)),
        2 => any::<prop::sample::Index>().prop_map(UpdateCode::Reinsert),
        1 => any::<prop::sample::Index>().prop_map(UpdateCode::InsertPresent),
        1 => any::<prop::sample::Index>().prop_map(UpdateCode::DeleteAndInsert),
    ]
}

/// [`random_case`] narrowed to relations of arity at most 2 ([`RandomCase::narrowed`]).
pub fn random_narrow_case(negation: bool) -> impl Strategy<Value = RandomCase> {
    random_case(negation).prop_map(|case| case.narrowed())
}

/// Random cases: 2 to 10 rules (random ones, and templates of transitive closures, a ternary
/// join and a zero-arity guard) over 5 input and 6 derived relations of arities 0 to 3, up
/// to 3 program facts, up to 30 EDB facts over 7 constants, and 1 to 5 batches of up to 6
/// updates (the 3 fresh constants among them). `negation` allows one negated atom per rule,
/// stratified by construction, and one aggregate (count, and on numbers sum, min and max)
/// over a lower relation.
pub fn random_case(negation: bool) -> impl Strategy<Value = RandomCase> {
    random_case_with(negation, negation)
}

/// [`random_case`], with aggregates only when `aggregates` (and `negation`) is set.
pub fn random_case_with(negation: bool, aggregates: bool) -> impl Strategy<Value = RandomCase> {
    random_case_of(Draw {
        negation,
        aggregates,
        arithmetic: true,
    })
}

/// Random cases whose columns are all `number` ([`random_case_with`] without negation or
/// aggregates): for tests that add rules of their own doing arithmetic on the generator's EDB.
pub fn random_number_case() -> impl Strategy<Value = RandomCase> {
    random_case_with(false, false).prop_filter("number columns", |c| c.ty == ColumnType::Number)
}

/// Declarations of the generator's input relations, all `number`, and of `names` (name and
/// arity, `number` columns too), with the inputs' `.input` lines: a [`RandomCase::header`] for
/// rules a test writes over [`random_number_case`]'s EDB.
pub fn number_header(names: &[(&str, usize)]) -> String {
    let mut s = String::new();
    for (name, arity) in EDB.iter().chain(names) {
        let cols: Vec<String> = (0..*arity).map(|i| format!("a{i}: number")).collect();
        let _ = writeln!(s, ".decl {name}({})", cols.join(", "));
    }
    for (name, _) in EDB {
        let _ = writeln!(s, ".input {name}");
    }
    s
}

/// What a generated case may contain beyond positive Datalog.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Draw {
    /// Negated atoms, one per rule at most, stratified by construction.
    pub negation: bool,
    /// One aggregate per rule at most, over a lower relation (with `negation` only).
    pub aggregates: bool,
    /// Arithmetic in `number` cases, in half of the random rules: computed head arguments,
    /// assignments (one feeding a lookup), comparisons of expressions, equality filters,
    /// negated atoms over an expression, in recursive rules too, every value a head receives
    /// from arithmetic taken modulo 3 so that evaluation terminates.
    pub arithmetic: bool,
}

/// Random cases as [`random_case`] describes, with what `draw` allows: for what takes no
/// aggregates or arithmetic (`--query`'s magic sets), on the same cases otherwise.
pub fn random_case_of(draw: Draw) -> impl Strategy<Value = RandomCase> {
    let Draw {
        negation,
        aggregates,
        arithmetic,
    } = draw;
    let rule = prop_oneof![
        2 => rule_code(negation, aggregates, arithmetic).prop_map(RuleChoice::Random),
        1 => (0..TEMPLATES.len()).prop_map(RuleChoice::Template),
    ];
    (
        (any::<bool>(), 0u8..5),
        prop::collection::vec(0..LEVELS, IDB.len()),
        prop::collection::vec(rule, 2..=10),
        prop::collection::vec((any::<u8>(), constants::<3>()), 0..=3),
        prop::collection::vec((any::<u8>(), fact_values()), 0..=30),
        prop::collection::vec(prop::collection::vec(update_code(), 0..=6), 1..=5),
    )
        .prop_map(move |(symbols, levels, rules, facts, edb, batches)| {
            // Half the cases `symbol`; of the others three in five `number`, one `unsigned`,
            // one `float`.
            let ty = match symbols {
                (true, _) => ColumnType::Symbol,
                (false, 3) => ColumnType::Unsigned,
                (false, 4) => ColumnType::Float,
                _ => ColumnType::Number,
            };
            build_case(ty, draw, &levels, &rules, &facts, &edb, &batches)
        })
}

fn header(ty: ColumnType) -> String {
    let mut s = String::new();
    for (name, arity) in EDB.iter().chain(IDB) {
        let cols: Vec<String> = (0..*arity)
            .map(|i| format!("a{i}: {}", ty.name()))
            .collect();
        let _ = writeln!(s, ".decl {name}({})", cols.join(", "));
    }
    for (name, _) in EDB {
        let _ = writeln!(s, ".input {name}");
    }
    for (name, _) in IDB {
        let _ = writeln!(s, ".output {name}");
    }
    s
}

/// Renders a random rule, made valid: body atoms read relations the head's level allows,
/// head and comparison variables are bound by the body, a negated atom's unbound variables
/// become `_`.
fn render_rule(
    ty: ColumnType,
    draw: Draw,
    levels: &[u8],
    defined: &[bool],
    r: &RuleCode,
) -> String {
    let Draw {
        negation,
        arithmetic,
        ..
    } = draw;
    let head = r.head as usize % IDB.len();
    let level = levels[head];
    // The relations a positive atom may read: input ones, and derived ones that some rule
    // or fact of the case defines (an atom over a relation nothing defines only empties
    // its rule).
    let readable: Vec<(&str, usize)> = EDB
        .iter()
        .copied()
        .chain(
            IDB.iter()
                .enumerate()
                .filter(|&(i, _)| defined[i] && (!negation || levels[i] <= level))
                .map(|(_, &d)| d),
        )
        .collect();
    let negatable: Vec<(&str, usize)> = EDB
        .iter()
        .copied()
        .chain(
            IDB.iter()
                .enumerate()
                .filter(|&(i, _)| levels[i] < level)
                .map(|(_, &d)| d),
        )
        .collect();
    let mut bound: Vec<u8> = Vec::new();
    // Wider relations are picked more often (weight: arity, at least 1): their atoms are
    // the ones that repeat variables beside bound columns and constants.
    let weighted: Vec<(&str, usize)> = readable
        .iter()
        .flat_map(|&d| std::iter::repeat_n(d, d.1.max(1)))
        .collect();
    let mut lits = Vec::new();
    // Whether every body atom reads a relation of a lower level than the head's: only then
    // may an aggregate take a variable from outside (its context reads those atoms, and an
    // aggregate must not depend on its head).
    let mut lower_body = true;
    for a in &r.body {
        let (name, arity) = weighted[a.rel as usize % weighted.len()];
        lower_body &= IDB
            .iter()
            .position(|(n, _)| *n == name)
            .is_none_or(|i| levels[i] < level);
        let args: Vec<String> = a.terms[..arity]
            .iter()
            .map(|t| match *t {
                TermCode::Var(v) => {
                    if !bound.contains(&v) {
                        bound.push(v);
                    }
                    VARS[v as usize].to_string()
                }
                TermCode::Const(k) => ty.literal(k as usize),
                TermCode::Wild => "_".to_string(),
            })
            .collect();
        lits.push(format!("{name}({})", args.join(", ")));
    }
    // A variable the body binds, or a constant when it binds none.
    let bound_term = |t: TermCode| match t {
        TermCode::Var(v) if bound.contains(&v) => VARS[v as usize].to_string(),
        TermCode::Var(v) if !bound.is_empty() => {
            VARS[bound[v as usize % bound.len()] as usize].to_string()
        }
        TermCode::Var(v) => ty.literal(v as usize),
        TermCode::Const(k) => ty.literal(k as usize),
        TermCode::Wild if !bound.is_empty() => VARS[bound[0] as usize].to_string(),
        TermCode::Wild => ty.literal(0),
    };
    if let Some((op, l, rt)) = r.compare {
        if !bound.is_empty() {
            let ops: &[&str] = match ty {
                ColumnType::Symbol => &["=", "!="],
                _ => &["=", "!=", "<", "<=", ">", ">="],
            };
            let l = match l {
                TermCode::Const(_) => VARS[bound[0] as usize].to_string(),
                other => bound_term(other),
            };
            lits.push(format!(
                "{l} {} {}",
                ops[op as usize % ops.len()],
                bound_term(rt)
            ));
        }
    }
    if let (Some(n), false) = (&r.negated, negatable.is_empty()) {
        let (name, arity) = negatable[n.rel as usize % negatable.len()];
        let args: Vec<String> = n.terms[..arity]
            .iter()
            .map(|t| match *t {
                TermCode::Var(v) if bound.contains(&v) => VARS[v as usize].to_string(),
                TermCode::Const(k) => ty.literal(k as usize),
                _ => "_".to_string(),
            })
            .collect();
        lits.push(format!("!{name}({})", args.join(", ")));
    }
    let mut result_in_head = false;
    if let (Some(agg), false) = (&r.aggregate, negatable.is_empty()) {
        // `n = f t : { r(..) }` over a lower relation: variables bound outside group, the
        // others are local (`a`, `b`, `c`); symbol cases only count.
        const LOCALS: [&str; 3] = ["a", "b", "c"];
        let (name, arity) = negatable[agg.atom.rel as usize % negatable.len()];
        let mut locals = Vec::new();
        let args: Vec<String> = agg.atom.terms[..arity]
            .iter()
            .map(|t| match *t {
                TermCode::Var(v) if bound.contains(&v) => VARS[v as usize].to_string(),
                TermCode::Var(v) => {
                    let l = LOCALS[v as usize % LOCALS.len()];
                    locals.push(l);
                    l.to_string()
                }
                TermCode::Const(k) => ty.literal(k as usize),
                TermCode::Wild => "_".to_string(),
            })
            .collect();
        let target = locals
            .first()
            .map(|l| l.to_string())
            .or_else(|| args.iter().find(|a| VARS.contains(&a.as_str())).cloned());
        let mut braces = vec![format!("{name}({})", args.join(", "))];
        let outer: &[u8] = if lower_body { &bound } else { &[] };
        let target = render_agg_extra(ty, agg, outer, &locals, target, arithmetic, &mut braces);
        let func = match (ty, agg.func % 4, target) {
            (ColumnType::Number | ColumnType::Unsigned | ColumnType::Float, 1, Some(t)) => {
                format!("sum {t}")
            }
            (ColumnType::Number | ColumnType::Unsigned | ColumnType::Float, 2, Some(t)) => {
                format!("min {t}")
            }
            (ColumnType::Number | ColumnType::Unsigned | ColumnType::Float, 3, Some(t)) => {
                format!("max {t}")
            }
            // Symbol cases with string functors aggregate a number computed from a symbol.
            (ColumnType::Symbol, 1, Some(t)) if arithmetic => format!("sum strlen({t})"),
            (ColumnType::Symbol, 2, Some(t)) if arithmetic => {
                format!("min strlen(cat({t}, {t}))")
            }
            (ColumnType::Symbol, 3, Some(t)) if arithmetic => {
                format!("max to_number(substr({t}, 1, 1))")
            }
            _ => "count".to_string(),
        };
        lits.push(format!("n = {func} : {{ {} }}", braces.join(", ")));
        // `count` gives a `number`; `sum`, `min` and `max` their target's type.
        result_in_head = agg.in_head
            && (ty == ColumnType::Number || (ty != ColumnType::Symbol && func != "count"));
    }
    let (name, arity) = IDB[head];
    let mut head_args: Vec<String> = r.head_terms[..arity]
        .iter()
        .map(|&t| bound_term(t))
        .collect();
    if let (Some(a), true) = (&r.arith, ty != ColumnType::Symbol && arithmetic) {
        let expr = |e: &ExprCode| render_expr(ty, e, &bound_term);
        render_arith(
            ty,
            a,
            (&bound_term, &expr),
            &bound,
            negation,
            &mut lits,
            &mut head_args,
        );
    }
    if let (Some(a), ColumnType::Symbol, true) = (&r.arith, ty, arithmetic) {
        render_strings(a, &bound_term, &bound, negation, &mut lits, &mut head_args);
    }
    if let (true, Some(last)) = (result_in_head, head_args.last_mut()) {
        *last = "n".to_string();
    }
    format!("{name}({}) :- {}.", head_args.join(", "), lits.join(", "))
}

/// What an aggregate's braces and target hold beyond its atom (`braces`), by `agg.extra`:
/// nothing (a third of the aggregates); an aggregate nested inside the braces, counting the
/// facts of `g` for a local variable of the atom (`m = count : { g(a) }, m > 0`), when the
/// atom has one; a comparison of a local variable (or a constant) with a
/// variable from outside that the atom does not bind, making the aggregate correlated; in
/// `number` cases, a target computed by an expression, or an assignment inside the braces
/// compared with a variable from outside (or a constant). Returns the target, changed or not.
fn render_agg_extra(
    ty: ColumnType,
    agg: &AggCode,
    bound: &[u8],
    locals: &[&str],
    target: Option<String>,
    strings: bool,
    braces: &mut Vec<String>,
) -> Option<String> {
    let outer = (!bound.is_empty()).then(|| VARS[bound[agg.var as usize % bound.len()] as usize]);
    let local = locals
        .get(agg.var as usize % locals.len().max(1))
        .map_or_else(
            || ty.literal(agg.var as usize % CONSTANTS),
            |l| l.to_string(),
        );
    let numbers = ty != ColumnType::Symbol;
    if agg.extra == 2 && !locals.is_empty() {
        braces.push(format!("m = count : {{ g({local}) }}"));
        braces.push(format!(
            "m {} 0",
            if agg.var.is_multiple_of(2) { ">" } else { "=" }
        ));
        return target;
    }
    match (agg.extra, outer) {
        (5, outer) if !numbers && strings => {
            // A string made inside the braces, from a variable from outside when there is
            // one (correlated), and a constraint on it.
            braces.push(format!("d = cat({local}, {})", outer.unwrap_or("\"1\"")));
            braces.push(format!(
                "{}contains(\"1\", d)",
                if agg.var.is_multiple_of(2) { "" } else { "!" }
            ));
            target
        }
        (3, Some(v)) | (4 | 5, Some(v)) if !numbers => {
            let op = if agg.var.is_multiple_of(2) { "!=" } else { "=" };
            braces.push(format!("{local} {op} {v}"));
            target
        }
        (3, Some(v)) => {
            const OPS: [&str; 4] = ["<", "<=", "!=", ">"];
            braces.push(format!("{local} {} {v}", OPS[agg.var as usize % OPS.len()]));
            target
        }
        (4, _) if numbers => target.map(|t| match agg.var % 3 {
            0 => format!("{t} + 1"),
            1 => format!("{t} * 2"),
            // No unary minus on `unsigned`.
            _ if ty == ColumnType::Unsigned => format!("{t} bxor 1"),
            _ => format!("-{t}"),
        }),
        (5, outer) if numbers => {
            braces.push(format!("d = {local} + {}", outer.unwrap_or("1")));
            braces.push(format!(
                "d {} {BOUND}",
                if agg.var.is_multiple_of(2) { "<" } else { ">=" }
            ));
            target
        }
        _ => target,
    }
}

/// An expression of type `ty` over the rule's bound variables and constants (`term` writes
/// each), with the operators that apply to `ty` ([`crate::syntax::ast::ArithOp::applies_to`]).
fn render_expr(ty: ColumnType, e: &ExprCode, term: &impl Fn(TermCode) -> String) -> String {
    let [a, b, c] = e.terms.map(term);
    let binary: &[&str] = if ty == ColumnType::Float {
        &FLOAT_BINARY
    } else {
        &BINARY
    };
    let base = match e.ops[0] as usize % (binary.len() + 5) {
        i if i < binary.len() => format!("{a} {} {b}", binary[i]),
        i if i == binary.len() && ty == ColumnType::Unsigned => format!("{b} bxor bnot {a}"),
        i if i == binary.len() => format!("-({a})"),
        i if i == binary.len() + 1 && ty == ColumnType::Float => format!("-{a} * {b}"),
        i if i == binary.len() + 1 => format!("bnot {a}"),
        i if i == binary.len() + 2 && ty == ColumnType::Float => {
            format!("to_float(to_number({a}) bxor 1)")
        }
        i if i == binary.len() + 2 => format!("lnot {a}"),
        i if i == binary.len() + 3 => format!("min({a}, {b})"),
        _ => format!("max({a}, {b}, {c})"),
    };
    if e.nested {
        format!("({base}) {} {c}", binary[e.ops[1] as usize % binary.len()])
    } else {
        base
    }
}

/// Adds arithmetic to a rendered rule (its body literals `lits`, its head's arguments), of
/// one of six kinds: a head argument computed; an assignment `v = e` giving one; a
/// comparison of two expressions; an equality of a bound variable and an expression (a
/// filter); an assignment whose variable is a lookup key of an atom after it; a negated atom
/// over an expression (with negation). Every value a head receives from arithmetic is taken
/// modulo [`BOUND`], so that recursion through it terminates, except a head argument
/// one-to-one in a body variable (`x + 1`, `1 - x`, `bnot x`, ...), whose variable a guard
/// keeps within `BOUND` instead, so that checks of given heads solve for it.
fn render_arith(
    ty: ColumnType,
    a: &ArithCode,
    (term, expr): (&impl Fn(TermCode) -> String, &impl Fn(&ExprCode) -> String),
    bound: &[u8],
    negation: bool,
    lits: &mut Vec<String>,
    head_args: &mut [String],
) {
    // `%` does not apply to `float`s: a float is bounded through its truncation.
    let bounded = |e: &ExprCode| match ty {
        ColumnType::Float => format!("to_float(to_number({}) % {BOUND})", expr(e)),
        _ => format!("({}) % {BOUND}", expr(e)),
    };
    let pos = a.pos as usize;
    let kind = arith_kind(a, bound, negation, head_args);
    match kind {
        0 | 1 if ty != ColumnType::Float && a.cmp.is_multiple_of(3) == (kind == 1) => {
            // A head value one-to-one in a body variable, kept finite by a guard on that
            // variable: what a check of a given head fact solves for (`Expr::solve`).
            let t = term(a.exprs[0].terms[0]);
            let value = match a.exprs[0].ops[1] % 5 {
                0 => format!("{t} + 1"),
                1 => format!("{t} - 1"),
                2 => format!("1 - {t}"),
                3 => format!("bnot {t}"),
                _ => format!("{t} bxor 1"),
            };
            lits.push(format!("{t} < {BOUND}"));
            if ty == ColumnType::Number {
                lits.push(format!("{t} > -{BOUND}"));
            }
            head_args[pos % head_args.len()] = if kind == 0 {
                value
            } else {
                lits.push(format!("v = {value}"));
                "v".into()
            };
        }
        0 => head_args[pos % head_args.len()] = bounded(&a.exprs[0]),
        1 => {
            lits.push(format!("v = {}", bounded(&a.exprs[0])));
            head_args[pos % head_args.len()] = "v".into();
        }
        2 => {
            const CMP: [&str; 6] = ["=", "!=", "<", "<=", ">", ">="];
            lits.push(format!(
                "{} {} {}",
                expr(&a.exprs[0]),
                CMP[a.cmp as usize % CMP.len()],
                expr(&a.exprs[1])
            ));
        }
        k => render_binding(k, a, bound, &bounded, lits),
    }
}

/// The length that bounds every string a generated rule derives by string functors, so that
/// recursion through them reaches a fixpoint: such strings are at most this many bytes over
/// the constants' 13 characters. Not 3: a transitive closure over the up to 2,380 strings
/// of 3 bytes (`p(x, z) :- p(x, y), p(y, z).` over `p(x, substr(cat(..), 0, 3))`) took
/// `dredbench fuzz --negation --seed 2` past 20 GiB; over 2 bytes a case's model stays small.
const STR_BOUND: usize = 2;

/// The patterns `match` is drawn with (all valid: a constant invalid pattern is refused).
const PATTERNS: [&str; 4] = ["c[0-3].*", ".*1", "fresh.", "c.|.*2"];

/// A `symbol` expression over the rule's bound variables and symbol constants (`term`
/// writes each): the string functors that make strings, nested with each other and with
/// the number-valued ones.
fn render_str_expr(e: &ExprCode, term: &impl Fn(TermCode) -> String) -> String {
    let [a, b, c] = e.terms.map(term);
    let k = e.ops[1] as i64;
    let base = match e.ops[0] % 7 {
        0 => format!("cat({a}, {b})"),
        1 => format!("cat({a}, {b}, {c})"),
        2 => format!("{a} + {b}"),
        3 => format!("substr({a}, {}, {})", k % 5 - 1, (k / 5) % 5 - 1),
        4 => format!("to_string(strlen({a}))"),
        5 => format!("to_string(to_number(substr({a}, 1, 2)) + 1)"),
        _ => format!("substr(cat({a}, {b}), {}, 2)", k % 4),
    };
    if e.nested {
        format!("cat({base}, {c})")
    } else {
        base
    }
}

/// A `number` expression over symbols: lengths, numbers read from them, ordinals (compared
/// only for equality, their order being the table's).
fn render_str_number(e: &ExprCode, term: &impl Fn(TermCode) -> String) -> String {
    let [a, b, _] = e.terms.map(term);
    match e.ops[1] % 3 {
        0 => format!("strlen({})", render_str_expr(e, term)),
        1 => format!("to_number(substr({a}, 1, 3))"),
        _ => format!("strlen({a}) + strlen({b}) * 2"),
    }
}

/// Adds string functors to a rendered rule of a `symbol` case, of one of the six kinds of
/// [`render_arith`]: a head argument computed; an assignment `v = s` giving one; a
/// constraint (`contains`, `match`, negated or not) or a comparison of two expressions
/// (lengths and numbers read from strings by any operator, strings and ordinals by `=` and
/// `!=`); an equality filter; an assignment feeding a lookup; a negated atom over a made
/// string. Every string a head receives from a functor is cut to [`STR_BOUND`] bytes, so
/// that recursion through it terminates.
fn render_strings(
    a: &ArithCode,
    term: &impl Fn(TermCode) -> String,
    bound: &[u8],
    negation: bool,
    lits: &mut Vec<String>,
    head_args: &mut [String],
) {
    let bounded = |e: &ExprCode| format!("substr({}, 0, {STR_BOUND})", render_str_expr(e, term));
    let pos = a.pos as usize;
    let kind = arith_kind(a, bound, negation, head_args);
    let [s, t] = [&a.exprs[0], &a.exprs[1]].map(|e| {
        if e.nested {
            render_str_expr(e, term)
        } else {
            term(e.terms[0])
        }
    });
    match kind {
        0 => head_args[pos % head_args.len()] = bounded(&a.exprs[0]),
        1 => {
            lits.push(format!("v = {}", bounded(&a.exprs[0])));
            head_args[pos % head_args.len()] = "v".into();
        }
        2 => {
            let not = if pos.is_multiple_of(2) { "" } else { "!" };
            lits.push(match a.cmp {
                0 => format!("{not}contains({s}, {t})"),
                1 => format!("{not}contains(substr({s}, 1, 1), {t})"),
                2 => format!(
                    "{not}match(\"{}\", {t})",
                    PATTERNS[pos / 2 % PATTERNS.len()]
                ),
                3 => {
                    const CMP: [&str; 6] = ["=", "!=", "<", "<=", ">", ">="];
                    format!(
                        "{} {} {}",
                        render_str_number(&a.exprs[0], term),
                        CMP[pos / 2 % CMP.len()],
                        render_str_number(&a.exprs[1], term)
                    )
                }
                4 => format!(
                    "{} {} {}",
                    render_str_expr(&a.exprs[0], term),
                    if not.is_empty() { "=" } else { "!=" },
                    render_str_expr(&a.exprs[1], term)
                ),
                _ => format!(
                    "ord({s}) {} ord(cat({t}, \"\"))",
                    if not.is_empty() { "=" } else { "!=" }
                ),
            });
        }
        k => render_binding(k, a, bound, &bounded, lits),
    }
}

/// The kind of [`ArithCode`] `a` as the rule allows it: a computed head argument needs a head
/// argument, an equality filter a bound variable, a negated atom negation; else a comparison.
fn arith_kind(a: &ArithCode, bound: &[u8], negation: bool, head_args: &[String]) -> u8 {
    match a.kind {
        0 | 1 if head_args.is_empty() => 2,
        3 if bound.is_empty() => 2,
        5 if !negation => 2,
        k => k,
    }
}

/// Kinds 3 to 5 of [`ArithCode`], alike for every column type (`bounded` writes the value):
/// an equality of a bound variable and a value (a filter), an assignment whose variable is a
/// lookup key of an atom after it, a negated atom over a value.
fn render_binding(
    kind: u8,
    a: &ArithCode,
    bound: &[u8],
    bounded: &impl Fn(&ExprCode) -> String,
    lits: &mut Vec<String>,
) {
    let pos = a.pos as usize;
    match kind {
        3 => {
            let v = VARS[bound[pos % bound.len()] as usize];
            lits.push(format!("{v} = {}", bounded(&a.exprs[0])));
        }
        4 => {
            lits.push(format!("v = {}", bounded(&a.exprs[0])));
            lits.push(if pos.is_multiple_of(2) {
                "e(v, _)".to_string()
            } else {
                "g(v)".to_string()
            });
        }
        _ => lits.push(format!("!g({})", bounded(&a.exprs[0]))),
    }
}

/// Whether template `i` fits the levels of a negation case: every derived relation it reads
/// is at most its head's level.
fn template_fits(i: usize, levels: &[u8]) -> bool {
    let text = TEMPLATES[i];
    let level_of = |name: &str| IDB.iter().position(|(n, _)| *n == name).map(|i| levels[i]);
    let (head, body) = text.split_once(":-").expect("templates are rules");
    let head_name = head.trim().split('(').next().unwrap_or_default();
    let Some(head_level) = level_of(head_name) else {
        return false;
    };
    body.split("),")
        .map(|a| a.trim().split('(').next().unwrap_or_default())
        .all(|n| level_of(n).is_none_or(|l| l <= head_level))
}

#[allow(clippy::too_many_arguments)]
fn build_case(
    ty: ColumnType,
    draw: Draw,
    levels: &[u8],
    rules: &[RuleChoice],
    facts: &[(u8, [u8; 3])],
    edb: &[(u8, [u8; 3])],
    batches: &[Vec<UpdateCode>],
) -> RandomCase {
    let mut lines = Vec::new();
    for (rel, vals) in facts {
        let (name, arity) = IDB[*rel as usize % IDB.len()];
        let args: Vec<String> = vals[..arity]
            .iter()
            .map(|&k| ty.literal(k as usize))
            .collect();
        lines.push(format!("{name}({}).", args.join(", ")));
    }
    let mut defined = vec![false; IDB.len()];
    for (rel, _) in facts {
        defined[*rel as usize % IDB.len()] = true;
    }
    for r in rules {
        match r {
            RuleChoice::Random(code) => defined[code.head as usize % IDB.len()] = true,
            RuleChoice::Template(i) => {
                let head = TEMPLATES[*i].split('(').next().unwrap_or_default();
                if let Some(h) = IDB.iter().position(|(n, _)| *n == head) {
                    defined[h] = true;
                }
            }
        }
    }
    for r in rules {
        match r {
            RuleChoice::Random(code) => lines.push(render_rule(ty, draw, levels, &defined, code)),
            RuleChoice::Template(i) if !draw.negation || template_fits(*i, levels) => {
                lines.push(TEMPLATES[*i].to_string())
            }
            RuleChoice::Template(_) => {}
        }
    }
    if lines.is_empty() {
        lines.push(TEMPLATES[0].to_string());
    }
    // EDB facts: the relation pick weighs e, f, g, h and k 4 : 3 : 2 : 1 : 2, so that few
    // draws are spent on `h()`, which holds at most once.
    let fact = |rel: u8, vals: &[u8]| -> (String, Vec<String>) {
        const PICK: [usize; 12] = [0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 4, 4];
        let (name, arity) = EDB[PICK[rel as usize % PICK.len()]];
        let vals = vals[..arity.min(vals.len())]
            .iter()
            .map(|&k| ty.field(k as usize))
            .collect();
        (name.to_string(), vals)
    };
    let mut present: BTreeSet<(String, Vec<String>)> = BTreeSet::new();
    let mut initial = Vec::new();
    for (rel, vals) in edb {
        let f = fact(*rel, vals);
        if present.insert(f.clone()) {
            initial.push(f);
        }
    }
    let mut deleted: Vec<(String, Vec<String>)> = Vec::new();
    let mut stream = Vec::new();
    for codes in batches {
        let mut batch = Vec::new();
        let listed: Vec<(String, Vec<String>)> = present.iter().cloned().collect();
        let pick = |ix: &prop::sample::Index, from: &[(String, Vec<String>)]| {
            (!from.is_empty()).then(|| ix.get(from).clone())
        };
        let update = |insert: bool, (rel, values): (String, Vec<String>)| Update {
            insert,
            rel,
            values,
        };
        for code in codes {
            match code {
                UpdateCode::DeletePresent(ix) => {
                    if let Some(f) = pick(ix, &listed) {
                        batch.push(update(false, f));
                    }
                }
                UpdateCode::DeleteAny(rel, vals) => batch.push(update(false, fact(*rel, vals))),
                UpdateCode::InsertAny(rel, vals) => batch.push(update(true, fact(*rel, vals))),
                UpdateCode::Reinsert(ix) => {
                    if let Some(f) = pick(ix, &deleted) {
                        batch.push(update(true, f));
                    }
                }
                UpdateCode::InsertPresent(ix) => {
                    if let Some(f) = pick(ix, &listed) {
                        batch.push(update(true, f));
                    }
                }
                UpdateCode::DeleteAndInsert(ix) => {
                    if let Some(f) = pick(ix, &listed) {
                        batch.push(update(false, f.clone()));
                        batch.push(update(true, f));
                    }
                }
            }
        }
        // The batch's effect, deletions read before insertions (SPEC §3).
        let inserted: BTreeSet<(String, Vec<String>)> = batch
            .iter()
            .filter(|u| u.insert)
            .map(|u| (u.rel.clone(), u.values.clone()))
            .collect();
        for u in batch.iter().filter(|u| !u.insert) {
            let f = (u.rel.clone(), u.values.clone());
            if !inserted.contains(&f) && present.remove(&f) {
                deleted.push(f);
            }
        }
        present.extend(inserted);
        stream.push(batch);
    }
    RandomCase {
        ty,
        header: header(ty),
        rules: lines,
        edb: initial,
        batches: stream,
    }
}

/// A query's argument before it is written in a case's column type.
#[derive(Clone, Copy, Debug)]
pub enum QueryArg {
    /// Constant `k` (bound).
    Const(usize),
    /// Variable `a` or `b` (free; a repeated name asks for equal values).
    Var(u8),
    /// `_`.
    Wild,
}

/// A random query over a derived relation; [`RandomCase::query_text`] writes it.
#[derive(Clone, Debug)]
pub struct QuerySpec {
    /// Index into [`IDB`].
    pub rel: usize,
    /// Arguments, as many as the relation's arity are used.
    pub args: Vec<QueryArg>,
}

/// Random queries over the derived relations of [`random_case`] programs: each argument is a
/// constant (bound), a variable `a` or `b` (free; a repeated name asks for equal values) or
/// `_`, so every binding pattern occurs, the zero-arity `s()` included.
pub fn random_query() -> impl Strategy<Value = QuerySpec> {
    (
        0..IDB.len(),
        prop::collection::vec(
            prop_oneof![
                2 => (0..4usize).prop_map(QueryArg::Const),
                2 => (0..2u8).prop_map(QueryArg::Var),
                1 => Just(QueryArg::Wild),
            ],
            3,
        ),
    )
        .prop_map(|(rel, args)| QuerySpec { rel, args })
}

impl LoadedCase {
    /// The facts of the least model of the program over the initial EDB, as a program writes
    /// them (`Program::fact_to_string`): what non-triviality checks count.
    pub fn least_model_facts(&self) -> Vec<String> {
        let model = Oracle::least_model(&self.program, &self.edb);
        model
            .relations
            .iter()
            .enumerate()
            .flat_map(|(rel, tuples)| {
                tuples
                    .iter()
                    .map(move |t| self.program.fact_to_string(&self.symbols, rel, t))
            })
            .collect()
    }

    /// Rewrites the case for `query` (text such as [`RandomCase::query_text`] writes) by
    /// magic sets: the EDB and the batches (normalised in turn against the evolving EDB) are
    /// carried over to the generated program's relation ids, and the naive [`Oracle`] runs the
    /// *full* program on the same stream to give the expected answers. Panics when the query
    /// does not parse or the rewrite fails: generated queries always fit generated programs.
    pub fn magic(&self, query: &str) -> MagicCase {
        let mut symbols = self.symbols.clone();
        let query = parse_query(query, &self.program, &mut symbols)
            .unwrap_or_else(|d| panic!("query `{query}` rejected: {}", d.message));
        let magic = rewrite(&self.program, &query, &mut symbols).unwrap_or_else(|d| {
            panic!(
                "rewrite failed: {}\n{}",
                d.message, self.program.source.text
            )
        });
        let generated = Arc::new(magic.program.clone());
        let translate = |f: &Fact| {
            let name = &self.program.relations[f.rel].name;
            Fact::new(
                generated
                    .relation_id(name)
                    .expect("the rewrite keeps every input relation"),
                f.tuple.clone(),
            )
        };
        let mut edb = Edb::empty(&generated);
        for f in self.edb.facts() {
            edb.insert(translate(&f));
        }
        let mut full = Oracle::new(self.program.clone());
        let mut full_edb = self.edb.clone();
        full.materialise(&full_edb)
            .expect("the oracle materialises");
        let mut expected = vec![full_answers(&full, &query)];
        let mut batches = Vec::new();
        for requested in &self.batches {
            let batch = Batch::normalise(requested, &full_edb);
            full_edb.apply(&batch);
            full.apply(&batch).expect("the oracle applies");
            expected.push(full_answers(&full, &query));
            batches.push(Batch {
                deletions: batch.deletions.iter().map(translate).collect(),
                insertions: batch.insertions.iter().map(translate).collect(),
                ..batch
            });
        }
        MagicCase {
            magic,
            program: generated,
            full: self.program.clone(),
            edb,
            batches,
            expected,
        }
    }
}

/// The tuples of the queried relation that match the query, sorted.
fn full_answers(full: &Oracle, query: &Query) -> Vec<Tuple> {
    full.model().relations[query.rel]
        .iter()
        .filter(|t| query.matches(t))
        .cloned()
        .collect()
}

/// A generated case rewritten for a query (see [`LoadedCase::magic`]).
#[derive(Debug)]
pub struct MagicCase {
    /// The rewrite: generated text, program, answer relation, query.
    pub magic: MagicProgram,
    /// The generated program, shared as engines take it.
    pub program: Arc<Program>,
    /// The full program the case was generated as.
    pub full: Arc<Program>,
    /// The initial EDB, in the generated program's relation ids.
    pub edb: Edb,
    /// The normalised batches, in the generated program's relation ids.
    pub batches: Vec<Batch>,
    /// The full program's tuples matching the query: after materialisation (index 0) and
    /// after each batch (index i), sorted.
    pub expected: Vec<Vec<Tuple>>,
}

impl MagicCase {
    /// Runs `engine`, built on [`MagicCase::program`], through the case and panics, naming the
    /// engine, the batch, the query and both programs, at the first batch whose answers differ
    /// from the full program's. Returns the number of batches applied.
    pub fn assert_answers(&self, engine: &mut dyn Engine) -> usize {
        let check = |engine: &dyn Engine, batch: usize| {
            let got = self.magic.answers(&engine.model());
            assert!(
                got == self.expected[batch],
                "engine {} after batch {batch} for query {}: answers {got:?}, full program {:?}\n\
                 full program:\n{}\ngenerated program:\n{}",
                engine.name(),
                self.magic.query.text,
                self.expected[batch],
                self.full.source.text,
                self.magic.text
            );
        };
        engine.materialise(&self.edb).expect("materialise");
        check(engine, 0);
        for (i, batch) in self.batches.iter().enumerate() {
            engine.apply(batch).expect("apply");
            check(engine, i + 1);
        }
        self.batches.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    /// Every generated case loads (valid by construction, negation stratified), and its
    /// files say what its fields say.
    #[test]
    fn generated_cases_load() {
        let mut runner = TestRunner::deterministic();
        for negation in [false, true] {
            for _ in 0..300 {
                let case = random_case(negation)
                    .new_tree(&mut runner)
                    .expect("tree")
                    .current();
                let loaded = case.load().unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(loaded.batches.len(), case.batches.len());
                let updates: usize = loaded
                    .batches
                    .iter()
                    .map(|b| b.deletions.len() + b.insertions.len())
                    .sum();
                assert_eq!(updates, case.batches.iter().map(Vec::len).sum::<usize>());
                assert_eq!(loaded.edb.len(), case.edb.len());
            }
        }
    }

    /// Shrinking keeps the failure and removes every item it can: with "fails while rule
    /// `r` and EDB fact `f` remain", exactly they remain.
    #[test]
    fn shrink_keeps_only_what_the_failure_needs() {
        let mut runner = TestRunner::deterministic();
        let case = loop {
            let c = random_case(false)
                .new_tree(&mut runner)
                .expect("tree")
                .current();
            if c.rules.len() >= 3 && c.edb.len() >= 3 {
                break c;
            }
        };
        let rule = case.rules[1].clone();
        let fact = case.edb[2].clone();
        let fails = |c: &RandomCase| c.rules.contains(&rule) && c.edb.contains(&fact);
        let small = shrink(&case, fails);
        assert_eq!(small.rules, vec![rule]);
        assert_eq!(small.edb, vec![fact]);
        assert!(small.batches.is_empty());
    }
}
