//! Soufflé components (`.comp`, `.init`) expanded into plain declarations and rules.
//!
//! The parser reads a program into [`RawItem`]s, which may declare components and instantiate
//! them; [`expand`] replaces every instantiation by the instance's declarations, types,
//! directives and rules, with Soufflé's qualified names (`inst.rel`, `outer.inner.rel`), so the
//! checker and every engine see an ordinary program. Expansion is done before types are
//! resolved, because type parameters substitute in column types.
//!
//! Names resolve innermost first: an instance's body is flattened with names relative to the
//! instance, then every name it declares is prefixed with the instance's name; a name it does
//! not declare is left as written and resolved by the enclosing scope the same way, and at the
//! top level it is the global name. Spans are kept from the component's text, so errors the
//! checker finds in an instance's rules point into the component's body.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::ast::{Atom, Decl, Ident, Literal, Rule};
use crate::diagnostic::{Diagnostic, SourceFile, Span};

/// A declared type as written: `.type T <: B`, `.type T = A | B`.
#[derive(Clone, Debug)]
pub(super) enum TypeDef {
    /// A subtype of, or an alias for, one type.
    Of(Ident),
    /// A union of several types.
    Union(Vec<Ident>),
    /// A record type: its fields' names and types as written.
    Record(Vec<(Ident, Ident)>),
    /// An algebraic data type: its branches' names, each with its fields' names and types.
    Adt(Vec<(Ident, Vec<(Ident, Ident)>)>),
}

impl TypeDef {
    /// Every type name the definition refers to, to rename in place.
    pub(super) fn referred_mut(&mut self) -> Vec<&mut Ident> {
        match self {
            TypeDef::Of(of) => vec![of],
            TypeDef::Union(members) => members.iter_mut().collect(),
            TypeDef::Record(fields) => fields.iter_mut().map(|(_, ty)| ty).collect(),
            TypeDef::Adt(branches) => branches
                .iter_mut()
                .flat_map(|(_, fields)| fields.iter_mut().map(|(_, ty)| ty))
                .collect(),
        }
    }
}

/// `.type name ...` with the span of the whole declaration.
#[derive(Clone, Debug)]
pub(super) struct TypeDecl {
    pub(super) name: Ident,
    pub(super) def: TypeDef,
    pub(super) span: Span,
}

/// `.decl`, with its column types as written (resolved after expansion).
#[derive(Clone, Debug)]
pub(super) struct RawDecl {
    /// The declaration; its column types are placeholders until resolved.
    pub(super) decl: Decl,
    /// The type name of each column, as written (or substituted for a type parameter).
    pub(super) column_types: Vec<Ident>,
    /// `overridable`: a derived component may replace this relation's rules.
    pub(super) overridable: bool,
}

/// `Name` or `Name<T1, T2>`, where a component is named.
#[derive(Clone, Debug)]
pub(super) struct CompRef {
    pub(super) name: Ident,
    pub(super) args: Vec<Ident>,
    pub(super) span: Span,
}

/// `.comp Name<P1, P2> : Base1<P1>, Base2 { body }`
#[derive(Debug)]
pub(super) struct CompDecl {
    pub(super) name: Ident,
    pub(super) params: Vec<Ident>,
    pub(super) bases: Vec<CompRef>,
    pub(super) body: Vec<RawItem>,
}

/// `.init instance = Name<T1, T2>`
#[derive(Clone, Debug)]
pub(super) struct Init {
    pub(super) instance: Ident,
    pub(super) component: CompRef,
}

/// An item as read, before components are expanded and types resolved.
#[derive(Clone, Debug)]
pub(super) enum RawItem {
    Decl(RawDecl),
    Type(TypeDecl),
    Input(Ident),
    Output(Ident),
    PrintSize(Ident),
    Rule(Rule),
    Comp(Rc<CompDecl>),
    Init(Init),
    Override(Ident),
}

type PResult<T> = Result<T, Diagnostic>;

/// Items an expansion may produce: instances of instances multiply, and a few nested levels
/// of several `.init`s each would otherwise exhaust memory instead of reporting an error.
pub const MAX_EXPANDED_ITEMS: usize = 100_000;

/// Type parameters bound to the names of their arguments.
type Bindings = Rc<HashMap<String, String>>;

/// Where an item of a component's body is read: the components its `.init`s may name, and
/// the type parameters bound around it (those of the enclosing instances too, as in Soufflé,
/// so a component declared inside another may use its parameters).
#[derive(Clone)]
struct Context {
    scope: Rc<Scope>,
    bindings: Bindings,
}

/// The components visible at one place: those declared in one body (or at the top level),
/// then those of the enclosing scopes.
struct Scope {
    components: HashMap<String, Rc<CompDecl>>,
    parent: Option<Rc<Scope>>,
}

impl Scope {
    fn new(file: &SourceFile, items: &[RawItem], parent: Option<Rc<Scope>>) -> PResult<Rc<Scope>> {
        let mut components: HashMap<String, Rc<CompDecl>> = HashMap::new();
        for item in items {
            if let RawItem::Comp(c) = item {
                if let Some(first) = components.get(&c.name.name) {
                    let (line, col) = file.line_col(first.name.span.start);
                    return Err(Diagnostic::new(
                        file,
                        c.name.span,
                        format!(
                            "component `{}` is declared twice (first at line {line}, column {col})",
                            c.name.name
                        ),
                        "second declaration",
                    ));
                }
                components.insert(c.name.name.clone(), c.clone());
            }
        }
        Ok(Rc::new(Scope { components, parent }))
    }

    /// The component of that name and the scope it is declared in.
    fn lookup(self: &Rc<Self>, name: &str) -> Option<(Rc<CompDecl>, Rc<Scope>)> {
        let mut scope = self.clone();
        loop {
            if let Some(c) = scope.components.get(name) {
                return Some((c.clone(), scope));
            }
            scope = scope.parent.clone()?;
        }
    }
}

/// Replaces every `.init` by the instance's items with qualified names, and drops component
/// declarations; the result holds only declarations, types, directives and rules.
///
/// Errors, located in `file`: an undeclared component, a wrong number of type arguments, a
/// component declared twice in one scope, an instance name used twice in one scope, a
/// component that instantiates or inherits from itself, `.override` of a relation no base
/// declares `overridable`, and `.override` outside a component.
pub(super) fn expand(file: &SourceFile, items: Vec<RawItem>) -> PResult<Vec<RawItem>> {
    if !items.iter().any(|i| {
        matches!(
            i,
            RawItem::Comp(_) | RawItem::Init(_) | RawItem::Override(_)
        )
    }) {
        return Ok(items);
    }
    let root = Scope::new(file, &items, None)?;
    let mut expander = Expander {
        file,
        stack: Vec::new(),
        expanded: 0,
    };
    let context = Context {
        scope: root,
        bindings: Bindings::default(),
    };
    let items = items.into_iter().map(|i| (i, context.clone())).collect();
    expander.flatten(items)
}

struct Expander<'a> {
    file: &'a SourceFile,
    /// The components being instantiated or inherited from, innermost last: meeting one
    /// again is a recursion that would never end.
    stack: Vec<*const CompDecl>,
    /// Items instances have produced so far (each counted once, where it is copied from its
    /// component), against [`MAX_EXPANDED_ITEMS`].
    expanded: usize,
}

impl Expander<'_> {
    fn error(&self, span: Span, message: String, label: &str) -> Diagnostic {
        Diagnostic::new(self.file, span, message, label)
    }

    /// Expands the `.init`s among items of one scope, each resolved in its own scope.
    fn flatten(&mut self, items: Vec<(RawItem, Context)>) -> PResult<Vec<RawItem>> {
        let mut out = Vec::new();
        let mut instances: HashMap<String, Span> = HashMap::new();
        for (item, context) in items {
            match item {
                RawItem::Comp(_) => {}
                RawItem::Override(id) => {
                    return Err(self.error(
                        id.span,
                        format!("`.override {}` outside a component", id.name),
                        "`.override` belongs in a component that inherits the relation",
                    ))
                }
                RawItem::Init(init) => {
                    if let Some(first) = instances.get(&init.instance.name) {
                        let (line, col) = self.file.line_col(first.start);
                        return Err(self.error(
                            init.instance.span,
                            format!(
                                "instance `{}` is declared twice (first at line {line}, column {col})",
                                init.instance.name
                            ),
                            "second instance of this name",
                        ));
                    }
                    instances.insert(init.instance.name.clone(), init.instance.span);
                    out.extend(self.instantiate(&init, &context)?);
                }
                other => {
                    self.expanded += 1;
                    out.push(other);
                }
            }
        }
        Ok(out)
    }

    /// The component a reference names, checked for its number of type arguments and for
    /// recursion.
    fn resolve(
        &self,
        reference: &CompRef,
        scope: &Rc<Scope>,
        what: &str,
    ) -> PResult<(Rc<CompDecl>, Rc<Scope>)> {
        let name = &reference.name;
        let Some((comp, declared_in)) = scope.lookup(&name.name) else {
            return Err(self.error(
                name.span,
                format!("component `{}` is not declared", name.name),
                "declare it with `.comp` here or in an enclosing scope \
                 (a component declared inside another is local to it)",
            ));
        };
        if self.stack.contains(&Rc::as_ptr(&comp)) {
            return Err(self.error(
                reference.span,
                format!("component `{}` {what} itself", name.name),
                "this expansion would never end",
            ));
        }
        if comp.params.len() != reference.args.len() {
            return Err(self.error(
                reference.span,
                format!(
                    "component `{}` takes {} type parameter{}, given {}",
                    name.name,
                    comp.params.len(),
                    if comp.params.len() == 1 { "" } else { "s" },
                    reference.args.len()
                ),
                "one type per parameter",
            ));
        }
        Ok((comp, declared_in))
    }

    fn instantiate(&mut self, init: &Init, context: &Context) -> PResult<Vec<RawItem>> {
        let (comp, declared_in) = self.resolve(&init.component, &context.scope, "instantiates")?;
        let bindings = bind(&context.bindings, &comp, &init.component.args);
        self.stack.push(Rc::as_ptr(&comp));
        let collected = self.collect(&comp, &declared_in, &bindings)?;
        let flat = self.flatten(collected)?;
        self.stack.pop();
        if self.expanded > MAX_EXPANDED_ITEMS {
            return Err(self.error(
                init.instance.span.to(init.component.span),
                format!(
                    "components expand to more than {MAX_EXPANDED_ITEMS} declarations and rules"
                ),
                "the limit was passed instantiating this",
            ));
        }
        Ok(qualify(flat, &init.instance.name))
    }

    /// The items of one instance of `comp`, its bases' first, with type parameters
    /// substituted and the bases' rules for overridden relations dropped; each with the scope
    /// its `.init`s resolve in.
    fn collect(
        &mut self,
        comp: &Rc<CompDecl>,
        declared_in: &Rc<Scope>,
        bindings: &Bindings,
    ) -> PResult<Vec<(RawItem, Context)>> {
        let context = Context {
            scope: Scope::new(self.file, &comp.body, Some(declared_in.clone()))?,
            bindings: bindings.clone(),
        };
        let mut items = Vec::new();
        for base in &comp.bases {
            let reference = CompRef {
                name: substitute(&base.name, bindings),
                args: base.args.iter().map(|a| substitute(a, bindings)).collect(),
                span: base.span,
            };
            let (base_comp, base_declared_in) =
                self.resolve(&reference, &context.scope, "inherits from")?;
            let base_bindings = bind(bindings, &base_comp, &reference.args);
            self.stack.push(Rc::as_ptr(&base_comp));
            items.extend(self.collect(&base_comp, &base_declared_in, &base_bindings)?);
            self.stack.pop();
        }
        for item in &comp.body {
            let RawItem::Override(rel) = item else {
                continue;
            };
            let declared = items.iter().find_map(|(i, _)| match i {
                RawItem::Decl(d) if d.decl.name.name == rel.name => Some(d),
                _ => None,
            });
            match declared {
                None => {
                    return Err(self.error(
                        rel.span,
                        format!(
                            "`.override {}`: no base component of `{}` declares `{}`",
                            rel.name, comp.name.name, rel.name
                        ),
                        "only an inherited relation can be overridden",
                    ))
                }
                Some(d) if !d.overridable => {
                    let (line, col) = self.file.line_col(d.decl.name.span.start);
                    return Err(self.error(
                        rel.span,
                        format!(
                            "relation `{}` is not overridable (declared at line {line}, column {col})",
                            rel.name
                        ),
                        "declare it `overridable` in the base component",
                    ));
                }
                Some(_) => items.retain(
                    |(i, _)| !matches!(i, RawItem::Rule(r) if r.head.relation.name == rel.name),
                ),
            }
        }
        for item in &comp.body {
            let item = match item {
                RawItem::Comp(_) | RawItem::Override(_) => continue,
                RawItem::Decl(d) => {
                    let mut d = d.clone();
                    for t in &mut d.column_types {
                        *t = substitute(t, bindings);
                    }
                    RawItem::Decl(d)
                }
                RawItem::Type(t) => {
                    let mut t = t.clone();
                    for r in t.def.referred_mut() {
                        *r = substitute(r, bindings);
                    }
                    RawItem::Type(t)
                }
                RawItem::Init(init) => {
                    let mut init = init.clone();
                    init.component.name = substitute(&init.component.name, bindings);
                    for a in &mut init.component.args {
                        *a = substitute(a, bindings);
                    }
                    RawItem::Init(init)
                }
                other => other.clone(),
            };
            items.push((item, context.clone()));
        }
        Ok(items)
    }
}

/// The bindings around an instance of `comp`, with each of its type parameters bound to its
/// argument's name (shadowing an enclosing parameter of the same name).
fn bind(around: &Bindings, comp: &CompDecl, args: &[Ident]) -> Bindings {
    let mut bindings = (**around).clone();
    for (p, a) in comp.params.iter().zip(args) {
        bindings.insert(p.name.clone(), a.name.clone());
    }
    Rc::new(bindings)
}

/// The name with a type parameter replaced by its argument, at the place it is written.
fn substitute(id: &Ident, bindings: &Bindings) -> Ident {
    Ident {
        name: bindings.get(&id.name).unwrap_or(&id.name).clone(),
        span: id.span,
    }
}

/// Prefixes with `instance.` every relation and type the flattened body declares, where it is
/// declared and wherever it is used; other names are the enclosing scope's and stay.
fn qualify(mut items: Vec<RawItem>, instance: &str) -> Vec<RawItem> {
    let mut relations = HashSet::new();
    let mut types = HashSet::new();
    for item in &items {
        match item {
            RawItem::Decl(d) => {
                relations.insert(d.decl.name.name.clone());
            }
            RawItem::Type(t) => {
                types.insert(t.name.name.clone());
            }
            _ => {}
        }
    }
    let prefix = |id: &mut Ident, names: &HashSet<String>| {
        if names.contains(&id.name) {
            id.name = format!("{instance}.{}", id.name);
        }
    };
    for item in &mut items {
        match item {
            RawItem::Decl(d) => {
                prefix(&mut d.decl.name, &relations);
                for t in &mut d.column_types {
                    prefix(t, &types);
                }
            }
            RawItem::Type(t) => {
                prefix(&mut t.name, &types);
                for r in t.def.referred_mut() {
                    prefix(r, &types);
                }
            }
            RawItem::Input(id) | RawItem::Output(id) | RawItem::PrintSize(id) => {
                prefix(id, &relations)
            }
            RawItem::Rule(r) => {
                let mut rename = |a: &mut Atom| prefix(&mut a.relation, &relations);
                rename(&mut r.head);
                for_each_atom(&mut r.body, &mut rename);
            }
            RawItem::Comp(_) | RawItem::Init(_) | RawItem::Override(_) => {
                unreachable!("flattened items hold no components")
            }
        }
    }
    items
}

/// Visits every atom of a body, those inside aggregates included.
fn for_each_atom(body: &mut [Literal], f: &mut impl FnMut(&mut Atom)) {
    for lit in body {
        match lit {
            Literal::Positive(a) | Literal::Negative(a, _) => f(a),
            Literal::Aggregate(agg) => for_each_atom(&mut agg.body, f),
            Literal::Compare(_) => {}
        }
    }
}

#[cfg(test)]
#[path = "components_tests.rs"]
mod tests;
