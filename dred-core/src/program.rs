//! The checked program: relations resolved to ids, variables numbered, constants interned,
//! types verified, strata computed. Every engine takes this, never the AST.

use std::fmt;

use crate::diagnostic::{SourceFile, Span};
use crate::syntax::ast::{AggFunc, ArithOp, CmpOp, Type};
use crate::value::{Symbols, Tuple, Value};

/// Index of a relation in [`Program::relations`].
pub type RelId = usize;

/// Index of a variable within one rule, dense from 0.
pub type VarId = usize;

/// A declared relation.
#[derive(Clone, Debug)]
pub struct RelationDecl {
    /// Its name.
    pub name: String,
    /// Column types; the arity is their number.
    pub types: Vec<Type>,
    /// Declared `.input`: part of the EDB, updatable, never in a rule head.
    pub input: bool,
    /// Declared `.output`: written by `--out`.
    pub output: bool,
    /// The name its facts are read under (its `.facts` file, update streams) when it is not
    /// [`RelationDecl::name`]: the EDB part of an `.input` `eqrel` relation `r` is a generated
    /// input relation read as `r`.
    pub facts_name: Option<String>,
    /// Where it is declared.
    pub span: Span,
}

impl RelationDecl {
    /// Number of columns.
    pub fn arity(&self) -> usize {
        self.types.len()
    }

    /// The name its facts are read and written under in `.facts` files and update streams.
    pub fn facts_name(&self) -> &str {
        self.facts_name.as_deref().unwrap_or(&self.name)
    }
}

/// An argument of a checked atom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    /// A rule variable.
    Var(VarId),
    /// A constant, already interned.
    Const(Value),
    /// `_`: matches anything, binds nothing.
    Wildcard,
}

/// A checked atom: arity and types agree with the relation's declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Atom {
    /// The relation.
    pub rel: RelId,
    /// One term per column.
    pub args: Vec<Term>,
}

/// A checked body literal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Literal {
    /// The atom must hold.
    Positive(Atom),
    /// The atom must not hold; its relation is in a strictly lower stratum and every variable
    /// in it occurs in a positive atom of the same rule or is bound by an
    /// [`Literal::Assign`].
    Negative(Atom),
    /// A comparison whose variables all occur in positive atoms or are bound by an
    /// [`Literal::Assign`]; order operators only on numbers.
    Compare {
        /// Left operand.
        left: Term,
        /// Operator.
        op: CmpOp,
        /// Right operand.
        right: Term,
    },
    /// `var = expr`: binds `var` to the value of `expr` when `var` is not bound yet, and
    /// keeps the binding only when they are equal when it is; an instance where `expr` has
    /// no value (a division by zero) derives nothing. The checker makes one for every
    /// arithmetic expression of a rule (its variable `$eN`, or the user's in `y = x + 1`)
    /// and for an equality that binds a variable no positive atom binds (`y = x`). Every
    /// variable of `expr` is bound by a positive atom or by an `Assign` earlier in the body.
    Assign {
        /// The variable bound or checked.
        var: VarId,
        /// Its value.
        expr: Expr,
    },
}

/// A checked expression: constants and variables (never `_`) under arithmetic operators
/// and functors over `number`s, and string functors; every operand has the type the
/// operator takes ([`ArithOp::signature`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    /// A variable or constant (of any type when the expression is nothing else).
    Term(Term),
    /// An arithmetic operator or functor applied to its `number` operands
    /// ([`crate::arith::apply`]).
    Op(ArithOp, Vec<Expr>),
    /// An arithmetic operator or functor applied to operands of the numeric type given
    /// (`unsigned` or `float`), or a conversion from it to another numeric type
    /// (`to_number`, `to_unsigned`, `to_float`; [`crate::arith::apply_typed`]).
    Typed(Type, ArithOp, Vec<Expr>),
    /// A string functor or constraint applied to its operands ([`crate::strings::apply`]),
    /// with a handle on the run's symbol table, where it reads its operands' strings and
    /// interns the strings it makes: the checker puts it there, so only programs with
    /// string functors reach the table while they are evaluated.
    Str(ArithOp, Vec<Expr>, Symbols),
    /// A record built from its fields' values, or a field taken from a record
    /// ([`RecordOp`]), with a handle on the run's record table ([`crate::records`]).
    Record(RecordOp, Vec<Expr>, Symbols),
}

/// What an [`Expr::Record`] does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordOp {
    /// `[e1, ..., en]`: the record of the operands' values (interned, so equal fields give
    /// an equal word).
    Pack,
    /// Field `i` of the one operand, a record; no value for `nil`, so that a pattern
    /// `[x, y]` in a body atom does not match `nil`.
    Field(usize),
}

impl Expr {
    /// The value under `var`'s binding of the variables, or `None` when an operator has no
    /// value there (a division by zero): the rule instance then derives nothing.
    pub fn eval(&self, var: &impl Fn(VarId) -> Value) -> Option<Value> {
        match self {
            Expr::Term(Term::Const(c)) => Some(*c),
            Expr::Term(Term::Var(v)) => Some(var(*v)),
            Expr::Term(Term::Wildcard) => unreachable!("the checker keeps `_` out of expressions"),
            Expr::Op(op, args) => Self::with_operands(args, var, |v| crate::arith::apply(*op, v)),
            Expr::Typed(ty, op, args) => {
                Self::with_operands(args, var, |v| crate::arith::apply_typed(*ty, *op, v))
            }
            Expr::Str(op, args, symbols) => {
                Self::with_operands(args, var, |v| crate::strings::apply(*op, v, symbols))
            }
            Expr::Record(RecordOp::Pack, args, symbols) => {
                Self::with_operands(args, var, |v| Some(symbols.record(v)))
            }
            Expr::Record(RecordOp::Field(i), args, symbols) => {
                symbols.record_field(args[0].eval(var)?, *i)
            }
        }
    }

    /// `f` on the values of `args`, or `None` when one has none.
    fn with_operands(
        args: &[Expr],
        var: &impl Fn(VarId) -> Value,
        f: impl FnOnce(&[Value]) -> Option<Value>,
    ) -> Option<Value> {
        // Operands of up to 4 values live on the stack: nearly every operator's.
        let mut buf = [0; 4];
        if args.len() <= buf.len() {
            for (slot, a) in buf.iter_mut().zip(args) {
                *slot = a.eval(var)?;
            }
            f(&buf[..args.len()])
        } else {
            let vals = args
                .iter()
                .map(|a| a.eval(var))
                .collect::<Option<Vec<_>>>()?;
            f(&vals)
        }
    }

    /// The operands of an operator or functor; none for a term.
    pub fn operands(&self) -> &[Expr] {
        match self {
            Expr::Term(_) => &[],
            Expr::Op(_, args)
            | Expr::Typed(_, _, args)
            | Expr::Str(_, args, _)
            | Expr::Record(_, args, _) => args,
        }
    }

    /// The operands, to rewrite in place (variables renumbered); none for a term.
    pub fn operands_mut(&mut self) -> &mut [Expr] {
        match self {
            Expr::Term(_) => &mut [],
            Expr::Op(_, args)
            | Expr::Typed(_, _, args)
            | Expr::Str(_, args, _)
            | Expr::Record(_, args, _) => args,
        }
    }

    /// True when a record is built or taken apart in the expression.
    pub fn has_record(&self) -> bool {
        matches!(self, Expr::Record(..)) || self.operands().iter().any(Expr::has_record)
    }

    /// True when a string functor occurs in the expression.
    pub fn has_string_functor(&self) -> bool {
        matches!(self, Expr::Str(..)) || self.operands().iter().any(Expr::has_string_functor)
    }

    /// Calls `f` on each variable of the expression, in order, repeats included.
    pub fn for_each_var(&self, f: &mut impl FnMut(VarId)) {
        match self {
            Expr::Term(Term::Var(v)) => f(*v),
            Expr::Term(_) => {}
            Expr::Op(_, args)
            | Expr::Typed(_, _, args)
            | Expr::Str(_, args, _)
            | Expr::Record(_, args, _) => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }

    /// True when every variable of the expression is `bound`.
    pub fn ready(&self, bound: &[bool]) -> bool {
        let mut ready = true;
        self.for_each_var(&mut |v| ready &= bound[v]);
        ready
    }

    /// For `self = value`, where exactly one variable `x` of `self` is not `bound`: `x` and an
    /// expression over `value` and the bound variables whose value is the one value of `x`
    /// for which `self` equals `value`. `None` unless `self` reaches `x` through integer
    /// operators that are one-to-one in the operand holding it (`+`, `-`, unary `-`, `bnot`,
    /// `bxor` on `number` or `unsigned`: they wrap, so each has exactly one inverse), each
    /// with every other operand bound; `x` occurs once.
    ///
    /// Why: a check of a given fact `p(5)` against `p(x + 1) :- p(x)` binds the head's
    /// value first; solved for `x`, the body atom is looked up instead of scanned (B/F was
    /// quadratic on such chains: 3.6 s for 20,000 values against `dred`'s 0.07 s).
    pub fn solve(&self, value: Expr, bound: &[bool]) -> Option<(VarId, Expr)> {
        let (make, op, args): (&dyn Fn(ArithOp, Vec<Expr>) -> Expr, _, _) = match self {
            Expr::Term(Term::Var(x)) if !bound[*x] => return Some((*x, value)),
            Expr::Op(op, args) => (&|op, args| Expr::Op(op, args), *op, args),
            Expr::Typed(Type::Unsigned, op, args) => {
                (&|op, args| Expr::Typed(Type::Unsigned, op, args), *op, args)
            }
            _ => return None,
        };
        let mut unbound = args.iter().enumerate().filter(|(_, a)| !a.ready(bound));
        let (k, inner) = unbound.next()?;
        if unbound.next().is_some() {
            return None;
        }
        let other = || args[1 - k].clone();
        let value = match (op, k, args.len()) {
            (ArithOp::Add, _, 2) => make(ArithOp::Sub, vec![value, other()]),
            (ArithOp::Sub, 0, 2) => make(ArithOp::Add, vec![value, other()]),
            (ArithOp::Sub, 1, 2) => make(ArithOp::Sub, vec![other(), value]),
            (ArithOp::BXor, _, 2) => make(ArithOp::BXor, vec![value, other()]),
            (ArithOp::Neg | ArithOp::BNot, 0, 1) => make(op, vec![value]),
            _ => return None,
        };
        inner.solve(value, bound)
    }

    /// The expression as a program would write it, variables by `name`.
    pub fn display(&self, name: &impl Fn(Term) -> String) -> String {
        match self {
            Expr::Term(t) => name(*t),
            Expr::Record(RecordOp::Pack, args, _) => {
                let args: Vec<String> = args.iter().map(|a| a.display(name)).collect();
                format!("[{}]", args.join(", "))
            }
            Expr::Record(RecordOp::Field(i), args, _) => {
                format!("{}.{i}", args[0].display(name))
            }
            Expr::Op(op, args) | Expr::Typed(_, op, args) | Expr::Str(op, args, _)
                if op.is_functor() =>
            {
                let args: Vec<String> = args.iter().map(|a| a.display(name)).collect();
                format!("{}({})", op.symbol(), args.join(", "))
            }
            Expr::Op(op, args) | Expr::Typed(_, op, args) if op.is_unary() => {
                let sep = if *op == ArithOp::Neg { "" } else { " " };
                format!("{}{sep}{}", op.symbol(), args[0].display(name))
            }
            Expr::Op(op, args) | Expr::Typed(_, op, args) | Expr::Str(op, args, _) => format!(
                "({} {} {})",
                args[0].display(name),
                op.symbol(),
                args[1].display(name)
            ),
        }
    }
}

/// A checked rule. Range-restricted: every head variable occurs in a positive body atom or
/// is bound by an [`Literal::Assign`].
#[derive(Clone, Debug)]
pub struct Rule {
    /// The derived atom; never wildcards, never an `.input` relation.
    pub head: Atom,
    /// Body literals in source order; at least one positive atom.
    pub body: Vec<Literal>,
    /// Variable names, indexed by [`VarId`].
    pub var_names: Vec<String>,
    /// Variable types, indexed by [`VarId`] (to print a constant compared with or assigned
    /// to a variable as its type writes it).
    pub var_types: Vec<Type>,
    /// The rule in the source.
    pub span: Span,
}

impl Rule {
    /// Number of distinct variables.
    pub fn num_vars(&self) -> usize {
        self.var_names.len()
    }

    /// The head's variables in argument order (a repeated variable appears each time).
    pub fn head_vars(&self) -> impl Iterator<Item = VarId> + '_ {
        self.head.args.iter().filter_map(|t| match t {
            Term::Var(v) => Some(*v),
            _ => None,
        })
    }

    /// The positive body atoms, in order.
    pub fn positive_atoms(&self) -> impl Iterator<Item = &Atom> {
        self.body.iter().filter_map(|l| match l {
            Literal::Positive(a) => Some(a),
            _ => None,
        })
    }
}

/// A ground fact written in the program (`ready().`, `m("a").`): an empty-body rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramFact {
    /// The relation; never an `.input` relation.
    pub rel: RelId,
    /// The constants.
    pub tuple: Tuple,
    /// Where it is written.
    pub span: Span,
}

/// An aggregate relation (the checker makes one per aggregate of the source, see
/// `check::aggregates`): `rel(g_1, .., g_k, v)` holds for each group of `input`'s rows that
/// agree on their first k columns, with v the number of rows of the group (`count`) or the
/// sum ([`crate::arith::sum`]), minimum or maximum of its column `target`. An empty group has
/// no row. It has no rules; its stratum holds it alone, above `input`'s.
#[derive(Clone, Debug)]
pub struct AggregateDef {
    /// The aggregate relation (k + 1 columns, the last a `number`).
    pub rel: RelId,
    /// The relation aggregated: every solution of the aggregate's body.
    pub input: RelId,
    /// k: the number of grouping columns, the first of both relations.
    pub group: usize,
    /// The function.
    pub func: AggFunc,
    /// The column of `input` aggregated by `sum`, `min` and `max`; `None` for `count`.
    pub target: Option<usize>,
    /// The type of the aggregate's value (its relation's last column): the target's for
    /// `sum`, `min` and `max`, `number` for `count`.
    pub value_type: Type,
    /// The aggregate in the source.
    pub span: Span,
}

impl AggregateDef {
    /// The value of one non-empty group, from its rows of `input`; `None` for an empty one.
    pub fn fold<'a>(&self, rows: impl IntoIterator<Item = &'a [Value]>) -> Option<Value> {
        let mut rows = rows.into_iter().peekable();
        rows.peek()?;
        let t = self.target.unwrap_or(0);
        Some(match self.func {
            AggFunc::Count => rows.count() as Value,
            AggFunc::Sum => crate::arith::sum(self.value_type, rows.map(|r| r[t])),
            AggFunc::Min => rows.map(|r| r[t]).min().expect("non-empty"),
            AggFunc::Max => rows.map(|r| r[t]).max().expect("non-empty"),
        })
    }
}

/// A set of mutually recursive derived relations, evaluated after every stratum it reads.
#[derive(Clone, Debug, Default)]
pub struct Stratum {
    /// The relations defined here (one strongly connected component of the dependency graph).
    pub relations: Vec<RelId>,
    /// Indices into [`Program::rules`] of the rules whose head is defined here.
    pub rules: Vec<usize>,
    /// Indices into [`Program::facts`] of the program facts of these relations.
    pub facts: Vec<usize>,
    /// True when some rule here reads a relation of this stratum.
    pub recursive: bool,
    /// Its DRed level: the largest number of negations on a dependency path from the EDB to
    /// it. Levels are the coarsest stratification (a rule reads relations of its own level or
    /// lower positively, and only of strictly lower levels under negation); DRed maintains
    /// them one after another, each from the net changes of those below (SPEC §8). A program
    /// without negation has one level, 0. An aggregate relation is one level above its
    /// input, and a rule reading it one level above it.
    pub level: usize,
    /// For the stratum of an aggregate relation, its index in [`Program::aggregates`] (the
    /// stratum then has no rules and that one relation).
    pub aggregate: Option<usize>,
}

/// A program that passed every check of SPEC §2. Engines may rely on its invariants.
#[derive(Clone, Debug)]
pub struct Program {
    /// The program's source, for messages.
    pub source: SourceFile,
    /// All declared relations.
    pub relations: Vec<RelationDecl>,
    /// Rules with a non-empty body.
    pub rules: Vec<Rule>,
    /// Ground facts written in the program.
    pub facts: Vec<ProgramFact>,
    /// Derived (non-`.input`) relations in evaluation order; each lower stratum comes first.
    pub strata: Vec<Stratum>,
    /// For each relation, the index of its stratum, or `None` for `.input` relations.
    pub stratum_of: Vec<Option<usize>>,
    /// The aggregate relations, in the order of the aggregates in the source.
    pub aggregates: Vec<AggregateDef>,
}

impl Program {
    /// A copy whose rules name every wildcard of a positive body atom as a fresh variable
    /// (`_N`, N its id), so that a binding of a rule's variables names each body fact; the
    /// rules hold for the same instances. Negated atoms keep their wildcards.
    pub(crate) fn with_named_wildcards(&self) -> Program {
        let mut named = self.clone();
        for rule in &mut named.rules {
            for lit in &mut rule.body {
                if let Literal::Positive(atom) = lit {
                    let types = &self.relations[atom.rel].types;
                    for (t, &ty) in atom.args.iter_mut().zip(types) {
                        if *t == Term::Wildcard {
                            *t = Term::Var(rule.var_names.len());
                            rule.var_names.push(format!("_{}", rule.var_names.len()));
                            rule.var_types.push(ty);
                        }
                    }
                }
            }
        }
        named
    }

    /// The relation that facts files and update streams mean by `name`: the input relation
    /// read under that name ([`RelationDecl::facts_name`]: for an `.input` `eqrel` relation,
    /// its EDB part), else the relation declared as `name`.
    pub fn input_id(&self, name: &str) -> Option<RelId> {
        self.relations
            .iter()
            .position(|d| d.input && d.facts_name() == name)
            .or_else(|| self.relation_id(name))
    }

    /// The relation declared as `name`, if any.
    pub fn relation_id(&self, name: &str) -> Option<RelId> {
        self.relations.iter().position(|r| r.name == name)
    }

    /// True for derived (IDB) relations: those not declared `.input`.
    pub fn is_idb(&self, rel: RelId) -> bool {
        !self.relations[rel].input
    }

    /// The DRed level of a relation ([`Stratum::level`]); 0 for `.input` relations, which
    /// change in level 0.
    pub fn level_of(&self, rel: RelId) -> usize {
        self.stratum_of[rel].map_or(0, |s| self.strata[s].level)
    }

    /// The DRed level of a rule: its head's.
    pub fn rule_level(&self, rule: usize) -> usize {
        self.level_of(self.rules[rule].head.rel)
    }

    /// Number of DRed levels: 1 + the largest [`Stratum::level`] (1 for a program without
    /// derived relations).
    pub fn num_levels(&self) -> usize {
        self.strata.iter().map(|s| s.level + 1).max().unwrap_or(1)
    }

    /// The aggregate that defines `rel`, if `rel` is an aggregate relation.
    pub fn aggregate_of(&self, rel: RelId) -> Option<&AggregateDef> {
        self.stratum_of[rel]
            .and_then(|s| self.strata[s].aggregate)
            .map(|a| &self.aggregates[a])
    }

    /// True when some rule computes a value ([`Literal::Assign`]): arithmetic, or an
    /// equality that binds a variable.
    pub fn has_arithmetic(&self) -> bool {
        self.rules
            .iter()
            .any(|r| r.body.iter().any(|l| matches!(l, Literal::Assign { .. })))
    }

    /// True when some relation has an `unsigned` or `float` column.
    pub fn has_numeric_types(&self) -> bool {
        self.relations
            .iter()
            .flat_map(|r| &r.types)
            .any(|t| matches!(t, Type::Unsigned | Type::Float))
    }

    /// True when some relation has a record column ([`crate::records`]).
    pub fn has_records(&self) -> bool {
        self.relations
            .iter()
            .flat_map(|r| &r.types)
            .any(|t| matches!(t, Type::Record(_)))
    }

    /// True when some rule uses a string functor or constraint ([`Expr::Str`]).
    pub fn has_string_functors(&self) -> bool {
        self.rules.iter().any(|r| {
            r.body
                .iter()
                .any(|l| matches!(l, Literal::Assign { expr, .. } if expr.has_string_functor()))
        })
    }

    /// True when some rule has a negated atom.
    pub fn has_negation(&self) -> bool {
        self.rules
            .iter()
            .any(|r| r.body.iter().any(|l| matches!(l, Literal::Negative(_))))
    }

    /// A fact as a program would write it: `rel("a", 1)`.
    pub fn fact_to_string(&self, symbols: &Symbols, rel: RelId, tuple: &[Value]) -> String {
        let decl = &self.relations[rel];
        let args: Vec<String> = decl
            .types
            .iter()
            .zip(tuple)
            .map(|(&ty, &v)| symbols.display(ty, v))
            .collect();
        format!("{}({})", decl.name, args.join(", "))
    }

    /// The rule as written in the source.
    pub fn rule_text(&self, rule: usize) -> &str {
        let s = self.rules[rule].span;
        &self.source.text[s.start..s.end]
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Var(v) => write!(f, "v{v}"),
            Term::Const(c) => write!(f, "#{c}"),
            Term::Wildcard => write!(f, "_"),
        }
    }
}
