//! Recursive-descent parser from tokens to [`ast::Program`].
//!
//! Unsupported Soufflé constructs (`.type`, disjunction, multiple heads, arithmetic, `eqrel`)
//! are refused here with a located error rather than misread.

use super::ast::*;
use super::lexer::{lex, Tok};
use crate::diagnostic::{Diagnostic, SourceFile, Span};

/// Parses a whole program file.
pub fn parse(file: &SourceFile) -> Result<Program, Diagnostic> {
    let toks = lex(file)?;
    let mut p = Parser { file, toks, pos: 0 };
    let mut items = Vec::new();
    while !p.at_end() {
        p.item(&mut items)?;
    }
    Ok(Program {
        file: file.clone(),
        items,
    })
}

struct Parser<'a> {
    file: &'a SourceFile,
    toks: Vec<(Tok, Span)>,
    pos: usize,
}

type PResult<T> = Result<T, Diagnostic>;

impl Parser<'_> {
    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|(t, _)| t)
    }

    fn span(&self) -> Span {
        match self.toks.get(self.pos) {
            Some((_, s)) => *s,
            None => {
                let end = self.file.text.len();
                Span::new(end, end)
            }
        }
    }

    fn prev_span(&self) -> Span {
        self.toks[self.pos.saturating_sub(1)].1
    }

    fn bump(&mut self) -> (Tok, Span) {
        let t = self.toks[self.pos].clone();
        self.pos += 1;
        t
    }

    fn error(
        &self,
        span: Span,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::new(self.file, span, message, label)
    }

    fn unexpected(&self, expected: &str) -> Diagnostic {
        match self.peek() {
            Some(t) => self.error(
                self.span(),
                format!("expected {expected}, found {}", t.describe()),
                format!("expected {expected}"),
            ),
            None => self.error(
                self.span(),
                format!("expected {expected}, found end of file"),
                format!("expected {expected}"),
            ),
        }
    }

    fn expect(&mut self, tok: Tok, expected: &str) -> PResult<Span> {
        if self.peek() == Some(&tok) {
            Ok(self.bump().1)
        } else {
            Err(self.unexpected(expected))
        }
    }

    fn ident(&mut self, expected: &str) -> PResult<Ident> {
        match self.peek() {
            Some(Tok::Ident(_)) => {
                let (Tok::Ident(name), span) = self.bump() else {
                    unreachable!("peeked an identifier")
                };
                Ok(Ident { name, span })
            }
            _ => Err(self.unexpected(expected)),
        }
    }

    fn item(&mut self, items: &mut Vec<Item>) -> PResult<()> {
        if self.peek() == Some(&Tok::Dot) {
            return self.directive(items);
        }
        let rule = self.rule()?;
        items.push(Item::Rule(rule));
        Ok(())
    }

    fn directive(&mut self, items: &mut Vec<Item>) -> PResult<()> {
        let dot = self.bump().1;
        let name = self.ident("a directive such as .decl, .input or .output")?;
        if name.span.start != dot.end {
            return Err(self.error(
                dot.to(name.span),
                "expected a directive directly after `.`",
                "write `.decl`, `.input` or `.output` without a space",
            ));
        }
        match name.name.as_str() {
            "decl" => {
                let decl = self.decl(dot)?;
                items.push(Item::Decl(decl));
            }
            "input" | "output" => loop {
                let rel = self.ident("a relation name")?;
                if self.peek() == Some(&Tok::LParen) {
                    self.skip_io_options()?;
                }
                items.push(if name.name == "input" {
                    Item::Input(rel)
                } else {
                    Item::Output(rel)
                });
                if self.peek() == Some(&Tok::Comma) {
                    self.bump();
                } else {
                    break;
                }
            },
            other => {
                return Err(self.error(
                    dot.to(name.span),
                    format!("unsupported directive `.{other}`"),
                    "only .decl, .input and .output are supported",
                ))
            }
        }
        Ok(())
    }

    /// `.input r(IO=file, filename="x")`: the options name Soufflé's I/O; files are found by
    /// relation name here, so the options are read and ignored.
    fn skip_io_options(&mut self) -> PResult<()> {
        let open = self.bump().1;
        let mut depth = 1;
        while depth > 0 {
            match self.peek() {
                None => return Err(self.error(open, "unclosed `(`", "opened here")),
                Some(Tok::LParen) => depth += 1,
                Some(Tok::RParen) => depth -= 1,
                _ => {}
            }
            self.bump();
        }
        Ok(())
    }

    fn decl(&mut self, dot: Span) -> PResult<Decl> {
        let name = self.ident("a relation name")?;
        self.expect(Tok::LParen, "`(` after the relation name")?;
        let mut columns = Vec::new();
        if self.peek() != Some(&Tok::RParen) {
            loop {
                let col = self.ident("a column name")?;
                self.expect(Tok::Colon, "`:` and a column type")?;
                let ty = self.ident("a column type (`symbol` or `number`)")?;
                let ty = match ty.name.as_str() {
                    "symbol" => Type::Symbol,
                    "number" => Type::Number,
                    other => {
                        return Err(self.error(
                            ty.span,
                            format!("unsupported column type `{other}`"),
                            "columns are `symbol` or `number`",
                        ))
                    }
                };
                columns.push((col, ty));
                if self.peek() == Some(&Tok::Comma) {
                    self.bump();
                } else {
                    break;
                }
            }
        }
        let close = self.expect(Tok::RParen, "`,` or `)` in the column list")?;
        // Representation qualifiers change nothing in set semantics, except `eqrel`, which
        // adds equivalence closure and is refused rather than ignored.
        while let Some(Tok::Ident(q)) = self.peek() {
            match q.as_str() {
                "btree" | "brie" | "btree_delete" | "inline" | "no_inline" => {
                    self.bump();
                }
                "eqrel" => {
                    return Err(self.error(
                        self.span(),
                        "`eqrel` relations are not supported",
                        "write the equivalence rules explicitly",
                    ))
                }
                _ => break,
            }
        }
        Ok(Decl {
            name,
            columns,
            span: dot.to(close),
        })
    }

    fn rule(&mut self) -> PResult<Rule> {
        let head = self.atom()?;
        if self.peek() == Some(&Tok::Comma) {
            return Err(self.error(
                self.span(),
                "rules with several heads are not supported",
                "write one rule per head",
            ));
        }
        let mut body = Vec::new();
        if self.peek() == Some(&Tok::Turnstile) {
            self.bump();
            loop {
                body.push(self.literal()?);
                match self.peek() {
                    Some(Tok::Comma) => {
                        self.bump();
                    }
                    Some(Tok::Semi) => {
                        return Err(self.error(
                            self.span(),
                            "disjunction `;` is not supported",
                            "write one rule per alternative",
                        ))
                    }
                    _ => break,
                }
            }
        }
        let end = self.expect(Tok::Dot, "`.` at the end of the rule")?;
        Ok(Rule {
            span: head.span.to(end),
            head,
            body,
        })
    }

    fn atom(&mut self) -> PResult<Atom> {
        let relation = self.ident("a relation name")?;
        self.expect(Tok::LParen, "`(` after the relation name")?;
        let mut args = Vec::new();
        if self.peek() != Some(&Tok::RParen) {
            loop {
                args.push(self.term()?);
                if self.peek() == Some(&Tok::Comma) {
                    self.bump();
                } else {
                    break;
                }
            }
        }
        let close = self.expect(Tok::RParen, "`,` or `)` in the argument list")?;
        Ok(Atom {
            span: relation.span.to(close),
            relation,
            args,
        })
    }

    fn term(&mut self) -> PResult<Term> {
        let term = match self.peek() {
            Some(Tok::Ident(_)) => Term::Var(self.ident("a term")?),
            Some(Tok::Underscore) => Term::Wildcard(self.bump().1),
            Some(Tok::Str(_)) => {
                let (Tok::Str(s), span) = self.bump() else {
                    unreachable!("peeked a string")
                };
                Term::Str(s, span)
            }
            Some(Tok::Num(_)) => {
                let (Tok::Num(n), span) = self.bump() else {
                    unreachable!("peeked a number")
                };
                Term::Num(n, span)
            }
            Some(Tok::Minus) if matches!(self.peek_at(1), Some(Tok::Num(_))) => {
                let minus = self.bump().1;
                let (Tok::Num(n), span) = self.bump() else {
                    unreachable!("peeked a number")
                };
                Term::Num(-n, minus.to(span))
            }
            _ => return Err(self.unexpected("a variable, `_`, a string or a number")),
        };
        if let Some(Tok::Other('+' | '*' | '/' | '%') | Tok::Minus) = self.peek() {
            return Err(self.error(
                self.span(),
                "arithmetic is not supported",
                "terms are variables, `_` or constants",
            ));
        }
        Ok(term)
    }

    fn cmp_op(&self) -> Option<CmpOp> {
        Some(match self.peek()? {
            Tok::Eq => CmpOp::Eq,
            Tok::Ne => CmpOp::Ne,
            Tok::Lt => CmpOp::Lt,
            Tok::Le => CmpOp::Le,
            Tok::Gt => CmpOp::Gt,
            Tok::Ge => CmpOp::Ge,
            _ => return None,
        })
    }

    fn literal(&mut self) -> PResult<Literal> {
        if self.peek() == Some(&Tok::Bang) {
            let bang = self.bump().1;
            let atom = self.atom()?;
            let span = bang.to(atom.span);
            return Ok(Literal::Negative(atom, span));
        }
        if matches!(self.peek(), Some(Tok::Ident(_))) && self.peek_at(1) == Some(&Tok::LParen) {
            return Ok(Literal::Positive(self.atom()?));
        }
        if self.peek() == Some(&Tok::LParen) {
            return Err(self.error(
                self.span(),
                "parenthesised sub-formulas are not supported",
                "write a flat conjunction",
            ));
        }
        let left = self.term()?;
        let Some(op) = self.cmp_op() else {
            return Err(self.unexpected("a comparison operator or `(` of an atom"));
        };
        self.bump();
        if op == CmpOp::Eq {
            if let Some(Tok::Ident(f)) = self.peek() {
                let func = match f.as_str() {
                    "count" => Some(AggFunc::Count),
                    "min" => Some(AggFunc::Min),
                    "max" => Some(AggFunc::Max),
                    "sum" => Some(AggFunc::Sum),
                    _ => None,
                };
                let next = self.peek_at(1);
                let looks_like_agg = matches!(next, Some(Tok::Colon))
                    || (func.is_some() && func != Some(AggFunc::Count) && next.is_some());
                if let (Some(func), true) = (func, looks_like_agg) {
                    return self.aggregate(left, func);
                }
            }
        }
        let right = self.term()?;
        Ok(Literal::Compare(Comparison {
            span: left.span().to(right.span()),
            left,
            op,
            right,
        }))
    }

    fn aggregate(&mut self, result: Term, func: AggFunc) -> PResult<Literal> {
        self.bump();
        let target = if func == AggFunc::Count {
            None
        } else {
            Some(self.term()?)
        };
        self.expect(Tok::Colon, "`:` before the aggregate's body")?;
        self.expect(Tok::LBrace, "`{` to open the aggregate's body")?;
        let mut body = Vec::new();
        loop {
            body.push(self.literal()?);
            if self.peek() == Some(&Tok::Comma) {
                self.bump();
            } else {
                break;
            }
        }
        self.expect(Tok::RBrace, "`}` to close the aggregate's body")?;
        Ok(Literal::Aggregate(Aggregate {
            span: result.span().to(self.prev_span()),
            result,
            func,
            target,
            body,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(s: &str) -> Result<Program, Diagnostic> {
        parse(&SourceFile::new("t.dl", s))
    }

    #[test]
    fn parses_the_seed_program() {
        let p = parse_str(
            ".decl edge(x: symbol, y: symbol)\n.decl path(x: symbol, y: symbol)\n.decl ready()\n\
             .input edge\n.output path\npath(x, y) :- edge(x, y).\n\
             path(x, z) :- path(x, y), path(y, z).\nready().\n",
        )
        .expect("parses");
        assert_eq!(p.items.len(), 8);
        let Item::Rule(r) = &p.items[7] else {
            panic!("fact expected")
        };
        assert!(r.body.is_empty() && r.head.args.is_empty());
    }

    #[test]
    fn parses_comparisons_negation_aggregates() {
        let p = parse_str(
            "a(x) :- b(x, -3, _), x != \"q\", !c(x), n = count : { b(x, _, _) }, m = min y : { d(y) }.",
        )
        .expect("parses");
        let Item::Rule(r) = &p.items[0] else {
            panic!("rule expected")
        };
        assert_eq!(r.body.len(), 5);
        assert!(
            matches!(&r.body[0], Literal::Positive(a) if a.args[1] == Term::Num(-3, Span::new(13, 15)))
        );
        assert!(matches!(&r.body[2], Literal::Negative(..)));
        assert!(matches!(
            &r.body[3],
            Literal::Aggregate(Aggregate {
                func: AggFunc::Count,
                ..
            })
        ));
        assert!(matches!(
            &r.body[4],
            Literal::Aggregate(Aggregate {
                func: AggFunc::Min,
                ..
            })
        ));
    }

    #[test]
    fn syntax_errors_are_located() {
        let cases = [
            ("a(x) :- b(x)", 1, 13),
            ("a(x) :- b(x);c(x).", 1, 13),
            (".decl a(x: float)", 1, 12),
            (".type T <: symbol", 1, 1),
            ("a(x), b(x) :- c(x).", 1, 5),
            ("a(x) :- b(x + 1).", 1, 13),
            ("\n  a(x) :- .", 2, 11),
            (".decl e(x: symbol) eqrel", 1, 20),
        ];
        for (src, line, col) in cases {
            let e = parse_str(src).expect_err(src);
            assert_eq!((e.line(), e.column()), (line, col), "{src}: {e}");
        }
    }
}
