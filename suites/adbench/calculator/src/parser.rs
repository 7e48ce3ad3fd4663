//! Recursive-descent parser from tokens to the syntax tree. Constructs the
//! calculator does not run (classes, `with`, generators' `yield`...) are
//! refused here, by name, so the agent learns what to rephrase before
//! anything runs. Imports are checked when they run (see `interp`), so
//! that `try: import numpy / except ImportError:` works as in CPython.

use std::rc::Rc;

use super::ast::*;
use super::error::{Fault, Raised};
use super::lexer::{tokenize, unescape, Tok, Token};
use super::value::Value;

/// Deep nesting would overflow the parser's stack before any limit fires.
const MAX_DEPTH: usize = 200;

pub fn parse_program(src: &str) -> Result<Vec<Stmt>, Raised> {
    let tokens = tokenize(src)?;
    let mut p = Parser {
        toks: tokens,
        pos: 0,
        depth: 0,
    };
    let mut out = Vec::new();
    while !p.at(&Tok::End) {
        if p.eat(&Tok::Newline) {
            continue;
        }
        if p.at(&Tok::Indent) {
            return Err(p.error("unexpected indent"));
        }
        p.statement(&mut out)?;
    }
    Ok(out)
}

fn parse_inline_expr(src: &str, line: u32) -> Result<Expr, Raised> {
    // Parenthesised so that an f-string field may span lines like Python's.
    let tokens = tokenize(&format!("({src}\n)")).map_err(|e| relocate(e, line))?;
    let mut p = Parser {
        toks: tokens,
        pos: 0,
        depth: 0,
    };
    let expr = p.expr_list().map_err(|e| relocate(e, line))?;
    Ok(expr)
}

fn relocate(e: Raised, line: u32) -> Raised {
    match e {
        Raised::Fault(Fault::Syntax(msg)) => {
            let rest = msg.split_once(": ").map(|(_, r)| r).unwrap_or(&msg);
            Raised::fault(Fault::Syntax(format!(
                "line {line}: in an f-string: {rest}"
            )))
        }
        other => other,
    }
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
}

fn refused_statement(keyword: &str) -> Option<&'static str> {
    Some(match keyword {
        "class" => "`class` is not supported by the calculator; use dicts and functions",
        "with" => {
            "`with` is not supported by the calculator: there are no files or resources to open"
        }
        "yield" => "`yield` (generators) is not supported by the calculator; build a list instead",
        "async" | "await" => "`async`/`await` are not supported by the calculator",
        "nonlocal" => "`nonlocal` is not supported by the calculator; return the new value instead",
        _ => return None,
    })
}

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    fn peek_at(&self, k: usize) -> &Tok {
        let i = (self.pos + k).min(self.toks.len() - 1);
        &self.toks[i].tok
    }

    fn line(&self) -> u32 {
        self.toks[self.pos].line
    }

    fn at(&self, t: &Tok) -> bool {
        self.peek() == t
    }

    fn at_op(&self, op: &str) -> bool {
        matches!(self.peek(), Tok::Op(o) if *o == op)
    }

    fn at_kw(&self, kw: &str) -> bool {
        matches!(self.peek(), Tok::Name(n) if n == kw)
    }

    /// Steps past the current token when `here` says it is the one wanted.
    fn step_if(&mut self, here: bool) -> bool {
        if here {
            self.pos += 1;
        }
        here
    }

    fn eat(&mut self, t: &Tok) -> bool {
        self.step_if(self.at(t))
    }

    fn eat_op(&mut self, op: &str) -> bool {
        self.step_if(self.at_op(op))
    }

    fn eat_kw(&mut self, kw: &str) -> bool {
        self.step_if(self.at_kw(kw))
    }

    fn error(&self, msg: &str) -> Raised {
        let near = match self.peek() {
            Tok::Name(n) => format!(" near `{n}`"),
            Tok::Op(o) => format!(" near `{o}`"),
            Tok::Newline => " at end of line".to_string(),
            Tok::End => " at end of input".to_string(),
            _ => String::new(),
        };
        Raised::fault(Fault::Syntax(format!("line {}: {msg}{near}", self.line())))
    }

    /// A syntax error naming `wanted` unless the token was eaten.
    fn expected(&self, eaten: bool, wanted: &str) -> Result<(), Raised> {
        if eaten {
            Ok(())
        } else {
            Err(self.error(&format!("expected `{wanted}`")))
        }
    }

    fn expect_op(&mut self, op: &str) -> Result<(), Raised> {
        let eaten = self.eat_op(op);
        self.expected(eaten, op)
    }

    fn expect_kw(&mut self, kw: &str) -> Result<(), Raised> {
        let eaten = self.eat_kw(kw);
        self.expected(eaten, kw)
    }

    fn name(&mut self) -> Result<String, Raised> {
        match self.peek().clone() {
            Tok::Name(n) if !is_keyword(&n) => {
                self.pos += 1;
                Ok(n)
            }
            _ => Err(self.error("expected a name")),
        }
    }

    fn enter(&mut self) -> Result<(), Raised> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("too deeply nested"));
        }
        Ok(())
    }

    // ---- statements ----

    fn statement(&mut self, out: &mut Vec<Stmt>) -> Result<(), Raised> {
        let line = self.line();
        let kw = match self.peek() {
            Tok::Name(n) => n.clone(),
            _ => String::new(),
        };
        if let Some(msg) = refused_statement(&kw) {
            return Err(Raised::refused(format!("line {line}: {msg}")));
        }
        if self.at_op("@") {
            return Err(Raised::refused(format!(
                "line {line}: decorators (`@`) are not supported by the calculator; call the function directly"
            )));
        }
        let kind = match kw.as_str() {
            "if" => {
                self.pos += 1;
                let mut branches = vec![(self.test()?, self.block()?)];
                let mut orelse = Vec::new();
                loop {
                    if self.eat_kw("elif") {
                        branches.push((self.test()?, self.block()?));
                    } else if self.eat_kw("else") {
                        orelse = self.block()?;
                        break;
                    } else {
                        break;
                    }
                }
                StmtKind::If(branches, orelse)
            }
            "while" => {
                self.pos += 1;
                let cond = self.test()?;
                let body = self.block()?;
                let orelse = if self.eat_kw("else") {
                    self.block()?
                } else {
                    Vec::new()
                };
                StmtKind::While(cond, body, orelse)
            }
            "for" => {
                self.pos += 1;
                let target = self.target_list()?;
                self.expect_kw("in")?;
                let iter = self.expr_list()?;
                let body = self.block()?;
                let orelse = if self.eat_kw("else") {
                    self.block()?
                } else {
                    Vec::new()
                };
                StmtKind::For(target, iter, body, orelse)
            }
            "def" => {
                self.pos += 1;
                let name = self.name()?;
                self.expect_op("(")?;
                let params = self.params(")")?;
                self.expect_op(")")?;
                if self.eat_op("->") {
                    self.test()?;
                }
                let body = self.block()?;
                StmtKind::Def(Rc::new(FuncDef { name, params, body }))
            }
            "try" => {
                self.pos += 1;
                let body = self.block()?;
                let mut handlers = Vec::new();
                while self.at_kw("except") {
                    self.pos += 1;
                    let mut classes = Vec::new();
                    let mut bind = None;
                    if !self.at_op(":") {
                        let e = self.test()?;
                        // `ValueError`, `statistics.StatisticsError`, or a tuple of them.
                        let class_name = |e: Expr| match e {
                            Expr::Name(n) | Expr::Attr(_, n) => Some(n),
                            _ => None,
                        };
                        let items = match e {
                            Expr::Tuple(items) => items,
                            single => vec![single],
                        };
                        for item in items {
                            match class_name(item) {
                                Some(n) => classes.push(n),
                                None => {
                                    return Err(self.error("`except` takes exception class names"))
                                }
                            }
                        }
                        if self.eat_kw("as") {
                            bind = Some(self.name()?);
                        }
                    }
                    handlers.push(Handler {
                        classes,
                        bind,
                        body: self.block()?,
                    });
                }
                let orelse = if self.eat_kw("else") {
                    self.block()?
                } else {
                    Vec::new()
                };
                let finally = if self.eat_kw("finally") {
                    self.block()?
                } else {
                    Vec::new()
                };
                if handlers.is_empty() && finally.is_empty() {
                    return Err(self.error("`try` needs an `except` or `finally`"));
                }
                StmtKind::Try {
                    body,
                    handlers,
                    orelse,
                    finally,
                }
            }
            _ => return self.simple_statements(out),
        };
        out.push(Stmt { line, kind });
        Ok(())
    }

    /// A colon and then either an indented block or statements on the same line.
    fn block(&mut self) -> Result<Vec<Stmt>, Raised> {
        self.expect_op(":")?;
        let mut body = Vec::new();
        if self.eat(&Tok::Newline) {
            if !self.eat(&Tok::Indent) {
                return Err(self.error("expected an indented block"));
            }
            while !self.eat(&Tok::Dedent) {
                if self.at(&Tok::End) {
                    break;
                }
                if self.eat(&Tok::Newline) {
                    continue;
                }
                self.statement(&mut body)?;
            }
        } else {
            self.simple_statements(&mut body)?;
        }
        Ok(body)
    }

    fn simple_statements(&mut self, out: &mut Vec<Stmt>) -> Result<(), Raised> {
        loop {
            let line = self.line();
            self.simple_statement(line, out)?;
            if self.eat_op(";") {
                if self.at(&Tok::Newline) || self.at(&Tok::End) {
                    break;
                }
                continue;
            }
            break;
        }
        if !self.eat(&Tok::Newline) && !self.at(&Tok::End) {
            return Err(self.error("unexpected token"));
        }
        Ok(())
    }

    fn simple_statement(&mut self, line: u32, out: &mut Vec<Stmt>) -> Result<(), Raised> {
        let kw = match self.peek() {
            Tok::Name(n) => n.clone(),
            _ => String::new(),
        };
        if let Some(msg) = refused_statement(&kw) {
            return Err(Raised::refused(format!("line {line}: {msg}")));
        }
        let kind = match kw.as_str() {
            "pass" => {
                self.pos += 1;
                StmtKind::Pass
            }
            "break" => {
                self.pos += 1;
                StmtKind::Break
            }
            "continue" => {
                self.pos += 1;
                StmtKind::Continue
            }
            "return" => {
                self.pos += 1;
                if self.at_statement_end() {
                    StmtKind::Return(None)
                } else {
                    StmtKind::Return(Some(self.expr_list()?))
                }
            }
            "raise" => {
                self.pos += 1;
                if self.at_statement_end() {
                    StmtKind::Raise(None)
                } else {
                    let e = self.test()?;
                    if self.eat_kw("from") {
                        self.test()?;
                    }
                    StmtKind::Raise(Some(e))
                }
            }
            "global" => {
                self.pos += 1;
                let mut names = vec![self.name()?];
                while self.eat_op(",") {
                    names.push(self.name()?);
                }
                StmtKind::Global(names)
            }
            "del" => {
                self.pos += 1;
                let target = self.target_list()?;
                match target {
                    Target::Tuple(items) => StmtKind::Del(items),
                    t => StmtKind::Del(vec![t]),
                }
            }
            "assert" => {
                self.pos += 1;
                let cond = self.test()?;
                let msg = if self.eat_op(",") {
                    Some(self.test()?)
                } else {
                    None
                };
                StmtKind::Assert(cond, msg)
            }
            "import" => {
                self.pos += 1;
                loop {
                    let module = self.dotted_name()?;
                    let bound = if self.eat_kw("as") {
                        self.name()?
                    } else {
                        module.clone()
                    };
                    out.push(Stmt {
                        line,
                        kind: StmtKind::Import(module, bound),
                    });
                    if !self.eat_op(",") {
                        return Ok(());
                    }
                }
            }
            "from" => {
                self.pos += 1;
                let module = self.dotted_name()?;
                self.expect_kw("import")?;
                if self.eat_op("*") {
                    // Every public name of the module; "*" marks it.
                    StmtKind::FromImport(module, vec![("*".to_string(), "*".to_string())])
                } else {
                    return self.imported_names(module, line, out);
                }
            }
            _ => self.expression_statement()?,
        };
        out.push(Stmt { line, kind });
        Ok(())
    }

    /// The names of `from module import a, b as c`, parenthesised or not.
    fn imported_names(
        &mut self,
        module: String,
        line: u32,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Raised> {
        let parens = self.eat_op("(");
        let mut names = Vec::new();
        loop {
            let name = self.name()?;
            let bound = if self.eat_kw("as") {
                self.name()?
            } else {
                name.clone()
            };
            names.push((name, bound));
            if !self.eat_op(",") || (parens && self.at_op(")")) {
                break;
            }
        }
        if parens {
            self.expect_op(")")?;
        }
        out.push(Stmt {
            line,
            kind: StmtKind::FromImport(module, names),
        });
        Ok(())
    }

    fn at_statement_end(&self) -> bool {
        matches!(self.peek(), Tok::Newline | Tok::End) || self.at_op(";")
    }

    fn dotted_name(&mut self) -> Result<String, Raised> {
        let mut name = self.name()?;
        while self.eat_op(".") {
            name.push('.');
            name.push_str(&self.name()?);
        }
        Ok(name)
    }

    fn expression_statement(&mut self) -> Result<StmtKind, Raised> {
        let first = self.expr_list_star()?;
        if self.at_op(":") {
            // An annotated assignment: the annotation is parsed and ignored.
            self.pos += 1;
            self.test()?;
            let target = self.to_target(first)?;
            if self.eat_op("=") {
                let value = self.expr_list_star()?;
                return Ok(StmtKind::Assign(vec![target], value));
            }
            return Ok(StmtKind::Pass);
        }
        if let Tok::Op(op) = self.peek().clone() {
            if let Some(bin) = aug_op(op) {
                self.pos += 1;
                let target = self.to_target(first)?;
                if matches!(target, Target::Tuple(_) | Target::Starred(_)) {
                    return Err(self.error("illegal target for augmented assignment"));
                }
                let value = self.expr_list()?;
                return Ok(StmtKind::AugAssign(target, bin, value));
            }
        }
        if self.at_op("=") {
            let mut targets = vec![self.to_target(first)?];
            let mut value;
            loop {
                self.expect_op("=")?;
                value = self.expr_list_star()?;
                if self.at_op("=") {
                    targets.push(self.to_target(value)?);
                } else {
                    break;
                }
            }
            return Ok(StmtKind::Assign(targets, value));
        }
        Ok(StmtKind::Expr(first))
    }

    fn to_target(&self, e: Expr) -> Result<Target, Raised> {
        Ok(match e {
            Expr::Name(n) => Target::Name(n),
            Expr::Index(obj, idx) => Target::Index(*obj, *idx),
            Expr::Attr(..) => {
                return Err(Raised::refused(format!(
                    "line {}: setting attributes is not supported by the calculator; use a dict",
                    self.line()
                )))
            }
            Expr::Tuple(items) | Expr::List(items) => Target::Tuple(
                items
                    .into_iter()
                    .map(|i| self.to_target(i))
                    .collect::<Result<_, _>>()?,
            ),
            Expr::Starred(inner) => Target::Starred(Box::new(self.to_target(*inner)?)),
            _ => return Err(self.error("cannot assign to this expression")),
        })
    }

    fn target_list(&mut self) -> Result<Target, Raised> {
        let mut items = Vec::new();
        loop {
            let e = if self.eat_op("*") {
                Expr::Starred(Box::new(self.or_expr()?))
            } else {
                self.or_expr()?
            };
            items.push(self.to_target(e)?);
            if !self.eat_op(",") || self.at_kw("in") || self.at_op("=") {
                break;
            }
        }
        // A trailing comma makes a one-element tuple target.
        if items.len() == 1 && !matches!(self.toks[self.pos - 1].tok, Tok::Op(",")) {
            Ok(items.pop().expect("one target"))
        } else {
            Ok(Target::Tuple(items))
        }
    }

    fn params(&mut self, close: &str) -> Result<Vec<Param>, Raised> {
        let mut params = Vec::new();
        while !self.at_op(close) {
            let kind = if self.eat_op("**") {
                ParamKind::StarStar
            } else if self.eat_op("*") {
                if self.at_op(",") {
                    // A bare `*` only marks keyword-only parameters.
                    self.pos += 1;
                    continue;
                }
                ParamKind::Star
            } else if self.eat_op("/") {
                if !self.eat_op(",") {
                    break;
                }
                continue;
            } else {
                ParamKind::Normal
            };
            let name = self.name()?;
            if close == ")" && self.eat_op(":") {
                self.test()?;
            }
            let default = if self.eat_op("=") {
                Some(self.test()?)
            } else {
                None
            };
            params.push(Param {
                name,
                default,
                kind,
            });
            if !self.eat_op(",") {
                break;
            }
        }
        Ok(params)
    }

    // ---- expressions ----

    /// `a, b` as a tuple, or a single expression.
    fn expr_list(&mut self) -> Result<Expr, Raised> {
        self.tuple_or_single(Parser::test)
    }

    /// Like `expr_list`, also allowing `*rest` items (assignment targets).
    fn expr_list_star(&mut self) -> Result<Expr, Raised> {
        self.tuple_or_single(Parser::star_or_test)
    }

    /// Comma-separated `item`s up to the end of the expression: a tuple,
    /// or the one item when no comma follows it.
    fn tuple_or_single(
        &mut self,
        item: fn(&mut Parser) -> Result<Expr, Raised>,
    ) -> Result<Expr, Raised> {
        let first = item(self)?;
        if !self.at_op(",") {
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat_op(",") {
            if self.at_expr_end() {
                break;
            }
            items.push(item(self)?);
        }
        Ok(Expr::Tuple(items))
    }

    fn at_expr_end(&self) -> bool {
        matches!(self.peek(), Tok::Newline | Tok::End)
            || ["=", ")", "]", "}", ":", ";"].iter().any(|o| self.at_op(o))
            || aug_op_tok(self.peek())
    }

    fn test(&mut self) -> Result<Expr, Raised> {
        self.enter()?;
        let result = self.test_inner();
        self.depth -= 1;
        result
    }

    fn test_inner(&mut self) -> Result<Expr, Raised> {
        if self.eat_kw("lambda") {
            let params = self.params(":")?;
            self.expect_op(":")?;
            let line = self.line();
            let body = self.test()?;
            return Ok(Expr::Lambda(Rc::new(FuncDef {
                name: "<lambda>".to_string(),
                params,
                body: vec![Stmt {
                    line,
                    kind: StmtKind::Return(Some(body)),
                }],
            })));
        }
        let e = self.or_test()?;
        if self.at_kw("if") {
            // `x if c else y`; a comprehension's `if` is not followed by `else`.
            let save = self.pos;
            self.pos += 1;
            let cond = self.or_test()?;
            if self.eat_kw("else") {
                let other = self.test()?;
                return Ok(Expr::IfElse(Box::new(cond), Box::new(e), Box::new(other)));
            }
            self.pos = save;
        }
        if self.at_op(":=") {
            return Err(Raised::refused(format!(
                "line {}: the walrus operator `:=` is not supported by the calculator; assign on its own line",
                self.line()
            )));
        }
        Ok(e)
    }

    fn or_test(&mut self) -> Result<Expr, Raised> {
        let mut e = self.and_test()?;
        while self.eat_kw("or") {
            e = Expr::Or(Box::new(e), Box::new(self.and_test()?));
        }
        Ok(e)
    }

    fn and_test(&mut self) -> Result<Expr, Raised> {
        let mut e = self.not_test()?;
        while self.eat_kw("and") {
            e = Expr::And(Box::new(e), Box::new(self.not_test()?));
        }
        Ok(e)
    }

    fn not_test(&mut self) -> Result<Expr, Raised> {
        if self.eat_kw("not") {
            self.enter()?;
            let inner = self.not_test();
            self.depth -= 1;
            return Ok(Expr::Unary(UnOp::Not, Box::new(inner?)));
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Result<Expr, Raised> {
        let first = self.or_expr()?;
        let mut rest = Vec::new();
        loop {
            let op = match self.peek() {
                Tok::Op("==") => CmpOp::Eq,
                Tok::Op("!=") => CmpOp::Ne,
                Tok::Op("<") => CmpOp::Lt,
                Tok::Op("<=") => CmpOp::Le,
                Tok::Op(">") => CmpOp::Gt,
                Tok::Op(">=") => CmpOp::Ge,
                Tok::Name(n) if n == "in" => CmpOp::In,
                Tok::Name(n)
                    if n == "not" && matches!(self.peek_at(1), Tok::Name(m) if m == "in") =>
                {
                    self.pos += 1;
                    CmpOp::NotIn
                }
                Tok::Name(n) if n == "is" => {
                    if matches!(self.peek_at(1), Tok::Name(m) if m == "not") {
                        self.pos += 1;
                        CmpOp::IsNot
                    } else {
                        CmpOp::Is
                    }
                }
                _ => break,
            };
            self.pos += 1;
            rest.push((op, self.or_expr()?));
        }
        if rest.is_empty() {
            Ok(first)
        } else {
            Ok(Expr::Compare(Box::new(first), rest))
        }
    }

    fn binary_level(&mut self, level: usize) -> Result<Expr, Raised> {
        const LEVELS: &[&[(&str, BinOp)]] = &[
            &[("|", BinOp::BitOr)],
            &[("^", BinOp::BitXor)],
            &[("&", BinOp::BitAnd)],
            &[("<<", BinOp::Shl), (">>", BinOp::Shr)],
            &[("+", BinOp::Add), ("-", BinOp::Sub)],
            &[
                ("*", BinOp::Mul),
                ("/", BinOp::Div),
                ("//", BinOp::FloorDiv),
                ("%", BinOp::Mod),
            ],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut e = self.binary_level(level + 1)?;
        'outer: loop {
            for (sym, op) in LEVELS[level] {
                if self.eat_op(sym) {
                    let rhs = self.binary_level(level + 1)?;
                    e = Expr::Binary(*op, Box::new(e), Box::new(rhs));
                    continue 'outer;
                }
            }
            break;
        }
        Ok(e)
    }

    fn or_expr(&mut self) -> Result<Expr, Raised> {
        self.binary_level(0)
    }

    fn unary(&mut self) -> Result<Expr, Raised> {
        let op = if self.eat_op("-") {
            UnOp::Neg
        } else if self.eat_op("+") {
            UnOp::Pos
        } else if self.eat_op("~") {
            UnOp::Invert
        } else {
            return self.power();
        };
        self.enter()?;
        let inner = self.unary();
        self.depth -= 1;
        Ok(Expr::Unary(op, Box::new(inner?)))
    }

    fn power(&mut self) -> Result<Expr, Raised> {
        let base = self.primary()?;
        if self.eat_op("**") {
            self.enter()?;
            let exp = self.unary();
            self.depth -= 1;
            return Ok(Expr::Binary(BinOp::Pow, Box::new(base), Box::new(exp?)));
        }
        Ok(base)
    }

    fn primary(&mut self) -> Result<Expr, Raised> {
        let mut e = self.atom()?;
        loop {
            if self.eat_op(".") {
                let name = match self.peek().clone() {
                    Tok::Name(n) => {
                        self.pos += 1;
                        n
                    }
                    _ => return Err(self.error("expected an attribute name")),
                };
                e = Expr::Attr(Box::new(e), name);
            } else if self.eat_op("(") {
                let args = self.call_args()?;
                e = Expr::Call(Box::new(e), args);
            } else if self.eat_op("[") {
                let idx = self.subscript()?;
                self.expect_op("]")?;
                e = Expr::Index(Box::new(e), Box::new(idx));
            } else {
                return Ok(e);
            }
        }
    }

    fn subscript(&mut self) -> Result<Expr, Raised> {
        let mut items = Vec::new();
        loop {
            items.push(self.slice_item()?);
            if !self.eat_op(",") || self.at_op("]") {
                break;
            }
        }
        if items.len() == 1 {
            Ok(items.pop().expect("one item"))
        } else {
            Ok(Expr::Tuple(items))
        }
    }

    fn slice_item(&mut self) -> Result<Expr, Raised> {
        let lower = if self.at_op(":") {
            None
        } else {
            Some(Box::new(self.test()?))
        };
        if !self.eat_op(":") {
            return Ok(*lower.expect("an index expression"));
        }
        let upper = if self.at_op(":") || self.at_op("]") || self.at_op(",") {
            None
        } else {
            Some(Box::new(self.test()?))
        };
        let step = if self.eat_op(":") && !self.at_op("]") && !self.at_op(",") {
            Some(Box::new(self.test()?))
        } else {
            None
        };
        Ok(Expr::Slice(lower, upper, step))
    }

    fn call_args(&mut self) -> Result<Vec<Arg>, Raised> {
        let mut args = Vec::new();
        while !self.eat_op(")") {
            if self.eat_op("**") {
                args.push(Arg::StarStar(self.test()?));
            } else if self.eat_op("*") {
                args.push(Arg::Star(self.test()?));
            } else if matches!(self.peek(), Tok::Name(_)) && matches!(self.peek_at(1), Tok::Op("="))
            {
                let name = self.name()?;
                self.pos += 1;
                args.push(Arg::Kw(name, self.test()?));
            } else {
                let e = self.test()?;
                if self.at_kw("for") {
                    // `sum(x for x in xs)`: a bare generator argument.
                    let gen = self.comprehension(CompKind::Gen, e, None)?;
                    args.push(Arg::Pos(gen));
                } else {
                    args.push(Arg::Pos(e));
                }
            }
            if !self.eat_op(",") {
                self.expect_op(")")?;
                break;
            }
        }
        Ok(args)
    }

    fn comprehension(
        &mut self,
        kind: CompKind,
        elt: Expr,
        value: Option<Expr>,
    ) -> Result<Expr, Raised> {
        let mut clauses = Vec::new();
        while self.eat_kw("for") {
            let target = self.target_list()?;
            self.expect_kw("in")?;
            let iter = self.or_test()?;
            let mut conds = Vec::new();
            while self.at_kw("if") {
                self.pos += 1;
                conds.push(self.or_test()?);
            }
            clauses.push(CompClause {
                target,
                iter,
                conds,
            });
        }
        Ok(Expr::Comp {
            kind,
            elt: Box::new(elt),
            value: value.map(Box::new),
            clauses,
        })
    }

    fn atom(&mut self) -> Result<Expr, Raised> {
        let line = self.line();
        let tok = self.peek().clone();
        self.pos += 1;
        Ok(match tok {
            Tok::Int(v) => Expr::Const(Value::Int(v)),
            Tok::BigInt(digits) => {
                let big = digits
                    .parse::<num_bigint::BigInt>()
                    .map_err(|_| self.error("invalid integer literal"))?;
                if big.bits() > super::bigint::MAX_INT_BITS {
                    return Err(self.error("integer literal has more than 4300 digits"));
                }
                Expr::Const(Value::BigInt(Rc::new(big)))
            }
            Tok::Float(v) => Expr::Const(Value::Float(v)),
            Tok::Str(_) | Tok::FStr(_) => {
                self.pos -= 1;
                self.strings(line)?
            }
            Tok::Name(n) => match n.as_str() {
                "None" => Expr::Const(Value::None),
                "True" => Expr::Const(Value::Bool(true)),
                "False" => Expr::Const(Value::Bool(false)),
                "yield" | "await" => {
                    return Err(Raised::refused(format!(
                        "line {line}: `{n}` is not supported by the calculator"
                    )))
                }
                _ if is_keyword(&n) => {
                    self.pos -= 1;
                    return Err(self.error("invalid syntax"));
                }
                _ => Expr::Name(n),
            },
            Tok::Op("(") => {
                self.enter()?;
                let e = self.paren();
                self.depth -= 1;
                e?
            }
            Tok::Op("[") => {
                self.enter()?;
                let e = self.list_display();
                self.depth -= 1;
                e?
            }
            Tok::Op("{") => {
                self.enter()?;
                let e = self.brace_display();
                self.depth -= 1;
                e?
            }
            Tok::Op("...") => Expr::Const(Value::None),
            _ => {
                self.pos -= 1;
                return Err(self.error("invalid syntax"));
            }
        })
    }

    fn paren(&mut self) -> Result<Expr, Raised> {
        if self.eat_op(")") {
            return Ok(Expr::Tuple(Vec::new()));
        }
        let first = self.star_or_test()?;
        if self.at_kw("for") {
            return self.closed_comprehension(CompKind::Gen, first, None, ")");
        }
        if self.eat_op(")") {
            return Ok(first);
        }
        Ok(Expr::Tuple(self.items_until(first, ")")?))
    }

    /// A comprehension after its first element, then its closing bracket.
    fn closed_comprehension(
        &mut self,
        kind: CompKind,
        first: Expr,
        value: Option<Expr>,
        close: &str,
    ) -> Result<Expr, Raised> {
        let comp = self.comprehension(kind, first, value)?;
        self.expect_op(close)?;
        Ok(comp)
    }

    /// The items of a display after its first, up to and past `close`
    /// (a trailing comma allowed).
    fn items_until(&mut self, first: Expr, close: &str) -> Result<Vec<Expr>, Raised> {
        let mut items = vec![first];
        while self.eat_op(",") {
            if self.at_op(close) {
                break;
            }
            items.push(self.star_or_test()?);
        }
        self.expect_op(close)?;
        Ok(items)
    }

    fn star_or_test(&mut self) -> Result<Expr, Raised> {
        if self.eat_op("*") {
            Ok(Expr::Starred(Box::new(self.or_expr()?)))
        } else {
            self.test()
        }
    }

    fn list_display(&mut self) -> Result<Expr, Raised> {
        if self.eat_op("]") {
            return Ok(Expr::List(Vec::new()));
        }
        let first = self.star_or_test()?;
        if self.at_kw("for") {
            return self.closed_comprehension(CompKind::List, first, None, "]");
        }
        Ok(Expr::List(self.items_until(first, "]")?))
    }

    fn brace_display(&mut self) -> Result<Expr, Raised> {
        if self.eat_op("}") {
            return Ok(Expr::Dict(Vec::new()));
        }
        if self.at_op("**") {
            return self.dict_display(Vec::new());
        }
        let first = self.star_or_test()?;
        if self.eat_op(":") {
            let value = self.test()?;
            if self.at_kw("for") {
                return self.closed_comprehension(CompKind::Dict, first, Some(value), "}");
            }
            if !self.eat_op(",") {
                self.expect_op("}")?;
                return Ok(Expr::Dict(vec![(Some(first), value)]));
            }
            return self.dict_display(vec![(Some(first), value)]);
        }
        if self.at_kw("for") {
            return self.closed_comprehension(CompKind::Set, first, None, "}");
        }
        Ok(Expr::Set(self.items_until(first, "}")?))
    }

    /// The rest of a dict display: `key: value` and `**mapping` items.
    fn dict_display(&mut self, mut pairs: Vec<(Option<Expr>, Expr)>) -> Result<Expr, Raised> {
        while !self.eat_op("}") {
            if self.eat_op("**") {
                pairs.push((None, self.or_expr()?));
            } else {
                let k = self.test()?;
                self.expect_op(":")?;
                pairs.push((Some(k), self.test()?));
            }
            if !self.eat_op(",") {
                self.expect_op("}")?;
                break;
            }
        }
        Ok(Expr::Dict(pairs))
    }

    /// Adjacent string literals concatenate, f-strings included.
    fn strings(&mut self, line: u32) -> Result<Expr, Raised> {
        let mut parts: Vec<FPart> = Vec::new();
        let mut any_f = false;
        loop {
            match self.peek().clone() {
                Tok::Str(s) => {
                    parts.push(FPart::Lit(s));
                }
                Tok::FStr(body) => {
                    any_f = true;
                    parts.extend(parse_fstring(&body, line)?);
                }
                _ => break,
            }
            self.pos += 1;
        }
        if !any_f {
            let text: String = parts
                .into_iter()
                .map(|p| match p {
                    FPart::Lit(s) => s,
                    FPart::Field { .. } => String::new(),
                })
                .collect();
            return Ok(Expr::Const(Value::Str(text.into())));
        }
        Ok(Expr::FString(parts))
    }
}

/// Splits an f-string body into literal text and `{expr!c:spec}` fields.
fn parse_fstring(body: &str, line: u32) -> Result<Vec<FPart>, Raised> {
    let chars: Vec<char> = body.chars().collect();
    let mut parts = Vec::new();
    let mut lit = String::new();
    let mut i = 0;
    let err = |msg: &str| Raised::fault(Fault::Syntax(format!("line {line}: f-string: {msg}")));
    while i < chars.len() {
        let c = chars[i];
        if c == '{' && chars.get(i + 1) == Some(&'{') {
            lit.push('{');
            i += 2;
            continue;
        }
        if c == '}' {
            if chars.get(i + 1) == Some(&'}') {
                lit.push('}');
                i += 2;
                continue;
            }
            return Err(err("single '}' is not allowed"));
        }
        if c != '{' {
            lit.push(c);
            i += 1;
            continue;
        }
        if !lit.is_empty() {
            parts.push(FPart::Lit(unescape(&std::mem::take(&mut lit), line)?));
        }
        i += 1;
        // The expression runs to a top-level `!`, `:`, `=` (debug) or `}`.
        let start = i;
        let mut depth = 0usize;
        let mut quote: Option<char> = None;
        while i < chars.len() {
            let ch = chars[i];
            if let Some(q) = quote {
                if ch == q {
                    quote = None;
                }
            } else if ch == '\'' || ch == '"' {
                quote = Some(ch);
            } else if "([{".contains(ch) {
                depth += 1;
            } else if ")]}".contains(ch) {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            } else if depth == 0 {
                let next = chars.get(i + 1).copied();
                if ch == '!' && next != Some('=') {
                    break;
                }
                if ch == ':' {
                    break;
                }
                if ch == '=' && !matches!(next, Some('=')) {
                    let prev = if i > start { chars[i - 1] } else { ' ' };
                    let after = chars[i + 1..].iter().find(|c| !c.is_whitespace()).copied();
                    if !"=!<>".contains(prev) && matches!(after, Some('}' | '!' | ':') | None) {
                        break;
                    }
                    if "=!<>".contains(prev) {
                        i += 1;
                        continue;
                    }
                }
                if ch == '=' && next == Some('=') {
                    i += 2;
                    continue;
                }
            }
            i += 1;
        }
        let src: String = chars[start..i].iter().collect();
        if src.trim().is_empty() {
            return Err(err("empty expression not allowed"));
        }
        let expr = parse_inline_expr(&src, line)?;
        let mut conversion = None;
        let mut debug = false;
        if chars.get(i) == Some(&'=') {
            // `{x = }` prints the expression text, `=` and spacing, then the
            // repr (or, given a format spec, the formatted value).
            debug = true;
            let mut text = format!("{src}=");
            i += 1;
            while chars.get(i).is_some_and(|c| c.is_whitespace()) {
                text.push(chars[i]);
                i += 1;
            }
            parts.push(FPart::Lit(text));
        }
        if chars.get(i) == Some(&'!') {
            let conv = chars
                .get(i + 1)
                .copied()
                .ok_or_else(|| err("missing conversion"))?;
            if !"rsa".contains(conv) {
                return Err(err(
                    "invalid conversion character: expected 's', 'r', or 'a'",
                ));
            }
            conversion = Some(conv);
            i += 2;
        }
        let mut spec = Vec::new();
        if chars.get(i) == Some(&':') {
            i += 1;
            let spec_start = i;
            let mut depth = 0usize;
            while i < chars.len() {
                match chars[i] {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    _ => {}
                }
                i += 1;
            }
            let spec_src: String = chars[spec_start..i].iter().collect();
            spec = parse_fstring(&spec_src, line)?;
        }
        if chars.get(i) != Some(&'}') {
            return Err(err("expecting '}'"));
        }
        i += 1;
        if debug && conversion.is_none() && spec.is_empty() {
            conversion = Some('r');
        }
        parts.push(FPart::Field {
            expr: Box::new(expr),
            conversion,
            spec,
        });
    }
    if !lit.is_empty() {
        parts.push(FPart::Lit(unescape(&lit, line)?));
    }
    Ok(parts)
}

fn aug_op(op: &str) -> Option<BinOp> {
    Some(match op {
        "+=" => BinOp::Add,
        "-=" => BinOp::Sub,
        "*=" => BinOp::Mul,
        "/=" => BinOp::Div,
        "//=" => BinOp::FloorDiv,
        "%=" => BinOp::Mod,
        "**=" => BinOp::Pow,
        "&=" => BinOp::BitAnd,
        "|=" => BinOp::BitOr,
        "^=" => BinOp::BitXor,
        "<<=" => BinOp::Shl,
        ">>=" => BinOp::Shr,
        _ => return None,
    })
}

fn aug_op_tok(t: &Tok) -> bool {
    matches!(t, Tok::Op(o) if aug_op(o).is_some())
}

fn is_keyword(name: &str) -> bool {
    matches!(
        name,
        "False"
            | "None"
            | "True"
            | "and"
            | "as"
            | "assert"
            | "async"
            | "await"
            | "break"
            | "class"
            | "continue"
            | "def"
            | "del"
            | "elif"
            | "else"
            | "except"
            | "finally"
            | "for"
            | "from"
            | "global"
            | "if"
            | "import"
            | "in"
            | "is"
            | "lambda"
            | "nonlocal"
            | "not"
            | "or"
            | "pass"
            | "raise"
            | "return"
            | "try"
            | "while"
            | "with"
            | "yield"
    )
}
